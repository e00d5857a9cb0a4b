"""`attnio verify --time-limit` (issue 22): no claim starts after the deadline, each solver
call is bounded by the time left, the rest are Undecided; one note line, exit 1."""

from __future__ import annotations

import json
import time

import pytest

from attnio.cli import main
from attnio.proofs.registry import CheckContext, Claim
from attnio.proofs.runner import (
    TIME_LIMIT_REACHED,
    bounded_context,
    run_claims,
    stopped_by_time_limit,
)
from attnio.results import Proved


def _claim(name: str) -> Claim:
    return Claim(f"demo.{name}", "true", "true", "test", "python", "demo",
                 lambda ctx: Proved("yes"))


def test_no_claim_starts_after_the_deadline() -> None:
    claims = [_claim("a"), _claim("b")]
    results = run_claims(claims, show_progress=False, deadline=time.monotonic() - 1)
    assert [r.verdict.detail for r in results] == [TIME_LIMIT_REACHED] * 2
    assert stopped_by_time_limit(results)
    results = run_claims(claims, show_progress=False, deadline=time.monotonic() + 3600)
    assert all(r.verdict.proved for r in results) and not stopped_by_time_limit(results)


def test_solver_calls_get_at_most_the_time_left() -> None:
    ctx = CheckContext(z3_timeout_ms=20_000, search_seconds=60.0)
    bounded = bounded_context(ctx, time.monotonic() + 2)
    assert 1 <= bounded.z3_timeout_ms <= 2000 and bounded.search_seconds <= 2
    assert bounded_context(ctx, time.monotonic() - 5).z3_timeout_ms == 1
    assert bounded_context(ctx, None) is ctx


def test_a_zero_limit_reports_every_claim_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "sym", "--time-limit", "0"]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    total = int(lines[-1].split(" of ")[1].split()[0])
    assert lines[-1] == f"attnio verify: time limit 0 s reached; 0 of {total} claims done"
    assert total > 0 and f"0 proved, 0 refuted, {total} undecided of {total}" in captured.out
    assert not any(line.startswith("  UNDECIDED") for line in lines)  # one line, not one each


def test_json_says_how_far_it_got(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "sym", "--time-limit", "0", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["time_limit"]["reached"] is True and doc["time_limit"]["claims_done"] == 0
    assert doc["summary"]["undecided"] == doc["time_limit"]["claims"]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_short_limit_stops_in_time(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code = main(["verify", "--time-limit", "1"])
    seconds = time.monotonic() - started
    note = capsys.readouterr().err.splitlines()[-1]
    assert code == 1 and note.startswith("attnio verify: time limit 1 s reached; ")
    assert seconds < 30  # the default tier takes minutes; measured ~1-3 s here


@pytest.mark.parametrize("value", ["nan", "-1", "inf"])
def test_bad_limits_are_exit_2_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "sym", "--time-limit", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("attnio verify: error: --time-limit=")
