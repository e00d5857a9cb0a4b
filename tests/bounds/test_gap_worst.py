"""The exact worst ratio over every M (issue 35, item 2) against a brute-force scan.

:func:`attnio.bounds.gap_worst.worst_ratio` never evaluates most M; these tests evaluate every
integer M of a smaller instance and check that it finds the same maximum, that a geometric grid
misses it (the planted grid-missed maximum), that the plateaus it relies on match a full scan,
and that its interval lower bound — the only thing that lets it skip an M — is never above the
exact bound.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms.instance import Instance, NotApplicable, count_instance
from attnio.algorithms.masks import Mask
from attnio.bounds import gap_worst
from attnio.bounds.gap import GAP_ALGORITHMS
from attnio.bounds.gap_worst import algorithm_plateaus, interval_lower_bound, worst_ratio
from attnio.bounds.instance_bounds import headline, instance_lower_bound

SMALL = {"n": 256, "d": 16, "lo": 16, "hi": 4096}


def _scan(instance: Instance, lo: int, hi: int, names: tuple[str, ...]) -> tuple[float, int]:
    """max over every M in [lo, hi] of min io / LB, by evaluating every M (the algorithms
    that stay finite for every logit: the headline's)."""
    names = tuple(a for a in names if headline(a, instance.pass_))
    best: tuple[float, int] | None = None
    for M in range(lo, hi + 1):
        ios = [r.io for r in (count_instance(instance, a, M) for a in names)
               if not isinstance(r, NotApplicable)]
        if not ios:
            continue
        ratio = min(ios) / instance_lower_bound(instance, M).value
        if best is None or ratio > best[0]:
            best = (ratio, M)
    assert best is not None
    return best


@pytest.mark.parametrize("pass_", ["backward", "forward"])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_exact_worst_equals_a_full_scan(pass_: str) -> None:
    """n = 256, d = 16, every M in [16, 4096]: backward 8.27 at M = 815, forward 6.77 at
    M = 60 — neither a power of two nor 3·2^k."""
    inst = Instance.build(SMALL["n"], SMALL["d"], pass_=pass_, M=[SMALL["lo"]])
    names = GAP_ALGORITHMS[pass_]
    found = worst_ratio(inst, SMALL["lo"], SMALL["hi"], algorithms=names)
    ratio, M = _scan(inst, SMALL["lo"], SMALL["hi"], names)
    assert found.exact and found.M == M and found.ratio == ratio
    assert found.evaluated < (SMALL["hi"] - SMALL["lo"]) // 4  # it did skip most M
    # the planted grid-missed maximum: the powers of two and 3·2^k (the table's rows) miss it
    grid = [m for m in range(SMALL["lo"], SMALL["hi"] + 1)
            if m & (m - 1) == 0 or (m % 3 == 0 and (m // 3) & (m // 3 - 1) == 0)]
    assert M not in grid
    names = tuple(a for a in names if headline(a, pass_))
    on_grid = max(min(r.io for r in (count_instance(inst, a, m) for a in names)
                      if not isinstance(r, NotApplicable)) / instance_lower_bound(inst, m).value
                  for m in grid if any(not isinstance(count_instance(inst, a, m), NotApplicable)
                                       for a in names))
    assert on_grid < found.ratio


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_whole_instance_too() -> None:
    """A mask with grouped heads: the same exact maximum as the scan."""
    inst = Instance.build(64, 8, M=[8], mask=Mask.window(3), heads=4, kv_heads=2)
    names = ("standard", "flash1", "flash2", "small-cache", "small-cache-fused", "flash2-gqa")
    found = worst_ratio(inst, 8, 512, algorithms=names)
    assert (found.ratio, found.M) == _scan(inst, 8, 512, names)


@pytest.mark.parametrize("name", ["flash1", "small-cache", "small-cache-fused",
                                  "fused-resident", "flash2-split"])
def test_plateaus_match_a_full_scan(name: str) -> None:
    inst = Instance.build(64, 8, M=[8])
    runs = algorithm_plateaus(inst, name, 8, 400)
    assert runs[0][0] == 8 and runs[-1][1] == 400
    assert all(b + 1 == a for (_, b, _), (a, _, _) in zip(runs, runs[1:]))
    for a, b, io in runs:
        for M in range(a, b + 1):
            r = count_instance(inst, name, M)
            assert (None if isinstance(r, NotApplicable) else r.io) == io, (name, M)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(n=st.integers(2, 96), d=st.integers(1, 16), a=st.integers(1, 3000),
       width=st.integers(0, 200), pass_=st.sampled_from(["forward", "backward"]),
       heads=st.sampled_from([1, 2]), mask=st.sampled_from([None, "causal", "window:2"]))
def test_the_interval_bound_never_exceeds_the_exact_bound(n, d, a, width, pass_, heads,
                                                            mask) -> None:
    m = None if mask is None else (Mask.causal() if mask == "causal" else Mask.window(2))
    inst = Instance.build(n, d, pass_=pass_, M=[a], heads=heads, mask=m)
    b = a + width
    low = interval_lower_bound(inst, a, b)
    coarse = interval_lower_bound(inst, a, b, coarse=gap_worst.COARSE)
    assert coarse <= low
    for M in {a, b, (a + b) // 2}:
        assert low <= instance_lower_bound(inst, M).value


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_an_unsound_interval_bound_is_caught(monkeypatch) -> None:
    """The false twin: an interval 'lower bound' above the exact bound is refused, never used
    to skip an M."""
    real = gap_worst.interval_lower_bound
    monkeypatch.setattr(gap_worst, "interval_lower_bound",
                        lambda inst, a, b, coarse=gap_worst.CELLS: 2 * real(inst, a, b) + 10**9)
    inst = Instance.build(SMALL["n"], SMALL["d"], M=[SMALL["lo"]])
    with pytest.raises(AssertionError, match="interval lower bound"):
        worst_ratio(inst, SMALL["lo"], SMALL["hi"], algorithms=GAP_ALGORITHMS["backward"])
