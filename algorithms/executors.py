r"""Executors: run one pass of one tiled algorithm on seeded inputs under the memory model.

Every executor has the one signature :data:`Executor`
``run(mem, n, d, blocks, rng, mask=None, tau=1.0) -> max relative error``: it draws its inputs
from ``rng`` (float64; Q, K, V, dO in that order for attention, so every algorithm of a pass
sees the same data at the same seed), places them in the slow memory of ``mem``
(:class:`~attnio.algorithms.memory.TwoLevelMemory`, which refuses more than M fast words), runs
the tiled algorithm with the block sizes ``blocks`` and returns the largest relative error of
its outputs against the untiled reference (:mod:`attnio.algorithms.reference`). The backward
executors first place what the algorithm's forward pass leaves in slow memory (``P`` for the
standard algorithm, ``l``, ``m`` for FA-1, ``L`` for FA-2, ``A = exp(τQKᵀ)`` and ``ℓ = A·1``
for Saha–Ye / Algorithm 6). ``mask`` (a boolean n×n array) and ``tau`` reach only the
executors of masked algorithms; the others take neither.

Which executor runs which algorithm is stated once, in :mod:`attnio.algorithms.registry`
(``executors``); :func:`attnio.algorithms.simulation.simulate` calls it. This module imports
the algorithms and never the registry.

>>> from attnio.algorithms.memory import TwoLevelMemory
>>> mem = TwoLevelMemory(256)
>>> error = run_flash2_backward(mem, 32, 4, {"B_r": 4, "B_c": 8}, np.random.default_rng(0))
>>> error < 1e-10, mem.peak_words <= 256
(True, True)
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import numpy as np

from attnio.algorithms.flash import flash1_backward, flash1_forward, flash2_backward, flash2_forward
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import (
    ForwardResult,
    alman_song_gradients,
    attention_backward,
    attention_forward,
    relative_error,
)
from attnio.algorithms.small_cache import small_cache_backward, small_cache_dx
from attnio.algorithms.small_cache_fused import small_cache_fused_backward, small_cache_fused_forward
from attnio.algorithms.square_tiling import square_tiling_forward
from attnio.algorithms.standard import standard_backward, standard_forward

__all__ = ["Executor", "run_standard_forward", "run_standard_backward", "run_flash1_forward",
           "run_flash1_backward", "run_flash2_forward", "run_flash2_backward",
           "run_square_tiling_forward", "run_small_cache_backward",
           "run_small_cache_fused_forward", "run_small_cache_fused_backward",
           "run_small_cache_dx"]

#: ``run(mem, n, d, blocks, rng, mask, tau) -> max relative error`` (module docstring).
Executor = Callable[[TwoLevelMemory, int, int, Mapping[str, int], np.random.Generator,
                     Optional[np.ndarray], float], float]


def _inputs(rng: np.random.Generator, n: int, d: int) -> dict[str, np.ndarray]:
    scale = d ** -0.25  # scores QKᵀ of unit variance: exp() stays far from overflow
    return {"Q": scale * rng.standard_normal((n, d)), "K": scale * rng.standard_normal((n, d)),
            "V": rng.standard_normal((n, d)), "dO": rng.standard_normal((n, d))}


def _masking(mask: np.ndarray | None, tau: float) -> dict[str, Any]:
    """The ``mask=``/``tau=`` keywords of a masked algorithm (none for the unmasked run)."""
    return {} if mask is None and tau == 1.0 else {"mask": mask, "tau": tau}


def _flash_blocks(blocks: Mapping[str, int]) -> dict[str, Any]:
    return {"block_rows": blocks["B_r"], "block_cols": blocks["B_c"]}


def _fused_blocks(blocks: Mapping[str, int]) -> dict[str, Any]:
    return dict(blocks)


def _forward(run: Callable[[TwoLevelMemory, Mapping[str, int], dict[str, Any]], None]
             ) -> Executor:
    def execute(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                rng: np.random.Generator, mask: np.ndarray | None = None,
                tau: float = 1.0) -> float:
        x = _inputs(rng, n, d)
        ref = attention_forward(x["Q"], x["K"], x["V"], tau=tau, mask=mask)
        for name in "QKV":
            mem.add_slow(name, x[name])
        run(mem, blocks, _masking(mask, tau))
        return relative_error(mem.slow["O"], ref.O)
    return execute


def _backward(prepare: Callable[[TwoLevelMemory, dict[str, np.ndarray], ForwardResult,
                                 np.ndarray | None, float], None],
              run: Callable[[TwoLevelMemory, Mapping[str, int], dict[str, Any]], None]
              ) -> Executor:
    def execute(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                rng: np.random.Generator, mask: np.ndarray | None = None,
                tau: float = 1.0) -> float:
        x = _inputs(rng, n, d)
        ref = attention_forward(x["Q"], x["K"], x["V"], tau=tau, mask=mask)
        for name in "QKV":
            mem.add_slow(name, x[name])
        mem.add_slow("O", ref.O)
        mem.add_slow("dO", x["dO"])
        prepare(mem, x, ref, mask, tau)
        run(mem, blocks, _masking(mask, tau))
        expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"], tau=tau, mask=mask)
        return max(relative_error(mem.slow[name], value)
                   for name, value in zip(("dQ", "dK", "dV"), expected))
    return execute


def _keep_P(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
            mask: np.ndarray | None, tau: float) -> None:
    mem.add_slow("P", ref.P)


def _keep_row_stats(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                    mask: np.ndarray | None, tau: float) -> None:
    mem.add_slow("l", ref.row_sum)
    mem.add_slow("m", ref.row_max)


def _keep_logsumexp(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                    mask: np.ndarray | None, tau: float) -> None:
    mem.add_slow("L", ref.logsumexp)


def _keep_scores(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                 mask: np.ndarray | None, tau: float) -> None:
    """Saha–Ye's forward left A = exp(τQKᵀ) (0 where masked) and ℓ = A·1."""
    A = np.exp(tau * (x["Q"] @ x["K"].T))
    if mask is not None:
        A = np.where(mask, A, 0.0)
    mem.add_slow("A", A)
    mem.add_slow("l", A.sum(axis=1))


