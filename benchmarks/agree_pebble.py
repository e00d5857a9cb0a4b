"""Development sweep: the fast exact solver against the plain baseline on random DAGs.

Not a test tier (it takes minutes): run it after any change to ``attnio.graphs.exact``.

    python3 benchmarks/agree_pebble.py [--seeds LO:HI] [--sizes 5,6,7,8] [--extra 2]

For every seed, size n and edge probability 0.4 / 0.6 it builds ``random_dag(n, p, seed)``
and, for M = least feasible … least + extra and both variants (recomputation, one-shot),
compares ``solve_optimal`` with ``plain_optimal`` and replays the fast solver's schedule.
Prints every disagreement and a summary line; exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time

from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import random_dag
from attnio.graphs.exact import Optimal, min_cache_size, solve_optimal
from attnio.graphs.game import replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:150", help="seed range LO:HI")
    parser.add_argument("--sizes", default="5,6,7,8", help="comma-separated vertex counts")
    parser.add_argument("--extra", type=int, default=2, help="M runs over least .. least+extra")
    args = parser.parse_args(argv)
    lo, hi = (int(x) for x in args.seeds.split(":"))
    sizes = [int(x) for x in args.sizes.split(",")]
    started = time.monotonic()
    checked = disagreements = skipped = 0
    for seed in range(lo, hi):
        for n in sizes:
            for p in (0.4, 0.6):
                G = random_dag(n, p, seed=seed)
                least = min_cache_size(G)
                for M in range(least, least + args.extra + 1):
                    for recompute in (True, False):
                        fast = solve_optimal(G, M, recompute=recompute, time_limit=30,
                                             max_states=None, progress=False)
                        plain = plain_optimal(G, M, recompute=recompute, time_limit=30,
                                              max_states=2_000_000)
                        if not (isinstance(fast, Optimal) and isinstance(plain, Optimal)):
                            skipped += 1
                            continue
                        checked += 1
                        replayed = replay(G, fast.schedule, M, recompute=recompute).io
                        if fast.io != plain.io or replayed != fast.io:
                            disagreements += 1
                            print(f"DISAGREE seed={seed} n={n} p={p} M={M} "
                                  f"recompute={recompute}: fast {fast.io} (replays to "
                                  f"{replayed}), plain {plain.io}", flush=True)
    print(f"{checked} instances, {disagreements} disagreements, {skipped} undecided (skipped), "
          f"{time.monotonic() - started:.0f} s")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
