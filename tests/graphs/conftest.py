"""Fixtures shared by the tests of attnio.graphs."""

from __future__ import annotations

import types
from typing import Callable

import pytest


class FakeClock:
    """A deterministic ``time.monotonic``: every read advances the clock by ``step`` seconds.

    A time budget then counts clock reads, not seconds, so a test of "the time limit stops
    the search" does not depend on the machine's speed.
    """

    def __init__(self, step: float = 1.0, start: float = 0.0) -> None:
        self.now = start
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        self.reads += 1
        return value


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> Callable[..., FakeClock]:
    """``fake_clock(module, step=1.0, start=0.0)`` replaces ``module.time`` by a namespace
    whose ``monotonic`` and ``perf_counter`` are one :class:`FakeClock` (returned)."""

    def install(module: types.ModuleType, step: float = 1.0, start: float = 0.0) -> FakeClock:
        clock = FakeClock(step, start)
        monkeypatch.setattr(module, "time", types.SimpleNamespace(monotonic=clock,
                                                                  perf_counter=clock))
        return clock

    return install
