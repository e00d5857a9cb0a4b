"""``attnio simulate``: run or count the tiled attention algorithms under the two-level memory.

Examples (shell)::

    attnio simulate --n 4096 --d 64 --M-geom 256:262144:16 --algorithm flash1,small-cache \\
        --pass backward --json
    attnio simulate --n 256 --d 16 --M 64,256,1024 --algorithm all --pass forward --execute
    attnio simulate --n 4096 --d 64 --M-geom 512:65536:16 --algorithm flash1,small-cache \\
        --plot io.png --workers 2
    attnio simulate --n 4096 --d 64 --M 65536 --algorithm flash2 --mask causal --json

``--json`` prints ``{"command": "simulate", "verdict", "runs": [...], ...}`` (notes/json.md):
``verdict`` is ``computed`` for counted runs, ``proved`` / ``refuted`` with ``--execute``
(every executed run matched its closed form and the reference within tolerance, or not: the
exit code).

With ``--mask`` (:func:`attnio.algorithms.masks.parse_mask`) the algorithms skip tiles with
no kept entry, and each JSON run gains ``mask``, ``Z_in``, ``Z_QK``, ``sparse_class_bound``
and ``sparse_crossover`` (``{"value": exact sympy string, "value_float": float, ...}``: the
sparse formula, a worst case over every mask with these counts, not a bound for this mask),
``mask_lower_bound`` (the certified bound for THIS mask and the run's computation,
:mod:`attnio.proofs.mask_bounds`: ``{"value": int, "route", "claim_id", ...}``) and
``mask_ratio`` = io ÷ ``mask_lower_bound``.

The text table fits 100 columns (a run that cannot be made is a footnote ``[k]`` under it;
``--wide`` for full width); ``--latex [FILE.tex]`` prints it as a booktabs tabular or writes
it to FILE.tex (:mod:`attnio.flags`).

``--M`` / ``--M-geom`` and ``--workers`` / ``--scheduler`` are the shared flags of
:mod:`attnio.flags`: each (algorithm, M) pair is an independent instance, computed serially
by default or on Dask (:func:`attnio.parallel.map_instances`) with the same rows in the same
order; the crossover is then bisected here.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> parser = register(sub)
>>> args = parser.parse_args(["--n", "64", "--d", "8", "--M", "256", "--algorithm", "flash1"])
>>> args.algorithm, args.pass_
('flash1', 'backward')
>>> parse_cache_sizes("1:16:5", geometric=True)
[1, 2, 4, 8, 16]
"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from attnio.algorithms.heads import simulate_heads, validate_heads
from attnio.algorithms.instance import Instance
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import get_algorithm
from attnio.algorithms.simulation import (
    ALGORITHMS,
    BOUND_IDS,
    MASKED_ALGORITHMS,
    SimulationResult,
    catalogue_value,
    find_crossovers,
    simulate,
    validate_execute_budget,
)
from attnio.bounds.instance_bounds import CLASSES, instance_lower_bound
from attnio.bounds.masks import mask_run_fields
from attnio.commands.instance_flags import add_instance_arguments, instance_from_args
from attnio.exceptions import CacheOverflowError, InvalidInputError
from attnio.extras import require
from attnio.flags import (
    add_latex_argument,
    add_parallel_arguments,
    add_wide_argument,
    check_latex_target,
    emit_latex,
    parallel_options,
    table_width,
)
from attnio.output import print_document
from attnio.parallel import map_instances
from attnio.provenance import provenance
from attnio.reporting.io_curves import io_curves_from_runs, plot_io_curves
from attnio.reporting.style import render_figure
from attnio.safe_io import write_bytes
from attnio.tables import fit_text, latex_notes, number_column, render_table
from attnio.validation import (
    PLOT_SUFFIXES,
    describe,
    geometric_sizes,
    json_float,
    parse_seed,
    parse_sizes,
    validate_output_path,
    warn_outside_admissible,
)

__all__ = ["register", "run", "parse_cache_sizes", "parse_algorithms", "runs_payload",
           "find_crossovers"]

_FIELDS = ("algorithm", "pass", "n", "d", "M", "reads", "writes", "io", "flops",
           "peak_fast_words", "formula", "ratio")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate",
        help="count or execute tiled attention algorithms under a two-level memory of M words",
        description=(
            "Count (default) or execute (--execute) attention algorithms under a two-level "
            "memory whose fast level holds at most M words; report words read and written, "
            "FLOPs, peak fast-memory words, the symbolic catalogue's bound and io/bound."
        ),
    )
    add_instance_arguments(parser, command="simulate", sweep=True)
    algorithm = parser.add_argument("--algorithm", default="all", metavar="NAMES",
                        help="comma-separated names or 'all' (every registered algorithm with "
                             "the pass; one that cannot run on the instance is a row n/a with "
                             "the reason): " + ", ".join(ALGORITHMS))
    algorithm.complete_values = ("all", *ALGORITHMS)  # type: ignore[attr-defined]
    parser.add_argument("--tune", action="store_true",
                        help="block sizes by exact integer search for the least I/O under M")
    parser.add_argument("--crossover", metavar="A,B",
                        help="report where the cheaper of algorithms A and B swaps: the bracket "
                             "of grid points and the M bisected on exact counts (default: the "
                             "two algorithms when exactly two are selected)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true",
                      help="closed-form exact counts, no arrays (the default)")
    mode.add_argument("--execute", action="store_true",
                      help="run on seeded random float64 inputs, check numerics against the "
                           "untiled reference (every output within atol + rtol*max|expected|, "
                           "rtol = 1e-10, atol = rtol * the pass's largest expected entry) and "
                           "the counts against the closed form (memory budget "
                           "MAX_EXECUTE_BYTES = 1 GiB)")
    parser.add_argument("--seed", default="0",
                        help="input seed for --execute (0 <= SEED <= 2**64 - 1)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON on stdout")
    out.add_argument("--csv", action="store_true", help="print CSV on stdout")
    add_latex_argument(out, what="the run table", force=False)
    add_wide_argument(parser)
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw I/O against M (log axes), bounds dashed, d² marked; "
                             "FILE ends in .png, .pdf or .svg, its folder exists, a folder is "
                             "an error and an existing file is kept unless --force")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing --plot or --latex file")
    add_parallel_arguments(parser, what="(algorithm, M) runs")
    parser.set_defaults(handler=run)
    return parser


def parse_cache_sizes(text: str, *, geometric: bool) -> list[int]:
    """``--M`` text (:func:`attnio.validation.parse_sizes`: ``V``, ``V1,V2,...``, ``LO:HI``,
    ``LO:HI:STEP``) or ``--M-geom`` text ``"LO:HI:COUNT"`` (COUNT geometric sizes,
    :func:`attnio.validation.geometric_sizes`); InvalidInputError otherwise.

    At most :data:`~attnio.validation.MAX_STEPS` sizes either way; a geometric range needs
    ``HI < 10**300`` (its points are computed in floating point).

    >>> parse_cache_sizes("64, 256", geometric=False)
    [64, 256]
    """
    if not geometric:
        return parse_sizes("M", text)
    return geometric_sizes("--M-geom", text)


def parse_algorithms(text: str, pass_: str) -> list[str]:
    """Comma-separated names (or ``all``: every registered algorithm that has the pass, in
    registry order — none dropped for a mask or heads: an algorithm that cannot run on the
    instance gets a row ``n/a`` with the reason), each checked against the registry.

    >>> "small-cache-fused" in parse_algorithms("all", "backward")
    True
    >>> "flash2-split" in parse_algorithms("all", "backward")
    True
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    if names == ["all"]:
        return [name for name in ALGORITHMS if (name, pass_) in BOUND_IDS]
    for name in names:
        if name not in ALGORITHMS:
            raise InvalidInputError(
                f"algorithm={name!r} is unknown; choose from {', '.join(ALGORITHMS)}"
            )
        if (name, pass_) not in BOUND_IDS:
            raise InvalidInputError(f"algorithm={name!r} has no {pass_} pass")
    if not names:
        raise InvalidInputError(f"--algorithm={text!r} names no algorithm")
    return names


