"""masked_counts: at the full mask each masked closed form equals the unmasked one; a causal
mask costs strictly less (executed equality: tests/algorithms/test_counts.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms import counts as C
from attnio.algorithms import masked_counts as MC
from attnio.algorithms.masks import Mask
from attnio.algorithms.simulation import count

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


@settings(max_examples=300, deadline=None, derandomize=True)
@given(n=st.integers(1, 300), a=st.integers(1, 300), w=st.integers(1, 300),
       kind=st.sampled_from(["full", "causal", "window"]), window=st.integers(1, 60))
def test_scaled_pieces_by_periods_equals_the_per_block_sum(n, a, w, kind, window):
    """The huge-n closed form (sums by periods of the stored-block grid) against the per-block
    arrays it replaces beyond 2¹⁶ blocks, on every kind it covers."""
    from attnio.algorithms.masked_counts import _scaled_pieces_periodic
    from attnio.algorithms.masks import column_block_rows
    from attnio.algorithms.small_cache_fused import block_pieces

    mask = {"full": Mask.full(), "causal": Mask.causal(), "window": Mask.window(window)}[kind]
    a, w = min(a, n), min(w, n)
    per_block = int(sum(int(p) * int(r) for p, r in zip(block_pieces(n, a, w),
                                                        column_block_rows(mask, n, a))))
    assert _scaled_pieces_periodic(mask, n, a, w) == per_block


def test_masked_fused_count_at_a_300_digit_n_is_an_exact_int():
    """A 300-digit n with a causal mask: counted (no per-block array), an int, and the
    stored-block term grows like n² (doubling n: ×4 up to the linear terms)."""
    n = 10**300
    one = count("small-cache-fused", "backward", n, 8, 64, mask=Mask.causal())
    two = count("small-cache-fused", "backward", 2 * n, 8, 64, mask=Mask.causal())
    assert isinstance(one.io, int) and 3.9 < two.io / one.io < 4.1
