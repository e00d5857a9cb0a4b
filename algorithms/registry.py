"""The algorithm registry: one frozen record per tiled algorithm, read by every room.

simulation, the CLIs, the figures, the report and the hardware advisor all take an algorithm's
name, passes, label, colour and catalogue bound from here — there is no second list. Adding an
algorithm means one module (its schedule under :class:`attnio.algorithms.memory.TwoLevelMemory`
and its closed-form counter) plus one :class:`AlgorithmSpec` below; notes/extending.md says how.

>>> get_algorithm("flash2").bound_id("backward")
'bwd.flash1.upper'
>>> label("small-cache", "backward")
'Algorithm 6 (small cache)'
>>> "square-tiling" in algorithm_names("forward"), "square-tiling" in algorithm_names("backward")
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from attnio.exceptions import InvalidInputError

__all__ = ["AlgorithmSpec", "REGISTRY", "get_algorithm", "algorithm_names", "label", "colour",
           "PASSES"]

PASSES = ("forward", "backward")


@dataclass(frozen=True)
class AlgorithmSpec:
    """What attnio knows of one algorithm, in one place.

    Attributes
    ----------
    name : str
        The CLI name (``attnio simulate --algorithm NAME``).
    description : str
        One line: the schedule, its block-size rule and its source (RECONSTRUCTED where ours).
    bound_ids : Mapping[str, str]
        pass → id of its upper bound in :mod:`attnio.symbolic.catalogue`; its keys are the
        passes the algorithm implements.
    labels : Mapping[str, str]
        pass → the name figures and tables print (default: ``name``).
    colour : str or None
        The colour every figure draws it in (None: the figure's cycle).
    masked : bool
        Takes ``mask=`` and ``tau=`` (fully masked tiles skipped).
    """

    name: str
    description: str
    bound_ids: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)
    colour: str | None = None
    masked: bool = False

    @property
    def passes(self) -> tuple[str, ...]:
        return tuple(p for p in PASSES if p in self.bound_ids)

    def bound_id(self, pass_: str) -> str:
        if pass_ not in self.bound_ids:
            raise InvalidInputError(f"algorithm {self.name!r} has no {pass_} pass "
                                    f"(it implements: {', '.join(self.passes)})")
        return self.bound_ids[pass_]

    def label(self, pass_: str = "backward") -> str:
        return self.labels.get(pass_, self.name)


_FLASH_BOUNDS = {"forward": "fwd.flash1.upper", "backward": "bwd.flash1.upper"}

_SPECS: tuple[AlgorithmSpec, ...] = (
    AlgorithmSpec(
        "standard",
        "unfused attention, S, P, dP, dS in slow memory, square tiles B=floor(sqrt(M/4)) "
        "(FlashAttention Alg. 0 / Alg. 3)",
        {"forward": "fwd.standard", "backward": "bwd.standard"},
        {"forward": "standard (unfused)", "backward": "standard (unfused)"},
        "#7f7f7f", masked=True),
    AlgorithmSpec(
        "flash1",
        "FlashAttention-1 forward Alg. 1 / backward Alg. 4, fitted block sizes "
        "(the I/O-optimal B_r, B_c whose tiles fit in M words)",
        _FLASH_BOUNDS, {"forward": "FlashAttention-1", "backward": "FlashAttention-1"},
        "#1f77b4", masked=True),
    AlgorithmSpec(
        "flash2",
        "FlashAttention-2 loop orders (forward Q-outer, backward KV-outer), fitted blocks",
        _FLASH_BOUNDS, {"forward": "FlashAttention-2", "backward": "FlashAttention-2"},
        "#17becf", masked=True),
    AlgorithmSpec(
        "square-tiling",
        "Saha-Ye SquareTilingAttention forward, B=floor(sqrt(M/4)) (forward only)",
        {"forward": "fwd.square_tiling.upper"}, {"forward": "Saha–Ye square tiling"},
        "#d62728", masked=True),
    AlgorithmSpec(
        "small-cache",
        "forward: Saha-Ye square tiling; backward: Algorithm 6 for dQ, dK, dV "
        "(RECONSTRUCTED), B=floor(sqrt(M/4))",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "Saha–Ye small cache", "backward": "Algorithm 6 (small cache)"},
        "#d62728", masked=True),
    AlgorithmSpec(
        "small-cache-fused",
        "Saha-Ye forward / Algorithm 6 backward with rank-1 streamed tiles of searched sides: "
        "one accumulator per n x n tile, output-stationary products (ours)",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "small cache, fused (ours)", "backward": "Algorithm 6, fused (ours)"},
        "#ff7f0e", masked=True),
    AlgorithmSpec(
        "small-cache-dx",
        "Algorithm 6 for the paper's dL/dX = A1^T p A2 (RECONSTRUCTED, backward only)",
        {"backward": "bwd.alg6.upper"}, {"backward": "Algorithm 6 for dX"}, "#8c564b"),
    AlgorithmSpec(
        "flash1-published",
        "FlashAttention-1 with the printed B_c=ceil(M/4d), B_r=min(B_c,d) "
        "(overflows M: reported as CacheOverflowError)",
        _FLASH_BOUNDS,
        {"forward": "FlashAttention-1 (printed blocks)",
         "backward": "FlashAttention-1 (printed blocks)"},
        "#9467bd", masked=True),
    AlgorithmSpec(
        "flash2-gqa",
        "FlashAttention-2 loop orders on each K/V group, the group's query heads stacked: K/V "
        "tiles stay resident while all its query heads stream (ours; one head: flash2; many "
        "heads: attnio.algorithms.heads)",
        _FLASH_BOUNDS,
        {"forward": "FlashAttention-2, GQA order (ours)",
         "backward": "FlashAttention-2, GQA order (ours)"},
        "#2ca02c", masked=True),
)

#: name → record, in the order the CLI lists them.
REGISTRY: Mapping[str, AlgorithmSpec] = MappingProxyType({s.name: s for s in _SPECS})


def get_algorithm(name: str) -> AlgorithmSpec:
    """The record of ``name``; :class:`InvalidInputError` naming the known ones otherwise."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise InvalidInputError(f"unknown algorithm {name!r}; known: "
                                f"{', '.join(REGISTRY)}") from None


def algorithm_names(pass_: str | None = None) -> tuple[str, ...]:
    """The registered names, optionally only those implementing ``pass_``."""
    return tuple(s.name for s in _SPECS if pass_ is None or pass_ in s.bound_ids)


def label(name: str, pass_: str = "backward") -> str:
    """The printed name of ``name`` in ``pass_`` (an unregistered name prints as itself)."""
    spec = REGISTRY.get(name)
    return spec.label(pass_) if spec is not None else name


def colour(name: str) -> str | None:
    """The colour of ``name`` in every figure (None: not registered or no fixed colour)."""
    spec = REGISTRY.get(name)
    return spec.colour if spec is not None else None
