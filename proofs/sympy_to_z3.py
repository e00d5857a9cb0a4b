r"""Translate sympy bound expressions and relations into z3 real arithmetic.

The bound catalogue (:mod:`attnio.symbolic.catalogue`) writes bounds as sympy expressions in
the size symbols :math:`n, d, M, Z_{in}, Z_{QK}, \dots`; the claims of :mod:`attnio.proofs`
are checked by z3 over the reals. This module is the one bridge between the two.

Square roots
------------
z3's nonlinear real arithmetic (nlsat) is complete for *polynomial* constraints, so square
roots are removed before translation:

1. every symbol listed in ``squares`` (by default ``M`` and ``Z_QK``) is replaced by the square
   of a fresh positive symbol (:math:`M = s^2`, :math:`s > 0`), so that sympy itself rewrites
   :math:`\sqrt{M} = s`, :math:`M^{-1/2} = 1/s`, :math:`M^{3/2} = s^3`;
2. any power with a remaining non-integer rational exponent :math:`b^{p/q}` becomes
   :math:`r^p` for a fresh z3 variable :math:`r` with side conditions :math:`r \ge 0`,
   :math:`r^q = b` (e.g. :math:`\sqrt{2}`).

``Min`` / ``Max`` become nested ``If`` terms (one branch per case), relations become z3
atoms, and ``And`` / ``Or`` / ``Not`` / ``Implies`` / ``Equivalent`` become the z3 connectives.
Side conditions introduced by step 2 are returned with the translation and must be added to
the hypotheses (:func:`prove_sympy` does this).

Range
-----
Every symbol is a z3 ``Real``. A sympy symbol declared ``positive=True`` gets the hypothesis
``x > 0``, ``nonnegative=True`` gets ``x >= 0``; integrality is *not* imposed (a claim proved
for every real value in range holds in particular for the integers).

Examples
--------
>>> import sympy
>>> n, d, M = sympy.symbols("n d M", positive=True)
>>> t = Translator(squares=(M,))
>>> t.expr(n**2 * d / sympy.sqrt(M))
d*n*n*(1/s_M)
>>> prove_sympy(sympy.Le(n**2, n**2 * d / sympy.sqrt(M)), [sympy.Le(M, d**2)]).verdict
'proved'
>>> r = prove_sympy(sympy.Le(n**2, n**2 * d / sympy.sqrt(M)))
>>> r.verdict, sorted(r.counterexample)
('refuted', ['M', 'd', 'n', 's_M'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Sequence

import sympy
import z3

from attnio.proofs.z3tools import prove
from attnio.results import Proved, Refuted, Undecided, Verdict

__all__ = ["Translator", "TranslationError", "prove_sympy", "DEFAULT_SQUARES"]

#: Names of the symbols that are written as squares by default (:math:`M = s^2`, ...).
DEFAULT_SQUARES: tuple[str, ...] = ("M", "Z_QK")


class TranslationError(TypeError):
    """A sympy construct the translator does not handle (named in the message)."""


@dataclass
class Translator:
    """Stateful sympy → z3 translator: one z3 variable per sympy symbol, shared across calls.

    Parameters
    ----------
    squares : sequence of sympy.Symbol or str
        Symbols (or symbol names) rewritten as :math:`x = s_x^2` with :math:`s_x > 0` before
        translation. Names in :data:`DEFAULT_SQUARES` are used when omitted.

    Attributes
    ----------
    side_conditions : list of z3.BoolRef
        Range facts of every variable created so far (positivity, the defining equations of
        auxiliary root variables). They are hypotheses of any claim using the translation.

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y", positive=True)
    >>> t = Translator()
    >>> t.expr(sympy.Min(x, y))
    If(x <= y, x, y)
    >>> t.expr(sympy.sqrt(2) * x)
    x*root2_2_0
    >>> [str(c) for c in t.side_conditions]
    ['x > 0', 'y > 0', 'root2_2_0 >= 0', '2 == root2_2_0*root2_2_0']
    """

    squares: Sequence[sympy.Symbol | str] = DEFAULT_SQUARES
    side_conditions: list[z3.BoolRef] = field(default_factory=list)
    _vars: dict[str, z3.ArithRef] = field(default_factory=dict, repr=False)
    _roots: dict[sympy.Basic, z3.ArithRef] = field(default_factory=dict, repr=False)
    _root_symbols: dict[sympy.Symbol, sympy.Symbol] = field(default_factory=dict, repr=False)

    # -- symbols ----------------------------------------------------------------------------
    def _square_names(self) -> set[str]:
        return {str(s) for s in self.squares}

    def _root_symbol(self, sym: sympy.Symbol) -> sympy.Symbol:
        """The positive symbol :math:`s` with ``sym = s**2`` (created once)."""
        if sym not in self._root_symbols:
            self._root_symbols[sym] = sympy.Symbol(f"s_{sym}", positive=True)
        return self._root_symbols[sym]

    def substitute_squares(self, obj: sympy.Basic) -> sympy.Basic:
        """Replace each square symbol :math:`x` by :math:`s_x^2` (sympy then simplifies roots)."""
        names = self._square_names()
        mapping = {
            sym: self._root_symbol(sym) ** 2
            for sym in obj.free_symbols
            if isinstance(sym, sympy.Symbol) and str(sym) in names
        }
        return obj.xreplace(mapping) if mapping else obj

    def var(self, sym: sympy.Symbol) -> z3.ArithRef:
        """The z3 real variable of ``sym`` (with its positivity facts recorded once)."""
        name = str(sym)
        if name not in self._vars:
            v = z3.Real(name)
            self._vars[name] = v
            if sym.is_positive:
                self.side_conditions.append(v > 0)
            elif sym.is_nonnegative:
                self.side_conditions.append(v >= 0)
        return self._vars[name]

    def original_values(self, model: dict[str, object],
                        z3_model: z3.ModelRef | None = None) -> dict[str, object]:
        """Add the original square symbols back to a counterexample: ``M = s_M**2``.

        With the z3 model at hand, ``s_M**2`` is evaluated by z3 itself, so an algebraic
        ``s_M = sqrt(2)`` still gives the exact ``M = 2``.
        """
        out = dict(model)
        for sym, root in self._root_symbols.items():
            value = model.get(str(root))
            if z3_model is not None and str(root) in self._vars:
                r = self._vars[str(root)]
                square = z3_model.eval(r * r, model_completion=True)
                if z3.is_rational_value(square):
                    out[str(sym)] = Fraction(square.numerator_as_long(),
                                             square.denominator_as_long())
                    continue
            if isinstance(value, (int, Fraction)):
                out[str(sym)] = value * value
            elif isinstance(value, str):
                out[str(sym)] = f"({value})**2"
        return out

    # -- expressions ------------------------------------------------------------------------
    def expr(self, e: sympy.Basic) -> z3.ArithRef:
        """Translate an arithmetic sympy expression (after the square substitution)."""
        return self._arith(self.substitute_squares(sympy.sympify(e)))

    def rel(self, e: sympy.Basic) -> z3.BoolRef:
        """Translate a relation or boolean combination of relations.

        The square substitution is applied to each side of each relation separately, so an
        unevaluated relation (``sympy.Eq(a, b, evaluate=False)``) is never re-evaluated by
        sympy: the decision is z3's.
        """
        return self._bool(e)

    def _arith(self, e: sympy.Basic) -> z3.ArithRef:
        if isinstance(e, sympy.Symbol):
            return self.var(e)
        if e.is_Integer:
            return z3.RealVal(int(e))
        if e.is_Rational:
            return z3.RealVal(Fraction(int(e.p), int(e.q)))
        if isinstance(e, sympy.Add):
            return z3.Sum([self._arith(a) for a in e.args])
        if isinstance(e, sympy.Mul):
            return z3.Product([self._arith(a) for a in e.args])
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, (sympy.Min, sympy.Max)):
            args = [self._arith(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                keep_out = out <= a if isinstance(e, sympy.Min) else out >= a
                out = z3.If(keep_out, out, a)
            return out
        if isinstance(e, sympy.Piecewise):
            if e.args[-1][1] is not sympy.true:  # undefined somewhere: no total translation
                raise TranslationError(f"Piecewise without a final True branch: {e}")
            out = self._arith(e.args[-1][0])
            for value, cond in reversed(e.args[:-1]):
                out = z3.If(self._bool(cond), self._arith(value), out)
            return out
        raise TranslationError(f"cannot translate {type(e).__name__} term {e} to z3")

    def _pow(self, e: sympy.Pow) -> z3.ArithRef:
        base, exp = e.args
        if not exp.is_Rational:
            raise TranslationError(f"cannot translate non-rational exponent in {e}")
        p, q = int(exp.p), int(exp.q)
        if q == 1:
            b = self._arith(base)
            return _int_power(b, p)
        root = self._root(base, q)
        return _int_power(root, p)

    def _root(self, base: sympy.Basic, q: int) -> z3.ArithRef:
        key = sympy.Pow(base, sympy.Rational(1, q), evaluate=False)
        if key not in self._roots:
            r = z3.Real(f"root{q}_{_safe(str(base))}_{len(self._roots)}")
            b = self._arith(base)
            self._roots[key] = r
            self.side_conditions += [r >= 0, _int_power(r, q) == b]
        return self._roots[key]

    def _bool(self, e: sympy.Basic) -> z3.BoolRef:
        if e is sympy.true:
            return z3.BoolVal(True)
        if e is sympy.false:
            return z3.BoolVal(False)
        if isinstance(e, sympy.Eq):
            return self.expr(e.lhs) == self.expr(e.rhs)
        if isinstance(e, sympy.Ne):
            return self.expr(e.lhs) != self.expr(e.rhs)
        if isinstance(e, (sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt)):
            lhs, rhs = self.expr(e.lhs), self.expr(e.rhs)
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
        raise TranslationError(f"cannot translate {type(e).__name__} relation {e} to z3")


def _int_power(b: z3.ArithRef, p: int) -> z3.ArithRef:
    """``b**p`` for an integer ``p`` as a product (z3's ``**`` makes nlsat give up sooner)."""
    if p == 0:
        return z3.RealVal(1)
    if p < 0:
        return 1 / _int_power(b, -p)
    return b if p == 1 else z3.Product([b] * p)


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)


