r"""Words across every boundary of a memory hierarchy, beside the lower bound at each boundary.

The hierarchy model is :mod:`attnio.algorithms.hierarchy` (levels, capacities
:math:`M_i = c_0 + \dots + c_i` above boundary ``i``, bandwidths, the device table's one-SM
hierarchies). This module puts, at every boundary, each algorithm's exact words (the
two-level count at :math:`M_i`, :func:`attnio.algorithms.simulation.count`) beside the lower
bound there.

Lower bound at each boundary (claim ``hierarchy.boundary_lower_bound`` of
:mod:`attnio.proofs.hierarchy_claims`): every schedule on the hierarchy moves at least
``best_lower_bound(pass, n, d, M_i)`` words across boundary ``i``
(:func:`attnio.bounds.attention.best_lower_bound`, the two-level explicit-constant bound)
— hypotheses: arithmetic happens only in level 0; inputs start and outputs end in the
slowest level; a word occupies capacity in every level that holds a copy. RECONSTRUCTED (our
reduction; Hong & Kung 1981 §2 for the two-level game; executed on random multi-level
schedules by the claim). With ``batch``/``heads``/``kv_heads`` the bound is the stacked bound
of all B·H query heads in B·G groups at :math:`M_i`
(:func:`attnio.bounds.heads.stacked_lower_bound`).

Regime at each level: ``"small-cache"`` if :math:`M_i < d^2`, ``"large-cache"`` if
:math:`M_i > d^2`, ``"crossover"`` at equality (the derived crossover of Thm 1.1,
:func:`attnio.algorithms.advisor.classify_regime`).

Examples
--------
>>> from attnio.algorithms.hierarchy import Hierarchy
>>> from attnio.algorithms.simulation import count
>>> h = Hierarchy.from_words([("fast", 256, None), ("mid", 4096, 10**12), ("slow", None, 10**11)])
>>> rows = hierarchy_counts("flash2", "backward", 64, 8, h)
>>> [r["words"] for r in rows] == [count("flash2", "backward", 64, 8, M).io for M in (256, 4352)]
True
>>> rows[0]["regime"], rows[1]["regime"]
('large-cache', 'large-cache')
"""

from __future__ import annotations

from typing import Any, Sequence

from attnio.algorithms.advisor import classify_regime
from attnio.algorithms.heads import simulate_heads, validate_heads
from attnio.algorithms.hierarchy import (
    LEVEL_ALGORITHMS,
    Counter,
    Hierarchy,
    transfer_seconds,
)
from attnio.algorithms.instance import Instance
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import get_algorithm
from attnio.algorithms.simulation import SimulationResult, count, simulate
from attnio.bounds.instance_bounds import level_rows
from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.provenance import provenance

__all__ = ["bottleneck", "boundary_lower_bound", "hierarchy_counts",
           "instance_gap_rows", "levels_from_rows", "levels_report", "multihead_gap_payload"]


def boundary_lower_bound(pass_: str, n: int, d: int, M: int, *, batch: int = 1,
                         heads: int = 1, kv_heads: int | None = None) -> tuple[int, str]:
    """The two-level explicit lower bound at cache M and its route (claim
    ``hierarchy.boundary_lower_bound``), for B·H query heads in B·G K/V groups: the stacked
    bound of :func:`attnio.bounds.heads.multihead_lower_bound`."""
    from attnio.bounds.heads import multihead_lower_bound

    return multihead_lower_bound(pass_, n, d, M, batch=batch, heads=heads, kv_heads=kv_heads)


