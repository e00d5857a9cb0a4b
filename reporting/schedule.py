"""One pebbling schedule, move by move: which vertex holds a red (fast memory) or blue (slow
memory) pebble after each move, the red pebbles in use against M and the I/O so far.

The report draws the exact optimum of the smallest instructive DAG (:data:`SMALLEST_DAG`);
``attnio pebble --show`` prints the same timeline as text (:func:`timeline_text`: step, move,
vertex, red pebbles, I/O so far) and ``attnio pebble --plot FILE`` draws it
(:func:`plot_schedule`) for the user's own DAG and M — both from :func:`timeline_from_graph`,
which replays the schedule through :func:`attnio.graphs.game.replay` (raising on an illegal
move) before anything is shown.

Examples
--------
>>> t = timeline_from_moves("toy", ["a", "b"], [("read", "a"), ("compute", "b"),
...                          ("write", "b")], M=2, inputs=["a"], outputs=["b"])
>>> plot_schedule(t).axes[0].get_title()
'toy: optimal schedule at M = 2 (3 moves, I/O = 2)'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import networkx as nx
import numpy as np

from attnio.exceptions import InfeasibleError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import game_inputs, game_outputs, replay
from attnio.reporting.figure_quality import place_legend
from attnio.reporting.style import headroom, new_figure, save_png
from attnio.results import Status
from attnio.tables import render_table

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["ScheduleTimeline", "timeline_from_moves", "timeline_from_graph", "timeline_rows",
           "timeline_text", "plot_schedule", "schedule_data", "smallest_optimal_schedule",
           "SMALLEST_DAG"]


@dataclass(frozen=True, slots=True)
class ScheduleTimeline:
    """A pebbling schedule replayed move by move.

    ``vertices`` are the row labels (topological order); ``moves[t]`` is ``(kind, vertex)``
    with kind in {"read", "write", "compute", "delete"}; ``states[t][v]`` is the pebbling of
    ``vertices[v]`` *after* move ``t``: 0 none, 1 red, 2 blue, 3 red and blue. ``kind``
    names the schedule in titles ("optimal schedule", "schedule", "best schedule found").
    """

    name: str
    M: int
    vertices: tuple[str, ...]
    moves: tuple[tuple[str, str], ...]
    states: tuple[tuple[int, ...], ...]
    io: int
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    kind: str = "optimal schedule"


def plot_schedule(data: ScheduleTimeline, path: str | Path | None = None) -> "Figure":
    """Draw a pebbling schedule as a move timeline: rows are vertices, columns are moves.

    Each cell shows the pebbles of a vertex after a move (red = fast memory, blue = slow
    memory, purple = both); the move is marked in its column (R read, W write, C compute,
    D delete), and a key below the panels explains the colours and letters. The lower panel
    counts red pebbles against M and the cumulative I/O.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    steps = len(data.moves)
    rows = len(data.vertices)
    width = min(22.0, max(7.0, 0.28 * steps + 2.5))
    height = max(4.5, 0.32 * rows + 2.8) + 1.2  # + the key below the panels
    fig = new_figure(width, height)
    grid = fig.add_gridspec(2, 1, height_ratios=[max(rows, 3), 3])
    ax = fig.add_subplot(grid[0])
    ax_count = fig.add_subplot(grid[1], sharex=ax)
    # Column t = state after move t; column -1 (drawn at x = -1) = the initial state.
    initial = tuple(2 if v in data.inputs else 0 for v in data.vertices)
    states = np.array([initial, *data.states], dtype=float).T  # rows × (steps + 1)
    cmap = ListedColormap(["#f7f7f7", "#e41a1c", "#377eb8", "#984ea3"])
    ax.imshow(states, aspect="auto", cmap=cmap, vmin=-0.5, vmax=3.5, interpolation="nearest",
              extent=(-1.5, steps - 0.5, rows - 0.5, -0.5))
    letters = {"read": "R", "write": "W", "compute": "C", "delete": "D"}
    row_of = {v: i for i, v in enumerate(data.vertices)}
    for t, (kind, vertex) in enumerate(data.moves):
        ax.text(t, row_of[vertex], letters.get(kind, "?"), ha="center", va="center",
                fontsize=7, color="white" if states[row_of[vertex], t + 1] else "black",
                fontweight="bold")
    ax.set_yticks(range(rows))
    ax.set_yticklabels([_vertex_label(v, data) for v in data.vertices], fontsize=8)
    ax.set_ylabel("vertex (inputs ▸, outputs ◂)")
    ax.set_xticks(range(-1, steps, max(1, steps // 25)))
    ax.tick_params(axis="x", labelbottom=False)
    ax.set_title(f"{data.name}: {data.kind} at M = {data.M} ({steps} moves, I/O = {data.io})")
    # The key of the grid (pebble colours and move letters) below the panels: the grid fills
    # its axes, so a key inside it would hide cells.
    key = [Patch(color=cmap(1), label="red pebble (fast memory)"),
           Patch(color=cmap(2), label="blue pebble (slow memory)"),
           Patch(color=cmap(3), label="red + blue"),
           *(Line2D([], [], ls="none", marker=f"${letter}$", color="black", ms=7,
                    label=f"{letter}  {meaning}")
             for letter, meaning in _MOVE_MEANINGS)]
    fig.legend(handles=key, loc="outside lower center", ncol=2, fontsize=8,
               title="cells (after each move) and moves", title_fontsize=8)
    reds = (states.astype(int) & 1).sum(axis=0)
    io_so_far = np.concatenate([[0], np.cumsum([k in ("read", "write") for k, _ in data.moves])])
    xs = np.arange(-1, steps)
    ax_count.step(xs, reds, where="mid", color="#e41a1c", lw=1.8, label="red pebbles in use")
    ax_count.axhline(data.M, color="#e41a1c", ls="--", lw=1.0, label=f"M = {data.M}")
    ax_count.step(xs, io_so_far, where="mid", color="black", lw=1.8, label="I/O so far (words moved)")
    ax_count.set_xlabel("move number (column −1 = initial state)")
    ax_count.set_ylabel("count")
    ax_count.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_count.grid(True, alpha=0.3)
    ax_count.set_title("red pebbles in use against M, and the I/O so far", fontsize=10)
    headroom(ax_count, top=0.3)  # a band above the steps for the legend
    place_legend(ax_count, fontsize=8, framealpha=0.9, ncol=3)
    return save_png(fig, path)


#: The letter of each move in the grid and what the move does (the red-blue pebble game).
_MOVE_MEANINGS = (("R", "read: blue → red (1 I/O)"), ("W", "write: red → blue (1 I/O)"),
                  ("C", "compute: red on a vertex whose inputs are red"),
                  ("D", "delete: remove a red pebble"))


def _vertex_label(vertex: str, data: ScheduleTimeline) -> str:
    if vertex in data.inputs:
        return f"▸ {vertex}"
    if vertex in data.outputs:
        return f"{vertex} ◂"
    return vertex


def timeline_from_moves(
    name: str, vertices: Sequence[str], moves: Sequence[tuple[str, str]], M: int,
    inputs: Sequence[str], outputs: Sequence[str], kind: str = "optimal schedule",
) -> ScheduleTimeline:
    """Track red/blue pebbles through ``moves`` (for drawing only — legality is the game's job).

    >>> t = timeline_from_moves("toy", ["a", "b"], [("read", "a"), ("compute", "b"),
    ...                          ("write", "b")], M=2, inputs=["a"], outputs=["b"])
    >>> t.states[-1], t.io
    ((3, 3), 2)
    """
    index = {v: i for i, v in enumerate(vertices)}
    state = [2 if v in set(inputs) else 0 for v in vertices]
    states: list[tuple[int, ...]] = []
    io = 0
    for op, vertex in moves:
        i = index[vertex]
        if op == "read":
            state[i] |= 1
            io += 1
        elif op == "write":
            state[i] |= 2
            io += 1
        elif op == "compute":
            state[i] |= 1
        elif op == "delete":
            state[i] &= 2  # deleting removes the red pebble (a blue one is never needed again)
        states.append(tuple(state))
    return ScheduleTimeline(name=name, M=M, vertices=tuple(vertices),
                            moves=tuple((str(k), str(v)) for k, v in moves),
                            states=tuple(states), io=io, inputs=tuple(inputs),
                            outputs=tuple(outputs), kind=kind)


def timeline_from_graph(graph: nx.DiGraph, moves: Sequence[tuple[str, str]], M: int,
                        name: str = "DAG", *, kind: str = "optimal schedule",
                        recompute: bool = True, outputs: Sequence[str] | None = None
                        ) -> ScheduleTimeline:
    """The timeline of ``moves`` on ``graph`` after the game's validator has replayed them
    (:func:`attnio.graphs.game.replay` raises IllegalMoveError at an illegal move); rows in
    topological order.

    >>> G = nx.DiGraph([("a", "b")])
    >>> timeline_from_graph(G, [("read", "a"), ("compute", "b"), ("write", "b")], 2).io
    2
    """
    replay(graph, moves, M, recompute=recompute, outputs=outputs)
    order = list(nx.lexicographical_topological_sort(graph))
    return timeline_from_moves(name, order, [(op, v) for op, v in moves], M,
                               inputs=game_inputs(graph), outputs=game_outputs(graph, outputs),
                               kind=kind)


def timeline_rows(data: ScheduleTimeline) -> list[tuple[int, str, str, int, int]]:
    """One row per move: (step, move, vertex, red pebbles after it, I/O so far), ints exact.

    >>> t = timeline_from_moves("toy", ["a", "b"], [("read", "a"), ("compute", "b"),
    ...                          ("write", "b")], M=2, inputs=["a"], outputs=["b"])
    >>> timeline_rows(t)
    [(1, 'read', 'a', 1, 1), (2, 'compute', 'b', 2, 1), (3, 'write', 'b', 2, 2)]
    """
    rows = []
    io = 0
    for step, ((kind, vertex), state) in enumerate(zip(data.moves, data.states), start=1):
        io += kind in ("read", "write")
        rows.append((step, kind, vertex, sum(s & 1 for s in state), io))
    return rows


def timeline_text(data: ScheduleTimeline, *, width: int | None = None) -> str:
    """The timeline as a text table (``attnio pebble --show``): a title line, then step,
    move, vertex, red pebbles in use (of M) and I/O so far; vertex names are never cut
    (a long name wraps whole in its column).

    >>> t = timeline_from_moves("toy", ["a", "b"], [("read", "a"), ("compute", "b"),
    ...                          ("write", "b")], M=2, inputs=["a"], outputs=["b"])
    >>> print(timeline_text(t))
    toy: optimal schedule at M = 2 (3 moves, I/O = 2)
      step  move     vertex      red    I/O so far
    ------  -------  --------  -----  ------------
         1  read     a           1/2             1
         2  compute  b           2/2             1
         3  write    b           2/2             2
    """
    rows = [(step, kind, vertex, f"{red}/{data.M}", io)
            for step, kind, vertex, red, io in timeline_rows(data)]
    title = (f"{data.name}: {data.kind} at M = {data.M} ({len(data.moves)} moves, "
             f"I/O = {data.io})")
    table = render_table(["step", "move", "vertex", "red", "I/O so far"], rows,
                         align=["right", "left", "left", "right", "right"], max_width=width,
                         wrap=[2])
    return f"{title}\n{table}"


#: (m, k, p) of the matmul DAG whose optimal schedule the report draws: the dot product of
#: length 2 (7 vertices), the smallest sandwich DAG whose optimum at its smallest M exceeds the
#: trivial bound — at M = 3 it must spill a partial product (write it, read it back).
#: (matmul 1×1×1 is smaller but its optimum is just read, read, compute, write.)
SMALLEST_DAG = (1, 2, 1)


def schedule_data(graph: nx.DiGraph, M: int, name: str = "DAG", *,
                  time_limit: float | None = None) -> ScheduleTimeline:
    """Solve the exact optimum of ``graph`` at ``M`` and return its schedule, move by move.

    The search's budget is the solver's state budget (``time_limit`` seconds only if given):
    the drawn schedule does not depend on the machine's load.

    The schedule is replayed through :func:`attnio.graphs.game.replay` (which raises on an
    illegal move) before it is drawn; vertices are listed in topological order.

    Raises
    ------
    attnio.exceptions.InfeasibleError
        When no schedule exists at this M, or the solver's answer is Undecided.
    """
    result = solve_optimal(graph, M, time_limit=time_limit)
    if result.verdict is not Status.OPTIMAL:
        raise InfeasibleError(f"{name} at M={M}: no optimal schedule to draw "
                              f"({result.verdict}: {result.reason})")
    # The drawing trusts nothing: the schedule is replayed by the game's own validator first.
    timeline = timeline_from_graph(graph, result.schedule, M, name)
    assert timeline.io == result.io, (timeline.io, result.io)  # the solver's certificate
    return timeline


def smallest_optimal_schedule(time_limit: float | None = None) -> ScheduleTimeline:
    """The optimal schedule of the smallest instructive DAG (:data:`SMALLEST_DAG`, a dot
    product of length 2) at the smallest M that admits a schedule.

    Returns
    -------
    ScheduleTimeline
    """
    m, k, p = SMALLEST_DAG
    graph = matmul_dag(m, k, p)
    return schedule_data(graph, min_cache_size(graph), f"matmul {m}×{k}×{p}",
                         time_limit=time_limit)
