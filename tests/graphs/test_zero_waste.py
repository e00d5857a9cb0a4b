"""Tests of attnio.graphs.zero_waste: schedules of cost exactly the compulsory I/O."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.graphs.anytime import compulsory_io
from attnio.graphs.exact import Optimal, min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.peer_dags import load_peer_dag
from attnio.graphs.zero_waste import zero_waste_schedule


@pytest.mark.parametrize("name, M", [("spmv_N6_nzP0d4", 8), ("k-means", 6),
                                     ("k-NN_3_gyro_m", 6)])
def test_peer_dags_at_compulsory_io(name: str, M: int) -> None:
    G = load_peer_dag(name)
    moves = zero_waste_schedule(G, M, time_limit=10)
    assert moves is not None
    for recompute in (True, False):
        assert replay(G, moves, M, recompute=recompute).io == compulsory_io(G)


@pytest.mark.parametrize("seed", range(10))
def test_found_exactly_when_the_one_shot_optimum_is_compulsory(seed: int) -> None:
    # every one-shot schedule of cost L0 is zero-waste and compute-once, and the search is
    # exhaustive within its budget: found <=> one-shot optimum == L0 (outputs not only sinks)
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(9, 0.35, seed=int(rng.integers(1 << 30)), directed=True)
    G = nx.DiGraph((str(u), str(v)) for u, v in G.edges if u < v)
    if G.number_of_edges() == 0:
        return
    nodes = sorted(G, key=int)
    outputs = list(dict.fromkeys([v for v in nodes if G.out_degree(v) == 0]
                                 + [v for v in nodes[-3:-1] if G.in_degree(v) > 0]))
    low = min_cache_size(G, outputs)
    for M in (low, low + 1, low + 2):
        moves = zero_waste_schedule(G, M, outputs=outputs, time_limit=None)
        optimum = solve_optimal(G, M, recompute=False, outputs=outputs, time_limit=30)
        assert isinstance(optimum, Optimal)
        lower = compulsory_io(G, outputs)
        assert (moves is not None) == (optimum.io == lower)
        if moves is not None:
            assert replay(G, moves, M, outputs=outputs).io == lower


def test_planted_false_twin_is_caught_by_the_validator() -> None:
    # the twin drops the read of an input it still uses: the validator must reject it
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    moves = zero_waste_schedule(G, 3)
    assert moves is not None and replay(G, moves, 3).io == 3
    twin = [m for m in moves if m != ("read", "b")]
    with pytest.raises(IllegalMoveError):
        replay(G, twin, 3)
    # and one pebble less: no schedule found (M = 3 is the least for 'c')
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 2)


def test_gives_up_within_budget_and_bad_input() -> None:
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    assert zero_waste_schedule(G, 5, max_nodes=1) is None
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 5, time_limit=float("nan"))
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 5, max_nodes=0)
