r"""Word-level bit primitives of the compiled kernel (:mod:`attnio.graphs.exact_kernel`).

One ``uint64`` word holds a mask over at most 64 vertices; these functions count and find
its set bits without a Python loop per bit, compiled by numba (the optional extra
``attnio[fast]``). Without numba, :func:`njit` is the identity and they run as plain Python
over NumPy scalars (correct, far too slow for real use).

>>> int(popcount(U64(0b1011))), int(low_index(U64(0b1000))), int(high_index(U64(0b1011)))
(3, 3, 3)
"""

from __future__ import annotations

import numpy as np

__all__ = ["HAVE_NUMBA", "njit", "U64", "ZERO", "ONE", "ALL", "popcount", "low_index",
           "high_index"]

try:  # the optional extra "fast" (prebuilt wheels, no compiler needed)
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised only without the extra
    HAVE_NUMBA = False

    def njit(*args, **kwargs):  # type: ignore[no-redef]
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

U64 = np.uint64
ZERO = np.uint64(0)
ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of a word (SWAR)."""
    x = x - ((x >> U64(1)) & U64(0x5555555555555555))
    x = (x & U64(0x3333333333333333)) + ((x >> U64(2)) & U64(0x3333333333333333))
    x = (x + (x >> U64(4))) & U64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * U64(0x0101010101010101)) >> U64(56))


@njit(cache=True, inline="always")
def low_index(x):
    """Index of the lowest set bit of a nonzero word."""
    return popcount((x & (~x + U64(1))) - U64(1))


@njit(cache=True, inline="always")
def high_index(x):
    """Index of the highest set bit of a nonzero word (binary search: shift the word down by
    32, 16, …, 1 wherever a set bit lies that high, adding up the shifts)."""
    r = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x >> U64(shift):
            x >>= U64(shift)
            r += shift
    return r
