"""The ``sub-dag-lp`` lower bound (attnio.graphs.lower_bounds.covering): its value, its checker
and a planted false twin for every rule of the checker, the exactness of its weights, and a
soundness sweep against the exact optimum."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.graphs.anytime import compulsory_io
from attnio.graphs.dags import matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.lower_bounds import BoundRecord, check_certificate, lower_bounds
from attnio.graphs.lower_bounds.covering import (
    check_covering_lp,
    covering_lp_bound,
    exact_dual_weights,
)

pytestmark = pytest.mark.trust

MATMUL = matmul_dag(2, 2, 2)  # Q(G, 3) = 25, Q(G, 4) = 17 (tests/graphs/test_exact.py)


@pytest.fixture(scope="module")
def record_m4() -> BoundRecord:
    return covering_lp_bound(MATMUL, 4)


def forged(record: BoundRecord, **changes) -> BoundRecord:
    cert = {**record.certificate, **changes}
    return dataclasses.replace(record, certificate=cert)


def test_matmul_2x2x2_at_4_beats_every_other_route(record_m4) -> None:
    """Four members (each 2x1 block of C has an optimum above its compulsory I/O), weights
    1/3 each: ceil(40/3) = 14, above the best other route (13) and at most Q = 17."""
    assert record_m4.value == 14
    assert record_m4.certificate["objective"] == "40/3"
    others = [r.value for r in lower_bounds(MATMUL, 4) if r.applies and r.route != "sub-dag-lp"]
    assert max(others) == 13
    assert check_covering_lp(MATMUL, 4, record_m4).proved
    assert record_m4.value <= solve_optimal(MATMUL, 4).io == 17


def test_the_record_is_dispatched_to_its_checker(record_m4) -> None:
    assert check_certificate(MATMUL, 4, record_m4).proved


def test_a_value_above_the_objective_ceiling_is_rejected(record_m4) -> None:
    verdict = check_covering_lp(MATMUL, 4, dataclasses.replace(record_m4, value=15))
    assert verdict.verdict == "refuted" and "ceil(40/3) = 14" in verdict.detail


def test_an_inflated_member_optimum_is_rejected(record_m4) -> None:
    members = [dict(m) for m in record_m4.certificate["members"]]
    members[0]["Q_H"] += 1
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, members=members))
    assert verdict.verdict == "refuted" and "re-solved by the plain baseline" in verdict.detail


def test_weights_with_a_load_above_one_are_rejected(record_m4) -> None:
    """Every member at weight 1: the shared vertices would be charged several times."""
    members = [{**m, "weight": "1"} for m in record_m4.certificate["members"]]
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, members=members))
    assert verdict.verdict == "refuted" and "load exceeds 1" in verdict.detail
    # just above 1: some vertex lies in three members, so weights 34/100 load it 51/50
    members = [{**m, "weight": "34/100"} for m in record_m4.certificate["members"]]
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, members=members, unit_weights={}))
    assert verdict.verdict == "refuted" and verdict.counterexample["load"] == "51/50"
    # exactly 1 is feasible (the value must then be the ceiling of the new objective: 12)
    members = [{**m, "weight": "1/3"} for m in record_m4.certificate["members"]]
    exact = dataclasses.replace(forged(record_m4, members=members, unit_weights={}), value=12)
    assert check_covering_lp(MATMUL, 4, exact).proved


def test_a_negative_weight_is_rejected(record_m4) -> None:
    members = [dict(m) for m in record_m4.certificate["members"]]
    members[0]["weight"] = "-1/3"
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, members=members))
    assert verdict.verdict == "refuted" and "negative" in verdict.detail
    units = {"A[0,0]": "-1"}
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, unit_weights=units))
    assert verdict.verdict == "refuted" and "negative" in verdict.detail


def test_a_unit_weight_on_a_vertex_that_need_not_move_is_rejected(record_m4) -> None:
    inner = next(v for v in MATMUL if v.startswith("P["))  # a product: computed, never moved
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, unit_weights={inner: "1"}))
    assert verdict.verdict == "refuted" and "neither a needed input nor an output" in verdict.detail


def test_a_member_that_is_not_a_set_of_outputs_is_rejected(record_m4) -> None:
    members = [{"outputs": ["A[0,0]"], "Q_H": 0, "weight": "1"}]
    verdict = check_covering_lp(MATMUL, 4, forged(record_m4, members=members))
    assert verdict.verdict == "refuted" and "non-input outputs" in verdict.detail


def test_a_garbled_certificate_is_refuted_not_raised(record_m4) -> None:
    verdict = check_certificate(MATMUL, 4, forged(record_m4, objective="x", members=[
        {"outputs": ["C[0,0]"], "Q_H": 7, "weight": "one third"}]))
    assert verdict.verdict == "refuted"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(columns=st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True),
                        min_size=1, max_size=6),
       data=st.data())
def test_exact_weights_are_feasible_whatever_the_float_weights(columns, data) -> None:
    weights = data.draw(st.lists(st.floats(-2, 3, allow_nan=False), min_size=len(columns),
                                 max_size=len(columns)))
    exact = exact_dual_weights(columns, weights, 6)
    assert all(isinstance(w, Fraction) and w >= 0 for w in exact)
    load = [sum((w for rows, w in zip(columns, exact) if r in rows), Fraction(0))
            for r in range(6)]
    assert max(load) <= 1


def test_highs_prints_nothing_on_stdout(capfd) -> None:
    covering_lp_bound(MATMUL, 4)
    out, _ = capfd.readouterr()
    assert out == ""


def test_soundness_sweep_against_the_exact_optimum() -> None:
    """Random DAGs of 7-10 vertices at the least M and the next: the value never exceeds the
    exact optimum, every certificate re-verifies, and the route is above the compulsory I/O
    on enough instances for the sweep to mean something (where it could have failed)."""
    checked = above_compulsory = 0
    for seed in range(40):
        G = random_dag(7 + seed % 4, 0.45, seed=5100 + seed, max_in_degree=3)
        least = min_cache_size(G)
        for M in (least, least + 1):
            record = covering_lp_bound(G, M)
            if not record.applies:
                continue
            optimum = solve_optimal(G, M, time_limit=60).io
            assert record.value <= optimum, (seed, M, record)
            assert check_covering_lp(G, M, record).proved, (seed, M)
            checked += 1
            above_compulsory += record.value > compulsory_io(G)
    assert checked >= 20 and above_compulsory >= 10, (checked, above_compulsory)
