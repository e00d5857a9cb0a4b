"""lower-bound's default output summarises long certificates (issue 34 item 6)."""

from __future__ import annotations

import json

import pytest

from attnio.cli import main
from attnio.commands.lower_bound import summarise_fields


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_no_certificate_is_printed_cut_off(capsys) -> None:
    assert main(["lower-bound", "--builtin", "matmul:2x2x2", "--M", "4"]) == 0
    out = capsys.readouterr().out
    assert '{"' not in out and "sub-DAG optima" in out and "(the whole certificate: --json)" in out
    assert main(["lower-bound", "--builtin", "matmul:2x2x2", "--M", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lp = [b for b in doc["bounds"] if b["route"] == "sub-dag-lp"][0]
    assert len(lp["certificate"]["members"]) == 4  # the whole certificate is in --json


def test_a_field_summary_never_cuts_a_number_or_a_name() -> None:
    text = summarise_fields({"value": 10 ** 40, "route_name": "a" * 31, "U": [1] * 9,
                             "cert": {"x": 1}})
    assert text == ("value: 41 digits; route_name: 31 characters; U: 9 items; cert: 1 fields "
                    "(the whole certificate: --json)")
