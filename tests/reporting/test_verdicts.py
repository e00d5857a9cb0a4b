"""Tests of attnio.reporting.verdicts: the verdict table and the ``verify --json`` document
(rendered above the library, issue 40; the runner's tests: tests/proofs/test_runner.py)."""

from __future__ import annotations

from attnio.proofs.registry import Claim
from attnio.proofs.runner import run_claims
from attnio.reporting.verdicts import format_table, to_json
from attnio.results import Proved, Refuted


def _c(cid: str, verdict) -> Claim:
    return Claim(id=cid, statement=f"statement of {cid}", formal="f", source="src",
                 method="python", family="alpha", check_fn=lambda ctx: verdict)


CLAIMS = [_c("a.one", Proved("p"))]


def test_json_schema() -> None:
    results = run_claims([CLAIMS[0], _c("r", Refuted({"M": 1}, "no"))],
                         show_progress=False)
    doc = to_json(results)
    assert set(doc) == {"command", "verdict", "claims", "summary", "evidence",
                        "attnio_version", "versions"}
    assert doc["command"] == "verify" and doc["verdict"] == "refuted"
    assert doc["summary"] == {"proved": 1, "refuted": 1, "undecided": 0}
    for row in doc["claims"]:
        assert {"id", "statement", "source", "method", "verdict", "seconds", "detail"} <= set(row)
    assert doc["claims"][1]["counterexample"] == {"M": 1}


def test_table_has_the_five_columns() -> None:
    table = format_table(run_claims(CLAIMS[:1], show_progress=False))
    header = table.splitlines()[0].split()
    assert header == ["id", "source", "evidence", "verdict", "seconds"]
