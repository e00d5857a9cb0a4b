"""A command starts at once (issue 40, item 6): ``attnio --version`` and ``attnio --help``
import no subcommand (nor sympy, numpy, z3); the help they list is each command's own;
``bounds`` and ``simulate`` on a small instance import neither the graph library, the solvers
nor the claims (the package inits re-export lazily: attnio/lazy.py). The CPU figures
are a benchmark's (benchmarks/startup.py), not a test's."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from attnio.cli import COMMAND_HELP, SUBCOMMANDS, build_parser, main

HEAVY = ("sympy", "numpy", "z3", "networkx", "attnio.proofs", "attnio.graphs",
         "attnio.algorithms", "attnio.commands.verify")


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_command(flag: str) -> None:
    program = ("import sys\nfrom attnio.cli import main\n"
               f"try:\n    main([{flag!r}])\nexcept SystemExit:\n    pass\n"
               f"print([m for m in {HEAVY!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_listed_help_is_each_commands_own() -> None:
    assert set(COMMAND_HELP) == set(SUBCOMMANDS)
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    assert helps == COMMAND_HELP


def test_help_lists_every_command(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in SUBCOMMANDS)


#: Modules a small ``bounds`` / ``simulate`` never needs (the lazy package inits keep them out).
NOT_FOR_SMALL_COMMANDS = ("networkx", "z3", "cvc5", "matplotlib", "attnio.proofs",
                          "attnio.graphs.exact", "attnio.graphs.lower_bounds.combined",
                          "attnio.symbolic.checks", "attnio.reporting.figures",
                          # sympy.simplify imports it on its first call (0.13 s CPU): the
                          # derivations use symbolic.crossovers.tidy instead
                          "sympy.physics")


@pytest.mark.parametrize("command", ["bounds", "simulate"])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_small_command_imports_no_graph_library_solver_or_claim(command: str) -> None:
    program = ("import sys\nfrom attnio.cli import main\n"
               f"code = main([{command!r}, '--n', '64', '--d', '8', '--M', '64'])\n"
               "assert code == 0, code\n"
               f"print([m for m in {NOT_FOR_SMALL_COMMANDS!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
