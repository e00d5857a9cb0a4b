from __future__ import annotations

import subprocess
import sys

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
