r"""Certified lower bounds on the red–blue pebbling I/O of any DAG, each with a checker.

Every route returns a :class:`BoundRecord` — ``(route, value, applies, why_not,
certificate)`` with ``value`` an exact ``int`` — such that, for the game of
:mod:`attnio.graphs.game` (inputs = sources, start blue; outputs end blue; recomputation
allowed *or* one-shot; schedules of any length),

.. math:: \text{value} \;\le\; Q(G, M)

whenever ``applies`` is true (a route that does not apply has value 0 and says why). Each
route has an independent checker (:func:`check_certificate`) that re-verifies its
certificate from the DAG alone and returns :class:`~attnio.results.Proved` or
:class:`~attnio.results.Refuted`. The proofs are written out in notes/lower_bounds.md.

Notation: :math:`I` = inputs (sources); :math:`O` = outputs (``G.graph["outputs"]``, else the
sinks); :math:`O^\ast = O \setminus I` (an output that is an input is blue from the start and
costs nothing); the *must-compute* set :math:`N` = :math:`O^\ast` and its non-input ancestors
(every schedule computes each of them at least once: an output needs a blue pebble, which on a
non-input only a write of a red pebble — and so a computation — gives, and computing a vertex
needs its predecessors red); *needed inputs* :math:`I_N` = inputs with a successor in N.

Routes
------
``compulsory`` (folklore; e.g. Hong–Kung 1981 §3 "every input read once, every output written
once", adapted to the conventions above):  :math:`Q \ge |I_N| + |O^\ast|`. Each needed input
is read at least once (the only way to make an input red), each non-input output written at
least once; these are distinct moves.

``hong-kung``: :math:`Q \ge M(P(G, 2M) - 1)` (Hong–Kung 1981 Lemma 3.1 = Saha–Ye arXiv
2402.07443 Lemma 2.8, inputs = sources convention) with :math:`P(G, 2M)` exact from
:func:`attnio.graphs.partitions.min_partition_parts`. Hypotheses (checked by
:func:`attnio.graphs.partitions.check_hong_kung_hypotheses`): outputs = sinks, no isolated
vertex.

``per-part: <name>``: the per-part counting routes of
:func:`attnio.proofs.explicit_bounds.explicit_routes` (:math:`M(\lceil N/\beta(2M)\rceil - 1)`)
for the built-in matmul / attention DAGs whose sizes are known (``G.graph["builder"]``).

``spill-windows`` (new; attnio, RECONSTRUCTED from the ideas of Hong–Kung's red-pebble
counting and of the exact solver's "space pair" heuristic, graphs/exact.py) — three kinds of
moves counted separately, so the three counts add:

1. *input reads* :math:`W`: fix a set :math:`U \subseteq N` and look at the **first**
   computation of each :math:`u \in U`; they happen in some order
   :math:`u_1, \dots, u_k` that extends the ancestor order (a non-input ancestor of v is
   computed before v is first computed). At the first computation of :math:`u_j` the red set
   is :math:`\mathrm{pred}(u_j) \cup \{u_j\} \cup Z_j` with
   :math:`|Z_j| \le s(u_j) = M - |\mathrm{pred}(u_j)| - 1`. In the window before
   :math:`u_{j}`'s first computation every input of :math:`\mathrm{pred}(u_j)` that was not red
   at the end of the previous window is read; inputs of :math:`\mathrm{pred}(u_j)` not used
   by any earlier :math:`u_i` ("new") that were red already were read earlier by a read that
   no window counts. Hence the input reads are at least

   .. math:: W = \min_{\text{orders}} \sum_j \Bigl(|\mathrm{new}_j|
             + \max\bigl(0, |\mathrm{old}_j \setminus \mathrm{pred}(u_{j-1})| - s(u_{j-1})\bigr)\Bigr)
             + |I_N \setminus \mathrm{pred}(U)|,

   computed exactly by dynamic programming over the ancestor-closed subsets of U;
2. *forced spills* :math:`F`: for :math:`w \in N` and a set T of non-input predecessors of w
   with :math:`|\mathrm{pred}(a) \cup T| > M` for every :math:`a \in T`, the member of T that
   became red last before a computation of w cannot have been computed then (all of T and
   pred(a) would be red), so it was **read**, and, being no input, **written** before. Over a
   family of pairwise disjoint such T: one non-input read each, plus one non-output write
   each when T holds no output;
3. *output writes*: :math:`|O^\ast|`.

:math:`Q \ge W + F + |O^\ast|`; it is at least the compulsory I/O
(every needed input is "new" once).

``saturation-windows`` (new; attnio; notes/lower_bounds.md route 5): route 4 with the set
of red inputs at each event tracked exactly, and *saturated events* — for disjoint sets T of
non-input predecessors of w with :math:`|\mathrm{pred}(a) \cup T| \ge M`, either a member
is read (charged as in 4b) or, when the last one is computed, the red set is exactly
:math:`\mathrm{pred}(a^\ast) \cup T` and the other members stay red until w is computed.

``sub-dag-exact`` (new; attnio): for the ancestral closure H of a set of outputs, the moves of
any complete schedule on H form a complete schedule of H (the exact solver's reduction R4), so

.. math:: Q(G, M) \ge Q(H, M) + W_{\notin H} + F_{\notin H} + |O^\ast \setminus H|,

with route 4 counting only moves on vertices outside H. :math:`Q(H, M)` comes from
:func:`attnio.graphs.exact.solve_optimal` and its checker re-solves it with the plain baseline
(:func:`attnio.graphs.baseline.plain_optimal`). When H = G this *is* the exact optimum.

Examples
--------
>>> from attnio.graphs.dags import matmul_dag
>>> G = matmul_dag(2, 2, 2)
>>> records = lower_bounds(G, 3)
>>> [(r.route, r.value) for r in records if r.applies]     # exact optimum Q(G, 3) = 25
[('compulsory', 12), ('hong-kung', 3), ('per-part: matmul products', 3), ('per-part: Saha-Ye level-1', 0), ('spill-windows', 22), ('saturation-windows', 22), ('sub-dag-exact', 21)]
>>> best_bound(records).route
'spill-windows'
>>> all(check_certificate(G, 3, r).proved for r in records)
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

import networkx as nx

from attnio.exceptions import AttnioError, InvalidInputError
from attnio.graphs.game import check_cache_size, game_inputs, game_outputs
from attnio.results import Proved, Refuted, Verdict

__all__ = [
    "BoundRecord",
    "ROUTES",
    "compulsory_bound",
    "hong_kung_route",
    "per_part_routes",
    "spill_windows_bound",
    "subdag_exact_bound",
    "saturation_windows_bound",
    "saturating_sets",
    "saturation_reads_min",
    "lower_bounds",
    "best_bound",
    "check_certificate",
    "certified_lower_bound",
    "must_compute",
    "window_reads_min",
    "forced_spill_sets",
]

ROUTES = ("compulsory", "hong-kung", "per-part", "spill-windows", "saturation-windows",
          "sub-dag-exact")

#: Most vertices the window DP orders (its state count grows with the antichains of U).
MAX_WINDOW_VERTICES = 16
#: Most (subset, last) states per DP layer before U is shrunk.
MAX_WINDOW_STATES = 200_000


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

    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "c"), ("x", "y")]); G.graph["outputs"] = ["b", "x"]
    >>> I, O, N, need = must_compute(G)
    >>> sorted(O), sorted(N), sorted(need)     # c and y are never needed; x is blue already
    (['b'], ['b'], ['a'])
    """
    inputs = frozenset(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G, outputs)) if o not in inputs]
    needed: set[str] = set(outs)
    for o in outs:
        needed |= nx.ancestors(G, o)
    N = frozenset(v for v in needed if v not in inputs)
    need_inputs = frozenset(u for v in N for u in G.predecessors(v) if u in inputs)
    return inputs, outs, N, need_inputs


