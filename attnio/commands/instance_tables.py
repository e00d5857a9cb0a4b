"""The tables of one attention instance, level by level, as ``advise``, ``bounds`` and ``gap``
print them (the rendering of :func:`attnio.bounds.instance_bounds.level_rows`).

Column names mean one thing in every command (notes/glossary.md, ``attnio explain``):

* ``io words`` / ``io bytes`` — the algorithm's counted reads + writes (exact);
* ``LB words`` — the certified lower bound of the instance, every schedule of every algorithm
  of the pass (``lower bound`` in the glossary);
* ``io/LB`` — counted io ÷ that certified bound (≥ 1; how far the count is, at most, from the
  I/O optimum);
* ``io/LB(class)`` — counted io ÷ the certified bound of the algorithm's own computation class;
* ``io/own O(·)`` (``attnio simulate`` only) — counted io ÷ the algorithm's own upper-bound
  formula with constant 1: a constant factor, never a distance from the optimum.

An algorithm with no run is a row ``n/a [k]`` whose reason is footnote ``[k]`` (never dropped).
"""

from __future__ import annotations

from typing import Any

from attnio.algorithms.instance import Instance
from attnio.tables import fit_text, number_column, render_table

__all__ = ["level_header", "level_table", "levels_summary", "bound_lines", "seconds_cell",
           "ratio_cell"]


def seconds_cell(value: float | None) -> str:
    """A transfer time: ``1.23e-04 s``, or ``n/a`` (no bandwidth or no dtype).

    >>> seconds_cell(0.000123), seconds_cell(None)
    ('1.23e-04 s', 'n/a')
    """
    return "n/a" if value is None else f"{value:.2e} s"


def ratio_cell(value: float | None) -> str:
    """A ratio to two decimals, ``-`` when there is none."""
    return "-" if value is None else f"{value:.2f}"


def level_header(instance: Instance, level: dict[str, Any]) -> str:
    """``boundary 0: registers + shared memory | L2 — M = 247,808 words (495,616 bytes);
    large-cache (M > d**2 = 16,384)`` — or ``M = 1,024 words; …`` for a plain ``--M``."""
    rel = {"large-cache": ">", "small-cache": "<", "crossover": "="}[level["regime"]]
    size = f"M = {level['M']:,} words" + (f" ({level['M_bytes']:,} bytes)"
                                         if level["M_bytes"] is not None else "")
    where = (f"boundary {level['index']}: {level['level']} — " if instance.has_hierarchy
             else "")
    return f"{where}{size}; {level['regime']} (M {rel} d**2 = {level['d_squared']:,})"


def bound_lines(instance: Instance, level: dict[str, Any]) -> list[str]:
    """The certified bound of the level and the bound of each computation class, in words."""
    lb = level["lower_bound"]
    data = "" if lb["bytes"] is None else f" = {lb['bytes']:,} bytes"
    lines = [f"certified lower bound, every {instance.pass_} algorithm: {lb['value']:,} words"
             f"{data} ({lb['route']}; claim {lb['claim_id']})"]
    if len(level["class_bounds"]) > 1:
        lines.append("per computation class (each holds for the algorithms of that class): "
                     + "; ".join(f"{cls} >= {b['value']:,} words"
                                 for cls, b in level["class_bounds"].items()))
    return lines


def level_table(instance: Instance, level: dict[str, Any], *, width: int | None = None,
                fmt: str = "plain") -> tuple[str, list[str]]:
    """Every algorithm at one level: algorithm, class, io words (and bytes, time with a dtype
    and a bandwidth), io/LB, io/LB(class). Returns the table and its footnotes (the reasons
    of the ``n/a`` rows, ``[k] name: n/a: reason``)."""
    entries = level["algorithms"]
    notes: list[str] = []
    names = []
    for e in entries:
        cell = e["algorithm"] + (" (best)" if e["algorithm"] == level["best_algorithm"] else "")
        if e["io"] is None:
            notes.append(f"{e['algorithm']}: n/a: {e['not_applicable']}")
            cell += f" [{len(notes)}]"
        elif e.get("note"):
            notes.append(f"{e['algorithm']}: {e['note']}")
            cell += f" [{len(notes)}]"
        names.append(cell)
    header = ["algorithm", "class", "io words"]
    columns: list[list[str]] = [names, [e["computation"] for e in entries],
                                number_column([e["io"] for e in entries], missing="n/a")]
    if instance.word_bytes is not None:
        header.append("io bytes")
        columns.append(number_column([e["bytes"] for e in entries], missing="n/a"))
    if level["bandwidth_bytes_per_s"] is not None and instance.word_bytes is not None:
        header.append("time")
        columns.append([seconds_cell(e["seconds"]) if e["io"] is not None else "n/a"
                        for e in entries])
    header += ["io/LB", "io/LB(class)"]
    columns += [[ratio_cell(e["io_over_lower_bound"]) for e in entries],
                [ratio_cell(e["io_over_class_bound"]) for e in entries]]
    align = ["left", "left", *["right"] * (len(header) - 2)]
    table = render_table(header, list(zip(*columns)), align=align, fmt=fmt, max_width=width,
                         wrap=[0])
    return table, [f"[{k}] {note}" for k, note in enumerate(notes, 1)]


def levels_summary(instance: Instance, levels: list[dict[str, Any]], *,
                   width: int | None = None, fmt: str = "plain") -> str:
    """One row per level: level, M, regime, certified bound, best algorithm (by counted io),
    its io (and bytes, time), io/LB — the per-level table of ``attnio bounds --device``. On
    a terminal (``width``) the regime and the bound in bytes are left to ``--wide`` and
    ``--json``."""
    header = ["level" if instance.has_hierarchy else "M", "M words", "regime", "LB words",
              "best algorithm", "io words"]
    columns: list[list[str]] = [
        [lvl["level"] if instance.has_hierarchy else f"{lvl['M']:,}" for lvl in levels],
        number_column([lvl["M"] for lvl in levels]), [lvl["regime"] for lvl in levels],
        number_column([lvl["lower_bound"]["value"] for lvl in levels]),
        [lvl["best_algorithm"] or "none runs" for lvl in levels],
        number_column([lvl["best_io"] for lvl in levels], missing="n/a")]
    if instance.word_bytes is not None:
        header += ["LB bytes", "io bytes"]
        columns += [number_column([lvl["lower_bound"]["bytes"] for lvl in levels]),
                    number_column([lvl["best_bytes"] for lvl in levels], missing="n/a")]
        if any(lvl["bandwidth_bytes_per_s"] is not None for lvl in levels):
            header.append("time")
            columns.append([seconds_cell(lvl["best_seconds"]) for lvl in levels])
    header.append("io/LB")
    columns.append([ratio_cell(lvl["ratio"]) for lvl in levels])
    drop = [i for i, name in enumerate(header) if width is not None
            and name in ("regime", "LB bytes")]
    if not instance.has_hierarchy:
        drop.append(1)
    for i in sorted(drop, reverse=True):
        del header[i], columns[i]
    align = ["left" if instance.has_hierarchy else "right", *["right"] * (len(header) - 1)]
    for i, name in enumerate(header):
        if name in ("regime", "best algorithm"):
            align[i] = "left"
    return render_table(header, list(zip(*columns)), align=align, fmt=fmt, max_width=width,
                        wrap=[0] if instance.has_hierarchy else [])


def wrapped(lines: list[str], width: int | None) -> list[str]:
    """Prose lines fitted to ``width`` (continuations indented)."""
    return [fit_text(line, width, indent="    ") for line in lines]
