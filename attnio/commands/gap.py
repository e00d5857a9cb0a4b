"""``attnio gap``: the best explicit lower bound against every algorithm's exact I/O, per M.

Examples (shell)::

    attnio gap --n 4096 --d 64 --M-geom 64:262144:13 --pass backward
    attnio gap --n 4096 --d 64 --M 1024,4096 --pass forward --json
    attnio gap --n 4096 --d 64 --M-geom 64:262144:13 --pass backward --tune --plot gap.png
    attnio gap --n 4096 --d 64 --M-geom 64:262144:1000 --tune --time-limit 5
    attnio gap --n 4096 --d 64 --M-geom 64:262144:1000 --tune --workers 2

The table fits 100 columns (the route wrapped; an algorithm omitted at a size, because no tile
of it fits, is a footnote ``[k]`` under the table); ``--wide`` prints it at full width.
``--latex [FILE.tex]`` prints it as a booktabs tabular (the footnotes as ``%`` lines) or
writes it to FILE.tex (:mod:`attnio.flags`).

Progress: on a terminal (or with ``ATTNIO_PROGRESS=1``) a bar on stderr counts the
(M, algorithm) pairs and names the one running (``M=4096: flash2 (tuning)``); never on stdout.

``--time-limit S`` (a finite number >= 0 of seconds; default none) bounds the sweep: the clock
is read before every (M, algorithm) pair and inside the ``--tune`` searches. When it passes,
the rows of the sizes finished are printed (``--json``: with ``"time_limit": {"seconds",
"reached", "done", "total"}``, null without ``--time-limit``; ``"verdict"`` is ``computed``,
or ``undecided`` for a sweep cut short — notes/json.md), a size cut half-way is dropped (a half-finished search is not a
tuned answer), stderr gets ``attnio gap: time limit S s reached; N of M sizes done`` and the
exit code is 1 — a sweep cut short is never a pass.

``--workers N`` / ``--scheduler ADDRESS`` (:mod:`attnio.flags`) compute the sizes (one row
each) on Dask through :func:`attnio.parallel.map_instances`: the same rows in the same order as
the serial run. With ``--time-limit`` the rows finished by then are kept (not necessarily the
first ones); a size not finished is dropped as in the serial run. The multi-head sweep
(``--batch/--heads/--kv-heads``, closed forms only) always runs serially.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> args = register(sub).parse_args(["--n", "64", "--d", "8", "--M", "256"])
>>> args.pass_, args.tune
('backward', False)
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from attnio.algorithms.instance import Instance, instance_algorithms
from attnio.algorithms.tuning import TimeLimitReached
from attnio.bounds.gap import GAP_ALGORITHMS, gap_payload, gap_rows
from attnio.bounds.gap_worst import worst_ratio
from attnio.bounds.hierarchy import instance_gap_rows
from attnio.commands.instance_flags import add_instance_arguments, instance_from_args
from attnio.exceptions import InvalidInputError
from attnio.extras import require
from attnio.flags import (
    add_latex_argument,
    add_parallel_arguments,
    add_time_limit_argument,
    add_wide_argument,
    check_latex_target,
    emit_latex,
    is_parallel,
    parallel_options,
    table_width,
)
from attnio.output import print_document
from attnio.parallel import map_instances
from attnio.progress import progress_enabled
from attnio.provenance import provenance
from attnio.reporting.gap_figure import plot_gap
from attnio.reporting.style import render_figure
from attnio.safe_io import write_bytes
from attnio.tables import fit_text, latex_notes, latex_prose, number_column, render_table
from attnio.validation import (
    PLOT_SUFFIXES,
    validate_output_path,
    validate_time_limit,
    warn_outside_admissible,
)

__all__ = ["register", "run", "residue_cell"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``gap`` subcommand (the instance flags of :mod:`attnio.commands.instance_flags`)."""
    parser = subparsers.add_parser(
        "gap",
        help="best explicit lower bound vs every algorithm's exact I/O, and their ratio",
        description=(
            "For each fast-memory size M (--M, --M-geom, or the levels of --device / "
            "--hierarchy): the certified lower bound of the whole instance (mask and heads "
            "included; an exact int, its route and claim), every algorithm's exact I/O, the "
            "cheapest algorithm and io/LB = cheapest / lower bound. Terms: attnio explain TERM."
        ),
    )
    add_instance_arguments(parser, command="gap", sweep=True)
    parser.add_argument("--no-worst", dest="worst", action="store_false",
                        help="skip the exact worst ratio over every integer M between the "
                             "smallest and the largest size of the sweep")
    parser.add_argument("--tune", action="store_true",
                        help="block sizes by exact integer search for the least I/O under M "
                             "(one head, no mask)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON on stdout")
    add_latex_argument(out, what="the gap table", force=False)
    add_wide_argument(parser)
    add_time_limit_argument(parser, help="stop after SECONDS in all (default: no limit): the "
                                         "finished sizes are printed and the exit code is 1")
    add_parallel_arguments(parser, what="sizes (one row each)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the ratio against M (.png, .pdf or .svg, by extension)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing --plot or --latex file")
    parser.set_defaults(handler=run)
    return parser


