r"""``attnio report OUTDIR`` — one self-contained Markdown report with its figures.

The report gathers, at one choice of (n, d) and a few cache sizes M:

1. the **verify table** — every registered claim of :mod:`attnio.proofs` checked now
   (``--quick``: only the z3 algebra, :data:`QUICK_METHOD_PREFIX`), with id, source, method,
   verdict and seconds;
2. the **bound table** — every entry of the symbolic catalogue evaluated exactly at
   (n, d, M), with the derived crossovers, and the hardware advisor's device table at d;
3. the **figures** of :mod:`attnio.figures` — phase diagram, I/O against M, FLOPs against M,
   the pebbling sandwich and an optimal schedule of the smallest DAG — as PNGs next to
   ``index.md``.

Every number in the report is computed by the library at report time; nothing is copied in.
A section that fails is reported in ``index.md`` (with the exception) instead of aborting the
others, and makes the exit code 1.

Exit codes: 0 the report is complete and every claim run is Proved; 1 the report was written
but a claim is not Proved or a section failed; 2 bad input (OUTDIR is a file or not writable,
n, d or M not positive integers, M outside d ≤ M ≤ n·d).

Examples
--------
>>> default_cache_sizes(n=1024, d=32)
[256, 1024, 4096]
>>> prepare_outdir("/dev/null")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: OUTDIR='/dev/null' exists and is not a directory
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from attnio.exceptions import AttnioError, InvalidInputError

__all__ = [
    "register",
    "run",
    "write_report",
    "ReportResult",
    "BoundRow",
    "bound_table",
    "bound_table_markdown",
    "default_cache_sizes",
    "prepare_outdir",
    "QUICK_METHOD_PREFIX",
    "DEFAULT_N",
    "DEFAULT_D",
]

DEFAULT_N = 4096
DEFAULT_D = 64
#: ``--quick`` runs only the claims whose method starts with this: the z3 algebra over the
#: reals (branches, comparisons, lower-order terms, lower-bound steps), each a few ms — no
#: exhaustive search, no pebbling.
QUICK_METHOD_PREFIX = "z3 NRA"


@dataclass
class ReportResult:
    """What :func:`write_report` wrote and how it went."""

    index: Path
    figures: list[Path] = field(default_factory=list)
    claims_run: int = 0
    claims_proved: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every section was written and every claim run was Proved."""
        return not self.failures and self.claims_run > 0 and self.claims_proved == self.claims_run


