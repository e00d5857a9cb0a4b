"""DAG and schedule files: attnio's JSON, networkx node-link JSON, Graphviz DOT and HyperDAG
``.hdag`` (load/save, validated at the boundary; DOT itself is :mod:`attnio.graphs.dotio`,
HyperDAG :mod:`attnio.graphs.hdagio`).

attnio's DAG format (the ``attnio pebble --dag`` contract)::

    {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"],
     "attributes": {"c": {"op": "add", "role": "output"}}}

``outputs`` is optional (default: the sinks); ``attributes`` is optional (node attributes such
as ``op`` and ``role``, see :mod:`attnio.graphs.dags`); node names are strings.

networkx node-link JSON (:func:`networkx.node_link_data`) is read as well: ``{"directed":
true, "nodes": [{"id": "a", "op": "input"}, ...], "edges": [{"source": "a", "target": "c"},
...], "graph": {"outputs": [...]}}``, the edges under ``"edges"`` (networkx 3.4 and later,
the form :func:`dag_to_node_link` writes and ``networkx.node_link_graph(data)`` reads by
default) or under ``"links"`` (what networkx wrote before 3.4; still read). Its ids may
be strings or integers (networkx's default for ``nx.DiGraph([(0, 1)])``); an integer id
becomes the vertex named by its decimal digits (an id given both ways is refused). Node
attributes travel in both formats; tuple attributes (``index``, ``args``) come back as tuples.

Metadata is data, never trusted: the attributes attnio reads are checked like any other
input (:func:`validate_metadata`): ``graph.builder`` a string, ``graph.params`` an object whose
sizes (``m k p n d``) are positive integers and whose ``summation`` / ``gradient`` are
strings, node ``index`` a list of integers, ``args`` a list of vertex names, ``op``,
``role``, ``matrix`` and ``product_of`` strings. Whether the declared builder and sizes
describe the DAG is decided from its structure by the code that uses them
(:func:`attnio.graphs.lower_bounds.builtin_structure`). ``max_vertices`` / ``max_edges`` of
:func:`load_dag` refuse a file by its counts before any graph is built.

Graphviz DOT (a file named ``*.dot`` or ``*.gv``) is read and written by
:mod:`attnio.graphs.dotio` — outputs as ``output=K`` node attributes, metadata as node and
graph attributes — and validated here like JSON.

Schedule files are ``{"moves": [["read", "a"], ...]}``, the bare list of moves, or the
``attnio pebble --json`` output itself (an object with ``"moves"``, or the list of such
objects for a cache range: the one whose ``"M"`` is the replayed cache size is taken).

Files are read with a bounded read (:data:`attnio.validation.MAX_INPUT_FILE_BYTES`), must be
UTF-8 and nest at most :data:`attnio.validation.MAX_JSON_DEPTH` levels; files are written
through :mod:`attnio.safe_io` (atomic, no symlinks, no overwrite unless asked).

Examples
--------
>>> G = dag_from_json({"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]})
>>> sorted(G.edges()), G.graph["outputs"]
([('a', 'c'), ('b', 'c')], ['c'])
>>> dag_to_json(G)["edges"]
[['a', 'c'], ['b', 'c']]
>>> dag_from_json({"nodes": ["a"], "edges": [["a", "z"]]})
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: edge ['a', 'z'] names the unknown vertex 'z'
>>> H = dag_from_json(dag_to_node_link(G))
>>> sorted(H.edges()) == sorted(G.edges())
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.dotio import (  # dot_id: still importable from here, where it lived before
    DOT_SUFFIXES,
    MAX_DOT_FILE_BYTES,
    dag_data_from_dot,
    dot_id,  # noqa: F401
    to_dot,
)
from attnio.graphs.game import MOVE_KINDS, Move
from attnio.graphs.hdagio import HDAG_SUFFIXES, MAX_HDAG_FILE_BYTES, dag_data_from_hdag, to_hdag
from attnio.input_files import read_json_file, read_text_file
from attnio.safe_io import write_text
from attnio.validation import MAX_INT_DIGITS, describe, positive_int, validate_digraph

__all__ = [
    "dag_from_json",
    "dag_to_json",
    "dag_to_node_link",
    "load_dag",
    "save_dag",
    "load_schedule",
    "schedule_from_json",
    "DAG_FORMATS",
    "validate_metadata",
]

#: ``save_dag`` formats: attnio's own JSON, networkx node-link JSON, Graphviz DOT.
DAG_FORMATS = ("attnio", "node-link", "dot", "hdag")
#: Attributes whose JSON lists are tuples in memory (see :mod:`attnio.graphs.dags`).
_TUPLE_ATTRIBUTES = ("index", "args")


def _read_json(path: str | Path, what: str = "file") -> Any:
    return read_json_file(path, what=what)


#: Node attributes attnio reads that must be strings when present.
_STRING_ATTRIBUTES = ("op", "role", "matrix", "product_of")
#: ``graph.params`` keys that are sizes (positive integers) and that are names (strings).
_SIZE_PARAMS = ("m", "k", "p", "n", "d")
_NAME_PARAMS = ("summation", "gradient")


def _attributes_from_json(v: str, attrs: Any) -> dict[str, Any]:
    if not isinstance(attrs, dict) or not all(isinstance(k, str) for k in attrs):
        raise InvalidInputError(f"attributes of node {describe(v)} must be a JSON object")
    out = dict(attrs)
    where = f"node {describe(v)}: {{key}}"
    for key in _STRING_ATTRIBUTES:
        if key in out and out[key] is not None and not isinstance(out[key], str):
            raise InvalidInputError(f"{where.format(key=key)}={describe(out[key])} must be a "
                                    f"string")
    index = out.get("index")
    if index is not None:
        if not isinstance(index, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in index):
            raise InvalidInputError(f"{where.format(key='index')}={describe(index)} must be a "
                                    f"list of integers")
        if any(abs(i) >= 10**18 for i in index):
            raise InvalidInputError(f"{where.format(key='index')}={describe(index)} must hold "
                                    f"integers below 10**18")
    args = out.get("args")
    if args is not None and (not isinstance(args, (list, tuple))
                             or not all(isinstance(a, str) for a in args)):
        raise InvalidInputError(f"{where.format(key='args')}={describe(args)} must be a list of "
                                f"vertex names")
    for key in _TUPLE_ATTRIBUTES:
        if isinstance(out.get(key), list):
            out[key] = tuple(out[key])
    return out


def _check_args_are_predecessors(G: nx.DiGraph) -> None:
    """A node's ``args`` (the operands :func:`attnio.graphs.dags.evaluate` applies its
    ``op`` to) must name exactly its predecessors: metadata the edges do not confirm is
    refused, never used."""
    for v, args in G.nodes(data="args"):
        if args is not None and set(args) != set(G.predecessors(v)):
            raise InvalidInputError(
                f"node {describe(v)}: args={describe(list(args))} must name exactly its "
                f"predecessors {describe(sorted(G.predecessors(v)))}")


def validate_metadata(graph: Any) -> dict[str, Any]:
    """Validate a DAG file's graph-level metadata (``"graph"``) and return it as a dict.

    ``builder`` must be a string; ``params`` an object whose sizes ``m, k, p, n, d`` are
    positive integers (at most :data:`attnio.validation.MAX_INT_DIGITS` digits) and whose
    ``summation`` / ``gradient`` are strings. Other keys are kept unread.

    >>> validate_metadata({"builder": "matmul", "params": {"m": 1, "k": 2, "p": 1}})["builder"]
    'matmul'
    >>> validate_metadata({"params": {"k": "abc"}})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: graph.params.k='abc' must be a positive integer
    """
    if graph is None:
        return {}
    if not isinstance(graph, dict) or not all(isinstance(k, str) for k in graph):
        raise InvalidInputError(f"'graph'={describe(graph)} must be a JSON object")
    # a null builder or params is the same as none (never stored, so no reader sees None)
    graph = {k: v for k, v in graph.items() if not (k in ("builder", "params") and v is None)}
    builder = graph.get("builder")
    if builder is not None and not isinstance(builder, str):
        raise InvalidInputError(f"graph.builder={describe(builder)} must be a string")
    params = graph.get("params")
    if params is not None:
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise InvalidInputError(f"graph.params={describe(params)} must be a JSON object")
        for key in _SIZE_PARAMS:
            if key in params and params[key] is not None:
                value = params[key]
                if isinstance(value, int) and not isinstance(value, bool) and value > 0 and (
                        value.bit_length() > 3.33 * MAX_INT_DIGITS):
                    raise InvalidInputError(f"graph.params.{key} has more than "
                                            f"MAX_INT_DIGITS={MAX_INT_DIGITS} digits")
                positive_int(f"graph.params.{key}", value)
        for key in _NAME_PARAMS:
            if key in params and params[key] is not None and not isinstance(params[key], str):
                raise InvalidInputError(f"graph.params.{key}={describe(params[key])} must be "
                                        f"a string")
    return dict(graph)


def _attributes_to_json(attrs: dict[str, Any]) -> dict[str, Any]:
    """JSON-ready copy: tuples and sets become lists; values JSON cannot hold are dropped."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if isinstance(value, (tuple, set, frozenset)):
            value = sorted(value) if isinstance(value, (set, frozenset)) else list(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):  # not JSON (e.g. NaN, an object): dropped, as documented
            continue
        out[str(key)] = value
    return out


