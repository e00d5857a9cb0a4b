r"""Building z3 algebra claims whose expressions come from the bound catalogue.

The claim modules of :mod:`attnio.proofs` (``backward_branches``, ``forward_branches``,
``sparse_branches``, ``algorithm_comparison``, ``lower_order_terms``, ``lower_bound_steps``)
state each claim as a *problem builder*: a function returning ``(goal, hypotheses)`` as sympy
relations. The builder reads its expressions from :func:`attnio.symbolic.catalogue.get_bound`
at check time — never a private copy — so an error in the catalogue comes out ``Refuted`` (or
``Undecided`` if the catalogue cannot be imported), not silently agreed with.

:func:`z3_claim` wraps a builder into a :class:`~attnio.proofs.registry.Claim` whose check
hands the problem to the proof kernel, :func:`attnio.smt.kernel.prove_statement` — the same
code path as ``attnio prove``: domains from the symbols' declared assumptions, integers as
integers, ``M = s^2`` only where declared, every counterexample re-evaluated exactly, no
vacuous proofs, and cvc5 re-checking z3. Relations are built unevaluated (:func:`le`,
:func:`eq`, ...); a goal that sympy folded to ``True``/``False`` before the solvers saw it is
``Undecided``.

:func:`min_of_two_claims` builds the five branch claims (and four twins) of a bound
:math:`\min\{b_1, b_2\}`; :func:`agreement_claim` checks that a regime entry of the catalogue
equals the tight bound on its own admissible range.

Examples
--------
>>> import sympy
>>> x = sympy.Symbol("x", positive=True)
>>> c = z3_claim("demo.amgm", "x + 1/x >= 2 for x > 0", "folklore", "demo",
...              lambda: (ge(x + 1 / x, 2), []))
>>> c.check().verdict
'proved'
>>> twin = z3_claim("demo.amgm_3", "x + 1/x >= 3 (false)", "planted", "demo",
...                 lambda: (ge(x + 1 / x, 3), []), twin_of="demo.amgm")
>>> twin.check().verdict
'refuted'
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

import sympy

from attnio.proofs.registry import CheckContext, Claim, Tier
from attnio.results import Undecided, Verdict
from attnio.smt.kernel import prove_statement
from attnio.symbolic import symbols as catalogue_symbols
from attnio.symbolic.catalogue import Bound, get_bound

__all__ = ["Problem", "z3_claim", "bound", "symbol", "symbols", "min_of_two_claims",
           "le", "lt", "ge", "eq", "agreement_claim"]

#: ``(goal, hypotheses)``: a sympy relation (or boolean combination) and the admissible range.
Problem = tuple[sympy.Basic, Sequence[sympy.Basic]]


def le(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    """``a <= b`` left unevaluated, so that z3 — not sympy's sign rules — decides it."""
    return sympy.Le(a, b, evaluate=False)


