"""The recipes of notes/extending.md, followed on toy plug-ins (issue 40, item 5).

A copy of the package's source tree (a temporary folder: the real registries are never
touched) gets exactly the edits each recipe names — a toy algorithm (one ``AlgorithmSpec`` in
``_SPECS``), a toy lower-bound route (its module plus its entry in ``ROUTE_MODULES``), a toy
claim module (``CLAIMS`` and ``FALSE_TWINS``) and a toy command (its module plus its rows in
``SUBCOMMANDS`` and ``COMMAND_HELP``) — and one child Python run on that copy checks each
shows up where the recipe says: ``attnio simulate --algorithm all`` lists the algorithm with
the counts of the schedule it reuses, ``attnio lower-bound`` prints the route with its
description and checker, ``attnio verify`` proves the claim and ``--self-test`` rejects its
twin, ``attnio --help`` lists the command and ``attnio toy`` runs it. Removing the copy
unregisters them all.

A recipe whose steps no longer suffice (a registry that moved, a list that must also be
edited) fails here, and the section of notes/extending.md that names the files is checked
for each file the toy edits.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting")

TOY_ALGORITHM = '''

# tests/test_extending.py: a toy record, the one edit of "An algorithm"
import dataclasses as _toy_dataclasses  # noqa: E402

_SPECS = (*_SPECS, _toy_dataclasses.replace(
    _SPECS[0], name="toy-standard",
    description="toy: the standard schedule under another name (tests/test_extending.py)",
    labels={p: "toy-standard" for p in _SPECS[0].bound_ids}, colour=None,
    selections={}))
'''

TOY_ROUTE = '''"""A toy lower-bound route (tests/test_extending.py): one write per non-input output."""

from __future__ import annotations

from attnio.graphs.game import game_inputs, game_outputs
from attnio.graphs.lower_bounds.records import BoundRecord, Route
from attnio.results import Proved, Refuted


def toy_writes_bound(G, M, *, deadline=None):
    inputs = set(game_inputs(G))
    writes = sorted(o for o in game_outputs(G) if o not in inputs)
    return BoundRecord("toy-writes", len(writes), True, None, {"writes": writes})


def check_toy_writes(G, M, record, *, deadline=None, timeout_ms=None):
    """The toy's checker.

    Side conditions
    ---------------
    1. ``writes-are-outputs``: every listed write is a non-input output, none twice.
    2. ``value-is-count``: value = the number of listed writes.
    """
    writes = list(record.certificate["writes"])
    outs = set(game_outputs(G)) - set(game_inputs(G))
    if len(set(writes)) != len(writes) or not set(writes) <= outs:
        return Refuted({"writes": writes}, "not distinct non-input outputs")
    if record.value != len(writes):
        return Refuted({"value": record.value}, "value is not the number of writes")
    return Proved(f"{len(writes)} output writes recounted")


def describe_toy_writes(certificate):
    return f"toy: {len(certificate['writes'])} output writes"


ROUTE = Route("toy-writes",
              compute=lambda G, M, *, deadline, timeout_ms: [toy_writes_bound(G, M)],
              check=check_toy_writes, cost="linear", source="folklore (toy)",
              reconstructed=False, describe=describe_toy_writes)
ROUTES = (ROUTE,)
'''

TOY_CLAIMS = '''"""Toy claims (tests/test_extending.py): the recipe "A claim", followed."""

import sympy

from attnio.proofs.algebra import le, z3_claim

_n = sympy.Symbol("n", positive=True, integer=True)

CLAIMS = [z3_claim("toy.square_grows", "n <= n**2 for every positive integer n",
                   "toy (tests/test_extending.py)", "toy",
                   lambda: (le(_n, _n ** 2), []))]
FALSE_TWINS = [z3_claim("toy.square_grows.twin", "n**2 <= n for every positive integer n "
                        "(false at n = 2)", "toy (tests/test_extending.py)", "toy",
                        lambda: (le(_n ** 2, _n), []), twin_of="toy.square_grows")]
'''

TOY_COMMAND = '''"""attnio toy: a toy command (tests/test_extending.py), the recipe "A command"."""

from __future__ import annotations

import argparse

from attnio.exceptions import InvalidInputError
from attnio.output import json_document

HELP = "a toy command that doubles a positive integer"


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("toy", help=HELP, description=HELP)
    parser.add_argument("--x", required=True)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if not args.x.isdigit() or int(args.x) < 1:
        raise InvalidInputError(f"--x={args.x!r} must be a positive integer")
    if args.json:
        import json

        print(json.dumps(json_document("toy", "proved", {"double": 2 * int(args.x)})))
    else:
        print(f"double: {2 * int(args.x)}")
    return 0
'''

CHILD = '''
import contextlib, io, json, sys
from attnio.cli import main

def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}

report = {
    "simulate": run(["simulate", "--n", "64", "--d", "8", "--M", "512", "--algorithm", "all",
                     "--json"]),
    "lower_bound": run(["lower-bound", "--builtin", "matmul:1x2x1", "--M", "3"]),
    "verify": run(["verify", "--only", "toy.*", "--json"]),
    "self_test": run(["verify", "--self-test", "--only", "toy.*"]),
    "help": run(["--help"]),
    "toy": run(["toy", "--x", "21"]),
    "toy_bad": run(["toy", "--x", "zero"]),
}
print(json.dumps(report))
'''


def _insert_after(text: str, anchor: str, line: str) -> str:
    assert anchor in text, f"the recipe's anchor {anchor!r} is gone"
    return text.replace(anchor, anchor + line, 1)


def _follow_the_recipes(tree: Path) -> None:
    """Make, in the copy ``tree``, exactly the edits notes/extending.md names."""
    registry = tree / "algorithms" / "registry.py"            # an algorithm: one record
    text = registry.read_text(encoding="utf-8")
    anchor = "\n#: name → record, in the order the CLI lists them.\n"
    assert anchor in text, "algorithms/registry.py: REGISTRY is no longer built from _SPECS"
    registry.write_text(text.replace(anchor, TOY_ALGORITHM + anchor, 1), encoding="utf-8")

    (tree / "graphs" / "lower_bounds" / "toy_writes.py").write_text(TOY_ROUTE, encoding="utf-8")
    routes = tree / "graphs" / "lower_bounds" / "registry.py"   # a route: module + its entry
    text = routes.read_text(encoding="utf-8")
    text = re.sub(r"^(ROUTE_MODULES: tuple\[ModuleType, \.\.\.\] = \()(.*)\)$",
                  r"\1\2, toy_writes)", text, count=1, flags=re.M)
    assert "toy_writes)" in text, "graphs/lower_bounds/registry.py: ROUTE_MODULES moved"
    text, found = re.subn(r"^(from attnio\.graphs\.lower_bounds import [a-z_, ]+)$",
                          r"\1, toy_writes", text, count=1, flags=re.M)
    assert found == 1, "graphs/lower_bounds/registry.py no longer imports the route modules"
    routes.write_text(text, encoding="utf-8")

    (tree / "proofs" / "toy_claims.py").write_text(TOY_CLAIMS, encoding="utf-8")  # a claim

    (tree / "attnio" / "commands" / "toy.py").write_text(TOY_COMMAND, encoding="utf-8")
    cli = tree / "attnio" / "cli.py"                           # a command: module + two rows
    text = cli.read_text(encoding="utf-8")
    text = _insert_after(text, "SUBCOMMANDS: dict[str, str] = {\n",
                         '    "toy": "attnio.commands.toy",\n')
    text = _insert_after(text, "COMMAND_HELP: dict[str, str] = {\n",
                         '    "toy": "a toy command that doubles a positive integer",\n')
    cli.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The copy with the four toy plug-ins, and what one child run on it printed."""
    tree = tmp_path_factory.mktemp("extended")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "attnio", tree / "attnio", symlinks=True, ignore=ignore)
    for room in ROOMS:
        shutil.copytree(ROOT / room, tree / room, symlinks=True, ignore=ignore)
    _follow_the_recipes(tree)
    env = {**os.environ, "PYTHONPATH": str(tree), "ATTNIO_PROGRESS": "0",
           "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD)], capture_output=True,
                          text=True, cwd=tree, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["tree"] = str(tree)
    return report


def test_the_copy_is_the_toys_not_the_package(toy_run: dict) -> None:
    import attnio.algorithms.registry
    import attnio.cli

    assert "toy-standard" not in attnio.algorithms.registry.REGISTRY
    assert "toy" not in attnio.cli.SUBCOMMANDS
    assert not (ROOT / "proofs" / "toy_claims.py").exists()
    assert Path(toy_run["tree"], "proofs", "toy_claims.py").is_file()


def test_an_algorithm_one_record_and_simulate_all_lists_it(toy_run: dict) -> None:
    done = toy_run["simulate"]
    assert done["code"] == 0, done["err"]
    runs = {run["algorithm"]: run for run in json.loads(done["out"])["runs"]}
    assert "toy-standard" in runs
    assert runs["toy-standard"]["io"] == runs["standard"]["io"]     # the same schedule


def test_a_route_its_module_and_lower_bound_prints_it(toy_run: dict) -> None:
    done = toy_run["lower_bound"]
    assert done["code"] == 0, done["err"]
    text = done["out"]
    assert re.search(r"^toy-writes +1 +applies$", text, re.M)         # run, after the others
    assert "certificate: toy: 1 output writes" in text               # its description
    assert "checker: proved — 1 output writes recounted" in text     # its checker


def test_a_claim_its_module_and_verify_runs_it_and_rejects_its_twin(toy_run: dict) -> None:
    done = toy_run["verify"]
    assert done["code"] == 0, done["err"]
    claims = json.loads(done["out"])["claims"]
    assert [(c["id"], c["verdict"]) for c in claims] == [("toy.square_grows", "proved")]
    twins = toy_run["self_test"]
    assert twins["code"] == 0, twins["err"]
    assert "toy.square_grows.twin" in twins["out"] and "rejected" in twins["out"]


def test_a_command_its_module_and_help_lists_it(toy_run: dict) -> None:
    assert toy_run["help"]["code"] == 0
    assert re.search(r"^\s+toy\s+a toy command that doubles", toy_run["help"]["out"], re.M)
    assert toy_run["toy"] == {"code": 0, "out": "double: 42\n", "err": ""}
    bad = toy_run["toy_bad"]
    assert bad["code"] == 2 and bad["out"] == ""
    assert bad["err"].strip() == "attnio toy: error: --x='zero' must be a positive integer"


@pytest.mark.parametrize("kind, files", [
    ("an algorithm", ["algorithms/registry.py", "AlgorithmSpec", "_SPECS"]),
    ("a lower-bound route", ["graphs/lower_bounds/<name>.py", "ROUTE_MODULES",
                             "graphs/lower_bounds/registry.py", "FALSE_TWINS"]),
    ("a claim", ["proofs/<topic>.py", "CLAIMS", "FALSE_TWINS", "notes/claims.md"]),
    ("a command", ["attnio/commands/<name>.py", "SUBCOMMANDS", "COMMAND_HELP",
                   "attnio/cli.py", "tests/commands/test_<name>.py"]),
])
def test_the_recipe_names_the_files_the_toy_touched(kind: str, files: list[str]) -> None:
    text = (ROOT / "notes" / "extending.md").read_text(encoding="utf-8")
    row = next((line for line in text.splitlines() if line.startswith(f"| **{kind}** |")),
               None)
    assert row is not None, f"notes/extending.md has no recipe row for {kind}"
    for name in files:
        assert name in row, f"the recipe for {kind} does not name {name}"