@contextmanager
def _progress_bar(total: int) -> Iterator[Callable[[str], None]]:
    """A tqdm bar on stderr over ``total`` (M, algorithm) pairs, shown as
    :func:`attnio.progress.progress_enabled` decides; yields ``step(text)``: one pair more,
    named ``text``."""
    if not progress_enabled(None):
        yield lambda _text: None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc="gap", file=sys.stderr, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}]"
                          "{postfix}")  # ", M=…: algorithm"
    started = [False]

    def step(text: str) -> None:
        if started[0]:
            bar.update(1)
        started[0] = True
        bar.set_postfix_str(text)

    try:
        yield step
    finally:
        bar.close()


def run(args: argparse.Namespace) -> int:
    """Entry point of ``attnio gap``; exit 0, or 1 when ``--time-limit`` cut the sweep."""
    time_limit = validate_time_limit(getattr(args, "time_limit", None), "--time-limit")
    deadline = None if time_limit is None else time.monotonic() + time_limit
    instance = instance_from_args(args, default_sizes=True)
    n, d, Ms = instance.n, instance.d, list(instance.Ms)
    warn_outside_admissible("gap", n, d, Ms)
    parallel = parallel_options(args)
    whole = instance.multi_head or instance.sparse_mask is not None
    if whole and args.tune:
        raise InvalidInputError("--tune cannot apply with --batch/--heads/--kv-heads or a "
                                "--mask that drops entries: it searches the block sizes of "
                                "unmasked single-head runs only")
    if whole and is_parallel(parallel):
        raise InvalidInputError("--workers/--scheduler cannot apply with --batch/--heads/"
                                "--kv-heads or a --mask that drops entries: that sweep runs "
                                "serially (closed forms, one row per M)")
    if args.plot is not None and instance.mask is not None and instance.mask.z_qk(n) == 0:
        raise InvalidInputError("--plot draws io/LB, and the mask keeps no entry: the "
                                "certified bound is 0 at every M, so there is no ratio to draw")
    if args.plot is not None:  # refuse a bad target (empty, wrong extension, ...) before any work
        plot_target = validate_output_path(args.plot, suffixes=PLOT_SUFFIXES, overwrite=args.force,
                                        what="--plot")
        require("plots", "--plot")  # matplotlib: exit 2 before any work
    check_latex_target(args)

    pass_ = instance.pass_
    stopped: TimeLimitReached | None = None
    payload: dict[str, Any]
    with _progress_bar(len(Ms) * len(GAP_ALGORITHMS.get(pass_, ()))) as step:
        if not whole and is_parallel(parallel):
            payload, stopped = _parallel_sweep(pass_, n, d, Ms, args.tune, deadline, parallel)
        elif not whole:
            try:
                payload = gap_payload(pass_, n, d, Ms, tune=args.tune, deadline=deadline,
                                      on_step=step)
            except TimeLimitReached as exc:
                stopped, payload = exc, _partial_payload(pass_, n, d, args.tune, exc.rows)
        else:
            payload, stopped = _whole_instance(instance, deadline, step)
    payload.update(batch=instance.batch, heads=instance.heads, kv_heads=instance.kv_heads,
                   mask=None if instance.mask is None else instance.mask.label,
                   instance=instance.to_json())
    payload["worst"], worst_note = None, None
    if stopped is None:
        payload["worst"], worst_note, stopped = _worst(instance, args, whole, deadline)
    _add_levels_and_bytes(instance, payload["rows"])
    payload["time_limit"] = None
    if time_limit is not None:
        payload["time_limit"] = {"seconds": time_limit, "reached": stopped is not None,
                                 "done": stopped.done if stopped else len(Ms), "total": len(Ms)}
    if args.plot is not None and payload["rows"]:  # before anything is printed; format: extension

        figure = render_figure(lambda: plot_gap([payload]), plot_target)
        # stdout holds the answer (a table, or JSON): the writer's line goes to stderr
        print(f"wrote {write_bytes(plot_target, figure, overwrite=args.force)}",
              file=sys.stderr)
    if args.json:  # figures only; a sweep cut short is undecided (exit 1)
        print_document("gap", "computed" if stopped is None else "undecided", payload)
    elif args.latex is not None:
        emit_latex(args, gap_table(payload, fmt="latex"))
    else:
        width = table_width(args)
        print(fit_text(f"attnio gap: {instance.describe()}", width, indent="  "))
        print(gap_table(payload, width=width))
        print(fit_text(worst_line(payload["worst"], worst_note), width, indent="  "))
    if stopped is not None:
        sys.stdout.flush()
        what = (f"{stopped.done} of {stopped.total} sizes done" if payload["worst"] is None
                and worst_note is None else "the exact worst ratio not found")
        print(f"attnio gap: time limit {time_limit:g} s reached; {what}", file=sys.stderr)
        return 1
    return 0


