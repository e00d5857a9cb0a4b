"""The glossary defines every column a command prints (issue 34, item 4: one meaning per word)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.glossary import GLOSSARY, glossary_markdown, lookup

NOTES = Path(__file__).resolve().parents[1] / "notes" / "glossary.md"

COMMANDS = [
    ["advise", "--n", "256", "--d", "16", "--device", "h100", "--mask", "causal", "--heads", "2"],
    ["gap", "--n", "256", "--d", "16", "--M", "64,1024", "--dtype", "bf16"],
    ["simulate", "--n", "64", "--d", "8", "--M", "64,256", "--mask", "causal"],
    ["simulate", "--n", "32", "--d", "4", "--M", "64", "--algorithm", "flash1", "--execute"],
    ["bounds", "--n", "256", "--d", "16", "--device", "a100", "--heads", "4", "--kv-heads", "2"],
    ["pebble", "--builtin", "matmul:2x2x2", "--M", "3:4", "--table"],
    ["verify", "--only", "bwd.tight", "--self-test"],
    ["lower-bound", "--builtin", "matmul:1x2x1", "--M", "3"],
]


def _headers(text: str) -> list[str]:
    """The column titles of every tabulate ``simple`` table in ``text``."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if i and re.fullmatch(r"-+( {2}-+)*", line):
            out += [lines[i - 1][a:b].strip() for a, b in
                    (m.span() for m in re.finditer(r"-+", line))]
    return [h for h in out if h]


@pytest.mark.parametrize("argv", COMMANDS, ids=[a[0] + str(i) for i, a in enumerate(COMMANDS)])
def test_every_printed_column_is_in_the_glossary(argv: list[str], capsys) -> None:
    assert main(argv) in (0, 1)
    headers = _headers(capsys.readouterr().out)
    assert headers, argv
    assert [h for h in headers if lookup(h) is None] == []


def test_a_made_up_column_is_not(capsys) -> None:
    """The false twin: the checker finds a header the glossary does not define."""
    assert lookup("frobnication ratio") is None
    assert _headers("x    frobnication ratio\n---  ------------------\n1    2\n") == \
        ["x", "frobnication ratio"]


def test_notes_glossary_is_the_generated_text() -> None:
    assert NOTES.read_text(encoding="utf-8") == glossary_markdown()


def test_explain_cli(capsys) -> None:
    assert main(["explain", "IO/LB"]) == 0
    assert "certified lower bound" in capsys.readouterr().out
    assert main(["explain", "frobnication"]) == 2
    assert "not in the glossary" in capsys.readouterr().err
    assert main(["explain"]) == 0
    assert capsys.readouterr().out.splitlines() == sorted(GLOSSARY, key=str.lower)
