r"""``attnio bounds``: every catalogue bound at one instance, the regime and the crossover.

Usage::

    attnio bounds --n N --d D --M M [--json | --latex [FILE.tex] [--force] | --wide]
    attnio bounds --n N --d D --device NAME [--dtype bf16] [--scope sm|block] [--json]

* ``--M`` is the cache size in words; ``--device``/``--dtype`` derive it with
  :func:`attnio.algorithms.advisor.advise` instead (give exactly one of the two).
* The sparse and matmul bounds are evaluated at the dense instance Z_in = n d, Z_QK = n^2,
  m = p = n, k = d (:func:`attnio.symbolic.evaluate.default_instance`); the output says so.
* ``--mask full|causal|window:W|block:B:PATTERN.json`` (and ``--sparse-operands Q,K``) adds
  ``sparse_mask``: Z_in, Z_QK, the class bound ``sparse.lower`` (``sparse_class_bound``: the
  worst case over masks with these counts, not a bound for this mask), Z_in**2/Z_QK and the
  certified bound of this mask per pass (``mask_lower_bound``) next to the dense ones
  (:func:`attnio.bounds.masks.mask_run_fields`); the catalogue list stays
  at the dense instance.
* The crossovers are derived by :func:`attnio.symbolic.crossovers.crossover` at run time.
* Values are exact (``value``, a sympy string) with a float next to them (``value_float``).
* A bound whose admissible range excludes the instance is still evaluated and marked
  ``"in_range": false`` (``*`` in the table): e.g. the small-cache bounds in the large-cache
  regime. That is information, not an error.
* Values too large for a float (e.g. ``--n`` = 10**400) keep their exact ``value`` and get
  ``"value_float": null``: the JSON never holds NaN or Infinity.
* The text fits 100 columns (prose and the expression column wrapped, the value column in
  one number format: :func:`bound_column`); ``--wide`` prints it at full width.
* ``--latex`` prints a booktabs ``tabular`` (bound id, pass, expression, source, value;
  :func:`latex_table`) instead of the text table; ``--latex FILE.tex`` writes it to that file
  through :mod:`attnio.safe_io` (an existing file only with ``--force``). The document needs
  ``\usepackage{booktabs}``.
* Bad input — a non-integer or non-positive n, d or M, more than
  :data:`attnio.validation.MAX_INT_DIGITS` digits, an unknown device or dtype, both or
  neither of ``--M`` / ``--device``, ``--dtype`` or ``--scope`` without ``--device``, a
  ``--hierarchy`` or ``--mask block:B:FILE`` that is not a regular file (a FIFO, a device,
  ``/dev/stdin`` on a pipe, a folder: refused before any read), a hierarchy bandwidth below
  :data:`attnio.algorithms.hierarchy.MIN_BANDWIDTH` — raises
  :class:`~attnio.exceptions.InvalidInputError`:
  exit code 2 and one line naming the value and the rule.

JSON keys (notes/json.md): ``command`` (``"bounds"``), ``verdict`` (``"computed"``: figures
only, nothing asserted), ``instance``, ``instance_note``, ``device`` (or null), ``regime``, ``crossover``
(``{"backward": "d**2", "forward": "d**2", "sparse": "Z_in**2/Z_QK"}``),
``crossover_conditions``, ``crossover_at_instance``, ``recommended_algorithm``,
``io_ratio_flash_over_alg6``, ``bounds`` (a list of ``{id, pass, kind, expression, latex,
value, value_float, in_range, asymptotic, reconstructed, source}``) and the provenance
fields ``attnio_version`` and ``versions`` (:func:`attnio.provenance.provenance`).

Examples
--------
>>> from attnio.cli import main
>>> main(["bounds", "--n", "1024", "--d", "64", "--M", "1024", "--json"])  # doctest: +ELLIPSIS
{...}
0
"""

from __future__ import annotations

import argparse
from typing import Any

import sympy as sp

