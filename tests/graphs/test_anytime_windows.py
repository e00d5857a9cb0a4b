"""Tests of attnio.graphs.anytime.certified_window_bound: the spill-windows lower bound inside
anytime_pebble — window sets grow while the predicted next run fits, only re-verified
certificates count (split from test_anytime.py, which stays under 700 lines)."""

from __future__ import annotations

import networkx as nx
import pytest

import attnio.graphs.anytime as anytime_module

#: The 6-vertex DAG of test_anytime.py (x = f(a, b), y = f(a, c), z = f(x, y)).
CROSS = nx.DiGraph([("a", "x"), ("b", "x"), ("a", "y"), ("c", "y"), ("x", "z"), ("y", "z")])


class _Windows:
    """A fake spill-windows route: |U| = the size asked for (or ``cap``), value ``value(size)``;
    the certificate of the sizes in ``forged`` does not re-verify."""

    def __init__(self, monkeypatch, value, *, cap=None, forged=(), applies=True):
        self.sizes: list[int] = []
        self.checked: list[tuple] = []
        self.value, self.cap, self.forged, self.applies = value, cap, set(forged), applies
        monkeypatch.setattr(anytime_module, "spill_windows_bound", self.bound)
        monkeypatch.setattr(anytime_module, "check_certificate", self.check)

    def bound(self, G, M, outputs, *, max_window_vertices):
        from attnio.graphs.lower_bounds import BoundRecord
        self.sizes.append(max_window_vertices)
        used = min(max_window_vertices, self.cap or max_window_vertices)
        if not self.applies:
            return BoundRecord("spill-windows", 0, False, "no", {})
        return BoundRecord("spill-windows", self.value(max_window_vertices), True, None,
                           {"U": [f"u{i}" for i in range(used)], "size": max_window_vertices})

    def check(self, G, M, record):
        from attnio.results import Proved, Refuted
        self.checked.append((G.graph.get("outputs"), M, record.certificate["size"]))
        if record.certificate["size"] in self.forged:
            return Refuted({}, "forged")
        return Proved()


@pytest.mark.trust
@pytest.mark.parametrize("seconds, sizes", [(19, [8, 10]), (20, [8, 10, 12]),
                                            (15.9, [8]), (0, [8]), (1000, [8, 10, 12, 14, 16])])
def test_window_sets_grow_while_the_predicted_next_run_fits(monkeypatch, fake_clock, seconds,
                                                            sizes) -> None:
    # a clock at 100 s that advances 2 s per read: run k (0-based) ends 4k + 4 s after the
    # start, after 2 s of work, and the next run is predicted at 6x that: it starts iff
    # 4k + 4 + 12 <= seconds
    windows = _Windows(monkeypatch, lambda size: 100 + size)
    fake_clock(anytime_module, step=2, start=100)
    got = anytime_module.certified_window_bound(CROSS, 3, seconds=seconds)
    assert windows.sizes == sizes
    assert got == (100 + sizes[-1], sizes[-1])


@pytest.mark.trust
def test_window_bound_has_five_seconds_by_default(monkeypatch, fake_clock) -> None:
    # 0.7 s per read: the first run ends at 1.4 s after 0.7 s of work, so the next one is
    # predicted to end at 1.4 + 6 * 0.7 = 5.6 s: past the default 5 s, within 6 s
    windows = _Windows(monkeypatch, lambda size: size)
    fake_clock(anytime_module, step=0.7)
    assert anytime_module.certified_window_bound(CROSS, 3) == (8, 8)
    fake_clock(anytime_module, step=0.7)
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=6) == (10, 10)
    assert windows.sizes == [8, 8, 10]


@pytest.mark.trust
def test_window_bound_keeps_the_largest_verified_value(monkeypatch) -> None:
    # the first of equal values, the larger of two, and never a forged one
    windows = _Windows(monkeypatch, lambda size: 50)
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=1e9) == (50, 8)
    windows = _Windows(monkeypatch, lambda size: 60 - size, forged={8})
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=1e9) == (50, 10)
    assert [size for _, _, size in windows.checked] == [8, 10, 12, 14, 16]
    windows = _Windows(monkeypatch, lambda size: size, forged={8, 10, 12, 14, 16})
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=1e9) is None
    windows = _Windows(monkeypatch, lambda size: size, applies=False)
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=1e9) is None
    assert windows.sizes == [8, 10, 12, 14, 16] and windows.checked == []


@pytest.mark.trust
def test_window_bound_stops_when_U_is_every_candidate(monkeypatch) -> None:
    windows = _Windows(monkeypatch, lambda size: size, cap=11)
    assert anytime_module.certified_window_bound(CROSS, 3, seconds=1e9) == (12, 11)
    assert windows.sizes == [8, 10, 12]
    # for real: matmul 1x2x1 has 3 candidate vertices, so one run (|U| = 3) and the bound 7
    from attnio.graphs.dags import matmul_dag
    monkeypatch.undo()
    assert anytime_module.certified_window_bound(matmul_dag(1, 2, 1), 3) == (7, 3)


@pytest.mark.trust
def test_window_certificate_is_checked_with_the_named_outputs(monkeypatch) -> None:
    windows = _Windows(monkeypatch, lambda size: size, cap=3)
    G = CROSS.copy()
    assert anytime_module.certified_window_bound(G, 4, outputs=("x", "z"), seconds=1e9) == \
        (8, 3)
    assert windows.checked == [(["x", "z"], 4, 8)]
    assert "outputs" not in G.graph                 # the caller's graph is not changed
    anytime_module.certified_window_bound(G, 4, seconds=1e9)
    assert windows.checked[-1] == (None, 4, 8)
