r"""Hong–Kung S-partitions by z3: bounded-set encodings and searches, the exact
:math:`P(G, S)`, and the partition bound :math:`S (P(G, 2S) - 1)`.

Definitions, sources and the proof map in :mod:`attnio.graphs.partitions`; every z3 answer
here is re-validated by the plain-Python checkers of :mod:`attnio.graphs.partitions.definitions`.

Encodings
---------
*Dominator* of the set selected by booleans ``member[v]``: booleans ``dom[v]`` and
``reach[v]`` with the implications

* ``v`` an input ∧ ¬dom[v] ⇒ reach[v];
* reach[u] ∧ ¬dom[v] ∧ (u → v) ⇒ reach[v];
* member[v] ⇒ ¬reach[v];
* :math:`\sum_v` dom[v] ≤ k.

The implications force ``reach`` to contain every vertex reachable from an input along a
D-avoiding path, so a model certifies that ``dom`` is a dominator of the member set; conversely a
dominator gives a model (``reach`` := exactly the D-avoiding reachable set).

*Minimum set*: ``low[v]`` with member[v] ∧ ⋀_{c child} ¬member[c] ⇒ low[v], and
:math:`\sum_v` low[v] ≤ k (``low`` over-approximates the minimum set, which is exact for an
upper-bound constraint).

*Acyclic dependence*: a part label per vertex, in order encoding (``ge[v][i]`` ⇔ label ≥ i),
with ``ge[u][i] ⇒ ge[v][i]`` for every edge u → v, i.e. label(u) ≤ label(v). A partition has
acyclic dependence iff its parts can be numbered so that every edge goes to an equal or later
part (topological order of the quotient DAG), so this loses no partition up to renumbering.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Literal

import networkx as nx

from attnio.exceptions import BudgetExceededError
from attnio.graphs.partitions.definitions import (
    Vertex,
    greedy_s_partition,
    input_vertices,
    is_dominator,
    is_s_partition,
    minimum_set,
    validate_hong_kung_hypotheses,
)
from attnio.results import OlderNames, Status
from attnio.validation import positive_int

if TYPE_CHECKING:  # annotations only
    import z3

__all__ = [
    "BoundedSetEncoding",
    "bounded_set_encoding",
    "BoundedSetSearch",
    "find_bounded_set",
    "max_counted_bounded_set",
    "PartitionResult",
    "min_partition_parts",
    "hong_kung_bound",
]


# --------------------------------------------------------------------------------------------
# z3 encodings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoundedSetEncoding:
    """z3 variables and constraints for "``member`` has dominator ≤ k and minimum set ≤ k"."""

    member: dict[Vertex, z3.BoolRef]
    dominator: dict[Vertex, z3.BoolRef]
    reach: dict[Vertex, z3.BoolRef]
    low: dict[Vertex, z3.BoolRef]
    constraints: list[z3.BoolRef] = field(repr=False)

    def selected(self, model: z3.ModelRef) -> frozenset[Vertex]:
        """The member set of a model."""
        import z3  # here: importing attnio.graphs costs no solver
        return frozenset(v for v, b in self.member.items()
                         if z3.is_true(model.eval(b, model_completion=True)))

    def dominator_of(self, model: z3.ModelRef) -> frozenset[Vertex]:
        """The dominator set of a model."""
        import z3  # here: importing attnio.graphs costs no solver
        return frozenset(v for v, b in self.dominator.items()
                         if z3.is_true(model.eval(b, model_completion=True)))


def bounded_set_encoding(G: nx.DiGraph, k: int | None, *, prefix: str = "w",
                         member: dict[Vertex, z3.BoolRef] | None = None,
                         minimum_bound: int | None = -1) -> BoundedSetEncoding:
    """Encode "the set ``{v : member[v]}`` has a dominator of size ≤ k and minimum set ≤ k".

    Parameters
    ----------
    G : networkx.DiGraph
        The DAG (inputs = sources).
    k : int or None
        Dominator bound; ``None`` drops (P2) (used for false twins).
    prefix : str
        Name prefix of the z3 variables (distinct per encoded set).
    member : dict, optional
        Existing membership literals (e.g. "vertex in part i"); fresh booleans otherwise.
    minimum_bound : int or None
        Bound on the minimum set; ``-1`` (default) means "same as k", ``None`` drops (P3).

    Examples
    --------
    >>> import networkx as nx, z3
    >>> G = nx.DiGraph([(1, 3), (2, 3)])
    >>> enc = bounded_set_encoding(G, 1)
    >>> s = z3.Solver(); s.add(enc.constraints); s.add(enc.member[1], enc.member[2])
    >>> s.check()
    unsat
    """
    import z3  # here: importing attnio.graphs costs no solver
    inputs = input_vertices(G)
    index = {v: n for n, v in enumerate(sorted(G, key=str))}
    if member is None:
        member = {v: z3.Bool(f"{prefix}_in_{index[v]}") for v in G}
    dominator = {v: z3.Bool(f"{prefix}_dom_{index[v]}") for v in G}
    reach = {v: z3.Bool(f"{prefix}_reach_{index[v]}") for v in G}
    low = {v: z3.Bool(f"{prefix}_low_{index[v]}") for v in G}
    cons: list[z3.BoolRef] = []
    if k is not None:
        for x in inputs:
            cons.append(z3.Or(dominator[x], reach[x]))
        for u, v in G.edges:
            cons.append(z3.Or(z3.Not(reach[u]), dominator[v], reach[v]))
        for v in G:
            cons.append(z3.Implies(member[v], z3.Not(reach[v])))
        cons.append(z3.AtMost(*dominator.values(), k))
    mbound = k if minimum_bound == -1 else minimum_bound
    if mbound is not None:
        for v in G:
            children_out = [z3.Not(member[c]) for c in G.successors(v)]
            cons.append(z3.Implies(z3.And(member[v], *children_out), low[v]))
        cons.append(z3.AtMost(*low.values(), mbound))
    return BoundedSetEncoding(member, dominator, reach, low, cons)


@dataclass(frozen=True, slots=True)
class BoundedSetSearch:
    """Answer of :func:`find_bounded_set`: ``status`` is ``"sat"`` (``witness`` and its
    ``dominator`` re-validated by the plain checkers), ``"unsat"`` or ``"unknown"``."""

    status: Literal["sat", "unsat", "unknown"]
    witness: frozenset[Vertex] = frozenset()
    dominator: frozenset[Vertex] = frozenset()
    count: int = 0
    reason: str = ""


def find_bounded_set(G: nx.DiGraph, counted: Iterable[Vertex], k: int | None, at_least: int, *,
                     timeout_ms: int = 20_000, minimum_bound: int | None = -1,
                     extra: Iterable[z3.BoolRef] = ()) -> BoundedSetSearch:
    """Ask z3 for W with dominator ≤ k, minimum set ≤ k and ≥ ``at_least`` vertices of
    ``counted`` (``k=None`` / ``minimum_bound=None`` drop (P2) / (P3), for false twins).

    ``"unsat"`` proves that every such W holds < ``at_least`` counted vertices (the per-part
    counting lemmas are checked this way). A ``"sat"`` witness is re-checked with
    :func:`is_dominator` and :func:`minimum_set` before it is returned.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 2), (1, 2), (0, 3), (1, 3)])
    >>> find_bounded_set(G, {2, 3}, 2, 2).status, find_bounded_set(G, {2, 3}, 1, 2).status
    ('sat', 'unsat')
    """
    import z3  # here: importing attnio.graphs costs no solver
    wanted = set(counted)
    counted = [v for v in G if v in wanted]
    enc = bounded_set_encoding(G, k, minimum_bound=minimum_bound)
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.add(enc.constraints)
    s.add(list(extra))
    if at_least > 0:
        s.add(z3.AtLeast(*[enc.member[v] for v in counted], at_least) if counted
              else z3.BoolVal(False))
    answer = s.check()
    if answer == z3.unsat:
        return BoundedSetSearch("unsat", reason="z3: unsat")
    if answer != z3.sat:
        return BoundedSetSearch("unknown", reason=f"z3 returned unknown ({s.reason_unknown()}, "
                                                  f"timeout {timeout_ms} ms)")
    model = s.model()
    W, D = enc.selected(model), enc.dominator_of(model)
    mbound = k if minimum_bound == -1 else minimum_bound
    # Independent re-check of the witness (never trust the encoding alone).
    if k is not None:
        assert is_dominator(G, W, D) and len(D) <= k, "z3 dominator rejected by is_dominator"
    if mbound is not None:
        assert len(minimum_set(G, W)) <= mbound, "z3 witness violates the minimum-set bound"
    count = sum(1 for v in counted if v in W)
    assert count >= at_least
    return BoundedSetSearch("sat", W, D, int(count), "z3: sat, witness re-validated")


def max_counted_bounded_set(G: nx.DiGraph, counted: Iterable[Vertex], k: int, *,
                            timeout_ms: int = 20_000) -> BoundedSetSearch:
    """The largest number of ``counted`` vertices in a W with dominator, minimum set ≤ k.

    Iterates :func:`find_bounded_set` with ``at_least = best + 1`` until UNSAT; returns the
    last witness with status ``"sat"`` (its ``count`` is then the exact maximum) or
    ``"unknown"`` (``count`` is only a lower bound on the maximum).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 2), (1, 2), (0, 3), (1, 3)])
    >>> max_counted_bounded_set(G, {2, 3}, 1).count
    1
    """
    counted = frozenset(counted)
    best = find_bounded_set(G, counted, k, 0, timeout_ms=timeout_ms)
    if best.status != "sat":
        return best
    while True:
        nxt = find_bounded_set(G, counted, k, best.count + 1, timeout_ms=timeout_ms)
        if nxt.status == "unsat":
            return BoundedSetSearch("sat", best.witness, best.dominator, best.count,
                                    f"maximum {best.count}: z3 unsat at {best.count + 1}")
        if nxt.status == "unknown":
            return BoundedSetSearch("unknown", best.witness, best.dominator, best.count,
                                    nxt.reason)
        best = nxt


# --------------------------------------------------------------------------------------------
# Exact P(G, S)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartitionResult(OlderNames):
    """The fewest parts of an S-partition, with certificates.

    ``lower ≤ P(G, S) ≤ upper``; ``parts`` is an S-partition with ``upper`` non-empty parts,
    re-validated by :func:`is_s_partition`; ``lower`` is certified by z3 UNSAT for
    ``lower − 1`` parts or by a counting argument (``detail``). ``verdict`` is
    :attr:`~attnio.results.Status.OPTIMAL` iff they meet (``exact``), else
    :attr:`~attnio.results.Status.UNDECIDED` with the proven bracket ``[lower, upper]``
    (``status`` and ``reason`` are the older names of ``verdict`` and ``detail``).
    """

    S: int
    lower: int
    upper: int
    parts: tuple[frozenset[Vertex], ...]
    verdict: Status
    detail: str
    solver_calls: int = 0
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.verdict is Status.OPTIMAL

    @property
    def value(self) -> int:
        """P(G, S); raises :class:`BudgetExceededError` when undecided."""
        if not self.exact:
            raise BudgetExceededError(
                f"P(G, S={self.S}) undecided in [{self.lower}, {self.upper}]: {self.detail}")
        return self.upper


def _partition_solver(G: nx.DiGraph, S: int, h: int, deadline: float | None = None
                      ) -> tuple[z3.Solver, dict[Vertex, list[z3.BoolRef]], list[z3.BoolRef]]:
    """Solver for "an S-partition with ≤ h parts", plus ``ge`` literals and caps.

    ``ge[v][i]`` ⇔ label(v) ≥ i for i = 1..h−1; ``cap[j]`` (j = 1..h−1) assumed true
    forbids labels ≥ j, i.e. asks for ≤ j parts. Past ``deadline`` (read before each part's
    encoding): :class:`~attnio.exceptions.BudgetExceededError`.
    """
    import z3  # here: importing attnio.graphs costs no solver
    order = {v: n for n, v in enumerate(sorted(G, key=str))}
    ge = {v: [z3.BoolVal(True)] + [z3.Bool(f"ge_{order[v]}_{i}") for i in range(1, h)]
          for v in G}
    s = z3.Solver()
    for v in G:
        for i in range(2, h):
            s.add(z3.Implies(ge[v][i], ge[v][i - 1]))
    for u, v in G.edges:  # monotone labelling: label(u) ≤ label(v)
        for i in range(1, h):
            s.add(z3.Implies(ge[u][i], ge[v][i]))
    caps = [z3.BoolVal(True)] + [z3.Bool(f"cap_{j}") for j in range(1, h)]
    for j in range(1, h):
        for v in G:
            s.add(z3.Implies(caps[j], z3.Not(ge[v][j])))
    for i in range(h):
        if deadline is not None and time.monotonic() >= deadline:
            raise BudgetExceededError("time limit reached")
        in_part = {v: z3.And(ge[v][i], z3.Not(ge[v][i + 1])) if i + 1 < h else ge[v][i]
                   for v in G}
        enc = bounded_set_encoding(G, S, prefix=f"p{i}", member=in_part)
        s.add(enc.constraints)
    return s, ge, caps


def _label_parts(G: nx.DiGraph, ge: dict[Vertex, list[z3.BoolRef]], model: z3.ModelRef
                 ) -> list[frozenset[Vertex]]:
    import z3  # here: importing attnio.graphs costs no solver
    labels = {v: sum(1 for lit in ge[v][1:] if z3.is_true(model.eval(lit, model_completion=True)))
              for v in G}
    parts = [frozenset(v for v in G if labels[v] == i) for i in range(max(labels.values()) + 1)]
    return [p for p in parts if p]


def min_partition_parts(G: nx.DiGraph, S: int, *, timeout_ms: int = 20_000,
                        deadline: float | None = None) -> PartitionResult:
    """The exact P(G, S): fewest non-empty parts of an S-partition of ``G``, by z3.

    Method: a greedy S-partition gives ``upper``; two counting bounds give ``lower``
    (each part holds ≤ S inputs, since an input in a part is in its dominator, and ≤ S sinks of
    ``G``, since they are minimum vertices of their part); then z3 is asked for an
    S-partition with ``upper − 1`` parts, repeatedly, until UNSAT. Every model's partition is
    re-checked by :func:`is_s_partition` before it is believed.

    Parameters
    ----------
    G : networkx.DiGraph
        DAG with inputs = sources.
    S : int
        Bound on dominator and minimum sets, ``S ≥ 1``.
    timeout_ms : int
        z3 timeout per solver call; an ``unknown`` answer ends the search as ``undecided``.
    deadline : float, optional
        A :func:`time.monotonic` value: the greedy partition, the encoding and every z3 call
        (its timeout shortened to the time left) stop there, and the answer is ``undecided``
        with reason "time limit reached" (the bracket proven so far; singletons if the greedy
        partition was cut short).

    Returns
    -------
    PartitionResult

    Raises
    ------
    InvalidInputError
        If ``S`` is not a positive integer or ``G`` is not a DAG with inputs = sources.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 2), (1, 2), (2, 3)])
    >>> r = min_partition_parts(G, 2, timeout_ms=5_000)
    >>> r.value, len(r.parts), bool(is_s_partition(G, r.parts, 2))
    (1, 1, True)
    """
    import z3  # here: importing attnio.graphs costs no solver
    positive_int("S", S)
    positive_int("timeout_ms", timeout_ms)
    start = time.perf_counter()
    inputs = input_vertices(G)
    if G.number_of_nodes() == 0:
        return PartitionResult(S, 0, 0, (), Status.OPTIMAL, "empty graph", 0, 0.0)
    sinks = [v for v in G if G.out_degree(v) == 0]
    lower = max(1, -(-len(inputs) // S), -(-len(sinks) // S))
    calls = 0

    def out_of_time(parts: list[frozenset[Vertex]]) -> PartitionResult:
        return PartitionResult(S, lower, len(parts), tuple(parts), Status.UNDECIDED,
                               "time limit reached", calls, time.perf_counter() - start)

    try:
        best = greedy_s_partition(G, S, deadline=deadline)
    except BudgetExceededError:  # singletons: an S-partition for every S ≥ 1
        return out_of_time([frozenset([v]) for v in G])
    check = is_s_partition(G, best, S)
    assert check.ok, check.reason  # greedy construction is valid by design
    reason = f"counting lower bound {lower} (inputs, sinks ≤ S per part) meets the greedy partition"
    if len(best) > lower:
        try:
            solver, ge, caps = _partition_solver(G, S, len(best) - 1, deadline)
        except BudgetExceededError:
            return out_of_time(best)
        solver.set("timeout", int(timeout_ms))
        while len(best) > lower:
            target = len(best) - 1
            if deadline is not None:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    return out_of_time(best)
                solver.set("timeout", max(1, min(int(timeout_ms), left_ms)))
            calls += 1
            try:
                answer = solver.check(caps[target] if target < len(caps) else z3.BoolVal(True))
            except KeyboardInterrupt:
                answer = z3.unknown
            if answer == z3.unsat:
                lower = len(best)
                reason = f"z3: no {S}-partition with {target} parts (unsat)"
                break
            if answer == z3.sat:
                candidate = _label_parts(G, ge, solver.model())
                check = is_s_partition(G, candidate, S)
                if not check.ok:  # an encoding bug must never pass silently
                    raise AssertionError(f"z3 partition rejected by the checker: {check.reason}")
                best = candidate
                continue
            if deadline is not None and time.monotonic() >= deadline:
                return out_of_time(best)
            return PartitionResult(
                S, lower, len(best), tuple(best), Status.UNDECIDED,
                f"z3 returned unknown ({solver.reason_unknown()}, timeout {timeout_ms} ms) "
                f"asking for {target} parts", calls, time.perf_counter() - start)
        if len(best) == lower and not reason.startswith("z3"):
            reason = f"z3 partition with {lower} parts meets the counting lower bound"
    return PartitionResult(S, lower, len(best), tuple(best), Status.OPTIMAL, reason, calls,
                           time.perf_counter() - start)


def hong_kung_bound(G: nx.DiGraph, S: int, *, timeout_ms: int = 20_000) -> int:
    r"""Hong–Kung Lemma 3.1 lower bound :math:`S \cdot (P(G, 2S) - 1)` on the I/O with S reds.

    Valid for complete calculations with at most ``S`` red pebbles where inputs are exactly the
    sources and may not be computed (HK Lemma 3.1 = Saha–Ye Lemma 2.8, arXiv 2402.07443,
    with the Lean formalisation's input correction).

    Raises
    ------
    InvalidInputError
        If ``G`` breaks a hypothesis (:func:`validate_hong_kung_hypotheses`).
    BudgetExceededError
        If z3 cannot decide :math:`P(G, 2S)` within ``timeout_ms`` per call.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(i, "s") for i in range(5)])   # 5 inputs summed at once
    >>> hong_kung_bound(G, 1, timeout_ms=5_000)          # P(G, 2) = 3
    2
    """
    validate_hong_kung_hypotheses(G)
    return S * (min_partition_parts(G, 2 * S, timeout_ms=timeout_ms).value - 1)
