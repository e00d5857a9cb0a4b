"""Benchmark: exact optimal pebbling at every cache size — compiled core, reference, plain.

For each instance and cache size M (from the least feasible, max in-degree + 1, upward until
the optimum meets the trivial bound |inputs| + |outputs|, after which Q cannot change: it is
non-increasing in M and never below that bound), prints

* the compiled core (:func:`attnio.graphs.exact_compiled.solve_optimal_compiled`, incumbent =
  the best replayed algorithm schedule): Q(G, M), or the proven bracket [lower, upper] when
  its budget ran out, states expanded, states stored, bytes per stored state (arrays full),
  seconds;
* optionally the reference search (:func:`attnio.graphs.exact.solve_optimal`, same
  incumbent) and the plain baseline (:func:`attnio.graphs.baseline.plain_optimal`: 0-1 BFS
  over (red, blue) bitmasks, h = outputs not blue, no other reduction), on the same instance
  in the same process, side by side, each with its own budget, and the speed-up
  plain seconds ÷ compiled seconds where both finish;
* the best algorithm schedule's cost, and (``--heuristic-budget S``, default 10) the cost of
  :func:`attnio.graphs.heuristic_schedule.heuristic_schedule` (seed 0, S seconds, stopping
  early at |inputs| + |outputs|) with its seconds; the cheaper of the two replayed schedules
  is the compiled core's incumbent, and its seconds come out of the row's ``--budget`` (the
  compiled core gets the rest), so a row never takes longer than its budget.

    python3 benchmarks/bench_pebble.py [--budget S] [--plain-budget S] [--reference-budget S]
        [--instances a,b,...] [--max-states N] [--plain-states N] [--max-m M]
        [--heuristic-budget S]

Instances: matmul222, matmul322, matmul332chain, forward21, forward22, backward (qkv),
backward-dx. A disagreement between two methods that both finish stops the run (exit 1).
Every Optimal's schedule is replayed by the validator. Not a timed test: the figures go to
notes/pebbling.md (states are machine-independent, seconds are not).
"""

from __future__ import annotations

import argparse
import sys
import time

import networkx as nx

from attnio.graphs import exact_compiled
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.heuristic_schedule import heuristic_schedule
from attnio.graphs.schedules import algorithm_schedules
from attnio.results import Status

INSTANCES = {
    "matmul222": ("matmul 2x2x2", lambda: matmul_dag(2, 2, 2)),
    "matmul322": ("matmul 3x2x2", lambda: matmul_dag(3, 2, 2)),
    "matmul332chain": ("matmul 3x3x2 chain", lambda: matmul_dag(3, 3, 2, "chain")),
    "forward21": ("attn-forward n=2,d=1", lambda: attention_forward_dag(2, 1)),
    "forward22": ("attn-forward n=2,d=2", lambda: attention_forward_dag(2, 2)),
    "backward": ("attn-backward qkv n=2,d=1", lambda: attention_backward_dag(2, 1, "qkv")),
    "backward-dx": ("attn-backward dX n=2,d=1", lambda: attention_backward_dag(2, 1, "dX")),
}


def _fmt(result) -> tuple[str, str, str]:
    if result is None:
        return "-", "-", "-"
    if result.verdict is Status.OPTIMAL:
        return str(result.io), str(result.states_explored), f"{result.seconds:.2f}"
    upper = result.upper if result.upper is not None else "?"
    return (f"[{result.lower},{upper}]", f"{result.states_explored}+",
            f">{result.seconds:.0f}")


