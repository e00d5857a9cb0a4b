"""Benchmark: the SAT engine beside the compiled search, and the SAT proofs (issue 37).

Three parts, each printing a Markdown table (figures go to notes/pebbling.md):

``--side-by-side``
    the same instances (matmul, attention forward/backward n = 2, d = 1 at several M, and
    random DAGs) solved by ``method="sat"`` and ``method="compiled"`` (``auto`` where numba is
    missing), each with ``--time-limit`` seconds, in one run: verdict, bracket, seconds.
``--agree N``
    N random DAGs of 5–8 vertices × (least M, least M + 1) × both variants: the SAT optimum
    against the reference search (ints, ``==``), every SAT schedule replayed.
``--proofs``
    for the instances of ``--side-by-side`` that the search proves, the proof file kind
    ``attnio pebble --certify`` writes (compulsory / SAT refutation checked by dratify / none
    in the time limit) and the seconds to produce and check it.

    python3 benchmarks/bench_sat.py --side-by-side --proofs --time-limit 60
    python3 benchmarks/bench_sat.py --agree 500

Exit code 0 when every compared optimum agrees and every proof written is accepted.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import networkx as nx

from attnio.check import check_file
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, gnp_dag, matmul_dag
from attnio.graphs.engines import engine_available, solve
from attnio.graphs.exact import min_cache_size
from attnio.graphs.game import replay
from attnio.graphs.proof_files import certify_optimum


def instances() -> list[tuple[str, nx.DiGraph, int]]:
    rows = [("matmul 1x2x1", matmul_dag(1, 2, 1), M) for M in (3, 4)]
    rows += [("matmul 2x2x1", matmul_dag(2, 2, 1), M) for M in (3, 4)]
    rows += [("matmul 2x2x2", matmul_dag(2, 2, 2), M) for M in (3, 4, 5, 6, 7)]
    rows += [("attention fwd n=2 d=1", attention_forward_dag(2, 1), M) for M in (3, 5, 8)]
    rows += [("attention bwd n=2 d=1", attention_backward_dag(2, 1), M) for M in (11, 14)]
    for seed in range(4):
        G = gnp_dag(12, 0.3, seed)
        rows.append((f"random 12 #{seed}", G, min_cache_size(G)))
    return rows


def side_by_side(limit: float, proofs: bool) -> bool:
    engine = "compiled" if engine_available("compiled") else "reference"
    print(f"| instance | M | sat | sat s | {engine} | {engine} s | proof file | proof s "
          "| check s |")
    print("|---|---:|---|---:|---|---:|---|---:|---:|")
    ok = True
    for name, G, M in instances():
        cells = []
        results = {}
        for method in ("sat", engine):
            t = time.monotonic()
            r = solve(G, M, method=method, time_limit=limit)
            results[method] = r
            shown = str(r.io) if r.verdict == "optimal" else f"[{r.lower}, {r.upper}]"
            cells += [shown, f"{time.monotonic() - t:.2f}"]
        a, b = results["sat"], results[engine]
        if a.verdict == b.verdict == "optimal" and a.io != b.io:
            ok = False
        kind, made, checked = "-", "", ""
        best = b if b.verdict == "optimal" else a
        if proofs and best.verdict == "optimal":
            with tempfile.TemporaryDirectory() as folder:
                t = time.monotonic()
                record = certify_optimum(G, M, best, folder, "x", time_limit=limit)
                made = f"{time.monotonic() - t:.2f}"
                kind = record.lower_proof
                if record.lower_proof in ("compulsory", "sat-refutation"):
                    t = time.monotonic()
                    verdict = check_file(record.files[0])
                    checked = f"{time.monotonic() - t:.2f}"
                    ok &= verdict.accepted and verdict.complete
                    kind += "" if verdict.accepted else " REJECTED"
        print(f"| {name} | {M} | {' | '.join(cells)} | {kind} | {made} | {checked} |",
              flush=True)
    return ok


def agree(count: int) -> bool:
    compared = disagree = 0
    started = time.monotonic()
    for seed in range(count):
        G = gnp_dag(5 + seed % 4, 0.45, seed)
        least = min_cache_size(G)
        for M in (least, least + 1):
            for recompute in (True, False):
                a = solve(G, M, method="sat", recompute=recompute, time_limit=60)
                b = solve(G, M, method="reference", recompute=recompute, time_limit=60)
                if a.verdict == "optimal":
                    assert replay(G, a.schedule, M, recompute=recompute).io == a.io
                compared += 1
                if (a.verdict, a.upper) != (b.verdict, b.upper):
                    disagree += 1
                    print(f"DISAGREE seed {seed} M={M} recompute={recompute}: sat "
                          f"{a.verdict} {a.lower}-{a.upper}, search {b.verdict} {b.upper}")
    print(f"agreement: {compared} instances, {disagree} disagreements, "
          f"{time.monotonic() - started:.1f} s")
    return disagree == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--side-by-side", action="store_true")
    parser.add_argument("--proofs", action="store_true")
    parser.add_argument("--agree", type=int, default=0)
    args = parser.parse_args(argv)
    ok = True
    if args.side_by_side:
        ok &= side_by_side(args.time_limit, args.proofs)
    if args.agree:
        ok &= agree(args.agree)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
