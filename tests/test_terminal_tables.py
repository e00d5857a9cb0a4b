"""Terminal-friendly tables (issue 24, items 5 and 7): every command's text fits 100 columns
unless ``--wide``; one number format per column (with the checker's false twin); the same
exit code for the same failure; ``--latex`` is a booktabs tabular on four commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.tables import TERMINAL_COLUMNS, mixed_number_columns, number_column, render_table

#: (name, argv) of every command that prints a table, in variants that used to be wide.
COMMANDS = [
    ("bounds", ["bounds", "--n", "4096", "--d", "64", "--M", "4096"]),
    ("bounds-device", ["bounds", "--n", "4096", "--d", "64", "--device", "h100"]),
    ("bounds-mask-heads", ["bounds", "--n", "4096", "--d", "64", "--device", "h100",
                           "--mask", "causal", "--heads", "8"]),
    ("gap", ["gap", "--n", "4096", "--d", "64", "--M-geom", "64:262144:5", "--no-worst"]),
    ("simulate", ["simulate", "--n", "4096", "--d", "64", "--M-geom", "64:262144:5"]),
    ("simulate-execute", ["simulate", "--n", "64", "--d", "8", "--M", "16,64,256",
                          "--pass", "forward", "--execute"]),
    ("simulate-mask", ["simulate", "--n", "4096", "--d", "64", "--M", "512,65536",
                       "--algorithm", "flash2,small-cache", "--mask", "causal"]),
    ("verify", ["verify", "--only", "sym.dominance.*"]),
    ("verify-self-test", ["verify", "--self-test", "--only", "gap.*"]),
    ("pebble", ["pebble", "--builtin", "matmul:2x2x2", "--cache", "2:4", "--table"]),
    ("lower-bound", ["lower-bound", "--builtin", "matmul:2x2x2", "--M", "6"]),
]

#: the variants whose full table is wider than the terminal (``--wide`` must restore it)
WIDER_THAN_A_TERMINAL = {"bounds", "bounds-device", "bounds-mask-heads", "gap",
                         "simulate", "simulate-mask", "verify", "verify-self-test",
                         "lower-bound"}


def _width(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def _plain_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every tabulate ``simple`` table in ``text``: (header, rows), columns cut at the
    dashes line; a row ends at a blank line or a line that does not fit the columns."""
    lines = text.splitlines()
    tables = []
    for i, line in enumerate(lines):
        if i == 0 or not re.fullmatch(r"-+( {2}-+)*", line):
            continue
        spans = [m.span() for m in re.finditer(r"-+", line)]
        rows = []
        for row in lines[i + 1:]:
            if not row.strip() or row.startswith("["):
                break
            rows.append([row[a:b].strip() for a, b in spans])
        tables.append(([lines[i - 1][a:b].strip() for a, b in spans], rows))
    return tables


