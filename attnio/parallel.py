"""Run independent instances (DAG × cache size, claims, random DAGs) serially or on Dask.

:func:`map_instances` is ``[fn(item) for item in items]`` with three ways to run it:

* serially in this process (the default: no ``workers``, no ``scheduler``);
* ``workers=N``: a ``dask.distributed`` LocalCluster of N worker processes on this machine
  (one thread each: the searches are pure Python and hold the GIL), started and closed here;
* ``scheduler="tcp://host:8786"``: an existing Dask cluster (``dask scheduler`` on one
  machine, ``dask worker tcp://host:8786`` on each of the others; every machine needs attnio
  installed, the same version).

Whatever the way, the results come back **in the order of** ``items`` and are the same as
the serial run's (each instance is computed by the same function on the same input; only
time-limited instances can end differently, as they would in two serial runs). A worker
that dies while computing an instance (killed, out of memory) gets the instance **retried
once** on another worker; if it dies again the instance's result is ``on_failure(item,
reason)`` — reported, never dropped. An exception raised by ``fn`` itself is raised here,
as in the serial run. Progress ("instances done / total") is a tqdm bar on stderr
(:mod:`attnio.progress`: shown when stderr is a terminal).

``fn`` and the items must be picklable (a module-level function, plain data).

Examples
--------
>>> map_instances(abs, [-2, 3, -5])
[2, 3, 5]
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Callable, Iterable, Sequence, TypeVar

from attnio.exceptions import InvalidInputError
from attnio.progress import progress, progress_enabled
from attnio.results import Status
from attnio.validation import positive_int

__all__ = ["map_instances", "check_workers", "InstanceFailed", "RETRIES"]

T = TypeVar("T")
R = TypeVar("R")

#: How many times an instance whose worker died is tried again before it is reported.
RETRIES = 1


class InstanceFailed:
    """Default result of an instance whose worker died ``1 + RETRIES`` times."""

    __slots__ = ("item", "reason")
    status = Status.UNDECIDED

    def __init__(self, item: Any, reason: str) -> None:
        self.item, self.reason = item, reason

    def __repr__(self) -> str:
        return f"InstanceFailed({self.item!r}, {self.reason!r})"


def check_workers(workers: object, scheduler: object = None) -> None:
    """Raise :class:`InvalidInputError` unless ``workers`` is None or a positive int, and
    at most one of ``workers`` / ``scheduler`` is given.

    >>> check_workers(2)
    >>> check_workers(0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: workers=0 must be a positive integer
    """
    if workers is not None:
        positive_int("workers", workers)
    if workers is not None and scheduler is not None:
        raise InvalidInputError("give workers (a local cluster) or scheduler (an existing "
                                "cluster), not both")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise InvalidInputError(f"scheduler={scheduler!r} must be an address like "
                                f"tcp://host:8786")


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
) -> list[R]:
    """``[fn(item) for item in items]``, serially or on a Dask cluster, in order.

    Parameters
    ----------
    fn : callable
        Applied to each item (module-level, picklable, for Dask).
    items : iterable
        The instances.
    workers : int, optional
        Start a LocalCluster with this many single-threaded workers.
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

    Returns
    -------
    list
        One result per item, in the order of ``items``.

    Raises
    ------
    InvalidInputError
        Bad ``workers`` / ``scheduler``; a scheduler that cannot be reached.
    """
    check_workers(workers, scheduler)
    items = list(items)
    report = on_result or (lambda _index, _result: None)
    if workers is None and scheduler is None:
        results = []
        for index, item in enumerate(progress(items, total=len(items), desc=desc,
                                              enabled=progress_bar)):
            results.append(fn(item))
            report(index, results[-1])
        return results
    fail = on_failure or InstanceFailed
    if not items:
        return []
    return _map_on_dask(fn, items, workers, scheduler, progress_bar, desc, fail, report,
                        processes)


def _map_on_dask(fn: Callable, items: Sequence, workers: int | None, scheduler: str | None,
                 progress_bar: bool | None, desc: str, fail: Callable, report: Callable,
                 processes: bool) -> list:
    import dask
    from distributed import Client, LocalCluster, as_completed
    from distributed.scheduler import KilledWorker

    cluster = client = None
    # Dask's own log lines (comms closing at the end or on Ctrl-C) would clutter stderr,
    # which carries attnio's one-line messages; errors reach us through the futures
    dask_log = logging.getLogger("distributed")
    log_level = dask_log.level
    dask_log.setLevel(logging.CRITICAL)
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
                    client = Client(scheduler, timeout="10s", set_as_default=False)
                except OSError as exc:
                    raise InvalidInputError(
                        f"scheduler={scheduler!r} cannot be reached: {exc}") from None
            else:
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=processes, dashboard_address=":0",
                                       silence_logs=logging.CRITICAL)
                client = Client(cluster, set_as_default=False)
            return _gather_in_order(client, fn, items, progress_bar, desc, fail, report,
                                    as_completed, KilledWorker)
        except KeyboardInterrupt:
            # Ctrl-C: a graceful close waits for the running instances (seconds); the
            # worker processes of our own cluster are killed first, then closing is quick
            if cluster is not None:
                _kill_local_workers(cluster)
            raise
        finally:
            if client is not None:
                client.close(timeout=5)
            if cluster is not None:
                cluster.close(timeout=5)
            dask_log.setLevel(log_level)


def _gather_in_order(client: Any, fn: Callable, items: Sequence, progress_bar: bool | None,
                     desc: str, fail: Callable, report: Callable, as_completed: Any,
                     KilledWorker: type) -> list:
    run = uuid.uuid4().hex[:8]
    tries = [0] * len(items)
    index_of: dict[str, int] = {}

    def submit(i: int) -> Any:
        tries[i] += 1
        key = f"attnio-{run}-{i}-try{tries[i]}"
        future = client.submit(fn, items[i], key=key, pure=False, retries=0)
        index_of[future.key] = i
        return future

    results: list[Any] = [None] * len(items)
    bar = None
    if progress_enabled(progress_bar):
        import sys

        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=desc, unit=" instances", file=sys.stderr,
                   leave=False)
    futures = [submit(i) for i in range(len(items))]
    pending = as_completed(futures, loop=client.loop)
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
            report(i, results[i])
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return results


def _kill_local_workers(cluster: Any) -> None:
    """SIGKILL the worker processes of a LocalCluster started here (never a remote one)."""
    import os
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        process = getattr(getattr(nanny, "process", None), "process", None)
        pid = getattr(process, "pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
