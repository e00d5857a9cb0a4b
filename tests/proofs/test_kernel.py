"""Tests of the proof kernel (attnio.proofs.kernel): one regression test per defect of issue 10,
and the kernel's own false twins (checks that must fail)."""

from __future__ import annotations

import sympy as sp
import pytest
import z3

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.proofs import kernel
from attnio.proofs.kernel import check_identity, declared_domain, parse_statement, prove_statement
from attnio.results import Proved, Refuted, Undecided

pytestmark = pytest.mark.trust


# ----------------------------------------------------- positivity from the declaration only
@pytest.mark.parametrize("name", ["M", "Z_QK", "x"])
def test_positivity_comes_from_the_declaration_not_the_name(name: str) -> None:
    """Regression: every symbol *named* M or Z_QK was rewritten as s**2 > 0."""
    sym = sp.Symbol(name, real=True)
    for statement in (sp.Ge(sym, 0, evaluate=False), sp.Gt(sym, 0, evaluate=False)):
        v = prove_statement(statement)
        assert isinstance(v, Refuted), v
        assert sp.sympify(v.counterexample[name]) <= 0
    assert isinstance(prove_statement(sp.Gt(sp.Symbol(name, positive=True), 0, evaluate=False)),
                      Proved)


def test_an_undeclared_symbol_is_an_input_error_not_an_assumption() -> None:
    with pytest.raises(InvalidInputError, match="no declared domain"):
        prove_statement(sp.Ge(sp.Symbol("M"), 0, evaluate=False))
    assert declared_domain(sp.Symbol("M")) is None


def test_integer_symbols_are_integers() -> None:
    assert isinstance(prove_statement("n >= 1", {"n": "positive-integer"}), Proved)
    v = prove_statement("n >= 1", {"n": "positive"})
    assert isinstance(v, Refuted) and sp.sympify(v.counterexample["n"]) < 1
    # no integer squares to 2, a real does
    assert isinstance(prove_statement("Ne(n**2, 2)", {"n": "integer"}), Proved)
    assert isinstance(prove_statement("Ne(n**2, 2)", {"n": "real"}), Refuted)


def test_the_change_of_variables_is_named_in_the_verdict() -> None:
    v = prove_statement("sqrt(M) <= M", {"M": "positive-integer"})
    assert isinstance(v, Proved) and "M = s_M**2 with s_M >= 1" in v.detail
    v = prove_statement("sqrt(M) <= M", {"M": "positive"})
    assert isinstance(v, Refuted)                   # M = 1/4


# ------------------------------------------------------ Refuted means a checked counterexample
@pytest.mark.parametrize("lhs,rhs", [
    (sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7), sp.Rational(1, 2)),
    (sp.sqrt(5 + 2 * sp.sqrt(6)), sp.sqrt(2) + sp.sqrt(3)),
])
def test_true_identities_with_hard_constants_are_never_refuted(lhs: sp.Expr, rhs: sp.Expr) -> None:
    """Regression: simplify(a - b) != 0 was reported as Refuted."""
    assert not isinstance(check_identity(lhs, rhs), Refuted)
    x = sp.Symbol("x", positive=True)
    assert not isinstance(check_identity(x * lhs, x * rhs), Refuted)


def test_symbolic_check_identity_and_crossover_refute_only_with_exact_points() -> None:
    from attnio.symbolic.checks import check_identity as symbolic_check_identity
    from attnio.symbolic.crossovers import check_crossover
    from attnio.symbolic.symbols import d

    hard = sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7)
    assert not isinstance(symbolic_check_identity(d * hard, d / 2), Refuted)
    r = check_crossover("bwd.tight", d ** 2 / 2)
    assert isinstance(r, Refuted) and r.evidence.kind == "exact-arithmetic"
    assert r.counterexample["branch_1"] != r.counterexample["branch_2"]


def test_explicit_bounds_identity_uses_the_kernel() -> None:
    from attnio.proofs.explicit_bounds import _sy_identity
    from attnio.proofs.registry import CheckContext

    v = _sy_identity(CheckContext())
    assert isinstance(v, Proved) and v.evidence is not None
    twin = _sy_identity(CheckContext(), denominator=sp.Integer(4))
    assert isinstance(twin, Refuted) and twin.evidence is not None


