"""One planted violation per side condition of every certificate checker of
attnio.graphs.lower_bounds (issue 36: a twin per side condition, not per family).

Each checker lists its side conditions in its docstring (a numbered ``Side conditions``
section, one ``key`` each); each condition has a test here named
``test_twin__<checker>__<key>`` (tests/test_side_conditions.py checks that none is missing).
A twin starts from a certificate the checker accepts, breaks that one condition and keeps
every other (the value is recomputed from the forged certificate the way the route computes
it), so only that condition can reject it. Where the rule is load-bearing on a small DAG the
twin's value is also above the exact optimum Q(G, M) — a checker without the condition would
certify a false bound there; those are asserted with ``above=True``.

The survivors of issue 36 are twins here: ``check_covering_lp`` without the unit weights in
the loads (value 5, Q = 3) and with unit weights on unneeded inputs (4 > 3), ``check_subdag``
without the "outside H" test for output writes (15 > Q = 13 on matmul 1×2×2, M = 3),
``check_compulsory`` taking an input with *any* successor as needed (4 > 3), and
``CertifiedRoute.certified`` taking "not refuted" for "proved".
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

import networkx as nx
import pytest

import attnio.graphs.baseline as baseline
from attnio.graphs.dags import matmul_dag
from attnio.graphs.exact import solve_optimal
from attnio.graphs.lower_bounds import (
    BoundRecord,
    CertifiedRoute,
    Deadline,
    check_certificate,
    compulsory_bound,
    hong_kung_route,
    outside_moves,
    per_part_routes,
    saturation_windows_bound,
    spill_windows_bound,
)
from attnio.graphs.lower_bounds.saturation import _independent_saturation_min
from attnio.graphs.lower_bounds.subdag import resolve_for_checker
from attnio.graphs.lower_bounds.windows import independent_window_min, verify_forced
from attnio.graphs.pebble_result import PebbleResult
from attnio.results import Proved, Refuted, Status, Undecided

pytestmark = pytest.mark.trust


def _dag(edges: list[tuple[str, str]], outputs: list[str] | None = None,
         nodes: tuple[str, ...] = ()) -> nx.DiGraph:
    G = nx.DiGraph(edges)
    G.add_nodes_from(nodes)
    if outputs is not None:
        G.graph["outputs"] = outputs
    return G


W = _dag([("a", "c"), ("b", "c")])                                       # Q(W, 3) = 3
SPARE = _dag([("a", "c"), ("b", "c"), ("x", "y")], ["c"])   # x, y unneeded; Q(SPARE, 3) = 3
CHAIN = _dag([("a", "b"), ("b", "c")])                                   # Q(CHAIN, 2) = 2
IO = _dag([("a", "b")], ["a", "b"])                         # a is an input output; Q = 2
SMALL = matmul_dag(1, 2, 1)                                 # Q = 7 at M = 3, 5 at M = 4
MM122 = matmul_dag(1, 2, 2)                                 # Q = 13 at M = 3
FANS = _dag([(f"x{p}_{i}", f"s{p}") for p in range(3) for i in range(3)])   # Q(FANS, 4) = 12
# three outputs, each of two of three inputs: every vertex is read or written at least once,
# and Q(TRI, 3) = 7 > 6 (one input read twice)
TRI = _dag([("a", "ab"), ("b", "ab"), ("b", "bc"), ("c", "bc"), ("c", "ca"), ("a", "ca")])
P0, P1, C = "P[0,0,0]", "P[0,0,1]", "C[0,0]"


@lru_cache(maxsize=None)
def _optimum(edges: tuple, nodes: tuple, outputs: tuple | None, M: int) -> int:
    G = _dag(list(edges), list(outputs) if outputs is not None else None, nodes)
    result = solve_optimal(G, M, progress=False)
    assert result.verdict is Status.OPTIMAL
    return result.io


def optimum(G: nx.DiGraph, M: int) -> int:
    """Q(G, M) by the exact search (recomputation allowed)."""
    outputs = G.graph.get("outputs")
    return _optimum(tuple(sorted(G.edges)), tuple(sorted(G)),
                    tuple(outputs) if outputs is not None else None, M)


def forged(record: BoundRecord, value: int | None = None, **changes: Any) -> BoundRecord:
    return dataclasses.replace(record, value=record.value if value is None else value,
                               certificate={**record.certificate, **changes})


def assert_rejects(G: nx.DiGraph, M: int, honest: BoundRecord, twin: BoundRecord, *,
            above: bool, why: Refuted | None = None) -> None:
    """``honest`` is Proved and ``twin`` Refuted by check_certificate — with ``why`` exactly
    (the counterexample names the offending value, the detail the broken condition); with
    ``above`` the twin claims more than Q(G, M) (accepting it would certify a false bound)."""
    verdict = check_certificate(G, M, honest)
    assert verdict.proved, verdict
    assert honest.value <= optimum(G, M)
    verdict = check_certificate(G, M, twin)
    assert isinstance(verdict, Refuted), verdict
    if why is not None:
        assert verdict == why
    if above:
        assert twin.value > optimum(G, M), (twin.value, optimum(G, M))


def assert_value_recomputed(G: nx.DiGraph, M: int, honest: BoundRecord, *, total: int,
                            claimed: tuple[int, ...]) -> None:
    """The twins of a route whose checker recomputes the value as a sum (``total``): each
    value of ``claimed`` is refuted naming it and the sum, and one above ``total`` claims
    more than Q(G, M) (:func:`assert_rejects`)."""
    for value in claimed:
        assert_rejects(G, M, honest, forged(honest, value=value), above=value > total,
                       why=Refuted({'value': value, 'recomputed': total}, f'value ≠ {total}'))


def assert_output_writes_recounted(G: nx.DiGraph, M: int, honest: BoundRecord, *,
                                   total: int) -> None:
    """A certificate claiming two output writes where the checker counts one: refuted by the
    recomputed sum ``total`` (the value itself is unchanged, so it claims nothing above Q)."""
    assert_rejects(G, M, honest, forged(honest, output_writes=2), above=False,
                   why=Refuted({'value': total, 'recomputed': total}, f'value ≠ {total}'))


# ---- compulsory --------------------------------------------------------------------------------

def _compulsory(reads: list[str], writes: list[str], value: int | None = None) -> BoundRecord:
    return BoundRecord("compulsory", len(set(reads)) + len(set(writes)) if value is None
                       else value, True, None,
                       {"needed_inputs": reads, "written_outputs": writes,
                        "reads": len(reads), "writes": len(writes)})


def test_twin__check_compulsory__read_is_input() -> None:
    assert_rejects(CHAIN, 2, compulsory_bound(CHAIN, 2), _compulsory(["a", "b"], ["c"]), above=True,
            why=Refuted({'vertex': 'b'}, "'b' is not an input"))


def test_twin__check_compulsory__read_is_needed() -> None:
    """Issue 36: an input counted as needed because it has *a* successor (x → y, y unneeded)."""
    assert_rejects(SPARE, 3, compulsory_bound(SPARE, 3), _compulsory(["a", "b", "x"], ["c"]),
            above=True,
                    why=Refuted({'vertex': 'x'}, "input 'x' feeds no vertex that must be computed"))


def test_twin__check_compulsory__write_is_output() -> None:
    assert_rejects(CHAIN, 2, compulsory_bound(CHAIN, 2), _compulsory(["a"], ["b", "c"]), above=True,
            why=Refuted({'vertex': 'b'}, "'b' is not a non-input output"))


def test_twin__check_compulsory__write_is_not_input() -> None:
    assert_rejects(IO, 2, compulsory_bound(IO, 2), _compulsory(["a"], ["a", "b"]), above=True,
            why=Refuted({'vertex': 'a'}, "'a' is not a non-input output"))


def test_twin__check_compulsory__value_is_count() -> None:
    honest = compulsory_bound(W, 3)
    assert_rejects(W, 3, honest, _compulsory(["a", "a", "b"], ["c"], value=4), above=True,
            why=Refuted({'value': 4}, 'value 4 ≠ 2 + 1'))
    assert_rejects(W, 3, honest, forged(honest, value=honest.value + 1), above=True,
            why=Refuted({'value': 4}, 'value 4 ≠ 2 + 1'))
    assert_rejects(W, 3, honest, forged(honest, value=honest.value - 1), above=False,
            why=Refuted({'value': 2}, 'value 2 ≠ 2 + 1'))


# ---- hong-kung ----------------------------------------------------------------------------------

FAN_PARTS = [[f"x{p}_{i}" for i in range(3)] + [f"s{p}"] for p in range(3)]


@pytest.fixture(scope="module")
def fans_record() -> BoundRecord:
    record = hong_kung_route(FANS, 4)
    assert (record.value, record.certificate["P"]) == (4, 2)
    return record


def test_twin__check_hong_kung__hypotheses() -> None:
    """Hong–Kung with 'outputs = sinks' dropped: a → b plus nine unneeded sinks (the claim
    twin lower_bounds.twin.hong_kung_unneeded_sinks): the certificate that holds with the sinks
    as outputs is refuted when only b is an output."""
    G = _dag([("a", "b")] + [("a", f"s{i}") for i in range(9)], ["b"])
    sinks = G.copy()
    del sinks.graph["outputs"]
    honest = hong_kung_route(sinks, 2)
    assert honest.applies and check_certificate(sinks, 2, honest).proved
    verdict = check_certificate(G, 2, honest)
    assert isinstance(verdict, Refuted) and honest.value > optimum(G, 2)


def test_twin__check_hong_kung__value_is_formula(fans_record) -> None:
    assert_rejects(FANS, 4, fans_record, forged(fans_record, value=5), above=False,
            why=Refuted({'value': 5, 'P': 2}, 'value ≠ M·(P − 1)'))
    assert_rejects(FANS, 4, fans_record, forged(fans_record, P="2"), above=False,
            why=Refuted({'value': 4, 'P': '2'}, 'value ≠ M·(P − 1)'))


def test_twin__check_hong_kung__partition_valid(fans_record) -> None:
    # two parts that depend on each other (x0_0 feeds s0 in the other part, x1_* feed s1 here)
    cyclic = [["x0_0", "s1"], [v for v in FANS if v not in ("x0_0", "s1")]]
    assert_rejects(FANS, 4, fans_record, forged(fans_record, partition=cyclic), above=False,
            why=Refuted({'P': 2},
                        'certificate partition rejected: P2: part 1 needs a dominator of size '
                        '9 > S=8'))


def test_twin__check_hong_kung__partition_has_p_parts(fans_record) -> None:
    assert_rejects(FANS, 4, fans_record, forged(fans_record, partition=FAN_PARTS), above=False,
            why=Refuted({'P': 2}, 'certificate partition rejected: valid 8-partition into 3 parts'))


def test_twin__check_hong_kung__p_is_least(fans_record) -> None:
    """Six valid parts (each fan split into its inputs and its sum) do not make P = 6."""
    six = [part for p in FAN_PARTS for part in (p[:3], p[3:])]
    assert_rejects(FANS, 4, fans_record, forged(fans_record, value=4 * 5, P=6, partition=six),
            above=True,
                    why=Refuted({'P': 6, 'lower': 2},
                                'a fresh z3 run does not certify P ≥ 6 (lower 2)'))


# ---- per-part -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def per_part() -> dict[str, BoundRecord]:
    return {r.route: r for r in per_part_routes(matmul_dag(2, 2, 2), 3)}


def test_twin__check_per_part__hypotheses(per_part) -> None:
    G = matmul_dag(2, 2, 2)
    G.graph["outputs"] = sorted(G.graph["outputs"]) + ["P[0,0,0]"]   # an output that is no sink
    record = per_part["per-part: matmul products"]
    assert check_certificate(matmul_dag(2, 2, 2), 3, record).proved
    assert check_certificate(G, 3, record) == Refuted(
        {"route": "per-part: matmul products"}, "certificate unusable: outputs must be exactly "
        "the sinks for HK Lemma 3.1; they differ at ['P[0,0,0]']")


def test_twin__check_per_part__builtin_confirmed(per_part) -> None:
    G = matmul_dag(2, 2, 2)
    record = per_part["per-part: matmul products"]
    assert_rejects(G, 3, record, forged(record, kind="attention-forward"), above=False,
            why=Refuted({'kind': 'attention-forward'}, 'certificate names another kind'))
    other = G.copy()
    other.add_edge("A[0,0]", "C[1,1]")            # the declared sizes no longer rebuild it
    verdict = check_certificate(other, 3, record)
    assert verdict.counterexample == {"route": "per-part: matmul products"}
    assert verdict.detail.startswith("certificate unusable: graph.params ")


def test_twin__check_per_part__recount(per_part) -> None:
    from attnio.graphs.lower_bounds.counting import partition_route_value

    G = matmul_dag(2, 2, 2)
    for name, record in per_part.items():
        counted, beta = record.certificate["counted"], record.certificate["part_bound"]
        assert record.value == partition_route_value(counted, beta, 3) and record.value == (
            3 if name.endswith("products") else 0)
        why = Refuted({"counted": counted, "part_bound": beta},
                      f"recounted N = {counted}, β = {beta} differ from the certificate")
        more = forged(record, value=partition_route_value(counted * 4, beta, 3),
                      counted=counted * 4)
        assert_rejects(G, 3, record, more, above=False, why=why)
        smaller = forged(record, value=partition_route_value(counted, 1, 3), part_bound=1)
        assert_rejects(G, 3, record, smaller, above=False, why=why)


def test_twin__check_per_part__value_is_formula(per_part) -> None:
    G = matmul_dag(2, 2, 2)
    for record in per_part.values():
        assert_rejects(G, 3, record, forged(record, value=record.value + 1), above=False,
                why=Refuted({"value": record.value + 1, "recomputed": record.value},
                            "value differs"))


# ---- spill-windows ------------------------------------------------------------------------------

def _spill(G: nx.DiGraph, M: int, U: list[str], outside: list[str], forced: list[dict],
           window: int | None = None, writes: int | None = None) -> BoundRecord:
    """A spill-windows record whose value is what its certificate adds up to."""
    outs = [o for o in (G.graph.get("outputs") or [v for v in G if G.out_degree(v) == 0])
            if G.in_degree(o) > 0]
    window = independent_window_min(G, U, M) if window is None else window
    charge = sum(t["charge"] for t in forced)
    cert = {"U": U, "window_reads": window, "inputs_outside_U": outside,
            "forced_sets": forced, "output_writes": len(outs) if writes is None else writes}
    return BoundRecord("spill-windows", window + len(outside) + charge + len(outs), True, None,
                       cert)


SMALL_SET = {"at": C, "set": [P0, P1], "charge": 2}


def test_twin__check_spill_windows__u_distinct() -> None:
    honest = spill_windows_bound(SMALL, 3)
    assert_rejects(SMALL, 3, honest, forged(honest, U=[P0, P0, P1, C]), above=False,
            why=Refuted({'U': ['P[0,0,0]', 'P[0,0,0]', 'P[0,0,1]', 'C[0,0]']},
                        'U repeats a vertex'))


def test_twin__check_spill_windows__u_must_compute() -> None:
    honest = spill_windows_bound(SPARE, 3)
    assert_rejects(SPARE, 3, honest, _spill(SPARE, 3, ["c", "y"], [], []), above=True,
            why=Refuted({'vertex': 'y'}, "'y' is not a vertex that must be computed"))


@pytest.mark.parametrize("size,M,want", [((2, 1, 2), 4, 4), ((3, 1, 3), 4, 6),
                                          ((2, 2, 2), 4, 8), ((2, 1, 2), 3, 5),
                                          ((3, 1, 3), 3, 10)])
def test_the_checkers_window_minimum_is_the_routes(size, M, want) -> None:
    """The second implementation (the checker's) equals the route's DP, where the slack
    M − in-degree − 1 of a computation decides the count (with one pebble less of slack, as
    at M − 1, the minimum is higher: 5, 10, 10)."""
    from attnio.graphs.lower_bounds import choose_window_set, must_compute, window_reads_min

    G = matmul_dag(*size)
    inputs, _, N, _ = must_compute(G)
    U = choose_window_set(G, N, inputs, M, 12)
    assert independent_window_min(G, U, M) == window_reads_min(G, U, M)[0] == want
    some = frozenset(sorted(inputs)[:2])
    assert independent_window_min(G, U, M, uncounted=some) == \
        window_reads_min(G, U, M, uncounted=some)[0] < want


def test_twin__check_spill_windows__window_minimum() -> None:
    honest = spill_windows_bound(SMALL, 3)
    assert_rejects(SMALL, 3, honest, _spill(SMALL, 3, [P0, P1, C], [], [SMALL_SET], window=5),
            above=True,
                    why=Refuted({'claimed': 5, 'recomputed': 4}, 'window minimum recomputed as 4'))


def test_twin__check_spill_windows__outside_is_input() -> None:
    honest = spill_windows_bound(SMALL, 3)
    assert_rejects(SMALL, 3, honest, _spill(SMALL, 3, [P0, P1, C], [P0], [SMALL_SET]), above=True,
            why=Refuted({'vertex': 'P[0,0,0]'}, "'P[0,0,0]' is not a needed input outside pred(U)"))


def test_twin__check_spill_windows__outside_not_covered() -> None:
    honest = spill_windows_bound(SMALL, 3)
    assert_rejects(SMALL, 3, honest, _spill(SMALL, 3, [P0, P1, C], ["A[0,0]"], [SMALL_SET]),
            above=True,
                    why=Refuted({'vertex': 'A[0,0]'},
                                "'A[0,0]' is not a needed input outside pred(U)"))


def test_twin__check_spill_windows__outside_is_needed() -> None:
    honest = spill_windows_bound(SPARE, 3)
    assert_rejects(SPARE, 3, honest, _spill(SPARE, 3, ["c"], ["x"], []), above=True,
            why=Refuted({'vertex': 'x'}, "'x' is not a needed input outside pred(U)"))


def test_twin__check_spill_windows__outside_distinct() -> None:
    inputs = ["A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]"]
    honest = _spill(SMALL, 3, [], inputs, [SMALL_SET])      # no window: every input outside U
    assert honest.value == 7
    assert_rejects(SMALL, 3, honest, _spill(SMALL, 3, [], inputs + ["A[0,0]"], [SMALL_SET]),
            above=True, why=Refuted({}, 'inputs_outside_U repeats a vertex'))


def test_twin__check_spill_windows__forced_family() -> None:
    """At M = 4 the products' set is not forced (|pred(a) ∪ T| = 4 = M)."""
    honest = spill_windows_bound(SMALL, 4)
    assert_rejects(SMALL, 4, honest, _spill(SMALL, 4, [P0, P1], [], [SMALL_SET]), above=True,
            why=Refuted({'vertex': 'P[0,0,0]', 'set': ['P[0,0,0]', 'P[0,0,1]']},
                        "|pred(P[0,0,0]) ∪ T| ≤ M: 'P[0,0,0]' could be computed last"))


def test_twin__check_spill_windows__output_writes() -> None:
    assert_output_writes_recounted(SMALL, 3, spill_windows_bound(SMALL, 3), total=7)


def test_twin__check_spill_windows__value_is_sum() -> None:
    assert_value_recomputed(SMALL, 3, spill_windows_bound(SMALL, 3), total=7, claimed=(8, 6))


# ---- verify_forced (the forced-spill family of routes 4 and 6) ---------------------------------

SMALL_INPUTS = {"A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]"}


def _forced(G: nx.DiGraph, M: int, family: list[dict], **kw: Any) -> int | Refuted:
    inputs = {v for v in G if G.in_degree(v) == 0}
    outs = set(G.graph.get("outputs") or [v for v in G if G.out_degree(v) == 0]) - inputs
    return verify_forced(G, M, family, outs, inputs, **kw)


def test_twin__verify_forced__at_must_compute() -> None:
    G = SMALL.copy()
    G.add_edges_from([(P0, "z"), (P1, "z")])       # z is computable but no output needs it
    G.graph["outputs"] = [C]
    assert _forced(G, 3, [SMALL_SET]) == 2
    assert _forced(G, 3, [{**SMALL_SET, "at": "z"}]) == Refuted(
        {"at": "z"}, "'z' is not a vertex that must be computed")


def test_twin__verify_forced__set_distinct() -> None:
    # below the least M (2 < 3) a single vertex does exceed M: only the size rule rejects it
    assert _forced(SMALL, 2, [SMALL_SET]) == 2
    for T in ([P0], [P0, P0]):
        assert _forced(SMALL, 2, [{**SMALL_SET, "set": T}]) == Refuted(
            {"set": T}, "a forced set has ≥ 2 distinct vertices")


def test_twin__verify_forced__set_non_input_predecessors() -> None:
    # four inputs into s at M = 3 (below the least M): |pred(x) ∪ T| = 4 > 3 for each input
    G = _dag([(f"x{i}", "s") for i in range(4)])
    assert _forced(G, 3, [{"at": "s", "set": ["x0", "x1", "x2", "x3"], "charge": 1}]) == \
        Refuted({"vertex": "x0"}, "'x0' is not a non-input predecessor of 's'")
    # products of C[0,0] claimed at C[0,1], which they do not feed (matmul 1x2x2, M = 3)
    assert _forced(MM122, 3, [SMALL_SET]) == 2
    assert _forced(MM122, 3, [{**SMALL_SET, "at": "C[0,1]"}]) == Refuted(
        {"vertex": P0}, "'P[0,0,0]' is not a non-input predecessor of 'C[0,1]'")


def test_twin__verify_forced__set_outside_exclude() -> None:
    assert _forced(SMALL, 3, [SMALL_SET], exclude=frozenset({"B[0,0]"})) == 2
    assert _forced(SMALL, 3, [SMALL_SET], exclude=frozenset({P1})) == Refuted(
        {"vertex": P1}, "'P[0,0,1]' is not a non-input predecessor of 'C[0,0]' outside H")


def test_twin__verify_forced__set_exceeds_m() -> None:
    assert _forced(SMALL, 4, [SMALL_SET]) == Refuted(      # 4 = M: not forced
        {"vertex": P0, "set": [P0, P1]}, "|pred(P[0,0,0]) ∪ T| ≤ M: 'P[0,0,0]' could be "
                                         "computed last")
    assert _forced(SMALL, 3, [SMALL_SET]) == 2


def test_twin__verify_forced__sets_disjoint() -> None:
    honest = spill_windows_bound(MM122, 3)
    family = honest.certificate["forced_sets"]
    assert family and _forced(MM122, 3, family) == 2 * len(family)
    U = honest.certificate["U"]
    twin = _spill(MM122, 3, U, honest.certificate["inputs_outside_U"], family + family[:1])
    assert_rejects(MM122, 3, honest, twin, above=True,
            why=Refuted({'set': ['P[0,0,0]', 'P[0,0,1]']}, 'forced sets overlap'))


def test_verify_forced_sets_disjoint_catches_a_partial_overlap() -> None:
    """Two forced sets at different vertices sharing ONE vertex (red team's
    ``forced-overlap``: a check that only catches a set repeated whole)."""
    G = _dag([("i1", "a"), ("i2", "a"), ("i2", "b"), ("i3", "b"), ("i3", "c"), ("i4", "c"),
              ("a", "w1"), ("b", "w1"), ("b", "w2"), ("c", "w2")])
    one = {"at": "w1", "set": ["a", "b"], "charge": 2}
    other = {"at": "w2", "set": ["b", "c"], "charge": 2}
    assert _forced(G, 3, [one]) == 2 and _forced(G, 3, [other]) == 2   # each alone is honest
    assert _forced(G, 3, [one, other]) == Refuted({"set": ["b", "c"]}, "forced sets overlap")


def test_twin__verify_forced__charge() -> None:
    for charge in (3, 0, "2"):
        assert _forced(SMALL, 3, [{**SMALL_SET, "charge": charge}]) == Refuted(
            {"set": [P0, P1], "charge": charge}, f"charge {charge} is not 1 or 2, at most 2")
    assert _forced(SMALL, 3, [{**SMALL_SET, "charge": 1}]) == 1
    G = SMALL.copy()
    G.graph["outputs"] = [C, P0]                   # the set holds an output: one read only
    honest = spill_windows_bound(G, 3)
    assert honest.certificate["forced_sets"] == [{**SMALL_SET, "charge": 1}]
    U = honest.certificate["U"]
    assert_rejects(G, 3, honest, _spill(G, 3, U, [], [SMALL_SET]), above=True,
            why=Refuted({'set': ['P[0,0,0]', 'P[0,0,1]'], 'charge': 2},
                        'charge 2 is not 1 or 2, at most 1'))


# ---- saturation-windows -------------------------------------------------------------------------

def _saturation(G: nx.DiGraph, M: int, U: list[str], family: list[dict], outside: list[str],
                dp: int | None = None, writes: int | None = None) -> BoundRecord:
    outs = [o for o in (G.graph.get("outputs") or [v for v in G if G.out_degree(v) == 0])
            if G.in_degree(o) > 0]
    dp = _independent_saturation_min(G, M, U, family) if dp is None else dp
    cert = {"U": U, "saturating_sets": family, "reads_and_spills": dp,
            "inputs_outside_U": outside, "output_writes": len(outs) if writes is None else writes}
    return BoundRecord("saturation-windows", dp + len(outside) + len(outs), True, None, cert)


SAT_SET = {"at": C, "set": [P0, P1], "charge": 2, "choices": [P0, P1]}   # saturating at M = 4


def test_twin__check_saturation__u_must_compute() -> None:
    honest = saturation_windows_bound(SPARE, 3)
    assert_rejects(SPARE, 3, honest, _saturation(SPARE, 3, ["c", "y"], [], []), above=True,
            why=Refuted({'vertex': 'y'}, "'y' is not a vertex that must be computed"))


def test_twin__check_saturation__set_distinct_disjoint() -> None:
    honest = saturation_windows_bound(MM122, 4)
    sets = honest.certificate["saturating_sets"]
    U = honest.certificate["U"]
    assert len(sets) == 2 and honest.value == 8 and optimum(MM122, 4) == 9
    assert_rejects(MM122, 4, honest, _saturation(MM122, 4, U, sets + sets[:1], []), above=False,
            why=Refuted({'set': ['P[0,0,0]', 'P[0,0,1]']},
                        'sets must have ≥ 2 distinct vertices and be disjoint'))
    assert_rejects(MM122, 4, honest, _saturation(MM122, 4, U, [{**sets[0], "set": [P0, P0]}], []),
            above=False,
                    why=Refuted({'set': ['P[0,0,0]', 'P[0,0,0]']},
                                'sets must have ≥ 2 distinct vertices and be disjoint'))


def test_twin__check_saturation__at_must_compute() -> None:
    G = SMALL.copy()
    G.add_edges_from([(P0, "z"), (P1, "z")])
    G.graph["outputs"] = [C]
    U = [P0, P1, C]
    honest = _saturation(G, 4, U, [SAT_SET], [])
    assert_rejects(G, 4, honest, _saturation(G, 4, U, [{**SAT_SET, "at": "z"}], []), above=False,
            why=Refuted({'at': 'z'}, "'z' is not a vertex that must be computed"))


def test_twin__check_saturation__set_non_input_predecessors() -> None:
    U = [P0, P1, C]
    honest = _saturation(MM122, 4, U, [SAT_SET], ["B[0,1]", "B[1,1]"])
    twin = _saturation(MM122, 4, U, [{**SAT_SET, "at": "C[0,1]"}], ["B[0,1]", "B[1,1]"])
    assert_rejects(MM122, 4, honest, twin, above=False,
            why=Refuted({'vertex': 'P[0,0,0]'},
                        "'P[0,0,0]' is not a non-input predecessor of 'C[0,1]'"))
    # inputs never spill; |pred(x) ∪ T| = |T| ≥ M only below the least M (2 < 4 here)
    G = _dag([("i", "a"), ("j", "a"), ("a", "w"), ("k", "w"), ("l", "w")])
    inputs_set = {"at": "w", "set": ["k", "l"], "charge": 2, "choices": ["k", "l"]}
    assert check_certificate(G, 2, _saturation(G, 2, ["a", "w"], [], [])).proved
    assert check_certificate(G, 2, _saturation(G, 2, ["a", "w"], [inputs_set], [])) == \
        Refuted({"vertex": "k"}, "'k' is not a non-input predecessor of 'w'")


def test_twin__check_saturation__set_saturating() -> None:
    """At M = 5 the products' set is not saturating (|pred(a) ∪ T| = 4 < 5); the choices are
    the (empty) equality set, so only the saturation rule can reject it."""
    U = [P0, P1, C]
    honest = _saturation(SMALL, 5, U, [], [])
    assert_rejects(SMALL, 5, honest, _saturation(SMALL, 5, U, [{**SAT_SET, "choices": []}], []),
            above=True, why=Refuted({'vertex': 'P[0,0,0]'}, '|pred(P[0,0,0]) ∪ T| = 4 < M'))


def test_twin__check_saturation__choices_exact() -> None:
    U = [P0, P1, C]
    honest = _saturation(SMALL, 4, U, [SAT_SET], [])
    assert_rejects(SMALL, 4, honest, _saturation(SMALL, 4, U, [{**SAT_SET, "choices": [P0]}], []),
            above=False,
                    why=Refuted({'vertex': 'P[0,0,1]'},
                                'choices must be exactly the a with equality'))
    assert_rejects(SMALL, 3, saturation_windows_bound(SMALL, 3),
            _saturation(SMALL, 3, U, [{**SAT_SET, "choices": [P0]}], []), above=False,
                    why=Refuted({'vertex': 'P[0,0,0]'},
                                'choices must be exactly the a with equality'))


def test_twin__check_saturation__charge() -> None:
    U = [P0, P1, C]
    honest = _saturation(SMALL, 4, U, [SAT_SET], [])
    assert check_certificate(SMALL, 4, _saturation(SMALL, 4, U, [{**SAT_SET, "charge": 1}],
                                                   [])).proved      # a charge may be lower
    assert_rejects(SMALL, 4, honest, _saturation(SMALL, 4, U, [{**SAT_SET, "charge": 3}], []),
            above=False, why=Refuted({'set': ['P[0,0,0]', 'P[0,0,1]']}, 'charge too large'))
    G = SMALL.copy()
    G.graph["outputs"] = [C, P0]                   # an output in the set: charge at most 1
    honest = _saturation(G, 4, U, [{**SAT_SET, "charge": 1}], [])
    assert_rejects(G, 4, honest, _saturation(G, 4, U, [SAT_SET], []), above=False,
            why=Refuted({'set': ['P[0,0,0]', 'P[0,0,1]']}, 'charge too large'))


def test_twin__check_saturation__sets_in_u() -> None:
    """Issue 36's soundness sweep (benchmarks/checker_soundness.py, seed 0): with C[0,0] left
    out of U the DP cannot take the saturated event, charges the set, and claimed 7 > Q = 5."""
    honest = _saturation(SMALL, 4, [P0, P1, C], [SAT_SET], [])
    twin = _saturation(SMALL, 4, [P0, P1], [SAT_SET], [])
    assert twin.value == 7
    assert_rejects(SMALL, 4, honest, twin, above=True,
            why=Refuted({"at": C, "set": [P0, P1]}, "a set's vertex and members must be in U "
                                                    "(its saturated event is one of the DP's)"))
    assert_rejects(SMALL, 4, honest, _saturation(SMALL, 4, [P0, C], [SAT_SET], []), above=False)


def test_twin__check_saturation__dp_minimum() -> None:
    honest = saturation_windows_bound(SMALL, 4)
    cert = honest.certificate
    twin = _saturation(SMALL, 4, cert["U"], cert["saturating_sets"], [],
                       dp=cert["reads_and_spills"] + 1)
    assert_rejects(SMALL, 4, honest, twin, above=True,
            why=Refuted({'claimed': 5, 'recomputed': 4}, 'DP minimum differs'))


def test_twin__check_saturation__outside_needed_inputs() -> None:
    honest = saturation_windows_bound(SPARE, 3)
    assert_rejects(SPARE, 3, honest, _saturation(SPARE, 3, ["c"], [], ["x"]), above=True,
            why=Refuted({'inputs_outside_U': ['x']},
                        'not distinct needed inputs outside U'))   # unneeded
    assert_rejects(SPARE, 3, honest, _saturation(SPARE, 3, ["c"], [], ["a"]), above=True,
            why=Refuted({'inputs_outside_U': ['a']},
                        'not distinct needed inputs outside U'))   # covered
    assert_rejects(SPARE, 3, honest, _saturation(SPARE, 3, ["c"], [], ["y"]), above=True,
            why=Refuted({'inputs_outside_U': ['y']},
                        'not distinct needed inputs outside U'))   # no input
    inputs = ["a", "b"]
    honest = _saturation(SPARE, 3, [], [], inputs)
    assert_rejects(SPARE, 3, honest, _saturation(SPARE, 3, [], [], inputs + ["a"]), above=True,
            why=Refuted({'inputs_outside_U': ['a', 'b', 'a']},
                        'not distinct needed inputs outside U'))


def test_twin__check_saturation__output_writes() -> None:
    assert_output_writes_recounted(SMALL, 4, saturation_windows_bound(SMALL, 4), total=5)


def test_twin__check_saturation__value_is_sum() -> None:
    assert_value_recomputed(SMALL, 4, saturation_windows_bound(SMALL, 4), total=5, claimed=(6,))


# ---- sub-dag-exact ------------------------------------------------------------------------------

def _subdag(G: nx.DiGraph, M: int, H_outputs: list[str], Q_H: int, U: list[str],
            outside: list[str], forced: list[dict], writes: list[str],
            window: int | None = None) -> BoundRecord:
    from attnio.graphs.lower_bounds import ancestor_subdag

    H = ancestor_subdag(G, H_outputs)
    inputs = {v for v in G if G.in_degree(v) == 0}
    if window is None:
        window = independent_window_min(G, U, M, uncounted=frozenset(inputs & set(H)))
    cert = {"H_outputs": H_outputs, "H_vertices": H.number_of_nodes(), "Q_H": Q_H, "U": U,
            "window_reads": window, "inputs_outside": outside, "forced_sets": forced,
            "forced_moves": sum(t["charge"] for t in forced), "output_writes_outside": writes}
    value = Q_H + window + len(outside) + cert["forced_moves"] + len(writes)
    return BoundRecord("sub-dag-exact", value, True, None, cert)


OUTER_SET = {"at": "C[0,1]", "set": ["P[0,1,0]", "P[0,1,1]"], "charge": 2}
OUTER_INPUTS = ["B[0,1]", "B[1,1]"]


@pytest.fixture(scope="module")
def mm122_subdag() -> BoundRecord:
    """H = the closure of C[0,0] in matmul 1x2x2 at M = 3 (Q(H) = 7), the rest counted by
    outside_moves: 7 + 2 + 2 + 1 = 12 ≤ Q = 13."""
    from attnio.graphs.lower_bounds import ancestor_subdag

    rest = outside_moves(MM122, 3, frozenset(ancestor_subdag(MM122, [C])))
    record = _subdag(MM122, 3, [C], 7, rest["U"], rest["inputs_outside"], rest["forced_sets"],
                     rest["output_writes_outside"])
    assert record.value == 12
    return record


def _bare(**changes: Any) -> BoundRecord:
    """H = closure of C[0,0] in matmul 1x2x2 with U empty: every input outside H is listed."""
    parts = {"H_outputs": [C], "Q_H": 7, "U": [], "outside": OUTER_INPUTS,
             "forced": [OUTER_SET], "writes": ["C[0,1]"], **changes}
    return _subdag(MM122, 3, **parts)


def test_twin__check_subdag__h_outputs(mm122_subdag) -> None:
    for outputs in (["A[0,0]"], [], [P0]):
        assert_rejects(MM122, 3, mm122_subdag, forged(mm122_subdag, H_outputs=outputs), above=False,
                why=Refuted({"H_outputs": outputs}, "H's outputs must be non-input outputs of G"))


def test_twin__check_subdag__q_h(mm122_subdag) -> None:
    assert_rejects(MM122, 3, mm122_subdag, forged(mm122_subdag, value=14, Q_H=9), above=True,
            why=Refuted({'claimed': 9, 'plain': 7}, 'Q(H) re-solved by the plain baseline is 7'))


def test_twin__check_subdag__u_must_compute() -> None:
    honest = _subdag(SPARE, 3, ["c"], 3, [], [], [], [])
    assert_rejects(SPARE, 3, honest, _subdag(SPARE, 3, ["c"], 3, ["y"], [], [], []), above=True,
            why=Refuted({'vertex': 'y'}, "'y' is not a vertex that must be computed"))


def test_twin__check_subdag__window_minimum(mm122_subdag) -> None:
    cert = mm122_subdag.certificate
    twin = forged(mm122_subdag, value=mm122_subdag.value + 2,
                  window_reads=cert["window_reads"] + 2)
    assert_rejects(MM122, 3, mm122_subdag, twin, above=True,
            why=Refuted({'claimed': 4, 'recomputed': 2}, 'window minimum differs'))


def test_twin__check_subdag__outside_is_input() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(outside=OUTER_INPUTS + ["P[0,1,0]", "P[0,1,1]"]),
            above=True,
                    why=Refuted({'inputs_outside': ['B[0,1]', 'B[1,1]', 'P[0,1,0]', 'P[0,1,1]']},
                                'not distinct needed inputs outside H, U'))


