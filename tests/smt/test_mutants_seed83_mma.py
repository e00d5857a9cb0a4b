"""The trusted SMT core tested by RULE (issue 36, mutation survivors, seed 83, list A):
smt/kernel.py (the detail of a proof, the excluded models, the undefined point),
smt/statements.py (radicals, messages, the text of a condition), smt/sympy_to_z3.py (z3's
unexpanded powers, fresh integer names, the substitution notes), smt/exact_eval.py (the
logarithm of base 1), smt/definedness.py (a flat definedness condition), smt/term_limits.py,
smt/isolation.py and smt/z3tools.py.

Every test is fast and deterministic and states the rule it checks; values are compared with
hand-computed ones or re-checked independently (exact evaluation, sympy).
"""

from __future__ import annotations

import os
import tempfile

import pytest
import sympy as sp
import z3

from attnio.exceptions import InvalidInputError
from attnio.results import Proved, Refuted, Undecided
from attnio.smt import kernel, statements, z3tools
from attnio.smt.definedness import definedness
from attnio.smt.exact_eval import evaluate
from attnio.smt.isolation import HardLimitReached, Worker
from attnio.smt.statements import parse_statement, statement_text, value_text
from attnio.smt.sympy_to_z3 import z3_to_sympy
from attnio.smt.term_limits import validate_power

pytestmark = pytest.mark.trust


# ==============================================================================================
# smt/kernel.py
# ==============================================================================================
def test_a_sympy_identity_proof_says_how_and_nothing_else() -> None:
    """An identity outside SMT (sin² + cos² = 1) proved by sympy's rewriting: the Proved
    detail is how it was proved and that there is no antecedent — no stray text after it."""
    v = kernel.prove_statement("Eq(sin(x)**2 + cos(x)**2, 1)", {"x": "real"},
                               second_solver=False)
    assert isinstance(v, Proved), v
    assert v.evidence is not None and v.evidence.kind == "sympy-canonical"
    assert v.detail == "sympy: expand_log and simplify reduce lhs − rhs to 0; no antecedent", v


def _model_then_real(*values: str):  # noqa: ANN202
    """A z3 check that answers the model x = value first (once per value), then asks z3."""
    real = kernel._z3_check
    queue = list(values)

    def fake(assertions, timeout_s, *, isolated=False):  # noqa: ANN001, ANN202
        if not queue:
            return real(assertions, timeout_s, isolated=isolated)
        x = z3.Real("x")
        s = z3.Solver()
        s.add(x == z3.RealVal(queue.pop(0)))
        s.check()
        return "sat", s.model(), ""
    return fake


def test_a_proof_after_an_excluded_model_tells_which_point_was_excluded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 first offers x = 5, where x**2 >= 0 is TRUE (exact evaluation rejects it, the point
    is excluded), then shows the rest unsat: the statement is Proved, and the user is told that
    1 point was excluded, which one, and why."""
    monkeypatch.setattr(kernel, "_z3_check", _model_then_real("5"))
    v = kernel.prove_statement("x**2 >= 0", {"x": "real"}, second_solver=False)
    assert isinstance(v, Proved), v
    assert "1 point(s) excluded after exact evaluation" in v.detail, v
    assert "{'x': '5'}" in v.detail and "TRUE there" in v.detail, v


def test_z3s_reason_for_unknown_reaches_the_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """When z3 answers unknown without a model, its reason (here "canceled") is what the
    Undecided tells the user about the relaxed encoding."""
    monkeypatch.setattr(kernel, "_z3_check", lambda a, t, *, isolated=False:
                        ("unknown", None, "canceled"))
    monkeypatch.setattr(kernel, "_obvious_counterexample", lambda *args, **kwargs: None)
    v = kernel.prove_statement("x**2 >= 0", {"x": "real"}, second_solver=False)
    assert "relaxed encoding: canceled" in v.reason, v


def test_z3s_undefined_point_is_reported_when_no_obvious_point_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The point where a proved statement is undefined may come from z3's model of
    ¬defined, checked undefined by exact evaluation: with no obvious point to try, that model
    itself is the point (sqrt(x - 3) is undefined there: x < 3)."""
    monkeypatch.setattr(kernel, "obvious_points", lambda *args, **kwargs: iter(()))
    x = sp.Symbol("x", real=True)
    goal = sp.Ge(sp.sqrt(x - 3), 0, evaluate=False)
    problem = kernel._Problem.of(goal, [], {x: "real"})
    found, point = kernel._undefined_point(problem, kernel._Clock(20.0))
    assert found == "point", (found, point)
    assert point is not None and point[x] < 3
    assert evaluate(goal, point) == "undefined"


