r"""A multi-level memory: words moved across every boundary of a hierarchy, and its bounds.

A *hierarchy* is a list of levels, fastest first; each bounded level has a capacity in words
(``capacity_bytes // word_bytes`` when built from bytes and a dtype) and every level a
bandwidth (bytes per second at which it feeds the level above it; ``None`` = not published).
The slowest level is unbounded (the two-level model's slow memory). Boundary ``i`` lies
between level ``i`` and level ``i + 1``.

The model (our modelling choice, stated here because it is a choice)
--------------------------------------------------------------------
* **Capacity above a boundary.** :math:`M_i = c_0 + \dots + c_i`, the total capacity of
  the levels above boundary ``i``. Collapsing levels ``0..i`` into one fast memory and levels
  ``i+1..`` into one slow memory turns any schedule on the hierarchy into a red-blue schedule
  with :math:`M_i` red pebbles whose I/O is exactly the traffic across boundary ``i``.
* **The schedule at each boundary.** The words moved across boundary ``i`` are those of the
  two-level algorithm run with cache :math:`M_i` (:func:`attnio.algorithms.simulation.count`;
  with ``execute=True`` the algorithm is executed under
  :class:`~attnio.algorithms.memory.TwoLevelMemory` of :math:`M_i` words, which refuses to hold
  more: the capacity is enforced at every boundary). This is the simplest sound model: each
  boundary's traffic is that of a real schedule that fits the memory above it.
* **Limits.** The per-boundary schedules are not one nested schedule: a real machine runs one
  kernel whose tiles at level ``i`` are sub-tiles of those at level ``i + 1``; we do not
  check that such a nesting exists (a tiling that is optimal at every level at once need not
  exist). No caching policy beyond what the algorithm's schedule does (no LRU, no
  prefetching, no inclusive/exclusive cache effects), no overlap of compute and transfer:
  the time bound is the sum-free ``max`` over boundaries of ``words × bytes ÷ bandwidth``,
  each boundary on its own. The data of :func:`device_hierarchy` is one SM (one CU): its
  register file and shared memory (merged into one level, since the register file is larger
  than shared memory on every device of the table), then the chip's L2 (and MI300X's
  Infinity Cache), then DRAM — the sequential machine of the paper, not a model of many SMs
  sharing L2 and DRAM (``notes/hardware.md``).

The words across each boundary and the lower bound there: :mod:`attnio.bounds.hierarchy`.

Examples
--------
>>> h = Hierarchy.from_words([("fast", 256, None), ("mid", 4096, 10**12), ("slow", None, 10**11)])
>>> [b.M for b in h.boundaries()]
[256, 4352]
>>> Hierarchy.from_words([("a", 512, None), ("b", 256, 1), ("c", None, 1)])
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: hierarchy capacities not increasing: level 'b' holds 256 words, not more than level 'a' above it (512)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from attnio.algorithms.registry import PASSES, selection
from attnio.algorithms.simulation import SimulationResult
from attnio.exceptions import InvalidInputError
from attnio.results import JsonFields
from attnio.symbolic.devices import find_device
from attnio.validation import describe, positive_int

__all__ = ["MemoryLevel", "Boundary", "Hierarchy", "device_hierarchy", "MAX_LEVELS", "MIN_BANDWIDTH", "transfer_seconds",
           "LEVEL_ALGORITHMS",]

#: Most levels a hierarchy may have.
MAX_LEVELS = 16
#: Least bandwidth (bytes/s) a level may declare. Times are words × bytes ÷ bandwidth in
#: floats: a subnormal bandwidth (``5e-324``) made every time Infinity (a traceback under
#: ``--json``). Real links run at >= 10**3 bytes/s; 1 byte/s keeps every time finite for
#: word counts below 10**300 (:func:`transfer_seconds` checks the rest).
MIN_BANDWIDTH = 1


@dataclass(frozen=True, slots=True)
class MemoryLevel(JsonFields):
    """One level: capacity in words (None: unbounded, the slowest level only), bandwidth in
    bytes/s (None: not published). JSON names the units: ``capacity_words``,
    ``bandwidth_bytes_per_s``."""

    name: str
    capacity: int | None = field(metadata={"json": "capacity_words"})
    bandwidth: int | float | None = field(metadata={"json": "bandwidth_bytes_per_s"})


@dataclass(frozen=True, slots=True)
class Boundary:
    """Boundary ``index`` between ``above`` and ``below``: cache ``M`` = capacity above it;
    ``bandwidth`` = the bandwidth of the level below (bytes/s, None if not published)."""

    index: int
    above: str
    below: str
    M: int
    bandwidth: int | float | None


def _bandwidth(name: str, value: Any) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value \
            or value in (float("inf"), float("-inf")):
        raise InvalidInputError(f"level {name!r}: bandwidth={describe(value)} must be a "
                                "positive finite number of bytes per second or null")
    if value <= 0:
        raise InvalidInputError(f"level {name!r}: bandwidth={describe(value)} is not positive "
                                "(zero bandwidth)" if value == 0 else
                                f"level {name!r}: bandwidth={describe(value)} is not positive")
    if value < MIN_BANDWIDTH:
        raise InvalidInputError(f"level {name!r}: bandwidth={describe(value)} is below "
                                f"MIN_BANDWIDTH={MIN_BANDWIDTH} byte/s (transfer times "
                                "words x bytes / bandwidth must stay finite)")
    return value


def transfer_seconds(words: int | None, word_bytes: int, boundary: Boundary) -> float | None:
    """``words × word_bytes ÷ bandwidth`` in seconds across ``boundary`` (None when the
    bandwidth is not published or ``words`` is None).

    The time must be a finite float (JSON has no Infinity): a count so large that its time
    passes the float range (about 1.8e308 s, e.g. n of 300 digits) is refused with one
    :class:`InvalidInputError` line naming the boundary and the rule, before anything prints.

    >>> transfer_seconds(10**6, 2, Boundary(0, "smem", "hbm", 1024, 2 * 10**12))
    1e-06
    """
    if words is None or boundary.bandwidth is None:
        return None
    try:
        seconds = words * word_bytes / boundary.bandwidth
    except OverflowError:
        seconds = float("inf")
    if not math.isfinite(seconds):
        raise InvalidInputError(
            f"the transfer time of {describe(words, 40)} words across boundary "
            f"{boundary.index} ({boundary.above} | {boundary.below}) is beyond the float range "
            f"(words x {word_bytes} bytes / {boundary.bandwidth:g} bytes/s must be a finite "
            "number of seconds); use smaller sizes or a hierarchy without bandwidths")
    return seconds


@dataclass(frozen=True)
class Hierarchy(JsonFields):
    """Levels fastest first (validated); ``word_bytes`` converts words to bytes for times.
    ``to_json()`` is :class:`attnio.results.JsonFields`' (``levels``, ``word_bytes``,
    ``label``), which :meth:`from_json` reads back."""

    levels: tuple[MemoryLevel, ...]
    word_bytes: int = 2
    label: str = "hierarchy"

    def __post_init__(self) -> None:
        levels = self.levels
        if not 2 <= len(levels) <= MAX_LEVELS:
            raise InvalidInputError(f"a hierarchy has 2 to MAX_LEVELS={MAX_LEVELS} levels, "
                                    f"got {len(levels)}")
        positive_int("word_bytes", self.word_bytes)
        seen: set[str] = set()
        for lvl in levels:
            if not isinstance(lvl.name, str) or not lvl.name.strip() or len(lvl.name) > 80:
                raise InvalidInputError(f"level name {describe(lvl.name)} must be a non-empty "
                                        "string of at most 80 characters")
            if lvl.name in seen:
                raise InvalidInputError(f"level name {lvl.name!r} is used twice")
            seen.add(lvl.name)
            _bandwidth(lvl.name, lvl.bandwidth)
        for lvl in levels[:-1]:
            if lvl.capacity is None:
                raise InvalidInputError(f"level {lvl.name!r} has no capacity; only the slowest "
                                        "level is unbounded")
            positive_int(f"level {lvl.name!r} capacity", lvl.capacity)
        if levels[-1].capacity is not None:
            raise InvalidInputError(f"the slowest level {levels[-1].name!r} must be unbounded "
                                    "(capacity null)")
        for upper, lower in zip(levels[:-2], levels[1:-1]):
            assert upper.capacity is not None and lower.capacity is not None
            if lower.capacity <= upper.capacity:
                raise InvalidInputError(
                    f"hierarchy capacities not increasing: level {lower.name!r} holds "
                    f"{lower.capacity} words, not more than level {upper.name!r} above it "
                    f"({upper.capacity})")

    @classmethod
    def from_words(cls, rows: Sequence[tuple[str, int | None, int | float | None]],
                   word_bytes: int = 2, label: str = "hierarchy") -> "Hierarchy":
        """From ``(name, capacity in words or None, bandwidth in bytes/s or None)`` rows."""
        return cls(tuple(MemoryLevel(*row) for row in rows), word_bytes, label)

    @classmethod
    def from_json(cls, data: Any, label: str = "hierarchy file") -> "Hierarchy":
        """From ``{"dtype": "bf16" | "word_bytes": 2, "levels": [{"name", "capacity_words" |
        "capacity_bytes", "bandwidth_bytes_per_s"}, ...]}`` (the last level: capacity null).

        >>> Hierarchy.from_json({"dtype": "fp32", "levels": [
        ...     {"name": "smem", "capacity_bytes": 4096, "bandwidth_bytes_per_s": None},
        ...     {"name": "hbm", "capacity_bytes": None, "bandwidth_bytes_per_s": 1e12}]}
        ...     ).boundaries()[0].M
        1024
        """
        from attnio.algorithms.advisor import DTYPE_BYTES

        if not isinstance(data, dict) or not isinstance(data.get("levels"), list):
            raise InvalidInputError(f"{label} must be an object with a 'levels' list")
        if "dtype" in data:
            dtype = str(data["dtype"]).lower()
            if dtype not in DTYPE_BYTES:
                raise InvalidInputError(f"{label}: dtype={describe(data['dtype'])} is unknown; "
                                        f"valid dtypes: {', '.join(DTYPE_BYTES)}")
            word_bytes = DTYPE_BYTES[dtype]
        else:
            word_bytes = positive_int(f"{label}: word_bytes", data.get("word_bytes", 2))
        if len(data["levels"]) > MAX_LEVELS:
            raise InvalidInputError(f"{label} has {len(data['levels'])} levels; at most "
                                    f"MAX_LEVELS={MAX_LEVELS}")
        rows = []
        for i, lvl in enumerate(data["levels"]):
            if not isinstance(lvl, dict):
                raise InvalidInputError(f"{label}: levels[{i}] must be an object")
            name = lvl.get("name", f"level{i}")
            if "capacity_words" in lvl and "capacity_bytes" in lvl:
                raise InvalidInputError(f"{label}: levels[{i}] gives both capacity_words and "
                                        "capacity_bytes")
            cap = lvl.get("capacity_words", lvl.get("capacity_bytes"))
            if cap is not None:
                cap = positive_int(f"{label}: levels[{i}] capacity", cap)
                if "capacity_bytes" in lvl:
                    cap //= word_bytes
                    if cap < 1:
                        raise InvalidInputError(f"{label}: levels[{i}] holds less than one "
                                                f"{word_bytes}-byte word")
            rows.append((name, cap, lvl.get("bandwidth_bytes_per_s")))
        return cls.from_words(rows, word_bytes, label)

    def boundaries(self) -> list[Boundary]:
        """Boundary i: M = total capacity of levels 0..i; bandwidth of level i + 1."""
        out, total = [], 0
        for i in range(len(self.levels) - 1):
            cap = self.levels[i].capacity
            assert cap is not None
            total += cap
            out.append(Boundary(i, self.levels[i].name, self.levels[i + 1].name, total,
                                self.levels[i + 1].bandwidth))
        return out


def device_hierarchy(device: str, dtype: str = "bf16", scope: str = "sm"
                     ) -> tuple[Hierarchy, list[str]]:
    """The hierarchy of one SM (CU) of a device of the table (:mod:`attnio.symbolic.devices`).

    Levels: register file + shared memory of one SM (one level; the register file is larger
    than shared memory, so as separate levels they would not be increasing), then every
    chip-scope level with a published capacity (L2, Infinity Cache), then DRAM (unbounded).
    Returns the hierarchy and notes on levels left out (capacity not published).

    ``scope="block"``: the fastest level is instead the shared memory one thread block may
    allocate (the advisor level's ``bytes_per_block``; the register file left out), the most
    one kernel's block can hold as its cache (``attnio bounds --device D --scope block``).

    >>> h, notes = device_hierarchy("h100", "bf16")
    >>> [(lvl.name, lvl.capacity) for lvl in h.levels]
    [('registers + shared memory', 247808), ('L2', 26214400), ('HBM', None)]
    >>> device_hierarchy("b200")[1]
    ['L2 left out: not published (the technical brief and datasheets give no L2 size)']
    >>> device_hierarchy("h100", "bf16", scope="block")[0].levels[0]
    MemoryLevel(name='shared memory per block', capacity=116224, bandwidth=None)
    """
    from attnio.algorithms.advisor import DTYPE_BYTES

    spec = find_device(device)
    key = str(dtype).lower()
    if key not in DTYPE_BYTES:
        raise InvalidInputError(f"dtype={dtype!r} is unknown; valid dtypes: "
                                f"{', '.join(DTYPE_BYTES)}")
    width = DTYPE_BYTES[key]
    notes: list[str] = []
    if scope not in ("sm", "block"):
        raise InvalidInputError(f"scope={scope!r} must be 'sm' or 'block'")
    per_unit = [lvl for lvl in spec.levels[:-1] if lvl.scope == "per-unit"]
    on_chip = sum(lvl.bytes.value for lvl in per_unit if lvl.bytes.value is not None)
    rows: list[tuple[str, int | None, int | float | None]] = [
        (" + ".join(lvl.name for lvl in per_unit), on_chip // width, None)]
    if scope == "block":
        per_block = spec.level(spec.advisor_level).bytes_per_block
        assert per_block is not None and per_block.value is not None  # validated table
        rows = [(f"{spec.advisor_level} per block", per_block.value // width, None)]
    for lvl in spec.levels[:-1]:
        if lvl.scope == "per-unit":
            continue
        if lvl.bytes.value is None:
            notes.append(f"{lvl.name} left out: not published ({lvl.bytes.reason})")
            continue
        rows.append((lvl.name, lvl.bytes.value // width, lvl.bandwidth.value))
    dram = spec.levels[-1]
    rows.append((dram.name, None, dram.bandwidth.value))
    where = f"one {spec.unit_name}" if scope == "sm" else "one thread block"
    return Hierarchy.from_words(rows, width, f"{spec.id} {key} ({where})"), notes


Counter = Callable[[int], SimulationResult]


#: Algorithms compared at each level by :func:`levels_report` (those of ``attnio gap`` and
#: the GQA-aware order): the registry's selection ``"levels"``.
LEVEL_ALGORITHMS: dict[str, tuple[str, ...]] = {p: selection("levels", p) for p in PASSES}


