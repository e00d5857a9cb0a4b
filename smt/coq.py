r"""A second, small kernel: attnio's statements printed as Coq theorems and checked by ``coqc``.

Every algebra verdict of attnio rests on sympy, the sympy → z3 bridge
(:mod:`attnio.smt.sympy_to_z3`) and two SMT solvers. This module is an independent route to
the same statements: it prints a statement, with its declared domains and the
partial-function semantics of :mod:`attnio.smt.definedness` (notes/claims.md), as a Coq
theorem over the reals (``Reals``; integer symbols are ``Z`` cast with ``IZR``), the proof
script of :mod:`attnio.smt.coq_proofs` after it, and asks ``coqc`` — a proof checker whose
kernel is small and independent of everything above — whether the proof is accepted. It
imports nothing from the z3 bridge: the translation is written anew, so that one defect of
the bridge cannot be agreed with twice.

Proof map
---------
* :func:`coq_statement` — a sympy statement (goal and hypotheses) with its declared domains →
  a :class:`CoqStatement`: ``forall`` binders (``R``, or ``Z`` for the integer domains), the
  domain facts, where each partial function is defined (:func:`definedness`, written here
  anew: :math:`\sqrt b` needs :math:`b \ge 0`, :math:`1/e` needs :math:`e \ne 0`, :math:`\log a`
  needs :math:`a > 0`, ``Piecewise`` needs a branch that applies, ``Implies(A, B)`` needs
  ``B`` defined only where ``A`` holds), the hypotheses and the goal.
* :func:`coq_chain` — a chain of :mod:`attnio.smt.chains` (premises, steps, conclusion) as
  one lemma per step, the *composition* (the conclusion from the steps alone, the premises
  not given) and the claim derived from them.
* :func:`render_statement` — the Coq text (``Theorem name : forall ..., H1 -> ... -> G.``).
* :func:`coq_document` — a self-contained ``.v`` file: :data:`PREAMBLE` (the standard library
  and the lemmas the proofs use, each proved in the file), the theorems with their proofs, and
  ``Print Assumptions`` for each.
* :func:`run_coqc` — ``coqc`` on one file in a private folder, killed at its time limit (a
  timeout is *not re-checked*, never a pass) and on Ctrl-C.
* :func:`accepted` — the rule of what counts: ``coqc`` exited 0, no ``Admitted`` / ``admit``
  / ``Axiom`` (or any other way to assume) in the file, and ``Print Assumptions`` of every
  theorem lists only the axioms of :data:`ALLOWED_AXIOMS` (the three on which the standard
  library's real numbers rest).

The semantics, term by term
---------------------------
=========================  ===============================  ==================================
sympy                      Coq                              defined where (a hypothesis)
=========================  ===============================  ==================================
symbol, real domains       ``x : R`` (``0 < x``, ``0 <= x``)
symbol, integer domains    ``n : Z`` used as ``IZR n``      (``(1 <= n)%Z``, ``(0 <= n)%Z``)
``a + b``, ``a * b``       ``a + b``, ``a * b``
``b**k``, integer k > 0    ``b ^ k``
``b**k``, integer k < 0    ``1 / b ^ (-k)``                 ``b <> 0``
``b**(p/2)``               ``sqrt b ^ p`` (``1 / ...``)     ``0 <= b`` (``0 < b`` if p < 0)
``b**(p/q)``, q > 2        ``Rpower b (p/q)``               only for a *positive* symbol b
``b**e``, e not constant   ``Rpower b e``                   ``0 < b``
``Min``, ``Max``, ``Abs``  ``Rmin``, ``Rmax``, ``Rabs``
``exp``, ``log``           ``exp``, ``ln``                  ``0 < a`` for ``ln a``
``sin``, ``cos``, ``tan``  ``sin``, ``cos``, ``tan``        ``cos a <> 0`` for ``tan a``
``floor``, ``ceiling``     ``IZR (Int_part a)``, its dual
``Piecewise``              one implication per branch       a branch applies
=========================  ===============================  ==================================

A relation whose two sides are polynomials with integer coefficients in integer symbols is
printed in ``Z`` (``(d <= n)%Z``); every other relation in ``R``. A relation holding a
``Piecewise`` is printed as the conjunction over its branches of ``c_1 ∧ … → rel(e_i)`` (the
earlier conditions negated): equivalent wherever the statement is defined, and every branch
is kept (a lost branch is a test failure: tests/proofs/test_coq.py).

Why a proof of the printed theorem is a proof of the statement: the theorem is
``∀ x ∈ domains, defined(S) → S`` with ``defined`` a hypothesis, so Coq's conventions outside
a partial function's domain (``sqrt`` of a negative is 0, ``/ 0`` is 0) never enter; where the
statement is defined, every Coq function above is the real function of the same name. Dropping a
definedness condition only makes the theorem stronger, so :func:`definedness` drops a
condition the declared domains imply (``M > 0`` for a positive ``M``), decided with fresh
symbols carrying the declared assumptions only, never the symbols' own flags.

Examples
--------
>>> import sympy as sp
>>> n, d, M = sp.symbols("n d M", positive=True, integer=True)
>>> st = coq_statement("t", sp.Ge(n**2*d**2/M, n**2*d/sp.sqrt(M), evaluate=False),
...                    [sp.Le(M, d**2, evaluate=False)])
>>> print(render_statement(st))
Theorem t :
  forall (M d n : Z),
  (1 <= M)%Z ->
  (1 <= d)%Z ->
  (1 <= n)%Z ->
  (M <= d * d)%Z ->
  IZR d ^ 2 * IZR n ^ 2 / IZR M >= IZR d * IZR n ^ 2 / sqrt (IZR M).
>>> x = sp.Symbol("x", real=True)
>>> print(render_prop(definedness(sp.Ge(sp.log(x) + 1 / (x - 1), 0, evaluate=False), {x: "real"})))
x - 1 <> 0 /\ 0 < x
"""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.smt.statements import declared_domains, symbol_for

__all__ = [
    "Term", "Prop", "CoqContext", "CoqStatement", "CoqRun", "coq_statement", "coq_chain", "coq_names",
    "definedness", "term", "prop", "render_term", "render_prop", "render_statement",
    "coq_document", "run_coqc", "accepted", "coqc_binary", "coqc_version", "axioms_of",
    "forbidden_words", "is_integer_polynomial", "z_term", "positive_in_domains", "PREAMBLE", "ALLOWED_AXIOMS", "FORBIDDEN", "INTEGER_DOMAINS",
    "POSITIVE_DOMAINS",
]

#: A Coq term as a small tree: ``("var", name)``, ``("zvar", name)`` (an integer variable,
#: only under ``IZR`` or in a ``Z`` relation), ``("izr", z)``, ``("num", Fraction)``,
#: ``("znum", int)``, ``("add", (a, b, ...))``, ``("sub", a, b)``, ``("mul", (a, b, ...))``,
#: ``("div", a, b)``, ``("neg", a)``, ``("pow", a, k)`` (k a natural number), ``("sqrt", a)``,
#: ``("fn", name, a)`` (exp, ln, sin, cos, tan, Rabs), ``("min", a, b)``, ``("max", a, b)``,
#: ``("rpower", a, b)``, ``("floor", a)``, ``("pi",)``, ``("atom", text)`` (printed as is).
Term = tuple
#: A Coq proposition as a tree: ``("rel", op, a, b, scope)`` with op one of ``= <> < <= > >=``
#: and scope ``"R"`` or ``"Z"``, ``("and", (p, ...))``, ``("or", (p, ...))``, ``("not", p)``,
#: ``("imp", p, q)``, ``("iff", p, q)``, ``("true",)``, ``("false",)``.
Prop = tuple

