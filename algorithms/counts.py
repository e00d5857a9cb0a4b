r"""Closed-form I/O, FLOP and peak-memory counts of every algorithm — no arithmetic on data.

Each ``count_*`` function returns the exact :class:`Counts` that the executed algorithm of the
same name produces under :class:`~attnio.algorithms.memory.TwoLevelMemory` (checked on ≥ 50
small (n, d, M) triples in ``tests/algorithms/test_counts.py``). The sums over tiles are
collapsed: every per-tile quantity is multilinear in the tile sides, so summing over the
(at most two) block-size classes of each loop gives products of
:math:`n`, :math:`d` and trip counts :math:`T_x=\lceil x/B\rceil`; a count at n = 65,536
costs the same as at n = 8. Peaks use the largest (first) block of each loop,
:math:`b_x = \min(B, x)`.

Masked runs (:func:`count_masked`, closed forms in :mod:`attnio.algorithms.masked_counts`): the sum, over the tiles holding at least one kept entry,
of the unmasked algorithm's per-tile cost (a polynomial in the tile's sides r, c), plus the
per-block costs paid regardless of the mask. The non-empty tiles come by shape from
:func:`attnio.algorithms.masks.tile_classes`: for full / causal / sliding-window masks an exact
per-row-block formula (the kept columns of a row block are one interval, so its non-empty
column blocks are an interval of block indices: O(T_r) integer arithmetic, no walk of the
T_r × T_c grid); for block-sparse masks the grid compressed to its distinct pattern ranges;
for arbitrary masks a walk of the tile grid. Equal to the executed counts (``==``) in
``tests/algorithms/test_counts.py``.

Block sizes (stated here once, used by the executed and the counted runs alike):

* square tiles (standard, Saha–Ye, Algorithm 6): :math:`B=\lfloor\sqrt{M/4}\rfloor`, admissible
  :math:`M\ge 4` (:func:`square_block`);
* FlashAttention *published* (FA-1 Alg. 1/4): :math:`B_c=\lceil M/4d\rceil`,
  :math:`B_r=\min(B_c,d)`; *fitted*: the I/O-optimal block sizes that fit in M words
  (largest outer block, then largest inner block); *shaped*: published proportions,
  largest fitting :math:`B_c` (:func:`flash_block_sizes`).

Examples
--------
>>> c = count_flash1_backward(n=4096, d=64, M=16384)
>>> c.block_sizes, c.peak_fast_words <= 16384
((('B_r', 1), ('B_c', 62)), True)
>>> c.io == c.reads + c.writes and isinstance(c.io, int)
True
>>> count_flash1_backward(n=4096, d=64, M=16384, variant="published")
Traceback (most recent call last):
...
attnio.exceptions.CacheOverflowError: flash1 backward with published block sizes B_r=64, B_c=64: tile 'Q_i' (64x64 = 4096 words) would bring fast memory to 16384 + 4096 = 20480 words > M=16384 (the whole tile set needs 41152 words)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt
from typing import TYPE_CHECKING, Callable, Literal

from attnio.algorithms.primitives import ceil_div
from attnio.exceptions import CacheOverflowError, CacheTooSmallError
from attnio.validation import positive_int

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask
    from attnio.algorithms.memory import TwoLevelMemory

__all__ = [
    "Counts",
    "Variant",
    "square_block",
    "flash_block_sizes",
    "flash_tile_sequence",
    "count_tile_matmul",
    "count_standard_forward",
    "count_standard_backward",
    "count_square_tiling_forward",
    "count_small_cache_stable_forward",
    "count_flash1_forward",
    "count_flash1_backward",
    "count_flash2_forward",
    "count_flash2_backward",
    "count_small_cache_backward",
    "count_small_cache_dx",
    "count_small_cache_fused_backward",
    "count_small_cache_fused_forward",
    "count_masked",
]

Variant = Literal["fitted", "published", "shaped"]


@dataclass(frozen=True, slots=True)
class Counts:
    """Words read, words written, FLOPs and peak resident words of one run (Python ints)."""

    reads: int
    writes: int
    flops: int
    peak_fast_words: int
    block_sizes: tuple[tuple[str, int], ...] = ()

    @property
    def io(self) -> int:
        """Reads plus writes: the I/O of the red-blue pebble game."""
        return self.reads + self.writes

    def matches(self, mem: TwoLevelMemory) -> bool:
        """Whether reads, writes, FLOPs and peak equal what an executed memory counted."""
        return ((self.reads, self.writes, self.flops, self.peak_fast_words)
                == (mem.reads, mem.writes, mem.flops, mem.peak_words))

    def then(self, other: "Counts") -> "Counts":
        """The counts of running ``self`` and then ``other`` (sums; the larger peak)."""
        return Counts(
            self.reads + other.reads,
            self.writes + other.writes,
            self.flops + other.flops,
            max(self.peak_fast_words, other.peak_fast_words),
            self.block_sizes or other.block_sizes,
        )


def sequence_counts(*parts: Counts, block_sizes: tuple[tuple[str, int], ...]) -> Counts:
    total = Counts(0, 0, 0, 0)
    for part in parts:
        total = total.then(part)
    return Counts(total.reads, total.writes, total.flops, total.peak_fast_words, block_sizes)


def square_block(M: int) -> int:
    r"""Saha–Ye's block side :math:`B=\lfloor\sqrt{M/4}\rfloor` (so that :math:`4B^2\le M`).

    Raises
    ------
    InvalidInputError
        If ``M < 4`` (no 1×1 tile set fits).

    >>> square_block(4), square_block(63), square_block(64)
    (1, 3, 4)
    """
    if M < 4:
        raise CacheTooSmallError(f"M={M} is too small for any square tile: needs M >= 4")
    return isqrt(M // 4)


def _square_or_given(M: int, block: int | None) -> int:
    """The square block: :func:`square_block`, or a given side ``block ≥ 1`` (whose fit the
    caller checks with :func:`require_fit`, as :mod:`attnio.algorithms.tuning` does)."""
    if block is None:
        return square_block(M)
    return positive_int("block", block)


def require_fit(counts: Counts, M: int, name: str) -> Counts:
    """Raise CacheOverflowError when the tile set of ``counts`` needs more than M words."""
    if counts.peak_fast_words > M:
        raise CacheOverflowError(
            f"{name} with block sizes {dict(counts.block_sizes)} needs "
            f"{counts.peak_fast_words} words > M={M}")
    return counts


# ---- primitives ---------------------------------------------------------------------------
def count_tile_matmul(a: int, k: int, c: int, B: int) -> Counts:
    r"""TileMul of an a×k by k×c product: reads :math:`T_c ak + T_a kc`, writes :math:`ac`.

    >>> count_tile_matmul(5, 3, 4, 2)
    Counts(reads=66, writes=20, flops=120, peak_fast_words=12, block_sizes=())
    """
    ba, bk, bc = min(B, a), min(B, k), min(B, c)
    return Counts(
        ceil_div(c, B) * a * k + ceil_div(a, B) * k * c, a * c, 2 * a * k * c,
        ba * bk + bk * bc + ba * bc,
    )


def count_rowsum_product(a: int, c: int, B: int) -> Counts:
    ba, bc = min(B, a), min(B, c)
    return Counts(2 * a * c, a, 2 * a * c, ba + 2 * ba * bc)


def _count_elementwise(a: int, c: int, inputs: int, vectors: int, flops: int, B: int) -> Counts:
    ba, bc = min(B, a), min(B, c)
    return Counts(inputs * a * c + vectors * a, a * c, flops * a * c,
                  vectors * ba + inputs * ba * bc)


def _count_exp_scores(n: int, d: int, B: int) -> Counts:
    """Saha–Ye Phase 1: reads 2T_n·nd, writes n² + n, FLOPs 2n²d + 2n²."""
    bn, bd = min(B, n), min(B, d)
    return Counts(2 * ceil_div(n, B) * n * d, n * n + n, 2 * n * n * d + 2 * n * n,
                  bn + bn * bn + 2 * bn * bd)


# ---- standard -----------------------------------------------------------------------------
def count_standard_forward(n: int, d: int, M: int, block: int | None = None) -> Counts:
    """Standard forward: S = QKᵀ, two-pass softmax to P, O = PV (all tiles B×B)."""
    B = _square_or_given(M, block)
    bn, Tn = min(B, n), ceil_div(n, B)
    softmax = Counts(2 * n * n, n * n, 7 * n * n + 4 * n * Tn, bn * bn + 3 * bn)
    return sequence_counts(count_tile_matmul(n, d, n, B), softmax, count_tile_matmul(n, n, d, B),
                     block_sizes=(("B", B),))


def count_standard_backward(n: int, d: int, M: int, block: int | None = None) -> Counts:
    """Standard backward: dV = PᵀdO, dP = dO Vᵀ, D, dS = P∘(dP − D), dQ = dS K, dK = dSᵀQ."""
    B = _square_or_given(M, block)
    return sequence_counts(
        count_tile_matmul(n, n, d, B), count_tile_matmul(n, d, n, B),
        count_rowsum_product(n, d, B), _count_elementwise(n, n, 2, 1, 2, B),
        count_tile_matmul(n, n, d, B), count_tile_matmul(n, n, d, B),
        block_sizes=(("B", B),),
    )


# ---- Saha–Ye ------------------------------------------------------------------------------
def count_square_tiling_forward(n: int, d: int, M: int, block: int | None = None) -> Counts:
    r"""SquareTilingAttention: reads :math:`2T_nnd + T_dn^2 + T_nnd + n`, writes :math:`n^2+n+nd`."""
    B = _square_or_given(M, block)
    bn, bd = min(B, n), min(B, d)
    phase2 = Counts(n + ceil_div(d, B) * n * n + ceil_div(n, B) * n * d, n * d,
                    2 * n * n * d + n * d, bn + bn * bn + 2 * bn * bd)
    return sequence_counts(_count_exp_scores(n, d, B), phase2, block_sizes=(("B", B),))


def count_small_cache_stable_forward(n: int, d: int, M: int, block: int | None = None) -> Counts:
    r"""The stable forward of ``small-cache-stable``
    (:mod:`attnio.algorithms.small_cache_stable`): A = exp(τQKᵀ − m) with the row maxima m.

    Saha–Ye's count plus the rescaling sweep: reads
    :math:`3T_nnd + T_dn^2 + n^2 + nT_n + n`, writes :math:`2n^2 + nT_n + n + nd`, FLOPs
    :math:`4n^2d + 5n^2 + 2nT_n + nd`, peak Saha–Ye's (:math:`T_n = \lceil n/B\rceil`,
    :math:`B = \lfloor\sqrt{M/4}\rfloor`, admissible :math:`M \ge 4`).

    >>> s, u = count_small_cache_stable_forward(4096, 64, 1024), count_square_tiling_forward(4096, 64, 1024)
    >>> s.io - u.io == 2 * 4096 ** 2 + 2 * 4096 * 256, s.peak_fast_words == u.peak_fast_words
    (True, True)
    """
    B = _square_or_given(M, block)
    bn, bd, Tn = min(B, n), min(B, d), ceil_div(n, B)
    phase1 = Counts(2 * Tn * n * d + n * n + n * Tn, 2 * n * n + n * Tn + n,
                    2 * n * n * d + 5 * n * n + 2 * n * Tn,
                    max(bn + bn * bn + 2 * bn * bd, 3 * bn + bn * bn))
    phase2 = Counts(n + ceil_div(d, B) * n * n + ceil_div(n, B) * n * d, n * d,
                    2 * n * n * d + n * d, bn + bn * bn + 2 * bn * bd)
    return sequence_counts(phase1, phase2, block_sizes=(("B", B),))


# ---- FlashAttention -----------------------------------------------------------------------
def flash_tile_sequence(
    version: int, pass_: str, n: int, d: int, block_rows: int, block_cols: int
) -> list[tuple[str, int]]:
    """The tiles resident at the peak of a FlashAttention pass, in allocation order.

    The peak is the first inner iteration (largest blocks); the executed algorithm allocates
    exactly these tiles, in this order, before freeing any.
    """
    r, c = min(block_rows, n), min(block_cols, n)
    if (version, pass_) == (1, "forward"):
        shapes = [("K_j", c * d), ("V_j", c * d), ("Q_i", r * d), ("O_i", r * d), ("l_i", r),
                  ("m_i", r), ("S_ij", r * c), ("m_tilde", r), ("l_tilde", r), ("m_new", r),
                  ("l_new", r)]
    elif (version, pass_) == (1, "backward"):
        shapes = [("K_j", c * d), ("V_j", c * d), ("dK_j", c * d), ("dV_j", c * d),
                  ("Q_i", r * d), ("O_i", r * d), ("dO_i", r * d), ("dQ_i", r * d), ("l_i", r),
                  ("m_i", r), ("P_ij", r * c), ("dS_ij", r * c), ("D_i", r)]
    elif (version, pass_) == (2, "forward"):
        shapes = [("Q_i", r * d), ("O_i", r * d), ("l_i", r), ("m_i", r), ("K_j", c * d),
                  ("V_j", c * d), ("S_ij", r * c), ("m_new", r), ("alpha", r)]
    else:
        shapes = [("K_j", c * d), ("V_j", c * d), ("dK_j", c * d), ("dV_j", c * d),
                  ("Q_i", r * d), ("dO_i", r * d), ("dQ_i", r * d), ("L_i", r), ("D_i", r),
                  ("P_ij", r * c), ("dS_ij", r * c)]
    return shapes


def _flash_peak(version: int, pass_: str, n: int, d: int, br: int, bc: int) -> int:
    peak = sum(words for _, words in flash_tile_sequence(version, pass_, n, d, br, bc))
    if (version, pass_) == (2, "backward"):  # the D = rowsum(dO∘O) prologue
        r = min(br, n)
        peak = max(peak, 2 * r * d + r)
    return peak


def _check_fits(version: int, pass_: str, n: int, d: int, M: int, br: int, bc: int,
                variant: str) -> None:
    held = 0
    for tile, words in flash_tile_sequence(version, pass_, n, d, br, bc):
        if held + words > M:
            raise CacheOverflowError(
                f"flash{version} {pass_} with {variant} block sizes B_r={br}, B_c={bc}: "
                f"tile {tile!r} ({_side(tile, n, d, br, bc)} = {words} words) would bring fast "
                f"memory to {held} + {words} = {held + words} words > M={M} "
                f"(the whole tile set needs {_flash_peak(version, pass_, n, d, br, bc)} words)"
            )
        held += words


def _side(tile: str, n: int, d: int, br: int, bc: int) -> str:
    r, c = min(br, n), min(bc, n)
    if tile.endswith("_ij"):
        return f"{r}x{c}"
    if tile.endswith("_j"):
        return f"{c}x{d}"
    if tile in {"Q_i", "O_i", "dO_i", "dQ_i"}:
        return f"{r}x{d}"
    return f"{r}"


def flash_block_sizes(
    version: int, pass_: str, n: int, d: int, M: int, variant: Variant = "fitted"
) -> tuple[int, int]:
    r"""(B_r, B_c) of a FlashAttention pass.

    * ``published``: :math:`B_c=\lceil M/4d\rceil`, :math:`B_r=\min(B_c, d)` (FA-1 Alg. 1 line 1).
    * ``fitted``: the I/O-optimal tile sizes that fit in M words. The I/O depends only on the
      trip count of the outer loop (:math:`T_c`; :math:`T_r` for the FA-2 forward), so take
      the largest outer block that fits with a one-row inner block, then the largest inner
      block (at most :math:`\min(d, \text{outer})`) that still fits.
    * ``shaped``: the published proportions kept, :math:`B_r=\min(B_c,d)` (FA-2 forward:
      :math:`B_c=\min(B_r,d)`), with the largest :math:`B_c` that fits.

    Searches are bisections over the closed-form peak of :func:`flash_tile_sequence`
    (it grows with each block side).

    Raises
    ------
    InvalidInputError
        If even 1-row blocks do not fit (M below the smallest tile set).

    >>> flash_block_sizes(1, "backward", 4096, 64, 4096, "published")
    (16, 16)
    >>> flash_block_sizes(1, "backward", 4096, 64, 4096)
    (1, 14)
    >>> flash_block_sizes(1, "backward", 4096, 64, 4096, "shaped")
    (7, 7)
    """
    if variant == "published":
        bc = ceil_div(M, 4 * d)
        return min(bc, d), bc
    q_outer = (version, pass_) == (2, "forward")

    def pair(outer: int, inner: int) -> tuple[int, int]:  # -> (B_r, B_c)
        return (outer, inner) if q_outer else (inner, outer)

    def fits(outer: int, inner: int) -> bool:
        return _flash_peak(version, pass_, n, d, *pair(outer, inner)) <= M

    if not fits(1, 1):
        raise CacheTooSmallError(
            f"M={M} is too small for any flash{version} {pass_} tile set "
            f"(1-row blocks need {_flash_peak(version, pass_, n, d, 1, 1)} words at d={d})"
        )
    if variant == "shaped":
        outer = _largest(1, n, lambda b: fits(b, min(b, d)))
        return pair(outer, min(outer, d))
    outer = _largest(1, n, lambda b: fits(b, 1))
    inner = _largest(1, min(d, outer), lambda b: fits(outer, b))
    return pair(outer, inner)


def _largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int:
    """Largest b in [lo, hi] with ok(b), given ok(lo) and ok monotone decreasing."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def flash_setup(version: int, pass_: str, n: int, d: int, M: int,
                 variant: Variant, blocks: tuple[int, int] | None = None
                 ) -> tuple[int, int, int, int, int]:
    if blocks is None:
        br, bc = flash_block_sizes(version, pass_, n, d, M, variant)
    else:
        br, bc = positive_int("B_r", blocks[0]), positive_int("B_c", blocks[1])
        variant = "given"  # type: ignore[assignment]
    _check_fits(version, pass_, n, d, M, br, bc, variant)
    return br, bc, ceil_div(n, br), ceil_div(n, bc), _flash_peak(version, pass_, n, d, br, bc)


