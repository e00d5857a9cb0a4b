"""``attnio lower-bound``: output, JSON shape, exit codes (attnio/commands/lower_bound.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from attnio.cli import main


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lower-bound", "--builtin", "matmul:2x2x2", "--cache", "3", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["M"] == 3 and "attnio_version" in obj and "versions" in obj
    assert {tuple(sorted(b)) for b in obj["bounds"]} == {
        ("applies", "certificate", "checker", "counted", "route", "value", "why_not")}
    assert obj["best"] == {"route": "spill-windows", "value": 22}
    assert obj["complete"] is True and obj["verdict"] == "proved"
    assert obj["command"] == "lower-bound" and obj["detail"] is None
    assert all(isinstance(b["value"], int) for b in obj["bounds"])


def test_text_lists_every_route(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]}))
    assert main(["lower-bound", "--dag", str(path), "--cache", "3"]) == 0
    out = capsys.readouterr().out
    for route in ("compulsory", "hong-kung", "per-part", "spill-windows", "saturation-windows",
                  "sub-dag-exact",
                  "best: "):
        assert route in out
    assert "does not apply" in out   # per-part needs a built-in DAG


@pytest.mark.parametrize("argv", [
    ["--builtin", "matmul:2x2", "--cache", "3"],
    ["--builtin", "matmul:2x2x2", "--cache", "0"],
    ["--builtin", "matmul:2x2x2", "--cache", "x"],
    ["--dag", "missing-file.json", "--cache", "3"],
])
def test_bad_input_exit_2_one_line(argv: list[str]) -> None:
    r = subprocess.run([sys.executable, "-m", "attnio", "lower-bound", *argv],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_pebble_json_has_certified_lower_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--cache", "3", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)["instances"][0]
    assert obj["certified_lower_bound"] == {"route": "spill-windows", "value": 7,
                                            "routes_run": "all"}
    assert obj["certified_lower_bound"]["value"] <= obj["io"]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_pebble_json_certified_bound_on_a_large_dag_runs_bounded_routes_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    """On matmul 4x4x4 every route would take tens of seconds, past --time-limit 1."""
    assert main(["pebble", "--builtin", "matmul:4x4x4", "--cache", "8", "--time-limit", "1",
                 "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)["instances"][0]
    bound = obj["certified_lower_bound"]
    assert bound["routes_run"].startswith("bounded-cost") and bound["value"] == 48
    assert bound["value"] <= obj["upper"]
