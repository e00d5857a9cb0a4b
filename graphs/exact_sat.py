r"""Exact red–blue pebbling by SAT: the engine ``method="sat"`` and DRAT refutations.

The model is the time-indexed CNF of :func:`attnio.check.encode` — written down once, in the
standalone checker, so that the CNF a proof file refutes is regenerated there from the DAG,
``M`` and the bound, never taken on trust. Its **horizon lemma** (attnio/check.py, proof in
notes/pebbling.md, "Proof files") makes it exact with recomputation too: every schedule of
cost :math:`\le B` has a normal form with at most

.. math:: \sum_{v \notin I} c(v), \qquad c(v) = 1 + \sum_{w \in \mathrm{succ}(v)} c(w)

steps, each with a compute (:math:`c(v) = 1` one-shot), so a CNF with that many steps is
unsatisfiable exactly when :math:`Q(G, M) > B`.

=====================================  ==================================================
function                               what it does
=====================================  ==================================================
:func:`solve_sat`                      the engine: :math:`Q(G, M)` by incremental SAT calls
                                       on one solver — bounds on the extra I/O as
                                       assumptions on a totalizer (Bailleux–Boufkhad
                                       2003), bisection
                                       between the lower bound and the best schedule;
                                       every model decoded and replayed
:func:`refute`                         a DRAT refutation of "cost :math:`\le B`" on the
                                       canonical CNF (fresh solver with proof logging)
:func:`decode`                         a model → a schedule (per step: deletions, reads,
                                       computes, writes)
:func:`sat_available`                  python-sat (the extra ``attnio[sat]``) imports
=====================================  ==================================================

The engine's solver is Glucose 4.2 through python-sat (incremental, and it can be
interrupted, which the time limit needs); a refutation's is CaDiCaL 1.9.5
(:data:`PROOF_SOLVER`: faster, smaller proofs), run in a child process killed at the limit.
The proof is checked by ``dratify``, which shares no code with the solvers or attnio
(:func:`attnio.check.check_drat`).

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> r = solve_sat(G, 3)
>>> r.verdict, r.io
('optimal', 3)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import networkx as nx

from attnio.check import (
    Dag,
    Encoding,
    compulsory_io,
    dimacs_text,
    encode,
    parse_dag,
    required_horizon,
    topological_order,
)
from attnio.exceptions import BoundSatisfiable
from attnio.extras import require
from attnio.graphs.game import Move, game_inputs, game_outputs, replay, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, pebbles_shortfall
from attnio.graphs.pebble_result import PebbleResult
from attnio.smt.isolation import KILL_GRACE_S, HardLimitReached, run_isolated
from attnio.validation import validate_digraph

__all__ = ["SAT_SOLVER", "PROOF_SOLVER", "MAX_SAT_HORIZON", "MAX_SAT_SYMMETRIES", "dag_symmetries",
           "sat_available", "dag_certificate_data",
           "solve_sat", "refute", "Refutation", "decode"]

#: The python-sat solver of the engine (incremental, and interruptible: the time limit).
SAT_SOLVER = "glucose42"
#: The python-sat solver of the proofs (:func:`refute`). CaDiCaL 1.9.5 refutes faster and
#: logs a smaller proof than Glucose: on matmul 2×2×2 at M = 4 ("cost <= 16") 25 against 101
#: CPU s, 0.92 M DRAT lines (70 MB) against 1.36 M (216 MB), and dratify's Rust engine
#: checks its proof in 92 CPU s where Glucose's did not finish in 5 CPU min (notes/pebbling.md).
#: python-sat cannot interrupt it, so it runs in a child process killed at the time limit.
PROOF_SOLVER = "cadical195"
#: Largest horizon the engine builds (steps); past it the engine answers undecided.
MAX_SAT_HORIZON = 4_000
#: Most automorphisms given to the lex-leader clauses (attnio.check.encode, family 9).
MAX_SAT_SYMMETRIES = 64


def dag_symmetries(dag: Dag, limit: int = MAX_SAT_SYMMETRIES) -> list[dict[str, str]]:
    """Automorphisms of the kept DAG (edges, outputs and inputs preserved; networkx's VF2),
    as maps of the moved vertices, the identity left out, at most ``limit`` (in the order
    VF2 finds them, which is deterministic for a given DAG).

    >>> from attnio.check import parse_dag
    >>> len(dag_symmetries(parse_dag(dag_certificate_data(nx.DiGraph([("a", "c"), ("b", "c")])))))
    1
    """
    from networkx.algorithms.isomorphism import DiGraphMatcher

    H: nx.DiGraph = nx.DiGraph()
    H.add_nodes_from(dag.vertices, output=False)
    H.add_edges_from((u, v) for v in dag.vertices for u in dag.preds[v])
    for o in dag.outputs:
        H.nodes[o]["output"] = True
    found: list[dict[str, str]] = []
    matcher = DiGraphMatcher(H, H, node_match=lambda a, b: a["output"] == b["output"])
    for mapping in matcher.isomorphisms_iter():
        moved = {u: w for u, w in sorted(mapping.items()) if u != w}
        if moved:
            found.append(moved)
            if len(found) >= limit:
                break
    return found


def sat_available() -> bool:
    """True when python-sat imports (``pip install 'attnio[sat]'``)."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def dag_certificate_data(G: nx.DiGraph, outputs: Iterable[str] | None = None
                         ) -> dict[str, Any]:
    """The ``dag`` object of a certificate (:mod:`attnio.check`): nodes, edges, outputs.

    >>> dag_certificate_data(nx.DiGraph([("a", "b")]))
    {'nodes': ['a', 'b'], 'edges': [['a', 'b']], 'outputs': ['b']}
    """
    game_inputs(G)  # acyclic, inputs = sources
    return {"nodes": sorted(str(v) for v in G),
            "edges": sorted([str(u), str(v)] for u, v in G.edges()),
            "outputs": [str(o) for o in game_outputs(G, outputs)]}


