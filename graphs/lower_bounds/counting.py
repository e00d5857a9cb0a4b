r"""Routes 1–3 of :mod:`attnio.graphs.lower_bounds`: compulsory I/O, Hong–Kung with exact
P(G, 2M), and the per-part counting routes of the built-in DAGs — each with its checker.

Notation (I, O*, N, I_N and the game's conventions) as in :mod:`attnio.graphs.lower_bounds`.

Routes
------
``compulsory`` (folklore; e.g. Hong–Kung 1981 §3 "every input read once, every output written
once", adapted to those conventions):  :math:`Q \ge |I_N| + |O^\ast|`. Each needed input
is read at least once (the only way to make an input red), each non-input output written at
least once; these are distinct moves.

``hong-kung``: :math:`Q \ge M(P(G, 2M) - 1)` (Hong–Kung 1981 Lemma 3.1 = Saha–Ye arXiv
2402.07443 Lemma 2.8, inputs = sources convention) with :math:`P(G, 2M)` exact from
:func:`attnio.graphs.partitions.min_partition_parts`. Hypotheses (checked by
:func:`attnio.graphs.partitions.validate_hong_kung_hypotheses`): outputs = sinks, no isolated
vertex.

``per-part: <name>``: the per-part counting routes of
:func:`attnio.proofs.explicit_bounds.explicit_routes` (:math:`M(\lceil N/\beta(2M)\rceil - 1)`)
for the built-in matmul / attention DAGs whose sizes are known (``G.graph["builder"]``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import game_inputs, game_outputs, validate_cache_size
from attnio.graphs.lower_bounds.deadline import Deadline, TimeLimitReached, as_deadline
from attnio.graphs.lower_bounds.records import (
    BoundRecord,
    Route,
    must_compute,
    vertices_to_compute,
)
from attnio.results import Proved, Refuted, Verdict
from attnio.validation import describe, positive_int

__all__ = ["compulsory_bound", "hong_kung_route", "per_part_routes", "builtin_structure",
           "validate_declared_builder",
           "check_compulsory", "check_hong_kung", "check_per_part", "MAX_HONG_KUNG_VERTICES",
           "COMPULSORY", "HONG_KUNG", "PER_PART", "ROUTES"]

#: Largest DAG (vertices) on which the ``hong-kung`` route runs z3. Its greedy partition costs
#: one max-flow per vertex and its encoding one bounded-set encoding per part, neither
#: interruptible inside a step; at this size a step takes well under a second, so the route
#: and its checker keep to their deadline (z3 itself is rarely decisive far below this size).
MAX_HONG_KUNG_VERTICES = 150


# --------------------------------------------------------------------------------------------
# Route 1: compulsory I/O
# --------------------------------------------------------------------------------------------


def compulsory_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None) -> BoundRecord:
    """``|I_N| + |O*|``: each needed input read once, each non-input output written once.

    >>> import networkx as nx
    >>> compulsory_bound(nx.DiGraph([("a", "c"), ("b", "c")]), 3).value
    3
    """
    validate_cache_size(M)
    _, outs, _, need = must_compute(G, outputs)
    cert = {"needed_inputs": sorted(need), "written_outputs": sorted(outs),
            "reads": len(need), "writes": len(outs)}
    return BoundRecord("compulsory", len(need) + len(outs), True, None, cert)


def check_compulsory(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                     deadline: Deadline | None = None,
                     timeout_ms: int | None = None) -> Verdict:
    """Re-verify a ``compulsory`` certificate (``needed_inputs``, ``written_outputs``) from G.

    The lists are read as sets (a vertex listed twice is one move).

    Side conditions
    ---------------
    1. ``read-is-input``: every vertex of ``needed_inputs`` is an input (a source).
    2. ``read-is-needed``: every vertex of ``needed_inputs`` has a successor in N (a vertex
       every schedule computes); an input that feeds only unneeded vertices need never be read.
    3. ``write-is-output``: every vertex of ``written_outputs`` is an output.
    4. ``write-is-not-input``: no vertex of ``written_outputs`` is an input (an input output
       is blue from the start: it needs no write).
    5. ``value-is-count``: value = |needed_inputs| + |written_outputs| (as sets).

    >>> G = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> check_compulsory(G, 3, compulsory_bound(G, 3)).proved
    True
    """
    inputs = set(game_inputs(G))
    outs = set(game_outputs(G))
    computed = vertices_to_compute(G, outs, inputs)
    cert = rec.certificate
    reads, writes = set(cert["needed_inputs"]), set(cert["written_outputs"])
    for x in reads:
        if x not in inputs:
            return Refuted({"vertex": x}, f"{x!r} is not an input")
        if not any(s in computed for s in G.successors(x)):
            return Refuted({"vertex": x}, f"input {x!r} feeds no vertex that must be computed")
    for o in writes:
        if o not in outs or o in inputs:
            return Refuted({"vertex": o}, f"{o!r} is not a non-input output")
    if rec.value != len(reads) + len(writes):
        return Refuted({"value": rec.value}, f"value {rec.value} ≠ {len(reads)} + {len(writes)}")
    return Proved(f"{len(reads)} needed inputs read + {len(writes)} outputs written")


def describe_compulsory(cert: dict[str, Any]) -> str:
    """One line of a ``compulsory`` certificate.

    >>> describe_compulsory({"reads": 2, "writes": 1})
    '2 needed inputs read + 1 non-input outputs written'
    """
    return f"{cert['reads']} needed inputs read + {cert['writes']} non-input outputs written"


def _compulsory_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                        timeout_ms: int) -> list[BoundRecord]:
    return [compulsory_bound(G, M)]


COMPULSORY = Route(
    "compulsory", compute=_compulsory_records, check=check_compulsory, cost="linear",
    source="folklore (every needed input read, every output written once); game conventions "
           "of attnio.graphs.game",
    reconstructed=False, describe=describe_compulsory)


# --------------------------------------------------------------------------------------------
# Route 2: Hong–Kung with exact P(G, 2M)
# --------------------------------------------------------------------------------------------


def hong_kung_route(G: nx.DiGraph, M: int, *, timeout_ms: int = 20_000,
                    deadline: Deadline | None = None) -> BoundRecord:
    """``M·(P(G, 2M) − 1)`` with P exact; does not apply when HK's hypotheses fail or the
    DAG has more than :data:`MAX_HONG_KUNG_VERTICES` vertices.

    Each z3 call gets ``timeout_ms`` or the time left before ``deadline``, whichever is less;
    past the deadline: :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached`.

    >>> from attnio.graphs.dags import matmul_dag
    >>> hong_kung_route(matmul_dag(1, 4, 1), 3).value
    3
    """
    from attnio.graphs.partitions import min_partition_parts, validate_hong_kung_hypotheses

    validate_cache_size(M)
    dl = as_deadline(deadline)
    try:
        validate_hong_kung_hypotheses(G)
    except InvalidInputError as exc:
        return BoundRecord("hong-kung", 0, False, str(exc), {})
    if G.number_of_nodes() > MAX_HONG_KUNG_VERTICES:
        return BoundRecord("hong-kung", 0, False,
                           f"the DAG has {G.number_of_nodes()} vertices; the z3 partition runs "
                           f"on at most MAX_HONG_KUNG_VERTICES={MAX_HONG_KUNG_VERTICES}", {})
    dl.check()
    part = min_partition_parts(G, 2 * M, timeout_ms=dl.timeout_ms(timeout_ms),
                               deadline=None if dl.at == float("inf") else dl.at)
    if not part.exact and part.detail == "time limit reached":
        raise TimeLimitReached("time limit reached")
    cert = {"S": 2 * M, "P": part.upper if part.exact else None, "lower": part.lower,
            "upper": part.upper, "detail": part.detail,
            "partition": [sorted(map(str, p)) for p in part.parts]}
    if not part.exact:
        return BoundRecord("hong-kung", 0, False, f"P(G, 2M) undecided: {part.detail}", cert)
    return BoundRecord("hong-kung", M * (part.value - 1), True, None, cert)


def check_hong_kung(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                    deadline: Deadline | None = None, timeout_ms: int = 20_000) -> Verdict:
    """Re-verify a ``hong-kung`` certificate (``P``, ``partition``) from G: a fresh z3 run
    must refute every 2M-partition with P − 1 parts (each z3 call gets ``timeout_ms`` or the
    time left before ``deadline``; an unknown is never a pass).

    Side conditions
    ---------------
    1. ``hypotheses``: HK Lemma 3.1's hypotheses hold on G (outputs = the sinks, no
       isolated vertex; raises InvalidInputError otherwise, which
       :func:`~attnio.graphs.lower_bounds.check_certificate` reports as Refuted).
    2. ``value-is-formula``: ``P`` is an int and value = M·(P − 1).
    3. ``partition-valid``: the certificate's partition is a 2M-partition of G.
    4. ``partition-has-p-parts``: it has exactly P non-empty parts.
    5. ``p-is-least``: a fresh z3 run finds no 2M-partition with fewer than P parts
       (P ≤ 1 needs none: the bound is then 0).
    """
    from attnio.graphs.partitions import (
        is_s_partition,
        min_partition_parts,
        validate_hong_kung_hypotheses,
    )

    dl = as_deadline(deadline)
    validate_hong_kung_hypotheses(G)
    cert = rec.certificate
    P = cert["P"]
    if not isinstance(P, int) or rec.value != M * (P - 1):
        return Refuted({"value": rec.value, "P": P}, "value ≠ M·(P − 1)")
    parts = [set(p) for p in cert["partition"]]
    check = is_s_partition(G, parts, 2 * M)
    if not check.ok or len([p for p in parts if p]) != P:
        return Refuted({"P": P}, f"certificate partition rejected: {check.reason}")
    if P <= 1:
        return Proved("P = 1: the bound is 0")
    dl.check()
    again = min_partition_parts(G, 2 * M, timeout_ms=dl.timeout_ms(timeout_ms),
                                deadline=None if dl.at == float("inf") else dl.at)
    if again.lower < P and again.detail == "time limit reached":  # undecided, never a pass
        raise TimeLimitReached("time limit reached")
    if again.lower < P:  # (z3 unknown within its own budget is a rejection, as before)
        return Refuted({"P": P, "lower": again.lower},
                       f"a fresh z3 run does not certify P ≥ {P} (lower {again.lower})")
    return Proved(f"{2 * M}-partition with {P} parts checked; P − 1 parts re-refuted by z3")


# --------------------------------------------------------------------------------------------
# Route 3: the per-part counting routes (built-in DAGs)
# --------------------------------------------------------------------------------------------

_KIND_OF_BUILDER = {"matmul": "matmul", "attention-forward": "attention-forward",
                    "attention-backward": "attention-backward"}
PER_PART_NAMES = ("matmul products", "Saha-Ye level-1")
_SIZE_KEYS = {"matmul": ("m", "k", "p"), "attention-forward": ("n", "d"),
              "attention-backward": ("n", "d")}
_CHOICES = {"summation": ("tree", "chain", "fma"), "gradient": ("qkv", "dX")}


def builtin_structure(G: nx.DiGraph) -> tuple[str | None, dict[str, Any], str | None]:
    """``(kind, sizes, why_not)`` of a DAG that declares a built-in builder, **confirmed by
    its structure**: the declared ``G.graph["params"]`` rebuild, with the builder of
    :mod:`attnio.graphs.dags`, exactly this DAG (the same vertices, edges and the ``op`` /
    ``product_of`` attributes the per-part lemmas count). ``kind`` is None (and ``why_not``
    says why) when no known builder is declared or the declaration has a mask.

    The per-part lemmas are stated for the built-in DAGs and their bounds are computed from
    the sizes, so a declaration the structure does not confirm must not produce a bound: a
    file whose metadata claims m = k = p = 50 on 7 vertices would otherwise "prove" 53571.

    Raises
    ------
    InvalidInputError
        ``builder`` not a string, ``params`` not an object, a size that is not a positive
        integer, an unknown ``summation`` / ``gradient``, or sizes that do not rebuild this
        DAG (one line naming the key or the first difference).

    >>> from attnio.graphs.dags import matmul_dag
    >>> builtin_structure(matmul_dag(1, 2, 1))[:2]
    ('matmul', {'m': 1, 'k': 2, 'p': 1, 'summation': 'tree'})
    >>> G = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> G.graph.update(builder="matmul", params={"m": 50, "k": 50, "p": 50})
    >>> builtin_structure(G)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: graph.params {'m': 50, 'k': 50, 'p': 50} do not describe this DAG: a matmul DAG with these sizes has at least 125000 vertices, this one 3
    """
    builder = G.graph.get("builder")
    if builder is None:
        return None, {}, ("needs a built-in matmul or attention DAG (its sizes are part of the "
                          "per-part lemma); this DAG has no known builder")
    if not isinstance(builder, str):
        raise InvalidInputError(f"graph.builder={describe(builder)} must be a string")
    kind = _KIND_OF_BUILDER.get(builder)
    if kind is None:
        return None, {}, (f"needs a built-in matmul or attention DAG; builder "
                          f"{describe(builder)} has no per-part lemma")
    params = G.graph.get("params")
    if not isinstance(params, dict):
        raise InvalidInputError(f"graph.params={describe(params)} must be an object with the "
                                f"{kind} builder's sizes {', '.join(_SIZE_KEYS[kind])}")
    sizes: dict[str, Any] = {}
    for key in _SIZE_KEYS[kind]:
        sizes[key] = positive_int(f"graph.params.{key}", params.get(key))
    for key, allowed in _CHOICES.items():
        if key in params and params[key] is not None:
            if not isinstance(params[key], str) or params[key] not in allowed:
                raise InvalidInputError(f"graph.params.{key}={describe(params[key])} must be "
                                        f"one of {', '.join(allowed)}")
            if key == "gradient" and kind != "attention-backward":
                continue
            sizes[key] = params[key]
    if kind != "matmul":
        if params.get("mask") is not None:
            return None, {}, "the per-part count assumes n² score entries (no mask)"
        sizes["mask"] = None
    _confirm_rebuild(G, kind, sizes, params)
    return kind, sizes, None


def validate_declared_builder(G: nx.DiGraph) -> nx.DiGraph:
    """``G``, once the builder and sizes its metadata declares are confirmed by its structure
    (:func:`builtin_structure`): the check a command makes where a DAG file enters, for every
    output format (issue 40: ``pebble --dag F`` refused a lying file only with ``--json``,
    where the certified bound read the metadata). A DAG that declares no builder, or one
    without a per-part lemma, passes unchanged.

    Raises
    ------
    InvalidInputError
        The metadata is malformed or does not describe ``G`` (one line, as
        :func:`builtin_structure`).

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> validate_declared_builder(G) is G
    True
    >>> G.graph["params"] = {"m": 1, "k": 3, "p": 1}
    >>> validate_declared_builder(G)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: graph.params {'m': 1, 'k': 3, 'p': 1} do not describe this DAG: a matmul DAG with these sizes has 11 vertices and 10 edges, this one 7 and 6
    """
    builtin_structure(G)
    return G


def _confirm_rebuild(G: nx.DiGraph, kind: str, sizes: dict[str, Any],
                     params: dict[str, Any]) -> None:
    """Raise unless the builder, given ``sizes``, rebuilds exactly ``G`` (cheap counts first,
    so huge declared sizes are refused before anything is built)."""
    from attnio.graphs.dags import expected_size, shown_count, size_floor

    shown = describe(params, 80)
    n_vertices = G.number_of_nodes()
    floor = size_floor(kind, **sizes)
    if floor > n_vertices:
        raise InvalidInputError(f"graph.params {shown} do not describe this DAG: a {kind} DAG "
                                f"with these sizes has {shown_count(floor)} vertices, this one "
                                f"{n_vertices}")
    want = expected_size(kind, **sizes)
    have = (n_vertices, G.number_of_edges())
    if want != have:
        raise InvalidInputError(f"graph.params {shown} do not describe this DAG: a {kind} DAG "
                                f"with these sizes has {want[0]} vertices and {want[1]} edges, "
                                f"this one {have[0]} and {have[1]}")
    try:
        ref = _reference_dag(kind, tuple(sorted((k, v) for k, v in sizes.items()
                                                if k != "mask")))
    except InvalidInputError as exc:
        raise InvalidInputError(f"graph.params {shown}: {exc}") from None
    for v in ref:
        if v not in G:
            raise InvalidInputError(f"graph.params {shown} do not describe this DAG: the "
                                    f"{kind} DAG has vertex {describe(v)}, this one does not")
        for key in ("op", "product_of"):
            if G.nodes[v].get(key) != ref.nodes[v].get(key):
                raise InvalidInputError(
                    f"graph.params {shown} do not describe this DAG: vertex {describe(v)} has "
                    f"{key}={describe(G.nodes[v].get(key))}, the {kind} DAG "
                    f"{describe(ref.nodes[v].get(key))}")
    for u, v in ref.edges:
        if not G.has_edge(u, v):
            raise InvalidInputError(f"graph.params {shown} do not describe this DAG: the "
                                    f"{kind} DAG has edge {describe([u, v])}, this one does not")


@lru_cache(maxsize=4)
def _reference_dag(kind: str, sizes: tuple[tuple[str, Any], ...]) -> nx.DiGraph:
    """The built-in DAG of ``kind`` with ``sizes`` (cached: the route, its two checks and the
    command line's up-front check compare against one build; callers only read it)."""
    from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag

    got = dict(sizes)
    if kind == "matmul":
        return matmul_dag(got["m"], got["k"], got["p"], got.get("summation", "tree"))
    if kind == "attention-forward":
        return attention_forward_dag(got["n"], got["d"], summation=got.get("summation", "tree"))
    return attention_backward_dag(got["n"], got["d"], got.get("gradient", "qkv"),
                                  summation=got.get("summation", "tree"))


def per_part_routes(G: nx.DiGraph, M: int, *,
                    deadline: Deadline | None = None) -> list[BoundRecord]:
    """The per-part counting routes of :mod:`attnio.proofs.explicit_bounds`, on a DAG whose
    declared builder and sizes its structure confirms (:func:`builtin_structure`; a
    declaration it refutes raises InvalidInputError) and which meets HK Lemma 3.1's
    hypotheses (the lemmas go through it).

    >>> from attnio.graphs.dags import matmul_dag
    >>> [(r.route, r.value) for r in per_part_routes(matmul_dag(2, 2, 2), 3)]
    [('per-part: matmul products', 3), ('per-part: Saha-Ye level-1', 0)]
    """
    validate_cache_size(M)
    dl = as_deadline(deadline)
    kind, sizes, why = builtin_structure(G)
    if kind is None:
        return [BoundRecord(f"per-part: {name}", 0, False, why, {}) for name in PER_PART_NAMES]
    dl.check()  # the lemmas' module imports sympy (about a second): not past the deadline
    from attnio.graphs.lower_bounds.explicit import explicit_routes
    from attnio.graphs.partitions import validate_hong_kung_hypotheses

    try:
        validate_hong_kung_hypotheses(G)
        values = explicit_routes(kind, sizes, M)
    except InvalidInputError as exc:
        return [BoundRecord(f"per-part: {name}", 0, False, str(exc), {})
                for name in PER_PART_NAMES]
    out = []
    for name in PER_PART_NAMES:
        dl.check()
        if name not in values:
            out.append(BoundRecord(f"per-part: {name}", 0, False,
                                   f"the {name} lemma does not apply to {kind}", {}))
            continue
        counted, beta = _per_part_parameters(G, kind, sizes, name, M)
        if partition_route_value(counted, beta, M) != values[name]:
            # the count on the DAG itself must give the lemma's value (it does on a confirmed
            # built-in DAG); anything else is never reported as a bound
            out.append(BoundRecord(f"per-part: {name}", 0, False,
                                   f"the count on the DAG ({counted} vertices, ≤ {beta} per "
                                   f"part) differs from the sizes' formula", {}))
            continue
        out.append(BoundRecord(f"per-part: {name}", values[name], True, None,
                               {"kind": kind, "sizes": {k: v for k, v in sizes.items()
                                                        if v is not None},
                                "counted": counted, "part_bound": beta, "S": M,
                                "formula": "S·(⌈counted/part_bound⌉ − 1)"}))
    return out


def partition_route_value(counted: int, beta: int, M: int) -> int:
    """M·(⌈N/β⌉ − 1), floored at 0 (:func:`attnio.proofs.explicit_bounds.partition_route_bound`)."""
    from attnio.graphs.lower_bounds.explicit import partition_route_bound

    return partition_route_bound(counted, beta, M)


def _per_part_parameters(G: nx.DiGraph, kind: str, sizes: dict[str, Any], name: str,
                         M: int) -> tuple[int, int]:
    """``(N, β(2M))`` counted from the DAG itself (not from the sizes)."""
    from attnio.graphs.dags import level1_vertices
    from attnio.graphs.lower_bounds.parts import matmul_part_bound, product_vertices, sy_part_bound

    tag = "AB" if kind == "matmul" else "QK"
    if name == "matmul products":
        return len(product_vertices(G, tag)), matmul_part_bound(2 * M)
    level1 = level1_vertices(G, tag)
    depth = sizes["k"] if kind == "matmul" else sizes["d"]
    roots = [v for v in level1 if not any(G.nodes[s].get("product_of") == tag
                                          for s in G.successors(v))]
    tree = len(level1) // max(1, len(roots))
    return len(level1), sy_part_bound(2 * M, depth, tree)


def check_per_part(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                   deadline: Deadline | None = None,
                   timeout_ms: int | None = None) -> Verdict:
    """Re-verify a ``per-part: <lemma>`` certificate (``kind``, ``counted``, ``part_bound``)
    from G: the counts are recounted on the DAG itself, never read from its metadata.

    Side conditions
    ---------------
    1. ``hypotheses``: HK Lemma 3.1's hypotheses hold on G (the lemmas go through it).
    2. ``builtin-confirmed``: G declares a built-in builder whose sizes rebuild exactly G
       (:func:`builtin_structure`), and the certificate's ``kind`` is that builder's.
    3. ``recount``: ``counted`` and ``part_bound`` equal N and β(2M) counted on G for the
       record's lemma.
    4. ``value-is-formula``: value = M·(⌈N/β⌉ − 1), floored at 0.
    """
    from attnio.graphs.lower_bounds.explicit import partition_route_bound
    from attnio.graphs.partitions import validate_hong_kung_hypotheses

    validate_hong_kung_hypotheses(G)  # the route goes through HK Lemma 3.1
    cert = rec.certificate
    kind, sizes, why = builtin_structure(G)
    if kind is None or cert["kind"] != kind:
        return Refuted({"kind": cert["kind"]}, why or "certificate names another kind")
    name = rec.route.removeprefix("per-part: ")
    counted, beta = _per_part_parameters(G, kind, sizes, name, M)
    if (counted, beta) != (cert["counted"], cert["part_bound"]):
        return Refuted({"counted": counted, "part_bound": beta},
                       f"recounted N = {counted}, β = {beta} differ from the certificate")
    value = partition_route_bound(counted, beta, M)
    if value != rec.value:
        return Refuted({"value": rec.value, "recomputed": value}, "value differs")
    return Proved(f"N = {counted} counted vertices recounted, β(2M) = {beta}: "
                  f"{M}·(⌈{counted}/{beta}⌉ − 1) = {value}")


def describe_hong_kung(cert: dict[str, Any]) -> str:
    """One line of a ``hong-kung`` certificate.

    >>> describe_hong_kung({"S": 2, "P": 3, "detail": "z3", "partition": [[1], [2], [3]]})
    'P(G, 2) = 3 (z3); certificate partition with 3 parts'
    """
    return (f"P(G, {cert['S']}) = {cert['P']} ({cert['detail']}); certificate partition with "
            f"{len(cert['partition'])} parts")


def describe_per_part(cert: dict[str, Any]) -> str:
    """One line of a ``per-part`` certificate.

    >>> describe_per_part({"counted": 8, "part_bound": 11, "S": 4})
    '8 counted vertices, ≤ 11 per part of a 8-partition'
    """
    return (f"{cert['counted']} counted vertices, ≤ {cert['part_bound']} per part of a "
            f"{2 * cert['S']}-partition")


def _hong_kung_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                       timeout_ms: int) -> list[BoundRecord]:
    return [hong_kung_route(G, M, timeout_ms=timeout_ms, deadline=deadline)]


def _per_part_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                      timeout_ms: int) -> list[BoundRecord]:
    return per_part_routes(G, M, deadline=deadline)


HONG_KUNG = Route(
    "hong-kung", compute=_hong_kung_records, check=check_hong_kung, cost="search",
    source="Hong–Kung 1981 Lemma 3.1 = Saha–Ye arXiv 2402.07443 Lemma 2.8 (inputs = sources)",
    reconstructed=False, describe=describe_hong_kung, switch="hong_kung")

PER_PART = Route(
    "per-part", compute=_per_part_records, check=check_per_part, cost="linear",
    source="Hong–Kung 1981 Lemma 3.1 + per-part lemmas (attnio.proofs.partition_lemmas; "
           "Saha–Ye Lemma 3.3 RECONSTRUCTED)",
    reconstructed=True, describe=describe_per_part,
    records=tuple(f"per-part: {name}" for name in PER_PART_NAMES))

#: The routes of this module, in the order they run (:mod:`attnio.graphs.lower_bounds.registry`).
ROUTES = (COMPULSORY, HONG_KUNG, PER_PART)
