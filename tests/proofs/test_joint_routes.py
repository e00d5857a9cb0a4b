"""The joint routes (attnio.bounds.attention.joint_routes, issue 35 item 5) and the claims on
their cap and values (proofs/joint_routes.py): every claim proved, every twin rejected on its
path; the cap's certificate checker and the exact Ψ comparison reject planted violations;
values pinned. The lemmas: tests/proofs/test_joint_lemmas.py."""

from __future__ import annotations

from fractions import Fraction
from math import sqrt

import pytest

from attnio.bounds.attention import best_lower_bound, joint_routes, lower_bound_routes
from attnio.bounds.heads import stacked_lower_bound, stacked_lower_bound_routes
from attnio.bounds.joint import (
    JOINT_CLASSES,
    JointSearch,
    cube_segment_cap,
    joint_cell_bound,
    joint_point_value,
    joint_search,
    joint_segment_cap,
)
from attnio.proofs.joint_routes import (
    _certificate_problem,
    brute_joint_max,
    brute_joint_table,
    psi_at_most,
)
from attnio.proofs.registry import CheckContext

CTX = CheckContext()


def _psi(d, n_full, k, kappa, S, T, sigma, z) -> float:
    w, u = T - sigma - z, min(z, S - sigma)
    kap = kappa[0] / kappa[1]
    return (kap * sigma * sigma / (4 * d) + u * sigma / n_full
            + min(sigma / 2 * sqrt(z), (d - 1) * z) + min(sqrt(u * sigma * w), k * w))


def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


@pytest.mark.slow
def test_deep_claims_proved(deep_claim) -> None:
    assert deep_claim.check(CTX).proved