from attnio.algorithms.advisor import (
    DEVICES,
    DTYPE_BYTES,
    LARGE_CACHE_ALGORITHM,
    SMALL_CACHE_ALGORITHM,
    advise,
    classify_regime,
    predicted_io_ratio,
    recommended_algorithm,
)
from attnio.algorithms.heads import add_heads_arguments, heads_from_args
from attnio.algorithms.hierarchy import Hierarchy, device_hierarchy
from attnio.algorithms.masks import Mask, add_mask_argument, mask_from_args
from attnio.algorithms.simulation import count
from attnio.bounds.heads import stacked_compulsory, stacked_lower_bound
from attnio.bounds.hierarchy import format_levels, levels_report
from attnio.bounds.masks import mask_run_fields
from attnio.exceptions import InvalidInputError
from attnio.flags import (
    add_cache_size_arguments,
    add_latex_argument,
    add_wide_argument,
    check_latex_target,
    emit_latex,
    table_width,
)
from attnio.input_files import read_json_file
from attnio.output import print_document
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.evaluate import catalogue_values, default_instance
from attnio.tables import (
    LatexMath,
    fit_text,
    latex_escape,
    latex_number,
    number_column,
    render_table,
)
from attnio.validation import (
    describe,
    json_float,
    one_line,
    parse_positive_int,
    size_action,
    warn_outside_admissible,
)

