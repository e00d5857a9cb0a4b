"""Every command's ``--json`` is one strict JSON object with the keys notes/json.md documents.

The schema is read from notes/json.md (its ``<!-- schema: NAME -->`` tables), so the
documentation and the code cannot drift apart: a key the code adds without documenting it,
or a documented key the code stops writing, fails here. Each command runs in-process on a
cheap input (``attnio.cli.main``), and the exit code must mirror the top-level verdict.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from attnio.cli import main
from attnio.results import Status

NOTES = Path(__file__).resolve().parents[1] / "notes" / "json.md"
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|[^|]*\|\s*([^|]+?)\s*\|")


def _schemas() -> dict[str, tuple[set[str], set[str]]]:
    """``{name: (keys always present, keys present under a condition)}`` from notes/json.md."""
    schemas: dict[str, tuple[set[str], set[str]]] = {}
    current: str | None = None
    for line in NOTES.read_text(encoding="utf-8").splitlines():
        marker = re.fullmatch(r"<!-- schema: (\S+) -->", line.strip())
        if marker:
            current = marker.group(1)
            schemas[current] = (set(), set())
            continue
        row = ROW.match(line)
        if current is not None and row:
            key, when = row.groups()
            schemas[current][0 if when == "always" else 1].add(key)
        elif current is not None and line.strip() and not line.startswith("|"):
            current = None  # the table ended
    return schemas


SCHEMAS = _schemas()


def _strict(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def assert_keys(obj: dict, name: str, *, common: bool = False) -> None:
    required, optional = SCHEMAS[name]
    if common:
        required = required | SCHEMAS["common"][0]
    keys = set(obj)
    assert required <= keys, f"{name}: documented keys missing: {sorted(required - keys)}"
    assert keys <= required | optional, \
        f"{name}: undocumented keys: {sorted(keys - required - optional)}"


def assert_document(code: int, out: str, command: str, schema: str) -> dict:
    """One strict JSON object with ``command`` and a ``verdict`` of the vocabulary, the
    documented keys, and an exit code that mirrors the verdict."""
    doc = _strict(out)
    assert isinstance(doc, dict), type(doc)
    assert doc["command"] == command
    verdict = Status(doc["verdict"])
    assert (code == 0) == (verdict not in (Status.REFUTED, Status.UNDECIDED,
                                           Status.INFEASIBLE)), (code, verdict)
    assert list(doc)[:2] == ["command", "verdict"]
    assert_keys(doc, schema, common=True)
    return doc


def test_the_notes_document_every_command() -> None:
    assert {"common", "verify", "verify/claims", "prove", "bounds", "simulate", "gap", "pebble",
            "pebble/instances", "pebble-replay", "lower-bound", "lower-bound/bounds",
            "report"} <= set(SCHEMAS)
    assert all(required for required, _ in SCHEMAS.values())
    assert SCHEMAS["common"][0] == {"command", "verdict", "attnio_version", "versions"}
    # every command that takes --json has a schema of its own
    from attnio.cli import SUBCOMMANDS, build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.choices and "verify" in a.choices).choices
    with_json = {name for name in SUBCOMMANDS
                 if any("--json" in a.option_strings for a in commands[name]._actions)}
    assert with_json == set(SUBCOMMANDS)
    assert with_json <= set(SCHEMAS)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_verify(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["verify", "--only", "cmp.*", "--json"], capsys),
                          "verify", "verify")
    assert doc["verdict"] == "proved" and doc["claims"]
    for row in doc["claims"]:
        assert_keys(row, "verify/claims")
        assert row["verdict"] in ("proved", "refuted", "undecided")
    twins = assert_document(*_run(["verify", "--self-test", "--only", "cmp.*", "--json"],
                                  capsys), "verify", "verify")
    assert twins["verdict"] == "proved" and "self_test" in twins
    for row in twins["claims"]:
        assert_keys(row, "verify/claims")


def test_prove(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["prove", "n >= 1", "--var", "n:positive-integer", "--json"],
                                capsys), "prove", "prove")
    assert doc["verdict"] == "proved" and doc["counterexample"] is None
    doc = assert_document(*_run(["prove", "n >= 2", "--var", "n:positive-integer", "--json"],
                                capsys), "prove", "prove")
    assert doc["verdict"] == "refuted" and doc["counterexample"] == {"n": "1"}


@pytest.mark.parametrize("extra", [[], ["--mask", "causal", "--heads", "2"],
                                   ["--device", "h100"]], ids=["plain", "mask-heads", "device"])
def test_bounds(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    M = [] if "--device" in extra else ["--M", "128"]
    doc = assert_document(*_run(["bounds", "--n", "64", "--d", "8", *M, *extra, "--json"],
                                capsys), "bounds", "bounds")
    assert doc["verdict"] == "computed"


@pytest.mark.parametrize("extra,verdict", [([], "computed"), (["--execute"], "proved")])
def test_simulate(extra: list[str], verdict: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["simulate", "--n", "16", "--d", "4", "--M", "64,128",
                                 "--algorithm", "flash1,small-cache", *extra, "--json"], capsys),
                          "simulate", "simulate")
    assert doc["verdict"] == verdict and doc["runs"]


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["explain", "io/LB", "--json"], capsys), "explain", "explain")
    assert list(doc["terms"]) == ["io/LB"]


def test_advise(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["advise", "--n", "64", "--d", "8", "--M", "64,256", "--mask",
                                 "causal", "--heads", "2", "--dtype", "fp16", "--json"], capsys),
                          "advise", "advise")
    assert doc["verdict"] == "computed" and len(doc["levels"]) == 2


def test_gap(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["gap", "--n", "64", "--d", "8", "--M", "256", "--json"],
                                capsys), "gap", "gap")
    assert doc["verdict"] == "computed" and doc["time_limit"] is None
    cut = assert_document(*_run(["gap", "--n", "64", "--d", "8", "--M", "256",
                                 "--time-limit", "0", "--json"], capsys), "gap", "gap")
    assert cut["verdict"] == "undecided" and cut["time_limit"]["reached"] is True


def test_pebble_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(["pebble", "--builtin", "matmul:1x2x1", "--M", "2:3", "--json"], capsys)
    doc = assert_document(code, out, "pebble", "pebble")
    assert [i["verdict"] for i in doc["instances"]] == ["infeasible", "optimal"]
    assert doc["verdict"] == "proved"  # decided everywhere, with different answers
    for instance in doc["instances"]:
        assert_keys(instance, "pebble/instances")
    saved = tmp_path / "pebble.json"
    saved.write_text(out)
    legal = assert_document(*_run(["pebble", "--builtin", "matmul:1x2x1", "--M", "3",
                                   "--replay", str(saved), "--json"], capsys),
                            "pebble", "pebble-replay")
    assert legal["verdict"] == "proved" and legal["io"] == doc["instances"][1]["io"]
    illegal = assert_document(*_run(["pebble", "--builtin", "matmul:1x2x1", "--M", "2",
                                     "--replay", str(saved), "--json"], capsys),
                              "pebble", "pebble-replay")
    assert illegal["verdict"] == "refuted" and illegal["counterexample"]["rule"]


def test_pebble_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["pebble", "--builtin", "attention-forward:n=2,d=1", "--M", "3",
                                 "--time-limit", "0.01", "--json"], capsys), "pebble", "pebble")
    [instance] = doc["instances"]
    assert doc["verdict"] == instance["verdict"] == "undecided"
    # on a busy machine the 0.01 s may pass before any schedule is found: no upper end yet
    assert instance["upper"] is None or instance["lower"] <= instance["upper"]
    assert_keys(instance, "pebble/instances")


@pytest.mark.parametrize("M,verdict", [("3", "proved"), ("2", "infeasible")])
def test_lower_bound(M: str, verdict: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = assert_document(*_run(["lower-bound", "--builtin", "matmul:1x2x1", "--M", M,
                                 "--json"], capsys), "lower-bound", "lower-bound")
    assert doc["verdict"] == verdict
    for bound in doc["bounds"]:
        assert_keys(bound, "lower-bound/bounds")


def test_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    doc = assert_document(*_run(["report", str(tmp_path / "out"), "--quick", "--time-limit",
                                 "0", "--json"], capsys), "report", "report")
    assert doc["verdict"] == "undecided" and doc["sections"]["done"] == 0
    assert Path(doc["index"]).is_file()
    # the manifest: every file it names exists in the folder, the index and the marker among them
    assert doc["format"] == "markdown" and Path(doc["index"]).name == "index.md"
    files = [Path(f) for f in doc["files"]]
    assert all(f.is_file() and f.parent == Path(doc["outdir"]) for f in files)
    assert Path(doc["index"]) in files and files[-1].name == ".attnio-report.json"
    assert set(doc["figure_files"]) <= set(doc["files"])
    html = assert_document(*_run(["report", str(tmp_path / "html"), "--quick", "--html",
                                  "--time-limit", "0", "--json"], capsys), "report", "report")
    assert html["format"] == "html" and html["figure_files"] == []
    assert [Path(f).name for f in html["files"]] == ["index.html", ".attnio-report.json"]
