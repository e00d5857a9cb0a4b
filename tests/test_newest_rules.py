"""The newest trusted modules, tested by rule (issue 36, after round 3 of the red team).

Each checker below lists its rules in its docstring's ``Side conditions`` section
(tests/test_side_conditions.py reads them and requires a twin per condition). A twin here,
``test_twin__<checker>__<condition>``, is a planted violation the checker must reject and,
where there is one, a PROPERTY against an independent evaluator at seeded random points:

* the exp/log axioms and the bridge's instances: sympy/mpmath at 30 digits
  (tests/rule_evaluators.py's :func:`instances_hold_at` boxes every application);
* the Coq printer and statements: the printed TEXT read back with Coq's precedences and total
  functions (tests/rule_evaluators.py's :class:`CoqText`) against the referee;
* the joint caps: brute force of Ψ_κ over every feasible integer point of small shapes;
* the exact worst ratio: a full scan of every M with exact fractions.

Every loop is seeded and small (each test well under a second of CPU); a mutant of a rule no
claim exercises is meant to fail here, not only the mutants the red team wrote.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from fractions import Fraction

import mpmath
import networkx as nx
import pytest
import sympy as sp
import z3
from rule_evaluators import (  # tests/ on sys.path: tests/conftest.py
    coq_text_violations,
    instances_hold_at,
)

from attnio.results import Proved, Refuted, Undecided
from attnio.smt import explog, z3tools

pytestmark = pytest.mark.trust



_X, _Y, _Z, _W = sp.symbols("x y z w", real=True)
mpmath.mp.dps = 30


def _q(rng: random.Random, lo: int = -12, hi: int = 12, den: int = 4) -> sp.Rational:
    return sp.Rational(rng.randint(lo, hi), rng.randint(1, den))


# ==============================================================================================
# smt/explog.py — check_axiom
# ==============================================================================================
def _axiom_sample(axiom_id: str, rng: random.Random) -> dict[str, object]:
    """Values of an axiom's arguments at a random point: each exp/log term the REAL function
    of its argument (mpmath, 30 digits); ``k`` an integer."""
    a, a2 = _q(rng), _q(rng)
    b, b2 = sp.Rational(rng.randint(1, 40), rng.randint(1, 8)), sp.Rational(rng.randint(1, 40),
                                                                          rng.randint(1, 8))
    E = mpmath.e
    ex, lg = mpmath.exp, mpmath.log
    k = rng.randint(-4, 4)
    r = _q(rng, -6, 6, 3)
    return {
        "a": a, "e": ex(mpmath.mpf(a.p) / a.q), "a1": a, "e1": ex(mpmath.mpf(a.p) / a.q),
        "a2": a2, "e2": ex(mpmath.mpf(a2.p) / a2.q), "E": E,
        "b": b, "g": lg(mpmath.mpf(b.p) / b.q), "b1": b, "l1": lg(mpmath.mpf(b.p) / b.q),
        "b2": b2, "l2": lg(mpmath.mpf(b2.p) / b2.q),
        "e12": ex(mpmath.mpf(a.p) / a.q + mpmath.mpf(a2.p) / a2.q),
        "l12": lg(mpmath.mpf(b.p) / b.q * mpmath.mpf(b2.p) / b2.q),
        "k": k, "ek": ex(k * mpmath.mpf(a.p) / a.q),
        "r": r, "lr": r.p * lg(mpmath.mpf(b.p) / b.q) / r.q,
    }


def _box(name: str, value: object, solver: z3.Solver) -> object:
    """An exact argument as a z3 numeral, a 30-digit one as a fresh real boxed within
    10⁻²⁵ (relative) of it; an integer ``k`` as a Python int (the instance branches on it)."""
    if name == "k":
        return value
    if isinstance(value, sp.Rational):
        return z3.RealVal(f"{value.p}/{value.q}")
    v = z3.Real(f"v_{name}")
    text = mpmath.nstr(value, 30, strip_zeros=False)
    centre = Fraction(sp.Rational(str(sp.Float(text, 30))))
    slack = Fraction(1, 10 ** 25) * (1 + abs(centre))
    solver.add(v >= z3.RealVal(centre - slack), v <= z3.RealVal(centre + slack))
    return v


def _instance_true(axiom: explog.Axiom, sample: dict[str, object],
                   instance=None) -> z3.CheckSatResult:
    solver = z3.Solver()
    if axiom.id == "explog.exp_scale":     # e is exp(a), ek exp(k a)
        sample = {**sample, "e": sample["e1"]}
    if axiom.id in ("explog.log_exp", "explog.exp_log"):     # b = exp(a): the laws bite
        a = sample["a"]
        sample = {**sample, "b": mpmath.exp(mpmath.mpf(a.p) / a.q), "g": mpmath.mpf(a.p) / a.q}
    if axiom.id == "explog.log_pow":       # lr = log(b**r) = r log b
        pass
    terms = [_box(name, sample[name], solver) for name in axiom.arguments]
    solver.add((instance or axiom.instance)(*terms))
    return solver.check()


def test_twin__check_axiom__instance_is_statement() -> None:
    """Every axiom's z3 instance — what the bridge adds — is satisfied by the real exp and
    log at seeded random points (30 digits); a planted instance that says more (the tangent
    at 0 shifted, a product law off by a factor, a sign flipped) is not."""
    rng = random.Random(3601)
    checked = 0
    for axiom in explog.AXIOMS:
        if not axiom.arguments:
            continue
        for _ in range(4):
            assert _instance_true(axiom, _axiom_sample(axiom.id, rng)) == z3.sat, axiom.id
            checked += 1
    assert checked >= 70
    by_id = explog.AXIOMS_BY_ID
    planted = {
        "explog.exp_tangent": lambda a, e: e >= 1 + a + a * a,
        "explog.exp_add": lambda e1, e2, e12: e12 == e1 * e2 + e1,
        "explog.log_mul": lambda b1, l1, b2, l2, l12: l12 == l1 - l2,
        "explog.log_sign": lambda b, g: z3.Implies(b > 1, g < 0),
        "explog.exp_scale": lambda e, k, ek: ek == _pow(e, k + 1),
        "explog.log_pow": lambda b, g, r, lr: lr == r * r * g,
    }
    for axiom_id, wrong in planted.items():
        found = [_instance_true(by_id[axiom_id], _axiom_sample(axiom_id, rng), wrong)
                 for _ in range(8)]
        assert z3.unsat in found, axiom_id


def _pow(e: z3.ArithRef, k: int) -> z3.ArithRef:
    return z3.RealVal(1) if k == 0 else (z3.Product([e] * k) if k > 0 else 1 / z3.Product(
        [e] * -k))


def test_twin__check_axiom__twin_refuted() -> None:
    """Each axiom's false twin is Refuted at a point where it is false (re-evaluated here);
    a planted false "axiom" with no point of the grid against it is never Proved."""
    from attnio.smt.exact_eval import evaluate
    from attnio.smt.statements import parse_statement

    for axiom in explog.AXIOMS:
        verdict = explog.check_axiom(axiom, twin=True)
        assert isinstance(verdict, Refuted), axiom.id
        statement, doms = parse_statement(axiom.twin, dict(axiom.twin_domains))
        point = {s: sp.Rational(verdict.counterexample[str(s)]) for s in doms}
        assert evaluate(statement, point) == "false", (axiom.id, point)
    hidden = dataclasses.replace(explog.AXIOMS_BY_ID["explog.exp_tangent"],
                                 twin="Implies(x > 30, exp(x) >= 10**30)")
    assert not isinstance(explog.check_axiom(hidden, twin=True), Proved)


def test_twin__check_axiom__recipe_required() -> None:
    """A proof recipe that does not hold — the touching point moved, the interval widened, a
    wrong value — leaves the axiom Undecided (or Refuted), never Proved."""
    by_id = explog.AXIOMS_BY_ID
    tangent = by_id["explog.exp_tangent"]
    plants = [
        dataclasses.replace(tangent, proof=tangent.proof[:4] + ("1",) + tangent.proof[5:]),
        dataclasses.replace(by_id["explog.exp_sign"],
                            proof=by_id["explog.exp_sign"].proof[:5] + ("2",)),
        dataclasses.replace(by_id["explog.log_taylor2"],
                            proof=("rising",) + by_id["explog.log_taylor2"].proof[1:3]
                            + ("Interval(0, oo)",) + by_id["explog.log_taylor2"].proof[4:]),
        dataclasses.replace(by_id["explog.exp_add"], proof=("identity", "exp(x + y)",
                                                            "exp(x)*exp(y) + 0*x + 1")),
    ]
    for plant in plants[:2]:
        assert not isinstance(explog.check_axiom(plant), Proved), plant.proof
    for plant in plants[2:]:
        assert explog._recipe(plant.proof, {sp.Symbol(k): v for k, v in plant.domains.items()}
                              ) is None, plant.proof
    # one honest axiom per recipe kind is Proved (a recipe that rejects everything is no
    # recipe), and a wrong instance of each kind is not confirmed (the recipe alone)
    for axiom_id in ("explog.exp_positive", "explog.exp_sign", "explog.exp_monotone",
                     "explog.exp_taylor2", "explog.exp_tangent", "explog.exp_add"):
        assert isinstance(explog.check_axiom(by_id[axiom_id]), Proved), axiom_id
    x, y = sp.Symbol("x"), sp.Symbol("y")
    real, real2 = {x: "real"}, {x: "real", y: "real"}
    wrong = [(("positive", "exp(x) - 1"), real),
             (("identity", "exp(x + y)", "2*exp(x)*exp(y)"), real2),
             (("increasing", "x**3 - x", "x", "Reals"), real),
             (("through", "exp(x)", "x", "Reals", "0", "2"), real),
             (("through", "exp(x)", "x", "Interval(0, oo)", "0", "1"), real),   # narrower
             (("rising", "exp(x) - 1 - x - x**2", "x", "Interval(0, oo)", "0", "x >= 0"), real),
             (("rising", "exp(x) - 1 - x - x**2/2", "x", "Interval(1, oo)", "1", "x >= 1"),
              real),                                         # g(1) != 0
             (("valley", "exp(x) - 1 - x", "x", "Reals", "1", None), real),
             (("valley", "x**2", "x", "Interval(0, oo)", "0", None), real)]        # narrower
    for proof, doms in wrong:
        assert explog._recipe(proof, doms) is None, proof


def test_twin__check_axiom__bounds_certified() -> None:
    """:func:`certified_bounds` brackets each constant strictly (mpmath at 50 digits) at
    seeded random exp/log/root constants."""
    rng = random.Random(3602)
    mpmath.mp.dps = 50
    try:
        constants = [sp.pi, sp.E, sp.exp(-40), sp.log(sp.Rational(10) ** 50)]
        for _ in range(4):
            q = sp.Rational(rng.randint(1, 99), rng.randint(1, 9))
            constants += [sp.exp(q), sp.exp(-q), sp.log(q), sp.sqrt(q)]
        for c in constants:
            bounds = explog.certified_bounds(c)
            if bounds is None:
                continue
            lo, hi = bounds
            value = mpmath.mpf(sp.N(c, 50))
            assert mpmath.mpf(lo.p) / lo.q < value < mpmath.mpf(hi.p) / hi.q, c
    finally:
        mpmath.mp.dps = 30


# ==============================================================================================
# smt/explog_terms.py — ExpLogTerms
# ==============================================================================================
def _points(rng: random.Random, symbols, count: int = 2) -> list[dict]:
    return [{s: _q(rng, -9, 9, 5) for s in symbols} for _ in range(count)]


def _all_hold(terms, seed: int) -> None:
    rng = random.Random(seed)
    for term in terms:
        for point in _points(rng, sorted(term.free_symbols, key=str)):
            assert instances_hold_at(term, point) == z3.sat, (term, point)


def test_twin__explogterms__unary_instances() -> None:
    """Each term alone (exp of a shifted variable, log of a square plus one) satisfies its
    unary instances with the real functions at random points."""
    _all_hold([sp.exp(_X), sp.exp(_X - 2), sp.log(_X ** 2 + 1), sp.log(_X ** 2 + _Y ** 2 + 3)],
              3603)
    # the instances are counted (the evidence reports them): one per fact added
    from attnio.smt.sympy_to_z3 import Translator
    counts = []
    for term in (sp.exp(_X), sp.exp(_X) + sp.exp(_Y), sp.exp(_X) + sp.exp(_Y) + sp.log(_Y ** 2 + 1)):
        t = Translator({_X: "real", _Y: "real"})
        t.expr(term)
        counts.append(t._axiom_instances)
    assert 5 <= counts[0] < counts[1] < counts[2], counts


def test_twin__explogterms__pairwise_instances() -> None:
    """exp and log terms together (monotone pairs both ways, log(exp) and exp(log)):
    satisfied by the real functions at random points."""
    _all_hold([sp.exp(_X) + sp.exp(_Y) + sp.log(_X ** 2 + 1),
               sp.log(sp.exp(_X) + 1) + sp.exp(sp.log(_Y ** 2 + 2))], 3604)


def _entailed(term: sp.Expr, claim) -> z3.CheckSatResult:
    """Do the bridge's instances for ``term`` entail ``claim(terms, translator)`` (``unsat``
    of its negation)? — the rule is APPLIED, not only true."""
    from attnio.smt.sympy_to_z3 import Translator
    t = Translator({s: "real" for s in term.free_symbols})
    t.expr(term)
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*t.side_conditions)
    solver.add(z3.Not(claim(t._transcendental, t)))
    return solver.check()


def test_twin__explogterms__exp_add_whole_rest() -> None:
    """exp of sums of 2–4 addends (constants among them): every split true of exp."""
    _all_hold([sp.exp(_X + _Y), sp.exp(_X + _Y + _Z), sp.exp(_X - _Y + _Z + _W),
               sp.exp(_X + 3), sp.exp(2 * _X + _Y - 1)], 3605)
    term = sp.exp(_X + _Y + _Z)
    first, *rest = term.args[0].args
    assert _entailed(term, lambda T, t: T["exp", term.args[0]] == T["exp", first] * T[
        "exp", sp.Add(*rest, evaluate=False)]) == z3.unsat


def test_twin__explogterms__exp_scale_coefficient() -> None:
    """exp(k·t) for every k in ±1…±4 and a fraction: tied to exp(t)**k truly."""
    _all_hold([sp.exp(k * _X) for k in (-4, -1, 3)]
              + [sp.exp(-2 * _X * _Y), sp.exp(_X / 3)], 3606)
    for k in (-4, -1, 2, 4):         # applied for every |k| up to 4 and k = −1
        assert _entailed(sp.exp(k * _X), lambda T, t, k=k: (
            T["exp", k * _X] * T["exp", _X] ** -k == 1 if k < 0
            else T["exp", k * _X] == T["exp", _X] ** k)) == z3.unsat, k


def test_twin__explogterms__log_mul_whole_rest() -> None:
    """log of products of 2–4 positive factors: every split true of log."""
    _all_hold([sp.log(2 * (_X ** 2 + 1)), sp.log((_X ** 2 + 1) * (_Y ** 2 + 2) * (_Z ** 2 + 3)),
               sp.log(5 * (_X ** 2 + 1) * (_Y ** 2 + 1) * (_W ** 2 + 2))], 3607)


def test_twin__explogterms__log_pow_even_magnitude() -> None:
    """log(f**k) for odd and even k, f of either sign: log(f**k) = k log|f| only for an
    even k — at points where f < 0 the even power's split must be the magnitude's."""
    _all_hold([sp.log(_X ** 2), sp.log(_X ** 4), sp.log((_X - 1) ** 2 * (_Y ** 2 + 1)),
               sp.log((_X ** 2 + 1) ** 3), sp.log((_X ** 2 + 2) ** sp.Rational(1, 2))], 3608)
    for k in (2, 4):                 # applied for an even power: log(x**k) = k log|x|
        assert _entailed(sp.log(_X ** k), lambda T, t, k=k: z3.Implies(
            t.var(_X) != 0, T["log", _X ** k] == k * T["log", sp.Abs(_X, evaluate=False)])
        ) == z3.unsat, k


def test_twin__explogterms__constant_log_split() -> None:
    """Logarithms of rational constants (composite, prime powers, p/q): every prime split
    true — at random constants."""
    rng = random.Random(3609)
    for _ in range(4):
        p, q = rng.randint(2, 600), rng.randint(1, 40)
        term = sp.log(sp.Rational(p, q)) + sp.log(sp.Integer(p * q)) + sp.log(_X ** 2 + 1)
        assert instances_hold_at(term, {_X: sp.Rational(1, 2)}) == z3.sat, (p, q)


def test_twin__explogterms__constant_bounds_around() -> None:
    """A constant term's bounds bracket its value: exp and log of random constants, alone
    (no variable), are satisfiable with their true values — a bound on the wrong side or
    swapped makes the box empty."""
    rng = random.Random(3610)
    for _ in range(6):
        c = sp.Rational(rng.randint(-30, 30), rng.randint(1, 7))
        term = sp.exp(c) + sp.log(abs(c) + 1) + _X
        assert instances_hold_at(term, {_X: 0}) == z3.sat, c


# ==============================================================================================
# smt/identities.py — check_identity
# ==============================================================================================
def _sides_agree_at_random(lhs, rhs, doms, rng, count: int = 12) -> bool:
    from attnio.smt.exact_eval import sign_of, value_at
    for _ in range(count):
        point = {}
        for s, dom in doms.items():
            v = _q(rng, -9, 9, 3) if "integer" not in dom else sp.Integer(rng.randint(-9, 9))
            if dom.startswith("positive"):
                v = abs(v) + (1 if "integer" in dom else sp.Rational(1, 7))
            elif dom.startswith("nonnegative"):
                v = abs(v)
            point[s] = v
        a, b = value_at(lhs, point), value_at(rhs, point)
        if a is None or b is None:
            continue
        if sign_of(a - b) not in (0, None):
            return False
    return True


def test_twin__check_identity__simplify_declared_only() -> None:
    """A symbol created positive but declared real: sqrt(x**2) = x is not Proved (false at
    x = −1); seeded identities that are false somewhere are never Proved."""
    from attnio.smt.identities import check_identity

    xp = sp.Symbol("x", positive=True)
    lhs = sp.Abs(xp, evaluate=False)            # |x| = x by the symbol's own flag only
    assert isinstance(check_identity(lhs, xp, {xp: "real"}, timeout=5), Refuted)
    assert isinstance(check_identity(lhs, xp, {xp: "positive"}), Proved)
    rng = random.Random(3611)
    n = sp.Symbol("n", integer=True)
    pool = [(sp.Abs(_X), _X), ((_X + 1) ** 2, _X ** 2 + 2 * _X + 1), (sp.sqrt(_X ** 2), _X),
            (sp.Max(_X, _Y), (_X + _Y + sp.Abs(_X - _Y)) / 2), (sp.floor(_X / 2), _X / 2),
            ((-1) ** n, 1), (sp.log(_X ** 2), 2 * sp.log(_X))]
    for lhs, rhs in pool:
        doms = {s: ("integer" if s == n else rng.choice(["real", "positive", "nonnegative"]))
                for s in (lhs - rhs).free_symbols}
        verdict = check_identity(lhs, rhs, doms, timeout=5)
        if isinstance(verdict, Proved) and verdict.where_defined is None:
            assert _sides_agree_at_random(lhs, rhs, doms, rng), (lhs, rhs, doms)


def test_twin__check_identity__simplify_where_defined() -> None:
    """x/x = 1 simplifies to 0 but is undefined at x = 0: never Proved outright."""
    from attnio.smt.identities import check_identity

    x_over_x = sp.Mul(_X, sp.Pow(_X, -1, evaluate=False), evaluate=False)
    verdict = check_identity(x_over_x, sp.Integer(1), {_X: "real"}, timeout=5)
    assert not (isinstance(verdict, Proved) and verdict.where_defined is None), verdict
    assert isinstance(check_identity(x_over_x, sp.Integer(1), {_X: "positive"}), Proved)


def test_twin__check_identity__refuted_where_defined() -> None:
    """No refutation at a grid point where a side is undefined or a hypothesis false; every
    refutation's point re-evaluates (exactly) to two different defined values."""
    from attnio.smt.exact_eval import sign_of, value_at
    from attnio.smt.identities import check_identity

    v = check_identity(sp.sqrt(_X - 4) ** 2, _X - 4, {_X: "real"}, timeout=5)
    assert not isinstance(v, Refuted), v
    v = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X >= 0], timeout=5)
    assert not isinstance(v, Refuted), v
    # a hypothesis UNDEFINED at a grid point (log of a negative) does not hold there either
    v = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[sp.log(_X) > -5], timeout=5)
    assert not isinstance(v, Refuted), v
    rng = random.Random(3612)
    for _ in range(6):
        c = rng.randint(1, 6)
        lhs, rhs = sp.Abs(_X - c), _X - c
        v = check_identity(lhs, rhs, {_X: "real"}, timeout=5)
        assert isinstance(v, Refuted)
        point = {_X: sp.Rational(v.counterexample["x"])}
        assert sign_of(value_at(lhs, point) - value_at(rhs, point)) != 0


