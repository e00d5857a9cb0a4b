r"""Every inequality step of the lower-bound arguments, proved by z3 with the constants kept.

The lower bounds of arXiv 2410.09397 (Thms 4.2, 4.4), Saha & Ye (Lemmas 3.3, 3.4, Thm 3.7)
and Hong & Kung (Lemma 3.1, Cor. 6.2) are chains of inequalities. Here each link is one claim,
with its hypotheses as the argument supplies them (``notes/reference/background.md``
§§1.2, 1.4, 3.2, 3.3). Symbols: :math:`n` sequence length, :math:`d` head dimension,
:math:`M` cache size (= Hong–Kung's :math:`S`, red pebbles), :math:`m\times k` by
:math:`k\times p` a matrix product, :math:`P` the number of parts of a :math:`2M`-partition,
:math:`Q` the I/O of a complete calculation. All variables range over the positive reals.

Proof map
---------
Saha–Ye Lemma 3.3 (large cache, one part :math:`V'` of an :math:`M`-partition):

* ``sy.lemma33.rows_cols``         — :math:`IJ \ge C \Rightarrow I + J \ge \sqrt C` (step 4);
* ``sy.lemma33.extra_trees``       — :math:`(I+J)d \le M,\ IJ \ge C \Rightarrow C \le M^2/d^2` [SRC];
* ``sy.lemma33.extra_trees_quarter`` — the same hypotheses give :math:`C \le M^2/(4d^2)`
  (AM–GM: :math:`I+J \ge 2\sqrt{IJ}`; attnio, a factor 4 sharper);
* ``sy.lemma33.entries_per_part``  — :math:`M \ge d^2 \Rightarrow M^2/d^2 + M \le 2M^2/d^2` (SY intro);
* (``sy.lemma33.trees_per_2M_part``, :math:`4M + 4M^2/d^2 \le 8M^2/d^2`, was removed in issue 20:
  it is ``entries_per_part`` times 4; the chain below takes the 2M-partition's trees through
  ``sy.lemma34.explicit`` and ``sy.lemma34.large_cache_form`` instead.)

Saha–Ye Lemma 3.4 / Hong–Kung Lemma 3.1 with constants (background §1.4, RECONSTRUCTED):

* ``sy.lemma34.explicit``          — :math:`P \ge n^2/(4M + 4M^2/d^2),\ Q \ge M(P-1) \Rightarrow
  Q \ge` ``fwd.large_explicit.lower`` :math:`= n^2d^2/(4(M+d^2)) - M`;
* ``sy.lemma34.explicit_sharp``    — with ``extra_trees_quarter`` a part of a :math:`2M`-partition
  meets :math:`\le 4M + M^2/d^2` trees, so :math:`Q \ge n^2d^2/(M + 4d^2) - M` (attnio; F6);
* ``sy.lemma34.large_cache_form``  — :math:`M \ge d^2 \Rightarrow` ``fwd.large_explicit.lower``
  :math:`\ge n^2d^2/(8M) - M`;
* ``li.thm42.level1_count``        — the attention DAGs have :math:`n^2` summation trees of
  :math:`2d-1` level-1 vertices each, so :math:`N = n^2(2d-1) \ge n^2d` (exact count on the DAG
  builders; it was the algebra :math:`d \ge 1 \Rightarrow n^2(2d-1) \ge n^2d`, true from
  :math:`d \ge 1` alone, before issue 20);
* ``li.thm42.chain``               — the steps above composed by machine
  (:mod:`attnio.smt.chains`): from the pebble-game facts of one part of a :math:`2M`-partition,
  ``extra_trees`` at :math:`2M`, the trees per part, the number of parts, ``sy.lemma34.explicit``
  and ``sy.lemma34.large_cache_form`` give :math:`Q \ge n^2d^2/(8M) - M`, the conclusion derived
  from the steps alone.

Hong–Kung matmul (Cor. 6.2 via the Lean formalisation's slice argument, background §3.3):

* ``hk.matmul.slice``              — :math:`\min(2M, \alpha\beta) \le \sqrt{2M}(\alpha+\beta)/2`;
  this is the algebraic step only. The counting step before it (slice l holds
  :math:`\le \min(2M, \alpha_l\beta_l)` products) misses products that are themselves in the
  dominator; the corrected count and its exhaustive check live in
  :mod:`attnio.proofs.partition_lemmas` (finding F7: the per-part bound needs S ≥ 2);
* ``hk.matmul.slices_sum``         — three slices with :math:`t_l \le \sqrt{2M}(\alpha_l+\beta_l)/2`
  and :math:`\sum_l(\alpha_l+\beta_l) \le 2M` give :math:`\sum_l t_l \le M\sqrt{2M}` (the
  per-part count :math:`S\sqrt{2S}`);
* ``hk.lemma31.matmul_explicit``   — :math:`Q \ge M(P-1),\ P \ge mkp/(M\sqrt{2M}) \Rightarrow Q \ge`
  ``matmul.hk_explicit.lower``;
* ``hk.lean_combined``             — ``matmul.hk_explicit.lower`` and ``matmul.trivial.lower``
  (with :math:`k \ge 1`) imply ``matmul.lean_combined.lower`` (:math:`mkp \le 2Q\sqrt M`);
* (the exact-integer bound :math:`M\,(\lceil mkp/(M\sqrt{2M})\rceil - 1) \ge`
  ``matmul.hk_explicit.lower`` holds by the definition of the ceiling: it is no longer counted
  as a claim; :func:`_integer_table` remains as a consistency helper for the tests.)

Small-cache reduction (Thm 4.4 ← SY Thm 3.7 ← Lemma 3.6), explicit constants:

* ``li.thm44.reduction_hk``        — :math:`Q_{att} + n^2 \ge Q_{mm} \ge` ``matmul.hk_explicit.lower``
  :math:`(n, d, n)` and :math:`8M \le d^2 \Rightarrow Q_{att} \ge n^2d/(2\sqrt{2M}) - M`
  (with Hong–Kung's constant the reduction is vacuous for :math:`M \ge d^2/2`: finding F5);
* ``li.thm44.reduction_smith``     — with ``matmul.smith.lower`` instead and :math:`M \le d^2`:
  :math:`Q_{att} \ge n^2d/\sqrt M - 2M`.

Saha–Ye Algorithm 1 cache use:

* ``sy.alg1.cache``                — :math:`B \ge 1,\ 4B^2 \le M \Rightarrow 3B^2 + B \le M`.

The Hong–Kung steps composed by machine: ``hk.cor62.chain`` — three ``hk.matmul.slice``
instances, ``hk.matmul.slices_sum``, the number of parts, ``hk.lemma31.matmul_explicit``,
``hk.lean_combined``, from the counting facts of one part, give
``matmul.lean_combined.lower``.

Twins: :math:`I+J \ge 3\sqrt C`; :math:`C \le M^2/(8d^2)`; the per-part bound without
:math:`M \ge d^2`; :math:`Q \ge n^2d^2/(2(M+d^2)) - M`; :math:`n^2d^2/(4M) - M`;
trees of :math:`2d` level-1 vertices; each chain with a step deleted and with a step weakened
(the composition fails); :math:`\sqrt M` instead of :math:`\sqrt{2M}`
(slice and sum); :math:`Q \ge mkp/\sqrt M - M`; :math:`mkp \le Q\sqrt M`; the HK reduction
for all :math:`M \le d^2`; the Smith reduction with the leading constant 2; :math:`3B^2 \le M`
blocks.

Run ``python -m attnio.proofs.lower_bound_steps`` to check this family alone.

Examples
--------
>>> hong_kung_matmul_bound(4, 4, 4, 4)
20
>>> min_parts_matmul(4, 4, 4, 4)
6
"""