def _number(value: Any) -> int | float | None:
    """An exact sympy number as a JSON number: int if integral, a finite float, else None."""
    if value is None:
        return None
    return int(value) if value.is_Integer else json_float(value)


def _row(result: SimulationResult, mask: Mask | None = None) -> dict[str, Any]:
    value = catalogue_value(result.algorithm, result.pass_, result.n, result.d, result.M)
    if value is not None:  # B·H heads: the per-head catalogue scaled
        value = value * result.batch * result.heads
    row: dict[str, Any] = {
        "algorithm": result.algorithm, "pass": result.pass_, "n": result.n, "d": result.d,
        "M": result.M, "reads": result.reads, "writes": result.writes, "io": result.io,
        "flops": result.flops, "peak_fast_words": result.peak_fast_words,
        "formula": _number(value),
        "ratio": None if value is None or value == 0 else json_float(result.io / value),
        "block_sizes": dict(result.block_sizes),
        "batch": result.batch, "heads": result.heads, "kv_heads": result.kv_heads,
    }
    if value is not None and row["formula"] is None:
        row["formula_exact"] = str(value)  # beyond float range: the exact value as text
    if result.executed:
        # NaN/Infinity are not JSON: a non-finite error is null plus its text, and fails.
        row["max_relative_error"] = json_float(result.max_relative_error)
        if row["max_relative_error"] is None:
            row["max_relative_error_text"] = str(result.max_relative_error)
        row["closed_form_match"] = result.closed_form_match
        for key in ("max_absolute_error", "error_scale", "atol", "rtol"):
            row[key] = json_float(getattr(result, key))
        row["within_tolerance"] = result.within_tolerance
    row["io_over_own_formula"] = row["ratio"]
    if mask is not None:
        # sparse_class_bound is a worst case over masks and is never compared with a run;
        # mask_ratio divides by this mask's certified bound, for the run's B·H query heads
        # in B·G K/V groups
        row.update(mask_run_fields(mask, result.n, result.d, result.M, result.pass_,
                                   result.algorithm, batch=result.batch,
                                   heads=result.heads, kv_heads=result.kv_heads))
        bound = row["mask_lower_bound"]["value"]
        row["mask_ratio"] = json_float(result.io / bound) if bound else None
    return row


