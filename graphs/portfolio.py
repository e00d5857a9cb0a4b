r"""The SAT share of ``attnio pebble``'s ``auto``: the search brackets :math:`Q(G, M)`, then
DRAT refutations raise the bracket's lower end one by one.

Why a portfolio (measured, notes/pebbling.md, "The SAT engine"): the compiled search is
faster than SAT on every matmul and attention DAG measured, but its lower end is the
frontier of an A* that must exhaust every state below the optimum; where that frontier does
not shrink, a SAT refutation of "a schedule of cost :math:`\le L` exists" on the
time-indexed CNF (:func:`attnio.graphs.exact_sat.refute`, CaDiCaL) closes rows the search
never closed — the peer DAG spmv_N7_nzP0d35 at M = 8, Q = 35: the search stays at
[34, 35] after 941 s, one refutation takes 12.5 CPU s. SAT only reaches DAGs whose horizon
:math:`\sum_v c(v)` (:func:`attnio.check.required_horizon`) is small: the spmv DAGs (42–68
steps) are refuted in seconds, the exp, kNN, bicgstab and pregel DAGs (136–703 steps) not in
30 s. So ``auto`` gives SAT a share of the time (:data:`SAT_SHARE`) exactly when the horizon
is at most :data:`SAT_AUTO_HORIZON` and python-sat is installed; the search runs first
(most instances end there, long before their share is spent) and SAT gets what is left.

Soundness: each refutation is an UNSAT answer on the canonical CNF, whose horizon lemma
(attnio/check.py) makes "UNSAT" mean :math:`Q(G, M) > L`; with ``--certify`` the same
refutation is written as the DRAT proof file an outsider checks (``python -m attnio.check``;
:func:`~attnio.graphs.exact_sat.refute` keeps its last refutation, so the proof file costs
no second solve). A satisfiable bound means a schedule of cost :math:`\le L` exists; its
decoded schedule is replayed here (:func:`attnio.graphs.game.replay`) before it counts: a
cost above :math:`L` (an unsound encoding) or below it (a lower end that was not a lower
bound) is an error, never a verdict; at exactly :math:`L`, :math:`Q = L`.

>>> from attnio.graphs.dags import matmul_dag
>>> from attnio.graphs.pebble_result import PebbleResult
>>> from attnio.graphs.game import replay
>>> from attnio.graphs.heuristic_schedule import greedy_order, schedule_from_order
>>> G = matmul_dag(1, 2, 1)
>>> moves = schedule_from_order(G, 3, greedy_order(G, 3))
>>> start = PebbleResult.undecided(5, replay(G, moves, 3).io, "the search ran out of time",
...                                schedule=moves)
>>> result, refutation = sat_portfolio(G, 3, start, time_limit=60)
>>> result.verdict, result.io, result.lower_source, refutation.bound
('optimal', 7, 'sat refutation', 6)
"""

from __future__ import annotations

import time
from typing import Iterable

import networkx as nx

from attnio.check import parse_dag, required_horizon
from attnio.exceptions import BoundSatisfiable
from attnio.graphs.anytime import AnytimeProgress
from attnio.graphs.exact_sat import (
    Refutation,
    dag_certificate_data,
    refute,
    sat_available,
)
from attnio.graphs.game import replay
from attnio.graphs.pebble_result import PebbleResult
from attnio.results import Status
from attnio.smt.isolation import KILL_GRACE_S

__all__ = ["SAT_AUTO_HORIZON", "SAT_SHARE", "sat_share", "sat_portfolio"]

#: Largest horizon (steps of the time-indexed CNF) at which ``auto`` gives SAT a share:
#: refutations finished in seconds at 42–68 steps and never within 30 s at 136 or more.
SAT_AUTO_HORIZON = 128
#: The share of an instance's time that ``auto`` keeps for SAT when the horizon allows it.
SAT_SHARE = 0.5


def sat_share(G: nx.DiGraph, method: str, *, recompute: bool = True,
              outputs: Iterable[str] | None = None) -> float:
    """The share of the time SAT gets after the search: :data:`SAT_SHARE` for ``method``
    ``"auto"`` on a DAG with horizon at most :data:`SAT_AUTO_HORIZON` when python-sat is
    installed, else 0 (every other method is the one engine the user named).

    >>> from attnio.graphs.dags import matmul_dag
    >>> sat_share(matmul_dag(2, 2, 2), "auto") == (SAT_SHARE if sat_available() else 0.0)
    True
    >>> sat_share(matmul_dag(2, 2, 2), "compiled")
    0.0
    """
    if method != "auto" or not sat_available():
        return 0.0
    # the horizon is at least the number of non-inputs an output needs: a DAG with more
    # non-inputs than SAT_AUTO_HORIZON is answered without building anything (matmul 9x9x9:
    # 1.3 s to build its horizon); one with few needed among many is left to the search
    if sum(1 for v in G if G.in_degree(v)) > SAT_AUTO_HORIZON:
        return 0.0
    horizon = required_horizon(parse_dag(dag_certificate_data(G, outputs)), recompute)
    return SAT_SHARE if horizon <= SAT_AUTO_HORIZON else 0.0


def sat_portfolio(G: nx.DiGraph, M: int, result: PebbleResult, *, time_limit: float,
                  recompute: bool = True, outputs: Iterable[str] | None = None,
                  progress: AnytimeProgress | None = None
                  ) -> tuple[PebbleResult, Refutation | None]:
    """Raise the lower end of an undecided ``result`` by SAT refutations within
    ``time_limit`` seconds (module docstring).

    Returns the new result and the refutation of "cost <= io - 1" when it closed the
    bracket (the proof file of that optimum), else None. A decided ``result``, or one with
    no schedule, comes back unchanged.
    """
    if result.verdict != Status.UNDECIDED or result.upper is None or not result.schedule:
        return result, None
    deadline = time.monotonic() + max(0.0, time_limit)
    lower, upper, schedule = result.lower, result.upper, list(result.schedule)
    last: Refutation | None = None
    while lower < upper and deadline - time.monotonic() > 2 * KILL_GRACE_S:
        if progress is not None:
            progress.phase = f"SAT refutation of cost <= {lower}"
        try:
            made = refute(G, M, lower, recompute=recompute, outputs=outputs,
                          time_limit=deadline - time.monotonic())
        except BoundSatisfiable as sat:  # a schedule of cost <= lower, and Q >= lower
            cost = replay(G, sat.schedule, M, recompute=recompute, outputs=outputs).io
            if cost != lower:  # above: the encoding is unsound; below: lower was no bound
                raise AssertionError(f"a SAT schedule of cost <= {lower} costs {cost}: "
                                     + ("the encoding is unsound" if cost > lower else
                                        f"{lower} was not a lower bound")) from None
            upper, schedule = cost, sat.schedule
            if progress is not None:
                progress.offer(cost, list(schedule))
            break
        if made is None:  # out of time (or the horizon is above MAX_SAT_HORIZON)
            break
        lower, last = lower + 1, made
        if progress is not None:
            progress.raise_lower(lower, "sat refutation")
    source = "sat refutation" if last is not None else result.lower_source
    if lower >= upper:
        return (PebbleResult.optimal(upper, schedule, seconds=result.seconds,
                                     states_explored=result.states_explored,
                                     lower_source=source),
                last if last is not None and last.bound == upper - 1 else None)
    if lower == result.lower:
        return result, None
    return (PebbleResult.undecided(lower, upper, result.reason, schedule=schedule,
                                   seconds=result.seconds,
                                   states_explored=result.states_explored,
                                   lower_source=source), None)
