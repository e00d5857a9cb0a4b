"""``attnio simulate``: run or count the tiled attention algorithms under the two-level memory.

Examples (shell)::

    attnio simulate --n 4096 --d 64 --M-range 256:262144:16 --algorithm flash1,small-cache \\
        --pass backward --json
    attnio simulate --n 256 --d 16 --M 64,256,1024 --algorithm all --pass forward --execute
    attnio simulate --n 4096 --d 64 --M-range 512:65536:16 --algorithm flash1,small-cache \\
        --plot io.png
    attnio simulate --n 4096 --d 64 --M 65536 --algorithm flash2 --mask causal --json

With ``--mask`` (:func:`attnio.algorithms.masks.parse_mask`) the algorithms skip tiles with
no kept entry, and each JSON run gains ``mask``, ``Z_in``, ``Z_QK``, ``sparse_lower_bound``
and ``sparse_crossover`` (``{"value": exact sympy string, "value_float": float}``) and
``sparse_ratio`` = io ÷ the sparse bound.

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
import json
import sys
from typing import Any

from attnio.algorithms.simulation import (
    ALGORITHMS,
    BOUND_IDS,
    PASSES,
    SimulationResult,
    catalogue_value,
    count,
    measured_crossover,
    simulate,
    validate_size,
)
from attnio.algorithms.masks import Mask, add_mask_argument, mask_from_args, mask_run_fields
from attnio.exceptions import CacheOverflowError, InvalidInputError
from attnio.progress import progress

__all__ = ["register", "run", "parse_cache_sizes", "parse_algorithms", "runs_payload"]

_FIELDS = ("algorithm", "pass", "n", "d", "M", "reads", "writes", "io", "flops",
           "peak_fast_words", "formula", "ratio")
_DEFAULT = {"forward": ("standard", "flash1", "flash2", "square-tiling"),
            "backward": ("standard", "flash1", "flash2", "small-cache")}


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
    parser.add_argument("--n", type=int, required=True, help="sequence length n")
    parser.add_argument("--d", type=int, required=True, help="head dimension d")
    sizes = parser.add_mutually_exclusive_group(required=True)
    sizes.add_argument("--M", dest="M", metavar="M1,M2,...",
                       help="fast-memory sizes in words, comma-separated")
    sizes.add_argument("--M-range", dest="M_range", metavar="LO:HI:STEPS",
                       help="STEPS fast-memory sizes from LO to HI words, geometrically spaced "
                            "(rounded to integers, duplicates dropped)")
    parser.add_argument("--algorithm", default="all", metavar="NAMES",
                        help="comma-separated names or 'all' (the pass's main algorithms): "
                             + ", ".join(ALGORITHMS))
    parser.add_argument("--pass", dest="pass_", choices=PASSES, default="backward",
                        help="forward or backward pass (default backward)")
    parser.add_argument("--execute", action="store_true",
                        help="run on seeded random float64 inputs, check numerics against the "
                             "untiled reference and the counts against the closed form")
    parser.add_argument("--seed", type=int, default=0, help="input seed for --execute")
    add_mask_argument(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON on stdout")
    out.add_argument("--csv", action="store_true", help="print CSV on stdout")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw I/O against M (log axes), bounds dashed, d² marked")
    parser.set_defaults(handler=run)
    return parser


def parse_cache_sizes(text: str, *, geometric: bool) -> list[int]:
    """``"M1,M2"`` → ints, or ``"LO:HI:STEPS"`` → STEPS geometric sizes (InvalidInputError)."""
    if not geometric:
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise InvalidInputError(f"--M={text!r} must be comma-separated integers") from None
        if not values:
            raise InvalidInputError(f"--M={text!r} names no cache size")
        return [validate_size("M", v) for v in values]
    parts = text.split(":")
    try:
        lo, hi, steps = (int(p) for p in parts)
    except ValueError:
        raise InvalidInputError(f"--M-range={text!r} must be LO:HI:STEPS integers") from None
    lo, hi, steps = validate_size("M", lo), validate_size("M", hi), validate_size("STEPS", steps)
    if hi < lo:
        raise InvalidInputError(f"--M-range={text!r}: HI={hi} must be >= LO={lo}")
    if steps == 1:
        return [lo]
    ratio = (hi / lo) ** (1 / (steps - 1))
    values = [lo] + [round(lo * ratio**k) for k in range(1, steps - 1)] + [hi]
    return sorted(set(values))


def parse_algorithms(text: str, pass_: str) -> list[str]:
    """Comma-separated names (or ``all``), each checked against the registry."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if names == ["all"]:
        return list(_DEFAULT[pass_])
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
    if value is None:
        return None
    return int(value) if value.is_Integer else float(value)


