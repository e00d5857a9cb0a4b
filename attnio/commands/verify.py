"""``attnio verify``: check every claim of the paper and its parents, or the planted twins.

Usage::

    attnio verify [--only PATTERN] [--json | --latex [FILE.tex] | --wide] [--self-test]
                  [--deep] [--solver-time-limit S] [--time-limit S]
                  [--workers N | --scheduler ADDRESS]

* default: run every claim of the default tier (discovered by
  :func:`attnio.proofs.registry.load_claims`) with a progress bar on stderr and print a table
  (id, source, evidence, verdict; in 100 columns, each source clipped and the seconds column
  dropped — both in full with ``--wide``) on stdout. Exit 0 only if every claim is
  ``Proved``; any ``Refuted`` or ``Undecided`` → exit 1.
* ``--latex [FILE.tex]``: the table (five columns, sources in full) as a booktabs tabular on
  stdout or written to FILE.tex (:mod:`attnio.flags`).
* ``--only PATTERN``: an fnmatch glob or substring over claim ids and families; matching
  nothing is bad input (exit 2, one line).
* ``--json``: ``{"command": "verify", "verdict", "claims": [{"id", "statement", "source",
  "method", "verdict", "seconds", "detail", ...}], "summary": {"proved", "refuted",
  "undecided"}, ...}`` on stdout (notes/json.md); the top-level ``verdict`` is ``proved`` only
  when every claim is (with ``--self-test``: when every twin is rejected).
* ``--self-test``: run the planted false twins instead; exit 1 unless every one is
  rejected — ``Refuted``, or ``Undecided`` for the reason a twin declares
  (``expect="undecided"``: a planted input whose honest answer is "don't know"); print one
  coverage line per family (twins rejected / twins, claims).
* Ctrl-C: the finished claims are still printed, the rest as ``Undecided``; exit 130.
* ``--deep``: include the slow ``deep`` tier.
* ``--solver-time-limit S``: seconds per solver call (default 20); a timeout is ``Undecided``.
  (``--z3-timeout MS``, in milliseconds, is its deprecated spelling: :mod:`attnio.flags`.)
* ``--time-limit S``: the whole run's budget in seconds (a finite number >= 0; default none).
  No claim starts after it, and every solver call and search of a claim is bounded by the
  time left (:func:`attnio.proofs.runner.bounded_context`), so the run ends about S seconds
  in (plus one solver call's return). The claims not run are reported ``Undecided`` ("not
  run: the time limit was reached first"), the table of the others is printed as usual, a
  line ``attnio verify: time limit S s reached; N of M claims done`` goes to stderr, and the
  exit code is 1 — a run cut short is never a pass.
* ``--workers N`` / ``--scheduler ADDRESS``: check the claims on Dask
  (:mod:`attnio.parallel`: N at most 4 × the cores; a malformed or unreachable address is
  exit 2, within ``--time-limit`` when one is given).

Examples
--------
>>> from attnio.cli import main
>>> main(["verify", "--only", "no-such-claim-anywhere"])  # doctest: +SKIP
2
"""

from __future__ import annotations

import argparse
import sys
import time

