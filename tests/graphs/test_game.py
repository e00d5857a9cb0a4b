"""Tests of attnio.graphs.game: the rules, and planted illegal schedules the validator rejects.

The whole file is in the ``trust`` tier (``pytest -m trust``): the validator is the referee of
every schedule attnio reports, so each rule has a planted false twin here, every message is
pinned (it names the value and the rule), and every count is an exact ``int``.
"""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.game import (
    MOVE_KINDS,
    RULES,
    ReplayResult,
    game_inputs,
    game_outputs,
    replay,
    validate,
    validate_cache_size,
    validate_moves,
)

pytestmark = pytest.mark.trust

# a, b -> c -> d (output d); a also feeds d
G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
LEGAL = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "b"),
         ("compute", "d"), ("write", "d")]


def test_legal_schedule_cost() -> None:
    r = replay(G, LEGAL, 3)
    assert (r.reads, r.writes, r.io, r.computes, r.peak_red) == (2, 1, 3, 2, 3)
    assert type(r.io) is int
    assert validate(G, LEGAL, 3, claimed_io=3).proved


# Planted illegal schedules: (moves, M, recompute, index of the first illegal move, rule).
PLANTED = [
    pytest.param(LEGAL, 2, True, 2, "red-limit", id="too-many-reds"),
    pytest.param([("read", "a"), ("compute", "c")], 3, True, 1, "compute-needs-red-parents",
                 id="compute-missing-parent"),
    pytest.param([("read", "a"), ("write", "b")], 3, True, 1, "write-needs-red",
                 id="write-without-red"),
    pytest.param(LEGAL[:-1], 3, True, 5, "outputs-blue", id="output-not-blue"),
    pytest.param([("compute", "a")], 3, True, 0, "compute-input", id="compute-an-input"),
    pytest.param(LEGAL[:3] + [("delete", "c"), ("compute", "c")] + LEGAL[3:], 3, False, 4,
                 "one-shot", id="recompute-in-one-shot"),
    pytest.param([("read", "c")], 3, True, 0, "read-needs-blue", id="read-without-blue"),
    pytest.param([("delete", "a")], 3, True, 0, "delete-needs-red", id="delete-without-red"),
    pytest.param([("read", "zz")], 3, True, 0, "unknown-vertex", id="unknown-vertex"),
    pytest.param([("load", "a")], 3, True, 0, "unknown-kind", id="unknown-kind"),
    pytest.param([("read",)], 3, True, 0, "unknown-kind", id="malformed-move"),
]


@pytest.mark.parametrize("moves,M,recompute,index,rule", PLANTED)
def test_validator_rejects_planted_illegal_schedules(moves, M, recompute, index, rule) -> None:
    with pytest.raises(IllegalMoveError) as info:
        replay(G, moves, M, recompute=recompute)
    assert (info.value.index, info.value.rule) == (index, rule)
    assert rule in RULES
    verdict = validate(G, moves, M, recompute=recompute)
    assert not verdict.proved and verdict.counterexample["rule"] == rule


def test_recomputation_is_legal_by_default() -> None:
    moves = LEGAL[:3] + [("delete", "c"), ("compute", "c")] + LEGAL[3:]
    assert replay(G, moves, 3).io == 3


def test_claimed_cost_mismatch_is_refuted() -> None:
    verdict = validate(G, LEGAL, 3, claimed_io=2)
    assert verdict.verdict == "refuted" and verdict.counterexample["replayed_io"] == 3


def test_named_outputs_override_sinks() -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c")]
    assert replay(G, moves, 3, outputs=["c"]).io == 3
    with pytest.raises(IllegalMoveError, match="outputs-blue"):
        replay(G, moves, 3)


def test_inputs_must_be_exactly_the_sources() -> None:
    H = matmul_dag(1, 1, 1)
    H.graph["inputs"] = H.graph["inputs"] + ["C[0,0]"]  # a designated non-source input
    with pytest.raises(InvalidInputError, match="exactly"):
        replay(H, [], 3)


@pytest.mark.parametrize("M", [0, -1, 2.5, True])
def test_bad_cache_size(M) -> None:
    with pytest.raises(InvalidInputError, match="positive integer"):
        replay(G, LEGAL, M)


