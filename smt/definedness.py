r"""Where a statement is defined: the one semantics of partial functions in attnio.

Square roots, divisions, logarithms and non-integer powers are *partial*: :math:`\sqrt{n-d}`
means nothing at :math:`n = 1, d = 2`. The SMT bridge (:mod:`attnio.smt.sympy_to_z3`) and
the exact referee (:mod:`attnio.smt.exact_eval`) follow the rules below, and the proof
kernel (:mod:`attnio.smt.kernel`) decides a statement only on the points of the declared
domains where it is defined.

The rules
---------
Terms (each also needs its arguments defined):

=================================  ==========================================================
:math:`b^{k}`, integer :math:`k<0`  :math:`b \ne 0` (division is :math:`b^{-1}`)
:math:`b^{p/q}`, :math:`q > 1`      :math:`b \ge 0` if :math:`p > 0`, :math:`b > 0` if
                                    :math:`p < 0` — odd roots included: sympy's principal
                                    root of a negative number is not real
:math:`b^{x}`, :math:`x` not a      :math:`b > 0`
rational constant
:math:`\log a`                      :math:`a > 0`
:math:`\log_b a` (``log(a, b)``)     :math:`a > 0`, :math:`b > 0`, :math:`b \ne 1`
:math:`\tan a`                      :math:`\cos a \ne 0`
``Piecewise``                       the conditions up to the first true one are defined, one
                                    of them is true, and that branch's value is defined
+, ×, Min, Max, Abs, floor,         total
ceiling, exp, sin, cos
=================================  ==========================================================

Statements: a relation is defined where both sides are; ``And``, ``Or``, ``Not``, ``Xor``
and ``Equivalent`` where every argument is (*strict*: sympy reorders their arguments, so no
left-to-right short circuit can be promised); ``Implies(A, B)`` where ``A`` is defined and,
where ``A`` holds, ``B`` is (*guarded*: an antecedent may restrict the consequent to where it
makes sense, as in ``Implies(x >= 0, sqrt(x) >= 0)``). A caller's ``hypotheses`` are the
antecedent of the whole statement.

What a verdict means under these rules (:func:`attnio.smt.kernel.prove_statement`):

* **Proved** — the statement is true at every point of the declared domains where it is
  defined. When it is undefined at some domain point, the verdict says so:
  ``Proved.where_defined`` holds the condition (e.g. ``n - d >= 0``), printed by
  ``attnio prove``.
* **Refuted** — a point of the declared domains where the statement is defined and false,
  re-evaluated exactly; a point where it is undefined never refutes.
* **Undecided "vacuous"** — the statement is defined nowhere in the declared domains, or an
  antecedent (of an ``Implies`` in a positive position, or the hypotheses) holds at no point
  where the statement is defined: a proof would show nothing.

A ``Piecewise`` does **not fall through** a condition that is undefined: in
``Piecewise((1, sqrt(x) > 1), (0, True))`` the point ``x = -1`` is undefined (the first
condition means nothing there), not 0 — sound (no verdict rests on a value the statement
does not have), and the same in the bridge and the referee.

Side conditions
---------------
Each has a planted violation in ``tests/smt/test_side_conditions.py`` (the trust tier):

* ``definedness.division`` — :math:`b^{k}`, :math:`k < 0`, needs :math:`b \ne 0`.
* ``definedness.roots`` — :math:`b^{p/q}` needs :math:`b \ge 0` (:math:`b > 0` for
  :math:`p < 0`), odd :math:`q` included.
* ``definedness.real-powers`` — :math:`b^{x}` with a symbolic or irrational exponent needs
  :math:`b > 0`.
* ``definedness.logarithms`` — ``log(a)`` needs :math:`a > 0`.
* ``definedness.log-base`` — ``log(a, b)`` needs :math:`b > 0` and :math:`b \ne 1` too.
* ``definedness.tan`` — ``tan(a)`` needs :math:`\cos a \ne 0`.
* ``definedness.piecewise-in-order`` — branches in order, no fall-through an undefined
  condition, no branch applying is undefined.
* ``definedness.strict-connectives`` — ``And`` / ``Or`` / ``Not`` / ``Xor`` / ``Equivalent``
  are undefined where any argument is.
* ``definedness.guarded-implies`` — ``Implies(A, B)`` needs ``B`` defined only where ``A``
  holds.
* ``definedness.positive-antecedents`` — an antecedent counts for vacuity only in a positive
  position (not under ``Not``, ``Xor``, ``Equivalent``).

Examples
--------
>>> import sympy as sp
>>> n, d = sp.symbols("n d", positive=True, integer=True)
>>> root = sp.sqrt(n - d)
>>> definedness(sp.Ge(sp.Mul(root, root, evaluate=False), 0, evaluate=False))
-d + n >= 0
>>> x = sp.Symbol("x", real=True)
>>> definedness(sp.Implies(sp.Ge(x, 0), sp.Ge(sp.sqrt(x), 0, evaluate=False)))
Implies(x >= 0, x >= 0)
>>> definedness(sp.Gt(sp.log(x) + 1 / (x - 1), 0, evaluate=False))
(x > 0) & Ne(x - 1, 0)
>>> [str(c) for c in antecedent_contexts(sp.Implies(x > 1, sp.Implies(x < 0, sp.Eq(x, 5))))]
['x > 1', '(x > 1) & (x < 0)']
"""

