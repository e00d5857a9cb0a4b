"""Tests of the sympy → z3 translator (attnio.smt.sympy_to_z3)."""

from __future__ import annotations

import pytest
import sympy
import z3

from attnio.exceptions import TranslationError
from attnio.results import Proved, Refuted
from attnio.smt.kernel import prove_statement
from attnio.smt.sympy_to_z3 import Translator, z3_to_sympy

pytestmark = pytest.mark.trust

n, d, M = sympy.symbols("n d M", positive=True)
S = sympy.Symbol("S", positive=True)
POSITIVE = {n: "positive", d: "positive", M: "positive", S: "positive"}


def test_square_substitution_removes_roots_of_declared_nonnegative_symbols() -> None:
    t = Translator(POSITIVE)
    e = t.expr(n ** 2 * d / sympy.sqrt(M) + M ** sympy.Rational(3, 2))
    assert "s_M" in str(e) and "root" not in str(e)
    assert t.substitutions == ("M = s_M**2 with s_M > 0 (M declared positive)",)
    assert "M == s_M!*s_M!" in [str(c) for c in t.side_conditions]


def test_no_square_substitution_for_a_real_symbol() -> None:
    """Regression (issue 10): the trick came from the *name* M; now only from the domain."""
    m = sympy.Symbol("M", real=True)
    t = Translator({m: "real"})
    t.expr(sympy.sqrt(m))
    assert t.substitutions == ()
    # the auxiliary root is defined only where its radicand is nonnegative
    assert any("Implies(M >= 0" in str(c) for c in t.side_conditions)


def test_other_half_powers_get_an_auxiliary_root() -> None:
    t = Translator(POSITIVE)
    t.expr(sympy.sqrt(2) * S)
    conditions = [str(c) for c in t.side_conditions]
    assert any("root2_" in c and ">= 0" in c for c in conditions)


def test_min_max_become_if_terms() -> None:
    t = Translator(POSITIVE)
    assert str(t.expr(sympy.Min(n, d))).startswith("If(")
    biggest = t.expr(sympy.Max(n, d, M))
    for part in (z3.Real("n"), z3.Real("d"), z3.Real("M")):
        solver = z3.Solver()
        solver.add(*t.side_conditions, z3.Not(biggest >= part))
        assert solver.check() == z3.unsat


def test_domain_facts_come_from_the_declaration_only() -> None:
    x = sympy.Symbol("x")
    t = Translator({x: "real", n: "positive"})
    t.expr(x + n)
    assert [str(c) for c in t.side_conditions] == ["n > 0"]
    with pytest.raises(TranslationError, match="no declared domain"):
        Translator({}).expr(x)


def test_integer_domains_relaxed_or_exact() -> None:
    k = sympy.Symbol("k", integer=True, positive=True)
    relaxed = Translator({k: "positive-integer"})
    assert [str(c) for c in relaxed.side_conditions] == ["k >= 1"]
    assert z3.is_real(relaxed.expr(k))
    exact = Translator({k: "positive-integer"}, integers="exact")
    assert str(exact.expr(k)) == "ToReal(k)"


def test_unknown_construct_raises() -> None:
    with pytest.raises(TranslationError, match="sin"):
        Translator(POSITIVE).expr(sympy.sin(n))


def test_unevaluated_products_reach_the_solver_as_written() -> None:
    """Regression (issue 10): branch_ratio claims were multiplied back by sympy (z3: a == a)."""
    ratio = sympy.Mul(d / sympy.sqrt(M), n ** 2 * d / sympy.sqrt(M), evaluate=False)
    text = str(Translator(POSITIVE).expr(ratio))
    assert "s_M" in text and text.count("d") >= 2


def test_z3_variables_are_shared_across_calls() -> None:
    t = Translator(POSITIVE)
    a, b = t.expr(n), t.expr(n + 1)
    assert z3.eq(a, b.arg(0)) or z3.eq(a, b.arg(1))


