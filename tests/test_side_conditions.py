"""Every side condition of a trusted checker has its own planted violation (issue 36: a twin
per side condition, not per family).

A checker lists its side conditions in its docstring, in a numbered numpydoc section::

    Side conditions
    ---------------
    1. ``read-is-input``: every vertex of ``needed_inputs`` is an input (a source).
    2. ``read-is-needed``: ...

and each condition has a test, anywhere under tests/, named
``test_twin__<checker>__<condition>`` (``<checker>``: the function's name, ``Class_method`` for
a method, the class's name for a class docstring — lowercased; ``-`` in a condition becomes
``_``). This module reads the sections from the source (with :mod:`ast`) and the twin names
from the test files, and checks that

* every checker that must have a section has one — every registered lower-bound route's
  checker, every ``check_*`` of graphs/lower_bounds, and the other trusted checkers named in
  :data:`MUST_LIST` (the validator, what counts as a certified bound, the route claims'
  checker, the algorithm-count comparisons, the per-mask claim);
* every listed condition has a twin, and every twin names a listed condition (a renamed
  condition cannot leave its twin behind);
* the lists are numbered 1, 2, … with distinct keys.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from attnio.graphs.lower_bounds import ROUTES

pytestmark = pytest.mark.trust

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FOLDERS = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting",
                   "attnio")

#: Checkers outside the route registry that must list their side conditions:
#: (repository path, checker key).
MUST_LIST = {
    ("graphs/game.py", "replay"),
    ("graphs/lower_bounds/combined.py", "check_certificate"),
    ("graphs/lower_bounds/combined.py", "certifiedroute"),
    ("graphs/lower_bounds/windows.py", "verify_forced"),
    ("graphs/lower_bounds/subdag.py", "resolve_for_checker"),
    ("proofs/certified_routes.py", "route_verdict"),
    ("proofs/algorithm_counts.py", "_le"),
    ("proofs/algorithm_counts.py", "envelope_check"),
    ("proofs/algorithm_counts.py", "comparison_check"),
    ("proofs/mask_bounds.py", "_below_algorithms"),
    # the newest trusted modules (issue 36, round 3): their twins in tests/test_newest_rules.py
    ("smt/explog.py", "check_axiom"),
    ("smt/explog_terms.py", "explogterms"),
    ("smt/identities.py", "check_identity"),
    ("smt/obvious_points.py", "obvious_witness"),
    ("smt/coq.py", "render_statement"),
    ("smt/coq_statements.py", "coq_statement"),
    ("smt/coqc.py", "accepted"),
    ("smt/coqc.py", "coq_document"),
    ("smt/coqc.py", "run_coqc"),
    ("bounds/joint.py", "joint_search"),
    ("bounds/gap_worst.py", "worst_ratio"),
    ("proofs/joint_lemmas.py", "explore_witness"),
    ("proofs/joint_routes.py", "_certificate_problem"),
    ("proofs/joint_routes.py", "_joint_cap_check"),
    ("proofs/joint_routes.py", "_joint_route_check"),
}

_HEADER = re.compile(r"^[ \t]*Side conditions[^\n]*\n[ \t]*-{3,}[ \t]*\n", re.M)
_NEXT_SECTION = re.compile(r"\n[ \t]*\S[^\n]*\n[ \t]*-{3,}[ \t]*\n")
_ITEM = re.compile(r"^[ \t]*(\d+)\.[ \t]+``([a-z0-9-]+)``:", re.M)


def side_conditions(docstring: str) -> list[tuple[int, str]] | None:
    """``[(number, key), ...]`` of a docstring's Side conditions section; None without one."""
    header = _HEADER.search(docstring)
    if header is None:
        return None
    body = docstring[header.end():]
    end = _NEXT_SECTION.search(body)
    body = body[:end.start()] if end else body
    return [(int(n), key) for n, key in _ITEM.findall(body)]


def _sources() -> list[Path]:
    out = []
    for folder in PACKAGE_FOLDERS:
        base = ROOT / folder
        pattern = "*.py" if folder == "attnio" else "**/*.py"
        out += sorted(p for p in base.glob(pattern) if not p.is_symlink())
    return out


