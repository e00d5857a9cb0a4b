r"""Standalone checker of attnio's pebbling certificates: ``python -m attnio.check FILE``.

This module imports nothing from the rest of attnio (only the Python standard library, and
the independent DRAT checker ``dratify`` when it is installed), so a referee can read it
whole, or re-implement it from ``notes/pebbling.md`` ("Proof files"), without trusting
attnio's search. It checks three claims about the red–blue pebble game (Hong & Kung 1981;
inputs are exactly the sources and start blue, outputs end blue, at most ``M`` red
pebbles, cost = reads + writes, ``Q(G, M)`` the least cost of a complete schedule):

``schedule``
    ``Q(G, M) <= io``: the moves are replayed by :func:`replay` (its own implementation of
    the game) and cost exactly ``io``.
``compulsory``
    ``Q(G, M) >= lower`` with ``lower`` at most the compulsory I/O: every input that is an
    ancestor of a non-input output is read at least once and every non-input output is
    written at least once (a non-input first becomes red by a compute, so every non-input
    ancestor of an output is computed, which needs its predecessors red).
``sat-refutation``
    ``Q(G, M) >= lower``: the CNF file is exactly :func:`encode` of ``(G, M, lower - 1,
    horizon, recompute)`` — regenerated here and compared clause by clause — with
    ``horizon >= required_horizon(...)``, and a DRAT proof that the CNF is unsatisfiable is
    accepted by an independent checker (``dratify``; or any DRAT checker such as drat-trim
    by hand: the CNF and proof are plain DIMACS / DRAT text).

An ``optimum`` certificate holds one upper (a schedule) and one lower certificate for the same
DAG, ``M`` and variant; it is accepted when both are and ``io == lower``: then
``Q(G, M) = io``.

The encoding (the lemma that makes a refutation a proof)
-------------------------------------------------------
Time steps ``t = 1..T``; step ``t`` is: free deletions of red pebbles, then any number of
reads, computes and writes whose preconditions hold on the state after step ``t - 1``.
Variables: ``r(v,t)`` red after step ``t`` and ``b(v,t)`` blue (non-inputs only; inputs are
always blue), ``t = 0..T``; ``rd(v,t)``, ``wr(v,t)``, ``cp(v,t)`` the moves of step ``t``
(``wr`` and ``cp`` on non-inputs only); ``a(t)`` "step t has a move". Clauses: see
:func:`encode`. Every satisfying assignment decodes to a legal schedule of cost
``sum rd + wr <= B`` (per step: deletions, reads, computes, writes; the red count only
grows inside a step and ends at ``<= M``). Conversely (**horizon lemma**, RECONSTRUCTED for
attnio, proof in notes/pebbling.md): a schedule of cost ``<= B`` can be put in a normal form —
no read or compute of a red vertex, no write of a blue one, no move on a vertex that is not
an ancestor of an output, every computed pebble used (by a compute of a successor or a write
of the vertex) before it is deleted — at no greater cost; in it a non-input ``v`` is computed
at most ``c(v) = 1 + sum_{w in succ(v)} c(w)`` times (each compute maps to the first use of
its pebble, and ``v`` is written at most once), and only once one-shot. So it has at most
``B + sum_v c(v)`` moves that are not deletions and fits ``T = required_horizon`` steps of one
move each (idle steps at the end). Hence "the CNF is unsatisfiable" implies
``Q(G, M) >= B + 1``.

Exit codes of ``python -m attnio.check FILE``: 0 accepted, 1 rejected (the first failed
condition is printed), 2 unreadable or malformed file, 3 well formed and every part attnio
can check accepted, but the DRAT proof not checked (no independent checker installed).

Examples
--------
>>> dag = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"]}
>>> check_certificate({"kind": "schedule", "dag": dag, "M": 3, "recompute": True, "io": 3,
...     "moves": [["read", "a"], ["read", "b"], ["compute", "c"], ["write", "c"]]}).accepted
True
>>> check_certificate({"kind": "compulsory", "dag": dag, "M": 3, "recompute": True,
...                    "lower": 4}).reason
'lower=4 is above the compulsory I/O 3 (2 inputs read, 1 outputs written)'
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

__all__ = ["CERTIFICATE_FORMAT", "CERTIFICATE_KINDS", "Dag", "CheckResult", "CertificateError",
           "parse_dag", "topological_order", "replay", "compulsory_io", "compute_bounds", "required_horizon",
           "Encoding", "encode", "dimacs_text", "parse_dimacs", "check_certificate",
           "check_file", "drat_checker_available", "check_drat", "main"]

#: The ``format`` field of every certificate file.
CERTIFICATE_FORMAT = "attnio-pebbling-certificate/1"
#: The certificate kinds this checker knows.
CERTIFICATE_KINDS = ("schedule", "compulsory", "sat-refutation", "optimum")
#: Largest file read (bytes): a CNF or DRAT file of a tiny DAG is well below it.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Largest DAG (vertices) and horizon the checker accepts.
MAX_VERTICES = 10_000
MAX_HORIZON = 100_000


class CertificateError(ValueError):
    """A malformed certificate or file (exit code 2): one line naming the problem."""


@dataclass(frozen=True)
class CheckResult:
    """``accepted``; ``reason`` (the claim, or the first failed condition); ``complete``
    False when a DRAT proof could not be checked here."""

    accepted: bool
    reason: str
    complete: bool = True


@dataclass(frozen=True)
class Dag:
    """A DAG restricted to the ancestors of its outputs (the only vertices a normal-form
    schedule touches): ``vertices`` sorted, ``preds``/``succs`` within them, ``inputs`` the
    sources, ``outputs`` the named outputs (default: the sinks)."""

    vertices: tuple[str, ...]
    preds: dict[str, tuple[str, ...]]
    succs: dict[str, tuple[str, ...]]
    inputs: frozenset[str]
    outputs: tuple[str, ...]


def _int(data: dict[str, Any], key: str, low: int = 0) -> int:
    value = data.get(key)
    if type(value) is not int or value < low:
        raise CertificateError(f"{key}={value!r} must be an integer >= {low}")
    return value


def parse_dag(data: Any) -> Dag:
    """The certificate's ``dag`` object (``nodes``, ``edges``, optional ``outputs``) as a
    :class:`Dag` over the ancestors of the outputs; CertificateError if malformed or cyclic.

    >>> parse_dag({"nodes": ["a", "b", "x"], "edges": [["a", "b"]], "outputs": ["b"]}).vertices
    ('a', 'b')
    """
    if not isinstance(data, dict):
        raise CertificateError("dag must be an object with nodes and edges")
    nodes, edges = data.get("nodes"), data.get("edges")
    if not isinstance(nodes, list) or not all(isinstance(v, str) for v in nodes):
        raise CertificateError("dag.nodes must be a list of strings")
    if len(set(nodes)) != len(nodes) or len(nodes) > MAX_VERTICES:
        raise CertificateError(f"dag.nodes must be distinct, at most {MAX_VERTICES}")
    known = set(nodes)
    preds: dict[str, set[str]] = {v: set() for v in nodes}
    if not isinstance(edges, list):
        raise CertificateError("dag.edges must be a list of [u, v] pairs")
    for e in edges:
        if (not isinstance(e, list) or len(e) != 2 or not all(isinstance(x, str) for x in e)
                or e[0] not in known or e[1] not in known or e[0] == e[1]):
            raise CertificateError(f"dag edge {str(e)[:60]} is not a pair of distinct known vertices")
        preds[e[1]].add(e[0])
    succs: dict[str, set[str]] = {v: set() for v in nodes}
    for v, ps in preds.items():
        for u in ps:
            succs[u].add(v)
    outputs = data.get("outputs")
    if outputs is None:
        outputs = sorted(v for v in nodes if not succs[v])
    if (not isinstance(outputs, list) or not all(isinstance(o, str) and o in known
                                                 for o in outputs)
            or len(set(outputs)) != len(outputs)):
        raise CertificateError("dag.outputs must be a list of distinct vertices")
    # acyclic (Kahn), then the ancestors of the outputs
    indegree = {v: len(preds[v]) for v in nodes}
    ready = [v for v in nodes if indegree[v] == 0]
    seen = 0
    while ready:
        u = ready.pop()
        seen += 1
        for w in succs[u]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    if seen != len(nodes):
        raise CertificateError("dag has a cycle")
    keep: set[str] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if v not in keep:
            keep.add(v)
            stack.extend(preds[v])
    vertices = tuple(sorted(keep))
    return Dag(vertices=vertices,
               preds={v: tuple(sorted(preds[v])) for v in vertices},
               succs={v: tuple(sorted(w for w in succs[v] if w in keep)) for v in vertices},
               inputs=frozenset(v for v in vertices if not preds[v]),
               outputs=tuple(outputs))


def replay(dag_data: Any, moves: Any, M: int, recompute: bool = True) -> int:
    """Replay ``moves`` on the whole DAG ``dag_data``; return the cost or raise
    CertificateError naming the first illegal move (the rules of the game, module docstring).

    >>> d = {"nodes": ["a", "b"], "edges": [["a", "b"]]}
    >>> replay(d, [["read", "a"], ["compute", "b"], ["write", "b"]], 2)
    2
    >>> replay(d, [["read", "a"], ["compute", "b"]], 2)
    Traceback (most recent call last):
    ...
    attnio.check.CertificateError: after 2 moves output 'b' is not blue
    """
    parse_dag(dag_data)  # well formed and acyclic
    nodes = set(dag_data["nodes"])
    preds: dict[str, set[str]] = {v: set() for v in nodes}
    for u, v in dag_data["edges"]:
        preds[v].add(u)
    outputs = dag_data.get("outputs")
    if outputs is None:
        has_succ = {u for u, _ in dag_data["edges"]}
        outputs = [v for v in nodes if v not in has_succ]
    inputs = {v for v in nodes if not preds[v]}
    if not isinstance(moves, list):
        raise CertificateError("moves must be a list of [kind, vertex] pairs")
    red: set[str] = set()
    blue = set(inputs)
    computed: set[str] = set()
    cost = 0
    for i, move in enumerate(moves):
        if (not isinstance(move, list) or len(move) != 2
                or move[0] not in ("read", "write", "compute", "delete")
                or not isinstance(move[1], str) or move[1] not in nodes):
            raise CertificateError(f"move {i} {str(move)[:60]} is not [kind, vertex]")
        kind, v = move
        if kind == "read":
            if v not in blue:
                raise CertificateError(f"move {i} reads {v!r}, which is not blue")
            red.add(v)
            cost += 1
        elif kind == "write":
            if v not in red:
                raise CertificateError(f"move {i} writes {v!r}, which is not red")
            blue.add(v)
            cost += 1
        elif kind == "compute":
            if v in inputs:
                raise CertificateError(f"move {i} computes the input {v!r}")
            if not preds[v] <= red:
                raise CertificateError(f"move {i} computes {v!r} without every predecessor red")
            if not recompute and v in computed:
                raise CertificateError(f"move {i} computes {v!r} a second time (one-shot)")
            computed.add(v)
            red.add(v)
        else:
            if v not in red:
                raise CertificateError(f"move {i} deletes {v!r}, which is not red")
            red.discard(v)
        if len(red) > M:
            raise CertificateError(f"move {i} leaves {len(red)} red pebbles > M={M}")
    for o in outputs:
        if o not in blue:
            raise CertificateError(f"after {len(moves)} moves output {o!r} is not blue")
    return cost


def compulsory_io(dag: Dag) -> tuple[int, int]:
    """(inputs that must be read, outputs that must be written): the inputs that are
    ancestors of a non-input output, and the non-input outputs.

    >>> compulsory_io(parse_dag({"nodes": ["a", "b", "c"], "edges": [["a", "c"]]}))
    (1, 1)
    """
    return len(_needed_inputs(dag)), sum(o not in dag.inputs for o in dag.outputs)


def compute_bounds(dag: Dag, recompute: bool = True) -> dict[str, int]:
    """``c(v)``: how often a normal-form schedule computes the non-input ``v`` at most
    (horizon lemma, module docstring): 1 one-shot, else ``1 + sum of c(w)`` over the
    successors ``w``.

    >>> compute_bounds(parse_dag({"nodes": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]],
    ...                           "outputs": ["b", "c"]}))
    {'c': 1, 'b': 2}
    """
    bound: dict[str, int] = {}
    order = topological_order(dag)
    for v in reversed(order):
        if v in dag.inputs:
            continue
        bound[v] = 1 if not recompute else 1 + sum(bound[w] for w in dag.succs[v])
    return bound


def required_horizon(dag: Dag, bound: int, recompute: bool = True) -> int:
    """Steps that hold every normal-form schedule of cost <= ``bound``:
    ``bound + sum_v c(v)`` (:func:`compute_bounds`)."""
    return bound + sum(compute_bounds(dag, recompute).values())


def topological_order(dag: Dag) -> list[str]:
    indegree = {v: len(dag.preds[v]) for v in dag.vertices}
    ready = sorted(v for v in dag.vertices if indegree[v] == 0)
    order: list[str] = []
    while ready:
        u = ready.pop(0)
        order.append(u)
        for w in dag.succs[u]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return order


class Encoding:
    """Variable numbering of :func:`encode` (1-based DIMACS ids), in this order: ``r(v,t)``
    for t = 0..T and v in ``dag.vertices``; ``b(v,t)`` for t = 0..T and v in the
    non-inputs; ``rd(v,t)`` for t = 1..T, v in vertices; ``wr(v,t)`` and ``cp(v,t)`` for
    t = 1..T, v in non-inputs; ``a(t)`` for t = 1..T; then the counters' auxiliaries in the
    order the clauses create them."""

    def __init__(self, dag: Dag, horizon: int) -> None:
        self.dag, self.T = dag, horizon
        self.V = dag.vertices
        self.N = tuple(v for v in self.V if v not in dag.inputs)
        self.vi = {v: i for i, v in enumerate(self.V)}
        self.ni = {v: i for i, v in enumerate(self.N)}
        nV, nN, T = len(self.V), len(self.N), horizon
        self._r = 1
        self._b = self._r + (T + 1) * nV
        self._rd = self._b + (T + 1) * nN
        self._wr = self._rd + T * nV
        self._cp = self._wr + T * nN
        self._a = self._cp + T * nN
        self.num_vars = self._a + T - 1

    def r(self, v: str, t: int) -> int:  # red after step t
        return self._r + t * len(self.V) + self.vi[v]

    def b(self, v: str, t: int) -> int:  # blue after step t
        return self._b + t * len(self.N) + self.ni[v]

    def rd(self, v: str, t: int) -> int:  # read at step t
        return self._rd + (t - 1) * len(self.V) + self.vi[v]

    def wr(self, v: str, t: int) -> int:  # write at step t
        return self._wr + (t - 1) * len(self.N) + self.ni[v]

    def cp(self, v: str, t: int) -> int:  # compute at step t
        return self._cp + (t - 1) * len(self.N) + self.ni[v]

    def a(self, t: int) -> int:  # step t has a move
        return self._a + t - 1

    def new_var(self) -> int:
        self.num_vars += 1
        return self.num_vars

    def at_most(self, literals: list[int], k: int, clauses: list[list[int]]) -> None:
        """Sinz's sequential counter (CP 2005): at most ``k`` of ``literals`` are true;
        auxiliaries ``s(i,j)`` (i = 1..n-1, j = 1..k) allocated row by row."""
        n = len(literals)
        if k >= n:
            return
        if k == 0:
            clauses.extend([-x] for x in literals)
            return
        s = [[self.new_var() for _ in range(k)] for _ in range(n - 1)]
        x = literals
        clauses.append([-x[0], s[0][0]])
        clauses.extend([-s[0][j]] for j in range(1, k))
        for i in range(1, n - 1):
            clauses.append([-x[i], s[i][0]])
            clauses.append([-s[i - 1][0], s[i][0]])
            for j in range(1, k):
                clauses.append([-x[i], -s[i - 1][j - 1], s[i][j]])
                clauses.append([-s[i - 1][j], s[i][j]])
            clauses.append([-x[i], -s[i - 1][k - 1]])
        clauses.append([-x[n - 1], -s[n - 2][k - 1]])

    def cost_literals(self) -> list[int]:
        """Every read and write variable, step by step (the cost counter's inputs)."""
        lits: list[int] = []
        for t in range(1, self.T + 1):
            lits.extend(self.rd(v, t) for v in self.V)
            lits.extend(self.wr(v, t) for v in self.N)
        return lits


def encode(dag: Dag, M: int, bound: int | None, horizon: int, recompute: bool = True
           ) -> tuple[Encoding, list[list[int]]]:
    """The CNF "a normal-form schedule of ``dag`` with at most ``M`` red pebbles, cost <=
    ``bound``, in ``horizon`` steps exists" (module docstring; ``bound=None``: cost free).

    A step t is: deletions, then reads, then computes in topological order (a compute may use
    a vertex read or computed earlier in the same step), then writes; the red count only
    grows inside a step, so ``<= M`` after every step is the red limit. Clauses, for every
    step t = 1..T and vertex v (``wr``, ``cp``, ``b`` on non-inputs only):

    1. ``r(v,t) -> r(v,t-1) | rd(v,t) | cp(v,t)`` (red appears by a read or a compute);
    2. ``rd(v,t) -> r(v,t)``, ``rd(v,t) -> -r(v,t-1)``, ``rd(v,t) -> b(v,t-1)``, and
       ``rd(v,t) -> OR_{w in succ(v)} cp(w,t)`` (reads just in time);
    3. ``cp(v,t) -> r(v,t)``, ``cp(v,t) -> -r(v,t-1)``, ``cp(v,t) -> r(u,t)`` for each
       predecessor u;
    4. ``wr(v,t) -> r(v,t)``, ``wr(v,t) -> -b(v,t-1)``, and for
       t < T ``wr(v,t) -> -r(v,t+1)`` (writes just before the pebble goes);
    5. ``b(v,t) <-> b(v,t-1) | wr(v,t)``;
    6. at most M of ``r(., t)`` (sequential counter);
    7. ``a(t) -> OR(moves of t)``; every move of step t + 1 implies ``a(t)`` (idle steps only
       at the end) and, for t + 1 >= 2, ``a(t+1) -> OR_u (r(u,t) & -r(u,t+1))`` written with
       ``d(u,t+1)``: ``d -> r(u,t)``, ``d -> -r(u,t+1)`` (every step after the first starts
       with a deletion: steps are maximal);
    8. ``OR_t rd(i,t)`` for each input i that is an ancestor of a non-input output,
       ``OR_t cp(v,t)`` for each non-input v;
    then ``-r(v,0)``, ``-b(v,0)``, ``b(o,T)`` for the non-input outputs; one-shot: at most one
    ``cp(v, .)`` per v; last, at most ``bound`` of the reads and writes (the cost).
    The ``d(u,t)`` variables are allocated step by step right after ``a(.)``, before every
    counter.

    >>> d = parse_dag({"nodes": ["a", "b"], "edges": [["a", "b"]]})
    >>> enc, clauses = encode(d, 2, 1, 3)
    >>> enc.num_vars, len(clauses)
    (39, 103)
    """
    enc = Encoding(dag, horizon)
    T, V, N = horizon, enc.V, enc.N
    cl: list[list[int]] = []
    cl.extend([-enc.r(v, 0)] for v in V)
    cl.extend([-enc.b(v, 0)] for v in N)
    dvars = {(u, t): enc.new_var() for t in range(2, T + 1) for u in V}
    for t in range(1, T + 1):
        for v in V:
            r, r0, rd = enc.r(v, t), enc.r(v, t - 1), enc.rd(v, t)
            uses = [enc.cp(w, t) for w in dag.succs[v]]
            if v in dag.inputs:
                cl.append([-r, r0, rd])
                cl.extend([[-rd, r], [-rd, -r0], [-rd, *uses]])
                continue
            b, b0, wr, cp = enc.b(v, t), enc.b(v, t - 1), enc.wr(v, t), enc.cp(v, t)
            cl.append([-r, r0, rd, cp])
            cl.extend([[-rd, r], [-rd, -r0], [-rd, b0], [-rd, *uses]])
            cl.extend([[-cp, r], [-cp, -r0]])
            cl.extend([-cp, enc.r(u, t)] for u in dag.preds[v])
            cl.extend([[-wr, r], [-wr, -b0]])
            if t < T:
                cl.append([-wr, -enc.r(v, t + 1)])
            cl.extend([[-b0, b], [-wr, b], [-b, b0, wr]])
        enc.at_most([enc.r(v, t) for v in V], M, cl)
    for t in range(1, T + 1):
        moves = [enc.rd(v, t) for v in V] + [enc.wr(v, t) for v in N] + [
            enc.cp(v, t) for v in N]
        cl.append([-enc.a(t), *moves])
        if t < T:
            nxt = [enc.rd(v, t + 1) for v in V] + [enc.wr(v, t + 1) for v in N] + [
                enc.cp(v, t + 1) for v in N]
            cl.extend([-x, enc.a(t)] for x in nxt)
        if t >= 2:
            cl.append([-enc.a(t), *(dvars[u, t] for u in V)])
            for u in V:
                cl.extend([[-dvars[u, t], enc.r(u, t - 1)], [-dvars[u, t], -enc.r(u, t)]])
    for i in sorted(_needed_inputs(dag)):
        cl.append([enc.rd(i, t) for t in range(1, T + 1)])
    for v in N:
        cl.append([enc.cp(v, t) for t in range(1, T + 1)])
    cl.extend([enc.b(o, T)] for o in dag.outputs if o not in dag.inputs)
    if not recompute:
        for v in N:
            enc.at_most([enc.cp(v, t) for t in range(1, T + 1)], 1, cl)
    if bound is not None:
        enc.at_most(enc.cost_literals(), bound, cl)
    return enc, cl


def _needed_inputs(dag: Dag) -> set[str]:
    # every kept vertex is an ancestor of an output, so an input with a kept successor is an
    # ancestor of a non-input output
    return {i for i in dag.inputs if dag.succs[i]}


def dimacs_text(num_vars: int, clauses: Iterable[list[int]]) -> str:
    """DIMACS CNF text (``p cnf V C`` then one clause a line, ending in 0)."""
    clauses = list(clauses)
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return f"p cnf {num_vars} {len(clauses)}\n{body}"


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """(variables, clauses) of DIMACS text; CertificateError if malformed.

    >>> parse_dimacs("c x\\np cnf 2 1\\n1 -2 0\\n")
    (2, [[1, -2]])
    """
    header: tuple[int, int] | None = None
    clauses: list[list[int]] = []
    current: list[int] = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0] == "c":
            continue
        if words[0] == "p":
            if header is not None or len(words) != 4 or words[1] != "cnf":
                raise CertificateError("the CNF has a malformed or second 'p cnf' line")
            try:
                header = (int(words[2]), int(words[3]))
            except ValueError:
                raise CertificateError("the CNF's 'p cnf' line has a non-integer") from None
            continue
        if header is None:
            raise CertificateError("the CNF has clauses before its 'p cnf' line")
        for w in words:
            try:
                lit = int(w)
            except ValueError:
                raise CertificateError(f"the CNF has a non-integer literal {w[:20]!r}") from None
            if lit == 0:
                clauses.append(current)
                current = []
            elif abs(lit) > header[0]:
                raise CertificateError(f"the CNF's literal {lit} exceeds its {header[0]} variables")
            else:
                current.append(lit)
    if header is None or current or len(clauses) != header[1]:
        raise CertificateError("the CNF is not complete DIMACS (header, clause count, final 0)")
    return header[0], clauses


