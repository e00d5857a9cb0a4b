"""attnio.reporting.figure_quality: the checker rejects planted false twins (a legend on the
data, outside its axes or over a text; a missing title or label; a text on a curve, between
two vertices, on a step's riser or inside a filled area; a title cut by the figure's edge),
and every figure attnio draws passes it, built at small sizes.

Every figure test reads the drawn artists through :func:`check_figure` (Agg, in memory), and
then the one thing its figure was fixed for (the schedule's key of moves, the phase diagram's
straight boundaries, the two lower bounds of the level figure told apart, ...).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnio.reporting.figure_quality import (
    LEGEND_LOCATIONS,
    check_figure,
    data_points,
    figure_defects,
    place_legend,
    place_legend_or_band,
)
from attnio.reporting.style import BACKGROUND_GID, IO_LABEL, M_LABEL, new_figure

pytestmark = pytest.mark.extra("plots")


def assert_figure_accepted(fig) -> None:
    verdict = check_figure(fig)
    assert verdict.proved, verdict.detail


def _panel(title: str = "a panel", xlabel: str = "x", ylabel: str = "y"):
    """A figure with one diagonal line from (0, 0) to (10, 10) (two vertices only)."""
    fig = new_figure(5, 4)
    ax = fig.add_subplot()
    ax.plot([0, 10], [0, 10], label="diagonal")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig, ax


# --- the checker and its planted false twins ------------------------------------------------


def test_a_clean_figure_is_accepted() -> None:
    fig, ax = _panel()
    ax.legend(loc="upper left")  # above the diagonal's start, below its end: off the line
    ax.text(7, 2, "a label off the curve")
    assert_figure_accepted(fig)


def test_a_legend_on_the_data_is_rejected() -> None:
    fig, ax = _panel()
    ax.legend(loc="center")  # the diagonal passes through the centre
    assert any("legend covers" in d for d in figure_defects(fig))


def test_a_legend_outside_its_axes_is_rejected() -> None:
    fig, ax = _panel()
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    assert "axes 1 ('a panel'): legend outside its axes" in figure_defects(fig)


@pytest.mark.parametrize(("missing", "defect"), [
    ("title", "no title (and no suptitle)"), ("xlabel", "no x label"),
    ("ylabel", "no y label")])
def test_a_missing_title_or_label_is_rejected(missing: str, defect: str) -> None:
    fig, ax = _panel(**{missing: ""})
    ax.legend(loc="upper left")
    assert any(d.endswith(defect) for d in figure_defects(fig))


def test_a_suptitle_and_a_shared_label_stand_for_the_panels() -> None:
    fig = new_figure(8, 3)
    axes = fig.subplots(1, 2, sharey=True)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("x")
    axes[0].set_ylabel("y")  # the right panel shares it
    fig.suptitle("two panels")
    assert_figure_accepted(fig)


def test_curves_with_labels_but_no_legend_are_rejected() -> None:
    fig, _ = _panel()
    assert "axes 1 ('a panel'): labelled curves but no legend" in figure_defects(fig)


def test_a_text_on_a_curve_between_its_two_vertices_is_rejected() -> None:
    """The line has vertices only at (0, 0) and (10, 10): the checker samples the segment."""
    fig, ax = _panel()
    ax.legend(loc="upper left")
    ax.text(5, 5, "on the line", ha="center", va="center")
    assert any("text 'on the line' collides" in d for d in figure_defects(fig))


def test_a_text_on_a_step_riser_is_rejected() -> None:
    fig, ax = _panel()
    ax.step([0, 5, 10], [8, 2, 2], where="post", label="a step")  # riser at x = 5
    ax.legend(loc="upper left")
    ax.text(5, 5, "riser", ha="center", va="center")
    assert any("text 'riser' collides" in d for d in figure_defects(fig))


def test_a_legend_inside_a_filled_area_or_on_markers_is_rejected() -> None:
    fig, ax = _panel()
    ax.fill_between([0, 10], 0, 10, color="C1", alpha=0.2, label="filled")  # the whole axes
    ax.legend(loc="center right")
    assert any("legend covers" in d for d in figure_defects(fig))
    fig, ax = _panel()
    ax.scatter([9.0], [1.0], s=30, label="one point")
    ax.legend(loc="lower right")
    assert any("legend covers" in d for d in figure_defects(fig))


def test_a_legend_may_lie_on_a_region_marked_as_background_only() -> None:
    for gid, accepted in ((BACKGROUND_GID, True), (None, False)):
        fig, ax = _panel()
        ax.fill_between([5, 10], 0, 4, color="grey", alpha=0.3, gid=gid)
        ax.legend(loc="lower right")
        assert check_figure(fig).proved is accepted


def test_a_text_over_the_legend_is_rejected() -> None:
    fig, ax = _panel()
    ax.legend(loc="upper left")
    ax.text(0.05, 0.95, "over the key", transform=ax.transAxes, va="top")
    assert any("overlaps the legend" in d for d in figure_defects(fig))


def test_a_title_cut_by_the_figure_edge_is_rejected() -> None:
    fig, ax = _panel(title="a title far too long for a figure five inches wide " * 3)
    ax.legend(loc="upper left")
    assert any("cut by the figure's edge" in d for d in figure_defects(fig))


def test_a_figure_legend_must_stay_off_the_axes() -> None:
    fig, ax = _panel()
    fig.legend(loc="outside lower center")
    assert_figure_accepted(fig)
    fig, ax = _panel()
    fig.legend(loc="center")
    assert "figure legend overlaps an axes" in figure_defects(fig)


def test_data_points_are_display_pixels_along_every_segment() -> None:
    fig, ax = _panel()
    renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else None
    if renderer is None:
        figure_defects(fig)  # attaches an Agg canvas and draws
        renderer = fig.canvas.get_renderer()
    points, radii, areas = data_points(ax, renderer)
    frame = ax.get_window_extent(renderer)
    diagonal = math.hypot(frame.width, frame.height)
    assert len(points) >= diagonal / 2.5 and not areas  # every ≈ 2 px, nothing filled
    assert np.allclose(radii, 0.5 * ax.lines[0].get_linewidth() * fig.dpi / 72)


def test_place_legend_finds_a_clear_place_or_the_least_covered() -> None:
    fig, ax = _panel()
    ax.plot([0, 5, 10], [9, 9.5, 9], label="top")
    ax.plot([0, 4, 10], [1, 2, 1], label="bottom")
    place_legend(ax)
    assert_figure_accepted(fig)
    # no clear place (a dense cloud of points everywhere): the fewest covered of all locations
    fig, ax = _panel()
    grid = np.linspace(0.2, 9.8, 25)
    ax.scatter(*np.meshgrid(grid, grid), s=2, label="a cloud")

    def covered() -> int:
        return sum(int(d.split("covers ")[1].split()[0])
                   for d in figure_defects(fig) if "legend covers" in d)

    place_legend(ax)
    chosen = covered()
    least = min(covered() for loc in LEGEND_LOCATIONS if ax.legend(loc=loc))
    assert chosen == least > 0


def test_place_legend_or_band_opens_a_band_when_lines_cross_every_place() -> None:
    fig, ax = _panel()
    for x in (1, 3, 5, 7, 9):
        ax.axvline(x, color="grey", label=f"x = {x}")
    place_legend(ax)
    assert figure_defects(fig)  # every one of the nine places is crossed by a line
    place_legend_or_band(ax, ncol=3)
    assert_figure_accepted(fig)
    assert all(list(line.get_ydata())[1] < 1 for line in ax.lines[1:])  # they end below it


# --- every figure of attnio, at small sizes -------------------------------------------------


@pytest.mark.parametrize("pass_", ["backward", "forward"])
@pytest.mark.parametrize(("n", "d"), [(256, 16), (4096, 16), (256, 64)])
def test_io_curves(n: int, d: int, pass_: str) -> None:
    from attnio.reporting.io_curves import io_curves_data, plot_io_curves
    from attnio.reporting.style import sweep_cache_sizes

    data = io_curves_data(n, d, sweep_cache_sizes(n, d), pass_=pass_)
    fig = plot_io_curves(data)
    assert_figure_accepted(fig)
    (ax,) = fig.axes
    assert ax.get_xlabel() == M_LABEL and ax.get_ylabel() == IO_LABEL
    # the dotted line is drawn at the bisected crossover itself, not at a grid point past it
    dotted = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert data.crossover_M is not None and data.crossover_M not in data.Ms
    assert [list(line.get_xdata()) for line in dotted] == [[data.crossover_M] * 2]


def test_simulate_plot_figure() -> None:
    """``attnio simulate --plot`` draws :func:`io_curves_from_runs` of its JSON document."""
    from attnio.commands.simulate import runs_payload
    from attnio.reporting.io_curves import io_curves_from_runs, plot_io_curves
    from attnio.reporting.style import sweep_cache_sizes

    n, d = 1024, 32
    payload = runs_payload(["flash1", "small-cache"], "backward", n, d,
                           sweep_cache_sizes(n, d, lo=300, hi=32768),
                           crossover_pair=("flash1", "small-cache"))
    assert_figure_accepted(plot_io_curves(io_curves_from_runs(payload, n=n, d=d)))


@pytest.mark.parametrize(("n", "d"), [(256, 16), (4096, 64)])
def test_flop_curves(n: int, d: int) -> None:
    from attnio.reporting.flop_curves import flop_curves_data, plot_flop_curves
    from attnio.reporting.style import sweep_cache_sizes

    fig = plot_flop_curves(flop_curves_data(n, d, sweep_cache_sizes(n, d)))
    assert_figure_accepted(fig)
    assert all(ax.get_xlabel() == M_LABEL for ax in fig.axes)


def test_phase_diagram_boundaries_are_exact_and_the_key_lies_on_the_hatching() -> None:
    from matplotlib.patches import Polygon

    from attnio.reporting.phase_diagram import phase_diagram_data, plot_phase_diagram

    data = phase_diagram_data(steps=41)
    fig = plot_phase_diagram(data)
    assert_figure_accepted(fig)
    for k, ax in enumerate(fig.axes):
        # drawn as polygons (straight boundaries), no image of grid cells
        assert not ax.images and any(isinstance(p, Polygon) for p in ax.patches)
        # the key lies where nothing is admissible (α > 1 + β): on the hatched region only
        box = ax.get_legend().get_window_extent()
        corners = ax.transData.inverted().transform([(box.x0, box.y0), (box.x0, box.y1)])
        assert all(a > 1 + b for a, b in corners)
        # each region holds exactly the grid points labelled with its label (away from edges)
        grid = data.dominant_term if k == 0 else data.algorithm
        for label, polygons in data.regions[k].items():
            for polygon in polygons:
                a, b = np.mean(polygon, axis=0)
                i = min(range(len(data.betas)), key=lambda i: abs(data.betas[i] - b))
                j = min(range(len(data.alphas)), key=lambda j: abs(data.alphas[j] - a))
                assert grid[i][j] == label, (label, polygon)
    # the boundary of the picked algorithm below β = 1 is one straight segment from
    # (α, β) = (1, 0.5) to (2, 1), not a staircase
    (small,) = data.regions[1]["Algorithm 6 (small cache)"]
    lower_edge = sorted(v for v in small if v[1] <= 1.0)
    assert lower_edge[0] == (1.0, 0.5) and (2.0, 1.0) in lower_edge


def test_schedule_names_its_cells_and_its_moves() -> None:
    from attnio.reporting.schedule import plot_schedule, smallest_optimal_schedule

    fig = plot_schedule(smallest_optimal_schedule())
    assert_figure_accepted(fig)
    (key,) = fig.legends
    entries = [t.get_text() for t in key.get_texts()]
    for letter in "RWCD":
        assert any(entry.startswith(f"{letter} ") for entry in entries), entries
    assert any("red pebble" in entry for entry in entries)


def test_tightness() -> None:
    from attnio.reporting.tightness import TightnessRow, plot_tightness

    rows = [TightnessRow("matmul 1x2x1", M, 5, 5 + (M == 3), 7 - (M > 3) * 2, "compulsory")
            for M in (3, 4, 5)] + [TightnessRow("matmul 2x2x2", M, 12, 14 + M, 25 - M, "segment")
                                   for M in (3, 4, 5, 6)]
    fig = plot_tightness(rows)
    assert_figure_accepted(fig)
    assert "exact optimum" in fig.axes[0].get_title()


def test_sandwich() -> None:
    from attnio.reporting.sandwich import plot_sandwich, sandwich_data

    assert_figure_accepted(plot_sandwich(sandwich_data(quick=True)))


def test_sandwich_with_an_undecided_optimum() -> None:
    from attnio.proofs.sandwich import SandwichRow
    from attnio.reporting.sandwich import SandwichFigure, plot_sandwich
    from attnio.results import Status

    rows = tuple(SandwichRow("matmul 1x2x1", M, explicit=2, hong_kung=3,
                             optimum=10 - M if M < 5 else None, schedules={"flash": 12 - M},
                             verdict=Status.PROVED if M < 5 else Status.UNDECIDED,
                             detail="" if M < 5 else "search budget") for M in (3, 4, 5))
    assert_figure_accepted(plot_sandwich(SandwichFigure(rows, vertices={"matmul 1x2x1": 7})))


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_gap_figure() -> None:
    from attnio.bounds.gap import gap_payload
    from attnio.reporting.gap_figure import plot_gap

    grid = [2 ** k for k in range(6, 16)]
    payloads = [gap_payload(pass_, 1024, 32, grid, tune=tune)
                for tune in (False, True) for pass_ in ("backward", "forward")]
    # as benchmarks/gap_table.py draws it: four lines and three targets (the key used to
    # cover the moonshot line)
    fig = plot_gap(payloads, targets={"backward target 16": 16, "forward target 8": 8,
                                      "moonshot 4": 4})
    assert_figure_accepted(fig)
    assert fig.axes[0].get_xlabel() == M_LABEL
    assert_figure_accepted(plot_gap(payloads[:1]))


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_hardware_levels_tells_coinciding_bounds_apart() -> None:
    from attnio.reporting.hardware_plots import levels_vs_n, plot_levels_vs_n

    rows = levels_vs_n("h100-sxm", "bf16", 64, [2 ** k for k in range(9, 15)])
    fig = plot_levels_vs_n(rows, "H100-SXM, bf16, d = 64: words per boundary")
    assert_figure_accepted(fig)
    bounds = [line for line in fig.axes[0].get_lines() if "lower bound" in line.get_label()]
    assert len(bounds) == 2
    # the two bounds are equal at small n (compulsory I/O): different style and marker size
    styles = {(line.get_linestyle(), line.get_marker(), line.get_markersize()) for line in bounds}
    assert len(styles) == 2
    assert "equal" in fig.axes[0].get_legend().get_title().get_text()


def test_hardware_regimes_has_a_key() -> None:
    from attnio.reporting.hardware_plots import plot_regime_map, regime_map

    fig = plot_regime_map(regime_map(devices=("h100-sxm", "mi300x"), head_dims=(64, 256)))
    assert_figure_accepted(fig)
    (key,) = fig.legends
    assert [t.get_text().split()[0] for t in key.get_texts()] == [
        "small-cache", "crossover", "large-cache"]


def test_sparse_io_ratio() -> None:
    from attnio.algorithms.simulation import measured_crossover
    from attnio.bounds.masks import sparse_bound_values
    from attnio.reporting.sparse_measure import BACKWARD, masks, plot_panels, ratios

    n, d = 1024, 32
    Ms = [2 ** k for k in range(6, 16)]
    fine = sorted({round(2 ** (k / 8)) for k in range(8 * 6, 8 * 15 + 1)})
    panels = {label: (ratios(mask, "backward", BACKWARD, n=n, d=d, Ms=Ms),
                      sparse_bound_values(mask, n, d, Ms[0])["sparse_crossover"]["value_float"],
                      measured_crossover(n, d, fine, mask=mask))
              for label, mask in masks(n).items()}
    fig = plot_panels(panels, n=n, d=d, Ms=Ms)
    assert_figure_accepted(fig)
    assert all(ax.get_xlabel() == M_LABEL for ax in fig.axes if ax.axison)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_report_figures_of_the_quick_tier(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every FigureSpec of ``attnio report`` at a small instance, through its own draw();
    the two slow data sources (every sandwich row's optimum, the n = 16,384 sweep) are the
    cases above."""
    from attnio.reporting.report_figures import FIGURES, ReportContext

    ctx = ReportContext(n=512, d=16, Ms=[64, 256, 1024], quick=True)
    for spec in FIGURES:
        if spec.filename in ("lower_bound_tightness.png", "sparse_io_ratio.png"):
            continue
        fig, _ = spec.draw(ctx)
        verdict = check_figure(fig)
        assert verdict.proved, (spec.filename, verdict.detail)
