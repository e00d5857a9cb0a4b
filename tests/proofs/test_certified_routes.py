"""Tests of attnio.proofs.certified_routes: route_verdict on planted oracles, path by path."""

from __future__ import annotations

import dataclasses

import pytest

from attnio.graphs.dags import matmul_dag
from attnio.graphs.lower_bounds import ROUTES, BoundRecord, Deadline
from attnio.proofs.certified_routes import (
    FALSE_TWINS,
    RouteOracles,
    _optimum,
    _route_cases,
    _route_records,
    route_verdict,
)
from attnio.proofs.registry import CheckContext
from attnio.results import Proved, Refuted, Undecided

pytestmark = pytest.mark.trust

CTX = CheckContext(z3_timeout_ms=5_000, search_seconds=5.0)
CASES = [("g1", "G1", 3), ("g2", "G2", 4)]
OPT = {("G1", 3): 7, ("G2", 4): 9}


def _oracles(records, *, optimum=None, certify=None, least=3, compulsory=5) -> RouteOracles:
    return RouteOracles(
        optimum=optimum or (lambda G, M, seconds: OPT[G, M]),
        records=lambda route, G, M, ctx: records[G],
        certify=certify or (lambda G, M, rec, t: Proved("ok")),
        least_M=lambda G: least, compulsory=lambda G, M: compulsory)


def _rec(value: int, route: str = "spill-windows", applies: bool = True) -> BoundRecord:
    return BoundRecord(route, value, applies, None if applies else "n/a", {})


def test_every_record_at_most_the_optimum_is_proved_with_counts() -> None:
    records = {"G1": [_rec(7), _rec(0), _rec(99, applies=False), _rec(99, "compulsory")],
               "G2": [_rec(6)]}
    v = route_verdict("spill-windows", CASES, CTX, _oracles(records))
    assert isinstance(v, Proved)
    assert (v.evidence.kind, v.evidence.instances, v.evidence.nontrivial_instances) == \
        ("exhaustive", 3, 2)
    assert v.detail == ("3 (instance, M) records ≤ exact Q, certificates accepted; positive on 2, "
                        "above the compulsory I/O on 2")


def test_a_record_one_above_the_optimum_is_refuted() -> None:
    v = route_verdict("spill-windows", CASES, CTX,
                      _oracles({"G1": [_rec(7)], "G2": [_rec(10)]}))
    assert isinstance(v, Refuted) and v.detail == "g2 M=4: spill-windows = 10 > Q = 9"
    assert v.counterexample == {"instance": "g2", "M": 4, "route": "spill-windows",
                                "bound": 10, "optimum": 9}


def test_a_rejected_certificate_is_refuted_before_the_value_is_compared() -> None:
    seen = []

    def certify(G, M, rec, timeout_ms):
        seen.append((G, M, timeout_ms))
        return Refuted({}, "value 6 ≠ 5") if G == "G2" else Proved("ok")

    v = route_verdict("spill-windows", CASES, CTX,
                      _oracles({"G1": [_rec(1)], "G2": [_rec(1)]}, certify=certify))
    assert isinstance(v, Refuted) and v.detail == "g2 M=4: certificate rejected: value 6 ≠ 5"
    assert v.counterexample == {"instance": "g2", "M": 4, "route": "spill-windows"}
    assert seen == [("G1", 3, 5_000), ("G2", 4, 5_000)]


def test_an_undecided_certificate_is_undecided_not_refuted() -> None:
    v = route_verdict("spill-windows", CASES, CTX, _oracles(
        {"G1": [_rec(1)], "G2": [_rec(1)]}, certify=lambda G, M, r, t: Undecided("z3 unknown")))
    assert isinstance(v, Undecided) and v.reason == "g1 M=3: certificate check undecided: z3 unknown"


def test_an_unsettled_optimum_is_undecided_and_infeasibility_is_not() -> None:
    records = {"G1": [_rec(1)], "G2": [_rec(1)]}
    unsettled = _oracles(records, optimum=lambda G, M, s: None if G == "G2" else 7)
    v = route_verdict("spill-windows", CASES, CTX, unsettled)
    assert isinstance(v, Undecided) and v.reason == "1 instances without a settled optimum"
    # M = 4 below the least cache size 5: no schedule exists, nothing to check there
    infeasible = _oracles(records, optimum=lambda G, M, s: None if G == "G2" else 7, least=5)
    v = route_verdict("spill-windows", CASES, CTX, infeasible)
    assert v.proved and v.evidence.instances == 1
    assert isinstance(route_verdict("spill-windows", CASES, CTX, _oracles(
        records, optimum=lambda G, M, s: None if G == "G2" else 7, least=4)), Undecided)


