"""Soundness of every certificate checker as a property, against ground truth (issue 36).

For every registered lower-bound route: random tiny DAGs (at most :data:`MAX_VERTICES`
vertices; outputs that are sinks, inner vertices or inputs; now and then a built-in matmul
DAG with its declared sizes), M from the least feasible M up, and *adversarial* certificates —
the route's honest one, and forgeries made from it by one to three operators of the route's
:data:`FORGERS` (each breaks, or may break, one side condition: a vertex added where the rule
forbids it, a set that is not forced, a weight that overloads a vertex, a sub-DAG optimum
claimed higher, …), with every derived field recomputed the way the route computes it (the
window minimum, the DP minimum, Q(H), the value) so that only the broken condition can give
the forgery away, and sometimes a value one off. The property:

    every certificate ``check_certificate`` accepts has value ≤ Q(G, M),

Q the exact optimum of :func:`attnio.graphs.exact.solve_optimal` (recomputation allowed: the
smaller of the two games' optima). Honest certificates must be accepted too (a checker that
rejects everything would pass the property).

Trust tier: derandomized, :data:`EXAMPLES` examples per route. The big sweep is
``python benchmarks/checker_soundness.py`` (it sets ``ATTNIO_SOUNDNESS_EXAMPLES`` /
``ATTNIO_SOUNDNESS_SEED`` / ``ATTNIO_SOUNDNESS_VERTICES`` and prints :data:`STATS`).
"""

from __future__ import annotations

import copy
import math
import os
from collections import Counter, defaultdict
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import matmul_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.lower_bounds import (
    ROUTES,
    BoundRecord,
    Deadline,
    ancestor_subdag,
    check_certificate,
    must_compute,
)
from attnio.graphs.lower_bounds.counting import partition_route_value
from attnio.graphs.lower_bounds.saturation import _independent_saturation_min
from attnio.graphs.lower_bounds.windows import independent_window_min
from attnio.results import Status

pytestmark = pytest.mark.trust

EXAMPLES = int(os.environ.get("ATTNIO_SOUNDNESS_EXAMPLES", "80"))
MAX_VERTICES = int(os.environ.get("ATTNIO_SOUNDNESS_VERTICES", "8"))
_SEED = os.environ.get("ATTNIO_SOUNDNESS_SEED")
#: Per route: examples, honest accepted, forgeries accepted / rejected, accepted with a
#: positive value, the largest accepted value over Q (as a fraction), violations (must be 0).
STATS: dict[str, Counter] = defaultdict(Counter)
WORST: dict[str, Fraction] = defaultdict(Fraction)


def _settings(test: Callable) -> Callable:
    test = settings(max_examples=EXAMPLES, deadline=None, derandomize=_SEED is None,
                    database=None, suppress_health_check=list(HealthCheck))(test)
    return test if _SEED is None else seed(int(_SEED))(test)


# ---- instances ---------------------------------------------------------------------------------

@st.composite
def instances(draw: st.DrawFn) -> tuple[nx.DiGraph, int]:
    """A DAG and an M with a complete schedule (M from the least M to two above)."""
    if draw(st.integers(0, 5)) == 0:                 # a built-in DAG (per-part applies)
        m, k, p = draw(st.sampled_from([(1, 1, 1), (1, 2, 1), (2, 1, 1), (1, 1, 2)]))
        G = matmul_dag(m, k, p)
    else:
        n = draw(st.integers(3, MAX_VERTICES))
        names = [f"v{i}" for i in range(n)]
        G = nx.DiGraph()
        G.add_nodes_from(names)
        for j in range(1, n):
            for i in draw(st.lists(st.integers(0, j - 1), max_size=3, unique=True)):
                G.add_edge(names[i], names[j])
        if draw(st.booleans()):          # outputs: some sinks, an inner vertex, an input —
            G.graph["outputs"] = draw(st.lists(st.sampled_from(names), min_size=1,   # and
                                               max_size=3, unique=True))   # unneeded vertices
    least = min_cache_size(G)
    return G, draw(st.integers(least, least + 2))


def _key(G: nx.DiGraph) -> tuple:
    outputs = G.graph.get("outputs")
    return (tuple(sorted(G.edges)), tuple(sorted(G)),
            tuple(outputs) if outputs is not None else None)


@lru_cache(maxsize=4096)
def _optimum(key: tuple, M: int) -> int:
    edges, nodes, outputs = key
    G = nx.DiGraph(list(edges))
    G.add_nodes_from(nodes)
    if outputs is not None:
        G.graph["outputs"] = list(outputs)
    result = solve_optimal(G, M, progress=False, time_limit=60)
    assert result.verdict is Status.OPTIMAL, result
    return result.io


