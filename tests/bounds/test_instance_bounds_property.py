"""Every certified bound of an instance ≤ every registered algorithm's count on it (issue 35,
acceptance point 1, the default tier's share: 300 derandomized instances).

:func:`attnio.bounds.instance_bounds.instance_lower_bound` is the one function behind the
bounds `attnio bounds` (``heads_lower_bound``), `attnio simulate`, `attnio gap`, `attnio
advise` and the report print for a whole instance — masks × heads × groups × batch. Here it is
compared, for ``"any"`` and for each class, with the exact closed-form count of every
registered algorithm of the pass that runs on the instance (its own class for a class bound;
``small-cache-dx`` computes dL/dX and has no certified class). The long sweep (≥ 2,000
instances, the commands' JSON too) is ``benchmarks/sandwich_sweep.py``; the CLI round trips
are ``tests/test_sandwich_property.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from attnio.algorithms.instance import Instance, NotApplicable, count_instance, instance_algorithms
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import get_algorithm
from attnio.bounds.instance_bounds import CLASSES, instance_lower_bound


@st.composite
def instances(draw: st.DrawFn) -> tuple[Instance, int]:
    pass_ = draw(st.sampled_from(["forward", "backward"]))
    n = draw(st.integers(1, 48))
    d = draw(st.integers(1, 12))
    anchors = [d, d + 1, 2 * d, 4 * d, d * d, 4 * d * d, n * d, 4 * n * d]
    M = draw(st.sampled_from(anchors) | st.integers(4 * d + 4, 4 * n * d + 4 * d * d + 4))
    kind = draw(st.sampled_from(["none", "full", "causal", "window", "block"]))
    mask = {"none": None, "full": Mask.full(), "causal": Mask.causal()}.get(kind)
    if kind == "window":
        mask = Mask.window(draw(st.integers(1, n + 2)))
    elif kind == "block":
        side = draw(st.integers(1, 3))
        tiles = -(-n // side)
        cells = draw(st.lists(st.booleans(), min_size=tiles * tiles, max_size=tiles * tiles))
        mask = Mask.block_sparse(side, [cells[i * tiles:(i + 1) * tiles] for i in range(tiles)])
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.sampled_from([1, 2, 4]))
    batch = draw(st.sampled_from([1, 1, 2]))
    event(f"mask {kind}, {'one head' if batch * heads == 1 else 'heads'}")
    return Instance.build(n, d, pass_=pass_, M=[M], mask=mask, heads=heads, kv_heads=kv,
                          batch=batch), M


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(instances())
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_every_instance_bound_is_below_every_count(drawn: tuple[Instance, int]) -> None:
    inst, M = drawn
    bounds = {"any": instance_lower_bound(inst, M)}
    bounds.update({cls: instance_lower_bound(inst, M, cls) for cls in CLASSES[inst.pass_]})
    compared = 0
    for name in instance_algorithms(inst):
        run = count_instance(inst, name, M)
        if isinstance(run, NotApplicable):
            continue
        cls = get_algorithm(name).computation(inst.pass_)
        if cls not in CLASSES[inst.pass_]:
            continue  # dL/dX: no certified bound of the pass's outputs applies
        for key in ("any", cls):
            assert bounds[key].value <= run.io, (
                f"{key} bound {bounds[key].value} ({bounds[key].route}) > {name}'s "
                f"{run.io} at {inst.describe()}, M={M}")
            compared += 1
    event("comparisons: 0" if compared == 0 else "comparisons: > 0")
