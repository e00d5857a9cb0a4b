"""--tune: exact search never worse than the default blocks; tuned runs execute and match."""

from __future__ import annotations

import pytest

from attnio.algorithms.simulation import count, simulate
from attnio.algorithms.tuning import TUNABLE, count_with_blocks, tuned_blocks, tuned_count
from attnio.exceptions import CacheOverflowError, InvalidInputError


# default tier: 12 spread cases; --runslow: every (algorithm, pass, size)
@pytest.mark.default_slice(12)
@pytest.mark.parametrize("algorithm,pass_", TUNABLE)
@pytest.mark.parametrize("n,d,M", [(4096, 64, 1024), (4096, 64, 16384), (1000, 16, 300)])
def test_tuned_never_worse_than_default(algorithm: str, pass_: str, n: int, d: int,
                                        M: int) -> None:
    try:
        default = count(algorithm, pass_, n, d, M).io
    except InvalidInputError:
        return
    tuned = tuned_count(algorithm, pass_, n, d, M)
    assert tuned.io <= default and tuned.peak_fast_words <= M


# default tier: 12 spread cases; --runslow: every (algorithm, pass, size)
@pytest.mark.default_slice(12)
@pytest.mark.parametrize("algorithm,pass_", TUNABLE)
@pytest.mark.parametrize("n,d,M", [(13, 6, 40), (20, 8, 300), (16, 4, 1000)])
def test_tuned_executes_and_matches(algorithm: str, pass_: str, n: int, d: int, M: int) -> None:
    try:
        r = simulate(algorithm, pass_, n, d, M, execute=True, tune=True)
    except InvalidInputError:
        return  # no tile of this algorithm fits this M
    assert r.closed_form_match and r.peak_fast_words <= M and r.max_relative_error <= 1e-10
    assert dict(r.block_sizes) == tuned_blocks(algorithm, pass_, n, d, M)


def test_square_search_is_exhaustive() -> None:
    n, d, M = 50, 7, 200
    best = min(c.io for B in range(1, 60)
               for c in [_try("standard", "backward", n, d, M, {"B": B})] if c is not None)
    assert tuned_count("standard", "backward", n, d, M).io == best


def _try(algorithm, pass_, n, d, M, blocks):
    try:
        return count_with_blocks(algorithm, pass_, n, d, M, blocks)
    except CacheOverflowError:
        return None


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="no tunable blocks"):
        tuned_blocks("small-cache-dx", "backward", 8, 2, 64)
    with pytest.raises(InvalidInputError, match="too small"):
        tuned_blocks("flash1", "backward", 64, 8, 16)


def test_simulate_cli_tune(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from attnio.cli import main

    argv = ["simulate", "--n", "20", "--d", "4", "--M", "100", "--algorithm", "small-cache",
            "--pass", "backward", "--json", "--execute"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)["runs"][0]
    assert main(argv + ["--tune"]) == 0
    tuned = json.loads(capsys.readouterr().out)["runs"][0]
    assert tuned["closed_form_match"] and tuned["io"] <= plain["io"]
    assert tuned["block_sizes"] == tuned_blocks("small-cache", "backward", 20, 4, 100)
