r"""The record every lower-bound route returns, and the game's sets the routes share.

Part of :mod:`attnio.graphs.lower_bounds` (the contract, notation and route list are there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import networkx as nx

from attnio.graphs.game import game_inputs, game_outputs

__all__ = ["BoundRecord", "ROUTES", "must_compute"]

ROUTES = ("compulsory", "hong-kung", "per-part", "spill-windows", "saturation-windows",
          "sub-dag-exact", "sub-dag-lp")


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


def _reaches_output_through_compute(G: nx.DiGraph, v: str, outs: set[str],
                                    inputs: set[str]) -> bool:
    """True iff non-input ``v`` is an output or an ancestor of one (so it must be computed)."""
    if v in inputs:
        return False
    return v in outs or any(o in outs and o not in inputs for o in nx.descendants(G, v))