def test_cycle_rejected() -> None:
    with pytest.raises(InvalidInputError, match="cycle"):
        replay(nx.DiGraph([("a", "b"), ("b", "a")]), [], 2)


# ---- issue 13: the library refuses bad input with InvalidInputError ----------------------

def test_replay_refuses_bad_arguments() -> None:
    import networkx as nx
    import pytest

    from attnio.exceptions import IllegalMoveError, InvalidInputError
    from attnio.graphs.game import replay

    G = nx.DiGraph([("a", "b")])
    with pytest.raises(InvalidInputError, match="moves=None"):
        replay(G, None, 2)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="moves='read a'"):
        replay(G, "read a", 2)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="networkx.DiGraph"):
        replay(nx.Graph([("a", "b")]), [], 2)
    with pytest.raises(InvalidInputError, match="listed twice"):
        replay(G, [], 2, outputs=["b", "b"])
    with pytest.raises(IllegalMoveError, match="unknown-vertex"):
        replay(G, [("read", ["a"])], 2)  # type: ignore[list-item]


# Repeated moves. Hong–Kung's R1 puts a red pebble on any vertex that carries a blue one and
# R2 a blue pebble on any vertex that carries a red one; neither rule forbids the vertex
# already carrying the pebble placed, so a read of a red vertex and a write of a blue one are
# legal no-ops — and they are moves, each costing 1 (the cost counts moves, not state
# changes). A validator that skipped them would under-count a schedule's cost.
REPEATED = [
    # a read twice while red; b read twice, the second time after a delete (a real re-read)
    pytest.param([("read", "a"), ("read", "a"), ("read", "b"), ("compute", "c"),
                  ("delete", "b"), ("read", "b"), ("delete", "b"), ("compute", "d"),
                  ("write", "d")], (4, 1, 5, 2, 3), id="repeated-reads"),
    # d written three times, c written twice (c stays red: the second write of a blue vertex)
    pytest.param([("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c"),
                  ("write", "c"), ("delete", "b"), ("compute", "d"), ("write", "d"),
                  ("write", "d"), ("write", "d")], (2, 5, 7, 2, 3), id="repeated-writes"),
    # both at once, and a compute of a red vertex (free, counted as a compute)
    pytest.param([("read", "a"), ("read", "b"), ("read", "a"), ("compute", "c"),
                  ("compute", "c"), ("delete", "b"), ("compute", "d"), ("write", "d"),
                  ("read", "a"), ("write", "d")], (4, 2, 6, 3, 3), id="reads-writes-computes"),
]


@pytest.mark.parametrize("moves,expected", REPEATED)
def test_repeated_reads_and_writes_are_counted(moves, expected) -> None:
    reads, writes, io, computes, peak = expected
    r = replay(G, moves, 3)
    assert (r.reads, r.writes, r.io, r.computes, r.peak_red) == (reads, writes, io, computes, peak)
    assert r.reads == sum(kind == "read" for kind, _ in moves)
    assert r.writes == sum(kind == "write" for kind, _ in moves)
    assert validate(G, moves, 3, claimed_io=io).proved
    assert validate(G, moves, 3, claimed_io=io - 1).verdict == "refuted"
    # one-shot: the repeated compute of a red vertex is a second computation, so illegal
    if computes > 2:
        with pytest.raises(IllegalMoveError, match="one-shot"):
            replay(G, moves, 3, recompute=False)
    else:
        assert replay(G, moves, 3, recompute=False).io == io


# ---- the trust tier: exact counts, exact messages, one planted twin per rule --------------

CHAIN = nx.DiGraph([("a", "b")])
CHAIN_MOVES = [("read", "a"), ("compute", "b"), ("write", "b")]   # costs 2: read a, write b


def test_validate_refutes_a_claimed_cost_above_the_replayed_one() -> None:
    # issue 20: a validator that accepted claimed_io=5 for a schedule costing 2
    verdict = validate(CHAIN, CHAIN_MOVES, 2, claimed_io=5)
    assert verdict.verdict == "refuted"
    assert verdict.counterexample == {"claimed_io": 5, "replayed_io": 2}
    assert verdict.detail == "schedule is legal but costs 2, not 5"
    below = validate(CHAIN, CHAIN_MOVES, 2, claimed_io=1)
    assert below.verdict == "refuted" and below.counterexample == {"claimed_io": 1,
                                                                   "replayed_io": 2}