def lt(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    """``a < b`` left unevaluated."""
    return sympy.Lt(a, b, evaluate=False)


def ge(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    """``a >= b`` left unevaluated."""
    return sympy.Ge(a, b, evaluate=False)


def eq(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    """``a == b`` left unevaluated (``sympy.Eq`` would fold an identity to ``True``)."""
    return sympy.Eq(a, b, evaluate=False)


def bound(bound_id: str) -> Bound:
    """The catalogue entry ``bound_id`` (an unknown id raises, which :meth:`Claim.check` turns
    into ``Undecided`` when it happens inside a check)."""
    return get_bound(bound_id)


def symbol(name: str) -> sympy.Symbol:
    """The catalogue's size symbol ``name`` (``n``, ``d``, ``M``, ``Z_in``, ``Z_QK``, ...)."""
    return getattr(catalogue_symbols, name)


def symbols(names: str) -> tuple[sympy.Symbol, ...]:
    """Several catalogue symbols at once: ``n, d, M = symbols("n d M")``."""
    return tuple(symbol(name) for name in names.split())


def z3_claim(claim_id: str, statement: str, source: str, family: str,
             build: Callable[[], Problem], *, formal: str | None = None,
             reconstructed: bool = False, tier: Tier = "default",
             twin_of: str | None = None, method: str = "z3 NRA (M = s²)") -> Claim:
    """A :class:`Claim` checking ``hypotheses ⇒ goal`` for every real value with z3.

    Parameters
    ----------
    claim_id, statement, source, family
        As in :class:`~attnio.proofs.registry.Claim`; ``statement`` must name the range.
    build : callable
        Returns ``(goal, hypotheses)`` as sympy objects; called at check time.
    formal : str, optional
        The checked formula as text; defaults to ``statement``.
    reconstructed, tier, twin_of, method
        As in :class:`~attnio.proofs.registry.Claim`.

    Returns
    -------
    Claim
        Its verdict's detail quotes the instantiated goal and hypotheses, so the JSON report
        shows exactly which catalogue expressions were checked.
    """

    def check(ctx: CheckContext) -> Verdict:
        goal, hypotheses = build()
        if goal in (sympy.true, sympy.false):
            return Undecided(f"sympy folded the goal to {goal} before z3 saw it; build the "
                             "relation unevaluated (attnio.proofs.algebra.le/eq/...)")
        verdict = prove_statement(goal, hypotheses=hypotheses, timeout=ctx.z3_timeout_ms / 1000,
                                  second_solver=ctx.second_solver)
        shown = f"goal {goal}" + (f" given {', '.join(map(str, hypotheses))}" if hypotheses else "")
        return replace(verdict, detail=f"{verdict.detail}; {shown}")

    return Claim(id=claim_id, statement=statement, formal=formal or statement, source=source,
                 method=method, family=family, check_fn=check, reconstructed=reconstructed,
                 tier=tier, twin_of=twin_of, evidence_kind="smt-forall")


def min_of_two_claims(
    prefix: str, family: str, bound_id: str, source: str, *,
    first_regime: Callable[[], sympy.Basic],
    second_regime: Callable[[], sympy.Basic],
    wrong_regime: Callable[[], sympy.Basic],
    ratio: Callable[[], sympy.Expr],
    crossover: Callable[[], sympy.Basic],
    value_at_crossover: Callable[[], sympy.Expr],
    wrong_value_at_crossover: Callable[[], sympy.Expr],
    regime_text: tuple[str, str], ratio_text: str, value_text: str,
    reconstructed: bool = False,
) -> tuple[list[Claim], list[Claim]]:
    r"""The five branch claims of a bound :math:`\min\{b_1, b_2\}` and their false twins.

    With ``tight = get_bound(bound_id)`` and ``(b1, b2) = tight.branches``:

    * ``<prefix>.first_branch``: ``first_regime ⇒ tight.expr == b1``;
    * ``<prefix>.second_branch``: ``second_regime ⇒ tight.expr == b2``;
    * ``<prefix>.crossover_exact``: ``b1 <= b2 ⇔ first_regime`` (for every positive value);
    * ``<prefix>.branch_ratio``: ``b1 == ratio · b2``;
    * ``<prefix>.equal_at_crossover``: ``crossover ⇒ b1 == b2 == value_at_crossover``.

    Twins: the crossover moved (``wrong_regime ⇒ tight.expr == b1``), the direction swapped
    (``first_regime ⇒ tight.expr == b2``), the ratio inverted, and a wrong value at the
    crossover. Each regime/ratio/value argument is a zero-argument callable so that symbols are
    imported at check time.
    """
    def branches() -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
        tight = bound(bound_id)
        b1, b2 = tight.branches
        return tight.expr, b1, b2

    def first(regime: Callable[[], sympy.Basic], which: int) -> Callable[[], Problem]:
        def build() -> Problem:
            expr, *bs = branches()
            return eq(expr, bs[which]), [regime()]
        return build

    def exact() -> Problem:
        _, b1, b2 = branches()
        return sympy.Equivalent(le(b1, b2), first_regime()), []

    def ratio_of(r: Callable[[], sympy.Expr]) -> Callable[[], Problem]:
        def build() -> Problem:
            _, b1, b2 = branches()
            # unevaluated: sympy would multiply r·b2 back into b1 and leave z3 a == a
            return eq(b1, sympy.Mul(r(), b2, evaluate=False)), []
        return build

    def at_crossover(value: Callable[[], sympy.Expr]) -> Callable[[], Problem]:
        def build() -> Problem:
            _, b1, b2 = branches()
            v = value()
            return sympy.And(eq(b1, v), eq(b2, v)), [crossover()]
        return build

    big, small = regime_text
    kw: dict[str, Any] = dict(source=source, family=family, reconstructed=reconstructed)
    claims = [
        z3_claim(f"{prefix}.first_branch",
                 f"{bound_id}: for {big} the minimum is the first branch (all positive reals)",
                 build=first(first_regime, 0), **kw),
        z3_claim(f"{prefix}.second_branch",
                 f"{bound_id}: for {small} the minimum is the second branch (all positive reals)",
                 build=first(second_regime, 1), **kw),
        z3_claim(f"{prefix}.crossover_exact",
                 f"{bound_id}: first branch <= second branch exactly when {big}",
                 build=exact, **kw),
        z3_claim(f"{prefix}.branch_ratio",
                 f"{bound_id}: first branch = ({ratio_text}) x second branch (all positive reals)",
                 build=ratio_of(ratio), **kw),
        z3_claim(f"{prefix}.equal_at_crossover",
                 f"{bound_id}: at the crossover both branches equal {value_text}",
                 build=at_crossover(value_at_crossover), **kw),
    ]
    twin: dict[str, Any] = dict(kw, source=f"planted false twin of {source}")
    twins = [
        z3_claim(f"{prefix}.first_branch.twin_wrong_crossover",
                 f"FALSE: {bound_id}: the first branch is the minimum already in a wider range",
                 build=first(wrong_regime, 0), twin_of=f"{prefix}.first_branch", **twin),
        z3_claim(f"{prefix}.first_branch.twin_wrong_direction",
                 f"FALSE: {bound_id}: for {big} the minimum is the second branch",
                 build=first(first_regime, 1), twin_of=f"{prefix}.second_branch", **twin),
        z3_claim(f"{prefix}.branch_ratio.twin_inverted",
                 f"FALSE: {bound_id}: first branch = 1/({ratio_text}) x second branch",
                 build=ratio_of(lambda: 1 / ratio()), twin_of=f"{prefix}.branch_ratio", **twin),
        z3_claim(f"{prefix}.equal_at_crossover.twin_wrong_value",
                 f"FALSE: {bound_id}: at the crossover both branches equal a wrong value",
                 build=at_crossover(wrong_value_at_crossover),
                 twin_of=f"{prefix}.equal_at_crossover", **twin),
    ]
    return claims, twins


def agreement_claim(claim_id: str, bound_id: str, tight_id: str, family: str, *,
                    extra_hypotheses: Callable[[], Sequence[sympy.Basic]] = tuple,
                    use_admissible: bool = True, twin_of: str | None = None,
                    reconstructed: bool = False) -> Claim:
    r"""Claim: on ``bound_id``'s own admissible range, its expression equals ``tight_id``'s.

    A regime bound (e.g. ``bwd.large.lower``, :math:`M \ge d^2`) and the tight bound must agree
    where the regime bound is stated — otherwise the catalogue contradicts itself. With
    ``use_admissible=False`` (and wrong ``extra_hypotheses``) this builds the false twin "the
    regime bound agrees with the tight bound outside its regime".
    """
    def build() -> Problem:
        b = bound(bound_id)
        hyps = list(b.admissible) if use_admissible else []
        return eq(b.expr, bound(tight_id).expr), hyps + list(extra_hypotheses())

    b_text = "its admissible range" if use_admissible else "a range outside its regime"
    statement = f"{bound_id} equals {tight_id} on {b_text}"
    if twin_of:
        statement = "FALSE: " + statement
    return z3_claim(claim_id, statement,
                    "catalogue consistency" + (" (planted false twin)" if twin_of else ""),
                    family, build, twin_of=twin_of, reconstructed=reconstructed)
