r"""Claims of the multi-level memory (:mod:`attnio.algorithms.hierarchy`; the heads claims
moved to :mod:`attnio.proofs.stacked_heads` in issue 21).

* ``hierarchy.boundary_lower_bound`` (RECONSTRUCTED, our reduction). Hypotheses: a hierarchy
  of levels :math:`0..k`, fastest first, bounded capacities :math:`c_0, \dots, c_{k-1}` words,
  level :math:`k` unbounded; arithmetic only in level 0; inputs start and outputs end in
  level :math:`k`; a word occupies capacity in every level holding a copy. Claim: every
  schedule moves at least :math:`LB(M_i)` words across boundary :math:`i`, where
  :math:`M_i = c_0 + \dots + c_i` and :math:`LB` is the two-level explicit bound
  (:func:`attnio.bounds.attention.best_lower_bound`). Proof: merge levels :math:`0..i` into
  one fast memory of :math:`M_i` words and the rest into one slow memory; every move across
  the boundary is a read or write of a red-blue schedule with :math:`M_i` red pebbles, every
  other move is free, so the two-level bound applies. With heads, LB is the stacked bound of
  :mod:`attnio.proofs.stacked_heads` at :math:`M_i`. What the machine checks (each can fail):
  (1) *the reduction, executed*: random complete multi-level schedules (copies moved up and
  down one boundary at a time, random evictions, capacities enforced per level) on small
  DAGs of :mod:`attnio.graphs.dags` (matmul, attention forward and backward), projected at
  every boundary (red = a copy in some level ≤ i; a move up across boundary i is a read
  unless already red, a move down across it a write, the last copy above it deleted a
  delete), replay as legal red-blue schedules with :math:`M_i` red pebbles in the independent
  validator :func:`attnio.graphs.game.validate`, with I/O ≤ the words moved across boundary
  i; (2) at every boundary of a grid of hierarchies, the bound is at most the words every
  algorithm moves there (closed form at n = 4096, d = 64, one head and H = 32, G = 8;
  executed on small sizes). The step "two-level bound ⇒ every schedule" is the two-level
  theorem, proved by the claims of :mod:`attnio.proofs.attention_routes` and
  :mod:`attnio.proofs.stacked_heads`.
* (``hierarchy.one_bounded_level`` was removed, issue 20: it compared ``hierarchy_counts``
  with the very functions it calls, so it could not fail — it is a consistency test,
  ``tests/algorithms/test_hierarchy.py::test_one_bounded_level_is_the_two_level_model``.)
* (``heads.group_lower_bound`` was replaced in issue 21: it was B·G × one head's bound, missing
  the Q, O, dO, dQ traffic of the other query heads of a group, and its check only compared it
  with attnio's own algorithms. The stacked-head bound and its claims
  ``heads.stacked_compulsory`` and ``heads.stacked_segment`` are in
  :mod:`attnio.proofs.stacked_heads`; the boundary bound with heads is that bound at
  :math:`M_i`.)

Evidence: exhaustive, with the (boundary or size, algorithm) comparisons as instances; an
instance is non-trivial when its bound is positive (a bound of 0 cannot exceed a count).

Checkers and their failure paths, each with a false twin: ``_boundary_check`` — a bound above
the words moved (``hierarchy.twin.fastest_level_everywhere``: the bound at every boundary
taken with the fastest level's capacity alone; inner levels do not bound outer traffic);
``_reduction_check`` — a projection that is no legal schedule with the claimed red pebbles
(``hierarchy.twin.own_level_capacity``: boundary i's traffic as a schedule with level i's own
capacity :math:`c_i` — refuted by the validator's red limit, since copies above level i count
too).
Where no comparison is
non-trivial the registry reports the claim Undecided (``attnio.proofs.registry``).
"""

from __future__ import annotations

from typing import Any, Callable

