"""Hard limits: calls that run in a process of their own, killed at their deadline.

z3 honours its timeout, but sympy has none (``2**(10**10) > 0`` asks it for a number of ten
billion bits) and cvc5's nonlinear procedures check theirs rarely (a check was seen running
for minutes past it). A time limit that bounds *every* phase of a call needs a process that
can be killed:

* :func:`run_isolated` — one call in a forked child (``os.fork``, so it works inside Dask's
  daemonic workers too), its address space capped (:data:`MEMORY_LIMIT_BYTES`: a runaway
  number ends in a ``MemoryError`` there instead of swapping the machine); the result or the
  exception comes back pickled; past the deadline the child is killed and
  :class:`HardLimitReached` is raised; a Ctrl-C while waiting kills it too;
* :class:`Worker` — a long-lived server process (this file run as a script, loading one
  function from a source file, so it starts without importing attnio, sympy or z3) for many
  small calls of that function (the cvc5 re-checks): no fork per call; a call past its limit
  kills the server, and the next call starts a new one.

Both children die with their parent (Linux ``PR_SET_PDEATHSIG``; elsewhere the closed pipe
ends them). POSIX only (``fork``, ``select`` on pipes).

>>> run_isolated(pow, (2, 10), seconds=30.0)
1024
>>> import time
>>> run_isolated(time.sleep, (60,), seconds=0.5)
Traceback (most recent call last):
...
attnio.exceptions.HardLimitReached: the time limit of 0.5 s was reached (the child process was killed)
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from typing import IO, Any, Callable

# the only part of attnio a Worker's server imports (it defines classes, nothing else)
from attnio.exceptions import HardLimitReached

__all__ = ["run_isolated", "Worker", "HardLimitReached", "MEMORY_LIMIT_BYTES", "KILL_GRACE_S"]

#: Address-space cap of a child (bytes): a runaway exact number fails there, not here.
MEMORY_LIMIT_BYTES = 6 * 1024 ** 3
#: Seconds past the limit before a child is killed (it normally answers itself first).
KILL_GRACE_S = 0.5

_HEADER = struct.Struct(">Q")


def _die_with_parent() -> None:
    """Linux: this process is killed when its parent dies (no orphan left waiting)."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):    # not Linux: the closed pipe ends the child
        pass


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


def _send(stream: IO[bytes], obj: Any) -> None:
    """Write ``obj`` pickled, behind its length. A reply that does not pickle is replaced by
    an ``("error", RuntimeError)`` naming it (an exception: its own text)."""
    try:
        data = pickle.dumps(obj)
    except Exception as exc:  # noqa: BLE001 - whatever pickle raises
        if isinstance(obj, tuple) and len(obj) == 2 and obj[0] == "error":
            text = "".join(traceback.format_exception_only(obj[1])).strip()
        else:
            text = f"the result could not be sent back: {exc}"
        data = pickle.dumps(("error", RuntimeError(text)))
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    """``size`` bytes from ``fd``; :class:`HardLimitReached` past ``deadline``; EOFError."""
    chunks, have = [], 0
    while have < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise HardLimitReached("deadline")
        chunk = os.read(fd, min(size - have, 1 << 20))
        if not chunk:
            raise EOFError("the other end closed the pipe")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)


def _receive(fd: int, deadline: float | None) -> Any:
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, size, deadline))


