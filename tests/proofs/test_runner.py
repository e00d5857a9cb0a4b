"""Tests of attnio.proofs.runner (selection, self-test coverage; the table and the JSON:
tests/reporting/test_verdicts.py)."""

from __future__ import annotations

import pytest

from attnio.proofs.registry import Claim
from attnio.proofs.runner import (
    all_claims_proved,
    all_twins_refuted,
    coverage,
    format_coverage,
    run_claims,
    select,
    self_test,
)
from attnio.reporting.verdicts import format_table
from attnio.results import Proved, Refuted, Undecided


def _c(cid: str, fam: str, verdict, tier: str = "default", twin_of: str | None = None) -> Claim:
    return Claim(id=cid, statement=f"statement of {cid}", formal="f", source="src",
                 method="python", family=fam, check_fn=lambda ctx: verdict, tier=tier,
                 twin_of=twin_of)


CLAIMS = [
    _c("a.one", "alpha", Proved("p")),
    _c("a.two", "alpha", Proved("p")),
    _c("b.one", "beta", Proved("p"), tier="deep"),
]


def test_select_glob_substring_family_and_tier() -> None:
    assert [c.id for c in select(CLAIMS, "a.*")] == ["a.one", "a.two"]
    assert [c.id for c in select(CLAIMS, "two")] == ["a.two"]
    assert [c.id for c in select(CLAIMS, "alpha")] == ["a.one", "a.two"]
    assert select(CLAIMS, "b.*") == []
    assert [c.id for c in select(CLAIMS, "b.*", deep=True)] == ["b.one"]


def test_only_all_proved_passes_and_empty_is_not_a_pass() -> None:
    ok = run_claims(CLAIMS[:2], show_progress=False)
    assert all_claims_proved(ok)
    assert not all_claims_proved([])
    mixed = run_claims([CLAIMS[0], _c("x", "alpha", Undecided("timeout"))], show_progress=False)
    assert not all_claims_proved(mixed)


@pytest.mark.trust
def test_self_test_and_coverage() -> None:
    twins = [_c("a.one.twin", "alpha", Refuted({}, "x"), twin_of="a.one"),
             _c("a.two.twin", "alpha", Undecided("budget"), twin_of="a.two")]
    results = self_test(twins, show_progress=False)
    assert not all_twins_refuted(results)
    assert all_twins_refuted(results[:1])
    cov = coverage(CLAIMS, results)
    assert cov["alpha"] == (2, 2, 1) and cov["beta"] == (1, 0, 0)
    text = format_coverage(cov)
    assert "NOT ALL REFUTED" in text and "NO TWIN" in text
    assert "rejected" in format_table(results, twins=True)
    assert "NOT REJECTED (undecided)" in format_table(results, twins=True)


@pytest.mark.trust
def test_a_twin_declared_undecided_counts_only_on_its_path() -> None:

    from attnio.proofs.runner import twins_rejected

    def twin(cid, verdict, reason):
        return Claim(cid, "s", "f", "src", "python", "alpha", lambda ctx: verdict,
                     twin_of="a.one", expect="undecided", expect_reason=reason)

    results = self_test([twin("a.u1", Undecided("vacuous: never positive"), "vacuous"),
                         twin("a.u2", Undecided("z3 timeout"), "vacuous"),
                         twin("a.u3", Proved("vacuous"), "vacuous")], show_progress=False)
    assert twins_rejected(results) == 1 and not all_twins_refuted(results)
    assert all_twins_refuted(results[:1])
    table = format_table(results, twins=True)
    assert "rejected (undecided)" in table and "NOT REJECTED (proved)" in table
    assert coverage(CLAIMS, results)["alpha"] == (2, 3, 1)
    rows = [r.to_json() for r in results]
    assert [(row["expect"], row["rejected"]) for row in rows] == [("undecided", True),
                                                                 ("undecided", False),
                                                                 ("undecided", False)]


def test_interrupt_keeps_finished_work_and_never_passes() -> None:
    import pytest

    from attnio.proofs.runner import INTERRUPTED, was_interrupted

    def stop(ctx):
        raise KeyboardInterrupt

    claims = [CLAIMS[0], Claim("k.stop", "s", "f", "src", "python", "alpha", stop), CLAIMS[1]]
    results = run_claims(claims, show_progress=False, stop_on_interrupt=True)
    assert [r.verdict.verdict for r in results] == ["proved", "undecided", "undecided"]
    assert results[1].verdict.reason == INTERRUPTED and was_interrupted(results)
    assert not all_claims_proved(results)
    with pytest.raises(KeyboardInterrupt):
        run_claims(claims, show_progress=False)


def test_select_takes_several_patterns_separated_by_commas() -> None:
    from attnio.proofs.registry import load_claims
    from attnio.proofs.runner import select

    claims = load_claims()
    one = select(claims, "sym.crossover*")
    both = select(claims, "sym.crossover*,explicit.matmul_closed_form")
    assert len(both) == len(one) + 1 and {c.id for c in one} < {c.id for c in both}
