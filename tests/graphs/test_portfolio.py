"""Tests of attnio.graphs.portfolio: the SAT share of ``attnio pebble``'s ``auto`` (issue 37,
"a SAT engine ... joins auto where it wins"), against the reference search as ground truth."""

from __future__ import annotations

import json

import pytest

from attnio.cli import main
from attnio.exceptions import BoundSatisfiable
from attnio.graphs import exact_sat, portfolio
from attnio.graphs.anytime import AnytimeProgress, compulsory_io
from attnio.graphs.dags import attention_forward_dag, gnp_dag, matmul_dag
from attnio.graphs.engines import solve
from attnio.graphs.exact_sat import refute
from attnio.graphs.game import replay
from attnio.graphs.heuristic_schedule import greedy_order, schedule_from_order
from attnio.graphs.indexed_dag import IndexedDAG
from attnio.graphs.pebble_result import PebbleResult
from attnio.graphs.portfolio import SAT_AUTO_HORIZON, SAT_SHARE, sat_portfolio, sat_share

pytestmark = pytest.mark.extra("sat")


def _bracket(G, M: int, lower: int | None = None) -> PebbleResult:
    """An undecided bracket as the search leaves it: [compulsory I/O, a heuristic schedule]."""
    moves = schedule_from_order(G, M, greedy_order(G, M))
    upper = replay(G, moves, M).io
    lower = compulsory_io(G) if lower is None else lower
    return PebbleResult.undecided(lower, upper, "time limit 1 s reached", schedule=moves)


def test_the_portfolio_closes_each_bracket_at_the_exact_optimum() -> None:
    """Soundness against ground truth: from [compulsory, heuristic] the portfolio's optimum
    equals the reference search's on 40 random DAGs of 6-8 vertices at their least M and
    one more (ints, ==), its schedule replays to it, and the proof it returns refutes exactly
    io - 1. Counted: only open brackets could have gone wrong (16 of the 80: 5 closed by
    refutations, 11 by a satisfiable bound at the lower end)."""
    opened = refuted = 0
    for seed in range(40):
        G = gnp_dag(6 + seed % 3, 0.5, seed)
        least = IndexedDAG(G).min_cache_size
        for M in (least, least + 1):
            start = _bracket(G, M)
            if start.lower == start.upper:
                continue  # decided already: handed back (another test)
            opened += 1
            exact = solve(G, M, method="reference", time_limit=60)
            result, proof = sat_portfolio(G, M, start, time_limit=60)
            assert result.verdict == "optimal", (seed, M)
            assert result.io == exact.io, (seed, M, result.io, exact.io)
            assert replay(G, result.schedule, M).io == result.io
            if result.io > start.lower:
                refuted += 1
                assert proof is not None and proof.bound == result.io - 1
                assert result.lower_source == "sat refutation"
    assert opened >= 15 and refuted >= 5, (opened, refuted)


def test_a_lower_end_that_is_no_lower_bound_is_an_error_not_a_verdict() -> None:
    """The planted twin: a bracket whose lower end is above Q (matmul 1x2x1, M = 3: Q = 7,
    told 8). "cost <= 8" is satisfiable with a schedule of cost 7 < 8: an error naming it,
    never "optimal at 7" resting on a lower end that was false."""
    G = matmul_dag(1, 2, 1)
    start = PebbleResult.undecided(8, 9, "told", schedule=_bracket(G, 3).schedule)
    with pytest.raises(AssertionError, match="8 was not a lower bound"):
        sat_portfolio(G, 3, start, time_limit=60)


def test_decided_results_and_no_time_come_back_unchanged() -> None:
    G = matmul_dag(1, 2, 1)
    done = solve(G, 3)
    assert sat_portfolio(G, 3, done, time_limit=60) == (done, None)
    start = _bracket(G, 3)
    assert sat_portfolio(G, 3, start, time_limit=0.0) == (start, None)


def test_the_progress_names_the_phase_and_the_raised_lower_end() -> None:
    G = matmul_dag(1, 2, 1)
    progress = AnytimeProgress()
    result, _ = sat_portfolio(G, 3, _bracket(G, 3), time_limit=60, progress=progress)
    assert progress.phase.startswith("SAT refutation of cost <= ")
    assert progress.lower_bound == result.io == 7
    assert progress.lower_bound_source == "sat refutation"


