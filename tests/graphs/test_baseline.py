"""Tests of attnio.graphs.baseline: the plain search is exact on small cases and honest on
budget exhaustion."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import attention_forward_dag, matmul_dag
from attnio.graphs.exact import solve_optimal
from attnio.graphs.game import replay


@pytest.mark.parametrize("G,M,expected", [
    (nx.DiGraph([("a", "c"), ("b", "c")]), 3, 3),   # read, read, write
    (matmul_dag(1, 1, 2), 3, 5),                    # 3 reads + 2 writes
    (matmul_dag(1, 2, 1), 3, 7),                    # a product spilled (test_exact.py)
    (matmul_dag(1, 2, 1), 4, 5),
])
def test_pinned_values(G: nx.DiGraph, M: int, expected: int) -> None:
    for recompute in (True, False):
        result = plain_optimal(G, M, recompute=recompute)
        assert result.verdict == "optimal" and result.io == expected
        assert replay(G, result.schedule, M, recompute=recompute).io == expected


def test_infeasible_and_budget() -> None:
    assert plain_optimal(nx.DiGraph([("a", "c"), ("b", "c")]), 2).verdict == "infeasible"
    result = plain_optimal(attention_forward_dag(2, 1), 3, max_states=2000)
    assert result.verdict == "undecided" and result.lower >= 2


def test_matmul_1x2x2_confirms_the_fast_solver() -> None:
    G = matmul_dag(1, 2, 2)
    for M in range(3, 7):
        assert plain_optimal(G, M).io == solve_optimal(G, M).io


@pytest.mark.slow
def test_matmul_2x2x2_tightest_cache_confirms_the_fast_solver() -> None:
    # the plain search needs ~2 million states (about 20 s) here; larger M take it longer
    G = matmul_dag(2, 2, 2)
    plain = plain_optimal(G, 3, time_limit=None, max_states=None)
    assert plain.io == solve_optimal(G, 3).io == 25
