"""The exact worst-ratio search (bounds/gap_worst.py) by rule, against independent evaluators
(issue 36: the mutants the trust tier let through).

Each rule is checked on tiny instances and short windows against something gap_worst does not
compute itself:

* the interval lower bound at ONE M on every cell is exactly the certified bound restricted to
  the routes it covers — the class's compulsory, plain segment and segment + rest routes of
  :mod:`attnio.bounds.heads` / :mod:`attnio.bounds.masks`, and (dense) the joint interval
  bound of :mod:`attnio.bounds.heads` — the smallest over the classes; on a window it stays
  below the exact bound at every M, and only grows as the window shrinks;
* ``_cap_upper`` at one M on c cells IS the segment product cap on c cells;
* the compulsory rest is the certified "+ compulsory rest" route minus its plain segment route;
* the plateaus tile the window and split wherever the block sizes change (even at the same I/O);
* the worst point is a full scan's maximum with exact fractions — every field: M, ratio, the
  best algorithm (the first of the smallest counts), the bound and its route at M, the number
  of plateaus, the algorithms kept and left out (with their counts and ratios at M), and
  ``evaluated`` the number of exact bounds computed;
* a tie only wins at a smaller M, so a window of ties is solved in decreasing M;
* a deadline that has passed stops each phase before it does any work, with the message a user
  reads;
* ``WorstPoint.to_json`` carries every field of the object.

The same file holds the survivors of the seed-13 run over algorithms/masks.py (the pattern
file refused by name when swapped for a FIFO after its check, a NUL-byte path's reason, a long
spec shown by both ends) and graphs/anytime.py (an undecided engine's schedule replayed and
kept, phase (c) on any positive budget, the named engine below the smallest cache, a caller's
lower bound an int ≥ 0).

The caches of gap_worst (``_rest_of``, ``_joint_interval_cached``) are cleared before each test:
a value memoised by an earlier test must never stand in for the rule being tested.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from fractions import Fraction

import pytest
from anytime_script import CROSS_OPTIMAL as _CROSS_OPTIMAL  # tests/ on sys.path: conftest.py
from anytime_script import costing as _costing
from anytime_script import cross as _cross
from anytime_script import scripted as _scripted

from attnio.algorithms.instance import Instance, NotApplicable, count_instance
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import REGISTRY
from attnio.bounds import gap_worst
from attnio.bounds.attention import CELLS, SEGMENT_MULTIPLES, segment_product_cap
from attnio.bounds.heads import joint_interval_lower_bound, stacked_lower_bound_routes
from attnio.bounds.instance_bounds import (
    CLASSES,
    comparable,
    headline,
    instance_lower_bound,
    not_finite_reason,
)
from attnio.bounds.masks import mask_lower_bound_routes
from attnio.exceptions import InvalidInputError, TimeLimitReached

pytestmark = pytest.mark.trust


@pytest.fixture(autouse=True)
def _fresh_caches():
    gap_worst._rest_of.cache_clear()
    gap_worst._joint_interval_cached.cache_clear()
    yield


def _build(n, d, pass_, *, heads=1, kv=None, batch=1, mask=None) -> Instance:
    return Instance.build(n, d, pass_=pass_, M=[8], heads=heads, kv_heads=kv, batch=batch,
                          mask=mask)


def _class_routes(inst: Instance, M: int, cls: str):
    """The certified routes of one class at M (compulsory, segment, segment + rest first)."""
    shape = {"batch": inst.batch, "heads": inst.heads, "kv_heads": inst.kv_heads}
    if inst.sparse_mask is None:
        return stacked_lower_bound_routes(inst.pass_, inst.n, inst.d, M, cls, **shape)
    return mask_lower_bound_routes(inst.pass_, inst.sparse_mask, inst.n, inst.d, M, cls,
                                   **shape)


def _joint(inst: Instance, a: int, b: int, cls: str) -> int:
    if inst.sparse_mask is not None:
        return 0
    return joint_interval_lower_bound(inst.pass_, inst.n, inst.d, a, b, cls, batch=inst.batch,
                                      heads=inst.heads, kv_heads=inst.kv_heads)


# points chosen so that each route binds somewhere: the segment + rest route with B = 2 (dense
# and masked), the joint route (dense), the compulsory route; plus seeded random ones
_POINTS = [
    (dict(n=8, d=1, pass_="forward", batch=2), 2),
    (dict(n=16, d=4, pass_="backward", batch=2), 12),
    (dict(n=8, d=4, pass_="backward", heads=2), 6),
    (dict(n=32, d=16, pass_="backward", heads=2, batch=2, mask=Mask.causal()), 22),
    (dict(n=16, d=4, pass_="forward", batch=2, mask=Mask.causal()), 4),
    (dict(n=8, d=8, pass_="backward", mask=Mask.causal()), 2),
    (dict(n=16, d=16, pass_="forward"), 14),
    (dict(n=32, d=4, pass_="backward", batch=2), 5),
    (dict(n=8, d=2, pass_="forward", heads=2, kv=1), 400),
    (dict(n=8, d=1, pass_="backward", heads=2), 1),
    (dict(n=16, d=1, pass_="backward", batch=2), 1),
]


def _random_points(rng: random.Random, k: int):
    for _ in range(k):
        d = rng.choice([2, 4, 8])
        yield (dict(n=rng.choice([8, 16]), d=d, pass_=rng.choice(["forward", "backward"]),
                    heads=rng.choice([1, 2]), batch=rng.choice([1, 2]),
                    mask=rng.choice([None, Mask.causal(), Mask.window(2)])),
               rng.randint(2, 3 * d))


def test_interval_bound_at_one_point_is_the_certified_routes_it_covers() -> None:
    """Rule: at a = b = M on every cell, interval_lower_bound is exactly min over the classes of
    max(compulsory, segment, segment + compulsory rest, joint interval bound (dense only)), the
    certified routes computed by bounds/heads.py and bounds/masks.py; and it is ≤ the certified
    bound. Planted: the same with the joint or the rest left out is smaller somewhere."""
    bound = {"rest": 0, "joint": 0, "rest_batch": 0, "rest_mask_batch": 0}
    seg_binds_in = {cls: 0 for classes in CLASSES.values() for cls in classes}
    for shape, M in [*_POINTS, *_random_points(random.Random(3641), 6)]:
        inst = _build(**shape)
        low = gap_worst.interval_lower_bound(inst, M, M)
        per, without_joint, without_rest = [], [], []
        for cls in CLASSES[inst.pass_]:
            r = _class_routes(inst, M, cls)
            comp, seg, seg_rest = r[0].value, r[1].value, r[2].value
            assert seg_rest - seg > 0 and r[1].route in r[2].route   # the route order read
            joint = _joint(inst, M, M, cls)
            per.append(max(comp, seg, seg_rest, joint))
            without_joint.append(max(comp, seg, seg_rest))
            without_rest.append(max(comp, seg, joint))
        assert low == min(per), (shape, M)
        binding = CLASSES[inst.pass_][per.index(low)]
        seg_binds_in[binding] += _class_routes(inst, M, binding)[2].value == low
        assert low <= instance_lower_bound(inst, M).value
        # which routes this sample makes binding (the twins: each left out changes the value)
        if min(without_joint) < low:
            bound["joint"] += 1
        if min(without_rest) < low:
            bound["rest"] += 1
            bound["rest_batch"] += inst.batch > 1 and inst.sparse_mask is None
            bound["rest_mask_batch"] += inst.batch > 1 and inst.sparse_mask is not None
    assert all(bound.values()) and all(seg_binds_in.values()), (bound, seg_binds_in)


def test_interval_bound_on_a_window_is_below_every_exact_bound_and_grows_as_it_shrinks() -> None:
    """Rule: on [a, b], interval_lower_bound ≤ the certified bound at every M of the window, is
    ≥ each class's compulsory route and (dense) the joint interval bound of the window, ≤ the
    interval bound of any sub-window, and its coarse form is ≤ its fine form."""
    rng = random.Random(3642)
    joint_binds = 0
    for shape, M in [*_POINTS[:8], *_random_points(rng, 3)]:
        inst = _build(**shape)
        a, b = M, M + rng.randint(1, 5)
        low = gap_worst.interval_lower_bound(inst, a, b)
        assert low <= min(instance_lower_bound(inst, m).value for m in range(a, b + 1))
        floor = min(max(_class_routes(inst, a, cls)[0].value, _joint(inst, a, b, cls))
                    for cls in CLASSES[inst.pass_])
        assert low >= floor, (shape, a, b)
        joint_binds += floor > min(_class_routes(inst, a, cls)[0].value
                                   for cls in CLASSES[inst.pass_])
        a2 = rng.randint(a, b)
        b2 = rng.randint(a2, b)
        assert low <= gap_worst.interval_lower_bound(inst, a2, b2)
        assert gap_worst.interval_lower_bound(inst, a, b, coarse=gap_worst.COARSE) <= low
    assert joint_binds


def test_cap_upper_at_one_point_is_the_segment_cap_and_covers_every_sub_window() -> None:
    """Rule: _cap_upper(d, M, M, t, depth, c) == segment_product_cap(d, M, tM, cells=c,
    partial_depth=depth) (the certified cap on c cells), and on [a, b] it is ≥ its value on
    any sub-window (so ≥ the cap at every M)."""
    rng = random.Random(3643)
    for _ in range(40):
        d, t, M = rng.randint(1, 40), rng.choice(SEGMENT_MULTIPLES), rng.randint(1, 400)
        depth = rng.choice([None, rng.randint(max(0, d - 1), d + 3)])
        for cells in (gap_worst.COARSE, CELLS):
            assert gap_worst._cap_upper(d, M, M, t, depth, cells) == segment_product_cap(
                d, M, t * M, cells=cells, partial_depth=depth), (d, t, M, depth, cells)
        b = M + rng.randint(1, 30)
        whole = gap_worst._cap_upper(d, M, b, t, depth)
        a2 = rng.randint(M, b)
        assert whole >= gap_worst._cap_upper(d, a2, rng.randint(a2, b), t, depth)


def test_a_mask_that_drops_every_entry_has_bound_zero_and_no_ratio() -> None:
    """Rule: with every score dropped the certified bound is 0 at every M; the interval bound,
    never above it, is 0 on every window and cell count (no floor of 1 on a route), and
    worst_ratio refuses with the M where the bound is 0 instead of dividing by it. Planted: the
    same shapes with one entry kept have positive bounds and a ratio."""
    import numpy as np

    empty = np.zeros((8, 8), dtype=bool)
    one = empty.copy()
    one[3, 2] = True
    for pass_ in ("forward", "backward"):
        inst = _build(8, 2, pass_, batch=2, heads=2, mask=Mask.from_array(empty))
        assert instance_lower_bound(inst, 9).value == 0
        for a, b in ((9, 9), (9, 30)):
            for cells in (gap_worst.COARSE, CELLS):
                assert gap_worst.interval_lower_bound(inst, a, b, coarse=cells) == 0
        with pytest.raises(InvalidInputError, match=r"certified bound is 0 at M=\d+: no ratio"
                           ) as e:
            gap_worst.worst_ratio(inst, 9, 12, algorithms=("standard",))
        M = int(str(e.value).split("M=")[1].split(":")[0])
        assert 9 <= M <= 12 and instance_lower_bound(inst, M).value == 0
        kept = _build(8, 2, pass_, batch=2, heads=2, mask=Mask.from_array(one))
        assert 0 < gap_worst.interval_lower_bound(kept, 9, 12) <= instance_lower_bound(kept,
                                                                                     12).value
        assert gap_worst.worst_ratio(kept, 9, 12, algorithms=("standard",)).ratio > 0


def test_the_rest_is_the_certified_rest_route_minus_its_segment_route() -> None:
    """Rule: _rest(instance, cls) == ("segment + compulsory rest" − "segment") of the class's
    certified routes at any M (constant in M), dense or masked, grouped heads, batch 2."""
    rng = random.Random(3644)
    shapes = [dict(n=8, d=2, pass_="forward", batch=2),
              dict(n=8, d=4, pass_="backward", heads=4, kv=2, batch=2),
              dict(n=16, d=4, pass_="forward", heads=2, batch=2, mask=Mask.causal()),
              dict(n=8, d=2, pass_="backward", heads=2, kv=1, batch=3, mask=Mask.window(2))]
    for shape in shapes:
        inst = _build(**shape)
        for cls in CLASSES[inst.pass_]:
            got = gap_worst._rest(inst, cls)
            for M in (rng.randint(1, 50), rng.randint(51, 5000)):
                r = _class_routes(inst, M, cls)
                assert got == r[2].value - r[1].value, (shape, cls, M)
            assert gap_worst._rest_cached(inst, cls) == got


def _toy_counts(monkeypatch, rule):
    """count_instance replaced for 'flash2' by ``rule(M) -> (block_sizes, io) | None``."""
    real = gap_worst.count_instance

    class Run:
        def __init__(self, blocks, io):
            self.block_sizes, self.io = blocks, io

    def fake(inst, name, M):
        if name != "flash2":
            return real(inst, name, M)
        got = rule(M)
        return NotApplicable(name, "toy: too small") if got is None else Run(*got)

    monkeypatch.setattr(gap_worst, "count_instance", fake)


@pytest.mark.parametrize("as_dict", [True, False])
def test_plateaus_split_where_the_block_sizes_change_even_at_the_same_io(monkeypatch,
                                                                         as_dict) -> None:
    """Rule: a plateau is a maximal run of M with the same (block sizes, io) — block sizes as a
    dict (a plug-in's counts) or as pairs — so a change of blocks at an unchanged io splits it;
    M without a run is its own plateau with io None. Checked against the scan of the toy rule."""
    def rule(M):
        if M < 7:
            return None
        # three named blocks: "a" constant, "c" steps at every 10 up to 30, then "b" and "c"
        # swap their values at M = 40 (the same sizes under other names), then "b" steps;
        # io steps at every 25
        c, b = (M // 10, 1) if M < 40 else (1, 3 if M < 50 else M // 10)
        blocks = {"c": c, "a": 7, "b": b}
        return (blocks if as_dict else tuple(blocks.items()), 1000 - 100 * (M // 25))

    _toy_counts(monkeypatch, rule)
    inst = _build(8, 2, "forward")
    lo, hi = 3, 61
    runs = gap_worst.algorithm_plateaus(inst, "flash2", lo, hi)
    def key(M):
        got = rule(M)
        return None if got is None else (dict(got[0]), got[1])

    expected, a = [], lo
    for M in range(lo, hi + 1):
        if M == hi or key(M) != key(M + 1):
            expected.append((a, M, None if key(M) is None else key(M)[1]))
            a = M + 1
    # the scan itself has plateaus with the same io side by side (blocks changed, the swap)
    assert any(x[2] == y[2] is not None for x, y in zip(expected, expected[1:]))
    assert runs == expected


def _scan(inst: Instance, lo: int, hi: int, names: tuple[str, ...]):
    """The full scan: every M, the exact ratio min io / LB and the first algorithm of the
    smallest count; the largest ratio, the smallest M among ties."""
    best = None
    for M in range(lo, hi + 1):
        runs = [(r.io, k, n) for k, n in enumerate(names)
                if not isinstance(r := count_instance(inst, n, M), NotApplicable)]
        if not runs:
            continue
        io, _, name = min(runs)
        lb = instance_lower_bound(inst, M)
        key = (Fraction(io, lb.value), -M)
        if best is None or key > best[0]:
            best = (key, M, io, name, lb)
    return best


def _spy_bounds(monkeypatch) -> list[int]:
    seen: list[int] = []
    real = gap_worst.instance_lower_bound

    def spy(inst, M, *args):
        seen.append(M)
        return real(inst, M, *args)

    monkeypatch.setattr(gap_worst, "instance_lower_bound", spy)
    return seen


_WINDOWS = [
    # at M = 14 flash2, fused-resident and flash2-gqa tie for the smallest count
    (dict(n=8, d=2, pass_="forward"), 14, 26,
     ("flash2", "fused-resident", "flash2-gqa", "standard", "square-tiling")),
    (dict(n=8, d=2, pass_="backward", heads=2, kv=1), 9, 16, None),
    (dict(n=16, d=2, pass_="forward", heads=2, mask=Mask.causal()), 64, 84,
     ("flash2", "small-cache", "flash2-lean", "standard")),
    (dict(n=8, d=4, pass_="backward", batch=2, mask=Mask.window(2)), 32, 52,
     ("flash1", "flash2-split", "small-cache", "standard")),
    (dict(n=16, d=2, pass_="backward"), 8, 15,
     ("standard", "flash2", "small-cache", "fused-resident", "small-cache-fused")),
]


@pytest.mark.parametrize("case", range(len(_WINDOWS)))
def test_the_worst_point_is_a_full_scan_in_every_field(monkeypatch, case) -> None:
    """Rule: every field of worst_ratio's answer is what a full scan of the window gives: M (the
    smallest among the largest exact ratios), ratio, best_algorithm (the first of the smallest
    counts in the order asked), best_io, lower_bound and route (the certified bound at M),
    algorithms (those asked that compute the pass and stay finite), plateaus (their count over
    every algorithm kept), evaluated (the number of exact bounds computed), left_out (each
    overflowing algorithm asked, its reason and its count and ratio at M)."""
    shape, lo, hi, asked = _WINDOWS[case]
    inst = _build(**shape)
    steps: list[str] = []
    seen = _spy_bounds(monkeypatch)
    w = gap_worst.worst_ratio(inst, lo, hi, algorithms=asked, on_step=steps.append)
    names_asked = tuple(n for n in (asked or tuple(REGISTRY))
                        if inst.pass_ in REGISTRY[n].passes and comparable(n, inst.pass_))
    names = tuple(n for n in names_asked if headline(n, inst.pass_))
    assert w.algorithms == names
    monkeypatch.undo()
    (ratio, _), M, io, name, lb = _scan(inst, lo, hi, names)
    assert (w.lo, w.hi, w.M, w.best_io, w.best_algorithm) == (lo, hi, M, io, name)
    assert (w.lower_bound, w.route) == (lb.value, lb.route)
    assert w.ratio == float(ratio) and w.exact is True
    assert w.evaluated == len(seen) and 0 < w.evaluated <= hi - lo + 1
    assert w.plateaus == sum(len(gap_worst.algorithm_plateaus(inst, n, lo, hi)) for n in names)
    left = [n for n in names_asked if n not in names]
    assert [e["algorithm"] for e in w.left_out] == left
    for e in w.left_out:
        r = count_instance(inst, e["algorithm"], M)
        assert e["reason"] == not_finite_reason(e["algorithm"], inst.pass_) and e["reason"]
        assert e["io"] == r.io and e["ratio"] == r.io / lb.value
    # the progress a user reads: one line per algorithm kept, in order, then the search
    assert steps[:-1] == [f"plateaus of {n}" for n in names]
    assert steps[-1].startswith("branch and bound over ")


@pytest.mark.parametrize("case", [0, 3])
def test_the_answer_does_not_depend_on_how_tight_the_interval_bound_is(monkeypatch,
                                                                        case) -> None:
    """Rule: the pruning only skips work, never changes the answer: with the weakest sound
    interval bound (0 everywhere: every interval is opened), worst_ratio still gives the full
    scan's worst point (the smallest M among ties), also on a window where every M ties."""
    shape, lo, hi, asked = _WINDOWS[case]
    inst = _build(**shape)
    names = gap_worst.worst_ratio(inst, lo, hi, algorithms=asked).algorithms
    (ratio, _), M, io, name, lb = _scan(inst, lo, hi, names)
    monkeypatch.setattr(gap_worst, "interval_lower_bound", lambda *a, **k: 0)
    w = gap_worst.worst_ratio(inst, lo, hi, algorithms=asked)
    assert (w.M, w.best_io, w.best_algorithm, w.lower_bound) == (M, io, name, lb.value)
    assert Fraction(w.best_io, w.lower_bound) == ratio
    ties = _build(8, 2, "backward")
    w = gap_worst.worst_ratio(ties, 300, 315)
    assert w.M == 300 and w.evaluated == 16   # every M opened, the first of the ties kept


