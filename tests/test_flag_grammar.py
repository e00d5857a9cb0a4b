"""One flag grammar (issue 23, item 4; :mod:`attnio.flags`): every command that takes a cache
size reads ``--M`` and ``--M-geom`` the same way and refuses the same bad values with the same
line; every budgeted command takes ``--time-limit SECONDS``; every batch command takes
``--workers`` / ``--scheduler`` and answers as the serial run; the old spellings still work
and say once that they are deprecated."""

from __future__ import annotations

import json

import pytest

from attnio.cli import build_parser, main
from attnio.flags import parse_seconds, solver_milliseconds

#: command → (argv before the size flag, takes a sweep, destination of --M)
M_COMMANDS = {
    "bounds": (["bounds", "--n", "64", "--d", "8"], False, "M"),
    "simulate": (["simulate", "--n", "64", "--d", "8"], True, "M"),
    "gap": (["gap", "--n", "64", "--d", "8"], True, "M"),
    "report": (["report", "OUTDIR"], True, "M"),
    "pebble": (["pebble", "--builtin", "matmul:1x1x1"], True, "cache"),
    "lower-bound": (["lower-bound", "--builtin", "matmul:1x1x1"], False, "cache"),
}
M_FLAGS = [(command, "--M") for command in M_COMMANDS] + [("pebble", "--cache"),
                                                          ("lower-bound", "--cache")]
SWEEPS = [command for command, (_, sweep, _) in M_COMMANDS.items() if sweep]
#: the budgeted commands: argv that parses, with --time-limit appended
BUDGETED = {
    "verify": ["verify"],
    "prove": ["prove", "n >= 1", "--var", "n:positive-integer"],
    "pebble": ["pebble", "--builtin", "matmul:1x1x1", "--M", "3"],
    "lower-bound": ["lower-bound", "--builtin", "matmul:1x1x1", "--M", "3"],
    "gap": ["gap", "--n", "64", "--d", "8", "--M", "64"],
    "report": ["report", "OUTDIR"],
}
BATCH = {
    "verify": ["verify", "--only", "sym.crossover.fwd"],
    "pebble": ["pebble", "--builtin", "matmul:1x1x1", "--M", "3"],
    "simulate": ["simulate", "--n", "64", "--d", "8", "--M", "64", "--algorithm", "flash2"],
    "gap": ["gap", "--n", "64", "--d", "8", "--M", "64"],
}


def _argv(argv: list[str], tmp_path) -> list[str]:
    return [str(tmp_path / "out") if a == "OUTDIR" else a for a in argv]


def _parse(argv: list[str]):
    return build_parser([argv[0]]).parse_args(argv)


