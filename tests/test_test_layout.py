"""The tests mirror the house (issue 40, item 3): every source module has a test module.

The rule, read from the tree:

* a module of a room, ``attnio/<room>/<path>/<module>.py``, has ``tests/<room>/<path>/
  test_<module>.py`` or ``tests/<room>/test_<module>.py`` (a subpackage's ``__init__.py`` counts
  as a module named after the subpackage: ``graphs/lower_bounds/__init__.py`` →
  ``tests/graphs/test_lower_bounds.py``); a room's own ``__init__.py`` only re-exports;
* a core module ``attnio/<module>.py`` has ``tests/test_<module>.py`` (the core's tests stay at
  the top of ``tests/``); ``attnio/cli.py`` and ``attnio/__main__.py`` are the commands' room,
  so theirs sit in ``tests/commands/``; each command ``attnio/commands/<command>.py`` has its
  command-line tests in ``tests/commands/test_<command>.py``;
* otherwise the module is listed in :data:`COVERED_ELSEWHERE` with the test file that covers it
  and why there (that file names the module, or the reason says "through" what it is reached). A listed file must exist, and a listed module must still lack its mirrored
  test (so the list shrinks as tests move, and cannot go stale).

A planted module without a test is caught by the same reader (the false twin).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attnio"
TESTS = ROOT / "tests"
ROOMS = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting", "commands")
COMMANDS_AT_CORE = ("cli", "__main__")

_LB = "tests/graphs/test_lower_bound_"
#: source module (relative to attnio/) → (the test file that covers it, why it is there)
COVERED_ELSEWHERE: dict[str, tuple[str, str]] = {
    "__main__.py": ("tests/test_extras.py", "`python -m attnio` is run by the extras' tests"),
    "flags.py": ("tests/test_flag_grammar.py", "the shared flag grammar, across commands"),
    "output.py": ("tests/test_output_channels.py", "named after what it checks: the channels"),
    "provenance.py": ("tests/reporting/test_report_html.py", "read where the report shows it"),
    "smt/solvers.py": ("tests/smt/test_isolation.py", "cvc5 runs in the isolated worker"),
    "smt/second_solver.py": ("tests/smt/test_isolation.py", "the second opinion is isolated"),
    "smt/statements.py": ("tests/smt/test_side_conditions.py", "declared domains, per rule"),
    "smt/explog_terms.py": ("tests/smt/test_explog.py", "through the exp/log rules it builds"),
    "smt/coq_statements.py": ("tests/smt/test_coq.py", "the Coq printer's statements"),
    "smt/coq_proofs.py": ("tests/smt/test_coq.py", "the Coq printer's proof scripts"),
    "graphs/lower_bounds/combined.py": ("tests/graphs/test_lower_bounds.py",
                                        "the package's runner, through the lower_bounds API"),
    "smt/coqc.py": ("tests/smt/test_coq.py", "the coqc runner (fixture: tests/conftest.py)"),
    "graphs/exact_kernel.py": ("tests/graphs/test_exact_compiled.py", "an exact engine's core"),
    "graphs/exact_kernel_words.py": ("tests/graphs/test_exact_compiled.py",
                                     "through the compiled engine (its word-packed core)"),
    "graphs/exact_heuristic.py": ("tests/graphs/test_exact.py", "through the exact solver"),
    "graphs/exact_state.py": ("tests/graphs/test_exact.py", "the exact search's states"),
    "graphs/indexed_dag.py": ("tests/graphs/test_exact_moves.py", "the engines' DAG form"),
    "graphs/pebble_result.py": ("tests/graphs/test_engines.py", "every engine's result"),
    "graphs/proof_files.py": ("tests/graphs/test_exact_sat.py", "the SAT engine's proofs"),
    "graphs/partitions/definitions.py": ("tests/graphs/test_partitions.py", "the package's"),
    "graphs/partitions/search.py": ("tests/graphs/test_partitions.py", "through the package"),
    "graphs/lower_bounds/counting.py": (_LB + "twins.py", "planted twins of every route"),
    "graphs/lower_bounds/covering.py": (_LB + "covering.py", "one module per route topic"),
    "graphs/lower_bounds/deadline.py": (_LB + "bounded.py", "every phase is bounded"),
    "graphs/lower_bounds/explicit.py": ("tests/proofs/test_explicit_bounds.py",
                                        "checked with its claims"),
    "graphs/lower_bounds/parts.py": ("tests/proofs/test_partition_lemmas.py",
                                     "checked with its claims"),
    "graphs/lower_bounds/records.py": (_LB + "registry.py", "the Route record"),
    "graphs/lower_bounds/registry.py": (_LB + "registry.py", "the route registry"),
    "graphs/lower_bounds/saturation.py": (_LB + "twins.py", "planted twins of every route"),
    "graphs/lower_bounds/subdag.py": (_LB + "twins.py", "planted twins of every route"),
    "graphs/lower_bounds/windows.py": (_LB + "twins.py", "planted twins of every route"),
    "algorithms/instance.py": ("tests/commands/test_instance_agreement.py",
                               "one instance, every command agrees"),
    "algorithms/advisor.py": ("tests/symbolic/test_advisor.py", "with the devices it reads"),
    "bounds/attention.py": ("tests/proofs/test_attention_routes.py", "checked with its claims"),
    "bounds/cells.py": ("tests/proofs/test_route_ranges.py", "the routes' cell counts"),
    "bounds/heads.py": ("tests/proofs/test_stacked_heads.py", "checked with its claims"),
    "bounds/hierarchy.py": ("tests/algorithms/test_hierarchy.py", "beside the algorithms'"),
    "bounds/instance_bounds.py": ("tests/bounds/test_gap_worst.py", "the gap's instances"),
    "bounds/joint.py": ("tests/proofs/test_joint_routes.py", "checked with its claims"),
    "bounds/masks.py": ("tests/proofs/test_mask_bounds.py", "checked with its claims"),
    "bounds/sandwich_points.py": ("tests/test_sandwich_property.py", "the sandwich property"),
    "proofs/backward_branches.py": ("tests/proofs/test_claim_modules.py", "claim lists"),
    "proofs/forward_branches.py": ("tests/proofs/test_claim_modules.py", "claim lists"),
    "proofs/sparse_branches.py": ("tests/proofs/test_claim_modules.py", "claim lists"),
    "proofs/explog_axioms.py": ("tests/smt/test_explog.py", "through the rules it axiomatises"),
    "proofs/coq_capture.py": ("tests/proofs/test_coq_kernel.py", "captures for the kernel"),
    "reporting/gap_figure.py": ("tests/reporting/test_figure_quality.py", "every figure"),
    "reporting/sparse_measure.py": ("tests/reporting/test_figure_quality.py", "every figure"),
    "reporting/tightness.py": ("tests/reporting/test_figure_quality.py", "every figure"),
    "reporting/outdir.py": ("tests/reporting/test_report_runs.py", "the report's folder"),
    "reporting/report_figures.py": ("tests/reporting/test_report_runs.py", "the report's"),
    "commands/advise.py": ("tests/commands/test_instance_agreement.py",
                           "advise answers the shared instance"),
    "commands/explain.py": ("tests/test_glossary.py", "explain prints the glossary"),
    "commands/instance_flags.py": ("tests/commands/test_instance_agreement.py",
                                   "the instance flags every command shares"),
    "commands/instance_tables.py": ("tests/commands/test_instance_agreement.py",
                                    "the instance tables every command shares"),
    "commands/report.py": ("tests/reporting/test_report.py", "beside the report it writes"),
}


def source_modules(package: Path = PACKAGE) -> list[str]:
    """Every module of the package, as a path relative to ``attnio/`` (rooms are symlinks)."""
    found = []
    for here, dirs, files in os.walk(package, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith(".py"):
                found.append(Path(here, name).relative_to(package).as_posix())
    return sorted(found)


def mirrored_tests(module: str) -> list[str] | None:
    """The test files that would mirror ``module`` (relative to attnio/); None: needs none."""
    parts = module.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
        if len(parts) <= 1:   # the package's or a room's __init__: re-exports only
            return None
    if len(parts) == 1:
        folder = "tests/commands" if parts[0] in COMMANDS_AT_CORE else "tests"
        return [f"{folder}/test_{parts[0]}.py"]
    room, *middle, name = parts
    deep = "/".join(["tests", room, *middle, f"test_{name}.py"])
    flat = f"tests/{room}/test_{name}.py"
    return [deep] if deep == flat else [deep, flat]


def untested(modules: list[str], exists=lambda rel: (ROOT / rel).is_file()) -> list[str]:
    """The modules with neither a mirrored test module nor a COVERED_ELSEWHERE row."""
    bad = []
    for module in modules:
        wanted = mirrored_tests(module)
        if wanted is None or any(exists(rel) for rel in wanted):
            continue
        if module not in COVERED_ELSEWHERE:
            bad.append(f"attnio/{module}: no {' or '.join(wanted)} (or a COVERED_ELSEWHERE row)")
    return bad


def test_every_room_has_its_test_folder() -> None:
    assert [room for room in ROOMS if not (TESTS / room).is_dir()] == []


def test_every_source_module_has_a_test_module() -> None:
    modules = source_modules()
    assert len(modules) > 150, "the reader found too few modules to be reading the package"
    assert untested(modules) == []


def test_each_command_has_its_cli_test_module() -> None:
    commands = [m for m in source_modules() if m.startswith("commands/")
                and not m.endswith("__init__.py")]
    missing = [m for m in commands if not (TESTS / "commands" / f"test_{Path(m).name}").is_file()
               and m not in COVERED_ELSEWHERE]
    assert missing == []


def test_no_cli_test_module_outside_tests_commands() -> None:
    assert sorted(str(p.relative_to(ROOT)) for p in TESTS.rglob("test_cli.py")) == [
        "tests/commands/test_cli.py"]


@pytest.mark.parametrize("module", sorted(COVERED_ELSEWHERE))
def test_covered_elsewhere_is_true_and_current(module: str) -> None:
    test_file, reason = COVERED_ELSEWHERE[module]
    assert (PACKAGE / module).is_file(), f"attnio/{module} is gone: drop its row"
    assert (ROOT / test_file).is_file(), f"{test_file} does not exist"
    assert reason.strip()
    wanted = mirrored_tests(module) or []
    assert not any((ROOT / rel).is_file() for rel in wanted), (
        f"attnio/{module} now has {wanted}: drop its COVERED_ELSEWHERE row")
    dotted = "attnio." + module.removesuffix(".py").replace("/", ".")
    text = (ROOT / test_file).read_text(encoding="utf-8")
    reached = dotted in text or module.rsplit("/", 1)[-1].removesuffix(".py") in text
    assert reached or reason.startswith("through ") or "commands/" in module \
        or module == "__main__.py", f"{test_file} never names {dotted} (say 'through …')"


# False twins: a planted module without a test is caught; its mirror is found in either place

def test_a_planted_untested_module_is_caught() -> None:
    assert untested(["graphs/brand_new.py", "bounds/attention.py"], exists=lambda _: False) == [
        "attnio/graphs/brand_new.py: no tests/graphs/test_brand_new.py "
        "(or a COVERED_ELSEWHERE row)"]


def test_mirrors_are_read_from_the_tree() -> None:
    assert mirrored_tests("graphs/lower_bounds/covering.py") == [
        "tests/graphs/lower_bounds/test_covering.py", "tests/graphs/test_covering.py"]
    assert mirrored_tests("graphs/lower_bounds/__init__.py") == [
        "tests/graphs/test_lower_bounds.py"]
    assert mirrored_tests("cli.py") == ["tests/commands/test_cli.py"]
    assert mirrored_tests("safe_io.py") == ["tests/test_safe_io.py"]
    assert mirrored_tests("smt/__init__.py") is None


@pytest.mark.slow  # collects ten test files in a subprocess (~10 s)
def test_every_heavy_case_the_conftest_moves_to_the_slow_tier_still_exists() -> None:
    """tests/conftest.py's ``HEAVY_CASES`` names single cases by id; a renamed case would
    silently return to the default tier. Each listed id must be collected (a stale entry is
    named), and the planted false twin — an id that does not exist — must be reported."""
    import ast
    import subprocess
    import sys

    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    listed = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                  and getattr(node.target, "id", "") == "HEAVY_CASES")
    HEAVY_CASES = frozenset(ast.literal_eval(listed.args[0]))  # frozenset({...})
    assert len(HEAVY_CASES) >= 10
    files = sorted({case.split("::")[0] for case in HEAVY_CASES})
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
         "-p", "no:cacheprovider", "--runslow", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=600).stdout
    collected = {line.strip() for line in listing.splitlines() if "::" in line}

    def stale(cases: frozenset[str]) -> list[str]:
        return sorted(case for case in cases if case not in collected)

    assert stale(HEAVY_CASES) == [], "HEAVY_CASES names cases that no longer exist"
    twin = "tests/test_glossary.py::test_every_printed_column_is_in_the_glossary[no-such]"
    assert stale(HEAVY_CASES | {twin}) == [twin]