def test_an_algorithm_left_out_without_a_run_at_the_worst_m(monkeypatch) -> None:
    """Rule: an overflowing algorithm with no run at the worst M is listed with io and ratio
    None (a plug-in whose tiles do not fit); with a run, its count. Planted: the same search
    with the run back lists its count."""
    inst = _build(8, 2, "forward")
    real = gap_worst.count_instance
    monkeypatch.setattr(gap_worst, "count_instance", lambda i, n, M: (
        NotApplicable(n, "toy") if n == "small-cache" else real(i, n, M)))
    w = gap_worst.worst_ratio(inst, 16, 24, algorithms=("flash2", "small-cache", "square-tiling"))
    by = {e["algorithm"]: e for e in w.left_out}
    assert (by["small-cache"]["io"], by["small-cache"]["ratio"]) == (None, None)
    assert by["square-tiling"]["io"] == count_instance(inst, "square-tiling", w.M).io
    monkeypatch.undo()
    w2 = gap_worst.worst_ratio(inst, 16, 24, algorithms=("flash2", "small-cache"))
    assert w2.left_out[0]["io"] == count_instance(inst, "small-cache", w2.M).io


def test_a_window_of_ties_is_solved_in_decreasing_m(monkeypatch) -> None:
    """Rule: among equal ratios the smallest M wins, so an interval that could only tie the
    best ratio at a larger M is never opened: where every M of the window ties (checked by a
    full scan), the answer is M = lo and each exact bound is computed at an M below all the
    earlier ones."""
    inst = _build(8, 2, "backward")
    lo, hi = 300, 340
    names = tuple(n for n in REGISTRY if "backward" in REGISTRY[n].passes
                  and headline(n, "backward"))
    seen = _spy_bounds(monkeypatch)
    w = gap_worst.worst_ratio(inst, lo, hi)
    order = list(seen)
    monkeypatch.undo()
    ratios = {Fraction(min(r.io for n in names
                           if not isinstance(r := count_instance(inst, n, M), NotApplicable)),
                       instance_lower_bound(inst, M).value) for M in range(lo, hi + 1, 5)}
    assert len(ratios) == 1 and w.M == lo and Fraction(w.best_io, w.lower_bound) in ratios
    assert all(x > y for x, y in zip(order, order[1:])), order
    assert w.evaluated == len(order)


