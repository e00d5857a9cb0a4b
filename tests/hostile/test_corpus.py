"""The hostile-input corpus of issue 22 (tests/hostile/corpus.py), in the default tier.

Every case is its own test id; the whole corpus runs once per session (module fixture) in
``ATTNIO_HOSTILE_WORKERS`` slots (default 2): most cases in process, a few as subprocesses.
A case fails if it answers the wrong exit code, takes longer than its bound, prints a
traceback, or (exit 2) prints anything but one line of at most 300 characters starting with
``attnio <subcommand>: ``. ``pytest tests/hostile -k pebble`` runs a part of it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest


def _load_corpus():
    name = "attnio_hostile_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("corpus.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load_corpus()
CASES = corpus.cases()
BY_ID = {case.id: case for case in CASES}


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Run the cases this session selected (all of them by default), once."""
    wanted = {item.callspec.params["case_id"] for item in request.session.items
              if hasattr(item, "callspec") and "case_id" in item.callspec.params
              and item.module is request.module
              and item.get_closest_marker("skip") is None}  # not the slow tier's, unasked
    selected = [case for case in CASES if case.id in wanted] or CASES
    root = tmp_path_factory.mktemp("hostile")
    workers = int(os.environ.get("ATTNIO_HOSTILE_WORKERS", "2"))
    results = corpus.run_corpus(selected, root, workers=workers)
    dump = os.environ.get("ATTNIO_HOSTILE_DUMP")
    if dump:  # every result and its problems, for notes/hostile.md and the helpers' to-do
        paths = results["__paths__"]
        Path(dump).write_text(json.dumps(
            {case.id: {**results[case.id], "problems": corpus.problems(case, results[case.id],
                                                                       paths),
                       "cls": case.cls, "argv": list(case.argv)[:12]}
             for case in selected}, indent=1))
    return results


def test_corpus_size_and_coverage() -> None:
    """≥ 300 cases, ids unique, every command covered, few subprocesses, files known."""
    assert len(CASES) >= 300
    assert len(BY_ID) == len(CASES), [i for i, n in Counter(c.id for c in CASES).items() if n > 1]
    per_command = Counter(case.command for case in CASES)
    for command in corpus.COMMANDS:
        assert per_command[command] >= 15, (command, per_command[command])
    assert sum(case.io is not None for case in CASES) <= corpus.MAX_SUBPROCESS_CASES
    assert all(case.io in (None, *corpus.IO_MODES) for case in CASES)
    for case in CASES:
        assert corpus.placeholders(case) <= set(corpus.FILE_NAMES), case.id
        assert case.codes and case.codes <= {0, 1, 2, 130}, case.id
        assert len(case.codes) == 1 or case.why, f"{case.id}: a set of codes needs a why"
        assert case.cls, case.id


# default tier: 160 cases spread over the corpus (every command); --runslow: all of them
@pytest.mark.default_slice(160)
@pytest.mark.parametrize("case_id", [case.id for case in CASES])
def test_case(case_id: str, outcomes: dict) -> None:
    case = BY_ID[case_id]
    found = corpus.problems(case, outcomes[case_id], outcomes["__paths__"])
    assert not found, "\n".join([f"{case_id}: attnio {' '.join(case.argv)[:300]}", *found])


def test_files_not_ours_are_kept(outcomes: dict) -> None:
    """No case overwrote, emptied or removed a file attnio did not write."""
    paths = outcomes["__paths__"]
    for name in ("exists_png", "exists_pdf", "exists_tex", "exists_json", "exists_dot"):
        assert Path(paths[name]).read_bytes() == corpus.NOT_MINE, name
    assert (Path(paths["foreign_dir"]) / "thesis.md").read_bytes() == corpus.NOT_MINE
    assert not Path(paths["missing"]).exists()
    for name in ("folder", "folder_png", "folder_json", "folder_tex"):
        assert list(Path(paths[name]).iterdir()) == [], name
    root = Path(paths["root"])
    assert not list(root.glob("out-*.bmp")) and not list(root.glob("x" * 300 + "*"))
