"""The definedness rules (attnio.smt.definedness), rule by rule (trust tier)."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.exceptions import TranslationError
from attnio.smt.definedness import antecedent_contexts, as_written, definedness, term_definedness

pytestmark = pytest.mark.trust

x, y = sp.symbols("x y", real=True)
T = sp.true


@pytest.mark.parametrize("term,condition", [
    (x, T), (sp.Integer(3), T), (sp.pi, T), (sp.E, T),
    (x + y, T), (x * y, T), (x ** 2, T), (x ** 0, T),
    (1 / x, sp.Ne(x, 0, evaluate=False)),
    (x ** -3, sp.Ne(x, 0, evaluate=False)),
    (sp.sqrt(x), sp.Ge(x, 0, evaluate=False)),
    (sp.Pow(x, sp.Rational(1, 3)), sp.Ge(x, 0, evaluate=False)),
    (sp.Pow(x, sp.Rational(3, 2)), sp.Ge(x, 0, evaluate=False)),
    (sp.Pow(x, sp.Rational(-1, 2)), sp.Gt(x, 0, evaluate=False)),
    (sp.Pow(x, y), sp.Gt(x, 0, evaluate=False)),
    (sp.Pow(2, x), T),                                  # a positive constant base
    (sp.Pow(-2, x, evaluate=False), sp.false),          # a negative constant base: nowhere
    (sp.log(x), sp.Gt(x, 0, evaluate=False)),
    (sp.exp(x), T), (sp.sin(x), T), (sp.cos(x), T), (sp.Abs(x), T),
    (sp.floor(x), T), (sp.ceiling(x), T), (sp.Min(x, y), T), (sp.Max(x, y), T),
    (sp.tan(x), sp.Ne(sp.cos(x), 0, evaluate=False)),
    (sp.exp(1 / x), sp.Ne(x, 0, evaluate=False)),       # arguments need to be defined too
    (sp.Abs(sp.sqrt(x)), sp.Ge(x, 0, evaluate=False)),
])
def test_term_rules(term: sp.Expr, condition: sp.Basic) -> None:
    assert term_definedness(term) == condition


def test_conditions_of_nested_terms_are_all_kept_once() -> None:
    d = term_definedness(sp.sqrt(x) + 1 / sp.sqrt(x) + sp.sqrt(x) * sp.log(y))
    assert isinstance(d, sp.And)
    assert set(d.args) == {sp.Ge(x, 0, evaluate=False), sp.Gt(x, 0, evaluate=False),
                           sp.Gt(y, 0, evaluate=False)}
    assert term_definedness(sp.Mul(sp.sqrt(x), sp.sqrt(x), evaluate=False)) == sp.Ge(x, 0, evaluate=False)


def test_constant_conditions_are_folded() -> None:
    assert term_definedness(sp.Pow(sp.Integer(4), sp.Rational(1, 2), evaluate=False)) == T
    assert term_definedness(sp.Pow(sp.Integer(-4), sp.Rational(1, 2), evaluate=False)) == sp.false
    assert term_definedness(sp.Pow(sp.Integer(0), -1, evaluate=False)) == sp.false
    assert term_definedness(sp.log(sp.Integer(-1), evaluate=False)) == sp.false
    assert term_definedness(sp.log(sp.Integer(0), evaluate=False)) == sp.false


def test_sympy_never_decides_a_condition_from_a_symbol_s_own_flags() -> None:
    """The kernel drops conditions only against the *declared* domains; here M carries the
    flag positive, yet its condition must stay (it may be declared real)."""
    M = sp.Symbol("M", positive=True)
    assert term_definedness(sp.sqrt(M)) == sp.Ge(M, 0, evaluate=False)
    assert term_definedness(1 / M) == sp.Ne(M, 0, evaluate=False)
    guarded = definedness(sp.Implies(sp.Gt(M, 0, evaluate=False), sp.Ge(1 / M, 0, evaluate=False)))
    assert guarded == sp.Implies(sp.Gt(M, 0, evaluate=False), sp.Ne(M, 0, evaluate=False))
    assert isinstance(guarded, sp.Implies)


def test_a_false_part_makes_the_whole_undefined() -> None:
    bad = sp.Pow(sp.Integer(-4), sp.Rational(1, 2), evaluate=False)
    assert term_definedness(x + bad) == sp.false
    assert definedness(sp.Ge(x, bad, evaluate=False)) == sp.false


def test_piecewise_branches_in_order() -> None:
    gt = sp.Gt(x, 0)
    nz = sp.Ne(x, 0, evaluate=False)
    assert term_definedness(sp.Piecewise((1 / x, gt), (0, True))) == sp.Implies(gt, nz)
    only = term_definedness(sp.Piecewise((1 / x, gt)))          # no default branch
    assert set(only.args) == {sp.Implies(gt, nz), gt}
    two = term_definedness(sp.Piecewise((1, gt), (1 / y, sp.Gt(y, 0)), (sp.sqrt(x), True)))
    # x > 0: defined; else y > 0 guards 1/y, else sqrt(x) needs x >= 0
    for point, expected in [({x: 1, y: -1}, True), ({x: -1, y: 1}, True),
                            ({x: -1, y: -1}, False), ({x: 0, y: -1}, True)]:
        assert bool(two.subs(point)) is expected, (point, two)
    cond = term_definedness(sp.Piecewise((1, sp.sqrt(x) > 1), (2, True)))
    assert cond == sp.Ge(x, 0, evaluate=False)                   # the condition's own domain


def test_statement_rules() -> None:
    ge = sp.Ge(x, 0, evaluate=False)
    s = sp.Ge(sp.sqrt(x), 1, evaluate=False)
    assert definedness(s) == ge
    assert definedness(sp.Not(s)) == ge
    assert definedness(as_written(sp.Or, sp.Lt(x, 0), s)) == ge          # strict
    assert definedness(as_written(sp.And, sp.Lt(x, 0), s)) == ge
    assert definedness(as_written(sp.Xor, sp.Lt(y, 0), s)) == ge
    assert definedness(as_written(sp.Equivalent, sp.Lt(y, 0), s)) == ge
    assert definedness(sp.Implies(sp.Gt(x, 2), s)) == sp.Implies(sp.Gt(x, 2), ge)  # guarded
    assert definedness(sp.Implies(s, sp.Gt(y, 1))) == ge
    assert definedness(sp.Implies(sp.Gt(y, 1), sp.Gt(x, 1))) == T
    assert definedness(sp.true) == T and definedness(True) == T
    assert definedness(sp.Eq(1 / x, 1 / y)) == sp.And(sp.Ne(x, 0, evaluate=False),
                                                      sp.Ne(y, 0, evaluate=False))


def test_unknown_constructs_raise() -> None:
    with pytest.raises(TranslationError, match="no definedness rule for"):
        term_definedness(sp.Function("f")(x))
    with pytest.raises(TranslationError, match="no definedness rule for"):
        definedness(sp.Symbol("p") & sp.Symbol("q") | sp.Q.positive(x))


def test_antecedent_contexts_in_positive_positions_only() -> None:
    a, b, c = sp.Gt(x, 1), sp.Lt(x, 0), sp.Eq(x, 5)
    assert antecedent_contexts(c) == []
    assert antecedent_contexts(sp.Implies(a, c)) == [a]
    assert antecedent_contexts(sp.Implies(a, sp.Implies(b, c))) == [a, sp.And(a, b, evaluate=False)]
    both = as_written(sp.And, sp.Implies(a, c), sp.Implies(b, c))
    assert antecedent_contexts(both) == [a, b]
    either = as_written(sp.Or, sp.Implies(a, c), c)
    assert antecedent_contexts(either) == [a]
    assert antecedent_contexts(sp.Not(sp.Implies(a, c))) == []          # negative position
    assert antecedent_contexts(as_written(sp.Equivalent, sp.Implies(a, c), c)) == []
    inner = sp.Implies(a, as_written(sp.And, c, sp.Implies(b, c)))
    assert antecedent_contexts(inner) == [a, sp.And(a, b, evaluate=False)]


def test_a_function_without_a_rule_is_named() -> None:
    from attnio.exceptions import TranslationError
    with pytest.raises(TranslationError, match=r"^no definedness rule for gamma in gamma\(1/3\)$"):
        term_definedness(sp.gamma(sp.Rational(1, 3)))


def test_a_zeroth_power_is_defined_everywhere() -> None:
    x = sp.Symbol("x")
    assert term_definedness(sp.Pow(x, 0, evaluate=False)) == sp.true     # 0**0 = 1 in sympy
    assert term_definedness(sp.Pow(x, -1, evaluate=False)) == sp.Ne(x, 0)


def test_a_statement_without_a_rule_is_named() -> None:
    with pytest.raises(TranslationError, match=r"^no definedness rule for Symbol x$"):
        definedness(sp.Symbol("x"))


def test_conjunctions_are_flattened_without_repeats() -> None:
    from attnio.smt.definedness import _conj
    x, y = sp.symbols("x y")
    a, b = sp.Ge(x, 0), sp.Ne(y, 0)
    both = _conj([sp.And(a, b, evaluate=False), a, sp.true])
    assert both == sp.And(a, b, evaluate=False) and len(both.args) == 2
    assert _conj([a, sp.false, b]) == sp.false and _conj([sp.true]) == sp.true


def _random_term(rng, depth: int) -> sp.Expr:
    """A small random term over x, y: sums, products, integer/rational/symbolic powers, logs,
    quotients — the constructs whose definedness the two sides could disagree on."""
    if depth == 0:
        return rng.choice([x, y, x - 1, y + 1, sp.Integer(2), x - y])
    a, b = _random_term(rng, depth - 1), _random_term(rng, depth - 1)
    kind = rng.randrange(7)
    if kind == 0:
        return a + b
    if kind == 1:
        return a * b
    if kind == 2:
        return sp.Pow(a, rng.choice([2, -1, sp.Rational(1, 2), sp.Rational(1, 3),
                                     sp.Rational(-3, 2)]), evaluate=False)
    if kind == 3:
        return sp.Pow(a, b, evaluate=False)             # a symbolic exponent
    if kind == 4:
        return sp.log(a, evaluate=False)
    if kind == 5:
        return a / b
    return sp.exp(a, evaluate=False)


def test_the_referee_and_the_definedness_rules_agree_on_random_terms() -> None:
    """Where ``term_definedness(t)`` is false at a point, the referee calls ``t >= t``
    undefined there, and where it is true the referee never does: the solvers and the
    referee see one domain of definition (a disagreement let a Refuted land outside it: ``x**y
    >= 0`` refuted at x = -1, y = 1 although the rule makes x**y need x > 0). Counts the points
    where each side was decided, so the check cannot pass vacuously."""
    import random

    from attnio.smt.exact_eval import evaluate

    rng = random.Random(20261207)
    values = [sp.Integer(v) for v in (-2, -1, 0, 1, 2, 3)] + [sp.Rational(1, 2), sp.Rational(-1, 2)]
    undefined_seen = defined_seen = 0
    for _ in range(150):
        term = _random_term(rng, rng.randrange(1, 3))
        point = {x: rng.choice(values), y: rng.choice(values)}
        rule = evaluate(term_definedness(term), point)
        referee = evaluate(sp.Ge(term, term, evaluate=False), point)
        if rule == "unknown" or referee == "unknown":
            continue
        if rule == "false":
            undefined_seen += 1
            assert referee == "undefined", (term, point)
        elif rule == "true":
            defined_seen += 1
            assert referee != "undefined", (term, point)
    assert undefined_seen >= 20 and defined_seen >= 20, (undefined_seen, defined_seen)


def test_planted_the_agreement_check_sees_a_referee_blind_to_symbolic_exponents(monkeypatch) -> None:
    """Planted: the referee evaluating b**y after substituting y (the bug fixed on 2026-12-07)
    makes the agreement check fail."""
    from attnio.smt import exact_eval

    real_value = exact_eval._value

    def value_after_substitution(e, point):
        if isinstance(e, sp.Pow) and not e.exp.is_Rational:
            return exact_eval._power(*[real_value(a, point) for a in e.args])
        return real_value(e, point)

    monkeypatch.setattr(exact_eval, "_value", value_after_substitution)
    with pytest.raises(AssertionError):
        test_the_referee_and_the_definedness_rules_agree_on_random_terms()
