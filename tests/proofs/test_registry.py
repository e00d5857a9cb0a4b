"""Tests of claim discovery and the Claim.check discipline (attnio.proofs.registry)."""

from __future__ import annotations

import pytest

from attnio.proofs.registry import (
    CheckContext,
    Claim,
    _collect,
    claim_modules,
    load_claims,
    load_false_twins,
)
from attnio.results import Proved, Undecided

MINE = {
    "attnio.proofs.backward_branches",
    "attnio.proofs.forward_branches",
    "attnio.proofs.sparse_branches",
    "attnio.proofs.algorithm_comparison",
    "attnio.proofs.lower_order_terms",
    "attnio.proofs.lower_bound_steps",
    "attnio.proofs.symbolic_checks",
}


def _claim(fn, cid: str = "demo.x") -> Claim:
    return Claim(id=cid, statement="s", formal="f", source="test", method="python",
                 family="demo", check_fn=fn)


def test_discovery_finds_every_claim_module() -> None:
    assert MINE <= set(claim_modules())


def test_machinery_modules_are_not_claim_modules() -> None:
    names = set(claim_modules())
    for machinery in ("registry", "cli", "runner", "z3tools", "sympy_to_z3", "algebra"):
        assert f"attnio.proofs.{machinery}" not in names


def test_my_modules_hold_at_least_30_claims_and_30_twins() -> None:
    assert len(load_claims(sorted(MINE))) >= 30
    assert len(load_false_twins(sorted(MINE))) >= 30


def test_ids_are_unique_and_twins_name_their_claim() -> None:
    claims = load_claims()
    twins = load_false_twins()
    ids = [c.id for c in claims + twins]
    assert len(ids) == len(set(ids))
    assert all(t.twin_of for t in load_false_twins(sorted(MINE)))


def test_duplicate_ids_are_rejected(tmp_path, monkeypatch) -> None:
    import sys
    import types

    mod = types.ModuleType("attnio_dup_claims")
    mod.CLAIMS = [_claim(lambda ctx: Proved()), _claim(lambda ctx: Proved())]
    monkeypatch.setitem(sys.modules, "attnio_dup_claims", mod)
    with pytest.raises(ValueError, match="duplicate claim id 'demo.x'"):
        _collect("CLAIMS", ["attnio_dup_claims"])


def test_a_crashing_check_is_undecided() -> None:
    def boom(ctx: CheckContext):
        raise ZeroDivisionError("division by zero")

    v = _claim(boom).check()
    assert isinstance(v, Undecided) and "ZeroDivisionError" in v.reason


def test_a_non_verdict_is_undecided() -> None:
    v = _claim(lambda ctx: True).check()  # type: ignore[arg-type, return-value]
    assert isinstance(v, Undecided) and "not a verdict" in v.reason


def test_an_unimportable_module_becomes_an_undecided_claim() -> None:
    claims = _collect("CLAIMS", ["attnio.proofs.no_such_module_for_test"])
    assert [c.id for c in claims] == ["import.no_such_module_for_test"]
    assert isinstance(claims[0].check(), Undecided)


def test_an_unimportable_module_fails_the_self_test_too() -> None:
    """Regression (issue 10): _collect dropped a broken module's twins, so --self-test printed
    "70/70 refuted" and passed."""
    twins = _collect("FALSE_TWINS", ["attnio.proofs.no_such_module_for_test"])
    assert [t.id for t in twins] == ["import.no_such_module_for_test.twins"]
    verdict = twins[0].check()
    assert isinstance(verdict, Undecided) and "no_such_module_for_test" in verdict.reason


def test_check_records_seconds() -> None:
    v = _claim(lambda ctx: Proved("ok")).check()
    assert v.proved and v.seconds >= 0


# ------------------------------------------------------------------ the rules a verdict obeys
def _twin(verdict, expect: str = "refuted", reason: str = "") -> Claim:
    return Claim(id="demo.twin", statement="s", formal="f", source="test", method="python",
                 family="demo", check_fn=lambda ctx: verdict, twin_of="demo.x", expect=expect,
                 expect_reason=reason)


@pytest.mark.trust
def test_a_twin_is_rejected_only_by_its_declared_verdict() -> None:
    from attnio.results import Refuted

    refuted, undecided, proved = Refuted({"x": 1}, "x too big"), Undecided("vacuous: 0"), Proved()
    plain = _twin(None)
    assert plain.rejects(refuted) and not plain.rejects(undecided) and not plain.rejects(proved)
    on_path = _twin(None, "refuted", "too big")
    assert on_path.rejects(refuted) and not on_path.rejects(Refuted({}, "another path"))
    unknown = _twin(None, "undecided", "vacuous")
    assert unknown.rejects(undecided)
    assert not unknown.rejects(Undecided("check raised ZeroDivisionError"))   # a crash
    assert not unknown.rejects(refuted) and not unknown.rejects(Proved("vacuous"))


@pytest.mark.trust
@pytest.mark.parametrize("kwargs,fragment", [
    (dict(expect="undecided"), "must name the reason"),
    (dict(expect="proved", expect_reason="x"), "expect='proved'"),
    (dict(twin_of=None, expect_reason="x"), "for false twins only"),
    (dict(twin_of=None, expect="undecided", expect_reason="x"), "for false twins only"),
    (dict(evidence_kind="hearsay"), "evidence_kind 'hearsay'"),
])
def test_bad_expectations_are_rejected(kwargs, fragment) -> None:
    base = dict(id="demo.t", statement="s", formal="f", source="test", method="python",
                family="demo", check_fn=lambda ctx: Proved(), twin_of="demo.x")
    with pytest.raises(ValueError, match=fragment):
        Claim(**{**base, **kwargs})


@pytest.mark.trust
@pytest.mark.parametrize("evidence,proved,fragment", [
    (dict(kind="exhaustive"), False, "without instance counts"),
    (dict(kind="exhaustive", instances=5), False, "without instance counts"),
    (dict(kind="exhaustive", instances=5, nontrivial_instances=0), False, "vacuous: none of the 5"),
    (dict(kind="exhaustive", instances=5, nontrivial_instances=1), True, ""),
    (dict(kind="definition"), False, "true by construction"),
    (dict(kind="smt-forall"), True, ""),
])
def test_a_proof_must_say_what_could_have_failed(evidence, proved, fragment) -> None:
    from attnio.results import Evidence

    v = _claim(lambda ctx: Proved("ok", evidence=Evidence(**evidence))).check()
    assert v.proved is proved
    if not proved:
        assert isinstance(v, Undecided) and fragment in v.reason


@pytest.mark.trust
def test_the_declared_kind_is_attached_and_then_ruled_on() -> None:
    """A verdict without evidence gets the claim's kind — and an exhaustive kind with no
    counts is then not a proof."""
    claim = Claim(id="demo.e", statement="s", formal="f", source="test", method="python",
                  family="demo", check_fn=lambda ctx: Proved("ok"), evidence_kind="exhaustive")
    v = claim.check()
    assert isinstance(v, Undecided) and v.evidence.kind == "exhaustive"
    smt = Claim(id="demo.s", statement="s", formal="f", source="test", method="python",
                family="demo", check_fn=lambda ctx: Proved("ok"), evidence_kind="smt-forall")
    v = smt.check()
    assert v.proved and v.evidence.kind == "smt-forall" and v.evidence.solvers == {"z3": "proved"}
