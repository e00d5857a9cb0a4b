"""Mutation survivors of seed 61 (issue 36), helper mmc: lower-bound routes and checkers of
attnio.graphs.lower_bounds, the algorithm-count and mask/joint/stacked claims, and the bounds
they check (bounds/attention.py, bounds/masks.py, bounds/heads.py, bounds/joint.py,
bounds/gap_worst.py).

Each test states the rule the mutated line implements and checks it against a hand-computed
value or an independent evaluation; the survivors that no input can tell apart are listed in
benchmarks/mutation_equivalents/.
"""

from __future__ import annotations

import time
from fractions import Fraction
from math import isqrt

import pytest

import attnio.graphs.baseline as baseline
import attnio.graphs.partitions as partitions
from attnio.algorithms.instance import Instance
from attnio.algorithms.masks import Mask
from attnio.bounds import gap_worst
from attnio.bounds import heads as heads_module
from attnio.bounds import joint as joint_module
from attnio.bounds.attention import SEGMENT_MULTIPLES, joint_routes, leaves_segment_route
from attnio.bounds.heads import (
    joint_interval_lower_bound,
    stacked_lower_bound_routes,
)
from attnio.bounds.instance_bounds import CLASSES, instance_lower_bound
from attnio.bounds.joint import JOINT_CLASSES, joint_cap
from attnio.bounds.masks import masked_compulsory_io
from attnio.exceptions import InvalidInputError, TimeLimitReached
from attnio.graphs.dags import matmul_dag
from attnio.graphs.lower_bounds import (
    CHECK_TIME_LIMIT_REASON,
    Deadline,
    check_certificate,
    combined,
    hong_kung_route,
)
from attnio.graphs.lower_bounds.counting import check_hong_kung
from attnio.graphs.lower_bounds.subdag import resolve_for_checker
from attnio.graphs.lower_bounds.windows import verify_forced
from attnio.graphs.pebble_result import PebbleResult
from attnio.proofs import algorithm_counts as A
from attnio.proofs import joint_routes as jr
from attnio.proofs import mask_bounds as mb
from attnio.proofs import stacked_heads as sh
from attnio.proofs.registry import CheckContext
from attnio.results import Proved, Refuted, Undecided

pytestmark = pytest.mark.trust


# ---- graphs/lower_bounds: deadlines -------------------------------------------------------------

class _LapsesAfterItsCheck(Deadline):
    """A deadline that passes right after the checker's entry check (the race a real deadline
    runs: ``check()`` passes, the clock is past ``at`` by the next call)."""

    def check(self) -> None:
        return None


def _lapsed() -> Deadline:
    return _LapsesAfterItsCheck(time.monotonic() - 1.0)


def test_certified_lower_bound_gives_its_deadline_to_the_routes(monkeypatch) -> None:
    """Rule: ``deadline`` bounds the routes of certified_lower_bound, not only their checks —
    lower_bounds receives it (a route search that ignores it runs past ``pebble --json``'s
    time limit)."""
    seen: list[object] = []
    real = combined.lower_bounds

    def spy(*args, **kwargs):
        seen.append(kwargs.get("deadline"))
        return real(*args, **kwargs)

    monkeypatch.setattr(combined, "lower_bounds", spy)
    dl = Deadline.after(60)
    got = combined.certified_lower_bound(matmul_dag(1, 2, 1), 3, deadline=dl)
    assert seen == [dl] and got["value"] == 7


def test_check_hong_kung_honours_a_deadline_that_passes_during_the_fresh_run() -> None:
    """Rule: the fresh partition run gets the check's deadline; when it passes before P − 1
    parts are re-refuted the check is undecided (TimeLimitReached, the same "time limit
    reached" as Deadline.check; Undecided through check_certificate), never a pass or a
    rejection. matmul 1×2×1 at M = 1: P = 3 above the counting bound 2."""
    G = matmul_dag(1, 2, 1)
    record = hong_kung_route(G, 1)
    assert record.certificate["P"] == 3 and check_certificate(G, 1, record).proved
    with pytest.raises(TimeLimitReached) as caught:
        check_hong_kung(G, 1, record, deadline=_lapsed())
    with pytest.raises(TimeLimitReached) as reference:
        Deadline(0.0).check()
    assert str(caught.value) == str(reference.value) == "time limit reached"
    assert check_certificate(G, 1, record, deadline=_lapsed()) == Undecided(
        CHECK_TIME_LIMIT_REASON)


