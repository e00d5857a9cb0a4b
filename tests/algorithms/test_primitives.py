"""TileMul and the streaming passes: results, and counts equal to their closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.counts import count_tile_matmul
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import block_classes, blocks, ceil_div, tile_matmul


@pytest.mark.parametrize("length,size", [(1, 1), (7, 3), (9, 3), (2, 5), (10, 4)])
def test_blocks_cover_and_classes_agree(length: int, size: int) -> None:
    covered = [i for start, width in blocks(length, size) for i in range(start, start + width)]
    assert covered == list(range(length))
    assert sum(w * k for w, k in block_classes(length, size)) == length
    assert len(blocks(length, size)) == ceil_div(length, size)


@pytest.mark.parametrize("a,k,c,B", [(5, 3, 4, 2), (7, 7, 7, 3), (1, 9, 2, 4), (6, 2, 5, 6)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True)])
def test_tile_matmul_result_and_counts(a: int, k: int, c: int, B: int, trans_a: bool,
                                       trans_b: bool) -> None:
    rng = np.random.default_rng(0)
    left = rng.standard_normal((k, a) if trans_a else (a, k))
    right = rng.standard_normal((c, k) if trans_b else (k, c))
    mem = TwoLevelMemory(M=3 * B * B)
    mem.add_slow("A", left)
    mem.add_slow("B", right)
    tile_matmul(mem, "A", "B", "C", block=B, trans_a=trans_a, trans_b=trans_b)
    expected = (left.T if trans_a else left) @ (right.T if trans_b else right)
    np.testing.assert_allclose(mem.slow["C"], expected, rtol=1e-13, atol=1e-13)
    closed = count_tile_matmul(a, k, c, B)
    assert (mem.reads, mem.writes, mem.flops, mem.peak_words) == (
        closed.reads, closed.writes, closed.flops, closed.peak_fast_words)
