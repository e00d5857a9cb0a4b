"""A scripted ``anytime_pebble`` for the trust tests of its time shares (issue 36): the
engines replaced by lists of answers, so each test states which phase runs with what budget.
Shared by tests/test_mutants_gap_worst.py and tests/test_mutants_seed83_mmc.py.

The DAG: a -> x <- b, a -> y <- c, x, y -> z, with L0 = 4 and Q(G, 3) = 6
(tests/graphs/test_anytime.py); :data:`CROSS_OPTIMAL` is an optimal schedule and
:func:`costing` pads it to any cost.
"""

from __future__ import annotations

import types

import networkx as nx

CROSS_EDGES = [("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")]
CROSS_OPTIMAL = [("read", "a"), ("read", "b"), ("compute", "x"), ("delete", "b"),
                 ("write", "x"), ("delete", "x"), ("read", "c"), ("compute", "y"),
                 ("delete", "a"), ("delete", "c"), ("read", "x"), ("compute", "z"),
                 ("write", "z")]


def cross() -> nx.DiGraph:
    return nx.DiGraph(CROSS_EDGES)


def costing(io: int) -> list:
    """A legal schedule of the cross DAG at M = 3 costing ``io`` (>= 6)."""
    return CROSS_OPTIMAL + [("write", "z")] * (io - 6)


def scripted(monkeypatch, heuristics, exacts, clock: list[float] | None = None) -> list:
    """anytime's engines replaced: each heuristic run returns the next schedule, each exact
    run the next result; the zero-waste and certified searches find nothing. Without
    ``clock`` time stands still (every budget is its share); with it, ``time.monotonic``
    reads ``clock[0]`` and each exact answer is a pair (result, the clock after it).
    Returns the calls (name, budget)."""
    import attnio.graphs.anytime as anytime

    calls: list[tuple[str, object]] = []
    heuristics, exacts = list(heuristics), list(exacts)
    now = clock if clock is not None else [0.0]

    def heuristic_schedule(G, M, **kw):
        calls.append(("heuristic", kw["time_limit"]))
        return types.SimpleNamespace(schedule=heuristics.pop(0))

    def solve(G, M, **kw):
        calls.append(("exact", kw["time_limit"]))
        if clock is None:
            return exacts.pop(0)
        result, now[0] = exacts.pop(0)
        return result

    monkeypatch.setattr(anytime, "heuristic_schedule", heuristic_schedule)
    monkeypatch.setattr(anytime, "solve", solve)
    monkeypatch.setattr(anytime, "zero_waste_schedule", lambda *a, **k: None)
    monkeypatch.setattr(anytime, "zero_waste_exists", lambda *a, **k: None)
    monkeypatch.setattr(anytime, "certified_window_bound", lambda *a, **k: None)
    monkeypatch.setattr(anytime, "time", types.SimpleNamespace(monotonic=lambda: now[0],
                                                               perf_counter=lambda: now[0]))
    return calls