def _worst(instance: Instance, args: argparse.Namespace, whole: bool,
           deadline: float | None) -> tuple[dict[str, Any] | None, str | None, Any]:
    """The exact worst ratio over every integer M in [smallest, largest size of the sweep]
    (:func:`attnio.bounds.gap_worst.worst_ratio`), or None with why not (``--no-worst``,
    ``--tune``, the levels of a device, one size); third: a TimeLimitReached or None."""
    if not args.worst:
        return None, "skipped (--no-worst)", None
    if args.tune:
        return None, "n/a with --tune (the tuned blocks are searched per M)", None
    if instance.has_hierarchy:
        return None, "n/a: the levels of a memory hierarchy are the only sizes", None
    lo, hi = min(instance.Ms), max(instance.Ms)
    if lo == hi:
        return None, None, None
    if instance.mask is not None and instance.mask.z_qk(instance.n) == 0:
        return None, "n/a: the mask keeps no entry, so the certified bound is 0 (no ratio)", None
    algorithms = instance_algorithms(instance) if whole else GAP_ALGORITHMS[instance.pass_]
    with _progress_bar(len(algorithms) + 1) as step:
        try:
            found = worst_ratio(instance, lo, hi, algorithms=algorithms, deadline=deadline,
                                on_step=lambda text: step(f"exact worst: {text}"))
        except TimeLimitReached as exc:
            return None, "not found: the time limit passed during the search", exc
    return found.to_json(), None, None


def worst_line(worst: dict[str, Any] | None, note: str | None) -> str:
    """The line under the gap table: the exact worst ratio over every integer M of the
    sweep's range, where it lies and how it was found (or why it is not there)."""
    if worst is None:
        return f"worst io/LB over every M: {note}" if note else ""
    text = (f"worst io/LB over every integer M in [{worst['lo']:,}, {worst['hi']:,}]: "
            f"{worst['ratio']:.2f} at M = {worst['M']:,} ({worst['best_algorithm']} "
            f"{worst['best_io']:,} words; LB {worst['lower_bound']:,}: {worst['route']}) — "
            f"exact: {worst['plateaus']:,} block-size plateaus of {len(worst['algorithms'])} "
            f"algorithms that stay finite for every logit, {worst['evaluated']:,} bounds "
            "evaluated by branch and bound; the rows above are a grid")
    for e in worst.get("left_out", ()):
        text += (f"\nleft out of the worst (never the best): {e['algorithm']} "
                 f"({e['reason']})" + (
                     f"; at M = {worst['M']:,} it would move {e['io']:,} words, io/LB "
                     f"{e['ratio']:.2f}" if e["io"] is not None else
                     f"; no run at M = {worst['M']:,}"))
    return text


def _add_levels_and_bytes(instance: Instance, rows: list[dict[str, Any]]) -> None:
    """Name each row's level (device or hierarchy) and add bytes (with a dtype): the same
    instance figures as ``attnio advise``."""
    names = {lvl.M: lvl.name for lvl in instance.levels}
    for row in rows:
        if instance.has_hierarchy:
            row["level"] = names.get(row["M"])
        row["io_over_lower_bound"] = row["ratio"]
        if instance.word_bytes is not None:
            row["lower_bound_bytes"] = instance.to_bytes(row["lower_bound"])
            row["best_bytes"] = instance.to_bytes(row["best_io"])