def decode(dag: Dag, true: set[int], horizon: int) -> list[Move]:
    """The schedule of a model of :func:`attnio.check.encode` (``true``: its true variables).

    Step t becomes: delete what was red after t - 1 and is not after t, then the reads, the
    computes in topological order (one may use another of the same step), the writes.
    """
    enc = Encoding(dag, horizon)
    order = [v for v in topological_order(dag) if v not in dag.inputs]
    moves: list[Move] = []
    red: set[str] = set()
    for t in range(1, horizon + 1):
        after = {v for v in dag.vertices if enc.r(v, t) in true}
        reads = [v for v in dag.vertices if enc.rd(v, t) in true]
        computes = [v for v in order if enc.cp(v, t) in true]
        writes = [v for v in enc.N if enc.wr(v, t) in true]
        moves.extend(("delete", v) for v in sorted(red - after))
        moves.extend(("read", v) for v in reads)
        moves.extend(("compute", v) for v in computes)
        moves.extend(("write", v) for v in writes)
        red = after
    return moves


@dataclass(frozen=True)
class Refutation:
    """A DRAT refutation of "a schedule of cost <= bound exists": the canonical CNF's text,
    the proof's text (DRUP/DRAT lines), the horizon, the solver's seconds."""

    bound: int
    horizon: int
    cnf: str
    proof: str
    seconds: float
    symmetries: list[dict[str, str]]


#: The last refutation :func:`refute` made, by its inputs: ``attnio pebble`` refutes in the
#: SAT share of ``auto`` (attnio.graphs.portfolio) and then again for ``--certify``'s proof
#: file — the same CNF, the same answer, solved once. One entry: a proof can be 70 MB.
_LAST_REFUTATION: dict[tuple, Refutation] = {}


def _timer(solver: Any, seconds: float | None) -> threading.Timer | None:
    if seconds is None:
        return None
    timer = threading.Timer(max(0.0, seconds), solver.interrupt)
    timer.daemon = True
    timer.start()
    return timer


