r"""Per-part counting lemmas of the S-partition lower bounds, checked exhaustively by z3.

A *bounded set* of size parameter :math:`k` is a vertex set :math:`W` with a dominator set and a
minimum set of size :math:`\le k` (every part of a k-partition is one; see
:mod:`attnio.graphs.partitions`). Each lemma says: every bounded set holds at most
:math:`\beta(k)` *counted* vertices. It is checked on a concrete DAG by asking z3 for a bounded
set with :math:`\beta(k) + 1` counted vertices (:func:`attnio.graphs.partitions.find_bounded_set`):
UNSAT = the lemma holds on that DAG for that :math:`k` (over **all** :math:`2^{|V|}` sets W and
all dominators); SAT = a counterexample W, re-validated by the plain-Python checkers.

Lemmas
------
**(MM) matmul per-part product count** (Hong–Kung §6 / Cor. 6.2 route; explicit form of the
Lean formalisation, notes/reference/background.md §3.3; the ``max(1, ·)`` for small k is ours, RECONSTRUCTED).
For a standard-multiplication DAG (each product :math:`A_{il}B_{lj}` its own vertex, inputs the
sources, no vertex depending on products of two different output entries):

.. math:: \#\{\text{products in } W\} \;\le\; \beta_{MM}(k) = \Bigl\lfloor k\cdot\max\bigl(1, \tfrac{\sqrt k}{2}\bigr)\Bigr\rfloor
          \qquad (k \ge 1),

i.e. :math:`\le S\sqrt{2S}` for :math:`k = 2S`, :math:`S \ge 2`. Proof sketch: a product
:math:`p=(i,l,j)` not in D has both operands in D (they are inputs with an edge to p); the
products of slice l reach distinct minimum vertices (distinct output trees), so slice l holds
:math:`\le \min(k, \alpha_l\beta_l) + \delta_l \le \tfrac{\sqrt k}{2}(\alpha_l+\beta_l) + \delta_l`
products (:math:`\alpha_l, \beta_l` operands of slice l in D, :math:`\delta_l` its products in
D; :math:`\alpha\beta \le k \Rightarrow \alpha\beta \le \sqrt{k\alpha\beta} \le \sqrt k(\alpha+\beta)/2`);
summing, :math:`\le \max(1, \sqrt k/2)\,|D|`. The hypothesis :math:`S \ge 2` (k ≥ 4) of the
:math:`S\sqrt{2S}` form is needed: at S = 1 two products form a bounded set (false twin).

**(SY) Saha–Ye Lemma 3.3, explicit constants** (arXiv 2402.07443 Lemma 3.3; explicit form
RECONSTRUCTED, notes/reference/background.md §1.4). For a DAG containing the :math:`n^2` disjoint summation trees
of :math:`QK^\top` (leaf operands are the inputs :math:`Q_{i\cdot}, K_{j\cdot}`; each tree has
:math:`t` level-1 vertices, :math:`t = 2d-1` for binary trees):

.. math:: \#\{\text{level-1 vertices in } W\} \;\le\; \beta_{SY}(k) = \bigl(2k + \lfloor k^2/d^2\rfloor\bigr)\, t .

Steps: ≤ k trees contain a dominator vertex, ≤ k a minimum vertex; every other ("extra") tree
meeting W has its root in W and all 2d leaf operands in D, and the extra trees number
:math:`C \le \lfloor k^2/d^2 \rfloor` (**step 4**, checked on its own: trees with root in W and
no vertex in D). For :math:`k = 2M` this is the :math:`(4M + 4M^2/d^2)(2d-1)` of background §1.4.

Instances (default tier): (MM) on matmul 2×2×2 tree, 2×3×2 tree and 2×2×3 fma for
k = 1..8 and 3×1×3 for k = 2, 4, 6; (SY) and step 4 on :math:`QK^\top` = matmul(3, 2, 3)
(n = 3, d = 2) and attention forward (n = 2, d = 2) for k = 1..6. Deep tier: (MM) on matmul
3×2×3 for k = 1..8 and 3×3×3 (tree, chain, fma) for k = 1..4 (k ≥ 6 on 3×3×3 does not finish
in 120 s per z3 call); (SY) on attention forward n = 3, d = 1, attention backward (qkv)
n = 2, d = 1 and :math:`QK^\top` n = d = 3.

Evidence: each claim reports how many (instance, k) pairs ran and how many were
*non-trivial* (bound < number of counted objects, so a false lemma could show there); the
default tier has ≥ 10 non-trivial pairs per lemma (25, 13 and 17).

How sharp the check is: on these DAGs the Saha–Ye count is loose. The planted constant
:math:`\beta'(k) = k\,t` is refuted (attention forward n = 3, d = 1, k = 5 has a bounded set
with 6 level-1 vertices), but :math:`(\lfloor k^2/d^2\rfloor + 1)\,t`, :math:`2kt`,
:math:`(2k + \lfloor k/d\rfloor)\,t` and :math:`(k + \lfloor k^2/d^2\rfloor)\,t` are all
*not* refuted on the default instances: the enumeration confirms the lemma's form, not its
constants (notes/claims.md).

False twins: the planted per-part constants :math:`\beta'(k) = k\,t` (Saha–Ye),
:math:`\beta(k) = k` and :math:`\lfloor\sqrt{k^3/4}\rfloor` without the small-k
:math:`\max(1, \cdot)` (matmul), checked by the same checkers on the default instances;
(MM) with bound − 1 at k = 4 (tight: four products of one slice); (MM)'s
:math:`S\sqrt{2S}` with the hypothesis S ≥ 2 dropped (S = 1); (MM) with (P3) dropped (on 3×1×3,
k = 6: nine products dominated by six inputs); step 4 with "no dominator vertex in the tree"
dropped; a linear step 4, C ≤ k/d (on :math:`QK^\top` n = 3, d = 1, k = 6: nine extra trees).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from math import isqrt
from typing import Callable, Iterable

import networkx as nx
import z3

from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.lower_bounds.parts import (
    matmul_part_bound,
    matmul_part_bound_sqrt_form,
    product_vertices,
    qk_trees,
    sy_extra_tree_bound,
    sy_part_bound,
)
from attnio.graphs.partitions import bounded_set_encoding, find_bounded_set
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict

__all__ = [
    "check_part_bound",
    "check_extra_trees",
    "CLAIMS",
    "FALSE_TWINS",
]


# --------------------------------------------------------------------------------------------
# The bounds (exact integers)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# What is counted
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Checkers
# --------------------------------------------------------------------------------------------


def check_part_bound(G: nx.DiGraph, counted: Iterable[str], k: int, bound: int, *,
                     timeout_ms: int, drop_minimum: bool = False) -> Verdict:
    """Proved iff no bounded set (dominator, minimum ≤ k) holds ``bound + 1`` counted vertices.

    >>> G = matmul_dag(2, 2, 2)
    >>> check_part_bound(G, product_vertices(G, "AB"), 4, 4, timeout_ms=10_000).verdict
    'proved'
    >>> check_part_bound(G, product_vertices(G, "AB"), 4, 3, timeout_ms=10_000).verdict
    'refuted'
    """
    r = find_bounded_set(G, counted, k, bound + 1, timeout_ms=timeout_ms,
                         minimum_bound=None if drop_minimum else -1)
    if r.status == "unsat":
        return Proved(f"z3: no W with dominator ≤ {k}, minimum ≤ {k} holds {bound + 1} "
                      f"counted vertices (unsat)")
    if r.status == "sat":
        return Refuted({"k": k, "bound": bound, "count": r.count, "W": sorted(r.witness),
                        "dominator": sorted(r.dominator)},
                       f"W with {r.count} > {bound} counted vertices, dominator "
                       f"{len(r.dominator)} ≤ {k}")
    return Undecided(r.reason)


def check_extra_trees(G: nx.DiGraph, k: int, bound: int, *, timeout_ms: int,
                      require_no_dominator: bool = True) -> Verdict:
    """Step 4 of Saha–Ye Lemma 3.3: ≤ ``bound`` trees have their root in W and no vertex in D.

    ``D`` is any dominator of ``W`` of size ≤ k (the minimum set is unconstrained: the step
    does not use it). ``require_no_dominator=False`` drops that hypothesis (a false twin).

    >>> check_extra_trees(matmul_dag(2, 2, 2), 4, 4, timeout_ms=10_000).verdict
    'proved'
    """
    trees = qk_trees(G, _product_tag(G))
    enc = bounded_set_encoding(G, k, prefix="x", minimum_bound=None)
    extra = [z3.And(enc.member[r], *[z3.Not(enc.dominator[v]) for v in t])
             if require_no_dominator else enc.member[r] for r, t in trees]
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.add(enc.constraints)
    s.add(z3.AtLeast(*extra, bound + 1))
    answer = s.check()
    if answer == z3.unsat:
        return Proved(f"z3: no dominator of size ≤ {k} leaves {bound + 1} extra trees (unsat)")
    if answer == z3.sat:
        m = s.model()
        W, D = enc.selected(m), enc.dominator_of(m)
        roots = [r for r, t in trees if r in W and (not require_no_dominator or not (t & D))]
        return Refuted({"k": k, "bound": bound, "extra_roots": roots, "dominator": sorted(D)},
                       f"{len(roots)} > {bound} trees with root in W"
                       + (" and no dominator vertex" if require_no_dominator else ""))
    return Undecided(f"z3 returned unknown ({s.reason_unknown()}, timeout {timeout_ms} ms)")


def _product_tag(G: nx.DiGraph) -> str:
    return "AB" if G.graph.get("builder") == "matmul" else "QK"


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Instance:
    label: str
    build: Callable[[], nx.DiGraph]
    ks: tuple[int, ...]


#: One (instance, k) of an enumerated lemma: its label, its check, and whether it could have
#: failed — the bound is below the number of counted objects on that DAG (otherwise any set
#: satisfies it and UNSAT is trivial).
_Part = tuple[str, Callable[[], Verdict], bool]


def _all_proved(parts: list[_Part]) -> Verdict:
    """Run sub-checks in order; the first non-Proved one decides (Undecided is no pass).

    The verdict carries exhaustive evidence: how many (instance, k) pairs ran and how many of
    them were non-trivial (:data:`_Part`)."""
    done: list[str] = []
    nontrivial = 0
    for label, run, could_fail in parts:
        v = run()
        nontrivial += could_fail
        evidence = Evidence.exhaustive(len(done) + 1, nontrivial)
        if not isinstance(v, Proved):
            if isinstance(v, Refuted):
                return Refuted({"instance": label, **v.counterexample}, f"{label}: {v.detail}",
                               evidence=evidence)
            return Undecided(f"{label}: {v.detail}", evidence=evidence)
        done.append(label + ("" if could_fail else " (trivial)"))
    return Proved(f"z3 unsat for all {len(done)} (instance, k), {nontrivial} of them "
                  "non-trivial: " + "; ".join(done),
                  evidence=Evidence.exhaustive(len(done), nontrivial))


def _part_bounds(inst: _Instance, G: nx.DiGraph, counted: list[str], ctx: CheckContext,
                 beta: Callable[..., int], *dims: int) -> list[_Part]:
    """One part per ``k`` of ``inst``: at most ``b = beta(k, *dims)`` of ``counted`` in a part
    of ``k`` red pebbles (:func:`check_part_bound`), non-trivial when ``b < len(counted)``."""
    parts: list[_Part] = []
    for k in inst.ks:
        b = beta(k, *dims)
        parts.append((f"{inst.label} k={k} β={b}",
                      partial(check_part_bound, G, counted, k, b, timeout_ms=ctx.z3_timeout_ms),
                      b < len(counted)))
    return parts


def _mm_check(instances: list[_Instance], beta: Callable[[int], int] = matmul_part_bound
              ) -> Callable[[CheckContext], Verdict]:
    """The per-part product count ``beta(k)`` on every (instance, k) (a planted ``beta`` makes
    a false twin through the very same checker)."""
    def check(ctx: CheckContext) -> Verdict:
        parts: list[_Part] = []
        for inst in instances:
            G = inst.build()
            parts += _part_bounds(inst, G, product_vertices(G, "AB"), ctx, beta)
        return _all_proved(parts)
    return check


def _sy_check(instances: list[_Instance],
              beta: Callable[[int, int, int], int] = sy_part_bound
              ) -> Callable[[CheckContext], Verdict]:
    """Saha–Ye's level-1 count ``beta(k, d, t)`` on every (instance, k)."""
    def check(ctx: CheckContext) -> Verdict:
        parts: list[_Part] = []
        for inst in instances:
            G = inst.build()
            tag = _product_tag(G)
            trees = qk_trees(G, tag)
            sizes = {len(t) for _, t in trees}
            if len(sizes) != 1:
                return Undecided(f"{inst.label}: trees of unequal size {sorted(sizes)}")
            t = sizes.pop()
            d = _inner_dim(G, trees)
            counted = sorted(set().union(*(tr for _, tr in trees)))
            parts += _part_bounds(inst, G, counted, ctx, beta, d, t)
        return _all_proved(parts)
    return check


