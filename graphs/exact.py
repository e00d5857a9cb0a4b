r"""Exact optimal red–blue pebbling: A* over packed-integer states, with a certificate.

:func:`solve_optimal` computes

.. math::  Q(G, M) = \min\{\text{reads} + \text{writes} :
           \text{complete schedules of } G \text{ with at most } M \text{ red pebbles}\}

for the game of :mod:`attnio.graphs.game` (recomputation allowed, or one-shot), and returns the
optimal schedule, which :func:`attnio.graphs.game.replay` replays to exactly the reported cost.
It returns a :class:`~attnio.graphs.pebble_result.PebbleResult`: verdict ``infeasible`` when
no schedule exists and ``undecided`` (with the best proven lower bound and the best known upper
bound) when its time or state budget runs out — never a guess.

The search lives in four rooms, each small enough to hold in mind, with its proofs beside it:

* :mod:`attnio.graphs.exact_state` — the relevant sub-DAG as bitmasks, (R0) irrelevant
  vertices dropped, (R7) symmetry (automorphisms, canonical keys);
* :mod:`attnio.graphs.exact_moves` — macro moves (R8) and the reductions R1–R6, R9, R10, each
  with its proof that optimality is kept;
* :mod:`attnio.graphs.exact_heuristic` — the admissible heuristic h and why it never
  exceeds the remaining cost;
* this module — the A* driver: budgets, bookkeeping, the second lower bound ("extra moves")
  and the certificate (every schedule returned is replayed by the validator).

The shared pieces have one public home each: the relevant sub-DAG
(:mod:`attnio.graphs.indexed_dag`), the result (:mod:`attnio.graphs.pebble_result`); the
search rules of one instance are :class:`PebbleSearch` here. :mod:`attnio.graphs.engines`
puts this search and the others behind one ``solve(G, M, method=...)``.
:mod:`attnio.graphs.exact_compiled` runs the same search in a compiled core.

Search bookkeeping (none of it changes the set of schedules considered)
-----------------------------------------------------------------------
* **Best known schedule.** The incumbent (replayed, so achievable) and every goal-ready state
  met while *generating* successors (its f = g + final writes is achievable, R3) give a best
  known cost U. A state with f ≥ U is not stored (h admissible: nothing through it is
  cheaper than U), and once the least f on the frontier reaches U, U is optimal and its
  schedule is returned.
* **Canonical keys (R7) by parts.** Every automorphism permutes the R, B (and C) blocks
  separately, so the least image is found by first minimising the (B, C) part — memoised per
  (B, C), with the automorphisms that reach it — and then mapping only R's ≤ M bits through
  those automorphisms. Same key as the plain minimum (tested), several times cheaper.
* **Seen successors skipped early.** With recomputation, a macro move that fills the cache
  and writes back no output is already normal (R4, R5), so its raw key is looked up before
  it is built; the caller would discard it anyway.
* **Lazy heuristic.** A successor is pushed with the provisional value
  :math:`\max(f_{parent}, g + |\text{outputs} \setminus B|)` (and the extra-moves bound
  below), a valid lower bound on every
  schedule through it (:math:`h^*(child) \ge h^*(parent) - cost \ge f_{parent} - g_{parent}
  - cost`), and h is evaluated only when it is popped; if g + h is larger it goes back on
  the heap with that value. Most successors are never popped, so most h evaluations are
  saved; the order of expansion by f, and so optimality, is unchanged.
* **Extra moves (a second lower bound).** Call a move *mandatory* if it is the first read of
  a needed input or the write of an output (needed input: an ancestor of an output that is
  not blue at the start). Every complete schedule makes each mandatory move once, so every
  completion of a path costs at least ``mandatory + extra``, where ``extra`` counts the
  path's other moves: a needed input never read on the path is still needed (an output
  depending on it cannot have been computed) and an output not yet blue still needs its
  write. The inputs read so far are path information, not part of the state: they are kept
  for the stored (cheapest) path to each state, mapped through the automorphisms, and the
  bound is valid for that path — which is all A* needs, because the cost-to-go of a state
  does not depend on the path, so a path of least g through a state of an optimal schedule
  completes at the optimum. Where h is flat (attention backward n = 2, d = 1, M = 11: h = 14
  on whole plateaus) this bound alone splits the search into layers of 0, 1, … extra moves.
* **Tie-breaking.** Among equal f, larger g first, then the newest state (depth-first along
  a plateau of equal f). With first-in-first-out ties, attention backward (n = 2, d = 1,
  M = 16) was still undecided after 120 s and 223 000 states; newest-first finds the
  schedule of cost |inputs| + |outputs| after 268. Any order is correct: A* returns an
  optimum for every tie rule.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> r = solve_optimal(G, 3)
>>> r.io, r.schedule
(3, [('read', 'a'), ('read', 'b'), ('compute', 'c'), ('write', 'c')])
>>> solve_optimal(G, 2).reason
"M=2 is below the 3 red pebbles vertex 'c' needs (in-degree 2 + 1)"
"""

