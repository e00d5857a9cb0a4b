"""The pebbling sandwich on tiny DAGs, per M: certified lower bound ≤ exact optimum ≤ every
replayed algorithm schedule (with the explicit and Hong–Kung bounds, which are 0 on most of
these DAGs, and the catalogue's trivial bound).

The rows are :class:`attnio.proofs.sandwich.SandwichRow` — the one row type of the sandwich,
computed and checked by :func:`attnio.proofs.sandwich.sandwich_row` — and this module only
adds what the figure needs beside them: each DAG's vertex count and the catalogue's trivial
lower bound (inputs read once, outputs written once) for matmul and attention-forward DAGs
(:class:`SandwichFigure`). What the figure draws is :meth:`SandwichFigure.points`, one
:class:`SandwichPoint` per (DAG, M): the certified lower bound (``attnio lower-bound``, routes
of :mod:`attnio.graphs.lower_bounds`, certificates re-checked), the optimum **only where the
search decided it**, and where it did not, the proven bracket [lower, upper] (drawn as an
interval, never as an optimum point).

The search budget of :func:`sandwich_data` is a number of stored states
(:data:`FIGURE_MAX_STATES`), not seconds: the figure and its table are the same on an idle
and on a busy machine. A caller who passes ``time_limit`` gets brackets where the clock ran
out, labelled as such.

Examples
--------
>>> from attnio.proofs.sandwich import SandwichRow
>>> rows = tuple(SandwichRow("matmul 1x2x1", M, explicit=0, hong_kung=0, optimum=9 - M,
...                          schedules={"flash": 10 - M}) for M in (3, 4))
>>> data = SandwichFigure(rows, vertices={"matmul 1x2x1": 7}, trivial={"matmul 1x2x1": 3})
>>> [ax.get_title() for ax in plot_sandwich(data).axes]
['matmul 1x2x1 (7 vertices)']
>>> sandwich_table(data)[1][0]
['matmul 1x2x1 (7 vertices)', 3, 0, 0, None, 3, 6, 'flash 7', 'ok']
>>> undecided = SandwichRow("matmul 1x2x1", 5, certified=4, optimum_lower=4, optimum_upper=6,
...                         verdict=Status.UNDECIDED, detail="state budget 2 reached")
>>> point = SandwichFigure(rows + (undecided,)).points()[-1]
>>> point.optimum, point.bracket
(None, (4, 6))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.schedules import algorithm_schedules
from attnio.proofs.sandwich import (
    DEEP_INSTANCES,
    DEFAULT_INSTANCES,
    Instance,
    SandwichRow,
    sandwich_row,
)
from attnio.reporting.style import (
    IO_LABEL,
    M_LABEL,
    algorithm_colour,
    headroom,
    new_figure,
    save_png,
)
from attnio.results import Status
from attnio.symbolic.catalogue import get_bound

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["SandwichFigure", "SandwichPoint", "sandwich_data", "plot_sandwich", "sandwich_table",
           "SANDWICH_FIGURE_INSTANCES", "SANDWICH_TABLE_HEADER", "FIGURE_MAX_STATES",
           "trivial_bound"]

#: Sandwich instances drawn by :func:`sandwich_data` (labels of
#: :data:`attnio.proofs.sandwich.DEFAULT_INSTANCES` / ``DEEP_INSTANCES``); ``quick`` draws the first two.
SANDWICH_FIGURE_INSTANCES = ("matmul 1x2x1", "matmul 2x2x1", "matmul 2x2x2",
                             "attention forward n=2 d=1")
SANDWICH_TABLE_HEADER = ("DAG", "M", "explicit", "Hong–Kung", "certified", "trivial", "optimum",
                         "schedules", "note")

#: The exact search's budget per (DAG, M) in :func:`sandwich_data`: stored states, no clock
#: (so the figure does not depend on machine load). Every M of the figure's instances is
#: settled below it (attention forward n = 2, d = 1 needs the most: M = 3…7, about 10⁴ states
#: explored each); an M it does not settle is drawn as its bracket.
FIGURE_MAX_STATES = 400_000


def _verdict(row: SandwichRow) -> str:
    """The row's verdict as a plain lower-case string (an enum member prints as its value)."""
    return str(getattr(row.verdict, "value", row.verdict)).lower()


