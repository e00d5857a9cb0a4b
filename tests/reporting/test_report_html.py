"""Tests of attnio.reporting.report_html: ``attnio report OUTDIR --html``, rendered in headless Chromium.

The browser checks (:func:`render_in_chromium`) load the page from disk with networking off,
with a copy of the page that carries a small probe script (allowed by its CSP hash only). The
probe records every error event (script errors, images that fail to load, CSP violations,
``console.error``) and, after ``load``, writes into the DOM each ``<img>``'s
``naturalWidth``/``naturalHeight`` and laid-out size; ``--dump-dom`` reads it back. Chromium's
own console log (``--enable-logging=stderr``) is checked too: the page under test has no
script, so *any* console line is an error. A screenshot of the unmodified page must contain
the figures' colours. Each check has a planted false twin (a page with a broken image, an
external image and a blocked script; a page without its figures) that it must reject.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it). Without it the browser
tests are skipped locally but **fail** when ``CI=true``: in CI they must run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.provenance import provenance
from attnio.reporting.document import Paragraph, ReportDocument, Section, Table
from attnio.reporting.outdir import MARKER_NAME
from attnio.reporting.report_html import CONTENT_SECURITY_POLICY, render_html

FIGURES = ["phase_diagram.png", "io_vs_M.png", "flops_vs_M.png", "sandwich.png",
           "optimal_schedule.png", "lower_bound_tightness.png", "gap_ratio.png",
           "sparse_io_ratio.png", "hardware_levels.png", "hardware_regimes.png"]
#: Planted into the verify table: escaping must keep it text (an <img> more would be a bug).
HOSTILE_ID = 'planted.<img src=x onerror="alert(1)"></td></table><script>alert(2)</script>'

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--hide-scrollbars", "--mute-audio",
]
CHROMIUM_TIMEOUT = 120  # seconds per browser run


def chromium_binary() -> str | None:
    """``$ATTNIO_CHROMIUM`` if set (None if it is not an executable), else the first of
    chromium / chromium-browser on PATH."""
    explicit = os.environ.get("ATTNIO_CHROMIUM")
    if explicit:
        return shutil.which(explicit)
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    """The Chromium binary; skip without it, but fail when ``CI=true`` (CI must run it)."""
    binary = chromium_binary()
    if binary is None:
        message = ("headless Chromium not found (Debian package `chromium`; .ci/run installs "
                   "it with apt-get)")
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {message}: the HTML report test must run in CI")
        pytest.skip(message)
    return binary


@pytest.fixture(scope="module")
def chromium() -> str:
    return require_chromium()


def test_missing_chromium_fails_in_ci_and_skips_locally(monkeypatch) -> None:
    monkeypatch.setenv("ATTNIO_CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="must run in CI"):
        require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="Chromium not found"):
        require_chromium()


# ------------------------------------------------------------------------------ the report


@pytest.fixture(scope="module")
def html_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One quick HTML report (n = 256, d = 16), with a hostile claim id planted."""
    import attnio.proofs.registry
    from attnio.proofs.registry import Claim
    from attnio.results import Proved

    real_load = attnio.proofs.registry.load_claims
    hostile = Claim(HOSTILE_ID, "hostile text", "-", 'source "<b>bold</b>" & co',
                    "z3 NRA (planted)", "planted", lambda ctx: Proved("planted"))
    out = tmp_path_factory.mktemp("html") / "report"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(attnio.proofs.registry, "load_claims", lambda: [*real_load(), hostile])
        assert main(["report", str(out), "--n", "256", "--d", "16", "--quick", "--html"]) == 0
    return out / "index.html"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_html_report_is_one_self_contained_file(html_report: Path) -> None:
    out = html_report.parent
    assert sorted(p.name for p in out.iterdir()) == [MARKER_NAME, "index.html"]
    assert set(json.loads((out / MARKER_NAME).read_text())["files"]) == {"index.html"}
    parsed = _parse(html_report.read_text(encoding="utf-8"))
    tags = [t for t, _ in parsed.tags]
    assert "script" not in tags and "link" not in tags and "iframe" not in tags
    assert "object" not in tags and "embed" not in tags
    for tag, attrs in parsed.tags:
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            value = attrs.get(name)
            assert value is None or value.startswith("data:") or value.startswith("#"), (tag, name)
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
    csp = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv") ==
           "Content-Security-Policy"]
    assert csp and csp[0]["content"] == CONTENT_SECURITY_POLICY
    images = [a for t, a in parsed.tags if t == "img"]
    assert [a["data-figure"] for a in images] == FIGURES
    assert page_text_has_no_backtick(html_report)
    assert html_report.read_text(encoding="utf-8").count("<figcaption>") == len(FIGURES)
    assert all(a["alt"] for a in images)  # every figure has its alt text
    for attrs in images:
        prefix = "data:image/png;base64,"
        assert attrs["src"].startswith(prefix)
        assert base64.b64decode(attrs["src"][len(prefix):], validate=True)[:8] == \
            b"\x89PNG\r\n\x1a\n"


