r"""Graphviz DOT files of DAGs: written through networkx and pydot, read through pydot.

DOT carries what attnio's JSON carries (:mod:`attnio.graphs.dagio`), in DOT's own terms::

    strict digraph {
    builder="matmul";
    params="{\"m\": 1, \"k\": 2, \"p\": 1}";
    "a" [shape=box];
    "b" [shape=box];
    "c" [shape=doublecircle, label="c\nadd", op="add", role="output", args="[\"a\", \"b\"]", output=0];
    "a" -> "c";
    "b" -> "c";
    }

* a vertex is a node statement (or an edge's end), its name a quoted identifier written by
  :func:`dot_id` (injective: two names never share an identifier);
* the inputs are the sources (drawn as boxes), as in JSON;
* an output carries ``output=K``, K its 0-based position in ``G.graph["outputs"]`` (drawn as
  a double circle); a file in which no node carries ``output`` has the sinks as outputs;
* the node attributes attnio reads (:func:`attnio.graphs.dagio.validate_metadata`): ``op``,
  ``role``, ``matrix``, ``product_of`` as strings, ``index`` and ``args`` as JSON text; the
  graph attributes ``builder`` (a string) and ``params`` (JSON text);
* everything else — ``label``, ``shape``, colours, edge attributes, ``node [...]`` and
  ``edge [...]`` defaults — is drawing, written for Graphviz and not read back. Node-link JSON
  (:func:`attnio.graphs.dagio.dag_to_node_link`) is the format that keeps every attribute.

Reading (:func:`dag_data_from_dot`) gives attnio's JSON object, which
:func:`attnio.graphs.dagio.dag_from_json` validates like any JSON file (caps, cycles,
self-loops, unknown outputs, metadata types). pydot's parser (pyparsing) is slow on some
inputs: measured, exponential in the nesting of ``{ }`` and quadratic in repeated node
statements of one name, about 1 ms per statement otherwise. So a linear scan
(:func:`scan_dot`) refuses, before pydot sees the text, what attnio does not read:

* more than :data:`MAX_DOT_TOKENS` tokens or :data:`MAX_DOT_NAMES` names outside
  attribute lists (the file size is capped at :data:`MAX_DOT_FILE_BYTES` before any read);
* an undirected ``graph``, a second graph, subgraphs and ``{ }`` groups (attnio's DAGs are
  flat), HTML-like ``<...>`` names, ports (``a:n``);
* a node declared by two node statements (JSON refuses a node listed twice too).

Names are read back with the four escapes :func:`dot_id` writes (``\\``, ``\"``, ``\n``,
``\r``); Graphviz itself keeps a backslash in a name verbatim, so a name holding a backslash
reads differently in Graphviz's tools (never in attnio's round trip).

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")]); G.graph["outputs"] = ["c"]
>>> data = dag_data_from_dot(to_dot(G))
>>> data["nodes"], data["edges"], data["outputs"]
(['a', 'c', 'b'], [['a', 'c'], ['b', 'c']], ['c'])
>>> dag_data_from_dot("graph { a -- b }")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: DOT text is an undirected graph; a DAG is a digraph
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from typing import Any

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.input_files import parse_json_text
from attnio.validation import describe, one_line, validate_digraph

__all__ = ["dot_id", "to_dot", "dag_data_from_dot", "scan_dot", "DOT_SUFFIXES",
           "MAX_DOT_FILE_BYTES", "MAX_DOT_TOKENS", "MAX_DOT_NAMES"]

#: File name endings read and written as DOT.
DOT_SUFFIXES = (".dot", ".gv")
#: Largest DOT file read (bytes), checked before any read.
MAX_DOT_FILE_BYTES = 2**20
#: Most tokens (names, values, ``->``, ``[``, ``;`` ...) a DOT file may hold. Measured on
#: one core: pydot takes ~0.1 ms a token inside attribute lists and ~1.2 ms a name outside
#: them (a node statement, an edge's end), so the two caps keep the worst file at ~10 s.
#: attnio writes ~20 tokens and ~4 names a vertex (``attention-forward:n=4,d=2``: 164
#: vertices, 6,408 tokens, 692 names, 1.2 s); larger DAGs travel as JSON.
MAX_DOT_TOKENS = 40_000
#: Most names outside attribute lists (node statements, edges' ends, graph attributes).
MAX_DOT_NAMES = 6_000

#: Node attributes read as strings, and as JSON text.
_STRING_ATTRIBUTES = ("op", "role", "matrix", "product_of")
_JSON_ATTRIBUTES = ("index", "args")
_KEYWORDS = ("strict", "graph", "digraph", "subgraph", "node", "edge")

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)
  | (?P<quoted>"(?:[^"\\]|\\.)*")
  | (?P<id>[A-Za-z_\x80-\U0010ffff][A-Za-z_0-9\x80-\U0010ffff]*)
  | (?P<numeral>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<arrow>->|--)
  | (?P<punct>[{}\[\];,=:])
""", re.VERBOSE | re.DOTALL)


