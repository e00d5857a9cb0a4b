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

__all__ = ["render_table", "markdown_cell", "number_cell", "FORMATS"]

#: fmt -> tabulate's tablefmt: ``plain`` (header, dashes, columns; without a header just the
#: columns), ``markdown`` (GitHub).
FORMATS = {"plain": "simple", "markdown": "github"}


def markdown_cell(text: Any) -> str:
    """One Markdown table cell: whitespace runs (line breaks too) folded, ``|`` escaped.

    >>> markdown_cell("a |\\n b")
    'a \\\\| b'
    """
    return " ".join(str(text).split()).replace("|", "\\|")


def number_cell(value: Any, *, in_range: bool = True) -> str:
    """An exact number as every table prints it: an integer below 10¹⁵ in full with thousands
    separators, anything else to 6 significant digits (through sympy when the float overflows), and a
    trailing ``*`` when the value is outside its admissible range (a formula's value there,
    not a bound).

    One formatter for every printed bound value: ``attnio bounds`` and the bound table of
    ``attnio report`` print the same cell for the same exact value.

    >>> import sympy as sp
    >>> number_cell(sp.Integer(33554432)), number_cell(16777216 * sp.sqrt(2))
    ('33,554,432', '2.37266e+07')
    >>> number_cell(sp.Rational(1, 3), in_range=False), number_cell(2 ** sp.Integer(2000))
    ('0.333333*', '1.14813e602')
    """
    import sympy as sp  # lazy: printing a table of ints needs no sympy

    mark = "" if in_range else "*"
    exact = sp.sympify(value)
    if exact.is_Integer and abs(int(exact)) < 10 ** 15:
        return f"{int(exact):,}{mark}"
    try:
        number = float(exact)
    except (TypeError, OverflowError):
        number = float("inf")
    if number != number or number in (float("inf"), float("-inf")):
        return str(sp.N(exact, 6)).replace("e+", "e") + mark
    return f"{number:.6g}{mark}"


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