@pytest.mark.trust
def test_the_cell_bound_is_at_least_psi_in_its_cell() -> None:
    """Soundness of joint_cell_bound against Ψ evaluated at every integer point of each cell
    (floats, with a margin far above their rounding), on small regions."""
    for d, n_full, k, kappa, M, L in [(3, 5, 4, (1, 1), 4, 8), (8, 8, 31, (5, 4), 5, 10),
                                      (1, 2, 1, (1, 1), 3, 3)]:
        S, T = M + L, 2 * M + L
        for s0, s1 in [(0, S), (1, 3), (S // 2, S)]:
            for z0, z1 in [(0, T), (2, 5), (0, 1)]:
                ub = joint_cell_bound(d, n_full, k, kappa, S, T, s0, s1, z0, z1)
                for sigma in range(s0, min(s1, S) + 1):
                    for z in range(z0, min(z1, T - sigma) + 1):
                        assert _psi(d, n_full, k, kappa, S, T, sigma, z) <= ub + 1e-9


@pytest.mark.trust
def test_the_point_value_is_at_most_psi() -> None:
    for sigma, z in [(0, 0), (3, 7), (10, 2), (12, 0)]:
        S, T = 12, 20
        value = joint_point_value(4, 6, 5, (5, 4), S, T, sigma, z)
        assert value <= _psi(4, 6, 5, (5, 4), S, T, sigma, z) + 1e-9


@pytest.mark.trust
def test_psi_at_most_is_exact() -> None:
    """psi_at_most agrees with the float value away from ties, and decides ties exactly."""
    S, T, d, nf, k, kappa = 20, 30, 4, 5, 7, (1, 1)
    for sigma in range(0, S + 1, 3):
        for z in range(0, T - sigma + 1, 4):
            value = _psi(d, nf, k, kappa, S, T, sigma, z)
            for cap in (int(value) - 1, int(value) + 1):
                assert psi_at_most(cap, d, nf, k, kappa, S, T, sigma, z) == (cap >= value)
    # S = 3, T = 5, σ = 2, z = 1: w = 2, u = 1, Ψ = 4/16 + 2/5 + min(1, 3) + min(√4, 14) = 3.65
    assert psi_at_most(4, d, nf, k, kappa, 3, 5, 2, 1)
    assert not psi_at_most(3, d, nf, k, kappa, 3, 5, 2, 1)
    # two roots: σ = 4, z = 2 (S = 8, T = 9: w = 3, u = 2): 1 + 8/5 + 2√2 + √24 ≈ 10.33
    assert psi_at_most(11, d, nf, k, kappa, 8, 9, 4, 2)
    assert not psi_at_most(10, d, nf, k, kappa, 8, 9, 4, 2)


@pytest.mark.trust
def test_the_certificate_checker_rejects_planted_certificates(monkeypatch) -> None:
    import attnio.proofs.joint_routes as module

    args = (16, 100, 200, 4096, 4095, (1, 1))
    honest = joint_search(*args)
    assert _certificate_problem(*args, honest.cap) is None
    assert "exceeds the cap" in _certificate_problem(*args, honest.cap - honest.cap // 50 - 1)
    # a leaf dropped: the splits no longer leave exactly the leaves
    dropped = JointSearch(honest.cap, honest.best, honest.initial, honest.splits,
                          honest.leaves[1:])
    monkeypatch.setattr(module, "joint_search", lambda *a: dropped)
    assert "leaves are not" in _certificate_problem(*args, honest.cap)
    # a split whose children do not tile their parent
    parent, children = honest.splits[0]
    bad = ((parent, children[:-1] + ((children[-1][0], children[-1][1] - 1, *children[-1][2:]),)),)
    broken = JointSearch(honest.cap, honest.best, honest.initial, bad + honest.splits[1:],
                         honest.leaves)
    monkeypatch.setattr(module, "joint_search", lambda *a: broken)
    assert "do not tile" in _certificate_problem(*args, honest.cap)
    # initial cells that leave a gap
    gap = JointSearch(honest.cap, honest.best, honest.initial[1:], (), honest.initial[1:])
    monkeypatch.setattr(module, "joint_search", lambda *a: gap)
    assert _certificate_problem(*args, honest.cap) is not None


@pytest.mark.trust
def test_brute_force_counts_the_five_products() -> None:
    """recompute, n = 2, d = 1: a segment can hold more leaves of the five products than one
    product's cap allows — the twin gap.twin.joint_cap_single_product's counterexample."""
    table = brute_joint_table("recompute", 2, 1)
    from attnio.bounds.attention import segment_product_cap
    assert brute_joint_max(table, 2, 6) == 20 > segment_product_cap(1, 2, 6) == 16


def test_values_pinned_at_the_gap_table_size() -> None:
    """n = 4096, d = 64: the joint routes at the issue's worst points."""
    fwd = [r.value for r in joint_routes(4096, 64, 4612, "forward")]
    rec = [r.value for r in joint_routes(4096, 64, 11216, "recompute")]
    giv = [r.value for r in joint_routes(4096, 64, 11216, "given-scores")]
    assert fwd[1] - fwd[0] == 4096 * 64 and rec[1] - rec[0] == giv[1] - giv[0] == 4 * 4096 * 64
    assert best_lower_bound("backward", 4096, 64, 11216).value == max(
        r.value for r in lower_bound_routes("backward", 4096, 64, 11216, "recompute")) > 15_560_000
    assert best_lower_bound("forward", 4096, 64, 4612).value == fwd[1] > 13_160_448


def test_the_forward_cap_is_the_smaller_of_two() -> None:
    from attnio.bounds.joint import joint_cap
    for M, L in [(1024, 2048), (11216, 22432), (64, 192)]:
        assert joint_cap("forward", 4096, 64)(64, M, L) == min(
            cube_segment_cap(64, M, L, 64), joint_segment_cap(64, M, L, 4096, 4095, (1, 1)))


@pytest.mark.parametrize("cls,pass_", [("forward", "forward"), ("recompute", "backward"),
                                       ("given-scores", "backward")])
def test_one_stacked_head_is_the_single_head_route(cls: str, pass_: str) -> None:
    single = [r.value for r in lower_bound_routes(pass_, 1024, 16, 512, cls)]
    stacked = [r.value for r in stacked_lower_bound_routes(pass_, 1024, 16, 512, cls)]
    assert stacked == single
    many = stacked_lower_bound_routes(pass_, 1024, 16, 512, cls, heads=4, kv_heads=2)
    assert any(r.claim_id == "gap.joint_route" and "4 heads" in r.route for r in many)


def test_the_hierarchy_example_boundary_rises() -> None:
    """H = 32, G = 8, M = 16,384 (the innermost boundary of the three-level example): the
    stacked bound was 236,060,672 (two products); the joint routes charge every product."""
    b = stacked_lower_bound("backward", 4096, 64, 16384, heads=32, kv_heads=8)
    assert b.claim_id == "gap.joint_route" and b.value > 2 * 236_060_672 * 0.95


def test_the_classes_are_registered() -> None:
    assert {c: JOINT_CLASSES[c][0] for c in JOINT_CLASSES} == {
        "forward": 2, "recompute": 5, "given-scores": 4}
    assert JOINT_CLASSES["recompute"][1] == (5, 4)
    assert Fraction(*JOINT_CLASSES["forward"][1]) == 1


@pytest.mark.trust
def test_the_lengths_skipped_by_the_estimate_change_nothing() -> None:
    """leaves_segment_route skips a length whose optimistic value (from a cheap lower estimate
    of the cap) cannot beat the best: the maximum and its length are those of the full loop."""
    import random

    from attnio.bounds.attention import SEGMENT_MULTIPLES, leaves_segment_route
    from attnio.bounds.joint import joint_cap

    rng = random.Random(35)
    for _ in range(60):
        n, d, M = rng.choice([1, 3, 63, 4096]), rng.choice([1, 2, 64, 256]), rng.randint(1, 4000)
        for cls in JOINT_CLASSES:
            cap = joint_cap(cls, n, d)
            N = JOINT_CLASSES[cls][0] * n * n * d
            full = max((t * M * max(0, -(-N // cap(d, M, t * M)) - 1), -t * M)
                       for t in SEGMENT_MULTIPLES)
            value, L = leaves_segment_route(N, d, M, cap=cap)
            assert value == full[0] and (value == 0 or L == -full[1]), (n, d, M, cls)
            assert all(cap.estimate(d, M, t * M) <= cap(d, M, t * M) for t in (1, 4, 16))



@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_interval_lower_bound_is_below_the_route_at_every_M() -> None:
    """joint_interval_lower_bound (the bound a search over M prunes with) ≤ the joint route +
    rest at every integer M of the interval, for every class, one head and stacked."""
    import random

    from attnio.bounds.heads import joint_interval_lower_bound

    rng = random.Random(2035)
    for _ in range(12):
        n, d = rng.choice([(64, 8), (4096, 64), (63, 256), (16, 4)])
        a = rng.randint(1, 3000)
        b = a + rng.randint(0, 40)
        heads, kv = rng.choice([(1, 1), (4, 2), (8, 1)])
        for pass_, cls in (("forward", "forward"), ("backward", "recompute"),
                           ("backward", "given-scores")):
            low = joint_interval_lower_bound(pass_, n, d, a, b, cls, heads=heads, kv_heads=kv)
            for M in range(a, b + 1, max(1, (b - a) // 6)):
                route = [r.value for r in stacked_lower_bound_routes(
                    pass_, n, d, M, cls, heads=heads, kv_heads=kv)][-1]
                assert low <= route, (pass_, cls, n, d, a, b, M, low, route)
