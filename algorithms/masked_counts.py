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

from typing import TYPE_CHECKING, Callable

from attnio.algorithms.counts import (
    Counts,
    Variant,
    _count_rowsum_product,
    _flash_setup,
    _sequence,
    flash_tile_sequence,
    square_block,
)
from attnio.algorithms.primitives import ceil_div

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask, TileClasses

__all__ = ["count_masked_standard_forward", "count_masked_standard_backward",
           "count_masked_square_tiling_forward", "count_masked_small_cache_backward",
           "count_masked_flash"]


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
    return _sequence(_masked_out_product(g, d, B), softmax,
                     _masked_a_product(g, n, d, B, transposed=False), block_sizes=(("B", B),))


def count_masked_standard_backward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    ds = Counts(n + 2 * g.total(lambda r, c: r * c), g.total(lambda r, c: r * c),
                2 * g.total(lambda r, c: r * c),
                _max_over(g, lambda r, c: r + 2 * r * c, min(B, n)))
    return _sequence(
        _masked_a_product(g, n, d, B, transposed=True), _masked_out_product(g, d, B),
        _count_rowsum_product(n, d, B), ds,
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
    return _sequence(_masked_exp_scores(g, n, d, B), phase2, block_sizes=(("B", B),))


def count_masked_small_cache_backward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    B = square_block(M)
    g = _grid(mask, n, B, B)
    bd = min(B, d)
    fused = Counts(g.total(lambda r, c: d * (r + c) + r * c + 2 * r),
                   2 * g.total(lambda r, c: r * c),
                   g.total(lambda r, c: 2 * r * c * d + 3 * r * c),
                   _max_over(g, lambda r, c: max(r * c + bd * (r + c), 2 * r * c + 2 * r)))
    return _sequence(
        _count_rowsum_product(n, d, B), fused,
        _masked_a_product(g, n, d, B, transposed=True),
        _masked_a_product(g, n, d, B, transposed=False),
        _masked_a_product(g, n, d, B, transposed=True), block_sizes=(("B", B),),
    )


def _tile_set(version: int, pass_: str, d: int, r: int, c: int) -> int:
    """Words resident during one inner step with an r-row, c-column tile."""
    return sum(w for _, w in flash_tile_sequence(version, pass_, max(r, c), d, r, c))


def count_masked_flash(version: int, pass_: str, n: int, d: int, M: int, variant: Variant,
                  mask: "Mask") -> Counts:
    br, bc, Tr, Tc, _ = _flash_setup(version, pass_, n, d, M, variant)
    g = _grid(mask, n, br, bc)
    r0, c0 = min(br, n), min(bc, n)
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
        counts = (n * d + T(lambda r, c: 2 * c * d), n * d + n,
                  T(lambda r, c: 4 * r * c * d + 4 * r * c + 5 * r + r * d) + n * d + 2 * n,
                  _max_over(g, step, 2 * r0 * d + 3 * r0))
    else:
        counts = (4 * n * d + T(lambda r, c: 3 * r * d + 2 * r),
                  n + n * d + T(lambda r, c: r * d) + 2 * n * d,
                  2 * n * d + T(lambda r, c: 10 * r * c * d + 4 * r * c),
                  _max_over(g, step, max(4 * c0 * d, 2 * r0 * d + r0)))
    return Counts(*counts, (("B_r", br), ("B_c", bc)))
