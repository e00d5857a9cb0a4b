r"""``--tune``: block sizes chosen by exact integer search for the least I/O under M words.

For each algorithm the search runs over its own block parameters, evaluates the closed-form
counter of :mod:`attnio.algorithms.counts` (exact ints, :math:`O(1)` per evaluation) and
keeps the tile sets whose peak fits in M; the least ``io`` wins, ties to fewer FLOPs, then
the order of the scan. Which algorithms are tuned (``tunable``) and how (their
``block_rule``) is read from :mod:`attnio.algorithms.registry`. Bounded and fast:

* square tiles (``standard``, ``square-tiling``, ``small-cache``; side B): the counts
  depend on B only through the trip counts :math:`\lceil n/B\rceil, \lceil d/B\rceil`
  and the peak grows with B, so the smallest B of each pair of trip counts is tried
  (:func:`~attnio.algorithms.small_cache_fused.trip_count_sides` of n and of d:
  :math:`O(\sqrt n + \sqrt d)` evaluations);
* FlashAttention-1/2 (``flash1``, ``flash2``; outer block, inner block): the I/O depends on
  the blocks only through the outer trip count, which falls as the outer block grows; the
  largest fitting outer block is found by bisection (the peak grows with each side), and
  the 64 largest sides of distinct trip counts up to it are compared exactly, each with
  its largest fitting inner block (:math:`\le \min(d, b)`, bisection);
* ``small-cache-fused``, ``fused-resident``, ``flash2-split`` and ``flash2-lean``: their own
  searches (:func:`~attnio.algorithms.small_cache_fused.fused_block_sizes`,
  :func:`~attnio.algorithms.resident_fused.resident_block_sizes`,
  :func:`~attnio.algorithms.split_backward.split_block_sizes`,
  :func:`~attnio.algorithms.lean_flash.lean_block_sizes`) are already exact, so tuning
  keeps them.

The result is an ordinary :class:`~attnio.algorithms.counts.Counts` (block sizes included);
:func:`attnio.algorithms.simulation.simulate` with ``tune=True`` executes the algorithm with
exactly these blocks under the memory model and checks the closed form against the
executed counts.

Examples
--------
>>> from attnio.algorithms.simulation import count
>>> tuned = tuned_count("small-cache", "backward", 4096, 64, 1024)
>>> tuned.io <= count("small-cache", "backward", 4096, 64, 1024).io
True
>>> tuned_blocks("flash2", "backward", 4096, 64, 16384)
{'B_r': 1, 'B_c': 62}
"""

from __future__ import annotations

import time

from attnio.algorithms import counts
from attnio.algorithms.registry import REGISTRY, AlgorithmSpec, get_algorithm
from attnio.algorithms.small_cache_fused import trip_count_sides
from attnio.exceptions import (
    CacheOverflowError,
    CacheTooSmallError,
    InfeasibleError,
    InvalidInputError,
    TimeLimitReached,
)

__all__ = ["TUNABLE", "TimeLimitReached", "raise_if_past_deadline", "count_with_blocks",
           "tuned_blocks", "tuned_count"]

#: The block-size searches read the clock once every this many candidates.
DEADLINE_STRIDE = 512


def raise_if_past_deadline(deadline: float | None) -> None:
    """Raise :class:`TimeLimitReached` if the :func:`time.monotonic` instant ``deadline`` has
    passed (None: no deadline)."""
    if deadline is not None and time.monotonic() >= deadline:
        raise TimeLimitReached()

#: (algorithm, pass) pairs that ``--tune`` searches (the registry's ``tunable`` records).
TUNABLE = tuple((spec.name, pass_) for spec in REGISTRY.values() if spec.tunable
                for pass_ in spec.passes)


def _tunable(algorithm: str, pass_: str) -> AlgorithmSpec:
    spec = get_algorithm(algorithm)
    if not spec.tunable or pass_ not in spec.passes:
        raise InvalidInputError(f"algorithm={algorithm!r} ({pass_}) has no tunable blocks")
    return spec


