"""Tests for attnio.symbolic.checks: every claim Proved, every false twin Refuted."""

from __future__ import annotations

import pytest

from attnio.results import Proved, Refuted, Undecided
from attnio.symbolic.checks import (
    SOURCES,
    all_of,
    check_catalogue_identity,
    dominance_claims,
    false_twins,
    symbolic_claims,
)
from attnio.symbolic.symbols import d, n

CLAIMS = symbolic_claims()
TWINS = false_twins()


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_proved(claim) -> None:  # noqa: ANN001
    verdict = claim.check()
    assert isinstance(verdict, Proved), verdict


@pytest.mark.parametrize("twin", TWINS, ids=lambda c: c.id)
def test_false_twin_refuted(twin) -> None:  # noqa: ANN001
    verdict = twin.check()
    assert isinstance(verdict, Refuted), verdict
    assert verdict.counterexample


def test_ids_unique_and_sourced() -> None:
    ids = [c.id for c in CLAIMS + TWINS]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(SOURCES)


def test_issue_claims_present() -> None:
    ids = {c.id for c in dominance_claims()}
    assert {"dominance.flash_vs_alg6.small_cache", "dominance.flash_vs_alg6.crossover",
            "dominance.flash_vs_alg6.large_cache", "dominance.sparse_dense.equals_reduced",
            "dominance.sparse_dense.same_order_bwd",
            "dominance.thm11_extra_terms.iff_n_ge_d"} <= ids
    twin_ids = {t.id for t in TWINS}
    assert {"twin.crossover.bwd_half", "twin.dominance.flash_wins_small"} <= twin_ids


def test_claims_unpack_as_triples() -> None:
    ident, statement, check = CLAIMS[0]
    assert isinstance(ident, str) and isinstance(statement, str) and callable(check)


def test_check_identity_and_all_of() -> None:
    assert check_catalogue_identity(n * d, d * n).proved
    assert isinstance(check_catalogue_identity(n * d, n * d + 1), Refuted)
    assert isinstance(all_of(lambda: Proved(), lambda: Undecided("x")), Undecided)
    assert isinstance(all_of(lambda: Undecided("x"), lambda: Refuted({})), Refuted)