@dataclass(frozen=True, slots=True)
class SandwichPoint:
    """What the figure draws at one (DAG, M), read from a :class:`SandwichRow`.

    ``optimum`` is set only where the search decided it (verdict not undecided); an undecided
    M has ``bracket = (lower, upper)`` instead — the larger of the solver's proven lower bound
    and the certified lower bound, and the best known schedule (either None where nothing is
    known) — and ``optimum`` None.
    """

    label: str
    M: int
    certified: int | None
    certified_route: str | None
    explicit: int | None
    hong_kung: int | None
    trivial: int | None
    optimum: int | None
    bracket: tuple[int | None, int | None] | None
    schedules: Mapping[str, int]
    verdict: str
    detail: str

    @property
    def decided(self) -> bool:
        """The optimum is known exactly."""
        return self.optimum is not None


@dataclass(frozen=True, slots=True)
class SandwichFigure:
    """Sandwich rows (one per instance and M) and, per instance label, what the figure adds:
    ``vertices`` (the DAG's vertex count, for the panel title) and ``trivial`` (the
    catalogue's trivial lower bound, or None where the catalogue has none)."""

    rows: tuple[SandwichRow, ...]
    vertices: Mapping[str, int] = field(default_factory=dict)
    trivial: Mapping[str, int | None] = field(default_factory=dict)

    def panel_title(self, label: str) -> str:
        """``"matmul 1x2x1 (7 vertices)"`` (just the label when the count is unknown)."""
        count = self.vertices.get(label)
        return label if count is None else f"{label} ({count} vertices)"

    def value(self, row: SandwichRow, what: str) -> int | None:
        """One plotted value of a row: a SandwichRow field, or ``"trivial"``."""
        return self.trivial.get(row.label) if what == "trivial" else getattr(row, what)

    def points(self) -> tuple[SandwichPoint, ...]:
        """The figure's data, one :class:`SandwichPoint` per row (in row order): what
        :func:`plot_sandwich` draws and :func:`sandwich_table` prints."""
        out = []
        for r in self.rows:
            verdict = _verdict(r)
            decided = r.optimum is not None and verdict != Status.UNDECIDED.value
            schedules = {k: v for k, v in r.schedules.items() if v is not None}
            bracket = None
            if not decided:  # proven lower bounds: the solver's and the certified one
                known = [x for x in (r.optimum_lower, r.certified) if x is not None]
                upper = r.optimum_upper
                if upper is None and schedules:
                    upper = min(schedules.values())
                bracket = (max(known) if known else None, upper)
            out.append(SandwichPoint(r.label, r.M, r.certified, r.certified_route, r.explicit,
                                     r.hong_kung, self.trivial.get(r.label),
                                     r.optimum if decided else None, bracket, schedules,
                                     verdict, r.detail))
        return tuple(out)


