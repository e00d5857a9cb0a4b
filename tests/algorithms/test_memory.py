"""The two-level memory: exact counting, the M-word budget, arithmetic only on resident tiles."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.memory import TwoLevelMemory
from attnio.exceptions import CacheOverflowError, IllegalMoveError, InvalidInputError


def _memory(M: int) -> TwoLevelMemory:
    mem = TwoLevelMemory(M)
    mem.add_slow("X", np.arange(12.0).reshape(3, 4))
    return mem


def test_counts_are_python_ints_and_exact() -> None:
    mem = _memory(10)
    mem.load("a", "X", (slice(0, 2), slice(0, 3)))
    mem.allocate("s", (2,))
    mem.compute("s", ("a",), lambda a: a.sum(axis=1), flops=4)
    mem.new_slow("Y", (2,))
    mem.store("s", "Y", slice(0, 2))
    mem.free("a", "s")
    assert (mem.reads, mem.writes, mem.flops, mem.peak_words) == (6, 2, 4, 8)
    assert all(type(v) is int for v in (mem.reads, mem.writes, mem.flops, mem.peak_words))
    assert mem.resident_words == 0
    assert mem.slow["Y"].tolist() == [3.0, 15.0]


def test_exactly_M_words_fit_and_one_more_overflows_naming_the_tile() -> None:
    mem = _memory(8)
    mem.load("row0", "X", (slice(0, 1), slice(0, 4)))
    mem.allocate("acc", (4,))
    assert mem.resident_words == 8 == mem.peak_words
    with pytest.raises(CacheOverflowError, match=r"'extra' \(1 = 1 words\).*9 words.*M=8"):
        mem.allocate("extra", (1,))
    assert mem.resident_words == 8  # the refused tile was not admitted


def test_fill_slow_charges_one_write_per_word() -> None:
    mem = _memory(4)
    mem.fill_slow("Z", (3, 5), 0.0)
    assert mem.writes == 15 and mem.reads == 0


def test_arithmetic_on_a_non_resident_tile_is_refused() -> None:
    mem = _memory(16)
    mem.allocate("out", (2,))
    with pytest.raises(IllegalMoveError, match="'ghost' is not resident"):
        mem.compute("out", ("ghost",), lambda g: g, flops=0)


def test_compute_may_not_grow_a_tile() -> None:
    mem = _memory(16)
    mem.allocate("out", (2,))
    with pytest.raises(IllegalMoveError, match="changed its shape"):
        mem.compute("out", (), lambda: np.zeros(3), flops=0)


def test_duplicate_tile_names_are_refused() -> None:
    mem = _memory(16)
    mem.allocate("t", (1,))
    with pytest.raises(IllegalMoveError, match="already resident"):
        mem.allocate("t", (1,))


@pytest.mark.parametrize("M", [0, -3, 2.5, True])
def test_M_must_be_a_positive_int(M: object) -> None:
    with pytest.raises(InvalidInputError, match="must be a positive integer"):
        TwoLevelMemory(M)  # type: ignore[arg-type]
