r"""Figures of attnio: the pictures a researcher looks at before reading the proofs.

Every figure is drawn in two steps, so that what is plotted is always computed by the library
and the drawing can be tested on its own:

1. a *data* function calls the library (the bound catalogue, the dominance decision, the
   two-level memory simulator, the sandwich of the proofs package, the exact pebbling
   solver) and returns a frozen dataclass of plain Python numbers and strings;
2. a *plot* function draws that dataclass and returns a :class:`matplotlib.figure.Figure`
   (saved as PNG when ``path`` is given).

matplotlib is imported lazily, inside the plot functions, and only its object-oriented API
is used (no ``pyplot`` state): PNGs are rendered by the Agg canvas, and in a notebook the
returned Figure displays inline.

Figures
-------
=========================  =======================================  ===============================
figure                     data                                     plot
=========================  =======================================  ===============================
phase diagram (Thm 1.1)    :func:`phase_diagram_data`               :func:`plot_phase_diagram`
I/O against M              :func:`io_curves_data`                   :func:`plot_io_curves`
FLOPs against M            :func:`flop_curves_data`                 :func:`plot_flop_curves`
pebbling sandwich          :func:`sandwich_data`                    :func:`plot_sandwich`
an optimal schedule        :func:`schedule_data`                    :func:`plot_schedule`
=========================  =======================================  ===============================

The phase diagram lives in exponent space: with :math:`n = d^{\beta}` and :math:`M = d^{\alpha}`,
every term :math:`n^a d^b M^c` of a bound grows like :math:`d^{a\beta + b + c\alpha}`, so the
dominant term of

.. math::

    Q_{\mathrm{bwd}}(n, d, M) = \Theta\!\left(\min\left\{\frac{n^2 d^2 + n d^3}{M},
    \frac{n^2 d + n d^2}{\sqrt{M}}\right\}\right)

(paper Thm 1.1, arXiv 2410.09397) is constant on polygons of the :math:`(\alpha, \beta)`
plane. The admissible region is :math:`1 \le \alpha \le 1 + \beta` (i.e. d ≤ M ≤ n·d).

Examples
--------
>>> data = PhaseDiagram(alphas=(1.0, 3.0), betas=(1.0, 3.0),
...                     dominant_term=(("n²d/√M", "n²d²/M"),) * 2,
...                     algorithm=(("small-cache", "flash1"),) * 2, crossover_alpha=2.0)
>>> fig = plot_phase_diagram(data)  # add path="phase.png" to save it
>>> fig.axes[0].get_title(), fig.axes[1].get_title()
('dominant term of Thm 1.1', 'algorithm the theory picks')
>>> data.label_at(2.5, 2.0)
('n²d²/M', 'flash1')
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "PhaseDiagram",
    "IOCurves",
    "FlopCurves",
    "SandwichRow",
    "ScheduleTimeline",
    "phase_diagram_data",
    "io_curves_data",
    "flop_curves_data",
    "sandwich_data",
    "schedule_data",
    "plot_phase_diagram",
    "plot_io_curves",
    "plot_flop_curves",
    "plot_sandwich",
    "plot_schedule",
    "png_bytes",
    "sweep_cache_sizes",
    "SANDWICH_FIGURE_INSTANCES",
    "smallest_optimal_schedule",
    "SMALLEST_DAG",
    "timeline_from_moves",
    "IO_LABEL",
    "M_LABEL",
]

IO_LABEL = "I/O (words moved)"
M_LABEL = "fast memory M (words)"
FLOP_LABEL = "FLOPs (floating-point operations)"

# One colour per algorithm / bound, used by every figure so that a reader learns it once.
_ALGORITHM_COLOURS: dict[str, str] = {
    "standard": "#7f7f7f",
    "flash1": "#1f77b4",
    "flash2": "#17becf",
    "square-tiling": "#d62728",
    "small-cache": "#d62728",
}
_DPI = 110
_LABEL_BOX = {"facecolor": "white", "alpha": 0.75, "lw": 0, "pad": 1.0}


# --------------------------------------------------------------------------------------------
# data classes: plain numbers, no sympy, no numpy scalars
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PhaseDiagram:
    """Regions of the exponent plane coloured by a label.

    ``dominant_term[i][j]`` and ``algorithm[i][j]`` belong to ``betas[i]`` (rows) and
    ``alphas[j]`` (columns). ``crossover_alpha`` is log_d of the derived crossover (2 for
    M = d²).
    """

    alphas: tuple[float, ...]
    betas: tuple[float, ...]
    dominant_term: tuple[tuple[str, ...], ...]
    algorithm: tuple[tuple[str, ...], ...]
    crossover_alpha: float
    title: str = "Attention backward, Thm 1.1 (arXiv 2410.09397)"

    def label_at(self, alpha: float, beta: float) -> tuple[str, str]:
        """``(dominant term, picked algorithm)`` at the grid point nearest to (α, β).

        >>> PhaseDiagram((1.0, 3.0), (2.0,), (("a", "b"),), (("x", "y"),), 2.0).label_at(2.9, 2)
        ('b', 'y')
        """
        j = min(range(len(self.alphas)), key=lambda j: abs(self.alphas[j] - alpha))
        i = min(range(len(self.betas)), key=lambda i: abs(self.betas[i] - beta))
        return self.dominant_term[i][j], self.algorithm[i][j]


@dataclass(frozen=True, slots=True)
class IOCurves:
    """Measured I/O of several algorithms against M, with catalogue bounds to overlay.

    ``measured[name][k]`` is the I/O (an int) of algorithm ``name`` at ``Ms[k]``, or ``None``
    where it does not run (M below its smallest tile). ``bounds[label][k]`` is a float.
    ``crossover_M`` is the measured M where Algorithm 6 and FlashAttention swap (or None).
    """

    n: int
    d: int
    pass_: str
    Ms: tuple[int, ...]
    measured: Mapping[str, tuple[int | None, ...]]
    bounds: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    crossover_M: int | None = None


@dataclass(frozen=True, slots=True)
class FlopCurves:
    """FLOP counts (ints) of several algorithms against M."""

    n: int
    d: int
    pass_: str
    Ms: tuple[int, ...]
    flops: Mapping[str, tuple[int | None, ...]]


@dataclass(frozen=True, slots=True)
class SandwichRow:
    """One instance of the sandwich: lower ≤ partition ≤ optimum ≤ every schedule.

    Values are ints, or ``None`` when unknown (e.g. the optimum is Undecided, or a schedule
    does not fit in M).
    """

    dag: str
    M: int
    lower_bound: int | None
    partition_bound: int | None
    optimum: int | None
    schedules: Mapping[str, int | None] = field(default_factory=dict)
    note: str = ""
    trivial_bound: int | None = None


@dataclass(frozen=True, slots=True)
class ScheduleTimeline:
    """A pebbling schedule replayed move by move.

    ``vertices`` are the row labels (topological order); ``moves[t]`` is ``(kind, vertex)``
    with kind in {"read", "write", "compute", "delete"}; ``states[t][v]`` is the pebbling of
    ``vertices[v]`` *after* move ``t``: 0 none, 1 red, 2 blue, 3 red and blue.
    """

    name: str
    M: int
    vertices: tuple[str, ...]
    moves: tuple[tuple[str, str], ...]
    states: tuple[tuple[int, ...], ...]
    io: int
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# plotting helpers
# --------------------------------------------------------------------------------------------


def _new_figure(width: float, height: float) -> "Figure":
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI, layout="constrained")


def png_bytes(fig: "Figure") -> bytes:
    """Render ``fig`` to PNG bytes in memory (no file is touched).

    >>> png_bytes(_new_figure(1, 1))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI)
    return buffer.getvalue()


