"""Every claim of attnio.proofs.backward_branches is Proved and every false twin Refuted."""

from __future__ import annotations

import pytest

from attnio.proofs.backward_branches import CLAIMS, FALSE_TWINS
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
