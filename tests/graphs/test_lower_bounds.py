"""Soundness of the certified lower-bound routes against the exact solver, and the checkers'
ability to reject forged certificates (graphs/lower_bounds/).

The tests marked ``trust`` check the checkers themselves (``check_certificate``, ``best_bound``,
``certified_lower_bound``) on DAGs of at most 7 vertices, with the answers pinned.
"""

from __future__ import annotations

import dataclasses

import networkx as nx
import pytest

import attnio.graphs.lower_bounds.combined as lower_bounds_module  # where the functions live
from attnio.exceptions import InvalidInputError
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.lower_bounds import (
    BoundRecord,
    best_bound,
    certified_lower_bound,
    check_certificate,
    compulsory_bound,
    hong_kung_route,
    lower_bounds,
    saturation_windows_bound,
    spill_windows_bound,
    subdag_exact_bound,
)
from attnio.results import Proved, Refuted


def _random(seed: int, n: int) -> nx.DiGraph:
    G = random_dag(n, 0.5, seed=seed, max_in_degree=2 if seed % 4 < 2 else 3)
    outputs = sorted(v for v in G if G.out_degree(v) == 0)
    inner = sorted(v for v in G if G.out_degree(v) > 0 and G.in_degree(v) > 0)
    if seed % 2 and inner:
        outputs.append(inner[0])          # a named output that is not a sink
    G.graph["outputs"] = outputs
    return G


# default tier: 12 of the 60 seeds (every DAG size); --runslow: all of them
@pytest.mark.default_slice(12)
@pytest.mark.parametrize("seed", range(60))
def test_routes_never_exceed_the_exact_optimum(seed: int) -> None:
    G = _random(seed, 5 + seed % 4)
    least = min_cache_size(G)
    for M in (least, least + 1):
        records = lower_bounds(G, M, hong_kung=seed % 3 == 0)
        for recompute in (True, False):
            opt = solve_optimal(G, M, recompute=recompute, time_limit=20, progress=False)
            assert opt.verdict == "optimal"
            for rec in records:
                if rec.applies:
                    assert rec.value <= opt.io, (rec.route, rec.value, opt.io, recompute)
        for rec in records:
            assert check_certificate(G, M, rec).proved, rec.route


@pytest.mark.parametrize("M,opt", [(3, 13), (4, 9), (5, 8)])
def test_matmul_1x2x2_against_the_plain_baseline(M: int, opt: int) -> None:
    G = matmul_dag(1, 2, 2)
    q = plain_optimal(G, M)
    assert q.verdict == "optimal" and q.io == opt
    assert best_bound(lower_bounds(G, M)).value <= q.io


def test_spill_windows_tight_on_matmul_chain() -> None:
    # 1x8x1 chain at M = 3: exact optimum 31 (notes/findings_sandwich.md) is met exactly
    assert spill_windows_bound(matmul_dag(1, 8, 1, "chain"), 3).value == 31


def test_compulsory_conventions() -> None:
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("x", "y"), ("u", "c")])
    G.graph["outputs"] = ["b", "x"]        # b is not a sink; x is an input; c, y unneeded
    rec = compulsory_bound(G, 2)
    assert rec.value == 2                  # read a, write b
    assert rec.certificate["needed_inputs"] == ["a"]
    opt = solve_optimal(G, 2, progress=False)
    assert opt.verdict == "optimal" and opt.io == 2


@pytest.mark.parametrize("route", ["compulsory", "spill-windows", "per-part: matmul products",
                                   "hong-kung", "sub-dag-exact", "saturation-windows"])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_forged_values_are_rejected(route: str) -> None:
    G = matmul_dag(2, 2, 2)
    rec = next(r for r in lower_bounds(G, 3) if r.route == route)
    assert check_certificate(G, 3, rec).proved
    forged = dataclasses.replace(rec, value=rec.value + 1)
    assert check_certificate(G, 3, forged).verdict == "refuted"


