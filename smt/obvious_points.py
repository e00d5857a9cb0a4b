r"""Where to look first for a counterexample: the obvious points of a statement.

A statement a researcher writes is often false at a point anyone would try first — and a
solver's model is only one point, which for the exp/log fragment (:mod:`attnio.smt.explog`)
need not even be a real one. :func:`obvious_points` lists, for each symbol, in this order:

1. the small values of its declared domain: 0, 1, −1, 2, −2, 1/2, … (only those in the
   domain; the domain's edge — 0 for ``nonnegative``, 1 for ``positive-integer`` — first);
2. the **edges** of the statement: every real root of a polynomial of degree at most 4 in
   that one symbol among the statement's critical expressions — the two sides of each relation
   (``lhs − rhs``), each logarithm's argument and the argument minus 1 (where it changes
   sign), a base of a logarithm and the base minus 1, the base of a root or of a negative
   power (where it stops being defined) — with the integers next to it, and ±1/2 around a
   rational one; an expression ``k·exp(a·x + b) + c`` or ``k·log(a·x + b) + c`` (one
   monotone term, rational a ≠ 0 and b, constants k ≠ 0 and c) has its root by inverting
   the function (``exp(x) = 3`` at ``x = log 3``);
3. for a real symbol, the simplest rational strictly between two consecutive edges (a
   statement false only between ``log 3`` and ``log(7/2)`` is false at 5/4);
4. larger and smaller values (10, 100, 1/10, …).

Points combine the symbols' lists from the simplest (every symbol at its first value) outward,
at most ``limit`` of them. Nothing here decides anything: the kernel
(:mod:`attnio.smt.kernel`) evaluates the statement exactly at each point
(:mod:`attnio.smt.exact_eval`), and only a point where it is defined and false refutes.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> values_for(x, "real", [sp.log(x - 3) > 0])[:12]
[0, 1, -1, 2, -2, 1/2, -1/2, 4, 5, 3, 9/2, 7/2]
>>> pts = list(obvious_points([sp.log(x - 3) > 0], {x: "real"}, limit=5)); pts[-1]
{x: -2}
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import sympy as sp

from attnio.smt.exact_eval import in_domain, truth_at

__all__ = ["obvious_points", "values_for", "critical_expressions", "near_integer_points",
           "obvious_witness", "DEFAULT_LIMIT", "NEAR_POINTS"]

#: Points tried at most by default.
DEFAULT_LIMIT = 512

_HALF = sp.Rational(1, 2)
#: The small values of each domain, simplest first (step 1), and the far ones (step 3).
_SMALL = {
    "real": (0, 1, -1, 2, -2, _HALF, -_HALF),
    "positive": (1, 2, _HALF),
    "nonnegative": (0, 1, 2, _HALF),
    "integer": (0, 1, -1, 2, -2),
    "positive-integer": (1, 2, 3),
    "nonnegative-integer": (0, 1, 2),
}
_FAR = {
    "real": (3, -3, 4, 10, -10, sp.Rational(1, 10), 100, sp.Rational(1, 100)),
    "positive": (3, 4, sp.Rational(1, 4), 10, sp.Rational(1, 10), 100, sp.Rational(1, 100)),
    "nonnegative": (3, 4, sp.Rational(1, 4), 10, sp.Rational(1, 10), 100),
    "integer": (3, -3, 4, 5, 10, -10, 100),
    "positive-integer": (4, 5, 7, 10, 16, 100),
    "nonnegative-integer": (3, 4, 5, 10, 16, 100),
}
#: Most values per symbol (the product of the lists is cut to ``limit`` points anyway).
_MAX_VALUES = 24
#: Most index combinations sorted to find the simplest points.
_MAX_COMBINATIONS = 50_000


def critical_expressions(formulas: Iterable[sp.Basic]) -> list[sp.Expr]:
    """The expressions whose zeros are the edges of ``formulas`` (see the module docstring).

    >>> x = sp.Symbol("x", real=True)
    >>> critical_expressions([sp.Gt(sp.log(x - 3), 1 / x)])
    [log(x - 3) - 1/x, x - 3, x - 4, x]
    """
    out: list[sp.Expr] = []

    def add(e: sp.Expr) -> None:
        if e.free_symbols and e not in out:
            out.append(e)

    for formula in formulas:
        for node in sp.preorder_traversal(formula):
            if isinstance(node, sp.core.relational.Relational):
                add(node.lhs - node.rhs)
            elif isinstance(node, sp.log):
                for arg in node.args:
                    add(arg)
                    add(arg - 1)
            elif isinstance(node, sp.Pow) and not (node.exp.is_Integer and node.exp >= 0):
                add(node.base)
    return out


#: Highest degree of a polynomial whose roots are edges (sympy's Poly of x**(10**8) would be
#: dense; roots beyond degree 4 have no radicals anyway).
_MAX_DEGREE = 4


def _degree_bound(e: sp.Basic) -> float:
    """An upper bound of the degree of ``e`` as a rational function, read off its tree without
    building it (``inf`` for a non-integer power or a function)."""
    if e.is_Atom:
        return 1 if e.free_symbols else 0
    if isinstance(e, sp.Pow):
        if not e.exp.is_Integer:
            return math.inf if e.base.free_symbols else 0
        return _degree_bound(e.base) * abs(int(e.exp))
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_degree_bound(a) for a in e.args]
        return sum(parts) if isinstance(e, sp.Mul) else max(parts)
    return math.inf if e.free_symbols else 0


#: Largest expression (sympy's count_ops) whose exp/log root is looked for by inversion.
_MAX_INVERTED_OPS = 40


def _inverted_root(e: sp.Expr, sym: sp.Symbol) -> list[sp.Expr]:
    """The root of ``k·f(a·sym + b) + c`` with f = exp or log (module docstring, step 2),
    as an exact expression (``log(3)``), when it is real; else []."""
    if e.count_ops() > _MAX_INVERTED_OPS:
        return []
    moving = [t for t in sp.Add.make_args(e) if t.has(sym)]
    if len(moving) != 1:
        return []
    rest = e - moving[0]
    coeff, f = moving[0].as_independent(sym, as_Add=False)
    if not isinstance(f, (sp.exp, sp.log)) or coeff.is_zero is not False:
        return []
    value = -rest / coeff
    if value.is_extended_real is not True:
        return []
    inner = sp.Poly(f.args[0], sym) if f.args[0].is_polynomial(sym) else None
    if inner is None or inner.degree() != 1 or not all(c.is_Rational
                                                        for c in inner.all_coeffs()):
        return []
    a, b = inner.all_coeffs()
    if isinstance(f, sp.exp):
        if value.is_positive is not True:
            return []
        target = sp.log(value)
    else:
        target = sp.exp(value)
    return [(target - b) / a]


def _simplest_between(lo: float, hi: float, max_denominator: int = 64) -> sp.Rational | None:
    """The rational p/q of least q (then least p) with lo < p/q < hi, q <= max_denominator.

    >>> _simplest_between(1.0986, 1.2528)
    5/4
    """
    for q in range(1, max_denominator + 1):
        p = math.floor(lo * q) + 1
        if p / q < hi:
            return sp.Rational(p, q)
    return None


def _roots(e: sp.Expr, sym: sp.Symbol) -> list[sp.Expr]:
    """Real roots of ``e`` as a polynomial of degree 1 to 4 in ``sym`` alone, or of one
    exp/log term of a linear argument (:func:`_inverted_root`), else []."""
    if e.free_symbols != {sym}:
        return []
    if _degree_bound(e) > _MAX_DEGREE:
        try:
            return _inverted_root(e, sym)
        except (sp.PolynomialError, ValueError, TypeError):
            return []
    try:
        numerator = sp.fraction(sp.together(e))[0]
        poly = sp.Poly(numerator, sym)
    except (sp.PolynomialError, sp.GeneratorsNeeded, ValueError, TypeError):
        return []
    if not 1 <= poly.degree() <= 4 or not all(c.is_Rational for c in poly.all_coeffs()):
        return []
    try:
        return list(dict.fromkeys(sp.real_roots(poly)))
    except Exception:  # noqa: BLE001 - a display of edges is never worth a crash
        return []


def _near(root: sp.Expr, integer: bool) -> list[sp.Expr]:
    """The root (if it may be used) and its neighbours (integers, or ±1/2 and ±1); none when
    its floor cannot be taken (``1 + exp(exp(exp(2)))``, the inverted root of ``log(n - 1) =
    exp(exp(2))``, raised OverflowError)."""
    try:
        below = math.floor(root)
    except (TypeError, ValueError, OverflowError):
        return []
    neighbours = [sp.Integer(below), sp.Integer(below + 1), sp.Integer(below - 1),
                  sp.Integer(below + 2)]
    if integer:
        return neighbours
    if root.is_Rational:
        return [root, root + 1, root - 1, root + _HALF, root - _HALF]
    return [root, *neighbours]


def values_for(sym: sp.Symbol, domain: str, formulas: Sequence[sp.Basic]) -> list[sp.Expr]:
    """The values tried for ``sym`` (in its declared ``domain``), in order, at most
    :data:`_MAX_VALUES`, each in the domain and none repeated."""
    integer = "integer" in domain
    candidates: list[sp.Expr] = [sp.sympify(v) for v in _SMALL[domain]]
    edges: set[float] = set()
    for e in critical_expressions(formulas):
        for root in _roots(e, sym):
            candidates += _near(root, integer)
            try:
                edge = float(root)
            except (TypeError, ValueError, OverflowError):
                continue
            if math.isfinite(edge):     # an infinite edge has no rational beside it
                edges.add(edge)
    if not integer:  # step 3: between two consecutive edges
        ordered = sorted(edges)
        candidates += [r for lo, hi in zip(ordered, ordered[1:])
                       if (r := _simplest_between(lo, hi)) is not None]
    candidates += [sp.sympify(v) for v in _FAR[domain]]
    out: list[sp.Expr] = []
    for value in candidates:
        if value not in out and in_domain(value, domain) is True:
            out.append(value)
        if len(out) >= _MAX_VALUES:
            break
    return out


def obvious_points(formulas: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str], *,
                   limit: int = DEFAULT_LIMIT) -> Iterator[dict[sp.Symbol, sp.Expr]]:
    """At most ``limit`` points of the declared domains, simplest first: the symbols' value
    lists (:func:`values_for`) combined by increasing largest index, then by the sum of the
    indices (every symbol at a small value before any symbol at a far one)."""
    syms = sorted(doms, key=str)
    if not syms:
        return
    lists = [values_for(s, doms[s], formulas) for s in syms]
    # the product can be large: keep as many values per symbol as ``limit`` points need
    # (the largest count whose product stays within _MAX_COMBINATIONS, found from its root:
    # stepping down from limit ** (1/n) took limit steps for one symbol, minutes at 10**9)
    cap = max(1, int(_MAX_COMBINATIONS ** (1 / len(syms))))
    while (cap + 1) ** len(syms) <= _MAX_COMBINATIONS:
        cap += 1
    while cap > 1 and cap ** len(syms) > _MAX_COMBINATIONS:
        cap -= 1
    per_symbol = min(max(1, math.ceil(limit ** (1 / len(syms))) + 1), cap)
    lists = [values[:per_symbol] for values in lists]
    order = sorted(itertools.product(*(range(len(v)) for v in lists)),
                   key=lambda idx: (max(idx), sum(idx), idx))
    for idx in order[:limit]:
        yield {s: values[i] for s, values, i in zip(syms, lists, idx)}


def obvious_witness(formulas: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
                    tick: Callable[[], object] = lambda: None, *,
                    limit: int = DEFAULT_LIMIT) -> bool:
    """Is some obvious point of the domains a model of every formula — each *true* there by
    exact evaluation (undefined is not true)? ``tick`` is called before each point (the
    kernel's clock, which raises when the time is up).

    >>> x = sp.Symbol("x", real=True)
    >>> obvious_witness([x > 3, x < 4], {x: "real"}), obvious_witness([x > 3, x < 3], {x: "real"})
    (True, False)

    Side conditions
    ---------------
    1. ``every-formula-true``: a witness makes every formula true by exact evaluation (one
       false or undefined formula is no witness).
    2. ``points-in-domain``: every point tried lies in the declared domains.
    3. ``edges-tried``: the roots of a critical expression (with the integers next to them;
       an exp/log term's root by inversion) are among a symbol's values, and for a real
       symbol the simplest rational between two consecutive roots, so a statement false
       only at or between its edges is caught.
    """
    for point in obvious_points(formulas, doms, limit=limit):
        tick()
        if all(truth_at(f, point) is True for f in formulas):
            return True
    return False


#: Integer points tried near a relaxed counterexample (at most).
NEAR_POINTS = 729


def near_integer_points(point: Mapping[sp.Symbol, sp.Expr], doms: Mapping[sp.Symbol, str]
                        ) -> Iterable[dict[sp.Symbol, sp.Expr]]:
    """Integer points around a relaxed model: ``floor − 1 … floor + 2`` of each coordinate of
    an integer-domain symbol (the others as they are), at most :data:`NEAR_POINTS`.

    >>> n = sp.Symbol("n")
    >>> [p[n] for p in near_integer_points({n: sp.Rational(5, 2)}, {n: "integer"})]
    [1, 2, 3, 4]
    """
    choices = []
    for sym, dom in doms.items():
        value = point[sym]
        if "integer" not in dom:
            choices.append([value])
            continue
        base = int(sp.floor(value))
        choices.append([sp.Integer(v) for v in sorted({base - 1, base, base + 1, base + 2})])
    syms = list(doms)
    for combo in itertools.islice(itertools.product(*choices), NEAR_POINTS):
        yield dict(zip(syms, combo))
