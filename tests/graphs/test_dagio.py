"""Tests of attnio.graphs.dagio: JSON round trip, bad files, DOT."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import (
    dag_from_json,
    dag_to_json,
    dag_to_node_link,
    load_dag,
    load_schedule,
    save_dag,
    schedule_from_json,
)
from attnio.graphs.dags import attention_forward_dag
from attnio.graphs.dotio import dot_id, to_dot

DAG_ABC = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]}


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
    assert '"a" [shape=box];' in dot and '"c" [shape=doublecircle, output=0];' in dot
    assert dot.count("->") == 2
    assert dag_to_json(G)["outputs"] == ["c"]


# ---- issue 13: node-link interchange, attributes, DOT escaping, bounded reads -------------

def test_node_link_round_trip_keeps_op_and_role(tmp_path: Path) -> None:
    import networkx as nx

    G = attention_forward_dag(2, 1)
    path = tmp_path / "g.json"
    save_dag(G, path, format="node-link")
    data = json.loads(path.read_text())
    assert data["directed"] is True and "edges" in data and "links" not in data
    H = load_dag(path)
    assert sorted(H.edges) == sorted(G.edges)
    assert H.graph["outputs"] == G.graph["outputs"]
    for v in G:
        assert H.nodes[v]["op"] == G.nodes[v]["op"] and H.nodes[v]["role"] == G.nodes[v]["role"]
        assert H.nodes[v]["index"] == G.nodes[v]["index"]  # tuples come back as tuples
    # networkx reads our node-link file with its defaults (issue 24), attributes included
    with path.open() as handle:
        N = nx.node_link_graph(json.load(handle))
    assert N.is_directed() and not N.is_multigraph()
    assert sorted(N.edges) == sorted(G.edges) and list(N) == list(G)
    assert N.nodes["O[0,0]"]["op"] == G.nodes["O[0,0]"]["op"]
    assert N.graph["outputs"] == G.graph["outputs"]


def test_node_link_export_is_networkx_own_and_the_old_links_form_is_still_read() -> None:
    import networkx as nx

    G = attention_forward_dag(2, 1)
    data = dag_to_node_link(G)
    # the same dict networkx writes for the same graph (JSON-ready copy of the attributes)
    H = nx.node_link_graph(data)
    assert data == nx.node_link_data(H)
    # what networkx wrote before 3.4 (edges under "links") is still read
    old = {**{k: v for k, v in data.items() if k != "edges"}, "links": data["edges"]}
    for form in (data, old):
        K = dag_from_json(form)
        assert sorted(K.edges) == sorted(G.edges) and K.graph["outputs"] == G.graph["outputs"]
    with pytest.raises(InvalidInputError, match="both 'edges' and 'links'"):
        dag_from_json({**data, "links": []})


def test_networkx_node_link_is_accepted() -> None:
    import networkx as nx

    G = nx.DiGraph([("x", "z"), ("y", "z")])
    G.nodes["z"]["op"] = "add"
    G.nodes["z"]["role"] = "output"
    H = dag_from_json(nx.node_link_data(G, edges="edges"))
    assert sorted(H.edges) == [("x", "z"), ("y", "z")] and H.nodes["z"]["op"] == "add"
    assert H.graph["outputs"] == ["z"]


def test_attnio_format_keeps_attributes(tmp_path: Path) -> None:
    G = attention_forward_dag(2, 1)
    save_dag(G, tmp_path / "g.json")
    H = load_dag(tmp_path / "g.json")
    assert all(H.nodes[v]["op"] == G.nodes[v]["op"] and H.nodes[v]["role"] == G.nodes[v]["role"]
               for v in G)


def test_save_refuses_overwrite_and_symlinks(tmp_path: Path) -> None:
    G = dag_from_json(DAG_ABC)
    target = tmp_path / "g.json"
    target.write_text("mine")
    with pytest.raises(InvalidInputError, match="refusing to overwrite"):
        save_dag(G, target)
    assert target.read_text() == "mine"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(InvalidInputError, match="symlink"):
        save_dag(G, link, overwrite=True)
    assert target.read_text() == "mine"
    save_dag(G, target, overwrite=True)
    assert load_dag(target).number_of_nodes() == 3


@pytest.mark.parametrize("data,match", [
    ({"nodes": ["a", "b"], "edges": [["a", "b"]], "outputs": ["b", "b"]}, "listed twice"),
    ({"directed": False, "nodes": [{"id": "a"}], "links": []}, "undirected"),
    ({"nodes": [{"id": "a"}, {"name": "b"}], "links": []}, "with 'id'"),
    ({"nodes": [{"id": "a"}], "links": [{"source": "a"}]}, "'source' and 'target'"),
    ({"nodes": ["a"], "edges": [], "attributes": {"z": {"op": "add"}}}, "unknown vertex"),
])
def test_more_bad_dag_data(data, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        dag_from_json(data)


@pytest.mark.parametrize("content,match", [
    (b'{"nodes": ["\xff"], "edges": []}', "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "MAX_JSON_DEPTH"),
    (b'{"nodes": ["a"], "edges": [], "x": Infinity}', "Infinity"),
    (b'{"nodes": [' + b"7" * 5000 + b"], \"edges\": []}", "5000 digits; at most MAX_INT_DIGITS"),
])
def test_hostile_files(tmp_path: Path, content: bytes, match: str) -> None:
    path = tmp_path / "g.json"
    path.write_bytes(content)
    with pytest.raises(InvalidInputError, match=match):
        load_dag(path)


def test_dev_zero_is_refused_before_any_read() -> None:
    # a device is not a regular file (issue 22); the byte cap is in tests/test_input_files.py
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(InvalidInputError, match="character device.*not a regular file"):
        load_dag("/dev/zero")


def test_pebble_json_output_is_a_schedule_file() -> None:
    result = {"verdict": "optimal", "M": 3, "moves": [["read", "a"]]}
    assert schedule_from_json(result) == [("read", "a")]
    document = {"command": "pebble", "verdict": "optimal",
                "instances": [result, {**result, "M": 4, "moves": []}]}
    assert schedule_from_json(document, 3) == [("read", "a")]
    with pytest.raises(InvalidInputError, match="M=5"):
        schedule_from_json(document, 5)
    # the bare list printed before attnio 0.2 is still read
    assert schedule_from_json([result, {**result, "M": 4, "moves": []}], 3) == [("read", "a")]
    with pytest.raises(InvalidInputError, match="M=5"):
        schedule_from_json([result, {**result, "M": 4}], 5)


HOSTILE_NAMES = ['a"b', "back\\slash", "end\\", "new\nline", "semi;colon", "{brace}",
                 "a -> b", "ünï", '"', "\\\""]


def test_dot_escaper_gives_valid_dot_that_parses_back() -> None:
    pydot = pytest.importorskip("pydot")
    import networkx as nx

    G = nx.DiGraph()
    for i, name in enumerate(HOSTILE_NAMES):
        G.add_edge(f"src{i}", name)
        G.nodes[name]["op"] = 'ex"p\\'
    text = to_dot(G)
    graphs = pydot.graph_from_dot_data(text)
    assert graphs is not None and len(graphs) == 1
    parsed = graphs[0]
    assert len(parsed.get_edges()) == G.number_of_edges()
    # pydot keeps quoted ids verbatim: undo our escaping and compare with the names
    ids = {n.get_name() for n in parsed.get_nodes()}
    assert ids == {dot_id(v) for v in G}
    assert len(ids) == G.number_of_nodes()  # the escaping is injective


def test_dot_escaper_false_twin_is_rejected() -> None:
    """The naive escaper of before (quotes pasted in) gives DOT that pydot rejects."""
    pydot = pytest.importorskip("pydot")
    naive = 'digraph G {\n  "a"b" [shape=box];\n  "end\\" -> "x";\n}'
    try:
        parsed = pydot.graph_from_dot_data(naive)
    except Exception:  # pydot raises or returns None on a parse error
        parsed = None
    assert not parsed or len(parsed[0].get_edges()) != 1 or len(parsed[0].get_nodes()) != 1


def test_save_dot_by_extension(tmp_path: Path) -> None:
    G = dag_from_json(DAG_ABC)
    save_dag(G, tmp_path / "g.gv")
    assert (tmp_path / "g.gv").read_text().startswith("strict digraph {")
    assert sorted(load_dag(tmp_path / "g.gv").edges) == sorted(G.edges)


def test_args_must_name_exactly_the_predecessors():
    """``args`` is the operand list evaluate() applies ``op`` to: metadata the edges do not
    confirm is refused (issue 22), and a builtin's args survive the round trip."""
    from attnio.graphs.dagio import dag_from_json
    data = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]],
            "attributes": {"c": {"op": "mul", "args": ["zz", "yy"]}}}
    with pytest.raises(InvalidInputError, match="must name exactly its predecessors"):
        dag_from_json(data)
    data["attributes"]["c"]["args"] = ["a"]  # a predecessor left out
    with pytest.raises(InvalidInputError, match="must name exactly its predecessors"):
        dag_from_json(data)
    data["attributes"]["c"]["args"] = ["b", "a"]
    assert dag_from_json(data).nodes["c"]["args"] == ("b", "a")
