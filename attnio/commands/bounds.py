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
  ``\usepackage{booktabs,graphicx}`` (a table wider than the text is scaled down to it).
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
    LARGE_CACHE_ALGORITHM,
    SMALL_CACHE_ALGORITHM,
    classify_regime,
    predicted_io_ratio,
    recommended_algorithm,
)
from attnio.algorithms.hierarchy import LEVEL_ALGORITHMS
from attnio.algorithms.instance import Instance
from attnio.algorithms.masks import Mask
from attnio.algorithms.simulation import count
from attnio.bounds.heads import stacked_compulsory
from attnio.bounds.hierarchy import levels_from_rows
from attnio.bounds.instance_bounds import instance_lower_bound, level_rows
from attnio.bounds.masks import mask_run_fields, masked_compulsory_io
from attnio.commands.instance_flags import add_instance_arguments, instance_from_args
from attnio.commands.instance_tables import levels_summary
from attnio.exceptions import InvalidInputError
from attnio.flags import (
    add_latex_argument,
    add_wide_argument,
    check_latex_target,
    emit_latex,
    table_width,
)
from attnio.output import print_document
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.devices import find_device
from attnio.symbolic.evaluate import catalogue_values, default_instance
from attnio.tables import (
    LatexMath,
    fit_text,
    latex_escape,
    latex_number,
    latex_prose,
    number_column,
    render_table,
)
from attnio.validation import (
    json_float,
    one_line,
    warn_outside_admissible,
)