def _check(G: nx.DiGraph, M: int, result) -> None:
    if result is None or result.verdict is not Status.OPTIMAL:
        return
    if replay(G, result.schedule, M).io != result.io:
        raise SystemExit(f"schedule does not replay to {result.io}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=600.0,
                        help="seconds per row for the compiled core")
    parser.add_argument("--reference-budget", type=float, default=0.0,
                        help="seconds per row for the reference search (0: not run)")
    parser.add_argument("--plain-budget", type=float, default=0.0,
                        help="seconds per row for the plain baseline (0: not run)")
    parser.add_argument("--plain-states", type=int, default=16_000_000)
    parser.add_argument("--max-states", type=int, default=200_000_000,
                        help="states the compiled core may store (~61 bytes each)")
    parser.add_argument("--instances", default=",".join(INSTANCES))
    parser.add_argument("--max-m", type=int, default=None, help="stop each sweep after this M")
    parser.add_argument("--min-m", type=int, default=None, help="start each sweep at this M")
    parser.add_argument("--heuristic-budget", type=float, default=10.0,
                        help="seconds per row (out of --budget) for the heuristic schedule "
                             "that joins the incumbent (0: algorithm schedules only)")
    args = parser.parse_args(argv)
    chosen = args.instances.split(",")
    unknown = set(chosen) - set(INSTANCES)
    if unknown:
        parser.error(f"unknown instance(s) {sorted(unknown)}")
    if not exact_compiled.compiled_available():
        print("numba is not installed (pip install attnio[fast]): the compiled core falls "
              "back to the reference search", file=sys.stderr)
    print(f"kernel ready in {exact_compiled.warm_up():.1f} s (compile or disk cache)",
          file=sys.stderr)
    print(f"{'instance':<26} {'|V|':>3} {'M':>3} | {'Q(G,M)':>9} {'expanded':>9} "
          f"{'stored':>10} {'B/st':>4} {'seconds':>8} | {'ref.':>9} {'ref. s':>8} | "
          f"{'plain':>9} {'plain st.':>10} {'plain s':>8} {'ratio':>7} | {'alg.':>4} "
          f"{'heur.':>5} {'heur. s':>7}")
    started = time.monotonic()
    for key in chosen:
        name, build = INSTANCES[key]
        G = build()
        trivial = len(G.graph["inputs"]) + len(G.graph["outputs"])
        M = max(min_cache_size(G), args.min_m or 0)
        while args.max_m is None or M <= args.max_m:
            schedules = algorithm_schedules(G, M)
            costs = {k: replay(G, v, M).io for k, v in schedules.items()}
            best = min(costs, key=costs.__getitem__) if costs else None
            incumbent = schedules[best] if best else None
            heur_io, heur_sec = "-", 0.0
            if args.heuristic_budget > 0:
                t0 = time.monotonic()
                heur = heuristic_schedule(G, M, seed=0, time_limit=args.heuristic_budget,
                                          lower_bound=trivial)
                heur_sec = time.monotonic() - t0
                heur_io = replay(G, heur.schedule, M).io
                if best is None or heur_io < costs[best]:
                    incumbent = heur.schedule
            comp = exact_compiled.solve_optimal_compiled(
                G, M, incumbent=incumbent, time_limit=max(args.budget - heur_sec, 1.0),
                max_states=args.max_states)
            run = dict(exact_compiled.LAST_RUN)
            _check(G, M, comp)
            ref = (solve_optimal(G, M, incumbent=incumbent, time_limit=args.reference_budget,
                                 max_states=30_000_000, progress=False)
                   if args.reference_budget > 0 else None)
            plain = (plain_optimal(G, M, time_limit=args.plain_budget,
                                   max_states=args.plain_states)
                     if args.plain_budget > 0 else None)
            for other in (ref, plain):
                _check(G, M, other)
                if comp.verdict is Status.OPTIMAL and other is not None \
                        and other.verdict is Status.OPTIMAL \
                        and other.io != comp.io:
                    print(f"DISAGREEMENT on {name} M={M}: {comp.io} vs {other.io}")
                    return 1
            c_io, c_exp, c_sec = _fmt(comp)
            r_io, _, r_sec = _fmt(ref)
            p_io, p_states, p_sec = _fmt(plain)
            ratio = ""
            if comp.verdict is Status.OPTIMAL and plain is not None \
                    and plain.verdict is Status.OPTIMAL:
                ratio = f"{plain.seconds / max(comp.seconds, 1e-3):.0f}x"
            stored = run.get("stored_states", "-")
            per = run.get("bytes_per_state", "-")
            per = f"{per:.0f}" if isinstance(per, float) else per
            print(f"{name:<26} {G.number_of_nodes():>3} {M:>3} | {c_io:>9} {c_exp:>9} "
                  f"{stored:>10} {per:>4} {c_sec:>8} | {r_io:>9} {r_sec:>8} | {p_io:>9} "
                  f"{p_states:>10} {p_sec:>8} {ratio:>7} | {costs.get(best, '-'):>4} "
                  f"{heur_io:>5} {heur_sec:>7.1f}",
                  flush=True)
            if comp.verdict is Status.OPTIMAL and comp.io == trivial:
                print(f"{'':<26} Q = |inputs| + |outputs| = {trivial} for every larger M",
                      flush=True)
                break
            M += 1
    print(f"total {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
