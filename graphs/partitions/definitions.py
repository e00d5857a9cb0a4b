r"""Hong–Kung S-partitions in plain Python: dominator and minimum sets, the S-partition
checker, a greedy S-partition, and the hypotheses of HK Lemma 3.1.

Definitions and sources in :mod:`attnio.graphs.partitions`. No z3 here: every certificate the
z3 searches of :mod:`attnio.graphs.partitions.search` produce is re-validated by these checkers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Hashable, Iterable, Sequence

import networkx as nx

from attnio.exceptions import BudgetExceededError, InvalidInputError
from attnio.validation import positive_int

__all__ = [
    "input_vertices",
    "is_dominator",
    "minimum_set",
    "minimum_dominator",
    "min_dominator_size",
    "is_bounded_set",
    "PartitionCheck",
    "is_s_partition",
    "greedy_s_partition",
    "validate_hong_kung_hypotheses",
]

Vertex = Hashable


# --------------------------------------------------------------------------------------------
# Plain-Python definitions
# --------------------------------------------------------------------------------------------


def input_vertices(G: nx.DiGraph) -> frozenset[Vertex]:
    """The inputs of ``G``: exactly its sources (the convention HK Lemma 3.1 needs).

    Raises
    ------
    InvalidInputError
        If ``G`` is not a DAG, or ``G.graph["inputs"]`` is given and differs from the sources.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(input_vertices(nx.DiGraph([(1, 2), (3, 2)])))
    [1, 3]
    """
    if not nx.is_directed_acyclic_graph(G):
        raise InvalidInputError("G must be a directed acyclic graph")
    sources = frozenset(v for v in G if G.in_degree(v) == 0)
    declared = G.graph.get("inputs")
    if declared is not None and frozenset(declared) != sources:
        extra = sorted(map(str, frozenset(declared) ^ sources))[:3]
        raise InvalidInputError(
            f"G.graph['inputs'] must equal the sources (HK convention); they differ at {extra}")
    return sources


def is_dominator(G: nx.DiGraph, W: Iterable[Vertex], D: Iterable[Vertex]) -> bool:
    """True iff every path from an input to a vertex of ``W`` contains a vertex of ``D``.

    Length-0 paths count: an input in ``W`` must be in ``D``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("x", "y")])
    >>> is_dominator(G, {"x"}, set()), is_dominator(G, {"x"}, {"x"})
    (False, True)
    """
    W, D = set(W), set(D)
    frontier = [v for v in input_vertices(G) if v not in D]
    seen = set(frontier)
    while frontier:  # D-avoiding reachability from the inputs
        u = frontier.pop()
        if u in W:
            return False
        for c in G.successors(u):
            if c not in D and c not in seen:
                seen.add(c)
                frontier.append(c)
    return True


def minimum_set(G: nx.DiGraph, W: Iterable[Vertex]) -> frozenset[Vertex]:
    """The vertices of ``W`` with no child in ``W``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(minimum_set(nx.DiGraph([(1, 2), (2, 3)]), {1, 2}))
    [2]
    """
    W = set(W)
    return frozenset(v for v in W if not any(c in W for c in G.successors(v)))


def minimum_dominator(G: nx.DiGraph, W: Iterable[Vertex]) -> frozenset[Vertex]:
    """A smallest dominator set of ``W`` (exact: minimum vertex cut by max-flow).

    Flow network: each vertex ``v`` is split into ``(v, in) → (v, out)`` of capacity 1; each
    edge ``u → v`` becomes ``(u, out) → (v, in)`` of infinite capacity; a super-source feeds
    ``(x, in)`` for every input ``x``, and ``(w, out)`` drains to a super-sink for every
    ``w ∈ W``. Finite cuts are exactly vertex sets meeting every input-to-W path (a vertex of
    W may itself be cut), so max-flow = min dominator size (Menger).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("c", "e")])
    >>> sorted(minimum_dominator(G, {"d", "e"}))
    ['c']
    """
    W = set(W)
    if not W:
        return frozenset()
    missing = W - set(G)
    if missing:
        raise InvalidInputError(f"W contains {sorted(map(str, missing))[:3]}, not vertices of G")
    source, sink = ("__partitions_source__",), ("__partitions_sink__",)
    F: nx.DiGraph = nx.DiGraph()
    for v in G:
        F.add_edge((v, "in"), (v, "out"), capacity=1)
    for u, v in G.edges:
        F.add_edge((u, "out"), (v, "in"))  # no capacity attribute = infinite
    for x in input_vertices(G):
        F.add_edge(source, (x, "in"))
    for w in W:
        F.add_edge((w, "out"), sink)
    _, (source_side, _) = nx.minimum_cut(F, source, sink)
    cut = frozenset(v for v in G if (v, "in") in source_side and (v, "out") not in source_side)
    # The cut found by max-flow is a dominator; re-check with the definition.
    assert is_dominator(G, W, cut)
    return cut


def min_dominator_size(G: nx.DiGraph, W: Iterable[Vertex]) -> int:
    """Size of a smallest dominator set of ``W`` (a Python ``int``).

    Examples
    --------
    >>> import networkx as nx
    >>> min_dominator_size(nx.DiGraph([(1, 3), (2, 3)]), {3})
    1
    >>> min_dominator_size(nx.DiGraph([(1, 3), (2, 3)]), {1, 2})
    2
    """
    return int(len(minimum_dominator(G, W)))


def is_bounded_set(G: nx.DiGraph, W: Iterable[Vertex], k: int) -> bool:
    """True iff ``W`` has a dominator set and a minimum set both of size ≤ ``k``.

    Examples
    --------
    >>> import networkx as nx
    >>> is_bounded_set(nx.DiGraph([(1, 3), (2, 3)]), {1, 2, 3}, 1)
    False
    """
    W = set(W)
    return len(minimum_set(G, W)) <= k and min_dominator_size(G, W) <= k


@dataclass(frozen=True, slots=True)
class PartitionCheck:
    """Outcome of :func:`is_s_partition`: truthy iff valid; ``reason`` names the broken rule."""

    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok


def is_s_partition(G: nx.DiGraph, parts: Sequence[Iterable[Vertex]], S: int) -> PartitionCheck:
    """Check (P1)–(P4) of an S-partition with plain Python (independent of z3).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "c")])
    >>> is_s_partition(G, [{"a", "c"}, {"b"}], 2).reason
    'P4: cyclic dependence among parts'
    >>> is_s_partition(G, [{"a"}, {"b", "c"}], 1).ok
    True
    """
    if isinstance(S, bool) or not isinstance(S, int) or S < 0:
        raise InvalidInputError(f"S={S!r} must be a non-negative integer")
    parts = [frozenset(p) for p in parts]
    owner: dict[Vertex, int] = {}
    for i, part in enumerate(parts):
        for v in part:
            if v not in G:
                return PartitionCheck(False, f"P1: {v!r} in part {i} is not a vertex of G")
            if v in owner:
                return PartitionCheck(False, f"P1: {v!r} lies in parts {owner[v]} and {i}")
            owner[v] = i
    if len(owner) != G.number_of_nodes():
        missing = [v for v in G if v not in owner][:3]
        return PartitionCheck(False, f"P1: vertices {missing} are in no part")
    for i, part in enumerate(parts):
        dom = min_dominator_size(G, part)
        if dom > S:
            return PartitionCheck(False, f"P2: part {i} needs a dominator of size {dom} > S={S}")
        low = len(minimum_set(G, part))
        if low > S:
            return PartitionCheck(False, f"P3: part {i} has a minimum set of size {low} > S={S}")
    quotient: nx.DiGraph = nx.DiGraph()
    quotient.add_nodes_from(range(len(parts)))
    quotient.add_edges_from((owner[u], owner[v]) for u, v in G.edges if owner[u] != owner[v])
    if not nx.is_directed_acyclic_graph(quotient):
        return PartitionCheck(False, "P4: cyclic dependence among parts")
    return PartitionCheck(True, f"valid {S}-partition into {len([p for p in parts if p])} parts")


def greedy_s_partition(G: nx.DiGraph, S: int, *,
                       deadline: float | None = None) -> list[frozenset[Vertex]]:
    """An S-partition built greedily along a topological order (an upper bound on P(G, S)).

    Consecutive segments of a topological order have acyclic dependence; a vertex joins the
    current segment while the segment keeps a dominator and a minimum set of size ≤ S. Every
    singleton is dominated by itself, so this succeeds for every S ≥ 1.

    ``deadline`` (a :func:`time.monotonic` value) is read before each vertex (one max-flow):
    past it, :class:`~attnio.exceptions.BudgetExceededError` ("time limit reached").

    Examples
    --------
    >>> import networkx as nx
    >>> len(greedy_s_partition(nx.path_graph(4, create_using=nx.DiGraph), 1))
    1
    """
    positive_int("S", S)
    parts: list[frozenset[Vertex]] = []
    current: set[Vertex] = set()
    for v in nx.lexicographical_topological_sort(G, key=str):
        if deadline is not None and time.monotonic() >= deadline:
            raise BudgetExceededError("time limit reached")
        trial = current | {v}
        if current and not is_bounded_set(G, trial, S):
            parts.append(frozenset(current))
            current = {v}
        else:
            current = trial
    if current:
        parts.append(frozenset(current))
    return parts


def validate_hong_kung_hypotheses(G: nx.DiGraph) -> None:
    """Raise unless ``G`` meets the hypotheses of HK Lemma 3.1 as :func:`hong_kung_bound` uses it.

    * inputs are exactly the sources (:func:`input_vertices`);
    * outputs (``G.graph["outputs"]``, default the sinks) are exactly the sinks — an unneeded
      sink is never computed, yet it must lie in some part;
    * inputs and outputs are disjoint (no isolated vertex) — Saha–Ye §2.3's standing
      assumption. Without it the lemma is false: 2S + 1 isolated vertices need Q = 0 I/Os
      while P(G, 2S) = 2 (each part holds ≤ 2S inputs), so S·(P − 1) = S > 0.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph(); G.add_nodes_from("abc")
    >>> validate_hong_kung_hypotheses(G)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: vertex 'a' is both an input and an output (isolated); HK Lemma 3.1 needs them disjoint
    """
    inputs = input_vertices(G)
    sinks = frozenset(v for v in G if G.out_degree(v) == 0)
    outputs = frozenset(G.graph.get("outputs", sinks))
    if outputs != sinks:
        odd = sorted(map(str, outputs ^ sinks))[:3]
        raise InvalidInputError(f"outputs must be exactly the sinks for HK Lemma 3.1; they differ "
                                f"at {odd}")
    both = sorted(inputs & outputs, key=str)
    if both:
        raise InvalidInputError(f"vertex {both[0]!r} is both an input and an output (isolated); "
                                f"HK Lemma 3.1 needs them disjoint")
