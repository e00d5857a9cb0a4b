"""FLOPs against M: what Algorithm 6 pays in arithmetic for its smaller I/O.

The simulator counts FLOPs exactly (count mode); the left panel draws them from zero (the gap
is read at its true size), the right panel divides every algorithm by the first one.

Examples
--------
>>> data = FlopCurves(256, 32, "backward", (64, 1024),
...                   {"flash1": (10, 10), "small-cache": (8, 12)})
>>> [ax.get_title() for ax in plot_flop_curves(data).axes]
['Backward FLOPs, n = 256, d = 32', 'FLOP ratio (below 1 = fewer FLOPs)']
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from attnio.algorithms.registry import selection
from attnio.reporting.figure_quality import place_legend_or_band
from attnio.reporting.style import (
    FLOP_LABEL,
    M_LABEL,
    algorithm_colour,
    algorithm_label,
    clean_ints,
    new_figure,
    save_png,
    simulated,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["FlopCurves", "flop_curves_data", "plot_flop_curves"]


@dataclass(frozen=True, slots=True)
class FlopCurves:
    """FLOP counts (ints, or None where the algorithm cannot run) of several algorithms
    against M."""

    n: int
    d: int
    pass_: str
    Ms: tuple[int, ...]
    flops: Mapping[str, tuple[int | None, ...]]


def plot_flop_curves(data: FlopCurves, path: str | Path | None = None) -> "Figure":
    """Draw FLOPs against M (log x, linear y from 0): Algorithm 6 against FlashAttention.

    The right panel is the ratio of every algorithm's FLOPs to the first algorithm's.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = new_figure(11.0, 4.6)
    ax, ax_ratio = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    names = list(data.flops)
    reference = data.flops[names[0]] if names else ()
    for k, name in enumerate(names):
        points = [(m, v) for m, v in zip(data.Ms, data.flops[name]) if v is not None]
        if not points:
            continue
        xs, ys = zip(*points)
        label = algorithm_label(name, data.pass_)
        ax.plot(xs, ys, marker="o", ms=3.5, lw=1.8, color=algorithm_colour(name, k), label=label)
        ratio = [(m, v / r) for m, v, r in zip(data.Ms, data.flops[name], reference)
                 if v is not None and r]
        if ratio:
            rx, ry = zip(*ratio)
            ax_ratio.plot(rx, ry, marker="o", ms=3.5, lw=1.8, color=algorithm_colour(name, k), label=label)
    d_squared = data.d * data.d
    ax.set_ylim(bottom=0)  # linear from zero: the gap is read at its true size
    for a in (ax, ax_ratio):
        a.axvline(d_squared, color="#555555", lw=2.5, alpha=0.35, label=f"M = d² = {d_squared:,}")
        a.set_xscale("log", base=2)
        a.set_xlabel(M_LABEL)
        a.grid(True, alpha=0.3)
    ax.set_ylabel(FLOP_LABEL)
    ax.set_title(f"{data.pass_.capitalize()} FLOPs, n = {data.n:,}, d = {data.d}")
    ax_ratio.set_ylabel(f"FLOPs ÷ FLOPs of {algorithm_label(names[0], data.pass_) if names else '—'}")
    ax_ratio.set_title("FLOP ratio (below 1 = fewer FLOPs)")
    for a in (ax, ax_ratio):  # last: the layout is final once every label is set
        place_legend_or_band(a, fontsize=8, framealpha=0.9)
    return save_png(fig, path)


def flop_curves_data(
    n: int, d: int, Ms: Sequence[int], *, algorithms: Sequence[str] | None = None,
    pass_: str = "backward",
) -> FlopCurves:
    """Count the FLOPs of each algorithm at each M with the simulator (count mode).

    ``algorithms`` defaults to FlashAttention-1 and the pass's small-cache schedule of the
    measured crossover (the registry's ``crossover`` selection).

    Returns
    -------
    FlopCurves
    """
    if algorithms is None:

        algorithms = ("flash1", *selection("crossover", pass_))
    Ms = tuple(int(M) for M in Ms)
    flops = {name: clean_ints(simulated(name, pass_, n, d, M, "flops") for M in Ms)
             for name in algorithms}
    return FlopCurves(n=n, d=d, pass_=pass_, Ms=Ms, flops=flops)
