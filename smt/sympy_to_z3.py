r"""Translate sympy statements into z3 arithmetic, with each symbol's *declared* domain.

This is the one bridge between sympy (the bound catalogue, user statements) and the SMT
solvers; :mod:`attnio.smt.kernel` drives it.

Domains
-------
Every symbol has a declared domain (:data:`~attnio.smt.kernel.DOMAINS`): ``real``,
``positive``, ``nonnegative``, ``integer``, ``positive-integer``, ``nonnegative-integer``. It
comes from the caller's ``domains`` mapping (``attnio prove --var``) or from the symbol's own
sympy assumptions — never from its name. A symbol with neither is an input error.

Two encodings of integer symbols:

* **relaxed** (``integers="relaxed"``): an integer symbol is a z3 ``Real`` with the bound its
  domain implies (``x ≥ 1`` for a positive integer, ``x ≥ 0`` for a nonnegative one). A proof
  for all such reals holds for the integers in particular; a counterexample must be
  re-checked for integrality.
* **exact** (``integers="exact"``): an integer symbol is a z3 ``Int`` (used as ``ToReal(x)``
  inside real arithmetic), so the solver searches integers only.

Square roots
------------
z3's nonlinear real arithmetic (nlsat) is complete for polynomial constraints, so roots are
removed before translation:

1. a symbol whose declared domain is nonnegative (``positive``, ``nonnegative``, or an integer
   domain with a lower bound, in the relaxed encoding only) and which occurs under a square
   root gets a fresh variable :math:`s` with :math:`M = s^2` (:math:`s > 0`,
   :math:`s \ge 0`, or :math:`s \ge 1` for a positive integer relaxed), and
   :math:`M^{p/2}` is translated as :math:`s^p`; :attr:`Translator.substitutions` records
   each use, and the verdict's detail names it;
2. any other power :math:`b^{p/q}` (odd :math:`q` too) becomes :math:`r^p` for a fresh
   variable :math:`r \ge 0` with :math:`b \ge 0 \Rightarrow r^q = b`. Where :math:`b < 0` the
   root is left free: the term is undefined there (:mod:`attnio.smt.definedness`), and the
   kernel adds the statement's definedness condition to every query, so such points never
   take part in a proof or a counterexample.

Exponents are capped (:mod:`attnio.smt.term_limits`): a power whose exponent's numerator
exceeds :data:`~attnio.smt.term_limits.MAX_EXPONENT` or whose root index exceeds
:data:`~attnio.smt.term_limits.MAX_ROOT_INDEX` is a :class:`TranslationError`, never a
polynomial of that degree.

Division by zero is z3's (an unconstrained value), excluded the same way. ``floor(e)`` and
``ceiling(e)`` become a fresh z3 ``Int`` :math:`k` with :math:`k \le e < k + 1` (resp.
:math:`k - 1 < e \le k`), plus the division lemma :math:`N = kD \pm r`,
:math:`0 \le |r| < |D|` when :math:`e = N/D` has integer-valued parts
(:meth:`Translator.division_lemma`). ``Min`` / ``Max`` / ``Piecewise`` become ``If`` terms (a
``Piecewise`` without a final ``True`` branch ends in a fresh unconstrained value: where no
branch applies it is undefined); relations become atoms; ``And`` / ``Or`` / ``Not`` /
``Implies`` / ``Equivalent`` / ``Xor`` the z3 connectives. A constant written with ``+``,
``×`` and integer powers is one exact numeral (``10**200``, up to the caps). ``exp``, ``log``
(``log(a, b) = log(a)/log(b)``), ``E``, a power with a symbolic exponent
(``b**y = exp(y log b)``) and ``pi`` are the exp/log fragment
(:mod:`attnio.smt.explog_terms`); the trigonometric functions of symbols have no SMT
translation (:class:`TranslationError`).

Side conditions
---------------
Each has a planted violation in ``tests/smt/test_side_conditions.py`` (the trust tier):

* ``bridge.square-root-needs-a-lower-bound`` — ``M = s²`` only for a symbol declared
  nonnegative (an ``integer`` has no lower bound; an exact ``Int`` is never squared).
* ``bridge.only-square-roots-become-squares`` — only an exponent with denominator 2 is read
  through ``s``; a fourth root is a root variable of its own.
* ``bridge.a-root-is-free-below-zero`` — a root variable is ``≥ 0`` and its power equals the
  base only where the base is ``≥ 0``: nothing is claimed of a negative base.
* ``bridge.each-floor-its-own-integer`` — every ``floor`` / ``ceiling`` term is a fresh integer.
* ``bridge.division-lemma-needs-integer-parts`` — the division lemma only when numerator and
  denominator are integer-valued at every integer point.
* ``bridge.integer-gaps-need-integer-sides`` — ``t ≤ -1 ∨ t = 0 ∨ t ≥ 1`` only for a relation
  whose two sides are integer-valued.
* ``bridge.no-branch-is-free`` — a ``Piecewise`` without a final ``True`` branch ends in a
  fresh value, never in its last branch's value.
* ``bridge.exponents-within-caps`` — an exponent or root index beyond the caps is a
  :class:`TranslationError`, never a polynomial of that degree.
* ``bridge.own-names-reserved`` — every variable the bridge makes itself has a z3 name ending
  in :data:`RESERVED`, which no declared symbol's name may hold (a :class:`TranslationError`):
  a declared ``s_x`` or ``root2_x_0`` is never the root of ``x``.
* ``bridge.constants-are-exact`` — a constant is its exact numeral (no float: a binary float
  is a :class:`TranslationError`), and z3's values are read back exactly.

Examples
--------
>>> import sympy
>>> n, d, M = sympy.symbols("n d M", positive=True)
>>> t = Translator({n: "positive", d: "positive", M: "positive"})
>>> t.expr(n**2 * d / sympy.sqrt(M))
d*(1/s_M!)*n*n
>>> t.substitutions
('M = s_M**2 with s_M > 0 (M declared positive)',)
>>> x = sympy.Symbol("x", real=True)
>>> Translator({x: "real"}).expr(sympy.sqrt(x))    # x may be negative: no substitution
root2_x_0!
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Mapping

import sympy
import z3

from attnio.exceptions import TranslationError
from attnio.smt.explog_terms import ExpLogTerms
from attnio.smt.term_limits import (
    MAX_CONSTANT_BITS,
    MAX_EXPONENT,
    MAX_ROOT_INDEX,
    exact_constant,
    exponent_within_caps,
)

__all__ = ["Translator", "TranslationError", "IntegerEncoding", "RESERVED"]

#: Ends the z3 name of every variable the bridge makes itself (the root of a squared symbol, a
#: root, a fresh value, an integer part, a remainder); a declared symbol's name never holds it
#: (``bridge.own-names-reserved``), so no user variable can be the same z3 constant as one of
#: them (``Eq(s_x, sqrt(x))`` with ``s_x`` declared was Proved when the root of x was ``s_x``).
RESERVED = "!"

IntegerEncoding = Literal["relaxed", "exact"]

#: Lower bound of each domain (None: unbounded below), and whether it is an integer domain.
_LOWER = {"real": None, "positive": 0, "nonnegative": 0, "integer": None,
          "positive-integer": 1, "nonnegative-integer": 0}
_STRICT = {"positive"}


@dataclass
class Translator(ExpLogTerms):
    """Stateful sympy → z3 translator: one z3 variable per sympy symbol, shared across calls.

    Parameters
    ----------
    domains : mapping of sympy.Symbol to str
        The declared domain of every symbol that may occur.
    integers : {"relaxed", "exact"}
        How integer domains are encoded (see the module docstring).
    integer_gaps : bool
        Relaxed encoding only: for every relation whose two sides are integer-valued
        (:meth:`integer_valued`) add ``t <= -1 ∨ t = 0 ∨ t >= 1`` for their difference ``t`` —
        true at every integer point, so still a relaxation, but ``M > d**2`` then implies
        ``M >= d**2 + 1`` in either polarity. Off by default (the disjunctions slow the
        solvers down); the kernel turns it on when a relaxed counterexample is not integral.

    Attributes
    ----------
    side_conditions : list of z3.BoolRef
        Domain facts of every variable created so far and the defining constraints of
        auxiliary roots: hypotheses of any statement using the translation.
    substitutions : tuple of str
        The changes of variables applied (e.g. ``"M = s_M**2 with s_M > 0 ..."``).

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y", positive=True)
    >>> t = Translator({x: "positive", y: "positive"})
    >>> t.expr(sympy.Min(x, y))
    If(x <= y, x, y)
    >>> k = sympy.Symbol("k", integer=True, positive=True)
    >>> tr = Translator({k: "positive-integer"}, integers="exact")
    >>> tr.side_conditions, tr.expr(k)
    ([k >= 1], ToReal(k))
    """

    domains: Mapping[sympy.Symbol, str]
    integers: IntegerEncoding = "relaxed"
    integer_gaps: bool = False
    side_conditions: list[z3.BoolRef] = field(default_factory=list)
    _vars: dict[sympy.Symbol, z3.ArithRef] = field(default_factory=dict, repr=False)
    _ints: dict[sympy.Symbol, z3.ArithRef] = field(default_factory=dict, repr=False)
    _roots: dict[sympy.Basic, z3.ArithRef] = field(default_factory=dict, repr=False)
    _root_symbols: dict[sympy.Symbol, sympy.Symbol] = field(default_factory=dict, repr=False)
    _substitutions: list[str] = field(default_factory=list, repr=False)
    _fresh_count: int = field(default=0, repr=False)
    _exp_terms: list[tuple[z3.ArithRef, z3.ArithRef]] = field(default_factory=list, repr=False)
    _log_terms: list[tuple[z3.ArithRef, z3.ArithRef]] = field(default_factory=list, repr=False)
    _transcendental: dict[tuple[str, sympy.Basic], z3.ArithRef] = field(default_factory=dict,
                                                                        repr=False)
    _axiom_instances: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        for sym in self.domains:
            # Declared in the constructor so that side_conditions list every domain fact.
            self.var(sym)

    @property
    def substitutions(self) -> tuple[str, ...]:
        out = list(self._substitutions)
        if self._transcendental:
            out.append(f"exp and log as uninterpreted functions with "
                       f"{self._axiom_instances} instances of their axioms (attnio.smt.explog)")
        return tuple(out)


    # -- symbols ----------------------------------------------------------------------------
    def domain(self, sym: sympy.Symbol) -> str:
        try:
            return self.domains[sym]
        except KeyError:
            raise TranslationError(f"symbol {sym} has no declared domain") from None

    def _is_integer(self, sym: sympy.Symbol) -> bool:
        return "integer" in self.domain(sym)

    def _squarable(self, sym: sympy.Symbol) -> bool:
        """May ``sym = s**2`` be used? Only for a domain bounded below by 0."""
        dom = self.domain(sym)
        if _LOWER[dom] is None:
            return False
        return not (self._is_integer(sym) and self.integers == "exact")

    def _root_symbol(self, sym: sympy.Symbol) -> sympy.Symbol:
        """The symbol :math:`s` with ``sym = s**2`` (created once, domain recorded)."""
        if sym not in self._root_symbols:
            dom = self.domain(sym)
            # a Dummy: a declared symbol named s_<sym> (even positive) is never this one
            root = sympy.Dummy(f"s_{sym}", positive=True)
            self._root_symbols[sym] = root
            v = z3.Real(f"{root.name}{RESERVED}")    # never a declared symbol's name
            self._vars[root] = v
            low = _LOWER[dom]
            if dom in _STRICT:
                self.side_conditions.append(v > 0)
                rule = "s > 0"
            elif low == 1:
                self.side_conditions.append(v >= 1)
                rule = "s >= 1"
            else:
                self.side_conditions.append(v >= 0)
                rule = "s >= 0"
            # Where sym occurs outside a root it stays a variable: tie the two together.
            self.side_conditions.append(self.var(sym) == v * v)
            self._substitutions.append(
                f"{sym} = {root.name}**2 with {rule.replace('s', root.name, 1)} "
                f"({sym} declared {dom})")
        return self._root_symbols[sym]

    def var(self, sym: sympy.Symbol) -> z3.ArithRef:
        """The z3 term of ``sym`` (a Real, or ToReal of an Int), its domain facts recorded once."""
        if sym in self._vars:
            return self._vars[sym]
        dom = self.domain(sym)
        low = _LOWER[dom]
        if RESERVED in str(sym):
            raise TranslationError(
                f"the symbol name {str(sym)!r} holds {RESERVED!r}, which is reserved for the "
                "bridge's own variables (a root, a fresh value): rename the symbol")
        if self._is_integer(sym) and self.integers == "exact":
            i = z3.Int(str(sym))
            self._ints[sym] = i
            if low is not None:
                self.side_conditions.append(i >= low)
            term: z3.ArithRef = z3.ToReal(i)
        else:
            term = z3.Real(str(sym))
            if dom in _STRICT:
                self.side_conditions.append(term > 0)
            elif low is not None:
                self.side_conditions.append(term >= low)
        self._vars[sym] = term
        return term

    def integer_valued(self, e: sympy.Basic) -> bool:
        """Is ``e`` an integer at every point where its integer-domain symbols are integers?
        (Integer constants and symbols, +, ×, non-negative integer powers, floor, ceiling,
        Abs, Min, Max, Piecewise of such.) Syntactic, hence only ever a sufficient test.

        >>> import sympy
        >>> n, x = sympy.Symbol("n", integer=True), sympy.Symbol("x", real=True)
        >>> t = Translator({n: "integer", x: "real"})
        >>> t.integer_valued(n**2 - 3*n), t.integer_valued(n / 2), t.integer_valued(sympy.floor(x))
        (True, False, True)
        """
        if isinstance(e, sympy.Symbol):
            return self._is_integer(e)
        if e.is_Number:
            return bool(e.is_Integer)
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            return True
        if isinstance(e, sympy.Pow):
            return bool(e.exp.is_Integer and e.exp >= 0) and self.integer_valued(e.base)
        if isinstance(e, sympy.Piecewise):
            return all(self.integer_valued(value) for value, _ in e.args)
        if isinstance(e, (sympy.Add, sympy.Mul, sympy.Abs, sympy.Min, sympy.Max)):
            return all(self.integer_valued(a) for a in e.args)
        return False

    # -- models -----------------------------------------------------------------------------
    def point(self, model: z3.ModelRef) -> dict[sympy.Symbol, sympy.Expr]:
        """The model's exact values of the *original* symbols (``M = s_M**2`` evaluated by z3;
        algebraic numbers as :class:`sympy.CRootOf`)."""
        out: dict[sympy.Symbol, sympy.Expr] = {}
        for sym in self.domains:
            if sym in self._root_symbols:
                r = self._vars[self._root_symbols[sym]]
                out[sym] = z3_to_sympy(model.eval(r * r, model_completion=True))
            elif sym in self._ints:
                out[sym] = z3_to_sympy(model.eval(self._ints[sym], model_completion=True))
            else:
                out[sym] = z3_to_sympy(model.eval(self.var(sym), model_completion=True))
        return out

    # -- expressions ------------------------------------------------------------------------
    def expr(self, e: sympy.Basic) -> z3.ArithRef:
        """Translate an arithmetic sympy expression, node by node.

        The expression is never rebuilt by sympy on the way (no ``subs``/``xreplace``), so an
        unevaluated product such as ``Mul(d/sqrt(M), n**2*d/sqrt(M), evaluate=False)`` reaches
        the solver as written instead of being multiplied back into ``n**2*d**2/M``.
        """
        return self._arith(sympy.sympify(e))

    def rel(self, e: sympy.Basic) -> z3.BoolRef:
        """Translate a relation or boolean combination of relations.

        An unevaluated relation (``sympy.Eq(a, b, evaluate=False)``) is never re-evaluated by
        sympy: the decision is the solver's.
        """
        return self._bool(e)

    def _arith(self, e: sympy.Basic) -> z3.ArithRef:
        if isinstance(e, sympy.Symbol):
            return self.var(e)
        if e.is_Integer:
            return z3.RealVal(int(e))
        if e.is_Rational:
            return z3.RealVal(Fraction(int(e.p), int(e.q)))
        if isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)) and not e.free_symbols:
            value = exact_constant(e)        # 10**200 as one numeral, not z3's (^ 10 200)
            if value is not None:
                return z3.RealVal(value)
        if isinstance(e, sympy.exp):
            return self._exp(e.args[0])
        if isinstance(e, sympy.log):
            if len(e.args) == 2:              # log(a, b) = log(a)/log(b): b > 0, b != 1
                return self._log(e.args[0]) / self._log(e.args[1])
            return self._log(e.args[0])
        if e is sympy.E:
            return self._exp(sympy.Integer(1))
        if e is sympy.pi:
            return self._bounded_constant(e)
        if isinstance(e, sympy.Add):
            return z3.Sum([self._arith(a) for a in e.args])
        if isinstance(e, sympy.Mul):
            return z3.Product([self._arith(a) for a in e.args])
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, sympy.Abs):
            inner = self._arith(e.args[0])
            return z3.If(inner >= 0, inner, -inner)
        if isinstance(e, (sympy.Min, sympy.Max)):
            args = [self._arith(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                keep_out = out <= a if isinstance(e, sympy.Min) else out >= a
                out = z3.If(keep_out, out, a)
            return out
        if isinstance(e, sympy.Piecewise):
            if e.args[-1][1] is sympy.true:
                out, branches = self._arith(e.args[-1][0]), e.args[:-1]
            else:   # no branch applies: undefined there, a free value (definedness.py)
                out, branches = self._fresh("nobranch"), e.args
            for value, cond in reversed(branches):
                out = z3.If(self._bool(cond), self._arith(value), out)
            return out
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            return self._integer_part(e)
        if isinstance(e, sympy.Float):
            raise TranslationError(f"binary float {e} in a statement: write Rational(...) "
                                   "or pass the statement as text (decimals are exact there)")
        raise TranslationError(f"cannot translate {type(e).__name__} term {e} to SMT arithmetic")

    def _pow(self, e: sympy.Pow) -> z3.ArithRef:
        base, exp = e.args
        if not exp.is_Rational and not exp.free_symbols:
            value = exact_constant(exp)      # 10**8 written unevaluated is a rational too
            if value is not None:
                exp = sympy.Rational(value.numerator, value.denominator)
        if not exp.is_Rational:
            if exp.is_number and not exp.is_real:
                raise TranslationError(f"cannot translate non-real exponent in {e}")
            # b**y = exp(y*log(b)) where b > 0, the only points where it is defined
            # (definedness.py; axiom explog.pow_exp)
            return self._exp(sympy.Mul(exp, sympy.log(base, evaluate=False), evaluate=False))
        p, q = int(exp.p), int(exp.q)
        if not exponent_within_caps(p, q):
            # a polynomial of degree p, or a root r with r**q = b: beyond what nlsat decides
            raise TranslationError(f"exponent {_short(exp)} of a power is beyond the caps "
                                   f"(|numerator| <= {MAX_EXPONENT}, root index <= "
                                   f"{MAX_ROOT_INDEX}: attnio.smt.term_limits)")
        if q == 1:
            return _int_power(self._arith(base), p)
        if isinstance(base, sympy.Symbol) and q == 2 and self._squarable(base):
            return _int_power(self.var(self._root_symbol(base)), p)   # M**(p/2) = s**p
        return _int_power(self._root(base, q), p)

    def _root(self, base: sympy.Basic, q: int) -> z3.ArithRef:
        key = sympy.Pow(base, sympy.Rational(1, q), evaluate=False)
        if key not in self._roots:
            r = z3.Real(f"root{q}_{_safe(str(base))}_{len(self._roots)}{RESERVED}")
            b = self._arith(base)
            self._roots[key] = r
            # the principal root: defined for b >= 0 only, odd q included (definedness.py)
            self.side_conditions += [r >= 0, z3.Implies(b >= 0, _int_power(r, q) == b)]
        return self._roots[key]

    def _fresh(self, label: str) -> z3.ArithRef:
        """A new unconstrained real (a value where a term is undefined)."""
        self._fresh_count += 1
        return z3.Real(f"{label}_{self._fresh_count}{RESERVED}")

    def _integer_part(self, e: sympy.Basic) -> z3.ArithRef:
        """``floor(a)`` / ``ceiling(a)`` as a fresh Int ``k``: ``k <= a < k + 1`` (floor),
        ``k - 1 < a <= k`` (ceiling); with the division lemma when ``a = N/D`` has an
        integer-valued numerator and denominator (:meth:`division_lemma`)."""
        if e not in self._roots:
            (arg,) = e.args
            a = self._arith(arg)
            self._fresh_count += 1
            k = z3.ToReal(z3.Int(f"{type(e).__name__}_{self._fresh_count}{RESERVED}"))
            if isinstance(e, sympy.floor):
                self.side_conditions += [k <= a, a < k + 1]
            else:
                self.side_conditions += [k - 1 < a, a <= k]
            self.side_conditions += self.division_lemma(arg, k, floor=isinstance(e, sympy.floor))
            self._roots[e] = k
        return self._roots[e]

    def division_lemma(self, arg: sympy.Basic, k: z3.ArithRef, *, floor: bool
                       ) -> list[z3.BoolRef]:
        r"""The integer facts of :math:`k = \lfloor N/D \rfloor` (``floor``) or
        :math:`\lceil N/D \rceil` when ``arg`` is :math:`N/D` with ``N`` and ``D``
        integer-valued (:meth:`integer_valued`): :math:`N = kD + r` (floor) or
        :math:`N = kD - r` (ceiling) for an integer :math:`r` with :math:`0 \le r \le D - 1`
        if :math:`D > 0`, :math:`D + 1 \le r \le 0` if :math:`D < 0`; :math:`k = N` when
        :math:`D = 1`. True at every point where the integer-domain symbols are integers, so
        the relaxed encoding stays a relaxation (as with ``integer_gaps``); nothing for any
        other argument.

        >>> import sympy
        >>> n, M = sympy.symbols("n M", integer=True, positive=True)
        >>> t = Translator({n: "positive-integer", M: "positive-integer"})
        >>> len(t.division_lemma(n / M, z3.Real("k"), floor=True))
        3
        >>> t.division_lemma(n / sympy.sqrt(M), z3.Real("k"), floor=True)
        []
        """
        num, den = sympy.fraction(arg)
        if not (self.integer_valued(num) and self.integer_valued(den)):
            return []
        n, d = self._arith(num), self._arith(den)
        if den == 1:
            return [k == n]
        self._fresh_count += 1
        r = z3.ToReal(z3.Int(f"rem_{self._fresh_count}{RESERVED}"))
        return [n == k * d + r if floor else n == k * d - r,
                z3.Implies(d > 0, z3.And(r >= 0, r <= d - 1)),
                z3.Implies(d < 0, z3.And(r <= 0, r >= d + 1))]

    def _bool(self, e: sympy.Basic) -> z3.BoolRef:
        if e is sympy.true:
            return z3.BoolVal(True)
        if e is sympy.false:
            return z3.BoolVal(False)
        if isinstance(e, (sympy.Eq, sympy.Ne, sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt)):
            lhs, rhs = self.expr(e.lhs), self.expr(e.rhs)
            if self.integer_gaps and self.integers == "relaxed" and self.integer_valued(e.lhs) \
                    and self.integer_valued(e.rhs):
                # both sides are integers at every integer point: their difference is never
                # strictly between -1 and 1 unless 0 (true at every integer point, so still a
                # relaxation; it makes M > d**2 imply M >= d**2 + 1, in either polarity)
                t = lhs - rhs
                self.side_conditions.append(z3.Or(t <= -1, t == 0, t >= 1))
            if isinstance(e, sympy.Eq):
                return lhs == rhs
            if isinstance(e, sympy.Ne):
                return lhs != rhs
            return {
                sympy.Le: lambda: lhs <= rhs,
                sympy.Lt: lambda: lhs < rhs,
                sympy.Ge: lambda: lhs >= rhs,
                sympy.Gt: lambda: lhs > rhs,
            }[type(e)]()
        if isinstance(e, sympy.And):
            return z3.And([self._bool(a) for a in e.args])
        if isinstance(e, sympy.Or):
            return z3.Or([self._bool(a) for a in e.args])
        if isinstance(e, sympy.Not):
            return z3.Not(self._bool(e.args[0]))
        if isinstance(e, sympy.Implies):
            return z3.Implies(self._bool(e.args[0]), self._bool(e.args[1]))
        if isinstance(e, sympy.Equivalent):
            parts = [self._bool(a) for a in e.args]
            return z3.And([parts[0] == p for p in parts[1:]])
        if isinstance(e, sympy.Xor):
            parts = [self._bool(a) for a in e.args]
            out = parts[0]
            for p in parts[1:]:
                out = z3.Xor(out, p)
            return out
        raise TranslationError(f"cannot translate {type(e).__name__} relation {e} to SMT")


def z3_to_sympy(value: z3.ExprRef) -> sympy.Expr:
    """An exact sympy number for a z3 numeral: Integer, Rational, or a real algebraic number
    (:class:`sympy.CRootOf` of z3's defining polynomial, same root index).

    >>> x = z3.Real("x"); s = z3.Solver(); s.add(x * x == 2, x > 0); _ = s.check()
    >>> z3_to_sympy(s.model()[x])
    CRootOf(_x**2 - 2, 1)
    """
    if z3.is_int_value(value):
        return sympy.Integer(value.as_long())
    if z3.is_rational_value(value):
        return sympy.Rational(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_app_of(value, z3.Z3_OP_POWER):
        base, exponent = (z3_to_sympy(c) for c in value.children())
        if base.is_Rational and exponent.is_Integer and \
                abs(int(exponent)) * max(int(base.p).bit_length(), int(base.q).bit_length()) \
                <= MAX_CONSTANT_BITS:
            return base ** exponent     # z3's (^ 10 200): a numeral it leaves unexpanded
    if z3.is_algebraic_value(value):
        coeffs = [int(str(c)) for c in value.poly()]  # constant term first
        x = sympy.Dummy("x")
        poly = sympy.Poly(list(reversed(coeffs)), x)
        return sympy.CRootOf(poly, value.index() - 1).doit()
    raise TranslationError(f"cannot read the z3 value {value} as an exact number")


def _int_power(b: z3.ArithRef, p: int) -> z3.ArithRef:
    """``b**p`` for an integer ``p`` as a product (z3's ``**`` makes nlsat give up sooner)."""
    if p == 0:
        return z3.RealVal(1)
    if p < 0:
        return 1 / _int_power(b, -p)
    if p > _MAX_PRODUCT_POWER:     # z3's own power node: a product of 10**5 copies would
        return b ** p              # take longer to build than to refute
    return b if p == 1 else z3.Product([b] * p)


#: Above this exponent a power is left to z3's ``**`` instead of an explicit product.
_MAX_PRODUCT_POWER = 64
def _short(e: object, width: int = 40) -> str:
    text = str(e)
    return text if len(text) <= width else text[: width - 1] + "…"


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)
