"""``attnio pebble`` — exact optimal red–blue pebbling and schedule replay from the command line.

Usage::

    attnio pebble --dag FILE.json --M M [--no-recompute] [--time-limit S] [--json]
    attnio pebble --builtin matmul:2x2x2 --cache LO:HI [--table] [--json]
    attnio pebble --builtin attention-forward:n=2,d=1 --cache 3:6
    attnio pebble --builtin attention-backward:n=2,d=1[,gradient=dX] --cache 12
    attnio pebble --replay SCHEDULE.json (--dag FILE.json | --builtin SPEC) --cache M
    attnio pebble --builtin matmul:2x2x2 --export-dag g.json [--force]   # or g.dot / g.gv
    attnio pebble --dag A.json B.json --M LO:HI [--workers N | --scheduler ADDRESS]
    attnio pebble --builtin matmul:2x2x2 --M-geom 4:32:4 --time-limit 30
    attnio pebble --einsum "ij,jk->ik" --sizes i=2,j=2,k=2 --M 4 --show
    attnio pebble --dag peer.hdag --M 5 --method sat --certify proofs/

``--time-limit S`` (seconds, >= 0; default none) is the whole call's budget: no instance starts
after it and each instance stops at it (an instance not started is undecided, reason
``time limit reached before this instance started``). ``--solver-time-limit S`` (> 0;
default 60) bounds each instance (one DAG at one cache size) as a whole, never beyond the time
left: the algorithm schedules are built first and the solver gets the rest, and reads the clock
in every phase (``attnio.graphs.exact``). ``--workers N`` / ``--scheduler ADDRESS`` solve the
instances on Dask (``attnio.parallel``): same results, same order; an instance whose worker
died twice is reported undecided with the reason.

Each instance is solved *anytime* (:mod:`attnio.graphs.anytime`): the compulsory I/O is the
first lower bound, a heuristic schedule (:mod:`attnio.graphs.heuristic_schedule`) the first
upper bound, and when they meet the answer is optimal at once; otherwise the exact search runs
with that schedule as its incumbent. An undecided answer carries the best schedule as
``moves`` (it replays to ``upper_bound``); on Ctrl-C the instance being solved is reported
undecided (reason ``interrupted``) with its bracket and best schedule, then exit 130.

Exit codes: 0 decided (optimal; a sweep whose sizes differ, some infeasible) / a legal
schedule; 1 undecided (budget ran out), infeasible (no schedule at any size asked: M below the
largest in-degree + 1) or an illegal schedule; 2 bad input (one line); 130 interrupted. The
code mirrors the ``--json`` document's top-level ``verdict`` (notes/json.md).

``--json`` prints one object (notes/json.md): ``{"command": "pebble", "verdict",
"instances": [{"dag", "M", "recompute", "verdict", "io", "lower", "upper", "moves",
"states_explored", "seconds", "detail", "algorithm_costs", "certified_lower_bound": {"route",
"value"}}, ...], "interrupted", "attnio_version", "versions"}`` — one instance per DAG and
cache size; an instance's ``verdict`` is ``optimal`` / ``infeasible`` / ``undecided`` (with
its proven bracket ``lower <= Q <= upper``), the top-level one their
:func:`attnio.results.overall_verdict`. That output is itself a schedule file for
``--replay`` (the instance whose ``M`` equals ``--cache`` is replayed; the list printed by
attnio before 0.2 is read too). ``--method`` picks the exact engine
(:mod:`attnio.graphs.engines`; ``auto``: the compiled core when numba is installed, and on a
DAG with a small SAT horizon half the time for SAT refutations after the search,
:mod:`attnio.graphs.portfolio`). ``--replay --json`` prints ``{"command": "pebble",
"verdict": "proved" | "refuted", "detail", "M", "recompute", "io", "reads", "writes",
"peak_red", "counterexample"}``: ``proved`` — the schedule is legal and costs ``io``;
``refuted`` — it is not, ``counterexample`` = ``{"index", "rule"}`` of the first illegal move.

``--dag`` reads and ``--export-dag FILE`` writes (atomically, an existing file only with
``--force``; without ``--cache`` nothing is solved) attnio's DAG JSON / networkx node-link JSON,
Graphviz DOT (``.dot``, ``.gv``) and HyperDAG (``.hdag``, OneStopParallel / HyperDAG_DB).

``--M`` (alias ``--cache``) is one value, a list ``V1,V2,...`` or a range ``LO:HI[:STEP]``
(:func:`attnio.validation.parse_sizes`, the parser of every command); ``--M-geom LO:HI:COUNT``
COUNT geometrically spaced sizes (:mod:`attnio.flags`).

Limits (bad input, exit 2): ``--M`` names at most
:data:`attnio.validation.MAX_CACHE_SIZES` sizes; a ``--builtin`` DAG has at most
:data:`MAX_BUILTIN_VERTICES` vertices, and exact search takes at most
:data:`attnio.graphs.exact.MAX_EXACT_VERTICES`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import time
from typing import Any

import networkx as nx

from attnio.commands.instance_flags import BUILTIN_EXAMPLES
from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.extras import require
from attnio.flags import (
    add_cache_size_arguments,
    add_parallel_arguments,
    add_solver_time_limit_argument,
    add_time_limit_argument,
    add_wide_argument,
    parallel_options,
    table_width,
)
from attnio.graphs.anytime import AnytimeProgress, anytime_pebble
from attnio.graphs.dagio import load_dag, load_schedule, save_dag
from attnio.graphs.dags import (
    attention_backward_dag,
    attention_forward_dag,
    expected_size,
    matmul_dag,
    shown_count,
    size_floor,
)
from attnio.graphs.einsum import einsum_dag, parse_sizes_spec
from attnio.graphs.engines import METHODS, resolve_method
from attnio.graphs.exact import (
    validate_exact_size,
)
from attnio.graphs.game import replay
from attnio.graphs.lower_bounds import CERTIFIED_ALL_ROUTES_VERTICES, certified_lower_bound
from attnio.graphs.lower_bounds.counting import validate_declared_builder
from attnio.graphs.lower_bounds.deadline import Deadline
from attnio.graphs.pebble_result import PebbleResult
from attnio.graphs.portfolio import sat_portfolio, sat_share
from attnio.graphs.proof_files import LOWER_PROOF_WORDS, certificate_stem, certify_optimum
from attnio.graphs.schedules import algorithm_schedules
from attnio.output import print_document
from attnio.parallel import map_instances
from attnio.progress import StageStatus
from attnio.reporting.schedule import plot_schedule, timeline_from_graph, timeline_text
from attnio.reporting.style import render_figure
from attnio.results import Status, overall_verdict
from attnio.safe_io import write_bytes
from attnio.tables import fit_text, number_column, render_table
from attnio.validation import (
    MAX_CACHE_SIZES,
    PLOT_SUFFIXES,
    describe,
    parse_int_range,
    parse_positive_int,
    parse_sizes,
    validate_output_path,
)

__all__ = ["register", "run", "parse_builtin", "parse_cache_range", "result_to_json",
           "MAX_BUILTIN_VERTICES", "EXPORT_SUFFIXES"]

#: Largest ``--builtin`` DAG (vertices) built at all; checked on the closed-form size
#: (:func:`attnio.graphs.dags.expected_size`) before any vertex is allocated.
MAX_BUILTIN_VERTICES = 200_000
#: Default ``--solver-time-limit`` of one instance (seconds).
DEFAULT_INSTANCE_SECONDS = 60.0
#: ``--export-dag`` extension → format of :func:`attnio.graphs.dagio.save_dag`.
EXPORT_SUFFIXES = {".json": "node-link", ".dot": "dot", ".gv": "dot", ".hdag": "hdag"}


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "pebble", help="exact optimal red-blue pebbling of a DAG; replay a schedule",
        description="Exact optimal red-blue pebbling (Hong-Kung game, inputs = sources).")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", metavar="FILE", nargs="+",
                        help='FILE.json {"nodes": [...], "edges": [[u, v], ...], "outputs": '
                             "[...]}, node-link JSON, FILE.dot / FILE.gv or a HyperDAG "
                             "FILE.hdag (several files: one "
                             "instance per file and cache size)")
    source.add_argument("--einsum", metavar="PROGRAM",
                        help='an einsum chain with --sizes: "ij,jk->ik", or statements like '
                             '"S[ij] = Q[ia] K[ja]; P[ij] = softmax_j(S[ij]); O[ia] = P[ij] '
                             'V[ja]" (attnio.graphs.einsum)')
    builtin = source.add_argument(
        "--builtin", metavar="SPEC",
        help="matmul:MxKxP[:tree|chain|fma] | attention-forward:n=N,d=D | "
             "attention-backward:n=N,d=D[,gradient=qkv|dX]")
    builtin.complete_values = BUILTIN_EXAMPLES  # type: ignore[attr-defined]  # completion
    parser.add_argument("--sizes", metavar="i=N,j=N,...",
                        help="the index letters' sizes of --einsum")
    parser.add_argument("--replay", metavar="SCHEDULE.json",
                        help="validate this schedule on --dag instead of solving")
    parser.add_argument("--show", action="store_true",
                        help="print the schedule (optimal, best found, or --replay's) as a "
                             "timeline: step, move, vertex, red pebbles, I/O so far")
    parser.add_argument("--plot", metavar="FILE",
                        help="draw that schedule (.png, .pdf, .svg; one DAG and one M; needs "
                             "attnio[plots])")
    parser.add_argument("--certify", metavar="DIR",
                        help="write per instance the schedule and a lower-end proof that "
                             "python -m attnio.check DIR/FILE.json checks (a SAT refutation "
                             "with a DRAT proof needs attnio[sat])")
    add_cache_size_arguments(parser, command="pebble", dest="cache", aliases=("--cache",),
                             max_count=MAX_CACHE_SIZES, limit_name="MAX_CACHE_SIZES",
                             help="red pebbles (required unless only --export-dag is asked)")
    parser.add_argument("--export-dag", metavar="FILE",
                        help="write the DAG: node-link JSON (.json), DOT (.dot, .gv) or "
                             "HyperDAG (.hdag)")
    parser.add_argument("--force", action="store_true",
                        help="let --export-dag replace an existing file")
    parser.add_argument("--no-recompute", action="store_true", help="one-shot variant")
    add_time_limit_argument(parser, help="seconds for the whole call (default: no limit): "
                                         "no instance starts after it, each instance stops at "
                                         "it; an instance cut short is undecided with its "
                                         "proven bracket")
    add_solver_time_limit_argument(parser, default=DEFAULT_INSTANCE_SECONDS,
                                   help="seconds per instance (one DAG at one cache size), "
                                        "every phase included, never beyond --time-limit "
                                        f"(default {DEFAULT_INSTANCE_SECONDS:g})")
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help="exact engine (attnio.graphs.engines): auto = compiled when "
                             "numba is installed (attnio[fast]), else reference, then SAT "
                             "refutations on a small horizon (attnio[sat])")
    parser.add_argument("--json", action="store_true", help="JSON on stdout")
    parser.add_argument("--table", action="store_true",
                        help="a table per cache size, with the algorithm schedules' costs")
    add_wide_argument(parser)
    add_parallel_arguments(parser, what="instances (DAG × cache size)")
    parser.set_defaults(handler=run)
    return parser


def parse_cache_range(text: str) -> tuple[int, int]:
    """``"5"`` → (5, 5); ``"3:8"`` → (3, 8); at most ``MAX_CACHE_SIZES`` sizes.

    >>> parse_cache_range("3:8")
    (3, 8)
    >>> parse_cache_range("0")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M=0 must be a positive integer
    """
    return parse_int_range("--cache", text)


def _builtin_size(name: str, params: dict[str, Any], max_vertices: int = MAX_BUILTIN_VERTICES,
                  limit_name: str = "MAX_BUILTIN_VERTICES") -> int:
    """Vertices of a builtin DAG, refused past ``max_vertices`` (default
    :data:`MAX_BUILTIN_VERTICES`) before building.

    A cheap lower bound (the m·k·p products, the n²·d score products) screens huge specs
    first, so the closed form (which lists an n×n mask) only runs on modest sizes.
    """
    floor = size_floor(name, **params)
    if floor > max_vertices:
        count = shown_count(floor)
    else:
        vertices = expected_size(name, **params)[0]
        if vertices <= max_vertices:
            return vertices
        count = str(vertices)
    raise InvalidInputError(f"builtin {name} with {params} has {count} vertices; "
                            f"at most {limit_name}={max_vertices}")


def parse_builtin(spec: str, *, max_vertices: int = MAX_BUILTIN_VERTICES,
                  limit_name: str = "MAX_BUILTIN_VERTICES") -> nx.DiGraph:
    """Build the DAG named by a ``--builtin`` spec (at most ``max_vertices`` vertices,
    default :data:`MAX_BUILTIN_VERTICES`, checked on the closed form before building;
    ``limit_name`` names the cap in the error).

    >>> parse_builtin("matmul:2x2x2").number_of_nodes()
    20
    >>> parse_builtin("attention-forward:n=2,d=1").number_of_nodes()
    24
    >>> parse_builtin("matmul:2x2")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: builtin 'matmul:2x2' must look like matmul:MxKxP[:tree|chain|fma]
    >>> parse_builtin("attention-forward:n=100000,d=100000")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: builtin attention-forward with {'n': 100000, 'd': 100000} has at least 1000000000000000 vertices; at most MAX_BUILTIN_VERTICES=200000
    """
    shown = describe(spec, 60)
    name, _, rest = spec.partition(":")
    if name == "matmul":
        # [0-9], not \d: one rule for every integer of a spec (ASCII digits, as --n)
        match = re.fullmatch(r"([0-9]+)x([0-9]+)x([0-9]+)(?::(tree|chain|fma))?", rest)
        if not match:
            raise InvalidInputError(
                f"builtin {shown} must look like matmul:MxKxP[:tree|chain|fma]")
        m, k, p = (parse_positive_int(key, match.group(i))
                   for key, i in (("m", 1), ("k", 2), ("p", 3)))
        summation = match.group(4) or "tree"
        _builtin_size("matmul", {"m": m, "k": k, "p": p, "summation": summation},
                      max_vertices, limit_name)
        return matmul_dag(m, k, p, summation)
    if name in ("attention-forward", "attention-backward"):
        params: dict[str, str] = {}
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or key.strip() in params:
                raise InvalidInputError(f"builtin {shown} must look like {name}:n=N,d=D")
            params[key.strip()] = value.strip()
        allowed = {"n", "d"} | ({"gradient"} if name == "attention-backward" else set())
        if not {"n", "d"} <= set(params) or not set(params) <= allowed:
            raise InvalidInputError(f"builtin {shown} must look like {name}:n=N,d=D")
        try:
            n, d = parse_positive_int("n", params["n"]), parse_positive_int("d", params["d"])
        except InvalidInputError as exc:
            raise InvalidInputError(f"builtin {shown}: {exc}") from None
        sizes: dict[str, Any] = {"n": n, "d": d}
        if name == "attention-forward":
            _builtin_size(name, sizes, max_vertices, limit_name)
            return attention_forward_dag(n, d)
        gradient = params.get("gradient", "qkv")
        if gradient not in ("qkv", "dX"):
            raise InvalidInputError(f"builtin {shown}: gradient must be qkv or dX")
        _builtin_size(name, {**sizes, "gradient": gradient}, max_vertices, limit_name)
        return attention_backward_dag(n, d, gradient)
    raise InvalidInputError(
        f"builtin {shown} is unknown; use matmul:..., attention-forward:... "
        f"or attention-backward:...")


def result_to_json(result: PebbleResult, M: int, recompute: bool) -> dict[str, Any]:
    """The ``--json`` object of one solver result: :meth:`PebbleResult.to_json` + M, recompute."""
    return {**result.to_json(), "M": M, "recompute": recompute}


@dataclasses.dataclass(frozen=True)
class PebbleJob:
    """One instance of ``attnio pebble`` as a serial run or a Dask worker receives it.

    ``instance_seconds`` is the instance's own limit (``--solver-time-limit``); with a
    ``wall_deadline`` (:func:`time.time` of the end of ``--time-limit``: a remote worker's
    monotonic clock is not ours) the instance gets the time left if that is less, and a limit
    reached is named after the flag that bound it (``whole_limit``). With ``certify`` the
    certified lower bound (``--json``) is computed too, inside the instance's time limit."""

    G: nx.DiGraph
    M: int
    recompute: bool
    instance_seconds: float
    certify: bool = False
    wall_deadline: float | None = None
    whole_limit: float | None = None
    method: str = "auto"