def test_the_errors_a_user_reads() -> None:
    """Rule: an empty or non-positive range names it; no finite algorithm asked names every one
    asked, in order, joined by ', ' ('none' when none computes the pass); no run anywhere
    names the pass and the range."""
    inst = _build(8, 2, "forward")
    for lo, hi in ((5, 4), (0, 3)):
        with pytest.raises(InvalidInputError, match=rf"\[{lo}, {hi}\] of M"):
            gap_worst.worst_ratio(inst, lo, hi)
    with pytest.raises(InvalidInputError) as e:
        gap_worst.worst_ratio(inst, 8, 64, algorithms=("small-cache", "square-tiling"))
    assert str(e.value).endswith("among small-cache, square-tiling")
    assert "forward pass" in str(e.value)
    back = _build(8, 2, "backward")
    with pytest.raises(InvalidInputError) as e:
        gap_worst.worst_ratio(back, 8, 64, algorithms=("small-cache-dx",))
    assert str(e.value).endswith("among none")
    with pytest.raises(InvalidInputError, match=r"runs at any M in \[1, 3\]") as e:
        gap_worst.worst_ratio(inst, 1, 3, algorithms=("flash2",))
    assert "forward pass" in str(e.value)


@pytest.fixture
def clock(monkeypatch):
    """time.monotonic frozen at 100.0 (gap_worst reads it through its ``time`` module)."""
    now = {"t": 100.0}
    monkeypatch.setattr(gap_worst.time, "monotonic", lambda: now["t"])
    return now


