"""Tests of attnio.graphs.schedules: algorithm schedules are legal pebblings and upper bounds."""

from __future__ import annotations

import pytest

from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.schedules import (
    algorithm_costs,
    algorithm_schedules,
    naive_schedule,
    ordered_schedule,
)

DAGS = {
    "matmul-2x2x2": matmul_dag(2, 2, 2),
    "matmul-3x2x2-fma": matmul_dag(3, 2, 2, "fma"),
    "forward-2x1": attention_forward_dag(2, 1),
    "forward-3x2-masked": attention_forward_dag(3, 2, [[1, 0, 0], [1, 1, 0], [1, 1, 1]]),
    "backward-2x1": attention_backward_dag(2, 1),
    "backward-dX-2x2": attention_backward_dag(2, 2, "dX"),
}


@pytest.mark.parametrize("name", sorted(DAGS))
def test_every_schedule_is_legal_one_shot_at_every_M(name: str) -> None:
    G = DAGS[name]
    lo = min_cache_size(G)
    assert algorithm_schedules(G, lo - 1) == {} if lo > 1 else True
    for M in (lo, lo + 1, lo + 3, 2 * lo + 8, 64):
        schedules = algorithm_schedules(G, M)
        assert set(schedules) == {"naive", "row-block", "square-tiling"}
        for moves in schedules.values():
            result = replay(G, moves, M, recompute=False)  # raises if illegal
            assert result.peak_red <= M


@pytest.mark.parametrize("G,M", [(matmul_dag(2, 2, 2), 4), (attention_forward_dag(2, 1), 8),
                                 (matmul_dag(3, 2, 2), 8)])
def test_schedules_are_upper_bounds_of_the_optimum(G, M) -> None:
    optimum = solve_optimal(G, M)
    assert optimum.verdict == "optimal"
    costs = algorithm_costs(G, M)
    assert min(costs.values()) >= optimum.io
    # the tiled orders beat write-everything on these instances
    assert costs["row-block"] < costs["naive"] and costs["square-tiling"] < costs["naive"]


def test_large_cache_reaches_the_trivial_bound() -> None:
    G = attention_forward_dag(2, 2)
    trivial = len(G.graph["inputs"]) + len(G.graph["outputs"])
    assert algorithm_costs(G, G.number_of_nodes())["row-block"] == trivial


def test_naive_writes_every_needed_vertex() -> None:
    G = matmul_dag(1, 2, 1)
    moves = naive_schedule(G, 4)
    written = {v for kind, v in moves if kind == "write"}
    assert written == {"P[0,0,0]", "P[0,0,1]", "C[0,0]"}


def test_order_must_cover_the_relevant_vertices() -> None:
    with pytest.raises(InvalidInputError, match="every relevant"):
        ordered_schedule(matmul_dag(1, 2, 1), 3, ["C[0,0]"])


def test_too_small_a_cache_is_infeasible_not_a_plain_value_error() -> None:
    import networkx as nx

    G = matmul_dag(2, 2, 2)
    order = [v for v in nx.topological_sort(G) if G.in_degree(v) > 0]
    with pytest.raises(InfeasibleError, match="red pebbles"):
        ordered_schedule(G, 2, order)
    assert algorithm_schedules(G, 2) == {}  # infeasible: left out, not an error


def test_algorithm_schedules_does_not_swallow_bad_input(monkeypatch) -> None:
    """A builder raising InvalidInputError (or any non-infeasibility error) must propagate:
    the old ``except ValueError: continue`` dropped it silently."""
    import attnio.graphs.schedules as schedules

    def broken(G, M, *, outputs=None):
        raise InvalidInputError("order must list every relevant non-input exactly once")

    monkeypatch.setitem(schedules._SCHEDULES, "broken", broken)
    with pytest.raises(InvalidInputError, match="every relevant"):
        schedules.algorithm_schedules(matmul_dag(1, 1, 1), 3)

    def fails(G, M, *, outputs=None):
        raise ValueError("a bug in a builder")

    monkeypatch.setitem(schedules._SCHEDULES, "broken", fails)
    with pytest.raises(ValueError, match="a bug"):
        schedules.algorithm_schedules(matmul_dag(1, 1, 1), 3)
