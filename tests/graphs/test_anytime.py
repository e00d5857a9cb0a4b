"""Tests of attnio.graphs.anytime and of the anytime behaviour of `attnio pebble`:
the early stop when the lower bound meets the incumbent, moves on undecided, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import attnio.graphs.anytime as anytime_module
from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.graphs.anytime import (
    AnytimeProgress,
    AnytimeUndecided,
    anytime_pebble,
    compulsory_io,
)
from attnio.graphs.exact import Infeasible, Optimal, min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.peer_dags import load_peer_dag


def peer_file(name: str) -> str:
    folder = resources.files("attnio.graphs").joinpath("data", "peer_dags")
    return str(folder.joinpath(name + ".json"))


@pytest.mark.parametrize("name, M, optimum", [("spmv_N6_nzP0d4", 8, 30), ("k-means", 6, 23)])
def test_lower_bound_meets_incumbent_stops_at_once(name: str, M: int, optimum: int) -> None:
    # optimum = compulsory I/O (issue 14): the heuristic meets it, no exact search runs
    G = load_peer_dag(name)
    assert compulsory_io(G) == optimum
    progress = AnytimeProgress()
    started = time.monotonic()
    r = anytime_pebble(G, M, time_limit=60, progress=progress)
    assert isinstance(r, Optimal) and r.io == optimum and r.states_explored == 0
    assert time.monotonic() - started < 10
    assert replay(G, r.schedule, M).io == optimum
    assert progress.lower_bound == progress.upper_bound == optimum
    assert progress.phase == "done"


def test_undecided_carries_the_best_schedule() -> None:
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    r = anytime_pebble(G, 3, time_limit=1.5)
    assert isinstance(r, AnytimeUndecided) and r.status == "undecided"
    assert r.schedule and replay(G, r.schedule, 3).io == r.upper_bound
    assert compulsory_io(G) <= r.lower_bound < r.upper_bound


def test_interrupt_leaves_the_bracket_in_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args, **kwargs):  # the exact phase is interrupted at its first bound
        kwargs["on_lower_bound"](13)
        raise KeyboardInterrupt
    monkeypatch.setattr(anytime_module, "solve_optimal", interrupted)
    # no certified bound here (it is 59 at M = 3): the bracket's lower side is the search's
    monkeypatch.setattr(anytime_module, "certified_window_bound", lambda *a, **k: None)
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    progress = AnytimeProgress()
    with pytest.raises(KeyboardInterrupt):
        anytime_pebble(G, 3, time_limit=0.5, progress=progress)
    assert progress.phase == "exact" and progress.lower_bound == 13
    assert replay(G, progress.schedule, 3).io == progress.upper_bound
    partial = progress.undecided("interrupted")
    assert partial.lower_bound == 13 and partial.schedule == progress.schedule


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_exact_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(9, 0.3, seed=int(rng.integers(1 << 30)), directed=True)
    G = nx.DiGraph((str(u), str(v)) for u, v in G.edges if u < v)
    if G.number_of_edges() == 0:
        return
    for M in (min_cache_size(G), min_cache_size(G) + 1):
        for recompute in (True, False):
            a = anytime_pebble(G, M, recompute=recompute, time_limit=30)
            b = solve_optimal(G, M, recompute=recompute, time_limit=30)
            assert isinstance(a, Optimal) and isinstance(b, Optimal)
            assert a.io == b.io >= compulsory_io(G)
            assert replay(G, a.schedule, M, recompute=recompute).io == a.io


def test_infeasible_and_bad_input() -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    assert isinstance(anytime_pebble(G, 2), Infeasible)
    with pytest.raises(InvalidInputError):
        anytime_pebble(G, 3, time_limit=float("inf"))
    with pytest.raises(InvalidInputError, match="heuristic_share"):
        anytime_pebble(G, 3, heuristic_share=2)


def test_pebble_json_has_moves_when_undecided(capsys: pytest.CaptureFixture) -> None:
    path = peer_file("CG_N2_K2_nzP0d75")
    assert main(["pebble", "--dag", path, "--cache", "3", "--time-limit", "1.5",
                 "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "undecided" and out["moves"]
    moves = [tuple(m) for m in out["moves"]]
    assert replay(load_peer_dag("CG_N2_K2_nzP0d75"), moves, 3).io == out["upper_bound"]


def test_pebble_spmv_is_optimal_fast(capsys: pytest.CaptureFixture) -> None:
    started = time.monotonic()
    assert main(["pebble", "--dag", peer_file("spmv_N6_nzP0d4"), "--cache", "8"]) == 0
    assert "optimal I/O = 30" in capsys.readouterr().out
    assert time.monotonic() - started < 10


def test_sigint_prints_the_bracket_and_schedule_and_exits_130(tmp_path: Path) -> None:
    path = peer_file("CG_N2_K2_nzP0d75")
    proc = subprocess.Popen([sys.executable, "-m", "attnio", "pebble", "--dag", path,
                             "--cache", "3", "--time-limit", "60", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ATTNIO_PROGRESS": "0"})
    time.sleep(6)  # imports and the start of the search
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "attnio pebble: interrupted"
    result = json.loads(out)
    assert result["status"] == "undecided" and result["reason"] == "interrupted"
    moves = [tuple(m) for m in result["moves"]]
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    assert replay(G, moves, 3).io == result["upper_bound"]
    assert result["lower_bound"] >= compulsory_io(G)


# ---- the certified lower bound (spill windows) inside anytime_pebble --------------------


def test_certified_bound_closes_the_bracket_without_search() -> None:
    # matmul 1x2x1 at M = 3: compulsory I/O 5, optimum 7 = the spill-windows bound
    from attnio.graphs.dags import matmul_dag
    G = matmul_dag(1, 2, 1)
    assert compulsory_io(G) == 5
    assert solve_optimal(G, 3).io == 7
    progress = AnytimeProgress()
    r = anytime_pebble(G, 3, time_limit=10, progress=progress)
    assert isinstance(r, Optimal) and r.io == 7 and r.states_explored == 0
    assert progress.lower_bound_source.startswith("spill-windows")
    assert replay(G, r.schedule, 3).io == 7


@pytest.mark.parametrize("seed", range(8))
def test_certified_bound_never_exceeds_the_optimum(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    G = nx.gnp_random_graph(9, 0.35, seed=int(rng.integers(1 << 30)), directed=True)
    G = nx.DiGraph((str(u), str(v)) for u, v in G.edges if u < v)
    if G.number_of_edges() == 0:
        return
    nodes = sorted(G, key=lambda v: int(v))
    # outputs that are not sinks as well (the game's conventions)
    outputs = [v for v in nodes if G.out_degree(v) == 0] + [v for v in nodes[-4:-2]
                                                          if G.in_degree(v) > 0]
    outputs = list(dict.fromkeys(outputs))
    for M in (min_cache_size(G, outputs), min_cache_size(G, outputs) + 1):
        got = anytime_module.certified_window_bound(G, M, outputs=outputs, seconds=2)
        for recompute in (True, False):
            optimum = solve_optimal(G, M, recompute=recompute, outputs=outputs,
                                    time_limit=30)
            assert isinstance(optimum, Optimal)
            assert got is not None and got[0] <= optimum.io


def test_planted_false_window_bound_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    # a twin route claiming one more than its certificate supports (above the optimum 7)
    from attnio.graphs.dags import matmul_dag
    from attnio.graphs.lower_bounds import BoundRecord, spill_windows_bound
    G = matmul_dag(1, 2, 1)

    def inflated(*args, **kwargs):
        r = spill_windows_bound(*args, **kwargs)
        return BoundRecord(r.route, r.value + 1, r.applies, r.why_not, r.certificate)

    monkeypatch.setattr(anytime_module, "spill_windows_bound", inflated)
    assert anytime_module.certified_window_bound(G, 3) is None
    progress = AnytimeProgress()
    r = anytime_pebble(G, 3, time_limit=10, progress=progress)
    assert isinstance(r, Optimal) and r.io == 7          # not 8: the false claim was dropped
    assert progress.lower_bound_source != "spill-windows, U of 3"