# ==============================================================================================
# smt/statements.py
# ==============================================================================================
def test_close_algebraic_roots_are_still_shown_as_radicals() -> None:
    """A real algebraic number of degree 2 is shown as its radical even when the other root
    of its polynomial is very close (1 ± sqrt(2)/1000, 0.0028 apart): the isolating interval
    is narrow enough to tell the two roots apart. The text names the right root."""
    x = sp.Dummy("x")
    poly = 10 ** 6 * x ** 2 - 2 * 10 ** 6 * x + 999998
    for index, expected in ((0, 1 - sp.sqrt(2) / 1000), (1, 1 + sp.sqrt(2) / 1000)):
        text = value_text(sp.CRootOf(poly, index))
        assert "CRootOf" not in text, text
        assert sp.simplify(sp.sympify(text) - expected) == 0, text
    wide = 16 * x ** 2 - 32 * x + 13          # roots 1 ± sqrt(3)/4, 0.87 apart
    assert sp.simplify(sp.sympify(value_text(sp.CRootOf(wide, 1))) - (1 + sp.sqrt(3) / 4)) == 0


def test_value_text_of_a_rational_and_of_an_unconvertible_root(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A value is shown as the exact number it is: a rational as p/q, and a CRootOf whose
    radical cannot be computed (the helper fails) as the CRootOf itself."""
    assert value_text(sp.Rational(-3, 4)) == "-3/4"
    x = sp.Dummy("x")
    root = sp.CRootOf(x ** 2 - 2, 1)

    def broken(value):  # noqa: ANN001, ANN202
        raise ValueError("no radicals today")
    monkeypatch.setattr(statements, "_as_radical", broken)
    text = value_text(root)
    assert text == str(root) and "CRootOf" in text


def test_an_arrow_in_a_statement_is_refused_with_the_implies_advice() -> None:
    """A statement written with an arrow (x > 1 => x > 0) is refused, and the message names
    the arrow and tells the user to write Implies(A, B)."""
    with pytest.raises(InvalidInputError) as info:
        parse_statement("x > 1 => x > 0", {"x": "real"})
    message = str(info.value)
    assert "'=>'" in message and "Implies(A, B)" in message, message


def test_a_condition_is_shown_with_its_relations_as_written() -> None:
    """statement_text keeps a relation as written (sympy must not decide it): x + 1 >= x is
    shown as such, not folded to True, and 2 > 1 stays 2 > 1."""
    x = sp.Symbol("x", real=True)
    assert statement_text(sp.Ge(x + 1, x, evaluate=False)) == "x + 1 >= x"
    assert statement_text(sp.And(sp.Gt(sp.Integer(2), sp.Integer(1), evaluate=False),
                                 sp.Ne(x, 3), evaluate=False)) in ("And(2 > 1, Ne(x, 3))",
                                                                   "And(Ne(x, 3), 2 > 1)")


# ==============================================================================================
# smt/sympy_to_z3.py
# ==============================================================================================
def test_z3s_unexpanded_power_numerals_are_read_exactly() -> None:
    """z3 may leave a numeral as a power (^ 10 200): it is read as the exact number, for an
    integer and a fractional base and a negative exponent; a power beyond the constant cap is
    refused (TranslationError), never misread."""
    from attnio.smt.sympy_to_z3 import TranslationError
    assert z3_to_sympy(z3.RealVal(10) ** z3.RealVal(200)) == sp.Integer(10) ** 200
    assert z3_to_sympy(z3.RealVal("2/3") ** z3.RealVal(5)) == sp.Rational(32, 243)
    assert z3_to_sympy(z3.RealVal(7) ** z3.RealVal(-3)) == sp.Rational(1, 343)
    with pytest.raises(TranslationError):
        z3_to_sympy(z3.RealVal(3) ** z3.RealVal(10 ** 9))


def test_a_real_power_of_a_nonpositive_constant_is_vacuous_not_untranslatable() -> None:
    """b**x with a symbolic exponent is defined for b > 0 only: (-2)**x >= 0 and 0**x >= 0
    are defined nowhere, and the user is told the statement is vacuous (z3 shows the
    definedness condition unsatisfiable) — the logarithm of the base is kept as written in
    the translation, never folded to log(2) + I*pi or zoo, which z3 cannot take."""
    for text in ("(-2)**x >= 0", "0**x >= 0"):
        v = kernel.prove_statement(text, {"x": "real"}, second_solver=False)
        assert isinstance(v, Undecided), (text, v)
        assert v.reason.startswith("vacuous: the statement is defined at no point"), (text, v)


def test_a_root_substitution_note_names_the_root_symbol() -> None:
    """sqrt(x) for x declared nonnegative is solved with x = s_x**2, s_x >= 0; the note the
    user reads states that bound on s_x."""
    v = kernel.prove_statement("sqrt(x) >= 0", {"x": "nonnegative"}, second_solver=False)
    assert isinstance(v, Proved), v
    assert "x = s_x**2 with s_x >= 0 (x declared nonnegative)" in v.detail, v


def test_two_floors_of_quotients_are_two_different_integers() -> None:
    """floor(n/2) and floor(n/3) are different integers for n = 2 (1 and 0): the statement
    that they are equal is Refuted with a counterexample where they differ (each floor gets
    its own fresh integer, its own remainder)."""
    v = kernel.prove_statement("Eq(floor(n/2), floor(n/3))", {"n": "positive-integer"},
                               second_solver=False)
    assert isinstance(v, Refuted), v
    n = int(v.counterexample["n"])
    assert n >= 1 and n // 2 != n // 3


# ==============================================================================================
# smt/exact_eval.py, smt/definedness.py
# ==============================================================================================
def test_a_logarithm_to_base_one_is_undefined() -> None:
    """log(x, b) = log(x)/log(b) is undefined where the base b is exactly 1 (a division by
    zero) — also when b is 1 only by exact arithmetic, (sqrt(y) - sqrt(2))*(sqrt(y) + sqrt(2))
    at y = 3, which sympy does not fold: undefined, not "unknown". At y = 6 (b = 4) it is
    defined and true."""
    s, _ = parse_statement("log(x, y) > 0", {"x": "positive", "y": "positive"})
    x, y = sorted(s.free_symbols, key=str)
    assert evaluate(s, {x: sp.Integer(2), y: sp.Integer(1)}) == "undefined"
    assert evaluate(s, {x: sp.Integer(2), y: sp.Integer(2)}) == "true"
    s, _ = parse_statement("log(x, (sqrt(y) - sqrt(2))*(sqrt(y) + sqrt(2))) > 0",
                           {"x": "positive", "y": "positive"})
    x, y = sorted(s.free_symbols, key=str)
    assert evaluate(s, {x: sp.Integer(2), y: sp.Integer(3)}) == "undefined"
    assert evaluate(s, {x: sp.Integer(2), y: sp.Integer(6)}) == "true"


def test_a_definedness_condition_is_flat_and_without_repeats() -> None:
    """The definedness condition of sqrt(x) + sqrt(sqrt(x) - 1) >= 0 is the flat conjunction
    x >= 0 ∧ sqrt(x) - 1 >= 0 (x >= 0 once, no And inside an And); for x declared nonnegative
    the condition the user reads drops x >= 0."""
    s, doms = parse_statement("sqrt(x) + sqrt(sqrt(x) - 1) >= 0", {"x": "real"})
    d = definedness(s)
    assert isinstance(d, sp.And), d
    assert not any(isinstance(a, sp.And) for a in d.args), d
    assert len(d.args) == len(set(d.args)) == 2, d
    v = kernel.prove_statement("sqrt(x) + sqrt(sqrt(x) - 1) >= 0", {"x": "nonnegative"},
                               second_solver=False)
    assert isinstance(v, Proved) and v.where_defined == "sqrt(x) - 1 >= 0", v


# ==============================================================================================
# smt/term_limits.py, smt/isolation.py, smt/z3tools.py
# ==============================================================================================
def test_a_long_exponent_is_shown_by_its_first_12_digits_and_its_length() -> None:
    """An exponent above the cap is named in the message by its first 12 characters and its
    length, so the user recognises it without a wall of digits."""
    exponent = sp.Integer(10 ** 39 + 123)
    with pytest.raises(InvalidInputError) as info:
        validate_power(sp.Symbol("x"), exponent)
    text = str(exponent)
    assert f"exponent {text[:12]}…({len(text)} characters)" in str(info.value), str(info.value)


def test_a_worker_killed_at_its_limit_says_so() -> None:
    """A worker call past its limit raises HardLimitReached telling the user the limit in
    seconds and that the worker process was killed."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write("import time\ndef nap(s):\n    time.sleep(s)\n    return s\n")
    w = Worker(fh.name, "nap")
    try:
        with pytest.raises(HardLimitReached) as info:
            w.call((30,), seconds=0.1)
        assert str(info.value) == ("the time limit of 0.1 s was reached (the worker process "
                                   "was killed)")
    finally:
        w.close()
        os.unlink(fh.name)


def test_z3_prove_gives_z3_the_users_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """prove(..., timeout_ms=T) asks z3 with a limit of exactly T/1000 seconds."""
    seen: list[float] = []
    real = z3tools.check_sat

    def spy(assertions, timeout_s, *, solver=None):  # noqa: ANN001, ANN202
        seen.append(timeout_s)
        return real(assertions, timeout_s, solver=solver)
    monkeypatch.setattr(z3tools, "check_sat", spy)
    x = z3.Real("x")
    v = z3tools._z3_prove(x * x >= 0, [], timeout_ms=1000, solver=None)
    assert isinstance(v, Proved), v
    assert seen == [1.0], seen
