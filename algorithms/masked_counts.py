r"""Closed-form counts of the masked runs: tiles with no kept entry cost nothing.

Every masked count is a sum over the non-empty tiles of the algorithm's tile grid of the
per-tile cost of the unmasked algorithm (:mod:`attnio.algorithms.counts`, which depends only on
the tile's shape r x c), plus the per-block costs the unmasked algorithm pays regardless of the
mask (outer loads, row vectors, the D prologue). The non-empty tiles come by shape from
:func:`attnio.algorithms.masks.tile_classes`: closed forms for full / causal / window /
block-sparse masks, a walk of the tile grid for arbitrary ones. Sums are Python ints, equal to
the executed counts of the masked algorithms (``==``, tests/algorithms/test_counts.py); at the
mask ``full`` each equals the unmasked closed form. Which function counts which algorithm is
stated once, in :mod:`attnio.algorithms.registry` (``masked_counters``);
:func:`attnio.algorithms.counts.count_masked` looks it up there.

>>> from attnio.algorithms.masks import Mask
>>> from attnio.algorithms.counts import count_standard_forward
>>> count_masked_standard_forward(64, 8, 256, Mask.full()) == count_standard_forward(64, 8, 256)
True
"""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING, Callable

from attnio.algorithms.counts import (
    Counts,
    Variant,
    count_rowsum_product,
    count_small_cache_fused_backward,
    count_small_cache_fused_forward,
    flash_setup,
    flash_tile_sequence,
    sequence_counts,
    square_block,
)
from attnio.algorithms.primitives import ceil_div
from attnio.exceptions import InvalidInputError

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask, TileClasses

__all__ = ["count_masked_standard_forward", "count_masked_standard_backward",
           "count_masked_square_tiling_forward", "count_masked_small_cache_backward",
           "count_masked_small_cache_stable_forward",
           "count_masked_flash", "flash_tile_counts", "count_masked_small_cache_fused",
           "scaled_pieces", "masked_products"]


def _grid(mask: "Mask", n: int, br: int, bc: int) -> "TileClasses":
    from attnio.algorithms.masks import tile_classes  # masks imports reference only

    return tile_classes(mask, n, br, bc)


def _max_over(g: "TileClasses", fn: Callable[[int, int], int], floor: int = 0) -> int:
    return max([floor] + [fn(r, c) for r, c in g.shapes])


def _masked_out_product(g: "TileClasses", d: int, B: int) -> Counts:
    """TileMul of an n x d by d x n product computing only the non-empty output tiles."""
    bd = min(B, d)
    return Counts(d * g.total(lambda r, c: r + c), g.total(lambda r, c: r * c),
                  2 * d * g.total(lambda r, c: r * c),
                  _max_over(g, lambda r, c: r * c + bd * (r + c)))


def _masked_a_product(g: "TileClasses", n: int, d: int, B: int, transposed: bool) -> Counts:
    """TileMul op(A) @ X for an n x n A (zero outside its non-empty tiles) and an n x d X.

    Untransposed (P V, dS K): output row block r, inner block c. Transposed (Pᵀ dO, dSᵀ Q):
    output block c, inner block r. Zero tiles of A are neither loaded nor multiplied.
    """
    bn, bd, Td = min(B, n), min(B, d), ceil_div(d, B)
    rc = g.total(lambda r, c: r * c)
    inner = g.total(lambda r, c: r) if transposed else g.total(lambda r, c: c)
    peak = (lambda r, c: c * bd + r * c + r * bd) if transposed else \
        (lambda r, c: r * bd + r * c + c * bd)
    return Counts(Td * rc + d * inner, n * d, 2 * d * rc, _max_over(g, peak, bn * bd))


def count_masked_standard_forward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    softmax = Counts(2 * g.total(lambda r, c: r * c), g.total(lambda r, c: r * c),
                     g.total(lambda r, c: 7 * r * c + 4 * r),
                     _max_over(g, lambda r, c: r * c + 3 * r, 2 * min(B, n)))
    return sequence_counts(_masked_out_product(g, d, B), softmax,
                     _masked_a_product(g, n, d, B, transposed=False), block_sizes=(("B", B),))


