"""The sandwich as a property (issue 21, item 3): every lower bound attnio prints ≤ every
algorithm's exact I/O count, on the same instance (same pass, sizes, mask, heads, hierarchy).

One hypothesis property over pass, n, d, M (small M near d, large M near n·d, and between),
the mask (none, full, causal, window:W, block:B with a drawn pattern, an arbitrary array),
B·H query heads in B·G K/V groups and a hierarchy of a few levels, checked through the library
functions behind every command (:func:`attnio.bounds.sandwich_points.sandwich_point`;
one head without a mask: also the ``--tune`` counts) and,
on some examples, through the JSON that ``attnio simulate``, ``attnio gap`` and
``attnio bounds`` print. Exact ints (the catalogue's explicit bounds: exact sympy numbers),
compared exactly; derandomized. A failure names the command or function, the route, the
parameters and both numbers.

The DAG side of the sandwich (certified bound ≤ exact optimum ≤ every schedule on tiny
attention and matmul DAGs) is tested in ``tests/proofs/test_sandwich.py``
(``test_check_sandwich_small_set``, the rows' ``certified`` column) and, on random DAGs, in
``tests/graphs/test_lower_bounds.py::test_routes_never_exceed_the_exact_optimum``. The long
sweep (≥ 10,000 points) is ``benchmarks/sandwich_sweep.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from attnio.algorithms.heads import count_heads, simulate_heads
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import PASSES, REGISTRY, algorithm_names, selection
from attnio.algorithms.simulation import count, simulate
from attnio.algorithms.tuning import tuned_count
from attnio.bounds.attention import computation_of
from attnio.bounds.masks import mask_bound_fields
from attnio.bounds.sandwich_points import (
    CATALOGUE_SCOPE,
    explicit_catalogue_lower_bounds,
    sandwich_point,
)
from attnio.cli import main
from attnio.exceptions import CacheOverflowError, InfeasibleError

_SKIP = (InfeasibleError, CacheOverflowError)

# ------------------------------------------------------------------------------------------
# The instance strategy
# ------------------------------------------------------------------------------------------


@st.composite
def instances(draw: Any) -> dict[str, Any]:
    """One instance: pass, n, d, M, mask (and its CLI text), heads, levels, via_cli."""
    pass_ = draw(st.sampled_from(PASSES))
    n = draw(st.one_of(st.integers(1, 40), st.sampled_from([64, 100, 128, 256, 1000, 4096])))
    d = draw(st.one_of(st.integers(1, 12), st.sampled_from([16, 32, 64, 128])))
    top = 4 * n * d + 4 * d * d
    anchors = sorted({d, d + 1, 2 * d, 3 * d + 2, 4 * d, d * d, 4 * d * d, n * d,
                      max(1, n * d - 1), 4 * n * d, top})
    M = draw(st.one_of(st.sampled_from(anchors), st.sampled_from(anchors),
                       st.integers(d, top), st.integers(1, top)))
    kind = draw(st.sampled_from(["none", "none", "full", "causal", "window", "block", "array"]))
    mask, pattern = None, None
    if kind in ("full", "causal"):
        mask = Mask.full() if kind == "full" else Mask.causal()
    elif kind == "window":
        mask = Mask.window(draw(st.integers(1, n + 2)))
    elif kind == "block":
        b = draw(st.integers(max(1, -(-n // 8)), n + 1))
        t = -(-n // b)
        pattern = np.array(draw(st.lists(st.booleans(), min_size=t * t, max_size=t * t)),
                           dtype=bool).reshape(t, t)
        mask = Mask.block_sparse(b, pattern)
    elif kind == "array":
        n = min(n, 40)  # an arbitrary mask is walked entry by entry
        seed = draw(st.integers(0, 2**32 - 1))
        density = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9]))
        mask = Mask.from_array(np.random.default_rng(seed).random((n, n)) < density)
        top = 4 * n * d + 4 * d * d
        M = min(M, top)
    H, G, B = 1, 1, 1
    if draw(st.booleans()):  # B·H heads in B·G K/V groups (G divides H)
        H = draw(st.sampled_from([1, 2, 3, 4, 8]))
        G = draw(st.sampled_from([g for g in range(1, H + 1) if H % g == 0]))
        B = draw(st.sampled_from([1, 2, 3]))
    levels = None
    if mask is None and draw(st.booleans()):
        # capacities of the bounded levels, fastest first, strictly increasing (the model's
        # rule); boundary i sits at their running sum
        caps = draw(st.lists(st.integers(1, max(3, 2 * n * d)), min_size=1, max_size=3,
                             unique=True))
        levels = tuple(sorted(caps))
    return {"pass_": pass_, "n": n, "d": d, "M": M, "mask": mask, "kind": kind,
            "pattern": pattern, "batch": B, "heads": H, "kv_heads": G, "levels": levels,
            "via_cli": draw(st.integers(0, 5)) == 0}


# ------------------------------------------------------------------------------------------
# Through the CLI's JSON
# ------------------------------------------------------------------------------------------


def _cli_json(argv: list[str], *, may_refuse: bool = False) -> dict[str, Any] | None:
    """The JSON ``attnio ARGV`` prints; None when it refuses (exit 2) and ``may_refuse``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    if code == 2 and may_refuse:
        return None
    assert code == 0, f"attnio {' '.join(argv)} exited {code}: {err.getvalue()}"
    return json.loads(out.getvalue())