# --------------------------------------------------------------------------------------------
# Route 1: compulsory I/O
# --------------------------------------------------------------------------------------------


def compulsory_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None) -> BoundRecord:
    """``|I_N| + |O*|``: each needed input read once, each non-input output written once.

    >>> import networkx as nx
    >>> compulsory_bound(nx.DiGraph([("a", "c"), ("b", "c")]), 3).value
    3
    """
    check_cache_size(M)
    _, outs, _, need = must_compute(G, outputs)
    cert = {"needed_inputs": sorted(need), "written_outputs": sorted(outs),
            "reads": len(need), "writes": len(outs)}
    return BoundRecord("compulsory", len(need) + len(outs), True, None, cert)


def _check_compulsory(G: nx.DiGraph, M: int, rec: BoundRecord,
                      outputs: Iterable[str] | None) -> Verdict:
    inputs = set(game_inputs(G))
    outs = set(game_outputs(G, outputs))
    cert = rec.certificate
    reads, writes = set(cert.get("needed_inputs", ())), set(cert.get("written_outputs", ()))
    for x in reads:
        if x not in inputs:
            return Refuted({"vertex": x}, f"{x!r} is not an input")
        if not any(_reaches_output_through_compute(G, s, outs, inputs) for s in G.successors(x)):
            return Refuted({"vertex": x}, f"input {x!r} feeds no vertex that must be computed")
    for o in writes:
        if o not in outs or o in inputs:
            return Refuted({"vertex": o}, f"{o!r} is not a non-input output")
    if rec.value != len(reads) + len(writes):
        return Refuted({"value": rec.value}, f"value {rec.value} ≠ {len(reads)} + {len(writes)}")
    return Proved(f"{len(reads)} needed inputs read + {len(writes)} outputs written")


def _reaches_output_through_compute(G: nx.DiGraph, v: str, outs: set[str],
                                    inputs: set[str]) -> bool:
    """True iff non-input ``v`` is an output or an ancestor of one (so it must be computed)."""
    if v in inputs:
        return False
    return v in outs or any(o in outs and o not in inputs for o in nx.descendants(G, v))


# --------------------------------------------------------------------------------------------
# Route 2: Hong–Kung with exact P(G, 2M)
# --------------------------------------------------------------------------------------------


def hong_kung_route(G: nx.DiGraph, M: int, *, timeout_ms: int = 20_000) -> BoundRecord:
    """``M·(P(G, 2M) − 1)`` with P exact; does not apply when HK's hypotheses fail.

    >>> from attnio.graphs.dags import matmul_dag
    >>> hong_kung_route(matmul_dag(1, 4, 1), 3).value
    3
    """
    from attnio.graphs.partitions import check_hong_kung_hypotheses, min_partition_parts

    check_cache_size(M)
    try:
        check_hong_kung_hypotheses(G)
    except InvalidInputError as exc:
        return BoundRecord("hong-kung", 0, False, str(exc), {})
    part = min_partition_parts(G, 2 * M, timeout_ms=timeout_ms)
    cert = {"S": 2 * M, "P": part.upper if part.exact else None, "lower": part.lower,
            "upper": part.upper, "reason": part.reason,
            "partition": [sorted(map(str, p)) for p in part.parts]}
    if not part.exact:
        return BoundRecord("hong-kung", 0, False, f"P(G, 2M) undecided: {part.reason}", cert)
    return BoundRecord("hong-kung", M * (part.value - 1), True, None, cert)


def _check_hong_kung(G: nx.DiGraph, M: int, rec: BoundRecord, timeout_ms: int) -> Verdict:
    from attnio.graphs.partitions import (check_hong_kung_hypotheses, is_s_partition,
                                          min_partition_parts)

    check_hong_kung_hypotheses(G)
    cert = rec.certificate
    P = cert.get("P")
    if not isinstance(P, int) or rec.value != M * (P - 1):
        return Refuted({"value": rec.value, "P": P}, "value ≠ M·(P − 1)")
    parts = [set(p) for p in cert.get("partition", [])]
    check = is_s_partition(G, parts, 2 * M)
    if not check.ok or len([p for p in parts if p]) != P:
        return Refuted({"P": P}, f"certificate partition rejected: {check.reason}")
    if P <= 1:
        return Proved("P = 1: the bound is 0")
    again = min_partition_parts(G, 2 * M, timeout_ms=timeout_ms)  # z3 UNSAT for P − 1 parts
    if again.lower < P:
        return Refuted({"P": P, "lower": again.lower},
                       f"a fresh z3 run does not certify P ≥ {P} (lower {again.lower})")
    return Proved(f"{2 * M}-partition with {P} parts checked; P − 1 parts re-refuted by z3")


# --------------------------------------------------------------------------------------------
# Route 3: the per-part counting routes (built-in DAGs)
# --------------------------------------------------------------------------------------------

_KIND_OF_BUILDER = {"matmul": "matmul", "attention-forward": "attention-forward",
                    "attention-backward": "attention-backward"}
_PER_PART_NAMES = ("matmul products", "Saha-Ye level-1")


