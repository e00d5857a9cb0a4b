"""Θ-rows with constant 1 are marked asymptotic, never certified (issue 35, item 4).

`attnio bounds --n 10 --d 161 --M 162` evaluates ``bwd.small.lower`` (and ``bwd.tight``) with
constant 1 at 21,630 words, above the 20,360 words small-cache-fused moves there: no theorem
is false (the rows are Θ/Ω statements), but a table that printed it as plain "lower" would
read as a refuted bound. Every table marks such a row asymptotic and names the
explicit-constant row beside it (the catalogue's ``explicit_id``), the certified one.
"""

from __future__ import annotations

import json

import pytest

from attnio.algorithms.simulation import count
from attnio.cli import main
from attnio.reporting.sections import bound_table
from attnio.symbolic.catalogue import CATALOGUE, get_bound

ARGS = ["bounds", "--n", "10", "--d", "161", "--M", "162"]


def _row(text: str, bid: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(bid + " "))


def test_the_issue_example_reads_as_asymptotic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--wide"]) == 0
    text = capsys.readouterr().out
    for bid in ("bwd.small.lower", "bwd.tight"):
        line = _row(text, bid)
        assert "asymptotic" in line and "→ bwd.trivial.lower" in line, line
        assert "21,630" in line or "2.16304e+04" in line
    assert "Ω asymptotic" in _row(text, "bwd.small.lower")
    assert "Θ asymptotic" in _row(text, "bwd.tight")
    explicit = _row(text, "bwd.trivial.lower")
    assert "asymptotic" not in explicit and " yes " in explicit
    assert "its value is no bound at this instance" in text


def test_the_json_says_which_rows_are_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--json"]) == 0
    entries = {b["id"]: b for b in json.loads(capsys.readouterr().out)["bounds"]}
    small = entries["bwd.small.lower"]
    # the reason the mark matters: the constant-1 value lies above an executed count
    assert float(small["value_float"]) > count("small-cache-fused", "backward", 10, 161, 162).io
    assert small["asymptotic"] and not small["is_bound_here"]
    assert small["explicit_id"] == "bwd.trivial.lower"
    assert entries["bwd.tight"]["explicit_id"] == "bwd.trivial.lower"
    assert not entries["bwd.tight"]["is_bound_here"]
    for bid, entry in entries.items():
        bound = get_bound(bid)
        assert entry["explicit_id"] == bound.explicit_id
        assert entry["is_bound_here"] == (bound.kind == "lower" and not bound.asymptotic
                                          and entry["in_range"])
        if entry["explicit_id"]:
            assert entries[entry["explicit_id"]]["asymptotic"] is False


def test_every_asymptotic_lower_row_names_its_certified_neighbour(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--wide"]) == 0
    text = capsys.readouterr().out
    for bound in CATALOGUE:
        line = _row(text, bound.id)
        if bound.asymptotic:
            assert "asymptotic" in line, line
        if bound.asymptotic and bound.kind != "upper":
            assert (f"→ {bound.explicit_id}" if bound.explicit_id else " none ") in line, line


def test_the_report_table_marks_them_too() -> None:
    rows, _ = bound_table(10, 161, [162])
    kinds = {r.id: r.kind for r in rows}
    assert "asymptotic" in kinds["bwd.small.lower"]
    assert "certified: bwd.trivial.lower" in kinds["bwd.small.lower"]
    assert "asymptotic" not in kinds["bwd.trivial.lower"]
