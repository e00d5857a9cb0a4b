"""One instance, four commands, the same figures (issue 34, acceptance 2).

``attnio advise``, ``gap``, ``simulate`` and ``bounds`` parse the same flags into one
:class:`attnio.algorithms.instance.Instance`; every figure two of them print — the certified
lower bound of the whole instance, each algorithm's counted I/O, the best algorithm and its
I/O, the bytes — must be the same number. The instances mix masks, heads with grouped K/V, a
device with its levels and a dtype, both passes: the combinations where a part of the
instance used to fall away (a per-level table that ignored the mask; a masked multi-head bound
printed dense).
"""

from __future__ import annotations

import json

import pytest

from attnio.algorithms.registry import algorithm_names
from attnio.cli import main

INSTANCES = [
    ["--n", "64", "--d", "8", "--M", "64", "--mask", "window:1", "--heads", "4",
     "--kv-heads", "1"],
    ["--n", "128", "--d", "16", "--M", "256,1024", "--mask", "causal", "--heads", "2",
     "--dtype", "fp32", "--pass", "forward"],
    ["--n", "256", "--d", "16", "--device", "h100", "--dtype", "fp16", "--mask", "causal",
     "--heads", "4", "--kv-heads", "2"],
    ["--n", "64", "--d", "8", "--M", "512", "--batch", "2", "--heads", "4", "--kv-heads", "2"],
    ["--n", "96", "--d", "8", "--M", "300", "--pass", "backward"],
]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _one_size(argv: list[str]) -> list[str]:
    """``bounds`` takes one M: the first of a list."""
    if "--M" not in argv:
        return argv
    i = argv.index("--M")
    return [*argv[:i + 1], argv[i + 1].split(",")[0], *argv[i + 2:]]


@pytest.mark.parametrize("argv", INSTANCES, ids=["window-mqa", "causal-forward-fp32",
                                                 "h100-causal-gqa", "batch-gqa", "dense"])
def test_every_shared_figure_agrees(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    advise = _json(capsys, ["advise", *argv])
    gap = _json(capsys, ["gap", *argv])
    sim = _json(capsys, ["simulate", *argv, "--algorithm", "all"])
    bounds = _json(capsys, ["bounds", *_one_size(argv)])
    pass_ = advise["instance"]["pass"]
    assert advise["instance"] == gap["instance"] == sim["instance"]
    levels = advise["levels"]
    assert [row["M"] for row in gap["rows"]] == [lvl["M"] for lvl in levels]
    runs = {(r["algorithm"], r["M"]): r for r in sim["runs"]}
    # --algorithm all: a row for every registered algorithm of the pass, at every M
    assert sorted({r["algorithm"] for r in sim["runs"]}) == sorted(algorithm_names(pass_))
    assert len(sim["runs"]) == len(algorithm_names(pass_)) * len(levels)
    compared = 0
    for lvl, row in zip(levels, gap["rows"]):
        lb = lvl["lower_bound"]["value"]
        assert row["lower_bound"] == lb and row["route"] == lvl["lower_bound"]["route"]
        assert row["best_algorithm"] == lvl["best_algorithm"]
        assert row["best_io"] == lvl["best_io"] and row["ratio"] == lvl["ratio"]
        for entry in lvl["algorithms"]:
            run = runs[(entry["algorithm"], lvl["M"])]
            assert run["io"] == entry["io"], entry["algorithm"]  # None both when n/a
            if entry["io"] is None:
                assert entry["not_applicable"]
                assert run.get("not_applicable") or run.get("overflow") or run.get("infeasible")
                continue
            compared += 1
            assert run["lower_bound"] == lb
            assert run.get("bytes") == entry["bytes"]
            cls = run["class_lower_bound"]
            if cls["value"] is not None:
                assert cls["value"] == lvl["class_bounds"][cls["computation"]]["value"]
            if entry["algorithm"] in row["algorithms"]:
                assert row["algorithms"][entry["algorithm"]] == entry["io"]
        if advise["instance"]["word_bytes"] is not None:
            assert row["best_bytes"] == lvl["best_bytes"]
            assert row["lower_bound_bytes"] == lvl["lower_bound"]["bytes"]
    assert compared > 0
    # bounds: the counted best at its (first) M, the all-heads bound, the per-level table
    first = levels[0]
    assert bounds["instance"]["M"] == first["M"]
    assert bounds["counted_best"]["algorithm"] == first["best_algorithm"]
    assert bounds["counted_best"]["io"] == first["best_io"]
    if "heads_lower_bound" in bounds:
        assert bounds["heads_lower_bound"][pass_]["value"] == first["lower_bound"]["value"]
    for table_row, lvl in zip(bounds.get("levels", []), levels):
        assert table_row["capacity_words"] == lvl["M"]
        assert table_row["lower_bound_words"] == lvl["lower_bound"]["value"]
        assert table_row["best_words"] == lvl["best_io"]
        assert table_row["best_algorithm"] == lvl["best_algorithm"]


def test_the_printed_bounds_stay_below_every_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35's instance: with --mask and --heads, the all-heads bound printed by ``bounds``
    is at most flash2-gqa's executed count (17,152 backward, 8,448 forward), not the dense
    stacked bound (25,984 and 12,928)."""
    argv = ["--n", "64", "--d", "8", "--M", "64", "--mask", "window:1", "--heads", "4",
            "--kv-heads", "1"]
    bounds = _json(capsys, ["bounds", *argv])
    for pass_, executed in (("backward", 17152), ("forward", 8448)):
        sim = _json(capsys, ["simulate", *argv, "--pass", pass_, "--algorithm", "flash2-gqa",
                             "--execute"])
        (run,) = sim["runs"]
        assert run["io"] == executed and run["closed_form_match"] and run["within_tolerance"]
        assert bounds["heads_lower_bound"][pass_]["value"] <= executed


def test_a_flag_that_cannot_apply_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gap", "--n", "64", "--d", "8", "--M", "64", "--mask", "causal",
                 "--tune"]) == 2
    assert "--tune cannot apply" in capsys.readouterr().err
    assert main(["simulate", "--n", "64", "--d", "8", "--M", "64", "--heads", "2",
                 "--tune"]) == 2
    assert "--tune cannot apply" in capsys.readouterr().err
    assert main(["advise", "--n", "64", "--d", "8", "--M", "64", "--scope", "block"]) == 2
    assert "--scope block needs --device" in capsys.readouterr().err
    assert main(["advise", "--n", "64", "--d", "8", "--M", "64", "--device", "h100"]) == 2
    assert "exactly one of --M" in capsys.readouterr().err
