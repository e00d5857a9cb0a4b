r"""I/O against M: the words each tiled algorithm moves under a two-level memory of M words,
with catalogue bounds overlaid and the measured crossover marked.

This is the one drawing of measured I/O in attnio: the report, the notebooks and
``attnio simulate --plot`` (:func:`attnio.commands.simulate.plot_runs`, through
:func:`io_curves_from_runs`) all call :func:`plot_io_curves`.

The measured crossover is :func:`attnio.algorithms.simulation.measured_crossover` for both
passes (FlashAttention-1 against Algorithm 6 backward, against Saha–Ye square tiling
forward): the exact M where the cheaper algorithm swaps, bisected on exact counts — the same
number ``attnio simulate --crossover`` prints.

Examples
--------
>>> data = IOCurves(64, 8, "backward", (64, 256), {"flash1": (9000, 3000)},
...                 {"bound": (8000.0, 2000.0)}, crossover_M=128)
>>> ax = plot_io_curves(data).axes[0]
>>> ax.get_xlabel(), [t.get_text() for t in ax.get_legend().get_texts()]
('fast memory M (words)', ['FlashAttention-1 (measured)', 'bound', 'M = d² = 64',
                           'measured crossover M = 128'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from attnio.algorithms.registry import PASSES, get_algorithm, selection
from attnio.algorithms.simulation import measured_crossover
from attnio.reporting.figure_quality import place_legend_or_band
from attnio.reporting.style import (
    IO_LABEL,
    M_LABEL,
    algorithm_colour,
    algorithm_label,
    clean_ints,
    new_figure,
    save_png,
    short_expr,
    simulated,
    sweep_cache_sizes,
)
from attnio.symbolic.catalogue import get_bound

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["IOCurves", "io_curves_data", "io_curves_from_runs", "plot_io_curves",
           "DEFAULT_ALGORITHMS", "SMALL_CACHE"]

#: The algorithms the figure draws by default, per pass.
#: (the registry's ``main`` selection).
DEFAULT_ALGORITHMS = {pass_: selection("main", pass_) for pass_ in PASSES}
#: The small-cache algorithm whose swap with FlashAttention-1 is the measured crossover
#: (the registry's ``crossover`` selection).
SMALL_CACHE = {pass_: selection("crossover", pass_)[0] for pass_ in PASSES}
_BOUND_COLOURS = ("black", "#8c564b", "#9467bd", "#2ca02c")


@dataclass(frozen=True, slots=True)
class IOCurves:
    """Measured I/O of several algorithms against M, with catalogue bounds to overlay.

    ``measured[name][k]`` is the I/O (an int) of algorithm ``name`` at ``Ms[k]``, or ``None``
    where it does not run (M below its smallest tile). ``bounds[label][k]`` is a float (or
    None where unknown). ``crossover_M`` is the measured M where the two algorithms named in
    ``crossover_label`` swap (or None).
    """

    n: int
    d: int
    pass_: str
    Ms: tuple[int, ...]
    measured: Mapping[str, tuple[int | None, ...]]
    bounds: Mapping[str, tuple[float | None, ...]] = field(default_factory=dict)
    crossover_M: int | None = None
    crossover_label: str = "measured crossover"
    title: str | None = None


def plot_io_curves(data: IOCurves, path: str | Path | None = None, *, ax: Any = None) -> "Figure":
    """Draw measured I/O against M (log-log): one solid line per algorithm, bounds dashed.

    The measured crossover (if any) is a vertical dotted line at the bisected M itself
    (``crossover_M``, not a grid point near it) and M = d² a grey band line, both named in
    the legend, which goes where it covers no curve
    (:func:`~attnio.reporting.figure_quality.place_legend_or_band`).

    Parameters
    ----------
    data : IOCurves
    path : str or Path, optional
        Where to save the PNG.
    ax : matplotlib Axes, optional
        Draw into this axes (its figure is returned and nothing is saved unless ``path``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = new_figure(8.0, 6.4) if ax is None else ax.figure
    if ax is None:
        ax = fig.add_subplot(1, 1, 1)
    for k, (name, values) in enumerate(data.measured.items()):
        points = [(m, v) for m, v in zip(data.Ms, values) if v is not None]
        if not points:
            continue
        xs, ys = zip(*points)
        ax.plot(xs, ys, marker="o", ms=3.5, lw=1.8, color=algorithm_colour(name, k),
                label=f"{algorithm_label(name, data.pass_)} (measured)")
    for k, (label, bound_values) in enumerate(data.bounds.items()):
        bound_points = [(m, v) for m, v in zip(data.Ms, bound_values) if v is not None and v > 0]
        if not bound_points:
            continue
        xs, ys = zip(*bound_points)
        ax.plot(xs, ys, ls="--", lw=1.3, color=_BOUND_COLOURS[k % len(_BOUND_COLOURS)],
                label=label)
    # The vertical lines are named in the legend (a text beside them would cross curves or
    # the other line: they are ≈ 0.2 octave apart at n = 4096, d = 64).
    d_squared = data.d * data.d
    ax.axvline(d_squared, color="#555555", lw=2.5, alpha=0.35, label=f"M = d² = {d_squared:,}")
    if data.crossover_M is not None:
        # drawn at the bisected M itself (not at a grid point near it)
        ax.axvline(data.crossover_M, color="black", ls=":", lw=1.6,
                   label=f"{data.crossover_label} M = {data.crossover_M:,}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(M_LABEL)
    ax.set_ylabel(IO_LABEL)
    ax.set_title(data.title or (
        f"{data.pass_.capitalize()} pass I/O, n = {data.n:,}, d = {data.d}"
        + ("  (bounds dashed, drawn with constant 1)" if data.bounds else "")))
    ax.grid(True, which="major", alpha=0.3)
    place_legend_or_band(ax, fontsize=8, framealpha=0.9)
    return save_png(fig, path)


def io_curves_data(
    n: int,
    d: int,
    Ms: Sequence[int],
    *,
    pass_: str = "backward",
    algorithms: Sequence[str] | None = None,
    bounds: Sequence[str] | None = None,
) -> IOCurves:
    """Simulate every algorithm of a pass at each M (count mode) and evaluate the bounds.

    Parameters
    ----------
    n, d : int
        Sequence length and head dimension.
    Ms : sequence of int
        Fast-memory sizes in words (increasing).
    pass_ : {"backward", "forward"}
    algorithms : sequence of str, optional
        Simulator names; default :data:`DEFAULT_ALGORITHMS` of the pass.
    bounds : sequence of str, optional
        Catalogue ids to overlay; default the registry's bounds of FlashAttention-1 and of the
        pass's small-cache algorithm, and the pass's tight bound.

    Returns
    -------
    IOCurves
        ``crossover_M``: :func:`attnio.algorithms.simulation.measured_crossover` of
        FlashAttention-1 and :data:`SMALL_CACHE` of the pass, on an 8-per-doubling grid over
        the same range (bisected on exact counts); None if they do not swap.
    """
    Ms = tuple(int(M) for M in Ms)
    small = SMALL_CACHE[pass_]
    if algorithms is None:
        algorithms = DEFAULT_ALGORITHMS[pass_]
    if bounds is None:
        bounds = (get_algorithm("flash1").bound_id(pass_), get_algorithm(small).bound_id(pass_),
                  "bwd.tight" if pass_ == "backward" else "fwd.tight")
    measured = {name: clean_ints(simulated(name, pass_, n, d, M, "io") for M in Ms)
                for name in algorithms}
    overlays: dict[str, tuple[float | None, ...]] = {}
    for bound_id in bounds:
        bound = get_bound(bound_id)
        overlays[f"{bound_id} = {short_expr(bound)}"] = tuple(
            float(bound.evaluate(check_range=False, n=n, d=d, M=M)) for M in Ms)
    # The grid only brackets the swap (bisection finds the exact M); 8 points per doubling
    # keeps each bracket narrow.
    fine = sweep_cache_sizes(n, d, per_octave=8, lo=min(Ms), hi=max(Ms))
    crossover = measured_crossover(n, d, fine, pass_=pass_, large="flash1", small=small)
    return IOCurves(n=n, d=d, pass_=pass_, Ms=Ms, measured=measured, bounds=overlays,
                    crossover_M=crossover)


def io_curves_from_runs(payload: Mapping[str, Any], *, n: int, d: int) -> IOCurves:
    """The :class:`IOCurves` of an ``attnio simulate`` JSON document
    (:func:`attnio.commands.simulate.runs_payload`): each algorithm's measured I/O, its catalogue
    bound (``formula``, drawn once per bound id) and the bisected ``crossover_M``.

    >>> runs = [{"algorithm": "flash1", "pass": "backward", "M": 256, "io": 10, "formula": 8},
    ...         {"algorithm": "flash2", "pass": "backward", "M": 256, "io": 9, "formula": 8}]
    >>> data = io_curves_from_runs({"runs": runs, "crossover_M": None}, n=64, d=8)
    >>> dict(data.measured), dict(data.bounds)
    ({'flash1': (10,), 'flash2': (9,)}, {'bwd.flash1.upper (catalogue)': (8.0,)})
    """
    runs = list(payload["runs"])
    pass_ = runs[0]["pass"] if runs else "backward"
    Ms = tuple(sorted({int(r["M"]) for r in runs}))
    names = list(dict.fromkeys(r["algorithm"] for r in runs))
    measured: dict[str, tuple[int | None, ...]] = {}
    overlays: dict[str, tuple[float | None, ...]] = {}
    for name in names:
        at = {int(r["M"]): r for r in runs if r["algorithm"] == name}
        measured[name] = tuple(None if M not in at or at[M]["io"] is None else int(at[M]["io"])
                               for M in Ms)
        key = f"{get_algorithm(name).bound_id(pass_)} (catalogue)"
        if key not in overlays:
            overlays[key] = tuple(None if M not in at or at[M]["formula"] is None
                                  else float(at[M]["formula"]) for M in Ms)
    pair = payload.get("crossover_pair") or []
    return IOCurves(n=n, d=d, pass_=pass_, Ms=Ms, measured=measured, bounds=overlays,
                    crossover_M=payload.get("crossover_M"),
                    crossover_label=f"crossover {' vs '.join(pair)}".rstrip() if pair
                    else "measured crossover",
                    title=f"attnio simulate: {pass_} pass I/O, n = {n:,}, d = {d}")
