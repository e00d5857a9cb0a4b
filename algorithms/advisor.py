r"""Hardware regime advisor: which side of the crossover :math:`M = d^2` a real device is on.

A reviewer of arXiv 2410.09397 (ICLR 2026, reviewer 3) asked for a device table (on-chip fast
memory, dtype, typical d) showing where :math:`M < d^2` or :math:`M > d^2`. :data:`DEVICES` is
that table; :func:`advise` turns a device, a head dimension and a dtype into

* :math:`M` in words: on-chip bytes ÷ dtype width (``scope="sm"``: per SM / per core;
  ``scope="block"``: the most one CUDA thread block may allocate);
* the crossover :math:`M^*` — *derived* by :func:`attnio.symbolic.crossovers.crossover` on
  Thm 1.1 (backward), evaluated at ``d``;
* the regime: ``"large-cache"`` (:math:`M > M^*`), ``"small-cache"`` (:math:`M < M^*`),
  ``"crossover"`` (:math:`M = M^*`);
* the algorithm the theory picks: ``"flash-attention"`` in the large-cache regime (optimal
  there, Thms 4.1-4.2), ``"small-cache"`` (Algorithm 6, Thms 4.3-4.4) in the small-cache one,
  and ``"flash-attention"`` at the crossover, where both have the same order and FlashAttention
  is the one implemented everywhere;
* the predicted I/O ratio FlashAttention ÷ Algorithm 6 from the catalogue expressions
  ``bwd.flash1.upper`` and ``bwd.alg6.upper`` (exact; with ``n=None`` its limit as
  :math:`n \to \infty`), and the branch ratio :math:`d/\sqrt{M}` of Thm 1.1. Both are
  "up to the catalogue's constants": the asymptotic entries carry no constants.

The rows come from the device table ``symbolic/devices.json`` (:mod:`attnio.symbolic.devices`,
every number with its source; the same table feeds the memory hierarchy of
:mod:`attnio.algorithms.hierarchy`). GPU figures are the per-compute-capability limits of
NVIDIA's CUDA C++ Programming Guide ("Technical Specifications per Compute Capability"), where
"KB" means 1024 bytes; they are maxima of the configurable shared-memory carve-out, the most a
kernel can use as its cache M.

Examples
--------
>>> a = advise("a100", 128, "bf16")
>>> a.M, a.crossover_M, a.regime, a.recommended_algorithm
(83968, 16384, 'large-cache', 'flash-attention')
>>> g = advise("gtx1060", 128, "fp32", scope="block")
>>> g.M, g.regime, g.recommended_algorithm
(12288, 'small-cache', 'small-cache')
>>> advise("a100", 128, "int3")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: dtype='int3' is unknown; valid dtypes: fp64, fp32, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic import symbols
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.crossovers import branch_ratio, crossover
from attnio.symbolic.devices import DeviceSpec, load_device_table

__all__ = ["Device", "Advice", "DEVICES", "DTYPE_BYTES", "advise", "classify_regime",
           "predicted_io_ratio", "get_device", "recommended_algorithm",
           "LARGE_CACHE_ALGORITHM", "SMALL_CACHE_ALGORITHM"]

#: The registered algorithm (:mod:`attnio.algorithms.registry`) whose catalogue bound stands
#: for FlashAttention in the predicted ratio (the ``"flash-attention"`` pick of the large-cache
#: regime: FA-1 and FA-2 share the bound).
LARGE_CACHE_ALGORITHM = "flash1"
#: The registered algorithm the small-cache regime picks: Algorithm 6.
SMALL_CACHE_ALGORITHM = "small-cache"

Regime = Literal["small-cache", "large-cache", "crossover"]
Scope = Literal["sm", "block"]

KIB = 1024
MIB = 1024 * KIB

@dataclass(frozen=True)
class Device:
    """One row of the device table: on-chip fast memory usable as the cache M, with its source."""

    name: str
    description: str
    fast_memory: str
    bytes_per_unit: int
    bytes_per_block: int
    source: str


def _advisor_row(name: str, spec: "DeviceSpec") -> Device:
    level = spec.level(spec.advisor_level)
    assert level.bytes.value is not None and level.bytes_per_block is not None  # validated
    assert level.bytes_per_block.value is not None
    return Device(name, spec.name, f"{level.name} per {spec.unit_name}", level.bytes.value,
                  level.bytes_per_block.value,
                  f"{spec.cite(level.bytes)}; per block: {spec.cite(level.bytes_per_block)}")


#: The advisor's view of the device table (:mod:`attnio.symbolic.devices`, the data file
#: ``symbolic/devices.json``): one row per id and per alias (``a100`` = ``a100-40gb``,
#: ``h100`` = ``h100-sxm``), the advisor level's bytes per SM / core and per block.
DEVICES: dict[str, Device] = {
    name: _advisor_row(name, spec)
    for spec in load_device_table().values() for name in (*spec.aliases, spec.id)
}

#: Bytes per element (word) of each dtype.
DTYPE_BYTES: dict[str, int] = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}


@dataclass(frozen=True)
class Advice:
    """What :func:`advise` found; every number exact (``io_ratio`` and ``branch_ratio`` are
    sympy numbers, possibly with square roots)."""

    device: Device
    dtype: str
    scope: Scope
    d: int
    n: int | None
    M: int
    crossover_M: int
    regime: Regime
    recommended_algorithm: str
    io_ratio: sp.Expr
    branch_ratio: sp.Expr

    def summary(self) -> str:
        """One line for humans.

        >>> print(advise("h100", 128, "bf16").summary())  # doctest: +ELLIPSIS
        h100 bf16 d=128: M = 116736 words > d**2 = 16384 -> large-cache, flash-attention ...
        """
        rel = {"large-cache": ">", "small-cache": "<", "crossover": "="}[self.regime]
        return (f"{self.device.name} {self.dtype} d={self.d}: M = {self.M} words {rel} d**2 = "
                f"{self.crossover_M} -> {self.regime}, {self.recommended_algorithm} "
                f"(FlashAttention / Algorithm 6 I/O ~ {float(self.io_ratio):.3g}, "
                f"d/sqrt(M) = {float(self.branch_ratio):.3g})")


def get_device(name: str) -> Device:
    """The device called ``name`` (case-insensitive).

    Raises
    ------
    InvalidInputError
        Unknown name; the message lists the valid names.

    >>> get_device("H100").bytes_per_unit
    233472
    """
    key = str(name).lower()
    if key not in DEVICES:
        raise InvalidInputError(
            f"device={name!r} is unknown; valid devices: {', '.join(DEVICES)}")
    return DEVICES[key]


def _dtype_bytes(dtype: str) -> int:
    key = str(dtype).lower()
    if key not in DTYPE_BYTES:
        raise InvalidInputError(
            f"dtype={dtype!r} is unknown; valid dtypes: {', '.join(DTYPE_BYTES)}")
    return DTYPE_BYTES[key]


def classify_regime(M_value: int, d_value: int) -> tuple[Regime, int]:
    """The regime of ``(M, d)`` against the *derived* backward crossover, and that crossover.

    >>> classify_regime(16384, 128)
    ('crossover', 16384)
    >>> classify_regime(100, 16)
    ('small-cache', 256)
    """
    M_exact = symbols.validate_value(symbols.M, M_value)
    d_exact = symbols.validate_value(symbols.d, d_value)
    cross = crossover("bwd.tight").solution.subs(symbols.d, d_exact)
    if cross != crossover("fwd.tight").solution.subs(symbols.d, d_exact):  # pragma: no cover
        raise AssertionError("forward and backward crossovers disagree")  # derived, not assumed
    regime: Regime = ("large-cache" if M_exact > cross else
                      "small-cache" if M_exact < cross else "crossover")
    return regime, int(cross)


def recommended_algorithm(regime: Regime) -> str:
    """The algorithm the theory picks in ``regime``: :data:`SMALL_CACHE_ALGORITHM` below the
    crossover, ``"flash-attention"`` (the family, optimal there, Thms 4.1-4.2) at and above it.

    >>> recommended_algorithm("small-cache"), recommended_algorithm("crossover")
    ('small-cache', 'flash-attention')
    """
    return SMALL_CACHE_ALGORITHM if regime == "small-cache" else "flash-attention"


def predicted_io_ratio(M_value: int, d_value: int, n_value: int | None = None) -> sp.Expr:
    r"""FlashAttention backward ÷ Algorithm 6 from the catalogue (exact; ``n=None``: the limit
    :math:`n \to \infty`).

    >>> predicted_io_ratio(64, 16)
    4/3
    """
    from attnio.algorithms.registry import get_algorithm  # lazy: the registry loads numpy

    large = get_algorithm(LARGE_CACHE_ALGORITHM).bound_id("backward")  # bwd.flash1.upper
    small = get_algorithm(SMALL_CACHE_ALGORITHM).bound_id("backward")  # bwd.alg6.upper
    ratio = get_bound(large).expr / get_bound(small).expr
    ratio = ratio.subs({symbols.M: symbols.validate_value(symbols.M, M_value), symbols.d: symbols.validate_value(symbols.d, d_value)})
    if n_value is None:
        return sp.nsimplify(sp.limit(ratio, symbols.n, sp.oo))
    return sp.simplify(ratio.subs(symbols.n, symbols.validate_value(symbols.n, n_value)))


def advise(device: str, d: int, dtype: str = "bf16", n: int | None = None,
           scope: Scope = "sm") -> Advice:
    """Advice for one device, head dimension and dtype.

    Parameters
    ----------
    device : str
        A name of :data:`DEVICES` (case-insensitive).
    d : int
        Head dimension (positive integer).
    dtype : str
        A name of :data:`DTYPE_BYTES`.
    n : int, optional
        Sequence length for the I/O ratio; None gives its limit as n grows.
    scope : {"sm", "block"}
        Fast memory per SM / core, or the per-thread-block maximum.

    Returns
    -------
    Advice

    Raises
    ------
    InvalidInputError
        Unknown device, dtype or scope; ``d`` or ``n`` not a positive integer.

    Examples
    --------
    >>> a = advise("spr-l1d", 256, "fp32", n=4096)
    >>> a.M, a.regime
    (12288, 'small-cache')
    """
    dev = get_device(device)
    width = _dtype_bytes(dtype)
    if scope not in ("sm", "block"):
        raise InvalidInputError(f"scope={scope!r} must be 'sm' or 'block'")
    d_value = int(symbols.validate_value(symbols.d, d))
    n_value = None if n is None else int(symbols.validate_value(symbols.n, n))
    M_value = (dev.bytes_per_unit if scope == "sm" else dev.bytes_per_block) // width
    regime, cross = classify_regime(M_value, d_value)
    algorithm = recommended_algorithm(regime)
    ratio_of_branches = branch_ratio("bwd.tight").ratio.subs({symbols.d: d_value, symbols.M: M_value})
    return Advice(dev, dtype.lower(), scope, d_value, n_value, M_value, cross, regime, algorithm,
                  predicted_io_ratio(M_value, d_value, n_value), sp.simplify(ratio_of_branches))
