"""Markdown of the report's prose renders as written (issue 34: no accidental emphasis)."""

from __future__ import annotations

import pytest

from attnio.reporting.document import md_escape, md_inline


@pytest.mark.extra("plots")
def test_prose_with_double_stars_renders_without_bold() -> None:
    from markdown_it import MarkdownIt

    html = MarkdownIt().render(md_inline([("M = d**2, fwd.tight at M = d**2", "")]))
    assert "<strong>" not in html and "<em>" not in html and "d**2" in html
    # the false twin: the unescaped text does turn bold
    assert "<strong>" in MarkdownIt().render("M = d**2, fwd.tight at M = d**2")


def test_code_spans_and_lone_marks_stay_as_written() -> None:
    assert md_escape("see `a**b` and 3.5e+07*") == "see `a**b` and 3.5e+07*"
