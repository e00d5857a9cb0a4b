r"""Route 6 of :mod:`attnio.graphs.lower_bounds`: an exact sub-DAG plus the moves outside it,
with its checker.

Notation as in :mod:`attnio.graphs.lower_bounds`; the moves outside H are counted with route 4
(:mod:`attnio.graphs.lower_bounds.windows`).

Route
-----
``sub-dag-exact`` (new; attnio): for the ancestral closure H of a set of outputs, the moves of
any complete schedule on H form a complete schedule of H (the exact solver's reduction R4), so

.. math:: Q(G, M) \ge Q(H, M) + W_{\notin H} + F_{\notin H} + |O^\ast \setminus H|,

with route 4 counting only moves on vertices outside H. :math:`Q(H, M)` comes from
the engine slot (:func:`attnio.graphs.engines.solve`, ``method="auto"``: the compiled core when
numba is installed, else :func:`attnio.graphs.exact.solve_optimal`) and its checker re-solves it
with the plain baseline (:func:`attnio.graphs.baseline.plain_optimal`), an independent engine. When H = G this *is* the exact optimum.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Iterator

import networkx as nx

from attnio.graphs.game import game_inputs, game_outputs, validate_cache_size
from attnio.graphs.indexed_dag import relevant_vertices
from attnio.graphs.lower_bounds.deadline import Deadline, TimeLimitReached, as_deadline
from attnio.graphs.lower_bounds.records import (
    BoundRecord,
    Route,
    must_compute,
    vertices_to_compute,
)
from attnio.graphs.lower_bounds.windows import (
    MAX_WINDOW_VERTICES,
    forced_spill_sets,
    independent_window_min,
    verify_forced,
    window_reads_min,
    window_slack,
)
from attnio.results import Proved, Refuted, Status, Verdict

__all__ = ["subdag_exact_bound", "check_subdag", "resolve_for_checker", "ancestor_subdag",
           "outside_moves", "solved_subdags", "MAX_SUBDAG_VERTICES", "SUB_DAG_EXACT", "ROUTES"]


# --------------------------------------------------------------------------------------------
# Route 6: an exact sub-DAG plus the moves outside it
# --------------------------------------------------------------------------------------------

#: Most vertices of the sub-DAG H solved exactly (its certificate is re-solved by the plain
#: baseline, graphs/baseline.py, which must stay fast).
MAX_SUBDAG_VERTICES = 15


def _closure(G: nx.DiGraph, outs: Iterable[str]) -> frozenset[str]:
    return frozenset(relevant_vertices(G, list(outs)))


def solve_subdag(H: nx.DiGraph, M: int, seconds: float | None) -> Any:
    """Q(H, M) by the engine slot's ``auto`` method (compiled when numba is installed), with
    no progress bar (a route runs inside a command's own status line)."""
    from attnio.graphs.engines import resolve_method, solve

    quiet: dict[str, Any] = ({"progress": False} if "progress" in resolve_method("auto").options()
                             else {})
    return solve(H, M, time_limit=seconds, **quiet)


def solved_subdags(G: nx.DiGraph, M: int, candidates: Iterable[list[str]], seconds: float,
                   deadline: Deadline) -> Iterator[tuple[list[str], nx.DiGraph, Any]]:
    """``(outputs T, H_T, optimal result)`` for each candidate set of outputs whose ancestral
    closure H_T has a schedule with M pebbles and is solved exactly within ``seconds`` (or the
    time left); a closure the engine does not settle is skipped. Past ``deadline``:
    :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached` (the caller keeps what it
    has). Routes 6 and 7 share it."""
    from attnio.graphs.exact import min_cache_size

    for chosen in candidates:
        H = ancestor_subdag(G, chosen)
        if M < min_cache_size(H):
            continue
        deadline.check()
        res = solve_subdag(H, M, deadline.seconds(seconds))
        if res.verdict is Status.OPTIMAL:
            yield chosen, H, res
        else:
            deadline.check()  # cut by the deadline: stop; else the next candidate


def ancestor_subdag(G: nx.DiGraph, outs: list[str]) -> nx.DiGraph:
    H = G.subgraph(_closure(G, outs)).copy()
    H.graph = {"outputs": list(outs)}
    return H


def outside_moves(G: nx.DiGraph, M: int, H: frozenset[str],
                   deadline: Deadline | None = None) -> dict[str, Any]:
    """Lower bounds on the moves on vertices outside H: input reads (windows counting inputs
    outside H), forced spills with T outside H, and writes of outputs outside H."""
    dl = as_deadline(deadline)
    inputs, outs, N, need = must_compute(G)
    uncounted = frozenset(inputs & H)
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    rank = {v: i for i, v in enumerate(order)}
    counted = [v for v in order if any(u in inputs and u not in H for u in G.predecessors(v))]
    counted_set = set(counted)
    tight = [v for v in order if v not in counted_set and window_slack(G, v, M) == 0
             and not any(u in inputs and u not in H for u in G.predecessors(v))]
    limit = MAX_WINDOW_VERTICES
    while True:
        ranked = set((sorted(counted, key=lambda v: (window_slack(G, v, M), rank[v]))
                      + tight)[:limit])
        U = [v for v in order if v in ranked]
        got = window_reads_min(G, U, M, uncounted=uncounted, deadline=dl)
        if got is not None:
            break
        limit -= 2
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered - H)
    family = forced_spill_sets(G, M, exclude=H, deadline=dl)
    writes = sorted(o for o in outs if o not in H)
    return {"U": U, "window_reads": got[0], "inputs_outside": outside,
            "forced_sets": family, "forced_moves": sum(t["charge"] for t in family),
            "output_writes_outside": writes}


