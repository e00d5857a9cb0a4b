r"""What a reviewer checks on a figure, read from its drawn artists: titles, axis labels,
legends that cover no data, text labels that collide with no curve.

:func:`check_figure` draws a :class:`matplotlib.figure.Figure` on an Agg canvas (in memory)
and reads the window extent, in display pixels, of every artist it judges:

1. **Titles and labels.** Every visible axes has a title (or the figure a suptitle), an x
   label and a y label; an axes whose x (y) axis is shared with an axes that carries the
   label needs none of its own (a column of panels labelled once). No title, label or text
   is cut by the figure's edge.
2. **Legends inside, off the data.** An axes' legend lies inside its axes and contains no
   point of that axes' data; a figure-level legend overlaps no axes at all (it sits beside
   the panels, so it covers nothing).
3. **Text labels off the curves.** Every non-empty text of an axes (``ax.text``,
   ``ax.annotate``) contains no point of that axes' data and overlaps no legend.

"Data" is sampled in display coordinates: every visible line (its segments interpolated
every 2 pixels, the steps of a step plot included, NaN gaps left out), every collection
(scatter markers, errorbars, the edges of filled areas) and every patch (a bar, a
rectangle); a point counts with its half line width or marker radius, and a box overlaps a
filled area when one of a 5 × 5 grid of its points lies inside it. Points clipped outside
their axes are not drawn and do not count. Two things are not data: images (a heatmap fills
its axes; where its legend may go is that figure's own test) and artists whose ``gid`` is
:data:`attnio.reporting.style.BACKGROUND_GID` (shading that marks a region, e.g. the
inadmissible part of the phase diagram, on which a legend may sit).

The figures of :mod:`attnio.reporting` place their legends with the same reading:
:func:`place_legend` keeps the first location the checker accepts, and
:func:`place_legend_or_band` opens a band above the data when no location is clear.

Examples
--------
>>> from attnio.reporting.style import new_figure
>>> fig = new_figure(4, 3)
>>> ax = fig.add_subplot()
>>> _ = ax.plot([0, 1, 2], [2, 1, 0], label="a line")
>>> ax.set_xlabel("x"); ax.set_ylabel("y")  # doctest: +ELLIPSIS
Text(...)
>>> figure_defects(fig)
['axes 1: no title (and no suptitle)', 'axes 1: labelled curves but no legend']
>>> _ = ax.set_title("t"); _ = ax.legend(loc="upper right")
>>> check_figure(fig).proved
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from attnio.reporting.style import BACKGROUND_GID, headroom
from attnio.results import Proved, Refuted

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["figure_defects", "check_figure", "data_points", "place_legend",
           "place_legend_or_band", "legend_cost", "SAMPLE_STEP_PX", "LEGEND_LOCATIONS"]

#: Spacing, in display pixels, of the points sampled along a drawn segment.
SAMPLE_STEP_PX = 2.0
#: Two boxes that share only this many pixels of border do not overlap (anti-aliasing).
_TOUCH_PX = 0.5


def check_figure(fig: "Figure") -> Proved | Refuted:
    """Proved when :func:`figure_defects` finds nothing; otherwise Refuted with the defects
    (a list of one-line strings) as the counterexample.

    >>> from attnio.reporting.style import new_figure
    >>> check_figure(new_figure(2, 2)).detail
    'no axes to read'
    """
    defects = figure_defects(fig)
    if defects:
        return Refuted({"defects": defects}, "; ".join(defects))
    return Proved("titled, labelled, legends and labels off the data"
                  if _visible_axes(fig) else "no axes to read")


def figure_defects(fig: "Figure") -> list[str]:
    """Every defect of ``fig`` a reviewer would reject, one line each (empty: none).

    The figure is drawn once on an Agg canvas (replacing a canvas that has no renderer, as a
    figure made without pyplot has); nothing is written anywhere.

    Returns
    -------
    list of str
        ``"axes 2 ('title'): legend covers 14 data points"`` and the like; ``axes k`` counts
        the visible axes from 1 in ``fig.axes`` order.
    """
    renderer = _draw(fig)
    suptitle = _suptitle(fig)
    defects: list[str] = []
    axes = _visible_axes(fig)
    boxes = {id(ax): ax.get_window_extent(renderer) for ax in axes}
    for text in _words(fig, axes):
        if not _inside(text.get_window_extent(renderer), fig.bbox):
            defects.append(f"text {text.get_text().strip()[:40]!r} cut by the figure's edge")
    for k, ax in enumerate(axes, start=1):
        name = f"axes {k}" + (f" ({ax.get_title()!r})" if ax.get_title() else "")
        if not (any(ax.get_title(loc) for loc in ("left", "center", "right")) or suptitle):
            defects.append(f"{name}: no title (and no suptitle)")
        for axis in ("x", "y"):
            if not _label_of(ax, axis, axes):
                defects.append(f"{name}: no {axis} label")
        points, radii, areas = data_points(ax, renderer)
        legend = ax.get_legend()
        legend_box = None
        if legend is not None and legend.get_visible():
            legend_box = legend.get_window_extent(renderer)
            if not _inside(legend_box, boxes[id(ax)]):
                defects.append(f"{name}: legend outside its axes")
            covered = _covered(legend_box, points, radii, areas)
            if covered:
                defects.append(f"{name}: legend covers {covered} data points")
        elif _labelled_curves(ax) and not fig.legends:
            defects.append(f"{name}: labelled curves but no legend")
        for text in ax.texts:
            if not text.get_visible() or not text.get_text().strip():
                continue
            box = text.get_window_extent(renderer)
            label = text.get_text().strip().splitlines()[0][:40]
            covered = _covered(box, points, radii, areas)
            if covered:
                defects.append(f"{name}: text {label!r} collides with {covered} data points")
            if legend_box is not None and _overlap(box, legend_box):
                defects.append(f"{name}: text {label!r} overlaps the legend")
    for legend in fig.legends:
        box = legend.get_window_extent(renderer)
        if any(_overlap(box, boxes[id(ax)]) for ax in axes):
            defects.append("figure legend overlaps an axes")
        if not _inside(box, fig.bbox):
            defects.append("figure legend outside the figure")
    return defects


def data_points(ax: Any, renderer: Any) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The drawn data of ``ax`` in display pixels: ``(points, radii, areas)``.

    ``points`` is an (N, 2) array sampled along every visible line, collection and patch
    (clipped to the axes), ``radii`` each point's half width (line width or marker size, in
    pixels) and ``areas`` the filled paths (display coordinates) of filled collections and
    patches. Images and artists with ``gid`` :data:`~attnio.reporting.style.BACKGROUND_GID`
    are left out.
    """
    px_per_pt = ax.figure.dpi / 72.0
    chunks: list[tuple[np.ndarray, float]] = []
    areas: list[Any] = []
    for line in ax.lines:
        if not _is_data(line):
            continue
        xy = _line_xy(line)
        display = line.get_transform().transform(xy)
        if line.get_linestyle() not in ("None", "none", "", " "):
            chunks.append((_densify(display), 0.5 * line.get_linewidth() * px_per_pt))
        if line.get_marker() not in (None, "None", "none", "", " "):
            chunks.append((display, 0.5 * line.get_markersize() * px_per_pt))
    for collection in ax.collections:
        if not _is_data(collection):
            continue
        offsets = np.asarray(collection.get_offsets(), dtype=float)
        sizes = collection.get_sizes() if hasattr(collection, "get_sizes") else []
        if len(offsets) and len(sizes):  # markers (scatter): one point per offset
            display = collection.get_offset_transform().transform(offsets)
            chunks.append((display, 0.5 * math.sqrt(float(np.max(sizes))) * px_per_pt))
            continue
        width = float(np.max(collection.get_linewidths())) if len(collection.get_linewidths()) else 1.0
        filled = _alpha_positive(collection.get_facecolor())
        transform = collection.get_transform()
        for path in collection.get_paths():
            display_path = transform.transform_path(path)
            chunks.append((_path_edges(display_path), 0.5 * width * px_per_pt))
            if filled:
                areas.append(display_path)
    for patch in ax.patches:
        if not _is_data(patch):
            continue
        display_path = patch.get_transform().transform_path(patch.get_path())
        chunks.append((_path_edges(display_path), 0.5 * patch.get_linewidth() * px_per_pt))
        if patch.get_fill() and _alpha_positive(patch.get_facecolor()):
            areas.append(display_path)
    if not chunks:
        return np.zeros((0, 2)), np.zeros(0), areas
    points = np.concatenate([c for c, _ in chunks])
    radii = np.concatenate([np.full(len(c), r) for c, r in chunks])
    keep = np.isfinite(points).all(axis=1)
    frame = ax.get_window_extent(renderer)
    keep &= ((points[:, 0] >= frame.x0 - 1) & (points[:, 0] <= frame.x1 + 1)
             & (points[:, 1] >= frame.y0 - 1) & (points[:, 1] <= frame.y1 + 1))
    return points[keep], radii[keep], areas


