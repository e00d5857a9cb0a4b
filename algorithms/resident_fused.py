r"""``fused-resident``: small-cache-fused's computation with a resident-block first pass and
stable score storage (ours).

Same computation as ``small-cache-fused`` (:mod:`attnio.algorithms.small_cache_fused`, class
``given-scores`` of :mod:`attnio.bounds.attention`): the forward writes the **stable
storage** — :math:`A = \exp(\tau QK^\top - t)` with the row maxima t of each key block of
width w, the block maxima t (n×⌈n/w⌉) and the logsumexp L — and O; the backward reads A, t,
L (:math:`P_{ij} = A_{ij}\exp(t_{iJ} - L_i)`, every exponent ≤ 0: finite for every finite
logit) and writes dQ, dK, dV. One change against small-cache-fused: the pass that forms an
n×n matrix keeps a block of :math:`b` rows of one n×d operand resident and streams the other
one row at a time (FlashAttention's loop shape), instead of accumulating a square tile by
rank-1 updates. That pass then costs about :math:`n^2d^2/M` words (forward; backward
:math:`2n^2d^2/M`, since it also accumulates dV) instead of :math:`2n^2d/\sqrt M` — fewer
once M is about :math:`d^2/4` or more.

Schedule (mask ``mask``, True = keep; softmax scale ``tau``; every tile is a
:class:`~attnio.algorithms.memory.TwoLevelMemory` tile, so no step may hold more than M
words):

**Forward** (:func:`fused_resident_forward`):

1. For each key block J (:math:`c = \min(b_1, n)` rows, :math:`w = b_1`): load :math:`K_J`;
   for each query row i (with a kept entry in J) load :math:`q_i`, form the maximum
   :math:`t_{iJ}` of :math:`s = \tau q_iK_J^\mathsf{T}`, then each
   :math:`a_{ij} = \exp(s_{ij} - t_{iJ})` (its score recomputed) and store it, one word at a
   time; store :math:`t_{iJ}`. Peak :math:`cd + d + 2`.
2. O = PV, r₂×c₂ output tiles: per output tile the row block's running maximum m and sum ℓ
   (FlashAttention's online rescaling over the key blocks): per key block J load
   :math:`t_{IJ}` (r₂ words), rescale O and ℓ to :math:`m' = \max(m, t_{IJ})`, form
   :math:`f = \exp(t_{IJ} - m')`; per key stream a row of V (c₂ words) and the column of A
   (r₂ words) one word at a time, :math:`O_{i\cdot} \mathrel{+}= a_{ij}f_iv_j`,
   :math:`\ell_i \mathrel{+}= a_{ij}f_i`; :math:`O \leftarrow O/\ell`; the first column
   tile stores :math:`L_I = m + \log\ell`. Peak :math:`r_2c_2 + 3r_2 + c_2 + 1`.

**Backward** (:func:`fused_resident_backward`):

0. D = rowsum(dO∘O), square blocks :math:`B = \lfloor\sqrt{M/4}\rfloor`
   (:func:`~attnio.algorithms.primitives.stream_rowsum_product`).
1. For each key block J (:math:`c = \min(b_1, n)` rows of the backward's own grid): load
   :math:`V_J`, allocate :math:`dV_J` (both resident); for each row i (with a kept entry in
   J) load :math:`A_{iJ}` and :math:`L_i`, and for each stored block overlapping J one word
   of t: :math:`P_{iJ} = A_{iJ}\circ\exp(t - L_i)` (one word at a time); load
   :math:`dO_i`, :math:`dV_J \mathrel{+}= P_{iJ}^\mathsf{T}dO_i`; load :math:`D_i`,
   :math:`P_{iJ} \leftarrow \tau P_{iJ}\circ(dO_iV_J^\mathsf{T} - D_i)` in place (dS)
   and store it; store :math:`dV_J`. Peak :math:`2cd + d + c + 1` (the unstable schedule's
   was :math:`2cd + d + 2c + 2`).
2. Two of small-cache-fused's gradient products
   (:func:`~attnio.algorithms.small_cache_fused.stationary_product`): dQ = dS·K,
   dK = dSᵀQ, r₂×c₂ output tiles. Peak :math:`r_2c_2 + r_2 + c_2`.

Exact counts (:func:`count_fused_resident`, equal to the executed ones, ``==``, in
``tests/algorithms/test_resident_fused.py``; :math:`T_x(b) = \lceil x/b\rceil`,
:math:`T_w = T_n(w)`, :math:`R` = :func:`~attnio.algorithms.small_cache_fused.
refinement_pieces` ``(n, b₁, w)``):

* forward: reads :math:`nd + T_wnd + T_d(c_2)(n^2 + nT_w) + nd\,T_n(r_2)`, writes
  :math:`n^2 + nT_w + nd + n`, FLOPs :math:`4n^2d + 3n^2 + nT_w(d + 9T_d(c_2)) +
  n^2(2d + 3T_d(c_2)) + nd + 2n`;
* backward: reads :math:`2nd + nd + T_n(b_1)\,n(d + 2) + n^2 + nR + 2(n^2T_d(c_2) +
  nd\,T_n(r_2))`, writes :math:`n + nd + n^2 + 2nd`, FLOPs :math:`2nd + 4n^2d + 4n^2 + 2nR +
  4n^2d`.

Against the unstable storage (:math:`A = \exp(QK^\top)`, issue 26) the forward moves
:math:`nT_w(1 + T_d(c_2))` more words and the backward :math:`nR` more (about
:math:`(2 + 2T_d)n^2d/M` and :math:`3n^2d/M`: about 1/d of the pass-1 cost).

So for :math:`M \ge d^2` (:math:`c_2 = d`) about :math:`(n^2d^2/M + n^2) + (n^2 +
n^2d^2/M)` forward (pass 1 + products) and :math:`(2n^2d^2/M + 2n^2) + 2(n^2 + n^2d^2/M)`
backward, against small-cache-fused's :math:`4n^2d/\sqrt M + n^2` and
:math:`8n^2d/\sqrt M + 3n^2`.

A word streamed on its own (pass 1's stores, pass 2's column of A) moves once, as its vector
would; a vector held resident takes room from the blocks (the two-level memory charges words
moved, not steps).

Block sizes (:func:`resident_block_sizes`, exact): forward, the largest fitting :math:`b_1`
(the I/O falls with :math:`T_n(b_1)`) and for the products every :math:`c_2` of a distinct
trip count :math:`T_d(c_2)` with its largest fitting :math:`r_2`; backward, :math:`w` = the
forward's :math:`b_1` (the stored blocks), its own :math:`b_1` by
:func:`~attnio.algorithms.small_cache_fused.aligned_side` (trip count and alignment with
the stored blocks), the products as the forward's. Admissible: :math:`M \ge \max(2d + 2, 6)`
(forward: pass 1 with one key row and a 1×1 product tile), :math:`M \ge \max(3d + 2, 6)`
(backward).

Masks: rows with no kept entry in a key block are skipped in the passes that stream rows,
columns with none in a tile's rows in the products (no I/O, no FLOPs); the key blocks' own
loads and stores are paid for every block. Closed form :func:`count_masked_fused_resident`.

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import forward_matches
>>> mem = TwoLevelMemory.with_random_inputs(40, (9, 4), seed=2)
>>> fused_resident_forward(mem, **resident_block_sizes(9, 4, 40, "forward"), tau=2000.0)
>>> forward_matches(mem.slow, tau=2000.0), mem.peak_words <= 40
(True, True)
>>> count_fused_resident("forward", 9, 4, 40).matches(mem)
True
"""

