"""The rules of attnio.smt.z3tools, one test each (the trust tier): the verdict of each
solver answer, the re-evaluation of models, the second opinion with pinned values, vacuity,
the isolated check and the model's exact values."""

from __future__ import annotations

from fractions import Fraction

import pytest
import z3

from attnio.results import Proved, Refuted, Undecided
from attnio.smt import z3tools
from attnio.smt.z3tools import antecedent_contexts, check_sat, check_sat_isolated, prove

pytestmark = pytest.mark.trust

X, Y = z3.Reals("x y")
N = z3.Int("n")


# ------------------------------------------------------------------------------ prove
def test_unsat_is_proved_with_both_solvers() -> None:
    v = prove(X * X >= 0)
    assert isinstance(v, Proved) and v.detail == "z3: hypotheses ∧ ¬claim is unsat"
    assert v.evidence is not None and v.evidence.kind == "smt-forall"
    assert v.evidence.solvers == {"z3": "proved", "cvc5": "proved"}


def test_sat_is_refuted_with_exact_values() -> None:
    v = prove(X <= 1, [X > 0, X < 3, 2 * X == 3])
    assert isinstance(v, Refuted)
    assert v.counterexample == {"x": Fraction(3, 2)}
    assert v.detail == "z3 found a counterexample; re-evaluated on the formulas"
    assert v.evidence is not None and v.evidence.solvers == {"z3": "refuted", "cvc5": "refuted"}


def test_without_second_solver_no_cvc5_answer() -> None:
    v = prove(X * X >= 0, second_solver=False)
    assert isinstance(v, Proved) and v.evidence is None
    w = prove(X <= 1, [X > 2], second_solver=False)
    assert isinstance(w, Refuted) and w.evidence is None


def test_hypotheses_restrict_the_claim() -> None:
    assert isinstance(prove(X > 0, [X > 1]), Proved)
    assert isinstance(prove(X > 0, [X > -1]), Refuted)


def test_unknown_is_undecided_with_the_reason() -> None:
    a, b, c = z3.Ints("a b c")
    hard = z3.Or(a * a * a + b * b * b + c * c * c != 33, a * a <= 1_000_000)
    v = prove(hard, timeout_ms=50)
    assert isinstance(v, Undecided)
    assert v.reason.startswith("z3 returned unknown (") and "timeout 50 ms" in v.reason


def test_a_model_that_does_not_re_evaluate_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    real = z3tools.check_sat

    def lying(assertions, timeout_s, *, solver=None):  # noqa: ANN001, ANN202
        s = z3.Solver()
        s.add(X == 5)                         # a model of something else
        assert s.check() == z3.sat
        return "sat", s.model(), ""

    monkeypatch.setattr(z3tools, "check_sat", lying)
    v = z3tools._z3_prove(X > 0, [], timeout_ms=1000, solver=None)   # x = 5 satisfies the claim
    assert isinstance(v, Undecided) and v.reason == (
        "z3's model does not re-evaluate to a counterexample (a hypothesis false or the claim "
        "not false there)")
    w = z3tools._z3_prove(X > 100, [X < 0], timeout_ms=1000, solver=None)  # hypothesis false
    assert isinstance(w, Undecided)
    u = z3tools._z3_prove(X > 100, [X > 0], timeout_ms=1000, solver=None)  # a real one
    assert isinstance(u, Refuted) and u.counterexample == {"x": 5}
    monkeypatch.setattr(z3tools, "check_sat", real)


def test_the_solvers_disagreeing_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(z3tools, "cvc5_check", lambda smt2, seconds: "sat")
    v = prove(X * X >= 0)
    assert isinstance(v, Undecided)
    assert v.reason == "the solvers disagree: z3 proved, cvc5 refuted"
    assert v.evidence is not None and v.evidence.solvers == {"z3": "proved", "cvc5": "refuted"}
    monkeypatch.setattr(z3tools, "cvc5_check", lambda smt2, seconds: "unsat")
    w = prove(X <= 1, [X > 2])
    assert isinstance(w, Undecided) and w.reason == "the solvers disagree: z3 refuted, cvc5 proved"


