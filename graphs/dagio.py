"""DAG and schedule files: JSON load/save (validated at the boundary) and DOT export.

DAG file format (the ``attnio pebble --dag`` contract)::

    {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"]}

``outputs`` is optional (default: the sinks); node names are strings. Schedule files are
``{"moves": [["read", "a"], ...]}`` or the bare list of moves.

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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import MOVE_KINDS, Move

__all__ = [
    "dag_from_json",
    "dag_to_json",
    "load_dag",
    "save_dag",
    "load_schedule",
    "schedule_from_json",
    "to_dot",
]


def _read_json(path: str | Path) -> Any:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno}") from None


def dag_from_json(data: Any) -> nx.DiGraph:
    """Build and validate a DAG from the parsed JSON object.

    Raises
    ------
    InvalidInputError
        Not an object, a node that is not a string, a duplicate node, a malformed edge, an edge
        to an unknown vertex, a cycle, an unknown output.

    >>> dag_from_json({"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: the DAG has a cycle through 'a'
    """
    if not isinstance(data, dict):
        raise InvalidInputError("a DAG file must hold a JSON object with 'nodes' and 'edges'")
    nodes, edges = data.get("nodes"), data.get("edges", [])
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise InvalidInputError("'nodes' and 'edges' must be JSON lists")
    G = nx.DiGraph()
    for v in nodes:
        if not isinstance(v, str):
            raise InvalidInputError(f"node {v!r} must be a string")
        if v in G:
            raise InvalidInputError(f"node {v!r} is listed twice")
        G.add_node(v)
    for e in edges:
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            raise InvalidInputError(f"edge {e!r} must be a pair of node names")
        for x in e:
            if x not in G:
                raise InvalidInputError(f"edge {e!r} names the unknown vertex {x!r}")
        if e[0] == e[1]:
            raise InvalidInputError(f"edge {e!r} is a self-loop")
        G.add_edge(e[0], e[1])
    if not nx.is_directed_acyclic_graph(G):
        raise InvalidInputError(f"the DAG has a cycle through {nx.find_cycle(G)[0][0]!r}")
    outputs = data.get("outputs")
    if outputs is None:
        outputs = [v for v in G if G.out_degree(v) == 0]
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise InvalidInputError("'outputs' must be a list of node names")
    for o in outputs:
        if o not in G:
            raise InvalidInputError(f"output {o!r} is not a node")
    G.graph["inputs"] = sorted(v for v in G if G.in_degree(v) == 0)
    G.graph["outputs"] = list(outputs)
    return G


def dag_to_json(G: nx.DiGraph) -> dict[str, Any]:
    """The JSON object of ``G`` (nodes, edges, outputs), ready for :func:`json.dumps`."""
    out: dict[str, Any] = {"nodes": [str(v) for v in G],
                           "edges": [[str(u), str(v)] for u, v in G.edges()]}
    if G.graph.get("outputs") is not None:
        out["outputs"] = [str(o) for o in G.graph["outputs"]]
    return out


def load_dag(path: str | Path) -> nx.DiGraph:
    """Read a DAG file (see the module docstring); bad files raise InvalidInputError."""
    return dag_from_json(_read_json(path))


def save_dag(G: nx.DiGraph, path: str | Path) -> None:
    """Write ``G`` as a DAG file."""
    Path(path).write_text(json.dumps(dag_to_json(G), indent=1) + "\n")


def schedule_from_json(data: Any) -> list[Move]:
    """Moves from ``{"moves": [...]}`` or a bare list; each move ``[kind, vertex]``.

    >>> schedule_from_json({"moves": [["read", "a"]]})
    [('read', 'a')]
    >>> schedule_from_json([["jump", "a"]])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: move 0 ['jump', 'a'] must be [kind, vertex] with kind in ('read', 'write', 'compute', 'delete')
    """
    moves = data.get("moves") if isinstance(data, dict) else data
    if not isinstance(moves, list):
        raise InvalidInputError("a schedule file must hold a list of moves or {'moves': [...]}")
    out: list[Move] = []
    for i, m in enumerate(moves):
        if not (isinstance(m, list) and len(m) == 2 and m[0] in MOVE_KINDS
                and isinstance(m[1], str)):
            raise InvalidInputError(
                f"move {i} {m!r} must be [kind, vertex] with kind in {MOVE_KINDS}")
        out.append((m[0], m[1]))
    return out


def load_schedule(path: str | Path) -> list[Move]:
    """Read a schedule file (see :func:`schedule_from_json`)."""
    return schedule_from_json(_read_json(path))


def to_dot(G: nx.DiGraph) -> str:
    """Graphviz DOT text of ``G``: inputs as boxes, outputs double circles, labels = op.

    >>> print(to_dot(nx.DiGraph([("a", "b")])))
    digraph G {
      "a" [shape=box];
      "b" [shape=doublecircle];
      "a" -> "b";
    }
    """
    outputs = set(G.graph.get("outputs") or [v for v in G if G.out_degree(v) == 0])
    lines = ["digraph G {"]
    for v in G:
        shape = "box" if G.in_degree(v) == 0 else "doublecircle" if v in outputs else "ellipse"
        op = G.nodes[v].get("op")
        label = f', label="{v}\\n{op}"' if op and op != "input" else ""
        lines.append(f'  "{v}" [shape={shape}{label}];')
    for u, v in G.edges():
        lines.append(f'  "{u}" -> "{v}";')
    lines.append("}")
    return "\n".join(lines)
