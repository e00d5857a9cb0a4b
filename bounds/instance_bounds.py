r"""Every bound and count of one attention instance, level by level: the one answer (issue 34).

This module turns an :class:`attnio.algorithms.instance.Instance` (sizes, pass, heads and
groups, mask, cache levels, bytes per word) into what ``attnio advise``, ``attnio gap``,
``attnio bounds`` (its per-level table) and ``attnio simulate`` print — from the same functions,
so a figure two commands show is the same figure.

Lower bounds for the instance (:func:`instance_lower_bound`)
----------------------------------------------------------
Each is an exact ``int`` valid for **every schedule** of the red-blue pebble game with
:math:`M` red pebbles (Hong & Kung 1981; inputs are sources, never computed; recomputation
allowed) on the computation of one **class** (:data:`attnio.bounds.attention.COMPUTATIONS`:
``forward``; backward ``recompute`` — scores recomputed from Q, K, FlashAttention's class — or
``given-scores`` — an :math:`n\times n` input read back, standard attention's and
Algorithm 6's class), for the whole instance:

* no mask (or a mask that keeps every entry): the stacked-head bound of B·H query heads in
  B·G K/V groups, :func:`attnio.bounds.heads.stacked_lower_bound` (B = H = G = 1: the
  single-head :func:`~attnio.bounds.attention.best_lower_bound`); claims
  ``heads.stacked_compulsory``, ``heads.stacked_segment`` and the single-head ``gap.*``;
* a mask that drops entries: the per-mask bound of B·H heads (the same mask for every head),
  :func:`attnio.bounds.masks.best_mask_lower_bound`; claims ``mask.below_algorithms``,
  ``mask.routes_consistent``. The dense bounds do **not** hold for a masked computation
  (fewer products): using them printed a bound 18× above an executed count (issue 35).

With ``computation="any"`` the bound is the smallest class maximum: it holds for every
algorithm of the pass, whatever its class — the figure a "distance from the I/O optimum"
divides by. Per class (:func:`class_lower_bounds`) each bound holds for every algorithm of
that class only; a table that prints it names the class.

Admissible range: every :math:`n, d, M \ge 1`, every mask of side n, :math:`H` a multiple of
:math:`G`. RECONSTRUCTED (ours): the segment argument of notes/gap.md, its stacked and masked
forms (notes/gap.md "Many heads", notes/sparse.md).

Examples
--------
>>> from attnio.algorithms.instance import Instance
>>> from attnio.algorithms.masks import Mask
>>> inst = Instance.build(64, 8, M=[64], mask=Mask.window(1), heads=4, kv_heads=1)
>>> instance_lower_bound(inst, 64).value <= 17152          # flash2-gqa's executed count
True
>>> lvl = level_rows(inst)[0]
>>> lvl["best_algorithm"], lvl["best_io"] >= lvl["lower_bound"]["value"]
('flash2-gqa', True)
"""

from __future__ import annotations

from typing import Any

from attnio.algorithms.advisor import classify_regime
from attnio.algorithms.hierarchy import Boundary, transfer_seconds
from attnio.algorithms.instance import (
    CacheLevel,
    Instance,
    NotApplicable,
    count_instance,
    instance_algorithms,
)
from attnio.algorithms.registry import get_algorithm
from attnio.bounds.attention import GapBound
from attnio.bounds.heads import stacked_lower_bound
from attnio.bounds.masks import best_mask_lower_bound
from attnio.exceptions import InvalidInputError

__all__ = ["CLASSES", "instance_lower_bound", "class_lower_bounds", "level_rows",
           "comparable", "headline", "not_finite_reason", "recommend", "transfer_seconds_of"]

#: The computation classes of each pass (an algorithm's class:
#: :meth:`attnio.algorithms.registry.AlgorithmSpec.computation`).
CLASSES: dict[str, tuple[str, ...]] = {"forward": ("forward",),
                                       "backward": ("recompute", "given-scores")}


def instance_lower_bound(instance: Instance, M: int, computation: str = "any") -> GapBound:
    """The certified lower bound of the whole instance at cache ``M`` (module docstring):
    ``computation`` one class of the pass, or ``"any"`` (the smallest class maximum; backward:
    its route starts with the binding class).

    Raises
    ------
    InvalidInputError
        ``computation`` is not a class of the instance's pass (``dX`` has no certified bound).
    """
    if computation != "any" and computation not in CLASSES[instance.pass_]:
        raise InvalidInputError(f"computation={computation!r} has no certified lower bound in "
                                f"the {instance.pass_} pass (classes: "
                                f"{', '.join(CLASSES[instance.pass_])})")
    shape = {"batch": instance.batch, "heads": instance.heads, "kv_heads": instance.kv_heads}
    mask = instance.sparse_mask
    if mask is None:
        return stacked_lower_bound(instance.pass_, instance.n, instance.d, M,
                                   computation=computation, **shape)
    return best_mask_lower_bound(instance.pass_, mask, instance.n, instance.d, M, computation,
                                 **shape)


