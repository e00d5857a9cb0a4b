r"""The two branches of the backward bound (Thm 1.1 of arXiv 2410.09397), proved by z3.

Theorem 1.1 (Li, Liang, Shi, Song, Yue, Zhang; v2 form, via the sciencestack TL;DR and the
ICLR 2026 reviews) states the I/O complexity of the attention backward pass with standard
matrix multiplication as

.. math::

    \Theta\Bigl(\min\Bigl\{\underbrace{\tfrac{n^2d^2 + nd^3}{M}}_{b_1},\;
    \underbrace{\tfrac{n^2d + nd^2}{\sqrt M}}_{b_2}\Bigr\}\Bigr),

with :math:`n` the sequence length, :math:`d` the head dimension and :math:`M` the cache size.
The expressions are read from the catalogue entry ``bwd.tight`` (``expr`` and ``branches``).
Proof map — every claim holds for **every real** :math:`n, d, M > 0` (z3, :math:`M = s^2`):

* ``bwd.tight.first_branch``      — :math:`M \ge d^2 \Rightarrow \min = b_1` (large cache);
* ``bwd.tight.second_branch``     — :math:`M \le d^2 \Rightarrow \min = b_2` (small cache);
* ``bwd.tight.crossover_exact``   — :math:`b_1 \le b_2 \iff M \ge d^2` (crossover exactly d²);
* ``bwd.tight.branch_ratio``      — :math:`b_1 = (d/\sqrt M)\, b_2` (RECONSTRUCTED observation);
* ``bwd.tight.equal_at_crossover``— at :math:`M = d^2`: :math:`b_1 = b_2 = n^2 + nd`;
* ``bwd.tight.forward_sandwich``  — for :math:`d \le n`:
  :math:`\mathrm{fwd.tight} \le \mathrm{bwd.tight} \le 2\,\mathrm{fwd.tight}` (the extra
  :math:`nd^3, nd^2` terms are absorbed; the reduced form equals Saha–Ye's forward bound).

* ``bwd.regimes.*`` — ``bwd.large.upper`` and ``bwd.small.upper`` each equal ``bwd.tight`` on
  their own admissible range (the catalogue agrees with itself). ``bwd.large.lower`` and
  ``bwd.small.lower`` are the very expressions of the branches with the branch regimes as
  their ranges, so their agreement claims were ``first_branch`` / ``second_branch`` again
  (removed, issues 10 and 20; ``tests/proofs/test_verdict_honesty.py`` checks the catalogue
  still defines them so);
* ``bwd.flash1.optimal_large_cache`` — for :math:`M \ge d^2, d \le n`:
  :math:`\mathrm{flash1} \le \mathrm{bwd.tight} \le 2\,\mathrm{flash1}` (DFE+22's
  :math:`n^2d^2/M` is optimal; Thms 4.1–4.2).

False twins: the crossover at :math:`d^2/2`, the direction swapped, the ratio inverted, the
value :math:`n^2` at the crossover (the :math:`nd` dropped), and the sandwich without
:math:`d \le n`; the large-cache bound agreeing with the tight one below :math:`d^2`, the
small-cache one above it; FlashAttention optimal without :math:`d \le n`.

Run ``python -m attnio.proofs.backward_branches`` to check this family alone.

Examples
--------
>>> [c.id for c in CLAIMS][:2]
['bwd.tight.first_branch', 'bwd.tight.second_branch']
>>> all(t.twin_of for t in FALSE_TWINS)
True
"""

from __future__ import annotations

import sympy

from attnio.proofs.algebra import (
    Problem,
    agreement_claim,
    bound,
    eq,
    ge,
    le,
    min_of_two_claims,
    symbols,
    z3_claim,
)
from attnio.proofs.registry import run_module

__all__ = ["CLAIMS", "FALSE_TWINS"]

SOURCE = "Li et al. Thm 1.1, arXiv 2410.09397 (v2)"
FAMILY = "bwd.branches"


def _sym():
    return symbols("n d M")


