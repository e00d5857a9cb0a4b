r"""The symbolic claims of attnio as checkable statements, and their planted false twins.

Each entry is a :class:`SymbolicClaim` ``(id, statement, check)`` where ``check()`` returns a
verdict computed by :mod:`attnio.symbolic.crossovers` or :mod:`attnio.symbolic.dominance` —
nothing is typed in. :func:`false_twins` are perturbed statements (a wrong crossover, the wrong
winner, a dropped hypothesis) that the same checkers must reject (``Refuted``).
:data:`SOURCES` maps each id to ``(source, reconstructed)`` for the proofs registry.

=====================================  ====================================================
claim                                  checked by
=====================================  ====================================================
``crossover.bwd`` / ``.fwd``           solveset on Thm 1.1 / SY Thm 3.1 branches = ``d**2``
``crossover.sparse``                   solveset on Thm 4.5 branches = ``Z_in**2/Z_QK``
``crossover.sparse_dense``             that crossover at Z_in = n d, Z_QK = n^2 is ``d**2``
``branch.*``                           :func:`~attnio.symbolic.crossovers.branch_ratio`
``dominance.flash_vs_alg6.*``          exponent-space sign of FA-bwd ÷ Algorithm 6
``dominance.sparse_dense.*``           Thm 4.5 at the dense instance = dense bound
``dominance.thm11_extra_terms.*``      nd³, nd² terms dominated exactly when n >= d
``dominance.flash_optimal_large`` ...  FA-bwd / Alg. 6 match Thm 1.1 in their regimes
=====================================  ====================================================

Examples
--------
>>> claims = {c.id: c for c in symbolic_claims()}
>>> claims["crossover.bwd"].check().verdict
'proved'
>>> twins = {t.id: t for t in false_twins()}
>>> twins["twin.crossover.bwd_half"].check().verdict
'refuted'
>>> ident, statement, check = dominance_claims()[0]
>>> check().verdict
'proved'
"""

from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

import sympy as sp

from attnio.results import Proved, Refuted, Verdict
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.crossovers import (
    branch_ratio,
    check_branch_minimum,
    check_crossover,
    crossover,
)
from attnio.symbolic.dominance import DEFAULT_REGION, DENSE_INSTANCE, check_sign
from attnio.symbolic.symbols import Z_QK, M, Z_in, alpha, beta, d, n

__all__ = [
    "SymbolicClaim", "SOURCES", "symbolic_claims", "crossover_claims", "branch_claims",
    "dominance_claims", "false_twins", "check_catalogue_identity", "all_of",
]


class SymbolicClaim(NamedTuple):
    """``(id, statement, check)``; ``check()`` returns a Verdict."""

    id: str
    statement: str
    check: Callable[[], Verdict]


_LI = "Li et al., arXiv 2410.09397"
SOURCES: dict[str, tuple[str, bool]] = {}


def _claim(id: str, statement: str, check: Callable[[], Verdict], source: str,
           reconstructed: bool) -> SymbolicClaim:
    SOURCES[id] = (source, reconstructed)
    return SymbolicClaim(id, statement, check)


def check_catalogue_identity(a: sp.Expr, b: sp.Expr) -> Verdict:
    """Claim ``a == b`` identically, decided by the proof kernel
    (:func:`attnio.smt.kernel.check_identity`): Proved by ``simplify(a - b) == 0`` or by the
    SMT solvers; Refuted only with a point of the symbols' declared domains where both sides,
    evaluated exactly, differ; Undecided otherwise.

    Examples
    --------
    >>> check_catalogue_identity(d**2 * n / d, n * d).verdict
    'proved'
    >>> r = check_catalogue_identity(d**2, d**2 / 2)
    >>> r.verdict, r.counterexample["d"]
    ('refuted', '1')
    """
    from attnio.smt.kernel import check_identity

    return check_identity(a, b)