def count_flash1_forward(n: int, d: int, M: int, variant: Variant = "fitted",
                        blocks: tuple[int, int] | None = None) -> Counts:
    r"""FA-1 forward: reads :math:`2nd + T_c(2nd+2n)`, writes :math:`nd+2n+T_c(nd+2n)`."""
    br, bc, Tr, Tc, peak = flash_setup(1, "forward", n, d, M, variant, blocks)
    return Counts(
        2 * n * d + Tc * (2 * n * d + 2 * n),
        n * d + 2 * n + Tc * (n * d + 2 * n),
        4 * n * n * d + 5 * n * n + 13 * n * Tc + 2 * n * d * Tc,
        peak, (("B_r", br), ("B_c", bc)),
    )


def count_flash1_backward(n: int, d: int, M: int, variant: Variant = "fitted",
                        blocks: tuple[int, int] | None = None) -> Counts:
    r"""FA-1 backward: reads :math:`2nd + T_c(4nd+2n)`, writes :math:`3nd + T_cnd + 2nd`."""
    br, bc, Tr, Tc, peak = flash_setup(1, "backward", n, d, M, variant, blocks)
    return Counts(
        2 * n * d + Tc * (4 * n * d + 2 * n),
        3 * n * d + Tc * n * d + 2 * n * d,
        10 * n * n * d + 5 * n * n + 2 * n * d * Tc,
        peak, (("B_r", br), ("B_c", bc)),
    )