__all__ = ["register", "run", "bounds_report", "latex_table", "latex_escape"]
DENSE_NOTE = ("sparse and matmul bounds are evaluated at the dense instance "
              "Z_in = n*d, Z_QK = n**2, m = p = n, k = d")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``bounds`` subcommand (the instance flags of
    :mod:`attnio.commands.instance_flags`, one cache size)."""
    parser = subparsers.add_parser(
        "bounds", help="every I/O bound at (n, d, M), the regime, crossover and advice",
        description="Evaluate the bound catalogue at one instance. Give --M (words), "
                    "--device (the device's levels; --dtype, --scope) or --hierarchy FILE. "
                    "Sparse/matmul bounds use Z_in = n*d, Z_QK = n**2, m = p = n, k = d. "
                    "Terms: attnio explain TERM.")
    add_instance_arguments(parser, command="bounds", sweep=False)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    add_latex_argument(out, what="the bound table (bound, pass, expression, source, value)")
    add_wide_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def bounds_report(n: int, d: int, M: int | None = None, device: str | None = None,
                  dtype: str | None = None, scope: str | None = None, mask: Any = None, *,
                  instance: Instance | None = None) -> dict[str, Any]:
    """Everything ``attnio bounds`` prints, as a JSON-ready dict.

    The catalogue, the regime and the crossovers are evaluated at ONE cache size: ``M``, or
    with ``device`` the first boundary of its hierarchy
    (:func:`attnio.algorithms.hierarchy.device_hierarchy`: one SM's registers + shared
    memory, or with ``scope="block"`` one thread block's shared memory) — the same M as the
    first row of the per-level table. ``instance`` (an
    :class:`~attnio.algorithms.instance.Instance`) replaces the other arguments.

    ``recommended_algorithm`` is the catalogue's asymptotic pick for the regime (Thm 1.1,
    constants 1); ``counted_best`` is the algorithm with the fewest counted words at this M
    for the whole instance (mask and heads included), from
    :func:`attnio.bounds.instance_bounds.level_rows` — the figure ``attnio advise`` prints.

    Raises
    ------
    InvalidInputError
        Bad sizes, unknown device/dtype, none or several sources of the cache size.

    Examples
    --------
    >>> r = bounds_report(1024, 128, 8192)
    >>> r["regime"], r["recommended_algorithm"], r["crossover"]["sparse"]
    ('small-cache', 'small-cache', 'Z_in**2/Z_QK')
    >>> r["counted_best"]["algorithm"]
    'fused-resident'
    """
    if instance is None:
        instance = Instance.build(n, d, M=None if M is None else [M], device=device,
                                  dtype=dtype, scope=scope, mask=mask)
    n, d, M = instance.n, instance.d, instance.levels[0].M
    device_info = None
    if instance.device is not None:
        spec = find_device(instance.device)
        first = instance.hierarchy.levels[0] if instance.hierarchy is not None else None
        device_info = {"name": instance.device, "description": spec.name,
                       "dtype": instance.dtype, "scope": instance.scope,
                       "word_bytes": instance.word_bytes,
                       "fast_memory": None if first is None else first.name,
                       "M_words": M,
                       "source": "; ".join(spec.cite(lvl.bytes) for lvl in spec.levels
                                           if lvl.scope == "per-unit")}
    point = default_instance(n, d, M)
    regime, cross_value = classify_regime(M, d)
    derived = {"backward": crossover("bwd.tight"), "forward": crossover("fwd.tight"),
               "sparse": crossover("sparse.lower")}
    at_instance = {
        key: str(sp.simplify(c.solution.subs({s: point[s.name]
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
            "explicit_id": b.explicit_id, "is_bound_here": _is_bound_here(b, ev.in_range),
        })
    at_M = level_rows(instance.with_sizes([M]))[0]
    return {
        "instance": {**point, **{k: v for k, v in instance.to_json().items()
                                 if k not in ("n", "d")}},
        "instance_note": DENSE_NOTE,
        "device": device_info,
        "regime": regime,
        "crossover": {key: str(c.solution) for key, c in derived.items()},
        "crossover_conditions": {key: [str(x) for x in c.conditions]
                                 for key, c in derived.items()},
        "crossover_at_instance": at_instance,
        "d_squared": cross_value,
        "recommended_algorithm": recommended_algorithm(regime),
        "recommended_algorithm_meaning": CATALOGUE_PICK,
        "counted_best": {"algorithm": at_M["best_algorithm"], "io": at_M["best_io"],
                         "bytes": at_M["best_bytes"], "pass": instance.pass_,
                         "meaning": "fewest counted words at this M for the whole instance "
                                    "(mask, heads), every registered algorithm of the pass"},
        "io_ratio_flash_over_alg6": {"value": str(ratio), "value_float": json_float(ratio),
                                     "meaning": "catalogue formulas bwd.flash1.upper / "
                                                "bwd.alg6.upper, constants 1 (asymptotic)"},
        "simulated_io_ratio_flash_over_alg6": _simulated_ratio(n, d, M),
        "bounds": bounds,
        **({} if instance.mask is None else
           {"sparse_mask": _sparse_mask(instance.mask, n, d, M)}),
    }


def _is_bound_here(bound: Any, in_range: bool) -> bool:
    """Whether the row's value is a lower bound at this instance (issue 35 item 4): an
    explicit-constant lower row in its admissible range. An asymptotic row (Θ/Ω/O, constant
    1) never is — its certified neighbour is ``explicit_id``; an upper row bounds one
    algorithm, not every schedule."""
    return bound.kind == "lower" and not bound.asymptotic and in_range


def kind_cell(entry: dict[str, Any]) -> str:
    """The printed kind of a ``bounds`` entry: ``Θ asymptotic`` (Ω, O) for a statement up to
    constants, else ``lower`` / ``upper`` (explicit constants).

    >>> kind_cell({"kind": "lower", "asymptotic": True}), kind_cell({"kind": "lower",
    ...                                                              "asymptotic": False})
    ('Ω asymptotic', 'lower')
    """
    if not entry["asymptotic"]:
        return entry["kind"]
    return {"tight": "Θ", "upper": "O", "lower": "Ω"}[entry["kind"]] + " asymptotic"


def certified_cell(entry: dict[str, Any]) -> str:
    """The ``certified`` column of the bound table (issue 35 item 4): for an asymptotic lower
    or tight row, the id of the explicit-constant row beside it (``explicit_id``: the
    certified one; ``none`` when the catalogue has none); ``yes`` for an explicit lower row
    in its admissible range, ``no (range)`` outside it; blank for an upper row.

    >>> certified_cell({"kind": "tight", "asymptotic": True, "explicit_id": "bwd.trivial.lower",
    ...                 "in_range": True})
    '→ bwd.trivial.lower'
    >>> certified_cell({"kind": "lower", "asymptotic": False, "explicit_id": None,
    ...                 "in_range": True})
    'yes'
    """
    if entry["kind"] == "upper":
        return ""
    if entry["asymptotic"]:
        return f"→ {entry['explicit_id']}" if entry["explicit_id"] else "none"
    return "yes" if entry["in_range"] else "no (range)"


#: What an asymptotic row's value is (printed under the bound table).
ASYMPTOTIC_NOTE = ("Θ/Ω/O asymptotic: a statement up to constants, evaluated with constant 1 — "
                   "its value is no bound at this instance (it can lie above an executed "
                   "count); the certified row is the explicit-constant one named beside it "
                   "(certified → id)")

#: What ``recommended_algorithm`` of ``attnio bounds`` means (printed with it).
CATALOGUE_PICK = ("the catalogue's asymptotic pick for the regime (Thm 1.1: FlashAttention for "
                  "M >= d**2, Algorithm 6 below; constants 1) — not a count; counted_best and "
                  "`attnio advise` give the algorithm with the fewest counted words")


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
    return {"flash1_io": flash, "small_cache_io": small, "value_float": json_float(flash / small),
            "meaning": "exact counts of flash1 / small-cache backward at this M (one head, "
                       "no mask; attnio simulate)"}


def _table(report: dict[str, Any], width: int | None = None) -> str:
    """The text of ``attnio bounds``: prose lines, then the bound table (one number format
    in the value column, :func:`attnio.tables.number_column`); ``width`` wraps the prose and
    the expression column (None: full width)."""
    inst = report["instance"]
    rel = {"large-cache": ">", "small-cache": "<", "crossover": "="}[report["regime"]]
    lines = [f"attnio bounds: {inst['description']}",
             f"catalogue evaluated at M = {inst['M']:,} words"]
    if report["device"]:
        dev = report["device"]
        lines[1] += (f" ({dev['fast_memory']} of {dev['name']}, {dev['dtype']}: the first "
                     "row of the per-level table)")
    c = report["crossover"]
    best = report["counted_best"]
    sim = report["simulated_io_ratio_flash_over_alg6"]
    lines += [
        f"regime: {report['regime']} (M {rel} d**2 = {report['d_squared']:,}); theory's pick "
        f"(Thm 1.1, constants 1): {report['recommended_algorithm']}; counted best at this M "
        f"({best['pass']}, this instance): " + (
            f"{best['algorithm']}, {best['io']:,} words" if best["algorithm"] else "none fits")
        + " (attnio advise)",
        f"crossover (derived): backward M = {c['backward']}, forward M = {c['forward']}, "
        f"sparse M = {c['sparse']}",
        "FlashAttention-1 / Algorithm 6 backward I/O: "
        f"{report['io_ratio_flash_over_alg6']['value_float']:.4g} by the catalogue formulas "
        "(constants 1, asymptotic); " + (
            f"{sim['value_float']:.4g} counted (exact, one head, no mask)" if sim else
            "not counted: FlashAttention-1 has no tile that fits this M")
        + " — they differ by the constants the formulas leave out",
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
                       f"backward >= {own['backward']['value']:,} (one head)")
    other = [b for b in report["bounds"] if "dL/dX" in b.get("model", "")]
    values = bound_column(report["bounds"])
    certified = [certified_cell(b) for b in report["bounds"]]
    keys: dict[str, str] = {}
    if width is not None:  # a terminal: each explicit row named once, under the table
        for i, cell in enumerate(certified):
            if cell.startswith("→ "):
                key = keys.setdefault(cell[2:], f"e{len(keys) + 1}")
                certified[i] = f"→ {key}"
    table = render_table(
        ["id", "kind", "value", "certified", "expression"],
        [[b["id"] + (" †" if b in other else ""), kind_cell(b), value, cell, b["expression"]]
         for b, value, cell in zip(report["bounds"], values, certified)],
        align=("left", "left", "right", "left", "left"), max_width=width, wrap=[4])
    notes = [ASYMPTOTIC_NOTE] if any(b["asymptotic"] for b in report["bounds"]) else []
    notes += [f"{key}: {ident} (the explicit-constant row certified beside it)"
              for ident, key in keys.items()]
    notes += ["† the dL/dX computation only (Alman & Song's gradient, `small-cache-dx`): "
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
    marked ``*`` lies outside the bound's admissible range. Needs
    ``\usepackage{booktabs,graphicx}``.

    >>> table = latex_table(bounds_report(64, 8, 128))
    >>> print(table.splitlines()[2])
    \begin{tabular}{lllp{5cm}r}
    >>> table.count(r"\midrule"), r"\end{tabular}" in table
    (1, True)
    """
    inst = report["instance"]
    rows = [[LatexMath(r"\texttt{" + latex_escape(b["id"]) + "}"), b["pass"],
             LatexMath(f"${b['latex']}$"), latex_prose(b["source"]), latex_number(value)]
            for b, value in zip(report["bounds"], bound_column(report["bounds"]))]
    table = render_table(["Bound", "Pass", "Expression", "Source", "Value"], rows, fmt="latex",
                         align=["left", "left", "left", "left", "right"],
                         latex_columns="lllp{5cm}r")
    return (f"% attnio bounds: n={inst['n']}, d={inst['d']}, M={inst['M']} words; "
            f"regime {report['regime']}; * = outside the admissible range; needs "
            "\\usepackage{booktabs,graphicx}\n"
            + table + "\n")


