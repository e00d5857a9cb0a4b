r"""Route 7 of :mod:`attnio.graphs.lower_bounds`: sub-DAG optima combined by a linear program,
with its checker.

Notation as in :mod:`attnio.graphs.lower_bounds` (I, O*, N, I_N).

Route
-----
``sub-dag-lp`` (new; attnio — the restriction argument of route 6 combined by LP duality, in
the spirit of cost partitioning for admissible heuristics; not from the paper). Fix a complete
schedule :math:`\sigma` of G with at most M red pebbles (recomputation allowed or not) and let
:math:`y_v` be the number of reads and writes of vertex v in :math:`\sigma`, so
:math:`\mathrm{cost}(\sigma) = \sum_v y_v`.

1. For a set T of non-input outputs and its ancestral closure :math:`H_T` (T and every
   ancestor of T), the moves of :math:`\sigma` on vertices of :math:`H_T`, in order, form a
   complete schedule of :math:`(H_T, \text{outputs } T)` with at most M red pebbles (route 6:
   a computation in :math:`H_T` needs only predecessors in :math:`H_T`; T ends blue), so
   :math:`\sum_{v \in H_T} y_v \ge Q(H_T, M) =: b_T`.
2. :math:`y_v \ge 1` for every needed input and every output in O* (route 1).
3. Hence for **any** weights :math:`z_T \ge 0` (one per member T of a family F) and
   :math:`u_v \ge 0` (one per compulsory vertex) with, for every vertex v,

   .. math:: \text{load}(v) = \sum_{T \in F:\ v \in H_T} z_T + u_v \;\le\; 1,

   weak LP duality gives :math:`\mathrm{cost}(\sigma) = \sum_v y_v \ge \sum_v \text{load}(v)\,
   y_v = \sum_T z_T \sum_{v \in H_T} y_v + \sum_v u_v y_v \ge \sum_T z_T b_T + \sum_v u_v`
   (every :math:`y_v \ge 0`). As :math:`Q(G, M)` is an integer,

   .. math:: Q(G, M) \;\ge\; \Bigl\lceil \sum_{T \in F} z_T\, b_T + \sum_v u_v \Bigr\rceil.

The weights are the optimum of that LP (the dual of "min :math:`\sum y_v` subject to 1–2"),
solved by HiGHS (``highspy``) in floating point and then made exact: converted to fractions,
negative ones set to 0, and all of them scaled by :math:`1/\max_v \text{load}(v)` when a load
exceeds 1. So the certificate is exact rational weights, and the float solver is never
trusted: any feasible weights give a valid bound, and the checker re-verifies feasibility and
the objective in :class:`fractions.Fraction` arithmetic. Each :math:`b_T` is an exact optimum
of a sub-DAG of at most :data:`MAX_MEMBER_VERTICES` vertices from the engine slot
(:func:`attnio.graphs.engines.solve`, the compiled core when numba is installed), re-solved by
the plain baseline in the checker. With one member and u on the rest this is route 6 without
its window reads; with several overlapping members the LP shares each vertex's I/O between
them instead of counting it twice.

:func:`check_covering_lp` rejects: a member that is not a set of non-input outputs, a
:math:`b_T` the plain baseline does not reproduce, a negative weight, a unit weight on a vertex
that need not be read or written, a load above 1, and a value other than the ceiling of the
recomputed objective (each has a planted twin in ``tests/graphs/test_lower_bound_covering.py``).
"""

from __future__ import annotations

import ctypes
import itertools
import math
import os
import sys
import threading
from fractions import Fraction
from typing import Any, Iterable

import networkx as nx

from attnio.graphs.game import game_inputs, game_outputs, validate_cache_size
from attnio.graphs.lower_bounds.deadline import Deadline, TimeLimitReached, as_deadline
from attnio.graphs.lower_bounds.records import BoundRecord, Route, must_compute
from attnio.graphs.lower_bounds.subdag import (
    ancestor_subdag,
    resolve_for_checker,
    solved_subdags,
)
from attnio.results import Proved, Refuted, Verdict

