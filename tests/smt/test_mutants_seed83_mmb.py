"""Mutation survivors of seed 83 (issue 36), tested by RULE: smt/explog.py (the "rising"
recipe's strict sign, certified bounds only around guaranteed digits), smt/explog_terms.py
(each constant its own real, exp of a two-term sum split, log of a product split as written,
the anchors at constants other than 0, ±1),
smt/identities.py (the declared assumptions, the time limit of the definedness proof),
smt/obvious_points.py (the cap on integer points, the cost of a large limit), smt/coq.py
(a nested iff on the left is parenthesised), proofs/joint_routes.py (the default sizes of the
cap's check, joint_claim keeps formal, method and check).

Every test is fast, deterministic, and states the rule it checks against a hand-computed value
or an independent evaluation (exact fractions, mpmath, z3 on the translator's own side
conditions).
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
import z3
from rule_evaluators import recorded_axiom_instances  # tests/ on sys.path: tests/conftest.py

from attnio.results import Proved, Refuted

pytestmark = pytest.mark.trust


# ==============================================================================================
# smt/explog.py
# ==============================================================================================
def test_rising_recipe_needs_a_strictly_positive_derivative() -> None:
    """The "rising" recipe proves g > 0 right of c only when some derivative is *strictly*
    positive there: for g = x − x (identically 0, every derivative 0 at and right of 0) it
    must not confirm anything — g > 0 is false everywhere. Its twin: g = x² (g' = 2x > 0 on
    (0, ∞)) is confirmed."""
    from attnio.smt.explog import _recipe
    x = sp.Symbol("x")
    doms = {x: "real"}
    assert _recipe(("rising", "x - x", "x", "Interval(0, oo)", "0", "x >= 0"), doms) is None
    assert _recipe(("rising", "x*0", "x", "Interval(0, oo)", "0", "x >= 0"), doms) is None
    why = _recipe(("rising", "x**2", "x", "Interval(0, oo)", "0", "x >= 0"), doms)
    assert why is not None and "> 0 right of it" in why


def test_certified_bounds_only_around_digits_evalf_guarantees() -> None:
    """certified_bounds centres its bounds on digits evalf *guarantees* (strict): when evalf
    cannot reach BOUND_DIGITS + 10 digits (c = π − R + 10⁻¹⁵⁰, R = π to 300 digits: the
    cancellation needs more precision than evalf allows) the answer is None, not bounds built
    on unguaranteed digits. Its twin: π itself gets bounds, within 10⁻¹⁹ of π (mpmath)."""
    from attnio.smt.explog import certified_bounds
    R = sp.Rational(str(sp.pi.evalf(300)))
    c = sp.pi - R + sp.Rational(1, 10 ** 150)
    with pytest.raises(sp.core.evalf.PrecisionExhausted):
        c.evalf(30, strict=True)
    assert certified_bounds(c) is None
    lo, hi = certified_bounds(sp.pi)
    mpmath.mp.dps = 50
    assert mpmath.mpf(lo.p) / lo.q < mpmath.pi < mpmath.mpf(hi.p) / hi.q
    assert hi - lo < sp.Rational(1, 10 ** 19)


# ==============================================================================================
# smt/explog_terms.py
# ==============================================================================================


def test_each_bounded_constant_is_its_own_real() -> None:
    """A transcendental constant becomes a fresh real between its certified bounds: two
    different constants (π and √2) are two different reals, so their bounds hold together —
    z3 finds the side conditions satisfiable, with each real inside its own bounds around
    the true value (mpmath). Sharing one real would make them contradictory (and every
    statement using both Proved)."""
    from attnio.smt.sympy_to_z3 import Translator
    t = Translator({})
    pi, root = t._bounded_constant(sp.pi), t._bounded_constant(sp.sqrt(2))
    assert not pi.eq(root)
    assert t._bounded_constant(sp.pi).eq(pi)            # the same constant: the same real
    s = z3.Solver()
    s.add(*t.side_conditions)
    assert s.check() == z3.sat
    model = s.model()
    mpmath.mp.dps = 40
    for term, value in ((pi, mpmath.pi), (root, mpmath.sqrt(2))):
        got = model.eval(term, model_completion=True)
        got = mpmath.mpf(got.numerator_as_long()) / got.denominator_as_long()
        assert abs(got - value) < mpmath.mpf(10) ** -18 * value


def test_exp_of_a_two_term_sum_gets_exp_add(monkeypatch) -> None:
    """exp(a + b) — a sum of two terms — is split by exp_add into exp(a)·exp(b): the
    instance (exp(x), exp(y), exp(x + y)) is added, and with it the translator's side
    conditions entail exp(x + y) = exp(x)·exp(y) (z3)."""
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    seen, t = recorded_axiom_instances(monkeypatch, sp.exp(x + y), {x: "real", y: "real"})
    whole, ex, ey = t.expr(sp.exp(x + y)), t.expr(sp.exp(x)), t.expr(sp.exp(y))
    adds = [ts for aid, ts in seen if aid == "explog.exp_add"]
    assert len(adds) == 1
    assert {str(adds[0][0]), str(adds[0][1])} == {str(ex), str(ey)} and adds[0][2].eq(whole)
    s = z3.Solver()
    s.add(*t.side_conditions, whole != ex * ey)
    assert s.check() == z3.unsat


def test_log_of_a_product_as_written_splits_its_whole_rest_again() -> None:
    """log(x·2·(y+1)) written as an unevaluated product is split as log x + log(2·(y+1)),
    the rest kept as the product it is, and split again: the kernel proves log(x·2·(y+1)) =
    log x + log 2 + log(y+1) for positive x, y (the rest evaluated to 2y + 2, a sum, would
    not be split)."""
    from attnio.smt.kernel import prove_statement
    from attnio.smt.sympy_to_z3 import Translator
    x, y = sp.Symbol("x", positive=True), sp.Symbol("y", positive=True)
    arg = sp.Mul(x, 2, y + 1, evaluate=False)
    t = Translator({x: "positive", y: "positive"})
    t.expr(sp.log(arg))
    logs = {a for kind, a in t._transcendental if kind == "log"}
    assert {sp.Integer(2), y + 1} <= logs
    statement = sp.Eq(sp.log(arg), sp.log(x) + sp.log(2) + sp.log(y + 1), evaluate=False)
    verdict = prove_statement(statement, {x: "positive", y: "positive"}, timeout=5,
                              second_solver=False)
    assert isinstance(verdict, Proved)


def test_anchor_adds_exp_at_the_statement_constant_two() -> None:
    """anchor skips only the constants 0, 1, −1 (whose exp/log are exact already) and adds
    exp(c) at every other constant of the statement: with exp(2) in, x ≥ 2 ⇒ exp(x) > 7.38 is
    Proved (e² = 7.389…, mpmath; monotonicity from exp(2)'s certified bounds). Its twin,
    x ≥ 2 ⇒ exp(x) > 7.39, is false at x = 2 and is not Proved."""
    from attnio.smt.kernel import prove_statement
    from attnio.smt.sympy_to_z3 import Translator
    mpmath.mp.dps = 30
    assert 7.38 < mpmath.e ** 2 < 7.39
    x = sp.Symbol("x", positive=True)
    t = Translator({x: "positive"})
    t.expr(sp.exp(x))
    t.anchor(sp.Implies(x >= 2, sp.exp(x) > 1))
    exps = {a for kind, a in t._transcendental if kind == "exp"}
    assert sp.Integer(2) in exps
    verdict = prove_statement("Implies(x >= 2, exp(x) > 7.38)", {"x": "positive"}, timeout=5,
                              second_solver=False)
    assert isinstance(verdict, Proved)
    twin = prove_statement("Implies(x >= 2, exp(x) > 7.39)", {"x": "positive"}, timeout=5,
                           second_solver=False)
    assert not isinstance(twin, Proved)


# ==============================================================================================
# smt/identities.py
# ==============================================================================================
def test_check_identity_simplifies_with_the_declared_assumptions() -> None:
    """sympy simplifies with each symbol's declared domain: √(x²) = x for a positive x is
    proved by simplify itself (evidence sympy-canonical), although the symbol carries no
    assumption. Its twin: for a real x it is Refuted (x = −1: 1 ≠ −1)."""
    from attnio.smt.identities import check_identity
    x = sp.Symbol("x")
    verdict = check_identity(sp.sqrt(x ** 2), x, {x: "positive"}, second_solver=False)
    assert isinstance(verdict, Proved) and verdict.evidence.kind == "sympy-canonical"
    twin = check_identity(sp.sqrt(x ** 2), x, {x: "real"}, second_solver=False)
    assert isinstance(twin, Refuted) and twin.counterexample["x"] == "-1"


def test_check_identity_passes_its_time_limit_to_the_definedness_proof(monkeypatch) -> None:
    """The time limit given to check_identity bounds every kernel call, including the proof
    that the sides are defined throughout (log(x·y) = log x + log y: definedness x·y > 0,
    x > 0, y > 0): the kernel is called with exactly that timeout, never its own default."""
    from attnio.smt import kernel
    from attnio.smt.identities import check_identity
    calls: list[float | None] = []
    real = kernel.prove_statement

    def spy(*args, **kw):
        calls.append(kw.get("timeout"))
        return real(*args, **kw)

    monkeypatch.setattr(kernel, "prove_statement", spy)
    x, y = sp.Symbol("x"), sp.Symbol("y")
    verdict = check_identity(sp.log(x * y), sp.log(x) + sp.log(y),
                             {x: "positive", y: "positive"}, timeout=7.25, second_solver=False)
    assert isinstance(verdict, Proved)
    assert calls and all(c == 7.25 for c in calls), calls


# ==============================================================================================
# smt/obvious_points.py
# ==============================================================================================
def test_near_integer_points_are_capped() -> None:
    """At most NEAR_POINTS (729) integer points around a relaxed model: six integer symbols
    have 4⁶ = 4096 neighbours, and only the first 729 of them (in product order) are given."""
    from attnio.smt.obvious_points import NEAR_POINTS, near_integer_points
    syms = sp.symbols("a b c d e f")
    doms = {s: "integer" for s in syms}
    points = list(near_integer_points({s: sp.Rational(1, 2) for s in syms}, doms))
    assert NEAR_POINTS == 729 and len(points) == 729
    assert points[0] == {s: -1 for s in syms}
    assert all(set(p.values()) <= {-1, 0, 1, 2} for p in points)


def test_obvious_points_with_a_huge_limit_start_at_once() -> None:
    """The values per symbol are about limit^(1/n), cut to the combination cap found from
    its root, so even a huge limit (10⁹ points of one or two symbols) yields its first point
    — the simplest — at once. Measured in CPU seconds with a wide margin (a busy machine
    cannot fail it): stepping down from limit^(1/n) one by one took minutes at 10⁹."""
    from attnio.smt.obvious_points import obvious_points
    x, y = sp.Symbol("x"), sp.Symbol("y")
    start = time.process_time()
    first = next(obvious_points([x + y > 0], {x: "real", y: "real"}, limit=10 ** 9))
    alone = list(obvious_points([x > 0], {x: "real"}, limit=10 ** 9))
    assert time.process_time() - start < 10
    assert first == {x: 0, y: 0} and alone[0] == {x: 0} and len(alone) == len(set(
        p[x] for p in alone))


# ==============================================================================================
# smt/coq.py
# ==============================================================================================
def test_coq_iff_on_the_left_of_an_iff_is_parenthesised() -> None:
    """Coq's ``<->`` is at level 95 with no associativity: an iff as the LEFT side of an iff
    must be parenthesised (``(A <-> B) <-> A``, never ``A <-> B <-> A``), like one on the
    right; an and/or/not side needs none."""
    from attnio.smt.coq import render_prop
    a = ("rel", "<=", ("var", "x"), ("num", Fraction(1)), "R")
    b = ("rel", "<=", ("var", "y"), ("num", Fraction(2)), "R")
    assert render_prop(("iff", ("iff", a, b), a)) == "(x <= 1 <-> y <= 2) <-> x <= 1"
    assert render_prop(("iff", a, ("iff", a, b))) == "x <= 1 <-> (x <= 1 <-> y <= 2)"
    assert render_prop(("iff", ("or", (a, b)), ("not", a))) == "x <= 1 \\/ y <= 2 <-> ~ x <= 1"


# ==============================================================================================
# proofs/joint_routes.py
# ==============================================================================================
def test_the_cap_check_uses_the_default_sizes_when_none_are_given() -> None:
    """gap.joint_cap's check, given no sizes, checks the certificate at every (d, M) of
    _CAP_SIZES: with a planted cap below the truth it is Refuted at the first default size
    (64, 1024), L = M."""
    from attnio.proofs.joint_routes import _CAP_SIZES, _joint_cap_check
    from attnio.proofs.registry import CheckContext
    v = _joint_cap_check(CheckContext(), classes=[("forward", 8, 7, (1, 1))], points=[],
                         brute=[], shift=lambda cap: -1)
    assert isinstance(v, Refuted) and "certificate fails" in v.detail
    assert (v.counterexample["d"], v.counterexample["M"]) == _CAP_SIZES[0] == (64, 1024)


def test_joint_claim_keeps_formal_method_and_check() -> None:
    """joint_claim (called here, after any mutant is in place) gives the claim the formal
    statement, the method and the check it was given — what ``attnio claims`` shows and what
    ``attnio verify`` runs; the evidence kind follows the method (exact → exhaustive)."""
    from attnio.proofs.attention_routes import EXACT
    from attnio.proofs.joint_routes import joint_claim

    def check(ctx):
        return Proved("planted")

    made = joint_claim("gap.test_kept", "the statement", "∀ x: x = x", EXACT, check)
    assert made.formal == "∀ x: x = x" and made.method == EXACT
    assert made.check_fn is check and made.evidence_kind == "exhaustive"
    assert made.statement == "the statement" and made.id == "gap.test_kept"
