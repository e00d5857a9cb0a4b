"""executors: each runs its algorithm on seeded inputs, within M words, close to the reference;
a run with too small a cache is refused by the memory model (CacheOverflowError)."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms import executors as X
from attnio.algorithms.memory import TwoLevelMemory
from attnio.exceptions import CacheOverflowError

SQUARE = {"B": 4}
FLASH = {"B_r": 3, "B_c": 5}
FUSED = {"B": 4, "r1": 4, "c1": 5, "r2": 4, "c2": 3}
CASES = [(X.run_standard_forward, SQUARE), (X.run_standard_backward, SQUARE),
         (X.run_flash1_forward, FLASH), (X.run_flash1_backward, FLASH),
         (X.run_flash2_forward, FLASH), (X.run_flash2_backward, FLASH),
         (X.run_square_tiling_forward, SQUARE), (X.run_small_cache_backward, SQUARE),
         (X.run_small_cache_fused_forward, FUSED), (X.run_small_cache_fused_backward, FUSED),
         (X.run_small_cache_dx, SQUARE)]


@pytest.mark.parametrize("run,blocks", CASES)
def test_each_executor_matches_the_reference_within_M(run, blocks) -> None:
    mem = TwoLevelMemory(400)
    error = run(mem, 11, 3, blocks, np.random.default_rng(1), None, 1.0)
    assert error < 1e-10 and 0 < mem.peak_words <= 400 and mem.reads > 0


def test_false_twin_a_cache_too_small_is_refused() -> None:
    with pytest.raises(CacheOverflowError):
        X.run_flash2_backward(TwoLevelMemory(20), 11, 3, FLASH, np.random.default_rng(1),
                              None, 1.0)