INTEGER_DOMAINS = ("integer", "positive-integer", "nonnegative-integer")
#: Domains whose every value is > 0 (a symbol declared in one of them).
POSITIVE_DOMAINS = ("positive", "positive-integer")
_NONNEGATIVE_DOMAINS = ("positive", "nonnegative", "positive-integer", "nonnegative-integer")

#: Names a variable may not take: Coq's keywords and every constant the printed terms and
#: the preamble use (a variable ``sqrt`` would shadow the square root). Such a variable is
#: renamed with a trailing ``_v``. Names attnio generates in proofs contain a ``'``, which no
#: sympy or ``attnio prove`` symbol can, so they never meet a variable.
_RESERVED = frozenset("""
    as at cofix else end exists exists2 fix for forall fun if IF in let match mod Prop return
    Set SProp Type then using where with Theorem Lemma Proof Qed Defined Admitted Axiom
    R Z nat IZR sqrt Rmin Rmax Rabs exp ln sin cos tan PI Rpower Int_part up pow Rdiv Rinv
    Rplus Rmult Ropp Rminus Rle Rlt Rge Rgt True False and or not iff
    """.split())
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

_REL_OPS = {sp.Eq: "=", sp.Ne: "<>", sp.Lt: "<", sp.Le: "<=", sp.Gt: ">", sp.Ge: ">="}
_SWAP = {">=": "<=", ">": "<"}
_FUNCTIONS = {sp.exp: "exp", sp.log: "ln", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan",
              sp.Abs: "Rabs"}
#: Largest power of an integer symbol expanded into a product in a ``Z`` relation.
_MAX_Z_POWER = 12


# ------------------------------------------------------------------------------ names
def coq_names(symbols: Iterable[sp.Symbol]) -> dict[sp.Symbol, str]:
    """A Coq identifier for each symbol: its own name when that is one and not reserved,
    else a sanitised one; distinct names stay distinct.

    >>> x, s, y = sp.symbols("x sqrt y_1")
    >>> coq_names([x, s, y])
    {sqrt: 'sqrt_v', x: 'x', y_1: 'y_1'}
    """
    out: dict[sp.Symbol, str] = {}
    used: set[str] = set()
    for sym in sorted(set(symbols), key=lambda s: s.name):
        name = sym.name if _IDENT.match(sym.name) else "v_" + re.sub(r"[^A-Za-z0-9_]", "_",
                                                                     sym.name)
        if name in _RESERVED:
            name += "_v"
        base, k = name, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        out[sym] = name
    return out


# ------------------------------------------------------------------------------ terms
@dataclass(frozen=True)
class CoqContext:
    """What a translation needs: each symbol's Coq name and declared domain, and an
    optional map of sub-terms to the Coq text they print as (``atoms``: the proof planner's
    view after its substitutions, :mod:`attnio.smt.coq_proofs`)."""

    names: Mapping[sp.Symbol, str]
    domains: Mapping[sp.Symbol, str]
    atoms: Mapping[sp.Basic, str] = field(default_factory=dict)

    def is_integer(self, sym: sp.Symbol) -> bool:
        return self.domains[sym] in INTEGER_DOMAINS


def _num(value: Any) -> Term:
    return ("num", Fraction(int(value.p), int(value.q)) if isinstance(value, sp.Rational)
            else Fraction(value))


def _outside(e: sp.Basic, why: str) -> TranslationError:
    return TranslationError(f"outside the Coq fragment: {why} in {_short(e)}")


def _short(e: object, width: int = 80) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def term(e: sp.Basic, ctx: CoqContext) -> Term:
    """The Coq term (scope ``R``) of a sympy expression.

    Raises
    ------
    TranslationError
        A construct outside the fragment of the module docstring (named), or a ``Piecewise``
        that is not under a relation (relations lift their ``Piecewise``).
    """
    if e in ctx.atoms:
        return ("atom", ctx.atoms[e])
    if isinstance(e, sp.Symbol):
        if e not in ctx.names:
            raise InvalidInputError(f"symbol {e} has no declared domain")
        if ctx.is_integer(e):
            return ("izr", ("zvar", ctx.names[e]))
        return ("var", ctx.names[e])
    if isinstance(e, sp.Rational):
        return _num(e)
    if e is sp.pi:
        return ("pi",)
    if e is sp.E:
        return ("fn", "exp", ("num", Fraction(1)))
    if isinstance(e, sp.Add):
        return _sum(e, ctx)
    if isinstance(e, sp.Mul):
        return _product(e, ctx)
    if isinstance(e, sp.Pow):
        return _power(e, ctx)
    if isinstance(e, (sp.Min, sp.Max)):
        kind = "min" if isinstance(e, sp.Min) else "max"
        args = [term(a, ctx) for a in sorted(e.args, key=sp.default_sort_key)]
        out = args[0]
        for a in args[1:]:
            out = (kind, out, a)
        return out
    if isinstance(e, sp.floor):
        return ("floor", term(e.args[0], ctx))
    if isinstance(e, sp.ceiling):
        return ("neg", ("floor", ("neg", term(e.args[0], ctx))))
    for cls, name in _FUNCTIONS.items():
        if isinstance(e, cls) and len(e.args) == 1:
            return ("fn", name, term(e.args[0], ctx))
    if isinstance(e, sp.Piecewise):
        raise _outside(e, "a Piecewise outside a relation")
    raise _outside(e, f"{type(e).__name__}")


def _sum(e: sp.Add, ctx: CoqContext) -> Term:
    """``a + b - c``: a term with a negative coefficient is subtracted."""
    args = sorted(e.as_ordered_terms(), key=lambda a: a.could_extract_minus_sign())
    out: Term | None = None
    for a in args:
        negative = a.could_extract_minus_sign()
        t = term(-a if negative else a, ctx)
        if out is None:
            out = ("neg", t) if negative else t
        elif negative:
            out = ("sub", out, t)
        else:
            out = ("add", (out, t))
    assert out is not None   # an Add has at least two arguments
    return _flatten_add(out)


def _flatten_add(t: Term) -> Term:
    if t[0] == "add":
        parts: list[Term] = []
        for p in t[1]:
            parts.extend(p[1] if p[0] == "add" else (p,))
        return ("add", tuple(parts))
    return t


def _product(e: sp.Mul, ctx: CoqContext) -> Term:
    """Numerator over denominator: factors with a negative exponent and the denominator of a
    rational coefficient go below the line."""
    coeff, factors = e.as_coeff_mul()
    num: list[Term] = []
    den: list[Term] = []
    negative = coeff < 0
    coeff = abs(coeff)
    if coeff != 1:
        if coeff.p != 1:
            num.append(("num", Fraction(int(coeff.p))))
        if coeff.q != 1:
            den.append(("num", Fraction(int(coeff.q))))
    for f in factors:
        if isinstance(f, sp.Pow) and f.exp.is_Rational and f.exp < 0 and f not in ctx.atoms:
            den.append(term(sp.Pow(f.base, -f.exp, evaluate=False) if f.exp != -1 else f.base,
                            ctx))
        else:
            num.append(term(f, ctx))
    top: Term = (num[0] if len(num) == 1 else ("mul", tuple(num))) if num else ("num", Fraction(1))
    out = top if not den else ("div", top, den[0] if len(den) == 1 else ("mul", tuple(den)))
    return ("neg", out) if negative else out


