"""The ``attnio`` command line: one console script, one subcommand per package.

Each subcommand lives beside the code it drives and exposes two functions::

    register(subparsers) -> argparse.ArgumentParser   # adds its parser
    run(args: argparse.Namespace) -> int               # returns the exit code

Exit codes (every subcommand): 0 success; 1 a check failed (Refuted or Undecided);
2 bad input — one line naming the value and the rule, never a traceback; 130 interrupted.
Every error line is at most :data:`attnio.validation.MAX_MESSAGE_CHARS` (300) characters: long
values are cut with "…".

Output channels (:mod:`attnio.output`): stdout that cannot be written (``> /dev/full``, a
closed stdout) is exit 1 with one line (bad input found first stays 2); a reader that leaves
a pipe early (``| head``) ends the output silently with the command's code; a full or
closed stderr never changes the exit code (bad input stays 2); a terminal that cannot show
``≤``, ``—``, ``×`` … gets ASCII (``<=``, ``--``, ``x``); ``--json`` writes a non-finite float
as ``null``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn, Sequence

from attnio import __version__, interrupts, output
from attnio.completion import SHELLS, PrintCompletion
from attnio.exceptions import AttnioError, InvalidInputError
from attnio.validation import deferred_warnings, one_line

__all__ = ["main", "build_parser", "SUBCOMMANDS", "COMMAND_HELP", "OneLineArgumentParser"]

# subcommand -> module that implements it (imported lazily so `attnio bounds` never pays for z3).
SUBCOMMANDS: dict[str, str] = {
    "verify": "attnio.commands.verify",
    "prove": "attnio.commands.prove",
    "bounds": "attnio.commands.bounds",
    "simulate": "attnio.commands.simulate",
    "pebble": "attnio.commands.pebble",
    "gap": "attnio.commands.gap",
    "advise": "attnio.commands.advise",
    "explain": "attnio.commands.explain",
    "lower-bound": "attnio.commands.lower_bound",
    "report": "attnio.commands.report",
}


#: subcommand -> its one-line help: ``attnio --help`` and ``--version`` list the commands
#: without importing them (a test checks each equals the help its module registers).
COMMAND_HELP: dict[str, str] = {
    "verify": "machine-check every claim (z3, exact search) and print a verdict table",
    "prove": "prove or refute your own statement for all values of its declared symbols",
    "bounds": "every I/O bound at (n, d, M), the regime, crossover and advice",
    "simulate": "count or execute tiled attention algorithms under a two-level memory of M "
                "words",
    "pebble": "exact optimal red-blue pebbling of a DAG; replay a schedule",
    "gap": "best explicit lower bound vs every algorithm's exact I/O, and their ratio",
    "advise": "per memory level: every algorithm's counted I/O, the certified lower bound, "
              "and the algorithm to run",
    "explain": "what a word printed by attnio means (the glossary)",
    "lower-bound": "certified lower bounds on the pebbling I/O of a DAG",
    "report": "write a report (Markdown + PNGs, or one HTML file) with the figures, the "
              "bound table and the verify table",
}


class OneLineArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, one_line(f"{self.prog}: error: {message}") + "\n")


def build_parser(names: Sequence[str] | None = None, *,
                 stubs: bool = False) -> OneLineArgumentParser:
    """Build the top-level parser; ``names`` restricts which subcommands are imported.
    ``stubs``: every subcommand is registered by name and help only, nothing imported — for
    ``attnio --version`` and ``attnio --help``, which must start at once (issue 40)."""
    parser = OneLineArgumentParser(
        prog="attnio",
        description="Machine-checkable I/O complexity of attention (arXiv 2410.09397 and its parents).",
    )
    parser.add_argument("--version", action="version", version=f"attnio {__version__}")
    parser.add_argument("--print-completion", metavar="SHELL", choices=SHELLS,
                        action=PrintCompletion,
                        help=f"print the completion script for SHELL ({', '.join(SHELLS)}) "
                             "and exit; install: attnio --print-completion bash > "
                             "~/.local/share/bash-completion/completions/attnio")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in names if names is not None else SUBCOMMANDS:
        if stubs:
            sub.add_parser(name, help=COMMAND_HELP[name])
            continue
        module = importlib.import_module(SUBCOMMANDS[name])
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``attnio`` console script and of ``python -m attnio``.

    Called without ``argv`` (the real command line), it first takes over Ctrl-C
    (:mod:`attnio.interrupts`: exit 130 within a second, one line, no traceback — also
    during the imports below) and the standard streams (:mod:`attnio.output`: a full stdout
    or a closed one is exit 1 with one line (bad input stays 2), a full or closed
    stderr never changes the exit code, any terminal encoding gets ASCII fallbacks instead of
    a UnicodeEncodeError); called with ``argv`` (tests), it leaves signals and streams alone.
    """
    command_line = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    # Import only the module of the requested subcommand (fast start, and a broken optional
    # dependency of one subcommand cannot break the others).
    wanted = [a for a in argv if not a.startswith("-")][:1]
    names = wanted if wanted and wanted[0] in SUBCOMMANDS else None
    prefix = f"attnio {names[0]}" if names else "attnio"
    if not command_line:
        return _main(argv, names, command_line=False)
    interrupts.install(names[0] if names else None)
    output.open_channels()
    try:
        code = _main(argv, names, command_line=True)
    except SystemExit as exc:  # --help, --version, a usage error: argparse prints and exits
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except output.StdoutError as exc:
        if output.reader_left(exc):  # `attnio ... | head`: the reader left; not a failure
            return 0
        return _stdout_failed(prefix, exc)
    failure = output.flush_stdout()
    if failure is None or output.reader_left(failure):
        return code
    if code in (0, 1):  # success, or a failed check whose report is now also incomplete
        return _stdout_failed(prefix, failure)
    return code  # 2 (its one error line is out already) and 130 stay


