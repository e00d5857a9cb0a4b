r"""The algorithm registry and the one entry point: :func:`simulate` (execute or count).

``simulate(name, pass_, n, d, M)`` returns the closed-form counts
(:mod:`attnio.algorithms.counts`); with ``execute=True`` it runs the tiled algorithm on seeded
random inputs under :class:`~attnio.algorithms.memory.TwoLevelMemory` (which refuses to hold
more than M words), compares its outputs with the untiled reference
(:mod:`attnio.algorithms.reference`) and reports the executed counts, the maximum relative
error and whether the executed counts equal the closed form.

CLI names (``attnio simulate --algorithm``): ``standard``, ``flash1``, ``flash2``,
``square-tiling`` (Saha–Ye, forward only), ``small-cache`` (forward: Saha–Ye; backward:
Algorithm 6, RECONSTRUCTED), plus ``small-cache-dx`` (Algorithm 6 for the paper's dL/dX,
backward only) and ``flash1-published`` (FA-1 with its printed block sizes, which overflow M).

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

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

import numpy as np

from attnio.algorithms import counts as C
from attnio.algorithms.flash import flash1_backward, flash1_forward, flash2_backward, flash2_forward
from attnio.algorithms.masks import Mask
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import (
    alman_song_gradients,
    attention_backward,
    attention_forward,
    relative_error,
)
from attnio.algorithms.small_cache import small_cache_backward, small_cache_dx
from attnio.algorithms.small_cache_fused import (
    fused_block_sizes,
    small_cache_fused_backward,
    small_cache_fused_forward,
)
from attnio.algorithms.square_tiling import square_tiling_forward
from attnio.algorithms.standard import standard_backward, standard_forward
from attnio.exceptions import CacheOverflowError, InvalidInputError
from attnio.validation import check_name, check_seed, describe, positive_int

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
    "check_execute_budget",
]

#: Memory budget of ``execute=True`` (bytes). Executing keeps float64 n×n matrices (scores,
#: probabilities, the reference gradients): :func:`execute_memory_estimate` is checked against
#: this budget before any array is allocated; counting (the default) needs no arrays at all.
MAX_EXECUTE_BYTES = 2**30

PASSES = ("forward", "backward")

#: CLI name → one-line description.
ALGORITHMS: dict[str, str] = {
    "standard": "unfused attention, S, P, dP, dS in slow memory, square tiles B=floor(sqrt(M/4)) "
                "(FlashAttention Alg. 0 / Alg. 3)",
    "flash1": "FlashAttention-1 forward Alg. 1 / backward Alg. 4, fitted block sizes "
              "(the I/O-optimal B_r, B_c whose tiles fit in M words)",
    "flash2": "FlashAttention-2 loop orders (forward Q-outer, backward KV-outer), fitted blocks",
    "square-tiling": "Saha-Ye SquareTilingAttention forward, B=floor(sqrt(M/4)) (forward only)",
    "small-cache": "forward: Saha-Ye square tiling; backward: Algorithm 6 for dQ, dK, dV "
                   "(RECONSTRUCTED), B=floor(sqrt(M/4))",
    "small-cache-fused": "Saha-Ye forward / Algorithm 6 backward with rank-1 streamed tiles of "
                         "searched sides: one accumulator per n x n tile, output-stationary "
                         "products (ours)",
    "small-cache-dx": "Algorithm 6 for the paper's dL/dX = A1^T p A2 (RECONSTRUCTED, backward only)",
    "flash1-published": "FlashAttention-1 with the printed B_c=ceil(M/4d), B_r=min(B_c,d) "
                        "(overflows M: reported as CacheOverflowError)",
    "flash2-gqa": "FlashAttention-2 loop orders on each K/V group, the group's query heads "
                  "stacked: K/V tiles stay resident while all its query heads stream (ours; "
                  "one head: flash2; many heads: attnio.algorithms.heads)",
}

#: The algorithms that take ``mask=`` and ``tau=`` (tiles with no kept entry skipped).
MASKED_ALGORITHMS = frozenset({"standard", "flash1", "flash2", "flash1-published",
                               "square-tiling", "small-cache"})

#: (CLI name, pass) → id of the upper bound in :mod:`attnio.symbolic.catalogue`.
BOUND_IDS: dict[tuple[str, str], str] = {
    ("standard", "forward"): "fwd.standard",
    ("standard", "backward"): "bwd.standard",
    ("flash1", "forward"): "fwd.flash1.upper",
    ("flash1", "backward"): "bwd.flash1.upper",
    ("flash1-published", "forward"): "fwd.flash1.upper",
    ("flash1-published", "backward"): "bwd.flash1.upper",
    ("flash2", "forward"): "fwd.flash1.upper",
    ("flash2", "backward"): "bwd.flash1.upper",
    ("flash2-gqa", "forward"): "fwd.flash1.upper",
    ("flash2-gqa", "backward"): "bwd.flash1.upper",
    ("square-tiling", "forward"): "fwd.square_tiling.upper",
    ("small-cache", "forward"): "fwd.square_tiling.upper",
    ("small-cache", "backward"): "bwd.alg6.upper",
    ("small-cache-dx", "backward"): "bwd.alg6.upper",
    ("small-cache-fused", "backward"): "bwd.alg6.upper",
    ("small-cache-fused", "forward"): "fwd.square_tiling.upper",
}

_COUNTERS: dict[tuple[str, str], Callable[[int, int, int], C.Counts]] = {
    ("standard", "forward"): C.count_standard_forward,
    ("standard", "backward"): C.count_standard_backward,
    ("flash1", "forward"): C.count_flash1_forward,
    ("flash1", "backward"): C.count_flash1_backward,
    ("flash1-published", "forward"): lambda n, d, M: C.count_flash1_forward(n, d, M, "published"),
    ("flash1-published", "backward"): lambda n, d, M: C.count_flash1_backward(n, d, M, "published"),
    ("flash2", "forward"): C.count_flash2_forward,
    ("flash2", "backward"): C.count_flash2_backward,
    # one head (one group of one query head): the schedule of flash2; groups: algorithms.heads
    ("flash2-gqa", "forward"): C.count_flash2_forward,
    ("flash2-gqa", "backward"): C.count_flash2_backward,
    ("square-tiling", "forward"): C.count_square_tiling_forward,
    ("small-cache", "forward"): C.count_square_tiling_forward,
    ("small-cache", "backward"): C.count_small_cache_backward,
    ("small-cache-dx", "backward"): C.count_small_cache_dx,
    ("small-cache-fused", "backward"): C.count_small_cache_fused_backward,
    ("small-cache-fused", "forward"): C.count_small_cache_fused_forward,
}


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """One run: sizes, exact counts (Python ints) and block sizes; numerics if executed."""

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

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``pass_`` is spelled ``pass``; block sizes as a dict)."""
        out = asdict(self)
        out["pass"] = out.pop("pass_")
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


