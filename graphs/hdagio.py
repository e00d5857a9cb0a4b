r"""HyperDAG files (``.hdag``): the format of OneStopParallel and HyperDAG_DB, read and written.

The grammar (HyperDAG_DB's ``FileFormat_README.md``, format v1; restated here in our words):

1. optional header lines, each starting with ``%`` (a MatrixMarket-like ``%%`` first line, a
   ``% HyperDAG file format vV`` line, comments);
2. one line ``H N P``: hyperedges, nodes, pins (anything after the third integer is ignored);
3. ``H`` lines, each starting with a distinct hyperedge index in ``0..H-1`` (further integers:
   weights, ignored here);
4. ``N`` lines, each starting with a distinct node index in ``0..N-1`` (weights, ignored);
5. ``P`` lines ``E V`` (pin: hyperedge ``E`` contains node ``V``; more integers ignored). The
   **first pin listed for a hyperedge is its source**: the DAG has an edge from the source to
   every other node of the hyperedge.

A data line may end in a ``%`` comment; no comment lines are allowed between data lines. The
DAG's vertices are the node indices as strings (``"0"``, ``"1"``, ... — the names of
:mod:`attnio.graphs.peer_dags`); inputs are the sources and outputs the sinks, as in attnio's
game. Weights are dropped (the red–blue game has unit weights).

Writing (:func:`to_hdag`): one hyperedge per vertex with successors, its pins the vertex then
its successors; nodes and hyperedges with weight 1. attnio's own vertex names and named
outputs (when they are not the sinks) travel in header comments (``% attnio-vertex I NAME``,
``% attnio-outputs I J ...``), which other readers skip as comments and :func:`dag_data_from_hdag`
reads back, so a DAG round-trips exactly.

Examples
--------
>>> text = "% tiny\n2 3 4\n0 1\n1 1\n0 1\n1 1\n2 1\n0 0\n0 2\n1 1\n1 2\n"
>>> dag_data_from_hdag(text)["edges"]
[['0', '2'], ['1', '2']]
>>> dag_data_from_hdag("1 2 2\n0\n0\n1\n0 0\n0 5\n")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: hyperDAG line 6: node 5 is outside 0..1
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import game_inputs, game_outputs

__all__ = ["HDAG_SUFFIXES", "MAX_HDAG_FILE_BYTES", "dag_data_from_hdag", "to_hdag"]

#: File names read and written as HyperDAG files.
HDAG_SUFFIXES = (".hdag",)
#: Largest ``.hdag`` file read (bytes).
MAX_HDAG_FILE_BYTES = 64 * 1024 * 1024


def _ints(line: str, number: int, what: str) -> list[int]:
    words = line.split("%", 1)[0].split()
    try:
        values = [int(w) for w in words]
    except ValueError:
        raise InvalidInputError(f"hyperDAG line {number}: {what} must be integers") from None
    if not values:
        raise InvalidInputError(f"hyperDAG line {number}: {what} is empty")
    return values


def dag_data_from_hdag(text: str, what: str = "hyperDAG") -> dict[str, Any]:
    """attnio's DAG data (``nodes``, ``edges``, optional ``outputs``) from HyperDAG text
    (module docstring); every malformed line is one InvalidInputError naming its number."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    names: dict[int, str] = {}
    outputs: list[int] | None = None
    i = 0
    while i < len(lines) and lines[i].lstrip().startswith("%"):
        words = lines[i].split()
        if len(words) >= 3 and words[1] == "attnio-vertex" and words[2].isdigit():
            names[int(words[2])] = lines[i].split(None, 3)[3] if len(words) > 3 else ""
        elif len(words) >= 2 and words[1] == "attnio-outputs":
            outputs = [int(w) for w in words[2:] if w.isdigit()]
        i += 1
    if i >= len(lines):
        raise InvalidInputError(f"{what}: no 'hyperedges nodes pins' line")
    header = _ints(lines[i], i + 1, "the 'hyperedges nodes pins' line")
    if len(header) < 3 or min(header[:3]) < 0:
        raise InvalidInputError(f"hyperDAG line {i + 1}: expected three counts H N P >= 0")
    H, N, P = header[:3]
    if len(lines) - i - 1 != H + N + P:
        raise InvalidInputError(f"{what}: {H} hyperedges + {N} nodes + {P} pins need "
                                f"{H + N + P} lines after the counts, found {len(lines) - i - 1}")
    for block, count in (("hyperedge", H), ("node", N)):
        seen: set[int] = set()
        for _ in range(count):
            i += 1
            index = _ints(lines[i], i + 1, f"a {block} line")[0]
            if not 0 <= index < count or index in seen:
                raise InvalidInputError(f"hyperDAG line {i + 1}: {block} {index} is outside "
                                        f"0..{count - 1} or repeated")
            seen.add(index)
    source: dict[int, int] = {}
    edges: set[tuple[int, int]] = set()
    for _ in range(P):
        i += 1
        pin = _ints(lines[i], i + 1, "a pin line")
        if len(pin) < 2:
            raise InvalidInputError(f"hyperDAG line {i + 1}: a pin is 'hyperedge node'")
        e, v = pin[:2]
        if not 0 <= e < H:
            raise InvalidInputError(f"hyperDAG line {i + 1}: hyperedge {e} is outside "
                                    f"0..{H - 1}")
        if not 0 <= v < N:
            raise InvalidInputError(f"hyperDAG line {i + 1}: node {v} is outside 0..{N - 1}")
        if e not in source:
            source[e] = v
        elif v != source[e]:
            edges.add((source[e], v))
    if len(set(names.values())) != len(names) or any(k >= N for k in names):
        names = {}  # comments that do not name each vertex once: the indices are the names
    label = [names.get(k, str(k)) for k in range(N)]
    if len(set(label)) != N:
        label = [str(k) for k in range(N)]
    data: dict[str, Any] = {"nodes": label,
                            "edges": [[label[u], label[v]] for u, v in sorted(edges)]}
    if outputs is not None and all(o < N for o in outputs):
        data["outputs"] = [label[o] for o in outputs]
    return data