def _solve_job(job: PebbleJob) -> tuple[PebbleResult, dict, dict | None]:
    """What a serial run or a Dask worker does with one :class:`PebbleJob`."""
    time_limit = job.instance_seconds
    shown: float | None = time_limit  # the limit named when it is reached
    if job.wall_deadline is not None and job.wall_deadline - time.time() < time_limit:
        time_limit, shown = max(0.0, job.wall_deadline - time.time()), job.whole_limit
    return _solve(job.G, job.M, argparse.Namespace(
        no_recompute=not job.recompute, time_limit=time_limit, certify=job.certify,
        time_limit_shown=shown, method=job.method))


def _timed_out_job(job: PebbleJob) -> tuple[PebbleResult, dict, dict | None]:
    """An instance that ``--time-limit`` left no time to start: undecided, never dropped."""
    return PebbleResult.undecided(0, None, "time limit reached before this instance started"), {}, None


def _failed_job(job: PebbleJob, reason: str) -> tuple[PebbleResult, dict, dict | None]:
    """An instance whose Dask worker died twice: undecided, with the reason, never dropped
    (lower bound 0, upper bound the best algorithm schedule, computed here)."""
    G, M, recompute = job.G, job.M, job.recompute
    costs = {name: replay(G, moves, M, recompute=recompute).io
             for name, moves in algorithm_schedules(G, M).items()}
    return PebbleResult.undecided(0, min(costs.values()) if costs else None,
                                  reason), costs, None


