"""``attnio report`` across runs (issue 22, item 4): a concurrent run into the same OUTDIR is
refused at once, a killed run's folder stays attnio's, tiny sizes give a whole report, and a
long sweep gives no overlong Markdown line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.reporting.outdir import LOCK_NAME, MARKER_NAME, OutputFolder
from attnio.safe_io import TEMP_PREFIX


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


@pytest.mark.extra("plots")
def test_a_second_run_into_the_same_folder_is_refused_at_once(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    first = OutputFolder(out, ["index.md"]).create()  # a run in progress holds the lock
    try:
        start = time.monotonic()
        assert main(["report", str(out), "--quick", "--n", "64", "--d", "8"]) == 2
        elapsed = time.monotonic() - start
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert "being written by another attnio report right now" in err
        assert f"pid {os.getpid()}" in err and "--force" not in err
        assert elapsed < 60  # refused before any work (a quick report takes minutes)
    finally:
        first.release()
    assert not (out / LOCK_NAME).exists()
    OutputFolder(out, ["index.md"]).create().release()  # free again once the run ended


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / LOCK_NAME).write_text(json.dumps({"pid": _dead_pid(), "host": os.uname().nodename,
                                             "started_utc": "2026-01-01T00:00:00Z"}))
    folder = OutputFolder(out, ["index.md"]).create()
    assert json.loads((out / LOCK_NAME).read_text())["pid"] == os.getpid()
    folder.release()


def test_a_lock_attnio_cannot_read_is_not_deleted(tmp_path: Path) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / LOCK_NAME).write_text("someone else's")
    with pytest.raises(InvalidInputError, match="not a lock attnio can read"):
        OutputFolder(out, ["index.md"]).create()
    assert (out / LOCK_NAME).read_text() == "someone else's"


def test_a_run_killed_between_a_figure_and_the_marker_leaves_a_folder_attnio_accepts(
        tmp_path: Path, monkeypatch) -> None:
    """The marker lists the coming file first (pending_sha256): killed after the figure was
    renamed but before the marker said so, the next run still recognises the figure."""
    out = tmp_path / "report"
    folder = OutputFolder(out, ["index.md", "fig.png"]).create()
    folder.write("index.md", b"# old\n")
    calls = []
    real = OutputFolder._write_marker

    def killed_after_the_figure(self: OutputFolder) -> None:
        calls.append(1)
        if len(calls) == 2:  # the marker update after fig.png was written
            raise KeyboardInterrupt  # stands for SIGKILL: nothing after this runs
        real(self)

    monkeypatch.setattr(OutputFolder, "_write_marker", killed_after_the_figure)
    with pytest.raises(KeyboardInterrupt):
        folder.write("fig.png", b"\x89PNG new figure")
    monkeypatch.undo()
    # the crash also left a lock and a temporary file of a dead process
    (out / f"{TEMP_PREFIX}{_dead_pid()}-zz9.tmp").write_bytes(b"half")
    marker = json.loads((out / MARKER_NAME).read_text())
    assert "pending_sha256" in marker["files"]["fig.png"]
    again = OutputFolder(out, ["index.md", "fig.png"])
    assert again.replaceable == {"index.md", "fig.png"}  # both are attnio's
    assert not again.force


def test_a_folder_holding_only_attnio_leftovers_is_not_a_strangers(tmp_path: Path) -> None:
    """A run killed before its first file leaves the lock and a temp file, no marker."""
    out = tmp_path / "report"
    out.mkdir()
    (out / f"{TEMP_PREFIX}{_dead_pid()}-ab12.tmp").write_bytes(b"half")
    (out / LOCK_NAME).write_text(json.dumps({"pid": _dead_pid(), "host": os.uname().nodename}))
    folder = OutputFolder(out, ["index.md"]).create()
    folder.write("index.md", b"# report\n")
    folder.release()
    assert (out / "index.md").read_bytes() == b"# report\n"


@pytest.mark.extra("plots")
def test_tiny_sizes_give_a_whole_gap_section() -> None:
    """``report --n 1 --d 1``: no cache size of the gap sweep holds an algorithm; the section
    says so instead of failing with a traceback in index.md."""
    from attnio.reporting.report_figures import FIGURES, ReportContext
    from attnio.reporting.style import png_bytes

    spec = next(s for s in FIGURES if s.filename == "gap_ratio.png")
    fig, blocks = spec.draw(ReportContext(n=1, d=1, Ms=[1], quick=True))
    assert png_bytes(fig)[:4] == b"\x89PNG"
    assert "no such M holds an algorithm" in blocks[0].spans[0][0]


def test_a_long_sweep_gives_no_overlong_markdown_line() -> None:
    from attnio.reporting.document import MD_WIDTH, Bullets, Paragraph, md_block
    from attnio.reporting.report import _sizes_arg

    Ms = list(range(64, 64001, 64))
    assert _sizes_arg(Ms) == "64:64000:64"
    long_text = "; ".join(f"M = {M:,}: small-cache (M < d² = 4,096)" for M in Ms)
    lines = md_block(Paragraph([(long_text, "")])) + md_block(Bullets([[("Regime", "strong"),
                                                                         (long_text, "")]]))
    assert max(len(line) for line in lines) <= MD_WIDTH
    assert " ".join(md_block(Paragraph([(long_text, "")]))) == long_text


def test_the_summary_names_at_most_a_few_cache_sizes(tmp_path: Path) -> None:
    from attnio.reporting.document import md_block
    from attnio.reporting.report import ReportResult, _head_blocks

    Ms = list(range(64, 64001, 64))
    blocks = _head_blocks(ReportResult(index=tmp_path / "index.md"), {}, n=4096, d=64, Ms=Ms,
                          quick=True, html=False, path=tmp_path, versions={"versions": {}},
                          version="0")
    lines = [line for block in blocks for line in md_block(block)]
    assert max(len(line) for line in lines) <= 100
    text = " ".join(" ".join(lines).split())  # where the lines wrap depends on tmp_path's length
    assert "--M 64:64000:64" in text and "994 more sizes" in text