def test_a_counterexample_that_does_not_falsify_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation test of the referee: a solver "model" where the goal holds is never Refuted."""
    real_check = kernel._z3_check

    def lying_solver(assertions, timeout_s, *, isolated=False):  # noqa: ANN001, ANN202
        x = z3.Real("x")
        s = z3.Solver()
        s.add(x == 5)          # x = 5 satisfies x >= 1: not a counterexample
        s.check()
        return "sat", s.model(), ""

    monkeypatch.setattr(kernel, "_z3_check", lying_solver)
    v = prove_statement("x >= 1", {"x": "positive"})
    assert isinstance(v, Undecided) and "TRUE there" in v.reason
    monkeypatch.setattr(kernel, "_z3_check", real_check)
    assert isinstance(prove_statement("x >= 1", {"x": "positive"}), Refuted)


def test_a_counterexample_outside_the_domain_is_not_a_refutation(monkeypatch: pytest.MonkeyPatch) -> None:
    def fractional_solver(assertions, timeout_s, *, isolated=False):  # noqa: ANN001, ANN202
        x = z3.Real("n")
        s = z3.Solver()
        s.add(x == z3.RealVal("1/2"))
        s.check()
        return "sat", s.model(), ""

    monkeypatch.setattr(kernel, "_z3_check", fractional_solver)
    v = prove_statement("n >= 1", {"n": "positive-integer"})
    assert isinstance(v, Undecided)


# ------------------------------------------------------------------------- second solver
def test_solver_disagreement_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "cvc5_check", lambda smt2, timeout_s: "sat")
    v = prove_statement("x**2 >= 0", {"x": "real"})
    assert isinstance(v, Undecided) and "disagree" in v.reason
    assert v.evidence.solvers == {"z3": "proved", "cvc5": "refuted"}


def test_cvc5_that_cannot_take_a_problem_says_n_a(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "cvc5_check", lambda smt2, timeout_s: "n/a")
    v = prove_statement("x**2 >= 0", {"x": "real"})
    assert isinstance(v, Proved) and v.evidence.solvers == {"z3": "proved", "cvc5": "n/a"}
    assert v.evidence.short() == "z3 ∀"          # n/a is not counted as agreement


def test_cvc5_agrees_on_a_real_problem() -> None:
    assert kernel.cvc5_check("(declare-fun x () Real)(assert (< (* x x) 0))(check-sat)", 5) == "unsat"
    assert kernel.cvc5_check("(declare-fun x () Real)(assert (> (* x x) 2))(check-sat)", 5) == "sat"
    assert kernel.cvc5_check("(this is not smt", 5) == "n/a"


# ------------------------------------------------------------------------------ vacuity
def test_contradictory_hypotheses_are_not_a_proof() -> None:
    n, d, M = sp.symbols("n d M", positive=True)
    v = prove_statement(sp.Le(n, 0, evaluate=False),
                        hypotheses=[sp.Ge(M, 2 * d ** 2), sp.Le(M, d ** 2)])
    assert isinstance(v, Undecided) and "vacuous" in v.reason


def test_integer_vacuity_is_checked_over_the_integers() -> None:
    k = sp.Symbol("k", integer=True)
    # 1/3 < k < 2/3 has real solutions but no integer one: the proof would be vacuous.
    v = prove_statement(sp.Eq(k, 7, evaluate=False),
                        hypotheses=[sp.Gt(3 * k, 1), sp.Lt(3 * k, 2)])
    assert isinstance(v, Undecided) and "vacuous" in v.reason


def test_timeout_is_undecided_never_proved() -> None:
    s = sp.Symbol("S", positive=True)
    a1, b1, a2, b2 = sp.symbols("a1 b1 a2 b2", nonnegative=True)
    total = sp.Min(2 * s, a1 * b1) + sp.Min(2 * s, a2 * b2)
    v = prove_statement(sp.Le(total, s * sp.sqrt(2 * s), evaluate=False),
                        hypotheses=[sp.Le(a1 + b1 + a2 + b2, 2 * s)], timeout=0.001)
    assert isinstance(v, Undecided)


# ------------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("text,message", [
    ("x > 0", "symbol 'x' is not declared"),
    ("__import__('os')", "outside sympy arithmetic"),
    ("n + 1", "must be a relation"),
    ("n >= ", "not valid sympy syntax"),
    ("exec(1) > 0", "symbol 'exec' is not declared"),
])
def test_parse_errors_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_statement(text, {"n": "integer"})


def test_relations_are_never_folded_by_sympy() -> None:
    statement, _ = parse_statement("Eq(sqrt(2)*sqrt(3), sqrt(6))", {})
    assert statement not in (sp.true, sp.false)


# ------------------------------------------------------------------------------ the CLI
def test_prove_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "x**2 >= 0", "--var", "x:real"]) == 0
    assert main(["prove", "x >= 0", "--var", "x:real"]) == 1
    assert main(["prove", "x >= 0"]) == 2
    assert main(["prove", "x >= 0", "--var", "x:complex"]) == 2
    assert main(["prove", "x >= 0", "--var", "x:real", "--timeout", "nan"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert all(line.startswith("attnio prove: error:") for line in err) and len(err) == 3


def test_prove_statement_is_importable_from_the_package() -> None:
    from attnio.proofs import prove_statement as exported

    assert exported is prove_statement


# ----------------------------------------------------------- import failures fail verify
def test_a_module_failing_to_import_fails_verify_and_self_test(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with a claim module broken at import, --self-test printed "70/70 refuted"."""
    from attnio.proofs import registry

    real = registry.claim_modules
    monkeypatch.setattr(registry, "claim_modules",
                        lambda: [*real(), "attnio.proofs.broken_module_for_test"])
    assert main(["verify", "--only", "fwd.tight.first_branch"]) == 1
    assert main(["verify", "--self-test", "--only", "fwd.tight.first_branch.twin*"]) == 1
    captured = capsys.readouterr()
    assert "broken_module_for_test" in captured.out + captured.err
