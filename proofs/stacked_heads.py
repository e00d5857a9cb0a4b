r"""The stacked-head lower bound: B sequences, H query heads, G K/V heads (issue 21).

Shapes: ``batch`` B, ``heads`` H query heads, ``kv_heads`` G K/V heads, H a multiple of G; the
g = H/G query heads of a group share one K and one V (GQA; MQA: G = 1; multi-head: G = H).
Every quantity is an exact ``int``; every bound holds for every schedule of the red-blue
pebble game with :math:`M` red pebbles (Hong & Kung 1981; inputs are sources, never
computed; recomputation allowed) on the B·H-head computation of the class named
(:data:`attnio.proofs.gap_routes.COMPUTATIONS`). RECONSTRUCTED: our argument, built on the
single-head routes of :mod:`attnio.proofs.gap_routes` (``notes/gap.md`` §"Many heads").

Statement
---------
:math:`Q_{B,H,G}(n, d, M) \ge \max(\text{compulsory}, \text{segment}, \text{segment} +
\text{rest})` for one computation class, and with ``computation="any"`` the smallest class
maximum (it holds for every algorithm of :mod:`attnio.algorithms`, each in one class).

* **compulsory** — every input vertex with a successor is read at least once, every output
  is written at least once (it starts unpebbled and must end blue). Per query head
  (× B·H): forward Q read, O written (:math:`2nd`); backward Q, O, dO read, dQ written
  (:math:`4nd`); ``given-scores`` also its :math:`n\times n` given matrix (:math:`n^2`). Per
  K/V head (× B·G): forward K, V read (:math:`2nd`); backward K, V read, dK, dV written
  (:math:`4nd`). No row statistic is counted: the single-head compulsory count of
  :func:`~attnio.proofs.gap_routes.compulsory_io` is exactly the five (backward) or three
  (forward) n×d inputs and the n×d outputs (8nd, 4nd), no L or m, and it is the B = H = G = 1
  case of this one. So, e.g., backward ``recompute``: :math:`B(4H + 4G)nd`, at n = 4096,
  d = 64, H = 32, G = 8: 41,943,040 words.
* **segment products** — the products counted per query head (``forward``: :math:`QK^\top`;
  ``recompute``: :math:`QK^\top` and :math:`dO\,V^\top`; ``given-scores``: :math:`dO\,V^\top`)
  number :math:`N = \text{families}\cdot B\cdot H\cdot n^2d` designated leaves, and
  :math:`Q \ge L(\lceil N/F(L)\rceil - 1)` with the single-head cap :math:`F(L)`
  (:func:`~attnio.proofs.gap_routes.segment_product_cap`). The argument, step by step:

  1. *Stacking.* The g products :math:`Q_hK^\top` of a group (h in the group) are one product
     :math:`XY^\top` with :math:`X = [Q_1; \dots; Q_g]` (:math:`gn\times d`, inputs) and
     :math:`Y = K` (:math:`n\times d`, an input), with :math:`gn\cdot n` pairwise disjoint
     inner-product trees (the heads' products are distinct computations; a vertex belongs to
     one head's tree). Likewise :math:`dO_hV^\top`.
  2. *The cap ignores the number of rows.* The per-segment bound of ``notes/gap.md`` uses
     only: a full pair needs its X row and Y row red (:math:`\le\lfloor a/d\rfloor\lfloor
     b/d\rfloor \le s^2/(4d)` leaves), partial pairs :math:`\le\sqrt{abc}`,
     :math:`\le(d-1)c`, and :math:`s = a + b \le M + L`, :math:`s + c \le 2M + L`. None
     depends on how many rows X or Y has, so one segment holds at most :math:`F(L)`
     designated leaves of the stacked product of a group, whichever heads they belong to
     (checked by brute force over every segment shape of small stacked products, claim
     ``heads.stacked_segment``).
  3. *Across groups and families.* Products with disjoint operands and trees share one
     segment budget and :math:`F` is superadditive (claim ``gap.superadditive``): the
     designated leaves of all B·G groups' products and both families in one segment are at
     most :math:`F(L)` in total (also brute-forced on two groups).
  4. *Counting.* So :math:`N \le (\#\text{segments})\cdot F(L)`, i.e. at least
     :math:`\lceil N/F\rceil` segments, all but the last with :math:`L` I/Os:
     :math:`Q \ge L(\lceil N/F\rceil - 1)`. The count is per product, never "per head ×
     H": segments may mix heads freely, and step 2 bounds any mix.

* **segment + compulsory rest** — the segment argument only counts the I/Os on the
  products' operands and trees; the compulsory I/O of every other input and output comes on
  top (single-head: ``notes/gap.md``). Stacked: the compulsory count above minus the operand
  matrices' reads.

The Saha–Ye partition route of the single-head bound is *not* stacked (its argument is not
per-product counting); with B·H = 1 it is included, so B = H = G = 1 gives exactly
:func:`~attnio.proofs.gap_routes.best_lower_bound`.

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

Examples
--------
>>> stacked_compulsory("backward", 4096, 64, heads=32, kv_heads=8)
41943040
>>> b = stacked_lower_bound("backward", 4096, 64, 16384, heads=32, kv_heads=8)
>>> b.value >= 41943040, b.claim_id
(True, 'heads.stacked_segment')
>>> stacked_lower_bound("forward", 64, 8, 64).value == best_lower_bound("forward", 64, 8, 64).value
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from attnio.exceptions import InvalidInputError
from attnio.proofs.gap_routes import (PASSES, SEGMENT_MULTIPLES, GapBound, _brute_segment_max,
                                      _pair_leaf_table, best_lower_bound, lower_bound_routes,
                                      segment_product_cap, segment_route)
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict
from attnio.validation import positive_int

__all__ = ["MATRICES", "FAMILIES", "stacked_compulsory", "stacked_rest",
           "stacked_lower_bound_routes", "stacked_lower_bound", "CLAIMS", "FALSE_TWINS"]

#: Per computation class: matrix → (kind, operand of a counted product?). Kind ``"q"``: one
#: n×d matrix per query head; ``"kv"``: one n×d matrix per K/V head; ``"s"``: one n×n given
#: matrix per query head. Every matrix is read once (input) or written once (output).
MATRICES: dict[str, dict[str, tuple[str, bool]]] = {
    "forward": {"Q": ("q", True), "K": ("kv", True), "V": ("kv", False), "O": ("q", False)},
    "recompute": {"Q": ("q", True), "K": ("kv", True), "V": ("kv", True), "O": ("q", False),
                  "dO": ("q", True), "dQ": ("q", False), "dK": ("kv", False),
                  "dV": ("kv", False)},
    "given-scores": {"Q": ("q", False), "K": ("kv", False), "V": ("kv", True),
                     "O": ("q", False), "dO": ("q", True), "dQ": ("q", False),
                     "dK": ("kv", False), "dV": ("kv", False), "P": ("s", False)},
}
#: Products counted per query head: (number of n×n×d families, their names).
FAMILIES: dict[str, tuple[int, str]] = {"forward": (1, "Q·Kᵀ"), "recompute": (2, "Q·Kᵀ + dO·Vᵀ"),
                                        "given-scores": (1, "dO·Vᵀ")}


#: :func:`~attnio.proofs.gap_routes.segment_product_cap`, memoised (a pure function of
#: (d, M, L); the routes and the claim ask for the same few values many times).
_cap: Callable[[int, int, int], int] = lru_cache(maxsize=4096)(segment_product_cap)


def _shape(batch: int, heads: int, kv_heads: int | None) -> tuple[int, int, int]:
    batch, heads = positive_int("batch", batch), positive_int("heads", heads)
    kv = heads if kv_heads is None else positive_int("kv_heads", kv_heads)
    if heads % kv:
        raise InvalidInputError(f"heads={heads} is not a multiple of kv_heads={kv}")
    return batch, heads, kv


def _classes(pass_: str, computation: str) -> tuple[str, ...]:
    if pass_ not in PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    if computation == "any":
        return allowed
    if computation not in allowed:
        raise InvalidInputError(f"computation={computation!r} must be one of {allowed} for "
                                f"the {pass_} pass")
    return (computation,)


def _words(kind: str, n: int, d: int, batch: int, heads: int, kv: int) -> int:
    return batch * {"q": heads * n * d, "kv": kv * n * d, "s": heads * n * n}[kind]


def stacked_compulsory(pass_: str, n: int, d: int, *, batch: int = 1, heads: int = 1,
                       kv_heads: int | None = None, computation: str | None = None) -> int:
    """Every input read once, every output written once, over B·H query heads and B·G K/V
    heads (``computation``: default ``"recompute"`` backward, ``"forward"`` forward).

    >>> stacked_compulsory("forward", 4096, 64, heads=32, kv_heads=8)
    20971520
    """
    batch, heads, kv = _shape(batch, heads, kv_heads)
    n, d = positive_int("n", n), positive_int("d", d)
    cls = computation or ("forward" if pass_ == "forward" else "recompute")
    (cls,) = _classes(pass_, cls)
    return sum(_words(kind, n, d, batch, heads, kv) for kind, _ in MATRICES[cls].values())


def stacked_rest(pass_: str, n: int, d: int, computation: str, *, batch: int = 1,
                 heads: int = 1, kv_heads: int | None = None) -> int:
    """The compulsory I/O of the matrices that are no operand of a counted product."""
    batch, heads, kv = _shape(batch, heads, kv_heads)
    (cls,) = _classes(pass_, computation)
    return sum(_words(kind, n, d, batch, heads, kv)
               for kind, operand in MATRICES[cls].values() if not operand)


def stacked_lower_bound_routes(pass_: str, n: int, d: int, M: int, computation: str, *,
                               batch: int = 1, heads: int = 1, kv_heads: int | None = None,
                               route: Callable[..., tuple[int, int]] = segment_route
                               ) -> list[GapBound]:
    """Every route's bound for B·H heads in B·G groups, one computation class (module doc).
    ``route`` replaces :func:`~attnio.proofs.gap_routes.segment_route` (false twins only).

    >>> [r.value for r in stacked_lower_bound_routes("backward", 64, 8, 64, "recompute",
    ...                                               heads=4, kv_heads=2)][0]
    12288
    """
    batch, heads, kv = _shape(batch, heads, kv_heads)
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    (cls,) = _classes(pass_, computation)
    compulsory = GapBound(stacked_compulsory(pass_, n, d, batch=batch, heads=heads,
                                             kv_heads=kv, computation=cls),
                          "compulsory", "heads.stacked_compulsory")
    families, name = FAMILIES[cls]
    value, L = route(n, d, M, products=families * batch * heads, cap=_cap)
    heads_note = f", {batch * heads} heads" if batch * heads > 1 else ""
    seg = f"segment products ({name}{heads_note})" + (f", L = {L // M}M" if L else "")
    rest = stacked_rest(pass_, n, d, cls, batch=batch, heads=heads, kv_heads=kv)
    routes = [compulsory, GapBound(value, seg, "heads.stacked_segment"),
              GapBound(rest + value, f"{seg} + compulsory rest", "heads.stacked_segment")]
    if batch * heads == 1:  # one head: the single-head Saha–Ye route holds too
        routes += [r for r in lower_bound_routes(pass_, n, d, M, cls)
                   if r.route.startswith("Saha-Ye")]
    return routes


def stacked_lower_bound(pass_: str, n: int, d: int, M: int, *, batch: int = 1, heads: int = 1,
                        kv_heads: int | None = None, computation: str = "any") -> GapBound:
    """The largest route of a class; ``"any"``: the smallest class maximum (binding class
    named in the route, backward). B = H = G = 1 is
    :func:`~attnio.proofs.gap_routes.best_lower_bound`.

    >>> stacked_lower_bound("backward", 4096, 64, 1327104, heads=32, kv_heads=8).value
    41943040
    """
    best: tuple[GapBound, str] | None = None
    for cls in _classes(pass_, computation):
        top = max(stacked_lower_bound_routes(pass_, n, d, M, cls, batch=batch, heads=heads,
                                             kv_heads=kv_heads), key=lambda r: r.value)
        if best is None or top.value < best[0].value:
            best = (top, cls)
    assert best is not None
    top, cls = best
    if pass_ == "forward" or computation != "any":
        return top
    return GapBound(top.value, f"{cls}: {top.route}", top.claim_id)


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------

def _head_dag(pass_: str, n: int, d: int):
    """One head's DAG (:mod:`attnio.graphs.dags`); backward: plus O as an input of each row's
    D_i (the algorithms compute D = rowsum(dO∘O), so they read O; gap.compulsory)."""
    from attnio.graphs.dags import attention_backward_dag, attention_forward_dag

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
    from attnio.graphs.anytime import compulsory_io

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
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=checked))


def _leaf_table(groups: int, g: int, n: int, d: int) -> list[tuple[int, int, list[int]]]:
    """Every segment shape of ``groups`` disjoint stacked products, each a (g·n)×d by d×n
    product (X: the g heads' query rows, Y: the group's K): ``(|A| + |B|, leaves of full
    pairs, prefix sums of the partial pairs' leaf counts, largest first)``, as
    :func:`attnio.proofs.gap_routes._pair_leaf_table` (row x of X pairs with row y of Y iff they
    belong to the same group)."""
    rows_x, rows_y = groups * g * n, groups * n
    return _pair_leaf_table(rows_x, rows_y, d, [(x, y) for x in range(rows_x)
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
                   cap: Callable[[int, int, int], int] = _cap,
                   routes: Callable[..., list[GapBound]] = stacked_lower_bound_routes
                   ) -> Verdict:
    """Brute force (designated leaves of stacked products per segment ≤ cap) and the routes'
    exact form (N counted per product over B·H heads; rest = non-operand compulsory)."""
    checked = nontrivial = 0
    for groups, g, n, d in _BRUTE_SHAPES:
        table = _leaf_table(groups, g, n, d)
        for M in (1, 2, 3):
            for t in (1, 2, 3, 4):
                L = t * M
                most, value = _brute_segment_max(table, M, L), cap(d, M, L)
                checked += 1
                nontrivial += most > 1
                if most > value:
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
            rest = sum(_words(kind, n, d, B, H, G)
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
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=nontrivial))


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
        "attnio.proofs.gap_routes on the stacked products, per-product counting; issue 21")


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
