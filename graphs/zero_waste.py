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

:func:`zero_waste_exists` answers the other question — does *any* schedule cost :math:`L_0`,
recomputation included? — by an exhaustive search over (red set, spent inputs, outputs
computed) with a normal-form lemma (its docstring); when it says False, :math:`Q(G, M) \ge
L_0 + 1` is proved. On random 6–9-vertex DAGs it agrees with the exact optimum on every
instance of ``tests/graphs/test_zero_waste.py``, where the compute-once search alone would
wrongly deny a zero-waste schedule on some (recomputation saves a pebble there).

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

import itertools
import math
import time
from typing import Iterable

import networkx as nx

from attnio.graphs.game import Move, replay, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, iter_bits, validate_enough_pebbles
from attnio.validation import positive_int, validate_digraph, validate_time_limit

__all__ = ["zero_waste_schedule", "zero_waste_exists", "DEFAULT_MAX_NODES",
           "DEFAULT_MAX_STATES"]

#: Expansions (downsets tried) before :func:`zero_waste_schedule` gives up.
DEFAULT_MAX_NODES = 2_000_000
#: States expanded before :func:`zero_waste_exists` gives up.
DEFAULT_MAX_STATES = 2_000_000


def _start(G: nx.DiGraph, M: int, outputs: Iterable[str] | None, time_limit: float | None,
           budget_name: str, budget: int) -> tuple[IndexedDAG, int, int, float]:
    """Both searches' inputs validated where they enter (the DAG, ``M``, the budget, the time
    limit, enough pebbles), the DAG indexed and the clock started: ``(dag, M, budget,
    deadline)``."""
    validate_digraph(G)
    M = validate_cache_size(M)
    budget = positive_int(budget_name, budget)
    time_limit = validate_time_limit(time_limit)
    dag = IndexedDAG(G, outputs)
    validate_enough_pebbles(dag, M)
    return dag, M, budget, math.inf if time_limit is None else time.monotonic() + time_limit


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
        Seconds for the search, checked every 64 expansions (None: only ``max_nodes``
        stops it).
    max_nodes : int
        Expansions before giving up.

    Returns
    -------
    list of moves or None
        Replayed: ``replay(G, moves, M).io`` equals the compulsory I/O. None when no
        compute-once schedule exists or a budget ran out (neither claims anything).

    Raises
    ------
    InvalidInputError
        Not a DiGraph, cyclic, bad ``M``, ``time_limit`` or ``max_nodes``.
    """
    dag, M, max_nodes, deadline = _start(G, M, outputs, time_limit, "max_nodes", max_nodes)
    n = dag.n
    succ_mask = [0] * n
    pred_mask = [0] * n
    for v in range(n):
        for w in dag.succ_ids[v]:
            succ_mask[v] |= 1 << w
        for u in dag.pred_ids[v]:
            pred_mask[v] |= 1 << u
    inner_preds = [sum(1 << u for u in dag.pred_ids[v] if not dag.is_input[u]) for v in range(n)]
    goal = sum(1 << v for v in dag.computed)
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
        if nodes > max_nodes or (nodes & 63 == 0 and time.monotonic() > deadline):
            raise _GiveUp
        options = []
        for v in dag.computed:
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
    moves = _moves(dag, order)
    named = [(kind, dag.names[i]) for kind, i in moves]
    cost = replay(G, named, M, outputs=outputs).io
    reads = sum(1 for v in range(n) if dag.is_input[v] and succ_mask[v])
    writes = sum(1 for o in dag.outputs if not dag.is_input[o])
    if cost != reads + writes:  # internal invariant: zero-waste means compulsory I/O
        raise RuntimeError(f"zero-waste bug: schedule replays to {cost}, not {reads + writes}")
    return named


class _GiveUp(Exception):
    """The node or time budget ran out."""


def _moves(dag: IndexedDAG, order: list[int]) -> list[tuple[str, int]]:
    """The zero-waste moves of a feasible compute order (module docstring)."""
    remaining = [len(s) for s in dag.succ_ids]
    red: set[int] = set()
    moves: list[tuple[str, int]] = []
    for v in order:
        for u in dag.pred_ids[v]:
            if u not in red:  # an input's only read (non-inputs stay red until last use)
                red.add(u)
                moves.append(("read", u))
        moves.append(("compute", v))
        red.add(v)
        if dag.is_output[v] and not dag.is_input[v]:
            moves.append(("write", v))
        for u in dag.pred_ids[v]:
            remaining[u] -= 1
        for u in list(dag.pred_ids[v]) + [v]:
            if u in red and remaining[u] == 0:
                red.discard(u)
                moves.append(("delete", u))
    return moves


def zero_waste_exists(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                      time_limit: float | None = 5.0,
                      max_states: int = DEFAULT_MAX_STATES) -> bool | None:
    r"""Whether a complete schedule of cost exactly :math:`L_0` exists **with
    recomputation allowed**: True, False (proved: then :math:`Q(G, M) \ge L_0 + 1`), or
    None (the budget ran out; nothing claimed).

    **Lemma (new; RECONSTRUCTED from the compulsory-I/O argument).** Let :math:`\sigma` be a
    complete schedule of cost :math:`L_0 = |I_N| + |O^\ast|` with at most M red pebbles,
    recomputation allowed. (1) Its I/O is exactly one read of each needed input and one write
    of each output in :math:`O^\ast` (each happens at least once — the compulsory route of
    :mod:`attnio.graphs.lower_bounds` — and these already number :math:`L_0`): no non-input
    is ever read, no input read twice. A read input that is no longer red is *spent*. (2)
    Moving each read to just before the first computation that uses it only removes red
    pebbles in between, and moving an output's single write to just after a computation of
    it changes no red set; so assume both. The search's state is (R, spent inputs, outputs
    computed W); A(W) = the outputs not in W and their ancestors, and vertices outside A(W)
    are dropped from R and from the spent set (no computation in A(W) uses them). A move:
    pick a non-input v in A(W), not in R, whose non-input predecessors are in R and whose
    input predecessors are in R or unspent; read those not in R; delete any
    :math:`\max(0, |R| + \#\text{reads} + 1 - M)` vertices of :math:`R \setminus
    \text{pred}(v)` (all choices); compute v. Simulate :math:`\sigma`'s computations in
    order (those outside A(W), or of a v already in R, are skipped) with the invariant: every
    u in A(W) red in :math:`\sigma` is in R or is an input the search has not read; the
    search has read only inputs :math:`\sigma` has read; an input spent in the search is
    spent in :math:`\sigma`. At :math:`\sigma`'s computation of v with red set T
    (:math:`T \cup \{v\} \le M` pebbles), every input predecessor of v is red in
    :math:`\sigma`, hence in R or unread by the search, never spent (it would be spent in
    :math:`\sigma`); non-input predecessors lie in A(W), hence in R; and deleting the
    required number of vertices of R outside T is possible, since the kept part of R, the
    reads and v fit in :math:`|T| + 1 \le M` — such deletions only spend inputs
    :math:`\sigma` has read and no longer holds, i.e. spent in :math:`\sigma`. Every output
    :math:`\sigma` computes is then computed by the search (or was already). So if
    :math:`\sigma` exists, a search over all moves with a visited set reaches W = all
    outputs; when it exhausts the states, no schedule costs :math:`L_0`, and
    :math:`Q(G, M) \ge L_0 + 1` in both variants. A state is also abandoned when a wanted
    output cannot be derived from R and the unspent inputs (on the simulated path every
    wanted output will be computed, so that path is never abandoned).

    Parameters
    ----------
    G, M, outputs
        As :func:`zero_waste_schedule`.
    time_limit : float or None
        Seconds, checked at every expansion and every 1 024 successors (None: only
        ``max_states`` stops it).
    max_states : int
        States expanded before giving up (the visited set is capped at eight times this,
        checked every 1 024 successors). Every budget that runs out answers None, never
        False: only an exhausted search space is a proof.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")])
    >>> zero_waste_exists(G, 3), zero_waste_exists(G, 4)   # L0 = 4; optimum 6 at M = 3, 4 at M = 4
    (False, True)
    """
    dag, M, max_states, deadline = _start(G, M, outputs, time_limit, "max_states", max_states)
    n = dag.n
    pred_mask = [sum(1 << u for u in dag.pred_ids[v]) for v in range(n)]
    input_mask = sum(1 << v for v in range(n) if dag.is_input[v])
    targets = [o for o in dict.fromkeys(dag.outputs) if not dag.is_input[o]]
    all_targets = sum(1 << o for o in targets)
    closure = [0] * n  # ancestors and the vertex itself (topological index order)
    for v in range(n):
        m = 1 << v
        for u in dag.pred_ids[v]:
            m |= closure[u]
        closure[v] = m

    alive_memo: dict[int, int] = {}

    def alive(wanted: int) -> int:
        """A(W): the outputs still wanted and their ancestors."""
        got = alive_memo.get(wanted)
        if got is None:
            got = 0
            rest = wanted
            while rest:
                low = rest & -rest
                got |= closure[low.bit_length() - 1]
                rest ^= low
            alive_memo[wanted] = got
        return got

    def derivable(red: int, spent: int, keep: int, wanted: int) -> bool:
        """Every wanted output derivable from red vertices and unread inputs (bits in
        topological order)."""
        ok = red | (keep & input_mask & ~spent)
        rest = keep & ~input_mask & ~red
        while rest:
            low = rest & -rest
            if pred_mask[low.bit_length() - 1] & ~ok == 0:
                ok |= low
            rest ^= low
        return wanted & ~ok == 0

    def canonical(red: int, spent: int, done: int) -> tuple[int, int, int]:
        keep = alive(all_targets & ~done)
        return red & keep, spent & keep, done

    start = canonical(0, 0, 0)
    seen = {start}
    stack = [start]
    expanded = generated = 0
    max_seen = 8 * max_states  # the visited set, bounded too (a few hundred bytes a state)
    while stack:
        red, spent, done = stack.pop()
        if done == all_targets:
            return True
        expanded += 1
        if expanded > max_states or time.monotonic() > deadline:
            return None
        wanted = all_targets & ~done
        keep = alive(wanted)
        if not derivable(red, spent, keep, wanted):
            continue
        size = red.bit_count()
        for v in range(n):
            bit = 1 << v
            if dag.is_input[v] or not keep & bit or red & bit:
                continue
            pv = pred_mask[v]
            if (pv & ~input_mask) & ~red or pv & spent:
                continue
            new = pv & input_mask & ~red
            need = size + new.bit_count() + 1 - M
            free = list(iter_bits(red & ~pv))
            if need > len(free):
                continue
            for dropped in itertools.combinations(free, max(0, need)):
                generated += 1
                if generated & 1023 == 0 and (time.monotonic() > deadline
                                              or len(seen) > max_seen):
                    return None  # one expansion can generate many successors
                r2 = red | new | bit
                gone = 0
                for u in dropped:
                    gone |= 1 << u
                r2 &= ~gone
                state = canonical(r2, spent | (gone & input_mask),
                                  done | (bit & all_targets))
                if state not in seen:
                    seen.add(state)
                    stack.append(state)
    return False