def _row(result: SimulationResult, mask: Mask | None = None) -> dict[str, Any]:
    value = catalogue_value(result.algorithm, result.pass_, result.n, result.d, result.M)
    row: dict[str, Any] = {
        "algorithm": result.algorithm, "pass": result.pass_, "n": result.n, "d": result.d,
        "M": result.M, "reads": result.reads, "writes": result.writes, "io": result.io,
        "flops": result.flops, "peak_fast_words": result.peak_fast_words,
        "formula": _number(value),
        "ratio": None if value is None or value == 0 else float(result.io / value),
        "block_sizes": dict(result.block_sizes),
    }
    if result.executed:
        row["max_relative_error"] = result.max_relative_error
        row["closed_form_match"] = result.closed_form_match
    if mask is not None:
        row.update(mask_run_fields(mask, result.n, result.d, result.M))
        bound = row["sparse_lower_bound"]["value_float"]
        row["sparse_ratio"] = result.io / bound if bound > 0 else None
    return row


def runs_payload(
    names: list[str], pass_: str, n: int, d: int, Ms: list[int], *, execute: bool = False,
    seed: int = 0, mask: Mask | None = None,
) -> dict[str, Any]:
    """The ``--json`` document: ``{"runs": [...], "crossover_M": int | None}``.

    A run whose tiles overflow M (``flash1-published``) keeps its sizes, null counts and the
    overflow message under ``"overflow"``; a (name, M) pair for which no tile fits keeps null
    counts and the reason under ``"infeasible"``. Raises InvalidInputError only when no pair
    of the sweep can run at all.
    """
    runs: list[dict[str, Any]] = []
    first_error: InvalidInputError | None = None
    feasible = 0
    pairs = [(name, M) for name in names for M in Ms]
    for name, M in progress(pairs, total=len(pairs), desc="simulate"):
        try:
            runs.append(_row(simulate(name, pass_, n, d, M, execute=execute, seed=seed,
                                      mask=mask), mask))
            feasible += 1
        except CacheOverflowError as exc:
            runs.append(_empty_row(name, pass_, n, d, M, overflow=str(exc)))
        except InvalidInputError as exc:  # no tile of this algorithm fits this M
            first_error = first_error or exc
            runs.append(_empty_row(name, pass_, n, d, M, infeasible=str(exc)))
    if feasible == 0 and first_error is not None:
        # A sweep in which nothing at all can run is bad input, not an empty result.
        raise first_error
    crossover = measured_crossover(n, d, Ms, mask=mask) if pass_ == "backward" else None
    payload = {"runs": runs, "crossover_M": crossover}
    if mask is not None:
        payload["mask"] = mask_run_fields(mask, n, d, max(Ms))["mask"]
    return payload


def _empty_row(name: str, pass_: str, n: int, d: int, M: int, **reason: str) -> dict[str, Any]:
    row: dict[str, Any] = {key: None for key in _FIELDS}
    row.update(algorithm=name, n=n, d=d, M=M, **reason)
    row["pass"] = pass_
    return row