def _solve(G: nx.DiGraph, M: int, args: argparse.Namespace
           ) -> tuple[PebbleResult, dict, dict | None]:
    # --time-limit bounds the whole instance: the certified lower bound (--json) and the
    # algorithm schedules are built first and the solver gets what is left (it reads the
    # clock in every phase of its own)
    started = time.monotonic()
    # on Ctrl-C the bracket so far is kept, whatever phase the instance is in (before the
    # search: the compulsory I/O or nothing, and no schedule yet)
    progress = AnytimeProgress()
    # off a terminal (CI logs, pipes) a long instance says what runs: a status line every
    # ATTNIO_STATUS_INTERVAL seconds with the solver's phase and bracket (on a terminal the
    # instances' progress bar does it; ATTNIO_PROGRESS=0 silences both)
    status = StageStatus("attnio pebble", announce=False, enabled=(
        os.environ.get("ATTNIO_PROGRESS") != "0" and not sys.stderr.isatty()))
    status.follow(lambda: f"{progress.phase}; {progress.lower_bound} <= Q <= "
                          f"{progress.upper_bound if progress.upper_bound is not None else '?'}")
    with status, status.stage(f"M={M}, {G.number_of_nodes()} vertices"):
        return _solve_staged(G, M, args, started, progress)


def _solve_staged(G: nx.DiGraph, M: int, args: argparse.Namespace, started: float,
                  progress: AnytimeProgress) -> tuple[PebbleResult, dict, dict | None]:
    """The body of :func:`_solve`, inside its status stage."""
    every_route: dict[str, Any] = {}  # the costly routes' answer, if anytime calls them
    recompute = not args.no_recompute
    certified = None
    costs: dict[str, int] = {}

    def costly_routes(seconds: float) -> tuple[int, str] | None:
        # every certified route (the sub-DAG exact solve last), within the seconds anytime
        # gives them: only for an instance the cheap bound, the heuristic and the zero-waste
        # search left open (issue 27: a trivial instance never pays for them)
        budget_ms = max(1, min(5_000, int(seconds * 1000)))
        found = certified_lower_bound(G, M, timeout_ms=budget_ms, deadline=Deadline.after(seconds))
        every_route.update(found)
        return found["value"], f"certified {found['route']}"

    try:
        if getattr(args, "certify", False):  # the bounded-cost routes first (milliseconds)
            certified = certified_lower_bound(G, M, all_routes=False,
                                              deadline=Deadline.after(args.time_limit / 4))
            progress.raise_lower(certified["value"], f"certified {certified['route']}")
        schedules = algorithm_schedules(G, M)
        costs = {name: replay(G, moves, M, recompute=recompute).io
                 for name, moves in schedules.items()}
        for name, moves in schedules.items():  # replayed above: the bracket's upper end
            progress.offer(costs[name], list(moves))
        remaining = max(0.0, args.time_limit - (time.monotonic() - started))
        # anytime (graphs/anytime.py): heuristic schedule first, stop when it meets the lower
        # bound, else exact search with it as incumbent; the certified routes (re-verified)
        # start the bracket's lower end, the anytime phases may raise it (issue 27, item 1)
        known = ({f"certified {certified['route']}": certified["value"]}
                 if certified is not None and certified["value"] > 0 else None)
        share = sat_share(G, args.method, recompute=recompute)  # auto, small horizon: SAT
        result = anytime_pebble(
            G, M, recompute=recompute, time_limit=remaining * (1 - share), incumbents=schedules,
            progress=progress, method=args.method, lower_bounds=known,
            lower_bound_routes=(costly_routes if certified is not None
                                and G.number_of_nodes() <= CERTIFIED_ALL_ROUTES_VERTICES
                                else None))
        if share:  # refutations raise the lower end with the time left (graphs/portfolio.py)
            result = sat_portfolio(G, M, result, recompute=recompute, progress=progress,
                                   time_limit=args.time_limit - (time.monotonic() - started))[0]
        if every_route and (certified is None or every_route["value"] >= certified["value"]):
            certified = dict(every_route)
    except KeyboardInterrupt as exc:
        exc.partial = (progress.undecided("interrupted"), costs,  # type: ignore[attr-defined]
                       certified)
        raise
    if result.verdict != Status.INFEASIBLE:  # report the instance's whole time
        changes: dict[str, Any] = {"seconds": time.monotonic() - started}
        if result.verdict == Status.UNDECIDED and result.reason.startswith("time limit"):
            shown = getattr(args, "time_limit_shown", args.time_limit)
            changes["detail"] = f"time limit {shown:g} s reached"
        result = dataclasses.replace(result, **changes)
    return result, costs, certified