def _candidate_output_sets(G: nx.DiGraph, outs: list[str], limit: int,
                           max_candidates: int,
                           deadline: Deadline | None = None) -> list[list[str]]:
    """Maximal sets of outputs whose ancestral closure has at most ``limit`` vertices."""
    dl = as_deadline(deadline)
    fits: list[tuple[int, list[str]]] = []
    if len(outs) <= 10:
        for r in range(len(outs), 0, -1):
            for combo in itertools.combinations(outs, r):
                dl.check()
                size = len(_closure(G, combo))
                if size <= limit and not any(set(combo) < set(f) for _, f in fits):
                    fits.append((size, list(combo)))
    else:  # greedy: grow from each output in turn
        for start in outs[:max_candidates]:
            chosen = [start]
            for o in outs:
                dl.check()
                if o not in chosen and len(_closure(G, chosen + [o])) <= limit:
                    chosen.append(o)
            if len(_closure(G, chosen)) <= limit:
                fits.append((len(_closure(G, chosen)), chosen))
    fits.sort(key=lambda t: -t[0])
    return [f for _, f in fits[:max_candidates]]


def subdag_exact_bound(G: nx.DiGraph, M: int, *, max_vertices: int = MAX_SUBDAG_VERTICES,
                       time_limit: float = 5.0, max_candidates: int = 4,
                       deadline: Deadline | None = None) -> BoundRecord:
    """``Q(H, M) + (moves outside H)`` for the best ancestral sub-DAG H found (route 6).

    Each exact solve gets ``time_limit`` seconds or the time left before ``deadline``; past
    the deadline with no H solved: :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached`
    (with one solved, the best so far is returned).

    >>> from attnio.graphs.dags import attention_forward_dag
    >>> r = subdag_exact_bound(attention_forward_dag(2, 1), 4)     # exact optimum 15
    >>> r.value, r.certificate["H_outputs"], r.certificate["Q_H"]
    (10, ['O[0,0]'], 8)
    """
    validate_cache_size(M)
    dl = as_deadline(deadline)
    inputs, outs, N, need = must_compute(G)
    best: BoundRecord | None = None
    candidates = _candidate_output_sets(G, outs, max_vertices, max_candidates, dl)
    try:
        for chosen, H, res in solved_subdags(G, M, candidates, time_limit, dl):
            rest = outside_moves(G, M, frozenset(H), dl)
            value = (res.io + rest["window_reads"] + len(rest["inputs_outside"])
                     + rest["forced_moves"] + len(rest["output_writes_outside"]))
            if best is None or value > best.value:
                cert = {"H_outputs": chosen, "H_vertices": H.number_of_nodes(),
                        "Q_H": res.io, **rest}
                best = BoundRecord("sub-dag-exact", value, True, None, cert)
    except TimeLimitReached:
        if best is None:
            raise
    if best is None:
        return BoundRecord("sub-dag-exact", 0, False,
                           f"no output set with an ancestral closure of ≤ {max_vertices} "
                           f"vertices solved exactly within {time_limit} s", {})
    return best