def test_forged_spill_certificates_are_rejected() -> None:
    G = matmul_dag(1, 2, 1)
    rec = spill_windows_bound(G, 3)
    cert = dict(rec.certificate)
    # a forced set whose condition fails at M = 4 is rejected there
    rec4 = dataclasses.replace(rec, certificate=cert)
    assert check_certificate(G, 4, rec4).verdict == "refuted"
    # a window count above the recomputed minimum is rejected
    bad = dict(cert, window_reads=cert["window_reads"] + 1)
    assert check_certificate(G, 3, dataclasses.replace(rec, certificate=bad,
                                                       value=rec.value + 1)).verdict == "refuted"
    # a non-applying record may not claim a positive value
    assert check_certificate(G, 3, BoundRecord("hong-kung", 1, False, "x")).verdict == "refuted"


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        lower_bounds(matmul_dag(1, 1, 1), 0)
    with pytest.raises(InvalidInputError):
        lower_bounds(nx.DiGraph([("a", "b"), ("b", "a")]), 3)


def test_forged_subdag_optimum_is_rejected() -> None:
    G = matmul_dag(2, 2, 2)
    rec = subdag_exact_bound(G, 4)
    assert rec.applies and rec.value == 13 and check_certificate(G, 4, rec).proved
    cert = dict(rec.certificate, Q_H=rec.certificate["Q_H"] + 1)
    forged = dataclasses.replace(rec, certificate=cert, value=rec.value + 1)
    assert check_certificate(G, 4, forged).verdict == "refuted"


def test_subdag_does_not_apply_when_every_closure_is_too_big() -> None:
    rec = subdag_exact_bound(matmul_dag(1, 4, 2), 4, max_vertices=10)
    assert not rec.applies and rec.value == 0 and rec.why_not


@pytest.mark.trust
def test_saturation_windows_exact_on_matmul_3x1x3() -> None:
    G = matmul_dag(3, 1, 3)
    rec = saturation_windows_bound(G, 4)
    assert rec.value == 17 and check_certificate(G, 4, rec).proved   # exact optimum 17


def test_forged_saturating_sets_are_rejected() -> None:
    G = matmul_dag(1, 2, 2)
    rec = saturation_windows_bound(G, 4)
    family = [dict(t) for t in rec.certificate["saturating_sets"]]
    assert family and check_certificate(G, 4, rec).proved
    family[0]["choices"] = family[0]["choices"][:1]      # a member with equality left out
    forged = dataclasses.replace(rec, certificate=dict(rec.certificate,
                                                       saturating_sets=family))
    assert check_certificate(G, 4, forged).verdict == "refuted"
    # at M = 5 the sets are no longer saturating
    assert check_certificate(G, 5, rec).verdict == "refuted"


# ---- the trust tier: check_certificate, best_bound, certified_lower_bound on small DAGs ----

# five inputs summed at once: P(G, 2) = 3 parts, so Hong–Kung gives 1·(3 − 1) = 2 at M = 1
FAN_IN = nx.DiGraph([(f"x{i}", "s") for i in range(5)])
# matmul 1x2x1 (C = A·B, 7 vertices): compulsory 5, every window route 7 = Q(G, 3)
SMALL = matmul_dag(1, 2, 1)

SMALL_DETAILS = {
    "compulsory": "4 needed inputs read + 1 outputs written",
    "hong-kung": "P = 1: the bound is 0",
    "per-part: matmul products": "N = 2 counted vertices recounted, β(2M) = 7: "
                                 "3·(⌈2/7⌉ − 1) = 0",
    "per-part: Saha-Ye level-1": "N = 3 counted vertices recounted, β(2M) = 63: "
                                 "3·(⌈3/63⌉ − 1) = 0",
    "spill-windows": "window reads 4 (recomputed), 0 inputs outside U, forced spills 2, "
                     "output writes 1",
    "saturation-windows": "reads + spills 6 (recomputed by a second DP), 0 inputs outside U, "
                          "1 output writes",
    "sub-dag-exact": "Q(H) = 7 re-solved by the plain baseline (7 vertices); outside H: "
                     "window reads 0, 0 inputs outside U, forced spills 0, 0 output writes",
    "sub-dag-lp": "1 sub-DAG optima re-solved by the plain baseline; weights dual feasible "
                  "(every load <= 1, exact); ceil(7) = 7",
}


