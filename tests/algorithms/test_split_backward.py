"""flash2-split: closed form = executed counts (==), gradients = reference (<= 1e-12), cache
limit enforced by the memory model, exact block search, cheaper than FA-2 where stated."""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pytest

from attnio.algorithms.counts import Counts, count_flash2_backward
from attnio.algorithms.masks import Mask
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_backward, attention_forward
from attnio.algorithms.registry import get_algorithm
from attnio.algorithms.simulation import simulate
from attnio.algorithms.split_backward import (
    count_flash2_split_backward,
    count_masked_flash2_split_backward,
    flash2_split_backward,
    split_block_sizes,
    split_io,
    split_peaks,
)
from attnio.algorithms.tuning import tuned_count
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError

#: Small (n, d, M): n not a multiple of the blocks, d = 1, M at the least admissible 6d + 4,
#: M beyond nd (one key block), both choices of pass B.
SIZES = [(1, 1, 10), (5, 1, 10), (9, 4, 28), (9, 4, 80), (13, 3, 60), (16, 8, 52), (16, 8, 300),
         (23, 5, 200), (24, 2, 500), (31, 7, 170), (17, 6, 1000), (40, 4, 90)]


def _inputs(n: int, d: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    Q, K, V, dO = (0.5 * rng.standard_normal((n, d)) for _ in range(4))
    ref = attention_forward(Q, K, V)
    return dict(Q=Q, K=K, V=V, O=ref.O, dO=dO, L=ref.logsumexp)


def _largest_B_r(n: int, d: int, M: int, dS: int) -> int | None:
    fitting = [a for a in range(1, n + 1) if split_peaks(n, d, 1, a, dS)["B"] <= M]
    return max(fitting) if fitting else None


def _run(n: int, d: int, M: int, blocks: Mapping[str, int], seed: int = 0
         ) -> tuple[TwoLevelMemory, dict[str, np.ndarray]]:
    x = _inputs(n, d, seed)
    mem = TwoLevelMemory(M)
    for name, value in x.items():
        mem.add_slow(name, value)
    flash2_split_backward(mem, **blocks)
    return mem, x


def count_mismatch(counter: Callable[..., Counts], n: int, d: int, M: int,
                   blocks: Mapping[str, int]) -> str | None:
    """None when ``counter(n, d, M, blocks)`` equals the executed (reads, writes, FLOPs, peak)
    exactly; else what differs."""
    mem, _ = _run(n, d, M, blocks, seed=n + d + M)
    executed = (mem.reads, mem.writes, mem.flops, mem.peak_words)
    c = counter(n, d, M, blocks)
    closed = (c.reads, c.writes, c.flops, c.peak_fast_words)
    if executed != closed:
        return f"(n, d, M) = ({n}, {d}, {M}), blocks {dict(blocks)}: executed {executed} != " \
               f"closed form {closed}"
    return None


def _both_modes(n: int, d: int, M: int) -> list[dict[str, int]]:
    B_c = split_block_sizes(n, d, M)["B_c"]
    return [{"B_c": B_c, "B_r": B_r, "dS": dS} for dS in (0, 1)
            if (B_r := _largest_B_r(n, d, M, dS)) is not None]


@pytest.mark.parametrize("n,d,M", SIZES)
def test_executed_counts_equal_the_closed_form_in_both_modes(n: int, d: int, M: int) -> None:
    modes = _both_modes(n, d, M)
    assert len(modes) == 2
    for blocks in modes:
        assert count_mismatch(count_flash2_split_backward, n, d, M, blocks) is None


@pytest.mark.parametrize("n,d,M", SIZES)
def test_gradients_equal_the_reference(n: int, d: int, M: int) -> None:
    for blocks in _both_modes(n, d, M):
        mem, x = _run(n, d, M, blocks, seed=7 * n + d)
        expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"])
        for name, value in zip(("dQ", "dK", "dV"), expected):
            np.testing.assert_allclose(mem.slow[name], value, rtol=0, atol=1e-12)
        assert mem.peak_words <= M


@pytest.mark.parametrize("n,d,M", [(9, 4, 80), (23, 5, 200), (16, 8, 300)])
def test_simulate_executes_the_registered_algorithm(n: int, d: int, M: int) -> None:
    r = simulate("flash2-split", "backward", n, d, M, execute=True, seed=3)
    assert r.closed_form_match and r.within_tolerance and r.peak_fast_words <= M
    assert r.io == count_flash2_split_backward(n, d, M).io
    assert dict(r.block_sizes) == split_block_sizes(n, d, M)


def test_false_twin_a_closed_form_missing_one_term_is_caught() -> None:
    """The comparison helper must fail on a closed form that forgets the n writes of D."""
    def forgets_D(n: int, d: int, M: int, blocks: Mapping[str, int]) -> Counts:
        c = count_flash2_split_backward(n, d, M, blocks)
        return Counts(c.reads, c.writes - n, c.flops, c.peak_fast_words, c.block_sizes)

    def reads_dS_once_too_few(n: int, d: int, M: int, blocks: Mapping[str, int]) -> Counts:
        c = count_flash2_split_backward(n, d, M, blocks)
        return Counts(c.reads - blocks["dS"] * n, c.writes, c.flops, c.peak_fast_words,
                      c.block_sizes)

    blocks = _both_modes(9, 4, 80)
    assert count_mismatch(forgets_D, 9, 4, 80, blocks[0]) is not None
    assert count_mismatch(reads_dS_once_too_few, 9, 4, 80, blocks[1]) is not None
    assert count_mismatch(reads_dS_once_too_few, 9, 4, 80, blocks[0]) is None  # dS = 0: no term


def test_the_memory_model_refuses_blocks_over_M() -> None:
    n, d, M = 12, 4, 60
    too_wide = {"B_c": 4, "B_r": 1, "dS": 0}  # pass A: 4·4·4 + 2·4 + 2 + 2·4 = 82 > 60
    assert split_peaks(n, d, 4, 1, 0)["A"] > M
    with pytest.raises(CacheOverflowError):
        _run(n, d, M, too_wide)
    with pytest.raises(CacheOverflowError):
        count_flash2_split_backward(n, d, M, too_wide)
    with pytest.raises(CacheOverflowError):
        _run(n, d, M, {"B_c": 1, "B_r": 5, "dS": 0})  # pass B: 3·5·4 + 20 + 8 = 88 > 60


def test_below_the_admissible_range() -> None:
    with pytest.raises(CacheTooSmallError, match=r"M=27 is too small for flash2-split.*6d \+ 4 = 28"):
        split_block_sizes(9, 4, 27)
    assert split_block_sizes(9, 4, 28)["B_c"] == 1
    with pytest.raises(InvalidInputError, match="has no forward pass"):
        get_algorithm("flash2-split").counter("forward")
    r = simulate("flash2-split", "backward", 9, 4, 80, tau=0.5, execute=True)
    assert r.closed_form_match and r.within_tolerance


@pytest.mark.parametrize("M", [28, 80, 200])
@pytest.mark.parametrize("mask", [Mask.causal(), Mask.window(3),
                                  Mask.block_sparse(3, np.eye(6, dtype=bool)),
                                  Mask.from_array(np.random.default_rng(5).random((17, 17)) < .2),
                                  Mask.from_array(np.zeros((17, 17), dtype=bool))])
def test_masked_runs_equal_the_masked_closed_form(M: int, mask: Mask) -> None:
    """Issue 35, item 5: rows and columns with no kept entry skipped, the masked closed form
    equal to the executed count (both choices of pass B occur over these M), large logits."""
    r = simulate("flash2-split", "backward", 17, 4, M, execute=True, seed=3, mask=mask,
                 tau=800.0)
    assert r.closed_form_match and r.within_tolerance
    full = count_flash2_split_backward(17, 4, M)
    assert count_masked_flash2_split_backward(17, 4, M, Mask.full()) == full
    assert r.io < full.io


@pytest.mark.parametrize("n,d,M", [(12, 3, 40), (20, 4, 120), (9, 9, 70), (30, 2, 300)])
def test_the_block_search_is_optimal_by_brute_force(n: int, d: int, M: int) -> None:
    best = min(split_io(n, d, c, a, dS) for c in range(1, n + 1) for a in range(1, n + 1)
               for dS in (0, 1) if max(split_peaks(n, d, c, a, dS).values()) <= M)
    assert count_flash2_split_backward(n, d, M).io == best
    assert tuned_count("flash2-split", "backward", n, d, M).io == best


def test_split_io_is_the_closed_form() -> None:
    for n, d, M in SIZES:
        for b in _both_modes(n, d, M):
            assert split_io(n, d, b["B_c"], b["B_r"], b["dS"]) == \
                count_flash2_split_backward(n, d, M, b).io


def test_at_real_sizes_it_moves_fewer_words_than_the_cheapest_before() -> None:
    """n = 4096, d = 64 (notes/gap.md): below FlashAttention-2 and small-cache-fused."""
    n, d = 4096, 64
    fused_8192 = get_algorithm("small-cache-fused").counter("backward")(n, d, 8192).io
    assert (fused_8192, count_flash2_backward(n, d, 8192).io) == (136_167_424, 142_389_248)
    assert count_flash2_split_backward(n, d, 8192).io == 114_864_128     # dS·K pass
    assert count_flash2_split_backward(n, d, 12288).io == 84_357_120     # Q-outer recompute
    for M in (6144, 8192, 12288, 16384, 32768, 65536):
        split = count_flash2_split_backward(n, d, M)
        assert split.io < count_flash2_backward(n, d, M).io
        assert split.peak_fast_words <= M and isinstance(split.io, int)
