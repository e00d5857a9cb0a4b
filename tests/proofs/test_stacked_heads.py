"""Tests for attnio.proofs.stacked_heads: the stacked-head bound, its claims and false twins."""

from __future__ import annotations

import pytest

from attnio.exceptions import InvalidInputError
from attnio.proofs.gap_routes import (
    best_lower_bound, compulsory_io, lower_bound_routes, segment_route,
)
from attnio.proofs.registry import CheckContext
from attnio.proofs.stacked_heads import (
    CLAIMS, FALSE_TWINS, _compulsory_check, _segment_check, _stacked_dag, stacked_compulsory,
    stacked_lower_bound, stacked_lower_bound_routes, stacked_rest,
)


@pytest.mark.trust
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved(claim) -> None:
    verdict = claim.check()
    assert verdict.verdict == "proved", verdict
    assert verdict.evidence.nontrivial_instances > 0


@pytest.mark.trust
@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_twins_rejected_on_their_own_path(twin) -> None:
    verdict = twin.check()
    assert verdict.verdict == "refuted", verdict
    assert twin.rejects(verdict)
    cx = verdict.counterexample
    if twin.id == "heads.twin.kv_per_query_head":
        assert cx["kv_heads"] < cx["heads"] and cx["formula"] > cx["dag"]
    elif twin.id == "heads.twin.cap_split_by_head":
        assert cx["brute_force"] > cx["cap"] and cx["group"] * cx["groups"] > 1
    else:
        assert cx["bound"] > cx["permitted"]


@pytest.mark.trust
def test_each_check_fails_on_a_planted_input() -> None:
    ctx = CheckContext()
    off_by_one = lambda *a, **k: stacked_compulsory(*a, **k) + 1  # noqa: E731
    assert _compulsory_check(ctx, formula=off_by_one).verdict == "refuted"
    # a route one word below its maximum is caught too (not the maximum over L)
    def low(*a, **k):
        return [r.__class__(r.value - 1, r.route, r.claim_id) if r.value else r
                for r in stacked_lower_bound_routes(*a, **k)]
    v = _segment_check(ctx, routes=low)
    assert v.verdict == "refuted" and "not the maximum" in v.detail


@pytest.mark.trust
def test_composed_dag_shares_kv_and_sums_partials() -> None:
    from attnio.graphs.anytime import compulsory_io as dag_compulsory

    dag, outputs = _stacked_dag("backward", 2, 1, 1, 4, 2)
    # dQ per query head (4 × 2), dK and dV per group (2 × 2 × 2)
    assert len(outputs) == 4 * 2 + 2 * 2 * 2
    kv = {v for v in dag if ":K[" in v or ":V[" in v}
    assert len(kv) == 2 * 2 * 2  # K, V: 2 groups × n·d × 2 matrices
    assert dag_compulsory(dag, outputs) == (4 * 4 + 4 * 2) * 2 * 1


def test_single_head_is_gap_routes() -> None:
    for pass_, cls in (("forward", "forward"), ("backward", "recompute"),
                       ("backward", "given-scores")):
        for n, d, M in ((64, 8, 64), (4096, 64, 1024), (1024, 16, 65536)):
            single = lower_bound_routes(pass_, n, d, M, cls)
            stacked = stacked_lower_bound_routes(pass_, n, d, M, cls)
            assert [r.value for r in stacked] == [r.value for r in single]
        assert stacked_lower_bound(pass_, n, d, M).value == best_lower_bound(pass_, n, d, M).value
    assert stacked_compulsory("backward", 7, 3) == compulsory_io("backward", 7, 3)
    assert stacked_compulsory("forward", 7, 3) == compulsory_io("forward", 7, 3)


def test_exact_counts() -> None:
    n, d = 4096, 64
    assert stacked_compulsory("backward", n, d, heads=32, kv_heads=8) == 41943040
    assert stacked_compulsory("backward", n, d, batch=2, heads=32, kv_heads=8) == 2 * 41943040
    assert stacked_compulsory("backward", n, d, heads=32, kv_heads=8,
                              computation="given-scores") == 41943040 + 32 * n * n
    assert stacked_rest("backward", n, d, "recompute", heads=32, kv_heads=8) == (
        2 * 32 + 2 * 8) * n * d
    assert stacked_rest("backward", n, d, "given-scores", heads=32, kv_heads=8) == (
        32 * n * n + 3 * 32 * n * d + 3 * 8 * n * d)
    seg = stacked_lower_bound_routes("backward", n, d, 16384, "recompute", heads=32, kv_heads=8)
    # the products of all 32 query heads, two families, counted one by one
    assert seg[1].value == segment_route(n, d, 16384, products=2 * 32)[0] > 0
    assert seg[1].value > 32 * segment_route(n, d, 16384, products=2)[0]
    assert seg[2].value == seg[1].value + (2 * 32 + 2 * 8) * n * d


@pytest.mark.parametrize("kwargs, match", [
    ({"heads": 32, "kv_heads": 5}, "heads=32 is not a multiple of kv_heads=5"),
    ({"batch": 0}, "batch=0 must be a positive integer"),
])
def test_bad_shapes(kwargs, match) -> None:
    with pytest.raises(InvalidInputError, match=match):
        stacked_lower_bound("backward", 64, 8, 64, **kwargs)
    with pytest.raises(InvalidInputError, match="computation='dx'"):
        stacked_lower_bound("backward", 64, 8, 64, computation="dx")
