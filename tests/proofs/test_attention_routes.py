"""Tests for attnio.proofs.attention_routes: route values, soundness against algorithms, claims, twins."""

from __future__ import annotations

import math

import pytest

from attnio.algorithms.simulation import count
from attnio.bounds.attention import (
    GapBound,
    best_lower_bound,
    ceil_sqrt,
    compulsory_io,
    computation_of,
    lower_bound_routes,
    segment_product_cap,
    segment_route,
)
from attnio.exceptions import InvalidInputError
from attnio.proofs.attention_routes import CLAIMS, FALSE_TWINS
from attnio.proofs.registry import CheckContext
from attnio.results import Refuted

CTX = CheckContext(z3_timeout_ms=20_000)


@pytest.mark.trust
def test_compulsory_by_hand() -> None:
    assert compulsory_io("forward", 3, 5) == 4 * 15
    assert compulsory_io("backward", 3, 5) == 8 * 15
    given = lower_bound_routes("backward", 3, 5, 64, "given-scores")[0]
    assert given.value == 8 * 15 + 9 and given.claim_id == "gap.compulsory"


@pytest.mark.trust
def test_ceil_sqrt_exact() -> None:
    for x in range(0, 2000):
        r = ceil_sqrt(x)
        assert r * r >= x and (r == 0 or (r - 1) ** 2 < x)


def _g(s: float, T: float, d: int) -> float:
    return s * s / (4 * d) + min(s / 2 * math.sqrt(max(T - s, 0.0)), (d - 1) * (T - s))


@pytest.mark.parametrize("d,M,t", [(1, 5, 1), (4, 16, 2), (8, 100, 4), (64, 1024, 3),
                                   (64, 65536, 1), (3, 7, 16)])
def test_cap_bounds_the_continuous_maximum(d: int, M: int, t: int) -> None:
    """The integer cap is ≥ max over a fine real grid of g(s) (s ≤ M + L, c = 2M + L − s)."""
    L = t * M
    T, S = 2 * M + L, M + L
    cap = segment_product_cap(d, M, L)
    best = max(_g(S * k / 20000, T, d) for k in range(20001))
    assert cap >= best * (1 - 1e-12)
    assert cap <= best * 1.02 + 3  # and the grid costs little


@pytest.mark.trust
def test_route_is_exact_int_and_grows_with_n() -> None:
    value, L = segment_route(4096, 64, 1024)
    assert type(value) is int and L % 1024 == 0
    assert segment_route(8192, 64, 1024)[0] > 3 * value  # ∝ n²
    assert segment_route(4096, 64, 1024, products=2)[0] > value


@pytest.mark.trust
def test_small_cache_shape() -> None:
    """≈ √2·n²d/√M for M ≪ d² (the module docstring's claim), within 15 %."""
    n, d, M = 4096, 256, 64
    value, _ = segment_route(n, d, M)
    shape = math.sqrt(2) * n * n * d / math.sqrt(M)
    assert 0.85 * shape <= value <= shape


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("M", [16, 64, 1000, 4096, 20000, 262144])
def test_every_class_bound_below_its_algorithms(pass_: str, M: int) -> None:
    n, d = 4096, 64
    names = ["standard", "flash1", "flash2", "small-cache", "small-cache-fused"]
    if pass_ == "forward":
        names.append("square-tiling")
    any_bound = best_lower_bound(pass_, n, d, M)
    for name in names:
        try:
            io = count(name, pass_, n, d, M).io
        except InvalidInputError:
            continue
        own = best_lower_bound(pass_, n, d, M, computation_of(name, pass_))
        assert any_bound.value <= own.value <= io


@pytest.mark.trust
def test_any_is_min_over_classes() -> None:
    b = best_lower_bound("backward", 4096, 64, 8192)
    r = best_lower_bound("backward", 4096, 64, 8192, "recompute")
    g = best_lower_bound("backward", 4096, 64, 8192, "given-scores")
    # since the joint routes (issue 35) the given-scores class binds at M = 8192
    assert b.value == min(r.value, g.value) == g.value and b.route.startswith("given-scores: ")


@pytest.mark.trust
@pytest.mark.parametrize("args,fragment", [
    (("sideways", 4, 4, 4), "pass='sideways'"),
    (("forward", 0, 4, 4), "n=0"),
    (("forward", 4, 4, True), "M=True"),
    (("forward", 4, 4, 4, "recompute"), "computation='recompute'"),
])
def test_bad_input(args, fragment) -> None:
    with pytest.raises(InvalidInputError, match=fragment.replace("(", r"\(")):
        if len(args) == 5:
            lower_bound_routes(*args)
        else:
            best_lower_bound(*args)


def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


def test_full_pair_twin_counterexample_is_an_algorithm_count() -> None:
    """The dropped hypothesis is refuted by an executed algorithm's exact count, not by fiat."""
    twin = next(t for t in FALSE_TWINS if t.id == "gap.twin.full_pairs_as_outputs")
    cx = twin.check(CTX).counterexample
    assert cx["bound"] > cx["io"] == count(cx["algorithm"], cx["pass"], cx["n"], cx["d"],
                                          cx["M"]).io


@pytest.mark.parametrize("M", [8, 16])
def test_forward_routes_below_exact_optimum_on_a_tiny_dag(M: int) -> None:
    """An independent check: every forward route ≤ the exact optimal pebbling (n = 2, d = 1)."""
    from attnio.graphs.dags import attention_forward_dag
    from attnio.graphs.exact import solve_optimal

    optimum = solve_optimal(attention_forward_dag(2, 1), M).io
    routes = lower_bound_routes("forward", 2, 1, M, "forward")
    assert all(r.value <= optimum for r in routes)
    assert max(r.value for r in routes) == optimum == 8  # compulsory is tight here


@pytest.mark.trust
def test_algorithm_counts_skip_only_infeasible_algorithms(monkeypatch) -> None:
    """An algorithm no tile set of which fits M is left out; any other error propagates
    (the old ``except Exception: continue`` skipped every error silently)."""
    import attnio.proofs.attention_routes as claims
    from attnio.proofs.attention_routes import _algorithm_counts

    out = _algorithm_counts("forward", 64, 8, 2)  # M = 2: nothing fits
    assert out == {}
    assert "square-tiling" in _algorithm_counts("forward", 64, 8, 4096)
    assert "square-tiling" not in _algorithm_counts("backward", 64, 8, 4096)  # no such pass

    def broken(*args, **kwargs):
        raise InvalidInputError("a bug in a counter")

    monkeypatch.setattr(claims, "count", broken)
    with pytest.raises(InvalidInputError, match="a bug"):
        _algorithm_counts("forward", 64, 8, 4096)


