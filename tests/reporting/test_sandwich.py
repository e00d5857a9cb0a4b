"""attnio.reporting.sandwich: one panel per DAG drawn from the proofs' own SandwichRow, the
table under the figure, and no second sandwich row type anywhere in attnio."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import attnio.reporting
from attnio.results import Status
from attnio.proofs.sandwich import SandwichRow
from attnio.reporting.sandwich import SANDWICH_TABLE_HEADER, SandwichFigure, plot_sandwich, sandwich_table
from attnio.reporting.style import IO_LABEL, M_LABEL


def _toy() -> SandwichFigure:
    rows = tuple(SandwichRow(dag, M, explicit=2, hong_kung=3,
                             optimum=10 - M if M < 5 else None,
                             schedules={"flash": 12 - M, "naive": None},  # type: ignore[dict-item]
                             status=Status.PROVED if M < 5 else Status.UNDECIDED,
                             detail="" if M < 5 else "search budget")
                 for dag in ("matmul 1×2×1", "attention n=2, d=1") for M in (3, 4, 5))
    return SandwichFigure(rows, vertices={"matmul 1×2×1": 7},
                          trivial={"matmul 1×2×1": 4, "attention n=2, d=1": 4})


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
    assert rows[0][:6] == ["matmul 1×2×1 (7 vertices)", 3, 2, 3, 4, 7] and rows[0][-1] == "ok"
    assert rows[2][5] is None and rows[2][-1] == "undecided: search budget"


def test_there_is_one_sandwich_row_type() -> None:
    """The figures used to define a second SandwichRow: every one in the room is the proofs'."""
    found = []
    for info in pkgutil.walk_packages(attnio.reporting.__path__, prefix="attnio.reporting."):
        module = importlib.import_module(info.name)
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if "Sandwich" in name and name.endswith("Row"):
                found.append((info.name, obj))
    assert found and all(obj is SandwichRow for _, obj in found), found
