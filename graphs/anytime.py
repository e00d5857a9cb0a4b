r"""Anytime red–blue pebbling: the best schedule so far and a proven lower bound, at every moment.

:func:`anytime_pebble` brackets :math:`Q(G, M)` (the least reads + writes of a complete
schedule with M red pebbles, :mod:`attnio.graphs.game`) from both sides and stops as soon as
the two sides meet:

1. **Lower bound first.** The *compulsory I/O* :math:`L_0 = |\text{needed inputs}| +
   |\text{outputs that are not inputs}|`: every needed input (a source that is an ancestor of
   an output) starts blue only and is read at least once, and every output that is not an
   input starts without blue and is written at least once; the two kinds of move are
   distinct (Hong & Kung 1981; the "compulsory" route of :mod:`attnio.graphs.lower_bounds`).
2. **Upper bound next.** Given schedules (``incumbents``, e.g. the algorithm schedules of
   :mod:`attnio.graphs.schedules`) are replayed, then (a) a quick run of
   :func:`attnio.graphs.heuristic_schedule.heuristic_schedule` (:data:`QUICK_EVALUATIONS`
   orders, deterministic per seed) looks for a cheaper one. **If the best schedule costs**
   :math:`L_0` **it is optimal and returned at once** — no exact search starts (spmv_N6 at
   M = 8: optimum 30 = 24 reads + 6 writes; notes/pebbling.md, "Peer DAGs", explains why
   the exact search alone did not find it in 30 s).
   **Zero-waste search.** If the best schedule still costs more than
   :math:`L_0`, :func:`attnio.graphs.zero_waste.zero_waste_schedule` looks (for at most
   :data:`ZERO_WASTE_SHARE` of the limit) for a compute-once schedule of cost exactly
   :math:`L_0` — optimal when found; when not found nothing is claimed.
   **Certified lower bound.** Then the *spill-windows* route of
   :mod:`attnio.graphs.lower_bounds` (route 4 of notes/lower_bounds.md: input reads counted
   in windows between first computations, plus forced spills, plus output writes — sound
   for every complete schedule, with or without recomputation) runs for at most
   :data:`CERTIFIED_SHARE` of the limit (:func:`certified_window_bound`): its window set U
   grows through :data:`WINDOW_SIZES` while the next size is predicted to fit, and a value
   counts only once its certificate re-verifies (:func:`attnio.graphs.lower_bounds.
   check_certificate`, a second implementation of the window minimum). If it meets the best
   schedule the answer is optimal. It is a bound at the root only: it does not change the
   exact search's per-state heuristic, so the search below is not seeded with it; the
   bracket's lower side is the larger of the two.
   **No zero-waste schedule?** Then, if the lower bound is still :math:`L_0`,
   :func:`attnio.graphs.zero_waste.zero_waste_exists` searches every schedule of cost
   exactly :math:`L_0`, recomputation included, for at most :data:`ZERO_WASTE_PROOF_SHARE`
   of the limit; when it exhausts them the lower bound becomes :math:`L_0 + 1` (its normal-form
   lemma is in its docstring).
3. **Exact search.** (b) the exact engine named by ``method``
   (:func:`attnio.graphs.engines.solve`; default ``"auto"``: the compiled core when numba is
   installed, else :func:`attnio.graphs.exact.solve_optimal`) runs for
   :data:`PROBE_SHARE` of the limit with the best schedule as its incumbent: it prunes every
   state whose f reaches the incumbent's cost, returns the incumbent as optimal once the
   least f on its frontier meets it, and reports each rise of that least f (a proven lower
   bound) to :class:`AnytimeProgress`. Small instances end here. Otherwise (c) the heuristic
   searches again for ``heuristic_share`` of the limit (stopping if it meets the lower
   bound; no phase when the share is 0), and (d) the exact search gets the rest, with the
   improved incumbent.

**The deadline ends the run.** A phase starts only with a budget left: once the time limit
has passed no search phase is called (each has a set-up cost of its own, 0.1–0.2 s on a
1,539-vertex DAG, even with a budget of 0) and the answer is undecided with the bracket so
far, reason ``time limit ... reached``. Two exceptions keep the bracket useful: (a) runs
when no schedule is known yet, and the certified bound always runs (its first window set
is bounded work).

At every moment :class:`AnytimeProgress` holds the best schedule (replayed, so its cost is
exact) and the best proven lower bound. On the time limit the answer is an undecided
:class:`~attnio.graphs.pebble_result.PebbleResult` with that bracket and the best schedule. A KeyboardInterrupt is not caught: it propagates, and the caller that
passed ``progress`` reads the bracket and schedule from it (``attnio pebble`` prints them and
exits 130).

Every schedule handed out replays through :func:`attnio.graphs.game.replay` to its reported
cost; heuristic schedules compute each vertex once, so they are legal in the one-shot variant
too.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
>>> r = anytime_pebble(G, 3, time_limit=5)
>>> r.verdict, r.io        # 2 reads + 1 write = compulsory I/O: optimal without search
('optimal', 3)
>>> p = AnytimeProgress()
>>> r = anytime_pebble(G, 3, time_limit=5, progress=p)
>>> p.lower_bound, p.upper_bound, p.phase
(3, 3, 'done')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.engines import resolve_method, solve
from attnio.graphs.exact import (
    min_cache_size,
    validate_exact_size,
    validate_time_limit,
)
from attnio.graphs.game import Move, game_inputs, game_outputs, replay, validate_cache_size
from attnio.graphs.heuristic_schedule import heuristic_schedule
from attnio.graphs.lower_bounds import check_certificate, spill_windows_bound
from attnio.graphs.pebble_result import PebbleResult
from attnio.graphs.zero_waste import zero_waste_exists, zero_waste_schedule
from attnio.results import Status
from attnio.validation import validate_digraph

__all__ = ["AnytimeProgress", "anytime_pebble", "compulsory_io",
           "certified_window_bound", "DEFAULT_HEURISTIC_SHARE", "QUICK_EVALUATIONS",
           "PROBE_SHARE", "CERTIFIED_SHARE", "ROUTES_SHARE", "ZERO_WASTE_SHARE", "ZERO_WASTE_PROOF_SHARE",
           "WINDOW_SIZES"]

#: Share of the time limit given to the long heuristic search (phase c).
DEFAULT_HEURISTIC_SHARE = 0.5
#: Orders costed by the quick heuristic (phase a), before any exact search.
QUICK_EVALUATIONS = 2500
#: Share of the time limit for the exact probe (phase b), where small instances end.
PROBE_SHARE = 0.1
#: Share of the time limit for the certified lower-bound route (after phase a).
CERTIFIED_SHARE = 0.1
#: Share of the time limit for a caller's ``lower_bound_routes`` (after phase a).
ROUTES_SHARE = 0.25
#: Share of the time limit for each of the two zero-waste searches (after phase a).
ZERO_WASTE_SHARE = 0.05
#: Share of the time limit for the exhaustive zero-waste search with recomputation.
ZERO_WASTE_PROOF_SHARE = 0.1
#: Window-set sizes |U| tried in turn by :func:`certified_window_bound`. The window DP and
#: its checker grow about 5x per +2 vertices (spmv_N6 at M = 6: 0.05 s at |U| = 10, 0.4 s
#: at 12, 2.2 s at 14, 10 s at 16, bound and check together).
WINDOW_SIZES = (8, 10, 12, 14, 16)
#: Predicted cost ratio of one window size to the previous one.
_WINDOW_GROWTH = 6.0


@dataclass
class AnytimeProgress:
    """The live bracket of an :func:`anytime_pebble` call (read it at any moment, e.g.
    after a KeyboardInterrupt): ``lower_bound <= Q(G, M) <= upper_bound``, ``schedule``
    replays to ``upper_bound``; ``phase`` is ``"start"``, ``"heuristic"``, ``"lower bound"``,
    ``"exact"`` or ``"done"``; ``lower_bound_source`` names the argument behind
    ``lower_bound`` (``"compulsory"``, ``"spill-windows, U of k"``, ``"exact search"``)."""

    lower_bound: int = 0
    lower_bound_source: str = "none"
    upper_bound: int | None = None
    schedule: list[Move] | None = None
    phase: str = "start"
    started: float = field(default_factory=time.monotonic)

    def raise_lower(self, value: int, source: str = "exact search") -> None:
        """Record a proven lower bound (the larger one is kept, with where it came from)."""
        if value > self.lower_bound:
            self.lower_bound = int(value)
            self.lower_bound_source = source

    def offer(self, io: int, schedule: list[Move]) -> None:
        """Record a schedule whose cost (already replayed) is ``io``, if it is better."""
        if self.upper_bound is None or io < self.upper_bound:
            self.upper_bound, self.schedule = int(io), list(schedule)

    def undecided(self, reason: str, states_explored: int = 0) -> PebbleResult:
        """The bracket now, as an undecided result (``schedule`` replays to ``upper``)."""
        return PebbleResult.undecided(self.lower_bound, self.upper_bound, reason,
                                      schedule=self.schedule or [],
                                      states_explored=states_explored,
                                      seconds=time.monotonic() - self.started,
                                      lower_source=self.lower_bound_source)


def compulsory_io(G: nx.DiGraph, outputs: Iterable[str] | None = None) -> int:
    r"""Compulsory I/O: needed inputs (read at least once) + outputs that are not inputs
    (written at least once) — a lower bound on :math:`Q(G, M)` for every M, both variants.

    >>> import networkx as nx
    >>> compulsory_io(nx.DiGraph([("a", "c"), ("b", "c"), ("x", "y")]), outputs=["c"])
    3
    """
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    needed = set()
    for o in outs:
        needed |= nx.ancestors(G, o) & inputs
    return len(needed) + sum(1 for o in outs if o not in inputs)


def certified_window_bound(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                           seconds: float = 5.0) -> tuple[int, int] | None:
    r"""The best *spill-windows* lower bound on :math:`Q(G, M)` (route 4 of
    :mod:`attnio.graphs.lower_bounds`, proof in notes/lower_bounds.md) whose certificate
    re-verifies, within about ``seconds``: ``(value, |U|)``, or None when none finished.

    Sound with and without recomputation, for any window set U (a smaller U gives a value no
    larger); U grows through :data:`WINDOW_SIZES` while the next size, predicted at
    ``_WINDOW_GROWTH`` times the last one's cost, fits the remaining time. A route run cannot
    be interrupted, so the first size is the smallest one, whatever ``seconds`` is.

    >>> from attnio.graphs.dags import matmul_dag
    >>> certified_window_bound(matmul_dag(1, 2, 1), 3)     # exact optimum 7
    (7, 3)
    """
    started = time.monotonic()
    best: tuple[int, int] | None = None
    for size in WINDOW_SIZES:
        step_start = time.monotonic()
        record = spill_windows_bound(G, M, outputs, max_window_vertices=size)
        if record.applies and _certificate_holds(G, M, record, outputs):
            value = int(record.value)
            if best is None or value > best[0]:
                best = (value, len(record.certificate["U"]))
        now = time.monotonic()
        used = len(record.certificate.get("U", ())) if record.applies else size
        if used < size:  # U is already every candidate vertex: a larger size adds nothing
            break
        if (now - started) + _WINDOW_GROWTH * (now - step_start) > seconds:
            break
    return best


def _certificate_holds(G: nx.DiGraph, M: int, record, outputs: Iterable[str] | None
                          ) -> bool:
    """True when ``record``'s certificate re-verifies on ``G`` with ``outputs``."""
    if outputs is not None:
        G = G.copy()
        G.graph["outputs"] = list(outputs)
    return check_certificate(G, M, record).proved