def _node_link_to_attnio(data: dict[str, Any]) -> dict[str, Any]:
    """Translate node-link JSON into attnio's format (validated afterwards)."""
    if data.get("directed") is False:
        raise InvalidInputError("node-link data is undirected ('directed': false); a DAG is directed")
    if data.get("multigraph") is True:
        raise InvalidInputError("node-link data is a multigraph; a DAG file needs a simple graph")
    if "edges" in data and "links" in data:
        raise InvalidInputError("node-link data holds both 'edges' and 'links'; give the "
                                "edges once")
    edges_key = "links" if "links" in data else "edges"  # "links": networkx before 3.4
    links = data.get(edges_key, [])
    nodes = data["nodes"]
    if not isinstance(nodes, list) or not isinstance(links, list):
        raise InvalidInputError(f"node-link 'nodes' and '{edges_key}' must be JSON lists")
    names, attributes = [], {}
    spelled: dict[str, Any] = {}  # vertex name -> the id that gave it

    def name_of(v: Any) -> Any:
        # integer ids (networkx's default) name the vertex by their digits; other ids are
        # left as they are for dag_from_json to refuse (it names the offending value)
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    for item in nodes:
        if not isinstance(item, dict) or "id" not in item:
            raise InvalidInputError(f"node-link node {describe(item)} must be an object with 'id'")
        v = name_of(item["id"])
        if isinstance(v, str):
            if v in spelled and spelled[v] != item["id"]:
                raise InvalidInputError(f"node-link ids {describe(spelled[v])} and "
                                        f"{describe(item['id'])} name the same vertex {v!r}")
            spelled[v] = item["id"]
        names.append(v)
        rest = {k: val for k, val in item.items() if k != "id"}
        if rest and isinstance(v, str):
            attributes[v] = rest
    edges = []
    for link in links:
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise InvalidInputError(
                f"node-link link {describe(link)} must be an object with 'source' and 'target'")
        edges.append([name_of(link["source"]), name_of(link["target"])])
    graph = validate_metadata(data.get("graph"))
    out: dict[str, Any] = {"nodes": names, "edges": edges, "attributes": attributes}
    if graph.get("outputs") is not None:
        outputs = graph["outputs"]
        out["outputs"] = ([name_of(o) for o in outputs] if isinstance(outputs, list)
                          else outputs)
    out["graph"] = {k: v for k, v in graph.items() if k not in ("outputs", "inputs")}
    return out


