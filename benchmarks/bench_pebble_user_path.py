"""Benchmark: ``attnio pebble`` as a user runs it — the bracket, the time limit, the speed
against the plain baseline (issue 27). Prints figures; not a timed test.

1. **Early-stopped runs.** Each instance (random DAGs of 14–24 vertices at two cache sizes,
   the attention DAGs of n = 2, d = 1 and the 3×2×2 matmul) runs as a user types it,
   ``attnio pebble --dag FILE --M M --time-limit T --json`` in a fresh process, for T = 1 and
   3 s. Per run it checks

   * the bracket's lower end is at least every bound the same JSON prints (the certified
     routes' ``certified_lower_bound``) and at most the upper end;
   * the schedule replays (:func:`attnio.graphs.game.replay`) to exactly ``upper``;
   * the instance's own time (``seconds`` of the JSON) stays within T + 0.5 s (the promise on
     an idle machine; the table also shows the process's wall time, start-up included).

2. **Side by side with the plain baseline** (:func:`attnio.graphs.baseline.plain_optimal`,
   0-1 BFS over (red, blue) bitmasks, no reduction): the same instance and M in this
   process, the anytime solver of ``attnio pebble`` (:func:`attnio.graphs.anytime.
   anytime_pebble`, default method: the compiled core with the ``fast`` extra) against the
   baseline, each with ``--budget`` seconds; trivial M (optimum = the compulsory I/O) and
   non-trivial M.

3. **The headline** (``--headline``, issue 25): the command a user types,
   ``attnio pebble --builtin matmul:3x2x2 --M 4`` (a fresh process; wall and CPU seconds of
   the whole command, start-up included), then the plain baseline on the same instance in
   this process with ``--plain-budget`` seconds and ``--plain-states`` states. The speed-up is
   the plain baseline's seconds over the command's; when the baseline runs out of its budget
   the figure is a lower bound ("> N x").

    python3 benchmarks/bench_pebble_user_path.py [--seeds N] [--limits 1,3] [--budget S]
    python3 benchmarks/bench_pebble_user_path.py --headline [--plain-budget S] [--plain-states N]

Exit code 0 when every run keeps the bracket rules and no instance overran T + 0.5 s, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnio.graphs.anytime import anytime_pebble, compulsory_io
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dagio import save_dag
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size
from attnio.graphs.game import replay
from attnio.graphs.schedules import algorithm_schedules

#: The promise checked per run: the instance answers within T + this many seconds.
SLACK_SECONDS = 0.5


def instances(seeds: int) -> list[tuple[str, object, int]]:
    """(label, DAG, M) of the early-stopped runs."""
    out: list[tuple[str, object, int]] = []
    for seed in range(seeds):
        n = 14 + (seed * 5) % 11  # 14 ... 24 vertices
        G = random_dag(n, 0.3, seed=96280 + seed, max_in_degree=3)
        least = min_cache_size(G)
        out += [(f"random n={n} seed={96280 + seed}", G, M) for M in (least, least + 1)]
    out += [("attention-forward n=2 d=1", attention_forward_dag(2, 1), M) for M in (4, 8)]
    out += [("attention-backward qkv n=2 d=1", attention_backward_dag(2, 1, "qkv"), 7)]
    out += [("matmul 3x2x2", matmul_dag(3, 2, 2), M) for M in (4, 8)]
    return out


def user_run(path: Path, M: int, limit: float) -> tuple[dict, float]:
    """The instance object of ``attnio pebble --dag path --M M --time-limit limit --json``
    and the process's wall seconds."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "attnio", "pebble", "--dag", str(path),
                           "--M", str(M), "--time-limit", str(limit), "--json"],
                          capture_output=True, text=True, timeout=limit * 10 + 120,
                          env={**os.environ, "ATTNIO_PROGRESS": "0"})
    wall = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"attnio pebble exited {proc.returncode}: {proc.stderr[-400:]}")
    return json.loads(proc.stdout)["instances"][0], wall


def check_run(G, M: int, row: dict, limit: float) -> list[str]:
    """The rules one run breaks (empty: none)."""
    broken = []
    printed = (row.get("certified_lower_bound") or {}).get("value", 0)
    if row["lower"] < printed:
        broken.append(f"lower {row['lower']} < printed certified bound {printed}")
    if row["upper"] is not None:
        if row["lower"] > row["upper"]:
            broken.append(f"lower {row['lower']} > upper {row['upper']}")
        moves = [tuple(m) for m in row["moves"]]
        if replay(G, moves, M).io != row["upper"]:
            broken.append("the schedule does not replay to upper")
    if row["seconds"] > limit + SLACK_SECONDS:
        broken.append(f"instance took {row['seconds']:.2f} s on a {limit:g} s limit")
    return broken


