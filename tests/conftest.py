"""Test tiers: the default tier is fast (its measured time: tests/tier_times.json, printed at
the start of every run); ``--runslow`` adds the exhaustive searches, long sweeps and the rest of
the large tables, marked ``@pytest.mark.slow`` or sliced by ``@pytest.mark.default_slice(k)``.

Optional extras (the marker ``extra``) are handled in the repository's root conftest.py, which
also covers the doctests of attnio/.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# tests/ is no package (pytest's importlib mode): its shared helper modules (rule_evaluators.py)
# are imported by name from here.
sys.path.insert(0, str(Path(__file__).resolve().parent))

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


#: Single cases of parametrized tests that each took >= 1 s on an idle 2-core machine
#: (``pytest --durations=0``, 2026-12-06, issue 40) while the rest of their table is fast: they
#: run in the ``--runslow`` tier (a whole slow function carries ``@pytest.mark.slow`` instead).
#: A listed id that no longer exists is reported by tests/test_tiers.py.
HEAVY_CASES: frozenset[str] = frozenset({
    "tests/proofs/test_algorithm_counts.py::test_claims_proved_with_counted_instances[cmp.executed.fused_vs_flash1]",
    "tests/proofs/test_algorithm_counts.py::test_claims_proved_with_counted_instances[cnt.alg6_fused.backward]",
    "tests/proofs/test_attention_routes.py::test_claims_proved_and_twins_rejected_on_their_path[gap.below_algorithms]",
    "tests/proofs/test_joint_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_cell]",
    "tests/proofs/test_joint_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_cube]",
    "tests/proofs/test_joint_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_face_algebra_given_scores]",
    "tests/proofs/test_joint_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_face_algebra_recompute]",
    "tests/proofs/test_joint_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_superadditive]",
    "tests/proofs/test_joint_routes.py::test_claims_proved_and_twins_rejected_on_their_path[gap.joint_cap]",
    "tests/proofs/test_lower_bound_steps.py::test_claim_is_proved[hk.cor62.chain]",
    "tests/proofs/test_lower_bound_steps.py::test_false_twin_is_refuted[hk.cor62.chain.twin_weak_sum]",
    "tests/proofs/test_lower_bound_steps.py::test_false_twin_is_refuted[hk.cor62.chain.twin_without_slice]",
    "tests/proofs/test_partition_lemmas.py::test_claims_proved_and_twins_rejected_on_their_path[partlemma.twin.matmul_beta_k]",
    "tests/proofs/test_verdict_honesty.py::test_planted_false_per_part_constants_are_refuted[partlemma.twin.matmul_beta_k]",
    "tests/smt/test_explog.py::test_what_the_fragment_decides[2**x >= 1 + x*log(2)-domains7-Proved]",
    "tests/smt/test_heldout_explog.py::test_heldout_statement[proved:Eq(exp(x - y), exp(x)/exp(y))]",
    "tests/smt/test_heldout_explog.py::test_heldout_statement[proved:Eq(floor(floor(n/a)/b), floor(n/(a*b)))]",
    "tests/smt/test_heldout_explog.py::test_heldout_statement[proved:ceiling(a/b) <= a]",
    "tests/test_glossary.py::test_every_printed_column_is_in_the_glossary[gap1]",
    "tests/test_input_files.py::test_a_fifo_with_no_writer_is_refused_at_once[pebble-args3]",
    "tests/test_input_files.py::test_a_fifo_with_no_writer_is_refused_at_once[pebble-args4]",
    "tests/test_terminal_tables.py::test_every_table_fits_a_terminal_unless_wide[lower-bound]",
    "tests/test_terminal_tables.py::test_every_table_fits_a_terminal_unless_wide[simulate-execute]",
    "tests/test_terminal_tables.py::test_every_table_fits_a_terminal_unless_wide[verify-self-test]",
    "tests/test_terminal_tables.py::test_latex_fits_a_plain_article[simulate-execute]",
})


def default_slice(count: int, keep: int) -> set[int]:
    """The indices of ``keep`` cases of a ``count``-case table spread evenly over it (the
    first and the last included): the default tier's representative slice.

    >>> sorted(default_slice(10, 4)), sorted(default_slice(3, 5))
    ([0, 3, 6, 9], [0, 1, 2])
    """
    if keep >= count:
        return set(range(count))
    if keep <= 1:
        return {0}
    return {round(i * (count - 1) / (keep - 1)) for i in range(keep)}


@pytest.hookimpl(tryfirst=True)  # before `-m slow` selects: the slow mark must be on by then
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A table marked ``@pytest.mark.default_slice(k)`` keeps ``k`` evenly spread cases in the
    default tier; the rest are marked ``slow`` (``--runslow`` runs the whole table, ``-m slow``
    the rest alone). Then, without ``--runslow``, every ``slow`` test is skipped."""
    tables: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        # the trust tier runs whole (`-m trust`): a trust test is never sliced
        if (item.get_closest_marker("default_slice") is not None
                and item.get_closest_marker("trust") is None):
            key = (str(item.path), getattr(item, "originalname", item.name))
            tables.setdefault(key, []).append(item)
    for cases in tables.values():
        keep = cases[0].get_closest_marker("default_slice").args[0]
        kept = default_slice(len(cases), keep)
        for index, item in enumerate(cases):
            if index not in kept:
                item.add_marker(pytest.mark.slow)
    for item in items:
        if item.nodeid in HEAVY_CASES and item.get_closest_marker("trust") is None:
            item.add_marker(pytest.mark.slow)
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow tier: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)



@pytest.fixture(autouse=True)
def _fresh_sympy_cache_under_mutation() -> None:
    """Under benchmarks/mutation.py (mutmut sets MUTANT_UNDER_TEST) every test starts with an
    empty sympy cache: mutmut forks each mutant's run from a process that already ran the
    unmutated tests, and sympy's global cache would hand the mutant the original's results
    (a mutant of ``as_written`` survived because ``Xor.args`` came from the cache)."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        from sympy.core.cache import clear_cache

        clear_cache()


def _wait_for_cpu_seconds(pid: int, seconds: float, timeout: float = 300.0) -> None:
    """Until process ``pid`` has used ``seconds`` of CPU (Linux /proc; elsewhere 2x the wall
    time): a child is "at work" by what it has done, not by how long it has existed, which
    load stretches."""
    stat = Path(f"/proc/{pid}/stat")
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if not stat.exists():
            time.sleep(2 * seconds)
            return
        fields = stat.read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= seconds:
            return
        time.sleep(0.1)
    raise AssertionError(f"pid {pid} did not reach {seconds} s of CPU in {timeout} s")


@pytest.fixture
def wait_for_cpu_seconds():
    """:func:`_wait_for_cpu_seconds`, for tests that signal a child once it is at work."""
    return _wait_for_cpu_seconds


# ``coqc`` for the Coq tests (tests/smt/test_coq.py, tests/proofs/test_coq_kernel.py). Coq is
# Debian's ``coq`` package (``.ci/run`` installs it with apt-get). Without ``coqc`` the tests that
# run it are skipped locally, naming Coq, but **fail** when ``CI=true``: in CI they must run.

def require_coqc() -> str:
    """The coqc binary; skip without it, but fail when ``CI=true`` (CI must run it)."""
    from attnio.smt.coqc import coqc_binary

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
