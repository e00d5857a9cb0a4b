"""Tests of the sympy → z3 translator (attnio.proofs.sympy_to_z3)."""

from __future__ import annotations

import pytest
import sympy
import z3

from attnio.exceptions import TranslationError
from attnio.proofs.kernel import prove_statement
from attnio.results import Proved, Refuted
from attnio.proofs.sympy_to_z3 import Translator, z3_to_sympy

pytestmark = pytest.mark.trust

n, d, M = sympy.symbols("n d M", positive=True)
S = sympy.Symbol("S", positive=True)
POSITIVE = {n: "positive", d: "positive", M: "positive", S: "positive"}


def test_square_substitution_removes_roots_of_declared_nonnegative_symbols() -> None:
    t = Translator(POSITIVE)
    e = t.expr(n ** 2 * d / sympy.sqrt(M) + M ** sympy.Rational(3, 2))
    assert "s_M" in str(e) and "root" not in str(e)
    assert t.substitutions == ("M = s_M**2 with s_M > 0 (M declared positive)",)
    assert "M == s_M*s_M" in [str(c) for c in t.side_conditions]


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
    with pytest.raises(TranslationError, match="exp"):
        Translator(POSITIVE).expr(sympy.exp(n))


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
