"""Every number README.md states, computed with the library (or measured, for the times),
beside the exact text the README carries for it.

``headlines()`` computes each figure and formats it the way the README writes it;
``claim_headlines()`` ties each threshold of the findings (F1, F2, F4, F6, F7) to the
``attnio verify`` claim whose statement carries it. ``tests/test_headline_numbers.py`` runs
both and fails when the README text and the computed value part (a drift in either).

``notebook_names()`` lists ``notebooks/``: the README names every notebook shipped.

The README's table of times ("How long things take") is regenerated with ``--times``: each
step runs as a user runs it, in a subprocess, and the script prints its CPU seconds (user +
system of the process and its children) and wall seconds beside the README's figures, and
exits 1 when a measurement is more than :data:`TIME_TOLERANCE` × away from the README (either
way). The tests check only that the table names every step and parses (a timed test would
fail on a busy machine); the measurement is this script's job, on an idle machine.

Run: ``python3 benchmarks/headline_numbers.py`` (a few seconds; exit 1 if the README lacks a
figure, naming it); ``--times`` adds verify and both reports (≈ 3 min of CPU);
``--times --with-pytest --with-install`` the default test tier (≈ 15 min) and a fresh install
(a throwaway virtual environment; its size too).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
N, D = 4096, 64  # the README's instance


@dataclass(frozen=True)
class Headline:
    """One README figure: ``text`` as the README writes it, ``how`` it is produced."""

    name: str
    text: str
    how: str


@dataclass(frozen=True)
class ClaimHeadline:
    """A finding's threshold: the README ``text`` and the claim whose statement says
    ``fragment`` (checked by ``attnio verify``)."""

    text: str
    claim_id: str
    fragment: str


def _sweep_crossover() -> int:
    """The README command ``attnio simulate --n 4096 --d 64 --M-geom 256:262144:13
    --algorithm flash1,small-cache --pass backward``: the swap bisected on exact counts."""
    from attnio.commands.simulate import find_crossovers, parse_cache_sizes

    grid = parse_cache_sizes("256:262144:13", geometric=True)
    found = find_crossovers("flash1", "small-cache", "backward", N, D, grid)
    if len(found) != 1:
        raise AssertionError(f"expected one swap on the README grid, found {found}")
    return found[0]["M"]


def _flop_ratio_range() -> tuple[float, float]:
    """Algorithm 6 ÷ FlashAttention-1 backward FLOPs (exact counts) at n = 4096, d = 64, one M
    per doubling from d to nd (the report's FLOP figure), where both run."""
    from attnio.algorithms.simulation import count
    from attnio.exceptions import InvalidInputError

    ratios = []
    for k in range(6, 19):
        try:
            alg6 = count("small-cache", "backward", N, D, 2 ** k).flops
            fa1 = count("flash1", "backward", N, D, 2 ** k).flops
        except InvalidInputError:  # M below FA-1's smallest backward tile set
            continue
        ratios.append(alg6 / fa1)
    return min(ratios), max(ratios)


def _published_overflow_range() -> tuple[float, float]:
    """FA-1 backward with its printed block sizes: the words of one inner step's tile set ÷ M,
    at n = 4096, d = 64, M = 2⁹ ... nd (one per doubling)."""
    from attnio.algorithms.counts import flash_block_sizes, flash_tile_sequence

    factors = []
    for k in range(9, 19):
        M = 2 ** k
        br, bc = flash_block_sizes(1, "backward", N, D, M, "published")
        factors.append(sum(w for _, w in flash_tile_sequence(1, "backward", N, D, br, bc)) / M)
    return min(factors), max(factors)


def headlines() -> list[Headline]:
    """Compute every README figure (a few seconds)."""
    import sympy as sp

    from attnio.algorithms.masks import Mask
    from attnio.algorithms.simulation import count
    from attnio.bounds.masks import sparse_bound_values
    from attnio.graphs import matmul_dag, replay, solve_optimal
    from attnio.smt.kernel import prove_statement
    from attnio.symbolic import crossover, get_bound
    from attnio.symbolic import symbols as S

    out = []
    solution = crossover(get_bound("bwd.tight")).solution
    if sp.simplify(solution - S.d ** 2) != 0:
        raise AssertionError(f"Thm 1.1's branches cross at {solution}, not d**2")
    out.append(Headline("branch crossover", "cross at M = d²",
                        'crossover(get_bound("bwd.tight")).solution'))
    # F5: Hong–Kung's explicit reduction n²d/√(2M) − n² is positive only below this M
    M_sym = sp.Symbol("M", positive=True)
    (vacuous_from,) = sp.solve(sp.Eq(S.n ** 2 * S.d / sp.sqrt(2 * M_sym), S.n ** 2), M_sym)
    if sp.simplify(vacuous_from - S.d ** 2 / 2) != 0:
        raise AssertionError(f"the explicit reduction vanishes at M = {vacuous_from}")
    out.append(Headline("F5 vacuous range", "is vacuous for M ≥ d²/2",
                        "sympy: n**2*d/sqrt(2*M) = n**2 at M = d**2/2"))
    M = _sweep_crossover()
    out.append(Headline("measured crossover", f"M = {M:,} ≈ {M / D ** 2:.1f}·d²",
                        "attnio simulate --n 4096 --d 64 --M-geom 256:262144:13 "
                        "--algorithm flash1,small-cache --pass backward"))
    out.append(Headline("measured crossover (F1-F2)", f"swap at M ≈ {M / D ** 2:.1f}·d² "
                        f"(n = {N}, d = {D})", "the same command"))
    lo, hi = _published_overflow_range()
    out.append(Headline("published blocks overflow", f"by {lo:.1f}–{hi:.1f}×",
                        "flash_block_sizes(..., 'published') and flash_tile_sequence"))
    lo, hi = _flop_ratio_range()
    out.append(Headline("FLOP ratio", f"({lo:.2f}–{hi:.2f}×)",
                        "count('small-cache'|'flash1', 'backward', 4096, 64, M).flops"))
    causal = sparse_bound_values(Mask.causal(), N, D, D * D)
    cross = sp.sympify(causal["sparse_crossover"]["value"]) / D ** 2
    out.append(Headline("causal branch crossover", f"≈ {float(cross):.0f}d² causal",
                        "sparse_bound_values(Mask.causal(), 4096, 64, M)['sparse_crossover']"))
    full = count("flash2", "backward", N, D, 2 ** 16)
    masked = count("flash2", "backward", N, D, 2 ** 16, mask=Mask.causal())
    out.append(Headline("causal FA-2 words", f"moves {masked.io / full.io:.2f}× the unmasked "
                        f"words at n = {N}, d = {D}, M = 2¹⁶",
                        "count('flash2', 'backward', 4096, 64, 2**16, mask=Mask.causal())"))
    dag = matmul_dag(2, 2, 2)
    opt = solve_optimal(dag, 3)
    out.append(Headline("optimal pebbling", f"# verdict {opt.verdict!r}, io={opt.io}",
                        "solve_optimal(matmul_dag(2, 2, 2), 3)"))
    out.append(Headline("replayed pebbling", f"# {replay(dag, opt.schedule, 3).io}, by the "
                        "independent validator", "replay(matmul_dag(2, 2, 2), opt.schedule, 3)"))
    cex = prove_statement("n**2 >= n", {"n": "positive"}).counterexample
    out.append(Headline("counterexample", f"# {cex}, checked exactly",
                        'prove_statement("n**2 >= n", {"n": "positive"})'))
    return out


def claim_headlines() -> list[ClaimHeadline]:
    """The findings' thresholds and the claims that state them."""
    return [
        ClaimHeadline("√M = nd/(n+d)", "cmp.alg6_vs_flash1.exact", "sqrt(M) <= nd/(n+d)"),
        ClaimHeadline("M ≤ d²/9", "cmp.alg6_full_vs_flash1", "M <= d**2/9"),
        ClaimHeadline("needs √M ≤ n", "low.d2_in_small", "needs sqrt(M) <= n"),
        ClaimHeadline("loose by 4 (AM–GM gives M²/(4d²))", "sy.lemma33.extra_trees_quarter",
                      "C <= M**2/(4*d**2)"),
        ClaimHeadline("S·√(2S) needs S ≥ 2", "partlemma.matmul_part", "for k = 2S, S ≥ 2"),
    ]


def missing(readme: str, items: list[Headline] | list[ClaimHeadline]) -> list[str]:
    """The texts of ``items`` that ``readme`` does not contain."""
    return [item.text for item in items if item.text not in readme]


def notebook_names() -> list[str]:
    """The notebooks shipped in ``notebooks/``, by file name."""
    return sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


# --- the README's times ------------------------------------------------------------------

#: A measurement further than this factor from the README's figure (either way) fails --times.
TIME_TOLERANCE = 1.5


@dataclass(frozen=True)
class TimedStep:
    """One row of the README's table of times: ``label`` is its first cell, verbatim."""

    key: str
    label: str
    optional_flag: str | None = None  # measured only with this flag of --times


TIMED_STEPS: tuple[TimedStep, ...] = (
    TimedStep("install", 'install: `pip install -e ".[test]"` in a fresh virtual environment',
              "--with-install"),
    TimedStep("verify", "`attnio verify`"),
    TimedStep("pytest", "`python3 -m pytest` (the default tier)", "--with-pytest"),
    TimedStep("report", "`attnio report OUTDIR`"),
    TimedStep("report-quick", "`attnio report OUTDIR --quick`"),
)


def parse_duration(cell: str) -> float | None:
    """Seconds of a README cell: ``53 s``, ``6.5 min``, ``—`` (not measured: None).

    >>> parse_duration("53 s"), parse_duration("6.5 min"), parse_duration("—")
    (53.0, 390.0, None)
    """
    cell = cell.strip()
    if cell in ("—", "-", ""):
        return None
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?) (s|min)", cell)
    if match is None:
        raise ValueError(f"not a duration: {cell!r} (write '53 s' or '6.5 min')")
    return float(match.group(1)) * (60 if match.group(2) == "min" else 1)