def _step4_check(instances: list[_Instance],
                 beta: Callable[[int, int], int] = sy_extra_tree_bound
                 ) -> Callable[[CheckContext], Verdict]:
    """Step 4's extra-tree count ``beta(k, d)`` on every (instance, k)."""
    def check(ctx: CheckContext) -> Verdict:
        parts: list[_Part] = []
        for inst in instances:
            G = inst.build()
            trees = qk_trees(G, _product_tag(G))
            d = _inner_dim(G, trees)
            for k in inst.ks:
                b = beta(k, d)
                parts.append((f"{inst.label} k={k} C≤{b}",
                              partial(check_extra_trees, G, k, b,
                                      timeout_ms=ctx.z3_timeout_ms),
                              b < len(trees)))
        return _all_proved(parts)
    return check


def _inner_dim(G: nx.DiGraph, trees: list[tuple[str, frozenset[str]]]) -> int:
    """d = number of products (leaves) per tree."""
    root, tree = trees[0]
    return sum(1 for v in tree if G.nodes[v]["op"] in ("mul", "fma"))


MM_DEFAULT = [
    _Instance("matmul 2x2x2 tree", lambda: matmul_dag(2, 2, 2), tuple(range(1, 9))),
    _Instance("matmul 3x1x3", lambda: matmul_dag(3, 1, 3), (2, 4, 6)),
    _Instance("matmul 2x3x2 tree", lambda: matmul_dag(2, 3, 2), tuple(range(1, 9))),
    _Instance("matmul 2x2x3 fma", lambda: matmul_dag(2, 2, 3, "fma"), tuple(range(1, 9))),
]
MM_DEEP = [
    _Instance("matmul 3x2x3 tree", lambda: matmul_dag(3, 2, 3), tuple(range(1, 9))),
    _Instance("matmul 3x3x3 tree", lambda: matmul_dag(3, 3, 3), (1, 2, 3, 4)),
    _Instance("matmul 3x3x3 chain", lambda: matmul_dag(3, 3, 3, "chain"), (1, 2, 3, 4)),
    _Instance("matmul 3x3x3 fma", lambda: matmul_dag(3, 3, 3, "fma"), (1, 2, 3, 4)),
]
SY_DEFAULT = [
    _Instance("QK^T n=3 d=2 (matmul 3x2x3)", lambda: matmul_dag(3, 2, 3), tuple(range(1, 7))),
    _Instance("attention forward n=2 d=2", lambda: attention_forward_dag(2, 2),
              tuple(range(1, 7))),
    # larger instances, so that ≥ 10 (instance, k) pairs are non-trivial (bound < count):
    _Instance("attention forward n=3 d=1", lambda: attention_forward_dag(3, 1),
              tuple(range(1, 6))),
    _Instance("QK^T n=4 d=1 (matmul 4x1x4)", lambda: matmul_dag(4, 1, 4), (1, 2, 3)),
    _Instance("QK^T n=4 d=2 (matmul 4x2x4)", lambda: matmul_dag(4, 2, 4), (1, 2, 3, 4)),
]
SY_DEEP = [
    _Instance("attention forward n=3 d=1", lambda: attention_forward_dag(3, 1),
              tuple(range(1, 9))),
    _Instance("attention backward qkv n=2 d=1", lambda: attention_backward_dag(2, 1),
              tuple(range(1, 9))),
    _Instance("QK^T n=3 d=3 (matmul 3x3x3)", lambda: matmul_dag(3, 3, 3), tuple(range(2, 9, 2))),
]