def optimum(G: nx.DiGraph, M: int) -> int:
    return _optimum(_key(G), M)


# ---- forgeries: operators per route, each keeping the derived fields consistent ---------------

Op = Callable[[st.DrawFn, nx.DiGraph, int, dict[str, Any]], None]


def _vertex(draw: st.DrawFn, G: nx.DiGraph) -> str:
    return draw(st.sampled_from(sorted(G)))


def _some(draw: st.DrawFn, G: nx.DiGraph, low: int = 2, high: int = 3) -> list[str]:
    return draw(st.lists(st.sampled_from(sorted(G)), min_size=low, max_size=high))


def _add(field: str) -> Op:
    def op(draw, G, M, cert):
        cert[field] = list(cert.get(field, [])) + [_vertex(draw, G)]
    return op


def _drop(field: str) -> Op:
    def op(draw, G, M, cert):
        items = list(cert.get(field, []))
        if items:
            del items[draw(st.integers(0, len(items) - 1))]
        cert[field] = items
    return op


def _dup(field: str) -> Op:
    def op(draw, G, M, cert):
        items = list(cert.get(field, []))
        cert[field] = items + items[:1]
    return op


def _forced_set(draw: st.DrawFn, G: nx.DiGraph, M: int) -> dict[str, Any]:
    """A spill set at a random vertex: the predecessors of w when it has two or more (often
    the real thing), else random vertices; charge 1 or 2."""
    w = _vertex(draw, G)
    preds = sorted(G.predecessors(w))
    T = (draw(st.lists(st.sampled_from(preds), min_size=2, max_size=len(preds), unique=True))
         if len(preds) >= 2 and draw(st.booleans()) else _some(draw, G))
    return {"at": w, "set": T, "charge": draw(st.sampled_from([1, 2, 2, 3]))}


def _add_forced(field: str, saturating: bool = False) -> Op:
    def op(draw, G, M, cert):
        entry = _forced_set(draw, G, M)
        if saturating:
            size = {a: len(set(G.predecessors(a)) | set(entry["set"])) for a in entry["set"]
                    if a in G}
            equal = [a for a, k in size.items() if k == M]
            entry["choices"] = equal if draw(st.booleans()) else _some(draw, G, 0, 2)
        cert[field] = list(cert.get(field, [])) + [entry]
    return op


def _bump(field: str, steps: tuple[int, ...] = (1, 2, -1)) -> Op:
    def op(draw, G, M, cert):
        cert[field] = cert.get(field, 0) + draw(st.sampled_from(steps))
    return op


def _outs(G: nx.DiGraph) -> list[str]:
    return must_compute(G)[1]


def _window(G: nx.DiGraph, M: int, cert: dict[str, Any], uncounted: frozenset = frozenset()
            ) -> None:
    U = [v for v in cert.get("U", []) if v in G]
    if len(set(U)) <= 10:
        cert["window_reads"] = independent_window_min(G, U, M, uncounted=uncounted)


def _q_h(G: nx.DiGraph, M: int, outputs: list[str]) -> int | None:
    """Q(H) of the closure of ``outputs`` by the plain baseline (what the checker compares
    with), None when it has no schedule with M pebbles or does not settle quickly."""
    if not outputs or any(o not in G for o in outputs):
        return None
    H = ancestor_subdag(G, list(dict.fromkeys(outputs)))
    if M < min_cache_size(H):
        return None
    got = plain_optimal(H, M, time_limit=5, max_states=200_000)
    return got.io if got.verdict is Status.OPTIMAL else None


def _fix_compulsory(G, M, cert):
    return len(set(cert["needed_inputs"])) + len(set(cert["written_outputs"]))


def _fix_hong_kung(G, M, cert):
    P = cert.get("P")
    return M * (P - 1) if isinstance(P, int) else 0


def _fix_per_part(G, M, cert):
    return partition_route_value(max(0, cert["counted"]), max(1, cert["part_bound"]), M)


def _fix_spill(G, M, cert):
    _window(G, M, cert)
    charge = sum(t["charge"] for t in cert.get("forced_sets", []))
    return (cert["window_reads"] + len(cert["inputs_outside_U"]) + charge
            + cert["output_writes"])


def _fix_saturation(G, M, cert):
    U = [v for v in cert["U"] if v in G]
    family = cert["saturating_sets"]
    if len(U) + len(family) <= 8 and all(a in G for t in family for a in t["set"]):
        cert["reads_and_spills"] = _independent_saturation_min(G, M, U, family)
    return cert["reads_and_spills"] + len(cert["inputs_outside_U"]) + cert["output_writes"]