def test_twin__check_subdag__outside_not_covered() -> None:
    U = ["P[0,1,0]", "P[0,1,1]"]
    honest = _bare(U=U, outside=[])
    assert_rejects(MM122, 3, honest, _bare(U=U, outside=OUTER_INPUTS), above=False,
            why=Refuted({'inputs_outside': ['B[0,1]', 'B[1,1]']},
                        'not distinct needed inputs outside H, U'))
    assert_rejects(MM122, 3, _bare(), _bare(U=U, outside=OUTER_INPUTS + ["A[0,0]", "A[0,1]"]),
            above=False,
                    why=Refuted({'inputs_outside': ['B[0,1]', 'B[1,1]', 'A[0,0]', 'A[0,1]']},
                                'not distinct needed inputs outside H, U'))


def test_twin__check_subdag__outside_not_in_h() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(outside=OUTER_INPUTS + ["A[0,0]", "A[0,1]"]), above=True,
            why=Refuted({'inputs_outside': ['B[0,1]', 'B[1,1]', 'A[0,0]', 'A[0,1]']},
                        'not distinct needed inputs outside H, U'))


def test_twin__check_subdag__outside_is_needed() -> None:
    honest = _subdag(SPARE, 3, ["c"], 3, [], [], [], [])
    assert_rejects(SPARE, 3, honest, _subdag(SPARE, 3, ["c"], 3, [], ["x"], [], []), above=True,
            why=Refuted({'inputs_outside': ['x']}, 'not distinct needed inputs outside H, U'))


