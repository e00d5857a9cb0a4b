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
    """Words across each boundary against n (log-log): best algorithm solid, bound dashed."""
    fig = _figure((7.5, 4.8))
    ax = fig.add_subplot()
    names = list(dict.fromkeys(r["boundary"] for r in rows))
    for i, name in enumerate(names):
        pts = [r for r in rows if r["boundary"] == name and r["best_words"] is not None]
        color = f"C{i}"
        ax.plot([r["n"] for r in pts], [r["best_words"] for r in pts], "o-", color=color,
                label=f"{name}: best algorithm")
        ax.plot([r["n"] for r in pts], [r["lower_bound_words"] for r in pts], "--",
                color=color, label=f"{name}: lower bound")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("words moved across the boundary")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def plot_regime_map(entries: list[dict[str, Any]]):
    """A grid: rows = devices, columns = (dtype, d); each cell split into the shared-memory
    regime (left) and the on-chip level's regime (right); red small-cache, blue large-cache,
    grey crossover."""
    fig = _figure((8.5, 4.2))
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
    ax.set_title("regime per device: left half shared memory alone (advisor), right half "
                 "registers + shared memory (one SM)\nred small-cache (M < d²), blue "
                 "large-cache, grey M = d²", fontsize=8)
    return fig


def _rect(x: float, y: int, color: str):
    from matplotlib.patches import Rectangle

    return Rectangle((x + 0.02, y + 0.05), 0.46, 0.9, color=color)