from __future__ import annotations

from math import isqrt
from typing import Any, Callable, Sequence

import sympy

from attnio.graphs.dags import attention_backward_dag, attention_forward_dag
from attnio.graphs.lower_bounds.parts import qk_trees
from attnio.proofs.algebra import Problem, bound, ge, le, symbols, z3_claim
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.chains import Chain, check_chain, sympy_chain

__all__ = ["CLAIMS", "FALSE_TWINS", "min_parts_matmul", "hong_kung_matmul_bound"]

FAMILY = "lower_bound"
SY33 = "Saha & Ye Lemma 3.3, arXiv 2402.07443"
SY34 = "Saha & Ye Lemmas 2.8, 3.4 with constants (background §1.4)"
HK = "Hong & Kung Lemma 3.1 / Cor. 6.2 (Lean formalisation, background §3.3)"
LI44 = "Li et al. Thm 4.4, arXiv 2410.09397, via Saha & Ye Thm 3.7"

_I, _J, _C, _P, _Q, _B = sympy.symbols("I J C P Q B", positive=True)
_QA, _QM = sympy.symbols("Q_att Q_mm", positive=True)
_ALPHA = sympy.symbols("alpha1:4", nonnegative=True)
_BETA = sympy.symbols("beta1:4", nonnegative=True)
_T = sympy.symbols("t1:4", nonnegative=True)


