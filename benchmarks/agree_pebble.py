"""Agreement sweep: the exact engines (reference, compiled core, plain baseline) on random DAGs.

Not a test tier (it takes minutes): run it after any change to ``attnio.graphs.exact``.

    python3 benchmarks/agree_pebble.py [--quick] [--seeds LO:HI] [--sizes 5,6,7,8] [--extra 2]
                                       [--workers N | --scheduler ADDRESS]

``--quick`` is ``--seeds 0:10 --sizes 5,6,7 --extra 1`` (a smoke run of a minute or two).

For every seed, size n and edge probability 0.4 / 0.6 / 0.7 it builds ``random_dag(n, p,
seed)`` twice: with the sinks as outputs, and with *named outputs that are not sinks* (each
non-input vertex an output with probability 0.6, seeded; an output that feeds another vertex
enters the heuristic's space pairs, where a mutation once went unnoticed). For M = least
feasible … least + extra and both variants (recomputation, one-shot) it runs the engines of
the one slot :func:`attnio.graphs.engines.solve` — ``reference`` (the readable search),
``compiled`` (the numba core; counted only when the compiled engine really ran) and ``plain``
— and replays both searches' schedules. Prints every disagreement and a
summary line; exit status 1 on any disagreement. ``--workers N`` runs the
instances on a local Dask cluster (:mod:`attnio.parallel`), with the same results.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from attnio.graphs import exact_compiled
from attnio.graphs.dags import random_dag
from attnio.graphs.engines import solve
from attnio.graphs.exact import min_cache_size
from attnio.graphs.game import replay
from attnio.parallel import map_instances
from attnio.results import Status


def named_outputs(G, seed: int) -> list[str]:
    """Each non-input vertex an output with probability 0.6 (at least one), seeded."""
    rng = np.random.default_rng(seed)
    candidates = [v for v in sorted(G) if G.in_degree(v) > 0]
    return [v for v in candidates if rng.random() < 0.6] or candidates[-1:]


def check_graph(job: tuple) -> list[tuple]:
    """All (M, variant) instances of one DAG: (M, recompute, fast io, replayed, plain io,
    compiled io or None when the compiled engine did not run, its replayed io), or None
    entries for undecided ones."""
    seed, n, p, named, extra = job
    G = random_dag(n, p, seed=seed)
    outputs = named_outputs(G, seed) if named else None
    least = min_cache_size(G, outputs)
    rows = []
    if exact_compiled.compiled_available():
        exact_compiled.warm_up()  # compiled or loaded once per process, outside any limit
    for M in range(least, least + extra + 1):
        for recompute in (True, False):
            fast = solve(G, M, method="reference", recompute=recompute, outputs=outputs,
                         time_limit=30, max_states=None, progress=False)
            plain = solve(G, M, method="plain", recompute=recompute, outputs=outputs,
                          time_limit=30, max_states=2_000_000)
            # the compiled engine without numba hands the call to the reference search itself
            comp = exact_compiled.solve_optimal_compiled(
                G, M, recompute=recompute, outputs=outputs, time_limit=60)
            engine = exact_compiled.LAST_RUN.get("engine")
            if not all(r.verdict is Status.OPTIMAL for r in (fast, plain, comp)):
                rows.append((M, recompute, None, None, None, None, None))
                continue
            replayed = replay(G, fast.schedule, M, recompute=recompute, outputs=outputs).io
            comp_replayed = replay(G, comp.schedule, M, recompute=recompute,
                                   outputs=outputs).io
            rows.append((M, recompute, fast.io, replayed, plain.io,
                         comp.io if engine == "compiled" else None, comp_replayed))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:150", help="seed range LO:HI")
    parser.add_argument("--sizes", default="5,6,7,8", help="comma-separated vertex counts")
    parser.add_argument("--extra", type=int, default=2, help="M runs over least .. least+extra")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: --seeds 0:10 --sizes 5,6,7 --extra 1")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", type=int, help="local Dask cluster of N processes")
    group.add_argument("--scheduler", help="address of an existing Dask scheduler")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.sizes, args.extra = "0:10", "5,6,7", 1
    lo, hi = (int(x) for x in args.seeds.split(":"))
    sizes = [int(x) for x in args.sizes.split(",")]
    started = time.monotonic()
    jobs = [(seed, n, p, named, args.extra) for seed in range(lo, hi) for n in sizes
            for p in (0.4, 0.6, 0.7) for named in (False, True)]
    outcomes = map_instances(check_graph, jobs, workers=args.workers, scheduler=args.scheduler,
                             desc="agree", on_failure=lambda job, reason: reason)
    checked = disagreements = skipped = non_sink = failed = compiled = 0
    for job, rows in zip(jobs, outcomes):
        seed, n, p, named, _ = job
        if isinstance(rows, str):  # a worker died twice on this DAG: reported, not dropped
            failed += 1
            print(f"FAILED seed={seed} n={n} p={p} named={named}: {rows}", flush=True)
            continue
        for M, recompute, fast_io, replayed, plain_io, comp_io, comp_replayed in rows:
            if fast_io is None:
                skipped += 1
                continue
            checked += 1
            non_sink += named
            compiled += comp_io is not None
            if (fast_io != plain_io or replayed != fast_io or comp_replayed != plain_io
                    or comp_io not in (None, plain_io)):
                disagreements += 1
                print(f"DISAGREE seed={seed} n={n} p={p} named_outputs={named} M={M} "
                      f"recompute={recompute}: fast {fast_io} (replays to {replayed}), "
                      f"compiled {comp_io} (replays to {comp_replayed}), plain {plain_io}",
                      flush=True)
    print(f"{checked} instances ({non_sink} with named outputs, {compiled} run by the "
          f"compiled core), {disagreements} "
          f"disagreements, {skipped} undecided (skipped), {failed} DAGs failed, "
          f"{time.monotonic() - started:.0f} s")
    return 1 if disagreements or failed else 0


if __name__ == "__main__":
    sys.exit(main())
