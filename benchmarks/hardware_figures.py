"""Draw the figures of notes/hardware.md into docs/figures/ (thin wrapper).

    python3 benchmarks/hardware_figures.py [--force]

* docs/figures/hardware_levels.png — H100 SXM (bf16, d = 128, backward, 32 heads in 8 K/V
  groups): words across each boundary of the one-SM hierarchy against n, best algorithm and
  lower bound;
* docs/figures/hardware_regimes.png — the regime map of the device table.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

from attnio.reporting.hardware_plots import (
    levels_vs_n,
    plot_levels_vs_n,
    plot_regime_map,
    regime_map,
)
from attnio.safe_io import write_bytes

OUT = Path(__file__).resolve().parent.parent / "docs" / "figures"


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def main(argv: list[str]) -> int:
    force = "--force" in argv
    start = time.perf_counter()
    rows = levels_vs_n("h100", "bf16", 128, [2**k for k in range(10, 18)], heads=32,
                       kv_heads=8)
    fig = plot_levels_vs_n(rows, "H100 SXM, bf16, d = 128, backward, 32 query heads / 8 K/V "
                                 "heads (flash2-gqa best)\none SM's hierarchy, M = capacity "
                                 "above the boundary; hollow markers: lower bounds")
    print("wrote", write_bytes(OUT / "hardware_levels.png", _png(fig), overwrite=force))
    fig = plot_regime_map(regime_map())
    print("wrote", write_bytes(OUT / "hardware_regimes.png", _png(fig), overwrite=force))
    print(f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
