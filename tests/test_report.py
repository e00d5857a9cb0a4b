"""Tests of attnio.report and the ``attnio report`` command."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.report import bound_table, default_cache_sizes, prepare_outdir, write_report

FIGURES = {"phase_diagram.png", "io_vs_M.png", "flops_vs_M.png", "sandwich.png",
           "optimal_schedule.png"}


# ------------------------------------------------------------------------------ bad input


def test_outdir_that_is_a_file_is_exit_2(tmp_path: Path, capsys) -> None:
    target = tmp_path / "taken"
    target.write_text("not a directory")
    assert main(["report", str(target), "--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exists and is not a directory" in err
    assert "Traceback" not in err


def test_outdir_below_a_file_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInputError, match="not a writable directory"):
        prepare_outdir(tmp_path / "file" / "report")


def test_unwritable_outdir_is_invalid() -> None:
    # /proc refuses new directories even to root (os.access would say yes to root).
    with pytest.raises(InvalidInputError, match=r"OUTDIR='/proc/attnio-report' is not a writable"):
        prepare_outdir("/proc/attnio-report")


@pytest.mark.parametrize("argv, message", [
    (["--n", "0"], "n=0 must be a positive integer"),
    (["--d", "-3"], "d=-3 must be a positive integer"),
    (["--n", "64", "--d", "8", "--M", "4"], "M=4 must satisfy d <= M <= n*d"),
    (["--n", "64", "--d", "8", "--M", "1024"], "M=1024 must satisfy d <= M <= n*d"),
])
def test_bad_sizes_are_exit_2_one_line(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    assert main(["report", str(tmp_path / "out"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "out").exists()  # validated before anything is written


def test_malformed_M_list_is_a_usage_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", str(tmp_path), "--M", "12,abc"])
    assert exc.value.code == 2
    assert "M='12,abc'" in capsys.readouterr().err


# ------------------------------------------------------------------------------ the tables


def test_default_cache_sizes_straddle_d_squared() -> None:
    assert default_cache_sizes(4096, 64) == [1024, 4096, 16384]
    assert all(8 <= m <= 64 * 8 for m in default_cache_sizes(64, 8))


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


# ------------------------------------------------------------------------------ the report


def test_quick_report_writes_index_and_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = write_report(out, n=256, d=16, quick=True)
    assert result.index == out / "index.md" and result.index.is_file()
    assert {p.name for p in result.figures} == FIGURES
    for name in FIGURES:
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    text = result.index.read_text(encoding="utf-8")
    for heading in ("## Verify table", "## Bound table", "## Hardware regimes at d = 16",
                    "## Phase diagram", "## I/O against M",
                    "## FLOPs against M", "## Pebbling sandwich", "## An optimal schedule"):
        assert heading in text
    for name in FIGURES:
        assert f"]({name})" in text  # relative links: the directory is self-contained
    assert "`bwd.tight`" in text and "M = `d**2`" in text
    assert result.claims_run > 0
    assert result.failures == [], result.failures
    assert result.ok == (result.claims_proved == result.claims_run)


def test_a_claim_not_proved_or_a_failed_section_makes_exit_1(tmp_path: Path, monkeypatch,
                                                              capsys) -> None:
    """Undecided is never a pass, and a section that crashes is reported, not hidden."""
    import attnio.figures
    import attnio.proofs.registry
    from attnio.proofs.registry import Claim
    from attnio.results import Proved, Undecided

    planted = [
        Claim("planted.ok", "true", "true", "test", "z3 NRA (planted)", "planted",
              lambda ctx: Proved("yes")),
        Claim("planted.unknown", "unknown", "?", "test", "z3 NRA (planted)", "planted",
              lambda ctx: Undecided("z3 returned unknown")),
    ]
    monkeypatch.setattr(attnio.proofs.registry, "load_claims", lambda: planted)

    def broken_sandwich(**_: object) -> list:
        raise RuntimeError("planted failure")

    monkeypatch.setattr(attnio.figures, "sandwich_data", broken_sandwich)
    out = tmp_path / "report"
    assert main(["report", str(out), "--n", "256", "--d", "16", "--quick"]) == 1
    text = (out / "index.md").read_text(encoding="utf-8")
    assert "INCOMPLETE" in text and "1 Proved, 0 Refuted, 1 Undecided of 2 claims" in text
    assert "**Undecided**" in text and "z3 returned unknown" in text
    assert "**This section failed**: `RuntimeError: planted failure`" in text
    assert not (out / "sandwich.png").exists()
    assert "1 section(s) failed" in capsys.readouterr().out
