"""Tests for attnio.proofs.explicit_bounds: route values, closed forms, twins."""

from __future__ import annotations

from fractions import Fraction

import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.lower_bounds.explicit import (
    explicit_lower_bound,
    explicit_routes,
    partition_route_bound,
)
from attnio.graphs.partitions import min_partition_parts
from attnio.proofs.explicit_bounds import FALSE_TWINS
from attnio.proofs.registry import CheckContext
from attnio.results import Refuted

CTX = CheckContext(z3_timeout_ms=20_000)


def test_route_formula_by_hand() -> None:
    # matmul 2x2x2, S = 3: N = 8 products, β(6) = ⌊6·√6/2⌋ = 7 → 3·(⌈8/7⌉ − 1) = 3
    assert explicit_lower_bound("matmul", {"m": 2, "k": 2, "p": 2}, 3) == 3
    # attention n = 8, d = 2, S = 4: β = (16 + 16)·3 = 96, N = 64·3 = 192 → 4·(2 − 1) = 4
    assert explicit_lower_bound("attention-forward", {"n": 8, "d": 2}, 4) == 4
    assert partition_route_bound(0, 1, 5) == 0
    assert type(explicit_lower_bound("matmul", {"m": 9, "k": 9, "p": 9}, 3)) is int


def test_fma_uses_k_vertices_per_tree() -> None:
    routes = explicit_routes("matmul", {"m": 4, "k": 4, "p": 4, "summation": "fma"}, 1)
    assert routes["Saha-Ye level-1"] == partition_route_bound(64, (4 + 0) * 4, 1)


@pytest.mark.parametrize("kind,sizes,S", [
    ("matmul", {"m": 2, "k": 2, "p": 2}, 3),
    ("matmul", {"m": 3, "k": 1, "p": 3}, 3),
    ("matmul", {"m": 1, "k": 4, "p": 1}, 3),
    ("matmul", {"m": 2, "k": 1, "p": 4}, 3),
])
def test_explicit_le_partition_bound(kind, sizes, S) -> None:
    """L ≤ S(P(G, 2S) − 1): the per-part lemma made concrete (also the sandwich's first link)."""
    G = matmul_dag(sizes["m"], sizes["k"], sizes["p"])
    P = min_partition_parts(G, 2 * S, timeout_ms=20_000).value
    assert explicit_lower_bound(kind, sizes, S) <= S * (P - 1)


def test_asymptotic_shape() -> None:
    # the matmul route grows like mkp/√(2S): doubling every size multiplies it by ≈ 8
    a = explicit_lower_bound("matmul", {"m": 40, "k": 40, "p": 40}, 8)
    b = explicit_lower_bound("matmul", {"m": 80, "k": 80, "p": 80}, 8)
    assert Fraction(b, a) > 7
    assert a >= Fraction(64000, 4) - 8  # ≥ mkp/√(2S) − S with √16 = 4


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="M=0"):
        explicit_lower_bound("matmul", {"m": 1, "k": 1, "p": 1}, 0)
    with pytest.raises(InvalidInputError, match="kind="):
        explicit_lower_bound("conv", {"n": 1}, 3)
    with pytest.raises(InvalidInputError, match="gradient='dX'"):
        explicit_lower_bound("attention-backward", {"n": 2, "d": 1, "gradient": "dX"}, 3)
    with pytest.raises(InvalidInputError, match="n=0"):
        explicit_lower_bound("attention-forward", {"n": 0, "d": 1}, 3)


def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


@pytest.mark.trust
@pytest.mark.parametrize("twin_id", ["explicit.twin.attention_chain_without_large_cache",
                                     "explicit.twin.attention_chain_weak_closed_form",
                                     "explicit.twin.matmul_chain_without_closed_form"])
def test_chain_twins_fail_the_composition(twin_id: str) -> None:
    from attnio.proofs.registry import CheckContext

    twin = next(t for t in FALSE_TWINS if t.id == twin_id)
    assert twin.rejects(twin.check(CheckContext(second_solver=False)))


@pytest.mark.trust
def test_the_chains_are_proved_from_the_registered_problems() -> None:
    from attnio.proofs.explicit_bounds import (
        _attention_chain,
        _matmul_chain,
        _sy_large_cache_problem,
    )
    from attnio.smt.chains import check_chain

    chain = _attention_chain()
    assert [s.name for s in chain.steps] == ["explicit.attention_closed_form",
                                             "L ≥ n²d²/(4(S + d²)) − S",
                                             "explicit.attention_large_cache"]
    # the second step cites the first's conclusion: one translator, one z3 term
    assert any(h.eq(chain.steps[0].conclusion) for h in chain.steps[1].hypotheses)
    assert _sy_large_cache_problem(True)[1] and not _sy_large_cache_problem(False)[1]
    for c in (chain, _matmul_chain()):
        assert check_chain(c, second_solver=False).proved


@pytest.mark.trust
def test_grid_check_counts_and_both_failure_paths() -> None:
    from attnio.proofs.explicit_bounds import _grid_check, _one_part_fewer
    from attnio.proofs.registry import CheckContext

    v = _grid_check(CheckContext())
    assert v.proved and (v.evidence.instances, v.evidence.nontrivial_instances) == (14824, 3909)
    # by hand: 1x1x5, S = 2: β = 4, the route 2·(⌈5/4⌉ − 1) = 2 ≥ 5/√4 − 2 = 1/2; one part
    # fewer gives 0 < 1/2
    r = _grid_check(CheckContext(), route=_one_part_fewer("matmul"))
    assert isinstance(r, Refuted) and r.counterexample == {"m": 1, "k": 1, "p": 5, "S": 2, "L": 0}
    assert r.detail == "matmul route below mkp/√(2S) − S" and r.evidence.instances == 157
    # by hand: n = 3, d = 1, S = 1: 9/(4·2) − 1 = 1/8 > 0 = the planted route
    r = _grid_check(CheckContext(), route=_one_part_fewer("attention-forward"))
    assert isinstance(r, Refuted) and r.counterexample == {"n": 3, "d": 1, "S": 1, "L": 0}
    assert r.detail == "attention route below n²d²/(4(S + d²)) − S"
