r"""A second, independent exact method: a time-indexed SAT model of the pebble game (z3).

Shares nothing with :mod:`attnio.graphs.exact` but the game's definition. For a horizon of
T steps, Boolean variables

* ``red[t][v]``, ``blue[t][v]`` — pebbles on v after t steps (t = 0 … T);
* ``rd[t][v]``, ``wr[t][v]``, ``cp[t][v]`` — step t reads, writes or computes v

with the constraints (one step = any number of free deletions plus at most one read, write
or compute):

.. math::
    \mathrm{red}_0 = \varnothing, \quad \mathrm{blue}_0 = \text{inputs}, \quad
    \mathrm{blue}_{t+1}(v) = \mathrm{blue}_t(v) \lor \mathrm{wr}_t(v), \quad
    \mathrm{red}_{t+1}(v) \Rightarrow \mathrm{red}_t(v) \lor \mathrm{rd}_t(v) \lor \mathrm{cp}_t(v),

:math:`\mathrm{rd}_t(v) \Rightarrow \mathrm{blue}_t(v) \land \mathrm{red}_{t+1}(v)`,
:math:`\mathrm{wr}_t(v) \Rightarrow \mathrm{red}_t(v)`,
:math:`\mathrm{cp}_t(v) \Rightarrow v \notin \text{inputs} \land \mathrm{red}_{t+1}(v) \land
\bigwedge_{u \to v} \mathrm{red}_t(u) \land \mathrm{red}_{t+1}(u)` (placed, not slid),
:math:`\sum_v \mathrm{red}_t(v) \le M`, :math:`\mathrm{blue}_T(o)` for every output o, and,
one-shot, :math:`\sum_t \mathrm{cp}_t(v) \le 1`. The I/O count
:math:`\sum_{t,v} \mathrm{rd}_t(v) + \mathrm{wr}_t(v)` is minimised by linear search: assert
``PbLe(io, U)``, and after each sat answer with cost c assert ``io <= c - 1``; the first unsat
proves the last model optimal (within the horizon).

Horizon (what "optimal" means here). The model finds the least cost over schedules of at
most T read/write/compute steps. *One-shot* this is the true optimum once
:math:`T \ge c + U`, where c is the number of relevant non-inputs (each computed at most once)
and U any achievable cost (reads + writes ≤ U in an optimal schedule): the default horizon,
proven sufficient, so the verdict is ``optimal``. *With recomputation* no such bound on the
number of computations is known to us; the default horizon allows ``recompute_factor`` computations
per vertex, and the verdict is ``undecided`` with the bracket ``0 <= Q(G, M) <= upper``:
``upper`` is exact whenever some optimal schedule fits the horizon (the agreement tests check
it against the search), but nothing outside the horizon is excluded. So this is an optimal
engine for the one-shot game only. Results are
:class:`~attnio.graphs.pebble_result.PebbleResult` with ``horizon`` set; z3 ``unknown`` or a timeout → verdict ``undecided``.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> r = solve_time_indexed(G, 3)
>>> r.verdict, r.lower, r.upper
('undecided', 0, 3)
>>> solve_time_indexed(G, 3, recompute=False).verdict
'optimal'
"""

from __future__ import annotations

import time
from typing import Iterable

import networkx as nx

from attnio.graphs.game import Move, game_inputs, game_outputs, replay, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, pebbles_shortfall
from attnio.graphs.pebble_result import PebbleResult

__all__ = ["solve_time_indexed", "naive_upper_bound"]


def naive_upper_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None) -> int:
    """Least replayed cost of the algorithm schedules of :mod:`attnio.graphs.schedules`
    (each computes every vertex once, so it is legal one-shot too). Valid for
    M ≥ max in-degree + 1, where the naive schedule always fits.

    >>> naive_upper_bound(nx.DiGraph([("a", "c"), ("b", "c")]), 3)
    3
    """
    from attnio.graphs.schedules import algorithm_costs

    return min(algorithm_costs(G, M, outputs=outputs, recompute=False).values())


