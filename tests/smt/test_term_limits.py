"""Caps on exponents, root indices, constants and number literals (attnio.smt.term_limits),
at every place a term is built from them: the parser, the SMT bridge, the referee (trust tier).
Issue 22: ``n**100000000`` built a product of 10**8 factors, ``root(n, 10**9)`` ran for minutes."""

from __future__ import annotations

import pytest
import sympy as sp
import z3

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.smt import exact_eval
from attnio.smt.definedness import term_definedness
from attnio.smt.exact_eval import MAX_ALGEBRAIC_DEGREE, evaluate, sign_of
from attnio.smt.kernel import parse_statement
from attnio.smt.sympy_to_z3 import Translator
from attnio.smt.term_limits import (
    MAX_CONSTANT_BITS,
    MAX_EXPONENT,
    MAX_LITERAL_DIGITS,
    MAX_ROOT_INDEX,
    validate_number_literals,
    validate_power,
)

pytestmark = pytest.mark.trust

n = sp.Symbol("n", real=True)


def _parse(text: str) -> sp.Basic:
    return parse_statement(text, {"n": "real"})[0]


# ------------------------------------------------------------------------------ the caps
def test_the_caps_are_the_documented_values() -> None:
    assert (MAX_EXPONENT, MAX_ROOT_INDEX, MAX_CONSTANT_BITS, MAX_LITERAL_DIGITS) == \
        (1000, 100, 100_000, 500)
    assert MAX_CONSTANT_BITS == exact_eval.MAX_EXACT_BITS


@pytest.mark.parametrize("text,exponent", [
    (f"n**{MAX_EXPONENT} >= 0", sp.Integer(MAX_EXPONENT)),
    (f"n**(-{MAX_EXPONENT}) > 0", sp.Integer(-MAX_EXPONENT)),
    (f"n**(1/{MAX_ROOT_INDEX}) >= 0", sp.Rational(1, MAX_ROOT_INDEX)),
    (f"root(n, {MAX_ROOT_INDEX}) >= 0", sp.Rational(1, MAX_ROOT_INDEX)),
    (f"n**({MAX_EXPONENT}/{MAX_ROOT_INDEX}) >= 0", sp.Rational(MAX_EXPONENT, MAX_ROOT_INDEX)),
    ("n**(10**3) >= 0", sp.Integer(1000)),
    ("n**(10**500/10**499) >= 0", sp.Integer(10)),      # by value, whatever the form
])
def test_exponents_at_the_caps_are_accepted(text: str, exponent: sp.Expr) -> None:
    (power,) = _parse(text).atoms(sp.Pow)
    assert power.exp == exponent and power.exp.is_Rational