#: Where :func:`place_legend` tries a legend, in order (matplotlib's ``best`` first).
LEGEND_LOCATIONS = ("best", "lower left", "upper right", "lower right", "upper left",
                    "center left", "center right", "lower center", "upper center", "center")


def place_legend(ax: Any, **legend_kwargs: Any) -> Any:
    """Give ``ax`` a legend at the first of :data:`LEGEND_LOCATIONS` where it lies inside the
    axes, covers no data point and overlaps no text of the axes (as :func:`figure_defects`
    reads them); where no location is clear, at the one covering the fewest. Returns the
    legend. The figure is drawn once (in memory, Agg) and every try is measured against that
    drawing (a legend inside the axes moves no data); the choice depends only on what is
    drawn, so the figure stays deterministic.
    """
    best: tuple[int, str] | None = None
    renderer = _draw(ax.figure)
    drawn = data_points(ax, renderer)
    for loc in LEGEND_LOCATIONS:
        legend = ax.legend(loc=loc, **legend_kwargs)
        cost = _legend_cost(ax, legend, renderer, drawn)
        if cost == 0:
            return legend
        if best is None or cost < best[0]:
            best = (cost, loc)
    assert best is not None  # LEGEND_LOCATIONS is not empty
    return ax.legend(loc=best[1], **legend_kwargs)