def early_stopped(seeds: int, limits: list[float]) -> int:
    print("1. early-stopped runs (attnio pebble --time-limit T --json, fresh process each)")
    print(f"{'instance':<34} {'M':>3} {'T':>3}  {'verdict':<9} {'bracket':<10} "
          f"{'certified':>9}  {'lower source':<32} {'inst s':>6} {'wall s':>6}  rules")
    runs = failures = 0
    worst_over = float("-inf")
    with tempfile.TemporaryDirectory(prefix="attnio-bench-") as scratch:
        for index, (label, G, M) in enumerate(instances(seeds)):
            path = Path(scratch) / f"dag{index}.json"
            save_dag(G, path)
            for limit in limits:
                row, wall = user_run(path, M, limit)
                broken = check_run(G, M, row, limit)
                runs += 1
                failures += bool(broken)
                worst_over = max(worst_over, row["seconds"] - limit)
                cert = (row.get("certified_lower_bound") or {}).get("value")
                print(f"{label:<34} {M:>3} {limit:>3g}  {row['verdict']:<9} "
                      f"{'[%s, %s]' % (row['lower'], row['upper']):<10} {cert!s:>9}  "
                      f"{str(row.get('lower_source')):<32} {row['seconds']:>6.2f} "
                      f"{wall:>6.2f}  {'; '.join(broken) or 'ok'}")
    print(f"   {runs} runs, {failures} breaking a rule; worst instance time over T: "
          f"{worst_over:+.2f} s (promise: <= +{SLACK_SECONDS} s idle)")
    return failures


def side_by_side(budget: float) -> None:
    print(f"\n2. anytime_pebble (attnio pebble's solver) vs the plain baseline, {budget:g} s "
          "each, same process")
    print(f"{'instance':<28} {'M':>3} {'kind':<11} {'attnio':>14} {'s':>7}  "
          f"{'plain':>14} {'s':>7}  {'speed-up':>8}")
    cases = [("attention-forward n=2 d=1", attention_forward_dag(2, 1), M) for M in (4, 6, 8, 12)]
    cases += [("matmul 3x2x2", matmul_dag(3, 2, 2), M) for M in (4, 8)]
    cases += [("matmul 2x2x2", matmul_dag(2, 2, 2), M) for M in (3, 6, 12)]
    for label, G, M in cases:
        started = time.perf_counter()
        ours = anytime_pebble(G, M, time_limit=budget,
                              incumbents=algorithm_schedules(G, M))
        ours_s = time.perf_counter() - started
        started = time.perf_counter()
        plain = plain_optimal(G, M, time_limit=budget)
        plain_s = time.perf_counter() - started
        kind = "trivial" if ours.verdict == "optimal" and ours.io == compulsory_io(G) \
            else "non-trivial"

        def shown(r) -> str:
            return str(r.io) if r.verdict == "optimal" else f"[{r.lower}, {r.upper}]"

        both = ours.verdict == "optimal" and plain.verdict == "optimal"
        if both and ours.io != plain.io:
            raise SystemExit(f"{label} M={M}: attnio {ours.io} != plain {plain.io}")
        if both:
            ratio = f"{plain_s / ours_s:8.1f}x"
        elif ours.verdict == "optimal":  # the baseline ran out of its budget: at least this
            ratio = f"> {plain_s / ours_s:.0f}x".rjust(9)
        else:
            ratio = "       -"
        print(f"{label:<28} {M:>3} {kind:<11} {shown(ours):>14} {ours_s:>7.3f}  "
              f"{shown(plain):>14} {plain_s:>7.3f}  {ratio}")


def headline(plain_budget: float, plain_states: int) -> None:
    """Section 3 of the module docstring: the user's command against the plain baseline."""
    command = [sys.executable, "-m", "attnio", "pebble", "--builtin", "matmul:3x2x2",
               "--M", "4", "--json"]
    env = dict(os.environ, ATTNIO_PROGRESS="0")
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    if done.returncode != 0:
        raise SystemExit(f"attnio pebble failed (exit {done.returncode}): {done.stderr}")
    row = json.loads(done.stdout)["instances"][0]
    print("\n3. attnio pebble --builtin matmul:3x2x2 --M 4 against the plain baseline, one run")
    print(f"   attnio pebble: {row['verdict']} {row.get('io', row.get('upper'))}, "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU (start-up included; "
          f"instance {row['seconds']:.2f} s)")
    G = matmul_dag(3, 2, 2)
    started = time.perf_counter()
    plain = plain_optimal(G, 4, time_limit=plain_budget, max_states=plain_states)
    plain_s = time.perf_counter() - started
    if plain.verdict == "optimal":
        if row["verdict"] == "optimal" and plain.io != row["io"]:
            raise SystemExit(f"attnio {row['io']} != plain {plain.io}")
        print(f"   plain baseline: optimal {plain.io}, {plain.states_explored} states, "
              f"{plain_s:.1f} s -> speed-up {plain_s / wall:.0f}x (wall against wall)")
    else:
        print(f"   plain baseline: {plain.verdict} [{plain.lower}, {plain.upper}] after "
              f"{plain.states_explored} states, {plain_s:.1f} s ({plain.reason}) -> "
              f"speed-up > {plain_s / wall:.0f}x (wall against wall)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=15, help="random DAGs (2 sizes each)")
    parser.add_argument("--limits", default="1,3", help="--time-limit values, comma-separated")
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds per solver in the side-by-side table")
    parser.add_argument("--headline", action="store_true",
                        help="only section 3: attnio pebble on matmul 3x2x2, M = 4, vs plain")
    parser.add_argument("--plain-budget", type=float, default=1800.0,
                        help="seconds for the plain baseline in --headline")
    parser.add_argument("--plain-states", type=int, default=40_000_000,
                        help="states for the plain baseline in --headline")
    args = parser.parse_args(argv)
    if args.headline:
        headline(args.plain_budget, args.plain_states)
        return 0
    failures = early_stopped(args.seeds, [float(x) for x in args.limits.split(",")])
    side_by_side(args.budget)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
