"""FlashAttention-1/2 under the memory model: numerics, the published-block-size overflow."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.counts import flash_block_sizes, flash_tile_sequence
from attnio.algorithms.flash import flash1_backward, flash1_forward, flash2_forward
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_forward, relative_error
from attnio.algorithms.simulation import count, simulate
from attnio.exceptions import CacheOverflowError, InvalidInputError


@pytest.mark.parametrize("algorithm", ["flash1", "flash2"])
@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_numerics_at_a_medium_size(algorithm: str, pass_: str) -> None:
    result = simulate(algorithm, pass_, 96, 16, 1000, execute=True, seed=1)
    assert result.max_relative_error <= 1e-10 and result.closed_form_match
    assert result.peak_fast_words <= 1000


def test_published_backward_blocks_always_overflow() -> None:
    """K_j, V_j, dK_j, dV_j alone take 4·B_c·d ≥ M words with B_c = ⌈M/4d⌉."""
    for d in (8, 16, 64):
        for M in (8 * d, 16 * d, d * d, 4 * d * d):
            br, bc = flash_block_sizes(1, "backward", 10**6, d, M, "published")
            assert 4 * bc * d >= M
            with pytest.raises(CacheOverflowError):
                count("flash1-published", "backward", 10**6, d, M)


def test_published_forward_overflows_at_M_equal_d_squared() -> None:
    n, d, M = 256, 64, 4096
    br, bc = flash_block_sizes(1, "forward", n, d, M, "published")
    need = sum(words for _, words in flash_tile_sequence(1, "forward", n, d, br, bc))
    assert (br, bc, need) == (16, 16, 4096 + 16 * 6 + 256)
    rng = np.random.default_rng(0)
    mem = TwoLevelMemory(M)
    for name in "QKV":
        mem.add_slow(name, rng.standard_normal((n, d)))
    with pytest.raises(CacheOverflowError, match=r"tile 'l_i' \(16 = 16 words\)"):
        flash1_forward(mem, block_rows=br, block_cols=bc)


def test_false_twin_oversized_tiles_are_rejected_by_the_model() -> None:
    """One more column of K/V than the fitted choice must not fit."""
    n, d, M = 40, 4, 300
    br, bc = flash_block_sizes(1, "backward", n, d, M)
    rng = np.random.default_rng(2)
    mem = TwoLevelMemory(M)
    for name in ("Q", "K", "V", "O", "dO"):
        mem.add_slow(name, rng.standard_normal((n, d)))
    mem.add_slow("l", np.ones(n))
    mem.add_slow("m", np.zeros(n))
    with pytest.raises(CacheOverflowError, match="would hold"):
        flash1_backward(mem, block_rows=br, block_cols=bc + 1)


def test_fitted_blocks_are_maximal() -> None:
    for version, pass_ in ((1, "forward"), (1, "backward"), (2, "forward"), (2, "backward")):
        br, bc = flash_block_sizes(version, pass_, 4096, 64, 16384)
        outer = br if (version, pass_) == (2, "forward") else bc
        grown = (br + 1, bc) if (version, pass_) == (2, "forward") else (br, bc + 1)
        assert sum(w for _, w in flash_tile_sequence(version, pass_, 4096, 64, br, bc)) <= 16384
        assert sum(w for _, w in flash_tile_sequence(version, pass_, 4096, 64, *grown)) > 16384
        assert outer > 1


def test_M_below_every_flash_tile_is_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="too small for any flash1 backward tile set"):
        count("flash1", "backward", 64, 8, 60)


def test_flash2_forward_writes_logsumexp() -> None:
    rng = np.random.default_rng(4)
    mem = TwoLevelMemory(200)
    for name in "QKV":
        mem.add_slow(name, rng.standard_normal((9, 3)))
    flash2_forward(mem, block_rows=4, block_cols=2)
    ref = attention_forward(mem.slow["Q"], mem.slow["K"], mem.slow["V"])
    assert relative_error(mem.slow["L"], ref.logsumexp) <= 1e-12


def test_masked_flash2_backward_against_masked_and_unmasked_reference() -> None:
    """issue 15: with a causal mask and tau != 1 the gradients match the masked reference;
    the planted twin (the unmasked reference) is far off, so the comparison can fail."""
    import numpy as np

    from attnio.algorithms.flash import flash2_backward, flash2_forward
    from attnio.algorithms.memory import TwoLevelMemory
    from attnio.algorithms.reference import attention_backward, causal_mask, relative_error

    rng = np.random.default_rng(15)
    n, d, tau = 19, 4, 0.6
    Q, K, V, dO = (rng.standard_normal((n, d)) for _ in range(4))
    mask = causal_mask(n)
    mem = TwoLevelMemory(M=400)
    for name, value in zip("QKV", (Q, K, V)):
        mem.add_slow(name, value)
    flash2_forward(mem, block_rows=4, block_cols=5, mask=mask, tau=tau)
    mem.add_slow("dO", dO)
    flash2_backward(mem, block_rows=4, block_cols=5, mask=mask, tau=tau)
    got = [mem.slow[name] for name in ("dQ", "dK", "dV")]
    want = attention_backward(Q, K, V, dO, tau=tau, mask=mask)
    assert max(relative_error(g, w) for g, w in zip(got, want)) <= 1e-10
    twin = attention_backward(Q, K, V, dO, tau=tau)
    assert max(relative_error(g, w) for g, w in zip(got, twin)) > 1e-2
