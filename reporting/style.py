r"""What every figure of attnio shares: axis labels, the figure factory, PNG rendering, the
algorithm names and colours (from :mod:`attnio.algorithms.registry`), and the sweep of cache
sizes.

Every figure is drawn in two steps, so that what is plotted is always computed by the library
and the drawing can be tested on its own:

1. a *data* function calls the library and returns a frozen dataclass of plain Python numbers
   and strings;
2. a *plot* function draws that dataclass and returns a :class:`matplotlib.figure.Figure`
   (saved as PNG when ``path`` is given, through :mod:`attnio.safe_io`).

matplotlib is an optional dependency (the ``plots`` extra): it is imported inside
:func:`new_figure` and the plot functions only, and only its object-oriented API is used (no
``pyplot`` state). PNGs are rendered by the Agg canvas, in memory.

Examples
--------
>>> algorithm_label("small-cache", "backward"), algorithm_label("small-cache", "forward")
('Algorithm 6 (small cache)', 'Saha–Ye small cache')
>>> algorithm_colour("flash1", 0), algorithm_colour("not-registered", 1)
('#1f77b4', '#9467bd')
>>> png_bytes(new_figure(1, 1))[:8] == b"\x89PNG\r\n\x1a\n"
True
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from attnio.algorithms import registry
from attnio.algorithms.simulation import simulate
from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError
from attnio.safe_io import write_bytes

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "IO_LABEL",
    "M_LABEL",
    "FLOP_LABEL",
    "DPI",
    "LABEL_BOX",
    "BACKGROUND_GID",
    "headroom",
    "new_figure",
    "png_bytes",
    "figure_bytes",
    "save_png",
    "FIGURE_FORMATS",
    "figure_format",
    "render_figure",
    "algorithm_label",
    "algorithm_colour",
    "sweep_cache_sizes",
    "clean_ints",
    "simulated",
    "short_expr",
]

IO_LABEL = "I/O (words moved)"
M_LABEL = "fast memory M (words)"
FLOP_LABEL = "FLOPs (floating-point operations)"
DPI = 110
#: The white box behind text drawn over lines.
LABEL_BOX = {"facecolor": "white", "alpha": 0.75, "lw": 0, "pad": 1.0}
#: The ``gid`` of shading that marks a region rather than data (the inadmissible part of the
#: phase diagram): :mod:`attnio.reporting.figure_quality` lets a legend lie on it.
BACKGROUND_GID = "attnio-background"
#: Colours of names the registry does not fix (schedules, unregistered names), by position.
_CYCLE = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#ff7f0e")


def new_figure(width: float, height: float) -> "Figure":
    """A constrained-layout :class:`matplotlib.figure.Figure` of ``width`` × ``height`` inches."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def headroom(ax: Any, top: float = 0.0, bottom: float = 0.0) -> None:
    """Widen the y axis of ``ax`` so that its top ``top`` and bottom ``bottom`` fractions hold
    no data: a band where a legend or a text label covers nothing (linear or log scale).

    >>> fig = new_figure(2, 2); ax = fig.add_subplot(); _ = ax.plot([1, 2], [0, 10])
    >>> _ = ax.set_ylim(0, 10); headroom(ax, top=0.5); [float(y) for y in ax.get_ylim()]
    [0.0, 20.0]
    """
    lo, hi = (float(v) for v in ax.get_ylim())
    log = ax.get_yscale() == "log"
    a, b = (math.log10(lo), math.log10(hi)) if log else (lo, hi)
    span = (b - a) / max(1.0 - top - bottom, 0.05)
    new_lo, new_hi = a - bottom * span, a - bottom * span + span
    ax.set_ylim(*((10.0 ** new_lo, 10.0 ** new_hi) if log else (new_lo, new_hi)))


def png_bytes(fig: "Figure") -> bytes:
    """Render ``fig`` to PNG bytes in memory (no file is touched)."""
    return figure_bytes(fig, "png")


