r"""The claim behind the witnessed given-scores route of :mod:`attnio.bounds.attention`
(issue 26, item 1): :func:`attnio.bounds.attention.witnessed_routes` charges :math:`dS\,K`
beside :math:`dO\,V^\top` for the given-scores class.

``gap.witnessed_route`` checks, exactly on a grid, that the route's cap — the segment cap with
partial depth :math:`k = n - 1` (a partial pair of the :math:`n`-inner :math:`dS\,K` holds up
to :math:`n - 1` leaves) — lies between the proved cell bounds with that :math:`k` and 2 above
(``gap.face_algebra``, ``gap.cell_bound`` and ``gap.superadditive`` are proved for any
:math:`k \ge 0`), and that the route is :math:`\max_L L(\lceil 2n^2d/cap(L)\rceil - 1)` (and
that + 4nd). The witness lemma (each :math:`dS_{ij}` red in a segment has a vertex of its private
chain red at the start or read) is argued in the route's docstring and notes/gap.md, not
machine-checked; ``gap.below_algorithms`` compares the route with every given-scores
algorithm's exact count. False twin: the cap of partial depth :math:`d - 1` (too small for the
:math:`n`-inner product).
"""

from __future__ import annotations

from typing import Callable

from attnio.bounds.attention import (
    SEGMENT_MULTIPLES,
    segment_cells,
    segment_product_cap,
    witnessed_routes,
)
from attnio.proofs.attention_routes import _EXACT, _cell_bound_ge, _cell_bound_le, _claim
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS"]


#: (n, d, M) of gap.witnessed_route.
_WITNESS_GRID = [(n, d, M) for n, d in ((16, 4), (256, 64), (4096, 64), (1024, 16))
                 for M in (3, 64, 1024, 8192)]


def _witnessed_check(ctx: CheckContext, *,
                     cap_for: Callable[[int, int], Callable[[int, int, int], int]] | None = None,
                     grid: list[tuple[int, int, int]] | None = None) -> Verdict:
    r"""The witnessed given-scores route (:func:`attnio.bounds.attention.witnessed_routes`):
    its value is :math:`\max_{L=tM} L(\lceil 2n^2d/cap(L)\rceil - 1)` (and that + 4nd) with
    the cap of partial depth k = n − 1, exactly; that cap is at least every proved cell bound
    with that k (``gap.cell_bound`` holds for any k ≥ 0) and at most 2 above the largest.
    ``cap_for(n, d)`` plants another cap (false twins)."""
    checked = nontrivial = 0
    for n, d, M in _WITNESS_GRID if grid is None else grid:
        k = max(n, d) - 1
        cap = (cap_for(n, d) if cap_for else
               (lambda d_, M_, L_, k=k: segment_product_cap(d_, M_, L_, partial_depth=k)))
        for t in SEGMENT_MULTIPLES:
            L = t * M
            T, value = 2 * M + L, cap(d, M, L)
            pieces = segment_cells(M + L)
            checked += 1
            nontrivial += value > 2
            for s0, s1 in pieces:
                if not _cell_bound_ge(value, d, T, s0, s1, k=k):
                    return Refuted({"n": n, "d": d, "M": M, "L": L, "cap": value, "k": k,
                                    "s0": s0, "s1": s1},
                                   "the cap is below a proved cell bound of partial depth k")
            if not any(_cell_bound_le(value - 2, d, T, s0, s1, k=k) for s0, s1 in pieces):
                return Refuted({"n": n, "d": d, "M": M, "L": L, "cap": value},
                               "the cap is more than 2 above every proved cell bound")
        N = 2 * n * n * d
        best = max(t * M * max(0, -(-N // cap(d, M, t * M)) - 1) for t in SEGMENT_MULTIPLES)
        routes = witnessed_routes(n, d, M)
        if [r.value for r in routes] != [best, best + 4 * n * d]:
            return Refuted({"n": n, "d": d, "M": M, "routes": [r.value for r in routes],
                            "recomputed": best}, "the route is not max_L L(⌈N/cap⌉ − 1)")
    return Proved(f"{checked} (n, d, M, L): the partial-depth-(n−1) cap between the proved cell "
                  "bounds and 2 above; the route its maximum over L, exactly",
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=nontrivial))


CLAIMS: list[Claim] = [
    _claim("gap.witnessed_route",
           "given-scores class (each dS_ij has a private chain to the given entry (i, j); "
           "witness lemma in notes/gap.md, argued, not machine-checked): Q ≥ max over L = t·M "
           "of L(⌈2n²d/F_(n−1)(L)⌉ − 1) (+ 4nd) — dO·Vᵀ and dS·K share one budget; the cap "
           "of partial depth n − 1 checked against the proved cell bounds, the route's value "
           "recomputed",
           "exact ints on a grid (n ≤ 4096, d ≤ 64, M ≤ 8192, L = t·M)", _EXACT,
           _witnessed_check),
]

FALSE_TWINS: list[Claim] = [
    _claim("gap.twin.witnessed_narrow_cap",
           "the witnessed route with the cap of partial depth d − 1 (a partial pair of dS·K "
           "holds up to n − 1 leaves, not d − 1)", "cap vs proved cell bounds", _EXACT,
           lambda ctx: _witnessed_check(ctx, cap_for=lambda n, d: segment_product_cap),
           twin_of="gap.witnessed_route", expect_reason="below a proved cell bound"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