def all_of(*checks: Callable[[], Verdict]) -> Verdict:
    """Conjunction of verdicts: Proved iff all Proved; the first Refuted otherwise; else the
    first Undecided.

    >>> all_of(lambda: Proved("a"), lambda: Proved("b")).verdict
    'proved'
    """
    verdicts = [c() for c in checks]
    for v in verdicts:
        if isinstance(v, Refuted):
            return v
    for v in verdicts:
        if not v.proved:
            return v
    return Proved("; ".join(v.detail for v in verdicts))


def _sparse_dense_crossover(claimed: sp.Expr) -> Verdict:
    return check_catalogue_identity(crossover("sparse.lower").solution.subs(DENSE_INSTANCE), claimed)


def _ratio_is(bound: str, claimed: sp.Expr) -> Verdict:
    br = branch_ratio(bound)
    if not br.verdict.proved:
        return br.verdict
    return check_catalogue_identity(br.ratio, claimed)


_BETA_POS = (alpha >= 1, alpha <= 1 + beta, beta > 0)
_NEG_BETA = (alpha >= 1, alpha <= 1 + beta, beta > 0, beta < 1)


def _extra_terms_iff() -> Verdict:
    """nd³/M = O(n²d²/M) and nd²/√M = O(n²d/√M) exactly when β >= 1."""
    pairs = ((n * d**3 / M, n**2 * d**2 / M), (n * d**2 / sp.sqrt(M), n**2 * d / sp.sqrt(M)))
    return all_of(*(
        (lambda x=x, y=y, region=region, sign=sign: check_sign(x, y, region, sign))
        for x, y in pairs
        for region, sign in ((DEFAULT_REGION, "nonpositive"), (_NEG_BETA, "positive"))
    ))


def crossover_claims() -> list[SymbolicClaim]:
    """Crossovers derived by solveset (never typed in) against the stated values."""
    return [
        _claim("crossover.bwd", "The branches of Thm 1.1 (backward) are equal exactly at "
               "M = d**2 (admissible iff d <= n)", lambda: check_crossover("bwd.tight", d**2),
               f"{_LI}, Thm 1.1", True),
        _claim("crossover.fwd", "The branches of Saha-Ye Thm 3.1 (forward) are equal exactly "
               "at M = d**2", lambda: check_crossover("fwd.tight", d**2),
               "Saha & Ye, arXiv 2402.07443, Thm 3.1", False),
        _claim("crossover.sparse", "The branches of the sparse bound (Thm 4.5) are equal "
               "exactly at M = Z_in**2/Z_QK",
               lambda: check_crossover("sparse.lower", Z_in**2 / Z_QK),
               f"{_LI}, Thm 4.5", True),
        _claim("crossover.sparse_dense", "At the dense instance Z_in = n d, Z_QK = n**2 the "
               "sparse crossover Z_in**2/Z_QK is d**2",
               lambda: _sparse_dense_crossover(d**2), f"{_LI}, Thm 4.5 vs Thm 1.1", True),
        _claim("crossover.fwd_any", "The finite-field bound min(n²d²/M, n²) (SY Thm 4.8) "
               "switches branch at M = d**2 too",
               lambda: check_crossover("fwd.any.lower", d**2),
               "Saha & Ye, arXiv 2402.07443, Thm 4.8", False),
    ]


def branch_claims() -> list[SymbolicClaim]:
    """Which branch of each min is the minimum on each side of its crossover."""
    out = [
        _claim("branch.bwd.ratio", "The first branch of Thm 1.1 is exactly d/sqrt(M) times "
               "the second", lambda: _ratio_is("bwd.tight", d / sp.sqrt(M)),
               f"{_LI}, Thm 1.1 (observation, RECONSTRUCTED)", True),
        _claim("branch.fwd.ratio", "The first branch of SY Thm 3.1 is exactly d/sqrt(M) times "
               "the second", lambda: _ratio_is("fwd.tight", d / sp.sqrt(M)),
               "Saha & Ye, arXiv 2402.07443, Thm 3.1", False),
    ]
    for bound, name, source, rec in (("bwd.tight", "Thm 1.1", f"{_LI}, Thm 1.1", True),
                                     ("fwd.tight", "SY Thm 3.1", "Saha & Ye, Thm 3.1", False),
                                     ("sparse.lower", "Thm 4.5", f"{_LI}, Thm 4.5", True)):
        short = bound.split(".")[0]
        out += [
            _claim(f"branch.{short}.large", f"Above its crossover (large cache) the minimum of "
                   f"{name} is its first branch",
                   partial(check_branch_minimum, bound, 0, "above"), source, rec),
            _claim(f"branch.{short}.small", f"Below its crossover (small cache) the minimum of "
                   f"{name} is its second branch",
                   partial(check_branch_minimum, bound, 1, "below"), source, rec),
        ]
    return out