def test_piecewise_without_a_default_branch_is_undefined_where_no_branch_applies() -> None:
    """Issue 20: a Piecewise with no final True branch translates (its value is free where no
    branch applies) and the kernel decides it only where a branch applies."""
    pw = sympy.Piecewise((n, sympy.Le(M, d ** 2)), (d, True))
    assert str(Translator(POSITIVE).expr(pw)).startswith("If(")
    partial = sympy.Piecewise((n, sympy.Le(M, d ** 2)))
    assert "nobranch" in str(Translator(POSITIVE).expr(partial))
    v = prove_statement(sympy.Ge(partial, 0, evaluate=False))
    assert isinstance(v, Proved) and v.where_defined == "M <= d**2"
    assert isinstance(prove_statement(sympy.Ge(partial, 1, evaluate=False),
                                      {"n": "positive"}), Refuted)


def test_algebraic_model_values_are_exact() -> None:
    x = z3.Real("x")
    s = z3.Solver()
    s.add(x * x * x == 2)
    assert s.check() == z3.sat
    value = z3_to_sympy(s.model()[x])
    assert sympy.minimal_polynomial(value, sympy.Symbol("t")) == sympy.Symbol("t") ** 3 - 2


# ====================================================================== issue 20: the rules
def _value_of(term: z3.ArithRef, side: list, **values: object) -> object:
    """The value z3 gives ``term`` when the named constants are pinned (side conditions on)."""
    s = z3.Solver()
    s.add(*side)
    for name, v in values.items():
        s.add(z3.Real(name) == z3.RealVal(str(v)))
    assert s.check() == z3.sat
    return z3_to_sympy(s.model().eval(term, model_completion=True))


def test_piecewise_branches_are_taken_in_order() -> None:
    """A mutant taking the branches in reverse order Proved a false statement."""
    x = sympy.Symbol("x", real=True)
    t = Translator({x: "real"})
    pw = t.expr(sympy.Piecewise((1, x > 0), (2, x > -1), (3, True)))
    for value, expected in [("1/2", 1), ("-1/2", 2), ("-2", 3), ("0", 2), ("-1", 3)]:
        assert _value_of(pw, t.side_conditions, x=value) == expected
    v = prove_statement("Piecewise((1, x > 0), (2, x > -1), (3, True)) >= 2", {"x": "real"})
    assert isinstance(v, Refuted) and sympy.sympify(v.counterexample["x"]) > 0


def test_floor_and_ceiling_are_integers_around_their_argument() -> None:
    x = sympy.Symbol("x", real=True)
    t = Translator({x: "real"})
    fl, ce = t.expr(sympy.floor(x)), t.expr(sympy.ceiling(x))
    for value, f, c in [("5/2", 2, 3), ("-5/2", -3, -2), ("3", 3, 3), ("0", 0, 0),
                        ("-1/3", -1, 0)]:
        assert _value_of(fl, t.side_conditions, x=value) == f
        assert _value_of(ce, t.side_conditions, x=value) == c
    assert t.expr(sympy.floor(x)) is fl              # one integer per term


def test_roots_are_principal_and_defined_for_nonnegative_bases_only() -> None:
    x = sympy.Symbol("x", real=True)
    t = Translator({x: "real"})
    cube = t.expr(sympy.Pow(x, sympy.Rational(1, 3)))
    assert _value_of(cube, t.side_conditions, x="8") == 2
    s = z3.Solver()
    s.add(*t.side_conditions, z3.Real("x") == -8, cube == 5)
    assert s.check() == z3.sat                   # free (undefined) there — and never negative:
    s = z3.Solver()
    s.add(*t.side_conditions, cube < 0)
    assert s.check() == z3.unsat
    sq = t.expr(sympy.sqrt(x))
    assert _value_of(sq, t.side_conditions, x="9/4") == sympy.Rational(3, 2)


