r"""Input validation shared by every command line and library entry point of attnio.

One place states each rule and each limit; the CLIs (``attnio bounds``, ``simulate``,
``pebble``) and the library entry points (:func:`attnio.graphs.exact.solve_optimal`,
:func:`attnio.graphs.game.replay`, :func:`attnio.algorithms.simulation.simulate` and
:func:`~attnio.algorithms.simulation.count`) call these functions, so a bad value gets the
same one-line :class:`~attnio.exceptions.InvalidInputError` everywhere (exit code 2 at the CLI).

Limits (stated here, named in the messages)
-------------------------------------------
* :data:`MAX_INT_DIGITS` — a size given as text has at most this many decimal digits
  (Python refuses ``int()`` of more than 4300 digits; results such as :math:`n^2 d^2` of
  500-digit sizes stay far below that limit, so they print and re-parse as JSON).
* :data:`MAX_SEED` — seeds are integers ``0 <= seed <= 2**64 - 1`` (NumPy's
  ``default_rng`` refuses negative seeds).
* :data:`MAX_STEPS` — ``--M`` and ``--M-geom LO:HI:COUNT`` name at most this many cache sizes.
* :data:`MAX_CACHE_SIZES` — ``attnio pebble --cache LO:HI`` spans at most this many sizes
  (each one is an exact search with its own time limit).
* :data:`MAX_INPUT_FILE_BYTES` — a DAG or schedule file is read with a bounded read of at most
  this many bytes (``/dev/zero`` is refused after that many bytes, not after filling memory).
* :data:`MAX_JSON_DEPTH` — JSON input nested deeper than this is refused before parsing.
* :data:`MAX_MESSAGE_CHARS` — an error line printed by the CLI has at most this many
  characters; values inside messages are shortened by :func:`describe`.

Examples
--------
>>> parse_positive_int("n", "4096")
4096
>>> parse_positive_int("n", "0")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: n=0 must be a positive integer
>>> parse_positive_int("n", "9" * 600)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: n has 600 digits; at most MAX_INT_DIGITS=500 are accepted
>>> validate_seed(-1)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: seed=-1 must be an integer with 0 <= seed <= 2**64 - 1
>>> geometric_sizes("--M-geom", "64:1024:5")
[64, 128, 256, 512, 1024]
>>> json_float(10.0 ** 300 * 10.0 ** 300) is None
True

This is the one place where the library and every command check their values (issue 12:
one validation module), so its rules read side by side; reading files is
:mod:`attnio.input_files`, the command-line flags :mod:`attnio.flags`.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from attnio.exceptions import InvalidInputError

if TYPE_CHECKING:  # networkx is imported lazily: `attnio bounds` never needs it
    import networkx as nx

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_SEED",
    "MAX_STEPS",
    "MAX_CACHE_SIZES",
    "MAX_INPUT_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_MESSAGE_CHARS",
    "PLOT_SUFFIXES",
    "describe",
    "one_line",
    "positive_int",
    "parse_positive_int",
    "positive_int_type",
    "positive_float",
    "positive_float_type",
    "validate_seed",
    "seed_type",
    "parse_seed",
    "parse_int_range",
    "geometric_sizes",
    "parse_sizes",
    "size_action",
    "admissible_cache_warning",
    "warn_outside_admissible",
    "deferred_warnings",
    "hold_warning",
    "validate_output_path",
    "json_float",
    "validate_digraph",
    "validate_name",
]

MAX_INT_DIGITS = 500
MAX_SEED = 2**64 - 1
MAX_STEPS = 1000
MAX_CACHE_SIZES = 64
MAX_INPUT_FILE_BYTES = 16 * 2**20
MAX_JSON_DEPTH = 100
MAX_MESSAGE_CHARS = 300
#: Extensions matplotlib writes without extra packages; ``--plot`` accepts only these.
PLOT_SUFFIXES = (".png", ".pdf", ".svg")

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
#: A number written the way every attnio flag accepts it: ASCII digits, an optional fraction
#: and exponent, or nan/inf (refused later by the range checks, with their own message).
#: ``float()`` alone would also take '٣', '1_0' and full-width digits.
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                         r"|[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def describe(value: Any, limit: int = 60) -> str:
    """``repr(value)`` shortened to at most ``limit`` characters (middle elided).

    >>> describe("x" * 100, limit=20)
    "'xxxxxxxx…xxxxxxxxx'"
    >>> describe([1, 2])
    '[1, 2]'
    """
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 2 * limit] + value[-2 * limit:]  # repr of a huge string is costly
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**limit else (
        f"<integer with {len(str(abs(value))) if value.bit_length() < 14000 else 'many'} digits>")
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Collapse whitespace (newlines included) and cut to ``limit`` characters ("…" at the cut).

    >>> one_line("a\\n  b")
    'a b'
    >>> len(one_line("y" * 1000))
    300
    """
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer (``bool`` excluded).

    NumPy integers are accepted; floats are not (they are not exact).

    >>> positive_int("M", 3)
    3
    >>> positive_int("M", 2.0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M=2.0 must be a positive integer
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise InvalidInputError(f"{name}={describe(value)} must be a positive integer")
    return int(value)


def parse_positive_int(name: str, text: Any, *, max_digits: int = MAX_INT_DIGITS) -> int:
    """Parse a positive integer from command-line text (digits only, at most ``max_digits``)."""
    if not isinstance(text, str):
        return positive_int(name, text)
    stripped = text.strip()
    if not _INT_TEXT.fullmatch(stripped):
        shown = stripped if len(stripped) <= 40 and stripped.isprintable() else describe(text, 40)
        raise InvalidInputError(f"{name}={shown} must be a positive integer")
    digits = len(stripped.lstrip("+-"))
    if digits > max_digits:
        raise InvalidInputError(
            f"{name} has {digits} digits; at most MAX_INT_DIGITS={max_digits} are accepted")
    value = int(stripped)
    if value < 1:
        raise InvalidInputError(f"{name}={value} must be a positive integer")
    return value


def _argparse_type(name: str, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    import argparse

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except InvalidInputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = name  # argparse names the type in some messages
    return convert


def positive_int_type(name: str) -> Callable[[str], int]:
    """An argparse ``type=`` that parses with :func:`parse_positive_int`."""
    return _argparse_type(name, lambda text: parse_positive_int(name, text))


def positive_float(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """A finite float > 0 (``>= 0`` with ``allow_zero``) from a number or text; ``nan``,
    ``inf`` and negatives are refused.

    >>> positive_float("--time-limit", "2.5")
    2.5
    >>> positive_float("--time-limit", "nan")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --time-limit='nan' must be a finite number > 0
    """
    try:
        if isinstance(value, bool) or not isinstance(value, (str, Real)):
            raise TypeError
        if isinstance(value, str) and not _FLOAT_TEXT.fullmatch(value.strip()):
            raise ValueError  # '٣', '1_0', '' ...: ASCII digits only
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        rule = ">= 0" if allow_zero else "> 0"
        raise InvalidInputError(f"{name}={describe(value, 40)} must be a finite number {rule}")
    return number


def validate_time_limit(time_limit: object, name: str = "time_limit") -> float | None:
    """Return ``time_limit`` if it is None or a finite number >= 0, else raise
    :class:`InvalidInputError` (NaN would never fire, infinity means None).

    >>> validate_time_limit(1.5), validate_time_limit(None)
    (1.5, None)
    >>> validate_time_limit(float("nan"))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: time_limit=nan must be a finite number >= 0 (or None)
    """
    if time_limit is None:
        return None
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not math.isfinite(time_limit) or time_limit < 0):
        raise InvalidInputError(
            f"{name}={time_limit!r} must be a finite number >= 0 (or None)")
    return time_limit


def parse_int_text(name: str, text: str, *, max_digits: int = MAX_INT_DIGITS) -> int:
    """An integer from command-line text: ASCII digits with an optional sign, at most
    ``max_digits`` digits (any sign; the caller checks the range).

    >>> parse_int_text("--workers", "2")
    2
    >>> parse_int_text("--workers", "٣")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --workers='٣' must be an integer written in ASCII digits (0-9)
    """
    stripped = text.strip()
    if not _INT_TEXT.fullmatch(stripped):
        raise InvalidInputError(
            f"{name}={describe(text, 40)} must be an integer written in ASCII digits (0-9)")
    if len(stripped.lstrip("+-")) > max_digits:
        raise InvalidInputError(f"{name} has {len(stripped.lstrip('+-'))} digits; at most "
                                f"MAX_INT_DIGITS={max_digits} are accepted")
    return int(stripped)


def parse_float_text(name: str, text: str) -> float:
    """A float from command-line text written in ASCII (``2``, ``0.5``, ``1e-3``; ``nan`` and
    ``inf`` pass through to the caller's range check). ``float()`` alone accepts '٣' and '1_0'.

    >>> parse_float_text("--time-limit", "2.5")
    2.5
    >>> parse_float_text("--time-limit", "1_0")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --time-limit='1_0' must be a number written in ASCII digits (2, 0.5, 1e-3)
    """
    if not _FLOAT_TEXT.fullmatch(text.strip()):
        raise InvalidInputError(
            f"{name}={describe(text, 40)} must be a number written in ASCII digits (2, 0.5, 1e-3)")
    return float(text.strip())


def int_text_type(name: str) -> Callable[[str], int]:
    """An argparse ``type=`` for integer flags (:func:`parse_int_text`), instead of ``int``."""
    return _argparse_type(name, lambda text: parse_int_text(name, text))


def float_text_type(name: str) -> Callable[[str], float]:
    """An argparse ``type=`` for number flags (:func:`parse_float_text`), instead of ``float``."""
    return _argparse_type(name, lambda text: parse_float_text(name, text))


def positive_float_type(name: str) -> Callable[[str], float]:
    """An argparse ``type=`` that parses with :func:`positive_float`."""
    return _argparse_type(name, lambda text: positive_float(name, text))


def validate_seed(value: Any, name: str = "seed") -> int:
    """A seed for ``numpy.random.default_rng``: an int with ``0 <= seed <= MAX_SEED``.

    Bools, floats, text and other types are refused (:func:`seed_type` parses text).
    """
    if (isinstance(value, bool) or not isinstance(value, Integral)
            or not 0 <= int(value) <= MAX_SEED):
        raise InvalidInputError(
            f"{name}={describe(value, 40)} must be an integer with 0 <= {name} <= 2**64 - 1")
    return int(value)


def seed_type(name: str = "--seed") -> Callable[[str], int]:
    """An argparse ``type=`` that parses with :func:`validate_seed`."""
    return _argparse_type(name, lambda text: parse_seed(text, name))


def parse_seed(text: Any, name: str = "--seed") -> int:
    """A seed from command-line text (digits) or an int; see :func:`validate_seed`.

    >>> parse_seed("7"), parse_seed(7)
    (7, 7)
    """
    if isinstance(text, str):
        stripped = text.strip()
        if _INT_TEXT.fullmatch(stripped) and len(stripped) < 40:
            return validate_seed(int(stripped), name)
    return validate_seed(text, name)


def parse_int_range(name: str, text: str, *, max_count: int = MAX_CACHE_SIZES) -> tuple[int, int]:
    """``"5"`` → (5, 5); ``"3:8"`` → (3, 8): a contiguous range read by :func:`parse_sizes`
    (positive, LO <= HI, at most ``max_count`` values); lists and steps are refused here.

    >>> parse_int_range("--cache", "3:8")
    (3, 8)
    >>> parse_int_range("--cache", "1:1000000000000")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M='1:1000000000000' names 1000000000000 sizes; at most MAX_CACHE_SIZES=64
    """
    if not isinstance(text, str) or "," in text or text.count(":") > 1:
        raise InvalidInputError(f"{name}={describe(text, 40)} must be an integer or a range LO:HI")
    values = parse_sizes("M", text, max_count=max_count, limit_name="MAX_CACHE_SIZES")
    return values[0], values[-1]


def geometric_sizes(name: str, text: str, *, max_steps: int = MAX_STEPS,
                    limit_name: str = "MAX_STEPS") -> list[int]:
    """``"LO:HI:COUNT"`` → COUNT geometrically spaced integers from LO to HI (duplicates
    dropped): the sizes of ``--M-geom``.

    ``COUNT`` is at most ``max_steps`` (:data:`MAX_STEPS`, named ``limit_name``); ``HI < 10**300``.
    The refusals are worded as those of :func:`parse_sizes` (``LO=.. exceeds HI=..``,
    ``names N sizes; at most ...``).

    >>> geometric_sizes("--M-geom", "64:1024:1000000000")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --M-geom='64:1024:1000000000' names 1000000000 sizes; at most MAX_STEPS=1000
    >>> geometric_sizes("--M-geom", "64:8:3")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --M-geom='64:8:3': LO=64 exceeds HI=8
    """
    parts = text.split(":") if isinstance(text, str) else []
    if len(parts) != 3 or not all(_INT_TEXT.fullmatch(p.strip()) for p in parts):
        raise InvalidInputError(f"{name}={describe(text, 40)} must be a geometric range "
                                f"LO:HI:COUNT of integers")
    lo, hi = parse_positive_int("M", parts[0]), parse_positive_int("M", parts[1])
    steps = parse_positive_int("COUNT", parts[2])
    if steps > max_steps:
        raise InvalidInputError(f"{name}={describe(text, 40)} names {steps} sizes; "
                                f"at most {limit_name}={max_steps}")
    if hi < lo:
        raise InvalidInputError(f"{name}={describe(text, 40)}: LO={lo} exceeds HI={hi}")
    if hi >= 10**300:
        raise InvalidInputError(f"{name} HI must be below 10**300 (the points are floats)")
    if steps == 1:
        return [lo]
    # exact integer geometry: lo * (hi/lo)**(k/(steps-1)), rounded; no float overflow
    values = {lo, hi}
    log_lo, log_hi = math.log(lo), math.log(hi)
    for k in range(1, steps - 1):
        value = round(math.exp(log_lo + (log_hi - log_lo) * k / (steps - 1)))
        values.add(min(max(value, lo), hi))
    return sorted(values)


_SIZE_ITEM = re.compile(r"([+-]?[0-9]+)(?::([+-]?[0-9]+)(?::([+-]?[0-9]+))?)?")


def parse_sizes(name: str, text: Any, *, max_count: int = MAX_STEPS,
                limit_name: str = "MAX_STEPS", single: bool = False) -> list[int]:
    """The one parser of sizes on the command line (``--n``, ``--d``, ``--M`` of every command).

    ``text`` is a comma-separated list of items; an item is an integer ``V``, a range ``LO:HI``
    (every integer from LO to HI) or ``LO:HI:STEP`` (every STEP-th). Every value is a positive
    integer of at most :data:`MAX_INT_DIGITS` digits; LO <= HI; at most ``max_count`` values
    in all (counted before any is listed); duplicates are dropped, the order kept. With
    ``single`` exactly one value is accepted (a command that answers at one size).
    (``--M-geom LO:HI:COUNT`` of the sweeping commands is a different thing: COUNT
    geometrically spaced sizes, :func:`geometric_sizes`.)

    >>> parse_sizes("M", "64, 256,1024")
    [64, 256, 1024]
    >>> parse_sizes("M", "3:6"), parse_sizes("M", "16:64:16,8")
    ([3, 4, 5, 6], [16, 32, 48, 64, 8])
    >>> parse_sizes("M", "0")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M=0 must be a positive integer
    >>> parse_sizes("M", "1:100000")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M='1:100000' names 100000 sizes; at most MAX_STEPS=1000
    >>> parse_sizes("M", "64,128", single=True)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M='64,128' names 2 sizes; this command takes one M
    """
    if isinstance(text, Integral) and not isinstance(text, bool):
        values = [positive_int(name, text)]
    else:
        if not isinstance(text, str):
            raise InvalidInputError(f"{name}={describe(text, 40)} must be an integer, a list "
                                    f"V1,V2,... or a range LO:HI[:STEP]")
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise InvalidInputError(f"{name}={describe(text, 40)} names no size")
        if len(items) > max_count:
            rule = f"this command takes one {name}" if single else f"at most {limit_name}={max_count}"
            raise InvalidInputError(f"{name}={describe(text, 40)} names {len(items)} sizes; "
                                    f"{rule}")
        ranges: list[tuple[int, int, int]] = []
        for item in items:
            match = _SIZE_ITEM.fullmatch(item.replace(" ", ""))
            if match is None:
                if ":" in item or "," in text:
                    raise InvalidInputError(f"{name}={describe(text, 40)} must be an integer, a "
                                            f"list V1,V2,... or a range LO:HI[:STEP]")
                return [parse_positive_int(name, item)]  # "x", "2.5": the single-value message
            lo = parse_positive_int(name, match.group(1))
            hi = lo if match.group(2) is None else parse_positive_int(name, match.group(2))
            step = 1 if match.group(3) is None else parse_positive_int("STEP", match.group(3))
            if hi < lo:
                raise InvalidInputError(f"{name}={describe(text, 40)}: LO={lo} exceeds HI={hi}")
            ranges.append((lo, hi, step))
        count = sum((hi - lo) // step + 1 for lo, hi, step in ranges)
        if single and count != 1:
            raise InvalidInputError(f"{name}={describe(text, 40)} names {count} sizes; "
                                    f"this command takes one {name}")
        if count > max_count:
            raise InvalidInputError(f"{name}={describe(text, 40)} names {count} sizes; "
                                    f"at most {limit_name}={max_count}")
        values = list(dict.fromkeys(v for lo, hi, step in ranges for v in range(lo, hi + 1, step)))
    if single and len(values) != 1:  # '64,64': one size named twice
        raise InvalidInputError(f"{name}={describe(text, 40)} names {len(values)} sizes; "
                                f"this command takes one {name}")
    return values


def size_action(name: str, *, sweep: bool = False, geometric: bool = False,
                max_count: int = MAX_STEPS, limit_name: str = "MAX_STEPS") -> type:
    """An argparse ``action=`` that parses a size flag with :func:`parse_sizes` (one value, or
    with ``sweep`` a list; with ``geometric`` :func:`geometric_sizes`) while the command line is
    parsed, before any work.

    A bad value raises :class:`~attnio.exceptions.InvalidInputError` out of ``parse_args``;
    :func:`attnio.cli.main` prints it as one line and exits 2 — the same line and code as an
    error raised by the command itself (argparse's ``type=`` would rewrite the message).

    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--M", action=size_action("M", sweep=True))
    >>> parser.parse_args(["--M", "64,256:258"]).M
    [64, 256, 257, 258]
    >>> parser.parse_args(["--M", "0"])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M=0 must be a positive integer
    """
    import argparse

    class SizeAction(argparse.Action):
        def __call__(self, parser: Any, namespace: Any, values: Any,
                     option_string: str | None = None) -> None:
            if geometric:
                parsed: Any = geometric_sizes(option_string or name, values)
            else:
                parsed = parse_sizes(name, values, max_count=max_count, limit_name=limit_name,
                                     single=not sweep)
                if not sweep:
                    parsed = parsed[0]
            setattr(namespace, self.dest, parsed)

    SizeAction.__name__ = f"SizeAction[{name}]"
    return SizeAction


def admissible_cache_warning(command: str, n: int, d: int, Ms: Iterable[int]) -> str | None:
    """The one line every attention command prints when an M lies outside d <= M <= n*d.

    The policy (README, "Sizes and flags"): such an M is *not* bad input — every value is still
    computed, and each bound outside its own admissible range is flagged (``in_range``) — so
    the command warns once on stderr and goes on; exit code 2 is kept for values that are not
    sizes at all.

    >>> print(admissible_cache_warning("bounds", 4, 4, [1000]))  # doctest: +NORMALIZE_WHITESPACE
    attnio bounds: warning: M=1000 is outside d <= M <= n*d = 4 <= M <= 16 (FlashAttention's
    range); computed anyway, bounds outside their admissible range are flagged
    >>> admissible_cache_warning("gap", 64, 8, [8, 512]) is None
    True
    """
    outside = [M for M in Ms if not d <= M <= n * d]
    if not outside:
        return None
    shown = ", ".join(str(M) for M in outside[:4]) + (", …" if len(outside) > 4 else "")
    verb = "is" if len(outside) == 1 else "are"
    return one_line(f"attnio {command}: warning: M={shown} {verb} outside d <= M <= n*d = "
                    f"{d} <= M <= {n * d} (FlashAttention's range); computed anyway, bounds "
                    f"outside their admissible range are flagged", limit=400)


#: Warnings held back while a command runs under :func:`deferred_warnings` (else None).
_DEFERRED: list[str] | None = None


def warn_outside_admissible(command: str, n: int, d: int, Ms: Iterable[int]) -> None:
    """Print :func:`admissible_cache_warning`'s line on stderr, if there is one — or, inside
    :func:`deferred_warnings` (every command run by :func:`attnio.cli.main`), hold it until the
    command has finished, so that a command which then fails prints only its error line."""
    line = admissible_cache_warning(command, n, d, Ms)
    if line is not None:
        hold_warning(line)


def hold_warning(line: str) -> None:
    """Print a warning ``line`` on stderr — or, inside :func:`deferred_warnings`, hold it (once)
    until the command has answered (:mod:`attnio.flags`' deprecation lines come here too)."""
    import sys

    if _DEFERRED is None:
        print(line, file=sys.stderr)
    elif line not in _DEFERRED:
        _DEFERRED.append(line)


@contextlib.contextmanager
def deferred_warnings() -> Iterator[list[str]]:
    """Collect the warnings of :func:`warn_outside_admissible` in the yielded list (the
    caller prints them once the command has answered).

    >>> with deferred_warnings() as held:
    ...     warn_outside_admissible("gap", 64, 8, [4])
    >>> len(held)
    1
    """
    global _DEFERRED
    previous, _DEFERRED = _DEFERRED, []
    try:
        yield _DEFERRED
    finally:
        _DEFERRED = previous


def validate_output_path(path: Any, *, suffixes: Iterable[str], overwrite: bool = False,
                      what: str = "output") -> Path:
    """Validate a file to be written: an allowed extension, an existing parent folder, not a
    folder, not a symlink, not an existing file unless ``overwrite`` (see :mod:`attnio.safe_io`).

    The rule for a folder: it is an error (name a file inside it instead).

    >>> validate_output_path("io.bmp", suffixes=PLOT_SUFFIXES, what="--plot")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --plot 'io.bmp' must end in .png, .pdf or .svg
    """
    from attnio.safe_io import validate_name_lengths, validate_writable_target

    allowed = tuple(s.lower() for s in suffixes)
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidInputError(f"{what} {describe(path, 40)} must be a file path")
    target = validate_name_lengths(path, f"{what} name")  # before any stat: ENAMETOOLONG
    if target.is_dir():
        raise InvalidInputError(f"{what} {describe(str(path), 80)} is a folder; name a file "
                                f"ending in {_or(allowed)} inside it")
    if target.suffix.lower() not in allowed:
        raise InvalidInputError(f"{what} {describe(str(path), 80)} must end in {_or(allowed)}")
    return validate_writable_target(target, overwrite=overwrite)


def _or(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def json_float(value: Any) -> float | None:
    """``float(value)`` when finite, else None (JSON has no NaN or Infinity).

    >>> json_float(2), json_float(float("nan")), json_float(10**400)
    (2.0, None, None)
    """
    try:
        number = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def validate_digraph(G: Any, name: str = "G") -> "nx.DiGraph":
    """``G`` must be a :class:`networkx.DiGraph` (not an undirected or multi graph, not a list).

    >>> import networkx as nx
    >>> validate_digraph(nx.Graph())
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: G must be a networkx.DiGraph, not Graph
    """
    import networkx as nx

    if not isinstance(G, nx.DiGraph) or G.is_multigraph():
        raise InvalidInputError(f"{name} must be a networkx.DiGraph, not {type(G).__name__}")
    return G


def validate_name(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` must be a string among ``choices`` (checked before any dict lookup).

    >>> validate_name("algorithm", ["flash1"], ("flash1", "flash2"))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: algorithm=['flash1'] must be one of flash1, flash2
    """
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        kind = "is unknown; choose from" if isinstance(value, str) else "must be one of"
        raise InvalidInputError(f"{name}={describe(value, 40)} {kind} {', '.join(options)}")
    return value
