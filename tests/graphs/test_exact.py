"""Tests of attnio.graphs.exact: hand-worked optima, certificates, monotonicity, agreement
with the plain baseline, and the Undecided discipline."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.exceptions import InvalidInputError
from attnio.graphs import exact as exact_module
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.exact_state import Symmetry, all_submasks, submasks_of_size
from attnio.graphs.game import replay
from attnio.graphs.indexed_dag import IndexedDAG
from attnio.graphs.schedules import algorithm_costs, algorithm_schedules

BINARY = nx.DiGraph([("a", "c"), ("b", "c")])
CHAIN = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "d")])
DIAMOND = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])

# Hand-worked optima. Every row: (graph, M, Q(G, M)); the derivation is in the comment.
# Lower bounds: each input must be read at least once (inputs start blue only) and each output
# written at least once, so Q >= |inputs| + |outputs| whenever every input is needed.
HAND_WORKED = [
    # c = a ∘ b: read a, read b, compute c, write c = 3 = |inputs| + |outputs|.
    pytest.param(BINARY, 3, 3, id="binary-op"),
    # chain a → b → c → d with 2 pebbles: read a, compute b, delete a, compute c, delete b,
    # compute d, write d = 2 = 1 input + 1 output.
    pytest.param(CHAIN, 2, 2, id="chain"),
    # diamond a → {b, c} → d with 3 pebbles: read a, compute b, compute c, delete a,
    # compute d, write d = 2 = 1 input + 1 output.
    pytest.param(DIAMOND, 3, 2, id="diamond"),
    # 1×1×2 matmul C[0,j] = A[0,0]·B[0,j]: 3 reads + 2 writes, the trivial bound, achieved by
    # read A, read B0, compute C0, write C0, delete B0, C0, read B1, compute C1, write C1.
    pytest.param(matmul_dag(1, 1, 2), 3, 5, id="matmul-1x1x2"),
    # 1×2×1 matmul (dot product of length 2), M = 3: a product needs its 2 inputs red, so the
    # product computed first cannot stay red while the second is computed (2 + 1 + 1 > 3);
    # it must be red again for the sum, and recomputing it beside the second product is as
    # impossible, so it is written and read back: 4 reads + 1 write + 2 = 7.
    pytest.param(matmul_dag(1, 2, 1), 3, 7, id="matmul-1x2x1-M3"),
    # Same DAG, M = 4: P0 = A0·B0 (3 red), drop A0, B0, read A1, B1, P1 (4 red), drop, sum:
    # 4 reads + 1 write = 5 (the trivial bound).
    pytest.param(matmul_dag(1, 2, 1), 4, 5, id="matmul-1x2x1-M4"),
]


@pytest.mark.parametrize("G,M,expected", HAND_WORKED)
@pytest.mark.parametrize("recompute", [True, False])
def test_hand_worked_optima(G: nx.DiGraph, M: int, expected: int, recompute: bool) -> None:
    result = solve_optimal(G, M, recompute=recompute)
    assert result.verdict == "optimal"
    assert result.io == expected and type(result.io) is int
    assert replay(G, result.schedule, M, recompute=recompute).io == expected


@pytest.mark.parametrize("G,M", [(BINARY, 2), (CHAIN, 1), (DIAMOND, 2), (matmul_dag(1, 3, 1, "fma"), 3)])
def test_infeasible_below_max_in_degree_plus_one(G: nx.DiGraph, M: int) -> None:
    result = solve_optimal(G, M)
    assert result.verdict == "infeasible"
    assert f"M={M}" in result.reason
    assert M == min_cache_size(G) - 1


# matmul 2×2×2 (8 inputs, 4 outputs): optima computed by this solver (the schedules replay, so
# they are upper bounds). Independent lower bounds: the trivial 8 + 4 = 12 settles M >= 7; the
# plain baseline (benchmark, notes/pebbling.md) proves 17 at M = 4 (5.0 M states, ~55 s) and
# 14 at M = 5 (4.3 M states, ~62 s), and its frontier bound reaches 13 at M = 6.
MATMUL_222 = {4: 17, 5: 14, 6: 13, 7: 12, 8: 12}


@pytest.mark.parametrize("M,expected", sorted(MATMUL_222.items()))
def test_matmul_2x2x2(M: int, expected: int) -> None:
    G = matmul_dag(2, 2, 2)
    result = solve_optimal(G, M)
    assert result.io == expected
    assert replay(G, result.schedule, M).io == expected
    assert all(cost >= expected for cost in algorithm_costs(G, M).values())


def test_matmul_2x2x2_smallest_cache() -> None:
    assert solve_optimal(matmul_dag(2, 2, 2), 3, time_limit=None).io == 25


def test_matmul_3x2x2_smallest_cache() -> None:
    G = matmul_dag(3, 2, 2)
    result = solve_optimal(G, 3, time_limit=None, max_states=None)
    assert result.verdict == "optimal" and result.io == 37
    assert replay(G, result.schedule, 3).io == 37


@pytest.mark.parametrize("M", [16, 13])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_attention_backward_reaches_the_trivial_bound(M: int) -> None:
    # n = 2, d = 1 (58 vertices): 8 input scalars read once and 6 gradient scalars written once
    # suffice down to M = 12 (the algorithm schedules need 15 at M = 16, 17 at M = 13)
    G = attention_backward_dag(2, 1)
    trivial = len(G.graph["inputs"]) + len(G.graph["outputs"])
    result = solve_optimal(G, M, time_limit=None, max_states=None)
    assert result.verdict == "optimal" and result.io == trivial == 14
    assert replay(G, result.schedule, M).io == 14


@pytest.mark.slow
def test_attention_backward_trivial_bound_at_twelve() -> None:
    # the least M with Q = 14; at M = 11 the solver proves Q >= 15 in minutes (benchmark)
    G = attention_backward_dag(2, 1)
    result = solve_optimal(G, 12, time_limit=None, max_states=None)
    assert result.verdict == "optimal" and result.io == 14
    assert replay(G, result.schedule, 12).io == 14


@pytest.mark.slow
@pytest.mark.parametrize("M, expected", [(3, 24), (4, 15), (5, 11), (6, 10), (7, 9), (8, 8)])
def test_attention_forward_every_cache_size(M: int, expected: int) -> None:
    G = attention_forward_dag(2, 1)
    result = solve_optimal(G, M, time_limit=None, max_states=None)
    assert result.verdict == "optimal" and result.io == expected
    assert replay(G, result.schedule, M).io == expected


def test_subset_enumerators() -> None:
    mask = 0b101101
    for k in range(1, 5):
        subsets = list(submasks_of_size(mask, k))
        assert len(subsets) == math.comb(4, k)
        assert all(s & ~mask == 0 and s.bit_count() == k for s in subsets)
        assert len(set(subsets)) == len(subsets)
    every = list(all_submasks(mask))
    assert every[0] == 0 and len(every) == 16 == len(set(every))
    assert all(s & ~mask == 0 for s in every)
    assert list(all_submasks(0)) == [0]


def _random_instance(seed: int, n: int) -> tuple[nx.DiGraph, int]:
    G = random_dag(n, 0.5, seed=seed)
    return G, min_cache_size(G)


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 7), recompute=st.booleans())
def test_optimum_non_increasing_in_M(seed: int, n: int, recompute: bool) -> None:
    G, lo = _random_instance(seed, n)
    values = [solve_optimal(G, M, recompute=recompute).io for M in range(lo, lo + 4)]
    assert values == sorted(values, reverse=True)


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 7), extra=st.integers(0, 2))
def test_schedules_replay_and_recomputation_never_hurts(seed: int, n: int, extra: int) -> None:
    G, lo = _random_instance(seed, n)
    M = lo + extra
    with_re = solve_optimal(G, M)
    one_shot = solve_optimal(G, M, recompute=False)
    assert replay(G, with_re.schedule, M).io == with_re.io
    assert replay(G, one_shot.schedule, M, recompute=False).io == one_shot.io
    assert with_re.io <= one_shot.io
    # algorithm schedules are upper bounds
    assert all(cost >= one_shot.io for cost in algorithm_costs(G, M).values())


def test_agrees_with_plain_baseline_on_random_dags() -> None:
    checked = 0
    for seed in range(60):
        G, lo = _random_instance(seed, 4 + seed % 4)
        for M in (lo, lo + 1):
            for recompute in (True, False):
                fast = solve_optimal(G, M, recompute=recompute)
                plain = plain_optimal(G, M, recompute=recompute)
                assert fast.io == plain.io, (seed, M, recompute)
                checked += 1
    assert checked == 240


def test_read_that_evicts_a_predecessor_is_explored() -> None:
    # Regression (found by the random agreement sweep): v2, v3 both from v0, v1; v4 = v2 ∘ v3.
    # With M = 3 the optimum reads v2 back while evicting its own predecessor v0, a move a
    # compute of v2 (which must keep v0, v1) cannot make.
    G = nx.DiGraph([("v0", "v2"), ("v0", "v3"), ("v1", "v2"), ("v1", "v3"),
                    ("v2", "v4"), ("v3", "v4")])
    assert solve_optimal(G, 3).io == plain_optimal(G, 3).io == 5


def test_symmetry_reduction_changes_states_not_answers() -> None:
    G = matmul_dag(2, 2, 2)
    with_sym = solve_optimal(G, 5)
    without = solve_optimal(G, 5, symmetry=False)
    assert with_sym.io == without.io == 14
    assert with_sym.states_explored < without.states_explored


def test_budget_exhaustion_is_undecided_with_valid_bounds() -> None:
    G = attention_forward_dag(2, 1)
    result = solve_optimal(G, 4, max_states=500, upper_bound=16)
    assert result.verdict == "undecided"
    assert result.lower <= 15 <= result.upper  # Q(G, 4) = 15 (benchmark)
    assert "budget" in result.reason


def test_time_limit_is_undecided() -> None:
    result = solve_optimal(attention_forward_dag(2, 1), 3, time_limit=0.0)
    assert result.verdict == "undecided"
    assert result.lower >= 8  # at least |inputs| + |outputs|


def test_unachievable_upper_bound_gives_undecided_not_a_wrong_answer() -> None:
    # false twin: a lying bound (the optimum is 7) must not produce an optimum <= 6
    result = solve_optimal(matmul_dag(1, 2, 1), 3, upper_bound=6)
    assert result.verdict == "undecided"
    assert result.lower <= 7 and result.upper is None  # the lying bound is not reported


def test_incumbent_is_replayed_and_returned_when_optimal() -> None:
    G = matmul_dag(2, 2, 2)
    schedules = algorithm_schedules(G, 8)
    best = min(schedules.values(), key=lambda moves: replay(G, moves, 8).io)
    result = solve_optimal(G, 8, incumbent=best)
    assert result.io == 12


def test_keyboard_interrupt_ends_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C is not swallowed (a range of cache sizes must stop at once, exit 130)
    calls = {"n": 0}
    original = exact_module.PebbleSearch.heuristic

    def interrupting(self, R, B, C):
        calls["n"] += 1
        if calls["n"] > 20:
            raise KeyboardInterrupt
        return original(self, R, B, C)

    monkeypatch.setattr(exact_module.PebbleSearch, "heuristic", interrupting)
    with pytest.raises(KeyboardInterrupt):
        solve_optimal(matmul_dag(2, 2, 2), 3)
    assert calls["n"] == 21


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), -1.0, "5", True])
def test_time_limit_must_be_finite_and_non_negative(limit) -> None:
    with pytest.raises(InvalidInputError, match="time_limit"):
        solve_optimal(BINARY, 3, time_limit=limit)
    with pytest.raises(InvalidInputError, match="time_limit"):
        plain_optimal(BINARY, 3, time_limit=limit)


@pytest.mark.parametrize("spec,M", [("matmul:4x4x4", 8), ("matmul:8x8x8", 16)])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_time_limit_bounds_every_phase(spec: str, M: int) -> None:
    # before: 4×4×4 spent ~20 s in the automorphism search, 8×8×8 > 60 s in expansions with
    # 600 000 successors and lazy heuristic pops, all before the clock was read
    import time

    from attnio.commands.pebble import parse_builtin

    G = parse_builtin(spec)
    # CPU seconds of this process: load from other processes does not inflate them
    started = time.process_time()
    result = solve_optimal(G, M, time_limit=1.0)
    elapsed = time.process_time() - started
    assert result.verdict == "undecided" and "time limit" in result.reason
    assert elapsed <= 1.0 * 1.1 + 1.0, elapsed
    assert result.lower >= len(G.graph["inputs"]) + len(G.graph["outputs"])


def test_outputs_that_are_inputs_cost_nothing() -> None:
    G = nx.DiGraph([("a", "b")])
    assert solve_optimal(G, 1, outputs=["a"]).io == 0


def test_fast_canonical_key_equals_the_plain_minimum_over_automorphisms() -> None:
    # (R7) speed-up: canon() memoises the high (B, C) part and maps only R's bits; it must give
    # exactly min over all automorphisms of the full image, and that automorphism's index.
    import random

    G = matmul_dag(2, 2, 2)
    inst = IndexedDAG(G, None)
    rng = random.Random(7)
    for width in (2, 3):
        sym = Symmetry(G, inst, 128)
        sym.build(width)
        assert len(sym.perms) == 16
        for _ in range(300):
            R = sum(1 << i for i in rng.sample(range(inst.n), rng.randint(0, 5)))
            hi = rng.getrandbits(inst.n * (width - 1))
            key = R | (hi << inst.n)
            plain = min(sym.apply(p, key) for p in range(len(sym.perms)))
            best, p = sym.canon(key)
            assert best == plain and sym.apply(p, key) == plain


def test_a_worse_incumbent_is_beaten_and_the_optimum_replays() -> None:
    # matmul 2×2×2 at M = 4: every algorithm schedule costs > 17 = Q(G, 4), so the search, not
    # the incumbent, must supply the certificate (goal-ready states met during generation)
    G = matmul_dag(2, 2, 2)
    schedules = algorithm_schedules(G, 4)
    worst = max(schedules.values(), key=lambda moves: replay(G, moves, 4).io)
    assert replay(G, worst, 4).io > 17
    result = solve_optimal(G, 4, incumbent=worst)
    assert result.verdict == "optimal" and result.io == 17
    assert replay(G, result.schedule, 4).io == 17


def test_incumbent_search_agrees_with_plain_baseline_on_random_dags() -> None:
    # the pruning f >= best known cost and the goal-at-generation shortcut must not change any
    # optimum: the naive algorithm schedule as incumbent, against the plain baseline
    for seed in range(30):
        G, lo = _random_instance(100 + seed, 5 + seed % 3)
        for recompute in (True, False):
            moves = algorithm_schedules(G, lo)["naive"]
            fast = solve_optimal(G, lo, recompute=recompute, incumbent=moves)
            plain = plain_optimal(G, lo, recompute=recompute)
            assert fast.io == plain.io, (seed, recompute)
            assert replay(G, fast.schedule, lo, recompute=recompute).io == fast.io


def _admissibility_violations(recompute: bool) -> tuple[int, int]:
    """Walk optimal schedules of the independent plain baseline move by move; count the
    prefixes whose (normalised, R4/R5) state has h above the cost still to pay."""
    checked = violations = 0
    for seed in range(40):
        G, lo = _random_instance(300 + seed, 5 + seed % 4)
        for M in (lo, lo + 1):
            plain = plain_optimal(G, M, recompute=recompute)
            inst = IndexedDAG(G, None)
            search = exact_module.PebbleSearch(inst, M, recompute)
            R, B, C = 0, inst.inp, 0
            paid = 0
            for kind, name in [("start", None)] + list(plain.schedule):
                if name is not None and name in inst.index:
                    bit = 1 << inst.index[name]
                    if kind in ("read", "compute"):
                        R |= bit
                        C |= bit if kind == "compute" and not recompute else 0
                    elif kind == "write":
                        B |= bit
                    else:
                        R &= ~bit
                if kind in ("read", "write"):
                    paid += 1
                Rn, Bn, Cn, _ = search.normalise(R, B, C)
                h = search.heuristic(Rn, Bn, Cn)
                violations += not 0 <= h <= plain.io - paid
                checked += 1
    return checked, violations


@pytest.mark.parametrize("recompute", [True, False])
def test_heuristic_never_exceeds_the_remaining_cost_along_optimal_schedules(
        recompute: bool) -> None:
    # Admissibility, checked directly (includes the least M, where space pairs and red
    # spills fire): h <= cost still to pay at every prefix of an optimal schedule.
    checked, violations = _admissibility_violations(recompute)
    assert checked > 500 and violations == 0


def test_admissibility_walk_rejects_an_inflated_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    # false twin: h + 1 whenever something is red must be caught by the walk above
    original = exact_module.PebbleSearch.heuristic

    def inflated(self, R, B, C):
        h = original(self, R, B, C)
        return h + 1 if h > 0 and R else h

    monkeypatch.setattr(exact_module.PebbleSearch, "heuristic", inflated)
    assert _admissibility_violations(True)[1] > 0



def _extra_moves_violations(count: int) -> int:
    """Walk the plain baseline's optimal schedules; at every prefix the extra-moves bound
    mandatory + (g − first input reads − output writes) must not exceed the optimum Q."""
    bad = 0
    for seed in range(count):
        G, lo = _random_instance(seed, 5 + seed % 3)
        for M in (lo, lo + 1):
            plain = plain_optimal(G, M)
            inst = IndexedDAG(G, None)
            search = exact_module.PebbleSearch(inst, M, True)
            _, B0, _, P0 = search.normalise(0, inst.inp, 0)
            needed = {inst.names[i] for i in range(inst.n) if (inst.inp & P0) >> i & 1}
            outs = {inst.names[i] for i in range(inst.n) if (inst.out & ~B0) >> i & 1}
            mandatory = exact_module._mandatory_moves(inst.inp & P0, inst.out & ~B0)
            g, read, written = 0, set(), set()
            for kind, v in plain.schedule:
                if kind == "read":
                    g += 1
                    read.add(v)
                elif kind == "write":
                    g += 1
                    written.add(v)
                extra = g - len(read & needed) - len(written & outs)
                if mandatory + extra > plain.io:
                    bad += 1
                    break
    return bad


def test_extra_moves_bound_never_exceeds_the_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _extra_moves_violations(40) == 0
    # false twin: one mandatory move too many is caught at the end of every optimal schedule
    original = exact_module._mandatory_moves
    monkeypatch.setattr(exact_module, "_mandatory_moves", lambda a, b: original(a, b) + 1)
    assert _extra_moves_violations(40) > 0


# ---- issue 13: bad input at the entry of solve_optimal ------------------------------------

def test_solve_optimal_refuses_bad_input() -> None:
    import networkx as nx

    from attnio.exceptions import InvalidInputError
    from attnio.graphs.exact import MAX_EXACT_VERTICES

    with pytest.raises(InvalidInputError, match="networkx.DiGraph, not Graph"):
        solve_optimal(nx.Graph([("a", "b")]), 3)
    with pytest.raises(InvalidInputError, match="networkx.DiGraph, not list"):
        solve_optimal([("a", "b")], 3)  # type: ignore[arg-type]
    G = nx.DiGraph([("a", "b")])
    G.graph["outputs"] = ["b", "b"]
    with pytest.raises(InvalidInputError, match="listed twice"):
        solve_optimal(G, 3)
    with pytest.raises(InvalidInputError, match="time_limit"):
        solve_optimal(nx.DiGraph([("a", "b")]), 3, time_limit=float("nan"))
    big = nx.path_graph(MAX_EXACT_VERTICES + 1, create_using=nx.DiGraph)
    with pytest.raises(InvalidInputError, match="MAX_EXACT_VERTICES"):
        solve_optimal(big, 3)


# --- named outputs that are not sinks -------------------------------------------------------
# A mutation test found that dropping the ``not t & I.out`` guard of the space-pair extra
# writes in the heuristic (an output's write is already in the first term of h, so counting
# it again overestimates) broke no test: every random DAG of the suite took its sinks as
# outputs, and a sink is never a predecessor, so never in a space pair. These tests name
# outputs that are not sinks.

# 8 vertices, outputs v2 and v4 (v4 feeds v5, v6; v2 feeds v4); found by a seeded search of
# random_dag(8, 0.5, seed=1675) with random named outputs. One-shot, M = 3: Q = 4 = read v0,
# compute v1, v2, write v2 (an output), delete v2, compute v3, delete v0, v1, read v2 back,
# compute v4, write v4 (the plain baseline confirms); the mutated heuristic answers 5.
NON_SINK_OUTPUTS = nx.DiGraph([
    ("v0", "v1"), ("v0", "v2"), ("v0", "v3"), ("v0", "v7"), ("v1", "v2"), ("v1", "v3"),
    ("v1", "v6"), ("v2", "v4"), ("v3", "v4"), ("v3", "v7"), ("v4", "v5"), ("v4", "v6")])
NON_SINK_OUTPUTS.add_node("v5")


def random_outputs(G: nx.DiGraph, seed: int) -> list[str]:
    """Each non-input vertex named an output with probability 0.6 (at least one), so
    outputs are often not sinks; seeded (numpy Generator)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    candidates = [v for v in sorted(G) if G.in_degree(v) > 0]
    chosen = [v for v in candidates if rng.random() < 0.6]
    return chosen or candidates[-1:]