def plot_sandwich(data: SandwichFigure, path: str | Path | None = None) -> "Figure":
    """Draw the sandwich per M on each tiny DAG as a step chart (one panel per DAG), from
    :meth:`SandwichFigure.points`.

    The certified lower bound is a filled step from below (with the explicit and Hong–Kung
    bounds, drawn only where positive), the exact optimum a thick black step with a square at
    every decided M, each replayed algorithm schedule a marker line above it. An M whose
    optimum the search did not decide is drawn as its bracket (a red interval from the proven
    lower bound to the best schedule) and breaks the optimum's step: it is never an optimum
    point.

    Returns
    -------
    matplotlib.figure.Figure
    """
    points = data.points()
    dags = list(dict.fromkeys(p.label for p in points))
    ncols = len(dags) if len(dags) <= 3 else 2
    nrows = math.ceil(len(dags) / max(ncols, 1))
    fig = new_figure(max(9.0, 5.2 * ncols), 4.2 * nrows + 1.4)
    legend_entries: dict[str, Any] = {}
    lower = (("certified", "certified lower bound (attnio lower-bound)", "#756bb1", 2.2),
             ("explicit", "explicit lower bound", "#9ecae1", 1.4),
             ("hong_kung", "Hong–Kung partition bound M·(P(G,2M)−1)", "#3182bd", 1.4))
    for k, dag in enumerate(dags):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        mine = sorted((p for p in points if p.label == dag), key=lambda p: p.M)
        Ms = [p.M for p in mine]
        for attr, label, colour, width in lower:
            # only where positive: a bound of 0 says nothing and would hide the others
            pts = [(p.M, getattr(p, attr)) for p in mine if (getattr(p, attr) or 0) > 0]
            if not pts:
                continue
            xs, ys = zip(*pts)
            # Steps change only at the sampled M ("post": a value holds until the next sampled
            # M), so no step is drawn at an M that was never computed.
            ax.step(xs, ys, where="post", color=colour, lw=width, label=label, zorder=3)
            ax.fill_between(xs, 0, ys, step="post", color=colour, alpha=0.2)
            ax.plot(xs, ys, "o", color=colour, ms=3.5, zorder=3)  # a lone M stays visible
        trivial = [(p.M, p.trivial) for p in mine if p.trivial is not None]
        if trivial:
            xs, ys = zip(*trivial)
            ax.step(xs, ys, where="post", color="#31a354", lw=1.6, ls="--",
                    label="trivial bound: inputs + outputs (catalogue)", zorder=3)
        # the optimum: decided M only; an undecided M is a gap (NaN) in the step
        ys_opt = [math.nan if p.optimum is None else float(p.optimum) for p in mine]
        decided = [(p.M, p.optimum) for p in mine if p.optimum is not None]
        if decided:
            ax.step(Ms, ys_opt, where="post", color="black", lw=2.6, label="exact optimum",
                    zorder=4)
            ax.plot([m for m, _ in decided], [q for _, q in decided], "s", color="black", ms=4,
                    zorder=4)
        brackets = [(p.M, p.bracket[0], p.bracket[1]) for p in mine
                    if not p.decided and p.bracket is not None
                    and p.bracket[0] is not None and p.bracket[1] is not None]
        if brackets:
            xs_b = [m for m, _, _ in brackets]
            lo = [float(a) for _, a, _ in brackets if a is not None]
            hi = [float(b) for _, _, b in brackets if b is not None]
            ax.errorbar(xs_b, [(a + b) / 2 for a, b in zip(lo, hi)],
                        yerr=[[(b - a) / 2 for a, b in zip(lo, hi)]] * 2, fmt="none",
                        ecolor="#b30000", elinewidth=3, capsize=5, zorder=6,
                        label="optimum undecided: proven bracket [lower, best schedule]")
        names = list(dict.fromkeys(name for p in mine for name in p.schedules))
        markers = ["^", "v", "D", "P", "X", "*"]
        for j, name in enumerate(names):
            pts = [(p.M, p.schedules[name]) for p in mine if name in p.schedules]
            xs, ys = zip(*pts)
            # Shrinking markers: schedules with equal costs stay visible on top of each other.
            ax.plot(xs, ys, marker=markers[j % len(markers)], ms=max(4, 10 - 2 * j), lw=1.0, ls=":",
                    color=algorithm_colour(name, j + 2), label=f"schedule: {name}", zorder=5)
        ax.set_xticks(Ms)
        ax.set_xlabel(M_LABEL)
        ax.set_ylabel(IO_LABEL)
        top = ax.get_ylim()[1]
        ax.set_ylim(-0.04 * top, top)  # bounds equal to 0 stay visible above the axis
        ax.set_title(data.panel_title(dag))
        ax.grid(True, alpha=0.3)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend_entries.setdefault(label, handle)
        notes = []
        zero = [name for attr, name in (("explicit", "explicit"), ("hong_kung", "Hong–Kung"))
                if all(not getattr(p, attr) for p in mine)]
        if zero:
            notes.append(" and ".join(zero) + " bound = 0 at every M (not drawn)")
        unsolved = [p for p in mine if not p.decided]
        if unsolved:
            notes.append("optimum undecided (search budget), drawn as its bracket:")
            notes += [f"  M = {p.M}: bracket [{_fmt(p.bracket[0] if p.bracket else None)}, "
                      f"{_fmt(p.bracket[1] if p.bracket else None)}]" for p in unsolved]
        if notes:  # in a band above the data, where the text covers no step
            headroom(ax, top=0.04 + 0.05 * len(notes))
            ax.text(0.02, 0.98, "\n".join(notes), transform=ax.transAxes, fontsize=8,
                    color="#b30000" if unsolved else "#444444", va="top")
    fig.legend(list(legend_entries.values()), list(legend_entries), loc="outside lower center",
               ncol=min(4 if ncols > 1 else 3, len(legend_entries)), fontsize=8.5, frameon=False)
    fig.suptitle("Pebbling sandwich: certified lower bound ≤ optimum ≤ schedules")
    return save_png(fig, path)


def _fmt(x: int | None) -> str:
    return "?" if x is None else str(x)


