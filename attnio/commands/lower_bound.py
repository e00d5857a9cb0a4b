"""``attnio lower-bound`` — every certified lower-bound route on one DAG, with certificates.

Usage::

    attnio lower-bound --dag FILE.json --M M [--time-limit S] [--solver-time-limit S] [--json]
    attnio lower-bound --builtin matmul:2x2x2 --M 3 [--json]

Prints every route of :func:`attnio.graphs.lower_bounds.certified_routes`: its value (an
exact int), whether its hypotheses hold (and why not), a summary of its certificate and the
independent checker's verdict; then the best route. Only a route whose certificate the
checker re-verified counts as a bound: a route its own checker refutes is printed as
"refuted", never with its value in the bound column, and never as ``best``.

Bounded work
------------
* ``--solver-time-limit S`` (seconds, default 20) bounds each z3 call of the Hong-Kung
  partition, never beyond the time left (``--z3-timeout-ms MS`` is its deprecated spelling).
* ``--time-limit S`` (seconds >= 0, default 60) bounds the whole command, from the
  start of the process (its imports and the reading of the DAG included; the routes stop
  :data:`EXIT_RESERVE` s, at most 15 % of S, early to leave time to print and exit): every route and
  every certificate check reads the clock in each phase (DP layers, candidate sets, z3 calls,
  exact solves), and the time left is split evenly over the phases still to run. A route cut
  short is reported "not computed: time limit" (value 0, not a bound), a check cut short
  "certificate not checked: time limit" (not counted), and the best line says
  ``best so far (time limit S s reached): ...`` (``"complete": false`` in ``--json``).
* The DAG has at most :data:`MAX_LOWER_BOUND_VERTICES` vertices and
  :data:`MAX_LOWER_BOUND_EDGES` edges (exit 2 naming the cap; a file is measured before the
  graph is built, a ``--builtin`` by its closed-form size before it is built). ``pebble``
  refuses beyond :data:`attnio.graphs.exact.MAX_EXACT_VERTICES` because exact search is
  exponential; the lower-bound routes are bounded by the time limit instead, so the cap only
  keeps the linear phases (reading, the must-compute set, the per-part recount) within seconds.
* ``M`` below the in-degree + 1 of a vertex every schedule computes: ``infeasible`` at once
  (no schedule exists, exit 1 as in ``attnio pebble``), the rule of
  :func:`attnio.graphs.exact.min_cache_size`.
* Declared metadata (``graph.builder``, ``graph.params``) is only used once the DAG's
  structure confirms it (:func:`attnio.graphs.lower_bounds.builtin_structure`); a
  declaration the structure refutes is bad input (exit 2).
* A status line on stderr names the route (and whether its certificate is being checked)
  when stderr is a terminal (or ``ATTNIO_PROGRESS=1``), :class:`attnio.progress.StageStatus`.

``--json`` prints (notes/json.md)::

    {"command": "lower-bound", "verdict": "proved" | "refuted" | "undecided" | "infeasible",
     "M": int, "complete": bool, "time_limit": float, "seconds": float,
     "bounds": [{"route", "value", "applies", "why_not", "certificate",
     "checker": {"verdict", "detail"}, "counted": bool}], "best": {"route", "value"} | null,
     "detail": str (why infeasible) | null, "attnio_version": ..., "versions": {...}}

(``verdict``: ``proved`` when every certificate was re-verified and no route was cut short,
``refuted`` when a checker rejected one, ``undecided`` when the time limit cut work short,
``infeasible`` when no schedule exists at this M.)

(``value`` is null for a record that applies but was not certified; its claim is then under
``claimed_value``.)

Exit codes: 0 every route computed and every certificate re-verified (or infeasible); 1 a
certificate was rejected, or the time limit cut work short (the best so far is printed);
2 bad input.

Examples
--------
>>> import argparse, contextlib, io
>>> args = argparse.Namespace(dag=None, builtin="matmul:1x2x1", cache="3", json=False,
...                           solver_time_limit=20.0, time_limit=60)
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     code = run(args)
>>> code, out.getvalue().splitlines()[-1]
(0, 'best: spill-windows = 7')
"""

