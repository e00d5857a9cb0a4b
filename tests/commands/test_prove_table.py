"""A table of statements through ``attnio prove``, each with its expected verdict (issue 10).

Every false statement must come out Refuted with a counterexample that this test re-checks
*independently* of the kernel (sympy's own evaluation with the values substituted); every true
one must be Proved or Undecided — never Refuted.
"""

from __future__ import annotations

import json

import pytest
import sympy

from attnio.cli import main

PI = "positive-integer"
B1 = "(n**2*d**2 + n*d**3)/M"        # Thm 1.1, large-cache branch
B2 = "(n**2*d + n*d**2)/sqrt(M)"     # Thm 1.1, small-cache branch
NDM = {"n": PI, "d": PI, "M": PI}
POS2 = {"x": "positive", "y": "positive"}
REAL2 = {"x": "real", "y": "real"}

# (statement, {name: domain}, expected): expected "true" = Proved or Undecided, "false" = Refuted
TABLE: list[tuple[str, dict[str, str], str]] = [
    # positivity from the declaration, never from the name
    ("M >= 0", {"M": "real"}, "false"),
    ("Z_QK > 0", {"Z_QK": "real"}, "false"),
    ("Z_QK > 0", {"Z_QK": "nonnegative"}, "false"),
    ("M >= 0", {"M": "positive"}, "true"),
    ("x >= 0", {"x": "real"}, "false"),
    # hard algebraic constants
    ("Eq(cos(pi/7) - cos(2*pi/7) + cos(3*pi/7), Rational(1, 2))", {}, "true"),
    ("Eq(cos(pi/7) - cos(2*pi/7) + cos(3*pi/7), Rational(1, 3))", {}, "false"),
    ("Eq(sqrt(5 + 2*sqrt(6)), sqrt(2) + sqrt(3))", {}, "true"),
    ("Eq(sqrt(5 + 2*sqrt(6)), sqrt(2) + sqrt(3) + Rational(1, 1000000))", {}, "false"),
    ("Eq((1 + sqrt(5))/2 * ((1 + sqrt(5))/2 - 1), 1)", {}, "true"),
    ("sqrt(2) + sqrt(3) > pi", {}, "true"),
    ("sqrt(2) + sqrt(3) < pi", {}, "false"),
    # integer-only truths, and the same statements over the reals
    ("n >= 1", {"n": PI}, "true"),
    ("n >= 1", {"n": "positive"}, "false"),
    ("n**2 >= n", {"n": PI}, "true"),
    ("n**2 >= n", {"n": "positive"}, "false"),
    ("Ne(2*n, 1)", {"n": "integer"}, "true"),
    ("Ne(2*n, 1)", {"n": "real"}, "false"),
    ("Implies(n > 1, n >= 2)", {"n": "integer"}, "true"),
    ("Implies(n > 1, n >= 2)", {"n": "real"}, "false"),
    ("n*(n - 1) >= 0", {"n": "integer"}, "true"),
    ("n*(n - 1) >= 0", {"n": "real"}, "false"),
    ("Ne(2*n + 1, 2*m)", {"n": "integer", "m": "integer"}, "true"),
    ("Ne(2*n + 1, 2*m)", {"n": "real", "m": "real"}, "false"),
    ("Ne(n**2, 2)", {"n": "integer"}, "true"),
    ("Ne(n**2, 2)", {"n": "real"}, "false"),
    # the crossover M = d**2 of Thm 1.1 and its twins at d**2/2 and 2d**2
    (f"Implies(M >= d**2, {B1} <= {B2})", NDM, "true"),
    (f"Implies(M >= d**2/2, {B1} <= {B2})", NDM, "false"),
    (f"Implies(M >= 2*d**2, {B1} <= {B2})", NDM, "true"),
    (f"Implies(M <= d**2/2, {B1} >= {B2})", NDM, "true"),
    (f"Implies(M <= 2*d**2, {B1} >= {B2})", NDM, "false"),
    (f"Equivalent({B1} <= {B2}, M >= d**2)", {"n": "positive", "d": "positive", "M": "positive"}, "true"),
    (f"Equivalent({B1} <= {B2}, M >= d**2/2)", {"n": "positive", "d": "positive", "M": "positive"}, "false"),
    (f"Equivalent({B1} <= {B2}, M >= 2*d**2)", {"n": "positive", "d": "positive", "M": "positive"}, "false"),
    # Min / Max / sqrt / Abs
    ("Min(x, y) <= Max(x, y)", REAL2, "true"),
    ("Min(x, y) < Max(x, y)", REAL2, "false"),
    ("Max(x, -x) >= 0", {"x": "real"}, "true"),
    ("Eq(Max(x, y), x + y - Min(x, y))", REAL2, "true"),
    ("sqrt(x*y) <= (x + y)/2", POS2, "true"),
    ("sqrt(x*y) <= (x + y)/3", POS2, "false"),
    ("x + 1/x >= 2", {"x": "positive"}, "true"),
    ("x + 1/x >= 3", {"x": "positive"}, "false"),
    ("Eq(sqrt(x**2), x)", {"x": "real"}, "false"),
    ("Eq(sqrt(x**2), x)", {"x": "nonnegative"}, "true"),
    ("Eq(Abs(x), Max(x, -x))", {"x": "real"}, "true"),
    ("Implies(And(x >= 0, y >= 0), sqrt(x) + sqrt(y) >= sqrt(x + y))", REAL2, "true"),
    ("Min(n**2*d**2/M, n**2*d/sqrt(M)) <= n**2*d/sqrt(M)", NDM, "true"),
    ("Min(n**2*d**2/M, n**2*d/sqrt(M)) >= n**2*d/sqrt(M)", NDM, "false"),
    # algebraic counterexamples
    ("Ne(x**3, 2)", {"x": "real"}, "false"),
    ("Implies(Eq(x**2, 2), x < Rational(3, 2))", {"x": "real"}, "true"),
    ("Implies(Eq(x**2, 2), x > Rational(7, 5))", {"x": "real"}, "false"),
]


