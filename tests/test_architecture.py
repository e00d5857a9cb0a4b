"""The floors of attnio (notes/extending.md, "The floors"), read from every import.

Every ``import`` / ``from … import`` of the package — module level *and* inside functions —
is resolved with :mod:`ast` and checked against the floor plan:

* no room imports a room above it or beside it (an *upward* import);
* no private name (``_x``) is imported from another module, in its room or another;
* at most :data:`MAX_IN_FUNCTION_CROSS_ROOM` imports of another room hide inside functions
  (a lazy import is a dependency the module list does not show);
* ``attnio bounds`` runs without importing z3 (its promise in :mod:`attnio.cli`);
* no *rendering* below the commands: the library rooms (smt … proofs) import none of the
  renderers of what a command prints — :mod:`attnio.tables` (``render_table``, number and
  LaTeX cells, ``fit_text``), :mod:`attnio.output` (``json_document``, the stdout channels)
  and the ``tabulate`` package. Rendering lives in ``attnio.reporting`` (the verdict table
  and verify's JSON: ``reporting/verdicts.py``; the per-level table: ``reporting/sections.py``)
  and ``attnio.commands``. Writing a data file (``json.dumps`` of a DAG or a certificate) is
  not rendering;
* the roof does not re-export the floor: a room's ``__init__`` imports only its own room;
* the route registry is complete: every registered lower-bound route has a checker with its
  side conditions, a description, a claim and a planted false twin (the full check, with
  each route run: ``tests/graphs/test_lower_bound_registry.py``).

A planted upward import and a planted private reach-in are caught by the same reader
(the false twins of this checker).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attnio"

#: room → the rooms it may import (besides itself). Bottom to top; "core" is attnio's root
#: modules (exceptions, results, validation, output, …), "commands" the console script.
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "smt": frozenset({"core"}),
    "symbolic": frozenset({"core", "smt"}),
    "graphs": frozenset({"core", "smt"}),
    "algorithms": frozenset({"core", "smt", "symbolic"}),
    "bounds": frozenset({"core", "smt", "symbolic", "graphs", "algorithms"}),
    "proofs": frozenset({"core", "smt", "symbolic", "graphs", "algorithms", "bounds"}),
    "reporting": frozenset({"core", "smt", "symbolic", "graphs", "algorithms", "bounds",
                            "proofs"}),
    "commands": frozenset({"core", "smt", "symbolic", "graphs", "algorithms", "bounds",
                           "proofs", "reporting"}),
}
ROOMS = tuple(ALLOWED)
SUBPACKAGES = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting",
               "commands")
MAX_IN_FUNCTION_CROSS_ROOM = 10


@dataclass(frozen=True)
class Import:
    module: str        # the importing module, dotted
    target: str        # the imported module, dotted
    names: tuple[str, ...]
    in_function: bool
    line: int

    @property
    def where(self) -> str:
        return f"{self.module}:{self.line}"


def room_of(module: str) -> str | None:
    """The room of a dotted attnio module; None outside attnio."""
    parts = module.split(".")
    if parts[0] != "attnio":
        return None
    if len(parts) > 1 and parts[1] in SUBPACKAGES:
        return parts[1]
    if len(parts) > 1 and parts[1] in ("cli", "__main__"):
        return "commands"
    return "core"


def module_files() -> dict[str, Path]:
    """Every module of the package, by dotted name (the subpackages are symlinked folders)."""
    found: dict[str, Path] = {}
    paths = [Path(folder, name) for folder, _, names in os.walk(PACKAGE, followlinks=True)
             for name in names if name.endswith(".py")]
    for path in sorted(paths):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = ["attnio", *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(module: str, source: str, *, is_package: bool = False) -> list[Import]:
    """Every attnio import of one module's source, with whether it sits inside a function."""
    tree = ast.parse(source)
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(sub) for sub in ast.walk(node) if sub is not node)
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "attnio":
                    found.append(Import(module, alias.name, (), id(node) in in_function,
                                        node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "attnio":
                continue
            found.append(Import(module, base, tuple(a.name for a in node.names),
                                id(node) in in_function, node.lineno))
    return found


def all_imports() -> list[Import]:
    files = module_files()
    return [imp for module, path in files.items()
            for imp in imports_of(module, path.read_text(encoding="utf-8"),
                                  is_package=path.name == "__init__.py")]


def upward(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        src, dst = room_of(imp.module), room_of(imp.target)
        if src and dst and dst != src and dst not in ALLOWED[src]:
            bad.append(f"{imp.where} ({src}) imports {imp.target} ({dst})")
    return bad


def private_crossings(imports: list[Import]) -> list[str]:
    """Every import of a private name (``_x``) from another module, of any room: a name two
    modules share is public in one home (issue 40)."""
    bad = []
    for imp in imports:
        if imp.module == imp.target:
            continue
        private = [n for n in imp.names if n.startswith("_") and not n.startswith("__")]
        if private or any(part.startswith("_") and not part.startswith("__")
                          for part in imp.target.split(".")):
            bad.append(f"{imp.where} imports {private or imp.target} from {imp.target}")
    return bad


#: The rooms that must not render: every room below reporting and the commands.
LIBRARY_ROOMS = frozenset({"smt", "symbolic", "graphs", "algorithms", "bounds", "proofs"})
#: The renderers of what a command prints (attnio's modules; ``tabulate`` is read separately).
RENDERERS = frozenset({"attnio.tables", "attnio.output"})


def rendering_below_commands(imports: list[Import]) -> list[str]:
    return [f"{imp.where} imports {imp.target}" for imp in imports
            if room_of(imp.module) in LIBRARY_ROOMS and imp.target in RENDERERS]


def tabulate_imports(module: str, source: str) -> list[str]:
    """The ``tabulate`` imports of one module (a third-party table renderer)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(name.split(".")[0] == "tabulate" for name in names):
            found.append(f"{module}:{node.lineno} imports tabulate")
    return found


def roof_reexports(imports: list[Import]) -> list[str]:
    """Imports of another room in a room's ``__init__`` (``attnio.<room>`` itself); the core
    modules (``attnio/*.py``: exceptions, the lazy re-export helper) are the building's
    infrastructure, not a floor below, and may be used there."""
    return [f"{imp.where} re-exports {imp.target}" for imp in imports
            if imp.module.count(".") == 1 and imp.module.split(".")[1] in SUBPACKAGES
            and room_of(imp.target) not in (room_of(imp.module), "core")]


def in_function_cross_room(imports: list[Import]) -> list[str]:
    return [f"{imp.where} imports {imp.target}" for imp in imports
            if imp.in_function and room_of(imp.module) != room_of(imp.target)]


# ------------------------------------------------------------------------------------------
# The floor plan, on the package
# ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def imports() -> list[Import]:
    found = all_imports()
    assert len(found) > 300, "the reader found too few imports to be reading the package"
    return found


def test_no_room_imports_upward(imports: list[Import]) -> None:
    assert upward(imports) == []


def test_no_private_name_crosses_modules(imports: list[Import]) -> None:
    assert private_crossings(imports) == []


def test_few_cross_room_imports_hide_in_functions(imports: list[Import]) -> None:
    hidden = in_function_cross_room(imports)
    assert len(hidden) <= MAX_IN_FUNCTION_CROSS_ROOM, "\n".join(hidden)


def test_no_rendering_below_the_commands(imports: list[Import]) -> None:
    assert rendering_below_commands(imports) == []
    files = module_files()
    assert [hit for module, path in files.items() if room_of(module) in LIBRARY_ROOMS
            for hit in tabulate_imports(module, path.read_text(encoding="utf-8"))] == []


def test_the_roof_does_not_reexport_the_floor(imports: list[Import]) -> None:
    assert roof_reexports(imports) == []


def test_the_route_registry_is_complete() -> None:
    from attnio.graphs.lower_bounds import ROUTES
    from attnio.proofs.certified_routes import CLAIMS, FALSE_TWINS, claim_id

    claims = {claim.id for claim in CLAIMS}
    twins = {twin.twin_of for twin in FALSE_TWINS}
    assert len(ROUTES) >= 7
    for name, route in ROUTES.items():
        assert callable(route.compute) and callable(route.check), name
        assert "Side conditions" in (route.check.__doc__ or ""), f"{name}: no side conditions"
        assert callable(route.describe), f"{name}: no description"
        assert route.source.strip(), f"{name}: no source"
        assert {claim_id(route), claim_id(route) + "_deep"} <= claims, f"{name}: no claim"
        assert claim_id(route) in twins, f"{name}: no planted false twin"


def test_every_module_has_a_room() -> None:
    for module in module_files():
        assert room_of(module) in ROOMS, module


def test_no_module_over_700_lines() -> None:
    long = {module: n for module, path in module_files().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 700}
    assert long == {}


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_bounds_does_not_import_z3() -> None:
    code = ("import sys\nfrom attnio.cli import main\n"
            "code = main(['bounds', '--n', '4096', '--d', '64', '--M', '2048'])\n"
            "assert code == 0, code\n"
            "print('z3' in sys.modules, 'cvc5' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False False"


# ------------------------------------------------------------------------------------------
# False twins: the reader catches what it must
# ------------------------------------------------------------------------------------------

def test_a_planted_upward_import_is_caught() -> None:
    planted = imports_of("attnio.smt.kernel", "def f():\n    from attnio.proofs.registry import Claim\n")
    assert upward(planted) == ["attnio.smt.kernel:2 (smt) imports attnio.proofs.registry (proofs)"]
    assert in_function_cross_room(planted) == ["attnio.smt.kernel:2 imports attnio.proofs.registry"]


def test_a_planted_sideways_import_is_caught() -> None:
    planted = imports_of("attnio.graphs.game", "import attnio.symbolic.catalogue\n")
    assert len(upward(planted)) == 1


def test_a_planted_private_reach_in_is_caught() -> None:
    planted = imports_of("attnio.proofs.sandwich",
                         "from attnio.graphs.exact import _solve, solve_optimal\n")
    assert private_crossings(planted) == [
        "attnio.proofs.sandwich:1 imports ['_solve'] from attnio.graphs.exact"]


def test_a_planted_private_reach_in_within_a_room_is_caught() -> None:
    planted = imports_of("attnio.smt.kernel", "from attnio.smt.statements import _show\n")
    assert private_crossings(planted) == [
        "attnio.smt.kernel:1 imports ['_show'] from attnio.smt.statements"]


def test_planted_rendering_and_reexport_are_caught() -> None:
    planted = imports_of("attnio.bounds.hierarchy", "from attnio.tables import render_table\n")
    assert rendering_below_commands(planted) == [
        "attnio.bounds.hierarchy:1 imports attnio.tables"]
    assert tabulate_imports("attnio.proofs.runner", "def f():\n    import tabulate\n") == [
        "attnio.proofs.runner:2 imports tabulate"]
    ok = imports_of("attnio.reporting.verdicts", "from attnio.tables import render_table\n")
    assert rendering_below_commands(ok) == []
    roof = imports_of("attnio.proofs", "from attnio.smt.kernel import prove_statement\n",
                      is_package=True)
    assert roof_reexports(roof) == ["attnio.proofs:1 re-exports attnio.smt.kernel"]
    own = imports_of("attnio.proofs", "from attnio.proofs.registry import Claim\n",
                     is_package=True)
    assert roof_reexports(own) == []


def test_relative_imports_are_resolved() -> None:
    planted = imports_of("attnio.smt.kernel", "from ..proofs import registry\n")
    assert [i.target for i in planted] == ["attnio.proofs"]
    assert len(upward(planted)) == 1


def test_a_downward_import_is_allowed() -> None:
    ok = imports_of("attnio.proofs.sandwich", "from attnio.smt.kernel import prove_statement\n")
    assert upward(ok) == [] and private_crossings(ok) == []
