"""simulate / count / measured_crossover: validation, the crossover window, the FA ratio band."""

from __future__ import annotations

import pytest

from attnio.algorithms.simulation import (
    ALGORITHMS,
    BOUND_IDS,
    catalogue_value,
    count,
    measured_crossover,
    simulate,
)
from attnio.exceptions import InvalidInputError

N, D = 4096, 64


def _geometric(lo: int, hi: int, steps: int) -> list[int]:
    return sorted({round(lo * (hi / lo) ** (k / (steps - 1))) for k in range(steps)})


def test_crossover_of_flash_backward_and_algorithm6_lies_in_quarter_to_four_d_squared() -> None:
    grid = _geometric(D * D // 16, 16 * D * D, 64)
    for large in ("flash1", "flash2"):
        crossover = measured_crossover(N, D, grid, large=large)
        assert crossover is not None and D * D // 4 <= crossover <= 4 * D * D


def test_crossover_is_none_when_the_sweep_does_not_swap() -> None:
    assert measured_crossover(N, D, _geometric(8 * D * D, N * D, 8)) is None


def _flash_ratios(formula_pass: str, formula_algorithm: str) -> list[float]:
    ratios = []
    for M in _geometric(4 * D, N * D, 64):
        try:
            io = count("flash1", "backward", N, D, M).io
        except InvalidInputError:  # M < 8d + 5: no FA-1 backward tile set fits
            continue
        ratios.append(float(io / catalogue_value(formula_algorithm, formula_pass, N, D, M)))
    return ratios


def test_flash_backward_ratio_to_its_formula_stays_in_a_constant_band() -> None:
    ratios = _flash_ratios("backward", "flash1")
    assert len(ratios) >= 50
    assert 20 <= min(ratios) and max(ratios) <= 61  # band [21.1, 60.5]: notes/algorithms_io.md


def test_false_twin_the_wrong_formula_leaves_every_band() -> None:
    """Against n²d/√M (Algorithm 6's formula) FlashAttention's ratio drifts by > 10×."""
    ratios = _flash_ratios("backward", "small-cache")
    assert max(ratios) / min(ratios) > 10


def test_catalogue_ids_cover_every_algorithm_and_pass() -> None:
    for (algorithm, pass_), bound_id in BOUND_IDS.items():
        assert algorithm in ALGORITHMS
        assert catalogue_value(algorithm, pass_, 256, 16, 1024) > 0, bound_id


@pytest.mark.parametrize("kwargs,message", [
    ({"algorithm": "nope"}, "algorithm='nope' is unknown"),
    ({"pass_": "sideways"}, "pass='sideways'"),
    ({"algorithm": "square-tiling", "pass_": "backward"}, "has no backward pass"),
    ({"algorithm": "small-cache-dx", "pass_": "forward"}, "has no forward pass"),
    ({"n": 0}, "n=0 must be a positive integer"),
    ({"d": 2.5}, "d=2.5 must be a positive integer"),
    ({"M": True}, "M=True must be a positive integer"),
    ({"M": 3}, "M=3 is too small for any square tile"),
])
def test_bad_input_is_one_invalid_input_error(kwargs: dict, message: str) -> None:
    args = {"algorithm": "small-cache", "pass_": "backward", "n": 16, "d": 4, "M": 64} | kwargs
    with pytest.raises(InvalidInputError, match=message):
        simulate(args.pop("algorithm"), args.pop("pass_"), **args)


def test_result_is_frozen_and_json_ready() -> None:
    result = simulate("flash2", "forward", 32, 4, 200, execute=True)
    with pytest.raises(AttributeError):
        result.io = 0  # type: ignore[misc]
    row = result.to_json()
    assert row["pass"] == "forward" and row["io"] == row["reads"] + row["writes"]
    assert set(row["block_sizes"]) == {"B_r", "B_c"}


# ---- issue 13: the library refuses bad input with InvalidInputError ----------------------

def test_library_entry_points_refuse_bad_input() -> None:
    from attnio.algorithms.simulation import MAX_EXECUTE_BYTES, count, simulate
    from attnio.exceptions import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"algorithm=\['flash1'\]"):
        count(["flash1"], "backward", 64, 8, 256)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="seed='x'"):
        simulate("flash1", "backward", 64, 8, 256, seed="x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="seed=-1"):
        simulate("flash1", "backward", 64, 8, 256, execute=True, seed=-1)
    with pytest.raises(InvalidInputError, match="pass='sideways'"):
        count("flash1", "sideways", 64, 8, 256)
    with pytest.raises(InvalidInputError, match=f"MAX_EXECUTE_BYTES={MAX_EXECUTE_BYTES}"):
        simulate("flash1", "forward", 100_000, 64, 65536, execute=True)


def test_tau_without_mask_and_bad_tau() -> None:
    from attnio.algorithms.masks import Mask

    for algorithm, pass_ in [("flash1", "backward"), ("flash2", "forward"),
                             ("standard", "backward"), ("small-cache", "backward"),
                             ("square-tiling", "forward")]:
        r = simulate(algorithm, pass_, 13, 3, 90, execute=True, tau=0.37)
        assert r.closed_form_match and r.max_relative_error <= 1e-10, algorithm
    for tau in (0.0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(InvalidInputError, match="tau"):
            simulate("flash1", "backward", 8, 2, 90, tau=tau)
    with pytest.raises(InvalidInputError, match="takes no mask"):
        simulate("small-cache-dx", "backward", 8, 2, 90, mask=Mask.causal())
    with pytest.raises(InvalidInputError, match="must be"):
        count("flash1", "backward", 8, 2, 90, mask=Mask.from_array([[True]]))