def count_flash2_forward(n: int, d: int, M: int, variant: Variant = "fitted",
                        blocks: tuple[int, int] | None = None) -> Counts:
    r"""FA-2 forward: reads :math:`nd + 2T_rnd`, writes :math:`nd + n`."""
    br, bc, Tr, Tc, peak = flash_setup(2, "forward", n, d, M, variant, blocks)
    return Counts(
        n * d + 2 * Tr * n * d,
        n * d + n,
        4 * n * n * d + 4 * n * n + 5 * n * Tc + n * d * Tc + n * d + 2 * n,
        peak, (("B_r", br), ("B_c", bc)),
    )


def count_flash2_backward(n: int, d: int, M: int, variant: Variant = "fitted",
                        blocks: tuple[int, int] | None = None) -> Counts:
    r"""FA-2 backward: reads :math:`4nd + T_c(3nd+2n)`, writes :math:`n + nd + T_cnd + 2nd`."""
    br, bc, Tr, Tc, peak = flash_setup(2, "backward", n, d, M, variant, blocks)
    return Counts(
        2 * n * d + 2 * n * d + Tc * (3 * n * d + 2 * n),
        n + n * d + Tc * n * d + 2 * n * d,
        2 * n * d + 10 * n * n * d + 4 * n * n,
        peak, (("B_r", br), ("B_c", bc)),
    )


