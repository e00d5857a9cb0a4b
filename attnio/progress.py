"""Progress on stderr: tqdm bars for searches and sweeps, and :class:`StageStatus` naming the
stage of a long command (``attnio report``) that is running.

Bars are silent when stderr is not a TTY; ``ATTNIO_PROGRESS=1`` forces them on,
``ATTNIO_PROGRESS=0`` forces them off. Stage status lines are printed on and off a terminal
(off one, a line every ``ATTNIO_STATUS_INTERVAL`` seconds, default 5) unless
``ATTNIO_PROGRESS=0``.

>>> sum(progress(range(3), desc="demo", enabled=False))
3
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TextIO, TypeVar

from attnio.exceptions import InvalidInputError

__all__ = ["progress", "progress_enabled", "StageStatus", "status_interval",
           "DEFAULT_STATUS_INTERVAL"]

T = TypeVar("T")


def progress_enabled(enabled: bool | None = None) -> bool:
    """Decide whether to draw a bar: explicit flag, then ``ATTNIO_PROGRESS``, then isatty."""
    if enabled is not None:
        return enabled
    env = os.environ.get("ATTNIO_PROGRESS")
    if env in {"0", "1"}:
        return env == "1"
    return sys.stderr.isatty()


def progress(
    iterable: Iterable[T], *, total: int | None = None, desc: str = "", enabled: bool | None = None
) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar written to stderr (never to stdout, which carries JSON)."""
    # No ETA: instances (claims, DAGs, cache sizes) differ in cost by orders of magnitude, so a
    # rate-based estimate would be known to be wrong. Done / total and elapsed time only.
    if not progress_enabled(enabled):
        yield from iterable  # no bar, no tqdm import (tqdm.auto pulls in asyncio: ~0.03 s)
        return
    from tqdm.auto import tqdm

    yield from tqdm(
        iterable, total=total, desc=desc, file=sys.stderr,
        leave=False, bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}]",
    )


# --------------------------------------------------------------------------------------------
# stage status: which stage of a long command is running
# --------------------------------------------------------------------------------------------

#: Seconds between two status lines when stderr is not a terminal (``ATTNIO_STATUS_INTERVAL``).
DEFAULT_STATUS_INTERVAL = 5.0


def status_interval() -> float:
    """Seconds between status lines off a terminal: ``ATTNIO_STATUS_INTERVAL`` or 5.

    Raises
    ------
    InvalidInputError
        If ``ATTNIO_STATUS_INTERVAL`` is not a number in [0.05, 3600].

    >>> status_interval() > 0
    True
    """
    text = os.environ.get("ATTNIO_STATUS_INTERVAL")
    if text is None or not text.strip():
        return DEFAULT_STATUS_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.05 <= value <= 3600:  # also rejects nan
        raise InvalidInputError(
            f"ATTNIO_STATUS_INTERVAL={text[:40]!r} must be a number of seconds in [0.05, 3600]")
    return value


