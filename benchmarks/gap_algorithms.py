"""The algorithm side of the constant gap at n = 4096, d = 64: best counted I/O per M and pass.

For every M of a fine sweep of [64, n·d] (geometric steps of 0.5 %, then every integer M in
a window of ±2 % around the worst points found — the worst ratios sit at the right end of a
block-size plateau, which a coarse grid misses), both passes: the least exact I/O over the
algorithms compared (closed forms of :mod:`attnio.algorithms`, equal to the executed counts),
the certified lower bound (:func:`attnio.bounds.attention.best_lower_bound`, every
computation) and their ratio. Prints the worst ratio, where it lies and which algorithm is
cheapest there, and a table at the grid points of ``benchmarks/gap_table.py``.

The exact worst over every integer M is ``attnio gap``'s job (issue 35, item 2); this script
compares algorithm sets (before / after a schedule is added) and never writes a file.

Run: ``PYTHONPATH=$PWD python benchmarks/gap_algorithms.py`` (≈ 1 min of CPU);
``--finite`` keeps the algorithms whose registry record declares them finite for every
finite logit (``AlgorithmSpec.finite``); ``--algorithms a,b,c`` names the set (default: every
registered algorithm of the pass except ``small-cache-dx``, whose computation is another
gradient, and ``flash1-published``, whose printed blocks do not fit); ``--without NAME``
drops one.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Iterable

from attnio.algorithms.registry import REGISTRY, algorithm_names, get_algorithm
from attnio.algorithms.simulation import count
from attnio.bounds.attention import best_lower_bound
from attnio.exceptions import CacheOverflowError, InfeasibleError

N, D = 4096, 64


def competes(name: str) -> bool:
    """Not compared: another computation (dL/dX), and printed blocks that never fit."""
    spec = REGISTRY[name]
    return spec.backward_computation != "dX" and spec.block_rule.variant != "published"


def coarse_grid(lo: int, hi: int, step: float = 1.005) -> list[int]:
    """Integers from lo to hi in geometric steps of ``step`` (every integer where denser)."""
    out, M = [], float(lo)
    while M <= hi:
        out.append(int(M))
        M *= step
    return sorted(set(out) | {hi})


def table_grid(n: int, d: int) -> list[int]:
    """The M values of benchmarks/gap_table.py: powers of two and 3·2^k in [64, nd]."""
    values = {2 ** k for k in range(6, 40)} | {3 * 2 ** k for k in range(5, 40)}
    return sorted(M for M in values if 64 <= M <= n * d)


def best_io(pass_: str, names: Iterable[str], n: int, d: int, M: int) -> tuple[int, str] | None:
    """(least exact I/O, its algorithm) at M, or None if no algorithm fits."""
    best: tuple[int, str] | None = None
    for name in names:
        try:
            io = count(name, pass_, n, d, M).io
        except (InfeasibleError, CacheOverflowError):
            continue
        if best is None or (io, name) < best:
            best = (io, name)
    return best


def ratio_at(pass_: str, names: tuple[str, ...], n: int, d: int, M: int
             ) -> tuple[float, int, int, str] | None:
    found = best_io(pass_, names, n, d, M)
    if found is None:
        return None
    bound = best_lower_bound(pass_, n, d, M).value
    return found[0] / bound, found[0], bound, found[1]


def sweep(pass_: str, names: tuple[str, ...], n: int, d: int, *, windows: int = 6
          ) -> dict[int, tuple[float, int, int, str]]:
    """Ratios on the coarse grid, then every integer M within ±2 % of the ``windows`` worst
    coarse points that are not neighbours of each other."""
    points = {M: r for M in coarse_grid(64, n * d)
              if (r := ratio_at(pass_, names, n, d, M)) is not None}
    order = sorted(points, key=lambda M: -points[M][0])
    centres: list[int] = []
    for M in order:
        if all(abs(M - c) > 0.05 * c for c in centres):
            centres.append(M)
        if len(centres) == windows:
            break
    for c in centres:
        for M in range(int(c * 0.98), int(c * 1.02) + 1):
            if M not in points and 64 <= M <= n * d:
                r = ratio_at(pass_, names, n, d, M)
                if r is not None:
                    points[M] = r
    return points


def default_names(pass_: str, finite: bool, without: set[str]) -> tuple[str, ...]:
    names = [a for a in algorithm_names(pass_) if competes(a) and a not in without]
    if finite:
        names = [a for a in names if get_algorithm(a).finite(pass_)]
    return tuple(names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pass", dest="pass_", choices=("forward", "backward", "both"),
                        default="both")
    parser.add_argument("--finite", action="store_true",
                        help="only algorithms declared finite for every finite logit")
    parser.add_argument("--algorithms", default="",
                        help="comma-separated names (default: every competing algorithm)")
    parser.add_argument("--without", action="append", default=[],
                        help="drop this algorithm (repeatable)")
    parser.add_argument("--n", type=int, default=N)
    parser.add_argument("--d", type=int, default=D)
    args = parser.parse_args(argv)
    passes = ("forward", "backward") if args.pass_ == "both" else (args.pass_,)
    started = time.process_time()
    for pass_ in passes:
        if args.algorithms:
            names = tuple(a for a in args.algorithms.split(",")
                          if a in REGISTRY and pass_ in REGISTRY[a].passes)
        else:
            names = default_names(pass_, args.finite, set(args.without))
        points = sweep(pass_, names, args.n, args.d)
        worst = max(points, key=lambda M: points[M][0])
        r, io, lb, name = points[worst]
        print(f"{pass_} (n={args.n}, d={args.d}; {', '.join(names)})")
        print(f"  worst ratio {r:.3f} at M = {worst:,}: {name} {io:,} / bound {lb:,} "
              f"({len(points):,} values of M)")
        print("  M        | best io       | algorithm           | bound        | ratio")
        for M in table_grid(args.n, args.d):
            rr = points.get(M) or ratio_at(pass_, names, args.n, args.d, M)
            if rr is not None:
                print(f"  {M:<8,} | {rr[1]:>13,} | {rr[3]:<19} | {rr[2]:>12,} | {rr[0]:.3f}")
        top = sorted(points, key=lambda M: -points[M][0])
        shown: list[int] = []
        for M in top:
            if all(abs(M - s) > 0.05 * s for s in shown):
                shown.append(M)
            if len(shown) == 5:
                break
        print("  local worst: " + "; ".join(
            f"M = {M:,}: {points[M][0]:.3f} ({points[M][3]})" for M in shown))
    print(f"CPU {time.process_time() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