def _builtin_kind(G: nx.DiGraph) -> tuple[str | None, dict[str, Any], str | None]:
    builder = G.graph.get("builder")
    kind = _KIND_OF_BUILDER.get(builder)
    if kind is None:
        return None, {}, ("needs a built-in matmul or attention DAG (its sizes are part of the "
                          "per-part lemma); this DAG has no known builder")
    return kind, dict(G.graph.get("params", {})), None


def per_part_routes(G: nx.DiGraph, M: int) -> list[BoundRecord]:
    """The per-part counting routes of :mod:`attnio.proofs.explicit_bounds`.

    >>> from attnio.graphs.dags import matmul_dag
    >>> [(r.route, r.value) for r in per_part_routes(matmul_dag(2, 2, 2), 3)]
    [('per-part: matmul products', 3), ('per-part: Saha-Ye level-1', 0)]
    """
    from attnio.proofs.explicit_bounds import explicit_routes

    check_cache_size(M)
    kind, sizes, why = _builtin_kind(G)
    if kind is None:
        return [BoundRecord(f"per-part: {name}", 0, False, why, {}) for name in _PER_PART_NAMES]
    try:
        values = explicit_routes(kind, sizes, M)
    except InvalidInputError as exc:
        return [BoundRecord(f"per-part: {name}", 0, False, str(exc), {})
                for name in _PER_PART_NAMES]
    out = []
    for name in _PER_PART_NAMES:
        if name not in values:
            out.append(BoundRecord(f"per-part: {name}", 0, False,
                                   f"the {name} lemma does not apply to {kind}", {}))
            continue
        counted, beta = _per_part_parameters(G, kind, sizes, name, M)
        out.append(BoundRecord(f"per-part: {name}", values[name], True, None,
                               {"kind": kind, "sizes": {k: v for k, v in sizes.items()
                                                        if v is not None},
                                "counted": counted, "part_bound": beta, "S": M,
                                "formula": "S·(⌈counted/part_bound⌉ − 1)"}))
    return out


def _per_part_parameters(G: nx.DiGraph, kind: str, sizes: dict[str, Any], name: str,
                         M: int) -> tuple[int, int]:
    """``(N, β(2M))`` counted from the DAG itself (not from the sizes)."""
    from attnio.graphs.dags import level1_vertices
    from attnio.proofs.partition_lemmas import (matmul_part_bound, product_vertices,
                                                sy_part_bound)

    tag = "AB" if kind == "matmul" else "QK"
    if name == "matmul products":
        return len(product_vertices(G, tag)), matmul_part_bound(2 * M)
    level1 = level1_vertices(G, tag)
    depth = sizes["k"] if kind == "matmul" else sizes["d"]
    roots = [v for v in level1 if not any(G.nodes[s].get("product_of") == tag
                                          for s in G.successors(v))]
    tree = len(level1) // max(1, len(roots))
    return len(level1), sy_part_bound(2 * M, depth, tree)


def _check_per_part(G: nx.DiGraph, M: int, rec: BoundRecord) -> Verdict:
    from attnio.graphs.partitions import check_hong_kung_hypotheses
    from attnio.proofs.explicit_bounds import partition_route_bound

    check_hong_kung_hypotheses(G)  # the route goes through HK Lemma 3.1
    cert = rec.certificate
    kind, sizes, why = _builtin_kind(G)
    if kind is None or cert.get("kind") != kind:
        return Refuted({"kind": cert.get("kind")}, why or "certificate names another kind")
    name = rec.route.removeprefix("per-part: ")
    counted, beta = _per_part_parameters(G, kind, sizes, name, M)
    if (counted, beta) != (cert.get("counted"), cert.get("part_bound")):
        return Refuted({"counted": counted, "part_bound": beta},
                       f"recounted N = {counted}, β = {beta} differ from the certificate")
    value = partition_route_bound(counted, beta, M)
    if value != rec.value:
        return Refuted({"value": rec.value, "recomputed": value}, "value differs")
    return Proved(f"N = {counted} counted vertices recounted, β(2M) = {beta}: "
                  f"{M}·(⌈{counted}/{beta}⌉ − 1) = {value}")


# --------------------------------------------------------------------------------------------
# Route 4: spill windows (new)
# --------------------------------------------------------------------------------------------


def _slack(G: nx.DiGraph, v: str, M: int) -> int:
    return max(0, M - G.in_degree(v) - 1)


def _choose_window_set(G: nx.DiGraph, N: frozenset[str], inputs: frozenset[str],
                       M: int, limit: int) -> list[str]:
    """U: must-compute vertices with an input predecessor, then those with no slack (which
    never weaken the bound); at most ``limit``, in topological order."""
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    with_inputs = [v for v in order if any(u in inputs for u in G.predecessors(v))]
    tight = [v for v in order if v not in with_inputs and _slack(G, v, M) == 0]
    ranked = (sorted(with_inputs, key=lambda v: (_slack(G, v, M), order.index(v)))
              + tight)[:limit]
    chosen = set(ranked)
    return [v for v in order if v in chosen]


def window_reads_min(G: nx.DiGraph, U: list[str], M: int,
                     max_states: int = MAX_WINDOW_STATES, *,
                     slack_override: int | None = None,
                     count_non_inputs: bool = False,
                     uncounted: frozenset[str] = frozenset()) -> tuple[int, list[str]] | None:
    r"""The least windowed input-read count over orders of U's first computations, and an order
    attaining it; None when a DP layer exceeds ``max_states``.

    Inputs in ``uncounted`` are ignored (their reads are counted elsewhere: route 6).
    ``slack_override`` and ``count_non_inputs`` exist only for the planted false twins
    (:mod:`attnio.proofs.lower_bound_routes`): a fixed slack for every vertex, and charging
    non-input predecessors like inputs. Both make the "bound" unsound.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> window_reads_min(G, ["P[0,0,0]", "P[0,0,1]"], 3)
    (4, ['P[0,0,0]', 'P[0,0,1]'])
    """
    inputs = set(game_inputs(G))
    n = len(U)
    if n == 0:
        return 0, []
    idx = {v: i for i, v in enumerate(U)}
    pin = [frozenset(u for u in G.predecessors(v)
                     if (u in inputs or count_non_inputs) and u not in uncounted) for v in U]
    anc = [sum(1 << idx[a] for a in nx.ancestors(G, v) if a in idx) for v in U]
    slack = [_slack(G, v, M) if slack_override is None else slack_override for v in U]
    pin_of: dict[int, frozenset[str]] = {0: frozenset()}

    def pins(S: int) -> frozenset[str]:
        got = pin_of.get(S)
        if got is None:
            low = S & -S
            got = pins(S ^ low) | pin[low.bit_length() - 1]
            pin_of[S] = got
        return got

    layer: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {
        (1 << i, i): (len(pin[i]), (i,)) for i in range(n) if anc[i] == 0}
    for _ in range(n - 1):
        nxt: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}
        for (S, u), (cost, path) in layer.items():
            seen = pins(S)
            for v in range(n):
                if (S >> v) & 1 or anc[v] & ~S:
                    continue
                new = pin[v] - seen
                old = (pin[v] & seen) - pin[u]
                c = cost + len(new) + max(0, len(old) - slack[u])
                key = (S | (1 << v), v)
                if key not in nxt or c < nxt[key][0]:
                    nxt[key] = (c, path + (v,))
        if len(nxt) > max_states:
            return None
        layer = nxt
    cost, path = min(layer.values())
    return cost, [U[i] for i in path]


