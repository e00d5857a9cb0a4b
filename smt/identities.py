r"""Identities ``lhs = rhs``: sympy first, then exact points, then the proof kernel.

:func:`check_identity` is how the claim modules and :mod:`attnio.symbolic` check that two
catalogue expressions agree. It is part of the proof kernel's trusted base; it only ever
answers Proved through ``simplify`` (with the declared assumptions, never a symbol's own
flags) on a difference defined everywhere, or through :func:`attnio.smt.kernel.prove_statement`,
and Refuted at a point where both sides are evaluated exactly and differ.
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping, Sequence

import sympy as sp

from attnio.exceptions import TranslationError
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.definedness import definedness
from attnio.smt.exact_eval import in_domain, sign_of, truth_at, value_at
from attnio.smt.statements import DOMAIN_ASSUMPTIONS, domains_of, point_text

__all__ = ["check_identity", "DEFAULT_TIMEOUT_S"]

#: Seconds for the kernel's part of a check (the kernel's own default).
DEFAULT_TIMEOUT_S = 20.0

_GRID_VALUES = {
    "real": (1, 2, 3, -1, sp.Rational(1, 2), 5, 7, -2),
    "positive": (1, 2, 3, sp.Rational(1, 2), 5, 7, sp.Rational(3, 2)),
    "nonnegative": (1, 2, 3, 0, 5, 7, sp.Rational(1, 2)),
    "integer": (1, 2, 3, -1, 5, 7, 0, -2),
    "positive-integer": (1, 2, 3, 5, 7, 4, 11),
    "nonnegative-integer": (1, 2, 3, 0, 5, 7, 4),
}
_GRID_POINTS = 512


def check_identity(lhs: sp.Expr, rhs: sp.Expr, domains: Mapping[Any, str] | None = None, *,
                   hypotheses: Sequence[sp.Basic] = (), timeout: float = DEFAULT_TIMEOUT_S,
                   second_solver: bool = True) -> Verdict:
    """Decide ``lhs == rhs`` for every point of the declared domains satisfying ``hypotheses``.

    1. ``simplify(lhs - rhs) == 0`` is a proof (evidence ``sympy-canonical``); ``!= 0`` only
       means sympy gave up.
    2. Otherwise points of the domains are tried and the difference is evaluated *exactly*
       there (:func:`~attnio.smt.exact_eval.sign_of`): a nonzero value is a counterexample
       (evidence ``exact-arithmetic``). This comes before the solvers: it is cheap, and it
       keeps false identities away from nonlinear integer search.
    3. Then the kernel decides ``Eq(lhs, rhs)`` (:func:`prove_statement`: SMT, an exactly
       checked counterexample); if it cannot, the answer is Undecided.

    Examples
    --------
    >>> n, d = sp.symbols("n d", positive=True, integer=True)
    >>> check_identity(d**2 * n / d, n * d).evidence.kind
    'sympy-canonical'
    >>> r = check_identity(d**2, d**2 / 2); r.verdict, r.counterexample["d"]
    ('refuted', '1')
    >>> check_identity(sp.cos(sp.pi/7) - sp.cos(2*sp.pi/7) + sp.cos(3*sp.pi/7), sp.Rational(1, 2)).verdict
    'proved'

    Side conditions
    ---------------
    1. ``simplify-declared-only``: sympy simplifies with each symbol's declared domain, never
       the symbol's own assumptions.
    2. ``simplify-where-defined``: a difference that simplifies to 0 proves the identity only
       when both sides are defined throughout the domains (and hypotheses).
    3. ``refuted-where-defined``: a grid point refutes only where it lies in the declared
       domains (re-checked point by point), both sides are defined, every hypothesis is true,
       and the exact difference is nonzero.
    4. ``kernel-undecided-stays``: what the kernel cannot decide is Undecided, never Proved.
    """
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    doms = domains_of(sp.Eq(lhs, rhs, evaluate=False), list(hypotheses), domains)
    # sympy reasons with the declared assumptions, never the symbols' own flags
    declared = {sym: sp.Dummy(str(sym), **DOMAIN_ASSUMPTIONS[dom]) for sym, dom in doms.items()}
    difference = sp.simplify((lhs - rhs).xreplace(declared))
    if difference == 0 and _defined_throughout(sp.Eq(lhs, rhs, evaluate=False), doms,
                                               hypotheses, timeout):
        return Proved(f"simplify(({lhs}) - ({rhs})) == 0",
                      evidence=Evidence("sympy-canonical"))
    # (a difference that simplifies to 0 where the sides are undefined somewhere, such as
    # x/x = 1 at x = 0, goes on to the kernel, which says where it holds)
    syms = list(doms)
    grids = [_GRID_VALUES[doms[s]] for s in syms]
    for values in itertools.islice(itertools.product(*grids), _GRID_POINTS):
        point = {s: sp.sympify(v) for s, v in zip(syms, values)}
        # a refutation holds only inside the declared domains: each point is re-checked
        # here, whatever the table above says
        if not all(in_domain(point[s], doms[s]) is True for s in syms) or \
                not all(truth_at(h, point) is True for h in hypotheses):
            continue
        a, b = value_at(lhs, point), value_at(rhs, point)
        if a is None or b is None:
            continue
        if sign_of(a - b) not in (0, None):
            return Refuted({**point_text(point), "lhs": str(a), "rhs": str(b)},
                                f"{lhs} != {rhs} at this point (exact evaluation)",
                                evidence=Evidence("exact-arithmetic"))
    verdict = _kernel().prove_statement(sp.Eq(lhs, rhs, evaluate=False), doms,
                                        hypotheses=hypotheses, timeout=timeout,
                                        second_solver=second_solver)
    if not isinstance(verdict, Undecided):
        return verdict
    return Undecided(f"simplify left {difference}; the solvers: {verdict.reason}; no point of "
                     f"the grid separates the two sides")


def _defined_throughout(statement: sp.Basic, doms: Mapping[sp.Symbol, str],
                        hypotheses: Sequence[sp.Basic], timeout: float) -> bool:
    """Is ``statement`` defined at every point of the domains satisfying ``hypotheses``
    (proved by the kernel when its definedness condition is not literally true)?"""
    try:
        condition = definedness(statement)
    except TranslationError:          # a function with no definedness rule (gamma, ...)
        return False
    if condition == sp.true:
        return True
    verdict = _kernel().prove_statement(condition, doms, hypotheses=hypotheses,
                                        timeout=timeout, second_solver=False)
    return isinstance(verdict, Proved) and verdict.where_defined is None


def _kernel() -> Any:
    """The proof kernel, which imports this module (so it is looked up at call time)."""
    from attnio.smt import kernel
    return kernel