def test_the_deadline_check_itself(clock) -> None:
    """Rule: a deadline is passed once monotonic() ≥ it (None: never); the message names the
    search and its deadline."""
    gap_worst._check_deadline(None)
    gap_worst._check_deadline(100.5)
    for passed in (100.0, 99.0):
        with pytest.raises(TimeLimitReached, match="worst-ratio search passed its deadline"):
            gap_worst._check_deadline(passed)


def test_a_passed_deadline_stops_the_plateaus_before_any_count(monkeypatch, clock) -> None:
    """Rule: algorithm_plateaus and worst_ratio with a deadline already passed raise
    TimeLimitReached before counting anything: the progress shows the first algorithm only.
    Planted: the same calls without a deadline count and answer."""
    inst = _build(8, 2, "forward")
    counted: list[int] = []
    real = gap_worst.count_instance
    monkeypatch.setattr(gap_worst, "count_instance",
                        lambda i, n, M: counted.append(M) or real(i, n, M))
    with pytest.raises(TimeLimitReached):
        gap_worst.algorithm_plateaus(inst, "flash2", 10, 40, deadline=99.0)
    steps: list[str] = []
    with pytest.raises(TimeLimitReached):
        gap_worst.worst_ratio(inst, 10, 40, deadline=99.0, on_step=steps.append)
    assert counted == [] and steps == [steps[0]] and steps[0].startswith("plateaus of ")
    assert gap_worst.algorithm_plateaus(inst, "flash2", 10, 40, deadline=101.0) and counted