from attnio.exceptions import InvalidInputError
from attnio.flags import (
    add_latex_argument,
    add_parallel_arguments,
    add_solver_time_limit_argument,
    add_time_limit_argument,
    add_wide_argument,
    check_latex_target,
    emit_latex,
    is_parallel,
    parallel_options,
    solver_milliseconds,
    table_width,
)
from attnio.output import print_json
from attnio.proofs.registry import CheckContext, load_claims, load_false_twins
from attnio.proofs.runner import (
    TIME_LIMIT_REACHED,
    all_claims_proved,
    all_twins_refuted,
    coverage,
    format_coverage,
    format_table,
    run_claims,
    run_claims_parallel,
    select,
    self_test,
    stopped_by_time_limit,
    to_json,
    twins_rejected,
    was_interrupted,
)
from attnio.validation import validate_time_limit

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``verify`` subcommand."""
    parser = subparsers.add_parser(
        "verify",
        help="machine-check every claim (z3, exact search) and print a verdict table",
        description="Check the claims of arXiv 2410.09397 and its parents; exit 0 only if all "
                    "are Proved. --self-test checks that every planted false twin is Refuted.",
    )
    parser.add_argument("--only", metavar="PATTERN", action="append",
                        help="fnmatch glob or substring over claim ids and families; repeat "
                             "the option or separate patterns by commas to select several")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="JSON report on stdout")
    add_latex_argument(out, what="the verdict table")
    add_wide_argument(parser)
    parser.add_argument("--self-test", action="store_true",
                        help="run the planted false twins; fail unless all are Refuted")
    parser.add_argument("--deep", action="store_true", help="include the slow 'deep' tier")
    add_solver_time_limit_argument(parser, default=20.0,
                                   help="seconds per solver call (default 20); a timeout is "
                                        "Undecided", deprecated_ms=("verify", "--z3-timeout"))
    add_time_limit_argument(parser, help="stop after SECONDS in all (default: no limit); the "
                                         "claims not run are Undecided and the exit code is 1")
    add_parallel_arguments(parser, what="claims")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the claims (or twins) selected by ``args``; return the exit code."""
    timeout = solver_milliseconds(getattr(args, "solver_time_limit", 20.0))
    # the clock starts with the command's work (Python and attnio are loaded by then)
    time_limit = validate_time_limit(getattr(args, "time_limit", None), "--time-limit")
    deadline = None if time_limit is None else time.monotonic() + time_limit
    parallel = is_parallel(parallel_options(args))  # refused before the claims load
    check_latex_target(args)
    ctx = CheckContext(z3_timeout_ms=timeout, deep=args.deep)
    claims = load_claims()
    pool = load_false_twins() if args.self_test else claims
    only = ",".join(args.only) if args.only else None
    chosen = select(pool, only, deep=args.deep)
    if not chosen:
        kind = "false twin" if args.self_test else "claim"
        tier = "" if args.deep else " in the default tier (try --deep)"
        raise InvalidInputError(f"--only={only!r} matches no {kind} id or family{tier}")

    if args.self_test:
        results = (run_claims_parallel(chosen, ctx, workers=args.workers,
                                       scheduler=args.scheduler, twins=True, desc="self-test",
                                       deadline=deadline)
                   if parallel else self_test(chosen, ctx, stop_on_interrupt=True,
                                              deadline=deadline))
        ok = all_twins_refuted(results)
        cov = coverage(select(claims, only, deep=args.deep), results)
        if args.json:
            doc = to_json(results)
            # the self-test's answer: every twin rejected; a twin a checker proved is a
            # refutation of "the checkers can fail"; anything else is undecided
            doc["verdict"] = ("proved" if ok else "refuted" if any(
                r.verdict.proved for r in results) else "undecided")
            doc["self_test"] = {"all_refuted": ok,
                                "coverage": {f: {"claims": c, "twins": t, "refuted": r}
                                             for f, (c, t, r) in cov.items()}}
            print_json(_with_time_limit(doc, results, time_limit))
        elif args.latex is not None:
            emit_latex(args, format_table(results, twins=True, fmt="latex"))
        else:
            print(format_table(results, twins=True, width=table_width(args)))
            print(format_coverage(cov))
            rejected = twins_rejected(results)
            declared = sum(1 for r in results
                           if r.claim.rejects(r.verdict) and r.verdict.verdict == "undecided")
            how = ("refuted" if not declared else
                   f"rejected ({rejected - declared} refuted, {declared} undecided as declared)")
            print(f"self-test: {rejected}/{len(results)} false twins {how}"
                  + ("" if ok else " — FAILED: a checker accepted a false claim"))
        return _exit_code(ok, results, time_limit)

    results = (run_claims_parallel(chosen, ctx, workers=args.workers, scheduler=args.scheduler,
                                   deadline=deadline)
               if parallel else run_claims(chosen, ctx, stop_on_interrupt=True,
                                           deadline=deadline))
    ok = all_claims_proved(results)
    if args.json:
        print_json(_with_time_limit(to_json(results), results, time_limit))
    elif args.latex is not None:
        emit_latex(args, format_table(results, fmt="latex"))
    else:
        print(format_table(results, width=table_width(args)))
        s = to_json(results)["summary"]
        total = sum(r.verdict.seconds for r in results)
        print(f"{s['proved']} proved, {s['refuted']} refuted, {s['undecided']} undecided "
              f"of {len(results)} claims in {total:.1f} s")
        for r in results:  # the claims not run are counted by the time-limit line instead
            if not r.verdict.proved and r.verdict.detail != TIME_LIMIT_REACHED:
                print(f"  {r.verdict.verdict.upper()}: {r.claim.id}: {r.verdict.detail}",
                      file=sys.stderr)
    return _exit_code(ok, results, time_limit)


def _claims_done(results: list) -> int:
    return sum(1 for r in results if r.verdict.detail != TIME_LIMIT_REACHED)


def _with_time_limit(doc: dict, results: list, time_limit: float | None) -> dict:
    """``doc`` plus ``"time_limit": {"seconds", "reached", "claims_done", "claims"}`` when
    ``--time-limit`` was given, else ``"time_limit": null``."""
    doc["time_limit"] = None
    if time_limit is not None:
        doc["time_limit"] = {"seconds": time_limit, "reached": stopped_by_time_limit(results),
                             "claims_done": _claims_done(results), "claims": len(results)}
    return doc


def _exit_code(ok: bool, results: list, time_limit: float | None = None) -> int:
    """0 success, 1 a claim not proved / a twin not refuted / the time limit reached first,
    130 stopped by Ctrl-C."""
    if was_interrupted(results):
        print("attnio verify: interrupted (unfinished claims reported as undecided)",
              file=sys.stderr)
        return 130
    if stopped_by_time_limit(results):
        print(f"attnio verify: time limit {time_limit:g} s reached; {_claims_done(results)} of "
              f"{len(results)} claims done", file=sys.stderr)
        return 1
    return 0 if ok else 1
