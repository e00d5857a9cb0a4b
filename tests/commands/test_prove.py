"""``attnio prove`` on the inputs of issue 22, through the real CLI: exit codes, one line on
stderr naming the value and the rule, and bounded time and memory for exponents and roots.

Time bounds here are generous (a loaded 2-core machine); the tight figures are in the issue's
report. Peak memory is measured by a wrapper process whose only children are the command's
processes (``RUSAGE_CHILDREN.ru_maxrss``: the largest resident set among them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp

from attnio.cli import main

ROOT = Path(__file__).resolve().parents[2]

_MEASURE = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(repr((proc.returncode, proc.stdout, proc.stderr,
                       resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)))
"""


def _measured(*argv: str) -> tuple[int, str, str, float, float]:
    """(exit code, stdout, stderr, seconds, peak resident MB) of ``attnio *argv``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "attnio", *argv],
                         capture_output=True, text=True, env=env, timeout=120)
    seconds = time.monotonic() - start
    code, stdout, stderr, max_rss_kb = eval(out.stdout)    # noqa: S307 - our own repr
    return code, stdout, stderr, seconds, max_rss_kb / 1024


@pytest.mark.parametrize("argv,message", [
    (["n**100000000 >= 0", "--var", "n:real"],
     "exponent 100000000 of n**(100000000) is above the cap 1000 (MAX_EXPONENT)"),
    (["root(n, 10**9) >= 0", "--var", "n:positive", "--timeout", "5"],
     "root index 1000000000 of root(n, …) must be a nonzero integer of at most 100 "
     "(MAX_ROOT_INDEX)"),
])
def test_the_two_acceptance_commands_answer_at_once_in_little_memory(argv: list[str],
                                                                     message: str) -> None:
    code, stdout, stderr, seconds, rss_mb = _measured("prove", *argv)
    print(f"attnio prove {argv[0]!r}: exit {code}, {seconds:.2f} s, peak RSS {rss_mb:.0f} MB")
    assert code == 2 and stdout == ""
    assert stderr == f"attnio prove: error: {message}\n"
    assert rss_mb <= 400          # measured about 75 MB: the interpreter, sympy and z3
    assert seconds < 30           # measured 2-5 s: the start-up; nothing is built


@pytest.mark.parametrize("argv,message", [
    (["n > 0", "--var", "n:positive", "--var", "n :real"],
     "--var 'n :real' declares n a second time (first 'n:positive'): declare each symbol once"),
    (["n > 0", "--var", "n:positive", "--var", "n:positive"],
     "--var 'n:positive' declares n a second time"),
    (["2^3 >= 8"], "STATEMENT uses '^', which is exclusive-or in sympy syntax: write powers as **"),
    (["true"], "STATEMENT 'true' is the constant true: it has no relation to prove; write a "
               "relation (n >= 1) or a combination of relations"),
    (["False"], "STATEMENT 'False' is the constant false: it has no relation to prove"),
    (["Min() > 0"], "Min() has no argument: Min needs at least one"),
    (["Max() > 0"], "Max() has no argument: Max needs at least one"),
    (["n <= 1e100000", "--var", "n:real"],
     "number 1e100000 has 100001 digits; numbers in a STATEMENT have at most 500 digits"),
    (["n <= 1e1000000000", "--var", "n:real"], "has an exponent of more than 6 digits"),
    (["Eq(n, 1e3e3)", "--var", "n:real"], "number '1e3e3' is not a decimal number"),
    (["n <= 0x10", "--var", "n:real"], "number '0x10' is not a decimal number"),
    (["10**10**10 > 0"], "exponent 10000000000 of 10**(10**10) is above the cap 1000"),
    (["n**(1/10**9) >= 0", "--var", "n:real"], "root index 1000000000 of n**("),
    (["factorial(10**9) > 0"], "function 'factorial' is not supported"),
])
def test_bad_statements_are_exit_2_with_one_line_naming_value_and_rule(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", *argv, "--timeout", "10"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 300, lines
    assert lines[0].startswith("attnio prove: error: ") and message in lines[0], lines[0]


def test_scientific_notation_is_read_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    """``1e308*10`` is 10**309 exactly (issue 22 saw "symbol 'e308' is not declared")."""
    assert main(["prove", "n <= 1e308*10", "--var", "n:real", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "refuted"
    assert sp.Rational(data["counterexample"]["n"]) > sp.Integer(10) ** 309
    assert main(["prove", "n <= 1e308*10", "--var", "n:nonnegative",
                 "--var", "m:nonnegative"]) == 1          # an unused declaration is harmless
    assert main(["prove", "Eq(1e308*10, 10**309)"]) == 0