def test_check_hong_kung_passes_when_the_cut_run_already_proves_p(monkeypatch) -> None:
    """Rule: a fresh run cut by the deadline whose proven lower bracket already reaches P
    certifies P ≥ P (no 2M-partition with P − 1 parts): three fans of three inputs at M = 4
    have 9 inputs > 2M, so P = 2 is the counting bound itself — Proved, not undecided."""
    fans = _fans()
    record = hong_kung_route(fans, 4)
    assert record.certificate["P"] == 2
    cut = partitions.min_partition_parts(fans, 8, deadline=time.monotonic() - 1.0)
    assert (cut.lower, cut.detail) == (2, "time limit reached")   # the counting bound only
    assert check_hong_kung(fans, 4, record, deadline=_lapsed()).proved
    assert check_certificate(fans, 4, record, deadline=_lapsed()).proved


def test_check_hong_kung_gives_the_fresh_run_the_time_left(monkeypatch) -> None:
    """Rule: min_partition_parts gets the deadline's instant (None without a deadline)."""
    seen: list[object] = []
    real = partitions.min_partition_parts

    def spy(G, S, **kwargs):
        seen.append(kwargs.get("deadline"))
        return real(G, S, **kwargs)

    monkeypatch.setattr(partitions, "min_partition_parts", spy)
    G = matmul_dag(1, 2, 1)
    record = hong_kung_route(G, 1)
    seen.clear()
    dl = Deadline.after(60)
    assert check_hong_kung(G, 1, record, deadline=dl).proved
    assert check_hong_kung(G, 1, record).proved
    assert seen == [dl.at, None]


def _fans():
    import networkx as nx
    return nx.DiGraph([(f"x{p}_{i}", f"s{p}") for p in range(3) for i in range(3)])


# ---- graphs/lower_bounds: verify_forced, resolve_for_checker -----------------------------------

def test_verify_forced_refutes_an_entry_without_a_set() -> None:
    """Rule (set-distinct): a forced entry must name a set T of ≥ 2 distinct vertices; one
    without "set" is the empty set — Refuted naming it, not a crash."""
    G = matmul_dag(1, 2, 1)
    inputs = {"A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]"}
    verdict = verify_forced(G, 3, [{"at": "C[0,0]", "charge": 1}], {"C[0,0]"}, inputs)
    assert verdict == Refuted({"set": []}, "a forced set has ≥ 2 distinct vertices")


def test_resolve_for_checker_names_the_unsettled_outputs(monkeypatch) -> None:
    """Rule (settled): an H whose optimum the plain baseline does not settle is Refuted with
    the claimed outputs T as the counterexample ({"H_outputs": T}) and the baseline's verdict."""
    monkeypatch.setattr(baseline, "plain_optimal",
                        lambda H, M, **kw: PebbleResult.undecided(5, 9, "planted"))
    G = matmul_dag(1, 2, 2)
    verdict = resolve_for_checker(G, 3, ["C[0,0]"], ["C[0,0]", "C[0,1]"], 30, Deadline.never())
    assert isinstance(verdict, Refuted)
    assert verdict.counterexample == {"H_outputs": ["C[0,0]"]}
    assert verdict.detail.startswith("the plain baseline does not settle Q(H): ")


def test_resolve_for_checker_caps_the_re_solve_at_two_minutes(monkeypatch) -> None:
    """Rule: the plain baseline re-solves H within 120 s, or the time left before the
    deadline if less."""
    seen: list[float] = []
    real = baseline.plain_optimal

    def spy(H, M, **kw):
        seen.append(kw["time_limit"])
        return real(H, M, **kw)

    monkeypatch.setattr(baseline, "plain_optimal", spy)
    G = matmul_dag(1, 2, 2)
    for dl in (Deadline.never(), Deadline.after(10_000)):
        resolve_for_checker(G, 3, ["C[0,0]"], ["C[0,0]", "C[0,1]"], 30, dl)
    short = Deadline.after(30)
    resolve_for_checker(G, 3, ["C[0,0]"], ["C[0,0]", "C[0,1]"], 30, short)
    assert seen[:2] == [120, 120] and 25 < seen[2] <= 30


# ---- proofs/algorithm_counts --------------------------------------------------------------------

POINTS = [(16, 8, 64), (64, 8, 65), (256, 8, 512)]


def _grid(monkeypatch, counts) -> list[tuple]:
    calls: list[tuple] = []

    def count(alg, pass_, n, d, M):
        calls.append((alg, pass_, n, d, M))
        return counts(alg, n, d, M)

    monkeypatch.setattr(A, "grid", lambda: iter(POINTS))
    monkeypatch.setattr(A, "_count", count)
    return calls