@pytest.fixture(scope="module")
def small_records() -> list[BoundRecord]:
    return lower_bounds(SMALL, 3)


@pytest.mark.trust
def test_every_route_is_dispatched_to_its_own_checker(small_records) -> None:
    assert [(r.route, r.value) for r in small_records] == [
        ("compulsory", 5), ("hong-kung", 0), ("per-part: matmul products", 0),
        ("per-part: Saha-Ye level-1", 0), ("spill-windows", 7), ("saturation-windows", 7),
        ("sub-dag-exact", 7), ("sub-dag-lp", 7)]
    assert solve_optimal(SMALL, 3).io == 7         # no route exceeds the optimum
    for record in small_records:
        verdict = check_certificate(SMALL, 3, record)
        assert verdict == Proved(SMALL_DETAILS[record.route]), record.route


@pytest.mark.trust
def test_every_inflated_record_is_rejected(small_records) -> None:
    for record in small_records + [hong_kung_route(FAN_IN, 1)]:
        G, M = (FAN_IN, 1) if record.route == "hong-kung" and record.value else (SMALL, 3)
        assert check_certificate(G, M, record).proved
        forged = dataclasses.replace(record, value=record.value + 1)
        verdict = check_certificate(G, M, forged)
        assert verdict.verdict == "refuted", record.route


@pytest.mark.trust
def test_a_hong_kung_record_above_zero_is_rechecked() -> None:
    record = hong_kung_route(FAN_IN, 1)
    assert (record.value, record.certificate["P"]) == (2, 3)
    assert check_certificate(FAN_IN, 1, record) == Proved(
        "2-partition with 3 parts checked; P − 1 parts re-refuted by z3")
    forged = dataclasses.replace(record, value=3)
    assert check_certificate(FAN_IN, 1, forged) == Refuted({"value": 3, "P": 3},
                                                           "value ≠ M·(P − 1)")


@pytest.mark.trust
def test_check_certificate_passes_its_timeout_to_the_hong_kung_checker(monkeypatch) -> None:
    seen = []

    def spy(G, M, record, *, deadline=None, timeout_ms):
        seen.append(timeout_ms)
        return Proved("spy")

    routes = lower_bounds_module.ROUTES
    monkeypatch.setitem(routes, "hong-kung", dataclasses.replace(routes["hong-kung"], check=spy))
    record = BoundRecord("hong-kung", 2, True, None, {})
    assert check_certificate(FAN_IN, 1, record) == Proved("spy")
    assert check_certificate(FAN_IN, 1, record, timeout_ms=7) == Proved("spy")
    assert seen == [20_000, 7]


@pytest.mark.trust
def test_a_record_that_does_not_apply_must_claim_zero() -> None:
    assert check_certificate(SMALL, 3, BoundRecord("hong-kung", 0, False, "skipped")) == \
        Proved("does not apply (skipped); value 0")
    assert check_certificate(SMALL, 3, BoundRecord("hong-kung", 1, False, "skipped")) == \
        Refuted({"value": 1}, "a route that does not apply claims > 0")
    assert check_certificate(SMALL, 3, BoundRecord("magic", -1, False, None)).verdict == \
        "refuted"