def count_masked_standard_backward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    ds = Counts(n + 2 * g.total(lambda r, c: r * c), g.total(lambda r, c: r * c),
                2 * g.total(lambda r, c: r * c),
                _max_over(g, lambda r, c: r + 2 * r * c, min(B, n)))
    return sequence_counts(
        _masked_a_product(g, n, d, B, transposed=True), _masked_out_product(g, d, B),
        count_rowsum_product(n, d, B), ds,
        _masked_a_product(g, n, d, B, transposed=False),
        _masked_a_product(g, n, d, B, transposed=True), block_sizes=(("B", B),),
    )


def _masked_exp_scores(g: "TileClasses", n: int, d: int, B: int) -> Counts:
    bd = min(B, d)
    return Counts(d * g.total(lambda r, c: r + c), g.total(lambda r, c: r * c) + n,
                  g.total(lambda r, c: 2 * r * c * d + 2 * r * c),
                  _max_over(g, lambda r, c: r + r * c + bd * (r + c), min(B, n)))


def count_masked_square_tiling_forward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    bn, bd = min(B, n), min(B, d)
    av = _masked_a_product(g, n, d, B, transposed=False)
    phase2 = Counts(n + av.reads, n * d, av.flops + n * d,
                    _max_over(g, lambda r, c: r + r * bd + r * c + c * bd, bn + bn * bd))
    return sequence_counts(_masked_exp_scores(g, n, d, B), phase2, block_sizes=(("B", B),))


def count_masked_small_cache_stable_forward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    """``small-cache-stable`` forward, masked: per non-empty r×c tile the scores (reads
    d(r+c)), the tile maxima and the rescaling sweep (reads rc + r, writes 2rc + r); ℓ per row
    block (n writes); Saha–Ye's masked phase 2."""
    B = square_block(M)
    g = _grid(mask, n, B, B)
    bn, bd = min(B, n), min(B, d)
    phase1 = Counts(g.total(lambda r, c: d * (r + c) + r * c + r),
                    g.total(lambda r, c: 2 * r * c + r) + n,
                    g.total(lambda r, c: 2 * r * c * d + 5 * r * c + 2 * r),
                    _max_over(g, lambda r, c: max(r + r * c + bd * (r + c), 3 * r + r * c),
                              2 * bn))
    av = _masked_a_product(g, n, d, B, transposed=False)
    phase2 = Counts(n + av.reads, n * d, av.flops + n * d,
                    _max_over(g, lambda r, c: r + r * bd + r * c + c * bd, bn + bn * bd))
    return sequence_counts(phase1, phase2, block_sizes=(("B", B),))


def count_masked_small_cache_backward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    bd = min(B, d)
    fused = Counts(g.total(lambda r, c: d * (r + c) + r * c + 2 * r),
                   2 * g.total(lambda r, c: r * c),
                   g.total(lambda r, c: 2 * r * c * d + 3 * r * c),
                   _max_over(g, lambda r, c: max(r * c + bd * (r + c), 2 * r * c + 2 * r)))
    return sequence_counts(
        count_rowsum_product(n, d, B), fused,
        _masked_a_product(g, n, d, B, transposed=True),
        _masked_a_product(g, n, d, B, transposed=False),
        _masked_a_product(g, n, d, B, transposed=True), block_sizes=(("B", B),),
    )


def _tile_set(version: int, pass_: str, d: int, r: int, c: int) -> int:
    """Words resident during one inner step with an r-row, c-column tile."""
    return sum(w for _, w in flash_tile_sequence(version, pass_, max(r, c), d, r, c))


def count_masked_flash(version: int, pass_: str, n: int, d: int, M: int, variant: Variant,
                       mask: "Mask") -> Counts:
    """FlashAttention-``version``'s ``pass_`` with a mask, one head: :func:`flash_tile_counts`
    over the non-empty tiles of its (B_r, B_c) grid."""
    br, bc, Tr, Tc, _ = flash_setup(version, pass_, n, d, M, variant)
    return flash_tile_counts(version, pass_, n, n, d, br, bc, _grid(mask, n, br, bc))


