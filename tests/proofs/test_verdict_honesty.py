"""Regression tests for the hollow verdicts of issue 10, one per defect, on the real registry."""

from __future__ import annotations

import inspect
import json

import pytest
import sympy as sp

from attnio.cli import main
from attnio.proofs import load_claims, load_false_twins
from attnio.proofs.registry import CheckContext
from attnio.results import EVIDENCE_KINDS, Refuted

CLAIMS = {c.id: c for c in load_claims()}
TWINS = {t.id: t for t in load_false_twins()}


@pytest.mark.parametrize("removed", [
    "cmp.tight_is_best_of_two", "sparse.lower.dense_case", "explicit.matmul_part_le_sqrt",
    "hk.matmul.integer_table", "cmp.alg6_vs_flash.ratio", "bwd.regimes.small_lower",
    "fwd.regimes.small_lower",
])
def test_definitions_and_duplicates_are_not_counted_as_proofs(removed: str) -> None:
    assert removed not in CLAIMS


@pytest.mark.parametrize("ratio_id", ["bwd.tight.branch_ratio", "fwd.tight.branch_ratio",
                                      "sparse.lower.branch_ratio"])
def test_branch_ratio_is_not_a_equals_a(ratio_id: str) -> None:
    """The ratio claims reached z3 as b1 == b1 (sympy multiplied r·b2 back)."""
    claim = CLAIMS[ratio_id]
    verdict = claim.check(CheckContext())
    assert verdict.proved
    goal = verdict.detail.split("goal ", 1)[1]
    lhs, rhs = goal[len("Eq("):-1].split(", ", 1)
    assert sp.srepr(sp.sympify(lhs)) != sp.srepr(sp.sympify(rhs, evaluate=False))


@pytest.mark.parametrize("twin_id", ["li.thm42.level1_count.twin_2d",
                                     "low.fa_forward_count.twin_constant_14"])
def test_twins_are_refuted_inside_the_declared_domain(twin_id: str) -> None:
    """li.thm42.level1_count.twin_real_d and low.fa_forward_count.twin_no_d_ge_1 were refuted
    only at d = 1/2 although d is a positive integer; their replacements must be refuted at
    positive integers."""
    verdict = TWINS[twin_id].check(CheckContext())
    assert isinstance(verdict, Refuted)
    for name in ("n", "d", "M"):
        if name in verdict.counterexample:
            value = sp.sympify(verdict.counterexample[name])
            assert value.is_integer and value >= 1, (name, value)


def test_old_twins_false_only_outside_the_domain_would_now_be_proved() -> None:
    """The kernel proves what the old twins claimed, for integer d: they were not false."""
    from attnio.proofs.kernel import prove_statement

    assert prove_statement("n**2*(2*d - 1) >= n**2*d",
                           {"n": "positive-integer", "d": "positive-integer"}).proved


def test_explicit_bounds_go_through_the_kernel() -> None:
    import attnio.proofs.explicit_bounds as module

    source = inspect.getsource(module)
    assert "z3tools" not in source and "import z3" not in source
    for cid in ("explicit.matmul_closed_form", "explicit.attention_closed_form",
                "explicit.attention_large_cache"):
        verdict = CLAIMS[cid].check(CheckContext())
        assert verdict.proved and verdict.evidence.kind == "smt-forall"
        assert verdict.evidence.solvers["z3"] == "proved"


@pytest.mark.parametrize("lemma", ["partlemma.matmul_part", "partlemma.sy_part",
                                   "partlemma.sy_step4"])
def test_enumerated_lemmas_have_ten_nontrivial_instances(lemma: str) -> None:
    """partlemma.sy_part ran 8 of its 12 pairs where the bound was at least the number of
    counted vertices: a false lemma could not have shown there."""
    verdict = CLAIMS[lemma].check(CheckContext())
    assert verdict.proved and verdict.evidence.kind == "exhaustive"
    assert verdict.evidence.nontrivial_instances >= 10
    assert verdict.evidence.instances >= verdict.evidence.nontrivial_instances


@pytest.mark.parametrize("twin_id", ["partlemma.twin.sy_beta_kt", "partlemma.twin.matmul_beta_k",
                                     "partlemma.twin.matmul_no_max"])
def test_planted_false_per_part_constants_are_refuted(twin_id: str) -> None:
    """β′(k) = k·t was Proved by the default check; it is false on attention forward n = 3,
    d = 1, k = 5 (6 level-1 vertices)."""
    verdict = TWINS[twin_id].check(CheckContext())
    assert isinstance(verdict, Refuted), verdict
    if twin_id == "partlemma.twin.sy_beta_kt":
        assert verdict.counterexample["count"] > verdict.counterexample["bound"]


def test_verify_json_has_solvers_and_evidence_for_every_claim(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["verify", "--json", "--only", "bwd.tight.*,sym.crossover.*,explicit.*"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["claims"]
    for row in doc["claims"]:
        assert row["evidence"]["kind"] in EVIDENCE_KINDS
        assert isinstance(row["solvers"], dict)
        assert not (row["verdict"] == "proved" and row["evidence"]["kind"] == "definition")
        if row["evidence"]["kind"] == "smt-forall":
            assert set(row["solvers"]) == {"z3", "cvc5"}
    counted = sum(sum(v.values()) for k, v in doc["evidence"].items() if k != "solver_agreement")
    assert counted == len(doc["claims"])
    assert doc["attnio_version"] and doc["versions"]["z3"]