def page_text_has_no_backtick(page: Path) -> bool:
    """No raw Markdown code span in the page's text (tracebacks in <pre> aside)."""
    return "`" not in _text_outside(page.read_text(encoding="utf-8"))


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_html_report_has_the_tables_the_sandwich_and_the_versions(html_report: Path) -> None:
    page = html_report.read_text(encoding="utf-8")
    text = " ".join(" ".join(_parse(page).text).split())
    for heading in ("Versions", "Phase diagram", "I/O against M", "Pebbling sandwich",
                    "Bound table at n = 256, d = 16", "Verify table"):
        assert f"<h2>{heading}</h2>" in page, heading
    assert "bwd.tight" in text and "Hong–Kung" in text and "optimum" in text
    info = provenance()
    assert f"attnio {info['attnio_version']}" in text
    for library in ("sympy", "z3", "cvc5", "networkx", "numpy"):
        version = info["versions"][library] or "not installed"
        assert f"<td>{library}</td><td>{version}</td>" in page, library
    assert page.index("<h2>Phase diagram</h2>") < page.index("<h2>Verify table</h2>")


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_html_report_escapes_all_text(html_report: Path) -> None:
    page = html_report.read_text(encoding="utf-8")
    parsed = _parse(page)
    assert HOSTILE_ID in "".join(parsed.text)  # shown as text, verbatim
    assert "<script>alert(2)" not in page and 'onerror="alert(1)"' not in page
    assert len([t for t, _ in parsed.tags if t == "img"]) == len(FIGURES)
    doc = ReportDocument('T"<>&', [Paragraph([("</p><b>x", "code")])],
                         [Section("<h1>", [Table(["<th>"], [["</td>"]])])],
                         {"attnio_version": "<v>", "versions": {"<lib>": None}})
    rendered = render_html(doc)
    twin = _parse(rendered)
    assert [t for t, _ in twin.tags].count("h1") == 1 and "title" in [t for t, _ in twin.tags]
    assert 'T"<>&' in twin.text and "</p><b>x" in twin.text  # shown verbatim, as text
    for raw in ("</p><b>x", "<h1></h2>", "<th><th>", "</td></td>", "<v>", "<lib>"):
        assert raw not in rendered


def _text_outside(page: str, skip: tuple[str, ...] = ("pre", "style")) -> str:
    """The page's text, leaving out the elements in ``skip`` (tracebacks keep their quotes)."""

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth, self.parts = 0, []

        def handle_starttag(self, tag, attrs) -> None:
            self.depth += tag in skip

        def handle_endtag(self, tag) -> None:
            self.depth -= tag in skip

        def handle_data(self, data) -> None:
            if not self.depth:
                self.parts.append(data)

    parser = Text()
    parser.feed(page)
    return "".join(parser.parts)


@pytest.mark.extra("plots")  # markdown-it-py and jinja2 render the page
def test_html_is_rendered_markdown_not_pasted_text() -> None:
    """Code spans written in plain text (the verify and bound paragraphs hold some) become
    <code>, no backtick survives, and hostile text stays text wherever it is: title, section
    title, paragraph, bullet, table cell, caption, preformatted block, versions."""
    from attnio.reporting.document import Bullets, FigureBlock, Preformatted

    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    doc = ReportDocument(f"title {hostile}", [Paragraph([("see `attnio bounds` & ", ""),
                                                          ("x < y", "code")])],
                         [Section(f"section {hostile}", [
                             Paragraph([(f"plain {hostile}", ""), ("bold", "strong")]),
                             Bullets([[(hostile, "code")], [("`attnio verify --deep`", "")]]),
                             Table(["id", hostile], [[[(hostile, "code")], "a|b"]]),
                             FigureBlock("f1.png", f"alt {hostile}", f"caption `x` {hostile}", png),
                             FigureBlock("f2.png", "alt two", "caption two", png),
                             Preformatted(f"Traceback `q` {hostile}")], failed=True)],
                         {"attnio_version": hostile, "versions": {hostile: hostile}})
    page = render_html(doc)
    parsed = _parse(page)
    tags = [t for t, _ in parsed.tags]
    assert "script" not in tags and tags.count("img") == 2  # only the two figures
    assert not any(a.startswith("on") for _, attrs in parsed.tags for a in attrs)
    assert "`" not in _text_outside(page)
    assert "<code>attnio bounds</code>" in page and "<code>attnio verify --deep</code>" in page
    assert "<code>x &lt; y</code>" in page and "<strong>bold</strong>" in page
    assert "Traceback `q`" in "".join(parsed.text)  # a traceback keeps its characters
    text = "".join(parsed.text)
    assert text.count(hostile) >= 8  # title (twice), section, paragraph, bullet, cell, ...
    images = [a for t, a in parsed.tags if t == "img"]
    assert [a["data-figure"] for a in images] == ["f1.png", "f2.png"]
    assert images[0]["alt"] == f"alt {hostile}"
    assert all(a["src"] == "data:image/png;base64," + base64.b64encode(png).decode()
               for a in images)
    assert page.count("<figcaption>") == 2 and "<figcaption>caption <code>x</code>" in page
    assert '<section class="failed">' in page
    assert "<td>a|b</td>" in page  # a pipe in a cell stays in its cell