def _fix_subdag(G, M, cert):
    q = _q_h(G, M, cert["H_outputs"])
    if q is not None and cert.pop("_keep_q", False) is False:
        cert["Q_H"] = q
    if all(o in G for o in cert["H_outputs"]) and cert["H_outputs"]:
        H = frozenset(ancestor_subdag(G, cert["H_outputs"]))
        inputs = {v for v in G if G.in_degree(v) == 0}
        _window(G, M, cert, frozenset(inputs & H))
    charge = sum(t["charge"] for t in cert["forced_sets"])
    return (cert["Q_H"] + cert["window_reads"] + len(cert["inputs_outside"]) + charge
            + len(cert["output_writes_outside"]))


def _fix_lp(G, M, cert):
    total = Fraction(0)
    for m in cert["members"]:
        if "_fresh" in m:
            m.pop("_fresh")
            q = _q_h(G, M, m["outputs"])
            m["Q_H"] = 0 if q is None else q
        total += Fraction(m["weight"]) * m["Q_H"]
    total += sum((Fraction(w) for w in cert["unit_weights"].values()), Fraction(0))
    cert["objective"] = str(total)
    return math.ceil(total)


def _inside_h(G: nx.DiGraph, cert: dict[str, Any]) -> list[str]:
    outs = [o for o in cert.get("H_outputs", []) if o in G]
    return sorted(ancestor_subdag(G, outs)) if outs else []


def _writes_inside_h(draw, G, M, cert):
    """H's outputs counted again as writes outside H."""
    cert["output_writes_outside"] = list(cert["output_writes_outside"]) + [
        o for o in cert.get("H_outputs", []) if o in G]


def _inputs_inside_h(draw, G, M, cert):
    """H's inputs counted again as reads outside H."""
    cert["inputs_outside"] = list(cert["inputs_outside"]) + [
        v for v in _inside_h(G, cert) if G.in_degree(v) == 0]


def _forced_inside_h(draw, G, M, cert):
    """A spill set of H's own vertices (its spills are H's moves)."""
    inside = set(_inside_h(G, cert))
    for w in sorted(inside):
        T = sorted(p for p in G.predecessors(w) if p in inside and G.in_degree(p) > 0)
        if len(T) >= 2:
            cert["forced_sets"] = list(cert["forced_sets"]) + [{"at": w, "set": T,
                                                                "charge": 2}]
            return


def _covered_inputs(field: str) -> Op:
    """The inputs the windows over U already read, listed again as outside U."""
    def op(draw, G, M, cert):
        covered = sorted({u for v in cert.get("U", []) if v in G for u in G.predecessors(v)
                          if G.in_degree(u) == 0})
        cert[field] = list(cert.get(field, [])) + covered
    return op


def _set_outputs_h(draw, G, M, cert):
    cert["H_outputs"] = draw(st.lists(st.sampled_from(sorted(G)), min_size=1, max_size=3,
                                      unique=True))


def _claim_more_q_h(draw, G, M, cert):
    cert["Q_H"] = cert.get("Q_H", 0) + draw(st.sampled_from([1, 2]))
    cert["_keep_q"] = True


def _add_member(draw, G, M, cert):
    outs = _outs(G)
    T = (draw(st.lists(st.sampled_from(outs), min_size=1, max_size=2, unique=True))
         if outs and draw(st.booleans()) else _some(draw, G, 1, 2))
    weight = draw(st.sampled_from(["1", "1/2", "1/3", "2", "-1/2"]))
    cert["members"] = list(cert["members"]) + [{"outputs": T, "Q_H": 0, "weight": weight,
                                                "_fresh": True}]


def _reweigh(draw, G, M, cert):
    if cert["members"]:
        i = draw(st.integers(0, len(cert["members"]) - 1))
        cert["members"][i] = {**cert["members"][i],
                              "weight": draw(st.sampled_from(["1", "2", "3/2", "-1"]))}


def _add_unit(draw, G, M, cert):
    units = dict(cert["unit_weights"])
    units[_vertex(draw, G)] = draw(st.sampled_from(["1", "1/2", "2", "-1"]))
    cert["unit_weights"] = units


def _units_everywhere(draw, G, M, cert):
    """Unit weights on every vertex any rule could allow (needed inputs and outputs), and on
    one it does not."""
    _, outs, _, need = must_compute(G)
    cert["unit_weights"] = {**{v: "1" for v in sorted(need) + outs},
                            _vertex(draw, G): "1"}


