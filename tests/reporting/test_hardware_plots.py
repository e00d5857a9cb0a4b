"""Tests for attnio.reporting.hardware_plots: the data behind the issue-16 figures."""

from __future__ import annotations

import pytest

from attnio.algorithms.heads import count_heads
from attnio.reporting.hardware_plots import (
    TABLE_DEVICES,
    levels_vs_n,
    plot_levels_vs_n,
    plot_regime_map,
    regime_map,
)


def test_levels_vs_n_is_exact_and_above_the_bound() -> None:
    rows = levels_vs_n("rtx4090", "fp32", 64, [512, 1024], heads=4, kv_heads=2)
    assert len(rows) == 4
    for r in rows:
        assert r["best_words"] == count_heads(r["best_algorithm"], "backward", r["n"], 64,
                                              r["M"], heads=4, kv_heads=2).io
        assert r["best_words"] >= r["lower_bound_words"]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_regime_map_covers_the_table_and_knows_the_crossover() -> None:
    entries = regime_map()
    assert {e["device"] for e in entries} == set(TABLE_DEVICES)
    mi = next(e for e in entries if (e["device"], e["dtype"], e["d"]) == ("mi300x", "fp32", 128))
    assert mi["shared memory"] == "crossover"  # 64 KiB / 4 bytes = 16384 = 128**2
    h100 = next(e for e in entries if (e["device"], e["dtype"], e["d"]) == ("h100-sxm", "fp32",
                                                                            256))
    assert h100["shared memory"] == "small-cache" and h100["boundaries"][0] == "large-cache"


@pytest.mark.extra("plots")
def test_figures_draw() -> None:
    fig = plot_levels_vs_n(levels_vs_n("l4", "bf16", 64, [256, 512]), "t")
    assert fig.axes[0].get_yscale() == "log"
    fig = plot_regime_map(regime_map(devices=("l4",), head_dims=(64,)))
    assert len(fig.axes[0].patches) == 4
