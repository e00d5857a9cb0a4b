"""Budgets never prove (issue 20, item 7): an exhausted budget is "no bound", never a bound.

One test per engine — the zero-waste searches, the exact searches (A*, the plain baseline, the
time-indexed z3 model) and the z3 partition search — forces its budget to run out on an
instance whose true answer is the other way, and checks the outcome is None / Undecided (with
only a proven bracket) and that no caller turns it into a bound. Budgets are deterministic:
state or node counts, a fake clock (one second per read), or a z3 solver forced to answer
``unknown``.
"""

from __future__ import annotations

import dataclasses

import networkx as nx
import pytest
import z3

import attnio.graphs.baseline as baseline_module
import attnio.graphs.exact as exact_module
from attnio.exceptions import BudgetExceededError
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import matmul_dag
from attnio.graphs.exact import solve_optimal
from attnio.graphs.exact_z3 import solve_time_indexed
from attnio.graphs.lower_bounds import check_certificate, hong_kung_route, subdag_exact_bound
from attnio.graphs.partitions import (
    find_bounded_set,
    hong_kung_bound,
    max_counted_bounded_set,
    min_partition_parts,
)
from attnio.graphs.zero_waste import zero_waste_exists, zero_waste_schedule
from attnio.results import Status

pytestmark = pytest.mark.trust

# L0 = 3 = Q(G, 3): a zero-waste schedule exists
DIAMOND = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
# L0 = 4 < Q(G, 3) = 6: no zero-waste schedule (refuted in exactly 5 expanded states)
CROSS = nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")])
# 60 independent reads-and-writes: zero-waste (L0 = Q = 120), a wide search (1 830 successors)
WIDE = nx.DiGraph([(f"x{i:02d}", f"y{i:02d}") for i in range(60)])
# matmul 1x2x1: Q(G, 3) = 7; P(G, 2) = 3 needs z3 (the counting bound gives only 2)
SMALL = matmul_dag(1, 2, 1)


