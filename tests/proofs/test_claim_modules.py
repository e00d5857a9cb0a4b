"""Structure of every claim module of attnio.proofs (discovered, not listed by hand).

The verdicts themselves are asserted once, end to end, by ``tests/commands/test_verify.py``
(``attnio verify --json``: every default claim Proved; ``--self-test``: every twin Refuted).
Here: each module has claims and false twins, every twin names the true claim it perturbs,
every family with a claim has a twin, provenance is filled in; the deep tier runs with
``--runslow``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from attnio.proofs.registry import (
    CheckContext,
    claim_modules,
    load_claims,
    load_false_twins,
)

MODULES = claim_modules()
CLAIMS = load_claims()
TWINS = load_false_twins()
CLAIM_IDS = {c.id for c in CLAIMS}


def test_discovery_finds_every_family_module() -> None:
    names = {m.rsplit(".", 1)[1] for m in MODULES}
    assert {"backward_branches", "forward_branches", "sparse_branches", "algorithm_comparison",
            "lower_order_terms", "lower_bound_steps", "symbolic_checks", "partition_lemmas",
            "explicit_bounds", "sandwich"} <= names


@pytest.mark.parametrize("module_name", MODULES)
def test_module_has_claims_and_false_twins(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert module.CLAIMS and module.FALSE_TWINS
    families = {c.family for c in module.CLAIMS}
    assert families <= {t.family for t in module.FALSE_TWINS}, "a family without a false twin"


@pytest.mark.parametrize("twin", TWINS, ids=lambda c: c.id)
def test_twin_names_an_existing_claim(twin) -> None:
    assert twin.twin_of in CLAIM_IDS


@pytest.mark.parametrize("claim", CLAIMS + TWINS, ids=lambda c: c.id)
def test_provenance_is_filled_in(claim) -> None:
    assert claim.statement and claim.source and claim.method and claim.family
    assert isinstance(claim.reconstructed, bool) and claim.tier in {"default", "deep"}


def test_tiers_split_the_claims() -> None:
    tiers = {c.tier for c in CLAIMS}
    assert "default" in tiers and sum(c.tier == "default" for c in CLAIMS) >= 40


#: The claim modules whose own test file runs their deep claims with its own budgets
#: (tests/proofs/test_<name>.py): not run a second time here (sandwich.deep alone is minutes).
DEEP_RUN_BY_THEIR_MODULE_TEST = ("sandwich", "partition_lemmas", "joint_routes")

#: Budgets that a busy machine does not exhaust (the claims' defaults, 20 s per z3 call and
#: 60 s per search, were reached at load 5: an Undecided by a time limit, never a pass).
PATIENT = CheckContext(z3_timeout_ms=120_000, search_seconds=300.0)


def _deep_claims_checked_here() -> list:
    own = {f"attnio.proofs.{name}" for name in DEEP_RUN_BY_THEIR_MODULE_TEST}
    return [c for m in MODULES if m not in own
            for c in importlib.import_module(m).CLAIMS if c.tier == "deep"]


def test_the_modules_that_run_their_own_deep_claims_do() -> None:
    for name in DEEP_RUN_BY_THEIR_MODULE_TEST:
        text = (Path(__file__).parent / f"test_{name}.py").read_text(encoding="utf-8")
        assert "deep_claim" in text or "deep=True" in text, name
    every = {c.id for c in CLAIMS if c.tier == "deep"}
    here = {c.id for c in _deep_claims_checked_here()}
    elsewhere = {c.id for name in DEEP_RUN_BY_THEIR_MODULE_TEST
                 for c in importlib.import_module(f"attnio.proofs.{name}").CLAIMS
                 if c.tier == "deep"}
    assert here | elsewhere == every and not here & elsewhere


@pytest.mark.slow
@pytest.mark.parametrize("claim", _deep_claims_checked_here(), ids=lambda c: c.id)
def test_deep_claim_is_proved(claim) -> None:
    verdict = claim.check(PATIENT)
    assert verdict.proved, verdict.detail