@pytest.mark.parametrize("answer,shown", [("unknown", "undecided"), ("n/a", "n/a")])
def test_a_silent_second_solver_keeps_z3s_verdict(monkeypatch: pytest.MonkeyPatch,
                                                  answer: str, shown: str) -> None:
    monkeypatch.setattr(z3tools, "cvc5_check", lambda smt2, seconds: answer)
    v = prove(X * X >= 0)
    assert isinstance(v, Proved) and v.evidence is not None
    assert v.evidence.solvers == {"z3": "proved", "cvc5": shown}


def test_the_second_opinion_gets_the_pinned_counterexample(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    seen: list[tuple[str, float]] = []
    monkeypatch.setattr(z3tools, "cvc5_check", lambda smt2, seconds: seen.append((smt2, seconds))
                        or "sat")
    v = prove(N <= 3, [N > 0, N < 5], timeout_ms=4000)
    assert isinstance(v, Refuted) and v.counterexample == {"n": 4}
    smt2, seconds = seen[0]
    assert "(= 4 n)" in smt2 or "(= n 4)" in smt2
    assert seconds == min(4.0, z3tools.SECOND_SOLVER_TIMEOUT_S)


def test_pin_fixes_a_named_constant_exactly() -> None:
    a = z3.Int("a")
    assert z3.eq(z3tools._pin("a", 7, a > 0, []), a == z3.IntVal(7))
    assert z3.eq(z3tools._pin("x", Fraction(1, 3), X > 0, [Y > X]),
                 X == z3.RealVal("1/3"))
    assert z3.eq(z3tools._pin("y", Fraction(2), X > 0, [Y > X]), Y == z3.RealVal("2"))
    assert z3.is_true(z3tools._pin("zz", 1, X > 0, [Y > X]))


def test_constants_are_the_uninterpreted_names_once_each() -> None:
    f = z3.Function("f", z3.RealSort(), z3.RealSort())
    found = z3tools.constants([z3.And(X + Y > 1, f(X) > 0, X < 2), N > 3])
    assert sorted(str(c) for c in found) == ["n", "x", "y"]
    assert z3tools.constants([z3.RealVal(1) > 0]) == []


# ----------------------------------------------------------------------------- vacuity
def test_vacuous_hypotheses_are_undecided() -> None:
    v = prove(X > 5, [X > 1, X < 0])
    assert isinstance(v, Undecided)
    assert v.reason == "vacuous: x > 1 ∧ x < 0 is unsatisfiable, so the proof shows nothing"


def test_a_vacuous_antecedent_is_undecided() -> None:
    v = prove(z3.Implies(z3.And(X > 1, X < 0), X == 5))
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous: ")
    w = prove(z3.Implies(X > 1, X > 0), [X < 3])
    assert isinstance(w, Proved)
    u = prove(z3.Implies(X > 1, X > 0), [X < 0])
    assert isinstance(u, Undecided) and "x < 0 ∧ x > 1" in u.reason


def test_an_undecided_satisfiability_is_not_called_satisfiable(monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    real = z3tools.check_sat
    calls = []

    def second_unknown(assertions, timeout_s, *, solver=None):  # noqa: ANN001, ANN202
        calls.append(list(assertions))
        if len(calls) >= 2:
            return "unknown", None, "timeout"
        return real(assertions, timeout_s, solver=solver)

    monkeypatch.setattr(z3tools, "check_sat", second_unknown)
    v = prove(X > 0, [X > 1], second_solver=False)
    assert isinstance(v, Undecided)
    assert v.reason == "proved, but z3 could not show x > 1 satisfiable: possibly vacuous"


def test_antecedents_in_positive_positions_only() -> None:
    a, b, c = z3.Bools("a b c")
    assert antecedent_contexts(a) == []
    ctx = antecedent_contexts(z3.Implies(a, z3.Implies(b, c)))
    assert [str(z3.simplify(z3.And(*x))) for x in ctx] == ["a", "And(a, b)"]
    both = antecedent_contexts(z3.And(z3.Implies(a, c), z3.Or(c, z3.Implies(b, c))))
    assert [[str(f) for f in x] for x in both] == [["a"], ["b"]]
    assert antecedent_contexts(z3.Not(z3.Implies(a, c))) == []


# --------------------------------------------------------------------------- check_sat
def test_check_sat_answers() -> None:
    status, model, reason = check_sat([X > 1, X < 2], 5.0)
    assert status == "sat" and model is not None and reason == ""
    assert z3.is_true(model.eval(z3.And(X > 1, X < 2)))
    assert check_sat([X * X < 0], 5.0) == ("unsat", None, "")
    a, b, c = z3.Ints("a b c")
    status, model, reason = check_sat([a * a * a + b * b * b + c * c * c == 33,
                                       a * a > 1_000_000], 0.05)
    assert status == "unknown" and model is None and reason == "timeout"


def test_check_sat_uses_the_given_solver() -> None:
    s = z3.Solver()
    s.add(X > 10)
    assert check_sat([X < 5], 5.0, solver=s)[0] == "unsat"


def test_check_sat_isolated_answers_and_rebuilds_the_model() -> None:
    a, b = z3.Ints("a b")
    status, model, reason = check_sat_isolated([a * b == 6, a > 2, b > 1], 5.0)
    assert (status, reason) == ("sat", "") and model is not None
    assert model.eval(a).as_long() * model.eval(b).as_long() == 6
    assert check_sat_isolated([a * a == 2], 5.0) == ("unsat", None, "")
    c = z3.Int("c")
    status, model, reason = check_sat_isolated([a * a * a + b * b * b + c * c * c == 33,
                                                a * a > 1_000_000], 0.05)
    assert status == "unknown" and model is None and reason == "timeout"


def test_check_sat_isolated_past_its_hard_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    from attnio.smt.isolation import HardLimitReached

    def killed(args, *, seconds):  # noqa: ANN001, ANN202
        raise HardLimitReached("the time limit of 1 s was reached")

    monkeypatch.setattr(z3tools._Z3_SERVER, "call", killed)
    assert check_sat_isolated([X > 0], 1.0) == (
        "unknown", None, "hard deadline: the time limit of 1 s was reached")

    def broken(args, *, seconds):  # noqa: ANN001, ANN202
        raise ValueError("bad problem")

    monkeypatch.setattr(z3tools._Z3_SERVER, "call", broken)
    assert check_sat_isolated([X > 0], 1.0) == (
        "unknown", None, "isolated z3 failed (ValueError: bad problem)")


def test_check_sat_isolated_rechecks_the_model_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # the server's pins say x = 0, which contradicts x > 1: never returned as a model
    monkeypatch.setattr(z3tools._Z3_SERVER, "call",
                        lambda args, *, seconds: ("sat", ["(assert (= x 0.0))"]))
    status, model, reason = check_sat_isolated([X > 1], 5.0)
    assert status == "unknown" and model is None
    assert reason == "the isolated model did not re-check here (unsat)"
    monkeypatch.setattr(z3tools._Z3_SERVER, "call", lambda args, *, seconds: ("unknown", []))
    assert check_sat_isolated([X > 1], 5.0) == ("unknown", None, "unknown")
    monkeypatch.setattr(z3tools._Z3_SERVER, "call",
                        lambda args, *, seconds: ("unknown", ["canceled"]))
    assert check_sat_isolated([X > 1], 5.0) == ("unknown", None, "canceled")


def test_check_sat_isolated_sends_the_limit_in_milliseconds(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    sent = []
    monkeypatch.setattr(z3tools._Z3_SERVER, "call",
                        lambda args, *, seconds: sent.append((args[1], seconds)) or ("unsat", []))
    check_sat_isolated([X > 1], 2.5)
    check_sat_isolated([X > 1], 0.0001)
    assert sent == [(2500, 2.5 + z3tools.HARD_DEADLINE_GRACE_S),
                    (1, 0.0001 + z3tools.HARD_DEADLINE_GRACE_S)]


# ------------------------------------------------------------------------ model_to_dict
def test_model_values_are_exact() -> None:
    s = z3.Solver()
    b = z3.Bool("b")
    s.add(N == -4, X == z3.RealVal("7/3"), Y * Y == 2, Y > 0, z3.Not(b))
    assert s.check() == z3.sat
    out = z3tools.model_to_dict(s.model())
    assert out["n"] == -4 and isinstance(out["n"], int)
    assert out["x"] == Fraction(7, 3)
    assert out["y"] == "1.414213562373?"
    assert out["b"] is False


def test_only_exact_numbers_are_pinned_for_the_second_opinion(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    # an algebraic value (a decimal string) and a boolean are not pinned: the second solver
    # gets the problem itself
    seen: list[str] = []
    monkeypatch.setattr(z3tools, "cvc5_check", lambda smt2, seconds: seen.append(smt2) or "sat")
    v = prove(X * X != 2, [X > 0])
    assert isinstance(v, Refuted) and v.counterexample == {"x": "1.414213562373?"}
    b = z3.Bool("b")
    w = prove(z3.Or(b, X > 0), [X < 0])
    assert isinstance(w, Refuted) and w.counterexample["b"] is False
    assert all("(assert (= x" not in s and "(= b" not in s for s in seen)


def test_a_re_check_that_is_unknown_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(z3tools._Z3_SERVER, "call",
                        lambda args, *, seconds: ("sat", ["(assert (= x 2.0))"]))
    monkeypatch.setattr(z3tools, "check_sat",
                        lambda assertions, timeout_s, *, solver=None: ("unknown", None, "canceled"))
    assert check_sat_isolated([X > 1], 5.0) == (
        "unknown", None, "the isolated model did not re-check here (unknown: canceled)")


def test_model_values_true_booleans_and_no_functions() -> None:
    s = z3.Solver()
    b = z3.Bool("b")
    f = z3.Function("f", z3.RealSort(), z3.RealSort())
    s.add(b, f(X) == 3, X == 1)
    assert s.check() == z3.sat
    out = z3tools.model_to_dict(s.model())
    assert out == {"b": True, "x": 1}          # no entry for the interpretation of f


def test_a_vacuous_proof_keeps_the_solvers_evidence() -> None:
    v = prove(X > 5, [X > 1, X < 0])
    assert isinstance(v, Undecided) and v.evidence is not None
    assert v.evidence.kind == "smt-forall" and v.evidence.solvers["z3"] == "proved"


def test_models_are_completed_before_they_are_re_evaluated(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    # the model assigns x = 5 only; y is left out and must be completed (to 0), else the
    # nonlinear y*y >= 0 stays unevaluated and a real counterexample would be thrown away
    def only_x(assertions, timeout_s, *, solver=None):  # noqa: ANN001, ANN202
        s = z3.Solver()
        s.add(X == 5)
        assert s.check() == z3.sat
        return "sat", s.model(), ""

    monkeypatch.setattr(z3tools, "check_sat", only_x)
    v = z3tools._z3_prove(X > 100, [Y * Y >= 0], timeout_ms=1000, solver=None)
    assert isinstance(v, Refuted)
    w = z3tools._z3_prove(z3.Or(X > 100, Y * Y < 0), [], timeout_ms=1000, solver=None)
    assert isinstance(w, Refuted)


def test_prove_uses_the_given_solver_and_its_assertions() -> None:
    s = z3.Solver()
    s.add(X > 10)
    assert isinstance(prove(X > 5, solver=s, second_solver=False), Proved)
    assert isinstance(prove(X > 5, second_solver=False), Refuted)


def test_the_watchdog_fires_after_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    intervals = []
    real = threading.Timer

    def spy(interval, function):  # noqa: ANN001, ANN202
        intervals.append(interval)
        return real(interval, function)

    monkeypatch.setattr(z3tools.threading, "Timer", spy)
    check_sat([X > 1], 1.5)
    assert intervals == [1.5 + z3tools.WATCHDOG_GRACE_S]