def forced_spill_sets(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None,
                      max_subset_degree: int = 12, *, margin: int = 0,
                      exclude: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    r"""A greedy family of pairwise disjoint forced-spill sets ``{"at": w, "set": T, "charge"}``.

    T ⊆ non-input predecessors of a must-compute w, |T| ≥ 2, and
    :math:`|\mathrm{pred}(a) \cup T| > M` for every a ∈ T; charge 2 (a read and a write of
    non-outputs) when T holds no output, else 1 (the read).

    >>> from attnio.graphs.dags import matmul_dag
    >>> forced_spill_sets(matmul_dag(1, 2, 1), 3)
    [{'at': 'C[0,0]', 'set': ['P[0,0,0]', 'P[0,0,1]'], 'charge': 2}]
    >>> forced_spill_sets(matmul_dag(1, 2, 1), 4)
    []
    """
    inputs, outs, N, _ = must_compute(G, outputs)
    out_set = set(outs)
    used: set[str] = set()
    family = []
    for w in nx.lexicographical_topological_sort(G):
        if w not in N:
            continue
        cand = sorted(p for p in G.predecessors(w)
                      if p not in inputs and p not in used and p not in exclude)
        sizes = range(2, len(cand) + 1) if len(cand) <= max_subset_degree else (2,)
        best: tuple[int, int, tuple[str, ...]] | None = None
        for r in sizes:
            for T in itertools.combinations(cand, r):
                Ts = set(T)
                if all(len(set(G.predecessors(a)) | Ts) > M - margin for a in T):
                    charge = 1 if Ts & out_set else 2
                    if best is None or (charge, -r) > (best[0], -best[1]):
                        best = (charge, r, T)
        if best is not None:
            used.update(best[2])
            family.append({"at": w, "set": list(best[2]), "charge": best[0]})
    return family


def spill_windows_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None
                        ) -> BoundRecord:
    """``W + F + |O*|`` (module docstring, route 4), with its certificate.

    >>> from attnio.graphs.dags import matmul_dag
    >>> r = spill_windows_bound(matmul_dag(1, 2, 1), 3)   # exact optimum 7
    >>> r.value, r.certificate["input_reads"], r.certificate["output_writes"]
    (7, 4, 1)
    """
    check_cache_size(M)
    inputs, outs, N, need = must_compute(G, outputs)
    limit = MAX_WINDOW_VERTICES
    while True:
        U = _choose_window_set(G, N, inputs, M, limit)
        got = window_reads_min(G, U, M)
        if got is not None:
            break
        limit -= 2
    reads_in_windows, order = got
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered)
    family = forced_spill_sets(G, M, outputs)
    forced = sum(t["charge"] for t in family)
    W = reads_in_windows + len(outside)
    cert = {"U": U, "order": order, "slack": {v: _slack(G, v, M) for v in U},
            "window_reads": reads_in_windows, "inputs_outside_U": outside,
            "input_reads": W, "forced_sets": family, "forced_moves": forced,
            "output_writes": len(outs)}
    return BoundRecord("spill-windows", W + forced + len(outs), True, None, cert)


def _independent_window_min(G: nx.DiGraph, U: list[str], M: int,
                            uncounted: frozenset[str] = frozenset()) -> int:
    """The same minimum as :func:`window_reads_min`, by a backward memoised recursion over
    frozensets (a second implementation for the checker)."""
    inputs = set(game_inputs(G))
    Uset = frozenset(U)
    preds = {v: frozenset(x for x in G.predecessors(v) if x in inputs and x not in uncounted)
             for v in U}
    ancestors = {v: frozenset(nx.ancestors(G, v)) & Uset for v in U}
    room = {v: max(0, M - len(list(G.predecessors(v))) - 1) for v in U}

    @lru_cache(maxsize=None)
    def rest(done: frozenset[str], last: str) -> int:
        if done == Uset:
            return 0
        used = frozenset().union(*(preds[x] for x in done))
        options = []
        for v in Uset - done:
            if not ancestors[v] <= done:
                continue
            fresh = len(preds[v] - used)
            again = len((preds[v] & used) - preds[last])
            options.append(fresh + max(0, again - room[last]) + rest(done | {v}, v))
        return min(options)

    starts = [len(preds[v]) + rest(frozenset([v]), v) for v in U if not ancestors[v]]
    return min(starts) if starts else 0


def _verify_forced(G: nx.DiGraph, M: int, family: list, outs: set[str], inputs: set[str],
                   exclude: frozenset[str] = frozenset()) -> int | Refuted:
    """Re-verify a forced-spill family; its total charge, or Refuted."""
    seen: set[str] = set()
    forced = 0
    for entry in family:
        w, T, charge = entry.get("at"), list(entry.get("set", [])), entry.get("charge")
        if w not in G or w in inputs or not _reaches_output_through_compute(G, w, outs, inputs):
            return Refuted({"at": w}, f"{w!r} is not a vertex that must be computed")
        if len(T) < 2 or len(set(T)) != len(T):
            return Refuted({"set": T}, "a forced set has ≥ 2 distinct vertices")
        for a in T:
            if a in inputs or a in exclude or not G.has_edge(a, w):
                return Refuted({"vertex": a}, f"{a!r} is not a non-input predecessor of {w!r}"
                                              f"{' outside H' if exclude else ''}")
            if len(set(G.predecessors(a)) | set(T)) <= M:
                return Refuted({"vertex": a, "set": T},
                               f"|pred({a}) ∪ T| ≤ M: {a!r} could be computed last")
        if seen & set(T):
            return Refuted({"set": T}, "forced sets overlap")
        seen |= set(T)
        allowed = 1 if set(T) & outs else 2
        if charge not in (1, 2) or charge > allowed:
            return Refuted({"set": T, "charge": charge}, f"charge {charge} > {allowed}")
        forced += charge
    return forced