from __future__ import annotations

import heapq
import math
import time
from typing import Callable, Iterable, NamedTuple, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.exact_heuristic import AdmissibleHeuristic
from attnio.graphs.exact_moves import MacroMoves
from attnio.graphs.exact_state import Symmetry
from attnio.graphs.game import Move, replay, validate_cache_size
from attnio.graphs.indexed_dag import IndexedDAG, iter_bits, pebbles_shortfall
from attnio.graphs.pebble_result import PebbleResult
from attnio.progress import progress_enabled

# validate_time_limit lives in attnio.validation; re-exported here (its users import it from here)
from attnio.validation import positive_int, validate_digraph, validate_time_limit

__all__ = [
    "PebbleSearch",
    "solve_optimal",
    "ExactStart",
    "start_exact_search",
    "min_cache_size",
    "validate_time_limit",
    "DEFAULT_MAX_STATES",
    "MAX_EXACT_VERTICES",
    "validate_exact_size",
]

DEFAULT_MAX_STATES = 3_000_000

#: Largest DAG (vertices) :func:`solve_optimal` accepts (a stated limit, not a property of
#: the game). States are bitmasks over the vertices and the search is exponential: far below
#: this size it can only answer undecided. Note: the automorphism enumeration (R7, VF2) runs
#: before the clock is read, so ``time_limit`` is not honoured there: matmul 4×4×4 (144
#: vertices) takes ~45 s with ``time_limit=1`` (``symmetry=False`` avoids it).
MAX_EXACT_VERTICES = 2_000


def validate_exact_size(G: nx.DiGraph) -> None:
    """Refuse a DAG with more than :data:`MAX_EXACT_VERTICES` vertices (InvalidInputError).

    >>> validate_exact_size(nx.path_graph(2_001, create_using=nx.DiGraph))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: the DAG has 2001 vertices; exact search accepts at most MAX_EXACT_VERTICES=2000
    """
    if G.number_of_nodes() > MAX_EXACT_VERTICES:
        raise InvalidInputError(f"the DAG has {G.number_of_nodes()} vertices; exact search "
                                f"accepts at most MAX_EXACT_VERTICES={MAX_EXACT_VERTICES}")


def min_cache_size(G: nx.DiGraph, outputs: Iterable[str] | None = None) -> int:
    """Least M for which a complete schedule exists: max in-degree over the non-input
    relevant vertices + 1, or 1 if nothing must be computed
    (:attr:`attnio.graphs.indexed_dag.IndexedDAG.min_cache_size`).

    >>> min_cache_size(nx.DiGraph([("a", "c"), ("b", "c")]))
    3
    """
    return IndexedDAG(G, outputs).min_cache_size


class PebbleSearch(MacroMoves, AdmissibleHeuristic):
    """One instance's search rules: the moves and normal form (:mod:`attnio.graphs.exact_moves`)
    and the heuristic (:mod:`attnio.graphs.exact_heuristic`); shared by the compiled core."""


def _mandatory_moves(needed_inputs: int, outputs_to_write: int) -> int:
    """Moves every complete schedule makes (see "Extra moves"): one first read per needed
    input and one write per output not blue at the start."""
    return needed_inputs.bit_count() + outputs_to_write.bit_count()


