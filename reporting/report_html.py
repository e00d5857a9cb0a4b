r"""The report as one self-contained HTML file (``attnio report OUTDIR --html``).

:func:`render_html` turns a :class:`attnio.reporting.document.ReportDocument` into a single
HTML5 page that needs nothing but itself, rendered by libraries rather than by hand:

* the text of every block is the Markdown that ``index.md`` holds
  (:func:`attnio.reporting.document.md_block`), rendered by markdown-it-py (CommonMark and
  its tables) with raw HTML off — ``<script>`` in a claim id is text, a code span is
  ``<code>``, no backtick reaches the page — and links and images off (the page links and
  loads nothing);
* the page around it is a Jinja2 template with autoescaping (:data:`PAGE`): titles, file
  names, alt texts and versions are escaped by the template, never pasted in;
* every figure is embedded as a ``data:image/png;base64,...`` URI — no file next to it;
* no script, no external stylesheet, font or image; a Content-Security-Policy meta tag
  (:data:`CONTENT_SECURITY_POLICY`) makes the browser refuse anything else, so a stray
  external reference shows up as a console error instead of a silent network request;
* a provenance table lists the attnio version and the versions of sympy, z3, cvc5 (or "not
  installed"), networkx and numpy (:func:`attnio.provenance.provenance`).

markdown-it-py and Jinja2 come with the ``plots`` extra (``attnio report`` needs it for the
figures anyway); they are imported when a page is rendered.

The page is tested in headless Chromium (``tests/reporting/test_report_html.py``): no console error,
every ``<img>`` decoded (``naturalWidth > 0``) and laid out, and a screenshot.

Examples
--------
>>> from attnio.reporting.document import Paragraph, ReportDocument, Section
>>> doc = ReportDocument("T <1>", [Paragraph([("a & b `c` ", ""), ("<x>", "code")])],
...                      [Section("S", [])], {"attnio_version": "0", "versions": {}})
>>> page = render_html(doc)
>>> "<code>&lt;x&gt;</code>" in page and "a &amp; b <code>c</code>" in page
True
>>> "<title>T &lt;1&gt;</title>" in page and "`" not in page
True
"""

from __future__ import annotations

import base64
from typing import Any

from attnio.reporting.document import (
    Block,
    FigureBlock,
    ReportDocument,
    md_block,
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


#: The page: a Jinja2 template, autoescaped; ``blocks`` are markdown-it's HTML (marked safe,
#: raw HTML off) or figures, whose every field the template escapes.
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="attnio {{ attnio_version }}">
<title>{{ title }}</title>
<style>{{ style }}</style>
</head>
<body>
<h1>{{ title_html }}</h1>
{% for block in head %}{{ render(block) }}
{% endfor %}
<h2>Versions</h2>
<table class="provenance"><thead><tr><th>library</th><th>version</th></tr></thead><tbody>
{%- for name, version in versions %}<tr><td>{{ name }}</td><td>{{ version or "not installed" }}</td></tr>{% endfor -%}
</tbody></table>
{% for section in sections %}
<section{% if section.failed %} class="failed"{% endif %}>
<h2>{{ inline(section.title) }}</h2>
{% for block in section.blocks %}{{ render(block) }}
{% endfor %}</section>
{% endfor %}
</body>
</html>
"""

FIGURE = """<figure><img src="data:image/png;base64,{{ data }}" alt="{{ alt }}" \
data-figure="{{ filename }}"><figcaption>{{ caption }}</figcaption></figure>"""


def _markdown() -> Any:
    """markdown-it-py for the report's Markdown: CommonMark and tables; raw HTML, links,
    autolinks and images off (the page must link and load nothing)."""
    from markdown_it import MarkdownIt

    return (MarkdownIt("commonmark", {"html": False}).enable("table")
            .disable(["link", "autolink", "image", "reference"]))


def render_html(doc: ReportDocument) -> str:
    """The report as one self-contained HTML5 page (see the module docstring)."""
    from jinja2 import Environment
    from markupsafe import Markup

    md = _markdown()
    env = Environment(autoescape=True, keep_trailing_newline=True)
    figure = env.from_string(FIGURE)

    def inline(text: str) -> Markup:
        return Markup(md.renderInline(text))  # raw HTML off: markdown-it escaped the text

    def render(block: Block) -> Markup:
        if isinstance(block, FigureBlock):
            return Markup(figure.render(
                data=base64.b64encode(block.png).decode("ascii"), alt=block.alt,
                filename=block.filename, caption=inline(block.caption)))
        return Markup(md.render("\n".join(md_block(block)) + "\n").rstrip("\n"))

    versions = [("attnio", doc.versions.get("attnio_version"))]
    versions += list((doc.versions.get("versions") or {}).items())
    return env.from_string(PAGE).render(
        csp=CONTENT_SECURITY_POLICY, attnio_version=doc.versions.get("attnio_version", ""),
        title=doc.title, title_html=inline(doc.title), style=Markup(_STYLE), head=doc.head,
        versions=versions, sections=doc.sections, render=render, inline=inline)
