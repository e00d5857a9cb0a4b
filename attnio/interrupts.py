"""Ctrl-C for the command line: exit 130 within a second, one line on stderr, no traceback.

:func:`install` (called by ``attnio`` before it imports any subcommand) replaces Python's
SIGINT handling for the life of the process:

* **Before the command runs** (parsing, importing sympy / z3 / networkx): a SIGINT prints
  ``attnio <cmd>: interrupted`` and ends the process at once with exit code 130 — there is
  nothing to clean up, and a KeyboardInterrupt raised inside an import would print a
  traceback.
* **While the command runs** (after :func:`running`): a SIGINT raises KeyboardInterrupt in
  the main thread, as usual, so ``finally`` blocks run, files being written through
  :mod:`attnio.safe_io` are not left half-written, and the command may print what it has
  finished (``attnio verify`` prints its partial table); :func:`attnio.cli.main` turns it
  into the one line and exit code 130. Two things could delay that beyond a second, and a
  watchdog thread covers both:

  - the main thread is inside a long C call (a z3 check): Python runs signal handlers only
    between bytecodes (and z3's own SIGINT handler, which would swallow the signal, is
    switched off: parameter ``ctrl_c``). The C-level signal handler writes the signal number to a pipe
    (:func:`signal.set_wakeup_fd`) at once; the watchdog, blocked on that pipe, wakes up,
    interrupts z3's main context (``Z3_interrupt``: the check returns ``unknown``, which the
    claims report as Undecided — never a pass) and any callback registered with
    :func:`on_interrupt`;
  - some code swallows the KeyboardInterrupt, or cleanup (closing a Dask cluster) hangs:
    :data:`GRACE_SECONDS` after the signal the watchdog prints the line (once) and ends the
    process with exit code 130.

  A second SIGINT ends the process at once.

Library users are not affected: nothing here runs unless the command line calls
:func:`install`.

>>> EXIT_CODE, GRACE_SECONDS
(130, 0.75)
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Callable, NoReturn

__all__ = ["install", "running", "announce", "announced_by_command", "on_interrupt", "stop_native_work",
           "clear_native_interrupt",
           "exit_interrupted", "EXIT_CODE", "GRACE_SECONDS"]

#: Exit code of an interrupted command (128 + SIGINT).
EXIT_CODE = 130
#: Seconds between a SIGINT and the forced exit, when the process has not ended by itself.
GRACE_SECONDS = 0.75

_lock = threading.Lock()
_state: dict = {"installed": False, "command": None, "running": False, "announced": False,
                "signals": 0}
_callbacks: list[Callable[[], None]] = []
_line_written = threading.Event()


def _message() -> str:
    command = _state["command"]
    return f"attnio {command}: interrupted\n" if command else "attnio: interrupted\n"


def announce() -> None:
    """Write ``attnio <cmd>: interrupted`` to stderr — once per process, whoever calls.

    The main thread's handler and the watchdog may both get here at once; the one that loses
    waits (at most half a second, so a stuck stream cannot hang it) until the winner has
    written the line, so that neither ends the process before the line is out.
    """
    with _lock:
        first = not _state["announced"]
        _state["announced"] = True
    if not first:
        _line_written.wait(0.5)
        return
    try:
        sys.stderr.flush()
    except Exception:  # stderr may be mid-write in the main thread; the line still goes out
        pass
    try:
        os.write(2, _message().encode())
    except OSError:
        pass
    finally:
        _line_written.set()


def announced_by_command() -> None:
    """The command reported its interruption itself (``attnio verify`` prints its own
    line): the watchdog must not print a second one."""
    with _lock:
        _state["announced"] = True
    _line_written.set()


def _exit_now() -> NoReturn:
    announce()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()  # lines already printed stay (partial results remain valid)
        except Exception:
            pass
    os._exit(EXIT_CODE)


def exit_interrupted() -> NoReturn:
    """End an interrupted command now: the one line (unless the command printed its own),
    both streams flushed, exit code 130 — without interpreter finalization, which resets
    SIGINT to its default action (a signal arriving then would kill the process with -2
    instead of 130: seen once in CI) and may wait on threads."""
    _exit_now()


def on_interrupt(callback: Callable[[], None]) -> None:
    """Call ``callback()`` from the watchdog thread as soon as a SIGINT arrives while the
    command runs (e.g. to cancel work running outside the main thread). Exceptions in it
    are ignored."""
    _callbacks.append(callback)


def stop_native_work() -> None:
    """Interrupt the z3 call in progress (it returns ``unknown``), e.g. when a deadline passes;
    safe from any thread. Unlike Ctrl-C it does not run the :func:`on_interrupt` callbacks,
    which end the command (they silence logging and kill Dask workers)."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.main_ctx().interrupt()
        except Exception:
            pass


