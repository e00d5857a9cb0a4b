r"""The plain exact baseline: 0-1 BFS (A*) over (red, blue) bitmask states, no reductions.

This is the yardstick of ``benchmarks/bench_pebble.py`` and a third, deliberately naive,
exact method for the tests: every legal move of :mod:`attnio.graphs.game` except no-ops
(read a blue non-red vertex, write a red non-blue vertex, compute a non-red non-input whose
predecessors are red, delete a red pebble) is generated from every state, over *all* vertices
of the graph; the only heuristic is

.. math::  h(R, B) = |\text{outputs} \setminus B|,

admissible and consistent (each output without blue needs its own write; a write lowers h by
at most its cost 1, nothing else lowers it). Hence the first goal state popped is optimal.
Compare :mod:`attnio.graphs.exact`, which adds reductions R0–R7 and a stronger heuristic.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> r = plain_optimal(G, 3)
>>> r.io, r.schedule[:3]
(3, [('read', 'a'), ('read', 'b'), ('compute', 'c')])
"""

from __future__ import annotations

import heapq
import math
import time
from typing import Iterable

import networkx as nx

from attnio.graphs.exact import validate_time_limit
from attnio.graphs.game import Move, game_inputs, game_outputs, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, pebbles_shortfall
from attnio.graphs.pebble_result import PebbleResult

__all__ = ["plain_optimal"]


def plain_optimal(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    time_limit: float | None = 60,
    max_states: int | None = 3_000_000,
) -> PebbleResult:
    """Optimal pebbling by plain best-first search over (red, blue[, computed]) bitmasks.

    Parameters and results as :func:`attnio.graphs.exact.solve_optimal` (no symmetry, no
    progress bar, no upper bound). The clock and the state budget are read before every pop;
    a KeyboardInterrupt is not caught.

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> plain_optimal(matmul_dag(1, 2, 1), 3).io   # 4 reads, 1 write, a product spilled: 2
    7
    """
    validate_cache_size(M)
    validate_time_limit(time_limit)
    start = time.monotonic()
    deadline = math.inf if time_limit is None else start + time_limit
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    shortfall = pebbles_shortfall(IndexedDAG(G, outputs), M)
    if shortfall is not None:
        return PebbleResult.infeasible(shortfall)
    names = list(nx.lexicographical_topological_sort(G))
    index = {v: i for i, v in enumerate(names)}
    n = len(names)
    pred = [sum(1 << index[u] for u in G.predecessors(v)) for v in names]
    inp = sum(1 << index[v] for v in inputs)
    out = sum(1 << index[o] for o in outs)
    one_shot = not recompute
    full = (1 << n) - 1

    def h(B: int) -> int:
        return (out & ~B).bit_count()

    start_key = inp << n  # R = 0, B = inputs, C = 0
    g_of = {start_key: 0}
    parent: dict[int, tuple[int, int, int]] = {}
    heap = [(h(inp), 0, start_key)]
    explored = 0
    while heap:
        # the budgets before the pop, while heap[0] holds the least f (a lower bound)
        if time.monotonic() > deadline:
            return PebbleResult.undecided(heap[0][0], None, f"time limit {time_limit} s reached",
                                          states_explored=explored,
                                          seconds=time.monotonic() - start)
        if max_states is not None and len(g_of) > max_states:
            return PebbleResult.undecided(heap[0][0], None, f"state budget {max_states} reached",
                                          states_explored=explored,
                                          seconds=time.monotonic() - start)
        f, g, key = heapq.heappop(heap)
        if g_of[key] < g:
            continue
        explored += 1
        R, B, C = key & full, (key >> n) & full, key >> (2 * n)
        if not out & ~B:
            moves: list[Move] = []
            while key != start_key:
                key, kind, v = parent[key]
                moves.append((("read", "write", "compute", "delete")[kind], names[v]))
            moves.reverse()
            return PebbleResult.optimal(g, moves, states_explored=explored,
                                        seconds=time.monotonic() - start)
        room = R.bit_count() < M
        for v in range(n):
            bit = 1 << v
            if R & bit:
                succ = [(1, 1, R, B | bit, C)] if not B & bit else []   # write
                succ.append((0, 3, R & ~bit, B, C))                      # delete
            elif room:
                succ = [(1, 0, R | bit, B, C)] if B & bit else []        # read
                if not inp & bit and not pred[v] & ~R and not (one_shot and C & bit):
                    succ.append((0, 2, R | bit, B, C | bit if one_shot else C))
            else:
                continue
            for cost, kind, R2, B2, C2 in succ:
                key2 = R2 | (B2 << n) | (C2 << (2 * n))
                g2 = g + cost
                if g_of.get(key2, 1 << 62) <= g2:
                    continue
                g_of[key2] = g2
                parent[key2] = (key, kind, v)
                heapq.heappush(heap, (g2 + h(B2), g2, key2))
    raise RuntimeError("baseline bug: search space exhausted on a feasible instance")
