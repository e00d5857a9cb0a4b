r"""Good red–blue pebblings of any DAG, fast: a smart order, an eviction policy, local search.

An upper bound on :math:`Q(G, M)` is any complete legal schedule. This module builds one for
an arbitrary DAG (not only attnio's builders, unlike :mod:`attnio.graphs.schedules`) in three
layers:

1. **An order.** Every relevant non-input (an output or an ancestor of one) is computed
   exactly once, in a topological order. Starting orders: a *greedy list schedule* that
   simulates the cache and picks, among the ready vertices, one that needs the fewest reads
   and frees the most pebbles (values whose last use it is), with a seeded random tie-break;
   and *depth-first post-orders* from the outputs (Sethi–Ullman style: the predecessor with
   the larger ancestor cone first), which keep reduction trees in cache.
2. **A cache policy** that turns an order into moves (:func:`schedule_from_order`): read the
   missing predecessors, compute, and on a full cache evict a red pebble that the next step
   does not use:

   * a *dead* value (no later use) first — an output among them is written if not blue;
   * otherwise the value whose next use is furthest away (Belady's rule, optimal for
     uniform-cost paging), with a *cost-aware* variant: reloading a value that is blue (or an
     output, whose write is due anyway) costs one read, any other value a write-back plus a
     read, so policy ``"cost"`` evicts the largest (distance to next use) ÷ (reload cost)
     and ``"clean"`` prefers clean values outright;
   * **write-back** happens only for a value that is still needed and not blue, or an
     output not yet blue; outputs still red at the end are written then.

3. **Local search** over orders (seeded :class:`numpy.random.Generator`): move one vertex
   to another place between its last predecessor and its first successor, or move it
   together with its *private cone* (the computed ancestors used only inside the cone, e.g.
   a row's products with the row's sum), or swap two adjacent independent vertices; a
   move is kept when the cost does not rise (so the search
   walks plateaus), with a restart from the best order now and then. It stops at the time
   limit, after ``max_evaluations`` orders, or as soon as the cost meets ``lower_bound``.

The result is replayed by :func:`attnio.graphs.game.replay` (the validator independent of
every solver) before it is returned: its ``io`` is the replayed cost, a Python int, and an
upper bound on :math:`Q(G, M)` in both variants (each vertex is computed once, so the
schedule is one-shot legal too). It is a heuristic: no optimality is claimed.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
>>> r = heuristic_schedule(G, 3, seed=0, time_limit=0.5)
>>> r.io, r.io == replay(G, r.schedule, 3).io
(3, True)
>>> heuristic_schedule(G, 2)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: M=2 is below the 3 red pebbles vertex 'c' needs (in-degree 2 + 1)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import networkx as nx
import numpy as np

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import Move, replay, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, validate_enough_pebbles
from attnio.validation import positive_int, validate_digraph, validate_time_limit

__all__ = [
    "POLICIES",
    "HeuristicSchedule",
    "heuristic_schedule",
    "schedule_from_order",
    "greedy_order",
    "depth_first_order",
]

#: Eviction policies of :func:`schedule_from_order` (module docstring).
POLICIES = ("belady", "cost", "clean")

_INF = 1 << 60


@dataclass(frozen=True, slots=True)
class HeuristicSchedule:
    """A replayed heuristic schedule: ``io`` = reads + writes (exact), an upper bound on
    :math:`Q(G, M)`; ``order`` the compute order and ``policy`` the eviction policy used;
    ``evaluations`` orders costed; ``seconds`` the time spent."""

    io: int
    schedule: list[Move]
    order: list[str]
    policy: str
    evaluations: int
    seconds: float


def _simulate(dag: IndexedDAG, order: Sequence[int], M: int, policy: str,
              moves: list[tuple[str, int]] | None = None) -> int:
    """Cost of the schedule that computes ``order`` with the cache policy (module
    docstring); with ``moves``, append its moves (integer vertices) there."""
    pred = dag.pred_ids
    is_output = dag.is_output
    n = dag.n
    uses: list[list[int]] = [[] for _ in range(n)]
    for t, v in enumerate(order):
        for u in pred[v]:
            uses[u].append(t)
    ptr = [0] * n
    blue = list(dag.is_input)
    red: set[int] = set()
    cost = 0
    emit = moves.append if moves is not None else None
    for t, v in enumerate(order):
        pv = pred[v]
        missing = [u for u in pv if u not in red]
        need = len(red) + len(missing) + 1 - M
        if need > 0:
            pinned = set(pv)
            cands = []
            for u in red:
                if u in pinned:
                    continue
                k = ptr[u]
                nu = uses[u][k] if k < len(uses[u]) else _INF
                clean = blue[u] or is_output[u]
                if nu == _INF:
                    key = (0, 0.0)
                elif policy == "belady":
                    key = (1, -nu - (0.5 if clean else 0.0))
                elif policy == "cost":
                    key = (1, -(nu - t) / (1 if clean else 2))
                else:  # clean first
                    key = (1 if clean else 2, -nu)
                cands.append((key, u, nu))
            cands.sort()
            for _key, u, nu in cands[:need]:
                if not blue[u] and (nu != _INF or is_output[u]):
                    cost += 1
                    blue[u] = True
                    if emit:
                        emit(("write", u))
                red.discard(u)
                if emit:
                    emit(("delete", u))
        for u in missing:
            cost += 1  # u is blue: every evicted value still needed was written back
            red.add(u)
            if emit:
                emit(("read", u))
        red.add(v)
        if emit:
            emit(("compute", v))
        for u in pv:
            ptr[u] += 1
    for o in dag.outputs:
        if not blue[o]:
            cost += 1
            blue[o] = True
            if emit:
                emit(("write", o))
    return cost


def _moves_by_name(dag: IndexedDAG, moves: list[tuple[str, int]]) -> list[Move]:
    return [(kind, dag.names[i]) for kind, i in moves]


def schedule_from_order(G: nx.DiGraph, M: int, order: Sequence[str], *, policy: str = "belady",
                        outputs: Iterable[str] | None = None) -> list[Move]:
    """The moves of the cache policy ``policy`` on compute order ``order``.

    ``order`` lists every relevant non-input exactly once, topologically.

    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    >>> schedule_from_order(G, 3, ["c", "d"])
    [('read', 'a'), ('read', 'b'), ('compute', 'c'), ('delete', 'b'), ('compute', 'd'), ('write', 'd')]
    >>> schedule_from_order(G, 3, ["d", "c"])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: order must list every relevant non-input once, topologically ('d' before its predecessor 'c')
    """
    validate_digraph(G)
    M = validate_cache_size(M)
    if policy not in POLICIES:
        raise InvalidInputError(f"policy={policy!r} must be one of {POLICIES}")
    dag = IndexedDAG(G, outputs)
    validate_enough_pebbles(dag, M)
    idx = _check_order(dag, order)
    moves: list[tuple[str, int]] = []
    _simulate(dag, idx, M, policy, moves)
    return _moves_by_name(dag, moves)


def _check_order(dag: IndexedDAG, order: Sequence[str]) -> list[int]:
    if sorted(map(str, order)) != sorted(dag.names[i] for i in dag.computed):
        raise InvalidInputError("order must list every relevant non-input once, topologically")
    idx = [dag.index[v] for v in order]
    done = [dag.is_input[i] for i in range(dag.n)]
    for v in idx:
        for u in dag.pred_ids[v]:
            if not done[u]:
                raise InvalidInputError(
                    "order must list every relevant non-input once, topologically "
                    f"({dag.names[v]!r} before its predecessor {dag.names[u]!r})")
        done[v] = True
    return idx


def _greedy(dag: IndexedDAG, M: int, rng: np.random.Generator | None, noise: float,
            deadline: float = math.inf) -> list[int] | None:
    """List scheduling with a cache model (module docstring, layer 1); None when the clock
    passes ``deadline`` first (quadratic in the vertices: seconds on a 1,000-vertex DAG)."""
    pred, succ = dag.pred_ids, dag.succ_ids
    remaining = [len(s) for s in succ]           # uses not yet computed
    waiting = [sum(1 for u in pred[i] if not dag.is_input[u]) for i in range(dag.n)]
    ready = {i for i in dag.computed if waiting[i] == 0}
    red: dict[int, int] = {}                      # vertex -> last touch
    order: list[int] = []
    for t in range(len(dag.computed)):
        if time.monotonic() > deadline:
            return None
        best, best_key = -1, None
        for v in ready:
            pv = pred[v]
            reads = sum(1 for u in pv if u not in red)
            frees = sum(1 for u in pv if remaining[u] == 1)
            recency = max((red.get(u, -1) for u in pv), default=-1)
            score = 2.0 * reads - frees - 0.01 * recency
            if rng is not None and noise:
                score += noise * rng.random()
            key = (score, v)
            if best_key is None or key < best_key:
                best, best_key = v, key
        v = best
        ready.discard(v)
        order.append(v)
        for u in pred[v]:
            red[u] = t
            remaining[u] -= 1
        red[v] = t
        over = len(red) - M
        if over > 0:  # model only: evict dead values, then least remaining uses, then LRU
            pinned = set(pred[v]) | {v}
            victims = sorted((u for u in red if u not in pinned),
                             key=lambda u: (remaining[u] > 0, remaining[u], red[u]))
            for u in victims[:over]:
                del red[u]
        for w in succ[v]:
            waiting[w] -= 1
            if waiting[w] == 0:
                ready.add(w)
    return order


def _depth_first(dag: IndexedDAG, rng: np.random.Generator | None) -> list[int]:
    """Post-order from the outputs, larger ancestor cones first (module docstring)."""
    cone = [0] * dag.n
    anc: list[int] = [0] * dag.n
    for i in range(dag.n):  # topological index order
        m = 1 << i
        for u in dag.pred_ids[i]:
            m |= anc[u]
        anc[i] = m
        cone[i] = m.bit_count()
    seen = list(dag.is_input)
    order: list[int] = []
    outs = sorted(dag.outputs, key=lambda o: -cone[o])
    if rng is not None:
        outs = [outs[i] for i in rng.permutation(len(outs))]
    for o in outs:
        stack = [(o, False)]
        while stack:
            v, expanded = stack.pop()
            if seen[v]:
                continue
            if expanded:
                seen[v] = True
                order.append(v)
                continue
            stack.append((v, True))
            kids = [u for u in dag.pred_ids[v] if not seen[u]]
            kids.sort(key=lambda u: cone[u])  # pushed last = visited first: the larger cone
            stack.extend((u, False) for u in kids)
    return order


def greedy_order(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None) -> list[str]:
    """The deterministic greedy list-scheduling order (layer 1).

    >>> import networkx as nx
    >>> greedy_order(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")]), 3)
    ['c', 'd']
    """
    dag = IndexedDAG(G, outputs)
    order = _greedy(dag, M, None, 0.0)
    assert order is not None          # no deadline
    return [dag.names[i] for i in order]


def depth_first_order(G: nx.DiGraph, *, outputs: Iterable[str] | None = None) -> list[str]:
    """The depth-first post-order from the outputs (layer 1).

    >>> import networkx as nx
    >>> depth_first_order(nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")]))
    ['c', 'd']
    """
    dag = IndexedDAG(G, outputs)
    return [dag.names[i] for i in _depth_first(dag, None)]


def _move_block(dag: IndexedDAG, order: list[int], v: int,
                rng: np.random.Generator) -> list[int] | None:
    """Move ``v`` with its *private cone* (the computed ancestors all of whose uses lie in
    the cone: e.g. a row's products with the row's sum) to another valid place, keeping
    the cone's inner order."""
    block = {v}
    stack = [v]
    while stack:
        for u in dag.pred_ids[stack.pop()]:
            if not dag.is_input[u] and u not in block and all(w in block for w in dag.succ_ids[u]):
                block.add(u)
                stack.append(u)
    if len(block) == len(order):
        return None
    inner = [u for u in order if u in block]
    rest = [u for u in order if u not in block]
    pos = {u: i for i, u in enumerate(rest)}
    lo = max((pos[u] for b in block for u in dag.pred_ids[b] if u in pos), default=-1) + 1
    hi = min((pos[w] for w in dag.succ_ids[v] if w in pos), default=len(rest))
    if hi < lo:
        return None
    j = int(rng.integers(lo, hi + 1))
    new = rest[:j] + inner + rest[j:]
    return None if new == order else new


def _perturb(dag: IndexedDAG, order: list[int], rng: np.random.Generator) -> list[int] | None:
    """Move one vertex within its window (alone, or with its private cone), or swap two
    adjacent independent vertices."""
    m = len(order)
    if m < 2:
        return None
    pos = {v: i for i, v in enumerate(order)}
    i = int(rng.integers(m))
    v = order[i]
    roll = rng.random()
    if roll < 0.35:
        return _move_block(dag, order, v, rng)
    if roll < 0.55:
        if i + 1 >= m or v in dag.pred_ids[order[i + 1]]:
            return None
        new = order[:]
        new[i], new[i + 1] = new[i + 1], new[i]
        return new
    lo = max((pos[u] for u in dag.pred_ids[v] if u in pos), default=-1) + 1
    hi = min((pos[w] for w in dag.succ_ids[v]), default=m) - 1
    if hi <= lo:
        return None
    j = int(rng.integers(lo, hi + 1))
    if j == i:
        return None
    new = order[:i] + order[i + 1:]
    new.insert(j, v)
    return new


def heuristic_schedule(
    G: nx.DiGraph,
    M: int,
    *,
    outputs: Iterable[str] | None = None,
    seed: int | np.random.Generator = 0,
    time_limit: float | None = 1.0,
    max_evaluations: int | None = None,
    lower_bound: int | None = None,
    on_improve: Callable[[int, list[Move]], None] | None = None,
) -> HeuristicSchedule:
    r"""A good complete schedule of ``G`` with ``M`` red pebbles (module docstring).

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG; inputs are exactly its sources.
    M : int
        Red pebbles, at least max in-degree (over relevant non-inputs) + 1.
    outputs : iterable of str, optional
        Default ``G.graph["outputs"]``, else the sinks.
    seed : int or numpy.random.Generator
        Randomness of the tie-breaks and of the local search (deterministic per seed when
        ``max_evaluations`` bounds the search; a time limit makes it depend on speed).
    time_limit : float or None
        Seconds for the local search (None: no limit; then give ``max_evaluations``).
    max_evaluations : int, optional
        Orders costed before stopping.
    lower_bound : int, optional
        A proven lower bound on :math:`Q(G, M)`: the search stops as soon as it is met.
    on_improve : callable, optional
        ``on_improve(io, moves)`` each time a cheaper schedule is found (moves by name; the
        cost is the policy's count, replayed again at the end).

    Returns
    -------
    HeuristicSchedule
        Replayed: ``io == replay(G, schedule, M).io``.

    Raises
    ------
    InvalidInputError
        Not a DiGraph, cyclic, ``M`` not a positive int or too small, no stopping rule
        (``time_limit=None`` and no ``max_evaluations``).
    """
    validate_digraph(G)
    M = validate_cache_size(M)
    if max_evaluations is not None:
        max_evaluations = positive_int("max_evaluations", max_evaluations)
    time_limit = validate_time_limit(time_limit)
    if time_limit is None and max_evaluations is None:
        raise InvalidInputError("heuristic_schedule needs time_limit or max_evaluations")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    start = time.monotonic()
    deadline = math.inf if time_limit is None else start + time_limit
    budget = math.inf if max_evaluations is None else max_evaluations
    dag = IndexedDAG(G, outputs)
    validate_enough_pebbles(dag, M)
    floor = -1 if lower_bound is None else int(lower_bound)
    evaluations = 0
    best: tuple[int, list[int], str] | None = None

    def consider(order: list[int], policy: str) -> int:
        nonlocal evaluations, best
        evaluations += 1
        cost = _simulate(dag, order, M, policy)
        if best is None or cost < best[0]:
            best = (cost, order, policy)
            if on_improve is not None:
                moves: list[tuple[str, int]] = []
                _simulate(dag, order, M, policy, moves)
                on_improve(cost, _moves_by_name(dag, moves))
        return cost

    def done() -> bool:
        return (best is not None and best[0] <= floor) or evaluations >= budget \
            or time.monotonic() > deadline

    # layer 1: starting orders, each with every policy
    # (each start is built only while time is left, once one schedule is known: the time
    # limit bounds this layer too)
    starts: list[Callable[[], list[int] | None]] = [
        lambda: _greedy(dag, M, None, 0.0, deadline), lambda: _depth_first(dag, None),
        lambda: list(dag.computed)]
    for make in starts:
        if best is not None and time.monotonic() > deadline:
            break
        start_order = make()
        if start_order is None:
            continue
        for policy in POLICIES:
            if best is not None and time.monotonic() > deadline:
                break
            consider(start_order, policy)
    # layer 3: local search from the best, with randomised restarts of the greedy order
    assert best is not None
    current_cost, current, policy = best
    stale = 0
    while not done():
        if stale > 400:  # restart: a noisy greedy or depth-first order, or the best so far
            stale = 0
            pick = rng.random()
            if pick < 0.4:
                current = _greedy(dag, M, rng, 1.5, deadline) or best[1]
            elif pick < 0.6:
                current = _depth_first(dag, rng)
            else:
                current = best[1]
            policy = POLICIES[int(rng.integers(len(POLICIES)))]
            current_cost = consider(current, policy)
            continue
        if rng.random() < 0.05:
            other = POLICIES[int(rng.integers(len(POLICIES)))]
            cost = consider(current, other)
            if cost <= current_cost:
                policy, current_cost = other, cost
            continue
        candidate = _perturb(dag, current, rng)
        if candidate is None:
            continue
        cost = consider(candidate, policy)
        if cost <= current_cost:
            stale = 0 if cost < current_cost else stale + 1
            current, current_cost = candidate, cost
        else:
            stale += 1
    cost, order, policy = best
    moves: list[tuple[str, int]] = []
    _simulate(dag, order, M, policy, moves)
    schedule = _moves_by_name(dag, moves)
    replayed = replay(G, schedule, M, outputs=outputs).io
    if replayed != cost:  # internal invariant: the policy's count is the replayed count
        raise RuntimeError(f"heuristic bug: schedule replays to {replayed}, not {cost}")
    return HeuristicSchedule(io=replayed, schedule=schedule,
                             order=[dag.names[i] for i in order], policy=policy,
                             evaluations=evaluations, seconds=time.monotonic() - start)