@pytest.fixture
def z3_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every z3 solver answers ``unknown`` (a budget that ran out, deterministically)."""
    monkeypatch.setattr(z3.Solver, "check", lambda self, *args: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "budget (forced)")
    monkeypatch.setattr(z3.Optimize, "check", lambda self, *args: z3.unknown)


# ---- zero-waste -----------------------------------------------------------------------------


def test_zero_waste_state_budget_is_none_either_way() -> None:
    assert zero_waste_exists(DIAMOND, 3, time_limit=None) is True
    assert zero_waste_exists(DIAMOND, 3, max_states=1, time_limit=None) is None
    assert zero_waste_exists(CROSS, 3, time_limit=None) is False
    assert zero_waste_exists(CROSS, 3, max_states=4, time_limit=None) is None


def test_zero_waste_time_budget_is_none_either_way(fake_clock) -> None:
    import attnio.graphs.zero_waste as zero_waste_module
    for G, truth in ((DIAMOND, True), (CROSS, False)):
        fake_clock(zero_waste_module)
        assert zero_waste_exists(G, 3, time_limit=None) is truth
        fake_clock(zero_waste_module)
        assert zero_waste_exists(G, 3, time_limit=0) is None
    fake_clock(zero_waste_module)
    assert zero_waste_exists(CROSS, 3, time_limit=1.5) is None


def test_zero_waste_visited_set_cap_is_none() -> None:
    # the visited set is capped at 8 * max_states (checked every 1 024 successors): with
    # 127 states the cap (1 016) is passed at the 1 024th successor, with 128 it is not
    assert zero_waste_exists(WIDE, 2, max_states=128, time_limit=None) is True
    assert zero_waste_exists(WIDE, 2, max_states=127, time_limit=None) is None


def test_zero_waste_schedule_budget_claims_nothing() -> None:
    assert zero_waste_schedule(DIAMOND, 3, time_limit=None) is not None
    assert zero_waste_schedule(DIAMOND, 3, max_nodes=1, time_limit=None) is None


# ---- exact searches -------------------------------------------------------------------------


def test_exact_state_budget_is_undecided_with_a_proven_bracket() -> None:
    assert solve_optimal(CROSS, 3).io == 6
    got = solve_optimal(CROSS, 3, max_states=1)
    assert got.verdict is Status.UNDECIDED
    assert got.reason == "state budget 1 reached" and got.upper is None
    assert 4 <= got.lower <= 6
    # with an incumbent costing 8 the bracket's upper side is 8, and it is still undecided
    incumbent = solve_optimal(CROSS, 3).schedule + [("write", "z")] * 2
    got = solve_optimal(CROSS, 3, max_states=1, incumbent=incumbent)
    assert got.verdict == "undecided" and got.lower <= 6 and got.upper == 8


def test_exact_time_budget_is_undecided(fake_clock) -> None:
    fake_clock(exact_module)
    got = solve_optimal(CROSS, 3, time_limit=0.5, symmetry=False)
    assert got.verdict == "undecided" and got.reason == "time limit 0.5 s reached"
    assert got.lower <= 6
    bounds: list[int] = []
    fake_clock(exact_module)
    solve_optimal(SMALL, 3, time_limit=3.5, symmetry=False, on_lower_bound=bounds.append)
    assert bounds and max(bounds) <= 7


def test_plain_baseline_budgets_are_undecided(fake_clock) -> None:
    assert plain_optimal(CROSS, 3).io == 6
    got = plain_optimal(CROSS, 3, max_states=1)
    assert got.verdict == "undecided" and got.reason == "state budget 1 reached"
    assert got.lower <= 6 and got.upper is None
    fake_clock(baseline_module)
    got = plain_optimal(CROSS, 3, time_limit=0.5)
    assert got.verdict == "undecided" and got.reason == "time limit 0.5 s reached"


def test_time_indexed_model_unknown_is_undecided(z3_unknown) -> None:
    got = solve_time_indexed(DIAMOND, 3, timeout=None)
    assert got.verdict == "undecided" and got.lower == 0


def test_an_undecided_sub_dag_is_no_bound(monkeypatch) -> None:
    # the route only counts sub-DAGs solved exactly; a starved search contributes nothing
    # (whichever engine the slot picks: the routes solve through subdag.solve_subdag)
    import attnio.graphs.lower_bounds.subdag as subdag_module
    from attnio.graphs.engines import solve

    assert subdag_exact_bound(SMALL, 3).value == 7
    monkeypatch.setattr(subdag_module, "solve_subdag",
                        lambda H, M, seconds: solve(H, M, time_limit=seconds, max_states=1))
    record = subdag_exact_bound(SMALL, 3)
    assert (record.applies, record.value) == (False, 0)


def test_an_unsettled_baseline_rejects_a_sub_dag_certificate(monkeypatch) -> None:
    record = subdag_exact_bound(SMALL, 3)
    assert check_certificate(SMALL, 3, record).proved
    real = baseline_module.plain_optimal
    monkeypatch.setattr(baseline_module, "plain_optimal",
                        lambda *a, **k: real(*a, **{**k, "max_states": 1}))
    verdict = check_certificate(SMALL, 3, record)
    assert verdict.verdict == "refuted"
    assert verdict.detail == "the plain baseline does not settle Q(H): undecided"


# ---- the z3 partition search ----------------------------------------------------------------


def test_partition_search_unknown_is_undecided(z3_unknown) -> None:
    got = min_partition_parts(SMALL, 2)
    assert got.status is Status.UNDECIDED and not got.exact
    assert (got.lower, got.upper) == (2, 3)
    assert got.reason == ("z3 returned unknown (budget (forced), timeout 20000 ms) asking for "
                          "2 parts")
    with pytest.raises(BudgetExceededError) as info:
        _ = got.value
    assert str(info.value) == ("P(G, S=2) undecided in [2, 3]: z3 returned unknown (budget "
                               "(forced), timeout 20000 ms) asking for 2 parts")
    with pytest.raises(BudgetExceededError):
        hong_kung_bound(SMALL, 1)


def test_partition_search_interrupted_is_undecided(monkeypatch) -> None:
    def interrupted(self, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(z3.Solver, "check", interrupted)
    got = min_partition_parts(SMALL, 2)
    assert got.status is Status.UNDECIDED and (got.lower, got.upper) == (2, 3)


def test_an_undecided_partition_is_no_hong_kung_bound(monkeypatch) -> None:
    record = hong_kung_route(SMALL, 1)
    assert (record.applies, record.value, record.certificate["P"]) == (True, 2, 3)
    assert check_certificate(SMALL, 1, record).proved
    monkeypatch.setattr(z3.Solver, "check", lambda self, *args: z3.unknown)
    starved = hong_kung_route(SMALL, 1)
    assert (starved.applies, starved.value) == (False, 0)
    assert starved.why_not.startswith("P(G, 2M) undecided: z3 returned unknown")
    # and the checker cannot re-prove P >= 3 without z3: the true record is not accepted
    verdict = check_certificate(SMALL, 1, record)
    assert verdict.verdict == "refuted" and verdict.counterexample == {"P": 3, "lower": 2}
    # nor a record that claims more than it has
    assert check_certificate(SMALL, 1, dataclasses.replace(record, value=4)).verdict == \
        "refuted"


def test_bounded_set_search_unknown_is_not_unsat(z3_unknown) -> None:
    G = nx.DiGraph([(0, 2), (1, 2), (0, 3), (1, 3)])
    got = find_bounded_set(G, {2, 3}, 1, 2)
    assert got.status == "unknown" and got.reason.startswith("z3 returned unknown")
    assert max_counted_bounded_set(G, {2, 3}, 1).status == "unknown"
