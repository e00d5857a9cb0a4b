"""Tests of attnio.figures: the drawings on hand-made data, then the data from the library.

The first half feeds each plot function a small, hand-made dataclass and checks what a reader
relies on: axis labels with units, a legend, a title, the crossover and d² marked, a PNG on
disk. The second half checks the data functions against the library (and against the facts
the figures claim: the crossover near d², the sandwich ordering).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from attnio.figures import (
    IO_LABEL,
    M_LABEL,
    FlopCurves,
    IOCurves,
    PhaseDiagram,
    SandwichRow,
    plot_flop_curves,
    plot_io_curves,
    plot_phase_diagram,
    plot_sandwich,
    plot_schedule,
    sweep_cache_sizes,
    timeline_from_moves,
)

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


def _legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "every panel needs a legend"
    return [t.get_text() for t in legend.get_texts()]


# ---------------------------------------------------------------------------- hand-made data


def _toy_phase() -> PhaseDiagram:
    alphas = tuple(0.5 + 0.05 * i for i in range(71))
    betas = tuple(0.5 + 0.05 * i for i in range(51))

    def term(a: float, b: float) -> str:
        if a < 2:
            return "n²d/√M" if b > 1 else "nd²/√M"
        return "n²d²/M" if b > 1 else "nd³/M"

    return PhaseDiagram(
        alphas, betas,
        tuple(tuple(term(a, b) for a in alphas) for b in betas),
        tuple(tuple("small-cache" if a < 2 else "flash1" for a in alphas) for b in betas),
        crossover_alpha=2.0,
    )


def test_phase_diagram_has_labels_legend_and_crossover(tmp_path: Path) -> None:
    fig = plot_phase_diagram(_toy_phase(), tmp_path / "phase.png")
    assert _is_png(tmp_path / "phase.png")
    term_ax, algo_ax = fig.axes[:2]
    for ax in (term_ax, algo_ax):
        assert "log_d M" in ax.get_xlabel() and "words" in ax.get_xlabel()
        assert "log_d n" in ax.get_ylabel()
        assert 2.0 in _vertical_lines_at(ax)  # the crossover alpha = 2
    # nd³/M occurs only where alpha > 1 + beta (inadmissible): it must not be in the legend.
    terms = _legend_texts(term_ax)
    assert "nd³/M" not in terms and {"n²d/√M", "n²d²/M", "nd²/√M"} <= set(terms)
    assert any("inadmissible" in t for t in terms)
    assert {"small-cache", "flash1"} <= set(_legend_texts(algo_ax))


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


def test_io_curves_marks_d_squared_and_crossover(tmp_path: Path) -> None:
    fig = plot_io_curves(_toy_io(), tmp_path / "io.png")
    assert _is_png(tmp_path / "io.png")
    (ax,) = fig.axes
    assert ax.get_xlabel() == M_LABEL and ax.get_ylabel() == IO_LABEL
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert {1024.0, 700.0} <= _vertical_lines_at(ax)
    labels = _legend_texts(ax)
    assert any("FlashAttention-1" in t for t in labels) and any("Algorithm 6" in t for t in labels)
    assert "n²d²/M" in labels
    texts = [t.get_text() for t in ax.texts]
    assert any("d² = 1,024" in t for t in texts) and any("crossover" in t for t in texts)


def test_io_curves_skips_missing_points_and_absent_crossover() -> None:
    fig = plot_io_curves(_toy_io(crossover=None))
    (ax,) = fig.axes
    assert 700.0 not in _vertical_lines_at(ax)
    small_cache = [line for line in ax.get_lines() if "Algorithm 6" in line.get_label()]
    assert min(small_cache[0].get_xdata()) == 64  # the None points are not drawn as zeros


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


def test_sandwich_one_panel_per_dag(tmp_path: Path) -> None:
    rows = [SandwichRow(dag, M, 2, 3, 10 - M if M < 5 else None, {"flash": 12 - M, "naive": None},
                        trivial_bound=4)
            for dag in ("matmul 1×2×1", "attention n=2, d=1") for M in (3, 4, 5)]
    fig = plot_sandwich(rows, tmp_path / "sandwich.png")
    assert _is_png(tmp_path / "sandwich.png")
    assert [ax.get_title() for ax in fig.axes] == ["matmul 1×2×1", "attention n=2, d=1"]
    for ax in fig.axes:
        assert ax.get_xlabel() == M_LABEL and ax.get_ylabel() == IO_LABEL
        assert ax.get_ylim()[0] < 0  # a bound equal to 0 is drawn above the axis, not on it
        assert any("undecided" in t.get_text() and "M = 5" in t.get_text() for t in ax.texts)
    (legend,) = fig.legends  # one legend for all panels
    labels = {t.get_text() for t in legend.get_texts()}
    assert {"explicit lower bound", "Hong–Kung partition bound M·(P(G,2M)−1)", "exact optimum",
            "trivial bound: inputs + outputs (catalogue)", "schedule: flash"} <= labels
    assert "schedule: naive" not in labels  # no value at any M: nothing to draw


def test_timeline_tracks_pebbles_and_io() -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "a"), ("write", "c")]
    t = timeline_from_moves("toy", ["a", "b", "c"], moves, M=3, inputs=["a", "b"], outputs=["c"])
    assert t.io == 3
    assert t.states[2] == (3, 3, 1)  # a, b red + blue; c red
    assert t.states[3] == (2, 3, 1)  # deleting a leaves its blue pebble
    assert t.states[-1] == (2, 3, 3)


def test_schedule_plot(tmp_path: Path) -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "a"), ("write", "c")]
    t = timeline_from_moves("toy", ["a", "b", "c"], moves, M=3, inputs=["a", "b"], outputs=["c"])
    fig = plot_schedule(t, tmp_path / "schedule.png")
    assert _is_png(tmp_path / "schedule.png")
    grid_ax, count_ax = fig.axes
    assert "M = 3" in grid_ax.get_title() and "I/O = 3" in grid_ax.get_title()
    assert [label.get_text() for label in grid_ax.get_yticklabels()] == ["▸ a", "▸ b", "c ◂"]
    assert "move" in count_ax.get_xlabel()
    assert any("M = 3" in text for text in _legend_texts(count_ax))


def test_sweep_cache_sizes_spans_d_to_nd() -> None:
    sizes = sweep_cache_sizes(4096, 64)
    assert sizes[0] == 64 and sizes[-1] == 4096 * 64
    assert all(b == 2 * a for a, b in zip(sizes, sizes[1:]))
    assert all(isinstance(m, int) for m in sizes)


# ---------------------------------------------------------------------- data from the library


def test_phase_diagram_data_matches_the_dominance_decision() -> None:
    from attnio.figures import phase_diagram_data

    phase = phase_diagram_data((0.5, 4.0), (0.5, 3.0), steps=36)
    assert phase.crossover_alpha == 2.0  # log_d of the derived crossover d**2
    assert phase.label_at(1.5, 2.0) == ("n²d/√M", "Algorithm 6 (small cache)")
    assert phase.label_at(3.0, 2.5) == ("n²d²/M", "FlashAttention backward")
    assert phase.label_at(1.2, 0.8)[0] == "nd²/√M"  # n < d: the nd² term takes over
    # Planted false reading: "FlashAttention wins below the crossover" must not be what we drew.
    assert all(phase.label_at(a, 2.5)[1] != "FlashAttention backward" for a in (1.1, 1.5, 1.9))


def test_phase_diagram_data_rejects_a_one_point_grid() -> None:
    from attnio.exceptions import InvalidInputError
    from attnio.figures import phase_diagram_data

    with pytest.raises(InvalidInputError, match="steps=1 must be at least 2"):
        phase_diagram_data(steps=1)


def test_io_curves_data_crossover_near_d_squared() -> None:
    from attnio.algorithms.simulation import simulate
    from attnio.figures import io_curves_data

    n, d = 512, 16
    data = io_curves_data(n, d, sweep_cache_sizes(n, d))
    assert set(data.measured) == {"standard", "flash1", "flash2", "small-cache"}
    assert data.crossover_M is not None and d * d / 4 <= data.crossover_M <= 4 * d * d
    k = len(data.Ms) // 2
    assert data.measured["flash1"][k] == simulate("flash1", "backward", n, d, data.Ms[k]).io
    assert all(type(v) is int for vs in data.measured.values() for v in vs if v is not None)
    assert any(label.startswith("bwd.tight = Θ(min(") for label in data.bounds)


def test_io_curves_data_forward_pass_swaps_near_d_squared() -> None:
    from attnio.figures import io_curves_data

    n, d = 512, 16
    data = io_curves_data(n, d, sweep_cache_sizes(n, d), pass_="forward")
    assert set(data.measured) == {"standard", "flash1", "flash2", "square-tiling"}
    assert data.crossover_M is not None and d * d / 4 <= data.crossover_M <= 4 * d * d
    assert any(label.startswith("fwd.square_tiling.upper") for label in data.bounds)


def test_flop_curves_data_counts_are_ints() -> None:
    from attnio.figures import flop_curves_data

    data = flop_curves_data(256, 16, [64, 256, 1024])
    assert set(data.flops) == {"flash1", "small-cache"}
    assert all(type(v) is int for vs in data.flops.values() for v in vs if v is not None)


def test_smallest_optimal_schedule_replays_to_its_cost() -> None:
    import networkx as nx

    from attnio.figures import SMALLEST_DAG, smallest_optimal_schedule
    from attnio.graphs.dags import matmul_dag
    from attnio.graphs.game import replay

    timeline = smallest_optimal_schedule()
    graph = matmul_dag(*SMALLEST_DAG)
    assert replay(graph, list(timeline.moves), timeline.M).io == timeline.io
    assert list(timeline.vertices) == list(nx.lexicographical_topological_sort(graph))
    # Every output ends blue, never more than M red pebbles.
    final = dict(zip(timeline.vertices, timeline.states[-1]))
    assert all(final[v] & 2 for v in timeline.outputs)
    assert max(sum(s & 1 for s in state) for state in timeline.states) <= timeline.M