def test_twin__check_subdag__outside_distinct() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(outside=OUTER_INPUTS * 2), above=True,
            why=Refuted({'inputs_outside': ['B[0,1]', 'B[1,1]', 'B[0,1]', 'B[1,1]']},
                        'not distinct needed inputs outside H, U'))


def test_twin__check_subdag__forced_family() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(forced=[OUTER_SET, SMALL_SET]), above=True,
            why=Refuted({'vertex': 'P[0,0,0]'},
                        "'P[0,0,0]' is not a non-input predecessor of 'C[0,0]' outside H"))
    bad_charge = {**OUTER_SET, "charge": 4}
    assert_rejects(MM122, 3, _bare(), _bare(forced=[bad_charge]), above=True,
            why=Refuted({'set': ['P[0,1,0]', 'P[0,1,1]'], 'charge': 4},
                        'charge 4 is not 1 or 2, at most 2'))


def test_twin__check_subdag__writes_are_outputs() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(writes=["C[0,1]", "P[0,1,0]", "P[0,1,1]"]), above=True,
            why=Refuted({'writes': ['C[0,1]', 'P[0,1,0]', 'P[0,1,1]']},
                        'not distinct non-input outputs outside H'))


def test_twin__check_subdag__writes_outside_h() -> None:
    """Issue 36: the output writes of H counted again outside H — with H = all of matmul
    1x2x2 (Q(H) = Q = 13) and both outputs 'written outside', 15 > 13."""
    both = [C, "C[0,1]"]
    honest = _subdag(MM122, 3, both, 13, [], [], [], [])
    twin = _subdag(MM122, 3, both, 13, [], [], [], both)
    assert twin.value == 15
    assert_rejects(MM122, 3, honest, twin, above=True,
            why=Refuted({'writes': ['C[0,0]', 'C[0,1]']},
                        'not distinct non-input outputs outside H'))
    assert_rejects(MM122, 3, _bare(), _bare(writes=["C[0,1]", C]), above=False,
            why=Refuted({'writes': ['C[0,1]', 'C[0,0]']},
                        'not distinct non-input outputs outside H'))


