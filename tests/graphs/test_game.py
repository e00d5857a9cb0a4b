"""Tests of attnio.graphs.game: the rules, and planted illegal schedules the validator rejects."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.game import RULES, replay, validate

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