from __future__ import annotations

import argparse
import os
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable

import networkx as nx

from attnio import interrupts
from attnio.commands.instance_flags import BUILTIN_EXAMPLES
from attnio.commands.pebble import parse_builtin
from attnio.exceptions import InvalidInputError
from attnio.flags import (
    add_cache_size_arguments,
    add_solver_time_limit_argument,
    add_time_limit_argument,
    add_wide_argument,
    parse_seconds,
    solver_milliseconds,
    table_width,
)
from attnio.graphs.dagio import load_dag
from attnio.graphs.game import validate_cache_size
from attnio.graphs.lower_bounds import (
    BoundRecord,
    CertifiedRoute,
    Deadline,
    builtin_structure,
    certified_routes,
    least_cache_size,
    route_of,
)
from attnio.output import print_document
from attnio.progress import StageStatus, progress_enabled
from attnio.results import overall_verdict
from attnio.tables import fit_text, render_table
from attnio.validation import parse_sizes

__all__ = ["register", "run", "summarise_certificate", "summarise_fields", "MAX_LOWER_BOUND_VERTICES",
           "MAX_LOWER_BOUND_EDGES", "DEFAULT_TIME_LIMIT"]

#: Most vertices of a DAG ``attnio lower-bound`` accepts (exit 2 beyond; see the module
#: docstring — attention-backward n = d = 8 has 5,488).
MAX_LOWER_BOUND_VERTICES = 20_000
#: Most edges of a DAG ``attnio lower-bound`` accepts (exit 2 beyond).
MAX_LOWER_BOUND_EDGES = 100_000
#: Default ``--time-limit`` in seconds.
DEFAULT_TIME_LIMIT = 60.0
#: Seconds before ``--time-limit`` at which the routes stop (at most 15 % of the limit), so
#: that printing and the interpreter's exit also fit inside the limit.
EXIT_RESERVE = 0.75


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "lower-bound", help="certified lower bounds on the pebbling I/O of a DAG",
        description="Certified lower bounds on Q(G, M) (Hong-Kung red-blue pebble game, "
                    "recomputation allowed): every route with its certificate, then the best.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", metavar="FILE",
                        help='FILE.json {"nodes": [...], "edges": [[u, v], ...], "outputs": '
                             "[...]}, node-link JSON, or FILE.dot / FILE.gv")
    builtin = source.add_argument(
        "--builtin", metavar="SPEC",
        help="matmul:MxKxP[:tree|chain|fma] | attention-forward:n=N,d=D | "
             "attention-backward:n=N,d=D[,gradient=qkv|dX]")
    builtin.complete_values = BUILTIN_EXAMPLES  # type: ignore[attr-defined]  # completion
    add_cache_size_arguments(parser, command="lower-bound", dest="cache", aliases=("--cache",),
                             sweep=False, required=True, help="red pebbles")
    add_time_limit_argument(parser, default=DEFAULT_TIME_LIMIT,
                            help="seconds for the whole command, every route and certificate "
                                 "check included; then the best bound so far is printed "
                                 "(default 60)")
    add_solver_time_limit_argument(parser, default=20.0,
                                   help="seconds per z3 call of the Hong-Kung partition "
                                        "(default 20; never beyond the time limit)",
                                   deprecated_ms=("lower-bound", "--z3-timeout-ms"))
    parser.add_argument("--json", action="store_true", help="JSON on stdout")
    add_wide_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def summarise_certificate(record: BoundRecord) -> str:
    """One line describing a record's certificate: its registered route's ``describe``
    (:data:`attnio.graphs.lower_bounds.ROUTES`).

    >>> summarise_certificate(BoundRecord("compulsory", 3, True, None,
    ...     {"reads": 2, "writes": 1}))
    '2 needed inputs read + 1 non-input outputs written'
    """
    if not record.applies:
        return "—"
    route = route_of(record.route)
    if route is None:  # not a registered route's record: its certificate by its fields
        return summarise_fields(record.certificate)
    return route.describe(record.certificate)


