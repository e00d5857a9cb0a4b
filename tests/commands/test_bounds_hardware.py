"""``attnio bounds``, command lines of issue 16: batch/heads/kv-heads, the per-level table,
hierarchy files (simulate's and gap's heads: tests/commands/test_simulate.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnio.algorithms.heads import count_heads
from attnio.cli import main


def _bounds_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(["bounds", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bounds_device_levels(capsys: pytest.CaptureFixture[str]) -> None:
    report = _bounds_json(capsys, ["--device", "H100", "--dtype", "bf16", "--seq", "8192",
                                   "--head-dim", "128", "--heads", "32", "--kv-heads", "8",
                                   "--batch", "4"])
    assert (report["batch"], report["heads"], report["kv_heads"]) == (4, 32, 8)
    levels = report["levels"]
    assert [lvl["above"] for lvl in levels] == ["registers + shared memory", "L2"]
    for lvl in levels:
        assert lvl["best_words"] >= lvl["lower_bound_words"] > 0
        assert lvl["best_words"] == min(lvl["algorithms"].values())
        assert lvl["best_words"] == count_heads(lvl["best_algorithm"], "backward", 8192, 128,
                                                lvl["capacity_words"], batch=4, heads=32,
                                                kv_heads=8).io
        assert lvl["regime"] in ("small-cache", "large-cache", "crossover")
    assert levels[1]["bandwidth_bytes_per_s"] == 3_350_000_000_000
    assert levels[1]["best_seconds"] == levels[1]["best_words"] * 2 / 3.35e12
    assert report["bottleneck_boundary"] == 1 and "attnio_version" in report


def test_bounds_table_prints_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bounds", "--device", "mi300x", "--dtype", "fp32", "--n", "4096", "--d",
                 "128", "--heads", "8", "--kv-heads", "1"]) == 0
    out = capsys.readouterr().out
    assert "memory hierarchy: mi300x fp32" in out and "Infinity Cache | HBM" in out
    assert "bottleneck: boundary" in out


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


GOOD = {"dtype": "fp32", "levels": [
    {"name": "smem", "capacity_bytes": 65536, "bandwidth_bytes_per_s": None},
    {"name": "l2", "capacity_bytes": 4194304, "bandwidth_bytes_per_s": 10**13},
    {"name": "hbm", "capacity_bytes": None, "bandwidth_bytes_per_s": 2 * 10**12}]}


def test_bounds_hierarchy_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _bounds_json(capsys, ["--n", "1024", "--d", "64", "--hierarchy",
                                   _write(tmp_path, "h.json", GOOD)])
    assert [lvl["capacity_words"] for lvl in report["levels"]] == [16384, 16384 + 1048576]
    assert report["instance"]["M"] == 16384


def _bad(kind: str) -> dict:
    data = json.loads(json.dumps(GOOD))
    if kind == "not increasing":
        data["levels"][1]["capacity_bytes"] = 65536
    elif kind == "zero bandwidth":
        data["levels"][2]["bandwidth_bytes_per_s"] = 0
    return data


@pytest.mark.parametrize("extra, message", [
    (["--hierarchy", "not increasing"], "hierarchy capacities not increasing"),
    (["--hierarchy", "zero bandwidth"], "zero bandwidth"),
    (["--device", "h100", "--heads", "32", "--kv-heads", "5"],
     "heads=32 is not a multiple of kv_heads=5"),
    (["--device", "tpu9"], "device='tpu9' is unknown"),
])
def test_bad_hierarchies_exit_2_one_line(tmp_path: Path, extra: list[str], message: str) -> None:
    if extra[0] == "--hierarchy":
        extra = ["--hierarchy", _write(tmp_path, "bad.json", _bad(extra[1]))]
    proc = subprocess.run([sys.executable, "-m", "attnio", "bounds", "--n", "64", "--d", "8",
                           *extra], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and len(lines[0]) <= 300


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe not utf-8", "is not UTF-8 text"),
    (b'{"levels": [{"name": "a", "capacity_words": 4}, {"name": "b", "capacity_words": 8}]}',
     "must be unbounded"),
    (b'{"levels": [{"name": "a", "capacity_words": 4}]}', "2 to MAX_LEVELS"),
    (b'{"levels": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested"),
    (None, "is a folder"),
])
def test_hostile_hierarchy_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 content: bytes | None, message: str) -> None:
    path = tmp_path / "h.json"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["bounds", "--n", "64", "--d", "8", "--hierarchy", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_bounds_heads_prints_all_heads_bound(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 21: next to heads: 32 the lower bound is all 32 heads' (stacked), not one head's."""
    from attnio.bounds.heads import multihead_lower_bound

    report = _bounds_json(capsys, ["--n", "4096", "--d", "64", "--M", "2097152", "--heads",
                                   "32", "--kv-heads", "8"])
    assert (report["heads"], report["kv_heads"]) == (32, 8)
    assert report["bounds_scope"].startswith("one head")
    assert {b["scope"] for b in report["bounds"]} == {"one head"}
    hb = report["heads_lower_bound"]
    assert hb["backward"]["compulsory"] == 41943040 == (4 * 32 + 4 * 8) * 4096 * 64
    assert hb["forward"]["compulsory"] == (2 * 32 + 2 * 8) * 4096 * 64
    for pass_ in ("forward", "backward"):
        assert (hb[pass_]["value"], hb[pass_]["route"]) == multihead_lower_bound(
            pass_, 4096, 64, 2097152, heads=32, kv_heads=8)
    assert hb["backward"]["value"] == 41943040
    assert main(["bounds", "--n", "4096", "--d", "64", "--M", "16384", "--heads", "32",
                 "--kv-heads", "8"]) == 0
    out = capsys.readouterr().out
    assert "ONE head's catalogue" in out and "468,910,080" in out  # the joint route (issue 35)
    assert main(["bounds", "--n", "64", "--d", "8", "--M", "512", "--json"]) == 0
    assert "heads_lower_bound" not in json.loads(capsys.readouterr().out)
