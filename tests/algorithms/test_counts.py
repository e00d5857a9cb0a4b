"""Closed-form counts == executed counts, exactly, on small (n, d, M) triples (≥ 50 per run).

Every (algorithm, pass) is executed under the memory model on a grid of sizes that the block
sizes mostly do not divide; reads, writes, FLOPs and peak words must equal the closed form
with ``==``. A planted wrong closed form (floor instead of ceiling trip counts) must be caught.
"""

from __future__ import annotations

import pytest

from attnio.algorithms import counts as C
from attnio.algorithms.registry import REGISTRY
from attnio.algorithms.simulation import count, simulate
from attnio.exceptions import CacheOverflowError, InvalidInputError

PAIRS = [("standard", "forward"), ("standard", "backward"), ("flash1", "forward"),
         ("flash1", "backward"), ("flash2", "forward"), ("flash2", "backward"),
         ("square-tiling", "forward"), ("small-cache", "backward"),
         ("small-cache-dx", "backward"), ("small-cache-stable", "forward"),
         ("small-cache-stable", "backward")]
SIZES = [(1, 1), (3, 2), (5, 3), (7, 2), (8, 4), (11, 3), (13, 5), (6, 7)]
CACHE = [4, 7, 13, 26, 45, 90, 200]


def _admissible_cases() -> list[tuple[str, str, int, int, int]]:
    cases = []
    for algorithm, pass_ in PAIRS:
        for n, d in SIZES:
            for M in CACHE:
                try:
                    count(algorithm, pass_, n, d, M)
                except InvalidInputError:
                    continue
                cases.append((algorithm, pass_, n, d, M))
    return cases


CASES = _admissible_cases()


def _non_dividing(case: tuple[str, str, int, int, int]) -> bool:
    result = count(*case)
    return any(case[2] % b or case[3] % b for _, b in result.block_sizes)


def test_the_grid_is_large_and_mostly_non_dividing() -> None:
    assert len(CASES) >= 50
    assert sum(_non_dividing(c) for c in CASES) >= 50
    assert {p for p in PAIRS} == {(a, p) for a, p, *_ in CASES}  # every pass is exercised


# default tier: 64 cases spread over the table (every pair); --runslow: all of them
@pytest.mark.default_slice(64)
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_executed_equals_closed_form_and_reference(case: tuple[str, str, int, int, int]) -> None:
    algorithm, pass_, n, d, M = case
    executed = simulate(algorithm, pass_, n, d, M, execute=True, seed=n * 100 + M)
    closed = count(algorithm, pass_, n, d, M)
    assert (executed.reads, executed.writes, executed.flops, executed.peak_fast_words) == (
        closed.reads, closed.writes, closed.flops, closed.peak_fast_words)
    assert executed.closed_form_match is True
    assert executed.peak_fast_words <= M
    assert executed.max_relative_error is not None and executed.max_relative_error <= 1e-10
    assert all(type(v) is int for v in (closed.reads, closed.writes, closed.io, closed.flops))


