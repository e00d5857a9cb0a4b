r"""The sandwich as a property (issue 21, item 3): every printed lower bound ≤ every exact count.

At one instance — pass, :math:`(n, d, M)`, a mask (or none), B·H query heads in B·G K/V
groups, optionally a memory hierarchy — :func:`sandwich_point` evaluates every lower bound
attnio prints for that instance through the library function behind each command, and every
registered algorithm's exact closed-form I/O (:func:`attnio.algorithms.simulation.count`,
:func:`attnio.algorithms.heads.count_heads`), and compares them with exact ``int``\ s. A
:class:`Comparison` whose bound exceeds the count is a violation: it would refute a lower
bound (or show that a count is wrong).

The bounds, by the command that prints them (each compared with the algorithms it is stated
for; an (algorithm, M) pair with no fitting tile is skipped):

* ``attnio gap`` / ``attnio bounds --hierarchy`` reports (one head, no mask):
  :func:`attnio.bounds.attention.best_lower_bound` with ``"any"`` against every algorithm
  of the pass, each class's maximum and every single route
  (:func:`~attnio.bounds.attention.lower_bound_routes`) against the algorithms of that
  class, and the rows of :func:`attnio.bounds.gap.gap_rows` (its ``lower_bound`` against
  each of its ``algorithms``; a refusal of ``gap_rows`` is itself a violation) — also with
  ``--tune``: the tuned counts (:func:`attnio.algorithms.tuning.tuned_count`) of every
  tunable algorithm are compared with every single-head bound as algorithms of their own.
* ``attnio bounds`` (one head): the catalogue's explicit (non-asymptotic) lower bounds of
  the pass in their admissible range (:func:`attnio.symbolic.evaluate.catalogue_values`;
  exact sympy numbers, compared exactly, each with the algorithms of the computation it is
  stated for, :data:`CATALOGUE_SCOPE`; ``matmul`` bounds are stated for the matmul DAG and
  asymptotic ones carry no constant, so neither is compared), the ``mask_lower_bound`` of its
  ``sparse_mask`` fields for the mask and for ``full``, and with heads the
  ``heads_lower_bound`` (:func:`attnio.proofs.stacked_heads.stacked_lower_bound`).
* ``attnio simulate`` (``--json``): with a mask, each run's ``mask_lower_bound``
  (:func:`attnio.proofs.mask_bounds.mask_bound_fields` for the run's algorithm; also
  :func:`~attnio.proofs.mask_bounds.best_mask_lower_bound` ``"any"`` and every route of
  :func:`~attnio.proofs.mask_bounds.mask_lower_bound_routes`) against the masked count —
  with heads the one-head bound against the B·H-head count, as the JSON prints it; with
  heads and no mask, ``lower_bound`` (:func:`attnio.bounds.heads.multihead_lower_bound`)
  against :func:`~attnio.algorithms.heads.count_heads`.
* ``attnio gap --heads``: :func:`attnio.algorithms.hierarchy.multihead_gap_payload` rows.
* The hierarchy: at every boundary of ``levels`` (capacities of the bounded levels, fastest
  first), :func:`attnio.algorithms.hierarchy.hierarchy_counts`' ``lower_bound_words`` ≤ its
  ``words`` for every algorithm, and :func:`~attnio.algorithms.hierarchy.levels_report`'s
  ``lower_bound_words`` ≤ each of its ``algorithms`` (a refusal of the report is a
  violation).

``small-cache-dx`` computes the paper's dL/dX, no computation class of the routes; the
``"any"`` bounds are still stated "for every algorithm of attnio.algorithms", so it is
compared with those (and with the catalogue), never with a class bound. Masks and
``small-cache-dx``: it takes none, so it is left out of masked instances.

Used by ``tests/test_sandwich_property.py`` (hypothesis, default tier) and
``benchmarks/sandwich_sweep.py`` (≥ 10,000 points).

>>> r = sandwich_point("backward", 64, 8, 256)
>>> r.violations, r.comparisons > 50
([], True)
>>> from attnio.algorithms.masks import Mask
>>> sandwich_point("forward", 64, 8, 64, mask=Mask.causal(), heads=4, kv_heads=2,
...                levels=(64, 1024)).violations
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from attnio.algorithms.heads import count_heads, validate_heads
from attnio.algorithms.hierarchy import Hierarchy
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import REGISTRY, algorithm_names
from attnio.algorithms.simulation import count
from attnio.algorithms.tuning import tuned_count
from attnio.exceptions import AttnioError, CacheOverflowError, InfeasibleError
from attnio.symbolic.catalogue import CATALOGUE
from attnio.symbolic.evaluate import catalogue_values

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask

__all__ = ["Comparison", "PointResult", "sandwich_point", "explicit_catalogue_lower_bounds",
           "CATALOGUE_SCOPE"]

CLASSES_BY_PASS = {"forward": ("forward",), "backward": ("recompute", "given-scores")}
_SKIP = (InfeasibleError, CacheOverflowError)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One ``bound ≤ io`` check: where the bound comes from, its route, the algorithm."""

    source: str
    route: str
    bound: int | Any
    algorithm: str
    io: int

    @property
    def holds(self) -> bool:
        return bool(self.bound <= self.io)

    def describe(self, params: dict[str, Any]) -> str:
        return (f"VIOLATION {self.source} [{self.route}] printed lower bound {self.bound} > "
                f"{self.algorithm}'s exact I/O {self.io} at {params}")


