r"""Numerical stability is part of an algorithm's record: finite for every finite logit, or not.

Every record of :mod:`attnio.algorithms.registry` declares, per pass, ``finite_logits`` — its
outputs stay finite (and equal the reference's) for every finite logit :math:`\tau q_i\cdot
k_j` in float64 — and a one-line ``stability`` reason. A pass is finite when the softmax is
formed with a row maximum subtracted before every exp (so no exponent is positive); it is not
when it stores or reads :math:`\exp(\tau QK^\top)` raw (Saha–Ye's storage, arXiv 2402.07443):
:math:`e^{709.8}` is the largest float64, so :math:`A` is inf once a logit passes ≈ 709, and
:math:`P = A/\ell` is then NaN (0/0 where every entry of a row underflows instead).

:func:`stability_mismatch` executes one pass of one record — the record's own executor under
the memory model, :func:`attnio.algorithms.simulation.simulate` with ``execute=True`` — on its
seeded inputs with the softmax scale τ chosen so that the largest logit magnitude is exactly
:data:`LOGIT_BOUND` (:func:`logit_scale`), and checks the declaration both ways:

* declared finite — the run is within the executed tolerance of the reference
  (:class:`~attnio.algorithms.executors.ExecutedError`: every output within
  :math:`10^{-10}` of the pass's scale) and its counts equal the closed form;
* declared not finite — some output is inf or NaN.

The reference itself (:mod:`attnio.algorithms.reference`) subtracts the row maximum, so it is
finite at these logits (checked here, before anything is blamed on an algorithm). A record
whose printed blocks never fit (``flash1-published``'s backward) is run with the fitted blocks
of the same schedule (its executor is FlashAttention-1's), and only its numerics are checked.

Examples
--------
>>> from attnio.algorithms.registry import get_algorithm
>>> run = execute_at_logits("square-tiling", "forward", 13, 3, 90)
>>> run.max_logit, run.finite
(10000.0, False)
>>> stability_mismatch(get_algorithm("square-tiling"), "forward") is None
True
>>> execute_at_logits("small-cache-fused", "backward", 13, 3, 90).within_tolerance
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from attnio.algorithms.executors import attention_inputs, dx_inputs
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import alman_song_gradients, attention_backward
from attnio.algorithms.registry import AlgorithmSpec, get_algorithm
from attnio.algorithms.simulation import simulate
from attnio.exceptions import CacheOverflowError

__all__ = ["LOGIT_BOUND", "STABILITY_SIZES", "StabilityRun", "logit_scale",
           "execute_at_logits", "stability_mismatch"]

#: The largest logit magnitude |τ q·k| every declaration is executed at (issue 35: 10⁴).
LOGIT_BOUND = 1e4
#: Small (n, d, M) at which every registered block rule fits (but printed blocks), n not a
#: multiple of the blocks.
STABILITY_SIZES = ((13, 3, 90), (20, 8, 300))


@dataclass(frozen=True)
class StabilityRun:
    """One executed pass at large logits.

    ``finite``: every output entry finite (``max_absolute_error`` finite);
    ``within_tolerance`` / ``closed_form_match``: as in
    :class:`~attnio.algorithms.simulation.SimulationResult` (``closed_form_match`` None when
    the printed blocks did not fit and the fitted ones ran).
    """

    algorithm: str
    pass_: str
    n: int
    d: int
    M: int
    tau: float
    max_logit: float
    finite: bool
    within_tolerance: bool
    closed_form_match: bool | None
    max_absolute_error: float


def _scores(name: str, n: int, d: int, seed: int, tau: float = 1.0) -> np.ndarray:
    """The logits the executor of ``name`` forms from its seeded inputs at scale τ."""
    rng = np.random.default_rng(seed)
    if get_algorithm(name).backward_computation == "dX" and "forward" not in \
            get_algorithm(name).passes:
        x = dx_inputs(rng, n, d, tau)
        return x["A1"] @ x["X"] @ x["A2"].T
    x = attention_inputs(rng, n, d)
    return tau * (x["Q"] @ x["K"].T)


def logit_scale(name: str, n: int, d: int, seed: int = 0, target: float = LOGIT_BOUND) -> float:
    """τ with max |logit| = ``target`` exactly on the executor's inputs at ``seed``.

    >>> abs(logit_scale("flash2", 13, 3) * float(np.abs(_scores("flash2", 13, 3, 0)).max()) - 1e4) < 1e-9
    True
    """
    return target / float(np.abs(_scores(name, n, d, seed)).max())


def _reference_finite(name: str, n: int, d: int, seed: int, tau: float) -> bool:
    rng = np.random.default_rng(seed)
    if get_algorithm(name).backward_computation == "dX" and "forward" not in \
            get_algorithm(name).passes:
        x = dx_inputs(rng, n, d, tau)
        outs: tuple[np.ndarray, ...] = alman_song_gradients(
            *(x[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
    else:
        x = attention_inputs(rng, n, d)
        outs = attention_backward(x["Q"], x["K"], x["V"], x["dO"], tau=tau)
    return all(bool(np.isfinite(o).all()) for o in outs)


def execute_at_logits(name: str, pass_: str, n: int, d: int, M: int, *, seed: int = 0,
                      target: float = LOGIT_BOUND) -> StabilityRun:
    """Execute ``name``'s ``pass_`` at (n, d, M) with logits up to ``target`` in magnitude.

    Raises
    ------
    AssertionError
        If the reference itself is not finite at these logits (then nothing can be blamed on
        the algorithm).
    """
    tau = logit_scale(name, n, d, seed, target)
    peak = float(np.abs(_scores(name, n, d, seed, tau if _is_dx(name) else 1.0)).max()) * (
        1.0 if _is_dx(name) else tau)
    if not _reference_finite(name, n, d, seed, tau):
        raise AssertionError(f"the reference is not finite at logits up to {target:g}")
    spec = get_algorithm(name)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # the overflows
        return _execute(spec, pass_, n, d, M, seed, tau, peak)


def _execute(spec: AlgorithmSpec, pass_: str, n: int, d: int, M: int, seed: int, tau: float,
             peak: float) -> StabilityRun:
    name = spec.name
    try:
        r = simulate(name, pass_, n, d, M, execute=True, seed=seed, tau=tau)
        match: bool | None = r.closed_form_match
        within, absolute = bool(r.within_tolerance), float(r.max_absolute_error or 0.0)
    except CacheOverflowError:  # printed blocks that never fit: the schedule's fitted ones
        fitted = replace(spec.block_rule, variant="fitted").blocks(pass_, n, d, M)
        mem = TwoLevelMemory(M)
        error = spec.executor(pass_)(mem, n, d, fitted, np.random.default_rng(seed), None, tau)
        match, within = None, bool(getattr(error, "within", float(error) <= 1e-10))
        absolute = float(getattr(error, "absolute", error))
    return StabilityRun(name, pass_, n, d, M, tau, round(peak, 6), math.isfinite(absolute),
                        within, match, absolute)


def _is_dx(name: str) -> bool:
    spec = get_algorithm(name)
    return spec.backward_computation == "dX" and "forward" not in spec.passes


def stability_mismatch(spec: AlgorithmSpec, pass_: str, *, sizes: tuple[tuple[int, int, int],
                       ...] = STABILITY_SIZES, seed: int = 0,
                       target: float = LOGIT_BOUND) -> str | None:
    """None when ``spec``'s declaration ``finite_logits[pass_]`` holds when executed (module
    docstring) at every size of ``sizes``; else what contradicts it.

    The executor and block rule are the registered algorithm's (``spec.name``); the
    declaration is ``spec``'s — so a record with a planted wrong declaration is caught.
    """
    declared = spec.finite(pass_)
    for n, d, M in sizes:
        run = execute_at_logits(spec.name, pass_, n, d, M, seed=seed, target=target)
        where = f"{spec.name} {pass_} at (n, d, M) = ({n}, {d}, {M}), logits up to {target:g}"
        if declared and not (run.within_tolerance and run.closed_form_match is not False):
            return (f"{where}: declared finite, but max |error| = {run.max_absolute_error:.3g} "
                    f"(within tolerance: {run.within_tolerance}, closed form: "
                    f"{run.closed_form_match})")
        if not declared and run.finite:
            return (f"{where}: declared to overflow, but every output stayed finite "
                    f"(max |error| = {run.max_absolute_error:.3g})")
    return None
