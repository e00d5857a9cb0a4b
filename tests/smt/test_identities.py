"""Identities with hard constants through the kernel (attnio.smt.kernel.check_identity):
minutes of sympy at worst, so in the default tier, not the trust tier."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.results import Refuted
from attnio.smt.kernel import check_identity


# ------------------------------------------------------ Refuted means a checked counterexample
@pytest.mark.parametrize("lhs,rhs", [
    (sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7), sp.Rational(1, 2)),
    (sp.sqrt(5 + 2 * sp.sqrt(6)), sp.sqrt(2) + sp.sqrt(3)),
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_true_identities_with_hard_constants_are_never_refuted(lhs: sp.Expr, rhs: sp.Expr) -> None:
    """Regression: simplify(a - b) != 0 was reported as Refuted."""
    assert not isinstance(check_identity(lhs, rhs), Refuted)
    x = sp.Symbol("x", positive=True)
    assert not isinstance(check_identity(x * lhs, x * rhs), Refuted)


def test_symbolic_check_identity_and_crossover_refute_only_with_exact_points() -> None:
    from attnio.symbolic.checks import check_catalogue_identity
    from attnio.symbolic.crossovers import check_crossover
    from attnio.symbolic.symbols import d

    hard = sp.cos(sp.pi / 7) - sp.cos(2 * sp.pi / 7) + sp.cos(3 * sp.pi / 7)
    assert not isinstance(check_catalogue_identity(d * hard, d / 2), Refuted)
    r = check_crossover("bwd.tight", d ** 2 / 2)
    assert isinstance(r, Refuted) and r.evidence.kind == "exact-arithmetic"
    assert r.counterexample["branch_1"] != r.counterexample["branch_2"]