def _heads_fields(instance: Instance, M: int) -> dict[str, Any]:
    """With B·H > 1 heads: the catalogue stays one head's (``bounds_scope``), and
    ``heads_lower_bound`` gives, per pass, the certified lower bound for all B·H query heads
    in B·G K/V groups with the instance's mask (:func:`attnio.bounds.instance_bounds.
    instance_lower_bound`: the stacked bound, or the per-mask bound of every head)."""

    out: dict[str, Any] = {}
    b, h, kv = instance.batch, instance.heads, instance.kv_heads
    for pass_ in ("forward", "backward"):
        inst = instance.with_pass(pass_)
        bound = instance_lower_bound(inst, M)
        mask = inst.sparse_mask
        compulsory = (stacked_compulsory(pass_, inst.n, inst.d, batch=b, heads=h, kv_heads=kv)
                      if mask is None else
                      masked_compulsory_io(pass_, mask, inst.n, inst.d, batch=b, heads=h,
                                           kv_heads=kv))
        out[pass_] = {"value": bound.value, "route": bound.route, "claim_id": bound.claim_id,
                      "compulsory": compulsory}
    where = "" if instance.mask is None else f", mask {instance.mask.label} on every head"
    return {"bounds_scope": "one head (the catalogue's formulas); heads_lower_bound is for "
                            f"all B*H = {b * h} query heads in B*G = {b * kv} K/V groups{where}",
            "heads_lower_bound": out}


