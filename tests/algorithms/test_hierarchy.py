"""Tests for attnio.algorithms.hierarchy: per-boundary counts, bounds, validation."""

from __future__ import annotations

import pytest

from attnio.algorithms.hierarchy import Hierarchy, device_hierarchy
from attnio.algorithms.simulation import count, simulate
from attnio.bounds.attention import best_lower_bound
from attnio.bounds.hierarchy import bottleneck, boundary_lower_bound, hierarchy_counts
from attnio.exceptions import InvalidInputError

ALGS = {"forward": ("standard", "flash1", "flash2", "square-tiling", "small-cache-fused",
                    "flash2-gqa"),
        "backward": ("standard", "flash1", "flash2", "small-cache", "small-cache-fused",
                     "small-cache-dx", "flash2-gqa")}


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("M", [256, 4096])
def test_one_bounded_level_is_the_two_level_model(pass_: str, M: int) -> None:
    h = Hierarchy.from_words([("fast", M, None), ("slow", None, 10**12)])
    for alg in ALGS[pass_]:
        row = hierarchy_counts(alg, pass_, 512, 16, h)[0]
        two = count(alg, pass_, 512, 16, M)
        assert (row["words"], row["reads"], row["writes"]) == (two.io, two.reads, two.writes)
        assert row["lower_bound_words"] == best_lower_bound(pass_, 512, 16, M).value
        assert row["M"] == M


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_closed_form_equals_executed_at_every_boundary(pass_: str) -> None:
    h = Hierarchy.from_words([("regs", 60, None), ("smem", 200, 10**13), ("l2", 1000, 10**12),
                              ("hbm", None, 10**11)])
    assert [b.M for b in h.boundaries()] == [60, 260, 1260]
    for alg in ALGS[pass_]:
        counted = hierarchy_counts(alg, pass_, 24, 4, h)
        executed = hierarchy_counts(alg, pass_, 24, 4, h, execute=True, seed=3)
        for c, e in zip(counted, executed):
            assert c["words"] == e["words"] and c["reads"] == e["reads"]
            if e["words"] is not None:
                assert e["executed"] and e["closed_form_match"]
                assert e["words"] == simulate(alg, pass_, 24, 4, e["M"], execute=True).io


def test_capacity_is_enforced_at_every_boundary() -> None:
    # M_0 = 8 is below every flash tile set: the boundary says so, the others still run
    h = Hierarchy.from_words([("tiny", 8, None), ("big", 4096, 1), ("slow", None, 1)])
    rows = hierarchy_counts("flash2", "backward", 32, 4, h, execute=True)
    assert rows[0]["words"] is None and "too small" in rows[0]["omitted"]
    assert rows[1]["words"] == count("flash2", "backward", 32, 4, 4104).io


def test_times_bottleneck_and_regimes() -> None:
    h = Hierarchy.from_words([("smem", 1024, None), ("l2", 2**20, 4 * 10**12),
                              ("hbm", None, 10**12)], word_bytes=2)
    rows = hierarchy_counts("flash2", "backward", 4096, 64, h)
    assert [r["regime"] for r in rows] == ["small-cache", "large-cache"]
    assert rows[0]["seconds"] == rows[0]["words"] * 2 / (4 * 10**12)
    assert rows[1]["lower_bound_seconds"] == rows[1]["lower_bound_words"] * 2 / 10**12
    assert bottleneck(rows) == max(rows, key=lambda r: r["seconds"])["boundary"]
    assert all(r["lower_bound_words"] <= r["words"] for r in rows)
    h2 = Hierarchy.from_words([("a", 4096, None), ("b", None, None)])
    assert bottleneck(hierarchy_counts("flash2", "backward", 256, 64, h2)) is None


def test_lower_bound_is_the_stacked_bound() -> None:
    one, _ = boundary_lower_bound("backward", 1024, 32, 2048)
    four, route = boundary_lower_bound("backward", 1024, 32, 2048, batch=2, heads=4,
                                       kv_heads=2)
    assert "8 heads" in route and four >= 8 * 4 * 1024 * 32 and four > 2 * 2 * one // 2


