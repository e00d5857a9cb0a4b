"""Tests of attnio.proofs.symbolic_checks: what is wrapped, merged and left out (issue 20)."""

from __future__ import annotations

import pytest

from attnio.proofs.symbolic_checks import CLAIMS, FALSE_TWINS, REMOVED, _merged
from attnio.results import Proved, Refuted
from attnio.symbolic import checks

IDS = [c.id for c in CLAIMS]


@pytest.mark.trust
def test_hollow_claims_and_their_twins_are_left_out_with_a_reason() -> None:
    for sid, reason in REMOVED.items():
        assert f"sym.{sid}" not in IDS and f"sym.{sid}" not in {t.id for t in FALSE_TWINS}
        assert reason
    assert {t.twin_of for t in FALSE_TWINS} <= set(IDS)


@pytest.mark.trust
def test_large_and_small_are_one_claim_in_place() -> None:
    branch = [i for i in IDS if i.startswith("sym.branch.")]
    assert branch == ["sym.branch.bwd.ratio", "sym.branch.fwd.ratio", "sym.branch.bwd.sides",
                      "sym.branch.fwd.sides", "sym.branch.sparse.sides"]
    sides = next(c for c in CLAIMS if c.id == "sym.branch.bwd.sides")
    assert sides.statement.startswith("Above its crossover (large cache) the minimum of Thm 1.1 "
                                      "is its first branch; below its crossover")
    assert sides.family == "symbolic.branch" and sides.evidence_kind == "sympy-canonical"


@pytest.mark.trust
def test_a_merged_claim_fails_when_either_side_fails() -> None:
    def claim(cid, verdict):
        return checks.SymbolicClaim(cid, f"{cid} statement", lambda: verdict)

    for large, small in ((Proved("a"), Refuted({}, "no")), (Refuted({}, "no"), Proved("b"))):
        merged = _merged([claim("branch.bwd.large", large), claim("branch.bwd.small", small),
                          claim("crossover.sparse_dense", Proved())])
        assert [m.id for m in merged] == ["branch.bwd.sides"]
        assert isinstance(merged[0].check(), Refuted)
    merged = _merged([claim("branch.bwd.large", Proved("a")),
                      claim("branch.bwd.small", Proved("b")), claim("other", Proved("c"))])
    assert [m.id for m in merged] == ["branch.bwd.sides", "other"]
    assert merged[0].check().detail == "a; b"