def _prove(statement: str, domains: dict[str, str], capsys: pytest.CaptureFixture[str]
           ) -> tuple[int, dict]:
    argv = ["prove", statement, "--json", "--timeout", "10"]
    for name, domain in domains.items():
        argv += ["--var", f"{name}:{domain}"]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def _independently_false(statement: str, domains: dict[str, str],
                         counterexample: dict[str, str]) -> bool:
    """sympy alone (no attnio code): substitute the exact values and evaluate."""
    local = {name: sympy.Symbol(name) for name in domains}
    expr = sympy.sympify(statement, locals=local)
    values = {local[k]: sympy.sympify(v) for k, v in counterexample.items()}
    for name, domain in domains.items():
        v = values[local[name]]
        if "integer" in domain:
            assert v.is_integer, (name, v)
        if domain.startswith("positive"):
            assert v.is_positive, (name, v)
        if domain.startswith("nonnegative"):
            assert v.is_nonnegative, (name, v)
    value = expr.xreplace(values)
    value = sympy.simplify(value) if value not in (sympy.true, sympy.false) else value
    return value is sympy.false


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert sum(1 for *_, e in TABLE if e == "false") >= 15


# default tier: 17 rows spread over the table; --runslow: all of them
@pytest.mark.default_slice(17)
@pytest.mark.parametrize("statement,domains,expected", TABLE,
                         ids=[f"{i:02d}" for i in range(len(TABLE))])
def test_prove_table(statement: str, domains: dict[str, str], expected: str,
                     capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _prove(statement, domains, capsys)
    assert set(doc) >= {"command", "verdict", "counterexample", "detail", "solvers",
                        "evidence", "attnio_version"}
    if expected == "false":
        assert doc["verdict"] == "refuted", doc
        assert code == 1
        assert _independently_false(statement, domains, doc["counterexample"]), doc
    else:
        assert doc["verdict"] in ("proved", "undecided"), doc
        assert code == (0 if doc["verdict"] == "proved" else 1)