def test_twin__check_subdag__writes_distinct() -> None:
    assert_rejects(MM122, 3, _bare(), _bare(writes=["C[0,1]"] * 3), above=True,
            why=Refuted({'writes': ['C[0,1]', 'C[0,1]', 'C[0,1]']},
                        'not distinct non-input outputs outside H'))


def test_twin__check_subdag__value_is_sum(mm122_subdag) -> None:
    assert_value_recomputed(MM122, 3, mm122_subdag, total=12, claimed=(14, 11))


def test_check_subdag_hands_its_deadline_to_each_phase(monkeypatch) -> None:
    """With the re-solve of H done (planted: it reads no clock), an expired deadline stops the
    window minimum, and — with no window to compute — the forced-spill family: Undecided."""
    import attnio.graphs.lower_bounds.subdag as subdag
    from attnio.graphs.lower_bounds.deadline import CHECK_TIME_LIMIT_REASON

    solved = resolve_for_checker(MM122, 3, [C], OUTS, 30, Deadline.never())
    monkeypatch.setattr(subdag, "resolve_for_checker", lambda *args: solved)
    past = Deadline(0.0)
    windowed = _bare(U=["P[0,1,0]", "P[0,1,1]"], outside=[], forced=[])
    forced_only = _bare()
    for record in (windowed, forced_only):
        assert check_certificate(MM122, 3, record).proved
        assert check_certificate(MM122, 3, record, deadline=past) == Undecided(
            CHECK_TIME_LIMIT_REASON)