def _save(fig: "Figure", path: str | Path | None) -> "Figure":
    """Write ``fig`` to ``path`` as PNG: rendered in memory, then written atomically by
    :func:`attnio.safe_io.write_bytes` (an existing regular file at ``path`` is replaced — the
    caller named it — but a symlink there is refused, never written through)."""
    if path is not None:
        from attnio.safe_io import write_bytes

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, png_bytes(fig), overwrite=True)
    return fig


def _colour(name: str, index: int) -> str:
    if name in _ALGORITHM_COLOURS:
        return _ALGORITHM_COLOURS[name]
    cycle = ["#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#ff7f0e"]
    return cycle[index % len(cycle)]


def _pretty_algorithm(name: str, pass_: str = "backward") -> str:
    names = {
        "standard": "standard (unfused)",
        "flash1": "FlashAttention-1",
        "flash2": "FlashAttention-2",
        "square-tiling": "Saha–Ye square tiling",
        "small-cache": "Algorithm 6 (small cache)" if pass_ == "backward" else "Saha–Ye small cache",
    }
    return names.get(name, name)


# --------------------------------------------------------------------------------------------
# (1) phase diagram
# --------------------------------------------------------------------------------------------


def plot_phase_diagram(data: PhaseDiagram, path: str | Path | None = None) -> "Figure":
    r"""Draw the exponent-space phase diagram: dominant term (left) and picked algorithm (right).

    Parameters
    ----------
    data : PhaseDiagram
        The labelled grid (from :func:`phase_diagram_data`).
    path : str or Path, optional
        Where to save the PNG.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; the admissible region :math:`1 \le \alpha \le 1 + \beta` is outlined and
        its complement hatched; the crossover :math:`\alpha = \log_d M^\ast` is dashed.
    """
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    fig = _new_figure(12.0, 5.0)
    panels = (("dominant term of Thm 1.1", data.dominant_term),
              ("algorithm the theory picks", data.algorithm))
    # Warm colours for the small-cache labels (sorted first), cool ones for the large-cache.
    palettes = (["#fdae61", "#d7191c", "#abd9e9", "#2c7bb6", "#ffffbf", "#a6d96a"],
                ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f"])
    alphas, betas = np.asarray(data.alphas, float), np.asarray(data.betas, float)
    a_lo, a_hi, b_lo, b_hi = alphas.min(), alphas.max(), betas.min(), betas.max()
    for k, ((subtitle, grid), palette) in enumerate(zip(panels, palettes)):
        ax = fig.add_subplot(1, 2, k + 1)
        labels = sorted({label for row in grid for label in row}, key=_label_order)
        index = {label: i for i, label in enumerate(labels)}
        values = np.array([[index[label] for label in row] for row in grid], dtype=float)
        cmap = ListedColormap(palette[: len(labels)])
        ax.imshow(values, origin="lower", aspect="auto", cmap=cmap, vmin=-0.5,
                  vmax=len(labels) - 0.5, extent=(a_lo, a_hi, b_lo, b_hi), interpolation="nearest")
        # Inadmissible: alpha < 1 (M < d) or alpha > 1 + beta (M > n d), hatched.
        hatch = dict(facecolor="white", alpha=0.75, edgecolor="#444444", hatch="//", lw=0)
        beta_fine = np.linspace(b_lo, b_hi, 200)
        left_edge = np.full_like(beta_fine, min(1.0, a_hi))
        right_edge = np.clip(1.0 + beta_fine, a_lo, a_hi)
        ax.fill_betweenx(beta_fine, a_lo, left_edge, where=left_edge > a_lo, **hatch)
        ax.fill_betweenx(beta_fine, right_edge, a_hi, where=right_edge < a_hi, **hatch)
        ax.plot([1.0, 1.0], [b_lo, b_hi], color="black", lw=1.2)
        beta_line = np.linspace(b_lo, b_hi, 2)
        ax.plot(1.0 + beta_line, beta_line, color="black", lw=1.2)
        ax.axvline(data.crossover_alpha, color="black", ls="--", lw=1.5)
        ax.text(data.crossover_alpha + 0.03, b_hi - 0.05 * (b_hi - b_lo),
                f"crossover M = {_power_of_d(data.crossover_alpha)}", fontsize=9, va="top")
        ax.set_xlim(a_lo, a_hi)
        ax.set_ylim(b_lo, b_hi)
        ax.set_xlabel("α = log_d M   (fast memory M = d^α words)")
        ax.set_ylabel("β = log_d n   (sequence length n = d^β)")
        ax.set_title(subtitle)
        # Only labels visible somewhere admissible go in the legend (strict interior: a label
        # that occurs only on the boundary lines is not visible).
        eps = 1e-9 + 0.5 * (a_hi - a_lo) / max(len(alphas) - 1, 1)
        admissible = ((alphas[None, :] > 1.0 + eps) & (alphas[None, :] < 1.0 + betas[:, None] - eps))
        shown = {label for i, row in enumerate(grid) for j, label in enumerate(row)
                 if admissible[i, j]}
        handles = [Patch(facecolor=cmap(i), edgecolor="black", label=label)
                   for i, label in enumerate(labels) if label in shown]
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="//",
                             label="inadmissible (M < d or M > n·d)"))
        ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)
    fig.suptitle(data.title)
    return _save(fig, path)