@dataclass
class PointResult:
    """All comparisons of one instance; ``violations`` holds the failed ones (described)."""

    params: dict[str, Any]
    comparisons: int = 0
    violations: list[str] = field(default_factory=list)
    #: (source function, algorithm) → (io, bound) of the least io / bound (positive bounds)
    min_ratio: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    def add(self, c: Comparison) -> None:
        self.comparisons += 1
        if not c.holds:
            self.violations.append(c.describe(self.params))
        if c.bound > 0:
            key = (re.split(r"[ (\[]", c.source, maxsplit=1)[0], c.algorithm)
            old = self.min_ratio.get(key)
            # compare io/bound exactly: io·b' < io'·b
            if old is None or c.io * old[1] < old[0] * c.bound:
                self.min_ratio[key] = (c.io, c.bound)

    def fail(self, source: str, exc: BaseException) -> None:
        self.comparisons += 1
        self.violations.append(f"VIOLATION {source} refused the instance: "
                               f"{type(exc).__name__}: {exc} at {self.params}")


#: The computation classes an explicit catalogue lower bound is stated for, where that is not
#: every algorithm of its pass: ``bwd.trivial.lower`` counts the inputs and output of the
#: Alman–Song gradient dL/dX (A1, A2, A3, E n×d; X, Y d×d; dL/dX d×d), the computation of
#: ``small-cache-dx`` only — not dQ, dK, dV (at n = 1, d = 16 its 832 words exceed what
#: standard attention's backward moves at M = 15, 214: a different computation, not a
#: refutation). A backward bound missing here is compared with every backward algorithm.
CATALOGUE_SCOPE: dict[str, tuple[str, ...]] = {"bwd.trivial.lower": ("dX",)}


def explicit_catalogue_lower_bounds(pass_: str, n: int, d: int, M: int) -> list[tuple[str, Any]]:
    """``(id, exact value)`` of the catalogue's non-asymptotic lower bounds of ``pass_`` that
    are in their admissible range at the dense instance (what ``attnio bounds`` prints)."""

    chosen = tuple(b for b in CATALOGUE
                   if b.kind == "lower" and not b.asymptotic and b.pass_ == pass_)
    return [(bid, ev.value) for bid, ev in catalogue_values(n, d, M, bounds=chosen).items()
            if ev.in_range]


_TUNED = " --tune"


def _base(key: str) -> str:
    """The registry name of a count's key (``"flash2 --tune"`` → ``"flash2"``)."""
    return key.removesuffix(_TUNED)


def _names(pass_: str, mask: "Mask | None") -> list[str]:
    return [a for a in algorithm_names(pass_) if mask is None or REGISTRY[a].masked]