def hierarchy_counts(algorithm: str, pass_: str, n: int, d: int, hierarchy: Hierarchy, *,
                     execute: bool = False, seed: int = 0, batch: int = 1, heads: int = 1,
                     kv_heads: int | None = None, counter: Counter | None = None
                     ) -> list[dict[str, Any]]:
    """One row per boundary: M, words moved (reads, writes), lower bound, times, regime.

    ``counter(M)`` overrides how one boundary's run is obtained (default: ``count`` or, with
    ``execute``, ``simulate(..., execute=True)`` at cache M); ``batch``, ``heads``,
    ``kv_heads``: :func:`attnio.algorithms.heads.simulate_heads` (count or execute) and the
    stacked lower bound of B·H heads in B·G groups. A boundary at which no tile set of the
    algorithm fits gets ``words = None`` and the reason. Times in seconds: ``words × word_bytes ÷ bandwidth``
    (None when the bandwidth is not published); the lower-bound time likewise.
    """

    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    multi = (batch, heads, kv) != (1, 1, 1)
    if counter is None:
        def counter(M: int) -> SimulationResult:
            if multi or get_algorithm(algorithm).kv_grouped:
                return simulate_heads(algorithm, pass_, n, d, M, batch=batch, heads=heads,
                                      kv_heads=kv, execute=execute, seed=seed)
            if execute:
                return simulate(algorithm, pass_, n, d, M, execute=True, seed=seed)
            return count(algorithm, pass_, n, d, M)
    rows: list[dict[str, Any]] = []
    for b in hierarchy.boundaries():
        regime, _ = classify_regime(b.M, d)
        lower, route = boundary_lower_bound(pass_, n, d, b.M, batch=batch, heads=heads,
                                            kv_heads=kv)
        row: dict[str, Any] = {
            "boundary": b.index, "above": b.above, "below": b.below, "M": b.M,
            "bandwidth_bytes_per_s": b.bandwidth, "regime": regime,
            "lower_bound_words": lower, "lower_bound_route": route,
            "lower_bound_seconds": transfer_seconds(lower, hierarchy.word_bytes, b),
        }
        try:
            run = counter(b.M)
        except InfeasibleError as exc:  # no tile set fits this level: reported in the row
            row.update(words=None, reads=None, writes=None, seconds=None,
                       omitted=" ".join(str(exc).split()))
        else:
            row.update(words=run.io, reads=run.reads, writes=run.writes,
                       seconds=transfer_seconds(run.io, hierarchy.word_bytes, b),
                       executed=run.executed, closed_form_match=run.closed_form_match)
        rows.append(row)
    return rows


def bottleneck(rows: list[dict[str, Any]], key: str = "seconds") -> int | None:
    """Index of the boundary with the largest ``key`` time (None if no time is known)."""
    timed = [(r[key], r["boundary"]) for r in rows if r.get(key) is not None]
    return max(timed)[1] if timed else None


