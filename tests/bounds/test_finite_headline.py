"""The headline uses finite algorithms only (issue 35, item 3).

`attnio gap`, the exact worst ratio, `attnio advise` and the gap table choose their "best"
among the algorithms whose registry record says they stay finite for every finite logit
(:func:`attnio.bounds.instance_bounds.headline`); an algorithm that overflows is shown apart,
with the reason. Two adversaries: a real one (Saha–Ye's ``square-tiling`` is the cheapest
forward at M = 4, n = 64, d = 8, and overflows past a logit of 709) and a planted toy algorithm
registered for the test, cheaper than every real one at every M and declared not finite.
"""

from __future__ import annotations

import json
from dataclasses import replace
from math import ceil
from types import MappingProxyType
from typing import Iterator

import pytest

from attnio.algorithms import instance as instance_module
from attnio.algorithms import registry, simulation
from attnio.algorithms.counts import Counts
from attnio.algorithms.hierarchy import LEVEL_ALGORITHMS
from attnio.algorithms.instance import Instance
from attnio.bounds import gap_worst
from attnio.bounds.attention import best_lower_bound
from attnio.bounds.gap import GAP_ALGORITHMS, gap_rows
from attnio.bounds.gap_worst import worst_ratio
from attnio.bounds.instance_bounds import headline, level_rows, not_finite_reason, recommend
from attnio.cli import main

TOY = "toy-overflow"


def _toy_counter(pass_: str):
    """1.2 × the certified bound of the toy's class at the start of M's plateau (M rounded
    down to a power of 17/16): cheaper than every real algorithm, never below a bound (so no
    check mistakes it for a refutation), and a step function of M like every real count (the
    exact worst search walks plateaus)."""
    computation = "forward" if pass_ == "forward" else "recompute"

    def counter(n: int, d: int, M: int, blocks: object = None) -> Counts:
        start = 1
        while ceil(start * 17 / 16) <= M:
            start = ceil(start * 17 / 16)
        bound = best_lower_bound(pass_, n, d, start, computation=computation).value
        io = ceil(1.2 * bound)
        return Counts(reads=io - 1, writes=1, flops=0, peak_fast_words=M,
                      block_sizes=(("plateau", start),))

    return counter


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Register ``toy-overflow`` (FlashAttention-2's record with the toy's counts, declared
    not finite in both passes) in the gap and levels selections."""
    base = registry.get_algorithm("flash2")
    spec = replace(base, name=TOY, description="a planted schedule that overflows",
                   counters={p: _toy_counter(p) for p in registry.PASSES},
                   masked_counters={}, tunable=False,
                   finite_logits={p: False for p in registry.PASSES},
                   stability={p: "stores exp(tau S) without the row maximum (planted)"
                              for p in registry.PASSES})
    specs = (*registry._SPECS, spec)
    table = MappingProxyType({s.name: s for s in specs})
    monkeypatch.setattr(registry, "_SPECS", specs)
    monkeypatch.setattr(registry, "REGISTRY", table)
    monkeypatch.setattr(instance_module, "REGISTRY", table)
    monkeypatch.setattr(gap_worst, "REGISTRY", table)
    monkeypatch.setattr(simulation, "ALGORITHMS", {**simulation.ALGORITHMS, TOY: "planted"})
    for selection in (GAP_ALGORITHMS, LEVEL_ALGORITHMS):
        for pass_ in registry.PASSES:
            monkeypatch.setitem(selection, pass_, (*selection[pass_], TOY))
    yield TOY


def test_the_rule() -> None:
    assert headline("flash2", "backward") and headline("fused-resident", "forward")
    for name, pass_ in (("square-tiling", "forward"), ("small-cache", "forward"),
                        ("small-cache", "backward")):
        assert not headline(name, pass_)
        assert "709" in not_finite_reason(name, pass_)
    assert not headline("small-cache-dx", "backward")  # dL/dX, not the pass's outputs
    assert not_finite_reason("flash2-lean", "forward") is None


def test_a_real_overflowing_schedule_is_never_best() -> None:
    """n = 64, d = 8, M = 4, forward: square-tiling is the cheapest of the gap selection
    (135,808 words) — without the filter it would be the headline."""
    row = gap_rows("forward", 64, 8, [4])[0]
    assert min(row["algorithms"], key=row["algorithms"].get) == "square-tiling"
    assert row["best_algorithm"] == "standard" and row["best_io"] == 147_968
    assert row["ratio"] == 147_968 / row["lower_bound"]
    left = row["unstable_cheaper"]["square-tiling"]
    assert left["io"] == 135_808 and "709" in left["reason"]
    level = level_rows(Instance.build(64, 8, pass_="forward", M=[4]))[0]
    assert level["best_algorithm"] == "standard"
    assert {e["algorithm"] for e in level["unstable_cheaper"]} == {"square-tiling",
                                                                  "small-cache"}
    assert recommend(Instance.build(64, 8, pass_="forward", M=[4]), [level])["algorithm"] \
        == "standard"


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_a_planted_toy_is_cheapest_but_never_the_headline(toy: str, pass_: str) -> None:
    rows = gap_rows(pass_, 256, 16, [64, 256, 1024, 4096])
    for row in rows:
        ios = row["algorithms"]
        assert min(ios, key=ios.get) == toy  # the planted one would be the best
        finite = {k: v for k, v in ios.items() if registry.get_algorithm(k).finite(pass_)}
        assert row["best_algorithm"] != toy and row["best_io"] == min(finite.values())
        assert row["unstable_cheaper"][toy]["reason"].startswith("not finite for every logit")
    inst = Instance.build(256, 16, pass_=pass_, M=[64, 4096])
    levels = level_rows(inst)
    assert all(lvl["best_algorithm"] not in (toy, None) for lvl in levels)
    assert all(any(e["algorithm"] == toy for e in lvl["unstable_cheaper"]) for lvl in levels)
    assert recommend(inst, levels)["algorithm"] != toy


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_exact_worst_leaves_the_toy_out(toy: str) -> None:
    inst = Instance.build(64, 8, pass_="forward", M=[8])
    names = GAP_ALGORITHMS["forward"]
    found = worst_ratio(inst, 8, 512, algorithms=names)
    assert toy not in found.algorithms and found.best_algorithm != toy
    assert [e["algorithm"] for e in found.left_out] == ["square-tiling", toy]
    toy_entry = found.left_out[1]
    assert toy_entry["io"] is not None and toy_entry["io"] < found.best_io
    # the same maximum as with the toy not asked for at all
    without = worst_ratio(inst, 8, 512, algorithms=tuple(n for n in names if n != toy))
    assert (found.ratio, found.M, found.best_algorithm) == (without.ratio, without.M,
                                                            without.best_algorithm)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_commands_print_the_toy_apart(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gap", "--n", "128", "--d", "8", "--M", "64,256", "--pass", "forward",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(r["best_algorithm"] != toy and toy in r["unstable_cheaper"]
               for r in doc["rows"])
    assert doc["worst"]["best_algorithm"] != toy
    assert any(e["algorithm"] == toy for e in doc["worst"]["left_out"])
    assert main(["gap", "--n", "128", "--d", "8", "--M", "64,256", "--pass", "forward",
                 "--wide"]) == 0
    text = capsys.readouterr().out
    assert f"{toy} would give io/LB" in text and "left out of best: not finite" in text
    assert f"left out of the worst (never the best): {toy}" in text
    assert main(["advise", "--n", "128", "--d", "8", "--M", "256", "--pass", "forward",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recommendation"]["algorithm"] != toy
    assert doc["levels"][0]["best_algorithm"] != toy
