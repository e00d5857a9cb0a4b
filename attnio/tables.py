"""Tables of every room, printed one way: plain text for the terminal, Markdown for files,
LaTeX booktabs for papers.

Built on `tabulate <https://pypi.org/project/tabulate/>`_. Cells are printed exactly as
given (``disable_numparse``: no number is re-formatted behind the caller's back — callers
format their own numbers, one format per column: :func:`number_column`); ``None`` prints as
``missing`` (default ``"-"``). Markdown output is GitHub's pipe table with every ``|`` inside
a cell escaped and line breaks folded, so a cell can never break the table. LaTeX output is
tabulate's booktabs layout (``\\toprule``, ``\\midrule``, ``\\bottomrule``) with every text cell
escaped by :func:`latex_escape` (a :class:`LatexMath` cell goes in as written).

**Terminal width.** A plain table given ``max_width`` (every command passes
:data:`TERMINAL_COLUMNS` = 100 unless ``--wide``) wraps the columns named in ``wrap``
(tabulate's ``maxcolwidths``, the widest first) until it fits; numbers are never wrapped.
:func:`fit_text` wraps the prose lines around a table to the same width.

**One number format per column.** :func:`number_column` formats a column of exact values:
all integers below 10¹⁵ → thousands separators; otherwise every value in the same exponent
format (6 significant digits). :func:`mixed_number_columns` is the checker: the columns in
which two number formats meet (``34,078,720`` above ``2.40973e+07``).

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
>>> print(render_table(["id", "note"], [["a", "one two three four five"]], max_width=16,
...                    wrap=[1]))
id    note
----  ----------
a     one two
      three four
      five
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from decimal import Decimal
from typing import Any, Iterable, Sequence

from tabulate import tabulate

__all__ = ["render_table", "latex_notes", "markdown_cell", "number_cell", "number_column", "number_format",
           "mixed_number_columns", "fit_text", "latex_escape", "latex_number", "LatexMath",
           "latex_fit", "latex_prose", "LATEX_FIT_OPEN", "LATEX_FIT_CLOSE",
           "FORMATS", "TERMINAL_COLUMNS"]

#: fmt -> tabulate's tablefmt: ``plain`` (header, dashes, columns; without a header just the
#: columns), ``markdown`` (GitHub), ``latex`` (booktabs; cells escaped here, not by tabulate).
FORMATS = {"plain": "simple", "markdown": "github", "latex": "latex_booktabs"}

#: The width every table and line attnio prints to a terminal fits by default (``--wide``
#: lifts it).
TERMINAL_COLUMNS = 100

#: The narrowest a wrapped column is made (a narrower one reads as a column of syllables).
_MIN_WRAPPED = 12


def markdown_cell(text: Any) -> str:
    """One Markdown table cell: whitespace runs (line breaks too) folded, ``|`` escaped.

    >>> markdown_cell("a |\\n b")
    'a \\\\| b'
    """
    return " ".join(str(text).split()).replace("|", "\\|")


def _exact(value: Any) -> Any:
    import sympy as sp  # lazy: printing a table of ints needs no sympy

    return sp.sympify(value)


def _is_table_int(exact: Any) -> bool:
    return bool(exact.is_Integer) and abs(int(exact)) < 10 ** 15


def _scientific(exact: Any) -> str:
    """``m.mmmmme±EE`` (6 significant digits) of an exact number, beyond the float range too."""
    import sympy as sp

    try:
        text = f"{Decimal(int(exact)) if exact.is_Integer else float(exact):.5e}"
    except (TypeError, OverflowError):
        text = f"{Decimal(str(sp.N(exact, 12))):.5e}"
    return re.sub(r"e([+-])(\d)$", r"e\g<1>0\2", text)  # e+7 -> e+07, as a float prints


def number_cell(value: Any, *, in_range: bool = True) -> str:
    """One exact number on its own: an integer below 10¹⁵ in full with thousands separators,
    anything else to 6 significant digits (through sympy when the float overflows), and a
    trailing ``*`` when the value is outside its admissible range (a formula's value there,
    not a bound). In a column, use :func:`number_column` (one format for the whole column).

    >>> import sympy as sp
    >>> number_cell(sp.Integer(33554432)), number_cell(16777216 * sp.sqrt(2))
    ('33,554,432', '2.37266e+07')
    >>> number_cell(sp.Rational(1, 3), in_range=False), number_cell(2 ** sp.Integer(2000))
    ('0.333333*', '1.14813e602')
    """
    import sympy as sp

    mark = "" if in_range else "*"
    exact = sp.sympify(value)
    if _is_table_int(exact):
        return f"{int(exact):,}{mark}"
    try:
        number = float(exact)
    except (TypeError, OverflowError):
        number = float("inf")
    if number != number or number in (float("inf"), float("-inf")):
        return str(sp.N(exact, 6)).replace("e+", "e") + mark
    return f"{number:.6g}{mark}"


def number_column(values: Sequence[Any], *, in_range: Sequence[bool] | None = None,
                  missing: str = "-") -> list[str]:
    """A column of exact numbers in ONE format: every value an integer below 10¹⁵ → in full
    with thousands separators; otherwise every value as ``m.mmmmme±EE`` (6 significant
    digits). ``None`` prints as ``missing``; ``in_range[i]`` False appends ``*``.

    >>> import sympy as sp
    >>> number_column([34078720, 7, None])
    ['34,078,720', '7', '-']
    >>> number_column([34078720, 16777216 * sp.sqrt(2)], in_range=[False, True])
    ['3.40787e+07*', '2.37266e+07']
    >>> number_column([2 ** sp.Integer(2000), 1])
    ['1.14813e+602', '1.00000e+00']
    """
    exact = [None if v is None else _exact(v) for v in values]
    marks = ["" if in_range is None or in_range[i] else "*" for i in range(len(values))]
    grouped = all(v is None or _is_table_int(v) for v in exact)
    return [missing if v is None else (f"{int(v):,}" if grouped else _scientific(v)) + mark
            for v, mark in zip(exact, marks)]


_FORMATS_OF_NUMBERS = [
    ("grouped integer", re.compile(r"-?\d{1,3}(,\d{3})+")),
    ("small integer", re.compile(r"-?\d{1,3}")),
    ("plain integer", re.compile(r"-?\d{4,}")),
    ("fixed", re.compile(r"-?[\d,]*\.(\d+)")),
    ("exponent", re.compile(r"-?\d(?:\.(\d+))?e[+-]?\d+")),
]


def number_format(cell: Any) -> str | None:
    """The number format of a printed cell (marks ``*``, ``†`` and a unit word stripped), or
    None for a cell that is not a number (``-``, ``n/a``, text).

    >>> [number_format(c) for c in ["34,078,720", "2.40973e+07", "7.58", "48", "4096*", "-"]]
    ['grouped integer', 'exponent 5', 'fixed 2', 'small integer', 'plain integer', None]
    """
    text = str(cell).strip().rstrip("*†").strip()
    text = re.sub(r"\s+[A-Za-z]{1,3}$", "", text)  # "1.25e-06 s", "12 ms"
    for name, pattern in _FORMATS_OF_NUMBERS:
        match = pattern.fullmatch(text)
        if match:
            digits = match.groups()[-1] if name in ("fixed", "exponent") else None
            return name if digits is None and name != "exponent" else f"{name} {len(digits or '')}"
    return None


def mixed_number_columns(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> list[str]:
    """The columns of a table whose number cells use more than one format (the checker of
    the one-format-per-column rule). A small integer (at most 3 digits) agrees with either
    integer format, never with a fraction or an exponent.

    >>> mixed_number_columns(["id", "io"], [["a", "34,078,720"], ["b", "2.40973e+07"]])
    ['io']
    >>> mixed_number_columns(["M", "ratio"], [["64", "7.58"], ["4,096", "17.50"]])
    []
    """
    columns: dict[int, set[str]] = {}
    for row in rows:
        for i, cell in enumerate(row):
            kind = number_format(cell)
            if kind is not None:
                columns.setdefault(i, set()).add(kind)
    mixed = []
    for i, kinds in sorted(columns.items()):
        if len(kinds - {"small integer"}) > 1 or ("small integer" in kinds and any(
                k.startswith(("fixed", "exponent")) for k in kinds)):
            mixed.append(str(header[i]) if i < len(header) else f"column {i + 1}")
    return mixed


def fit_text(text: str, width: int | None = TERMINAL_COLUMNS, *, indent: str = "") -> str:
    """Prose lines wrapped to ``width`` columns (None: unchanged); a wrapped line's
    continuation is indented by ``indent`` plus the line's own leading spaces.

    >>> print(fit_text("note: one two three", 12, indent="  "))
    note: one
      two three
    """
    if width is None:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out.append(textwrap.fill(line.strip(), width, initial_indent=lead,
                                 subsequent_indent=lead + indent, break_on_hyphens=False))
    return "\n".join(out)


class LatexMath(str):
    """A LaTeX cell written in math mode (``$...$``): put into a ``fmt="latex"`` table as is."""


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "§": r"\S{}", "–": "--", "—": "---", "≤": r"$\le$", "≥": r"$\ge$", "×": r"$\times$",
    "·": r"$\cdot$", "√": r"$\surd$", "…": r"\ldots{}", "’": "'", "‘": "`", "“": "``",
    "”": "''", "ᵀ": r"\textsuperscript{T}", "≠": r"$\ne$", "†": r"\dag{}",
    "²": r"\textsuperscript{2}",
    "→": r"$\to$", "⌈": r"$\lceil$", "⌉": r"$\rceil$", "β": r"$\beta$", "Θ": r"$\Theta$",
    "Ω": r"$\Omega$", "∀": r"$\forall$", "∃": r"$\exists$", "≈": r"$\approx$",
}


def latex_escape(text: Any) -> str:
    r"""``text`` safe in LaTeX text mode: specials escaped, common symbols spelled as
    commands, any other non-ASCII character reduced to ASCII (accents dropped) or ``?``.

    >>> print(latex_escape("Thm 1.1 & §2_a {x} 50% ~ ^"))
    Thm 1.1 \& \S{}2\_a \{x\} 50\% \textasciitilde{} \textasciicircum{}
    >>> print(latex_escape("Hölder ≤ 日"))
    Holder $\le$ ?
    """
    out = []
    for char in str(text):
        if char in _LATEX_SPECIALS:
            out.append(_LATEX_SPECIALS[char])
        elif ord(char) < 128:
            out.append(char if char.isprintable() else " ")
        else:
            ascii_form = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            out.append(latex_escape(ascii_form) if ascii_form else "?")
    return "".join(out)


def latex_number(cell: str) -> LatexMath:
    r"""A printed number cell (:func:`number_column`) in math mode: thousands separated by
    thin spaces, ``m.mmmmme±EE`` as ``m.mmmmm \times 10^{E}``, a trailing ``*`` as a
    superscript; any other cell escaped as text.

    >>> print(latex_number("34,078,720"), latex_number("2.37266e+07*"), latex_number("-"))
    $34\,078\,720$ $2.37266 \times 10^{7}{}^{*}$ -
    """
    text, mark = (cell[:-1], "{}^{*}") if cell.endswith("*") else (cell, "")
    kind = number_format(text)
    if kind is None:
        return LatexMath(latex_escape(cell))
    mantissa, _, exponent = text.partition("e")
    body = mantissa.replace(",", r"\,") + (rf" \times 10^{{{int(exponent)}}}" if exponent else "")
    return LatexMath(f"${body}{mark}$")


#: The two lines :func:`latex_fit` puts around a tabular (a test strips them to read it).
LATEX_FIT_OPEN = "{\\setbox0=\\hbox{%"
LATEX_FIT_CLOSE = ("}\\ifdim\\wd0>\\linewidth\\setbox0=\\hbox{\\resizebox{\\linewidth}{!}{\\box0}}"
                   "\\fi\\ifdim\\dimexpr\\ht0+\\dp0\\relax>0.9\\textheight\\setbox0=\\hbox{"
                   "\\resizebox*{!}{0.9\\textheight}{\\box0}}\\fi\\noindent\\box0\\par}")


def latex_fit(tabular: str) -> str:
    r"""A ``tabular`` that never runs past the text width: typeset in a box, printed as is
    when it fits ``\linewidth`` and scaled down to it (graphicx's ``\resizebox``) when it does
    not — every number whole, prose columns (``p{}``) wrapped first. Needs
    ``\usepackage{graphicx}`` (and booktabs for the rules).

    >>> print(latex_fit("\\begin{tabular}{l}\nx\\\\\n\\end{tabular}"))
    {\setbox0=\hbox{%
    \begin{tabular}{l}
    x\\
    \end{tabular}%
    }\ifdim\wd0>\linewidth\setbox0=\hbox{\resizebox{\linewidth}{!}{\box0}}\fi\ifdim\dimexpr\ht0+\dp0\relax>0.9\textheight\setbox0=\hbox{\resizebox*{!}{0.9\textheight}{\box0}}\fi\noindent\box0\par}
    """
    return "\n".join([LATEX_FIT_OPEN, tabular.rstrip("\n") + "%", LATEX_FIT_CLOSE])


def latex_prose(text: Any) -> LatexMath:
    r"""A prose cell for a ``p{}`` column: escaped, in ``\footnotesize``, a line break allowed
    after every ``/`` (a long path or URL wraps instead of running over the column).

    >>> print(latex_prose("Math/Lean.lean §3"))
    {\footnotesize Math/\allowbreak{}Lean.lean \S{}3}
    """
    return LatexMath("{\\footnotesize " + latex_escape(" ".join(str(text).split())).replace(
        "/", "/\\allowbreak{}") + "}")


def latex_notes(lines: Sequence[str]) -> str:
    r"""A table's footnotes (``[k] text``) as LaTeX text that shows in the document, below
    the table in a small font ('%' comments would be dropped by LaTeX). Empty for no notes.

    >>> print(latex_notes(["[1] 50% of M", "[2] a_b"]))
    {\footnotesize
    [1] 50\% of M\par
    [2] a\_b\par}
    """
    if not lines:
        return ""
    body = [f"{latex_escape(line)}\\par" for line in lines]
    body[-1] += "}"
    return "\n".join(["{\\footnotesize", *body])


def _latex_cell(cell: Any) -> str:
    return str(cell) if isinstance(cell, LatexMath) else latex_escape(" ".join(str(cell).split()))


def _booktabs() -> Any:
    """tabulate's ``latex_booktabs`` layout with its rows taken as written (the cells are
    escaped by :func:`latex_escape` first, so a :class:`LatexMath` cell keeps its math).
    tabulate names no public accessor for a format's layout; ``latex_raw`` is the same rows
    unescaped, so its row functions are borrowed."""
    import tabulate as tabulate_module

    formats: Any = getattr(tabulate_module, "_table_formats")  # noqa: B009 - see the docstring
    raw = formats["latex_raw"]
    return formats["latex_booktabs"]._replace(headerrow=raw.headerrow, datarow=raw.datarow)


def _natural_widths(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[int]:
    return [max([len(line) for cell in [header[i], *(row[i] for row in body)]
                 for line in str(cell).split("\n")] or [0]) for i in range(len(header))]


def _wrap_cell(text: str, width: int) -> str:
    """``text`` wrapped at spaces to ``width`` columns, each of its lines on its own; a word
    longer than ``width`` (an identifier, a number) stays whole, never cut."""
    return "\n".join(part for line in text.split("\n") for part in (textwrap.wrap(
        line, width, break_long_words=False, break_on_hyphens=False) or [""]))


def _fitted(header: Sequence[str], body: Sequence[Sequence[str]], wrap: Sequence[int],
            max_width: int, options: dict[str, Any]) -> str:
    """The plain table with the columns in ``wrap`` wrapped at spaces to one common width (at
    least :data:`_MIN_WRAPPED`; an identifier or number longer than that stays whole), the
    width lowered until the table fits ``max_width`` or reaches the minimum."""
    natural = _natural_widths(header, body)
    wrapped = [i for i in wrap if 0 <= i < len(header)]
    cap = max([natural[i] for i in wrapped] or [0])
    while True:
        cells = [[_wrap_cell(cell, cap) if i in wrapped and natural[i] > cap else cell
                  for i, cell in enumerate(row)] for row in body]
        titles = [_wrap_cell(t, cap) if i in wrapped and natural[i] > cap else t
                  for i, t in enumerate(header)]
        text = tabulate(cells, headers=titles, **options)
        excess = max(map(len, text.splitlines() or [""])) - max_width
        if excess <= 0 or cap <= _MIN_WRAPPED:
            return text
        cap = max(_MIN_WRAPPED, cap - excess)


def render_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], *, fmt: str = "plain",
                 align: Sequence[str] | None = None, missing: str = "-",
                 show_header: bool = True, max_width: int | None = None,
                 wrap: Sequence[int] = (), latex_columns: str | None = None) -> str:
    """The table as text (no trailing newline).

    Parameters
    ----------
    header : sequence
        Column titles.
    rows : iterable of sequences
        One sequence of cells per row (any objects; ``str`` is applied, None is ``missing``).
    fmt : {"plain", "markdown", "latex"}
        ``latex``: a booktabs ``tabular`` (needs ``\\usepackage{booktabs}``); every cell
        escaped by :func:`latex_escape` except a :class:`LatexMath` one.
    align : sequence of {"left", "right", "center"}, optional
        Per column (default: every column left-aligned).
    missing : str
        What None prints as.
    show_header : bool
        Print the header (plain format only; a Markdown table always has one).
    max_width : int, optional
        Plain format: wrap the columns ``wrap`` (indices) until the table is at most this
        many characters wide (None: as wide as the cells; see :data:`TERMINAL_COLUMNS`).
    wrap : sequence of int
        The columns that may be wrapped (text, never numbers).
    latex_columns : str, optional
        ``fmt="latex"``: the ``tabular`` column specification instead of tabulate's one
        letter per column (e.g. ``"lllp{5cm}r"`` for a wrapped paragraph column).
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    body = [[missing if cell is None else cell if isinstance(cell, LatexMath) else str(cell)
             for cell in row] for row in rows]
    titles = [str(t) for t in header]
    options: dict[str, Any] = {"tablefmt": FORMATS[fmt], "disable_numparse": True}
    if align is not None:
        options["colalign"] = tuple(align)
    if fmt == "markdown":
        body = [[markdown_cell(cell) for cell in row] for row in body]
        titles = [markdown_cell(t) for t in titles]
        show_header = True
    elif fmt == "latex":
        body = [[_latex_cell(cell) for cell in row] for row in body]
        titles = [_latex_cell(t) for t in titles]
        options["tablefmt"] = _booktabs()
        text = tabulate(body, headers=titles, **options)
        if latex_columns is not None:
            first, _, rest = text.partition("\n")
            text = "\\begin{tabular}{" + latex_columns + "}\n" + rest
        return latex_fit(text)
    elif max_width is not None and wrap and show_header:
        return _fitted(titles, body, wrap, max_width, options)
    if show_header:
        return tabulate(body, headers=titles, **options)
    return tabulate(body, **{**options, "tablefmt": "plain"})
