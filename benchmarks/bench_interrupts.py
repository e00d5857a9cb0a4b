"""Benchmark of attnio's promptness promises (prints figures; not a timed test).

1. Ctrl-C while ``attnio pebble --workers 2`` starts its Dask workers, and (1b) in the
   serial runs of tests/test_interrupts.py (a pebble search, verify among its claims):
   seconds from the SIGINT to the exit (promised: within a second; exit code 130, one line).
2. ``--scheduler`` pointed at a peer that accepts the connection and never speaks: seconds
   until the one-line refusal (promised: the probe's deadline,
   :data:`attnio.parallel.CONNECT_SECONDS` without ``--time-limit``, plus start-up).

The tests (tests/test_parallel_bounds.py) check what happens — the exit code, the one line,
no worker left — with hang guards only; how soon is this script's figure, so that a busy
machine never fails a test.

Run: ``python3 benchmarks/bench_interrupts.py [--trials N]`` (needs the ``parallel`` extra).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ctrl_c_seconds() -> tuple[float, int, str]:
    """(seconds from SIGINT to exit, exit code, stderr) for one run."""
    import psutil  # a dependency of distributed (the parallel extra)

    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNIO_PROGRESS": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "attnio", "pebble", "--builtin", "matmul:2x2x2", "--cache",
         "3:6", "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                 signal.default_int_handler))
    try:
        parent = psutil.Process(proc.pid)
        waited = time.monotonic()
        while len(parent.children()) < 2 and time.monotonic() - waited < 90:
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        signalled = time.monotonic()
        _, err = proc.communicate(timeout=120)
        return time.monotonic() - signalled, proc.returncode, err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def serial_ctrl_c_seconds(argv: list[str], wait_for: str | None,
                          settle: float) -> tuple[float, int, str]:
    """(seconds from SIGINT to exit, exit code, stderr) of a serial ``attnio *argv``, signalled
    once ``wait_for`` is printed (or after ``settle`` seconds when it is None)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNIO_PROGRESS": "0",
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "attnio", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    try:
        if wait_for is not None:
            assert proc.stdout is not None
            while wait_for not in (proc.stdout.readline() or wait_for):
                pass
        time.sleep(settle)
        proc.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _, err = proc.communicate(timeout=120)
        return time.monotonic() - signalled, proc.returncode, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


#: The serial runs of tests/test_interrupts.py whose promptness the tests only guard.
SERIAL_CASES = (
    ("attnio pebble, inside a search",
     ["pebble", "--builtin", "attention-backward:n=2,d=1", "--cache", "2:5", "--time-limit",
      "300"], "M=2: infeasible", 0.5),
    ("attnio verify, among the claims", ["verify"], None, 4.0),
)


def silent_peer_seconds() -> float:
    """Seconds until ``--scheduler`` at a silent peer is refused (one line, exit 2)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        started = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-m", "attnio", "pebble", "--builtin", "matmul:1x1x1", "--M", "3",
             "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}"],
            capture_output=True, text=True, timeout=120, env={**os.environ,
                                                              "PYTHONPATH": str(ROOT)})
        seconds = time.monotonic() - started
        print(f"    exit {out.returncode}: {out.stderr.strip()[:120]}")
        return seconds
    finally:
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    trials = parser.parse_args().trials
    print("1. Ctrl-C while Dask workers start (attnio pebble --workers 2):")
    runs = [ctrl_c_seconds() for _ in range(trials)]
    for seconds, code, err in runs:
        print(f"    {seconds:.2f} s to exit, code {code}, stderr {err.strip()!r}")
    print(f"    median {statistics.median(r[0] for r in runs):.2f} s (promised: < 1 s)")
    for label, argv, wait_for, settle in SERIAL_CASES:
        print(f"1b. Ctrl-C in {label}:")
        serial = [serial_ctrl_c_seconds(argv, wait_for, settle) for _ in range(trials)]
        for seconds, code, err in serial:
            print(f"    {seconds:.2f} s to exit, code {code}, stderr {err.strip()[-80:]!r}")
        print(f"    median {statistics.median(r[0] for r in serial):.2f} s (promised: < 1 s)")
    print("2. --scheduler at a silent peer (wall time of the whole command, start-up "
          "included):")
    times = [silent_peer_seconds() for _ in range(trials)]
    print(f"    median {statistics.median(times):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
