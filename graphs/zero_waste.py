r"""Schedules that cost exactly the compulsory I/O, found by a depth-first search over orders.

The compulsory I/O :math:`L_0` (each needed input read once, each output that is not an input
written once; :func:`attnio.graphs.anytime.compulsory_io`) is a lower bound on
:math:`Q(G, M)`, so a complete schedule that costs :math:`L_0` is optimal. Call a schedule
*zero-waste* when it computes every relevant non-input once and makes no other I/O: each
value then stays red from its computation (an input: from its only read) until its last
use. Whether one exists depends only on the compute order: after computing the set S, the
red set is exactly the *live* set

.. math:: \text{live}(S) = \{u \in S \cup I : u \in S \text{ or } u \text{ has a successor
          in } S, \text{ and } u \text{ has a successor outside } S\},

and computing a ready vertex v next needs :math:`|\text{live}(S) \cup \text{pred}(v)| + 1
\le M` pebbles. :func:`zero_waste_schedule` searches the downsets S depth first (the most
freeing vertex first), remembers the sets from which no completion exists, and stops at the
first complete order, at ``time_limit`` or after ``max_nodes`` expansions.

What it claims. A schedule it returns is replayed by :func:`attnio.graphs.game.replay` to
exactly :math:`L_0` (it raises otherwise), so it is an optimal schedule in both variants
(compute-once, hence one-shot legal). When it returns None **nothing is claimed**: a
zero-waste schedule with recomputation (re-deriving a value from predecessors still red)
lies outside this search, so "none found" is not a proof that :math:`Q(G, M) > L_0`.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
>>> zero_waste_schedule(G, 3)
[('read', 'a'), ('read', 'b'), ('compute', 'c'), ('delete', 'b'), ('compute', 'd'), ('write', 'd'), ('delete', 'c'), ('delete', 'a'), ('delete', 'd')]
>>> zero_waste_schedule(nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"),
...                                 ("x", "z"), ("y", "z")]), 3) is None   # needs M = 4
True
"""

from __future__ import annotations

import math
import time
from typing import Iterable

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import Move, check_cache_size, replay
from attnio.graphs.heuristic_schedule import _check_feasible, _Compiled
from attnio.validation import check_digraph, positive_int

__all__ = ["zero_waste_schedule", "DEFAULT_MAX_NODES"]

#: Expansions (downsets tried) before :func:`zero_waste_schedule` gives up.
DEFAULT_MAX_NODES = 2_000_000


def zero_waste_schedule(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                        time_limit: float | None = 5.0,
                        max_nodes: int = DEFAULT_MAX_NODES) -> list[Move] | None:
    r"""A compute-once schedule of cost exactly the compulsory I/O, or None (module
    docstring: None claims nothing).

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG; inputs are exactly its sources.
    M : int
        Red pebbles, at least max in-degree (over relevant non-inputs) + 1.
    outputs : iterable of str, optional
        Default ``G.graph["outputs"]``, else the sinks.
    time_limit : float or None
        Seconds for the search (None: only ``max_nodes`` stops it).
    max_nodes : int
        Expansions before giving up.

    Returns
    -------
    list of moves or None
        Replayed: ``replay(G, moves, M).io`` equals the compulsory I/O.

    Raises
    ------
    InvalidInputError
        Not a DiGraph, cyclic, bad ``M``, ``time_limit`` or ``max_nodes``.
    """
    check_digraph(G)
    M = check_cache_size(M)
    max_nodes = positive_int("max_nodes", max_nodes)
    if time_limit is not None and (isinstance(time_limit, bool)
                                   or not isinstance(time_limit, (int, float))
                                   or not math.isfinite(time_limit) or time_limit < 0):
        raise InvalidInputError(f"time_limit={time_limit!r} must be a finite number >= 0")
    cd = _Compiled(G, outputs)
    _check_feasible(cd, M)
    deadline = math.inf if time_limit is None else time.monotonic() + time_limit
    n = cd.n
    succ_mask = [0] * n
    pred_mask = [0] * n
    for v in range(n):
        for w in cd.succ[v]:
            succ_mask[v] |= 1 << w
        for u in cd.pred[v]:
            pred_mask[v] |= 1 << u
    inner_preds = [sum(1 << u for u in cd.pred[v] if not cd.is_input[u]) for v in range(n)]
    goal = sum(1 << v for v in cd.computed)
    failed: set[int] = set()
    nodes = 0
    order: list[int] = []

    def dead_after(live: int, done: int) -> int:
        """The members of ``live`` with no successor left outside ``done``."""
        gone = 0
        rest = live
        while rest:
            low = rest & -rest
            u = low.bit_length() - 1
            if not succ_mask[u] & ~done:
                gone |= low
            rest ^= low
        return gone

    def search(done: int, live: int) -> bool:
        nonlocal nodes
        if done == goal:
            return True
        if done in failed:
            return False
        nodes += 1
        if nodes > max_nodes or (nodes & 1023 == 0 and time.monotonic() > deadline):
            raise _GiveUp
        options = []
        for v in cd.computed:
            bit = 1 << v
            if done & bit or inner_preds[v] & ~done:
                continue
            red = live | pred_mask[v]
            if red.bit_count() + 1 > M:
                continue
            after = done | bit
            new_live = red | (bit if succ_mask[v] else 0)
            new_live &= ~dead_after(new_live, after)
            options.append((new_live.bit_count(), v, after, new_live))
        options.sort()
        for _, v, after, new_live in options:
            order.append(v)
            if search(after, new_live):
                return True
            order.pop()
        failed.add(done)
        return False

    try:
        found = search(0, 0)
    except (_GiveUp, RecursionError):
        return None
    if not found:
        return None
    moves = _moves(cd, order)
    named = [(kind, cd.names[i]) for kind, i in moves]
    cost = replay(G, named, M, outputs=outputs).io
    reads = sum(1 for v in range(n) if cd.is_input[v] and succ_mask[v])
    writes = sum(1 for o in cd.outputs if not cd.is_input[o])
    if cost != reads + writes:  # internal invariant: zero-waste means compulsory I/O
        raise RuntimeError(f"zero-waste bug: schedule replays to {cost}, not {reads + writes}")
    return named


class _GiveUp(Exception):
    """The node or time budget ran out."""


def _moves(cd: _Compiled, order: list[int]) -> list[tuple[str, int]]:
    """The zero-waste moves of a feasible compute order (module docstring)."""
    remaining = [len(s) for s in cd.succ]
    red: set[int] = set()
    moves: list[tuple[str, int]] = []
    for v in order:
        for u in cd.pred[v]:
            if u not in red:  # an input's only read (non-inputs stay red until last use)
                red.add(u)
                moves.append(("read", u))
        moves.append(("compute", v))
        red.add(v)
        if cd.is_output[v] and not cd.is_input[v]:
            moves.append(("write", v))
        for u in cd.pred[v]:
            remaining[u] -= 1
        for u in list(cd.pred[v]) + [v]:
            if u in red and remaining[u] == 0:
                red.discard(u)
                moves.append(("delete", u))
    return moves