def _power(e: sp.Pow, ctx: CoqContext) -> Term:
    base, k = e.args
    if k.is_Integer:
        if k > 0:
            return ("pow", term(base, ctx), int(k))
        return ("div", ("num", Fraction(1)), _power(sp.Pow(base, -k, evaluate=False), ctx)
                if k != -1 else term(base, ctx))
    if k.is_Rational:
        p, q = int(k.p), int(k.q)
        if q == 2:
            r: Term = ("atom", ctx.atoms[sp.Pow(base, sp.Rational(1, 2))]) \
                if sp.Pow(base, sp.Rational(1, 2)) in ctx.atoms else ("sqrt", term(base, ctx))
            magnitude = abs(p)
            t = r if magnitude == 1 else ("pow", r, magnitude)
            return t if p > 0 else ("div", ("num", Fraction(1)), t)
        if isinstance(base, sp.Symbol) and ctx.domains.get(base) in POSITIVE_DOMAINS:
            return ("rpower", term(base, ctx), ("num", Fraction(p, q)))
        raise _outside(e, f"a root of index {q} of a base not declared positive (Coq's Rpower "
                          "is exp(y ln x), attnio's root only for x > 0)")
    if k.is_number:
        raise _outside(e, f"the exponent {k}")
    return ("rpower", term(base, ctx), term(k, ctx))


def is_integer_polynomial(e: sp.Basic, ctx: CoqContext) -> bool:
    """True for a polynomial with integer coefficients in integer symbols only (printed in
    ``Z`` by :func:`z_term`).

    >>> n = sp.Symbol("n", integer=True)
    >>> ctx = CoqContext({n: "n"}, {n: "integer"})
    >>> is_integer_polynomial(n**2 + 3*n, ctx), is_integer_polynomial(n / 2, ctx)
    (True, False)
    """
    if isinstance(e, sp.Symbol):
        return e in ctx.names and ctx.is_integer(e) and e not in ctx.atoms
    if isinstance(e, sp.Integer):
        return True
    if isinstance(e, (sp.Add, sp.Mul)):
        return all(is_integer_polynomial(a, ctx) for a in e.args)
    if isinstance(e, sp.Pow):
        return (e.exp.is_Integer and 0 < e.exp <= _MAX_Z_POWER
                and is_integer_polynomial(e.base, ctx))
    return False


def z_term(e: sp.Basic, ctx: CoqContext) -> Term:
    """The ``Z`` term of an integer polynomial (:func:`is_integer_polynomial`); powers are
    written as products, which ``lia`` / ``nia`` and the ``IZR`` rewrites read."""
    if isinstance(e, sp.Symbol):
        return ("zvar", ctx.names[e])
    if isinstance(e, sp.Integer):
        return ("znum", int(e))
    if isinstance(e, sp.Add):
        args = sorted(e.as_ordered_terms(), key=lambda a: a.could_extract_minus_sign())
        out: Term | None = None
        for a in args:
            negative = a.could_extract_minus_sign()
            t = z_term(-a if negative else a, ctx)
            out = (("neg", t) if negative else t) if out is None else (
                ("sub", out, t) if negative else ("add", (out, t)))
        assert out is not None
        return _flatten_add(out)
    if isinstance(e, sp.Mul):
        coeff, factors = e.as_coeff_mul()
        parts = [z_term(f, ctx) for f in factors]
        if abs(coeff) != 1:
            parts.insert(0, ("znum", int(abs(coeff))))
        out = parts[0] if len(parts) == 1 else ("mul", tuple(parts))
        return ("neg", out) if coeff < 0 else out
    if isinstance(e, sp.Pow):
        b = z_term(e.base, ctx)
        return b if int(e.exp) == 1 else ("mul", tuple(b for _ in range(int(e.exp))))
    raise _outside(e, f"{type(e).__name__} in an integer relation")   # not reached: checked


# ------------------------------------------------------------------------------ props
def _relation(op: str, lhs: sp.Expr, rhs: sp.Expr, ctx: CoqContext) -> Prop:
    """One relation; in ``Z`` when both sides are integer polynomials over integer symbols
    (and there is a symbol), ``>=`` / ``>`` written as ``<=`` / ``<`` with the sides swapped."""
    if (is_integer_polynomial(lhs, ctx) and is_integer_polynomial(rhs, ctx)
            and (lhs.free_symbols or rhs.free_symbols)):
        if op in _SWAP:
            op, lhs, rhs = _SWAP[op], rhs, lhs
        return ("rel", op, z_term(lhs, ctx), z_term(rhs, ctx), "Z")
    return ("rel", op, term(lhs, ctx), term(rhs, ctx), "R")


def _first_piecewise(e: sp.Basic) -> sp.Piecewise | None:
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Piecewise):
            return node
    return None


def prop(p: sp.Basic, ctx: CoqContext) -> Prop:
    """The Coq proposition of a sympy relation or boolean combination; a relation holding a
    ``Piecewise`` becomes one implication per branch (see the module docstring).

    Raises
    ------
    TranslationError
        A construct outside the fragment.
    """
    if p is sp.true or p is True:
        return ("true",)
    if p is sp.false or p is False:
        return ("false",)
    if isinstance(p, sp.Implies):
        a, b = p.args
        return ("imp", prop(a, ctx), prop(b, ctx))
    if isinstance(p, sp.And):
        return _junction("and", [prop(a, ctx) for a in _ordered(p)])
    if isinstance(p, sp.Or):
        return _junction("or", [prop(a, ctx) for a in _ordered(p)])
    if isinstance(p, sp.Not):
        return ("not", prop(p.args[0], ctx))
    if isinstance(p, sp.Equivalent):
        args = [prop(a, ctx) for a in _ordered(p)]
        return _junction("and", [("iff", args[i], args[i + 1]) for i in range(len(args) - 1)])
    if isinstance(p, sp.Xor):
        out = prop(_ordered(p)[0], ctx)
        for a in _ordered(p)[1:]:
            q = prop(a, ctx)
            out = ("or", (("and", (out, ("not", q))), ("and", (("not", out), q))))
        return out
    if isinstance(p, sp.core.relational.Relational) and type(p) in _REL_OPS:
        piece = _first_piecewise(p)
        if piece is None:
            return _relation(_REL_OPS[type(p)], p.lhs, p.rhs, ctx)
        return _lift(p, piece, ctx)
    raise _outside(p, f"{type(p).__name__} is not a relation or a connective")


def _ordered(p: sp.Basic) -> list[sp.Basic]:
    """The arguments of a connective in a fixed order (sympy stores And/Or as sets)."""
    return sorted(p.args, key=sp.default_sort_key)


def _junction(kind: str, parts: list[Prop]) -> Prop:
    return parts[0] if len(parts) == 1 else (kind, tuple(parts))


