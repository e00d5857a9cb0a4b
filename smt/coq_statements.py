r"""A statement as a Coq theorem: binders, domain facts, definedness, hypotheses, goal.

The second stage of the Coq kernel (:mod:`attnio.smt.coq` prints the terms): a sympy
statement with its declared domains becomes a :class:`CoqStatement` — what the theorem says,
before rendering — and a chain of :mod:`attnio.smt.chains` a list of them.

Definedness, written here anew (not :mod:`attnio.smt.definedness`: the point is a second
reading of notes/claims.md's semantics): :math:`\sqrt b` needs :math:`b \ge 0` (:math:`b > 0`
under a negative power), :math:`1/e` needs :math:`e \ne 0`, :math:`\log a` needs
:math:`a > 0`, a non-constant power needs a positive base, ``tan a`` needs
:math:`\cos a \ne 0`, ``Piecewise`` needs its conditions defined up to the first that holds,
one that holds, and that branch defined; ``And`` / ``Or`` / ``Not`` / ``Xor`` /
``Equivalent`` need every argument defined, ``Implies(A, B)`` needs ``A`` defined and ``B``
only where ``A`` holds. A condition the declared domains imply is left out (``M > 0`` for a
positive ``M``): a theorem with fewer hypotheses is stronger, never weaker.

The theorem of ``hypotheses ⇒ goal`` reads
``∀ x ∈ domains, D(h_1) → h_1 → … → D(A) → A → D(B) → B`` for a goal ``Implies(A, B)``
(antecedents peeled): equivalent to "true wherever defined", because
:math:`(D(A) \wedge (A \to D(B))) \to (A \to B)` and
:math:`D(A) \to A \to D(B) \to B` are the same proposition.

Examples
--------
>>> import sympy as sp
>>> from attnio.smt.coq import render_prop, render_statement
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
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import sympy as sp

from attnio.smt.coq import (
    INTEGER_DOMAINS,
    CoqContext,
    Prop,
    conjunction,
    coq_names,
    ordered_args,
    outside_fragment,
    prop,
    term,
)
from attnio.smt.statements import declared_domains, symbol_for

__all__ = ["CoqStatement", "coq_statement", "coq_chain", "definedness", "positive_in_domains"]


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
    raise outside_fragment(e, f"no definedness rule for {type(e).__name__}")


def _piecewise_defined(e: sp.Piecewise, ctx: CoqContext) -> list[Prop]:
    """Branches in order: ``D(c1) ∧ (c1 → D(e1)) ∧ (¬c1 → rest)``; no branch applies:
    undefined (the conditions' disjunction is required)."""
    rest: Prop = ("false",)
    for value, cond in reversed(e.args):
        if cond is sp.true:
            rest = conjunction(_term_defined(value, ctx))
            continue
        c = prop(cond, ctx)
        parts = _defined_list(cond, ctx)
        body = _term_defined(value, ctx)
        if body:
            parts.append(("imp", c, conjunction(body)))
        parts.append(c if rest == ("false",) else ("imp", ("not", c), rest))
        rest = conjunction(parts)
    return [] if rest == ("true",) else [rest]


def _defined_list(p: sp.Basic, ctx: CoqContext) -> list[Prop]:
    if p in (sp.true, sp.false) or isinstance(p, bool):
        return []
    if isinstance(p, sp.Implies):
        a, b = p.args
        inner = _defined_list(b, ctx)
        return _defined_list(a, ctx) + ([("imp", prop(a, ctx), conjunction(inner))] if inner else [])
    if isinstance(p, (sp.And, sp.Or, sp.Not, sp.Xor, sp.Equivalent)):
        return [c for a in ordered_args(p) for c in _defined_list(a, ctx)]
    if isinstance(p, sp.core.relational.Relational):
        return _term_defined(p.lhs, ctx) + _term_defined(p.rhs, ctx)
    raise outside_fragment(p, f"no definedness rule for {type(p).__name__}")


def definedness(p: sp.Basic, domains: Mapping[sp.Symbol, str],
                names: Mapping[sp.Symbol, str] | None = None) -> Prop:
    """Where the statement ``p`` is defined, as a Coq proposition (``("true",)`` if
    everywhere in the declared domains): the rules of the module docstring, strict for
    ``And`` / ``Or`` / ``Not`` / ``Xor`` / ``Equivalent``, guarded for ``Implies``.

    >>> from attnio.smt.coq import render_prop
    >>> x = sp.Symbol("x", real=True)
    >>> print(render_prop(definedness(sp.Implies(sp.Ge(x, 0), sp.Ge(sp.sqrt(x), 1)),
    ...                               {x: "real"})))
    x >= 0 -> 0 <= x
    >>> definedness(sp.Ge(sp.sqrt(x), 0), {x: "positive"})
    ('true',)
    """
    ctx = CoqContext(names or coq_names(domains), domains)
    return conjunction(_defined_list(p, ctx))


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
    >>> from attnio.smt.coq import render_statement
    >>> x = sp.Symbol("x", positive=True)
    >>> print(render_statement(coq_statement("amgm", sp.Ge(x + 1 / x, 2, evaluate=False))))
    Theorem amgm :
      forall (x : R),
      0 < x ->
      x + 1 / x >= 2.

    Side conditions
    ---------------
    The theorem holds at a point exactly where the statement is not false there:

    1. ``domain-facts``: each binder carries its declared domain (``0 < x``, ``0 <= x``,
       ``(1 <= n)%Z``, ...), no narrower and no wider.
    2. ``division-defined``: ``1/e`` (a negative integer power) needs ``e <> 0``.
    3. ``root-defined``: ``e**(p/q)`` needs ``e >= 0`` (``e > 0`` under a negative power); a
       non-constant exponent needs a positive base.
    4. ``log-defined``: ``log a`` needs ``a > 0`` (not ``a > 1``, not ``a >= 0``).
    5. ``implication-peeled``: ``Implies(A, B)`` becomes ``D(A) -> A -> D(B) -> B``:
       ``B``'s definedness only where ``A`` holds.
    6. ``hypotheses-premises``: each hypothesis (with its definedness) is a premise.
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
        d = conjunction(_defined_list(p, ctx)) if defined else ("true",)
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
    d = conjunction(_defined_list(g, ctx)) if defined else ("true",)
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
    # each term's definedness, not that of their And: sympy folds And(r, ~r) into False even
    # with evaluate=False, which would drop every condition of a chain holding r and ~r
    defined = sorted(everything, key=sp.default_sort_key)
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


def _with_defined(st: CoqStatement, everything: Sequence[sp.Basic],
                  doms: Mapping[sp.Symbol, str]) -> CoqStatement:
    """``st`` with the definedness of the whole chain as its first non-domain hypothesis
    (a chain is claimed where all its terms are defined, as the chain checker's premises)."""
    d = conjunction([definedness(e, doms, st.names) for e in everything])
    if d == ("true",):
        return st
    hyps, sources = list(st.hypotheses), list(st.sources)
    at = sum(1 for r, _ in hyps if r == "domain")
    hyps.insert(at, ("defined", d))
    sources.insert(at, None)
    return dataclasses.replace(st, hypotheses=tuple(hyps), sources=tuple(sources))


