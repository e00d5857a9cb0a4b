r"""Executors: run one pass of one tiled algorithm on seeded inputs under the memory model.

Every executor has the one signature :data:`Executor`
``run(mem, n, d, blocks, rng, mask=None, tau=1.0) -> max relative error``: it draws its inputs
from ``rng`` (float64; Q, K, V, dO in that order for attention, so every algorithm of a pass
sees the same data at the same seed), places them in the slow memory of ``mem``
(:class:`~attnio.algorithms.memory.TwoLevelMemory`, which refuses more than M fast words), runs
the tiled algorithm with the block sizes ``blocks`` and returns the largest relative error of
its outputs against the untiled reference (:mod:`attnio.algorithms.reference`), as an
:class:`ExecutedError` (a float, so every caller comparing it as before still works, that also
carries the absolute error and the tolerance verdict of :func:`compare_outputs`). The backward
executors first place what the algorithm's forward pass leaves in slow memory (``P`` for the
standard algorithm, ``l``, ``m`` for FA-1, ``L`` for FA-2, ``A = exp(τQKᵀ)`` and ``ℓ = A·1``
for Saha–Ye / Algorithm 6, ``A = exp(τQKᵀ − m)`` and ``ℓ = A·1`` for the stable forward of
``small-cache-stable``, A on stored key blocks with their block scales g (``small-cache-fused``)
or block maxima t and the logsumexp L (``fused-resident``)). ``mask`` (a boolean n×n array)
reaches only the executors of masked algorithms; ``tau`` scales the logits of every one
(``small-cache-dx``: X).

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
from attnio.algorithms.lean_flash import lean_backward, lean_forward
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import (
    ForwardResult,
    alman_song_gradients,
    attention_backward,
    attention_forward,
    relative_error,
)
from attnio.algorithms.resident_fused import fused_resident_backward, fused_resident_forward
from attnio.algorithms.small_cache import small_cache_backward, small_cache_dx
from attnio.algorithms.small_cache_fused import (
    block_maxima_scores,
    score_scale,
    small_cache_fused_backward,
    small_cache_fused_forward,
)
from attnio.algorithms.small_cache_stable import stable_scores, stable_square_tiling_forward
from attnio.algorithms.split_backward import flash2_split_backward
from attnio.algorithms.square_tiling import square_tiling_forward
from attnio.algorithms.standard import standard_backward, standard_forward

__all__ = ["Executor", "Prepare", "attention_inputs", "dx_inputs", "run_standard_forward", "run_standard_backward", "run_flash1_forward",
           "run_flash1_backward", "run_flash2_forward", "run_flash2_backward",
           "run_flash2_split_backward", "run_fused_resident_forward",
           "run_fused_resident_backward", "run_lean_forward", "run_lean_backward",
           "run_square_tiling_forward", "run_small_cache_backward",
           "run_small_cache_fused_forward", "run_small_cache_fused_backward",
           "run_small_cache_dx", "run_small_cache_stable_forward",
           "run_small_cache_stable_backward", "ExecutedError", "compare_outputs",
           "EXECUTE_RTOL"]

#: Relative tolerance of an executed run (the threshold every executed check used).
EXECUTE_RTOL = 1e-10


class ExecutedError(float):
    r"""The largest relative error of a run's outputs (the float value), plus the absolute
    error and the tolerance verdict.

    Attributes: ``absolute`` — :math:`\max_X \max|\text{got}_X - \text{expected}_X|` over the
    outputs X (O; or dQ, dK, dV; or g); ``scale`` — the pass's output scale
    :math:`s = \max_X \max|\text{expected}_X|` (the gradient scale of a backward pass);
    ``atol = rtol·s``; ``within`` — every output X has
    :math:`\max|\text{got}_X - \text{expected}_X| \le \text{atol} + \text{rtol}\cdot
    \max|\text{expected}_X|`.

    Why this tolerance: the float value, relative to each output's own ``max|expected|``, is
    meaningless when an output is 0 in exact arithmetic (``--mask window:1``: dQ = dK = 0,
    computed as rounding residue of ~1e-16, "relative error" 1.0 or 1.5). Such an output is
    the rounding residue of the products that form the pass's other outputs (dS = P∘(dP − D)
    cancels to ~1e-16·|dO||V|), so it is measured against one scale for the whole pass, the
    largest expected entry of any output. ``rtol = 1e-10`` (:data:`EXECUTE_RTOL`) is the
    threshold every executed check already used, about 10⁶ units of float64 roundoff. The
    verdict is exactly this inequality: no output is exempt, and a NaN anywhere fails.
    """

    absolute: float
    scale: float
    atol: float
    rtol: float
    within: bool

    def __new__(cls, relative: float, absolute: float, scale: float, within: bool,
                rtol: float = EXECUTE_RTOL) -> "ExecutedError":
        obj = super().__new__(cls, relative)
        obj.absolute, obj.scale, obj.rtol = float(absolute), float(scale), float(rtol)
        obj.atol, obj.within = rtol * float(scale), bool(within)
        return obj


def compare_outputs(pairs: list[tuple[np.ndarray, np.ndarray]],
                    rtol: float = EXECUTE_RTOL) -> ExecutedError:
    """The :class:`ExecutedError` of ``(got, expected)`` output pairs.

    >>> e = compare_outputs([(np.array([1e-16, 0.0]), np.zeros(2)), (np.ones(2), np.ones(2))])
    >>> float(e) > 0.5, e.absolute, e.scale, e.within        # dQ = 0 up to rounding: within
    (True, 1e-16, 1.0, True)
    >>> compare_outputs([(np.array([1e-6, 0.0]), np.zeros(2)), (np.ones(2), np.ones(2))]).within
    False
    """
    relative = max(relative_error(got, want) for got, want in pairs)
    errors = [float(np.abs(got - want).max(initial=0.0)) for got, want in pairs]
    sizes = [float(np.abs(want).max(initial=0.0)) for _, want in pairs]
    scale = max(sizes)
    within = all(err <= rtol * scale + rtol * size for err, size in zip(errors, sizes))
    absolute = float("nan") if any(np.isnan(e) for e in errors) else max(errors)
    return ExecutedError(relative, absolute, scale, within, rtol)

#: ``run(mem, n, d, blocks, rng, mask, tau) -> max relative error`` (an :class:`ExecutedError`).
Executor = Callable[[TwoLevelMemory, int, int, Mapping[str, int], np.random.Generator,
                     Optional[np.ndarray], float], float]


def attention_inputs(rng: np.random.Generator, n: int, d: int) -> dict[str, np.ndarray]:
    """The inputs every attention executor draws from ``rng``: Q, K, V, dO (n×d, float64, in
    that order), Q and K scaled by d^(-1/4) so that the scores QKᵀ have unit variance
    (exp() stays far from overflow at τ = 1; the logits τQKᵀ scale with ``tau``).

    >>> x = attention_inputs(np.random.default_rng(0), 4, 3)
    >>> sorted(x), x["Q"].shape
    (['K', 'Q', 'V', 'dO'], (4, 3))
    """
    scale = d ** -0.25
    return {"Q": scale * rng.standard_normal((n, d)), "K": scale * rng.standard_normal((n, d)),
            "V": rng.standard_normal((n, d)), "dO": rng.standard_normal((n, d))}


def dx_inputs(rng: np.random.Generator, n: int, d: int, tau: float = 1.0
              ) -> dict[str, np.ndarray]:
    """The inputs of ``small-cache-dx``: A1, A2, A3, E (n×d), X, Y (d×d), X scaled by
    ``tau`` (so the logits A1·X·A2ᵀ are; no mask)."""
    s = d ** -0.5
    arrays = {"A1": s * rng.standard_normal((n, d)), "A2": s * rng.standard_normal((n, d)),
              "A3": s * rng.standard_normal((n, d)), "E": rng.standard_normal((n, d)),
              "X": s * rng.standard_normal((d, d)), "Y": s * rng.standard_normal((d, d))}
    arrays["X"] = tau * arrays["X"]
    return arrays


def _masking(mask: np.ndarray | None, tau: float) -> dict[str, Any]:
    """The ``mask=``/``tau=`` keywords of a masked algorithm (none for the unmasked run)."""
    return {} if mask is None and tau == 1.0 else {"mask": mask, "tau": tau}


def _flash_blocks(blocks: Mapping[str, int]) -> dict[str, Any]:
    return {"block_rows": blocks["B_r"], "block_cols": blocks["B_c"]}


def _fused_blocks(blocks: Mapping[str, int]) -> dict[str, Any]:
    return dict(blocks)


def _blocks(blocks: Mapping[str, int]) -> dict[str, Any]:
    """The block sizes as keyword arguments (typed ``Any`` beside ``mask`` and ``tau``)."""
    return dict(blocks)


def _inputs_in_slow(mem: TwoLevelMemory, rng: np.random.Generator, n: int, d: int,
                    mask: np.ndarray | None, tau: float
                    ) -> tuple[dict[str, np.ndarray], ForwardResult]:
    """Draw the inputs (:func:`attention_inputs`), form the reference forward, and place Q,
    K, V in slow memory: the start of every executor, forward and backward."""
    x = attention_inputs(rng, n, d)
    ref = attention_forward(x["Q"], x["K"], x["V"], tau=tau, mask=mask)
    for name in "QKV":
        mem.add_slow(name, x[name])
    return x, ref


def _forward(run: Callable[[TwoLevelMemory, Mapping[str, int], dict[str, Any]], None]
             ) -> Executor:
    def execute(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                rng: np.random.Generator, mask: np.ndarray | None = None,
                tau: float = 1.0) -> float:
        x, ref = _inputs_in_slow(mem, rng, n, d, mask, tau)
        run(mem, blocks, _masking(mask, tau))
        return compare_outputs([(mem.slow["O"], ref.O)])
    return execute


#: ``prepare(mem, inputs, reference forward, mask, tau, blocks)``: place in slow memory what
#: the algorithm's forward pass leaves there.
Prepare = Callable[[TwoLevelMemory, dict[str, np.ndarray], ForwardResult, Optional[np.ndarray],
                    float, Mapping[str, int]], None]


def _backward(prepare: Prepare,
              run: Callable[[TwoLevelMemory, Mapping[str, int], dict[str, Any]], None]
              ) -> Executor:
    def execute(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                rng: np.random.Generator, mask: np.ndarray | None = None,
                tau: float = 1.0) -> float:
        x, ref = _inputs_in_slow(mem, rng, n, d, mask, tau)
        mem.add_slow("O", ref.O)
        mem.add_slow("dO", x["dO"])
        prepare(mem, x, ref, mask, tau, blocks)
        run(mem, blocks, _masking(mask, tau))
        expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"], tau=tau, mask=mask)
        return compare_outputs([(mem.slow[name], value)
                                for name, value in zip(("dQ", "dK", "dV"), expected)])
    return execute


def _keep_P(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
            mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
    mem.add_slow("P", ref.P)


def _keep_row_stats(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                    mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
    mem.add_slow("l", ref.row_sum)
    mem.add_slow("m", ref.row_max)


def _keep_logsumexp(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                    mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
    mem.add_slow("L", ref.logsumexp)


def _keep_scores(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                 mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
    """Saha–Ye's forward left A = exp(τQKᵀ) (0 where masked) and ℓ = A·1."""
    A = np.exp(tau * (x["Q"] @ x["K"].T))
    if mask is not None:
        A = np.where(mask, A, 0.0)
    mem.add_slow("A", A)
    mem.add_slow("l", A.sum(axis=1))


