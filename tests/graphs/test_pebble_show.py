"""attnio pebble --show / --plot / --certify (issue 34 item 5, issue 37 item 1)."""

from __future__ import annotations

import json
import re

import pytest

from attnio.check import main as check_main
from attnio.cli import main


def test_show_prints_the_optimum_as_a_timeline(capsys) -> None:
    """Issue 34 acceptance (c): matmul 2x2x2 at M = 4, the optimum and its timeline."""
    assert main(["pebble", "--builtin", "matmul:2x2x2", "--M", "4", "--show"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("M=4: optimal I/O = 17")
    assert out[1].startswith("matmul:2x2x2: optimal schedule at M = 4 (")
    assert out[2].split() == ["step", "move", "vertex", "red", "I/O", "so", "far"]
    rows = [line.split() for line in out[4:]]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    assert all(int(r[3].split("/")[0]) <= 4 and r[3].endswith("/4") for r in rows)
    assert int(rows[-1][4]) == 17 and {r[1] for r in rows} <= {"read", "write", "compute",
                                                                 "delete"}


def test_replay_takes_show_and_plot(tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps({"moves": [["read", "A[0,0]"], ["read", "B[0,0]"],
                                              ["compute", "C[0,0]"], ["write", "C[0,0]"]]}))
    plot = tmp_path / "s.png"
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--M", "3", "--replay", str(schedule),
                 "--show", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "legal: io = 3" in out and f"wrote {plot}" in out
    assert re.search(r"4\s+write\s+C\[0,0\]\s+3/3\s+3", out)
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_plot_draws_the_users_dag_and_says_wrote(tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "o.svg"
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--plot", str(plot)]) == 0
    assert f"wrote {plot}" in capsys.readouterr().out
    assert "optimal schedule at M = 3" in plot.read_text()


@pytest.mark.parametrize("argv, why", [
    (["--M", "3:4", "--plot", "x.png"], "one DAG and one cache size"),
    (["--M", "3", "--plot", "x.bmp"], "must end in"),
])
def test_plot_refuses_what_it_cannot_draw(tmp_path, argv, why, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["pebble", "--builtin", "matmul:1x2x1", *argv]) == 2
    assert why in capsys.readouterr().err


@pytest.mark.extra("sat")
def test_certify_writes_files_the_standalone_checker_accepts(tmp_path, capsys) -> None:
    out_dir = tmp_path / "out"
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--certify",
                 str(out_dir), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    proof = doc["instances"][0]["proof"]
    assert proof["lower_proof"] == "sat-refutation" and len(proof["files"]) == 3
    assert check_main([proof["files"][0]]) == 0
    # a second run refuses to replace the files (exit 2), --force replaces them
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--certify",
                 str(out_dir)]) == 2
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--certify",
                 str(out_dir), "--force"]) == 0
    assert "lower end proved by a SAT refutation" in capsys.readouterr().out


def test_certify_of_a_compulsory_optimum_and_a_bad_folder(tmp_path, capsys) -> None:
    assert main(["pebble", "--builtin", "matmul:2x2x2", "--M", "12", "--certify",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "lower end proved by counting" in out
    assert check_main([str(tmp_path / "matmul_2x2x2_M12.json")]) == 0
    (tmp_path / "file").write_text("x")
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--certify",
                 str(tmp_path / "file")]) == 2
    assert "is not a folder" in capsys.readouterr().err
