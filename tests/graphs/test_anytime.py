"""Tests of attnio.graphs.anytime and of the anytime behaviour of `attnio pebble`:
the early stop when the lower bound meets the incumbent, moves on undecided, Ctrl-C.

The tests marked ``trust`` check the bracket lower bound <= Q <= upper bound and when it may
say "optimal": hand-built DAGs with pinned optima, fake engines that record what they are
given, and a fake clock, so that every budget and every phase is exact.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import types
from importlib import resources
from pathlib import Path

import networkx as nx
import pytest

import attnio.graphs.anytime as anytime_module
from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.graphs.anytime import (
    AnytimeProgress,
    anytime_pebble,
    compulsory_io,
)
from attnio.graphs.dags import matmul_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.pebble_result import PebbleResult
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
    started = time.process_time()         # CPU seconds: load elsewhere does not count
    r = anytime_pebble(G, M, time_limit=60, progress=progress)
    assert r.verdict == "optimal" and r.io == optimum and r.states_explored == 0
    assert time.process_time() - started < 10
    assert replay(G, r.schedule, M).io == optimum
    assert progress.lower_bound == progress.upper_bound == optimum
    assert progress.phase == "done"


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_undecided_carries_the_best_schedule() -> None:
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    r = anytime_pebble(G, 3, time_limit=1.5)
    assert r.verdict == "undecided"
    assert r.schedule and replay(G, r.schedule, 3).io == r.upper
    assert compulsory_io(G) <= r.lower < r.upper


def test_interrupt_leaves_the_bracket_in_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args, **kwargs):  # the exact phase is interrupted at its first bound
        kwargs["on_lower_bound"](13)
        raise KeyboardInterrupt
    monkeypatch.setattr(anytime_module, "solve", interrupted)
    # no certified bound here (it is 59 at M = 3): the bracket's lower side is the search's
    monkeypatch.setattr(anytime_module, "certified_window_bound", lambda *a, **k: None)
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    progress = AnytimeProgress()
    with pytest.raises(KeyboardInterrupt):
        anytime_pebble(G, 3, time_limit=0.5, progress=progress)
    assert progress.phase == "exact" and progress.lower_bound == 13
    assert replay(G, progress.schedule, 3).io == progress.upper_bound
    partial = progress.undecided("interrupted")
    assert partial.lower == 13 and partial.schedule == progress.schedule


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_exact_search(seed: int, random_forward_dag) -> None:
    G = random_forward_dag(9, 0.3, seed)
    if G.number_of_edges() == 0:
        return
    for M in (min_cache_size(G), min_cache_size(G) + 1):
        for recompute in (True, False):
            a = anytime_pebble(G, M, recompute=recompute, time_limit=30)
            b = solve_optimal(G, M, recompute=recompute, time_limit=30)
            assert a.verdict == "optimal" and b.verdict == "optimal"
            assert a.io == b.io >= compulsory_io(G)
            assert replay(G, a.schedule, M, recompute=recompute).io == a.io


@pytest.mark.trust
def test_infeasible_and_bad_input() -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    assert anytime_pebble(G, 2).verdict == "infeasible"
    with pytest.raises(InvalidInputError):
        anytime_pebble(G, 3, time_limit=float("inf"))
    with pytest.raises(InvalidInputError, match="heuristic_share"):
        anytime_pebble(G, 3, heuristic_share=2)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_pebble_json_has_moves_when_undecided(capsys: pytest.CaptureFixture) -> None:
    path = peer_file("CG_N2_K2_nzP0d75")
    assert main(["pebble", "--dag", path, "--cache", "3", "--time-limit", "1.5",
                 "--json"]) == 1
    [out] = json.loads(capsys.readouterr().out)["instances"]
    assert out["verdict"] == "undecided" and out["moves"]
    moves = [tuple(m) for m in out["moves"]]
    assert replay(load_peer_dag("CG_N2_K2_nzP0d75"), moves, 3).io == out["upper"]


def test_pebble_spmv_is_optimal_fast(capsys: pytest.CaptureFixture) -> None:
    started = time.process_time()         # CPU seconds: load elsewhere does not count
    assert main(["pebble", "--dag", peer_file("spmv_N6_nzP0d4"), "--cache", "8"]) == 0
    assert "optimal I/O = 30" in capsys.readouterr().out
    assert time.process_time() - started < 10


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_sigint_prints_the_bracket_and_schedule_and_exits_130(tmp_path: Path,
                                                              wait_for_cpu_seconds) -> None:
    path = peer_file("CG_N2_K2_nzP0d75")
    proc = subprocess.Popen([sys.executable, "-m", "attnio", "pebble", "--dag", path,
                             "--cache", "3", "--time-limit", "900", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ATTNIO_PROGRESS": "0"})
    # the signal once the process has done ~5 s of CPU work (imports, the certified bound, the
    # algorithm schedules: the search has begun) — CPU, not wall time, which load stretches
    # (the wall-clock limits only guard hangs: at load 18 the 5 s of CPU take ~90 s of wall)
    wait_for_cpu_seconds(proc.pid, 5.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "attnio pebble: interrupted"
    doc = json.loads(out)
    assert doc["verdict"] == "undecided" and doc["interrupted"] is True
    [result] = doc["instances"]
    assert result["verdict"] == "undecided" and result["detail"] == "interrupted"
    moves = [tuple(m) for m in result["moves"]]
    G = load_peer_dag("CG_N2_K2_nzP0d75")
    assert replay(G, moves, 3).io == result["upper"]
    assert result["lower"] >= compulsory_io(G)


# ---- the certified lower bound (spill windows) inside anytime_pebble --------------------


@pytest.mark.trust
def test_certified_bound_closes_the_bracket_without_search() -> None:
    # matmul 1x2x1 at M = 3: compulsory I/O 5, optimum 7 = the spill-windows bound
    from attnio.graphs.dags import matmul_dag
    G = matmul_dag(1, 2, 1)
    assert compulsory_io(G) == 5
    assert solve_optimal(G, 3).io == 7
    progress = AnytimeProgress()
    r = anytime_pebble(G, 3, time_limit=10, progress=progress)
    assert r.verdict == "optimal" and r.io == 7 and r.states_explored == 0
    assert progress.lower_bound_source.startswith("spill-windows")
    assert replay(G, r.schedule, 3).io == 7


@pytest.mark.parametrize("seed", range(8))
def test_certified_bound_never_exceeds_the_optimum(seed: int, random_forward_dag) -> None:
    G = random_forward_dag(9, 0.35, 100 + seed)
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
            assert optimum.verdict == "optimal"
            assert got is not None and got[0] <= optimum.io


@pytest.mark.trust
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
    assert r.verdict == "optimal" and r.io == 7          # not 8: the false claim was dropped
    assert progress.lower_bound_source != "spill-windows, U of 3"


# ---- the trust tier: the bracket lower bound <= Q <= upper bound, and when it says optimal --

# a -> x <- b, a -> y <- c, x, y -> z: L0 = 4, Q(G, 3) = 6 (no zero-waste schedule)
CROSS = nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")])
CROSS_OPTIMAL = [("read", "a"), ("read", "b"), ("compute", "x"), ("delete", "b"),
                 ("write", "x"), ("delete", "x"), ("read", "c"), ("compute", "y"),
                 ("delete", "a"), ("delete", "c"), ("read", "x"), ("compute", "z"),
                 ("write", "z")]                                      # costs 6


def _costing(io: int) -> list[tuple[str, str]]:
    """A legal CROSS schedule at M = 3 costing ``io`` >= 6 (repeated writes of z)."""
    return CROSS_OPTIMAL + [("write", "z")] * (io - 6)


# issue 20's DAG: L0 = 6 = Q(G, 4) (by recomputing; the one-shot optimum is 7)
ISSUE = nx.DiGraph([(str(u), str(v)) for u, v in [(0, 1), (0, 3), (0, 5), (0, 7), (1, 3),
                                                  (1, 5), (1, 7), (2, 4), (2, 5), (3, 4),
                                                  (3, 6), (5, 7)]])
ISSUE_OUTPUTS = ["4", "6", "7", "5"]


@pytest.mark.trust
def test_an_exhausted_zero_waste_proof_budget_is_not_a_bound(monkeypatch) -> None:
    # issue 20: zero_waste_exists answering False when its budget ran out made anytime_pebble
    # answer "optimal 7" on this DAG, where Q = 6
    from attnio.graphs.zero_waste import zero_waste_exists
    assert solve_optimal(ISSUE, 4, outputs=ISSUE_OUTPUTS).io == 6
    assert solve_optimal(ISSUE, 4, outputs=ISSUE_OUTPUTS, recompute=False).io == 7
    assert compulsory_io(ISSUE, ISSUE_OUTPUTS) == 6
    budgets = []

    def starved(*args, **kwargs):
        budgets.append(kwargs.get("time_limit"))
        return zero_waste_exists(*args, **kwargs, max_states=1)   # runs out at once

    monkeypatch.setattr(anytime_module, "zero_waste_exists", starved)
    progress = AnytimeProgress()
    r = anytime_pebble(ISSUE, 4, outputs=ISSUE_OUTPUTS, time_limit=30, progress=progress)
    assert len(budgets) == 1                       # the proof search ran, and ran out
    assert r.verdict == "optimal" and r.io == 6
    assert replay(ISSUE, r.schedule, 4, outputs=ISSUE_OUTPUTS).io == 6
    assert progress.lower_bound == 6 and progress.lower_bound_source != \
        "zero-waste search exhausted"
    # one-shot: the optimum is 7, and the bracket must find it by search, not by the budget
    r = anytime_pebble(ISSUE, 4, outputs=ISSUE_OUTPUTS, recompute=False, time_limit=30)
    assert r.verdict == "optimal" and r.io == 7


@pytest.mark.trust
def test_the_issue_dag_unpatched() -> None:
    progress = AnytimeProgress()
    r = anytime_pebble(ISSUE, 4, outputs=ISSUE_OUTPUTS, time_limit=30, progress=progress)
    assert r.verdict == "optimal" and r.io == 6 and r.states_explored > 0
    assert (progress.lower_bound, progress.upper_bound, progress.phase) == (6, 6, "done")


@pytest.mark.trust
def test_progress_keeps_the_larger_bound_and_the_first_source() -> None:
    p = AnytimeProgress()
    assert (p.lower_bound, p.lower_bound_source, p.upper_bound, p.schedule, p.phase) == \
        (0, "none", None, None, "start")
    p.raise_lower(3, "compulsory")
    p.raise_lower(3, "spill-windows, U of 4")        # equal: not an improvement
    p.raise_lower(2)
    assert (p.lower_bound, p.lower_bound_source) == (3, "compulsory")
    p.raise_lower(5)
    assert (p.lower_bound, p.lower_bound_source) == (5, "exact search")
    assert type(p.lower_bound) is int


@pytest.mark.trust
def test_progress_keeps_the_cheaper_schedule_and_the_first_of_equals() -> None:
    p = AnytimeProgress()
    first, second, third = _costing(8), _costing(7), _costing(7)[:-1] + [("write", "x")]
    p.offer(8, first)
    assert (p.upper_bound, p.schedule) == (8, first)
    p.offer(7, second)
    p.offer(7, third)                                  # equal: not an improvement
    p.offer(9, first)
    assert (p.upper_bound, p.schedule) == (7, second)
    assert p.schedule is not second                    # a copy: the caller's list may change


@pytest.mark.trust
def test_progress_undecided_carries_the_bracket(fake_clock) -> None:
    clock = fake_clock(anytime_module)
    clock.now = 10.0
    p = AnytimeProgress(lower_bound=4, lower_bound_source="compulsory", upper_bound=7,
                        schedule=_costing(7), started=2.5)
    r = p.undecided("budget", 12)
    assert r == PebbleResult.undecided(4, 7, "budget", states_explored=12, seconds=7.5,
                                       schedule=_costing(7), lower_source="compulsory")
    assert r.verdict == "undecided"
    empty = AnytimeProgress(started=10.0).undecided("none yet")
    assert (empty.schedule, empty.states_explored, empty.upper) == ([], 0, None)


@pytest.mark.trust
def test_compulsory_io_never_charges_an_output_that_is_an_input() -> None:
    # issue 20: an output that is also an input is blue from the start: no read, no write
    H = nx.DiGraph([("a", "b"), ("b", "c"), ("x", "y"), ("u", "c")])
    assert compulsory_io(H, ["a"]) == 0
    assert compulsory_io(H, ["a", "b"]) == 2          # read a, write b
    assert compulsory_io(H, ["b", "x"]) == 2          # x needs nothing; y is not needed
    assert compulsory_io(H) == 5                      # sinks c, y: read a, u, x; write c, y
    assert compulsory_io(H, []) == 0
    assert solve_optimal(H, 2, outputs=["a", "b"]).io == 2
    assert type(compulsory_io(H)) is int


@pytest.mark.trust
def test_incumbent_at_the_compulsory_io_is_optimal_without_any_search(monkeypatch) -> None:
    def forbidden(*args, **kwargs):
        raise AssertionError("no search may run once the bracket is closed")

    for name in ("heuristic_schedule", "solve", "zero_waste_schedule",
                 "zero_waste_exists", "certified_window_bound"):
        monkeypatch.setattr(anytime_module, name, forbidden)
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("compute", "d"), ("write", "d")]
    progress = AnytimeProgress()
    r = anytime_pebble(G, 4, incumbents={"given": moves}, time_limit=5, progress=progress)
    assert r.verdict == "optimal" and (r.io, r.schedule, r.states_explored) == (3, moves, 0)
    assert (progress.lower_bound, progress.lower_bound_source, progress.phase) == \
        (3, "compulsory", "done")


@pytest.mark.trust
def test_an_illegal_incumbent_raises_and_a_costlier_one_is_only_an_upper_bound() -> None:
    from attnio.exceptions import IllegalMoveError
    with pytest.raises(IllegalMoveError, match="red-limit"):
        anytime_pebble(CROSS, 3, incumbents={"bad": [("read", "a"), ("read", "b"),
                                                        ("read", "c"), ("compute", "x")]})
    progress = AnytimeProgress()
    r = anytime_pebble(CROSS, 3, incumbents={"slow": _costing(9)}, time_limit=30,
                       progress=progress)
    assert r.verdict == "optimal" and r.io == 6


def _undecided(lower: int, upper: int | None, explored: int = 0,
               reason: str = "budget") -> PebbleResult:
    return PebbleResult.undecided(lower, upper, reason, states_explored=explored)


class _Script:
    """Fake engines for anytime_pebble: each records its call and answers from a script."""

    def __init__(self, monkeypatch, *, heuristic, zero_schedule=None, certified=None,
                 exists=None, exact=(), progress=None):
        self.calls: list[tuple[str, dict]] = []
        self.progress = progress
        self.phases: list[str] = []     # progress.phase when each engine was called
        self.heuristic = list(heuristic)
        self.exact = list(exact)
        self.zero_schedule, self.certified, self.exists = zero_schedule, certified, exists
        for name in ("heuristic_schedule", "zero_waste_schedule", "certified_window_bound",
                     "zero_waste_exists", "solve"):
            monkeypatch.setattr(anytime_module, name, getattr(self, name))

    def _phase(self):
        if self.progress is not None:
            self.phases.append(self.progress.phase)

    def heuristic_schedule(self, G, M, **kw):
        self._phase()
        self.calls.append(("heuristic", {k: kw[k] for k in ("outputs", "seed", "time_limit",
                                                            "max_evaluations", "lower_bound")}))
        improve, final = self.heuristic.pop(0)
        for moves in improve:
            kw["on_improve"](1, moves)           # a lying cost: anytime must replay it
        return types.SimpleNamespace(schedule=final)

    def zero_waste_schedule(self, G, M, **kw):
        self._phase()
        self.calls.append(("zero_waste_schedule", dict(kw)))
        return self.zero_schedule

    def certified_window_bound(self, G, M, **kw):
        self._phase()
        self.calls.append(("certified", dict(kw)))
        return self.certified

    def zero_waste_exists(self, G, M, **kw):
        self._phase()
        self.calls.append(("exists", dict(kw)))
        return self.exists

    def solve(self, G, M, **kw):  # the engine slot (attnio.graphs.engines.solve)
        self._phase()
        self.calls.append(("exact", {k: v for k, v in kw.items()
                                     if k not in ("on_lower_bound", "method")}))
        bound, result = self.exact.pop(0)
        if bound is not None:
            kw["on_lower_bound"](bound)
        return result


@pytest.mark.trust
def test_every_phase_gets_its_share_of_the_limit_and_undecided_keeps_the_bracket(
        monkeypatch, fake_clock) -> None:
    # a clock that advances 1 s per read: every budget below is exact
    clock = fake_clock(anytime_module)
    script = _Script(monkeypatch,
                     heuristic=[([_costing(9)], _costing(8)), ([], _costing(7))],
                     certified=None, exists=None,
                     exact=[(5, PebbleResult.undecided(5, 8, "probe", states_explored=11)),
                            (None, PebbleResult.undecided(5, 7, "out of time",
                                                          states_explored=13))])
    progress = AnytimeProgress()
    script.progress = progress
    r = anytime_pebble(CROSS, 3, outputs=["z"], time_limit=100, seed=7, heuristic_share=0.4,
                       progress=progress)
    assert script.phases == ["heuristic", "heuristic", "lower bound", "lower bound", "exact",
                             "heuristic", "exact"]
    assert script.calls == [
        ("heuristic", {"outputs": ["z"], "seed": 7, "time_limit": 40.0,
                       "max_evaluations": 2500, "lower_bound": 4}),
        ("zero_waste_schedule", {"outputs": ["z"], "time_limit": 5.0}),
        ("certified", {"outputs": ["z"], "seconds": 10.0}),
        ("exists", {"outputs": ["z"], "time_limit": 10.0}),
        ("exact", {"recompute": True, "outputs": ["z"], "time_limit": 10.0,
                   "incumbent": _costing(8)}),
        ("heuristic", {"outputs": ["z"], "seed": 7, "time_limit": 40.0,
                       "max_evaluations": None, "lower_bound": 5}),
        ("exact", {"recompute": True, "outputs": ["z"], "time_limit": 94.0,
                   "incumbent": _costing(7)}),
    ]
    assert r.verdict == "undecided"
    assert r == PebbleResult.undecided(5, 7, "out of time", states_explored=24, seconds=7.0,
                                       schedule=_costing(7), lower_source="exact search")
    assert (progress.lower_bound, progress.lower_bound_source, progress.phase) == \
        (5, "exact search", "done")
    assert clock.reads == 8


@pytest.mark.trust
def test_phase_budgets_never_pass_the_deadline(monkeypatch, fake_clock) -> None:
    # with a 2 s limit the shares are cut by the deadline (and never below 0)
    fake_clock(anytime_module)
    script = _Script(monkeypatch, heuristic=[([], _costing(8)), ([], _costing(8))],
                     exact=[(None, PebbleResult.undecided(5, 8, "probe", states_explored=1)),
                            (None, PebbleResult.undecided(5, 8, "out of time", states_explored=2))])
    r = anytime_pebble(CROSS, 3, time_limit=2, heuristic_share=1)
    budgets = [(name, kw.get("time_limit", kw.get("seconds"))) for name, kw in script.calls]
    # once the deadline has passed no search phase starts (issue 22: each has a set-up cost
    # of its own even with a budget of 0), only the certified bound; the bracket is the answer
    assert budgets == [("heuristic", 2), ("zero_waste_schedule", 0.1), ("certified", 0.0)]
    assert r.verdict == "undecided" and (r.lower, r.upper) == (4, 8)
    assert r.states_explored == 0 and r.reason == "time limit 2 s reached"


@pytest.mark.trust
def test_no_search_starts_without_time_when_a_schedule_is_known(monkeypatch) -> None:
    # time_limit=0 (the caller spent the limit building the algorithm schedules): the given
    # schedule is the upper bound and only the certified bound runs; without a schedule the
    # quick heuristic runs first
    script = _Script(monkeypatch, heuristic=[([], _costing(8))], certified=(5, 2))
    r = anytime_pebble(CROSS, 3, time_limit=0, incumbents={"given": _costing(9)})
    assert script.calls == [("certified", {"outputs": None, "seconds": 0.0})]
    assert r.verdict == "undecided" and (r.lower, r.upper) == (5, 9)
    assert r.reason == "time limit 0 s reached" and r.schedule == _costing(9)
    r = anytime_pebble(CROSS, 3, time_limit=0)
    assert [name for name, _ in script.calls] == ["certified", "heuristic", "certified"]
    assert r.verdict == "undecided" and (r.lower, r.upper) == (5, 8)


@pytest.mark.trust
def test_a_certified_bound_above_L0_skips_the_zero_waste_proof(monkeypatch) -> None:
    script = _Script(monkeypatch, heuristic=[([], _costing(7)), ([], _costing(7))],
                     certified=(6, 5),
                     exact=[(None, PebbleResult.optimal(6, CROSS_OPTIMAL, states_explored=4))])
    progress = AnytimeProgress()
    r = anytime_pebble(CROSS, 3, time_limit=30, progress=progress)
    assert [name for name, _ in script.calls] == ["heuristic", "zero_waste_schedule",
                                                  "certified", "exact"]
    assert r.verdict == "optimal"
    assert (r.io, r.schedule, r.states_explored) == (6, CROSS_OPTIMAL, 4)
    assert (progress.lower_bound, progress.lower_bound_source) == (6, "spill-windows, U of 5")
    assert (progress.upper_bound, progress.phase) == (6, "done")


@pytest.mark.trust
def test_a_certified_bound_meeting_the_schedule_is_optimal(monkeypatch) -> None:
    script = _Script(monkeypatch, heuristic=[([], _costing(6))], certified=(6, 3))
    progress = AnytimeProgress()
    r = anytime_pebble(CROSS, 3, time_limit=30, progress=progress)
    assert [name for name, _ in script.calls] == ["heuristic", "zero_waste_schedule",
                                                  "certified"]
    assert r.verdict == "optimal" and (r.io, r.states_explored) == (6, 0)
    assert progress.lower_bound_source == "spill-windows, U of 3"


@pytest.mark.trust
def test_only_an_exhausted_zero_waste_search_raises_the_bound(monkeypatch) -> None:
    # False (exhausted): L0 + 1 = 5 meets a schedule of cost 5 -> optimal, no exact search
    H = nx.DiGraph([("0", "1"), ("0", "2"), ("1", "3"), ("1", "4"), ("2", "5"), ("3", "4"),
                    ("3", "5")])
    outputs = ["4", "5", "3"]
    five = solve_optimal(H, 3, outputs=outputs)
    assert five.io == 5 and compulsory_io(H, outputs) == 4
    script = _Script(monkeypatch, heuristic=[([], five.schedule)], exists=False)
    progress = AnytimeProgress()
    r = anytime_pebble(H, 3, outputs=outputs, time_limit=30, progress=progress)
    assert [name for name, _ in script.calls] == ["heuristic", "zero_waste_schedule",
                                                  "certified", "exists"]
    assert r.verdict == "optimal" and r.io == 5
    assert (progress.lower_bound, progress.lower_bound_source) == \
        (5, "zero-waste search exhausted")
    # True or None: no bound beyond L0, and the exact search decides
    for answer in (True, None):
        script = _Script(monkeypatch, heuristic=[([], five.schedule)], exists=answer,
                         exact=[(4, PebbleResult.optimal(5, five.schedule, states_explored=2))])
        progress = AnytimeProgress()
        r = anytime_pebble(H, 3, outputs=outputs, time_limit=30, progress=progress)
        assert [name for name, _ in script.calls][-1] == "exact"
        assert r.verdict == "optimal" and (r.io, r.states_explored) == (5, 2)
        assert progress.lower_bound_source == "exact search"


@pytest.mark.trust
def test_a_zero_waste_schedule_closes_the_bracket(monkeypatch) -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    costly = [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c"), ("delete", "c"),
              ("read", "c"), ("compute", "d"), ("write", "d")]
    zero = [("read", "a"), ("read", "b"), ("compute", "c"), ("compute", "d"), ("write", "d")]
    script = _Script(monkeypatch, heuristic=[([], costly)], zero_schedule=zero)
    r = anytime_pebble(G, 4, time_limit=30)
    assert [name for name, _ in script.calls] == ["heuristic", "zero_waste_schedule"]
    assert r.verdict == "optimal" and (r.io, r.schedule) == (3, zero)


@pytest.mark.trust
def test_the_probe_can_close_the_bracket_by_its_lower_bound(monkeypatch) -> None:
    # the probe runs out but proves 7 = the schedule's cost: optimal, no second search
    script = _Script(monkeypatch, heuristic=[([], _costing(7))],
                     exact=[(None, PebbleResult.undecided(7, 7, "probe", states_explored=5))])
    progress = AnytimeProgress()
    r = anytime_pebble(CROSS, 3, time_limit=30, progress=progress)
    assert [name for name, _ in script.calls][-1] == "exact"
    assert r.verdict == "optimal" and (r.io, r.schedule) == (7, _costing(7))
    assert (progress.lower_bound, progress.upper_bound) == (7, 7)
    # the long heuristic meeting the probe's bound closes it too
    script = _Script(monkeypatch, heuristic=[([], _costing(8)), ([], _costing(7))],
                     exact=[(None, PebbleResult.undecided(7, 8, "probe", states_explored=5))])
    r = anytime_pebble(CROSS, 3, time_limit=30)
    assert [name for name, _ in script.calls][-2:] == ["exact", "heuristic"]
    assert r.verdict == "optimal" and r.io == 7
    # and the final search's bound meeting the schedule
    script = _Script(monkeypatch, heuristic=[([], _costing(8)), ([], _costing(8))],
                     exact=[(None, PebbleResult.undecided(6, 8, "probe", states_explored=5)),
                            (None, PebbleResult.undecided(8, 8, "late", states_explored=5))])
    r = anytime_pebble(CROSS, 3, time_limit=30)
    assert r.verdict == "optimal" and r.io == 8


@pytest.mark.trust
def test_a_lying_improvement_is_replayed_not_believed(monkeypatch) -> None:
    # the fake heuristic reports every improvement at cost 1: the bracket uses the replay
    script = _Script(monkeypatch, heuristic=[([_costing(7)], _costing(9)), ([], _costing(9))],
                     exact=[(None, _undecided(4, None)), (None, _undecided(4, None))])
    progress = AnytimeProgress()
    r = anytime_pebble(CROSS, 3, time_limit=30, progress=progress)
    assert r.verdict == "undecided" and (r.lower, r.upper) == (4, 7)
    assert replay(CROSS, r.schedule, 3).io == 7 and len(script.calls) == 7


@pytest.mark.trust
def test_bad_arguments_are_named_and_infeasible_is_worded_by_the_exact_search() -> None:
    with pytest.raises(InvalidInputError) as info:
        anytime_pebble(CROSS, 3, time_limit=None)  # type: ignore[arg-type]
    assert str(info.value) == "time_limit=None: anytime_pebble needs a finite time limit"
    for share in (True, -0.1, 1.5, "0.5", float("nan")):
        with pytest.raises(InvalidInputError) as info:
            anytime_pebble(CROSS, 3, heuristic_share=share)
        assert str(info.value) == f"heuristic_share={share!r} must be in [0, 1]"
    with pytest.raises(InvalidInputError, match="M=0 must be a positive integer"):
        anytime_pebble(CROSS, 0)
    with pytest.raises(InvalidInputError, match="time_limit=-1 must be"):
        anytime_pebble(CROSS, 3, time_limit=-1)
    r = anytime_pebble(CROSS, 2)
    assert r == PebbleResult.infeasible(
        "M=2 is below the 3 red pebbles vertex 'x' needs (in-degree 2 + 1)")
    for share in (0, 1, 0.0):                       # the ends of [0, 1] are allowed
        assert anytime_pebble(CROSS, 3, heuristic_share=share, time_limit=30).io == 6


# legal with recomputation only (z is computed twice), cost 6
RECOMPUTING = CROSS_OPTIMAL + [("delete", "z"), ("compute", "z")]
# complete for the outputs ["x"] only, cost 3 = their compulsory I/O (read a, b; write x)
X_ONLY = [("read", "a"), ("read", "b"), ("compute", "x"), ("write", "x")]


def _one_source(monkeypatch, where: str, moves):
    """A script in which ``moves`` arrives from one place: an incumbent, an improvement
    reported by the heuristic, the heuristic's result or the zero-waste search."""
    script = _Script(monkeypatch,
                     heuristic=[([moves] if where == "improvement" else [],
                                 moves if where == "heuristic" else _costing(9)),
                                ([], _costing(9))],
                     zero_schedule=moves if where == "zero-waste" else None,
                     exact=[(None, _undecided(4, None)), (None, _undecided(4, None))])
    return script, ({"given": moves} if where == "incumbent" else None)


