r"""Every output channel of the command line: stdout, stderr and ``--json``.

Standard streams (:func:`open_channels`, called by :func:`attnio.cli.main`)
---------------------------------------------------------------------------
The real command line replaces ``sys.stdout`` and ``sys.stderr`` by streams over the same
file descriptors with two differences:

* **stdout failures are named.** A write that fails (``> /dev/full``: no space; a disk
  error; a pipe whose reader left) raises :class:`StdoutError` once; later writes are
  dropped, so the interpreter's final flush cannot print a second error. ``attnio.cli.main``
  turns :class:`StdoutError` into **exit 1** and one line on stderr ("cannot write to
  standard output (No space left on device); the output is incomplete"). A closed stdout
  (``>&-``) fails the same way at its first write, or at the end if nothing was written:
  exit 1, the answer is lost — but bad input found first is still exit 2.
  The exception is a reader that stops reading on purpose (``attnio … | head``,
  ``EPIPE``): that is the reader's choice, not a failure — the rest of the output is
  discarded silently and the exit code is the command's (0 if the pipe broke mid-command).
* **stderr never fails.** A full or closed stderr (``2> /dev/full``, ``2>&-``) drops the
  diagnostics and changes nothing else: the exit code — the only channel left — stays
  exactly the command's (a bad input is still 2, never 1 from a failed error line).
* **Any terminal.** Text that the stream's encoding cannot represent
  (``PYTHONIOENCODING=ascii``, a Latin-1 locale) is transliterated by the error handler
  ``attnio-ascii``: ``≤`` → ``<=``, ``≥`` → ``>=``, ``—`` → ``--``, ``…`` → ``...``,
  ``×`` → ``x``, ``√`` → ``sqrt``, ``²`` → ``^2`` … (:data:`ASCII_FALLBACK`); any other
  character becomes a backslash escape (``\u4e00``). Never a ``UnicodeEncodeError``.

``--json`` (:func:`print_document`, :func:`json_text`, :func:`json_ready`)
--------------------------------------------------------------------------
Every command's ``--json`` is one object written by :func:`print_document`: ``"command"``
(its name), ``"verdict"`` (the answer as a whole, :func:`attnio.results.overall_verdict`;
it mirrors the exit code), the command's own fields, then the provenance fields
``"attnio_version"`` and ``"versions"``. The fields of each command are in notes/json.md
(a test checks the documents against it).

JSON has no Infinity or NaN. Every ``--json`` document goes through :func:`json_ready`, which
writes a non-finite float as ``null`` — the project's one rule, the same as
:func:`attnio.validation.json_float` (a number too large for a float, e.g. the float of a
300-digit bound, is ``null`` next to its exact value; the time at a boundary whose bandwidth
is ``5e-324`` bytes/s is ``null``). Integers stay exact integers of any size. A strict parser
therefore accepts every document, and a numeric field holds a number or ``null``, never a
string.

>>> print(json_text({"seconds": float("inf"), "ratio": float("nan"), "io": 10**40}, indent=None))
{"seconds": null, "ratio": null, "io": 10000000000000000000000000000000000000000}
>>> "≤ 5 × 2² — ok…".encode("ascii", "attnio-ascii").decode()
'<= 5 x 2^2 -- ok...'
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import math
import os
import sys
from typing import Any, TextIO

from attnio.exceptions import StdoutError
from attnio.validation import json_float

__all__ = ["StdoutError", "open_channels", "flush_stdout", "reader_left", "json_ready", "json_text",
           "print_json", "json_document", "print_document", "ASCII_FALLBACK"]

#: Transliteration of the symbols attnio prints, for terminals without them (``attnio-ascii``).
ASCII_FALLBACK: dict[str, str] = {
    "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "≡": "==", "≪": "<<", "≫": ">>", "—": "--",
    "–": "-", "−": "-", "…": "...", "×": "x", "·": "*", "∘": "o", "÷": "/", "±": "+/-",
    "√": "sqrt", "∞": "inf", "‖": "||", "′": "'", "§": "S", "†": "+", "•": "*", "✓": "ok",
    "✗": "x", "▸": ">", "◂": "<", "↳": "->", "→": "->", "←": "<-", "⇒": "=>", "⇔": "<=>",
    "⟺": "<=>", "∧": " and ", "⋀": "and ", "∨": " or ", "¬": "not ", "∀": "for all ",
    "∈": " in ", "∉": " not in ", "∋": " contains ", "⊆": " subset of ", "⊄": " not subset of ",
    "∪": " union ", "∩": " intersect ", "∅": "{}", "∑": "sum", "∏": "prod", "Σ": "Sum",
    "Δ": "Delta", "Θ": "Theta", "Ω": "Omega", "α": "alpha", "β": "beta", "ε": "eps",
    "θ": "theta", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "ω": "omega", "ℓ": "l",
    "ᵀ": "^T", "⁻": "^-", "⁰": "^0", "¹": "^1", "²": "^2", "³": "^3", "⁴": "^4", "⁵": "^5",
    "⁶": "^6", "⁹": "^9", "₀": "0", "₁": "1", "₂": "2", "₃": "3", "ᵢ": "_i", "½": "1/2",
    "⌈": "ceil(", "⌉": ")", "⌊": "floor(", "⌋": ")", "“": '"', "”": '"', "‘": "'", "’": "'",
    "\u00a0": " ", "\u0303": "~",
}

_HANDLER = "attnio-ascii"


def _ascii_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start:exc.end]
    out = []
    for char in chunk:
        text = ASCII_FALLBACK.get(char)
        if text is None:
            code = ord(char)
            text = (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                    else f"\\U{code:08x}")
        out.append(text)
    return "".join(out), exc.end


codecs.register_error(_HANDLER, _ascii_fallback)


class _Channel(io.RawIOBase):
    """A raw writer over fd 1 or fd 2 that names (stdout) or swallows (stderr) failures."""

    def __init__(self, fd: int, *, strict: bool) -> None:
        super().__init__()
        self._fd = fd
        self._strict = strict
        self.failure: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data: Any) -> int | None:
        if self.failure is not None:
            return len(data)  # after the first failure everything is dropped
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return None
        except OSError as exc:
            self.failure = exc
            if self._strict:
                raise StdoutError(exc.errno, exc.strerror) from None
            return len(data)

    def close(self) -> None:  # never close fd 1 or 2 behind the interpreter's back
        self.flush()
        io.RawIOBase.close(self)


def _wrap(old: TextIO | None, raw: io.RawIOBase, *, strict: bool) -> TextIO:
    encoding = getattr(old, "encoding", None) or "utf-8"
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=encoding, errors=_HANDLER,
                            line_buffering=not strict or bool(getattr(old, "line_buffering", False)),
                            write_through=not strict)


class _Sink(io.RawIOBase):
    """Where a closed stderr's text goes: nowhere (never to stdout, never to a reused fd)."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return len(data)


