"""Tests of the sympy → z3 translator (attnio.proofs.sympy_to_z3)."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
import sympy
import z3

from attnio.proofs.sympy_to_z3 import Translator, TranslationError, prove_sympy
from attnio.results import Proved, Refuted, Undecided

n, d, M = sympy.symbols("n d M", positive=True)
S = sympy.Symbol("S", positive=True)


def _hard_problem() -> tuple[sympy.Basic, list[sympy.Basic]]:
    """Two-slice per-part count of Hong–Kung's matmul argument: z3 needs > 60 s for it."""
    a1, b1, a2, b2 = sympy.symbols("a1 b1 a2 b2", nonnegative=True)
    total = sympy.Min(2 * S, a1 * b1) + sympy.Min(2 * S, a2 * b2)
    return sympy.Le(total, S * sympy.sqrt(2 * S)), [sympy.Le(a1 + b1 + a2 + b2, 2 * S)]


def test_square_substitution_removes_roots() -> None:
    t = Translator(squares=("M",))
    e = t.expr(n ** 2 * d / sympy.sqrt(M) + M ** sympy.Rational(3, 2))
    assert "s_M" in str(e) and "root" not in str(e)


def test_other_half_powers_get_an_auxiliary_root() -> None:
    t = Translator(squares=())
    t.expr(sympy.sqrt(2 * S))
    conditions = [str(c) for c in t.side_conditions]
    assert any("root2_" in c and ">= 0" in c for c in conditions)
    # sympy splits sqrt(2*S) = sqrt(2)*sqrt(S): one root variable for each factor.
    assert "2 == root2_2_0*root2_2_0" in conditions
    assert "root2_S_1*root2_S_1 == S" in conditions and "root2_S_1 >= 0" in conditions


def test_min_max_become_if_terms() -> None:
    t = Translator()
    assert str(t.expr(sympy.Min(n, d))).startswith("If(")
    biggest = t.expr(sympy.Max(n, d, M))
    s_m = z3.Real("s_M")
    facts = t.side_conditions
    for part in (z3.Real("n"), z3.Real("d"), s_m * s_m):
        solver = z3.Solver()
        solver.add(*facts, z3.Not(biggest >= part))
        assert solver.check() == z3.unsat


def test_positivity_from_assumptions_only() -> None:
    x = sympy.Symbol("x")  # no assumptions: no range fact
    t = Translator()
    t.expr(x + n)
    assert [str(c) for c in t.side_conditions] == ["n > 0"]


def test_unknown_construct_raises() -> None:
    with pytest.raises(TranslationError, match="exp"):
        Translator().expr(sympy.exp(n))


def test_proved_and_refuted_with_exact_counterexample() -> None:
    assert isinstance(prove_sympy(sympy.Le(n ** 2, n ** 2 * d / sympy.sqrt(M)),
                                  [sympy.Le(M, d ** 2)]), Proved)
    r = prove_sympy(sympy.Le(n ** 2, n ** 2 * d / sympy.sqrt(M)))
    assert isinstance(r, Refuted)
    ce = r.counterexample
    # The counterexample is exact and really violates the claim (M = s_M**2 reported too).
    assert ce["M"] == ce["s_M"] ** 2
    assert ce["d"] < ce["s_M"]
    assert all(isinstance(v, (int, Fraction)) for v in ce.values())


def test_relations_are_decided_by_z3_not_folded_by_sympy() -> None:
    # An unevaluated identity reaches z3 as a relation.
    goal = sympy.Eq(n * d, d * n, evaluate=False)
    assert isinstance(prove_sympy(goal), Proved)


def test_tiny_timeout_is_undecided_never_proved() -> None:
    goal, hyps = _hard_problem()
    start = time.perf_counter()
    v = prove_sympy(goal, hyps, timeout_ms=1)
    assert isinstance(v, Undecided) and "timeout" in v.reason
    assert time.perf_counter() - start < 20


def test_equivalence_translation() -> None:
    b1, b2 = n ** 2 * d ** 2 / M, n ** 2 * d / sympy.sqrt(M)
    assert isinstance(prove_sympy(sympy.Equivalent(sympy.Le(b1, b2), sympy.Ge(M, d ** 2))), Proved)
    assert isinstance(prove_sympy(sympy.Equivalent(sympy.Le(b1, b2), sympy.Ge(M, d ** 2 / 2))),
                      Refuted)


def test_z3_variables_are_shared_across_calls() -> None:
    t = Translator()
    a, b = t.expr(n), t.expr(n + 1)
    assert z3.eq(a, b.arg(0)) or z3.eq(a, b.arg(1))


def test_contradictory_hypotheses_are_not_a_proof() -> None:
    # M >= 2*d**2 and M <= d**2 cannot both hold for d > 0: anything "follows".
    v = prove_sympy(sympy.Le(n, 0), [sympy.Ge(M, 2 * d ** 2), sympy.Le(M, d ** 2)])
    assert isinstance(v, Undecided) and "vacuous" in v.reason


def test_a_real_proof_says_its_hypotheses_are_satisfiable() -> None:
    v = prove_sympy(sympy.Le(n ** 2, n ** 2 * d / sympy.sqrt(M)), [sympy.Le(M, d ** 2)])
    assert isinstance(v, Proved) and "hypotheses satisfiable" in v.detail


def test_piecewise_needs_a_default_branch() -> None:
    pw = sympy.Piecewise((n, sympy.Le(M, d ** 2)), (d, True))
    assert str(Translator().expr(pw)).startswith("If(")
    with pytest.raises(TranslationError, match="final True branch"):
        Translator().expr(sympy.Piecewise((n, sympy.Le(M, d ** 2))))