def test_a_deadline_passing_after_the_plateaus_stops_the_branch_and_bound(monkeypatch,
                                                                           clock) -> None:
    """Rule: the deadline is checked before each interval of the branch and bound: one passing
    right after the plateaus stops the search before its first exact bound. Planted: not
    passing, the same search answers."""
    inst = _build(8, 2, "forward")
    seen = _spy_bounds(monkeypatch)

    def step(text):
        if text.startswith("branch and bound"):
            clock["t"] = 200.0

    with pytest.raises(TimeLimitReached):
        gap_worst.worst_ratio(inst, 10, 40, deadline=150.0, on_step=step)
    assert seen == []
    clock["t"] = 100.0
    assert gap_worst.worst_ratio(inst, 10, 40, deadline=250.0).exact


def test_to_json_carries_every_field() -> None:
    """Rule: WorstPoint.to_json has one key per field, each the field's value (tuples as
    lists, left_out as copies of its dicts), and survives json round trip."""
    inst = _build(8, 2, "forward")
    w = gap_worst.worst_ratio(inst, 16, 24, algorithms=("flash2", "small-cache", "standard"))
    assert w.left_out and w.algorithms
    out = w.to_json()
    assert set(out) == {f.name for f in dataclasses.fields(w)}
    for f in dataclasses.fields(w):
        value = getattr(w, f.name)
        want = [dict(e) for e in value] if f.name == "left_out" else (
            list(value) if isinstance(value, tuple) else value)
        assert out[f.name] == want and type(out[f.name]) is type(want), f.name
    assert json.loads(json.dumps(out)) == out
    out["left_out"][0]["io"] = -1
    assert w.left_out[0]["io"] != -1   # a copy: the object is not changed through its JSON
    # a hand-made point with distinct values in every field (no two fields can be swapped)
    p = gap_worst.WorstPoint(1, 2, 3, 4.5, "a", 6, 7, "r", False, 8, 9, ("x", "y"), "m",
                             ({"algorithm": "z", "reason": "q", "io": None, "ratio": None},))
    assert p.to_json() == {"lo": 1, "hi": 2, "M": 3, "ratio": 4.5, "best_algorithm": "a",
                           "best_io": 6, "lower_bound": 7, "route": "r", "exact": False,
                           "plateaus": 8, "evaluated": 9, "algorithms": ["x", "y"],
                           "method": "m", "left_out": [{"algorithm": "z", "reason": "q",
                                                        "io": None, "ratio": None}]}