def test_twin__check_identity__kernel_undecided_stays(monkeypatch) -> None:
    """Max(x − 100, 0) = 0 agrees on the whole grid; with the kernel undecided the identity
    is Undecided (not Proved), and the kernel itself refutes it."""
    from attnio.smt import identities

    lhs, rhs = sp.Max(_X - 100, 0), sp.Integer(0)
    assert isinstance(identities.check_identity(lhs, rhs, {_X: "real"}, timeout=5), Refuted)

    class _Stub:
        @staticmethod
        def prove_statement(*_a, **_k):
            return Undecided("planted: the solvers gave up")

    monkeypatch.setattr(identities, "_kernel", lambda: _Stub)
    assert isinstance(identities.check_identity(lhs, rhs, {_X: "real"}), Undecided)


# ==============================================================================================
# smt/obvious_points.py — obvious_witness
# ==============================================================================================
def test_twin__obvious_witness__every_formula_true() -> None:
    """A witness makes EVERY formula true (exact evaluation: undefined is not true); the
    answer agrees with a direct evaluation of each obvious point by the referee."""
    from attnio.smt.exact_eval import evaluate
    from attnio.smt.obvious_points import obvious_points, obvious_witness

    assert not obvious_witness([_X >= 0, _X <= 0, 1 / _X > 0], {_X: "real"})
    assert not obvious_witness([_X > 1, sp.log(-_X) < 5], {_X: "real"})
    rng = random.Random(3613)
    for _ in range(10):
        a, b = rng.randint(-3, 3), rng.randint(-3, 3)
        formulas = [_X + a * _Y > b, _X * _Y < a + b, rng.choice([_X > _Y, sp.Eq(_X, _Y + 1)])]
        doms = {_X: "real", _Y: rng.choice(["real", "integer"])}
        expected = any(all(evaluate(f, p) == "true" for f in formulas)
                       for p in obvious_points(formulas, doms))
        assert obvious_witness(formulas, doms) == expected, formulas