__all__ = ["covering_lp_bound", "check_covering_lp", "exact_dual_weights",
           "MAX_MEMBER_VERTICES", "MAX_MEMBERS", "SUB_DAG_LP", "ROUTES"]

#: Most vertices of one member's sub-DAG (its optimum is re-solved by the plain baseline).
MAX_MEMBER_VERTICES = 14
#: Most members (sub-DAGs solved exactly) in one LP.
MAX_MEMBERS = 16
#: Denominators of the exact weights (the float optimum is rounded to fractions this fine).
WEIGHT_DENOMINATOR = 10**6


def candidate_members(G: nx.DiGraph, outs: list[str], *, max_vertices: int,
                      max_members: int, deadline: Deadline | None = None) -> list[list[str]]:
    """Sets T of non-input outputs whose ancestral closure has at most ``max_vertices``
    vertices: every single output, then pairs, then triples (smallest closures first), at
    most ``max_members`` in all, no two with the same closure."""
    dl = as_deadline(deadline)
    seen: set[frozenset[str]] = set()
    chosen: list[list[str]] = []
    for size in (1, 2, 3):
        found: list[tuple[int, list[str], frozenset[str]]] = []
        for combo in itertools.combinations(outs, size):
            dl.check()
            closure = frozenset(ancestor_subdag(G, list(combo)))
            if len(closure) <= max_vertices and closure not in seen:
                found.append((len(closure), list(combo), closure))
        for _, members, closure in sorted(found, key=lambda t: (t[0], t[1])):
            if closure in seen:
                continue
            seen.add(closure)
            chosen.append(members)
            if len(chosen) >= max_members:
                return chosen
        if len(outs) > 12 and size >= 2:  # pairs of many outputs already fill the family
            break
    return chosen


_HIGHS_LOCK = threading.Lock()


def quiet_highs() -> Any:
    """A ``highspy.Highs`` with its output off. HiGHS prints a banner on the C-level stdout
    when its first solver is made (before any option can be set), which would corrupt
    ``--json`` output: file descriptor 1 points to the null device meanwhile."""
    import highspy

    with _HIGHS_LOCK:
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
                try:
                    ctypes.CDLL(None).fflush(None)
                except (OSError, AttributeError, TypeError):  # no C library handle (Windows)
                    pass
        finally:
            os.dup2(saved, 1)
            os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


def _lp_weights(columns: list[list[int]], costs: list[int], n_rows: int) -> list[float]:
    """Float optimum of max sum(costs·w) s.t. each row's sum of w over the columns holding it
    <= 1, w >= 0 (HiGHS)."""
    import highspy
    import numpy as np

    h = quiet_highs()
    lp = highspy.HighsLp()
    lp.num_col_ = len(columns)
    lp.num_row_ = n_rows
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = np.array(costs, dtype=float)
    lp.col_lower_ = np.zeros(len(columns))
    lp.col_upper_ = np.full(len(columns), highspy.kHighsInf)
    lp.row_lower_ = np.full(n_rows, -highspy.kHighsInf)
    lp.row_upper_ = np.ones(n_rows)
    start, index = [0], []
    for rows in columns:
        index += rows
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.ones(len(index))
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return [0.0] * len(columns)  # all-zero weights are feasible: the bound is then 0
    return list(h.getSolution().col_value)


def exact_dual_weights(columns: list[list[int]], weights: Iterable[float | Fraction],
                       n_rows: int) -> list[Fraction]:
    """Exact feasible weights from approximate ones: fractions (denominator at most
    :data:`WEIGHT_DENOMINATOR`), negatives set to 0, all scaled by ``1/max load`` when a row's
    load exceeds 1. Any result is feasible, whatever the input.

    >>> exact_dual_weights([[0], [0, 1]], [0.75, 0.5000001], 2)
    [Fraction(3, 5), Fraction(2, 5)]
    """
    exact = [max(Fraction(0), Fraction(w).limit_denominator(WEIGHT_DENOMINATOR))
             for w in weights]
    load = [Fraction(0)] * n_rows
    for rows, w in zip(columns, exact):
        for r in rows:
            load[r] += w
    top = max(load, default=Fraction(0))
    if top > 1:
        exact = [w / top for w in exact]
    return exact


