"""Tables of every room, printed one way: plain text for the terminal, Markdown for files.

Built on `tabulate <https://pypi.org/project/tabulate/>`_. Cells are printed exactly as
given (``disable_numparse``: no number is re-formatted behind the caller's back — callers
format their own numbers, e.g. ``f"{io:,}"``); ``None`` prints as ``missing`` (default
``"-"``). Markdown output is GitHub's pipe table with every ``|`` inside a cell escaped and
line breaks folded, so a cell can never break the table.

This module sits in the root because every room prints tables; it depends on nothing in
attnio.

Examples
--------
>>> print(render_table(["id", "value"], [["a", "1,024"], ["bb", None]]))
id    value
----  -------
a     1,024
bb    -
>>> print(render_table(["id", "value"], [["a|b", 3]], fmt="markdown"))
| id   | value   |
|------|---------|
| a\\|b | 3       |
>>> print(render_table(["x"], [["y"]], show_header=False))
y
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from tabulate import tabulate

__all__ = ["render_table", "markdown_cell", "FORMATS"]

#: fmt -> tabulate's tablefmt: ``plain`` (header, dashes, columns; without a header just the
#: columns), ``markdown`` (GitHub).
FORMATS = {"plain": "simple", "markdown": "github"}


def markdown_cell(text: Any) -> str:
    """One Markdown table cell: whitespace runs (line breaks too) folded, ``|`` escaped.

    >>> markdown_cell("a |\\n b")
    'a \\\\| b'
    """
    return " ".join(str(text).split()).replace("|", "\\|")


def render_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], *, fmt: str = "plain",
                 align: Sequence[str] | None = None, missing: str = "-",
                 show_header: bool = True) -> str:
    """The table as text (no trailing newline).

    Parameters
    ----------
    header : sequence
        Column titles.
    rows : iterable of sequences
        One sequence of cells per row (any objects; ``str`` is applied, None is ``missing``).
    fmt : {"plain", "markdown"}
    align : sequence of {"left", "right", "center"}, optional
        Per column (default: every column left-aligned).
    missing : str
        What None prints as.
    show_header : bool
        Print the header (plain format only; a Markdown table always has one).
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    body = [[missing if cell is None else str(cell) for cell in row] for row in rows]
    titles = [str(t) for t in header]
    if fmt == "markdown":
        body = [[markdown_cell(cell) for cell in row] for row in body]
        titles = [markdown_cell(t) for t in titles]
        show_header = True
    options: dict[str, Any] = {"tablefmt": FORMATS[fmt], "disable_numparse": True}
    if align is not None:
        options["colalign"] = tuple(align)
    if show_header:
        return tabulate(body, headers=titles, **options)
    return tabulate(body, **{**options, "tablefmt": "plain"})