def refute(G: nx.DiGraph, M: int, bound: int, *, recompute: bool = True,
           outputs: Iterable[str] | None = None, time_limit: float | None = 60
           ) -> Refutation | None:
    """Refute "a schedule of ``G`` with ``M`` red pebbles costs <= ``bound``" with a DRAT
    proof: the canonical CNF (:func:`attnio.check.encode`, horizon from
    :func:`attnio.check.required_horizon`) solved with proof logging.

    Returns None when the time limit ran out first or the horizon is above
    :data:`MAX_SAT_HORIZON`; raises :class:`BoundSatisfiable` (a ``ValueError``) with the
    model's schedule if the CNF is satisfiable (then a schedule of cost <= bound exists and
    no refutation can). The same call twice in a row is solved once (the last refutation is
    kept).

    >>> import networkx as nx
    >>> from attnio.graphs.dags import matmul_dag
    >>> ref = refute(matmul_dag(1, 2, 1), 3, 6)
    >>> ref.horizon, ref.proof.splitlines()[-1]
    (5, '0')
    """
    require("sat", "SAT refutations")
    entered = time.monotonic()  # the limit bounds the whole call, the encoding included
    dag = parse_dag(dag_certificate_data(G, outputs))
    horizon = required_horizon(dag, recompute)
    if horizon > MAX_SAT_HORIZON:
        return None
    key = (repr(sorted(dag.vertices)), repr(sorted((u, v) for v in dag.vertices
                                                  for u in dag.preds[v])),
           repr(dag.outputs), M, bound, recompute)
    if key in _LAST_REFUTATION:
        return _LAST_REFUTATION[key]
    left = (_NO_LIMIT_S if time_limit is None
            else float(time_limit) - (time.monotonic() - entered) - KILL_GRACE_S)
    if left <= 0:
        return None
    started = time.monotonic()
    try:  # symmetries, encoding, solver and proof inside the child: killed at the limit
        satisfiable, lines, symmetries, num_vars, clauses = run_isolated(
            _encode_and_solve, (dag, M, bound, horizon, recompute, PROOF_SOLVER), seconds=left)
    except HardLimitReached:
        return None
    if satisfiable:  # lines: the model's true variables
        raise BoundSatisfiable(bound, M, decode(dag, set(lines), horizon))
    if not lines or lines[-1].strip() != "0":
        lines.append("0")  # the empty clause, if the solver left it implicit
    proof = "\n".join(lines) + "\n"
    made = Refutation(bound, horizon, dimacs_text(num_vars, clauses), proof,
                      time.monotonic() - started, symmetries)
    _LAST_REFUTATION.clear()
    _LAST_REFUTATION[key] = made
    return made


#: ``refute(time_limit=None)``: the child's deadline (seconds; a year).
_NO_LIMIT_S = 365 * 24 * 3600.0


def _encode_and_solve(dag: Dag, M: int, bound: int, horizon: int, recompute: bool, name: str
                      ) -> tuple[bool, list[Any], list[dict[str, str]], int, list[list[int]]]:
    """In the child of :func:`refute`: the symmetries and the canonical CNF, then (True, the
    model's true variables) or (False, the DRAT proof's lines), with the symmetries, the
    number of variables and the clauses (the parent writes them as DIMACS)."""
    from pysat.solvers import Solver

    symmetries = dag_symmetries(dag)
    enc, clauses = encode(dag, M, bound, horizon, recompute, symmetries)
    with Solver(name=name, bootstrap_with=clauses, with_proof=True) as solver:
        if solver.solve():
            return (True, [lit for lit in solver.get_model() if lit > 0], symmetries,
                    enc.num_vars, clauses)
        return False, list(solver.get_proof()), symmetries, enc.num_vars, clauses


def _initial_schedule(G: nx.DiGraph, M: int, recompute: bool, outputs: Iterable[str] | None,
                      incumbent: Sequence[Move] | None) -> tuple[int, list[Move]]:
    if incumbent:
        moves: list[Move] = [(str(kind), str(v)) for kind, v in incumbent]
        return replay(G, moves, M, recompute=recompute, outputs=outputs).io, moves
    from attnio.graphs.heuristic_schedule import heuristic_schedule

    found = heuristic_schedule(G, M, outputs=outputs, time_limit=None, max_evaluations=50)
    moves = [(str(kind), str(v)) for kind, v in found.schedule]
    return replay(G, moves, M, recompute=recompute, outputs=outputs).io, moves