@pytest.mark.trust
@pytest.mark.parametrize("where", ["incumbent", "improvement", "heuristic", "zero-waste"])
def test_every_schedule_is_replayed_in_the_callers_variant(monkeypatch, where) -> None:
    from attnio.exceptions import IllegalMoveError
    _, incumbents = _one_source(monkeypatch, where, RECOMPUTING)
    r = anytime_pebble(CROSS, 3, incumbents=incumbents, time_limit=30)
    assert r.verdict == "undecided" and r.upper == 6
    _, incumbents = _one_source(monkeypatch, where, RECOMPUTING)
    with pytest.raises(IllegalMoveError, match="one-shot"):
        anytime_pebble(CROSS, 3, recompute=False, incumbents=incumbents, time_limit=30)


@pytest.mark.trust
@pytest.mark.parametrize("where", ["incumbent", "improvement", "heuristic", "zero-waste"])
def test_every_schedule_is_replayed_with_the_callers_outputs(monkeypatch, where) -> None:
    from attnio.exceptions import IllegalMoveError
    _, incumbents = _one_source(monkeypatch, where, X_ONLY)
    r = anytime_pebble(CROSS, 3, outputs=["x"], incumbents=incumbents, time_limit=30)
    assert r.verdict == "optimal" and (r.io, r.schedule) == (3, X_ONLY)
    _, incumbents = _one_source(monkeypatch, where, X_ONLY)
    with pytest.raises(IllegalMoveError, match="output 'z'"):
        anytime_pebble(CROSS, 3, incumbents=incumbents, time_limit=30)