def dot_id(name: Any) -> str:
    r"""``name`` as a quoted DOT identifier.

    The DOT grammar's only escape in a quoted string is ``\"``; a backslash is kept as it
    stands, so a name ending in a backslash would swallow the closing quote. We double every
    backslash, escape every quote, and write a line feed as ``\n`` and a carriage return as
    ``\r``: every backslash of the result starts one of the four two-character escapes, so
    the text decodes back in exactly one way — the map is injective (``x\ny``, ``x\ry`` and
    ``x\r\ny`` stay three vertices) and always gives a well-formed string.

    >>> print(dot_id('a"b'), dot_id("c\\"), dot_id("x\ny"), dot_id("x\ry"), dot_id("x\r\ny"))
    "a\"b" "c\\" "x\ny" "x\ry" "x\r\ny"
    """
    text = str(name).replace("\\", "\\\\").replace('"', '\\"')
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return f'"{text}"'


_UNESCAPE = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "\n": ""}


def _undot(raw: str) -> str:
    r"""The text of a DOT identifier as pydot gives it: a quoted one decoded (the inverse of
    :func:`dot_id`; a backslash before any other character is kept, and a backslash-newline
    is DOT's line continuation), a bare one as it stands."""
    if not (len(raw) >= 2 and raw[0] == raw[-1] == '"'):
        return raw
    return re.sub(r'\\(.)', lambda m: _UNESCAPE.get(m.group(1), m.group(0)), raw[1:-1],
                  flags=re.DOTALL)


def _json_text(value: Any) -> str | None:
    """``value`` as compact JSON text (tuples as lists), or None if JSON cannot hold it."""
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON (NaN, an object): not written, as in JSON files
        return None


def to_dot(G: nx.DiGraph) -> str:
    """Graphviz DOT text of ``G`` (see the module docstring for what it carries), built as a
    :class:`pydot.Dot` by :func:`networkx.nx_pydot.to_pydot`; every identifier and every
    attribute value is quoted by :func:`dot_id` first, so pydot writes it as it stands.

    Inputs are boxes, outputs double circles, a label shows the name and the op.

    >>> print(to_dot(nx.DiGraph([("a", "b")])))
    strict digraph {
    "a" [shape=box];
    "b" [shape=doublecircle, output=0];
    "a" -> "b";
    }
    """
    validate_digraph(G)
    outputs = G.graph.get("outputs")
    if outputs is None:
        outputs = [v for v in G if G.out_degree(v) == 0]
    position = {v: k for k, v in enumerate(outputs)}
    H: nx.DiGraph = nx.DiGraph()
    graph = {}
    if isinstance(G.graph.get("builder"), str):
        graph["builder"] = dot_id(G.graph["builder"])
    params = _json_text(G.graph.get("params")) if G.graph.get("params") is not None else None
    if params is not None:
        graph["params"] = dot_id(params)
    H.graph["graph"] = graph
    for v, attrs in G.nodes(data=True):
        shape = ("box" if G.in_degree(v) == 0 else "doublecircle" if v in position
                 else "ellipse")
        out = {"shape": shape}
        op = attrs.get("op")
        if isinstance(op, str) and op != "input":
            # a label is an escString: "\n" (backslash n) is its line break
            out["label"] = f"{dot_id(v)[:-1]}\\n{dot_id(op)[1:]}"
        for key in _STRING_ATTRIBUTES:
            if isinstance(attrs.get(key), str):
                out[key] = dot_id(attrs[key])
        for key in _JSON_ATTRIBUTES:
            text = _json_text(attrs[key]) if attrs.get(key) is not None else None
            if text is not None:
                out[key] = dot_id(text)
        if v in position:
            out["output"] = str(position[v])
        H.add_node(dot_id(v), **out)
    H.add_edges_from((dot_id(u), dot_id(v)) for u, v in G.edges())
    return str(nx.nx_pydot.to_pydot(H).to_string()).rstrip("\n")


