"""Tests of attnio.progress: bars, and StageStatus naming the stage that runs."""

from __future__ import annotations

import io
import re
import time

import pytest

from attnio.exceptions import InvalidInputError
from attnio.progress import StageStatus, progress, status_interval


def test_progress_passes_items_through() -> None:
    assert list(progress(range(4), enabled=False)) == [0, 1, 2, 3]


def test_stage_status_off_a_terminal_repeats_the_stage_name_without_an_eta() -> None:
    stream = io.StringIO()  # not a terminal
    with StageStatus("attnio demo", total=2, stream=stream, enabled=True,
                     interval=0.05) as status:
        with status.stage("slow stage"):
            status.detail("claim bwd.tight")
            time.sleep(0.4)
        with status.stage("fast stage"):
            pass
    lines = stream.getvalue().splitlines()
    assert lines[0] == "attnio demo: [1/2] slow stage …"
    beats = [line for line in lines if "still in [1/2] slow stage" in line]
    assert len(beats) >= 3, lines  # a status line every 0.05 s while the stage runs
    assert all(re.search(r"\(\d+ s; claim bwd\.tight\)$", b) for b in beats), beats
    assert re.fullmatch(r"attnio demo: \[1/2\] slow stage done in \d+\.\d s", lines[-3]), lines
    assert lines[-2] == "attnio demo: [2/2] fast stage …"
    assert lines[-1].startswith("attnio demo: [2/2] fast stage done in ")
    assert not re.search(r"ETA|remaining|left", stream.getvalue())
    assert "\r" not in stream.getvalue()  # no terminal control codes in a log file


def test_stage_status_silenced_by_attnio_progress_0(monkeypatch) -> None:
    monkeypatch.setenv("ATTNIO_PROGRESS", "0")
    stream = io.StringIO()
    with StageStatus("x", stream=stream, interval=0.05) as status:
        with status.stage("s"):
            time.sleep(0.12)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "1e9"])
def test_bad_status_interval_is_invalid_input(monkeypatch, value: str) -> None:
    monkeypatch.setenv("ATTNIO_STATUS_INTERVAL", value)
    with pytest.raises(InvalidInputError, match="ATTNIO_STATUS_INTERVAL"):
        status_interval()


def test_status_interval_default_and_override(monkeypatch) -> None:
    monkeypatch.delenv("ATTNIO_STATUS_INTERVAL", raising=False)
    assert status_interval() == 5.0
    monkeypatch.setenv("ATTNIO_STATUS_INTERVAL", "0.5")
    assert status_interval() == 0.5
