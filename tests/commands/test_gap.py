"""`attnio gap`: JSON shape, text table, exit 2 with one line on bad input, --plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnio.cli import main

ROW_KEYS = {"M", "lower_bound", "route", "algorithms", "best_algorithm", "best_io", "ratio"}


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gap", "--n", "4096", "--d", "64", "--M-geom", "64:262144:7", "--no-worst", "--pass",
                 "backward", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and len(payload["rows"]) == 7
    assert {"attnio_version", "versions"} <= set(payload)
    for row in payload["rows"]:
        assert ROW_KEYS <= set(row) and type(row["lower_bound"]) is int
        assert row["best_algorithm"] in row["algorithms"]


def test_text_and_tune(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gap", "--n", "256", "--d", "16", "--M", "16,300", "--pass", "forward",
                 "--tune"]) == 0
    out = capsys.readouterr().out
    assert "io/LB" in out and "n/a:" in out


@pytest.mark.parametrize("argv,fragment", [
    (["--n", "0", "--d", "4", "--M", "64"], "n=0 must be a positive integer"),
    (["--n", "8", "--d", "4", "--M", "x"], "M=x must be a positive integer"),
    (["--n", "8", "--d", "4", "--M-geom", "9:2:3"], "LO=9 exceeds HI=2"),
    (["--n", "8", "--d", "4", "--M", "1,2"], "fits any M"),
    (["--n", "8", "--d", "4", "--M", "64", "--pass", "up"], "invalid choice"),
])
def test_bad_input_exit_2_one_line(argv, fragment, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) if "--pass" in argv else _nullcontext() as exc:
        code = main(["gap", *argv])
    if "--pass" in argv:
        code = exc.value.code
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and err.count("\n") == 1 and "Traceback" not in err


class _nullcontext:
    value = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_plot_written_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "gap.png"
    argv = ["gap", "--n", "256", "--d", "16", "--M", "16,64,256", "--plot", str(target)]
    assert main(argv) == 0 and target.read_bytes()[:4] == b"\x89PNG"
    assert main(argv) == 2 and "refusing to overwrite" in capsys.readouterr().err
    assert main(argv + ["--force"]) == 0


def test_a_mask_that_keeps_nothing_has_no_ratio_and_says_so(tmp_path, capsys) -> None:
    """An all-false block mask: the certified bound is 0 at every M, so io/LB is "n/a: LB 0"
    in the table (it was a traceback), the exact worst is n/a with the reason (it was exit 2
    after the work), and --plot is refused before any work with one line. The twin: a causal
    mask has a ratio in every row and a worst."""
    pattern = tmp_path / "nothing.json"
    pattern.write_text("[[false, false], [false, false]]")
    base = ["gap", "--n", "64", "--d", "8", "--mask", f"block:32:{pattern}"]
    assert main([*base, "--M", "256"]) == 0
    assert "n/a: LB 0" in capsys.readouterr().out
    assert main(base) == 0
    assert ("worst io/LB over every M: n/a: the mask keeps no entry, so the certified bound "
            "is 0 (no ratio)") in capsys.readouterr().out
    assert main([*base, "--plot", str(tmp_path / "g.svg")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no ratio to draw" in err[0] and not (tmp_path / "g.svg").exists()
    assert main(["gap", "--n", "64", "--d", "8", "--mask", "causal", "--M", "256", "--json"]) == 0
    assert all(r["ratio"] is not None for r in json.loads(capsys.readouterr().out)["rows"])