def _show_timeline(G: nx.DiGraph, result: PebbleResult, M: int, args: argparse.Namespace,
                   label: str) -> None:
    kind = "optimal schedule" if result.verdict == Status.OPTIMAL else "best schedule found"
    saved, args.plot = args.plot, None  # --plot is drawn once, after every instance
    try:
        _show_and_plot(G, result.schedule, M, args, kind=kind, label=label)
    finally:
        args.plot = saved


def _line(result: PebbleResult, M: int) -> str:
    if result.verdict == Status.OPTIMAL:
        return (f"M={M}: optimal I/O = {result.io} ({result.states_explored} states, "
                f"{result.seconds:.2f} s)")
    if result.verdict == Status.INFEASIBLE:
        return f"M={M}: infeasible — {result.reason}"
    if result.upper is None:  # no schedule yet (an instance the time limit never started)
        return f"M={M}: undecided, Q >= {result.lower} ({result.reason})"
    return (f"M={M}: undecided, {result.lower} <= Q <= {result.upper} "
            f"({result.reason})")


def _export(G: nx.DiGraph, args: argparse.Namespace) -> None:
    """Write ``--export-dag`` (format by extension, :data:`EXPORT_SUFFIXES`)."""
    target = validate_output_path(args.export_dag, suffixes=EXPORT_SUFFIXES, overwrite=args.force,
                               what="--export-dag")
    fmt = EXPORT_SUFFIXES[target.suffix.lower()]
    save_dag(G, target, format=fmt, overwrite=args.force)
    if not args.json:
        print(f"wrote {target} ({fmt}, {G.number_of_nodes()} vertices, "
              f"{G.number_of_edges()} edges)")