def covering_lp_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None, *,
                      max_vertices: int = MAX_MEMBER_VERTICES, max_members: int = MAX_MEMBERS,
                      solve_seconds: float = 5.0,
                      deadline: Deadline | None = None) -> BoundRecord:
    """``ceil(sum z_T b_T + sum u_v)`` for the LP's weights (module docstring, route 7), with
    its certificate. Each member's exact solve gets ``solve_seconds`` or the time left; a
    member the engine does not settle is left out (a smaller family is still valid). Past
    ``deadline`` before any member is solved:
    :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached`.

    >>> from attnio.graphs.dags import matmul_dag
    >>> r = covering_lp_bound(matmul_dag(2, 2, 2), 4)       # exact optimum 17
    >>> r.value, r.certificate["objective"], len(r.certificate["members"])
    (14, '40/3', 4)
    """
    validate_cache_size(M)
    dl = as_deadline(deadline)
    if outputs is not None:
        G = G.copy()
        G.graph["outputs"] = list(outputs)
    inputs, outs, N, need = must_compute(G)
    compulsory = sorted(need) + sorted(outs)
    members: list[dict[str, Any]] = []
    candidates = candidate_members(G, outs, max_vertices=max_vertices, max_members=max_members,
                                   deadline=dl)
    try:
        for T, H, res in solved_subdags(G, M, candidates, solve_seconds, dl):
            _, _, _, need_H = must_compute(H)
            # a member whose optimum is its compulsory I/O adds nothing the unit weights lack
            if res.io > len(need_H) + len(T):
                members.append({"outputs": T, "vertices": sorted(H), "Q_H": int(res.io)})
    except TimeLimitReached:
        if not members:
            raise
    if not members:
        return BoundRecord("sub-dag-lp", 0, False,
                           f"no set of outputs with an ancestral closure of <= {max_vertices} "
                           "vertices solved exactly above its compulsory I/O", {})
    names = sorted(set(G.nodes))
    row = {v: i for i, v in enumerate(names)}
    columns = [[row[v] for v in m["vertices"]] for m in members] + [[row[v]] for v in compulsory]
    costs = [m["Q_H"] for m in members] + [1] * len(compulsory)
    weights = exact_dual_weights(columns, _lp_weights(columns, costs, len(names)), len(names))
    objective = sum((w * c for w, c in zip(weights, costs)), Fraction(0))
    value = math.ceil(objective)
    cert = {"members": [{"outputs": m["outputs"], "Q_H": m["Q_H"], "weight": str(w)}
                        for m, w in zip(members, weights) if w],  # weight 0 adds nothing
            "unit_weights": {v: str(w) for v, w in zip(compulsory, weights[len(members):])
                             if w},
            "objective": str(objective)}
    return BoundRecord("sub-dag-lp", value, True, None, cert)


