r"""Exact evaluation of a sympy statement at a point: the referee of every counterexample.

A solver's model is only a *claim* that a statement is false somewhere. Before attnio says
Refuted, the point is substituted into the **original** sympy statement (before any change of
variables) and evaluated here, exactly:

* numbers stay exact: integers, rationals, algebraic numbers (z3's algebraic model values
  arrive as :class:`sympy.CRootOf`), and constants such as :math:`\cos(\pi/7)`;
* :func:`sign_of` decides the sign of a number. Zero is decided *exactly*: an algebraic
  number is 0 iff its minimal polynomial is :math:`x`; a linear form in logarithms of positive
  rationals and :math:`\pi` with algebraic coefficients is 0 iff every coefficient is
  (Baker's theorem, the logarithms of distinct primes being linearly independent over
  :math:`\mathbb{Q}`); a linear form in :math:`e^{a}` for distinct algebraic :math:`a` is 0 iff
  every coefficient is (Lindemann–Weierstrass). A nonzero sign is read from
  ``evalf(strict=True)`` at rising precision, which raises rather than return digits it
  cannot guarantee. A number whose zero-ness cannot be decided this way has sign ``None``
  (also one whose minimal polynomial could have a degree above
  :data:`MAX_ALGEBRAIC_DEGREE`: then only a value far from 0 gets a sign);
* a power ``b**(p/q)`` whose exponent is beyond the caps of
  :mod:`attnio.smt.term_limits` (root index above 100, numerator above 1000) is not
  evaluated (``"unknown"``), nor is one whose integer part would exceed
  :data:`MAX_EXACT_BITS`;
* :func:`evaluate` gives a statement's value at a point under the partial-function semantics
  of :mod:`attnio.smt.definedness` — ``"true"``, ``"false"``, ``"undefined"`` (a square
  root or non-integer power of a negative number, a division by zero, the logarithm of a
  non-positive number or to a base that is not positive or is 1, no ``Piecewise`` branch
  applying) or ``"unknown"`` (a sign it cannot
  certify, a number too large to evaluate, or sympy's assumption system raising on the
  value — :func:`_assumed`). ``And``/``Or``/``Not``/``Xor``/``Equivalent`` are
  undefined when any argument is; ``Implies(A, B)`` is true where ``A`` is false, whatever
  ``B``. :func:`truth_at` is the same as ``True`` / ``False`` / ``None`` (undefined or unknown);
  ``None`` never becomes a verdict other than Undecided;
* :func:`in_domain` checks that a value lies in a declared domain
  (:data:`~attnio.smt.kernel.DOMAINS`).

Side conditions
---------------
Each has a planted violation in ``tests/smt/test_side_conditions.py`` (the trust tier):

* ``referee.zero-is-exact`` — zero is decided by a theorem (minimal polynomial, Baker,
  Lindemann–Weierstrass), never by digits: a difference below every working precision that no
  theorem shows zero has no sign.
* ``referee.signs-from-guaranteed-digits`` — a nonzero sign comes from
  ``evalf(strict=True)``, which refuses digits it cannot guarantee.
* ``referee.logs-over-a-coprime-base`` — logarithms of integers are compared over primes and
  pairwise coprime cofactors (trial division, then gcd splitting); never over factors that
  share one.
* ``referee.undefined-is-undefined`` — a root or non-integer power of a negative number, a
  power with a symbolic exponent of a non-positive base (whatever the exponent's value at the
  point: ``definedness.real-powers`` is a rule of the term, not of the value), a division by
  zero, a logarithm of a non-positive number or to the base 1, no ``Piecewise`` branch:
  undefined, never false.
* ``referee.too-large-is-unknown`` — a number beyond :data:`MAX_EXACT_BITS` or the caps, or
  an ``exp`` or real power whose exponent is beyond :data:`MAX_EXP_ARGUMENT_BITS`, is
  unknown, never approximated.
* ``referee.domains-exactly`` — an integer domain needs an exact integer, a positive one an
  exact positive sign.

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
>>> sign_of(sp.log(8) - 3 * sp.log(2)), sign_of(sp.log(9) - 3 * sp.log(2))
(0, 1)
>>> evaluate(sp.Ge(1 / x, 0), {x: 0})                 # never a counterexample
'undefined'
>>> root = sp.sqrt(x - y)
>>> evaluate(sp.Ge(sp.Mul(root, root, evaluate=False), 0, evaluate=False), {x: 1, y: 2})
'undefined'
"""

