"""The obvious points (attnio.smt.obvious_points, issue 38): where a counterexample is looked
for first. Nothing here decides a verdict — the referee judges every point — but a point
outside its declared domain, or a witness that is not exactly true, would (the planted
violations below), so these run in the trust tier."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from attnio.smt.exact_eval import in_domain
from attnio.smt.obvious_points import (
    critical_expressions,
    near_integer_points,
    obvious_points,
    obvious_witness,
    values_for,
)
from attnio.smt.statements import DOMAINS, symbol_for

pytestmark = pytest.mark.trust

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_value_lies_in_its_declared_domain(domain: str) -> None:
    s = symbol_for("s", domain)
    formulas = [sp.Gt(sp.log(s - 3), 0), sp.Ge(s ** 2, 2), sp.Gt(1 / (s + sp.Rational(5, 2)), 0)]
    values = values_for(s, domain, formulas)
    assert values and all(in_domain(v, domain) is True for v in values), values
    assert len(values) == len(set(values))


def test_the_small_values_come_first() -> None:
    assert values_for(x, "real", [])[:5] == [0, 1, -1, 2, -2]
    n = symbol_for("n", "positive-integer")
    assert values_for(n, "positive-integer", [])[0] == 1            # the domain's edge
    first = next(obvious_points([x > 0], {x: "real"}))
    assert first == {x: 0}


@pytest.mark.parametrize("formula,edge", [
    (sp.Gt(sp.log(x - 3), 0), 4),                 # log's argument is 1 at x = 4
    (sp.Gt(sp.log(x - 3), 0), 3),                 # ... and 0 at x = 3
    (sp.Ge(sp.sqrt(7 - x), 0), 7),                # a root's radicand
    (sp.Ge(1 / (x - 5), 0), 5),                   # a denominator
    (sp.Ge(x ** 2, 2), sp.sqrt(2)),               # where the sides meet (exact, irrational)
    (sp.Le(sp.log(9, x, evaluate=False), 1), 1),   # a log's base: 1 (log(9, 1) undefined)
])
def test_the_edges_of_the_statement_are_tried(formula: sp.Basic, edge: sp.Expr) -> None:
    assert sp.sympify(edge) in values_for(x, "real", [formula])


def test_integer_domains_get_the_integers_next_to_an_edge() -> None:
    n = symbol_for("n", "integer")
    values = values_for(n, "integer", [sp.Ge(n ** 2, 2)])
    assert {1, 2, -1, -2} <= set(values) and all(v.is_Integer for v in values)


def test_edges_of_huge_degree_are_not_computed() -> None:
    start = time.process_time()
    huge = sp.Ge(sp.Pow(x, 10 ** 8, evaluate=False), 0, evaluate=False)
    assert critical_expressions([huge])
    values_for(x, "real", [huge])
    assert time.process_time() - start < 5            # sympy's Poly would take minutes


def test_the_limit_is_kept_and_points_are_distinct() -> None:
    y = sp.Symbol("y", real=True)
    points = list(obvious_points([x > y], {x: "real", y: "real"}, limit=50))
    assert len(points) == 50
    assert len({tuple(sorted(p.items(), key=str)) for p in points}) == 50


def test_a_witness_is_exactly_true_not_undefined() -> None:
    """sqrt(x) < 0 is undefined at every negative obvious point, false elsewhere: no witness."""
    assert obvious_witness([sp.Lt(sp.sqrt(x), 0)], {x: "real"}) is False
    assert obvious_witness([sp.Gt(x, 3), sp.Lt(x, 4)], {x: "real"}) is True


def test_the_integer_points_next_to_a_relaxed_model() -> None:
    n, m = sp.Symbol("n"), sp.Symbol("m")
    points = list(near_integer_points({n: sp.Rational(5, 2), x: sp.Rational(1, 3)},
                                      {n: "positive-integer", x: "real"}))
    assert points == [{n: v, x: sp.Rational(1, 3)} for v in (1, 2, 3, 4)]
    two = list(near_integer_points({n: sp.Rational(-1, 2), m: sp.Integer(7)},
                                   {n: "integer", m: "integer"}))
    assert len(two) == 16 and two[0] == {n: -2, m: 6} and two[-1] == {n: 1, m: 9}
