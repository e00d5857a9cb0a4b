"""HyperDAG .hdag files: read, write, round trip (attnio.graphs.hdagio via dagio)."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import load_dag, save_dag
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag
from attnio.graphs.hdagio import dag_data_from_hdag, to_hdag
from attnio.graphs.peer_dags import load_peer_dag, peer_dag_names

#: A HyperDAG file as the benchmark sets write them: a header, weights on every line,
#: a trailing comment; hyperedge 0 = node 0 -> {2, 3}, hyperedge 1 = node 1 -> {3}.
SAMPLE = """%%MatrixMarket matrix coordinate pattern general
% HyperDAG file format v1
% an example
2 4 5 % two hyperedges
0 7
1 3
0 1
1 1
2 4
3 2
0 0
0 2 9
0 3
1 1
1 3
"""


def _same(G: nx.DiGraph, H: nx.DiGraph) -> bool:
    return (sorted(G) == sorted(H) and sorted(G.edges()) == sorted(H.edges())
            and sorted(G.graph.get("outputs") or [v for v in G if not G.out_degree(v)])
            == sorted(H.graph.get("outputs") or [v for v in H if not H.out_degree(v)]))


def test_a_benchmark_style_file_is_read(tmp_path) -> None:
    path = tmp_path / "s.hdag"
    path.write_text(SAMPLE)
    G = load_dag(path)
    assert sorted(G.edges()) == [("0", "2"), ("0", "3"), ("1", "3")]


@pytest.mark.parametrize("G", [matmul_dag(2, 2, 2), attention_forward_dag(2, 1),
                               attention_backward_dag(2, 1, "dX")])
def test_builtin_dags_round_trip(tmp_path, G) -> None:
    save_dag(G, tmp_path / "g.hdag")
    assert _same(G, load_dag(tmp_path / "g.hdag"))


def test_every_peer_dag_round_trips_with_its_integer_names(tmp_path) -> None:
    for name in peer_dag_names():
        G = load_peer_dag(name)
        H = nx.DiGraph()
        H.add_nodes_from(G)
        H.add_edges_from(G.edges())
        text = to_hdag(H)
        back = dag_data_from_hdag(text)
        assert sorted(back["nodes"]) == sorted(G) and sorted(map(tuple, back["edges"])) == \
            sorted(G.edges()), name


def test_named_outputs_travel_and_plain_readers_see_comments(tmp_path) -> None:
    G = nx.DiGraph([("a", "x"), ("x", "y")])
    G.graph["outputs"] = ["x", "y"]
    text = to_hdag(G)
    assert "% attnio-outputs 1 2" in text
    assert dag_data_from_hdag(text)["outputs"] == ["x", "y"]
    # without the attnio comments the indices are the names
    bare = "\n".join(line for line in text.splitlines() if "attnio-" not in line) + "\n"
    assert dag_data_from_hdag(bare)["edges"] == [["0", "1"], ["1", "2"]]


@pytest.mark.parametrize("text, why", [
    ("", "no 'hyperedges nodes pins' line"),
    ("x y z\n", "must be integers"),
    ("1 2 2\n0\n0\n1\n0 0\n", "need 5 lines"),
    ("1 2 2\n0\n0\n0\n0 0\n0 1\n", "node 0 is outside 0..1 or repeated"),
    ("1 2 2\n0\n0\n1\n0 0\n3 1\n", "hyperedge 3 is outside 0..0"),
    ("1 2 2\n0\n0\n1\n0 0\n1\n", "a pin is 'hyperedge node'"),
    ("1 2 2\n0\n0\n1\n0 0\n0 -1\n", "node -1 is outside"),
])
def test_malformed_files_are_one_line_errors(text, why) -> None:
    with pytest.raises(InvalidInputError, match=why):
        dag_data_from_hdag(text)


def test_a_cycle_and_bad_bytes_are_exit_2(tmp_path, capsys) -> None:
    cyc = tmp_path / "c.hdag"
    cyc.write_text("2 2 4\n0\n1\n0\n1\n0 0\n0 1\n1 1\n1 0\n")
    bad = tmp_path / "b.hdag"
    bad.write_bytes(b"\xff\x00\x81garbage")
    for path in (cyc, bad):
        assert main(["pebble", "--dag", str(path), "--M", "3"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err


def test_pebble_exports_and_solves_hdag(tmp_path, capsys) -> None:
    path = tmp_path / "m.hdag"
    assert main(["pebble", "--builtin", "matmul:1x2x1", "--export-dag", str(path)]) == 0
    assert main(["pebble", "--dag", str(path), "--M", "3"]) == 0
    assert "optimal I/O = 7" in capsys.readouterr().out