def test_twin__obvious_witness__points_in_domain() -> None:
    """Every value tried lies in its declared domain, once."""
    from attnio.smt.exact_eval import in_domain
    from attnio.smt.obvious_points import _MAX_VALUES, obvious_points, values_for

    formulas = [sp.log(_X - 3) + (_X - sp.Rational(1, 3)) ** 2 > 0, sp.sqrt(_X + 2) < 5]
    for dom in ("real", "positive", "nonnegative", "integer", "positive-integer",
                "nonnegative-integer"):
        values = values_for(_X, dom, formulas)
        assert values and len(values) == len(set(values)), dom
        assert len(values) <= _MAX_VALUES, dom
        crowded = values_for(_X, dom, [_X > c for c in (11, 23, 37, 51, 67, 89)])
        assert len(crowded) == _MAX_VALUES, (dom, crowded)
        assert all(in_domain(v, dom) is True for v in values), dom
        for point in obvious_points(formulas, {_X: dom, _Y: "positive"}, limit=60):
            assert in_domain(point[_X], dom) is True and point[_Y] > 0
    # at most ``limit`` points, distinct, and exactly ``limit`` where the lists allow it —
    # many symbols included (the product of the lists is cut, never to one value each)
    many = sp.symbols("a0:10", real=True)
    for syms, limit in ((many, 100), (many[:8], 100), (many[:2], 60), (many[:3], 512)):
        points = list(obvious_points([sum(many) > 0], {s: "real" for s in syms}, limit=limit))
        assert len(points) == limit, (len(syms), limit)
        assert len({tuple(sorted(p.items(), key=str)) for p in points}) == limit


def test_twin__obvious_witness__edges_tried() -> None:
    """A statement true only on (r, r + 1) between two random integer roots, or only at a
    random rational root, has an obvious witness (the edge and the half-points near it)."""
    from attnio.smt.obvious_points import obvious_witness

    rng = random.Random(3614)
    for _ in range(8):
        r = rng.randint(-40, 40)
        assert obvious_witness([(_X - r) * (_X - r - 1) < 0], {_X: "real"}), r
        p, q = rng.randint(-30, 30), rng.randint(2, 5)
        assert obvious_witness([sp.Eq(q * _X - p, 0)], {_X: "real"}), (p, q)
    # the values near an edge, exactly: the root, ±1 and ±1/2 (a rational root); floor − 1 …
    # floor + 2 of an irrational one for an integer symbol; quartics and scaled ones included
    from attnio.smt.obvious_points import values_for
    n = sp.Symbol("n", integer=True)
    assert {999, 1000, 1001, 1002} <= set(values_for(n, "integer", [n ** 2 > 1000001]))
    assert {999, 1000, 1001, 1002} <= set(values_for(n, "integer", [2 * n > 2001]))
    assert {1000, 999, 1001, sp.Rational(1999, 2), sp.Rational(2001, 2)} <= set(
        values_for(_X, "real", [_X > 1000]))
    assert {37, 38, 36} <= set(values_for(_X, "real", [2 * _X ** 4 > 2 * 37 ** 4]))


# ==============================================================================================
# smt/coq.py — render_statement
# ==============================================================================================
def _random_real_term(rng: random.Random, depth: int) -> str:
    if depth == 0:
        return rng.choice(["x", "y", "1", "2", "3", "1/2", "(-1)"])
    op = rng.choice(["+", "-", "*", "/", "neg", "pow"])
    a, b = _random_real_term(rng, depth - 1), _random_real_term(rng, depth - 1)
    if op == "neg":
        return f"(-({a}))"
    if op == "pow":
        return f"(({a})**{rng.randint(2, 3)})"
    if op == "/":
        return f"(({a})/(({b})**2 + 1))"
    return f"(({a}) {op} ({b}))"


