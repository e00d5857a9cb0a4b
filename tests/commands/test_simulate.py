"""`attnio simulate`: JSON / CSV output, exit codes, one-line errors, the plot."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from attnio.algorithms.heads import count_heads
from attnio.algorithms.simulation import ALGORITHMS, BOUND_IDS
from attnio.cli import main
from attnio.commands.simulate import parse_cache_sizes

RUN_KEYS = {"algorithm", "pass", "n", "d", "M", "reads", "writes", "io", "flops",
            "peak_fast_words", "formula", "ratio"}


def test_json_sweep_has_runs_and_crossover(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "4096", "--d", "64", "--M-geom", "1024:65536:13",
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
    # 'all' is every registered algorithm with a forward pass, small-cache-fused included
    forward = [name for name in ALGORITHMS if (name, "forward") in BOUND_IDS]
    assert code == 0 and [r["algorithm"] for r in runs[::2]] == forward
    assert "small-cache-fused" in forward and len(runs) == 2 * len(forward)
    executed = [r for r in runs if r.get("overflow") is None]
    assert {r["algorithm"] for r in runs} - {r["algorithm"] for r in executed} == {
        "flash1-published"}  # its published blocks overflow M: a row that says so
    assert all(r["closed_form_match"] and r["max_relative_error"] <= 1e-10 for r in executed)


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
    (["--n", "8", "--d", "4", "--M", "6x"], "M=6x must be a positive integer"),
    (["--n", "8", "--d", "4", "--M", "6,x"], "must be an integer, a list V1,V2,... or a range"),
    (["--n", "8", "--d", "4", "--M-geom", "64:8:3"], "LO=64 exceeds HI=8"),
])
def test_bad_input_exits_2_with_one_line(argv: list[str], fragment: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err


def test_geometric_range() -> None:
    assert parse_cache_sizes("64:4096:4", geometric=True) == [64, 256, 1024, 4096]


@pytest.mark.extra("plots")
def test_plot_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "io.png"
    assert main(["simulate", "--n", "1024", "--d", "32", "--M-geom", "300:32768:8",
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


# ---- issue 13 -------------------------------------------------------------------------------

def _simulate_json(capsys, M_geom: str, algorithms: str, *extra: str) -> dict:
    """``attnio simulate --n 4096 --d 64 --M-geom M_geom --algorithm algorithms … --json``
    (exit 0), its JSON."""
    assert main(["simulate", "--n", "4096", "--d", "64", "--M-geom", M_geom,
                 "--algorithm", algorithms, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _backward_io(name: str, M: int) -> int:
    """The exact backward I/O of ``name`` at n = 4096, d = 64 (checked independently)."""
    from attnio.algorithms.simulation import count

    return count(name, "backward", 4096, 64, M).io


def test_crossover_of_the_selected_pair_is_bisected_exactly(capsys) -> None:
    payload = _simulate_json(capsys, "256:262144:13", "flash1,small-cache")
    assert payload["crossover_pair"] == ["flash1", "small-cache"]
    (c,) = payload["crossovers"]
    lo, hi = c["bracket"]
    grid = sorted({r["M"] for r in payload["runs"]})
    assert lo in grid and hi in grid and grid.index(hi) == grid.index(lo) + 1
    M = c["M"]
    assert lo < M <= hi and payload["crossover_M"] == M
    # checked independently on exact counts: small-cache cheaper at M - 1, not at M
    io = _backward_io
    assert io("small-cache", M - 1) < io("flash1", M - 1)
    assert io("flash1", M) <= io("small-cache", M)
    assert c["io_at_M"] == {"flash1": io("flash1", M), "small-cache": io("small-cache", M)}
    assert "attnio_version" in payload and "numpy" in payload["versions"]


def test_crossover_follows_the_algorithms_selected(capsys) -> None:
    # flash1 vs standard: their own swap, not flash1 vs small-cache's
    payload = _simulate_json(capsys, "1024:65536:7", "flash1,standard")
    assert payload["crossover_pair"] == ["flash1", "standard"]
    (c,) = payload["crossovers"]
    M, below = c["M"], c["cheaper_below"]
    other = "flash1" if below == "standard" else "standard"
    assert c["algorithms"] == ["flash1", "standard"] and M != 4903
    io = _backward_io
    assert io(below, M - 1) < io(other, M - 1) and not io(below, M) < io(other, M)
    # three algorithms: no pair unless named
    three = "flash1,standard,small-cache"
    assert _simulate_json(capsys, "1024:65536:7", three)["crossover_M"] is None
    payload = _simulate_json(capsys, "1024:65536:7", three, "--crossover", "small-cache,flash1")
    assert payload["crossover_M"] == 4903 and payload["crossovers"][0]["cheaper_below"] == \
        "small-cache"


def test_readme_crossover_is_what_its_command_prints(capsys) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert main(["simulate", "--n", "4096", "--d", "64", "--M-geom", "256:262144:13",
                 "--algorithm", "flash1,small-cache", "--pass", "backward"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("crossover_M"))
    M = int(line.split(":")[1].split()[0])
    assert f"M = {M:,}" in readme


@pytest.mark.extra("plots")
def test_plot_safety(tmp_path: Path, capsys) -> None:
    base = ["simulate", "--n", "64", "--d", "8", "--M", "256", "--algorithm", "flash1"]
    existing = tmp_path / "mine.png"
    existing.write_bytes(b"mine")
    assert main([*base, "--plot", str(existing)]) == 2
    assert existing.read_bytes() == b"mine"
    link = tmp_path / "link.png"
    link.symlink_to(existing)
    assert main([*base, "--plot", str(link), "--force"]) == 2
    assert existing.read_bytes() == b"mine"
    assert main([*base, "--plot", str(tmp_path)]) == 2           # a folder is an error
    assert main([*base, "--plot", str(tmp_path / "x.jpeg")]) == 2  # unknown extension
    assert main([*base, "--plot", str(tmp_path / "no" / "x.png")]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 5 and "symlink" in errors[1] and "is a folder" in errors[2]
    assert main([*base, "--plot", str(tmp_path / "io.svg")]) == 0
    assert (tmp_path / "io.svg").read_text().lstrip().startswith("<?xml")
    assert main([*base, "--plot", str(existing), "--force"]) == 0
    assert existing.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("argv,fragment", [
    (["--n", "100000", "--d", "64", "--M", "65536", "--algorithm", "flash1", "--pass",
      "forward", "--execute"], "MAX_EXECUTE_BYTES"),
    (["--n", "64", "--d", "8", "--M-geom", "64:1024:1000000000"], "MAX_STEPS"),
    (["--n", "64", "--d", "8", "--M", "256", "--execute", "--seed=-1"], "--seed=-1"),
    (["--n", "9" * 5001, "--d", "8", "--M", "256"], "MAX_INT_DIGITS"),
])
def test_issue_13_bad_inputs(argv: list[str], fragment: str, capsys) -> None:
    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and len(err) <= 301


# ---- --mask (issue 15) ----------------------------------------------------------------------
def test_masked_json_runs_carry_mask_sizes_and_sparse_bound(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--n", "37", "--d", "5", "--M", "200", "--algorithm", "all",
                 "--mask", "window:5", "--execute", "--json"])
    text = capsys.readouterr().out
    assert code == 0 and "NaN" not in text and "Infinity" not in text
    runs = json.loads(text)["runs"]
    # 'all' with a mask: every registered algorithm of the pass (issue 34); those with no
    # masked schedule are rows n/a with the reason; the published FA-1 blocks overflow M here
    # (a row that says so)
    from attnio.algorithms.registry import algorithm_names
    from attnio.algorithms.simulation import MASKED_ALGORITHMS

    assert [r["algorithm"] for r in runs] == list(algorithm_names("backward"))
    assert [r["algorithm"] for r in runs if r.get("overflow")] == ["flash1-published"]
    assert {r["algorithm"] for r in runs if r.get("not_applicable")} == \
        set(algorithm_names("backward")) - MASKED_ALGORITHMS
    for run in runs:
        if run.get("overflow") or run.get("not_applicable"):
            assert run["io"] is None
            continue
        assert run["mask"] == "window:5" and run["closed_form_match"] is True
        assert (run["Z_in"], run["Z_QK"]) == (185, 5 * 6 // 2 + 32 * 5)
        # issue 21: the class formula is labelled as such and never divides a run's I/O
        assert {k: run["sparse_class_bound"][k] for k in ("value", "value_float")} == \
            {"value": "1369/8", "value_float": 171.125}
        assert "sparse_lower_bound" not in run and "sparse_ratio" not in run
        bound = run["mask_lower_bound"]
        assert isinstance(bound["value"], int) and 0 < bound["value"] <= run["io"]
        assert run["mask_ratio"] == run["io"] / bound["value"]


def test_causal_mask_lowers_the_counted_io(capsys: pytest.CaptureFixture[str]) -> None:
    def io(extra: list[str]) -> int:
        assert main(["simulate", "--n", "4096", "--d", "64", "--M", "65536", "--algorithm",
                     "flash2", "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)["runs"][0]["io"]

    assert io(["--mask", "causal"]) < io([]) == io(["--mask", "full"])


@pytest.mark.parametrize("mask, fragment", [
    ("window:0", "window W=0"), ("window:-2", "window W=-2"), ("block:0:x.json", "B=0"),
    ("block:3:{bad}", "true/false"), ("block:3:{missing}", "unreadable"),
    ("block:3:{binary}", "UTF-8"), ("block:2:{good}", "needs ceil(n/b)"), ("diagonal", "unknown"),
])
def test_bad_masks_exit_2_with_one_line(mask: str, fragment: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text("[[1, 0], [0, 1]]")
    (tmp_path / "good.json").write_text("[[true, false], [false, true]]")
    (tmp_path / "binary.json").write_bytes(b"\x80\x81[[true]]")
    mask = mask.format(bad=tmp_path / "bad.json", missing=tmp_path / "missing.json",
                       binary=tmp_path / "binary.json", good=tmp_path / "good.json")
    for command in (["simulate", "--M", "64"], ["bounds", "--M", "64"]):
        assert main([command[0], "--n", "6", "--d", "2", *command[1:], "--mask", mask]) == 2
        err = capsys.readouterr().err.strip()
        assert fragment in err and "\n" not in err and "Traceback" not in err


# Issue 16: batch / heads / kv-heads through simulate (and gap's multi-head row)

def test_simulate_and_gap_heads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--n", "64", "--d", "8", "--M", "512", "--algorithm",
                 "flash2,flash2-gqa", "--heads", "4", "--kv-heads", "2", "--batch", "3",
                 "--execute", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["batch"], payload["heads"], payload["kv_heads"]) == (3, 4, 2)
    for run in payload["runs"]:
        assert run["closed_form_match"] and (run["batch"], run["heads"]) == (3, 4)
        assert run["io"] == count_heads(run["algorithm"], "backward", 64, 8, 512, batch=3,
                                        heads=4, kv_heads=2).io
    assert main(["gap", "--n", "256", "--d", "16", "--M", "1024", "--heads", "4",
                 "--kv-heads", "1", "--json"]) == 0
    gap = json.loads(capsys.readouterr().out)
    row = gap["rows"][0]
    assert gap["kv_heads"] == 1 and row["best_io"] >= row["lower_bound"]
    assert row["claim_id"] in ("heads.stacked_segment", "heads.stacked_compulsory",
                               "gap.joint_route")
    assert row["lower_bound"] >= (4 * 4 + 4 * 1) * 256 * 16  # 4Hnd + 4Gnd
    assert main(["simulate", "--n", "64", "--d", "8", "--M", "512", "--heads", "4",
                 "--json"]) == 0
    independent = json.loads(capsys.readouterr().out)
    assert independent["kv_heads"] == 4


def test_simulate_heads_runs_carry_the_stacked_bound(capsys: pytest.CaptureFixture[str]) -> None:
    from attnio.bounds.heads import multihead_lower_bound

    assert main(["simulate", "--n", "256", "--d", "16", "--M", "1024", "--heads", "8",
                 "--kv-heads", "2", "--batch", "2", "--algorithm", "flash2,flash2-gqa",
                 "--pass", "backward", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    lb = multihead_lower_bound("backward", 256, 16, 1024, batch=2, heads=8, kv_heads=2)
    for run in runs:
        assert (run["lower_bound"], run["lower_bound_route"]) == lb
        assert (4 * 8 + 4 * 2) * 2 * 256 * 16 <= run["lower_bound"] <= run["io"]
