"""The proof kernel's solver plumbing, tested by RULE (issue 36, mutation survivors, seed 61,
list A): smt/kernel.py (the repaired counterexample, the budgets and the process isolation of
the z3 searches, the statuses of a search), smt/z3tools.py, smt/solvers.py,
smt/second_solver.py, smt/isolation.py, smt/exact_eval.py, smt/identities.py and
smt/obvious_points.py.

Every test is fast, deterministic (z3 and cvc5 answer the same problem the same way) and
states the rule it checks; a counterexample is re-checked by the exact evaluator
independently of the kernel's own referee.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
import sympy as sp
import z3

from attnio.results import Proved, Refuted, Undecided
from attnio.smt import kernel, z3tools
from attnio.smt.exact_eval import _TRIAL_DIVISION, _coprime_factors, in_domain
from attnio.smt.identities import _defined_throughout, check_identity
from attnio.smt.isolation import _read_exactly
from attnio.smt.obvious_points import _roots
from attnio.smt.second_solver import cvc5_answer
from attnio.smt.solvers import SECOND_SOLVER_TIMEOUT_S
from attnio.smt.statements import parse_statement

pytestmark = pytest.mark.trust

#: log(x) in [3, 31/10] is false: no obvious point is there, z3's model of the
#: uninterpreted log is moved to the real one (x = exp of the value z3 gave log(x)).
_REPAIRABLE = "Or(log(x) < 3, log(x) > 31/10)"


def _problem(text: str, domains: dict[str, str]) -> kernel._Problem:
    statement, doms = parse_statement(text, dict(domains))
    return kernel._Problem.of(statement, [], doms)


# ==============================================================================================
# smt/kernel.py — a counterexample found by moving z3's model to the real exp and log
# ==============================================================================================
def test_repaired_counterexample_is_refuted_with_its_point_and_how_it_was_found(
        monkeypatch: pytest.MonkeyPatch, recheck_counterexample) -> None:  # noqa: ANN001
    """A z3 model of the uninterpreted log that the referee rejects, moved to the real log
    where it is a counterexample, refutes: the verdict is Refuted, its counterexample is that
    point (in the domain, the statement exactly false there), and its detail tells the user
    how it was found and that exact evaluation checked it. (Since 71bdbdb the obvious points
    hold x = exp(3), the edge log(x) = 3 inverted, which refutes first: they are set aside
    here so that the repair is what refutes.)"""
    monkeypatch.setattr(kernel, "_obvious_counterexample", lambda *args, **kwargs: None)
    v = kernel.prove_statement(_REPAIRABLE, {"x": "positive"}, second_solver=False)
    assert isinstance(v, Refuted), v
    recheck_counterexample(_REPAIRABLE, {"x": "positive"}, v.counterexample)
    assert 3 <= sp.log(sp.sympify(v.counterexample["x"])).evalf(30) <= sp.Rational(31, 10)
    assert "moving z3's model to where the real exp and log take" in v.detail
    assert "checked by exact evaluation" in v.detail
    assert v.evidence is not None and v.evidence.kind == "exact-arithmetic"


def test_gapped_search_repaired_counterexample_and_its_half_budget(
        monkeypatch: pytest.MonkeyPatch, recheck_counterexample) -> None:  # noqa: ANN001
    """When the relaxation's model is not integral, the relaxation is asked again with the
    integer gaps, with at most HALF of the time left (the integer search needs the rest);
    a counterexample it finds by moving z3's model to the real log refutes with that point
    as the counterexample (each symbol's exact value), not with a text."""
    text = "Or(log(x) < 3, log(x) > 31/10, n < 0)"
    domains = {"x": "positive", "n": "nonnegative-integer"}
    real_search = kernel._search
    calls: list[tuple[bool, float | None, float]] = []

    def search(problem, integers, clock, cap, *, gaps=False):  # noqa: ANN001, ANN202
        calls.append((gaps, cap, clock.left()))
        if integers == "relaxed" and not gaps:        # a model with n = 1/2: not integral
            t, assertions = kernel._query(problem, integers)
            n = next(s for s in problem.doms if str(s) == "n")
            x = next(s for s in problem.doms if str(s) == "x")
            return kernel._Answer("outside", {x: sp.Integer(1), n: sp.Rational(1, 2)},
                                  tuple(assertions), (), "n = 1/2 is not in its domain"), t
        return real_search(problem, integers, clock, cap, gaps=gaps)

    monkeypatch.setattr(kernel, "_search", search)
    monkeypatch.setattr(kernel, "_FIRST_POINTS", 4)   # the obvious points are not tested here
    v = kernel.prove_statement(text, domains, second_solver=False)
    assert isinstance(v, Refuted), v
    assert isinstance(v.counterexample, dict) and set(v.counterexample) == {"x", "n"}
    recheck_counterexample(text, domains, v.counterexample)
    assert "moving z3's model" in v.detail
    gapped = [(cap, left) for gaps, cap, left in calls if gaps]
    assert len(gapped) == 1
    cap, left = gapped[0]
    assert cap is not None and 0.45 * left <= cap <= 0.5 * left + 0.25


# ==============================================================================================
# smt/kernel.py — budgets and isolation of the z3 searches
# ==============================================================================================
def _spy_z3(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Record each z3 call of the kernel: ("isolated" | "in-process", time limit)."""
    calls: list[tuple[str, float]] = []
    isolated, in_process = kernel.check_sat_isolated, kernel.check_sat

    def spy_isolated(assertions, timeout_s):  # noqa: ANN001, ANN202
        calls.append(("isolated", timeout_s))
        return isolated(assertions, timeout_s)

    def spy_in_process(assertions, timeout_s, **kw):  # noqa: ANN001, ANN003, ANN202
        calls.append(("in-process", timeout_s))
        return in_process(assertions, timeout_s, **kw)

    monkeypatch.setattr(kernel, "check_sat_isolated", spy_isolated)
    monkeypatch.setattr(kernel, "check_sat", spy_in_process)
    return calls


def test_exact_integer_search_is_isolated_and_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact integer search (z3 Int: nonlinear integer arithmetic may ignore its own
    limit) runs in a child process killed at a hard deadline, with at most its cap
    (EXACT_INTEGER_TIMEOUT_S) even when the call has more time; the relaxation runs in
    this process with the time left. No integer squares to 2: unsat."""
    calls = _spy_z3(monkeypatch)
    problem = _problem("Ne(n**2, 2)", {"n": "integer"})
    answer, _ = kernel._search(problem, "exact", kernel._Clock(20.0),
                               kernel.EXACT_INTEGER_TIMEOUT_S)
    assert answer.status == "unsat"
    assert calls and all(how == "isolated" for how, _ in calls)
    assert all(t <= kernel.EXACT_INTEGER_TIMEOUT_S for _, t in calls)
    calls.clear()
    kernel._search(problem, "relaxed", kernel._Clock(20.0), None)
    assert calls and all(how == "in-process" and t > kernel.EXACT_INTEGER_TIMEOUT_S
                         for how, t in calls)


def test_satisfiable_integer_search_is_isolated_and_capped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``_satisfiable`` (the vacuity and definedness checks) searches the relaxation in this
    process with the time left, then z3 Int in a child process with at most
    EXACT_INTEGER_TIMEOUT_S. 2k = 1 has the real model k = 1/2, no integer one: unsat."""
    calls = _spy_z3(monkeypatch)
    k = sp.Symbol("k")
    status = kernel._satisfiable([sp.Eq(2 * k, 1)], {k: "integer"}, kernel._Clock(20.0))
    assert status == "unsat"
    assert [how for how, _ in calls] == ["in-process", "isolated"]
    assert calls[0][1] > kernel.EXACT_INTEGER_TIMEOUT_S
    assert calls[1][1] <= kernel.EXACT_INTEGER_TIMEOUT_S


def test_only_a_point_outside_the_integers_stops_the_relaxation() -> None:
    """The relaxed search stops with "outside" (go on with the integers) only for a model
    outside its declared domain; a model in every domain where the statement is TRUE (z3's
    uninterpreted exp) is excluded and z3 asked again."""
    problem = _problem("Or(exp(x) < 3, exp(x) > 7/2, n < 0)",
                       {"x": "real", "n": "nonnegative-integer"})
    answer, _ = kernel._search(problem, "relaxed", kernel._Clock(20.0), None)
    assert answer.status == "outside", answer
    assert answer.point is not None
    assert any(in_domain(answer.point[s], dom) is False for s, dom in problem.doms.items())
    assert any("TRUE there" in why for why in answer.excluded)


def test_giving_up_says_no_obvious_point_refutes() -> None:
    """When z3 cannot decide and no obvious point is a counterexample, the Undecided tells
    the user why z3 failed and that the obvious points were tried without a
    counterexample."""
    x = sp.Symbol("x")
    problem = kernel._Problem.of(sp.Ge(x ** 2, 0, evaluate=False), [], {x: "real"})
    v = kernel._before_giving_up(problem, kernel._Clock(20.0), "z3 could not decide")
    assert isinstance(v, Undecided)
    assert v.detail == "z3 could not decide; no counterexample among the obvious points"
    assert v.evidence is not None and v.evidence.solvers == {"z3": "undecided"}


# ==============================================================================================
# smt/solvers.py, smt/second_solver.py — the second opinion
# ==============================================================================================
def test_missing_cvc5_is_recorded_n_a_and_z3_still_decides(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without cvc5 the second opinion is "n/a" — recorded as such, never agreement — and
    the verdict rests on z3 alone (the kernel and z3tools.prove alike)."""
    monkeypatch.setitem(sys.modules, "cvc5", None)
    v = kernel.prove_statement("x*x >= 0", {"x": "real"})
    assert isinstance(v, Proved) and v.evidence is not None
    assert v.evidence.solvers == {"z3": "proved", "cvc5": "n/a"}
    x = z3.Real("x")
    w = z3tools.prove(x * x >= 0)
    assert isinstance(w, Proved) and w.evidence.solvers == {"z3": "proved", "cvc5": "n/a"}


def test_cvc5_decides_problems_with_uninterpreted_functions() -> None:
    """A problem declaring a function (the exp/log fragment's exp_uf!, log_uf!) gets cvc5's
    real answer, not "n/a": f(x) > 0 ∧ f(x) < 0 is unsat, f(x) > 0 sat — with reals and
    with integers."""
    real = "(declare-fun x () Real)(declare-fun exp_uf! (Real) Real)"
    assert cvc5_answer(real + "(assert (> (exp_uf! x) 0))(assert (< (exp_uf! x) 0))"
                       "(check-sat)", 5.0) == "unsat"
    assert cvc5_answer(real + "(assert (> (exp_uf! x) 0))(check-sat)", 5.0) == "sat"
    integer = "(declare-fun k () Int)(declare-fun log_uf! (Real) Real)"
    assert cvc5_answer(integer + "(assert (> (log_uf! (to_real k)) 0))"
                       "(assert (< (log_uf! (to_real k)) 0))(check-sat)", 5.0) == "unsat"


def test_second_opinion_honours_the_callers_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """z3tools.prove gives cvc5 at most the caller's timeout (milliseconds → seconds), and
    at most SECOND_SOLVER_TIMEOUT_S."""
    seen: list[float] = []
    monkeypatch.setattr(z3tools, "cvc5_check",
                        lambda smt2, timeout_s: seen.append(timeout_s) or "unsat")
    x = z3.Real("x")
    assert isinstance(z3tools.prove(x * x >= 0, timeout_ms=500), Proved)
    assert isinstance(z3tools.prove(x * x >= 0, timeout_ms=60_000), Proved)
    assert seen == [pytest.approx(0.5), SECOND_SOLVER_TIMEOUT_S]


def test_a_model_is_reevaluated_with_every_value_completed() -> None:
    """z3's counterexample is re-evaluated on the hypotheses with the values the model
    leaves open completed: Or(k/j >= 0, k/j < 0) holds whatever k/0 is, so x = 0 refutes
    x > 0 (a hypothesis left unevaluated is no reason for Undecided)."""
    x = z3.Real("x")
    k, j = z3.Ints("k j")
    v = z3tools.prove(x > 0, [z3.Or(k / j >= 0, k / j < 0)], second_solver=False)
    assert isinstance(v, Refuted), v
    assert v.counterexample["x"] <= 0


# ==============================================================================================
# smt/isolation.py — the pipe protocol
# ==============================================================================================
def test_read_exactly_joins_a_message_that_arrives_in_pieces() -> None:
    """A message arriving in several writes is read whole: exactly ``size`` bytes, in
    order (the length read so far adds up)."""
    read_fd, write_fd = os.pipe()
    pieces = [bytes([i]) * 1000 for i in range(3)]

    def writer() -> None:
        for piece in pieces:
            os.write(write_fd, piece)
            time.sleep(0.02)
        os.close(write_fd)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert _read_exactly(read_fd, 3000, time.monotonic() + 5.0) == b"".join(pieces)
    finally:
        thread.join()
        os.close(read_fd)


# ==============================================================================================
# smt/exact_eval.py, smt/identities.py, smt/obvious_points.py
# ==============================================================================================
def test_coprime_factors_is_trial_division_only() -> None:
    """Only trial division up to _TRIAL_DIVISION: what is left is ONE cofactor, even when
    it has factors an advanced method would find at once (93312001 − 1 = 2^10·3^6·5^3 is
    smooth: Pollard p − 1 splits it off)."""
    p, q = 93312001, 1000000000000000000000000001783
    assert sp.isprime(p) and sp.isprime(q) and p > _TRIAL_DIVISION
    assert _coprime_factors(p * q) == {p * q: 1}
    assert _coprime_factors(360 * p * q) == {2: 3, 3: 2, 5: 1, p * q: 1}


def test_defined_throughout_reads_the_hypotheses() -> None:
    """(x² − 1)/(x − 1) = x + 1 simplifies to 0 and is defined wherever x > 1: with that
    hypothesis the identity is defined throughout (a sympy proof, no definedness caveat);
    without it x = 1 is undefined."""
    x = sp.Symbol("x")
    eq = sp.Eq((x ** 2 - 1) / (x - 1), x + 1, evaluate=False)
    assert _defined_throughout(eq, {x: "real"}, [sp.Gt(x, 1)], 20.0) is True
    assert _defined_throughout(eq, {x: "real"}, [], 20.0) is False
    v = check_identity((x ** 2 - 1) / (x - 1), x + 1, {x: "real"}, hypotheses=[sp.Gt(x, 1)],
                       second_solver=False)
    assert isinstance(v, Proved) and v.evidence.kind == "sympy-canonical"
    assert v.where_defined is None


def test_roots_only_of_rational_polynomials() -> None:
    """Edges come from polynomials with RATIONAL coefficients (real_roots certifies their
    roots exactly): x − π gives no root, x² − 2 gives ±√2."""
    x = sp.Symbol("x")
    assert _roots(x - sp.pi, x) == []
    assert _roots(x ** 2 - sp.sqrt(2) * x, x) == []
    assert sorted(_roots(x ** 2 - 2, x), key=float) == [-sp.sqrt(2), sp.sqrt(2)]
