"""fused-resident: closed form = executed counts (==), outputs = reference (<= 1e-12), cache
limit enforced by the memory model, exact block search, cheaper than small-cache-fused where
stated."""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pytest

from attnio.algorithms.counts import (
    Counts,
    count_flash2_backward,
    count_flash2_forward,
    count_small_cache_fused_backward,
    count_small_cache_fused_forward,
)
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_backward, attention_forward
from attnio.algorithms.resident_fused import (
    count_fused_resident,
    fused_resident_backward,
    fused_resident_forward,
    resident_block_sizes,
    resident_peaks,
)
from attnio.algorithms.simulation import simulate
from attnio.algorithms.tuning import tuned_count
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError

#: Small (n, d, M): n not a multiple of the blocks, d = 1, M at the least admissible
#: (forward max(2d + 1, 4), backward 3d + 4), c2 < d and c2 = d, M beyond nd.
SIZES = [(1, 1, 4), (1, 1, 7), (5, 1, 7), (9, 4, 16), (9, 4, 40), (13, 3, 60), (16, 8, 28), (16, 8, 300),
         (23, 5, 200), (24, 2, 500), (31, 7, 170), (17, 6, 1000), (40, 4, 90)]


def _run(pass_: str, n: int, d: int, M: int, blocks: Mapping[str, int], seed: int = 0
         ) -> tuple[TwoLevelMemory, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    Q, K, V, dO = (0.5 * rng.standard_normal((n, d)) for _ in range(4))
    mem = TwoLevelMemory(M)
    x = dict(Q=Q, K=K, V=V)
    if pass_ == "backward":
        A = np.exp(Q @ K.T)
        x.update(O=attention_forward(Q, K, V).O, dO=dO, A=A, l=A.sum(axis=1))
    for name, value in x.items():
        mem.add_slow(name, value)
    run = fused_resident_forward if pass_ == "forward" else fused_resident_backward
    run(mem, **blocks)
    return mem, {**x, "dO": dO}


def count_mismatch(counter: Callable[..., Counts], pass_: str, n: int, d: int, M: int,
                   blocks: Mapping[str, int]) -> str | None:
    """None when ``counter(pass_, n, d, M, blocks)`` equals the executed (reads, writes,
    FLOPs, peak) exactly; else what differs."""
    mem, _ = _run(pass_, n, d, M, blocks, seed=n + d + M)
    executed = (mem.reads, mem.writes, mem.flops, mem.peak_words)
    c = counter(pass_, n, d, M, blocks)
    closed = (c.reads, c.writes, c.flops, c.peak_fast_words)
    if executed != closed:
        return f"{pass_} (n, d, M) = ({n}, {d}, {M}), blocks {dict(blocks)}: executed " \
               f"{executed} != closed form {closed}"
    return None


def _admissible(pass_: str, n: int, d: int, M: int) -> bool:
    return M >= (max(2 * d + 1, 4) if pass_ == "forward" else 3 * d + 4)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", SIZES)
def test_executed_counts_equal_the_closed_form(pass_: str, n: int, d: int, M: int) -> None:
    if not _admissible(pass_, n, d, M):
        with pytest.raises(CacheTooSmallError):
            resident_block_sizes(n, d, M, pass_)
        return
    blocks = resident_block_sizes(n, d, M, pass_)
    assert count_mismatch(count_fused_resident, pass_, n, d, M, blocks) is None
    narrow = {**blocks, "b1": 1, "r2": 1, "c2": 1}  # every trip count at its largest
    assert count_mismatch(count_fused_resident, pass_, n, d, M, narrow) is None


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", SIZES)
def test_outputs_equal_the_reference(pass_: str, n: int, d: int, M: int) -> None:
    if not _admissible(pass_, n, d, M):
        return
    mem, x = _run(pass_, n, d, M, resident_block_sizes(n, d, M, pass_), seed=7 * n + d)
    if pass_ == "forward":
        ref = attention_forward(x["Q"], x["K"], x["V"])
        np.testing.assert_allclose(mem.slow["O"], ref.O, rtol=0, atol=1e-12)
        A = np.exp(x["Q"] @ x["K"].T)
        np.testing.assert_allclose(mem.slow["A"], A, rtol=1e-14)
        np.testing.assert_allclose(mem.slow["l"], A.sum(axis=1), rtol=1e-14)
    else:
        expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"])
        for name, value in zip(("dQ", "dK", "dV"), expected):
            np.testing.assert_allclose(mem.slow[name], value, rtol=0, atol=1e-12)
    assert mem.peak_words <= M


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_simulate_executes_the_registered_algorithm(pass_: str) -> None:
    r = simulate("fused-resident", pass_, 23, 5, 200, execute=True, seed=3)
    assert r.closed_form_match and r.within_tolerance and r.peak_fast_words <= 200
    assert dict(r.block_sizes) == resident_block_sizes(23, 5, 200, pass_)


def test_false_twin_a_closed_form_missing_one_term_is_caught() -> None:
    """The helper must fail on a closed form that forgets the n words of ℓ (forward) or
    the 2n words of ℓ, D streamed on each pass-1 block (backward: one block's worth)."""
    def forgets_l(pass_: str, n: int, d: int, M: int, blocks: Mapping[str, int]) -> Counts:
        c = count_fused_resident(pass_, n, d, M, blocks)
        return Counts(c.reads, c.writes - n, c.flops, c.peak_fast_words, c.block_sizes)

    def one_pass_of_vectors(pass_: str, n: int, d: int, M: int,
                            blocks: Mapping[str, int]) -> Counts:
        c = count_fused_resident(pass_, n, d, M, blocks)
        return Counts(c.reads - 2 * n, c.writes, c.flops, c.peak_fast_words, c.block_sizes)

    b = resident_block_sizes(9, 4, 40, "forward")
    assert count_mismatch(forgets_l, "forward", 9, 4, 40, b) is not None
    b = resident_block_sizes(9, 4, 40, "backward")
    assert count_mismatch(one_pass_of_vectors, "backward", 9, 4, 40, b) is not None
    assert count_mismatch(count_fused_resident, "backward", 9, 4, 40, b) is None


def test_the_memory_model_refuses_blocks_over_M() -> None:
    n, d, M = 12, 4, 40
    wide = {"B": 3, "b1": 4, "r2": 1, "c2": 1}  # backward pass 1: 2·16 + 4 + 2 + 8 = 46 > 40
    assert resident_peaks("backward", n, d, wide)["pass 1"] > M
    with pytest.raises(CacheOverflowError):
        _run("backward", n, d, M, wide)
    with pytest.raises(CacheOverflowError):
        count_fused_resident("backward", n, d, M, wide)
    tall = {"B": 3, "b1": 1, "r2": 7, "c2": 4}  # forward product tile: 28 + 14 + 4 = 46 > 40
    with pytest.raises(CacheOverflowError):
        _run("forward", n, d, M, tall)


def test_below_the_admissible_range_and_bad_pass() -> None:
    with pytest.raises(CacheTooSmallError, match=r"M=8 is too small for fused-resident forward"):
        resident_block_sizes(9, 4, 8, "forward")
    with pytest.raises(CacheTooSmallError, match=r"M=3 is too small for fused-resident forward: "
                                                 r"it needs 4 words at d=1"):
        resident_block_sizes(5, 1, 3, "forward")
    with pytest.raises(CacheTooSmallError, match=r"backward: it needs 16 words at d=4"):
        resident_block_sizes(9, 4, 15, "backward")
    assert resident_block_sizes(9, 4, 16, "backward")["b1"] == 1
    with pytest.raises(InvalidInputError, match="pass='both'"):
        count_fused_resident("both", 9, 4, 40)
    with pytest.raises(InvalidInputError, match="takes no mask"):
        simulate("fused-resident", "forward", 9, 4, 40, tau=0.5)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", [(12, 3, 40), (20, 4, 120), (9, 9, 70), (30, 2, 300)])
def test_the_block_search_is_optimal_by_brute_force(pass_: str, n: int, d: int, M: int) -> None:
    B = resident_block_sizes(n, d, M, pass_)["B"]
    best = min(count_fused_resident(pass_, n, d, M, {"B": B, "b1": b, "r2": r, "c2": c}).io
               for b in range(1, n + 1) for r in range(1, n + 1) for c in range(1, d + 1)
               if max(resident_peaks(pass_, n, d, {"B": B, "b1": b, "r2": r,
                                                   "c2": c}).values()) <= M)
    assert count_fused_resident(pass_, n, d, M).io == best
    assert tuned_count("fused-resident", pass_, n, d, M).io == best


def test_at_real_sizes_it_moves_fewer_words_than_the_cheapest_before() -> None:
    """n = 4096, d = 64 (notes/gap.md): below small-cache-fused and FlashAttention-2 from
    M = 1,536 to 8,192 (backward) and 1,536 to 4,096 (forward)."""
    n, d = 4096, 64
    assert count_fused_resident("backward", n, d, 4096).io == 139_767_808
    assert count_small_cache_fused_backward(n, d, 4096).io == 173_293_568
    for M in (1536, 2048, 3072, 4096, 6144, 8192):
        ours = count_fused_resident("backward", n, d, M).io
        assert ours < min(count_small_cache_fused_backward(n, d, M).io,
                          count_flash2_backward(n, d, M).io)
    for M in (1536, 2048, 3072, 4096):
        ours = count_fused_resident("forward", n, d, M).io
        assert ours < min(count_small_cache_fused_forward(n, d, M).io,
                          count_flash2_forward(n, d, M).io)
