"""Tests for attnio.algorithms.heads: batch, heads, grouped K/V; closed form = executed."""

from __future__ import annotations

import pytest

from attnio.algorithms.heads import count_flash2_gqa, count_heads, simulate_heads, validate_heads
from attnio.algorithms.registry import get_algorithm
from attnio.algorithms.simulation import ALGORITHMS, count
from attnio.bounds.heads import multihead_lower_bound
from attnio.exceptions import InvalidInputError

PASS_ALGS = [(a, p) for a in ALGORITHMS for p in get_algorithm(a).passes
             if a != "flash1-published"]


@pytest.mark.parametrize("algorithm, pass_", PASS_ALGS)
def test_kv_heads_equal_heads_is_h_independent_heads(algorithm: str, pass_: str) -> None:
    one = count(algorithm, pass_, 96, 8, 640)
    for batch, heads in ((1, 1), (3, 4)):
        many = count_heads(algorithm, pass_, 96, 8, 640, batch=batch, heads=heads,
                           kv_heads=heads)
        k = batch * heads
        assert (many.reads, many.writes, many.flops) == (k * one.reads, k * one.writes,
                                                         k * one.flops)
        assert many.peak_fast_words == one.peak_fast_words
        assert (many.batch, many.heads, many.kv_heads) == (batch, heads, heads)


@pytest.mark.parametrize("algorithm, pass_", [(a, p) for a, p in PASS_ALGS
                                               if a in ("flash2", "flash2-gqa", "flash1",
                                                        "standard", "small-cache")])
@pytest.mark.parametrize("heads, kv_heads", [(1, 1), (4, 2), (3, 1)])
def test_closed_form_equals_executed(algorithm: str, pass_: str, heads: int,
                                     kv_heads: int) -> None:
    r = simulate_heads(algorithm, pass_, 20, 4, 200, batch=2, heads=heads, kv_heads=kv_heads,
                       execute=True, seed=5)
    assert r.closed_form_match and r.max_relative_error < 1e-9
    c = count_heads(algorithm, pass_, 20, 4, 200, batch=2, heads=heads, kv_heads=kv_heads)
    assert (r.reads, r.writes, r.flops, r.peak_fast_words) == (c.reads, c.writes, c.flops,
                                                               c.peak_fast_words)


def test_gqa_group_of_one_is_flash2() -> None:
    for pass_ in ("forward", "backward"):
        for M in (64, 700, 5000):
            a = count_flash2_gqa(pass_, 100, 8, M, 1)
            b = count("flash2", pass_, 100, 8, M)
            assert (a.reads, a.writes, a.flops, a.peak_fast_words) == (
                b.reads, b.writes, b.flops, b.peak_fast_words)


def test_gqa_order_saves_the_kv_traffic() -> None:
    gqa = count_heads("flash2-gqa", "backward", 1024, 64, 2**16, heads=8, kv_heads=1)
    rep = count_heads("flash2", "backward", 1024, 64, 2**16, heads=8, kv_heads=1)
    assert gqa.io < rep.io
    # K, V read once per group instead of once per query head, no dK/dV partials
    assert rep.io - gqa.io >= 7 * 4 * 1024 * 64


_SHAPES = [(1, 1, 1), (2, 4, 4), (1, 8, 2), (2, 8, 1), (1, 32, 8), (3, 6, 3)]


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_stacked_bound_between_compulsory_floor_and_every_algorithm(pass_: str) -> None:
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    algs = [a for a, p in PASS_ALGS if p == pass_
            and get_algorithm(a).computation(pass_) in allowed] + ["flash2-gqa"]
    compared = 0
    for n, d in ((64, 8), (256, 16), (4096, 64)):
        for M in (64, 1024, 16384, 2**20):
            for batch, heads, kv in _SHAPES:
                lb, route = multihead_lower_bound(pass_, n, d, M, batch=batch, heads=heads,
                                                  kv_heads=kv)
                # compulsory: Q (O, dO, dQ) per query head, K, V (dK, dV) per K/V head
                per = 2 if pass_ == "forward" else 4
                assert lb >= batch * per * (heads + kv) * n * d, route
                for alg in algs:
                    try:
                        io = count_heads(alg, pass_, n, d, M, batch=batch, heads=heads,
                                         kv_heads=kv).io
                    except InvalidInputError:  # no tile set fits M
                        continue
                    compared += 1
                    assert lb <= io, (alg, n, d, M, batch, heads, kv, lb, route, io)
    assert compared > 300