class ExactStart(NamedTuple):
    """The validated start of an exact search (:func:`start_exact_search`)."""

    inst: IndexedDAG
    time_limit: float | None
    max_states: int | None
    start_time: float
    deadline: float


def start_exact_search(G: nx.DiGraph, M: int, outputs: Iterable[str] | None,
                       time_limit: float | None, max_states: int | None) -> ExactStart:
    """Validate an exact search's inputs where they enter, once for both engines
    (:func:`solve_optimal` and :func:`attnio.graphs.exact_compiled.solve_optimal_compiled`):
    ``G`` a DiGraph of at most :data:`MAX_EXACT_VERTICES` vertices, ``M`` a cache size, the
    time limit, a positive state budget; then start the clock and index the DAG.

    >>> from attnio.graphs.dags import matmul_dag
    >>> start = start_exact_search(matmul_dag(1, 1, 1), 3, None, None, None)
    >>> start.inst.n, start.time_limit, start.max_states, start.deadline
    (3, None, None, inf)
    >>> start_exact_search(matmul_dag(1, 1, 1), 3, None, None, 0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: max_states=0 must be a positive integer
    """
    validate_digraph(G)
    validate_exact_size(G)
    validate_cache_size(M)
    time_limit = validate_time_limit(time_limit)
    if max_states is not None:
        max_states = positive_int("max_states", max_states)
    start_time = time.monotonic()
    deadline = math.inf if time_limit is None else start_time + time_limit
    return ExactStart(IndexedDAG(G, outputs), time_limit, max_states, start_time, deadline)


