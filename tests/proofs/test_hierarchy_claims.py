"""Tests for attnio.proofs.hierarchy_claims: claims Proved, false twins Refuted (exactly)."""

from __future__ import annotations

import pytest

from attnio.proofs.hierarchy_claims import CLAIMS, FALSE_TWINS


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved(claim) -> None:
    verdict = claim.check()
    assert verdict.verdict == "proved", verdict


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_twins_refuted_with_a_checked_counterexample(twin) -> None:
    verdict = twin.check()
    assert verdict.verdict == "refuted", verdict
    cx = verdict.counterexample
    bound = cx["bound"]
    words = cx.get("words", cx.get("io"))
    assert isinstance(bound, int) and isinstance(words, int) and bound > words
    # the bound used the fastest level alone, the algorithm ran with M_i above it
    assert twin.id == "hierarchy.twin.fastest_level_everywhere" and cx["bound_M"] < cx["M_i"]


def test_claims_are_discovered_by_verify() -> None:
    from attnio.proofs import load_claims

    ids = {c.id for c in load_claims()}
    assert {c.id for c in CLAIMS} <= ids