def _label_order(label: str) -> tuple[int, str]:
    # Small-cache labels first, so the colours read left-to-right like the plane.
    small = "√" in label or "small" in label or "Algorithm 6" in label
    return (0 if small else 1, label)


def _power_of_d(x: float) -> str:
    superscripts = {1: "", 2: "²", 3: "³"}
    if float(x).is_integer() and int(x) in superscripts:
        return "d" + superscripts[int(x)]
    return f"d^{x:g}"


def phase_diagram_data(
    alpha_range: tuple[float, float] = (0.5, 4.0),
    beta_range: tuple[float, float] = (0.5, 3.0),
    steps: int = 141,
) -> PhaseDiagram:
    r"""Label the (α, β) plane by the dominant term of Thm 1.1 and by the picked algorithm.

    The dominant term and the picked algorithm come from :mod:`attnio.symbolic`: the growth
    exponents of the catalogue's ``bwd.tight`` branches (the dominant term is the monomial of
    the smaller branch with the largest exponent) and of the two backward upper bounds
    ``bwd.flash1.upper`` and ``bwd.alg6.upper`` (the algorithm with the smaller exponent;
    FlashAttention on ties). The crossover line is log_d of the derived crossover.

    Parameters
    ----------
    alpha_range, beta_range : (float, float)
        The window of the plane (α = log_d M, β = log_d n).
    steps : int
        Grid points per axis (≥ 2).

    Returns
    -------
    PhaseDiagram
    """
    import numpy as np
    import sympy as sp

    from attnio.symbolic.catalogue import get_bound
    from attnio.symbolic.crossovers import crossover
    from attnio.symbolic.dominance import growth_exponent
    from attnio.symbolic.symbols import alpha, beta

    if steps < 2:
        from attnio.exceptions import InvalidInputError

        raise InvalidInputError(f"steps={steps} must be at least 2")
    alphas = np.linspace(alpha_range[0], alpha_range[1], steps)
    betas = np.linspace(beta_range[0], beta_range[1], steps)
    A, B = np.meshgrid(alphas, betas)  # rows: beta, columns: alpha

    def on_grid(bound_or_expr: Any) -> Any:
        exponent = growth_exponent(bound_or_expr).expr
        return np.broadcast_to(
            np.asarray(sp.lambdify((alpha, beta), exponent, "numpy")(A, B), dtype=float), A.shape)

    # Dominant term: the smaller branch of Thm 1.1, then its fastest-growing monomial.
    tight = get_bound("bwd.tight")
    branch_exponents = np.stack([on_grid(b) for b in tight.branches])
    chosen_branch = np.argmin(branch_exponents, axis=0)
    term_labels: list[list[str]] = []
    term_exponents = []
    for branch in tight.branches:
        terms = sp.Add.make_args(sp.expand(branch))
        term_labels.append([_monomial_label(t) for t in terms])
        term_exponents.append(np.stack([on_grid(t) for t in terms]))
    dominant = [[term_labels[chosen_branch[i, j]][
                    int(np.argmax(term_exponents[chosen_branch[i, j]][:, i, j]))]
                 for j in range(steps)] for i in range(steps)]
    # Picked algorithm: the backward upper bound with the smaller exponent (FlashAttention on
    # a tie, i.e. on the crossover line itself).
    candidates = {"FlashAttention backward": "bwd.flash1.upper",
                  "Algorithm 6 (small cache)": "bwd.alg6.upper"}
    exps = {label: on_grid(bound_id) for label, bound_id in candidates.items()}
    flash, alg6 = exps["FlashAttention backward"], exps["Algorithm 6 (small cache)"]
    picked = np.where(alg6 < flash - 1e-12, "Algorithm 6 (small cache)", "FlashAttention backward")
    crossover_alpha = float(growth_exponent(crossover(tight).solution).expr)
    return PhaseDiagram(
        alphas=tuple(float(a) for a in alphas), betas=tuple(float(b) for b in betas),
        dominant_term=tuple(tuple(row) for row in dominant),
        algorithm=tuple(tuple(str(x) for x in row) for row in picked),
        crossover_alpha=crossover_alpha,
    )


