"""Tests for attnio.proofs.mask_bounds (issue 21): the per-mask certified lower bound.

The bound must sit below every masked algorithm's exact I/O (count mode at small and huge n,
executed at tiny n), reproduce the dense routes at the mask ``full``, and its claims must be
proved while every planted twin — the class formula ``sparse.lower`` claimed for one mask
first — is rejected.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import algorithm_names, get_algorithm
from attnio.algorithms.simulation import count, simulate
from attnio.bounds.attention import (
    compulsory_io,
    computation_of,
    lower_bound_routes,
    segment_product_cap,
)
from attnio.bounds.masks import (
    best_mask_lower_bound,
    mask_bound_fields,
    mask_lower_bound_routes,
    mask_run_fields,
    masked_compulsory_io,
    masked_segment_route,
    sparse_bound_values,
)
from attnio.exceptions import CacheOverflowError, InvalidInputError
from attnio.proofs.mask_bounds import FALSE_TWINS
from attnio.proofs.registry import CheckContext

CTX = CheckContext(z3_timeout_ms=20_000)


def _block(n: int, b: int) -> Mask:
    """Block-diagonal plus block column 0 on even block rows (a block-sparse mask whose tiles
    are partly empty)."""
    t = -(-n // b)
    i, j = np.indices((t, t))
    return Mask.block_sparse(b, (i == j) | ((j == 0) & (i % 2 == 0)))


def _sparse_rows(n: int) -> Mask:
    """An array mask with empty rows and columns: rows i ≡ 0 (mod 3) keep |i − j| ≤ 1."""
    i, j = np.indices((n, n))
    return Mask.from_array((i % 3 == 0) & (abs(i - j) <= 1))


MASKS = {"none": None, "causal": Mask.causal(), "window:1": Mask.window(1),
         "window:3": Mask.window(3), "block": "block", "rows": "rows"}


def _mask(key: str, n: int) -> Mask | None:
    m = MASKS[key]
    return _block(n, 4) if m == "block" else _sparse_rows(n) if m == "rows" else m


def _masked_algorithms(pass_: str) -> list[str]:
    return [a for a in algorithm_names(pass_) if get_algorithm(a).masked
            and computation_of(a, pass_) in (("forward",) if pass_ == "forward"
                                             else ("recompute", "given-scores"))]


@pytest.mark.trust
def test_compulsory_by_hand() -> None:
    # full: the dense routes (4nd, 8nd, 8nd + n²)
    assert masked_compulsory_io("forward", Mask.full(), 5, 3) == compulsory_io("forward", 5, 3)
    assert masked_compulsory_io("backward", Mask.full(), 5, 3) == compulsory_io("backward", 5, 3)
    assert masked_compulsory_io("backward", Mask.full(), 5, 3, "given-scores") == 8 * 15 + 25
    # rows 0, 3 keep entries (ρ_Q = 2); columns 0, 1, 2, 3, 4 → ρ_K = 4 at n = 5: (0,0), (0,1),
    # (3,2), (3,3), (3,4)
    m = _sparse_rows(5)
    assert m.needed_rows(5) == (2, 5) and m.z_qk(5) == 5
    assert masked_compulsory_io("forward", m, 5, 3) == 2 * 3 * (2 + 5)
    assert masked_compulsory_io("backward", m, 5, 3) == 4 * 3 * (2 + 5)
    assert masked_compulsory_io("backward", m, 5, 3, "given-scores") == 4 * 3 * 7 + 5


@pytest.mark.trust
def test_routes_reproduce_the_dense_routes_at_full() -> None:
    for pass_, classes in (("forward", ("forward",)), ("backward", ("recompute", "given-scores"))):
        for c in classes:
            dense = [r.value for r in lower_bound_routes(pass_, 256, 8, 64, c)[:3]]
            assert [r.value for r in mask_lower_bound_routes(pass_, Mask.full(), 256, 8, 64, c)] \
                == dense


@pytest.mark.trust
def test_segment_route_counts_kept_pairs_only() -> None:
    # window:1 at n = 2^20, d = 8: N = 2·n·d leaves (recompute), far fewer than 2n²d
    value, L = masked_segment_route(2 * 1_048_576 * 8, 8, 64)
    assert 0 < value < 2 * 1_048_576 * 8 and L % 64 == 0
    assert masked_segment_route(0, 8, 64) == (0, 0)
    with pytest.raises(InvalidInputError, match="N=-1"):
        masked_segment_route(-1, 8, 64)


# default tier: 12 spread cases; --runslow: every (pass, mask, size)
@pytest.mark.default_slice(12)
@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("key", list(MASKS))
@pytest.mark.parametrize("n,d,M", [(64, 4, 16), (64, 4, 256), (200, 8, 64), (200, 8, 4096)])
def test_bound_below_every_masked_count(pass_: str, key: str, n: int, d: int, M: int) -> None:
    mask = _mask(key, n)
    compared = 0
    for name in _masked_algorithms(pass_):
        try:
            io = count(name, pass_, n, d, M, mask=mask).io
        except (InvalidInputError, CacheOverflowError):  # no tile fits M, or overflows
            continue
        bound = mask_bound_fields(mask or Mask.full(), n, d, M, pass_, name)["value"]
        assert 0 < bound <= io, (name, bound, io)
        compared += 1
    assert compared >= 2


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("key", list(MASKS))
def test_bound_below_every_executed_run(pass_: str, key: str) -> None:
    n, d, M = 12, 2, 32
    mask = _mask(key, n)
    compared = 0
    for name in _masked_algorithms(pass_):
        try:
            result = simulate(name, pass_, n, d, M, execute=True, mask=mask)
        except (InvalidInputError, CacheOverflowError):
            continue
        assert result.peak_fast_words <= M
        bound = best_mask_lower_bound(pass_, mask or Mask.full(), n, d, M,
                                      computation_of(name, pass_)).value
        assert 0 < bound <= result.io, (name, bound, result.io)
        compared += 1
    assert compared >= 2


@pytest.mark.trust
def test_issue_21_window_1_at_a_million() -> None:
    """The case of issue 21: flash2 backward, window:1, n = 2^20, d = 8, M = 64 moved 0.089 ×
    the printed class formula; the printed per-mask bound is below it (ratio 1.42)."""
    n, d, M, mask = 1_048_576, 8, 64, Mask.window(1)
    io = count("flash2", "backward", n, d, M, mask=mask).io
    fields = mask_run_fields(mask, n, d, M, "backward", "flash2")
    assert io == 95_420_416
    assert fields["mask_lower_bound"]["value"] == 64 * n <= io           # compulsory 8d·n
    assert fields["mask_lower_bound"]["computation"] == "recompute"
    # the class formula is still printed, labelled, and is above this mask's algorithm
    assert fields["sparse_class_bound"]["value_float"] > io
    assert "NOT a lower bound for this mask" in fields["sparse_class_bound"]["scope"]
    for small in (4096, 16384, 262144):
        assert best_mask_lower_bound("backward", mask, small, d, M).value <= count(
            "flash2", "backward", small, d, M, mask=mask).io


@pytest.mark.trust
def test_issue_21_executed_case_count() -> None:
    """n = 3,000, d = 1, M = 11, window:1: flash2 backward moves 42,000 words (the executed
    count equals the closed form, tests/algorithms/test_counts.py) ≥ the bound 24,000; the
    old printed bound was 49,543."""
    n, d, M, mask = 3000, 1, 11, Mask.window(1)
    assert count("flash2", "backward", n, d, M, mask=mask).io == 42_000
    assert best_mask_lower_bound("backward", mask, n, d, M, "recompute").value == 24_000
    assert int(sparse_bound_values(mask, n, d, M)["sparse_class_bound"]["value_float"]) == 49_543


@pytest.mark.slow
def test_issue_21_executed_case_executed() -> None:
    n, d, M, mask = 3000, 1, 11, Mask.window(1)
    result = simulate("flash2", "backward", n, d, M, execute=True, mask=mask)
    assert result.io == 42_000 and result.peak_fast_words <= M
    assert best_mask_lower_bound("backward", mask, n, d, M).value <= result.io


@pytest.mark.trust
def test_empty_mask_bound_is_zero() -> None:
    empty = Mask.block_sparse(2, np.zeros((2, 2), dtype=bool))
    assert best_mask_lower_bound("backward", empty, 4, 2, 8).value == 0
    assert best_mask_lower_bound("forward", empty, 4, 2, 8).value == 0


@pytest.mark.trust
@pytest.mark.parametrize("args,fragment", [
    (("sideways", Mask.causal(), 4, 2, 8, "forward"), "pass='sideways'"),
    (("forward", Mask.causal(), 4, 2, 8, "recompute"), "computation='recompute'"),
    (("backward", Mask.causal(), 0, 2, 8, "recompute"), "n"),
    (("backward", Mask.window(2), 4, 2, 0, "recompute"), "M"),
])
def test_bad_input_is_one_line(args, fragment) -> None:
    with pytest.raises(InvalidInputError, match=fragment) as info:
        mask_lower_bound_routes(*args)
    assert "\n" not in str(info.value)


@pytest.mark.trust
def test_fields_of_a_computation_without_a_route() -> None:
    f = mask_bound_fields(Mask.causal(), 8, 2, 16, "backward", "small-cache-dx")
    assert f["value"] is None and f["computation"] == "dX"


@pytest.mark.trust
def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


@pytest.mark.trust
def test_class_bound_twin_is_refuted_by_an_algorithm_count() -> None:
    """The issue-21 defect is refuted by a masked algorithm's exact count, not by fiat, and
    also at the issue's own size."""
    twin = next(t for t in FALSE_TWINS if t.id == "mask.twin.class_bound_per_mask")
    cx = twin.check(CTX).counterexample
    mask = Mask.window(int(cx["mask"].split(":")[1])) if cx["mask"].startswith("window") \
        else None
    assert cx["bound"] > cx["io"] == count(cx["algorithm"], cx["pass"], cx["n"], cx["d"],
                                          cx["M"], mask=mask).io
    from attnio.proofs.mask_bounds import _below_algorithms, _twin_class_bound

    issue = _below_algorithms(CTX, route_fn=_twin_class_bound,
                              grid=[("window:1", 1_048_576, 8, 64)]).counterexample
    assert issue is not None and issue["bound"] > issue["io"] == count(
        issue["algorithm"], issue["pass"], 1_048_576, 8, 64, mask=Mask.window(1)).io


