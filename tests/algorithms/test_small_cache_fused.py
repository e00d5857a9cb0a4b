"""small-cache-fused: closed form = executed counts, gradients = reference, cache limit enforced."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.counts import (
    count_small_cache_backward,
    count_small_cache_fused_backward,
    count_small_cache_fused_forward,
    count_square_tiling_forward,
)
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.simulation import simulate
from attnio.algorithms.small_cache_fused import (
    backward_products_io,
    forward_pass2_io,
    fused_block_sizes,
    pass1_io,
    small_cache_fused_backward,
)
from attnio.exceptions import CacheOverflowError, InvalidInputError

SIZES = [(7, 5, 20), (16, 4, 16), (13, 6, 30), (20, 8, 64), (33, 9, 50), (24, 16, 100),
         (40, 3, 12), (17, 17, 4), (64, 8, 256), (31, 7, 1000)]


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", SIZES)
def test_executed_equals_closed_form(pass_: str, n: int, d: int, M: int) -> None:
    r = simulate("small-cache-fused", pass_, n, d, M, execute=True, seed=n + d + M)
    assert r.closed_form_match and r.peak_fast_words <= M
    assert r.max_relative_error <= 1e-10


def test_n_not_a_multiple_of_the_tiles() -> None:
    blocks = fused_block_sizes(33, 9, 50)
    assert any(33 % blocks[k] for k in ("r1", "c1", "r2"))


def test_cache_limit_enforced_by_the_memory_model() -> None:
    rng = np.random.default_rng(1)
    n, d = 12, 4
    Q, K, V, dO = (0.5 * rng.standard_normal((n, d)) for _ in range(4))
    A = np.exp(Q @ K.T)
    mem = TwoLevelMemory(M=30)
    for name, value in dict(Q=Q, K=K, V=V, O=(A / A.sum(1)[:, None]) @ V, dO=dO, A=A,
                            l=A.sum(axis=1)).items():
        mem.add_slow(name, value)
    with pytest.raises(CacheOverflowError):
        small_cache_fused_backward(mem, B=2, r1=6, c1=6, r2=2, c2=2)  # 36 + 12 + 6 > 30
    with pytest.raises(CacheOverflowError):
        count_small_cache_fused_backward(n, d, 30, {"B": 2, "r1": 6, "c1": 6, "r2": 2, "c2": 2})


@pytest.mark.parametrize("n,d,M", [(12, 5, 30), (20, 3, 64), (9, 9, 17), (50, 7, 90)])
def test_search_is_optimal_by_brute_force(n: int, d: int, M: int) -> None:
    blocks = fused_block_sizes(n, d, M)
    best1 = min(pass1_io(n, d, r, c) for r in range(1, n + 1) for c in range(1, n + 1)
                if r * c + 2 * r + c <= M)
    best2 = min(backward_products_io(n, d, r, c) for r in range(1, n + 1)
                for c in range(1, d + 1) if r * c + r + c + 1 <= M)
    assert pass1_io(n, d, blocks["r1"], blocks["c1"]) == best1
    assert backward_products_io(n, d, blocks["r2"], blocks["c2"]) == best2
    fwd = fused_block_sizes(n, d, M, "forward")
    assert forward_pass2_io(n, d, fwd["r2"], fwd["c2"]) == min(
        forward_pass2_io(n, d, r, c) for r in range(1, n + 1) for c in range(1, d + 1)
        if r * c + r + c <= M)


@pytest.mark.parametrize("M", [64, 256, 1024, 4096])
def test_smaller_constant_than_algorithm_6_and_square_tiling(M: int) -> None:
    n, d = 4096, 64
    assert count_small_cache_fused_backward(n, d, M).io < 0.7 * count_small_cache_backward(n, d, M).io
    assert count_small_cache_fused_forward(n, d, M).io < 0.7 * count_square_tiling_forward(n, d, M).io


def test_too_small_cache() -> None:
    with pytest.raises(InvalidInputError, match="M=3"):
        fused_block_sizes(8, 2, 3)
