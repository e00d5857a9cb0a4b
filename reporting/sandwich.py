"""The pebbling sandwich on tiny DAGs, per M: explicit lower bound ≤ Hong–Kung partition
bound ≤ exact optimum ≤ every replayed algorithm schedule.

The rows are :class:`attnio.proofs.sandwich.SandwichRow` — the one row type of the sandwich,
computed and checked by :func:`attnio.proofs.sandwich.sandwich_row` — and this module only
adds what the figure needs beside them: each DAG's vertex count and the catalogue's trivial
lower bound (inputs read once, outputs written once) for matmul and attention-forward DAGs
(:class:`SandwichFigure`).

Examples
--------
>>> from attnio.proofs.sandwich import SandwichRow
>>> rows = tuple(SandwichRow("matmul 1x2x1", M, explicit=0, hong_kung=0, optimum=9 - M,
...                          schedules={"flash": 10 - M}) for M in (3, 4))
>>> data = SandwichFigure(rows, vertices={"matmul 1x2x1": 7}, trivial={"matmul 1x2x1": 3})
>>> [ax.get_title() for ax in plot_sandwich(data).axes]
['matmul 1x2x1 (7 vertices)']
>>> sandwich_table(data)[1][0]
['matmul 1x2x1 (7 vertices)', 3, 0, 0, 3, 6, 'flash 7', 'ok']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import networkx as nx

from attnio.results import Status
from attnio.exceptions import InvalidInputError
from attnio.graphs.schedules import algorithm_schedules
from attnio.proofs.sandwich import (
    DEEP_INSTANCES,
    DEFAULT_INSTANCES,
    Instance,
    SandwichRow,
    sandwich_row,
)
from attnio.reporting.style import (
    IO_LABEL,
    LABEL_BOX,
    M_LABEL,
    algorithm_colour,
    new_figure,
    save_png,
)
from attnio.symbolic.catalogue import get_bound

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["SandwichFigure", "sandwich_data", "plot_sandwich", "sandwich_table",
           "SANDWICH_FIGURE_INSTANCES", "SANDWICH_TABLE_HEADER", "trivial_bound"]

#: Sandwich instances drawn by :func:`sandwich_data` (labels of
#: :data:`attnio.proofs.sandwich.DEFAULT_INSTANCES` / ``DEEP_INSTANCES``); ``quick`` draws the first two.
SANDWICH_FIGURE_INSTANCES = ("matmul 1x2x1", "matmul 2x2x1", "matmul 2x2x2",
                             "attention forward n=2 d=1")
SANDWICH_TABLE_HEADER = ("DAG", "M", "explicit", "Hong–Kung", "trivial", "optimum", "schedules",
                         "note")


def _status(row: SandwichRow) -> str:
    """The row's status as a plain lower-case string (an enum member prints as its value)."""
    return str(getattr(row.status, "value", row.status)).lower()


@dataclass(frozen=True, slots=True)
class SandwichFigure:
    """Sandwich rows (one per instance and M) and, per instance label, what the figure adds:
    ``vertices`` (the DAG's vertex count, for the panel title) and ``trivial`` (the
    catalogue's trivial lower bound, or None where the catalogue has none)."""

    rows: tuple[SandwichRow, ...]
    vertices: Mapping[str, int] = field(default_factory=dict)
    trivial: Mapping[str, int | None] = field(default_factory=dict)

    def panel_title(self, label: str) -> str:
        """``"matmul 1x2x1 (7 vertices)"`` (just the label when the count is unknown)."""
        count = self.vertices.get(label)
        return label if count is None else f"{label} ({count} vertices)"

    def value(self, row: SandwichRow, what: str) -> int | None:
        """One plotted value of a row: a SandwichRow field, or ``"trivial"``."""
        return self.trivial.get(row.label) if what == "trivial" else getattr(row, what)


