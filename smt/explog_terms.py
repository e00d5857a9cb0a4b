r"""The bridge's exp/log terms: each ``exp`` / ``log`` of a statement as an uninterpreted
function application, with the axiom instances that constrain it.

:class:`ExpLogTerms` is the part of :class:`attnio.smt.sympy_to_z3.Translator` that handles
the exp/log fragment (:mod:`attnio.smt.explog` states the axioms and proves them). Every
term is registered once, keyed by its sympy argument as written, and gets the instances of

* the unary axioms (``exp_positive``, ``exp_sign``, ``exp_tangent``, ``exp_tangent_one``,
  ``exp_taylor2``, ``exp_upper``; ``log_sign``, ``log_tangent``, ``log_tangent_e``,
  ``log_taylor2``, ``log_lower``) at its argument;
* the pairwise ones with every term registered before it: ``exp_monotone`` and
  ``log_monotone`` both ways, ``log_exp`` and ``exp_log`` between an exp and a log term;
* the splits of its argument: ``exp(a + b) = exp(a) exp(b)`` (``exp_add``), ``exp(k t) =
  exp(t)**k`` for a small integer ``k`` (``exp_scale``), ``log(f g) = log f + log g``
  (``log_mul``), ``log(f**y) = y log f`` and, for an even ``y``, ``y log|f|`` (``log_pow``),
  a rational constant's logarithm down to primes (``log_mul`` at constants);
* for a constant argument, rational bounds the referee certifies
  (:func:`~attnio.smt.explog.certified_bounds`).

:meth:`ExpLogTerms.anchor` adds the terms at the statement's own constants, and
:meth:`ExpLogTerms.repaired_point` moves a z3 model to where the real functions take its
values (a candidate counterexample the kernel then judges exactly). Nothing here can make a
false statement Proved unless an axiom is false: each instance is true of the real exp and log.
"""

from __future__ import annotations

from typing import Mapping

import sympy
import z3

from attnio.exceptions import TranslationError
from attnio.smt import explog
from attnio.smt.explog import EXP, LOG, certified_bounds
from attnio.smt.term_limits import exact_constant

__all__ = ["ExpLogTerms", "MAX_TRANSCENDENTAL_TERMS"]


