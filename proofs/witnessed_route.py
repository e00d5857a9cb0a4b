r"""The claim behind the witnessed given-scores route of :mod:`attnio.bounds.attention`
(issue 26, item 1): :func:`attnio.bounds.attention.witnessed_routes` charges :math:`dS\,K`
beside :math:`dO\,V^\top` for the given-scores class.

``gap.witnessed_route`` checks, exactly on a grid, that the route's cap — the segment cap with
partial depth :math:`k = n - 1` (a partial pair of the :math:`n`-inner :math:`dS\,K` holds up
to :math:`n - 1` leaves) — lies between the proved cell bounds with that :math:`k` and 2 above
(``gap.face_algebra``, ``gap.cell_bound`` and ``gap.superadditive`` are proved for any
:math:`k \ge 0`), and that the route is :math:`\max_L L(\lceil 2n^2d/cap(L)\rceil - 1)` (and
that + 4nd). The witness lemma (each :math:`dS_{ij}` red in a segment has a vertex of its private
chain red at the start or read) is argued in the route's docstring and notes/gap.md, and
``gap.witness_lemma`` checks it exhaustively on the smallest DAG of its shape (every legal
schedule prefix by the game's validator, every segment); ``gap.below_algorithms`` compares the
route with every given-scores algorithm's exact count. False twins: the cap of partial depth
:math:`d - 1` (too small for the :math:`n`-inner product), the chain without its middle vertex.
"""

from __future__ import annotations

from typing import Callable, Sequence

import networkx as nx

from attnio.bounds.attention import (
    SEGMENT_MULTIPLES,
    segment_cells,
    segment_product_cap,
    witnessed_routes,
)
from attnio.exceptions import IllegalMoveError
from attnio.graphs.game import replay
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


def witness_dag() -> nx.DiGraph:
    """The smallest DAG with the shape of the lemma: the given score A and a row statistic L
    give P = A/L; P and X (the rest of dS's inputs) give dS, the output here."""
    G = nx.DiGraph([("A", "P"), ("L", "P"), ("P", "dS"), ("X", "dS")])
    G.graph["outputs"] = ["dS"]
    return G


def _legal(G: nx.DiGraph, moves: list, M: int) -> bool:
    """A legal prefix of a schedule, by the game's own validator (attnio.graphs.game.replay):
    every move legal; only the final 'outputs end blue' rule may be unmet."""
    try:
        replay(G, moves, M)
    except IllegalMoveError as err:
        return err.rule == "outputs-blue" and err.index == len(moves)
    return True


def _witness_lemma_check(ctx: CheckContext, *, chain: Sequence[str] = ("A", "P", "dS"),
                         depth: int = 6, M: int = 4) -> Verdict:
    r"""The witness lemma, exhaustively on :func:`witness_dag`: for every legal move sequence
    of at most ``depth`` moves with ``M`` red pebbles (legality by the game's validator) and
    every segment of it ending at its last move, if ``chain[-1]`` (dS) is red at some time in
    the segment, some vertex of ``chain`` is red at the segment's start or read in it. The
    twin drops P from the chain (A, dS): P red at the start of a segment that computes dS
    refutes it."""
    G = witness_dag()
    target, members = chain[-1], set(chain)
    kinds = ("read", "write", "compute", "delete")
    checked = nontrivial = 0
    stack: list[list[tuple[str, str]]] = [[]]
    while stack:
        moves = stack.pop()
        red_sets: list[frozenset[str]] = [frozenset()]  # before each move, then after the last
        red: set[str] = set()
        for kind, v in moves:
            if kind in ("read", "compute"):
                red.add(v)
            elif kind == "delete":
                red.discard(v)
            red_sets.append(frozenset(red))
        for start in range(len(moves)):
            checked += 1
            segment = moves[start:]
            if not any(target in r for r in red_sets[start:]):
                continue
            nontrivial += 1
            if members & red_sets[start] or any(k == "read" and v in members
                                               for k, v in segment):
                continue
            return Refuted({"moves": moves, "segment_start": start, "chain": list(chain)},
                           f"{target} is red in the segment from move {start}, yet no vertex "
                           f"of {list(chain)} was red at its start or read in it")
        if len(moves) < depth:
            for v in sorted(G):
                for kind in kinds:
                    extended = moves + [(kind, v)]
                    if _legal(G, extended, M):
                        stack.append(extended)
    return Proved(f"{checked} (schedule prefix, segment) pairs of ≤ {depth} moves, M = {M}: "
                  f"{nontrivial} with {target} red in the segment, each witnessed",
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=nontrivial))


CLAIMS: list[Claim] = [
    _claim("gap.witness_lemma",
           "witness lemma of the witnessed route: on a DAG with the chain A → P → dS (P = A/L, "
           "dS from P and X), in every legal schedule prefix of ≤ 6 moves with M = 4 and every "
           "segment of it, if dS is red at some time in the segment then A, P or dS is red at "
           "the segment's start or read in it",
           "exhaustive over move sequences; legality by attnio.graphs.game.replay", _EXACT,
           _witness_lemma_check),
    _claim("gap.witnessed_route",
           "given-scores class (each dS_ij has a private chain to the given entry (i, j); "
           "witness lemma in notes/gap.md, claim gap.witness_lemma): Q ≥ max over L = t·M "
           "of L(⌈2n²d/F_(n−1)(L)⌉ − 1) (+ 4nd) — dO·Vᵀ and dS·K share one budget; the cap "
           "of partial depth n − 1 checked against the proved cell bounds, the route's value "
           "recomputed",
           "exact ints on a grid (n ≤ 4096, d ≤ 64, M ≤ 8192, L = t·M)", _EXACT,
           _witnessed_check),
]

FALSE_TWINS: list[Claim] = [
    _claim("gap.twin.witness_chain_without_P",
           "the witness lemma with P dropped from the chain (A, dS): a chain whose middle vertex "
           "is missing", "exhaustive over move sequences", _EXACT,
           lambda ctx: _witness_lemma_check(ctx, chain=("A", "dS")),
           twin_of="gap.witness_lemma", expect_reason="yet no vertex"),
    _claim("gap.twin.witnessed_narrow_cap",
           "the witnessed route with the cap of partial depth d − 1 (a partial pair of dS·K "
           "holds up to n − 1 leaves, not d − 1)", "cap vs proved cell bounds", _EXACT,
           lambda ctx: _witnessed_check(ctx, cap_for=lambda n, d: segment_product_cap),
           twin_of="gap.witnessed_route", expect_reason="below a proved cell bound"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
