r"""Algorithm 6 against FlashAttention, and both against the tight bound, proved by z3.

Claims of arXiv 2410.09397 (Li et al., Thm 4.3 and Figure 1; Algorithm 6 RECONSTRUCTED, see
``notes/reference/paper.md`` §4.3) and of FlashAttention (Dao et al., arXiv 2205.14135, Thms 2 and 5). All
expressions come from the catalogue (:mod:`attnio.symbolic.catalogue`):

=============================  ==========================================================
``bwd.large.upper``            :math:`(n^2d^2 + nd^3)/M` — FlashAttention backward, v2 form
``bwd.small.upper``            :math:`(n^2d + nd^2)/\sqrt M` — Algorithm 6, leading terms
``bwd.alg6.upper``             the same plus :math:`n^2 + nd + d^2` (its full count)
``bwd.flash1.upper``           :math:`n^2d^2/M` — DFE+22 Thm 5 as printed
``fwd.flash1.upper``           :math:`n^2d^2/M`; ``fwd.square_tiling.upper`` :math:`n^2d/\sqrt M`
``bwd.standard``               :math:`nd + n^2` — standard backward (DFE+22 Thm 5)
=============================  ==========================================================

Proof map (every real :math:`n, d, M > 0` unless a range is stated):

* ``cmp.alg6_vs_flash.exact``     — :math:`\mathrm{small.upper} \le \mathrm{large.upper}
  \iff M \le d^2` (Figure 1's cross point, exactly);
* ``cmp.alg6_vs_flash.strict``    — the same with :math:`<` on both sides;
* (the ratio :math:`\mathrm{large.upper} = (d/\sqrt M)\,\mathrm{small.upper}` is
  ``bwd.tight.branch_ratio``, and ``bwd.tight = min(large.upper, small.upper)`` holds by the
  catalogue's definition of ``bwd.tight``: neither is a separate claim here);
* ``cmp.alg6_vs_flash1.exact``    — against the DFE+22 form :math:`n^2d^2/M` the crossover is
  *not* :math:`d^2` but :math:`M(n+d)^2 \le n^2d^2` (see notes/findings.md, F1);
* ``cmp.alg6_vs_flash1.sufficient`` — :math:`d \le n,\ 4M \le d^2 \Rightarrow
  \mathrm{small.upper} \le \mathrm{bwd.flash1.upper}`;
* ``cmp.alg6_full_vs_flash1``     — with Algorithm 6's full count: :math:`d \le n,\ 9M \le d^2
  \Rightarrow \mathrm{alg6.upper} \le \mathrm{bwd.flash1.upper}` (F2: false at :math:`M = d^2`);
* ``cmp.fwd_tiling_vs_flash.exact`` — :math:`\mathrm{square\_tiling} \le \mathrm{flash1}
  \iff M \le d^2` (Saha & Ye's small-cache algorithm beats FlashAttention exactly there);
* ``cmp.flash_vs_standard``       — :math:`M \ge d^2 \Rightarrow \mathrm{bwd.flash1.upper} \le
  \mathrm{bwd.standard}`;
* ``cmp.standard_below_lower_bound`` — for :math:`d \le M \le nd`, :math:`100M \le d^2`:
  :math:`\mathrm{bwd.small.lower} \ge 10\,\mathrm{bwd.standard}` — the catalogue's
  :math:`\Theta(nd + n^2)` for standard attention cannot hold in the small-cache part of its
  admissible range (F3).

These compare catalogue *forms*. The executed algorithms (exact counts of
:mod:`attnio.algorithms.counts`) are compared in :mod:`attnio.proofs.algorithm_counts`
(``cmp.executed.*``): Algorithm 6 ≤ FlashAttention-1 backward for :math:`M \le d^2/2`, square
tiling ≤ FlashAttention-1 forward for :math:`M \le d^2/4`, FlashAttention-1 ≤ standard backward
for :math:`M \ge 8d^2`; the ranges of the forms (:math:`M \le d^2`, :math:`M \ge d^2`) are
refuted twins there.

Twins: the exact crossover moved to :math:`d^2/2`; "Algorithm 6 ≤ FlashAttention (DFE form)
exactly when :math:`M \le d^2`" (F1); the full count for :math:`M \le d^2` (F2); the ratio
inverted; FlashAttention ≤ standard already from :math:`M \ge d^2/2`; the standard bound
consistent with the small-cache lower bound (F3).

Run ``python -m attnio.proofs.algorithm_comparison`` to check this family alone.

Examples
--------
>>> sorted({c.family for c in CLAIMS})
['comparison']
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from attnio.proofs.algebra import Problem, bound, ge, le, lt, symbols, z3_claim
from attnio.proofs.registry import Claim, run_module

__all__ = ["CLAIMS", "FALSE_TWINS"]

FAMILY = "comparison"
LI = "Li et al. Thm 4.3 / Figure 1, arXiv 2410.09397"
DFE = "Dao et al. Thm 5, arXiv 2205.14135"
SY = "Saha & Ye Thms 3.1, 3.5, arXiv 2402.07443"


def _e(bound_id: str) -> sympy.Expr:
    return bound(bound_id).expr


def _exact(small_id: str, large_id: str, crossover_factor: sympy.Rational) -> Problem:
    n, d, M = symbols("n d M")
    return sympy.Equivalent(le(_e(small_id), _e(large_id)),
                            le(M, crossover_factor * d ** 2)), []


def _strict() -> Problem:
    n, d, M = symbols("n d M")
    return sympy.Equivalent(lt(_e("bwd.small.upper"), _e("bwd.large.upper")), lt(M, d ** 2)), []


def _alg6_vs_flash1_exact(corrected: bool) -> Problem:
    n, d, M = symbols("n d M")
    crossover = le(M * (n + d) ** 2, n ** 2 * d ** 2) if corrected else le(M, d ** 2)
    return sympy.Equivalent(le(_e("bwd.small.upper"), _e("bwd.flash1.upper")), crossover), []


def _alg6_vs_flash1_sufficient() -> Problem:
    n, d, M = symbols("n d M")
    return le(_e("bwd.small.upper"), _e("bwd.flash1.upper")), [le(d, n), le(4 * M, d ** 2)]


def _alg6_full(denominator: int) -> Problem:
    n, d, M = symbols("n d M")
    return le(_e("bwd.alg6.upper"), _e("bwd.flash1.upper")), [le(d, n),
                                                             le(denominator * M, d ** 2)]


def _flash_vs_standard(factor: sympy.Rational) -> Problem:
    n, d, M = symbols("n d M")
    return le(_e("bwd.flash1.upper"), _e("bwd.standard")), [ge(M, factor * d ** 2)]


def _standard_vs_lower(consistent: bool) -> Problem:
    n, d, M = symbols("n d M")
    fa_range = [le(d, M), le(M, n * d)]
    if consistent:  # the twin: "standard's upper bound is never below a tenth of the lower"
        return ge(_e("bwd.standard"), _e("bwd.small.lower") / 10), fa_range
    return ge(_e("bwd.small.lower"), 10 * _e("bwd.standard")), fa_range + [le(100 * M, d ** 2)]


def _claim(cid: str, statement: str, source: str, build: Callable[[], Problem], **kw: Any
           ) -> Claim:
    return z3_claim(cid, statement, source, FAMILY, build, **kw)


CLAIMS = [
    _claim("cmp.alg6_vs_flash.exact",
           "bwd.small.upper <= bwd.large.upper exactly when M <= d**2 (all n, d, M > 0): "
           "Algorithm 6 is at least as good as FlashAttention backward exactly in the small cache",
           LI, lambda: _exact("bwd.small.upper", "bwd.large.upper", sympy.Integer(1)),
           reconstructed=True),
    _claim("cmp.alg6_vs_flash.strict",
           "bwd.small.upper < bwd.large.upper exactly when M < d**2 (all n, d, M > 0)",
           LI, _strict, reconstructed=True),
    _claim("cmp.alg6_vs_flash1.exact",
           "bwd.small.upper <= bwd.flash1.upper (DFE+22's n^2 d^2/M) exactly when "
           "M*(n+d)**2 <= n**2*d**2, i.e. sqrt(M) <= nd/(n+d) (all n, d, M > 0) — finding F1",
           f"{LI} vs {DFE}; attnio correction", lambda: _alg6_vs_flash1_exact(True),
           reconstructed=True),
    _claim("cmp.alg6_vs_flash1.sufficient",
           "for d <= n and M <= d**2/4: bwd.small.upper <= bwd.flash1.upper",
           f"{LI} vs {DFE}; attnio", _alg6_vs_flash1_sufficient, reconstructed=True),
    _claim("cmp.alg6_full_vs_flash1",
           "for d <= n and M <= d**2/9: bwd.alg6.upper (with its n^2 + nd + d^2 terms) "
           "<= bwd.flash1.upper — finding F2 (forms; the executed algorithms: "
           "cmp.executed.alg6_vs_flash1, M <= d**2/2)", f"{LI} vs {DFE}; attnio",
           lambda: _alg6_full(9),
           reconstructed=True),
    _claim("cmp.fwd_tiling_vs_flash.exact",
           "fwd.square_tiling.upper <= fwd.flash1.upper exactly when M <= d**2 "
           "(all n, d, M > 0) — forms; the executed algorithms swap near M = d**2/2 "
           "(cmp.executed.tiling_vs_flash1: M <= d**2/4)", SY,
           lambda: _exact("fwd.square_tiling.upper", "fwd.flash1.upper", sympy.Integer(1))),
    _claim("cmp.flash_vs_standard",
           "for M >= d**2: bwd.flash1.upper <= bwd.standard (FlashAttention backward never "
           "loses to standard attention in the large cache) — forms; the executed algorithms "
           "need M >= 8*d**2 on the grid (cmp.executed.flash1_vs_standard)", DFE,
           lambda: _flash_vs_standard(sympy.Integer(1))),
    _claim("cmp.standard_below_lower_bound",
           "for d <= M <= n*d and M <= d**2/100: bwd.small.lower >= 10*bwd.standard — the "
           "Theta(nd + n^2) of standard attention contradicts Thm 4.4 for M = o(d^2) — finding F3",
           f"{DFE} vs Li et al. Thm 4.4; attnio", lambda: _standard_vs_lower(False),
           reconstructed=True),
]

_TWIN = "planted false twin"
FALSE_TWINS = [
    _claim("cmp.alg6_vs_flash.exact.twin_half_crossover",
           "FALSE: bwd.small.upper <= bwd.large.upper exactly when M <= d**2/2",
           f"{_TWIN} (wrong crossover)",
           lambda: _exact("bwd.small.upper", "bwd.large.upper", sympy.Rational(1, 2)),
           twin_of="cmp.alg6_vs_flash.exact"),
    _claim("cmp.alg6_vs_flash1.exact.twin_naive_crossover",
           "FALSE: bwd.small.upper <= bwd.flash1.upper exactly when M <= d**2 (the naive "
           "reading of Figure 1 against DFE+22's printed bound) — finding F1",
           f"{_TWIN} (naive crossover)", lambda: _alg6_vs_flash1_exact(False),
           twin_of="cmp.alg6_vs_flash1.exact"),
    _claim("cmp.alg6_full_vs_flash1.twin_whole_small_cache",
           "FALSE: for d <= n and M <= d**2: bwd.alg6.upper <= bwd.flash1.upper — finding F2",
           f"{_TWIN} (range too wide)", lambda: _alg6_full(1),
           twin_of="cmp.alg6_full_vs_flash1"),
    _claim("cmp.flash_vs_standard.twin_half_crossover",
           "FALSE: for M >= d**2/2: bwd.flash1.upper <= bwd.standard",
           f"{_TWIN} (wrong crossover)", lambda: _flash_vs_standard(sympy.Rational(1, 2)),
           twin_of="cmp.flash_vs_standard"),
    _claim("cmp.standard_below_lower_bound.twin_consistent",
           "FALSE: for d <= M <= n*d: bwd.standard >= bwd.small.lower/10 (the catalogue's "
           "standard-attention bound is consistent with Thm 4.4 on its whole range) — finding F3",
           f"{_TWIN} (catalogue consistency)", lambda: _standard_vs_lower(True),
           twin_of="cmp.standard_below_lower_bound"),
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