def test_the_share_is_autos_only_and_only_on_a_small_horizon(monkeypatch) -> None:
    """auto + a small horizon: SAT_SHARE. Twins: another method, a DAG above
    SAT_AUTO_HORIZON (attention forward n = 2, d = 2: 222 steps), python-sat missing."""
    assert sat_share(matmul_dag(2, 2, 2), "auto") == SAT_SHARE > 0
    assert sat_share(matmul_dag(2, 2, 2), "compiled") == 0.0
    assert sat_share(matmul_dag(2, 2, 2), "sat") == 0.0
    assert SAT_AUTO_HORIZON < 222
    assert sat_share(attention_forward_dag(2, 2), "auto") == 0.0
    monkeypatch.setattr(portfolio, "sat_available", lambda: False)
    assert sat_share(matmul_dag(2, 2, 2), "auto") == 0.0


def test_refute_solves_the_same_question_once(monkeypatch) -> None:
    """--certify after the portfolio writes the refutation already made: the same call
    again does not run the solver; a different bound does."""
    calls: list[int] = []
    real = exact_sat.run_isolated

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_sat, "run_isolated", counting)
    exact_sat._LAST_REFUTATION.clear()
    first = refute(matmul_dag(1, 2, 1), 3, 6)
    assert refute(matmul_dag(1, 2, 1), 3, 6) is first and len(calls) == 1
    assert refute(matmul_dag(1, 2, 1), 3, 5) is not first and len(calls) == 2


def test_a_satisfiable_bound_carries_its_schedule() -> None:
    with pytest.raises(BoundSatisfiable) as raised:
        refute(matmul_dag(1, 2, 1), 3, 7)
    assert isinstance(raised.value, ValueError)
    assert replay(matmul_dag(1, 2, 1), raised.value.schedule, 3).io <= 7


def test_pebble_auto_gives_sat_the_time_the_search_leaves(monkeypatch, capsys) -> None:
    """Through the command: a search that stops undecided (a spy returning the heuristic
    bracket, with the time limit it was given) is closed by SAT refutations — verdict
    optimal, lower_source "sat refutation" — and got (1 - SAT_SHARE) of the time. The twin:
    --method compiled never runs SAT and stays undecided."""
    from attnio.commands import pebble as pebble_command

    given: list[float] = []

    def stopped_search(G, M, **kwargs):
        given.append(kwargs["time_limit"])
        return _bracket(G, M)

    monkeypatch.setattr(pebble_command, "anytime_pebble", stopped_search)
    argv = ["pebble", "--builtin", "matmul:2x2x1", "--M", "4", "--json",
            "--solver-time-limit", "40"]
    assert main(argv) == 0
    [out] = json.loads(capsys.readouterr().out)["instances"]
    assert out["verdict"] == "optimal" and out["lower_source"] == "sat refutation"
    assert out["io"] == solve(matmul_dag(2, 2, 1), 4).io
    assert 0 < given[0] <= 40 * (1 - SAT_SHARE)
    assert main([*argv, "--method", "compiled"]) == 1
    [out] = json.loads(capsys.readouterr().out)["instances"]
    assert out["verdict"] == "undecided" and given[1] > 40 * (1 - SAT_SHARE)


def test_a_refutation_with_no_time_left_starts_no_child(monkeypatch) -> None:
    """The time limit bounds the whole refutation — symmetries and encoding run in the child
    too — so with nothing left (the child's kill grace included) no child starts. The twin:
    with time left, it does."""
    calls: list[float] = []
    real = exact_sat.run_isolated

    def counting(*args, **kwargs):
        calls.append(kwargs["seconds"])
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_sat, "run_isolated", counting)
    exact_sat._LAST_REFUTATION.clear()
    assert refute(matmul_dag(1, 2, 1), 3, 6, time_limit=0.0) is None
    assert refute(matmul_dag(1, 2, 1), 3, 6, time_limit=exact_sat.KILL_GRACE_S) is None
    assert calls == []
    assert refute(matmul_dag(1, 2, 1), 3, 6, time_limit=30) is not None
    assert len(calls) == 1 and calls[0] <= 30 - exact_sat.KILL_GRACE_S


def test_a_large_dag_gets_no_share_without_building_its_horizon(monkeypatch) -> None:
    """More non-inputs than SAT_AUTO_HORIZON: 0 before any horizon is built (a DAG of 20,000
    vertices, beyond the certificate format's cap, is answered, not refused). The twin: a
    small DAG builds it."""
    import networkx as nx

    built: list[int] = []
    real = portfolio.required_horizon
    monkeypatch.setattr(portfolio, "required_horizon",
                        lambda dag, recompute: built.append(1) or real(dag, recompute))
    assert sat_share(nx.path_graph(20_000, create_using=nx.DiGraph), "auto") == 0.0
    assert sat_share(matmul_dag(5, 5, 5), "auto") == 0.0 and built == []
    assert sat_share(matmul_dag(1, 2, 1), "auto") == SAT_SHARE and built == [1]