def test_validate_proves_the_exact_claim_and_names_the_counts() -> None:
    exact = validate(CHAIN, CHAIN_MOVES, 2, claimed_io=2)
    assert exact.proved
    assert exact.detail == "legal schedule, io=2 (reads=1, writes=1), peak red=2 <= M=2"
    unclaimed = validate(G, LEGAL, 4)
    assert unclaimed.proved
    assert unclaimed.detail == "legal schedule, io=3 (reads=2, writes=1), peak red=3 <= M=4"


def test_validate_reports_the_illegal_move_as_data() -> None:
    verdict = validate(G, [("read", "a"), ("compute", "c")], 3)
    assert verdict.counterexample == {"index": 1, "rule": "compute-needs-red-parents",
                                      "move": ["compute", "c"]}
    assert verdict.detail == ("move 1 ('compute', 'c') breaks compute-needs-red-parents: "
                              "predecessor 'b' carries no red pebble")
    # the end-of-schedule rule has no move: index = len(moves), move None
    end = validate(CHAIN, CHAIN_MOVES[:2], 2)
    assert end.counterexample == {"index": 2, "rule": "outputs-blue", "move": None}
    assert end.detail == "after 2 moves output 'b' carries no blue pebble (rule outputs-blue)"


def test_peak_red_is_the_largest_red_set_not_the_last() -> None:
    # issue 20: a peak count that reported 1 where the peak was 3 (3 red, then deletes to 1)
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "a"), ("delete", "b"),
             ("write", "c")]
    H = nx.DiGraph([("a", "c"), ("b", "c")])
    r = replay(H, moves, 3)
    assert r == ReplayResult(reads=2, writes=1, computes=1, peak_red=3)
    assert r.io == 3 and type(r.peak_red) is int
    # a schedule that never holds a pebble has peak 0 (nothing to do: the output is an input)
    assert replay(nx.DiGraph([("a", "b")]), [], 1, outputs=["a"]) == ReplayResult(0, 0, 0, 0)


def test_red_limit_allows_exactly_M_and_names_the_count() -> None:
    assert replay(G, LEGAL, 3).peak_red == 3                     # exactly M is legal
    with pytest.raises(IllegalMoveError) as info:
        replay(G, LEGAL, 2)
    assert str(info.value) == ("move 2 ('compute', 'c') breaks red-limit: "
                               "3 red pebbles > M=2")
    assert (info.value.index, info.value.rule) == (2, "red-limit")


def test_every_rule_message_names_the_move_and_the_rule() -> None:
    cases = [
        ([("read", "c")], "move 0 ('read', 'c') breaks read-needs-blue: "
                          "R1: read only a vertex that carries a blue pebble"),
        ([("write", "a")], "move 0 ('write', 'a') breaks write-needs-red: "
                           "R2: write only a vertex that carries a red pebble"),
        ([("compute", "b")], "move 0 ('compute', 'b') breaks compute-input: "
                             "inputs (the sources) are never computed"),
        ([("delete", "a")], "move 0 ('delete', 'a') breaks delete-needs-red: "
                            "R4: delete only a red pebble that is there"),
        ([("read", "zz")], "move 0 ('read', 'zz') breaks unknown-vertex: "
                           "'zz' is not a vertex of the graph"),
        ([("load", "a")], "move 0 ('load', 'a') breaks unknown-kind: "
                          "a move kind is one of ('read', 'write', 'compute', 'delete')"),
        ([("read", "a"), ("read", "b"), "oops"],
         "move 2 'oops' breaks unknown-kind: "
         "a move kind is one of ('read', 'write', 'compute', 'delete')"),
        ([(3, "a")], "move 0 (3, 'a') breaks unknown-kind: "
                     "a move kind is one of ('read', 'write', 'compute', 'delete')"),
    ]
    for moves, message in cases:
        with pytest.raises(IllegalMoveError) as info:
            replay(G, moves, 3)
        assert str(info.value) == message
        assert info.value.index == len(moves) - 1


