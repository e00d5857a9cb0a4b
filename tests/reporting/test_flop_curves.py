"""attnio.reporting.flop_curves: two panels on hand-made counts, int counts from the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnio.reporting.flop_curves import FlopCurves, flop_curves_data, plot_flop_curves
from attnio.reporting.style import M_LABEL


@pytest.mark.extra("plots")
def test_flop_curves_two_panels(figure_checks, tmp_path: Path) -> None:
    Ms = (64, 256, 1024, 4096)
    data = FlopCurves(256, 32, "backward", Ms,
                      {"flash1": (10, 10, 10, 10), "small-cache": (8, 8, 9, 12)})
    fig = plot_flop_curves(data, tmp_path / "flops.png")
    assert figure_checks.is_png(tmp_path / "flops.png")
    ax, ax_ratio = fig.axes
    assert ax.get_xlabel() == M_LABEL and "FLOPs" in ax.get_ylabel()
    assert 1024.0 in figure_checks.vertical_lines_at(ax)
    ratio = [line for line in ax_ratio.get_lines() if "Algorithm 6" in line.get_label()][0]
    assert list(ratio.get_ydata()) == [0.8, 0.8, 0.9, 1.2]


def test_flop_curves_data_counts_are_ints() -> None:
    data = flop_curves_data(256, 16, [64, 256, 1024])
    assert set(data.flops) == {"flash1", "small-cache"}
    assert all(type(v) is int for vs in data.flops.values() for v in vs if v is not None)
