"""Tests of attnio.graphs.exact_compiled: the compiled core against the reference search and
the plain baseline, its certificate, budgets, memory layout and Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import networkx as nx
import numpy as np
import pytest

from attnio.graphs import exact_compiled as ec
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.schedules import algorithm_schedules

pytestmark = pytest.mark.extra("fast")  # numba: skipped without it, failed in CI


@pytest.fixture(scope="module", autouse=True)
def compiled_kernel() -> None:
    ec.warm_up()  # compile or load the cached kernel once (not part of any time limit)


def random_outputs(G: nx.DiGraph, seed: int) -> list[str]:
    """Each non-input vertex an output with probability 0.6: outputs are often not sinks."""
    rng = np.random.default_rng(seed)
    candidates = [v for v in sorted(G) if G.in_degree(v) > 0]
    return [v for v in candidates if rng.random() < 0.6] or candidates[-1:]


def test_agrees_with_reference_and_plain_baseline_on_random_dags() -> None:
    # 56 instances: dense DAGs, sinks or named outputs that are not sinks (where the
    # space-pair write guard matters), least M and one more, both variants
    checked = non_sink = 0
    for seed in range(7):
        for named in (False, True):
            G = random_dag(6 + seed % 3, 0.7, seed=100 + seed)
            outputs = random_outputs(G, seed) if named else None
            non_sink += named and any(G.out_degree(o) > 0 for o in outputs)
            lo = min_cache_size(G, outputs)
            for M in (lo, lo + 1):
                for recompute in (True, False):
                    fast = ec.solve_optimal_compiled(G, M, recompute=recompute, outputs=outputs,
                                                     time_limit=None)
                    ref = solve_optimal(G, M, recompute=recompute, outputs=outputs)
                    plain = plain_optimal(G, M, recompute=recompute, outputs=outputs)
                    assert fast.verdict == "optimal"
                    assert fast.io == ref.io == plain.io, (seed, named, M, recompute)
                    assert type(fast.io) is int
                    assert replay(G, fast.schedule, M, recompute=recompute,
                                  outputs=outputs).io == fast.io
                    checked += 1
    assert checked == 56 and non_sink >= 4


def test_pinned_non_sink_outputs() -> None:
    # the instance the dropped space-pair guard gets wrong in the reference search (Q = 5)
    G = nx.DiGraph([("v0", "v1"), ("v0", "v2"), ("v0", "v3"), ("v1", "v4"), ("v2", "v3"),
                    ("v2", "v4"), ("v3", "v5"), ("v4", "v5")])
    outputs = ["v2", "v3", "v5"]
    assert ec.solve_optimal_compiled(G, 3, outputs=outputs, time_limit=None).io == 5


@pytest.mark.parametrize("M,expected", [(3, 25), (4, 17), (7, 12)])
def test_matmul_2x2x2_with_symmetry(M: int, expected: int) -> None:
    G = matmul_dag(2, 2, 2)
    r = ec.solve_optimal_compiled(G, M, time_limit=None)
    assert r.verdict == "optimal" and r.io == expected
    assert replay(G, r.schedule, M).io == expected
    plain = ec.solve_optimal_compiled(G, M, time_limit=None, symmetry=False,
                                      partial_expansion=False)
    assert plain.io == expected


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_attention_forward_with_an_incumbent() -> None:
    G = attention_forward_dag(2, 1)
    schedules = algorithm_schedules(G, 4)
    best = min(schedules.values(), key=lambda s: replay(G, s, 4).io)
    r = ec.solve_optimal_compiled(G, 4, incumbent=best, time_limit=None)
    assert r.verdict == "optimal" and r.io == 15 == replay(G, r.schedule, 4).io


def test_certificate_is_replayed_and_a_lying_replay_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # planted twin of the internal check: a validator that disagrees by one must stop it
    real = ec.replay

    def off_by_one(*args, **kwargs):
        result = real(*args, **kwargs)
        return type(result)(reads=result.reads + 1, writes=result.writes,
                            computes=result.computes, peak_red=result.peak_red)

    monkeypatch.setattr(ec, "replay", off_by_one)
    with pytest.raises(RuntimeError, match="solver bug"):
        ec.solve_optimal_compiled(matmul_dag(1, 2, 1), 3, time_limit=None)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_time_limit_gives_undecided_with_a_valid_bracket() -> None:
    G = attention_backward_dag(2, 1)
    schedules = algorithm_schedules(G, 10)
    best = min(schedules.values(), key=lambda s: replay(G, s, 10).io)
    started = time.process_time()        # CPU seconds: load elsewhere does not inflate them
    r = ec.solve_optimal_compiled(G, 10, incumbent=best, time_limit=2.0)
    assert time.process_time() - started < 2.0 * 1.1 + 1
    assert r.verdict == "undecided" and r.reason.startswith("time limit")
    # Q(G, 10) >= Q(G, 11) = 15 (notes/pebbling.md) and <= the incumbent
    assert r.lower <= 28 and r.upper == replay(G, best, 10).io


def test_state_budget_gives_undecided() -> None:
    r = ec.solve_optimal_compiled(matmul_dag(3, 2, 2), 3, max_states=500, time_limit=None)
    assert r.verdict == "undecided" and "state budget" in r.reason
    assert r.lower <= 37


def test_large_dag_falls_back_to_the_reference_search() -> None:
    G = matmul_dag(4, 4, 2)  # more than 64 relevant vertices
    r = ec.solve_optimal_compiled(G, 40, time_limit=1)
    assert ec.LAST_RUN["engine"] == "reference"
    assert r.verdict in ("optimal", "undecided")


def test_stored_state_costs_at_most_64_bytes() -> None:
    ec.solve_optimal_compiled(matmul_dag(2, 2, 2), 3, time_limit=None)
    assert ec.LAST_RUN["engine"] == "compiled"
    assert ec.LAST_RUN["bytes_per_state"] <= 64


def _cpu_seconds(pid: int) -> float:
    """User + sys CPU seconds process ``pid`` has used so far (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_interrupt_reaches_a_long_compiled_search_within_a_second(wait_for_cpu_seconds) -> None:
    # the kernel runs in chunks of ~0.05 s, so KeyboardInterrupt gets through between them.
    # Measured in the child's CPU seconds, not wall time (a busy machine stretches wall time,
    # not work): the search must stop within 1 s of its own work after the signal. The child
    # reports its CPU time when it caught it. The interpreter's own exit afterwards (numba
    # loaded: ~1.5 s here) is not the search's: the command line ends the process at once
    # (attnio.interrupts).
    # the child restores Python's Ctrl-C handler: a shell that starts the tests in the
    # background (`pytest &`) hands its children SIGINT ignored, and the search would run on
    code = ("import signal, time\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from attnio.graphs.exact_compiled import solve_optimal_compiled, warm_up\n"
            "from attnio.graphs.dags import attention_backward_dag\n"
            "warm_up()\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    solve_optimal_compiled(attention_backward_dag(2, 1), 9, time_limit=None)\n"
            "except KeyboardInterrupt:\n"
            "    print('caught', time.process_time(), flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        # inside the search: 1.5 s of the child's work after "ready" (hang guard: 300 s)
        wait_for_cpu_seconds(proc.pid, _cpu_seconds(proc.pid) + 1.5)
        assert proc.poll() is None
        sent = _cpu_seconds(proc.pid)
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)      # never a hang: fails after 5 minutes
    finally:
        if proc.poll() is None:
            proc.kill()
    line = out.split()
    assert line and line[0] == "caught", err
    assert float(line[1]) - sent < 1.0


@pytest.mark.slow
def test_agrees_with_the_reference_on_many_random_dags() -> None:
    # slow tier: 720 more instances (benchmarks/agree_pebble.py runs 5 760 with the plain
    # baseline as well)
    checked = 0
    for seed in range(30):
        for n in (6, 7, 8):
            for named in (False, True):
                G = random_dag(n, 0.6, seed=200 + seed)
                outputs = random_outputs(G, seed) if named else None
                lo = min_cache_size(G, outputs)
                for M in range(lo, lo + 2):
                    for recompute in (True, False):
                        fast = ec.solve_optimal_compiled(G, M, recompute=recompute,
                                                         outputs=outputs, time_limit=None)
                        ref = solve_optimal(G, M, recompute=recompute, outputs=outputs)
                        assert fast.io == ref.io, (seed, n, named, M, recompute)
                        assert replay(G, fast.schedule, M, recompute=recompute,
                                      outputs=outputs).io == fast.io
                        checked += 1
    assert checked == 720


def test_finished_outputs_rule_and_its_planted_twin_in_the_kernel(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (R10) in the kernel: the rule keeps the optimum (5, one-shot, M = 3); its planted false
    # twin (every red output without blue evicted first) answers 6 — the plain baseline
    # says 5, so an agreement check catches it
    from attnio.graphs.exact_moves import MacroMoves

    G = nx.DiGraph([("v0", "v1"), ("v0", "v2"), ("v0", "v3"), ("v1", "v2"), ("v1", "v4"),
                    ("v3", "v4")])
    outputs = ["v1", "v2", "v3", "v4"]
    plain = plain_optimal(G, 3, recompute=False, outputs=outputs).io
    good = ec.solve_optimal_compiled(G, 3, recompute=False, outputs=outputs, time_limit=None)
    assert ec.LAST_RUN["engine"] == "compiled" and good.io == plain == 5
    monkeypatch.setattr(MacroMoves, "_finished_twin", True)  # the certificate's moves, same twin
    twin = ec.solve_optimal_compiled(G, 3, recompute=False, outputs=outputs, time_limit=None,
                                     _finished_twin=True)
    assert ec.LAST_RUN["engine"] == "compiled" and twin.io == 6


def test_memo_of_h_returns_exactly_h_even_when_rows_collide() -> None:
    # exact_kernel.cached_heuristic against exact_kernel.heuristic on random states of the
    # attention forward DAG, with a 2-row memo (constant collisions); planted twin: a row
    # whose stored h is off by one is returned as is (the comparison here would catch it)
    from attnio.graphs import exact_kernel as K
    from attnio.graphs.exact import PebbleSearch
    from attnio.graphs.indexed_dag import IndexedDAG

    G = attention_forward_dag(2, 1)
    inst = IndexedDAG(G, None)
    M = 4
    search = PebbleSearch(inst, M, True)
    u = np.uint64
    pred = np.array(inst.pred, dtype=np.uint64)
    args = (pred, inst.n, u(inst.inp), u(inst.out), u(search.tight), M, True)
    scratch = np.zeros(4 * 4096, np.uint64)
    tmask = np.zeros(inst.n, np.uint64)
    timp = np.zeros(inst.n, np.bool_)
    memo = np.zeros((2, 4), np.uint64)
    rng = np.random.default_rng(0)
    states = []
    for _ in range(300):
        red = rng.choice(inst.n, size=M, replace=False)
        R = sum(1 << int(i) for i in red)
        B = inst.inp | sum(1 << int(i) for i in range(inst.n) if rng.random() < 0.3)
        states.append((u(R), u(B), u(0)))
    for R, B, C in states + states:
        plain = K.heuristic(*args, R, B, C, scratch, tmask, timp)
        assert K.cached_heuristic(*args, R, B, C, scratch, tmask, timp, memo) == plain
    R, B, C = states[-1]
    s = int(K.slot_of(R, B, C, u(memo.shape[0] - 1)))
    assert memo[s, 0] == R and memo[s, 1] == B
    memo[s, 3] += u(1)  # planted: a wrong value under the right key
    assert (K.cached_heuristic(*args, R, B, C, scratch, tmask, timp, memo)
            != K.heuristic(*args, R, B, C, scratch, tmask, timp))


def test_a_huge_cache_is_clamped_before_the_kernel() -> None:
    """M = 10**40 overflowed the kernel's int64 (a traceback from `attnio lower-bound` once the
    sub-DAG routes solved through the slot); more red pebbles than relevant vertices never
    help, so the answer is the one at M = n + 1: the compulsory I/O of matmul 2x2x2."""
    from attnio.graphs.exact_compiled import solve_optimal_compiled

    got = solve_optimal_compiled(matmul_dag(2, 2, 2), 10**40, time_limit=60)
    assert got.verdict == "optimal" and got.io == 12