def dag_from_json(data: Any, *, max_vertices: int | None = None, max_edges: int | None = None,
                  cap_names: tuple[str, str] = ("max_vertices", "max_edges")) -> nx.DiGraph:
    """Build and validate a DAG from the parsed JSON object.

    ``max_vertices`` / ``max_edges`` (named by ``cap_names`` in the error) refuse a file by
    the lengths of its lists, before any graph is built.

    Raises
    ------
    InvalidInputError
        Not an object, a node that is not a string, a duplicate node, a malformed edge, an edge
        to an unknown vertex, a cycle, an unknown output, metadata of the wrong type
        (:func:`validate_metadata`, node attributes), more vertices or edges than the caps.

    >>> dag_from_json({"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: the DAG has a cycle through 'a'
    """
    if not isinstance(data, dict):
        raise InvalidInputError("a DAG file must hold a JSON object with 'nodes' and 'edges'")
    for key, cap, cap_name in (("nodes", max_vertices, cap_names[0]),
                               ("links", max_edges, cap_names[1]),
                               ("edges", max_edges, cap_names[1])):
        items = data.get(key)
        if cap is not None and isinstance(items, list) and len(items) > cap:
            what = "vertices" if key == "nodes" else "edges"
            raise InvalidInputError(f"the DAG file lists {len(items)} {what}; at most "
                                    f"{cap_name}={cap}")
    if isinstance(data.get("nodes"), list) and any(isinstance(v, dict) for v in data["nodes"]):
        data = _node_link_to_attnio(data)
    nodes, edges = data.get("nodes"), data.get("edges", [])
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise InvalidInputError("'nodes' and 'edges' must be JSON lists")
    G: nx.DiGraph = nx.DiGraph()
    for v in nodes:
        if not isinstance(v, str):
            raise InvalidInputError(f"node {describe(v)} must be a string")
        if v in G:
            raise InvalidInputError(f"node {describe(v)} is listed twice")
        G.add_node(v)
    attributes = data.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise InvalidInputError("'attributes' must map node names to JSON objects")
    for v, attrs in attributes.items():
        if v not in G:
            raise InvalidInputError(f"attributes name the unknown vertex {describe(v)}")
        G.nodes[v].update(_attributes_from_json(v, attrs))
    for e in edges:
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            raise InvalidInputError(f"edge {describe(e)} must be a pair of node names")
        for x in e:
            if x not in G:
                raise InvalidInputError(f"edge {describe(e)} names the unknown vertex {describe(x)}")
        if e[0] == e[1]:
            raise InvalidInputError(f"edge {describe(e)} is a self-loop")
        G.add_edge(e[0], e[1])
    if not nx.is_directed_acyclic_graph(G):
        raise InvalidInputError(f"the DAG has a cycle through {nx.find_cycle(G)[0][0]!r}")
    _check_args_are_predecessors(G)
    outputs = data.get("outputs")
    if outputs is None:
        outputs = [v for v in G if G.out_degree(v) == 0]
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise InvalidInputError("'outputs' must be a list of node names")
    for o in outputs:
        if o not in G:
            raise InvalidInputError(f"output {describe(o)} is not a node")
    if len(set(outputs)) != len(outputs):
        twice = next(o for o in outputs if outputs.count(o) > 1)
        raise InvalidInputError(f"output {describe(twice)} is listed twice in 'outputs'")
    extra = validate_metadata(data.get("graph"))
    G.graph.update({k: v for k, v in extra.items() if k not in ("inputs", "outputs")})
    G.graph["inputs"] = sorted(v for v in G if G.in_degree(v) == 0)
    G.graph["outputs"] = list(outputs)
    return G