from __future__ import annotations

from typing import Iterable

import sympy as sp

from attnio.exceptions import TranslationError

__all__ = ["definedness", "term_definedness", "antecedent_contexts", "as_written",
           "TOTAL_FUNCTIONS"]

#: Functions defined wherever their arguments are.
TOTAL_FUNCTIONS = (sp.Add, sp.Mul, sp.Min, sp.Max, sp.Abs, sp.floor, sp.ceiling, sp.exp,
                   sp.sin, sp.cos)


def as_written(cls: type, *args: object) -> sp.Basic:
    """The connective ``cls`` (``And``, ``Or``, ``Not``, ``Implies``, ``Equivalent``, ``Xor``)
    of ``args`` exactly as written: sympy would fold ``Or(1/x > 0, 1/x <= 0)`` to True (hiding
    that it is undefined at 0) and decide ``Xor(x > 0, x <= 0)`` itself, before any solver.

    >>> x = sp.Symbol("x", real=True)
    >>> sp.Or(1 / x > 0, 1 / x <= 0), as_written(sp.Or, 1 / x > 0, 1 / x <= 0)
    (True, (1/x > 0) | (1/x <= 0))
    """
    parts = [sp.sympify(a) for a in args]
    out = sp.Basic.__new__(cls, *parts)
    if cls in (sp.Xor, sp.Equivalent):   # these read their arguments from a set
        out._argset = frozenset(parts)
    return out


def _conj(parts: Iterable[sp.Basic]) -> sp.Basic:
    """``And`` of the parts, without the ones that are literally true (never evaluated by
    sympy's assumptions: domains come from declarations, not from a symbol's flags)."""
    kept: list[sp.Basic] = []
    for p in parts:
        if p is sp.true:
            continue
        if p is sp.false:
            return sp.false
        for q in (p.args if isinstance(p, sp.And) else (p,)):
            if q not in kept:
                kept.append(q)
    if not kept:
        return sp.true
    return kept[0] if len(kept) == 1 else sp.And(*kept, evaluate=False)


def _guard(antecedent: sp.Basic, condition: sp.Basic) -> sp.Basic:
    """``Implies(antecedent, condition)``, or true when the condition is."""
    if condition is sp.true:
        return sp.true
    return sp.Implies(antecedent, condition, evaluate=False)


def _relation(rel: type, a: sp.Expr, b: sp.Expr) -> sp.Basic:
    """An unevaluated relation; a comparison of two numbers with a certain sign is folded."""
    if a.is_Number and b.is_Number:
        return sp.true if bool(rel(a, b)) else sp.false
    return rel(a, b, evaluate=False)


