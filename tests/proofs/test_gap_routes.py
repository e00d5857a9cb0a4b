"""Tests for attnio.proofs.gap_routes: route values, soundness against algorithms, claims, twins."""

from __future__ import annotations

import math

import pytest

from attnio.algorithms.simulation import count
from attnio.exceptions import InvalidInputError
from attnio.proofs.gap_routes import (
    CLAIMS,
    FALSE_TWINS,
    best_lower_bound,
    ceil_sqrt,
    compulsory_io,
    computation_of,
    lower_bound_routes,
    segment_product_cap,
    segment_route,
)
from attnio.proofs.registry import CheckContext
from attnio.results import Refuted

CTX = CheckContext(z3_timeout_ms=20_000)


def test_compulsory_by_hand() -> None:
    assert compulsory_io("forward", 3, 5) == 4 * 15
    assert compulsory_io("backward", 3, 5) == 8 * 15
    given = lower_bound_routes("backward", 3, 5, 64, "given-scores")[0]
    assert given.value == 8 * 15 + 9 and given.claim_id == "gap.compulsory"


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


def test_route_is_exact_int_and_grows_with_n() -> None:
    value, L = segment_route(4096, 64, 1024)
    assert type(value) is int and L % 1024 == 0
    assert segment_route(8192, 64, 1024)[0] > 3 * value  # ∝ n²
    assert segment_route(4096, 64, 1024, products=2)[0] > value


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


def test_any_is_min_over_classes() -> None:
    b = best_lower_bound("backward", 4096, 64, 8192)
    r = best_lower_bound("backward", 4096, 64, 8192, "recompute")
    g = best_lower_bound("backward", 4096, 64, 8192, "given-scores")
    assert b.value == min(r.value, g.value) and b.route.startswith("recompute: ")


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


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved(claim) -> None:
    verdict = claim.check(CTX)
    assert verdict.proved, verdict.detail


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_twins_refuted(twin) -> None:
    verdict = twin.check(CTX)
    assert isinstance(verdict, Refuted), verdict.detail


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


def test_algorithm_counts_skip_only_infeasible_algorithms(monkeypatch) -> None:
    """An algorithm no tile set of which fits M is left out; any other error propagates
    (the old ``except Exception: continue`` skipped every error silently)."""
    import attnio.algorithms.simulation as simulation
    from attnio.proofs.gap_routes import _algorithm_counts

    out = _algorithm_counts("forward", 64, 8, 2)  # M = 2: nothing fits
    assert out == {}
    assert "square-tiling" in _algorithm_counts("forward", 64, 8, 4096)
    assert "square-tiling" not in _algorithm_counts("backward", 64, 8, 4096)  # no such pass

    def broken(*args, **kwargs):
        raise InvalidInputError("a bug in a counter")

    monkeypatch.setattr(simulation, "count", broken)
    with pytest.raises(InvalidInputError, match="a bug"):
        _algorithm_counts("forward", 64, 8, 4096)