def test_three_level_example_with_grouped_heads() -> None:
    """16K / 256K / 1M words, n = 4096, d = 64, H = 32, G = 8 backward (issue 21): the
    stacked bound, 4Hnd + 4Gnd = 41,943,040 at the outermost boundary (was 16,777,216 =
    G × 8nd); the joint routes (issue 35) raise the inner two (236,060,672 and 41,943,040
    before), and flash2-lean (issue 35) moves fewer words at the innermost, so the gap is
    4.38 / 3.26 / 1.61 (4.90 with flash2-gqa best everywhere; 9.74 / 4.03 / 1.61 before the
    joint routes; 37.0 / 10.07 / 4.02 with B·G × one head)."""
    from attnio.bounds.hierarchy import levels_report

    h = Hierarchy.from_words([("a", 16384, None), ("b", 262144, 10**12),
                              ("c", 1048576, 10**12), ("slow", None, 10**11)])
    levels = levels_report(h, "backward", 4096, 64, heads=32, kv_heads=8)["levels"]
    assert [lvl["lower_bound_words"] for lvl in levels] == [468910080, 51888128, 41943040]
    assert [lvl["best_words"] for lvl in levels] == [2051801088, 168951808, 67502080]
    assert [round(lvl["best_words"] / lvl["lower_bound_words"], 2) for lvl in levels] == [
        4.38, 3.26, 1.61]
    assert [lvl["best_algorithm"] for lvl in levels] == ["flash2-lean", "flash2-gqa",
                                                         "flash2-gqa"]


def test_device_hierarchy_reads_the_table() -> None:
    h, notes = device_hierarchy("H100", "bf16")
    assert [lvl.capacity for lvl in h.levels] == [(256 + 228) * 1024 // 2, 50 * 2**20 // 2, None]
    assert h.levels[-1].bandwidth == 3_350_000_000_000 and notes == []
    mi, _ = device_hierarchy("mi300x", "fp32")
    assert [lvl.name for lvl in mi.levels] == ["registers + shared memory", "L2",
                                               "Infinity Cache", "HBM"]
    b200, notes = device_hierarchy("b200", "bf16")
    assert len(b200.levels) == 2 and "L2" in notes[0]
    with pytest.raises(InvalidInputError, match="device='tpu' is unknown"):
        device_hierarchy("tpu")


@pytest.mark.parametrize("rows, match", [
    ([("a", 512, None), ("b", 512, 1), ("c", None, 1)], "capacities not increasing"),
    ([("a", 512, None), ("b", None, 0)], "zero bandwidth"),
    ([("a", 512, None), ("b", None, -1)], "is not positive"),
    ([("a", 512, None), ("b", None, float("inf"))], "positive finite"),
    ([("a", 512, None), ("b", 1024, 1)], "must be unbounded"),
    ([("a", None, None), ("b", None, 1)], "only the slowest level is unbounded"),
    ([("a", 0, None), ("b", None, 1)], "capacity=0 must be a positive integer"),
    ([("a", 16, None)], "2 to MAX_LEVELS"),
    ([("a", 16, None), ("a", None, 1)], "used twice"),
])
def test_bad_hierarchies(rows: list, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        Hierarchy.from_words(rows)


def test_from_json_bytes_and_dtype() -> None:
    h = Hierarchy.from_json({"dtype": "bf16", "levels": [
        {"name": "s", "capacity_bytes": 4096}, {"name": "d", "capacity_bytes": None,
                                                  "bandwidth_bytes_per_s": 10**12}]})
    assert h.levels[0].capacity == 2048 and h.word_bytes == 2
    for bad, match in [({"levels": 3}, "'levels' list"),
                       ({"dtype": "int3", "levels": []}, "dtype='int3' is unknown"),
                       ({"levels": [{"capacity_words": 1, "capacity_bytes": 2}]}, "both")]:
        with pytest.raises(InvalidInputError, match=match):
            Hierarchy.from_json(bad)


@pytest.mark.parametrize("algorithm", ["flash2-gqa", "flash2", "small-cache"])
def test_heads_closed_form_equals_executed_at_every_boundary(algorithm: str) -> None:
    h = Hierarchy.from_words([("regs", 80, None), ("smem", 300, 10**13), ("hbm", None, 10**12)])
    kw = dict(batch=2, heads=4, kv_heads=2)
    counted = hierarchy_counts(algorithm, "backward", 16, 4, h, **kw)
    executed = hierarchy_counts(algorithm, "backward", 16, 4, h, execute=True, **kw)
    assert [c["words"] for c in counted] == [e["words"] for e in executed]
    assert all(e["closed_form_match"] for e in executed if e["words"] is not None)
    assert all(c["lower_bound_words"] <= c["words"] for c in counted if c["words"] is not None)


def test_only_an_infeasible_level_is_left_out() -> None:
    """A level no tile set fits gets words=None and the reason; any other error propagates
    (the old ``except AttnioError`` also hid bad input)."""
    from attnio.exceptions import CacheTooSmallError

    h = Hierarchy.from_words([("L0", 64, None), ("slow", None, 10**12)])

    def too_small(M: int):
        raise CacheTooSmallError(f"M={M} is too small for any square tile")

    row = hierarchy_counts("flash2", "forward", 64, 8, h, counter=too_small)[0]
    assert row["words"] is None and "too small" in row["omitted"]

    def bad(M: int):
        raise InvalidInputError("n=0 must be a positive integer")

    with pytest.raises(InvalidInputError, match="n=0"):
        hierarchy_counts("flash2", "forward", 64, 8, h, counter=bad)