def _stdout_failed(prefix: str, exc: OSError) -> int:
    """One line on stderr for an incomplete stdout (``> /dev/full``); exit code 1."""
    reason = exc.strerror or type(exc).__name__
    print(one_line(f"{prefix}: error: cannot write to standard output ({reason}); "
                   "the output is incomplete"), file=sys.stderr)
    return 1


def _main(argv: list[str], names: list[str] | None, *, command_line: bool) -> int:
    # no subcommand named: --version, --help or an error — unless the completion script,
    # which needs every flag of every command, is asked for
    stubs = names is None and not any(a.startswith("--print-completion") for a in argv)
    parser = build_parser(names, stubs=stubs)
    prefix = f"attnio {names[0]}" if names else "attnio"
    # a deprecated flag's line (attnio.flags) is held while parsing, printed once the command
    # has answered: bad input stays one line
    with deferred_warnings() as parse_warnings:
        try:
            args, extras = parser.parse_known_args(argv)
        except InvalidInputError as exc:  # a flag parsed by an action (attnio.flags): exit 2
            print(one_line(f"{prefix}: error: {exc}"), file=sys.stderr)
            return 2
    if extras:  # as parse_args would, but naming the subcommand the words were given to
        print(one_line(f"{prefix}: error: unrecognized arguments: {' '.join(extras)}"),
              file=sys.stderr)
        return 2
    if getattr(args, "handler", None) is None:
        print(f"attnio: error: name a subcommand ({', '.join(SUBCOMMANDS)}); "
              "see attnio --help", file=sys.stderr)
        return 2
    if command_line:
        interrupts.running(args.command)
    try:
        with deferred_warnings() as warnings:  # printed only once the command has answered
            code = int(args.handler(args))
        for line in [*parse_warnings, *warnings]:
            print(line, file=sys.stderr)
        if command_line and code == 130:
            interrupts.announced_by_command()  # it printed its own "interrupted" line
            interrupts.exit_interrupted()
        return code
    except InvalidInputError as exc:
        print(one_line(f"attnio {args.command}: error: {exc}"), file=sys.stderr)
        return 2
    except AttnioError as exc:
        print(one_line(f"attnio {args.command}: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if command_line:
            interrupts.exit_interrupted()  # the line once, even if the watchdog gets there first
        else:
            print(f"attnio {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # main(argv) in tests; the command line sees output.StdoutError
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