def resolve_for_checker(G: nx.DiGraph, M: int, chosen: list[str], outs: list[str],
                        max_vertices: int, deadline: Deadline) -> tuple[nx.DiGraph, Any] | Refuted:
    """For the checkers of routes 6 and 7: ``(H_T, the plain baseline's optimal result)`` for
    a claimed set T of outputs, or Refuted (past ``deadline``:
    :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached`, i.e. undecided, never a
    pass).

    Side conditions
    ---------------
    1. ``outputs-nonempty``: T names at least one vertex.
    2. ``outputs-are-non-input-outputs``: every vertex of T is in ``outs`` (the non-input
       outputs of G).
    3. ``size``: H_T has at most ``max_vertices`` vertices.
    4. ``settled``: the plain baseline settles Q(H_T, M) (optimal) within its budget.
    """
    from attnio.graphs.baseline import plain_optimal

    if not chosen or any(o not in outs for o in chosen):
        return Refuted({"H_outputs": chosen}, "H's outputs must be non-input outputs of G")
    H = ancestor_subdag(G, chosen)
    if H.number_of_nodes() > max_vertices:
        return Refuted({"H_vertices": H.number_of_nodes()}, "H too large to re-solve")
    deadline.check()
    plain = plain_optimal(H, M, time_limit=deadline.seconds(120), max_states=3_000_000)
    if plain.verdict is not Status.OPTIMAL:
        deadline.check()
        return Refuted({"H_outputs": chosen}, f"the plain baseline does not settle Q(H): "
                                              f"{plain.verdict}")
    return H, plain