def _io_of(name: str, inst: dict[str, Any], M: int, mask: Mask | None) -> int | None:
    """The exact count the library gives for one algorithm on the instance (None: no fit)."""
    p, n, d = inst["pass_"], inst["n"], inst["d"]
    try:
        if (inst["batch"], inst["heads"], inst["kv_heads"]) != (1, 1, 1) \
                or REGISTRY[name].kv_grouped:
            return count_heads(name, p, n, d, M, batch=inst["batch"], heads=inst["heads"],
                               kv_heads=inst["kv_heads"], mask=mask).io
        return count(name, p, n, d, M, mask=mask).io
    except _SKIP:
        return None


def _check_cli(inst: dict[str, Any], tmp: str) -> int:
    """``attnio simulate|gap|bounds --json`` on the instance: every printed bound ≤ every
    printed (or, for bounds, counted) exact I/O. Returns the comparisons made."""
    p, n, d, M, mask = inst["pass_"], inst["n"], inst["d"], inst["M"], inst["mask"]
    heads = ["--batch", str(inst["batch"]), "--heads", str(inst["heads"]),
             "--kv-heads", str(inst["kv_heads"])]
    multi = (inst["batch"], inst["heads"], inst["kv_heads"]) != (1, 1, 1)
    mask_args: list[str] = []
    if mask is not None:
        if inst["kind"] in ("block", "array"):
            # an arbitrary n×n array is the block mask of block size 1 with it as pattern
            block, pattern = ((mask.block, inst["pattern"]) if inst["kind"] == "block"
                              else (1, mask.array(n)))
            path = os.path.join(tmp, "pattern.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(pattern.tolist(), fh)
            mask_args = ["--mask", f"block:{block}:{path}"]
        else:
            mask_args = ["--mask", mask.label]
    where = {k: inst[k] for k in ("pass_", "n", "d", "M", "batch", "heads", "kv_heads")}
    where["mask"] = None if mask is None else mask.label
    checked = 0

    def le(command: str, route: Any, bound: Any, name: str, io_: int) -> None:
        nonlocal checked
        checked += 1
        assert bound <= io_, (f"VIOLATION `attnio {command}` prints lower bound {bound} "
                              f"[{route}] > {name}'s exact I/O {io_} at {where}")

    # attnio simulate --json (count mode): mask_lower_bound and, with heads, lower_bound
    names = [a for a in algorithm_names(p) if mask is None or REGISTRY[a].masked]
    ios = {a: _io_of(a, inst, M, mask) for a in names}
    if mask is not None or multi:
        doc = _cli_json(["simulate", "--n", str(n), "--d", str(d), "--M", str(M),
                         "--pass", p, "--algorithm", ",".join(names), "--json",
                         *heads, *mask_args], may_refuse=True)
        # it refuses only when no algorithm of the list fits M
        assert doc is not None or all(v is None for v in ios.values()), (where, ios)
        for run in (doc or {"runs": []})["runs"]:
            if run["io"] is None:
                continue
            assert run["io"] == ios[run["algorithm"]], (run, ios)
            if "mask_lower_bound" in run and run["mask_lower_bound"]["value"] is not None:
                b = run["mask_lower_bound"]
                le("simulate --mask (mask_lower_bound)", b["route"], b["value"],
                   run["algorithm"], run["io"])
            if "lower_bound" in run:
                le("simulate --heads (lower_bound)", run["lower_bound_route"],
                   run["lower_bound"], run["algorithm"], run["io"])
    # attnio gap --json (no mask: gap takes none)
    if mask is None:
        doc = _cli_json(["gap", "--n", str(n), "--d", str(d), "--M", str(M), "--pass", p,
                         "--json", *heads], may_refuse=True)
        compared = selection("levels" if multi else "gap", p)
        assert doc is not None or all(ios.get(a) is None for a in compared), (where, ios)
        for row in (doc or {"rows": []})["rows"]:
            for name, io_ in row["algorithms"].items():
                assert io_ == ios[name], (row, ios)
                le("gap", row["route"], row["lower_bound"], name, io_)
        if not multi:  # --tune: the exact block-size search (one head only)
            doc = _cli_json(["gap", "--n", str(n), "--d", str(d), "--M", str(M), "--pass", p,
                             "--json", "--tune"], may_refuse=True)
            for row in (doc or {"rows": []})["rows"]:
                for name, io_ in row["algorithms"].items():
                    assert io_ == tuned_count(name, p, n, d, M).io, (row, name)
                    le("gap --tune", row["route"], row["lower_bound"], name, io_)
    # attnio bounds --json: explicit catalogue bounds, the per-mask bound, the heads bound,
    # and with a hierarchy file every level's lower bound against its algorithms
    argv = ["bounds", "--n", str(n), "--d", str(d), "--json", "--pass", p, *heads, *mask_args]
    if inst["levels"] is not None:
        path = os.path.join(tmp, "hierarchy.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"word_bytes": 2, "levels": [
                *({"name": f"L{i}", "capacity_words": c, "bandwidth_bytes_per_s": None}
                  for i, c in enumerate(inst["levels"])),
                {"name": "slow", "capacity_words": None, "bandwidth_bytes_per_s": None}]}, fh)
        argv += ["--hierarchy", path]
        M = inst["levels"][0]  # bounds reports the first boundary's M as its instance
    else:
        argv += ["--M", str(M)]
    doc = _cli_json(argv)
    ios = {a: _io_of(a, inst, M, mask) for a in names}
    ios = {a: v for a, v in ios.items() if v is not None}
    if not multi and mask is None:
        import sympy as sp

        explicit = dict(explicit_catalogue_lower_bounds(p, n, d, M))
        for entry in doc["bounds"]:
            if entry["id"] in explicit:
                value = sp.sympify(entry["value"])
                assert value == explicit[entry["id"]], entry
                scope = CATALOGUE_SCOPE.get(entry["id"])
                for name, io_ in ios.items():
                    if scope is None or computation_of(name, p) in scope:
                        le("bounds (catalogue)", entry["id"], value, name, io_)
    if mask is not None:
        b = doc["sparse_mask"]["masked"]["mask_lower_bound"][p]
        for name, io_ in ios.items():
            le("bounds --mask (sparse_mask.masked.mask_lower_bound)", b["route"], b["value"],
               name, io_)
    if multi:
        b = doc["heads_lower_bound"][p]
        for name, io_ in ios.items():
            if mask is None:
                le("bounds --heads (heads_lower_bound)", b["route"], b["value"], name, io_)
    for lvl in doc.get("levels", []):
        for name, io_ in lvl["algorithms"].items():
            le(f"bounds --hierarchy (levels[{lvl['boundary']}].lower_bound_words)",
               lvl["lower_bound_route"], lvl["lower_bound_words"], name, io_)
    return checked