def test_the_optimum_is_asked_with_the_search_budget() -> None:
    asked = []

    def optimum(G, M, seconds):
        asked.append(seconds)
        return OPT[G, M]

    route_verdict("spill-windows", CASES, CTX, _oracles({"G1": [], "G2": []}, optimum=optimum))
    assert asked == [5.0, 5.0]


def test_a_route_zero_everywhere_is_vacuous() -> None:
    v = route_verdict("spill-windows", CASES, CTX,
                      _oracles({"G1": [_rec(0)], "G2": [_rec(0), _rec(3, "other")]}))
    assert isinstance(v, Undecided) and v.reason == "spill-windows: never positive on 2 records — vacuous"
    assert isinstance(route_verdict("spill-windows", [], CTX, _oracles({})), Undecided)


def test_optimum_exact_cached_and_none_when_infeasible() -> None:
    G = matmul_dag(1, 2, 1)
    assert _optimum(G, 3, 5.0) == 7 and _optimum(G, 3, 5.0) == 7
    assert _optimum(G, 4, 5.0) == 5
    assert _optimum(G, 2, 5.0) is None          # below the least cache size
    H = matmul_dag(2, 1, 2)
    assert _optimum(H, 4, 5.0) == 8


def test_route_records_dispatch_on_the_route() -> None:
    G = matmul_dag(1, 2, 1)
    for route in ROUTES:
        recs = _route_records(route, G, 4, CTX)
        assert recs and all(r.route.startswith(route) for r in recs), route
    assert _route_records("compulsory", G, 4, CTX)[0].value == 5   # 4 inputs read, 1 output written
    assert [r.value for r in _route_records("spill-windows", G, 3, CTX)] == [7]


def test_sub_dag_cases_split_by_size() -> None:
    default = _route_cases("sub-dag-exact", "default")
    assert default and all(G.number_of_nodes() <= 10 for _, G, _ in default)
    assert len(_route_cases("compulsory", "default")) == 105
    deep = _route_cases("sub-dag-exact", "deep")
    big = [c for c in _route_cases("compulsory", "default") if c[1].number_of_nodes() > 10]
    assert big and deep[-len(big):] == big
    assert len(deep) == len(_route_cases("compulsory", "deep")) + len(big)


@pytest.mark.parametrize("twin", [t for t in FALSE_TWINS if t.id.startswith(
    "lower_bounds.twin.path_")], ids=lambda t: t.id)
def test_each_failure_path_twin_is_rejected_on_its_path(twin) -> None:
    assert twin.rejects(twin.check(CTX))


def test_route_cases_split_at_ten_vertices() -> None:
    import networkx as nx

    def graph(k: int) -> nx.DiGraph:
        return nx.path_graph(k, create_using=nx.DiGraph)

    tiers = {"default": [("g9", graph(9), 3), ("g10", graph(10), 3), ("g11", graph(11), 3)],
             "deep": [("d20", graph(20), 3)]}
    labels = lambda cases: [c[0] for c in cases]   # noqa: E731
    assert labels(_route_cases("sub-dag-exact", "default", tiers.get)) == ["g9", "g10"]
    assert labels(_route_cases("sub-dag-exact", "deep", tiers.get)) == ["d20", "g11"]
    assert labels(_route_cases("spill-windows", "default", tiers.get)) == ["g9", "g10", "g11"]
    assert labels(_route_cases("spill-windows", "deep", tiers.get)) == ["d20"]


def test_route_check_runs_route_verdict_on_its_tier(monkeypatch) -> None:
    import attnio.proofs.certified_routes as module

    seen = []
    monkeypatch.setattr(module, "route_verdict",
                        lambda route, cases, ctx: seen.append((route, len(cases), ctx)) or "v")
    assert module._route_check("sub-dag-exact", "default")(CTX) == "v"
    assert module._route_check("compulsory", "deep")(CTX) == "v"
    assert seen == [("sub-dag-exact", len(_route_cases("sub-dag-exact", "default")), CTX),
                    ("compulsory", len(_route_cases("compulsory", "deep")), CTX)]


def test_optimum_asks_the_search_once_with_its_budget(monkeypatch) -> None:
    import attnio.proofs.certified_routes as module

    calls = []
    real = module.solve_optimal

    def counting(G, M, **kw):
        calls.append(kw)
        return real(G, M, **kw)

    monkeypatch.setattr(module, "solve_optimal", counting)
    G = matmul_dag(1, 1, 1)
    assert module._optimum(G, 3, 2.5) == module._optimum(G, 3, 2.5) == 3
    assert calls == [{"time_limit": 2.5, "progress": False}]
    assert module._OPT_CACHE[(id(G), 3)] == (G, 3)


def test_optimum_never_trusts_a_cache_entry_of_another_graph() -> None:
    """Keys are ids; an id reused by a new graph must not return the old graph's optimum."""
    import attnio.proofs.certified_routes as module

    G, old = matmul_dag(1, 2, 1), matmul_dag(2, 1, 2)
    module._OPT_CACHE[(id(G), 4)] = (old, 999)
    try:
        assert module._optimum(G, 4, 5.0) == 5
    finally:
        module._OPT_CACHE.pop((id(G), 4), None)


