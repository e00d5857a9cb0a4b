"""Saha–Ye's SquareTilingAttention: numerics, 3B² + B ≤ 4B² ≤ M, the oversized-block twin."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.counts import count_square_tiling_forward, square_block
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import relative_error
from attnio.algorithms.square_tiling import square_tiling_forward
from attnio.exceptions import CacheOverflowError, InvalidInputError


def _memory(M: int, n: int = 10, d: int = 6) -> TwoLevelMemory:
    rng = np.random.default_rng(9)
    mem = TwoLevelMemory(M)
    for name in "QKV":
        mem.add_slow(name, 0.4 * rng.standard_normal((n, d)))
    return mem


@pytest.mark.parametrize("M", [4, 15, 16, 37, 100])
def test_cache_use_is_at_most_3B2_plus_B(M: int) -> None:
    B = square_block(M)
    mem = _memory(M)
    square_tiling_forward(mem, block=B)
    assert mem.peak_words <= 3 * B * B + B <= 4 * B * B <= M
    A = np.exp(mem.slow["Q"] @ mem.slow["K"].T)
    assert relative_error(mem.slow["O"], (A / A.sum(1, keepdims=True)) @ mem.slow["V"]) <= 1e-12


def test_false_twin_block_one_too_large_overflows() -> None:
    M = 36  # B = 3, 3·16 + 4 > 36 for B = 4
    with pytest.raises(CacheOverflowError, match="'(Q_il|K_jl|T_ij|l_i)'"):
        square_tiling_forward(_memory(M), block=square_block(M) + 1)


def test_io_is_about_8n2d_over_sqrt_M_when_blocks_divide() -> None:
    n, d, M = 1024, 64, 1024  # B = 16 divides n and d
    c = count_square_tiling_forward(n, d, M)
    B = 16
    assert c.io == 4 * n * n * d // B + n * n + n * d + 2 * n


def test_M_below_4_is_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="M=3 is too small"):
        square_block(3)