from __future__ import annotations

import itertools
import math
from typing import Literal, Mapping

import sympy as sp

from attnio.smt.term_limits import exponent_within_caps

__all__ = ["sign_of", "value_at", "truth_at", "evaluate", "in_domain", "UNDEFINED",
           "MAX_EXACT_BITS", "MAX_EXP_ARGUMENT_BITS", "MAX_ALGEBRAIC_DEGREE", "Truth"]

_X = sp.Dummy("x")

#: Values that make an expression undefined at a point (never a counterexample).
UNDEFINED = (sp.nan, sp.zoo, sp.oo, -sp.oo)

#: An integer power whose exact value would need more bits than this is not evaluated (its
#: truth is "unknown"): ``2**(10**10)`` would take over a gigabyte.
MAX_EXACT_BITS = 100_000

#: An ``exp(a)`` (or a real power ``b**a``, which is ``exp(a·log b)``) whose exponent's magnitude
#: has more bits than this is not evaluated (``"unknown"``): evalf must reduce ``a`` modulo
#: log 2 to all its bits, and ``exp(exp(exp(16)))`` — an exponent of 3.9 million digits —
#: hung the referee (2026-12-07). At this cap one evaluation takes milliseconds;
#: ``exp(exp(100))`` (an exponent of 144 bits) is still evaluated.
MAX_EXP_ARGUMENT_BITS = 10_000

_PRECISIONS = (30, 60, 120, 240)

Truth = Literal["true", "false", "undefined", "unknown"]


class _Undetermined(Exception):
    """Raised inside the evaluator when a value or a sign cannot be decided exactly."""


class _Undefined(_Undetermined):
    """Raised inside the evaluator when a value is undefined at the point (definedness.py)."""


# ----------------------------------------------------------------------------------- signs
def _assumed(value: sp.Expr, fact: str) -> bool | None:
    """sympy's assumption ``fact`` (``"is_real"`` …) of a closed number, ``None`` when sympy
    cannot say — also when its assumption system raises: sympy 1.14 raises ``TypeError``
    ("Invalid comparison of non-real log(log(r))") on some queries once others are cached,
    so the same point could crash the referee or not depending on what ran before it; and
    ``PrecisionExhausted`` (an ``ArithmeticError``) when the query evaluates a ``floor`` of a
    huge number (``floor(exp(exp(9)))``) to decide it."""
    try:
        return getattr(value, fact)
    except (TypeError, ArithmeticError):
        return None


def sign_of(value: sp.Expr) -> int | None:
    """The sign (-1, 0, 1) of a real number given as a closed sympy expression, or ``None``.

    ``None`` when the value is not real, is undefined, or its sign cannot be decided.

    >>> sign_of(sp.Rational(-3, 7)), sign_of(sp.sqrt(2) - sp.Rational(141, 100))
    (-1, 1)
    >>> sign_of(sp.exp(2) - sp.exp(1)**2), sign_of(sp.pi - sp.Rational(22, 7))
    (0, -1)
    """
    value = sp.sympify(value)
    if value.free_symbols or value.has(*UNDEFINED):
        return None
    if value.is_Rational:
        return 1 if value > 0 else (-1 if value < 0 else 0)
    if _assumed(value, "is_real") is False:
        return None
    try:
        zero = _is_zero_exactly(value)
    except (TypeError, ArithmeticError):   # sympy's assumptions raising: see _assumed
        zero = None
    if zero is True:
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