def test_comparison_counts_both_algorithms_at_the_grid_point(monkeypatch) -> None:
    """Rule (every-point): count(fast) and count(slow) are both taken at the point's own
    (n, d, M)."""
    calls = _grid(monkeypatch, lambda alg, n, d, M: n * d + M)
    verdict = A.Comparison("square-tiling", "flash1", "forward", "planted",
                           lambda n, d, M: True).check()
    assert verdict.proved
    assert sorted(calls) == sorted((alg, "forward", n, d, M) for n, d, M in POINTS
                                   for alg in ("square-tiling", "flash1"))


def test_envelope_evaluates_the_root_part_at_the_point(monkeypatch) -> None:
    """Rule (count-within-bound): count ≤ c·(r + s/√M) with r and s evaluated at the point's
    (n, d, M). A planted form r = 0, s = n·d·M/4 (its s depends on all three): the largest
    count it admits, ⌊s/√M⌋ = isqrt(⌊s²/M⌋), is Proved; one word more Refuted at that point."""
    def s_of(n, d, M):
        return Fraction(n * d * M, 4)

    monkeypatch.setattr(A, "form_parts", lambda bound_id: (lambda n, d, M: Fraction(0), s_of))
    most = {(n, d, M): isqrt(int(s_of(n, d, M) ** 2) // M) for n, d, M in POINTS}
    for p in POINTS:
        assert most[p] ** 2 * p[2] <= s_of(*p) ** 2 < (most[p] + 1) ** 2 * p[2]
    env = A.Envelope("standard", "forward", "planted.form", 1, "planted", lambda n, d, M: True)
    _grid(monkeypatch, lambda alg, n, d, M: most[n, d, M])
    assert env.check().proved
    _grid(monkeypatch, lambda alg, n, d, M: most[n, d, M] + ((n, d, M) == POINTS[1]))
    verdict = env.check()
    assert isinstance(verdict, Refuted)
    assert (verdict.counterexample["n"], verdict.counterexample["d"],
            verdict.counterexample["M"], verdict.counterexample["failing_points"]) == (64, 8, 65, 1)


def test_envelope_compares_a_form_with_no_rational_part(monkeypatch) -> None:
    """Rule (nonnegative-parts): only a negative part makes the comparison Undecided; the
    square-tiling form d·n²/√M has r = 0 and is compared (Proved under it, Refuted above)."""
    r_of, s_of = A.form_parts("fwd.square_tiling.upper")
    assert all(r_of(*map(Fraction, p)) == 0 for p in POINTS)
    env = A.Envelope("square-tiling", "forward", "fwd.square_tiling.upper", 1, "planted",
                     lambda n, d, M: True)
    _grid(monkeypatch, lambda alg, n, d, M: n * n * d // isqrt(M) // 2)
    assert env.check().proved
    _grid(monkeypatch, lambda alg, n, d, M: n * n * d)
    assert isinstance(env.check(), Refuted)


# ---- the messages a bad argument gets ----------------------------------------------------------

def test_a_bad_size_is_named_in_the_message() -> None:
    """Rule: a size that is not a positive integer is refused naming that parameter."""
    with pytest.raises(InvalidInputError, match=r"^M=0 must be a positive integer$"):
        joint_routes(4, 2, 0, "forward")
    with pytest.raises(InvalidInputError, match=r"^n=0 must be a positive integer$"):
        masked_compulsory_io("forward", Mask.causal(), 0, 2, "forward")
    with pytest.raises(InvalidInputError, match=r"^n=0 must be a positive integer$"):
        joint_interval_lower_bound("forward", 0, 4, 8, 8, "forward")
    with pytest.raises(InvalidInputError, match=r"^b=0 must be a positive integer$"):
        joint_interval_lower_bound("forward", 4, 4, 8, 0, "forward")


# ---- bounds/attention: leaves_segment_route ----------------------------------------------------

class _ExactCap:
    """A cap whose cheap estimate is the cap itself, counting the caps evaluated."""

    def __init__(self) -> None:
        self.calls = 0

    @staticmethod
    def _value(d: int, M: int, L: int) -> int:
        return L + 3 * M                      # the best length is not the first nor the last

    def __call__(self, d: int, M: int, L: int) -> int:
        self.calls += 1
        return self._value(d, M, L)

    def estimate(self, d: int, M: int, L: int) -> int:
        return self._value(d, M, L)


def test_leaves_segment_route_tries_the_most_hopeful_length_first() -> None:
    """Rule: with a cap that has a lower estimate, lengths are tried in the order of their
    optimistic value and the rest skipped once none can beat the best: with estimate = cap the
    first length tried is the maximum and no other cap is evaluated; the value is the maximum
    over every L = tM, the shortest among ties."""
    N, d, M = 10_000, 4, 10
    cap = _ExactCap()
    value, L = leaves_segment_route(N, d, M, cap=cap)
    brute = max((t * M * max(0, -(-N // _ExactCap._value(d, M, t * M)) - 1), -t * M)
                for t in SEGMENT_MULTIPLES)
    assert (value, L) == (brute[0], -brute[1])
    assert cap.calls == 1


# ---- proofs/mask_bounds ------------------------------------------------------------------------

def test_kept_pairs_of_every_rule() -> None:
    """Rule: the kept (i, j) of each mask rule at n = 3 — full: all 9, causal: j ≤ i,
    window:1: the diagonal, anti: i + j = n − 1, off: every pair but the diagonal."""
    everything = {(i, j) for i in range(3) for j in range(3)}
    assert mb._kept(3, "full") == everything
    assert mb._kept(3, "causal") == {(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2)}
    assert mb._kept(3, "window:1") == {(0, 0), (1, 1), (2, 2)}
    assert mb._kept(3, "anti") == {(0, 2), (1, 1), (2, 0)}
    assert mb._kept(3, "off") == everything - {(0, 0), (1, 1), (2, 2)}


def test_the_class_bound_twin_claims_the_formula_at_one_input_word() -> None:
    """Rule: the twin claims ⌊min(Z_in²/M, Z_in·√(Z_QK/M))⌋ wherever Z_in, Z_QK > 0 — also at
    Z_in = 1 (n = d = 1: one word of Q, Z_QK = 1, M = 1: the claim is 1)."""
    mask = Mask.causal()
    assert (mask.z_in(1, 1), mask.z_qk(1)) == (1, 1)
    got = mb._twin_class_bound("forward", mask, 1, 1, 1, "forward")
    assert [g.value for g in got] == [1]


# ---- bounds/heads ------------------------------------------------------------------------------

def test_joint_interval_bound_uses_the_routes_psi(monkeypatch) -> None:
    """Rule: the interval bound bounds the joint route over [a, b] with the same Ψ the route
    uses (joint_cap(cls, n, d, group=H/G)): n_full = n, k_grad = g·n − 1 for the gradients,
    n − 1 for the forward (its outputs do not sum over the heads of a group)."""
    seen: list[tuple] = []
    real = heads_module.joint_interval_cap

    def spy(d, a, b, t, n_full, k_grad, kappa=(1, 1)):
        seen.append((n_full, k_grad, kappa))
        return real(d, a, b, t, n_full, k_grad, kappa)

    monkeypatch.setattr(heads_module, "joint_interval_cap", spy)
    for pass_, cls in (("forward", "forward"), ("backward", "recompute"),
                       ("backward", "given-scores")):
        seen.clear()
        joint_interval_lower_bound(pass_, 16, 4, 64, 70, cls, heads=4, kv_heads=1)
        assert set(seen) == {joint_cap(cls, 16, 4, group=4)._args()}, cls
    assert joint_cap("forward", 16, 4, group=4)._args()[1] == 15


def test_the_witnessed_rest_route_is_named() -> None:
    """Rule: the witnessed route + rest of the given-scores class is named after its segment
    route ("<witnessed route> + compulsory rest"), with one head the names and values of
    bounds/attention.py's witnessed routes."""
    from attnio.bounds.attention import witnessed_routes

    stacked = [r for r in stacked_lower_bound_routes("backward", 64, 8, 64, "given-scores")
               if r.claim_id == "gap.witnessed_route"]
    single = witnessed_routes(64, 8, 64)
    assert [(r.value, r.route) for r in stacked] == [(r.value, r.route) for r in single]
    assert stacked[1].route == f"{stacked[0].route} + compulsory rest"


# ---- proofs/stacked_heads, proofs/joint_routes: what a Proved verdict says ---------------------

def test_segment_check_says_how_many_instances_it_checked(monkeypatch) -> None:
    """Rule: the Proved detail of the stacked segment check states the number of brute-force
    shapes and routes it checked (the evidence's instances)."""
    monkeypatch.setattr(sh, "_BRUTE_SHAPES", [(1, 1, 1, 1), (1, 2, 1, 1)])
    monkeypatch.setattr(sh, "_ROUTE_GRID", [])
    v = sh._segment_check(CheckContext())
    assert v == Proved("24 brute-force segment shapes and stacked routes, exact integers",
                       evidence=v.evidence)
    assert v.evidence.instances == 24


def test_joint_cap_check_counts_the_brute_force_shapes() -> None:
    """Rule: the cap check's evidence counts every brute-force segment shape compared, and its
    Proved detail says what was checked (Ψ, the function of notes/gap.md)."""
    from attnio.proofs.attention_routes import segment_cap_excess
    from attnio.proofs.joint_routes import brute_joint_max, brute_joint_table

    brute = [("forward", 1, 2)]
    v = jr._joint_cap_check(CheckContext(), classes=[], brute=brute)
    table = brute_joint_table("forward", 1, 2)
    shapes = sum(segment_cap_excess(table, 2, M, joint_cap("forward", 1, 2),
                                    segment_max=brute_joint_max)[0] for M in (1, 2, 3))
    assert shapes > 0 and v.evidence.instances == shapes
    assert v.detail == (f"{shapes} certificates, integer points and brute-force segment shapes: "
                        "the cap is at least Ψ everywhere and at least every shape's designated "
                        "leaves")


def test_joint_route_check_says_what_it_recomputed(monkeypatch) -> None:
    """Rule: the joint route check's Proved detail states the routes recomputed, and a route
    that is not max_L L(⌈N/cap⌉ − 1) (+ rest) is Refuted saying so."""
    monkeypatch.setattr(jr, "_ROUTE_GRID", [("forward", 64, 8, 64, 1, 1, 1)])
    v = jr._joint_route_check(CheckContext())
    assert v.detail == ("1 joint routes (single head and stacked) equal max_L L(⌈N/cap⌉ − 1) "
                        "(+ rest), exact integers") and v.evidence.instances == 1
    wrong = jr._joint_route_check(CheckContext(),
                                  products=lambda cls: JOINT_CLASSES[cls][0] + 1)
    assert isinstance(wrong, Refuted)
    assert wrong.detail == "a joint route is not max_L L(⌈N/cap⌉ − 1) (+ rest)"


# ---- bounds/joint: the search budget -----------------------------------------------------------

def test_joint_search_stops_once_the_budget_is_spent(monkeypatch) -> None:
    """Rule: the best-first search splits while fewer than JOINT_EVALS cell bounds were
    evaluated (256 initial cells, 4 per split): it stops at the first count ≥ the budget."""
    for budget in range(297, 306):
        monkeypatch.setattr(joint_module, "JOINT_EVALS", budget)
        s = joint_module.joint_search(64, 1024, 2048, 4096, 4095)
        evals = len(s.initial) + 4 * len(s.splits)
        assert len(s.initial) == 256 and budget <= evals < budget + 4, (budget, evals)


# ---- bounds/gap_worst ---------------------------------------------------------------------------

def test_interval_bound_takes_each_class_its_own_compulsory_io() -> None:
    """Rule: at a = b = M, interval_lower_bound is min over the classes of max(compulsory,
    segment, segment + rest, joint) of that class — the given-scores class's compulsory I/O
    includes the n² given scores (n = 4, d = 8, M = 4: it binds)."""
    gap_worst._rest_of.cache_clear()
    gap_worst._joint_interval_cached.cache_clear()
    inst = Instance.build(4, 8, pass_="backward", M=[8])
    per = []
    for cls in CLASSES["backward"]:
        r = stacked_lower_bound_routes("backward", 4, 8, 4, cls)
        per.append(max(r[0].value, r[1].value, r[2].value,
                       joint_interval_lower_bound("backward", 4, 8, 4, 4, cls)))
    low = gap_worst.interval_lower_bound(inst, 4, 4)
    assert low == min(per) == 272 and low <= instance_lower_bound(inst, 4).value


def test_worst_ratio_on_a_single_memory_size() -> None:
    """Rule: [lo, hi] with lo = hi is a valid range (one M); the worst ratio is that M's."""
    inst = Instance.build(8, 2, pass_="forward", M=[8])
    w = gap_worst.worst_ratio(inst, 40, 40)
    assert (w.lo, w.hi, w.M) == (40, 40, 40)
    assert Fraction(w.best_io, w.lower_bound) == Fraction(
        w.best_io, instance_lower_bound(inst, 40).value) and w.ratio > 0
    with pytest.raises(InvalidInputError, match="must be non-empty"):
        gap_worst.worst_ratio(inst, 41, 40)

