"""`attnio gap --time-limit` (issue 22): a deadline read between (M, algorithm) pairs and
inside the --tune searches; a sweep cut short prints its finished rows, one note line, exit 1."""

from __future__ import annotations

import json
import time

import pytest

from attnio.algorithms.tuning import TimeLimitReached, tuned_blocks, tuned_count
from attnio.bounds.gap import gap_rows
from attnio.cli import main

SWEEP = ["gap", "--n", "4096", "--d", "64", "--M-geom", "64:262144:1000", "--tune"]


def test_a_zero_limit_stops_before_the_first_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SWEEP, "--time-limit", "0"]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == \
        "attnio gap: time limit 0 s reached; 0 of 981 sizes done"
    assert "best algorithm" in captured.out  # the (empty) table is still printed


def test_a_short_limit_prints_the_finished_rows(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    assert main([*SWEEP, "--time-limit", "0.5", "--json"]) == 1
    seconds = time.monotonic() - started
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    limit = payload["time_limit"]
    assert limit["reached"] is True and limit["total"] == 981 and 0 <= limit["done"] < 981
    assert len({row["M"] for row in payload["rows"]}) == len(payload["rows"]) <= limit["done"]
    note = captured.err.splitlines()[-1]
    assert note == f"attnio gap: time limit 0.5 s reached; {limit['done']} of 981 sizes done"
    assert seconds < 30  # the whole sweep takes ~20 s of CPU; measured ~0.6 s here


def test_a_generous_limit_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["gap", "--n", "256", "--d", "16", "--M", "64,300", "--tune", "--json"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*argv, "--time-limit", "3600"]) == 0
    bounded = json.loads(capsys.readouterr().out)
    assert bounded.pop("time_limit") == {"seconds": 3600.0, "reached": False, "done": 2,
                                         "total": 2}
    assert bounded["rows"] == plain["rows"]


def test_the_multihead_sweep_is_bounded_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gap", "--n", "4096", "--d", "64", "--M-geom", "64:262144:1000",
                 "--heads", "8", "--time-limit", "0"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == \
        "attnio gap: time limit 0 s reached; 0 of 981 sizes done"


@pytest.mark.parametrize("value", ["nan", "-1", "inf"])
def test_bad_limits_are_exit_2_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SWEEP, "--time-limit", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("attnio gap: error: --time-limit=")


def test_the_engines_raise_with_the_rows_finished() -> None:
    past = time.monotonic() - 1
    with pytest.raises(TimeLimitReached):
        tuned_blocks("flash2", "backward", 4096, 64, 16384, deadline=past)
    with pytest.raises(TimeLimitReached):
        tuned_count("standard", "forward", 4096, 64, 1024, deadline=past)
    with pytest.raises(TimeLimitReached) as info:
        gap_rows("backward", 4096, 64, [1024, 4096], tune=True, deadline=past)
    assert (info.value.rows, info.value.done, info.value.total) == ([], 0, 2)
    steps: list[str] = []
    rows = gap_rows("forward", 256, 16, [300], tune=True, deadline=time.monotonic() + 3600,
                    on_step=steps.append)
    assert len(rows) == 1 and steps and all(s.startswith("M=300: ") for s in steps)
