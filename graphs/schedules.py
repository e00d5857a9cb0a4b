r"""Algorithm schedules as pebblings: upper bounds on :math:`Q(G, M)` by replay.

Each schedule is a loop order of a tiled algorithm, run at scalar granularity on a builder DAG
by one cache executor (:func:`ordered_schedule`): every relevant non-input is computed exactly
once (so the schedules are legal in the one-shot variant too), missing predecessors are read
back, and a full cache evicts the vertex whose next use is furthest (Belady), writing it back
first if it is still needed or is an unwritten output.

* ``"naive"`` — compute in topological order and *write every computed vertex* that is needed
  later or is an output (write-through), reloading as needed, least-recently-used eviction.
  Always valid for M ≥ max in-degree + 1 (standard attention / untiled matmul).
* ``"row-block"`` — FlashAttention-2-style: query (output) rows in blocks of
  :math:`B_r = \max(1, \lfloor M / 4d \rfloor)` (DFE+22's block size with d the inner
  dimension), each row block finished — scores, exp, row sums, partial products resident —
  before the next (arXiv 2307.08691, Alg. 1; on matmul: output rows in blocks).
* ``"square-tiling"`` — Saha–Ye Algorithm 1 / the paper's Algorithm 6 style: the output's
  (row, column) plane in :math:`B \times B` tiles, :math:`B = \max(1, \lfloor\sqrt{M/4}\rfloor)`
  (notes/reference/background.md §1.3), tile by tile.

All schedules are replayed through :func:`attnio.graphs.game.replay` by
:func:`algorithm_costs`; their costs are upper bounds on the optimum (tests check
``solve_optimal(G, M).io <= cost`` for each).

Examples
--------
>>> from attnio.graphs.dags import matmul_dag
>>> G = matmul_dag(2, 2, 2)
>>> costs = algorithm_costs(G, 4)
>>> sorted(costs)
['naive', 'row-block', 'square-tiling']
>>> all(c >= 17 for c in costs.values())   # 17 = Q(G, 4), computed by attnio.graphs.exact
True
"""

from __future__ import annotations

import math
from typing import Callable, Hashable, Iterable

import networkx as nx

from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.graphs.game import Move, game_inputs, game_outputs, replay, validate_cache_size
from attnio.graphs.indexed_dag import relevant_vertices

__all__ = [
    "ordered_schedule",
    "naive_schedule",
    "row_block_schedule",
    "square_tiling_schedule",
    "algorithm_schedules",
    "algorithm_costs",
]


def ordered_schedule(
    G: nx.DiGraph,
    M: int,
    order: Iterable[str],
    *,
    outputs: Iterable[str] | None = None,
    write_through: bool = False,
    evict: str = "belady",
) -> list[Move]:
    """Moves that compute ``order`` (a topological order of the relevant non-inputs, each once)
    with at most ``M`` red pebbles.

    Parameters
    ----------
    G : networkx.DiGraph
    M : int
        Needs M ≥ max in-degree + 1 over ``order``.
    order : iterable of str
    outputs : iterable of str, optional
    write_through : bool
        Write each computed vertex at once if it is needed later or is an output.
    evict : {"belady", "lru"}
        Victim choice on a full cache (vertices no longer needed go first).

    Returns
    -------
    list of Move

    Raises
    ------
    InvalidInputError
        ``M < 1``, or ``order`` is not a topological order of the relevant non-inputs.
    InfeasibleError
        If M is too small for this order (a vertex needs more red pebbles than M).

    Examples
    --------
    >>> G = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> ordered_schedule(G, 3, ["c"])
    [('read', 'a'), ('read', 'b'), ('compute', 'c'), ('write', 'c')]
    """
    validate_cache_size(M)
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    out_set = set(outs)
    order = list(order)
    if sorted(order) != sorted(relevant_vertices(G, outs) - inputs):
        raise InvalidInputError("order must list every relevant non-input exactly once")
    uses: dict[str, list[int]] = {}
    for t, v in enumerate(order):
        for u in G.predecessors(v):
            uses.setdefault(u, []).append(t)
    cursor = {u: 0 for u in uses}
    red: dict[str, int] = {}  # vertex -> last touch time (for LRU)
    blue = set(inputs)
    moves: list[Move] = []

    def next_use(u: str, now: int) -> float:
        ts = uses.get(u, [])
        i = cursor.get(u, 0)
        while i < len(ts) and ts[i] < now:
            i += 1
        if u in cursor:
            cursor[u] = i
        return ts[i] if i < len(ts) else math.inf

    def make_room(now: int, pinned: set[str]) -> None:
        while len(red) >= M:
            candidates = [u for u in red if u not in pinned]
            if not candidates:
                raise InfeasibleError(f"M={M} cannot hold the predecessors of step {now}")

            def badness(u: str) -> tuple:
                nu = next_use(u, now)
                dirty = u not in blue and (nu != math.inf or u in out_set)
                dead = nu == math.inf and not dirty
                if evict == "lru":
                    return (not dead, dirty, red[u])
                return (not dead, dirty, -nu, red[u])

            victim = min(candidates, key=badness)
            if victim not in blue and (next_use(victim, now) != math.inf or victim in out_set):
                moves.append(("write", victim))
                blue.add(victim)
            moves.append(("delete", victim))
            del red[victim]

    for now, v in enumerate(order):
        preds = list(G.predecessors(v))
        pinned = set(preds) | {v}
        if len(preds) + 1 > M:
            raise InfeasibleError(f"M={M} is below the {len(preds) + 1} red pebbles {v!r} needs")
        for u in preds:
            if u in red:
                red[u] = now
                continue
            if u not in blue:
                raise InvalidInputError(
                    f"predecessor {u!r} of {v!r} was lost (order not topological?)")
            make_room(now, pinned)
            moves.append(("read", u))
            red[u] = now
        make_room(now, pinned)
        moves.append(("compute", v))
        red[v] = now
        if write_through and (v in out_set or next_use(v, now + 1) != math.inf):
            moves.append(("write", v))
            blue.add(v)
    for o in outs:
        if o not in blue:
            moves.append(("write", o))
            blue.add(o)
    return moves