def check_subdag(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                 deadline: Deadline | None = None,
                 timeout_ms: int | None = None) -> Verdict:
    r"""Re-verify a ``sub-dag-exact`` certificate from G (module docstring, route 6): Q(H) is
    re-solved by the plain baseline, the moves outside H are recounted.

    Side conditions
    ---------------
    1. ``h-outputs``: ``H_outputs`` passes :func:`resolve_for_checker` (a non-empty set of
       non-input outputs whose closure H has at most 2·:data:`MAX_SUBDAG_VERTICES` vertices
       and an optimum the plain baseline settles).
    2. ``q-h``: ``Q_H`` is the plain baseline's Q(H, M).
    3. ``u-must-compute``: every vertex of U is in N.
    4. ``window-minimum``: ``window_reads`` is the window minimum over U with the inputs in H
       not counted (they are H's moves), recomputed.
    5. ``outside-is-input``: every vertex of ``inputs_outside`` is an input.
    6. ``outside-not-covered``: none of them is a predecessor of a vertex of U.
    7. ``outside-not-in-h``: none of them is in H (its read is one of H's moves).
    8. ``outside-is-needed``: each of them has a successor in N.
    9. ``outside-distinct``: none of them is listed twice.
    10. ``forced-family``: ``forced_sets`` passes
        :func:`~attnio.graphs.lower_bounds.windows.verify_forced` with no member in H.
    11. ``writes-are-outputs``: every vertex of ``output_writes_outside`` is a non-input output.
    12. ``writes-outside-h``: none of them is in H (its write is one of H's moves).
    13. ``writes-distinct``: none of them is listed twice.
    14. ``value-is-sum``: value = Q(H) + window reads + |inputs outside| + forced charges +
        |output writes outside|.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> check_subdag(G, 3, subdag_exact_bound(G, 3)).proved
    True
    """
    dl = as_deadline(deadline)
    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    computed = vertices_to_compute(G, outs, inputs)
    cert = rec.certificate
    chosen = list(cert["H_outputs"])
    resolved = resolve_for_checker(G, M, chosen, outs, 2 * MAX_SUBDAG_VERTICES, dl)
    if isinstance(resolved, Refuted):
        return resolved
    H, plain = resolved
    if plain.io != cert["Q_H"]:
        return Refuted({"claimed": cert["Q_H"], "plain": plain.io},
                       f"Q(H) re-solved by the plain baseline is {plain.io}")
    Hset = frozenset(H)
    U = list(cert["U"])
    for v in U:
        if v not in computed:
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    window = independent_window_min(G, U, M, uncounted=frozenset(inputs & Hset),
                                    deadline=dl)
    if window != cert["window_reads"]:
        return Refuted({"claimed": cert["window_reads"], "recomputed": window},
                       "window minimum differs")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = cert["inputs_outside"]
    if len(set(outside)) != len(outside) or any(
            x not in inputs or x in covered or x in Hset
            or not any(s in computed for s in G.successors(x)) for x in outside):
        return Refuted({"inputs_outside": outside}, "not distinct needed inputs outside H, U")
    forced = verify_forced(G, M, cert["forced_sets"], set(outs), inputs, exclude=Hset,
                           deadline=dl)
    if isinstance(forced, Refuted):
        return forced
    writes = cert["output_writes_outside"]
    if len(set(writes)) != len(writes) or any(o not in outs or o in Hset for o in writes):
        return Refuted({"writes": writes}, "not distinct non-input outputs outside H")
    total = plain.io + window + len(outside) + forced + len(writes)
    if total != rec.value:
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"Q(H) = {plain.io} re-solved by the plain baseline ({len(H)} vertices); "
                  f"outside H: window reads {window}, {len(outside)} inputs outside U, "
                  f"forced spills {forced}, {len(writes)} output writes")


def describe_subdag(cert: dict[str, Any]) -> str:
    """One line of a ``sub-dag-exact`` certificate.

    >>> from attnio.graphs.dags import matmul_dag
    >>> describe_subdag(subdag_exact_bound(matmul_dag(1, 2, 1), 3).certificate)
    'Q(H) = 7 on the ancestral closure H of 1 outputs (7 vertices, re-solved by the plain baseline); outside H: 0 input reads, 0 forced-spill moves, 0 output writes'
    """
    return (f"Q(H) = {cert['Q_H']} on the ancestral closure H of {len(cert['H_outputs'])} "
            f"outputs ({cert['H_vertices']} vertices, re-solved by the plain baseline); "
            f"outside H: {cert['window_reads'] + len(cert['inputs_outside'])} input reads, "
            f"{cert['forced_moves']} forced-spill moves, "
            f"{len(cert['output_writes_outside'])} output writes")


def _subdag_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                    timeout_ms: int) -> list[BoundRecord]:
    return [subdag_exact_bound(G, M, deadline=deadline)]


SUB_DAG_EXACT = Route(
    "sub-dag-exact", compute=_subdag_records, check=check_subdag, cost="exact",
    source="attnio (notes/lower_bounds.md): restriction of a schedule to an ancestral sub-DAG "
           "(the exact solver's reduction R4, graphs/exact.py) + route 4 outside it",
    reconstructed=True, describe=describe_subdag, switch="subdag")

#: The routes of this module (:mod:`attnio.graphs.lower_bounds.registry`).
ROUTES = (SUB_DAG_EXACT,)
