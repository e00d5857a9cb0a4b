r"""The attention instance: one frozen value for sizes, pass, heads, mask, device and dtype.

Every command that takes an attention instance (``attnio bounds``, ``simulate``, ``gap``,
``advise``) parses its flags once into one :class:`Instance`
(:mod:`attnio.commands.instance_flags`), and every table, count and bound is computed from that
value whole — so no part of the user's instance can fall away between two flags (the lesson of
issue 34: a per-level table that ignored ``--mask``; issue 35: a masked multi-head bound
printed dense).

What an instance holds
----------------------
* ``n`` (sequence length), ``d`` (head dimension), ``pass_`` (``"forward"`` or
  ``"backward"``);
* the **cache levels**: one :class:`CacheLevel` per fast-memory size. From ``--M`` /
  ``--M-geom`` they are plain sizes (name ``"M"``, no bandwidth); from ``--device`` (and
  ``--scope``) or ``--hierarchy FILE`` they are the boundaries of a memory hierarchy
  (:mod:`attnio.algorithms.hierarchy`: :math:`M_i` = the capacity of the levels above
  boundary ``i``, with the bandwidth below it);
* ``batch`` B, ``heads`` H query heads, ``kv_heads`` G K/V heads (H a multiple of G;
  :mod:`attnio.algorithms.heads`);
* ``mask`` (:class:`~attnio.algorithms.masks.Mask`, or None: dense); a ``full`` mask keeps
  every entry and counts as dense (:attr:`Instance.sparse_mask` is None for it);
* ``word_bytes``: bytes per word, from ``--dtype``, the device or the hierarchy file (None:
  figures in words only).

Counting an algorithm on the whole instance is :func:`count_instance`: every registered
algorithm of the pass either has a count (exact ints, :func:`attnio.algorithms.heads.
count_heads` — heads, groups and mask together) or a :class:`NotApplicable` with the reason
(no masked schedule, no tile fits, tiles overflow, a different output); it is never dropped.

Examples
--------
>>> from attnio.algorithms.masks import Mask
>>> inst = Instance.build(64, 8, M=[64], mask=Mask.window(1), heads=4, kv_heads=1)
>>> inst.Ms, inst.group, inst.sparse_mask.label
((64,), 4, 'window:1')
>>> print(inst.describe())
n=64 d=8, backward pass, mask window:1, batch=1 heads=4 kv_heads=1
>>> count_instance(inst, "flash2-gqa", 64).io
17152
>>> count_instance(inst, "small-cache-dx", 64).reason
'no masked schedule (small-cache-dx skips no tile)'
>>> Instance.build(64, 8, M=[64], heads=4, kv_heads=3)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: heads=4 is not a multiple of kv_heads=3
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from attnio.algorithms.advisor import DTYPE_BYTES
from attnio.algorithms.heads import count_heads, validate_heads
from attnio.algorithms.hierarchy import Hierarchy, device_hierarchy
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import PASSES, REGISTRY, algorithm_names
from attnio.algorithms.simulation import SimulationResult
from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError
from attnio.validation import positive_int, validate_name

__all__ = ["CacheLevel", "Instance", "NotApplicable", "SCOPES", "count_instance",
           "instance_algorithms"]

#: ``--scope``: which on-chip memory is the fastest level of a device (notes/hardware.md).
SCOPES = ("sm", "block")


@dataclass(frozen=True, slots=True)
class CacheLevel:
    """One fast-memory size of an instance: ``M`` words above a boundary.

    ``name`` is ``"M"`` for a size given with ``--M``, else ``"ABOVE | BELOW"`` (the two
    levels the boundary separates); ``bandwidth`` is the bytes per second of the level below
    (None: not published, or no hierarchy).
    """

    name: str
    M: int
    bandwidth: int | float | None = None
    index: int = 0


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """An algorithm with no run for this instance, and why (printed as ``n/a: <reason>``)."""

    algorithm: str
    reason: str

    def __str__(self) -> str:
        return f"n/a: {self.reason}"


@dataclass(frozen=True, slots=True)
class Instance:
    """One attention instance (module docstring). Build it with :meth:`build`, which
    validates every field; the fields are then trusted everywhere below."""

    n: int
    d: int
    pass_: str
    levels: tuple[CacheLevel, ...]
    batch: int = 1
    heads: int = 1
    kv_heads: int = 1
    mask: Mask | None = None
    word_bytes: int | None = None
    dtype: str | None = None
    device: str | None = None
    scope: str | None = None
    hierarchy: Hierarchy | None = None
    hierarchy_notes: tuple[str, ...] = ()

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def build(cls, n: Any, d: Any, *, pass_: str = "backward", M: Iterable[Any] | None = None,
              device: str | None = None, dtype: str | None = None, scope: str | None = None,
              hierarchy: Hierarchy | None = None, batch: Any = 1, heads: Any = 1,
              kv_heads: Any = None, mask: Mask | None = None) -> "Instance":
        """Validate and build. Exactly one source of cache sizes: ``M`` (one or more sizes in
        words), ``device`` (its one-SM hierarchy for ``dtype``, default bf16, and ``scope``)
        or ``hierarchy``. ``dtype`` alone (with ``M``) gives bytes per word; ``scope`` needs
        ``device``; a hierarchy names its own word size, so ``dtype`` with it is an error.

        Raises
        ------
        InvalidInputError
            A size that is not a positive integer, an unknown pass, device, dtype or scope,
            heads not a multiple of kv_heads, a mask that does not fit n, none or several
            sources of cache sizes.
        """
        n, d = positive_int("n", n), positive_int("d", d)
        pass_ = validate_name("pass", pass_, PASSES)
        batch, heads, kv = validate_heads(batch, heads, kv_heads)
        if mask is not None:
            mask.check(n)
        sources = [name for name, value in (("--M", M), ("--device", device),
                                            ("--hierarchy", hierarchy)) if value is not None]
        if len(sources) != 1:
            raise InvalidInputError("give exactly one of --M (cache words), --device and "
                                    f"--hierarchy (got {', '.join(sources) or 'none'})")
        if scope is not None:
            scope = validate_name("scope", scope, SCOPES)
            if device is None:
                raise InvalidInputError(f"--scope {scope} needs --device (with --M the size is "
                                        "in words; a --hierarchy file names its own levels)")
        if dtype is not None:
            key = str(dtype).lower()
            if key not in DTYPE_BYTES:
                raise InvalidInputError(f"dtype={dtype!r} is unknown; valid dtypes: "
                                        f"{', '.join(DTYPE_BYTES)}")
            if hierarchy is not None:
                raise InvalidInputError(f"--dtype {dtype} with --hierarchy: the hierarchy file "
                                        "names its own word size (its dtype or word_bytes)")
            dtype = key
        notes: tuple[str, ...] = ()
        word_bytes = None if dtype is None else DTYPE_BYTES[dtype]
        if device is not None:
            dtype = dtype or "bf16"
            hierarchy, found = device_hierarchy(device, dtype, scope=scope or "sm")
            notes, word_bytes = tuple(found), hierarchy.word_bytes
        if hierarchy is not None:
            word_bytes = hierarchy.word_bytes
            levels = tuple(CacheLevel(f"{b.above} | {b.below}", b.M, b.bandwidth, b.index)
                           for b in hierarchy.boundaries())
        else:
            assert M is not None  # the one source checked above
            sizes = [positive_int("M", value) for value in M]
            if not sizes:
                raise InvalidInputError("--M names no cache size")
            levels = tuple(CacheLevel("M", value, None, i) for i, value in enumerate(sizes))
        return cls(n, d, pass_, levels, batch, heads, kv, mask, word_bytes, dtype,
                   None if device is None else str(device).lower(),
                   (scope or "sm") if device is not None else None, hierarchy, notes)

    def with_pass(self, pass_: str) -> "Instance":
        """The same instance in the other pass."""
        return replace(self, pass_=validate_name("pass", pass_, PASSES))

    def with_sizes(self, Ms: Sequence[int]) -> "Instance":
        """The same instance at plain cache sizes ``Ms`` (words; the hierarchy dropped)."""
        return replace(self, levels=tuple(CacheLevel("M", positive_int("M", M), None, i)
                                          for i, M in enumerate(Ms)),
                       hierarchy=None, device=None, scope=None, hierarchy_notes=())

    # ---- views --------------------------------------------------------------------------
    @property
    def Ms(self) -> tuple[int, ...]:
        """The cache sizes in words, in order."""
        return tuple(level.M for level in self.levels)

    @property
    def group(self) -> int:
        """Query heads per K/V head (g = H/G)."""
        return self.heads // self.kv_heads

    @property
    def multi_head(self) -> bool:
        """More than one head, or grouped K/V."""
        return (self.batch, self.heads, self.kv_heads) != (1, 1, 1)

    @property
    def sparse_mask(self) -> Mask | None:
        """The mask if it drops an entry at this n, else None (no mask, or a full one)."""
        if self.mask is None or self.mask.z_qk(self.n) == self.n * self.n:
            return None
        return self.mask

    @property
    def has_hierarchy(self) -> bool:
        """The cache sizes are the boundaries of a memory hierarchy (device or file)."""
        return self.hierarchy is not None

    def to_bytes(self, words: int | None) -> int | None:
        """``words`` × bytes per word (None without a dtype, or for None)."""
        if words is None or self.word_bytes is None:
            return None
        return words * self.word_bytes

    def describe(self) -> str:
        """The whole instance in one line (every table's header).

        >>> print(Instance.build(8192, 128, device="h100", dtype="bf16").describe())
        n=8192 d=128, backward pass, no mask, h100 bf16 (2-byte words, one SM's registers + shared memory first)
        """
        parts = [f"n={self.n} d={self.d}", f"{self.pass_} pass",
                 f"mask {self.mask.label}" if self.mask is not None else "no mask"]
        if self.multi_head:
            parts.append(f"batch={self.batch} heads={self.heads} kv_heads={self.kv_heads}")
        if self.device is not None:
            first = ("one SM's registers + shared memory first" if self.scope == "sm"
                     else "one thread block's shared memory first")
            parts.append(f"{self.device} {self.dtype} ({self.word_bytes}-byte words, {first})")
        elif self.hierarchy is not None:
            parts.append(f"{self.hierarchy.label} ({self.word_bytes}-byte words)")
        elif self.dtype is not None:
            parts.append(f"{self.dtype} ({self.word_bytes}-byte words)")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The instance as JSON (every command's ``"instance"`` key)."""
        return {"n": self.n, "d": self.d, "pass": self.pass_, "batch": self.batch,
                "heads": self.heads, "kv_heads": self.kv_heads,
                "mask": None if self.mask is None else self.mask.label,
                "device": self.device, "dtype": self.dtype, "scope": self.scope,
                "word_bytes": self.word_bytes,
                "levels": [{"name": lvl.name, "M": lvl.M,
                            "bandwidth_bytes_per_s": lvl.bandwidth} for lvl in self.levels],
                "description": self.describe()}


def instance_algorithms(instance: Instance) -> tuple[str, ...]:
    """Every registered algorithm of the instance's pass, in registry order (``--algorithm
    all``): none is dropped for the mask or the heads — those that cannot run get a
    :class:`NotApplicable` row from :func:`count_instance`.

    >>> "flash2-split" in instance_algorithms(Instance.build(8, 2, M=[64], mask=Mask.causal()))
    True
    """
    return algorithm_names(instance.pass_)


def count_instance(instance: Instance, algorithm: str, M: int) -> SimulationResult | NotApplicable:
    """Exact counts of ``algorithm`` on the whole instance at cache ``M`` — B·H heads in B·G
    groups, the mask — or why it has none (:class:`NotApplicable`).

    Reasons: the algorithm has no masked schedule and the mask drops entries; no tile set of
    it fits M; its printed tiles overflow M (``flash1-published``). An algorithm without the
    pass is an error (it is not an algorithm of this instance).

    >>> inst = Instance.build(64, 8, M=[16], pass_="forward")
    >>> str(count_instance(inst, "flash1", 16))[:40]
    'n/a: M=16 is too small for any flash1 fo'
    """
    spec = REGISTRY.get(algorithm)
    if spec is None or instance.pass_ not in spec.passes:
        raise InvalidInputError(f"algorithm={algorithm!r} has no {instance.pass_} pass")
    mask = instance.sparse_mask
    if mask is not None and not spec.masked:
        return NotApplicable(algorithm, f"no masked schedule ({algorithm} skips no tile)")
    try:
        return count_heads(algorithm, instance.pass_, instance.n, instance.d, M,
                           batch=instance.batch, heads=instance.heads,
                           kv_heads=instance.kv_heads, mask=mask)
    except CacheOverflowError as exc:
        return NotApplicable(algorithm, "tiles overflow M: " + " ".join(str(exc).split()))
    except InfeasibleError as exc:  # no tile set of it fits M
        return NotApplicable(algorithm, " ".join(str(exc).split()))
