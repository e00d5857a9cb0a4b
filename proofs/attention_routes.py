r"""The claims behind :mod:`attnio.bounds.attention` (the segment-product routes at real sizes): each step of notes/gap.md machine-checked.

Claims (``attnio verify``; the proof map is in the comment above :func:`_face_chain`). The
stepped ones are chains (:func:`attnio.smt.chains.check_chain`): each step proved on its
own and the conclusion derived by the solver from the steps alone, so a deleted or weakened
step fails the claim. ``gap.face_algebra``: designated leaves ≤
:math:`g(s, c) = s^2/(4d) + \min((s/2)\sqrt c, (d-1)c)`; ``gap.cell_bound``: :math:`g` ≤ the
cell bound on a cell; ``gap.superadditive``; ``gap.segment_cap``: the integer cap the routes
use is, exactly, between the proved cell bounds (on cells covering :math:`[0, M+L]`) and 2
above, and at least the brute-force maximum over every segment shape of small products;
``gap.segment_route``: the route is :math:`\max_L L(\lceil N/cap\rceil - 1)` with that cap,
and the cap has the small-cache closed form; ``gap.below_algorithms`` / ``gap.compulsory``:
every route ≤ the exact I/O of every algorithm of :mod:`attnio.algorithms` on a grid of sizes
including n = 4096, d = 64. (``gap.loomis_whitney`` was removed in issue 20: it enumerated a
1949 theorem on small sets and exercised no route code; the brute force of
``gap.segment_cap`` counts real leaves instead.)

False twins, one per failure path of each checker: a route above an algorithm's exact count
(the full-pair hypothesis dropped — :math:`S_{ij}` as outputs, exceeding FlashAttention-2 —,
every input read twice, the :math:`n^2` given scores claimed for FlashAttention); a false
step (the cell bound at the lower corner, :math:`ab \le s^2/8`, superadditivity reversed); a
step deleted or weakened (the composition fails with a model); vacuous premises, a vacuous
step, a redundant step, an unknown step, an unknown composition (each Undecided, as
declared); the cap divided by 3 or inflated by :math:`3\sqrt2 M^{1.5}`, cells that miss the
last piece, a model without partial pairs (only the brute force sees it); a route without
the last segment's − 1, at L = M only, at an unchecked L = 7M, or with an inflated cap.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Callable, Iterable

import z3

from attnio.algorithms.registry import algorithm_names
from attnio.algorithms.simulation import count
from attnio.bounds.attention import (
    PASSES,
    SEGMENT_MULTIPLES,
    GapBound,
    ceil_sqrt,
    computation_of,
    lower_bound_routes,
    segment_cells,
    segment_product_cap,
    segment_route,
)
from attnio.bounds.cells import descending_prefix_sums
from attnio.exceptions import CacheOverflowError, InfeasibleError
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict
from attnio.smt.chains import Chain, Solvers, Step, check_chain, unknown_for

__all__ = [
    "CLAIMS",
    "FALSE_TWINS",
]


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------
#
# Proof map (notes/gap.md). In a segment with s = a + b ≤ M + L red operand entries and
# c ≤ 2M + L − s partial pairs:
#
# * gap.face_algebra   (chain) designated leaves ≤ g(s, c) = s²/(4d) + min((s/2)√c, kc), k the
#                      most leaves of a partial pair (d − 1; n − 1 for the n-inner dS·K);
# * gap.cell_bound     (chain) on a cell s0 ≤ s ≤ s1, c ≤ T − s: g(s, c) ≤ the cell bound
#                      s1²/(4d) + min((s1/2)√(T−s0), k(T−s0));
# * gap.superadditive  (chain) g(s1, c1) + g(s2, c2) ≤ g(s1 + s2, c1 + c2): products share F;
# * gap.segment_cap    (exact) segment_product_cap is the maximum over cells covering [0, S] of
#                      the rounded-up cell bound — at least every proved cell bound, at most 2
#                      above the largest — and at least the brute-force maximum of designated
#                      leaves over every segment shape of small products;
# * gap.segment_route  (exact) segment_route = max over L = t·M of L(⌈N/cap(L)⌉ − 1) with that
#                      cap, and the cap's small-cache closed form at L = 4M;
# * gap.below_algorithms, gap.compulsory (exact) every route ≤ every algorithm's exact I/O.
#
# Together: cap ≥ F(L) (face_algebra, cell_bound, segment_cap), so
# Q ≥ L(⌈N/F⌉ − 1) ≥ L(⌈N/cap⌉ − 1) = segment_route (segment_route), summed over products
# with one F (superadditive) — the value best_lower_bound prints.

def _min(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    return z3.If(x <= y, x, y)


def _face_chain(*, factor: int = 4) -> Chain:
    r"""Designated leaves of one segment ≤ :math:`s^2/(4d) + \min((s/2)\sqrt c, kc)`.

    Premises (the counting of notes/gap.md): ``full ≤ ab/d`` (full pairs need full rows of
    :math:`X` and :math:`Y`), ``part ≤ y`` with :math:`y^2 = abc` (Loomis–Whitney on the partial
    pairs' leaves), ``part ≤ kc`` (a partial pair holds at most k leaves: :math:`k = d - 1`
    for an inner dimension d, :math:`n - 1` for the n-inner :math:`dS\,K`); :math:`r^2 = c`."""
    a, b, c, d, y, r, full, part, k = z3.Reals("a b c d y r full part k")
    s = a + b
    sign = [a >= 0, b >= 0, c >= 0, d >= 1, k >= 0]
    roots = [y >= 0, y * y == a * b * c, r >= 0, r * r == c]
    counts = [full <= a * b / d, part <= y, part <= k * c]
    am_gm = a * b / d <= s * s / (factor * d)
    lw = y <= s * r / 2
    bound = _min(s * r / 2, k * c)
    return Chain(
        premises=(*sign, *roots, *counts),
        steps=(Step("ab/d ≤ s²/(4d)", am_gm, sign),
               Step("full ≤ s²/(4d)", full <= s * s / (4 * d), (counts[0], am_gm)),
               Step("√(abc) ≤ (s/2)√c", lw, (*sign, *roots)),
               Step("partial ≤ min((s/2)√c, kc)", part <= bound,
                    (counts[1], counts[2], lw))),
        conclusion=full + part <= s * s / (4 * d) + bound)


def _cell_chain(*, lower_corner: bool = False) -> Chain:
    r"""On :math:`s_0\le s\le s_1`, :math:`0\le c\le T-s`:
    :math:`g(s, c) \le s_1^2/(4d) + \min((s_1/2)\sqrt{T-s_0}, k(T-s_0))`, any :math:`k \ge 0`."""
    s, s0, s1, T, c, d, r, R, k = z3.Reals("s s0 s1 T c d r R k")
    order = [s0 >= 0, s0 <= s, s <= s1, s1 <= T, c >= 0, c <= T - s, d >= 1, k >= 0]
    roots = [r >= 0, r * r == c, R >= 0, R * R == T - s0]
    corner = s0 if lower_corner else s1   # the false twin takes the full term at s0
    # min monotonicity is left to the composition (case analysis; as a step it was redundant)
    root_le = r <= R
    prod_le = s * r <= s1 * R
    lin_le = k * c <= k * (T - s0)
    sq_le = s * s <= corner * corner
    return Chain(
        premises=(*order, *roots),
        steps=(Step("√c ≤ √(T−s0)", root_le, (*order, *roots)),
               Step("s√c ≤ s1√(T−s0)", prod_le, (order[0], order[1], order[2], roots[0],
                                                 roots[2], root_le)),
               Step("kc ≤ k(T−s0)", lin_le, (order[1], order[4], order[5], order[7])),
               Step("s² ≤ s1²", sq_le, (order[0], order[1], order[2])),
               Step("s²/(4d) ≤ s1²/(4d)", s * s / (4 * d) <= corner * corner / (4 * d),
                    (order[6], sq_le))),
        conclusion=s * s / (4 * d) + _min(s * r / 2, k * c)
        <= corner * corner / (4 * d) + _min(s1 * R / 2, k * (T - s0)))


def _superadditive_chain(*, reverse: bool = False) -> Chain:
    r""":math:`g(s_1,c_1)+g(s_2,c_2) \le g(s_1+s_2, c_1+c_2)` for
    :math:`g(s, c) = s^2/(4d) + \min((s/2)\sqrt c, kc)`, any :math:`k \ge 0`."""
    s1, s2, c1, c2, r1, r2, r, d, k = z3.Reals("s1 s2 c1 c2 r1 r2 r d k")
    sign = [s1 >= 0, s2 >= 0, c1 >= 0, c2 >= 0, d >= 1, k >= 0]
    roots = [r1 >= 0, r2 >= 0, r >= 0, r1 * r1 == c1, r2 * r2 == c2, r * r == c1 + c2]
    square = ((s1 + s2) ** 2 <= s1 * s1 + s2 * s2) if reverse else (
        s1 * s1 + s2 * s2 <= (s1 + s2) ** 2)
    root1, root2 = r1 <= r, r2 <= r
    mixed = s1 * r1 + s2 * r2 <= (s1 + s2) * r
    # the min terms are left to the composition: min(x1, y1) + min(x2, y2) ≤ min(X, Y) once
    # x1 + x2 ≤ X and y1 + y2 = Y is case analysis, which the solver does (a step stating it
    # was found redundant by the chain checker)
    x1, x2, y1, y2 = s1 * r1 / 2, s2 * r2 / 2, k * c1, k * c2
    X, Y = (s1 + s2) * r / 2, k * (c1 + c2)

    def g(s_: z3.ArithRef, x_: z3.ArithRef, y_: z3.ArithRef) -> z3.ArithRef:
        return s_ * s_ / (4 * d) + _min(x_, y_)

    return Chain(
        premises=(*sign, *roots),
        steps=(Step("s1² + s2² ≤ (s1+s2)²", square, sign[:2]),
               Step("s1²/(4d) + s2²/(4d) ≤ (s1+s2)²/(4d)",
                    s1 * s1 / (4 * d) + s2 * s2 / (4 * d) <= (s1 + s2) * (s1 + s2) / (4 * d),
                    (sign[4], square)),
               Step("√c1 ≤ √(c1+c2)", root1, (sign[2], sign[3], roots[0], roots[2], roots[3],
                                              roots[5])),
               Step("√c2 ≤ √(c1+c2)", root2, (sign[2], sign[3], roots[1], roots[2], roots[4],
                                              roots[5])),
               Step("s1√c1 + s2√c2 ≤ (s1+s2)√(c1+c2)", mixed,
                    (sign[0], sign[1], roots[0], roots[1], root1, root2)),
               ),
        conclusion=g(s1, x1, y1) + g(s2, x2, y2) <= g(s1 + s2, X, Y))


def chain_check(build: Callable[[], Chain], solvers: Callable[[Chain], Solvers] | None = None
                ) -> Callable[[CheckContext], Verdict]:
    def check(ctx: CheckContext) -> Verdict:
        chain = build()
        return check_chain(chain, timeout_ms=ctx.z3_timeout_ms, second_solver=ctx.second_solver,
                           solvers=solvers(chain) if solvers else None)
    return check


def cell_bound_ge(value: int, d: int, T: int, s0: int, s1: int, *, partial: bool = True,
                  k: int | None = None) -> bool:
    r"""``value ≥ s1²/(4d) + min((s1/2)√(T−s0), k(T−s0))`` (``k`` default d − 1), in exact
    integers (both sides times 4d; the root compared by squaring). ``partial=False``: the bound
    without its min term (a planted model)."""
    k = d - 1 if k is None else k
    A = 4 * d * value - s1 * s1
    if not partial:
        return A >= 0
    return A >= 4 * d * k * (T - s0) or (A >= 0 and A * A >= 4 * d * d * s1 * s1 * (T - s0))


def cell_bound_le(value: int, d: int, T: int, s0: int, s1: int, *, partial: bool = True,
                  k: int | None = None) -> bool:
    """``value ≤`` the cell bound of :func:`cell_bound_ge`, exactly."""
    k = d - 1 if k is None else k
    A = 4 * d * value - s1 * s1
    if not partial:
        return A <= 0
    return A <= 4 * d * k * (T - s0) and (A <= 0 or A * A <= 4 * d * d * s1 * s1 * (T - s0))


def pair_leaf_table(rows_x: int, rows_y: int, d: int, pairs: Iterable[tuple[int, int]]
                     ) -> list[tuple[int, int, list[int]]]:
    """Every segment shape of a product of a rows_x×d by a d×rows_y matrix restricted to
    ``pairs`` (row x of X, row y of Y): for each pair of sets A, B of red entries of X and Y,
    ``(|A| + |B|, leaves of full pairs, prefix sums of the partial pairs' leaf counts,
    largest first)``. A pair (x, y) can have leaf k in the segment only if x_k ∈ A and
    y_k ∈ B; it is full when all d can, and a partial pair holds at most the ones that can.
    The one enumeration behind the dense, per-mask and stacked-head segment checks."""
    pairs = list(pairs)
    table = []
    for A in range(1 << (rows_x * d)):
        for B in range(1 << (rows_y * d)):
            full, partial = 0, []
            for x, y in pairs:
                avail = sum(1 for k in range(d) if A >> (x * d + k) & 1 and B >> (y * d + k) & 1)
                if avail == d:
                    full += d
                elif avail:
                    partial.append(avail)
            table.append((A.bit_count() + B.bit_count(), full, descending_prefix_sums(partial)))
    return table


def _leaf_table(n: int, d: int) -> list[tuple[int, int, list[int]]]:
    """Every segment shape of an n×d by d×n product (every pair): :func:`pair_leaf_table`."""
    return pair_leaf_table(n, n, d, [(i, j) for i in range(n) for j in range(n)])


def brute_segment_max(table: list[tuple[int, int, list[int]]], M: int, L: int) -> int:
    """The most designated leaves one segment of L I/Os can hold: over every shape with
    s = |A| + |B| ≤ M + L, the full pairs plus the best c = 2M + L − s partial pairs."""
    S, T = M + L, 2 * M + L
    return max(full + prefix[min(T - s, len(prefix) - 1)]
               for s, full, prefix in table if s <= S)


def segment_cap_excess(table: list, d: int, M: int, cap: Callable[[int, int, int], int], *,
                       segment_max: Callable[[list, int, int], int] = brute_segment_max
                       ) -> tuple[int, int, tuple[int, int, int] | None]:
    """The brute-force maximum of designated leaves of one segment of L = t·M I/Os
    (``segment_max``, default :func:`brute_segment_max`) against ``cap(d, M, L)`` for
    t = 1, 2, 3, 4, in that order: ``(checked, nontrivial, excess)``, ``excess`` the first
    ``(L, cap, most)`` with most > cap (the comparisons stop there), else None. A comparison
    is nontrivial where the maximum exceeds 1 (it could have failed). Shared by every claim
    that checks a segment cap against the brute force (attention, masks, heads, joint).

    >>> table = pair_leaf_table(2, 2, 1, [(0, 0), (0, 1), (1, 0), (1, 1)])   # 2×1 by 1×2
    >>> segment_cap_excess(table, 1, 1, lambda d, M, L: 10**6)
    (4, 3, None)
    >>> segment_cap_excess(table, 1, 1, lambda d, M, L: 0)   # a planted cap of 0: L = 1 fails
    (1, 0, (1, 0, 1))
    """
    checked = nontrivial = 0
    for t in (1, 2, 3, 4):
        L = t * M
        most, value = segment_max(table, M, L), cap(d, M, L)
        checked += 1
        nontrivial += most > 1
        if most > value:
            return checked, nontrivial, (L, value, most)
    return checked, nontrivial, None


#: (d, M) of gap.segment_cap's exact comparison, at every L = t·M of SEGMENT_MULTIPLES.
_CAP_GRID = [(d, M) for d in (1, 3, 16, 64, 256) for M in (1, 3, 64, 1024, 65536)]
#: (n, d) products and M of the brute-force maximum, at L = t·M for t ≤ 4.
_BRUTE_GRID = [((n, d), M) for n, d in ((2, 1), (3, 1), (2, 2), (2, 3), (3, 2))
               for M in (1, 2, 3)]


def _segment_cap_check(ctx: CheckContext, *,
                       cap: Callable[[int, int, int], int] = segment_product_cap,
                       cells: Callable[[int], list[tuple[int, int]]] = segment_cells,
                       partial: bool = True, grid: list[tuple[int, int]] | None = None,
                       brute_grid: list[tuple[tuple[int, int], int]] | None = None) -> Verdict:
    """segment_product_cap against the proved cell bounds (exact) and the brute force.

    ``cap``, ``cells`` and ``partial`` (the model's min term) are slots for false twins;
    ``grid`` / ``brute_grid`` replace :data:`_CAP_GRID` / :data:`_BRUTE_GRID` (tests)."""
    checked = nontrivial = 0
    for d, M in _CAP_GRID if grid is None else grid:
        for t in SEGMENT_MULTIPLES:
            L = t * M
            S, T = M + L, 2 * M + L
            pieces = cells(S)
            covers = (bool(pieces) and pieces[0][0] == 0 and pieces[-1][1] == S
                      and all(a[1] == b[0] and a[0] <= a[1] for a, b in zip(pieces, pieces[1:])))
            if not covers:
                return Refuted({"d": d, "M": M, "L": L, "S": S,
                                "cells": pieces[:3] + pieces[-3:]},
                               "the cells do not cover [0, S]: F(L) is not bounded on all of it")
            value = cap(d, M, L)
            checked += 1
            nontrivial += value > 2
            for s0, s1 in pieces:
                if not cell_bound_ge(value, d, T, s0, s1, partial=partial):
                    return Refuted({"d": d, "M": M, "L": L, "cap": value, "s0": s0, "s1": s1},
                                   "the cap is below a proved cell bound")
            if not any(cell_bound_le(value - 2, d, T, s0, s1, partial=partial)
                      for s0, s1 in pieces):
                return Refuted({"d": d, "M": M, "L": L, "cap": value},
                               "the cap is more than 2 above every proved cell bound")
    tables: dict[tuple[int, int], list] = {}
    for (n, d), M in _BRUTE_GRID if brute_grid is None else brute_grid:
        done, hard, excess = segment_cap_excess(tables.setdefault((n, d), _leaf_table(n, d)),
                                                d, M, cap)
        checked, nontrivial = checked + done, nontrivial + hard
        if excess is not None:
            L, value, most = excess
            return Refuted({"n": n, "d": d, "M": M, "L": L, "cap": value, "brute_force": most},
                           "the brute-force maximum of designated leaves exceeds the cap")
    return Proved(f"{checked} (d, M, L) and small shapes: cap between the proved cell bounds "
                  "and 2 above on cells covering [0, S], and ≥ the brute-force maximum",
                  evidence=Evidence.exhaustive(checked, nontrivial))


def _within_small_cache_form(cap: int, d: int, M: int) -> bool:
    r""":math:`cap \le 1.01\,(25M^2/(4d) + 2\sqrt2 M^{3/2}) + 3`, exactly:
    :math:`e = (cap - 3)/1.01 - 25M^2/(4d) \le 2\sqrt2 M^{3/2}`, i.e. :math:`e \le 0` or
    :math:`e^2 \le 8M^3`."""
    excess = (Fraction(cap) - 3) / Fraction(101, 100) - Fraction(25 * M * M, 4 * d)
    return excess <= 0 or excess * excess <= 8 * M ** 3


#: (n, d, M, products) of gap.segment_route.
_ROUTE_GRID = [(n, d, M, k) for n in (16, 256, 4096) for d in (1, 4, 64) for M in (1, 3, 64, 1024)
               for k in (1, 2)]


def _segment_route_check(ctx: CheckContext, *,
                         cap: Callable[[int, int, int], int] = segment_product_cap,
                         route: Callable[..., tuple[int, int]] = segment_route,
                         grid: list[tuple[int, int, int, int]] | None = None) -> Verdict:
    r"""``route(n, d, M, products=k, cap=cap)`` is :math:`\max_{L=tM} L(\lceil N/cap(L)\rceil-1)`
    exactly, and at :math:`L = 4M` the cap is at most
    :math:`1.01(25M^2/(4d) + 2\sqrt2 M^{3/2}) + 3` (:math:`s \le 5M`,
    :math:`(s/2)\sqrt{6M-s} \le 2\sqrt2 M^{3/2}`; 1 % for the cell width) — so the route is
    :math:`\ge \sqrt2\,n^2d/\sqrt M\,(1 + O(\sqrt M/d))^{-1} - 4M`, the small-cache shape."""
    checked = nontrivial = 0
    for n, d, M, k in _ROUTE_GRID if grid is None else grid:
        N = k * n * n * d
        value, L = route(n, d, M, products=k, cap=cap)
        permitted = {t * M: t * M * max(0, -(-N // cap(d, M, t * M)) - 1)
                     for t in SEGMENT_MULTIPLES}
        checked += 1
        nontrivial += value > 0
        where = {"n": n, "d": d, "M": M, "products": k, "value": value, "L": L}
        if value and L not in permitted:
            return Refuted(where, f"L = {L} is not a segment length t·M of SEGMENT_MULTIPLES")
        if value and value > permitted[L]:
            return Refuted({**where, "permitted": permitted[L]},
                           "the route is above L(⌈N/cap⌉ − 1) for its own L")
        if value < max(permitted.values()):
            return Refuted({**where, "best": max(permitted.values())},
                           "the route is not the maximum over the segment lengths")
        if not _within_small_cache_form(cap(d, M, 4 * M), d, M):
            return Refuted({"d": d, "M": M, "cap": cap(d, M, 4 * M)},
                           "the cap at L = 4M is above its small-cache closed form")
    return Proved(f"{checked} (n, d, M, products): route = max_L L(⌈N/cap⌉ − 1) exactly, cap at "
                  "L = 4M within its closed form",
                  evidence=Evidence.exhaustive(checked, nontrivial))


#: (pass, n, d, M) grid on which every route is compared with every algorithm's exact count.
#: n < d included (issue 35: every route is checked where it is printed).
_GRID = [(p, n, d, M) for p in PASSES
         for (n, d) in ((4096, 64), (1024, 16), (4096, 4), (256, 64), (63, 256), (16, 128))
         for M in sorted({4, 16, 64, 256, 1024, 4096, 16384, 65536, n * d, 4 * n * d})]


def _algorithm_counts(pass_: str, n: int, d: int, M: int) -> dict[str, int]:

    out = {}
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    for name in algorithm_names(pass_):
        if computation_of(name, pass_) not in allowed:  # another computation (dL/dX)
            continue
        try:
            out[name] = count(name, pass_, n, d, M).io
        except (InfeasibleError, CacheOverflowError):  # no tile set (or the published one)
            continue                                  # fits M: nothing to compare
    return out


def _below_algorithms(ctx: CheckContext, *,
                      route_fn: Callable[..., list[GapBound]] | None = None,
                      grid: list[tuple[str, int, int, int]] | None = None,
                      counts: Callable[[str, int, int, int], dict[str, int]] | None = None
                      ) -> Verdict:
    """Every route of an algorithm's computation class ≤ its exact count, on :data:`_GRID`.

    ``route_fn`` plants routes (false twins); ``grid`` and ``counts`` replace the grid and the
    algorithm counts (tests)."""
    checked = nontrivial = 0
    for pass_, n, d, M in _GRID if grid is None else grid:
        for name, io in (counts or _algorithm_counts)(pass_, n, d, M).items():
            computation = computation_of(name, pass_)
            routes = (route_fn(pass_, n, d, M, computation) if route_fn
                      else lower_bound_routes(pass_, n, d, M, computation))
            for bound in routes:
                checked += 1
                nontrivial += bound.value > 0
                if bound.value > io:
                    return Refuted({"pass": pass_, "n": n, "d": d, "M": M,
                                    "route": bound.route, "bound": bound.value,
                                    "algorithm": name, "io": io},
                                   "a lower bound exceeds an algorithm's exact I/O")
    return Proved(f"{checked} (route, algorithm, size) comparisons, exact integers",
                  evidence=Evidence.exhaustive(checked, nontrivial))


def _cap_all_partial(d: int, M: int, L: int) -> int:
    """The *false* cap that treats every pair as partial (as if S_ij were an output, the
    matmul C-face c ≤ 2M + L): max over cells of ⌈(s1/2)√(T − s0)⌉ (a false twin's)."""
    T, S = 2 * M + L, M + L
    return max([1] + [-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2) for s0, s1 in segment_cells(S)])


def _twin_routes_outputs(pass_: str, n: int, d: int, M: int, computation: str) -> list[GapBound]:
    value, _ = segment_route(n, d, M, products=2 if computation == "recompute" else 1,
                             cap=_cap_all_partial)
    return [GapBound(value, "segment products, full-pair hypothesis dropped", "twin")]


def _twin_scores_for_all(pass_: str, n: int, d: int, M: int,
                         computation: str) -> list[GapBound]:
    routes = lower_bound_routes(pass_, n, d, M, computation)
    if computation == "recompute":  # the n² of the given scores, claimed where none is given
        routes = [GapBound(r.value + n * n, r.route + " + n²", "twin") for r in routes]
    return routes


def _compulsory_only(pass_: str, n: int, d: int, M: int, computation: str) -> list[GapBound]:
    return lower_bound_routes(pass_, n, d, M, computation)[:1]


def _twin_compulsory_twice(pass_: str, n: int, d: int, M: int,
                           computation: str) -> list[GapBound]:
    inputs = 3 * n * d if pass_ == "forward" else 5 * n * d
    if computation == "given-scores":
        inputs += n * n
    compulsory = lower_bound_routes(pass_, n, d, M, computation)[0].value
    return [GapBound(compulsory + inputs, "every input read twice", "twin")]


def _cap_over_3(d: int, M: int, L: int) -> int:
    """The issue-20 mutant: the cap divided by 3 (a route far above what the proof allows)."""
    return max(1, segment_product_cap(d, M, L) // 3)


def _cap_inflated(d: int, M: int, L: int) -> int:
    """The issue-20 mutant: the cap inflated by ⌊3√2·M^1.5⌋ (sound, but not the proved cap)."""
    return segment_product_cap(d, M, L) + isqrt(18 * M ** 3)


def _cells_short(S: int) -> list[tuple[int, int]]:
    """The cells with the last one dropped: F is not bounded near s = S."""
    return segment_cells(S)[:-1]


def _cap_full_pairs_only(d: int, M: int, L: int) -> int:
    """A cap of the model without partial pairs: max over cells of ⌈s1²/(4d)⌉."""
    return max([1] + [-(-s1 * s1 // (4 * d)) for _, s1 in segment_cells(M + L)])


def _route_ceiling_only(n: int, d: int, M: int, *, products: int = 1,
                        cap: Callable[[int, int, int], int] = segment_product_cap
                        ) -> tuple[int, int]:
    """The route with L·⌈N/cap⌉ (the − 1 for the last, shorter segment dropped)."""
    N = products * n * n * d
    return max((t * M * -(-N // cap(d, M, t * M)), t * M) for t in SEGMENT_MULTIPLES)


def _route_first_L(n: int, d: int, M: int, *, products: int = 1,
                   cap: Callable[[int, int, int], int] = segment_product_cap) -> tuple[int, int]:
    """The route at L = M only (sound, but not the maximum it claims)."""
    N = products * n * n * d
    value = M * max(0, -(-N // cap(d, M, M)) - 1)
    return value, M if value else 0


def _route_L7(n: int, d: int, M: int, *, products: int = 1,
              cap: Callable[[int, int, int], int] = segment_product_cap) -> tuple[int, int]:
    """The route at L = 7M, a length whose cap gap.segment_cap does not check."""
    N = products * n * n * d
    value = 7 * M * max(0, -(-N // cap(d, M, 7 * M)) - 1)
    return value, 7 * M if value else 0


_SRC = ("attnio (ours; notes/gap.md): segment argument of Hong–Kung 1981 §3 with "
        "Loomis–Whitney 1949 faces, as in Irony–Toledo–Tiskin 2004 for matmul")


def claim(id: str, statement: str, formal: str, method: str, check, *,
          reconstructed: bool = True, twin_of: str | None = None, expect: str = "refuted",
          expect_reason: str = "") -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC, method=method,
                 family="attention_routes", check_fn=check, reconstructed=reconstructed,
                 twin_of=twin_of, expect=expect, expect_reason=expect_reason,  # type: ignore[arg-type]
                 evidence_kind="smt-forall" if method.startswith("z3") else "exhaustive")


CHAIN = "z3 NRA chain (attnio.smt.chains)"
EXACT = "exact integer comparison"

CLAIMS: list[Claim] = [
    claim("gap.face_algebra",
          "full ≤ ab/d, partial ≤ √(abc) (Loomis–Whitney), partial ≤ kc, a + b = s "
          "(a, b, c, k ≥ 0, d ≥ 1; k = d − 1, or n − 1 for dS·K) ⇒ designated leaves ≤ "
          "s²/(4d) + min((s/2)√c, kc)",
          "chain: AM–GM, full ≤ s²/(4d), √(abc) ≤ (s/2)√c, partial ≤ min; r² = c, y² = abc",
          CHAIN, chain_check(_face_chain)),
    claim("gap.cell_bound",
          "on s ∈ [s0, s1], 0 ≤ c ≤ T − s (s0 ≥ 0, s1 ≤ T, d ≥ 1, k ≥ 0): s²/(4d) + "
          "min((s/2)√c, kc) ≤ s1²/(4d) + min((s1/2)√(T−s0), k(T−s0))",
          "chain of 5 steps; r² = c, R² = T − s0", CHAIN, chain_check(_cell_chain)),
    claim("gap.superadditive",
          "g(s1, c1) + g(s2, c2) ≤ g(s1+s2, c1+c2) for g(s, c) = s²/(4d) + min((s/2)√c, kc), "
          "s_i, c_i, k ≥ 0, d ≥ 1 (several products share one segment budget)",
          "chain of 5 steps; r_i² = c_i, r² = c1 + c2", CHAIN, chain_check(_superadditive_chain)),
    claim("gap.segment_cap",
          "segment_product_cap(d, M, L) (the cap every segment route uses) is ≥ every proved "
          "cell bound on cells covering [0, M + L] and ≤ 2 + the largest, for d ≤ 256, "
          "M ≤ 65536, L = t·M; and ≥ the brute-force maximum of designated leaves over every "
          "segment shape of n×d·d×n products (n ≤ 3, d ≤ 3, M ≤ 3, L ≤ 4M)",
          "exact ints: 4d·cap − s1² against 4d·min(...), roots squared; subset enumeration",
          EXACT, _segment_cap_check),
    claim("gap.segment_route",
          "segment_route(n, d, M, products) = max over L = t·M of L(⌈N/cap(L)⌉ − 1), "
          "N = products·n²d, exactly; and cap(4M) ≤ 1.01·(25M²/(4d) + 2√2·M^{3/2}) + 3 (the "
          "small-cache shape √2·n²d/√M)",
          "exact rational comparison on a grid", EXACT, _segment_route_check),
    claim("gap.below_algorithms",
          "every route (compulsory, segment, Saha–Ye) ≤ the exact I/O of every algorithm of "
          "attnio.algorithms on a grid incl. n = 4096, d = 64 and n < d (63 × 256, 16 × 128), "
          "M = 4 … 4nd",
          "route ≤ count(alg).io, exact ints", EXACT, _below_algorithms),
    claim("gap.compulsory",
          "Q ≥ 4nd (forward), Q ≥ 8nd (backward): inputs are never computed, outputs end blue",
          "compulsory ≤ count(alg).io on the grid", EXACT,
          lambda ctx: _below_algorithms(ctx, route_fn=_compulsory_only), reconstructed=False),
]

_SUPER = "gap.superadditive"
_ROOT2 = "√c2 ≤ √(c1+c2)"


def _super_planted(change: Callable[[Chain], Chain]) -> Callable[[], Chain]:
    return lambda: change(_superadditive_chain())


def _r(name: str) -> z3.ArithRef:
    return z3.Real(name)


FALSE_TWINS: list[Claim] = [
    # route ≤ algorithm counts: a bound above an exact count
    claim("gap.twin.full_pairs_as_outputs",
          "segment route with the C-face ≤ 2M + L for every pair (S_ij treated as an output)",
          "route ≤ count(alg).io", EXACT,
          lambda ctx: _below_algorithms(ctx, route_fn=_twin_routes_outputs),
          twin_of="gap.below_algorithms", expect_reason="exceeds an algorithm's exact I/O"),
    claim("gap.twin.compulsory_twice",
          "every input must be read twice: Q ≥ 7nd (forward), 13nd (backward)",
          "route ≤ count(alg).io", EXACT,
          lambda ctx: _below_algorithms(ctx, route_fn=_twin_compulsory_twice),
          twin_of="gap.compulsory", expect_reason="exceeds an algorithm's exact I/O"),
    claim("gap.twin.scores_read_by_flash",
          "every backward reads n² score entries (the given-scores term claimed for the "
          "recompute class too)", "route ≤ count(alg).io", EXACT,
          lambda ctx: _below_algorithms(ctx, route_fn=_twin_scores_for_all),
          twin_of="gap.below_algorithms", expect_reason="exceeds an algorithm's exact I/O"),
    # chains: a false step
    claim("gap.twin.cell_lower_corner",
          "the cell bound with the full term taken at the cell's lower corner s0",
          "chain step s² ≤ s0²", CHAIN, chain_check(lambda: _cell_chain(lower_corner=True)),
          twin_of="gap.cell_bound", expect_reason="step 's² ≤ s1²' is false"),
    claim("gap.twin.face_factor_8", "a + b = s ⇒ ab/d ≤ s²/(8d) (the AM–GM step too strong)",
          "chain step", CHAIN, chain_check(lambda: _face_chain(factor=8)),
          twin_of="gap.face_algebra", expect_reason="step 'ab/d ≤ s²/(4d)' is false"),
    claim("gap.twin.superadditive_reversed",
          "g(s1+s2, c1+c2) ≤ g(s1, c1) + g(s2, c2) (its square step reversed)", "chain step",
          CHAIN, chain_check(lambda: _superadditive_chain(reverse=True)),
          twin_of=_SUPER, expect_reason="step 's1² + s2² ≤ (s1+s2)²' is false"),
    # chains: a step deleted or weakened — the composition fails with a model
    claim("gap.twin.superadditive_without_root_step",
          "gap.superadditive with the step √c2 ≤ √(c1+c2) deleted (issue 20: it stayed Proved)",
          "chain", CHAIN, chain_check(_super_planted(lambda c: c.without(_ROOT2))),
          twin_of=_SUPER, expect_reason="does not follow from the steps"),
    claim("gap.twin.superadditive_weak_root_step",
          "gap.superadditive with √c2 ≤ √(c1+c2) weakened to √c2 ≤ 2√(c1+c2) (still true)",
          "chain", CHAIN, chain_check(_super_planted(lambda c: c.replacing(
              _ROOT2, Step(_ROOT2 + " (weakened)", _r("r2") <= 2 * _r("r"), c.step(_ROOT2)
                         .hypotheses)))),
          twin_of=_SUPER, expect_reason="does not follow from the steps"),
    claim("gap.twin.cell_without_square_step",
          "gap.cell_bound with the step s² ≤ s1² deleted", "chain", CHAIN,
          chain_check(lambda: _cell_chain().without("s² ≤ s1²")),
          twin_of="gap.cell_bound", expect_reason="does not follow from the steps"),
    claim("gap.twin.cell_weak_linear_step",
          "gap.cell_bound with kc ≤ k(T−s0) weakened to kc ≤ (k+1)(T−s0)", "chain",
          CHAIN, chain_check(lambda: (lambda c: c.replacing(
              "kc ≤ k(T−s0)", Step("kc ≤ (k+1)(T−s0)",
                                 _r("k") * _r("c") <= (_r("k") + 1) * (_r("T") - _r("s0")),
                                 c.step("kc ≤ k(T−s0)").hypotheses)))(
              _cell_chain())),
          twin_of="gap.cell_bound", expect_reason="does not follow from the steps"),
    claim("gap.twin.face_without_lw_step",
          "gap.face_algebra with the Loomis–Whitney step √(abc) ≤ (s/2)√c deleted", "chain",
          CHAIN, chain_check(lambda: _face_chain().without("√(abc) ≤ (s/2)√c")),
          twin_of="gap.face_algebra", expect_reason="does not follow from the steps"),
    claim("gap.twin.face_weak_lw_step",
          "gap.face_algebra with √(abc) ≤ (s/2)√c weakened to √(abc) ≤ s√c", "chain", CHAIN,
          chain_check(lambda: (lambda c: c.replacing(
              "√(abc) ≤ (s/2)√c", Step("√(abc) ≤ s√c",
                                      _r("y") <= (_r("a") + _r("b")) * _r("r"),
                                      c.step("√(abc) ≤ (s/2)√c").hypotheses)))(_face_chain())),
          twin_of="gap.face_algebra", expect_reason="does not follow from the steps"),
    # chains: the paths whose honest answer is "don't know"
    claim("gap.twin.superadditive_vacuous_premises",
          "gap.superadditive with the premise c1 + c2 < 0 added (no point satisfies them)",
          "chain", CHAIN,
          chain_check(_super_planted(lambda c: c.with_premise(_r("c1") + _r("c2") < 0))),
          twin_of=_SUPER, expect="undecided", expect_reason="vacuous: the chain's premises"),
    claim("gap.twin.superadditive_vacuous_step",
          "gap.superadditive with an extra step whose hypotheses d ≥ 1 and d < 1 contradict",
          "chain", CHAIN, chain_check(_super_planted(lambda c: c.with_step(Step(
              "d ≥ 5", _r("d") >= 5, (_r("d") >= 1, _r("d") < 1))))),
          twin_of=_SUPER, expect="undecided", expect_reason="vacuous step 'd ≥ 5'"),
    claim("gap.twin.superadditive_redundant_step",
          "gap.superadditive with an extra step e ≥ 1 ⇒ e ≥ 0 the conclusion does not use",
          "chain", CHAIN, chain_check(_super_planted(lambda c: c.with_step(Step(
              "e ≥ 0", _r("e") >= 0, (_r("e") >= 1,))))),
          twin_of=_SUPER, expect="undecided", expect_reason="redundant step 'e ≥ 0'"),
    claim("gap.twin.superadditive_step_unknown",
          "gap.superadditive with a solver that answers unknown on the step √c1 ≤ √(c1+c2)",
          "chain", CHAIN, chain_check(_superadditive_chain,
                                      lambda c: unknown_for("√c1 ≤ √(c1+c2)", c)),
          twin_of=_SUPER, expect="undecided",
          expect_reason="step '√c1 ≤ √(c1+c2)': z3 returned unknown"),
    claim("gap.twin.superadditive_composition_unknown",
          "gap.superadditive with a solver that answers unknown on the composition",
          "chain", CHAIN, chain_check(_superadditive_chain,
                                      lambda c: unknown_for("composition", c)),
          twin_of=_SUPER, expect="undecided", expect_reason="composition: z3 returned unknown"),
    # the integer cap against the proof (issue 20: both mutants left every claim Proved)
    claim("gap.twin.cap_divided_by_3",
          "segment_product_cap divided by 3 (the backward bound at n = 4096, d = 64, M = 1024 "
          "rises from 43,829,248 to 94,789,632)", "cap vs proved cell bounds", EXACT,
          lambda ctx: _segment_cap_check(ctx, cap=_cap_over_3), twin_of="gap.segment_cap",
          expect_reason="below a proved cell bound"),
    claim("gap.twin.cap_inflated",
          "segment_product_cap + 3√2·M^1.5 (not the proved cap; it weakens every route)",
          "cap vs proved cell bounds", EXACT,
          lambda ctx: _segment_cap_check(ctx, cap=_cap_inflated), twin_of="gap.segment_cap",
          expect_reason="more than 2 above"),
    claim("gap.twin.cap_cells_short",
          "the cap's cells with the last one dropped (F unbounded near s = M + L)",
          "cells cover [0, S]", EXACT,
          lambda ctx: _segment_cap_check(ctx, cells=_cells_short), twin_of="gap.segment_cap",
          expect_reason="do not cover"),
    claim("gap.twin.cap_without_partial_pairs",
          "a model without partial pairs: cell bound s1²/(4d), cap ⌈s1²/(4d)⌉ (consistent with "
          "each other, so only the brute force can see it)", "cap vs brute force", EXACT,
          lambda ctx: _segment_cap_check(ctx, cap=_cap_full_pairs_only, partial=False),
          twin_of="gap.segment_cap", expect_reason="brute-force maximum"),
    claim("gap.twin.route_without_last_segment",
          "segment route L·⌈N/cap⌉ (the − 1 for the last, shorter segment dropped)",
          "route vs its cap", EXACT,
          lambda ctx: _segment_route_check(ctx, route=_route_ceiling_only),
          twin_of="gap.segment_route", expect_reason="above L(⌈N/cap⌉ − 1)"),
    claim("gap.twin.route_first_length_only",
          "segment route evaluated at L = M only", "route vs its cap", EXACT,
          lambda ctx: _segment_route_check(ctx, route=_route_first_L),
          twin_of="gap.segment_route", expect_reason="not the maximum"),
    claim("gap.twin.route_unchecked_length",
          "segment route at L = 7M, a length gap.segment_cap does not check", "route vs its cap",
          EXACT, lambda ctx: _segment_route_check(ctx, route=_route_L7),
          twin_of="gap.segment_route", expect_reason="not a segment length"),
    claim("gap.twin.route_cap_inflated",
          "segment route with the cap + 3√2·M^1.5 (its small-cache shape is lost)",
          "cap at 4M vs closed form", EXACT,
          lambda ctx: _segment_route_check(ctx, cap=_cap_inflated),
          twin_of="gap.segment_route", expect_reason="small-cache closed form"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
