"""Standard (unfused) attention: numerics and the materialised n×n matrices."""

from __future__ import annotations

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_backward, attention_forward, relative_error
from attnio.algorithms.standard import standard_backward, standard_forward


def test_forward_and_backward_materialise_and_match_reference() -> None:
    rng = np.random.default_rng(6)
    n, d, M = 11, 5, 40
    Q, K, V, dO = (rng.standard_normal((n, d)) for _ in range(4))
    mem = TwoLevelMemory(M)
    for name, value in zip("QKV", (Q, K, V)):
        mem.add_slow(name, value)
    standard_forward(mem, block=3)
    ref = attention_forward(Q, K, V)
    assert relative_error(mem.slow["S"], Q @ K.T) <= 1e-12
    assert relative_error(mem.slow["P"], ref.P) <= 1e-12
    assert relative_error(mem.slow["O"], ref.O) <= 1e-12
    mem.add_slow("dO", dO)
    standard_backward(mem, block=3)
    for name, expected in zip(("dQ", "dK", "dV"), attention_backward(Q, K, V, dO)):
        assert relative_error(mem.slow[name], expected) <= 1e-10
    assert mem.slow["dS"].shape == (n, n) and mem.peak_words <= M
