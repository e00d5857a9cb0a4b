"""attnio.proofs.algorithm_counts: forms that describe algorithms, checked against the counts.

Claims Proved with exhaustive evidence; twins Refuted with a counterexample that is re-checked
here from the counters themselves (never from a hard-coded count: the schedules may change).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms.counts import count_flash1_backward
from attnio.algorithms.registry import REGISTRY, get_algorithm
from attnio.proofs import algorithm_counts as A
from attnio.proofs.algebra import bound, symbol
from attnio.proofs.algorithm_counts import CLAIMS, FALSE_TWINS
from attnio.results import Refuted, Undecided


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claims_proved_with_counted_instances(claim) -> None:
    verdict = claim.check()
    assert verdict.verdict == "proved", verdict
    assert verdict.evidence.kind == "exhaustive"
    assert verdict.evidence.instances >= 100 and verdict.evidence.nontrivial_instances > 0


@pytest.mark.parametrize("twin", FALSE_TWINS, ids=lambda c: c.id)
def test_twins_refuted_with_a_recomputed_counterexample(twin) -> None:
    verdict = twin.check()
    assert verdict.verdict == "refuted", verdict
    cx = verdict.counterexample
    n, d, M = cx["n"], cx["d"], cx["M"]
    if "algorithm" in cx:  # an envelope: count > constant * form, recomputed exactly
        io = get_algorithm(cx["algorithm"]).counter(cx["pass"])(n, d, M).io
        assert io == cx["count"]
        constant = int(cx["bound"].split("*")[0])
        bound_id = cx["bound"].split("*")[1].split(" ")[0]
        value = bound(bound_id).expr.subs({symbol("n"): n, symbol("d"): d, symbol("M"): M})
        assert sympy.Integer(io) > constant * value
    else:  # a comparison: the "fast" algorithm moves more
        names = [k for k in cx if k in REGISTRY]
        fast, slow = names
        counts = {a: get_algorithm(a).counter(cx["pass"])(n, d, M).io for a in names}
        assert counts[fast] == cx[fast] and counts[slow] == cx[slow] and cx[fast] > cx[slow]


def test_the_issue_figure_is_the_counterexample_of_the_idealised_backward_bound() -> None:
    """low.fa_backward_count's 32 n^2 d^2 / M fails for the algorithm at n=4096, d=64, M=768."""
    twin = next(t for t in FALSE_TWINS if t.id == "cnt.flash1.backward.twin_idealised")
    cx = twin.check().counterexample
    assert (cx["n"], cx["d"], cx["M"]) == (4096, 64, 768)
    io = count_flash1_backward(4096, 64, 768).io
    assert cx["count"] == io and Fraction(cx["bound_exact"]) == Fraction(32 * 4096**2 * 64**2, 768)
    assert 1.8 < cx["ratio_to_bound"] < 2.0


@pytest.mark.trust
@pytest.mark.parametrize("bound_id", ["fwd.flash1.upper", "bwd.standard",
                                      "fwd.square_tiling.upper", "bwd.alg6.upper"])
def test_form_parts_reassemble_the_catalogue_expression(bound_id: str) -> None:
    r, s = A.form_parts(bound_id)
    expr = bound(bound_id).expr
    for n, d, M in ((4, 2, 4), (100, 8, 63), (4096, 64, 768)):
        got = sympy.Rational(r(*map(Fraction, (n, d, M)))) + \
            sympy.Rational(s(*map(Fraction, (n, d, M)))) / sympy.sqrt(M)
        want = expr.subs({symbol("n"): n, symbol("d"): d, symbol("M"): M})
        assert sympy.simplify(got - want) == 0


def test_exact_comparison_with_a_root() -> None:
    # 12 <= 1 * (0 + 24/sqrt(4)) = 12 holds with equality; 13 does not
    assert A._le(12, 1, Fraction(0), Fraction(24), 4)
    assert not A._le(13, 1, Fraction(0), Fraction(24), 4)
    # 3 <= 2 + 1/sqrt(2)? 1 <= 0.707 no; 2 <= 2 + ... yes
    assert not A._le(3, 1, Fraction(2), Fraction(1), 2) and A._le(2, 1, Fraction(2), Fraction(1), 2)


def test_a_claim_with_no_instance_in_range_is_undecided() -> None:
    env = A.Envelope("flash1", "backward", "bwd.flash1.upper", 32, "nowhere",
                     lambda n, d, M: False)
    assert env.check().verdict == "undecided"