@pytest.mark.parametrize("text,message", [
    (f"n**{MAX_EXPONENT + 1} >= 0", "exponent 1001 of n\\*\\*\\(1001\\) is above the cap 1000 "
                                    "\\(MAX_EXPONENT\\)"),
    (f"n**(-{MAX_EXPONENT + 1}) > 0", "exponent -1001 of .* above the cap 1000"),
    ("n**100000000 >= 0", "exponent 100000000 of n\\*\\*\\(100000000\\) is above the cap 1000"),
    (f"n**(1/{MAX_ROOT_INDEX + 1}) >= 0", "root index 101 of .* above the cap 100 "
                                          "\\(MAX_ROOT_INDEX\\)"),
    ("n**(1/1000000000) >= 0", "root index 1000000000 of .* above the cap 100"),
    (f"root(n, {MAX_ROOT_INDEX + 1}) >= 0", "root index 101 of root\\(n, …\\) must be a nonzero "
                                            "integer of at most 100"),
    ("root(n, 10**9) >= 0", "root index 1000000000 of root\\(n, …\\)"),
    ("root(n, 0) >= 0", "root index 0 of root"),
    ("root(n, 1/2) >= 0", "root index 1/2 of root"),
    ("n**(2**10) >= 0", "exponent 1024 of n\\*\\*\\(2\\*\\*10\\)"),
    ("10**10**10 > 0", "exponent 10000000000 of 10\\*\\*\\(10\\*\\*10\\) is above the cap"),
    ("root(n, 10**10**10) > 0", "exponent 10000000000 of 10"),      # refused inside the call
    ("floor(2**(10**9)) > n", "exponent 1000000000 of 2"),
    ("(10**500)**1000 > 0", "the constant \\(10\\*\\*500\\)\\*\\*\\(1000\\) has about 2006004 "
                            "bits; constants in a STATEMENT have at most 100000"),
])
def test_exponents_beyond_the_caps_are_input_errors_naming_them(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        _parse(text)


def test_a_call_never_sees_an_argument_beyond_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    from attnio.smt import statements
    seen: list[tuple] = []
    real_floor = statements._FUNCTIONS["floor"]
    monkeypatch.setitem(statements._FUNCTIONS, "floor", lambda *a: seen.append(a) or real_floor(*a))
    with pytest.raises(InvalidInputError, match="exponent 10000000000"):
        _parse("floor(10**10**10) > n")
    assert seen == []
    assert _parse("floor(10**10/3) > n").lhs == 3333333333 and len(seen) == 1


def test_a_constant_exponent_is_stored_as_its_exact_rational() -> None:
    for text, exponent in [("n**(1/3) >= 0", sp.Rational(1, 3)), ("n**(2*3) >= 0", 6),
                           ("n**0.5 >= 0", sp.Rational(1, 2)), ("n**(4/2) >= 0", 2)]:
        (power,) = _parse(text).atoms(sp.Pow)
        assert power.exp == exponent and power.exp.is_Rational, text
    # so the definedness rule of a rational exponent applies (b >= 0, not b > 0) ...
    assert term_definedness(_parse("n**(1/3) >= 0").lhs) == sp.Ge(n, 0, evaluate=False)
    # ... and the SMT bridge translates it
    assert Translator({n: "real"}).expr(_parse("n**(1/3) >= 0").lhs) is not None
    # a symbolic or irrational exponent is left as written
    assert _parse("n**pi > 0").lhs.exp is sp.pi
    x = sp.Symbol("x", real=True)
    assert parse_statement("n**(1000000*x) > 0", {"n": "positive", "x": "real"})[0].lhs.exp \
        == 1000000 * x


def test_check_power_boundaries() -> None:
    assert validate_power(n, sp.Integer(MAX_EXPONENT)) == MAX_EXPONENT
    with pytest.raises(InvalidInputError, match="MAX_EXPONENT"):
        validate_power(n, sp.Integer(MAX_EXPONENT + 1))
    assert validate_power(n, sp.Rational(-MAX_EXPONENT, MAX_ROOT_INDEX)) == \
        sp.Rational(-MAX_EXPONENT, MAX_ROOT_INDEX)
    with pytest.raises(InvalidInputError, match="MAX_ROOT_INDEX"):
        validate_power(n, sp.Rational(1, MAX_ROOT_INDEX + 1))
    with pytest.raises(InvalidInputError, match="MAX_EXPONENT"):
        validate_power(n, sp.Rational(MAX_EXPONENT + 1, 2))
    # a constant power: bits of the base times the integer part of the exponent, + 1
    big = sp.Integer(2) ** 99                       # 100 bits
    assert validate_power(big, sp.Integer(999)) == 999           # 100 * 1000 bits: at the cap
    with pytest.raises(InvalidInputError, match="has about 101000 bits"):
        validate_power(sp.Integer(2) ** 100, sp.Integer(999))     # 101 * 1000 bits
    with pytest.raises(InvalidInputError, match="more than 100000 bits"):
        validate_power(n, sp.Pow(sp.Integer(2) ** 200, 1000, evaluate=False))
    assert validate_power(n, sp.Pow(sp.Integer(2), 9, evaluate=False)) == 512


# ------------------------------------------------------------------------ number literals
@pytest.mark.parametrize("text,value", [
    ("1e308*10", sp.Integer(10) ** 309), ("1E3", 1000), ("1e+3", 1000), ("2.5e-1", sp.Rational(1, 4)),
    (".5", sp.Rational(1, 2)), ("5.", 5), ("1" + "0" * (MAX_LITERAL_DIGITS - 1), sp.Integer(10) ** 499),
    (f"1e{MAX_LITERAL_DIGITS - 1}", sp.Integer(10) ** 499),
    (f"1e-{MAX_LITERAL_DIGITS - 1}", sp.Rational(1, 10 ** 499)),
])
def test_decimal_literals_are_exact_up_to_the_cap(text: str, value: sp.Expr) -> None:
    assert _parse(f"Eq(n, {text})").rhs.doit() == value


@pytest.mark.parametrize("literal,message", [
    ("1" + "0" * MAX_LITERAL_DIGITS, "has 501 digits; numbers in a STATEMENT have at most 500"),
    (f"1e{MAX_LITERAL_DIGITS}", "number 1e500 has 501 digits"),
    (f"1e-{MAX_LITERAL_DIGITS}", "number 1e-500 has 501 digits"),
    ("1e100000", "number 1e100000 has 100001 digits"),
    ("1e100000000", "has an exponent of more than 6 digits"),
    ("1e3e3", "number '1e3e3' is not a decimal number: write digits with an optional fraction"),
    ("0x10", "number '0x10' is not a decimal number"),
    ("1_000", "number '1_000' is not a decimal number"),
    ("1j", "number '1j' is not a decimal number"),
    ("1.2.3", "number '1.2.3' is not a decimal number"),
    ("2E", "number '2E' is not a decimal number"),
    ("1e", "number '1e' is not a decimal number"),
])
def test_bad_number_literals_are_refused_naming_them(literal: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        validate_number_literals(f"n <= {literal}")
    with pytest.raises(InvalidInputError, match=message):
        _parse(f"n <= {literal}")


def test_names_with_digits_are_not_numbers() -> None:
    validate_number_literals("x1e5 + n_2 + e3 > 0")           # names: no literal to check
    assert parse_statement("x1e5 > 0", {"x1e5": "real"})[0].lhs == sp.Symbol("x1e5", real=True)


# ---------------------------------------------------------------- the rest of the parser
@pytest.mark.parametrize("text,message", [
    ("true", "STATEMENT 'true' is the constant true: it has no relation to prove"),
    ("True", "STATEMENT 'True' is the constant true"),
    ("false", "STATEMENT 'false' is the constant false"),
    ("Min() > 0", "Min\\(\\) has no argument: Min needs at least one"),
    ("Max() < n", "Max\\(\\) has no argument: Max needs at least one"),
    ("factorial(10**9) > 0", "function 'factorial' is not supported: the functions are Abs, "),
])
def test_empty_min_constants_and_unsupported_functions(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        _parse(text)


def test_min_and_max_with_arguments_still_work() -> None:
    assert _parse("Min(n, 2) <= 2").lhs == sp.Min(n, 2)
    assert _parse("And(true, n > 0)") is not sp.true


# -------------------------------------------------------------------- the SMT bridge
def test_the_bridge_refuses_exponents_beyond_the_caps() -> None:
    t = Translator({n: "real"})
    assert t.expr(sp.Pow(n, MAX_EXPONENT, evaluate=False)).decl().kind() == z3.Z3_OP_POWER
    with pytest.raises(TranslationError, match="exponent 1001 of a power is beyond the caps"):
        t.expr(sp.Pow(n, MAX_EXPONENT + 1, evaluate=False))
    with pytest.raises(TranslationError, match="exponent -1001"):
        t.expr(sp.Pow(n, -MAX_EXPONENT - 1, evaluate=False))
    with pytest.raises(TranslationError, match="beyond the caps"):
        t.expr(sp.Pow(n, sp.Rational(1, MAX_ROOT_INDEX + 1), evaluate=False))
    t.expr(sp.Pow(n, sp.Rational(1, MAX_ROOT_INDEX), evaluate=False))     # at the cap


def test_a_statement_built_in_python_beyond_the_caps_is_bounded() -> None:
    from attnio.smt.kernel import prove_statement
    x = sp.Symbol("x", positive=True)
    v = prove_statement(sp.Ge(sp.Pow(x, 10 ** 8, evaluate=False), 0, evaluate=False), timeout=10)
    assert v.verdict == "undecided" and "not expressible in SMT arithmetic" in v.reason


# ------------------------------------------------------------------------- the referee
def test_the_referee_does_not_evaluate_roots_beyond_the_caps() -> None:
    at_cap = sp.Pow(2, sp.Rational(1, MAX_ROOT_INDEX), evaluate=False)
    beyond = sp.Pow(2, sp.Rational(1, MAX_ROOT_INDEX + 1), evaluate=False)
    assert evaluate(sp.Gt(at_cap, 1, evaluate=False), {}) == "true"
    assert evaluate(sp.Gt(beyond, 1, evaluate=False), {}) == "unknown"
    huge_numerator = sp.Pow(2, sp.Rational(MAX_EXPONENT + 1, 3), evaluate=False)
    assert evaluate(sp.Gt(huge_numerator, 1, evaluate=False), {}) == "unknown"
    # the integer part of a rational power is sized like an integer power
    big_base = sp.Integer(10) ** 200                  # 665 bits, ** 499 (+1): 332,000 bits
    assert evaluate(sp.Gt(sp.Pow(big_base, sp.Rational(999, 2), evaluate=False), 1,
                          evaluate=False), {}) == "unknown"
    assert evaluate(sp.Gt(sp.Pow(3, sp.Rational(999, 2), evaluate=False), 1,
                          evaluate=False), {}) == "true"


def test_no_minimal_polynomial_beyond_the_degree_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[sp.Expr] = []
    real = sp.minimal_polynomial
    monkeypatch.setattr(exact_eval.sp, "minimal_polynomial",
                        lambda value, *a, **k: calls.append(value) or real(value, *a, **k))
    high = sp.root(2, 16) + sp.root(3, 16)            # degree bound 256
    assert exact_eval._degree_bound(high - 2) == 256 > MAX_ALGEBRAIC_DEGREE
    assert sign_of(high - 2) == 1 and calls == []       # far from 0: evalf gives the sign
    zero = (sp.root(2, 16) + sp.root(3, 16)) ** 2 - sp.root(2, 8) - sp.root(3, 8) \
        - 2 * sp.root(6, 16)                           # 0, in a form sympy does not fold
    assert sign_of(zero) is None and calls == []        # a zero it may not test: unknown
    low = sp.sqrt(5 + 2 * sp.sqrt(6)) - sp.sqrt(2) - sp.sqrt(3)
    assert exact_eval._degree_bound(low) == 16 and sign_of(low) == 0 and calls
    assert exact_eval._degree_bound(sp.CRootOf(sp.Poly([1, 0, 0, -2], sp.Dummy()), 0)) == 3