def test_twin__render_statement__precedence() -> None:
    """Random nested +, −, ·, /, negation and powers: the printed text, read back with Coq's
    levels, holds exactly where the referee says the statement is not false."""
    rng = random.Random(3615)
    for _ in range(8):
        text = f"{_random_real_term(rng, 2)} {rng.choice(['<=', '<', '>='])} " \
               f"{_random_real_term(rng, 2)}"
        assert coq_text_violations(text, {"x": "real", "y": "real"}) == [], text
    assert coq_text_violations("x/(2*y) - x/2*y >= x - (y - x)", {"x": "positive",
                                                                   "y": "positive"}) == []


def test_twin__render_statement__integer_scope() -> None:
    """Random integer polynomials (negations, differences, powers) printed in Z, and an
    integer inside a real term (IZR): read back, they agree with the referee."""
    rng = random.Random(3616)
    for _ in range(6):
        c = [rng.randint(-3, 3) for _ in range(4)]
        text = (f"{c[0]}*n**2 - ({c[1]})*n*m - m**3 <= -({c[2]})*m + {c[3]} - n"
                if rng.random() < 0.5 else f"-n**3 + {c[0]}*m >= {c[1]}*(n - m)**2")
        assert coq_text_violations(text, {"n": "integer", "m": "integer"}) == [], text
    assert coq_text_violations("n/2 + x >= n*x", {"n": "integer", "x": "real"}) == []


@pytest.mark.parametrize("domain", ["real", "nonnegative", "positive"])
def test_twin__render_statement__rational_powers(domain: str) -> None:
    """x**(p/q) for random p/q (roots, reciprocal roots, powers of roots) on each domain:
    the printed power equals sympy's where defined, at every grid point."""
    rng = random.Random(hash(domain) % 1000 + 3617)
    for p, q in [(1, 2), (-1, 2), (3, 2), (2, 3)] + [(rng.choice([-3, -1, 1, 3, 5]), 2)
                                                      for _ in range(2)]:
        text = f"x**({p}/{q}) + x >= 1"
        try:
            assert coq_text_violations(text, {"x": domain}) == [], text
        except Exception as e:  # outside the fragment: nothing printed, nothing claimed
            assert type(e).__name__ == "TranslationError", e


def test_twin__render_statement__planner_atoms() -> None:
    """With √x an atom of the proof planner, x**(p/2) prints
    as that atom's power or reciprocal; a root of a base not declared positive is refused."""
    from attnio.exceptions import TranslationError
    from attnio.smt.coq import CoqContext, render_term, term

    x = sp.Symbol("x", positive=True)
    ctx = CoqContext({x: "x"}, {x: "positive"}, {sp.sqrt(x): "s"})
    assert render_term(term(x ** sp.Rational(3, 2), ctx)) == "s ^ 3"
    assert render_term(term(x ** sp.Rational(-1, 2), ctx)) == "1 / s"
    assert render_term(term(x ** sp.Rational(-3, 2), ctx)) == "1 / s ^ 3"
    r = sp.Symbol("r", real=True)
    with pytest.raises(TranslationError):
        term(r ** sp.Rational(1, 3), CoqContext({r: "r"}, {r: "real"}))


def test_twin__render_statement__functions() -> None:
    """log, exp, Abs, Min, Max, floor, ceiling, Piecewise at random arguments, read back as
    Coq's functions: agree with the referee at every grid point."""
    rng = random.Random(3618)
    c = [rng.randint(-2, 2) for _ in range(6)]
    for text in [f"log(x + {abs(c[0]) + 1}) <= x", f"exp(x - {c[1]}) >= x",
                 f"Abs(x - {c[2]}) + Min(x, {c[3]}) <= Max(x, y)",
                 f"floor(x/2) - ceiling(x - {c[4]}) <= y",
                 f"Piecewise((x, x < {c[5]}), (-x, True)) <= y", "tan(x/4) >= x/5"]:
        assert coq_text_violations(text, {"x": "real", "y": "real"}) == [], text


def test_twin__render_statement__connectives() -> None:
    """And, Or, Not, Implies of random relations, nested: read back with Coq's levels (/\\
    over \\/, -> right-associative, ~ binding tighter)."""
    rng = random.Random(3619)
    rel = lambda: f"{rng.choice(['x', 'y', 'x - y'])} {rng.choice(['<', '<=', '>'])} " \
                  f"{rng.randint(-1, 1)}"     # noqa: E731
    for _ in range(6):
        text = rng.choice([f"Implies(And({rel()}, Not({rel()})), Or({rel()}, {rel()}))",
                           f"Or(And({rel()}, {rel()}), Not(Implies({rel()}, {rel()})))",
                           f"Implies({rel()}, Implies({rel()}, {rel()}))"])
        assert coq_text_violations(text, {"x": "real", "y": "real"}) == [], text


# ==============================================================================================
# smt/coq_statements.py — coq_statement
# ==============================================================================================
@pytest.mark.parametrize("domain", ["real", "positive", "nonnegative", "integer",
                                    "positive-integer", "nonnegative-integer"])
def test_twin__coq_statement__domain_facts(domain: str) -> None:
    """Each declared domain's binder facts: the theorem holds outside the domain (vacuously)
    and exactly where the statement does inside — a narrower or wider fact breaks it."""
    for text in ("x >= 1", "x > 0", "x >= 0", "x <= -1", "x >= 2"):
        assert coq_text_violations(text, {"x": domain}) == [], (text, domain)


def test_twin__coq_statement__division_defined() -> None:
    """1/e needs e ≠ 0: random denominators, the theorem holds where they vanish."""
    rng = random.Random(3620)
    for _ in range(4):
        c = rng.randint(-2, 3)
        assert coq_text_violations(f"1/(x - {c}) > 1/(y**2 + 1) - 5", {"x": "real",
                                                                       "y": "real"}) == []
        assert coq_text_violations(f"(x - {c})**(-2) >= 100", {"x": "real"}) == []


def test_twin__coq_statement__root_defined() -> None:
    """sqrt(e) needs e ≥ 0 (zero included), a negative rational power e > 0, a variable
    exponent a positive base."""
    rng = random.Random(3621)
    for _ in range(3):
        c = rng.randint(-2, 2)
        for text in (f"sqrt(x - {c}) >= 1/2", f"(x - {c})**(-1/2) <= 1", f"(x-{c})**(3/2) <= x"):
            assert coq_text_violations(text, {"x": "real", "y": "real"}) == [], text
    # a variable exponent: the base must be positive (notes/claims.md). Not read back at
    # the grid: the referee evaluates (-2)**y at y = -1 after substituting y (see the report).
    from attnio.smt.coq import render_statement
    from attnio.smt.coq_statements import coq_statement
    text = render_statement(coq_statement("t", (_X - 1) ** _Y >= 0, (), {_X: "real",
                                                                         _Y: "real"}))
    assert "0 < x - 1 ->" in text, text


def test_twin__coq_statement__log_defined() -> None:
    """log a needs a > 0: not a > 1, not a ≥ 0 — random arguments crossing 0 and 1."""
    rng = random.Random(3622)
    for _ in range(3):
        c = sp.Rational(rng.randint(-4, 4), 2)
        assert coq_text_violations(f"log(x - {c}) > 0", {"x": "real"}) == [], c
        assert coq_text_violations(f"log(x - {c}) < -1", {"x": "real"}) == [], c


def test_twin__coq_statement__implication_peeled() -> None:
    """Implies(A, B): B need be defined only where A holds — and A must be defined."""
    for text in ("Implies(x > 1, log(x - 1) > -3)", "Implies(x >= 0, sqrt(x) >= x)",
                 "Implies(log(x) > 0, 1/(x - 2) > 0)", "Implies(x > 0, Implies(y > 0, x/y > 0))"):
        assert coq_text_violations(text, {"x": "real", "y": "real"}) == [], text


def test_twin__coq_statement__hypotheses_premises() -> None:
    """Hypotheses are premises with their definedness: the theorem holds exactly where
    Implies(And(hypotheses), goal) is not false."""
    from rule_evaluators import COQ_REALS, coq_theorem_holds_at

    from attnio.smt.coq import render_statement
    from attnio.smt.coq_statements import coq_statement
    from attnio.smt.exact_eval import evaluate
    cases = [([_X > 1], _X ** 2 > 2), ([sp.log(_X) > 0, _Y > 0], _X * _Y > 0),
             ([_X >= _Y], sp.sqrt(_X - _Y) <= _X + 1)]
    for hyps, goal in cases:
        st = coq_statement("t", goal, hyps, {_X: "real", _Y: "real"})
        text = render_statement(st)
        syms = sorted(st.domains, key=str)
        for values in itertools.product(COQ_REALS, repeat=len(syms)):
            point = dict(zip(syms, values))
            truth = evaluate(sp.Implies(sp.And(*hyps), goal), point)
            if truth == "unknown":
                continue
            holds = coq_theorem_holds_at(text, {st.names[s]: v for s, v in point.items()})
            assert holds == (truth != "false"), (hyps, goal, point, text)