def runs_payload(
    names: list[str], pass_: str, n: int, d: int, Ms: list[int], *, execute: bool = False,
    seed: int = 0, tune: bool = False, crossover_pair: tuple[str, str] | None = None,
    mask: Mask | None = None, batch: int = 1, heads: int = 1, kv_heads: int | None = None,
    workers: int | None = None, scheduler: str | None = None,
) -> dict[str, Any]:
    """The ``--json`` document: ``{"runs": [...], "crossovers": [...], "crossover_M": int |
    None, "crossover_pair": [A, B] | None}`` plus :func:`attnio.provenance.provenance`.

    A run whose tiles overflow M (``flash1-published``) keeps its sizes, null counts and the
    overflow message under ``"overflow"``; a (name, M) pair for which no tile fits keeps null
    counts and the reason under ``"infeasible"``. Raises InvalidInputError only when no pair
    of the sweep can run at all.

    ``crossover_pair`` (default: ``names`` when it holds exactly two algorithms, else no
    crossover) selects the two algorithms whose swaps :func:`find_crossovers` reports;
    ``crossover_M`` is the bisected M of the first swap.

    ``batch``, ``heads``, ``kv_heads``: every run counts (or executes) B·H heads in G K/V
    groups (:func:`attnio.algorithms.heads.simulate_heads`; with the mask, no tuning); the
    crossover is then bisected on those counts only when ``kv_heads == heads`` (H
    independent heads: the single-head swap), else not reported (``crossover_note``).

    ``workers`` / ``scheduler``: the (name, M) runs on Dask (:func:`attnio.parallel.map_instances`;
    the same rows in the same order as the serial run).
    """

    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    multi = (batch, heads, kv) != (1, 1, 1)
    if multi and tune:
        raise InvalidInputError("--batch/--heads/--kv-heads take no --tune")
    pairs = [(name, M) for name in names for M in Ms]
    jobs = [(name, pass_, n, d, M, execute, seed, tune, mask, batch, heads, kv)
            for name, M in pairs]
    outcomes = map_instances(_run_pair, jobs, workers=workers, scheduler=scheduler,
                             desc="simulate")
    runs: list[dict[str, Any]] = []
    first_error: InvalidInputError | None = None
    feasible = 0
    for (name, M), (kind, value) in zip(pairs, outcomes):
        if kind == "row":
            runs.append(value)
            feasible += 1
        elif kind == "overflow":
            runs.append(_empty_row(name, pass_, n, d, M, overflow=value))
        elif kind == "na":
            runs.append(_empty_row(name, pass_, n, d, M, not_applicable=value))
        else:  # no tile of this algorithm fits this M
            first_error = first_error or value
            runs.append(_empty_row(name, pass_, n, d, M, infeasible=str(value)))
    if feasible == 0 and first_error is not None:
        # A sweep in which nothing at all can run is bad input, not an empty result.
        raise first_error
    if crossover_pair is None and len(names) == 2:
        crossover_pair = (names[0], names[1])
    crossovers = ([] if crossover_pair is None or kv != heads
                  else find_crossovers(*crossover_pair, pass_, n, d, Ms, mask=mask))
    payload = {"runs": runs, "batch": batch, "heads": heads, "kv_heads": kv,
               "crossover_pair": None if crossover_pair is None else list(crossover_pair),
               "crossovers": crossovers,
               "crossover_M": crossovers[0]["M"] if crossovers else None, **provenance()}
    if mask is not None:
        payload["mask"] = mask.label
    if crossover_pair is not None and kv != heads:
        payload["crossover_note"] = ("no crossover with grouped K/V: the single-head swap "
                                     "does not carry over to groups")
    return payload


