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
:func:`attnio.graphs.partitions.check_hong_kung_hypotheses`): outputs = sinks, no isolated
vertex.

``per-part: <name>``: the per-part counting routes of
:func:`attnio.proofs.explicit_bounds.explicit_routes` (:math:`M(\lceil N/\beta(2M)\rceil - 1)`)
for the built-in matmul / attention DAGs whose sizes are known (``G.graph["builder"]``).
"""

from __future__ import annotations

from typing import Any, Iterable

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import check_cache_size, game_inputs, game_outputs
from attnio.graphs.lower_bounds.records import (BoundRecord, _reaches_output_through_compute,
                                                must_compute)
from attnio.results import Proved, Refuted, Verdict

__all__ = ["compulsory_bound", "hong_kung_route", "per_part_routes"]


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
    builder = G.graph.get("builder", "")
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