def levels_from_rows(instance: Instance, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The per-level JSON of ``attnio bounds --device/--hierarchy`` from
    :func:`attnio.bounds.instance_bounds.level_rows` (the one computation): per boundary the
    capacity, regime, certified lower bound of the whole instance (mask and heads included),
    every algorithm's exact count (``algorithms``; those with no run under ``omitted`` with
    the reason) and the best one; and the bottleneck boundaries."""
    assert instance.hierarchy is not None  # levels are the boundaries of a hierarchy
    bounds = {b.index: b for b in instance.hierarchy.boundaries()}
    levels: list[dict[str, Any]] = []
    for row in rows:
        b = bounds[row["index"]]
        lb = row["lower_bound"]
        levels.append({
            "boundary": b.index, "above": b.above, "below": b.below,
            "capacity_words": b.M, "capacity_bytes": b.M * instance.hierarchy.word_bytes,
            "bandwidth_bytes_per_s": b.bandwidth, "regime": row["regime"],
            "d_squared": row["d_squared"],
            "lower_bound_words": lb["value"], "lower_bound_route": lb["route"],
            "lower_bound_claim": lb["claim_id"],
            "lower_bound_seconds": transfer_seconds(lb["value"], instance.hierarchy.word_bytes,
                                                    b),
            "best_algorithm": row["best_algorithm"], "best_words": row["best_io"],
            "best_seconds": transfer_seconds(row["best_io"], instance.hierarchy.word_bytes, b),
            "algorithms": {e["algorithm"]: e["io"] for e in row["algorithms"]
                           if e["io"] is not None},
            "omitted": {e["algorithm"]: e["not_applicable"] for e in row["algorithms"]
                        if e["io"] is None},
        })

    def slowest(key: str) -> int | None:
        timed = [(lvl[key], lvl["boundary"]) for lvl in levels if lvl[key] is not None]
        return max(timed)[1] if timed else None

    return {"hierarchy": instance.hierarchy.to_json(), "pass": instance.pass_, "n": instance.n,
            "d": instance.d, "batch": instance.batch, "heads": instance.heads,
            "kv_heads": instance.kv_heads,
            "mask": None if instance.mask is None else instance.mask.label, "levels": levels,
            "bottleneck_boundary": slowest("best_seconds"),
            "bottleneck_boundary_lower_bound": slowest("lower_bound_seconds")}


def levels_report(hierarchy: Hierarchy, pass_: str, n: int, d: int, *, batch: int = 1,
                  heads: int = 1, kv_heads: int | None = None,
                  mask: Mask | None = None) -> dict[str, Any]:
    """Per boundary: capacity M_i, regime, lower bound (words, seconds), every algorithm's
    exact count (the ``levels`` selection), the best one (words, seconds); and the bottleneck
    boundaries — for B·H heads in B·G groups and ``mask`` (every head), whole
    (:func:`levels_from_rows` of :func:`attnio.bounds.instance_bounds.level_rows`).

    >>> h = Hierarchy.from_words([("smem", 2048, None), ("hbm", None, 10**12)])
    >>> r = levels_report(h, "backward", 1024, 64, heads=4, kv_heads=2)
    >>> lvl = r["levels"][0]
    >>> lvl["regime"], lvl["best_algorithm"], lvl["best_words"] >= lvl["lower_bound_words"]
    ('small-cache', 'small-cache-fused', True)
    """
    instance = Instance.build(n, d, pass_=pass_, hierarchy=hierarchy, batch=batch,
                              heads=heads, kv_heads=kv_heads, mask=mask)
    return levels_from_rows(instance, level_rows(instance, LEVEL_ALGORITHMS[pass_]))


def multihead_gap_payload(pass_: str, n: int, d: int, Ms: Sequence[int], *, batch: int = 1,
                          heads: int = 1, kv_heads: int | None = None,
                          mask: Mask | None = None) -> dict[str, Any]:
    """``attnio gap``'s document for B·H heads in G groups and/or a mask: one row per M from
    :func:`attnio.bounds.instance_bounds.level_rows` (the certified bound of the whole
    instance, the ``levels`` selection's counts), shaped as :func:`attnio.bounds.gap.gap_rows`'
    rows (an algorithm with no run under ``omitted`` with the reason).

    >>> p = multihead_gap_payload("backward", 256, 16, [1024], heads=4, kv_heads=2)
    >>> row = p["rows"][0]
    >>> (p["heads"], p["kv_heads"]), row["best_io"] >= row["lower_bound"]
    ((4, 2), True)
    """

    instance = Instance.build(n, d, pass_=pass_, M=list(Ms), batch=batch, heads=heads,
                              kv_heads=kv_heads, mask=mask)
    return {"rows": instance_gap_rows(instance, LEVEL_ALGORITHMS[pass_]), "pass": pass_,
            "n": n, "d": d, "tune": False, "batch": instance.batch, "heads": instance.heads,
            "kv_heads": instance.kv_heads,
            "mask": None if mask is None else mask.label, **provenance()}


def instance_gap_rows(instance: Instance, algorithms: tuple[str, ...] | None = None
                      ) -> list[dict[str, Any]]:
    """One gap row per cache level of ``instance`` (:func:`attnio.bounds.gap.gap_rows`'
    shape: ``M``, ``lower_bound``, ``route``, ``claim_id``, ``algorithms``, ``omitted``,
    ``best_algorithm``, ``best_io``, ``ratio``, ``unstable_cheaper``; plus ``level``). A
    level at which no
    algorithm runs is left out; none at all is an InvalidInputError."""
    rows: list[dict[str, Any]] = []
    for lvl in level_rows(instance, algorithms):
        if lvl["best_algorithm"] is None:
            continue
        lb = lvl["lower_bound"]
        rows.append({"M": lvl["M"], "level": lvl["level"], "lower_bound": lb["value"],
                     "route": lb["route"], "claim_id": lb["claim_id"],
                     "algorithms": {e["algorithm"]: e["io"] for e in lvl["algorithms"]
                                    if e["io"] is not None},
                     "best_algorithm": lvl["best_algorithm"], "best_io": lvl["best_io"],
                     "ratio": lvl["ratio"],
                     "omitted": {e["algorithm"]: e["not_applicable"]
                                 for e in lvl["algorithms"] if e["io"] is None},
                     "unstable_cheaper": {e["algorithm"]: {k: e[k] for k in
                                                           ("io", "ratio", "reason")}
                                          for e in lvl["unstable_cheaper"]}})
    if not rows:
        raise InvalidInputError(f"no algorithm of the {instance.pass_} pass fits any M of the "
                                "sweep")
    return rows
