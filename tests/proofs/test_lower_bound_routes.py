"""Tests of attnio.proofs.lower_bound_routes: route_verdict on planted oracles, path by path."""

from __future__ import annotations

import pytest

from attnio.graphs.dags import matmul_dag
from attnio.graphs.lower_bounds import BoundRecord
from attnio.proofs.lower_bound_routes import (FALSE_TWINS, RouteOracles, _optimum, _route_cases,
                                              _route_records, route_verdict)
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
    for route in ("compulsory", "hong-kung", "per-part", "spill-windows", "saturation-windows",
                  "sub-dag-exact"):
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