def _html_end(text: str, start: int) -> int:
    """Index just past the HTML-like string ``<...>`` opening at ``start`` (-1: unclosed)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"<": 1, ">": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return -1


def _tokens(text: str, what: str) -> list[tuple[str, str, int]]:
    """``(kind, text, line)`` of every token; a character DOT has no token for is refused."""
    out: list[tuple[str, str, int]] = []
    pos, line = 0, 1
    while pos < len(text):
        if text[pos] == "<":
            end = _html_end(text, pos)
            if end < 0:
                raise InvalidInputError(f"{what} has an unclosed '<' at line {line}")
            kind, value = "html", text[pos:end]
        else:
            match = _TOKEN.match(text, pos)
            if match is None:
                shown = "an unclosed string" if text[pos] == '"' else (
                    "an unclosed comment" if text.startswith("/*", pos)
                    else f"the character {describe(text[pos])}")
                raise InvalidInputError(f"{what} is not valid DOT: {shown} at line {line}")
            kind, value, end = str(match.lastgroup), match.group(), match.end()
        if kind not in ("space", "comment"):
            out.append((kind, value, line))
            if len(out) > MAX_DOT_TOKENS:
                raise InvalidInputError(f"{what} holds more than MAX_DOT_TOKENS="
                                        f"{MAX_DOT_TOKENS} tokens (save larger DAGs as JSON)")
        line += value.count("\n")
        pos = end
    return out


def _is_name(token: tuple[str, str, int]) -> bool:
    kind, value, _ = token
    return kind in ("quoted", "numeral", "html") or (
        kind == "id" and value.lower() not in _KEYWORDS)


def scan_dot(text: str, what: str = "DOT text") -> None:
    """Refuse, in one linear pass and before any parser runs, what attnio does not read (the
    module docstring's list); return None when the text may go to pydot.

    Raises
    ------
    InvalidInputError
        Naming the rule and the line.

    >>> scan_dot("digraph { a; b; a }")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: DOT text declares node 'a' twice (line 1)
    >>> scan_dot("digraph {" + "{" * 30 + "}" * 31)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: DOT text has a subgraph or { } group at line 1; attnio reads flat digraphs
    """
    tokens = _tokens(text, what)
    values = [t[1].lower() if t[0] == "id" else t[1] for t in tokens]
    i = 1 if values[:1] == ["strict"] else 0
    if values[i:i + 1] == ["graph"]:
        raise InvalidInputError(f"{what} is an undirected graph; a DAG is a digraph")
    if values[i:i + 1] != ["digraph"]:
        raise InvalidInputError(f"{what} is not DOT: it must begin with 'digraph {{' "
                                f"(or 'strict digraph')")
    i += 1
    if i < len(tokens) and _is_name(tokens[i]):
        i += 1  # the graph's name
    if values[i:i + 1] != ["{"]:
        raise InvalidInputError(f"{what} is not valid DOT: '{{' expected after 'digraph'")
    body_start = i + 1
    closing = next((k for k in range(body_start, len(tokens)) if values[k] in "{}" and
                    tokens[k][0] == "punct"), None)
    if closing is None:
        raise InvalidInputError(f"{what} is not valid DOT: the graph's '}}' is missing")
    if values[closing] == "{":
        raise InvalidInputError(f"{what} has a subgraph or {{ }} group at line "
                                f"{tokens[closing][2]}; attnio reads flat digraphs")
    if closing != len(tokens) - 1:
        raise InvalidInputError(f"{what} holds more than one graph, or text after the "
                                f"graph's '}}' (line {tokens[closing + 1][2]})")
    body = tokens[body_start:closing]
    seen: set[str] = set()
    names = 0
    in_brackets = False
    for k, (kind, value, line) in enumerate(body):
        if values[body_start + k] == "subgraph" and kind == "id":
            raise InvalidInputError(f"{what} has a subgraph at line {line}; attnio reads "
                                    f"flat digraphs")
        if kind == "punct" and value in "[]":
            in_brackets = value == "["
            continue
        if in_brackets or not _is_name(body[k]):
            continue
        names += 1
        if names > MAX_DOT_NAMES:
            raise InvalidInputError(f"{what} holds more than MAX_DOT_NAMES={MAX_DOT_NAMES} "
                                    f"names in node and edge statements (save larger DAGs "
                                    f"as JSON)")
        before = body[k - 1][1] if k else ";"
        after = body[k + 1][1] if k + 1 < len(body) else ";"
        if ":" in (before, after):
            raise InvalidInputError(f"{what} has a port (':') at line {line}; attnio reads "
                                    f"plain node names")
        if kind == "html":
            if before != "=":
                raise InvalidInputError(f"{what} names a node with an HTML-like string at "
                                        f"line {line}; attnio reads quoted names")
            continue
        if before in ("->", "--", "=") or after in ("->", "--", "="):
            continue  # an edge's end, or an attribute's key or value
        name = _undot(value)
        if name in seen:
            raise InvalidInputError(f"{what} declares node {describe(name)} twice "
                                    f"(line {line})")
        seen.add(name)


def _parse(text: str, what: str) -> Any:
    """pydot's parse of ``text`` (one digraph, checked by :func:`scan_dot`): its complaints
    (pydot prints a parse error to stdout and returns None) become one line."""
    import pydot

    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), warnings.catch_warnings():
            # pydot 4 builds its grammar with pyparsing names pyparsing 3.3 deprecates: the
            # library's business, not the user's (one line on stderr stays one line)
            warnings.simplefilter("ignore", DeprecationWarning)
            graphs = pydot.graph_from_dot_data(text)
    except RecursionError:
        raise InvalidInputError(f"{what} is nested too deeply for the DOT parser") from None
    except Exception as exc:  # the parser's own error on hostile text: one line, exit 2
        raise InvalidInputError(f"{what} is not valid DOT: {one_line(str(exc), 120)}") from None
    if not graphs:
        lines = [ln for ln in printed.getvalue().splitlines() if ln.strip()]
        reason = lines[-1].strip() if lines else "the parser found no graph"
        raise InvalidInputError(f"{what} is not valid DOT: {one_line(reason, 160)}")
    return graphs[0]


def _name(raw: str, what: str) -> str:
    if raw.startswith("<"):
        raise InvalidInputError(f"{what} names a node with an HTML-like string "
                                f"{describe(raw)}; attnio reads quoted names")
    if not raw.startswith('"') and ":" in raw:
        raise InvalidInputError(f"{what} has a port in {describe(raw)}; attnio reads plain "
                                f"node names")
    return _undot(raw)


def dag_data_from_dot(text: str, what: str = "DOT text") -> dict[str, Any]:
    """attnio's JSON object (``nodes``, ``edges``, ``attributes``, ``graph`` and, when a node
    carries ``output``, ``outputs``) of one DOT digraph; validate it with
    :func:`attnio.graphs.dagio.dag_from_json`.

    Raises
    ------
    InvalidInputError
        What :func:`scan_dot` refuses, text pydot cannot parse, JSON attributes that do not
        parse, ``output`` positions that are not distinct non-negative integers.

    >>> dag_data_from_dot('digraph { "a" -> "b"; "b" [op=exp, output=0] }')["attributes"]
    {'b': {'op': 'exp'}}
    """
    scan_dot(text, what)
    P = _parse(text, what)
    names: list[str] = []
    attributes: dict[str, dict[str, Any]] = {}
    graph: dict[str, Any] = {}
    positions: dict[str, int] = {}

    def add(name: str) -> None:
        if name not in attributes:
            attributes[name] = {}
            names.append(name)

    for key, raw in P.get_attributes().items():
        graph[key] = _undot(str(raw))
    for node in P.get_node_list():
        raw = node.get_name()
        if raw in ("node", "edge"):
            continue  # default attributes: drawing
        if raw == "graph":
            graph.update({k: _undot(str(v)) for k, v in node.get_attributes().items()})
            continue
        v = _name(raw, what)
        add(v)
        where = f"{what}: node {describe(v)}"
        for key, value in node.get_attributes().items():
            text_value = _undot(str(value))
            if key in _STRING_ATTRIBUTES:
                attributes[v][key] = text_value
            elif key in _JSON_ATTRIBUTES:
                attributes[v][key] = parse_json_text(text_value, what=f"{where} {key}")
            elif key == "output":
                if not re.fullmatch(r"[0-9]{1,9}", text_value):
                    raise InvalidInputError(f"{where}: output={describe(text_value)} must be "
                                            f"the output's position 0, 1, 2, ...")
                positions[v] = int(text_value)
    edges: list[list[str]] = []
    for edge in P.get_edge_list():
        u, v = _name(str(edge.get_source()), what), _name(str(edge.get_destination()), what)
        add(u)
        add(v)
        edges.append([u, v])
    out: dict[str, Any] = {"nodes": names, "edges": edges,
                           "attributes": {v: a for v, a in attributes.items() if a}}
    if positions:
        if len(set(positions.values())) != len(positions):
            twice = sorted(positions.values())
            dup = next(p for p in twice if twice.count(p) > 1)
            raise InvalidInputError(f"{what}: two nodes carry output={dup}; each output has "
                                    f"its own position")
        out["outputs"] = sorted(positions, key=positions.__getitem__)
    metadata: dict[str, Any] = {}
    if "builder" in graph:
        metadata["builder"] = graph["builder"]
    if "params" in graph:
        metadata["params"] = parse_json_text(graph["params"], what=f"{what}: graph params")
    out["graph"] = metadata
    return out
