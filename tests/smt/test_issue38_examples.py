"""Every example of issue 38 ("prove on the statements researchers actually write"), each a
regression test: the right verdict or a clear exit 2, never a traceback.

Through ``attnio prove`` (:func:`attnio.cli.main`, the decision in an isolated child process
as a user runs it) where the issue quotes the command line, through
:func:`~attnio.smt.kernel.prove_statement` otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.results import Proved, Refuted, Undecided
from attnio.smt.definedness import definedness
from attnio.smt.exact_eval import evaluate, in_domain
from attnio.smt.kernel import parse_statement, prove_statement
from attnio.smt.statements import statement_text

R = {"x": "real"}
P = {"x": "positive"}
NM = {"n": "positive-integer", "M": "positive-integer"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["prove", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ------------------------------------------------------------------ two-argument log
def test_a_two_argument_log_is_decided_not_a_traceback(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    code, out, _ = _run(capsys, "Eq(log(8, 2), 3)")
    assert code == 0 and out.startswith("proved: ")
    code, out, _ = _run(capsys, "Eq(log(8, 2), 4)")
    assert code == 1 and out.startswith("refuted: ")


@pytest.mark.parametrize("text,domains,kind,where", [
    ("log(x, 2) <= x", P, Proved, None),
    ("Eq(log(x, b)*log(b), log(x))", {"x": "positive", "b": "positive"}, Proved, "Ne(b, 1)"),
    ("log2(n) <= n", {"n": "positive-integer"}, Proved, None),
    ("Eq(ln(exp(x)), x)", R, Proved, None),
    ("Eq(log10(1000), 3)", {}, Proved, None),
])
def test_two_argument_logs_and_their_spellings(text: str, domains: dict[str, str], kind: type,
                                               where: str | None) -> None:
    v = prove_statement(text, domains)
    assert isinstance(v, kind), v
    assert getattr(v, "where_defined", None) == where


# ---------------------------------------------------------------- easy refutations
@pytest.mark.parametrize("text,point", [
    ("exp(x) > 1 + x", {"x": "0"}),          # false at 0
    ("log(x - 3) > 0", {"x": "4"}),          # false at 4: the edge where log's argument is 1
])
def test_easy_refutations_are_found_at_the_obvious_points(text: str, point: dict) -> None:
    v = prove_statement(text, R)
    assert isinstance(v, Refuted) and v.counterexample == point, v
    assert v.evidence.kind == "exact-arithmetic"


# --------------------------------------------------------- the classic inequalities
@pytest.mark.parametrize("text,domains,where", [
    ("exp(x) >= 1 + x", R, None),
    ("log(x) <= x - 1", P, None),
    ("log(x) <= x - 1", R, "x > 0"),
    ("log(1 + x**2) >= 0", R, None),
    ("Ne(exp(x), 0)", R, None),
    ("log(log(x)) <= x", R, "And(x > 0, log(x) > 0)"),
    ("Eq(log(x)/log(x), 1)", R, "And(x > 0, Ne(log(x), 0))"),
])
def test_the_classic_inequalities_are_proved(text: str, domains: dict[str, str],
                                             where: str | None) -> None:
    v = prove_statement(text, domains)
    assert isinstance(v, Proved) and v.where_defined == where, v
    if where is not None:
        assert "undefined e.g. at {" in v.detail


def test_defined_nowhere_is_vacuous_as_with_a_square_root() -> None:
    for text in ("log(x - 3) + log(3 - x) <= 0", "1/sqrt(x - 3) + 1/sqrt(3 - x) <= 0"):
        v = prove_statement(text, R)
        assert isinstance(v, Undecided) and v.reason.startswith("vacuous: the statement is "
                                                                "defined at no point"), v


# ---------------------------------------------------------------- integer identities
def test_the_ceiling_floor_identity_is_proved() -> None:
    v = prove_statement("Eq(ceiling(n/M), floor((n + M - 1)/M))", NM)
    assert isinstance(v, Proved) and v.where_defined is None, v
    w = prove_statement("Eq(ceiling(n/M), floor((n + M)/M))", NM)      # its false twin
    assert isinstance(w, Refuted), w


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_irrationality_of_sqrt_2_is_never_wrong() -> None:
    """Hard (the issue leaves it): whatever the answer, not a refutation, not a traceback."""
    v = prove_statement("Ne(n**2, 2*m**2)", {"n": "positive-integer", "m": "positive-integer"},
                        timeout=5, isolate=True)
    assert not isinstance(v, Refuted), v


# ----------------------------------------------------------------------- big constants
@pytest.mark.parametrize("domain", ["positive-integer", "integer", "real"])
def test_constants_up_to_the_cap_are_exact(domain: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "Implies(n >= 10**200, n >= 10**199)", "--var", f"n:{domain}")
    assert code == 0 and out.startswith("proved: "), out
    v = prove_statement("Implies(n >= 10**200, n >= 10**200 + 1)", {"n": domain})
    assert isinstance(v, Refuted) and v.counterexample == {"n": str(10 ** 200)}, v
    big = "9" * 500
    assert isinstance(prove_statement(f"Implies(n >= {big}, n > {big[:-1]})", {"n": domain}),
                      Proved)


# ---------------------------------------------------------------------------- labels
def test_where_defined_only_with_an_undefined_point(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "1/(n**2 - 2) <= 1", "--var", "n:integer")
    assert code == 0 and out.startswith("proved: true at every point"), out
    assert "where defined" not in out


@pytest.mark.parametrize("text,domains", [
    ("sqrt(1 - x) + sqrt(x - 1) >= 0", R),
    ("log(log(x)) <= x", R),
    ("Eq((x**2 - 1)/(x - 1), x + 1)", R),
    ("Or(x < 0, sqrt(x) >= 0)", R),
    ("Piecewise((1/x, x > 0)) > 0", R),
    ("Implies(y > 0, log(x*y) >= log(y) - log(1/x))", {"x": "real", "y": "real"}),
])
def test_conditions_are_printed_in_the_syntax_prove_reads(text: str,
                                                          domains: dict[str, str]) -> None:
    """The round trip: the printed condition parses back (with the same declarations) to a
    condition that agrees with the kernel's at every sampled point, and prints the same."""
    v = prove_statement(text, domains)
    assert isinstance(v, Proved) and v.where_defined, v
    assert " & " not in v.where_defined and " | " not in v.where_defined
    parsed, doms = parse_statement(v.where_defined, domains)
    assert statement_text(parsed) == v.where_defined
    original, _ = parse_statement(text, domains)
    condition = definedness(original)
    values = (-2, -1, 0, sp.Rational(1, 2), 1, 2, 3)
    syms = sorted(doms, key=str)
    import itertools
    for combo in itertools.product(values, repeat=len(syms)):
        point = dict(zip(syms, map(sp.sympify, combo)))
        assert evaluate(parsed, point) == evaluate(condition, point), (point, v.where_defined)


