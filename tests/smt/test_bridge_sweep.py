"""benchmarks/bridge_sweep.py reports what it is for: a clean run exits 0, and a referee that
raises, or hangs, is reported with its statement and exit status 1 (its false twins)."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
import sympy as sp

from attnio.smt import exact_eval

ROOT = Path(__file__).resolve().parents[2]


def _sweep():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("attnio_bench_bridge_sweep",
                                                  ROOT / "benchmarks" / "bridge_sweep.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_clean_sweep_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _sweep().main(["--examples", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "crashes, violations and hangs: 0" in out and "referee answers" in out


def test_a_referee_that_raises_is_reported(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def raising(statement: sp.Basic, point: dict) -> str:
        raise TypeError("Invalid comparison of non-real")
    monkeypatch.setattr(exact_eval, "evaluate", raising)
    assert _sweep().main(["--examples", "3", "--seed", "1", "--no-poison"]) == 1
    out = capsys.readouterr().out
    assert "TypeError:" in out and "crashes, violations and hangs: 0" not in out


def test_a_referee_that_hangs_is_reported(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    def hanging(statement: sp.Basic, point: dict) -> str:
        time.sleep(30)
        return "true"
    monkeypatch.setattr(exact_eval, "evaluate", hanging)
    assert _sweep().main(["--examples", "2", "--seed", "1", "--no-poison",
                          "--seconds", "1"]) == 1
    assert "hang:" in capsys.readouterr().out