_SRC_MM = ("Hong–Kung 1981 Cor. 6.2 per-part count; explicit S·√(2S) from the Lean "
           "formalisation (notes/reference/background.md §3.3); max(1, ·) small-k form RECONSTRUCTED")
_SRC_SY = "Saha–Ye arXiv 2402.07443 Lemma 3.3 (explicit constants RECONSTRUCTED, background §1.4)"
_MM_STATEMENT = ("Every W with dominator ≤ k and minimum set ≤ k in a standard matmul DAG "
                 "holds ≤ ⌊k·max(1, √k/2)⌋ products (= ⌊S√(2S)⌋ for k = 2S, S ≥ 2)")
_MM_FORMAL = ("UNSAT[ dom(W) ≤ k ∧ |min(W)| ≤ k ∧ #products(W) ≥ β(k)+1 ], reachability-"
              "avoidance encoding")
_SY_STATEMENT = ("Every W with dominator ≤ k and minimum set ≤ k holds ≤ (2k + ⌊k²/d²⌋)·t "
                 "level-1 vertices of QKᵀ (t = vertices per summation tree)")
_STEP4_STATEMENT = ("For any dominator D (|D| ≤ k) of W, ≤ ⌊k²/d²⌋ summation trees of QKᵀ have "
                    "their root in W and no vertex in D")