class ExpLogTerms:
    """The exp/log terms of a translation (mixed into
    :class:`~attnio.smt.sympy_to_z3.Translator`, which provides the fields and ``_arith``).

    Side conditions
    ---------------
    Every instance added must be true of the real exp and log at the term's argument:

    1. ``unary-instances``: the unary axioms of a term are instantiated at that term's own
       argument (exp's at an exp term, log's at a log term).
    2. ``pairwise-instances``: monotonicity and the inverse laws pair each term with every
       term registered before it, each argument with its own term.
    3. ``exp-add-whole-rest``: ``exp(a + b + …)`` is split as ``exp(first)·exp(the whole
       rest)``.
    4. ``exp-scale-coefficient``: ``exp(k·t)`` is tied to ``exp(t)**k`` with ``k`` the
       argument's integer coefficient and ``t`` the rest.
    5. ``log-mul-whole-rest``: ``log(f·g·…)`` is split as ``log(first) + log(the whole
       rest)``.
    6. ``log-pow-even-magnitude``: ``log(f**y) = y·log f`` (where ``f > 0``), and for an even
       integer ``y`` also ``y·log|f|`` (where ``f ≠ 0``, ``f`` of either sign).
    7. ``constant-log-split``: a rational constant's logarithm splits as
       ``log(p/q) = log p − log q`` and ``log(m·p) = log m + log p`` exactly.
    8. ``constant-bounds-around``: a constant term's rational bounds lie strictly below and
       above its true value.
    """

    domains: Mapping[sympy.Symbol, str]
    side_conditions: list[z3.BoolRef]
    _exp_terms: list[tuple[z3.ArithRef, z3.ArithRef]]
    _log_terms: list[tuple[z3.ArithRef, z3.ArithRef]]
    _transcendental: dict[tuple[str, sympy.Basic], z3.ArithRef]
    _axiom_instances: int

    def _arith(self, e: sympy.Basic) -> z3.ArithRef:
        raise NotImplementedError       # the Translator's

    @property
    def uses_fragment(self) -> bool:
        """Did the translation use the exp/log fragment (uninterpreted functions)?"""
        return bool(self._transcendental)

    def _fact(self, axiom_id: str, *terms: object) -> None:
        self.side_conditions.append(explog.axiom_instances(axiom_id, *terms))
        self._axiom_instances += 1

    def _room_for_a_term(self) -> None:
        if len(self._transcendental) >= MAX_TRANSCENDENTAL_TERMS:
            raise TranslationError(f"more than {MAX_TRANSCENDENTAL_TERMS} exp/log terms: beyond "
                                   "what the exp/log fragment instantiates its axioms for")

    def _exp(self, arg: sympy.Basic) -> z3.ArithRef:
        """``exp(arg)`` as :data:`~attnio.smt.explog.EXP` applied to ``arg``, with the axiom
        instances of the term: alone, with every other exp term (monotone), with every log
        term (inverse functions), and the split of a sum (``exp_add``), a small integer
        multiple (``exp_scale``) and a constant (certified bounds)."""
        key = ("exp", arg)
        if key in self._transcendental:
            return self._transcendental[key]
        self._room_for_a_term()
        a = self._arith(arg)
        e = EXP(a)
        self._transcendental[key] = e
        for unary in ("explog.exp_positive", "explog.exp_sign", "explog.exp_tangent",
                      "explog.exp_taylor2", "explog.exp_upper"):
            self._fact(unary, a, e)
        for a2, e2 in self._exp_terms:
            self._fact("explog.exp_monotone", a, e, a2, e2)
            self._fact("explog.exp_monotone", a2, e2, a, e)
        for b, lg in self._log_terms:
            self._fact("explog.log_exp", a, e, b, lg)
            self._fact("explog.exp_log", b, lg, a, e)
        self._exp_terms.append((a, e))
        if not arg.free_symbols:
            self._bound(sympy.exp(arg), e)
        if arg != 1:    # the tangent at 1 needs e itself: exp(1), registered once
            self._fact("explog.exp_tangent_one", a, e, self._exp(sympy.Integer(1)))
        if isinstance(arg, sympy.Add) and len(arg.args) >= 2:
            first, *others = arg.args
            rest = others[0] if len(others) == 1 else sympy.Add(*others, evaluate=False)
            self._fact("explog.exp_add", self._exp(first), self._exp(rest), e)
        elif isinstance(arg, sympy.Mul):
            k, t = arg.as_coeff_Mul()
            if k.is_Integer and 2 <= abs(int(k)) <= _MAX_EXP_SCALE or k == -1:
                self._fact("explog.exp_scale", self._exp(t), int(k), e)
        return e

    def _log(self, arg: sympy.Basic) -> z3.ArithRef:
        """``log(arg)`` as :data:`~attnio.smt.explog.LOG` applied to ``arg`` (meaningful where
        ``arg > 0``, which the statement's definedness condition requires), with the axiom
        instances of the term: alone, with every other log term (monotone), with every exp
        term (inverse functions), and the split of a product (``log_mul``), of a power
        (``log_pow``), of an integer or rational constant into primes, and certified bounds of
        a constant."""
        key = ("log", arg)
        if key in self._transcendental:
            return self._transcendental[key]
        self._room_for_a_term()
        b = self._arith(arg)
        lg = LOG(b)
        self._transcendental[key] = lg
        for unary in ("explog.log_sign", "explog.log_tangent", "explog.log_taylor2",
                      "explog.log_lower"):
            self._fact(unary, b, lg)
        for b2, l2 in self._log_terms:
            self._fact("explog.log_monotone", b, lg, b2, l2)
            self._fact("explog.log_monotone", b2, l2, b, lg)
        for a, e in self._exp_terms:
            self._fact("explog.log_exp", a, e, b, lg)
            self._fact("explog.exp_log", b, lg, a, e)
        self._log_terms.append((b, lg))
        if not arg.free_symbols:
            self._bound(sympy.log(arg), lg)
        self._fact("explog.log_tangent_e", b, lg, self._exp(sympy.Integer(1)))
        if isinstance(arg, sympy.Mul) and len(arg.args) >= 2:
            first, *others = arg.args
            rest = others[0] if len(others) == 1 else sympy.Mul(*others, evaluate=False)
            self._fact("explog.log_mul", self._arith(first), self._log(first),
                       self._arith(rest), self._log(rest), lg)
        elif isinstance(arg, sympy.Pow):
            base, exponent = arg.args
            self._fact("explog.log_pow", self._arith(base), self._log(base),
                       self._arith(exponent), lg)
            if exponent.is_Integer and exponent % 2 == 0:
                # f**k = |f|**k for an even k: log(f**k) = k log|f| wherever f != 0
                magnitude = sympy.Abs(base, evaluate=False)
                self._fact("explog.log_pow", self._arith(magnitude), self._log(magnitude),
                           self._arith(exponent), lg)
        elif arg.is_Rational and arg > 0 and arg != 1:
            self._split_constant_log(sympy.Rational(arg), b, lg)
        return lg

    def anchor(self, formula: sympy.Basic) -> None:
        """Instances at the statement's own constants: when ``formula`` uses ``log``, the
        logarithm of each positive rational constant it mentions (``n >= 10**200`` then gives
        ``log(n) >= log(10**200) > 460.5`` by monotonicity); when it uses ``exp``, the
        exponential of each constant of size at most :data:`_MAX_EXP_ANCHOR`. True facts
        about terms the statement does not contain: adding them only ever helps a proof."""
        kinds = {kind for kind, _ in self._transcendental}
        if not kinds & {"exp", "log"}:
            return
        uses_log = formula.has(sympy.log)
        uses_exp = formula.has(sympy.exp) or any(   # a power the bridge writes as exp(y log b)
            not p.exp.is_Rational and (p.exp.free_symbols or exact_constant(p.exp) is None)
            for p in formula.atoms(sympy.Pow))
        for constant in _constants_of(formula)[:_MAX_ANCHORS]:
            value = exact_constant(constant)
            if value is None or value in (0, 1, -1):
                continue
            if uses_log and value > 0:
                self._log(constant)
            if uses_exp and abs(value) <= _MAX_EXP_ANCHOR:
                self._exp(constant)

    def repaired_point(self, model: z3.ModelRef, point: Mapping[sympy.Symbol, sympy.Expr]
                       ) -> dict[sympy.Symbol, sympy.Expr] | None:
        """``point`` with each declared symbol ``x`` that occurs as ``log(x)`` or ``exp(x)``
        moved to where the *real* function takes the value z3's model gave the uninterpreted
        one (``x = exp(L)`` for ``log(x) = L``, ``x = log(E)`` for ``exp(x) = E > 0``, as
        30-digit rationals); None when no symbol can be moved. A candidate only: the kernel
        judges it by exact evaluation."""
        out = dict(point)
        moved = False
        for (kind, arg), term in self._transcendental.items():
            if kind not in ("exp", "log") or arg not in self.domains:
                continue
            value = _approximately(model.eval(term, model_completion=True))
            if value is None:
                continue
            target = sympy.exp(value) if kind == "log" else (
                sympy.log(value) if value.is_positive else None)
            if target is None:
                continue
            try:
                approx = target.evalf(30)
                if not approx.is_Float:
                    continue
                out[arg] = sympy.Rational(str(approx))
            except (TypeError, ValueError):
                continue
            moved = True
        return out if moved else None

    def _split_constant_log(self, value: sympy.Rational, b: z3.ArithRef, lg: z3.ArithRef) -> None:
        """``log(p/q) = log(p) − log(q)`` and ``log(m·n) = log(m) + log(n)`` down to primes
        (``explog.log_mul`` at constants), for numbers small enough to factor."""
        if value.q != 1:
            p, q = sympy.Integer(value.p), sympy.Integer(value.q)
            if p == 1:      # log(1/q): log(1/q) + log(q) = log(1) = 0
                self._fact("explog.log_mul", b, lg, self._arith(q), self._log(q),
                           self._log(sympy.Integer(1)))
            else:           # log(p) = log(p/q) + log(q)
                self._fact("explog.log_mul", b, lg, self._arith(q), self._log(q), self._log(p))
            return
        n = int(value)
        if n >= _MAX_FACTORED or sympy.isprime(n):
            return
        factors = sympy.factorint(n)
        p = min(factors)
        m = sympy.Integer(n // p)
        self._fact("explog.log_mul", self._arith(sympy.Integer(p)), self._log(sympy.Integer(p)),
                   self._arith(m), self._log(m), lg)

    def _bound(self, constant: sympy.Expr, term: z3.ArithRef) -> None:
        """Rational bounds of a constant, each certified by the referee (or none)."""
        bounds = certified_bounds(constant)
        if bounds is not None:
            lo, hi = bounds
            self.side_conditions += [term > explog.rational(lo), term < explog.rational(hi)]

    def _bounded_constant(self, constant: sympy.Expr) -> z3.ArithRef:
        """A transcendental constant (``pi``) as a fresh real between certified bounds."""
        key = ("constant", constant)
        if key not in self._transcendental:
            self._transcendental[key] = z3.Real(f"const!{''.join(c if c.isalnum() else '_' for c in str(constant))}")
            self._bound(constant, self._transcendental[key])
        return self._transcendental[key]


#: Most exp/log terms (with the ones their splits create) one translation instantiates the
#: axioms for: the pairwise instances grow with the square.
MAX_TRANSCENDENTAL_TERMS = 40
#: ``exp(k*t)`` with an integer ``|k|`` up to this is tied to ``exp(t)**k``.
_MAX_EXP_SCALE = 4
#: Integer constants below this have their logarithm split into primes.
_MAX_FACTORED = 10 ** 12


#: Constants of a statement the exp/log axioms are instantiated at (at most).
_MAX_ANCHORS = 8
#: ``exp(c)`` is an anchor only for ``|c|`` up to this (``exp(10**6)`` has no useful bounds).
_MAX_EXP_ANCHOR = 1000


def _constants_of(formula: sympy.Basic) -> list[sympy.Basic]:
    """The maximal rational constant subterms of ``formula`` (``10**200`` whole, as written),
    each once, in the order met."""
    out: list[sympy.Basic] = []

    def walk(node: sympy.Basic) -> None:
        if isinstance(node, sympy.Expr) and not node.free_symbols and \
                exact_constant(node) is not None:
            if node not in out:
                out.append(node)
            return
        for child in node.args:
            if isinstance(child, sympy.Basic):
                walk(child)

    walk(formula)
    return out


def _approximately(value: z3.ExprRef) -> sympy.Rational | None:
    """A z3 numeral as a sympy rational (an algebraic one to 30 digits), else None."""
    if z3.is_int_value(value):
        return sympy.Rational(value.as_long())
    if z3.is_algebraic_value(value):
        value = value.approx(30)
    if z3.is_rational_value(value):
        return sympy.Rational(value.numerator_as_long(), value.denominator_as_long())
    return None