@pytest.mark.trust
def test_unusable_and_unknown_certificates_are_refuted_not_raised() -> None:
    cases = [
        (SMALL, BoundRecord("sub-dag-exact", 3, True, None, {}),
         "certificate unusable: 'H_outputs'"),                                  # KeyError
        (SMALL, BoundRecord("spill-windows", 3, True, None, {"U": 5}),
         "certificate unusable: 'int' object is not iterable"),                 # TypeError
        (nx.DiGraph([("a", "b"), ("b", "c")], outputs=["b"]),
         BoundRecord("hong-kung", 1, True, None, {"P": 2}),
         "certificate unusable: outputs must be exactly the sinks for HK Lemma 3.1; they "
         "differ at ['b', 'c']"),                                               # AttnioError
        (SMALL, BoundRecord("magic", 1, True), "unknown route 'magic'"),
        (SMALL, BoundRecord("per-part", 1, True), "unknown route 'per-part'"),
    ]
    for G, record, detail in cases:
        assert check_certificate(G, 3, record) == Refuted({"route": record.route}, detail)
    bad_value = BoundRecord("compulsory", 1, True, None, {"needed_inputs": [int]})
    assert check_certificate(SMALL, 3, bad_value).verdict == "refuted"


@pytest.mark.trust
def test_check_certificate_refuses_a_bad_cache_size() -> None:
    for M in (0, 2.0):
        with pytest.raises(InvalidInputError) as info:
            check_certificate(SMALL, M, BoundRecord("compulsory", 0, False))
        assert str(info.value) == f"M={M!r} must be a positive integer"


@pytest.mark.trust
def test_compulsory_never_charges_an_output_that_is_an_input() -> None:
    # issue 20: an output that is also an input is blue from the start: no write to charge
    H = nx.DiGraph([("a", "b"), ("b", "c")])
    H.graph["outputs"] = ["a", "b"]
    record = compulsory_bound(H, 2)
    assert (record.value, record.certificate["written_outputs"]) == (2, ["b"])
    assert check_certificate(H, 2, record).proved
    charged = BoundRecord("compulsory", 3, True, None,
                          {"needed_inputs": ["a"], "written_outputs": ["a", "b"]})
    assert check_certificate(H, 2, charged) == Refuted({"vertex": "a"},
                                                       "'a' is not a non-input output")
    assert solve_optimal(H, 2, progress=False).io == 2


@pytest.mark.trust
def test_best_bound_is_the_largest_applicable_and_the_first_of_equals() -> None:
    a, b, c = BoundRecord("a", 3, True), BoundRecord("b", 5, False), BoundRecord("c", 4, True)
    assert best_bound([a, b, c]) is c
    d = BoundRecord("d", 4, True)
    assert best_bound([a, c, d]) is c and best_bound([a, d, c]) is d
    assert best_bound([BoundRecord("zero", 0, True)]).route == "zero"
    for records in ([], [b]):
        with pytest.raises(InvalidInputError) as info:
            best_bound(records)
        assert str(info.value) == "no route applies"


class _Routes:
    """Fake routes for certified_lower_bound: records given, checks answered per route."""

    def __init__(self, monkeypatch, records, rejected=()):
        self.records, self.rejected = records, set(rejected)
        self.runs: list[dict] = []
        self.checks: list[tuple[str, int]] = []
        monkeypatch.setattr(lower_bounds_module, "lower_bounds", self.lower_bounds)
        monkeypatch.setattr(lower_bounds_module, "check_certificate", self.check)

    def lower_bounds(self, G, M, **kwargs):
        self.runs.append(dict(kwargs, M=M))
        return self.records

    def check(self, G, M, record, *, timeout_ms, deadline=None):
        self.checks.append((record.route, timeout_ms))
        return Refuted({}, "no") if record.route in self.rejected else Proved()