def check_covering_lp(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                      deadline: Deadline | None = None,
                      timeout_ms: int | None = None) -> Verdict:
    """Re-verify a ``sub-dag-lp`` certificate from G alone (module docstring), in exact
    :class:`~fractions.Fraction` arithmetic.

    Side conditions
    ---------------
    1. ``member-outputs``: every member's ``outputs`` T passes
       :func:`~attnio.graphs.lower_bounds.subdag.resolve_for_checker` (a non-empty set of
       non-input outputs whose closure H_T has at most 2·:data:`MAX_MEMBER_VERTICES`
       vertices and an optimum the plain baseline settles).
    2. ``member-optimum``: every member's ``Q_H`` is the plain baseline's Q(H_T, M).
    3. ``member-weight-nonnegative``: every member's weight z_T ≥ 0.
    4. ``unit-on-compulsory``: unit weights sit only on needed inputs and non-input
       outputs (the vertices every schedule moves at least once).
    5. ``unit-weight-nonnegative``: every unit weight u_v ≥ 0.
    6. ``load``: every vertex's load — the weights of the members whose H_T holds it plus its
       unit weight — is at most 1.
    7. ``value-is-ceiling``: value = ⌈Σ z_T·Q_H + Σ u_v⌉, recomputed.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> check_covering_lp(G, 3, covering_lp_bound(G, 3)).proved
    True
    """
    dl = as_deadline(deadline)
    inputs = frozenset(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    _, _, _, need = must_compute(G)
    cert = rec.certificate
    load: dict[str, Fraction] = {}
    objective = Fraction(0)
    for m in cert["members"]:
        T = list(m["outputs"])
        weight = Fraction(m["weight"])
        if weight < 0:
            return Refuted({"weight": m["weight"]}, "a negative weight")
        resolved = resolve_for_checker(G, M, T, outs, 2 * MAX_MEMBER_VERTICES, dl)
        if isinstance(resolved, Refuted):
            return resolved
        H, plain = resolved
        if plain.io != m["Q_H"]:
            return Refuted({"outputs": T, "claimed": m["Q_H"], "plain": plain.io},
                           f"Q(H) re-solved by the plain baseline is {plain.io}")
        for v in H:
            load[v] = load.get(v, Fraction(0)) + weight
        objective += weight * plain.io
    compulsory = set(need) | set(outs)
    for v, text in cert["unit_weights"].items():
        weight = Fraction(text)
        if v not in compulsory:
            return Refuted({"vertex": v}, f"{v!r} is neither a needed input nor an output")
        if weight < 0:
            return Refuted({"weight": text}, "a negative weight")
        load[v] = load.get(v, Fraction(0)) + weight
        objective += weight
    heavy = [v for v, w in load.items() if w > 1]
    if heavy:
        return Refuted({"vertex": heavy[0], "load": str(load[heavy[0]])},
                       "a vertex's load exceeds 1 (the weights are not dual feasible)")
    if rec.value != math.ceil(objective):
        return Refuted({"value": rec.value, "objective": str(objective)},
                       f"value ≠ ceil({objective}) = {math.ceil(objective)}")
    return Proved(f"{len(cert['members'])} sub-DAG optima re-solved by the plain baseline; "
                  f"weights dual feasible (every load <= 1, exact); "
                  f"ceil({objective}) = {math.ceil(objective)}")


def describe_covering_lp(cert: dict[str, Any]) -> str:
    """One line of a ``sub-dag-lp`` certificate (its members and weights are in ``--json``).

    >>> from attnio.graphs.dags import matmul_dag
    >>> describe_covering_lp(covering_lp_bound(matmul_dag(1, 2, 1), 3).certificate)
    '1 sub-DAG optima, Q_H 7, rational weights with every load <= 1 (the whole certificate: --json)'
    """
    optima = sorted({m["Q_H"] for m in cert["members"]})
    span = (f", Q_H {optima[0]}–{optima[-1]}" if len(optima) > 1
            else f", Q_H {optima[0]}" if optima else "")
    return (f"{len(cert['members'])} sub-DAG optima{span}, rational weights with every load "
            f"<= 1 (the whole certificate: --json)")


def _covering_lp_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                         timeout_ms: int) -> list[BoundRecord]:
    return [covering_lp_bound(G, M, deadline=deadline)]


SUB_DAG_LP = Route(
    "sub-dag-lp", compute=_covering_lp_records, check=check_covering_lp, cost="exact",
    source="attnio (graphs/lower_bounds/covering.py): the restriction lemma of sub-dag-exact "
           "for several sub-DAGs, combined by weak LP duality (HiGHS, exact rational weights)",
    reconstructed=True, describe=describe_covering_lp, switch="subdag")

#: The routes of this module (:mod:`attnio.graphs.lower_bounds.registry`).
ROUTES = (SUB_DAG_LP,)
