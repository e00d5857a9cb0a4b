"""Benchmark: the anytime solver on the sixteen peer DAGs (issue 14, item 5).

For each peer DAG (``attnio.graphs.peer_dags``, OneStopParallel's tiny set) at
M = max in-degree + 1 and M = max in-degree + 3, runs what ``attnio pebble`` runs
(:func:`attnio.graphs.anytime.anytime_pebble`, the algorithm schedules as incumbents) with a
time limit per instance, replays every upper bound's schedule through
:func:`attnio.graphs.game.replay`, and prints a Markdown table and the targets:

* median UB / LB <= 1.25 and worst <= 1.6 (UB / LB = 1 for a proven optimum);
* at least 12 of the 32 runs proven optimal (issue 37; 8 in issue 14), each with a proof file
  that ``python -m attnio.check`` accepts (``--proofs``: the compulsory count, or a SAT
  refutation whose DRAT proof dratify checks; "search" = proven by attnio's search only);
* every UB a schedule that replays to exactly UB.

    python3 benchmarks/bench_peer_dags.py [--time-limit S] [--workers N] [--only NAME,...]
        [--json OUT.json] [--proofs] [--method auto|sat|...]

``--attention`` runs the tiny attention DAGs of issue 37 instead (forward n = 2, d = 2 and
backward n = 2, d = 1, FlashAttention's qkv gradients) at EVERY M, from the least M upward
until a run proves the compulsory I/O (Q is non-increasing in M and never below it, so every
larger M has that optimum too: one row says so), with the proof file kind of each proven row.

``--workers N`` solves the instances on a local Dask cluster (``attnio.parallel``; results
identical to the serial run, same order). Not a timed test: figures go to notes/pebbling.md.
Exit code 0 when every target holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from fractions import Fraction

from attnio.check import check_file, parse_dag, required_horizon
from attnio.graphs.anytime import AnytimeProgress, anytime_pebble, compulsory_io
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag
from attnio.graphs.exact import min_cache_size
from attnio.graphs.exact_sat import MAX_SAT_HORIZON, Refutation, dag_certificate_data
from attnio.graphs.game import replay
from attnio.graphs.pebble_result import PebbleResult
from attnio.graphs.peer_dags import load_peer_dag, peer_dag_names
from attnio.graphs.portfolio import sat_portfolio as library_sat_portfolio
from attnio.graphs.proof_files import certify_optimum
from attnio.graphs.schedules import algorithm_schedules
from attnio.parallel import map_instances
from attnio.provenance import provenance
from attnio.safe_io import write_text

#: The targets of issue 14, item 5, with issue 37's count of proven runs.
TARGET_MEDIAN, TARGET_WORST, TARGET_OPTIMAL = Fraction(125, 100), Fraction(16, 10), 12


#: The tiny attention DAGs of issue 37's scale targets (``--attention``), by row name.
ATTENTION_DAGS = {
    "attention-fwd-n2-d2": lambda: attention_forward_dag(2, 2),
    "attention-bwd-n2-d1": lambda: attention_backward_dag(2, 1),
}


def load_dag(name: str):
    """A peer DAG, or one of :data:`ATTENTION_DAGS`."""
    return ATTENTION_DAGS[name]() if name in ATTENTION_DAGS else load_peer_dag(name)


def sat_portfolio(G, M: int, result: PebbleResult, progress: AnytimeProgress,
                  deadline: float) -> tuple[PebbleResult, str, Refutation | None]:
    """:func:`attnio.graphs.portfolio.sat_portfolio` until ``deadline`` (the SAT share of
    ``attnio pebble``'s ``auto``): the result, who decided it ("sat" when a refutation or a
    SAT schedule moved the bracket, else "search") and the refutation that closed it."""
    after, refutation = library_sat_portfolio(G, M, result, progress=progress,
                                              time_limit=deadline - time.monotonic())
    moved = (after.lower, after.upper) != (result.lower, result.upper)
    return after, "sat" if moved else "search", refutation


def run_instance(job: tuple) -> dict:
    """One (peer DAG, M, time limit[, method, proofs]): the anytime bracket, its schedule
    replayed, and (with proofs) the proof file of a proven optimum, checked."""
    name, M, limit, method, proofs, sat_share = (*job, "auto", False, 0.0)[:6]
    G = load_dag(name)
    started = time.monotonic()
    algorithm = algorithm_schedules(G, M)
    remaining = max(0.0, limit - (time.monotonic() - started))
    if sat_share and required_horizon(parse_dag(dag_certificate_data(G, None)),
                                      True) > MAX_SAT_HORIZON:
        sat_share = 0.0     # SAT cannot take this DAG: the search keeps the whole time
    progress = AnytimeProgress()
    result = anytime_pebble(G, M, time_limit=remaining * (1 - sat_share),
                            incumbents=algorithm, progress=progress, method=method)
    solved_by, refutation = "search", None
    if sat_share and result.verdict == "undecided":
        # SAT with the rest of the time, from the bracket so far (--sat-share F: the share
        # is the benchmark's knob; `attnio pebble`'s auto gives SAT_SHARE where the horizon
        # is at most SAT_AUTO_HORIZON, attnio.graphs.portfolio)
        result, solved_by, refutation = sat_portfolio(G, M, result, progress,
                                                      started + limit)
    seconds = time.monotonic() - started
    lower, upper, schedule = result.lower, result.upper, result.schedule
    replayed = replay(G, schedule, M).io if schedule else None
    proof = "-"
    if proofs and result.verdict == "optimal":
        with tempfile.TemporaryDirectory() as folder:
            record = certify_optimum(G, M, result, folder, "p", time_limit=limit,
                                     refutation=refutation)
            proof = record.lower_proof
            if proof in ("compulsory", "sat-refutation"):
                checked = check_file(record.files[0])
                proof += "" if checked.accepted and checked.complete else " (NOT accepted)"
    return {"proof": proof, "solved_by": solved_by, "dag": name, "vertices": G.number_of_nodes(), "M": M, "verdict": result.verdict,
            "lower": lower, "lower_source": progress.lower_bound_source,
            "upper": upper, "replayed_io": replayed,
            "replays": replayed is not None and replayed == upper,
            "compulsory_io": compulsory_io(G),
            "algorithm_best": min(replay(G, s, M).io for s in algorithm.values()),
            "states_explored": result.states_explored, "seconds": round(seconds, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--only", default=None, help="comma-separated peer DAG names")
    parser.add_argument("--json", default=None, help="write the rows here (new file)")
    parser.add_argument("--method", default="auto", help="the exact engine (graphs/engines.py)")
    parser.add_argument("--proofs", action="store_true",
                        help="write and check the proof file of every proven optimum")
    parser.add_argument("--sat-share", type=float, default=0.0,
                        help="share of each run's time given to SAT after the anytime "
                             "solver: CaDiCaL refutations raise the lower end, one DRAT "
                             "proof each (0: none)")
    parser.add_argument("--attention", action="store_true",
                        help="the tiny attention DAGs at every M instead of the peer DAGs")
    args = parser.parse_args(argv)
    if args.attention:
        return attention_rows(args)
    names = args.only.split(",") if args.only else peer_dag_names()
    jobs = []
    for name in names:
        d_plus_1 = min_cache_size(load_peer_dag(name))
        jobs += [(name, M, args.time_limit, args.method, args.proofs, args.sat_share)
                 for M in (d_plus_1, d_plus_1 + 2)]
    rows = map_instances(run_instance, jobs, workers=args.workers, desc="peer DAGs")
    print(f"time limit {args.time_limit:g} s per run, {len(rows)} runs\n")
    print("| DAG | n | M | verdict | LB | LB from | UB | UB/LB | compulsory | best algorithm "
          "schedule | replays | proof file | by | s |")
    print("|---|---:|---:|---|---:|---|---:|---:|---:|---:|---|---|---|---:|")
    ratios = []
    for r in rows:
        ratio = Fraction(r["upper"], r["lower"])
        ratios.append(ratio)
        print(f"| {r['dag']} | {r['vertices']} | {r['M']} | {r['verdict']} | "
              f"{r['lower']} | {r['lower_source']} | {r['upper']} | {float(ratio):.3f} | "
              f"{r['compulsory_io']} | {r['algorithm_best']} | "
              f"{'yes' if r['replays'] else 'NO'} | {r['proof']} | {r['solved_by']} | "
              f"{r['seconds']:.1f} |")
    median, worst = statistics.median(ratios), max(ratios)
    optimal = sum(r["verdict"] == "optimal" for r in rows)
    replays = sum(r["replays"] for r in rows)
    with_proof = sum(r["proof"] in ("compulsory", "sat-refutation") for r in rows)
    checks = [
        (f"median UB/LB = {float(median):.3f} <= {float(TARGET_MEDIAN)}", median <= TARGET_MEDIAN),
        (f"worst UB/LB = {float(worst):.3f} <= {float(TARGET_WORST)}", worst <= TARGET_WORST),
        (f"proven optimal {optimal} of {len(rows)} >= {TARGET_OPTIMAL}",
         optimal >= TARGET_OPTIMAL),
        (f"schedules that replay to UB: {replays} of {len(rows)}", replays == len(rows)),
        (f"proven optima with a proof file the checker accepts: {with_proof} of {optimal}"
         + ("" if args.proofs else " (--proofs not asked)"),
         args.proofs and with_proof == optimal),
    ]
    print()
    for text, ok in checks:
        print(f"- {'MET' if ok else 'MISSED'}: {text}")
    if args.json:
        write_text(args.json, json.dumps({"time_limit": args.time_limit, "rows": rows,
                                          **provenance()}, indent=1, allow_nan=False) + "\n")
    return 0 if all(ok for _, ok in checks) else 1


def attention_rows(args: argparse.Namespace) -> int:
    """``--attention``: each attention DAG from its least M upward, until a run proves the
    compulsory I/O; exit 0 when every row's schedule replays and every proof file written
    is accepted (the rows left open are reported, not failed: figures, not a test)."""
    print(f"time limit {args.time_limit:g} s per run\n")
    print("| DAG | n | M | verdict | LB | LB from | UB | compulsory | proof file | s |")
    print("|---|---:|---:|---|---:|---|---:|---:|---|---:|")
    ok, rows = True, []
    names = args.only.split(",") if args.only else list(ATTENTION_DAGS)
    unknown = sorted(set(names) - set(ATTENTION_DAGS))
    if unknown:
        raise SystemExit(f"--attention --only: unknown {unknown}; known {list(ATTENTION_DAGS)}")
    for name in names:
        G = load_dag(name)
        M = min_cache_size(G)
        while True:
            r = run_instance((name, M, args.time_limit, args.method, args.proofs,
                              args.sat_share))
            rows.append(r)
            ok &= r["replays"] and "NOT" not in r["proof"]
            print(f"| {name} | {r['vertices']} | {M} | {r['verdict']} | {r['lower']} | "
                  f"{r['lower_source']} | {r['upper']} | {r['compulsory_io']} | "
                  f"{r['proof']} | {r['seconds']:.1f} |", flush=True)
            if r["verdict"] == "optimal" and r["upper"] == r["compulsory_io"]:
                print(f"| {name} | {r['vertices']} | > {M} | optimal (Q non-increasing in M, "
                      f"at least the compulsory I/O) | {r['upper']} | compulsory | "
                      f"{r['upper']} | {r['compulsory_io']} | compulsory | - |")
                break
            M += 1
    proven = sum(r["verdict"] == "optimal" for r in rows)
    print(f"\n- proven {proven} of {len(rows)} runs; open: "
          + (", ".join(f"{r['dag']} M = {r['M']} [{r['lower']}, {r['upper']}]"
                       for r in rows if r["verdict"] != "optimal") or "none"))
    if args.json:
        write_text(args.json, json.dumps({"time_limit": args.time_limit, "rows": rows,
                                          **provenance()}, indent=1, allow_nan=False) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
