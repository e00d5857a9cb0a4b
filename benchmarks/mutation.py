r"""Mutation score of attnio's trusted core against its ``trust`` test tier (mutmut 3).

A checker that no test can make fail is a defect (notes/claims.md, "The checkers are
checked"). This script measures it: mutmut (https://github.com/boxed/mutmut) makes every
one-line mutant of the trusted functions — an operator swapped, a constant moved by one, a
condition negated, an argument dropped, a string changed — and runs ``pytest -m trust`` against
each; a mutant the tier does not fail *survived*.

.. code-block:: console

    $ python3 benchmarks/mutation.py                      # every trusted module (~1 h, 2 cores)
    $ python3 benchmarks/mutation.py --module smt/kernel.py --jobs 2
    $ python3 benchmarks/mutation.py --survivors          # print each surviving mutant's diff

What it prints: per module the mutants made, killed (a test failed, or the mutant hung past
mutmut's timeout), survived, *equivalent* (listed in :data:`EQUIVALENTS_DIR` with a one-line
reason each: no input can tell them apart from the original), and the score

.. math:: \text{score} = \frac{\text{killed}}{\text{mutants} - \text{equivalent}},

then the overall score, and the equivalent mutants with their reasons. Exit status 0 when the
overall score is at least ``--target`` (90 %), 1 otherwise. A mutant with no trust test
reaching it counts as survived.

How it runs (nothing in the checkout is touched): the tracked and untracked-but-not-ignored
files are copied to a scratch directory; the ``attnio/<room>`` symlinks are replaced by copies
of the rooms, because mutmut mutates the files under ``source_paths`` and imports them from its
``mutants/`` copy; a ``[tool.mutmut]`` section naming the trusted modules and the ``trust``
marker is appended to the scratch ``pyproject.toml``; ``mutmut run`` runs there, restricted to
the trusted functions (:data:`TRUSTED`); the results are read from mutmut's ``.meta`` files
and each mutant's diff is recomputed from the mutated source (``ast``), so that the
equivalent-mutant list is keyed by *what changed*, not by mutmut's mutant numbers (which shift
whenever a function is edited).

Not part of CI's timed path: a benchmark, run after changing the trusted core.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import fnmatch
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The equivalent mutants, one TOML file per trusted module (``proofs_kernel.toml`` for
#: ``smt/kernel.py``): ``[[equivalent]]`` tables with ``module``, ``function``, ``diff`` (the
#: changed lines, ``-old`` / ``+new``, stripped, as ``--survivors`` prints them) and ``reason``.
EQUIVALENTS_DIR = ROOT / "benchmarks" / "mutation_equivalents"
ROOMS = ("smt", "symbolic", "graphs", "algorithms", "bounds", "proofs", "reporting")

#: The trusted core: module (repository path) → fnmatch patterns of the functions whose
#: mutants count ("*": every function; methods are ``Class.method``). What is *not* listed
#: (plotting, tables, CLI glue) is not trusted code: a wrong figure is caught by a user's eye,
#: a wrong verdict is not. ``tests/test_trusted_scope.py`` derives the modules that must be
#: here from the code (every checker that lists its side conditions, every registered
#: lower-bound route's checker, every ``Certified*`` class), so the list cannot drift.
TRUSTED: dict[str, tuple[str, ...]] = {
    "smt/kernel.py": ("*",),
    # split off the kernel in issue 23: parsing and declared domains, and the cvc5 re-check
    "smt/statements.py": ("*",),
    "smt/solvers.py": ("*",),
    "smt/sympy_to_z3.py": ("*",),
    "smt/exact_eval.py": ("*",),
    "smt/definedness.py": ("*",),
    "smt/term_limits.py": ("*",),
    "smt/second_solver.py": ("*",),
    "smt/isolation.py": ("*",),
    "smt/z3tools.py": ("*",),
    "graphs/game.py": ("*",),
    "graphs/zero_waste.py": ("*",),
    "graphs/anytime.py": ("*",),
    # the certificate checkers of the lower-bound routes, what they decide with, the dispatch
    # and what counts as a certified bound (issue 36)
    "graphs/lower_bounds/combined.py": ("check_certificate", "certified_lower_bound",
                                        "best_bound", "CertifiedRoute.*"),
    "graphs/lower_bounds/records.py": ("must_compute", "vertices_to_compute", "Route.*"),
    "graphs/lower_bounds/registry.py": ("*",),
    "graphs/lower_bounds/counting.py": ("check_*", "builtin_structure", "_confirm_rebuild",
                                        "_per_part_parameters", "partition_route_value"),
    "graphs/lower_bounds/windows.py": ("check_spill_windows", "verify_forced",
                                       "independent_window_min"),
    "graphs/lower_bounds/saturation.py": ("check_saturation", "_independent_saturation_min",
                                          "_saturation_model"),
    "graphs/lower_bounds/subdag.py": ("check_subdag", "resolve_for_checker", "ancestor_subdag",
                                      "_closure"),
    "graphs/lower_bounds/covering.py": ("check_covering_lp",),
    # the route claims' checker (issue 20 split _route_check: route_verdict decides, its
    # questions are RouteOracles slots; _route_cases / _route_records feed it the real inputs;
    # issue 40: one claim per registered route)
    "proofs/certified_routes.py": ("route_verdict", "_route_check", "_route_cases",
                                     "_route_records", "_optimum", "route_cases",
                                     "route_claims", "claim_id"),
    # the envelope and comparison claims of the executed algorithms (issue 36)
    "proofs/algorithm_counts.py": ("_le", "Envelope.*", "Comparison.*", "form_parts",
                                   "_count"),
    # the attention routes at real sizes and their claim checkers (issue 11; split in issue 23)
    "bounds/attention.py": ("*",),
    "proofs/attention_routes.py": ("*",),
    # the per-mask and stacked-head lower bounds and their claim checkers (issue 21)
    "bounds/masks.py": ("*",),
    "proofs/mask_bounds.py": ("*",),
    "bounds/heads.py": ("*",),
    "proofs/stacked_heads.py": ("*",),
    # the chain checker every stepped claim goes through (issue 20)
    "smt/chains.py": ("*",),
    "algorithms/masks.py": ("_positive", "parse_mask", "_read_pattern", "Mask.*"),
    # exp/log by axioms, the identity route, the obvious counterexample points (issue 38)
    "smt/explog.py": ("*",),
    "smt/explog_terms.py": ("*",),
    "smt/identities.py": ("*",),
    "smt/obvious_points.py": ("*",),
    # the second kernel: the Coq printer, statements and the judge's rule (issue 39)
    "smt/coq.py": ("*",),
    "smt/coq_statements.py": ("*",),
    "smt/coqc.py": ("*",),
    # the joint routes and their claim checkers; the exact worst's interval bounds (issue 35)
    "bounds/joint.py": ("*",),
    "proofs/joint_lemmas.py": ("*",),
    "proofs/joint_routes.py": ("*",),
    "bounds/gap_worst.py": ("*",),
}

#: Modules that define a checker (a ``check_*`` function returning a verdict) but are not yet
#: measured, each with the reason; tests/test_trusted_scope.py fails on a checker module that
#: is in neither this list nor :data:`TRUSTED`.
NOT_YET_MEASURED: dict[str, str] = {
    "symbolic/crossovers.py": "catalogue crossovers (check_crossover, check_branch_minimum): "
                              "claim checkers outside issue 36's scope, not yet measured",
    "symbolic/dominance.py": "check_sign of catalogue bounds: a claim checker outside issue "
                             "36's scope, not yet measured",
    "symbolic/checks.py": "check_catalogue_identity (sympy identities of the catalogue): "
                          "outside issue 36's scope, not yet measured",
    "proofs/partition_lemmas.py": "check_part_bound / check_extra_trees (z3 partition "
                                  "lemmas): outside issue 36's scope, not yet measured",
    "proofs/sandwich.py": "check_sandwich / check_bracket (lower ≤ Q ≤ upper on the sandwich "
                          "table): outside issue 36's scope, not yet measured",
    "reporting/figure_quality.py": "check_figure decides a figure's layout, not a claim or a "
                                   "certificate: not trusted code",
}


@dataclass
class Mutant:
    """One mutant: its mutmut name, module, function, status and diff."""

    name: str
    module: str
    function: str
    status: str
    diff: str = ""
    reason: str | None = None     # set when listed as equivalent


@dataclass
class ModuleScore:
    module: str
    mutants: list[Mutant] = field(default_factory=list)
    #: ``(function, diff)`` of the module's mutants left out of a ``--sample`` (an equivalent
    #: entry matching one of them is not stale: its mutant was just not drawn this time).
    unsampled: set[tuple[str, str]] = field(default_factory=set)

    def count(self, status: str) -> int:
        return sum(m.status == status for m in self.mutants)

    @property
    def equivalent(self) -> int:
        return sum(m.reason is not None for m in self.mutants)

    @property
    def killed(self) -> int:
        return sum(m.status in DETECTED and m.reason is None for m in self.mutants)

    @property
    def counted(self) -> int:
        return len(self.mutants) - self.equivalent

    @property
    def score(self) -> float:
        return self.killed / self.counted if self.counted else 1.0


_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
           34: "skipped", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout",
           255: "timeout", -9: "timeout", -11: "crashed", -6: "crashed", None: "not checked"}
#: A mutant that made the test run fail in any way (a test failed, the run crashed — SIGSEGV,
#: SIGABRT —, or it ran past mutmut's CPU limit and was killed — SIGXCPU, SIGKILL) is detected.
DETECTED = ("killed", "timeout", "crashed")


def _dotted(module: str) -> str:
    """``smt/kernel.py`` → ``attnio.smt.kernel`` (``__init__`` dropped)."""
    parts = Path(module).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("attnio", *parts))


def _function_of(mutant_name: str, module: str) -> str:
    """mutmut's ``attnio.smt.kernel.x__referee__mutmut_3`` → ``_referee``; methods
    (``xǁTranslatorǁ_arith__mutmut_1``) → ``Translator._arith``."""
    local = mutant_name[len(_dotted(module)) + 1:].rsplit("__mutmut_", 1)[0]
    if local.startswith("xǁ"):
        return ".".join(local[2:].split("ǁ"))
    return local[2:] if local.startswith("x_") else local


def _trusted(function: str, module: str) -> bool:
    """Is ``function`` (``name`` or ``Class.method``) in the module's trusted scope? ``"*"``
    takes every function and method."""
    return any(pat == "*" or fnmatch.fnmatchcase(function, pat) for pat in TRUSTED[module])


def prepare_scratch(scratch: Path, modules: list[str], jobs: int) -> None:
    """Copy the checkout into ``scratch`` with the rooms as real folders and mutmut configured."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                           cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if rel.startswith("attnio/") and rel.split("/")[1] in ROOMS and src.is_symlink():
            continue
        if not src.exists() or src.is_dir():
            continue
        dest = scratch / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest, follow_symlinks=False)
    for room in ROOMS:
        link = scratch / "attnio" / room
        if link.is_symlink() or link.exists():
            link.unlink()
        shutil.copytree(scratch / room, link)
    config = {
        "source_paths": ["attnio"],
        "only_mutate": [f"attnio/{m}" for m in modules],
        # the trust tier only; no doctests, no cache, quiet
        "pytest_add_cli_args": ["-m", "trust", "-p", "no:cacheprovider", "-q", "-x",
                                "-o", "addopts=--import-mode=importlib"],
        "pytest_add_cli_args_test_selection": ["tests"],
        # everything else the tests read (README, notes, notebooks, ...)
        "also_copy": sorted(p.name for p in scratch.iterdir() if p.name not in ("attnio", "tests")),
        "use_git_change_detection": False,
    }
    lines = ["", "[tool.mutmut]"]
    for key, value in config.items():
        lines.append(f"{key} = {json.dumps(value)}")
    with open(scratch / "pyproject.toml", "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


_LIST_MUTANTS = """
import json, sys
from mutmut.mutation.file_mutation import mutate_file_contents
out = {}
for rel in sys.argv[1:]:
    path = "attnio/" + rel
    with open(path, encoding="utf-8") as fh:
        out[rel] = mutate_file_contents(path, fh.read()).mutant_names
print(json.dumps(out))
"""


def list_mutants(scratch: Path, modules: list[str]) -> dict[str, list[str]]:
    """Every trusted mutant's full mutmut name per module, without running anything (mutmut's
    own generator, run in the configured scratch directory)."""
    done = subprocess.run([sys.executable, "-c", _LIST_MUTANTS, *modules], cwd=scratch,
                          check=True, capture_output=True, text=True)
    local = json.loads(done.stdout)
    out: dict[str, list[str]] = {}
    for module in modules:
        prefix = _dotted(module) + "."
        names = [prefix + name for name in local[module]]
        out[module] = sorted(n for n in names if _trusted(_function_of(n, module), module))
    return out


def sample_mutants(names: dict[str, list[str]], per_module: int, seed: int
                   ) -> dict[str, list[str]]:
    """A seeded uniform sample of at most ``per_module`` mutants of each module (all of a
    module that has fewer); each module's sample depends only on the seed and the module, so
    a run of some modules draws the same mutants as a run of all."""
    return {module: sorted(random.Random(f"{seed}:{module}").sample(all_, min(per_module,
                                                                               len(all_))))
            for module, all_ in names.items()}


def wilson_interval(killed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (the score estimated from a sample)."""
    if total == 0:
        return 0.0, 1.0
    p = killed / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def _function_sources(path: Path) -> dict[str, str]:
    """Source of every mutated or original function (and method) of a mutmut-generated file,
    by line numbers (``ast.get_source_segment`` rescans the file per call: minutes on a large
    module)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in node.name:
            out[node.name] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return out


def _diff(original: str, mutated: str) -> str:
    """The changed lines, ``-old`` then ``+new``, stripped (the key of the equivalent list)."""
    a = [line.strip() for line in original.splitlines()[1:]]   # drop the def line (names differ)
    b = [line.strip() for line in mutated.splitlines()[1:]]
    out = [line for line in difflib.unified_diff(a, b, lineterm="", n=0)
           if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return "\n".join(out)


def read_results(scratch: Path, modules: list[str],
                 only: dict[str, list[str]] | None = None) -> list[ModuleScore]:
    """Each module's trusted mutants with status and diff, from mutmut's files (``only``: the
    sampled names of each module)."""
    scores = []
    for module in modules:
        mutated = scratch / "mutants" / "attnio" / module
        meta = Path(str(mutated) + ".meta")
        score = ModuleScore(module)
        if not meta.exists():
            scores.append(score)
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        sources = _function_sources(mutated)
        for name, code in sorted(codes.items()):
            function = _function_of(name, module)
            if not _trusted(function, module):
                continue
            local = name.rsplit(".", 1)[1]
            orig = sources.get(local.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", "")
            if only is not None and name not in set(only.get(module, ())):
                score.unsampled.add((function, _diff(orig, sources.get(local, "")).strip()))
                continue
            score.mutants.append(Mutant(name, module, function, _STATUS.get(code, "suspicious"),
                                        _diff(orig, sources.get(local, ""))))
        scores.append(score)
    return scores


def scores_from_json(paths: list[Path]) -> list[ModuleScore]:
    """The modules of earlier ``--json`` reports; a module in several files: the last wins.
    Statuses and diffs are read back; equivalence is decided again from today's lists."""
    by_module: dict[str, ModuleScore] = {}
    for path in paths:
        rows = json.loads(path.read_text(encoding="utf-8"))["mutants"]
        fresh: dict[str, ModuleScore] = {}
        for row in rows:
            score = fresh.setdefault(row["module"], ModuleScore(row["module"]))
            score.mutants.append(Mutant(row["name"], row["module"], row["function"],
                                        row["status"], row["diff"]))
        for row in json.loads(path.read_text(encoding="utf-8")).get("unsampled", []):
            if row["module"] in fresh:
                fresh[row["module"]].unsampled.add((row["function"], row["diff"].strip()))
        by_module.update(fresh)
    return list(by_module.values())


def load_equivalents(folder: Path = EQUIVALENTS_DIR) -> list[dict[str, str]]:
    """Every ``[[equivalent]]`` entry of the folder's TOML files."""
    out: list[dict[str, str]] = []
    for path in sorted(folder.glob("*.toml")):
        with open(path, "rb") as fh:
            out += tomllib.load(fh).get("equivalent", [])
    return out


def mark_equivalents(scores: list[ModuleScore], equivalents: list[dict[str, str]]) -> list[dict]:
    """Attach reasons to the listed mutants; return the list entries (of the modules that
    ran) that matched nothing: killed by a test (so not equivalent: ``entry["why"]`` says
    "killed"), or matching no mutant of the module at all (stale after an edit: "stale"). An
    entry whose mutant was only left out of a ``--sample`` is neither."""
    unmatched = []
    ran = {score.module for score in scores}
    for entry in equivalents:
        if entry["module"] not in ran:
            continue
        hit = killed = unsampled = False
        key = (entry["function"], entry["diff"].strip())
        for score in scores:
            if score.module != entry["module"]:
                continue
            unsampled = unsampled or key in score.unsampled
            for m in score.mutants:
                if m.function == entry["function"] and m.diff.strip() == entry["diff"].strip():
                    if m.status in DETECTED:
                        killed = True
                        continue   # listed as equivalent but a test kills it: not equivalent
                    m.reason = entry["reason"]
                    hit = True
        if killed and not hit:
            unmatched.append({**entry, "why": "killed"})
        elif not hit and not unsampled:
            unmatched.append({**entry, "why": "stale"})
    return unmatched


def _globs(modules: list[str]) -> list[str]:
    out = []
    for module in modules:
        for pattern in TRUSTED[module]:
            if "." in pattern:
                cls, meth = pattern.split(".", 1)
                out.append(f"{_dotted(module)}.xǁ{cls}ǁ{meth}__mutmut_*")
            else:
                out.append(f"{_dotted(module)}.x_{pattern}__mutmut_*")
                if pattern == "*":      # every function includes the methods of classes
                    out.append(f"{_dotted(module)}.xǁ*__mutmut_*")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", action="append", choices=sorted(TRUSTED),
                        help="a trusted module (repeatable; default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="mutmut worker processes (default: the cores)")
    parser.add_argument("--target", type=float, default=0.90, help="overall score to pass")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument("--keep", metavar="DIR", help="run in DIR (kept) instead of a temp dir")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: read the results already in DIR, run nothing")
    parser.add_argument("--json", metavar="FILE", help="write every mutant's status and diff")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="run a seeded uniform sample of N mutants per module (the score "
                             "is then an estimate, printed with its 95 %% interval)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--from-json", metavar="FILE", action="append",
                        help="report from the --json files of earlier runs (repeatable: runs "
                             "of different modules add up to one overall score), run nothing")
    args = parser.parse_args(argv)
    if args.from_json:
        scores = scores_from_json([Path(f) for f in args.from_json])
        unmatched = mark_equivalents(scores, load_equivalents())
        return report(scores, unmatched, args, 0.0)
    modules = args.module or list(TRUSTED)
    if shutil.which("mutmut") is None:
        print("mutmut is not installed: python3 -m pip install 'mutmut>=3.3,<4'", file=sys.stderr)
        return 2

    started = time.perf_counter()
    scratch = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="attnio-mut-"))
    try:
        if not args.reuse:
            if args.keep and scratch.exists() and any(scratch.iterdir()):
                print(f"--keep {scratch} is not empty (add --reuse to read it)", file=sys.stderr)
                return 2
            scratch.mkdir(parents=True, exist_ok=True)
            prepare_scratch(scratch, modules, args.jobs)
        sampled = None
        targets = _globs(modules)
        if args.sample is not None:
            sampled = sample_mutants(list_mutants(scratch, modules), args.sample, args.seed)
            # a sampled mutant already decided in DIR (--keep DIR --reuse) is not run again
            decided = {m.name for s in read_results(scratch, modules, sampled) for m in s.mutants
                       if m.status != "not checked"}
            targets = [n for names in sampled.values() for n in names if n not in decided]
        if not args.reuse or (sampled is not None and targets):
            print(f"mutmut: {len(modules)} modules in {scratch}"
                  + (f", {len(targets)} sampled mutants to run" if sampled else ""),
                  file=sys.stderr, flush=True)
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
            # a session of its own: a mutant that signals its process group (os.kill(0, …))
            # must not take this script with it
            subprocess.run(["mutmut", "run", "--max-children", str(args.jobs), *targets],
                           cwd=scratch, env=env, check=False, start_new_session=True,
                           stdout=None if sys.stderr.isatty() else subprocess.DEVNULL)
        scores = read_results(scratch, modules, sampled)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    unmatched = mark_equivalents(scores, load_equivalents())
    return report(scores, unmatched, args, time.perf_counter() - started)


def report(scores: list[ModuleScore], unmatched: list[dict], args: argparse.Namespace,
           seconds: float) -> int:
    print(f"{'module':34s} {'mutants':>7s} {'killed':>6s} {'survived':>8s} {'equiv':>5s} "
          f"{'no test':>7s} {'score':>6s}")
    total_killed = total_counted = 0
    for s in scores:
        total_killed += s.killed
        total_counted += s.counted
        survived = sum(m.status not in DETECTED and m.reason is None
                       for m in s.mutants)
        low, high = wilson_interval(s.killed, s.counted)
        interval = f"  [{100 * low:.0f}–{100 * high:.0f} %]" if getattr(args, "sample", None) else ""
        print(f"{s.module:34s} {len(s.mutants):7d} {s.killed:6d} {survived:8d} "
              f"{s.equivalent:5d} {s.count('no tests'):7d} {100 * s.score:5.1f}%{interval}")
    overall = total_killed / total_counted if total_counted else 0.0
    low, high = wilson_interval(total_killed, total_counted)
    sample = getattr(args, "sample", None)
    print(f"{'overall':34s} {total_counted:7d} {total_killed:6d} {'':8s} {'':5s} {'':7s} "
          f"{100 * overall:5.1f}%"
          + (f"  [{100 * low:.0f}–{100 * high:.0f} %] (a sample of {sample} per module, seed "
             f"{args.seed}; modules pooled unweighted)" if sample else "")
          + f"   ({seconds / 60:.1f} min, {time.strftime('%Y-%m-%d')})")
    if any(m.status == "not checked" for s in scores for m in s.mutants):
        print("some mutants were not checked (an interrupted run): the score counts them as "
              "survived")
    print("\nequivalent mutants (no input tells them from the original):")
    for s in scores:
        for m in s.mutants:
            if m.reason is not None:
                print(f"  {s.module}:{m.function}: {m.diff.replace(chr(10), ' | ')}\n      — {m.reason}")
    if unmatched:
        print(f"\n{len(unmatched)} entries of {EQUIVALENTS_DIR.name}/ match no surviving mutant "
              "(killed: a test tells it apart, so it is not equivalent; stale: no mutant of "
              "the module has that diff any more):")
        for e in unmatched:
            print(f"  [{e.get('why', 'stale')}] {e['module']}:{e['function']}: {e['diff']!r}")
    if args.survivors:
        print("\nsurvivors:")
        for s in scores:
            for m in s.mutants:
                if m.status not in DETECTED and m.reason is None:
                    print(f"  [{m.status}] {m.name}\n    " + m.diff.replace("\n", "\n    "))
    if args.json:
        rows = [{"name": m.name, "module": m.module, "function": m.function, "status": m.status,
                 "diff": m.diff, "equivalent": m.reason} for s in scores for m in s.mutants]
        unsampled = [{"module": s.module, "function": f, "diff": d}
                     for s in scores for f, d in sorted(s.unsampled)]
        Path(args.json).write_text(json.dumps({"overall": overall, "mutants": rows,
                                               "unsampled": unsampled}, indent=1))
    return 0 if overall >= args.target else 1


if __name__ == "__main__":
    raise SystemExit(main())
