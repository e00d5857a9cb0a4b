"""Tests of attnio.graphs.dotio: DOT export through networkx/pydot, DOT import through pydot
(the round trip DAG → DOT → DAG is the identity), and the scan that refuses, before pydot
runs, what attnio does not read."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import dag_from_json, load_dag, save_dag
from attnio.graphs.dags import attention_backward_dag, matmul_dag
from attnio.graphs.dotio import (
    MAX_DOT_FILE_BYTES,
    MAX_DOT_NAMES,
    MAX_DOT_TOKENS,
    dag_data_from_dot,
    dot_id,
    scan_dot,
    to_dot,
)

#: Characters that break naive DOT writers: quotes, backslashes, line breaks, DOT's own
#: punctuation and keywords' letters, non-ASCII.
TEXT = st.text(alphabet=st.sampled_from(list('ab"\\\n\r {}[];,=:-><#/*é日 \t')), max_size=6)
NAMES = st.one_of(TEXT, st.sampled_from(["node", "edge", "graph", "strict", "digraph", "1",
                                         "-2.5", "", "a:b", "<b>", "//x"]))


def assert_same_dag(G: nx.DiGraph, H: nx.DiGraph) -> None:
    """Identity of two DAGs: vertices in order, edges, every attribute, the graph's metadata."""
    assert list(G.nodes) == list(H.nodes)
    assert list(G.edges) == list(H.edges)
    assert dict(G.nodes(data=True)) == dict(H.nodes(data=True))
    assert G.graph == H.graph


@st.composite
def dags(draw: st.DrawFn) -> nx.DiGraph:
    """A DAG as dag_from_json builds it, with hostile names and attnio's metadata."""
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=8)) if pairs else []
    edges = [[names[i], names[j]] for i, j in chosen]
    attributes = {}
    for v in names:
        attrs = {key: draw(TEXT) for key in draw(st.sets(st.sampled_from(
            ["op", "role", "matrix", "product_of"])))}
        if draw(st.booleans()):
            attrs["index"] = draw(st.lists(st.integers(-5, 10**12), max_size=3))
        preds = [u for u, w in edges if w == v]
        if preds and draw(st.booleans()):
            attrs["args"] = draw(st.permutations(preds))
        if attrs:
            attributes[v] = attrs
    data = {"nodes": names, "edges": edges, "attributes": attributes,
            "outputs": draw(st.lists(st.sampled_from(names), unique=True, min_size=1))}
    if draw(st.booleans()):
        data["graph"] = {"builder": draw(TEXT), "params": {
            "m": draw(st.integers(1, 99)), "summation": draw(TEXT)}}
    return dag_from_json(data)


@settings(max_examples=120, deadline=None)
@given(dags())
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_dag_to_dot_to_dag_is_the_identity(G: nx.DiGraph) -> None:
    assert_same_dag(G, dag_from_json(dag_data_from_dot(to_dot(G))))


@pytest.mark.parametrize("build", [lambda: matmul_dag(2, 2, 2),
                                   lambda: attention_backward_dag(2, 1, "dX")])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_builtin_dags_round_trip_through_dot_files(tmp_path: Path, build) -> None:
    G = build()
    for name in ("g.dot", "g.gv"):
        save_dag(G, tmp_path / name)
        assert_same_dag(G, load_dag(tmp_path / name))


def test_networkx_reads_the_export_too() -> None:
    """The export is DOT other tools read: networkx's own reader (through pydot) finds the
    same vertices (its names keep DOT's escapes, decoded here by hand) and edges."""
    G = matmul_dag(1, 2, 1)
    import io

    N = nx.nx_pydot.read_dot(io.StringIO(to_dot(G)))
    assert set(N.nodes) == set(G.nodes) and set(N.edges()) == set(G.edges)
    assert N.nodes["C[0,0]"]["output"] == "0" and N.nodes["C[0,0]"]["op"] == '"add"'


def test_a_hand_written_file_is_read_as_json_would_be() -> None:
    text = """
    // a hand-written DAG: bare names, a chain, drawing attributes, no outputs marked
    digraph mine {
      rankdir=LR; node [shape=circle]; edge [color=red];
      x -> y -> z [color=blue];
      w -> z;
      y [op=exp, label="y\\nexp", color=green];
      /* z has two predecessors */ z [op=add, args="[\\"y\\", \\"w\\"]"]
    }"""
    G = dag_from_json(dag_data_from_dot(text))
    assert list(G) == ["y", "z", "x", "w"]
    assert sorted(G.edges) == [("w", "z"), ("x", "y"), ("y", "z")]
    assert G.graph["outputs"] == ["z"] and G.graph["inputs"] == ["w", "x"]  # sinks, sources
    assert dict(G.nodes["y"]) == {"op": "exp"}  # label and colour are drawing
    assert G.nodes["z"]["args"] == ("y", "w")


def test_outputs_follow_their_positions() -> None:
    data = dag_data_from_dot('digraph { a -> b; a -> c; c [output=0]; b [output=1]; a [output=2] }')
    assert data["outputs"] == ["c", "b", "a"]
    with pytest.raises(InvalidInputError, match="two nodes carry output=0"):
        dag_data_from_dot("digraph { a [output=0]; b [output=0] }")
    with pytest.raises(InvalidInputError, match="must be the output's position"):
        dag_data_from_dot("digraph { a [output=first] }")