def place_legend_or_band(ax: Any, ncol: int = 2, **legend_kwargs: Any) -> Any:
    """:func:`place_legend`; where no location is clear (vertical lines cross every corner),
    widen the y axis (:func:`attnio.reporting.style.headroom`) to open a band above the data,
    end the axes' vertical lines (``axvline``) below it and put the legend, in ``ncol``
    columns, in the band. Returns the legend.
    """
    legend = place_legend(ax, **legend_kwargs)
    if legend_cost(ax, legend) == 0:
        return legend
    legend = ax.legend(loc="upper center", ncol=ncol, **legend_kwargs)
    renderer = _draw(ax.figure)
    band = (legend.get_window_extent(renderer).height + 12) / ax.get_window_extent(renderer).height
    headroom(ax, top=min(band, 0.6))
    vertical = ax.get_xaxis_transform()
    for line in ax.lines:  # axvline: x in data, y in axes fraction from 0 to 1
        if line.get_transform() == vertical and list(line.get_ydata()) == [0, 1]:
            line.set_ydata([0, 1 - min(band, 0.6)])
    return legend


def legend_cost(ax: Any, legend: Any) -> int:
    """How badly ``legend`` sits in ``ax``: the data points it covers, plus 1000 per text of
    the axes it overlaps and 1000 if it is not inside the axes (0: a clear place). Draws the
    figure (Agg, in memory)."""
    renderer = _draw(ax.figure)
    return _legend_cost(ax, legend, renderer, data_points(ax, renderer))


def _legend_cost(ax: Any, legend: Any, renderer: Any,
                 drawn: tuple[np.ndarray, np.ndarray, list[Any]]) -> int:
    """:func:`legend_cost` against an existing drawing (``renderer``, ``drawn`` =
    :func:`data_points` of it)."""
    box = legend.get_window_extent(renderer)
    points, radii, areas = drawn
    cost = _covered(box, points, radii, areas)
    cost += 1000 * sum(_overlap(box, t.get_window_extent(renderer)) for t in ax.texts
                       if t.get_visible() and t.get_text().strip())
    return cost + (0 if _inside(box, ax.get_window_extent(renderer)) else 1000)


def _draw(fig: "Figure") -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _suptitle(fig: "Figure") -> str:
    getter = getattr(fig, "get_suptitle", None)  # matplotlib >= 3.8
    if getter is not None:
        return str(getter())
    text = getattr(fig, "_suptitle", None)  # matplotlib 3.7
    return "" if text is None else str(text.get_text())


