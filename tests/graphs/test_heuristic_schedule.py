"""Tests of attnio.graphs.heuristic_schedule: schedules replay, are never below the optimum,
and the validator rejects planted invalid twins."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.heuristic_schedule import (
    POLICIES,
    depth_first_order,
    greedy_order,
    heuristic_schedule,
    schedule_from_order,
)
from attnio.graphs.peer_dags import load_peer_dag


def random_dag(seed: int, n: int = 9, max_in: int = 3) -> nx.DiGraph:
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    G.add_nodes_from(str(i) for i in range(n))
    for v in range(3, n):
        k = int(rng.integers(1, max_in + 1))
        for p in rng.choice(v, size=min(k, v), replace=False):
            G.add_edge(str(p), str(v))
    return G


@pytest.mark.parametrize("seed", range(8))
def test_replays_and_never_below_the_optimum(seed: int) -> None:
    G = random_dag(seed)
    # named outputs that are not all sinks (one inner vertex among them)
    inner = [v for v in G if G.in_degree(v) and G.out_degree(v)]
    outputs = [v for v in G if G.out_degree(v) == 0 and G.in_degree(v)] + inner[:1]
    for M in (min_cache_size(G, outputs), min_cache_size(G, outputs) + 1):
        h = heuristic_schedule(G, M, outputs=outputs, seed=seed, time_limit=None,
                               max_evaluations=300)
        r = replay(G, h.schedule, M, outputs=outputs)
        assert isinstance(h.io, int) and r.io == h.io
        assert replay(G, h.schedule, M, recompute=False, outputs=outputs).io == h.io
        exact = solve_optimal(G, M, outputs=outputs, time_limit=30)
        assert exact.verdict == "optimal"
        assert h.io >= exact.io


def test_false_twins_are_rejected_by_the_validator() -> None:
    G = load_peer_dag("spmv_N6_nzP0d4")
    h = heuristic_schedule(G, 6, time_limit=None, max_evaluations=50)
    assert replay(G, h.schedule, 6).io == h.io
    reads = [i for i, m in enumerate(h.schedule) if m[0] == "read"]
    no_read = h.schedule[:reads[-1]] + h.schedule[reads[-1] + 1:]
    with pytest.raises(IllegalMoveError):
        replay(G, no_read, 6)           # a compute without its predecessor red
    with pytest.raises(IllegalMoveError):
        replay(G, h.schedule, 5)         # the same schedule with one pebble fewer
    deletes = [i for i, m in enumerate(h.schedule) if m[0] == "delete"]
    no_delete = h.schedule[:deletes[0]] + h.schedule[deletes[0] + 1:]
    with pytest.raises(IllegalMoveError):
        replay(G, no_delete, 6)          # exceeds M
    writes = [i for i, m in enumerate(h.schedule) if m[0] == "write"]
    no_final_write = h.schedule[:writes[-1]] + h.schedule[writes[-1] + 1:]
    with pytest.raises(IllegalMoveError):
        replay(G, no_final_write, 6)     # an output left without blue


def test_every_policy_replays_and_orders_are_topological() -> None:
    G = load_peer_dag("k-means")
    for order in (greedy_order(G, 4), depth_first_order(G)):
        for policy in POLICIES:
            moves = schedule_from_order(G, 4, order, policy=policy)
            assert replay(G, moves, 4).io >= 23  # compulsory I/O of k-means
    with pytest.raises(InvalidInputError, match="topologically"):
        schedule_from_order(G, 4, list(reversed(greedy_order(G, 4))))
    with pytest.raises(InvalidInputError, match="policy"):
        schedule_from_order(G, 4, greedy_order(G, 4), policy="lru")


def test_deterministic_per_seed_and_stops_at_the_lower_bound() -> None:
    G = load_peer_dag("exp_N4_K2_nzP0d5")
    a = heuristic_schedule(G, 4, seed=3, time_limit=None, max_evaluations=400)
    b = heuristic_schedule(G, 4, seed=3, time_limit=None, max_evaluations=400)
    assert (a.io, a.schedule) == (b.io, b.schedule)
    stop = heuristic_schedule(G, 4, time_limit=None, max_evaluations=400, lower_bound=10**6)
    assert stop.evaluations == 9  # the starting orders only: the bound was met at once


def test_local_search_improves_on_the_start() -> None:
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    start = heuristic_schedule(G, 3, time_limit=None, max_evaluations=9)
    better = heuristic_schedule(G, 3, time_limit=None, max_evaluations=3000)
    assert better.io < start.io


def test_bad_input() -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    with pytest.raises(InvalidInputError, match="below the 3 red pebbles"):
        heuristic_schedule(G, 2)
    with pytest.raises(InvalidInputError, match="needs time_limit or max_evaluations"):
        heuristic_schedule(G, 3, time_limit=None)
    with pytest.raises(InvalidInputError, match="time_limit"):
        heuristic_schedule(G, 3, time_limit=float("nan"))
    with pytest.raises(InvalidInputError):
        heuristic_schedule(G, 0)
