"""The witnessed given-scores route (attnio.bounds.attention.witnessed_routes, issue 26 item 1)
and its claim gap.witnessed_route (proofs/witnessed_route.py)."""

from __future__ import annotations

import pytest

from attnio.bounds.attention import (
    best_lower_bound,
    leaves_segment_route,
    lower_bound_routes,
    segment_product_cap,
    witnessed_routes,
)
from attnio.bounds.heads import stacked_lower_bound_routes
from attnio.exceptions import InvalidInputError
from attnio.proofs.registry import CheckContext
from attnio.proofs.witnessed_route import CLAIMS, FALSE_TWINS, _witnessed_check

pytestmark = pytest.mark.trust
CTX = CheckContext()


def test_the_claims_are_proved_and_their_twins_refuted() -> None:
    assert [c.id for c in CLAIMS] == ["gap.witness_lemma", "gap.witnessed_route"]
    for claim in CLAIMS:
        assert claim.check_fn(CTX).proved, claim.id
    reasons = {t.id: t.check_fn(CTX) for t in FALSE_TWINS}
    assert reasons["gap.twin.witnessed_narrow_cap"].verdict == "refuted"
    assert "below a proved cell bound" in reasons["gap.twin.witnessed_narrow_cap"].detail
    chain = reasons["gap.twin.witness_chain_without_P"]
    assert chain.verdict == "refuted" and "no vertex of ['A', 'dS']" in chain.detail
    # issue 35: the s²/(4d) term at n < d is refuted by a real segment shape of dS·K
    full_d = reasons["gap.twin.witnessed_full_term_d"]
    assert full_d.verdict == "refuted" and full_d.counterexample["n"] < full_d.counterexample["d"]
    cx = full_d.counterexample
    assert cx["full_leaves"] * cx["m"] > cx["a"] * cx["b"]


def test_n_below_d_prints_the_supported_bound() -> None:
    """Issue 35: at n = 63, d = 256, M = 4 the route printed 1,347,960 (the s²/(4d) term,
    proved for n ≥ d only); the supported value, with full pairs ≤ ab/n, is 1,296,092."""
    routes = [r.value for r in witnessed_routes(63, 256, 4)]
    assert routes == [1231580, 1296092]
    cap = lambda d, M, L: segment_product_cap(63, M, L, partial_depth=255)  # noqa: E731
    assert leaves_segment_route(2 * 63 * 63 * 256, 256, 4, cap=cap) == (1231580, 20)
    # n ≥ d is unchanged (m = d)
    assert witnessed_routes(4096, 64, 1024)[0].value == 50958336


def test_the_dsk_enumeration_sees_full_pairs_of_n_leaves() -> None:
    from attnio.proofs.witnessed_route import dsk_leaf_table

    table = dsk_leaf_table(1, 2)  # dS 1×1, K 1×2: both pairs full with a = 1, b = 2
    assert max(full for _, _, full, _ in table) == 2
    assert all(full * 1 <= a * b for a, b, full, _ in table)
    assert any(full * 2 > a * b for a, b, full, _ in table)  # ab/d fails: the gap


def test_the_witness_lemma_counts_the_instances_that_could_fail() -> None:
    from attnio.proofs.witnessed_route import _witness_lemma_check

    verdict = _witness_lemma_check(CTX)
    assert verdict.evidence.nontrivial_instances == 120  # dS red in the segment
    # too short to compute dS: nothing could fail, so the registry calls it vacuous
    assert _witness_lemma_check(CTX, depth=4).evidence.nontrivial_instances == 0


def test_a_route_that_is_not_the_maximum_over_L_is_refuted(monkeypatch) -> None:
    import attnio.proofs.witnessed_route as module

    def one_less(n, d, M):
        return [type(r)(r.value + 1, r.route, r.claim_id) for r in witnessed_routes(n, d, M)]

    monkeypatch.setattr(module, "witnessed_routes", one_less)
    verdict = _witnessed_check(CTX, grid=[(4096, 64, 1024)])
    assert verdict.verdict == "refuted" and "not max_L" in verdict.detail


def test_values_pinned_at_the_gap_table_size() -> None:
    """n = 4096, d = 64: two products (N = 2n²d) with the cap of partial depth n − 1, plus
    4nd = 1,048,576 for Q, O read and dK, dV written."""
    rows = {M: [r.value for r in witnessed_routes(4096, 64, M)] for M in (64, 1024, 8192)}
    assert rows == {64: [315468096, 316516672], 1024: [50958336, 52006912],
                    8192: [10108928, 11157504]}
    cap = lambda d, M, L: segment_product_cap(d, M, L, partial_depth=4095)  # noqa: E731
    assert leaves_segment_route(2 * 4096 * 4096 * 64, 64, 1024, cap=cap) == (50958336, 2048)


def test_only_the_given_scores_class_has_it_and_the_small_cache_bound_rose() -> None:
    for cls in ("recompute",):
        assert all(r.claim_id != "gap.witnessed_route"
                   for r in lower_bound_routes("backward", 4096, 64, 64, cls))
    assert all(r.claim_id != "gap.witnessed_route"
               for r in lower_bound_routes("forward", 4096, 64, 64, "forward"))
    witnessed = [r for r in lower_bound_routes("backward", 4096, 64, 64, "given-scores")
                 if r.claim_id == "gap.witnessed_route"]
    assert witnessed[-1].value == 316516672
    # before issue 26 the class's best was the dO·Vᵀ route alone: 176,084,032 (ratio 7.58);
    # since issue 35 the joint route (four products) is the class's best
    given = best_lower_bound("backward", 4096, 64, 64, "given-scores")
    assert given.claim_id == "gap.joint_route" and given.value == 436498688
    assert best_lower_bound("backward", 4096, 64, 64).value == 436498688


def test_one_stacked_head_is_the_single_head_route() -> None:
    single = lower_bound_routes("backward", 1024, 16, 512, "given-scores")
    stacked = stacked_lower_bound_routes("backward", 1024, 16, 512, "given-scores")
    assert [r.value for r in stacked] == [r.value for r in single]
    many = stacked_lower_bound_routes("backward", 1024, 16, 512, "given-scores", heads=4,
                                      kv_heads=2)
    assert any(r.claim_id == "gap.witnessed_route" and "4 heads" in r.route for r in many)


def test_a_partial_depth_below_d_minus_1_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="partial_depth=2 must be an int >= d - 1 = 3"):
        segment_product_cap(4, 16, 16, partial_depth=2)
