r"""The two-level memory model: a slow memory of named arrays and a fast memory of M words.

This is the machine of Hong & Kung (1981) as used by Saha & Ye (arXiv 2402.07443, §2) and
FlashAttention (arXiv 2205.14135, §3.2 "HBM accesses"), made executable:

* **slow memory** holds named NumPy arrays (unbounded);
* **fast memory** holds named *tiles*; the number of resident words never exceeds ``M``;
* :meth:`TwoLevelMemory.load` copies a slice of a slow array into a tile
  (``reads += words``), :meth:`TwoLevelMemory.store` copies a tile back
  (``writes += words``), :meth:`TwoLevelMemory.allocate` creates a tile without I/O
  (an accumulator set to a constant on chip), :meth:`TwoLevelMemory.free` drops tiles;
* arithmetic happens only through :meth:`TwoLevelMemory.compute`, whose operands and result
  must all be resident tiles; the caller states the FLOPs of the step and they are added up.

One word = one matrix entry (B = 1, no cache lines). Counts are Python ``int`` s.
A load or allocation that would exceed ``M`` raises
:class:`~attnio.exceptions.CacheOverflowError` naming the tile, its shape and the sizes: an
algorithm whose tiles do not fit is a finding, not something to hide.

Examples
--------
>>> import numpy as np
>>> mem = TwoLevelMemory(M=8)
>>> mem.add_slow("x", np.arange(6.0).reshape(2, 3))
>>> mem.load("x0", "x", (slice(0, 2), slice(0, 2)))
>>> mem.allocate("acc", (2,))
>>> mem.compute("acc", ("x0",), lambda x: x.sum(axis=1), flops=2)
>>> mem.tile("acc").tolist()
[1.0, 7.0]
>>> mem.new_slow("y", (2,))
>>> mem.store("acc", "y", slice(0, 2))
>>> mem.free("x0", "acc")
>>> mem.reads, mem.writes, mem.flops, mem.peak_words
(4, 2, 2, 6)
>>> mem.load("too_big", "x", (slice(0, 2), slice(0, 3)))
>>> mem.load("more", "x", (slice(0, 1), slice(0, 3)))
Traceback (most recent call last):
...
attnio.exceptions.CacheOverflowError: loading tile 'more' (1x3 = 3 words) would hold 9 words in a fast memory of M=8 words (6 already resident: 'too_big' 2x3)
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from attnio.exceptions import CacheOverflowError, IllegalMoveError
from attnio.validation import positive_int

__all__ = ["TwoLevelMemory", "Index"]

#: A slice of a slow array: one ``slice`` for a vector, a ``(rows, cols)`` pair for a matrix.
Index = slice | tuple[slice, slice]


def _shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(str(s) for s in shape) if shape else "scalar"


class TwoLevelMemory:
    """Slow memory of named arrays plus a fast memory that never holds more than ``M`` words.

    Parameters
    ----------
    M : int
        Fast-memory capacity in words (matrix entries), ``M >= 1``.

    Attributes
    ----------
    reads, writes : int
        Words moved slow→fast and fast→slow so far.
    flops : int
        Arithmetic operations declared by :meth:`compute` so far.
    peak_words : int
        Largest number of words ever resident in fast memory at once (always ``<= M``).

    Raises
    ------
    InvalidInputError
        If ``M`` is not a positive integer.
    """

    def __init__(self, M: int) -> None:
        self.M: int = positive_int("M", M)
        self.slow: dict[str, np.ndarray] = {}
        self._fast: dict[str, np.ndarray] = {}
        self._resident: int = 0
        self.reads: int = 0
        self.writes: int = 0
        self.flops: int = 0
        self.peak_words: int = 0

    @classmethod
    def with_random_inputs(cls, M: int, shape: tuple[int, ...], *, seed: int,
                           names: Sequence[str] = "QKV", scale: float = 1.0) -> "TwoLevelMemory":
        """A memory of ``M`` words whose slow memory holds, for each of ``names`` in order,
        ``scale`` times an array of ``shape`` standard normals drawn from
        ``numpy.random.default_rng(seed)`` (the inputs the examples and tests run on).

        >>> mem = TwoLevelMemory.with_random_inputs(8, (2, 3), seed=0)
        >>> sorted(mem.slow), mem.slow["Q"].shape, mem.reads
        (['K', 'Q', 'V'], (2, 3), 0)
        """
        mem = cls(M)
        rng = np.random.default_rng(seed)
        for name in names:
            mem.add_slow(name, scale * rng.standard_normal(shape))
        return mem

    # ---- slow memory -------------------------------------------------------------------------
    def add_slow(self, name: str, array: np.ndarray) -> None:
        """Place an input array in slow memory (no I/O: inputs start there)."""
        self.slow[name] = np.array(array, dtype=np.float64, copy=True)

    def new_slow(self, name: str, shape: tuple[int, ...]) -> None:
        """Reserve an output array in slow memory (no I/O; contents undefined until stored)."""
        self.slow[name] = np.full(shape, np.nan)

    def fill_slow(self, name: str, shape: tuple[int, ...], value: float) -> None:
        """Initialise a slow array to ``value``, charged as one write per word.

        This is the "initialise ... in HBM" line of FlashAttention's listings: the constant has
        to travel from the chip to slow memory, so it costs ``prod(shape)`` writes.
        """
        self.slow[name] = np.full(shape, value, dtype=np.float64)
        self.writes += int(np.prod(shape, dtype=np.int64))

    # ---- fast memory -------------------------------------------------------------------------
    @property
    def resident_words(self) -> int:
        """Words currently held in fast memory."""
        return self._resident

    def _admit(self, tile: str, shape: tuple[int, ...], action: str) -> int:
        if tile in self._fast:
            raise IllegalMoveError(f"tile {tile!r} is already resident", rule="unique tile names")
        words = int(np.prod(shape, dtype=np.int64))
        if self._resident + words > self.M:
            held = ", ".join(f"{k!r} {_shape_text(v.shape)}" for k, v in self._fast.items())
            raise CacheOverflowError(
                f"{action} tile {tile!r} ({_shape_text(shape)} = {words} words) would hold "
                f"{self._resident + words} words in a fast memory of M={self.M} words "
                f"({self._resident} already resident: {held or 'nothing'})"
            )
        self._resident += words
        self.peak_words = max(self.peak_words, self._resident)
        return words

    def load(self, tile: str, array: str, index: Index) -> None:
        """Read ``slow[array][index]`` into a new tile: ``reads += words``."""
        block = self.slow[array][index]
        self.reads += self._admit(tile, block.shape, "loading")
        self._fast[tile] = np.array(block, dtype=np.float64, copy=True)

    def allocate(self, tile: str, shape: tuple[int, ...], fill: float = 0.0) -> None:
        """Create a tile filled with ``fill`` in fast memory (no I/O)."""
        self._admit(tile, tuple(shape), "allocating")
        self._fast[tile] = np.full(shape, fill, dtype=np.float64)

    def store(self, tile: str, array: str, index: Index) -> None:
        """Write a resident tile to ``slow[array][index]``: ``writes += words``."""
        data = self.tile(tile)
        target = self.slow[array]
        if target[index].shape != data.shape:
            raise IllegalMoveError(
                f"tile {tile!r} {_shape_text(data.shape)} does not match {array}{index}",
                rule="store shape",
            )
        target[index] = data
        self.writes += int(data.size)

    def free(self, *tiles: str) -> None:
        """Drop tiles from fast memory (no I/O)."""
        for tile in tiles:
            self._resident -= int(self.tile(tile).size)
            del self._fast[tile]

    def tile(self, name: str) -> np.ndarray:
        """The resident tile ``name`` (raises :class:`IllegalMoveError` if it is not resident)."""
        try:
            return self._fast[name]
        except KeyError:
            raise IllegalMoveError(
                f"tile {name!r} is not resident in fast memory", rule="arithmetic on resident tiles"
            ) from None

    def compute(
        self,
        out: str,
        inputs: Sequence[str],
        fn: Callable[..., np.ndarray],
        *,
        flops: int,
    ) -> None:
        """Set the resident tile ``out`` to ``fn(*resident inputs)`` and count ``flops``.

        ``out`` and every input must be resident; the result must keep ``out``'s shape (the
        step works in place, so it needs no extra fast memory).
        """
        target = self.tile(out)
        value = fn(*(self.tile(name) for name in inputs))
        if np.shape(value) != target.shape:
            raise IllegalMoveError(
                f"compute into {out!r} changed its shape {target.shape} -> {np.shape(value)}",
                rule="in-place compute",
            )
        target[...] = value
        self.flops += int(flops)