# ==============================================================================================
# smt/coqc.py — accepted
# ==============================================================================================
_OK_PROOF = "Theorem t : 1 = 1.\nProof. reflexivity. Qed.\nPrint Assumptions t.\n"
_CLOSED = "Closed under the global context\n"


def _accept(text: str, run) -> bool:
    from attnio.smt.coqc import accepted
    return accepted(text, run, ["t"])[0]


def test_twin__accepted__in_time() -> None:
    from attnio.smt.coqc import PREAMBLE, CoqRun
    assert _accept(PREAMBLE + _OK_PROOF, CoqRun(0, _CLOSED, "", 1.0))
    assert not _accept(PREAMBLE + _OK_PROOF, CoqRun(None, _CLOSED, "", 9.0))


def test_twin__accepted__exit_zero() -> None:
    from attnio.smt.coqc import PREAMBLE, CoqRun
    for code in (1, 2, -9, 124):
        assert not _accept(PREAMBLE + _OK_PROOF, CoqRun(code, _CLOSED, "Error: x", 1.0)), code


@pytest.mark.parametrize("word", ["Admitted", "admit", "Axiom", "Parameter", "Hypothesis",
                                  "Variable", "Conjecture", "Context", "Unset", "Set", "Load",
                                  "Fail", "give_up", "Require", "Import", "Add"])
def test_twin__accepted__no_forbidden_word(word: str) -> None:
    """Each forbidden word, after the preamble, before it, or after a nested comment closes,
    rejects the file; inside a (nested) comment it does not."""
    from attnio.smt.coqc import PREAMBLE, CoqRun
    run = CoqRun(0, _CLOSED, "", 1.0)
    for text in (PREAMBLE + f"{word} foo.\n" + _OK_PROOF,
                 f"{word} foo.\n" + PREAMBLE + _OK_PROOF,
                 PREAMBLE + f"(* a (* nested *) comment *) {word} foo.\n" + _OK_PROOF,
                 PREAMBLE + _OK_PROOF + f"{word}."):
        assert not _accept(text, run), text
    assert _accept(PREAMBLE + f"(* a (* {word} *) *)\n" + _OK_PROOF, run)


def test_twin__accepted__report_per_theorem() -> None:
    """Every theorem named needs its own report: a missing second report rejects."""
    from attnio.smt.coqc import PREAMBLE, CoqRun, accepted
    text = PREAMBLE + _OK_PROOF + "Theorem u : 2 = 2.\nProof. reflexivity. Qed.\n"
    assert accepted(text, CoqRun(0, _CLOSED * 2, "", 1.0), ["t", "u"])[0]
    assert not accepted(text, CoqRun(0, _CLOSED, "", 1.0), ["t", "u"])[0]
    assert not accepted(text, CoqRun(0, "", "", 1.0), ["t"])[0]


def test_twin__accepted__only_allowed_axioms() -> None:
    """An axiom outside the three of the reals — in the first or the second theorem's
    report, alone or among allowed ones — rejects."""
    from attnio.smt.coqc import ALLOWED_AXIOMS, PREAMBLE, CoqRun, accepted
    text = PREAMBLE + _OK_PROOF
    allowed = "".join(f"{a} : P\n" for a in sorted(ALLOWED_AXIOMS))
    assert accepted(text, CoqRun(0, "Axioms:\n" + allowed, "", 1.0), ["t"])[0]
    for extra in ("Classical_Prop.classic : forall P, P \\/ ~ P", "cheat : False",
                  "sig_not_dec : P", "ClassicalDedekindReals.sig_not_dec2 : P"):
        out = "Axioms:\n" + allowed + extra + "\n"
        assert not accepted(text, CoqRun(0, out, "", 1.0), ["t"])[0], extra
        out2 = _CLOSED + "Axioms:\n" + extra + "\n"
        assert not accepted(text, CoqRun(0, out2, "", 1.0), ["t", "u"])[0], extra


# ==============================================================================================
# bounds/joint.py — joint_search
# ==============================================================================================
def _psi(d, nf, k, kappa, s, z, w, u) -> float:
    return (kappa[0] * s * s / (4 * d * kappa[1]) + u * s / nf
            + min(s / 2 * math.sqrt(z), (d - 1) * z) + min(math.sqrt(u * s * w), k * w))


def _shapes(rng: random.Random, count: int):
    for _ in range(count):
        yield (rng.randint(1, 5), rng.randint(1, 6), rng.randint(0, 6),
               rng.choice([(1, 1), (5, 4), (3, 2)]), rng.randint(1, 4), rng.randint(0, 5))


def _brute_max(d, nf, k, kappa, S, T) -> float:
    return max(_psi(d, nf, k, kappa, s, z, w, u) for s in range(S + 1)
               for z in range(T - s + 1) for w in range(T - s - z + 1)
               for u in range(min(z, S - s) + 1))


def test_twin__joint_search__cell_bound_above() -> None:
    """joint_cell_bound ≥ Ψ at EVERY feasible integer (σ, z, w, u) of random cells (brute
    force, floats with 10⁻⁹ slack); a cell holding no feasible point may be 0."""
    from attnio.bounds.joint import joint_cell_bound
    rng = random.Random(3623)
    for d, nf, k, kappa, M, L in _shapes(rng, 12):
        S, T = M + L, 2 * M + L
        for _ in range(6):
            s0, s1 = sorted(rng.randint(0, S) for _ in range(2))
            z0, z1 = sorted(rng.randint(0, T) for _ in range(2))
            bound = joint_cell_bound(d, nf, k, kappa, S, T, s0, s1, z0, z1)
            for s in range(s0, s1 + 1):
                for z in range(z0, min(z1, T - s) + 1):
                    for w in range(T - s - z + 1):
                        for u in range(min(z, S - s) + 1):
                            psi = _psi(d, nf, k, kappa, s, z, w, u)
                            assert bound >= psi - 1e-9, (d, nf, k, kappa, S, T, s, z, w, u)


def test_twin__joint_search__point_value_below() -> None:
    """joint_point_value ≤ Ψ at its own feasible point, at random points."""
    from attnio.bounds.joint import joint_point_value
    rng = random.Random(3624)
    for d, nf, k, kappa, M, L in _shapes(rng, 30):
        S, T = M + L, 2 * M + L
        s = rng.randint(0, S)
        z = rng.randint(0, T - s)
        value = joint_point_value(d, nf, k, kappa, S, T, s, z)
        assert value <= _psi(d, nf, k, kappa, s, z, T - s - z, min(z, S - s)) + 1e-9


def test_twin__joint_search__cap_above_maximum() -> None:
    """The cap ≥ max Ψ over every feasible point (brute force), and its certificate passes;
    a cap one below a leaf's bound is rejected by the certificate check."""
    from attnio.bounds.joint import joint_search
    from attnio.proofs.joint_routes import _certificate_problem
    rng = random.Random(3625)
    for d, nf, k, kappa, M, L in _shapes(rng, 10):
        S, T = M + L, 2 * M + L
        search = joint_search(d, M, L, nf, k, kappa)
        assert search.cap >= _brute_max(d, nf, k, kappa, S, T) - 1e-9, (d, nf, k, kappa, M, L)
        assert _certificate_problem(d, M, L, nf, k, kappa, search.cap) is None


def test_twin__joint_search__interval_cap_covers() -> None:
    """joint_interval_cap ≥ joint_segment_cap at every M of random intervals."""
    from attnio.bounds.joint import joint_interval_cap, joint_segment_cap
    rng = random.Random(3626)
    for _ in range(10):
        d, nf, k = rng.randint(1, 16), rng.randint(1, 64), rng.randint(0, 64)
        kappa = rng.choice([(1, 1), (5, 4)])
        a = rng.randint(1, 60)
        b, t = a + rng.randint(0, 12), rng.randint(1, 4)
        cap = joint_interval_cap(d, a, b, t, nf, k, kappa)
        for M in range(a, b + 1):
            assert joint_segment_cap(d, M, t * M, nf, k, kappa) <= cap, (d, a, b, t, M)


def test_twin__joint_search__estimate_below() -> None:
    """joint_estimate ≤ max Ψ (brute force); the forward cap is at most the cube cap."""
    from attnio.bounds.joint import cube_segment_cap, joint_cap, joint_estimate
    rng = random.Random(3627)
    for d, nf, k, kappa, M, L in _shapes(rng, 10):
        S, T = M + L, 2 * M + L
        assert joint_estimate(d, M, L, nf, k, kappa) <= _brute_max(d, nf, k, kappa, S, T) + 1e-9
    for _ in range(10):
        n, d = rng.randint(1, 64), rng.randint(1, 32)
        M, L = rng.randint(1, 200), rng.randint(1, 400)
        assert joint_cap("forward", n, d)(d, M, L) <= cube_segment_cap(d, M, L, min(n, d))
        assert joint_cap("forward", n, d).estimate(d, M, L) <= joint_cap("forward", n, d)(
            d, M, L)