def _claim(id: str, statement: str, formal: str, source: str, check: Callable, *,
           reconstructed: bool = True, tier: str = "default", twin_of: str | None = None,
           evidence_kind: str = "exhaustive") -> Claim:
    """A lemma over its instances (evidence ``exhaustive``), or a twin refuted by one z3 search
    for a bounded set on one DAG (``evidence_kind="search"``: the witness set is the
    certificate)."""
    return Claim(id=id, statement=statement, formal=formal, source=source,
                 method="z3 SAT (exhaustive over vertex sets)", family="partition_lemmas",
                 check_fn=check, reconstructed=reconstructed, tier=tier,  # type: ignore[arg-type]
                 twin_of=twin_of, evidence_kind=evidence_kind)


CLAIMS: list[Claim] = [
    _claim("partlemma.matmul_part", _MM_STATEMENT + "; on matmul 2x2x2, 2x3x2, 2x2x3 fma "
           "(k=1..8), 3x1x3 (k=2,4,6)",
           _MM_FORMAL, _SRC_MM, _mm_check(MM_DEFAULT)),
    _claim("partlemma.sy_part", _SY_STATEMENT + "; on QKᵀ n=3,d=2 (k=1..6), n=4,d=1 (k=1..3), "
           "n=4,d=2 (k=1..4) and attention forward n=2,d=2 (k=1..6), n=3,d=1 (k=1..5)",
           "UNSAT[ dom ≤ k ∧ min ≤ k ∧ #level1(W) ≥ β_SY(k)+1 ]", _SRC_SY,
           _sy_check(SY_DEFAULT)),
    _claim("partlemma.sy_step4", _STEP4_STATEMENT + "; on the instances of partlemma.sy_part",
           "UNSAT[ dom ≤ k ∧ #{T : root∈W ∧ T∩D=∅} ≥ ⌊k²/d²⌋+1 ]",
           _SRC_SY, _step4_check(SY_DEFAULT)),
    _claim("partlemma.matmul_part_deep", _MM_STATEMENT + "; on matmul 3x2x3 (k=1..8) and "
           "3x3x3 tree, chain, fma (k=1..4)", _MM_FORMAL, _SRC_MM, _mm_check(MM_DEEP), tier="deep"),
    _claim("partlemma.sy_part_deep", _SY_STATEMENT + "; on attention forward n=3,d=1, "
           "attention backward (qkv) n=2,d=1, QKᵀ n=d=3", "as partlemma.sy_part", _SRC_SY,
           _sy_check(SY_DEEP), tier="deep"),
    _claim("partlemma.sy_step4_deep", _STEP4_STATEMENT + "; deep instances", "as sy_step4",
           _SRC_SY, _step4_check(SY_DEEP), tier="deep"),
]