# ---- resolve_for_checker (the sub-DAG re-solve of routes 6 and 7) -------------------------------

OUTS = [C, "C[0,1]"]


def test_twin__resolve_for_checker__outputs_nonempty() -> None:
    assert resolve_for_checker(MM122, 3, [], OUTS, 30, Deadline.never()) == Refuted(
        {"H_outputs": []}, "H's outputs must be non-input outputs of G")


def test_twin__resolve_for_checker__outputs_are_non_input_outputs() -> None:
    H, plain = resolve_for_checker(MM122, 3, [C], OUTS, 30, Deadline.never())
    assert plain.io == 7 and sorted(H) == sorted(["A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]", P0,
                                                  P1, C])
    for chosen in (["A[0,0]"], [P0], [C, "B[0,0]"]):
        assert resolve_for_checker(MM122, 3, chosen, OUTS, 30, Deadline.never()) == Refuted(
            {"H_outputs": chosen}, "H's outputs must be non-input outputs of G"), chosen


def _chain(n: int) -> nx.DiGraph:
    return _dag([(f"v{i}", f"v{i + 1}") for i in range(n - 1)])      # Q = 2 at M = 2


def test_twin__resolve_for_checker__size() -> None:
    """The checkers re-solve a sub-DAG of at most twice the routes' own limit: 30 vertices for
    sub-dag-exact, 28 for a member of sub-dag-lp."""
    for n, ok in ((30, True), (31, False)):
        record = _subdag(_chain(n), 2, [f"v{n - 1}"], 2, [], [], [], [])
        verdict = check_certificate(_chain(n), 2, record)
        assert verdict.proved if ok else verdict == Refuted({"H_vertices": n},
                                                            "H too large to re-solve"), n
    for n, ok in ((28, True), (29, False)):
        record = _lp([([f"v{n - 1}"], 2, "1")], {})
        verdict = check_certificate(_chain(n), 2, record)
        assert verdict.proved if ok else verdict == Refuted({"H_vertices": n},
                                                            "H too large to re-solve"), n
    assert not isinstance(resolve_for_checker(MM122, 3, [C], OUTS, 7, Deadline.never()),
                          Refuted)
    assert resolve_for_checker(MM122, 3, [C], OUTS, 6, Deadline.never()) == Refuted(
        {"H_vertices": 7}, "H too large to re-solve")