# ==============================================================================================
# proofs/joint_routes.py — _certificate_problem
# ==============================================================================================
def _planted(monkeypatch, search) -> None:
    from attnio.proofs import joint_routes
    monkeypatch.setattr(joint_routes, "joint_search", lambda *a, **k: search)


_ARGS = (4, 6, 10, 8, 7, (1, 1))      # d, M, L, n_full, k_grad, κ


def _honest():
    from attnio.bounds.joint import joint_search
    d, M, L, nf, k, kappa = _ARGS
    return joint_search(d, M, L, nf, k, kappa)


def _problem(cap: int) -> str | None:
    from attnio.proofs.joint_routes import _certificate_problem
    return _certificate_problem(*_ARGS, cap)


def test_twin___certificate_problem__initial_tiles(monkeypatch) -> None:
    """Initial cells overlapping, or not a full grid, are rejected."""
    honest = _honest()
    assert _problem(honest.cap) is None
    cells = list(honest.initial)
    a, b, c, e = cells[0]
    overlap = [(a, b + 1, c, e)] + cells[1:]
    _planted(monkeypatch, dataclasses.replace(honest, initial=tuple(overlap),
                                              leaves=tuple(overlap), splits=()))
    assert _problem(10 ** 9) is not None
    not_grid = cells[:-1]
    _planted(monkeypatch, dataclasses.replace(honest, initial=tuple(not_grid),
                                              leaves=tuple(not_grid), splits=()))
    assert _problem(10 ** 9) is not None


def test_twin___certificate_problem__splits_tile(monkeypatch) -> None:
    """A split whose children miss a quarter, or of a cell that is no leaf, is rejected."""
    honest = _honest()
    if not honest.splits:
        pytest.skip("no split at this shape")
    parent, children = honest.splits[0]
    short = ((parent, children[:-1]),) + honest.splits[1:]
    _planted(monkeypatch, dataclasses.replace(honest, splits=short))
    assert _problem(10 ** 9) is not None
    twice = honest.splits + (honest.splits[0],)
    _planted(monkeypatch, dataclasses.replace(honest, splits=twice))
    assert _problem(10 ** 9) is not None


def test_twin___certificate_problem__leaves_match(monkeypatch) -> None:
    """Leaves missing the one with the largest bound (which would lower the cap) are
    rejected."""
    from attnio.bounds.joint import joint_cell_bound
    d, M, L, nf, k, kappa = _ARGS
    honest = _honest()
    S, T = M + L, 2 * M + L
    top = max(honest.leaves, key=lambda c: joint_cell_bound(d, nf, k, kappa, S, T, *c))
    _planted(monkeypatch, dataclasses.replace(
        honest, leaves=tuple(c for c in honest.leaves if c != top)))
    assert _problem(honest.cap) is not None


def test_twin___certificate_problem__leaf_bound_recomputed() -> None:
    """A cap one below the largest leaf's (recomputed) bound is rejected; at random shapes
    the honest cap passes and cap − 1 fails wherever a leaf attains it."""
    from attnio.bounds.joint import joint_cell_bound, joint_search
    from attnio.proofs.joint_routes import _certificate_problem
    rng = random.Random(3628)
    for d, nf, k, kappa, M, L in _shapes(rng, 8):
        search = joint_search(d, M, L, nf, k, kappa)
        S, T = M + L, 2 * M + L
        top = max(joint_cell_bound(d, nf, k, kappa, S, T, *c) for c in search.leaves)
        assert _certificate_problem(d, M, L, nf, k, kappa, search.cap) is None
        if top == search.cap:
            assert _certificate_problem(d, M, L, nf, k, kappa, search.cap - 1) is not None


def test_twin___certificate_problem__psi_exact() -> None:
    """psi_at_most(cap) ⇔ cap ≥ Ψ (mpmath, 30 digits) at random points, for caps at
    ⌊Ψ⌋ and ⌈Ψ⌉ — both branches of each min, every sign of the remainder."""
    from attnio.proofs.joint_routes import psi_at_most
    rng = random.Random(3629)
    seen = 0
    for _ in range(300):
        d, nf, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 9)
        kappa = rng.choice([(1, 1), (5, 4), (3, 2)])
        S = rng.randint(1, 30)
        T = S + rng.randint(0, 30)
        s, z = rng.randint(0, S), 0
        z = rng.randint(0, T - s)
        w, u = T - s - z, min(z, S - s)
        mp = mpmath.mpf
        psi = (mp(kappa[0]) * s * s / (4 * d * kappa[1]) + mp(u) * s / nf
               + min(mp(s) / 2 * mpmath.sqrt(z), mp(d - 1) * z)
               + min(mpmath.sqrt(mp(u) * s * w), mp(k) * w))
        for cap in {int(mpmath.floor(psi)), int(mpmath.ceil(psi)), int(mpmath.floor(psi)) - 1}:
            if abs(psi - cap) < mp(10) ** -20:
                continue               # an exact tie: the 30-digit value cannot tell
            assert psi_at_most(cap, d, nf, k, kappa, S, T, s, z) == (cap >= psi), (
                cap, d, nf, k, kappa, S, T, s, z)
            seen += 1
    assert seen > 500


# ==============================================================================================
# proofs/joint_lemmas.py — explore_witness
# ==============================================================================================
def _reference_states(G, W, target, watched, M):
    """The reachable (red set, watched seen) states, written plainly with frozensets."""
    inputs = {v for v in G if G.in_degree(v) == 0}
    pool = [v for v in G if v not in set(W)]
    start = {(frozenset(c), frozenset(c) & frozenset(watched))
             for k in range(M + 1) for c in itertools.combinations(pool, k)}
    seen, todo = set(start), list(start)
    while todo:
        red, got = todo.pop()
        for v in G:
            if v in red:
                nxt = red - {v}
            elif len(red) >= M:
                continue
            elif (v in inputs or v not in W) or (
                    v not in inputs and all(p in red for p in G.predecessors(v))):
                nxt = red | {v}
            else:
                continue
            state = (nxt, got | (nxt & frozenset(watched)))
            if state not in seen:
                seen.add(state)
                todo.append(state)
    hits = [s for s in seen if target in s[0]]
    return len(seen), len(hits), any(s[1] != frozenset(watched) for s in hits)


def _random_dag(rng: random.Random) -> nx.DiGraph:
    G = nx.DiGraph()
    n = rng.randint(4, 6)
    G.add_nodes_from(f"v{i}" for i in range(n))
    for j in range(2, n):
        for i in rng.sample(range(j), rng.randint(1, min(2, j))):
            G.add_edge(f"v{i}", f"v{j}")
    return G


def _sample_case(rng):
    G = _random_dag(rng)
    V = sorted(G, key=lambda v: int(v[1:]))
    target = V[-1]
    inputs = [v for v in V if G.in_degree(v) == 0]
    W = [v for v in V[len(inputs):] if rng.random() < 0.6 and v != target] + [target]
    watched = [v for v in inputs if rng.random() < 0.7] or inputs[:1]
    return G, W, target, watched, rng.randint(1, 3)


def _compare_with_reference(seed: int, cases: int = 10) -> None:
    from attnio.proofs.joint_lemmas import explore_witness
    rng = random.Random(seed)
    for _ in range(cases):
        G, W, target, watched, M = _sample_case(rng)
        states, hits, found = explore_witness(G, W, target, watched, M)
        ref_states, ref_hits, ref_found = _reference_states(G, W, target, watched, M)
        where = (sorted(G.edges), W, watched, M)
        assert (found is not None) == ref_found, where
        if found is None:          # (a search that finds one stops there)
            assert (states, hits) == (ref_states, ref_hits), where


def test_twin__explore_witness__start_outside_w() -> None:
    """State counts equal a plain re-enumeration (start sets: ≤ M vertices outside W) on
    random small DAGs."""
    _compare_with_reference(3630)


def test_twin__explore_witness__read_outside_w() -> None:
    """A vertex of W that is not an input cannot be read: a chain a → b → c with b in W,
    M = 2, c needs b computed, so a (watched) is red before c."""
    from attnio.proofs.joint_lemmas import explore_witness
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    assert explore_witness(G, ["b", "c"], "c", ["a"], 2)[2] is None
    assert explore_witness(G, ["c"], "c", ["a"], 2)[2] is not None   # b read from outside W
    _compare_with_reference(3631)


def test_twin__explore_witness__compute_needs_preds() -> None:
    """c = f(a, b) with c in W: c red needs a AND b red (both watched seen)."""
    from attnio.proofs.joint_lemmas import explore_witness
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    assert explore_witness(G, ["c"], "c", ["a", "b"], 3)[2] is None
    _compare_with_reference(3632)


