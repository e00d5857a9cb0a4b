from __future__ import annotations

import subprocess
import sys

import pytest

from attnio.cli import main


def test_python_m_attnio_version() -> None:
    out = subprocess.run([sys.executable, "-m", "attnio", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("attnio ")


def test_unknown_subcommand_is_one_line_exit_2(capsys) -> None:
    try:
        main(["no-such-command"])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no-such-command" in err


# ------------------------------------------------------------------ one --M on every command
# (issue 12, item 9): the same grammar (attnio.validation.parse_sizes), the same refusals with
# exit 2 and one line, the same out-of-range policy (a warning, README "Sizes and flags").

#: command → (argv without --M, whether it takes a sweep, the attribute --M lands in)
M_COMMANDS = {
    "bounds": (["bounds", "--n", "64", "--d", "8"], False, "M"),
    "simulate": (["simulate", "--n", "64", "--d", "8"], True, "M"),
    "gap": (["gap", "--n", "64", "--d", "8"], True, "M"),
    "report": (["report", "OUTDIR"], True, "M"),
    "pebble": (["pebble", "--builtin", "matmul:1x1x1"], True, "cache"),
    "lower-bound": (["lower-bound", "--builtin", "matmul:1x1x1"], False, "cache"),
}
FLAGS = [(name, "--M") for name in M_COMMANDS] + [("pebble", "--cache"),
                                                  ("lower-bound", "--cache")]


@pytest.mark.parametrize("command,flag", FLAGS)
@pytest.mark.parametrize("text,values", [("64", [64]), (" 64 ", [64]), ("64,128", [64, 128]),
                                         ("64:66", [64, 65, 66]), ("64:128:32", [64, 96, 128]),
                                         ("3:3,5", [3, 5])])
def test_every_command_reads_M_the_same_way(command: str, flag: str, text: str,
                                            values: list[int], capsys) -> None:
    from attnio.cli import build_parser

    argv, sweep, dest = M_COMMANDS[command]
    if sweep:
        args = build_parser([command]).parse_args([*argv, flag, text])
        assert getattr(args, dest) == values
    elif len(values) == 1:
        args = build_parser([command]).parse_args([*argv, flag, text])
        assert getattr(args, dest) == values[0]
    else:  # a one-instance command refuses a sweep, in one line, exit 2
        assert main([*argv, flag, text]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"names {len(values)} sizes; this command takes one" in err


@pytest.mark.parametrize("command,flag", FLAGS)
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


@pytest.mark.parametrize("argv", [
    ["bounds", "--n", "64", "--d", "8", "--M", "1024"],
    ["simulate", "--n", "64", "--d", "8", "--M", "1024", "--algorithm", "flash1"],
    ["gap", "--n", "64", "--d", "8", "--M", "64,1024"],
])
def test_an_M_outside_the_admissible_range_is_one_warning_and_computed(argv, capsys) -> None:
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out  # still computed
    assert captured.err.count("\n") == 1
    assert f"attnio {argv[0]}: warning: M=1024 is outside d <= M <= n*d = 8 <= M <= 512" \
        in captured.err


def test_a_failing_command_prints_only_its_error_not_the_range_warning(capsys) -> None:
    # M = 3 < d is outside the range *and* below every flash1 tile set: one line, the error
    assert main(["simulate", "--n", "64", "--d", "8", "--M", "3", "--algorithm", "flash1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err and "warning" not in err


@pytest.mark.parametrize("command", ["bounds", "simulate", "gap", "report"])
@pytest.mark.parametrize("flag,text", [("--n", "0"), ("--d", "x"), ("--n", "4:8")])
def test_n_and_d_are_read_by_the_same_parser(command: str, flag: str, text: str,
                                             tmp_path, capsys) -> None:
    argv = {"bounds": ["bounds", "--n", "64", "--d", "8", "--M", "64"],
            "simulate": ["simulate", "--n", "64", "--d", "8", "--M", "64"],
            "gap": ["gap", "--n", "64", "--d", "8", "--M", "64"],
            "report": ["report", str(tmp_path / "out")]}[command]
    assert main([*argv, flag, text]) == 2
    err = capsys.readouterr().err
    name = flag.lstrip("-")
    rule = (f"names 5 sizes; this command takes one {name}" if ":" in text
            else f"{name}={text} must be a positive integer")
    assert err.count("\n") == 1 and rule in err