def test_twin__resolve_for_checker__settled(monkeypatch) -> None:
    """A plain baseline that runs out of its budget settles nothing: Refuted, never a pass."""
    def unsettled(H, M, **kw) -> PebbleResult:
        return PebbleResult.undecided(5, 9, "planted: budget exhausted")

    monkeypatch.setattr(baseline, "plain_optimal", unsettled)
    verdict = resolve_for_checker(MM122, 3, [C], OUTS, 30, Deadline.never())
    assert isinstance(verdict, Refuted)
    honest = _bare()
    assert isinstance(check_certificate(MM122, 3, honest), Refuted)


# ---- sub-dag-lp ---------------------------------------------------------------------------------

def _lp(members: list[tuple[list[str], int, str]], units: dict[str, str],
        value: int | None = None) -> BoundRecord:
    from fractions import Fraction
    from math import ceil

    objective = sum((Fraction(w) * q for _, q, w in members), Fraction(0)) + sum(
        (Fraction(w) for w in units.values()), Fraction(0))
    cert = {"members": [{"outputs": T, "Q_H": q, "weight": w} for T, q, w in members],
            "unit_weights": units, "objective": str(objective)}
    return BoundRecord("sub-dag-lp", ceil(objective) if value is None else value, True, None,
                       cert)


