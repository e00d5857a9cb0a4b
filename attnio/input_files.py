r"""Reading a user's input files: regular files only, bounded reads, strict and bounded JSON.

Every DAG, schedule and mask file attnio reads goes through here (issue 22): a FIFO, a
device, a folder or ``/dev/stdin`` on a pipe is refused before any read
(:func:`validate_regular_file`, :func:`regular_file_opener`, which also refuses a file swapped
for a FIFO between the check and the open); a read stops after
:data:`attnio.validation.MAX_INPUT_FILE_BYTES` bytes (:func:`read_input_bytes`); JSON nested
deeper than :data:`attnio.validation.MAX_JSON_DEPTH` is refused before parsing, integers of
more than :data:`attnio.validation.MAX_INT_DIGITS` digits and non-finite numbers are refused
while parsing (:func:`parse_json_text`, :func:`json_number_hooks`). Each refusal is one
:class:`~attnio.exceptions.InvalidInputError` line naming the file and the rule (exit 2).
The limits themselves are stated in :mod:`attnio.validation`, with every other rule.

>>> parse_json_text('{"a": [1, 2.5]}')
{'a': [1, 2.5]}
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from typing import Any, Callable

from attnio.exceptions import InvalidInputError
from attnio.validation import (
    MAX_INPUT_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    describe,
    one_line,
)

__all__ = ["validate_regular_file", "json_number_hooks", "parse_json_text", "read_input_bytes", "read_json_file", "read_text_file", "refuse_non_regular", "regular_file_opener"]


#: What a path that is not a regular file is, for the one-line refusal (``stat`` file types).
_FILE_KINDS = (
    (stat.S_ISDIR, "a folder, not a file"),
    (stat.S_ISFIFO, "a pipe (FIFO), not a regular file"),
    (stat.S_ISCHR, "a character device (a terminal, /dev/null, /dev/zero, ...), not a regular file"),
    (stat.S_ISBLK, "a block device, not a regular file"),
    (stat.S_ISSOCK, "a socket, not a regular file"),
)


def _not_regular(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is refused as input (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "not a regular file")


def refuse_non_regular(mode: int, *, what: str, shown: str) -> None:
    """Raise the one line ``<what> <shown> is a named pipe ... / a folder ...`` unless
    ``mode`` (an ``st_mode``) is a regular file's (the rule: :func:`regular_file_opener`)."""
    reason = _not_regular(mode)
    if reason is not None:
        rule = "" if stat.S_ISDIR(mode) else "; attnio reads input only from regular files"
        raise InvalidInputError(f"{what} {shown} is {reason}{rule}")


