"""The sandwich as a property, swept (issue 21, item 3): every printed lower bound ≤ every
algorithm's exact I/O on ≥ 10,000 deterministic parameter points. A benchmark, not a test tier.

Each point is (pass, n, d, M, mask, batch B, heads H, K/V heads G, hierarchy levels) drawn
by ``numpy.random.default_rng(SEED)`` from fixed menus (n from 1 to 2^20, d from 1 to 256,
M at the anchors d, 2d, 4d, d², 4d², n·d, 4n·d and log-uniform between 1 and 4n·d + 4d²;
masks none, full, causal, window:W, block:B with a random pattern, an arbitrary array;
G | H; hierarchies of 1–3 bounded levels), then checked by
:func:`attnio.bounds.sandwich_points.sandwich_point` — the library paths of
``attnio bounds``, ``attnio simulate``, ``attnio gap``, the hierarchy, ``best_lower_bound``,
``best_mask_lower_bound`` / ``mask_bound_fields``, ``stacked_lower_bound``,
``multihead_lower_bound`` — against the exact closed-form counts of every registered
algorithm (``count`` / ``count_heads``; an (algorithm, M) with no fitting tile is skipped).

Prints the points checked, the comparisons made, the violations (each in full; 0 expected),
the least ratio exact I/O ÷ bound per (pass, mask kind, one head or many) with its witness,
and the seconds. A progress line goes to stderr. Exit status 1 on any violation.

    python3 benchmarks/sandwich_sweep.py [--points 12000] [--seed 2026] [--workers N]

``--workers N`` runs the points on a local Dask cluster (:func:`attnio.parallel.map_instances`);
the default is serial. Figures of a run: notes/gap.md, "The sandwich as a property".
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from typing import Any

import numpy as np

SEED = 2026
NS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 32, 48, 64, 100, 128, 255, 256, 1000, 1024,
      4096, 16384, 65536, 1_048_576]
DS = [1, 2, 3, 4, 5, 8, 12, 16, 32, 64, 128, 256]
MASK_KINDS = ["none", "none", "full", "causal", "window", "block", "array"]
HEADS = [(1, 1, 1)] * 4 + [(1, 2, 2), (1, 2, 1), (2, 4, 4), (1, 4, 2), (1, 8, 1), (3, 8, 2),
                           (2, 32, 8), (1, 6, 3)]


def draw_points(count: int, seed: int = SEED) -> list[dict[str, Any]]:
    """``count`` plain-data points (picklable), the same for the same seed."""
    rng = np.random.default_rng(seed)
    points = []
    for i in range(count):
        pass_ = ("forward", "backward")[i % 2]
        n = int(rng.choice(NS))
        d = int(rng.choice(DS))
        kind = str(rng.choice(MASK_KINDS))
        if kind == "array":
            n = min(n, 64)  # an arbitrary mask is walked entry by entry
        elif kind == "block":
            n = min(n, 1024)  # grouped heads expand a block mask to its n x n array
        if n >= 65536 and d > 64:
            d = 64
        top = 4 * n * d + 4 * d * d
        anchors = [d, d + 1, 2 * d, 4 * d, 4 * d + 4, d * d, 4 * d * d, n * d, 4 * n * d, top]
        if rng.random() < 0.5:
            M = int(rng.choice(anchors))
        else:
            M = max(1, int(round(float(np.exp(rng.uniform(0.0, np.log(top)))))))
        mask: tuple | None = None
        if kind in ("full", "causal"):
            mask = (kind,)
        elif kind == "window":
            mask = ("window", int(rng.choice([1, 2, 7, max(1, n // 3), n, n + 5])))
        elif kind == "block":
            t = int(rng.integers(1, 9))
            b = -(-n // t)
            t = -(-n // b)
            mask = ("block", b, (rng.random((t, t)) < rng.choice([0.2, 0.5, 0.8])).tolist())
        elif kind == "array":
            mask = ("array", (rng.random((n, n)) < rng.choice([0.0, 0.05, 0.3, 0.7, 1.0])
                              ).tolist())
        batch, heads, kv = HEADS[int(rng.integers(len(HEADS)))]
        levels = None
        if mask is None and rng.random() < 0.3:
            k = int(rng.integers(1, 4))
            caps = sorted({max(1, int(round(float(np.exp(rng.uniform(0, np.log(2 * n * d + 4))))))
                           ) for _ in range(k)})
            levels = tuple(caps)
        points.append({"pass_": pass_, "n": n, "d": d, "M": M, "mask": mask, "kind": kind,
                       "batch": batch, "heads": heads, "kv_heads": kv, "levels": levels})
    return points


def _mask(spec: tuple | None):
    from attnio.algorithms.masks import Mask

    if spec is None:
        return None
    if spec[0] == "full":
        return Mask.full()
    if spec[0] == "causal":
        return Mask.causal()
    if spec[0] == "window":
        return Mask.window(spec[1])
    if spec[0] == "block":
        return Mask.block_sparse(spec[1], np.array(spec[2], dtype=bool))
    return Mask.from_array(np.array(spec[1], dtype=bool))


def check_point(p: dict[str, Any]) -> dict[str, Any]:
    """One point: comparisons, violations, the least (io, bound) with its source."""
    from attnio.bounds.sandwich_points import sandwich_point

    res = sandwich_point(p["pass_"], p["n"], p["d"], p["M"], mask=_mask(p["mask"]),
                         batch=p["batch"], heads=p["heads"], kv_heads=p["kv_heads"],
                         levels=p["levels"])
    least = None
    for (source, algorithm), (io, bound) in res.min_ratio.items():
        ratio = Fraction(int(io), 1) / Fraction(str(bound)) if not isinstance(bound, int) \
            else Fraction(io, bound)
        if least is None or ratio < least[0]:
            least = (ratio, io, bound, source, algorithm)
    return {"comparisons": res.comparisons, "violations": res.violations,
            "least": None if least is None else
            (least[0], int(least[1]), str(least[2]), least[3], least[4])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=12_000)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--workers", type=int, default=None,
                    help="local Dask workers (default: serial)")
    args = ap.parse_args(argv)
    points = draw_points(args.points, args.seed)
    start = time.perf_counter()
    results: list[dict[str, Any]] = [None] * len(points)  # type: ignore[list-item]
    last = [0.0]

    def report(i: int, r: dict[str, Any]) -> None:
        results[i] = r
        done = sum(x is not None for x in results) if args.workers else i + 1
        now = time.perf_counter()
        if now - last[0] > 5 or done == len(points):
            last[0] = now
            print(f"\rsandwich sweep: {done}/{len(points)} points, "
                  f"{now - start:.0f} s", end="", file=sys.stderr, flush=True)

    if args.workers:
        from attnio.parallel import map_instances

        results = map_instances(check_point, points, workers=args.workers,
                                desc="sandwich points", on_result=report)
    else:
        for i, p in enumerate(points):
            report(i, check_point(p))
    print(file=sys.stderr)
    seconds = time.perf_counter() - start

    comparisons = sum(r["comparisons"] for r in results)
    violations = [v for r in results for v in r["violations"]]
    vacuous = sum(r["comparisons"] == 0 for r in results)
    groups: dict[tuple[str, str, str], tuple] = {}
    for p, r in zip(points, results):
        if r["least"] is None:
            continue
        heads = "one head" if p["batch"] * p["heads"] == 1 else "heads"
        kind = p["kind"] + (" +hierarchy" if p["levels"] else "")
        key = (p["pass_"], kind, heads)
        if key not in groups or r["least"][0] < groups[key][0]:
            groups[key] = (*r["least"], {k: p[k] for k in ("n", "d", "M", "batch", "heads",
                                                           "kv_heads", "levels")})
    print(f"sandwich sweep, seed {args.seed}: {len(points)} points checked "
          f"({vacuous} with no algorithm fitting M), {comparisons} comparisons, "
          f"{len(violations)} violations, {seconds:.1f} s")
    for v in violations[:50]:
        print(v)
    print("least exact I/O / lower bound, per (pass, mask kind, heads):")
    for key in sorted(groups):
        ratio, io, bound, source, algorithm, where = groups[key]
        print(f"  {key[0]:<8} {key[1]:<18} {key[2]:<8} {float(ratio):8.4f}  "
              f"{algorithm} {io} / {bound} [{source}] at {where}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