# ---- Algorithm 6 (RECONSTRUCTED) ----------------------------------------------------------
def count_small_cache_backward(n: int, d: int, M: int, block: int | None = None) -> Counts:
    """Algorithm 6 for Q/K/V: D; fused P, dS; dV = PᵀdO, dQ = dS K, dK = dSᵀQ."""
    B = _square_or_given(M, block)
    bn, bd, Tn = min(B, n), min(B, d), ceil_div(n, B)
    fused = Counts(2 * Tn * n * d + n * n + 2 * n * Tn, 2 * n * n, 2 * n * n * d + 3 * n * n,
                   max(bn * bn + 2 * bn * bd, 2 * bn * bn + 2 * bn))
    mm = count_tile_matmul(n, n, d, B)
    return sequence_counts(count_rowsum_product(n, d, B), fused, mm, mm, mm, block_sizes=(("B", B),))


def count_small_cache_dx(n: int, d: int, M: int) -> Counts:
    """Algorithm 6 for dL/dX, the ten steps of paper.md §4.3."""
    B = square_block(M)
    return sequence_counts(
        count_tile_matmul(n, d, d, B), count_tile_matmul(n, d, d, B),   # Q̃, h
        _count_exp_scores(n, d, B), _count_elementwise(n, n, 1, 1, 1, B),  # U, ℓ; f
        count_tile_matmul(n, n, d, B), _count_elementwise(n, d, 2, 0, 1, B),  # O; c
        count_rowsum_product(n, d, B), count_tile_matmul(n, d, n, B),   # r; q
        _count_elementwise(n, n, 2, 1, 2, B), count_tile_matmul(n, n, d, B),  # p; G
        count_tile_matmul(d, n, d, B),                                    # g
        block_sizes=(("B", B),),
    )