def test_twin__explore_witness__at_most_m() -> None:
    """With M = 2 the three predecessors of a W vertex cannot be red at once: the target is
    never red; with M = 4 it is."""
    from attnio.proofs.joint_lemmas import explore_witness
    G = nx.DiGraph([("a", "d"), ("b", "d"), ("c", "d")])
    assert explore_witness(G, ["d"], "d", ["a"], 2)[1] == 0
    assert explore_witness(G, ["d"], "d", ["a"], 4)[1] > 0
    _compare_with_reference(3633)


def test_twin__explore_witness__witness_replays() -> None:
    """Every counterexample found on random DAGs replays by the game's rules, written here:
    its start outside W and ≤ M, each move legal, the target red at the end and each
    ``never_red`` input never red along the way."""
    from attnio.proofs.joint_lemmas import explore_witness
    rng = random.Random(3634)
    replayed = 0
    for _ in range(30):
        G, W, target, watched, M = _sample_case(rng)
        found = explore_witness(G, W, target, watched, M)[2]
        if found is None:
            continue
        red = set(found["start_red"])
        assert len(red) <= M and not red & set(W)
        ever = set(red)
        for kind, v in found["moves"]:
            if kind == "delete":
                assert v in red
                red.discard(v)
                continue
            assert v not in red and len(red) < M
            if kind == "read":
                assert G.in_degree(v) == 0 or v not in W, (kind, v)
            else:
                assert all(p in red for p in G.predecessors(v)), (kind, v)
            red.add(v)
            ever.add(v)
        assert target in red
        assert set(found["never_red"]) == set(watched) - ever and found["never_red"]
        replayed += 1
    assert replayed >= 3


# ==============================================================================================
# bounds/gap_worst.py — worst_ratio
# ==============================================================================================
def _random_instance(rng: random.Random):
    from attnio.algorithms.instance import Instance
    n, d = rng.choice([(8, 2), (8, 4), (16, 4), (16, 8), (12, 4)])
    pass_ = rng.choice(["forward", "backward"])
    heads = rng.choice([1, 1, 2])
    return Instance.build(n, d, pass_=pass_, M=[8], heads=heads)


def test_twin__worst_ratio__interval_bound_below() -> None:
    """interval_lower_bound(a, b) ≤ the certified bound at every M of random windows of
    random small instances, on coarse and fine cells."""
    from attnio.bounds.gap_worst import COARSE, interval_lower_bound
    from attnio.bounds.instance_bounds import instance_lower_bound
    rng = random.Random(3635)
    for _ in range(5):
        inst = _random_instance(rng)
        a = rng.randint(inst.d, 12 * inst.n)
        b = a + rng.randint(0, 8)
        exact = min(instance_lower_bound(inst, M).value for M in range(a, b + 1))
        for coarse in (COARSE, 256):
            assert interval_lower_bound(inst, a, b, coarse=coarse) <= exact, (inst, a, b)


def test_twin__worst_ratio__cap_upper_covers() -> None:
    """_cap_upper ≥ the segment product cap at every M of random intervals and depths."""
    from attnio.bounds import gap_worst
    from attnio.bounds.attention import segment_product_cap
    rng = random.Random(3636)
    for _ in range(10):
        d, t = rng.randint(1, 64), rng.randint(1, 4)
        a = rng.randint(1, 300)
        b = a + rng.randint(0, 20)
        depth = rng.choice([None, rng.randint(max(0, d - 1), d + 3)])
        for coarse in (gap_worst.COARSE, gap_worst.CELLS):
            upper = gap_worst._cap_upper(d, a, b, t, depth, coarse)
            for M in range(a, b + 1):
                assert upper >= segment_product_cap(d, M, t * M, partial_depth=depth), (
                    d, a, b, t, depth, M)


def test_twin__worst_ratio__plateaus_exact() -> None:
    """Each plateau's count is every M's direct count, for every algorithm of the pass
    (block sizes as a tuple or a dict); the plateaus tile [lo, hi]."""
    from attnio.algorithms.instance import NotApplicable, count_instance
    from attnio.algorithms.registry import REGISTRY
    from attnio.bounds.gap_worst import algorithm_plateaus
    rng = random.Random(3637)
    for _ in range(3):
        inst = _random_instance(rng)
        lo = rng.randint(1, 4 * inst.n)
        hi = lo + rng.randint(0, 30)
        for name in (n for n in REGISTRY if inst.pass_ in REGISTRY[n].passes):
            runs = algorithm_plateaus(inst, name, lo, hi)
            assert runs[0][0] == lo and runs[-1][1] == hi
            assert all(x[1] + 1 == y[0] for x, y in zip(runs, runs[1:]))
            for a, b, io in runs:
                for M in range(a, b + 1):
                    r = count_instance(inst, name, M)
                    assert (None if isinstance(r, NotApplicable) else r.io) == io, (name, M)


def test_twin__worst_ratio__worst_is_scan() -> None:
    """On random short windows of random small instances, the worst point is a full scan's
    maximum (exact fractions), the smallest M among ties."""
    from attnio.algorithms.instance import NotApplicable, count_instance
    from attnio.bounds.gap_worst import worst_ratio
    from attnio.bounds.instance_bounds import instance_lower_bound
    rng = random.Random(3638)
    for _ in range(4):
        inst = _random_instance(rng)
        a = rng.randint(inst.d + 2, 10 * inst.n)
        b = a + rng.randint(0, 6)
        try:
            w = worst_ratio(inst, a, b)
        except Exception as e:       # no algorithm runs in the window
            assert type(e).__name__ == "InvalidInputError", e
            continue
        scan = []
        for M in range(a, b + 1):
            ios = [r.io for r in (count_instance(inst, n, M) for n in w.algorithms)
                   if not isinstance(r, NotApplicable)]
            if ios:
                scan.append((-Fraction(min(ios), instance_lower_bound(inst, M).value), M))
        ratio, M = min(scan)
        assert (Fraction(w.best_io, w.lower_bound), w.M) == (-ratio, M), (inst, a, b, w)


# ---- proofs/joint_routes.py — the claim checks _joint_cap_check and _joint_route_check -------
_SMALL_CAP = dict(classes=[("forward", 8, 7, (1, 1))], sizes=[(4, 6)], points=[(2, 3)],
                  brute=[("forward", 1, 2)])


def _lowered_at(k: int):
    """A ``shift`` that halves the k-th cap it is given (call order) and no other."""
    calls = itertools.count()
    return lambda cap: cap // 2 if next(calls) == k else cap


def test_twin___joint_cap_check__certificate_every_length() -> None:
    """Honest: Proved. A cap halved at any ONE length of the certificate loop: Refuted."""
    from attnio.bounds.attention import SEGMENT_MULTIPLES
    from attnio.proofs.joint_routes import _joint_cap_check

    assert isinstance(_joint_cap_check(None, **_SMALL_CAP), Proved)
    small = {**_SMALL_CAP, "points": [], "brute": []}
    for k in range(len(SEGMENT_MULTIPLES)):
        verdict = _joint_cap_check(None, **small, shift=_lowered_at(k))
        assert isinstance(verdict, Refuted), k


def test_twin___joint_cap_check__points_every_point() -> None:
    """No certificate sizes; a cap halved at any one of the point sizes' lengths: Refuted."""
    from attnio.proofs.joint_routes import _joint_cap_check

    small = {**_SMALL_CAP, "sizes": [], "brute": []}
    assert isinstance(_joint_cap_check(None, **small), Proved)
    for k in range(3):
        verdict = _joint_cap_check(None, **small, shift=_lowered_at(k))
        assert isinstance(verdict, Refuted) and "sigma" in verdict.counterexample, k


def test_twin___joint_cap_check__brute_every_shape() -> None:
    """A class cap lowered below the brute force at one M of 1, 2, 3 only: Refuted."""
    from attnio.bounds.joint import joint_cap
    from attnio.proofs.joint_routes import _joint_cap_check, brute_joint_max, brute_joint_table

    small = {**_SMALL_CAP, "sizes": [], "points": []}
    table = brute_joint_table("forward", 1, 2)
    # the brute force's segment maximum: every shape with s ≤ S = M + L inputs, its partial
    # leaves with at most T − s carries (T = 2M + L), the best one attained
    # (forward 2×1 shapes: a carry decides the maximum at M = 1, L = 4)
    for shapes_of in (brute_joint_table("forward", 2, 1),):
        for M in (1, 2, 3):
            for L in (M, 2 * M, 3 * M, 4 * M):
                S, T = M + L, 2 * M + L
                shapes = [full + prefix[min(T - s, len(prefix) - 1)]
                          for s, full, prefix in shapes_of if s <= S]
                assert brute_joint_max(shapes_of, M, L) == max(shapes), (M, L)
    for bad_M in (1, 2, 3):
        honest = joint_cap("forward", 1, 2)

        def cap_of(cls, n, d, bad_M=bad_M, honest=honest):
            return lambda d_, M, L: (brute_joint_max(table, M, L) - 1 if M == bad_M
                                     else honest(d_, M, L))
        verdict = _joint_cap_check(None, **small, cap_of=cap_of)
        assert isinstance(verdict, Refuted) and verdict.counterexample["M"] == bad_M, bad_M


