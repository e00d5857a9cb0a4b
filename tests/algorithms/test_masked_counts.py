"""masked_counts: at the full mask each masked closed form equals the unmasked one; a causal
mask costs strictly less (executed equality: tests/algorithms/test_counts.py)."""

from __future__ import annotations

import pytest

from attnio.algorithms import counts as C
from attnio.algorithms import masked_counts as MC
from attnio.algorithms.masks import Mask

CASES = [
    (MC.count_masked_standard_forward, C.count_standard_forward),
    (MC.count_masked_standard_backward, C.count_standard_backward),
    (MC.count_masked_square_tiling_forward, C.count_square_tiling_forward),
    (MC.count_masked_small_cache_backward, C.count_small_cache_backward),
]


@pytest.mark.parametrize("masked,unmasked", CASES)
@pytest.mark.parametrize("n,d,M", [(37, 5, 200), (4096, 64, 16384)])
def test_full_mask_is_the_unmasked_closed_form(masked, unmasked, n: int, d: int, M: int) -> None:
    assert masked(n, d, M, Mask.full()) == unmasked(n, d, M)
    assert masked(n, d, M, Mask.causal()).io < unmasked(n, d, M).io


@pytest.mark.parametrize("version,pass_,unmasked", [
    (1, "forward", C.count_flash1_forward), (1, "backward", C.count_flash1_backward),
    (2, "forward", C.count_flash2_forward), (2, "backward", C.count_flash2_backward)])
def test_flash_full_mask_is_the_unmasked_closed_form(version: int, pass_: str, unmasked) -> None:
    assert MC.count_masked_flash(version, pass_, 4096, 64, 65536, "fitted", Mask.full()) == \
        unmasked(4096, 64, 65536)
    assert MC.count_masked_flash(version, pass_, 4096, 64, 65536, "fitted",
                                 Mask.causal()).io < unmasked(4096, 64, 65536).io