# ---- small-cache-fused (ours) -------------------------------------------------------------
def count_small_cache_fused_backward(n: int, d: int, M: int,
                                     blocks: dict[str, int] | None = None) -> Counts:
    r"""small-cache-fused backward (:mod:`attnio.algorithms.small_cache_fused`): D; pass 1;
    3 products, on the stable storage A, g (stored blocks of width :math:`w = c_1`).

    Pass 1 reads :math:`nd(T_n(c_1)+T_n(r_1)) + n^2 + 2nT_n(c_1)` (D and the block scales g
    per tile), writes :math:`n^2` (dS); each product reads :math:`n(nT_d(c_2) + dT_n(r_2))`,
    writes :math:`nd`; dV = PᵀdO also streams one word of g per stored block overlapping its
    key range: :math:`nT_d(c_2)R` with
    :math:`R` = :func:`~attnio.algorithms.small_cache_fused.refinement_pieces`
    ``(n, r₂, c₁)``. ``blocks`` defaults to
    :func:`~attnio.algorithms.small_cache_fused.fused_block_sizes`; tiles that do not fit raise
    :class:`~attnio.exceptions.CacheOverflowError`.

    >>> count_small_cache_fused_backward(4096, 64, 1024).io
    315887616
    """
    from attnio.algorithms.small_cache_fused import (
        fused_block_sizes,
        fused_peaks,
        refinement_pieces,
    )

    b = dict(blocks) if blocks is not None else fused_block_sizes(n, d, M)
    r1, c1, r2, c2 = min(b["r1"], n), min(b["c1"], n), min(b["r2"], n), min(b["c2"], d)
    peak1, peak2 = fused_peaks("backward", n, d, r1, c1, r2, c2)
    if max(peak1, peak2) > M:
        raise CacheOverflowError(
            f"small-cache-fused tiles r1={r1}, c1={c1} ({peak1} words), r2={r2}, c2={c2} "
            f"({peak2} words) exceed M={M}")
    T = ceil_div
    T1, Td, Tr2 = T(n, c1), T(d, c2), T(n, r2)
    R = refinement_pieces(n, r2, c1)
    pass1 = Counts(n * d * (T1 + T(n, r1)) + n * n + 2 * n * T1, n * n,
                   2 * n * n * d + 3 * n * n, peak1)
    product = Counts(n * (n * Td + d * Tr2), n * d, 2 * n * n * d, peak2 - 1)
    scaled = Counts(product.reads + n * Td * R, n * d, 2 * n * n * d + n * n * Td, peak2)
    return sequence_counts(count_rowsum_product(n, d, b["B"]),
                     pass1, scaled, product, product,
                     block_sizes=tuple((k, b[k]) for k in ("B", "r1", "c1", "r2", "c2")))