def sandwich_point(pass_: str, n: int, d: int, M: int, *, mask: "Mask | None" = None,
                   batch: int = 1, heads: int = 1, kv_heads: int | None = None,
                   levels: Sequence[int] | None = None, catalogue: bool = True,
                   gap: bool = True, tune: bool = True) -> PointResult:
    """Every printed lower bound ≤ every exact count at one instance (module docstring).

    ``levels``: capacities (words) of the bounded levels of a hierarchy, fastest first,
    strictly increasing (:class:`~attnio.algorithms.hierarchy.Hierarchy`'s rule); boundary
    ``i`` sits at their running sum. ``catalogue`` and ``gap``
    switch off the two slowest sources (sympy evaluation; ``gap_rows`` recounts). ``tune``
    (one head, no mask): the ``--tune`` counts of every tunable algorithm
    (:func:`attnio.algorithms.tuning.tuned_count`, keyed ``"NAME --tune"``) join the
    algorithms, and ``gap_rows(..., tune=True)`` the sources."""
    from attnio.bounds.attention import best_lower_bound, computation_of, lower_bound_routes
    from attnio.bounds.heads import (
        multihead_lower_bound,
        stacked_lower_bound,
        stacked_lower_bound_routes,
    )
    from attnio.bounds.masks import (
        best_mask_lower_bound,
        mask_bound_fields,
        mask_lower_bound_routes,
    )

    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    multi = (batch, heads, kv) != (1, 1, 1)
    params: dict[str, Any] = {"pass": pass_, "n": n, "d": d, "M": M,
                              "mask": None if mask is None else mask.label,
                              "batch": batch, "heads": heads, "kv_heads": kv}
    if levels is not None:
        params["levels"] = list(levels)
    res = PointResult(params)

    # ---- exact counts (closed forms) of every algorithm of the pass on this instance --------
    names = _names(pass_, mask)
    ios: dict[str, int] = {}
    for name in names:
        try:
            if multi or REGISTRY[name].kv_grouped:
                ios[name] = count_heads(name, pass_, n, d, M, batch=batch, heads=heads,
                                        kv_heads=kv, mask=mask).io
            else:
                ios[name] = count(name, pass_, n, d, M, mask=mask).io
        except _SKIP:  # no tile set fits M (or the printed blocks overflow): nothing to compare
            continue
    if tune and mask is None and not multi:
        # `attnio simulate/gap --tune`: the block sizes of the exact search, keyed "NAME --tune"

        for name in names:  # also where the default blocks do not fit and a tuned tile does
            if REGISTRY[name].tunable:
                try:
                    ios[f"{name}{_TUNED}"] = tuned_count(name, pass_, n, d, M).io
                except _SKIP:
                    continue
    classes = {name: computation_of(_base(name), pass_) for name in ios}

    def against(source: str, route: str, value: int | Any, names_: Any) -> None:
        for name in names_:
            res.add(Comparison(source, route, value, name, ios[name]))

    in_class = {c: [a for a in ios if classes[a] == c] for c in CLASSES_BY_PASS[pass_]}

    if mask is None and not multi:
        b = best_lower_bound(pass_, n, d, M)
        against("attention.best_lower_bound(any)", b.route, b.value, ios)
        for cls, members in in_class.items():
            if not members:
                continue
            top = best_lower_bound(pass_, n, d, M, cls)
            against(f"attention.best_lower_bound({cls})", top.route, top.value, members)
            for r in lower_bound_routes(pass_, n, d, M, cls):
                against(f"attention.lower_bound_routes({cls})", r.route, r.value, members)
        if gap:
            from attnio.bounds.gap import gap_rows

            for tuned in (False, True) if tune else (False,):
                source = "gap.gap_rows (attnio gap" + (" --tune)" if tuned else ")")
                try:
                    rows = gap_rows(pass_, n, d, [M], tune=tuned)
                except AttnioError as exc:
                    if "exceeds" in str(exc):
                        res.fail(source, exc)
                    rows = []  # no algorithm of the gap selection fits M
                for row in rows:
                    for name, io in row["algorithms"].items():
                        key = name + (_TUNED if tuned else "")
                        res.add(Comparison(source, row["route"], row["lower_bound"], key, io))
                        if io != ios.get(key):
                            res.fail(source, AssertionError(
                                f"{key}: gap prints io {io}, the count gives {ios.get(key)}"))
        if catalogue:
            for bid, value in explicit_catalogue_lower_bounds(pass_, n, d, M):
                scope = CATALOGUE_SCOPE.get(bid)
                against(f"catalogue {bid} (attnio bounds)", bid, value,
                        [a for a in ios if scope is None or classes[a] in scope])
    if mask is None:
        # the stacked bound (B = H = G = 1: the single-head one); simulate --heads' lower_bound
        s = stacked_lower_bound(pass_, n, d, M, batch=batch, heads=heads, kv_heads=kv)
        against("stacked_heads.stacked_lower_bound(any) (attnio bounds --heads)", s.route,
                s.value, ios)
        value, route = multihead_lower_bound(pass_, n, d, M, batch=batch, heads=heads,
                                             kv_heads=kv)
        against("heads.multihead_lower_bound (attnio simulate --heads)", route, value, ios)
        for cls, members in in_class.items():
            if not members:
                continue
            for r in stacked_lower_bound_routes(pass_, n, d, M, cls, batch=batch, heads=heads,
                                                kv_heads=kv):
                against(f"stacked_heads.stacked_lower_bound_routes({cls})", r.route, r.value,
                        members)
        if multi and gap:
            from attnio.bounds.hierarchy import multihead_gap_payload

            try:
                payload = multihead_gap_payload(pass_, n, d, [M], batch=batch, heads=heads,
                                                kv_heads=kv)
            except AssertionError as exc:  # levels_report refuses a refuted bound
                res.fail("hierarchy.multihead_gap_payload (attnio gap --heads)", exc)
                payload = {"rows": []}
            except InfeasibleError:
                payload = {"rows": []}
            except AttnioError as exc:
                if "fits any M" not in str(exc):
                    raise
                payload = {"rows": []}
            for row in payload["rows"]:
                for name, io in row["algorithms"].items():
                    res.add(Comparison("hierarchy.multihead_gap_payload (attnio gap --heads)",
                                       row["route"], row["lower_bound"], name, io))
    # ---- the per-mask bound (one head), as bounds' sparse_mask and simulate --mask print it --
    mask_for = mask
    if mask_for is None and not multi:

        mask_for = Mask.full()  # attnio bounds --mask prints the dense mask's too
    if mask_for is not None:
        b = best_mask_lower_bound(pass_, mask_for, n, d, M)
        masked_ios = [a for a in ios if REGISTRY[_base(a)].masked]
        against("mask_bounds.best_mask_lower_bound(any)", b.route, b.value, masked_ios)
        for name in masked_ios:
            f = mask_bound_fields(mask_for, n, d, M, pass_, _base(name))
            if f["value"] is not None:
                res.add(Comparison("mask_bounds.mask_bound_fields (attnio simulate --mask)",
                                   f["route"], f["value"], name, ios[name]))
        for cls, members in in_class.items():
            members = [a for a in members if REGISTRY[_base(a)].masked]
            if not members:
                continue
            for r in mask_lower_bound_routes(pass_, mask_for, n, d, M, cls):
                against(f"mask_bounds.mask_lower_bound_routes({cls})", r.route, r.value,
                        members)
    # ---- the whole instance, mask × heads together (issue 35): the one bound that attnio
    # advise, gap, bounds --heads and simulate print, against every count of the instance ----
    _whole_instance(res, pass_, n, d, M, mask, batch, heads, kv)
    # ---- the hierarchy: per boundary, bound ≤ the words moved across it --------------------
    if levels is not None:
        _hierarchy(res, pass_, n, d, levels, batch, heads, kv, mask)
    return res