def test_integer_valued_terms() -> None:
    n, k = sympy.symbols("n k", integer=True)
    x = sympy.Symbol("x", real=True)
    t = Translator({n: "integer", k: "positive-integer", x: "real"})
    for e in (n, k, n + 3 * k, n * k - 7, n ** 3, sympy.floor(x), sympy.ceiling(x / 2),
              sympy.Abs(n - k), sympy.Min(n, k), sympy.Max(n, 2),
              sympy.Piecewise((n, x > 0), (k, True)), sympy.Integer(-4)):
        assert t.integer_valued(e), e
    for e in (x, n / 2, sympy.Rational(1, 2), n ** -1, sympy.sqrt(n), n + x,
              sympy.Piecewise((n, x > 0), (x, True)), sympy.pi):
        assert not t.integer_valued(e), e


def test_integer_gaps_only_in_the_relaxed_encoding_when_asked() -> None:
    M, d = sympy.symbols("M d", integer=True, positive=True)
    doms = {M: "positive-integer", d: "positive-integer"}
    rel = sympy.Gt(M, d ** 2)
    plain = Translator(doms)
    plain.rel(rel)
    gapped = Translator(doms, integer_gaps=True)
    gapped.rel(rel)
    assert len(gapped.side_conditions) == len(plain.side_conditions) + 1
    exact = Translator(doms, integers="exact", integer_gaps=True)
    before = len(exact.side_conditions)
    exact.rel(rel)
    assert len(exact.side_conditions) == before
    x = sympy.Symbol("x", real=True)
    mixed = Translator({**doms, x: "real"}, integer_gaps=True)
    before = len(mixed.side_conditions)
    mixed.rel(sympy.Gt(M, x))                     # a real side: no gap
    assert len(mixed.side_conditions) == before
    # the gap is true at every integer point and excludes the fractional ones
    s = z3.Solver()
    s.add(*gapped.side_conditions, gapped.rel(rel), z3.Not(gapped.rel(sympy.Ge(M, d ** 2 + 1))))
    assert s.check() == z3.unsat
    s = z3.Solver()
    s.add(*plain.side_conditions, plain.rel(rel), z3.Not(plain.rel(sympy.Ge(M, d ** 2 + 1))))
    assert s.check() == z3.sat


def test_connectives() -> None:
    x = sympy.Symbol("x", real=True)
    from attnio.smt.definedness import as_written
    t = Translator({x: "real"})
    xor = t.rel(as_written(sympy.Xor, x > 0, x > 1, x > 2))
    for value, expected in [("3", True), ("3/2", False), ("1/2", True), ("-1", False)]:
        s = z3.Solver()
        s.add(z3.Real("x") == z3.RealVal(value))
        s.add(xor if expected else z3.Not(xor))
        assert s.check() == z3.sat, value
    eq = t.rel(as_written(sympy.Equivalent, x > 0, -x < 0))
    s = z3.Solver()
    s.add(z3.Not(eq))
    assert s.check() == z3.unsat
    assert z3.is_true(t.rel(sympy.true)) and z3.is_false(t.rel(sympy.false))
    imp = t.rel(sympy.Implies(x > 1, x > 0))
    s = z3.Solver()
    s.add(z3.Not(imp))
    assert s.check() == z3.unsat
    ne = t.rel(sympy.Ne(x, 1))
    s = z3.Solver()
    s.add(z3.Not(ne), z3.Real("x") == 2)
    assert s.check() == z3.unsat


@pytest.mark.parametrize("rel,holds_at_2", [
    (sympy.Le, False), (sympy.Lt, False), (sympy.Ge, True), (sympy.Gt, True),
    (sympy.Eq, False), (sympy.Ne, True)])