def _degree_bound(value: sp.Expr) -> int:
    """An upper bound of the degree of ``value``'s minimal polynomial over its roots: the
    product of the indices ``q`` of its distinct powers ``b**(p/q)`` and of the degrees of its
    ``CRootOf`` numbers (transcendental parts are not counted)."""
    bound = 1
    for atom in value.atoms(sp.Pow):
        if atom.exp.is_Rational and not atom.exp.is_Integer:
            bound *= int(atom.exp.q)
    for root in value.atoms(sp.CRootOf):
        bound *= max(1, int(sp.degree(root.poly)))
    return bound


#: Largest :func:`_degree_bound` for which zero is tested with minimal polynomials: a degree
#: of 100 took 0.75 s (sympy 1.14), a degree of 256 over a minute. Beyond it zero-ness is
#: unknown and only a value far from 0 gets a sign.
MAX_ALGEBRAIC_DEGREE = 128


def _is_zero_exactly(value: sp.Expr) -> bool | None:
    """True / False when zero-ness is decided exactly (see the module docstring), else None
    (also when :func:`_degree_bound` exceeds :data:`MAX_ALGEBRAIC_DEGREE`)."""
    if _degree_bound(value) > MAX_ALGEBRAIC_DEGREE:
        return None
    try:
        return bool(sp.expand(sp.minimal_polynomial(value, _X) - _X) == 0)
    except Exception:  # NotAlgebraic, NotImplementedError, ...: try the transcendental forms
        pass
    # Logarithms and exponentials mixed leave a transcendental coefficient, which
    # _linear_form_is_zero refuses: no theorem covers e + log 2.
    if value.has(sp.log) or value.has(sp.pi):
        return _linear_form_is_zero(*_log_basis(value))
    if value.has(sp.exp) or value.has(sp.E):
        return _linear_form_is_zero(*_exp_basis(value))
    return None


def _algebraic(value: sp.Expr) -> bool:
    try:
        sp.minimal_polynomial(value)
    except Exception:
        return False
    return True


def _linear_form_is_zero(expr: sp.Expr | None, basis: list[sp.Symbol]) -> bool | None:
    """``expr`` is ``c0 + Σ ci·b_i`` with algebraic ``ci`` over independent transcendental
    ``b_i``: it is zero iff every ``ci`` is. None when ``expr`` is not of that shape."""
    if expr is None:
        return None
    if not basis:   # every transcendental part cancelled: an algebraic number is left
        return bool(sp.expand(sp.minimal_polynomial(expr, _X) - _X) == 0) \
            if _algebraic(expr) else None
    try:
        poly = sp.Poly(sp.expand(expr), *basis)
    except sp.PolynomialError:
        return None
    if poly.total_degree() > 1:
        return None
    coefficients = poly.coeffs()          # [0] for the zero polynomial
    if not all(_algebraic(c) for c in coefficients):
        return None
    return all(sp.expand(sp.minimal_polynomial(c, _X) - _X) == 0 for c in coefficients)


