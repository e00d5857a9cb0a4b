"""Fixtures of the proof tests: ``coqc`` for the Coq kernel's tests.

Coq is Debian's ``coq`` package (``.ci/run`` installs it with apt-get). Without ``coqc`` the
tests that run it are skipped locally, naming Coq, but **fail** when ``CI=true``: in CI they
must run (the pattern of ``tests/reporting/test_report_html.py`` for Chromium).
"""

from __future__ import annotations

import os

import pytest

from attnio.smt.coqc import coqc_binary


def require_coqc() -> str:
    """The coqc binary; skip without it, but fail when ``CI=true`` (CI must run it)."""
    binary = coqc_binary()
    if binary is None:
        message = "coqc not found (Coq: Debian package `coq`; .ci/run installs it with apt-get)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {message}: the Coq kernel's tests must run in CI",
                        pytrace=False)
        pytest.skip(message)
    return binary


@pytest.fixture(scope="session")
def coqc() -> str:
    return require_coqc()