from attnio.algorithms.hierarchy import Hierarchy
from attnio.algorithms.registry import selection
from attnio.bounds.hierarchy import boundary_lower_bound, hierarchy_counts
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.game import game_inputs, game_outputs, validate
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS"]

_SRC = ("attnio (reduction to Hong & Kung 1981's two-level red-blue game; bounds of "
        "attnio.bounds.attention); issue 16")

#: (pass, n, d, levels in words) checked by the boundary claim (closed form).
_GRID_COUNT = [(p, 4096, 64, levels) for p in ("forward", "backward")
               for levels in ((512, 65536), (2048, 16384, 2**20), (8192, 262144))]
#: (batch, heads, kv_heads) of the closed-form grid: one head, and 32 query heads in 8 groups.
_HEADS = [(1, 1, 1), (1, 32, 8)]
#: (pass, n, d, levels) executed on small sizes.
_GRID_EXEC = [(p, 32, 4, (48, 512)) for p in ("forward", "backward")]


def _algorithms(pass_: str, selection_name: str = "gap") -> tuple[str, ...]:
    """The registry's selection (``gap``: one schedule per computation; ``levels``: plus the
    grouped-query order)."""

    return selection(selection_name, pass_)


def _hierarchy(levels: tuple[int, ...]):

    rows = [(f"L{i}", c, None) for i, c in enumerate(levels)] + [("slow", None, 10**12)]
    return Hierarchy.from_words(rows)


def _boundary_check(ctx: CheckContext, *, bound_M: Callable[[list[int]], list[int]] | None = None
                    ) -> Verdict:

    checked = nontrivial = 0
    cases = [(row, False, shape) for row in _GRID_COUNT for shape in _HEADS] + [
        (row, True, (1, 1, 1)) for row in _GRID_EXEC]
    for (pass_, n, d, levels), execute, (B, H, G) in cases:
        h = _hierarchy(levels)
        Ms = [b.M for b in h.boundaries()]
        bound_Ms = bound_M(list(levels)) if bound_M else Ms
        for alg in _algorithms(pass_, "gap" if H == 1 else "levels"):
            rows = hierarchy_counts(alg, pass_, n, d, h, execute=execute, batch=B,
                                    heads=H, kv_heads=G)
            for row, Mb in zip(rows, bound_Ms):
                if row["words"] is None:
                    continue
                lower, route = boundary_lower_bound(pass_, n, d, Mb, batch=B, heads=H,
                                                    kv_heads=G)
                checked += 1
                nontrivial += lower > 0
                if lower > row["words"]:
                    return Refuted({"pass": pass_, "n": n, "d": d, "levels": list(levels),
                                    "boundary": row["boundary"], "M_i": row["M"],
                                    "bound_M": Mb, "bound": lower, "route": route,
                                    "algorithm": alg, "words": row["words"],
                                    "executed": execute, "heads": [B, H, G]},
                                   "a boundary's lower bound exceeds the words an algorithm "
                                   "moves across it")
    return Proved(f"{checked} (boundary, algorithm) comparisons, exact integers",
                  evidence=Evidence.exhaustive(checked, nontrivial))


# --- the reduction, executed ------------------------------------------------------------------
#
# A multi-level schedule (levels 0..k, level k unbounded) is a list of moves
# ("up", v, i): copy v from level i + 1 into level i (traffic across boundary i);
# ("down", v, i): copy v from level i into level i + 1 (traffic across boundary i);
# ("delete", v, i): drop v's copy in level i; ("compute", v): v into level 0, every
# predecessor having a copy in level 0. Inputs start in level k, outputs must end there, every
# copy occupies capacity in its level. _project turns it into a red-blue move list at boundary
# i (red = a copy in some level ≤ i), which graphs.game.validate replays with M_i red pebbles.


