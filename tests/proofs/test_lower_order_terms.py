"""Every claim of attnio.proofs.lower_order_terms is Proved and every false twin Refuted."""

from __future__ import annotations

import pytest

from attnio.proofs.lower_order_terms import CLAIMS, FALSE_TWINS
from attnio.results import Refuted


DEFAULT = [c for c in CLAIMS if c.tier == "default"]


@pytest.mark.parametrize("claim", DEFAULT, ids=lambda c: c.id)
def test_claim_is_proved(claim) -> None:
    v = claim.check()
    assert v.proved, v.detail


def test_no_deep_tier_here() -> None:
    assert DEFAULT == CLAIMS


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_false_twin_is_refuted(twin) -> None:
    v = twin.check()
    assert isinstance(v, Refuted), v.detail
    assert twin.twin_of


def test_every_family_has_a_twin() -> None:
    assert {c.family for c in CLAIMS} <= {t.family for t in FALSE_TWINS}


def test_f4_d2_term_not_absorbed_without_sqrt_m_le_n() -> None:
    # notes/findings.md F4: n = 2, d = 8, M = 16 is inside bwd.alg6.upper's range.
    from attnio.symbolic.catalogue import get_bound

    alg6 = get_bound("bwd.alg6.upper")
    assert alg6.in_range(n=2, d=8, M=16)
    assert alg6.evaluate(n=2, d=8, M=16) == 124
    assert 3 * get_bound("bwd.small.upper").evaluate(n=2, d=8, M=16) == 120
