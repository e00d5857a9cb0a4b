"""Every output channel of the command line (issue 22, items 3 and 4): a full or closed stdout
or stderr, an ASCII-only terminal, strict ``--json``, plots whose bytes match their name, and
the escaping of exported DOT names. The stream tricks need a real process: they run
``python -m attnio`` with this tree first on the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIG_N = "9" * 300  # a 300-digit sequence length: its counts are beyond a float


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    env.pop("ATTNIO_PROGRESS", None)
    return env


def _run(argv: list[str], *, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE,
         env: dict[str, str] | None = None, cwd: Path | None = None,
         close_fds_in_child: tuple[int, ...] = ()) -> subprocess.CompletedProcess:
    """Run ``attnio ARGV``; ``close_fds_in_child`` closes those fds before exec (``>&-``)."""
    def close() -> None:
        for fd in close_fds_in_child:
            os.close(fd)

    return subprocess.run([sys.executable, "-m", "attnio", *argv], stdout=stdout, stderr=stderr,
                          env=env or _env(), cwd=cwd, timeout=300,
                          preexec_fn=close if close_fds_in_child else None)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


BOUNDS = ["bounds", "--n", "1024", "--d", "64", "--M", "4096"]


# ------------------------------------------------------------------------- a full stdout

@pytest.mark.parametrize("argv", [
    BOUNDS, [*BOUNDS, "--json"], ["gap", "--n", "1024", "--d", "64", "--M", "4096"],
    ["pebble", "--builtin", "matmul:2x2x2", "--M", "4"], ["--help"],
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_full_stdout_is_exit_1_one_line(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = _run(argv, stdout=full)
    assert proc.returncode == 1
    line = _one_line(_text(proc.stderr))
    assert "cannot write to standard output (No space left on device)" in line
    assert line.startswith("attnio")


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_closed_stdout_is_exit_1_and_bad_input_stays_2() -> None:
    proc = _run(BOUNDS, stdout=None, close_fds_in_child=(1,))
    assert proc.returncode == 1
    assert "cannot write to standard output (it is closed)" in _one_line(_text(proc.stderr))
    bad = _run(["gap", "--n", "0", "--d", "8", "--M", "64"], stdout=None, close_fds_in_child=(1,))
    assert bad.returncode == 2 and "cannot write" not in _one_line(_text(bad.stderr))


def test_stdout_to_devnull_is_fine() -> None:
    proc = _run(BOUNDS, stdout=subprocess.DEVNULL)
    assert proc.returncode == 0 and _text(proc.stderr) == ""


def test_a_reader_that_leaves_early_is_not_an_error() -> None:
    """``attnio … | head``: a pipe with no reader (EPIPE) ends the output silently."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte: deterministic EPIPE
    try:
        proc = _run([*BOUNDS, "--json"], stdout=write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 0 and _text(proc.stderr) == "", _text(proc.stderr)


# ------------------------------------------------------------ a full or closed stderr

@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_bad_input_stays_exit_2_with_a_full_stderr() -> None:
    with open("/dev/full", "w") as full:
        proc = _run(["bounds", "--n", "0", "--d", "64", "--M", "4096"], stderr=full)
        usage = _run(["bounds", "--no-such-flag"], stderr=full)
    assert proc.returncode == 2 and usage.returncode == 2
    assert _text(proc.stdout) == ""


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_closed_stderr_keeps_the_code_and_never_writes_errors_to_stdout() -> None:
    bad = _run(["bounds", "--n", "0", "--d", "64", "--M", "4096"], close_fds_in_child=(2,),
               stderr=None)
    assert bad.returncode == 2 and _text(bad.stdout) == ""
    good = _run(BOUNDS, close_fds_in_child=(2,), stderr=None)
    assert good.returncode == 0 and "io" in _text(good.stdout).lower()


def test_full_stderr_on_success_is_still_success() -> None:
    with open("/dev/full", "w") as full:
        proc = _run(BOUNDS, stderr=full)
    assert proc.returncode == 0 and _text(proc.stdout).strip()


# --------------------------------------------------------------------- ASCII terminals

@pytest.mark.parametrize("argv", [
    ["prove", "n >= 0", "--var", "n:positive"],
    ["lower-bound", "--builtin", "matmul:2x2x2", "--M", "4"],
    ["verify", "--only", "li.thm42.level1_count"],
    ["gap", "--n", "1024", "--d", "64", "--M", "4096"],
    ["gap", "--n", "1024", "--d", "64", "--M", "4096", "--json"],
    BOUNDS,
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_an_ascii_terminal_gets_ascii_never_a_traceback(argv: list[str]) -> None:
    proc = _run(argv, env=_env(PYTHONIOENCODING="ascii"))
    assert proc.returncode in (0, 1), _text(proc.stderr)
    assert "Traceback" not in _text(proc.stderr) and "UnicodeEncodeError" not in _text(proc.stderr)
    proc.stdout.decode("ascii")  # every byte is ASCII
    proc.stderr.decode("ascii")
    if "--json" in argv:
        json.loads(proc.stdout)  # still valid JSON (\\uXXXX escapes, not transliteration)


def test_ascii_fallback_transliterates_the_symbols_attnio_prints() -> None:
    from attnio.output import ASCII_FALLBACK

    text = "M ≥ d², I/O ≤ 4·n·d — ≈ 2× √M …"
    assert text.encode("ascii", "attnio-ascii") == b"M >= d^2, I/O <= 4*n*d -- ~ 2x sqrtM ..."
    assert "\u2286".encode("ascii", "attnio-ascii") == b" subset of "
    assert "\u4e00".encode("ascii", "attnio-ascii") == b"\\u4e00"  # no entry: an escape
    assert all(v.isascii() for v in ASCII_FALLBACK.values())
    # Latin-1 keeps what it can show and falls back only for the rest
    assert "× ≤".encode("latin-1", "attnio-ascii") == "× <=".encode("latin-1")


# -------------------------------------------------------------------------- strict JSON

def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_json_of_an_infinite_time_is_null(tmp_path: Path) -> None:
    hierarchy = {"dtype": "fp32", "levels": [
        {"name": "smem", "capacity_bytes": 65536, "bandwidth_bytes_per_s": None},
        {"name": "l2", "capacity_bytes": 4194304, "bandwidth_bytes_per_s": 5e-324},
        {"name": "hbm", "capacity_bytes": None, "bandwidth_bytes_per_s": 2 * 10**12}]}
    path = tmp_path / "h.json"
    path.write_text(json.dumps(hierarchy))
    proc = _run(["bounds", "--n", "1024", "--d", "64", "--hierarchy", str(path), "--json"])
    if proc.returncode == 2:  # the hierarchy reader now refuses such a bandwidth up front
        assert "bandwidth" in _one_line(_text(proc.stderr)) and _text(proc.stdout) == ""
        return
    assert proc.returncode == 0, _text(proc.stderr)
    report = _strict(_text(proc.stdout))
    # boundary 0 is fed by the l2 level: words / 5e-324 B/s = inf → null; the words stay exact
    assert report["levels"][0]["best_seconds"] is None
    assert report["levels"][0]["lower_bound_seconds"] is None
    assert isinstance(report["levels"][0]["best_words"], int)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_json_of_a_300_digit_causal_instance_is_strict() -> None:
    proc = _run(["bounds", "--n", BIG_N, "--d", "64", "--M", "1024", "--mask", "causal", "--json"])
    assert proc.returncode == 0, _text(proc.stderr)
    report = _strict(_text(proc.stdout))
    masked = report["sparse_mask"]["masked"]
    assert masked["sparse_class_bound"]["value_float"] is None  # beyond a float
    assert str(masked["Z_in"]).startswith("6399")  # integers stay exact


def test_json_ready_rules() -> None:
    from attnio.output import json_ready, json_text
    from attnio.results import Refuted

    data = {"a": float("inf"), "b": [float("-inf"), (float("nan"), 1.5)], 2.0: 10**30,
            float("inf"): "key"}
    assert json_ready(data) == {"a": None, "b": [None, [None, 1.5]], 2.0: 10**30, "inf": "key"}
    assert _strict(json_text(data)) == {"a": None, "b": [None, [None, 1.5]], "2.0": 10**30,
                                        "inf": "key"}
    verdict = Refuted(counterexample={"x": float("inf")}, detail="d", seconds=0.0)
    assert json.dumps(verdict.to_json(), allow_nan=False)


# ------------------------------------------------------------------------------ plots

@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_plot_format_follows_the_extension(tmp_path: Path) -> None:
    for name, magic in [("g.pdf", b"%PDF"), ("g.svg", b"<?xml"), ("g.png", b"\x89PNG")]:
        proc = _run(["gap", "--n", "64", "--d", "8", "--M", "256", "--plot", name], cwd=tmp_path)
        assert proc.returncode == 0, _text(proc.stderr)
        assert (tmp_path / name).read_bytes().lstrip()[:len(magic)] == magic, name


@pytest.mark.parametrize("command", [
    ["gap", "--n", "64", "--d", "8", "--M", "256"],
    ["simulate", "--n", "64", "--d", "8", "--M", "256"],
])
@pytest.mark.parametrize("plot, needle", [
    ("", "must be a file path"),
    ("g.bmp", "must end in .png, .pdf or .svg"),
    ("a" * 300 + ".png", "has 304 bytes; the file system allows at most"),
    ("afile/x.png", "is a file, not a folder"),
])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_bad_plot_targets_are_exit_2_one_line_before_any_output(
        tmp_path: Path, command: list[str], plot: str, needle: str) -> None:
    (tmp_path / "afile").write_text("mine")
    proc = _run([*command, "--plot", plot], cwd=tmp_path)
    assert proc.returncode == 2
    assert needle in _one_line(_text(proc.stderr))
    assert _text(proc.stdout) == ""  # nothing printed before the refusal
    assert (tmp_path / "afile").read_text() == "mine"


@pytest.mark.extra("plots")
@pytest.mark.parametrize("command", ["simulate", "gap"])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_plot_of_300_digit_counts_is_refused_before_the_table(tmp_path: Path,
                                                                 command: str) -> None:
    proc = _run([command, "--n", BIG_N, "--d", "64", "--M", "1024", "--plot", "p.png"],
                cwd=tmp_path)
    if proc.returncode == 0:  # a figure of ratios only (gap) can be drawn: then it is whole
        assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
        return
    assert proc.returncode == 2
    assert "too large to draw" in _one_line(_text(proc.stderr))
    assert _text(proc.stdout) == "" and not (tmp_path / "p.png").exists()


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_export_dag_under_a_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "existing-file").write_text("mine")
    proc = _run(["pebble", "--builtin", "matmul:2x2x2", "--M", "4", "--export-dag",
                 "existing-file/x.json"], cwd=tmp_path)
    assert proc.returncode == 2
    line = _one_line(_text(proc.stderr))
    assert "existing-file is a file, not a folder" in line and "does not exist" not in line


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_report_outdir_name_too_long_is_exit_2(tmp_path: Path) -> None:
    proc = _run(["report", "r" * 300, "--quick"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "OUTDIR name" in _one_line(_text(proc.stderr))


@pytest.mark.parametrize("argv, line", [
    (["report", "out", "--no-such-flag"], "attnio report: error: unrecognized arguments: --no-such-flag"),
    (["report", "a", "b"], "attnio report: error: unrecognized arguments: b"),
    (["gap", "--n", "8", "--d", "8", "--M", "64", "-x"], "attnio gap: error: unrecognized arguments: -x"),
])
def test_unrecognized_arguments_name_the_subcommand(argv: list[str], line: str, capsys,
                                                    tmp_path: Path, monkeypatch) -> None:
    from attnio.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == line
    assert not (tmp_path / "out").exists() and not (tmp_path / "a").exists()