class StageStatus:
    """Name the stage of a long command that is running, on stderr (never stdout).

    * each stage prints a line when it starts (``prog: [2/9] Bound table …``) and one when it
      ends (with its seconds);
    * when the stream is **not a terminal** (CI logs, pipes), a background thread prints
      ``prog: still in [2/9] Bound table (12 s; claim foo)`` every :func:`status_interval`
      seconds, so a slow stage is never silent;
    * on a terminal the same line is redrawn in place once a second;
    * there is **no ETA**: stage durations differ by orders of magnitude, so any estimate would
      be known to be wrong. ``[k/N]`` counts stages, not time.

    ``ATTNIO_PROGRESS=0`` (or ``enabled=False``) silences it; ``announce=False`` keeps only
    the periodic lines (a stage that ends within the interval prints nothing).

    >>> import io
    >>> stream = io.StringIO()
    >>> status = StageStatus("demo", total=2, stream=stream, enabled=True)
    >>> with status.stage("first"):
    ...     status.detail("item 1")
    >>> status.close()
    >>> print(stream.getvalue().replace("0.0 s", "T s"), end="")
    demo: [1/2] first …
    demo: [1/2] first done in T s
    """

    def __init__(self, prog: str, total: int | None = None, *, stream: TextIO | None = None,
                 enabled: bool | None = None, interval: float | None = None,
                 on_terminal: bool | None = None, announce: bool = True) -> None:
        self.prog = prog
        self.announce = announce  # False: no start / end lines, only the periodic ones
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        env = os.environ.get("ATTNIO_PROGRESS")
        self.enabled = enabled if enabled is not None else env != "0"
        self.interval = interval if interval is not None else status_interval()
        if on_terminal is None:
            isatty = getattr(self.stream, "isatty", None)
            on_terminal = bool(isatty and isatty())
        self.on_terminal = on_terminal
        self._index = 0
        self._name: str | None = None
        self._detail = ""
        self._describe: Callable[[], str] | None = None
        self._started = 0.0
        self._last_line = time.monotonic()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    # -- public --------------------------------------------------------------------------

    @contextmanager
    def stage(self, name: str) -> Iterator["StageStatus"]:
        """Run the body as the next stage; print its start and its end."""
        with self._lock:
            self._index += 1
            self._name, self._detail, self._started = name, "", time.monotonic()
            label = self._label()
        if self.announce:
            self._print(f"{label} …")
        else:
            self._last_line = time.monotonic()
        self._ensure_thread()
        try:
            yield self
        finally:
            with self._lock:
                seconds = time.monotonic() - self._started
                self._name = None
            if self.announce:
                self._print(f"{label} done in {seconds:.1f} s")

    def detail(self, text: str) -> None:
        """Say what the current stage is busy with (e.g. the claim being checked)."""
        with self._lock:
            self._detail = " ".join(str(text).split())[:120]

    def follow(self, describe: Callable[[], str] | None) -> None:
        """Read the detail from ``describe()`` at each status line (e.g. a solver's phase and
        bracket, which change without telling anyone); ``None`` stops following."""
        with self._lock:
            self._describe = describe

    def close(self) -> None:
        """Stop the background thread (idempotent)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._wake.set()
            thread.join()
            self._wake.clear()

    def __enter__(self) -> "StageStatus":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------

    def _label(self) -> str:
        count = f"[{self._index}/{self.total}] " if self.total else f"[{self._index}] "
        return f"{self.prog}: {count}{self._name}"

    def _print(self, line: str) -> None:
        self._last_line = time.monotonic()
        if not self.enabled:
            return
        prefix = "\r\x1b[K" if self.on_terminal else ""
        try:
            print(prefix + line, file=self.stream, flush=True)
        except (OSError, ValueError):  # a closed or broken stderr must not break the command
            pass

    def _ensure_thread(self) -> None:
        if not self.enabled or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._beat, name=f"{self.prog} status",
                                        daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        # Off a terminal, a status line comes `interval` seconds after the last line printed
        # (so never right after a stage starts); on a terminal the line is redrawn each second.
        period = 1.0 if self.on_terminal else self.interval
        while True:
            with self._lock:
                wait = (period if self._name is None else
                        max(0.02, self._last_line + period - time.monotonic()))
            if self._wake.wait(wait):
                return
            with self._lock:
                now = time.monotonic()
                if self._name is None or now - self._last_line < period:
                    continue
                self._last_line = now
                if self._describe is not None:
                    try:
                        self._detail = " ".join(str(self._describe()).split())[:120]
                    except Exception:  # a status line must never break the command
                        pass
                line = (f"{self._label().replace(': ', ': still in ', 1)} "
                        f"({now - self._started:.0f} s"
                        + (f"; {self._detail}" if self._detail else "") + ")")
            if self.on_terminal:
                try:
                    print("\r\x1b[K" + line, end="", file=self.stream, flush=True)
                except (OSError, ValueError):
                    pass
            else:
                self._print(line)