def run(args: argparse.Namespace) -> int:
    """Entry point of ``attnio simulate``; exit 1 if an executed run fails its checks."""
    n, d = validate_size("n", args.n), validate_size("d", args.d)
    Ms = (parse_cache_sizes(args.M, geometric=False) if args.M is not None
          else parse_cache_sizes(args.M_range, geometric=True))
    names = parse_algorithms(args.algorithm, args.pass_)
    mask = mask_from_args(args)
    if mask is not None:
        mask.check(n)
    payload = runs_payload(names, args.pass_, n, d, Ms, execute=args.execute, seed=args.seed,
                           mask=mask)
    if args.json:
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.csv:
        extra = ["max_relative_error", "closed_form_match"] if args.execute else []
        writer = csv.DictWriter(sys.stdout, fieldnames=[*_FIELDS, *extra, "overflow", "infeasible"],
                                extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(payload["runs"])
    else:
        _print_table(payload, args.execute)
    if args.plot:
        plot_runs(payload, n=n, d=d, path=args.plot)
    failed = [r for r in payload["runs"] if r.get("closed_form_match") is False
              or (r.get("max_relative_error") is not None and r["max_relative_error"] > 1e-10)]
    return 1 if failed else 0


def _print_table(payload: dict[str, Any], execute: bool) -> None:
    head = f"{'algorithm':<17}{'M':>10}{'io':>16}{'flops':>18}{'peak':>10}{'ratio':>9}"
    print(head + ("  rel.err  closed-form" if execute else ""))
    for r in payload["runs"]:
        if r.get("overflow") or r.get("infeasible"):
            kind = "overflow" if r.get("overflow") else "infeasible"
            print(f"{r['algorithm']:<17}{r['M']:>10}  {kind}: {r[kind]}")
            continue
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        line = (f"{r['algorithm']:<17}{r['M']:>10}{r['io']:>16,}{r['flops']:>18,}"
                f"{r['peak_fast_words']:>10}{ratio:>9}")
        if execute:
            line += f"  {r['max_relative_error']:.1e}  {'=' if r['closed_form_match'] else '≠'}"
        print(line)
    print(f"crossover_M: {payload['crossover_M']}")
    masked = [r for r in payload["runs"] if r.get("Z_QK") is not None]
    if masked:
        r = masked[0]
        print(f"mask: {r['mask']}  Z_in = {r['Z_in']:,}  Z_QK = {r['Z_QK']:,}  "
              "sparse crossover Z_in^2/Z_QK = " + (
                  "none (nothing kept)" if r["sparse_crossover"] is None
                  else f"{r['sparse_crossover']['value_float']:.6g}"))


def plot_runs(payload: dict[str, Any], *, n: int, d: int, path: str) -> None:
    """I/O against M on log axes: one solid line per algorithm, its catalogue bound dashed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidInputError(
            "--plot needs matplotlib: install the plots extra (pip install 'attnio[plots]')"
        ) from None
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    bounds_drawn: set[str] = set()
    for name in dict.fromkeys(r["algorithm"] for r in payload["runs"]):
        rows = [r for r in payload["runs"] if r["algorithm"] == name and r["io"] is not None]
        if not rows:
            continue
        line, = ax.plot([r["M"] for r in rows], [r["io"] for r in rows], marker="o", ms=3,
                        label=f"{name} (measured)")
        bound_id = BOUND_IDS[(name, rows[0]["pass"])]
        if bound_id not in bounds_drawn and all(r["formula"] is not None for r in rows):
            bounds_drawn.add(bound_id)
            ax.plot([r["M"] for r in rows], [r["formula"] for r in rows], ls="--",
                    color=line.get_color(), alpha=0.8, label=f"{bound_id} (catalogue)")
    ax.axvline(d * d, color="grey", lw=1.5, alpha=0.6, label=f"M = d² = {d * d:,}")
    if payload.get("crossover_M"):
        ax.axvline(payload["crossover_M"], color="black", ls=":", lw=1,
                   label=f"measured crossover M = {payload['crossover_M']:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("fast memory M (words)")
    ax.set_ylabel("I/O: words read + written")
    pass_ = payload["runs"][0]["pass"] if payload["runs"] else ""
    ax.set_title(f"attnio simulate: {pass_} pass, n = {n:,}, d = {d}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