def flash_tile_counts(version: int, pass_: str, nq: int, n: int, d: int, br: int, bc: int,
                      g: "TileClasses") -> Counts:
    """Counts of FlashAttention-``version``'s ``pass_`` over the non-empty tiles ``g`` of its
    (B_r, B_c) grid, with n_q query rows against n keys (n_q = n: one head; n_q = g·n: the
    stacked query heads of a K/V group, FA-2 only, :mod:`attnio.algorithms.heads`)."""
    if version == 1 and nq != n:
        raise InvalidInputError("FlashAttention-1 runs one head: n_q must equal n")
    r0, c0 = min(br, nq), min(bc, n)
    T = g.total
    step = lambda r, c: _tile_set(version, pass_, d, r, c)  # noqa: E731
    if (version, pass_) == (1, "forward"):
        counts = (2 * n * d + T(lambda r, c: 2 * r * d + 2 * r),
                  n * d + 2 * n + T(lambda r, c: r * d + 2 * r),
                  T(lambda r, c: 4 * r * c * d + 5 * r * c + 13 * r + 2 * r * d),
                  _max_over(g, step, 2 * c0 * d))
    elif (version, pass_) == (1, "backward"):
        counts = (2 * n * d + T(lambda r, c: 4 * r * d + 2 * r),
                  3 * n * d + T(lambda r, c: r * d) + 2 * n * d,
                  T(lambda r, c: 10 * r * c * d + 5 * r * c + 2 * r * d),
                  _max_over(g, step, 4 * c0 * d))
    elif (version, pass_) == (2, "forward"):
        counts = (nq * d + T(lambda r, c: 2 * c * d), nq * d + nq,
                  T(lambda r, c: 4 * r * c * d + 4 * r * c + 5 * r + r * d) + nq * d + 2 * nq,
                  _max_over(g, step, 2 * r0 * d + 3 * r0))
    else:
        counts = (2 * nq * d + 2 * n * d + T(lambda r, c: 3 * r * d + 2 * r),
                  nq + nq * d + T(lambda r, c: r * d) + 2 * n * d,
                  2 * nq * d + T(lambda r, c: 10 * r * c * d + 4 * r * c),
                  _max_over(g, step, max(4 * c0 * d, 2 * r0 * d + r0)))
    return Counts(*counts, (("B_r", br), ("B_c", bc)))


def _masked_fused_sides(n: int, d: int, M: int, pass_: str) -> tuple[int, int, int, int, int]:
    """(B, r1, c1, r2, c2) of small-cache-fused, clipped to n and d; raises like the
    unmasked closed form when the tiles do not fit."""
    from attnio.algorithms.small_cache_fused import fused_block_sizes

    if pass_ == "forward":
        count_small_cache_fused_forward(n, d, M)
    else:
        count_small_cache_fused_backward(n, d, M)
    b = fused_block_sizes(n, d, M, pass_)
    return b["B"], min(b["r1"], n), min(b["c1"], n), min(b["r2"], n), min(b["c2"], d)


def scaled_pieces(mask: "Mask", n: int, a: int, w: int) -> int:
    r""":math:`\sum_K \text{pieces}(K)\cdot\text{rows}(K)` over the key blocks K of width a:
    the words of stored block maxima (width w) that a product streaming the stable A by rows
    reads — one per stored block overlapping K, for each row with a kept entry in K
    (:func:`~attnio.algorithms.small_cache_fused.block_pieces`,
    :func:`~attnio.algorithms.masks.column_block_rows`).

    >>> from attnio.algorithms.masks import Mask
    >>> scaled_pieces(Mask.full(), 10, 4, 3) == 10 * 6, scaled_pieces(Mask.causal(), 10, 4, 3)
    (True, 36)
    """
    from attnio.algorithms.masks import column_block_rows
    from attnio.algorithms.small_cache_fused import block_pieces

    a, w = min(a, n), min(w, n)
    if ceil_div(n, a) > _ARRAY_BLOCKS and mask.kind in ("full", "causal", "window"):
        return _scaled_pieces_periodic(mask, n, a, w)
    return int(sum(int(p) * int(r) for p, r in zip(block_pieces(n, a, w),
                                                    column_block_rows(mask, n, a))))


_ARRAY_BLOCKS = 1 << 16   # beyond: :func:`scaled_pieces` sums by periods, not per block