@pytest.mark.extra("plots")  # markdown-it-py and jinja2 render the page
def test_the_template_escapes_and_markdown_keeps_raw_html_off() -> None:
    """False twins: the libraries' unsafe settings would let the hostile text through, so
    the safe ones are what keeps it out."""
    from jinja2 import Environment
    from markdown_it import MarkdownIt

    from attnio.reporting.report_html import PAGE

    hostile = "<script>alert(1)</script>"
    assert hostile in MarkdownIt("commonmark").render(hostile)  # raw HTML on: passes
    unsafe = Environment(autoescape=False).from_string(PAGE).render(
        title=hostile, head=[], versions=[], sections=[], render=str, inline=str)
    assert hostile in unsafe
    doc = ReportDocument(hostile, [Paragraph([(hostile, "")])], [], {"versions": {}})
    assert hostile not in render_html(doc)


# ------------------------------------------------------------------------------ in Chromium

_PROBE = """
(function () {
  var errors = [];
  function note(kind, detail) { errors.push(kind + ": " + String(detail).slice(0, 300)); }
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName) { note("resource", t.tagName + " " + (t.currentSrc || t.src || "").slice(0, 80)); }
    else { note("script", e.message); }
  }, true);
  window.addEventListener("unhandledrejection", function (e) { note("rejection", e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) {
    note("csp", e.violatedDirective + " " + e.blockedURI);
  });
  var original = console.error;
  console.error = function () { note("console.error", Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
  window.addEventListener("load", function () {
    var imgs = Array.prototype.slice.call(document.images);
    function settled(img) {  // decode(), but never wait more than 3 s for one image
      return Promise.race([img.decode().catch(function () {}),
                           new Promise(function (ok) { setTimeout(ok, 3000); })]);
    }
    Promise.all(imgs.map(settled)).then(function () {
      var out = document.createElement("pre");
      out.id = "attnio-probe";
      out.textContent = JSON.stringify({
        errors: errors,
        images: imgs.map(function (img) {
          var box = img.getBoundingClientRect();
          return {figure: img.getAttribute("data-figure"), complete: img.complete,
                  naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
                  width: box.width, height: box.height};
        })
      });
      document.body.appendChild(out);
    });
  });
})();
"""


@dataclass
class BrowserResult:
    """What Chromium saw: the probe's JSON and the console lines from its log."""

    probe: dict
    console: list[str]

    def problems(self, expected_figures: list[str]) -> list[str]:
        """Every reason the page is not OK (empty: OK)."""
        found = list(self.probe.get("errors", [])) + [f"console: {c}" for c in self.console]
        images = self.probe.get("images", [])
        if [i["figure"] for i in images] != expected_figures:
            found.append(f"images {[i['figure'] for i in images]} != {expected_figures}")
        for image in images:
            if not (image["complete"] and image["naturalWidth"] > 0 and image["naturalHeight"] > 0):
                found.append(f"image {image['figure']} not decoded: {image}")
            if not (image["width"] > 0 and image["height"] > 0):
                found.append(f"image {image['figure']} not laid out: {image}")
        return found


def _run_chromium(binary: str, args: list[str], workdir: Path) -> subprocess.CompletedProcess:
    profile = workdir / f"profile-{len(list(workdir.glob('profile-*')))}"
    profile.mkdir()
    command = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=CHROMIUM_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the browser we started, and its helpers
        process.communicate()
        pytest.fail(f"chromium did not finish within {CHROMIUM_TIMEOUT} s")
    return subprocess.CompletedProcess(command, process.returncode, stdout.decode(errors="replace"),
                                       stderr.decode(errors="replace"))


_CONSOLE_LINE = re.compile(r":CONSOLE[:(]\d+\)?\] (.*)")


