"""Tests of the proof kernel (attnio.smt.kernel): one regression test per defect of issue 10,
and the kernel's own false twins (checks that must fail)."""

from __future__ import annotations

import pytest
import sympy as sp
import z3

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.results import Proved, Refuted, Undecided
from attnio.smt import identities, kernel, statements
from attnio.smt.kernel import check_identity, declared_domain, parse_statement, prove_statement
from attnio.smt.obvious_points import near_integer_points

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
    # (the obvious points would find x = 1/2 before giving up: they are tested elsewhere)
    monkeypatch.setattr(kernel, "_obvious_counterexample", lambda *args, **kwargs: None)
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
_N, _X = {"n": "integer"}, {"x": "real"}


@pytest.mark.parametrize("text,declarations,message", [
    ("x > 0", _N, "symbol 'x' is not declared"),
    ("__import__('os')", _N, "outside sympy arithmetic"),
    ("n + 1", _N, "must be a relation"),
    ("n >= ", _N, "not valid sympy syntax"),
    ("exec(1) > 0", _N, "function 'exec' is not supported: the functions are Abs, And"),
    ("exec > 0", _N, "symbol 'exec' is not declared"),
    # the parser's boundary
    ("2^3 >= 8", _X, r"uses '\^', which is exclusive-or in sympy syntax: write powers as \*\*"),
    ("x" * 20_001, _X, "the limit is 20000"),
    ("(" * 2001 + "x" + ")" * 2001 + " > 0", _X, "more than 2000 parentheses"),
    ("", _X, "must be a non-empty string"),
    ("x > 0 ; import os", _X, "outside sympy arithmetic"),
    ("Eq(x, 1e3e3)", _X, "number '1e3e3' is not a decimal number"),
])
def test_parse_errors_are_input_errors(text: str, declarations: dict[str, str],
                                       message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_statement(text, declarations)


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


def test_prove_statement_is_importable_from_its_home_not_from_the_roof() -> None:
    """Issue 40: the kernel's home is attnio.smt; attnio.proofs (the roof) does not
    re-export it."""
    import attnio.proofs
    import attnio.smt.kernel

    assert attnio.smt.kernel.prove_statement is prove_statement
    assert not hasattr(attnio.proofs, "prove_statement")


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


# ====================================================================== issue 20: the rules
# Each rule of the kernel (module docstring, notes/claims.md) has a test that fails when the
# rule is broken; the trust tier (pytest -m trust) runs them, benchmarks/mutation.py counts
# the mutants they kill.

def test_declared_domains_and_symbols() -> None:
    for dom in kernel.DOMAINS:
        assert declared_domain(kernel.symbol_for("q", dom)) == dom
    assert declared_domain(sp.Symbol("q")) is None
    with pytest.raises(InvalidInputError, match="domain 'complex' of 'q' must be one of"):
        kernel.symbol_for("q", "complex")
    with pytest.raises(InvalidInputError, match="domain 'odd' of 'x' must be one of"):
        prove_statement("x > 0", {"x": "odd"})


@pytest.mark.parametrize("text,lhs,rhs", [
    ("Eq(0.1 + 0.2, 0.3)", sp.Rational(3, 10), sp.Rational(3, 10)),
    ("1e3 > 999", sp.Integer(1000), sp.Integer(999)),
    ("2.5e-1 < x", sp.Rational(1, 4), sp.Symbol("x", real=True)),
    (".5 < x", sp.Rational(1, 2), sp.Symbol("x", real=True)),
])
def test_decimals_are_exact_rationals(text: str, lhs: sp.Expr, rhs: sp.Expr) -> None:
    statement, _ = parse_statement(text, {"x": "real"})
    assert (statement.lhs.doit(), statement.rhs.doit()) == (lhs, rhs)
    assert not statement.atoms(sp.Float)


def test_true_false_and_connectives_as_written() -> None:
    statement, _ = parse_statement("Piecewise((x, x > 0), (-x, True)) >= 0", {"x": "real"})
    assert statement.lhs.args[-1][1] is sp.true
    assert parse_statement("Implies(False, x > 0)", {"x": "real"})[0].args[0] is sp.false
    for text in ("Or(1/x > 0, 1/x <= 0)", "Xor(x > 0, x <= 0)", "And(x > 0, x <= 0)",
                 "Equivalent(x > 0, -x < 0)", "(x > 0) | (x <= 0)", "Not(x > 0)"):
        statement, _ = parse_statement(text, {"x": "real"})
        assert statement not in (sp.true, sp.false), text


def test_bad_declarations() -> None:
    with pytest.raises(InvalidInputError, match="variable name '1x' must be letters"):
        parse_statement("x > 0", {"1x": "real"})


def test_binary_floats_in_a_sympy_statement_are_refused() -> None:
    x = sp.Symbol("x", real=True)
    with pytest.raises(InvalidInputError, match="binary float 0.1.*Rational"):
        prove_statement(sp.Gt(x + sp.Float(0.1), x, evaluate=False))
    with pytest.raises(InvalidInputError, match="binary float"):
        prove_statement(sp.Gt(x, 0, evaluate=False), hypotheses=[sp.Gt(x, sp.Float(0.5))])


def test_a_folded_statement_is_undecided() -> None:
    assert "folded" in prove_statement(sp.true).reason
    assert "folded" in prove_statement(True).reason  # type: ignore[arg-type]


def test_bad_timeouts() -> None:
    for bad in (0, -1, float("inf"), float("nan"), True, "3"):
        with pytest.raises(InvalidInputError, match="must be a positive finite number"):
            prove_statement("x > 0", {"x": "positive"}, timeout=bad)  # type: ignore[arg-type]


def test_the_referee_kinds() -> None:
    x = sp.Symbol("x", real=True)
    n = sp.Symbol("n", integer=True, positive=True)
    ref = kernel._referee
    assert ref(sp.Ge(x, 1), {x: "real"}, {x: sp.Integer(0)}) == ("counterexample", "")
    kind, why = ref(sp.Ge(x, 1), {x: "real"}, {x: sp.Integer(2)})
    assert kind == "true" and "TRUE there" in why
    kind, why = ref(sp.Ge(1 / x, 1), {x: "real"}, {x: sp.Integer(0)})
    assert kind == "undefined" and "undefined" in why
    kind, why = ref(sp.Ge(n, 2), {n: "positive-integer"}, {n: sp.Rational(1, 2)})
    assert kind == "outside" and "is not in its declared domain positive-integer" in why
    kind, why = ref(sp.Ge(n, 2), {n: "positive-integer"}, {n: sp.Integer(0)})
    assert kind == "outside"
    kind, why = ref(sp.Ge(x, 2), {x: "real"}, {x: sp.I})
    assert kind == "unknown" and "not shown in its declared domain" in why
    kind, why = ref(sp.Gt(sp.Function("f")(x), 2), {x: "real"}, {x: sp.Integer(1)})
    assert kind == "unknown" and "cannot decide" in why
    # the hypotheses are the antecedent: false there means the statement is true there
    problem = kernel._Problem.of(sp.Ge(x, 1), [sp.Gt(x, 5)], {x: "real"})
    assert ref(problem.statement, problem.doms, {x: sp.Integer(0)})[0] == "true"
    assert ref(problem.statement, problem.doms, {x: sp.Integer(6)})[0] == "true"
    problem = kernel._Problem.of(sp.Ge(x, 7), [sp.Gt(x, 5)], {x: "real"})
    assert ref(problem.statement, problem.doms, {x: sp.Integer(6)})[0] == "counterexample"


def _models(*values: str):  # noqa: ANN202 - a fake z3 that answers these models in turn
    queue = list(values)
    real = kernel._z3_check

    def fake(assertions, timeout_s, *, isolated=False):  # noqa: ANN001, ANN202
        if not queue:
            return real(assertions, timeout_s, isolated=isolated)
        value = queue.pop(0)
        x = z3.Real("x")
        s = z3.Solver()
        s.add(x == z3.RealVal(value))
        s.check()
        return "sat", s.model(), ""
    return fake


def test_a_rejected_model_is_excluded_and_z3_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: x + 1/x >= 2 stayed undecided because z3 picked x = 0 and gave up."""
    monkeypatch.setattr(kernel, "_obvious_counterexample", lambda *args, **kwargs: None)
    monkeypatch.setattr(kernel, "_z3_check", _models("5"))      # true at x = 5
    v = prove_statement("x >= 1", {"x": "positive"})
    assert isinstance(v, Refuted) and sp.sympify(v.counterexample["x"]) < 1
    assert "1 point(s) excluded" in v.detail and "{'x': '5'}" in v.detail
    monkeypatch.setattr(kernel, "_z3_check", _models("5", "7", "9", "11"))
    v = prove_statement("x >= 1", {"x": "positive"})
    assert isinstance(v, Undecided) and "4 models of z3 were rejected" in v.reason


def test_a_model_the_referee_cannot_judge_stops_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "_referee", lambda s, d, p: ("unknown", "cannot judge"))
    v = prove_statement("x >= 1", {"x": "positive"})
    assert isinstance(v, Undecided) and "was rejected: cannot judge" in v.reason


def test_the_blocking_clause_excludes_exactly_the_model() -> None:
    x = sp.Symbol("x", real=True)
    t = kernel.Translator({x: "real"})
    s = z3.Solver()
    s.add(t.var(x) == 3)
    s.check()
    clause = kernel._block(t, s.model(), {x: "real"})
    assert z3.is_false(z3.simplify(z3.substitute(clause, (t.var(x), z3.RealVal(3)))))
    assert z3.is_true(z3.simplify(z3.substitute(clause, (t.var(x), z3.RealVal(4)))))


def test_vacuity_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    v = prove_statement("Implies(And(x > 1, x < 0), Eq(x, 5))", {"x": "real"})
    assert isinstance(v, Undecided) and v.reason == (
        "vacuous: the antecedent And(x > 1, x < 0) holds at no point of the declared domains: "
        "a proof would show nothing")
    v = prove_statement("sqrt(-1 - x**2) >= 0", {"x": "real"})
    assert v.reason.startswith("vacuous: the statement is defined at no point")
    v = prove_statement("Implies(sqrt(x) < 0, x > 5)", {"x": "real"})
    assert v.reason.endswith("where the statement is defined: a proof would show nothing")
    proved = prove_statement("Implies(x > 1, x > 0)", {"x": "real"})
    assert isinstance(proved, Proved) and "antecedents satisfiable where defined (checked)" in proved.detail
    assert "no antecedent" in prove_statement("x**2 >= 0", {"x": "real"}).detail
    monkeypatch.setattr(kernel, "_satisfiable", lambda formulas, doms, clock: "unknown")
    v = prove_statement("Implies(x > 1, x > 0)", {"x": "real"})
    assert isinstance(v, Undecided) and "possibly vacuous" in v.reason
    # without an antecedent and defined everywhere there is nothing to check
    assert isinstance(prove_statement("x**2 >= 0", {"x": "real"}), Proved)


def test_hypotheses_are_the_outermost_antecedent() -> None:
    x = sp.Symbol("x", real=True)
    v = prove_statement(sp.Ge(sp.sqrt(x), 0), hypotheses=[sp.Ge(x, 0)])
    assert isinstance(v, Proved) and v.where_defined is None       # guarded by the hypothesis
    v = prove_statement(sp.Ge(sp.sqrt(x), 0), hypotheses=[sp.Lt(x, 0)])
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous")


def test_where_defined_is_printed_only_when_some_domain_point_is_undefined() -> None:
    v = prove_statement("sqrt(M) >= 0", {"M": "positive"})
    assert isinstance(v, Proved) and v.where_defined is None
    v = prove_statement("Eq((x**2 - 1)/(x - 1), x + 1)", {"x": "real"})
    assert v.where_defined == "Ne(x - 1, 0)"
    assert "undefined e.g. at {'x': '1'}" in v.detail
    v = prove_statement("sqrt(x) + 1/sqrt(y) >= 0", {"x": "real", "y": "positive"})
    assert v.where_defined == "x >= 0"          # y > 0 is implied by y's domain: not printed


def test_domain_facts_are_dropped_from_the_condition() -> None:
    M, x = sp.Symbol("M"), sp.Symbol("x")
    drop = kernel.drop_domain_facts
    assert drop(sp.Ge(M, 0, evaluate=False), {M: "positive"}) is sp.true
    assert drop(sp.Ge(x, 0, evaluate=False), {x: "real"}) == sp.Ge(x, 0, evaluate=False)
    both = sp.And(sp.Ge(M, 0, evaluate=False), sp.Ge(x, 0, evaluate=False), evaluate=False)
    assert drop(both, {M: "positive", x: "real"}) == sp.Ge(x, 0, evaluate=False)
    assert drop(sp.Gt(sp.exp(x), 0, evaluate=False), {x: "real"}) is sp.true
    # the symbol's own flags are never consulted, only its declaration
    flagged = sp.Symbol("f", positive=True)
    assert drop(sp.Ge(flagged, 0, evaluate=False), {flagged: "real"}) != sp.true


def test_integer_gaps_are_added_only_when_a_relaxed_model_is_not_integral() -> None:
    v = prove_statement("Implies(M > d**2, M >= d**2 + 1)",
                        {"M": "positive-integer", "d": "positive-integer"})
    assert isinstance(v, Proved) and "integer gaps" in v.detail
    v = prove_statement("n >= 1", {"n": "positive-integer"})
    assert isinstance(v, Proved) and "integer gaps" not in v.detail


def test_the_time_budget_covers_the_whole_call() -> None:
    clock = kernel._Clock(0.0)
    with pytest.raises(kernel._OutOfTime):
        clock.left()
    clock = kernel._Clock(100.0)
    assert 99 < clock.left() <= 100 and clock.left(3.0) == 3.0
    v = prove_statement("x**3 - 2*x + 1 >= -10", {"x": "positive"}, timeout=1e-6)
    assert isinstance(v, Undecided) and "time limit of 1e-06 s was reached" in v.reason


def test_isolated_calls_agree_and_are_hard_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    assert prove_statement("x**2 >= 0", {"x": "real"}, isolate=True).verdict == "proved"
    with pytest.raises(InvalidInputError, match="exponent 200000 of .* above the cap 1000"):
        prove_statement("(x + 1)**200000 >= 0", {"x": "real"}, timeout=1.0, isolate=True)
    import time
    monkeypatch.setattr(kernel, "_decide", lambda *args, **kwargs: time.sleep(60))  # (forked)
    v = prove_statement("x**2 >= 0", {"x": "real"}, timeout=1.0, isolate=True)
    assert isinstance(v, Undecided)
    assert "time limit of 1 s was reached" in v.reason and "sympy included" in v.reason
    with pytest.raises(InvalidInputError, match="symbol 'y' is not declared"):
        prove_statement("y > 0", {"x": "real"}, isolate=True)     # the error comes back


def test_constant_statements() -> None:
    assert prove_statement("log(8) > 3*log(2)", {}).verdict == "refuted"     # equal: not greater
    assert prove_statement("Eq(log(8), 3*log(2))", {}).verdict == "proved"
    v = prove_statement("sqrt(-1) >= 0", {})
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous: the statement is undefined")
    v = prove_statement("Implies(1 > 2, 3 > 4)", {})
    assert isinstance(v, Undecided) and "vacuous: the antecedent 1 > 2 is not true" in v.reason
    huge = sp.Pow(2, sp.Pow(10, 10, evaluate=False), evaluate=False)    # built, not parsed
    v = prove_statement(sp.Gt(huge, 0, evaluate=False), {})
    assert isinstance(v, Undecided) and "too large" in v.reason
    assert prove_statement(sp.Gt(sp.Integer(3), 2, evaluate=False),
                           hypotheses=[sp.Gt(sp.Integer(1), 0, evaluate=False)]).proved


def test_statements_smt_cannot_express() -> None:
    # trigonometric functions of symbols are outside SMT and the exp/log fragment (issue 38)
    v = prove_statement("Eq(cos(x), 1)", {"x": "real"})
    assert isinstance(v, Refuted) and v.evidence.kind == "exact-arithmetic"
    assert v.detail.startswith("counterexample among the obvious points")
    v = prove_statement("Eq(log(x*y)*(sin(x)**2 + cos(x)**2), log(x) + log(y))",
                        {"x": "real", "y": "real"})
    assert isinstance(v, Proved) and v.evidence.kind == "sympy-canonical"
    assert "x, y > 0 proved from the hypotheses" in v.detail and v.where_defined
    v = prove_statement("sin(x)**2 <= 1", {"x": "real"})
    assert isinstance(v, Undecided) and "not expressible in SMT arithmetic" in v.reason
    # exp and log of symbols are the exp/log fragment: decided by SMT (issue 38)
    v = prove_statement("Eq(exp(x), 1)", {"x": "real"})
    assert isinstance(v, Refuted) and v.evidence.kind in ("smt-forall", "exact-arithmetic")
    v = prove_statement("exp(x) > 0", {"x": "real"})
    assert isinstance(v, Proved) and v.where_defined is None
    v = prove_statement("Eq(log(log(x)), 0)", {"x": "real"})
    assert isinstance(v, Refuted)


def test_cvc5_checks_integer_problems_too() -> None:
    """A mutant forcing QF_NRA made cvc5 answer n/a on every integer problem, silently."""
    v = prove_statement("Implies(2*n > 3, n >= 2)", {"n": "integer"})
    assert isinstance(v, Proved) and v.evidence.solvers.get("cvc5") == "proved", v.evidence


def test_the_cli_answers_every_example_of_issue_20(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "2^3 >= 8"]) == 2
    assert "write powers as **" in capsys.readouterr().err
    assert main(["prove", "2**(10**10) > 0", "--timeout", "5"]) == 2     # issue 22: the cap
    assert "exponent 10000000000 of 2**(10**10) is above the cap 1000" in capsys.readouterr().err
    assert main(["prove", "Piecewise((x, x > 0), (-x, True)) >= 0", "--var", "x:real"]) == 0
    assert main(["prove", "Eq(0.1 + 0.2, 0.3)"]) == 0
    assert main(["prove", "x + 0.5 > x", "--var", "x:real"]) == 0
    assert main(["prove", "sqrt(n - d)*sqrt(n - d) >= 0", "--var", "n:positive-integer",
                 "--var", "d:positive-integer"]) == 0
    out = capsys.readouterr().out
    assert "proved where defined (-d + n >= 0)" in out
    assert main(["prove", "Implies(And(x > 1, x < 0), Eq(x, 5))", "--var", "x:real",
                 "--json"]) == 1
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "undecided" and data["detail"].startswith("vacuous")
    assert data["where_defined"] is None


# ------------------------------------------------------------------------- check_identity
_X = sp.Symbol("x")


def test_identity_by_simplify_is_sympy_canonical_with_its_reason() -> None:
    n, d = sp.symbols("n d", positive=True, integer=True)
    v = check_identity(d ** 2 * n / d + n, n * d + n)
    assert isinstance(v, Proved) and v.evidence is not None
    assert v.evidence.kind == "sympy-canonical"
    assert v.detail == "simplify((d*n + n) - (d*n + n)) == 0"
    assert v.where_defined is None


def test_identity_refuted_on_the_grid_with_exact_values() -> None:
    d = sp.Symbol("d", positive=True, integer=True)
    v = check_identity(d ** 2, d ** 2 / 2)
    assert isinstance(v, Refuted) and v.evidence is not None
    assert v.evidence.kind == "exact-arithmetic"
    assert v.counterexample == {"d": "1", "lhs": "1", "rhs": "1/2"}
    assert v.detail == "d**2 != d**2/2 at this point (exact evaluation)"


def test_identity_declared_domains_not_assumptions() -> None:
    # x carries no assumption: the mapping is its only declaration
    v = check_identity(_X, sp.Abs(_X), {_X: "nonnegative"})
    assert isinstance(v, Proved)
    assert isinstance(check_identity(_X, sp.Abs(_X), {_X: "real"}), Refuted)


def test_identity_whose_sides_simplify_apart_at_construction() -> None:
    # Eq(x, x + 1) would evaluate to False at construction, leaving no symbol to declare
    v = check_identity(_X, _X + 1, {_X: "real"})
    assert isinstance(v, Refuted) and v.counterexample == {"x": "1", "lhs": "1", "rhs": "2"}


def test_identity_grid_skips_points_outside_the_hypotheses() -> None:
    v = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X >= 0])
    assert isinstance(v, Proved)
    # false where the hypothesis holds: the grid finds it (x = 1 and 2 fail the hypothesis
    # first, so the grid must skip them, not stop)
    w = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X <= 0])
    assert isinstance(w, Refuted) and w.evidence is not None
    assert w.evidence.kind == "exact-arithmetic" and w.counterexample["x"] == "-1"


def test_identity_grid_skips_points_where_a_side_is_undefined() -> None:
    # at x = -1 the left side is undefined: no counterexample there, the grid goes on to 1/2
    v = check_identity(sp.sqrt(_X), _X, {_X: "real"})
    assert isinstance(v, Refuted) and v.evidence is not None
    assert v.evidence.kind == "exact-arithmetic" and v.counterexample["x"] == "2"
    u = check_identity(sp.sqrt(_X) + 1, sp.sqrt(_X) + 1 + _X - _X ** 2 + _X ** 2 - _X, {_X: "real"})
    assert isinstance(u, Proved)


def test_identity_grid_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    # one grid point (x = 1, where both sides agree): the counterexample comes from the solver
    monkeypatch.setattr(identities, "_GRID_POINTS", 1)
    v = check_identity(_X, sp.Abs(_X), {_X: "real"})
    assert isinstance(v, Refuted) and v.evidence is not None
    assert v.evidence.kind != "exact-arithmetic"


def test_identity_through_the_solvers_uses_the_second_solver_by_default() -> None:
    # (a nonnegative x would let simplify decide: |x| = x under the declared assumptions)
    v = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X >= 0])
    assert isinstance(v, Proved) and v.evidence is not None
    assert v.evidence.solvers.get("cvc5") == "proved", v.evidence
    w = check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X >= 0], second_solver=False)
    assert w.evidence is not None and "cvc5" not in w.evidence.solvers


def test_identity_undefined_somewhere_is_proved_only_where_defined() -> None:
    """simplify((x/x) - 1) == 0, but x/x is undefined at x = 0: not a sympy proof."""
    x_over_x = sp.Mul(_X, sp.Pow(_X, -1, evaluate=False), evaluate=False)
    v = check_identity(x_over_x, 1, {_X: "real"})
    assert isinstance(v, Proved) and v.where_defined == "Ne(x, 0)"
    assert v.evidence is not None and v.evidence.kind == "smt-forall"
    p = check_identity(x_over_x, 1, {_X: "positive"})
    assert isinstance(p, Proved) and p.where_defined is None
    assert p.evidence is not None and p.evidence.kind == "sympy-canonical"
    squared_root = sp.Pow(sp.sqrt(_X), 2, evaluate=False)
    assert check_identity(squared_root, _X, {_X: "real"}).where_defined == "x >= 0"


def test_identity_with_an_unknown_difference_is_undecided_with_reasons() -> None:
    # Γ(1/3)Γ(2/3) = 2π/√3: sympy simplifies the difference to 0, but Γ has no definedness
    # rule, so that is no proof; no other rule decides it, no grid point separates the sides
    lhs = sp.gamma(sp.Rational(1, 3)) * sp.gamma(sp.Rational(2, 3)) * _X
    v = check_identity(lhs, 2 * sp.pi / sp.sqrt(3) * _X, {_X: "real"}, timeout=5)
    assert isinstance(v, Undecided)
    assert v.reason.startswith("simplify left ") and "no point of the grid" in v.reason


# ------------------------------------------------------------------ messages and versions
def test_long_parse_errors_are_shortened_to_one_line() -> None:
    assert statements._short("a  b\n c") == "a b c"
    assert statements._short("x" * 120) == "x" * 120
    assert statements._short("x" * 121) == "x" * 119 + "…"
    assert statements._short("abcdef", width=4) == "abc…"


def test_solver_versions_name_both_solvers(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import cvc5
    assert kernel.solver_versions() == {"z3": z3.get_version_string(),
                                        "cvc5": getattr(cvc5, "__version__", "installed")}
    monkeypatch.setattr(cvc5, "__version__", "9.9.9", raising=False)
    assert kernel.solver_versions()["cvc5"] == "9.9.9"
    monkeypatch.delattr(cvc5, "__version__")
    assert kernel.solver_versions()["cvc5"] == "installed"
    monkeypatch.setitem(sys.modules, "cvc5", None)
    assert kernel.solver_versions() == {"z3": z3.get_version_string(), "cvc5": None}


def test_a_blocked_model_names_every_declared_symbol_even_one_the_model_leaves_out() -> None:
    from attnio.smt.sympy_to_z3 import Translator
    x, y = sp.Symbol("x"), sp.Symbol("y")
    doms = {x: "real", y: "real"}
    t = Translator(doms)
    s = z3.Solver()
    s.add(t.var(y) == 3)                     # x does not occur: the model leaves it out
    assert s.check() == z3.sat
    clause = kernel._block(t, s.model(), doms)
    at = {"x": 0, "y": 3}

    def holds(values: dict) -> bool:
        sub = [(t.var(sym), z3.RealVal(values[str(sym)])) for sym in doms]
        return z3.is_true(z3.simplify(z3.substitute(clause, *sub)))

    assert not holds(at)                     # the model's point (x completed to 0) is excluded
    assert holds({"x": 1, "y": 3}) and holds({"x": 0, "y": 4})


# -------------------------------------------------------------------- statements without symbols
@pytest.mark.parametrize("text,kind,detail", [
    ("Eq(log(8), 3*log(2))", Proved,
     "exact arithmetic: true (zero tests by minimal polynomials and linear forms in "
     "logarithms / exponentials)"),
    ("log(8) > 3*log(2)", Refuted, "exact arithmetic: false"),
    ("sqrt(-1) >= 0", Undecided,
     "vacuous: the statement is undefined (e.g. a square root of a negative number or a "
     "division by zero)"),
    ("Implies(1 > 2, 3 > 4)", Undecided,
     "vacuous: the antecedent 1 > 2 is not true (it is false in exact arithmetic)"),
    ("Implies(sqrt(-1) > 0, 3 > 4)", Undecided,
     "vacuous: the antecedent sqrt(-1) > 0 is not true (it is undefined in exact arithmetic)"),
])
def test_a_constant_statement_is_decided_by_exact_arithmetic(text: str, kind: type,
                                                             detail: str) -> None:
    v = prove_statement(text, {})
    assert isinstance(v, kind), v
    text_of = v.detail if isinstance(v, (Proved, Refuted)) else v.reason
    assert text_of == detail
    assert v.evidence is not None and v.evidence.kind == "exact-arithmetic"
    if isinstance(v, Refuted):
        assert v.counterexample == {}


def test_a_constant_whose_sign_nothing_decides_is_undecided() -> None:
    # sin²(1) + cos²(1) = 1, a zero no rule of the referee certifies
    v = prove_statement(sp.Eq(sp.sin(1) ** 2 + sp.cos(1) ** 2, 1, evaluate=False), {})
    assert isinstance(v, Undecided)
    assert v.reason == ("exact arithmetic could not decide the statement (a sign it cannot "
                        "certify, or a number too large to evaluate)")
    assert v.evidence is not None and v.evidence.kind == "exact-arithmetic"


# ------------------------------------------------------------------- fresh integers of floor
def test_each_floor_gets_its_own_integer() -> None:
    # one shared integer for floor(x) and floor(y) would prove floor(x) = floor(y)
    v = prove_statement("Eq(floor(x), floor(y))", {"x": "real", "y": "real"})
    assert isinstance(v, Refuted)
    from attnio.smt.sympy_to_z3 import Translator
    x, y = sp.Symbol("x"), sp.Symbol("y")
    t = Translator({x: "real", y: "real"})
    t.expr(sp.floor(x) + sp.ceiling(y))
    names = sorted(str(c) for c in _constants_of(t))
    assert names == ["ceiling_1!", "floor_2!"]     # numbered in the order translated


def _constants_of(t) -> list:  # noqa: ANN001
    from attnio.smt.z3tools import constants
    return [c for c in constants(list(t.side_conditions)) if str(c) not in ("x", "y")]


# ---------------------------------------------------------------- the referee, word for word
def test_the_referee_says_why_a_point_is_no_counterexample() -> None:
    x, n = sp.Symbol("x"), sp.Symbol("n")
    doms = {x: "real", n: "positive-integer"}
    goal = sp.Gt(sp.sqrt(x) + n, 1, evaluate=False)
    at = {x: sp.Integer(0), n: sp.Integer(1)}
    assert kernel._referee(goal, doms, at) == ("counterexample", "")
    assert kernel._referee(goal, doms, {x: sp.Integer(4), n: sp.Integer(1)}) == (
        "true", "the statement is TRUE there when evaluated exactly (solver and exact "
                "arithmetic disagree)")
    assert kernel._referee(goal, doms, {x: sp.Integer(-1), n: sp.Integer(1)}) == (
        "undefined", "the statement is undefined there")
    assert kernel._referee(goal, doms, {x: sp.Integer(0), n: sp.Rational(1, 2)}) == (
        "outside", "n = 1/2 is not in its declared domain positive-integer")
    hard = sp.Eq(sp.sin(1) ** 2 + sp.cos(1) ** 2, x + 1, evaluate=False)
    assert kernel._referee(hard, {x: "real"}, {x: sp.Integer(0)}) == (
        "unknown", "exact arithmetic cannot decide the statement there")


def test_integer_points_around_a_relaxed_model() -> None:
    n, m, x = sp.Symbol("n"), sp.Symbol("m"), sp.Symbol("x")
    points = list(near_integer_points(
        {n: sp.Rational(5, 2), x: sp.Rational(1, 3)}, {n: "positive-integer", x: "real"}))
    assert points == [{n: v, x: sp.Rational(1, 3)} for v in (1, 2, 3, 4)]
    two = list(near_integer_points({n: sp.Rational(-1, 2), m: sp.Integer(7)},
                                           {n: "integer", m: "integer"}))
    assert len(two) == 16 and two[0] == {n: -2, m: 6} and two[-1] == {n: 1, m: 9}


def test_the_definedness_condition_keeps_only_what_the_domains_do_not_imply() -> None:
    # sqrt(n - 1) needs n - 1 >= 0: implied by n >= 1 (no bare domain fact, so the kernel
    # must ask); sqrt(x) needs x >= 0: not implied
    t = prove_statement("sqrt(n - 1) * sqrt(x) >= 0", {"n": "positive-integer", "x": "real"})
    assert isinstance(t, Proved) and t.where_defined == "x >= 0"
    w = prove_statement("Implies(x > 2, sqrt(n) + 1/(x - 1) > 0)", {"n": "positive", "x": "real"})
    assert isinstance(w, Proved) and w.where_defined is None      # x > 2: defined
    assert "; antecedents satisfiable where defined (checked)" in w.detail
    u = prove_statement("sqrt(n) * sqrt(x) >= 0", {"n": "positive", "x": "real"})
    assert isinstance(u, Proved) and u.where_defined == "x >= 0"
    assert "; no antecedent" in u.detail


@pytest.mark.parametrize("answer,shown", [("unknown", "undecided"), ("n/a", "n/a")])
def test_a_silent_second_solver_is_recorded_not_trusted(monkeypatch: pytest.MonkeyPatch,
                                                        answer: str, shown: str) -> None:
    monkeypatch.setattr(kernel, "cvc5_check", lambda smt2, seconds: answer)
    v = prove_statement("x**2 >= 0", {"x": "real"})
    assert isinstance(v, Proved) and v.evidence is not None
    assert v.evidence.solvers == {"z3": "proved", "cvc5": shown}
    w = prove_statement("x**2 >= 1", {"x": "real"})
    assert isinstance(w, Refuted) and w.evidence is not None
    assert w.evidence.solvers == {"z3": "refuted", "cvc5": shown}
    assert w.detail.startswith("counterexample checked by exact evaluation")


def test_an_exact_search_without_answer_is_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = kernel._search

    def no_answer(problem, integers, clock, cap, *, gaps=False):  # noqa: ANN001, ANN202
        answer, t = real(problem, integers, clock, cap, gaps=gaps)
        if integers == "exact":
            return kernel._Answer("unknown", None, answer.assertions), t
        return kernel._Answer("unknown", None, answer.assertions, reason="planted"), t

    monkeypatch.setattr(kernel, "_search", no_answer)
    v = prove_statement("n >= 1", {"n": "positive-integer"})
    assert isinstance(v, Undecided)
    assert v.reason.startswith("z3 could not decide the statement")
    assert "relaxed encoding: planted" in v.reason
    assert "exact encoding: z3 unknown" in v.reason
    assert v.evidence is not None and v.evidence.solvers == {"z3": "undecided"}


def test_isolated_calls_out_of_time_or_memory_are_undecided(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    from attnio.smt.isolation import HardLimitReached

    def out_of_time(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise HardLimitReached("the time limit of 2 s was reached")

    def out_of_memory(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise MemoryError

    monkeypatch.setattr(kernel, "run_isolated", out_of_time)
    v = prove_statement("x >= 0", {"x": "real"}, isolate=True, timeout=2)
    assert isinstance(v, Undecided)
    assert v.reason == ("the time limit of 2 s was reached; the limit covers the whole call, "
                        "sympy included")
    monkeypatch.setattr(kernel, "run_isolated", out_of_memory)
    w = prove_statement("x >= 0", {"x": "real"}, isolate=True, timeout=2)
    assert isinstance(w, Undecided)
    assert w.reason == ("the statement needs more memory than the isolated call may use "
                        f"({kernel.MEMORY_LIMIT_BYTES // 1024 ** 3} GiB)")


def test_beyond_smt_the_reason_names_what_could_not_be_expressed() -> None:
    v = prove_statement("sin(x) > x**3 - 10**9", {"x": "real"}, timeout=5)
    assert isinstance(v, Undecided)
    assert v.reason.startswith("not expressible in SMT arithmetic (")
    assert "sin" in v.reason.split(";")[0]


_ALL_DOMAINS = "real, positive, nonnegative, integer, positive-integer, nonnegative-integer"


def test_an_unknown_domain_is_named_with_the_list() -> None:
    with pytest.raises(InvalidInputError) as err:
        kernel.symbol_for("x", "complex")
    assert str(err.value) == f"domain 'complex' of 'x' must be one of {_ALL_DOMAINS}"
    x = sp.Symbol("x")
    with pytest.raises(InvalidInputError) as err2:
        kernel.domains_of(sp.Ge(x, 0), [], {x: "rational"})
    assert str(err2.value) == f"domain 'rational' of x must be one of {_ALL_DOMAINS}"


def test_a_domain_implied_condition_is_left_out_of_where_defined() -> None:
    # n**2 - n >= 0 holds for every positive integer but no sympy assumption folds it: the
    # kernel must ask the solver, and keep only x >= 0
    v = prove_statement("sqrt(n**2 - n) * sqrt(x) >= 0", {"n": "positive-integer", "x": "real"})
    assert isinstance(v, Proved) and v.where_defined == "x >= 0"


def test_an_integer_counterexample_next_to_a_relaxed_model(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    # the relaxed search returns a non-integral point; the integer points next to it hold a
    # counterexample, found before any integer search
    real = kernel._search

    def planted(problem, integers, clock, cap, *, gaps=False):  # noqa: ANN001, ANN202
        answer, t = real(problem, integers, clock, cap, gaps=gaps)
        (n,) = problem.doms
        if integers == "relaxed" and not gaps:
            return kernel._Answer("outside", {n: sp.Rational(5, 2)}, answer.assertions,
                                  reason="planted"), t
        if integers == "relaxed":
            return kernel._Answer("unknown", None, answer.assertions, reason="planted"), t
        raise AssertionError("no integer search: the near points decide")

    monkeypatch.setattr(kernel, "_search", planted)
    v = prove_statement("n != 3", {"n": "positive-integer"})
    assert isinstance(v, Refuted) and v.counterexample == {"n": "3"}
    assert v.detail.startswith("counterexample found among the integer points next to z3's "
                               "relaxed model; checked by exact evaluation (")
    assert v.evidence is not None and v.evidence.kind == "exact-arithmetic"


def test_pins_are_the_models_exact_values() -> None:
    a, y = z3.Int("a"), z3.Real("y")
    s = z3.Solver()
    s.add(a == 3, y == z3.RealVal("1/2"))
    assert s.check() == z3.sat
    pins = kernel._pins(s.model())
    assert sorted(str(p) for p in pins) == ["1/2 == y", "3 == a"]
    assert kernel._pins(None) == ()


def test_check_identity_passes_its_time_limit_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def spy(statement, domains=None, **kwargs):  # noqa: ANN001, ANN003, ANN202
        seen.update(kwargs)
        return Undecided("spy")

    monkeypatch.setattr(kernel, "prove_statement", spy)
    check_identity(_X, sp.Abs(_X), {_X: "real"}, hypotheses=[_X >= 0], timeout=7.5,
                   second_solver=False)
    assert seen["timeout"] == 7.5 and seen["second_solver"] is False


def test_an_empty_statement_is_refused_by_name() -> None:
    with pytest.raises(InvalidInputError) as err:
        parse_statement("   ", {})
    assert str(err.value) == "STATEMENT must be a non-empty string"