def dominance_claims() -> list[SymbolicClaim]:
    """The exponent-space claims of issue 2 (region 1 <= alpha <= 1 + beta, beta >= 1 unless
    stated): FA-bwd ÷ Algorithm 6, the sparse bound at the dense instance, the extra terms."""
    fa, a6 = "bwd.flash1.upper", "bwd.alg6.upper"
    return [
        _claim("dominance.flash_vs_alg6.small_cache", "FlashAttention backward ÷ Algorithm 6 "
               "-> infinity for alpha < 2 (M = o(d^2))",
               lambda: check_sign(fa, a6, DEFAULT_REGION + (alpha < 2,), "positive"),
               f"{_LI}, Thm 4.3 / Fig. 1; DFE+22 Thm 5", True),
        _claim("dominance.flash_vs_alg6.crossover", "FlashAttention backward ÷ Algorithm 6 = "
               "Theta(1) at alpha = 2 (M = d^2)",
               lambda: check_sign(fa, a6, DEFAULT_REGION + (sp.Eq(alpha, 2),), "zero"),
               f"{_LI}, Fig. 1", True),
        _claim("dominance.flash_vs_alg6.large_cache", "FlashAttention backward ÷ Algorithm 6 "
               "-> 0 for alpha > 2",
               lambda: check_sign(fa, a6, DEFAULT_REGION + (alpha > 2,), "negative"),
               f"{_LI}, Fig. 1", True),
        _claim("dominance.sparse_dense.equals_reduced", "Thm 4.5 at Z_in = n d, Z_QK = n^2 is "
               "symbolically min(n²d²/M, n²d/sqrt(M)) (Thm 1.1 without its nd³, nd² terms)",
               lambda: check_catalogue_identity(get_bound("sparse.lower").expr.subs(DENSE_INSTANCE),
                                      get_bound("fwd.tight").expr),
               f"{_LI}, Thm 4.5", True),
        _claim("dominance.sparse_dense.same_order_bwd", "Thm 4.5 at the dense instance has the "
               "same order as Thm 1.1 everywhere on 1 <= alpha <= 1 + beta, beta >= 1",
               lambda: check_sign("sparse.lower", "bwd.tight", DEFAULT_REGION, "zero",
                                  substitute=DENSE_INSTANCE),
               f"{_LI}, Thm 4.5 vs Thm 1.1", True),
        _claim("dominance.thm11_extra_terms.iff_n_ge_d", "nd³/M = O(n²d²/M) and "
               "nd²/sqrt(M) = O(n²d/sqrt(M)) exactly when n >= d (beta >= 1); for beta < 1 "
               "both extra terms grow strictly faster", _extra_terms_iff,
               f"{_LI}, Thm 1.1 (RECONSTRUCTED observation)", True),
        _claim("dominance.thm11_reduces_to_forward", "For n >= d Thm 1.1 has the same order "
               "as the forward bound (SY Thm 3.1)",
               lambda: check_sign("bwd.tight", "fwd.tight", DEFAULT_REGION, "zero"),
               f"{_LI}, Thm 1.1; Saha & Ye Thm 3.1", True),
        _claim("dominance.flash_optimal_large_cache", "FlashAttention backward matches Thm 1.1 "
               "for alpha >= 2 and is strictly worse for alpha < 2",
               lambda: all_of(
                   lambda: check_sign(fa, "bwd.tight", DEFAULT_REGION + (alpha >= 2,), "zero"),
                   lambda: check_sign(fa, "bwd.tight", DEFAULT_REGION + (alpha < 2,),
                                      "positive")),
               f"{_LI}, Thms 4.1-4.2", True),
        _claim("dominance.alg6_optimal_small_cache", "Algorithm 6 matches Thm 1.1 for "
               "alpha <= 2", lambda: check_sign(a6, "bwd.tight",
                                               DEFAULT_REGION + (alpha <= 2,), "zero"),
               f"{_LI}, Thms 4.3-4.4", True),
    ]