def _lift(rel: sp.Basic, piece: sp.Piecewise, ctx: CoqContext) -> Prop:
    r"""``rel[piece]`` as :math:`\bigwedge_i (\neg c_1 \wedge \dots \wedge c_i \to
    rel[e_i])`, the branches in order, stopping at a ``True`` condition."""
    conjuncts: list[Prop] = []
    earlier: list[Prop] = []
    for value, cond in piece.args:
        side = {piece: value}
        body = _relation_or_lift(type(rel), rel.lhs.xreplace(side), rel.rhs.xreplace(side), ctx)
        if cond is sp.true:
            conjuncts.append(("imp", _junction("and", earlier), body) if earlier else body)
            break
        c = prop(cond, ctx)
        conjuncts.append(("imp", _junction("and", [*earlier, c]), body))
        earlier.append(("not", c))
    return _junction("and", conjuncts)


def _relation_or_lift(cls: type, lhs: sp.Expr, rhs: sp.Expr, ctx: CoqContext) -> Prop:
    inner = _first_piecewise(lhs) or _first_piecewise(rhs)
    if inner is None:
        return _relation(_REL_OPS[cls], lhs, rhs, ctx)
    return _lift(cls(lhs, rhs, evaluate=False), inner, ctx)


# ------------------------------------------------------------------------------ definedness
def positive_in_domains(e: sp.Expr, domains: Mapping[sp.Symbol, str], strict: bool = True
                        ) -> bool:
    """True when the declared domains alone make ``e`` positive (``strict``) or nonnegative:
    each symbol replaced by a fresh one carrying exactly its declared domain's assumptions."""
    fresh = {sym: symbol_for(f"_coq_{i}", dom)
             for i, (sym, dom) in enumerate(sorted(domains.items(), key=lambda kv: kv[0].name))
             if sym in e.free_symbols}
    try:
        value = e.xreplace(fresh)
    except Exception:   # a display of sympy's; the condition is simply kept
        return False
    return bool(value.is_positive if strict else value.is_nonnegative)


def _condition(op: str, e: sp.Expr, ctx: CoqContext) -> list[Prop]:
    """``e op 0`` unless the declared domains imply it (then nothing: a dropped condition
    only makes the theorem stronger)."""
    if op in (">", "<>") and positive_in_domains(e, ctx.domains, strict=True):
        return []
    if op == ">=" and positive_in_domains(e, ctx.domains, strict=False):
        return []
    if op == ">":
        return [("rel", "<", ("num", Fraction(0)), term(e, ctx), "R")]
    if op == ">=":
        return [("rel", "<=", ("num", Fraction(0)), term(e, ctx), "R")]
    return [("rel", op, term(e, ctx), ("num", Fraction(0)), "R")]


def _term_defined(e: sp.Basic, ctx: CoqContext) -> list[Prop]:
    if isinstance(e, (sp.Symbol, sp.Number, sp.NumberSymbol)) or e in (sp.pi, sp.E):
        return []
    if isinstance(e, sp.Pow):
        base, k = e.args
        out = _term_defined(base, ctx) + _term_defined(k, ctx)
        if k.is_Integer:
            return out + (_condition("<>", base, ctx) if k < 0 else [])
        if k.is_Rational:
            return out + _condition(">=" if k > 0 else ">", base, ctx)
        return out + _condition(">", base, ctx)
    if isinstance(e, sp.log):
        return _term_defined(e.args[0], ctx) + _condition(">", e.args[0], ctx)
    if isinstance(e, sp.tan):
        a = e.args[0]
        return _term_defined(a, ctx) + [("rel", "<>", ("fn", "cos", term(a, ctx)),
                                         ("num", Fraction(0)), "R")]
    if isinstance(e, sp.Piecewise):
        return _piecewise_defined(e, ctx)
    if isinstance(e, (sp.Add, sp.Mul, sp.Min, sp.Max, sp.Abs, sp.floor, sp.ceiling, sp.exp,
                      sp.sin, sp.cos)):
        return [c for a in e.args for c in _term_defined(a, ctx)]
    raise _outside(e, f"no definedness rule for {type(e).__name__}")


def _piecewise_defined(e: sp.Piecewise, ctx: CoqContext) -> list[Prop]:
    """Branches in order: ``D(c1) ∧ (c1 → D(e1)) ∧ (¬c1 → rest)``; no branch applies:
    undefined (the conditions' disjunction is required)."""
    rest: Prop = ("false",)
    for value, cond in reversed(e.args):
        if cond is sp.true:
            rest = _conj(_term_defined(value, ctx))
            continue
        c = prop(cond, ctx)
        parts = _defined_list(cond, ctx)
        body = _term_defined(value, ctx)
        if body:
            parts.append(("imp", c, _conj(body)))
        parts.append(c if rest == ("false",) else ("imp", ("not", c), rest))
        rest = _conj(parts)
    return [] if rest == ("true",) else [rest]


def _conj(parts: Sequence[Prop]) -> Prop:
    kept: list[Prop] = []
    for p in parts:
        for q in (p[1] if p[0] == "and" else (p,)):
            if q != ("true",) and q not in kept:
                kept.append(q)
    return ("true",) if not kept else kept[0] if len(kept) == 1 else ("and", tuple(kept))


def _defined_list(p: sp.Basic, ctx: CoqContext) -> list[Prop]:
    if p in (sp.true, sp.false) or isinstance(p, bool):
        return []
    if isinstance(p, sp.Implies):
        a, b = p.args
        inner = _defined_list(b, ctx)
        return _defined_list(a, ctx) + ([("imp", prop(a, ctx), _conj(inner))] if inner else [])
    if isinstance(p, (sp.And, sp.Or, sp.Not, sp.Xor, sp.Equivalent)):
        return [c for a in _ordered(p) for c in _defined_list(a, ctx)]
    if isinstance(p, sp.core.relational.Relational):
        return _term_defined(p.lhs, ctx) + _term_defined(p.rhs, ctx)
    raise _outside(p, f"no definedness rule for {type(p).__name__}")


def definedness(p: sp.Basic, domains: Mapping[sp.Symbol, str],
                names: Mapping[sp.Symbol, str] | None = None) -> Prop:
    """Where the statement ``p`` is defined, as a Coq proposition (``("true",)`` if
    everywhere in the declared domains): the rules of the module docstring, strict for
    ``And`` / ``Or`` / ``Not`` / ``Xor`` / ``Equivalent``, guarded for ``Implies``.

    >>> x = sp.Symbol("x", real=True)
    >>> print(render_prop(definedness(sp.Implies(sp.Ge(x, 0), sp.Ge(sp.sqrt(x), 1)),
    ...                               {x: "real"})))
    x >= 0 -> 0 <= x
    >>> definedness(sp.Ge(sp.sqrt(x), 0), {x: "positive"})
    ('true',)
    """
    ctx = CoqContext(names or coq_names(domains), domains)
    return _conj(_defined_list(p, ctx))