@pytest.mark.trust
def test_defaults_are_sixty_seconds_and_seed_zero(monkeypatch) -> None:
    script = _Script(monkeypatch, heuristic=[([], X_ONLY)])
    r = anytime_pebble(CROSS, 3, outputs=["x"])
    assert r.verdict == "optimal" and r.io == 3
    assert script.calls == [("heuristic", {"outputs": ["x"], "seed": 0, "time_limit": 30.0,
                                           "max_evaluations": 2500, "lower_bound": 3})]


@pytest.mark.trust
def test_an_optimal_answer_reports_the_seconds_since_the_start(monkeypatch, fake_clock) -> None:
    # closed by an incumbent: the start and the answer are one clock read apart
    fake_clock(anytime_module, start=50)
    r = anytime_pebble(CROSS, 3, outputs=["x"], incumbents={"given": X_ONLY}, time_limit=30)
    assert r.verdict == "optimal" and r.seconds == 1.0
    # closed by the exact search: start, zero-waste, certified, probe and answer: 4 reads apart
    _Script(monkeypatch, heuristic=[([], _costing(7))], certified=(5, 3),
            exact=[(None, PebbleResult.optimal(6, CROSS_OPTIMAL, states_explored=4))])
    fake_clock(anytime_module, start=50)
    r = anytime_pebble(CROSS, 3, time_limit=30)
    assert r.verdict == "optimal" and (r.io, r.seconds, r.states_explored) == (6, 4.0, 4)


