r"""The exp/log fragment: ``exp`` and ``log`` as uninterpreted functions with true axioms.

SMT arithmetic has no exponential. The bridge (:mod:`attnio.smt.sympy_to_z3`) therefore
translates every ``exp(a)`` as :data:`EXP` applied to the translation of ``a`` and every
``log(b)`` as :data:`LOG` applied to that of ``b`` — functions z3 knows nothing about — and
adds, for the terms of the statement, *instances* of the axioms below: facts every real
exponential and logarithm satisfy. What this buys, and what it does not:

* a **Proved** is sound: the real ``exp`` and ``log`` satisfy every instance, so a real
  counterexample would be a model of the query, which z3 showed has none;
* a z3 **model** proves nothing: it may give ``exp`` values no real exponential has. Every
  model goes to the exact referee (:mod:`attnio.smt.exact_eval`), which evaluates the
  *original* statement with the real functions; a point it does not confirm is excluded and
  z3 asked again, exactly as for any other model (:mod:`attnio.smt.kernel`, rule 5). A
  Refuted of this fragment always comes from exact evaluation at a concrete point.

The axioms
----------
Each is a claim of the registry (``attnio verify --only 'explog.*'``, module
``attnio.proofs.explog_axioms``) with a false twin, proved by :func:`check_axiom` from its
own statement with sympy's calculus, never with the bridge that uses it:

=========================  ==================================================================
``explog.exp_positive``    :math:`e^x > 0`
``explog.exp_sign``        :math:`e^x > 1 \iff x > 0`, :math:`e^x < 1 \iff x < 0`, :math:`e^0=1`
``explog.exp_monotone``    :math:`x < y \Rightarrow e^x < e^y`
``explog.exp_tangent``     :math:`e^x \ge 1 + x`, strictly for :math:`x \ne 0`
``explog.exp_tangent_one`` :math:`e^x \ge e\,x`, strictly for :math:`x \ne 1` (the tangent at 1)
``explog.exp_taylor2``     :math:`x \ge 0 \Rightarrow e^x \ge 1 + x + x^2/2`, strictly for :math:`x > 0`
``explog.exp_upper``       :math:`x < 1 \Rightarrow e^x (1 - x) \le 1`, strictly for :math:`x \ne 0`
``explog.exp_add``         :math:`e^{x+y} = e^x e^y`
``explog.exp_scale``       :math:`e^{kx} = (e^x)^k` for an integer :math:`k`
``explog.log_exp``         :math:`\log e^x = x`
``explog.exp_log``         :math:`x > 0 \Rightarrow e^{\log x} = x`
``explog.log_sign``        :math:`x > 0`: :math:`\log x > 0 \iff x > 1`, :math:`\log x < 0 \iff
                           x < 1`, :math:`\log 1 = 0`
``explog.log_monotone``    :math:`0 < x < y \Rightarrow \log x < \log y`
``explog.log_tangent``     :math:`x > 0 \Rightarrow \log x \le x - 1`, strictly for :math:`x \ne 1`
``explog.log_tangent_e``   :math:`x > 0 \Rightarrow \log x \le x/e`, strictly for :math:`x \ne e`
                           (the tangent at :math:`e`: :math:`\log_2 n \le n`)
``explog.log_taylor2``     :math:`x \ge 1 \Rightarrow \log x \ge (x-1) - (x-1)^2/2`, strictly
                           for :math:`x > 1` (:math:`\log(1+t) \ge t - t^2/2`, :math:`t \ge 0`)
``explog.log_lower``       :math:`x > 0 \Rightarrow x \log x \ge x - 1` (:math:`\log x \ge 1 -
                           1/x`), strictly for :math:`x \ne 1`
``explog.log_mul``         :math:`x, y > 0 \Rightarrow \log(xy) = \log x + \log y`
``explog.log_pow``         :math:`x > 0 \Rightarrow \log(x^y) = y \log x`
``explog.pow_exp``         :math:`x > 0 \Rightarrow x^y = e^{y \log x}` (how a power with a
                           symbolic exponent is translated)
=========================  ==================================================================

Sources: the textbook facts of real analysis (e.g. W. Rudin, *Principles of Mathematical
Analysis*, 3rd ed., Ch. 8, "The exponential and logarithmic functions", Thm 8.6).

Side conditions
---------------
Each has a planted violation in ``tests/smt/test_side_conditions.py`` (the trust tier):

* ``explog.axioms-are-proved`` — an axiom enters the bridge only as an instance of a statement
  :func:`check_axiom` proves; a false axiom (each registered twin) is refuted at an exact point.
* ``explog.instances-match-statements`` — each instance function says what its statement says
  (checked at real values of ``exp`` and ``log``, 50 digits, at many points).
* ``explog.constant-bounds-are-certified`` — a constant ``exp(c)`` / ``log(c)`` / ``E`` / ``pi``
  gets rational bounds only when the referee certifies both (:func:`certified_bounds`).
* ``explog.models-are-refereed`` — a z3 model of the fragment never refutes by itself: the
  referee evaluates the statement with the real functions first.

Examples
--------
>>> import sympy as sp
>>> check_axiom(AXIOMS_BY_ID["explog.exp_tangent"]).verdict
'proved'
>>> r = check_axiom(AXIOMS_BY_ID["explog.exp_tangent"], twin=True); r.verdict, r.counterexample
('refuted', {'x': '-1'})
>>> lo, hi = certified_bounds(sp.log(2)); print(lo.evalf(22), hi.evalf(22))
0.6931471805599453094103 0.6931471805599453094242
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import sympy as sp
import z3

from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.exact_eval import evaluate, in_domain, sign_of
from attnio.smt.statements import parse_statement

__all__ = ["EXP", "LOG", "Axiom", "AXIOMS", "AXIOMS_BY_ID", "check_axiom", "certified_bounds",
           "axiom_instances"]

#: The uninterpreted functions of the fragment. Their names end in "!", which no declared
#: symbol may hold (rule ``bridge.own-names-reserved``): a symbol named exp_uf once clashed
#: with them in SMT-LIB, and cvc5 refused the script.
EXP = z3.Function("exp_uf!", z3.RealSort(), z3.RealSort())
LOG = z3.Function("log_uf!", z3.RealSort(), z3.RealSort())

@dataclass(frozen=True)
class Axiom:
    """One axiom schema: its statement (``attnio prove`` syntax, with ``domains``), how
    :func:`check_axiom` proves it (``proof``), a false twin, and its z3 instance.

    ``proof`` is one of

    * ``("valley", g, x, interval, c, guard)`` — ``g(c) = 0`` exactly and ``g'`` is negative
      on the interval left of ``c``, positive right of it (sympy's ``solveset``): so ``g ≥ 0``
      on the interval and ``g > 0`` off ``c`` (the mean value theorem);
    * ``("rising", g, x, interval, c, guard)`` — the interval is ``[c, ∞)``, ``g`` and its
      first derivatives vanish at ``c`` and the next one is positive on ``(c, ∞)``
      (``solveset``): integrating back, ``g > 0`` on ``(c, ∞)`` (Taylor's bounds);
    * ``("increasing", f, x, interval)`` — ``f' ≤ 0`` nowhere on the interval
      (``solveset`` is empty): ``f`` strictly increasing there;
    * ``("through", f, x, interval, c, value)`` — increasing as above and ``f(c) = value``
      exactly: the sign facts around ``c``;
    * ``("positive", f)`` — sympy's assumptions show ``f`` positive for every declared value;
    * ``("identity", lhs, rhs)`` — sympy reduces ``lhs − rhs`` to 0 with each symbol carrying
      its declared domain (``expand``, ``expand_log``, ``powsimp``, ``simplify``).

    ``instance(*terms)`` is the z3 formula the bridge adds; its arguments are named in
    ``arguments`` (``a`` an exp argument, ``e`` its exp term, ``b`` a log argument, ``g`` its
    log term, ...).
    """

    id: str
    statement: str
    domains: Mapping[str, str]
    proof: tuple
    twin: str
    twin_domains: Mapping[str, str]
    arguments: tuple[str, ...]
    instance: Callable[..., z3.BoolRef] = field(repr=False, compare=False)


_R = {"x": "real"}
_RY = {"x": "real", "y": "real"}
_P = {"x": "positive"}
_PY = {"x": "positive", "y": "real"}
_PP = {"x": "positive", "y": "positive"}
_RK = {"x": "real", "k": "integer"}
_REALS = "Reals"


def _positive(axiom_id: str, f: str, twin: str, instance: Callable[..., z3.BoolRef]) -> Axiom:
    """``f > 0`` for every real x."""
    return Axiom(axiom_id, f"{f} > 0", _R, ("positive", f), twin, _R, ("a", "e"), instance)


def _through(axiom_id: str, f: str, domains: Mapping[str, str], interval: str, c: str,
             value: str, twin: str, instance: Callable[..., z3.BoolRef],
             arguments: tuple[str, ...] = ("a", "e")) -> Axiom:
    """``f`` strictly increasing on ``interval`` (the declared domain of x) through
    ``f(c) = value``: the sign of ``f - value`` is the sign of ``x - c``."""
    statement = (f"And(Implies(x > {c}, {f} > {value}), Implies(x < {c}, {f} < {value}), "
                 f"Implies(Eq(x, {c}), Eq({f}, {value})))")
    return Axiom(axiom_id, statement, domains, ("through", f, "x", interval, c, value),
                 twin, domains, arguments, instance)


def _increasing(axiom_id: str, f: str, domains: Mapping[str, str], interval: str, twin: str,
                instance: Callable[..., z3.BoolRef],
                arguments: tuple[str, ...] = ("a1", "e1", "a2", "e2")) -> Axiom:
    """``x < y ⇒ f(x) < f(y)`` on ``interval`` (the declared domain of x and y)."""
    at_y = re.sub(r"\bx\b", "y", f)
    statement = f"Implies(x < y, {f} < {at_y})"
    return Axiom(axiom_id, statement, domains, ("increasing", f, "x", interval), twin,
                 domains, arguments, instance)


def _valley(axiom_id: str, big: str, small: str, c: str, domains: Mapping[str, str],
            guard: str | None, interval: str, twin: str,
            instance: Callable[..., z3.BoolRef],
            arguments: tuple[str, ...] = ("a", "e"), kind: str = "valley") -> Axiom:
    """``big ≥ small``, strictly for ``x ≠ c``, where ``guard`` holds (``interval`` is the
    declared domain of x cut by the guard): ``g = big − small`` has its only zero at ``c``
    (``kind="rising"``: ``c`` is the interval's left end, where ``g`` starts rising)."""
    body = f"And({big} >= {small}, Implies(Ne(x, {c}), {big} > {small}))"
    statement = body if guard is None else f"Implies({guard}, {body})"
    return Axiom(axiom_id, statement, domains,
                 (kind, f"({big}) - ({small})", "x", interval, c, guard), twin, domains,
                 arguments, instance)


def _identity(axiom_id: str, lhs: str, rhs: str, domains: Mapping[str, str], twin: str,
              twin_domains: Mapping[str, str], arguments: tuple[str, ...],
              instance: Callable[..., z3.BoolRef]) -> Axiom:
    """``lhs = rhs`` for every declared value."""
    return Axiom(axiom_id, f"Eq({lhs}, {rhs})", domains, ("identity", lhs, rhs), twin,
                 twin_domains, arguments, instance)


AXIOMS: tuple[Axiom, ...] = (
    _positive("explog.exp_positive", "exp(x)", "exp(x) > 1", lambda a, e: e > 0),
    _through("explog.exp_sign", "exp(x)", _R, _REALS, "0", "1", "Implies(x > 0, exp(x) > 3)",
             lambda a, e: z3.And(z3.Implies(a > 0, e > 1), z3.Implies(a < 0, e < 1),
                                 z3.Implies(a == 0, e == 1))),
    _increasing("explog.exp_monotone", "exp(x)", _RY, _REALS,
                "Implies(x <= y, exp(x) < exp(y))",
                lambda a1, e1, a2, e2: z3.Implies(a1 < a2, e1 < e2)),
    _valley("explog.exp_tangent", "exp(x)", "1 + x", "0", _R, None, _REALS,
            "exp(x) >= 1 + x + x**2/2",
            lambda a, e: z3.And(e >= 1 + a, z3.Implies(a != 0, e > 1 + a))),
    _valley("explog.exp_tangent_one", "exp(x)", "E*x", "1", _R, None, _REALS,
            "exp(x) >= 3*x",
            lambda a, e, big_e: z3.And(e >= big_e * a, z3.Implies(a != 1, e > big_e * a)),
            ("a", "e", "E")),
    _valley("explog.exp_taylor2", "exp(x)", "1 + x + x**2/2", "0", _R, "x >= 0",
            "Interval(0, oo)", "Implies(x >= 0, exp(x) >= 1 + x + x**2)",
            lambda a, e: z3.Implies(a >= 0, z3.And(e >= 1 + a + a * a / 2,
                                                   z3.Implies(a != 0, e > 1 + a + a * a / 2))),
            kind="rising"),
    _valley("explog.exp_upper", "1", "exp(x)*(1 - x)", "0", _R, "x < 1",
            "Interval.open(-oo, 1)", "Implies(x < 1, exp(x)*(1 - x/2) <= 1)",
            lambda a, e: z3.Implies(a < 1, z3.And(1 >= e * (1 - a),
                                                  z3.Implies(a != 0, 1 > e * (1 - a))))),
    _identity("explog.exp_add", "exp(x + y)", "exp(x)*exp(y)", _RY,
              "Eq(exp(x*y), exp(x)*exp(y))", _RY, ("e1", "e2", "e12"),
              lambda e1, e2, e12: e12 == e1 * e2),
    _identity("explog.exp_scale", "exp(k*x)", "exp(x)**k", _RK,
              "Eq(exp(k*x), exp(x)**(k + 1))", _RK, ("e", "k", "ek"),
              lambda e, k, ek: (ek == _int_power(e, k)) if k >= 0
              else (ek * _int_power(e, -k) == 1)),
    _identity("explog.log_exp", "log(exp(x))", "x", _R, "Eq(log(exp(x)**2), x)", _R,
              ("a", "e", "b", "g"), lambda a, e, b, g: z3.Implies(b == e, g == a)),
    _identity("explog.exp_log", "exp(log(x))", "x", _P, "Eq(exp(2*log(x)), x)", _P,
              ("b", "g", "a", "e"), lambda b, g, a, e: z3.Implies(z3.And(b > 0, a == g), e == b)),
    _through("explog.log_sign", "log(x)", _P, "Interval.open(0, oo)", "1", "0",
             "Implies(x > 1, log(x) > 1)",
             lambda b, g: z3.Implies(b > 0, z3.And(z3.Implies(b > 1, g > 0),
                                                   z3.Implies(b < 1, g < 0),
                                                   z3.Implies(b == 1, g == 0))),
             ("b", "g")),
    _increasing("explog.log_monotone", "log(x)", _PP, "Interval.open(0, oo)",
                "Implies(x <= y, log(x) < log(y))",
                lambda b1, l1, b2, l2: z3.Implies(z3.And(b1 > 0, b1 < b2), l1 < l2),
                ("b1", "l1", "b2", "l2")),
    _valley("explog.log_tangent", "x - 1", "log(x)", "1", _P, None, "Interval.open(0, oo)",
            "log(x) <= (x - 1)/2",
            lambda b, g: z3.Implies(b > 0, z3.And(b - 1 >= g, z3.Implies(b != 1, b - 1 > g))),
            ("b", "g")),
    _valley("explog.log_tangent_e", "x/E", "log(x)", "E", _P, None, "Interval.open(0, oo)",
            "log(x) <= x/3",
            lambda b, g, big_e: z3.Implies(b > 0, z3.And(b >= g * big_e,
                                                         z3.Implies(b != big_e, b > g * big_e))),
            ("b", "g", "E")),
    _valley("explog.log_taylor2", "log(x)", "(x - 1) - (x - 1)**2/2", "1", _P, "x >= 1",
            "Interval(1, oo)", "Implies(x >= 1, log(x) >= x - 1 - (x - 1)**2/4)",
            lambda b, g: z3.Implies(b >= 1, z3.And(g >= (b - 1) - (b - 1) * (b - 1) / 2,
                                                   z3.Implies(b != 1,
                                                              g > (b - 1) - (b - 1) * (b - 1) / 2))),
            ("b", "g"), kind="rising"),
    _valley("explog.log_lower", "log(x)*x", "x - 1", "1", _P, None, "Interval.open(0, oo)",
            "log(x)*x**2 >= x**2 - 1",
            lambda b, g: z3.Implies(b > 0, z3.And(g * b >= b - 1,
                                                  z3.Implies(b != 1, g * b > b - 1))),
            ("b", "g")),
    _identity("explog.log_mul", "log(x*y)", "log(x) + log(y)", _PP,
              "Eq(log(x + y), log(x) + log(y))", _PP, ("b1", "l1", "b2", "l2", "l12"),
              lambda b1, l1, b2, l2, l12: z3.Implies(z3.And(b1 > 0, b2 > 0), l12 == l1 + l2)),
    _identity("explog.log_pow", "log(x**y)", "y*log(x)", _PY, "Eq(log(x**y), log(x)**y)", _PY,
              ("b", "g", "r", "lr"), lambda b, g, r, lr: z3.Implies(b > 0, lr == r * g)),
    _identity("explog.pow_exp", "x**y", "exp(y*log(x))", _PY, "Eq(x**y, exp(x*log(y)))", _PP,
              (), lambda: z3.BoolVal(True)),
)
AXIOMS_BY_ID = {a.id: a for a in AXIOMS}


def _int_power(b: z3.ArithRef, k: int) -> z3.ArithRef:
    return z3.RealVal(1) if k == 0 else (b if k == 1 else z3.Product([b] * k))


def axiom_instances(axiom_id: str, *terms: object) -> z3.BoolRef:
    """The instance of ``axiom_id`` at ``terms`` (in the order of its ``arguments``)."""
    return AXIOMS_BY_ID[axiom_id].instance(*terms)


# ------------------------------------------------------------------------ constant bounds
#: Digits of the rational bounds of a constant; the margin is 10**-BOUND_DIGITS.
BOUND_DIGITS = 20
#: Constants larger than this get no bounds (``exp(10**200)``: its digits would not fit).
_LARGEST_BOUNDED = 10 ** 60


def certified_bounds(c: sp.Expr) -> tuple[sp.Rational, sp.Rational] | None:
    """Rationals ``lo < c < hi`` (``hi − lo`` about 2·10⁻²⁰·|c|), each inequality
    certified by the referee's :func:`~attnio.smt.exact_eval.sign_of`; None when either
    cannot be (then the bridge adds no bound: weaker, never wrong).

    >>> certified_bounds(sp.exp(1))[0] < sp.E < certified_bounds(sp.exp(1))[1]
    True
    >>> certified_bounds(sp.Symbol("x")) is None
    True
    """
    c = sp.sympify(c)
    if c.free_symbols:
        return None
    try:
        value = c.evalf(BOUND_DIGITS + 10, strict=True)
    except Exception:  # not a real number, or evalf cannot guarantee the digits
        return None
    if not value.is_Float or value == 0 or abs(value) > _LARGEST_BOUNDED:
        return None     # a rational (exact already), not real, or too large to be useful
    approx = sp.Rational(str(value))
    margin = abs(approx) / 10 ** BOUND_DIGITS           # relative: exp(-1000) is 5e-435
    lo, hi = approx - margin, approx + margin
    if sign_of(c - lo) == 1 and sign_of(hi - c) == 1:
        return lo, hi
    return None


# ----------------------------------------------------------------------- proving axioms
_GRID = {
    "real": (0, 1, -1, 2, -2, sp.Rational(1, 2), -sp.Rational(1, 2), 3),
    "positive": (1, 2, sp.Rational(1, 2), 3, 4, sp.Rational(1, 4)),
    "integer": (0, 1, -1, 2, -2, 3),
}


def _grid_counterexample(statement: sp.Basic, doms: Mapping[sp.Symbol, str]
                         ) -> dict[str, str] | None:
    syms = sorted(doms, key=str)
    for values in itertools.product(*(_GRID[doms[s]] for s in syms)):
        point = {s: sp.sympify(v) for s, v in zip(syms, values)}
        if all(in_domain(point[s], doms[s]) for s in syms) and \
                evaluate(statement, point) == "false":
            return {str(s): str(point[s]) for s in syms}
    return None


def _interval(text: str) -> sp.Set:
    return sp.sympify(text, locals={"Interval": sp.Interval, "Reals": sp.S.Reals,
                                    "oo": sp.oo})


def _recipe(proof: tuple, doms: Mapping[sp.Symbol, str]) -> str | None:
    """Why ``proof`` establishes its statement, or None when sympy does not confirm it. The
    interval a calculus recipe works on must be the declared domain of its variable (cut by
    the statement's guard), so the recipe cannot prove a narrower fact than the statement."""
    names = {str(s): sp.Dummy(str(s), **_ASSUMED[d]) for s, d in doms.items()}
    declared = {str(s): d for s, d in doms.items()}
    kind, *args = proof

    def read(text: str) -> sp.Basic:
        return sp.sympify(text, locals=names)

    if kind == "positive":
        return "sympy's assumptions: positive for every declared value" \
            if read(args[0]).is_positive is True else None
    if kind == "identity":
        difference = read(args[0]) - read(args[1])
        for step in (sp.expand, sp.expand_log, sp.powsimp, sp.simplify):
            difference = step(difference)
            if difference == 0:
                return f"sympy reduces lhs − rhs to 0 ({step.__name__})"
        return None
    x, domain = names[args[1]], _interval(args[2])
    expected = _DOMAIN_SETS[declared[args[1]]]
    if kind in ("valley", "rising") and args[4] is not None:
        expected = sp.Intersection(expected, sp.solveset(read(args[4]), x, sp.S.Reals))
    if domain != expected:
        return None
    if kind in ("increasing", "through"):
        f = read(args[0])
        derivative = sp.diff(f, x)
        if sp.solveset(derivative <= 0, x, domain) != sp.S.EmptySet:
            return None
        why = f"{args[0]}' = {derivative} > 0 on {domain} (solveset): strictly increasing"
        if kind == "increasing":
            return why
        c, value = read(args[3]), read(args[4])
        if sign_of(f.subs(x, c) - value) != 0:
            return None
        return why + f"; {args[0]} = {value} at {args[1]} = {c} exactly"
    if kind == "rising":
        g, c = read(args[0]), read(args[3])
        right = sp.Intersection(domain, sp.Interval.open(c, sp.oo))
        if sp.Interval(c, sp.oo) != domain:
            return None
        derivative = g
        for order in range(_MAX_RISING_ORDER + 1):
            if sign_of(derivative.subs(x, c)) != 0:
                return None
            derivative = sp.diff(derivative, x)
            if sp.solveset(derivative > 0, x, right) == right:
                return (f"g = {args[0]} and its first {order} derivative(s) are 0 at "
                        f"{args[1]} = {c}, and g^({order + 1}) = {derivative} > 0 right of "
                        f"it (solveset): integrating {order + 1} time(s), g > 0 on {right}")
        return None
    if kind == "valley":
        g, c = read(args[0]), read(args[3])
        derivative = sp.diff(g, x)
        left = sp.Intersection(domain, sp.Interval.open(-sp.oo, c))
        right = sp.Intersection(domain, sp.Interval.open(c, sp.oo))
        if sign_of(g.subs(x, c)) != 0 or \
                sp.solveset(derivative < 0, x, domain) != left or \
                sp.solveset(derivative > 0, x, domain) != right:
            return None
        return (f"g = {args[0]} is 0 at {args[1]} = {c}, g' = {derivative} < 0 left of it and "
                f"> 0 right of it on {domain} (solveset): g >= 0, and g > 0 off {c}")
    raise ValueError(f"unknown proof recipe {kind!r}")


_DOMAIN_SETS = {"real": sp.S.Reals, "positive": sp.Interval.open(0, sp.oo)}
#: The highest derivative the "rising" recipe looks at.
_MAX_RISING_ORDER = 3
_ASSUMED = {"real": {"real": True}, "positive": {"positive": True},
            "integer": {"integer": True}}


def check_axiom(axiom: Axiom, *, twin: bool = False) -> Verdict:
    """Prove ``axiom`` (or refute its false twin) without the bridge that uses it.

    First the statement is evaluated exactly on a grid of points of its domains
    (:func:`~attnio.smt.exact_eval.evaluate`): a point where it is false refutes it (that is
    how each twin is rejected). Then the proof recipe (:class:`Axiom`) must confirm it, with
    sympy's calculus on the statement's own terms; a twin has no recipe, so a twin the grid
    does not refute is Undecided, never Proved.

    Side conditions
    ---------------
    1. ``instance-is-statement``: each axiom's z3 instance (what the bridge adds) is true of
       the real exp and log wherever its statement's domains hold — it says no more than
       the statement the recipe proves.
    2. ``twin-refuted``: each false twin is refuted at a grid point where it is false (and a
       twin the grid misses is Undecided, never Proved).
    3. ``recipe-required``: Proved only when the proof recipe is confirmed; a recipe that
       fails (a wrong touching point, interval or value) leaves the axiom Undecided.
    4. ``bounds-certified``: :func:`certified_bounds` returns ``lo < c < hi`` for every
       constant it bounds.
    """
    text, domains = (axiom.twin, axiom.twin_domains) if twin else (axiom.statement,
                                                                    axiom.domains)
    statement, doms = parse_statement(text, dict(domains))
    found = _grid_counterexample(statement, doms)
    if found is not None:
        return Refuted(found, "false at this point (exact evaluation)",
                       evidence=Evidence("exact-arithmetic"))
    if twin:
        return Undecided("a false twin has no proof recipe, and no grid point refutes it")
    why = _recipe(axiom.proof, doms)
    if why is None:
        return Undecided(f"sympy did not confirm the proof recipe {axiom.proof[0]!r}")
    return Proved(why, evidence=Evidence("sympy-calculus"))


def rational(value: sp.Rational) -> z3.ArithRef:
    """A sympy rational as a z3 real numeral."""
    return z3.RealVal(Fraction(int(value.p), int(value.q)))