def _float_cell(entry: dict[str, Any]) -> str:
    """``value_float`` to 6 significant digits; the exact ``value`` when it is beyond the
    float range (``value_float`` None), shortened to one line."""
    if entry["value_float"] is not None:
        return f"{entry['value_float']:.6g}"
    return one_line(str(entry["value"]), 60)


def _heads_lines(report: dict[str, Any], width: int | None = None) -> str:
    mask = report["instance"].get("mask")
    intro = (f"heads: batch={report['batch']} heads={report['heads']} "
             f"kv_heads={report['kv_heads']}" + (f", mask {mask} on every head" if mask else "")
             + " — the table above is ONE head's catalogue; certified lower bound for all "
             "heads (exact, every schedule):")
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
    check_latex_target(args)  # refuse a bad --latex target before any work
    instance = instance_from_args(args)
    report = bounds_report(instance.n, instance.d, instance=instance)
    M = report["instance"]["M"]
    rows = None
    if instance.has_hierarchy:
        rows = level_rows(instance, LEVEL_ALGORITHMS[instance.pass_])
        levels = levels_from_rows(instance, rows)
        report["hierarchy"] = levels["hierarchy"]
        report["levels_pass"] = levels["pass"]
        report["levels"] = levels["levels"]
        report["bottleneck_boundary"] = levels["bottleneck_boundary"]
        report["bottleneck_boundary_lower_bound"] = levels["bottleneck_boundary_lower_bound"]
        report["hierarchy_notes"] = list(instance.hierarchy_notes)
    report.update(batch=instance.batch, heads=instance.heads, kv_heads=instance.kv_heads)
    if instance.multi_head:
        report.update(_heads_fields(instance, M))
        for entry in report["bounds"]:
            entry["scope"] = "one head"
    warn_outside_admissible("bounds", instance.n, instance.d, [M])
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
        if rows is not None:
            print()
            print(fit_text(f"memory hierarchy: {report['hierarchy']['label']}, "
                           f"{instance.pass_} pass, this instance ({instance.word_bytes}-byte "
                           "words; M = the capacity above each boundary; best = fewest counted "
                           "words):", width, indent="  "))
            print(levels_summary(instance, rows, width=width))
            bn = report["bottleneck_boundary"]
            print(fit_text("bottleneck: " + (
                "unknown (no bandwidth published below any boundary)" if bn is None else
                f"boundary {bn} ({report['levels'][bn]['above']} | "
                f"{report['levels'][bn]['below']}), the best algorithm's time; time = bytes / "
                "bandwidth, no overlap") + "; every algorithm per level: attnio advise",
                width, indent="  "))
            for note in instance.hierarchy_notes:
                print(fit_text(f"note: {note}", width, indent="  "))
    return 0