def _check_spill_windows(G: nx.DiGraph, M: int, rec: BoundRecord,
                         outputs: Iterable[str] | None) -> Verdict:
    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G, outputs)) if o not in inputs]
    cert = rec.certificate
    U = list(cert.get("U", []))
    if len(set(U)) != len(U):
        return Refuted({"U": U}, "U repeats a vertex")
    for v in U:
        if v not in G or v in inputs or not _reaches_output_through_compute(G, v, set(outs),
                                                                             inputs):
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    window = _independent_window_min(G, U, M)
    if cert.get("window_reads") != window:
        return Refuted({"claimed": cert.get("window_reads"), "recomputed": window},
                       f"window minimum recomputed as {window}")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    for x in cert.get("inputs_outside_U", []):
        if x not in inputs or x in covered or not any(
                _reaches_output_through_compute(G, s, set(outs), inputs)
                for s in G.successors(x)):
            return Refuted({"vertex": x}, f"{x!r} is not a needed input outside pred(U)")
    if len(set(cert.get("inputs_outside_U", []))) != len(cert.get("inputs_outside_U", [])):
        return Refuted({}, "inputs_outside_U repeats a vertex")
    forced = _verify_forced(G, M, cert.get("forced_sets", []), set(outs), inputs)
    if isinstance(forced, Refuted):
        return forced
    total = window + len(cert.get("inputs_outside_U", [])) + forced + len(outs)
    if rec.value != total or cert.get("output_writes") != len(outs):
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"window reads {window} (recomputed), {len(cert.get('inputs_outside_U', []))}"
                  f" inputs outside U, forced spills {forced}, output writes {len(outs)}")


# --------------------------------------------------------------------------------------------
# Route 5: saturation windows (red inputs tracked, saturated events, held vertices)
# --------------------------------------------------------------------------------------------

#: Most states of one layer of the saturation DP before the route gives up (does not apply).
MAX_SATURATION_STATES = 40_000


def saturating_sets(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None
                    ) -> list[dict[str, Any]]:
    r"""A greedy family of pairwise disjoint sets ``{"at": w, "set": T, "charge", "choices"}``:
    T ⊆ non-input predecessors of a must-compute w, |T| ≥ 2, :math:`|\mathrm{pred}(a) \cup T|
    \ge M` for every a ∈ T; ``choices`` = the a with equality (the only members that can be
    computed last, with the red set then exactly pred(a) ∪ T).

    >>> from attnio.graphs.dags import matmul_dag
    >>> saturating_sets(matmul_dag(1, 2, 1), 4)
    [{'at': 'C[0,0]', 'set': ['P[0,0,0]', 'P[0,0,1]'], 'charge': 2, 'choices': ['P[0,0,0]', 'P[0,0,1]']}]
    """
    inputs, outs, N, _ = must_compute(G, outputs)
    out_set = set(outs)
    used: set[str] = set()
    family = []
    for w in nx.lexicographical_topological_sort(G):
        if w not in N:
            continue
        cand = sorted(p for p in G.predecessors(w) if p not in inputs and p not in used)
        best: tuple[tuple[bool, int, int], tuple[str, ...]] | None = None
        for r in range(2, min(len(cand), 6) + 1):
            for T in itertools.combinations(cand, r):
                sizes = [len(set(G.predecessors(a)) | set(T)) for a in T]
                if all(x >= M for x in sizes):
                    key = (all(x > M for x in sizes), 1 if set(T) & out_set else 2, -r)
                    if best is None or key > best[0]:
                        best = (key, T)
        if best is not None:
            T = best[1]
            used.update(T)
            family.append({"at": w, "set": list(T), "charge": 1 if set(T) & out_set else 2,
                           "choices": [a for a in T
                                       if len(set(G.predecessors(a)) | set(T)) == M]})
    return family


def _saturation_model(G: nx.DiGraph, M: int, U: list[str], family: list[dict[str, Any]],
                      room_delta: int = 0) -> dict[str, Any]:
    """The data both DP implementations share (recomputed from G by each)."""
    inputs = set(game_inputs(G))
    idx = {v: i for i, v in enumerate(U)}
    return {
        "inputs": inputs, "idx": idx,
        "pin": [frozenset(u for u in G.predecessors(v) if u in inputs) for v in U],
        "anc": [frozenset(a for a in nx.ancestors(G, v) if a in idx) for v in U],
        "vbase": [frozenset(G.predecessors(v)) | {v} for v in U],
        "room": [M + room_delta - len((set(G.predecessors(v)) | {v}) - inputs) for v in U],
        "events": [{a: (frozenset(G.predecessors(a)) | set(t["set"]),
                        frozenset(u for u in G.predecessors(a) if u in inputs),
                        frozenset(t["set"]) - {a}) for a in t["choices"]} for t in family],
    }


def saturation_reads_min(G: nx.DiGraph, M: int, U: list[str], family: list[dict[str, Any]],
                         max_states: int = MAX_SATURATION_STATES, *,
                         room_delta: int = 0) -> int | None:
    r"""Least input reads + spill charges over the event sequences of route 5 (forward DP over
    (items done, last event, red inputs R, open held sets)); None over the state budget.
    ``room_delta`` ≠ 0 exists only for a planted false twin (less room than M gives).

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(3, 1, 3)
    >>> U = sorted(G.graph["outputs"])
    >>> saturation_reads_min(G, 4, U, [])     # 6 inputs, two of them read twice
    8
    """
    m = _saturation_model(G, M, U, family, room_delta)
    pin, anc, vbase, room, events = m["pin"], m["anc"], m["vbase"], m["room"], m["events"]
    idx = m["idx"]
    nV, items = len(U), len(U) + len(family)
    w_of = [idx.get(t["at"]) for t in family]
    members = [[idx.get(a) for a in t["set"]] for t in family]
    start = (frozenset(), None, frozenset(), frozenset())
    layer: dict[tuple, int] = {start: 0}
    for _ in range(items):
        nxt: dict[tuple, int] = {}

        def push(key: tuple, cost: int) -> None:
            if cost < nxt.get(key, 1 << 60):
                nxt[key] = cost

        for (done, last, R, held), cost in layer.items():
            held_vertices = frozenset().union(*(h for _, h in held)) if held else frozenset()
            done_vertices = {U[i] for i in done if i < nV}
            for it in range(items):
                if it in done:
                    continue
                if it < nV:
                    if not anc[it] <= done_vertices:
                        continue
                    cap = room[it] - len(held_vertices - vbase[it])
                    need = pin[it]
                    if cap < len(need):
                        continue
                    still = [h for h in held if w_of[h[0]] != it]
                    avail = sorted(R - need)
                    keep = min(cap - len(need), len(avail))
                    for kept in itertools.combinations(avail, keep):
                        Rn = need | frozenset(kept)
                        push((done | {it}, ("v", it), Rn, frozenset(still)),
                             cost + len(Rn - R))
                else:
                    j = it - nV
                    push((done | {it}, last, R, held), cost + family[j]["charge"])
                    w = w_of[j]
                    if w is None or w in done or any(a is None or a not in done
                                                     for a in members[j]):
                        continue
                    for a, (base, Rn, hold) in events[j].items():
                        if not held_vertices <= base:
                            continue
                        push((done | {it}, ("t", j, a), Rn, held | {(j, hold)}),
                             cost + len(Rn - R))
        if len(nxt) > max_states:
            return None
        layer = nxt
    return min(layer.values()) if layer else 0