@pytest.mark.trust
def test_an_infeasible_answer_of_the_search_is_passed_on(monkeypatch) -> None:
    verdict = PebbleResult.infeasible("no schedule")
    _Script(monkeypatch, heuristic=[([], _costing(7))], exact=[(None, verdict)])
    assert anytime_pebble(CROSS, 3, time_limit=30) is verdict


@pytest.mark.trust
def test_the_cache_size_needed_is_that_of_the_named_outputs() -> None:
    # q needs 4 red pebbles, p only 2: with outputs ["p"], M = 2 is feasible
    H = nx.DiGraph([("a", "p"), ("a", "q"), ("b", "q"), ("c", "q")])
    assert anytime_pebble(H, 1, outputs=["p"]) == PebbleResult.infeasible(
        "M=1 is below the 2 red pebbles vertex 'p' needs (in-degree 1 + 1)")
    r = anytime_pebble(H, 2, outputs=["p"], time_limit=30)
    assert r.verdict == "optimal" and r.io == 2
    assert anytime_pebble(H, 3) == PebbleResult.infeasible(
        "M=3 is below the 4 red pebbles vertex 'q' needs (in-degree 3 + 1)")


@pytest.mark.trust
def test_the_deadline_cuts_the_zero_waste_share(monkeypatch, fake_clock) -> None:
    # a 1 s limit and 1 s per clock read: the zero-waste search would start at the deadline,
    # with a budget of 0, so it (and every later search) does not start; the certified
    # bound runs with 0 s
    fake_clock(anytime_module)
    script = _Script(monkeypatch, heuristic=[([], _costing(8)), ([], _costing(8))],
                     exact=[(None, _undecided(5, 8)), (None, _undecided(5, 8))])
    r = anytime_pebble(CROSS, 3, time_limit=1, heuristic_share=0.5)
    budgets = [kw.get("time_limit", kw.get("seconds")) for _, kw in script.calls]
    assert budgets == [0.5, 0.0]
    assert [name for name, _ in script.calls] == ["heuristic", "certified"]
    assert r.verdict == "undecided" and r.reason == "time limit 1 s reached"