def _keep_stable_scores(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                        mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
    """The stable forward left A = exp(τQKᵀ − m) (m the row maxima; 0 where masked) and
    ℓ = A·1 (:func:`~attnio.algorithms.small_cache_stable.stable_scores`)."""
    A, ell = stable_scores(tau * (x["Q"] @ x["K"].T), mask)
    mem.add_slow("A", A)
    mem.add_slow("l", ell)


def _keep_block_maxima(width: str) -> Prepare:
    """The stable storage of the fused forms (A = exp(τQKᵀ − t) on stored blocks of the
    width ``blocks[width]``, their maxima t, the logsumexp L:
    :func:`~attnio.algorithms.small_cache_fused.block_maxima_scores`)."""
    def prepare(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
        n = x["Q"].shape[0]
        A, t, L = block_maxima_scores(tau * (x["Q"] @ x["K"].T), min(blocks[width], n), mask)
        for name, value in (("A", A), ("t", t), ("L", L)):
            mem.add_slow(name, value)
    return prepare


def _keep_block_scales(width: str) -> Prepare:
    """small-cache-fused's stable storage: A = exp(τQKᵀ − t) on stored blocks of the width
    ``blocks[width]`` and the block scales g = exp(t − L)."""
    def prepare(mem: TwoLevelMemory, x: dict[str, np.ndarray], ref: ForwardResult,
                mask: np.ndarray | None, tau: float, blocks: Mapping[str, int]) -> None:
        n = x["Q"].shape[0]
        A, t, L = block_maxima_scores(tau * (x["Q"] @ x["K"].T), min(blocks[width], n), mask)
        mem.add_slow("A", A)
        mem.add_slow("g", score_scale(t, L[:, None]))
    return prepare


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
run_flash2_split_backward = _backward(
    _keep_logsumexp, lambda mem, b, kw: flash2_split_backward(mem, **_blocks(b), **kw))
run_lean_forward = _forward(lambda mem, b, kw: lean_forward(mem, **_blocks(b), **kw))
run_lean_backward = _backward(_keep_logsumexp, lambda mem, b, kw: lean_backward(mem, **_blocks(b), **kw))
run_fused_resident_forward = _forward(
    lambda mem, b, kw: fused_resident_forward(mem, **_blocks(b), **kw))
run_fused_resident_backward = _backward(
    _keep_block_maxima("w"), lambda mem, b, kw: fused_resident_backward(mem, **_blocks(b), **kw))
run_small_cache_backward = _backward(
    _keep_scores, lambda mem, b, kw: small_cache_backward(mem, block=b["B"], **kw))
run_small_cache_stable_forward = _forward(
    lambda mem, b, kw: stable_square_tiling_forward(mem, block=b["B"], **kw))
run_small_cache_stable_backward = _backward(
    _keep_stable_scores, lambda mem, b, kw: small_cache_backward(mem, block=b["B"], **kw))
run_small_cache_fused_backward = _backward(
    _keep_block_scales("c1"),
    lambda mem, b, kw: small_cache_fused_backward(mem, **_fused_blocks(b), **kw))


def run_small_cache_dx(mem: TwoLevelMemory, n: int, d: int, blocks: Mapping[str, int],
                       rng: np.random.Generator, mask: np.ndarray | None = None,
                       tau: float = 1.0) -> float:
    """Algorithm 6 for the paper's dL/dX = A1ᵀ p A2 against Alman–Song's untiled gradient
    (inputs A1, A2, A3, E of n×d and X, Y of d×d, :func:`dx_inputs`; no mask; ``tau``
    scales X, hence the logits A1·X·A2ᵀ)."""
    arrays = dx_inputs(rng, n, d, tau)
    for name, value in arrays.items():
        mem.add_slow(name, value)
    small_cache_dx(mem, block=blocks["B"])
    dX, _ = alman_song_gradients(*(arrays[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
    return compare_outputs([(mem.slow["g"], dX)])
