"""attnio.reporting.sandwich: one panel per DAG drawn from the proofs' own SandwichRow, the
table under the figure, and no second sandwich row type anywhere in attnio.

The figure data (:meth:`SandwichFigure.points`, what the plot draws — not pixels) of real
rows: the certified lower bound is positive and at most the optimum wherever the optimum is
decided; an M the search budget (a count of states, not seconds) does not settle is a
bracket, never an optimum point, in the data, the drawn axes and the table.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from pathlib import Path

import pytest

import attnio.reporting
from attnio.proofs.sandwich import SandwichRow
from attnio.reporting.sandwich import (
    FIGURE_MAX_STATES,
    SANDWICH_TABLE_HEADER,
    SandwichFigure,
    plot_sandwich,
    sandwich_data,
    sandwich_table,
)
from attnio.reporting.style import IO_LABEL, M_LABEL
from attnio.results import Status


def _toy() -> SandwichFigure:
    rows = tuple(SandwichRow(dag, M, explicit=2, hong_kung=3,
                             optimum=10 - M if M < 5 else None,
                             schedules={"flash": 12 - M, "naive": None},  # type: ignore[dict-item]
                             verdict=Status.PROVED if M < 5 else Status.UNDECIDED,
                             detail="" if M < 5 else "search budget")
                 for dag in ("matmul 1×2×1", "attention n=2, d=1") for M in (3, 4, 5))
    return SandwichFigure(rows, vertices={"matmul 1×2×1": 7},
                          trivial={"matmul 1×2×1": 4, "attention n=2, d=1": 4})


@pytest.mark.extra("plots")
def test_sandwich_one_panel_per_dag(figure_checks, tmp_path: Path) -> None:
    fig = plot_sandwich(_toy(), tmp_path / "sandwich.png")
    assert figure_checks.is_png(tmp_path / "sandwich.png")
    assert [ax.get_title() for ax in fig.axes] == ["matmul 1×2×1 (7 vertices)", "attention n=2, d=1"]
    for ax in fig.axes:
        assert ax.get_xlabel() == M_LABEL and ax.get_ylabel() == IO_LABEL
        assert ax.get_ylim()[0] < 0  # a bound equal to 0 is drawn above the axis, not on it
        assert any("undecided" in t.get_text() and "M = 5" in t.get_text() for t in ax.texts)
    (legend,) = fig.legends  # one legend for all panels
    labels = {t.get_text() for t in legend.get_texts()}
    assert {"explicit lower bound", "Hong–Kung partition bound M·(P(G,2M)−1)", "exact optimum",
            "trivial bound: inputs + outputs (catalogue)", "schedule: flash"} <= labels
    assert "schedule: naive" not in labels  # no value at any M: nothing to draw


def test_table_reads_the_row_fields_and_names_a_status_that_is_not_ok() -> None:
    header, rows = sandwich_table(_toy())
    assert header == SANDWICH_TABLE_HEADER
    assert rows[0][:7] == ["matmul 1×2×1 (7 vertices)", 3, 2, 3, None, 4, 7]
    assert rows[0][-1] == "ok"
    # undecided: the bracket [?, best schedule], never an optimum
    assert rows[2][6] == "[?, 7] (bracket)" and rows[2][-1] == "undecided: search budget"


def test_there_is_one_sandwich_row_type() -> None:
    """The figures used to define a second SandwichRow: every one in the room is the proofs'."""
    found = []
    for info in pkgutil.walk_packages(attnio.reporting.__path__, prefix="attnio.reporting."):
        module = importlib.import_module(info.name)
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if "Sandwich" in name and name.endswith("Row"):
                found.append((info.name, obj))
    assert found and all(obj is SandwichRow for _, obj in found), found


@pytest.fixture(scope="module")
def quick_data() -> SandwichFigure:
    """The quick report's sandwich (matmul 1x2x1 and 2x2x1: under a second)."""
    return sandwich_data(quick=True)