def _kill(pid: int) -> None:
    """Kill and reap the child ``pid`` — that process only: through a pidfd where the system
    has them (``pidfd_open`` refuses 0 and negative numbers, which ``os.kill`` would send to a
    whole process group), else ``os.kill`` of a positive pid."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):   # no pidfds here, or the child is gone
        if pid > 0:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    else:
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        finally:
            os.close(fd)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def run_isolated(fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, *,
                 seconds: float, memory_bytes: int | None = MEMORY_LIMIT_BYTES) -> Any:
    """``fn(*args, **kwargs)`` in a forked child killed after ``seconds`` (+ a grace of
    :data:`KILL_GRACE_S`).

    Raises
    ------
    HardLimitReached
        The deadline passed, or the child died without answering (then the message says so).
    BaseException
        Whatever ``fn`` raised in the child, re-raised here.
    """
    parent = os.getpid()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(parent, read_fd, write_fd, fn, args, kwargs or {}, memory_bytes)
    os.close(write_fd)
    try:
        try:
            reply = _receive(read_fd, time.monotonic() + seconds + KILL_GRACE_S)
        except HardLimitReached:
            raise HardLimitReached(f"the time limit of {seconds:g} s was reached (the child "
                                   "process was killed)") from None
        except EOFError:
            raise HardLimitReached("the child process ended without an answer (out of "
                                   "memory?)") from None
    finally:
        os.close(read_fd)
        _kill(pid)
    return _unpack(reply)


def _unpack(reply: tuple[str, Any]) -> Any:
    """The value of an ``("ok", value)`` reply; an ``("error", exc)`` reply raises ``exc``."""
    status, value = reply
    if status == "ok":
        return value
    if status == "error":
        raise value
    raise HardLimitReached(f"a malformed reply {status!r}")


def _child(parent: int, read_fd: int, write_fd: int, fn: Callable[..., Any], args: tuple,
           kwargs: dict, memory_bytes: int | None) -> None:
    """The forked child of :func:`run_isolated`: run the call, send the reply, exit. Never
    returns (and refuses to run in the parent, whose exit would end the caller)."""
    if os.getpid() == parent:
        raise RuntimeError("the child side of run_isolated ran in the parent process")
    try:
        os.close(read_fd)
        _die_with_parent()
        _limit_memory(memory_bytes)
        with os.fdopen(write_fd, "wb") as out:
            try:
                reply: tuple[str, Any] = ("ok", fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - everything goes to the parent
                reply = ("error", exc)
            _send(out, reply)
    finally:
        os._exit(0)   # the parent reads the reply, not the exit code


class Worker:
    """A long-lived server process that runs ``FUNCTION(*args)`` of the Python source file
    ``path`` for each call.

    The file is loaded by path, not imported as part of its package, so it must import what
    it needs itself (and should import little: it is what the server pays at start-up). A
    call past its limit kills the server (:class:`HardLimitReached`); the next call starts a
    new one. Calls are serialised by a lock; a forked copy of the object (in a child of this
    process) starts its own server and never touches the parent's.

    >>> import operator
    >>> w = Worker(operator.__file__, "add")
    >>> w.call((2, 3), seconds=30.0), w.call((4, 5), seconds=30.0)
    (5, 9)
    >>> w.close()
    """

    def __init__(self, path: str, function: str,
                 memory_bytes: int | None = MEMORY_LIMIT_BYTES) -> None:
        self.path, self.function, self.memory_bytes = str(path), function, memory_bytes
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner: int | None = None

    def _start(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), self.path, self.function,
             str(self.memory_bytes or 0)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._owner = os.getpid()

    def close(self) -> None:
        """Stop the server (a later call starts a new one)."""
        proc, self._proc = self._proc, None
        if proc is not None and self._owner == os.getpid():
            proc.kill()
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()

    def call(self, args: tuple, *, seconds: float) -> Any:
        """``FUNCTION(*args)`` in the server; :class:`HardLimitReached` past ``seconds``."""
        with self._lock:
            if self._owner is not None and self._owner != os.getpid():
                self._proc = None            # the parent's server: leave it alone
            if self._proc is None or self._proc.poll() is not None:
                self.close()
                self._start()
            proc = self._proc
            assert proc is not None and proc.stdin is not None and proc.stdout is not None
            try:
                _send(proc.stdin, args)
                status, value = _receive(proc.stdout.fileno(),
                                         time.monotonic() + seconds + KILL_GRACE_S)
            except HardLimitReached:
                self.close()
                raise HardLimitReached(f"the time limit of {seconds:g} s was reached (the "
                                       "worker process was killed)") from None
            except (EOFError, OSError):
                self.close()
                raise HardLimitReached("the worker process ended without an answer (out of "
                                       "memory?)") from None
            except BaseException:
                self.close()   # a Ctrl-C while waiting: the server may be mid-call
                raise
        return _unpack((status, value))


def _serve(path: str, function: str, memory_bytes: int, source: int, sink: IO[bytes]) -> None:
    """The server loop of a :class:`Worker`: one pickled call per request read from the file
    descriptor ``source``, its reply written to ``sink``, until EOF."""
    import importlib.util
    _die_with_parent()
    _limit_memory(memory_bytes or None)
    spec = importlib.util.spec_from_file_location(os.path.basename(path).split(".")[0], path)
    module = importlib.util.module_from_spec(spec)            # type: ignore[arg-type]
    spec.loader.exec_module(module)                          # type: ignore[union-attr]
    fn = getattr(module, function)
    while True:
        try:
            args = _receive(source, None)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - sent back, re-raised by the caller
            reply = ("error", exc)
        _send(sink, reply)


if __name__ == "__main__":  # the server of a Worker
    _serve(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.stdin.buffer.fileno(),
           sys.stdout.buffer)