# ------------------------------------------------------------------------------ statements
@dataclass(frozen=True)
class CoqStatement:
    """What one Coq theorem states, before rendering.

    ``hypotheses`` are ``(role, prop)`` with role ``"domain"``, ``"defined"``,
    ``"hypothesis"`` (a caller's hypothesis) or ``"antecedent"`` (the ``A`` of a top-level
    ``Implies(A, B)``, written as a hypothesis). ``sources`` keeps, for each hypothesis, what
    it was printed from (the symbol of a domain fact, the sympy hypothesis; None for a
    definedness condition) and ``goal`` the sympy goal after its top-level antecedents, with
    the domains and the names: the proof planner (:mod:`attnio.smt.coq_proofs`) works on them.
    """

    name: str
    binders: tuple[tuple[str, str], ...]
    hypotheses: tuple[tuple[str, Prop], ...]
    conclusion: Prop
    sources: tuple[sp.Basic | None, ...] = ()
    goal: sp.Basic = sp.true
    domains: Mapping[sp.Symbol, str] = field(default_factory=dict)
    names: Mapping[sp.Symbol, str] = field(default_factory=dict)

    @property
    def integer_names(self) -> tuple[str, ...]:
        return tuple(name for name, kind in self.binders if kind == "Z")


def _domain_fact(name: str, domain: str) -> list[Prop]:
    if domain == "positive":
        return [("rel", "<", ("num", Fraction(0)), ("var", name), "R")]
    if domain == "nonnegative":
        return [("rel", "<=", ("num", Fraction(0)), ("var", name), "R")]
    if domain == "positive-integer":
        return [("rel", "<=", ("znum", 1), ("zvar", name), "Z")]
    if domain == "nonnegative-integer":
        return [("rel", "<=", ("znum", 0), ("zvar", name), "Z")]
    return []


def _identifier(name: str) -> str:
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return out if out[:1].isalpha() else "t_" + out


def coq_statement(name: str, goal: sp.Basic, hypotheses: Sequence[sp.Basic] = (),
                  domains: Mapping[Any, str] | None = None, *,
                  defined: bool = True, bind_all: bool = False) -> CoqStatement:
    """The Coq theorem of ``hypotheses ⇒ goal`` for every value of the declared domains,
    where the statement is defined.

    Parameters
    ----------
    name : str
        The theorem's name (made a Coq identifier).
    goal, hypotheses
        sympy relations or boolean combinations.
    domains : mapping, optional
        ``{symbol or name: domain}``; a symbol not in it must declare its domain in its
        assumptions (:func:`attnio.smt.statements.declared_domains`), never by its name.
    defined : bool
        Write where each hypothesis and the goal are defined as hypotheses (default); a
        chain (:func:`coq_chain`) states the definedness of the whole chain once instead.
    bind_all : bool
        Bind every symbol of ``domains``, not only those of the statement (the lemmas of a
        chain share one list of variables).

    Raises
    ------
    InvalidInputError
        A symbol without a declared domain.
    TranslationError
        A construct outside the fragment (the message names it).

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> print(render_statement(coq_statement("amgm", sp.Ge(x + 1 / x, 2, evaluate=False))))
    Theorem amgm :
      forall (x : R),
      0 < x ->
      x + 1 / x >= 2.
    """
    everything = [goal, *hypotheses]
    doms = _resolve_domains(everything, domains)
    if bind_all and domains:
        doms.update({s: d for s, d in domains.items() if isinstance(s, sp.Symbol)})
    names = coq_names(doms)
    ctx = CoqContext(names, doms)
    hyps: list[tuple[str, Prop]] = []
    sources: list[sp.Basic | None] = []
    for sym in sorted(doms, key=lambda s: names[s]):
        for f in _domain_fact(names[sym], doms[sym]):
            hyps.append(("domain", f))
            sources.append(sym)

    def add(role: str, p: sp.Basic) -> None:
        d = _conj(_defined_list(p, ctx)) if defined else ("true",)
        if d != ("true",):
            hyps.append(("defined", d))
            sources.append(None)
        hyps.append((role, prop(p, ctx)))
        sources.append(p)

    for h in hypotheses:
        add("hypothesis", h)
    g = goal
    while isinstance(g, sp.Implies):
        a, g = g.args
        add("antecedent", a)
    d = _conj(_defined_list(g, ctx)) if defined else ("true",)
    if d != ("true",):
        hyps.append(("defined", d))
        sources.append(None)
    binders = tuple((names[s], "Z" if doms[s] in INTEGER_DOMAINS else "R")
                    for s in sorted(doms, key=lambda s: names[s]))
    return CoqStatement(_identifier(name), binders, tuple(hyps), prop(g, ctx), tuple(sources),
                        g, dict(doms), names)


def _resolve_domains(expressions: Sequence[sp.Basic], domains: Mapping[Any, str] | None
                     ) -> dict[sp.Symbol, str]:
    given = {str(k): v for k, v in (domains or {}).items()}
    free: set[sp.Symbol] = set()
    for e in expressions:
        free |= e.free_symbols
    declared = declared_domains([sp.Tuple(*[s for s in free if str(s) not in given])]) \
        if any(str(s) not in given for s in free) else {}
    return {s: given.get(str(s)) or declared[s] for s in free}


def coq_chain(name: str, premises: Sequence[sp.Basic],
              steps: Sequence[tuple[str, sp.Basic, Sequence[sp.Basic]]],
              conclusion: sp.Basic) -> list[CoqStatement]:
    r"""A chain (:mod:`attnio.smt.chains`) as Coq statements: one lemma per step
    (``H_i ⇒ C_i``, the domains and the chain's definedness as hypotheses), the
    *composition* — :math:`F_1 \wedge \dots \wedge F_k \Rightarrow G` with
    :math:`F_i = (H_i \setminus P) \Rightarrow C_i`, no premise, no domain fact, as the chain
    checker's stage 3 — and the claim ``P ⇒ G`` last (its proof cites the lemmas).

    A chain whose composition needs a link that a step no longer gives (a step deleted or
    weakened: a false twin) has a composition Coq cannot prove.
    """
    everything = [*premises, conclusion, *(c for _, c, _ in steps),
                  *(h for _, _, hs in steps for h in hs)]
    doms = _resolve_domains(everything, None)
    defined = sp.And(*everything, evaluate=False) if len(everything) > 1 else everything[0]
    out: list[CoqStatement] = []
    base = _identifier(name)
    for i, (_, c, hs) in enumerate(steps):
        st = coq_statement(f"{base}_step{i + 1}", c, [*hs], doms, defined=False, bind_all=True)
        out.append(_with_defined(st, defined, doms))
    facts = []
    for _, c, hs in steps:
        fact = c
        for h in reversed([h for h in hs if not any(h == p for p in premises)]):
            fact = sp.Implies(h, fact, evaluate=False)
        facts.append(fact)
    comp = coq_statement(f"{base}_composition", conclusion, facts, doms, defined=False,
                         bind_all=True)
    # the composition is stated without domain facts and without definedness: the links
    # are all it has (a step deleted must make it unprovable)
    keep = [i for i, (r, _) in enumerate(comp.hypotheses) if r not in ("domain", "defined")]
    comp = dataclasses.replace(comp, hypotheses=tuple(comp.hypotheses[i] for i in keep),
                               sources=tuple(comp.sources[i] for i in keep))
    out.append(comp)
    claim = coq_statement(base, conclusion, list(premises), doms, defined=False,
                          bind_all=True)
    out.append(_with_defined(claim, defined, doms))
    return out


def _with_defined(st: CoqStatement, everything: sp.Basic, doms: Mapping[sp.Symbol, str]
                  ) -> CoqStatement:
    """``st`` with the definedness of the whole chain as its first non-domain hypothesis
    (a chain is claimed where all its terms are defined, as the chain checker's premises)."""
    d = definedness(everything, doms, st.names)
    if d == ("true",):
        return st
    hyps, sources = list(st.hypotheses), list(st.sources)
    at = sum(1 for r, _ in hyps if r == "domain")
    hyps.insert(at, ("defined", d))
    sources.insert(at, None)
    return dataclasses.replace(st, hypotheses=tuple(hyps), sources=tuple(sources))