def figure_bytes(fig: "Figure", fmt: str = "png") -> bytes:
    """Render ``fig`` in memory as ``fmt`` (``png``, ``pdf`` or ``svg``: matplotlib's names).

    >>> figure_bytes(new_figure(1, 1), "svg").lstrip()[:5]
    b'<?xml'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=DPI)
    return buffer.getvalue()


#: The formats a figure file may have, by extension (matplotlib's names).
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


def figure_format(path: str | Path, what: str = "figure file") -> str:
    """The format of a figure file, from its extension: ``png``, ``pdf`` or ``svg``.

    Any other extension is refused (InvalidInputError): the bytes always match the name, so
    ``g.pdf`` is a PDF and ``g.bmp`` is an error, never PNG bytes under another name.

    >>> figure_format("g.PDF"), figure_format("io.svg")
    ('pdf', 'svg')
    >>> figure_format("g.bmp", "--plot")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --plot 'g.bmp' must end in .png, .pdf or .svg
    """
    fmt = FIGURE_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InvalidInputError(f"{what} {str(path)[:80]!r} must end in .png, .pdf or .svg")
    return fmt


def render_figure(draw: "Callable[[], Figure]", path: str | Path, what: str = "--plot") -> bytes:
    """Draw a figure (``draw()``) and render it in the format of ``path``'s extension.

    Values a float cannot hold (a count of a 300-digit sequence length, beyond ~1.8e308) cannot
    be drawn: that is an InvalidInputError naming ``what``, raised before anything is written
    — callers render before they print, so no table is left behind an error.
    """
    fmt = figure_format(path, what)
    try:
        return figure_bytes(draw(), fmt)
    except OverflowError:
        raise InvalidInputError(
            f"{what} {str(path)[:80]!r}: the values are too large to draw (a plot holds floats, "
            "at most ~1.8e308); drop the plot or use smaller sizes") from None


def save_png(fig: "Figure", path: str | Path | None) -> "Figure":
    """Write ``fig`` to ``path`` (when given) and return it; the format follows the extension
    (.png, .pdf or .svg: :func:`figure_format`; another extension is refused).

    Rendered in memory, then written atomically by :func:`attnio.safe_io.write_bytes`: an
    existing regular file at ``path`` is replaced — the caller named it — but a symlink there
    is refused, never written through.
    """
    if path is not None:
        path = Path(path)
        fmt = figure_format(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, figure_bytes(fig, fmt), overwrite=True)
    return fig


def algorithm_label(name: str, pass_: str = "backward") -> str:
    """The printed name of an algorithm in a pass (:func:`attnio.algorithms.registry.label`)."""
    return registry.label(name, pass_)


def algorithm_colour(name: str, index: int) -> str:
    """The registry's colour of ``name``; a name without one gets ``index``-th cycle colour."""
    return registry.colour(name) or _CYCLE[index % len(_CYCLE)]


def sweep_cache_sizes(n: int, d: int, *, per_octave: int = 1, lo: int | None = None,
                      hi: int | None = None) -> list[int]:
    """Geometric cache sizes (``per_octave`` points per doubling) from ``lo`` (default d) to
    ``hi`` (default n·d), as ints inside d ≤ M ≤ n·d: the x axis of the I/O and FLOP figures.

    >>> sweep_cache_sizes(64, 8)
    [8, 16, 32, 64, 128, 256, 512]
    >>> sweep_cache_sizes(64, 8, per_octave=2, lo=64, hi=256)
    [64, 91, 128, 181, 256]
    """
    lo_exp, hi_exp = math.log2(lo or d), math.log2(hi or n * d)
    steps = int(round((hi_exp - lo_exp) * per_octave))
    sizes = {int(round(2 ** (lo_exp + (hi_exp - lo_exp) * i / max(steps, 1))))
             for i in range(steps + 1)}
    return sorted(m for m in sizes if d <= m <= n * d)


def clean_ints(values: Iterable[Any]) -> tuple[int | None, ...]:
    """Python ints (or None) from whatever the library returned (ints, numpy ints, None).

    >>> clean_ints([3, None, float("nan")])
    (3, None, None)
    """
    out: list[int | None] = []
    for v in values:
        out.append(None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v))
    return tuple(out)


def simulated(name: str, pass_: str, n: int, d: int, M: int, what: str) -> Any:
    """One count of the simulator (``what`` is ``"io"`` or ``"flops"``), or None where the
    algorithm cannot run at this M (below its smallest tile: no point, not a zero).

    >>> simulated("flash1", "backward", 64, 8, 4, "io") is None
    True
    """
    try:
        result = simulate(name, pass_, n, d, M, execute=False)
    except (CacheOverflowError, InfeasibleError, InvalidInputError):
        return None
    return getattr(result, what)


def short_expr(bound: Any) -> str:
    """A bound's expression as a reader writes it: ``O(d²n²/M)``, ``Θ(min(…, …))``.

    >>> from attnio.symbolic.catalogue import get_bound
    >>> short_expr(get_bound("bwd.flash1.upper"))
    'O(d²n²/M)'
    """
    text = str(bound.expr)
    for old, new in (("**2", "²"), ("**3", "³"), ("**4", "⁴"), ("sqrt(M)", "√M"), ("*", ""),
                     ("Min(", "min("), ("Max(", "max(")):
        text = text.replace(old, new)
    prefix = {"tight": "Θ", "upper": "O", "lower": "Ω"}[bound.kind] if bound.asymptotic else ""
    return f"{prefix}({text})" if prefix else text
