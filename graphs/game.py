r"""The Hong–Kung red–blue pebble game, and a schedule validator independent of every solver.

The game (Hong & Kung, STOC 1981, with the input convention of Elango et al. 2014, arXiv
1404.4767, and of a Lean formalisation of the game)
is played on a DAG :math:`G = (V, E)` with a budget of :math:`M` red pebbles:

* **Inputs are exactly the sources** (vertices without predecessors). They start with a blue
  pebble each and can never be *computed*; the only way to put a red pebble on an input is to
  read it. Nothing else carries a pebble at the start.
* **Outputs** (by default the sinks; any set may be named) must carry a blue pebble at the end.
* Moves (``Move = (kind, vertex)``):

  - ``("read", v)``  — R1: put a red pebble on ``v``, which must carry a blue pebble. Cost 1.
  - ``("write", v)`` — R2: put a blue pebble on ``v``, which must carry a red pebble. Cost 1.
  - ``("compute", v)`` — R3: put a red pebble on a non-input ``v`` whose every predecessor
    carries a red pebble. The pebble is *placed*, never slid from a predecessor. Cost 0.
  - ``("delete", v)`` — R4: remove the red pebble from ``v``. Cost 0. (Removing a *blue*
    pebble never helps: dropping such a move from a schedule keeps it legal at the same cost,
    so the move set leaves it out.)

* At no time may more than :math:`M` red pebbles lie on the graph; blue pebbles are unlimited.
* The **cost** of a schedule is its number of reads plus writes; :math:`Q(G, M)` is the least
  cost of a complete schedule.

Variants: **recomputation allowed** (the default, Hong–Kung's game) and **one-shot**
(``recompute=False``: every vertex is computed at most once, as in Papp–Wattenhofer's
"oneshot" model and the red–blue–white game).

Why "inputs = sources" matters. Hong–Kung's partition theorem (Thm 3.1: a calculation with
q I/Os yields a 2M-partition with h parts and :math:`M h \ge q \ge M(h-1)`) is *false* when
inputs may be a proper superset of the sources and may be computed: summing 8 designated inputs
left to right with M = 3 costs one I/O, yet every 6-partition has ≥ 2 parts; a chain of 17
designated inputs feeding one output costs 2 with M = 2 while every 4-partition has ≥ 3 parts
(found by the Lean formalisation). The S-partition lower bounds that attnio
checks against the exact optimum therefore need exactly this convention, and so does the
validator: a graph whose ``G.graph["inputs"]`` differs from its sources is rejected.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c")]
>>> r = replay(G, moves, M=3)
>>> r.io, r.reads, r.writes, r.peak_red
(3, 2, 1, 3)
>>> replay(G, moves, M=2)
Traceback (most recent call last):
...
attnio.exceptions.IllegalMoveError: move 2 ('compute', 'c') breaks red-limit: 3 red pebbles > M=2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import networkx as nx

from attnio.exceptions import IllegalMoveError, InvalidInputError
from attnio.results import Proved, Refuted, Verdict
from attnio.validation import describe, positive_int, validate_digraph

__all__ = [
    "Move",
    "MOVE_KINDS",
    "RULES",
    "ReplayResult",
    "replay",
    "validate",
    "game_inputs",
    "game_outputs",
    "validate_cache_size",
    "validate_moves",
]

Move = tuple[str, str]
MOVE_KINDS = ("read", "write", "compute", "delete")

#: rule name → what it says (the ``rule`` of an :class:`IllegalMoveError`).
RULES: dict[str, str] = {
    "unknown-kind": f"a move kind is one of {MOVE_KINDS}",
    "unknown-vertex": "a move names a vertex of the DAG",
    "read-needs-blue": "R1: read only a vertex that carries a blue pebble",
    "write-needs-red": "R2: write only a vertex that carries a red pebble",
    "compute-input": "inputs (the sources) are never computed",
    "compute-needs-red-parents": "R3: compute only when every predecessor carries a red pebble",
    "one-shot": "one-shot variant: a vertex is computed at most once",
    "delete-needs-red": "R4: delete only a red pebble that is there",
    "red-limit": "at most M red pebbles at any time",
    "outputs-blue": "every output carries a blue pebble at the end",
}


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """Outcome of a legal schedule: exact counts (Python ints)."""

    reads: int
    writes: int
    computes: int
    peak_red: int

    @property
    def io(self) -> int:
        """Cost of the schedule: reads + writes."""
        return self.reads + self.writes


def validate_cache_size(M: object) -> int:
    """Return ``M`` if it is a positive int, else raise :class:`InvalidInputError`.

    >>> validate_cache_size(3)
    3
    >>> validate_cache_size(0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: M=0 must be a positive integer
    """
    return positive_int("M", M)


def game_inputs(G: nx.DiGraph) -> list[str]:
    """The inputs of the game: exactly the sources of ``G`` (sorted).

    Raises
    ------
    InvalidInputError
        If ``G`` has a cycle, or ``G.graph["inputs"]`` names a set other than the sources.

    >>> game_inputs(nx.DiGraph([("x", "y")]))
    ['x']
    """
    if not nx.is_directed_acyclic_graph(G):
        cycle = nx.find_cycle(G)
        raise InvalidInputError(f"the graph has a cycle through {cycle[0][0]!r}; it must be a DAG")
    sources = sorted(v for v in G if G.in_degree(v) == 0)
    declared = G.graph.get("inputs")
    if declared is not None and sorted(declared) != sources:
        raise InvalidInputError(
            f"G.graph['inputs'] has {len(declared)} vertices but the game's inputs are exactly "
            f"the {len(sources)} sources"
        )
    return sources


def game_outputs(G: nx.DiGraph, outputs: Iterable[str] | None = None) -> list[str]:
    """The outputs: ``outputs`` if given, else ``G.graph["outputs"]``, else the sinks.

    >>> game_outputs(nx.DiGraph([("x", "y"), ("x", "z")]))
    ['y', 'z']
    """
    chosen = outputs if outputs is not None else G.graph.get("outputs")
    if chosen is None:
        return sorted(v for v in G if G.out_degree(v) == 0)
    if isinstance(chosen, (str, bytes)):
        raise InvalidInputError(f"outputs={describe(chosen)} must be a list of vertices, "
                                "not one string")
    chosen = list(chosen)
    seen: set[str] = set()
    for v in chosen:
        try:
            known = v in G
        except TypeError:  # unhashable
            known = False
        if not known:
            raise InvalidInputError(f"output {describe(v)} is not a vertex of the graph")
        if v in seen:
            raise InvalidInputError(f"output {describe(v)} is listed twice")
        seen.add(v)
    return chosen


def validate_moves(moves: object) -> list[Move]:
    """``moves`` as a list; refuse None, a string, a mapping or a non-iterable.

    (Each move's shape is checked by :func:`replay` itself, as an illegal move.)

    >>> validate_moves(None)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: moves=None must be a list of (kind, vertex) moves
    """
    if moves is None or isinstance(moves, (str, bytes, dict)):
        raise InvalidInputError(f"moves={describe(moves)} must be a list of (kind, vertex) moves")
    try:
        return list(moves)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidInputError(
            f"moves={describe(moves)} must be a list of (kind, vertex) moves") from None


def replay(
    G: nx.DiGraph,
    moves: Sequence[Move],
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
) -> ReplayResult:
    r"""Replay a schedule move by move and return its cost; raise at the first illegal move.

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG (inputs = its sources).
    moves : sequence of (kind, vertex)
        ``kind`` in ``("read", "write", "compute", "delete")``.
    M : int
        Number of red pebbles, ``M >= 1``.
    recompute : bool
        False selects the one-shot variant (each vertex computed at most once).
    outputs : iterable of str, optional
        Defaults to ``G.graph["outputs"]``, else the sinks.

    Returns
    -------
    ReplayResult
        ``reads``, ``writes``, ``io = reads + writes``, ``computes``, ``peak_red``.

    Raises
    ------
    IllegalMoveError
        At the first move that breaks a rule (``index`` = its 0-based position, ``rule`` a key
        of :data:`RULES`); ``index = len(moves)`` with rule ``"outputs-blue"`` when the schedule
        ends with an output not blue.
    InvalidInputError
        ``G`` not a DiGraph, ``M`` not a positive int, ``moves`` not a list, a cyclic graph,
        an unknown or repeated output.

    Side conditions
    ---------------
    Each is a rule of :data:`RULES` (the ``rule`` of the :class:`IllegalMoveError`), checked
    at every move, in the order of the moves:

    1. ``unknown-kind``: a move is a pair ``(kind, vertex)`` with ``kind`` one of
       :data:`MOVE_KINDS`.
    2. ``unknown-vertex``: its vertex is a vertex of ``G``.
    3. ``read-needs-blue``: a read is of a vertex that carries a blue pebble now.
    4. ``write-needs-red``: a write is of a vertex that carries a red pebble now (a pebble
       deleted earlier is gone).
    5. ``compute-input``: no input is computed.
    6. ``compute-needs-red-parents``: a compute finds a red pebble on every predecessor.
    7. ``one-shot``: with ``recompute=False``, no vertex is computed twice.
    8. ``delete-needs-red``: a delete removes a red pebble that is there.
    9. ``red-limit``: after every move (a read and a compute alike) at most M red pebbles lie
       on the graph.
    10. ``outputs-blue``: after the last move every output carries a blue pebble.

    Notes
    -----
    A read of a vertex that is already red, a write of one already blue and (with
    recomputation) a compute of one already red are legal no-ops of the game and are counted;
    only solvers avoid them. ``peak_red`` is the most red pebbles after any move.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b")])
    >>> replay(G, [("read", "a"), ("compute", "b"), ("write", "b")], M=2).io
    2
    >>> replay(G, [("compute", "a")], M=2)
    Traceback (most recent call last):
    ...
    attnio.exceptions.IllegalMoveError: move 0 ('compute', 'a') breaks compute-input: inputs (the sources) are never computed
    """
    validate_digraph(G)
    validate_cache_size(M)
    moves = validate_moves(moves)
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    red: set[str] = set()
    blue: set[str] = set(inputs)
    computed: set[str] = set()
    reads = writes = computes = peak = 0

    def illegal(i: int, move: object, rule: str, detail: str = "") -> IllegalMoveError:
        text = f"move {i} {describe(move)} breaks {rule}: {detail or RULES[rule]}"
        return IllegalMoveError(text, index=i, rule=rule)

    for i, move in enumerate(moves):
        try:
            kind, v = move
        except (TypeError, ValueError):
            raise illegal(i, move, "unknown-kind") from None
        if not isinstance(kind, str) or kind not in MOVE_KINDS:
            raise illegal(i, move, "unknown-kind")
        try:
            known = v in G
        except TypeError:  # an unhashable "vertex" such as a list
            known = False
        if not known:
            raise illegal(i, move, "unknown-vertex",
                          f"{describe(v)} is not a vertex of the graph")
        if kind == "read":
            if v not in blue:
                raise illegal(i, move, "read-needs-blue")
            red.add(v)
            reads += 1
        elif kind == "write":
            if v not in red:
                raise illegal(i, move, "write-needs-red")
            blue.add(v)
            writes += 1
        elif kind == "compute":
            if v in inputs:
                raise illegal(i, move, "compute-input")
            missing = [u for u in G.predecessors(v) if u not in red]
            if missing:
                raise illegal(i, move, "compute-needs-red-parents",
                              f"predecessor {sorted(missing)[0]!r} carries no red pebble")
            if not recompute and v in computed:
                raise illegal(i, move, "one-shot", f"{v!r} was already computed")
            computed.add(v)
            red.add(v)
            computes += 1
        else:
            if v not in red:
                raise illegal(i, move, "delete-needs-red")
            red.discard(v)
        if len(red) > M:
            raise illegal(i, move, "red-limit", f"{len(red)} red pebbles > M={M}")
        peak = max(peak, len(red))
    missing_out = [o for o in outs if o not in blue]
    if missing_out:
        raise IllegalMoveError(
            f"after {len(moves)} moves output {missing_out[0]!r} carries no blue pebble "
            f"(rule outputs-blue)", index=len(moves), rule="outputs-blue")
    return ReplayResult(reads=reads, writes=writes, computes=computes, peak_red=peak)


def validate(
    G: nx.DiGraph,
    moves: Sequence[Move],
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    claimed_io: int | None = None,
) -> Verdict:
    """Check a schedule: :class:`Proved` (legal, and costing ``claimed_io`` if given) or
    :class:`Refuted` with the first illegal move (or the cost mismatch) as data.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b")])
    >>> validate(G, [("read", "a"), ("compute", "b"), ("write", "b")], 2).proved
    True
    >>> v = validate(G, [("read", "a"), ("compute", "b")], 2)
    >>> v.verdict, v.counterexample["rule"]
    ('refuted', 'outputs-blue')
    >>> validate(G, [("read", "a"), ("compute", "b"), ("write", "b")], 2, claimed_io=1).verdict
    'refuted'
    >>> validate(G, [None], 2).counterexample       # a malformed move is data, not a crash
    {'index': 0, 'rule': 'unknown-kind', 'move': None}
    """
    moves = validate_moves(moves)
    try:
        result = replay(G, moves, M, recompute=recompute, outputs=outputs)
    except IllegalMoveError as exc:
        bad = moves[exc.index] if exc.index is not None and exc.index < len(moves) else None
        move = list(bad) if isinstance(bad, (tuple, list)) else bad   # a malformed move as is
        return Refuted({"index": exc.index, "rule": exc.rule, "move": move}, str(exc))
    if claimed_io is not None and result.io != claimed_io:
        return Refuted({"claimed_io": claimed_io, "replayed_io": result.io},
                       f"schedule is legal but costs {result.io}, not {claimed_io}")
    return Proved(f"legal schedule, io={result.io} (reads={result.reads}, "
                  f"writes={result.writes}), peak red={result.peak_red} <= M={M}")