def dag_to_json(G: nx.DiGraph) -> dict[str, Any]:
    """attnio's JSON object of ``G`` (nodes, edges, outputs, node attributes).

    >>> G = nx.DiGraph([("a", "b")]); G.nodes["b"]["op"] = "exp"
    >>> dag_to_json(G)
    {'nodes': ['a', 'b'], 'edges': [['a', 'b']], 'attributes': {'b': {'op': 'exp'}}}
    """
    validate_digraph(G)
    out: dict[str, Any] = {"nodes": [str(v) for v in G],
                           "edges": [[str(u), str(v)] for u, v in G.edges()]}
    if G.graph.get("outputs") is not None:
        out["outputs"] = [str(o) for o in G.graph["outputs"]]
    attributes = {str(v): _attributes_to_json(a) for v, a in G.nodes(data=True) if a}
    if attributes:
        out["attributes"] = attributes
    return out


def dag_to_node_link(G: nx.DiGraph) -> dict[str, Any]:
    """networkx node-link JSON of ``G``, made by :func:`networkx.node_link_data` with the
    edges under ``"edges"``: the form ``networkx.node_link_graph(data)`` reads by default
    (networkx 3.4 and later). Node and graph attributes are kept where they are JSON
    (tuples become lists); ``inputs`` is not written (the sources are the inputs).

    >>> data = dag_to_node_link(nx.DiGraph([("a", "b")]))
    >>> data["edges"], data["directed"]
    ([{'source': 'a', 'target': 'b'}], True)
    >>> sorted(nx.node_link_graph(data).edges())
    [('a', 'b')]
    """
    validate_digraph(G)
    H: nx.DiGraph = nx.DiGraph()
    H.graph.update(_attributes_to_json({k: v for k, v in G.graph.items() if k != "inputs"}))
    H.add_nodes_from((str(v), _attributes_to_json(a)) for v, a in G.nodes(data=True))
    H.add_edges_from((str(u), str(v)) for u, v in G.edges())
    return dict(nx.node_link_data(H, edges="edges"))