def test_figure_data_draws_a_positive_certified_bound_below_every_decided_optimum(
        quick_data: SandwichFigure) -> None:
    points = quick_data.points()
    assert len(points) == len(quick_data.rows) >= 8
    assert any(p.certified and p.certified > 0 for p in points)  # the bound is not 0
    for p in points:
        assert p.decided, (p.label, p.M, p.detail)  # the default state budget settles them
        assert p.bracket is None
        assert p.certified is not None and 0 < p.certified <= p.optimum, (p.label, p.M)
        assert all(p.optimum <= cost for cost in p.schedules.values())
    # matmul 2x2x1 at M = 3: certified 12 < optimum 13 (not tight, and still drawn)
    assert any(p.certified < p.optimum for p in points)


@pytest.mark.extra("plots")
def test_the_certified_bound_is_drawn(quick_data: SandwichFigure) -> None:
    fig = plot_sandwich(quick_data)
    (legend,) = fig.legends
    labels = {t.get_text() for t in legend.get_texts()}
    assert "certified lower bound (attnio lower-bound)" in labels
    for ax, dag in zip(fig.axes, dict.fromkeys(p.label for p in quick_data.points())):
        (line,) = [ln for ln in ax.get_lines()
                   if ln.get_label() == "certified lower bound (attnio lower-bound)"]
        want = [p.certified for p in quick_data.points() if p.label == dag]
        assert [int(y) for y in line.get_ydata()][:len(want)] == want


@pytest.mark.extra("plots")
def test_a_tiny_state_budget_gives_brackets_never_optima() -> None:
    """The planted case: a search budget of 1 state leaves matmul 2x2x1 at M = 3, 4 open."""
    data = sandwich_data(labels=["matmul 2x2x1"], max_states=1)
    points = {p.M: p for p in data.points()}
    open_ = [p for p in points.values() if not p.decided]
    assert {p.M for p in open_} >= {3, 4}
    for p in open_:
        assert p.optimum is None and p.verdict == "undecided"
        lower, upper = p.bracket
        assert lower is not None and upper is not None and lower < upper
        assert p.certified is not None and p.certified <= lower  # the bracket starts at it
    # the same DAG with the default budget: the optimum lies in every bracket
    settled = {p.M: p.optimum for p in sandwich_data(labels=["matmul 2x2x1"]).points()}
    assert all(p.bracket[0] <= settled[p.M] <= p.bracket[1] for p in open_)
    # drawn: the optimum's step has a gap (NaN) at each open M, and an interval is drawn there
    fig = plot_sandwich(data)
    ax = fig.axes[0]
    (step,) = [ln for ln in ax.get_lines() if ln.get_label() == "exact optimum"]
    xs, ys = list(step.get_xdata()), list(step.get_ydata())
    for p in open_:
        assert math.isnan(ys[xs.index(p.M)])
    squares = [ln for ln in ax.get_lines() if ln.get_marker() == "s"]
    assert all(p.M not in list(ln.get_xdata()) for ln in squares for p in open_)
    labels = {t.get_text() for t in fig.legends[0].get_texts()}
    assert "optimum undecided: proven bracket [lower, best schedule]" in labels
    assert any("bracket [12, 14]" in t.get_text() for t in ax.texts)
    # and the table prints the bracket, not an optimum
    _, rows = sandwich_table(data)
    assert [r[6] for r in rows if r[1] == 3] == ["[12, 14] (bracket)"]


def test_the_budget_is_a_count_so_the_figure_is_reproducible() -> None:
    """No clock in the default budget: two runs give the same points (same brackets too)."""
    import inspect

    assert inspect.signature(sandwich_data).parameters["time_limit"].default is None
    assert inspect.signature(sandwich_data).parameters["max_states"].default == FIGURE_MAX_STATES
    first = sandwich_data(labels=["matmul 2x2x1"], max_states=1).points()
    assert first == sandwich_data(labels=["matmul 2x2x1"], max_states=1).points()
