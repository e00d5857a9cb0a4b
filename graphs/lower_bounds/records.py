r"""The record every lower-bound route returns, the :class:`Route` record of a route, and the
game's sets the routes share.

Part of :mod:`attnio.graphs.lower_bounds` (the contract, notation and route list are there;
the registry of routes is :mod:`attnio.graphs.lower_bounds.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import networkx as nx

from attnio.graphs.game import game_inputs, game_outputs
from attnio.results import Verdict

__all__ = ["BoundRecord", "Route", "COST_CLASSES", "SWITCHES", "must_compute",
           "vertices_to_compute"]

#: The cost classes of a route (:attr:`Route.cost`): how its run shares a deadline, and which
#: instances the default tier of its claim holds (:mod:`attnio.proofs.certified_routes`).
COST_CLASSES: dict[str, str] = {
    "linear": "linear in the DAG: always affordable, it may use all the time left",
    "search": "exponential in the worst case: it shares the time left evenly with the other "
              "searching routes (and its check is a phase of its own)",
    "exact": "a search that solves sub-DAGs exactly, its checker re-solving them with the "
             "plain baseline: the default tier of its claim keeps the DAGs of at most 10 "
             "vertices",
}
#: The keywords of :func:`attnio.graphs.lower_bounds.lower_bounds` that skip a route
#: (:attr:`Route.switch`).
SWITCHES = ("hong_kung", "windows", "subdag")


@dataclass(frozen=True, slots=True)
class BoundRecord:
    """One route's bound: ``value ≤ Q(G, M)`` whenever ``applies``."""

    route: str
    value: int
    applies: bool
    why_not: str | None = None
    certificate: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of the record (``route, value, applies, why_not, certificate``)."""
        return {"route": self.route, "value": int(self.value), "applies": self.applies,
                "why_not": self.why_not, "certificate": self.certificate}


@dataclass(frozen=True, slots=True)
class Route:
    """One certified lower-bound route: everything attnio needs to run it, check it, describe
    it and state its claim — one record per route, in the module that implements it, looked
    up by name in :data:`attnio.graphs.lower_bounds.registry.ROUTES` (never an if-chain over
    route names).

    Attributes
    ----------
    name : str
        The route's name (``"sub-dag-lp"``); its records carry it as ``BoundRecord.route``.
    compute : callable
        ``compute(G, M, *, deadline, timeout_ms) -> list[BoundRecord]`` — the route's records
        (one, or one per name of ``records``); past ``deadline`` it raises
        :class:`~attnio.exceptions.TimeLimitReached`.
    check : callable
        ``check(G, M, record, *, deadline=None, timeout_ms=...) -> Verdict`` — the
        independent checker: ``Proved`` only when the certificate re-verifies from G alone
        (``timeout_ms`` bounds each solver call of a checker that makes them; the others
        take and ignore it).
        Its docstring lists its side conditions (a numbered ``Side conditions`` section, one
        ``key`` per condition), each with a planted violation in the tests.
    cost : str
        A key of :data:`COST_CLASSES`.
    source : str
        Where the lemma comes from (paper and lemma number, or attnio's notes).
    reconstructed : bool
        True when our statement is not the source's text.
    describe : callable
        ``describe(certificate) -> str``: one line summarising a certificate of the route
        (``attnio lower-bound`` prints it).
    records : tuple of str
        The names of the records when the route gives several (``per-part: …``); empty: one
        record named ``name``.
    switch : str or None
        The keyword of :func:`attnio.graphs.lower_bounds.lower_bounds` that skips the route
        (one of :data:`SWITCHES`), None if it always runs.

    Examples
    --------
    >>> from attnio.results import Proved
    >>> toy = Route("toy", compute=lambda G, M, *, deadline, timeout_ms: [],
    ...             check=lambda G, M, record, **kw: Proved(), cost="linear", source="-",
    ...             reconstructed=False, describe=lambda c: "-")
    >>> toy.record_names, toy.owns("toy"), toy.owns("toy: part"), toy.searching
    (('toy',), True, False, False)
    >>> toy.not_computed("skipped")
    [BoundRecord(route='toy', value=0, applies=False, why_not='skipped', certificate={})]
    """

    name: str
    compute: Callable[..., list[BoundRecord]]
    check: Callable[..., Verdict]
    cost: str
    source: str
    reconstructed: bool
    describe: Callable[[dict[str, Any]], str]
    records: tuple[str, ...] = ()
    switch: str | None = None

    def __post_init__(self) -> None:
        if self.cost not in COST_CLASSES:
            raise ValueError(f"route {self.name!r}: cost={self.cost!r} is not one of "
                             f"{', '.join(COST_CLASSES)}")
        if self.switch is not None and self.switch not in SWITCHES:
            raise ValueError(f"route {self.name!r}: switch={self.switch!r} is not one of "
                             f"{', '.join(SWITCHES)}")

    @property
    def record_names(self) -> tuple[str, ...]:
        """The names the route's records carry (``BoundRecord.route``)."""
        return self.records or (self.name,)

    def owns(self, record_route: str) -> bool:
        """Is ``record_route`` the name of one of this route's records?"""
        return record_route in self.record_names

    @property
    def searching(self) -> bool:
        """Does the route search (cost class other than ``linear``)?"""
        return self.cost != "linear"

    def not_computed(self, why: str) -> list[BoundRecord]:
        """The route's records when it did not run: value 0, ``why`` as the reason."""
        return [BoundRecord(name, 0, False, why) for name in self.record_names]


# --------------------------------------------------------------------------------------------
# The game's sets
# --------------------------------------------------------------------------------------------


def must_compute(G: nx.DiGraph, outputs: Iterable[str] | None = None
                 ) -> tuple[frozenset[str], list[str], frozenset[str], frozenset[str]]:
    """``(inputs, non-input outputs O*, must-compute N, needed inputs I_N)``.

    N is found by one backward search from O* (linear in the DAG, so every route can afford
    it on the largest DAG ``attnio lower-bound`` accepts).

    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "c"), ("x", "y")]); G.graph["outputs"] = ["b", "x"]
    >>> I, O, N, need = must_compute(G)
    >>> sorted(O), sorted(N), sorted(need)     # c and y are never needed; x is blue already
    (['b'], ['b'], ['a'])
    """
    inputs = frozenset(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G, outputs)) if o not in inputs]
    N = vertices_to_compute(G, outs, inputs)
    need_inputs = frozenset(u for v in N for u in G.predecessors(v) if u in inputs)
    return inputs, outs, N, need_inputs


def vertices_to_compute(G: nx.DiGraph, outs: Iterable[str],
                         inputs: Iterable[str]) -> frozenset[str]:
    """The non-inputs that are an output of ``outs`` or an ancestor of one (one backward
    search; the checkers call it once instead of a descendant search per vertex)."""
    inputs = frozenset(inputs)
    seen: set[str] = set()
    stack = [o for o in outs if o not in inputs]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        stack.extend(u for u in G.predecessors(v) if u not in seen)
    return frozenset(seen - inputs)
