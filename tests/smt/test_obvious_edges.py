"""The exp/log edges of smt/obvious_points.py: a statement false only at or between the roots
of ``exp(x) = c`` / ``log(x) = c`` is refuted with an exact counterexample (it was Undecided:
z3 reads exp as an uninterpreted function with axioms and its models were never real points).

Each rule of the extension has its twin: a true statement with the same shape is never
refuted, and each rule removed on its own loses the counterexample its test pins."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.smt import obvious_points as op
from attnio.smt.exact_eval import truth_at
from attnio.smt.kernel import prove_statement

pytestmark = pytest.mark.trust

X = sp.Symbol("x", real=True)
R72 = sp.Rational(7, 2)


def _refuted_at(statement: sp.Basic, domain: str = "real") -> sp.Expr:
    """The counterexample of a Refuted verdict, re-evaluated exactly here (false there)."""
    verdict = prove_statement(statement, {X: domain})
    assert verdict.verdict == "refuted", verdict
    [(name, value)] = verdict.counterexample.items()
    value = sp.sympify(value)
    assert truth_at(statement, {X: value}) is False, value
    return value


def test_an_exp_edge_is_a_root_by_inversion() -> None:
    """exp(x) = 3 at x = log 3: the strict statement is false exactly at the two edges."""
    assert _refuted_at(sp.Or(sp.exp(X) < 3, sp.exp(X) > R72)) in (sp.log(3), sp.log(R72))
    assert op._inverted_root(sp.exp(2 * X + 1) - 3, X) == [(sp.log(3) - 1) / 2]
    assert op._inverted_root(5 * sp.log(X / 2) - 5, X) == [2 * sp.E]


def test_between_two_edges_the_simplest_rational_is_tried() -> None:
    """The non-strict statement is false only strictly between log 3 and log(7/2): 5/4."""
    assert _refuted_at(sp.Or(sp.exp(X) <= 3, sp.exp(X) >= R72)) == sp.Rational(5, 4)
    assert _refuted_at(sp.Or(sp.log(X) <= 1, sp.log(X) >= sp.Rational(21, 20)),
                       "positive") == sp.Rational(11, 4)


@pytest.mark.parametrize("statement", [
    sp.Or(sp.exp(X) < 3, sp.exp(X) > 2),
    sp.Or(sp.exp(X) <= 3, sp.exp(X) >= 3),
    sp.exp(X) > 0,
    sp.Or(sp.log(1 + X ** 2) >= 0, X > 100),
], ids=["overlapping", "touching", "positive", "log-nonnegative"])
def test_twin__a_true_statement_of_the_same_shape_is_never_refuted(statement) -> None:
    assert prove_statement(statement, {X: "real"}).verdict != "refuted"


def test_twin__inversion_only_where_the_function_takes_the_value() -> None:
    """exp(x) = -1 has no root; exp of a non-linear argument, two moving terms, a symbolic
    coefficient that may be zero, and a huge expression are left to the other steps."""
    k = sp.Symbol("k", real=True)
    assert op._inverted_root(sp.exp(X) + 1, X) == []
    assert op._inverted_root(sp.exp(X ** 2) - 3, X) == []
    assert op._inverted_root(sp.exp(X) + sp.log(X) - 3, X) == []
    assert op._inverted_root(k * sp.exp(X) - 3, X) == []
    assert op._inverted_root(sp.exp(sp.sqrt(2) * X) - 3, X) == []
    big = sp.exp(X) - sum(sp.Rational(1, i) for i in range(1, 60)) * sp.pi ** 50
    assert op._inverted_root(big, X) == [] or op._MAX_INVERTED_OPS >= big.count_ops()
    assert op._roots(sp.exp(X) - 3, X) == [sp.log(3)]


def test_twin__between_edges_for_real_symbols_only_and_strictly_inside() -> None:
    """Integer domains take the integers next to each edge, not a rational between two;
    the rational lies strictly inside (endpoints excluded) and has the least denominator."""
    statement = [sp.Or(sp.exp(X) <= 3, sp.exp(X) >= R72)]
    assert sp.Rational(5, 4) in op.values_for(X, "real", statement)
    assert all(v.is_Integer for v in op.values_for(X, "integer", statement))
    assert op._simplest_between(1.0, 2.0) == sp.Rational(3, 2)
    assert op._simplest_between(1.0, 1.0000001) is None
    assert op._simplest_between(0.5, 1.0) == sp.Rational(2, 3)


def test_a_root_beyond_the_floats_is_no_obvious_point() -> None:
    """``log(n - 1) = exp(exp(2))`` inverts to n = 1 + exp(exp(exp(2))) ≈ 10^702: its floor
    raised OverflowError through ``attnio prove`` (a traceback), found by a sweep of the
    bridge's statements. The root is skipped (no neighbours, no edge); the small values of the
    domain still refute the statement, exactly."""
    n = sp.Symbol("n", integer=True, positive=True)
    statement = sp.Ge(sp.log(n - 1), sp.exp(sp.exp(2)))
    values = op.values_for(n, "positive-integer", [statement])
    assert values and all(v.is_Integer and v < 10 ** 300 for v in values)
    # an edge at -exp(exp(exp(2))), -inf as a float: no rational "between" it and the next
    assert op.values_for(X, "real", [sp.Or(sp.Ge(X, 0), sp.Lt(sp.log(-X), sp.exp(sp.exp(2))))])
    verdict = prove_statement(statement, {n: "positive-integer"})
    assert verdict.verdict == "refuted", verdict
    point = {n: sp.sympify(verdict.counterexample["n"])}
    assert truth_at(statement, point) is False
