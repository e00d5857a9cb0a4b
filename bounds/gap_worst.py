r"""The worst ratio over EVERY integer cache size, found exactly (issue 35, item 2).

``attnio gap`` prints the ratio best counted I/O ÷ certified lower bound at the sizes of its
sweep; the figure researchers quote is the worst over a whole range of M — and a geometric
grid misses it: the worst points sit at the right end of an algorithm's block-size plateau
(backward, n = 4096, d = 64: 8.97 at M = 11,216, where the 25-point grid printed 8.70).
:func:`worst_ratio` finds

.. math:: \max_{M \in [M_{lo}, M_{hi}] \cap \mathbb Z}\ \frac{\min_a \mathrm{io}_a(M)}{LB(M)}

exactly, without evaluating every M:

1. **Plateaus.** Each algorithm's counted I/O is a step function of M: its block sizes are a
   function of M (the registry's block rule), and its count a function of the block sizes.
   For each algorithm the maximal intervals on which (block sizes, io) is constant are found
   by galloping and bisection on "the same as at the start of the interval". This relies on
   one property of every block rule, stated here and tested against a full scan
   (``tests/bounds/test_gap_worst.py``): *a key never comes back once it has changed* — true
   of ``⌊\sqrt{M/4}⌋`` (non-decreasing) and of every exact search (the argmin of a fixed total
   order over a feasible set that only grows with M).
2. **Elementary intervals.** Between consecutive breakpoints of all algorithms, the best
   counted I/O is one constant c.
3. **Branch and bound on the bound.** On an interval I with constant c the worst ratio is
   c ÷ min\ :sub:`I` LB. The exact LB is evaluated at the right end (the usual minimum: LB
   falls with M); an interval is discarded once :math:`c / LB_{low}(I)` cannot beat the best
   ratio found, where :math:`LB_{low}(I) \le \min_I LB` is a certified interval lower bound
   (:func:`interval_lower_bound`: the compulsory route and the plain segment route with every
   cell of its cap bounded over the whole interval); otherwise it is split in two. A single
   point is evaluated exactly. The result is the exact maximum; ``evaluated`` counts the
   exact LB evaluations.

The maximum is over the algorithms that compute the pass's outputs and stay finite for every
finite logit (the registry's ``finite_logits``, issue 35 item 3): an algorithm that overflows is
never the worst point's "best"; it is listed apart (``left_out``) with the reason and what it
would move at the worst M.

Every exact LB evaluated is also checked against :func:`interval_lower_bound` of its point (a
lower bound above the exact value would make the pruning unsound: it is raised, never used).

Examples
--------
>>> from attnio.algorithms.instance import Instance
>>> w = worst_ratio(Instance.build(64, 8, M=[8]), 8, 512)
>>> w.exact, w.M, round(w.ratio, 3) == round(w.best_io / w.lower_bound, 3)
(True, ..., True)
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from attnio.algorithms.instance import Instance, NotApplicable, count_instance
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import REGISTRY
from attnio.bounds.attention import CELLS, SEGMENT_MULTIPLES, ceil_sqrt
from attnio.bounds.heads import joint_interval_lower_bound, stacked_compulsory
from attnio.bounds.instance_bounds import (
    CLASSES,
    comparable,
    headline,
    instance_lower_bound,
    not_finite_reason,
)
from attnio.bounds.masks import masked_compulsory_io
from attnio.exceptions import InvalidInputError, TimeLimitReached

__all__ = ["WorstPoint", "worst_ratio", "interval_lower_bound", "algorithm_plateaus"]

#: Products per query head counted by the plain segment route of each class (notes/gap.md).
_FAMILIES = {"forward": 1, "recompute": 2, "given-scores": 1}


@dataclass(frozen=True)
class WorstPoint:
    """The worst ratio over [lo, hi]: where (``M``), what (``ratio``, ``best_io`` of
    ``best_algorithm``, ``lower_bound`` with its ``route``), and how it was found."""

    lo: int
    hi: int
    M: int
    ratio: float
    best_algorithm: str
    best_io: int
    lower_bound: int
    route: str
    exact: bool
    plateaus: int
    evaluated: int
    algorithms: tuple[str, ...] = field(default=())
    method: str = ("every integer M: plateaus of every algorithm's block sizes, then branch "
                   "and bound on the certified bound with interval lower bounds")
    #: The algorithms asked for but left out because they overflow (issue 35 item 3), each
    #: ``{"algorithm", "reason", "io", "ratio"}`` with its count and ratio at :attr:`M`
    #: (``io``, ``ratio`` None where it has no run there).
    left_out: tuple[dict[str, object], ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        return {"lo": self.lo, "hi": self.hi, "M": self.M, "ratio": self.ratio,
                "best_algorithm": self.best_algorithm, "best_io": self.best_io,
                "lower_bound": self.lower_bound, "route": self.route, "exact": self.exact,
                "plateaus": self.plateaus, "evaluated": self.evaluated,
                "algorithms": list(self.algorithms), "method": self.method,
                "left_out": [dict(e) for e in self.left_out]}


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise TimeLimitReached("the exact worst-ratio search passed its deadline")


def algorithm_plateaus(instance: Instance, name: str, lo: int, hi: int, *,
                       deadline: float | None = None) -> list[tuple[int, int, int | None]]:
    """``[(a, b, io), ...]``: the maximal intervals of [lo, hi] on which ``name``'s block
    sizes and counted I/O are constant (``io`` None where it has no run), in order, covering
    [lo, hi] (module docstring, step 1)."""

    def key(M: int) -> tuple[object, int | None]:
        r = count_instance(instance, name, M)
        if isinstance(r, NotApplicable):
            return ("n/a", None)
        return (tuple(sorted(r.block_sizes)) if not isinstance(r.block_sizes, dict)
                else tuple(sorted(r.block_sizes.items())), r.io)

    out: list[tuple[int, int, int | None]] = []
    a, width = lo, 1
    while a <= hi:
        _check_deadline(deadline)
        k = key(a)
        # gallop from half the last plateau's width (neighbouring plateaus are alike), then
        # bisect for the first M with another key
        step, last_same = max(1, width // 2), a
        probe = a + step
        while probe <= hi and key(probe) == k:
            last_same = probe
            step *= 2
            probe = a + step
        first_diff = min(probe, hi + 1)
        while first_diff - last_same > 1:
            mid = (last_same + first_diff) // 2
            if key(mid) == k:
                last_same = mid
            else:
                first_diff = mid
        out.append((a, last_same, k[1]))
        width = last_same - a + 1
        a = last_same + 1
    return out


#: Cells of the coarse cap of :func:`_cap_upper` (each covers CELLS // COARSE of the cap's).
COARSE = 16


def _cap_upper(d: int, a: int, b: int, t: int, depth: int | None, coarse: int = COARSE) -> int:
    """An integer ≥ ``segment_product_cap(d, M, t·M, partial_depth=depth)`` for every M in
    [a, b]. That cap is the largest cell bound over :data:`~attnio.bounds.attention.CELLS`
    cells of [0, S], S = (1 + t)M, T = (2 + t)M; the cell bound grows with the cell's right
    end s₁ and with T − s₀ (claim ``gap.cell_bound``). So :data:`COARSE` cells, each the union
    of CELLS // COARSE consecutive cells, with s₁ at its largest (S at M = b) and s₀ at its
    smallest (S at M = a), bound every cell of every M in [a, b]."""
    k = d - 1 if depth is None else depth
    S_hi, S_lo, T_hi = (1 + t) * b, (1 + t) * a, (2 + t) * b
    per = CELLS // coarse
    best = 1
    for j in range(coarse):
        s1 = S_hi * (per * (j + 1)) // CELLS
        gap = T_hi - S_lo * (per * j) // CELLS
        full = -(-s1 * s1 // (4 * d))
        partial = min(-(-ceil_sqrt(s1 * s1 * gap) // 2), k * gap)
        best = max(best, full + partial)
    return best


def _rest(instance: Instance, cls: str) -> int:
    """The compulsory rest of the segment route of class ``cls`` (the I/O of the inputs and
    outputs outside the counted products): route 3 minus route 2 of the stacked or masked
    routes (constant in M)."""
    from attnio.bounds.heads import stacked_rest
    from attnio.bounds.masks import mask_lower_bound_routes

    mask = instance.sparse_mask
    if mask is None:
        return stacked_rest(instance.pass_, instance.n, instance.d, cls, batch=instance.batch,
                            heads=instance.heads, kv_heads=instance.kv_heads)
    routes = mask_lower_bound_routes(instance.pass_, mask, instance.n, instance.d, 1, cls,
                                     batch=instance.batch, heads=instance.heads,
                                     kv_heads=instance.kv_heads)
    return routes[2].value - routes[1].value


def interval_lower_bound(instance: Instance, a: int, b: int, *, coarse: int = CELLS) -> int:
    """An integer ≤ the certified bound ``instance_lower_bound(instance, M)`` for every M in
    [a, b] (module docstring, step 3): per class, the largest of the compulsory route, the
    plain segment route and the segment route + compulsory rest, with t·a ≤ L and the cap
    bounded over the interval (:func:`_cap_upper` on ``coarse`` cells: fewer is cheaper and
    looser), and, without a mask, the joint route + rest bounded over the interval
    (:func:`~attnio.bounds.heads.joint_interval_lower_bound`); the smallest over the classes. A subset of the routes, so a valid lower bound
    whatever other routes the bound has."""
    q = instance.batch * instance.heads
    mask = instance.sparse_mask
    per_class = []
    for cls in CLASSES[instance.pass_]:
        if mask is None:
            compulsory = stacked_compulsory(instance.pass_, instance.n, instance.d,
                                            batch=instance.batch, heads=instance.heads,
                                            kv_heads=instance.kv_heads, computation=cls)
            N = _FAMILIES[cls] * q * instance.n * instance.n * instance.d
        else:
            compulsory = masked_compulsory_io(instance.pass_, mask, instance.n, instance.d,
                                              cls, batch=instance.batch, heads=instance.heads,
                                              kv_heads=instance.kv_heads)
            N = _FAMILIES[cls] * q * mask.z_qk(instance.n) * instance.d
        seg = max([0] + [t * a * max(0, -(-N // _cap_upper(instance.d, a, b, t, None, coarse))
                                     - 1) for t in SEGMENT_MULTIPLES])
        rest = _rest_cached(instance, cls) if seg else 0
        joint = 0 if mask is not None else _joint_interval_cached(
            instance.pass_, instance.n, instance.d, a, b, cls, instance.batch, instance.heads,
            instance.kv_heads)
        per_class.append(max(compulsory, seg + rest, joint))
    return min(per_class)


@lru_cache(maxsize=4096)
def _joint_interval_cached(pass_: str, n: int, d: int, a: int, b: int, cls: str, batch: int,
                           heads: int, kv: int) -> int:
    """The joint route + rest of a class at every M of [a, b] (dense instances:
    :func:`~attnio.bounds.heads.joint_interval_lower_bound`; the joint routes have no masked
    form), memoised on its arguments."""
    return joint_interval_lower_bound(pass_, n, d, a, b, cls, batch=batch, heads=heads,
                                      kv_heads=kv)


def _rest_cached(instance: Instance, cls: str) -> int:
    """:func:`_rest`, memoised on what it depends on (never on an object's identity)."""
    return _rest_of(instance.pass_, instance.n, instance.d, instance.batch, instance.heads,
                    instance.kv_heads, instance.sparse_mask, cls)


@lru_cache(maxsize=256)
def _rest_of(pass_: str, n: int, d: int, batch: int, heads: int, kv: int, mask: Mask | None,
             cls: str) -> int:
    return _rest(Instance.build(n, d, pass_=pass_, M=[1], batch=batch, heads=heads,
                                kv_heads=kv, mask=mask), cls)


def worst_ratio(instance: Instance, lo: int, hi: int, *, algorithms: tuple[str, ...] | None = None,
                deadline: float | None = None,
                on_step: Callable[[str], None] | None = None) -> WorstPoint:
    """The exact worst ratio best counted I/O ÷ certified bound over every integer M in
    [lo, hi] (module docstring), over ``algorithms`` (default: every registered algorithm of
    the pass) that compute the pass's outputs and stay finite for every finite logit
    (:func:`attnio.bounds.instance_bounds.headline`). Those asked for that overflow are left
    out of the maximum and listed in ``left_out`` with the reason and their count at the
    worst M.

    Raises
    ------
    InvalidInputError
        ``lo > hi``, or no algorithm runs anywhere in [lo, hi].
    TimeLimitReached
        ``deadline`` (a :func:`time.monotonic` instant) passed.
    AssertionError
        An interval lower bound above an exact bound (the pruning would be unsound).

    Side conditions
    ---------------
    1. ``interval-bound-below``: :func:`interval_lower_bound` on [a, b] is ≤ the certified
       bound at every M in [a, b].
    2. ``cap-upper-covers``: ``_cap_upper`` is ≥ the segment product cap at every M of its
       interval.
    3. ``plateaus-exact``: :func:`algorithm_plateaus` gives each M the count a direct count
       gives.
    4. ``worst-is-scan``: the worst point is the maximum of a full scan of every M, the
       smallest M among ties.
    """
    if lo > hi or lo < 1:
        raise InvalidInputError(f"the range [{lo}, {hi}] of M must be non-empty and positive")
    asked = tuple(n for n in (algorithms or tuple(REGISTRY))
                  if instance.pass_ in REGISTRY[n].passes and comparable(n, instance.pass_))
    names = tuple(n for n in asked if headline(n, instance.pass_))
    if not names:
        raise InvalidInputError(f"no algorithm of the {instance.pass_} pass that stays finite "
                                f"for every logit among {', '.join(asked) or 'none'}")
    step = on_step or (lambda _text: None)
    plateaus: dict[str, list[tuple[int, int, int | None]]] = {}
    for name in names:
        step(f"plateaus of {name}")
        plateaus[name] = algorithm_plateaus(instance, name, lo, hi, deadline=deadline)
    cuts = sorted({b for runs in plateaus.values() for _, b, _ in runs})
    # elementary intervals [a, b] with the best count constant
    intervals: list[tuple[int, int, int, str]] = []
    a = lo
    cursor = {name: 0 for name in names}
    for b in cuts:
        best: tuple[int, str] | None = None
        for name in names:
            runs = plateaus[name]
            i = cursor[name]
            while runs[i][1] < a:
                i += 1
            cursor[name] = i
            io = runs[i][2]
            if io is not None and (best is None or io < best[0]):
                best = (io, name)
        if best is not None:
            intervals.append((a, b, best[0], best[1]))
        a = b + 1
    if not intervals:
        raise InvalidInputError(f"no algorithm of the {instance.pass_} pass runs at any M in "
                                f"[{lo}, {hi}]")
    evaluated = 0
    # ratio (exact), M, io, name, LB, route; among equal ratios the smallest M (as a scan)
    top: tuple[Fraction, int, int, str, int, str] | None = None

    def exact(M: int, io: int, name: str) -> None:
        nonlocal evaluated, top
        evaluated += 1
        bound = instance_lower_bound(instance, M)
        low = interval_lower_bound(instance, M, M)
        if low > bound.value:  # pragma: no cover - would make the pruning unsound
            raise AssertionError(f"interval lower bound {low} > the exact bound {bound.value} "
                                 f"at M={M}")
        if not bound.value:
            raise InvalidInputError(f"the certified bound is 0 at M={M}: no ratio")
        ratio = Fraction(io, bound.value)
        if top is None or ratio > top[0] or (ratio == top[0] and M < top[1]):
            top = (ratio, M, io, name, bound.value, bound.route)

    def potential(a: int, b: int, io: int, coarse: int) -> Fraction:
        low = interval_lower_bound(instance, a, b, coarse=coarse)
        return Fraction(io, low) if low else Fraction(10**30)

    # best first: the interval that could hold the largest ratio is opened first; once the
    # largest potential left is no larger than the best ratio found, every ratio is found.
    # A potential is first computed on COARSE cells (cheap, loose), then on every cell
    # (tight) before the interval is opened.
    step(f"branch and bound over {len(intervals)} intervals")
    heap = [(-potential(a, b, io, COARSE), COARSE, a, b, io, name)
            for a, b, io, name in intervals]
    heapq.heapify(heap)
    while heap:
        _check_deadline(deadline)
        neg, cells, a, b, io, name = heapq.heappop(heap)
        if top is not None and -neg < top[0]:
            break  # nothing left can beat the best ratio
        if top is not None and -neg == top[0] and a > top[1]:
            continue  # it could only tie the best ratio at a larger M
        if cells < CELLS:
            heapq.heappush(heap, (-potential(a, b, io, CELLS), CELLS, a, b, io, name))
            continue
        exact(b, io, name)  # the right end: LB falls with M, the usual worst point
        if a == b:
            continue
        mid = (a + b - 1) // 2
        for lo_, hi_ in ((a, mid), (mid + 1, b - 1)):
            if lo_ <= hi_:
                heapq.heappush(heap, (-potential(lo_, hi_, io, COARSE), COARSE, lo_, hi_,
                                      io, name))
    assert top is not None
    ratio, M, io, name, lb, route = top
    left_out: list[dict[str, object]] = []
    for other in asked:
        if other in names:
            continue
        run = count_instance(instance, other, M)
        other_io = None if isinstance(run, NotApplicable) else run.io
        left_out.append({"algorithm": other, "reason": not_finite_reason(other, instance.pass_),
                         "io": other_io,
                         "ratio": None if other_io is None else other_io / lb})
    return WorstPoint(lo, hi, M, float(ratio), name, io, lb, route, True,
                      sum(len(r) for r in plateaus.values()), evaluated, names,
                      left_out=tuple(left_out))
