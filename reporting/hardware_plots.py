r"""Figures of issue 16: per-level I/O against sequence length, and the regime map of the table.

* :func:`levels_vs_n` — for one device (its one-SM hierarchy,
  :func:`attnio.algorithms.hierarchy.device_hierarchy`), at each boundary and each n: the
  best algorithm's exact words and the lower bound (B·G groups), as Python ints.
* :func:`regime_map` — for every device of the table, dtype and head dimension: the regime
  of the advisor's shared memory alone and of each boundary of the device hierarchy.
* :func:`plot_levels_vs_n`, :func:`plot_regime_map` draw them (matplotlib ``Figure``);
  ``benchmarks/hardware_figures.py`` writes them to ``docs/figures/``.

Examples
--------
>>> rows = levels_vs_n("h100", "bf16", 128, [1024, 2048], heads=2, kv_heads=1)
>>> [r["n"] for r in rows], all(r["best_words"] >= r["lower_bound_words"] for r in rows)
([1024, 1024, 2048, 2048], True)
>>> m = regime_map(devices=("mi300x",), dtypes=("fp32",), head_dims=(128,))
>>> m[0]["shared memory"], m[0]["boundaries"][0]
('crossover', 'large-cache')
"""

from __future__ import annotations

from typing import Any, Sequence

from attnio.algorithms.advisor import advise, classify_regime
from attnio.algorithms.hierarchy import device_hierarchy
from attnio.bounds.hierarchy import levels_report
from attnio.extras import require
from attnio.reporting.figure_quality import place_legend

__all__ = ["TABLE_DEVICES", "levels_vs_n", "regime_map", "plot_levels_vs_n", "plot_regime_map"]

#: The devices of issue 16, in table order.
TABLE_DEVICES = ("a100-40gb", "h100-sxm", "h200", "b200", "mi300x", "l4", "rtx4090")


def levels_vs_n(device: str, dtype: str, d: int, ns: Sequence[int], *, pass_: str = "backward",
                batch: int = 1, heads: int = 1, kv_heads: int | None = None
                ) -> list[dict[str, Any]]:
    """One row per (n, boundary): n, boundary name, M, best algorithm, words, lower bound."""
    hierarchy, _ = device_hierarchy(device, dtype)
    rows = []
    for n in ns:
        rep = levels_report(hierarchy, pass_, n, d, batch=batch, heads=heads, kv_heads=kv_heads)
        for lvl in rep["levels"]:
            rows.append({"n": n, "boundary": f"{lvl['above']} | {lvl['below']}",
                         "M": lvl["capacity_words"], "best_algorithm": lvl["best_algorithm"],
                         "best_words": lvl["best_words"],
                         "lower_bound_words": lvl["lower_bound_words"]})
    return rows


def regime_map(devices: Sequence[str] = TABLE_DEVICES, dtypes: Sequence[str] = ("bf16", "fp32"),
               head_dims: Sequence[int] = (64, 128, 256)) -> list[dict[str, Any]]:
    """Regimes per (device, dtype, d): ``"shared memory"`` (the advisor's M) and each
    boundary of the device hierarchy."""

    out = []
    for dev in devices:
        for dtype in dtypes:
            hierarchy, _ = device_hierarchy(dev, dtype)
            for d in head_dims:
                out.append({"device": dev, "dtype": dtype, "d": d,
                            "shared memory": advise(dev, d, dtype).regime,
                            "boundaries": [classify_regime(b.M, d)[0]
                                           for b in hierarchy.boundaries()],
                            "boundary_names": [f"{b.above} | {b.below}"
                                               for b in hierarchy.boundaries()]})
    return out


def _figure(size: tuple[float, float]):
    require("plots", "plotting")
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=120, layout="constrained")


def plot_levels_vs_n(rows: list[dict[str, Any]], title: str):
    """Words across each boundary against n (log-log): best algorithm solid, each boundary's
    lower bound in its own line style with hollow markers of its own size (two bounds that
    coincide stay distinguishable), the legend where it covers no curve."""
    fig = _figure((7.5, 4.8))
    ax = fig.add_subplot()
    names = list(dict.fromkeys(r["boundary"] for r in rows))
    # Each boundary's bound has its own line style and marker (hollow, shrinking): bounds that
    # coincide (the compulsory I/O, while it dominates) stay visible on top of each other.
    bound_styles = (("--", "s", 9), (":", "o", 6), ("-.", "^", 4))
    bound_points: list[set[tuple[int, int]]] = []
    for i, name in enumerate(names):
        pts = [r for r in rows if r["boundary"] == name and r["best_words"] is not None]
        color = f"C{i}"
        ax.plot([r["n"] for r in pts], [r["best_words"] for r in pts], "o-", color=color,
                label=f"{name}: best algorithm")
        ls, marker, size = bound_styles[i % len(bound_styles)]
        ax.plot([r["n"] for r in pts], [r["lower_bound_words"] for r in pts], ls=ls,
                marker=marker, ms=size, mfc="none", color=color, lw=1.4,
                label=f"{name}: lower bound")
        bound_points.append({(r["n"], r["lower_bound_words"]) for r in pts})
    shared = any(a & b for k, a in enumerate(bound_points) for b in bound_points[k + 1:])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n (tokens)")
    ax.set_ylabel("words moved across the boundary")
    ax.set_title(title, fontsize=9)
    place_legend(ax, fontsize=7, framealpha=0.9,
                 title="where hollow markers nest, the lower bounds are equal" if shared else None,
                 title_fontsize=7)
    return fig


def plot_regime_map(entries: list[dict[str, Any]]):
    """A grid: rows = devices, columns = (dtype, d); each cell split into the shared-memory
    regime (left) and the on-chip level's regime (right); red small-cache, blue large-cache,
    grey crossover, explained by a key below the grid."""
    from matplotlib.patches import Patch

    fig = _figure((8.5, 4.6))
    ax = fig.add_subplot()
    devices = list(dict.fromkeys(e["device"] for e in entries))
    columns = list(dict.fromkeys((e["dtype"], e["d"]) for e in entries))
    color = {"small-cache": "tab:red", "large-cache": "tab:blue", "crossover": "tab:gray"}
    for e in entries:
        y = devices.index(e["device"])
        x = columns.index((e["dtype"], e["d"]))
        for k, regime in enumerate((e["shared memory"], e["boundaries"][0])):
            ax.add_patch(_rect(x + 0.5 * k, y, color[regime]))
    ax.set_xlim(0, len(columns))
    ax.set_ylim(0, len(devices))
    ax.set_xticks([i + 0.5 for i in range(len(columns))],
                  [f"{dt}\nd={d}" for dt, d in columns], fontsize=7)
    ax.set_yticks([i + 0.5 for i in range(len(devices))], devices, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("dtype and head dimension d")
    ax.set_ylabel("device")
    ax.set_title("Regime per device, dtype and head dimension d\nleft half of a cell: shared "
                 "memory alone (advisor); right half: registers + shared memory (one SM)",
                 fontsize=9)
    # the key beside the grid (the cells fill the axes: a key inside would hide some)
    fig.legend(handles=[Patch(color=color[regime], label=text) for regime, text in (
        ("small-cache", "small-cache (M < d²)"), ("crossover", "crossover (M = d²)"),
        ("large-cache", "large-cache (M > d²)"))], loc="outside lower center", ncol=3,
        fontsize=8)
    return fig


def _rect(x: float, y: int, color: str):
    from matplotlib.patches import Rectangle

    return Rectangle((x + 0.02, y + 0.05), 0.46, 0.9, color=color)
