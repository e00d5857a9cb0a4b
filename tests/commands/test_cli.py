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

@pytest.mark.parametrize("argv", [
    ["bounds", "--n", "64", "--d", "8", "--M", "1024"],
    ["simulate", "--n", "64", "--d", "8", "--M", "1024", "--algorithm", "flash1"],
    ["gap", "--n", "64", "--d", "8", "--M", "64,1024"],
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
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