def _whole_instance(instance: Instance, deadline: float | None, step: Callable[[str], None]
                    ) -> tuple[dict[str, Any], Any]:
    """The sweep of a masked or multi-head instance one M at a time
    (:func:`attnio.bounds.hierarchy.instance_gap_rows`: the certified bound of the whole
    instance, every registered algorithm's count as in ``attnio advise``), the deadline read
    between sizes."""
    rows: list[dict[str, Any]] = []
    algorithms = instance_algorithms(instance)
    for done, level in enumerate(instance.levels):
        if deadline is not None and time.monotonic() >= deadline:
            stopped = TimeLimitReached()
            stopped.rows, stopped.done, stopped.total = rows, done, len(instance.levels)
            return _partial_payload(instance.pass_, instance.n, instance.d, False, rows), stopped
        step(f"M={level.M}: whole instance")
        try:
            rows += instance_gap_rows(instance.with_sizes([level.M]), algorithms)
        except InvalidInputError:  # no algorithm fits this M (the sizes are checked above)
            continue
    if not rows:
        raise InvalidInputError(f"no algorithm of the {instance.pass_} pass fits any M of the "
                                "sweep")
    return _partial_payload(instance.pass_, instance.n, instance.d, False, rows), None


def residue_cell(row: dict[str, Any]) -> str:
    """``bound_factor×algorithm_factor`` of a row's ``residue``
    (:func:`attnio.bounds.gap_residue.gap_residue`; their product is the ratio), or ``—``.

    >>> residue_cell({"residue": {"bound_factor": 3.317, "algorithm_factor": 2.61}})
    '3.32×2.61'
    """
    residue = row.get("residue")
    if not residue:
        return "—"
    return f"{residue['bound_factor']:.2f}×{residue['algorithm_factor']:.2f}"


def gap_table(payload: dict[str, Any], *, fmt: str = "plain",
              width: int | None = None) -> str:
    """The rows of a gap payload as a table (:func:`attnio.tables.render_table`): M (and the
    level of a device or hierarchy), LB words (the certified lower bound of the instance),
    best algorithm (the cheapest that stays finite for every finite logit), io words (its
    counted I/O), LB bytes and io bytes (with a dtype), io/LB, bound×alg (io/LB's two factors,
    :func:`residue_cell`), route. An algorithm with no run at a size is a footnote ``[k]``
    (``name n/a: reason``) on the best-algorithm cell, and so is one that would be cheaper but
    overflows (``name would give io/LB … but is left out of best: reason``); ``width``
    wraps the route column and the footnotes (None: full width). ``fmt="latex"``: a booktabs
    tabular, the footnotes as text under it. Terms: ``attnio explain TERM``."""

    rows = payload["rows"]
    # one footnote per distinct set of reasons (the M in a reason made generic), listing its M
    notes_by_text: dict[str, list[int]] = {}
    note_keys: list[str | None] = []
    for row in rows:
        if not row["omitted"]:
            note_keys.append(None)
            continue
        text = "; ".join(f"{name} n/a: {re.sub(r'^M=[0-9]+ ', 'M ', reason)}"
                         for name, reason in row["omitted"].items())
        notes_by_text.setdefault(text, []).append(row["M"])
        note_keys.append(text)
    # one footnote per algorithm left out of "best" because it overflows, with what it would
    # give at each M where it is cheaper (issue 35 item 3)
    unstable: dict[str, tuple[str, list[tuple[int, float]]]] = {}
    for row in rows:
        for name, e in (row.get("unstable_cheaper") or {}).items():
            unstable.setdefault(name, (e["reason"], []))[1].append((row["M"], e["ratio"]))
    order = list(notes_by_text)
    notes = [("M=" + ", ".join(f"{M:,}" for M in Ms) if len(Ms) <= 3 else
              f"M={Ms[0]:,} … {Ms[-1]:,} ({len(Ms)} sizes)") + f": {text}"
             for text, Ms in notes_by_text.items()]
    for name, (reason, at) in unstable.items():
        shown = ", ".join(f"{ratio:.2f} at M={M:,}" for M, ratio in at[:3])
        notes.append(f"{name} would give io/LB {shown}"
                     + (f" … ({len(at)} sizes)" if len(at) > 3 else "")
                     + f", but is left out of best: {reason}")
    unstable_keys = {name: len(order) + i + 1 for i, name in enumerate(unstable)}

    def marks(row: dict[str, Any], key: str | None) -> str:
        ks = ([] if key is None else [order.index(key) + 1]) + [
            unstable_keys[name] for name in (row.get("unstable_cheaper") or {})]
        return "".join(f" [{k}]" for k in ks)

    best = [row["best_algorithm"] + marks(row, key) for row, key in zip(rows, note_keys)]
    header = ["M", "LB words", "best algorithm", "io words"]
    columns = [number_column([r["M"] for r in rows]),
               number_column([r["lower_bound"] for r in rows]), best,
               number_column([r["best_io"] for r in rows])]
    align = ["right", "right", "left", "right"]
    if any(r.get("level") for r in rows):
        header.insert(0, "level")
        columns.insert(0, [r.get("level") or "" for r in rows])
        align.insert(0, "left")
    if any("best_bytes" in r for r in rows):
        header += ["LB bytes", "io bytes"]
        columns += [number_column([r.get("lower_bound_bytes") for r in rows]),
                    number_column([r.get("best_bytes") for r in rows])]
        align += ["right", "right"]
    routes = [f"{r['route']} [{r['claim_id']}]" for r in rows]
    keys: dict[str, str] = {}
    if width is not None:  # a terminal: each route once, under the table, keyed r1, r2, …
        for route in routes:
            keys.setdefault(route, f"r{len(keys) + 1}")
    header += ["io/LB", "bound×alg", "route"]
    columns += [[f"{r['ratio']:.2f}" if r["ratio"] is not None else "n/a: LB 0"
                 for r in rows], [residue_cell(r) for r in rows],
                [keys.get(route, route) if fmt != "latex" else latex_prose(route)
                 for route in routes]]
    align += ["right", "right", "left"]
    wrap = [len(header) - 1] + ([0] if header[0] == "level" else [])
    spec = "".join({"left": "l", "right": "r"}[a] for a in align[:-1]) + "p{4.5cm}"
    table = render_table(header, list(zip(*columns)), fmt=fmt, max_width=width, wrap=wrap,
                         align=align, latex_columns=spec if fmt == "latex" else None)
    lines = [f"{key}: {route}" for route, key in keys.items()]
    lines += [f"[{k}] {note}" for k, note in enumerate(notes, 1)]
    if fmt == "latex":
        return "\n".join([table, latex_notes(lines)]) if lines else table
    return "\n".join([table, *(fit_text(line, width, indent="    ") for line in lines)])


