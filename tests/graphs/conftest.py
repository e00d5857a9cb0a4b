"""Fixtures shared by the tests of attnio.graphs."""

from __future__ import annotations

import types
from typing import Callable

import networkx as nx
import numpy as np
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


def forward_gnp_dag(n: int, p: float, seed: int) -> nx.DiGraph:
    """networkx's directed G(n, p), its seed drawn from ``numpy.random.default_rng(seed)``,
    with the edges u → v for u < v kept (a DAG) and the vertices named ``str(u)`` (isolated
    ones dropped)."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=int(rng.integers(1 << 30)), directed=True)
    return nx.DiGraph((str(u), str(v)) for u, v in G.edges if u < v)


@pytest.fixture
def random_forward_dag() -> Callable[[int, float, int], nx.DiGraph]:
    """:func:`forward_gnp_dag`: the random DAGs the exact search is checked against."""
    return forward_gnp_dag