def _planted_flash1_backward(n: int, d: int, M: int) -> tuple[int, int]:
    """False twin: FA-1 backward with the trip count floored (n // B_c) instead of ceiled."""
    br, bc = C.flash_block_sizes(1, "backward", n, d, M)
    Tc = max(n // bc, 1)
    return 2 * n * d + Tc * (4 * n * d + 2 * n), 3 * n * d + Tc * n * d + 2 * n * d


def test_false_twin_a_wrong_closed_form_is_detected() -> None:
    flash_cases = [c for c in CASES if c[:2] == ("flash1", "backward")]
    mismatches = 0
    for _, _, n, d, M in flash_cases:
        executed = simulate("flash1", "backward", n, d, M, execute=True)
        mismatches += (executed.reads, executed.writes) != _planted_flash1_backward(n, d, M)
    assert mismatches > 0


def test_false_twin_published_flash_blocks_overflow_in_both_modes() -> None:
    for pass_, tile in (("backward", "'Q_i'"), ("forward", "'l_i'")):
        with pytest.raises(CacheOverflowError, match=tile):
            simulate("flash1-published", pass_, 64, 8, 256, execute=True)
        with pytest.raises(CacheOverflowError, match=tile):
            count("flash1-published", pass_, 64, 8, 256)


def test_published_blocks_that_fit_count_exactly() -> None:
    executed = simulate("flash1-published", "forward", 64, 4, 2000, execute=True)
    assert executed.closed_form_match and executed.peak_fast_words <= 2000


def test_count_mode_handles_n_65536_exactly() -> None:
    """Loop-collapsed counts work at full size (speed is measured in benchmarks/)."""
    for algorithm, pass_ in PAIRS:
        result = count(algorithm, pass_, 65_536, 128, 4096)
        assert type(result.io) is int and result.io >= 2 * 65_536 * 128


@pytest.mark.parametrize("n", [1, 5, 17, 1000])
@pytest.mark.parametrize("d", [1, 3, 64])
@pytest.mark.parametrize("M", [4, 37, 5000, 70_000])
def test_totals_quoted_in_notes_equal_the_closed_forms(n: int, d: int, M: int) -> None:
    """The (reads, writes) totals printed in notes/algorithms_io.md, written out again."""
    B = C.square_block(M)
    Tn, Td = -(-n // B), -(-d // B)
    quoted = {
        C.count_standard_forward: (3 * Tn * n * d + (2 + Td) * n * n, 2 * n * n + n * d),
        C.count_standard_backward: (3 * Td * n * n + 5 * Tn * n * d + 2 * n * n + 2 * n * d + n,
                                    2 * n * n + 3 * n * d + n),
        C.count_square_tiling_forward: (3 * Tn * n * d + Td * n * n + n, n * n + n + n * d),
        C.count_small_cache_stable_forward: (3 * Tn * n * d + Td * n * n + n * n + n * Tn + n,
                                             2 * n * n + n * Tn + n + n * d),
        C.count_small_cache_backward: (2 * n * d + 5 * Tn * n * d + n * n + 2 * n * Tn
                                       + 3 * Td * n * n, n + 2 * n * n + 3 * n * d),
        C.count_small_cache_dx: (4 * Td * n * d + 2 * Tn * d * d + 6 * Tn * n * d + 3 * n * n
                                 + 2 * Td * n * n + 4 * n * d + 2 * n,
                                 4 * n * n + 5 * n * d + 2 * n + d * d),
    }
    for counter, expected in quoted.items():
        got = counter(n, d, M)
        assert (got.reads, got.writes) == expected, counter.__name__
    flash = {
        C.count_flash1_forward: lambda Tr, Tc: (2 * n * d + Tc * (2 * n * d + 2 * n),
                                                n * d + 2 * n + Tc * (n * d + 2 * n)),
        C.count_flash1_backward: lambda Tr, Tc: (2 * n * d + Tc * (4 * n * d + 2 * n),
                                                 5 * n * d + Tc * n * d),
        C.count_flash2_forward: lambda Tr, Tc: (n * d + 2 * Tr * n * d, n * d + n),
        C.count_flash2_backward: lambda Tr, Tc: (4 * n * d + Tc * (3 * n * d + 2 * n),
                                                 n + 3 * n * d + Tc * n * d),
    }
    for counter, formula in flash.items():
        try:
            got = counter(n, d, M)
        except InvalidInputError:
            continue
        blocks = dict(got.block_sizes)
        expected = formula(-(-n // blocks["B_r"]), -(-n // blocks["B_c"]))
        assert (got.reads, got.writes) == expected, counter.__name__


@pytest.mark.slow
@pytest.mark.parametrize("algorithm,pass_", PAIRS)
@pytest.mark.parametrize("M", [300, 1000, 4000])
def test_executed_equals_closed_form_at_medium_sizes(algorithm: str, pass_: str, M: int) -> None:
    result = simulate(algorithm, pass_, 200, 24, M, execute=True, seed=M)
    assert result.closed_form_match and result.max_relative_error <= 1e-10
    assert result.peak_fast_words <= M


# ---- masked runs (issue 15) -----------------------------------------------------------------
# every (algorithm, pass) the registry marks as taking a mask (but flash1-published, whose
# printed block sizes overflow M at these sizes: its masked count is flash1's with other blocks)
MASKED_PAIRS = [(spec.name, pass_) for spec in REGISTRY.values()
                if spec.masked and spec.name != "flash1-published" for pass_ in spec.passes]


def _masks(n: int):
    import numpy as np

    from attnio.algorithms.masks import Mask

    rng = np.random.default_rng(n)
    t = -(-n // 3)
    pattern = rng.random((t, t)) < 0.5
    arr = rng.random((n, n)) < 0.3
    arr[n // 2, :] = False                      # a fully masked row
    return [Mask.full(), Mask.causal(), Mask.window(3), Mask.window(2),
            Mask.block_sparse(3, pattern), Mask.from_array(arr),
            Mask.from_array(np.zeros((n, n), dtype=bool))]


@pytest.mark.parametrize("algorithm, pass_", MASKED_PAIRS)
def test_masked_closed_forms_equal_executed_counts(algorithm: str, pass_: str) -> None:
    """Odd sizes, tiles not dividing n; every mask kind incl. fully masked rows / all masked."""
    checked = 0
    for n, d, M in [(11, 3, 45), (13, 5, 200), (7, 2, 26), (17, 4, 90), (5, 3, 13),
                    (19, 2, 60), (9, 4, 300), (23, 3, 110), (1, 1, 26), (2, 3, 45)]:
        for mask in _masks(n):
            try:
                result = simulate(algorithm, pass_, n, d, M, execute=True, mask=mask, tau=0.8)
            except InvalidInputError:
                continue
            assert result.closed_form_match, (algorithm, pass_, n, d, M, mask.label)
            assert result.max_relative_error <= 1e-10, (algorithm, pass_, mask.label)
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("algorithm, pass_", MASKED_PAIRS)
def test_full_mask_counts_equal_the_unmasked_closed_form(algorithm: str, pass_: str) -> None:
    from attnio.algorithms.masks import Mask

    for n, d, M in [(37, 5, 200), (100, 16, 1000), (4096, 64, 65536)]:
        assert count(algorithm, pass_, n, d, M, mask=Mask.full()).io == \
            count(algorithm, pass_, n, d, M).io


def test_false_twin_causal_count_is_not_the_unmasked_execution() -> None:
    """The masked count must differ from what an unmasked run executes (else the check is void).

    At n = 33 every masked schedule has a tile to skip (at n = 17, M = 90 small-cache-fused's
    backward takes whole rows, c1 = n = r2, and a causal mask empties none of its tiles)."""
    from attnio.algorithms.masks import Mask

    for algorithm, pass_ in MASKED_PAIRS:
        executed = simulate(algorithm, pass_, 33, 4, 90, execute=True)
        assert count(algorithm, pass_, 33, 4, 90, mask=Mask.causal()).io < executed.io


def test_causal_flash2_backward_target() -> None:
    from attnio.algorithms.masks import Mask

    full = count("flash2", "backward", 4096, 64, 2 ** 16).io
    causal = count("flash2", "backward", 4096, 64, 2 ** 16, mask=Mask.causal()).io
    assert 0.45 * full <= causal <= 0.65 * full


@pytest.mark.parametrize("algorithm", ["standard", "flash1", "flash2", "small-cache",
                                       "small-cache-fused"])
def test_a_cache_below_every_tile_set_is_infeasible_and_bad_input(algorithm: str) -> None:
    """M too small for any tile set: CacheTooSmallError, which sweeps catch as an
    InfeasibleError (the algorithm is left out at that M) and the CLI reports as bad input."""
    from attnio.exceptions import CacheTooSmallError, InfeasibleError

    with pytest.raises(CacheTooSmallError, match="too small") as caught:
        count(algorithm, "backward", 1024, 32, 2)
    assert isinstance(caught.value, InfeasibleError) and isinstance(caught.value, InvalidInputError)


def test_bad_block_sizes_go_through_the_validation_module() -> None:
    with pytest.raises(InvalidInputError, match="B_r=0 must be a positive integer"):
        C.count_flash1_forward(64, 8, 4096, blocks=(0, 4))