def _clause_key(clauses: Iterable[list[int]]) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(set(c))) for c in clauses)


def drat_checker_available() -> bool:
    """True when the independent DRAT checker ``dratify`` imports."""
    try:
        import dratify  # noqa: F401
    except ImportError:
        return False
    return True


def check_drat(cnf_text: str, proof_text: str) -> bool:
    """True when ``dratify`` (independent of attnio and of the SAT solver) accepts the DRAT
    proof as a refutation of the CNF (the empty clause derived, every step RUP or RAT)."""
    import dratify

    result = dratify.check_proof(dratify.parse_dimacs(cnf_text), proof_text)
    return bool(result.ok and result.reached_empty)


def _read(base: Path, name: Any, what: str) -> str:
    if not isinstance(name, str) or not name or "/" in name or "\\" in name:
        raise CertificateError(f"{what} must be a file name beside the certificate")
    path = base / name
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise CertificateError(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise CertificateError(f"{what} {name} is larger than {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise CertificateError(f"{what} {name} is not ASCII text") from None


def _check_sat(cert: dict[str, Any], dag: Dag, M: int, recompute: bool, base: Path | None,
               run_drat: bool) -> CheckResult:
    lower = _int(cert, "lower", 1)
    horizon = _int(cert, "horizon", 1)
    if horizon > MAX_HORIZON:
        raise CertificateError(f"horizon={horizon} is above {MAX_HORIZON}")
    need = required_horizon(dag, lower - 1, recompute)
    if horizon < need:
        return CheckResult(False, f"horizon={horizon} is below the {need} steps the horizon "
                                  f"lemma needs for cost <= {lower - 1}")
    if base is None:
        raise CertificateError("a sat-refutation is checked from its file (the CNF and proof beside it)")
    cnf_text = _read(base, cert.get("cnf"), "cnf")
    if cert.get("cnf_sha256") is not None and cert["cnf_sha256"] != hashlib.sha256(
            cnf_text.encode()).hexdigest():
        return CheckResult(False, "cnf_sha256 does not match the file")
    num_vars, clauses = parse_dimacs(cnf_text)
    enc, expected = encode(dag, M, lower - 1, horizon, recompute)
    if num_vars != enc.num_vars or _clause_key(clauses) != _clause_key(expected):
        return CheckResult(False, f"the CNF is not the encoding of M={M}, cost <= {lower - 1}, "
                                  f"horizon {horizon} ({'recomputation' if recompute else 'one-shot'})")
    proof_text = _read(base, cert.get("proof"), "proof")
    if cert.get("proof_sha256") is not None and cert["proof_sha256"] != hashlib.sha256(
            proof_text.encode()).hexdigest():
        return CheckResult(False, "proof_sha256 does not match the file")
    claim = f"Q >= {lower} (the encoding of cost <= {lower - 1} is unsatisfiable)"
    if not run_drat:
        return CheckResult(True, f"{claim}: CNF regenerated and equal; DRAT proof not checked",
                           complete=False)
    if not drat_checker_available():
        return CheckResult(True, f"{claim}: CNF regenerated and equal; DRAT proof NOT checked "
                                 "(install dratify, or run drat-trim on the .cnf and .drat)",
                           complete=False)
    if not check_drat(cnf_text, proof_text):
        return CheckResult(False, "the DRAT proof is rejected by dratify")
    return CheckResult(True, f"{claim}: CNF regenerated and equal, DRAT proof accepted by "
                             "dratify")


def check_certificate(cert: Any, base: str | Path | None = None, *, run_drat: bool = True
                      ) -> CheckResult:
    """Check one certificate object (module docstring); ``base`` is the folder of its
    CNF/proof files. CertificateError for a malformed certificate.

    >>> dag = {"nodes": ["a", "b"], "edges": [["a", "b"]]}
    >>> check_certificate({"kind": "schedule", "dag": dag, "M": 2, "recompute": True,
    ...                    "io": 3, "moves": [["read", "a"], ["compute", "b"], ["write", "b"]]})
    CheckResult(accepted=False, reason='the schedule costs 2, not io=3', complete=True)
    """
    if not isinstance(cert, dict):
        raise CertificateError("a certificate is a JSON object")
    kind = cert.get("kind")
    if kind not in CERTIFICATE_KINDS:
        raise CertificateError(f"kind={str(kind)[:40]!r} is not one of {', '.join(CERTIFICATE_KINDS)}")
    M = _int(cert, "M", 1)
    recompute = cert.get("recompute")
    if not isinstance(recompute, bool):
        raise CertificateError("recompute must be true or false")
    dag = parse_dag(cert.get("dag"))
    where = None if base is None else Path(base)
    if kind == "schedule":
        io = _int(cert, "io")
        try:
            cost = replay(cert["dag"], cert.get("moves"), M, recompute)
        except CertificateError as exc:
            return CheckResult(False, f"illegal schedule: {exc}")
        if cost != io:
            return CheckResult(False, f"the schedule costs {cost}, not io={io}")
        return CheckResult(True, f"Q <= {io} (a legal schedule of cost {io})")
    if kind == "compulsory":
        lower = _int(cert, "lower")
        reads, writes = compulsory_io(dag)
        if lower > reads + writes:
            return CheckResult(False, f"lower={lower} is above the compulsory I/O "
                                      f"{reads + writes} ({reads} inputs read, {writes} "
                                      f"outputs written)")
        return CheckResult(True, f"Q >= {lower} (compulsory I/O {reads + writes})")
    if kind == "sat-refutation":
        return _check_sat(cert, dag, M, recompute, where, run_drat)
    # optimum: both ends, same instance, meeting
    parts = []
    for end in ("upper", "lower_proof"):
        part = cert.get(end)
        if not isinstance(part, dict):
            raise CertificateError(f"an optimum certificate needs an object {end}")
        if part.get("dag") is not None and part["dag"] != cert["dag"]:
            return CheckResult(False, f"{end} is for another DAG")
        for key in ("M", "recompute"):
            if key in part and part[key] != cert[key]:
                return CheckResult(False, f"{end} is for {key}={part[key]}, not {cert[key]}")
        parts.append({**part, "dag": cert["dag"], "M": M, "recompute": recompute})
    upper, lower_cert = parts
    if upper.get("kind") != "schedule" or lower_cert.get("kind") not in (
            "compulsory", "sat-refutation"):
        raise CertificateError("an optimum's upper is a schedule and its lower_proof compulsory or "
                    "sat-refutation")
    io = _int(cert, "io")
    if upper.get("io") != io or lower_cert.get("lower") != io:
        return CheckResult(False, f"the ends do not meet at io={io} (upper "
                                  f"{upper.get('io')}, lower {lower_cert.get('lower')})")
    up = check_certificate(upper, where, run_drat=run_drat)
    if not up.accepted:
        return CheckResult(False, f"upper end rejected: {up.reason}")
    low = check_certificate(lower_cert, where, run_drat=run_drat)
    if not low.accepted:
        return CheckResult(False, f"lower end rejected: {low.reason}")
    return CheckResult(True, f"Q(G, M={M}) = {io}: {low.reason}", complete=low.complete)


def check_file(path: str | Path, *, run_drat: bool = True) -> CheckResult:
    """Read a certificate file (JSON, ``format`` = :data:`CERTIFICATE_FORMAT`) and check it;
    its CNF and proof files are named relative to its folder."""
    path = Path(path)
    text = _read(path.parent, path.name, "certificate")
    try:
        cert = json.loads(text)
    except (ValueError, RecursionError):
        raise CertificateError(f"{path.name} is not JSON") from None
    if not isinstance(cert, dict) or cert.get("format") != CERTIFICATE_FORMAT:
        raise CertificateError(f"{path.name} is not an attnio pebbling certificate "
                    f"(format {CERTIFICATE_FORMAT})")
    return check_certificate(cert, path.parent, run_drat=run_drat)


def main(argv: list[str] | None = None) -> int:
    """``python -m attnio.check FILE [FILE ...] [--no-drat]``: one line per file; the exit
    code is the worst (module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    run_drat = "--no-drat" not in args
    files = [a for a in args if a != "--no-drat"]
    if not files or any(a.startswith("-") for a in files):
        print("usage: python -m attnio.check CERTIFICATE.json [...] [--no-drat]",
              file=sys.stderr)
        return 2
    codes: list[int] = []
    for name in files:
        try:
            result = check_file(name, run_drat=run_drat)
        except (CertificateError, RecursionError) as exc:
            print(f"{name}: error: {exc or 'nested too deeply'}", file=sys.stderr)
            codes.append(2)
            continue
        status = ("accepted" if result.accepted and result.complete
                  else "accepted, incomplete" if result.accepted else "REJECTED")
        print(f"{name}: {status}: {result.reason}")
        codes.append(0 if result.accepted and result.complete else 3 if result.accepted else 1)
    # the worst: malformed, then rejected, then not fully checked, then accepted
    return next((code for code in (2, 1, 3) if code in codes), 0)


if __name__ == "__main__":
    raise SystemExit(main())