def load_dag(path: str | Path, *, max_vertices: int | None = None,
             max_edges: int | None = None,
             cap_names: tuple[str, str] = ("max_vertices", "max_edges")) -> nx.DiGraph:
    """Read a DAG file: attnio's JSON or node-link JSON, or DOT when the name ends in
    ``.dot`` / ``.gv`` (see the module docstring); bad files raise InvalidInputError (one
    line). ``max_vertices`` / ``max_edges`` (named by ``cap_names``) refuse a larger file
    before the graph is built; a DOT file is read with the caps of
    :mod:`attnio.graphs.dotio` (at most ``MAX_DOT_FILE_BYTES``, ``MAX_DOT_TOKENS``)."""
    if Path(path).suffix.lower() in DOT_SUFFIXES:
        text = read_text_file(path, what="DOT file", max_bytes=MAX_DOT_FILE_BYTES,
                              limit_name="MAX_DOT_FILE_BYTES")
        data = dag_data_from_dot(text, f"DOT file {describe(str(path), 80)}")
    elif Path(path).suffix.lower() in HDAG_SUFFIXES:
        text = read_text_file(path, what="hyperDAG file", max_bytes=MAX_HDAG_FILE_BYTES,
                              limit_name="MAX_HDAG_FILE_BYTES")
        data = dag_data_from_hdag(text, f"hyperDAG file {describe(str(path), 80)}")
    else:
        data = _read_json(path, "DAG file")
    return dag_from_json(data, max_vertices=max_vertices, max_edges=max_edges,
                         cap_names=cap_names)