def regular_file_opener(what: str, path: Any) -> Callable[[str, int], int]:
    """An ``opener=`` for :func:`open` that accepts regular files only.

    The rule: every input file (DAG, schedule, hierarchy, mask pattern) must be a regular
    file. A named pipe with no writer would block ``open`` and ``read`` for ever, a device
    (``/dev/zero``, a terminal, ``/dev/stdin`` on a pipe or a closed stdin) may never end
    or hang on a read, and a folder has no bytes; all are refused with one line before any
    byte is read. The file is opened with ``O_NONBLOCK`` (opening a FIFO then returns at
    once) and ``O_NOCTTY``, and checked with ``fstat`` on the open descriptor, so a path
    swapped after an earlier check is refused too. (Piped data: save it to a file first.)
    """
    shown = describe(str(path), 80)

    def opener(name: str, flags: int) -> int:
        fd = os.open(name, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            refuse_non_regular(os.fstat(fd).st_mode, what=what, shown=shown)
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    return opener


def validate_regular_file(path: Any, *, what: str = "file") -> os.stat_result:
    """``os.stat(path)`` (symlinks followed) of an input that must be a regular file.

    Nothing is opened: a FIFO, a device or a folder is refused on its metadata alone (one
    :class:`InvalidInputError` line naming the kind of file); a missing or unreadable path
    is the ``cannot read`` line. See :func:`regular_file_opener` for the rule.
    """
    shown = describe(str(path), 80)
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = exc.strerror if isinstance(exc, OSError) else "the path holds a NUL byte"
        raise InvalidInputError(f"cannot read {what} {shown}: {reason}") from None
    refuse_non_regular(info.st_mode, what=what, shown=shown)
    return info


def read_input_bytes(path: Any, *, what: str = "file", max_bytes: int = MAX_INPUT_FILE_BYTES,
                     limit_name: str = "MAX_INPUT_FILE_BYTES") -> bytes:
    """The bytes of an input file: a regular file only (:func:`regular_file_opener`), read
    with a bounded read of at most ``max_bytes`` (``limit_name`` names the cap in the
    message); every failure is one :class:`InvalidInputError` line."""
    shown = describe(str(path), 80)
    info = validate_regular_file(path, what=what)
    if info.st_size > max_bytes:
        raise InvalidInputError(
            f"{what} {shown} has {info.st_size} bytes; at most {limit_name}={max_bytes}")
    try:
        with open(path, "rb", opener=regular_file_opener(what, path)) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {what} {shown}: {exc.strerror}") from None
    if len(data) > max_bytes:  # a file that grew, or whose size stat() understates (/proc)
        raise InvalidInputError(
            f"{what} {shown} is larger than {limit_name}={max_bytes} bytes")
    return data


def read_text_file(path: Any, *, what: str = "file", max_bytes: int = MAX_INPUT_FILE_BYTES,
                   limit_name: str = "MAX_INPUT_FILE_BYTES") -> str:
    """The text of an input file: :func:`read_input_bytes` (a regular file, a bounded read of
    at most ``max_bytes``, named ``limit_name``), then UTF-8 only; every failure is one
    :class:`InvalidInputError` line."""
    data = read_input_bytes(path, what=what, max_bytes=max_bytes, limit_name=limit_name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{what} {describe(str(path), 80)} is not UTF-8 text: byte "
                                f"0x{data[exc.start]:02x} at offset {exc.start}") from None


def read_json_file(path: Any, *, what: str = "file", max_bytes: int = MAX_INPUT_FILE_BYTES,
                   max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Read and parse a JSON input file: a regular file only (FIFOs, devices, folders and a
    closed stdin are refused before any read: :func:`regular_file_opener`), a bounded read
    of at most ``max_bytes``, UTF-8 only, nesting at most ``max_depth``, every integer of at
    most :data:`MAX_INT_DIGITS` digits and every number finite (:func:`parse_json_text`);
    every failure is one :class:`InvalidInputError` line."""
    text = read_text_file(path, what=what, max_bytes=max_bytes)
    return parse_json_text(text, what=f"{what} {describe(str(path), 80)}", max_depth=max_depth)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_depth(text: str) -> int:
    """Greatest nesting of ``[``/``{`` in JSON text, strings skipped (vectorised, linear)."""
    import numpy as np

    bare = _JSON_STRING.sub("", text)
    codes = np.frombuffer(bare.encode("utf-8", "replace"), dtype=np.uint8)
    step = (np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(codes, (ord("]"), ord("}"))).astype(np.int64))
    return int(step.cumsum().max()) if step.size else 0


def json_number_hooks(what: str, *, max_digits: int = MAX_INT_DIGITS) -> dict[str, Any]:
    """``parse_int`` / ``parse_float`` for :func:`json.loads` that bound every number of an
    input file: an integer of more than ``max_digits`` digits (:data:`MAX_INT_DIGITS`) and a
    float literal that is not finite (``1e400``) are one :class:`InvalidInputError` line
    naming the cap or the value (``int()`` of 5,000 digits would be a traceback)."""

    def bounded_int(digits: str) -> int:
        count = len(digits.lstrip("-"))
        if count > max_digits:
            raise InvalidInputError(f"{what} holds an integer of {count} digits; at most "
                                    f"MAX_INT_DIGITS={max_digits}")
        return int(digits)

    def finite_float(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            raise InvalidInputError(f"{what} holds the number {describe(literal, 40)[1:-1]}, "
                                    f"which is not a finite float")
        return number

    return {"parse_int": bounded_int, "parse_float": finite_float}


def parse_json_text(text: str, *, what: str = "input", max_depth: int = MAX_JSON_DEPTH,
                    max_digits: int = MAX_INT_DIGITS) -> Any:
    """``json.loads`` with nesting capped at ``max_depth`` and every number bounded: NaN and
    Infinity are refused, an integer has at most ``max_digits`` digits (:data:`MAX_INT_DIGITS`,
    the cap of sizes on the command line; Python's own limit, 4300, would be a traceback) and
    a number with a fraction or exponent must be a finite float (``1e400`` would be inf).

    >>> parse_json_text("[[[1]]]", max_depth=2)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: input is nested 3 levels deep; at most MAX_JSON_DEPTH=2
    >>> parse_json_text("[1e400]")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: input holds the number 1e400, which is not a finite float
    """
    depth = _json_depth(text)
    if depth > max_depth:
        raise InvalidInputError(
            f"{what} is nested {depth} levels deep; at most MAX_JSON_DEPTH={max_depth}")

    def no_constant(name: str) -> Any:
        raise InvalidInputError(f"{what} holds {name}, which is not valid JSON")

    try:
        return json.loads(text, parse_constant=no_constant,
                          **json_number_hooks(what, max_digits=max_digits))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except (RecursionError, ValueError) as exc:  # e.g. a number of more than 4300 digits
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(f"{what} cannot be parsed: {one_line(str(exc), 120)}") from None