# ==============================================================================================
# algorithms/masks.py — parse_mask, _read_pattern (the survivors of the same seed-13 run)
# ==============================================================================================
def test_a_pattern_path_swapped_for_a_fifo_after_its_check_is_refused_by_name(monkeypatch,
                                                                              tmp_path) -> None:
    """Rule: a pattern file that passed the stat check but is a named pipe when opened (a
    path swapped in between) is refused on the open descriptor, before any read, with the
    line naming it a "pattern file" (its path shortened). Planted: the same path as a regular file is read."""
    import os

    from attnio.algorithms.masks import parse_mask

    regular = tmp_path / "p.json"
    regular.write_text("[[true, false], [false, true]]")
    assert parse_mask(f"block:2:{regular}").kind == "block"
    fifo = tmp_path / "swapped.json"
    os.mkfifo(fifo)
    real_stat, regular_info = os.stat, os.stat(regular)
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: (
        regular_info if str(p) == str(fifo) else real_stat(p, *a, **k)))
    with pytest.raises(InvalidInputError) as e:
        parse_mask(f"block:2:{fifo}")
    assert re.search(r": pattern file '[^']*swapped\.json' is a pipe \(FIFO\)", str(e.value))


def test_a_pattern_path_with_a_nul_byte_says_why() -> None:
    """Rule: a path the system cannot take (a NUL byte) is refused with the system's reason
    (one line), not a traceback and not an empty reason."""
    from attnio.algorithms.masks import parse_mask

    try:
        import os
        os.stat("a\x00b")
    except ValueError as exc:
        reason = str(exc)
    with pytest.raises(InvalidInputError) as e:
        parse_mask("block:2:a\x00b")
    assert str(e.value).endswith(f"is unreadable: {reason}") and reason


