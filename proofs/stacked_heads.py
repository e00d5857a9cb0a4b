r"""The claims behind :mod:`attnio.bounds.heads` (the stacked-head lower bound: B sequences, H query heads, G K/V heads).

Claims (``attnio verify``): ``heads.stacked_compulsory`` — the compulsory formula equals the
compulsory I/O of the composed B·H-head DAG (:mod:`attnio.graphs.dags` per head, K/V
vertices shared per group, per-head dK/dV summed into the group's outputs, O an input of the
backward as the algorithms read it), counted by :func:`attnio.graphs.anytime.compulsory_io`,
on a grid of small (n, d, B, H, G); ``heads.stacked_segment`` — the brute-force maximum of
designated leaves per segment of stacked and two-group products ≤ the cap, and every route
of :func:`stacked_lower_bound_routes` on a grid incl. n = 4096, d = 64, H = 32, G = 8 is
exactly :math:`\max_L L(\lceil N/cap\rceil - 1)` with :math:`N` counted per product (and
its rest the non-operand compulsory I/O). False twins: K and V counted per query head
(refuted by the DAG count), the cap split among the heads of a group (refuted by the brute
force), every product counted twice (refuted by the route check).
"""

from __future__ import annotations

from typing import Callable

from attnio.bounds.attention import (
    PASSES,
    SEGMENT_MULTIPLES,
    GapBound,
    cached_segment_product_cap,
    segment_product_cap,
    segment_route,
)
from attnio.bounds.heads import (
    MATRICES,
    matrix_words,
    stacked_compulsory,
    stacked_lower_bound_routes,
)
from attnio.graphs.anytime import compulsory_io
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag
from attnio.proofs.attention_routes import pair_leaf_table, segment_cap_excess
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

__all__ = [ "CLAIMS", "FALSE_TWINS"]


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------

def _head_dag(pass_: str, n: int, d: int):
    """One head's DAG (:mod:`attnio.graphs.dags`); backward: plus O as an input of each row's
    D_i (the algorithms compute D = rowsum(dO∘O), so they read O; gap.compulsory)."""

    if pass_ == "forward":
        return attention_forward_dag(n, d)
    G = attention_backward_dag(n, d)
    for i in range(n):
        for a in range(d):
            G.add_node(f"O[{i},{a}]", op="input", role="input", matrix="O", index=(i, a))
            G.add_edge(f"O[{i},{a}]", f"D[{i}]")
    return G


def _stacked_dag(pass_: str, n: int, d: int, batch: int, heads: int, kv: int):
    """The B·H-head DAG: each head's copy, K/V vertices shared by the group, each head's dK,
    dV (its partial) summed by a chain into the group's output; returns (DAG, outputs)."""
    import networkx as nx

    base = _head_dag(pass_, n, d)
    group = heads // kv
    G: nx.DiGraph = nx.DiGraph()
    outputs: list[str] = []
    partials: dict[str, list[str]] = {}
    for b in range(batch):
        for h in range(heads):
            g = h // group

            def name(v: str, b: int = b, h: int = h, g: int = g) -> str:
                shared = base.nodes[v].get("matrix") in ("K", "V")
                return f"b{b}g{g}:{v}" if shared else f"b{b}h{h}:{v}"

            G.add_nodes_from(name(v) for v in base)
            G.add_edges_from((name(u), name(v)) for u, v in base.edges)
            for v in base.graph["outputs"]:
                if base.nodes[v]["matrix"] in ("dK", "dV"):
                    partials.setdefault(f"b{b}g{g}:{v}", []).append(name(v))
                else:
                    outputs.append(name(v))
    for total, parts in partials.items():  # a chain of adds over the group's partials
        acc = parts[0]
        for k, part in enumerate(parts[1:], 1):
            nxt = total if k == len(parts) - 1 else f"{total}#{k}"
            G.add_edge(acc, nxt)
            G.add_edge(part, nxt)
            acc = nxt
        outputs.append(acc)
    return G, outputs


#: (pass, n, d, batch, heads, kv_heads) of the DAG count.
_DAG_GRID = [(p, n, d, B, H, G) for p in PASSES for n, d in ((2, 1), (2, 2))
             for B, H, G in ((1, 1, 1), (1, 2, 1), (1, 2, 2), (2, 2, 1), (1, 4, 2), (1, 3, 1))]


