"""Benchmark: exact optimal pebbling (attnio.graphs.exact) against the plain baseline.

For each instance and cache size M, prints: vertices, M, optimal I/O, states explored and
seconds of ``solve_optimal`` (reductions R0–R7, A* heuristic), and the same for
``plain_optimal`` (0-1 BFS over (red, blue) bitmasks, heuristic "outputs not yet blue", no
other reduction), run on the same instance in the same process, each with its own budget.

    python3 benchmarks/bench_pebble.py [--fast-budget S] [--plain-budget S] [--quick]
        [--instances matmul222,matmul322,forward,backward] [--max-m M]

M runs from the least feasible cache size (max in-degree + 1) upward until the optimum meets
the trivial bound |inputs| + |outputs| (every input read once, every output written once),
after which it cannot change (Q is non-increasing in M). Attention backward runs from a large
M downward until the budget runs out. Not a timed test: figures go to notes/pebbling.md.
"""

from __future__ import annotations

import argparse
import sys
import time

import networkx as nx

from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.exact import Optimal, min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.schedules import algorithm_schedules


def _fmt(result) -> tuple[str, str, str]:
    if isinstance(result, Optimal):
        return str(result.io), str(result.states_explored), f"{result.seconds:.2f}"
    if result is None:
        return "-", "-", "-"
    upper = result.upper_bound if result.upper_bound is not None else "?"
    return (f"[{result.lower_bound},{upper}]",
            f"{result.states_explored}+", f">{result.seconds:.0f}")


def _row(name: str, G: nx.DiGraph, M: int, fast_budget: float, plain_budget: float,
         run_plain: bool, plain_states: int = 8_000_000) -> tuple[object, object]:
    schedules = algorithm_schedules(G, M)
    costs = {k: replay(G, v, M).io for k, v in schedules.items()}
    best = min(costs, key=costs.__getitem__)
    upper = costs[best]
    fast = solve_optimal(G, M, time_limit=fast_budget, max_states=30_000_000,
                         incumbent=schedules[best])
    plain = (plain_optimal(G, M, time_limit=plain_budget, max_states=plain_states)
             if run_plain else None)
    if isinstance(fast, Optimal) and isinstance(plain, Optimal) and fast.io != plain.io:
        raise SystemExit(f"DISAGREEMENT on {name} M={M}: {fast.io} vs {plain.io}")
    f_io, f_states, f_sec = _fmt(fast)
    p_io, p_states, p_sec = _fmt(plain)
    speed = ""
    if isinstance(fast, Optimal) and isinstance(plain, Optimal):
        speed = f"{plain.seconds / max(fast.seconds, 1e-3):.0f}x"
    print(f"{name:<26} {G.number_of_nodes():>4} {M:>3} {f_io:>9} {f_states:>9} {f_sec:>8} | "
          f"{p_io:>9} {p_states:>10} {p_sec:>8} {speed:>7} | {upper:>5}", flush=True)
    return fast, plain


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast-budget", type=float, default=900.0)
    parser.add_argument("--plain-budget", type=float, default=120.0)
    parser.add_argument("--backward-budget", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="small budgets (smoke run)")
    parser.add_argument("--instances", default="matmul222,matmul322,forward,backward",
                        help="comma-separated subset of matmul222, matmul322, forward, backward")
    parser.add_argument("--plain-states", type=int, default=8_000_000,
                        help="state budget of the plain baseline (~350 bytes a state)")
    parser.add_argument("--max-m", type=int, default=None,
                        help="stop each forward sweep after this M (e.g. 3: the hardest rows)")
    args = parser.parse_args(argv)
    chosen = set(args.instances.split(","))
    unknown = chosen - {"matmul222", "matmul322", "forward", "backward"}
    if unknown:
        parser.error(f"unknown instance(s) {sorted(unknown)}")
    if args.quick:
        args.fast_budget, args.plain_budget, args.backward_budget = 20.0, 5.0, 5.0
    print(f"{'instance':<26} {'|V|':>4} {'M':>3} {'Q(G,M)':>9} {'states':>9} {'seconds':>8} | "
          f"{'plain Q':>9} {'plain st.':>10} {'plain s':>8} {'ratio':>7} | {'alg.':>5}")
    started = time.monotonic()
    for key, name, G in (("matmul222", "matmul 2x2x2", matmul_dag(2, 2, 2)),
                         ("matmul322", "matmul 3x2x2", matmul_dag(3, 2, 2)),
                         ("forward", "attention-forward n=2,d=1", attention_forward_dag(2, 1))):
        if key not in chosen:
            continue
        trivial = len(G.graph["inputs"]) + len(G.graph["outputs"])
        M = min_cache_size(G)
        plain_gave_up = False
        while True:
            fast, plain = _row(name, G, M, args.fast_budget, args.plain_budget,
                               run_plain=True, plain_states=args.plain_states)
            plain_gave_up = plain_gave_up or not isinstance(plain, Optimal)
            if isinstance(fast, Optimal) and fast.io == trivial:
                print(f"{'':<26} Q = |inputs| + |outputs| = {trivial} for every larger M")
                break
            if args.max_m is not None and M >= args.max_m:
                break
            M += 1
    if "backward" not in chosen:
        print(f"total {time.monotonic() - started:.0f} s", file=sys.stderr)
        return 0
    G = attention_backward_dag(2, 1)
    trivial = len(G.graph["inputs"]) + len(G.graph["outputs"])
    for M in range(24, min_cache_size(G) - 1, -1):
        fast, _ = _row("attention-backward n=2,d=1", G, M, args.backward_budget,
                       min(args.plain_budget, 30.0), run_plain=M >= 20)
        if not isinstance(fast, Optimal):
            print(f"{'':<26} budget {args.backward_budget:.0f} s exhausted at M={M}; "
                  f"smaller M not attempted (trivial bound {trivial})")
            break
    print(f"total {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