def _monomial_label(term: Any) -> str:
    """``d**2*n**2/M`` → ``n²d²/M`` (a monomial in n, d, M as a reader writes it)."""
    import sympy as sp

    from attnio.symbolic.symbols import M, d, n

    powers = term.as_powers_dict()
    superscript = {1: "", 2: "²", 3: "³", 4: "⁴"}

    def factor(symbol: Any, name: str) -> str:
        e = powers.get(symbol, 0)
        return "" if e == 0 else name + superscript.get(int(e), f"^{e}")

    numerator = factor(n, "n") + factor(d, "d")
    e_M = -powers.get(M, 0)
    denominator = {0: "", 1: "/M"}.get(e_M, "/√M" if e_M == sp.Rational(1, 2) else f"/M^{e_M}")
    return (numerator or "1") + denominator


# --------------------------------------------------------------------------------------------
# (2) I/O against M
# --------------------------------------------------------------------------------------------


def plot_io_curves(data: IOCurves, path: str | Path | None = None, *, ax: Any = None) -> "Figure":
    """Draw measured I/O against M (log-log): one solid line per algorithm, bounds dashed.

    The measured crossover (if any) is a vertical dotted line and M = d² a grey band line.

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
    fig = _new_figure(8.0, 6.4) if ax is None else ax.figure
    if ax is None:
        ax = fig.add_subplot(1, 1, 1)
    for k, (name, values) in enumerate(data.measured.items()):
        points = [(m, v) for m, v in zip(data.Ms, values) if v is not None]
        if not points:
            continue
        xs, ys = zip(*points)
        ax.plot(xs, ys, marker="o", ms=3.5, lw=1.8, color=_colour(name, k),
                label=f"{_pretty_algorithm(name, data.pass_)} (measured)")
    for k, (label, values) in enumerate(data.bounds.items()):
        points = [(m, v) for m, v in zip(data.Ms, values) if v is not None and v > 0]
        if not points:
            continue
        xs, ys = zip(*points)
        ax.plot(xs, ys, ls="--", lw=1.3, color=["black", "#8c564b", "#9467bd", "#2ca02c"][k % 4],
                label=label)
    d_squared = data.d * data.d
    ax.axvline(d_squared, color="#555555", lw=2.5, alpha=0.35)
    ax.annotate(f"M = d² = {d_squared:,}", xy=(d_squared, 0.97), xycoords=("data", "axes fraction"),
                ha="right", va="top", rotation=90, fontsize=9, color="#333333",
                bbox=_LABEL_BOX)
    if data.crossover_M is not None:
        ax.axvline(data.crossover_M, color="black", ls=":", lw=1.6)
        ax.annotate(f" measured crossover M = {data.crossover_M:,}",
                    xy=(data.crossover_M, 0.97), xycoords=("data", "axes fraction"),
                    ha="left", va="top", rotation=90, fontsize=9, bbox=_LABEL_BOX)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(M_LABEL)
    ax.set_ylabel(IO_LABEL)
    ax.set_title(f"{data.pass_.capitalize()} pass I/O, n = {data.n:,}, d = {data.d}"
                 + ("  (bounds dashed, drawn with constant 1)" if data.bounds else ""))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    return _save(fig, path)


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
        Simulator names; default every algorithm of the pass.
    bounds : sequence of str, optional
        Catalogue ids to overlay; default the pass's FlashAttention and small-cache upper
        bounds and its tight bound.

    Returns
    -------
    IOCurves
        ``crossover_M``: the first M of an 8-per-doubling sweep at which FlashAttention-1 moves
        no more words than the small-cache algorithm (Algorithm 6 backward, Saha–Ye forward),
        after the latter was strictly better; None if they do not swap.
    """
    from attnio.algorithms.simulation import measured_crossover, simulate
    from attnio.symbolic.catalogue import get_bound

    Ms = tuple(int(M) for M in Ms)
    if algorithms is None:
        algorithms = (("standard", "flash1", "flash2", "small-cache") if pass_ == "backward"
                      else ("standard", "flash1", "flash2", "square-tiling"))
    if bounds is None:
        bounds = (("bwd.flash1.upper", "bwd.alg6.upper", "bwd.tight") if pass_ == "backward"
                  else ("fwd.flash1.upper", "fwd.square_tiling.upper", "fwd.tight"))
    measured = {name: _clean_ints(_simulated(simulate, name, pass_, n, d, M, "io") for M in Ms)
                for name in algorithms}
    overlays: dict[str, tuple[float, ...]] = {}
    for bound_id in bounds:
        bound = get_bound(bound_id)
        values = []
        for M in Ms:
            value = bound.evaluate(check_range=False, n=n, d=d, M=M)
            values.append(float(value))
        overlays[f"{bound_id} = {_short_expr(bound)}"] = tuple(values)
    # The crossover is measured on a finer sweep (8 points per doubling) over the same range,
    # so that its marker does not snap to the plotted grid.
    fine = sweep_cache_sizes(n, d, per_octave=8, lo=min(Ms), hi=max(Ms))
    if pass_ == "backward":
        crossover = measured_crossover(n, d, fine)
    else:  # measured_crossover covers the backward pass only; same rule, forward algorithms
        crossover = _first_swap(simulate, "forward", n, d, fine, "flash1", "square-tiling")
    return IOCurves(n=n, d=d, pass_=pass_, Ms=Ms, measured=measured, bounds=overlays,
                    crossover_M=None if crossover is None else int(crossover))