def _run_pair(job: tuple) -> tuple[str, Any]:
    """One (algorithm, M) run — what a serial sweep or a Dask worker computes: ``("row",
    row)``, ``("overflow", message)`` (the tiles overflow M), ``("na", reason)`` (no masked
    schedule for a mask that drops entries) or ``("infeasible", message)`` (no tile fits M:
    the exception, raised by the caller if no pair of the sweep runs)."""

    name, pass_, n, d, M, execute, seed, tune, mask, batch, heads, kv = job
    multi = (batch, heads, kv) != (1, 1, 1)
    run_mask = mask
    if mask is not None and name not in MASKED_ALGORITHMS:
        if mask.z_qk(n) != n * n:
            return "na", f"no masked schedule ({name} skips no tile)"
        run_mask = None  # a mask that keeps every entry: the unmasked run is the same run
    try:
        result = (simulate_heads(name, pass_, n, d, M, batch=batch, heads=heads,
                                 kv_heads=kv, execute=execute, seed=seed, mask=run_mask)
                  if multi else
                  simulate(name, pass_, n, d, M, execute=execute, seed=seed, tune=tune,
                           mask=run_mask))
    except CacheOverflowError as exc:
        return "overflow", str(exc)
    except InvalidInputError as exc:
        return "infeasible", exc
    row = _row(result, mask)
    instance = Instance.build(n, d, pass_=pass_, M=[M], batch=batch, heads=heads,
                              kv_heads=kv, mask=mask)
    # the certified bounds of the whole instance (mask, heads): every algorithm of the pass
    # (lower_bound, the figure of `attnio gap` and `advise`) and the run's own class
    anyb = instance_lower_bound(instance, M)
    row.update(lower_bound=anyb.value, lower_bound_route=anyb.route,
               lower_bound_claim=anyb.claim_id,
               io_over_lower_bound=json_float(row["io"] / anyb.value) if anyb.value else None)
    cls = get_algorithm(name).computation(pass_)
    if cls in CLASSES[pass_]:
        own = instance_lower_bound(instance, M, cls)
        row["class_lower_bound"] = {"value": own.value, "route": own.route,
                                    "claim_id": own.claim_id, "computation": cls}
        row["io_over_class_bound"] = json_float(row["io"] / own.value) if own.value else None
    else:
        row["class_lower_bound"] = {"value": None, "route": None, "claim_id": None,
                                    "computation": cls}
        row["io_over_class_bound"] = None
        row["io_over_lower_bound"] = None  # a different output (dL/dX): never compared
    return "row", row


