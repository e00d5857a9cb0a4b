"""Certified lower bounds against the exact optimum on the sandwich's tiny DAGs.

Each point is one (DAG, M) of :data:`attnio.proofs.sandwich.DEFAULT_INSTANCES` whose optimum
the search settled: the exact optimum Q(G, M) on the x axis, on the y axis the best certified
lower bound of :mod:`attnio.graphs.lower_bounds` (routes 1–5, each certificate re-checked) and
the compulsory I/O. Points on the diagonal are tight; the target of notes/lower_bounds.md is
OPT ÷ certified LB ≤ 1.75.

Examples
--------
>>> rows = [TightnessRow("matmul 1x2x1", 3, 5, 6, 7, "hong-kung")]
>>> ax = plot_tightness(rows).axes[0]
>>> ax.get_xlabel(), summary(rows)
('exact optimum Q(G, M) (I/O, words moved)', (1.1666666666666667, 0.5))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from attnio.graphs.lower_bounds import compulsory_bound
from attnio.proofs.sandwich import DEFAULT_INSTANCES, sandwich_row
from attnio.reporting.figure_quality import place_legend
from attnio.reporting.style import new_figure, save_png
from attnio.results import Status

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["TightnessRow", "tightness_data", "plot_tightness", "summary", "TARGET_RATIO",
           "MAX_STATES"]

#: The tightness target of notes/lower_bounds.md: OPT ÷ certified LB at most this.
TARGET_RATIO = 1.75


@dataclass(frozen=True, slots=True)
class TightnessRow:
    """One settled sandwich row: compulsory I/O ≤ certified LB ≤ optimum (ints)."""

    dag: str
    M: int
    compulsory: int
    certified: int
    optimum: int
    route: str


#: The exact search's budget per row, in stored states (no clock: the rows, and so the
#: figure and its summary, do not depend on machine load). Every DEFAULT_INSTANCES row
#: settles below it.
MAX_STATES = 400_000


#: ``report --quick`` draws the rows of DAGs this small: their certified routes and exact optima
#: take about 1.5 s of CPU in all (the 19- and 20-vertex DAGs of the full figure take 18 s).
QUICK_MAX_VERTICES = 16


def tightness_data(*, quick: bool = False, timeout_ms: int = 20_000,
                   time_limit: float | None = None,
                   max_states: int | None = MAX_STATES) -> list[TightnessRow]:
    """The rows of :data:`~attnio.proofs.sandwich.DEFAULT_INSTANCES` with a settled optimum and
    a certified lower bound (``quick``: DAGs of at most :data:`QUICK_MAX_VERTICES` vertices).
    The search budget is
    ``max_states`` stored states (and ``time_limit`` seconds only if given)."""
    rows = []
    for inst in DEFAULT_INSTANCES:
        graph = inst.build()
        if quick and graph.number_of_nodes() > QUICK_MAX_VERTICES:
            continue
        for M in inst.Ms:
            row = sandwich_row(inst, graph, M, timeout_ms=timeout_ms, time_limit=time_limit,
                               max_states=max_states)
            if (row.verdict is Status.PROVED
                    and row.optimum is not None and row.certified is not None):
                rows.append(TightnessRow(inst.label, M, compulsory_bound(graph, M).value,
                                         row.certified, row.optimum, str(row.certified_route)))
    return rows


def summary(rows: Sequence[TightnessRow]) -> tuple[float, float | None]:
    """(worst OPT ÷ certified LB, median explained share (LB − C) ÷ (OPT − C)); the share is
    None when no row has OPT > C."""
    worst = max(r.optimum / r.certified for r in rows if r.certified)
    shares = sorted((r.certified - r.compulsory) / (r.optimum - r.compulsory)
                    for r in rows if r.optimum > r.compulsory)
    return worst, (shares[len(shares) // 2] if shares else None)


def plot_tightness(rows: Sequence[TightnessRow], path: str | Path | None = None) -> "Figure":
    """Scatter certified LB and compulsory I/O against the exact optimum, with LB = OPT and the
    target OPT ÷ LB = :data:`TARGET_RATIO` drawn as lines."""
    fig = new_figure(7.0, 5.5)
    ax = fig.add_subplot()
    top = max(r.optimum for r in rows) * 1.08
    ax.plot([0, top], [0, top], color="black", lw=1, label="LB = OPT")
    ax.plot([0, top], [0, top / TARGET_RATIO], color="#e6550d", ls="--", lw=1,
            label=f"OPT/LB = {TARGET_RATIO} (target)")
    ax.scatter([r.optimum for r in rows], [r.certified for r in rows], s=24, label="certified LB")
    ax.scatter([r.optimum for r in rows], [r.compulsory for r in rows], s=24, facecolors="none",
               edgecolors="grey", label="compulsory I/O")
    ax.set_xlabel("exact optimum Q(G, M) (I/O, words moved)")
    ax.set_ylabel("lower bound (I/O, words moved)")
    worst, _ = summary(rows)
    ax.set_title(f"Certified lower bound against the exact optimum\n({len(rows)} settled "
                 f"(DAG, M) rows, worst OPT/LB = {worst:.2f})", fontsize=10)
    ax.grid(True, alpha=0.3)
    place_legend(ax, fontsize=8, framealpha=0.9)
    return save_png(fig, path)
