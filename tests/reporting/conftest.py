"""Shared checks for the figure tests of attnio.reporting (a fixture, so that every test
module reads the drawn axes the same way)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path: Path) -> bool:
    """A real PNG of some substance (not an empty canvas)."""
    return path.is_file() and path.stat().st_size > 5_000 and path.read_bytes()[:8] == PNG_MAGIC


def _vertical_lines_at(ax) -> set[float]:
    """x positions of the vertical lines (axvline) of an axes."""
    xs = set()
    for line in ax.get_lines():
        xdata = list(line.get_xdata())
        if len(xdata) == 2 and xdata[0] == xdata[1]:
            xs.add(float(xdata[0]))
    return xs


def _legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "every panel needs a legend"
    return [t.get_text() for t in legend.get_texts()]


@pytest.fixture
def figure_checks() -> SimpleNamespace:
    """``is_png(path)``, ``vertical_lines_at(ax)``, ``legend_texts(ax)``."""
    return SimpleNamespace(is_png=_is_png, vertical_lines_at=_vertical_lines_at,
                           legend_texts=_legend_texts)


@pytest.fixture
def cheap_report(monkeypatch: pytest.MonkeyPatch):
    """Make ``write_report`` cheap for tests about the report's machinery (stages, exit codes,
    the marker, reruns) rather than its content: every figure but those named in ``keep`` is a
    small placeholder under its real file name, and ``claims`` (default: two trivial Proved
    claims) replace the catalogue. The content is tested once, by the shared quick report.

    Call as ``cheap_report(keep=("sandwich.png",), claims=[...])``.
    """
    import dataclasses

    import attnio.proofs.registry
    import attnio.reporting.report as report
    from attnio.proofs.registry import Claim
    from attnio.reporting.report_figures import _no_figure
    from attnio.results import Proved

    def stub(spec):
        return dataclasses.replace(
            spec, draw=lambda ctx: (_no_figure(f"placeholder for {spec.title}"), []))

    def apply(keep: tuple[str, ...] = (), claims: list | None = None) -> None:
        monkeypatch.setattr(report, "FIGURES", tuple(
            spec if spec.filename in keep else stub(spec) for spec in report.FIGURES))
        if claims is None:
            claims = [Claim(f"planted.ok{i}", "true", "true", "test", "z3 NRA (planted)",
                            "planted", lambda ctx: Proved("yes")) for i in range(2)]
        monkeypatch.setattr(attnio.proofs.registry, "load_claims", lambda: claims)

    return apply