def _log_basis(value: sp.Expr) -> tuple[sp.Expr | None, list[sp.Symbol]]:
    """``value`` with each ``log(k)`` (``expand_log`` leaves logarithms of positive integers
    when every argument is a positive rational or a power of one) written as ``Σ e_p·L_p``
    over the primes of ``k``, and ``π`` as a symbol of its own. None when a logarithm of
    something else remains."""
    for atom in value.atoms(sp.log):
        if sign_of(atom.args[0]) != 1:
            return None, []
    expanded = sp.expand(sp.expand_log(value))     # every argument is > 0: sympy expands
    atoms = list(expanded.atoms(sp.log))
    if any(len(a.args) != 1 or not a.args[0].is_Integer for a in atoms):
        return None, []
    factored = {a: _coprime_factors(int(a.args[0])) for a in atoms}
    # Trial division leaves cofactors above _TRIAL_DIVISION unfactored. The logarithms of
    # pairwise coprime integers > 1 are linearly independent over Q (unique factorization),
    # so the cofactors are refined into a coprime base (gcd splitting) and stand for
    # themselves.
    large = {n for factors in factored.values() for n in factors if n > _TRIAL_DIVISION}
    base = _coprime_base(large)
    primes: dict[int, sp.Symbol] = {}
    replace: dict[sp.Basic, sp.Expr] = {}
    for atom, factors in factored.items():
        terms = []
        for factor, power in factors.items():
            for element, count in (_over_base(factor, base) if factor > _TRIAL_DIVISION
                                   else {factor: 1}).items():
                terms.append(power * count * primes.setdefault(element, sp.Dummy()))
        replace[atom] = sp.Add(*terms)
    out = expanded.xreplace(replace)
    basis = list(primes.values())
    if out.has(sp.pi):
        basis.append(sp.Dummy())
        out = out.xreplace({sp.pi: basis[-1]})
    return out, basis


#: Integers are factored by trial division up to this bound only (sympy's full factorint of
#: a 100-digit integer with two large prime factors takes minutes).
_TRIAL_DIVISION = 10 ** 5


def _coprime_factors(n: int) -> dict[int, int]:
    """``n`` as primes up to :data:`_TRIAL_DIVISION` with their powers, and at most one
    cofactor free of them (prime or not).

    >>> _coprime_factors(360), _coprime_factors(2 * (10**20 + 39))
    ({2: 3, 3: 2, 5: 1}, {2: 1, 100000000000000000039: 1})
    """
    return dict(sp.factorint(n, limit=_TRIAL_DIVISION, use_rho=False, use_pm1=False,
                             use_ecm=False))


