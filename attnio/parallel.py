"""Run independent instances (DAG × cache size, claims, random DAGs) serially or on Dask.

:func:`map_instances` is ``[fn(item) for item in items]`` with three ways to run it:

* serially in this process (the default: no ``workers``, no ``scheduler``);
* ``workers=N``: a ``dask.distributed`` LocalCluster of N worker processes on this machine
  (one thread each: the searches are pure Python and hold the GIL), started and closed here;
* ``scheduler="tcp://host:8786"``: an existing Dask cluster (``dask scheduler`` on one
  machine, ``dask worker tcp://host:8786`` on each of the others; every machine needs attnio
  installed, the same version).

Dask is the optional extra ``parallel`` (``pip install 'attnio[parallel]'``): serial runs never
import it, and ``workers`` or ``scheduler`` without it is
:class:`~attnio.exceptions.MissingExtraError` (exit 2, one line) from :func:`validate_workers`.

Whatever the way, the results come back **in the order of** ``items`` and are the same as
the serial run's (each instance is computed by the same function on the same input; only
time-limited instances can end differently, as they would in two serial runs). A worker
that dies while computing an instance (killed, out of memory) gets the instance **retried
once** on another worker; if it dies again the instance's result is ``on_failure(item,
reason)`` — reported, never dropped. An exception raised by ``fn`` itself is raised here,
as in the serial run. Progress ("instances done / total") is a tqdm bar on stderr
(:mod:`attnio.progress`: shown when stderr is a terminal).

``fn`` and the items must be picklable (a module-level function, plain data).

Bounds (issue 22: every input bounded)
--------------------------------------
* ``workers`` is at most :func:`max_workers` = :data:`WORKERS_PER_CORE` × ``os.cpu_count()``:
  more single-threaded workers than that only compete for the cores (and each costs a Python
  process of ~100 MB), so a larger value is bad input (exit 2), refused before any process
  starts.
* ``scheduler`` must read ``[tcp://|tls://]HOST[:PORT]`` (HOST a hostname, a dotted IPv4
  address with octets ≤ 255, or ``[IPv6]``; PORT 1–65535, default 8786; a bare word such as
  ``nonsense`` is taken for a typo): checked before any connection. The connection then gets
  at most :data:`CONNECT_SECONDS` (and never more than the time left before ``deadline``); a
  refused, unresolvable or silent address, or a peer that does not open with a Dask handshake,
  is :class:`InvalidInputError` (exit 2, one line), never a traceback.
* ``deadline`` (a :func:`time.monotonic` instant): no instance starts after it; the start-up
  of a LocalCluster and the wait for results end at it. Unfinished instances come back as
  ``on_timeout(item)`` (default :class:`InstanceTimedOut`), never dropped and never a pass.
* Ctrl-C: a LocalCluster is started from a thread that blocks SIGINT, so its worker processes
  (and the threads that spawn them) inherit a blocked SIGINT: a terminal's Ctrl-C, sent to the
  whole process group, reaches only attnio's main process, never a worker half-way through its
  imports (which printed dozens of traceback lines). attnio then stops the nannies from
  restarting workers, SIGKILLs every process started for the cluster (the workers print
  nothing; none outlives attnio) and the command line prints its one
  ``attnio <cmd>: interrupted`` line. The multiprocessing resource tracker is started with its
  stderr on ``/dev/null`` (it would warn about the semaphores of the killed workers).

Examples
--------
>>> map_instances(abs, [-2, 3, -5])
[2, 3, 5]
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import signal
import socket
import sys
import threading
import time
import uuid
import weakref
from typing import Any, Callable, Iterable, Sequence, TypeVar

from attnio.exceptions import InvalidInputError
from attnio.extras import require
from attnio.progress import progress, progress_enabled
from attnio.results import OlderNames, Status
from attnio.validation import describe, positive_int

__all__ = ["map_instances", "validate_workers", "validate_scheduler_address", "max_workers",
           "InstanceFailed", "InstanceTimedOut", "RETRIES", "WORKERS_PER_CORE",
           "CONNECT_SECONDS", "DEFAULT_SCHEDULER_PORT"]

T = TypeVar("T")
R = TypeVar("R")

#: How many times an instance whose worker died is tried again before it is reported.
RETRIES = 1
#: ``workers`` may be at most this many times ``os.cpu_count()`` (see :func:`max_workers`).
WORKERS_PER_CORE = 4
#: Seconds allowed to reach a ``scheduler`` (less when the deadline is nearer).
CONNECT_SECONDS = 10.0
#: Seconds a client or LocalCluster may take to close before its workers are killed.
CLOSE_SECONDS = 3
#: Port of a scheduler address that names none (Dask's default).
DEFAULT_SCHEDULER_PORT = 8786


class InstanceFailed(OlderNames):
    """Default result of an instance whose worker died ``1 + RETRIES`` times: ``verdict``
    undecided, ``detail`` the reason (``status`` and ``reason`` are the older names)."""

    __slots__ = ("item", "detail")
    verdict = Status.UNDECIDED

    def __init__(self, item: Any, reason: str) -> None:
        self.item, self.detail = item, reason

    def __repr__(self) -> str:
        return f"InstanceFailed({self.item!r}, {self.detail!r})"


class InstanceTimedOut:
    """Default result of an instance not finished when the deadline passed."""

    __slots__ = ("item",)
    verdict = status = Status.UNDECIDED

    def __init__(self, item: Any) -> None:
        self.item = item

    def __repr__(self) -> str:
        return f"InstanceTimedOut({self.item!r})"


def max_workers() -> int:
    """The largest accepted ``workers``: :data:`WORKERS_PER_CORE` × the machine's cores.

    >>> max_workers() >= WORKERS_PER_CORE
    True
    """
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def validate_workers(workers: object, scheduler: object = None) -> None:
    """Raise :class:`InvalidInputError` unless ``workers`` is None or a positive int at most
    :func:`max_workers`, ``scheduler`` is None or a well-formed address
    (:func:`validate_scheduler_address`), and at most one of the two is given; then
    :class:`~attnio.exceptions.MissingExtraError` if either is given without the ``parallel``
    extra (dask). Serial runs (both None) need no dask.

    >>> validate_workers(None)  # serial: needs no dask
    >>> validate_workers(0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: workers=0 must be a positive integer
    >>> validate_workers(10 ** 6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: workers=1000000 exceeds the cap ... cores)...
    """
    if workers is not None:
        positive_int("workers", workers)
        cap = max_workers()
        if workers > cap:  # type: ignore[operator]
            raise InvalidInputError(
                f"workers={workers} exceeds the cap {cap} ({WORKERS_PER_CORE} × "
                f"{os.cpu_count() or 1} cores): more workers only compete for the cores")
    if workers is not None and scheduler is not None:
        raise InvalidInputError("give workers (a local cluster) or scheduler (an existing "
                                "cluster), not both")
    if scheduler is not None:
        validate_scheduler_address(scheduler)
    if workers is not None or scheduler is not None:  # the values first, then the install
        require("parallel", "--workers" if workers is not None else "--scheduler")


_PROTOCOLS = ("tcp", "tls")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_ADDRESS = re.compile(r"(?:(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[^\]]*\]|[^:/\[\]]*)(?::(?P<port>[^:/]*))?")


def validate_scheduler_address(address: object) -> tuple[str, str, int]:
    """``(protocol, host, port)`` of a well-formed scheduler address, else
    :class:`InvalidInputError` naming the address and the rule. Nothing is contacted.

    >>> validate_scheduler_address("tcp://127.0.0.1:8786")
    ('tcp', '127.0.0.1', 8786)
    >>> validate_scheduler_address("scheduler.example.org")
    ('tcp', 'scheduler.example.org', 8786)
    >>> validate_scheduler_address("tcp://256.0.0.1:1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: scheduler='tcp://256.0.0.1:1'...is not an IPv4 address...
    """
    rule = "must read [tcp://|tls://]HOST[:PORT], e.g. tcp://10.0.0.5:8786"
    shown = describe(address, 80)
    if not isinstance(address, str) or not address.strip():
        raise InvalidInputError(f"scheduler={shown} {rule}")
    match = _ADDRESS.fullmatch(address.strip())
    if match is None:
        raise InvalidInputError(f"scheduler={shown} {rule}")
    protocol = (match["protocol"] or "tcp").lower()
    if protocol not in _PROTOCOLS:
        raise InvalidInputError(f"scheduler={shown}: protocol {protocol!r} is not one of "
                                f"{', '.join(_PROTOCOLS)}; the address {rule}")
    host, port_text = match["host"], match["port"]
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise InvalidInputError(f"scheduler={shown}: {host} is not an IPv6 address") from None
        host = host[1:-1]
    elif re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise InvalidInputError(f"scheduler={shown}: {host!r} is not an IPv4 address "
                                    f"(four numbers 0-255)") from None
    elif (not host or len(host) > 253
          or not all(_LABEL.fullmatch(label) for label in host.rstrip(".").split("."))):
        raise InvalidInputError(f"scheduler={shown}: host {describe(host, 40)} is not a "
                                f"hostname or IP address; the address {rule}")
    if match["port"] is None and not match["protocol"] and "." not in host and \
            host != "localhost":
        # a bare word ("nonsense") is far more likely a typo than a machine's name
        raise InvalidInputError(f"scheduler={shown} {rule}")
    port = DEFAULT_SCHEDULER_PORT
    if port_text is not None:
        if not re.fullmatch(r"[0-9]{1,5}", port_text) or not 1 <= int(port_text) <= 65535:
            raise InvalidInputError(f"scheduler={shown}: port {describe(port_text, 20)} must "
                                    f"be an integer 1-65535")
        port = int(port_text)
    return protocol, host, port


def _connect_seconds(deadline: float | None) -> float:
    """:data:`CONNECT_SECONDS`, or less when the deadline is nearer (at least 0.1 s)."""
    if deadline is None:
        return CONNECT_SECONDS
    return max(0.1, min(CONNECT_SECONDS, deadline - time.monotonic()))


def _probe_scheduler(address: str, deadline: float | None) -> float:
    """Open (and close) a TCP connection to ``address``; return the seconds the Dask client
    may take. A refused, unresolvable or silent address is :class:`InvalidInputError` at once
    (Dask itself retries a refused port until its timeout)."""
    protocol, host, port = validate_scheduler_address(address)
    seconds = _connect_seconds(deadline)
    shown = describe(address, 80)
    try:
        with socket.create_connection((host, port), timeout=seconds) as sock:
            if protocol == "tcp":
                _check_handshake(sock, shown, host, port, deadline)
    except socket.gaierror:
        raise InvalidInputError(f"scheduler={shown}: host {host!r} cannot be resolved") from None
    except ConnectionRefusedError:
        raise InvalidInputError(f"scheduler={shown}: nothing listens at {host}:{port} "
                                f"(connection refused)") from None
    except (TimeoutError, socket.timeout):
        raise InvalidInputError(f"scheduler={shown}: no answer from {host}:{port} within "
                                f"{seconds:.1f} s") from None
    except OSError as exc:
        raise InvalidInputError(f"scheduler={shown} cannot be reached: "
                                f"{exc.strerror or exc}") from None
    return _connect_seconds(deadline)


#: A Dask scheduler's first message (its handshake) is far smaller than this many bytes.
MAX_HANDSHAKE_BYTES = 2**20


def _check_handshake(sock: socket.socket, shown: str, host: str, port: int,
                     deadline: float | None) -> None:
    """A Dask scheduler speaks first: 8 bytes giving the length of its (small) handshake.
    A silent peer, or one announcing more than :data:`MAX_HANDSHAKE_BYTES`, is not a
    scheduler (Dask itself would wait, or try to allocate that many bytes)."""
    seconds = _connect_seconds(deadline)
    sock.settimeout(seconds)
    header = b""
    try:
        while len(header) < 8:
            chunk = sock.recv(8 - len(header))
            if not chunk:
                break
            header += chunk
    except (TimeoutError, socket.timeout):
        raise InvalidInputError(f"scheduler={shown}: {host}:{port} accepts connections but "
                                f"sent no Dask handshake within {seconds:.1f} s") from None
    length = int.from_bytes(header, "little") if len(header) == 8 else None
    if length is None or not 0 < length <= MAX_HANDSHAKE_BYTES:
        raise InvalidInputError(f"scheduler={shown}: {host}:{port} does not answer as a Dask "
                                f"scheduler")


def map_instances(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress_bar: bool | None = None,
    desc: str = "instances",
    on_failure: Callable[[T, str], R] | None = None,
    on_result: Callable[[int, R], None] | None = None,
    processes: bool = True,
    deadline: float | None = None,
    on_timeout: Callable[[T], R] | None = None,
) -> list[R]:
    """``[fn(item) for item in items]``, serially or on a Dask cluster, in order.

    Parameters
    ----------
    fn : callable
        Applied to each item (module-level, picklable, for Dask).
    items : iterable
        The instances.
    workers : int, optional
        Start a LocalCluster with this many single-threaded workers (at most
        :func:`max_workers`).
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``).
    progress_bar : bool, optional
        Instances done / total on stderr (default: when stderr is a terminal).
    desc : str
        Label of the progress bar.
    on_failure : callable, optional
        ``on_failure(item, reason)`` gives the result of an instance whose worker died
        twice; default :class:`InstanceFailed`.
    on_result : callable, optional
        ``on_result(index, result)`` as each instance finishes (in the order they finish),
        e.g. to print results in order as soon as every earlier one is done.
    processes : bool
        LocalCluster workers as processes (default) or threads (cheap to start: tests).
    deadline : float, optional
        A :func:`time.monotonic` instant: no instance starts after it, and a cluster's results
        are awaited until it at most.
    on_timeout : callable, optional
        ``on_timeout(item)`` gives the result of an instance not finished by ``deadline``;
        default :class:`InstanceTimedOut`.

    Returns
    -------
    list
        One result per item, in the order of ``items``.

    Raises
    ------
    InvalidInputError
        Bad ``workers`` / ``scheduler``; a scheduler that cannot be reached.
    """
    validate_workers(workers, scheduler)
    items = list(items)
    report = on_result or (lambda _index, _result: None)
    timed_out: Callable[[Any], Any] = on_timeout or InstanceTimedOut
    if workers is None and scheduler is None:
        results: list[Any] = []
        for index, item in enumerate(progress(items, total=len(items), desc=desc,
                                              enabled=progress_bar)):
            if deadline is not None and time.monotonic() >= deadline:
                break
            results.append(fn(item))
            report(index, results[-1])
        return results + [timed_out(item) for item in items[len(results):]]
    fail = on_failure or InstanceFailed
    if not items:
        return []
    return _map_on_dask(fn, items, workers, scheduler, progress_bar, desc, fail, report,
                        processes, deadline, timed_out)


# --------------------------------------------------------------------------------------------
# processes started for a LocalCluster: killed at once on Ctrl-C, silently
# --------------------------------------------------------------------------------------------

_cluster_lock = threading.Lock()
#: pids of this process's descendants before the running LocalCluster started (None: none runs)
_baseline: set[int] | None = None
_interrupt_hook_installed = False
#: Passes of :func:`_kill_cluster_processes` (a restarted or half-spawned worker is caught).
KILL_PASSES = 6


def _descendants() -> set[int]:
    try:
        import psutil  # type: ignore[import-untyped]  # a dependency of distributed
    except ImportError:  # pragma: no cover
        return set()
    try:
        return {child.pid for child in psutil.Process().children(recursive=True)}
    except psutil.Error:  # pragma: no cover
        return set()


def _kill_cluster_processes() -> None:
    """SIGKILL every process started since the running LocalCluster began (its workers, also
    those still importing); never one that existed before, never a remote worker."""
    with _cluster_lock:
        baseline = _baseline
    if baseline is None:
        return
    _no_restarts()
    killed: set[int] = set()
    # A nanny restarts a worker that died, and a spawn may be under way: a few passes, until
    # one finds nothing new (at most KILL_PASSES × 0.05 s)
    for _ in range(KILL_PASSES):
        fresh = _descendants() - baseline - killed
        if not fresh and killed:
            break
        for pid in sorted(fresh):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        killed |= fresh
        time.sleep(0.05)


def _no_restarts() -> None:
    """Mark the nannies of the clusters started here as closing: a nanny restarts a worker
    that dies, and the new one (still importing Dask) would outlive attnio by seconds."""
    try:
        from distributed.core import Status as DaskStatus
        from distributed.deploy.spec import SpecCluster

        for cluster in list(SpecCluster._instances):
            if cluster in _clusters_before:
                continue
            for nanny in list(getattr(cluster, "workers", {}).values()):
                if hasattr(nanny, "status"):
                    nanny.status = DaskStatus.closing_gracefully
    except Exception:  # best effort: the kill passes below still run
        pass


def _quiet_and_kill() -> None:
    """Ctrl-C on the command line (the process ends within a second): no more log records or
    warnings (a killed worker's closing comms would log errors, on the ``asyncio`` logger
    too), and the cluster's processes killed."""
    logging.disable(logging.CRITICAL)
    import warnings

    warnings.simplefilter("ignore")
    _kill_cluster_processes()


def _start_resource_tracker_quietly() -> None:
    """Start multiprocessing's resource tracker with its stderr on /dev/null (once).

    The tracker outlives a killed worker and warns about its semaphores ("leaked semaphore
    objects") on attnio's stderr, after attnio's own last line; it cleans them up either way.
    Our stderr is redirected for the few milliseconds of the spawn only."""
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is None or getattr(tracker, "_fd", None) is not None:
        return
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    saved = devnull = -1
    try:
        saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        resource_tracker.ensure_running()
    except OSError:  # no fd 2 or no /dev/null: the tracker starts later, as usual
        pass
    finally:
        if saved >= 0:
            os.dup2(saved, 2)
            os.close(saved)
        if devnull >= 0:
            os.close(devnull)


#: SpecClusters that existed before ours started (never touched by :func:`_no_restarts`)
_clusters_before: "weakref.WeakSet[Any]" = weakref.WeakSet()
#: LocalClusters whose start-up outlived the deadline (their start-up thread closes them)
_abandoned_clusters: "weakref.WeakSet[Any]" = weakref.WeakSet()


def _disown_abandoned_clusters() -> None:
    """Keep Dask's exit hook off the abandoned clusters: closing one still starting fails
    with a traceback after a 10 s wait. Runs now and, registered after Dask's own hook
    (atexit is last-in first-out), again at exit."""
    for cluster in list(_abandoned_clusters):
        cluster.shutdown_on_close = False


def _start_local_cluster(workers: int, processes: bool, LocalCluster: Any,
                         Client: Any, deadline: float | None) -> tuple[Any, Any] | None:
    """Start a LocalCluster and its client from a thread that blocks SIGINT; None if the
    deadline passes first (the processes started are killed, a cluster finished later is
    closed by the start-up thread).

    Threads and processes inherit the signal mask of the thread that creates them: the
    cluster's event-loop thread, the threads that spawn the workers and the worker processes
    all block SIGINT, so a Ctrl-C reaches only this process. The main thread waits in short
    joins, so its KeyboardInterrupt comes at once; the caller then kills the workers."""
    global _baseline, _interrupt_hook_installed
    if processes:
        _start_resource_tracker_quietly()
    with _cluster_lock:
        _baseline = _descendants()
    if not _interrupt_hook_installed:
        import atexit

        from attnio import interrupts

        interrupts.on_interrupt(_quiet_and_kill)  # only active on the command line
        atexit.register(_disown_abandoned_clusters)  # after Dask's hook: runs before it
        _interrupt_hook_installed = True
    box: dict[str, Any] = {}
    abandoned = threading.Event()

    def build() -> None:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            box["cluster"] = LocalCluster(n_workers=workers, threads_per_worker=1,
                                          processes=processes, dashboard_address=":0",
                                          silence_logs=logging.CRITICAL)
            box["client"] = Client(box["cluster"], set_as_default=False)
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc
        if abandoned.is_set():  # the caller gave up waiting: nobody else will close it
            for part in ("client", "cluster"):
                try:
                    box[part].close(timeout=CLOSE_SECONDS)
                except Exception:
                    pass

    from distributed.deploy.spec import SpecCluster

    before = set(SpecCluster._instances)
    _clusters_before.clear()
    _clusters_before.update(before)
    thread = threading.Thread(target=build, name="attnio dask start-up", daemon=True)
    thread.start()
    while thread.is_alive():
        if deadline is not None and time.monotonic() >= deadline:
            abandoned.set()
            _kill_cluster_processes()
            _abandoned_clusters.update(set(SpecCluster._instances) - before)
            _disown_abandoned_clusters()
            return None
        thread.join(0.1)
    if "error" in box:
        raise box["error"]
    return box["cluster"], box["client"]


def _map_on_dask(fn: Callable, items: Sequence, workers: int | None, scheduler: str | None,
                 progress_bar: bool | None, desc: str, fail: Callable, report: Callable,
                 processes: bool, deadline: float | None, timed_out: Callable) -> list:
    global _baseline
    if scheduler is not None:
        connect_seconds = _probe_scheduler(scheduler, deadline)  # fast, before importing dask
    import dask
    from distributed import Client, LocalCluster, as_completed
    from distributed.scheduler import KilledWorker

    cluster = client = None
    # Dask's own log lines (comms closing at the end or on Ctrl-C) would clutter stderr,
    # which carries attnio's one-line messages; errors reach us through the futures
    dask_log = logging.getLogger("distributed")
    log_level = dask_log.level
    dask_log.setLevel(logging.CRITICAL)
    interrupted = False
    # The scheduler itself retries a task whose worker died ``allowed-failures`` times;
    # here it is 0 and the retry is ours (RETRIES), so "retried once" holds exactly on a
    # LocalCluster. An existing cluster keeps its own setting (then more tries happen).
    # Worker saturation 1.0: a worker holds only the task it computes (the others wait at
    # the scheduler), so a dying worker takes no innocent instance with it.
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}):
        try:
            if scheduler is not None:
                try:
                    client = Client(scheduler, timeout=f"{connect_seconds:.1f}s",
                                    set_as_default=False)
                except Exception as exc:  # OSError, TimeoutError, a peer speaking nonsense
                    raise InvalidInputError(
                        f"scheduler={describe(scheduler, 80)} cannot be reached: "
                        f"{' '.join(str(exc).split())}") from None
            else:
                assert workers is not None
                started = _start_local_cluster(workers, processes, LocalCluster, Client,
                                               deadline)
                if started is None:  # the deadline passed during the start-up
                    return [timed_out(item) for item in items]
                cluster, client = started
            return _gather_in_order(client, fn, items, progress_bar, desc, fail, report,
                                    as_completed, KilledWorker, deadline, timed_out)
        except KeyboardInterrupt:
            # Ctrl-C: a graceful close waits for the running instances (seconds); the
            # worker processes of our own cluster are killed first, then closing is quick
            interrupted = True
            _kill_cluster_processes()
            raise
        finally:
            close_seconds = 0.5 if interrupted else CLOSE_SECONDS  # workers already killed
            try:
                if client is not None:
                    client.close(timeout=close_seconds)
                if cluster is not None:
                    cluster.close(timeout=close_seconds)
            except Exception:  # a close that times out (workers busy or dead) loses nothing:
                _kill_cluster_processes()  # the results are in; end our workers instead
            if cluster is not None or scheduler is None:
                with _cluster_lock:
                    _baseline = None
            if not interrupted:  # on Ctrl-C the process ends now: keep Dask quiet until then
                dask_log.setLevel(log_level)


