r"""Standalone checker of attnio's pebbling certificates: ``python -m attnio.check FILE``.

This module imports nothing from the rest of attnio (only the Python standard library, and
the independent DRAT checker ``dratify`` when it is installed), so a referee can read it
whole, or re-implement it from ``notes/pebbling.md`` ("Proof files"), without trusting
attnio's search. It checks claims about the red–blue pebble game (Hong & Kung 1981;
inputs are exactly the sources and start blue, outputs end blue, at most ``M`` red
pebbles, cost = reads + writes, ``Q(G, M)`` the least cost of a complete schedule), by kind:

``schedule``
    ``Q(G, M) <= io``: :func:`replay` (its own implementation of the game) replays the moves
    at cost exactly ``io``.
``compulsory``
    ``Q(G, M) >= lower``, ``lower`` at most the compulsory I/O (:func:`compulsory_io`).
``sat-refutation``
    ``Q(G, M) >= lower``: the CNF file is :func:`encode` of ``(G, M, lower - 1, horizon,
    recompute, symmetries)`` — regenerated here, compared clause by clause — with ``horizon
    >= required_horizon``, each listed symmetry an automorphism, and ``dratify`` (or any DRAT
    checker, e.g. drat-trim by hand) accepts the DRAT proof that the CNF is unsatisfiable.
``optimum``
    an upper (schedule) and a lower certificate for the same DAG, ``M`` and variant that
    meet: ``Q(G, M) = io``.

The encoding (the lemma that makes a refutation a proof)
-------------------------------------------------------
:func:`encode` is a time-indexed CNF over normal-form schedules (its docstring lists the
clauses). Every model decodes to a legal schedule; conversely (**horizon lemma**,
RECONSTRUCTED for attnio, proof in notes/pebbling.md) every schedule of cost ``<= B`` has a
normal form of no greater cost in which a non-input ``v`` is computed at most
``c(v) = 1 + sum_{w in succ(v)} c(w)`` times (once one-shot) and every step has a compute,
so it fits ``T = required_horizon = sum_v c(v)`` steps. Hence "the CNF is unsatisfiable"
implies ``Q(G, M) >= B + 1``.

Exit codes of ``python -m attnio.check FILE``: 0 accepted, 1 rejected (the first failed
condition is printed), 2 unreadable or malformed file, 3 well formed and every part attnio
can check accepted, but the DRAT proof not checked (no independent checker installed).

Examples
--------
>>> dag = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"]}
>>> check_certificate({"kind": "schedule", "dag": dag, "M": 3, "recompute": True, "io": 3,
...     "moves": [["read", "a"], ["read", "b"], ["compute", "c"], ["write", "c"]]}).accepted
True
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["CERTIFICATE_FORMAT", "CERTIFICATE_KINDS", "Dag", "CheckResult", "CertificateError",
           "parse_dag", "topological_order", "replay", "compulsory_io", "compute_bounds",
           "required_horizon", "Encoding", "encode", "check_symmetry", "dimacs_text",
           "parse_dimacs", "check_certificate", "check_file", "drat_checker_available",
           "check_drat", "main"]

#: The ``format`` field of every certificate file.
CERTIFICATE_FORMAT = "attnio-pebbling-certificate/1"
#: The certificate kinds this checker knows.
CERTIFICATE_KINDS = ("schedule", "compulsory", "sat-refutation", "optimum")
#: Largest file read (bytes), DAG (vertices), horizon (steps), list of symmetries.
MAX_FILE_BYTES, MAX_VERTICES, MAX_HORIZON, MAX_SYMMETRIES = 1 << 30, 10_000, 100_000, 256


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
    """A DAG on the ancestors of its outputs (all a normal-form schedule touches): vertices
    sorted, preds/succs within them, inputs = sources, outputs (default: the sinks)."""

    vertices: tuple[str, ...]
    preds: dict[str, tuple[str, ...]]
    succs: dict[str, tuple[str, ...]]
    inputs: frozenset[str]
    outputs: tuple[str, ...]


def _int(data: dict[str, Any], key: str, low: int = 0) -> int:
    value = data.get(key)
    if type(value) is not int or value < low:
        raise CertificateError(f"{key}={str(value)[:40]!r} must be an integer >= {low}")
    return value


def parse_dag(data: Any, whole: bool = False) -> Dag:
    """The certificate's ``dag`` object (``nodes``, ``edges``, optional ``outputs``) as a
    :class:`Dag` over the ancestors of the outputs (every vertex if ``whole``);
    CertificateError if malformed or cyclic.

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
            raise CertificateError(f"dag edge {str(e)[:60]} is not two distinct known vertices")
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
    full = Dag(vertices=tuple(sorted(nodes)), preds={v: tuple(sorted(p)) for v, p in preds.items()},
               succs={v: tuple(sorted(w)) for v, w in succs.items()},
               inputs=frozenset(v for v in nodes if not preds[v]), outputs=tuple(outputs))
    if len(topological_order(full)) != len(nodes):
        raise CertificateError("dag has a cycle")
    if whole:
        return full
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

    >>> replay({"nodes": ["a", "b"], "edges": [["a", "b"]]}, [["read", "a"], ["compute", "b"]], 2)
    Traceback (most recent call last):
    attnio.check.CertificateError: after 2 moves output 'b' is not blue
    """
    dag = parse_dag(dag_data, whole=True)  # well formed and acyclic
    preds, inputs = dag.preds, dag.inputs
    if not isinstance(moves, list):
        raise CertificateError("moves must be a list of [kind, vertex] pairs")
    red: set[str] = set()
    blue = set(inputs)
    computed: set[str] = set()
    cost = 0
    for i, move in enumerate(moves):
        if (not isinstance(move, list) or len(move) != 2
                or move[0] not in ("read", "write", "compute", "delete")
                or not isinstance(move[1], str) or move[1] not in preds):
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
            if not set(preds[v]) <= red:
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
    for o in dag.outputs:
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
    """``c(v)``, the most computes of the non-input ``v`` in a normal-form schedule (horizon
    lemma): 1 one-shot, else ``1 + sum of c(w)`` over the successors ``w``.

    >>> compute_bounds(parse_dag({"nodes": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]],
    ...                           "outputs": ["b", "c"]}))
    {'c': 1, 'b': 2}
    """
    bound: dict[str, int] = {}
    for v in reversed(topological_order(dag)):
        if v in dag.inputs:
            continue
        bound[v] = 1 if not recompute else 1 + sum(bound[w] for w in dag.succs[v])
    return bound


def required_horizon(dag: Dag, recompute: bool = True) -> int:
    """Steps that hold every normal-form schedule, whatever its cost: ``sum_v c(v)``
    (:func:`compute_bounds`; every step has a compute), at least 1."""
    return max(1, sum(compute_bounds(dag, recompute).values()))


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
        self.extras: list[int] = []  # the extra I/O's literals, set by encode()

    # the numbering, one accessor a line (1-based DIMACS ids)
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


def encode(dag: Dag, M: int, bound: int | None, horizon: int, recompute: bool = True,
           symmetries: Sequence[Mapping[str, str]] = ()) -> tuple[Encoding, list[list[int]]]:
    """The CNF "a normal-form schedule of ``dag`` with at most ``M`` red pebbles, cost <=
    ``bound``, in ``horizon`` steps exists" (module docstring; ``bound=None``: cost free).

    A step t is: deletions, reads, computes in topological order (one may use a vertex read
    or computed before it in the step), writes; the red count only grows inside a step, so
    ``<= M`` after each step is the red limit. Clauses for t = 1..T and each vertex v
    (``wr``, ``cp``, ``b`` on non-inputs only):

    1. ``r(v,t) -> r(v,t-1) | rd(v,t) | cp(v,t)``;
    2. ``rd(v,t)`` implies ``r(v,t)``, ``-r(v,t-1)``, ``b(v,t-1)`` and
       ``OR_{w in succ(v)} cp(w,t)`` (reads just in time);
    3. ``cp(v,t)`` implies ``r(v,t)``, ``-r(v,t-1)`` and ``r(u,t)`` for each predecessor u;
    4. ``wr(v,t)`` implies ``r(v,t)``, ``-b(v,t-1)`` and, t < T, ``-r(v,t+1)`` (a write in
       the pebble's last step);
    5. ``b(v,t) <-> b(v,t-1) | wr(v,t)``;
    6. at most M of ``r(., t)`` (sequential counter);
    7. each move of step t implies ``a(t)``; ``a(t) -> OR_v cp(v,t)``; ``a(t+1) -> a(t)``;
       for t >= 2 ``a(t) -> OR_u d(u,t)`` with ``d(u,t) -> r(u,t-1)``, ``d(u,t) -> -r(u,t)``
       (every step has a compute and, after the first, starts with a deletion);
    8. ``OR_t rd(i,t)`` for each needed input (one with a successor), ``OR_t cp(v,t)`` for
       each non-input;
    9. per automorphism in ``symmetries`` (:func:`check_symmetry`): lex-leader clauses,
       "``rb`` (t-major, inputs sorted) is lexicographically at most its image";
    10. ``cp(o,t) -> wr(o,t)`` for each non-input output without successors;
    then ``-r(v,0)``, ``-b(v,0)``, ``b(o,T)`` for non-input outputs, and one-shot at most one
    ``cp(v, .)`` per v. **Cost** = compulsory I/O (every needed input read, every non-input
    output written once) + extras: ``rb(i,t)`` "i read at a step <= t" (``rd(i,t) ->
    rb(i,t)``, ``rb(i,t-1) -> rb(i,t)``), ``x(i,t)`` (``rd(i,t) & rb(i,t-1) -> x(i,t)``); the
    extras are, step by step, ``x(i,t)`` (t >= 2), ``rd(v,t)`` (non-inputs), ``wr(v,t)``
    (non-inputs that are not outputs); last, at most ``bound - compulsory`` extras (the empty
    clause if negative). New variables after ``a(.)``: ``d(u,t)`` (t = 2..T, u in V),
    ``rb(i,t)`` (t = 1..T), ``x(i,t)`` (t = 2..T; needed inputs sorted), then family 9's
    "equal so far" variables and the counters, in clause order.

    >>> d = parse_dag({"nodes": ["a", "b"], "edges": [["a", "b"]]})
    >>> enc, clauses = encode(d, 2, 1, 3)
    >>> enc.num_vars, len(clauses)
    (36, 97)
    """
    enc = Encoding(dag, horizon)
    T, V, N = horizon, enc.V, enc.N
    cl: list[list[int]] = [[-enc.r(v, 0)] for v in V] + [[-enc.b(v, 0)] for v in N]
    dvars = {(u, t): enc.new_var() for t in range(2, T + 1) for u in V}
    needed = sorted(_needed_inputs(dag))
    rb = {(i, t): enc.new_var() for t in range(1, T + 1) for i in needed}
    xs = {(i, t): enc.new_var() for t in range(2, T + 1) for i in needed}
    for t in range(1, T + 1):
        for i in needed:
            cl.append([-enc.rd(i, t), rb[i, t]])
            if t >= 2:
                cl += [[-rb[i, t - 1], rb[i, t]], [-enc.rd(i, t), -rb[i, t - 1], xs[i, t]]]
                enc.extras.append(xs[i, t])
        enc.extras += [enc.rd(v, t) for v in N] + [enc.wr(v, t) for v in N
                                                   if v not in dag.outputs]
    for sym in symmetries:  # 9 (Crawford et al. 1996): sound for any set of automorphisms,
        equal: list[int] = []  # the least vector of a schedule's orbit satisfies each one
        for t in range(1, T + 1):
            for xk, yk in ((rb[i, t], rb[sym.get(i, i), t]) for i in needed):
                if xk != yk:  # equal[-1:]: "equal so far" (none at the first difference)
                    e, pre = enc.new_var(), [-p for p in equal[-1:]]
                    cl += [[*pre, -xk, yk], [*pre, -xk, -yk, e], [*pre, xk, yk, e]]
                    equal = [e]
    for t in range(1, T + 1):
        for v in V:
            r, r0, rd = enc.r(v, t), enc.r(v, t - 1), enc.rd(v, t)
            uses = [enc.cp(w, t) for w in dag.succs[v]]
            cl += [[-rd, r], [-rd, -r0], [-rd, *uses], [-rd, enc.a(t)]]
            if v in dag.inputs:
                cl.append([-r, r0, rd])
                continue
            b, b0, wr, cp = enc.b(v, t), enc.b(v, t - 1), enc.wr(v, t), enc.cp(v, t)
            cl += [[-r, r0, rd, cp], [-rd, b0], [-cp, r], [-cp, -r0], [-cp, enc.a(t)]]
            cl += [[-cp, enc.r(u, t)] for u in dag.preds[v]]
            cl += [[-wr, r], [-wr, -b0], [-wr, enc.a(t)], [-b0, b], [-wr, b], [-b, b0, wr]]
            if t < T:
                cl.append([-wr, -enc.r(v, t + 1)])
        enc.at_most([enc.r(v, t) for v in V], M, cl)
        cl.append([-enc.a(t), *(enc.cp(v, t) for v in N)])
        if t >= 2:
            cl.append([-enc.a(t), enc.a(t - 1)])
            cl.append([-enc.a(t), *(dvars[u, t] for u in V)])
            for u in V:
                cl += [[-dvars[u, t], enc.r(u, t - 1)], [-dvars[u, t], -enc.r(u, t)]]
    cl += [[enc.rd(i, t) for t in range(1, T + 1)] for i in needed]
    cl += [[enc.cp(v, t) for t in range(1, T + 1)] for v in N]
    cl += [[enc.b(o, T)] for o in dag.outputs if o not in dag.inputs]
    for o in dag.outputs:  # 10: a sink output's pebble has no other use; computed once
        if o not in dag.inputs and not dag.succs[o]:
            cl += [[-enc.cp(o, t), enc.wr(o, t)] for t in range(1, T + 1)]
    if not recompute:
        for v in N:
            enc.at_most([enc.cp(v, t) for t in range(1, T + 1)], 1, cl)
    if bound is not None:
        spare = bound - sum(compulsory_io(dag))
        if spare < 0:
            cl.append([])
        else:
            enc.at_most(enc.extras, spare, cl)
    return enc, cl


def _needed_inputs(dag: Dag) -> set[str]:
    # every kept vertex is an ancestor of an output, so an input with a kept successor is an
    # ancestor of a non-input output
    return {i for i in dag.inputs if dag.succs[i]}


def check_symmetry(dag: Dag, sym: Any) -> str:
    """Why ``sym`` (vertex -> image, unlisted vertices fixed) is not an automorphism of the
    kept DAG — a bijection mapping edges to edges, inputs to inputs, outputs to outputs —
    or "" when it is.

    >>> d = parse_dag({"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]})
    >>> check_symmetry(d, {"a": "b", "b": "a"}), check_symmetry(d, {"a": "c", "c": "a"})
    ('', "it changes the in-degree of 'a'")"""
    if not isinstance(sym, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k in dag.preds and v in dag.preds
            for k, v in sym.items()):
        return "it is not a map between kept vertices"
    image = {v: sym.get(v, v) for v in dag.vertices}
    if len(set(image.values())) != len(image):
        return "it is not a bijection"
    for v in dag.vertices:
        for u in dag.preds[v]:
            if image[u] not in dag.preds[image[v]]:
                return f"it maps the edge {(u, v)} to a non-edge"
        if len(dag.preds[v]) != len(dag.preds[image[v]]):
            return f"it changes the in-degree of {v!r}"
    if {image[o] for o in dag.outputs} != set(dag.outputs):
        return "it does not map the outputs onto the outputs"
    return ""


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
    header: list[int] = []
    clauses: list[list[int]] = []
    current: list[int] = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0] == "c":
            continue
        try:
            if words[0] == "p":
                if header or len(words) != 4 or words[1] != "cnf":
                    raise CertificateError("the CNF has a malformed or second 'p cnf' line")
                header = [int(words[2]), int(words[3])]
                continue
            if not header:
                raise CertificateError("the CNF has clauses before its 'p cnf' line")
            for lit in map(int, words):
                if abs(lit) > header[0]:
                    raise CertificateError(f"the CNF's literal {lit} exceeds its variables")
                current.append(lit)
                if lit == 0:
                    clauses.append(current[:-1])
                    current = []
        except ValueError:
            raise CertificateError("the CNF has a word that is not an integer") from None
    if not header or current or len(clauses) != header[1]:
        raise CertificateError("the CNF is not complete DIMACS (header, clause count, final 0)")
    return header[0], clauses


def _clause_key(clauses: Iterable[list[int]]) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(set(c))) for c in clauses)


def drat_checker_available() -> bool:
    """True when the independent DRAT checker ``dratify`` can be imported."""
    return importlib.util.find_spec("dratify") is not None


def check_drat(cnf_text: str, proof_text: str) -> bool:
    """True when ``dratify`` (independent of attnio and of the SAT solver) accepts the DRAT
    proof as a refutation of the CNF (the empty clause derived, every step RUP or RAT); its
    Rust engine (cdclkit-native, ~15x faster) is used when installed."""
    import dratify

    if importlib.util.find_spec("cdclkit_native") is not None:
        import cdclkit_native

        dratify.register_native(cdclkit_native)
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
    need = required_horizon(dag, recompute)
    if horizon < need:
        return CheckResult(False, f"horizon={horizon} is below the {need} steps the horizon "
                                  "lemma needs")
    if base is None:
        raise CertificateError("a sat-refutation is checked from its file (CNF, proof beside)")
    cnf_text = _read(base, cert.get("cnf"), "cnf")
    if cert.get("cnf_sha256") not in (None, hashlib.sha256(cnf_text.encode()).hexdigest()):
        return CheckResult(False, "cnf_sha256 does not match the file")
    num_vars, clauses = parse_dimacs(cnf_text)
    symmetries = cert.get("symmetries", [])
    if not isinstance(symmetries, list) or len(symmetries) > MAX_SYMMETRIES:
        raise CertificateError(f"symmetries must be a list of at most {MAX_SYMMETRIES} maps")
    for sym in symmetries:
        why = check_symmetry(dag, sym)
        if why:
            return CheckResult(False, f"a listed symmetry is not an automorphism: {why}")
    enc, expected = encode(dag, M, lower - 1, horizon, recompute, symmetries)
    if num_vars != enc.num_vars or _clause_key(clauses) != _clause_key(expected):
        variant = "recomputation" if recompute else "one-shot"
        return CheckResult(False, f"the CNF is not the encoding of M={M}, cost <= {lower - 1}, "
                                  f"horizon {horizon} ({variant})")
    proof_text = _read(base, cert.get("proof"), "proof")
    if cert.get("proof_sha256") not in (None, hashlib.sha256(proof_text.encode()).hexdigest()):
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
        raise CertificateError(f"kind={str(kind)[:40]!r} is not one of "
                               f"{', '.join(CERTIFICATE_KINDS)}")
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
        raise CertificateError("an optimum's upper is a schedule and its lower_proof "
                               "compulsory or sat-refutation")
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