def clear_native_interrupt() -> None:
    """Undo an interrupt of :func:`stop_native_work` that found no z3 call running: z3 keeps
    it until its next ``check``, so the next ``push`` (or other call) of any solver would fail
    "canceled" (the time-indexed pebbling solver did, after a report section cut at its
    deadline). An empty check on the main context clears it; a no-op without z3."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.Solver(ctx=z3.main_ctx()).check()
        except Exception:
            pass


def _interrupt_native_work() -> None:
    stop_native_work()
    for callback in list(_callbacks):
        try:
            callback()
        except Exception:
            pass


def _on_signal_in_watchdog() -> None:
    with _lock:
        _state["signals"] += 1
        count, running = _state["signals"], _state["running"]
    if not running or count > 1:
        _exit_now()
    if count == 1:
        _interrupt_native_work()
        time.sleep(GRACE_SECONDS)
        _exit_now()


def _watchdog(read_fd: int) -> None:
    while True:
        try:
            data = os.read(read_fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            threading.Thread(target=_on_signal_in_watchdog, daemon=True).start()


def _handler(signum: int, frame: object) -> None:
    if not _state["running"]:
        _exit_now()
    raise KeyboardInterrupt


def _z3_ctrl_c_off(z3: object) -> None:
    """z3 installs its own SIGINT handler for the length of every check (parameter
    ``ctrl_c``, default true): a Ctrl-C then only makes that check return ``unknown`` and
    the command goes on (``attnio verify`` used to finish every claim and exit 1). Off, the
    signal reaches Python's handler and the watchdog, which interrupts the check itself."""
    try:
        z3.set_param("ctrl_c", False)  # type: ignore[attr-defined]
    except Exception:
        pass


class _Z3ImportHook:
    """Meta-path finder that turns z3's ``ctrl_c`` off right after z3 is first imported
    (``attnio report`` imports z3 only when it reaches the claims)."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> object:
        if fullname != "z3":
            return None
        sys.meta_path.remove(self)  # type: ignore[arg-type]
        import importlib.util

        spec = importlib.util.find_spec("z3")
        loader = getattr(spec, "loader", None)
        if loader is None:
            return spec
        original = loader.exec_module

        def exec_module(module: object) -> None:
            original(module)
            _z3_ctrl_c_off(module)

        loader.exec_module = exec_module  # this spec's loader object only
        return spec


#: Lowest descriptor of the wake-up pipe: never 0, 1 or 2 (see :func:`_pipe_above_standard_fds`).
FIRST_FREE_FD = 3


def _fill_closed_stdin() -> None:
    """Put ``/dev/null`` on descriptor 0 when stdin is closed (``attnio ... <&-``).

    Otherwise the next descriptor opened lands on 0, and ``--dag /dev/stdin`` opens it: the
    wake-up pipe there made ``pebble --dag /dev/stdin <&-`` block for ever. On ``/dev/null``
    such a path is a device, refused by :func:`attnio.input_files.regular_file_opener`.
    (Descriptors 1 and 2 are left as they are: a closed stdout or stderr is the command's
    to report, not to hide behind ``/dev/null``.)"""
    try:
        os.fstat(0)
        return
    except OSError:
        pass
    try:
        fd = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return
    if fd != 0:
        os.dup2(fd, 0, inheritable=False)
        os.close(fd)


def _pipe_above_standard_fds() -> tuple[int, int]:
    """``os.pipe()`` moved to descriptors >= :data:`FIRST_FREE_FD`, so that a closed standard
    stream (0, 1 or 2) is never the Ctrl-C wake-up pipe: reading "stdin" would block on it and
    writing "stderr" would feed the watchdog."""
    read_fd, write_fd = os.pipe()
    try:
        import fcntl
    except ImportError:  # not POSIX: no closed-descriptor trick to guard against
        return read_fd, write_fd
    moved = []
    for fd in (read_fd, write_fd):
        if fd < FIRST_FREE_FD:
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, FIRST_FREE_FD)
            os.close(fd)
            fd = high
        moved.append(fd)
    return moved[0], moved[1]


def install(command: str | None = None) -> None:
    """Take over SIGINT for this process (main thread only; idempotent).

    ``command`` names the subcommand in the line printed (``attnio <command>: interrupted``).
    """
    if command is None and _state["command"] is None:
        # the first word of the command line (the subcommand), until main() knows better
        words = [a for a in sys.argv[1:] if not a.startswith("-")][:1]
        command = words[0] if words and words[0].replace("-", "").isalpha() else None
    if command is not None:
        _state["command"] = command
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return
    _fill_closed_stdin()
    read_fd, write_fd = _pipe_above_standard_fds()
    os.set_blocking(write_fd, False)
    signal.signal(signal.SIGINT, _handler)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    threading.Thread(target=_watchdog, args=(read_fd,), name="attnio-sigint",
                     daemon=True).start()
    if "z3" in sys.modules:
        _z3_ctrl_c_off(sys.modules["z3"])
    else:
        sys.meta_path.insert(0, _Z3ImportHook())  # type: ignore[arg-type]
    _state["installed"] = True


def running(command: str | None = None) -> None:
    """The command starts its work: from now on a SIGINT raises KeyboardInterrupt in the
    main thread (with the watchdog behind it), instead of ending the process at once."""
    if command is not None:
        _state["command"] = command
    _state["running"] = True
