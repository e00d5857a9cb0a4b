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

Proof map (the kernel's modules, bottom up)
-------------------------------------------
* this module — the printer: :func:`term` and :func:`prop` turn sympy terms and relations
  into small trees (:data:`Term`, :data:`Prop`) that :func:`render_term`,
  :func:`render_prop` and :func:`render_statement` print; the table below is its semantics;
* :mod:`attnio.smt.coq_statements` — a statement (goal, hypotheses, declared domains) as a
  :class:`~attnio.smt.coq_statements.CoqStatement`: ``forall`` binders (``R``, or ``Z`` for
  the integer domains), the domain facts, where each partial function is defined (its own
  :func:`~attnio.smt.coq_statements.definedness`), the hypotheses and the goal; a chain of
  :mod:`attnio.smt.chains` as one lemma per step, the composition and the claim;
* :mod:`attnio.smt.coq_proofs` — the tactic strategy: a proof script for each statement;
* :mod:`attnio.smt.coqc` — a self-contained ``.v`` file, ``coqc`` run with a time limit, and
  the rule of what counts as re-checked (exit 0, nothing assumed, only the standard library's
  axioms of the reals).

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
is kept (a lost branch is a test failure: tests/smt/test_coq.py).

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
>>> ctx = CoqContext(coq_names([n, d, M]), {n: "positive-integer", d: "positive-integer",
...                                          M: "positive-integer"})
>>> print(render_prop(prop(sp.Ge(n**2*d**2/M, n**2*d/sp.sqrt(M), evaluate=False), ctx)))
IZR d ^ 2 * IZR n ^ 2 / IZR M >= IZR d * IZR n ^ 2 / sqrt (IZR M)
>>> print(render_prop(prop(sp.Le(M, d**2, evaluate=False), ctx)))
(M <= d * d)%Z
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp

from attnio.exceptions import InvalidInputError, TranslationError

__all__ = [
    "Term", "Prop", "CoqContext", "coq_names", "term", "prop", "z_term",
    "is_integer_polynomial", "render_term", "render_prop", "render_statement", "ordered_args",
    "outside_fragment", "conjunction", "INTEGER_DOMAINS", "POSITIVE_DOMAINS",
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


def outside_fragment(e: sp.Basic, why: str) -> TranslationError:
    """The error of a construct outside the Coq fragment (``why``, then the term)."""
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
        raise outside_fragment(e, "a Piecewise outside a relation")
    raise outside_fragment(e, f"{type(e).__name__}")


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
        if k >= 0:   # b**0 (left unevaluated by the parser) is b ^ 0 = 1, as in sympy
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
        raise outside_fragment(e, f"a root of index {q} of a base not declared positive (Coq's Rpower "
                          "is exp(y ln x), attnio's root only for x > 0)")
    if k.is_number:
        raise outside_fragment(e, f"the exponent {k}")
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
    raise outside_fragment(e, f"{type(e).__name__} in an integer relation")   # not reached: checked


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
        return _junction("and", [prop(a, ctx) for a in ordered_args(p)])
    if isinstance(p, sp.Or):
        return _junction("or", [prop(a, ctx) for a in ordered_args(p)])
    if isinstance(p, sp.Not):
        return ("not", prop(p.args[0], ctx))
    if isinstance(p, sp.Equivalent):
        args = [prop(a, ctx) for a in ordered_args(p)]
        return _junction("and", [("iff", args[i], args[i + 1]) for i in range(len(args) - 1)])
    if isinstance(p, sp.Xor):
        out = prop(ordered_args(p)[0], ctx)
        for a in ordered_args(p)[1:]:
            q = prop(a, ctx)
            out = ("or", (("and", (out, ("not", q))), ("and", (("not", out), q))))
        return out
    if isinstance(p, sp.core.relational.Relational) and type(p) in _REL_OPS:
        piece = _first_piecewise(p)
        if piece is None:
            return _relation(_REL_OPS[type(p)], p.lhs, p.rhs, ctx)
        return _lift(p, piece, ctx)
    raise outside_fragment(p, f"{type(p).__name__} is not a relation or a connective")


def ordered_args(p: sp.Basic) -> list[sp.Basic]:
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


def conjunction(parts: Sequence[Prop]) -> Prop:
    """The conjunction of ``parts``, flattened, without ``True`` and repeats (``True`` if
    none is left)."""
    kept: list[Prop] = []
    for p in parts:
        for q in (p[1] if p[0] == "and" else (p,)):
            if q != ("true",) and q not in kept:
                kept.append(q)
    return ("true",) if not kept else kept[0] if len(kept) == 1 else ("and", tuple(kept))


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
    if t[0] in ("num", "znum"):
        return text          # a negative or fractional number prints in its parentheses
    simple = t[0] in ("var", "zvar", "atom", "pi")
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


def render_statement(st: Any, keyword: str = "Theorem") -> str:
    """``Theorem name : forall (...), H1 -> ... -> G.`` (one hypothesis per line) of a
    :class:`~attnio.smt.coq_statements.CoqStatement`.

    Side conditions
    ---------------
    The printed text, read as Coq reads it, means what the sympy expression means:

    1. ``precedence``: sums, differences, products, quotients, negations and powers are
       parenthesised as Coq's levels require (``x / (2 * y)``, never ``x / 2 * y``).
    2. ``integer-scope``: a relation between integer polynomials is printed in ``Z`` with
       its signs and powers intact; an integer inside a real term is ``IZR n``.
    3. ``rational-powers``: ``x**(p/q)`` is printed so that it equals sympy's value on the
       declared domain (a root, its reciprocal, ``Rpower`` only for a positive base).
    4. ``functions``: ``log``, ``exp``, ``Abs``, ``Min``, ``Max``, ``floor``, ``ceiling`` and
       ``Piecewise`` are printed as the Coq functions equal to them where defined.
    5. ``connectives``: ``And``, ``Or``, ``Not``, ``Implies`` and the relations keep their
       meaning and nesting.
    6. ``planner-atoms``: a sub-term the proof planner names (``CoqContext.atoms``) prints as
       that name, and ``x**(p/2)`` with ``√x`` named as that name's power or reciprocal.
    """
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


