"""Algorithm 6 (RECONSTRUCTED): Q/K/V gradients and dL/dX under the memory model."""

from __future__ import annotations

import numpy as np

from attnio.algorithms.counts import count_flash1_backward, count_small_cache_backward
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import alman_song_gradients, relative_error
from attnio.algorithms.simulation import simulate
from attnio.algorithms.small_cache import small_cache_dx


def test_qkv_gradients_match_reference() -> None:
    result = simulate("small-cache", "backward", 50, 12, 60, execute=True, seed=3)
    assert result.max_relative_error <= 1e-10 and result.closed_form_match
    assert result.peak_fast_words <= 60


def test_dx_matches_alman_song_lemma_c7() -> None:
    rng = np.random.default_rng(12)
    n, d, M = 9, 5, 20
    arrays = {k: 0.4 * rng.standard_normal((n, d)) for k in ("A1", "A2", "A3", "E")}
    arrays |= {k: 0.4 * rng.standard_normal((d, d)) for k in ("X", "Y")}
    mem = TwoLevelMemory(M)
    for name, value in arrays.items():
        mem.add_slow(name, value)
    small_cache_dx(mem, block=2)
    dX, _ = alman_song_gradients(*(arrays[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
    assert relative_error(mem.slow["g"], dX) <= 1e-10
    assert mem.peak_words <= M


def test_alg6_does_fewer_flops_than_flash_backward() -> None:
    """FA recomputes S = QKᵀ in the backward; Algorithm 6 reads A from its forward pass."""
    n, d, M = 4096, 64, 4096
    alg6, fa = count_small_cache_backward(n, d, M), count_flash1_backward(n, d, M)
    # dP (2n²d) + dV, dQ, dK (3·2n²d) + P = A/ℓ and dS = P∘(dP − D) (3n²) + D (2nd)
    assert alg6.flops == 8 * n * n * d + 3 * n * n + 2 * n * d
    assert fa.flops > alg6.flops + 2 * n * n * d - 1
