"""Trust-tier pins of the stacked-head bounds (attnio.bounds.heads) and their claim checkers
(attnio.proofs.stacked_heads): what the mutants of benchmarks/mutation.py (issue 36's run,
seed 13) changed without a trust test failing — an argument dropped (batch, kv_heads), a
value's name in a message, a checker's count of instances, a twin's cap.
"""

from __future__ import annotations

import pytest

from attnio.bounds.attention import segment_product_cap
from attnio.bounds.heads import (
    multihead_lower_bound,
    stacked_compulsory,
    stacked_lower_bound,
    stacked_lower_bound_routes,
)
from attnio.exceptions import InvalidInputError
from attnio.proofs import stacked_heads
from attnio.proofs.registry import CheckContext
from attnio.results import Evidence, Refuted

pytestmark = pytest.mark.trust

CTX = CheckContext()


def test_every_size_is_named_when_refused() -> None:
    for call, name in ((lambda: stacked_compulsory("forward", 0, 4), "n"),
                       (lambda: stacked_compulsory("forward", 4, 0), "d"),
                       (lambda: stacked_lower_bound_routes("forward", 0, 4, 8, "forward"), "n"),
                       (lambda: stacked_lower_bound_routes("forward", 4, 0, 8, "forward"), "d"),
                       (lambda: stacked_lower_bound_routes("forward", 4, 4, 0, "forward"), "M")):
        with pytest.raises(InvalidInputError, match=f"^{name}=0 must be a positive integer$"):
            call()


def test_the_stacked_routes_see_the_batch_and_the_kv_groups() -> None:
    grouped = stacked_lower_bound_routes("backward", 64, 8, 64, "recompute", heads=4,
                                         kv_heads=2)
    # compulsory, the segment route, + rest, the joint route (issue 35), + rest
    assert [r.value for r in grouped] == [12288, 20864, 27008, 41984, 48128]
    assert [r.value for r in stacked_lower_bound_routes("backward", 64, 8, 64, "recompute",
                                                         heads=4)] == [16384, 20864, 29056,
                                                                       41984, 50176]
    # the weakest class's best route (the recompute class's 48,128 is not the minimum)
    assert stacked_lower_bound("backward", 64, 8, 64, heads=4, kv_heads=2).value == 42816
    assert stacked_lower_bound("backward", 64, 8, 64, batch=2, heads=4, kv_heads=2).value == \
        85632


def test_multihead_lower_bound_is_the_stacked_bound_of_its_shape() -> None:
    assert multihead_lower_bound("backward", 4096, 64, 2**20, heads=32, kv_heads=8) == (
        41943040, "recompute: compulsory")
    assert multihead_lower_bound("backward", 4096, 64, 2**20, heads=32) == (
        67108864, "recompute: compulsory")
    single = stacked_lower_bound("forward", 256, 8, 64)
    assert multihead_lower_bound("forward", 256, 8, 64) == (single.value, single.route)


def test_the_claim_checkers_count_their_instances() -> None:
    compulsory = stacked_heads._compulsory_check(CTX)
    assert compulsory.evidence == Evidence("exhaustive", instances=24, nontrivial_instances=24)
    segment = stacked_heads._segment_check(CTX)
    assert (segment.evidence.instances, segment.evidence.nontrivial_instances) == (432, 361)


def test_a_compulsory_formula_one_off_is_refuted_naming_the_shape() -> None:
    verdict = stacked_heads._compulsory_check(
        CTX, formula=lambda *args, **kw: stacked_compulsory(*args, **kw) + 1)
    assert verdict == Refuted({"pass": "forward", "n": 2, "d": 1, "batch": 1, "heads": 1,
                               "kv_heads": 1, "formula": 9, "dag": 8},
                              "the compulsory formula differs from the composed DAG's count")


def test_the_twins_cap_is_half_the_cap() -> None:
    assert segment_product_cap(8, 64, 64) == 967 and stacked_heads._cap_per_head(8, 64, 64) == 483


def test_a_claim_record_carries_what_it_is_given() -> None:
    def check(ctx):
        return None

    claim = stacked_heads._claim("x.y", "s", "f", check, twin_of="x", expect_reason="why")
    assert (claim.id, claim.statement, claim.formal, claim.check_fn, claim.twin_of,
            claim.expect_reason, claim.family, claim.method, claim.evidence_kind,
            claim.reconstructed) == ("x.y", "s", "f", check, "x", "why", "heads",
                                     "exact enumeration", "exhaustive", True)