def _whole_instance(res: PointResult, pass_: str, n: int, d: int, M: int, mask: "Mask | None",
                    batch: int, heads: int, kv: int) -> None:
    """:func:`attnio.bounds.instance_bounds.instance_lower_bound` (every class and ``any``)
    against :func:`attnio.algorithms.instance.count_instance` of every algorithm of the pass,
    and :func:`~attnio.bounds.instance_bounds.level_rows` (which refuses a refuted bound)."""
    from attnio.algorithms.instance import Instance, NotApplicable, count_instance
    from attnio.bounds.instance_bounds import (
        CLASSES,
        comparable,
        instance_lower_bound,
        level_rows,
    )

    inst = Instance.build(n, d, pass_=pass_, M=[M], batch=batch, heads=heads, kv_heads=kv,
                          mask=mask)
    counted = {}
    for name in algorithm_names(pass_):
        result = count_instance(inst, name, M)
        if not isinstance(result, NotApplicable):
            counted[name] = result.io
    anyb = instance_lower_bound(inst, M)
    for name, io in counted.items():
        if comparable(name, pass_):
            res.add(Comparison("instance_bounds.instance_lower_bound(any) (attnio advise, gap, "
                               "bounds --heads, simulate)", anyb.route, anyb.value, name, io))
    for cls in CLASSES[pass_]:
        own = instance_lower_bound(inst, M, cls)
        for name, io in counted.items():
            if REGISTRY[name].computation(pass_) == cls:
                res.add(Comparison(f"instance_bounds.instance_lower_bound({cls})", own.route,
                                   own.value, name, io))
    try:
        level_rows(inst)
    except AssertionError as exc:
        res.fail("instance_bounds.level_rows (attnio advise)", exc)


def _hierarchy(res: PointResult, pass_: str, n: int, d: int, levels: Sequence[int],
               batch: int, heads: int, kv: int, mask: "Mask | None" = None) -> None:
    from attnio.bounds.hierarchy import hierarchy_counts, levels_report

    h = Hierarchy.from_words([*((f"L{i}", c, None) for i, c in enumerate(levels)),
                              ("slow", None, None)])
    for name in algorithm_names(pass_) if mask is None else ():
        try:
            rows = hierarchy_counts(name, pass_, n, d, h, batch=batch, heads=heads,
                                    kv_heads=kv)
        except _SKIP:  # e.g. flash1-published: its printed blocks overflow M
            continue
        for row in rows:
            if row["words"] is not None:
                res.add(Comparison(f"hierarchy.hierarchy_counts boundary {row['boundary']} "
                                   f"(M={row['M']})", row["lower_bound_route"],
                                   row["lower_bound_words"], name, row["words"]))
    try:
        report = levels_report(h, pass_, n, d, batch=batch, heads=heads, kv_heads=kv,
                               mask=mask)
    except AssertionError as exc:
        res.fail("hierarchy.levels_report", exc)
        return
    for lvl in report["levels"]:
        for name, io in lvl["algorithms"].items():
            res.add(Comparison(f"hierarchy.levels_report boundary {lvl['boundary']} "
                               f"(M={lvl['capacity_words']})", lvl["lower_bound_route"],
                               lvl["lower_bound_words"], name, io))