# --------------------------------------------------------------------------------------------
# (3) FLOPs against M
# --------------------------------------------------------------------------------------------


def plot_flop_curves(data: FlopCurves, path: str | Path | None = None) -> "Figure":
    """Draw FLOPs against M (log x, linear y from 0): Algorithm 6 against FlashAttention.

    The right panel is the ratio of every algorithm's FLOPs to the first algorithm's.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = _new_figure(11.0, 4.6)
    ax, ax_ratio = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    names = list(data.flops)
    reference = data.flops[names[0]] if names else ()
    for k, name in enumerate(names):
        points = [(m, v) for m, v in zip(data.Ms, data.flops[name]) if v is not None]
        if not points:
            continue
        xs, ys = zip(*points)
        label = _pretty_algorithm(name, data.pass_)
        ax.plot(xs, ys, marker="o", ms=3.5, lw=1.8, color=_colour(name, k), label=label)
        ratio = [(m, v / r) for m, v, r in zip(data.Ms, data.flops[name], reference)
                 if v is not None and r]
        if ratio:
            rx, ry = zip(*ratio)
            ax_ratio.plot(rx, ry, marker="o", ms=3.5, lw=1.8, color=_colour(name, k), label=label)
    d_squared = data.d * data.d
    for a in (ax, ax_ratio):
        a.axvline(d_squared, color="#555555", lw=2.5, alpha=0.35)
        a.annotate(f"M = d² = {d_squared:,}", xy=(d_squared, 0.97),
                   xycoords=("data", "axes fraction"), ha="right", va="top", rotation=90,
                   fontsize=9, color="#333333", bbox=_LABEL_BOX)
        a.set_xscale("log", base=2)
        a.set_xlabel(M_LABEL)
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8, loc="best")
    ax.set_ylim(bottom=0)  # linear from zero: the gap is read at its true size
    ax.set_ylabel(FLOP_LABEL)
    ax.set_title(f"{data.pass_.capitalize()} FLOPs, n = {data.n:,}, d = {data.d}")
    ax_ratio.set_ylabel(f"FLOPs ÷ FLOPs of {_pretty_algorithm(names[0], data.pass_) if names else '—'}")
    ax_ratio.set_title("FLOP ratio (below 1 = fewer FLOPs)")
    return _save(fig, path)


def flop_curves_data(
    n: int, d: int, Ms: Sequence[int], *, algorithms: Sequence[str] = ("flash1", "small-cache"),
    pass_: str = "backward",
) -> FlopCurves:
    """Count the FLOPs of each algorithm at each M with the simulator (count mode).

    Returns
    -------
    FlopCurves
    """
    from attnio.algorithms.simulation import simulate

    Ms = tuple(int(M) for M in Ms)
    flops = {name: _clean_ints(_simulated(simulate, name, pass_, n, d, M, "flops") for M in Ms)
             for name in algorithms}
    return FlopCurves(n=n, d=d, pass_=pass_, Ms=Ms, flops=flops)


# --------------------------------------------------------------------------------------------
# (4) the pebbling sandwich
# --------------------------------------------------------------------------------------------


def plot_sandwich(rows: Sequence[SandwichRow], path: str | Path | None = None) -> "Figure":
    """Draw the sandwich per M on each tiny DAG as a step chart (one panel per DAG).

    Lower bound and partition bound are filled steps from below, the exact optimum a thick
    black step, each replayed algorithm schedule a marker line above it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    dags = list(dict.fromkeys(row.dag for row in rows))
    ncols = len(dags) if len(dags) <= 3 else 2
    nrows = math.ceil(len(dags) / max(ncols, 1))
    fig = _new_figure(max(9.0, 5.2 * ncols), 4.2 * nrows + 1.4)
    legend_entries: dict[str, Any] = {}
    series = (("lower_bound", "explicit lower bound", "#9ecae1", "-"),
              ("partition_bound", "Hong–Kung partition bound M·(P(G,2M)−1)", "#3182bd", "-"),
              ("trivial_bound", "trivial bound: inputs + outputs (catalogue)", "#31a354", "--"),
              ("optimum", "exact optimum", "black", "-"))
    for k, dag in enumerate(dags):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        mine = sorted((r for r in rows if r.dag == dag), key=lambda r: r.M)
        Ms = [r.M for r in mine]
        for attr, label, colour, style in series:
            points = [(r.M, getattr(r, attr)) for r in mine if getattr(r, attr) is not None]
            if not points:
                continue
            xs, ys = zip(*points)
            width = 2.6 if attr == "optimum" else 1.8
            # Steps change only at the sampled M ("post": a value holds until the next sampled
            # M), so no step is drawn at an M that was never computed.
            ax.step(xs, ys, where="post", color=colour, lw=width, ls=style, label=label, zorder=3)
            if attr in ("lower_bound", "partition_bound"):
                ax.fill_between(xs, 0, ys, step="post", color=colour, alpha=0.25)
            else:
                ax.plot(xs, ys, "s", color=colour, ms=4, zorder=4)
        names = list(dict.fromkeys(name for r in mine for name in r.schedules))
        markers = ["^", "v", "D", "P", "X", "*"]
        for j, name in enumerate(names):
            points = [(r.M, r.schedules.get(name)) for r in mine if r.schedules.get(name) is not None]
            if not points:
                continue
            xs, ys = zip(*points)
            # Shrinking markers: schedules with equal costs stay visible on top of each other.
            ax.plot(xs, ys, marker=markers[j % len(markers)], ms=max(4, 10 - 2 * j), lw=1.0, ls=":",
                    color=_colour(name, j + 2), label=f"schedule: {name}", zorder=5)
        ax.set_xticks(Ms)
        ax.set_xlabel(M_LABEL)
        ax.set_ylabel(IO_LABEL)
        top = ax.get_ylim()[1]
        ax.set_ylim(-0.04 * top, top)  # bounds equal to 0 stay visible above the axis
        ax.set_title(dag)
        ax.grid(True, alpha=0.3)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend_entries.setdefault(label, handle)
        unsolved = [r.M for r in mine if r.optimum is None]
        if unsolved:
            ax.text(0.02, 0.12, "optimum undecided (search budget) at M = "
                    + ", ".join(map(str, unsolved)), transform=ax.transAxes, fontsize=8,
                    color="#b30000", va="bottom", bbox=_LABEL_BOX)
    fig.legend(list(legend_entries.values()), list(legend_entries), loc="outside lower center",
               ncol=min(4 if ncols > 1 else 3, len(legend_entries)), fontsize=8.5, frameon=False)
    fig.suptitle("Pebbling sandwich: lower bound ≤ partition bound ≤ optimum ≤ schedules")
    return _save(fig, path)


