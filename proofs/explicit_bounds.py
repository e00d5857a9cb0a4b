r"""The claims behind :mod:`attnio.graphs.lower_bounds.explicit` (the explicit-constant partition routes): the closed forms and their steps, machine-checked.

Claims: the integer route implies the closed forms (z3 NRA with :math:`r = \sqrt{2S}`), the
sympy identity :math:`S n^2/(4S + 4S^2/d^2) = n^2d^2/(4(S + d^2))`, the large-cache
simplification, and :math:`L` ≥ the closed form on a grid of exact integers; the steps
composed by machine (:mod:`attnio.smt.chains`): ``explicit.attention_chain``
(:math:`L \ge n^2d^2/(8S) - S` for :math:`S \ge d^2` from the closed form, the route's ceiling
and the large-cache step) and ``explicit.matmul_chain`` (:math:`L \ge N/\sqrt{2S} - S`). False
twins: a constant too large (:math:`n^2d^2/(2(S+d^2))`), the :math:`S \ge d^2` hypothesis
dropped, :math:`\sqrt S` in place of :math:`\sqrt{2S}`; each chain with a step deleted (and the
attention chain with its closed form weakened); the integer route one part fewer (matmul and
attention: one twin per failure path of the grid check).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy

from attnio.graphs.lower_bounds.explicit import (
    explicit_lower_bound,
)
from attnio.proofs.algebra import ge, le
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict
from attnio.smt.chains import Chain, check_chain, sympy_chain
from attnio.smt.kernel import check_identity, prove_statement

__all__ = [
    "CLAIMS",
    "FALSE_TWINS",
]


# --------------------------------------------------------------------------------------------
# Claims: the symbolic derivation steps
# --------------------------------------------------------------------------------------------


def _positive(names: str) -> tuple[sympy.Symbol, ...]:
    """Fresh symbols declared positive reals (the closed forms hold for every real value)."""
    return sympy.symbols(names, positive=True)


Problem = tuple[sympy.Basic, list[sympy.Basic]]


def _matmul_problem(root_factor: int = 2) -> Problem:
    """S(N/b − 1) ≥ N/√(root_factor·S) − S for every real 0 < b ≤ S√(2S), N > 0, S ≥ 2."""
    N, S, b = _positive("N S b")
    # the route gives S(⌈N/b⌉ − 1) ≥ S(N/b − 1); the claim: that is ≥ N/√(root_factor·S) − S
    return (ge(S * (N / b - 1), N / sympy.sqrt(root_factor * S) - S),
            [ge(S, 2), le(b, S * sympy.sqrt(2 * S))])


def _sy_route_problem(denominator: int = 4) -> Problem:
    """S(N/β − 1) with β ≤ (4S + 4S²/d²)(2d−1), N = n²(2d−1) ≥ n²d²/(den·(S + d²)) − S."""
    n, S, beta = _positive("n S beta")
    d = sympy.Symbol("d", positive=True)
    goal = ge(S * (n ** 2 * (2 * d - 1) / beta - 1),
              n ** 2 * d ** 2 / (denominator * (S + d ** 2)) - S)
    return goal, [ge(d, 1), ge(S, 1), le(beta, (4 * S + 4 * S ** 2 / d ** 2) * (2 * d - 1))]


def _sy_large_cache_problem(assume_large_cache: bool = True) -> Problem:
    """n²d²/(4(S + d²)) ≥ n²d²/(8S) when S ≥ d²."""
    n, d, S = _positive("n d S")
    return (ge(n ** 2 * d ** 2 / (4 * (S + d ** 2)), n ** 2 * d ** 2 / (8 * S)),
            [ge(S, d ** 2)] if assume_large_cache else [])


def _prove(problem: Problem, ctx: CheckContext) -> Verdict:
    goal, hypotheses = problem
    return prove_statement(goal, hypotheses=hypotheses, timeout=ctx.z3_timeout_ms / 1000,
                           second_solver=ctx.second_solver)


def _sy_identity(ctx: CheckContext, *, denominator: sympy.Expr | None = None) -> Verdict:
    """S·n²/(4S + 4S²/d²) = n²d²/(4(S + d²)) identically (sympy, else the kernel)."""
    n, d, S = _positive("n d S")
    route = S * n ** 2 / (4 * S + 4 * S ** 2 / d ** 2)
    target = n ** 2 * d ** 2 / (4 * (S + d ** 2) if denominator is None else denominator * S)
    return check_identity(route, target, timeout=ctx.z3_timeout_ms / 1000,
                          second_solver=ctx.second_solver)


_L = sympy.Symbol("L", nonnegative=True)   # the integer route's value


def _attention_chain(*, weaken_closed_form: bool = False, drop: str | None = None) -> Chain:
    r"""The attention route :math:`L = S(\lceil N/\beta\rceil - 1)` is at least
    :math:`n^2d^2/(8S) - S` when :math:`S \ge d^2`: ``explicit.attention_closed_form`` and
    ``explicit.attention_large_cache`` composed by machine. Premises: :math:`L \ge S(N/\beta-1)`
    (the ceiling), :math:`\beta \le (4S + 4S^2/d^2)(2d-1)` (``sy_part_bound`` at :math:`2S`, its
    floor dropped; ``partlemma.sy_part``), :math:`N = n^2(2d-1)` (``li.thm42.level1_count``),
    :math:`d \ge 1`, :math:`S \ge d^2`."""
    closed_goal, closed_hyps = _sy_route_problem(4)
    large_goal, large_hyps = _sy_large_cache_problem(True)
    n, S, beta = _positive("n S beta")
    d = sympy.Symbol("d", positive=True)
    ceiling = ge(_L, S * (n ** 2 * (2 * d - 1) / beta - 1))
    # the weakened twin proves less; the next step still cites what it needs
    proved_closed = _sy_route_problem(8)[0] if weaken_closed_form else closed_goal
    route_closed = ge(_L, n ** 2 * d ** 2 / (4 * (S + d ** 2)) - S)
    steps = [("explicit.attention_closed_form", proved_closed, closed_hyps),
             ("L ≥ n²d²/(4(S + d²)) − S", route_closed, [ceiling, closed_goal]),
             ("explicit.attention_large_cache", large_goal, large_hyps)]
    return sympy_chain([ceiling, *closed_hyps, *large_hyps],
                       [st for st in steps if st[0] != drop],
                       ge(_L, n ** 2 * d ** 2 / (8 * S) - S))


def _matmul_chain(*, drop: str | None = None) -> Chain:
    r"""The matmul route :math:`L = S(\lceil N/\beta\rceil - 1)` with
    :math:`\beta \le S\sqrt{2S}` (``matmul_part_bound``, ``partlemma.matmul_part``) is at least
    :math:`N/\sqrt{2S} - S` for :math:`S \ge 2`: ``explicit.matmul_closed_form`` composed with
    the ceiling."""
    closed_goal, closed_hyps = _matmul_problem(2)
    N, S, b = _positive("N S b")
    ceiling = ge(_L, S * (N / b - 1))
    target = ge(_L, N / sympy.sqrt(2 * S) - S)
    steps = [("explicit.matmul_closed_form", closed_goal, closed_hyps),
             ("L ≥ N/√(2S) − S", target, [ceiling, closed_goal])]
    return sympy_chain([ceiling, *closed_hyps], [st for st in steps if st[0] != drop], target)


def _chain_check(build: Callable[[], Chain]) -> Callable[[CheckContext], Verdict]:
    def check(ctx: CheckContext) -> Verdict:
        return check_chain(build(), timeout_ms=ctx.z3_timeout_ms,
                           second_solver=ctx.second_solver)
    return check


def _grid_check(ctx: CheckContext, *,
                route: Callable[[str, Mapping[str, Any], int], int] = explicit_lower_bound
                ) -> Verdict:
    """L(G, S) ≥ closed form at every grid point, in exact rational arithmetic.

    An instance is non-trivial when the closed form is positive (where it is ≤ 0, L ≥ 0
    satisfies it whatever the route computes). ``route`` replaces
    :func:`explicit_lower_bound` (false twins: one per failure path, matmul and attention)."""
    instances = nontrivial = 0
    for m in range(1, 7):
        for k in range(1, 7):
            for p in range(1, 7):
                for S in range(2, 41):
                    L = route("matmul", {"m": m, "k": k, "p": p}, S)
                    instances += 1
                    nontrivial += (m * k * p) ** 2 > 2 * S ** 3   # mkp/√(2S) − S > 0
                    # L ≥ mkp/√(2S) − S  ⟺  L + S ≥ 0 and (L + S)²·2S ≥ (mkp)²
                    if (L + S) ** 2 * 2 * S < (m * k * p) ** 2:
                        return Refuted({"m": m, "k": k, "p": p, "S": S, "L": L},
                                       "matmul route below mkp/√(2S) − S",
                                       evidence=Evidence.exhaustive(instances, nontrivial))
    for n in range(1, 21):
        for d in range(1, 9):
            for S in range(1, 41):
                L = route("attention-forward", {"n": n, "d": d}, S)
                closed = Fraction(n * n * d * d, 4 * (S + d * d)) - S
                instances += 1
                nontrivial += closed > 0
                if Fraction(L) < closed:
                    return Refuted({"n": n, "d": d, "S": S, "L": L},
                                   "attention route below n²d²/(4(S + d²)) − S",
                                   evidence=Evidence.exhaustive(instances, nontrivial))
    return Proved("exact check: m,k,p ≤ 6, S ≤ 40 (matmul); n ≤ 20, d ≤ 8, S ≤ 40 (attention)",
                  evidence=Evidence.exhaustive(instances, nontrivial))


def _one_part_fewer(kind: str) -> Callable[[str, Mapping[str, Any], int], int]:
    """explicit_lower_bound with S(⌈N/β⌉ − 2) for ``kind`` (a planted off-by-one part)."""
    def route(k: str, sizes: Mapping[str, Any], S: int) -> int:
        value = explicit_lower_bound(k, sizes, S)
        return max(0, value - S) if k == kind else value
    return route


_SRC_HK = "Hong–Kung 1981 Lemma 3.1 = Saha–Ye arXiv 2402.07443 Lemma 2.8"
_SRC_MM = _SRC_HK + "; matmul count notes/reference/background.md §3.3 (Lean formalisation)"
_SRC_SY = _SRC_HK + "; Saha–Ye Lemma 3.3 explicit constants (RECONSTRUCTED, background §1.4)"


_CHAIN = "z3 NRA chain (attnio.smt.chains)"
_EVIDENCE = {"z3 NRA": "smt-forall", _CHAIN: "smt-forall", "sympy simplify": "sympy-canonical",
             "exact enumeration": "exhaustive"}


def _claim(id: str, statement: str, formal: str, source: str, method: str, check,
           *, reconstructed: bool = False, twin_of: str | None = None,
           expect_reason: str = "") -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=source, method=method,
                 family="explicit_bounds", check_fn=check, reconstructed=reconstructed,
                 twin_of=twin_of, evidence_kind=_EVIDENCE[method], expect_reason=expect_reason)


CLAIMS: list[Claim] = [
    _claim("explicit.matmul_closed_form",
           "S(⌈mkp/β⌉ − 1) ≥ mkp/√(2S) − S whenever 0 < β ≤ S√(2S), S ≥ 2",
           "N>0 ∧ S≥2 ∧ r²=2S ∧ 0<b≤S·r ⇒ S(N/b − 1) ≥ N/r − S", _SRC_MM, "z3 NRA",
           lambda ctx: _prove(_matmul_problem(2), ctx)),
    _claim("explicit.attention_identity",
           "S·n²/(4S + 4S²/d²) = n²d²/(4(S + d²))",
           "simplify(lhs − rhs) == 0", _SRC_SY, "sympy simplify", _sy_identity,
           reconstructed=True),
    _claim("explicit.attention_closed_form",
           "S(⌈n²(2d−1)/β⌉ − 1) ≥ n²d²/(4(S + d²)) − S whenever 0 < β ≤ (4S + 4S²/d²)(2d−1)",
           "z3 NRA over reals n > 0, d ≥ 1, S ≥ 1", _SRC_SY, "z3 NRA",
           lambda ctx: _prove(_sy_route_problem(4), ctx), reconstructed=True),
    _claim("explicit.attention_large_cache",
           "n²d²/(4(S + d²)) ≥ n²d²/(8S) whenever S ≥ d² (so Q ≥ n²d²/(8S) − S)",
           "S ≥ d² ⇒ n²d²/(4(S+d²)) ≥ n²d²/(8S)", _SRC_SY, "z3 NRA",
           lambda ctx: _prove(_sy_large_cache_problem(True), ctx), reconstructed=True),
    _claim("explicit.integer_route_ge_closed_forms",
           "explicit_lower_bound ≥ mkp/√(2S) − S (matmul, S ≥ 2) and ≥ n²d²/(4(S+d²)) − S "
           "(attention) on a grid", "exact rational comparison", _SRC_SY, "exact enumeration",
           _grid_check, reconstructed=True),
    _claim("explicit.attention_chain",
           "S ≥ d², d ≥ 1, β ≤ (4S + 4S²/d²)(2d−1), L ≥ S(n²(2d−1)/β − 1) ⇒ L ≥ n²d²/(8S) − S: "
           "explicit.attention_closed_form and explicit.attention_large_cache composed by "
           "machine (each proved, the conclusion from them alone)",
           "chain (attnio.smt.chains)", _SRC_SY, _CHAIN, _chain_check(_attention_chain),
           reconstructed=True),
    _claim("explicit.matmul_chain",
           "S ≥ 2, β ≤ S√(2S), L ≥ S(N/β − 1) ⇒ L ≥ N/√(2S) − S: explicit.matmul_closed_form "
           "composed with the ceiling by machine", "chain (attnio.smt.chains)", _SRC_MM,
           _CHAIN, _chain_check(_matmul_chain)),
]

FALSE_TWINS: list[Claim] = [
    _claim("explicit.twin.attention_constant_too_large",
           "Route gives Q ≥ n²d²/(2(S + d²)) − S (constant 2 instead of 4)",
           "z3 NRA", _SRC_SY, "z3 NRA",
           lambda ctx: _prove(_sy_route_problem(2), ctx),
           twin_of="explicit.attention_closed_form"),
    _claim("explicit.twin.attention_identity_wrong",
           "S·n²/(4S + 4S²/d²) = n²d²/(4S)", "simplify(lhs − rhs) == 0", _SRC_SY,
           "sympy simplify",
           lambda ctx: _sy_identity(ctx, denominator=sympy.Integer(4)),
           twin_of="explicit.attention_identity"),
    _claim("explicit.twin.large_cache_hypothesis_dropped",
           "n²d²/(4(S + d²)) ≥ n²d²/(8S) for all S > 0 (S ≥ d² dropped)", "z3 NRA", _SRC_SY,
           "z3 NRA", lambda ctx: _prove(_sy_large_cache_problem(False), ctx),
           twin_of="explicit.attention_large_cache"),
    _claim("explicit.twin.matmul_sqrtS",
           "Route gives Q ≥ mkp/√S − S (√S instead of √(2S))", "z3 NRA", _SRC_MM, "z3 NRA",
           lambda ctx: _prove(_matmul_problem(1), ctx),
           twin_of="explicit.matmul_closed_form"),
    _claim("explicit.twin.matmul_route_one_part_fewer",
           "the matmul route S(⌈N/β⌉ − 2) (one part fewer) is still ≥ mkp/√(2S) − S",
           "exact rational comparison", _SRC_MM, "exact enumeration",
           lambda ctx: _grid_check(ctx, route=_one_part_fewer("matmul")),
           twin_of="explicit.integer_route_ge_closed_forms", expect_reason="matmul route below"),
    _claim("explicit.twin.attention_route_one_part_fewer",
           "the attention route S(⌈N/β⌉ − 2) (one part fewer) is still ≥ n²d²/(4(S + d²)) − S",
           "exact rational comparison", _SRC_SY, "exact enumeration",
           lambda ctx: _grid_check(ctx, route=_one_part_fewer("attention-forward")),
           twin_of="explicit.integer_route_ge_closed_forms",
           expect_reason="attention route below"),
    _claim("explicit.twin.attention_chain_without_large_cache",
           "explicit.attention_chain with the step explicit.attention_large_cache deleted",
           "chain", _SRC_SY, _CHAIN,
           _chain_check(lambda: _attention_chain(drop="explicit.attention_large_cache")),
           twin_of="explicit.attention_chain", expect_reason="does not follow from the steps"),
    _claim("explicit.twin.attention_chain_weak_closed_form",
           "explicit.attention_chain with the closed form weakened to n²d²/(8(S + d²)) − S "
           "(still true)", "chain", _SRC_SY, _CHAIN,
           _chain_check(lambda: _attention_chain(weaken_closed_form=True)),
           twin_of="explicit.attention_chain", expect_reason="does not follow from the steps"),
    _claim("explicit.twin.matmul_chain_without_closed_form",
           "explicit.matmul_chain with the step explicit.matmul_closed_form deleted", "chain",
           _SRC_MM, _CHAIN, _chain_check(lambda: _matmul_chain(drop="explicit.matmul_closed_form")),
           twin_of="explicit.matmul_chain", expect_reason="does not follow from the steps"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