__all__ = ["register", "run", "bounds_report", "latex_table", "latex_escape"]
DENSE_NOTE = ("sparse and matmul bounds are evaluated at the dense instance "
              "Z_in = n*d, Z_QK = n**2, m = p = n, k = d")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``bounds`` subcommand."""
    parser = subparsers.add_parser(
        "bounds", help="every I/O bound at (n, d, M), the regime, crossover and advice",
        description="Evaluate the bound catalogue at one instance. Give --M (words) or "
                    "--device/--dtype. Sparse/matmul bounds use Z_in = n*d, Z_QK = n**2, "
                    "m = p = n, k = d.")
    parser.add_argument("--n", "--seq", dest="n", required=True, action=size_action("n"),
                        help="sequence length (positive integer)")
    parser.add_argument("--d", "--head-dim", dest="d", required=True, action=size_action("d"),
                        help="head dimension (positive integer)")

    add_cache_size_arguments(parser, command="bounds", sweep=False, help="cache size in words")
    parser.add_argument("--device", help=f"instead of --M: one of {', '.join(DEVICES)}")
    parser.add_argument("--dtype", help=f"with --device: one of {', '.join(DTYPE_BYTES)} "
                                        "(default bf16)")
    parser.add_argument("--scope", choices=("sm", "block"), default=None,
                        help="with --device: fast memory per SM/core or per thread block "
                             "(default sm)")
    parser.add_argument("--hierarchy", metavar="FILE.json",
                        help="instead of --M/--device: a memory hierarchy file (levels fastest "
                             "first; see notes/hardware.md); prints the per-level table")

    add_heads_arguments(parser)
    parser.add_argument("--pass", dest="pass_", choices=("forward", "backward"),
                        default="backward", help="pass of the per-level table (default backward)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    add_latex_argument(out, what="the bound table (bound, pass, expression, source, value)")
    add_wide_argument(parser)

    add_mask_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def _positive_int(name: str, text: str | None) -> int:
    if text is None:
        raise InvalidInputError(f"{name}=None must be a positive integer")
    return parse_positive_int(name, text)


def bounds_report(n: int, d: int, M: int | None = None, device: str | None = None,
                  dtype: str | None = None, scope: str = "sm", mask: Any = None) -> dict[str, Any]:
    """Everything ``attnio bounds`` prints, as a JSON-ready dict.

    Raises
    ------
    InvalidInputError
        Bad sizes, unknown device/dtype, both or neither of ``M`` and ``device``.

    Examples
    --------
    >>> r = bounds_report(1024, 128, 8192)
    >>> r["regime"], r["recommended_algorithm"], r["crossover"]["sparse"]
    ('small-cache', 'small-cache', 'Z_in**2/Z_QK')
    """
    if (M is None) == (device is None):
        raise InvalidInputError("give exactly one of --M (cache words) and --device")
    if dtype is not None and device is None:
        raise InvalidInputError(f"dtype={dtype} needs --device (with --M the size is in words)")
    device_info = None
    if device is not None:
        advice = advise(device, d, dtype or "bf16", n=n, scope=scope)  # type: ignore[arg-type]
        M = advice.M
        device_info = {"name": advice.device.name, "description": advice.device.description,
                       "dtype": advice.dtype, "scope": scope, "fast_memory":
                       advice.device.fast_memory, "source": advice.device.source}
    assert M is not None  # invariant: set by --M or by the advisor
    instance = default_instance(n, d, M)
    regime, cross_value = classify_regime(M, d)
    derived = {"backward": crossover("bwd.tight"), "forward": crossover("fwd.tight"),
               "sparse": crossover("sparse.lower")}
    at_instance = {
        key: str(sp.simplify(c.solution.subs({s: instance[s.name]
                                              for s in c.solution.free_symbols})))
        for key, c in derived.items()
    }
    ratio = predicted_io_ratio(M, d, n)
    bounds = []
    for bid, ev in catalogue_values(n, d, M).items():
        b = ev.bound
        bounds.append({
            "id": bid, "pass": b.pass_, "kind": b.kind, "expression": str(b.expr),
            "latex": b.latex(), "value": str(ev.value), "value_float": json_float(ev.approx),
            "in_range": ev.in_range, "asymptotic": b.asymptotic,
            "reconstructed": b.reconstructed, "source": b.source, "model": b.model,
        })
    return {
        "instance": instance,
        "instance_note": DENSE_NOTE,
        "device": device_info,
        "regime": regime,
        "crossover": {key: str(c.solution) for key, c in derived.items()},
        "crossover_conditions": {key: [str(x) for x in c.conditions]
                                 for key, c in derived.items()},
        "crossover_at_instance": at_instance,
        "d_squared": cross_value,
        "recommended_algorithm": recommended_algorithm(regime),
        "io_ratio_flash_over_alg6": {"value": str(ratio), "value_float": json_float(ratio)},
        "simulated_io_ratio_flash_over_alg6": _simulated_ratio(n, d, M),
        "bounds": bounds,
        **({} if mask is None else {"sparse_mask": _sparse_mask(mask, n, d, M)}),
    }


def _sparse_mask(mask: Any, n: int, d: int, M: int) -> dict[str, Any]:
    """Z_in, Z_QK, the class bound sparse.lower (worst case over masks with these counts) and
    Z_in**2/Z_QK, and the certified bound of THIS mask per pass (``mask_lower_bound``), for
    ``mask`` and for the dense mask ``full`` (:func:`attnio.bounds.masks.mask_run_fields`,
    the one definition)."""

    return {"masked": mask_run_fields(mask, n, d, M),
            "dense": mask_run_fields(Mask.full(), n, d, M)}


def _simulated_ratio(n: int, d: int, M: int) -> dict[str, Any] | None:
    """FlashAttention-1 ÷ Algorithm 6 backward I/O as *counted* by the two-level memory
    simulator (exact closed forms of the real algorithms, constants included), or None when
    one of them has no tile that fits M. The catalogue ratio above uses constant 1 for both
    bounds; this one is what the algorithms actually move."""

    try:
        flash = count(LARGE_CACHE_ALGORITHM, "backward", n, d, M).io
        small = count(SMALL_CACHE_ALGORITHM, "backward", n, d, M).io
    except InvalidInputError:
        return None
    return {"flash1_io": flash, "small_cache_io": small, "value_float": json_float(flash / small)}


def _table(report: dict[str, Any], width: int | None = None) -> str:
    """The text of ``attnio bounds``: prose lines, then the bound table (one number format
    in the value column, :func:`attnio.tables.number_column`); ``width`` wraps the prose and
    the expression column (None: full width)."""
    inst = report["instance"]
    rel = {"large-cache": ">", "small-cache": "<", "crossover": "="}[report["regime"]]
    lines = [f"attnio bounds: n={inst['n']} d={inst['d']} M={inst['M']} words"]
    if report["device"]:
        dev = report["device"]
        lines[0] += f" ({dev['name']}, {dev['dtype']}, {dev['fast_memory']}, scope {dev['scope']})"
    c = report["crossover"]
    lines += [
        f"regime: {report['regime']} (M {rel} d**2 = {report['d_squared']}); "
        f"recommended algorithm: {report['recommended_algorithm']}",
        f"crossover (derived): backward M = {c['backward']}, forward M = {c['forward']}, "
        f"sparse M = {c['sparse']}",
        f"FlashAttention / Algorithm 6 predicted I/O: "
        f"{report['io_ratio_flash_over_alg6']['value_float']:.4g} (catalogue constants); "
        + (f"{report['simulated_io_ratio_flash_over_alg6']['value_float']:.4g} counted by "
           "`attnio simulate` (flash1 / small-cache)"
           if report["simulated_io_ratio_flash_over_alg6"] else
           "FlashAttention-1 has no tile that fits this M"),
        f"note: {report['instance_note']}; * = instance outside the bound's admissible range",
    ]
    for key in ("masked", "dense") if report.get("sparse_mask") else ():
        v = report["sparse_mask"][key]
        own = v["mask_lower_bound"]
        lines.append(f"sparse ({v['mask']}): Z_in = {v['Z_in']:,}, Z_QK = {v['Z_QK']:,}, "
                     f"class bound sparse.lower (worst mask with these counts, not this "
                     f"mask) = {_float_cell(v['sparse_class_bound'])}, "
                     "crossover Z_in**2/Z_QK = " + (
                         "none (nothing kept)" if v["sparse_crossover"] is None
                         else _float_cell(v["sparse_crossover"]))
                     + f"; this mask, certified: forward >= {own['forward']['value']:,}, "
                       f"backward >= {own['backward']['value']:,}")
    other = [b for b in report["bounds"] if "dL/dX" in b.get("model", "")]
    values = bound_column(report["bounds"])
    table = render_table(
        ["id", "kind", "value", "expression"],
        [[b["id"] + (" †" if b in other else ""), b["kind"], value, b["expression"]]
         for b, value in zip(report["bounds"], values)],
        align=("left", "left", "right", "left"), max_width=width, wrap=[3])
    notes = ["† the dL/dX computation only (Alman & Song's gradient, `small-cache-dx`): "
             "no bound for the backward that returns dQ, dK, dV"] if other else []
    return "\n".join([fit_text("\n".join(lines), width, indent="  "), "", table,
                      *([""] + [fit_text(n, width, indent="  ") for n in notes] if notes
                        else [])])


def bound_column(bounds: list[dict[str, Any]]) -> list[str]:
    """The printed value column of the ``--json`` bound entries: one format for the whole
    column (:func:`attnio.tables.number_column` of the exact values, ``*`` outside an
    admissible range) — the column ``attnio report``'s bound table prints at the same M."""
    return number_column([b["value"] for b in bounds], in_range=[b["in_range"] for b in bounds])