# ------------------------------------------------------------------------------ rendering
_LEVEL = {"add": 50, "sub": 50, "mul": 40, "div": 40, "neg": 35, "pow": 30}


def _fraction(value: Fraction, scope: str) -> str:
    if value.denominator == 1:
        return str(value.numerator) if value >= 0 else f"({value.numerator})"
    return f"({value.numerator} / {value.denominator})"


def _wrap(t: Term, max_level: int, scope: str) -> str:
    text = render_term(t, scope)
    level = _LEVEL.get(t[0], 0)
    if t[0] in ("num", "znum") and (t[1] < 0):
        return text
    return f"({text})" if level > max_level else text


def _arg(t: Term, scope: str) -> str:
    """An argument of a function application: parenthesised unless a variable or number."""
    text = render_term(t, scope)
    simple = t[0] in ("var", "zvar", "atom", "pi") or (t[0] in ("num", "znum") and
                                                       not text.startswith("("))
    return text if simple and " " not in text else f"({text})"


def render_term(t: Term, scope: str = "R") -> str:
    """The Coq text of a term (``scope`` ``"R"`` or ``"Z"``: how numbers read).

    >>> render_term(("div", ("num", Fraction(1)), ("pow", ("var", "x"), 2)))
    '1 / x ^ 2'
    >>> render_term(("sub", ("var", "a"), ("add", (("var", "b"), ("var", "c")))))
    'a - (b + c)'
    """
    kind = t[0]
    if kind in ("var", "zvar", "atom"):
        return t[1]
    if kind == "num":
        return _fraction(t[1], scope)
    if kind == "znum":
        return str(t[1]) if t[1] >= 0 else f"({t[1]})"
    if kind == "pi":
        return "PI"
    if kind == "izr":
        return f"IZR {_arg(t[1], 'Z')}"
    if kind == "add":
        parts = [_wrap(t[1][0], 50, scope)] + [_wrap(a, 49, scope) for a in t[1][1:]]
        return " + ".join(parts)
    if kind == "sub":
        return f"{_wrap(t[1], 50, scope)} - {_wrap(t[2], 49, scope)}"
    if kind == "mul":
        parts = [_wrap(t[1][0], 40, scope)] + [_wrap(a, 39, scope) for a in t[1][1:]]
        return " * ".join(parts)
    if kind == "div":
        return f"{_wrap(t[1], 40, scope)} / {_wrap(t[2], 39, scope)}"
    if kind == "neg":
        return f"- {_wrap(t[1], 34, scope)}"
    if kind == "pow":
        return f"{_wrap(t[1], 29, scope)} ^ {t[2]}"
    if kind == "sqrt":
        return f"sqrt {_arg(t[1], scope)}"
    if kind == "fn":
        return f"{t[1]} {_arg(t[2], scope)}"
    if kind in ("min", "max"):
        name = "Rmin" if kind == "min" else "Rmax"
        return f"{name} {_arg(t[1], scope)} {_arg(t[2], scope)}"
    if kind == "rpower":
        return f"Rpower {_arg(t[1], scope)} {_arg(t[2], scope)}"
    if kind == "floor":
        return f"IZR (Int_part {_arg(t[1], scope)})"
    raise ValueError(f"unknown term {t!r}")


_PROP_LEVEL = {"iff": 95, "imp": 99, "or": 85, "and": 80, "not": 75}


def _pwrap(p: Prop, max_level: int) -> str:
    text = render_prop(p)
    return f"({text})" if _PROP_LEVEL.get(p[0], 0) > max_level else text


def render_prop(p: Prop) -> str:
    """The Coq text of a proposition.

    >>> a = ("rel", "<=", ("var", "x"), ("num", Fraction(1)), "R")
    >>> render_prop(("imp", ("and", (a, ("not", a))), ("false",)))
    'x <= 1 /\\\\ ~ x <= 1 -> False'
    """
    kind = p[0]
    if kind == "true":
        return "True"
    if kind == "false":
        return "False"
    if kind == "rel":
        _, op, a, b, scope = p
        text = f"{render_term(a, scope)} {op} {render_term(b, scope)}"
        return f"({text})%Z" if scope == "Z" else text
    if kind == "and":
        return " /\\ ".join(_pwrap(q, 79) for q in p[1])
    if kind == "or":
        return " \\/ ".join(_pwrap(q, 84) for q in p[1])
    if kind == "not":
        return f"~ {_pwrap(p[1], 75)}"
    if kind == "imp":
        return f"{_pwrap(p[1], 98)} -> {_pwrap(p[2], 99)}"
    if kind == "iff":
        return f"{_pwrap(p[1], 94)} <-> {_pwrap(p[2], 94)}"
    raise ValueError(f"unknown proposition {p!r}")


def render_statement(st: CoqStatement, keyword: str = "Theorem") -> str:
    """``Theorem name : forall (...), H1 -> ... -> G.`` (one hypothesis per line)."""
    lines = [f"{keyword} {st.name} :"]
    groups: list[tuple[str, list[str]]] = []
    for name, kind in st.binders:
        if groups and groups[-1][0] == kind:
            groups[-1][1].append(name)
        else:
            groups.append((kind, [name]))
    if groups:
        lines.append("  forall " + " ".join(f"({' '.join(ns)} : {k})" for k, ns in groups) + ",")
    for _, h in st.hypotheses:
        lines.append(f"  {_pwrap(h, 98)} ->")
    lines.append(f"  {render_prop(st.conclusion)}.")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ files