def count_small_cache_fused_forward(n: int, d: int, M: int,
                                    blocks: dict[str, int] | None = None) -> Counts:
    r"""small-cache-fused forward: pass 1 (the stable storage A, g), pass 2 (O = PV).

    Pass 1 reads :math:`nd(T_n(c_1)+T_n(r_1)) + 2nT_n(c_1)`, writes :math:`n^2 + 2nT_n(c_1)`
    (A; the tile logsumexps, read back for the row's logsumexp, then again and rewritten as
    the scales g); pass 2 reads :math:`n(nT_d(c_2) + dT_n(r_2)) + nT_d(c_2)T_n(c_1)`,
    writes :math:`nd`.

    >>> count_small_cache_fused_forward(4096, 64, 1024).io < count_square_tiling_forward(4096, 64, 1024).io
    True
    """
    from attnio.algorithms.small_cache_fused import fused_block_sizes, fused_peaks

    b = dict(blocks) if blocks is not None else fused_block_sizes(n, d, M, "forward")
    r1, c1, r2, c2 = min(b["r1"], n), min(b["c1"], n), min(b["r2"], n), min(b["c2"], d)
    peak1, peak2 = fused_peaks("forward", n, d, r1, c1, r2, c2)
    if max(peak1, peak2) > M:
        raise CacheOverflowError(
            f"small-cache-fused tiles r1={r1}, c1={c1} ({peak1} words), r2={r2}, c2={c2} "
            f"({peak2} words) exceed M={M}")
    T = ceil_div
    T1, Td = T(n, c1), T(d, c2)
    pass1 = Counts(n * d * (T1 + T(n, r1)) + 2 * n * T1, n * n + 2 * n * T1,
                   2 * n * n * d + 6 * n * n + 9 * n * T1 + 2 * n, peak1)
    pass2 = Counts(n * (n * Td + d * T(n, r2)) + n * Td * T1, n * d,
                   2 * n * n * d + n * n * Td, peak2)
    return sequence_counts(pass1, pass2,
                     block_sizes=tuple((k, b[k]) for k in ("B", "r1", "c1", "r2", "c2")))


# ---- masked runs (the closed forms: attnio.algorithms.masked_counts) ------------------------
def count_masked(algorithm: str, pass_: str, n: int, d: int, M: int, mask: "Mask") -> Counts:
    """Exact counts of a masked run of ``algorithm`` (a name of the algorithm registry).

    The counter is the record's ``masked_counters[pass_]``
    (:mod:`attnio.algorithms.registry`, closed forms in :mod:`attnio.algorithms.masked_counts`).
    Each equals the executed count of the masked algorithm (tests/algorithms/test_counts.py);
    at the mask ``full`` it equals the unmasked closed form.

    >>> from attnio.algorithms.masks import Mask
    >>> full = count_masked("flash2", "backward", 4096, 64, 65536, Mask.full())
    >>> full == count_flash2_backward(4096, 64, 65536)
    True
    >>> causal = count_masked("flash2", "backward", 4096, 64, 65536, Mask.causal())
    >>> round(causal.io / full.io, 3)
    0.552
    """
    from attnio.algorithms.registry import get_algorithm  # the registry imports this module

    return get_algorithm(algorithm).masked_counter(pass_)(n, d, M, mask)
