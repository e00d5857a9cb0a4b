"""Tests for attnio.proofs.stacked_heads: the stacked-head bound, its claims and false twins."""

from __future__ import annotations

import pytest

from attnio.bounds.attention import (
    best_lower_bound,
    compulsory_io,
    lower_bound_routes,
    segment_route,
)
from attnio.bounds.heads import (
    stacked_compulsory,
    stacked_lower_bound,
    stacked_lower_bound_routes,
    stacked_rest,
)
from attnio.exceptions import InvalidInputError
from attnio.proofs.registry import CheckContext
from attnio.proofs.stacked_heads import (
    CLAIMS,
    FALSE_TWINS,
    _compulsory_check,
    _segment_check,
    _stacked_dag,
)


@pytest.mark.trust
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved(claim) -> None:
    verdict = claim.check()
    assert verdict.verdict == "proved", verdict
    assert verdict.evidence.nontrivial_instances > 0


@pytest.mark.trust
@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_twins_rejected_on_their_own_path(twin) -> None:
    verdict = twin.check()
    assert verdict.verdict == "refuted", verdict
    assert twin.rejects(verdict)
    cx = verdict.counterexample
    if twin.id == "heads.twin.kv_per_query_head":
        assert cx["kv_heads"] < cx["heads"] and cx["formula"] > cx["dag"]
    elif twin.id == "heads.twin.cap_split_by_head":
        assert cx["brute_force"] > cx["cap"] and cx["group"] * cx["groups"] > 1
    else:
        assert cx["bound"] > cx["permitted"]


@pytest.mark.trust
def test_each_check_fails_on_a_planted_input() -> None:
    ctx = CheckContext()
    off_by_one = lambda *a, **k: stacked_compulsory(*a, **k) + 1  # noqa: E731
    assert _compulsory_check(ctx, formula=off_by_one).verdict == "refuted"
    # a route one word below its maximum is caught too (not the maximum over L)
    def low(*a, **k):
        return [r.__class__(r.value - 1, r.route, r.claim_id) if r.value else r
                for r in stacked_lower_bound_routes(*a, **k)]
    v = _segment_check(ctx, routes=low)
    assert v.verdict == "refuted" and "not the maximum" in v.detail


@pytest.mark.trust
def test_composed_dag_shares_kv_and_sums_partials() -> None:
    from attnio.graphs.anytime import compulsory_io as dag_compulsory

    dag, outputs = _stacked_dag("backward", 2, 1, 1, 4, 2)
    # dQ per query head (4 × 2), dK and dV per group (2 × 2 × 2)
    assert len(outputs) == 4 * 2 + 2 * 2 * 2
    kv = {v for v in dag if ":K[" in v or ":V[" in v}
    assert len(kv) == 2 * 2 * 2  # K, V: 2 groups × n·d × 2 matrices
    assert dag_compulsory(dag, outputs) == (4 * 4 + 4 * 2) * 2 * 1


def test_single_head_is_the_dense_route() -> None:
    for pass_, cls in (("forward", "forward"), ("backward", "recompute"),
                       ("backward", "given-scores")):
        for n, d, M in ((64, 8, 64), (4096, 64, 1024), (1024, 16, 65536)):
            single = lower_bound_routes(pass_, n, d, M, cls)
            stacked = stacked_lower_bound_routes(pass_, n, d, M, cls)
            assert [r.value for r in stacked] == [r.value for r in single]
        assert stacked_lower_bound(pass_, n, d, M).value == best_lower_bound(pass_, n, d, M).value
    assert stacked_compulsory("backward", 7, 3) == compulsory_io("backward", 7, 3)
    assert stacked_compulsory("forward", 7, 3) == compulsory_io("forward", 7, 3)