#: What every generated file starts with: the standard library (real numbers, linear and
#: nonlinear arithmetic deciders) and the lemmas the proofs cite, each proved here — in
#: particular the √M = s substitution (``attnio_sqrt``) and the rules that cancel a positive
#: factor (``attnio_le_by`` … ``attnio_ne_from``). Nothing is assumed.
PREAMBLE = r"""Require Import Reals Lra Psatz ZArith.
Open Scope R_scope.

(* The square root as a variable: s = sqrt x with s >= 0 and s ^ 2 = x, for x >= 0. *)
Lemma attnio_sqrt : forall x, 0 <= x -> 0 <= sqrt x /\ sqrt x ^ 2 = x.
Proof. intros x Hx. split. apply sqrt_pos. simpl. rewrite Rmult_1_r. apply sqrt_sqrt. exact Hx. Qed.

(* A hypothesis b - a = p * r with p > 0 says what r's sign is; a goal follows from r's. *)
Lemma attnio_le_by : forall a b p r, 0 < p -> b - a = p * r -> a <= b -> 0 <= r.
Proof. intros a b p r Hp He H. destruct (Rle_lt_dec 0 r) as [Hr|Hr]; [exact Hr|]. nra. Qed.
Lemma attnio_lt_by : forall a b p r, 0 < p -> b - a = p * r -> a < b -> 0 < r.
Proof. intros a b p r Hp He H. destruct (Rlt_le_dec 0 r) as [Hr|Hr]; [exact Hr|]. nra. Qed.
Lemma attnio_ge_by : forall a b p r, 0 < p -> a - b = p * r -> a >= b -> 0 <= r.
Proof. intros a b p r Hp He H. apply (attnio_le_by b a p r); lra. Qed.
Lemma attnio_gt_by : forall a b p r, 0 < p -> a - b = p * r -> a > b -> 0 < r.
Proof. intros a b p r Hp He H. apply (attnio_lt_by b a p r); lra. Qed.
Lemma attnio_eq_by : forall a b p r, 0 < p -> b - a = p * r -> a = b -> r = 0.
Proof. intros a b p r Hp He H. assert (p * r = 0) by lra.
  destruct (Rmult_integral p r H0) as [Hz|Hz]; lra. Qed.
Lemma attnio_le_from : forall a b p r, 0 < p -> b - a = p * r -> 0 <= r -> a <= b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_lt_from : forall a b p r, 0 < p -> b - a = p * r -> 0 < r -> a < b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_ge_from : forall a b p r, 0 < p -> a - b = p * r -> 0 <= r -> a >= b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_gt_from : forall a b p r, 0 < p -> a - b = p * r -> 0 < r -> a > b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_eq_from : forall a b p r, b - a = p * r -> r = 0 -> a = b.
Proof. intros a b p r He Hr. rewrite Hr in He. lra. Qed.
Lemma attnio_eq0_mul : forall e m, e = 0 -> e * m = 0.
Proof. intros e m H. rewrite H. ring. Qed.
Lemma attnio_ne_from : forall a b p r, 0 < p -> b - a = p * r -> r <> 0 -> a <> b.
Proof. intros a b p r Hp He Hr Hab. apply Hr. rewrite Hab in He.
  replace (b - b) with 0 in He by ring.
  destruct (Rmult_integral p r (eq_sym He)) as [Hz|Hz]; lra. Qed.

(* A positive product: split it into its factors, each decided by lra or nra. *)
Ltac attnio_pos :=
  repeat (first [ apply Rmult_lt_0_compat | apply Rdiv_lt_0_compat | apply Rinv_0_lt_compat
                | apply pow_lt ]);
  first [ lra | nra ].
(* The side conditions of field: each factor of a denominator is not 0. *)
Ltac attnio_nz :=
  match goal with
  | |- _ /\ _ => split; attnio_nz
  | |- _ * _ <> 0 => apply Rmult_integral_contrapositive_currified; attnio_nz
  | |- _ ^ _ <> 0 => apply pow_nonzero; attnio_nz
  | |- _ => first [ lra | nra ]
  end.
Ltac attnio_field := field; try attnio_nz.
(* What is left after the plan: linear or nonlinear real arithmetic. *)
Ltac attnio_close := first [ lra | nra ].
(* IZR of a sum, product, difference, opposite: the same of the IZRs. *)
Ltac attnio_izr_in H :=
  repeat first [ rewrite plus_IZR in H | rewrite mult_IZR in H | rewrite minus_IZR in H
               | rewrite opp_IZR in H ].
Ltac attnio_izr_goal :=
  repeat first [ rewrite plus_IZR | rewrite mult_IZR | rewrite minus_IZR | rewrite opp_IZR ].
(* An integer relation as a real one, written with IZR of each variable. *)
Ltac attnio_izr H :=
  let T := fresh "T" in
  first [ pose proof (IZR_le _ _ H) as T | pose proof (IZR_lt _ _ H) as T
        | pose proof (f_equal IZR H) as T | pose proof (IZR_neq _ _ H) as T ];
  attnio_izr_in T;
  first [ lra | nra ].
(* The generic route: integers to reals, square roots to variables, Rmin / Rmax / Rabs split
   into cases, then lra or nra. *)
Ltac attnio_lift_Z :=
  repeat match goal with
  | H : (?a < ?b)%Z |- _ => assert ((a + 1 <= b)%Z) by lia; clear H
  | H : (?a <= ?b)%Z |- _ => generalize (IZR_le _ _ H); clear H
  | H : (?a = ?b)%Z |- _ => generalize (f_equal IZR H); clear H
  | H : (?a <> ?b)%Z |- _ => generalize (IZR_neq _ _ H); clear H
  end; intros;
  repeat first [ rewrite plus_IZR in * | rewrite mult_IZR in * | rewrite minus_IZR in *
               | rewrite opp_IZR in * ].
Ltac attnio_realify :=
  repeat match goal with
  | |- context [IZR ?x] => is_var x; let r := fresh "r" in set (r := IZR x) in *; clearbody r
  | H : context [IZR ?x] |- _ => is_var x; let r := fresh "r" in
                                  set (r := IZR x) in *; clearbody r
  end.
Ltac attnio_sqrt_subst :=
  repeat match goal with
  | |- context [sqrt ?t] =>
      let s := fresh "s" in let H0 := fresh "Hs" in let H1 := fresh "Hs" in
      let Ht := fresh "Ht" in
      assert (Ht : 0 <= t) by (first [assumption | lra | nra]);
      destruct (attnio_sqrt t Ht) as [H0 H1]; clear Ht;
      set (s := sqrt t) in *; clearbody s
  | H : context [sqrt ?t] |- _ =>
      let s := fresh "s" in let H0 := fresh "Hs" in let H1 := fresh "Hs" in
      let Ht := fresh "Ht" in
      assert (Ht : 0 <= t) by (first [assumption | lra | nra]);
      destruct (attnio_sqrt t Ht) as [H0 H1]; clear Ht;
      set (s := sqrt t) in *; clearbody s
  end;
  repeat match goal with H : ?s ^ 2 = ?m |- _ => is_var m; subst m end.
Ltac attnio_cases :=
  unfold Rmin, Rmax, Rabs in *;
  repeat match goal with
  | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
  | H : context [Rle_dec ?a ?b] |- _ => destruct (Rle_dec a b)
  | |- context [Rcase_abs ?a] => destruct (Rcase_abs a)
  | H : context [Rcase_abs ?a] |- _ => destruct (Rcase_abs a)
  end.
"""

#: The axioms a re-checked theorem may rest on: the three on which Coq's standard library
#: builds its real numbers (``Reals``: classical Dedekind cuts and function extensionality).
#: ``Print Assumptions`` of any theorem about ``R`` lists them; anything else (an ``Axiom``,
#: an ``Admitted`` lemma) and the theorem does not count.
ALLOWED_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_not_dec",
    "ClassicalDedekindReals.sig_forall_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
})

#: Words that would let a file assume what it should prove (or switch a check off): a file
#: containing one, outside comments, is never accepted.
FORBIDDEN = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis",
             "Hypotheses", "Variable", "Variables", "Conjecture", "Context", "Declare",
             "Unset", "Set", "Load", "Extract", "Abort", "Fail", "give_up", "Local", "Cd",
             "Add", "Require", "Import", "Export")


def _without_comments(text: str) -> str:
    """``text`` with its (nested) ``(* ... *)`` comments removed."""
    out: list[str] = []
    depth = i = 0
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i) and depth:
            depth -= 1
            i += 2
        else:
            if not depth:
                out.append(text[i])
            i += 1
    return "".join(out)