def class_lower_bounds(instance: Instance, M: int) -> dict[str, GapBound]:
    """The certified bound of each computation class of the pass at ``M``."""
    return {cls: instance_lower_bound(instance, M, cls) for cls in CLASSES[instance.pass_]}


def comparable(algorithm: str, pass_: str) -> bool:
    """Whether the algorithm computes the pass's outputs (O; dQ, dK, dV): ``small-cache-dx``
    computes the paper's dL/dX instead, so it is listed but never "best"."""
    return get_algorithm(algorithm).computation(pass_) in CLASSES[pass_]


def headline(algorithm: str, pass_: str) -> bool:
    """Whether the algorithm may be a headline's "best" (``attnio gap``, ``attnio advise``, the
    exact worst ratio, the gap table): it computes the pass's outputs (:func:`comparable`)
    **and** its registry record says the pass stays finite for every finite logit
    (:meth:`~attnio.algorithms.registry.AlgorithmSpec.finite`, issue 35 item 3). An algorithm
    that overflows is still counted and printed, apart, with :func:`not_finite_reason`.

    >>> headline("flash2", "forward"), headline("square-tiling", "forward")
    (True, False)
    >>> headline("small-cache-dx", "backward")   # computes dL/dX, and overflows too
    False
    """
    return comparable(algorithm, pass_) and get_algorithm(algorithm).finite(pass_)


def not_finite_reason(algorithm: str, pass_: str) -> str | None:
    """Why ``algorithm``'s ``pass_`` is left out of a headline for numerical stability (its
    registry record's ``stability`` line), or None when it stays finite for every finite logit.

    >>> not_finite_reason("square-tiling", "forward")[:46]
    'not finite for every logit: stores A = exp(tau'
    >>> not_finite_reason("flash2", "backward") is None
    True
    """
    spec = get_algorithm(algorithm)
    if spec.finite(pass_):
        return None
    return f"not finite for every logit: {spec.stability[pass_]}"


def transfer_seconds_of(instance: Instance, words: int | None, level: CacheLevel
                        ) -> float | None:
    """``words`` × bytes per word ÷ the bandwidth below ``level``
    (:func:`attnio.algorithms.hierarchy.transfer_seconds`: None when the bandwidth, the
    dtype or the count is unknown; a time beyond the float range is an InvalidInputError)."""
    if words is None or instance.word_bytes is None or level.bandwidth is None:
        return None
    above, _, below = level.name.partition(" | ")
    return transfer_seconds(words, instance.word_bytes,
                            Boundary(level.index, above, below, level.M, level.bandwidth))