def solve_optimal(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    time_limit: float | None = 60,
    max_states: int | None = DEFAULT_MAX_STATES,
    upper_bound: int | None = None,
    incumbent: Sequence[Move] | None = None,
    symmetry: bool = True,
    symmetry_limit: int = 128,
    progress: bool | None = None,
    on_lower_bound: Callable[[int], None] | None = None,
) -> PebbleResult:
    r"""Optimal red–blue pebbling of ``G`` with ``M`` red pebbles (A*, reductions R0–R10).

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG; inputs are exactly its sources.
    M : int
        Red pebbles, ``M >= 1``.
    recompute : bool
        True: Hong–Kung's game; False: one-shot.
    outputs : iterable of str, optional
        Default ``G.graph["outputs"]``, else the sinks.
    time_limit : float or None
        Seconds before answering undecided (None: no limit; else finite
        and >= 0). It bounds the whole call: the automorphism search (R7) and its tables
        stop at half the limit keeping what they found, and the search reads the clock
        before every state it pops and every 256 successors it generates.
    max_states : int or None
        Distinct states stored before giving up (memory budget; None: no limit).
    upper_bound : int, optional
        A known achievable cost (e.g. a replayed algorithm schedule): prunes states whose
        f-value exceeds it and is reported if the budget runs out. Must be achievable — an
        unachievable bound can make the result undecided, never wrong.
    incumbent : sequence of Move, optional
        A complete schedule (it is replayed here, so it cannot lie). Its cost becomes the
        upper bound, and once the least f on the frontier reaches that cost the incumbent is
        returned as optimal (the heuristic is admissible, so no cheaper schedule remains).
    symmetry : bool
        Merge states that an automorphism of the DAG maps onto each other (R7).
    symmetry_limit : int
        At most this many automorphisms are enumerated (VF2).
    progress : bool, optional
        Draw a tqdm bar on stderr (default: when stderr is a TTY).
    on_lower_bound : callable, optional
        ``on_lower_bound(lb)`` each time the least f on the frontier rises: a proven lower
        bound on :math:`Q(G, M)` at that moment (for anytime callers,
        :mod:`attnio.graphs.anytime`, which must know it when interrupted).

    Returns
    -------
    PebbleResult
        Verdict ``optimal`` (its schedule replays to ``io``), ``infeasible`` or ``undecided``.

    Raises
    ------
    InvalidInputError
        ``G`` not a DiGraph, more than :data:`MAX_EXACT_VERTICES` vertices, ``M`` not a
        positive int, a time limit that is NaN, infinite or negative, a state budget that is
        not positive, a cyclic graph, unknown or repeated outputs.

    A KeyboardInterrupt is not caught: it ends the call (``attnio pebble`` exits 130).

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> r = solve_optimal(matmul_dag(1, 1, 2), 3)   # C[0,j] = A[0,0]·B[0,j]: 3 reads + 2 writes
    >>> r.io, replay(matmul_dag(1, 1, 2), r.schedule, 3).io
    (5, 5)
    """
    inst, time_limit, max_states, start_time, deadline = start_exact_search(
        G, M, outputs, time_limit, max_states)
    shortfall = pebbles_shortfall(inst, M)
    if shortfall is not None:
        return PebbleResult.infeasible(shortfall)
    if incumbent is not None:
        incumbent = list(incumbent)
        inc_io = replay(G, incumbent, M, recompute=recompute, outputs=outputs).io
        upper_bound = inc_io if upper_bound is None else min(upper_bound, inc_io)
    search = PebbleSearch(inst, M, recompute)
    n = inst.n
    one_shot = not recompute
    # the automorphism search gets at most half the time budget (it only speeds up the rest)
    sym_deadline = math.inf if time_limit is None else start_time + time_limit / 2
    sym = Symmetry(G, inst, symmetry_limit if symmetry else 1, sym_deadline)
    sym.build(3 if one_shot else 2)
    canon = sym.canon
    mask_n = inst.all
    # raw (pre-canonical) keys already pushed, with their g: skips the canonicalisation of
    # repeated successors (the canonical image of a pushed raw state has g_of <= that g)
    raw_seen: dict[int, int] = {}

    R0, B0, C0, P0 = search.normalise(0, inst.inp, 0)
    h0 = search.heuristic(R0, B0, C0)
    k0 = R0 | (B0 << n) | ((C0 << (2 * n)) if one_shot else 0)
    g_of: dict[int, int] = {k0: 0}
    # Mandatory I/O (see "Extra moves"): each needed input read once, each output written once
    needed_inputs = inst.inp & P0
    mandatory = _mandatory_moves(needed_inputs, inst.out & ~B0)
    first_out = inst.out & ~B0
    # inputs read at least once on the stored (best) path to each state, in its frame
    reads_of: dict[int, int] = {k0: 0}
    parent: dict[int, tuple[int, int, int]] = {}
    heap: list[tuple[int, int, int, int, bool]] = [(h0, 0, 0, k0, False)]
    tick = 0
    explored = 0
    bar = None
    if progress_enabled(progress):
        import sys

        from tqdm.auto import tqdm
        bar = tqdm(desc=f"pebble M={M}", unit=" states", file=sys.stderr, leave=False)

    # Best complete schedule known so far: the incumbent (replayed above) and/or a goal-ready
    # state met during generation (its cost g + final writes is achievable, R3). Once the
    # least f on the frontier reaches best_io, no cheaper schedule remains (h admissible), so
    # best_io is optimal; and a state with f >= best_io cannot lead to a cheaper schedule,
    # so it is not stored. A bare upper_bound (no schedule) only prunes f > upper_bound.
    best_io = inc_io if incumbent is not None else None
    best_goal: int | None = None          # canonical key of the best goal-ready state met
    prune_above = upper_bound if upper_bound is not None else 1 << 62
    if best_io is not None:
        prune_above = min(prune_above, best_io - 1)

    def undecided(reason: str, expanding: int | None = None) -> PebbleResult:
        # h is admissible, so the least f on the frontier bounds every unexplored solution;
        # stopped in the middle of an expansion, the state being expanded (f = expanding) is
        # part of the frontier again (some of its successors were never pushed)
        lower = heap[0][0] if heap else h0
        if expanding is not None:
            lower = min(lower, expanding)
        upper = upper_bound if best_io is None else (
            best_io if upper_bound is None else min(best_io, upper_bound))
        lower = max(lower, h0)
        if upper is not None and upper < lower:  # a given upper_bound below a proven bound:
            upper = None                         # it was not achievable, so no upper is known
        return PebbleResult.undecided(lower, upper, reason, states_explored=explored,
                                      seconds=time.monotonic() - start_time)

    def finish(k: int) -> PebbleResult:
        """The certificate of goal-ready state ``k``, replayed (R3: final writes)."""
        Rk, Bk = k & mask_n, (k >> n) & mask_n
        io = g_of[k] + (inst.out & Rk & ~Bk).bit_count()
        schedule = _reconstruct(search, sym, parent, k, k0, (R0, B0, C0))
        check = replay(G, schedule, M, recompute=recompute, outputs=outputs)
        if check.io != io:  # internal invariant: the certificate must replay exactly
            raise RuntimeError(f"solver bug: schedule replays to {check.io}, not {io}")
        return PebbleResult.optimal(io, schedule, states_explored=explored,
                                    seconds=time.monotonic() - start_time)

    out_mask = inst.out
    raw_cap = 4 * (max_states or DEFAULT_MAX_STATES)
    raw_get = raw_seen.get
    g_get = g_of.get
    heuristic = search.heuristic
    normalise = search.normalise
    successors = search.successors
    pred = inst.pred
    heappush = heapq.heappush
    BIG = 1 << 62
    monotonic = time.monotonic
    out_of_time = f"time limit {time_limit} s reached"
    out_of_states = f"state budget {max_states} reached"
    state_cap = BIG if max_states is None else max_states
    reported = -1
    try:
        while heap:
            f, negg, t0, k, lazy = heap[0]
            if on_lower_bound is not None and f > reported:  # least f: a valid lower bound
                reported = f
                on_lower_bound(max(f, h0) if best_io is None else min(max(f, h0), best_io))
            if best_io is not None and f >= best_io:
                if best_goal is None:
                    assert incumbent is not None  # best_io came from it
                    return PebbleResult.optimal(inc_io, incumbent, states_explored=explored,
                                                seconds=time.monotonic() - start_time)
                return finish(best_goal)
            # the budgets before every pop (a lazy pop evaluates h: ~1 ms on 1 000 vertices),
            # while the least f is still on the heap
            if monotonic() > deadline:
                return undecided(out_of_time)
            if len(g_of) > state_cap:
                return undecided(out_of_states)
            g = -negg
            if g_get(k, BIG) < g:
                heapq.heappop(heap)
                continue  # stale entry
            if lazy:
                # deferred heuristic (see "Lazy heuristic"): evaluate it now, and put the
                # state back if its true f is larger than the provisional one
                heapq.heappop(heap)
                h = heuristic(k & mask_n, (k >> n) & mask_n, k >> (2 * n))
                if h < 0 or g + h > prune_above:
                    continue  # dead, or cannot beat the best known schedule
                if g + h > f:
                    heappush(heap, (g + h, negg, t0, k, False))
                    continue
            if not lazy:
                heapq.heappop(heap)
            explored += 1
            if bar is not None and explored & 1023 == 0:
                bar.update(1024)
                bar.set_postfix(f=f, stored=len(g_of))
            R, B, C = k & mask_n, (k >> n) & mask_n, k >> (2 * n)
            if (out_mask & ~(R | B)) == 0:
                return finish(k)  # goal-ready (R3): write the red outputs not blue yet
            P = search.possibly_needed(B, C)
            Rd = reads_of[k]
            unread = needed_inputs & ~Rd & ~R
            # with recomputation, a move that fills the cache and writes back no output
            # keeps P (blue non-outputs stay in P: they can be recomputed) and leaves no free
            # slot, and W ⊆ R ⊆ P: the state is already normal (R4, R5)
            generated = 0
            for cost, w, E, W, Rr, Br, Cr in successors(R, B, C, P, g, raw_seen):
                generated += 1
                if not generated & 255:  # one state can have 600 000 successors
                    if monotonic() > deadline:
                        return undecided(out_of_time, expanding=f)
                    if len(g_of) > state_cap:
                        return undecided(out_of_states, expanding=f)
                if recompute and not W & out_mask and Rr.bit_count() >= M:
                    Rn, Bn, Cn = Rr, Br, Cr
                else:
                    Rn, Bn, Cn, _ = normalise(Rr, Br, Cr)
                g2 = g + cost
                raw = Rn | (Bn << n) | ((Cn << (2 * n)) if one_shot else 0)
                if raw_get(raw, BIG) <= g2:
                    continue
                if len(raw_seen) < raw_cap:
                    raw_seen[raw] = g2
                k2, p2 = canon(raw)
                if g_get(k2, BIG) <= g2:
                    continue
                writes = (out_mask & ~Bn).bit_count()
                goal_ready = not out_mask & ~(Rn | Bn)
                # provisional f: h(child) >= h*(parent) - cost >= f - g - cost, so f bounds
                # every schedule through the child; the final writes bound it too
                f2 = g2 + writes
                if f2 < f and not goal_ready:
                    f2 = f
                # extra moves so far: total >= mandatory + extra on every completion
                first = pred[w] & unread
                extra = g2 - (Rd | first).bit_count() - (Bn & first_out).bit_count()
                if mandatory + extra > f2:
                    f2 = mandatory + extra
                if f2 > prune_above:
                    continue
                g_of[k2] = g2
                reads_of[k2] = sym.map_bits(p2, Rd | first) if p2 else Rd | first
                parent[k2] = (k, w | (E << 12) | (W << (12 + n)), p2)
                if goal_ready:
                    # h is exactly its final writes, so f2 is achievable
                    best_io, best_goal = f2, k2
                    prune_above = f2 - 1
                tick -= 1  # ties on (f, g): newest first (depth-first along plateaus)
                heappush(heap, (f2, -g2, tick, k2, not goal_ready))
    finally:
        if bar is not None:
            bar.close()
    if best_io is not None:  # frontier exhausted: nothing beats the best schedule known
        if best_goal is None:
            assert incumbent is not None  # best_io came from it
            return PebbleResult.optimal(inc_io, incumbent, states_explored=explored,
                                        seconds=time.monotonic() - start_time)
        return finish(best_goal)
    if upper_bound is not None:
        return undecided(f"no schedule within upper_bound={upper_bound} (bound not achievable?)")
    raise RuntimeError("solver bug: search space exhausted on a feasible instance")


