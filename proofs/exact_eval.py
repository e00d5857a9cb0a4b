r"""Exact evaluation of a sympy statement at a point: the referee of every counterexample.

A solver's model is only a *claim* that a statement is false somewhere. Before attnio says
Refuted, the point is substituted into the **original** sympy statement (before any change of
variables) and evaluated here, exactly:

* numbers stay exact: integers, rationals, algebraic numbers (z3's algebraic model values
  arrive as :class:`sympy.CRootOf`), and constants such as :math:`\cos(\pi/7)`;
* :func:`sign_of` decides the sign of a number. Zero is decided *exactly*, by the minimal
  polynomial (a real algebraic number is 0 iff its minimal polynomial is :math:`x`); a nonzero
  sign is read from ``evalf(strict=True)`` at rising precision, which raises rather than
  return digits it cannot guarantee. A number whose zero-ness cannot be decided this way
  (e.g. a transcendental difference that sympy cannot reduce) has sign ``None``;
* :func:`truth_at` evaluates relations, ``And``/``Or``/``Not``/``Implies``/``Equivalent``,
  ``Min``/``Max``/``Piecewise`` with three-valued logic: ``True``, ``False`` or ``None``
  (undetermined, or undefined such as a division by zero or a square root of a negative
  number). ``None`` never becomes a verdict other than Undecided;
* :func:`in_domain` checks that a value lies in a declared domain
  (:data:`~attnio.proofs.kernel.DOMAINS`).

Examples
--------
>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> truth_at(sp.Le(x**2, 2), {x: sp.sqrt(2)})
True
>>> truth_at(sp.Lt(x**2, 2), {x: sp.sqrt(2)})
False
>>> sign_of(sp.cos(sp.pi/7) - sp.cos(2*sp.pi/7) + sp.cos(3*sp.pi/7) - sp.Rational(1, 2))
0
>>> sign_of(sp.sqrt(5 + 2*sp.sqrt(6)) - sp.sqrt(2) - sp.sqrt(3))
0
>>> truth_at(sp.Ge(1 / x, 0), {x: 0}) is None     # undefined: never a counterexample
True
"""

from __future__ import annotations

from typing import Mapping

import sympy as sp

__all__ = ["sign_of", "value_at", "truth_at", "in_domain", "UNDEFINED"]

_X = sp.Dummy("x")

#: Values that make an expression undefined at a point (never a counterexample).
UNDEFINED = (sp.nan, sp.zoo, sp.oo, -sp.oo)

_PRECISIONS = (30, 60, 120, 240)


class _Undetermined(Exception):
    """Raised inside the evaluator when a value or a sign cannot be decided exactly."""