def _replay(G: nx.DiGraph, M: int, args: argparse.Namespace) -> int:
    """``--replay``: validate a schedule file (or ``pebble --json`` output) on ``G``."""
    recompute = not args.no_recompute
    moves = load_schedule(args.replay, M)
    try:
        r = replay(G, moves, M, recompute=recompute)
    except IllegalMoveError as exc:
        if args.json:  # the claim "this schedule is legal" is refuted by its first bad move
            print_document("pebble", "refuted", {
                "detail": str(exc), "M": M, "recompute": recompute, "io": None, "reads": None,
                "writes": None, "peak_red": None,
                "counterexample": {"index": exc.index, "rule": exc.rule}})
        else:
            print(f"illegal: {exc}")
        return 1
    if args.json:
        print_document("pebble", "proved", {
            "detail": "the schedule is legal", "M": M, "recompute": recompute, "io": r.io,
            "reads": r.reads, "writes": r.writes, "peak_red": r.peak_red,
            "counterexample": None})
    else:
        print(f"legal: io = {r.io} (reads {r.reads}, writes {r.writes}, "
              f"peak red {r.peak_red} <= M={M})")
    _show_and_plot(G, moves, M, args, kind="schedule", label=args.replay)
    return 0


def _show_and_plot(G: nx.DiGraph, moves: list, M: int, args: argparse.Namespace, *,
                   kind: str, label: str) -> None:
    """``--show`` (a text timeline; not with --json) and ``--plot FILE`` of one schedule
    (:mod:`attnio.reporting.schedule`, after the game's validator replayed it)."""
    if not moves or not (args.show or args.plot):
        return
    timeline = timeline_from_graph(G, moves, M, label, kind=kind,
                                   recompute=not args.no_recompute)
    if args.show and not args.json:
        print(timeline_text(timeline, width=table_width(args)))
    if args.plot:
        target = validate_output_path(args.plot, suffixes=PLOT_SUFFIXES, overwrite=args.force,
                                      what="--plot")
        write_bytes(target, render_figure(lambda: plot_schedule(timeline), target),
                    overwrite=args.force)
        print(f"wrote {target}", file=sys.stderr if args.json else sys.stdout)