@pytest.mark.trust
def test_certified_bound_counts_only_applicable_verified_records(monkeypatch) -> None:
    records = [BoundRecord("compulsory", 5, True), BoundRecord("forged", 99, True),
               BoundRecord("skipped", 0, False), BoundRecord("windows", 7, True)]
    routes = _Routes(monkeypatch, records, rejected={"forged"})
    assert certified_lower_bound(SMALL, 3) == {"route": "windows", "value": 7,
                                               "routes_run": "all"}
    assert routes.runs == [{"M": 3, "timeout_ms": 5_000, "hong_kung": True, "subdag": True,
                            "windows": True, "deadline": None}]
    assert routes.checks == [("compulsory", 5_000), ("forged", 5_000), ("windows", 5_000)]
    routes = _Routes(monkeypatch, records, rejected={"forged", "windows", "compulsory"})
    # nothing re-verified: the trivial bound 0 (always sound), never an error nor a claimed value
    assert certified_lower_bound(SMALL, 3, timeout_ms=9) == {
        "route": "trivial (nothing re-verified)", "value": 0, "routes_run": "all"}
    assert {t for _, t in routes.checks} == {9}


@pytest.mark.trust
def test_certified_bound_runs_every_route_up_to_40_vertices(monkeypatch) -> None:
    records = [BoundRecord("compulsory", 5, True)]
    chain40 = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(39)])
    chain41 = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(40)])
    assert (chain40.number_of_nodes(), chain41.number_of_nodes()) == (40, 41)
    routes = _Routes(monkeypatch, records)
    assert certified_lower_bound(chain40, 2)["routes_run"] == "all"
    assert certified_lower_bound(chain41, 2) == {
        "route": "compulsory", "value": 5,
        "routes_run": "bounded-cost (compulsory, per-part)"}
    assert certified_lower_bound(chain41, 2, all_routes=True)["routes_run"] == "all"
    assert certified_lower_bound(chain40, 2, all_routes=False)["routes_run"] == \
        "bounded-cost (compulsory, per-part)"
    flags = [(r["hong_kung"], r["subdag"], r["windows"]) for r in routes.runs]
    assert flags == [(True,) * 3, (False,) * 3, (True,) * 3, (False,) * 3]


@pytest.mark.trust
def test_certified_bound_for_real_on_a_small_dag() -> None:
    got = certified_lower_bound(SMALL, 3)
    assert got == {"route": "spill-windows", "value": 7, "routes_run": "all"}
    assert type(got["value"]) is int
    assert certified_lower_bound(SMALL, 3, all_routes=False) == {
        "route": "compulsory", "value": 5, "routes_run": "bounded-cost (compulsory, per-part)"}


# ---- a check cut by its deadline is undecided, never a pass (every searching checker) ---------

_PAST = lower_bounds_module.Deadline(0.0)      # long expired


def _expired_cases() -> list[tuple[str, nx.DiGraph, int, BoundRecord]]:
    fans = nx.DiGraph([(f"x{p}_{i}", f"s{p}") for p in range(3) for i in range(3)])
    cases = [("hong-kung", fans, 4, hong_kung_route(fans, 4))]
    for route, M in (("spill-windows", 3), ("saturation-windows", 4), ("sub-dag-exact", 3),
                     ("sub-dag-lp", 3)):
        record = lower_bounds_module.ROUTES[route].compute(
            SMALL, M, deadline=lower_bounds_module.Deadline.never(), timeout_ms=5_000)[0]
        cases.append((route, SMALL, M, record))
    # no forced set (M = 4): the window minimum is what reads the deadline
    cases.append(("spill-windows (window)", SMALL, 4, spill_windows_bound(SMALL, 4)))
    # no window to compute (U empty): the forced-spill family is what reads the deadline
    record = spill_windows_bound(SMALL, 3)
    cert = dict(record.certificate, U=[], window_reads=0,
                inputs_outside_U=["A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]"])
    cases.append(("spill-windows (forced sets)", SMALL, 3, dataclasses.replace(
        record, certificate=cert)))
    return cases