@pytest.mark.parametrize("n", [4096, 65536, 1_048_576])
def test_issue_21_cli_prints_a_bound_below_the_run(n: int, capsys) -> None:
    """`attnio simulate --mask window:1 --json`: the printed per-mask bound is below the run
    (the old printed sparse_lower_bound gave ratios 1.42 … 0.089); the class formula is printed
    only as sparse_class_bound and no ratio is taken to it."""
    import json

    from attnio.cli import main

    assert main(["simulate", "--n", str(n), "--d", "8", "--M", "64", "--algorithm", "flash2",
                 "--pass", "backward", "--mask", "window:1", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["mask_lower_bound"]["value"] == 64 * n <= run["io"]
    assert run["mask_ratio"] == run["io"] / (64 * n) >= 1
    assert "sparse_lower_bound" not in run and "sparse_ratio" not in run
    assert "NOT a lower bound for this mask" in run["sparse_class_bound"]["scope"]


def test_multi_head_runs_take_their_ratio_to_the_stacked_bound(capsys) -> None:
    import json

    from attnio.bounds.masks import best_mask_lower_bound
    from attnio.cli import main

    assert main(["simulate", "--n", "64", "--d", "8", "--M", "256", "--algorithm", "flash2",
                 "--pass", "backward", "--mask", "causal", "--heads", "2", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    bound = best_mask_lower_bound("backward", Mask.causal(), 64, 8, 256, "recompute", heads=2)
    assert run["mask_lower_bound"]["value"] == bound.value
    assert "2 query heads, 2 K/V heads" in run["mask_lower_bound"]["scope"]
    assert run["mask_ratio"] == run["io"] / bound.value
    assert main(["simulate", "--n", "64", "--d", "8", "--M", "256", "--algorithm", "flash2",
                 "--pass", "backward", "--mask", "causal"]) == 0
    assert "certified for this mask" in capsys.readouterr().out


@pytest.mark.trust
def test_stacked_heads_count_query_and_kv_rows_separately() -> None:
    from attnio.algorithms.masks import parse_mask
    from attnio.bounds.masks import masked_compulsory_io
    mask = parse_mask("causal")
    one = masked_compulsory_io("backward", mask, 64, 8)
    assert one == 4 * 8 * (64 + 64)
    assert masked_compulsory_io("backward", mask, 64, 8, batch=2, heads=4, kv_heads=2) == \
        4 * 8 * (2 * 4 * 64 + 2 * 2 * 64)
    assert masked_compulsory_io("backward", mask, 64, 8, "given-scores", heads=4, kv_heads=1) \
        == 4 * 8 * (4 * 64 + 64) + 4 * mask.z_qk(64)
    assert masked_compulsory_io("forward", mask, 64, 8, heads=4, kv_heads=4) == \
        2 * 8 * (4 * 64 + 4 * 64)


@pytest.mark.trust
def test_stacked_heads_route_charges_every_heads_products() -> None:
    from attnio.algorithms.masks import parse_mask
    from attnio.bounds.masks import mask_lower_bound_routes, masked_segment_route
    mask = parse_mask("window:7")
    routes = mask_lower_bound_routes("backward", mask, 256, 8, 64, "recompute", heads=4,
                                     kv_heads=2)
    value, _ = masked_segment_route(2 * 4 * mask.z_qk(256) * 8, 8, 64)
    assert routes[1].value == value and "4 heads" in routes[1].route
    one = mask_lower_bound_routes("backward", mask, 256, 8, 64, "recompute")
    assert [r.value for r in one] == [r.value for r in mask_lower_bound_routes(
        "backward", mask, 256, 8, 64, "recompute", batch=1, heads=1, kv_heads=1)]


def test_simulate_with_heads_and_a_mask_prints_the_stacked_bound(capsys) -> None:  # noqa: ANN001
    import json as _json

    from attnio.cli import main
    assert main(["simulate", "--n", "256", "--d", "16", "--M", "1024", "--algorithm",
                 "flash2,flash2-gqa", "--pass", "backward", "--mask", "causal", "--heads", "4",
                 "--kv-heads", "2", "--json"]) == 0
    doc = _json.loads(capsys.readouterr().out)
    rows = doc if isinstance(doc, list) else (doc.get("runs") or doc.get("rows"))
    for row in rows:
        bound = row["mask_lower_bound"]
        assert "4 query heads, 2 K/V heads" in bound["scope"]
        assert 0 < bound["value"] <= row["io"] and row["mask_ratio"] >= 1


# ---- exact outputs of the checkers (the mutation survivors of proofs/mask_bounds.py) ----------
@pytest.mark.trust
def test_blockdiag_grid_mask_is_the_diagonal_plus_column_0_on_even_block_rows() -> None:
    from attnio.proofs.mask_bounds import _mask

    # 4×4 blocks of 2: the diagonal (4 blocks) and block (2, 0) ((0, 0) is on the diagonal)
    m = _mask("blockdiag:2:4")
    assert m.z_qk(8) == 5 * 2 * 2
    assert np.array_equal(m.array(8), _block(8, 2).array(8))
    blocks = np.zeros((4, 4), dtype=bool)
    blocks[np.arange(4), np.arange(4)] = True
    blocks[2, 0] = True
    assert np.array_equal(m.array(8), np.kron(blocks, np.ones((2, 2), dtype=bool)))


@pytest.mark.trust
def test_segment_subset_check_counts_and_reports_exactly() -> None:
    from attnio.proofs.mask_bounds import _segment_subset_check

    # n = d = 1, full: one pair, one leaf in every segment (most = 1: trivial); causal at
    # n = d = 2, M = 1: the brute-force maxima exceed 1 for two of the four L
    v = _segment_subset_check(CTX, grid=[((1, 1), "full", 1), ((2, 2), "causal", 1)])
    assert v.proved
    assert v.detail == ("8 (mask, n, d, M, L): cap ≥ the brute-force maximum over every "
                        "segment shape of the kept pairs' leaves")
    assert (v.evidence.instances, v.evidence.nontrivial_instances) == (8, 2)
    bad = _segment_subset_check(CTX, cap=lambda d, M, L: 0, grid=[((1, 1), "full", 1)])
    assert bad.counterexample == {"n": 1, "d": 1, "mask": "full", "M": 1, "L": 1, "cap": 0,
                                  "brute_force": 1}
    assert bad.detail == "a segment holds more designated leaves of kept pairs than the cap"


@pytest.mark.trust
def test_routes_consistent_reports_exactly() -> None:
    from attnio.proofs.mask_bounds import _route_without_last, _routes_consistent

    v = _routes_consistent(CTX, segment=_route_without_last, grid=[("forward", 16, 1, 3)])
    assert v.counterexample == {"mask": "causal", "pass": "forward", "n": 16, "d": 1, "M": 3,
                                "value": 48, "max_L": 45}
    assert v.detail == "the masked segment route is not max_L L(⌈N/cap⌉ − 1)"
    v = _routes_consistent(CTX, grid=[("forward", 16, 1, 3)])       # the dense route + 3 masks
    assert v.proved and (v.evidence.instances, v.evidence.nontrivial_instances) == (4, 4)
    v = _routes_consistent(CTX, route_fn=lambda *a, **k: [], grid=[("forward", 16, 1, 3)])
    assert v.counterexample == {"pass": "forward", "n": 16, "d": 1, "M": 3,
                                "computation": "forward", "masked": [], "dense": [64, 84, 116]}
    assert v.detail == "at the mask full the routes differ from the dense routes"


@pytest.mark.trust
def test_below_algorithms_reports_exactly() -> None:
    from attnio.bounds.attention import GapBound
    from attnio.proofs.mask_bounds import _below_algorithms

    v = _below_algorithms(CTX, route_fn=lambda *a, **k: [GapBound(10**9, "huge", "x")],
                          grid=[("window:1", 16, 2, 8)])
    assert v.counterexample == {"mask": "window:1", "pass": "forward", "n": 16, "d": 2, "M": 8,
                                "route": "huge", "bound": 10**9, "algorithm": "standard",
                                "io": count("standard", "forward", 16, 2, 8,
                                            mask=Mask.window(1)).io}
    assert v.detail == "a per-mask lower bound exceeds a masked algorithm's exact I/O"


@pytest.mark.trust
def test_class_bound_twin_route() -> None:
    from attnio.bounds.attention import GapBound
    from attnio.proofs.mask_bounds import _twin_class_bound

    # causal, n = 4, d = 2, M = 8: Z_in = d·n = 8, Z_QK = 10: min(64 // 8, isqrt(640 // 8)) = 8
    assert _twin_class_bound("forward", Mask.causal(), 4, 2, 8, "forward") == [
        GapBound(8, "sparse.lower (class bound) as a per-mask bound", "twin")]


@pytest.mark.trust
def test_routes_by_hand_without_a_segment_length() -> None:
    """window:1 at n = 4, d = 2, M = 8: N = 8 leaves never fill a second segment, so the
    segment route is 0 with no L in its name; the compulsory route names its claim."""
    from attnio.bounds.attention import GapBound

    assert mask_lower_bound_routes("forward", Mask.window(1), 4, 2, 8, "forward") == [
        GapBound(32, "compulsory (needed rows)", "mask.below_algorithms"),
        GapBound(0, "segment products (kept Q·Kᵀ)", "mask.routes_consistent"),
        GapBound(16, "segment products (kept Q·Kᵀ) + compulsory rest", "mask.routes_consistent")]


@pytest.mark.trust
def test_fields_for_every_algorithm() -> None:
    assert mask_bound_fields(Mask.causal(), 8, 2, 16, "backward") == {
        "value": 128, "route": "recompute: compulsory (needed rows)",
        "claim_id": "mask.below_algorithms", "computation": "any",
        "scope": "this mask, one head, every schedule (certified; notes/sparse.md)"}


@pytest.mark.trust
def test_the_claim_records_say_what_they_are() -> None:
    from attnio.proofs import mask_bounds as mb
    for claim in [*mb.CLAIMS, *mb.FALSE_TWINS]:
        assert claim.family == "mask_bounds" and claim.method == mb._EXACT
        assert claim.reconstructed is True and claim.source == mb._SRC
        assert claim.evidence_kind == "exhaustive"
    assert all(t.expect == "refuted" and t.twin_of for t in mb.FALSE_TWINS)


@pytest.mark.trust
def test_bad_sizes_are_named_and_batches_counted() -> None:
    from attnio.algorithms.masks import parse_mask
    from attnio.bounds.masks import mask_bound_fields, mask_lower_bound_routes
    mask = parse_mask("causal")
    with pytest.raises(InvalidInputError, match=r"^d=0 must be a positive integer$"):
        mask_lower_bound_routes("forward", mask, 8, 0, 4, "forward")
    one = mask_lower_bound_routes("backward", mask, 16, 2, 8, "recompute", heads=2, kv_heads=1)
    two = mask_lower_bound_routes("backward", mask, 16, 2, 8, "recompute", batch=2, heads=2,
                                  kv_heads=1)
    assert two[0].value == 2 * one[0].value          # compulsory I/O doubles with the batch
    fields = mask_bound_fields(mask, 16, 2, 8, "backward", "flash2", heads=4, kv_heads=2)
    assert "4 query heads, 2 K/V heads" in fields["scope"]


@pytest.mark.trust
def test_the_brute_force_takes_the_largest_partial_pairs_first() -> None:
    from attnio.proofs.mask_bounds import _masked_leaf_table
    table = _masked_leaf_table(2, 3, {(0, 0), (0, 1), (1, 1)})
    mixed = 0
    for _, _, prefix in table:
        steps = [b - a for a, b in zip(prefix, prefix[1:])]
        assert steps == sorted(steps, reverse=True)
        mixed += len(set(steps)) > 1
    assert mixed > 0                 # entries whose partial pairs differ: the order matters


# ---- one planted violation per side condition of _below_algorithms (mask.below_algorithms) -----

BELOW = [("causal", 64, 4, 16)]


def _least_io(pass_: str, mask: Mask, n: int, d: int, M: int, computation: str,
              shape=None) -> int:
    """The least exact count among the masked algorithms of one computation class."""
    from attnio.proofs.mask_bounds import _masked_counts

    counts = [io for name, io in _masked_counts(pass_, mask, n, d, M, shape).items()
              if computation_of(name, pass_) == computation]
    return min(counts)


def _planted(extra: int = 0, *, when=lambda pass_, heads: True, value=_least_io):
    """A route function claiming the least count (+ ``extra`` where ``when`` holds)."""
    from attnio.bounds.attention import GapBound

    def routes(pass_, mask, n, d, M, computation, **heads):
        shape = tuple(heads[k] for k in ("batch", "heads", "kv_heads")) if heads else None
        least = value(pass_, mask, n, d, M, computation, shape)
        return [GapBound(least + (extra if when(pass_, heads) else 0), "planted", "twin")]
    return routes


def _below(route_fn, grid=BELOW):
    from attnio.proofs.mask_bounds import _below_algorithms

    return _below_algorithms(CTX, route_fn=route_fn, grid=grid)


@pytest.mark.trust
def test_twin___below_algorithms__both_passes() -> None:
    """Issue 36: a checker comparing the forward pass only missed a backward bound above the
    backward counts."""
    assert _below(_planted()).proved
    verdict = _below(_planted(1, when=lambda pass_, heads: pass_ == "backward"))
    assert verdict.verdict == "refuted" and verdict.counterexample["pass"] == "backward"
    verdict = _below(_planted(1, when=lambda pass_, heads: pass_ == "forward"))
    assert verdict.verdict == "refuted" and verdict.counterexample["pass"] == "forward"


@pytest.mark.trust
def test_twin___below_algorithms__every_algorithm() -> None:
    from attnio.proofs.mask_bounds import _masked_counts

    def most(pass_, mask, n, d, M, computation, shape):
        return max(io for name, io in _masked_counts(pass_, mask, n, d, M, shape).items()
                   if computation_of(name, pass_) == computation)

    verdict = _below(_planted(value=most))        # above every algorithm but the worst
    assert verdict.verdict == "refuted"
    io = verdict.counterexample["io"]
    assert verdict.counterexample["bound"] > io


@pytest.mark.trust
def test_twin___below_algorithms__every_route() -> None:
    from attnio.bounds.attention import GapBound

    honest = _planted()

    def two(*args, **heads):
        first = honest(*args, **heads)[0]
        return [first, GapBound(first.value + 1, "second", "twin")]

    verdict = _below(two)
    assert verdict.verdict == "refuted" and verdict.counterexample["route"] == "second"


@pytest.mark.trust
def test_below_algorithms_counts_the_comparisons_and_the_positive_routes() -> None:
    from attnio.bounds.attention import GapBound

    one = _below(lambda *a, **k: [GapBound(1, "one", "x"), GapBound(0, "zero", "x")])
    assert one.proved and one.evidence.instances == 2 * one.evidence.nontrivial_instances > 0
    assert one.detail == (f"{one.evidence.instances} (route, masked algorithm, mask, size) "
                          "comparisons, exact integers")


@pytest.mark.trust
def test_twin___below_algorithms__route_within_count() -> None:
    assert _below(_planted(0)).proved
    verdict = _below(_planted(1))
    assert verdict.verdict == "refuted"
    assert verdict.counterexample["bound"] == verdict.counterexample["io"] + 1


@pytest.mark.trust
def test_twin___below_algorithms__stacked_heads() -> None:
    grid = [("causal", 64, 4, 16, (2, 4, 2))]
    assert _below(_planted(), grid=grid).proved
    verdict = _below(_planted(1, when=lambda pass_, heads: bool(heads)), grid=grid)
    assert verdict.verdict == "refuted" and verdict.counterexample["heads"] == 4
    assert _below(_planted(1, when=lambda pass_, heads: bool(heads))).proved   # no heads: none


# ---- pins of what mutants of bounds/masks.py and proofs/mask_bounds.py changed silently --------
# (benchmarks/mutation.py, issue 36's run, seed 13)

@pytest.mark.trust
def test_the_best_bound_over_classes_sees_the_heads() -> None:
    stacked = best_mask_lower_bound("backward", Mask.causal(), 64, 4, 16, batch=2, heads=4,
                                    kv_heads=2)
    assert stacked.value == 27968 and stacked.route.startswith("recompute: ")
    assert best_mask_lower_bound("backward", Mask.causal(), 64, 4, 16).value == 3744


@pytest.mark.trust
def test_run_fields_name_both_passes_with_the_heads() -> None:
    from attnio.bounds.masks import CLASS_BOUND_SCOPE

    f = mask_run_fields(Mask.causal(), 64, 4, 16, heads=4, kv_heads=2)
    who = "this mask, 4 query heads, 2 K/V heads, every schedule (certified; notes/sparse.md)"
    assert f["mask_lower_bound"] == {
        "forward": {"value": 6976, "route": "segment products (kept Q·Kᵀ, 4 heads), L = 2M + "
                                            "compulsory rest",
                    "claim_id": "mask.routes_consistent", "computation": "any", "scope": who},
        "backward": {"value": 13984, "route": "recompute: segment products (kept Q·Kᵀ + "
                                              "dO·Vᵀ, 4 heads), L = 2M + compulsory rest",
                     "claim_id": "mask.routes_consistent", "computation": "any",
                     "scope": who}}
    assert f["sparse_crossover"] == {"value": "2048/65", "value_float": 2048 / 65}
    empty = sparse_bound_values(Mask.from_array(np.zeros((4, 4), dtype=bool)), 4, 2, 4)
    assert empty == {"mask": "array:4x4", "Z_in": 8, "Z_QK": 0,
                     "sparse_class_bound": {"value": "0", "value_float": 0.0,
                                            "scope": CLASS_BOUND_SCOPE},
                     "sparse_crossover": None}


@pytest.mark.trust
def test_refused_sizes_are_named() -> None:
    with pytest.raises(InvalidInputError, match="^n=0 must be a positive integer$"):
        mask_lower_bound_routes("forward", Mask.causal(), 0, 4, 16, "forward")
    with pytest.raises(InvalidInputError, match="^M=0 must be a positive integer$"):
        masked_segment_route(10, 4, 0)


@pytest.mark.trust
def test_masked_counts_are_the_algorithms_counts_with_the_gqa_one_for_heads() -> None:
    from attnio.algorithms.heads import GQA_ALGORITHMS, count_heads
    from attnio.proofs.mask_bounds import _masked_counts

    mask = Mask.causal()
    single = _masked_counts("forward", mask, 256, 8, 64)
    assert all(io == count(name, "forward", 256, 8, 64, mask=mask).io
               for name, io in single.items())
    stacked = _masked_counts("forward", mask, 256, 8, 64, (2, 4, 2))
    assert set(GQA_ALGORITHMS) <= set(stacked) and set(single) <= set(stacked)
    assert all(io == count_heads(name, "forward", 256, 8, 64, batch=2, heads=4, kv_heads=2,
                                 mask=mask).io for name, io in stacked.items())


@pytest.mark.trust
def test_routes_consistent_proves_with_its_detail() -> None:
    from attnio.proofs.mask_bounds import _routes_consistent

    v = _routes_consistent(CTX, grid=[("forward", 16, 1, 3)])
    assert v.detail == ("4 comparisons: dense routes reproduced at full; masked segment route "
                        "= max_L L(⌈N/cap⌉ − 1) exactly")


@pytest.mark.trust
def test_the_segment_check_tries_every_length_up_to_4M() -> None:
    """A cap wrong at L = 3M only is caught: each multiple t = 1, 2, 3, 4 is tried."""
    from attnio.proofs.mask_bounds import _segment_subset_check

    grid = [((2, 2), "causal", 1)]
    assert _segment_subset_check(CTX, grid=grid).proved
    wrong_at_3 = lambda d, M, L: 0 if L == 3 * M else 10**6   # noqa: E731
    verdict = _segment_subset_check(CTX, cap=wrong_at_3, grid=grid)
    assert verdict.verdict == "refuted" and verdict.counterexample["L"] == 3


@pytest.mark.trust
def test_a_claim_record_carries_what_it_is_given() -> None:
    from attnio.proofs.mask_bounds import _claim

    def check(ctx):
        return None

    claim = _claim("x.y", "s", "f", check, twin_of="x", expect_reason="why")
    assert (claim.id, claim.statement, claim.formal, claim.check_fn, claim.twin_of,
            claim.expect, claim.expect_reason, claim.family, claim.evidence_kind,
            claim.reconstructed) == ("x.y", "s", "f", check, "x", "refuted", "why",
                                     "mask_bounds", "exhaustive", True)


@pytest.mark.trust
def test_run_fields_of_one_algorithm_see_the_kv_groups() -> None:
    grouped = mask_run_fields(Mask.causal(), 64, 4, 16, "backward", "flash2", heads=4,
                              kv_heads=2)["mask_lower_bound"]
    alone = mask_run_fields(Mask.causal(), 64, 4, 16, "backward", "flash2",
                            heads=4)["mask_lower_bound"]
    assert (grouped["value"], alone["value"]) == (13984, 15008)
    assert grouped["scope"] == ("this mask, 4 query heads, 2 K/V heads, every schedule "
                                "(certified; notes/sparse.md)")


@pytest.mark.trust
def test_the_witnessed_route_names_its_segment_length() -> None:
    from attnio.bounds.attention import witnessed_routes

    name = "segment products (dO·Vᵀ + dS·K, dS witnessed by the given scores), L = 2M"
    assert [(r.value, r.route) for r in witnessed_routes(256, 8, 64)] == [
        (69632, name), (77824, name + " + compulsory rest")]


@pytest.mark.trust
def test_the_twins_are_what_they_say() -> None:
    """The planted variants of the claims, pinned: the cap over 3 (at least 1) and the dense
    segment route alone."""
    from attnio.proofs.mask_bounds import _cap_dense_pairs_over_mask, _twin_dense_segment

    assert [_cap_dense_pairs_over_mask(1, 1, 1), _cap_dense_pairs_over_mask(1, 2, 2)] == [1, 1]
    assert _cap_dense_pairs_over_mask(8, 64, 128) == segment_product_cap(8, 64, 128) // 3
    assert _twin_dense_segment("forward", Mask.causal(), 16, 2, 8, "forward") == \
        lower_bound_routes("forward", 16, 2, 8, "forward")[1:2]
