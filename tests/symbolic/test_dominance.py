"""Tests for attnio.symbolic.dominance: growth exponents and exact dominance decisions."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.results import Proved, Refuted, Undecided
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.dominance import (
    DEFAULT_REGION,
    DENSE_INSTANCE,
    admissible_region,
    check_sign,
    compare,
    growth_exponent,
)
from attnio.symbolic.symbols import M, alpha, beta, d, kappa, mu, n, rho


def test_growth_exponent_rules() -> None:
    assert growth_exponent(n**2 * d / sp.sqrt(M)).expr == 2 * beta + 1 - alpha / 2
    e = growth_exponent("bwd.standard").expr
    assert e == sp.Max(beta + 1, 2 * beta)
    assert growth_exponent("matmul.hk.lower").expr == kappa + mu + rho - alpha / 2


def test_negative_term_condition() -> None:
    e = growth_exponent("matmul.hk_explicit.lower")
    assert len(e.validity) == 1
    # dense instance, n >= d**2: mkp/sqrt(2M) outgrows M on all of d <= M <= n d: decided
    region = (alpha >= 1, alpha <= 1 + beta, beta >= 2)
    r = compare("matmul.hk_explicit.lower", "matmul.hk.lower", region, substitute=DENSE_INSTANCE)
    assert r.outcome == "same order"
    # at n = d, M = n d = d**2 the explicit bound is d**2/sqrt(2) - d**2 < 0: not decided
    r = compare("matmul.hk_explicit.lower", "matmul.hk.lower", substitute=DENSE_INSTANCE)
    assert r.outcome == "undecided"


def test_negative_term_not_implied_is_undecided() -> None:
    region = (alpha >= 0, beta >= 0, alpha <= 10)
    r = compare("matmul.hk_explicit.lower", "matmul.hk.lower", region, substitute=DENSE_INSTANCE)
    assert r.outcome == "undecided" and "needs" in r.reason
    v = check_sign("matmul.hk_explicit.lower", "matmul.hk.lower", region, "zero",
                   substitute=DENSE_INSTANCE)
    assert isinstance(v, Undecided)


def test_unsupported_expression() -> None:
    with pytest.raises(InvalidInputError, match="cannot take the growth exponent"):
        growth_exponent(sp.log(n))


def test_flash_vs_alg6_split() -> None:
    r = compare("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION)
    assert r.outcome == "incomparable"
    assert [(p.outcome, p.conditions) for p in r.pieces] == [
        ("dominates", (alpha < 2,)), ("same order", (sp.Eq(alpha, 2),)),
        ("dominated", (alpha > 2,))]


@pytest.mark.parametrize("extra, sign", [((alpha < 2,), "positive"),
                                         ((sp.Eq(alpha, 2),), "zero"),
                                         ((alpha > 2,), "negative")])
def test_flash_vs_alg6_claims(extra: tuple, sign: str) -> None:
    assert isinstance(check_sign("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION + extra,
                                 sign), Proved)


@pytest.mark.parametrize("extra, wrong", [((alpha < 2,), "negative"), ((alpha < 2,), "zero"),
                                          ((alpha > 2,), "positive"),
                                          ((sp.Eq(alpha, 2),), "positive")])
def test_flash_vs_alg6_false_twins(extra: tuple, wrong: str) -> None:
    v = check_sign("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION + extra, wrong)
    assert isinstance(v, Refuted)
    point = v.counterexample
    assert isinstance(point["alpha"], Fraction) and "delta" in point


def test_flash_vs_alg6_numerically() -> None:
    # second way: exact catalogue values at large d, away from the crossover
    fa, a6 = get_bound("bwd.flash1.upper"), get_bound("bwd.alg6.upper")
    small = dict(n=2**20, d=2**20, M=2**30)           # alpha = 1.5, beta = 1
    large = dict(n=2**40, d=2**20, M=2**50)           # alpha = 2.5, beta = 2
    assert fa.evaluate(**small) / a6.evaluate(**small) > 10
    assert fa.evaluate(**large) / a6.evaluate(**large) < sp.Rational(1, 100)


def test_sparse_dense_is_the_dense_bound() -> None:
    r = compare("sparse.lower", "bwd.tight", DEFAULT_REGION, substitute=DENSE_INSTANCE)
    assert r.outcome == "same order" and r.pieces[0].conditions == ()
    assert compare("sparse.lower", "fwd.tight", substitute=DENSE_INSTANCE).outcome == "same order"


def test_extra_terms_dominated_exactly_when_n_ge_d() -> None:
    r = compare(n * d**3 / M, n**2 * d**2 / M, (alpha >= 1, alpha <= 1 + beta, beta > 0))
    assert [(p.outcome, p.conditions) for p in r.pieces] == [
        ("dominates", (beta < 1,)), ("same order", (sp.Eq(beta, 1),)), ("dominated", (beta > 1,))]
    r2 = compare(n * d**2 / sp.sqrt(M), n**2 * d / sp.sqrt(M), (beta > 0,))
    assert r2.outcome == "incomparable" and r2.pieces[-1].conditions == (beta > 1,)


def test_outcomes_dominates_and_dominated() -> None:
    assert compare("bwd.standard", "fwd.trivial.lower").outcome == "dominates"
    assert compare("fwd.trivial.lower", "bwd.standard").outcome == "dominated"


def test_empty_region() -> None:
    with pytest.raises(InvalidInputError, match="is empty"):
        compare("bwd.tight", "fwd.tight", (alpha > 3, alpha < 2))


def test_within_admissible_adds_ranges() -> None:
    assert admissible_region("bwd.large.lower") == (sp.Le(2, alpha),)
    r = compare("bwd.flash1.upper", "bwd.large.lower", (beta >= 1,), within_admissible=True)
    assert r.outcome == "same order"