def default_cache_sizes(n: int, d: int) -> list[int]:
    """The bound table's cache sizes: d²/4, d², 4d², kept inside d ≤ M ≤ n·d.

    >>> default_cache_sizes(n=64, d=16)
    [64, 256, 1024]
    >>> default_cache_sizes(n=8, d=16)
    [64, 128]
    """
    sizes = [max(d, d * d // 4), d * d, 4 * d * d]
    return sorted({min(max(m, d), n * d) for m in sizes})


def prepare_outdir(outdir: str | os.PathLike[str]) -> Path:
    """Create OUTDIR if needed and make sure a file can be written in it; return it as a Path.

    Raises
    ------
    attnio.exceptions.InvalidInputError
        OUTDIR exists and is not a directory, cannot be created, or is not writable.
    """
    path = Path(outdir)
    if path.exists() and not path.is_dir():
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        # os.access is not enough (root passes it on read-only mounts): really write a file.
        with tempfile.NamedTemporaryFile(dir=path, prefix=".attnio-write-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} is not a writable directory ({reason})") from None
    return path


def _validate_sizes(n: int, d: int, Ms: Sequence[int]) -> None:
    for name, value in (("n", n), ("d", d)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInputError(f"{name}={value!r} must be a positive integer")
    for M in Ms:
        if not isinstance(M, int) or isinstance(M, bool) or M < 1:
            raise InvalidInputError(f"M={M!r} must be a positive integer")
        if not d <= M <= n * d:
            raise InvalidInputError(f"M={M} must satisfy d <= M <= n*d (here {d} <= M <= {n * d})")


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------


def _verify_section(quick: bool) -> tuple[list[str], int, int]:
    """Run the claims with :mod:`attnio.proofs.runner`; return Markdown lines, run, proved."""
    from attnio.proofs.registry import load_claims
    from attnio.proofs.runner import run_claims, select, summary

    claims = select(load_claims())
    if quick:
        claims = [c for c in claims if c.method.startswith(QUICK_METHOD_PREFIX)]
    results = run_claims(claims)
    lines = ["| id | source | method | verdict | seconds |", "|---|---|---|---|---|"]
    for r in results:
        mark = {"proved": "Proved", "refuted": "**Refuted**",
                "undecided": "**Undecided**"}[r.verdict.verdict]
        source = r.claim.source + (" (RECONSTRUCTED)" if r.claim.reconstructed else "")
        lines.append(f"| `{r.claim.id}` | {_cell(source)} | {_cell(r.claim.method)} | {mark} | "
                     f"{r.verdict.seconds:.3f} |")
        if not r.verdict.proved:
            lines.append(f"| | | | ↳ {_cell(r.verdict.detail)[:300]} | |")
    counts = summary(results)
    head = (f"{counts['proved']} Proved, {counts['refuted']} Refuted, {counts['undecided']} "
            f"Undecided of {len(results)} claims"
            + (f" (--quick: only the claims checked by {QUICK_METHOD_PREFIX})" if quick else
               " (default tier; `attnio verify --deep` adds the exhaustive tier)"))
    return [head + ".", "", *lines], len(results), counts["proved"]


@dataclass(frozen=True)
class BoundRow:
    """One catalogue entry evaluated at each M (``None`` outside its admissible range)."""

    id: str
    pass_: str
    kind: str
    expression: str
    values: tuple[Any, ...]


#: How the bound table evaluates entries in other symbols: the QKᵀ product (m = p = n, k = d)
#: and the dense case of the sparse bound (Z_in = 2nd nonzeros of Q and K, Z_QK = n²).
_OTHER_SYMBOLS = "matmul entries at the QKᵀ product (m = p = n, k = d); sparse at the dense case (Z_in = 2nd, Z_QK = n²)"


def bound_table(n: int, d: int, Ms: Sequence[int]) -> tuple[list[BoundRow], dict[str, Any]]:
    """Every catalogue entry evaluated exactly at (n, d, M) for each M, and the crossovers.

    Values are exact sympy numbers (Integer, Rational or algebraic); an M outside an entry's
    admissible range gives ``None``. Matrix-multiplication entries are evaluated at the QKᵀ
    product (m = p = n, k = d), the sparse bound at its dense case (Z_in = 2nd, Z_QK = n²).
    The crossovers (sympy expressions) are derived by
    :func:`attnio.symbolic.crossovers.crossover` for every entry that is a min of two branches.

    >>> rows, crossovers = bound_table(64, 8, [64])
    >>> [r.values[0] for r in rows if r.id == "bwd.tight"], crossovers["bwd.tight"]
    ([4608], d**2)
    """
    from attnio.symbolic.catalogue import CATALOGUE
    from attnio.symbolic.crossovers import crossover

    rows: list[BoundRow] = []
    crossovers: dict[str, Any] = {}
    for bound in CATALOGUE:
        values: list[Any] = []
        for M in Ms:
            sizes = dict(n=n, d=d, M=M, m=n, k=d, p=n, Z_in=2 * n * d, Z_QK=n * n)
            try:
                values.append(bound.evaluate(**sizes))
            except InvalidInputError:
                values.append(None)
        symbol = ({"tight": "Θ", "upper": "O", "lower": "Ω"} if bound.asymptotic
                  else {"tight": "=", "upper": "≤", "lower": "≥"})[bound.kind]
        rows.append(BoundRow(bound.id, bound.pass_, f"{bound.kind} ({symbol})", str(bound.expr),
                             tuple(values)))
        if bound.combine == "min" and len(bound.branches) == 2:
            crossovers[bound.id] = _crossover_solution(crossover(bound))
    return rows, crossovers


def _crossover_solution(result: Any) -> Any:
    return getattr(result, "solution", result)


def bound_table_markdown(n: int, d: int, Ms: Sequence[int]) -> str:
    """:func:`bound_table` as the Markdown of the report's bound table (for notebooks too)."""
    return "\n".join(_bound_section(n, d, Ms))


def _bound_section(n: int, d: int, Ms: Sequence[int]) -> list[str]:
    rows, crossovers = bound_table(n, d, Ms)
    header = "| id | pass | kind | bound | " + " | ".join(f"M = {M:,}" for M in Ms) + " |"
    lines = [f"Exact values of every catalogue entry ({_OTHER_SYMBOLS}); — = M outside the "
             "entry's admissible range. Θ/O/Ω entries are exact only up to a constant factor.",
             "", header, "|" + "---|" * (4 + len(Ms))]
    for row in rows:
        values = " | ".join(_fmt_value(v) for v in row.values)
        lines.append(f"| `{row.id}` | {row.pass_} | {row.kind} | `{_cell(row.expression)}` | {values} |")
    lines += ["", "Crossovers derived by `attnio.symbolic.crossovers` (branch equality solved by sympy):", ""]
    lines += [f"- `{bound_id}`: M = `{solution}`" for bound_id, solution in crossovers.items()]
    return lines


def _hardware_section(n: int, d: int, dtype: str = "bf16") -> list[str]:
    """The advisor's device table at head dimension d (M = on-chip bytes ÷ dtype width)."""
    from attnio.symbolic.advisor import DEVICES, advise

    lines = ["Which side of the derived crossover M* = d² real fast memories fall on "
             "(`attnio.symbolic.advisor`; sources in its `DEVICES` table). The I/O ratio is the "
             f"catalogue's FlashAttention bound ÷ Algorithm 6 bound at n = {n:,} (constants 1).",
             "", "| device | fast memory | M (words) | d² | regime | theory picks | "
             "FlashAttention ÷ Alg. 6 |", "|---|---|---|---|---|---|---|"]
    for name in DEVICES:
        a = advise(name, d, dtype, n=n)
        lines.append(f"| {a.device.name} | {_cell(a.device.fast_memory)} | {a.M:,} | "
                     f"{a.crossover_M:,} | {a.regime} | {a.recommended_algorithm} | "
                     f"{float(a.io_ratio):.3g} |")
    return lines


def _fmt_value(value: Any) -> str:
    if value is None:
        return "—"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return _cell(str(value))
    if number == int(number) and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:.4g}"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------


def write_report(
    outdir: str | os.PathLike[str],
    *,
    n: int = DEFAULT_N,
    d: int = DEFAULT_D,
    Ms: Sequence[int] | None = None,
    quick: bool = False,
    log: Callable[[str], None] | None = None,
) -> ReportResult:
    """Write ``OUTDIR/index.md`` and its PNGs; return what was written.

    Parameters
    ----------
    outdir : path
        Created if missing; must not be a file.
    n, d : int
        Sequence length and head dimension of the bound table and of the I/O figure.
    Ms : sequence of int, optional
        Cache sizes of the bound table (default :func:`default_cache_sizes`).
    quick : bool
        Run only the quick claim families, and the smallest sandwich instances.
    log : callable, optional
        Receives one line per finished section (the CLI passes a stderr printer).

    Returns
    -------
    ReportResult

    Raises
    ------
    attnio.exceptions.InvalidInputError
        Bad OUTDIR, n, d or M (see :func:`prepare_outdir`).
    attnio.exceptions.AttnioError
        matplotlib (the ``plots`` extra) is not installed.
    """
    from attnio import __version__
    from attnio import figures

    start = time.perf_counter()
    Ms = list(Ms) if Ms is not None else default_cache_sizes(n, d)
    _validate_sizes(n, d, Ms)
    if importlib.util.find_spec("matplotlib") is None:
        raise AttnioError("attnio report draws with matplotlib, which is not installed: "
                          "python3 -m pip install 'attnio[plots]'")
    path = prepare_outdir(outdir)
    result = ReportResult(index=path / "index.md")
    say = log or (lambda _line: None)

    sections: list[str] = []

    def section(title: str, body: Callable[[], list[str]]) -> None:
        t0 = time.perf_counter()
        try:
            lines = body()
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a failed section is reported, not hidden, and fails the run
            result.failures.append(f"{title}: {type(exc).__name__}: {exc}")
            lines = [f"**This section failed**: `{type(exc).__name__}: {_cell(str(exc))}`", "",
                     "```", traceback.format_exc(limit=4).rstrip(), "```"]
        sections.extend([f"## {title}", "", *lines, ""])
        say(f"{title}: {time.perf_counter() - t0:.1f} s")

    def verify() -> list[str]:
        lines, result.claims_run, result.claims_proved = _verify_section(quick)
        return lines

    def figure(filename: str, caption: str, draw: Callable[[Path], list[str] | None]
               ) -> Callable[[], list[str]]:
        def body() -> list[str]:
            target = path / filename
            facts = draw(target) or []  # the numbers behind the picture, as Markdown lines
            result.figures.append(target)
            return [f"![{filename.removesuffix('.png').replace('_', ' ')}]({filename})", "",
                    f"*{caption}*", "", *facts]
        return body

    def phase_figure(target: Path) -> list[str]:
        data = figures.phase_diagram_data()
        figures.plot_phase_diagram(data, target)
        return [f"Crossover line α = {data.crossover_alpha:g} (log_d of the derived M* = d²); "
                f"at (α, β) = (1.5, 2): {' / '.join(data.label_at(1.5, 2.0))}; at (3, 2.5): "
                f"{' / '.join(data.label_at(3.0, 2.5))}."]

    def io_figure(target: Path) -> list[str]:
        data = figures.io_curves_data(n, d, figures.sweep_cache_sizes(n, d))
        figures.plot_io_curves(data, target)
        where = ("none within the sweep" if data.crossover_M is None else
                 f"M = {data.crossover_M:,} = {data.crossover_M / (d * d):.2f}·d²")
        return [f"Measured crossover (first M of an 8-per-doubling sweep at which FlashAttention "
                f"backward moves no more words than Algorithm 6): {where}; d² = {d * d:,}."]

    def flop_figure(target: Path) -> list[str]:
        data = figures.flop_curves_data(n, d, figures.sweep_cache_sizes(n, d))
        figures.plot_flop_curves(data, target)
        ratios = [s / f for s, f in zip(data.flops["small-cache"], data.flops["flash1"])
                  if s is not None and f]
        return ([f"Algorithm 6 ÷ FlashAttention backward FLOPs: {min(ratios):.3f} to "
                 f"{max(ratios):.3f} over the M where both run."] if ratios else [])

    def sandwich_figure(target: Path) -> list[str]:
        rows = figures.sandwich_data(quick=quick)
        figures.plot_sandwich(rows, target)
        lines = ["| DAG | M | explicit | Hong–Kung | trivial | optimum | schedules | note |",
                 "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            sched = ", ".join(f"{k} {v}" for k, v in sorted(r.schedules.items())) or "—"
            lines.append(f"| {r.dag} | {r.M} | {_fmt_value(r.lower_bound)} | "
                         f"{_fmt_value(r.partition_bound)} | {_fmt_value(r.trivial_bound)} | "
                         f"{_fmt_value(r.optimum)} | {sched} | {_cell(r.note) or 'ok'} |")
        return lines

    def schedule_figure(target: Path) -> list[str]:
        timeline = figures.smallest_optimal_schedule()
        figures.plot_schedule(timeline, target)
        moves = ", ".join(f"{kind} {vertex}" for kind, vertex in timeline.moves)
        return [f"Moves ({timeline.io} I/O, replayed by `attnio.graphs.game.replay`): {moves}."]

    section("Verify table", verify)
    section(f"Bound table at n = {n:,}, d = {d}", lambda: _bound_section(n, d, Ms))
    section(f"Hardware regimes at d = {d} (bf16)", lambda: _hardware_section(n, d))
    section("Phase diagram", figure(
        "phase_diagram.png",
        "Exponent space (α = log_d M, β = log_d n): left, the dominant term of Thm 1.1; right, "
        "the backward algorithm whose upper bound grows slower (growth exponents from "
        "attnio.symbolic.dominance). Hatched: outside d ≤ M ≤ n·d. Dashed: the derived "
        "crossover M = d².",
        phase_figure))
    section("I/O against M", figure(
        "io_vs_M.png",
        f"Backward-pass I/O counted by the two-level memory simulator at n = {n:,}, d = {d} "
        "(solid), catalogue bounds with constant 1 (dashed), M = d² (grey) and the measured "
        "crossover of FlashAttention and Algorithm 6 (dotted).", io_figure))
    section("FLOPs against M", figure(
        "flops_vs_M.png",
        f"FLOPs of Algorithm 6 and FlashAttention backward at n = {n:,}, d = {d}, counted by the "
        "simulator; right, the ratio to FlashAttention.", flop_figure))
    section("Pebbling sandwich", figure(
        "sandwich.png",
        "On tiny DAGs, per M: explicit lower bound ≤ Hong–Kung partition bound ≤ exact optimum "
        "≤ replayed algorithm schedules, with the catalogue's trivial bound (inputs read once, "
        "outputs written once). An optimum the search could not settle within its budget is "
        "left out and named.", sandwich_figure))
    section("An optimal schedule", figure(
        "optimal_schedule.png",
        "An optimal red-blue pebbling of the smallest DAG, move by move (red = fast memory, "
        "blue = slow memory); below, red pebbles in use against M and the I/O so far.",
        schedule_figure))

    result.seconds = time.perf_counter() - start
    status = ("complete" if result.ok else
              f"INCOMPLETE — {len(result.failures)} section(s) failed, "
              f"{result.claims_run - result.claims_proved} claim(s) not Proved")
    head = [
        "# attnio report",
        "",
        f"attnio {__version__}; generated {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC "
        f"in {result.seconds:.1f} s by `attnio report {path} --n {n} --d {d}"
        f" --M {','.join(map(str, Ms))}{' --quick' if quick else ''}`.",
        "",
        f"Status: **{status}**. Claims: {result.claims_proved} of {result.claims_run} Proved.",
        "",
        "Model: two-level memory (fast memory of M words, unbounded slow memory), one I/O = one "
        "word moved; red-blue pebble game (Hong & Kung 1981); standard matrix multiplication. "
        "Paper: Li et al., arXiv 2410.09397; parents: Saha & Ye arXiv 2402.07443, Dao et al. "
        "arXiv 2205.14135.",
        "",
    ]
    if result.failures:
        head += ["Failed sections:", "", *[f"- {_cell(f)}" for f in result.failures], ""]
    result.index.write_text("\n".join(head + sections), encoding="utf-8")
    return result


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _positive_int_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"M={text!r} must be comma-separated positive integers")
    if not values:
        raise argparse.ArgumentTypeError(f"M={text!r} names no cache size")
    return values


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``attnio report OUTDIR [--n N] [--d D] [--M M1,M2,...] [--quick]``."""
    parser = subparsers.add_parser(
        "report",
        help="write a Markdown report with the verify table, the bound table and the figures",
        description="Write OUTDIR/index.md and its PNGs: the verify table, the bound table at "
                    "(n, d, M) and the figures (phase diagram, I/O and FLOPs against M, the "
                    "pebbling sandwich, an optimal schedule).",
    )
    parser.add_argument("outdir", metavar="OUTDIR", help="directory to write (created if missing)")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help=f"sequence length (default {DEFAULT_N})")
    parser.add_argument("--d", type=int, default=DEFAULT_D, help=f"head dimension (default {DEFAULT_D})")
    parser.add_argument("--M", type=_positive_int_list, default=None,
                        help="cache sizes of the bound table, e.g. 1024,4096 (default d²/4, d², 4d²)")
    parser.add_argument("--quick", action="store_true",
                        help="run only the quick claim families and the smallest pebbling instances")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the report; exit 0 if complete and all claims Proved, 1 otherwise."""
    result = write_report(args.outdir, n=args.n, d=args.d, Ms=args.M, quick=args.quick,
                          log=lambda line: print(f"attnio report: {line}", file=sys.stderr))
    print(f"wrote {result.index} with {len(result.figures)} figures in {result.seconds:.1f} s; "
          f"{result.claims_proved}/{result.claims_run} claims Proved"
          + ("" if not result.failures else f"; {len(result.failures)} section(s) failed"))
    return 0 if result.ok else 1