def summarise_fields(certificate: Any) -> str:
    """A certificate summarised by its fields, never cut inside a name or a number: a short
    scalar shown whole (``key=value``), a list or object by its size, then where the whole
    certificate is (issue 34: a JSON certificate was printed cut off mid-object).

    >>> summarise_fields({"value": 12, "members": [1, 2, 3], "note": "x" * 80})
    'value=12; members: 3 items; note: 80 characters (the whole certificate: --json)'
    """
    if not isinstance(certificate, dict):
        return "see --json for the certificate"
    parts = []
    for key, value in certificate.items():
        if isinstance(value, (list, tuple)):
            parts.append(f"{key}: {len(value)} items")
        elif isinstance(value, dict):
            parts.append(f"{key}: {len(value)} fields")
        elif isinstance(value, str) and len(value) > 30:
            parts.append(f"{key}: {len(value)} characters")
        else:
            shown = str(value)
            parts.append(f"{key}={shown}" if len(shown) <= 30 else f"{key}: {len(shown)} digits")
    return "; ".join(parts) + " (the whole certificate: --json)"


def _command_started() -> float:
    """:func:`time.monotonic` at the start of the command: the start of the process when
    attnio runs as a command (so ``--time-limit`` bounds its wall time, imports included),
    else (a call from Python, e.g. a test) now."""
    now = time.monotonic()
    if not interrupts._state.get("installed"):
        return now
    try:  # Linux: the process start, in clock ticks since boot
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0 <= age < 60 else now


def _check_size(G: nx.DiGraph) -> None:
    """Refuse a DAG over :data:`MAX_LOWER_BOUND_VERTICES` / :data:`MAX_LOWER_BOUND_EDGES`."""
    if G.number_of_nodes() > MAX_LOWER_BOUND_VERTICES:
        raise InvalidInputError(f"the DAG has {G.number_of_nodes()} vertices; lower-bound "
                                f"accepts at most MAX_LOWER_BOUND_VERTICES="
                                f"{MAX_LOWER_BOUND_VERTICES}")
    if G.number_of_edges() > MAX_LOWER_BOUND_EDGES:
        raise InvalidInputError(f"the DAG has {G.number_of_edges()} edges; lower-bound "
                                f"accepts at most MAX_LOWER_BOUND_EDGES={MAX_LOWER_BOUND_EDGES}")


def _load(args: argparse.Namespace) -> nx.DiGraph:
    if args.dag is not None:
        G = load_dag(args.dag, max_vertices=MAX_LOWER_BOUND_VERTICES,
                     max_edges=MAX_LOWER_BOUND_EDGES,
                     cap_names=("MAX_LOWER_BOUND_VERTICES", "MAX_LOWER_BOUND_EDGES"))
        builtin_structure(G)  # declared metadata confirmed before any route runs (exit 2)
    else:
        G = parse_builtin(args.builtin, max_vertices=MAX_LOWER_BOUND_VERTICES,
                          limit_name="MAX_LOWER_BOUND_VERTICES")
    _check_size(G)
    return G


def _status_text(c: CertifiedRoute) -> tuple[str, str]:
    """``(value column, status)`` of one record: a value only for a certified bound."""
    rec = c.record
    if c.certified:
        return str(rec.value), "applies"
    if not rec.applies:
        return str(rec.value), (rec.why_not if rec.why_not and rec.why_not.startswith(
            "not computed") else f"does not apply: {rec.why_not}")
    if c.refuted:
        return "—", f"REFUTED by its own checker: not a bound (claimed {rec.value})"
    return "—", f"not counted: {c.verdict.detail} (claimed {rec.value}, unverified)"