def test_twin___joint_route_check__route_recomputed(monkeypatch) -> None:
    """On a short grid: honest Proved; one product more per class, or the stacked routes
    one above, Refuted."""
    from attnio.bounds.joint import JOINT_CLASSES
    from attnio.proofs import joint_routes

    monkeypatch.setattr(joint_routes, "_ROUTE_GRID", [("forward", 16, 8, 24, 1, 1, 1),
                                                       ("backward", 16, 8, 24, 1, 2, 1)])
    assert isinstance(joint_routes._joint_route_check(None), Proved)
    planted = joint_routes._joint_route_check(None, products=lambda c: JOINT_CLASSES[c][0] + 1)
    assert isinstance(planted, Refuted)
    real = joint_routes.stacked_lower_bound_routes

    def plus_one(*a, **k):
        return [dataclasses.replace(r, value=r.value + 1) if r.claim_id == "gap.joint_route"
                else r for r in real(*a, **k)]
    monkeypatch.setattr(joint_routes, "stacked_lower_bound_routes", plus_one)
    assert isinstance(joint_routes._joint_route_check(None), Refuted)


def test_twin___joint_route_check__single_equals_stacked(monkeypatch) -> None:
    """A single-head route one above the stacked one: Refuted."""
    from attnio.proofs import joint_routes

    monkeypatch.setattr(joint_routes, "_ROUTE_GRID", [("forward", 16, 8, 24, 1, 1, 1)])
    real = joint_routes.joint_routes
    monkeypatch.setattr(joint_routes, "joint_routes", lambda *a, **k: [
        dataclasses.replace(r, value=r.value + 1) for r in real(*a, **k)])
    verdict = joint_routes._joint_route_check(None)
    assert isinstance(verdict, Refuted) and "single" in verdict.counterexample


# ---- smt/coqc.py — coq_document and run_coqc ------------------------------------------------
def _two_statements():
    from attnio.smt.coq_statements import coq_statement
    x = sp.Symbol("x", real=True)
    return [coq_statement("first", sp.Ge(x + 1, x), (), {x: "real"}),
            coq_statement("second", sp.Ge(2 * x + 3, 2 * x), (), {x: "real"})]


def test_twin__coq_document__preamble_first() -> None:
    from attnio.smt.coqc import PREAMBLE, coq_document, forbidden_words
    doc = coq_document(_two_statements(), ["lra.", "lra."], title="a title\nAdmitted")
    head, _, _ = doc.partition(PREAMBLE)
    assert head.rstrip("\n") == "(* a title *)\n(* Admitted *)", head
    assert coq_document(_two_statements(), ["lra.", "lra."]).startswith(PREAMBLE)
    assert forbidden_words(doc) == []


def test_twin__coq_document__each_statement_proved() -> None:
    from attnio.smt.coqc import coq_document
    doc = coq_document(_two_statements(), ["lra.", "nra."], keyword="Theorem")
    first, second = doc.index("Lemma first :"), doc.index("Theorem second :")
    assert first < second
    assert doc[first:second].count("Proof.\nlra.\nQed.") == 1
    assert "Proof.\nnra.\nQed." in doc[second:]
    with pytest.raises(ValueError):
        coq_document(_two_statements(), ["lra."])


def test_twin__coq_document__assumptions_printed() -> None:
    from attnio.smt.coqc import coq_document
    doc = coq_document(_two_statements(), ["lra.", "lra."])
    assert doc.rstrip().endswith("Print Assumptions first.\nPrint Assumptions second.")


def test_twin__run_coqc__time_limit_kills() -> None:
    """A run given no time is killed and timed out, and not accepted."""
    from attnio.smt.coqc import accepted, coq_document, coqc_binary, run_coqc
    if coqc_binary() is None:
        pytest.skip("coqc is not installed")
    doc = coq_document(_two_statements(), ["lra.", "lra."])
    run = run_coqc(doc, timeout=0.01)
    assert run.returncode is None and run.timed_out
    assert not accepted(doc, run, ["first", "second"])[0]


def test_twin__run_coqc__module_name() -> None:
    from attnio.smt.coqc import coqc_binary, run_coqc
    if coqc_binary() is None:
        pytest.skip("coqc is not installed")
    for bad in ("../x.v", "1x.v", "x.v; rm", "x.vo", "a-b.v"):
        with pytest.raises(ValueError):
            run_coqc("", timeout=1, name=bad)


# ---- proofs/joint_lemmas.py — what each chain concludes ---------------------------------------
def _conclusion_agrees(chain, independent, names: str, seed: int, count: int = 10) -> None:
    """Each inequality of the chain's conclusion (an ``And`` read part by part) has, at random
    rational points (every variable free, roots included), exactly the two sides of an
    independently written one (``independent(values)``: a list of (lhs, rhs)) — a changed
    constant, sign or variable shows."""
    rng = random.Random(seed)
    variables = {str(v): v for v in z3tools.constants([chain.conclusion])}
    parts = (list(chain.conclusion.children()) if z3.is_and(chain.conclusion)
             else [chain.conclusion])
    assert all(z3.is_le(part) for part in parts), chain.conclusion
    for _ in range(count):
        values = {name: Fraction(rng.randint(0, 30), rng.randint(1, 4)) for name in
                  names.split()}
        values.update({x: Fraction(rng.randint(1, 9)) for x in ("d", "n") if x in values})
        fixed = [(variables[x], z3.RealVal(q)) for x, q in values.items() if x in variables]
        got = [tuple(Fraction(z3.simplify(z3.substitute(side, *fixed)).as_fraction())
                     for side in (part.arg(0), part.arg(1))) for part in parts]
        assert got == independent(values), (values, got)


def test_joint_lemmas_each_chain_concludes_the_formula_its_cap_uses() -> None:
    """gap.joint_cell, gap.joint_superadditive, gap.joint_cube and gap.joint_rows conclude
    exactly the inequality the caps rest on (written here apart, in fractions): a chain
    that proves something else — weaker, or about other terms — proves nothing the code
    uses (the default tier checks the chains prove what they state)."""
    from attnio.proofs.joint_lemmas import cell_chain, cube_chain, rows_chain, superadditive_chain

    def cell(v):
        kap, d, n, k = v["kap"], v["d"], v["n"], v["k"]
        lhs = (kap * v["sg"] ** 2 / (4 * d) + v["u"] * v["sg"] / n
               + min(v["sg"] * v["r"] / 2, (d - 1) * v["z"]) + min(v["rho"], k * v["w"]))
        rhs = (kap * v["s1"] ** 2 / (4 * d) + v["U"] * v["s1"] / n
               + min(v["s1"] * v["R"] / 2, (d - 1) * v["z1"]) + min(v["P"], k * v["Wc"]))
        return [(lhs, rhs)]
    _conclusion_agrees(cell_chain(), cell, "kap d n k sg u r z rho w s1 U R z1 P Wc", 3640)

    def superadditive(v):
        kap, d, n, k = v["kap"], v["d"], v["n"], v["k"]
        s1, s2, u1, u2, z1, z2, w1, w2 = (v[x] for x in "s1 s2 u1 u2 z1 z2 w1 w2".split())
        S = s1 + s2
        return [(kap * s1 * s1 / (4 * d) + kap * s2 * s2 / (4 * d), kap * S * S / (4 * d)),
                (u1 * s1 / n + u2 * s2 / n, (u1 + u2) * S / n),
                (min(s1 * v["r1"] / 2, (d - 1) * z1) + min(s2 * v["r2"] / 2, (d - 1) * z2),
                 min(S * v["r"] / 2, (d - 1) * (z1 + z2))),
                (min(v["p1"], k * w1) + min(v["p2"], k * w2), min(v["p"], k * (w1 + w2)))]
    _conclusion_agrees(superadditive_chain(), superadditive,
                       "kap d n k s1 s2 u1 u2 z1 z2 w1 w2 r1 r2 r p1 p2 p", 3641)

    def cube(v):
        a, b, bV, u, s = (v[x] for x in "a b bV u s".split())
        return [(v["y"], v["t"]), (4 * (a * (b + bV) + u * bV), s * s)]
    _conclusion_agrees(cube_chain(), cube, "y t a b bV u s", 3642)

    def rows(v):
        a, aO, b, bV, p, q = (v[x] for x in "a aO b bV p q".split())
        return [(a * b + aO * bV + b * p + 2 * p * q, Fraction(5, 16) * (a + aO + b + bV) ** 2)]
    _conclusion_agrees(rows_chain(), rows, "a aO b bV p q", 3643)