def test_a_long_mask_spec_is_shown_shortened_with_both_ends() -> None:
    """Rule: a spec longer than 200 characters is shown as at most 80 characters that keep
    its start and its end (the rule after it stays seen); a short one is shown whole."""
    from attnio.algorithms.masks import parse_mask

    spec = "window:" + "1" * 150 + "x" * 150
    with pytest.raises(InvalidInputError) as e:
        parse_mask(spec)
    shown = str(e.value)[len("--mask "):].split(": window W=")[0]
    assert len(shown) <= 80 and shown.startswith("'window:111") and shown.endswith("xxx'")
    with pytest.raises(InvalidInputError, match=r"^--mask window:0: window W=0"):
        parse_mask("window:0")


# ==============================================================================================
# graphs/anytime.py — anytime_pebble (the survivors of the same seed-13 run)
# ==============================================================================================
# the scripted anytime and its cross DAG: tests/anytime_script.py


def test_an_undecided_engine_s_schedule_is_replayed_and_kept(monkeypatch) -> None:
    """Rule: a schedule an undecided exact engine returns (the time-indexed model's) is
    replayed at M and offered: the bracket's upper side and schedule become its own when it
    is cheaper. Planted: an engine with no schedule leaves the heuristic's."""
    from attnio.graphs.anytime import AnytimeProgress, anytime_pebble
    from attnio.graphs.game import replay
    from attnio.graphs.pebble_result import PebbleResult

    G = _cross()
    for given, upper in ((_CROSS_OPTIMAL, 6), ([], 8)):
        _scripted(monkeypatch, [_costing(8), _costing(9)],
                  [PebbleResult.undecided(5, 6, "horizon", schedule=given),
                   PebbleResult.undecided(5, 8, "out of time")])
        progress = AnytimeProgress()
        r = anytime_pebble(G, 3, time_limit=100, progress=progress)
        assert r.verdict == "undecided" and (r.lower, r.upper) == (5, upper)
        assert progress.upper_bound == upper == replay(G, r.schedule, 3).io
        monkeypatch.undo()


