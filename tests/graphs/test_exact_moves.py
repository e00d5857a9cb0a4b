"""Tests of attnio.graphs.exact_moves: (R10) finished outputs are evicted first — the rule
keeps the optimum, and its planted false twin (every red output without blue treated as
finished) is caught disagreeing with the plain baseline."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.exact_moves import MacroMoves
from attnio.graphs.game import replay
from attnio.graphs.indexed_dag import IndexedDAG

# random_dag(5, 0.6, seed=6) with outputs v1..v4 (v1, v3 feed v2, v4): one-shot at M = 3 the
# optimum is 5; the twin evicts v1 before v2, v4 are computed and answers 6
TWIN_DAG = nx.DiGraph([("v0", "v1"), ("v0", "v2"), ("v0", "v3"), ("v1", "v2"), ("v1", "v4"),
                       ("v3", "v4")])
TWIN_OUTPUTS = ["v1", "v2", "v3", "v4"]


def test_finished_outputs_are_only_those_nothing_still_uses() -> None:
    inst = IndexedDAG(TWIN_DAG, TWIN_OUTPUTS)
    moves = MacroMoves(inst, 3, True)
    bit = {v: 1 << inst.index[v] for v in inst.names}
    R = bit["v0"] | bit["v1"] | bit["v3"]
    B = inst.inp
    P = moves.possibly_needed(B, 0)
    # v1 and v3 still feed v2 / v4, which must be computed: neither is finished
    assert moves.finished_outputs(R, B, 0, P) == 0
    # once v2 and v4 are blue, nothing uses v1, v3 any more
    B2 = B | bit["v2"] | bit["v4"]
    P2 = moves.possibly_needed(B2, 0)
    assert moves.finished_outputs(R, B2, 0, P2) == bit["v1"] | bit["v3"]


def test_rule_keeps_the_pinned_optimum() -> None:
    for recompute in (True, False):
        r = solve_optimal(TWIN_DAG, 3, recompute=recompute, outputs=TWIN_OUTPUTS)
        plain = plain_optimal(TWIN_DAG, 3, recompute=recompute, outputs=TWIN_OUTPUTS)
        assert r.verdict == "optimal" and r.io == plain.io
        assert replay(TWIN_DAG, r.schedule, 3, recompute=recompute,
                      outputs=TWIN_OUTPUTS).io == r.io
    assert plain_optimal(TWIN_DAG, 3, recompute=False, outputs=TWIN_OUTPUTS).io == 5


def test_planted_false_twin_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MacroMoves, "_finished_twin", True)
    twin = solve_optimal(TWIN_DAG, 3, recompute=False, outputs=TWIN_OUTPUTS)
    plain = plain_optimal(TWIN_DAG, 3, recompute=False, outputs=TWIN_OUTPUTS)
    assert twin.io == 6 and plain.io == 5


def test_planted_false_twin_disagrees_somewhere_in_a_small_sweep(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the sweep that the rule itself passes (tests/graphs/test_exact.py, agree_pebble.py)
    # must fail for the twin: count its disagreements with the plain baseline
    def outputs_of(G: nx.DiGraph) -> list[str]:
        return [v for v in sorted(G) if G.in_degree(v) > 0]   # every non-input an output

    wrong = 0
    for seed in range(6, 10):
        G = random_dag(5, 0.6, seed=seed)
        outputs = outputs_of(G)
        M = min_cache_size(G, outputs)
        plain = plain_optimal(G, M, recompute=False, outputs=outputs).io
        assert solve_optimal(G, M, recompute=False, outputs=outputs).io == plain
        monkeypatch.setattr(MacroMoves, "_finished_twin", True)
        wrong += solve_optimal(G, M, recompute=False, outputs=outputs).io != plain
        monkeypatch.setattr(MacroMoves, "_finished_twin", False)
    assert wrong >= 1