def route_table(results: list[CertifiedRoute], *, width: int | None = None) -> str:
    """One row per route (:func:`attnio.tables.render_table`): route, bound (``—`` when not
    counted), and its status with the certificate and the checker's verdict under it;
    ``width`` wraps that last column (None: full width)."""
    rows = []
    for c in results:
        value, status = _status_text(c)
        lines = [status]
        if c.certified:
            lines.append(f"certificate: {summarise_certificate(c.record)}")
        if c.certified or c.refuted:
            lines.append(f"checker: {c.verdict.verdict} — {c.verdict.detail}")
        rows.append([c.record.route, value, "\n".join(lines)])
    return render_table(["route", "bound", "status, certificate, checker"], rows,
                        align=["left", "right", "left"], max_width=width, wrap=[2])


def _record_json(c: CertifiedRoute) -> dict[str, Any]:
    obj = c.record.as_dict()
    if c.record.applies and not c.certified:
        obj["claimed_value"], obj["value"] = obj["value"], None
    obj["checker"] = {"verdict": str(c.verdict.verdict), "detail": c.verdict.detail}
    obj["counted"] = c.certified
    return obj


def run(args: argparse.Namespace) -> int:
    started = _command_started()
    time_limit = parse_seconds("--time-limit", getattr(args, "time_limit", DEFAULT_TIME_LIMIT))
    # the routes stop a little before the limit, leaving time to print and for the
    # interpreter to exit (ending it takes ~0.5 s once sympy is loaded)
    deadline = Deadline(started + time_limit - min(EXIT_RESERVE, 0.15 * time_limit))
    M = validate_cache_size(parse_sizes("M", args.cache, single=True)[0])
    timeout = solver_milliseconds(parse_seconds(
        "--solver-time-limit", getattr(args, "solver_time_limit", 20.0), allow_zero=False))
    G = _load(args)
    header = f"{G.number_of_nodes()} vertices, {G.number_of_edges()} edges, M = {M}"
    need, worst = least_cache_size(G)
    if M < need:  # no complete schedule: nothing to bound (the rule of exact.min_cache_size)
        reason = (f"M={M} is below the {need} red pebbles vertex {worst!r} needs "
                  f"(in-degree {need - 1} + 1)")
        if args.json:
            print_document("lower-bound", "infeasible", {
                "M": M, "complete": True, "time_limit": time_limit,
                "seconds": round(time.monotonic() - started, 3), "bounds": [], "best": None,
                "detail": reason})
        else:
            print(header)
            print(fit_text(f"infeasible: {reason}; no complete schedule exists",
                           table_width(args), indent="  "))
        return 1  # the "infeasible" verdict: no schedule to bound (as in `attnio pebble`)
    status = StageStatus("attnio lower-bound", enabled=progress_enabled())
    stage: Callable[[str], AbstractContextManager[Any]] = (
        status.stage if status.enabled else (lambda _name: nullcontext()))
    try:
        results = certified_routes(G, M, deadline=deadline, timeout_ms=timeout, stage=stage,
                                   detail=status.detail)
    finally:
        status.close()
    counted = [c for c in results if c.certified]
    best = max(counted, key=lambda c: c.record.value, default=None)
    complete = not any(c.cut_by_time for c in results)
    failed = any(not c.verdict.proved for c in results)
    code = 1 if failed or not complete else 0
    seconds = time.monotonic() - started
    if args.json:  # the verdict mirrors the exit code: a rejected or unchecked certificate,
        # or a route cut short, is never a pass
        verdict = overall_verdict([*(c.verdict.verdict for c in results),
                                   *([] if complete else ["undecided"])])
        print_document("lower-bound", verdict, {
            "M": M, "complete": complete, "time_limit": time_limit,
            "seconds": round(seconds, 3), "bounds": [_record_json(c) for c in results],
            "best": None if best is None else {"route": best.record.route,
                                               "value": int(best.record.value)},
            "detail": None})
        return code
    print(header)
    print(route_table(results, width=table_width(args)))
    label = "best" if complete else f"best so far (time limit {time_limit:g} s reached)"
    if best is None:
        print(f"{label}: none certified")
    else:
        print(f"{label}: {best.record.route} = {best.record.value}")
    return code
