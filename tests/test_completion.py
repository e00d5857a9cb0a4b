"""Tests of attnio.completion: ``attnio --print-completion SHELL`` prints a completion script
(shtab) that names every subcommand, that bash accepts, and that completes subcommands, flags,
file and folder names when bash runs it."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnio.cli import SUBCOMMANDS, build_parser, main
from attnio.completion import SHELLS, completion_script


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        main(["--print-completion", shell])
    assert done.value.code == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def test_the_bash_script_names_every_subcommand_and_every_flag(capsys) -> None:
    script = _script("bash", capsys)
    listed = re.search(r"^_shtab_attnio_subparsers=\((.*)\)$", script, re.M)
    assert listed is not None and set(listed.group(1).split()) == set(SUBCOMMANDS)
    parser = build_parser()
    commands = next(a for a in parser._actions if a.choices and "verify" in a.choices).choices
    for name, sub in commands.items():
        key = name.replace("-", "_")
        flags = re.search(rf"^_shtab_attnio_{key}_option_strings=\((.*)\)$", script, re.M)
        assert flags is not None, name
        # every flag but the hidden ones (deprecated spellings, help=SUPPRESS)
        every = {s for a in sub._actions for s in a.option_strings
                 if a.help != argparse.SUPPRESS}
        assert set(flags.group(1).split()) == every, name


@pytest.mark.parametrize("shell", SHELLS)
def test_every_shell_gets_a_script(shell: str, capsys) -> None:
    script = _script(shell, capsys)
    assert "attnio" in script and all(name in script for name in SUBCOMMANDS)


def test_an_unknown_shell_is_one_line_exit_2(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--print-completion", "ksh"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'ksh'" in err


def _bash() -> str:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    return bash


def test_bash_accepts_the_script(tmp_path: Path, capsys) -> None:
    path = tmp_path / "attnio.bash"
    path.write_text(_script("bash", capsys))
    done = subprocess.run([_bash(), "-n", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_script_completes_in_bash(tmp_path: Path, capsys) -> None:
    """Source the script and ask its function what it completes: a subcommand, a flag, a
    file name after --dag, a folder for report's OUTDIR."""
    script = tmp_path / "attnio.bash"
    script.write_text(_script("bash", capsys))
    (tmp_path / "graph.dot").write_text("digraph { a }")
    (tmp_path / "results").mkdir()

    def complete(*words: str) -> list[str]:
        array = " ".join(f"'{w}'" for w in ("attnio", *words))
        program = (f"source '{script}'; cd '{tmp_path}'; COMP_WORDS=({array}); "
                   f"COMP_CWORD={len(words)}; _shtab_attnio; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        done = subprocess.run([_bash(), "-c", program], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("peb") == ["pebble"]
    assert complete("lo") == ["lower-bound"]
    assert "--export-dag" in complete("pebble", "--ex")
    assert complete("pebble", "--dag", "gra") == ["graph.dot"]
    assert complete("report", "res") == ["results"]
    # issue 34: names complete — algorithms, devices, dtypes, glossary terms
    assert complete("simulate", "--algorithm", "flash2-s") == ["flash2-split"]
    assert complete("advise", "--device", "h1") == sorted(["h100", "h100-sxm"])
    assert complete("gap", "--dtype", "bf") == ["bf16"]
    assert "io/LB" in complete("explain", "io/")
    # the false twin: a word that names nothing completes to nothing
    assert complete("nosuch") == []


def test_completion_script_marks_file_arguments() -> None:
    import shtab

    parser = build_parser(["pebble"])
    completion_script(parser, "bash")
    pebble = next(a for a in parser._actions if a.choices and "pebble" in a.choices)
    dag = next(a for a in pebble.choices["pebble"]._actions if a.dest == "dag")
    assert dag.complete == shtab.FILE  # type: ignore[attr-defined]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_documented_command_runs_as_a_program() -> None:
    done = subprocess.run([sys.executable, "-m", "attnio", "--print-completion", "bash"],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("# AUTOMATICALLY GENERATED by")
    assert done.stdout.endswith("complete -o bashdefault -F _shtab_attnio attnio\n")


def test_fish_gets_names_too(capsys) -> None:
    script = _script("fish", capsys)
    assert "h100" in script and "flash2-split" in script and "bf16" in script
    fish = shutil.which("fish")
    if fish is not None:  # fish's own syntax check where fish is installed
        done = subprocess.run([fish, "--no-execute", "-c", script], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
