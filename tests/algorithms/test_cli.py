"""`attnio simulate`: JSON / CSV output, exit codes, one-line errors, the plot."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from attnio.algorithms.cli import parse_cache_sizes
from attnio.cli import main

RUN_KEYS = {"algorithm", "pass", "n", "d", "M", "reads", "writes", "io", "flops",
            "peak_fast_words", "formula", "ratio"}


def test_json_sweep_has_runs_and_crossover(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "4096", "--d", "64", "--M-range", "1024:65536:13",
                 "--algorithm", "flash1,small-cache", "--pass", "backward", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and len(payload["runs"]) == 26
    assert all(RUN_KEYS <= set(run) for run in payload["runs"])
    assert 64 * 64 // 4 <= payload["crossover_M"] <= 4 * 64 * 64
    run = payload["runs"][0]
    assert run["io"] == run["reads"] + run["writes"]
    assert run["ratio"] == pytest.approx(run["io"] / run["formula"])


def test_execute_reports_error_and_closed_form_match(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "20", "--d", "4", "--M", "64,100", "--algorithm", "all",
                 "--pass", "forward", "--execute", "--json"])
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert code == 0 and len(runs) == 8
    assert all(r["closed_form_match"] and r["max_relative_error"] <= 1e-10 for r in runs)


def test_csv_and_overflow_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "64", "--d", "8", "--M", "256", "--algorithm",
                 "flash1,flash1-published", "--csv"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert code == 0 and [r["algorithm"] for r in rows] == ["flash1", "flash1-published"]
    assert rows[0]["io"].isdigit() and "'Q_i'" in rows[1]["overflow"]


@pytest.mark.parametrize("argv,fragment", [
    (["--n", "0", "--d", "4", "--M", "64"], "n=0 must be a positive integer"),
    (["--n", "8", "--d", "-1", "--M", "64"], "d=-1 must be a positive integer"),
    (["--n", "8", "--d", "4", "--M", "3"], "M=3 is too small"),
    (["--n", "8", "--d", "4", "--M", "64", "--algorithm", "fast"], "algorithm='fast'"),
    (["--n", "8", "--d", "4", "--M", "6x"], "comma-separated integers"),
    (["--n", "8", "--d", "4", "--M-range", "64:8:3"], "HI=8 must be >= LO=64"),
])
def test_bad_input_exits_2_with_one_line(argv: list[str], fragment: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err


def test_geometric_range() -> None:
    assert parse_cache_sizes("64:4096:4", geometric=True) == [64, 256, 1024, 4096]


def test_plot_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "io.png"
    assert main(["simulate", "--n", "1024", "--d", "32", "--M-range", "300:32768:8",
                 "--algorithm", "flash1,small-cache", "--plot", str(target)]) == 0
    assert target.stat().st_size > 10_000
    assert "crossover_M" in capsys.readouterr().out


def test_sweep_marks_pairs_without_a_fitting_tile(capsys: pytest.CaptureFixture[str]) -> None:
    # flash1 backward needs 517 words at d = 64 (1-row blocks); small-cache runs from M = 4.
    code = main(["simulate", "--n", "4096", "--d", "64", "--M", "256,1024", "--algorithm",
                 "flash1,small-cache", "--json"])
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert code == 0
    flash_256 = next(r for r in runs if r["algorithm"] == "flash1" and r["M"] == 256)
    assert flash_256["io"] is None and "too small" in flash_256["infeasible"]
    assert all(r["io"] is not None for r in runs if r["algorithm"] == "small-cache")


def test_sweep_where_nothing_fits_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "4096", "--d", "64", "--M", "3,256", "--algorithm", "flash1"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "M=3" in err