from __future__ import annotations

from math import isqrt
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from attnio.algorithms.counts import Counts, count_rowsum_product, sequence_counts
from attnio.algorithms.masked_counts import masked_products, scaled_pieces
from attnio.algorithms.masks import tile_classes
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import blocks, ceil_div, stream_rowsum_product
from attnio.algorithms.small_cache_fused import (
    aligned_side,
    refinement_pieces,
    score_scale,
    stationary_product,
    trip_count_sides,
)
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError
from attnio.validation import positive_int

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask, TileClasses

__all__ = ["fused_resident_forward", "fused_resident_backward", "count_fused_resident",
           "count_masked_fused_resident", "resident_block_sizes", "resident_peaks"]

_PASSES = ("forward", "backward")
_SIDES = {"forward": ("B", "b1", "r2", "c2"), "backward": ("B", "b1", "r2", "c2", "w")}


def _check_pass(pass_: str) -> str:
    if pass_ not in _PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    return pass_


def resident_peaks(pass_: str, n: int, d: int, blocks_: Mapping[str, int]) -> dict[str, int]:
    """The peak resident words of each phase at these blocks (``"D"`` backward only).

    >>> resident_peaks("backward", 4096, 64, {"B": 32, "b1": 31, "r2": 62, "c2": 64, "w": 62})
    {'D': 2080, 'pass 1': 4064, 'products': 4094}
    """
    c, r2, c2 = min(blocks_["b1"], n), min(blocks_["r2"], n), min(blocks_["c2"], d)
    if _check_pass(pass_) == "forward":
        return {"pass 1": c * d + d + 2, "products": r2 * c2 + 3 * r2 + c2 + 1}
    return {"D": count_rowsum_product(n, d, blocks_["B"]).peak_fast_words,
            "pass 1": 2 * c * d + d + c + 1, "products": r2 * c2 + r2 + c2}


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest b in [lo, hi] with fits(b), given fits(lo) and fits decreasing in b."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def _admissible(pass_: str, d: int) -> int:
    return max(2 * d + 2, 6) if pass_ == "forward" else max(3 * d + 2, 6)