def _partial_payload(pass_: str, n: int, d: int, tune: bool, rows: list) -> dict[str, Any]:
    """The ``--json`` document of a sweep the deadline cut: the rows finished."""

    return {"rows": rows, "pass": pass_, "n": n, "d": d, "tune": tune, **provenance()}


def _gap_size(job: tuple) -> tuple[str, Any]:
    """One size of the sweep — what a Dask worker computes: ``("row", row)``,
    ``("infeasible", reason)`` (no algorithm fits this M) or ``("timeout", None)``.

    The deadline travels as wall-clock time (:func:`time.time`; a remote worker's monotonic
    clock is not ours) and is turned back into a monotonic instant here."""

    pass_, n, d, M, tune, wall_deadline = job
    deadline = (None if wall_deadline is None
                else time.monotonic() + (wall_deadline - time.time()))
    try:
        return "row", gap_rows(pass_, n, d, [M], tune=tune, deadline=deadline)[0]
    except TimeLimitReached:
        return "timeout", None
    except InvalidInputError:  # the sizes are checked: no algorithm fits this M
        return "infeasible", f"M={M}: no algorithm fits"


def _parallel_sweep(pass_: str, n: int, d: int, Ms: list[int], tune: bool,
                    deadline: float | None, parallel: dict[str, Any]) -> tuple[dict, Any]:
    """The single-head sweep on Dask, one instance per size (:func:`_gap_size`); the payload
    of the serial :func:`attnio.bounds.gap.gap_payload` and the TimeLimitReached (or None)."""

    wall = None if deadline is None else time.time() + (deadline - time.monotonic())
    jobs = [(pass_, n, d, M, tune, wall) for M in Ms]
    outcomes = map_instances(_gap_size, jobs, desc="gap", deadline=deadline,
                             on_timeout=lambda _job: ("timeout", None), **parallel)
    rows = [value for kind, value in outcomes if kind == "row"]
    missed = sum(1 for kind, _ in outcomes if kind == "timeout")
    if missed:
        stopped = TimeLimitReached()
        stopped.rows, stopped.done, stopped.total = rows, len(Ms) - missed, len(Ms)
        return _partial_payload(pass_, n, d, tune, rows), stopped
    if not rows:
        reasons = [value for kind, value in outcomes if kind == "infeasible"]
        raise InvalidInputError(f"no algorithm of the {pass_} pass fits any M of the sweep "
                                f"({'; '.join(reasons[:3])})")
    return _partial_payload(pass_, n, d, tune, rows), None