def prove_sympy(goal: sympy.Basic, hypotheses: Iterable[sympy.Basic] = (), *,
                timeout_ms: int = 20_000, squares: Sequence[sympy.Symbol | str] = DEFAULT_SQUARES,
                ) -> Verdict:
    r"""Prove ``hypotheses ⇒ goal`` for every real value of the symbols, with z3.

    Parameters
    ----------
    goal : sympy relation or boolean combination
        The claim, e.g. ``sympy.Le(b1, b2)`` or ``sympy.Equivalent(...)``.
    hypotheses : iterable of sympy relations
        The admissible range (positivity of symbols declared positive is added automatically).
    timeout_ms : int
        z3 timeout; on timeout or ``unknown`` the verdict is ``Undecided``.
    squares : sequence
        Symbols written as :math:`s^2` (see the module docstring).

    Returns
    -------
    Proved | Refuted | Undecided
        ``Refuted.counterexample`` maps symbol names (and the auxiliary roots) to exact values;
        square symbols are reported both as ``s_M`` and as ``M = s_M**2``. ``Proved`` also
        requires the hypotheses to be satisfiable: contradictory hypotheses give
        ``Undecided("vacuous: ...")``, never a proof.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x", positive=True)
    >>> prove_sympy(sympy.Ge(x + 1 / x, 2)).verdict
    'proved'
    >>> prove_sympy(sympy.Ge(x + 1 / x, 3)).counterexample["x"]
    Fraction(1, 1)
    """
    t = Translator(squares=squares)
    z3_hyps = [t.rel(h) for h in hypotheses]
    z3_goal = t.rel(goal)
    solver = z3.Solver()
    verdict = prove(z3_goal, [*t.side_conditions, *z3_hyps], timeout_ms=timeout_ms,
                    solver=solver)
    if isinstance(verdict, Refuted):
        return Refuted(t.original_values(verdict.counterexample, solver.model()), verdict.detail)
    if isinstance(verdict, Proved):
        return _not_vacuous(verdict, [*t.side_conditions, *z3_hyps], timeout_ms)
    return verdict


def _not_vacuous(verdict: Proved, hypotheses: list[z3.BoolRef], timeout_ms: int) -> Verdict:
    """A proof from contradictory hypotheses proves nothing: demand a point satisfying them."""
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.add(*hypotheses)
    answer = s.check()
    if answer == z3.sat:
        return Proved(f"{verdict.detail}; hypotheses satisfiable")
    if answer == z3.unsat:
        return Undecided("vacuous: the hypotheses are contradictory, so the proof shows nothing")
    return Undecided(f"proved, but z3 could not show the hypotheses satisfiable "
                     f"({s.reason_unknown()}): possibly vacuous")
