"""Tests for attnio.proofs.partition_lemmas: bounds, lemma checks, false twins."""

from __future__ import annotations

import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.lower_bounds.parts import (
    matmul_part_bound,
    matmul_part_bound_sqrt_form,
    product_vertices,
    qk_trees,
    sy_part_bound,
)
from attnio.graphs.partitions import is_bounded_set, max_counted_bounded_set
from attnio.proofs.partition_lemmas import check_extra_trees, check_part_bound
from attnio.proofs.registry import CheckContext
from attnio.results import Refuted

CTX = CheckContext(z3_timeout_ms=20_000)


def test_matmul_part_bound_values() -> None:
    # ⌊k·max(1, √k/2)⌋ by hand: k ≤ 4 → k; 5 → ⌊5·1.118⌋ = 5; 6 → ⌊7.348⌋ = 7; 8 → ⌊11.31⌋ = 11
    assert [matmul_part_bound(k) for k in (1, 2, 3, 4, 5, 6, 8, 16)] == [1, 2, 3, 4, 5, 7, 11, 32]
    assert all(type(matmul_part_bound(k)) is int for k in range(1, 50))
    # for k = 2S, S ≥ 2 the two forms agree
    assert all(matmul_part_bound(2 * S) == matmul_part_bound_sqrt_form(S) for S in range(2, 200))
    with pytest.raises(InvalidInputError, match="k=0"):
        matmul_part_bound(0)


def test_sy_part_bound() -> None:
    assert sy_part_bound(4, 2, 3) == (8 + 4) * 3
    assert sy_part_bound(6, 1, 1) == 12 + 36


def test_matmul_bound_is_tight_on_2x2x2() -> None:
    """The exact maximum (independent iteration) equals β_MM(k) for k ≤ 4 on matmul 2x2x2."""
    G = matmul_dag(2, 2, 2)
    products = product_vertices(G, "AB")
    for k in (1, 2, 3, 4):
        best = max_counted_bounded_set(G, products, k, timeout_ms=20_000)
        assert best.status == "sat" and best.count == matmul_part_bound(k)
        assert is_bounded_set(G, best.witness, k)


def test_fma_products_counted() -> None:
    assert len(product_vertices(matmul_dag(2, 3, 2, "fma"), "AB")) == 12


def test_qk_trees_hypotheses() -> None:
    trees = qk_trees(attention_forward_dag(2, 1))
    assert len(trees) == 4 and all(len(t) == 1 for _, t in trees)
    assert len(qk_trees(attention_backward_dag(2, 2))) == 4
    with pytest.raises(InvalidInputError, match="not an input"):
        qk_trees(attention_backward_dag(2, 1, gradient="dX"))


def test_step4_and_part_checks_on_qk() -> None:
    G = matmul_dag(3, 2, 3)
    assert check_extra_trees(G, 4, 4, timeout_ms=20_000).proved
    # tight at k = 4, d = 2: one row and one column fully in D give 1 extra tree; ≤ 0 is false
    assert isinstance(check_extra_trees(G, 4, 0, timeout_ms=20_000), Refuted)


def test_witness_of_refutation_is_data() -> None:
    G = matmul_dag(2, 2, 2)
    v = check_part_bound(G, product_vertices(G, "AB"), 4, 3, timeout_ms=20_000)
    assert isinstance(v, Refuted)
    ce = v.counterexample
    assert ce["count"] == 4 and len(ce["dominator"]) <= 4
    assert is_bounded_set(G, ce["W"], 4)


def test_tiny_timeout_is_undecided() -> None:
    G = matmul_dag(3, 3, 3)
    v = check_part_bound(G, product_vertices(G, "AB"), 6, matmul_part_bound(6), timeout_ms=1)
    assert v.verdict in ("undecided", "proved")  # never refuted: the lemma is true
    assert v.verdict == "undecided"


def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


@pytest.mark.slow
def test_deep_claims_proved(deep_claim) -> None:
    v = deep_claim.check(CheckContext(z3_timeout_ms=120_000, deep=True))
    assert v.proved, v.detail
