"""attnio.reporting.sections: the bound table is the catalogue's one evaluation, and
``attnio bounds`` and ``attnio report`` print the same value for every bound."""

from __future__ import annotations

import json
import re

import sympy as sp

from attnio.cli import main
from attnio.reporting.sections import bound_table, bound_table_markdown, fmt_value
from attnio.tables import number_cell

N, D, M = 4096, 64, 2048  # the shared instance of issue 12


def test_bound_table_is_the_catalogue_evaluated_exactly() -> None:
    from attnio.symbolic.catalogue import CATALOGUE, get_bound
    from attnio.symbolic.symbols import d

    n_, d_, Ms = 256, 16, [64, 256, 1024]
    rows, crossovers = bound_table(n_, d_, Ms)
    assert [r.id for r in rows] == [b.id for b in CATALOGUE]
    tight = next(r for r in rows if r.id == "bwd.tight")
    for M, value in zip(Ms, tight.values):
        at = {"n": n_, "d": d_, "M": M}
        expected = min(get_bound("bwd.large.upper").evaluate(check_range=False, **at),
                       get_bound("bwd.small.upper").evaluate(check_range=False, **at))
        assert sp.simplify(value - expected) == 0
    # Outside the admissible range there is no value (not a made-up one).
    large_lower = next(r for r in rows if r.id == "bwd.large.lower")
    assert large_lower.values[0] is None and large_lower.values[2] is not None
    assert sp.simplify(crossovers["bwd.tight"] - d**2) == 0


def test_report_bound_table_equals_attnio_bounds_json(capsys) -> None:
    """One instance for both (Z_in = n d, Z_QK = n²): every bound has the same exact value."""
    n_, d_, M_ = 4096, 64, 2048
    assert main(["bounds", "--n", str(n_), "--d", str(d_), "--M", str(M_), "--json"]) == 0
    from_cli = {b["id"]: b for b in json.loads(capsys.readouterr().out)["bounds"]}
    rows, _ = bound_table(n_, d_, [M_])
    assert [r.id for r in rows] == list(from_cli)
    for row in rows:
        entry = from_cli[row.id]
        if entry["in_range"]:
            assert row.values[0] is not None, row.id
            assert sp.simplify(row.values[0] - sp.sympify(entry["value"])) == 0, row.id
        else:
            assert row.values[0] is None, row.id
    assert from_cli["sparse.lower"]["in_range"]  # the entry whose instance used to differ


def _bounds_printed(capsys) -> dict[str, str]:
    """id -> value cell of the table `attnio bounds` prints (``--wide``: one line per bound)."""
    assert main(["bounds", "--n", str(N), "--d", str(D), "--M", str(M), "--wide"]) == 0
    out = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(out) if line.split()[:3] == ["id", "kind", "value"])
    cells = {}
    for line in out[start + 2:]:
        if not line.strip():
            break
        words = [w for w in line.split() if w != "†"]     # † marks another computation
        if len(words) > 3 and words[2] == "asymptotic":    # the kind "Θ asymptotic" (issue 35)
            words = [words[0], " ".join(words[1:3]), *words[3:]]
        ident, _kind, value = words[:3]
        cells[ident] = value
    return cells


def _report_printed() -> dict[str, str]:
    """id -> value cell of the bound table `attnio report` writes into index.md."""
    cells = {}
    for line in bound_table_markdown(N, D, [M]).splitlines():
        match = re.match(r"\|\s*`([^`]+)`\s*\|.*\|\s*(\S+)\s*\|$", line)
        if match:
            cells[match.group(1)] = match.group(2)
    return cells


def test_bounds_and_report_print_the_same_value_for_every_bound(capsys) -> None:
    from attnio.symbolic.catalogue import CATALOGUE

    printed_by_bounds, printed_by_report = _bounds_printed(capsys), _report_printed()
    assert list(printed_by_bounds) == list(printed_by_report) == [b.id for b in CATALOGUE]
    assert printed_by_bounds == printed_by_report
    assert printed_by_report["sparse.lower"] == number_cell(16777216 * sp.sqrt(2))  # 2.37266e+07
    assert printed_by_report["bwd.large.upper"].endswith("*")  # M = 2048 < d²: outside


def test_false_twin_the_old_report_instance_is_caught(capsys) -> None:
    """The report used to evaluate the sparse bound at Z_in = 2nd: that cell differs."""
    from attnio.symbolic.catalogue import get_bound

    old = get_bound("sparse.lower").evaluate(check_range=False, Z_in=2 * N * D, Z_QK=N * N, M=M)
    assert sp.simplify(old - 33554432 * sp.sqrt(2)) == 0
    assert number_cell(old) != _bounds_printed(capsys)["sparse.lower"]


def test_fmt_value_of_the_report_s_other_tables() -> None:
    assert (fmt_value(None), fmt_value(4608), fmt_value(sp.sqrt(2)), fmt_value(sp.Symbol("d") ** 2)) \
        == ("—", "4,608", "1.414", "d**2")


def test_format_levels_renders_the_per_level_table() -> None:
    """The per-level table of a hierarchy is rendered here (issue 40), not in bounds/."""
    from attnio.algorithms.hierarchy import Hierarchy
    from attnio.bounds.hierarchy import levels_report
    from attnio.reporting.sections import format_levels

    h = Hierarchy.from_words([("smem", 2048, None), ("hbm", None, 10**12)])
    report = levels_report(h, "backward", 1024, 64, heads=4, kv_heads=2)
    full = format_levels(report)
    assert full.startswith("memory hierarchy: ") and "\nbottleneck: " in full
    assert "regime" in full and "small-cache-fused" in full
    narrow = format_levels(report, width=100)
    assert "regime per boundary: --wide or --json" in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 100