def _visible_axes(fig: "Figure") -> list[Any]:
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def _words(fig: "Figure", axes: list[Any]) -> list[Any]:
    """Every non-empty title, axis label and text of the figure and its visible axes."""
    suptitle = getattr(fig, "_suptitle", None)  # matplotlib keeps it outside fig.texts
    texts = [*fig.texts, *([suptitle] if suptitle is not None else [])]
    for ax in axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                  *ax.texts]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _label_of(ax: Any, axis: str, axes: list[Any]) -> str:
    """The axis label of ``ax``, or of an axes sharing that axis with it."""
    own = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
    if own:
        return str(own)
    shared = ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()
    for other in shared.get_siblings(ax):
        if other is not ax and other in axes:
            label = other.get_xlabel() if axis == "x" else other.get_ylabel()
            if label:
                return str(label)
    return ""


def _labelled_curves(ax: Any) -> bool:
    """A data artist carries a label (not matplotlib's ``_child0``): the reader needs a key."""
    labelled = [a for a in (*ax.lines, *ax.collections, *ax.patches)
                if _is_data(a) and not str(a.get_label()).startswith("_")]
    return len(labelled) >= 1


def _is_data(artist: Any) -> bool:
    return bool(artist.get_visible()) and artist.get_gid() != BACKGROUND_GID


def _line_xy(line: Any) -> np.ndarray:
    """The vertices a line draws, steps included, in data coordinates."""
    from matplotlib.cbook import STEP_LOOKUP_MAP

    x = np.asarray(line.get_xdata(orig=False), dtype=float)
    y = np.asarray(line.get_ydata(orig=False), dtype=float)
    style = line.get_drawstyle()
    if style in STEP_LOOKUP_MAP and style != "default" and len(x) > 1:
        x, y = STEP_LOOKUP_MAP[style](x, y)
    return np.column_stack([x, y])


def _densify(display: np.ndarray) -> np.ndarray:
    """Points every :data:`SAMPLE_STEP_PX` pixels along a polyline (NaN vertices break it)."""
    out = [display[:1]] if len(display) else []
    for p, q in zip(display[:-1], display[1:]):
        if not (np.isfinite(p).all() and np.isfinite(q).all()):
            out.append(q[None, :])
            continue
        steps = max(1, int(math.ceil(float(np.hypot(*(q - p))) / SAMPLE_STEP_PX)))
        t = np.linspace(0.0, 1.0, steps + 1)[1:, None]
        out.append(p + t * (q - p))
    return np.concatenate(out) if out else np.zeros((0, 2))


def _path_edges(path: Any) -> np.ndarray:
    """Points along every polygon of a display path (closed polygons closed)."""
    pieces = []
    for polygon in path.to_polygons(closed_only=False):
        pieces.append(_densify(np.asarray(polygon, dtype=float)))
    return np.concatenate(pieces) if pieces else np.zeros((0, 2))


def _alpha_positive(colours: Any) -> bool:
    array = np.atleast_2d(np.asarray(colours, dtype=float))
    return bool(array.size) and bool((array[:, 3] > 0).any())


def _covered(box: Any, points: np.ndarray, radii: np.ndarray, areas: list[Any]) -> int:
    """How many data points (with their radii) fall inside ``box``; a box inside a filled
    area counts the grid points of the box that the area holds."""
    x0, y0, x1, y1 = box.x0 + _TOUCH_PX, box.y0 + _TOUCH_PX, box.x1 - _TOUCH_PX, box.y1 - _TOUCH_PX
    inside = ((points[:, 0] + radii > x0) & (points[:, 0] - radii < x1)
              & (points[:, 1] + radii > y0) & (points[:, 1] - radii < y1))
    count = int(inside.sum())
    if areas:
        grid = np.array([(x, y) for x in np.linspace(x0, x1, 5) for y in np.linspace(y0, y1, 5)])
        for path in areas:
            count += int(path.contains_points(grid).sum())
    return count


def _overlap(a: Any, b: Any) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > _TOUCH_PX
            and min(a.y1, b.y1) - max(a.y0, b.y0) > _TOUCH_PX)


def _inside(inner: Any, outer: Any) -> bool:
    return (inner.x0 >= outer.x0 - 1 and inner.y0 >= outer.y0 - 1
            and inner.x1 <= outer.x1 + 1 and inner.y1 <= outer.y1 + 1)
