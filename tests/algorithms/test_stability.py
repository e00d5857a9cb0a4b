"""Stability declarations: every (record, pass) is executed at logits up to 10⁴ in float64 and
its ``finite_logits`` holds both ways; planted wrong declarations (either way) are caught."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attnio.algorithms.registry import REGISTRY, AlgorithmSpec, get_algorithm
from attnio.algorithms.stability import (
    LOGIT_BOUND,
    STABILITY_SIZES,
    execute_at_logits,
    logit_scale,
    stability_mismatch,
)

CASES = [(name, pass_) for name in REGISTRY for pass_ in get_algorithm(name).passes]
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the overflows themselves


@pytest.mark.parametrize("name,pass_", CASES)
def test_every_declaration_holds_when_executed(name: str, pass_: str) -> None:
    spec = get_algorithm(name)
    assert spec.stability[pass_] and isinstance(spec.finite_logits[pass_], bool)
    assert stability_mismatch(spec, pass_) is None


def _flipped(name: str, pass_: str) -> AlgorithmSpec:
    spec = get_algorithm(name)
    return dataclasses.replace(spec, finite_logits={**spec.finite_logits,
                                                    pass_: not spec.finite(pass_)})


@pytest.mark.parametrize("name,pass_", [("flash2", "forward"), ("fused-resident", "backward"),
                                        ("small-cache-fused", "forward")])
def test_false_twin_a_stable_pass_declared_to_overflow_is_caught(name: str, pass_: str) -> None:
    message = stability_mismatch(_flipped(name, pass_), pass_)
    assert message is not None and "declared to overflow" in message


@pytest.mark.parametrize("name,pass_", [("square-tiling", "forward"), ("small-cache", "backward"),
                                        ("small-cache-dx", "backward")])
def test_false_twin_an_overflowing_pass_declared_finite_is_caught(name: str, pass_: str) -> None:
    message = stability_mismatch(_flipped(name, pass_), pass_)
    assert message is not None and "declared finite" in message and "nan" in message


def test_the_logits_reach_the_bound_and_the_small_ones_do_not_overflow() -> None:
    """The scale is exact (max |logit| = 10⁴), and the same unstable pass stays finite at
    logits below 709 (so the overflow, not the schedule, is what the check sees)."""
    n, d, M = STABILITY_SIZES[0]
    run = execute_at_logits("square-tiling", "forward", n, d, M)
    assert run.max_logit == LOGIT_BOUND and not run.finite and run.closed_form_match
    small = execute_at_logits("square-tiling", "forward", n, d, M, target=700.0)
    assert small.finite and small.within_tolerance
    assert small.max_logit == pytest.approx(700.0)
    assert logit_scale("square-tiling", n, d, target=700.0) == pytest.approx(small.tau)


def test_the_fused_forms_are_stable_now() -> None:
    """Issue 35, item 3: small-cache-fused and fused-resident store the block maxima."""
    for name in ("small-cache-fused", "fused-resident"):
        assert all(get_algorithm(name).finite(p) for p in ("forward", "backward"))
    finite_forward = [n for n in REGISTRY if "forward" in get_algorithm(n).passes
                      and get_algorithm(n).finite("forward")]
    assert {"standard", "flash1", "flash2", "small-cache-fused", "fused-resident",
            "small-cache-stable"} <= set(finite_forward)
    assert not any(get_algorithm(n).finite(p) for n, p in
                   [("square-tiling", "forward"), ("small-cache", "forward"),
                    ("small-cache", "backward"), ("small-cache-dx", "backward")])


def test_finite_outputs_match_the_reference_at_large_logits() -> None:
    n, d, M = STABILITY_SIZES[1]
    for name, pass_ in [("fused-resident", "forward"), ("small-cache-fused", "backward"),
                        ("flash2-split", "backward")]:
        run = execute_at_logits(name, pass_, n, d, M)
        assert run.finite and run.within_tolerance and run.closed_form_match, name
        assert np.isfinite(run.tau) and run.tau > 100