def _reconstruct(search: PebbleSearch, sym: Symmetry, parent: dict[int, tuple[int, int, int]],
                 k: int, k0: int, start: tuple[int, int, int]) -> list[Move]:
    """Walk the parent links back, then replay the moves forward to emit every pebble move,
    including the deletions of (R4) and the free computations of (R5). Moves are stored in
    the frame of the parent's canonical image; ``to_actual`` maps them back (R7)."""
    steps: list[tuple[int, int]] = []
    while k != k0:
        k, code, p = parent[k]
        steps.append((code, p))
    steps.reverse()
    names = search.dag.names
    n = search.dag.n
    moves: list[Move] = []
    R, B, C = start
    sigma = list(range(n))          # actual index -> canonical index
    to_actual = list(range(n))      # canonical index -> actual index

    def emit(kind: str, i: int) -> None:
        moves.append((kind, names[to_actual[i]]))

    full_n = (1 << n) - 1
    pred = search.dag.pred
    for code, p in steps:
        w, E, W = code & 4095, (code >> 12) & full_n, code >> (12 + n)
        for u in iter_bits(E):
            if (W >> u) & 1:
                emit("write", u)
                B |= 1 << u
            emit("delete", u)
        R &= ~E
        for x in iter_bits(pred[w] & ~R):
            emit("read", x)
        emit("compute", w)
        R |= pred[w] | (1 << w)
        C |= 1 << w
        Rn, Bn, Cn, P = search.normalise(R, B, C)
        for i in iter_bits(R & ~P):
            emit("delete", i)
        for i in iter_bits(Rn & ~(R & P)):
            emit("compute", i)
        # move to the child's canonical frame
        n_ = search.dag.n
        image = sym.apply(p, Rn | (Bn << n_) | (Cn << (2 * n_)))
        mask = search.dag.all
        R, B, C = image & mask, (image >> n_) & mask, image >> (2 * n_)
        perm = sym.perms[p]
        sigma = [perm[j] for j in sigma]
        for actual, canonical in enumerate(sigma):
            to_actual[canonical] = actual
    for i in iter_bits(search.dag.out & R & ~B):
        emit("write", i)
    return moves