def sign_of(value: sp.Expr) -> int | None:
    """The sign (-1, 0, 1) of a real number given as a closed sympy expression, or ``None``.

    ``None`` when the value is not real, is undefined, or its sign cannot be decided.

    >>> sign_of(sp.Rational(-3, 7)), sign_of(sp.sqrt(2) - sp.Rational(141, 100))
    (-1, 1)
    """
    value = sp.sympify(value)
    if value.free_symbols or value.has(*UNDEFINED):
        return None
    if value.is_Rational:
        return 1 if value > 0 else (-1 if value < 0 else 0)
    if value.is_real is False:
        return None
    zero: bool | None = None
    try:
        poly = sp.minimal_polynomial(value, _X)
        zero = sp.expand(poly - _X) == 0
    except Exception:  # NotAlgebraic, NotImplementedError, ...: decide nonzero-ness numerically
        zero = None
    if zero:
        return 0
    for prec in _PRECISIONS:
        try:
            approx = value.evalf(prec, strict=True)
        except Exception:  # PrecisionExhausted and friends: try more digits
            continue
        if not approx.is_Number or approx.is_real is False:
            return None
        if zero is False and approx != 0:
            return 1 if approx > 0 else -1
        # zero-ness unknown: only a value far above the working precision counts as nonzero
        if abs(approx) > sp.Float(10) ** (-(prec // 2)):
            return 1 if approx > 0 else -1
    return None


def _is_real_number(value: sp.Expr) -> bool:
    return value.is_real is True or (value.is_number and sign_of(sp.im(value)) == 0)


def value_at(expr: sp.Expr, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr | None:
    """Evaluate an arithmetic expression at ``point`` exactly; ``None`` if undefined there."""
    try:
        out = _value(sp.sympify(expr), point)
    except _Undetermined:
        return None
    if out.has(*UNDEFINED) or not _is_real_number(out):
        return None
    return out


def _value(e: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    if isinstance(e, sp.Symbol):
        if e not in point:
            raise _Undetermined(f"no value for {e}")
        return sp.sympify(point[e])
    if not e.args or e.is_Number:
        return e
    if isinstance(e, (sp.Min, sp.Max)):
        values = [_value(a, point) for a in e.args]
        best = values[0]
        for v in values[1:]:
            s = sign_of(v - best)
            if s is None:
                raise _Undetermined(f"cannot compare {v} and {best}")
            if (s < 0 and isinstance(e, sp.Min)) or (s > 0 and isinstance(e, sp.Max)):
                best = v
        return best
    if isinstance(e, sp.Piecewise):
        for expr, cond in e.args:
            truth = _truth(cond, point)
            if truth is None:
                raise _Undetermined(f"cannot decide the condition {cond}")
            if truth:
                return _value(expr, point)
        raise _Undetermined("no Piecewise branch applies")
    args = [_value(a, point) for a in e.args]
    out = e.func(*args)  # rebuilt with evaluation on (the statement may be unevaluated)
    if out.has(*UNDEFINED):
        raise _Undetermined(f"{e} is undefined at the point")
    return out


_RELATIONS = {
    sp.Eq: lambda s: s == 0, sp.Ne: lambda s: s != 0,
    sp.Lt: lambda s: s < 0, sp.Le: lambda s: s <= 0,
    sp.Gt: lambda s: s > 0, sp.Ge: lambda s: s >= 0,
}


def _truth(e: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> bool | None:
    if e is sp.true or e is True:
        return True
    if e is sp.false or e is False:
        return False
    for rel, test in _RELATIONS.items():
        if isinstance(e, rel):
            try:
                lhs, rhs = _value(e.lhs, point), _value(e.rhs, point)
            except _Undetermined:
                return None
            if not (_is_real_number(lhs) and _is_real_number(rhs)):
                return None
            s = sign_of(lhs - rhs)
            return None if s is None else bool(test(s))
    if isinstance(e, sp.Not):
        inner = _truth(e.args[0], point)
        return None if inner is None else not inner
    if isinstance(e, sp.And):
        parts = [_truth(a, point) for a in e.args]
        return False if False in parts else (None if None in parts else True)
    if isinstance(e, sp.Or):
        parts = [_truth(a, point) for a in e.args]
        return True if True in parts else (None if None in parts else False)
    if isinstance(e, sp.Implies):
        a, b = _truth(e.args[0], point), _truth(e.args[1], point)
        if a is False or b is True:
            return True
        return None if a is None or b is None else False
    if isinstance(e, sp.Equivalent):
        parts = [_truth(a, point) for a in e.args]
        return None if None in parts else len(set(parts)) == 1
    return None


def truth_at(statement: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> bool | None:
    """Three-valued truth of a sympy statement at ``point`` (``None``: undetermined/undefined)."""
    return _truth(statement, point)


def in_domain(value: sp.Expr, domain: str) -> bool | None:
    """Whether an exact value lies in a declared domain (``None`` if it cannot be decided).

    >>> in_domain(sp.Integer(3), "positive-integer"), in_domain(sp.Rational(1, 2), "integer")
    (True, False)
    >>> in_domain(sp.sqrt(2), "positive")
    True
    """
    value = sp.sympify(value)
    if "integer" in domain:
        if value.is_Integer is not True:
            if value.is_Rational:
                return False
            s = sign_of(value - sp.floor(value.evalf(50)))
            return None if s is None else False if s != 0 else None
    s = sign_of(value)
    if s is None:
        return None
    if domain.startswith("positive"):
        return s > 0
    if domain.startswith("nonnegative"):
        return s >= 0
    return True
