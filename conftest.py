"""Optional extras in the tests (the rules hold for tests/ and the doctests of attnio/).

A test marked ``@pytest.mark.extra("parallel")`` (or a module with
``pytestmark = pytest.mark.extra(...)``) needs that extra of pyproject.toml (its modules:
:data:`attnio.extras.EXTRAS`). Without it the test is skipped, the reason naming the extra and
the install command — except with ``CI=true`` (.ci/run installs every extra), where it fails:
CI never passes by skipping. A doctest cannot carry a marker: one that stops on a missing
module of an extra is treated the same way.
"""

from __future__ import annotations

import doctest
import json
import os
import sys
from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

from attnio.exceptions import MissingExtraError
from attnio.extras import EXTRAS, missing, missing_core


def pytest_configure(config: pytest.Config) -> None:
    """A Python without attnio's core dependencies (attnio never installed in it) stops the
    run with one line and the install command, before collection — not one import error per
    module."""
    absent = missing_core()
    if absent:
        pytest.exit(f"attnio's core dependencies are not installed in {sys.executable} "
                    f"({', '.join(absent)}): run python3 -m pip install -e '.[test]' first "
                    "(README, Quickstart)", returncode=4)


#: The tiers' measured times (benchmarks/test_tiers.py writes it).
TIER_TIMES = Path(__file__).resolve().parent / "tests" / "tier_times.json"


def _minutes(seconds: object) -> str:
    return f"{float(seconds) / 60:.1f}" if isinstance(seconds, (int, float)) else "?"  # type: ignore[arg-type]


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The first lines of every run: how long the tier takes and how to run a part of it."""
    try:
        times = json.loads(TIER_TIMES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        times = {}
    default, slow = times.get("default", {}), times.get("slow", {})
    when = default.get("date", "not yet")
    cores = default.get("cores", "?")
    return [
        f"attnio tiers (measured {when}, {cores} cores; benchmarks/test_tiers.py): default "
        f"~{_minutes(default.get('wall_s'))} min wall, {_minutes(default.get('cpu_s'))} CPU-min; "
        f"--runslow adds ~{_minutes(slow.get('cpu_s'))} CPU-min (`-m slow`: that part alone)",
        *([f"  ({default['note']})"] if default.get("note") else []),
        "a part: python -m pytest tests/<room>/ (smt symbolic graphs algorithms bounds proofs "
        "reporting commands), -k WORD, -m trust (the trusted core, ~1 min); -n 0 runs serially",
    ]


def require_extra(extra: str) -> None:
    """Skip the running test unless ``extra`` is installed; with ``CI=true``, fail instead."""
    absent = missing(extra)
    if not absent:
        return
    message = (f"needs the {extra} extra ({', '.join(absent)} not installed): "
               f"pip install -e '.[{extra}]'")
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {message}: every test must run in CI", pytrace=False)
    pytest.skip(message)


@pytest.hookimpl(tryfirst=True)  # before fixtures are set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("extra"):
        for extra in mark.args:
            require_extra(extra)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A doctest (no marker can be written in a docstring) that stops on a module of an extra
    not installed — e.g. a figure's example without matplotlib — is :func:`require_extra`'s
    skip, or its failure in CI. Only doctests, and only ``ModuleNotFoundError`` of a module
    :data:`attnio.extras.EXTRAS` names or attnio's own ``MissingExtraError`` naming one (a
    library call that needs the extra): any other error is the doctest's failure."""
    try:
        return (yield)
    except doctest.UnexpectedException as failure:
        error = failure.exc_info[1]
        name = getattr(error, "name", None) or ""
        if isinstance(item, DoctestItem) and isinstance(error, (ModuleNotFoundError,
                                                                MissingExtraError)):
            for extra, modules in EXTRAS.items():
                if name.split(".")[0] in modules:
                    require_extra(extra)
        raise
