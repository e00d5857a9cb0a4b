from __future__ import annotations

import pytest

from attnio.results import Proved, Refuted, Undecided, all_proved, with_seconds


def test_only_proved_is_a_pass() -> None:
    assert Proved().proved
    assert not Refuted({"x": 1}).proved
    assert not Undecided("z3 unknown").proved


def test_all_proved_rejects_empty_and_undecided() -> None:
    assert all_proved([Proved(), Proved()])
    assert not all_proved([])
    assert not all_proved([Proved(), Undecided("timeout")])
    assert not all_proved([Refuted(None)])


def test_json_and_seconds() -> None:
    r = with_seconds(Refuted({"M": 3}, "too big"), 0.25)
    assert r.to_json() == {"verdict": "refuted", "detail": "too big", "counterexample": {"M": 3}, "seconds": 0.25}
    assert Undecided("budget").to_json()["verdict"] == "undecided"


def test_verdicts_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Proved().detail = "x"  # type: ignore[misc]