def _error(argv: list[str], capsys) -> str:
    """The one error line of a refused command line, without its ``attnio <cmd>: error: ``."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    prefix = f"attnio {argv[0]}: error: "
    assert captured.err.startswith(prefix), captured.err
    return captured.err[len(prefix):].strip()


@pytest.mark.parametrize("command,flag", M_FLAGS)
@pytest.mark.parametrize("text,values", [("64", [64]), (" 64 ", [64]), ("64,128", [64, 128]),
                                         ("64:66", [64, 65, 66]), ("64:128:32", [64, 96, 128]),
                                         ("3:3,5", [3, 5]), ("64:256:64", [64, 128, 192, 256])])
def test_M_reads_the_same_values_everywhere(command: str, flag: str, text: str,
                                            values: list[int], tmp_path, capsys) -> None:
    argv, sweep, dest = M_COMMANDS[command]
    argv = _argv(argv, tmp_path)
    if sweep:
        assert getattr(_parse([*argv, flag, text]), dest) == values
    elif len(values) == 1:
        assert getattr(_parse([*argv, flag, text]), dest) == values[0]
    else:  # a one-M command says so, in the same line everywhere
        assert _error([*argv, flag, text], capsys) == \
            f"M={text!r} names {len(values)} sizes; this command takes one M"


@pytest.mark.parametrize("text,line", [
    ("0", "M=0 must be a positive integer"),
    ("64:32", "M='64:32': LO=64 exceeds HI=32"),
    ("a", "M=a must be a positive integer"),
    ("64::", "M='64::' must be an integer, a list V1,V2,... or a range LO:HI[:STEP]"),
])
def test_a_bad_M_is_the_same_line_everywhere(text: str, line: str, tmp_path, capsys) -> None:
    for command, flag in M_FLAGS:
        argv = _argv(M_COMMANDS[command][0], tmp_path)
        assert _error([*argv, flag, text], capsys) == line, (command, flag)
    assert not (tmp_path / "out").exists()  # refused before any work


@pytest.mark.parametrize("command,flag", M_FLAGS)
@pytest.mark.parametrize("text,rule", [
    ("0", "M=0 must be a positive integer"),
    ("-3", "M=-3 must be a positive integer"),
    ("x", "M=x must be a positive integer"),
    ("2.5", "M=2.5 must be a positive integer"),
    ("9" * 600, "M has 600 digits; at most MAX_INT_DIGITS=500"),
    ("8:4", "LO=8 exceeds HI=4"),
    ("4:8:0", "STEP=0 must be a positive integer"),
    ("64,x", "must be an integer, a list V1,V2,... or a range LO:HI[:STEP]"),
    ("", "names no size"),
    ("1:1000000000000", "names 1000000000000 sizes; at most MAX_"),
])
def test_every_command_refuses_the_same_bad_M(command: str, flag: str, text: str, rule: str,
                                              tmp_path, capsys) -> None:
    argv = [str(tmp_path / "out") if a == "OUTDIR" else a for a in M_COMMANDS[command][0]]
    assert main([*argv, flag, text]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    if not M_COMMANDS[command][1] and "sizes; at most" in rule:  # one M: a count is refused
        rule = rule.split(";")[0] + "; this command takes one M"
    assert captured.err.startswith(f"attnio {command}: error: ") and rule in captured.err
    assert not (tmp_path / "out").exists()  # refused before any work


def test_M_geom_is_the_same_on_every_sweep(tmp_path, capsys) -> None:
    for command in SWEEPS:
        argv, _, dest = M_COMMANDS[command]
        argv = _argv(argv, tmp_path)
        assert getattr(_parse([*argv, "--M-geom", "64:1024:5"]), dest) == [64, 128, 256, 512,
                                                                          1024]
        assert _error([*argv, "--M-geom", "64:8:3"], capsys) == \
            "--M-geom='64:8:3': LO=64 exceeds HI=8"
        assert _error([*argv, "--M-geom", "a:b:c"], capsys) == \
            "--M-geom='a:b:c' must be a geometric range LO:HI:COUNT of integers"
        with pytest.raises(SystemExit) as usage:  # argparse's own usage error: one line
            main([*argv, "--M", "64", "--M-geom", "64:128:2"])
        err = capsys.readouterr().err
        assert usage.value.code == 2 and err.count("\n") == 1
        assert "argument --M-geom: not allowed with argument --M" in err


def test_M_range_still_works_and_says_once_it_is_deprecated(capsys) -> None:
    """``--M-range`` (deprecated) gives the sizes of ``--M-geom``, and one stderr line."""
    base = ["simulate", "--n", "64", "--d", "8", "--algorithm", "flash2", "--json"]
    assert main([*base, "--M-geom", "64:512:4"]) == 0
    new = capsys.readouterr()
    assert main([*base, "--M-range", "64:512:4"]) == 0
    old = capsys.readouterr()
    assert json.loads(old.out)["runs"] == json.loads(new.out)["runs"]
    assert new.err == ""
    assert old.err == "attnio simulate: warning: --M-range is deprecated; use --M-geom\n"
    # bad input under the old name: only the error line, naming the flag as typed
    assert _error(["gap", "--n", "64", "--d", "8", "--M-range", "64:8:3"], capsys) == \
        "--M-range='64:8:3': LO=64 exceeds HI=8"


@pytest.mark.parametrize("command", BUDGETED)
def test_every_budgeted_command_takes_time_limit_seconds(command: str, tmp_path,
                                                         capsys) -> None:
    argv = _argv(BUDGETED[command], tmp_path)
    assert _parse([*argv, "--time-limit", "2.5"]).time_limit == 2.5
    rule = "> 0 and at most 3600" if command == "prove" else ">= 0"
    for bad in ("soon", "-1", "nan", "٣"):
        assert _error([*argv, f"--time-limit={bad}"], capsys) == \
            f"--time-limit={bad!r} must be a finite number of seconds {rule}"


@pytest.mark.parametrize("command,old,value,dest,seconds", [
    ("verify", "--z3-timeout", "2000", "solver_time_limit", 2.0),
    ("lower-bound", "--z3-timeout-ms", "2000", "solver_time_limit", 2.0),
    ("prove", "--timeout", "10", "time_limit", 10.0),
])
def test_deprecated_budgets_convert_to_the_new_flag(command: str, old: str, value: str,
                                                    dest: str, seconds: float) -> None:
    argv = BUDGETED[command]
    new = "--solver-time-limit" if dest == "solver_time_limit" else "--time-limit"
    assert getattr(_parse([*argv, new, str(seconds)]), dest) == seconds
    assert getattr(_parse([*argv, old, value]), dest) == seconds


def test_a_deprecated_budget_runs_and_prints_one_line(capsys) -> None:
    argv = ["lower-bound", "--builtin", "matmul:1x2x1", "--M", "3"]
    assert main([*argv, "--z3-timeout-ms", "2000"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "best: spill-windows = 7"
    assert captured.err == ("attnio lower-bound: warning: --z3-timeout-ms MS is deprecated; "
                            "use --solver-time-limit SECONDS\n")


def test_solver_time_limit_rules() -> None:
    assert parse_seconds("--solver-time-limit", "20", allow_zero=False) == 20.0
    assert solver_milliseconds(0.0004) == 1 and solver_milliseconds(2.5) == 2500
    for command in ("verify", "lower-bound", "pebble"):
        argv = BUDGETED[command]
        assert _parse([*argv, "--solver-time-limit", "0.5"]).solver_time_limit == 0.5


@pytest.mark.parametrize("command", BATCH)
def test_every_batch_command_takes_workers_and_scheduler(command: str, capsys) -> None:
    argv = BATCH[command]
    assert _parse([*argv, "--workers", "2"]).workers == 2
    assert _parse([*argv, "--scheduler", "tcp://10.0.0.5:8786"]).scheduler == \
        "tcp://10.0.0.5:8786"
    assert _error([*argv, "--workers", "0"], capsys) == "workers=0 must be a positive integer"


@pytest.mark.extra("parallel")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_simulate_and_gap_on_two_workers_answer_as_the_serial_run(capsys) -> None:
    """The same rows, the same order (one Dask start per command: ~3 s each)."""
    sweeps = [["simulate", "--n", "64", "--d", "8", "--M-geom", "64:512:4", "--algorithm",
               "flash1,small-cache", "--json"],
              ["gap", "--n", "64", "--d", "8", "--M", "64:256:64", "--json"]]
    for argv in sweeps:
        assert main(argv) == 0
        serial = json.loads(capsys.readouterr().out)
        assert main([*argv, "--workers", "2"]) == 0
        parallel = json.loads(capsys.readouterr().out)
        rows = "runs" if argv[0] == "simulate" else "rows"
        assert parallel[rows] == serial[rows] and len(serial[rows]) == 8 - 4 * (rows == "rows")
        assert parallel.get("crossovers") == serial.get("crossovers")