def sandwich_table(data: SandwichFigure) -> tuple[tuple[str, ...], list[list[Any]]]:
    """The figure's numbers as a table: :data:`SANDWICH_TABLE_HEADER` and one row per
    (instance, M) — ints, None where unknown, an undecided optimum as its bracket
    ``"[lower, upper] (bracket)"``, the schedules as ``"name cost, …"`` and the note ``"ok"``
    or ``"verdict: detail"``."""
    rows: list[list[Any]] = []
    for p in data.points():
        schedules = ", ".join(f"{k} {v}" for k, v in sorted(p.schedules.items())) or "—"
        optimum: Any = p.optimum
        if not p.decided and p.bracket is not None and p.bracket != (None, None):
            optimum = f"[{_fmt(p.bracket[0])}, {_fmt(p.bracket[1])}] (bracket)"
        rows.append([data.panel_title(p.label), p.M, p.explicit, p.hong_kung, p.certified,
                     p.trivial, optimum, schedules,
                     "ok" if p.verdict == Status.PROVED.value else f"{p.verdict}: {p.detail}"])
    return SANDWICH_TABLE_HEADER, rows


def sandwich_data(*, quick: bool = False, labels: Sequence[str] | None = None,
                  max_M_count: int | None = None, time_limit: float | None = None,
                  timeout_ms: int = 20_000,
                  max_states: int | None = FIGURE_MAX_STATES) -> SandwichFigure:
    """Compute the sandwich rows of :mod:`attnio.proofs.sandwich` for the figure's instances.

    Each row is :func:`attnio.proofs.sandwich.sandwich_row` — explicit lower bound, Hong–Kung
    partition bound M·(P(G, 2M) − 1) (z3), exact optimum (A*, replayed) and the replayed
    algorithm schedules. Infeasible M are left out; an undecided or violating row keeps the
    values it has and says so in its verdict and detail.

    Parameters
    ----------
    quick : bool
        Only the first two instances.
    labels : sequence of str, optional
        Instance labels (default :data:`SANDWICH_FIGURE_INSTANCES`).
    max_M_count : int, optional
        Keep only this many of each instance's largest M (the small M are the slow searches).
    max_states : int, optional
        Budget of the pebbling search per row in stored states (default
        :data:`FIGURE_MAX_STATES`; None: the solver's default). A count, so the figure is the
        same under any machine load; an M it does not settle is drawn as its bracket.
    time_limit : float, optional
        A clock on the search too, in seconds (default None: none). With a clock, which M come
        out as brackets depends on the machine's load.
    timeout_ms : int
        Each z3 call of the partition bound (ms; on these DAGs each answers in milliseconds).

    Returns
    -------
    SandwichFigure
    """
    wanted = list(labels or SANDWICH_FIGURE_INSTANCES)[: 2 if quick else None]
    # One label may appear in both lists (default and deep Ms): draw the union of its Ms.
    known: dict[str, Instance] = {}
    cache_sizes: dict[str, set[int]] = {}
    for inst in (*DEFAULT_INSTANCES, *DEEP_INSTANCES):
        known.setdefault(inst.label, inst)
        cache_sizes.setdefault(inst.label, set()).update(inst.Ms)
    rows: list[SandwichRow] = []
    vertices: dict[str, int] = {}
    trivial: dict[str, int | None] = {}
    for label in wanted:
        if label not in known:
            raise InvalidInputError(f"sandwich instance {label!r} is unknown; known: {', '.join(known)}")
        inst = known[label]
        graph = inst.build()
        vertices[label], trivial[label] = graph.number_of_nodes(), trivial_bound(inst)
        Ms = sorted(cache_sizes[label])
        if max_M_count is not None:
            Ms = Ms[-max_M_count:]  # the largest M are the fast ones
        for M in Ms:
            row = sandwich_row(inst, graph, M, timeout_ms=timeout_ms, time_limit=time_limit,
                               schedules_fn=_schedules, max_states=max_states)
            if _verdict(row) != "infeasible":
                rows.append(row)
    return SandwichFigure(tuple(rows), vertices, trivial)


def trivial_bound(inst: Instance) -> int | None:
    """The catalogue's trivial lower bound (every input read once, every output written once)
    for a matmul or attention-forward instance; None for other kinds.

    >>> trivial_bound(Instance("matmul 1x2x1", "matmul", {"m": 1, "k": 2, "p": 1}, (3,)))  # 4 inputs + 1 output
    5
    """
    if inst.kind == "matmul":
        sizes = {key: inst.sizes[key] for key in ("m", "k", "p")}
        return int(get_bound("matmul.trivial.lower").evaluate(**sizes))
    if inst.kind == "attention-forward":
        return int(get_bound("fwd.trivial.lower").evaluate(n=inst.sizes["n"], d=inst.sizes["d"]))
    return None


def _schedules(graph: nx.DiGraph, M: int) -> dict[str, list]:
    """The algorithm schedules of :mod:`attnio.graphs.schedules` as a plain dict."""
    return dict(algorithm_schedules(graph, M))