def test_grid_holds_the_pinned_points_once() -> None:
    points = list(A.grid())
    assert points[0] == (4096, 64, 768) and len(points) == len(set(points))


def test_a_form_with_a_negative_part_is_undecided_not_compared() -> None:
    """fwd.large_explicit.lower = n²d²/(4(M + d²)) − M: the squared comparison would be wrong."""
    env = A.Envelope("flash1", "forward", "fwd.large_explicit.lower", 1, "d >= 8",
                     lambda n, d, M: d >= 8)
    verdict = env.check()
    assert verdict.verdict == "undecided" and "negative part" in verdict.detail


#: (algorithm, pass) of the registry not covered by an envelope of their own, and why; each
#: reason is checked below so that an exception cannot outlive its cause.
_SAME_COUNTER = {("small-cache", "forward"): ("square-tiling", "forward"),
                 ("flash2-gqa", "forward"): ("flash2", "forward"),
                 ("flash2-gqa", "backward"): ("flash2", "backward"),
                 ("small-cache-stable", "backward"): ("small-cache", "backward")}
_OVERFLOWS = {("flash1-published", "forward"), ("flash1-published", "backward")}


def test_every_registered_algorithm_has_an_envelope_with_its_own_bound() -> None:
    """Each (algorithm, pass) of the registry is compared with the catalogue form it cites."""
    from attnio.algorithms.registry import REGISTRY

    envelopes = {(c.check_fn.__self__.algorithm, c.check_fn.__self__.pass_):
                 c.check_fn.__self__.bound_id
                 for c in CLAIMS if isinstance(getattr(c.check_fn, "__self__", None), A.Envelope)}
    for name, spec in REGISTRY.items():
        for pass_ in spec.passes:
            key = (name, pass_)
            if key in _SAME_COUNTER or key in _OVERFLOWS:
                continue
            assert key in envelopes, f"{key}: no cnt.* claim compares its count with its form"
            assert envelopes[key] == spec.bound_id(pass_), key


@pytest.mark.parametrize("key", sorted(_SAME_COUNTER), ids=str)
def test_an_exempt_algorithm_runs_the_counter_of_a_covered_one(key) -> None:
    other = _SAME_COUNTER[key]
    for n, d, M in ((64, 8, 256), (100, 16, 400), (4096, 64, 768)):
        assert (get_algorithm(key[0]).counter(key[1])(n, d, M)
                == get_algorithm(other[0]).counter(other[1])(n, d, M))


@pytest.mark.parametrize("key", sorted(_OVERFLOWS), ids=str)
def test_the_printed_blocks_overflow_M(key) -> None:
    from attnio.exceptions import CacheOverflowError

    with pytest.raises(CacheOverflowError):
        get_algorithm(key[0]).counter(key[1])(4096, 64, 16384)


# ---- the trust tier: one planted violation per side condition of the comparisons ---------------
# The claims' checkers are run on a planted grid with planted counts (monkeypatched), so each
# rule is tested on its own, fast, whatever the schedules count today.

POINTS = [(16, 8, 64), (64, 8, 65), (256, 8, 512)]   # M/d² = 1, 1.015625, 8


def _bound(bound_id: str, n: int, d: int, M: int) -> Fraction:
    """The form's exact value where it is rational (s = 0)."""
    r, s = A.form_parts(bound_id)
    assert s(Fraction(n), Fraction(d), Fraction(M)) == 0
    return r(Fraction(n), Fraction(d), Fraction(M))


def _plant(monkeypatch, counts) -> None:
    """Grid = POINTS; ``counts(algorithm, n, d, M)`` the planted exact count (None: no fit) of
    the forward pass (every planted claim here is about it)."""
    def count(alg, pass_, n, d, M):
        assert pass_ == "forward", pass_
        return counts(alg, n, d, M)

    monkeypatch.setattr(A, "grid", lambda: iter(POINTS))
    monkeypatch.setattr(A, "_count", count)


def _envelope(constant: int = 16, in_range=lambda n, d, M: True) -> A.Envelope:
    return A.Envelope("standard", "forward", "fwd.standard", constant, "planted", in_range)


@pytest.mark.trust
def test_twin___le__rational_part() -> None:
    assert A._le(40, 4, Fraction(10), Fraction(0), 9)
    assert not A._le(41, 4, Fraction(10), Fraction(0), 9)          # one word over
    assert A._le(39, 4, Fraction(10), Fraction(0), 9)