def latex_table(report: dict[str, Any]) -> str:
    r"""A booktabs ``tabular`` of every bound: id, pass, expression, source, value
    (:func:`attnio.tables.render_table` with ``fmt="latex"``: tabulate's ``latex_booktabs``).

    Five columns; ``\toprule``/``\midrule``/``\bottomrule``; every text cell passes through
    :func:`attnio.tables.latex_escape`, the expression is sympy's LaTeX in math mode. A value
    marked ``*`` lies outside the bound's admissible range. Needs ``\usepackage{booktabs}``.

    >>> table = latex_table(bounds_report(64, 8, 128))
    >>> print(table.splitlines()[1])
    \begin{tabular}{lllp{5cm}r}
    >>> table.count(r"\midrule"), table.rstrip().endswith(r"\end{tabular}")
    (1, True)
    """
    inst = report["instance"]
    rows = [[LatexMath(r"\texttt{" + latex_escape(b["id"]) + "}"), b["pass"],
             LatexMath(f"${b['latex']}$"), b["source"], latex_number(value)]
            for b, value in zip(report["bounds"], bound_column(report["bounds"]))]
    table = render_table(["Bound", "Pass", "Expression", "Source", "Value"], rows, fmt="latex",
                         align=["left", "left", "left", "left", "right"],
                         latex_columns="lllp{5cm}r")
    return (f"% attnio bounds: n={inst['n']}, d={inst['d']}, M={inst['M']} words; "
            f"regime {report['regime']}; * = outside the admissible range; needs booktabs\n"
            + table + "\n")


def _heads_fields(n: int, d: int, M: int, batch: int, heads: int, kv: int) -> dict[str, Any]:
    """With B·H > 1 heads: the catalogue stays one head's (``bounds_scope``), and
    ``heads_lower_bound`` gives, per pass, the exact stacked lower bound for all B·H query
    heads in B·G K/V groups (:mod:`attnio.proofs.stacked_heads`)."""

    out: dict[str, Any] = {}
    for pass_ in ("forward", "backward"):
        b = stacked_lower_bound(pass_, n, d, M, batch=batch, heads=heads, kv_heads=kv)
        out[pass_] = {"value": b.value, "route": b.route, "claim_id": b.claim_id,
                      "compulsory": stacked_compulsory(pass_, n, d, batch=batch, heads=heads,
                                                       kv_heads=kv)}
    return {"bounds_scope": "one head (the catalogue's formulas); heads_lower_bound is for "
                            f"all B*H = {batch * heads} query heads in B*G = {batch * kv} "
                            "K/V groups",
            "heads_lower_bound": out}


