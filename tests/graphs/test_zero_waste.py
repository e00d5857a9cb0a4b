"""Tests of attnio.graphs.zero_waste: schedules of cost exactly the compulsory I/O.

The whole file is in the ``trust`` tier: :func:`zero_waste_exists` answering False is a proof
(Q ≥ L0 + 1) that the anytime solver builds on, so every budget is tested to end in None
("nothing claimed"), never in False.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import attnio.graphs.zero_waste as zero_waste_module
from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.graphs.anytime import compulsory_io
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.peer_dags import load_peer_dag
from attnio.graphs.zero_waste import zero_waste_exists, zero_waste_schedule

pytestmark = pytest.mark.trust


@pytest.mark.parametrize("name, M", [("spmv_N6_nzP0d4", 8), ("k-means", 6),
                                     ("k-NN_3_gyro_m", 6)])
def test_peer_dags_at_compulsory_io(name: str, M: int) -> None:
    G = load_peer_dag(name)
    moves = zero_waste_schedule(G, M, time_limit=10)
    assert moves is not None
    for recompute in (True, False):
        assert replay(G, moves, M, recompute=recompute).io == compulsory_io(G)


def _sinks_and_two_inner(G: nx.DiGraph) -> list[str]:
    """Outputs that are not only sinks: the sinks, then the second- and third-last vertices
    that have a predecessor (vertices named by ints)."""
    nodes = sorted(G, key=int)
    return list(dict.fromkeys([v for v in nodes if G.out_degree(v) == 0]
                              + [v for v in nodes[-3:-1] if G.in_degree(v) > 0]))


@pytest.mark.parametrize("seed", range(10))
def test_found_exactly_when_the_one_shot_optimum_is_compulsory(seed: int,
                                                               random_forward_dag) -> None:
    # every one-shot schedule of cost L0 is zero-waste and compute-once, and the search is
    # exhaustive within its budget: found <=> one-shot optimum == L0 (outputs not only sinks)
    G = random_forward_dag(9, 0.35, seed)
    if G.number_of_edges() == 0:
        return
    outputs = _sinks_and_two_inner(G)
    low = min_cache_size(G, outputs)
    for M in (low, low + 1, low + 2):
        moves = zero_waste_schedule(G, M, outputs=outputs, time_limit=None)
        optimum = solve_optimal(G, M, recompute=False, outputs=outputs, time_limit=30)
        assert optimum.verdict == "optimal"
        lower = compulsory_io(G, outputs)
        assert (moves is not None) == (optimum.io == lower)
        if moves is not None:
            assert replay(G, moves, M, outputs=outputs).io == lower


def test_planted_false_twin_is_caught_by_the_validator() -> None:
    # the twin drops the read of an input it still uses: the validator must reject it
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    moves = zero_waste_schedule(G, 3)
    assert moves is not None and replay(G, moves, 3).io == 3
    twin = [m for m in moves if m != ("read", "b")]
    with pytest.raises(IllegalMoveError):
        replay(G, twin, 3)
    # and one pebble less: no schedule found (M = 3 is the least for 'c')
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 2)


def test_gives_up_within_budget_and_bad_input() -> None:
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    assert zero_waste_schedule(G, 5, max_nodes=1) is None
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 5, time_limit=float("nan"))
    with pytest.raises(InvalidInputError):
        zero_waste_schedule(G, 5, max_nodes=0)


# ---- zero_waste_exists: the exhaustive search with recomputation (a lower bound) ---------


def _random_cases(count: int):
    for seed in range(count):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(6, 10))
        G = nx.gnp_random_graph(n, 0.35, seed=int(rng.integers(1 << 30)), directed=True)
        G = nx.DiGraph((str(u), str(v)) for u, v in G.edges if u < v)
        if G.number_of_edges() == 0:
            continue
        outputs = _sinks_and_two_inner(G)
        low = min_cache_size(G, outputs)
        for M in (low, low + 1, low + 2):
            yield seed, G, outputs, M


def test_exists_agrees_with_the_exact_optimum_and_the_twin_is_refuted() -> None:
    # zero_waste_exists(G, M) is False exactly when Q(G, M) > L0 (recomputation allowed);
    # the planted twin — "no compute-once zero-waste schedule, so Q > L0" — must be refuted
    # by the exact optimum on some instance (recomputation saves a pebble there)
    agreed = twin_refuted = proofs = 0
    for _seed, G, outputs, M in _random_cases(60):
        exists = zero_waste_exists(G, M, outputs=outputs, time_limit=None)
        optimum = solve_optimal(G, M, outputs=outputs, time_limit=30)
        assert optimum.verdict == "optimal"
        lower = compulsory_io(G, outputs)
        assert exists == (optimum.io == lower)
        agreed += 1
        proofs += exists is False
        twin_says_none = zero_waste_schedule(G, M, outputs=outputs, time_limit=None) is None
        twin_refuted += twin_says_none and optimum.io == lower
    assert agreed >= 150 and proofs >= 4
    assert twin_refuted >= 1


def test_exists_gives_up_within_budget() -> None:
    G = load_peer_dag("spmv_N7_nzP0d35")
    assert zero_waste_exists(G, 8, max_states=5) is None
    with pytest.raises(InvalidInputError):
        zero_waste_exists(G, 8, time_limit=-1)


def test_anytime_closes_the_bracket_with_the_zero_waste_proof() -> None:
    # L0 = 4 (one input read, outputs 3, 4, 5 written), spill windows give only 4, the
    # optimum is 5: the exhaustive search proves 5 and meets the heuristic's schedule
    from attnio.graphs.anytime import AnytimeProgress, anytime_pebble, certified_window_bound
    G = nx.DiGraph([("0", "1"), ("0", "2"), ("1", "3"), ("1", "4"), ("2", "5"), ("3", "4"),
                    ("3", "5")])
    outputs = ["4", "5", "3"]
    assert compulsory_io(G, outputs) == 4
    assert certified_window_bound(G, 3, outputs=outputs)[0] == 4
    assert solve_optimal(G, 3, outputs=outputs).io == 5
    progress = AnytimeProgress()
    r = anytime_pebble(G, 3, outputs=outputs, time_limit=10, progress=progress)
    assert r.verdict == "optimal" and r.io == 5 and r.states_explored == 0
    assert progress.lower_bound_source == "zero-waste search exhausted"
    assert replay(G, r.schedule, 3, outputs=outputs).io == 5


# ---- the trust tier: hand-built DAGs with pinned answers, and budgets that prove nothing ----

# a, b -> c -> d, a -> d: L0 = 3 (read a, b; write d) = Q(G, 3); 'c' alone needs M = 3
DIAMOND = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
# the module docstring's DAG: L0 = 4; Q = 6 at M = 3 (no zero-waste schedule), 4 at M = 4
CROSS = nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")])
# issue 20's DAG: L0 = 6 (inputs 0, 2; outputs 4, 6, 7, 5); Q(G, 4) = 6 only by recomputing
# (the one-shot optimum is 7), so the compute-once search finds nothing and
# zero_waste_exists must say True
ISSUE = nx.DiGraph([(str(u), str(v)) for u, v in [(0, 1), (0, 3), (0, 5), (0, 7), (1, 3),
                                                  (1, 5), (1, 7), (2, 4), (2, 5), (3, 4),
                                                  (3, 6), (5, 7)]])
ISSUE_OUTPUTS = ["4", "6", "7", "5"]
# two reads-and-writes from input 1 and one from input 3 (M = 2): Q = L0 = 5
TWIN_FANS = nx.DiGraph([("1", "2"), ("1", "4"), ("3", "5")])
TWIN_FANS_OUTPUTS = ["2", "4", "5"]
# input 2 feeds output 3 and, with input 0, output 5; input 1 feeds output 4 (M = 3): Q = L0 = 6
SPLIT = nx.DiGraph([("0", "5"), ("1", "4"), ("2", "3"), ("2", "5")])
SPLIT_OUTPUTS = ["3", "4", "5"]


def _chain(computes: int) -> nx.DiGraph:
    """v00 -> v01 -> ...: one input and ``computes`` vertices to compute, in one order."""
    return nx.DiGraph([(f"v{i:02d}", f"v{i + 1:02d}") for i in range(computes)])


def test_pinned_instances_agree_with_the_exact_optimum() -> None:
    # the pins below rest on these optima (two independent searches agree)
    for G, M, outputs, optimum, one_shot in [(DIAMOND, 3, None, 3, 3), (CROSS, 3, None, 6, 6),
                                             (CROSS, 4, None, 4, 4),
                                             (ISSUE, 4, ISSUE_OUTPUTS, 6, 7),
                                             (ISSUE, 5, ISSUE_OUTPUTS, 6, 6)]:
        assert solve_optimal(G, M, outputs=outputs).io == optimum
        assert solve_optimal(G, M, outputs=outputs, recompute=False).io == one_shot
    assert (compulsory_io(DIAMOND), compulsory_io(CROSS),
            compulsory_io(ISSUE, ISSUE_OUTPUTS)) == (3, 4, 6)


def test_exists_answers_on_hand_built_dags() -> None:
    assert zero_waste_exists(DIAMOND, 3, time_limit=None) is True
    assert zero_waste_exists(CROSS, 3, time_limit=None) is False      # proves Q >= 5
    assert zero_waste_exists(CROSS, 4, time_limit=None) is True
    # recomputation is what makes L0 reachable here: the compute-once search finds nothing
    assert zero_waste_exists(ISSUE, 4, outputs=ISSUE_OUTPUTS, time_limit=None) is True
    assert zero_waste_schedule(ISSUE, 4, outputs=ISSUE_OUTPUTS, time_limit=None) is None
    assert zero_waste_exists(ISSUE, 5, outputs=ISSUE_OUTPUTS, time_limit=None) is True


def test_exists_with_outputs_that_are_inputs_or_not_sinks() -> None:
    # an output that is an input costs nothing and needs no computation
    assert zero_waste_exists(DIAMOND, 3, outputs=["a"], max_states=1) is True
    assert zero_waste_exists(DIAMOND, 3, outputs=["a", "d"], time_limit=None) is True
    # c as an output too: written once, still zero-waste
    assert zero_waste_exists(DIAMOND, 3, outputs=["c", "d"], time_limit=None) is True
    # CROSS with x and y named as well: L0 = 6, reachable at M = 3 (x, y written on the way)
    assert compulsory_io(CROSS, ["x", "y", "z"]) == 6
    assert solve_optimal(CROSS, 3, outputs=["x", "y", "z"]).io == 7
    assert zero_waste_exists(CROSS, 3, outputs=["x", "y", "z"], time_limit=None) is False
    assert solve_optimal(CROSS, 4, outputs=["y", "x"]).io == 5 == compulsory_io(CROSS, ["y", "x"])
    assert zero_waste_exists(CROSS, 4, outputs=["y", "x"], time_limit=None) is True


def test_an_exhausted_state_budget_claims_nothing() -> None:
    # issue 20: returning False when the budget runs out "proves" Q >= 4 where Q = L0 = 3
    assert zero_waste_exists(DIAMOND, 3, max_states=1, time_limit=None) is None
    assert zero_waste_exists(ISSUE, 4, outputs=ISSUE_OUTPUTS, max_states=1,
                             time_limit=None) is None
    assert zero_waste_exists(CROSS, 4, max_states=1, time_limit=None) is None


@pytest.mark.parametrize("G, M, outputs, states, answer", [
    (DIAMOND, 3, None, 2, True), (CROSS, 3, None, 5, False), (CROSS, 4, None, 5, True),
    (ISSUE, 4, ISSUE_OUTPUTS, 10, True), (ISSUE, 5, ISSUE_OUTPUTS, 6, True),
    (TWIN_FANS, 2, TWIN_FANS_OUTPUTS, 3, True), (SPLIT, 3, SPLIT_OUTPUTS, 3, True)])
def test_max_states_counts_expanded_states(G, M, outputs, states, answer) -> None:
    # exactly `states` expansions settle the instance; one fewer is an exhausted budget
    assert zero_waste_exists(G, M, outputs=outputs, max_states=states,
                             time_limit=None) is answer
    assert zero_waste_exists(G, M, outputs=outputs, max_states=states - 1,
                             time_limit=None) is None


def test_time_limit_counts_clock_reads_and_claims_nothing(fake_clock) -> None:
    # each expansion reads the clock once (a fake one: one second per read); CROSS at
    # M = 3 is refuted in 5 expansions, so 5 s suffice and 4.5 s end in None, never False
    fake_clock(zero_waste_module)
    assert zero_waste_exists(CROSS, 3, time_limit=5) is False
    fake_clock(zero_waste_module)
    assert zero_waste_exists(CROSS, 3, time_limit=4.5) is None
    fake_clock(zero_waste_module)
    assert zero_waste_exists(CROSS, 3, time_limit=0) is None
    fake_clock(zero_waste_module)
    assert zero_waste_exists(CROSS, 3, time_limit=None) is False


def test_schedule_pinned_on_hand_built_dags() -> None:
    assert zero_waste_schedule(DIAMOND, 3) == [
        ("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "b"), ("compute", "d"),
        ("write", "d"), ("delete", "c"), ("delete", "a"), ("delete", "d")]
    # a named output that is not a sink is written right after its computation
    assert zero_waste_schedule(DIAMOND, 3, outputs=["d", "c"]) == [
        ("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c"), ("delete", "b"),
        ("compute", "d"), ("write", "d"), ("delete", "c"), ("delete", "a"), ("delete", "d")]
    # only the ancestors of the outputs are computed; an output that is an input is free
    assert zero_waste_schedule(DIAMOND, 3, outputs=["c"]) == [
        ("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c"), ("delete", "a"),
        ("delete", "b"), ("delete", "c")]
    assert zero_waste_schedule(DIAMOND, 3, outputs=["a"]) == []
    assert zero_waste_schedule(CROSS, 3) is None
    assert zero_waste_schedule(CROSS, 4) == [
        ("read", "a"), ("read", "b"), ("compute", "x"), ("delete", "b"), ("read", "c"),
        ("compute", "y"), ("delete", "a"), ("delete", "c"), ("compute", "z"), ("write", "z"),
        ("delete", "x"), ("delete", "y"), ("delete", "z")]
    # the most freeing vertex first: 6 is written and dropped before 2 is read
    moves = zero_waste_schedule(ISSUE, 5, outputs=ISSUE_OUTPUTS)
    assert moves == [
        ("read", "0"), ("compute", "1"), ("compute", "3"), ("compute", "6"), ("write", "6"),
        ("delete", "6"), ("read", "2"), ("compute", "4"), ("write", "4"), ("delete", "3"),
        ("delete", "4"), ("compute", "5"), ("write", "5"), ("delete", "2"), ("compute", "7"),
        ("write", "7"), ("delete", "0"), ("delete", "1"), ("delete", "5"), ("delete", "7")]
    for recompute in (True, False):
        assert replay(ISSUE, moves, 5, outputs=ISSUE_OUTPUTS, recompute=recompute).io == 6
    # nothing is red at the start: input 3's fan (one output) frees its pebbles first
    assert zero_waste_schedule(TWIN_FANS, 2, outputs=TWIN_FANS_OUTPUTS) == [
        ("read", "3"), ("compute", "5"), ("write", "5"), ("delete", "3"), ("delete", "5"),
        ("read", "1"), ("compute", "2"), ("write", "2"), ("delete", "2"), ("compute", "4"),
        ("write", "4"), ("delete", "1"), ("delete", "4")]


@pytest.mark.parametrize("G, M, outputs, nodes", [
    (DIAMOND, 3, None, 2), (CROSS, 4, None, 3), (ISSUE, 5, ISSUE_OUTPUTS, 6),
    (TWIN_FANS, 2, TWIN_FANS_OUTPUTS, 3)])
def test_max_nodes_counts_expansions(G, M, outputs, nodes) -> None:
    found = zero_waste_schedule(G, M, outputs=outputs, max_nodes=nodes, time_limit=None)
    assert found is not None
    assert replay(G, found, M, outputs=outputs).io == compulsory_io(G, outputs)
    assert zero_waste_schedule(G, M, outputs=outputs, max_nodes=nodes - 1,
                               time_limit=None) is None


def test_schedule_reads_the_clock_every_64_expansions(fake_clock) -> None:
    # a chain of k computes takes k expansions; the clock (one second per read) is read
    # when the expansion count is a multiple of 64
    fake_clock(zero_waste_module)
    assert zero_waste_schedule(_chain(63), 2, time_limit=0) is not None   # never read
    fake_clock(zero_waste_module)
    assert zero_waste_schedule(_chain(64), 2, time_limit=0) is None       # read at 64: late
    fake_clock(zero_waste_module)
    assert zero_waste_schedule(_chain(64), 2, time_limit=1) is not None   # read at 64: 1 <= 1
    fake_clock(zero_waste_module)
    assert zero_waste_schedule(_chain(64), 2, time_limit=None) is not None


def test_bad_arguments_are_named() -> None:
    cases = [(dict(max_nodes=0), "max_nodes=0 must be a positive integer"),
             (dict(max_nodes=1.5), "max_nodes=1.5 must be a positive integer"),
             (dict(time_limit=-1), "time_limit=-1 must be a finite number >= 0 (or None)")]
    for kwargs, message in cases:
        with pytest.raises(InvalidInputError) as info:
            zero_waste_schedule(DIAMOND, 3, **kwargs)
        assert str(info.value) == message
    cases = [(dict(max_states=0), "max_states=0 must be a positive integer"),
             (dict(time_limit=float("inf")),
              "time_limit=inf must be a finite number >= 0 (or None)")]
    for kwargs, message in cases:
        with pytest.raises(InvalidInputError) as info:
            zero_waste_exists(DIAMOND, 3, **kwargs)
        assert str(info.value) == message
    for search in (zero_waste_schedule, zero_waste_exists):
        with pytest.raises(InvalidInputError) as info:
            search(DIAMOND, 2)
        assert str(info.value) == ("M=2 is below the 3 red pebbles vertex 'c' needs "
                                   "(in-degree 2 + 1)")
        with pytest.raises(InvalidInputError, match="M=0 must be a positive integer"):
            search(DIAMOND, 0)
        with pytest.raises(InvalidInputError, match="networkx.DiGraph"):
            search(nx.Graph(DIAMOND), 3)


def test_the_default_time_limit_is_five_seconds(fake_clock) -> None:
    # ISSUE at M = 5 takes 6 expansions (6 clock reads after the start): 5 s are too few
    fake_clock(zero_waste_module)
    assert zero_waste_exists(ISSUE, 5, outputs=ISSUE_OUTPUTS) is None
    fake_clock(zero_waste_module)
    assert zero_waste_exists(ISSUE, 5, outputs=ISSUE_OUTPUTS, time_limit=6) is True
    # the schedule search reads the clock once in 64 expansions: 5.5 s have passed by then
    fake_clock(zero_waste_module, step=5.5)
    assert zero_waste_schedule(_chain(64), 2) is None
    fake_clock(zero_waste_module, step=5.5)
    assert zero_waste_schedule(_chain(64), 2, time_limit=6) is not None


def test_a_limit_is_passed_only_when_the_clock_is_beyond_it(fake_clock) -> None:
    # a clock that never moves sits exactly at a zero limit: not beyond it, so no search stops
    # (60 outputs: the 1 024th successor, where the clock is read again, comes at state 21)
    wide = nx.DiGraph([(f"x{i:02d}", f"y{i:02d}") for i in range(60)])
    fake_clock(zero_waste_module, step=0)
    assert zero_waste_exists(wide, 2, time_limit=0) is True
    fake_clock(zero_waste_module, step=0)
    assert zero_waste_schedule(_chain(64), 2, time_limit=0) is not None


def test_the_replay_guard_names_both_costs(monkeypatch) -> None:
    # a schedule is returned only if the independent validator replays it to exactly L0
    real = zero_waste_module.replay

    def off_by_one(*args, **kwargs):
        r = real(*args, **kwargs)
        return type(r)(r.reads + 1, r.writes, r.computes, r.peak_red)

    monkeypatch.setattr(zero_waste_module, "replay", off_by_one)
    with pytest.raises(RuntimeError) as info:
        zero_waste_schedule(DIAMOND, 3)
    assert str(info.value) == "zero-waste bug: schedule replays to 4, not 3"