def test_exact_counts() -> None:
    n, d = 4096, 64
    assert stacked_compulsory("backward", n, d, heads=32, kv_heads=8) == 41943040
    assert stacked_compulsory("backward", n, d, batch=2, heads=32, kv_heads=8) == 2 * 41943040
    assert stacked_compulsory("backward", n, d, heads=32, kv_heads=8,
                              computation="given-scores") == 41943040 + 32 * n * n
    assert stacked_rest("backward", n, d, "recompute", heads=32, kv_heads=8) == (
        2 * 32 + 2 * 8) * n * d
    assert stacked_rest("backward", n, d, "given-scores", heads=32, kv_heads=8) == (
        32 * n * n + 3 * 32 * n * d + 3 * 8 * n * d)
    seg = stacked_lower_bound_routes("backward", n, d, 16384, "recompute", heads=32, kv_heads=8)
    # the products of all 32 query heads, two families, counted one by one
    assert seg[1].value == segment_route(n, d, 16384, products=2 * 32)[0] > 0
    assert seg[1].value > 32 * segment_route(n, d, 16384, products=2)[0]
    assert seg[2].value == seg[1].value + (2 * 32 + 2 * 8) * n * d


@pytest.mark.parametrize("kwargs, match", [
    ({"heads": 32, "kv_heads": 5}, "heads=32 is not a multiple of kv_heads=5"),
    ({"batch": 0}, "batch=0 must be a positive integer"),
])
def test_bad_shapes(kwargs, match) -> None:
    with pytest.raises(InvalidInputError, match=match):
        stacked_lower_bound("backward", 64, 8, 64, **kwargs)
    with pytest.raises(InvalidInputError, match="computation='dx'"):
        stacked_lower_bound("backward", 64, 8, 64, computation="dx")


# ---- exact outputs of the checkers (the mutation survivors of proofs/stacked_heads.py) --------
@pytest.mark.trust
def test_bound_by_hand_names_its_class_and_claim() -> None:
    from attnio.bounds.attention import GapBound

    assert stacked_lower_bound("backward", 64, 8, 64) == GapBound(
        11072, "given-scores: segment products (dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS "
        "witnessed by the given scores), L = 3M + compulsory rest", "gap.joint_route")
    assert stacked_lower_bound("forward", 64, 8, 64) == GapBound(
        4992, "segment products (Q·Kᵀ + P·V, P witnessed), L = 2M + compulsory rest",
        "gap.joint_route")
    # one class asked for: its own maximum, no class prefix
    assert stacked_lower_bound("backward", 64, 8, 64, computation="recompute").route == \
        ("segment products (Q·Kᵀ + dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed), "
         "L = 2M + compulsory rest")


@pytest.mark.trust
def test_routes_by_hand_default_one_head() -> None:
    from attnio.bounds.attention import GapBound

    routes = stacked_lower_bound_routes("forward", 64, 8, 64, "forward")
    assert routes[:3] == [
        GapBound(4 * 64 * 8, "compulsory", "heads.stacked_compulsory"),
        GapBound(2560, "segment products (Q·Kᵀ), L = 2M", "heads.stacked_segment"),
        GapBound(2560 + 2 * 64 * 8, "segment products (Q·Kᵀ), L = 2M + compulsory rest",
                 "heads.stacked_segment")]
    assert [r.route for r in routes[3:4]] == ["Saha-Ye level-1 (Q·Kᵀ)"]  # one head only
    assert [r.claim_id for r in routes[4:]] == ["gap.joint_route"] * 2
    assert [r.claim_id for r in stacked_lower_bound_routes(
        "backward", 64, 8, 64, "recompute", heads=2)] == [
        "heads.stacked_compulsory", "heads.stacked_segment", "heads.stacked_segment",
        "gap.joint_route", "gap.joint_route"]


@pytest.mark.trust
@pytest.mark.parametrize("kwargs, match", [
    ({"heads": 0}, r"^heads=0 must be a positive integer$"),
    ({"batch": 0}, r"^batch=0 must be a positive integer$"),
    ({"heads": 2, "kv_heads": 0}, r"^kv_heads=0 must be a positive integer$"),
])
def test_bad_shape_messages_name_the_argument(kwargs, match) -> None:
    with pytest.raises(InvalidInputError, match=match):
        stacked_lower_bound_routes("backward", 64, 8, 64, "recompute", **kwargs)


@pytest.mark.trust
def test_claims_cite_their_source() -> None:
    from attnio.proofs.stacked_heads import _SRC

    assert _SRC.startswith("attnio (ours; notes/gap.md 'Many heads')")
    assert all(c.source == _SRC for c in CLAIMS + FALSE_TWINS)