def _pebble_table(rows: list, instances: list, names: list[str], *, recompute: bool,
                  labelled: bool, width: int | None = None) -> str:
    """``--table``: one row per (DAG, M) — status, Q(G, M), the search's bracket, states,
    seconds and each algorithm schedule's cost (``-``: none at this M), printed by
    :func:`attnio.tables.render_table`, one number format per column. ``width`` (a
    terminal's 100 columns; None: full width) drops the seconds column, says so in a legend
    line, and wraps the DAG labels."""
    header = [*(["DAG"] if labelled else []), "M", "verdict", "Q(G,M)", "lower", "upper",
              "states", "seconds", *names]
    objects = [result_to_json(r, M, recompute) for M, r, _ in rows]
    columns = [*([[label for label, _, _ in instances]] if labelled else []),
               number_column([M for M, _, _ in rows]), [o["verdict"] for o in objects],
               *(number_column([o[key] for o in objects], missing="")
                 for key in ("io", "lower", "upper", "states_explored")),
               [f"{o['seconds']:.2f}" for o in objects],
               *(number_column([costs.get(n) for _, _, costs in rows]) for n in names)]
    align = ["left"] * labelled + ["right"] * (len(header) - labelled)
    if width is not None:  # the least useful column in 100 columns: in --wide and --json
        at = header.index("seconds")
        del header[at], columns[at], align[at]
    table = render_table(header, list(zip(*columns)), missing="", align=align,
                         max_width=width, wrap=[0] if labelled else [])
    return table + ("" if width is None else "\nseconds per instance: --wide or --json")


