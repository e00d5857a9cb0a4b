"""Tests of attnio.reporting.report (with its OUTDIR rules, attnio.reporting.outdir, and its
tables, attnio.reporting.sections) and the ``attnio report`` command."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.reporting.outdir import MARKER_NAME, OutputFolder, prepare_outdir
from attnio.reporting.report import default_cache_sizes, write_report

FIGURES = {"phase_diagram.png", "io_vs_M.png", "flops_vs_M.png", "sandwich.png",
           "optimal_schedule.png", "lower_bound_tightness.png", "gap_ratio.png",
           "sparse_io_ratio.png", "hardware_levels.png", "hardware_regimes.png"}


# ------------------------------------------------------------------------------ bad input


def test_outdir_that_is_a_file_is_exit_2(tmp_path: Path, capsys) -> None:
    target = tmp_path / "taken"
    target.write_text("not a directory")
    assert main(["report", str(target), "--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exists and is not a directory" in err
    assert "Traceback" not in err


def test_outdir_below_a_file_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInputError, match="not a writable directory"):
        prepare_outdir(tmp_path / "file" / "report")


def test_unwritable_outdir_is_invalid() -> None:
    # /proc refuses new directories even to root (os.access would say yes to root).
    with pytest.raises(InvalidInputError, match=r"OUTDIR='/proc/attnio-report' is not a writable"):
        prepare_outdir("/proc/attnio-report")


@pytest.mark.parametrize("argv, message", [
    (["--n", "0"], "n=0 must be a positive integer"),
    (["--d", "-3"], "d=-3 must be a positive integer"),
    (["--n", "64", "--d", "8", "--M", "0"], "M=0 must be a positive integer"),
    (["--n", "64", "--d", "8", "--M", "12,abc"], "M='12,abc' must be an integer, a list"),
])
def test_bad_sizes_are_exit_2_one_line(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    assert main(["report", str(tmp_path / "out"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "out").exists()  # validated before anything is written


def test_M_outside_the_admissible_range_is_a_warning_not_an_error() -> None:
    """The one out-of-range policy (README, "Sizes and flags"): warned, still computed."""
    from attnio.reporting.report import _validate_sizes
    from attnio.validation import admissible_cache_warning

    _validate_sizes(64, 8, [4, 1024])  # no error: the table marks the entries outside
    line = admissible_cache_warning("report", 64, 8, [4, 1024])
    assert line.startswith("attnio report: warning: M=4, 1024 are outside d <= M <= n*d")


# ------------------------------------------------------------------------------ the tables


def test_default_cache_sizes_straddle_d_squared() -> None:
    assert default_cache_sizes(4096, 64) == [1024, 4096, 16384]
    assert all(8 <= m <= 64 * 8 for m in default_cache_sizes(64, 8))


# ------------------------------------------------------------------------------ the report


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_quick_report_writes_index_and_every_figure(quick_md_report) -> None:
    result = quick_md_report
    out = result.index.parent
    assert result.index == out / "index.md" and result.index.is_file()
    assert {p.name for p in result.figures} == FIGURES
    for name in FIGURES:
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    text = result.index.read_text(encoding="utf-8")
    for heading in ("## Verify table", "## Bound table", "## Hardware regimes at d = 16",
                    "## Phase diagram", "## I/O against M",
                    "## FLOPs against M", "## Pebbling sandwich", "## An optimal schedule"):
        assert heading in text
    for name in FIGURES:
        assert f"]({name})" in text  # relative links: the directory is self-contained
    flat = " ".join(text.split())  # index.md is wrapped at 100 characters
    assert "`bwd.tight`" in flat and "M = `d**2`" in flat
    assert result.claims_run > 0
    assert result.failures == [], result.failures
    assert result.ok == (result.claims_proved == result.claims_run)


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_claim_not_proved_or_a_failed_section_makes_exit_1(tmp_path: Path, monkeypatch,
                                                              capsys, cheap_report) -> None:
    """Undecided is never a pass, and a section that crashes is reported, not hidden."""
    import attnio.reporting.sandwich
    from attnio.proofs.registry import Claim
    from attnio.results import Proved, Undecided

    planted = [
        Claim("planted.ok", "true", "true", "test", "z3 NRA (planted)", "planted",
              lambda ctx: Proved("yes")),
        Claim("planted.unknown", "unknown", "?", "test", "z3 NRA (planted)", "planted",
              lambda ctx: Undecided("z3 returned unknown")),
    ]
    cheap_report(keep=("sandwich.png",), claims=planted)  # the other figures: placeholders

    def broken_sandwich(**_: object) -> list:
        time.sleep(0.35)  # a slow stage: the status line must name it while it runs
        raise RuntimeError("planted failure")

    monkeypatch.setattr(attnio.reporting.sandwich, "sandwich_data", broken_sandwich)
    monkeypatch.setenv("ATTNIO_PROGRESS", "")  # status on (conftest turns it off)
    monkeypatch.setenv("ATTNIO_STATUS_INTERVAL", "0.1")
    out = tmp_path / "report"
    assert main(["report", str(out), "--n", "256", "--d", "16", "--quick"]) == 1
    captured = capsys.readouterr()
    # stderr (not a terminal here) names every stage; the slow one gets repeated status lines
    assert "attnio report: [1/14] Verify table …" in captured.err
    assert "attnio report: [7/14] Pebbling sandwich …" in captured.err
    assert "attnio report: still in [7/14] Pebbling sandwich" in captured.err
    assert "attnio report: [14/14] writing index.md done in" in captured.err
    assert "ETA" not in captured.err and "1 section(s) failed" in captured.out
    text = (out / "index.md").read_text(encoding="utf-8")
    assert "INCOMPLETE" in text and "1 Proved, 0 Refuted, 1 Undecided of 2 claims" in text
    assert "**Undecided**" in text and "z3 returned unknown" in text
    assert "**This section failed**: `RuntimeError: planted failure`" in text
    assert not (out / "sandwich.png").exists()


# ------------------------------------------------------------------------------ summary first


@pytest.fixture(scope="module")
def quick_md_report(tmp_path_factory: pytest.TempPathFactory):
    """One quick Markdown report (n = 256, d = 16), shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("md") / "report"
    return write_report(out, n=256, d=16, quick=True)


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_markdown_opens_with_the_summary_and_figures_and_ends_with_the_verify_table(
        quick_md_report, tmp_path: Path, cheap_report) -> None:
    import shutil

    out = tmp_path / "report"
    shutil.copytree(quick_md_report.index.parent, out)  # this test reruns into it
    text = (out / "index.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## Phase diagram" and headings[-1] == "## Verify table", headings
    summary = " ".join(text[:text.index("## Phase diagram")].split())  # unwrapped
    assert "**Summary**" in summary and "| id |" not in summary
    assert "**Claims**: " in summary and " Proved (0 Refuted, 0 Undecided)" in summary
    # regime at each chosen M (d² = 256): below, at and above the crossover
    assert "M = 64: small-cache (M < d² = 256)" in summary
    assert "M = 1,024: large-cache (M > d² = 256), theory picks FlashAttention" in summary
    assert "bwd.tight at M = `d**2`" in summary and "measured by the simulator" in summary
    assert "sympy " in summary and "z3 " in summary and "networkx " in summary
    # the rerun below proves the marker lets attnio replace its own files, and only them
    (out / "notes.txt").write_text("the user's notes")
    before = (out / "index.md").read_bytes()
    cheap_report()  # the rerun tests the marker, not the content: placeholder figures
    assert main(["report", str(out), "--n", "256", "--d", "16", "--quick"]) == 0
    assert (out / "notes.txt").read_text() == "the user's notes"
    assert (out / "index.md").read_bytes() != before  # replaced (it carries a timestamp)
    marker = json.loads((out / MARKER_NAME).read_text())
    assert set(marker["files"]) == {"index.md", *FIGURES}
    for name, entry in marker["files"].items():
        assert entry["sha256"] == hashlib.sha256((out / name).read_bytes()).hexdigest()


# ------------------------------------------------------------------------------ data safety
#
# Real files and symlinks in tmp_path. Refusals happen before any work, so these are fast.


def _snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under folder: bytes of files, target of links."""
    out: dict[str, bytes | str] = {}
    for entry in sorted(folder.rglob("*")):
        key = str(entry.relative_to(folder))
        out[key] = f"-> {os.readlink(entry)}" if entry.is_symlink() else (
            entry.read_bytes() if entry.is_file() else "dir")
    return out


def _refused(capsys, argv: list[str], *needles: str) -> str:
    assert main(["report", *argv, "--quick", "--n", "64", "--d", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def test_non_empty_folder_without_marker_is_refused_and_untouched(tmp_path: Path, capsys) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "index.md").write_text("my thesis notes")
    (out / "io_vs_M.png").write_bytes(b"my own picture")
    before = _snapshot(out)
    _refused(capsys, [str(out)], "is not empty and holds no attnio marker", "--force")
    assert _snapshot(out) == before and not (out / MARKER_NAME).exists()


def test_empty_folder_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    folder = OutputFolder(tmp_path / "empty", ["index.md"]).create()
    folder.write("index.md", b"x")
    assert (tmp_path / "empty" / "index.md").read_bytes() == b"x"


def test_force_replaces_same_named_files_only(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "index.md").write_text("old")
    (out / "keep.txt").write_text("keep")
    folder = OutputFolder(out, ["index.md", "sandwich.png"], force=True).create()
    folder.write("index.md", b"new")
    assert (out / "index.md").read_bytes() == b"new" and (out / "keep.txt").read_text() == "keep"
    assert set(json.loads((out / MARKER_NAME).read_text())["files"]) == {"index.md"}


@pytest.mark.parametrize("with_marker, force", [(False, False), (True, False), (True, True),
                                                (False, True)])
def test_symlinked_index_is_an_error_and_its_target_untouched(tmp_path: Path, capsys,
                                                               with_marker: bool,
                                                               force: bool) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("precious")
    out = tmp_path / "report"
    out.mkdir()
    if with_marker:  # attnio's own folder: the marker does not make a link writable
        OutputFolder(out, ["flops_vs_M.png"]).write("flops_vs_M.png", b"png")
    (out / "index.md").symlink_to(elsewhere)
    _refused(capsys, [str(out), *(["--force"] if force else [])],
             "refusing to write through symlink", "index.md")
    assert elsewhere.read_text() == "precious" and (out / "index.md").is_symlink()


def test_symlinked_figure_and_dangling_link_are_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    OutputFolder(out, ["index.md"]).create().write("index.md", b"# old")
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_bytes(b"precious")
    (out / "sandwich.png").symlink_to(elsewhere)
    _refused(capsys, [str(out)], "refusing to write through symlink", "sandwich.png")
    assert elsewhere.read_bytes() == b"precious"
    (out / "sandwich.png").unlink()
    (out / "sandwich.png").symlink_to(tmp_path / "not-there.png")  # dangling
    _refused(capsys, [str(out), "--force"], "refusing to write through symlink")
    assert not (tmp_path / "not-there.png").exists()


def test_symlinked_outdir_and_marker_are_refused(tmp_path: Path, capsys) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    _refused(capsys, [str(tmp_path / "link")], "is a symlink")
    assert list(real.iterdir()) == []
    out = tmp_path / "report"
    out.mkdir()
    fake = tmp_path / "fake.json"
    fake.write_text("{}")
    (out / MARKER_NAME).symlink_to(fake)
    _refused(capsys, [str(out), "--force"], "refusing to write through symlink")
    assert fake.read_text() == "{}"


def test_marker_lets_attnio_replace_only_the_files_it_lists_unchanged(tmp_path: Path,
                                                                      capsys) -> None:
    out = tmp_path / "report"
    OutputFolder(out, ["index.md"]).create().write("index.md", b"# attnio wrote this")
    # A same-named file the marker does not list (the user put it there): refused.
    (out / "io_vs_M.png").write_bytes(b"the user's figure")
    _refused(capsys, [str(out)], "refusing to overwrite", "io_vs_M.png", "--force")
    assert (out / "io_vs_M.png").read_bytes() == b"the user's figure"
    (out / "io_vs_M.png").unlink()
    # A listed file the user edited since: refused too.
    (out / "index.md").write_text("# attnio wrote this, then I added my notes")
    _refused(capsys, [str(out)], "refusing to overwrite", "index.md")
    assert "my notes" in (out / "index.md").read_text()
    # Unchanged listed file: replaceable (checked without running the report).
    (out / "index.md").write_bytes(b"# attnio wrote this")
    folder = OutputFolder(out, ["index.md", "io_vs_M.png"])
    assert folder.replaceable == {"index.md"}


@pytest.mark.parametrize("marker_text", [
    "not json", "[]", '{"format": "something else", "files": {}}',
    '{"format": "attnio-report-marker/1", "files": {"../escape.md": {"sha256": "' + "0" * 64 + '"}}}',
    '{"format": "attnio-report-marker/1", "files": {"index.md": "yes"}}',
    "[" * 100_000,
])
def test_invalid_or_forged_marker_is_refused(tmp_path: Path, capsys, marker_text: str) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / MARKER_NAME).write_text(marker_text)
    (out / "index.md").write_text("not attnio's")
    _refused(capsys, [str(out)], "is not a valid attnio marker")
    assert (out / "index.md").read_text() == "not attnio's"
    assert (out / MARKER_NAME).read_text() == marker_text


def test_a_link_or_file_planted_after_the_check_is_still_refused(tmp_path: Path) -> None:
    out = tmp_path / "report"
    folder = OutputFolder(out, ["index.md", "sandwich.png"]).create()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("precious")
    (out / "index.md").symlink_to(elsewhere)           # planted during the long run
    (out / "sandwich.png").write_bytes(b"appeared")     # a stranger's file, also planted
    with pytest.raises(InvalidInputError, match="refusing to write through symlink"):
        folder.write("index.md", b"x")
    with pytest.raises(InvalidInputError, match="refusing to overwrite existing file"):
        folder.write("sandwich.png", b"x")
    assert elsewhere.read_text() == "precious"
    assert (out / "sandwich.png").read_bytes() == b"appeared"
    with pytest.raises(InvalidInputError, match="was not checked"):
        folder.write("other.md", b"x")
    (out / "sandwich.png").unlink()
    (out / MARKER_NAME).write_text("a stranger's file named like the marker")
    with pytest.raises(InvalidInputError, match="refusing to overwrite existing file"):
        folder.write("sandwich.png", b"png")  # its record is refused (before the figure)
    assert (out / MARKER_NAME).read_text() == "a stranger's file named like the marker"
    folder.release()


def test_writes_are_atomic(tmp_path: Path, monkeypatch) -> None:
    """A failure at the rename leaves the old file whole and no temporary file behind."""
    from attnio.safe_io import OutputError

    out = tmp_path / "report"
    first = OutputFolder(out, ["index.md"]).create()
    first.write("index.md", b"old complete report")
    first.release()
    folder = OutputFolder(out, ["index.md"])

    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OutputError, match="No space left on device"):  # exit 1, not 2
        folder.write("index.md", b"new report")
    monkeypatch.undo()
    assert (out / "index.md").read_bytes() == b"old complete report"
    assert sorted(p.name for p in out.iterdir()) == [MARKER_NAME, "index.md"]


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_figures_are_rendered_in_memory_and_written_through_safe_io(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """figures' own files go through safe_io too: a symlink target is refused."""
    from attnio.reporting import figures

    fig = figures.plot_phase_diagram(figures.PhaseDiagram(
        alphas=(1.0, 3.0), betas=(1.0, 3.0), dominant_term=(("a", "b"),) * 2,
        algorithm=(("small-cache", "flash1"),) * 2, crossover_alpha=2.0))
    assert figures.png_bytes(fig)[:4] == b"\x89PNG"
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_bytes(b"precious")
    (tmp_path / "link.png").symlink_to(elsewhere)
    with pytest.raises(InvalidInputError, match="symlink"):
        figures.plot_phase_diagram(figures.PhaseDiagram(
            alphas=(1.0, 3.0), betas=(1.0, 3.0), dominant_term=(("a", "b"),) * 2,
            algorithm=(("small-cache", "flash1"),) * 2, crossover_alpha=2.0),
            tmp_path / "link.png")
    assert elsewhere.read_bytes() == b"precious"