def format_duration(seconds: float) -> str:
    """The README's way of writing a time: whole seconds below 2 min, else minutes.

    >>> format_duration(52.6), format_duration(391.0)
    ('53 s', '6.5 min')
    """
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def readme_times(readme: str) -> dict[str, tuple[float | None, float | None]]:
    """``{step key: (CPU s, wall s)}`` from the README's table of times; a step whose row is
    missing is absent (the test names it)."""
    rows = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        for step in TIMED_STEPS:
            if cells[0] == step.label:
                rows[step.key] = (parse_duration(cells[1]), parse_duration(cells[2]))
    return rows


def _run_timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU s, wall s) of ``argv`` and every process it waited for; fails on a non-zero exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _folder_megabytes(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def measure_times(keys: set[str]) -> dict[str, tuple[float, float]]:
    """Run the steps named in ``keys`` as a user runs them; ``{key: (CPU s, wall s)}``."""
    env = {**os.environ, "ATTNIO_PROGRESS": "0"}
    attnio = [sys.executable, "-m", "attnio"]
    out: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="attnio-times-") as scratch:
        work = Path(scratch)
        if "install" in keys:
            venv = work / "venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            out["install"] = _run_timed([str(venv / "bin" / "python"), "-m", "pip", "install",
                                         "--quiet", "-e", f"{ROOT}[test]"], ROOT, env)
            print(f"install size: {_folder_megabytes(venv):.0f} MB (fresh virtual "
                  "environment with .[test])")
            shutil.rmtree(venv)
        if "verify" in keys:
            out["verify"] = _run_timed(attnio + ["verify"], ROOT, env)
        if "pytest" in keys:
            out["pytest"] = _run_timed([sys.executable, "-m", "pytest", "-q", "-p",
                                        "no:cacheprovider"], ROOT, env)
        if "report" in keys:
            out["report"] = _run_timed(attnio + ["report", str(work / "full")], ROOT, env)
        if "report-quick" in keys:
            out["report-quick"] = _run_timed(attnio + ["report", str(work / "quick"),
                                                        "--quick"], ROOT, env)
    return out