def _empty_row(name: str, pass_: str, n: int, d: int, M: int, **reason: str) -> dict[str, Any]:
    row: dict[str, Any] = {key: None for key in _FIELDS}
    row.update(algorithm=name, n=n, d=d, M=M, **reason)
    row["pass"] = pass_
    return row


def run(args: argparse.Namespace) -> int:
    """Entry point of ``attnio simulate``; exit 1 if an executed run fails its checks."""
    instance = instance_from_args(args)
    n, d, Ms = instance.n, instance.d, list(instance.Ms)
    seed = parse_seed(args.seed)
    warn_outside_admissible("simulate", n, d, Ms)
    parallel = parallel_options(args)
    if args.tune and (instance.multi_head or instance.sparse_mask is not None):
        raise InvalidInputError("--tune cannot apply with --batch/--heads/--kv-heads or a "
                                "--mask that drops entries: it searches the block sizes of "
                                "unmasked single-head runs only")
    names = parse_algorithms(args.algorithm, instance.pass_)
    pair = None if args.crossover is None else parse_crossover(args.crossover, names)
    if args.plot is not None:  # refuse a bad target (even an empty one) before any work
        validate_output_path(args.plot, suffixes=PLOT_SUFFIXES, overwrite=args.force, what="--plot")
        require("plots", "--plot")  # matplotlib: exit 2 before any work, as in `attnio report`
    check_latex_target(args)
    if args.execute:
        validate_execute_budget(n, d)
    payload = runs_payload(names, instance.pass_, n, d, Ms, execute=args.execute, seed=seed,
                           tune=getattr(args, "tune", False), crossover_pair=pair,
                           mask=instance.mask, batch=instance.batch, heads=instance.heads,
                           kv_heads=instance.kv_heads, **parallel)
    payload["instance"] = instance.to_json()
    levels = {lvl.M: lvl.name for lvl in instance.levels}
    for r in payload["runs"]:
        if instance.has_hierarchy:
            r["level"] = levels.get(r["M"])
        if instance.word_bytes is not None:
            r["bytes"] = instance.to_bytes(r["io"])
    if args.plot is not None:  # drawn before anything is printed: a plot error leaves no table
        plot_runs(payload, n=n, d=d, path=args.plot, overwrite=args.force)
    failed = [r for r in payload["runs"] if r.get("closed_form_match") is False
              or r.get("within_tolerance") is False  # |got − want| > atol + rtol·max|want|
              or (r.get("within_tolerance") is None and (  # no verdict: the relative check
                  "max_relative_error_text" in r  # NaN or infinite error
                  or (r.get("max_relative_error") is not None
                      and r["max_relative_error"] > 1e-10)))]
    if args.json:  # executed runs are checked (a verdict); counted runs are figures only
        print_document("simulate", "refuted" if failed else "proved" if args.execute
                       else "computed", payload)
    elif args.csv:
        extra = ["max_relative_error", "max_absolute_error", "atol", "within_tolerance",
                 "closed_form_match"] if args.execute else []
        writer = csv.DictWriter(sys.stdout, fieldnames=[*_FIELDS, *extra, "overflow", "infeasible"],
                                extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(payload["runs"])
    elif args.latex is not None:
        emit_latex(args, runs_table(payload, args.execute, fmt="latex"))
    else:
        width = table_width(args)
        print(fit_text(f"attnio simulate: {instance.describe()}", width, indent="  "))
        print(runs_table(payload, args.execute, width=width))
        print(fit_text(_crossover_line(payload), width, indent="  "))
        for line in _mask_lines(payload):
            print(fit_text(line, width, indent="    "))
    return 1 if failed else 0


def parse_crossover(text: str, names: list[str]) -> tuple[str, str]:
    """``--crossover A,B``: two different algorithms among the selected ``names``.

    >>> parse_crossover("flash1,small-cache", ["standard", "flash1", "small-cache"])
    ('flash1', 'small-cache')
    >>> parse_crossover("flash1,flash2", ["flash1"])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --crossover 'flash2' is not among the selected algorithms (flash1)
    """
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or parts[0] == parts[1] or not all(parts):
        raise InvalidInputError(
            f"--crossover={describe(text, 40)} must name two different algorithms A,B")
    for part in parts:
        if part not in names:
            raise InvalidInputError(f"--crossover {describe(part, 40)} is not among the "
                                    f"selected algorithms ({', '.join(names)})")
    return parts[0], parts[1]


def _sci(value: float | None) -> str:
    """An error in the table: 1.2e-16, or nan when the run's error is not finite."""
    return "nan" if value is None else f"{value:.1e}"


def runs_table(payload: dict[str, Any], execute: bool, *, fmt: str = "plain",
               width: int | None = None) -> str:
    """The runs as a table (:func:`attnio.tables.render_table`): algorithm, M, io words (and
    io bytes with a dtype), flops, peak, io/LB(class) (counted io ÷ the certified lower bound
    of the algorithm's computation class for the whole instance), io/own O(·) (counted io ÷
    the algorithm's own upper-bound formula with constant 1: a constant factor, not a distance
    from the optimum) and with ``execute`` the errors, tolerance and closed-form match; one
    number format per column. A run that could not be made (its tiles overflow M, none fits,
    or no masked schedule) is ``[k]`` with its reason in a footnote under the table (text
    under a ``fmt="latex"`` tabular); ``width`` wraps the footnotes (None: full width).
    Terms: ``attnio explain TERM``."""
    runs = payload["runs"]
    with_bytes = any("bytes" in r for r in runs)
    header = ["algorithm", "M", "io words", *(["io bytes"] if with_bytes else []), "flops",
              "peak", "io/LB(class)", "io/own O(·)",
              *(["rel.err", "abs.err", "tol", "closed-form"] if execute else [])]
    notes: list[str] = []
    names = []
    for r in runs:
        kind = ("overflow" if r.get("overflow") else "infeasible" if r.get("infeasible")
                else "n/a" if r.get("not_applicable") else None)
        if kind is not None:
            reason = r.get("not_applicable") or r.get(kind)
            notes.append(f"{r['algorithm']} at M={r['M']:,}: n/a: "
                         + ("" if kind == "n/a" else f"{kind}: ") + f"{reason}")
        names.append(r["algorithm"] + (f" [{len(notes)}]" if kind else ""))
    columns = [names, number_column([r["M"] for r in runs]),
               number_column([r["io"] for r in runs], missing="n/a"),
               *([number_column([r.get("bytes") for r in runs], missing="n/a")]
                 if with_bytes else []),
               number_column([r["flops"] for r in runs]),
               number_column([r["peak_fast_words"] for r in runs]),
               ["-" if r.get("io_over_class_bound") is None
                else f"{r['io_over_class_bound']:.3f}" for r in runs],
               ["-" if r["ratio"] is None else f"{r['ratio']:.3f}" for r in runs]]
    if execute:
        made = [r["io"] is not None for r in runs]
        columns += [[_sci(r.get("max_relative_error")) if ok else "-" for r, ok in zip(runs, made)],
                    [_sci(r.get("max_absolute_error")) if ok else "-" for r, ok in zip(runs, made)],
                    [{True: "ok", False: "FAIL", None: "-"}[r.get("within_tolerance")]
                     for r in runs],
                    [("=" if r.get("closed_form_match") else "≠") if ok else "-"
                     for r, ok in zip(runs, made)]]
    if execute and width is not None:  # the one header too wide for 100 columns: a legend
        header[-1] = "c.f."
    if width is not None:  # a terminal: the FLOPs (not I/O) are in --wide, --json and --csv
        dropped = ["flops", *(["io/own O(·)"] if execute else [])]
        for name in dropped:
            i = header.index(name)
            del header[i], columns[i]
    table = render_table(header, list(zip(*columns)), fmt=fmt,
                         align=["left", *["right"] * (len(header) - 1 - (4 if execute else 0)),
                                *(["right", "right", "center", "center"] if execute else [])])
    lines = [f"[{k}] {note}" for k, note in enumerate(notes, 1)]
    if fmt == "latex":
        return "\n".join([table, latex_notes(lines)]) if lines else table
    if execute and width is not None:
        lines.append("c.f. = the counts equal the closed form (=) or not (≠); tol = every "
                     "output within tolerance")
    if width is not None:
        lines += ["", "io/LB(class) = io / the certified lower bound of the algorithm's class"
                  + ("" if execute else "; io/own O(·) = io / its own upper-bound formula with "
                     "constant 1 (not a distance from the optimum)")
                  + f"; {'io/own O(·), ' if execute else ''}FLOPs: --wide (terms: attnio "
                  "explain TERM)"]
    return "\n".join([table, *(fit_text(line, width, indent="    ") for line in lines)])


def _mask_lines(payload: dict[str, Any]) -> list[str]:
    masked = [r for r in payload["runs"] if r.get("Z_QK") is not None]
    if not masked:
        return []
    r = masked[0]
    lines = [f"mask: {r['mask']}  Z_in = {r['Z_in']:,}  Z_QK = {r['Z_QK']:,}  "
             "class-bound crossover Z_in^2/Z_QK = " + (
                 "none (nothing kept)" if r["sparse_crossover"] is None
                 else f"{r['sparse_crossover']['value_float']:.6g}")]
    for r in masked:
        b = r["mask_lower_bound"]
        if b["value"] is not None and r["mask_ratio"] is not None:
            lines.append(f"  {r['algorithm']} M={r['M']}: io {r['io']:,} >= {b['value']:,} "
                         f"certified for this mask ({b['route']}; claim {b['claim_id']})")
    return lines


def _crossover_line(payload: dict[str, Any]) -> str:
    pair = payload.get("crossover_pair")
    if pair is None:
        return "crossover_M: None (select exactly two algorithms or name them: --crossover A,B)"
    if not payload["crossovers"]:
        return f"crossover_M: None ({pair[0]} and {pair[1]} do not swap within the grid)"
    parts = []
    for c in payload["crossovers"]:
        lo, hi = c["bracket"]
        parts.append(f"{c['M']} ({c['cheaper_below']} cheaper below, {c['cheaper_at_M']} at M; "
                     f"grid bracket [{lo}, {hi}], bisection on exact counts)")
    return f"crossover_M ({pair[0]} vs {pair[1]}): " + "; ".join(parts)


def plot_runs(payload: dict[str, Any], *, n: int, d: int, path: str,
              overwrite: bool = False) -> None:
    """I/O against M on log axes: one solid line per algorithm, its catalogue bound dashed.

    Drawn by the reporting room's one I/O figure
    (:func:`attnio.reporting.io_curves.plot_io_curves` on
    :func:`~attnio.reporting.io_curves.io_curves_from_runs` of the payload). The file is
    written through :func:`attnio.safe_io.write_bytes` (atomic, no symlinks, an existing file
    only with ``overwrite``); its format follows the extension."""

    target = validate_output_path(path, suffixes=PLOT_SUFFIXES, overwrite=overwrite,
                               what="--plot")
    require("plots", "--plot")

    figure = render_figure(lambda: plot_io_curves(io_curves_from_runs(payload, n=n, d=d)), target)
    # stdout holds the answer (a table, or JSON): the writer's line goes to stderr
    print(f"wrote {write_bytes(target, figure, overwrite=overwrite)}", file=sys.stderr)