def _coprime_base(numbers: set[int]) -> set[int]:
    """Pairwise coprime integers > 1 over which every one of ``numbers`` is a product
    (repeated gcd splitting).

    >>> sorted(_coprime_base({6, 10, 9}))
    [2, 3, 5]
    """
    base = {n for n in numbers if n > 1}
    while True:
        pair = next(((a, b) for a, b in itertools.combinations(sorted(base), 2)
                     if math.gcd(a, b) > 1), None)
        if pair is None:
            return base
        a, b = pair
        g = math.gcd(a, b)
        base -= {a, b}
        base |= {n for n in (g, a // g, b // g) if n > 1}


def _over_base(n: int, base: set[int]) -> dict[int, int]:
    """``n`` as powers of the elements of a coprime base that ``n`` is a product over."""
    out: dict[int, int] = {}
    for element in sorted(base):
        while n % element == 0:
            n //= element
            out[element] = out.get(element, 0) + 1
    if n != 1:
        raise ValueError("not a product over the base")     # never, by construction
    return out


def _exp_basis(value: sp.Expr) -> tuple[sp.Expr | None, list[sp.Symbol]]:
    """``value`` with each ``exp(a)`` (a algebraic; ``E`` is ``exp(1)``; equal exponents
    merged) as a symbol. Exponents are kept whole (``exp(a + b)`` is not split)."""
    expanded = sp.expand_mul(value)
    exponents: list[tuple[sp.Expr, sp.Symbol]] = []
    replace: dict[sp.Basic, sp.Symbol] = {}
    atoms = [(atom, atom.args[0]) for atom in expanded.atoms(sp.exp)]
    if expanded.has(sp.E):
        atoms.append((sp.E, sp.Integer(1)))
    for atom, a in atoms:
        if not _algebraic(a):
            return None, []
        for known, sym in exponents:
            if sign_of(a - known) == 0:
                replace[atom] = sym
                break
        else:
            sym = sp.Dummy()
            exponents.append((a, sym))
            replace[atom] = sym
    return expanded.xreplace(replace), [sym for _, sym in exponents]


def _is_real_number(value: sp.Expr) -> bool:
    """Is the number's imaginary part exactly 0?"""
    return sign_of(sp.im(value)) == 0


# ---------------------------------------------------------------------------------- values
def value_at(expr: sp.Expr, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr | None:
    """Evaluate an arithmetic expression at ``point`` exactly; ``None`` if undefined there
    (or not evaluable exactly)."""
    try:
        out = _value(sp.sympify(expr), point)
        return out if _is_real_number(out) else None
    except (_Undetermined, TypeError, ArithmeticError):   # sympy raising: see _assumed
        return None


def _too_large(base: sp.Expr, exponent: sp.Expr) -> bool:
    """Would ``base**exponent`` (integer exponent) need more than :data:`MAX_EXACT_BITS`?

    A rational ``p/q`` to the power ``e`` has about ``|e|·log2 max(|p|, q)`` bits (``(1/3)**e``
    too: its denominator grows); another number about ``|e|·|log2 |base||`` (sympy turns
    ``sqrt(2)**e`` into a power of 2). Up to :data:`_SMALL_EXPONENT` nothing is estimated. A
    base whose size cannot be estimated counts as too large.
    """
    e = abs(int(exponent))
    if e <= _SMALL_EXPONENT:
        return False
    if base.is_Rational:
        per_unit = math.log2(max(abs(int(base.p)), int(base.q)))
    else:
        try:
            per_unit = abs(math.log2(float(abs(sp.N(base)))))
        except (TypeError, ValueError):     # no float for it, or 0: no estimate
            return True
    return e * per_unit > MAX_EXACT_BITS


def _magnitude_bits(x: sp.Expr) -> int | None:
    """The binary size of ``|x|``'s integer part from a 15-digit estimate (mpmath keeps the
    binary exponent exactly, so a huge ``x`` costs microseconds); ``None`` when the estimate
    is not a real number. Raises what ``sp.N`` raises (no estimate at all)."""
    approx = sp.N(x, 15)
    if approx.is_zero:
        return 0
    if not isinstance(approx, sp.Float):
        return None
    _sign, _mantissa, exponent, bit_count = approx._mpf_
    return max(0, exponent + bit_count)


def _integer_part_too_large(x: sp.Expr) -> bool:
    """Would the integer part of ``x`` need more than :data:`MAX_EXACT_BITS`?

    Estimated from 15 significant digits (mpmath keeps the binary exponent exactly, so
    ``exp(exp(100))``, about 2^(3.9·10⁴³), is estimated in microseconds where sympy's exact
    ``floor`` would compute e to that many bits: a hang). A value with no real estimate is
    left to sympy (``floor`` of a non-real number stays unevaluated).

    >>> _integer_part_too_large(sp.exp(sp.exp(100))), _integer_part_too_large(sp.exp(100))
    (True, False)
    """
    try:
        bits = _magnitude_bits(x)
    except (ArithmeticError, ValueError, TypeError):
        return True                     # no estimate: too large to evaluate exactly
    return bits is not None and bits > MAX_EXACT_BITS


def _exponent_too_large(exponent: sp.Expr, base: sp.Expr | None = None) -> bool:
    """Is ``exp(exponent)`` (``base**exponent`` when a base is given: ``exponent·log base``)
    beyond :data:`MAX_EXP_ARGUMENT_BITS`? An exponent with no estimate counts as too large.

    >>> _exponent_too_large(sp.exp(100)), _exponent_too_large(sp.exp(sp.exp(16)))
    (False, True)
    """
    try:
        parts = [_magnitude_bits(exponent)] + ([] if base is None else
                                               [_magnitude_bits(sp.log(base))])
    except (ArithmeticError, ValueError, TypeError):
        return True
    return None in parts or sum(parts) > MAX_EXP_ARGUMENT_BITS  # type: ignore[arg-type]


#: Exponents up to this are evaluated without estimating the size of the result.
_SMALL_EXPONENT = 64


def _power(base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
    """``base**exponent`` under the definedness rules, or raise."""
    if exponent.is_Integer:
        if exponent.is_negative and sign_of(base) == 0:
            raise _Undefined()          # division by zero
        if _too_large(base, exponent):
            raise _Undetermined()       # too large to evaluate exactly
        return base ** exponent
    s = sign_of(base)
    if s is None:
        raise _Undetermined()
    if exponent.is_Rational:
        if s < 0 or (s == 0 and exponent.is_negative):
            raise _Undefined()          # not a real number
        p, q = int(exponent.p), int(exponent.q)
        if not exponent_within_caps(p, q) or _too_large(base, sp.Integer(abs(p) // q + 1)):
            raise _Undetermined()       # a root of huge index, or a huge integer part
        return base ** exponent
    if s != 1:
        raise _Undefined()              # a real power needs a positive base
    if _exponent_too_large(exponent, base):
        raise _Undetermined()           # exp(exponent·log base) with a huge exponent
    return base ** exponent


def _value(e: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    if isinstance(e, sp.Symbol):
        if e not in point:
            raise _Undetermined()       # no value for it
        return sp.sympify(point[e])
    if not e.args:
        return e
    if isinstance(e, (sp.Min, sp.Max)):
        values = [_value(a, point) for a in e.args]
        better = -1 if isinstance(e, sp.Min) else 1     # the sign of v - best that replaces
        best = values[0]
        for v in values[1:]:
            s = sign_of(v - best)
            if s is None:
                raise _Undetermined()
            if s == better:
                best = v
        return best
    if isinstance(e, sp.Piecewise):
        for expr, cond in e.args:
            truth = _truth(cond, point)
            if truth is _UNDEF:
                raise _Undefined()      # the condition itself is undefined
            if truth is None:
                raise _Undetermined()
            if truth:
                return _value(expr, point)
        raise _Undefined()              # no branch applies
    args = [_value(a, point) for a in e.args]
    if isinstance(e, sp.Pow):
        if not e.exp.is_Rational:
            # definedness.real-powers: b**x with a symbolic (or irrational) exponent is defined
            # for b > 0 only, whatever value x takes at the point — (-1)**y at y = 1 is
            # undefined, as the definedness condition the solvers see says.
            s = sign_of(args[0])
            if s is None:
                raise _Undetermined()
            if s != 1:
                raise _Undefined()      # a real power needs a positive base
        return _power(*args)
    if isinstance(e, sp.log):
        for i, arg in enumerate(args):  # log(a) and log(a, b) = log(a)/log(b)
            s = sign_of(arg)
            if s is None:
                raise _Undetermined()
            if s != 1:
                raise _Undefined()      # the logarithm of a non-positive number
            if i == 1:
                one = sign_of(arg - 1)
                if one is None:
                    raise _Undetermined()
                if one == 0:
                    raise _Undefined()  # base 1: log(a, 1) = log(a)/0
    if isinstance(e, sp.tan) and sign_of(sp.cos(args[0])) == 0:
        raise _Undefined()              # a pole
    if isinstance(e, (sp.floor, sp.ceiling, sp.frac)) and _integer_part_too_large(args[0]):
        raise _Undetermined()           # its integer part alone is beyond MAX_EXACT_BITS
    if isinstance(e, sp.exp) and _exponent_too_large(args[0]):
        raise _Undetermined()           # beyond MAX_EXP_ARGUMENT_BITS: evalf would hang
    try:
        out = e.func(*args)  # rebuilt with evaluation on (the statement may be unevaluated)
    except (ArithmeticError, ValueError, RecursionError) as exc:
        # sympy gave up evaluating exactly: floor(exp(exp(10))) raises PrecisionExhausted (an
        # ArithmeticError), whose message then fails to print a 10⁴-digit Integer (ValueError:
        # Python's int-to-str limit). The value is not known here — unknown, never a verdict.
        raise _Undetermined() from exc
    if out.has(*UNDEFINED):
        raise _Undefined()
    return out


# ---------------------------------------------------------------------------------- truth
_UNDEF = object()   # the statement is undefined at the point (distinct from None: unknown)

_RELATIONS = {
    sp.Eq: lambda s: s == 0, sp.Ne: lambda s: s != 0,
    sp.Lt: lambda s: s < 0, sp.Le: lambda s: s <= 0,
    sp.Gt: lambda s: s > 0, sp.Ge: lambda s: s >= 0,
}


def _truth(e: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> object:
    """True / False / _UNDEF / None (unknown)."""
    if e is sp.true or e is True:
        return True
    if e is sp.false or e is False:
        return False
    for rel, test in _RELATIONS.items():
        if isinstance(e, rel):
            try:
                lhs, rhs = _value(e.lhs, point), _value(e.rhs, point)
                s = sign_of(lhs - rhs)    # None for a non-real difference too
            except _Undefined:
                return _UNDEF
            except (_Undetermined, TypeError, ArithmeticError):   # sympy raising: _assumed
                return None
            return None if s is None else bool(test(s))
    if isinstance(e, sp.Implies):
        a = _truth(e.args[0], point)
        if a is _UNDEF or a is None:
            return a
        return True if a is False else _truth(e.args[1], point)
    if isinstance(e, (sp.Not, sp.And, sp.Or, sp.Xor, sp.Equivalent)):
        parts = [_truth(a, point) for a in e.args]
        if any(p is _UNDEF for p in parts):
            return _UNDEF          # strict: undefined when any argument is
        if isinstance(e, sp.Not):
            return None if parts[0] is None else not parts[0]
        if isinstance(e, sp.And):
            return False if False in parts else (None if None in parts else True)
        if isinstance(e, sp.Or):
            return True if True in parts else (None if None in parts else False)
        if None in parts:
            return None
        if isinstance(e, sp.Xor):
            return sum(bool(p) for p in parts) % 2 == 1
        return len(set(parts)) == 1
    return None


def evaluate(statement: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> Truth:
    """The statement's value at ``point``: ``"true"``, ``"false"``, ``"undefined"`` or
    ``"unknown"`` (see the module docstring).

    >>> x = sp.Symbol("x", real=True)
    >>> evaluate(sp.Implies(sp.Ge(x, 0), sp.Ge(sp.sqrt(x), 0)), {x: -1})   # guarded
    'true'
    >>> evaluate(sp.Or(sp.Lt(x, 0), sp.Ge(sp.sqrt(x), 0)), {x: -1})         # strict
    'undefined'
    """
    t = _truth(statement, point)
    if t is _UNDEF:
        return "undefined"
    return "unknown" if t is None else ("true" if t else "false")


def truth_at(statement: sp.Basic, point: Mapping[sp.Symbol, sp.Expr]) -> bool | None:
    """Three-valued truth of a sympy statement at ``point`` (``None``: undefined or unknown)."""
    t = _truth(statement, point)
    return None if t is _UNDEF else t   # type: ignore[return-value]


def in_domain(value: sp.Expr, domain: str) -> bool | None:
    """Whether an exact value lies in a declared domain (``None`` if it cannot be decided).

    >>> in_domain(sp.Integer(3), "positive-integer"), in_domain(sp.Rational(1, 2), "integer")
    (True, False)
    >>> in_domain(sp.sqrt(2), "positive"), in_domain(sp.Integer(0), "positive")
    (True, False)
    """
    value = sp.sympify(value)
    if "integer" in domain and not value.is_Integer:
        if value.is_Rational:
            return False
        try:
            nearest = value.round()
        except (TypeError, ValueError):   # not a real number
            return None
        s = sign_of(value - nearest)
        if s != 0:
            return None if s is None else False
    s = sign_of(value)
    if s is None:
        return None
    if domain.startswith("positive"):
        return s > 0
    if domain.startswith("nonnegative"):
        return s >= 0
    return True