@functools.cache
def documented_checkers() -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(repository path, checker key) → its side conditions, for every docstring that has
    the section."""
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                key = f"{prefix}{child.name}".lower()
                conditions = side_conditions(ast.get_docstring(child) or "")
                if conditions is not None:
                    found[path, key] = conditions
                if isinstance(child, ast.ClassDef):
                    visit(child, path, f"{child.name}_")
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        visit(ast.parse(path.read_text(encoding="utf-8")), rel, "")
    return found


@functools.cache
def twin_tests() -> frozenset[str]:
    """Every ``test_twin__…`` function defined under tests/."""
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_twin__"):
                names.add(node.name)
    return frozenset(names)


def twin_name(checker: str, condition: str) -> str:
    return f"test_twin__{checker}__{condition.replace('-', '_')}"


def _must_list() -> set[tuple[str, str]]:
    must = set(MUST_LIST)
    for route in ROUTES.values():
        module = route.check.__module__.removeprefix("attnio.").replace(".", "/")
        must.add((f"{module}.py", route.check.__name__.lower()))
    for path in (ROOT / "graphs" / "lower_bounds").glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
                must.add((path.relative_to(ROOT).as_posix(), node.name.lower()))
    return must


@pytest.fixture(scope="module")
def documented() -> dict[tuple[str, str], list[tuple[int, str]]]:
    return documented_checkers()


def test_every_trusted_checker_lists_its_side_conditions(documented) -> None:
    missing = sorted(_must_list() - set(documented))
    assert missing == [], f"no numbered 'Side conditions' section: {missing}"


def test_every_list_is_numbered_with_distinct_keys(documented) -> None:
    for where, conditions in documented.items():
        assert conditions, f"{where}: an empty Side conditions section"
        assert [n for n, _ in conditions] == list(range(1, len(conditions) + 1)), where
        keys = [k for _, k in conditions]
        assert len(set(keys)) == len(keys), where


def test_every_side_condition_has_a_named_twin(documented) -> None:
    twins = twin_tests()
    missing = [f"{path}: {twin_name(checker, key)}" for (path, checker), conditions in
               sorted(documented.items()) for _, key in conditions
               if twin_name(checker, key) not in twins]
    assert missing == [], "\n".join(missing)


def test_every_twin_names_a_listed_condition(documented) -> None:
    """A twin named for a checker (``test_twin__<checker>__<condition>``) names one of its
    listed conditions. (Twins named ``test_twin__<id>`` — one part after the prefix — follow
    tests/smt/'s own convention for the ids in the smt modules' docstrings; not read here.)"""
    listed = {twin_name(checker, key) for (_, checker), conditions in documented.items()
              for _, key in conditions}
    checkers = [checker for _, checker in documented]
    assert len(set(checkers)) == len(checkers), "two checkers share a key"
    ours = {name for name in twin_tests() if len(name.split("__")) == 3}
    stray = sorted(ours - listed)
    assert stray == [], stray


# ---- the reader itself can fail -----------------------------------------------------------------

def test_the_reader_parses_a_section_and_stops_at_the_next() -> None:
    doc = ("Check.\n\nSide conditions\n---------------\n1. ``a-b``: one.\n2. ``c``: two,\n"
           "   continued.\n\nExamples\n--------\n3. ``not-this``: no.\n")
    assert side_conditions(doc) == [(1, "a-b"), (2, "c")]
    assert side_conditions("Check.\n\nParameters\n----------\n") is None
    assert twin_name("check_x", "a-b") == "test_twin__check_x__a_b"


def test_a_planted_condition_without_a_twin_is_caught() -> None:
    planted = {("graphs/x.py", "check_x"): [(1, "a-condition-nobody-plants")]}
    twins = twin_tests()
    assert [twin_name(c, k) for (_, c), conds in planted.items() for _, k in conds
            if twin_name(c, k) not in twins] == ["test_twin__check_x__a_condition_nobody_plants"]
