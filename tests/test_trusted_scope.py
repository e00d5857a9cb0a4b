"""The mutation benchmark measures the whole trusted core: its ``TRUSTED`` list
(benchmarks/mutation.py) is checked against what the code says is trusted (issue 36), so the
list cannot drift when a checker is added.

Derived from the source with :mod:`ast`:

* every function or class whose docstring lists its ``Side conditions`` (a trusted checker,
  tests/test_side_conditions.py) — its module is in ``TRUSTED`` and one of the module's
  patterns covers it;
* every registered lower-bound route's checker (:data:`attnio.graphs.lower_bounds.ROUTES`);
* every ``Certified*`` class (what counts as a certified result), all its methods covered;
* every ``check_*`` function annotated to return a verdict (``Verdict`` / ``Proved`` /
  ``Refuted``) — in ``TRUSTED`` or, with a reason, in ``NOT_YET_MEASURED``.

And no pattern is stale: each matches a function of its module.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib.util
import sys
from pathlib import Path

import pytest

from attnio.graphs.lower_bounds import ROUTES

pytestmark = pytest.mark.trust

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting")
VERDICT_TYPES = ("Verdict", "Proved", "Refuted", "Undecided")


def _load_benchmark():
    name = "attnio_mutation_benchmark"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


BENCH = _load_benchmark()


@functools.cache
def _modules() -> dict[str, ast.Module]:
    return {p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for room in ROOMS for p in sorted((ROOT / room).rglob("*.py"))}


def functions(tree: ast.Module) -> list[str]:
    """The names mutmut gives a module's functions: ``name``, ``Class.method``."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node.name)
        elif isinstance(node, ast.ClassDef):
            out += [f"{node.name}.{m.name}" for m in node.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _covered(module: str, function: str) -> bool:
    return module in BENCH.TRUSTED and any(
        pattern == "*" or fnmatch.fnmatchcase(function, pattern)
        for pattern in BENCH.TRUSTED[module])


def _returns_verdict(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return node.returns is not None and any(t in ast.unparse(node.returns)
                                            for t in VERDICT_TYPES)


@functools.cache
def required() -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """``(must be in TRUSTED, must be in TRUSTED or NOT_YET_MEASURED)``: (module, function)."""
    must, checkers = set(), set()
    for module, tree in _modules().items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                methods = [m for m in node.body if isinstance(m, (ast.FunctionDef,
                                                                  ast.AsyncFunctionDef))]
                if node.name.startswith("Certified") or "Side conditions" in (
                        ast.get_docstring(node) or ""):
                    must |= {(module, f"{node.name}.{m.name}") for m in methods}
                must |= {(module, f"{node.name}.{m.name}") for m in methods
                         if "Side conditions" in (ast.get_docstring(m) or "")}
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if "Side conditions" in (ast.get_docstring(node) or ""):
                    must.add((module, node.name))
                if node.name.startswith("check_") and _returns_verdict(node):
                    checkers.add((module, node.name))
    for route in ROUTES.values():
        module = route.check.__module__.removeprefix("attnio.").replace(".", "/") + ".py"
        must.add((module, route.check.__name__))
    return must, checkers


def test_every_trusted_checker_is_measured() -> None:
    must, _ = required()
    assert len(must) >= 20, "the reader found too few trusted checkers to be reading the code"
    missing = sorted(f"{m}: {f}" for m, f in must if not _covered(m, f))
    assert missing == [], "not in benchmarks/mutation.py TRUSTED:\n" + "\n".join(missing)


def test_every_checker_is_measured_or_listed_with_a_reason() -> None:
    _, checkers = required()
    loose = sorted(f"{m}: {f}" for m, f in checkers
                   if not _covered(m, f) and m not in BENCH.NOT_YET_MEASURED)
    assert loose == [], ("a check_* returning a verdict is neither in TRUSTED nor in "
                         "NOT_YET_MEASURED:\n" + "\n".join(loose))
    for module, reason in BENCH.NOT_YET_MEASURED.items():
        assert module not in BENCH.TRUSTED and len(reason) > 20, module


def test_no_pattern_is_stale() -> None:
    trees = _modules()
    stale = []
    for module, patterns in BENCH.TRUSTED.items():
        assert module in trees, f"{module} is listed but does not exist"
        names = functions(trees[module])
        stale += [f"{module}: {p}" for p in patterns
                  if p != "*" and not any(fnmatch.fnmatchcase(n, p) for n in names)]
    for module in BENCH.NOT_YET_MEASURED:
        assert module in trees, f"{module} is listed but does not exist"
    assert stale == [], stale


def test_the_issue_36_modules_are_measured() -> None:
    """The modules issue 36 found outside the list: the lower-bound checkers, CertifiedRoute,
    algorithm_counts, mask_bounds, the validator."""
    for module, function in [("graphs/lower_bounds/covering.py", "check_covering_lp"),
                             ("graphs/lower_bounds/subdag.py", "check_subdag"),
                             ("graphs/lower_bounds/counting.py", "check_compulsory"),
                             ("graphs/lower_bounds/combined.py", "CertifiedRoute.certified"),
                             ("proofs/algorithm_counts.py", "_le"),
                             ("proofs/mask_bounds.py", "_below_algorithms"),
                             ("graphs/game.py", "replay")]:
        assert _covered(module, function), (module, function)


def test_a_planted_unlisted_checker_is_caught() -> None:
    tree = ast.parse("def check_new(G) -> Verdict:\n    return Proved()\n")
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef) and _returns_verdict(node)
    assert not _covered("graphs/new_checker.py", "check_new")
    assert functions(ast.parse("class A:\n    def f(self): pass\ndef g(): pass\n")) == [
        "A.f", "g"]
