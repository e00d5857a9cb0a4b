"""attnio.reporting.flop_curves: two panels on hand-made counts, int counts from the simulator."""

from __future__ import annotations

from pathlib import Path

from attnio.reporting.flop_curves import FlopCurves, flop_curves_data, plot_flop_curves
from attnio.reporting.style import M_LABEL

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 5_000 and path.read_bytes()[:8] == PNG_MAGIC


def _vertical_lines_at(ax) -> set[float]:
    """x positions of the vertical lines (axvline) of an axes."""
    xs = set()
    for line in ax.get_lines():
        xdata = list(line.get_xdata())
        if len(xdata) == 2 and xdata[0] == xdata[1]:
            xs.add(float(xdata[0]))
    return xs


def test_flop_curves_two_panels(tmp_path: Path) -> None:
    Ms = (64, 256, 1024, 4096)
    data = FlopCurves(256, 32, "backward", Ms,
                      {"flash1": (10, 10, 10, 10), "small-cache": (8, 8, 9, 12)})
    fig = plot_flop_curves(data, tmp_path / "flops.png")
    assert _is_png(tmp_path / "flops.png")
    ax, ax_ratio = fig.axes
    assert ax.get_xlabel() == M_LABEL and "FLOPs" in ax.get_ylabel()
    assert 1024.0 in _vertical_lines_at(ax)
    ratio = [line for line in ax_ratio.get_lines() if "Algorithm 6" in line.get_label()][0]
    assert list(ratio.get_ydata()) == [0.8, 0.8, 0.9, 1.2]


def test_flop_curves_data_counts_are_ints() -> None:
    data = flop_curves_data(256, 16, [64, 256, 1024])
    assert set(data.flops) == {"flash1", "small-cache"}
    assert all(type(v) is int for vs in data.flops.values() for v in vs if v is not None)