def _units_on_compulsory(draw, G, M, cert):
    """Unit weight 1 on every needed input and non-input output (allowed vertices, but on top
    of a member holding them the loads exceed 1)."""
    _, outs, _, need = must_compute(G)
    cert["unit_weights"] = {v: "1" for v in sorted(need) + outs}


def _whole_dag(G: nx.DiGraph, M: int) -> dict[str, Any]:
    """The certificate of the whole DAG as one member at weight 1 (value Q(G, M), valid): the
    start of the forgeries where the route itself does not apply."""
    cert: dict[str, Any] = {"members": [], "unit_weights": {}, "objective": "0"}
    _whole_dag_member(None, G, M, cert)
    return cert


def _not_compulsory(G: nx.DiGraph) -> list[str]:
    """Vertices no schedule needs to read or write: unneeded inputs, inner vertices."""
    _, outs, _, need = must_compute(G)
    return sorted(set(G) - set(need) - set(outs))


def _unit_where_no_move_is_forced(draw, G, M, cert):
    """A unit weight on a vertex no schedule needs to read or write (an unneeded input first)."""
    spare = _not_compulsory(G)
    if spare:
        inputs = [v for v in spare if G.in_degree(v) == 0]
        chosen = draw(st.sampled_from(inputs or spare))
        cert["unit_weights"] = {**cert["unit_weights"], chosen: "1"}


def _read_unneeded(draw, G, M, cert):
    """An input no schedule needs to read (or, failing that, any vertex that is not one)."""
    spare = _not_compulsory(G)
    if spare:
        inputs = [v for v in spare if G.in_degree(v) == 0]
        cert["needed_inputs"] = list(cert["needed_inputs"]) + (inputs or spare)[:1]


def _write_input_output(draw, G, M, cert):
    """An output that is an input (blue from the start), or a vertex that is no output."""
    outputs = G.graph.get("outputs") or [v for v in G if G.out_degree(v) == 0]
    blue = [o for o in outputs if G.in_degree(o) == 0]
    spare = [v for v in G if v not in outputs]
    cert["written_outputs"] = list(cert["written_outputs"]) + (blue or spare)[:1]


def _repartition(draw, G, M, cert):
    """A P and a partition into P parts (a random assignment of the vertices)."""
    names = sorted(G)
    P = draw(st.integers(1, min(len(names), 6)))
    label = draw(st.lists(st.integers(0, P - 1), min_size=len(names), max_size=len(names)))
    cert["P"] = P
    cert["partition"] = [[v for v, k in zip(names, label) if k == i] for i in range(P)]


def _whole_dag_member(draw, G, M, cert):
    """A member holding every output at weight 1 (Q_H = Q(G, M)): any unit weight on top of
    it overloads a vertex or sits where no move is forced."""
    outs = _outs(G)
    if outs:
        cert["members"] = [{"outputs": outs, "Q_H": 0, "weight": "1", "_fresh": True}]


def _split_part(draw, G, M, cert):
    """One part of the partition split in two (often still a valid partition): P + 1."""
    parts = [list(p) for p in cert.get("partition", []) if len(p) > 1]
    if parts:
        i = draw(st.integers(0, len(parts) - 1))
        cut = draw(st.integers(1, len(parts[i]) - 1))
        parts[i:i + 1] = [parts[i][:cut], parts[i][cut:]]
        cert["partition"] = parts + [p for p in cert["partition"] if len(p) <= 1]
        cert["P"] = len(cert["partition"])


def _blank(**fields: Any) -> Callable[[nx.DiGraph, int], dict[str, Any]]:
    return lambda G, M: copy.deepcopy(fields)


