r"""The registry of certified lower-bound routes: one :class:`~.records.Route` record per route,
kept in the module that implements it, and :data:`ROUTES`, every route by name in the order
the routes run and are reported.

Everything that depends on the list of routes reads this registry and never matches route
names: :func:`attnio.graphs.lower_bounds.lower_bounds` and
:func:`~attnio.graphs.lower_bounds.certified_routes` run ``route.compute``,
:func:`~attnio.graphs.lower_bounds.check_certificate` dispatches to ``route.check``,
``attnio lower-bound`` prints ``route.describe``, and :mod:`attnio.proofs.certified_routes`
states one claim per route (``route.source``, ``route.reconstructed``, and the instances
``route.cost`` calls for). Adding a route is one module with its ``ROUTES`` tuple, listed in
:data:`ROUTE_MODULES`, plus its false twin and its tests (notes/extending.md, "Add a
lower-bound route").

>>> list(ROUTES)
['compulsory', 'hong-kung', 'per-part', 'spill-windows', 'saturation-windows', 'sub-dag-exact', 'sub-dag-lp']
>>> route_of("per-part: matmul products").name, route_of("per-part") is None
('per-part', True)
"""

from __future__ import annotations

from types import ModuleType
from typing import Iterable

from attnio.exceptions import InvalidInputError
from attnio.graphs.lower_bounds import counting, covering, saturation, subdag, windows
from attnio.graphs.lower_bounds.records import Route

__all__ = ["ROUTE_MODULES", "ROUTES", "collect_routes", "route_of", "get_route"]

#: The modules that define routes (each a module-level ``ROUTES`` tuple of
#: :class:`~.records.Route`), in the order their routes run.
ROUTE_MODULES: tuple[ModuleType, ...] = (counting, windows, saturation, subdag, covering)


def collect_routes(modules: Iterable[ModuleType]) -> dict[str, Route]:
    """Every route of ``modules`` (their ``ROUTES`` tuples, in order), by name.

    Raises
    ------
    ValueError
        A module without a ``ROUTES`` tuple of :class:`~.records.Route`, or two routes that
        share a name or a record name.
    """
    found: dict[str, Route] = {}
    owned: set[str] = set()
    for module in modules:
        routes = getattr(module, "ROUTES", None)
        if not isinstance(routes, tuple) or not all(isinstance(r, Route) for r in routes):
            raise ValueError(f"{module.__name__} has no ROUTES tuple of Route records")
        for route in routes:
            if route.name in found or owned & set(route.record_names):
                raise ValueError(f"route {route.name!r} of {module.__name__} is registered "
                                 "twice")
            found[route.name] = route
            owned |= set(route.record_names)
    return found


#: Every registered route by name, in the order :func:`attnio.graphs.lower_bounds.lower_bounds`
#: runs and reports them.
ROUTES: dict[str, Route] = collect_routes(ROUTE_MODULES)


def route_of(record_route: str) -> Route | None:
    """The registered route whose records are named ``record_route`` (None if none is)."""
    return next((route for route in ROUTES.values() if route.owns(record_route)), None)


def get_route(name: str) -> Route:
    """The registered route ``name``.

    Raises
    ------
    InvalidInputError
        No route has that name (the message lists them).

    >>> get_route("compulsory").cost
    'linear'
    >>> get_route("magic")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: route 'magic' is unknown; known routes: compulsory, hong-kung, per-part, spill-windows, saturation-windows, sub-dag-exact, sub-dag-lp
    """
    route = ROUTES.get(name) if isinstance(name, str) else None
    if route is None:
        raise InvalidInputError(f"route {name!r} is unknown; known routes: {', '.join(ROUTES)}")
    return route
