"""Benchmark: how long each test tier takes; writes tests/tier_times.json (issue 40, item 1).

Runs ``python -m pytest`` (the default tier: pyproject's addopts, xdist on up to 4 workers) and
``python -m pytest --runslow -m slow`` (the slow tier alone), each in a fresh process, and
records wall seconds and the CPU seconds of the whole process tree (user + sys of pytest, its
xdist workers and their children: ``os.wait4``'s resource usage of a process that waited for
all of them). ``pytest`` prints these figures at the start of every run (conftest.py,
``pytest_report_header``). Measure on an idle machine: wall time stretches with load, CPU time
much less.

Run: ``python3 benchmarks/test_tiers.py`` (both tiers, ~25 min on 2 cores) or
``--tier default`` / ``--tier slow``; ``--dry-run`` prints without writing the file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "tests" / "tier_times.json"
TIERS = {"default": [], "slow": ["--runslow", "-m", "slow"]}


def run_tier(arguments: list[str]) -> dict[str, object]:
    """Wall and CPU seconds of one ``pytest`` run; its exit code and summary line."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    start = time.monotonic()
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    lines = child.stdout.readlines()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    summary = next((line.strip() for line in reversed(lines) if " in " in line), "")
    return {"command": " ".join(["python -m pytest", *arguments]),
            "wall_s": round(wall), "cpu_s": round(usage.ru_utime + usage.ru_stime),
            "exit_code": os.waitstatus_to_exitcode(status), "summary": summary}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=[*TIERS, "both"], default="both")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    figures = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    for tier in TIERS if args.tier == "both" else [args.tier]:
        load = round(os.getloadavg()[0], 1)
        measured = run_tier(TIERS[tier])
        measured.update(date=dt.date.today().isoformat(), cores=os.cpu_count(),
                        machine=platform.machine(), load_before=load)
        print(f"{tier}: {measured['wall_s']} s wall, {measured['cpu_s']} s CPU "
              f"(exit {measured['exit_code']}): {measured['summary']}")
        figures[tier] = measured
    if not args.dry_run:
        FIGURES.write_text(json.dumps(figures, indent=1) + "\n")
        print(f"wrote {FIGURES.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
