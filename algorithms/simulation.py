r"""The one entry point: :func:`simulate` (execute or count), every algorithm read from the registry.

``simulate(name, pass_, n, d, M)`` returns the closed-form counts
(:mod:`attnio.algorithms.counts`); with ``execute=True`` it runs the tiled algorithm on seeded
random inputs under :class:`~attnio.algorithms.memory.TwoLevelMemory` (which refuses to hold
more than M words), compares its outputs with the untiled reference
(:mod:`attnio.algorithms.reference`) and reports the executed counts, the maximum relative
error and whether the executed counts equal the closed form.

The algorithms (CLI names, passes, counters, executors, block-size rules) are the records of
:mod:`attnio.algorithms.registry`; :data:`ALGORITHMS`, :data:`BOUND_IDS` and
:data:`MASKED_ALGORITHMS` are views of it kept for callers.

Examples
--------
>>> r = simulate("flash1", "backward", n=64, d=8, M=256, execute=True)
>>> r.io == r.reads + r.writes, r.peak_fast_words <= 256, r.closed_form_match
(True, True, True)
>>> r.max_relative_error < 1e-10
True
>>> count("small-cache", "backward", n=4096, d=64, M=1024).io
590614528
>>> measured_crossover(4096, 64, [2 ** k for k in range(8, 17)])
4903
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from attnio.algorithms.masks import Mask
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.registry import PASSES, REGISTRY, get_algorithm
from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError
from attnio.results import JsonFields
from attnio.symbolic.catalogue import get_bound
from attnio.validation import describe, positive_int, validate_name, validate_seed

__all__ = [
    "ALGORITHMS",
    "PASSES",
    "BOUND_IDS",
    "MASKED_ALGORITHMS",
    "SimulationResult",
    "simulate",
    "count",
    "catalogue_value",
    "measured_crossover",
    "find_crossovers",
    "validate_size",
    "MAX_EXECUTE_BYTES",
    "execute_memory_estimate",
    "validate_execute_budget",
]

#: Memory budget of ``execute=True`` (bytes). Executing keeps float64 n×n matrices (scores,
#: probabilities, the reference gradients): :func:`execute_memory_estimate` is checked against
#: this budget before any array is allocated; counting (the default) needs no arrays at all.
MAX_EXECUTE_BYTES = 2**30

#: CLI name → one-line description (derived from :data:`attnio.algorithms.registry.REGISTRY`).
ALGORITHMS: dict[str, str] = {spec.name: spec.description for spec in REGISTRY.values()}

#: The algorithms that take ``mask=`` and ``tau=`` (tiles with no kept entry skipped).
MASKED_ALGORITHMS = frozenset(spec.name for spec in REGISTRY.values() if spec.masked)

#: (CLI name, pass) → id of the upper bound in :mod:`attnio.symbolic.catalogue`.
BOUND_IDS: dict[tuple[str, str], str] = {
    (spec.name, pass_): bound for spec in REGISTRY.values()
    for pass_, bound in spec.bound_ids.items()}


@dataclass(frozen=True, slots=True)
class SimulationResult(JsonFields):
    """One run: sizes, exact counts (Python ints) and block sizes; numerics if executed.

    Executed numerics (:func:`attnio.algorithms.executors.compare_outputs`):
    ``max_relative_error`` (each output against its own max|expected|),
    ``max_absolute_error``, ``error_scale`` s (the largest expected entry of any output),
    ``atol = rtol·s``, ``rtol`` (1e-10) and ``within_tolerance``: every output X has
    max|got − expected| ≤ atol + rtol·max|expected_X| — the verdict ``attnio simulate`` exits
    on, correct when an output is 0 in exact arithmetic.
    """

    algorithm: str
    pass_: str
    n: int
    d: int
    M: int
    reads: int
    writes: int
    io: int
    flops: int
    peak_fast_words: int
    block_sizes: tuple[tuple[str, int], ...]
    executed: bool = False
    max_relative_error: float | None = None
    closed_form_match: bool | None = None
    mask: str = "none"
    tau: float = 1.0
    batch: int = 1
    heads: int = 1
    kv_heads: int = 1
    max_absolute_error: float | None = None
    error_scale: float | None = None
    atol: float | None = None
    rtol: float | None = None
    within_tolerance: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """:meth:`attnio.results.JsonFields.to_json` (``pass_`` is spelled ``pass``; a
        non-finite error is null), with the block sizes as a dict."""
        out = JsonFields.to_json(self)  # explicit: zero-argument super() fails under slots
        out["block_sizes"] = dict(self.block_sizes)
        return out


def validate_size(name: str, value: object) -> int:
    """Return ``value`` if it is a positive int (not a bool), else raise InvalidInputError.

    >>> validate_size("n", 3)
    3
    >>> validate_size("d", 0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: d=0 must be a positive integer
    """
    return positive_int(name, value)


def execute_memory_estimate(n: int, d: int) -> int:
    """Bytes that ``simulate(..., execute=True)`` may hold at (n, d): an upper estimate.

    ``8 * (12 n^2 + 16 n d + 8 d^2)``: float64 words of at most 12 n×n matrices (measured
    peaks are 5.2 to 10.5 n^2 words across the algorithms at n = 512), the n×d operands and
    gradients, the d×d weights of ``small-cache-dx``.

    >>> execute_memory_estimate(1024, 64) // 2**20
    104
    """
    return 8 * (12 * n * n + 16 * n * d + 8 * d * d)


def validate_execute_budget(n: int, d: int) -> None:
    """Refuse execute mode when :func:`execute_memory_estimate` exceeds
    :data:`MAX_EXECUTE_BYTES` (InvalidInputError naming the budget and count mode).

    >>> validate_execute_budget(100_000, 64)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: execute mode at n=100000, d=64 needs about 895 GiB, over the budget MAX_EXECUTE_BYTES=1073741824 (1 GiB); count mode (--count, the default) gives the exact counts without arrays
    """
    need = execute_memory_estimate(n, d)
    if need > MAX_EXECUTE_BYTES:
        raise InvalidInputError(
            f"execute mode at n={n}, d={d} needs about {need / 2**30:.3g} GiB, over the budget "
            f"MAX_EXECUTE_BYTES={MAX_EXECUTE_BYTES} ({MAX_EXECUTE_BYTES / 2**30:g} GiB); count "
            "mode (--count, the default) gives the exact counts without arrays")


def _validate(algorithm: str, pass_: str, n: int, d: int, M: int) -> tuple[int, int, int]:
    validate_name("algorithm", algorithm, ALGORITHMS)
    validate_name("pass", pass_, PASSES)
    get_algorithm(algorithm).bound_id(pass_)  # InvalidInputError: it has no such pass
    return validate_size("n", n), validate_size("d", d), validate_size("M", M)


def count(algorithm: str, pass_: str, n: int, d: int, M: int, *, tune: bool = False,
          mask: Mask | None = None) -> SimulationResult:
    """Closed-form counts of ``algorithm``'s ``pass_`` at (n, d, M); no arithmetic on data.

    ``tune=True``: the block sizes of :func:`attnio.algorithms.tuning.tuned_blocks` (exact
    search for the least I/O under M) instead of the algorithm's default rule (unmasked runs).
    With ``mask`` (:class:`~attnio.algorithms.masks.Mask`), the counts of the masked run
    (:func:`~attnio.algorithms.counts.count_masked`: tiles with no kept entry cost nothing);
    ``mask=None`` is the unmasked algorithm (equal to ``Mask.full()``).

    Raises
    ------
    InvalidInputError
        Unknown algorithm or pass, a size that is not a positive integer, M below every tile.
    CacheOverflowError
        ``flash1-published``: the printed block sizes do not fit in M words.
    """
    n, d, M = _validate(algorithm, pass_, n, d, M)
    if mask is None:
        if tune:
            from attnio.algorithms.tuning import tuned_count

            c = tuned_count(algorithm, pass_, n, d, M)
        else:
            c = get_algorithm(algorithm).counter(pass_)(n, d, M)
        return SimulationResult(algorithm, pass_, n, d, M, c.reads, c.writes, c.io, c.flops,
                                c.peak_fast_words, c.block_sizes)
    if tune:
        raise InvalidInputError("tune=True takes no mask: tuned block sizes are searched for "
                                "unmasked runs only")
    if algorithm not in MASKED_ALGORITHMS:
        raise InvalidInputError(f"algorithm={algorithm!r} takes no mask")
    mask.check(n)
    c = get_algorithm(algorithm).masked_counter(pass_)(n, d, M, mask)
    return SimulationResult(algorithm, pass_, n, d, M, c.reads, c.writes, c.io, c.flops,
                            c.peak_fast_words, c.block_sizes, mask=mask.label)


def simulate(
    algorithm: str, pass_: str, n: int, d: int, M: int, *, execute: bool = False, seed: int = 0,
    tune: bool = False, mask: Mask | None = None, tau: float = 1.0,
) -> SimulationResult:
    """Count (default) or execute ``algorithm``'s ``pass_`` at (n, d, M).

    Parameters
    ----------
    algorithm : str
        A key of :data:`ALGORITHMS`.
    pass_ : {"forward", "backward"}
    n, d, M : int
        Sequence length, head dimension, fast-memory words (positive integers).
    execute : bool
        Run the algorithm on ``numpy.random.default_rng(seed)`` inputs (float64) under the
        memory model, check it against the reference and against the closed form.
    seed : int
        Seed of the input generator.
    tune : bool
        Use the block sizes of :func:`attnio.algorithms.tuning.tuned_blocks` (unmasked runs).
    mask : Mask, optional
        Attention mask (:mod:`attnio.algorithms.masks`); tiles with no kept entry are skipped
        and cost nothing. Not available for ``small-cache-dx``.
    tau : float
        Softmax scale τ (S = τQKᵀ; ``small-cache-dx``: X scaled, so the logits A1·X·A2ᵀ are),
        executed runs only (the counts do not depend on it). Large τ tests stability
        (:mod:`attnio.algorithms.stability`).

    Returns
    -------
    SimulationResult
        Executed counts when ``execute`` (with ``max_relative_error`` and
        ``closed_form_match``), closed-form counts otherwise.

    Raises
    ------
    InvalidInputError
        Bad name, pass, size or seed (``0 <= seed <= 2**64 - 1``); M below every tile of the
        algorithm; with ``execute``, an estimated memory (:func:`execute_memory_estimate`)
        over :data:`MAX_EXECUTE_BYTES`.
    CacheOverflowError
        The algorithm's tiles exceed M (``flash1-published``), naming the tile.
    """
    if not isinstance(execute, bool):
        raise InvalidInputError(f"execute={execute!r} must be True or False")
    seed = validate_seed(seed)
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not np.isfinite(tau) \
            or tau <= 0:
        raise InvalidInputError(f"tau={tau!r} must be a positive finite number")
    if mask is not None and algorithm not in MASKED_ALGORITHMS:
        raise InvalidInputError(f"algorithm={algorithm!r} takes no mask; masked: "
                                f"{', '.join(sorted(MASKED_ALGORITHMS))}")
    if not execute:
        return count(algorithm, pass_, n, d, M, tune=tune, mask=mask)
    n, d, M = _validate(algorithm, pass_, n, d, M)
    validate_execute_budget(n, d)
    if tune:
        if mask is not None:
            raise InvalidInputError("tune=True takes no mask")
        from attnio.algorithms.tuning import tuned_blocks

        blocks = tuned_blocks(algorithm, pass_, n, d, M)
    else:
        blocks = get_algorithm(algorithm).block_sizes(pass_, n, d, M)
    mask_array = None if mask is None else mask.array(n)
    # The memory model, not the closed form, must be the one to refuse oversized tiles here.
    mem = TwoLevelMemory(M)
    error = get_algorithm(algorithm).executor(pass_)(
        mem, n, d, blocks, np.random.default_rng(seed), mask_array, float(tau))
    counted = count(algorithm, pass_, n, d, M, tune=tune, mask=mask)
    numerics = _numerics(error)
    executed = (mem.reads, mem.writes, mem.flops, mem.peak_words)
    match = executed == (counted.reads, counted.writes, counted.flops, counted.peak_fast_words)
    return SimulationResult(
        algorithm, pass_, counted.n, counted.d, counted.M, mem.reads, mem.writes,
        mem.reads + mem.writes, mem.flops, mem.peak_words, counted.block_sizes,
        executed=True, max_relative_error=float(error), closed_form_match=match,
        mask=counted.mask, tau=float(tau), **numerics,
    )


def _numerics(error: float) -> dict[str, Any]:
    """The tolerance fields of an executor's answer (an ExecutedError; a bare float — an
    executor outside this package — gets the relative check ``error <= rtol`` only)."""
    from attnio.algorithms.executors import EXECUTE_RTOL, ExecutedError

    if isinstance(error, ExecutedError):
        return {"max_absolute_error": error.absolute, "error_scale": error.scale,
                "atol": error.atol, "rtol": error.rtol, "within_tolerance": error.within}
    return {"rtol": EXECUTE_RTOL, "within_tolerance": bool(error <= EXECUTE_RTOL)}


def catalogue_value(algorithm: str, pass_: str, n: int, d: int, M: int) -> Any | None:
    """The symbolic catalogue's bound for this run (an exact sympy number), or None.

    The bound id is :data:`BOUND_IDS` ``[(algorithm, pass_)]``; the value is
    ``get_bound(id).evaluate(n=n, d=d, M=M, check_range=False)`` (the asymptotic expression
    without its constant, so ``io / value`` is the measured constant).

    >>> catalogue_value("flash1", "backward", n=16, d=4, M=8)
    512
    """
    bound_id = BOUND_IDS.get((algorithm, pass_))
    if bound_id is None:
        return None
    return get_bound(bound_id).evaluate(check_range=False, n=n, d=d, M=M)


def _cheaper(a: str, b: str, pass_: str, n: int, d: int, M: int, mask: Mask | None = None
             ) -> tuple[str, dict[str, int]] | None:
    """(``a``, ``b`` or ``"tie"``, the two exact I/O counts) at M, or None when either
    algorithm has no admissible tile (or overflows) at M."""
    try:
        io = {a: count(a, pass_, n, d, M, mask=mask).io,
              b: count(b, pass_, n, d, M, mask=mask).io}
    except (InfeasibleError, CacheOverflowError):  # no tile set (or the published one) fits
        return None
    return (a if io[a] < io[b] else b if io[b] < io[a] else "tie"), io


def find_crossovers(a: str, b: str, pass_: str, n: int, d: int,
                    Ms: Iterable[int], mask: Mask | None = None) -> list[dict[str, Any]]:
    """Every swap of the cheaper of ``a`` and ``b`` along the grid ``Ms``, located exactly.

    A *swap* is a pair of consecutive grid points (both admissible for both algorithms)
    ``lo < hi`` such that one algorithm is strictly cheaper at ``lo`` (its exact I/O count,
    :func:`count`, Python ints) and not at ``hi``. Bisection on the integers of ``[lo, hi]``
    keeps that invariant and ends at adjacent ``M - 1, M``: the algorithm ``cheaper_below`` is
    strictly cheaper at ``M - 1`` and not at ``M`` (where ``cheaper_at_M`` is the other one,
    ``"tie"`` or ``"inadmissible"``). Counts move in floor/ceiling steps, so a bracket may hold
    several such points; bisection returns one of them, and ``io_at_M_minus_1`` / ``io_at_M``
    let anyone check it. This is the one crossover search of attnio: ``attnio simulate``, the
    figures and the report all call it (through :func:`measured_crossover` or directly).

    >>> [(c["bracket"], c["M"], c["cheaper_below"]) for c in
    ...  find_crossovers("flash1", "small-cache", "backward", 4096, 64, [4096, 8192])]
    [([4096, 8192], 4903, 'small-cache')]
    """
    for name in (a, b):
        if (name, pass_) not in BOUND_IDS:
            raise InvalidInputError(f"crossover algorithm={describe(name)} has no {pass_} pass")
    grid = [(M, _cheaper(a, b, pass_, n, d, M, mask)) for M in sorted(set(Ms))]
    points = [(M, found) for M, found in grid if found is not None]
    out: list[dict[str, Any]] = []
    for (lo, (w_lo, _)), (hi, (w_hi, _)) in zip(points, points[1:]):
        if w_lo == "tie" or w_hi == w_lo:
            continue
        left, right = lo, hi  # invariant: w_lo strictly cheaper at left, not at right
        while right - left > 1:
            mid = (left + right) // 2
            found = _cheaper(a, b, pass_, n, d, mid, mask)
            if found is not None and found[0] == w_lo:
                left = mid
            else:
                right = mid
        below = _cheaper(a, b, pass_, n, d, right - 1, mask)
        at = _cheaper(a, b, pass_, n, d, right, mask)
        out.append({
            "algorithms": [a, b], "pass": pass_, "bracket": [lo, hi], "M": right,
            "cheaper_below": w_lo,
            "cheaper_at_M": "inadmissible" if at is None else at[0],
            "io_at_M_minus_1": None if below is None else below[1],
            "io_at_M": None if at is None else at[1],
        })
    return out


def measured_crossover(
    n: int, d: int, Ms: Iterable[int], *, large: str = "flash1", small: str = "small-cache",
    mask: Mask | None = None, pass_: str = "backward",
) -> int | None:
    """The exact M at which ``large`` stops moving more words than ``small`` in ``pass_``.

    The first swap of :func:`find_crossovers` along the sorted grid ``Ms`` in which ``small``
    was the strictly cheaper one below: ``small`` is strictly cheaper at ``M - 1`` and
    ``large`` moves no more words at ``M`` (exact I/O counts, bisected between the two grid
    points that bracket the swap). Grid points where either algorithm has no admissible tile
    set are skipped. Returns None if the two do not swap that way within ``Ms``.

    Why not the first grid point past the swap: that answer depends on the grid. At n = 4096,
    d = 64 the report's 8-per-doubling sweep first sees FlashAttention-1 backward win at the
    grid point M = 5,312, while ``attnio simulate --crossover flash1,small-cache`` bisects the
    counts to M = 4,903 (small-cache strictly cheaper at 4,902, not at 4,903; the only swap
    between 3,000 and 12,000). Both now bisect, so every grid that brackets the swap gives
    4,903.

    >>> measured_crossover(4096, 64, [2 ** k for k in range(8, 17)])
    4903
    >>> measured_crossover(512, 16, [64, 128, 256, 512, 1024], pass_="forward",
    ...                    small="square-tiling") is not None
    True
    """
    for swap in find_crossovers(large, small, pass_, n, d, Ms, mask=mask):
        if swap["cheaper_below"] == small:
            return int(swap["M"])
    return None