def _random_multilevel_schedule(G, caps: tuple[int, ...], seed: int) -> list[tuple]:
    """A complete, legal multi-level schedule of ``G`` with random evictions (capacities
    ``caps`` of levels 0..k−1; level k = len(caps) unbounded). Raises AssertionError if it
    breaks its own rules (a generator bug, not a verdict)."""
    import random

    import networkx as nx

    rng = random.Random(seed)
    k = len(caps)
    outputs = set(game_outputs(G))
    where: dict = {v: set() for v in G}
    for v in game_inputs(G):
        where[v].add(k)
    used = [0] * (k + 1)
    uses = {v: G.out_degree(v) for v in G}
    moves: list[tuple] = []

    def add(v, lvl: int) -> None:
        assert lvl not in where[v] and (lvl == k or used[lvl] < caps[lvl])
        where[v].add(lvl)
        used[lvl] += 1

    def drop(v, lvl: int) -> None:
        where[v].discard(lvl)
        used[lvl] -= 1
        moves.append(("delete", v, lvl))

    def needed(v) -> bool:
        return uses[v] > 0 or (v in outputs and k not in where[v])

    def room(lvl: int, protect: set) -> None:
        while lvl < k and used[lvl] >= caps[lvl]:
            victims = sorted((u for u in G if lvl in where[u] and u not in protect), key=str)
            u = rng.choice(victims)
            if needed(u) and not any(j > lvl for j in where[u]):
                room(lvl + 1, protect | {u})
                moves.append(("down", u, lvl))
                add(u, lvl + 1)
            drop(u, lvl)

    for v in nx.topological_sort(G):
        if G.in_degree(v) == 0:
            continue
        preds = list(G.predecessors(v))
        protect = set(preds) | {v}
        for p in preds:
            for lvl in range(min(where[p]) - 1, -1, -1):
                room(lvl, protect)
                moves.append(("up", p, lvl))
                add(p, lvl)
        if 0 not in where[v]:
            room(0, protect)
            add(v, 0)
        moves.append(("compute", v))
        for p in preds:
            uses[p] -= 1
        for u in sorted((u for u in G if where[u] and not needed(u) and rng.random() < 0.5),
                        key=str):
            for lvl in sorted(j for j in where[u] if j < k):
                drop(u, lvl)
    for o in sorted(outputs, key=str):
        for lvl in range(min(where[o]), k):
            if lvl + 1 not in where[o]:
                room(lvl + 1, {o})
                moves.append(("down", o, lvl))
                add(o, lvl + 1)
    return moves


def _project(G, moves: list[tuple], k: int, i: int) -> tuple[list[tuple[str, str]], int]:
    """The red-blue moves at boundary i (levels ≤ i merged into red, > i into blue) and the
    words moved across boundary i."""

    where: dict = {v: set() for v in G}
    for v in game_inputs(G):
        where[v].add(k)
    out: list[tuple[str, str]] = []
    traffic = 0
    for move in moves:
        kind, v = move[0], move[1]
        red = any(j <= i for j in where[v])
        if kind == "compute":
            where[v].add(0)
            out.append(("compute", v))
        elif kind == "up":
            lvl = move[2]
            if lvl == i:
                traffic += 1
                if not red:
                    out.append(("read", v))
            where[v].add(lvl)
        elif kind == "down":
            lvl = move[2]
            if lvl == i:
                traffic += 1
                out.append(("write", v))
            where[v].add(lvl + 1)
        else:
            where[v].discard(move[2])
            if red and not any(j <= i for j in where[v]):
                out.append(("delete", v))
    return out, traffic


#: (DAG, level capacities, seeds) of the executed reduction.
_REDUCTION_GRID = [(("matmul", 2, 2, 2), (5, 6, 8)), (("attention-forward", 2, 1), (5, 7)),
                   (("attention-backward", 2, 1), (6, 6, 9)), (("matmul", 3, 2, 2), (6, 9))]
_SEEDS = range(6)


def _dag(spec: tuple):

    builders: dict[str, Callable[..., Any]] = {
        "matmul": matmul_dag, "attention-forward": attention_forward_dag,
        "attention-backward": attention_backward_dag}
    return builders[spec[0]](*spec[1:])