@pytest.mark.parametrize("name, argv", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_every_table_fits_a_terminal_unless_wide(name: str, argv: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert _width(out) <= TERMINAL_COLUMNS, [ln for ln in out.splitlines()
                                             if len(ln) > TERMINAL_COLUMNS][:3]
    tables = _plain_tables(out)
    assert tables, out
    for header, rows in tables:  # one number format per column
        assert mixed_number_columns(header, rows) == [], (header, rows[:5])
    if name in WIDER_THAN_A_TERMINAL:
        assert main([*argv, "--wide"]) == 0
        assert _width(capsys.readouterr().out) > TERMINAL_COLUMNS


def test_gap_explains_an_omitted_algorithm_under_the_table(capsys) -> None:
    assert main(["gap", "--n", "4096", "--d", "64", "--M", "64,4096", "--no-worst"]) == 0
    out = capsys.readouterr().out
    table_rows = [ln for ln in out.splitlines() if not ln.startswith(("[", "    "))]
    assert not any("n/a" in ln for ln in table_rows)
    assert "small-cache-fused [1]" in out and "\n[1] M=64: flash1 n/a: M is too small" \
        in out


def test_the_checker_catches_a_mixed_column() -> None:
    """False twin: the column issue 24 found (``34,078,720`` above ``2.40973e+07``)."""
    assert mixed_number_columns(["id", "value"], [["a", "34,078,720"], ["b", "2.40973e+07"]]) \
        == ["value"]
    assert mixed_number_columns(["v"], [["588674"], ["17,039,360"]]) == ["v"]
    assert mixed_number_columns(["v"], [["25443.8"], ["17,039,360"]]) == ["v"]
    assert mixed_number_columns(["v"], [["7.58"], ["12"]]) == ["v"]
    assert mixed_number_columns(["v", "t"], [["-", "n/a"], ["1,024", "1.25e-06 s"],
                                             ["48", "2.00e-03 s"]]) == []


def test_number_column_picks_one_format_for_the_column() -> None:
    import sympy as sp

    ints = number_column([34078720, 48, None])
    mixed = number_column([34078720, 16777216 * sp.sqrt(2), sp.Rational(1, 3)],
                          in_range=[True, True, False])
    assert ints == ["34,078,720", "48", "-"]
    assert mixed == ["3.40787e+07", "2.37266e+07", "3.33333e-01*"]
    assert mixed_number_columns(["v"], [[c] for c in ints + mixed[:1]]) == ["v"]  # twin
    assert mixed_number_columns(["v"], [[c] for c in mixed]) == []


def test_wrapping_never_breaks_numbers() -> None:
    text = render_table(["n", "note"], [["1,234,567", "word " * 40]], max_width=40, wrap=[1])
    assert _width(text) <= 40 and text.splitlines()[2].startswith("1,234,567")


# ---- exit codes ---------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["pebble", "--builtin", "matmul:2x2x2", "--cache", "2"],
    ["pebble", "--builtin", "matmul:2x2x2", "--cache", "2", "--json"],
    ["pebble", "--builtin", "matmul:2x2x2", "--cache", "2", "--table"],
    ["lower-bound", "--builtin", "matmul:2x2x2", "--M", "2"],
    ["lower-bound", "--builtin", "matmul:2x2x2", "--M", "2", "--json"],
])
def test_an_infeasible_instance_exits_1(argv: list[str], capsys) -> None:
    """M below the largest in-degree + 1: no schedule exists — never a pass."""
    assert main(argv) == 1
    assert "infeasible" in capsys.readouterr().out


def test_a_sweep_with_different_answers_is_decided(capsys) -> None:
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--cache", "2:3"]) == 0
    assert "M=2: infeasible" in capsys.readouterr().out


_BLOCKED = """
import contextlib, io, json, sys
for name in ("matplotlib", "dask", "distributed", "numba"):
    sys.modules[name] = None  # as if the extras were not installed
from attnio.cli import main
seen = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    seen.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(seen))
"""