def _scaled_pieces_periodic(mask: "Mask", n: int, a: int, w: int) -> int:
    r""":func:`scaled_pieces` for a full, causal or window mask in O(w) steps whatever n.

    Block k (start ka) of a full-width block overlaps :math:`p(k) = \lfloor (ka+a-1)/w\rfloor
    - \lfloor ka/w\rfloor + 1` stored blocks, periodic in k with period
    :math:`P = w/\gcd(a, w)`; its rows are n (full), n − ka (causal) or, for a window W,
    a − 1 + W while ka + a − 1 + W ≤ n and n − ka after: a linear function of k on at most
    two ranges. Σ p(k)(α + βk) over a range is summed by whole periods
    (:func:`_periodic_linear_sum`); the last, partial block is added on its own.

    >>> from attnio.algorithms.masks import Mask
    >>> all(_scaled_pieces_periodic(m, n, a, w) == scaled_pieces(m, n, a, w)
    ...     for m in (Mask.full(), Mask.causal(), Mask.window(5))
    ...     for n, a, w in ((97, 4, 6), (100, 10, 4), (64, 7, 7), (1000, 3, 8)))
    True
    """
    whole = n // a            # full-width blocks 0 … whole − 1
    period = w // gcd(a, w)
    pieces = [((k * a + a - 1) // w - (k * a) // w + 1) for k in range(period)]
    total = 0
    if mask.kind == "full":
        total += _periodic_linear_sum(pieces, 0, whole, n, 0)
    elif mask.kind == "causal":
        total += _periodic_linear_sum(pieces, 0, whole, n, -a)
    else:
        W = mask.window_within(n)
        # rows = a − 1 + W for k·a ≤ n − a + 1 − W, else n − ka
        split = min(whole, max(0, (n - a + 1 - W) // a + 1)) if n - a + 1 - W >= 0 else 0
        total += _periodic_linear_sum(pieces, 0, split, min(n, a - 1 + W), 0)
        total += _periodic_linear_sum(pieces, split, whole, n, -a)
    if whole * a < n:         # the last, partial block [whole·a, n)
        start = whole * a
        rows = {"full": n, "causal": n - start}.get(
            mask.kind, min(n, n - 1 + int(mask.window_size or 0)) - start)
        total += ((n - 1) // w - start // w + 1) * rows
    return total


def _periodic_linear_sum(f: list[int], lo: int, hi: int, alpha: int, beta: int) -> int:
    r""":math:`\sum_{k=lo}^{hi-1} f(k \bmod P)\,(\alpha + \beta k)` exactly, P = len(f), in
    O(P) steps: whole periods by the sums :math:`\sum f(j)` and :math:`\sum j f(j)`.

    >>> f = [3, 1, 2]
    >>> _periodic_linear_sum(f, 2, 20, 5, -1) == sum(f[k % 3] * (5 - k) for k in range(2, 20))
    True
    """
    P = len(f)
    if hi <= lo:
        return 0
    total = 0
    # the head up to a multiple of P, then whole periods q0 … q1 − 1, then the tail
    head_end = min(hi, -(-lo // P) * P)
    total += sum(f[k % P] * (alpha + beta * k) for k in range(lo, head_end))
    q0, q1 = head_end // P, hi // P
    if q1 > q0:
        F0 = sum(f)
        F1 = sum(j * fj for j, fj in enumerate(f))
        count = q1 - q0
        sum_q = (q0 + q1 - 1) * count // 2
        total += count * (alpha * F0 + beta * F1) + beta * P * F0 * sum_q
    total += sum(f[k % P] * (alpha + beta * k) for k in range(max(head_end, q1 * P), hi))
    return total


def count_masked_small_cache_fused(pass_: str, n: int, d: int, M: int, mask: "Mask") -> Counts:
    r"""small-cache-fused with a mask: pass-1 tiles with no kept entry skipped, and in each
    rank-1 streamed product the columns with no kept entry in the output tile's rows skipped.

    The streamed columns are the non-empty tiles of the (r₂, 1) grid (untransposed operand:
    ``dS K``, ``P V``) or of the (1, r₂) grid (transposed: ``Pᵀ dO``, ``dSᵀ Q``), counted by
    :func:`~attnio.algorithms.masks.tile_classes` like every masked count. Each streamed
    column costs its r words of the n×n operand and c₂ words of the n×d one per output
    column block: Σ (r·T_d(c₂) + d) over the non-empty (r, 1) tiles. The stable storage adds:
    forward, per computed pass-1 tile r words of block maxima written, read back and
    rewritten as scales g, and in pass 2 r words of g per non-empty (r₂, c₁) tile and output
    column block; backward, r words of g per pass-1 tile and, in dV, :func:`scaled_pieces`
    words of g per output column block.
    """
    B, r1, c1, r2, c2 = _masked_fused_sides(n, d, M, pass_)
    Td = ceil_div(d, c2)
    g1 = _grid(mask, n, r1, c1)
    untransposed = _grid(mask, n, r2, 1)   # tiles (r, 1): output rows r, one streamed column
    transposed = _grid(mask, n, 1, r2)     # tiles (1, c): one streamed row, output rows c
    floor = r2 * c2  # the first output tile's accumulator is allocated whatever the mask
    sides = (("B", B), ("r1", r1), ("c1", c1), ("r2", r2), ("c2", c2))
    if pass_ == "forward":
        gt = _grid(mask, n, r2, c1)        # (row block, stored block) pairs with a kept entry
        pass1 = Counts(g1.total(lambda r, c: d * (r + c) + 2 * r),
                       g1.total(lambda r, c: r * c + 2 * r),
                       g1.total(lambda r, c: 2 * r * c * d + 6 * r * c + 9 * r) + 2 * n,
                       _max_over(g1, lambda r, c: max(r * c + r + c, 3 * r), 2 * r1))
        pass2 = Counts(Td * gt.total(lambda r, c: r)
                       + untransposed.total(lambda r, c: r * Td + d), n * d,
                       untransposed.total(lambda r, c: 2 * r * d + r * Td),
                       _max_over(untransposed, lambda r, c: r * c2 + r + c2 + 1, floor))
        return sequence_counts(pass1, pass2, block_sizes=sides)
    pieces = scaled_pieces(mask, n, r2, c1)
    pass1 = Counts(g1.total(lambda r, c: d * (r + c) + r * c + 2 * r),
                   g1.total(lambda r, c: r * c),
                   g1.total(lambda r, c: 2 * r * c * d + 3 * r * c),
                   _max_over(g1, lambda r, c: r * c + r + c))
    d_v = Counts(transposed.total(lambda r, c: c * Td + d) + Td * pieces, n * d,
                 transposed.total(lambda r, c: 2 * c * d + c * Td),
                 _max_over(transposed, lambda r, c: c * c2 + c + c2 + 1, floor))
    d_q, d_k = masked_products(mask, n, d, r2, c2)
    return sequence_counts(count_rowsum_product(n, d, B), pass1, d_v, d_q, d_k, block_sizes=sides)


def masked_products(mask: "Mask", n: int, d: int, r2: int, c2: int) -> tuple[Counts, Counts]:
    """(dQ = dS·K, dK = dSᵀQ) of :func:`~attnio.algorithms.small_cache_fused.
    stationary_product` with a mask, r₂×c₂ output tiles (sides clipped to n, d): each streamed
    column (a non-empty tile of the (r₂, 1) or (1, r₂) grid) reads r·T_d(c₂) + d words.

    >>> from attnio.algorithms.masks import Mask
    >>> masked_products(Mask.full(), 8, 4, 3, 2)[0]
    Counts(reads=224, writes=32, flops=512, peak_fast_words=11, block_sizes=())
    """
    r2, c2 = min(r2, n), min(c2, d)
    Td = ceil_div(d, c2)
    untransposed = _grid(mask, n, r2, 1)
    transposed = _grid(mask, n, 1, r2)
    floor = r2 * c2
    d_q = Counts(untransposed.total(lambda r, c: r * Td + d), n * d,
                 untransposed.total(lambda r, c: 2 * r * d),
                 _max_over(untransposed, lambda r, c: r * c2 + r + c2, floor))
    d_k = Counts(transposed.total(lambda r, c: c * Td + d), n * d,
                 transposed.total(lambda r, c: 2 * c * d),
                 _max_over(transposed, lambda r, c: c * c2 + c + c2, floor))
    return d_q, d_k
