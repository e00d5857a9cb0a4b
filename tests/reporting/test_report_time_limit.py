"""`attnio report --time-limit` (issue 22): read before every section and between the verify
table's claims; the sections not run are written as such, one note line, exit 1."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from attnio.cli import main

pytest.importorskip("matplotlib")


def test_a_zero_limit_writes_an_incomplete_report(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rep"
    started = time.monotonic()
    assert main(["report", str(out), "--quick", "--time-limit", "0"]) == 1
    seconds = time.monotonic() - started
    err = capsys.readouterr().err.splitlines()
    total = int(err[-1].split(" of ")[1].split()[0])
    assert err[-1] == f"attnio report: time limit 0 s reached; 0 of {total} sections done"
    text = (out / "index.md").read_text()
    assert "INCOMPLETE" in text
    assert text.count("Not run: the time limit (--time-limit) was reached") == total
    assert seconds < 60  # nothing is computed; measured ~0.3 s


@pytest.mark.parametrize("value", ["nan", "-1"])
def test_bad_limits_are_exit_2_one_line(value: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "rep"), "--time-limit", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("attnio report: error: --time-limit=")
    assert not (tmp_path / "rep").exists()


def test_the_verify_table_is_cut_between_claims(tmp_path: Path, monkeypatch) -> None:
    import attnio.proofs.registry
    from attnio.proofs.registry import Claim
    from attnio.reporting.report import write_report
    from attnio.results import Proved

    def slow(ctx: object) -> Proved:
        time.sleep(0.4)
        return Proved("yes")

    planted = [Claim(f"planted.slow{i}", "true", "true", "test", "z3 NRA (planted)", "planted",
                     slow) for i in range(10)]
    monkeypatch.setattr(attnio.proofs.registry, "load_claims", lambda: planted)
    started = time.monotonic()
    result = write_report(tmp_path / "rep", n=256, d=16, quick=True,
                          deadline=time.monotonic() + 0.6)
    assert time.monotonic() - started < 30  # ten claims would take 4 s; measured ~1 s
    assert not result.ok and "Verify table" in result.timed_out
    assert len(set(result.timed_out)) == result.sections_total  # the rest were not run
    text = (tmp_path / "rep" / "index.md").read_text()
    assert "Cut short: the time limit (--time-limit) was reached during this section." in text
    assert "Traceback" not in text