def saturation_windows_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None
                             ) -> BoundRecord:
    """Route 5 (notes/lower_bounds.md): input reads over saturated and first-compute events,
    spill charges of saturating sets, output writes.

    >>> from attnio.graphs.dags import matmul_dag
    >>> saturation_windows_bound(matmul_dag(3, 1, 3), 4).value    # exact optimum 17
    17
    """
    check_cache_size(M)
    inputs, outs, N, need = must_compute(G, outputs)
    family = saturating_sets(G, M, outputs)
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    with_inputs = [v for v in order if any(u in inputs for u in G.predecessors(v))]
    wanted = set(with_inputs) | {t["at"] for t in family} | {a for t in family for a in t["set"]}
    U = [v for v in order if v in wanted]
    if len(U) + len(family) > 20:
        return BoundRecord("saturation-windows", 0, False,
                           f"{len(U) + len(family)} events: more than the DP's 20", {})
    got = saturation_reads_min(G, M, U, family)
    if got is None:
        return BoundRecord("saturation-windows", 0, False,
                           f"the DP exceeded {MAX_SATURATION_STATES} states per layer", {})
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered)
    cert = {"U": U, "saturating_sets": family, "reads_and_spills": got,
            "inputs_outside_U": outside, "output_writes": len(outs)}
    return BoundRecord("saturation-windows", got + len(outside) + len(outs), True, None, cert)


def _independent_saturation_min(G: nx.DiGraph, M: int, U: list[str],
                                family: list[dict[str, Any]]) -> int:
    """The minimum of :func:`saturation_reads_min` by a backward memoised recursion (a second
    implementation for the checker)."""
    m = _saturation_model(G, M, U, family)
    Uset = set(U)
    anc = {v: m["anc"][i] for i, v in enumerate(U)}
    pin = {v: m["pin"][i] for i, v in enumerate(U)}
    base = {v: m["vbase"][i] for i, v in enumerate(U)}
    room = {v: m["room"][i] for i, v in enumerate(U)}
    sets = {t["at"]: t for t in family}

    @lru_cache(maxsize=None)
    def rest(done: frozenset, R: frozenset, held: frozenset) -> int:
        best = None
        pending_sets = [t for t in family if ("set", t["at"]) not in done]
        pending_v = [v for v in U if v not in done]
        if not pending_sets and not pending_v:
            return 0
        hv = frozenset().union(*(h for _, h in held)) if held else frozenset()
        for v in pending_v:
            if not anc[v] <= done:
                continue
            cap = room[v] - len(hv - base[v])
            if cap < len(pin[v]):
                continue
            extra = sorted(R - pin[v])
            for kept in itertools.combinations(extra, min(cap - len(pin[v]), len(extra))):
                Rn = pin[v] | frozenset(kept)
                nh = frozenset(x for x in held if x[0] != v)
                c = len(Rn - R) + rest(done | {v}, Rn, nh)
                best = c if best is None or c < best else best
        for t in pending_sets:
            key = ("set", t["at"])
            c = t["charge"] + rest(done | {key}, R, held)
            best = c if best is None or c < best else best
            if t["at"] not in Uset or t["at"] in done or not set(t["set"]) <= done:
                continue
            for a in t["choices"]:
                b = frozenset(G.predecessors(a)) | set(t["set"])
                if not hv <= b:
                    continue
                Rn = frozenset(u for u in G.predecessors(a) if u in m["inputs"])
                c = len(Rn - R) + rest(done | {key}, Rn,
                                       held | {(t["at"], frozenset(t["set"]) - {a})})
                best = c if best is None or c < best else best
        return best if best is not None else 1 << 40

    del sets
    value = rest(frozenset(), frozenset(), frozenset())
    return 0 if value >= 1 << 40 else value


def _check_saturation(G: nx.DiGraph, M: int, rec: BoundRecord) -> Verdict:
    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    cert = rec.certificate
    U, family = list(cert["U"]), list(cert["saturating_sets"])
    for v in U:
        if v not in G or v in inputs or not _reaches_output_through_compute(G, v, set(outs),
                                                                             inputs):
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    seen: set[str] = set()
    for t in family:
        T, w = list(t["set"]), t["at"]
        if len(T) < 2 or len(set(T)) != len(T) or seen & set(T):
            return Refuted({"set": T}, "sets must have ≥ 2 distinct vertices and be disjoint")
        seen |= set(T)
        if w not in G or w in inputs or not _reaches_output_through_compute(G, w, set(outs),
                                                                             inputs):
            return Refuted({"at": w}, f"{w!r} is not a vertex that must be computed")
        for a in T:
            if a in inputs or not G.has_edge(a, w):
                return Refuted({"vertex": a}, f"{a!r} is not a non-input predecessor of {w!r}")
            size = len(set(G.predecessors(a)) | set(T))
            if size < M:
                return Refuted({"vertex": a}, f"|pred({a}) ∪ T| = {size} < M")
            if (size == M) != (a in t["choices"]):
                return Refuted({"vertex": a}, f"choices must be exactly the a with equality")
        if t["charge"] not in (1, 2) or t["charge"] > (1 if set(T) & set(outs) else 2):
            return Refuted({"set": T}, "charge too large")
    value = _independent_saturation_min(G, M, U, family)
    if value != cert["reads_and_spills"]:
        return Refuted({"claimed": cert["reads_and_spills"], "recomputed": value},
                       "DP minimum differs")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = cert["inputs_outside_U"]
    if len(set(outside)) != len(outside) or any(
            x not in inputs or x in covered or not any(
                _reaches_output_through_compute(G, s, set(outs), inputs)
                for s in G.successors(x)) for x in outside):
        return Refuted({"inputs_outside_U": outside}, "not distinct needed inputs outside U")
    total = value + len(outside) + len(outs)
    if total != rec.value or cert["output_writes"] != len(outs):
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"reads + spills {value} (recomputed by a second DP), {len(outside)} inputs "
                  f"outside U, {len(outs)} output writes")


