"""Every claim of attnio.proofs.lower_bound_steps is Proved and every false twin Refuted."""

from __future__ import annotations

import pytest
import sympy

from attnio.proofs.lower_bound_steps import CLAIMS, FALSE_TWINS
from attnio.results import Refuted

DEFAULT = [c for c in CLAIMS if c.tier == "default"]
DEEP = [c for c in CLAIMS if c.tier == "deep"]


def test_there_is_no_deep_tier_left() -> None:
    """hk.matmul.integer_table_deep was the only deep claim: it held by the definition of the
    ceiling and was removed (issue 10). A new deep claim goes back into a parametrized test."""
    assert DEEP == []


@pytest.mark.parametrize("claim", DEFAULT, ids=lambda c: c.id)
def test_claim_is_proved(claim) -> None:
    v = claim.check()
    assert v.proved, v.detail


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_false_twin_is_refuted(twin) -> None:
    v = twin.check()
    assert isinstance(v, Refuted) and twin.rejects(v), v.detail
    assert twin.twin_of


def test_every_family_has_a_twin() -> None:
    assert {c.family for c in CLAIMS} <= {t.family for t in FALSE_TWINS}


def test_hong_kung_integer_bound_by_hand() -> None:
    from attnio.proofs.lower_bound_steps import hong_kung_matmul_bound, min_parts_matmul

    # 4x4x4, S = 4: 64 products, S*sqrt(2S) = 4*sqrt(8) = 11.31..., ceil(64/11.31) = 6 parts.
    assert min_parts_matmul(4, 4, 4, 4) == 6
    assert hong_kung_matmul_bound(4, 4, 4, 4) == 20
    # 2x2x2, S = 2: 8 products, 2*sqrt(4) = 4 per part: exactly 2 parts, bound 2.
    assert min_parts_matmul(2, 2, 2, 2) == 2 and hong_kung_matmul_bound(2, 2, 2, 2) == 2
    # One product: one part, bound 0 (never negative).
    assert hong_kung_matmul_bound(1, 1, 1, 3) == 0
    assert isinstance(hong_kung_matmul_bound(3, 3, 3, 3), int)


def test_min_parts_is_the_least_integer_satisfying_the_count() -> None:
    from attnio.proofs.lower_bound_steps import min_parts_matmul

    for m, k, p, S in [(3, 4, 5, 3), (8, 8, 8, 5), (1, 7, 2, 9), (6, 6, 6, 16)]:
        P, N = min_parts_matmul(m, k, p, S), m * k * p
        assert P * P * S * S * 2 * S >= N * N
        assert P == 0 or (P - 1) ** 2 * S * S * 2 * S < N * N


def test_f5_hk_reduction_is_vacuous_at_d2() -> None:
    # notes/findings.md F5: n = 8, d = 16, M = d**2 = 256.
    from attnio.symbolic.catalogue import get_bound

    hk = get_bound("matmul.hk_explicit.lower").evaluate(m=8, k=16, p=8, M=256)
    assert hk == 32 * sympy.sqrt(2) - 256 and hk - 8 ** 2 < 0


def test_integer_hk_bound_is_below_the_partition_engineers_explicit_bound() -> None:
    # Two independent implementations of Hong–Kung Lemma 3.1 for matmul: ours uses the real
    # per-part count S*sqrt(2S), explicit_bounds uses floor(S*sqrt(2S)) (and the best route),
    # so theirs can only be larger or equal.
    from attnio.graphs.lower_bounds.explicit import explicit_lower_bound
    from attnio.proofs.lower_bound_steps import hong_kung_matmul_bound

    for S in range(2, 9):
        for m, k, p in [(2, 2, 2), (3, 3, 3), (4, 2, 5), (1, 6, 1), (5, 5, 5)]:
            ours = hong_kung_matmul_bound(m, k, p, S)
            theirs = explicit_lower_bound("matmul", {"m": m, "k": k, "p": p}, S)
            assert ours <= theirs, (m, k, p, S, ours, theirs)


@pytest.mark.trust
def test_level1_count_counts_the_dags() -> None:
    """Issue 20: the claim was n²(2d − 1) ≥ n²d, true from d ≥ 1 alone; it now counts."""
    from attnio.proofs.lower_bound_steps import _level1_count
    from attnio.proofs.registry import CheckContext

    v = _level1_count(CheckContext())
    assert v.proved and v.evidence.instances == v.evidence.nontrivial_instances == 64
    r = _level1_count(CheckContext(), per_tree=lambda d: 2 * d)
    assert isinstance(r, Refuted) and r.counterexample == {
        "dag": "forward", "summation": "tree", "n": 1, "d": 1, "trees": 1,
        "level1_per_tree": [1], "claimed": 2}
    r = _level1_count(CheckContext(), per_tree=lambda d: 2 * d - 1 if d < 4 else 2 * d - 2)
    assert isinstance(r, Refuted) and (r.counterexample["n"], r.counterexample["d"]) == (1, 4)


@pytest.mark.trust
@pytest.mark.parametrize("name", ["_thm42_chain", "_hk_chain"])
def test_every_step_of_each_chain_is_needed(name: str) -> None:
    """Deleting any one step makes the composition fail (the checker's necessity stage)."""
    import z3

    import attnio.proofs.lower_bound_steps as module
    from attnio.smt.chains import composition_facts
    from attnio.smt.z3tools import check_sat

    chain = getattr(module, name)()
    facts = composition_facts(chain)
    assert check_sat(facts + [z3.Not(chain.conclusion)], 20)[0] == "unsat"
    for j in range(len(facts)):
        assert check_sat(facts[:j] + facts[j + 1:] + [z3.Not(chain.conclusion)], 20)[0] == "sat"


@pytest.mark.trust
def test_the_chains_cite_the_registered_steps() -> None:
    """The chain steps are the registered claims' problems, not private copies."""
    from attnio.proofs.algebra import bound
    from attnio.proofs.lower_bound_steps import _hk_chain, _thm42_chain

    names = [s.name for s in _thm42_chain().steps]
    assert names == ["sy.lemma33.extra_trees at 2M", "trees per part ≤ 4M + 4M²/d²",
                     "parts P ≥ n²/(4M + 4M²/d²)", "sy.lemma34.explicit",
                     "sy.lemma34.large_cache_form"]
    assert [s.name for s in _hk_chain().steps][-2:] == ["hk.lemma31.matmul_explicit",
                                                        "hk.lean_combined"]
    assert bound("matmul.lean_combined.lower").expr.has(sympy.Symbol("m", positive=True,
                                                                     integer=True))
