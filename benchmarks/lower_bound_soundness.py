"""Soundness sweep: every certified lower-bound route against the exact optimum on random DAGs.

Not a test tier (it takes minutes). For every seed, vertex count n and edge probability, it
builds ``random_dag(n, p, seed)`` (in-degree capped at 2 or 3 by seed) — with, on odd seeds, a named output that is not a sink (a
non-sink vertex added to the sinks) and, every third seed, one output that is an input — and
for M = least feasible … least + extra, with recomputation and one-shot, compares every route
of :func:`attnio.graphs.lower_bounds.lower_bounds` (Hong–Kung skipped where its hypotheses fail)
with :func:`attnio.graphs.exact.solve_optimal`, and re-checks each certificate. It also checks
the exhaustive zero-waste search (:func:`attnio.graphs.zero_waste.zero_waste_exists`, a new
normal-form lemma): False must mean Q > L0 in both variants, True must mean Q = L0 with
recomputation.

    python3 benchmarks/lower_bound_soundness.py [--seeds LO:HI] [--sizes 5,6,7,8] [--extra 2]

Prints every violation and a summary line ``N instances, V violations, ...``; exit status 1
on any violation or rejected certificate.
"""

from __future__ import annotations

import argparse
import sys
import time

from attnio.graphs.anytime import compulsory_io
from attnio.graphs.dags import random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.lower_bounds import check_certificate, lower_bounds
from attnio.graphs.zero_waste import zero_waste_exists
from attnio.results import Status


def sweep_dag(seed: int, n: int, p: float):
    """The random DAG of one sweep point, with the output conventions varied by seed."""
    G = random_dag(n, p, seed=seed, max_in_degree=2 if seed % 4 < 2 else 3)
    sinks = sorted(v for v in G if G.out_degree(v) == 0)
    outputs = list(sinks)
    inner = sorted((v for v in G if G.out_degree(v) > 0 and G.in_degree(v) > 0),
                   key=lambda v: int(v[1:]))
    if seed % 2 == 1 and inner:
        outputs.append(inner[len(inner) // 2])          # an output that is not a sink
    sources = sorted(v for v in G if G.in_degree(v) == 0 and G.out_degree(v) > 0)
    if seed % 3 == 0 and sources:
        outputs.append(sources[0])                      # an output that is an input
    G.graph["outputs"] = outputs
    return G


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:130", help="seed range LO:HI")
    parser.add_argument("--sizes", default="5,6,7,8", help="comma-separated vertex counts")
    parser.add_argument("--extra", type=int, default=2, help="M runs over least .. least+extra")
    args = parser.parse_args(argv)
    lo, hi = (int(x) for x in args.seeds.split(":"))
    sizes = [int(x) for x in args.sizes.split(",")]
    started = time.monotonic()
    checked = violations = rejected = skipped = positive_extra = 0
    zero_waste_decided = zero_waste_proofs = 0
    above_by_route: dict[str, int] = {}
    alone_above_by_route: dict[str, int] = {}  # strictly above every other route
    for seed in range(lo, hi):
        for n in sizes:
            for p in (0.4, 0.6):
                G = sweep_dag(seed, n, p)
                least = min_cache_size(G)
                for M in range(least, least + args.extra + 1):
                    records = lower_bounds(G, M, timeout_ms=10_000)
                    for rec in records:
                        verdict = check_certificate(G, M, rec)
                        if not verdict.proved:
                            rejected += 1
                            print(f"REJECTED seed={seed} n={n} p={p} M={M} {rec.route}: "
                                  f"{verdict.detail}", flush=True)
                    best = max(r.value for r in records if r.applies)
                    compulsory = records[0].value
                    exists = zero_waste_exists(G, M, time_limit=10)
                    zero_waste_decided += exists is not None
                    zero_waste_proofs += exists is False
                    for recompute in (True, False):
                        opt = solve_optimal(G, M, recompute=recompute, time_limit=30,
                                            max_states=None, progress=False)
                        if opt.verdict is not Status.OPTIMAL:
                            skipped += 1
                            continue
                        checked += 1
                        positive_extra += best > compulsory
                        for rec in records:
                            if rec.applies and rec.value > compulsory:
                                above_by_route[rec.route] = above_by_route.get(rec.route, 0) + 1
                            others = [r.value for r in records if r.applies and r is not rec]
                            if rec.applies and rec.value > max(others, default=0):
                                alone_above_by_route[rec.route] = (
                                    alone_above_by_route.get(rec.route, 0) + 1)
                        l0 = compulsory_io(G)
                        if ((exists is False and opt.io <= l0)
                                or (exists is True and recompute and opt.io != l0)):
                            violations += 1
                            print(f"VIOLATION seed={seed} n={n} p={p} M={M} "
                                  f"recompute={recompute}: zero_waste_exists = {exists}, "
                                  f"L0 = {l0}, Q = {opt.io}", flush=True)
                        for rec in records:
                            if rec.applies and rec.value > opt.io:
                                violations += 1
                                print(f"VIOLATION seed={seed} n={n} p={p} M={M} "
                                      f"recompute={recompute}: {rec.route} = {rec.value} > "
                                      f"Q = {opt.io}", flush=True)
    print(f"{checked} instances, {violations} violations, {rejected} rejected certificates, "
          f"{skipped} skipped (infeasible/undecided), {positive_extra} with best bound above "
          f"the compulsory I/O, {time.monotonic() - started:.0f} s")
    print("instances where each route beats the compulsory I/O: "
          + ", ".join(f"{k} {v}" for k, v in sorted(above_by_route.items())))
    print("instances where each route is strictly above every other route: "
          + (", ".join(f"{k} {v}" for k, v in sorted(alone_above_by_route.items())) or "none"))
    print(f"zero-waste search: decided on {zero_waste_decided} (DAG, M) points, proved "
          f"Q > L0 on {zero_waste_proofs}")
    return 1 if violations or rejected else 0


if __name__ == "__main__":
    sys.exit(main())
