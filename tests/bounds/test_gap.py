"""attnio.bounds.gap: rows, omitted pairs, ratio, figure."""

from __future__ import annotations

import json

import pytest

from attnio.algorithms.simulation import count
from attnio.bounds.attention import best_lower_bound
from attnio.bounds.gap import gap_payload, gap_rows
from attnio.exceptions import InvalidInputError
from attnio.reporting.gap_figure import gap_figure_png


def test_rows_are_exact_and_consistent() -> None:
    rows = gap_rows("backward", 4096, 64, [64, 4096, 262144])
    for row in rows:
        assert row["lower_bound"] == best_lower_bound("backward", 4096, 64, row["M"]).value
        for name, io in row["algorithms"].items():
            assert type(io) is int and io == count(name, "backward", 4096, 64, row["M"]).io
        assert row["best_io"] == min(row["algorithms"].values())
        assert row["ratio"] == row["best_io"] / row["lower_bound"] >= 1
    assert "flash2" in rows[0]["omitted"] and "flash2" not in rows[0]["algorithms"]


def test_targets_at_n4096_d64() -> None:
    """Issue 11: backward ≤ 16 and forward ≤ 8 at every sampled M in [64, nd]."""
    Ms = sorted({2 ** k for k in range(6, 19)} | {3 * 2 ** k for k in range(5, 17)})
    assert max(r["ratio"] for r in gap_rows("backward", 4096, 64, Ms)) <= 16
    assert max(r["ratio"] for r in gap_rows("forward", 4096, 64, Ms)) <= 8


def test_tune_never_raises_the_ratio() -> None:
    plain = gap_rows("backward", 4096, 64, [1024, 16384])
    tuned = gap_rows("backward", 4096, 64, [1024, 16384], tune=True)
    assert all(t["best_io"] <= p["best_io"] for p, t in zip(plain, tuned))


def test_payload_is_valid_json_with_provenance() -> None:
    payload = gap_payload("forward", 64, 8, [16, 64])
    text = json.dumps(payload, allow_nan=False)
    assert {"attnio_version", "versions", "rows"} <= set(json.loads(text))


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="no algorithm"):
        gap_rows("backward", 64, 8, [1, 2])
    with pytest.raises(InvalidInputError, match="pass='both'"):
        gap_rows("both", 64, 8, [64])


@pytest.mark.extra("plots")
def test_figure_png() -> None:
    data = gap_figure_png([gap_payload("backward", 256, 16, [16, 64, 256])], targets={"16": 16})
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
