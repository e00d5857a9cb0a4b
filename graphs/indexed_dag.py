r"""The relevant sub-DAG of a pebbling instance, integer-indexed: the one home of both.

Every exact or heuristic pebbling method of :mod:`attnio.graphs` works on the *relevant*
sub-DAG: the outputs and their ancestors,

.. math::  \mathrm{rel}(G, O) = O \cup \bigcup_{o \in O} \mathrm{anc}_G(o),

because a vertex outside it is never needed (R0 of :mod:`attnio.graphs.exact_state`:
deleting every move on it keeps a schedule legal, at no greater cost). The inner loops then
want integers, not names: :class:`IndexedDAG` numbers the relevant vertices in
lexicographic topological order (so ``u -> v`` implies ``index[u] < index[v]``) and keeps
each adjacency twice — as bitmasks (the exact searches) and as index tuples (the schedule
heuristics, the zero-waste search).

:func:`relevant_vertices` is that set (used on its own where no indexing is needed),
:func:`iter_bits` the indices of a bitmask, :func:`pebbles_shortfall` the one wording of
"M is below what some vertex needs" (:func:`validate_enough_pebbles` raises it).

>>> import networkx as nx
>>> dag = IndexedDAG(nx.DiGraph([("a", "c"), ("b", "c"), ("x", "y")]), ["c"])
>>> dag.names, bin(dag.inp), bin(dag.out), dag.pred_ids
(['a', 'b', 'c'], '0b11', '0b100', [(), (), (0, 1)])
>>> dag.min_cache_size, pebbles_shortfall(dag, 2)
(3, "M=2 is below the 3 red pebbles vertex 'c' needs (in-degree 2 + 1)")
"""

from __future__ import annotations

from typing import Iterable, Iterator

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import game_inputs, game_outputs

__all__ = ["relevant_vertices", "IndexedDAG", "iter_bits", "pebbles_shortfall",
           "validate_enough_pebbles"]


def relevant_vertices(G: nx.DiGraph, outputs: Iterable[str] | None = None) -> set[str]:
    """The outputs (default ``G.graph["outputs"]``, else the sinks) and their ancestors.

    >>> sorted(relevant_vertices(nx.DiGraph([("a", "c"), ("b", "c"), ("x", "y")]), ["c"]))
    ['a', 'b', 'c']
    """
    outs = game_outputs(G, outputs)
    return set(outs).union(*(nx.ancestors(G, o) for o in outs)) if outs else set()


def iter_bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first.

    >>> list(iter_bits(0b10110))
    [1, 2, 4]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class IndexedDAG:
    """The relevant sub-DAG of ``G`` for ``outputs``, vertices numbered 0 … n-1 in
    lexicographic topological order.

    Attributes
    ----------
    names : list of str
        ``names[i]`` is vertex i; ``index`` the inverse map.
    n : int
        Relevant vertices; ``all`` is the mask of all of them.
    pred : list of int
        ``pred[i]``: bitmask of the predecessors of i (all relevant).
    pred_ids, succ_ids : list of tuple of int
        Predecessors and relevant successors of i, as indices.
    inp, out : int
        Bitmasks of the inputs (sources) and the outputs; ``is_input`` / ``is_output`` the
        same as lists of bool, ``outputs`` the output indices in the order given.
    computed : list of int
        The non-inputs, increasing.
    """

    def __init__(self, G: nx.DiGraph, outputs: Iterable[str] | None = None) -> None:
        inputs = set(game_inputs(G))
        outs = game_outputs(G, outputs)
        relevant = relevant_vertices(G, outs)
        order = [v for v in nx.lexicographical_topological_sort(G) if v in relevant]
        index = {v: i for i, v in enumerate(order)}
        self.names: list[str] = order
        self.index: dict[str, int] = index
        self.n = len(order)
        self.all = (1 << self.n) - 1
        self.pred_ids: list[tuple[int, ...]] = [tuple(index[u] for u in G.predecessors(v))
                                                for v in order]
        self.succ_ids: list[tuple[int, ...]] = [
            tuple(index[w] for w in G.successors(v) if w in index) for v in order]
        self.pred: list[int] = [sum(1 << u for u in ids) for ids in self.pred_ids]
        self.is_input: list[bool] = [v in inputs for v in order]
        self.inp = sum(1 << i for i, flag in enumerate(self.is_input) if flag)
        self.outputs: list[int] = [index[o] for o in outs]
        self.out = sum(1 << i for i in self.outputs)
        self.is_output: list[bool] = [bool((self.out >> i) & 1) for i in range(self.n)]
        self.computed: list[int] = [i for i in range(self.n) if not self.is_input[i]]

    @property
    def min_cache_size(self) -> int:
        """Least M with a complete schedule: max in-degree over the computed vertices + 1
        (1 when nothing is computed). Necessary: computing v needs in-degree + 1 red
        pebbles; sufficient: compute in topological order, writing each vertex and reading
        its predecessors back."""
        return max((len(self.pred_ids[i]) + 1 for i in self.computed), default=1)


def pebbles_shortfall(dag: IndexedDAG, M: int) -> str | None:
    """Why ``M`` red pebbles cannot pebble ``dag`` (naming the least such vertex), or None."""
    need = dag.min_cache_size
    if M >= need:
        return None
    worst = min(dag.names[i] for i in dag.computed if len(dag.pred_ids[i]) + 1 == need)
    return (f"M={M} is below the {need} red pebbles vertex {worst!r} needs "
            f"(in-degree {need - 1} + 1)")


def validate_enough_pebbles(dag: IndexedDAG, M: int) -> None:
    """Raise :class:`~attnio.exceptions.InvalidInputError` with :func:`pebbles_shortfall`'s
    text when ``M`` is below ``dag.min_cache_size`` (for methods that need a feasible M)."""
    shortfall = pebbles_shortfall(dag, M)
    if shortfall is not None:
        raise InvalidInputError(shortfall)