@pytest.mark.trust
@pytest.mark.parametrize("case", _expired_cases(), ids=lambda c: c[0])
def test_a_check_past_its_deadline_is_undecided(case) -> None:
    from attnio.graphs.lower_bounds.deadline import CHECK_TIME_LIMIT_REASON
    from attnio.results import Undecided

    _, G, M, record = case
    assert check_certificate(G, M, record).proved
    assert check_certificate(G, M, record, deadline=_PAST) == Undecided(CHECK_TIME_LIMIT_REASON)


@pytest.mark.trust
def test_the_hong_kung_checker_asks_z3_with_its_budget(monkeypatch) -> None:
    import attnio.graphs.partitions as partitions

    fans = nx.DiGraph([(f"x{p}_{i}", f"s{p}") for p in range(3) for i in range(3)])
    record = hong_kung_route(fans, 4)
    seen = []
    real = partitions.min_partition_parts

    def spy(G, S, *, timeout_ms, deadline=None):
        seen.append((S, timeout_ms, deadline))
        return real(G, S, timeout_ms=timeout_ms, deadline=deadline)

    monkeypatch.setattr(partitions, "min_partition_parts", spy)
    check = lower_bounds_module.ROUTES["hong-kung"].check
    assert check(fans, 4, record).proved and check(fans, 4, record, timeout_ms=9).proved
    assert seen == [(8, 20_000, None), (8, 9, None)]


@pytest.mark.trust
def test_builtin_structure_confirms_a_declaration_by_the_structure() -> None:
    """The per-part checker trusts sizes only once the DAG's structure confirms them: each
    way a declaration can fail, and what an honest one returns (pinned)."""
    from attnio.graphs.dags import attention_backward_dag, attention_forward_dag
    from attnio.graphs.lower_bounds import builtin_structure

    plain = nx.DiGraph([("a", "c"), ("b", "c")])
    assert builtin_structure(plain) == (None, {}, "needs a built-in matmul or attention DAG "
                                        "(its sizes are part of the per-part lemma); this DAG "
                                        "has no known builder")
    plain.graph["builder"] = "fft"
    assert builtin_structure(plain) == (None, {}, "needs a built-in matmul or attention DAG; "
                                        "builder 'fft' has no per-part lemma")
    M = matmul_dag(1, 2, 1)
    sizes = {"m": 1, "k": 2, "p": 1, "summation": "tree"}
    assert builtin_structure(M) == ("matmul", sizes, None)
    assert builtin_structure(attention_forward_dag(2, 1)) == (
        "attention-forward", {"n": 2, "d": 1, "summation": "tree", "mask": None}, None)
    assert builtin_structure(attention_backward_dag(2, 1, "dX")) == (
        "attention-backward", {"n": 2, "d": 1, "summation": "tree", "gradient": "dX",
                               "mask": None}, None)

    def declared(G: nx.DiGraph, **changes: object) -> nx.DiGraph:
        H = G.copy()
        H.graph["params"] = {**G.graph["params"], **changes}
        return H

    assert builtin_structure(declared(M, gradient="dX")) == ("matmul", sizes, None)
    assert builtin_structure(declared(M, summation=None)) == (
        "matmul", {"m": 1, "k": 2, "p": 1}, None)
    masked = declared(attention_forward_dag(2, 1), mask="causal")
    assert builtin_structure(masked) == (None, {}, "the per-part count assumes n² score "
                                                   "entries (no mask)")
    described = "graph.params {'m': 1, 'k': 2, 'p': 1, 'summation': 'tree'} do not describe " \
                "this DAG: "
    edge, op, name = M.copy(), M.copy(), nx.relabel_nodes(M, {"C[0,0]": "Z"})
    edge.remove_edge("A[0,0]", "P[0,0,0]")
    edge.add_edge("A[0,1]", "P[0,0,0]")
    op.nodes["P[0,0,0]"]["op"] = "add"
    wrong = {"builder": (_with(plain, builder=5), "graph.builder=5 must be a string"),
             "params": (_with(M, params="x"), "graph.params='x' must be an object with the "
                                              "matmul builder's sizes m, k, p"),
             "size": (declared(M, k=0), "graph.params.k=0 must be a positive integer"),
             "choice": (declared(M, summation="zip"), "graph.params.summation='zip' must be "
                                                      "one of tree, chain, fma"),
             "counts": (declared(M, p=2), "graph.params {'m': 1, 'k': 2, 'p': 2, 'summation': "
                        "'tree'} do not describe this DAG: a matmul DAG with these sizes has "
                        "12 vertices and 12 edges, this one 7 and 6"),
             "edge": (edge, described + "the matmul DAG has edge ['A[0,0]', 'P[0,0,0]'], this "
                                        "one does not"),
             "op": (op, described + "vertex 'P[0,0,0]' has op='add', the matmul DAG 'mul'"),
             "vertex": (name, described + "the matmul DAG has vertex 'C[0,0]', this one does "
                                          "not")}
    for label, (G, message) in wrong.items():
        with pytest.raises(InvalidInputError) as info:
            builtin_structure(G)
        assert str(info.value) == message, label