def _compulsory_check(ctx: CheckContext, *,
                      formula: Callable[..., int] = stacked_compulsory) -> Verdict:
    """The formula against the compulsory I/O of the composed DAG, counted vertex by vertex."""

    checked = 0
    for pass_, n, d, B, H, G in _DAG_GRID:
        dag, outputs = _stacked_dag(pass_, n, d, B, H, G)
        counted = compulsory_io(dag, outputs)
        value = formula(pass_, n, d, batch=B, heads=H, kv_heads=G)
        checked += 1
        if value != counted:
            return Refuted({"pass": pass_, "n": n, "d": d, "batch": B, "heads": H,
                            "kv_heads": G, "formula": value, "dag": counted},
                           "the compulsory formula differs from the composed DAG's count")
    return Proved(f"{checked} composed DAGs: formula = inputs with a successor + outputs",
                  evidence=Evidence.exhaustive(checked, checked))


def _leaf_table(groups: int, g: int, n: int, d: int) -> list[tuple[int, int, list[int]]]:
    """Every segment shape of ``groups`` disjoint stacked products, each a (g·n)×d by d×n
    product (X: the g heads' query rows, Y: the group's K): ``(|A| + |B|, leaves of full
    pairs, prefix sums of the partial pairs' leaf counts, largest first)``, as
    :func:`attnio.proofs.attention_routes.pair_leaf_table` (row x of X pairs with row y of Y iff they
    belong to the same group)."""
    rows_x, rows_y = groups * g * n, groups * n
    return pair_leaf_table(rows_x, rows_y, d, [(x, y) for x in range(rows_x)
                                                for y in range(rows_y)
                                                if x // (g * n) == y // n])


#: (groups, g, n, d) of the brute force: stacked groups (g > 1) and two disjoint groups.
_BRUTE_SHAPES = [(1, 2, 2, 1), (1, 3, 2, 1), (1, 4, 1, 2), (1, 2, 2, 2), (2, 2, 1, 2),
                 (2, 1, 2, 1)]
#: (pass, n, d, M, batch, heads, kv_heads) of the route check.
_ROUTE_GRID = [(p, n, d, M, B, H, G) for p in PASSES
               for n, d in ((4096, 64), (1024, 16), (256, 64))
               for M in (64, 1024, 16384, 278528, 1327104)
               for B, H, G in ((1, 1, 1), (1, 32, 8), (2, 8, 1), (1, 4, 4))]


def _segment_check(ctx: CheckContext, *,
                   cap: Callable[[int, int, int], int] = cached_segment_product_cap,
                   routes: Callable[..., list[GapBound]] = stacked_lower_bound_routes
                   ) -> Verdict:
    """Brute force (designated leaves of stacked products per segment ≤ cap) and the routes'
    exact form (N counted per product over B·H heads; rest = non-operand compulsory)."""
    checked = nontrivial = 0
    for groups, g, n, d in _BRUTE_SHAPES:
        table = _leaf_table(groups, g, n, d)
        for M in (1, 2, 3):
            done, hard, excess = segment_cap_excess(table, d, M, cap)
            checked, nontrivial = checked + done, nontrivial + hard
            if excess is not None:
                L, value, most = excess
                return Refuted({"groups": groups, "group": g, "n": n, "d": d, "M": M,
                                "L": L, "cap": value, "brute_force": most},
                               "a segment holds more designated leaves of a stacked "
                               "product than the cap")
    for pass_, n, d, M, B, H, G in _ROUTE_GRID:
        for cls in (("forward",) if pass_ == "forward" else ("recompute", "given-scores")):
            N = {"forward": 1, "recompute": 2, "given-scores": 1}[cls] * B * H * n * n * d
            permitted = {t * M: t * M * max(0, -(-N // cap(d, M, t * M)) - 1)
                         for t in SEGMENT_MULTIPLES}
            best = max(permitted.values())
            rest = sum(matrix_words(kind, n, d, B, H, G)
                       for kind, operand in MATRICES[cls].values() if not operand)
            for r in routes(pass_, n, d, M, cls, batch=B, heads=H, kv_heads=G):
                if r.claim_id != "heads.stacked_segment":
                    continue
                checked += 1
                nontrivial += r.value > 0
                extra = rest if r.route.endswith("compulsory rest") else 0
                if r.value - extra > best:
                    return Refuted({"pass": pass_, "n": n, "d": d, "M": M, "batch": B,
                                    "heads": H, "kv_heads": G, "class": cls, "route": r.route,
                                    "bound": r.value, "permitted": best + extra},
                                   "a stacked route exceeds max_L L(⌈N/cap⌉ − 1) (+ rest)")
                if r.value - extra < best:
                    return Refuted({"pass": pass_, "class": cls, "route": r.route,
                                    "bound": r.value, "best": best + extra},
                                   "a stacked route is not the maximum over segment lengths")
    return Proved(f"{checked} brute-force segment shapes and stacked routes, exact integers",
                  evidence=Evidence.exhaustive(checked, nontrivial))


def _kv_per_query_head(pass_: str, n: int, d: int, *, batch: int = 1, heads: int = 1,
                       kv_heads: int | None = None) -> int:
    """False: K and V (and dK, dV) counted once per query head."""
    return stacked_compulsory(pass_, n, d, batch=batch, heads=heads, kv_heads=heads)


def _cap_per_head(d: int, M: int, L: int) -> int:
    """False: a segment's budget split between the heads of a group (cap / 2)."""
    return max(1, segment_product_cap(d, M, L) // 2)


def _routes_counted_twice(pass_: str, n: int, d: int, M: int, cls: str, **shape: int
                          ) -> list[GapBound]:
    """False: every product counted twice (N = 2 × families · B·H·n²d)."""
    return stacked_lower_bound_routes(
        pass_, n, d, M, cls, **shape,
        route=lambda n, d, M, products, cap: segment_route(n, d, M, products=2 * products,
                                                           cap=cap))


_SRC = ("attnio (ours; notes/gap.md 'Many heads'): the segment argument of "
        "attnio.bounds.attention on the stacked products, per-product counting; issue 21")


def _claim(id: str, statement: str, formal: str, check, *, twin_of: str | None = None,
           expect_reason: str = "") -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC,
                 method="exact enumeration", family="heads", check_fn=check,
                 reconstructed=True, twin_of=twin_of, expect_reason=expect_reason,
                 evidence_kind="exhaustive")


CLAIMS: list[Claim] = [
    _claim("heads.stacked_compulsory",
           "compulsory I/O of B·H query heads in B·G K/V groups = B(H·q + G·k): forward q = 2nd "
           "(Q, O), k = 2nd (K, V); backward q = 4nd (Q, O, dO, dQ), k = 4nd (K, V, dK, dV)",
           "formula == compulsory_io(composed DAG) on (n, d) ≤ (2, 2), B·H ≤ 4", _compulsory_check),
    _claim("heads.stacked_segment",
           "a segment of L I/Os holds ≤ F(L) designated leaves of the stacked products of any "
           "heads (X rows of any number); Q ≥ L(⌈N/F⌉ − 1), N = families·B·H·n²d, + the "
           "non-operand compulsory rest",
           "brute force over segment shapes of stacked / two-group products ≤ cap; every "
           "stacked route == max_L L(⌈N/cap⌉ − 1) (+ rest), exact ints", _segment_check),
]

FALSE_TWINS: list[Claim] = [
    _claim("heads.twin.kv_per_query_head",
           "K, V, dK, dV count once per query head under GQA: compulsory = B·H·(q + k)",
           "B·H·(q + k) == compulsory_io(composed DAG)",
           lambda ctx: _compulsory_check(ctx, formula=_kv_per_query_head),
           twin_of="heads.stacked_compulsory",
           expect_reason="the compulsory formula differs from the composed DAG's count"),
    _claim("heads.twin.cap_split_by_head",
           "a segment holds ≤ F(L)/2 designated leaves of a two-or-more-head group",
           "brute force ≤ cap // 2",
           lambda ctx: _segment_check(ctx, cap=_cap_per_head), twin_of="heads.stacked_segment",
           expect_reason="more designated leaves of a stacked product than the cap"),
    _claim("heads.twin.products_counted_twice",
           "N = 2·families·B·H·n²d (each product counted twice)",
           "route == max_L L(⌈N/cap⌉ − 1) with the doubled N",
           lambda ctx: _segment_check(ctx, routes=_routes_counted_twice),
           twin_of="heads.stacked_segment",
           expect_reason="a stacked route exceeds max_L L(⌈N/cap⌉ − 1)"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