def test_optimum_refuses_a_schedule_that_does_not_replay(monkeypatch) -> None:
    import attnio.proofs.certified_routes as module

    class Replayed:
        io = 1

    monkeypatch.setattr(module, "replay", lambda G, schedule, M: Replayed())
    with pytest.raises(AssertionError, match="^optimal schedule does not replay to its cost$"):
        module._optimum(matmul_dag(1, 3, 1, "chain"), 3, 5.0)


def test_hong_kung_records_get_the_solver_budget(monkeypatch) -> None:
    import attnio.proofs.certified_routes as module

    seen = []
    spy = dataclasses.replace(ROUTES["hong-kung"], compute=lambda G, M, **kw: seen.append(kw)
                              or [BoundRecord("hong-kung", 0, True)])
    monkeypatch.setitem(ROUTES, "hong-kung", spy)
    module._route_records("hong-kung", matmul_dag(1, 1, 1), 3, CTX)
    assert seen == [{"deadline": Deadline.never(), "timeout_ms": 5_000}]


def test_an_infeasible_instance_does_not_stop_the_loop() -> None:
    cases = [("small", "G0", 2)] + CASES
    records = {"G0": [], "G1": [_rec(1)], "G2": [_rec(10)]}
    oracles = _oracles(records, optimum=lambda G, M, s: None if G == "G0" else OPT[G, M])
    v = route_verdict("spill-windows", cases, CTX, oracles)
    assert isinstance(v, Refuted) and v.counterexample["instance"] == "g2"


def test_a_skipped_record_does_not_stop_the_records() -> None:
    records = {"G1": [_rec(99, applies=False), _rec(8)], "G2": [_rec(3, "other"), _rec(10)]}
    v = route_verdict("spill-windows", CASES, CTX, _oracles(records))
    assert isinstance(v, Refuted) and v.counterexample["bound"] == 8


def test_a_record_equal_to_the_compulsory_io_is_not_above_it() -> None:
    v = route_verdict("spill-windows", CASES, CTX, _oracles({"G1": [_rec(5)], "G2": [_rec(6)]}))
    assert v.proved and v.detail.endswith("positive on 2, above the compulsory I/O on 1")


# ---- one planted violation per side condition of route_verdict ----------------------------------

def test_twin__route_verdict__certificate_accepted() -> None:
    records = {"G1": [_rec(7)], "G2": [_rec(6)]}
    assert route_verdict("spill-windows", CASES, CTX, _oracles(records)).proved
    v = route_verdict("spill-windows", CASES, CTX, _oracles(records, certify=lambda G, M, r, t:
                                                            Refuted({}, "forged")))
    assert isinstance(v, Refuted) and "certificate rejected: forged" in v.detail


def test_twin__route_verdict__certificate_decided() -> None:
    v = route_verdict("spill-windows", CASES, CTX, _oracles(
        {"G1": [_rec(7)], "G2": [_rec(6)]},
        certify=lambda G, M, r, t: Undecided("certificate not checked: time limit")))
    assert isinstance(v, Undecided) and not v.proved


def test_twin__route_verdict__within_optimum() -> None:
    assert route_verdict("spill-windows", CASES, CTX,
                         _oracles({"G1": [_rec(7)], "G2": [_rec(9)]})).proved      # = Q
    v = route_verdict("spill-windows", CASES, CTX, _oracles({"G1": [_rec(7)], "G2": [_rec(10)]}))
    assert isinstance(v, Refuted) and (v.counterexample["bound"], v.counterexample["optimum"]) \
        == (10, 9)


def test_twin__route_verdict__optimum_settled() -> None:
    records = {"G1": [_rec(7)], "G2": [_rec(6)]}
    unsettled = _oracles(records, optimum=lambda G, M, s: None if G == "G2" else OPT[G, M])
    assert isinstance(route_verdict("spill-windows", CASES, CTX, unsettled), Undecided)
    # below the least M no schedule exists: nothing to settle there
    infeasible = _oracles(records, optimum=lambda G, M, s: None if G == "G2" else OPT[G, M],
                          least=5)
    assert route_verdict("spill-windows", CASES, CTX, infeasible).proved


def test_twin__route_verdict__non_vacuous() -> None:
    v = route_verdict("spill-windows", CASES, CTX, _oracles({"G1": [_rec(0)], "G2": [_rec(0)]}))
    assert isinstance(v, Undecided) and "vacuous" in v.detail
    assert route_verdict("spill-windows", CASES, CTX,
                         _oracles({"G1": [_rec(0)], "G2": [_rec(1)]})).proved
