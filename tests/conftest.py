"""Test tiers: the default tier is fast (< 10 min on 2 cores); ``--runslow`` adds the
exhaustive searches and long sweeps marked ``@pytest.mark.slow``.

Optional extras: a test marked ``@pytest.mark.extra("parallel")`` (or a module with
``pytestmark = pytest.mark.extra(...)``) needs that extra of pyproject.toml (modules:
:data:`attnio.extras.EXTRAS`). Without it the test is skipped, the reason naming the extra and
the install command — except with ``CI=true`` (.ci/run installs every extra), where it fails:
CI never passes by skipping.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from attnio.extras import missing

# Hypothesis: deterministic in CI (derandomize) and bounded, so the default tier stays fast.
settings.register_profile(
    "attnio",
    max_examples=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "attnio"))

# Progress bars off in tests unless asked for.
os.environ.setdefault("ATTNIO_PROGRESS", "0")
# Headless plotting.
os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="run slow tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow tier: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


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


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("extra"):
        for extra in mark.args:
            require_extra(extra)


@pytest.fixture(autouse=True)
def _fresh_sympy_cache_under_mutation() -> None:
    """Under benchmarks/mutation.py (mutmut sets MUTANT_UNDER_TEST) every test starts with an
    empty sympy cache: mutmut forks each mutant's run from a process that already ran the
    unmutated tests, and sympy's global cache would hand the mutant the original's results
    (a mutant of ``as_written`` survived because ``Xor.args`` came from the cache)."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        from sympy.core.cache import clear_cache

        clear_cache()

