"""A hard limit on a whole call: run it in a child process that is killed at the deadline.

z3 honours its timeout, but sympy does not have one: ``2**(10**10) > 0`` asks it for a
number of ten billion bits, and a symbolic simplification may run for minutes. A time limit
that bounds *every* phase of a call — parsing, sympy, both solvers — therefore needs a process
that can be killed. :func:`run_isolated` forks one (Linux; elsewhere a fresh interpreter is
spawned), caps its address space (:data:`MEMORY_LIMIT_BYTES`, so a runaway number ends in a
``MemoryError`` there instead of swapping the machine), runs ``fn(*args, **kwargs)`` and sends
back the result — or the exception, re-raised here. When the deadline passes first, the child
is killed and :class:`HardLimitReached` is raised; a Ctrl-C while waiting kills the child too.

>>> run_isolated(pow, (2, 10), seconds=30.0)
1024
>>> import time
>>> run_isolated(time.sleep, (60,), seconds=0.5)
Traceback (most recent call last):
...
attnio.proofs.isolation.HardLimitReached: the time limit of 0.5 s was reached (the child process was killed)
"""

from __future__ import annotations

import multiprocessing
import sys
import traceback
from typing import Any, Callable

__all__ = ["run_isolated", "Worker", "HardLimitReached", "MEMORY_LIMIT_BYTES", "KILL_GRACE_S"]

#: Address-space cap of the child (bytes): a runaway exact number fails there, not here.
MEMORY_LIMIT_BYTES = 6 * 1024 ** 3
#: Seconds past the limit before the child is killed (it normally answers itself first).
KILL_GRACE_S = 0.5


class HardLimitReached(Exception):
    """The isolated call did not answer within its time limit; the child was killed."""


def _child(conn: Any, fn: Callable[..., Any], args: tuple, kwargs: dict,
           memory_bytes: int | None) -> None:
    _die_with_parent()
    try:
        _limit_memory(memory_bytes)
        result: tuple[str, Any] = ("ok", fn(*args, **kwargs))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
        try:
            result = ("error", exc)
            conn.send(result)
            return
        except Exception:   # an exception that does not pickle: send its text
            result = ("error", RuntimeError("".join(traceback.format_exception_only(exc)).strip()))
    try:
        conn.send(result)
    except Exception as exc:  # a result that does not pickle
        conn.send(("error", RuntimeError(f"the result could not be sent back: {exc}")))
    finally:
        conn.close()


def run_isolated(fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, *,
                 seconds: float, memory_bytes: int | None = MEMORY_LIMIT_BYTES) -> Any:
    """``fn(*args, **kwargs)`` in a child process killed after ``seconds`` (+ a grace of
    :data:`KILL_GRACE_S`).

    Raises
    ------
    HardLimitReached
        The deadline passed (or the child died without answering: then the message says how).
    BaseException
        Whatever ``fn`` raised in the child, re-raised here.
    """
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    ctx = multiprocessing.get_context(method)
    receive, send = ctx.Pipe(duplex=False)
    # not a daemon: the call may start children of its own (the cvc5 worker); it is killed
    # in the finally below whatever happens
    process = ctx.Process(target=_child, args=(send, fn, args, kwargs or {}, memory_bytes),
                          daemon=False)
    process.start()
    send.close()
    try:
        if not receive.poll(seconds + KILL_GRACE_S):
            raise HardLimitReached(f"the time limit of {seconds:g} s was reached (the child "
                                   "process was killed)")
        try:
            status, value = receive.recv()
        except EOFError:
            process.join(1.0)
            raise HardLimitReached(f"the child process ended without an answer (exit code "
                                   f"{process.exitcode}; out of memory?)") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join(1.0)
        receive.close()
    if status == "error":
        raise value
    return value


def _die_with_parent() -> None:
    """Linux: this process is killed when its parent dies (no orphan left waiting)."""
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):    # not Linux: the EOF on the pipe ends the loop
        pass


def _serve(conn: Any, fn: Callable[..., Any], memory_bytes: int | None) -> None:
    """The loop of a :class:`Worker`'s child: call ``fn`` on each request until EOF."""
    _die_with_parent()
    _limit_memory(memory_bytes)
    while True:
        try:
            args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - sent back, re-raised by the caller
            reply = ("error", exc)
        try:
            conn.send(reply)
        except Exception as exc:
            conn.send(("error", RuntimeError(f"the result could not be sent back: {exc}")))


def _limit_memory(memory_bytes: int | None) -> None:
    if memory_bytes is None:
        return
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, ValueError, OSError):  # not on this platform: no cap
        pass


class Worker:
    """A long-lived child process that calls ``fn`` for each request, killed (and started
    again at the next call) when a call overruns its limit — :func:`run_isolated` without a
    fork per call. One per process; calls are serialised by a lock.

    >>> w = Worker(pow)
    >>> w.call((2, 10), seconds=30.0), w.call((3, 3), seconds=30.0)
    (1024, 27)
    >>> w.close()
    """

    def __init__(self, fn: Callable[..., Any], memory_bytes: int | None = MEMORY_LIMIT_BYTES):
        import threading
        self.fn, self.memory_bytes = fn, memory_bytes
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Any = None
        self._pid: int | None = None

    def _start(self) -> None:
        import os
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        ctx = multiprocessing.get_context(method)
        parent, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child, self.fn, self.memory_bytes),
                                    daemon=True)
        self._process.start()
        child.close()
        self._conn, self._pid = parent, os.getpid()

    def close(self) -> None:
        """Stop the child (a later call starts a new one)."""
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(1.0)
            self._conn.close()
        self._process = self._conn = None

    def call(self, args: tuple, *, seconds: float) -> Any:
        """``fn(*args)`` in the child; :class:`HardLimitReached` past ``seconds`` (+ grace)."""
        import os
        with self._lock:
            if self._pid is not None and self._pid != os.getpid():
                # a forked copy of this object: the child belongs to the parent process;
                # drop (and close our copy of) its pipe, start our own
                if self._conn is not None:
                    self._conn.close()
                self._process = self._conn = self._pid = None
            if self._process is None or not self._process.is_alive():
                self.close()
                self._start()
            try:
                self._conn.send(args)
                if not self._conn.poll(seconds + KILL_GRACE_S):
                    self.close()
                    raise HardLimitReached(f"the time limit of {seconds:g} s was reached (the "
                                           "child process was killed)")
                status, value = self._conn.recv()
            except (EOFError, OSError, BrokenPipeError):
                self.close()
                raise HardLimitReached("the worker process ended without an answer (out of "
                                       "memory?)") from None
            except BaseException:
                self.close()   # a Ctrl-C while waiting: the child may be mid-call
                raise
        if status == "error":
            raise value
        return value