def _gather_in_order(client: Any, fn: Callable, items: Sequence, progress_bar: bool | None,
                     desc: str, fail: Callable, report: Callable, as_completed: Any,
                     KilledWorker: type, deadline: float | None, timed_out: Callable) -> list:
    run = uuid.uuid4().hex[:8]
    tries = [0] * len(items)
    index_of: dict[str, int] = {}
    done = [False] * len(items)

    def submit(i: int) -> Any:
        tries[i] += 1
        key = f"attnio-{run}-{i}-try{tries[i]}"
        future = client.submit(fn, items[i], key=key, pure=False, retries=0)
        index_of[future.key] = i
        return future

    results: list[Any] = [None] * len(items)
    bar = None
    if progress_enabled(progress_bar):
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc, unit=" instances", file=sys.stderr,
                   leave=False)
    futures = [submit(i) for i in range(len(items))]
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    pending = as_completed(futures, loop=client.loop, timeout=timeout)
    try:
        for future in pending:
            i = index_of.pop(future.key)
            if future.status == "error":
                exc = future.exception()
                if isinstance(exc, KilledWorker):
                    if tries[i] <= RETRIES:
                        pending.add(submit(i))
                        continue
                    results[i] = fail(items[i], f"a Dask worker died while computing "
                                                f"this instance, {tries[i]} times")
                else:
                    future.result()  # raises fn's own exception, as the serial run would
            else:
                results[i] = future.result()
            done[i] = True
            report(i, results[i])
            if bar is not None:
                bar.update(1)
    except TimeoutError:  # the deadline passed: the unfinished instances are timed out
        client.cancel(list(pending.futures) if hasattr(pending, "futures") else futures)
        for i, finished in enumerate(done):
            if not finished:
                results[i] = timed_out(items[i])
    finally:
        if bar is not None:
            bar.close()
    return results