@pytest.mark.trust
def test_head_dag_reads_o_as_an_input() -> None:
    from attnio.proofs.stacked_heads import _head_dag

    dag = _head_dag("backward", 2, 1)
    assert dag.nodes["O[1,0]"] == {"op": "input", "role": "input", "matrix": "O",
                                   "index": (1, 0)}
    assert dag.has_edge("O[1,0]", "D[1]")


@pytest.mark.trust
def test_leaf_table_by_hand() -> None:
    from attnio.proofs.stacked_heads import _leaf_table

    # one 1×1 by 1×1 product: A, B ⊆ {the one entry}; only A = B = {it} completes the pair
    assert _leaf_table(1, 1, 1, 1) == [(0, 0, [0]), (1, 0, [0]), (1, 0, [0]), (2, 1, [0])]
    # d = 2, one pair: the partial pairs' leaf counts are read bit by bit
    table = _leaf_table(1, 1, 1, 2)
    assert (table[0b01 * 4 + 0b01], table[0b10 * 4 + 0b11], table[0b11 * 4 + 0b11]) == (
        (2, 0, [0, 1]), (3, 0, [0, 1]), (4, 2, [0]))


def _grid(monkeypatch, brute: list, routes: list) -> None:
    import attnio.proofs.stacked_heads as sh

    monkeypatch.setattr(sh, "_BRUTE_SHAPES", brute)
    monkeypatch.setattr(sh, "_ROUTE_GRID", routes)


@pytest.mark.trust
def test_segment_check_counts_nontrivial_instances_exactly(monkeypatch) -> None:
    # (1, 1, 1, 1): one leaf per segment at most (trivial, 12 instances); (1, 2, 1, 1): the
    # maximum is 1 only at M = 1, L = M
    _grid(monkeypatch, [(1, 1, 1, 1), (1, 2, 1, 1)], [])
    v = _segment_check(CheckContext())
    assert v.verdict == "proved"
    assert (v.evidence.instances, v.evidence.nontrivial_instances) == (24, 11)


@pytest.mark.trust
def test_segment_check_reports_a_route_above_or_below_exactly(monkeypatch) -> None:
    from attnio.bounds.attention import GapBound

    _grid(monkeypatch, [], [("backward", 64, 8, 64, 1, 2, 1)])
    true = stacked_lower_bound_routes("backward", 64, 8, 64, "recompute", heads=2, kv_heads=1)
    rest_route = "segment products (Q·Kᵀ + dO·Vᵀ, 2 heads), L = 2M + compulsory rest"
    assert true[2] == GapBound(10368 + 3072, rest_route, "heads.stacked_segment")

    def shifted(delta):
        def routes(*a, **k):
            return [GapBound(r.value + delta, r.route, r.claim_id) if r.route == rest_route
                    else r for r in stacked_lower_bound_routes(*a, **k)]
        return routes

    high = _segment_check(CheckContext(), routes=shifted(1))
    assert high.counterexample == {"pass": "backward", "n": 64, "d": 8, "M": 64, "batch": 1,
                                   "heads": 2, "kv_heads": 1, "class": "recompute",
                                   "route": rest_route, "bound": 13441, "permitted": 13440}
    assert high.detail == "a stacked route exceeds max_L L(⌈N/cap⌉ − 1) (+ rest)"
    low = _segment_check(CheckContext(), routes=shifted(-1))
    assert low.counterexample == {"pass": "backward", "class": "recompute", "route": rest_route,
                                  "bound": 13439, "best": 13440}
    assert low.detail == "a stacked route is not the maximum over segment lengths"


@pytest.mark.trust
def test_the_claim_records_say_what_they_are() -> None:
    from attnio.proofs import stacked_heads as sh
    for claim in [*sh.CLAIMS, *sh.FALSE_TWINS]:
        assert claim.family == "heads" and claim.method == "exact enumeration"
        assert claim.reconstructed is True and claim.source == sh._SRC
        assert claim.evidence_kind == "exhaustive"