def min_parts_matmul(m: int, k: int, p: int, S: int) -> int:
    r"""Fewest parts a :math:`2S`-partition of an :math:`m\times k\cdot k\times p` product graph
    can have by the per-part count: the least integer :math:`P` with :math:`P\,S\sqrt{2S} \ge
    mkp`, computed exactly (:math:`(PS)^2\cdot 2S \ge (mkp)^2`).

    Parameters
    ----------
    m, k, p : int
        Matrix dimensions (positive).
    S : int
        Red pebbles (cache size :math:`M`), positive.

    Returns
    -------
    int

    Examples
    --------
    >>> min_parts_matmul(2, 2, 2, 2)
    2
    """
    products = m * k * p
    # P*S*sqrt(2S) >= products  <=>  P^2 * S^2 * 2S >= products^2; start from a float-free guess.
    P = max(0, isqrt(products * products // (2 * S ** 3)) - 1)
    while P * P * S * S * 2 * S < products * products:
        P += 1
    return P


def hong_kung_matmul_bound(m: int, k: int, p: int, S: int) -> int:
    r"""Hong–Kung Lemma 3.1 in exact integers: :math:`Q \ge S\,(P(2S) - 1)` with
    :math:`P(2S) \ge` :func:`min_parts_matmul` (never negative).

    Examples
    --------
    >>> hong_kung_matmul_bound(2, 2, 2, 2)
    2
    """
    return S * max(min_parts_matmul(m, k, p, S) - 1, 0)


def _e(bound_id: str, **subs: sympy.Expr) -> sympy.Expr:
    expr = bound(bound_id).expr
    if subs:
        expr = expr.subs({symbols(name)[0]: value for name, value in subs.items()})
    return expr


# ------------------------------------------------------------------ Saha–Ye Lemma 3.3
def _rows_cols(factor: int) -> Problem:
    return ge(_I + _J, factor * sympy.sqrt(_C)), [ge(_I * _J, _C)]


def _extra_trees(denominator: int) -> Problem:
    d, M = symbols("d M")
    return le(_C, M ** 2 / (denominator * d ** 2)), [le((_I + _J) * d, M), ge(_I * _J, _C)]


def _entries_per_part(large_cache: bool) -> Problem:
    d, M = symbols("d M")
    return le(M ** 2 / d ** 2 + M, 2 * M ** 2 / d ** 2), [ge(M, d ** 2)] if large_cache else []


# --------------------------------------------------------- Lemma 3.4 with constants
def _lemma34(target: Callable[[], sympy.Expr]) -> Problem:
    n, d, M = symbols("n d M")
    return ge(_Q, target()), [ge(_P, n ** 2 / (4 * M + 4 * M ** 2 / d ** 2)),
                              ge(_Q, M * (_P - 1))]


def _lemma34_sharp(target_denominator_d2: int) -> Problem:
    """The same chain with the AM-GM count: a part meets 2M + 2M + (2M)^2/(4d^2) trees."""
    n, d, M = symbols("n d M")
    return ge(_Q, n ** 2 * d ** 2 / (M + target_denominator_d2 * d ** 2) - M), \
        [ge(_P, n ** 2 / (4 * M + M ** 2 / d ** 2)), ge(_Q, M * (_P - 1))]


def _large_cache_form(denominator: int) -> Problem:
    n, d, M = symbols("n d M")
    return ge(_e("fwd.large_explicit.lower"), n ** 2 * d ** 2 / (denominator * M) - M), \
        [ge(M, d ** 2)]


#: (n, d) of li.thm42.level1_count, each on the forward and the backward (qkv) DAG, with
#: tree and chain summation.
_LEVEL1_SIZES = [(n, d) for n in range(1, 5) for d in range(1, 5)]


def _level1_count(ctx: CheckContext, *, per_tree: Callable[[int], int] = lambda d: 2 * d - 1
                  ) -> Verdict:
    r"""The :math:`QK^\top` level-1 vertices of the attention DAGs, counted: :math:`n^2` trees of
    ``per_tree(d)`` vertices each (:math:`d` products and :math:`d - 1` additions), the
    :math:`N = n^2(2d-1) \ge n^2 d` that :func:`attnio.proofs.explicit_bounds.explicit_routes`
    charges. (Before issue 20 this claim was the algebra :math:`d \ge 1 \Rightarrow
    n^2(2d-1) \ge n^2d`, true from :math:`d \ge 1` alone.)"""

    checked = 0
    for n, d in _LEVEL1_SIZES:
        for summation in ("tree", "chain"):
            for name, G in (("forward", attention_forward_dag(n, d, summation=summation)),
                            ("backward qkv", attention_backward_dag(n, d, "qkv",
                                                                    summation=summation))):
                sizes = sorted({len(t) for _, t in qk_trees(G)})
                trees = len(qk_trees(G))
                checked += 1
                if trees != n * n or sizes != [per_tree(d)]:
                    return Refuted({"dag": name, "summation": summation, "n": n, "d": d,
                                    "trees": trees, "level1_per_tree": sizes,
                                    "claimed": per_tree(d)},
                                   f"{name} DAG (n={n}, d={d}, {summation}): {trees} trees of "
                                   f"{sizes} level-1 vertices, not n² of {per_tree(d)}")
    return Proved(f"{checked} attention DAGs: n² QKᵀ trees of 2d − 1 level-1 vertices each",
                  evidence=Evidence.exhaustive(checked, checked))


# ------------------------------------------------------------------ Hong–Kung matmul
def _slice(two: int) -> Problem:
    M, = symbols("M")
    a, b = _ALPHA[0], _BETA[0]
    return le(sympy.Min(2 * M, a * b, evaluate=False), sympy.sqrt(two * M) * (a + b) / 2), []


def _slices_sum(two: int) -> Problem:
    M, = symbols("M")
    per_slice = [le(t, sympy.sqrt(2 * M) * (a + b) / 2) for t, a, b in zip(_T, _ALPHA, _BETA)]
    budget = le(sum(_ALPHA) + sum(_BETA), 2 * M)
    return le(sum(_T), M * sympy.sqrt(two * M)), per_slice + [budget]


def _hk_explicit(target: Callable[[], sympy.Expr]) -> Problem:
    m, k, p, M = symbols("m k p M")
    return ge(_Q, target()), [ge(_Q, M * (_P - 1)), ge(_P, m * k * p / (M * sympy.sqrt(2 * M)))]


def _lean_combined(factor: int) -> Problem:
    m, k, p, M = symbols("m k p M")
    goal = ge(_Q, _e("matmul.lean_combined.lower")) if factor == 1 else \
        ge(_Q, m * k * p / sympy.sqrt(M))
    return goal, [ge(_Q, _e("matmul.hk_explicit.lower")), ge(_Q, _e("matmul.trivial.lower")),
                  ge(k, 1)]


def _integer_table(ctx: CheckContext, target_id: str = "matmul.hk_explicit.lower",
                   dims: int = 4, caches: range = range(3, 17)) -> Verdict:
    hk = bound(target_id)
    m, k, p, M = symbols("m k p M")
    checked = 0
    for S in caches:
        for mm in range(1, dims + 1):
            for kk in range(1, dims + 1):
                for pp in range(1, dims + 1):
                    exact = hong_kung_matmul_bound(mm, kk, pp, S)
                    real = hk.expr.subs({m: mm, k: kk, p: pp, M: S})
                    # exact >= real  <=>  exact - real >= 0, decided by sympy on algebraic numbers
                    holds = sympy.Ge(exact, real)  # sympy decides it on algebraic numbers
                    if holds is not sympy.true and holds is not sympy.false:
                        return Undecided(f"sympy could not compare {exact} with {real}")
                    if holds is sympy.false:
                        return Refuted({"m": mm, "k": kk, "p": pp, "M": S, "exact": exact,
                                        "catalogue": str(real)},
                                       f"integer HK bound below {target_id}")
                    checked += 1
    return Proved(f"{checked} instances (m, k, p <= {dims}; {caches.start} <= M <= "
                  f"{caches.stop - 1}), exact arithmetic")


# ------------------------------------------------------------ Thm 4.4 small-cache reduction
def _reduction(which: str, denominator_of_d2: int, target: Callable[[], sympy.Expr]) -> Problem:
    n, d, M = symbols("n d M")
    matmul = _e(f"matmul.{which}.lower", m=n, k=d, p=n)
    return ge(_QA, target()), [ge(_QA + n ** 2, _QM), ge(_QM, matmul),
                               le(denominator_of_d2 * M, d ** 2)]


def _cache(blocks_per_m: int) -> Problem:
    M, = symbols("M")
    return le(3 * _B ** 2 + _B, M), [ge(_B, 1), le(blocks_per_m * _B ** 2, M)]


# ------------------------------------------------------------ the steps composed by machine
_BETA_PART = sympy.Symbol("beta_part", positive=True)   # trees (products) one part meets
_PI = sympy.Symbol("pi_part", positive=True)


def _thm42_chain(*, weaken_extra_trees: bool = False, drop: str | None = None) -> Chain:
    r"""Li et al. Thm 4.2 with Saha–Ye's constants, large cache: the registered steps composed.

    Premises — the pebble-game facts of the argument for one part of a :math:`2M`-partition
    (Saha–Ye Lemmas 3.3, 3.4, Hong–Kung Lemma 3.1; RECONSTRUCTED): the part's :math:`C` extra
    trees span :math:`I` rows and :math:`J` columns with :math:`(I+J)d \le 2M` and
    :math:`IJ \ge C`; it meets :math:`\beta \le 4M + C` trees; :math:`P\beta \ge n^2`;
    :math:`Q \ge M(P - 1)`; :math:`M \ge d^2`. Steps: ``sy.lemma33.extra_trees`` at :math:`2M`,
    the trees per part, the number of parts, ``sy.lemma34.explicit``,
    ``sy.lemma34.large_cache_form``. Conclusion: :math:`Q \ge n^2d^2/(8M) - M`.
    ``weaken_extra_trees`` / ``drop`` plant the false twins."""
    n, d, M = symbols("n d M")
    two_m = 2 * M
    extra_goal, extra_hyps = _extra_trees(1)
    extra_goal = le(_C, two_m ** 2 / d ** 2)                  # the builder's step at 2M
    extra_hyps = [le((_I + _J) * d, two_m), extra_hyps[1]]
    # the twin proves a weaker step; the next step still cites the statement it needs
    proved_extra = le(_C, 2 * two_m ** 2 / d ** 2) if weaken_extra_trees else extra_goal
    per_part = le(_BETA_PART, 4 * M + 4 * M ** 2 / d ** 2)
    explicit_goal, (parts, hk) = _lemma34(lambda: _e("fwd.large_explicit.lower"))
    large_goal, large_hyps = _large_cache_form(8)
    premises = [*extra_hyps, le(_BETA_PART, 4 * M + _C), ge(_P * _BETA_PART, n ** 2), hk,
                *large_hyps]
    steps = [("sy.lemma33.extra_trees at 2M", proved_extra, extra_hyps),
             ("trees per part ≤ 4M + 4M²/d²", per_part, [premises[2], extra_goal]),
             ("parts P ≥ n²/(4M + 4M²/d²)", parts, [premises[3], per_part]),
             ("sy.lemma34.explicit", explicit_goal, [parts, hk]),
             ("sy.lemma34.large_cache_form", large_goal, large_hyps)]
    steps = [st for st in steps if st[0] != drop]
    return sympy_chain(premises, steps, ge(_Q, n ** 2 * d ** 2 / (8 * M) - M))


def _hk_chain(*, weaken_sum: bool = False, drop: str | None = None) -> Chain:
    r"""Hong–Kung Cor. 6.2 with the Lean formalisation's constants: the registered steps composed.

    Premises (one part of a :math:`2M`-partition of an :math:`m\times k\cdot k\times p`
    product; background §3.3, with finding F7's caveat that the per-slice count needs
    :math:`M \ge 2`, checked exhaustively by ``partlemma.matmul_part``): slice :math:`l` holds
    :math:`t_l \le \min(2M, \alpha_l\beta_l)` products; :math:`\sum(\alpha_l+\beta_l) \le 2M`;
    the part holds :math:`\pi \le t_1+t_2+t_3` products; :math:`P\pi \ge mkp`;
    :math:`Q \ge M(P-1)`; :math:`Q \ge mk + kp + mp`. Steps: ``hk.matmul.slice`` (three
    slices), ``hk.matmul.slices_sum``, the number of parts, ``hk.lemma31.matmul_explicit``,
    ``hk.lean_combined``. Conclusion: ``matmul.lean_combined.lower``."""
    m, k, p, M = symbols("m k p M")
    sum_goal, sum_hyps = _slices_sum(2)
    per_slice, budget = sum_hyps[:3], sum_hyps[3]
    # the twin proves a weaker sum; the next step still cites the statement it needs
    proved_sum = le(sum(_T), 2 * M * sympy.sqrt(2 * M)) if weaken_sum else sum_goal
    explicit_goal, (hk, parts) = _hk_explicit(lambda: _e("matmul.hk_explicit.lower"))
    lean_goal, (q_hk, q_trivial, k_ge_1) = _lean_combined(1)
    slices = [le(t, sympy.Min(2 * M, a * b, evaluate=False)) for t, a, b in zip(_T, _ALPHA, _BETA)]
    premises = [*slices, budget, le(_PI, sum(_T)), ge(_P * _PI, m * k * p), hk, q_trivial, k_ge_1]
    steps: list[tuple[str, Any, Sequence[Any]]] = [
        (f"hk.matmul.slice {i + 1}", per_slice[i], [slices[i]]) for i in range(3)]
    steps += [("hk.matmul.slices_sum", proved_sum, sum_hyps),
              ("parts P ≥ mkp/(M√(2M))", parts, [premises[4], premises[5], sum_goal]),
              ("hk.lemma31.matmul_explicit", explicit_goal, [hk, parts]),
              ("hk.lean_combined", lean_goal, [q_hk, q_trivial, k_ge_1])]
    steps = [st for st in steps if st[0] != drop]
    return sympy_chain(premises, steps, lean_goal)


def _chain_claim(cid: str, statement: str, source: str, build: Callable[[], Chain], *,
                 twin_of: str | None = None, expect_reason: str = "") -> Claim:
    def check(ctx: CheckContext) -> Verdict:
        return check_chain(build(), timeout_ms=ctx.z3_timeout_ms,
                           second_solver=ctx.second_solver)
    return Claim(id=cid, statement=statement, formal="chain: every step proved, the conclusion "
                 "from the steps alone (attnio.smt.chains)", source=source,
                 method="z3 NRA chain (attnio.smt.chains)", family=FAMILY, check_fn=check,
                 reconstructed=True, twin_of=twin_of, evidence_kind="smt-forall",
                 expect_reason=expect_reason)


def _c(cid: str, statement: str, source: str, build: Callable[[], Problem], **kw: Any
       ) -> Claim:
    return z3_claim(cid, statement, source, FAMILY, build, **kw)


def _sym3():
    return symbols("n d M")


CLAIMS = [
    _c("sy.lemma33.rows_cols", "I*J >= C implies I + J >= sqrt(C) (I, J, C > 0)", SY33,
       lambda: _rows_cols(1)),
    _c("sy.lemma33.extra_trees", "(I+J)*d <= M and I*J >= C imply C <= M**2/d**2 "
       "(I, J, C, d, M > 0)", SY33, lambda: _extra_trees(1)),
    _c("sy.lemma33.extra_trees_quarter", "(I+J)*d <= M and I*J >= C imply C <= M**2/(4*d**2) "
       "(AM-GM; 4x sharper than the paper's step)", f"{SY33}; attnio sharpening",
       lambda: _extra_trees(4), reconstructed=True),
    _c("sy.lemma33.entries_per_part", "M >= d**2 implies M**2/d**2 + M <= 2*M**2/d**2 "
       "(entries of QK^T one part computes)", f"{SY33} (introduction)",
       lambda: _entries_per_part(True)),
    _c("sy.lemma34.explicit", "P >= n**2/(4M + 4M**2/d**2) and Q >= M*(P - 1) imply "
       "Q >= fwd.large_explicit.lower (n, d, M, P, Q > 0)", SY34,
       lambda: _lemma34(lambda: _e("fwd.large_explicit.lower")), reconstructed=True),
    _c("sy.lemma34.explicit_sharp", "P >= n**2/(4M + M**2/d**2) (parts meet <= 4M + M**2/d**2 "
       "trees, using extra_trees_quarter for a 2M-partition) and Q >= M*(P - 1) imply "
       "Q >= n**2*d**2/(M + 4*d**2) - M — about 4x the reconstructed constant for M >> d**2 "
       "(finding F6)", f"{SY34}; attnio sharpening", lambda: _lemma34_sharp(4),
       reconstructed=True),
    _c("sy.lemma34.large_cache_form", "M >= d**2 implies fwd.large_explicit.lower >= "
       "n**2*d**2/(8M) - M", SY34, lambda: _large_cache_form(8), reconstructed=True),
    _c("hk.matmul.slice", "min(2M, alpha*beta) <= sqrt(2M)*(alpha + beta)/2 "
       "(M > 0, alpha, beta >= 0)", HK, lambda: _slice(2)),
    _c("hk.matmul.slices_sum", "three slices: t_l <= sqrt(2M)(alpha_l + beta_l)/2 and "
       "sum(alpha_l + beta_l) <= 2M imply sum t_l <= M*sqrt(2M)", HK, lambda: _slices_sum(2)),
    _c("hk.lemma31.matmul_explicit", "Q >= M*(P - 1) and P >= mkp/(M*sqrt(2M)) imply "
       "Q >= matmul.hk_explicit.lower", HK,
       lambda: _hk_explicit(lambda: _e("matmul.hk_explicit.lower"))),
    _c("hk.lean_combined", "Q >= matmul.hk_explicit.lower, Q >= matmul.trivial.lower and k >= 1 "
       "imply Q >= matmul.lean_combined.lower (mkp <= 2 Q sqrt(M))", HK,
       lambda: _lean_combined(1)),
    _c("li.thm44.reduction_hk", "Q_att + n**2 >= Q_mm >= matmul.hk_explicit.lower(m=n, k=d, p=n) "
       "and M <= d**2/8 imply Q_att >= n**2*d/(2*sqrt(2M)) - M — finding F5", LI44,
       lambda: _reduction("hk_explicit", 8, lambda: _red_target(2)), reconstructed=True),
    _c("li.thm44.reduction_smith", "Q_att + n**2 >= Q_mm >= matmul.smith.lower(m=n, k=d, p=n) "
       "and M <= d**2 imply Q_att >= n**2*d/sqrt(M) - 2M", LI44,
       lambda: _reduction("smith", 1, lambda: _smith_target(1)), reconstructed=True),
    _c("sy.alg1.cache", "B >= 1 and 4B**2 <= M imply 3B**2 + B <= M (SquareTiling's cache use)",
       "Saha & Ye Algorithm 1, arXiv 2402.07443", lambda: _cache(4)),
    Claim(id="li.thm42.level1_count", statement="the attention DAGs (forward, backward qkv; "
          "tree and chain summation; n, d <= 4) have n**2 QK^T summation trees of 2d - 1 "
          "level-1 vertices each: N = n**2*(2d - 1) >= n**2*d, the count explicit_routes "
          "charges", formal="qk_trees(G): n² trees, each of 2d − 1 vertices (exact)",
          source="Li et al. Thm 4.2, arXiv 2410.09397 (proof step 4)",
          method="exact count on the DAG builders", family=FAMILY, check_fn=_level1_count,
          reconstructed=True, evidence_kind="exhaustive"),
    _chain_claim("li.thm42.chain", "for one part of a 2M-partition: (I+J)d <= 2M, IJ >= C, "
                 "beta <= 4M + C, P*beta >= n**2, Q >= M(P - 1), M >= d**2 imply "
                 "Q >= n**2*d**2/(8M) - M, through sy.lemma33.extra_trees (at 2M), the trees "
                 "per part, the number of parts, sy.lemma34.explicit and "
                 "sy.lemma34.large_cache_form — each proved, the conclusion from them alone",
                 f"{SY34}; Li et al. Thm 4.2, arXiv 2410.09397", _thm42_chain),
    _chain_claim("hk.cor62.chain", "slices t_l <= min(2M, alpha_l*beta_l), "
                 "sum(alpha_l + beta_l) <= 2M, pi <= sum t_l, P*pi >= mkp, Q >= M(P - 1), "
                 "Q >= mk + kp + mp imply Q >= matmul.lean_combined.lower, through "
                 "hk.matmul.slice (x3), hk.matmul.slices_sum, the number of parts, "
                 "hk.lemma31.matmul_explicit and hk.lean_combined — each proved, the "
                 "conclusion from them alone", HK, _hk_chain),
]


def _red_target(half: int) -> sympy.Expr:
    n, d, M = _sym3()
    return n ** 2 * d / (half * sympy.sqrt(2 * M)) - M


def _smith_target(factor: int) -> sympy.Expr:
    n, d, M = _sym3()
    return factor * n ** 2 * d / sympy.sqrt(M) - 2 * M


_TW = "planted false twin"
FALSE_TWINS = [
    _c("sy.lemma33.rows_cols.twin_factor_3", "FALSE: I*J >= C implies I + J >= 3*sqrt(C)",
       f"{_TW} (constant too large)", lambda: _rows_cols(3), twin_of="sy.lemma33.rows_cols"),
    _c("sy.lemma33.extra_trees.twin_eighth", "FALSE: (I+J)d <= M, IJ >= C imply C <= M**2/(8d**2)",
       f"{_TW} (constant too small)", lambda: _extra_trees(8),
       twin_of="sy.lemma33.extra_trees_quarter"),
    _c("sy.lemma33.entries_per_part.twin_any_cache",
       "FALSE: M**2/d**2 + M <= 2*M**2/d**2 for all M, d > 0",
       f"{_TW} (dropped hypothesis M >= d**2)", lambda: _entries_per_part(False),
       twin_of="sy.lemma33.entries_per_part"),
    _c("sy.lemma34.explicit.twin_factor_2", "FALSE: ... imply Q >= n**2*d**2/(2(M + d**2)) - M",
       f"{_TW} (constant too large)",
       lambda: _lemma34(lambda: _sym3()[0] ** 2 * _sym3()[1] ** 2
                        / (2 * (_sym3()[2] + _sym3()[1] ** 2)) - _sym3()[2]),
       twin_of="sy.lemma34.explicit"),
    _c("sy.lemma34.explicit_sharp.twin_d2", "FALSE: P >= n**2/(4M + M**2/d**2), Q >= M(P - 1) "
       "imply Q >= n**2*d**2/(M + d**2) - M", f"{_TW} (constant too large)",
       lambda: _lemma34_sharp(1), twin_of="sy.lemma34.explicit_sharp"),
    _c("sy.lemma34.large_cache_form.twin_quarter",
       "FALSE: M >= d**2 implies fwd.large_explicit.lower >= n**2*d**2/(4M) - M",
       f"{_TW} (constant too large)", lambda: _large_cache_form(4),
       twin_of="sy.lemma34.large_cache_form"),
    _c("hk.matmul.slice.twin_sqrt_M", "FALSE: min(2M, alpha*beta) <= sqrt(M)*(alpha+beta)/2",
       f"{_TW} (constant too small)", lambda: _slice(1), twin_of="hk.matmul.slice"),
    _c("hk.matmul.slices_sum.twin_sqrt_M", "FALSE: ... sum t_l <= M*sqrt(M)",
       f"{_TW} (constant too small)", lambda: _slices_sum(1), twin_of="hk.matmul.slices_sum"),
    _c("hk.lemma31.matmul_explicit.twin_sqrt_M", "FALSE: ... imply Q >= mkp/sqrt(M) - M",
       f"{_TW} (constant too large)",
       # mypy types an immediately called lambda's parameters from the *tuple: not an error.
       lambda: _hk_explicit(lambda: (lambda m, k, p, M: m * k * p / sympy.sqrt(M) - M)(  # type: ignore[operator]
           *symbols("m k p M"))), twin_of="hk.lemma31.matmul_explicit"),
    _c("hk.lean_combined.twin_factor_2", "FALSE: ... imply Q >= mkp/sqrt(M)",
       f"{_TW} (constant too large)", lambda: _lean_combined(2), twin_of="hk.lean_combined"),
    _c("li.thm44.reduction_hk.twin_whole_small_cache",
       "FALSE: Q_att + n**2 >= Q_mm >= matmul.hk_explicit.lower(n, d, n) and M <= d**2 imply "
       "Q_att >= n**2*d/(2*sqrt(2M)) - M — finding F5", f"{_TW} (range too wide)",
       lambda: _reduction("hk_explicit", 1, lambda: _red_target(2)),
       twin_of="li.thm44.reduction_hk"),
    _c("li.thm44.reduction_smith.twin_factor_2",
       "FALSE: ... matmul.smith.lower ... imply Q_att >= 2*n**2*d/sqrt(M) - 2M",
       f"{_TW} (constant too large)",
       lambda: _reduction("smith", 1, lambda: _smith_target(2)),
       twin_of="li.thm44.reduction_smith"),
    _c("sy.alg1.cache.twin_third", "FALSE: B >= 1 and 3B**2 <= M imply 3B**2 + B <= M",
       f"{_TW} (block too large)", lambda: _cache(3), twin_of="sy.alg1.cache"),
    Claim(id="li.thm42.level1_count.twin_2d", statement="FALSE: every QK^T summation tree "
          "has 2d level-1 vertices", formal="qk_trees(G): trees of 2d vertices",
          source=f"{_TW} (count too large)", method="exact count on the DAG builders",
          family=FAMILY, check_fn=lambda ctx: _level1_count(ctx, per_tree=lambda d: 2 * d),
          reconstructed=True, evidence_kind="exhaustive", twin_of="li.thm42.level1_count"),
    _chain_claim("li.thm42.chain.twin_without_extra_trees",
                 "FALSE as a proof: li.thm42.chain with the step sy.lemma33.extra_trees deleted",
                 f"{_TW} (a step deleted)",
                 lambda: _thm42_chain(drop="sy.lemma33.extra_trees at 2M"),
                 twin_of="li.thm42.chain", expect_reason="does not follow from the steps"),
    _chain_claim("li.thm42.chain.twin_weak_extra_trees",
                 "FALSE as a proof: li.thm42.chain with C <= 4M**2/d**2 weakened to "
                 "C <= 8M**2/d**2 (still true)", f"{_TW} (a step weakened)",
                 lambda: _thm42_chain(weaken_extra_trees=True),
                 twin_of="li.thm42.chain", expect_reason="does not follow from the steps"),
    _chain_claim("hk.cor62.chain.twin_without_slice",
                 "FALSE as a proof: hk.cor62.chain with the second slice's step deleted",
                 f"{_TW} (a step deleted)", lambda: _hk_chain(drop="hk.matmul.slice 2"),
                 twin_of="hk.cor62.chain", expect_reason="does not follow from the steps"),
    _chain_claim("hk.cor62.chain.twin_weak_sum",
                 "FALSE as a proof: hk.cor62.chain with sum t_l <= M*sqrt(2M) weakened to "
                 "2M*sqrt(2M) (still true)", f"{_TW} (a step weakened)",
                 lambda: _hk_chain(weaken_sum=True),
                 twin_of="hk.cor62.chain", expect_reason="does not follow from the steps"),
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