@pytest.mark.trust
def test_twin___le__root_part() -> None:
    """Issue 36: √M on the wrong side (comparing with s·√M) let 7 ≤ 12/√4 = 6 through."""
    assert A._le(6, 1, Fraction(0), Fraction(12), 4) and not A._le(7, 1, Fraction(0),
                                                                    Fraction(12), 4)
    assert A._le(12, 1, Fraction(0), Fraction(24), 4) and not A._le(13, 1, Fraction(0),
                                                                     Fraction(24), 4)
    # 3 ≤ 2 + 1/√2 = 2.71 is false, 2 ≤ it true; with constant 2: 5 ≤ 4 + 2/√2 = 5.41
    assert not A._le(3, 1, Fraction(2), Fraction(1), 2) and A._le(2, 1, Fraction(2),
                                                                   Fraction(1), 2)
    assert A._le(5, 2, Fraction(2), Fraction(1), 2) and not A._le(6, 2, Fraction(2),
                                                                   Fraction(1), 2)


@pytest.mark.trust
@settings(max_examples=80, deadline=None, derandomize=True)
@given(count=st.integers(0, 400), constant=st.integers(1, 30),
       r=st.fractions(0, 20, max_denominator=7), s=st.fractions(0, 60, max_denominator=7),
       M=st.integers(1, 500))
def test_le_is_the_exact_comparison(count, constant, r, s, M) -> None:
    """Against sympy's exact comparison with the real square root."""
    exact = sympy.Integer(count) <= constant * (sympy.Rational(r.numerator, r.denominator)
                                                + sympy.Rational(s.numerator, s.denominator)
                                                / sympy.sqrt(M))
    assert A._le(count, constant, r, s, M) == bool(exact)


@pytest.mark.trust
def test_twin__envelope_check__count_within_bound(monkeypatch) -> None:
    """Issue 36: a comparison that tolerated one extra word."""
    exact = {p: int(16 * _bound("fwd.standard", *p)) for p in POINTS}
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M])
    verdict = _envelope().check()
    assert verdict.proved and (verdict.evidence.kind, verdict.evidence.instances,
                               verdict.evidence.nontrivial_instances) == ("exhaustive", 3, 3)
    assert verdict.detail == ("3 grid points (0 where the tiles do not fit skipped); max "
                              "count/fwd.standard = 16.000 at (n, d, M) = (16, 8, 64) <= 16")
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M] + 500 * (n == 256))
    far = _envelope().check().counterexample
    assert far["worst_ratio_count_over_form"] == round((exact[256, 8, 512] + 500) * 16
                                                       / float(16 * _bound("fwd.standard", 256,
                                                                           8, 512)), 3)
    assert far["worst_ratio_count_over_form"] != round(far["worst_ratio_count_over_form"])
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M] + ((n, d, M) == POINTS[1]))
    verdict = _envelope().check()
    bound = 16 * _bound("fwd.standard", *POINTS[1])
    assert verdict == Refuted(
        {"n": 64, "d": 8, "M": 65, "algorithm": "standard", "pass": "forward",
         "count": exact[POINTS[1]] + 1, "bound": f"16*fwd.standard = {float(bound):,.1f}",
         "ratio_to_bound": round((exact[POINTS[1]] + 1) / float(bound), 4),
         "bound_exact": str(bound), "failing_points": 1,
         "worst_ratio_count_over_form": round((exact[POINTS[1]] + 1) * 16 / float(bound), 3),
         "worst_at": (64, 8, 65)},
        "the exact count of standard forward exceeds 16*fwd.standard at 1 of 3 grid points "
        "(planted)")


@pytest.mark.trust
def test_twin__envelope_check__every_point(monkeypatch) -> None:
    exact = {p: int(16 * _bound("fwd.standard", *p)) for p in POINTS}
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M] + ((n, d, M) == POINTS[-1]))
    assert isinstance(_envelope().check(), Refuted)
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M] + (n > 16))
    verdict = _envelope().check()
    assert verdict.counterexample["failing_points"] == 2 and verdict.detail.endswith(
        "at 2 of 3 grid points (planted)")
    # a point where the tiles do not fit is skipped, the others still compared
    _plant(monkeypatch, lambda alg, n, d, M: None if n == 16 else exact[n, d, M])
    verdict = _envelope().check()
    assert verdict.proved and verdict.evidence.instances == 2
    # out of range is not an instance: a failure there does not count
    _plant(monkeypatch, lambda alg, n, d, M: exact[n, d, M] + (n == 16))
    assert _envelope(in_range=lambda n, d, M: n > 16).check().proved
    assert _envelope(in_range=lambda n, d, M: M > 64).check().proved
    assert isinstance(_envelope(in_range=lambda n, d, M: M < 128).check(), Refuted)
    assert isinstance(_envelope(in_range=lambda n, d, M: d * d == M).check(),   # n = 16 only
                      Refuted)
    assert _envelope(in_range=lambda n, d, M: n > 2 * d).check().proved          # n = 64, 256


