"""Hostile inputs through the real command line (issue 13): each bad input must give exit
code 2, exactly one line on stderr of at most 300 characters, no traceback, and finish well
within its time limit.

Every case runs through ``attnio.cli.main`` in the warm worker processes of the hostile
corpus (tests/hostile/corpus.py, two at a time, a bound per case). The files the
cases need (non-UTF-8, deeply nested, duplicate outputs, symlink-free folders, ...) are made
in a temporary folder. ``attnio report`` is covered by tests/reporting/test_report.py.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

#: Seconds one bad input may take in a warm worker (generous: a loaded 2-core machine).
CASE_TIME_LIMIT = 30.0
MAX_LINE = 300

BIG = "9" * 5001                       # beyond Python's 4300-digit int() limit
HUGE = str(10**400)                    # within the digit cap, beyond float range
SIMULATE = ["simulate", "--n", "64", "--d", "8"]
DAG_OK = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]}


def _files(root: Path) -> dict[str, str]:
    """The files of the cases (made in ``root``); returns name → path."""
    root.mkdir(parents=True, exist_ok=True)
    def put(name: str, data: bytes | str) -> str:
        path = root / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        return str(path)

    files = {
        "dup": put("dup.json", '{"nodes":["a","b"],"edges":[["a","b"]],"outputs":["b","b"]}'),
        "latin1": put("latin1.json", b'{"nodes": ["a\xff"], "edges": []}'),
        "deep": put("deep.json", "[" * 100_000 + "]" * 100_000),
        "deep_obj": put("deep_obj.json", '{"a":' * 5000 + "1" + "}" * 5000),
        "invalid": put("invalid.json", "{nodes"),
        "nan": put("nan.json", '{"nodes": ["a"], "edges": [], "w": NaN}'),
        "bigint": put("bigint.json", '{"nodes": [' + "7" * 5000 + '], "edges": []}'),
        "cycle": put("cycle.json", '{"nodes":["a","b"],"edges":[["a","b"],["b","a"]]}'),
        "undirected": put("undirected.json", json.dumps(
            {"directed": False, "nodes": [{"id": "a"}, {"id": "b"}],
             "links": [{"source": "a", "target": "b"}]})),
        "unknown_vertex": put("unknown.json", '{"nodes":["a"],"edges":[["a","zz"]]}'),
        "list": put("list.json", "[1, 2, 3]"),
        "ok": put("ok.json", json.dumps(DAG_OK)),
        "sched_latin1": put("sched_latin1.json", b'[["read", "\xfe"]]'),
        "sched_deep": put("sched_deep.json", "[" * 10_000 + "]" * 10_000),
        "sched_bad_move": put("sched_bad.json", '[["jump", "a"]]'),
        "sched_none": put("sched_none.json", '{"moves": null}'),
        "sched_range": put("sched_range.json", json.dumps(
            [{"M": 3, "moves": []}, {"M": 4, "moves": []}])),
        # DOT (issue 24): each refused by the scan or the validation, never a hang
        "dot_nested": put("nested.dot", "digraph {" + "{" * 5000 + "a" + "}" * 5001),
        "dot_repeated": put("repeated.dot", "digraph {" + "a;" * 10_000 + "}"),
        "dot_names": put("names.dot", "digraph {" + " ".join(f"v{i}" for i in range(7000)) + "}"),
        "dot_tokens": put("tokens.gv", "digraph {" + " ".join(f"v{i}" for i in range(50_000)) + "}"),
        "dot_big": put("big.dot", "digraph { a }" + " " * (2**20 + 1)),
        "dot_latin1": put("latin1.dot", b'digraph { "\xff" -> b }'),
        "dot_undirected": put("undirected.gv", "graph { a -- b }"),
        "dot_cycle": put("cycle.dot", "digraph { a -> b -> a }"),
        "dot_syntax": put("syntax.dot", "digraph { a -> ; }"),
        "dot_unclosed": put("unclosed.dot", 'digraph { "a -> b }'),
        "dot_html": put("html.dot", "digraph { <<b>x</b>> -> a }"),
        "dot_two_graphs": put("two.dot", "digraph { a } digraph { b }"),
        "dot_json_inside": put("json.dot", json.dumps(DAG_OK)),
        "dot_bad_index": put("index.dot", 'digraph { a [index="[1e400]"] }'),
        "dot_bad_output": put("output.dot", "digraph { a [output=0]; b [output=0] }"),
        "exists_png": put("exists.png", b"not mine"),
        "exists_tex": put("exists.tex", "not mine"),
        "exists_json": put("exists.json", "{}"),
    }
    (root / "folder.png").mkdir()
    files["folder_png"] = str(root / "folder.png")
    (root / "folder.json").mkdir()
    files["folder_json"] = str(root / "folder.json")
    files["missing_dir"] = str(root / "no-such-folder")
    files["root"] = str(root)
    return files


def _cases(f: dict[str, str]) -> dict[str, list[str]]:
    miss = f["missing_dir"]
    cases = {
        # ---- attnio bounds
        "bounds-n-zero": ["bounds", "--n", "0", "--d", "8", "--M", "64"],
        "bounds-n-negative": ["bounds", "--n", "-4", "--d", "8", "--M", "64"],
        "bounds-n-float": ["bounds", "--n", "2.5", "--d", "8", "--M", "64"],
        "bounds-n-text": ["bounds", "--n", "x", "--d", "8", "--M", "64"],
        "bounds-n-5001-digits": ["bounds", "--n", BIG, "--d", "8", "--M", "64"],
        "bounds-n-exponent": ["bounds", "--n", "1e5", "--d", "8", "--M", "64"],
        "bounds-d-zero": ["bounds", "--n", "64", "--d", "0", "--M", "64"],
        "bounds-M-zero": ["bounds", "--n", "64", "--d", "8", "--M", "0"],
        "bounds-M-600-digits": ["bounds", "--n", "64", "--d", "8", "--M", "1" * 600],
        "bounds-neither-M-nor-device": ["bounds", "--n", "64", "--d", "8"],
        "bounds-M-and-device": ["bounds", "--n", "64", "--d", "8", "--M", "64", "--device", "a100"],
        "bounds-unknown-device": ["bounds", "--n", "64", "--d", "8", "--device", "tpu"],
        "bounds-unknown-dtype-with-M": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                                        "--dtype", "bf17"],
        "bounds-unknown-dtype": ["bounds", "--n", "64", "--d", "8", "--device", "a100",
                                 "--dtype", "int3"],
        "bounds-latex-missing-folder": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                                        "--latex", f"{miss}/t.tex"],
        "bounds-latex-wrong-extension": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                                         "--latex", f"{f['root']}/t.txt"],
        "bounds-latex-existing-file": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                                       "--latex", f["exists_tex"]],
        "bounds-latex-folder": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                                "--latex", f["root"]],
        "bounds-latex-proc": ["bounds", "--n", "64", "--d", "8", "--M", "64",
                              "--latex", "/proc/attnio-hostile.tex"],
        "bounds-json-and-latex": ["bounds", "--n", "64", "--d", "8", "--M", "64", "--json",
                                  "--latex"],
        "bounds-missing-n": ["bounds", "--d", "8", "--M", "64"],
        "bounds-bad-scope": ["bounds", "--n", "64", "--d", "8", "--device", "a100",
                             "--scope", "grid"],
        # ---- attnio simulate
        "simulate-n-zero": ["simulate", "--n", "0", "--d", "8", "--M", "64"],
        "simulate-n-5001-digits": ["simulate", "--n", BIG, "--d", "8", "--M", "64"],
        "simulate-d-negative": ["simulate", "--n", "64", "--d", "-1", "--M", "64"],
        "simulate-M-too-small": [*SIMULATE, "--M", "3"],
        "simulate-M-not-int": [*SIMULATE, "--M", "6x"],
        "simulate-M-empty": [*SIMULATE, "--M", ","],
        "simulate-M-too-many": [*SIMULATE, "--M", ",".join(str(64 + i) for i in range(1001))],
        "simulate-range-reversed": [*SIMULATE, "--M-geom", "64:8:3"],
        "simulate-range-steps-1e9": [*SIMULATE, "--M-geom", "64:1024:1000000000"],
        "simulate-range-two-parts": [*SIMULATE, "--M-geom", "64:1024"],
        "simulate-range-zero": [*SIMULATE, "--M-geom", "0:10:3"],
        "simulate-range-huge-hi": [*SIMULATE, "--M-geom", f"64:{HUGE}:3"],
        "simulate-unknown-algorithm": [*SIMULATE, "--M", "256", "--algorithm", "fast"],
        "simulate-no-backward-pass": [*SIMULATE, "--M", "256", "--algorithm", "square-tiling"],
        "simulate-execute-memory": ["simulate", "--n", "100000", "--d", "64", "--M", "65536",
                                    "--algorithm", "flash1", "--pass", "forward", "--execute"],
        "simulate-seed-negative": [*SIMULATE, "--M", "256", "--algorithm", "flash1",
                                   "--execute", "--seed=-1"],
        "simulate-seed-text": [*SIMULATE, "--M", "256", "--execute", "--seed", "x"],
        "simulate-seed-2**64": [*SIMULATE, "--M", "256", "--execute", "--seed", str(2**64)],
        "simulate-plot-missing-folder": [*SIMULATE, "--M", "256", "--plot", f"{miss}/io.png"],
        "simulate-plot-proc": [*SIMULATE, "--M", "256", "--algorithm", "flash1",
                               "--plot", "/proc/attnio-hostile.png"],
        "simulate-plot-extension": [*SIMULATE, "--M", "256", "--plot", f"{f['root']}/io.bmp"],
        "simulate-plot-folder": [*SIMULATE, "--M", "256", "--plot", f["folder_png"]],
        "simulate-plot-existing": [*SIMULATE, "--M", "256", "--plot", f["exists_png"]],
        "simulate-crossover-one-name": [*SIMULATE, "--M", "256", "--crossover", "flash1"],
        "simulate-crossover-unselected": [*SIMULATE, "--M", "256", "--algorithm", "flash1",
                                          "--crossover", "flash1,flash2"],
        "simulate-bad-pass": [*SIMULATE, "--M", "256", "--pass", "sideways"],
        "simulate-M-and-range": [*SIMULATE, "--M", "256", "--M-geom", "64:256:3"],
        "simulate-count-and-execute": [*SIMULATE, "--M", "256", "--count", "--execute"],
        # ---- attnio pebble
        "pebble-duplicate-outputs": ["pebble", "--dag", f["dup"], "--cache", "3"],
        "pebble-non-utf8-dag": ["pebble", "--dag", f["latin1"], "--cache", "3"],
        "pebble-nested-100000": ["pebble", "--dag", f["deep"], "--cache", "3"],
        "pebble-nested-objects": ["pebble", "--dag", f["deep_obj"], "--cache", "3"],
        "pebble-dev-zero": ["pebble", "--dag", "/dev/zero", "--cache", "3"],
        "pebble-missing-file": ["pebble", "--dag", f"{miss}/g.json", "--cache", "3"],
        "pebble-dag-is-folder": ["pebble", "--dag", f["root"], "--cache", "3"],
        "pebble-invalid-json": ["pebble", "--dag", f["invalid"], "--cache", "3"],
        "pebble-nan-in-json": ["pebble", "--dag", f["nan"], "--cache", "3"],
        "pebble-5000-digit-number": ["pebble", "--dag", f["bigint"], "--cache", "3"],
        "pebble-cycle": ["pebble", "--dag", f["cycle"], "--cache", "3"],
        "pebble-undirected-node-link": ["pebble", "--dag", f["undirected"], "--cache", "3"],
        "pebble-unknown-vertex": ["pebble", "--dag", f["unknown_vertex"], "--cache", "3"],
        "pebble-dag-is-list": ["pebble", "--dag", f["list"], "--cache", "3"],
        "pebble-cache-zero": ["pebble", "--dag", f["ok"], "--cache", "0"],
        "pebble-cache-text": ["pebble", "--dag", f["ok"], "--cache", "x"],
        "pebble-replay-two-dags": ["pebble", "--dag", f["ok"], f["ok"], "--cache", "3",
                                   "--replay", f["ok"]],
        "pebble-workers-zero": ["pebble", "--dag", f["ok"], "--cache", "3", "--workers", "0"],
        "pebble-cache-range-1e12": ["pebble", "--builtin", "matmul:2x2x2", "--cache",
                                    "1:1000000000000"],
        "pebble-cache-5001-digits": ["pebble", "--builtin", "matmul:2x2x2", "--cache", BIG],
        "pebble-no-cache": ["pebble", "--builtin", "matmul:2x2x2"],
        "pebble-time-limit-nan": ["pebble", "--dag", f["ok"], "--cache", "3",
                                  "--time-limit", "nan"],
        "pebble-time-limit-negative": ["pebble", "--dag", f["ok"], "--cache", "3",
                                       "--time-limit", "-1"],
        "pebble-builtin-huge": ["pebble", "--builtin", "attention-forward:n=100000,d=100000",
                                "--cache", "4"],
        "pebble-builtin-too-big-for-exact": ["pebble", "--builtin", "matmul:13x13x13",
                                             "--cache", "4"],
        "pebble-builtin-unknown": ["pebble", "--builtin", "fft:8", "--cache", "3"],
        "pebble-builtin-malformed": ["pebble", "--builtin", "matmul:2x2", "--cache", "3"],
        "pebble-builtin-5001-digits": ["pebble", "--builtin", f"matmul:{BIG}x1x1", "--cache", "3"],
        "pebble-builtin-10000-chars": ["pebble", "--builtin", "x" * 10_000, "--cache", "3"],
        "pebble-builtin-bad-gradient": ["pebble", "--builtin",
                                        "attention-backward:n=2,d=1,gradient=dY", "--cache", "3"],
        "pebble-replay-non-utf8": ["pebble", "--dag", f["ok"], "--replay", f["sched_latin1"],
                                   "--cache", "3"],
        "pebble-replay-nested": ["pebble", "--dag", f["ok"], "--replay", f["sched_deep"],
                                 "--cache", "3"],
        "pebble-replay-bad-move": ["pebble", "--dag", f["ok"], "--replay", f["sched_bad_move"],
                                   "--cache", "3"],
        "pebble-replay-null-moves": ["pebble", "--dag", f["ok"], "--replay", f["sched_none"],
                                     "--cache", "3"],
        "pebble-replay-no-result-at-M": ["pebble", "--dag", f["ok"], "--replay",
                                         f["sched_range"], "--cache", "7"],
        "pebble-replay-cache-range": ["pebble", "--builtin", "matmul:1x1x1", "--replay",
                                      f["sched_range"], "--cache", "3:4"],
        "pebble-export-extension": ["pebble", "--builtin", "matmul:1x1x1", "--export-dag",
                                    f"{f['root']}/g.xml"],
        "pebble-export-existing": ["pebble", "--builtin", "matmul:1x1x1", "--export-dag",
                                   f["exists_json"]],
        "pebble-export-missing-folder": ["pebble", "--builtin", "matmul:1x1x1", "--export-dag",
                                         f"{miss}/g.json"],
        "pebble-export-folder": ["pebble", "--builtin", "matmul:1x1x1", "--export-dag",
                                 f["folder_json"]],
        "pebble-dot-nested-5000": ["pebble", "--dag", f["dot_nested"], "--cache", "3"],
        "pebble-dot-repeated-node-10000": ["pebble", "--dag", f["dot_repeated"], "--cache", "3"],
        "pebble-dot-7000-names": ["pebble", "--dag", f["dot_names"], "--cache", "3"],
        "pebble-dot-50000-tokens": ["pebble", "--dag", f["dot_tokens"], "--cache", "3"],
        "pebble-dot-over-byte-cap": ["pebble", "--dag", f["dot_big"], "--cache", "3"],
        "pebble-dot-non-utf8": ["pebble", "--dag", f["dot_latin1"], "--cache", "3"],
        "pebble-dot-undirected": ["pebble", "--dag", f["dot_undirected"], "--cache", "3"],
        "pebble-dot-cycle": ["pebble", "--dag", f["dot_cycle"], "--cache", "3"],
        "pebble-dot-syntax-error": ["pebble", "--dag", f["dot_syntax"], "--cache", "3"],
        "pebble-dot-unclosed-string": ["pebble", "--dag", f["dot_unclosed"], "--cache", "3"],
        "pebble-dot-html-name": ["pebble", "--dag", f["dot_html"], "--cache", "3"],
        "pebble-dot-two-graphs": ["pebble", "--dag", f["dot_two_graphs"], "--cache", "3"],
        "pebble-dot-holding-json": ["pebble", "--dag", f["dot_json_inside"], "--cache", "3"],
        "pebble-dot-infinite-index": ["pebble", "--dag", f["dot_bad_index"], "--cache", "3"],
        "pebble-dot-output-twice": ["pebble", "--dag", f["dot_bad_output"], "--cache", "3"],
        "lower-bound-dot-nested": ["lower-bound", "--dag", f["dot_nested"], "--cache", "3"],
        "pebble-dag-and-builtin": ["pebble", "--dag", f["ok"], "--builtin", "matmul:1x1x1",
                                   "--cache", "3"],
        # ---- the dispatcher
        "attnio-unknown-subcommand": ["no-such-command"],
        "attnio-no-subcommand": [],
    }
    return cases


def _corpus():
    """The runner of the hostile corpus (tests/hostile/corpus.py): warm in-process workers,
    a bound per case, a stuck worker killed and replaced."""
    name = "attnio_hostile_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).parent / "hostile" / "corpus.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """Every case through ``attnio.cli.main`` in the corpus's warm workers (a fresh
    interpreter per case cost ~2 s of imports each); the files live in their own folder."""
    corpus = _corpus()
    root = tmp_path_factory.mktemp("hostile")
    files = _files(root / "issue13")
    cases = [corpus.Case(name, tuple(argv), frozenset({2}), "issue 13", seconds=CASE_TIME_LIMIT)
             for name, argv in _cases(files).items()]
    (root / "corpus").mkdir()
    ran = corpus.run_corpus(cases, root / "corpus", workers=2)
    results: dict[str, tuple] = {
        name: (r["code"], r.get("stdout", ""), r.get("stderr", "") or r.get("error", ""),
               r["seconds"]) for name, r in ran.items() if name != "__paths__"}
    results["__files__"] = files  # type: ignore[assignment]
    return results


CASE_NAMES = list(_cases({k: "x" for k in (
    "dup latin1 deep deep_obj invalid nan bigint cycle undirected unknown_vertex list ok "
    "sched_latin1 sched_deep sched_bad_move sched_none sched_range exists_png exists_tex "
    "exists_json folder_png folder_json missing_dir root dot_nested dot_repeated dot_names dot_tokens "
    "dot_big dot_latin1 dot_undirected dot_cycle dot_syntax dot_unclosed dot_html "
    "dot_two_graphs dot_json_inside dot_bad_index dot_bad_output").split()}))


def test_at_least_sixty_hostile_inputs() -> None:
    assert len(CASE_NAMES) >= 60


@pytest.mark.parametrize("name", CASE_NAMES)
def test_bad_input_is_exit_2_with_one_short_line(name: str, outcomes: dict[str, tuple]) -> None:
    code, _stdout, stderr, _seconds = outcomes[name]
    assert code == 2, (name, code, stderr[-600:])
    assert "Traceback" not in stderr
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr[:600]
    assert len(stderr.rstrip("\n")) <= MAX_LINE  # a hang is killed at its bound: code None


def test_messages_name_the_limits(outcomes: dict[str, tuple]) -> None:
    """A few messages must name the rule or limit, not only fail."""
    expect = {
        "pebble-duplicate-outputs": "listed twice",
        "pebble-non-utf8-dag": "not UTF-8",
        "pebble-nested-100000": "MAX_JSON_DEPTH",
        "pebble-dev-zero": "not a regular file",  # refused before any read (issue 22)
        "pebble-dot-nested-5000": "subgraph or { } group",
        "pebble-dot-repeated-node-10000": "declares node 'a' twice",
        "pebble-dot-7000-names": "MAX_DOT_NAMES",
        "pebble-dot-50000-tokens": "MAX_DOT_TOKENS",
        "pebble-dot-over-byte-cap": "MAX_DOT_FILE_BYTES",
        "pebble-dot-undirected": "undirected",
        "pebble-builtin-huge": "MAX_BUILTIN_VERTICES",
        "pebble-builtin-too-big-for-exact": "MAX_EXACT_VERTICES",
        "pebble-cache-range-1e12": "MAX_CACHE_SIZES",
        "simulate-range-steps-1e9": "MAX_STEPS",
        "simulate-execute-memory": "MAX_EXECUTE_BYTES",
        "simulate-seed-negative": "seed",
        "bounds-n-5001-digits": "MAX_INT_DIGITS",
        "simulate-plot-folder": "is a folder",
        "simulate-plot-existing": "refusing to overwrite",
    }
    for name, fragment in expect.items():
        assert fragment in outcomes[name][2], (name, outcomes[name][2])
    assert "--count" in outcomes["simulate-execute-memory"][2]


def test_nothing_was_overwritten_or_created(outcomes: dict[str, tuple]) -> None:
    files = outcomes["__files__"]
    assert Path(files["exists_png"]).read_bytes() == b"not mine"
    assert Path(files["exists_tex"]).read_text() == "not mine"
    assert Path(files["exists_json"]).read_text() == "{}"
    assert not Path(files["missing_dir"]).exists()
    assert list(Path(files["folder_png"]).iterdir()) == []
    root = Path(files["root"])
    assert not (root / "t.txt").exists() and not (root / "io.bmp").exists()
    assert not (root / "g.xml").exists()