#: route → (operators, value of a certificate, a blank certificate for a route that does not
#: apply). Every registered route must have one (the recipe, notes/extending.md).
FORGERS: dict[str, tuple[list[Op], Callable[..., int], Callable[..., dict[str, Any]]]] = {
    "compulsory": ([_add("needed_inputs"), _add("written_outputs"), _drop("needed_inputs"),
                    _dup("needed_inputs"), _read_unneeded, _write_input_output],
                   _fix_compulsory,
                   _blank(needed_inputs=[], written_outputs=[])),
    "hong-kung": ([_repartition, _split_part, _bump("P", (1,))], _fix_hong_kung,
                  _blank(S=0, P=1, partition=[])),
    "per-part": ([_bump("counted", (1, 3, 10)), _bump("part_bound", (-1, -3)),
                  lambda draw, G, M, c: c.update(kind=draw(st.sampled_from(
                      ["matmul", "attention-forward"])))], _fix_per_part,
                 _blank(kind="matmul", counted=1, part_bound=1, S=0)),
    "spill-windows": ([_add("U"), _drop("U"), _dup("U"), _add("inputs_outside_U"),
                       _covered_inputs("inputs_outside_U"),
                       _dup("inputs_outside_U"), _add_forced("forced_sets"),
                       _bump("window_reads"), _bump("output_writes")], _fix_spill,
                      _blank(U=[], window_reads=0, inputs_outside_U=[], forced_sets=[],
                             output_writes=0)),
    "saturation-windows": ([_add("U"), _drop("U"), _add("inputs_outside_U"),
                            _covered_inputs("inputs_outside_U"),
                            _dup("inputs_outside_U"),
                            _add_forced("saturating_sets", saturating=True),
                            _bump("reads_and_spills"), _bump("output_writes")],
                           _fix_saturation,
                           _blank(U=[], saturating_sets=[], reads_and_spills=0,
                                  inputs_outside_U=[], output_writes=0)),
    "sub-dag-exact": ([_set_outputs_h, _claim_more_q_h, _add("U"), _add("inputs_outside"),
                       _dup("inputs_outside"), _add_forced("forced_sets"),
                       _add("output_writes_outside"), _dup("output_writes_outside"),
                       _writes_inside_h, _inputs_inside_h, _forced_inside_h,
                       _covered_inputs("inputs_outside"), _bump("window_reads")], _fix_subdag,
                      _blank(H_outputs=[], Q_H=0, U=[], window_reads=0, inputs_outside=[],
                             forced_sets=[], output_writes_outside=[])),
    "sub-dag-lp": ([_add_member, _whole_dag_member, _reweigh, _add_unit, _units_on_compulsory,
                    _units_everywhere, _unit_where_no_move_is_forced], _fix_lp, _whole_dag),
}


@st.composite
def forgeries(draw: st.DrawFn, route: str, G: nx.DiGraph, M: int,
              honest: BoundRecord) -> BoundRecord:
    """The honest record (often), or one forged from it by 1–3 operators of the route, its
    value recomputed from the forged certificate (sometimes one off)."""
    ops, value_of, blank = FORGERS[route]
    if draw(st.integers(0, 4)) == 0:
        return honest
    cert = copy.deepcopy(honest.certificate) if honest.applies else blank(G, M)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):   # mostly one condition at a time
        draw(st.sampled_from(ops))(draw, G, M, cert)
    value = value_of(G, M, cert) + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
    return BoundRecord(honest.route, value, True, None, cert)


def _honest(route: str, G: nx.DiGraph, M: int) -> list[BoundRecord]:
    return ROUTES[route].compute(G, M, deadline=Deadline.never(), timeout_ms=10_000)


def test_every_registered_route_has_a_forger() -> None:
    assert sorted(FORGERS) == sorted(ROUTES)


@pytest.mark.parametrize("route", list(ROUTES))
@_settings
@given(data=st.data())
def test_every_accepted_certificate_is_at_most_the_exact_optimum(route: str, data) -> None:
    G, M = data.draw(instances(), label="instance")
    stats = STATS[route]
    stats["examples"] += 1
    for honest in _honest(route, G, M):
        verdict = check_certificate(G, M, honest)
        assert verdict.proved, (honest, verdict)            # the route's own certificate
        stats["honest accepted"] += honest.applies
        record = data.draw(forgeries(route, G, M, honest), label="certificate")
        if record is honest:
            continue
        verdict = check_certificate(G, M, record)
        stats["forgeries accepted" if verdict.proved else "forgeries rejected"] += 1
        q = optimum(G, M)
        if not verdict.proved:     # a chance to catch a checker that lost a side condition
            stats["rejected, above Q"] += record.value > q
            continue
        stats["accepted, positive"] += record.value > 0
        if q:
            WORST[route] = max(WORST[route], Fraction(record.value, q))
        if record.value > q:
            stats["violations"] += 1
        assert record.value <= q, (route, sorted(G.edges), G.graph.get("outputs"), M,
                                   record, q)


def test_the_property_met_accepted_forgeries_and_rejections() -> None:
    """Run after the property (same module, in order): it saw forgeries accepted (the
    property was at stake) and forgeries rejected, for the routes that apply on tiny DAGs."""
    if not STATS:
        pytest.skip("the property did not run in this session")
    for route in ("compulsory", "spill-windows", "saturation-windows", "sub-dag-exact"):
        stats = STATS[route]
        assert stats["forgeries rejected"] > 0, (route, stats)
        assert stats["honest accepted"] > 0, (route, stats)
    assert sum(STATS[r]["forgeries accepted"] for r in STATS) > 0
