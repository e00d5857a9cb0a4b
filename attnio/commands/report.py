"""``attnio report``: the command line of the reporting room.

Registered in :data:`attnio.cli.SUBCOMMANDS` as ``report``. Parsing is light (no plotting
library, no solver is imported until :func:`run`); the work is
:func:`attnio.reporting.report.write_report`.

>>> import argparse
>>> parser = register(argparse.ArgumentParser().add_subparsers())
>>> args = parser.parse_args(["out", "--M", "1024,4096", "--quick"])
>>> args.outdir, args.n, args.d, args.M, args.quick
('out', 4096, 64, [1024, 4096], True)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from attnio.flags import add_cache_size_arguments, add_time_limit_argument
from attnio.output import print_document
from attnio.progress import StageStatus
from attnio.reporting import DEFAULT_D, DEFAULT_N
from attnio.reporting.report import default_cache_sizes, write_report
from attnio.validation import (
    size_action,
    validate_time_limit,
    warn_outside_admissible,
)

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``attnio report OUTDIR [--n N] [--d D] [--M M1,M2,... | --M-geom LO:HI:COUNT]
    [--quick] [--html] [--force] [--time-limit SECONDS] [--json]``."""
    parser = subparsers.add_parser(
        "report",
        help="write a report (Markdown + PNGs, or one HTML file) with the figures, the bound "
             "table and the verify table",
        description="Write OUTDIR/index.md and its PNGs (or with --html one self-contained "
                    "OUTDIR/index.html): a summary, the figures (phase diagram, I/O and FLOPs "
                    "against M, the pebbling sandwich, an optimal schedule), the bound table at "
                    "(n, d, M) and the verify table. OUTDIR must be new, empty, or written by "
                    "attnio report before (marker .attnio-report.json); attnio replaces only "
                    "files it wrote, never writes through a symlink.",
    )
    parser.add_argument("outdir", metavar="OUTDIR",
                        help="folder to write (created if missing; must be empty or attnio's)")

    parser.add_argument("--n", action=size_action("n"), default=DEFAULT_N,
                        help=f"sequence length (default {DEFAULT_N})")
    parser.add_argument("--d", action=size_action("d"), default=DEFAULT_D,
                        help=f"head dimension (default {DEFAULT_D})")
    add_cache_size_arguments(parser, command="report",
                             help="cache sizes of the bound table (default d²/4, d², 4d²)")
    parser.add_argument("--quick", action="store_true",
                        help="run only the quick claim families and the smallest pebbling instances")
    parser.add_argument("--html", action="store_true",
                        help="write one self-contained OUTDIR/index.html (figures embedded) "
                             "instead of index.md and PNGs")
    parser.add_argument("--force", action="store_true",
                        help="replace same-named files in OUTDIR even if attnio did not write "
                             "them (symlinks are still refused)")
    parser.add_argument("--json", action="store_true",
                        help="print what was written (files, claim counts, the verdict) as "
                             "JSON instead of the summary line")
    add_time_limit_argument(parser, help="stop after SECONDS in all (default: no limit): the "
                                         "sections not run are marked so in the report, and "
                                         "the exit code is 1")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the report; exit 0 if complete and all claims Proved, 1 otherwise; 2 on bad input
    or without matplotlib (the ``plots`` extra), before any work.

    ``--time-limit S`` (a finite number >= 0; default none): the clock is read before every
    section and between the claims of the verify table; the sections not run by then are
    written as such, stderr gets ``attnio report: time limit S s reached; N of M sections
    done`` and the exit code is 1 (an incomplete report is never a pass).
    """
    import time

    time_limit = validate_time_limit(getattr(args, "time_limit", None), "--time-limit")
    deadline = None if time_limit is None else time.monotonic() + time_limit

    warn_outside_admissible("report", args.n, args.d,
                            args.M if args.M is not None else default_cache_sizes(args.n, args.d))
    with StageStatus("attnio report") as status:
        result = write_report(args.outdir, n=args.n, d=args.d, Ms=args.M, quick=args.quick,
                              html=args.html, force=args.force, status=status,
                              deadline=deadline)
    if getattr(args, "json", False):
        _print_json(result)
        if result.timed_out:
            _time_limit_line(result, time_limit)
        return 0 if result.ok else 1
    what = ("self-contained, " if args.html else "") + (
        f"{len(result.figure_names)} figures" + (" embedded" if args.html else ""))
    print(f"wrote {result.index} ({what}) in {result.seconds:.1f} s; "
          f"{result.claims_proved}/{result.claims_run} claims Proved"
          + ("" if not result.failures else
             f"; {len(result.failures)} section(s) failed or not run"))
    if result.timed_out:
        _time_limit_line(result, time_limit)
    return 0 if result.ok else 1


def _time_limit_line(result: Any, time_limit: float | None) -> None:
    done = result.sections_total - len(set(result.timed_out))
    print(f"attnio report: time limit {time_limit:g} s reached; {done} of "
          f"{result.sections_total} sections done", file=sys.stderr)


def _print_json(result: Any) -> None:
    """``report --json`` (notes/json.md): the manifest of what was written — the format, the
    folder, the index (``index.md`` or ``index.html``), every file, the figures and the PNG
    files next to ``index.md`` — and how it went. ``verdict``:
    ``proved`` when every section was written and every claim Proved (exit 0), ``refuted``
    when a claim was Refuted, else ``undecided`` (a section failed or was not run, a claim
    undecided)."""

    verdict = ("proved" if result.ok else "refuted" if result.claims_refuted
               else "undecided")
    print_document("report", verdict, {
        "format": "html" if result.index.suffix == ".html" else "markdown",
        "outdir": str(result.index.parent),
        "index": str(result.index),
        "files": [str(f) for f in result.files],
        "figures": list(result.figure_names),
        "figure_files": [str(f) for f in result.figures],
        "claims": {"run": result.claims_run, "proved": result.claims_proved,
                   "refuted": result.claims_refuted},
        "sections": {"total": result.sections_total,
                     "done": result.sections_total - len(set(result.timed_out)),
                     "failures": list(result.failures),
                     "timed_out": list(dict.fromkeys(result.timed_out))},
        "seconds": round(result.seconds, 3)})
