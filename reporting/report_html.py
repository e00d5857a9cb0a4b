r"""The report as one self-contained HTML file (``attnio report OUTDIR --html``).

:func:`render_html` turns a :class:`attnio.reporting.document.ReportDocument` into a single
HTML5 page that needs nothing but itself:

* every figure is embedded as a ``data:image/png;base64,...`` URI — no file next to it;
* no script, no external stylesheet, font or image; a Content-Security-Policy meta tag
  (:data:`CONTENT_SECURITY_POLICY`) makes the browser refuse anything else, so a stray
  external reference shows up as a console error instead of a silent network request;
* every piece of text (claim ids, sources, expressions, tracebacks, file names) goes through
  :func:`html.escape`;
* a provenance table lists the attnio version and the versions of sympy, z3, cvc5 (or "not
  installed"), networkx and numpy (:func:`attnio.provenance.provenance`).

The page is tested in headless Chromium (``tests/reporting/test_report_html.py``): no console error,
every ``<img>`` decoded (``naturalWidth > 0``) and laid out, and a screenshot.

Examples
--------
>>> from attnio.reporting.document import Paragraph, ReportDocument, Section
>>> doc = ReportDocument("T <1>", [Paragraph([("a & b", ""), ("<x>", "code")])],
...                      [Section("S", [])], {"attnio_version": "0", "versions": {}})
>>> page = render_html(doc)
>>> "<code>&lt;x&gt;</code>" in page and "a &amp; b" in page and "<title>T &lt;1&gt;</title>" in page
True
"""

from __future__ import annotations

import base64
import html
from typing import Any, Sequence

from attnio.reporting.document import (
    Block,
    Bullets,
    FigureBlock,
    Paragraph,
    Preformatted,
    ReportDocument,
    Section,
    Span,
    Table,
    spans,
)

__all__ = ["render_html", "CONTENT_SECURITY_POLICY"]

#: Nothing may load but inline styles and embedded (data:) images.
CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; }
h2 { border-bottom: 1px solid #bbb; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr:nth-child(even) td { background: #fafafa; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.95em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-style: italic; font-size: 0.9em; margin-top: 0.3em; }
.failed { border-left: 4px solid #c00; padding-left: 0.8em; }
.provenance td:first-child { font-weight: bold; }
"""


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _inline(spans: Sequence[Span]) -> str:
    out = []
    for text, style in spans:
        body = _esc(text)
        tag = {"code": "code", "strong": "strong", "em": "em"}.get(style)
        out.append(f"<{tag}>{body}</{tag}>" if tag else body)
    return "".join(out)


def _block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{_inline(block.spans)}</p>"
    if isinstance(block, Bullets):
        items = "".join(f"<li>{_inline(item)}</li>" for item in block.items)
        return f"<ul>{items}</ul>"
    if isinstance(block, Table):
        head = "".join(f"<th>{_esc(h)}</th>" for h in block.header)
        rows = "".join("<tr>" + "".join(f"<td>{_inline(spans(c))}</td>" for c in row) + "</tr>"
                       for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    if isinstance(block, FigureBlock):
        data = base64.b64encode(block.png).decode("ascii")
        return (f'<figure><img src="data:image/png;base64,{data}" alt="{_esc(block.alt)}" '
                f'data-figure="{_esc(block.filename)}">'
                f"<figcaption>{_esc(block.caption)}</figcaption></figure>")
    if isinstance(block, Preformatted):
        return f"<pre>{_esc(block.text)}</pre>"
    raise TypeError(f"unknown block {block!r}")  # pragma: no cover


def _section(section: Section) -> str:
    cls = ' class="failed"' if section.failed else ""
    body = "\n".join(_block(b) for b in section.blocks)
    return f"<section{cls}>\n<h2>{_esc(section.title)}</h2>\n{body}\n</section>"


def _provenance_table(versions: dict[str, Any]) -> str:
    rows = [("attnio", versions.get("attnio_version"))]
    rows += list((versions.get("versions") or {}).items())
    body = "".join(f"<tr><td>{_esc(name)}</td><td>{_esc(v if v else 'not installed')}</td></tr>"
                   for name, v in rows)
    return ('<table class="provenance"><thead><tr><th>library</th><th>version</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def render_html(doc: ReportDocument) -> str:
    """The report as one self-contained HTML5 page (see the module docstring)."""
    head = "\n".join(_block(b) for b in doc.head)
    sections = "\n".join(_section(s) for s in doc.sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_esc(CONTENT_SECURITY_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="attnio {_esc(doc.versions.get('attnio_version', ''))}">
<title>{_esc(doc.title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<h1>{_esc(doc.title)}</h1>
{head}
<h2>Versions</h2>
{_provenance_table(doc.versions)}
{sections}
</body>
</html>
"""