# ------------------------------------------------------------------ trust tier: pinned values
@pytest.mark.trust
def test_the_printed_backward_bound_is_pinned() -> None:
    """Issue 20: a cap divided by 3 printed 94,789,632 here; the proved cap gave 43,829,248 for
    the given-scores class, which the witnessed route (issue 26) raised to 52,006,912 — the
    recompute class's value; the joint routes (issue 35) raised both classes: the given-scores
    class's four products give 92,167,168, the recompute class's five 108,695,552."""
    b = best_lower_bound("backward", 4096, 64, 1024)
    assert (b.value, b.claim_id) == (92_167_168, "gap.joint_route")
    assert b.route.startswith("given-scores: segment products (dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q")
    old = [r for r in lower_bound_routes("backward", 4096, 64, 1024, "given-scores")
           if r.claim_id == "gap.witnessed_route"]
    assert old[-1].value == 52_006_912          # the witnessed route, unchanged
    # the issue-20 route of the class, unchanged
    assert 43_829_248 == 4096 * 4096 + 6 * 4096 * 64 + segment_route(4096, 64, 1024)[0]
    assert best_lower_bound("backward", 4096, 64, 1024, "recompute").value == 108_695_552


@pytest.mark.trust
@pytest.mark.parametrize("args,value", [
    ((64, 1024, 2048), 86_304), ((64, 1024, 1024), 49_280), ((3, 7, 14), 53),
    ((256, 64, 256), 1_527),
    # by hand: d = 1 has no partial pairs, cap = ⌈S²/4⌉ at the last cell (S = M + L)
    ((1, 1, 1), 1), ((1, 5, 5), 25),
    # by hand: d = 2, M = L = 3, S = 6, T = 9: the cell [5, 6] gives ⌈36/8⌉ + min(⌈12/2⌉, 4)
    ((2, 3, 3), 9),
])
def test_segment_cap_pinned(args, value: int) -> None:
    assert segment_product_cap(*args) == value


@pytest.mark.trust
@pytest.mark.parametrize("args,kw,value", [
    ((4096, 64, 1024), {}, (25_479_168, 2048)),
    ((4096, 64, 1024), {"products": 2}, (50_958_336, 2048)),
    ((16, 4, 3), {}, (435, 15)),      # cap(4, 3, 15) = 35: 15·(⌈1024/35⌉ − 1) = 15·29
    ((8, 2, 64), {}, (0, 0)),
    ((256, 64, 64), {}, (616_128, 192)),
])
def test_segment_route_pinned(args, kw, value) -> None:
    assert segment_route(*args, **kw) == value


@pytest.mark.trust
def test_every_route_value_pinned() -> None:
    rows = {(p, c): [(r.value, r.route, r.claim_id) for r in lower_bound_routes(p, 64, 8, 64, c)]
            for p, c in (("forward", "forward"), ("backward", "recompute"),
                         ("backward", "given-scores"))}
    # compulsory by hand: 4nd, 8nd, 8nd + n²; the rest: 2nd, 4nd, n² + 6nd on top
    # + the joint routes (issue 35): every product of the class, nd (forward) or 4nd on top
    assert [v for v, _, _ in rows["forward", "forward"]] == [2048, 2560, 3584, 448, 4480, 4992]
    assert [v for v, _, _ in rows["backward", "recompute"]] == [4096, 5120, 7168, 448, 10496,
                                                               12544]
    # given-scores: + the witnessed route, 2 products with the cap of partial depth n − 1
    assert [v for v, _, _ in rows["backward", "given-scores"]] == [8192, 2560, 9728, 4352, 6400,
                                                                  9024, 11072]
    assert rows["backward", "given-scores"][0][1:] == ("compulsory (+ n² of the given scores)",
                                                      "gap.compulsory")
    assert rows["backward", "recompute"][3][1:] == ("Saha-Ye level-1 (Q·Kᵀ)",
                                                   "explicit.attention_closed_form")
    assert rows["forward", "forward"][2][1] == ("segment products (Q·Kᵀ), L = 2M + compulsory "
                                               "rest")
    assert best_lower_bound("forward", 64, 8, 64).route == rows["forward", "forward"][5][1]
    assert best_lower_bound("backward", 64, 8, 64).value == 11072   # min(12544, 11072)


@pytest.mark.trust
def test_cells_cover_the_segment() -> None:
    from attnio.bounds.attention import segment_cells

    assert segment_cells(10, 4) == [(0, 2), (2, 5), (5, 7), (7, 10)]
    cells = segment_cells(3, 5)
    assert cells[0][0] == 0 and cells[-1][1] == 3 and len(cells) == 5


@pytest.mark.trust
def test_brute_force_maximum_by_hand() -> None:
    """One row, d = 2: a segment holds 1 leaf until it can hold all four operand entries."""
    from attnio.proofs.attention_routes import _leaf_table, brute_segment_max

    table = _leaf_table(1, 2)
    assert len(table) == 16 and (4, 2, [0]) in table and (2, 0, [0, 1]) in table
    assert [brute_segment_max(table, M, L) for M, L in ((1, 1), (1, 2), (2, 2))] == [1, 1, 2]
    two = _leaf_table(2, 1)   # d = 1: every pair with both entries red is full
    assert brute_segment_max(two, 1, 3) == 4 and brute_segment_max(two, 1, 1) == 1


# ------------------------------------------------------------ trust tier: the checkers' paths
SMALL_CAP = [(3, 7), (64, 1024)]
SMALL_BRUTE = [((2, 3), 2), ((2, 1), 1)]
SMALL_ROUTE = [(16, 4, 3, 1), (256, 64, 64, 2), (8, 2, 64, 1)]


@pytest.mark.trust
def test_segment_cap_check_on_a_small_grid() -> None:
    from attnio.proofs.attention_routes import _segment_cap_check

    v = _segment_cap_check(CTX, grid=SMALL_CAP, brute_grid=SMALL_BRUTE)
    assert v.proved and (v.evidence.instances, v.evidence.nontrivial_instances) == (26, 25)