def count_with_blocks(algorithm: str, pass_: str, n: int, d: int, M: int,
                      blocks: dict[str, int]) -> counts.Counts:
    """Closed-form counts with the given block sizes; CacheOverflowError if they do not fit.

    >>> count_with_blocks("standard", "forward", 64, 8, 64, {"B": 4}).peak_fast_words
    48
    >>> count_with_blocks("standard", "forward", 64, 8, 64, {"B": 5})
    Traceback (most recent call last):
    ...
    attnio.exceptions.CacheOverflowError: standard forward with block sizes {'B': 5} needs 75 words > M=64
    """
    raw = _tunable(algorithm, pass_).counter(pass_)(n, d, M, blocks)
    return counts.require_fit(raw, M, f"{algorithm} {pass_}")


def _fits(algorithm: str, pass_: str, n: int, d: int, M: int, blocks: dict[str, int]
          ) -> counts.Counts | None:
    try:
        return count_with_blocks(algorithm, pass_, n, d, M, blocks)
    except (CacheOverflowError, InfeasibleError):  # these blocks do not fit M: not a candidate
        return None


def tuned_blocks(algorithm: str, pass_: str, n: int, d: int, M: int, *,
                 deadline: float | None = None) -> dict[str, int]:
    """The block sizes of least exact I/O under M (see the module docstring).

    ``deadline`` (a :func:`time.monotonic` instant) is read every :data:`DEADLINE_STRIDE`
    candidates and each outer block of the flash search.

    Raises
    ------
    InvalidInputError
        Not tunable, or no block size fits M.
    TimeLimitReached
        The deadline passed before the search ended.
    """
    raise_if_past_deadline(deadline)
    rule = _tunable(algorithm, pass_).block_rule
    if rule.kind in ("fused", "resident", "split", "lean"):  # its own search is exact
        return rule.blocks(pass_, n, d, M)
    candidates: list[dict[str, int]] = []
    if rule.kind == "square":
        sides = set(trip_count_sides(n, M)) | set(trip_count_sides(d, M))
        candidates = [{"B": B} for B in sorted(sides)]
    elif rule.kind == "flash":
        q_outer = rule.q_outer(pass_)

        def pair(outer: int, inner: int) -> dict[str, int]:
            return {"B_r": outer, "B_c": inner} if q_outer else {"B_r": inner, "B_c": outer}

        largest, hi = 1, n  # the largest outer block that fits with a one-row inner block
        if _fits(algorithm, pass_, n, d, M, pair(1, 1)) is None:
            raise CacheTooSmallError(f"M={M} is too small for any {algorithm} {pass_} tile set")
        while largest < hi:
            mid = (largest + hi + 1) // 2
            if _fits(algorithm, pass_, n, d, M, pair(mid, 1)) is not None:
                largest = mid
            else:
                hi = mid - 1
        # the I/O falls with the outer trip count; the 64 largest fitting trip-count sides
        # (all of them for small n) are compared exactly
        for outer in trip_count_sides(n, largest)[-64:]:
            raise_if_past_deadline(deadline)
            lo, hi = 1, min(d, outer)
            while lo < hi:  # largest fitting inner block (fewer inner trips, same I/O)
                mid = (lo + hi + 1) // 2
                if _fits(algorithm, pass_, n, d, M, pair(outer, mid)) is not None:
                    lo = mid
                else:
                    hi = mid - 1
            candidates.append(pair(outer, lo))
    else:
        raise InvalidInputError(f"algorithm={algorithm!r} ({pass_}) has no tunable blocks")
    best: tuple[int, int, int] | None = None
    chosen: dict[str, int] | None = None
    for index, blocks in enumerate(candidates):
        if index % DEADLINE_STRIDE == 0:
            raise_if_past_deadline(deadline)
        counts = _fits(algorithm, pass_, n, d, M, blocks)
        if counts is None:
            continue
        key_ = (counts.io, counts.flops, index)
        if best is None or key_ < best:
            best, chosen = key_, blocks
    if chosen is None:
        raise CacheTooSmallError(f"M={M} is too small for any {algorithm} {pass_} tile set")
    return chosen


def tuned_count(algorithm: str, pass_: str, n: int, d: int, M: int, *,
                deadline: float | None = None) -> counts.Counts:
    """Counts at :func:`tuned_blocks` (never more I/O than the default block sizes).

    >>> tuned_count("square-tiling", "forward", 4096, 64, 1024).block_sizes
    (('B', 18),)
    """
    return count_with_blocks(algorithm, pass_, n, d, M,
                             tuned_blocks(algorithm, pass_, n, d, M, deadline=deadline))