def _certify_folder(path: str) -> os.PathLike[str]:
    """``--certify DIR``: an existing folder, or one created now (its parent must exist);
    files already in it are never replaced unless --force."""
    from pathlib import Path

    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InvalidInputError(f"--certify {describe(path, 80)} is not a folder")
    if folder.is_symlink():
        raise InvalidInputError(f"--certify {describe(path, 80)} is a symlink; name the folder")
    if not folder.exists():
        if not folder.parent.is_dir():
            raise InvalidInputError(f"--certify {describe(path, 80)}: its parent folder does "
                                    "not exist")
        folder.mkdir()
    return folder


def run(args: argparse.Namespace) -> int:
    resolve_method(args.method)  # --method compiled without numba: exit 2, "install attnio[fast]"
    # the clock starts once the engine is loaded (importing numba is set-up, not the work)
    deadline = None if args.time_limit is None else time.monotonic() + args.time_limit
    wall_deadline = None if args.time_limit is None else time.time() + args.time_limit
    solver_limit = getattr(args, "solver_time_limit", DEFAULT_INSTANCE_SECONDS)
    recompute = not args.no_recompute
    # every cheap check before the (possibly large) graph is read or built
    if (args.sizes is None) != (getattr(args, "einsum", None) is None):
        raise InvalidInputError("--einsum and --sizes go together (--sizes i=2,j=2,... gives "
                                "the size of each index letter)")
    if args.cache is None:
        if args.export_dag is None:
            raise InvalidInputError("--cache M is required (unless only --export-dag is asked)")
        if args.replay is not None:
            raise InvalidInputError("--replay needs --cache M")
        Ms: list[int] = []
    else:
        Ms = args.cache if isinstance(args.cache, list) else parse_sizes(
            "M", args.cache, max_count=MAX_CACHE_SIZES, limit_name="MAX_CACHE_SIZES")
        if len(Ms) != 1 and args.replay is not None:
            raise InvalidInputError(f"--replay needs one cache size, not {len(Ms)}")
    if args.dag is not None and len(args.dag) > 1 and (args.replay is not None
                                                         or args.export_dag is not None):
        what = "--replay" if args.replay is not None else "--export-dag"
        raise InvalidInputError(f"{what} needs exactly one --dag FILE.json")
    if args.export_dag is not None:
        validate_output_path(args.export_dag, suffixes=EXPORT_SUFFIXES, overwrite=args.force,
                          what="--export-dag")
    if args.plot is not None:  # a bad target or a missing extra: exit 2 before any work
        validate_output_path(args.plot, suffixes=PLOT_SUFFIXES, overwrite=args.force,
                             what="--plot")
        if (args.dag is not None and len(args.dag) > 1) or len(Ms) != 1:
            raise InvalidInputError("--plot draws one schedule: one DAG and one cache size")
        require("plots", "--plot")  # after the usage rule: installing would not help that
    if args.certify is not None:
        if args.replay is not None:
            raise InvalidInputError("--certify writes proofs of solved instances, not of "
                                    "--replay")
        _certify_folder(args.certify)
    parallel = parallel_options(args)
    if args.dag is not None:
        graphs = [(path, validate_declared_builder(load_dag(path))) for path in args.dag]
    elif args.einsum is not None:
        graphs = [("einsum", einsum_dag(args.einsum, parse_sizes_spec(args.sizes)))]
    else:
        graphs = [(args.builtin, parse_builtin(args.builtin))]
    if args.export_dag is not None:
        _export(graphs[0][1], args)
        if args.cache is None:
            return 0
    if args.replay is not None:
        return _replay(graphs[0][1], Ms[0], args)
    for _, G in graphs:
        validate_exact_size(G)
    labelled = len(graphs) > 1
    instances = [(label, G, M) for label, G in graphs for M in Ms]
    jobs = [PebbleJob(G, M, recompute, solver_limit, certify=bool(args.json),
                      wall_deadline=wall_deadline, whole_limit=args.time_limit,
                      method=args.method)
            for _, G, M in instances]
    done: dict[int, tuple[PebbleResult, dict, dict | None]] = {}
    printed = [0]

    def show(index: int, outcome: tuple[PebbleResult, dict, dict | None]) -> None:
        # lines in the order of the instances, each as soon as all before it are done
        done[index] = outcome
        while printed[0] in done:
            i = printed[0]
            label, _, M = instances[i]
            if not args.json and not args.table:
                prefix = f"{label}: " if labelled else ""
                print(fit_text(prefix + _line(done[i][0], M), table_width(args),
                               indent="  "), flush=True)
                if args.show:
                    _show_timeline(instances[i][1], done[i][0], M, args, label)
            printed[0] += 1

    interrupted = False
    try:
        outcomes = map_instances(_solve_job, jobs, desc="pebble", on_failure=_failed_job,
                                 on_result=show, deadline=deadline,
                                 on_timeout=_timed_out_job, **parallel)
        for index, outcome in enumerate(outcomes):  # the instances --time-limit left unstarted
            if index not in done:
                show(index, outcome)
    except KeyboardInterrupt as exc:
        # Ctrl-C: the finished instances, and (serial) the bracket and best schedule of the
        # one being solved (graphs/anytime.py), are reported; then exit 130
        interrupted = True
        outcomes = [done[i] for i in range(printed[0])]
        partial = getattr(exc, "partial", None)
        if partial is not None and len(outcomes) < len(instances):
            show(len(outcomes), partial)
            outcomes.append(partial)
        instances = instances[:len(outcomes)]
    rows = [(M, result, costs) for (_, _, M), (result, costs, _) in zip(instances, outcomes)]
    certified = [c for (_, _, c) in outcomes]
    proofs: list[dict[str, Any] | None] = [None] * len(rows)
    if args.certify is not None and not interrupted:
        for i, ((label, G, M), (_, result, _)) in enumerate(zip(instances, rows)):
            left = solver_limit if wall_deadline is None else wall_deadline - time.time()
            record = certify_optimum(G, M, result, args.certify, certificate_stem(label, M),
                                     recompute=recompute, overwrite=args.force,
                                     time_limit=max(0.0, min(solver_limit, left)))
            proofs[i] = record.to_json()
            if not args.json:
                print("".join(f"wrote {path}\n" for path in record.files), end="")
                print(f"M={M}: lower end {LOWER_PROOF_WORDS[record.lower_proof]}"
                      + (f" ({record.detail})" if record.detail else ""))
    if args.plot is not None and rows and rows[0][1].schedule:
        result = rows[0][1]
        _show_and_plot(instances[0][1], result.schedule, rows[0][0],
                       argparse.Namespace(**{**vars(args), "show": False}),
                       kind=("optimal schedule" if result.verdict == Status.OPTIMAL
                             else "best schedule found"), label=instances[0][0])
    # the code mirrors the document's verdict: 1 when undecided anywhere, or when no size
    # asked has a schedule at all (infeasible everywhere; a sweep of different answers is 0)
    worst = 1 if (any(result.verdict == Status.UNDECIDED for _, result, _ in rows)
                  or (rows and all(result.verdict == Status.INFEASIBLE
                                   for _, result, _ in rows))) else 0
    if interrupted:
        worst = 130
    if args.json:
        objects = [{"dag": label, **result_to_json(r, M, recompute)}
                   for (M, r, _), (label, _, _) in zip(rows, instances)]
        for obj, (_, _, costs), cert in zip(objects, rows, certified):
            obj["algorithm_costs"] = costs
            # graphs/lower_bounds/, computed inside the instance's time limit (None for the
            # instance a Ctrl-C stopped before it was done, or a worker that died)
            obj["certified_lower_bound"] = cert
        for obj, proof in zip(objects, proofs):
            if args.certify is not None:
                # which kind of proof the lower end has (graphs/proof_files.py)
                obj["proof"] = proof
        print_document("pebble", overall_verdict(obj["verdict"] for obj in objects),
                       {"instances": objects, "interrupted": interrupted})
    elif args.table:
        names = ["naive", "row-block", "square-tiling"]
        for _row, (label, G, M) in zip(rows, instances):
            if M != Ms[0]:
                continue
            print((f"{label}: " if labelled else "")
                  + f"{G.number_of_nodes()} vertices, {G.number_of_edges()} edges, "
                  f"{'recomputation' if recompute else 'one-shot'}")
        print(_pebble_table(rows, instances, names, recompute=recompute, labelled=labelled,
                            width=table_width(args)))
    if interrupted:
        print("attnio pebble: interrupted", file=sys.stderr, flush=True)
    return worst
