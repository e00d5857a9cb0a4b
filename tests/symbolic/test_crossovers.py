"""Tests for attnio.symbolic.crossovers: derived crossovers, branch winners, false claims."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.results import Proved, Refuted
from attnio.symbolic import crossovers
from attnio.symbolic.catalogue import CATALOGUE, get_bound
from attnio.symbolic.crossovers import (
    branch_ratio,
    check_branch_minimum,
    check_crossover,
    crossover,
    simplify_condition,
)
from attnio.symbolic.symbols import Z_QK, M, Z_in, d, n


@pytest.mark.parametrize("bid, expected", [
    ("bwd.tight", d**2), ("fwd.tight", d**2), ("sparse.lower", Z_in**2 / Z_QK),
    ("fwd.any.lower", d**2),
])
def test_derived_crossover(bid: str, expected: sp.Expr) -> None:
    c = crossover(bid)
    assert sp.simplify(c.solution - expected) == 0
    assert c.variable is M and c.steps and "solveset" in c.derivation


def test_crossover_branches_really_meet() -> None:
    # independent check: at the derived M the branches are equal at concrete sizes
    b = get_bound("bwd.tight")
    c = crossover(b)
    for nv, dv in ((8, 4), (100, 7), (3, 3)):
        at = {n: nv, d: dv, M: c.solution.subs(d, dv)}
        assert sp.simplify(b.branches[0].subs(at) - b.branches[1].subs(at)) == 0


def test_crossover_conditions() -> None:
    assert crossover("bwd.tight").conditions == (d <= n,)
    assert crossover("sparse.lower").conditions == ()


def test_crossover_needs_two_branches() -> None:
    with pytest.raises(InvalidInputError, match="bwd.flash1.upper has 0 branches"):
        crossover("bwd.flash1.upper")


def test_branch_ratio_thm11() -> None:
    br = branch_ratio("bwd.tight")
    assert sp.simplify(br.ratio - d / sp.sqrt(M)) == 0
    assert br.elasticity == sp.Rational(-1, 2)
    assert (br.min_branch_above, br.min_branch_below) == (0, 1)
    assert isinstance(br.verdict, Proved)


def test_branch_ratio_side_agrees_with_numbers() -> None:
    # second way: evaluate both branches on each side of d**2
    b = get_bound("bwd.tight")
    for Mv, winner in ((4, 1), (64, 0)):
        v = [br.subs({n: 16, d: 4, M: Mv}) for br in b.branches]
        assert v[winner] < v[1 - winner]


@pytest.mark.parametrize("bid, claimed", [
    ("bwd.tight", d**2 / 2), ("bwd.tight", d), ("fwd.tight", 2 * d**2),
    ("sparse.lower", Z_in / Z_QK), ("sparse.lower", Z_in**2 / (2 * Z_QK)),
])
def test_wrong_crossover_refuted_with_witness(bid: str, claimed: sp.Expr) -> None:
    v = check_crossover(bid, claimed)
    assert isinstance(v, Refuted)
    ce = v.counterexample
    assert sp.simplify(ce["branch_1"] - ce["branch_2"]) != 0


@pytest.mark.parametrize("bid", ["bwd.tight", "fwd.tight", "sparse.lower"])
def test_branch_minimum_true_and_false(bid: str) -> None:
    assert check_branch_minimum(bid, 0, "above").proved
    assert check_branch_minimum(bid, 1, "below").proved
    for branch, side in ((0, "below"), (1, "above")):
        v = check_branch_minimum(bid, branch, side)
        assert isinstance(v, Refuted)
        ce = v.counterexample
        assert ce[f"branch_{branch + 1}"] > ce[f"branch_{2 - branch}"]


def test_branch_minimum_bad_side() -> None:
    with pytest.raises(InvalidInputError, match="side='left'"):
        check_branch_minimum("bwd.tight", 0, "left")  # type: ignore[arg-type]


def test_simplify_condition() -> None:
    assert simplify_condition(d**2 <= n * d) == (d <= n)
    assert simplify_condition(d <= d**2) is sp.true


@given(d_value=st.integers(1, 64), n_factor=st.integers(1, 16), data=st.data())
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_regime_winner_matches_exact_values(d_value: int, n_factor: int,
                                            data: st.DataObject) -> None:
    """Property: on admissible (n, d, M) the branch the derivation names is the exact minimum."""
    n_value = d_value * n_factor
    M_value = data.draw(st.integers(d_value, n_value * d_value))
    b = get_bound("bwd.tight")
    br = branch_ratio(b)
    at = {n: n_value, d: d_value, M: M_value}
    v = [x.subs(at) for x in b.branches]
    star = br.crossover.solution.subs(at)
    if M_value > star:
        assert v[br.min_branch_above] < v[1 - br.min_branch_above]
    elif M_value < star:
        assert v[br.min_branch_below] < v[1 - br.min_branch_below]
    else:
        assert v[0] == v[1]
    assert b.evaluate(**{"n": n_value, "d": d_value, "M": M_value}) == min(v)


def _every_catalogue_crossover() -> list[tuple[str, str, object]]:
    out = []
    for bound in CATALOGUE:
        if len(bound.branches) == 2 and bound.combine:
            for variable in sorted(bound.expr.free_symbols, key=str):
                try:
                    got = crossovers.crossover(bound, variable)
                    out.append((bound.id, str(variable), (got.solution, got.conditions,
                                                          got.derivation)))
                except (InfeasibleError, InvalidInputError) as error:
                    out.append((bound.id, str(variable), type(error).__name__))
    return out


def test_tidy_derives_every_catalogue_crossover_as_simplify_does(monkeypatch) -> None:
    """The derivations put ratios in lowest terms with :func:`tidy` (cancel; no
    ``sympy.physics.units`` import) instead of ``simplify``: the same ratio, solution,
    conditions and derivation text for every two-branch catalogue bound and every symbol,
    and a planted wrong canonical form is told apart."""
    crossovers._derive.cache_clear()
    with_tidy = _every_catalogue_crossover()
    assert len(with_tidy) >= 12 and sum(isinstance(r[2], tuple) for r in with_tidy) >= 9
    monkeypatch.setattr(crossovers, "tidy", sp.simplify)
    crossovers._derive.cache_clear()
    assert _every_catalogue_crossover() == with_tidy
    monkeypatch.setattr(crossovers, "tidy", lambda e: sp.simplify(e) * 2)  # the false twin
    crossovers._derive.cache_clear()
    assert _every_catalogue_crossover() != with_tidy
    crossovers._derive.cache_clear()
