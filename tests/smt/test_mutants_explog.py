"""The exp/log fragment, identities and obvious points, tested by RULE (issue 36, mutation
survivors): smt/explog.py (the axiom factories, the calculus recipes ``_recipe`` called
directly on cheap planted recipes), smt/explog_terms.py (the instances each term gets, the
repair of a z3 model, the anchors), smt/identities.py and smt/obvious_points.py.

Every test is fast (well under half a second), seeded where random, and states the rule it
checks; each assertion that a checker accepts something comes with a planted false twin it
must reject.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
import z3
from rule_evaluators import recorded_axiom_instances  # tests/ on sys.path: tests/conftest.py

from attnio.results import Proved, Refuted, Undecided
from attnio.smt import explog
from attnio.smt.exact_eval import evaluate
from attnio.smt.statements import parse_statement

pytestmark = pytest.mark.trust

_RX = {"x": "real"}
_PX = {"x": "positive"}


def _doms(domains: dict[str, str]) -> dict[sp.Symbol, str]:
    return {sp.Symbol(name): dom for name, dom in domains.items()}


def _same_statement(text: str, expected: str, domains: dict[str, str]) -> bool:
    """Do two statement texts parse to the same statement (same declared domains)?"""
    return parse_statement(text, dict(domains))[0] == parse_statement(expected, dict(domains))[0]


def _true(lhs, *_args) -> z3.BoolRef:
    return z3.BoolVal(True)


# ==============================================================================================
# smt/explog.py — the axiom factories build, at call time, what their docstrings say
# ==============================================================================================
def test_factory_positive_states_f_positive_and_is_proved() -> None:
    """``_positive`` states ``f > 0`` over the reals with the "positive" recipe: Proved; the
    same factory on a function that is not positive (exp(x) − 1) is Refuted."""
    axiom = explog._positive("t.pos", "exp(x)", "exp(x) > 1", _true)
    assert axiom.proof[0] == "positive" and dict(axiom.domains) == _RX
    assert _same_statement(axiom.statement, "exp(x) > 0", _RX)
    assert axiom.arguments == ("a", "e") and axiom.instance is _true
    verdict = explog.check_axiom(axiom)
    assert isinstance(verdict, Proved)
    assert verdict.detail.startswith("sympy's assumptions: positive") and \
        verdict.detail.endswith("for every declared value")
    assert isinstance(explog.check_axiom(axiom, twin=True), Refuted)
    false = explog._positive("t.pos", "exp(x) - 1", "exp(x) > 1", _true)
    assert isinstance(explog.check_axiom(false), Refuted)


def test_factory_through_states_the_sign_rule_and_is_proved() -> None:
    """``_through(f, c, value)``: sign(f − value) = sign(x − c) as three implications, with
    the "through" recipe on the declared domain: log through log 1 = 0 is Proved; a wrong
    crossing point (log(x) through 0 at x = 2) is Refuted by the grid."""
    axiom = explog._through("t.sign", "log(x)", _PX, "Interval.open(0, oo)", "1", "0",
                            "Implies(x > 1, log(x) > 1)", _true, ("b", "g"))
    assert axiom.proof == ("through", "log(x)", "x", "Interval.open(0, oo)", "1", "0")
    assert dict(axiom.domains) == _PX and dict(axiom.twin_domains) == _PX
    assert axiom.arguments == ("b", "g") and axiom.instance is _true
    assert _same_statement(axiom.statement, "And(Implies(x > 1, log(x) > 0), Implies(x < 1, "
                           "log(x) < 0), Implies(Eq(x, 1), Eq(log(x), 0)))", _PX)
    assert isinstance(explog.check_axiom(axiom), Proved)
    assert isinstance(explog.check_axiom(axiom, twin=True), Refuted)
    wrong = explog._through("t.sign", "log(x)", _PX, "Interval.open(0, oo)", "2", "0",
                            "x > 0", _true)
    assert isinstance(explog.check_axiom(wrong), Refuted)


def test_factory_increasing_renames_only_the_variable_and_is_proved() -> None:
    """``_increasing(f)``: ``x < y ⇒ f(x) < f(y)`` with f(y) = f with the WORD x renamed
    (``exp`` keeps its x), both symbols declared: log is Proved increasing on the positives;
    a decreasing function (−log) is Refuted."""
    doms = {"x": "positive", "y": "positive"}
    axiom = explog._increasing("t.mono", "log(x) + exp(x)", doms, "Interval.open(0, oo)",
                               "Implies(x <= y, log(x) < log(y))", _true)
    assert axiom.proof == ("increasing", "log(x) + exp(x)", "x", "Interval.open(0, oo)")
    assert dict(axiom.domains) == doms and dict(axiom.twin_domains) == doms
    assert axiom.arguments == ("a1", "e1", "a2", "e2") and axiom.instance is _true
    assert _same_statement(axiom.statement,
                           "Implies(x < y, log(x) + exp(x) < log(y) + exp(y))", doms)
    assert isinstance(explog.check_axiom(axiom), Proved)
    assert isinstance(explog.check_axiom(axiom, twin=True), Refuted)
    falling = explog._increasing("t.mono", "-log(x)", doms, "Interval.open(0, oo)", "x > 0",
                                 _true)
    assert isinstance(explog.check_axiom(falling), Refuted)


def test_factory_valley_defaults_to_the_valley_recipe() -> None:
    """``_valley`` (no ``kind``) is the "valley" recipe on ``big − small`` with its guard; the
    statement is ``big ≥ small`` and strict off ``c``: x² + 1 ≥ 2x (touching at 1) is Proved,
    and the same valley with the wrong touching point is not; ``kind="rising"`` is kept
    (x³ + 1 ≥ 1 for x ≥ 0, strict off 0: Proved)."""
    axiom = explog._valley("t.sq", "x**2 + 1", "2*x", "1", _RX, None, "Reals",
                           "x**2 + 1 > 2*x", _true)
    assert axiom.proof == ("valley", "(x**2 + 1) - (2*x)", "x", "Reals", "1", None)
    assert dict(axiom.domains) == _RX and dict(axiom.twin_domains) == _RX
    assert axiom.arguments == ("a", "e") and axiom.instance is _true
    assert _same_statement(axiom.statement,
                           "And(x**2 + 1 >= 2*x, Implies(Ne(x, 1), x**2 + 1 > 2*x))", _RX)
    assert isinstance(explog.check_axiom(axiom), Proved)
    assert isinstance(explog.check_axiom(axiom, twin=True), Refuted)
    moved = explog._valley("t.sq", "x**2 + 1", "2*x", "0", _RX, None, "Reals", "x > 0", _true)
    assert not isinstance(explog.check_axiom(moved), Proved)
    rising = explog._valley("t.cube", "x**3 + 1", "1", "0", _RX, "x >= 0", "Interval(0, oo)",
                            "x > 0", _true, kind="rising")
    assert rising.proof == ("rising", "(x**3 + 1) - (1)", "x", "Interval(0, oo)", "0", "x >= 0")
    assert _same_statement(rising.statement, "Implies(x >= 0, And(x**3 + 1 >= 1, "
                           "Implies(Ne(x, 0), x**3 + 1 > 1)))", _RX)
    assert isinstance(explog.check_axiom(rising), Proved)


def test_factory_identity_states_eq_and_is_proved() -> None:
    """``_identity(lhs, rhs)``: ``Eq(lhs, rhs)`` with the "identity" recipe, its own twin
    domains: log(xy) = log x + log y is Proved; log(x + y) = log x + log y is Refuted."""
    doms = {"x": "positive", "y": "positive"}
    axiom = explog._identity("t.mul", "log(x*y)", "log(x) + log(y)", doms,
                             "Eq(log(x + y), log(x) + log(y))", doms, ("l",), _true)
    assert axiom.proof == ("identity", "log(x*y)", "log(x) + log(y)")
    assert axiom.arguments == ("l",) and axiom.instance is _true
    assert dict(axiom.domains) == doms and dict(axiom.twin_domains) == doms
    assert _same_statement(axiom.statement, "Eq(log(x*y), log(x) + log(y))", doms)
    assert isinstance(explog.check_axiom(axiom), Proved)
    assert isinstance(explog.check_axiom(axiom, twin=True), Refuted)


def test_a_twin_the_grid_misses_is_undecided_saying_why() -> None:
    """A false twin no grid point refutes is Undecided, and the message says why: a twin has
    no proof recipe and no grid point refutes it (the reader's only clue). Its planted twin: a
    twin the grid does refute is Refuted, not Undecided."""
    hidden = explog.Axiom("t.hidden", "exp(x) > 0", _RX, ("positive", "exp(x)"),
                          "Implies(x > 30, exp(x) >= 10**30)", _RX, ("a", "e"), _true)
    verdict = explog.check_axiom(hidden, twin=True)
    assert isinstance(verdict, Undecided)
    assert verdict.detail.startswith("a false twin has no proof recipe")
    assert verdict.detail.endswith("no grid point refutes it")
    shown = explog.Axiom("t.shown", "exp(x) > 0", _RX, ("positive", "exp(x)"),
                         "exp(x) > 2", _RX, ("a", "e"), _true)
    assert isinstance(explog.check_axiom(shown, twin=True), Refuted)


# ==============================================================================================
# smt/explog.py — _recipe, called directly on cheap planted recipes
# ==============================================================================================
def test_rising_needs_the_next_derivative_positive_only_right_of_c() -> None:
    """"rising": g and its first derivatives vanish at c and the next one is positive on the
    OPEN right (c, ∞) — it may vanish at c itself. t⁵ on [0, ∞): g' = 5t⁴ is 0 at 0 but
    positive right of it, so it is confirmed at the first derivative and the reason names the
    variable, the point, g^(1) and the open interval. Twin: t⁵ − t⁴ (negative on (0, 1)) is
    not confirmed."""
    t = sp.Symbol("t")
    why = explog._recipe(("rising", "t**5", "t", "Interval(0, oo)", "0", "t >= 0"), {t: "real"})
    assert why is not None
    assert why.startswith("g = t**5 and its first 0 derivative(s) are 0 at t = 0")
    assert "and g^(1) = 5*" in why and "> 0 right of it" in why
    assert "integrating 1 time(s)" in why and why.endswith("g > 0 on Interval.open(0, oo)")
    assert explog._recipe(("rising", "t**5 - t**4", "t", "Interval(0, oo)", "0", "t >= 0"),
                          {t: "real"}) is None


def test_valley_needs_both_signs_of_the_derivative_exactly() -> None:
    """"valley": g(c) = 0, g' < 0 on exactly the part left of c and g' > 0 on exactly the
    part right of it. g = x² is confirmed (the reason names x = 0 and both sides); g' =
    x(x − 1)² (zero at 1, right of c) and g' = x(x + 1)² (zero at −1, left of c) are not:
    each side's set must be the whole side, not only one of them."""
    x = sp.Symbol("x")
    why = explog._recipe(("valley", "x**2", "x", "Reals", "0", None), {x: "real"})
    assert why is not None and why.startswith("g = x**2 is 0 at x = 0")
    assert "< 0 left of it" in why
    assert why.endswith("g >= 0, and g > 0 off 0")
    for g in ("x**4/4 - 2*x**3/3 + x**2/2",          # g' = x (x - 1)**2: right side broken
              "x**4/4 + 2*x**3/3 + x**2/2"):         # g' = x (x + 1)**2: left side broken
        assert sp.expand(sp.diff(sp.sympify(g), x)) in (sp.expand(x * (x - 1) ** 2),
                                                      sp.expand(x * (x + 1) ** 2))
        assert explog._recipe(("valley", g, "x", "Reals", "0", None), {x: "real"}) is None, g


def test_a_guard_is_cut_in_the_recipe_variable_only() -> None:
    """The interval of a guarded recipe is the declared domain cut by the guard solved FOR
    THE RECIPE'S VARIABLE: a guard in two variables (x ≥ y) is no interval of x, so the recipe
    is not confirmed (None, never an error); the same valley with the guard x ≥ 0 and the
    interval [0, ∞) is."""
    x, y = sp.Symbol("x"), sp.Symbol("y")
    doms = {x: "real", y: "real"}
    assert explog._recipe(("valley", "x**2", "x", "Interval(0, oo)", "0", "x >= y"),
                          doms) is None
    assert explog._recipe(("rising", "x**2", "x", "Interval(0, oo)", "0", "x >= y"),
                          doms) is None
    assert explog._recipe(("rising", "x**2", "x", "Interval(0, oo)", "0", "x >= 0"),
                          doms) is not None


def test_increasing_needs_a_derivative_positive_everywhere_not_only_nonnegative() -> None:
    """"increasing" means STRICTLY increasing: the recipe needs f' <= 0 nowhere on the
    interval. A constant f (f' = 0 everywhere) and f = x + |x| (f' = 0 on the negatives) are
    not confirmed (round 4's survivor: ``f' < 0`` nowhere accepted a flat f); log on the
    positives and x + exp(x) on the reals are."""
    x = sp.Symbol("x")
    for flat, dom, interval in (("5", "real", "Reals"), ("x - x + 1", "real", "Reals"),
                                ("x + Abs(x)", "real", "Reals"),
                                ("log(2)", "positive", "Interval.open(0, oo)")):
        assert explog._recipe(("increasing", flat, "x", interval), {x: dom}) is None, flat
    assert explog._recipe(("increasing", "log(x)", "x", "Interval.open(0, oo)"),
                          {x: "positive"}) is not None
    assert explog._recipe(("increasing", "x + exp(x)", "x", "Reals"), {x: "real"}) is not None


def test_an_unknown_recipe_is_an_error_naming_it() -> None:
    """A recipe kind the module does not know is an error whose message names it (never a
    silent None nor a proof); a known kind on the same arguments is no error."""
    x = sp.Symbol("x")
    with pytest.raises(ValueError, match=r"^unknown proof recipe 'bogus'$"):
        explog._recipe(("bogus", "x**2", "x", "Reals", "0", None), {x: "real"})
    assert explog._recipe(("valley", "x**2", "x", "Reals", "0", None), {x: "real"}) is not None


# ==============================================================================================
# smt/explog_terms.py
# ==============================================================================================
def test_approximately_reads_numerals_exactly() -> None:
    """A z3 rational numeral is read back exactly (numerator AND denominator), an integer as
    itself, an algebraic one to 30 digits: seeded random fractions; √2 and ∛5 from models."""
    from attnio.smt.explog_terms import _approximately
    rng = random.Random(3691)
    for _ in range(20):
        f = Fraction(rng.randint(-10 ** 6, 10 ** 6), rng.randint(1, 10 ** 6))
        assert _approximately(z3.RealVal(f)) == sp.Rational(f.numerator, f.denominator)
    assert _approximately(z3.IntVal(-7)) == -7
    for k, n in ((2, 2), (3, 5)):
        r = z3.Real("r")
        s = z3.Solver()
        s.add(r ** k == n, r > 0)
        assert s.check() == z3.sat
        value = _approximately(s.model()[r])
        assert value is not None and value.is_Rational and value.q > 1
        assert abs(value ** k - n) < sp.Rational(1, 10 ** 25), value
    assert _approximately(z3.Real("free")) is None


def _model(*facts: z3.BoolRef) -> z3.ModelRef:
    s = z3.Solver()
    s.add(*facts)
    assert s.check() == z3.sat
    return s.model()


def test_repaired_point_moves_each_symbol_to_the_real_function() -> None:
    """z3 gives exp(x) = E and log(y) = L: the repaired point puts x = log E and y = exp L
    (30 digits: exp/log of the new values are within 1e-25 of E and L, mpmath); an exp value
    ≤ 0 (no real x) is skipped WITHOUT stopping the other symbols; nothing movable → None."""
    from attnio.smt.sympy_to_z3 import Translator
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", positive=True)
    rng = random.Random(3692)
    mpmath.mp.dps = 40
    for _ in range(3):
        big_e = sp.Rational(rng.randint(1, 90), rng.randint(1, 9))
        big_l = sp.Rational(rng.randint(-40, 40), rng.randint(1, 9))
        t = Translator({x: "real", y: "positive"})
        ex, lg = t.expr(sp.exp(x)), t.expr(sp.log(y))
        model = _model(ex == z3.RealVal(str(big_e)), lg == z3.RealVal(str(big_l)),
                       t.var(x) == 0, t.var(y) == 1)
        moved = t.repaired_point(model, {x: sp.Integer(0), y: sp.Integer(1)})
        assert moved is not None
        got_e = mpmath.exp(mpmath.mpf(moved[x].p) / moved[x].q)
        got_l = mpmath.log(mpmath.mpf(moved[y].p) / moved[y].q)
        assert abs(got_e - mpmath.mpf(big_e.p) / big_e.q) < mpmath.mpf(10) ** -25 * (1 + big_e)
        assert abs(got_l - mpmath.mpf(big_l.p) / big_l.q) < mpmath.mpf(10) ** -25
    # exp(x) = -1 has no real x: x stays, y (registered after it) still moves
    t = Translator({x: "real", y: "positive"})
    ex, lg = t.expr(sp.exp(x)), t.expr(sp.log(y))
    model = _model(ex == -1, lg == 2, t.var(x) == 5, t.var(y) == 1)
    moved = t.repaired_point(model, {x: sp.Integer(5), y: sp.Integer(1)})
    assert moved is not None and moved[x] == 5
    assert abs(mpmath.log(mpmath.mpf(moved[y].p) / moved[y].q) - 2) < mpmath.mpf(10) ** -25
    # a term whose argument is no declared symbol (exp(x + 1), registered FIRST) is skipped,
    # and the scan goes on: x still moves; the point gets no key but the declared symbols
    t = Translator({x: "real"})
    shifted, ex = t.expr(sp.exp(x + 1)), t.expr(sp.exp(x))
    moved = t.repaired_point(_model(shifted == 7, ex == 3, t.var(x) == 5), {x: sp.Integer(5)})
    assert moved is not None and set(moved) == {x}
    assert abs(mpmath.exp(mpmath.mpf(moved[x].p) / moved[x].q) - 3) < mpmath.mpf(10) ** -25
    # a term whose model value is no number (a model that leaves it symbolic) is skipped and
    # the scan goes on: y (registered after x) still moves
    t = Translator({x: "real", y: "positive"})
    ex, lg = t.expr(sp.exp(x)), t.expr(sp.log(y))
    real_model = _model(ex == 3, lg == 2, t.var(x) == 5, t.var(y) == 1)

    class _Partial:                     # exp(x) evaluates to a free constant, the rest as is
        def eval(self, term, model_completion=False):
            if term.eq(ex):
                return z3.Real("unevaluated")
            return real_model.eval(term, model_completion=model_completion)

    moved = t.repaired_point(_Partial(), {x: sp.Integer(5), y: sp.Integer(1)})
    assert moved is not None and moved[x] == 5
    assert abs(mpmath.log(mpmath.mpf(moved[y].p) / moved[y].q) - 2) < mpmath.mpf(10) ** -25
    # the twins: only the unmovable exp(x) = -1, or only exp(x**2) → no repaired point
    t = Translator({x: "real"})
    ex = t.expr(sp.exp(x))
    assert t.repaired_point(_model(ex == -1, t.var(x) == 5), {x: sp.Integer(5)}) is None
    t = Translator({x: "real"})
    squared = t.expr(sp.exp(x ** 2))
    assert t.repaired_point(_model(squared == 7, t.var(x) == 5), {x: sp.Integer(5)}) is None


def test_every_exp_term_gets_its_unary_instances_at_its_own_argument(monkeypatch) -> None:
    """Each exp term's unary axioms — positive, sign, tangent at 0, Taylor 2, upper, and the
    tangent at 1 (with e = exp(1)) for every argument other than 1 — are instantiated at that
    term's own (argument, term); exp(1) needs no tangent at 1 (it is e·1 = e). Its twin: the
    log term gets none of exp's."""
    x = sp.Symbol("x", real=True)
    seen, t = recorded_axiom_instances(monkeypatch, sp.exp(2) + sp.exp(x) + sp.exp(sp.Rational(1, 3))
                                  + sp.log(x ** 2 + 1), {x: "real"})
    terms = {arg: app for (kind, arg), app in t._transcendental.items() if kind == "exp"}
    assert set(terms) >= {sp.Integer(2), x, sp.Rational(1, 3), sp.Integer(1)}
    e1 = terms[sp.Integer(1)]
    unary = ("explog.exp_positive", "explog.exp_sign", "explog.exp_tangent",
             "explog.exp_taylor2", "explog.exp_upper")
    for arg, app in terms.items():
        a = t.expr(arg)
        at_term = [aid for aid, ts in seen
                   if len(ts) >= 2 and ts[0].eq(a) and ts[1].eq(app)]
        for axiom_id in unary:
            assert at_term.count(axiom_id) == 1, (arg, axiom_id)
        tangent_one = [ts for aid, ts in seen if aid == "explog.exp_tangent_one"
                       and ts[1].eq(app)]
        if arg == 1:
            assert tangent_one == [], arg
        else:
            assert len(tangent_one) == 1 and tangent_one[0][0].eq(a) and \
                tangent_one[0][2].eq(e1), arg
    logs = [app for (kind, _), app in t._transcendental.items() if kind == "log"]
    assert logs and not any(aid in unary and any(tt.eq(logs[0]) for tt in ts
                                                 if isinstance(tt, z3.ExprRef))
                            for aid, ts in seen)


def test_an_exp_statement_is_anchored_at_its_constants() -> None:
    """A statement using exp gets exp anchored at its constants: x ≥ 3 ⇒ exp(x) ≥ 20 needs
    exp(3) > 20.08 (the tangents give only 8.5 at x = 3) and is Proved. Twin: the same with
    21 (false at x = 3) is Refuted."""
    from attnio.smt.kernel import prove_statement
    statement, declared = parse_statement("Implies(x >= 3, exp(x) >= 20)", dict(_RX))
    assert isinstance(prove_statement(statement, declared, timeout=10), Proved)
    twin, declared = parse_statement("Implies(x >= 3, exp(x) >= 21)", dict(_RX))
    assert isinstance(prove_statement(twin, declared, timeout=10), Refuted)


def _anchored(formula: sp.Basic, doms: dict) -> set:
    from attnio.smt.sympy_to_z3 import Translator
    t = Translator(doms)
    for rel in formula.atoms(sp.core.relational.Relational):
        t.expr(rel.lhs - rel.rhs)
    t.anchor(formula)
    return set(t._transcendental)


def test_every_power_written_through_exp_anchors_exp() -> None:
    """A power whose exponent is not a rational number — symbolic (x**y) or irrational
    (x**pi) — is translated as exp(y·log x), so the statement uses exp and gets
    exp at its constants (exp(3)); a rational exponent, even written unevaluated (x**(10**2)),
    is a polynomial and does not (twin), while its logarithm still anchors log(3)."""
    x = sp.Symbol("x", positive=True)
    y = sp.Symbol("y", real=True)
    doms = {x: "positive", y: "real"}
    for power in (x ** y, x ** sp.pi):
        keys = _anchored(sp.Implies(sp.log(x) >= 3, power >= 3), doms)
        assert ("exp", sp.Integer(3)) in keys, power
    for power in (x ** 2, x ** sp.Pow(10, 2, evaluate=False)):
        keys = _anchored(sp.Implies(sp.log(x) >= 3, power >= 3), doms)
        assert ("exp", sp.Integer(3)) not in keys and ("log", sp.Integer(3)) in keys, power


def test_pi_never_shares_a_variable_with_a_declared_symbol() -> None:
    """pi is a fresh real between certified bounds, distinct from every declared symbol —
    even one named ``const_pi``: Eq(const_pi, pi) is false (const_pi = 0) and is Refuted,
    never Proved; its twin, Eq(const_pi, const_pi) with pi around, is Proved."""
    from attnio.smt.kernel import prove_statement
    for name in ("const_pi", "pi_", "const_pi_"):
        statement, doms = parse_statement(f"Eq({name}, pi)", {name: "real"})
        verdict = prove_statement(statement, doms, timeout=10)
        assert isinstance(verdict, Refuted), (name, verdict)
        assert evaluate(statement, {s: sp.Rational(v) for s, v in zip(
            doms, verdict.counterexample.values())}) == "false"
    statement, doms = parse_statement("Eq(const_pi + pi, pi + const_pi)", {"const_pi": "real"})
    assert isinstance(prove_statement(statement, doms, timeout=10), Proved)


# ==============================================================================================
# smt/identities.py
# ==============================================================================================
def test_identical_sides_undefined_somewhere_are_not_proved_outright() -> None:
    """Two literally identical sides simplify to 0, but the identity holds only where they
    are defined: log x = log x over the reals is Proved only where x > 0 (never outright,
    never "sympy-canonical"); over the positives it is Proved outright."""
    from attnio.smt.identities import check_identity
    x = sp.Symbol("x", real=True)
    for side in (sp.log(x), 1 / x):
        verdict = check_identity(side, side, {x: "real"}, timeout=5)
        assert not (isinstance(verdict, Proved) and verdict.where_defined is None), verdict
        assert verdict.evidence is None or verdict.evidence.kind != "sympy-canonical"
    outright = check_identity(sp.log(x), sp.log(x), {x: "positive"}, timeout=5)
    assert isinstance(outright, Proved) and outright.where_defined is None


def test_grid_refutations_lie_in_the_declared_domains(monkeypatch) -> None:
    """Rule ``refuted-where-defined``: a grid point refutes only inside the declared domains.
    Every value of every domain's grid lies in its domain; and with a point outside planted
    in the table (0 among the positives, round 4's survivor), floor(√(r+1) − √r) = 0 — false
    at r = 0 only — is still not Refuted on the positives, while on the nonnegatives it is
    Refuted at r = 0 (the twin: a point inside its domain does refute)."""
    from attnio.smt import identities
    from attnio.smt.exact_eval import in_domain
    for dom, values in identities._GRID_VALUES.items():
        assert all(in_domain(sp.sympify(v), dom) is True for v in values), dom
    r = sp.Symbol("r", real=True)
    lhs = sp.floor(sp.sqrt(r + 1) - sp.sqrt(r))
    planted = dict(identities._GRID_VALUES, positive=(0, 1, 2))
    monkeypatch.setattr(identities, "_GRID_VALUES", planted)
    verdict = identities.check_identity(lhs, sp.Integer(0), {r: "positive"}, timeout=5)
    assert not isinstance(verdict, Refuted), verdict
    twin = identities.check_identity(lhs, sp.Integer(0), {r: "nonnegative"}, timeout=5)
    assert isinstance(twin, Refuted) and twin.counterexample["r"] == "0", twin


def test_second_solver_off_means_no_second_solver_anywhere(monkeypatch) -> None:
    """``second_solver=False`` runs z3 alone — the definedness check behind a sympy proof
    included (log(x²) = 2 log x on the positives: its sides need x > 0, x² > 0, proved by the
    kernel). Twin: an identity the kernel itself decides with second_solver=True does call
    the second solver (the recorder sees calls)."""
    from attnio.smt import kernel
    from attnio.smt.identities import check_identity
    calls: list[str] = []
    real = kernel.cvc5_check

    def record(smt2: str, timeout_s: float) -> str:
        calls.append(smt2)
        return real(smt2, timeout_s)

    monkeypatch.setattr(kernel, "cvc5_check", record)
    x = sp.Symbol("x", real=True)
    verdict = check_identity(sp.log(x ** 2), 2 * sp.log(x), {x: "positive"}, timeout=5,
                             second_solver=False)
    assert isinstance(verdict, Proved) and calls == []
    verdict = check_identity(sp.Max(x - 100, 0), sp.Integer(0), {x: "real"}, timeout=5,
                             second_solver=True)
    assert isinstance(verdict, Refuted) and len(calls) >= 1


# ==============================================================================================
# smt/obvious_points.py
# ==============================================================================================
def test_degree_bound_reads_the_tree() -> None:
    """``_degree_bound``: a symbol-free subterm (a number, log 2, |−3|) has degree 0, a
    symbol 1, a product the sum, a sum the max, an integer power the multiple, a non-integer
    power of a symbol or a function of one ∞. At seeded random monomials with constant
    factors the bound is EXACTLY Poly's degree (upper bound, and tight); twin: √x, x**y,
    log x are ∞."""
    from attnio.smt.obvious_points import _degree_bound
    x = sp.Symbol("x", real=True)
    y = sp.Symbol("y", real=True)
    rng = random.Random(3693)
    constants = [sp.log(2), sp.Abs(-3, evaluate=False), sp.Rational(2, 3), sp.pi,
                 sp.sqrt(2), sp.Integer(-5)]
    for _ in range(12):
        k = rng.randint(0, 4)
        factors = [x ** k if k != 1 else x] + rng.sample(constants, rng.randint(1, 3))
        term = sp.Mul(*factors, evaluate=False)
        assert _degree_bound(term) == sp.Poly(term, x, domain="EX").degree() == k, term
        other = sp.Mul(*rng.sample(constants, 2), evaluate=False)
        assert _degree_bound(sp.Add(term, other, evaluate=False)) == k, term
    for infinite in (sp.sqrt(x), x ** y, sp.log(x), x ** sp.Rational(3, 2) + 1,
                     sp.Mul(sp.sqrt(x), sp.sqrt(x), evaluate=False)):
        assert _degree_bound(infinite) == math.inf, infinite
    assert _degree_bound(sp.Pow(2, sp.Rational(1, 2), evaluate=False) * x ** 2) == 2


def test_obvious_points_sort_at_most_the_cap_of_combinations() -> None:
    """The values kept per symbol are cut so that at most _MAX_COMBINATIONS index
    combinations are sorted: with 16 symbols two values each would already be 2¹⁶ = 65 536 >
    50 000, so every symbol keeps one value (one point); with 15 symbols (32 768) two values
    each are kept and the points go beyond the first one."""
    from attnio.smt.obvious_points import _MAX_COMBINATIONS, obvious_points

    def kept_product(n: int) -> tuple[int, int]:
        syms = sp.symbols(f"v0:{n}", real=True)
        points = list(obvious_points([sp.Gt(sum(syms), 0)], {s: "real" for s in syms},
                                     limit=40))
        distinct = [len({p[s] for p in points}) for s in syms]
        return math.prod(distinct), len(points)

    product, count = kept_product(16)
    assert product <= _MAX_COMBINATIONS and count == 1
    product, count = kept_product(15)
    assert 1 < product <= _MAX_COMBINATIONS and count == 40


def test_a_limit_below_one_gives_no_point() -> None:
    """``limit`` is the most points yielded: 0 or a negative limit gives none (one symbol; and
    a limit of 0 for two). Twin: a limit of 1 gives exactly the simplest point."""
    from attnio.smt.obvious_points import obvious_points
    x, y = sp.symbols("x y", real=True)
    for limit in (0, -1, -2):
        assert list(obvious_points([x > 0], {x: "real"}, limit=limit)) == [], limit
    assert list(obvious_points([x > y], {x: "real", y: "real"}, limit=0)) == []
    assert list(obvious_points([x > 0], {x: "real"}, limit=1)) == [{x: 0}]


def test_valley_differentiates_in_the_recipe_variable() -> None:
    """The valley recipe differentiates g in ITS variable, on the declared domain: (x − 1)²
    on the positives (left of 1 is (0, 1), not (−∞, 1)) and (x − 1)²·(y² + 1), a real
    parameter y beside x, are confirmed; twin: (x − 1)²·(y² − 1) (y² − 1 may be negative)
    is not."""
    x, y = sp.Symbol("x"), sp.Symbol("y")
    assert explog._recipe(("valley", "(x - 1)**2", "x", "Interval.open(0, oo)", "1", None),
                          {x: "positive"}) is not None
    doms = {x: "real", y: "real"}
    assert explog._recipe(("valley", "(x - 1)**2*(y**2 + 1)", "x", "Reals", "1", None),
                          doms) is not None
    assert explog._recipe(("valley", "(x - 1)**2*(y**2 - 1)", "x", "Reals", "1", None),
                          doms) is None


def test_exp_anchors_reach_exactly_the_documented_size() -> None:
    """exp is anchored at a constant c of the statement with |c| ≤ _MAX_EXP_ANCHOR (1000
    included), not beyond (1001: the twin), and never at 0 or ±1."""
    from attnio.smt.explog_terms import _MAX_EXP_ANCHOR
    x = sp.Symbol("x", real=True)
    edge = sp.Integer(_MAX_EXP_ANCHOR)
    for c, anchored in ((edge, True), (-edge, True), (edge + 1, False), (-edge - 1, False)):
        keys = _anchored(sp.Gt(sp.exp(x), x + c), {x: "real"})
        assert (("exp", c) in keys) is anchored, c
    keys = _anchored(sp.And(sp.Gt(sp.exp(x), x + 1), sp.Gt(sp.exp(x), x - 1)), {x: "real"})
    assert not {("exp", sp.Integer(v)) for v in (0, -1)} & keys


def test_constant_logs_split_below_one_too() -> None:
    """log of a rational constant splits into primes whatever its size: for p/q < 1 as for
    p/q > 1, the instances ENTAIL log(p/q) = log p − log q (z3 proves it from them; seeded
    constants); twin: they do not entail log(p/q) = log p + log q."""
    from attnio.smt.sympy_to_z3 import Translator
    rng = random.Random(3694)
    for _ in range(2):
        q = rng.randint(3, 40)
        p = rng.randint(1, q - 1) if _ % 2 == 0 else rng.randint(q + 1, 4 * q)
        c = sp.Rational(p, q)
        if c.q == 1:
            continue
        t = Translator({})
        lg = t.expr(sp.log(c))
        lp, lq = t.expr(sp.log(sp.Integer(c.p))), t.expr(sp.log(sp.Integer(c.q)))
        for claim, entailed in ((lg == lp - lq, True), (lg == lp + lq, False)):
            s = z3.Solver()
            s.set("timeout", 5000)
            s.add(*t.side_conditions, z3.Not(claim))
            assert (s.check() == z3.unsat) is entailed, (c, claim)


def test_critical_expressions_are_differences_log_edges_once() -> None:
    """critical_expressions: each relation's lhs − rhs, each log argument f AND f − 1, the base
    of a root or negative power; each once, none without a symbol. Twin: lhs + rhs is not
    among them."""
    from attnio.smt.obvious_points import critical_expressions
    x = sp.Symbol("x", real=True)
    rng = random.Random(3695)
    for _ in range(4):
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        formulas = [sp.Gt(sp.log(x - a), 1 / x), sp.Lt(sp.log(x - a), b),
                    sp.Gt(sp.Integer(2), sp.Integer(1), evaluate=False), sp.Ge(x ** 2, b)]
        got = critical_expressions(formulas)
        assert len(got) == len(set(got)) and all(e.free_symbols for e in got), got
        for expected in (sp.log(x - a) - 1 / x, x - a, x - a - 1, x, sp.log(x - a) - b,
                         x ** 2 - b):
            assert expected in got, (expected, got)
        assert x ** 2 + b not in got


def test_values_for_tries_edges_with_their_neighbours_up_to_the_cap() -> None:
    """values_for: the small values first, then each rational edge r with r ± 1 and r ± 1/2
    (an irrational one with the integers around it), the far values; never more than
    _MAX_VALUES, none repeated."""
    from attnio.smt.obvious_points import _MAX_VALUES, values_for
    x = sp.Symbol("x", real=True)
    r = sp.Rational(7, 3)
    values = values_for(x, "real", [sp.Gt((x - r) * (x ** 2 - 50), 0)])
    assert values[:7] == [0, 1, -1, 2, -2, sp.Rational(1, 2), -sp.Rational(1, 2)]
    for v in (r, r + 1, r - 1, r + sp.Rational(1, 2), r - sp.Rational(1, 2)):
        assert v in values, v
    for root in (sp.sqrt(50), -sp.sqrt(50)):         # floor − 1 … floor + 2 around it
        f = math.floor(root)
        for v in (root, f - 1, f, f + 1, f + 2):
            assert v in values, (root, v)
    assert len(values) == len(set(values))
    many = [sp.Gt((x - sp.Rational(k, 7)) * (x + k), 0) for k in range(2, 9)]
    values = values_for(x, "real", many)
    assert len(values) == _MAX_VALUES == len(set(values))


def test_near_integer_points_floor_minus_one_to_plus_two() -> None:
    """near_integer_points: an integer-domain coordinate takes floor − 1 … floor + 2 of its
    relaxed value (seeded values), a real one stays as it is; twin: the real one never moves."""
    from attnio.smt.obvious_points import near_integer_points
    n, x = sp.Symbol("n", integer=True), sp.Symbol("x", real=True)
    rng = random.Random(3696)
    for _ in range(6):
        v, w = sp.Rational(rng.randint(-50, 50), rng.randint(1, 7)), sp.Rational(
            rng.randint(-50, 50), rng.randint(1, 7))
        points = list(near_integer_points({n: v, x: w}, {n: "integer", x: "real"}))
        f = math.floor(v)
        assert [p[n] for p in points] == [f - 1, f, f + 1, f + 2], v
        assert all(p[x] == w for p in points)


def test_log_of_exp_is_its_argument() -> None:
    """log(exp(x)) and exp(log(y)): the inverse-law instances are TRUE of the real functions
    at seeded points (sat when every term is boxed at its real value) and ENTAIL log(exp(x))
    = x; twin: they do not entail log(exp(x)) = x + 1."""
    from rule_evaluators import instances_hold_at

    from attnio.smt.sympy_to_z3 import Translator
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    log_exp = sp.log(sp.exp(x), evaluate=False)           # as written (sympy would cancel it)
    term = log_exp + sp.exp(sp.log(y ** 2 + 1, evaluate=False), evaluate=False)
    assert term.has(sp.log) and term.has(sp.exp)
    rng = random.Random(3697)
    for _ in range(2):
        point = {x: sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)),
                 y: sp.Rational(rng.randint(-9, 9), rng.randint(1, 4))}
        assert instances_hold_at(term, point) == z3.sat, point
    t = Translator({x: "real", y: "real"})
    lg = t.expr(log_exp)
    for claim, entailed in ((lg == t.var(x), True), (lg == t.var(x) + 1, False)):
        s = z3.Solver()
        s.set("timeout", 5000)
        s.add(*t.side_conditions, z3.Not(claim))
        assert (s.check() == z3.unsat) is entailed, claim