def test_compute_names_the_first_missing_predecessor_in_sorted_order() -> None:
    H = nx.DiGraph([("y", "v"), ("x", "v"), ("z", "v")])
    with pytest.raises(IllegalMoveError) as info:
        replay(H, [("read", "z"), ("compute", "v")], 4)
    assert str(info.value).endswith("predecessor 'x' carries no red pebble")
    # a compute needs every predecessor red: one missing is enough to refuse it
    with pytest.raises(IllegalMoveError, match="predecessor 'y'"):
        replay(H, [("read", "x"), ("read", "z"), ("compute", "v")], 4)
    assert replay(H, [("read", "x"), ("read", "y"), ("read", "z"), ("compute", "v"),
                      ("write", "v")], 4).io == 4


def test_one_shot_names_the_vertex_computed_twice() -> None:
    moves = LEGAL[:3] + [("compute", "c")] + LEGAL[3:]
    with pytest.raises(IllegalMoveError) as info:
        replay(G, moves, 3, recompute=False)
    assert str(info.value) == ("move 3 ('compute', 'c') breaks one-shot: "
                               "'c' was already computed")
    assert replay(G, moves, 3, recompute=True).computes == 3


def test_a_computed_vertex_is_red_and_a_written_one_blue() -> None:
    # after compute c, c is red (it can be written and can feed d); after write d, d is blue
    # (it can be read back); after delete, the red pebble is gone (a second delete is illegal)
    moves = LEGAL + [("delete", "d"), ("read", "d"), ("delete", "d")]
    r = replay(G, moves, 3)
    assert (r.reads, r.writes, r.computes, r.peak_red) == (3, 1, 2, 3)
    with pytest.raises(IllegalMoveError, match="move 9 .*delete-needs-red"):
        replay(G, moves + [("delete", "d")], 3)
    # an input starts blue only: it cannot be written before it is read
    with pytest.raises(IllegalMoveError, match="write-needs-red"):
        replay(G, [("write", "a")], 3)
    # a non-input starts with no pebble: it cannot be read before it is written
    with pytest.raises(IllegalMoveError, match="move 3 .*read-needs-blue"):
        replay(G, [("read", "a"), ("read", "b"), ("compute", "c"), ("read", "d")], 3)


def test_outputs_blue_names_the_first_missing_output_in_order() -> None:
    H = nx.DiGraph([("a", "p"), ("a", "q")])
    moves = [("read", "a"), ("compute", "p"), ("compute", "q")]
    with pytest.raises(IllegalMoveError) as info:
        replay(H, moves, 3, outputs=["q", "p"])
    assert str(info.value) == "after 3 moves output 'q' carries no blue pebble (rule outputs-blue)"
    assert (info.value.index, info.value.rule) == (3, "outputs-blue")
    # every output is checked, not only the first
    with pytest.raises(IllegalMoveError, match="output 'q'"):
        replay(H, moves + [("write", "p")], 3)
    assert replay(H, moves + [("write", "p"), ("write", "q")], 3).io == 3


def test_an_output_that_is_an_input_is_blue_from_the_start() -> None:
    H = nx.DiGraph([("a", "b")])
    assert replay(H, [], 1, outputs=["a"]).io == 0
    with pytest.raises(IllegalMoveError, match="output 'b'"):
        replay(H, [], 1, outputs=["a", "b"])


def test_check_cache_size_names_M() -> None:
    assert validate_cache_size(1) == 1 and type(validate_cache_size(True + 1)) is int
    for bad in (0, -2, 1.0, "3", None, False):
        with pytest.raises(InvalidInputError) as info:
            validate_cache_size(bad)
        assert str(info.value) == f"M={bad!r} must be a positive integer"


