"""Tests for attnio.proofs.sandwich: rows, violations detected, undecided never passes."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.graphs.game import replay
from attnio.proofs.registry import CheckContext
from attnio.proofs.sandwich import (
    CLAIMS,
    DEFAULT_INSTANCES,
    FALSE_TWINS,
    Instance,
    check_sandwich,
    format_rows,
    sandwich_row,
)
from attnio.results import Refuted, Status

CTX = CheckContext(z3_timeout_ms=20_000, search_seconds=60)


def naive_schedule(G: nx.DiGraph, M: int) -> list[tuple[str, str]]:
    """Write-everything schedule, independent of the solver: for each computed vertex in
    topological order read its parents, compute it, write it, delete all (needs M ≥ in-degree + 1)."""
    moves: list[tuple[str, str]] = []
    for v in nx.topological_sort(G):
        if G.in_degree(v) == 0:
            continue
        parents = list(G.predecessors(v))
        moves += [("read", u) for u in parents]
        moves += [("compute", v), ("write", v)]
        moves += [("delete", u) for u in parents + [v]]
    return moves


def naive_schedules(G: nx.DiGraph, M: int) -> dict[str, list]:
    return {"naive": naive_schedule(G, M)}


MM122 = Instance("matmul 1x2x2", "matmul", {"m": 1, "k": 2, "p": 2}, (3, 4))
MM313 = Instance("matmul 3x1x3", "matmul", {"m": 3, "k": 1, "p": 3}, (3,))


def test_naive_schedule_is_legal() -> None:
    G = MM122.build()
    r = replay(G, naive_schedule(G, 3), 3)
    # 2 reads per product (4 products), 2 per sum (2 sums), 6 writes
    assert r.io == 4 * 2 + 2 * 2 + 6


def test_row_figures_matmul_3x1x3() -> None:
    row = sandwich_row(MM313, MM313.build(), 3, timeout_ms=20_000, time_limit=60,
                       schedules_fn=naive_schedules)
    assert row.verdict == Status.PROVED, row.detail
    # explicit: 9 products, β(6) = 7 → 3·(2 − 1); P(G, 6) = 2 (9 sinks > 6); Q by A*
    assert (row.explicit, row.P2M, row.hong_kung) == (3, 2, 3)
    assert row.explicit <= row.hong_kung <= row.optimum <= row.schedules["naive"]
    assert all(type(x) is int for x in (row.explicit, row.hong_kung, row.optimum))


def test_check_sandwich_small_set() -> None:
    rows: list = []
    v = check_sandwich([MM122, MM313], CTX, rows, schedules_fn=naive_schedules)
    assert v.proved, v.detail
    assert len(rows) == 3
    assert "| matmul 3x1x3 | 3 | 3 | 2 | 3 |" in format_rows(rows)


def test_illegal_schedule_is_a_violation() -> None:
    def bad(G: nx.DiGraph, M: int) -> dict[str, list]:
        return {"bad": naive_schedule(G, M)[1:]}  # first read missing
    v = check_sandwich([MM122], CTX, schedules_fn=bad)
    assert isinstance(v, Refuted) and "illegal" in v.detail
    assert v.counterexample["instance"] == "matmul 1x2x2"


def test_solver_budget_out_is_undecided() -> None:
    # matmul 3x2x2 at M = 4 needs ~8 000 expansions; the clock is read every 64
    inst = Instance("matmul 3x2x2", "matmul", {"m": 3, "k": 2, "p": 2}, (4,))
    v = check_sandwich([inst], CheckContext(z3_timeout_ms=20_000, search_seconds=0.01),
                       schedules_fn=lambda G, M: {})
    assert v.verdict == "undecided"


def test_z3_timeout_is_undecided() -> None:
    inst = Instance("matmul 2x2x2", "matmul", {"m": 2, "k": 2, "p": 2}, (3,))
    row = sandwich_row(inst, inst.build(), 3, timeout_ms=1, time_limit=60,
                       schedules_fn=lambda G, M: {})
    assert row.verdict in (Status.UNDECIDED, Status.PROVED)
    if row.verdict == Status.PROVED:  # z3 answered within 1 ms: the figures must still be right
        assert row.hong_kung == 3


def test_default_instances_are_tiny() -> None:
    assert all(inst.build().number_of_nodes() <= 60 for inst in DEFAULT_INSTANCES)


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_false_twins_refuted(twin) -> None:
    v = twin.check(CTX)
    assert isinstance(v, Refuted), v.detail


@pytest.mark.slow
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved(claim) -> None:
    v = claim.check(CheckContext(deep=True, search_seconds=300))
    assert v.proved, v.detail


def test_row_carries_the_certified_lower_bound() -> None:
    inst = Instance("matmul 1x2x2", "matmul", {"m": 1, "k": 2, "p": 2}, (3,))
    row = sandwich_row(inst, inst.build(), 3, timeout_ms=20_000, time_limit=60,
                       schedules_fn=naive_schedules)
    assert row.verdict == Status.PROVED
    assert (row.certified, row.certified_route, row.optimum) == (12, "spill-windows", 13)
    assert "certified LB" in format_rows([row])
    assert row.as_dict()["certified_lower_bound"] == 12