def to_hdag(G: nx.DiGraph) -> str:
    """HyperDAG text of ``G`` (module docstring): vertices numbered in topological order
    (ties by name), names and named outputs in ``% attnio-`` comments.

    >>> print(to_hdag(nx.DiGraph([("a", "c"), ("b", "c")])), end="")
    % HyperDAG file format v1
    % written by attnio: one hyperedge per vertex with successors (pins: the vertex, then them)
    % attnio-vertex 0 a
    % attnio-vertex 1 b
    % attnio-vertex 2 c
    2 3 4
    0 1
    1 1
    0 1
    1 1
    2 1
    0 0
    0 2
    1 1
    1 2
    """
    game_inputs(G)  # a DAG, inputs = sources
    order = list(nx.lexicographical_topological_sort(G, key=str))
    index = {v: k for k, v in enumerate(order)}
    hyperedges = [v for v in order if G.out_degree(v) > 0]
    pins = [(e, index[v], sorted(index[w] for w in G.successors(v)))
            for e, v in enumerate(hyperedges)]
    lines = ["% HyperDAG file format v1",
             "% written by attnio: one hyperedge per vertex with successors (pins: the vertex, "
             "then them)"]
    if all(str(v) and str(v) == str(v).strip() and "\n" not in str(v) for v in order):
        lines += [f"% attnio-vertex {index[v]} {v}" for v in order]
    outs = game_outputs(G)
    if sorted(outs) != sorted(v for v in G if G.out_degree(v) == 0):
        lines.append("% attnio-outputs " + " ".join(str(index[o]) for o in outs))
    lines.append(f"{len(hyperedges)} {len(order)} {sum(1 + len(s) for _, _, s in pins)}")
    lines += [f"{e} 1" for e in range(len(hyperedges))]
    lines += [f"{k} 1" for k in range(len(order))]
    for e, src, succ in pins:
        lines.append(f"{e} {src}")
        lines += [f"{e} {w}" for w in succ]
    return "\n".join(lines) + "\n"