def level_rows(instance: Instance, algorithms: tuple[str, ...] | None = None
               ) -> list[dict[str, Any]]:
    """One entry per cache level of the instance: the level, its regime, the certified lower
    bound for every algorithm (``"any"``) and per class, every algorithm's counted I/O (or
    ``n/a`` and why), and the best algorithm by counted I/O.

    ``algorithms``: which algorithms (default: every registered one of the pass,
    :func:`~attnio.algorithms.instance.instance_algorithms`). Each algorithm entry:
    ``{"algorithm", "computation", "io", "reads", "writes", "bytes", "seconds",
    "io_over_lower_bound", "io_over_class_bound", "not_applicable"}`` (``io`` None with the
    reason in ``not_applicable``; ``finite_logits`` from the registry record).
    ``best_algorithm`` is the fewest counted words among the algorithms that compute the
    pass's outputs and stay finite for every finite logit (:func:`headline`; ties: registry
    order); ``unstable_cheaper`` lists the algorithms that would be cheaper but overflow
    (``{"algorithm", "io", "ratio", "reason"}``, never the best); ``io_over_lower_bound``
    divides by the ``"any"`` bound: how far that count is, at most, from the I/O optimum.

    Raises
    ------
    AssertionError
        A count below a certified bound of its class: a refuted lower bound is never
        printed.
    """
    names = instance_algorithms(instance) if algorithms is None else algorithms
    out: list[dict[str, Any]] = []
    for level in instance.levels:
        M = level.M
        regime, d_squared = classify_regime(M, instance.d)
        anyb = instance_lower_bound(instance, M)
        per_class = class_lower_bounds(instance, M)
        entries: list[dict[str, Any]] = []
        for name in names:
            cls = get_algorithm(name).computation(instance.pass_)
            result = count_instance(instance, name, M)
            entry: dict[str, Any] = {"algorithm": name, "computation": cls}
            if isinstance(result, NotApplicable):
                entry.update(io=None, reads=None, writes=None, bytes=None, seconds=None,
                             io_over_lower_bound=None, io_over_class_bound=None,
                             not_applicable=result.reason)
            else:
                own = per_class.get(cls)
                if own is not None and result.io < own.value:  # pragma: no cover - a refutation
                    raise AssertionError(f"{name} moves {result.io} words < the certified "
                                         f"{cls} bound {own.value} at M={M}: {own.route}")
                entry.update(
                    io=result.io, reads=result.reads, writes=result.writes,
                    bytes=instance.to_bytes(result.io),
                    seconds=transfer_seconds_of(instance, result.io, level),
                    io_over_lower_bound=(result.io / anyb.value
                                         if comparable(name, instance.pass_) and anyb.value
                                         else None),
                    io_over_class_bound=(result.io / own.value if own is not None and own.value
                                         else None),
                    not_applicable=None)
                if not comparable(name, instance.pass_):
                    entry["note"] = "computes dL/dX only (the paper's gradient), not dQ, dK, dV"
                elif not headline(name, instance.pass_):
                    entry["note"] = (f"{not_finite_reason(name, instance.pass_)}; never the "
                                     "best algorithm")
            entry["finite_logits"] = get_algorithm(name).finite(instance.pass_)
            entries.append(entry)
        ranked = [e for e in entries if e["io"] is not None
                  and headline(e["algorithm"], instance.pass_)]
        best = min(ranked, key=lambda e: e["io"]) if ranked else None
        # cheaper than the best, but left out of it: they overflow (shown apart, with why)
        unstable = [{"algorithm": e["algorithm"], "io": e["io"],
                     "ratio": e["io_over_lower_bound"],
                     "reason": not_finite_reason(e["algorithm"], instance.pass_)}
                    for e in entries if e["io"] is not None
                    and comparable(e["algorithm"], instance.pass_)
                    and not headline(e["algorithm"], instance.pass_)
                    and (best is None or e["io"] < best["io"])]
        out.append({
            "level": level.name, "index": level.index, "M": M,
            "M_bytes": instance.to_bytes(M), "bandwidth_bytes_per_s": level.bandwidth,
            "regime": regime, "d_squared": d_squared,
            "lower_bound": {"value": anyb.value, "route": anyb.route,
                            "claim_id": anyb.claim_id, "bytes": instance.to_bytes(anyb.value),
                            "seconds": transfer_seconds_of(instance, anyb.value, level),
                            "holds_for": "every algorithm of the pass (every class)"},
            "class_bounds": {cls: {"value": b.value, "route": b.route, "claim_id": b.claim_id,
                                   "holds_for": f"every {cls} algorithm"}
                             for cls, b in per_class.items()},
            "algorithms": entries,
            "best_algorithm": None if best is None else best["algorithm"],
            "best_io": None if best is None else best["io"],
            "best_bytes": None if best is None else best["bytes"],
            "best_seconds": None if best is None else best["seconds"],
            "ratio": None if best is None or not anyb.value else best["io"] / anyb.value,
            "unstable_cheaper": unstable,
        })
    return out


def recommend(instance: Instance, levels: list[dict[str, Any]]) -> dict[str, Any]:
    """The algorithm to run, from counted I/O only (never from catalogue constants), among the
    algorithms that stay finite for every finite logit (:func:`headline`).

    With bandwidths known (a device or a hierarchy file): the algorithm whose slowest
    boundary is fastest (the least ``max`` over timed boundaries of words × bytes ÷
    bandwidth, the model of :mod:`attnio.algorithms.hierarchy`: no overlap), among the
    algorithms that run at every boundary. Otherwise, with one level: the fewest words; with
    several untimed levels, the fewest words summed over the levels. Returns ``{"algorithm",
    "rule", "per_level"}`` (``algorithm`` None when no algorithm runs at every level).
    """
    per_level = [lvl["best_algorithm"] for lvl in levels]
    names = [e["algorithm"] for e in levels[0]["algorithms"]
             if headline(e["algorithm"], instance.pass_)] if levels else []
    runs = {name: [next(e for e in lvl["algorithms"] if e["algorithm"] == name)
                   for lvl in levels] for name in names}
    everywhere = {name: es for name, es in runs.items() if all(e["io"] is not None for e in es)}
    timed = any(lvl["bandwidth_bytes_per_s"] is not None for lvl in levels)
    if not everywhere:
        return {"algorithm": None, "rule": "no algorithm runs at every level",
                "per_level": per_level}
    if timed and instance.word_bytes is not None:
        def slowest(es: list[dict[str, Any]]) -> float:
            return max(e["seconds"] for e in es if e["seconds"] is not None)
        pick = min(everywhere, key=lambda name: slowest(everywhere[name]))
        rule = ("fewest seconds at its slowest boundary (words × bytes ÷ bandwidth, each "
                "boundary on its own, no overlap)")
    elif len(levels) == 1:
        pick = min(everywhere, key=lambda name: everywhere[name][0]["io"])
        rule = "fewest counted words"
    else:
        pick = min(everywhere, key=lambda name: sum(e["io"] for e in everywhere[name]))
        rule = "fewest counted words summed over the levels (no bandwidths known)"
    return {"algorithm": pick, "rule": rule, "per_level": per_level}