def compare_times(measured: dict[str, tuple[float, float]],
                  stated: dict[str, tuple[float | None, float | None]]) -> list[str]:
    """One line per step (measured beside stated); lines of steps out of tolerance start with
    ``OUT``."""
    lines = []
    for step in TIMED_STEPS:
        if step.key not in measured:
            continue
        cpu, wall = measured[step.key]
        readme_cpu, readme_wall = stated.get(step.key, (None, None))
        worst = max((max(m / r, r / m) for m, r in ((cpu, readme_cpu), (wall, readme_wall))
                     if r is not None), default=float("inf"))
        mark = "ok " if worst <= TIME_TOLERANCE else "OUT"
        lines.append(f"{mark} {step.label}: CPU {format_duration(cpu)}, wall "
                     f"{format_duration(wall)} (README: CPU {readme_cpu or '—'} s, wall "
                     f"{readme_wall or '—'} s; worst factor {worst:.2f})")
    return lines


def _times(args: argparse.Namespace, readme: str) -> int:
    keys = {s.key for s in TIMED_STEPS
            if s.optional_flag is None or getattr(args, s.optional_flag[2:].replace("-", "_"))}
    lines = compare_times(measure_times(keys), readme_times(readme))
    print(f"times on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end:")
    for line in lines:
        print(line)
    return 1 if any(line.startswith("OUT") for line in lines) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", action="store_true",
                        help="also measure the README's table of times")
    parser.add_argument("--with-pytest", action="store_true",
                        help="with --times: the default test tier too (≈ 15 min)")
    parser.add_argument("--with-install", action="store_true",
                        help="with --times: a fresh install too (a throwaway venv)")
    args = parser.parse_args(argv)
    readme = README.read_text(encoding="utf-8")
    items = headlines()
    for item in items:
        print(f"{item.name:<28} {item.text:<50} ({item.how})")
    for claim in claim_headlines():
        print(f"{'finding threshold':<28} {claim.text:<50} (claim {claim.claim_id})")
    absent = missing(readme, items) + missing(readme, claim_headlines())
    absent += [name for name in notebook_names() if name.removesuffix(".ipynb") not in readme]
    absent += [f"the times row {s.label!r}" for s in TIMED_STEPS
               if s.key not in readme_times(readme)]
    for text in absent:
        print(f"README.md lacks: {text}", file=sys.stderr)
    if absent:
        return 1
    return _times(args, readme) if args.times else 0


if __name__ == "__main__":
    sys.exit(main())