def render_in_chromium(binary: str, page: Path, workdir: Path) -> BrowserResult:
    """Load a probed copy of ``page`` in headless Chromium and return what it saw."""
    text = page.read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(_PROBE.encode()).digest()).decode()
    # the CSP attribute as the page spells it (escapers differ: &#39; or &#x27;)
    metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)
    assert len(metas) == 1 and html.unescape(metas[0]) == CONTENT_SECURITY_POLICY, \
        "the page must carry attnio's CSP"
    csp = metas[0]
    allow = html.escape(f"; script-src 'sha256-{digest}'", quote=True)
    probed = text.replace(f'content="{csp}"', f'content="{csp}{allow}"')
    probed = probed.replace("<head>", f"<head><script>{_PROBE}</script>", 1)
    copy = workdir / f"probed-{page.name}"
    copy.write_text(probed, encoding="utf-8")
    done = _run_chromium(binary, ["--enable-logging=stderr", "--v=0",
                                  "--virtual-time-budget=15000", "--dump-dom",
                                  copy.resolve().as_uri()], workdir)
    match = re.search(r'<pre id="attnio-probe">(.*?)</pre>', done.stdout, re.S)
    probe = (json.loads(html.unescape(match.group(1))) if match else
             {"errors": [f"probe did not report (chromium exit {done.returncode})"]})
    console = [m.group(1)[:300] for m in map(_CONSOLE_LINE.search, done.stderr.splitlines()) if m]
    return BrowserResult(probe, console)


def screenshot(binary: str, page: Path, target: Path, workdir: Path,
               size: tuple[int, int] = (1280, 3200)) -> "object":
    """Screenshot ``page`` (unmodified) into ``target``; return the pixels (numpy RGB)."""
    from matplotlib.image import imread

    done = _run_chromium(binary, [f"--screenshot={target}", f"--window-size={size[0]},{size[1]}",
                                  "--virtual-time-budget=15000", page.resolve().as_uri()],
                         workdir)
    assert target.is_file(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    pixels = imread(target)
    assert pixels.shape[:2] == (size[1], size[0]), pixels.shape
    return pixels[..., :3]


def _colourful_fraction(pixels: "object") -> float:
    """Share of pixels that are clearly coloured (the figures), not grey text or background."""
    import numpy as np

    rgb = np.asarray(pixels, dtype=float)
    spread = rgb.max(axis=-1) - rgb.min(axis=-1)
    return float((spread > 0.25).mean())


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_html_report_renders_in_chromium_without_errors(chromium: str, html_report: Path,
                                                        tmp_path: Path) -> None:
    seen = render_in_chromium(chromium, html_report, tmp_path)
    assert seen.problems(FIGURES) == []
    assert all(i["naturalWidth"] >= 400 for i in seen.probe["images"])
    pixels = screenshot(chromium, html_report, tmp_path / "report.png", tmp_path)
    coloured = _colourful_fraction(pixels)
    assert coloured > 0.02, f"the screenshot shows no figures ({coloured:.4f} coloured)"


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_chromium_check_rejects_a_broken_page(chromium: str, html_report: Path,
                                              tmp_path: Path) -> None:
    """Planted false twin: a corrupt image, an external image and a script must be caught."""
    page = html_report.read_text(encoding="utf-8")
    first = page.index('src="data:image/png;base64,') + len('src="')
    end = page.index('"', first)
    broken = page[:first] + "data:image/png;base64,iVBORw0KGgoAAAA" + page[end:]
    broken = broken.replace("</body>", '<img src="https://example.invalid/x.png" '
                            'data-figure="external"><script>console.error("planted")</script>'
                            "</body>")
    twin = tmp_path / "broken.html"
    twin.write_text(broken, encoding="utf-8")
    problems = render_in_chromium(chromium, twin, tmp_path).problems(FIGURES)
    joined = "\n".join(problems)
    assert "image phase_diagram.png not decoded" in joined, joined
    assert "example.invalid" in joined, joined          # CSP blocked the external image
    assert "script-src" in joined or "inline script" in joined.lower(), joined
    assert "images [" in joined  # the extra image is not one of the figures


@pytest.mark.extra("plots")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_screenshot_check_rejects_a_page_without_figures(chromium: str, html_report: Path,
                                                         tmp_path: Path) -> None:
    """Planted false twin: the same page with its figures removed shows no colour."""
    page = html_report.read_text(encoding="utf-8")
    stripped = re.sub(r"<figure>.*?</figure>", "", page, flags=re.S)
    twin = tmp_path / "no-figures.html"
    twin.write_text(stripped, encoding="utf-8")
    pixels = screenshot(chromium, twin, tmp_path / "no-figures.png", tmp_path)
    assert _colourful_fraction(pixels) < 0.005


def test_report_html_needs_a_fresh_or_attnio_folder_too(tmp_path: Path, capsys) -> None:
    out = tmp_path / "shared"
    out.mkdir()
    (out / "index.html").write_text("<p>someone's page</p>")
    assert main(["report", str(out), "--html", "--quick", "--n", "64", "--d", "8"]) == 2
    assert "holds no attnio marker" in capsys.readouterr().err
    assert (out / "index.html").read_text() == "<p>someone's page</p>"