def _with(G: nx.DiGraph, **graph: object) -> nx.DiGraph:
    H = G.copy()
    H.graph.update(graph)
    return H


@pytest.mark.trust
@pytest.mark.parametrize("size,M,value", [((3, 1, 3), 4, 17), ((1, 2, 2), 4, 8),
                                          ((2, 1, 2), 4, 8), ((3, 1, 3), 5, 15)])
def test_saturation_windows_values_pinned(size, M, value) -> None:
    """Where the room M − |pred(v) ∪ {v} non-inputs| decides the count (3×1×3 at M = 4: with
    more room the route would claim less, 15)."""
    record = saturation_windows_bound(matmul_dag(*size), M)
    assert record.value == value and check_certificate(matmul_dag(*size), M, record).proved


@pytest.mark.trust
def test_per_part_counts_the_attention_products_on_the_dag() -> None:
    from attnio.graphs.dags import attention_forward_dag
    from attnio.graphs.lower_bounds import per_part_routes

    records = {r.route: r for r in per_part_routes(attention_forward_dag(4, 2), 3)}
    level1 = records["per-part: Saha-Ye level-1"]
    assert (level1.certificate["counted"], level1.certificate["part_bound"]) == (48, 63)
    assert check_certificate(attention_forward_dag(4, 2), 3, level1).proved


@pytest.mark.trust
def test_a_long_declaration_is_shown_cut_at_80_characters() -> None:
    from attnio.graphs.lower_bounds import builtin_structure

    G = matmul_dag(1, 2, 1)
    G.graph["params"] = {"m": 1, "k": 2, "p": 2, "summation": "tree", "note": "x" * 90}
    with pytest.raises(InvalidInputError) as info:
        builtin_structure(G)
    assert str(info.value) == (
        "graph.params {'m': 1, 'k': 2, 'p': 2, 'summation': '…" + "x" * 38 + "'} do not "
        "describe this DAG: a matmul DAG with these sizes has 12 vertices and 12 edges, this "
        "one 7 and 6")


@pytest.mark.trust
def test_the_checkers_re_solve_with_a_bounded_plain_search(monkeypatch) -> None:
    import attnio.graphs.baseline as baseline

    seen = []
    real = baseline.plain_optimal

    def spy(H, M, **kw):
        seen.append(kw["max_states"])
        return real(H, M, **kw)

    monkeypatch.setattr(baseline, "plain_optimal", spy)
    record = lower_bounds_module.ROUTES["sub-dag-exact"].compute(
        SMALL, 3, deadline=lower_bounds_module.Deadline.never(), timeout_ms=5_000)[0]
    assert check_certificate(SMALL, 3, record).proved and seen == [3_000_000]
