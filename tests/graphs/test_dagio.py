"""Tests of attnio.graphs.dagio: JSON round trip, bad files, DOT."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import (
    dag_from_json,
    dag_to_json,
    load_dag,
    load_schedule,
    save_dag,
    schedule_from_json,
    to_dot,
)
from attnio.graphs.dags import attention_forward_dag


def test_round_trip(tmp_path: Path) -> None:
    G = attention_forward_dag(2, 1)
    path = tmp_path / "g.json"
    save_dag(G, path)
    H = load_dag(path)
    assert sorted(H.edges) == sorted(G.edges)
    assert H.graph["outputs"] == G.graph["outputs"]
    assert H.graph["inputs"] == G.graph["inputs"]


@pytest.mark.parametrize("data,match", [
    ({"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}, "cycle"),
    ({"nodes": ["a"], "edges": [["a", "b"]]}, "unknown vertex 'b'"),
    ({"nodes": ["a", "a"], "edges": []}, "twice"),
    ({"nodes": [1], "edges": []}, "string"),
    ({"nodes": ["a"], "edges": [["a"]]}, "pair"),
    ({"nodes": ["a"], "edges": [["a", "a"]]}, "self-loop"),
    ({"nodes": ["a"], "edges": [], "outputs": ["z"]}, "not a node"),
    ([1, 2], "JSON object"),
])
def test_bad_dag_data(data, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        dag_from_json(data)


def test_malformed_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        load_dag(bad)
    with pytest.raises(InvalidInputError, match="cannot read"):
        load_dag(tmp_path / "missing.json")


def test_schedules(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"moves": [["read", "a"], ["write", "a"]]}))
    assert load_schedule(path) == [("read", "a"), ("write", "a")]
    assert schedule_from_json([["delete", "x"]]) == [("delete", "x")]
    with pytest.raises(InvalidInputError, match="move 0"):
        schedule_from_json([["read"]])
    with pytest.raises(InvalidInputError):
        schedule_from_json({"moves": 3})


def test_dot_marks_inputs_and_outputs() -> None:
    G = dag_from_json({"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]})
    dot = to_dot(G)
    assert '"a" [shape=box];' in dot and '"c" [shape=doublecircle];' in dot
    assert dot.count("->") == 2
    assert dag_to_json(G)["outputs"] == ["c"]