@pytest.mark.trust
def test_a_caller_bound_starts_the_bracket_and_closes_it_when_a_schedule_meets_it() -> None:
    # issue 27: the bracket's lower end is the best bound computed for the instance. The
    # diamond's optimum is 3 (compulsory); a caller's proven 3 changes nothing, and a bound
    # named by the caller is reported as the source when it is the largest
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")])
    r = anytime_pebble(G, 3, time_limit=5, lower_bounds={"certified demo": 3})
    assert (r.verdict, r.io) == ("optimal", 3)
    # the 2x2x2 matmul at M = 3 (optimum 25): a caller's bound equal to the optimum closes the
    # bracket as soon as a schedule costs 25, and names its source
    r = anytime_pebble(matmul_dag(2, 2, 2), 3, time_limit=30, lower_bounds={"given": 25})
    assert (r.verdict, r.io, r.lower_source) == ("optimal", 25, "given")
    # with no time for any search the bracket's lower end is still the caller's bound
    r = anytime_pebble(matmul_dag(2, 2, 2), 3, time_limit=0, lower_bounds={"given": 22})
    assert r.verdict == "undecided" and (r.lower, r.lower_source) == (22, "given")


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_a_caller_bound_that_is_not_a_count_is_refused(bad) -> None:
    with pytest.raises(InvalidInputError, match="lower_bounds"):
        anytime_pebble(matmul_dag(1, 2, 1), 3, time_limit=1, lower_bounds={"bad": bad})
