"""The report as a document model — paragraphs, bullets, tables, figures, sections — and its
Markdown rendering (:func:`render_markdown`; the HTML one is
:func:`attnio.reporting.report_html.render_html`).

Sections build blocks; renderers never compute anything. Markdown tables are printed by
:func:`attnio.tables.render_table` (the one table printer of attnio).

>>> print(render_markdown(ReportDocument("T", [Bullets([plain("one")])], [], {})))
# T
<BLANKLINE>
- one
<BLANKLINE>
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence, Union

from attnio.tables import render_table

__all__ = ["Span", "Inline", "Paragraph", "Bullets", "Table", "FigureBlock", "Preformatted",
           "Block", "Section", "ReportDocument", "plain", "spans", "md_inline", "md_escape", "md_block",
           "render_markdown"]

#: A piece of inline text with a style: ``""`` plain, ``"code"``, ``"strong"`` or ``"em"``.
Span = tuple[str, str]
Inline = Union[str, list[Span]]


@dataclass
class Paragraph:
    """A paragraph of spans."""

    spans: list[Span]


@dataclass
class Bullets:
    """A bulleted list; each item a list of spans."""

    items: list[list[Span]]


@dataclass
class Table:
    """A table; a cell is plain text or a list of spans."""

    header: list[str]
    rows: list[list[Inline]]


@dataclass
class FigureBlock:
    """A figure: PNG bytes rendered in memory, its file name (Markdown) and caption."""

    filename: str
    alt: str
    caption: str
    png: bytes


@dataclass
class Preformatted:
    """Preformatted text (a traceback)."""

    text: str


Block = Union[Paragraph, Bullets, Table, FigureBlock, Preformatted]


@dataclass
class Section:
    """A titled section; ``failed`` when its computation raised."""

    title: str
    blocks: list[Block]
    failed: bool = False


@dataclass
class ReportDocument:
    """The whole report: a title, the opening blocks, and the sections in reading order."""

    title: str
    head: list[Block]
    sections: list[Section]
    versions: dict[str, Any]


def plain(text: str) -> list[Span]:
    return [(str(text), "")]


def spans(cell: Inline) -> list[Span]:
    return plain(cell) if isinstance(cell, str) else cell


def md_escape(text: str) -> str:
    r"""Prose as Markdown that renders as written (issue 34: ``M = d**2, fwd.tight at M = d**2``
    must not turn the text between the two ``**`` bold in the HTML report). Outside the
    backtick code spans that prose uses on purpose (```attnio bounds```), a ``*`` or ``_`` that
    could pair with another into emphasis (two or more of them) is backslash-escaped; a lone
    one cannot pair, and stays as written.

    >>> md_escape("M = d**2, fwd.tight at M = d**2; see `a**b`")
    'M = d\\*\\*2, fwd.tight at M = d\\*\\*2; see `a**b`'
    >>> md_escape("3.40787e+07*"), md_escape("small_cache and x_y")
    ('3.40787e+07*', 'small\\_cache and x\\_y')
    """
    parts = re.split(r"(`[^`]*`)", text)
    prose = "".join(part for part in parts if not part.startswith("`"))
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(part)
            continue
        for mark in "*_":
            if prose.count(mark) >= 2:
                part = part.replace(mark, "\\" + mark)
        out.append(part)
    return "".join(out)


def md_inline(spans: Sequence[Span]) -> str:
    """Markdown of inline spans; the text of every span but code is escaped
    (:func:`md_escape`). Adjacent spans of one style are merged first: two code spans side by
    side would otherwise print two backticks in a row, which Markdown reads as the delimiter of
    one span (two strong spans likewise print four asterisks).

    >>> md_inline([("x", "code"), ("y", "code"), (" and ", ""), ("z", "strong")])
    '`xy` and **z**'
    >>> md_inline([("M = d**2", "")]) == "M = d" + chr(92) + "*" + chr(92) + "*2"
    True
    """
    merged: list[tuple[str, str]] = []
    for text, style in spans:
        if merged and merged[-1][1] == style and style:
            merged[-1] = (merged[-1][0] + text, style)
        else:
            merged.append((text, style))
    out = []
    for text, style in merged:
        if style == "code":
            out.append("`" + text.replace("`", "'") + "`")
        elif style == "strong":
            out.append(f"**{md_escape(text)}**")
        elif style == "em":
            out.append(f"*{md_escape(text)}*")
        else:
            out.append(md_escape(text))
    return "".join(out)


def render_markdown(doc: ReportDocument) -> str:
    """The report as Markdown; figures are linked as ``![alt](filename)`` next to it.

    >>> doc = ReportDocument("T", [Paragraph([("a", ""), ("b|c", "code")])],
    ...                      [Section("S", [Table(["x"], [[[("1", "strong")]]])])], {})
    >>> print(render_markdown(doc))
    # T
    <BLANKLINE>
    a`b|c`
    <BLANKLINE>
    ## S
    <BLANKLINE>
    | x     |
    |-------|
    | **1** |
    <BLANKLINE>
    """
    lines = [f"# {doc.title}", ""]
    for block in doc.head:
        lines += md_block(block) + [""]
    for section in doc.sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            lines += md_block(block) + [""]
    return "\n".join(lines)


#: Paragraphs, bullets and captions of the Markdown are wrapped at this many characters (at spaces; a
#: soft line break is a space in Markdown, inside ``**…**`` and code spans too), so no line of
#: index.md is thousands of characters long whatever the sweep.
MD_WIDTH = 100


def _wrap(text: str, first: str = "", rest: str = "") -> list[str]:
    import textwrap

    return textwrap.wrap(text, MD_WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def md_block(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return _wrap(md_inline(block.spans))
    if isinstance(block, Bullets):
        return [line for item in block.items for line in _wrap(md_inline(item), "- ", "  ")]
    if isinstance(block, Table):
        return render_table(block.header, [[md_inline(spans(c)) for c in row]
                                           for row in block.rows], fmt="markdown").split("\n")
    if isinstance(block, FigureBlock):
        return [f"![{block.alt}]({block.filename})", "", *_wrap(f"*{block.caption}*")]
    if isinstance(block, Preformatted):
        return ["```", block.text.replace("```", "'''"), "```"]
    raise TypeError(f"unknown block {block!r}")  # pragma: no cover