def _twin_bound_minus_one(ctx: CheckContext) -> Verdict:
    G = matmul_dag(2, 2, 2)
    return check_part_bound(G, product_vertices(G, "AB"), 4, matmul_part_bound(4) - 1,
                            timeout_ms=ctx.z3_timeout_ms)


def _twin_sqrt_form_at_S1(ctx: CheckContext) -> Verdict:
    G = matmul_dag(2, 2, 2)
    return check_part_bound(G, product_vertices(G, "AB"), 2, matmul_part_bound_sqrt_form(1),
                            timeout_ms=ctx.z3_timeout_ms)


def _twin_no_minimum_set(ctx: CheckContext) -> Verdict:
    G = matmul_dag(3, 1, 3)
    return check_part_bound(G, product_vertices(G, "AB"), 6, matmul_part_bound(6),
                            timeout_ms=ctx.z3_timeout_ms, drop_minimum=True)


def _twin_step4_any_root(ctx: CheckContext) -> Verdict:
    return check_extra_trees(matmul_dag(3, 2, 3), 2, sy_extra_tree_bound(2, 2),
                             timeout_ms=ctx.z3_timeout_ms, require_no_dominator=False)


def _twin_step4_linear(ctx: CheckContext) -> Verdict:
    return check_extra_trees(matmul_dag(3, 1, 3), 6, 6 // 1, timeout_ms=ctx.z3_timeout_ms)


def _planted(beta_text: str) -> str:
    return f"planted false per-part constant {beta_text} on the default instances"


FALSE_TWINS: list[Claim] = [
    # planted false constants, checked by the very checkers of the true lemmas
    _claim("partlemma.twin.sy_beta_kt",
           "Saha–Ye per-part count β′(k) = k·t (false: attention forward n=3, d=1, k=5 has a "
           "bounded set with 6 level-1 vertices)", "UNSAT[ ... #level1(W) ≥ k·t + 1 ]",
           _planted("β′(k) = k·t"), _sy_check(SY_DEFAULT, lambda k, d, t: k * t),
           twin_of="partlemma.sy_part"),
    _claim("partlemma.twin.matmul_beta_k",
           "matmul per-part count β(k) = k", "UNSAT[ ... #products ≥ k + 1 ]",
           _planted("β(k) = k"), _mm_check(MM_DEFAULT, lambda k: k),
           twin_of="partlemma.matmul_part"),
    _claim("partlemma.twin.matmul_no_max",
           "matmul per-part count ⌊k√k/2⌋ without the max(1, ·) of small k",
           "UNSAT[ ... #products ≥ ⌊√(k³/4)⌋ + 1 ]", _planted("⌊√(k³/4)⌋"),
           _mm_check(MM_DEFAULT, lambda k: isqrt(k ** 3 // 4)),
           twin_of="partlemma.matmul_part"),
    _claim("partlemma.twin.matmul_bound_minus_one",
           "matmul 2x2x2, k = 4: a bounded set holds ≤ β_MM(4) − 1 = 3 products (false: tight)",
           "UNSAT[ ... #products ≥ 4 ]", _SRC_MM, _twin_bound_minus_one,
           twin_of="partlemma.matmul_part", evidence_kind="search"),
    _claim("partlemma.twin.sqrt_form_S1",
           "S√(2S) per-part count with hypothesis S ≥ 2 dropped: at S = 1 (k = 2) ≤ 1 product",
           "UNSAT[ dom ≤ 2 ∧ min ≤ 2 ∧ #products ≥ 2 ]", _SRC_MM, _twin_sqrt_form_at_S1,
           twin_of="partlemma.matmul_part", evidence_kind="search"),
    _claim("partlemma.twin.no_minimum_set",
           "matmul per-part count with (P3) dropped: dominator ≤ 6 alone gives ≤ 7 products "
           "(matmul 3x1x3)", "UNSAT[ dom ≤ 6 ∧ #products ≥ 8 ]", _SRC_MM, _twin_no_minimum_set,
           twin_of="partlemma.matmul_part", evidence_kind="search"),
    _claim("partlemma.twin.step4_any_root",
           "Saha–Ye step 4 with 'no dominator vertex in the tree' dropped: ≤ ⌊k²/d²⌋ = 1 roots "
           "in W (QKᵀ n=3, d=2, k=2)", "UNSAT[ dom ≤ 2 ∧ #roots(W) ≥ 2 ]", _SRC_SY,
           _twin_step4_any_root, twin_of="partlemma.sy_step4", evidence_kind="search"),
    _claim("partlemma.twin.step4_linear",
           "Saha–Ye step 4 with the wrong exponent: C ≤ k/d extra trees (QKᵀ n=3, d=1, k=6)",
           "UNSAT[ dom ≤ 6 ∧ #extra ≥ 7 ]", _SRC_SY, _twin_step4_linear,
           twin_of="partlemma.sy_step4", evidence_kind="search"),
]


if __name__ == "__main__":
    import sys

    _deep = "--deep" in sys.argv  # the deep tier takes minutes; run it only when asked
    raise SystemExit(run_module([c for c in CLAIMS if _deep or c.tier == "default"],
                                FALSE_TWINS, CheckContext(deep=_deep)))
