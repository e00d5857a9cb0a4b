"""The equivalent-mutant lists of ``benchmarks/mutation_equivalents/`` stay tied to the code.

Each entry says a mutant of a trusted module is equivalent, keyed by the lines it changes. An
entry whose removed lines no longer occur in its module is stale: it excuses nothing today and
would hide a real survivor if the old line came back changed. ``benchmarks/mutation.py`` only
sees that for the mutants a run samples; this test sees it for every entry."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTS = ROOT / "benchmarks" / "mutation_equivalents"


def _entries() -> list[tuple[str, dict]]:
    return [(path.name, entry) for path in sorted(LISTS.glob("*.toml"))
            for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", [])]


def _stale(entry: dict) -> bool:
    source = (ROOT / entry["module"]).read_text(encoding="utf-8")
    removed = [line[1:].strip() for line in entry["diff"].splitlines() if line.startswith("-")]
    return not all(line in source for line in removed)


def test_every_entry_names_a_line_of_its_module_and_gives_a_reason() -> None:
    entries = _entries()
    assert len(entries) >= 100, len(entries)
    stale = [(name, e["function"], e["diff"].splitlines()[0]) for name, e in entries if _stale(e)]
    assert stale == [], stale
    for name, e in entries:
        assert set(e) >= {"module", "function", "diff", "reason"}, (name, e)
        assert e["reason"].strip() and (ROOT / e["module"]).is_file(), (name, e)


def test_planted_a_stale_entry_is_seen() -> None:
    planted = {"module": "smt/kernel.py", "function": "_search",
               "diff": "-return 'a line that is not in the module'\n+return None",
               "reason": "planted"}
    assert _stale(planted)
    honest = {**planted, "diff": "-def prove_statement(\n+def prove_statement("}
    assert not _stale(honest)
