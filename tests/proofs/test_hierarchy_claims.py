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
    if twin.id == "hierarchy.twin.own_level_capacity":
        # the projection holds more red pebbles than level i alone: the validator's red limit
        assert cx["illegal"]["rule"] == "red-limit" and cx["boundary"] >= 1
        assert cx["M"] == cx["levels"][cx["boundary"]]
        return
    bound = cx["bound"]
    words = cx.get("words", cx.get("io"))
    assert isinstance(bound, int) and isinstance(words, int) and bound > words
    # the bound used the fastest level alone, the algorithm ran with M_i above it
    assert twin.id == "hierarchy.twin.fastest_level_everywhere" and cx["bound_M"] < cx["M_i"]


@pytest.mark.trust
def test_reduction_projection_is_legal_and_fails_when_planted() -> None:
    from attnio.graphs.game import validate
    from attnio.proofs.hierarchy_claims import (
        _dag,
        _project,
        _random_multilevel_schedule,
        _reduction_check,
    )
    from attnio.proofs.registry import CheckContext

    G = _dag(("matmul", 2, 2, 2))
    caps = (5, 6, 8)
    moves = _random_multilevel_schedule(G, caps, 3)
    for i in range(3):
        proj, traffic = _project(G, moves, 3, i)
        assert validate(G, proj, sum(caps[:i + 1])).proved
        assert 0 < sum(kind in ("read", "write") for kind, _ in proj) <= traffic
    # a projection that drops the reads is no legal schedule: the checker sees it
    import attnio.proofs.hierarchy_claims as hc

    real = hc._project
    try:
        hc._project = lambda *a: ([m for m in real(*a)[0] if m[0] != "read"], real(*a)[1])
        v = _reduction_check(CheckContext())
    finally:
        hc._project = real
    assert v.verdict == "refuted"
    assert v.counterexample["illegal"]["rule"] == "compute-needs-red-parents"


def test_claims_are_discovered_by_verify() -> None:
    from attnio.proofs import load_claims

    ids = {c.id for c in load_claims()}
    assert {c.id for c in CLAIMS} <= ids