def _reduction_check(ctx: CheckContext, *,
                     capacity: Callable[[tuple[int, ...], int], int] | None = None) -> Verdict:
    """Every projection of random multi-level schedules is a legal red-blue schedule with
    M_i = c_0 + … + c_i red pebbles (replayed by graphs.game.validate) whose I/O is at most
    the words moved across boundary i. ``capacity(caps, i)`` replaces M_i (false twins)."""

    checked = nontrivial = 0
    for spec, caps in _REDUCTION_GRID:
        G = _dag(spec)
        for seed in _SEEDS:
            moves = _random_multilevel_schedule(G, caps, seed)
            for i in range(len(caps)):
                M_i = capacity(caps, i) if capacity else sum(caps[:i + 1])
                proj, traffic = _project(G, moves, len(caps), i)
                verdict = validate(G, proj, M_i)
                checked += 1
                io = sum(1 for kind, _ in proj if kind in ("read", "write"))
                nontrivial += io > 0
                if not verdict.proved:
                    return Refuted({"dag": list(spec), "levels": list(caps), "seed": seed,
                                    "boundary": i, "M": M_i,
                                    "illegal": getattr(verdict, "counterexample", None)},
                                   "a projected schedule is not a legal red-blue schedule "
                                   "with M_i red pebbles")
                if io > traffic:
                    return Refuted({"dag": list(spec), "levels": list(caps), "seed": seed,
                                    "boundary": i, "io": io, "traffic": traffic},
                                   "a projection moves more words than cross the boundary")
    return Proved(f"{checked} projected schedules legal with M_i red pebbles, I/O ≤ traffic",
                  evidence=Evidence.exhaustive(checked, nontrivial))


def _both_checks(ctx: CheckContext) -> Verdict:
    first = _reduction_check(ctx)
    if not first.proved:
        return first
    second = _boundary_check(ctx)
    if not second.proved:
        return second
    counts = [(v.evidence.instances or 0, v.evidence.nontrivial_instances or 0)
              if v.evidence is not None else (0, 0) for v in (first, second)]
    return Proved(f"reduction: {first.detail}; bound: {second.detail}",
                  evidence=Evidence.exhaustive(sum(c[0] for c in counts),
                                               sum(c[1] for c in counts)))


def _claim(id: str, statement: str, formal: str, check, *, reconstructed: bool = True,
           twin_of: str | None = None) -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC,
                 method="exact enumeration", family="hierarchy", check_fn=check,
                 reconstructed=reconstructed, twin_of=twin_of, evidence_kind="exhaustive")


CLAIMS: list[Claim] = [
    _claim("hierarchy.boundary_lower_bound",
           "traffic across boundary i ≥ LB(M_i), M_i = c_0 + … + c_i (compute in level 0; "
           "inputs/outputs in the unbounded level; copies occupy capacity)",
           "projections of random multi-level schedules replay as red-blue schedules with M_i "
           "red pebbles and I/O ≤ boundary traffic (graphs.game.validate); LB(M_i) ≤ words of "
           "every algorithm at boundary i (with heads: the stacked bound), exact ints",
           _both_checks),
]

FALSE_TWINS: list[Claim] = [
    _claim("hierarchy.twin.fastest_level_everywhere",
           "traffic across every boundary ≥ LB(c_0) (the fastest level bounds all traffic)",
           "LB(c_0) ≤ words at every boundary",
           lambda ctx: _boundary_check(ctx, bound_M=lambda levels: [levels[0]] * len(levels)),
           twin_of="hierarchy.boundary_lower_bound"),
    _claim("hierarchy.twin.own_level_capacity",
           "traffic across boundary i is a red-blue schedule with c_i red pebbles (level i's "
           "own capacity, not c_0 + … + c_i)",
           "projection replays with c_i red pebbles",
           lambda ctx: _reduction_check(ctx, capacity=lambda caps, i: caps[i]),
           twin_of="hierarchy.boundary_lower_bound"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