def test_twin__check_covering_lp__member_outputs() -> None:
    honest = _lp([(["c"], 3, "1")], {})
    assert_rejects(W, 3, honest, _lp([(["a"], 0, "1"), (["c"], 3, "1")], {}), above=False,
            why=Refuted({'H_outputs': ['a']}, "H's outputs must be non-input outputs of G"))
    assert_rejects(W, 3, honest, _lp([([], 0, "1"), (["c"], 3, "1")], {}), above=False,
            why=Refuted({'H_outputs': []}, "H's outputs must be non-input outputs of G"))


def test_twin__check_covering_lp__member_optimum() -> None:
    assert_rejects(W, 3, _lp([(["c"], 3, "1")], {}), _lp([(["c"], 4, "1")], {}), above=True,
            why=Refuted({'outputs': ['c'], 'claimed': 4, 'plain': 3},
                        'Q(H) re-solved by the plain baseline is 3'))


def test_twin__check_covering_lp__member_weight_nonnegative() -> None:
    assert check_certificate(W, 3, _lp([(["c"], 3, "1"), (["c"], 3, "0")], {"a": "0"})).proved
    assert_rejects(W, 3, _lp([(["c"], 3, "1")], {}), _lp([(["c"], 3, "2"), (["c"], 3, "-1")], {}),
            above=False, why=Refuted({'weight': '-1'}, 'a negative weight'))