# --------------------------------------------------------------------------------------------
# Route 6: an exact sub-DAG plus the moves outside it
# --------------------------------------------------------------------------------------------

#: Most vertices of the sub-DAG H solved exactly (its certificate is re-solved by the plain
#: baseline, graphs/baseline.py, which must stay fast).
MAX_SUBDAG_VERTICES = 15


def _closure(G: nx.DiGraph, outs: Iterable[str]) -> frozenset[str]:
    got: set[str] = set(outs)
    for o in outs:
        got |= nx.ancestors(G, o)
    return frozenset(got)


def _subdag(G: nx.DiGraph, outs: list[str]) -> nx.DiGraph:
    H = G.subgraph(_closure(G, outs)).copy()
    H.graph = {"outputs": list(outs)}
    return H


def _outside_moves(G: nx.DiGraph, M: int, H: frozenset[str]) -> dict[str, Any]:
    """Lower bounds on the moves on vertices outside H: input reads (windows counting inputs
    outside H), forced spills with T outside H, and writes of outputs outside H."""
    inputs, outs, N, need = must_compute(G)
    uncounted = frozenset(inputs & H)
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    counted = [v for v in order if any(u in inputs and u not in H for u in G.predecessors(v))]
    tight = [v for v in order if v not in counted and _slack(G, v, M) == 0
             and not any(u in inputs and u not in H for u in G.predecessors(v))]
    limit = MAX_WINDOW_VERTICES
    while True:
        ranked = (sorted(counted, key=lambda v: (_slack(G, v, M), order.index(v)))
                  + tight)[:limit]
        U = [v for v in order if v in set(ranked)]
        got = window_reads_min(G, U, M, uncounted=uncounted)
        if got is not None:
            break
        limit -= 2
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered - H)
    family = forced_spill_sets(G, M, exclude=H)
    writes = sorted(o for o in outs if o not in H)
    return {"U": U, "window_reads": got[0], "inputs_outside": outside,
            "forced_sets": family, "forced_moves": sum(t["charge"] for t in family),
            "output_writes_outside": writes}


def _candidate_output_sets(G: nx.DiGraph, outs: list[str], limit: int,
                           max_candidates: int) -> list[list[str]]:
    """Maximal sets of outputs whose ancestral closure has at most ``limit`` vertices."""
    fits: list[tuple[int, list[str]]] = []
    if len(outs) <= 10:
        for r in range(len(outs), 0, -1):
            for combo in itertools.combinations(outs, r):
                size = len(_closure(G, combo))
                if size <= limit and not any(set(combo) < set(f) for _, f in fits):
                    fits.append((size, list(combo)))
    else:  # greedy: grow from each output in turn
        for start in outs[:max_candidates]:
            chosen = [start]
            for o in outs:
                if o not in chosen and len(_closure(G, chosen + [o])) <= limit:
                    chosen.append(o)
            if len(_closure(G, chosen)) <= limit:
                fits.append((len(_closure(G, chosen)), chosen))
    fits.sort(key=lambda t: -t[0])
    return [f for _, f in fits[:max_candidates]]


def subdag_exact_bound(G: nx.DiGraph, M: int, *, max_vertices: int = MAX_SUBDAG_VERTICES,
                       time_limit: float = 5.0, max_candidates: int = 4) -> BoundRecord:
    """``Q(H, M) + (moves outside H)`` for the best ancestral sub-DAG H found (route 6).

    >>> from attnio.graphs.dags import attention_forward_dag
    >>> r = subdag_exact_bound(attention_forward_dag(2, 1), 4)     # exact optimum 15
    >>> r.value, r.certificate["H_outputs"], r.certificate["Q_H"]
    (10, ['O[0,0]'], 8)
    """
    from attnio.graphs.exact import Optimal, min_cache_size, solve_optimal

    check_cache_size(M)
    inputs, outs, N, need = must_compute(G)
    best: BoundRecord | None = None
    for chosen in _candidate_output_sets(G, outs, max_vertices, max_candidates):
        H = _subdag(G, chosen)
        if M < min_cache_size(H):
            continue
        res = solve_optimal(H, M, time_limit=time_limit, progress=False)
        if not isinstance(res, Optimal):
            continue
        rest = _outside_moves(G, M, frozenset(H))
        value = (res.io + rest["window_reads"] + len(rest["inputs_outside"])
                 + rest["forced_moves"] + len(rest["output_writes_outside"]))
        if best is None or value > best.value:
            cert = {"H_outputs": chosen, "H_vertices": H.number_of_nodes(), "Q_H": res.io,
                    **rest}
            best = BoundRecord("sub-dag-exact", value, True, None, cert)
    if best is None:
        return BoundRecord("sub-dag-exact", 0, False,
                           f"no output set with an ancestral closure of ≤ {max_vertices} "
                           f"vertices solved exactly within {time_limit} s", {})
    return best