run_standard_forward = _forward(lambda mem, b, kw: standard_forward(mem, block=b["B"], **kw))
run_flash1_forward = _forward(lambda mem, b, kw: flash1_forward(mem, **_flash_blocks(b), **kw))
run_flash2_forward = _forward(lambda mem, b, kw: flash2_forward(mem, **_flash_blocks(b), **kw))
run_square_tiling_forward = _forward(
    lambda mem, b, kw: square_tiling_forward(mem, block=b["B"], **kw))
run_small_cache_fused_forward = _forward(
    lambda mem, b, kw: small_cache_fused_forward(mem, **_fused_blocks(b), **kw))
run_standard_backward = _backward(
    _keep_P, lambda mem, b, kw: standard_backward(mem, block=b["B"], **kw))
run_flash1_backward = _backward(
    _keep_row_stats, lambda mem, b, kw: flash1_backward(mem, **_flash_blocks(b), **kw))
run_flash2_backward = _backward(
    _keep_logsumexp, lambda mem, b, kw: flash2_backward(mem, **_flash_blocks(b), **kw))
run_small_cache_backward = _backward(
    _keep_scores, lambda mem, b, kw: small_cache_backward(mem, block=b["B"], **kw))
run_small_cache_fused_backward = _backward(
    _keep_scores, lambda mem, b, kw: small_cache_fused_backward(mem, **_fused_blocks(b), **kw))


def run_small_cache_dx(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                       rng: np.random.Generator, mask: np.ndarray | None = None,
                       tau: float = 1.0) -> float:
    """Algorithm 6 for the paper's dL/dX = A1ᵀ p A2 against Alman–Song's untiled gradient
    (inputs A1, A2, A3, E of n×d and X, Y of d×d; no mask, no τ)."""
    s = d ** -0.5
    arrays = {"A1": s * rng.standard_normal((n, d)), "A2": s * rng.standard_normal((n, d)),
              "A3": s * rng.standard_normal((n, d)), "E": rng.standard_normal((n, d)),
              "X": s * rng.standard_normal((d, d)), "Y": s * rng.standard_normal((d, d))}
    for name, value in arrays.items():
        mem.add_slow(name, value)
    small_cache_dx(mem, block=blocks["B"])
    dX, _ = alman_song_gradients(*(arrays[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
    return relative_error(mem.slow["g"], dX)
