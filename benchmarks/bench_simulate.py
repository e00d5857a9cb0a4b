"""Benchmark of `attnio simulate` (prints figures; not a timed test).

1. Count mode: a 16-value M sweep of every algorithm, both passes, at n = 65,536, d = 128.
2. Executed mode at n = 1024, d = 64, M = 4096, beside the untiled NumPy reference.
3. The crossover of FlashAttention backward and Algorithm 6 at n = 4096, d = 64, and the band
   of FlashAttention backward's measured I/O ÷ the catalogue's n²d²/M over M ∈ [4d, nd].
4. FLOPs of Algorithm 6 against FlashAttention backward at a few sizes.

Run: ``python3 benchmarks/bench_simulate.py``
"""

from __future__ import annotations

import time

import numpy as np

from attnio.algorithms.reference import attention_backward, attention_forward
from attnio.algorithms.registry import REGISTRY, get_algorithm, selection
from attnio.algorithms.simulation import catalogue_value, count, measured_crossover, simulate
from attnio.exceptions import CacheOverflowError, InvalidInputError

#: Every registered (algorithm, pass).
PAIRS = [(spec.name, pass_) for spec in REGISTRY.values() for pass_ in spec.passes]
#: The main FlashAttention algorithms (fitted blocks), weighed against Algorithm 6.
FLASH = [name for name in selection("main", "backward")
         if get_algorithm(name).block_rule.kind == "flash"]


def geometric(lo: int, hi: int, steps: int) -> list[int]:
    return sorted({round(lo * (hi / lo) ** (k / (steps - 1))) for k in range(steps)})


def sweep(n: int, d: int) -> None:
    Ms = geometric(2048, n * d, 16)
    start = time.perf_counter()
    runs = overflows = 0
    for algorithm, pass_ in PAIRS:
        for M in Ms:
            try:
                count(algorithm, pass_, n, d, M)
                runs += 1
            except CacheOverflowError:
                overflows += 1
    seconds = time.perf_counter() - start
    print(f"[1] count-mode sweep n={n:,} d={d}: {len(Ms)} M values in [{Ms[0]:,}, {Ms[-1]:,}], "
          f"{len(PAIRS)} (algorithm, pass) pairs -> {runs} counts + {overflows} overflow "
          f"findings in {seconds:.3f} s")


def executed(n: int, d: int, M: int) -> None:
    rng = np.random.default_rng(0)
    Q, K, V, dO = (rng.standard_normal((n, d)) for _ in range(4))
    start = time.perf_counter()
    attention_forward(Q, K, V)
    attention_backward(Q, K, V, dO)
    reference = time.perf_counter() - start
    print(f"[2] executed mode n={n} d={d} M={M}; untiled NumPy reference forward+backward: "
          f"{reference:.3f} s")
    print(f"    {'algorithm':<19}{'pass':<10}{'seconds':>9}{'io':>14}{'peak':>7}"
          f"{'rel.err':>10}  closed-form")
    for algorithm, pass_ in PAIRS:
        start = time.perf_counter()
        try:
            r = simulate(algorithm, pass_, n, d, M, execute=True, seed=0)
        except CacheOverflowError:  # flash1-published: its printed blocks overflow M
            print(f"    {algorithm:<19}{pass_:<10}  tiles exceed M (CacheOverflowError)")
            continue
        seconds = time.perf_counter() - start
        print(f"    {algorithm:<19}{pass_:<10}{seconds:>9.2f}{r.io:>14,}{r.peak_fast_words:>7}"
              f"{r.max_relative_error:>10.1e}  {'equal' if r.closed_form_match else 'DIFFERENT'}")


def crossover_and_band(n: int, d: int) -> None:
    grid = geometric(d * d // 16, 16 * d * d, 64)
    for large in FLASH:
        M = measured_crossover(n, d, grid, large=large)
        print(f"[3] crossover {large} backward vs small-cache (Algorithm 6) at n={n}, d={d}: "
              f"M = {M} = {M / (d * d):.3f} d^2 (window [d^2/4, 4d^2] = [{d * d // 4}, {4 * d * d}])")
    for algorithm in FLASH:
        ratios = []
        skipped = []
        for M in geometric(4 * d, n * d, 64):
            try:
                io = count(algorithm, "backward", n, d, M).io
            except InvalidInputError:
                skipped.append(M)
                continue
            ratios.append((float(io / catalogue_value(algorithm, "backward", n, d, M)), M))
        lo, hi = min(ratios), max(ratios)
        upper = [r for r, M in ratios if M >= d * d]
        print(f"    {algorithm} backward io / (n^2 d^2 / M) over M in [4d, nd] = [{4 * d}, {n * d}]: "
              f"band [{lo[0]:.2f} (M={lo[1]}), {hi[0]:.2f} (M={hi[1]})]; over [d^2, nd]: "
              f"[{min(upper):.2f}, {max(upper):.2f}]; {len(skipped)} M values below the "
              f"smallest tile set skipped (M < {min(M for _, M in ratios)})")


def flop_table() -> None:
    print("[4] FLOPs, backward pass (exact counts): Algorithm 6 (reads A = exp(QK^T) from its "
          "forward) vs FlashAttention (recomputes S, P)")
    print(f"    {'n':>6}{'d':>5}{'M':>8}{'small-cache':>18}{'flash1':>18}{'flash2':>18}"
          f"{'fa1/alg6':>10}{'small-cache-dx':>18}")
    for n, d, M in ((1024, 64, 1024), (4096, 64, 4096), (4096, 128, 4096), (16384, 128, 16384)):
        alg6 = count("small-cache", "backward", n, d, M).flops
        fa1 = count("flash1", "backward", n, d, M).flops
        fa2 = count("flash2", "backward", n, d, M).flops
        dx = count("small-cache-dx", "backward", n, d, M).flops
        print(f"    {n:>6}{d:>5}{M:>8}{alg6:>18,}{fa1:>18,}{fa2:>18,}{fa1 / alg6:>10.3f}{dx:>18,}")


if __name__ == "__main__":
    sweep(65_536, 128)
    crossover_and_band(4096, 64)
    flop_table()
    executed(1024, 64, 4096)