def _fd_of(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _occupy_if_closed(fd: int) -> None:
    """Open /dev/null on a closed fd 1 or 2, so that no file attnio opens later lands there
    (and receives what a library or a worker process writes to "stderr")."""
    try:
        os.fstat(fd)
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


class _Closed(_Channel):
    """Standard output that was closed at start-up (``>&-``): the first write fails."""

    def __init__(self) -> None:
        super().__init__(-1, strict=True)

    def fileno(self) -> int:
        raise io.UnsupportedOperation("standard output is closed")

    def isatty(self) -> bool:
        return False

    def write(self, data: Any) -> int | None:
        if self.failure is None:
            self.failure = OSError(errno.EBADF, "it is closed")
            raise StdoutError(errno.EBADF, "it is closed")
        return len(data)


def open_channels() -> None:
    """Install the stdout/stderr streams of the module docstring. Idempotent.

    A closed stdout (``sys.stdout is None``) becomes a stream whose first write fails like a
    full one (:class:`StdoutError`), so bad input is still found first and answered with exit
    2; :func:`flush_stdout` reports it at the end even if nothing was written. A closed stderr
    becomes a sink, so that ``print(..., file=sys.stderr)`` cannot fall back to stdout.
    """
    for fd in (1, 2):
        _occupy_if_closed(fd)
    if sys.stderr is None:
        sys.stderr = _wrap(None, _Sink(), strict=False)
    elif not isinstance(sys.stderr, io.TextIOWrapper) or not isinstance(
            getattr(sys.stderr.buffer, "raw", None), _Channel):
        if _fd_of(sys.stderr) == 2:
            sys.stderr.flush()
            sys.stderr = _wrap(sys.stderr, _Channel(2, strict=False), strict=False)
    if sys.stdout is None:
        sys.stdout = _wrap(None, _Closed(), strict=True)
    elif _fd_of(sys.stdout) == 1 and not isinstance(
            getattr(getattr(sys.stdout, "buffer", None), "raw", None), _Channel):
        sys.stdout.flush()
        sys.stdout = _wrap(sys.stdout, _Channel(1, strict=True), strict=True)


def flush_stdout() -> OSError | None:
    """Flush stdout; the first failed write of this process (None if none, or if stdout is not
    the stream of :func:`open_channels`)."""
    stream = sys.stdout
    try:
        if stream is not None:
            stream.flush()
    except OSError as exc:
        failure: OSError | None = exc
    else:
        failure = None
    raw = getattr(getattr(stream, "buffer", None), "raw", None)
    if isinstance(raw, _Closed) and raw.failure is None:  # closed, and nothing was written
        raw.failure = OSError(errno.EBADF, "it is closed")
    if isinstance(raw, _Channel) and raw.failure is not None:
        return raw.failure
    return failure


def reader_left(exc: BaseException) -> bool:
    """True for ``EPIPE``: the reader of a pipe stopped reading (``| head``), not a failure."""
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (dicts and lists recursively;
    tuples become lists; other values unchanged). A non-finite float key becomes a string."""
    if isinstance(value, float):
        return json_float(value)
    if isinstance(value, dict):
        return {(k if math.isfinite(k) else str(k)) if isinstance(k, float) else k: json_ready(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def json_text(value: Any, *, indent: int | None = 2, ensure_ascii: bool = True) -> str:
    """Strict JSON text of ``value`` (non-finite floats as ``null``, see the module docstring)."""
    return json.dumps(json_ready(value), indent=indent, allow_nan=False, ensure_ascii=ensure_ascii)


def print_json(value: Any, *, indent: int | None = 2, stream: TextIO | None = None) -> None:
    """Print :func:`json_text` of ``value`` and a newline on ``stream`` (default stdout).

    Non-ASCII text is kept as is on a UTF-8 stream and written as ``\\uXXXX`` escapes
    otherwise, so the document stays valid JSON on any terminal.
    """
    stream = sys.stdout if stream is None else stream
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
    stream.write(json_text(value, indent=indent, ensure_ascii=not encoding.startswith("utf"))
                 + "\n")


def json_document(command: str, verdict: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` object of ``attnio COMMAND``: ``{"command", "verdict", **fields,
    "attnio_version", "versions"}`` (``verdict`` a :class:`attnio.results.Status` value).

    >>> doc = json_document("bounds", "computed", {"n": 4})
    >>> list(doc)
    ['command', 'verdict', 'n', 'attnio_version', 'versions']
    """
    from attnio.provenance import provenance
    from attnio.results import Status

    if "command" in fields or "verdict" in fields:
        raise ValueError("a document's fields may not hold 'command' or 'verdict'")
    return {"command": command, "verdict": Status(str(verdict)).value, **fields, **provenance()}


def print_document(command: str, verdict: str, fields: dict[str, Any], *,
                   stream: TextIO | None = None) -> None:
    """Print :func:`json_document` through :func:`print_json`: the one writer of every
    command's ``--json`` (strict JSON, indent 2, keys in the documented order)."""
    print_json(json_document(command, verdict, fields), stream=stream)