def test_game_inputs_are_the_sorted_sources() -> None:
    H = nx.DiGraph([("z", "m"), ("b", "m"), ("m", "out"), ("a", "out")])
    assert game_inputs(H) == ["a", "b", "z"]
    H.graph["inputs"] = ["z", "a", "b"]          # the same set in another order is accepted
    assert game_inputs(H) == ["a", "b", "z"]
    H.graph["inputs"] = ["a", "b"]
    with pytest.raises(InvalidInputError) as info:
        game_inputs(H)
    assert str(info.value) == ("G.graph['inputs'] has 2 vertices but the game's inputs are "
                               "exactly the 3 sources")
    H.graph["inputs"] = ["a", "b", "m"]         # a non-source designated input
    with pytest.raises(InvalidInputError, match="has 3 vertices .* exactly the 3 sources"):
        game_inputs(H)
    isolated = nx.DiGraph()
    isolated.add_node("solo")
    assert game_inputs(isolated) == ["solo"]


def test_game_inputs_refuses_a_cycle_naming_a_vertex_on_it() -> None:
    H = nx.DiGraph([("s", "x"), ("x", "y"), ("y", "z"), ("z", "x")])
    with pytest.raises(InvalidInputError) as info:
        game_inputs(H)
    assert str(info.value) == "the graph has a cycle through 'x'; it must be a DAG"


def test_game_outputs_default_named_and_declared() -> None:
    H = nx.DiGraph([("a", "z"), ("a", "m"), ("m", "b")])
    assert game_outputs(H) == ["b", "z"]                     # the sinks, sorted
    assert game_outputs(H, ["z", "m"]) == ["z", "m"]         # named: kept in their order
    assert game_outputs(H, iter(["m"])) == ["m"]              # any iterable
    assert game_outputs(H, []) == []                          # an empty list is not "default"
    H.graph["outputs"] = ["m", "a"]
    assert game_outputs(H) == ["m", "a"]                      # declared beats the sinks
    assert game_outputs(H, ["b"]) == ["b"]                    # named beats declared


def test_game_outputs_refuses_bad_outputs_by_name() -> None:
    H = nx.DiGraph([("a", "b")])
    cases = [("b", "outputs='b' must be a list of vertices, not one string"),
             (b"b", "outputs=b'b' must be a list of vertices, not one string"),
             (["b", "q"], "output 'q' is not a vertex of the graph"),
             ([["b"]], "output ['b'] is not a vertex of the graph"),
             (["b", "a", "b"], "output 'b' is listed twice")]
    for outputs, message in cases:
        with pytest.raises(InvalidInputError) as info:
            game_outputs(H, outputs)
        assert str(info.value) == message


def test_check_moves_accepts_iterables_and_names_the_rest() -> None:
    assert validate_moves((m for m in CHAIN_MOVES)) == CHAIN_MOVES
    assert validate_moves(()) == []
    for bad in (None, "read a", b"read", {"read": "a"}, 5):
        with pytest.raises(InvalidInputError) as info:
            validate_moves(bad)
        assert str(info.value) == f"moves={bad!r} must be a list of (kind, vertex) moves"


def test_move_kinds_and_rules_are_the_documented_ones() -> None:
    assert MOVE_KINDS == ("read", "write", "compute", "delete")
    assert set(RULES) == {"unknown-kind", "unknown-vertex", "read-needs-blue",
                          "write-needs-red", "compute-input", "compute-needs-red-parents",
                          "one-shot", "delete-needs-red", "red-limit", "outputs-blue"}


def test_validate_checks_the_named_outputs_and_variant() -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c")]
    assert validate(G, moves, 3, outputs=["c"], claimed_io=3).proved
    assert validate(G, moves, 3).counterexample == {"index": 4, "rule": "outputs-blue",
                                                    "move": None}
    twice = LEGAL[:3] + [("compute", "c")] + LEGAL[3:]
    assert validate(G, twice, 3).proved
    assert validate(G, twice, 3, recompute=False).counterexample["rule"] == "one-shot"


class _StrictDiGraph(nx.DiGraph):
    """A DiGraph whose membership test raises on an unhashable vertex (networkx's own
    returns False): the validator must not depend on which one it is given."""

    def __contains__(self, n) -> bool:
        return n in self._node


def test_an_unhashable_vertex_is_unknown_even_when_membership_raises() -> None:
    H = _StrictDiGraph([("a", "b")])
    with pytest.raises(TypeError):
        ["a"] in H  # noqa: B015
    with pytest.raises(IllegalMoveError) as info:
        replay(H, [("read", ["a"])], 2)
    assert str(info.value) == ("move 0 ('read', ['a']) breaks unknown-vertex: "
                               "['a'] is not a vertex of the graph")
    with pytest.raises(InvalidInputError) as err:
        game_outputs(H, [["b"]])
    assert str(err.value) == "output ['b'] is not a vertex of the graph"


