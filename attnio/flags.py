r"""One flag grammar: the shared command-line flags of every ``attnio`` command, registered once.

Each command's parser calls these helpers, so a flag is spelled, parsed, documented and
refused the same way everywhere (issue 23, item 4):

* **Cache sizes** (:func:`add_cache_size_arguments`). ``--M`` is an integer ``V``, a list
  ``V1,V2,...`` or an arithmetic range ``LO:HI`` / ``LO:HI:STEP``
  (:func:`attnio.validation.parse_sizes`, the one parser). ``--M-geom LO:HI:COUNT`` is COUNT
  geometrically spaced sizes from LO to HI (:func:`attnio.validation.geometric_sizes`) on every
  command that sweeps; it stores into the same destination as ``--M``. A command that answers
  at one size (``bounds``, ``lower-bound``) refuses a list or a range with one line:
  ``M='64,128' names 2 sizes; this command takes one M``.
* **Budgets** (:func:`add_time_limit_argument`, :func:`add_solver_time_limit_argument`).
  ``--time-limit SECONDS`` is the whole call's budget on every budgeted command (``verify``,
  ``prove``, ``pebble``, ``lower-bound``, ``gap``, ``report``); ``--solver-time-limit
  SECONDS`` bounds one solver call or one exact search (``verify``, ``lower-bound``,
  ``pebble``), never beyond the time left. Both take seconds, parsed by :func:`parse_seconds`.
* **Parallelism** (:func:`add_parallel_arguments`). ``--workers N`` / ``--scheduler ADDRESS``
  on every batch command (``verify``, ``pebble``, ``simulate``, ``gap``): the independent
  instances run through :func:`attnio.parallel.map_instances`; serial is the default and the
  results are those of the serial run, in the same order.
* **Tables** (:func:`add_wide_argument`, :func:`add_latex_argument`). Every table fits
  :data:`attnio.tables.TERMINAL_COLUMNS` (100) columns by default — long text columns
  wrapped, explanations moved under the table as footnotes — and ``--wide`` prints it at full
  width (``bounds``, ``simulate``, ``gap``, ``verify``, ``pebble``, ``lower-bound``).
  ``--latex [FILE.tex]`` (``bounds``, ``simulate``, ``gap``, ``verify``) prints the table as
  a booktabs ``tabular`` (tabulate's ``latex_booktabs``) or writes it to FILE.tex through
  :mod:`attnio.safe_io` (an existing file only with ``--force``); the target is checked
  before any work (:func:`check_latex_target`, :func:`emit_latex`).
* **Deprecated spellings** (:func:`deprecated_alias`). ``--M-range`` (now ``--M-geom``),
  ``--z3-timeout MS`` / ``--z3-timeout-ms MS`` (now ``--solver-time-limit SECONDS``) and
  ``prove --timeout`` (now ``--time-limit``) still work, converted to the new unit, and print
  one line ``attnio <command>: warning: --OLD is deprecated; use --NEW`` on stderr once the
  command has answered (:func:`attnio.validation.deferred_warnings`; a command that fails on
  bad input prints only its error line).

Every value is parsed while the command line is parsed (an ``argparse`` action), so a bad one
is a single :class:`~attnio.exceptions.InvalidInputError` line and exit 2 before any work.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="attnio demo")
>>> add_cache_size_arguments(parser, command="demo")
>>> add_time_limit_argument(parser)
>>> args = parser.parse_args(["--M-geom", "64:1024:5", "--time-limit", "2.5"])
>>> args.M, args.time_limit
([64, 128, 256, 512, 1024], 2.5)
>>> parser.parse_args(["--M", "64:32"])
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: M='64:32': LO=64 exceeds HI=32
>>> parse_seconds("--time-limit", "soon")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: --time-limit='soon' must be a finite number of seconds >= 0
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable

from attnio.exceptions import InvalidInputError
from attnio.validation import (
    MAX_STEPS,
    describe,
    geometric_sizes,
    hold_warning,
    parse_float_text,
)

__all__ = [
    "add_cache_size_arguments",
    "add_time_limit_argument",
    "add_solver_time_limit_argument",
    "add_parallel_arguments",
    "parallel_options",
    "is_parallel",
    "parse_seconds",
    "seconds_action",
    "deprecated_alias",
    "warn_deprecated",
    "solver_milliseconds",
    "MAX_SOLVER_MILLISECONDS",
    "add_wide_argument",
    "table_width",
    "add_latex_argument",
    "check_latex_target",
    "emit_latex",
]

#: Largest z3 timeout handed to a solver (z3 takes an unsigned 32-bit count of milliseconds);
#: a longer ``--solver-time-limit`` is clamped to it (about 49 days).
MAX_SOLVER_MILLISECONDS = 2**32 - 1


def parse_seconds(name: str, text: Any, *, allow_zero: bool = True,
                  max_seconds: float | None = None) -> float:
    """A budget in seconds from command-line text (or a number): ASCII digits with an optional
    fraction and exponent, finite, ``>= 0`` (``> 0`` without ``allow_zero``) and at most
    ``max_seconds``. Every refusal is the same line:
    ``<name>=<value> must be a finite number of seconds <rule>``.

    >>> parse_seconds("--time-limit", "0"), parse_seconds("--solver-time-limit", "1e-3")
    (0.0, 0.001)
    >>> parse_seconds("--solver-time-limit", "0", allow_zero=False)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --solver-time-limit='0' must be a finite number of seconds > 0
    >>> parse_seconds("--time-limit", "1e9", allow_zero=False, max_seconds=3600)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --time-limit='1e9' must be a finite number of seconds > 0 and at most 3600
    """
    rule = ">= 0" if allow_zero else "> 0"
    if max_seconds is not None:
        rule += f" and at most {max_seconds:g}"
    number = math.nan
    if isinstance(text, str):
        try:
            number = parse_float_text(name, text)
        except InvalidInputError:  # '٣', '1_0', 'soon': the one wording below
            pass
    elif isinstance(text, (int, float)) and not isinstance(text, bool):
        try:
            number = float(text)
        except OverflowError:
            number = math.inf
    if (not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero)
            or (max_seconds is not None and number > max_seconds)):
        raise InvalidInputError(
            f"{name}={describe(text, 40)} must be a finite number of seconds {rule}")
    return number


def solver_milliseconds(seconds: float) -> int:
    """A per-call z3 timeout in milliseconds for ``seconds`` (at least 1, at most
    :data:`MAX_SOLVER_MILLISECONDS`).

    >>> solver_milliseconds(20.0), solver_milliseconds(1e-9), solver_milliseconds(1e300)
    (20000, 1, 4294967295)
    """
    return max(1, min(MAX_SOLVER_MILLISECONDS, math.ceil(seconds * 1000)))


def seconds_action(name: str, *, allow_zero: bool = True,
                   max_seconds: float | None = None) -> type:
    """An argparse ``action=`` that parses a budget with :func:`parse_seconds` while the
    command line is parsed (a bad value: one line, exit 2)."""

    class SecondsAction(argparse.Action):
        def __call__(self, parser: Any, namespace: Any, values: Any,
                     option_string: str | None = None) -> None:
            setattr(namespace, self.dest, parse_seconds(name, values, allow_zero=allow_zero,
                                                        max_seconds=max_seconds))

    SecondsAction.__name__ = f"SecondsAction[{name}]"
    return SecondsAction


def warn_deprecated(command: str, old: str, new: str) -> None:
    """Queue the one line of a deprecated spelling: ``attnio <command>: warning: <old> is
    deprecated; use <new>`` (:func:`attnio.validation.hold_warning`)."""
    hold_warning(f"attnio {command}: warning: {old} is deprecated; use {new}")


def deprecated_alias(command: str, old: str, new: str,
                     parse: Callable[[str], Any]) -> type:
    """An argparse ``action=`` for a deprecated spelling ``old`` of the flag ``new``: the value
    is parsed by ``parse`` (which converts it to the new flag's unit) and stored in the new
    flag's destination, and one warning line is queued
    (:func:`warn_deprecated`)."""

    class DeprecatedAlias(argparse.Action):
        def __call__(self, parser: Any, namespace: Any, values: Any,
                     option_string: str | None = None) -> None:
            setattr(namespace, self.dest, parse(values))
            warn_deprecated(command, old, new)

    DeprecatedAlias.__name__ = f"DeprecatedAlias[{old}]"
    return DeprecatedAlias


def add_cache_size_arguments(parser: argparse.ArgumentParser, *, command: str,
                             dest: str = "M", aliases: tuple[str, ...] = (),
                             sweep: bool = True, required: bool = False,
                             default: Any = None, max_count: int = MAX_STEPS,
                             limit_name: str = "MAX_STEPS", help: str | None = None) -> None:
    """Register ``--M`` (plus ``aliases``, e.g. ``--cache``) and, on a command that sweeps,
    ``--M-geom LO:HI:COUNT`` and the deprecated ``--M-range``, mutually exclusive, all into
    ``dest`` (a list of ints; one int without ``sweep``)."""
    from attnio.validation import size_action

    group = parser.add_mutually_exclusive_group(required=required) if sweep else parser
    grammar = "V, V1,V2,..., LO:HI or LO:HI:STEP" if sweep else "one positive integer"
    alias_note = f" ({', '.join(aliases)} is an alias)" if aliases else ""
    group.add_argument("--M", *aliases, dest=dest, metavar="M" if not sweep else "M1,M2,...",
                       action=size_action("M", sweep=sweep, max_count=max_count,
                                          limit_name=limit_name),
                       default=default, required=required and not sweep,
                       help=(help or "cache size in words") + f": {grammar}{alias_note}")
    if not sweep:
        return

    def geometric(text: str, flag: str = "--M-geom") -> list[int]:
        return geometric_sizes(flag, text, max_steps=max_count, limit_name=limit_name)

    class GeometricAction(argparse.Action):
        def __call__(self, parser: Any, namespace: Any, values: Any,
                     option_string: str | None = None) -> None:
            setattr(namespace, self.dest, geometric(values))

    group.add_argument("--M-geom", dest=dest, metavar="LO:HI:COUNT", action=GeometricAction,
                       help="COUNT sizes from LO to HI, geometrically spaced (rounded to "
                            "integers, duplicates dropped)")
    group.add_argument("--M-range", dest=dest, metavar="LO:HI:COUNT",
                       action=deprecated_alias(command, "--M-range", "--M-geom",
                                               lambda text: geometric(text, "--M-range")),
                       help=argparse.SUPPRESS)


def add_time_limit_argument(parser: argparse.ArgumentParser, *, default: float | None = None,
                            help: str | None = None, allow_zero: bool = True,
                            max_seconds: float | None = None,
                            deprecated: tuple[str, str] | None = None) -> None:
    """Register ``--time-limit SECONDS``: the whole call's budget (default ``default``; None:
    no limit). ``deprecated=(command, "--old")`` also registers an old spelling in seconds."""
    text = help or "seconds for the whole call (default: no limit)"
    parser.add_argument("--time-limit", dest="time_limit", metavar="SECONDS", default=default,
                        action=seconds_action("--time-limit", allow_zero=allow_zero,
                                              max_seconds=max_seconds), help=text)
    if deprecated is not None:
        command, old = deprecated
        parser.add_argument(old, dest="time_limit", metavar="SECONDS", help=argparse.SUPPRESS,
                            action=deprecated_alias(command, old, "--time-limit", lambda t: (
                                parse_seconds(old, t, allow_zero=allow_zero,
                                              max_seconds=max_seconds))))


def add_solver_time_limit_argument(parser: argparse.ArgumentParser, *, default: float,
                                   help: str,
                                   deprecated_ms: tuple[str, str] | None = None) -> None:
    """Register ``--solver-time-limit SECONDS`` (> 0): the budget of one solver call or one
    exact search, never beyond the time left of ``--time-limit``.
    ``deprecated_ms=(command, "--old")`` also registers an old spelling in milliseconds."""
    parser.add_argument("--solver-time-limit", dest="solver_time_limit", metavar="SECONDS",
                        default=default, help=help,
                        action=seconds_action("--solver-time-limit", allow_zero=False))
    if deprecated_ms is not None:
        command, old = deprecated_ms
        parser.add_argument(old, dest="solver_time_limit", metavar="MS", help=argparse.SUPPRESS,
                            action=deprecated_alias(command, f"{old} MS",
                                                    "--solver-time-limit SECONDS",
                                                    lambda t: parse_milliseconds(old, t)))


def parse_milliseconds(name: str, text: str) -> float:
    """A deprecated budget in milliseconds, as seconds (the rule of :func:`parse_seconds`).

    >>> parse_milliseconds("--z3-timeout", "2000")
    2.0
    """
    return parse_seconds(name, text, allow_zero=False) / 1000


def add_parallel_arguments(parser: argparse.ArgumentParser, *, what: str = "instances") -> None:
    """Register ``--workers N`` / ``--scheduler ADDRESS`` (mutually exclusive): run the
    independent ``what`` on a local Dask cluster of N processes, or on an existing cluster
    (:mod:`attnio.parallel`). Both are checked by :func:`parallel_options`."""
    from attnio.validation import int_text_type

    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", type=int_text_type("--workers"), metavar="N",
                       help=f"compute the {what} on a local Dask cluster of N processes "
                            "(results identical to the serial run, same order)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help=f"compute the {what} on an existing Dask cluster "
                            "(e.g. tcp://host:8786)")


def parallel_options(args: argparse.Namespace) -> dict[str, Any]:
    """``{"workers": N | None, "scheduler": ADDRESS | None}`` of the parsed flags, checked
    (:func:`attnio.parallel.validate_workers`: bad input is one line, exit 2)."""
    workers, scheduler = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is not None or scheduler is not None:
        from attnio.parallel import validate_workers

        validate_workers(workers, scheduler)
    return {"workers": workers, "scheduler": scheduler}


def is_parallel(options: dict[str, Any]) -> bool:
    """True when :func:`parallel_options` asks for Dask."""
    return options["workers"] is not None or options["scheduler"] is not None


def add_wide_argument(parser: argparse.ArgumentParser) -> None:
    """Register ``--wide``: tables and lines at full width instead of
    :data:`attnio.tables.TERMINAL_COLUMNS` columns (:func:`table_width`)."""
    from attnio.tables import TERMINAL_COLUMNS

    parser.add_argument("--wide", action="store_true",
                        help=f"print tables at full width (default: fit {TERMINAL_COLUMNS} "
                             "columns, long text wrapped, explanations as footnotes)")


def table_width(args: argparse.Namespace) -> int | None:
    """The width tables and lines must fit: :data:`attnio.tables.TERMINAL_COLUMNS`, or None
    (no limit) with ``--wide``."""
    from attnio.tables import TERMINAL_COLUMNS

    return None if getattr(args, "wide", False) else TERMINAL_COLUMNS


def add_latex_argument(parser: Any, *, what: str = "the table",
                       force: bool = True) -> None:
    """Register ``--latex [FILE.tex]`` on ``parser`` (or a mutually exclusive group of
    output formats) and, with ``force``, ``--force`` on the parser of that group."""
    parser.add_argument("--latex", nargs="?", const="-", metavar="FILE.tex",
                        help=f"{what} as a booktabs tabular on stdout, or written to FILE.tex "
                             "(needs \\usepackage{booktabs,graphicx}; a table wider than the "
                             "text is scaled down to it)")
    if force:
        owner = getattr(parser, "_container", parser)  # a group registers on its parser
        owner.add_argument("--force", action="store_true",
                           help="let --latex FILE.tex replace an existing file")


def check_latex_target(args: argparse.Namespace) -> None:
    """Refuse a bad ``--latex FILE.tex`` (wrong extension, a folder, an existing file without
    ``--force``…) before any work: one line, exit 2."""
    target = getattr(args, "latex", None)
    if target not in (None, "-"):
        from attnio.validation import validate_output_path

        validate_output_path(target, suffixes=(".tex",), overwrite=args.force, what="--latex")


def emit_latex(args: argparse.Namespace, text: str) -> None:
    """Print the LaTeX ``text`` (``--latex``) or write it to ``--latex FILE.tex`` (atomic,
    :func:`attnio.safe_io.write_text`) and print ``wrote FILE``."""
    if not text.endswith("\n"):
        text += "\n"
    if args.latex == "-":
        print(text, end="")
        return
    from attnio.safe_io import write_text

    print(f"wrote {write_text(args.latex, text, overwrite=args.force)}")
