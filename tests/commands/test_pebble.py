"""Tests of `attnio pebble` (attnio.commands.pebble) through the top-level dispatcher."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnio.cli import main

DAG = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]}


@pytest.fixture
def dag_file(tmp_path: Path) -> Path:
    path = tmp_path / "dag.json"
    path.write_text(json.dumps(DAG))
    return path


def test_solve_json(dag_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--dag", str(dag_file), "--cache", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["command"] == "pebble" and doc["verdict"] == "optimal"
    [out] = doc["instances"]
    assert out["verdict"] == "optimal" and out["io"] == 3
    assert out["lower"] == out["upper"] == 3
    assert out["moves"][:2] == [["read", "a"], ["read", "b"]]
    assert {"states_explored", "seconds"} <= set(out)


def test_infeasible_and_one_shot(dag_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--dag", str(dag_file), "--cache", "2", "--json"]) == 1  # no schedule
    assert json.loads(capsys.readouterr().out)["instances"][0]["verdict"] == "infeasible"
    assert main(["pebble", "--dag", str(dag_file), "--cache", "3", "--no-recompute"]) == 0
    assert "optimal I/O = 3" in capsys.readouterr().out


def test_undecided_exits_1(capsys: pytest.CaptureFixture) -> None:
    # the instance's own limit (the whole call's --time-limit 0.01 may pass before the
    # instance starts on a busy machine: then no bracket at all, a different test)
    code = main(["pebble", "--builtin", "attention-forward:n=2,d=1", "--cache", "3",
                 "--solver-time-limit", "0.01", "--json"])
    assert code == 1
    doc = json.loads(capsys.readouterr().out)
    out = doc["instances"]
    assert doc["verdict"] == "undecided"
    assert out[0]["verdict"] == "undecided" and out[0]["io"] is None
    assert out[0]["lower"] <= 24 <= out[0]["upper"]


def test_builtin_table(capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--builtin", "matmul:2x2x2", "--cache", "6:8", "--table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("20 vertices")
    assert lines[1].split()[:3] == ["M", "verdict", "Q(G,M)"] and set(lines[2]) <= {"-", " "}
    assert [line.split()[2] for line in lines[3:-1]] == ["13", "12", "12"]
    assert lines[-1] == "seconds per instance: --wide or --json"  # the column 100 columns drop


def test_replay(dag_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps({"moves": [["read", "a"], ["read", "b"], ["compute", "c"],
                                              ["write", "c"]]}))
    assert main(["pebble", "--replay", str(schedule), "--dag", str(dag_file),
                 "--cache", "3"]) == 0
    assert "io = 3" in capsys.readouterr().out
    assert main(["pebble", "--replay", str(schedule), "--dag", str(dag_file),
                 "--cache", "2", "--json"]) == 1
    refuted = json.loads(capsys.readouterr().out)
    assert refuted["verdict"] == "refuted" and refuted["counterexample"]["rule"] == "red-limit"


@pytest.mark.parametrize("content,args,match", [
    ('{"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}', ["--cache", "3"], "cycle"),
    ('{"nodes": ["a"], "edges": [["a", "q"]]}', ["--cache", "3"], "unknown vertex"),
    ("{nodes", ["--cache", "3"], "not valid JSON"),
    (json.dumps(DAG), ["--cache", "0"], "M=0"),
    (json.dumps(DAG), ["--cache", "x"], "M=x must be a positive integer"),
])
def test_bad_files_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                        content: str, args: list[str], match: str) -> None:
    path = tmp_path / "g.json"
    path.write_text(content)
    assert main(["pebble", "--dag", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1


@pytest.mark.parametrize("spec", ["matmul:2x2", "attention-forward:n=2", "fft:8",
                                  "attention-backward:n=2,d=1,gradient=dY",
                                  "attention-forward:n=x,d=1"])
def test_bad_builtin_exits_2(spec: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--builtin", spec, "--cache", "3"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_bad_cache_range(capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "5:3"]) == 2
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "0:3"]) == 2


# ---- issue 13 -------------------------------------------------------------------------------

@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_pebble_json_feeds_replay_and_carries_provenance(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--builtin", "matmul:2x2x2", "--cache", "6:7", "--json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)
    results = doc["instances"]
    assert doc["attnio_version"] and "z3" in doc["versions"]
    schedule = tmp_path / "result.json"
    schedule.write_text(out)
    assert main(["pebble", "--builtin", "matmul:2x2x2", "--replay", str(schedule),
                 "--cache", "7", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["verdict"] == "proved" and replayed["io"] == results[1]["io"]
    assert "attnio_version" in replayed


def test_replay_reads_the_list_printed_before_0_2(dag_file: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    """A `pebble --json` file saved by an older attnio (a bare list of results) still replays."""
    assert main(["pebble", "--dag", str(dag_file), "--cache", "2:3", "--json"]) == 0
    old = json.loads(capsys.readouterr().out)["instances"]
    saved = tmp_path / "old.json"
    saved.write_text(json.dumps([{"status": r["verdict"], "M": r["M"], "moves": r["moves"]}
                                 for r in old]))
    assert main(["pebble", "--dag", str(dag_file), "--replay", str(saved), "--cache", "3"]) == 0
    assert "legal: io = 3" in capsys.readouterr().out


def test_dag_json_feeds_replay(dag_file: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--dag", str(dag_file), "--cache", "3", "--json"]) == 0
    result = tmp_path / "r.json"
    result.write_text(capsys.readouterr().out)
    assert main(["pebble", "--dag", str(dag_file), "--replay", str(result), "--cache", "3"]) == 0
    assert "legal: io = 3" in capsys.readouterr().out


def test_duplicate_outputs_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"nodes":["a","b"],"edges":[["a","b"]],"outputs":["b","b"]}')
    assert main(["pebble", "--dag", str(path), "--cache", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "listed twice" in err


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_export_dag_node_link_and_dot(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "g.json"
    assert main(["pebble", "--builtin", "attention-forward:n=2,d=1", "--export-dag",
                 str(target)]) == 0
    capsys.readouterr()
    data = json.loads(target.read_text())
    assert data["directed"] and {"id", "op", "role"} <= set(data["nodes"][-1])
    # the exported file is a valid --dag input with the same optimum as the builtin (M = 6:
    # decided in seconds, so a loaded machine cannot push it past the time limit)
    assert main(["pebble", "--dag", str(target), "--cache", "6", "--json"]) == 0
    (exported,) = json.loads(capsys.readouterr().out)["instances"]  # one object either way
    assert main(["pebble", "--builtin", "attention-forward:n=2,d=1", "--cache", "6",
                 "--json"]) == 0
    (builtin,) = json.loads(capsys.readouterr().out)["instances"]
    assert exported["io"] == builtin["io"] == 10
    # no overwrite without --force; --force replaces
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--export-dag", str(target)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert json.loads(target.read_text())["graph"]["builder"] == "attention-forward"
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--export-dag", str(target),
                 "--force"]) == 0
    assert json.loads(target.read_text())["graph"]["builder"] == "matmul"
    dot = tmp_path / "g.dot"
    assert main(["pebble", "--builtin", "matmul:1x1x2", "--export-dag", str(dot)]) == 0
    assert dot.read_text().startswith("strict digraph {")  # networkx.nx_pydot (graphs/dotio.py)


def test_export_refuses_symlink(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--export-dag", str(link),
                 "--force"]) == 2
    assert "symlink" in capsys.readouterr().err and victim.read_text() == "precious"


@pytest.mark.parametrize("argv,fragment", [
    (["--builtin", "attention-forward:n=100000,d=100000", "--cache", "4"],
     "MAX_BUILTIN_VERTICES"),
    (["--builtin", "matmul:2x2x2", "--cache", "1:1000000000000"], "MAX_CACHE_SIZES"),
    (["--builtin", "matmul:13x13x13", "--cache", "4"], "MAX_EXACT_VERTICES"),
    (["--builtin", "matmul:2x2x2", "--cache", "4", "--time-limit", "nan"], "finite"),
])
def test_size_caps_are_named(argv: list[str], fragment: str,
                             capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_bracket_names_its_lower_source_and_a_trivial_instance_skips_the_costly_routes(
        capsys: pytest.CaptureFixture) -> None:
    # issue 27: attention forward n = 2, d = 1 at M = 8 has optimum 8 = the compulsory I/O;
    # the bounded-cost certified routes meet the heuristic's schedule, so the costly routes
    # (the sub-DAG solve among them) never run, and the JSON says which bound closed it
    assert main(["pebble", "--builtin", "attention-forward:n=2,d=1", "--M", "8", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["instances"]
    assert (row["verdict"], row["io"], row["lower_source"]) == ("optimal", 8,
                                                                "certified compulsory")
    assert row["certified_lower_bound"]["routes_run"].startswith("bounded-cost")
    # an open instance: the bracket's lower end is at least the printed certified bound
    assert main(["pebble", "--builtin", "matmul:3x2x2", "--M", "4", "--solver-time-limit", "1",
                 "--json"]) == 1
    (row,) = json.loads(capsys.readouterr().out)["instances"]
    assert row["verdict"] == "undecided" and row["lower_source"]
    assert row["certified_lower_bound"]["value"] <= row["lower"] <= row["upper"]


def test_an_instance_never_started_shows_its_lower_bound_only() -> None:
    """No schedule exists for an instance ``--time-limit`` left no time to start: the line
    says ``Q >= lower``, never ``<= None``."""
    from attnio.commands.pebble import _line
    from attnio.graphs.pebble_result import PebbleResult

    never = PebbleResult.undecided(0, None, "time limit reached before this instance started")
    assert _line(never, 17) == ("M=17: undecided, Q >= 0 (time limit reached before this "
                                "instance started)")
    cut = PebbleResult.undecided(192, 616, "time limit 1 s reached")
    assert _line(cut, 16) == "M=16: undecided, 192 <= Q <= 616 (time limit 1 s reached)"


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_long_instance_says_what_runs_off_a_terminal(monkeypatch,
                                                       capsys: pytest.CaptureFixture) -> None:
    """Off a terminal (stderr is captured here) a status line names the instance, the solver's
    phase and its bracket every ATTNIO_STATUS_INTERVAL seconds; stdout keeps the result."""
    monkeypatch.setenv("ATTNIO_STATUS_INTERVAL", "0.2")
    monkeypatch.delenv("ATTNIO_PROGRESS", raising=False)
    code = main(["pebble", "--builtin", "matmul:3x3x2", "--cache", "4", "--time-limit", "1.5"])
    out, err = capsys.readouterr()
    assert code == 1 and out.startswith("M=4: undecided")
    lines = [line for line in err.splitlines() if "still in" in line]
    assert lines and all(line.startswith("attnio pebble: still in [1] M=4, 45 vertices (")
                         and " <= Q <= " in line for line in lines), err
    assert "attnio pebble" not in out


def test_a_quick_instance_prints_no_status_line(monkeypatch,
                                                capsys: pytest.CaptureFixture) -> None:
    monkeypatch.delenv("ATTNIO_PROGRESS", raising=False)
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--cache", "3"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("output", [[], ["--json"], ["--table"]])
def test_a_file_whose_builder_metadata_lies_is_refused_in_every_format(
        tmp_path: Path, capsys: pytest.CaptureFixture, output: list[str]) -> None:
    """Issue 40, item 4: the metadata is validated where the file enters, not by the step
    that happens to read it (before: exit 2 with --json only, an answer without)."""
    from attnio.graphs.dagio import dag_to_json
    from attnio.graphs.dags import matmul_dag

    honest = dag_to_json(matmul_dag(1, 2, 1))
    honest["graph"] = {"builder": "matmul", "params": {"m": 1, "k": 2, "p": 1}}
    lying = {**honest, "graph": {"builder": "matmul", "params": {"m": 1, "k": 3, "p": 1}}}
    (tmp_path / "honest.json").write_text(json.dumps(honest), encoding="utf-8")
    (tmp_path / "lying.json").write_text(json.dumps(lying), encoding="utf-8")
    assert main(["pebble", "--dag", str(tmp_path / "honest.json"), "--M", "3", *output]) == 0
    capsys.readouterr()
    assert main(["pebble", "--dag", str(tmp_path / "lying.json"), "--M", "3", *output]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert captured.out == "" and len(err) == 1
    assert err[0] == ("attnio pebble: error: graph.params {'m': 1, 'k': 3, 'p': 1} do not "
                      "describe this DAG: a matmul DAG with these sizes has 11 vertices and "
                      "10 edges, this one 7 and 6")


def test_certify_refutation_is_cut_to_what_the_time_limit_leaves(tmp_path, monkeypatch,
                                                                  capsys) -> None:
    """A time limit bounds every phase of a call: ``--certify`` after ``--time-limit T`` gives
    the refutation at most what T leaves (never the instance's --solver-time-limit of 600 s).
    The twin: without --time-limit the refutation gets the instance's limit."""
    from attnio.commands import pebble as pebble_command

    seen: list[float] = []
    real = pebble_command.certify_optimum

    def spy(*args, **kwargs):
        seen.append(kwargs["time_limit"])
        return real(*args, **kwargs)

    monkeypatch.setattr(pebble_command, "certify_optimum", spy)
    base = ["pebble", "--builtin", "matmul:1x2x1", "--M", "3", "--solver-time-limit", "600"]
    assert main([*base, "--certify", str(tmp_path / "a"), "--time-limit", "30"]) == 0
    assert len(seen) == 1 and 0 <= seen[0] <= 30
    assert main([*base, "--certify", str(tmp_path / "b")]) == 0
    assert seen[1] == 600
    capsys.readouterr()