def test_each_relation_keeps_its_direction(rel: type, holds_at_2: bool) -> None:
    x = sympy.Symbol("x", real=True)
    t = Translator({x: "real"})
    atom = t.rel(rel(x, 1, evaluate=False))
    s = z3.Solver()
    s.add(z3.Real("x") == 2, atom if holds_at_2 else z3.Not(atom))
    assert s.check() == z3.sat
    s = z3.Solver()
    s.add(z3.Real("x") == 1, atom)
    assert (s.check() == z3.sat) is (rel in (sympy.Le, sympy.Ge, sympy.Eq))


def test_integer_powers() -> None:
    from attnio.smt.sympy_to_z3 import _MAX_PRODUCT_POWER, _int_power
    b = z3.Real("b")
    assert str(_int_power(b, 0)) == "1" and z3.eq(_int_power(b, 1), b)
    assert str(_int_power(b, 3)) == "b*b*b" and str(_int_power(b, -2)) == "1/(b*b)"
    big = _int_power(b, _MAX_PRODUCT_POWER + 1)
    assert big.decl().kind() == z3.Z3_OP_POWER
    s = z3.Solver()
    s.add(b == 2, _int_power(b, 5) != 32)
    assert s.check() == z3.unsat


def test_numbers_and_errors() -> None:
    x = sympy.Symbol("x", real=True)
    t = Translator({x: "real"})
    assert str(t.expr(sympy.Integer(-3))) == "-3" and str(t.expr(sympy.Rational(2, 3))) == "2/3"
    with pytest.raises(TranslationError, match="binary float"):
        t.expr(sympy.Float(0.5) * x)
    with pytest.raises(TranslationError, match="cannot translate sin term"):
        t.expr(sympy.sin(x))
    with pytest.raises(TranslationError, match="non-real exponent"):
        t.expr(x ** sympy.I)
    # exp, log and a real power are the exp/log fragment (issue 38): x**pi = exp(pi*log(x))
    assert str(t.expr(x ** sympy.pi)).startswith("exp_uf!(")
    with pytest.raises(TranslationError, match="no declared domain"):
        t.expr(sympy.Symbol("y"))
    with pytest.raises(TranslationError, match="cannot translate .* relation"):
        t.rel(sympy.Symbol("p", real=True))
    assert z3_to_sympy(z3.IntVal(5)) == 5 and z3_to_sympy(z3.RealVal("3/4")) == sympy.Rational(3, 4)
    with pytest.raises(TranslationError, match="cannot read the z3 value"):
        z3_to_sympy(z3.BoolVal(True))


def test_points_map_back_to_the_original_symbols() -> None:
    M = sympy.Symbol("M", positive=True)
    n = sympy.Symbol("n", integer=True, positive=True)
    t = Translator({M: "positive", n: "positive-integer"}, integers="exact")
    t.expr(sympy.sqrt(M) + n)
    s = z3.Solver()
    s.add(*t.side_conditions, z3.Real("s_M!") == 3, z3.Int("n") == 4)
    assert s.check() == z3.sat
    assert t.point(s.model()) == {M: 9, n: 4}


def test_squaring_is_for_nonnegative_domains_and_never_for_exact_integers() -> None:
    M, n, x = sympy.Symbol("M"), sympy.Symbol("n"), sympy.Symbol("x")
    doms = {M: "positive", n: "positive-integer", x: "real"}
    relaxed = Translator(doms)
    assert relaxed._squarable(M) and relaxed._squarable(n) and not relaxed._squarable(x)
    exact = Translator(doms, integers="exact")
    assert exact._squarable(M) and not exact._squarable(n) and not exact._squarable(x)


def test_a_point_completes_symbols_the_model_leaves_out() -> None:
    n, x, M = sympy.Symbol("n"), sympy.Symbol("x"), sympy.Symbol("M")
    t = Translator({n: "integer", x: "real", M: "nonnegative"}, integers="exact")
    t.var(n), t.var(x)
    t.expr(sympy.sqrt(M))              # M = s_M**2
    s = z3.Solver()                     # nothing asserted: the model assigns nothing
    assert s.check() == z3.sat
    assert t.point(s.model()) == {n: 0, x: 0, M: 0}