@pytest.mark.parametrize("text,match", [
    ("graph { a -- b }", "undirected"),
    ("strict graph { a -- b }", "undirected"),
    ("", "must begin with 'digraph"),
    ("{ a -> b }", "must begin with 'digraph"),
    ("digraph { a -> b", "'}' is missing"),
    ("digraph a b { }", "'{' expected"),
    ("digraph { } digraph { }", "more than one graph"),
    ("digraph { a } x", "text after"),
    ("digraph { subgraph cluster_0 { a } }", "subgraph"),
    ("digraph { subgraph s; a }", "subgraph"),
    ("digraph { a -> { b c } }", "{ } group"),
    ("digraph {" + "{" * 40 + "a" + "}" * 41, "{ } group"),
    ("digraph { <b>x</b> -> a }", "HTML-like"),
    ("digraph { a -> b:n }", "port"),
    ('digraph { "a":p -> b }', "port"),
    ("digraph { a; b; a }", "declares node 'a' twice"),
    ('digraph { "a" [op=x] a [op=y] }', "declares node 'a' twice"),
    ('digraph { "a\\nb" -> c; "a\\nb" }', None),  # an edge's end then one declaration: fine
    ('digraph { "abc }', "unclosed string"),
    ("digraph { /* a }", "unclosed comment"),
    ("digraph { a <b }", "unclosed '<'"),
    ("digraph { a & b }", "the character '&'"),
    ("digraph { a -> b; b -> a }", "cycle"),
    ("digraph { a -> a }", "self-loop"),
    ('digraph { a [index="[1, 2"] }', "not valid JSON"),
    ('digraph { a [index="[1e400]"] }', "not a finite float"),
    ('digraph { a [index="[\\"x\\"]"] }', "list of integers"),
    ('digraph { a [args="[\\"zz\\"]"] }', "must name exactly its predecessors"),
    ('digraph { params="[1]"; a }', "graph.params"),
    ('digraph { builder=matmul; params="{\\"m\\": 0}"; a }', "graph.params.m=0"),
    ("digraph { a -> b [label=x", "not valid DOT"),
    ("digraph { a = }", "not valid DOT"),
])
def test_bad_dot_is_one_invalid_input_error(text: str, match: str | None) -> None:
    if match is None:
        dag_from_json(dag_data_from_dot(text))
        return
    with pytest.raises(InvalidInputError, match=match) as caught:
        dag_from_json(dag_data_from_dot(text))
    assert "\n" not in str(caught.value)


def test_the_scan_refuses_what_would_make_pydot_slow_and_pydot_itself_accepts() -> None:
    """False twins of the scan: the refused texts are DOT that pydot parses (slowly: nesting
    is exponential, repeated node statements quadratic — measured, see the module
    docstring), so the scan, not the parser, is what refuses them."""
    import pydot

    for text in ("digraph { { { a } } }", "digraph { a; a; a }"):
        parsed = pydot.graph_from_dot_data(text)
        assert parsed is not None and len(parsed) == 1
        with pytest.raises(InvalidInputError):
            scan_dot(text)
    scan_dot("digraph { a -> b; b [op=x]; c }")  # what attnio reads passes


def test_token_cap_and_file_cap(tmp_path: Path) -> None:
    names = "digraph {" + " ".join(f"v{i}" for i in range(MAX_DOT_NAMES + 1)) + "}"
    with pytest.raises(InvalidInputError, match="MAX_DOT_NAMES"):
        scan_dot(names)
    scan_dot(names.replace(f" v{MAX_DOT_NAMES}", ""))  # one fewer: read
    tokens = "digraph { a [" + "x=1," * (MAX_DOT_TOKENS // 4) + "] }"
    with pytest.raises(InvalidInputError, match="MAX_DOT_TOKENS"):
        scan_dot(tokens)
    big = tmp_path / "big.dot"
    big.write_text("digraph { a }" + " " * MAX_DOT_FILE_BYTES)
    with pytest.raises(InvalidInputError, match="MAX_DOT_FILE_BYTES"):
        load_dag(big)
    latin = tmp_path / "latin.gv"
    latin.write_bytes(b"digraph { \"\xff\" }")
    with pytest.raises(InvalidInputError, match="not UTF-8"):
        load_dag(latin)


def test_caps_of_the_caller_apply_to_dot(tmp_path: Path) -> None:
    path = tmp_path / "g.dot"
    path.write_text("digraph { a -> b; b -> c; c -> d }")
    with pytest.raises(InvalidInputError, match="4 vertices; at most MAX_V=3"):
        load_dag(path, max_vertices=3, cap_names=("MAX_V", "MAX_E"))
    with pytest.raises(InvalidInputError, match="3 edges; at most MAX_E=2"):
        load_dag(path, max_edges=2, cap_names=("MAX_V", "MAX_E"))


def test_dot_id_is_what_pydot_keeps() -> None:
    """pydot writes a pre-quoted identifier as it stands (never quoting it twice)."""
    G = nx.DiGraph([('a"b', "c\\")])
    text = to_dot(G)
    assert dot_id('a"b') in text and dot_id("c\\") in text
    assert dag_data_from_dot(text)["edges"] == [['a"b', "c\\"]]