def resident_block_sizes(n: int, d: int, M: int, pass_: str = "backward") -> dict[str, int]:
    """Blocks of least I/O under M (module docstring): forward ``{"B", "b1", "r2", "c2"}``,
    backward also ``"w"`` (the forward's ``b1``: the width of the stored blocks); ``B`` is
    the backward's D prologue block.

    Raises
    ------
    CacheTooSmallError
        If M < max(2d + 2, 6) (forward) or M < max(3d + 2, 6) (backward): pass 1 does not
        fit one key row, or the product pass a 1×1 tile (with the forward's, whose key block
        the backward's stored maxima follow).

    >>> resident_block_sizes(4096, 64, 4096)
    {'B': 32, 'b1': 31, 'r2': 62, 'c2': 64, 'w': 62}
    """
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    need = _admissible(_check_pass(pass_), d)
    if M < need:
        raise CacheTooSmallError(f"M={M} is too small for fused-resident {pass_}: it needs "
                                 f"{need} words at d={d}")
    B = isqrt(M // 4)
    w = _largest(1, n, lambda b: b * d + d + 2 <= M)  # the forward's key block
    # the product tile's words beyond r2·c2: forward m, ℓ, f (3 per row) + a word of A
    extra, word = (3, 1) if pass_ == "forward" else (1, 0)
    best: tuple[int, int, int, int] | None = None
    for c in trip_count_sides(d, M):
        r = min(n, (M - c - word) // (c + extra))
        if r < 1:
            break
        Td = ceil_div(d, c)
        io = n * (n * Td + d * ceil_div(n, r)) + (n * Td * ceil_div(n, w)
                                                  if pass_ == "forward" else 0)
        key = (io, abs(r - c), r, c)
        best = key if best is None or key < best else best
    assert best is not None  # M >= 6 fits a 1x1 product tile (forward: r + 4r + 1)
    if pass_ == "forward":
        return {"B": B, "b1": w, "r2": best[2], "c2": best[3]}
    b_max = _largest(1, n, lambda b: 2 * b * d + d + b + 1 <= M)
    b1 = aligned_side(n, w, b_max, per_trip=n * (d + 2), per_piece=n)
    return {"B": B, "b1": b1, "r2": best[2], "c2": best[3], "w": w}


def _count(pass_: str, n: int, d: int, b: Mapping[str, int]) -> Counts:
    T = ceil_div
    c, r2, c2 = min(b["b1"], n), min(b["r2"], n), min(b["c2"], d)
    T1, Tr, Td = T(n, c), T(n, r2), T(d, c2)
    peak = max(resident_peaks(pass_, n, d, b).values())
    sizes = tuple((k, b[k]) for k in _SIDES[pass_])
    if pass_ == "forward":
        pass1 = Counts(n * d + T1 * n * d, n * n + n * T1, 4 * n * n * d + 3 * n * n, 0)
        pass2 = Counts(Td * (n * n + n * T1) + n * d * Tr, n * d + n,
                       n * T1 * (d + 9 * Td) + n * n * (2 * d + 3 * Td) + n * d + 2 * n, 0)
        total = pass1.then(pass2)
        return Counts(total.reads, total.writes, total.flops, peak, sizes)
    R = refinement_pieces(n, c, b["w"])
    D = count_rowsum_product(n, d, b["B"])
    pass1 = Counts(n * d + T1 * n * (d + 2) + n * n + n * R, n * d + n * n,
                   4 * n * n * d + 4 * n * n + 2 * n * R, 0)
    products = Counts(2 * n * (n * Td + d * Tr), 2 * n * d, 4 * n * n * d, 0)
    total = sequence_counts(D, pass1, products, block_sizes=sizes)
    return Counts(total.reads, total.writes, total.flops, peak, sizes)


def _sides(pass_: str, n: int, d: int, M: int, blocks_: Mapping[str, int] | None
           ) -> dict[str, int]:
    b = resident_block_sizes(n, d, M, pass_) if blocks_ is None else dict(blocks_)
    return {k: positive_int(k, b[k]) for k in _SIDES[_check_pass(pass_)]}


def count_fused_resident(pass_: str, n: int, d: int, M: int,
                         blocks_: Mapping[str, int] | None = None) -> Counts:
    """Exact counts of ``fused-resident`` (module docstring); ``blocks_`` defaults to
    :func:`resident_block_sizes`; blocks whose peak exceeds M raise
    :class:`~attnio.exceptions.CacheOverflowError`.

    >>> count_fused_resident("backward", 4096, 64, 4096).io
    140312576
    """
    sides = _sides(pass_, n, d, M, blocks_)
    counted = _count(pass_, n, d, sides)
    if counted.peak_fast_words > M:
        raise CacheOverflowError(f"fused-resident {pass_} blocks {sides} need "
                                 f"{counted.peak_fast_words} words > M={M}")
    return counted


def count_masked_fused_resident(pass_: str, n: int, d: int, M: int, mask: "Mask") -> Counts:
    r"""``fused-resident`` with a mask (module docstring), exactly: sums over the non-empty
    tiles of :func:`~attnio.algorithms.masks.tile_classes` grids — (1, b₁): a streamed row of
    a key block; (r₂, w): a stored block's maxima in an output row block; (r₂, 1) and
    (1, r₂): a streamed column of a product — and, for the maxima the backward reads,
    :func:`~attnio.algorithms.masked_counts.scaled_pieces`. At ``Mask.full()`` it equals
    :func:`count_fused_resident`.

    >>> from attnio.algorithms.masks import Mask
    >>> count_masked_fused_resident("backward", 64, 8, 256, Mask.full()) == count_fused_resident("backward", 64, 8, 256)
    True
    """
    count_fused_resident(pass_, n, d, M)  # raises like the unmasked count
    b = _sides(pass_, n, d, M, None)
    c, r2, c2 = min(b["b1"], n), min(b["r2"], n), min(b["c2"], d)
    Td = ceil_div(d, c2)
    sizes = tuple((k, b[k]) for k in _SIDES[pass_])
    rows = tile_classes(mask, n, 1, c)     # (row i, key block J) with a kept entry

    def peak(g: "TileClasses", fn: Callable[[int, int], int], floor: int) -> int:
        return max([floor] + [fn(r, cc) for r, cc in g.shapes])

    if pass_ == "forward":
        stored = tile_classes(mask, n, r2, c)   # (row block, stored block) pairs
        cols = tile_classes(mask, n, r2, 1)     # (row block, key) pairs
        pass1 = Counts(n * d + rows.total(lambda r, cc: d), rows.total(lambda r, cc: cc + 1),
                       rows.total(lambda r, cc: 4 * cc * d + 3 * cc),
                       peak(rows, lambda r, cc: cc * d + d + 2, c * d))
        pass2 = Counts(Td * stored.total(lambda r, cc: r) + cols.total(lambda r, cc: r * Td + d),
                       n * d + n,
                       stored.total(lambda r, cc: r * d + 9 * r * Td)
                       + cols.total(lambda r, cc: 2 * r * d + 3 * r * Td) + n * d + 2 * n,
                       peak(cols, lambda r, cc: r * c2 + 3 * r + c2 + 1, r2 * c2 + 2 * r2))
        total = pass1.then(pass2)
        return Counts(total.reads, total.writes, total.flops, total.peak_fast_words, sizes)
    pieces = scaled_pieces(mask, n, c, b["w"])
    pass1 = Counts(n * d + rows.total(lambda r, cc: d + 2 + cc) + pieces,
                   n * d + rows.total(lambda r, cc: cc),
                   rows.total(lambda r, cc: 4 * cc * d + 4 * cc) + 2 * pieces,
                   peak(rows, lambda r, cc: 2 * cc * d + d + cc + 1, 2 * c * d))
    d_q, d_k = masked_products(mask, n, d, r2, c2)
    return sequence_counts(count_rowsum_product(n, d, b["B"]), pass1, d_q, d_k,
                           block_sizes=sizes)


# ---- the executors ----------------------------------------------------------------------------
def _zero_masked(values: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    return values if keep is None else np.where(keep, values, 0.0)


def _scores_row(q: np.ndarray, k: np.ndarray, keep: np.ndarray | None,
                tau: float) -> np.ndarray:
    s = tau * (q @ k.T)
    return s if keep is None else np.where(keep, s, -np.inf)


def _rescale(o: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray:
    r"""o·exp(m − max(m, t)) row-wise (0 where m = −∞: nothing accumulated yet)."""
    new = np.maximum(m, t)
    base = np.where(np.isfinite(new), new, 0.0)
    return o * np.exp(m - base).reshape((-1,) + (1,) * (o.ndim - 1))


def fused_resident_forward(mem: TwoLevelMemory, *, B: int, b1: int, r2: int, c2: int,
                           mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """Forward: slow Q, K, V → the stable storage A, t, L and O (module docstring; ``B`` is
    unused: the forward has no prologue)."""
    n, d = mem.slow["Q"].shape
    mem.new_slow("A", (n, n))
    mem.new_slow("t", (n, ceil_div(n, b1)))
    mem.new_slow("L", (n,))
    mem.new_slow("O", (n, d))
    for J, (j0, c) in enumerate(blocks(n, b1)):
        keys = slice(j0, j0 + c)
        mem.load("K_J", "K", (keys, slice(None)))
        for i in range(n):
            keep = None if mask is None else mask[i:i + 1, keys]
            if keep is not None and not keep.any():
                continue
            row = slice(i, i + 1)
            mem.load("q_i", "Q", (row, slice(None)))
            mem.allocate("t_iJ", (1, 1))
            mem.compute("t_iJ", ("q_i", "K_J"),
                        lambda q, k, kp=keep: _scores_row(q, k, kp, tau).max(axis=1,
                                                                             keepdims=True),
                        flops=2 * c * d + c)
            for jj in range(c):  # a = exp(s − t) one word at a time (the score recomputed,
                # by the same arithmetic as the maximum's: the row's largest a is exactly 1)
                mem.allocate("a", (1, 1))
                mem.compute("a", ("q_i", "K_J", "t_iJ"),
                            lambda q, k, t, jj=jj, kp=keep: np.exp(
                                _scores_row(q, k, kp, tau)[:, jj:jj + 1] - t),
                            flops=2 * d + 2)
                mem.store("a", "A", (row, slice(j0 + jj, j0 + jj + 1)))
                mem.free("a")
            mem.store("t_iJ", "t", (row, slice(J, J + 1)))
            mem.free("q_i", "t_iJ")
        mem.free("K_J")
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        for l0, c in blocks(d, c2):
            cols = slice(l0, l0 + c)
            mem.allocate("O_IL", (r, c))
            mem.allocate("m_I", (r,), fill=-np.inf)
            mem.allocate("l_I", (r,))
            for J, (j0, w) in enumerate(blocks(n, b1)):
                keys = slice(j0, j0 + w)
                keep = None if mask is None else mask[rows, keys]
                if keep is not None and not keep.any():
                    continue
                live = np.ones(r, dtype=bool) if keep is None else keep.any(axis=1)
                mem.load("f_IJ", "t", (rows, slice(J, J + 1)))
                # rows with no kept entry in J: their t may be unwritten, take it as −∞
                mem.compute("f_IJ", ("f_IJ",),
                            lambda t, lv=live: np.where(lv[:, None], t, -np.inf), flops=0)
                mem.compute("O_IL", ("O_IL", "m_I", "f_IJ"),
                            lambda o, m, t: _rescale(o, m, t[:, 0]), flops=r * c + 3 * r)
                mem.compute("l_I", ("l_I", "m_I", "f_IJ"),
                            lambda lv, m, t: _rescale(lv, m, t[:, 0]), flops=3 * r)
                mem.compute("m_I", ("m_I", "f_IJ"), lambda m, t: np.maximum(m, t[:, 0]),
                            flops=r)
                mem.compute("f_IJ", ("f_IJ", "m_I"),
                            lambda t, m: score_scale(t[:, 0], m)[:, None], flops=2 * r)
                for k in (range(w) if keep is None else np.flatnonzero(keep.any(axis=0))):
                    one = slice(j0 + int(k), j0 + int(k) + 1)
                    mem.load("v_j", "V", (one, cols))
                    for s in range(r):  # the column of A one word at a time
                        entry_kept = keep is None or bool(keep[s, int(k)])  # masked: may be unset
                        mem.load("a_sj", "A", (slice(i0 + s, i0 + s + 1), one))
                        mem.compute("O_IL", ("O_IL", "a_sj", "f_IJ", "v_j"),
                                    lambda o, a, f, v, s=s, lv=entry_kept: _add_row(
                                        o, s, (a[0, 0] * f[s, 0] if lv else 0.0) * v[0]),
                                    flops=2 * c + 1)
                        mem.compute("l_I", ("l_I", "a_sj", "f_IJ"),
                                    lambda ell, a, f, s=s, lv=entry_kept: _add_row(
                                        ell, s, a[0, 0] * f[s, 0] if lv else 0.0),
                                    flops=2)
                        mem.free("a_sj")
                    mem.free("v_j")
                mem.free("f_IJ")
            mem.compute("O_IL", ("O_IL", "l_I"), _divide_rows, flops=r * c)
            mem.store("O_IL", "O", (rows, cols))
            if l0 == 0:  # L_I once per row block
                mem.compute("l_I", ("l_I", "m_I"), _logsumexp, flops=2 * r)
                mem.store("l_I", "L", rows)
            mem.free("O_IL", "m_I", "l_I")


def _add_row(m: np.ndarray, row: int, value: np.ndarray | float) -> np.ndarray:
    out = m.copy()
    out[row] += value
    return out


def _divide_rows(o: np.ndarray, ell: np.ndarray) -> np.ndarray:
    out = np.zeros_like(o)
    np.divide(o, ell[:, None], out=out, where=ell[:, None] > 0)
    return out


def _logsumexp(ell: np.ndarray, m: np.ndarray) -> np.ndarray:
    live = ell > 0
    return np.where(live, m + np.log(np.where(live, ell, 1.0)), -np.inf)


def fused_resident_backward(mem: TwoLevelMemory, *, B: int, b1: int, r2: int, c2: int, w: int,
                            mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """Backward: slow Q, K, V, O, dO and the stable storage A, t, L (stored blocks of width
    ``w``) → dQ, dK, dV (and D, dS; module docstring)."""
    n, d = mem.slow["dO"].shape
    w = min(w, n)
    stream_rowsum_product(mem, "dO", "O", "D", block=B)
    mem.new_slow("dS", (n, n))
    mem.new_slow("dV", (n, d))
    for j0, c in blocks(n, b1):
        keys = slice(j0, j0 + c)
        pieces = [(J, slice(max(j0, J * w) - j0, min(j0 + c, (J + 1) * w) - j0))
                  for J in range(j0 // w, (j0 + c - 1) // w + 1)]
        mem.load("V_J", "V", (keys, slice(None)))
        mem.allocate("dV_J", (c, d))
        for i in range(n):
            keep = None if mask is None else mask[i:i + 1, keys]
            if keep is not None and not keep.any():
                continue
            row = slice(i, i + 1)
            mem.load("P_iJ", "A", (row, keys))
            mem.load("L_i", "L", row)
            for J, part in pieces:  # P = A∘exp(t − L), one stored maximum at a time
                mem.load("t_iJ", "t", (row, slice(J, J + 1)))
                mem.compute("P_iJ", ("P_iJ", "t_iJ", "L_i"),
                            lambda a, t, L, part=part: _scale_part(a, part, t[0], L),
                            flops=part.stop - part.start + 2)
                mem.free("t_iJ")
            mem.free("L_i")
            mem.compute("P_iJ", ("P_iJ",), lambda p, kp=keep: _zero_masked(p, kp), flops=0)
            mem.load("dO_i", "dO", (row, slice(None)))
            mem.compute("dV_J", ("dV_J", "P_iJ", "dO_i"), lambda dv, p, do: dv + p.T @ do,
                        flops=2 * c * d)
            mem.load("D_i", "D", row)
            mem.compute("P_iJ", ("P_iJ", "dO_i", "V_J", "D_i"),
                        lambda p, do, v, D: tau * (p * (do @ v.T - D[0])),
                        flops=2 * c * d + 3 * c)
            mem.store("P_iJ", "dS", (row, keys))
            mem.free("dO_i", "D_i", "P_iJ")
        mem.store("dV_J", "dV", (keys, slice(None)))
        mem.free("V_J", "dV_J")
    support = mask
    stationary_product(mem, "dS", "K", "dQ", r2, c2, trans_left=False, mask=support)
    stationary_product(mem, "dS", "Q", "dK", r2, c2, trans_left=True, mask=support)


def _scale_part(a: np.ndarray, part: slice, t: np.ndarray, L: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[0, part] = a[0, part] * score_scale(t, L)[0]
    return out
