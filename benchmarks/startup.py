"""Benchmark: the CPU time a command costs before it answers (issue 40, item 6).

Each command runs in a fresh ``python -m attnio`` subprocess, ``REPEATS`` times; the figure is
the median of the child's user + sys CPU seconds (``os.wait4``'s resource usage: what the
command did, not how long a busy machine made it wait). Printed beside the targets and beside
:data:`BASELINE`, the same figures measured on the tree before the lazy imports.

Run: ``python3 benchmarks/startup.py`` (``--repeats N`` to change the 5 runs per command).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

#: The commands timed, with the CPU budget of issue 40 (seconds).
COMMANDS: list[tuple[str, list[str], float]] = [
    ("--version", ["--version"], 0.3),
    ("--help", ["--help"], 0.3),
    ("bounds", ["bounds", "--n", "64", "--d", "8", "--M", "64"], 0.8),
    ("simulate", ["simulate", "--n", "64", "--d", "8", "--M", "64"], 0.8),
]

#: Median user + sys CPU seconds before the change (2026-12-06, commit 172d5fc, the shared
#: 2-core machine while the test suite ran on it, 5 runs each).
BASELINE: dict[str, float] = {"--version": 0.10, "--help": 0.09, "bounds": 1.48,
                              "simulate": 1.24}

#: Fresh runs each: the child's byte-code cache is warm after the first run.
REPEATS = 5


def cpu_seconds(arguments: list[str]) -> float:
    """User + sys CPU seconds of one ``python -m attnio ARGUMENTS`` run (output discarded)."""
    child = subprocess.Popen([sys.executable, "-m", "attnio", *arguments],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"attnio {' '.join(arguments)} exited {child.returncode}")
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    repeats = parser.parse_args(argv).repeats
    cpu_seconds(["--version"])  # warm the byte-code cache
    print(f"start-up CPU (user + sys), median of {repeats} runs; baseline 2026-12-06")
    print(f"{'command':<11}{'now s':>8}{'baseline s':>12}{'target s':>10}  verdict")
    for label, arguments, target in COMMANDS:
        runs = [cpu_seconds(arguments) for _ in range(repeats)]
        now = statistics.median(runs)
        verdict = "ok" if now <= target else "OVER"
        print(f"{label:<11}{now:>8.2f}{BASELINE[label]:>12.2f}{target:>10.2f}  {verdict}")


if __name__ == "__main__":
    main()