def test_stacked_bound_numbers_and_single_head() -> None:
    from attnio.bounds.attention import best_lower_bound, lower_bound_routes

    # n = 4096, d = 64, H = 32, G = 8 backward: 4Hnd + 4Gnd = 41,943,040 at a large M
    assert multihead_lower_bound("backward", 4096, 64, 2**20, heads=32, kv_heads=8) == (
        41943040, "recompute: compulsory")
    assert multihead_lower_bound("forward", 4096, 64, 2**20, heads=32, kv_heads=8)[0] == (
        2 * 32 + 2 * 8) * 4096 * 64
    # the old B·G × one head printed 16,777,216 there
    assert 8 * best_lower_bound("backward", 4096, 64, 2**20).value == 16777216
    for pass_ in ("forward", "backward"):
        for M in (64, 1024, 16384):
            one = best_lower_bound(pass_, 1024, 32, M)
            assert multihead_lower_bound(pass_, 1024, 32, M) == (one.value, one.route)
        # H heads: at least H × one head's compulsory / segment routes (not Saha–Ye's)
        routes = lower_bound_routes("forward", 1024, 32, M, "forward")
        four, _ = multihead_lower_bound("forward", 1024, 32, M, heads=4)
        assert four >= 4 * max(r.value for r in routes if not r.route.startswith("Saha"))


@pytest.mark.parametrize("args, match", [
    ((1, 32, 5), "heads=32 is not a multiple of kv_heads=5"),
    ((0, 4, 4), "batch=0 must be a positive integer"),
    ((1, 4, 0), "kv_heads=0 must be a positive integer"),
    ((2**11, 2**10, 1), "exceeds MAX_HEADS"),
])
def test_bad_heads(args: tuple, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        validate_heads(*args)


# ---- masks on many heads (issue 15: masks in every algorithm, flash2-gqa included) ----------
def _head_masks(n: int):
    import numpy as np

    from attnio.algorithms.masks import Mask

    rng = np.random.default_rng(n)
    arr = rng.random((n, n)) < 0.4
    arr[n // 2] = False  # a fully masked row: O = 0 and zero gradients, as the reference
    return [Mask.causal(), Mask.window(2), Mask.full(), Mask.from_array(arr),
            Mask.block_sparse(3, rng.random((-(-n // 3),) * 2) < 0.5)]


@pytest.mark.parametrize("algorithm", ["flash2-gqa", "flash2", "small-cache-fused"])
@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_masked_heads_closed_form_equals_executed(algorithm: str, pass_: str) -> None:
    checked = 0
    for n, d, M in [(7, 3, 60), (9, 2, 40), (11, 3, 90)]:
        for mask in _head_masks(n):
            for heads, kv in [(4, 2), (3, 1)]:
                r = simulate_heads(algorithm, pass_, n, d, M, heads=heads, kv_heads=kv,
                                   execute=True, mask=mask, seed=2)
                assert r.closed_form_match, (algorithm, pass_, n, d, M, mask.label, heads, kv)
                assert r.max_relative_error <= 1e-10, (algorithm, mask.label)
                assert r.mask == mask.label
                checked += 1
    assert checked == 30


def test_masked_gqa_skips_tiles_and_full_mask_is_unmasked() -> None:
    from attnio.algorithms.masks import Mask

    for pass_ in ("forward", "backward"):
        full = count_heads("flash2-gqa", pass_, 512, 32, 4096, heads=8, kv_heads=2)
        same = count_heads("flash2-gqa", pass_, 512, 32, 4096, heads=8, kv_heads=2,
                           mask=Mask.full())
        causal = count_heads("flash2-gqa", pass_, 512, 32, 4096, heads=8, kv_heads=2,
                             mask=Mask.causal())
        assert (same.reads, same.writes, same.flops) == (full.reads, full.writes, full.flops)
        assert causal.io < full.io
        # one group of one head is flash2 with the same mask, exactly
        one = count_heads("flash2-gqa", pass_, 512, 32, 4096, mask=Mask.causal())
        assert one.io == count("flash2", pass_, 512, 32, 4096, mask=Mask.causal()).io


@pytest.mark.parametrize("algorithm", ["flash2", "flash2-gqa", "standard"])
def test_executed_heads_with_zero_gradients_are_within_tolerance(algorithm: str) -> None:
    """window:1 makes dQ = dK = 0: the relative error is meaningless, the absolute one is
    roundoff; the verdict is the absolute-plus-relative tolerance over every head."""
    from attnio.algorithms.masks import parse_mask
    r = simulate_heads(algorithm, "backward", 16, 4, 64, heads=2, kv_heads=1, execute=True,
                       mask=parse_mask("window:1"))
    assert r.within_tolerance is True and r.closed_form_match
    assert r.max_absolute_error is not None and r.max_absolute_error < 1e-12
    assert r.rtol == 1e-10 and r.atol == pytest.approx(1e-10 * r.error_scale)


@pytest.mark.trust
def test_one_head_out_of_tolerance_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from attnio.algorithms import executors
    real = executors.compare_outputs
    calls = []

    def second_fails(pairs, rtol=executors.EXECUTE_RTOL):  # noqa: ANN001, ANN202
        e = real(pairs, rtol)
        calls.append(e)
        if len(calls) == 2:
            return executors.ExecutedError(float(e), e.absolute, e.scale, False, rtol)
        return e

    monkeypatch.setattr(executors, "compare_outputs", second_fails)
    r = simulate_heads("flash2-gqa", "backward", 16, 4, 64, heads=2, kv_heads=2, execute=True)
    assert len(calls) == 2 and r.within_tolerance is False