# ------------------------------------------------------------------------------------------
# The property
# ------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(instances())
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_every_printed_lower_bound_is_below_every_exact_count(inst: dict[str, Any]) -> None:
    res = sandwich_point(inst["pass_"], inst["n"], inst["d"], inst["M"], mask=inst["mask"],
                         batch=inst["batch"], heads=inst["heads"], kv_heads=inst["kv_heads"],
                         levels=inst["levels"])
    assert not res.violations, "\n".join(res.violations)
    one_head = inst["heads"] * inst["batch"] == 1
    event(f"mask {inst['kind']}, {'one head' if one_head else 'heads'}"
          f"{', hierarchy' if inst['levels'] else ''}")
    event("comparisons: 0" if res.comparisons == 0 else "comparisons: > 0")
    if inst["via_cli"]:
        with tempfile.TemporaryDirectory() as tmp:
            event(f"CLI comparisons: {'> 0' if _check_cli(inst, tmp) else '0'}")


# ------------------------------------------------------------------------------------------
# Fixed cases: the CLI on every command, tiny executed runs, the property's own failure path
# ------------------------------------------------------------------------------------------

_CLI_CASES = [
    dict(pass_="backward", n=48, d=8, M=64, mask=Mask.causal(), kind="causal", batch=1,
         heads=1, kv_heads=1, levels=None),
    dict(pass_="forward", n=40, d=4, M=17, mask=Mask.window(3), kind="window", batch=2,
         heads=4, kv_heads=2, levels=None),
    dict(pass_="backward", n=64, d=8, M=512, mask=None, kind="none", batch=1, heads=8,
         kv_heads=1, levels=(64, 448, 3584)),
    dict(pass_="forward", n=64, d=8, M=16, mask=None, kind="none", batch=1, heads=1,
         kv_heads=1, levels=(16, 100)),
]