def forbidden_words(text: str) -> list[str]:
    """The words of :data:`FORBIDDEN` in ``text`` outside comments and outside the preamble
    (which needs ``Require Import`` and ``Open Scope``, and holds no other).

    >>> forbidden_words(PREAMBLE + "Lemma x : 1 = 1. Proof. admit. Admitted.")
    ['Admitted', 'admit']
    >>> forbidden_words(PREAMBLE + "(* Admitted *) Lemma x : 1 = 1. Proof. reflexivity. Qed.")
    []
    """
    at = text.find(PREAMBLE)
    body = text
    if at >= 0 and not _without_comments(text[:at]).strip():
        body = text[at + len(PREAMBLE):]   # the preamble, after comments only
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", _without_comments(body)))
    return sorted(w for w in FORBIDDEN if w in words)


def coq_document(statements: Sequence[CoqStatement], proofs: Sequence[str], *,
                 title: str = "", keyword: str = "Theorem") -> str:
    """A self-contained ``.v`` file: :data:`PREAMBLE`, each statement with its proof, and
    ``Print Assumptions`` of each (read back by :func:`accepted`).

    ``proofs[i]`` is the text between ``Proof.`` and ``Qed.`` of ``statements[i]``.
    """
    if len(statements) != len(proofs):
        raise ValueError("one proof per statement")
    head = "".join(f"(* {line} *)\n" for line in title.splitlines() if line.strip())
    parts = [PREAMBLE if not head else PREAMBLE]
    if head:
        parts.insert(0, head)
    for st, pr in zip(statements, proofs):
        kw = "Lemma" if st is not statements[-1] else keyword
        parts.append(f"{render_statement(st, kw)}\nProof.\n{pr.rstrip()}\nQed.\n")
    parts.append("".join(f"Print Assumptions {st.name}.\n" for st in statements))
    return "\n".join(parts)


# ------------------------------------------------------------------------------ coqc
def coqc_binary() -> str | None:
    """``$ATTNIO_COQC`` if set (None if it is not an executable), else ``coqc`` on PATH."""
    explicit = os.environ.get("ATTNIO_COQC")
    if explicit:
        return shutil.which(explicit)
    return shutil.which("coqc")


def coqc_version(binary: str | None = None) -> str | None:
    """``coqc --version``'s first line, or None without coqc."""
    binary = binary or coqc_binary()
    if binary is None:
        return None
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else None


@dataclass(frozen=True)
class CoqRun:
    """One ``coqc`` run: exit code (None when it was killed at its time limit), its output,
    and the CPU-independent wall seconds it took."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


#: Address space of one coqc process (bytes): a runaway tactic ends there, not in swap.
COQC_MEMORY_BYTES = 4 * 1024 ** 3


def _limit_memory() -> None:   # pragma: no cover - runs in the child
    try:
        resource.setrlimit(resource.RLIMIT_AS, (COQC_MEMORY_BYTES, COQC_MEMORY_BYTES))
    except (ValueError, OSError):
        pass


def run_coqc(text: str, *, timeout: float, name: str = "attnio_check.v",
             binary: str | None = None) -> CoqRun:
    """Compile ``text`` with ``coqc`` in a private temporary folder (the user's folders never
    receive coqc's ``.vo`` / ``.glob`` files), killed with its process group after
    ``timeout`` seconds (``returncode`` None) or on Ctrl-C (the KeyboardInterrupt goes on).

    Raises
    ------
    InvalidInputError
        ``coqc`` is not installed (Debian package ``coq``).
    """
    binary = binary or coqc_binary()
    if binary is None:
        raise InvalidInputError("coqc not found: install Coq (Debian package `coq`, "
                                "apt-get install coq) or set ATTNIO_COQC")
    if not re.match(r"^[A-Za-z][A-Za-z0-9_]*\.v$", name):
        raise ValueError(f"file name {name!r} is not a Coq module name")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="attnio-coq-") as folder:
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        proc = subprocess.Popen([binary, "-q", name], cwd=folder, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=_limit_memory)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            out, err = proc.communicate()
            return CoqRun(None, out, err, time.monotonic() - start)
        except BaseException:   # Ctrl-C (KeyboardInterrupt) included: never leave coqc running
            _kill(proc)
            proc.communicate()
            raise
        return CoqRun(proc.returncode, out, err, time.monotonic() - start)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def axioms_of(stdout: str, names: Sequence[str]) -> dict[str, frozenset[str] | None]:
    r"""The axioms ``Print Assumptions`` listed for each theorem of ``names`` (in order in
    ``stdout``); None for a theorem whose report is missing.

    >>> axioms_of("Closed under the global context\n", ["t"])
    {'t': frozenset()}
    >>> out = "Axioms:\nA.b : forall P : Prop,\n  P\nC : True\n"
    >>> sorted(axioms_of(out, ["t"])["t"])
    ['A.b', 'C']
    """
    blocks: list[frozenset[str]] = []
    current: set[str] | None = None
    for line in stdout.splitlines():
        if line.startswith("Closed under the global context"):
            if current is not None:
                blocks.append(frozenset(current))
            blocks.append(frozenset())
            current = None
        elif line.startswith("Axioms:"):
            if current is not None:
                blocks.append(frozenset(current))
            current = set()
        elif current is not None and line and not line[0].isspace():
            found = re.match(r"^([A-Za-z_][A-Za-z0-9_.']*) :", line)
            if found:
                current.add(found.group(1))
            else:
                blocks.append(frozenset(current))
                current = None
    if current is not None:
        blocks.append(frozenset(current))
    return {name: (blocks[i] if i < len(blocks) else None) for i, name in enumerate(names)}


def accepted(text: str, run: CoqRun, names: Sequence[str]) -> tuple[bool, str]:
    r"""Whether a run re-checks the theorems ``names`` of ``text``, and why (not).

    Accepted only when ``coqc`` exited 0 within its time limit, the file holds no word of
    :data:`FORBIDDEN` outside its comments, and ``Print Assumptions`` of every theorem lists
    only :data:`ALLOWED_AXIOMS`.

    >>> ok = CoqRun(0, "Axioms:\nClassicalDedekindReals.sig_not_dec : P\n", "", 0.1)
    >>> accepted(PREAMBLE + "Theorem t : 1 = 1. Proof. reflexivity. Qed.", ok, ["t"])
    (True, 'coqc accepted t (axioms: ClassicalDedekindReals.sig_not_dec)')
    >>> accepted(PREAMBLE + "Theorem t : 1 = 1. Admitted.", ok, ["t"])[0]
    False
    """
    if run.timed_out:
        return False, f"coqc did not finish within its time limit ({run.seconds:.0f} s)"
    if run.returncode != 0:
        return False, "coqc rejected the proof: " + _first_error(run)
    bad = forbidden_words(text)
    if bad:
        return False, f"the file contains {', '.join(bad)}: a proof must assume nothing"
    reports = axioms_of(run.stdout, names)
    used: set[str] = set()
    for name, axioms in reports.items():
        if axioms is None:
            return False, f"no Print Assumptions report for {name}"
        extra = sorted(axioms - ALLOWED_AXIOMS)
        if extra:
            return False, f"{name} rests on {', '.join(extra)}, not a standard library axiom"
        used |= axioms
    shown = ", ".join(sorted(used)) or "none"
    return True, f"coqc accepted {', '.join(names)} (axioms: {shown})"


def _first_error(run: CoqRun) -> str:
    text = (run.stderr or run.stdout).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    where = next((line for line in lines if line.startswith("File ")), "")
    error = next((line for line in lines if line.startswith("Error")), lines[-1] if lines else
                 f"exit code {run.returncode}")
    return _short(f"{error} ({where})" if where else error, 200)
