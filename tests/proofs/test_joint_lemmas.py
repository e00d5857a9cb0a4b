"""The lemmas of the joint routes (proofs/joint_lemmas.py, issue 35 item 5): every claim
proved, every twin rejected on its path; the witness exploration finds a planted hole, and its
counterexample is a legal segment of the game."""

from __future__ import annotations

import pytest

from attnio.proofs.joint_lemmas import explore_witness, score_tree_dag
from attnio.proofs.registry import CheckContext

CTX = CheckContext()


def test_claims_proved_and_twins_rejected_on_their_path(entry) -> None:
    verdict = entry.check(CTX)
    assert entry.as_declared(verdict), verdict.detail


@pytest.mark.trust
def test_the_witness_exploration_finds_a_planted_hole() -> None:
    G = score_tree_dag()
    states, hits, cx = explore_witness(G, ["m0", "m1", "S", "P"], "P", ["q0", "q1", "k0", "k1"],
                                       5)
    assert cx is None and hits > 0
    _, _, cx = explore_witness(G, ["S", "P"], "P", ["q0", "q1", "k0", "k1"], 5)
    assert cx is not None and cx["moves"][-1] == ("compute", "P")
    # the counterexample is a legal segment of the game: replay it after a prefix that puts
    # its start red set on the board (only the final 'outputs end blue' rule may be unmet)
    from attnio.exceptions import IllegalMoveError
    from attnio.graphs.game import replay

    prefix = [("read", "q0"), ("read", "k0"), ("compute", "m0"), ("delete", "q0"),
              ("delete", "k0"), ("read", "q1"), ("read", "k1"), ("compute", "m1"),
              ("delete", "q1"), ("delete", "k1")]
    prefix += [("read", v) for v in cx["start_red"] if v in ("q0", "q1", "k0", "k1", "l")]
    prefix += [("delete", v) for v in ("m0", "m1") if v not in cx["start_red"]]
    moves = prefix + cx["moves"]
    with pytest.raises(IllegalMoveError) as err:
        replay(G, moves, 5)
    assert err.value.rule == "outputs-blue" and err.value.index == len(moves)


@pytest.mark.trust
def test_the_exploration_counts_the_states_that_could_fail() -> None:
    """Too few red pebbles to compute P: nothing could fail, and the count says so."""
    _, hits, cx = explore_witness(score_tree_dag(), ["m0", "m1", "S", "P"], "P",
                                  ["q0", "q1", "k0", "k1"], 1)
    assert hits == 0 and cx is None