def plot_sandwich(data: SandwichFigure, path: str | Path | None = None) -> "Figure":
    """Draw the sandwich per M on each tiny DAG as a step chart (one panel per DAG).

    Lower bound and partition bound are filled steps from below, the exact optimum a thick
    black step, each replayed algorithm schedule a marker line above it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = data.rows
    dags = list(dict.fromkeys(row.label for row in rows))
    ncols = len(dags) if len(dags) <= 3 else 2
    nrows = math.ceil(len(dags) / max(ncols, 1))
    fig = new_figure(max(9.0, 5.2 * ncols), 4.2 * nrows + 1.4)
    legend_entries: dict[str, Any] = {}
    series = (("explicit", "explicit lower bound", "#9ecae1", "-"),
              ("hong_kung", "Hong–Kung partition bound M·(P(G,2M)−1)", "#3182bd", "-"),
              ("trivial", "trivial bound: inputs + outputs (catalogue)", "#31a354", "--"),
              ("optimum", "exact optimum", "black", "-"))
    for k, dag in enumerate(dags):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        mine = sorted((r for r in rows if r.label == dag), key=lambda r: r.M)
        Ms = [r.M for r in mine]
        for attr, label, colour, style in series:
            points = [(r.M, data.value(r, attr)) for r in mine if data.value(r, attr) is not None]
            if not points:
                continue
            xs, ys = zip(*points)
            width = 2.6 if attr == "optimum" else 1.8
            # Steps change only at the sampled M ("post": a value holds until the next sampled
            # M), so no step is drawn at an M that was never computed.
            ax.step(xs, ys, where="post", color=colour, lw=width, ls=style, label=label, zorder=3)
            if attr in ("explicit", "hong_kung"):
                ax.fill_between(xs, 0, ys, step="post", color=colour, alpha=0.25)
            else:
                ax.plot(xs, ys, "s", color=colour, ms=4, zorder=4)
        names = list(dict.fromkeys(name for r in mine for name in r.schedules))
        markers = ["^", "v", "D", "P", "X", "*"]
        for j, name in enumerate(names):
            points = [(r.M, r.schedules.get(name)) for r in mine if r.schedules.get(name) is not None]
            if not points:
                continue
            xs, ys = zip(*points)
            # Shrinking markers: schedules with equal costs stay visible on top of each other.
            ax.plot(xs, ys, marker=markers[j % len(markers)], ms=max(4, 10 - 2 * j), lw=1.0, ls=":",
                    color=algorithm_colour(name, j + 2), label=f"schedule: {name}", zorder=5)
        ax.set_xticks(Ms)
        ax.set_xlabel(M_LABEL)
        ax.set_ylabel(IO_LABEL)
        top = ax.get_ylim()[1]
        ax.set_ylim(-0.04 * top, top)  # bounds equal to 0 stay visible above the axis
        ax.set_title(data.panel_title(dag))
        ax.grid(True, alpha=0.3)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend_entries.setdefault(label, handle)
        unsolved = [r.M for r in mine if r.optimum is None]
        if unsolved:
            ax.text(0.02, 0.12, "optimum undecided (search budget) at M = "
                    + ", ".join(map(str, unsolved)), transform=ax.transAxes, fontsize=8,
                    color="#b30000", va="bottom", bbox=LABEL_BOX)
    fig.legend(list(legend_entries.values()), list(legend_entries), loc="outside lower center",
               ncol=min(4 if ncols > 1 else 3, len(legend_entries)), fontsize=8.5, frameon=False)
    fig.suptitle("Pebbling sandwich: lower bound ≤ partition bound ≤ optimum ≤ schedules")
    return save_png(fig, path)


def sandwich_table(data: SandwichFigure) -> tuple[tuple[str, ...], list[list[Any]]]:
    """The figure's numbers as a table: :data:`SANDWICH_TABLE_HEADER` and one row per
    (instance, M) — ints, None where unknown, the schedules as ``"name cost, …"`` and the
    note ``"ok"`` or ``"status: detail"``."""
    rows: list[list[Any]] = []
    for r in data.rows:
        status = _status(r)
        schedules = ", ".join(f"{k} {v}" for k, v in sorted(r.schedules.items())) or "—"
        rows.append([data.panel_title(r.label), r.M, r.explicit, r.hong_kung,
                     data.trivial.get(r.label), r.optimum, schedules,
                     "ok" if status == Status.PROVED.value else f"{status}: {r.detail}"])
    return SANDWICH_TABLE_HEADER, rows


def sandwich_data(*, quick: bool = False, labels: Sequence[str] | None = None,
                  max_M_count: int | None = None, time_limit: float = 10.0,
                  timeout_ms: int = 20_000) -> SandwichFigure:
    """Compute the sandwich rows of :mod:`attnio.proofs.sandwich` for the figure's instances.

    Each row is :func:`attnio.proofs.sandwich.sandwich_row` — explicit lower bound, Hong–Kung
    partition bound M·(P(G, 2M) − 1) (z3), exact optimum (A*, replayed) and the replayed
    algorithm schedules. Infeasible M are left out; an undecided or violating row keeps the
    values it has and says so in its status and detail.

    Parameters
    ----------
    quick : bool
        Only the first two instances.
    labels : sequence of str, optional
        Instance labels (default :data:`SANDWICH_FIGURE_INSTANCES`).
    max_M_count : int, optional
        Keep only this many of each instance's largest M (the small M are the slow searches).
    time_limit, timeout_ms : float, int
        Budgets of the pebbling search (seconds) and of each z3 call (ms) per row.

    Returns
    -------
    SandwichFigure
    """
    wanted = list(labels or SANDWICH_FIGURE_INSTANCES)[: 2 if quick else None]
    # One label may appear in both lists (default and deep Ms): draw the union of its Ms.
    known: dict[str, Instance] = {}
    cache_sizes: dict[str, set[int]] = {}
    for inst in (*DEFAULT_INSTANCES, *DEEP_INSTANCES):
        known.setdefault(inst.label, inst)
        cache_sizes.setdefault(inst.label, set()).update(inst.Ms)
    rows: list[SandwichRow] = []
    vertices: dict[str, int] = {}
    trivial: dict[str, int | None] = {}
    for label in wanted:
        if label not in known:
            raise InvalidInputError(f"sandwich instance {label!r} is unknown; known: {', '.join(known)}")
        inst = known[label]
        graph = inst.build()
        vertices[label], trivial[label] = graph.number_of_nodes(), trivial_bound(inst)
        Ms = sorted(cache_sizes[label])
        if max_M_count is not None:
            Ms = Ms[-max_M_count:]  # the largest M are the fast ones
        for M in Ms:
            row = sandwich_row(inst, graph, M, timeout_ms=timeout_ms, time_limit=time_limit,
                               schedules_fn=_schedules)
            if _status(row) != "infeasible":
                rows.append(row)
    return SandwichFigure(tuple(rows), vertices, trivial)


def trivial_bound(inst: Instance) -> int | None:
    """The catalogue's trivial lower bound (every input read once, every output written once)
    for a matmul or attention-forward instance; None for other kinds.

    >>> trivial_bound(Instance("matmul 1x2x1", "matmul", {"m": 1, "k": 2, "p": 1}, (3,)))  # 4 inputs + 1 output
    5
    """
    if inst.kind == "matmul":
        sizes = {key: inst.sizes[key] for key in ("m", "k", "p")}
        return int(get_bound("matmul.trivial.lower").evaluate(**sizes))
    if inst.kind == "attention-forward":
        return int(get_bound("fwd.trivial.lower").evaluate(n=inst.sizes["n"], d=inst.sizes["d"]))
    return None


def _schedules(graph: nx.DiGraph, M: int) -> dict[str, list]:
    """The algorithm schedules of :mod:`attnio.graphs.schedules` as a plain dict."""
    return dict(algorithm_schedules(graph, M))