# ---- one planted violation per side condition of replay (its docstring's numbered list) -----
# Each twin is a legal prefix followed by one move that breaks exactly that rule; the prefix is
# replayed first (legal), so the rejection is the rule's. Names: test_twin__replay__<rule>
# (tests/graphs/test_side_conditions.py checks that every listed rule has one).

W = nx.DiGraph([("a", "c"), ("b", "c")])          # a, b -> c


def assert_rejects_last(H: nx.DiGraph, moves: list, M: int, rule: str, **kw) -> None:
    replay(H, moves[:-1], M, outputs=[], **kw)     # the prefix is legal
    with pytest.raises(IllegalMoveError) as info:
        replay(H, moves, M, **kw)
    assert (info.value.index, info.value.rule) == (len(moves) - 1, rule)
    verdict = validate(H, moves, M, **kw)
    assert verdict.verdict == "refuted" and verdict.counterexample["rule"] == rule


def test_twin__replay__unknown_kind() -> None:
    assert_rejects_last(W, [("read", "a"), ("evict", "a")], 3, "unknown-kind")
    assert_rejects_last(W, [("read", "a"), ("read", "a", "b")], 3, "unknown-kind")


def test_twin__replay__unknown_vertex() -> None:
    assert_rejects_last(W, [("read", "a"), ("delete", "x")], 3, "unknown-vertex")


def test_twin__replay__read_needs_blue() -> None:
    # c is red after its compute, but was never written: no blue pebble to read
    assert_rejects_last(W, [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "c"),
                      ("read", "c")], 3, "read-needs-blue")


def test_twin__replay__write_needs_red() -> None:
    """Issue 36: a write accepted after its red pebble was deleted (c was computed, so a
    validator that asked "computed?" instead of "red now?" let it through)."""
    assert_rejects_last(W, [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "c"),
                      ("write", "c")], 3, "write-needs-red")


def test_twin__replay__compute_input() -> None:
    assert_rejects_last(W, [("read", "a"), ("compute", "a")], 3, "compute-input")


def test_twin__replay__compute_needs_red_parents() -> None:
    # b was red, then deleted: a parent red once is not red now
    assert_rejects_last(W, [("read", "a"), ("read", "b"), ("delete", "b"), ("compute", "c")], 3,
                  "compute-needs-red-parents")


def test_twin__replay__one_shot() -> None:
    assert_rejects_last(W, [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "c"),
                      ("compute", "c")], 3, "one-shot", recompute=False)
    assert replay(W, [("read", "a"), ("read", "b"), ("compute", "c"), ("delete", "c"),
                      ("compute", "c"), ("write", "c")], 3).computes == 2   # legal otherwise


def test_twin__replay__delete_needs_red() -> None:
    assert_rejects_last(W, [("read", "a"), ("delete", "a"), ("delete", "a")], 3, "delete-needs-red")


def test_twin__replay__red_limit() -> None:
    """Issue 36: the red limit checked only after a compute accepted a read past M (and the
    certificate then said "peak red = 4 <= M = 3")."""
    H = nx.DiGraph([(x, "s") for x in "abcd"])
    assert_rejects_last(H, [("read", "a"), ("read", "b"), ("read", "c"), ("read", "d")], 3,
                  "red-limit")
    assert_rejects_last(W, [("read", "a"), ("read", "b"), ("compute", "c")], 2, "red-limit")
    # a read of a red vertex adds no pebble: legal at the limit
    assert replay(W, [("read", "a"), ("read", "b"), ("read", "b"), ("compute", "c"),
                      ("write", "c")], 3).peak_red == 3


def test_twin__replay__outputs_blue() -> None:
    moves = [("read", "a"), ("read", "b"), ("compute", "c")]   # c red, never written
    with pytest.raises(IllegalMoveError) as info:
        replay(W, moves, 3)
    assert (info.value.index, info.value.rule) == (3, "outputs-blue")
    assert replay(W, moves + [("write", "c")], 3).io == 3
