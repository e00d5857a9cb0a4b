"""The algorithm registry: one frozen record per tiled algorithm, read by every room.

simulation, the CLIs, the figures, the report and the hardware advisor all take an algorithm's
name, passes, label, colour, catalogue bound, closed-form counter, executor and block-size rule
from here — there is no second list (``tests/algorithms/test_registry.py`` scans the source tree
for one). Adding an algorithm means one module (its schedule under
:class:`attnio.algorithms.memory.TwoLevelMemory`, its closed-form counter in
:mod:`attnio.algorithms.counts`, an executor in :mod:`attnio.algorithms.executors`) plus one
:class:`AlgorithmSpec` below; notes/extending.md says how.

Import order: this module imports counts, masked_counts, executors, small_cache_fused,
resident_fused and split_backward; none
of them imports this one at module level (:func:`attnio.algorithms.counts.count_masked` looks
the registry up inside the call).

>>> get_algorithm("flash2").bound_id("backward")
'bwd.flash1.upper'
>>> label("small-cache", "backward")
'Algorithm 6 (small cache)'
>>> "square-tiling" in algorithm_names("forward"), "square-tiling" in algorithm_names("backward")
(True, False)
>>> get_algorithm("small-cache").counter("backward")(4096, 64, 1024).io
590614528
>>> get_algorithm("flash1").block_sizes("backward", 4096, 64, 4096)
{'B_r': 1, 'B_c': 14}
>>> selection("main", "backward")
('standard', 'flash1', 'flash2', 'small-cache')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from attnio.algorithms import counts, executors, masked_counts
from attnio.algorithms.lean_flash import count_lean, count_masked_lean, lean_block_sizes
from attnio.algorithms.resident_fused import (
    count_fused_resident,
    count_masked_fused_resident,
    resident_block_sizes,
)
from attnio.algorithms.small_cache_fused import fused_block_sizes
from attnio.algorithms.split_backward import (
    count_flash2_split_backward,
    count_masked_flash2_split_backward,
    split_block_sizes,
)
from attnio.exceptions import InvalidInputError

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.executors import Executor
    from attnio.algorithms.masks import Mask

__all__ = ["AlgorithmSpec", "BlockRule", "REGISTRY", "PASSES", "SELECTIONS", "get_algorithm",
           "algorithm_names", "selection", "label", "colour"]

PASSES = ("forward", "backward")

#: ``counter(n, d, M, blocks=None) -> Counts``: the closed form at the record's block-size rule,
#: or at the given ``blocks`` (the dict :meth:`BlockRule.blocks` returns; ``--tune``).
Counter = Callable[..., counts.Counts]
#: ``masked_counter(n, d, M, mask) -> Counts`` (:mod:`attnio.algorithms.masked_counts`).
MaskedCounter = Callable[[int, int, int, "Mask"], counts.Counts]

#: The named selections the rooms compare; a record joins them per pass (``selections``).
SELECTIONS: Mapping[str, str] = MappingProxyType({
    "main": "the pass's main algorithms: the I/O figure's default curves (`attnio "
            "simulate --algorithm all` runs every registered algorithm of the pass)",
    "sparse": "one masked schedule per computation, ours included: the masked tables and "
              "figure against the per-mask lower bound (attnio.reporting.sparse_measure)",
    "gap": "one schedule per computation, ours included: `attnio gap` "
           "(attnio.bounds.gap) and the hierarchy claims (attnio.proofs.hierarchy_claims)",
    "crossover": "the small-cache schedule whose swap with FlashAttention-1 is the measured "
                 "crossover of a pass (one per pass): the I/O and FLOP figures, the report",
    "levels": "the gap set plus the grouped-query order: `attnio bounds --hierarchy` and "
              "`attnio gap --device` per level (attnio.bounds.hierarchy.levels_report)",
})


@dataclass(frozen=True)
class BlockRule:
    r"""How an algorithm picks its block sizes from (pass, n, d, M), stated once.

    ``kind``: ``"square"`` — one side :math:`B=\lfloor\sqrt{M/4}\rfloor`
    (:func:`~attnio.algorithms.counts.square_block`); ``"flash"`` — FlashAttention-``version``
    ``(B_r, B_c)`` of :func:`~attnio.algorithms.counts.flash_block_sizes` with ``variant``
    (``fitted``: the I/O-optimal fitting blocks; ``published``: FA-1's printed rule);
    ``"fused"`` — the exact search of
    :func:`~attnio.algorithms.small_cache_fused.fused_block_sizes`; ``"split"`` — the exact
    search of :func:`~attnio.algorithms.split_backward.split_block_sizes` (backward only);
    ``"resident"`` — the exact search of
    :func:`~attnio.algorithms.resident_fused.resident_block_sizes`; ``"lean"`` — the exact
    search of :func:`~attnio.algorithms.lean_flash.lean_block_sizes`.

    >>> BlockRule("square").blocks("forward", 64, 8, 256)
    {'B': 8}
    >>> BlockRule("flash", version=2).q_outer("forward")
    True
    """

    kind: str
    version: int = 1
    variant: counts.Variant = "fitted"

    def blocks(self, pass_: str, n: int, d: int, M: int) -> dict[str, int]:
        """The block sizes at (n, d, M), without checking that the tiles fit."""
        if self.kind == "square":
            return {"B": counts.square_block(M)}
        if self.kind == "flash":
            br, bc = counts.flash_block_sizes(self.version, pass_, n, d, M, self.variant)
            return {"B_r": br, "B_c": bc}
        if self.kind == "split":
            return split_block_sizes(n, d, M)
        if self.kind == "resident":
            return resident_block_sizes(n, d, M, pass_)
        if self.kind == "lean":
            return lean_block_sizes(n, d, M, pass_)
        return fused_block_sizes(n, d, M, pass_)

    def q_outer(self, pass_: str) -> bool:
        """Whether the query blocks form the outer loop (the FA-2 forward order)."""
        return self.kind == "flash" and self.version == 2 and pass_ == "forward"


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
    counters : Mapping[str, Counter]
        pass → closed-form counter ``(n, d, M, blocks=None) -> Counts``
        (:mod:`attnio.algorithms.counts`), equal to the executed counts.
    executors : Mapping[str, Executor]
        pass → executor under the memory model (:mod:`attnio.algorithms.executors`).
    block_rule : BlockRule
        The block sizes both the counter and the executor use.
    masked_counters : Mapping[str, MaskedCounter]
        pass → counter of the masked run (tiles with no kept entry skipped); empty: the
        algorithm takes no ``mask=`` and no ``tau=``.
    tunable : bool
        ``--tune`` searches its block sizes (:mod:`attnio.algorithms.tuning`).
    backward_computation : str
        What its backward pass computes, for the lower-bound routes of
        :mod:`attnio.bounds.attention`: ``"recompute"`` (scores recomputed from Q, K),
        ``"given-scores"`` (the forward's P or A read back), ``"dX"`` (the paper's dL/dX).
    kv_grouped : bool
        Runs a K/V group's query heads together (:mod:`attnio.algorithms.heads`).
    selections : Mapping[str, tuple[str, ...]]
        pass → the :data:`SELECTIONS` it belongs to.
    finite_logits : Mapping[str, bool]
        pass → True when its outputs stay finite (and equal the reference's) for every finite
        logit τq·k in float64 — the softmax is formed with a row maximum subtracted, so no
        exponent is positive; False when it stores or reads exp(τQKᵀ) raw (inf once
        τq·k > 709, then NaN). Executed both ways at logits up to 10⁴ by
        :func:`attnio.algorithms.stability.stability_mismatch`.
    stability : Mapping[str, str]
        pass → one line saying why (:attr:`finite_logits`).
    """

    name: str
    description: str
    bound_ids: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)
    colour: str | None = None
    counters: Mapping[str, Counter] = field(default_factory=dict)
    executors: Mapping[str, "Executor"] = field(default_factory=dict)
    block_rule: BlockRule = BlockRule("square")
    masked_counters: Mapping[str, MaskedCounter] = field(default_factory=dict)
    tunable: bool = False
    backward_computation: str = "given-scores"
    kv_grouped: bool = False
    selections: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    finite_logits: Mapping[str, bool] = field(default_factory=dict)
    stability: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:  # read-only views: the record stays frozen all through
        for name in ("bound_ids", "labels", "counters", "executors", "masked_counters",
                     "selections", "finite_logits", "stability"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def passes(self) -> tuple[str, ...]:
        """The passes it implements, in :data:`PASSES` order."""
        return tuple(p for p in PASSES if p in self.bound_ids)

    @property
    def masked(self) -> bool:
        """Takes ``mask=`` and ``tau=`` (fully masked tiles skipped)."""
        return bool(self.masked_counters)

    def _check_pass(self, pass_: str) -> str:
        if pass_ not in self.bound_ids:
            raise InvalidInputError(f"algorithm={self.name!r} has no {pass_} pass "
                                    f"(it implements: {', '.join(self.passes)})")
        return pass_

    def bound_id(self, pass_: str) -> str:
        """The catalogue id of its upper bound in ``pass_``."""
        return self.bound_ids[self._check_pass(pass_)]

    def label(self, pass_: str = "backward") -> str:
        """The printed name in ``pass_``."""
        return self.labels.get(pass_, self.name)

    def counter(self, pass_: str) -> Counter:
        """The closed-form counter of ``pass_``."""
        return self.counters[self._check_pass(pass_)]

    def executor(self, pass_: str) -> "Executor":
        """The executor of ``pass_``."""
        return self.executors[self._check_pass(pass_)]

    def masked_counter(self, pass_: str) -> MaskedCounter:
        """The masked counter of ``pass_``; InvalidInputError when it has none."""
        self._check_pass(pass_)
        if pass_ not in self.masked_counters:
            raise InvalidInputError(f"algorithm={self.name!r} {pass_} has no masked variant")
        return self.masked_counters[pass_]

    def block_sizes(self, pass_: str, n: int, d: int, M: int) -> dict[str, int]:
        """:meth:`BlockRule.blocks` of its rule in ``pass_``."""
        return self.block_rule.blocks(self._check_pass(pass_), n, d, M)

    def finite(self, pass_: str) -> bool:
        """Whether ``pass_`` stays finite for every finite logit (:attr:`finite_logits`)."""
        return bool(self.finite_logits[self._check_pass(pass_)])

    def computation(self, pass_: str) -> str:
        """``"forward"`` or its :attr:`backward_computation`."""
        return "forward" if self._check_pass(pass_) == "forward" else self.backward_computation


# ---- counter adapters: one signature (n, d, M, blocks=None) over the counts.py spellings ----
def _square(fn: Callable[..., counts.Counts]) -> Counter:
    def counter(n: int, d: int, M: int, blocks: Mapping[str, int] | None = None) -> counts.Counts:
        return fn(n, d, M, block=None if blocks is None else blocks["B"])
    return counter


def _flash(fn: Callable[..., counts.Counts], variant: counts.Variant = "fitted") -> Counter:
    def counter(n: int, d: int, M: int, blocks: Mapping[str, int] | None = None) -> counts.Counts:
        return fn(n, d, M, variant, None if blocks is None else (blocks["B_r"], blocks["B_c"]))
    return counter


def _dict_blocks(fn: Callable[..., counts.Counts]) -> Counter:
    def counter(n: int, d: int, M: int, blocks: Mapping[str, int] | None = None) -> counts.Counts:
        return fn(n, d, M, None if blocks is None else dict(blocks))
    return counter


def _resident_counter(pass_: str, n: int, d: int, M: int,
                      blocks: Mapping[str, int] | None = None) -> counts.Counts:
    return count_fused_resident(pass_, n, d, M, blocks)


def _lean_counter(pass_: str, n: int, d: int, M: int,
                  blocks: Mapping[str, int] | None = None) -> counts.Counts:
    return count_lean(pass_, n, d, M, blocks)


def _fixed(fn: Callable[[int, int, int], counts.Counts]) -> Counter:
    def counter(n: int, d: int, M: int, blocks: Mapping[str, int] | None = None) -> counts.Counts:
        if blocks is not None:
            raise InvalidInputError(f"{fn.__name__} takes no block sizes")
        return fn(n, d, M)
    return counter


def _masked_flash(version: int, variant: counts.Variant = "fitted") -> dict[str, MaskedCounter]:
    return {p: partial(_call_masked_flash, version, p, variant) for p in PASSES}


def _fused_masked(pass_: str) -> MaskedCounter:
    return partial(masked_counts.count_masked_small_cache_fused, pass_)


def _call_masked_flash(version: int, pass_: str, variant: counts.Variant, n: int, d: int, M: int,
                       mask: "Mask") -> counts.Counts:
    return masked_counts.count_masked_flash(version, pass_, n, d, M, variant, mask)


def _both(value: Any) -> dict[str, Any]:
    return {p: value for p in PASSES}


_FLASH_BOUNDS = {"forward": "fwd.flash1.upper", "backward": "bwd.flash1.upper"}
_FLASH1_COUNTERS = {"forward": _flash(counts.count_flash1_forward),
                    "backward": _flash(counts.count_flash1_backward)}
_FLASH2_COUNTERS = {"forward": _flash(counts.count_flash2_forward),
                    "backward": _flash(counts.count_flash2_backward)}
_FLASH1_RUNS = {"forward": executors.run_flash1_forward, "backward": executors.run_flash1_backward}
_FLASH2_RUNS = {"forward": executors.run_flash2_forward, "backward": executors.run_flash2_backward}
_EVERYWHERE = ("main", "gap", "levels", "sparse")
#: Why a pass stays finite (or not) for every finite logit: :attr:`AlgorithmSpec.stability`.
_ONLINE = "online softmax: the running row maximum is subtracted before every exp"
_RAW = ("stores A = exp(tau QK^T) without the row maximum (Saha-Ye): inf once tau q.k > 709, "
        "then NaN")
_READS_RAW = ("reads A = exp(tau QK^T) as Saha-Ye's forward stores it: inf once tau q.k > 709, "
              "then NaN (the schedule itself is shift-invariant: small-cache-stable feeds it a "
              "stable A)")
_BLOCK_MAXIMA = {"forward": "stores A = exp(tau S - t) with the row maxima t of each stored "
                            "block and L = logsumexp: every exponent <= 0",
                 "backward": "forms P = A exp(t - L) from the stored block maxima t and "
                             "logsumexp L: every exponent <= 0"}
_BLOCK_SCALES = {"forward": "stores A = exp(tau S - u), u the logsumexp of each tile row, and "
                            "the block scales g = exp(u - L) <= 1: every exponent <= 0",
                 "backward": "forms P = A g from the stored block scales g (no exponent)"}


def _finite(why: Mapping[str, str] | str, passes: tuple[str, ...] = PASSES) -> dict[str, Any]:
    """``finite_logits`` / ``stability`` keywords: every pass finite, for the reason given."""
    texts = {p: why if isinstance(why, str) else why[p] for p in passes}
    return {"finite_logits": {p: True for p in passes}, "stability": texts}


def _overflows(why: Mapping[str, str], finite: Mapping[str, bool]) -> dict[str, Any]:
    return {"finite_logits": dict(finite), "stability": dict(why)}
_OURS = ("gap", "levels", "sparse")

_SPECS: tuple[AlgorithmSpec, ...] = (
    AlgorithmSpec(
        "standard",
        "unfused attention, S, P, dP, dS in slow memory, square tiles B=floor(sqrt(M/4)) "
        "(FlashAttention Alg. 0 / Alg. 3)",
        {"forward": "fwd.standard", "backward": "bwd.standard"},
        {"forward": "standard (unfused)", "backward": "standard (unfused)"},
        "#7f7f7f",
        counters={"forward": _square(counts.count_standard_forward),
                  "backward": _square(counts.count_standard_backward)},
        executors={"forward": executors.run_standard_forward, "backward": executors.run_standard_backward},
        masked_counters={"forward": masked_counts.count_masked_standard_forward,
                         "backward": masked_counts.count_masked_standard_backward},
        tunable=True, selections=_both(_EVERYWHERE),
        **_finite({"forward": "two-pass softmax: the row maximum of S is subtracted before exp",
                   "backward": "reads P (entries in [0, 1]) from the forward"})),
    AlgorithmSpec(
        "flash1",
        "FlashAttention-1 forward Alg. 1 / backward Alg. 4, fitted block sizes "
        "(the I/O-optimal B_r, B_c whose tiles fit in M words)",
        _FLASH_BOUNDS, {"forward": "FlashAttention-1", "backward": "FlashAttention-1"},
        "#1f77b4", counters=_FLASH1_COUNTERS, executors=_FLASH1_RUNS,
        block_rule=BlockRule("flash", 1), masked_counters=_masked_flash(1), tunable=True,
        backward_computation="recompute", selections=_both(_EVERYWHERE),
        **_finite({"forward": _ONLINE,
                   "backward": "P = exp(S - m)/l from the forward's row maxima m and sums l"})),
    AlgorithmSpec(
        "flash2",
        "FlashAttention-2 loop orders (forward Q-outer, backward KV-outer), fitted blocks",
        _FLASH_BOUNDS, {"forward": "FlashAttention-2", "backward": "FlashAttention-2"},
        "#17becf", counters=_FLASH2_COUNTERS, executors=_FLASH2_RUNS,
        block_rule=BlockRule("flash", 2), masked_counters=_masked_flash(2), tunable=True,
        backward_computation="recompute", selections=_both(_EVERYWHERE),
        **_finite({"forward": _ONLINE + "; writes L = m + log l",
                   "backward": "P = exp(S - L) from the forward's logsumexp L"})),
    AlgorithmSpec(
        "square-tiling",
        "Saha-Ye SquareTilingAttention forward, B=floor(sqrt(M/4)) (forward only)",
        {"forward": "fwd.square_tiling.upper"}, {"forward": "Saha–Ye square tiling"},
        "#d62728",
        counters={"forward": _square(counts.count_square_tiling_forward)},
        executors={"forward": executors.run_square_tiling_forward},
        masked_counters={"forward": masked_counts.count_masked_square_tiling_forward},
        tunable=True, selections={"forward": (*_EVERYWHERE, "crossover")},
        **_overflows({"forward": _RAW}, {"forward": False})),
    AlgorithmSpec(
        "small-cache",
        "forward: Saha-Ye square tiling; backward: Algorithm 6 for dQ, dK, dV "
        "(RECONSTRUCTED), B=floor(sqrt(M/4))",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "Saha–Ye small cache", "backward": "Algorithm 6 (small cache)"},
        "#d62728",
        counters={"forward": _square(counts.count_square_tiling_forward),
                  "backward": _square(counts.count_small_cache_backward)},
        executors={"forward": executors.run_square_tiling_forward,
                   "backward": executors.run_small_cache_backward},
        masked_counters={"forward": masked_counts.count_masked_square_tiling_forward,
                         "backward": masked_counts.count_masked_small_cache_backward},
        # forward: the schedule of square-tiling, which the forward selections list instead
        tunable=True, selections={"backward": (*_EVERYWHERE, "crossover")},
        **_overflows({"forward": _RAW, "backward": _READS_RAW},
                     {"forward": False, "backward": False})),
    AlgorithmSpec(
        "small-cache-fused",
        "Saha-Ye forward / Algorithm 6 backward with rank-1 streamed tiles of searched sides: "
        "one accumulator per n x n tile, output-stationary products, stable storage of the "
        "scores (A relative to each tile row's logsumexp, block scales g) (ours)",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "small cache, fused (ours)", "backward": "Algorithm 6, fused (ours)"},
        "#ff7f0e",
        counters={"forward": _dict_blocks(counts.count_small_cache_fused_forward),
                  "backward": _dict_blocks(counts.count_small_cache_fused_backward)},
        executors={"forward": executors.run_small_cache_fused_forward,
                   "backward": executors.run_small_cache_fused_backward},
        block_rule=BlockRule("fused"), tunable=True, selections=_both(_OURS),
        masked_counters={"forward": _fused_masked("forward"),
                         "backward": _fused_masked("backward")},
        **_finite(_BLOCK_SCALES)),
    AlgorithmSpec(
        "fused-resident",
        "small-cache-fused's computation (the scores written / read, stably: A relative to the "
        "row maxima of each key block, with the maxima and the logsumexp) with a resident-block "
        "first pass: a block of K (forward) or V (backward) rows resident, the other operand "
        "streamed a row at a time; output-stationary products; blocks by exact search (ours)",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "small cache, fused, resident block (ours)",
         "backward": "Algorithm 6, fused, resident block (ours)"},
        "#9edae5",
        counters={p: partial(_resident_counter, p) for p in PASSES},
        executors={"forward": executors.run_fused_resident_forward,
                   "backward": executors.run_fused_resident_backward},
        block_rule=BlockRule("resident"), tunable=True, selections=_both(("gap",)),
        masked_counters={p: partial(count_masked_fused_resident, p) for p in PASSES},
        **_finite(_BLOCK_MAXIMA)),
    AlgorithmSpec(
        "flash2-split",
        "FlashAttention-2's backward split (ours): a KV-outer pass for dK, dV that never "
        "touches dQ, then dQ by a Q-outer recompute pass or as dS K from a dS the first pass "
        "wrote; blocks and pass by exact search (backward only)",
        {"backward": _FLASH_BOUNDS["backward"]},
        {"backward": "FlashAttention-2, split dQ pass (ours)"}, "#bcbd22",
        counters={"backward": _dict_blocks(count_flash2_split_backward)},
        executors={"backward": executors.run_flash2_split_backward},
        block_rule=BlockRule("split"), tunable=True, backward_computation="recompute",
        selections={"backward": ("gap",)},
        masked_counters={"backward": count_masked_flash2_split_backward},
        **_finite("P = exp(S - L) from the forward's logsumexp L", ("backward",))),
    AlgorithmSpec(
        "flash2-lean",
        "FlashAttention-2's loop orders with the fewest resident words (ours): no score tile "
        "(each update recomputes its scores), streamed rows one at a time where smaller; the "
        "backward is flash2-split's, its dQ pass first and forming D; blocks by exact search",
        _FLASH_BOUNDS,
        {"forward": "FlashAttention-2, lean (ours)", "backward": "FlashAttention-2, lean (ours)"},
        "#aec7e8",
        counters={p: partial(_lean_counter, p) for p in PASSES},
        executors={"forward": executors.run_lean_forward,
                   "backward": executors.run_lean_backward},
        block_rule=BlockRule("lean"), tunable=True, backward_computation="recompute",
        selections=_both(("gap", "levels")),
        masked_counters={p: partial(count_masked_lean, p) for p in PASSES},
        **_finite({"forward": _ONLINE + "; writes L = m + log l",
                   "backward": "P = exp(S - L) from the forward's logsumexp L"})),
    AlgorithmSpec(
        "small-cache-stable",
        "small-cache with stable storage (ours): the forward stores A = exp(tau QK^T - m) with "
        "the row maxima m (tile maxima + one rescaling sweep, +2n^2 + 2n ceil(n/B) words); the "
        "backward is Algorithm 6 unchanged on it, B=floor(sqrt(M/4))",
        {"forward": "fwd.square_tiling.upper", "backward": "bwd.alg6.upper"},
        {"forward": "Saha–Ye small cache, stable (ours)",
         "backward": "Algorithm 6, stable storage (ours)"},
        "#e377c2",
        counters={"forward": _square(counts.count_small_cache_stable_forward),
                  "backward": _square(counts.count_small_cache_backward)},
        executors={"forward": executors.run_small_cache_stable_forward,
                   "backward": executors.run_small_cache_stable_backward},
        masked_counters={"forward": masked_counts.count_masked_small_cache_stable_forward,
                         "backward": masked_counts.count_masked_small_cache_backward},
        tunable=True,
        **_finite({"forward": "tile maxima, then a rescaling sweep: A = exp(tau S - m) with the "
                              "row maxima m, entries in [0, 1]",
                   "backward": "Algorithm 6 on the stable A: P = A/l with l >= 1"})),
    AlgorithmSpec(
        "small-cache-dx",
        "Algorithm 6 for the paper's dL/dX = A1^T p A2 (RECONSTRUCTED, backward only)",
        {"backward": "bwd.alg6.upper"}, {"backward": "Algorithm 6 for dX"}, "#8c564b",
        counters={"backward": _fixed(counts.count_small_cache_dx)},
        executors={"backward": executors.run_small_cache_dx}, backward_computation="dX",
        **_overflows({"backward": "Saha-Ye's phase 1 inside: U = exp(A1 X A2^T) without the row "
                                  "maximum, inf once a logit passes 709, then NaN"},
                     {"backward": False})),
    AlgorithmSpec(
        "flash1-published",
        "FlashAttention-1 with the printed B_c=ceil(M/4d), B_r=min(B_c,d) "
        "(overflows M: reported as CacheOverflowError)",
        _FLASH_BOUNDS,
        {"forward": "FlashAttention-1 (printed blocks)",
         "backward": "FlashAttention-1 (printed blocks)"},
        "#9467bd",
        counters={"forward": _flash(counts.count_flash1_forward, "published"),
                  "backward": _flash(counts.count_flash1_backward, "published")},
        executors=_FLASH1_RUNS, block_rule=BlockRule("flash", 1, "published"),
        masked_counters=_masked_flash(1, "published"), backward_computation="recompute",
        **_finite({"forward": _ONLINE + " (FlashAttention-1's executor)",
                   "backward": "FlashAttention-1's executor: P = exp(S - m)/l"})),
    AlgorithmSpec(
        "flash2-gqa",
        "FlashAttention-2 loop orders on each K/V group, the group's query heads stacked: K/V "
        "tiles stay resident while all its query heads stream (ours; one head: flash2; many "
        "heads: attnio.algorithms.heads)",
        _FLASH_BOUNDS,
        {"forward": "FlashAttention-2, GQA order (ours)",
         "backward": "FlashAttention-2, GQA order (ours)"},
        "#2ca02c",
        # one head (one group of one query head) runs the schedule of flash2
        counters=_FLASH2_COUNTERS, executors=_FLASH2_RUNS, block_rule=BlockRule("flash", 2),
        masked_counters=_masked_flash(2),
        backward_computation="recompute", kv_grouped=True, selections=_both(("levels",)),
        **_finite({"forward": _ONLINE + "; writes L = m + log l",
                   "backward": "P = exp(S - L) from the forward's logsumexp L"})),
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


def selection(name: str, pass_: str) -> tuple[str, ...]:
    """The algorithms of the selection ``name`` (:data:`SELECTIONS`) in ``pass_``, in
    registry order.

    >>> selection("gap", "forward")
    ('standard', 'flash1', 'flash2', 'square-tiling', 'small-cache-fused', 'fused-resident', 'flash2-lean')
    """
    if name not in SELECTIONS:
        raise InvalidInputError(f"selection={name!r} is unknown; known: {', '.join(SELECTIONS)}")
    if pass_ not in PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be one of {', '.join(PASSES)}")
    return tuple(s.name for s in _SPECS if name in s.selections.get(pass_, ()))


def label(name: str, pass_: str = "backward") -> str:
    """The printed name of ``name`` in ``pass_`` (an unregistered name prints as itself)."""
    spec = REGISTRY.get(name)
    return spec.label(pass_) if spec is not None else name


def colour(name: str) -> str | None:
    """The colour of ``name`` in every figure (None: not registered or no fixed colour)."""
    spec = REGISTRY.get(name)
    return spec.colour if spec is not None else None