def test_the_0_and_1_condition_of_the_issue_round_trips(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    code, out, _ = _run(capsys, "sqrt(1 - x) + sqrt(x - 1) >= 0", "--var", "x:real")
    assert code == 0
    assert out.startswith("proved where defined (And(1 - x >= 0, x - 1 >= 0)): ")
    code, out, _ = _run(capsys, "Implies(And(1 - x >= 0, x - 1 >= 0), Eq(x, 1))",
                        "--var", "x:real")
    assert code == 0, out


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_algebraic_counterexamples_print_as_radicals(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, _ = _run(capsys, "Ne(x**2, 2*x + 1)", "--var", "x:positive")
    assert code == 1 and "counterexample: x = 1 + sqrt(2)" in out, out
    v = prove_statement("Ne(x**2, 2*x + 1)", P)
    point = {sp.Symbol("x", positive=True): sp.sympify(v.counterexample["x"])}
    assert in_domain(point[sp.Symbol("x", positive=True)], "positive") is True
    statement, _ = parse_statement("Ne(x**2, 2*x + 1)", P)
    assert evaluate(statement, dict(zip(statement.free_symbols, point.values()))) == "false"


def test_the_piecewise_rule_is_written_down() -> None:
    notes = (Path(__file__).resolve().parents[2] / "notes" / "claims.md").read_text()
    assert "does **not fall through**" in notes
    statement, _ = parse_statement("Piecewise((1, sqrt(x) > 1), (0, True)) >= 0", R)
    assert evaluate(statement, {next(iter(statement.free_symbols)): sp.Integer(-1)}) == \
        "undefined"


@pytest.mark.parametrize("arrow", ["=>", "->", "⇒"])
def test_arrows_get_a_one_line_hint(arrow: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, f"x > 1 {arrow} x > 0", "--var", "x:real")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"attnio prove: error: STATEMENT uses '{arrow}': write an implication as Implies(A, "
        "B), e.g. Implies(x > 1, x**2 > 1)"]
    with pytest.raises(InvalidInputError, match="Implies"):
        parse_statement(f"A {arrow} B", {"A": "real", "B": "real"})


def test_the_default_verdict_line_is_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "x**2 >= 0", "--var", "x:real")
    first = out.split("\n")[0]
    assert code == 0 and "∧" not in first and "¬" not in first and "hypotheses" not in first
    assert out.startswith("proved: true at every point of the declared domains")
    code, out, _ = _run(capsys, "x**2 >= 0", "--var", "x:real", "--verbose")
    assert "detail: hypotheses ∧ defined ∧ ¬statement is unsat" in out
    code, out, _ = _run(capsys, "x**2 >= 0", "--var", "x:real", "--json")
    doc = json.loads(out)
    assert doc["detail"].startswith("hypotheses ∧ defined ∧ ¬statement is unsat")   # kept
    assert doc["explanation"].startswith("true at every point of the declared domains")
