"""Shared checks for the figure tests of attnio.reporting (a fixture, so that every test
module reads the drawn axes the same way)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path: Path) -> bool:
    """A real PNG of some substance (not an empty canvas)."""
    return path.is_file() and path.stat().st_size > 5_000 and path.read_bytes()[:8] == PNG_MAGIC


def _vertical_lines_at(ax) -> set[float]:
    """x positions of the vertical lines (axvline) of an axes."""
    xs = set()
    for line in ax.get_lines():
        xdata = list(line.get_xdata())
        if len(xdata) == 2 and xdata[0] == xdata[1]:
            xs.add(float(xdata[0]))
    return xs


def _legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "every panel needs a legend"
    return [t.get_text() for t in legend.get_texts()]


@pytest.fixture
def figure_checks() -> SimpleNamespace:
    """``is_png(path)``, ``vertical_lines_at(ax)``, ``legend_texts(ax)``."""
    return SimpleNamespace(is_png=_is_png, vertical_lines_at=_vertical_lines_at,
                           legend_texts=_legend_texts)