def test_obvious_witness_tries_at_most_limit_points() -> None:
    """obvious_witness looks at most at ``limit`` points (``tick`` once each): x > 50 has its
    witness (100) among the far values — found with the default limit, not with limit = 5,
    where tick runs exactly 5 times."""
    from attnio.smt.obvious_points import obvious_witness
    x = sp.Symbol("x", real=True)
    ticks: list[int] = []
    assert obvious_witness([x > 50], {x: "real"}, lambda: ticks.append(1), limit=5) is False
    assert len(ticks) == 5
    assert obvious_witness([x > 50], {x: "real"}) is True


def test_rising_looks_at_most_at_the_documented_derivative(monkeypatch) -> None:
    """"rising" looks at the derivatives up to order _MAX_RISING_ORDER + 1 and no further:
    exp(x) − 1 − x − x²/2 on [0, ∞) needs g'' = exp(x) − 1 (sympy cannot solve g' > 0), so
    with the highest order set to 0 it is not confirmed, and with 1 it is (the twin), at g^(2).
    """
    x = sp.Symbol("x")
    proof = ("rising", "exp(x) - 1 - x - x**2/2", "x", "Interval(0, oo)", "0", "x >= 0")
    monkeypatch.setattr(explog, "_MAX_RISING_ORDER", 0)
    assert explog._recipe(proof, {x: "real"}) is None
    monkeypatch.setattr(explog, "_MAX_RISING_ORDER", 1)
    why = explog._recipe(proof, {x: "real"})
    assert why is not None and "g^(2) = " in why