@pytest.mark.parametrize("inst", _CLI_CASES, ids=lambda c: f"{c['pass_']}-n{c['n']}-M{c['M']}")
def test_every_command_prints_bounds_below_the_counts(inst: dict[str, Any], tmp_path) -> None:
    assert _check_cli(dict(inst, pattern=None), str(tmp_path)) > 0


def test_block_pattern_through_the_cli(tmp_path) -> None:
    pattern = np.array([[True, False, False], [True, True, False], [False, False, True]])
    inst = dict(pass_="backward", n=20, d=4, M=64, mask=Mask.block_sparse(7, pattern),
                kind="block", pattern=pattern, batch=1, heads=2, kv_heads=1, levels=None)
    assert _check_cli(inst, str(tmp_path)) > 0


@pytest.mark.parametrize("name,pass_,n,d,M,mask,heads,kv", [
    ("flash2", "backward", 12, 2, 32, Mask.causal(), 1, 1),
    ("flash2-gqa", "forward", 8, 2, 48, Mask.window(3), 4, 2),
])
def test_tiny_executed_runs_match_the_closed_form_above_the_bound(name, pass_, n, d, M, mask,
                                                                   heads, kv) -> None:
    run = (simulate_heads(name, pass_, n, d, M, heads=heads, kv_heads=kv, execute=True,
                          mask=mask) if heads > 1 else
           simulate(name, pass_, n, d, M, execute=True, mask=mask))
    assert run.closed_form_match, (name, pass_, n, d, M, mask.label)
    counted = count_heads(name, pass_, n, d, M, heads=heads, kv_heads=kv, mask=mask).io
    assert run.io == counted
    bound = mask_bound_fields(mask, n, d, M, pass_, name)["value"]
    assert bound <= run.io, f"mask_lower_bound {bound} > executed {name} I/O {run.io}"


def test_a_planted_violation_is_reported_with_its_numbers(monkeypatch) -> None:
    import attnio.bounds.attention as gr

    real = gr.best_lower_bound

    def inflated(*args: Any, **kwargs: Any):
        b = real(*args, **kwargs)
        return gr.GapBound(b.value * 1000, b.route, b.claim_id)

    monkeypatch.setattr(gr, "best_lower_bound", inflated)
    res = sandwich_point("forward", 64, 8, 256, catalogue=False, gap=False)
    assert res.violations
    msg = res.violations[0]
    assert "attention.best_lower_bound" in msg and "'n': 64" in msg and "> " in msg


def test_the_dx_bound_is_compared_with_the_dx_computation_only() -> None:
    # bwd.trivial.lower counts the inputs and output of dL/dX (4nd + 3d²): at n = 1, d = 16
    # it is 832, above standard attention's dQ, dK, dV backward at M = 15 (214 words) — a
    # different computation, not a refuted bound; small-cache-dx (dL/dX) stays above it
    assert CATALOGUE_SCOPE["bwd.trivial.lower"] == ("dX",)
    value = dict(explicit_catalogue_lower_bounds("backward", 1, 16, 15))["bwd.trivial.lower"]
    assert (value, count("standard", "backward", 1, 16, 15).io) == (832, 214)
    assert value <= count("small-cache-dx", "backward", 1, 16, 15).io
    assert not sandwich_point("backward", 1, 16, 15).violations


def test_the_whole_instance_bound_is_checked_with_mask_and_heads(monkeypatch) -> None:
    """Issue 35: with both --mask and --heads, `attnio bounds` printed the dense stacked
    bound (25,984 backward at n=64, d=8, M=64, window:1, H=4, G=1) above flash2-gqa's
    executed 17,152. The property now checks the one whole-instance bound; its false twin —
    the dense bound put back in its place — is caught."""
    from attnio.bounds import instance_bounds
    from attnio.bounds.heads import stacked_lower_bound

    args = dict(mask=Mask.window(1), heads=4, kv_heads=1, catalogue=False, gap=False)
    assert sandwich_point("backward", 64, 8, 64, **args).violations == []

    def dense(instance, M, computation="any"):  # ignores the mask: the bug of issue 35
        return stacked_lower_bound(instance.pass_, instance.n, instance.d, M,
                                   batch=instance.batch, heads=instance.heads,
                                   kv_heads=instance.kv_heads, computation=computation)

    monkeypatch.setattr(instance_bounds, "instance_lower_bound", dense)
    found = sandwich_point("backward", 64, 8, 64, **args).violations
    # the dense stacked bound (41,792 with the joint routes; 25,984 before) above flash2-gqa
    assert any("41792" in v and "17152" in v for v in found), found