def term_definedness(e: sp.Basic) -> sp.Basic:
    """Where the arithmetic term ``e`` is defined (the table of the module docstring).

    Raises
    ------
    TranslationError
        A function whose domain these rules do not cover (the kernel answers Undecided).

    >>> x = sp.Symbol("x", real=True)
    >>> term_definedness(1 / x**2)
    Ne(x, 0)
    >>> term_definedness(sp.Pow(x, sp.Rational(1, 3)))   # no real odd root of a negative
    x >= 0
    >>> term_definedness(sp.Piecewise((1 / x, x > 0), (0, True)))
    Implies(x > 0, Ne(x, 0))
    """
    if isinstance(e, (sp.Symbol, sp.Number, sp.NumberSymbol)) or e in (sp.pi, sp.E):
        return sp.true
    if isinstance(e, sp.Pow):
        base, exponent = e.args
        parts = [term_definedness(base), term_definedness(exponent)]
        if exponent.is_Integer:
            if exponent < 0:
                parts.append(_relation(sp.Ne, base, sp.Integer(0)))
        elif exponent.is_Rational:
            parts.append(_relation(sp.Ge if exponent > 0 else sp.Gt, base, sp.Integer(0)))
        else:
            parts.append(_relation(sp.Gt, base, sp.Integer(0)))
        return _conj(parts)
    if isinstance(e, sp.log):
        arg, *base = e.args
        parts = [term_definedness(arg), _relation(sp.Gt, arg, sp.Integer(0))]
        for b in base:          # log(a, b) = log(a)/log(b): b > 0 and b != 1
            parts += [term_definedness(b), _relation(sp.Gt, b, sp.Integer(0)),
                      _relation(sp.Ne, b, sp.Integer(1))]
        return _conj(parts)
    if isinstance(e, sp.tan):
        (arg,) = e.args
        return _conj([term_definedness(arg), _relation(sp.Ne, sp.cos(arg), sp.Integer(0))])
    if isinstance(e, sp.Piecewise):
        return _piecewise(e)
    if isinstance(e, TOTAL_FUNCTIONS):
        return _conj(term_definedness(a) for a in e.args)
    raise TranslationError(f"no definedness rule for {type(e).__name__} in {e}")


def _piecewise(e: sp.Piecewise) -> sp.Basic:
    """Branches in order: ``D(c1) ∧ (c1 → D(e1)) ∧ (¬c1 → [rest])``; no branch: undefined."""
    rest: sp.Basic = sp.false
    for value, cond in reversed(e.args):
        if cond is sp.true:
            rest = term_definedness(value)
            continue
        rest = _conj([definedness(cond), _guard(cond, term_definedness(value)),
                      _guard(sp.Not(cond), rest) if rest is not sp.false else cond])
    return rest


def definedness(statement: sp.Basic) -> sp.Basic:
    """Where a statement (relation or boolean combination) is defined; ``sympy.true`` if
    everywhere. Strict for ``And``/``Or``/``Not``/``Xor``/``Equivalent``, guarded for
    ``Implies`` (see the module docstring).

    >>> x, y = sp.symbols("x y", real=True)
    >>> s = sp.Implies(sp.And(x < 0, y < 0), sp.Eq(sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y)))
    >>> definedness(s)
    Implies((x < 0) & (y < 0), (x >= 0) & (y >= 0) & (x*y >= 0))
    """
    if statement in (sp.true, sp.false) or isinstance(statement, bool):
        return sp.true
    if isinstance(statement, sp.Implies):
        a, b = statement.args
        return _conj([definedness(a), _guard(a, definedness(b))])
    if isinstance(statement, (sp.And, sp.Or, sp.Not, sp.Xor, sp.Equivalent)):
        return _conj(definedness(a) for a in statement.args)
    if isinstance(statement, sp.core.relational.Relational):
        return _conj([term_definedness(statement.lhs), term_definedness(statement.rhs)])
    raise TranslationError(f"no definedness rule for {type(statement).__name__} {statement}")


def antecedent_contexts(statement: sp.Basic, context: tuple[sp.Basic, ...] = ()
                        ) -> list[sp.Basic]:
    """The antecedents that must be satisfiable for a proof of ``statement`` to say anything.

    One entry per ``Implies`` in a *positive* position — the statement itself, an argument of
    ``And``/``Or``, the consequent of an ``Implies`` — as the conjunction of its antecedent
    with the antecedents enclosing it. (Under ``Not``, ``Xor`` or ``Equivalent`` an
    unsatisfiable antecedent makes the statement false or changes nothing, so it is not a
    vacuity.)
    """
    if isinstance(statement, sp.Implies):
        a, b = statement.args
        inner = (*context, a)
        return [_conj(inner), *antecedent_contexts(b, inner)]
    if isinstance(statement, (sp.And, sp.Or)):
        return [c for arg in statement.args for c in antecedent_contexts(arg, context)]
    return []