def _order(G: nx.DiGraph, outs: list[str], key: Callable[[str], Hashable]) -> list[str]:
    inputs = set(game_inputs(G))
    keep = relevant_vertices(G, outs) - inputs
    H = G.subgraph(keep)
    return list(nx.lexicographical_topological_sort(H, key=key))


def _rank(G: nx.DiGraph) -> dict[str, int]:
    return {v: i for i, v in enumerate(nx.lexicographical_topological_sort(G))}


def _inner_dim(G: nx.DiGraph) -> int:
    params = G.graph.get("params", {})
    return int(params.get("d", params.get("k", 1)) or 1)


def _coord(G: nx.DiGraph, v: str, axis: int) -> int:
    index = G.nodes[v].get("index", ())
    return int(index[axis]) if len(index) > axis else 0


def naive_schedule(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None) -> list[Move]:
    """Topological order, write-through, LRU eviction (see the module docstring).

    >>> from attnio.graphs.dags import matmul_dag
    >>> replay(matmul_dag(1, 2, 1), naive_schedule(matmul_dag(1, 2, 1), 3), 3).io  # optimum: 7
    8
    """
    outs = game_outputs(G, outputs)
    order = _order(G, outs, key=str)
    return ordered_schedule(G, M, order, outputs=outs, write_through=True, evict="lru")


def row_block_schedule(G: nx.DiGraph, M: int, *,
                       outputs: Iterable[str] | None = None) -> list[Move]:
    """FlashAttention-2-style row blocks, :math:`B_r = \\max(1, \\lfloor M/4d \\rfloor)`.

    >>> from attnio.graphs.dags import attention_forward_dag
    >>> G = attention_forward_dag(2, 1)
    >>> replay(G, row_block_schedule(G, 4), 4).io >= 8
    True
    """
    outs = game_outputs(G, outputs)
    rank = _rank(G)
    block = max(1, M // (4 * _inner_dim(G)))
    order = _order(G, outs, key=lambda v: (_coord(G, v, 0) // block, rank[v]))
    return ordered_schedule(G, M, order, outputs=outs)


def square_tiling_schedule(G: nx.DiGraph, M: int, *,
                           outputs: Iterable[str] | None = None) -> list[Move]:
    """Square tiles of side :math:`B = \\max(1, \\lfloor\\sqrt{M/4}\\rfloor)` over (row, column).

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(2, 2, 2)
    >>> replay(G, square_tiling_schedule(G, 16), 16).io    # B = 2: one tile, no reloads
    12
    """
    outs = game_outputs(G, outputs)
    rank = _rank(G)
    block = max(1, math.isqrt(M // 4))
    order = _order(G, outs, key=lambda v: (_coord(G, v, 0) // block,
                                           _coord(G, v, 1) // block, rank[v]))
    return ordered_schedule(G, M, order, outputs=outs)


_SCHEDULES: dict[str, Callable[..., list[Move]]] = {
    "naive": naive_schedule,
    "row-block": row_block_schedule,
    "square-tiling": square_tiling_schedule,
}


def algorithm_schedules(G: nx.DiGraph, M: int, *,
                        outputs: Iterable[str] | None = None) -> dict[str, list[Move]]:
    """Every algorithm schedule that fits ``M`` red pebbles, by name (empty if none does).

    A schedule that does not fit (:class:`~attnio.exceptions.InfeasibleError`) is left out;
    any other error (bad input, a bug in a builder) propagates.

    >>> from attnio.graphs.dags import matmul_dag
    >>> algorithm_schedules(matmul_dag(2, 2, 2), 2)
    {}
    >>> sorted(algorithm_schedules(matmul_dag(2, 2, 2), 3))
    ['naive', 'row-block', 'square-tiling']
    """
    validate_cache_size(M)
    out: dict[str, list[Move]] = {}
    for name, build in _SCHEDULES.items():
        try:
            out[name] = build(G, M, outputs=outputs)
        except InfeasibleError:  # M too small for this loop order: no schedule, by definition
            continue
    return out


def algorithm_costs(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                    recompute: bool = False) -> dict[str, int]:
    """Replayed cost (reads + writes) of each schedule of :func:`algorithm_schedules`.

    >>> from attnio.graphs.dags import matmul_dag
    >>> algorithm_costs(matmul_dag(1, 1, 1), 3)
    {'naive': 3, 'row-block': 3, 'square-tiling': 3}
    """
    return {name: replay(G, moves, M, recompute=recompute, outputs=outputs).io
            for name, moves in algorithm_schedules(G, M, outputs=outputs).items()}