def anytime_pebble(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    time_limit: float = 60.0,
    seed: int = 0,
    heuristic_share: float = DEFAULT_HEURISTIC_SHARE,
    incumbents: Mapping[str, Sequence[Move]] | None = None,
    progress: AnytimeProgress | None = None,
    method: str = "auto",
    lower_bounds: Mapping[str, int] | None = None,
    lower_bound_routes: Callable[[float], tuple[int, str] | None] | None = None,
) -> PebbleResult:
    r"""Bracket :math:`Q(G, M)` within ``time_limit`` seconds (module docstring).

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG; inputs are exactly its sources.
    M : int
        Red pebbles.
    recompute : bool
        True: Hong–Kung's game; False: one-shot.
    outputs : iterable of str, optional
        Default ``G.graph["outputs"]``, else the sinks.
    time_limit : float
        Seconds for the whole call (finite, >= 0).
    seed : int
        Seed of the heuristic's local search.
    heuristic_share : float
        Share of ``time_limit`` for the long heuristic search (phase c), in [0, 1].
    incumbents : mapping of name to moves, optional
        Complete schedules to start from (each replayed here; an illegal one raises
        :class:`attnio.exceptions.IllegalMoveError`).
    progress : AnytimeProgress, optional
        Updated live with the bracket and the best schedule.
    method : str
        The exact engine of phases (b) and (d), one of
        :data:`attnio.graphs.engines.METHODS` (default ``"auto"``: compiled when numba is
        installed, else reference). An engine that takes an incumbent (the searches) gets
        the best schedule; ``reference`` also reports its rising lower bound live.
    lower_bounds : mapping of source name to int, optional
        Lower bounds on :math:`Q(G, M)` the caller has already proven (e.g. the certified
        routes of :func:`attnio.graphs.lower_bounds.certified_lower_bound`, each re-verified
        by its checker): the bracket starts at the largest, named by its source
        (``progress.lower_bound_source``), and a schedule meeting it ends the run at once.
        Soundness is the caller's: pass only bounds whose certificate was checked.
    lower_bound_routes : callable, optional
        ``routes(seconds) -> (value, source) or None``: a costlier proven lower bound (e.g.
        every certified route of :mod:`attnio.graphs.lower_bounds`), called once, in the
        lower-bound phase — after the quick heuristic and the zero-waste search, so that an
        instance they settle never pays for it — with :data:`ROUTES_SHARE` of the limit (not
        called when no time is left). Soundness is the caller's, as for ``lower_bounds``.

    Returns
    -------
    PebbleResult
        Verdict ``optimal`` when the bracket closed (its schedule replays to ``io``),
        ``infeasible``, or ``undecided`` with the bracket and the best schedule.

    Raises
    ------
    InvalidInputError
        Bad ``G``, ``M``, ``time_limit``, ``heuristic_share`` or ``method`` (unknown, or
        its extra not installed).
    """
    validate_digraph(G)
    validate_exact_size(G)
    M = validate_cache_size(M)
    checked_limit = validate_time_limit(time_limit)
    if checked_limit is None:
        raise InvalidInputError("time_limit=None: anytime_pebble needs a finite time limit")
    time_limit = checked_limit
    if (isinstance(heuristic_share, bool) or not isinstance(heuristic_share, (int, float))
            or not 0 <= heuristic_share <= 1):
        raise InvalidInputError(f"heuristic_share={heuristic_share!r} must be in [0, 1]")
    engine = resolve_method(method)
    takes = engine.options()
    state = progress if progress is not None else AnytimeProgress()
    state.started = start = time.monotonic()
    deadline = start + time_limit
    need_m = min_cache_size(G, outputs)
    if M < need_m:  # the engine words the reason
        return solve(G, M, method=engine.name, recompute=recompute, outputs=outputs,
                     time_limit=0)
    state.raise_lower(compulsory_io(G, outputs), "compulsory")
    for source, value in (lower_bounds or {}).items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidInputError(f"lower_bounds[{source!r}]={value!r} must be an int >= 0")
        state.raise_lower(value, source)

    def closed() -> PebbleResult | None:
        if state.upper_bound is not None and state.upper_bound <= state.lower_bound:
            state.phase = "done"
            return PebbleResult.optimal(state.upper_bound, state.schedule or [],
                                        seconds=time.monotonic() - start,
                                        lower_source=state.lower_bound_source)
        return None

    for moves in (incumbents or {}).values():
        moves = list(moves)
        state.offer(replay(G, moves, M, recompute=recompute, outputs=outputs).io, moves)
    if (done := closed()) is not None:
        return done
    explored = [0]

    def improved(_io: int, moves: list[Move]) -> None:  # replayed before it is offered
        state.offer(replay(G, moves, M, recompute=recompute, outputs=outputs).io, moves)

    def heuristic(seconds: float, evaluations: int | None) -> None:
        state.phase = "heuristic"
        found = heuristic_schedule(G, M, outputs=outputs, seed=seed, time_limit=seconds,
                                   max_evaluations=evaluations, lower_bound=state.lower_bound,
                                   on_improve=improved)
        # the heuristic replays its schedule; one-shot legality is checked here as well
        state.offer(replay(G, found.schedule, M, recompute=recompute, outputs=outputs).io,
                    found.schedule)

    def exact(seconds: float) -> PebbleResult:
        state.phase = "exact"
        extra: dict[str, Any] = {}
        if "incumbent" in takes:
            extra["incumbent"] = state.schedule
        if "on_lower_bound" in takes:
            extra["on_lower_bound"] = state.raise_lower
        found = solve(G, M, method=engine.name, recompute=recompute, outputs=outputs,
                      time_limit=seconds, **extra)
        explored[0] += found.states_explored
        if found.verdict is Status.UNDECIDED and found.schedule:  # e.g. the time-indexed model
            state.offer(replay(G, found.schedule, M, recompute=recompute, outputs=outputs).io,
                        found.schedule)
        return found

    def budget(portion: float) -> float:
        """Seconds for the next phase: its portion, cut at the deadline (0: do not start)."""
        return max(0.0, min(portion, deadline - time.monotonic()))

    def out_of_time() -> PebbleResult:
        state.phase = "done"
        return state.undecided(f"time limit {time_limit:g} s reached", explored[0])

    share = time_limit * heuristic_share
    # (a) a quick heuristic, bounded by evaluations (deterministic per seed); with no time
    # at all (time_limit=0: the caller's limit is spent) only when no schedule is known yet
    if time_limit > 0 or state.upper_bound is None:
        heuristic(share, QUICK_EVALUATIONS)
        if (done := closed()) is not None:
            return done
    # the bracket is open here (the heuristic always offers a schedule, so upper > lower):
    # a schedule of cost exactly the compulsory I/O, if a compute-once one exists
    state.phase = "heuristic"
    if (seconds := budget(time_limit * ZERO_WASTE_SHARE)) > 0:
        found_zero = zero_waste_schedule(G, M, outputs=outputs, time_limit=seconds)
        if found_zero is not None:
            state.offer(replay(G, found_zero, M, recompute=recompute, outputs=outputs).io,
                        found_zero)
        if (done := closed()) is not None:
            return done
    # the certified lower bound (spill windows), within its share of the limit — started
    # even at the deadline: its first window set is bounded work (0.15 s on 1,539 vertices)
    # and usually the bracket's best lower side (1539 vs compulsory 243 on matmul:9x9x9)
    state.phase = "lower bound"
    if lower_bound_routes is not None and (seconds := budget(time_limit * ROUTES_SHARE)) > 0:
        routed = lower_bound_routes(seconds)
        if routed is not None:
            state.raise_lower(*routed)
        if (done := closed()) is not None:
            return done
    certified = certified_window_bound(G, M, outputs=outputs,
                                       seconds=budget(time_limit * CERTIFIED_SHARE))
    if certified is not None:
        state.raise_lower(certified[0], f"spill-windows, U of {certified[1]}")
    if (done := closed()) is not None:
        return done
    # no schedule costs exactly the compulsory I/O? (exhaustive, recomputation included)
    compulsory = compulsory_io(G, outputs)
    if state.lower_bound == compulsory:
        if (seconds := budget(time_limit * ZERO_WASTE_PROOF_SHARE)) <= 0:
            return out_of_time()
        exists = zero_waste_exists(G, M, outputs=outputs, time_limit=seconds)
        if exists is False:
            state.raise_lower(compulsory + 1, "zero-waste search exhausted")
        if (done := closed()) is not None:
            return done
    # (b) a short exact probe: small instances end here
    if (seconds := budget(time_limit * PROBE_SHARE)) <= 0:
        return out_of_time()
    result = exact(seconds)
    if result.verdict is Status.UNDECIDED:
        state.raise_lower(result.lower)
        if (done := closed()) is not None:
            return done
        # (c) the long heuristic (only with a share of its own: heuristic_share=0 goes to
        # (d) at once), then (d) the exact search for the rest
        if share > 0:
            if (seconds := budget(share)) <= 0:
                return out_of_time()
            heuristic(seconds, None)
            if (done := closed()) is not None:
                return done
        if (seconds := budget(time_limit)) <= 0:  # the rest, up to the deadline
            return out_of_time()
        result = exact(seconds)
    state.phase = "done"
    if result.verdict is Status.OPTIMAL:
        state.offer(result.io, result.schedule)
        state.raise_lower(result.io)
        return PebbleResult.optimal(result.io, result.schedule, states_explored=explored[0],
                                    seconds=time.monotonic() - start,
                                    lower_source=state.lower_bound_source)
    if result.verdict is Status.UNDECIDED:
        state.raise_lower(result.lower)
        if (done := closed()) is not None:
            return done
        return state.undecided(result.reason, explored[0])
    return result
