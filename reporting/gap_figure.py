r"""The gap figure: cheapest algorithm ÷ best certified lower bound against M (``attnio gap --plot``).

The rows are :func:`attnio.bounds.gap.gap_payload`'s (exact ints; the ratio is their quotient);
this module only draws them. Needs the ``plots`` extra (matplotlib).
"""

from __future__ import annotations

import io
from typing import Any, Sequence

from attnio.extras import require
from attnio.reporting.figure_quality import place_legend_or_band
from attnio.reporting.style import M_LABEL

__all__ = ["gap_figure_png", "plot_gap"]


def plot_gap(payloads: Sequence[dict[str, Any]], *, targets: dict[str, float] | None = None):
    """Ratio (cheapest algorithm ÷ best lower bound) against M, one line per payload.

    Returns a matplotlib ``Figure`` (not saved; see :func:`gap_figure_png`). ``targets``
    maps a label to a horizontal line (e.g. ``{"backward target 16": 16}``). The legend goes
    where it covers no line, or in a band above them all (three columns).
    """
    require("plots", "plotting")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.8), dpi=120, layout="constrained")
    ax = fig.add_subplot()
    styles = {"forward": "tab:blue", "backward": "tab:red"}
    d_values = set()
    for payload in payloads:
        rows = payload["rows"]
        label = f"{payload['pass']}{' (tuned)' if payload.get('tune') else ''}"
        # tuned: dashed with hollow squares, so a tuned line equal to the default stays visible
        tuned = bool(payload.get("tune"))
        ax.plot([r["M"] for r in rows], [r["ratio"] for r in rows], marker="s" if tuned else "o",
                ms=6 if tuned else 3, mfc="none" if tuned else None,
                color=styles.get(payload["pass"]), ls="--" if tuned else "-", label=label)
        d_values.add(payload["d"])
    for k, (label, value) in enumerate((targets or {}).items()):
        ax.axhline(value, color="grey", ls=[":", "-.", "--"][k % 3], lw=1, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    for d in d_values:
        ax.axvline(d * d, color="black", alpha=0.3, lw=1.5, label=f"M = d² = {d * d:,}")
    ax.set_xlabel(M_LABEL)
    ax.set_ylabel("cheapest algorithm ÷ best lower bound")
    if payloads:
        ax.set_title(f"attnio gap: n = {payloads[0]['n']:,}, d = {payloads[0]['d']}")
    ax.grid(True, which="both", alpha=0.3)
    place_legend_or_band(ax, ncol=3, fontsize=8, framealpha=0.9)
    return fig


def gap_figure_png(payloads: Sequence[dict[str, Any]], *,
                   targets: dict[str, float] | None = None) -> bytes:
    """:func:`plot_gap` rendered as PNG bytes (write them with :mod:`attnio.safe_io`)."""
    buffer = io.BytesIO()
    plot_gap(payloads, targets=targets).savefig(buffer, format="png")
    return buffer.getvalue()
