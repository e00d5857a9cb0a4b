"""attnio.reporting.io_curves: the drawing on hand-made curves, the data from the simulator,
the crossover the report prints equal to the one ``attnio simulate`` bisects, and
``attnio simulate --plot`` drawing through the same function."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from attnio.reporting.io_curves import IOCurves, io_curves_data, io_curves_from_runs, plot_io_curves
from attnio.reporting.style import IO_LABEL, M_LABEL, sweep_cache_sizes


def _toy_io(crossover: int | None = 700) -> IOCurves:
    n, d = 1024, 32
    Ms = tuple(2**k for k in range(5, 16))
    return IOCurves(
        n, d, "backward", Ms,
        measured={"flash1": tuple(20 * n * n * d * d // M for M in Ms),
                  "small-cache": tuple(None if M < 64 else int(12 * n * n * d / math.sqrt(M))
                                       for M in Ms)},
        bounds={"n²d²/M": tuple(n * n * d * d / M for M in Ms)},
        crossover_M=crossover,
    )


@pytest.mark.extra("plots")
def test_io_curves_marks_d_squared_and_crossover(figure_checks, tmp_path: Path) -> None:
    fig = plot_io_curves(_toy_io(), tmp_path / "io.png")
    assert figure_checks.is_png(tmp_path / "io.png")
    (ax,) = fig.axes
    assert ax.get_xlabel() == M_LABEL and ax.get_ylabel() == IO_LABEL
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert {1024.0, 700.0} <= figure_checks.vertical_lines_at(ax)
    labels = figure_checks.legend_texts(ax)
    assert any("FlashAttention-1" in t for t in labels) and any("Algorithm 6" in t for t in labels)
    assert "n²d²/M" in labels
    # the two vertical lines are named in the legend (a text beside them crossed the curves)
    assert "M = d² = 1,024" in labels and "measured crossover M = 700" in labels


@pytest.mark.extra("plots")
def test_io_curves_skips_missing_points_and_absent_crossover(figure_checks) -> None:
    fig = plot_io_curves(_toy_io(crossover=None))
    (ax,) = fig.axes
    assert 700.0 not in figure_checks.vertical_lines_at(ax)
    small_cache = [line for line in ax.get_lines() if "Algorithm 6" in line.get_label()]
    assert min(small_cache[0].get_xdata()) == 64  # the None points are not drawn as zeros


def test_io_curves_data_crossover_near_d_squared() -> None:
    from attnio.algorithms.simulation import simulate

    n, d = 512, 16
    data = io_curves_data(n, d, sweep_cache_sizes(n, d))
    assert set(data.measured) == {"standard", "flash1", "flash2", "small-cache"}
    assert data.crossover_M is not None and d * d / 4 <= data.crossover_M <= 4 * d * d
    k = len(data.Ms) // 2
    assert data.measured["flash1"][k] == simulate("flash1", "backward", n, d, data.Ms[k]).io
    assert all(type(v) is int for vs in data.measured.values() for v in vs if v is not None)
    assert any(label.startswith("bwd.tight = Θ(min(") for label in data.bounds)


def test_io_curves_data_forward_pass_swaps_near_d_squared() -> None:
    n, d = 512, 16
    data = io_curves_data(n, d, sweep_cache_sizes(n, d), pass_="forward")
    assert set(data.measured) == {"standard", "flash1", "flash2", "square-tiling"}
    assert data.crossover_M is not None and d * d / 4 <= data.crossover_M <= 4 * d * d
    assert any(label.startswith("fwd.square_tiling.upper") for label in data.bounds)


def test_report_crossover_is_the_one_attnio_simulate_bisects(capsys) -> None:
    """The report used to print the first point of its grid past the swap (5,312 at n = 4096,
    d = 64) where ``attnio simulate`` bisects the exact counts (4,903): now one function."""
    import json

    from attnio.cli import main

    n, d = 4096, 64
    assert main(["simulate", "--n", str(n), "--d", str(d), "--M", "4096,8192", "--algorithm",
                 "flash1,small-cache", "--json"]) == 0
    bisected = json.loads(capsys.readouterr().out)["crossover_M"]
    data = io_curves_data(n, d, sweep_cache_sizes(n, d, lo=1024, hi=65536))
    assert data.crossover_M == bisected == 4903
    # a different grid around the same swap gives the same M (no grid point is reported)
    coarse = io_curves_data(n, d, [1024, 65536])
    assert coarse.crossover_M == 4903


def test_forward_crossover_is_bisected_too() -> None:
    from attnio.algorithms.simulation import count, find_crossovers

    n, d = 512, 16
    data = io_curves_data(n, d, sweep_cache_sizes(n, d), pass_="forward")
    M = data.crossover_M
    swaps = find_crossovers("flash1", "square-tiling", "forward", n, d, [100, n * d])
    assert M is not None and M in [s["M"] for s in swaps]
    # exact: square tiling strictly cheaper just below M, not at M
    assert (count("square-tiling", "forward", n, d, M - 1).io
            < count("flash1", "forward", n, d, M - 1).io)
    assert count("square-tiling", "forward", n, d, M).io >= count("flash1", "forward", n, d, M).io


@pytest.mark.extra("plots")
def test_simulate_plot_draws_through_the_reporting_figure(figure_checks, tmp_path: Path,
                                                           monkeypatch) -> None:
    """``attnio simulate --plot`` and the report draw I/O with the same function."""
    import attnio.commands.simulate as command
    import attnio.reporting.io_curves as module
    from attnio.cli import main

    drawn = []
    original = module.plot_io_curves

    def spy(data, *args, **kwargs):
        drawn.append(data)
        return original(data, *args, **kwargs)

    # the command holds the function under its own name (imported at its top)
    monkeypatch.setattr(module, "plot_io_curves", spy)
    monkeypatch.setattr(command, "plot_io_curves", spy)
    target = tmp_path / "io.png"
    assert main(["simulate", "--n", "1024", "--d", "32", "--M-geom", "300:32768:8",
                 "--algorithm", "flash1,small-cache", "--plot", str(target)]) == 0
    assert figure_checks.is_png(target)
    (data,) = drawn
    assert set(data.measured) == {"flash1", "small-cache"} and data.crossover_M is not None
    assert "crossover flash1 vs small-cache" == data.crossover_label


def test_io_curves_from_runs_keeps_missing_points_missing() -> None:
    runs = [{"algorithm": "flash1", "pass": "backward", "M": M, "io": io, "formula": f}
            for M, io, f in ((64, None, None), (256, 10, 8.0))]
    data = io_curves_from_runs({"runs": runs, "crossover_M": None}, n=64, d=8)
    assert data.measured["flash1"] == (None, 10) and data.crossover_M is None