@pytest.mark.trust
@pytest.mark.parametrize("kw,fragment,key", [
    (dict(cap=lambda d, M, L: max(1, segment_product_cap(d, M, L) // 3)), "below a proved cell",
     "s1"),
    (dict(cap=lambda d, M, L: segment_product_cap(d, M, L) - 1), "below a proved cell", "s1"),
    (dict(cap=lambda d, M, L: segment_product_cap(d, M, L) + 3), "more than 2 above", "cap"),
    (dict(cells=lambda S: [(0, S // 2), (S // 2 + 1, S)]), "do not cover", "cells"),
    (dict(cells=lambda S: [(1, S)]), "do not cover", "cells"),
    (dict(cells=lambda S: [(0, S - 1)]), "do not cover", "cells"),
    (dict(cells=lambda S: []), "do not cover", "cells"),
    (dict(cells=lambda S: [(0, S), (S, S - 1), (S - 1, S)]), "do not cover", "cells"),
])
def test_segment_cap_check_refutes_each_planted_cap(kw, fragment: str, key: str) -> None:
    from attnio.proofs.attention_routes import _segment_cap_check

    v = _segment_cap_check(CTX, grid=SMALL_CAP, brute_grid=SMALL_BRUTE, **kw)
    assert isinstance(v, Refuted) and fragment in v.detail and key in v.counterexample
    assert v.counterexample["d"] == 3 and v.counterexample["M"] == 7


@pytest.mark.trust
def test_segment_cap_check_brute_force_path() -> None:
    from attnio.proofs.attention_routes import _cap_full_pairs_only, _segment_cap_check

    v = _segment_cap_check(CTX, cap=_cap_full_pairs_only, partial=False, grid=SMALL_CAP,
                           brute_grid=SMALL_BRUTE)
    assert isinstance(v, Refuted) and "brute-force maximum" in v.detail
    cx = v.counterexample
    assert cx == {"n": 2, "d": 3, "M": 2, "L": 4, "cap": 3, "brute_force": 4}
    # the model without partial pairs passes the cell comparison: only the brute force sees it
    assert _segment_cap_check(CTX, cap=_cap_full_pairs_only, partial=False, grid=SMALL_CAP,
                              brute_grid=[]).proved


@pytest.mark.trust
@pytest.mark.parametrize("value,T,s0,s1,ge,le", [
    # d = 2: bound = s1²/8 + min((s1/2)√(T−s0), T−s0); s1 = 4, T − s0 = 4: 2 + min(4, 4) = 6
    (6, 10, 6, 4, True, True), (5, 10, 6, 4, False, True), (7, 10, 6, 4, True, False),
    # T − s0 = 9: 2 + min(6, 9) = 8 (the root term binds)
    (8, 9, 0, 4, True, True), (7, 9, 0, 4, False, True), (9, 9, 0, 4, True, False),
    # T − s0 = 1: 2 + min(2, 1) = 3 (the linear term binds)
    (3, 5, 4, 4, True, True), (2, 5, 4, 4, False, True), (4, 5, 4, 4, True, False),
    # below the full term alone: A < 0
    (1, 5, 4, 4, False, True),
    # 1/2 + min(√2, 2) ≈ 1.91 and 1/8 + min(√2/2, 2) ≈ 0.83 (s0 > 0): just above each
    (2, 2, 0, 2, True, False), (1, 3, 1, 1, True, False),
    # s1 = 0: the bound is 0, and 0 reaches it
    (0, 5, 0, 0, True, True),
])
def test_cell_bound_comparisons_exact(value, T, s0, s1, ge, le) -> None:
    from attnio.proofs.attention_routes import cell_bound_ge, cell_bound_le

    assert cell_bound_ge(value, 2, T, s0, s1) is ge
    assert cell_bound_le(value, 2, T, s0, s1) is le


@pytest.mark.trust
def test_cell_bound_le_off_the_cell_domain() -> None:
    """T < s0 lies outside every cell (√(T − s0) undefined): the exact comparison still reads
    as written — value = s1²/(4d) (A = 0) with d = 1 is ≤ the full term alone."""
    from attnio.proofs.attention_routes import cell_bound_le

    assert cell_bound_le(1, 1, 0, 1, 2) is True


@pytest.mark.trust
def test_cell_bound_without_partial_term() -> None:
    from attnio.proofs.attention_routes import cell_bound_ge, cell_bound_le

    assert cell_bound_ge(2, 2, 9, 0, 4, partial=False)          # 2 ≥ 16/8
    assert not cell_bound_ge(1, 2, 9, 0, 4, partial=False)
    assert cell_bound_le(2, 2, 9, 0, 4, partial=False)
    assert not cell_bound_le(3, 2, 9, 0, 4, partial=False)


@pytest.mark.trust
def test_segment_route_check_on_a_small_grid() -> None:
    from attnio.proofs.attention_routes import _segment_route_check

    v = _segment_route_check(CTX, grid=SMALL_ROUTE)
    assert v.proved and (v.evidence.instances, v.evidence.nontrivial_instances) == (3, 2)


@pytest.mark.trust
@pytest.mark.parametrize("planted,fragment", [
    ("_route_ceiling_only", "above L(⌈N/cap⌉ − 1)"),
    ("_route_first_L", "not the maximum"),
    ("_route_L7", "not a segment length"),
])
def test_segment_route_check_refutes_each_planted_route(planted: str, fragment: str) -> None:
    import attnio.proofs.attention_routes as g

    v = g._segment_route_check(CTX, route=getattr(g, planted), grid=SMALL_ROUTE)
    assert isinstance(v, Refuted) and fragment in v.detail
    assert (v.counterexample["n"], v.counterexample["d"]) == (16, 4)


@pytest.mark.trust
def test_segment_route_check_refutes_an_inflated_cap() -> None:
    from attnio.proofs.attention_routes import _cap_inflated, _segment_route_check

    v = _segment_route_check(CTX, cap=_cap_inflated, grid=[(256, 64, 64, 1)])
    assert isinstance(v, Refuted) and "small-cache closed form" in v.detail
    assert v.counterexample == {"d": 64, "M": 64, "cap": _cap_inflated(64, 64, 256)}
    assert _segment_route_check(CTX, cap=lambda d, M, L: segment_product_cap(d, M, L) + 3,
                                grid=[(256, 64, 64, 1)]).proved


@pytest.mark.trust
def test_the_issue_mutants_change_the_printed_bound() -> None:
    """The two cap mutants of issue 20, and what they print; both twins reject them."""
    from attnio.proofs.attention_routes import _cap_inflated, _cap_over_3

    assert segment_route(4096, 64, 1024, cap=_cap_over_3)[0] + 4096 ** 2 + 6 * 4096 * 64 \
        == 94_789_632
    assert segment_route(4096, 64, 1024, cap=_cap_inflated)[0] < 25_479_168


@pytest.mark.trust
def test_below_algorithms_on_injected_counts() -> None:
    from attnio.proofs.attention_routes import _below_algorithms

    grid = [("backward", 64, 8, 64)]
    v = _below_algorithms(CTX, grid=grid, counts=lambda p, n, d, M: {"flash2": 12544,
                                                                      "standard": 11072})
    assert v.proved and (v.evidence.instances, v.evidence.nontrivial_instances) == (13, 13)
    v = _below_algorithms(CTX, grid=grid, counts=lambda p, n, d, M: {"flash2": 12543})
    assert isinstance(v, Refuted) and v.counterexample == {
        "pass": "backward", "n": 64, "d": 8, "M": 64, "algorithm": "flash2", "io": 12543,
        "bound": 12544, "route": "segment products (Q·Kᵀ + dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and "
                                 "dS witnessed), L = 2M + compulsory rest"}
    assert "exceeds an algorithm's exact I/O" in v.detail
    v = _below_algorithms(CTX, grid=[("forward", 64, 8, 64)],
                          counts=lambda p, n, d, M: {"flash2": 2048},
                          route_fn=lambda *a: [])
    assert v.proved and v.evidence.instances == 0      # the registry turns this into Undecided


@pytest.mark.trust
def test_algorithm_counts_are_the_simulator_counts() -> None:
    from attnio.proofs.attention_routes import _algorithm_counts

    out = _algorithm_counts("backward", 64, 8, 64)
    assert out["flash2"] == count("flash2", "backward", 64, 8, 64).io
    # flash1 (and its published blocks) have no tile set at M = 64; small-cache-dx computes
    # dL/dX, another class; the rest are counted, in the registry's order
    assert list(out) == ["standard", "flash2", "small-cache", "small-cache-fused",
                         "fused-resident", "flash2-split", "flash2-lean", "small-cache-stable",
                         "flash2-gqa"]
    assert "small-cache-dx" not in out       # the dL/dX computation is another class


@pytest.mark.trust
@pytest.mark.parametrize("name", ["_face_chain", "_cell_chain", "_superadditive_chain"])
def test_each_gap_chain_is_proved(name: str) -> None:
    import attnio.proofs.attention_routes as g
    from attnio.smt.chains import check_chain

    v = check_chain(getattr(g, name)(), second_solver=False)
    assert v.proved, v.detail


@pytest.mark.trust
@pytest.mark.parametrize("twin", [t for t in FALSE_TWINS if "chain" in t.method
                                  or t.id.startswith(("gap.twin.cap", "gap.twin.route"))],
                         ids=lambda c: c.id)
def test_fast_twins_rejected_on_their_path(twin) -> None:
    assert twin.rejects(twin.check(CheckContext(second_solver=False)))


#: Each gap chain, exactly: premises, steps (name, conclusion, hypotheses), conclusion — the
#: statement the solvers check is pinned, so a changed premise or step fails here even where
#: the chain would still be proved. (Reviewed by hand against notes/gap.md, steps 2–5.)
CHAIN_TEXT = {'_cell_chain': (['s0 >= 0',
                  's0 <= s',
                  's <= s1',
                  's1 <= T',
                  'c >= 0',
                  'c <= T - s',
                  'd >= 1',
                  'k >= 0',
                  'r >= 0',
                  'r*r == c',
                  'R >= 0',
                  'R*R == T - s0'],
                 [('√c ≤ √(T−s0)',
                   'r <= R',
                   ['s0 >= 0',
                    's0 <= s',
                    's <= s1',
                    's1 <= T',
                    'c >= 0',
                    'c <= T - s',
                    'd >= 1',
                    'k >= 0',
                    'r >= 0',
                    'r*r == c',
                    'R >= 0',
                    'R*R == T - s0']),
                  ('s√c ≤ s1√(T−s0)',
                   's*r <= s1*R',
                   ['s0 >= 0', 's0 <= s', 's <= s1', 'r >= 0', 'R >= 0', 'r <= R']),
                  ('kc ≤ k(T−s0)',
                   'k*c <= k*(T - s0)',
                   ['s0 <= s', 'c >= 0', 'c <= T - s', 'k >= 0']),
                  ('s² ≤ s1²', 's*s <= s1*s1', ['s0 >= 0', 's0 <= s', 's <= s1']),
                  ('s²/(4d) ≤ s1²/(4d)',
                   '(s*s)/(4*d) <= (s1*s1)/(4*d)',
                   ['d >= 1', 's*s <= s1*s1'])],
                 '(s*s)/(4*d) + If((s*r)/2 <= k*c, (s*r)/2, k*c) <= (s1*s1)/(4*d) + If((s1*R)/2 <= '
                 'k*(T - s0), (s1*R)/2, k*(T - s0))'),
 '_face_chain': (['a >= 0',
                  'b >= 0',
                  'c >= 0',
                  'd >= 1',
                  'k >= 0',
                  'y >= 0',
                  'y*y == a*b*c',
                  'r >= 0',
                  'r*r == c',
                  'full <= (a*b)/d',
                  'part <= y',
                  'part <= k*c'],
                 [('ab/d ≤ s²/(4d)',
                   '(a*b)/d <= ((a + b)*(a + b))/(4*d)',
                   ['a >= 0', 'b >= 0', 'c >= 0', 'd >= 1', 'k >= 0']),
                  ('full ≤ s²/(4d)',
                   'full <= ((a + b)*(a + b))/(4*d)',
                   ['full <= (a*b)/d', '(a*b)/d <= ((a + b)*(a + b))/(4*d)']),
                  ('√(abc) ≤ (s/2)√c',
                   'y <= ((a + b)*r)/2',
                   ['a >= 0',
                    'b >= 0',
                    'c >= 0',
                    'd >= 1',
                    'k >= 0',
                    'y >= 0',
                    'y*y == a*b*c',
                    'r >= 0',
                    'r*r == c']),
                  ('partial ≤ min((s/2)√c, kc)',
                   'part <= If(((a + b)*r)/2 <= k*c, ((a + b)*r)/2, k*c)',
                   ['part <= y', 'part <= k*c', 'y <= ((a + b)*r)/2'])],
                 'full + part <= ((a + b)*(a + b))/(4*d) + If(((a + b)*r)/2 <= k*c, ((a + b)*r)/2, '
                 'k*c)'),
 '_superadditive_chain': (['s1 >= 0',
                           's2 >= 0',
                           'c1 >= 0',
                           'c2 >= 0',
                           'd >= 1',
                           'k >= 0',
                           'r1 >= 0',
                           'r2 >= 0',
                           'r >= 0',
                           'r1*r1 == c1',
                           'r2*r2 == c2',
                           'r*r == c1 + c2'],
                          [('s1² + s2² ≤ (s1+s2)²',
                            's1*s1 + s2*s2 <= (s1 + s2)**2',
                            ['s1 >= 0', 's2 >= 0']),
                           ('s1²/(4d) + s2²/(4d) ≤ (s1+s2)²/(4d)',
                            '(s1*s1)/(4*d) + (s2*s2)/(4*d) <= ((s1 + s2)*(s1 + s2))/(4*d)',
                            ['d >= 1', 's1*s1 + s2*s2 <= (s1 + s2)**2']),
                           ('√c1 ≤ √(c1+c2)',
                            'r1 <= r',
                            ['c1 >= 0',
                             'c2 >= 0',
                             'r1 >= 0',
                             'r >= 0',
                             'r1*r1 == c1',
                             'r*r == c1 + c2']),
                           ('√c2 ≤ √(c1+c2)',
                            'r2 <= r',
                            ['c1 >= 0',
                             'c2 >= 0',
                             'r2 >= 0',
                             'r >= 0',
                             'r2*r2 == c2',
                             'r*r == c1 + c2']),
                           ('s1√c1 + s2√c2 ≤ (s1+s2)√(c1+c2)',
                            's1*r1 + s2*r2 <= (s1 + s2)*r',
                            ['s1 >= 0', 's2 >= 0', 'r1 >= 0', 'r2 >= 0', 'r1 <= r', 'r2 <= r'])],
                          '(s1*s1)/(4*d) + If((s1*r1)/2 <= k*c1, (s1*r1)/2, k*c1) + (s2*s2)/(4*d) '
                          '+ If((s2*r2)/2 <= k*c2, (s2*r2)/2, k*c2) <= ((s1 + s2)*(s1 + s2))/(4*d) '
                          '+ If(((s1 + s2)*r)/2 <= k*(c1 + c2), ((s1 + s2)*r)/2, k*(c1 + c2))')}




@pytest.mark.trust
@pytest.mark.parametrize("name", list(CHAIN_TEXT))
def test_each_gap_chain_states_exactly_its_proof(name: str) -> None:
    import attnio.proofs.attention_routes as g

    def norm(e) -> str:
        return " ".join(str(e).split())

    chain = getattr(g, name)()
    premises, steps, conclusion = CHAIN_TEXT[name]
    assert [norm(p) for p in chain.premises] == premises
    assert [(s.name, norm(s.conclusion), [norm(h) for h in s.hypotheses])
            for s in chain.steps] == [tuple(s) for s in steps]
    assert norm(chain.conclusion) == conclusion


@pytest.mark.trust
def test_the_planted_chains_differ_where_they_say() -> None:
    import attnio.proofs.attention_routes as g

    def norm(e) -> str:
        return " ".join(str(e).split())

    corner = g._cell_chain(lower_corner=True)
    assert norm(corner.step("s² ≤ s1²").conclusion) == "s*s <= s0*s0"
    assert norm(corner.conclusion).startswith("(s*s)/(4*d) + If((s*r)/2 <= k*c, (s*r)/2, "
                                              "k*c) <= (s0*s0)/(4*d) + If((s1*R)/2")
    assert norm(g._face_chain(factor=8).step("ab/d ≤ s²/(4d)").conclusion) == \
        "(a*b)/d <= ((a + b)*(a + b))/(8*d)"
    assert norm(g._superadditive_chain(reverse=True).step("s1² + s2² ≤ (s1+s2)²").conclusion) \
        == "(s1 + s2)**2 <= s1*s1 + s2*s2"


@pytest.mark.trust
def test_twin_route_helpers_pinned() -> None:
    """The planted routes of the below-algorithms twins, at one size (values by the code; the
    relations between them by hand)."""
    import attnio.proofs.attention_routes as g

    args = ("backward", 64, 8, 64)
    real = lower_bound_routes(*args, "recompute")
    outputs = g._twin_routes_outputs(*args, "recompute")
    assert len(outputs) == 1 and outputs[0].claim_id == "twin"
    assert outputs[0].value == segment_route(64, 8, 64, products=2, cap=g._cap_all_partial)[0]
    assert outputs[0].value > real[1].value          # treating every pair as partial: larger
    scores = g._twin_scores_for_all(*args, "recompute")
    assert [r.value for r in scores] == [r.value + 64 * 64 for r in real]
    assert [r.value for r in g._twin_scores_for_all(*args, "given-scores")] == \
        [r.value for r in lower_bound_routes(*args, "given-scores")]
    assert g._compulsory_only(*args, "recompute") == real[:1]
    assert g._twin_compulsory_twice(*args, "recompute")[0].value == 8 * 64 * 8 + 5 * 64 * 8
    assert g._twin_compulsory_twice(*args, "given-scores")[0].value == \
        2 * (8 * 64 * 8 + 64 * 64) - 3 * 64 * 8
    assert g._twin_compulsory_twice("forward", 64, 8, 64, "forward")[0].value == 7 * 64 * 8
    assert g._cap_all_partial(3, 7, 14) == max(
        1, *(-(-ceil_sqrt(s1 * s1 * (28 - s0)) // 2) for s0, s1 in g.segment_cells(21)))


@pytest.mark.trust
def test_planted_caps_and_routes_pinned() -> None:
    import attnio.proofs.attention_routes as g

    assert g._cap_over_3(64, 1024, 2048) == 86_304 // 3 and g._cap_over_3(1, 1, 1) == 1
    assert g._cap_inflated(64, 1024, 2048) == 86_304 + 139_022      # ⌊√(18·1024³)⌋
    assert g._cells_short(10) == g.segment_cells(10)[:-1]
    assert g._cap_full_pairs_only(2, 3, 3) == 5                      # ⌈36/8⌉
    assert g._route_ceiling_only(16, 4, 3) == (450, 15)              # 15·⌈1024/35⌉
    assert g._route_first_L(16, 4, 3) == (3 * (-(-1024 // segment_product_cap(4, 3, 3)) - 1), 3)
    assert g._route_first_L(8, 2, 64) == (0, 0)
    assert g._route_L7(16, 4, 3)[1] == 21 and g._route_L7(8, 2, 64) == (0, 0)


@pytest.mark.trust
def test_claim_records_are_complete() -> None:
    kinds = {c.id: c.evidence_kind for c in CLAIMS + FALSE_TWINS}
    assert {c.id for c in CLAIMS} == {"gap.face_algebra", "gap.cell_bound", "gap.superadditive",
                                      "gap.segment_cap", "gap.segment_route",
                                      "gap.below_algorithms", "gap.compulsory"}
    assert {kinds[i] for i in ("gap.face_algebra", "gap.cell_bound", "gap.superadditive")} == \
        {"smt-forall"}
    assert {kinds[c.id] for c in CLAIMS[3:]} == {"exhaustive"}
    assert all(c.family == "attention_routes" and c.source.startswith("attnio (ours; notes/gap.md)")
               for c in CLAIMS + FALSE_TWINS)
    assert [c.reconstructed for c in CLAIMS] == [True] * 6 + [False]
    undecided = [t.id for t in FALSE_TWINS if t.expect == "undecided"]
    assert len(undecided) == 5 and all(t.expect_reason for t in FALSE_TWINS)
    assert all(t.twin_of in {c.id for c in CLAIMS} for t in FALSE_TWINS)


@pytest.mark.trust
def test_below_algorithms_passes_every_argument_through(monkeypatch) -> None:
    import attnio.proofs.attention_routes as g

    seen = []

    def counts(pass_, n, d, M):
        seen.append(("counts", pass_, n, d, M))
        return {"flash2": 10 ** 9}

    def routes(pass_, n, d, M, computation):
        seen.append(("routes", pass_, n, d, M, computation))
        return [GapBound(1, "r", "c"), GapBound(0, "zero", "c")]

    monkeypatch.setattr(g, "_GRID", [("backward", 32, 4, 16)])
    v = g._below_algorithms(CTX, route_fn=routes, counts=counts)
    assert seen == [("counts", "backward", 32, 4, 16), ("routes", "backward", 32, 4, 16,
                                                        "recompute")]
    assert v.detail == "2 (route, algorithm, size) comparisons, exact integers"
    assert (v.evidence.kind, v.evidence.instances, v.evidence.nontrivial_instances) == \
        ("exhaustive", 2, 1)
    v = g._below_algorithms(CTX, route_fn=lambda *a: [GapBound(10 ** 9 + 1, "r", "c")],
                            counts=counts)
    assert v.detail == "a lower bound exceeds an algorithm's exact I/O"


# ------------------------------------------------- trust tier: every message and every count
@pytest.mark.trust
@pytest.mark.parametrize("call,fragment", [
    (lambda: compulsory_io("forward", 0, 4), "n=0"),
    (lambda: compulsory_io("forward", 4, 0), "d=0"),
    (lambda: lower_bound_routes("forward", 4, 0, 4, "forward"), "d=0"),
    (lambda: lower_bound_routes("forward", 4, 4, 0, "forward"), "M=0"),
    (lambda: segment_product_cap(0, 4, 4), "d=0"),
    (lambda: segment_product_cap(4, 0, 4), "M=0"),
    (lambda: segment_product_cap(4, 4, 0), "L=0"),
    (lambda: segment_route(0, 4, 4), "n=0"),
    (lambda: segment_route(4, 0, 4), "d=0"),
    (lambda: segment_route(4, 4, 0), "M=0"),
])
def test_input_errors_name_the_value(call, fragment: str) -> None:
    with pytest.raises(InvalidInputError, match=f"^{fragment}"):
        call()


@pytest.mark.trust
def test_routes_at_a_size_where_the_segment_route_is_zero() -> None:
    """n = 8, d = 2, M = 64: every segment length gives 0, so the name carries no L; the
    compulsory parts by hand (8nd, 8nd + n², 4nd; the rests 2nd, 4nd, n² + 6nd)."""
    def rows(p, c):
        return [(r.value, r.route, r.claim_id) for r in lower_bound_routes(p, 8, 2, 64, c)]

    assert rows("backward", "recompute") == [
        (128, "compulsory", "gap.compulsory"),
        (0, "segment products (Q·Kᵀ + dO·Vᵀ)", "gap.segment_route"),
        (64, "segment products (Q·Kᵀ + dO·Vᵀ) + compulsory rest", "gap.segment_route"),
        (0, "Saha-Ye level-1 (Q·Kᵀ)", "explicit.attention_closed_form"),
        (0, "segment products (Q·Kᵀ + dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed)",
         "gap.joint_route"),
        (64, "segment products (Q·Kᵀ + dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed) + "
             "compulsory rest", "gap.joint_route")]
    assert rows("forward", "forward") == [
        (64, "compulsory", "gap.compulsory"),
        (0, "segment products (Q·Kᵀ)", "gap.segment_route"),
        (32, "segment products (Q·Kᵀ) + compulsory rest", "gap.segment_route"),
        (0, "Saha-Ye level-1 (Q·Kᵀ)", "explicit.attention_closed_form"),
        (0, "segment products (Q·Kᵀ + P·V, P witnessed)", "gap.joint_route"),
        (16, "segment products (Q·Kᵀ + P·V, P witnessed) + compulsory rest", "gap.joint_route")]
    assert rows("backward", "given-scores") == [
        (192, "compulsory (+ n² of the given scores)", "gap.compulsory"),
        (0, "segment products (dO·Vᵀ)", "gap.segment_route"),
        (160, "segment products (dO·Vᵀ) + compulsory rest", "gap.segment_route"),
        (0, "segment products (dO·Vᵀ + dS·K, dS witnessed by the given scores)",
         "gap.witnessed_route"),
        (64, "segment products (dO·Vᵀ + dS·K, dS witnessed by the given scores) + compulsory "
             "rest", "gap.witnessed_route"),
        (0, "segment products (dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed by the given "
            "scores)", "gap.joint_route"),
        (64, "segment products (dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed by the given "
             "scores) + compulsory rest", "gap.joint_route")]


@pytest.mark.trust
def test_cap_with_few_cells() -> None:
    import attnio.bounds.attention as g

    # d = 3, M = 7, L = 14: S = 21, T = 28; four cells [0,5], [5,10], [10,15], [15,21]
    assert [g._cell_cap(3, 28, a, b) for a, b in g.segment_cells(21, 4)] == [17, 33, 51, 63]
    assert segment_product_cap(3, 7, 14, cells=4) == 63
    assert [segment_product_cap(1, 1, t) for t in (1, 2, 3)] == [1, 3, 4]   # ⌈S²/4⌉, S = 1 + t


@pytest.mark.trust
def test_segment_cap_check_messages_and_counterexamples() -> None:
    import attnio.proofs.attention_routes as g

    def run(**kw):
        return g._segment_cap_check(CTX, **{"grid": [(3, 7)], "brute_grid": [], **kw})

    v = run(cells=lambda S: [(0, S - 1)])
    assert v.detail == "the cells do not cover [0, S]: F(L) is not bounded on all of it"
    assert v.counterexample == {"d": 3, "M": 7, "L": 7, "S": 14, "cells": [(0, 13), (0, 13)]}
    v = run(cells=lambda S: [(i, i + 1) for i in range(S - 1)] + [(S - 1, S - 1)])
    assert v.counterexample["cells"] == [(0, 1), (1, 2), (2, 3), (11, 12), (12, 13), (13, 13)]
    v = run(cap=lambda d, M, L: 1)
    assert v.detail == "the cap is below a proved cell bound"
    assert v.counterexample == {"d": 3, "M": 7, "L": 7, "cap": 1, "s0": 0, "s1": 1}
    v = run(cap=lambda d, M, L: 10 ** 6)
    assert v.detail == "the cap is more than 2 above every proved cell bound"
    assert v.counterexample == {"d": 3, "M": 7, "L": 7, "cap": 10 ** 6}


@pytest.mark.trust
def test_segment_cap_check_the_two_above_margin_is_exact() -> None:
    """d = 1 has no partial term: the largest cell bound is S²/4 at the last cell, so a cap
    ⌊S²/4⌋ + 3 is more than 2 above it and ⌊S²/4⌋ + 2 is not (exactly when S is even)."""
    import attnio.proofs.attention_routes as g

    v = g._segment_cap_check(CTX, cap=lambda d, M, L: (M + L) ** 2 // 4 + 3, grid=[(1, 1)],
                             brute_grid=[])
    assert isinstance(v, Refuted) and v.counterexample["L"] == 1
    assert g._segment_cap_check(CTX, cap=lambda d, M, L: (M + L) ** 2 // 4 + 2, grid=[(1, 1)],
                                brute_grid=[]).proved
    # the margin is checked against the bound of the model in use (partial=False here)
    full = g._cap_full_pairs_only
    v = g._segment_cap_check(CTX, cap=lambda d, M, L: full(d, M, L) + 3, partial=False,
                             grid=[(3, 7)], brute_grid=[])
    assert isinstance(v, Refuted) and v.detail.startswith("the cap is more than 2 above")


@pytest.mark.trust
def test_segment_cap_check_counts() -> None:
    """A cap of 2 is trivial (≤ 2 fails nothing the + 2 margin allows); a brute maximum of 1
    is trivial (every cap is ≥ 1)."""
    import attnio.proofs.attention_routes as g

    def cap(d, M, L):
        return 2 if (d, M, L) == (1, 1, 1) else segment_product_cap(d, M, L)

    v = g._segment_cap_check(CTX, cap=cap, grid=[(1, 1)], brute_grid=[((2, 1), 1)])
    assert v.detail == ("13 (d, M, L) and small shapes: cap between the proved cell bounds and 2 "
                        "above on cells covering [0, S], and ≥ the brute-force maximum")
    # caps 2, 3, 4, 7, 9, 13, 21, 43, 73: 8 above 2; brute maxima 1, 2, 4, 4: 3 above 1
    assert (v.evidence.kind, v.evidence.instances, v.evidence.nontrivial_instances) == \
        ("exhaustive", 13, 11)


@pytest.mark.trust
@pytest.mark.parametrize("t", [1, 2, 3, 4])
def test_segment_cap_check_brute_force_at_every_length(t: int) -> None:
    import attnio.proofs.attention_routes as g

    def cap(d, M, L):
        return 0 if L == t * M else segment_product_cap(d, M, L)

    v = g._segment_cap_check(CTX, cap=cap, grid=[], brute_grid=[((2, 1), 1)])
    assert isinstance(v, Refuted) and v.counterexample["L"] == t
    assert v.detail == "the brute-force maximum of designated leaves exceeds the cap"


@pytest.mark.trust
def test_leaf_table_partial_pairs_largest_first() -> None:
    """n = 2, d = 3, A = all of X, B = y_00, y_01 and y_10: pair (0,0) and (1,0) have 2 leaves,
    pairs (0,1), (1,1) have 1: prefix sums 2, 4, 5, 6 (largest first)."""
    from attnio.proofs.attention_routes import _leaf_table, brute_segment_max

    table = _leaf_table(2, 3)
    A, B = 0b111111, 0b001011
    row = table[A * 64 + B]
    assert row == (9, 0, [0, 2, 4, 5, 6])
    # with c = 1 partial pair the best shape holds a full pair: 3 leaves
    assert brute_segment_max(table, 2, 4) == 4 and brute_segment_max(table, 1, 1) == 1


@pytest.mark.trust
def test_segment_route_check_messages_and_counts() -> None:
    import attnio.proofs.attention_routes as g

    v = g._segment_route_check(CTX, grid=[(16, 4, 3, 1)])
    assert v.detail == ("1 (n, d, M, products): route = max_L L(⌈N/cap⌉ − 1) exactly, cap at "
                        "L = 4M within its closed form")
    assert (v.evidence.kind, v.evidence.instances, v.evidence.nontrivial_instances) == \
        ("exhaustive", 1, 1)
    v = g._segment_route_check(CTX, route=g._route_first_L, grid=[(16, 4, 3, 1)])
    assert v.detail == "the route is not the maximum over the segment lengths"
    # cap(4, 3, 3) = ⌈36/16⌉ + min(⌈12/2⌉, 12) = 9 (cell [5, 6]): 3·(⌈1024/9⌉ − 1) = 339
    assert segment_product_cap(4, 3, 3) == 9
    assert v.counterexample == {"n": 16, "d": 4, "M": 3, "products": 1, "value": 339,
                                "L": 3, "best": 435}
    v = g._segment_route_check(CTX, route=g._route_ceiling_only, grid=[(16, 4, 3, 1)])
    assert v.detail == "the route is above L(⌈N/cap⌉ − 1) for its own L"
    assert v.counterexample == {"n": 16, "d": 4, "M": 3, "products": 1, "value": 450, "L": 15,
                                "permitted": 435}
    v = g._segment_route_check(CTX, route=g._route_L7, grid=[(16, 4, 3, 1)])
    assert v.detail == "L = 21 is not a segment length t·M of SEGMENT_MULTIPLES"
    assert v.counterexample["value"] == 21 * (-(-1024 // segment_product_cap(4, 3, 21)) - 1)
    v = g._segment_route_check(CTX, cap=g._cap_inflated, grid=[(256, 64, 64, 1)])
    assert v.detail == "the cap at L = 4M is above its small-cache closed form"


@pytest.mark.trust
def test_segment_route_check_counts_a_route_of_one() -> None:
    """A cap of 1 at L = M = 1 and huge elsewhere: N = 2 gives the route 1·(2 − 1) = 1."""
    import attnio.proofs.attention_routes as g

    def cap(d, M, L):
        return {1: 1, 4: 2}.get(L, 10 ** 9)

    assert segment_route(1, 2, 1, cap=cap) == (1, 1)
    v = g._segment_route_check(CTX, cap=cap, grid=[(1, 2, 1, 1)])
    assert v.proved and v.evidence.nontrivial_instances == 1


@pytest.mark.trust
@pytest.mark.parametrize("cap,ok", [(260_583, True), (260_584, False), (260_582, True)])
def test_small_cache_closed_form_at_its_boundary(cap: int, ok: bool) -> None:
    """d = 1, M = 200 = 2·10²: 2√2·M^{3/2} = 32000 exactly, 25M²/(4d) = 250000, so the closed
    form 1.01·(250000 + 32000) + 3 = 284823 ... in the check's exact terms
    (cap − 3)/1.01 − 25M²/(4d) ≤ √(8M³) = 32000 holds up to cap = 260583."""
    import attnio.proofs.attention_routes as g

    assert g._within_small_cache_form(cap, 1, 200) is ok


@pytest.mark.trust
def test_small_cache_closed_form_below_the_full_term() -> None:
    import attnio.proofs.attention_routes as g

    assert g._within_small_cache_form(3, 64, 1) and g._within_small_cache_form(4, 64, 1)
    assert not g._within_small_cache_form(10 ** 6, 64, 1)


@pytest.mark.trust
def test_claim_factory_and_chain_check_at_test_time(monkeypatch) -> None:
    """The factories run at import (the registered claims are built then): call them here."""
    import attnio.proofs.attention_routes as g
    from attnio.smt.chains import Solvers

    check = lambda ctx: Refuted({}, "x")   # noqa: E731
    c = g.claim("gap.t", "s", "f", "z3 NRA chain", check)
    assert (c.id, c.statement, c.formal, c.method, c.family, c.check_fn, c.reconstructed,
            c.twin_of, c.expect, c.expect_reason, c.evidence_kind, c.source) == \
        ("gap.t", "s", "f", "z3 NRA chain", "attention_routes", check, True, None, "refuted", "",
         "smt-forall", g._SRC)
    t = g.claim("gap.t2", "s", "f", "exact", check, reconstructed=False, twin_of="gap.t",
                expect="undecided", expect_reason="why")
    assert (t.reconstructed, t.twin_of, t.expect, t.expect_reason, t.evidence_kind) == \
        (False, "gap.t", "undecided", "why", "exhaustive")
    seen = []
    monkeypatch.setattr(g, "check_chain", lambda chain, **kw: seen.append((chain, kw)) or "v")
    planted = Solvers.default()
    ctx = CheckContext(z3_timeout_ms=1234, second_solver=False)
    assert g.chain_check(lambda: "chain")(ctx) == "v"
    assert g.chain_check(lambda: "chain2", lambda chain: (chain, planted))(ctx) == "v"
    assert seen == [("chain", {"timeout_ms": 1234, "second_solver": False, "solvers": None}),
                    ("chain2", {"timeout_ms": 1234, "second_solver": False,
                                "solvers": ("chain2", planted)})]


@pytest.mark.trust
def test_planted_chain_builders_at_test_time() -> None:
    import z3

    import attnio.proofs.attention_routes as g

    base = g._superadditive_chain()
    same = g._super_planted(lambda chain: chain)()
    assert [s.name for s in same.steps] == [s.name for s in base.steps]
    assert same.conclusion.eq(base.conclusion)
    assert str(g._min(z3.Real("x"), z3.Real("y"))) == "If(x <= y, x, y)"


@pytest.mark.trust
def test_planted_values_are_exact_ints() -> None:
    import attnio.proofs.attention_routes as g

    assert type(g._cap_over_3(64, 1024, 2048)) is int
    assert g._cap_over_3(64, 1024, 2048) == 28_768
    assert g._cap_full_pairs_only(1, 1, 1) == 1          # ⌈4/4⌉: the floor of 1 is reached
    assert g._route_L7(16, 4, 3) == (21 * (-(-1024 // segment_product_cap(4, 3, 21)) - 1), 21)
    # by hand: S = 24, T = 27, the cells [18, 19] and [17, 18] give ⌈361/16⌉ + 27 = 50 and
    # ⌈324/16⌉ + 29 = 50, the largest: 21·(⌈1024/50⌉ − 1) = 420, 21·(⌈2048/50⌉ − 1) = 840
    assert segment_product_cap(4, 3, 21) == 50 and segment_product_cap(4, 3, 24) != 50
    assert g._route_L7(16, 4, 3)[0] == 420
    assert g._route_L7(16, 4, 3, products=2)[0] == 840


@pytest.mark.trust
def test_twin_route_names_and_ids() -> None:
    import attnio.proofs.attention_routes as g

    args = ("backward", 64, 8, 64)
    assert g._twin_compulsory_twice(*args, "recompute") == [
        GapBound(8 * 64 * 8 + 5 * 64 * 8, "every input read twice", "twin")]
    assert g._twin_routes_outputs(*args, "given-scores") == [GapBound(
        segment_route(64, 8, 64, products=1, cap=g._cap_all_partial)[0],
        "segment products, full-pair hypothesis dropped", "twin")]
    assert g._twin_routes_outputs(*args, "recompute")[0].value == \
        segment_route(64, 8, 64, products=2, cap=g._cap_all_partial)[0]
    scores = g._twin_scores_for_all(*args, "recompute")
    assert [(r.route, r.claim_id) for r in scores] == [
        (r.route + " + n²", "twin") for r in lower_bound_routes(*args, "recompute")]