def _check_subdag(G: nx.DiGraph, M: int, rec: BoundRecord) -> Verdict:
    from attnio.graphs.baseline import plain_optimal
    from attnio.graphs.exact import Optimal

    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    cert = rec.certificate
    chosen = list(cert["H_outputs"])
    if not chosen or any(o not in outs for o in chosen):
        return Refuted({"H_outputs": chosen}, "H's outputs must be non-input outputs of G")
    H = _subdag(G, chosen)
    if H.number_of_nodes() > 2 * MAX_SUBDAG_VERTICES:
        return Refuted({"H_vertices": H.number_of_nodes()}, "H too large to re-solve")
    plain = plain_optimal(H, M, time_limit=120, max_states=3_000_000)
    if not isinstance(plain, Optimal):
        return Refuted({"H_outputs": chosen}, f"the plain baseline does not settle Q(H): "
                                              f"{plain.status}")
    if plain.io != cert["Q_H"]:
        return Refuted({"claimed": cert["Q_H"], "plain": plain.io},
                       f"Q(H) re-solved by the plain baseline is {plain.io}")
    Hset = frozenset(H)
    U = list(cert["U"])
    for v in U:
        if v not in G or v in inputs or not _reaches_output_through_compute(G, v, set(outs),
                                                                             inputs):
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    window = _independent_window_min(G, U, M, uncounted=frozenset(inputs & Hset))
    if window != cert["window_reads"]:
        return Refuted({"claimed": cert["window_reads"], "recomputed": window},
                       "window minimum differs")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = cert["inputs_outside"]
    if len(set(outside)) != len(outside) or any(
            x not in inputs or x in covered or x in Hset or not any(
                _reaches_output_through_compute(G, s, set(outs), inputs)
                for s in G.successors(x)) for x in outside):
        return Refuted({"inputs_outside": outside}, "not distinct needed inputs outside H, U")
    forced = _verify_forced(G, M, cert["forced_sets"], set(outs), inputs, exclude=Hset)
    if isinstance(forced, Refuted):
        return forced
    writes = cert["output_writes_outside"]
    if len(set(writes)) != len(writes) or any(o not in outs or o in Hset for o in writes):
        return Refuted({"writes": writes}, "not distinct non-input outputs outside H")
    total = plain.io + window + len(outside) + forced + len(writes)
    if total != rec.value:
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"Q(H) = {plain.io} re-solved by the plain baseline ({len(H)} vertices); "
                  f"outside H: window reads {window}, {len(outside)} inputs outside U, "
                  f"forced spills {forced}, {len(writes)} output writes")


# --------------------------------------------------------------------------------------------
# All routes, the best, the checkers
# --------------------------------------------------------------------------------------------


def lower_bounds(G: nx.DiGraph, M: int, *, outputs: Iterable[str] | None = None,
                 timeout_ms: int = 20_000, hong_kung: bool = True,
                 subdag: bool = True, windows: bool = True) -> list[BoundRecord]:
    """Every route's record, in the order compulsory, Hong–Kung, per-part, spill-windows,
    saturation-windows, sub-dag-exact.

    ``hong_kung=False`` skips the z3 partition, ``subdag=False`` the exact sub-DAG,
    ``windows=False`` the two window searches (the records say so). With all three off only
    the routes of bounded cost remain (compulsory, per-part), for DAGs too large to search.
    """
    check_cache_size(M)
    game_inputs(G)  # raises on a cycle or on declared inputs other than the sources
    if outputs is not None:
        G = G.copy()
        G.graph["outputs"] = list(outputs)
    records = [compulsory_bound(G, M)]
    if hong_kung:
        records.append(hong_kung_route(G, M, timeout_ms=timeout_ms))
    else:
        records.append(BoundRecord("hong-kung", 0, False, "skipped (hong_kung=False)", {}))
    records.extend(per_part_routes(G, M))
    if windows:
        records.append(spill_windows_bound(G, M))
        records.append(saturation_windows_bound(G, M))
    else:
        records += [BoundRecord(route, 0, False, "skipped (windows=False)", {})
                    for route in ("spill-windows", "saturation-windows")]
    if subdag:
        records.append(subdag_exact_bound(G, M))
    else:
        records.append(BoundRecord("sub-dag-exact", 0, False, "skipped (subdag=False)", {}))
    return records


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
                      timeout_ms: int = 20_000) -> Verdict:
    """Re-verify ``record``'s certificate on ``G`` from scratch: ``Proved`` or ``Refuted``.

    A record that does not apply must have value 0.

    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> check_certificate(G, 3, BoundRecord("compulsory", 4, True, None,
    ...     {"needed_inputs": ["a", "b"], "written_outputs": ["c"]})).verdict
    'refuted'
    """
    check_cache_size(M)
    if not record.applies:
        if record.value != 0:
            return Refuted({"value": record.value}, "a route that does not apply claims > 0")
        return Proved(f"does not apply ({record.why_not}); value 0")
    try:
        if record.route == "compulsory":
            return _check_compulsory(G, M, record, None)
        if record.route == "hong-kung":
            return _check_hong_kung(G, M, record, timeout_ms)
        if record.route.startswith("per-part: "):
            return _check_per_part(G, M, record)
        if record.route == "spill-windows":
            return _check_spill_windows(G, M, record, None)
        if record.route == "sub-dag-exact":
            return _check_subdag(G, M, record)
        if record.route == "saturation-windows":
            return _check_saturation(G, M, record)
    except (AttnioError, KeyError, TypeError, ValueError) as exc:
        return Refuted({"route": record.route}, f"certificate unusable: {exc}")
    return Refuted({"route": record.route}, f"unknown route {record.route!r}")


#: Largest DAG (vertices) on which :func:`certified_lower_bound` runs every route by default;
#: above it only the routes of bounded cost (compulsory, per-part) run, so that ``attnio
#: pebble --json`` stays inside its time limit (the window searches and the z3 partition grow
#: exponentially with the DAG).
CERTIFIED_ALL_ROUTES_VERTICES = 40


def certified_lower_bound(G: nx.DiGraph, M: int, *, timeout_ms: int = 5_000,
                          all_routes: bool | None = None) -> dict[str, Any]:
    """``{"route", "value"}`` of the best route whose certificate re-verifies (for
    ``attnio pebble --json`` and the sandwich table); valid with and without recomputation.

    ``all_routes=None`` runs every route on DAGs of at most
    :data:`CERTIFIED_ALL_ROUTES_VERTICES` vertices and only the bounded-cost routes above.

    >>> from attnio.graphs.dags import matmul_dag
    >>> certified_lower_bound(matmul_dag(1, 2, 1), 3)
    {'route': 'spill-windows', 'value': 7, 'routes_run': 'all'}
    """
    if all_routes is None:
        all_routes = G.number_of_nodes() <= CERTIFIED_ALL_ROUTES_VERTICES
    records = [r for r in lower_bounds(G, M, timeout_ms=timeout_ms, hong_kung=all_routes,
                                       subdag=all_routes, windows=all_routes)
               if r.applies and check_certificate(G, M, r, timeout_ms=timeout_ms).proved]
    best = best_bound(records)
    return {"route": best.route, "value": int(best.value),
            "routes_run": "all" if all_routes else "bounded-cost (compulsory, per-part)"}