def test_the_long_heuristic_runs_on_any_positive_budget(monkeypatch) -> None:
    """Rule: phase (c) is skipped only when no time is left (budget 0); a budget under a
    second (time_limit 1.5 s, share 0.5: 0.75 s) still runs it and then the exact search,
    whose optimum is the answer. Planted: with the deadline passed the answer is the
    bracket, "time limit ... reached"."""
    from attnio.graphs.anytime import anytime_pebble
    from attnio.graphs.pebble_result import PebbleResult

    G = _cross()
    calls = _scripted(monkeypatch, [_costing(8), _costing(7)],
                      [PebbleResult.undecided(5, 8, "probe"),
                       PebbleResult.optimal(6, _CROSS_OPTIMAL, states_explored=3)])
    r = anytime_pebble(G, 3, time_limit=1.5, heuristic_share=0.5)
    assert r.verdict == "optimal" and r.io == 6
    assert [c for c in calls if c[0] == "heuristic"][1] == ("heuristic", 0.75)
    monkeypatch.undo()
    _scripted(monkeypatch, [_costing(8)], [])
    r = anytime_pebble(G, 3, time_limit=0)
    assert r.verdict == "undecided" and r.reason == "time limit 0 s reached"


def test_below_the_smallest_cache_the_named_engine_answers(monkeypatch) -> None:
    """Rule: below the smallest M that can compute every output the answer is the engine
    named by ``method`` (its own wording), with no time given to it."""
    import attnio.graphs.anytime as anytime
    from attnio.graphs.engines import solve as real_solve

    seen: list[dict] = []

    def recording(G, M, **kw):
        seen.append(dict(kw))
        return real_solve(G, M, **kw)

    monkeypatch.setattr(anytime, "solve", recording)
    G = _cross()
    for method in ("plain", "reference"):
        r = anytime.anytime_pebble(G, 2, method=method, time_limit=5)
        assert seen[-1]["method"] == method and seen[-1]["time_limit"] == 0
        assert r == real_solve(G, 2, method=method, time_limit=0)
        assert r.verdict == "infeasible"


def test_a_caller_s_lower_bound_must_be_a_non_negative_int() -> None:
    """Rule: each ``lower_bounds`` value is an int ≥ 0 (not a bool, not a float); anything else
    is refused naming the source and the value. Planted: 0 and a valid bound are taken."""
    from attnio.graphs.anytime import AnytimeProgress, anytime_pebble

    G = _cross()
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(InvalidInputError, match=rf"lower_bounds\['mine'\]={bad!r} must be"):
            anytime_pebble(G, 3, time_limit=5, lower_bounds={"mine": bad})
    progress = AnytimeProgress()
    anytime_pebble(G, 3, time_limit=0, lower_bounds={"zero": 0, "mine": 5},
                   incumbents={"given": _costing(9)}, progress=progress)
    assert (progress.lower_bound, progress.lower_bound_source) >= (5, "mine")


def test_a_caller_s_lower_bound_routes_get_their_share_and_raise_the_bound(monkeypatch) -> None:
    """Rule: ``lower_bound_routes`` is called once, after the quick heuristic, with
    ROUTES_SHARE of the limit (cut at the deadline); the bound it returns raises the bracket
    under its own name and closes it when it meets the schedule. Planted: routes that find
    nothing (None) leave the bound at L0 and the search goes on."""
    from attnio.graphs.anytime import ROUTES_SHARE, AnytimeProgress, anytime_pebble
    from attnio.graphs.pebble_result import PebbleResult

    G = _cross()
    given: list[float] = []
    _scripted(monkeypatch, [_costing(7)], [])
    progress = AnytimeProgress()
    r = anytime_pebble(G, 3, time_limit=100, progress=progress,
                       lower_bound_routes=lambda s: given.append(s) or (7, "my routes"))
    assert given == [100 * ROUTES_SHARE]
    assert r.verdict == "optimal" and r.io == 7
    assert (progress.lower_bound, progress.lower_bound_source) == (7, "my routes")
    monkeypatch.undo()
    calls = _scripted(monkeypatch, [_costing(7), _costing(7)],
                      [PebbleResult.optimal(6, _CROSS_OPTIMAL, states_explored=1)])
    r = anytime_pebble(G, 3, time_limit=100, lower_bound_routes=lambda s: None)
    assert r.verdict == "optimal" and r.io == 6 and calls[-1][0] == "exact"
