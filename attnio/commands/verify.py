"""``attnio verify``: check every claim of the paper and its parents, or the planted twins.

Usage::

    attnio verify [--only PATTERN] [--json | --latex [FILE.tex] | --wide] [--self-test]
                  [--deep] [--solver-time-limit S] [--time-limit S]
                  [--workers N | --scheduler ADDRESS]
                  [--kernel coq [--coq-dir DIR] [--coq-time-limit S]]

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
* ``--kernel coq``: after the claims, re-prove the ``smt-forall`` and ``sympy-canonical``
  ones in Coq (:mod:`attnio.proofs.coq_kernel`: each statement printed as a Coq theorem,
  ``coqc`` with ``--coq-time-limit`` seconds per file, a timeout is *not re-proved*): a
  column ``coq`` in the table, a key ``"coq"`` per claim and a ``"coq"`` summary in the
  JSON, and the figure with the list of the claims not re-proved (and why) under the table.
  With ``--self-test`` the false twins of those claims go to Coq too: a false twin coqc
  accepts is a defect of the printer, and the exit code is 1. ``--coq-dir DIR`` writes the
  ``.v`` files coqc accepted and a ``_CoqProject`` to DIR (``coqc`` re-checks them without
  attnio; a file attnio did not write there is never replaced). Without ``coqc``: exit 2.

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
from attnio.proofs.coq_kernel import (
    DEFAULT_TIMEOUT_S,
    CoqVerdict,
    coq_json,
    is_false_statement,
    recheck_claims,
    summary_lines,
    targets,
    write_folder,
)
from attnio.proofs.registry import CheckContext, load_claims, load_false_twins
from attnio.proofs.runner import (
    TIME_LIMIT_REACHED,
    all_claims_proved,
    all_twins_refuted,
    coverage,
    format_coverage,
    run_claims,
    run_claims_parallel,
    select,
    self_test,
    stopped_by_time_limit,
    twins_rejected,
    was_interrupted,
)
from attnio.reporting.verdicts import format_table, to_json
from attnio.smt.coqc import coqc_binary
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
    parser.add_argument("--kernel", choices=("smt", "coq"), default="smt",
                        help="smt (default): z3 and cvc5 only; coq: then re-prove the "
                             "smt-forall and sympy-canonical claims in Coq (coqc)")
    parser.add_argument("--coq-dir", metavar="DIR",
                        help="with --kernel coq: write the .v files coqc accepted and a "
                             "_CoqProject to DIR")
    parser.add_argument("--coq-time-limit", metavar="SECONDS", type=float,
                        default=DEFAULT_TIMEOUT_S,
                        help=f"with --kernel coq: seconds of coqc per file (default "
                             f"{DEFAULT_TIMEOUT_S:g}); a timeout is not re-proved")
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
    coq_kernel = getattr(args, "kernel", "smt") == "coq"
    _check_coq_options(args, coq_kernel)
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
        coq = _coq(args, chosen, claims) if coq_kernel and not was_interrupted(results) \
            else None
        if coq is not None:
            ok = ok and not any(v.rechecked for c, v in coq.items()
                                if is_false_statement(_by_id(chosen)[c]))
        if args.json:
            doc = to_json(results, coq=_coq_rows(coq))
            # the self-test's answer: every twin rejected; a twin a checker proved is a
            # refutation of "the checkers can fail"; anything else is undecided
            doc["verdict"] = ("proved" if ok else "refuted" if any(
                r.verdict.proved for r in results) else "undecided")
            doc["self_test"] = {"all_refuted": ok,
                                "coverage": {f: {"claims": c, "twins": t, "refuted": r}
                                             for f, (c, t, r) in cov.items()}}
            if coq is not None:
                doc["coq"] = coq_json(list(coq.values()), chosen, twins=True)
            print_json(_with_time_limit(doc, results, time_limit))
        elif args.latex is not None:
            emit_latex(args, format_table(results, twins=True, fmt="latex",
                                          coq=_coq_column(coq, twins=True)))
        else:
            print(format_table(results, twins=True, width=table_width(args),
                               coq=_coq_column(coq, twins=True)))
            print(format_coverage(cov))
            if coq is not None:
                print("\n".join(summary_lines(list(coq.values()), chosen, twins=True)))
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
    coq = _coq(args, chosen, claims) if coq_kernel and not was_interrupted(results) else None
    if args.json:
        doc = to_json(results, coq=_coq_rows(coq))
        if coq is not None:
            doc["coq"] = coq_json(list(coq.values()), chosen)
        print_json(_with_time_limit(doc, results, time_limit))
    elif args.latex is not None:
        emit_latex(args, format_table(results, fmt="latex", coq=_coq_column(coq)))
    else:
        print(format_table(results, width=table_width(args), coq=_coq_column(coq)))
        s = to_json(results)["summary"]
        total = sum(r.verdict.seconds for r in results)
        print(f"{s['proved']} proved, {s['refuted']} refuted, {s['undecided']} undecided "
              f"of {len(results)} claims in {total:.1f} s")
        if coq is not None:
            print("\n".join(summary_lines(list(coq.values()), chosen)))
        for r in results:  # the claims not run are counted by the time-limit line instead
            if not r.verdict.proved and r.verdict.detail != TIME_LIMIT_REACHED:
                print(f"  {r.verdict.verdict.upper()}: {r.claim.id}: {r.verdict.detail}",
                      file=sys.stderr)
    return _exit_code(ok, results, time_limit)


def _check_coq_options(args: argparse.Namespace, coq_kernel: bool) -> None:
    """``--coq-dir`` and ``--coq-time-limit`` need ``--kernel coq``, which needs coqc."""
    if getattr(args, "coq_dir", None) and not coq_kernel:
        raise InvalidInputError("--coq-dir needs --kernel coq")
    limit = getattr(args, "coq_time_limit", DEFAULT_TIMEOUT_S)
    if not limit > 0 or limit > 3600:
        raise InvalidInputError(f"--coq-time-limit {limit} must be > 0 and at most 3600 seconds")
    if coq_kernel and coqc_binary() is None:
        raise InvalidInputError("--kernel coq needs coqc: install Coq (Debian package `coq`, "
                                "apt-get install coq) or set ATTNIO_COQC")


def _by_id(claims: list) -> dict:
    return {c.id: c for c in claims}


def _coq(args: argparse.Namespace, chosen: list, claims: list) -> dict[str, CoqVerdict]:
    """Re-prove the chosen claims (or twins) Coq re-checks; write ``--coq-dir``."""
    pool = targets(chosen, claims if args.self_test else None)
    verdicts = recheck_claims(pool, timeout=args.coq_time_limit, prog="attnio verify")
    if args.coq_dir:
        files = [f for v in verdicts if v.rechecked for f in v.files]
        written = write_folder(args.coq_dir, files)
        print(f"wrote {written[-1]} and {len(written) - 1} .v files",
              file=sys.stderr if args.json else sys.stdout)
    return {v.claim_id: v for v in verdicts}


def _coq_rows(coq: dict[str, CoqVerdict] | None) -> dict | None:
    return None if coq is None else {k: v.to_json() for k, v in coq.items()}


def _coq_column(coq: dict[str, CoqVerdict] | None, twins: bool = False) -> dict | None:
    if coq is None:
        return None
    if twins:
        return {k: "ACCEPTED" if v.rechecked else "rejected" for k, v in coq.items()}
    return {k: "re-proved" if v.rechecked else "not re-proved" for k, v in coq.items()}


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