#: Sandwich instances drawn by :func:`sandwich_data` (labels of
#: :data:`attnio.proofs.sandwich.DEFAULT_INSTANCES` / ``DEEP_INSTANCES``); ``quick`` draws the first two.
SANDWICH_FIGURE_INSTANCES = ("matmul 1x2x1", "matmul 2x2x1", "matmul 2x2x2",
                             "attention forward n=2 d=1")


def sandwich_data(*, quick: bool = False, labels: Sequence[str] | None = None,
                  max_M_count: int | None = None, time_limit: float = 10.0,
                  timeout_ms: int = 20_000) -> list[SandwichRow]:
    """Compute the sandwich rows of :mod:`attnio.proofs.sandwich` for the figure's instances.

    Each row is :func:`attnio.proofs.sandwich.sandwich_row` — explicit lower bound, Hong–Kung
    partition bound M·(P(G, 2M) − 1) (z3), exact optimum (A*, replayed) and the replayed
    algorithm schedules — converted to plain ints, plus the catalogue's trivial lower bound
    (inputs read once, outputs written once) for matmul and attention-forward DAGs. Infeasible M are left out; an undecided
    or violating row keeps the values it has and says so in ``note``.

    Parameters
    ----------
    quick : bool
        Only the first two instances.
    labels : sequence of str, optional
        Instance labels (default :data:`SANDWICH_FIGURE_INSTANCES`).
    max_M_count : int, optional
        Keep only this many of each instance's largest M (the small M are the slow searches).
    time_limit, timeout_ms : float, int
        Budgets of the pebbling search (seconds) and of each z3 call (ms) per row.

    Returns
    -------
    list of SandwichRow
    """
    from attnio.proofs.sandwich import DEEP_INSTANCES, DEFAULT_INSTANCES, sandwich_row

    wanted = list(labels or SANDWICH_FIGURE_INSTANCES)[: 2 if quick else None]
    # One label may appear in both lists (default and deep Ms): draw the union of its Ms.
    known: dict[str, Any] = {}
    cache_sizes: dict[str, set[int]] = {}
    for inst in (*DEFAULT_INSTANCES, *DEEP_INSTANCES):
        known.setdefault(inst.label, inst)
        cache_sizes.setdefault(inst.label, set()).update(inst.Ms)
    rows: list[SandwichRow] = []
    for label in wanted:
        if label not in known:
            from attnio.exceptions import InvalidInputError

            raise InvalidInputError(f"sandwich instance {label!r} is unknown; known: {', '.join(known)}")
        inst = known[label]
        graph = inst.build()
        Ms = sorted(cache_sizes[label])
        if max_M_count is not None:
            Ms = Ms[-max_M_count:]  # the largest M are the fast ones
        for M in Ms:
            row = sandwich_row(inst, graph, M, timeout_ms=timeout_ms, time_limit=time_limit,
                               schedules_fn=_schedules_or_none)
            if row.status == "infeasible":
                continue
            rows.append(SandwichRow(
                dag=f"{inst.label} ({graph.number_of_nodes()} vertices)", M=int(M),
                lower_bound=_int_or_none(row.explicit), partition_bound=_int_or_none(row.hong_kung),
                optimum=_int_or_none(row.optimum), trivial_bound=_trivial_bound(inst),
                schedules={name: int(cost) for name, cost in row.schedules.items()},
                note="" if row.status == "ok" else f"{row.status}: {row.detail}"))
    return rows