def save_dag(G: nx.DiGraph, path: str | Path, *, format: str | None = None,
             overwrite: bool = False) -> Path:
    """Write ``G`` through :func:`attnio.safe_io.write_text` and return the path.

    ``format`` is one of :data:`DAG_FORMATS`; by default ``.dot``/``.gv`` give DOT and any
    other name attnio's JSON. An existing file is replaced only with ``overwrite``. DOT of
    any size is written (for Graphviz), but :func:`load_dag` reads DOT back only within the
    caps of :mod:`attnio.graphs.dotio` (a few hundred vertices); larger DAGs round-trip as
    JSON.
    """
    if format is None:
        suffix = Path(path).suffix.lower()
        format = ("dot" if suffix in DOT_SUFFIXES else "hdag" if suffix in HDAG_SUFFIXES
                  else "attnio")
    if format not in DAG_FORMATS:
        raise InvalidInputError(f"format={describe(format)} must be one of {', '.join(DAG_FORMATS)}")
    if format == "dot":
        text = to_dot(G) + "\n"
    elif format == "hdag":
        text = to_hdag(G)
    else:
        data = dag_to_json(G) if format == "attnio" else dag_to_node_link(G)
        text = json.dumps(data, indent=1, allow_nan=False) + "\n"
    return write_text(path, text, overwrite=overwrite)


def schedule_from_json(data: Any, M: int | None = None) -> list[Move]:
    """Moves from ``{"moves": [...]}``, a bare list, or ``attnio pebble --json`` output (its
    ``"instances"`` — or the list of results printed before attnio 0.2 — narrowed to the one
    whose ``"M"`` equals ``M``); each move ``[kind, vertex]``.

    >>> schedule_from_json({"moves": [["read", "a"]]})
    [('read', 'a')]
    >>> saved = {"command": "pebble", "instances": [{"M": 2, "moves": []},
    ...                                             {"M": 3, "moves": [["read", "a"]]}]}
    >>> schedule_from_json(saved, 3)
    [('read', 'a')]
    >>> schedule_from_json([["jump", "a"]])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: move 0 ['jump', 'a'] must be [kind, vertex] with kind in ('read', 'write', 'compute', 'delete')
    """
    if isinstance(data, dict) and isinstance(data.get("instances"), list) and data["instances"] \
            and all(isinstance(x, dict) for x in data["instances"]):
        data = _pick_result(data["instances"], M)  # `attnio pebble --json` (one object)
    elif isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        data = _pick_result(data, M)  # `attnio pebble --json` of a cache range, before 0.2
    moves = data.get("moves") if isinstance(data, dict) else data
    if not isinstance(moves, list):
        raise InvalidInputError("a schedule file must hold a list of moves, {'moves': [...]} "
                                "or the output of `attnio pebble --json`")
    out: list[Move] = []
    for i, m in enumerate(moves):
        if not (isinstance(m, list) and len(m) == 2 and isinstance(m[0], str)
                and m[0] in MOVE_KINDS and isinstance(m[1], str)):
            raise InvalidInputError(
                f"move {i} {describe(m)} must be [kind, vertex] with kind in {MOVE_KINDS}")
        out.append((m[0], m[1]))
    return out


def _pick_result(results: list[dict[str, Any]], M: int | None) -> dict[str, Any]:
    """The one ``attnio pebble --json`` result to replay: the only one, or the one at ``M``."""
    if len(results) == 1:
        return results[0]
    chosen = [r for r in results if M is not None and r.get("M") == M]
    if len(chosen) != 1:
        sizes = ", ".join(str(r.get("M")) for r in results[:10])
        raise InvalidInputError(f"the schedule file holds {len(results)} results (M = {sizes}); "
                                f"none is for the replayed cache size M={M}")
    return chosen[0]


def load_schedule(path: str | Path, M: int | None = None) -> list[Move]:
    """Read a schedule file (see :func:`schedule_from_json`; ``M`` picks one result of a
    ``pebble --json`` cache range)."""
    return schedule_from_json(_read_json(path, "schedule file"), M)