def solve_sat(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    time_limit: float | None = 60,
    incumbent: Sequence[Move] | None = None,
    on_lower_bound: Callable[[int, str], Any] | None = None,
    lower_bound: int = 0,
) -> PebbleResult:
    r""":math:`Q(G, M)` by SAT (module docstring): optimal, infeasible, or undecided with the
    proven bracket when ``time_limit`` seconds run out.

    Parameters
    ----------
    G, M, recompute, outputs
        The instance (:mod:`attnio.graphs.game`).
    time_limit : float or None
        Seconds for the whole call (None: no limit).
    incumbent : list of Move, optional
        A schedule to start from (replayed); else a quick heuristic schedule.
    on_lower_bound : callable, optional
        Called ``(value, "sat")`` whenever a refutation raises the lower bound.
    lower_bound : int
        A proven lower bound to start the bisection from (the compulsory I/O is used
        anyway).

    Raises
    ------
    InvalidInputError
        Bad ``G`` or ``M``, or python-sat not installed (``attnio[sat]``).

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> solve_sat(matmul_dag(1, 2, 1), 3).io
    7
    """
    if not sat_available():  # MissingExtraError: one line naming the extra (exit 2)
        require("sat", "method='sat'")
    from pysat.card import ITotalizer
    from pysat.solvers import Solver

    validate_digraph(G)
    validate_cache_size(M)
    started = time.monotonic()
    deadline = None if time_limit is None else started + max(0.0, float(time_limit))
    shortfall = pebbles_shortfall(IndexedDAG(G, outputs), M)
    if shortfall is not None:
        return PebbleResult.infeasible(shortfall)
    dag = parse_dag(dag_certificate_data(G, outputs))
    reads, writes = compulsory_io(dag)
    lower = max(reads + writes, int(lower_bound))
    upper, best = _initial_schedule(G, M, recompute, outputs, incumbent)

    def result(reason: str | None) -> PebbleResult:
        seconds = time.monotonic() - started
        if reason is None or lower >= upper:
            return PebbleResult.optimal(upper, best, seconds=seconds,
                                        lower_source="sat refutation")
        return PebbleResult.undecided(lower, upper, reason, schedule=best, seconds=seconds,
                                      lower_source="sat refutation")

    if lower >= upper:
        return result(None)
    horizon = required_horizon(dag, recompute)
    if horizon > MAX_SAT_HORIZON:
        return result(f"the SAT horizon {horizon} is above MAX_SAT_HORIZON={MAX_SAT_HORIZON}")
    enc, clauses = encode(dag, M, None, horizon, recompute, dag_symmetries(dag))
    compulsory = reads + writes  # cost = compulsory + extras (attnio.check.encode)
    totalizer = ITotalizer(lits=enc.extras, ubound=upper - compulsory, top_id=enc.num_vars)
    solver = Solver(name=SAT_SOLVER, bootstrap_with=clauses + totalizer.cnf.clauses)
    try:
        while lower < upper:
            if deadline is not None and time.monotonic() >= deadline:
                return result(f"time limit {time_limit:g} s reached")
            bound = (lower + upper - 1) // 2  # is there a schedule of cost <= bound?
            timer = _timer(solver, None if deadline is None else deadline - time.monotonic())
            try:
                answer = solver.solve_limited(
                    assumptions=[-totalizer.rhs[bound - compulsory]], expect_interrupt=True)
            finally:
                if timer is not None:
                    timer.cancel()
            if answer is None:
                return result(f"time limit {time_limit:g} s reached")
            if answer:
                true = {lit for lit in solver.get_model() if lit > 0}
                moves = decode(dag, true, horizon)
                cost = replay(G, moves, M, recompute=recompute, outputs=outputs).io
                assert cost <= bound, (cost, bound)  # the encoding's soundness
                upper, best = cost, moves
            else:
                lower = bound + 1
                if on_lower_bound is not None:
                    on_lower_bound(lower, "sat refutation")
        return result(None)
    finally:
        solver.delete()
        totalizer.delete()
