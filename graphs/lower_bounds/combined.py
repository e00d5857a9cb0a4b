r"""All certified lower-bound routes on a DAG, the best of them, and their checkers.

The body of :mod:`attnio.graphs.lower_bounds` (whose docstring states the guarantee and lists the
routes): :func:`lower_bounds` runs every route of :data:`~.registry.ROUTES`, :func:`best_bound`
picks the largest that applies, :func:`check_certificate` re-verifies a record with its route's
checker, :func:`certified_lower_bound` returns the best bound whose certificate was re-verified.
A module of its own so that the package ``__init__`` stays light (issue 40: a command imports
only what it uses); every name here is re-exported as ``attnio.graphs.lower_bounds.<name>``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import networkx as nx

from attnio.exceptions import AttnioError, InvalidInputError
from attnio.graphs.game import game_inputs, validate_cache_size
from attnio.graphs.lower_bounds.counting import (
    builtin_structure,
    compulsory_bound,
    hong_kung_route,
    per_part_routes,
    validate_declared_builder,
)
from attnio.graphs.lower_bounds.covering import covering_lp_bound
from attnio.graphs.lower_bounds.deadline import (
    CHECK_TIME_LIMIT_REASON,
    TIME_LIMIT_REASON,
    Deadline,
    TimeLimitReached,
    as_deadline,
)
from attnio.graphs.lower_bounds.records import BoundRecord, Route, must_compute
from attnio.graphs.lower_bounds.registry import ROUTES, get_route, route_of

# Re-exported so that their import path stays attnio.graphs.lower_bounds (as before the split):
# the limits, and the helpers proofs/certified_routes.py builds its false twins from.
from attnio.graphs.lower_bounds.saturation import (
    MAX_SATURATION_STATES,  # noqa: F401
    saturating_sets,
    saturation_reads_min,
    saturation_windows_bound,
)
from attnio.graphs.lower_bounds.subdag import (  # noqa: F401
    MAX_SUBDAG_VERTICES,  # noqa: F401
    ancestor_subdag,
    outside_moves,
    subdag_exact_bound,
)
from attnio.graphs.lower_bounds.windows import (
    MAX_WINDOW_STATES,  # noqa: F401
    MAX_WINDOW_VERTICES,  # noqa: F401
    choose_window_set,  # noqa: F401
    forced_spill_sets,
    spill_windows_bound,
    window_reads_min,
)
from attnio.results import Proved, Refuted, Undecided, Verdict

__all__ = [
    "BoundRecord",
    "Route",
    "ROUTES",
    "route_of",
    "get_route",
    "compulsory_bound",
    "hong_kung_route",
    "per_part_routes",
    "spill_windows_bound",
    "subdag_exact_bound",
    "covering_lp_bound",
    "saturation_windows_bound",
    "saturating_sets",
    "saturation_reads_min",
    "lower_bounds",
    "certified_routes",
    "CertifiedRoute",
    "route_phases",
    "least_cache_size",
    "builtin_structure",
    "validate_declared_builder",
    "Deadline",
    "TIME_LIMIT_REASON",
    "best_bound",
    "check_certificate",
    "certified_lower_bound",
    "must_compute",
    "window_reads_min",
    "forced_spill_sets",
]



# --------------------------------------------------------------------------------------------
# All routes, the best, the checkers
# --------------------------------------------------------------------------------------------


#: The routes in the order :func:`lower_bounds` runs and reports them (``per-part`` gives two
#: records): the registry's order.
ROUTE_PHASES = tuple(ROUTES)
#: The first linear route (compulsory): it runs even past the deadline — linear, always
#: affordable, the floor every other bound is compared with.
_FLOOR = next(route for route in ROUTES.values() if not route.searching)


def route_phases(G: nx.DiGraph, M: int, *, timeout_ms: int = 20_000, hong_kung: bool = True,
                 subdag: bool = True, windows: bool = True
                 ) -> list[tuple[Route, Callable[[Deadline], list[BoundRecord]]]]:
    """``(route, run(deadline) -> records)`` for each registered route (:data:`ROUTES`, in
    order); a route whose :attr:`Route.switch` keyword is False is skipped: its ``run``
    returns its "skipped" records at once."""
    flags = {"hong_kung": hong_kung, "subdag": subdag, "windows": windows}

    def phase(route: Route) -> Callable[[Deadline], list[BoundRecord]]:
        if route.switch is not None and not flags[route.switch]:
            return lambda _dl: route.not_computed(f"skipped ({route.switch}=False)")
        return lambda dl: route.compute(G, M, deadline=dl, timeout_ms=timeout_ms)

    return [(route, phase(route)) for route in ROUTES.values()]


def _prepare(G: nx.DiGraph, M: int, outputs: Iterable[str] | None) -> nx.DiGraph:
    validate_cache_size(M)
    game_inputs(G)  # raises on a cycle or on declared inputs other than the sources
    if outputs is not None:
        G = G.copy()
        G.graph["outputs"] = list(outputs)
    return G


def lower_bounds(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                 timeout_ms: int = 20_000, hong_kung: bool = True,
                 subdag: bool = True, windows: bool = True,
                 deadline: Deadline | None = None) -> list[BoundRecord]:
    """Every route's record, in the order compulsory, Hong–Kung, per-part, spill-windows,
    saturation-windows, sub-dag-exact, sub-dag-lp.

    ``hong_kung=False`` skips the z3 partition, ``subdag=False`` the two exact sub-DAG routes,
    ``windows=False`` the two window searches (the records say so). With all three off only
    the routes of bounded cost remain (compulsory, per-part), for DAGs too large to search.

    ``deadline`` (:class:`~attnio.graphs.lower_bounds.deadline.Deadline`) bounds the whole
    call: each route gets an even share of the time left, and a route that runs out of it is
    reported with ``why_not`` = :data:`TIME_LIMIT_REASON` (value 0: never a bound).
    """
    G = _prepare(G, M, outputs)
    dl = as_deadline(deadline)
    phases = route_phases(G, M, timeout_ms=timeout_ms, hong_kung=hong_kung, subdag=subdag,
                          windows=windows)
    records: list[BoundRecord] = []
    searching = [route for route, _ in phases if route.searching]
    for route, run in phases:
        left = len(searching)
        if route.searching:
            searching.remove(route)
        try:
            phase_dl = dl.share(left) if route.searching else dl
            if route is not _FLOOR:  # the first linear route is always affordable: the floor
                phase_dl.check()
            records.extend(run(phase_dl))
        except TimeLimitReached:
            records.extend(route.not_computed(TIME_LIMIT_REASON))
    return records


@dataclass(frozen=True, slots=True)
class CertifiedRoute:
    """A route's record, its checker's verdict, and whether it counts as a bound.

    Side conditions (of :attr:`certified`)
    ---------------------------------------
    1. ``applies``: the record applies (a record that does not apply is never a bound, even
       with a ``Proved`` verdict: its value 0 is what the checker proved).
    2. ``proved``: the verdict is ``Proved`` — a ``Refuted`` certificate, and an
       ``Undecided`` one (a check cut by its time limit, a solver's unknown), are not.

    >>> rec = BoundRecord("compulsory", 3, True)
    >>> CertifiedRoute(rec, Proved()).certified, CertifiedRoute(rec, Undecided("t")).certified
    (True, False)
    """

    record: BoundRecord
    verdict: Verdict

    @property
    def certified(self) -> bool:
        """Does the record count as a bound? (Both side conditions hold.)"""
        return self.record.applies and self.verdict.verdict == "proved"

    @property
    def refuted(self) -> bool:
        return self.verdict.verdict == "refuted"

    @property
    def cut_by_time(self) -> bool:
        """Not computed, or not checked, because the time limit came first."""
        return (self.record.why_not == TIME_LIMIT_REASON
                or (self.verdict.verdict == "undecided"
                    and self.verdict.detail == CHECK_TIME_LIMIT_REASON))


def certified_routes(G: nx.DiGraph, M: int, *, deadline: Deadline | None = None,
                     timeout_ms: int = 20_000,
                     stage: Callable[[str], AbstractContextManager[Any]] | None = None,
                     detail: Callable[[str], None] | None = None,
                     records_hook: Callable[[str, list[BoundRecord]], list[BoundRecord]]
                     | None = None) -> list[CertifiedRoute]:
    """Every route, each followed at once by its certificate check, inside ``deadline``.

    The time left is split evenly over the phases still to run (a searching route and its
    check are two phases; what one leaves unused passes on; the linear routes compulsory and
    per-part may use all of it), so a slow route cannot starve the others. A second pass then
    gives the searching routes (or checks) that ran out of their share the time still left,
    again split evenly. Each route runs inside ``stage(route)`` (e.g.
    :meth:`attnio.progress.StageStatus.stage`) and ``detail("checking its certificate")`` is
    called as its check starts. ``records_hook(route, records)`` (tests only) may replace a
    route's records before they are checked.

    >>> from attnio.graphs.dags import matmul_dag
    >>> got = certified_routes(matmul_dag(1, 2, 1), 3)
    >>> [(c.record.route, c.record.value) for c in got if c.certified][-2:]
    [('sub-dag-exact', 7), ('sub-dag-lp', 7)]
    """
    G = _prepare(G, M, None)
    dl = as_deadline(deadline)
    phases = route_phases(G, M, timeout_ms=timeout_ms)
    done: dict[str, list[CertifiedRoute]] = {}

    def attempt(route: Route, run: Callable[[Deadline], list[BoundRecord]], left: int,
                label: str, kept: list[BoundRecord] | None = None) -> None:
        with (stage(label) if stage is not None else nullcontext()):
            if kept is not None:
                records = kept
            else:
                try:
                    phase_dl = dl.share(left) if route.searching else dl
                    if route is not _FLOOR:  # the first linear route: the floor
                        phase_dl.check()
                    records = run(phase_dl)
                except TimeLimitReached:
                    records = route.not_computed(TIME_LIMIT_REASON)
                if records_hook is not None:
                    records = records_hook(route.name, records)
            if detail is not None and any(r.applies for r in records):
                detail("checking its certificate")
            check_dl = dl.share(left - 1) if route.searching else dl
            done[route.name] = [CertifiedRoute(rec, check_certificate(
                G, M, rec, timeout_ms=timeout_ms, deadline=check_dl)) for rec in records]

    searching_left = sum(1 for route, _ in phases if route.searching)
    for route, run in phases:
        attempt(route, run, 2 * searching_left, route.name)
        searching_left -= route.searching
    retry = [(route, run) for route, run in phases
             if route.searching and any(c.cut_by_time for c in done[route.name])]
    for i, (route, run) in enumerate(retry):
        if dl.expired():
            break
        cut_route = any(c.record.why_not == TIME_LIMIT_REASON for c in done[route.name])
        kept = None if cut_route else [c.record for c in done[route.name]]
        attempt(route, run, 2 * (len(retry) - i), f"{route.name} (again, with the time left)",
                kept)
    return [c for route, _ in phases for c in done[route.name]]


def least_cache_size(G: nx.DiGraph) -> tuple[int, str | None]:
    """``(least M with a complete schedule, the vertex that needs it)``: the largest in-degree
    + 1 over the vertices every schedule computes (the rule of
    :func:`attnio.graphs.exact.min_cache_size`, computed in linear time for large DAGs).

    >>> least_cache_size(nx.DiGraph([("a", "c"), ("b", "c")]))
    (3, 'c')
    """
    _, _, N, _ = must_compute(G)
    if not N:
        return 1, None
    worst = min(N, key=lambda v: (-G.in_degree(v), v))
    return G.in_degree(worst) + 1, worst


def best_bound(records: list[BoundRecord]) -> BoundRecord:
    """The applicable record of largest value (the first on ties).

    >>> best_bound([BoundRecord("a", 3, True), BoundRecord("b", 5, False), BoundRecord("c", 4, True)]).route
    'c'
    """
    usable = [r for r in records if r.applies]
    if not usable:
        raise InvalidInputError("no route applies")
    return max(usable, key=lambda r: r.value)


def check_certificate(G: nx.DiGraph, M: int, record: BoundRecord, *,
                      timeout_ms: int = 20_000, deadline: Deadline | None = None) -> Verdict:
    """Re-verify ``record``'s certificate on ``G`` from scratch with its route's checker
    (``route.check`` of the registered route that owns the record's name): ``Proved`` or
    ``Refuted`` (``Undecided`` when ``deadline`` passes first, or a solver budget runs out:
    never a pass).

    Side conditions
    ---------------
    1. ``not-applying-is-zero``: a record that does not apply claims value 0 (and is then
       Proved without a checker).
    2. ``known-route``: an applying record names a registered route's record.
    3. ``route-checker``: the route's own checker accepts the certificate; a certificate it
       cannot read (a missing key, a wrong type) is Refuted, a check cut by ``deadline``
       Undecided.

    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> check_certificate(G, 3, BoundRecord("compulsory", 4, True, None,
    ...     {"needed_inputs": ["a", "b"], "written_outputs": ["c"]})).verdict
    'refuted'
    """
    validate_cache_size(M)
    if not record.applies:
        if record.value != 0:
            return Refuted({"value": record.value}, "a route that does not apply claims > 0")
        return Proved(f"does not apply ({record.why_not}); value 0")
    route = route_of(record.route)
    if route is None:
        return Refuted({"route": record.route}, f"unknown route {record.route!r}")
    try:
        return route.check(G, M, record, deadline=deadline, timeout_ms=timeout_ms)
    except TimeLimitReached:
        return Undecided(CHECK_TIME_LIMIT_REASON)
    except (AttnioError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        return Refuted({"route": record.route}, f"certificate unusable: {exc}")


#: Largest DAG (vertices) on which :func:`certified_lower_bound` runs every route by default;
#: above it only the routes of bounded cost (compulsory, per-part) run, so that ``attnio
#: pebble --json`` stays inside its time limit (the window searches and the z3 partition grow
#: exponentially with the DAG).
CERTIFIED_ALL_ROUTES_VERTICES = 40


def certified_lower_bound(G: nx.DiGraph, M: int, *, timeout_ms: int = 5_000,
                          all_routes: bool | None = None,
                          deadline: Deadline | None = None) -> dict[str, Any]:
    """``{"route", "value"}`` of the best route whose certificate re-verifies (for
    ``attnio pebble --json`` and the sandwich table); valid with and without recomputation.

    ``all_routes=None`` runs every route on DAGs of at most
    :data:`CERTIFIED_ALL_ROUTES_VERTICES` vertices and only the bounded-cost routes above.
    ``deadline`` bounds the routes and their checks (``attnio pebble --json`` gives it a
    quarter of ``--time-limit``): a route or check it cuts short is not counted.

    >>> from attnio.graphs.dags import matmul_dag
    >>> certified_lower_bound(matmul_dag(1, 2, 1), 3)
    {'route': 'spill-windows', 'value': 7, 'routes_run': 'all'}
    """
    if all_routes is None:
        all_routes = G.number_of_nodes() <= CERTIFIED_ALL_ROUTES_VERTICES
    records = [r for r in lower_bounds(G, M, timeout_ms=timeout_ms, hong_kung=all_routes,
                                       subdag=all_routes, windows=all_routes, deadline=deadline)
               if r.applies and check_certificate(G, M, r, timeout_ms=timeout_ms,
                                                  deadline=deadline).proved]
    routes_run = "all" if all_routes else "bounded-cost (compulsory, per-part)"
    if not records:  # no certificate re-verified (deadline, or refuted): the trivial bound 0
        return {"route": "trivial (nothing re-verified)", "value": 0, "routes_run": routes_run}
    best = best_bound(records)
    return {"route": best.route, "value": int(best.value), "routes_run": routes_run}