def test_pinned_non_sink_outputs_one_shot() -> None:
    outputs = ["v2", "v4"]
    assert any(NON_SINK_OUTPUTS.out_degree(o) > 0 for o in outputs)
    fast = solve_optimal(NON_SINK_OUTPUTS, 3, recompute=False, outputs=outputs)
    plain = plain_optimal(NON_SINK_OUTPUTS, 3, recompute=False, outputs=outputs)
    assert fast.verdict == "optimal" and fast.io == plain.io == 4
    assert replay(NON_SINK_OUTPUTS, fast.schedule, 3, recompute=False, outputs=outputs).io == 4


def test_pinned_non_sink_outputs_with_recomputation() -> None:
    # random_dag(6, 0.5, seed=915) with outputs v2, v3 (not sinks) and v5; M = 3: Q = 5
    # (the mutated heuristic answers 6)
    G = nx.DiGraph([("v0", "v1"), ("v0", "v2"), ("v0", "v3"), ("v1", "v4"), ("v2", "v3"),
                    ("v2", "v4"), ("v3", "v5"), ("v4", "v5")])
    outputs = ["v2", "v3", "v5"]
    fast = solve_optimal(G, 3, outputs=outputs)
    assert fast.io == plain_optimal(G, 3, outputs=outputs).io == 5
    assert replay(G, fast.schedule, 3, outputs=outputs).io == 5


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_agrees_with_plain_baseline_with_non_sink_outputs() -> None:
    # dense DAGs (p = 0.7) at the least cache sizes, where space pairs fire; with the guard
    # dropped, seeds 16 and 17 disagree (checked by applying the mutation); the agreement
    # sweep (benchmarks/agree_pebble.py) runs thousands more
    checked = non_sink = 0
    for seed in range(40):
        G = random_dag(6 + seed % 3, 0.7, seed=seed)
        outputs = random_outputs(G, seed)
        non_sink += any(G.out_degree(o) > 0 for o in outputs)
        lo = min_cache_size(G, outputs)
        for M in (lo, lo + 1):
            for recompute in (True, False):
                fast = solve_optimal(G, M, recompute=recompute, outputs=outputs)
                plain = plain_optimal(G, M, recompute=recompute, outputs=outputs)
                assert fast.io == plain.io, (seed, M, recompute, outputs)
                assert replay(G, fast.schedule, M, recompute=recompute,
                              outputs=outputs).io == fast.io
                checked += 1
    assert checked == 160 and non_sink >= 25


def test_symmetry_search_stops_at_its_deadline_keeping_the_identity() -> None:
    G = matmul_dag(2, 2, 2)
    inst = IndexedDAG(G, None)
    full = Symmetry(G, inst, 128)
    cut = Symmetry(G, inst, 128, deadline=0.0)  # long past
    assert len(full.perms) == 16 and cut.perms == [list(range(inst.n))]
    late = Symmetry(G, inst, 128)
    late.deadline = 0.0
    late.build(2)  # tables past the deadline: only the identity's are built and kept
    assert len(late.perms) == len(late.bit_images) == len(late.tables) == 1
