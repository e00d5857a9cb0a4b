r"""Exact cell arithmetic shared by the segment caps of :mod:`attnio.bounds.attention` and
:mod:`attnio.bounds.joint`: integer square roots rounded up, and the cells that cover an
interval :math:`[0, S]` (each cap is a maximum of per-cell bounds); and the prefix sums of
the brute-force segment shapes that check them.

>>> ceil_sqrt(17), segment_cells(10, 4)
(5, [(0, 2), (2, 5), (5, 7), (7, 10)])
"""

from __future__ import annotations

from itertools import accumulate
from math import isqrt
from typing import Iterable

__all__ = ["CELLS", "ceil_sqrt", "segment_cells", "descending_prefix_sums"]


#: Grid cells of :func:`segment_product_cap` (more cells: tighter, slower).
CELLS = 256


def ceil_sqrt(x: int) -> int:
    """:math:`\\lceil\\sqrt x\\rceil` for an int ``x ≥ 0``, exactly.

    >>> ceil_sqrt(0), ceil_sqrt(16), ceil_sqrt(17)
    (0, 4, 5)
    """
    r = isqrt(x)
    return r if r * r == x else r + 1


def segment_cells(S: int, cells: int = CELLS) -> list[tuple[int, int]]:
    r"""The cells :math:`[s_0, s_1]` of :func:`segment_product_cap`: they cover :math:`[0, S]`.

    >>> segment_cells(10, 4)
    [(0, 2), (2, 5), (5, 7), (7, 10)]
    """
    return [(S * i // cells, S * (i + 1) // cells) for i in range(cells)]


def descending_prefix_sums(counts: Iterable[int]) -> list[int]:
    """``[0, c1, c1 + c2, …]`` over ``counts`` sorted largest first: entry c is the most
    leaves c partial pairs of a segment shape can hold (the brute-force tables of
    :mod:`attnio.proofs.attention_routes`, :mod:`attnio.proofs.joint_routes` and
    :mod:`attnio.proofs.witnessed_route`).

    >>> descending_prefix_sums([1, 3, 2])
    [0, 3, 5, 6]
    """
    return [0, *accumulate(sorted(counts, reverse=True))]