#: every flag that needs an optional extra, on every command that has it
NEEDS_AN_EXTRA = [
    ["simulate", "--n", "64", "--d", "8", "--M", "64", "--plot", "{tmp}/io.png"],
    ["gap", "--n", "64", "--d", "8", "--M", "64", "--plot", "{tmp}/gap.png"],
    ["report", "{tmp}/report"],
    ["simulate", "--n", "64", "--d", "8", "--M", "64", "--workers", "2"],
    ["gap", "--n", "64", "--d", "8", "--M", "64", "--workers", "2"],
    ["verify", "--only", "sym.crossover.*", "--workers", "2"],
    ["pebble", "--builtin", "matmul:2x2x2", "--M", "3", "--workers", "2"],
    ["pebble", "--builtin", "matmul:2x2x2", "--M", "3", "--method", "compiled"],
]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_missing_extra_is_exit_2_one_line_before_any_work(tmp_path: Path) -> None:
    """The same failure, the same code (issue 24: 1 in report, 2 in simulate, after the
    table): the imports themselves are blocked, in a fresh interpreter."""
    import json
    import subprocess
    import sys

    argvs = [[a.format(tmp=tmp_path) for a in argv] for argv in NEEDS_AN_EXTRA]
    proc = subprocess.run([sys.executable, "-c", _BLOCKED, json.dumps(argvs)],
                          capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for argv, (code, out, err) in zip(argvs, json.loads(proc.stdout)):
        assert (code, out) == (2, ""), (argv, code, out)  # no table, no line before it
        assert err.count("\n") == 1 and "install" in err and "attnio[" in err, (argv, err)
    assert list(tmp_path.iterdir()) == []  # nothing written


# ---- --latex -------------------------------------------------------------------------------

def check_booktabs(text: str, columns: int) -> list[str]:
    """The structure of a booktabs tabular: one begin/end, \\toprule, \\midrule, \\bottomrule
    in that order, ``columns`` column letters, every row ``columns - 1`` unescaped ``&`` (math
    spans aside) ending in ``\\\\``, no unescaped ``_``, ``%`` or ``#`` outside math; after
    the tabular, the footnotes as a ``{\\footnotesize ... \\par}`` block, each escaped."""
    from attnio.tables import LATEX_FIT_CLOSE, LATEX_FIT_OPEN

    lines = [ln.rstrip("%") for ln in text.splitlines() if not ln.startswith("%")
             and ln not in (LATEX_FIT_OPEN, LATEX_FIT_CLOSE)]  # latex_fit's box around it
    end = lines.index(r"\end{tabular}")
    lines, notes = lines[:end + 1], lines[end + 1:]
    if notes:  # the footnotes, as text LaTeX shows (tables.latex_notes)
        assert notes[0] == r"{\footnotesize" and notes[-1].endswith(r"\par}"), notes
        for note in notes[1:]:
            assert note.endswith((r"\par", r"\par}")) and note.startswith("["), note
            assert not re.search(r"(?<!\\)[_%#&]", re.sub(r"\$[^$]*\$", "", note)), note
    assert lines[0].startswith(r"\begin{tabular}{") and lines[-1] == r"\end{tabular}"
    spec = re.match(r"\\begin\{tabular\}\{((?:[^{}]|\{[^{}]*\})*)\}", lines[0]).group(1)
    assert len(re.findall(r"p\{[^}]*\}|[lcr]", spec)) == columns
    assert [ln for ln in lines if ln.endswith("rule")] == [r"\toprule", r"\midrule",
                                                          r"\bottomrule"]
    rows = [ln for ln in lines[1:-1] if not ln.endswith("rule")]
    for row in rows:
        assert row.rstrip().endswith("\\\\"), row
        text_only = re.sub(r"\$[^$]*\$", "", row.rstrip()[:-2])
        assert len(re.findall(r"(?<!\\)&", text_only)) == columns - 1, row
        assert not re.search(r"(?<!\\)[_%#]", text_only), row
    return rows


@pytest.mark.parametrize("argv, columns", [
    (["bounds", "--n", "4096", "--d", "64", "--M", "2048", "--latex"], 5),
    (["simulate", "--n", "256", "--d", "16", "--M", "64,256", "--pass", "forward", "--latex"], 7),
    (["gap", "--n", "4096", "--d", "64", "--M", "64,4096", "--latex", "--no-worst"], 7),
    (["verify", "--only", "sym.dominance.*", "--latex"], 5),
])
def test_latex_is_a_booktabs_tabular(argv: list[str], columns: int, capsys) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    rows = check_booktabs(out, columns)
    assert len(rows) >= 3  # the header and two rows at least
    assert not any(ord(c) > 127 for ln in out.splitlines() if not ln.startswith("%")
                   for c in ln), "pdflatex needs ASCII (or a declared character)"


def test_the_latex_check_rejects_an_unescaped_cell(capsys) -> None:
    """False twin: an underscore left raw in a text cell must fail the structural check."""
    assert main(["gap", "--n", "4096", "--d", "64", "--M", "4096", "--latex"]) == 0
    out = capsys.readouterr().out
    with pytest.raises(AssertionError):
        check_booktabs(out.replace("\\_", "_", 1), 6)
    with pytest.raises(AssertionError):
        check_booktabs(out.replace(" & ", " ", 1), 6)


@pytest.mark.parametrize("argv", [
    ["simulate", "--n", "256", "--d", "16", "--M", "64,256", "--pass", "forward"],
    ["gap", "--n", "4096", "--d", "64", "--M", "4096"],
    ["verify", "--only", "sym.dominance.flash_vs_alg6.*"],
])
def test_latex_file_is_written_safely_on_every_command(argv: list[str], tmp_path: Path,
                                                       capsys) -> None:
    target = tmp_path / "t.tex"
    assert main([*argv, "--latex", str(target)]) == 0
    assert capsys.readouterr().out.startswith("wrote ")
    check_booktabs(target.read_text(), _columns(target))
    target.write_text("mine")
    assert main([*argv, "--latex", str(target)]) == 2  # refused before any work
    assert target.read_text() == "mine"
    assert main([*argv, "--latex", str(tmp_path / "t.txt")]) == 2


def _columns(path: Path) -> int:
    """The column count of a tabular whose specification is one letter per column."""
    spec = re.search(r"\\begin\{tabular\}\{((?:[^{}]|\{[^{}]*\})*)\}", path.read_text()).group(1)
    return len(re.findall(r"p\{[^}]*\}|[lcr]", spec))


@pytest.mark.parametrize("argv", [
    ["simulate", "--n", "256", "--d", "16", "--M", "64,256", "--pass", "forward", "--latex"],
    ["simulate", "--n", "4096", "--d", "64", "--M-geom", "64:262144:5", "--dtype", "bf16",
     "--latex"],
    ["simulate", "--n", "64", "--d", "8", "--M", "64", "--execute", "--latex"],
    ["gap", "--n", "4096", "--d", "64", "--M", "64,4096", "--latex", "--no-worst"],
    ["gap", "--n", "8192", "--d", "128", "--device", "h100", "--mask", "causal", "--latex"],
    ["verify", "--only", "sym.dominance.flash_vs_alg6.*", "--latex"],
    ["verify", "--only", "bwd.tight", "--self-test", "--latex"],
    ["bounds", "--n", "4096", "--d", "64", "--M", "2048", "--latex"],
    ["bounds", "--n", str(10**40), "--d", "64", "--M", "2048", "--latex"],
], ids=["simulate", "simulate-bytes", "simulate-execute", "gap", "gap-device", "verify",
        "verify-self-test", "bounds", "bounds-huge"])
def test_latex_fits_a_plain_article(argv: list[str], tmp_path: Path, capsys) -> None:
    """Issue 34: pasted into a plain ``article`` (A4/letter text width, normal font) the
    table compiles with no Overfull hbox over 1 pt: prose columns wrap, a wider table is
    scaled down (tables.latex_fit), no number is cut. Runs where pdflatex exists (CI
    installs it: .ci/run)."""
    import os
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing in CI (.ci/run installs texlive)")
        pytest.skip("pdflatex is not installed")
    assert main(argv) == 0
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs,graphicx}\n"
                   "\\begin{document}\n" + capsys.readouterr().out + "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "t.log").read_text(errors="replace")
    over = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(x <= 1.0 for x in over), (over, log[-3000:])


def test_latex_numbers_in_scientific_form_use_times() -> None:
    """A tab had replaced the backslash of \\times: the PDF showed "2.37266imes10^7"."""
    from attnio.tables import latex_number

    assert str(latex_number("2.37266e+07*")) == r"$2.37266 \times 10^{7}{}^{*}$"
    assert "\t" not in str(latex_number("1.5e-03"))


def test_latex_footnotes_show_in_the_document(capsys) -> None:
    """The notes follow the tabular as text (a '%' comment would be dropped by LaTeX); the
    structural check rejects a note with a raw underscore (its false twin)."""
    assert main(["gap", "--n", "4096", "--d", "64", "--M", "64", "--latex"]) == 0
    out = capsys.readouterr().out
    from attnio.tables import LATEX_FIT_CLOSE

    notes = out.split(LATEX_FIT_CLOSE, 1)[1]
    assert notes.strip().startswith(r"{\footnotesize") and "[1] M=64:" in notes
    assert not any(line.startswith("%") for line in out.splitlines())
    check_booktabs(out, 7)
    with pytest.raises(AssertionError):
        check_booktabs(out.replace("flash2-split n/a", "flash2_split n/a"), 7)