def _trivial_bound(inst: Any) -> int | None:
    """The catalogue's trivial lower bound (every input read once, every output written once)
    for a matmul or attention-forward instance; None for other kinds."""
    from attnio.symbolic.catalogue import get_bound

    if inst.kind == "matmul":
        sizes = {key: inst.sizes[key] for key in ("m", "k", "p")}
        return int(get_bound("matmul.trivial.lower").evaluate(**sizes))
    if inst.kind == "attention-forward":
        return int(get_bound("fwd.trivial.lower").evaluate(n=inst.sizes["n"], d=inst.sizes["d"]))
    return None


def _schedules_or_none(graph: Any, M: int) -> dict[str, list]:
    """The algorithm schedules of :mod:`attnio.graphs.schedules` ({} while it is not installed)."""
    try:
        from attnio.graphs.schedules import algorithm_schedules
    except ImportError:
        return {}
    return dict(algorithm_schedules(graph, M))


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


# --------------------------------------------------------------------------------------------
# (5) one schedule, move by move
# --------------------------------------------------------------------------------------------


def plot_schedule(data: ScheduleTimeline, path: str | Path | None = None) -> "Figure":
    """Draw a pebbling schedule as a move timeline: rows are vertices, columns are moves.

    Each cell shows the pebbles of a vertex after a move (red = fast memory, blue = slow
    memory, purple = both); the move is marked in its column (R read, W write, C compute,
    D delete). The lower panel counts red pebbles against M and the cumulative I/O.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    steps = len(data.moves)
    rows = len(data.vertices)
    width = min(22.0, max(7.0, 0.28 * steps + 2.5))
    height = max(4.5, 0.32 * rows + 2.8)
    fig = _new_figure(width, height)
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
    ax.set_title(f"{data.name}: optimal schedule at M = {data.M} ({steps} moves, I/O = {data.io})")
    ax.legend(handles=[Patch(color=cmap(1), label="red (fast memory)"),
                       Patch(color=cmap(2), label="blue (slow memory)"),
                       Patch(color=cmap(3), label="red + blue")],
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, title="pebbles",
              title_fontsize=8)
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
    ax_count.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return _save(fig, path)


def _vertex_label(vertex: str, data: ScheduleTimeline) -> str:
    if vertex in data.inputs:
        return f"▸ {vertex}"
    if vertex in data.outputs:
        return f"{vertex} ◂"
    return vertex


def timeline_from_moves(
    name: str, vertices: Sequence[str], moves: Sequence[tuple[str, str]], M: int,
    inputs: Sequence[str], outputs: Sequence[str],
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
    for kind, vertex in moves:
        i = index[vertex]
        if kind == "read":
            state[i] |= 1
            io += 1
        elif kind == "write":
            state[i] |= 2
            io += 1
        elif kind == "compute":
            state[i] |= 1
        elif kind == "delete":
            state[i] &= 2  # deleting removes the red pebble (a blue one is never needed again)
        states.append(tuple(state))
    return ScheduleTimeline(name=name, M=M, vertices=tuple(vertices),
                            moves=tuple((str(k), str(v)) for k, v in moves),
                            states=tuple(states), io=io, inputs=tuple(inputs),
                            outputs=tuple(outputs))


#: (m, k, p) of the matmul DAG whose optimal schedule the report draws: the dot product of
#: length 2 (7 vertices), the smallest sandwich DAG whose optimum at its smallest M exceeds the
#: trivial bound — at M = 3 it must spill a partial product (write it, read it back).
#: (matmul 1×1×1 is smaller but its optimum is just read, read, compute, write.)
SMALLEST_DAG = (1, 2, 1)


def schedule_data(graph: Any, M: int, name: str = "DAG", *, time_limit: float = 20.0
                  ) -> ScheduleTimeline:
    """Solve the exact optimum of ``graph`` at ``M`` and return its schedule, move by move.

    The schedule is replayed through :func:`attnio.graphs.game.replay` (which raises on an
    illegal move) before it is drawn; vertices are listed in topological order.

    Raises
    ------
    attnio.exceptions.InfeasibleError
        When no schedule exists at this M, or the solver's answer is Undecided.
    """
    import networkx as nx

    from attnio.exceptions import InfeasibleError
    from attnio.graphs.exact import Optimal, solve_optimal
    from attnio.graphs.game import game_inputs, game_outputs, replay

    result = solve_optimal(graph, M, time_limit=time_limit)
    if not isinstance(result, Optimal):
        raise InfeasibleError(f"{name} at M={M}: no optimal schedule to draw "
                              f"({result.status}: {getattr(result, 'reason', '')})")
    # The drawing trusts nothing: the schedule is replayed by the game's own validator first.
    replayed = replay(graph, result.schedule, M)
    assert replayed.io == result.io, (replayed.io, result.io)  # the solver's certificate
    order = list(nx.lexicographical_topological_sort(graph))
    return timeline_from_moves(name, order, [tuple(m) for m in result.schedule], M,
                               inputs=game_inputs(graph), outputs=game_outputs(graph))


def smallest_optimal_schedule(time_limit: float = 20.0) -> ScheduleTimeline:
    """The optimal schedule of the smallest instructive DAG (:data:`SMALLEST_DAG`, a dot
    product of length 2) at the smallest M that admits a schedule.

    Returns
    -------
    ScheduleTimeline
    """
    from attnio.graphs.dags import matmul_dag
    from attnio.graphs.exact import min_cache_size

    m, k, p = SMALLEST_DAG
    graph = matmul_dag(m, k, p)
    return schedule_data(graph, min_cache_size(graph), f"matmul {m}×{k}×{p}",
                         time_limit=time_limit)


def _simulated(simulate: Any, name: str, pass_: str, n: int, d: int, M: int, what: str) -> Any:
    """One count of the simulator, or None where the algorithm cannot run at this M."""
    from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError

    try:
        result = simulate(name, pass_, n, d, M, execute=False)
    except (CacheOverflowError, InfeasibleError, InvalidInputError):
        return None  # M below the algorithm's smallest tile: no point, not a zero
    return getattr(result, what)


def _first_swap(simulate: Any, pass_: str, n: int, d: int, Ms: Sequence[int], large: str,
                small: str) -> int | None:
    """The first M at which ``large`` moves no more words than ``small``, after ``small`` was
    strictly better at a smaller M (the rule of ``attnio.algorithms.simulation.measured_crossover``)."""
    small_won = False
    for M in sorted(set(Ms)):
        io_large = _simulated(simulate, large, pass_, n, d, M, "io")
        io_small = _simulated(simulate, small, pass_, n, d, M, "io")
        if io_large is None or io_small is None:
            continue
        if io_small < io_large:
            small_won = True
        elif small_won:
            return int(M)
    return None


def _short_expr(bound: Any) -> str:
    """A bound's expression as a reader writes it: ``O(d²n²/M)``, ``Θ(min(…, …))``.

    >>> from attnio.symbolic.catalogue import get_bound
    >>> _short_expr(get_bound("bwd.flash1.upper"))
    'O(d²n²/M)'
    """
    text = str(bound.expr)
    for old, new in (("**2", "²"), ("**3", "³"), ("**4", "⁴"), ("sqrt(M)", "√M"), ("*", ""),
                     ("Min(", "min("), ("Max(", "max(")):
        text = text.replace(old, new)
    prefix = {"tight": "Θ", "upper": "O", "lower": "Ω"}[bound.kind] if bound.asymptotic else ""
    return f"{prefix}({text})" if prefix else text


def sweep_cache_sizes(n: int, d: int, *, per_octave: int = 1, lo: int | None = None,
                      hi: int | None = None) -> list[int]:
    """Geometric cache sizes (``per_octave`` points per doubling) from ``lo`` (default d) to
    ``hi`` (default n·d), as ints inside d ≤ M ≤ n·d: the x axis of the I/O and FLOP figures.

    >>> sweep_cache_sizes(64, 8)
    [8, 16, 32, 64, 128, 256, 512]
    >>> sweep_cache_sizes(64, 8, per_octave=2, lo=64, hi=256)
    [64, 91, 128, 181, 256]
    """
    lo, hi = math.log2(lo or d), math.log2(hi or n * d)
    steps = int(round((hi - lo) * per_octave))
    sizes = {int(round(2 ** (lo + (hi - lo) * i / max(steps, 1)))) for i in range(steps + 1)}
    return sorted(m for m in sizes if d <= m <= n * d)


def _clean_ints(values: Iterable[Any]) -> tuple[int | None, ...]:
    """Python ints (or None) from whatever the library returned (ints, numpy ints, None)."""
    out: list[int | None] = []
    for v in values:
        out.append(None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v))
    return tuple(out)