def check_execute_budget(n: int, d: int) -> None:
    """Refuse execute mode when :func:`execute_memory_estimate` exceeds
    :data:`MAX_EXECUTE_BYTES` (InvalidInputError naming the budget and count mode).

    >>> check_execute_budget(100_000, 64)
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
    check_name("algorithm", algorithm, ALGORITHMS)
    check_name("pass", pass_, PASSES)
    if (algorithm, pass_) not in _COUNTERS:
        raise InvalidInputError(f"algorithm={algorithm!r} has no {pass_} pass")
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
            c = _COUNTERS[(algorithm, pass_)](n, d, M)
        return SimulationResult(algorithm, pass_, n, d, M, c.reads, c.writes, c.io, c.flops,
                                c.peak_fast_words, c.block_sizes)
    if tune:
        raise InvalidInputError("tune=True takes no mask: tuned block sizes are searched for "
                                "unmasked runs only")
    if algorithm not in MASKED_ALGORITHMS:
        raise InvalidInputError(f"algorithm={algorithm!r} takes no mask")
    mask.check(n)
    c = C.count_masked(algorithm, pass_, n, d, M, mask)
    return SimulationResult(algorithm, pass_, n, d, M, c.reads, c.writes, c.io, c.flops,
                            c.peak_fast_words, c.block_sizes, mask=mask.label)


def _block_sizes(algorithm: str, pass_: str, n: int, d: int, M: int) -> dict[str, int]:
    """The block sizes the algorithm will use, without checking that its tiles fit."""
    if algorithm.startswith("flash"):
        version = 2 if algorithm in ("flash2", "flash2-gqa") else 1
        variant = "published" if algorithm == "flash1-published" else "fitted"
        br, bc = C.flash_block_sizes(version, pass_, n, d, M, variant)
        return {"B_r": br, "B_c": bc}
    if algorithm == "small-cache-fused":
        return fused_block_sizes(n, d, M, pass_)
    return {"B": C.square_block(M)}


def _random_inputs(rng: np.random.Generator, n: int, d: int) -> dict[str, np.ndarray]:
    scale = d ** -0.25  # scores QKᵀ of unit variance: exp() stays far from overflow
    return {"Q": scale * rng.standard_normal((n, d)), "K": scale * rng.standard_normal((n, d)),
            "V": rng.standard_normal((n, d)), "dO": rng.standard_normal((n, d))}


def _execute(algorithm: str, pass_: str, n: int, d: int, M: int, blocks: dict[str, int],
             rng: np.random.Generator, mask: np.ndarray | None = None,
             tau: float = 1.0) -> tuple[TwoLevelMemory, float]:
    mem = TwoLevelMemory(M)
    if algorithm == "flash2-gqa":  # one head: the same schedule as flash2
        algorithm = "flash2"
    if algorithm == "small-cache-dx":
        s = d ** -0.5
        arrays = {"A1": s * rng.standard_normal((n, d)), "A2": s * rng.standard_normal((n, d)),
                  "A3": s * rng.standard_normal((n, d)), "E": rng.standard_normal((n, d)),
                  "X": s * rng.standard_normal((d, d)), "Y": s * rng.standard_normal((d, d))}
        for name, value in arrays.items():
            mem.add_slow(name, value)
        small_cache_dx(mem, block=blocks["B"])
        dX, _ = alman_song_gradients(*(arrays[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
        return mem, relative_error(mem.slow["g"], dX)
    x = _random_inputs(rng, n, d)
    ref = attention_forward(x["Q"], x["K"], x["V"], tau=tau, mask=mask)
    for name in "QKV":
        mem.add_slow(name, x[name])
    flash: dict[str, Any] = {"block_rows": blocks.get("B_r", 0),
                             "block_cols": blocks.get("B_c", 0)}
    square: dict[str, Any] = {"block": blocks.get("B", 0)}
    if mask is not None or tau != 1.0:  # only the algorithms of MASKED_ALGORITHMS get here
        flash.update(mask=mask, tau=tau)
        square.update(mask=mask, tau=tau)
    if pass_ == "forward":
        run: dict[str, Callable[[], None]] = {
            "standard": lambda: standard_forward(mem, **square),
            "flash1": lambda: flash1_forward(mem, **flash),
            "flash1-published": lambda: flash1_forward(mem, **flash),
            "flash2": lambda: flash2_forward(mem, **flash),
            "square-tiling": lambda: square_tiling_forward(mem, **square),
            "small-cache": lambda: square_tiling_forward(mem, **square),
            "small-cache-fused": lambda: small_cache_fused_forward(mem, **blocks),
        }
        run[algorithm]()
        return mem, relative_error(mem.slow["O"], ref.O)
    mem.add_slow("O", ref.O)
    mem.add_slow("dO", x["dO"])
    if algorithm == "standard":
        mem.add_slow("P", ref.P)
        standard_backward(mem, **square)
    elif algorithm in {"flash1", "flash1-published"}:
        mem.add_slow("l", ref.row_sum)
        mem.add_slow("m", ref.row_max)
        flash1_backward(mem, **flash)
    elif algorithm == "flash2":
        mem.add_slow("L", ref.logsumexp)
        flash2_backward(mem, **flash)
    else:  # small-cache: Saha–Ye's forward left A = exp(τQKᵀ) (0 where masked), ℓ = A·1
        A = np.exp(tau * (x["Q"] @ x["K"].T))
        if mask is not None:
            A = np.where(mask, A, 0.0)
        mem.add_slow("A", A)
        mem.add_slow("l", A.sum(axis=1))
        if algorithm == "small-cache-fused":
            small_cache_fused_backward(mem, **blocks)
        else:
            small_cache_backward(mem, **square)
    expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"], tau=tau, mask=mask)
    error = max(relative_error(mem.slow[name], ref_value)
                for name, ref_value in zip(("dQ", "dK", "dV"), expected))
    return mem, error


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
        Softmax scale τ (S = τQKᵀ), executed runs only (the counts do not depend on it).

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
    seed = check_seed(seed)
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not np.isfinite(tau) \
            or tau <= 0:
        raise InvalidInputError(f"tau={tau!r} must be a positive finite number")
    if (mask is not None or tau != 1.0) and algorithm not in MASKED_ALGORITHMS:
        raise InvalidInputError(f"algorithm={algorithm!r} takes no mask and no tau; masked: "
                                f"{', '.join(sorted(MASKED_ALGORITHMS))}")
    if not execute:
        return count(algorithm, pass_, n, d, M, tune=tune, mask=mask)
    n, d, M = _validate(algorithm, pass_, n, d, M)
    check_execute_budget(n, d)
    if tune:
        if mask is not None:
            raise InvalidInputError("tune=True takes no mask")
        from attnio.algorithms.tuning import tuned_blocks

        blocks = tuned_blocks(algorithm, pass_, n, d, M)
    else:
        blocks = _block_sizes(algorithm, pass_, n, d, M)
    mask_array = None if mask is None else mask.array(n)
    # The memory model, not the closed form, must be the one to refuse oversized tiles here.
    mem, error = _execute(algorithm, pass_, n, d, M, blocks, np.random.default_rng(seed),
                          mask_array, float(tau))
    counted = count(algorithm, pass_, n, d, M, tune=tune, mask=mask)
    executed = (mem.reads, mem.writes, mem.flops, mem.peak_words)
    match = executed == (counted.reads, counted.writes, counted.flops, counted.peak_fast_words)
    return SimulationResult(
        algorithm, pass_, counted.n, counted.d, counted.M, mem.reads, mem.writes,
        mem.reads + mem.writes, mem.flops, mem.peak_words, counted.block_sizes,
        executed=True, max_relative_error=error, closed_form_match=match,
        mask=counted.mask, tau=float(tau),
    )


def catalogue_value(algorithm: str, pass_: str, n: int, d: int, M: int) -> Any | None:
    """The symbolic catalogue's bound for this run (an exact sympy number), or None.

    The bound id is :data:`BOUND_IDS` ``[(algorithm, pass_)]``; the value is
    ``get_bound(id).evaluate(n=n, d=d, M=M, check_range=False)`` (the asymptotic expression
    without its constant, so ``io / value`` is the measured constant). None when
    :mod:`attnio.symbolic.catalogue` is not importable.

    >>> catalogue_value("flash1", "backward", n=16, d=4, M=8)
    512
    """
    bound_id = BOUND_IDS.get((algorithm, pass_))
    if bound_id is None:
        return None
    try:
        from attnio.symbolic.catalogue import get_bound
    except ImportError:
        return None
    return get_bound(bound_id).evaluate(check_range=False, n=n, d=d, M=M)


def _cheaper(a: str, b: str, pass_: str, n: int, d: int, M: int, mask: Mask | None = None
             ) -> tuple[str, dict[str, int]] | None:
    """(``a``, ``b`` or ``"tie"``, the two exact I/O counts) at M, or None when either
    algorithm has no admissible tile (or overflows) at M."""
    try:
        io = {a: count(a, pass_, n, d, M, mask=mask).io,
              b: count(b, pass_, n, d, M, mask=mask).io}
    except (InvalidInputError, CacheOverflowError):
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