_CLAIMS, _TWINS = min_of_two_claims(
    "bwd.tight", FAMILY, "bwd.tight", SOURCE,
    first_regime=lambda: ge(_sym()[2], _sym()[1] ** 2),
    second_regime=lambda: le(_sym()[2], _sym()[1] ** 2),
    wrong_regime=lambda: ge(_sym()[2], _sym()[1] ** 2 / 2),
    ratio=lambda: _sym()[1] / sympy.sqrt(_sym()[2]),
    crossover=lambda: eq(_sym()[2], _sym()[1] ** 2),
    value_at_crossover=lambda: _sym()[0] ** 2 + _sym()[0] * _sym()[1],
    wrong_value_at_crossover=lambda: _sym()[0] ** 2,
    regime_text=("M >= d**2", "M <= d**2"), ratio_text="d/sqrt(M)", value_text="n**2 + n*d",
    reconstructed=True,
)


def _forward_sandwich(with_side_condition: bool) -> Problem:
    n, d, M = _sym()
    fwd, bwd = bound("fwd.tight").expr, bound("bwd.tight").expr
    hyps = [le(d, n)] if with_side_condition else []
    return sympy.And(le(fwd, bwd), le(bwd, 2 * fwd)), hyps


def _flash_optimal(with_side_condition: bool) -> Problem:
    n, d, M = _sym()
    fa, tight = bound("bwd.flash1.upper").expr, bound("bwd.tight").expr
    hyps = [ge(M, d ** 2)] + ([le(d, n)] if with_side_condition else [])
    return sympy.And(le(fa, tight), le(tight, 2 * fa)), hyps


CLAIMS = _CLAIMS + [
    agreement_claim("bwd.regimes.large_upper", "bwd.large.upper", "bwd.tight", FAMILY,
                    reconstructed=True),
    agreement_claim("bwd.regimes.small_upper", "bwd.small.upper", "bwd.tight", FAMILY,
                    reconstructed=True),
    z3_claim("bwd.flash1.optimal_large_cache",
             "for M >= d**2 and d <= n: bwd.flash1.upper <= bwd.tight <= 2*bwd.flash1.upper "
             "(FlashAttention backward, DFE+22 Thm 5's n^2d^2/M, is optimal in the large cache)",
             "Li et al. Thms 4.1-4.2, arXiv 2410.09397; Dao et al. Thm 5, arXiv 2205.14135",
             FAMILY, lambda: _flash_optimal(True), reconstructed=True),

    z3_claim("bwd.tight.forward_sandwich",
             "for d <= n (n, d, M > 0 real): fwd.tight <= bwd.tight <= 2*fwd.tight, i.e. the "
             "nd^3/M and nd^2/sqrt(M) terms of Thm 1.1 are absorbed and the backward bound "
             "reduces to Saha-Ye's forward bound min{n^2d^2/M, n^2d/sqrt(M)}",
             SOURCE + "; reduction RECONSTRUCTED (notes/reference/paper.md §3)", FAMILY,
             lambda: _forward_sandwich(True), reconstructed=True),
]

FALSE_TWINS = _TWINS + [
    agreement_claim("bwd.tight.first_branch.twin_small_cache", "bwd.large.lower", "bwd.tight",
                    FAMILY, use_admissible=False,
                    extra_hypotheses=lambda: [le(_sym()[2], _sym()[1] ** 2)],
                    twin_of="bwd.tight.first_branch"),
    agreement_claim("bwd.regimes.small_upper.twin_large_cache", "bwd.small.upper", "bwd.tight",
                    FAMILY, use_admissible=False,
                    extra_hypotheses=lambda: [ge(_sym()[2], _sym()[1] ** 2)],
                    twin_of="bwd.regimes.small_upper"),
    z3_claim("bwd.flash1.optimal_large_cache.twin_no_side_condition",
             "FALSE: for M >= d**2 (any n): bwd.tight <= 2*bwd.flash1.upper",
             "planted false twin (dropped hypothesis d <= n)", FAMILY,
             lambda: _flash_optimal(False), twin_of="bwd.flash1.optimal_large_cache"),
    z3_claim("bwd.tight.forward_sandwich.twin_no_side_condition",
             "FALSE: bwd.tight <= 2*fwd.tight for all n, d, M > 0 (hypothesis d <= n dropped)",
             "planted false twin (dropped hypothesis)", FAMILY,
             lambda: _forward_sandwich(False), twin_of="bwd.tight.forward_sandwich"),
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
