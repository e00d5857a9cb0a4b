"""Bounds of attnio.parallel (issue 22): the --workers cap, scheduler addresses checked and
probed (exit 2, one line, within the time limit), the deadline of map_instances, and Ctrl-C
during a LocalCluster's start-up (one line, exit 130, no worker traceback)."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.parallel import (
    InstanceTimedOut,
    _probe_scheduler,
    map_instances,
    max_workers,
    validate_scheduler_address,
    validate_workers,
)

ROOT = Path(__file__).resolve().parents[1]


def _attnio(*argv: str, timeout: float = 120, **popen: object) -> tuple[int, str, str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNIO_PROGRESS": "0"}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "attnio", *argv], capture_output=True,
                          text=True, env=env, timeout=timeout, **popen)  # type: ignore[call-overload]
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- --workers cap --------------------------------------------------------------------------

@pytest.mark.extra("parallel")
def test_workers_cap_is_four_per_core() -> None:
    cap = max_workers()
    assert cap == 4 * (os.cpu_count() or 1)
    validate_workers(cap)
    with pytest.raises(InvalidInputError, match=rf"workers={cap + 1} exceeds the cap {cap}"):
        validate_workers(cap + 1)


@pytest.mark.parametrize("command", [["pebble", "--builtin", "matmul:1x1x1", "--cache", "3"],
                                     ["verify", "--only", "sym"]])
def test_a_million_workers_is_refused_before_any_process(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    started = time.process_time()
    assert main([*command, "--workers", "1000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "workers=1000000 exceeds the cap" in err
    assert f"cap {max_workers()}" in err and err.startswith(f"attnio {command[0]}: error:")
    assert time.process_time() - started < 30  # refused at once (CPU; measured well under 1 s)


# -- scheduler addresses --------------------------------------------------------------------

@pytest.mark.parametrize("address,expected", [
    ("tcp://127.0.0.1:8786", ("tcp", "127.0.0.1", 8786)),
    ("tls://sched.example.org:443", ("tls", "sched.example.org", 443)),
    ("10.0.0.5", ("tcp", "10.0.0.5", 8786)),
    ("localhost:9000", ("tcp", "localhost", 9000)),
    ("tcp://[::1]:8786", ("tcp", "::1", 8786)),
])
def test_well_formed_scheduler_addresses(address: str, expected: tuple) -> None:
    assert validate_scheduler_address(address) == expected


@pytest.mark.parametrize("address,fragment", [
    ("nonsense", "must read [tcp://|tls://]HOST[:PORT]"),
    ("tcp://256.0.0.1:1", "is not an IPv4 address"),
    ("udp://1.2.3.4:5", "protocol 'udp'"),
    ("tcp://host:99999", "must be an integer 1-65535"),
    ("tcp://host:0", "must be an integer 1-65535"),
    ("tcp://[zz]:1", "is not an IPv6 address"),
    ("tcp://bad_host!:1", "is not a hostname"),
    ("", "must read"),
    (12, "must read"),
])
def test_malformed_scheduler_addresses(address: object, fragment: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        validate_scheduler_address(address)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_a_peer_that_is_no_scheduler_is_refused_at_once() -> None:
    # a server announcing a 2**62-byte first message (Dask would try to allocate it)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall((2**62).to_bytes(8, "little"))
            time.sleep(0.5)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        with pytest.raises(InvalidInputError, match="does not answer as a Dask scheduler"):
            _probe_scheduler(f"tcp://127.0.0.1:{port}", None)
    finally:
        thread.join(5)
        server.close()


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_silent_peer_is_refused_within_the_deadline() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)  # the kernel completes the connection; nobody ever speaks
    try:
        # the probe answers at its 1 s deadline; the pool's 120 s is only a hang guard (how
        # soon it answers is benchmarks/bench_interrupts.py's figure, not a timed assertion)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            probe = pool.submit(_probe_scheduler, f"tcp://127.0.0.1:{server.getsockname()[1]}",
                                time.monotonic() + 1.0)
            with pytest.raises(InvalidInputError, match="sent no Dask handshake within"):
                probe.result(timeout=120)
    finally:
        server.close()


@pytest.mark.parametrize("address,fragment", [
    ("nonsense", "must read"),
    ("tcp://256.0.0.1:1", "is not an IPv4 address"),
    pytest.param("tcp://127.0.0.1:{free}", "connection refused",  # probed once dask is there
                 marks=pytest.mark.extra("parallel")),
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_bad_scheduler_through_the_cli_is_exit_2_one_line(address: str, fragment: str) -> None:
    address = address.format(free=_free_port())
    code, out, err, _seconds = _attnio("pebble", "--builtin", "matmul:1x1x1", "--cache", "3",
                                      "--scheduler", address)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("attnio pebble: error: scheduler=") and fragment in err
    # was a traceback after 20 s; measured ~2 s with Python's start (timing: not asserted)


@pytest.mark.extra("parallel")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_verify_scheduler_probe_is_bounded_by_the_time_limit() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        code, _, err, _seconds = _attnio("verify", "--only", "sym", "--time-limit", "2",
                                        "--scheduler", f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
    assert code == 2 and err.count("\n") == 1 and "no Dask handshake" in err, err
    # the connection gets min(10 s, time left); measured ~3 s (timing: not asserted)


# -- deadline of map_instances --------------------------------------------------------------

def test_serial_deadline_times_out_the_rest_never_drops_them() -> None:
    seen: list[int] = []
    results = map_instances(abs, [-1, -2, -3], deadline=time.monotonic() - 1,
                            on_result=lambda i, _r: seen.append(i))
    assert seen == [] and all(isinstance(r, InstanceTimedOut) for r in results)
    assert [r.item for r in results] == [-1, -2, -3]
    assert map_instances(abs, [-1, -2], deadline=time.monotonic() + 3600) == [1, 2]
    assert map_instances(abs, [-1], deadline=time.monotonic() - 1,
                         on_timeout=lambda item: ("late", item)) == [("late", -1)]


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@pytest.mark.extra("parallel")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_cluster_deadline_returns_the_finished_instances() -> None:
    results = map_instances(_sleep, [0.0, 30.0], workers=2, processes=False,
                            deadline=time.monotonic() + 5)
    assert results[0] == 0.0 and isinstance(results[1], InstanceTimedOut)  # not waited for


# -- Ctrl-C during the start-up of --workers ------------------------------------------------

def _restore_sigint() -> None:  # a background shell may start us with SIGINT ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.extra("parallel")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_ctrl_c_during_worker_start_up_prints_one_line() -> None:
    import psutil  # type: ignore[import-untyped]  # a dependency of distributed
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNIO_PROGRESS": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "attnio", "pebble", "--builtin", "matmul:2x2x2", "--cache",
         "3:6", "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=True, preexec_fn=_restore_sigint)
    try:
        parent = psutil.Process(proc.pid)
        waited = time.monotonic()
        # the worker processes are being spawned (and import Dask for seconds): a terminal's
        # Ctrl-C goes to the whole process group
        while len(parent.children()) < 2 and time.monotonic() - waited < 90:
            assert proc.poll() is None
            time.sleep(0.05)
        children = parent.children(recursive=True)
        assert len(children) >= 2, "the workers never started"
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert err.decode() == "attnio pebble: interrupted\n", err.decode()[:2000]
    # how soon it exits (0.1-0.4 s measured) is benchmarks/bench_interrupts.py's figure;
    # communicate(timeout=60) above is the hang guard
    time.sleep(0.5)
    survivors = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE
                 and "resource_tracker" not in " ".join(c.cmdline())]
    assert survivors == []