def symbolic_claims() -> list[SymbolicClaim]:
    """Every true claim of this module (crossover, branch, dominance)."""
    return crossover_claims() + branch_claims() + dominance_claims()


def false_twins() -> list[SymbolicClaim]:
    """Planted false claims; each must come out Refuted.

    >>> [t.check().verdict for t in false_twins()[:2]]
    ['refuted', 'refuted']
    """
    fa, a6 = "bwd.flash1.upper", "bwd.alg6.upper"
    return [
        _claim("twin.crossover.bwd_half", "the crossover of Thm 1.1 is at d²/2",
               lambda: check_crossover("bwd.tight", d**2 / 2), "false twin", True),
        _claim("twin.crossover.fwd_at_d", "the crossover of SY Thm 3.1 is at M = d",
               lambda: check_crossover("fwd.tight", d), "false twin", True),
        _claim("twin.crossover.sparse_sqrt", "the sparse crossover is at Z_in/sqrt(Z_QK)",
               lambda: check_crossover("sparse.lower", Z_in / sp.sqrt(Z_QK)), "false twin",
               True),
        _claim("twin.crossover.sparse_dense_nd", "the dense sparse crossover is at M = n d",
               lambda: _sparse_dense_crossover(n * d), "false twin", True),
        _claim("twin.branch.bwd_ratio_square", "the first branch of Thm 1.1 is d²/M times the "
               "second", lambda: _ratio_is("bwd.tight", d**2 / M), "false twin", True),
        _claim("twin.branch.bwd_large_is_small", "the first branch of Thm 1.1 is the minimum "
               "below d² (small cache)", lambda: check_branch_minimum("bwd.tight", 0, "below"),
               "false twin", True),
        _claim("twin.branch.sparse_second_above", "the second branch of Thm 4.5 is the "
               "minimum above its crossover",
               lambda: check_branch_minimum("sparse.lower", 1, "above"), "false twin", True),
        _claim("twin.dominance.flash_wins_small", "FlashAttention wins for alpha < 2 "
               "(FA ÷ Alg. 6 -> 0)",
               lambda: check_sign(fa, a6, DEFAULT_REGION + (alpha < 2,), "negative"),
               "false twin", True),
        _claim("twin.dominance.tie_large", "FA ÷ Alg. 6 = Theta(1) for alpha > 2",
               lambda: check_sign(fa, a6, DEFAULT_REGION + (alpha > 2,), "zero"),
               "false twin", True),
        _claim("twin.dominance.sparse_dense_all_n", "the dense sparse bound has the order of "
               "Thm 1.1 for every n (hypothesis n >= d dropped)",
               lambda: check_sign("sparse.lower", "bwd.tight", _BETA_POS, "zero",
                                  substitute=DENSE_INSTANCE), "false twin", True),
        _claim("twin.dominance.extra_terms_always", "nd³/M = O(n²d²/M) for every n "
               "(hypothesis n >= d dropped)",
               lambda: check_sign(n * d**3 / M, n**2 * d**2 / M, _BETA_POS, "nonpositive"),
               "false twin", True),
        _claim("twin.dominance.sparse_dense_equals_bwd", "Thm 4.5 at the dense instance is "
               "symbolically Thm 1.1 (with the nd³, nd² terms)",
               lambda: check_catalogue_identity(get_bound("sparse.lower").expr.subs(DENSE_INSTANCE),
                                      get_bound("bwd.tight").expr), "false twin", True),
    ]


# Fill SOURCES at import, so that a caller may look up any id before building the lists.
symbolic_claims()
false_twins()
