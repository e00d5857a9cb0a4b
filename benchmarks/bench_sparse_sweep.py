"""Benchmark (not a timed test): a count-mode sweep of every algorithm with a causal mask at
n = 65,536, d = 128 and 16 values of M (issue 15's target: at most 2 s).

Counts are the exact closed forms of the masked algorithms (attnio.algorithms.counts.
count_masked): per-row-block interval formulas for the causal mask, no tile walk, no numerics.

Run: ``python3 benchmarks/bench_sparse_sweep.py``
"""

from __future__ import annotations

import time

from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import REGISTRY
from attnio.algorithms.simulation import count
from attnio.exceptions import CacheOverflowError, InvalidInputError

#: Every (algorithm, pass) of the registry that takes a mask.
PAIRS = [(spec.name, pass_) for spec in REGISTRY.values() if spec.masked
         for pass_ in spec.passes]


def main() -> int:
    n, d = 65_536, 128
    Ms = [2 ** k for k in range(10, 26)]
    mask = Mask.causal()
    start = time.perf_counter()
    runs = skipped = 0
    for algorithm, pass_ in PAIRS:
        for M in Ms:
            try:
                count(algorithm, pass_, n, d, M, mask=mask)
                runs += 1
            except (InvalidInputError, CacheOverflowError):
                skipped += 1
    elapsed = time.perf_counter() - start
    print(f"causal count sweep n={n}, d={d}, {len(Ms)} values of M, {len(PAIRS)} "
          f"(algorithm, pass) pairs: {runs} runs counted, {skipped} with no fitting tile, "
          f"{elapsed:.2f} s (target <= 2 s)")
    return 0 if elapsed <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