def _float_cell(entry: dict[str, Any]) -> str:
    """``value_float`` to 6 significant digits; the exact ``value`` when it is beyond the
    float range (``value_float`` None), shortened to one line."""
    if entry["value_float"] is not None:
        return f"{entry['value_float']:.6g}"
    return one_line(str(entry["value"]), 60)


def _heads_lines(report: dict[str, Any], width: int | None = None) -> str:
    intro = (f"heads: batch={report['batch']} heads={report['heads']} "
             f"kv_heads={report['kv_heads']} — the table above is ONE head's catalogue; "
             "lower bound for all heads (exact, every schedule):")
    entries = list(report["heads_lower_bound"].items())
    table = render_table(
        ["pass", "lower bound (words)", "compulsory", "route [claim]"],
        [[pass_, value, compulsory, f"{b['route']} [{b['claim_id']}]"]
         for (pass_, b), value, compulsory in zip(
             entries, number_column([b["value"] for _, b in entries]),
             number_column([b["compulsory"] for _, b in entries]))],
        align=("left", "right", "right", "left"), max_width=width, wrap=[3])
    return fit_text(intro, width, indent="  ") + "\n" + table


def run(args: argparse.Namespace) -> int:
    """Handle ``attnio bounds``; exit 0 (bad input raises InvalidInputError → exit 2)."""
    n = _positive_int("n", args.n)
    d = _positive_int("d", args.d)
    M = None if args.M is None else _positive_int("M", args.M)
    if args.scope is not None and args.device is None:  # like --dtype: never ignored
        raise InvalidInputError(f"--scope {args.scope} needs --device (with --M the size is "
                                "in words; a --hierarchy file names its own levels)")
    check_latex_target(args)  # refuse a bad --latex target before any work

    mask = mask_from_args(args)
    if mask is not None:
        mask.check(n)

    batch, heads, kv_heads = heads_from_args(args)
    hierarchy: Hierarchy | None = None
    hierarchy_notes: list[str] = []
    if args.hierarchy is not None:
        if M is not None or args.device is not None:
            raise InvalidInputError("give exactly one of --M, --device and --hierarchy")
        hierarchy = Hierarchy.from_json(read_json_file(args.hierarchy, what="hierarchy file"),
                                        label=f"hierarchy file {describe(args.hierarchy, 60)}")
        M = hierarchy.boundaries()[0].M
    elif args.device is not None:
        hierarchy, hierarchy_notes = device_hierarchy(args.device, args.dtype or "bf16")
    report = bounds_report(n, d, M, device=args.device, dtype=args.dtype,
                           scope=args.scope or "sm", mask=mask)
    levels = None
    if hierarchy is not None:
        levels = levels_report(hierarchy, args.pass_, n, d, batch=batch, heads=heads,
                               kv_heads=kv_heads)
        levels["notes"] = hierarchy_notes
    report.update(batch=batch, heads=heads, kv_heads=kv_heads)
    if (batch, heads, kv_heads) != (1, 1, 1):
        report.update(_heads_fields(n, d, report["instance"]["M"], batch, heads, kv_heads))
        for entry in report["bounds"]:
            entry["scope"] = "one head"
    if levels is not None:
        report["hierarchy"] = levels.pop("hierarchy")
        report["levels_pass"] = levels.pop("pass")
        report["levels"] = levels.pop("levels")
        report["bottleneck_boundary"] = levels["bottleneck_boundary"]
        report["bottleneck_boundary_lower_bound"] = levels["bottleneck_boundary_lower_bound"]
        report["hierarchy_notes"] = hierarchy_notes
    warn_outside_admissible("bounds", n, d, [report["instance"]["M"]])
    if args.json:
        print_document("bounds", "computed", report)
    elif args.latex is not None:
        emit_latex(args, latex_table(report))
    else:
        width = table_width(args)
        print(_table(report, width))
        if "heads_lower_bound" in report:
            print()
            print(_heads_lines(report, width))
        if levels is not None:
            print()
            print(format_levels({**levels, "hierarchy": report["hierarchy"],
                                 "pass": report["levels_pass"], "levels": report["levels"]},
                                width=width))
            for note in hierarchy_notes:
                print(fit_text(f"note: {note}", width, indent="  "))
    return 0