@pytest.mark.trust
def test_twin__envelope_check__nonnegative_parts(monkeypatch) -> None:
    """fwd.large_explicit.lower = n²d²/(4(M + d²)) − M has a negative part: never compared."""
    _plant(monkeypatch, lambda alg, n, d, M: 0)
    env = A.Envelope("flash1", "forward", "fwd.large_explicit.lower", 1, "planted",
                     lambda n, d, M: True)
    verdict = env.check()
    assert verdict == Undecided("fwd.large_explicit.lower splits into r = -32, s = 0 at (n, d, "
                                "M) = (16, 8, 64): a negative part; the exact comparison "
                                "assumes r, s >= 0")


@pytest.mark.trust
def test_twin__envelope_check__non_vacuous(monkeypatch) -> None:
    _plant(monkeypatch, lambda alg, n, d, M: None)                 # runs nowhere
    assert isinstance(_envelope().check(), Undecided)
    _plant(monkeypatch, lambda alg, n, d, M: 0)
    assert isinstance(_envelope(in_range=lambda n, d, M: False).check(), Undecided)


def _comparison() -> A.Comparison:
    return A.Comparison("square-tiling", "flash1", "forward", "planted", lambda n, d, M: True)


@pytest.mark.trust
def test_twin__comparison_check__fast_not_above_slow(monkeypatch) -> None:
    """Issue 36: one extra word must refute."""
    _plant(monkeypatch, lambda alg, n, d, M: 1000)
    verdict = _comparison().check()
    assert verdict.proved and verdict.evidence.instances == 3
    _plant(monkeypatch, lambda alg, n, d, M: 1000 + (alg == "square-tiling" and n == 64))
    verdict = _comparison().check()
    assert verdict == Refuted({"n": 64, "d": 8, "M": 65, "pass": "forward", "M_over_d2": 1.0156,
                               "square-tiling": 1001, "flash1": 1000, "failing_points": 1},
                              "square-tiling moves more words than flash1 (forward) at 1 of 3 "
                              "grid points (planted)")


@pytest.mark.trust
def test_twin__comparison_check__every_point(monkeypatch) -> None:
    _plant(monkeypatch, lambda alg, n, d, M: 1000 + (alg == "square-tiling" and n == 256))
    assert isinstance(_comparison().check(), Refuted)
    only_large_M = A.Comparison("square-tiling", "flash1", "forward", "planted",
                                lambda n, d, M: M > 128)
    assert isinstance(only_large_M.check(), Refuted)
    by_d = A.Comparison("square-tiling", "flash1", "forward", "planted",
                        lambda n, d, M: d * d < M and n > d)
    assert isinstance(by_d.check(), Refuted)
    _plant(monkeypatch, lambda alg, n, d, M: 1000 + (alg == "square-tiling" and n == 16))
    assert only_large_M.check().proved
    _plant(monkeypatch, lambda alg, n, d, M: None if (alg == "flash1" and n == 16) else 7)
    verdict = _comparison().check()
    assert verdict == A.Proved("2 grid points, count(square-tiling) <= count(flash1) (1 where "
                               "a tile set does not fit skipped)", evidence=A.Evidence(
                                   "exhaustive", instances=2, nontrivial_instances=2))


@pytest.mark.trust
def test_twin__comparison_check__non_vacuous(monkeypatch) -> None:
    _plant(monkeypatch, lambda alg, n, d, M: None if alg == "flash1" else 1)
    assert isinstance(_comparison().check(), Undecided)


@pytest.mark.trust
def test_count_is_the_registry_counter_or_none_where_the_tiles_do_not_fit() -> None:
    assert A._count("flash1", "forward", 4096, 64, 768) == \
        get_algorithm("flash1").counter("forward")(4096, 64, 768).io
    assert A._count("flash1", "forward", 16, 8, 4) is None          # 4 words: no tile fits
    assert A._count("square-tiling", "forward", 16, 8, 4) == \
        get_algorithm("square-tiling").counter("forward")(16, 8, 4).io
