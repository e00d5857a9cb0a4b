"""attnio.reporting.schedule: pebbles tracked move by move, the drawing, and the optimal
schedule of the smallest DAG replayed by the game's validator."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnio.reporting.schedule import (
    SMALLEST_DAG,
    plot_schedule,
    smallest_optimal_schedule,
    timeline_from_moves,
)


def test_timeline_tracks_pebbles_and_io() -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "a"), ("write", "c")]
    t = timeline_from_moves("toy", ["a", "b", "c"], moves, M=3, inputs=["a", "b"], outputs=["c"])
    assert t.io == 3
    assert t.states[2] == (3, 3, 1)  # a, b red + blue; c red
    assert t.states[3] == (2, 3, 1)  # deleting a leaves its blue pebble
    assert t.states[-1] == (2, 3, 3)


@pytest.mark.extra("plots")
def test_schedule_plot(figure_checks, tmp_path: Path) -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "a"), ("write", "c")]
    t = timeline_from_moves("toy", ["a", "b", "c"], moves, M=3, inputs=["a", "b"], outputs=["c"])
    fig = plot_schedule(t, tmp_path / "schedule.png")
    assert figure_checks.is_png(tmp_path / "schedule.png")
    grid_ax, count_ax = fig.axes
    assert "M = 3" in grid_ax.get_title() and "I/O = 3" in grid_ax.get_title()
    assert [label.get_text() for label in grid_ax.get_yticklabels()] == ["▸ a", "▸ b", "c ◂"]
    assert "move" in count_ax.get_xlabel()
    assert any("M = 3" in text for text in figure_checks.legend_texts(count_ax))


def test_smallest_optimal_schedule_replays_to_its_cost() -> None:
    import networkx as nx

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
