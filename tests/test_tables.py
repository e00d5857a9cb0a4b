"""attnio.tables: one table printer for every room (plain and Markdown), one number cell."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.tables import markdown_cell, number_cell, render_table

HEADER = ["id", "value", "note"]
ROWS = [["bwd.tight", "2.40973e+07", None], ["a|b", 7, "two\nlines"]]


def _cells(line: str, sep: str | None = None) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")] if sep else line.split()


def test_plain_keeps_every_cell_as_given() -> None:
    lines = render_table(HEADER, ROWS).splitlines()
    assert lines[0].split() == HEADER and set(lines[1]) <= {"-", " "}
    assert lines[2].split() == ["bwd.tight", "2.40973e+07", "-"]  # None prints as missing
    assert render_table(["x"], [[1.0]]).splitlines()[2].strip() == "1.0"  # no re-formatting


def test_markdown_is_a_pipe_table_that_a_cell_cannot_break() -> None:
    lines = render_table(HEADER, ROWS, fmt="markdown", missing="—").splitlines()
    assert len(lines) == 4 and all(line.startswith("|") and line.endswith("|") for line in lines)
    assert all(line.count("|") - line.count("\\|") == 4 for line in lines)
    assert r"a\|b" in lines[3] and "two lines" in lines[3] and "—" in lines[2]


def test_alignment_and_bad_format() -> None:
    right = render_table(["n"], [["1"], ["100"]], align=["right"]).splitlines()
    assert right[2] == "  1" and right[3] == "100"
    with pytest.raises(ValueError, match="fmt='html'"):
        render_table(["x"], [], fmt="html")


def test_markdown_cell_folds_and_escapes() -> None:
    assert markdown_cell(" a |\n\tb ") == r"a \| b"


@pytest.mark.parametrize("value, in_range, printed", [
    (sp.Integer(33554432), True, "33,554,432"),
    (sp.Integer(-5), False, "-5*"),
    (16777216 * sp.sqrt(2), True, "2.37266e+07"),
    (sp.Rational(1, 3), True, "0.333333"),
    (sp.Integer(10) ** 15, True, "1e+15"),
    (2 ** sp.Integer(2000), True, "1.14813e602"),
    ("d**2", True, "d**2"),
])
def test_number_cell(value, in_range: bool, printed: str) -> None:
    assert number_cell(value, in_range=in_range) == printed
