"""Tests of ``attnio verify`` (attnio.commands.verify) through attnio.cli.main: exit codes, JSON.

The full default run is done ONCE per module (fixture) and shared by the assertions.
"""

from __future__ import annotations

import json

import pytest

from attnio.cli import main


@pytest.fixture(scope="module")
def full_run():
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["verify", "--json"])
    return code, json.loads(out.getvalue())


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_default_run_has_at_least_40_claims(full_run) -> None:
    _, doc = full_run
    assert len(doc["claims"]) >= 40


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_default_run_is_all_proved(full_run) -> None:
    _, doc = full_run
    assert [(c["id"], c["detail"]) for c in doc["claims"] if c["verdict"] != "proved"] == []


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_exit_code_is_0_exactly_when_all_proved(full_run) -> None:
    code, doc = full_run
    s = doc["summary"]
    assert (code == 0) == (s["proved"] == len(doc["claims"]) and s["refuted"] == 0
                           and s["undecided"] == 0)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_json_schema(full_run) -> None:
    _, doc = full_run
    assert set(doc) == {"command", "verdict", "claims", "summary", "evidence", "time_limit",
                        "attnio_version", "versions"}
    assert doc["command"] == "verify" and doc["time_limit"] is None
    assert (doc["verdict"] == "proved") == (doc["summary"]["proved"] == len(doc["claims"]))
    assert set(doc["summary"]) == {"proved", "refuted", "undecided"}
    for row in doc["claims"]:
        assert {"id", "statement", "source", "method", "verdict", "seconds", "detail"} <= set(row)
        assert isinstance(row["seconds"], float)


def test_only_matching_nothing_is_exit_2_one_line(capsys) -> None:
    assert main(["verify", "--only", "no-such-claim-xyz"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-claim-xyz" in err[0]


def test_bad_timeout_is_exit_2(capsys) -> None:
    assert main(["verify", "--solver-time-limit", "0"]) == 2
    assert "--solver-time-limit='0' must be a finite number of seconds > 0" \
        in capsys.readouterr().err


def test_table_and_glob(capsys) -> None:
    assert main(["verify", "--only", "fwd.tight.*"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["id", "source", "evidence", "verdict"]  # 100 columns
    assert main(["verify", "--only", "fwd.tight.*", "--wide"]) == 0
    wide = capsys.readouterr().out
    assert wide.splitlines()[0].split() == ["id", "source", "evidence", "verdict", "seconds"]
    assert "fwd.tight.first_branch" in out and "bwd.tight" not in out
    assert "5 proved, 0 refuted, 0 undecided of 5 claims" in out


def test_self_test_exit_0_and_coverage(capsys) -> None:
    assert main(["verify", "--self-test", "--only", "low.*"]) == 0
    out = capsys.readouterr().out
    assert "coverage lower_order:" in out and "NOT ALL REFUTED" not in out
    assert "self-test: 9/9 false twins refuted" in out


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_self_test_json(capsys) -> None:
    assert main(["verify", "--self-test", "--json", "--only", "cmp.*"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["refuted"] == len(doc["claims"]) > 0
    assert doc["self_test"]["all_refuted"] is True and doc["verdict"] == "proved"


def test_tiny_timeout_gives_exit_1_never_a_pass(capsys) -> None:
    # One hard nonlinear claim at 1 ms: Undecided, so the run fails (exit 1).
    code = main(["verify", "--json", "--solver-time-limit", "0.001", "--only",
                 "sy.lemma33.rows_cols"])
    doc = json.loads(capsys.readouterr().out)
    verdicts = {c["verdict"] for c in doc["claims"]}
    assert "refuted" not in verdicts
    assert (code == 1) == ("undecided" in verdicts)


@pytest.fixture(scope="module")
def full_self_test():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["verify", "--self-test", "--json"])
    return code, json.loads(out.getvalue())


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_every_false_twin_is_refuted_and_every_family_covered(full_self_test) -> None:
    code, doc = full_self_test
    assert [(c["id"], c["verdict"]) for c in doc["claims"] if not c["rejected"]] == []
    # a twin not refuted is one that declared its Undecided path (issue 20), never another
    assert [c["id"] for c in doc["claims"] if c["verdict"] != "refuted"] == \
        [c["id"] for c in doc["claims"] if c["expect"] == "undecided"]
    assert {c["verdict"] for c in doc["claims"] if c["expect"] == "undecided"} == {"undecided"}
    assert len(doc["claims"]) >= 30 and code == 0
    coverage = doc["self_test"]["coverage"]
    assert [f for f, row in coverage.items() if row["claims"] and not row["twins"]] == []


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_python_m_runs_one_claim_module() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "attnio.proofs.forward_branches"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert sum(line.startswith("proved ") for line in lines) == 7   # large_lower: issue 20
    assert sum(line.startswith("rejected ") for line in lines) == 5


@pytest.mark.extra("parallel")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_verify_on_dask_gives_the_serial_verdicts_in_order(capsys) -> None:
    """issue 14: verify --workers N runs the claims on a LocalCluster; same verdicts, order."""
    only = "bwd.tight.*,sym.crossover.*"
    assert main(["verify", "--only", only, "--json"]) == 0
    serial = json.loads(capsys.readouterr().out)["claims"]
    assert main(["verify", "--only", only, "--json", "--workers", "2"]) == 0
    parallel = json.loads(capsys.readouterr().out)["claims"]
    assert [(c["id"], c["verdict"], c["evidence"]) for c in parallel] == \
        [(c["id"], c["verdict"], c["evidence"]) for c in serial]
    assert main(["verify", "--self-test", "--only", "bwd.tight.*", "--workers", "2"]) == 0
    capsys.readouterr()