def solve_time_indexed(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    horizon: int | None = None,
    recompute_factor: int = 2,
    timeout: float | None = 60,
) -> PebbleResult:
    """Minimum-I/O pebbling by z3 optimisation over a time-indexed model.

    Parameters
    ----------
    G, M, recompute, outputs
        As :func:`attnio.graphs.exact.solve_optimal`.
    horizon : int, optional
        Number of steps; default ``c + U`` one-shot, ``recompute_factor·c + U`` otherwise
        (c relevant non-inputs, U the naive schedule's cost).
    recompute_factor : int
        Computations per vertex the default horizon allows (recomputation variant).
    timeout : float or None
        Seconds given to z3.

    Returns
    -------
    PebbleResult
        ``optimal`` when the horizon is proven sufficient (one-shot, default horizon);
        otherwise the least cost within the horizon is only ``upper`` (verdict
        ``undecided``, ``lower`` 0), with its schedule. ``horizon`` is set.

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> solve_time_indexed(matmul_dag(1, 2, 1), 3, recompute=False).io  # see test_exact_z3.py
    7
    """
    import z3  # here: importing attnio.graphs costs no solver
    validate_cache_size(M)
    start = time.monotonic()
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    dag = IndexedDAG(G, outs)
    shortfall = pebbles_shortfall(dag, M)
    if shortfall is not None:
        return PebbleResult.infeasible(shortfall)
    V = sorted(dag.names)
    computed = [v for v in V if v not in inputs]
    upper = naive_upper_bound(G, M, outputs)
    complete = horizon is None and not recompute
    if horizon is None:
        horizon = (1 if not recompute else recompute_factor) * len(computed) + upper
    T = horizon
    red = [{v: z3.Bool(f"r_{t}_{v}") for v in V} for t in range(T + 1)]
    blue = [{v: z3.Bool(f"b_{t}_{v}") for v in V} for t in range(T + 1)]
    rd = [{v: z3.Bool(f"rd_{t}_{v}") for v in V} for t in range(T)]
    wr = [{v: z3.Bool(f"wr_{t}_{v}") for v in V} for t in range(T)]
    cp = [{v: z3.Bool(f"cp_{t}_{v}") for v in computed} for t in range(T)]
    opt = z3.Solver()
    for v in V:
        opt.add(z3.Not(red[0][v]))
        opt.add(blue[0][v] if v in inputs else z3.Not(blue[0][v]))
    for t in range(T):
        actions = [rd[t][v] for v in V] + [wr[t][v] for v in V] + list(cp[t].values())
        opt.add(z3.AtMost(*actions, 1))
        for v in V:
            placed = [rd[t][v]] + ([cp[t][v]] if v in cp[t] else [])
            opt.add(blue[t + 1][v] == z3.Or(blue[t][v], wr[t][v]))
            opt.add(z3.Implies(red[t + 1][v], z3.Or(red[t][v], *placed)))
            opt.add(z3.Implies(rd[t][v], z3.And(blue[t][v], z3.Not(red[t][v]), red[t + 1][v])))
            opt.add(z3.Implies(wr[t][v], red[t][v]))
            if v in cp[t]:
                parents = [p for u in G.predecessors(v) for p in (red[t][u], red[t + 1][u])]
                opt.add(z3.Implies(cp[t][v], z3.And(z3.Not(red[t][v]), red[t + 1][v], *parents)))
    for t in range(T + 1):
        opt.add(z3.AtMost(*red[t].values(), M))
    for o in outs:
        opt.add(blue[T][o])
    if not recompute:
        for v in computed:
            opt.add(z3.AtMost(*(cp[t][v] for t in range(T)), 1))
    io_vars = [x for t in range(T) for x in (*rd[t].values(), *wr[t].values())]
    # Linear search downwards: each sat answer gives a cheaper schedule, the first unsat
    # proves the last one optimal within the horizon. The naive schedule's cost U is achievable,
    # so the search starts at U.
    best_model = None
    bound = upper
    while True:
        remaining = None if timeout is None else timeout - (time.monotonic() - start)
        if remaining is not None and remaining <= 0:
            answer = z3.unknown
            break
        if remaining is not None:
            opt.set("timeout", max(1, int(remaining * 1000)))
        opt.push()
        opt.add(z3.PbLe([(x, 1) for x in io_vars], bound))
        answer = opt.check()
        if answer == z3.sat:
            best_model = opt.model()
            found = sum(1 for x in io_vars if z3.is_true(best_model.eval(x, model_completion=True)))
            opt.pop()
            bound = found - 1
            if bound < 0:
                answer = z3.unsat
                break
            continue
        opt.pop()
        break
    seconds = time.monotonic() - start
    if answer != z3.unsat or best_model is None:
        return PebbleResult.undecided(0, upper, f"z3 answered {answer} at I/O <= {bound}",
                                      seconds=seconds, horizon=T)
    model = best_model
    value = bound + 1
    true_names = {d.name() for d in model.decls() if z3.is_true(model[d])}
    moves: list[Move] = []
    for t in range(T):
        moves += [("write", v) for v in V if f"wr_{t}_{v}" in true_names]
        moves += [("delete", v) for v in V
                  if f"r_{t}_{v}" in true_names and f"r_{t + 1}_{v}" not in true_names]
        moves += [("read", v) for v in V if f"rd_{t}_{v}" in true_names]
        moves += [("compute", v) for v in computed if f"cp_{t}_{v}" in true_names]
    io = replay(G, moves, M, recompute=recompute, outputs=outputs).io
    if io != value:  # internal invariant: the model's schedule must replay to its cost
        raise RuntimeError(f"time-indexed model bug: schedule replays to {io}, not {value}")
    if complete:
        return PebbleResult.optimal(io, moves, seconds=seconds, horizon=T)
    return PebbleResult.undecided(0, io, f"least cost within a horizon of {T} steps (the horizon is "
                                  "not proven sufficient)",
                                  schedule=moves, seconds=seconds, horizon=T)
