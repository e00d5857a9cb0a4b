"""``attnio advise``: which algorithm moves the fewest bytes on this instance, and how far it is
from the I/O optimum — per memory level, in one command (issue 34, item 3).

Usage::

    attnio advise --n 8192 --d 128 --device h100 --dtype bf16 --mask causal --pass backward
    attnio advise --n 8192 --d 128 --device h100 --heads 32 --kv-heads 8 --mask causal
    attnio advise --n 4096 --d 64 --M 2048 --json

The instance is the one grammar of :mod:`attnio.commands.instance_flags` (sizes, pass, cache
levels by ``--M``/``--device``/``--hierarchy``, ``--dtype``, heads and groups, mask). For each
cache level it prints every registered algorithm of the pass with its counted I/O in words
(and bytes with a dtype; time where the bandwidth below the level is published), the
certified lower bound of the whole instance (every schedule of every algorithm of the pass)
with its route and claim, the bound of each computation class, ``io/LB`` and ``io/LB(class)``
(:func:`attnio.bounds.instance_bounds.level_rows`). An algorithm that cannot run on the
instance is a row ``n/a`` with its reason as a footnote.

The recommendation comes from counted I/O only (:func:`attnio.bounds.instance_bounds.recommend`);
the catalogue's asymptotic pick (Thm 1.1's regime, constants 1, ``attnio bounds``) is printed
beside it, and where the two differ the output says so and why.

JSON (``--json``, notes/json.md): ``command`` (``"advise"``), ``verdict`` (``"computed"``),
``instance``, ``levels`` (the entries of ``level_rows``), ``recommendation``, ``catalogue``
(per level the regime's pick and whether the counted best agrees), ``hierarchy_notes``.

>>> from attnio.cli import main
>>> main(["advise", "--n", "64", "--d", "8", "--M", "64", "--mask", "window:1", "--heads", "4",
...       "--kv-heads", "1", "--json"])  # doctest: +ELLIPSIS
{...}
0
"""

from __future__ import annotations

import argparse
from typing import Any

from attnio.algorithms.advisor import (
    LARGE_CACHE_ALGORITHM,
    SMALL_CACHE_ALGORITHM,
    recommended_algorithm,
)
from attnio.algorithms.instance import Instance
from attnio.algorithms.registry import get_algorithm
from attnio.bounds.instance_bounds import level_rows, recommend
from attnio.commands.instance_flags import add_instance_arguments, instance_from_args
from attnio.commands.instance_tables import bound_lines, level_header, level_table, wrapped
from attnio.flags import add_wide_argument, table_width
from attnio.output import print_document
from attnio.tables import fit_text
from attnio.validation import warn_outside_admissible

__all__ = ["register", "run", "advice", "catalogue_check"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``advise`` subcommand."""
    parser = subparsers.add_parser(
        "advise", help="per memory level: every algorithm's counted I/O, the certified lower "
                       "bound, and the algorithm to run",
        description="For one attention instance (sizes, pass, mask, heads, device or M): per "
                    "cache level, every algorithm's counted I/O in words and bytes, the "
                    "certified lower bound and the ratio, and the algorithm that moves the "
                    "fewest bytes. Terms: attnio explain TERM.")
    add_instance_arguments(parser, command="advise", sweep=True)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_wide_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def catalogue_check(instance: Instance, levels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per level: the catalogue's asymptotic pick for the regime (``flash-attention`` or
    ``small-cache``, Thm 1.1 with constants 1) and whether the counted best belongs to it
    (the same upper-bound family: the algorithm's catalogue bound)."""
    out = []
    for lvl in levels:
        pick = recommended_algorithm(lvl["regime"])
        standing = LARGE_CACHE_ALGORITHM if pick == "flash-attention" else SMALL_CACHE_ALGORITHM
        family = get_algorithm(standing).bound_id(instance.pass_)
        best = lvl["best_algorithm"]
        agrees = None if best is None else get_algorithm(best).bound_id(instance.pass_) == family
        out.append({"level": lvl["level"], "regime": lvl["regime"], "catalogue_pick": pick,
                    "family_bound": family, "counted_best": best, "agrees": agrees})
    return out


def advice(instance: Instance) -> dict[str, Any]:
    """Everything ``attnio advise`` prints, as a JSON-ready dict."""
    levels = level_rows(instance)
    return {"instance": instance.to_json(), "levels": levels,
            "recommendation": recommend(instance, levels),
            "catalogue": catalogue_check(instance, levels),
            "hierarchy_notes": list(instance.hierarchy_notes)}


def _text(instance: Instance, report: dict[str, Any], width: int | None) -> str:
    out = [fit_text(f"attnio advise: {instance.describe()}", width, indent="  ")]
    for lvl in report["levels"]:
        out += ["", fit_text(level_header(instance, lvl), width, indent="  ")]
        out += wrapped(bound_lines(instance, lvl), width)
        table, notes = level_table(instance, lvl, width=width)
        out += [table, *wrapped(notes, width)]
    rec = report["recommendation"]
    out.append("")
    if rec["algorithm"] is None:
        out.append(fit_text(f"recommended: none ({rec['rule']}); best per level: "
                            + ", ".join(str(b) for b in rec["per_level"]), width, indent="  "))
    else:
        out.append(fit_text(f"recommended: {rec['algorithm']} — {rec['rule']}; counted I/O "
                            "(attnio simulate), not catalogue constants", width, indent="  "))
    for c in report["catalogue"]:
        if c["agrees"] is False:
            out.append(fit_text(
                f"note: at {c['level']} the catalogue's asymptotic pick for the {c['regime']} "
                f"regime is {c['catalogue_pick']} (Thm 1.1, constants 1: attnio bounds), but "
                f"the counted best is {c['counted_best']}: the catalogue's bounds carry no "
                "constants, the counts are exact", width, indent="  "))
    for note in report["hierarchy_notes"]:
        out.append(fit_text(f"note: {note}", width, indent="  "))
    out.append(fit_text("terms: attnio explain 'io/LB' (and 'class', 'lower bound', "
                        "'n/a')", width, indent="  "))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Handle ``attnio advise``; exit 0 (bad input: exit 2)."""
    instance = instance_from_args(args)
    warn_outside_admissible("advise", instance.n, instance.d, instance.Ms)
    report = advice(instance)
    if args.json:
        print_document("advise", "computed", report)
    else:
        print(_text(instance, report, table_width(args)))
    return 0
