"""``attnio gap``: the best explicit lower bound against every algorithm's exact I/O, per M.

Examples (shell)::

    attnio gap --n 4096 --d 64 --M-range 64:262144:13 --pass backward
    attnio gap --n 4096 --d 64 --M 1024,4096 --pass forward --json
    attnio gap --n 4096 --d 64 --M-range 64:262144:13 --pass backward --tune --plot gap.png

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> args = register(sub).parse_args(["--n", "64", "--d", "8", "--M", "256"])
>>> args.pass_, args.tune
('backward', False)
"""

from __future__ import annotations

import argparse

from attnio.algorithms.gap import gap_payload
from attnio.algorithms.simulation import PASSES, validate_size
from attnio.output import print_json
from attnio.safe_io import write_bytes
from attnio.tables import render_table
from attnio.validation import (PLOT_SUFFIXES, check_output_path, size_action,
                               warn_outside_admissible)

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``gap`` subcommand."""
    parser = subparsers.add_parser(
        "gap",
        help="best explicit lower bound vs every algorithm's exact I/O, and their ratio",
        description=(
            "For each fast-memory size M: the best explicit-constant I/O lower bound (an exact "
            "int, its route and the claim it instantiates), every algorithm's exact I/O, the "
            "cheapest algorithm and the ratio cheapest / lower bound."
        ),
    )
    parser.add_argument("--n", required=True, action=size_action("n"), help="sequence length n")
    parser.add_argument("--d", required=True, action=size_action("d"), help="head dimension d")
    sizes = parser.add_mutually_exclusive_group(required=True)
    sizes.add_argument("--M", dest="M", metavar="M1,M2,...", action=size_action("M", sweep=True),
                       help="fast-memory sizes in words: V, V1,V2,..., LO:HI or LO:HI:STEP")
    sizes.add_argument("--M-range", dest="M_range", metavar="LO:HI:STEPS",
                       action=size_action("--M-range", geometric=True),
                       help="STEPS sizes from LO to HI words, geometrically spaced")
    parser.add_argument("--pass", dest="pass_", choices=PASSES, default="backward",
                        help="forward or backward pass (default backward)")
    parser.add_argument("--tune", action="store_true",
                        help="block sizes by exact integer search for the least I/O under M")
    from attnio.algorithms.heads import add_heads_arguments

    add_heads_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the ratio against M (.png, .pdf or .svg, by extension)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Entry point of ``attnio gap``."""
    n, d = validate_size("n", args.n), validate_size("d", args.d)
    Ms = args.M if args.M is not None else args.M_range
    warn_outside_admissible("gap", n, d, Ms)
    if args.plot is not None:  # refuse a bad target (empty, wrong extension, ...) before any work
        plot_target = check_output_path(args.plot, suffixes=PLOT_SUFFIXES, overwrite=args.force,
                                        what="--plot")
    from attnio.algorithms.heads import heads_from_args
    from attnio.algorithms.hierarchy import multihead_gap_payload
    from attnio.exceptions import InvalidInputError

    batch, heads, kv_heads = heads_from_args(args)
    if (batch, heads, kv_heads) == (1, 1, 1):
        payload = gap_payload(args.pass_, n, d, Ms, tune=args.tune)
        payload.update(batch=1, heads=1, kv_heads=1)
    elif args.tune:
        raise InvalidInputError("--tune takes no --batch/--heads/--kv-heads")
    else:
        payload = multihead_gap_payload(args.pass_, n, d, Ms, batch=batch, heads=heads,
                                        kv_heads=kv_heads)
    if args.plot is not None:  # rendered before anything is printed (its format: the extension)
        from attnio.algorithms.gap import plot_gap
        from attnio.reporting.style import render_figure

        figure = render_figure(lambda: plot_gap([payload]), plot_target)
        write_bytes(plot_target, figure, overwrite=args.force)
    if args.json:
        print_json(payload)
        return 0
    table = []
    for row in payload["rows"]:
        table.append([row["M"], f"{row['lower_bound']:,}", row["best_algorithm"],
                      f"{row['best_io']:,}", f"{row['ratio']:.2f}",
                      f"{row['route']} [{row['claim_id']}]"])
        table += [["", "", f"{name}: omitted ({reason})", "", "", ""]
                  for name, reason in row["omitted"].items()]
    print(render_table(["M", "lower bound", "best algorithm", "best io", "ratio", "route"], table,
                       align=["right", "right", "left", "right", "right", "left"]))
    return 0