def test_twin__check_covering_lp__unit_on_compulsory() -> None:
    """Issue 36: a unit weight on an input no schedule needs to read (x → y, y unneeded)."""
    honest = _lp([(["c"], 3, "1")], {})
    assert_rejects(SPARE, 3, honest, _lp([(["c"], 3, "1")], {"x": "1"}), above=True,
            why=Refuted({'vertex': 'x'}, "'x' is neither a needed input nor an output"))
    G = _dag([("a", "c"), ("b", "c"), ("x", "y"), ("y", "z")], ["c"])
    assert_rejects(G, 3, honest, _lp([(["c"], 3, "1")], {"y": "1"}), above=True,
            why=Refuted({'vertex': 'y'},
                        "'y' is neither a needed input nor an output"))   # not an input


def test_twin__check_covering_lp__unit_weight_nonnegative() -> None:
    """On TRI every vertex is read or written at least once, so weight 2 on the whole DAG
    with −1 on every vertex keeps every load at 1, and 2·7 − 6 = 8 > Q = 7."""
    honest = _lp([(["ab", "bc", "ca"], 7, "1")], {})
    twin = _lp([(["ab", "bc", "ca"], 7, "2")], {v: "-1" for v in TRI})
    assert twin.value == 8
    assert_rejects(TRI, 3, honest, twin, above=True, why=Refuted({'weight': '-1'}, 'a negative weight'))


def test_twin__check_covering_lp__load() -> None:
    """Issue 36: unit weights left out of the loads — member c at weight 1 and unit weights
    1 on its inputs load a and b twice: value 5 on a DAG with Q = 3."""
    honest = _lp([(["c"], 3, "1")], {})
    twin = _lp([(["c"], 3, "1")], {"a": "1", "b": "1"})
    assert twin.value == 5
    assert_rejects(W, 3, honest, twin, above=True,
            why=Refuted({'vertex': 'a', 'load': '2'},
                        "a vertex's load exceeds 1 (the weights are not dual feasible)"))
    assert_rejects(W, 3, honest, _lp([(["c"], 3, "1"), (["c"], 3, "1/100")], {}), above=True,
            why=Refuted({'vertex': 'a', 'load': '101/100'},
                        "a vertex's load exceeds 1 (the weights are not dual feasible)"))
    assert check_certificate(W, 3, _lp([(["c"], 3, "1/2")], {"a": "1/2", "c": "1/2"})).proved


def test_twin__check_covering_lp__value_is_ceiling() -> None:
    honest = _lp([(["c"], 3, "1/2")], {"a": "1/2"})
    assert honest.value == 2
    assert_rejects(W, 3, honest, dataclasses.replace(honest, value=3), above=False,
            why=Refuted({'value': 3, 'objective': '2'}, 'value ≠ ceil(2) = 2'))
    assert_rejects(W, 3, _lp([(["c"], 3, "1")], {}), _lp([(["c"], 3, "1")], {}, value=4), above=True,
            why=Refuted({'value': 4, 'objective': '3'}, 'value ≠ ceil(3) = 3'))


# ---- check_certificate (the dispatch) and CertifiedRoute (what counts as a bound) ---------------

def test_twin__check_certificate__not_applying_is_zero() -> None:
    assert check_certificate(W, 3, BoundRecord("compulsory", 0, False, "skipped")).proved
    assert check_certificate(W, 3, BoundRecord("compulsory", 1, False, "skipped")) == Refuted(
        {"value": 1}, "a route that does not apply claims > 0")
    assert check_certificate(W, 3, BoundRecord("compulsory", 0, False, "x")) == Proved(
        "does not apply (x); value 0")


def test_twin__check_certificate__known_route() -> None:
    honest = compulsory_bound(W, 3)
    for name in ("magic", "per-part", "per-part: magic", "compulsory: extra"):
        assert check_certificate(W, 3, dataclasses.replace(honest, route=name)) == Refuted(
            {"route": name}, f"unknown route {name!r}")


def test_twin__check_certificate__route_checker() -> None:
    """A compulsory certificate under the name of another route is checked by that route's
    checker (which rejects it); a certificate a checker cannot read is Refuted, not raised."""
    honest = compulsory_bound(W, 3)
    assert check_certificate(W, 3, honest).proved
    for name in ("spill-windows", "saturation-windows", "sub-dag-exact", "sub-dag-lp",
                 "hong-kung", "per-part: matmul products"):
        verdict = check_certificate(W, 3, dataclasses.replace(honest, route=name))
        assert isinstance(verdict, Refuted), (name, verdict)
    assert check_certificate(W, 3, forged(honest, value=4)) == Refuted(
        {"value": 4}, "value 4 ≠ 2 + 1")
    assert check_certificate(W, 3, dataclasses.replace(honest, route="sub-dag-lp")) == Refuted(
        {"route": "sub-dag-lp"}, "certificate unusable: 'members'")


def test_twin__certifiedroute__applies() -> None:
    record = BoundRecord("compulsory", 3, False, "skipped")
    assert not CertifiedRoute(record, Proved("does not apply")).certified
    assert CertifiedRoute(dataclasses.replace(record, applies=True), Proved()).certified


def test_twin__certifiedroute__proved() -> None:
    """Issue 36: "not refuted" is not "proved" — a check cut by its time limit (or a solver's
    unknown) never makes a certified bound."""
    record = BoundRecord("compulsory", 3, True)
    assert CertifiedRoute(record, Proved()).certified
    assert not CertifiedRoute(record, Undecided("certificate not checked: time limit")).certified
    assert not CertifiedRoute(record, Refuted({}, "no")).certified
    assert CertifiedRoute(record, Refuted({}, "no")).refuted
    assert not CertifiedRoute(record, Undecided("x")).refuted
