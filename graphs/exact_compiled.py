r"""Exact optimal red–blue pebbling with a compiled search core (numba, prebuilt wheels).

:func:`solve_optimal_compiled` answers the same question as
:func:`attnio.graphs.exact.solve_optimal` — :math:`Q(G, M)`, the least reads + writes of a
complete schedule with at most M red pebbles, recomputation allowed or one-shot — with the
same search (macro moves and reductions R0–R10, the same admissible heuristic and extra-moves
bound, symmetry R7; proofs in :mod:`attnio.graphs.exact`), run by the kernel in
:mod:`attnio.graphs.exact_kernel` over ``uint64`` bitmasks in NumPy arrays. It adds
**partial expansion** (PEA*): expanding a state with priority F stores only the successors of
f ≤ F and puts the state back with the least f it left out, so successors that A* would
store but never expand (most of them, on a flat plateau) are not stored until their f is
reached. (Correctness: every successor of f ≤ F is stored now; the others are generated
again when the state is popped at the next f, so each successor is stored before the search
passes its f — the order in which A* reaches an optimum is unchanged.)

The reference search stays the readable one; this one is checked against it and against
the plain baseline (``benchmarks/agree_pebble.py --engine compiled``; tests in
``tests/graphs/test_exact_compiled.py``). Costs are Python ints, and the optimal schedule is
rebuilt move by move with the reference module's own successor generator and replayed by
the independent validator (:func:`attnio.graphs.game.replay`) before it is returned.

Scope: at most 64 relevant vertices (one ``uint64`` word per mask) and costs below 4 000.
Outside it, or without numba installed (``pip install attnio[fast]``), the call is handed to
the reference search (:data:`LAST_RUN` ``["engine"]`` says which ran).

Time limits and Ctrl-C: numba code cannot be interrupted from Python, so the kernel runs in
bounded chunks of expansions (sized to take ~0.05 s) and the driver reads the clock and lets
KeyboardInterrupt through between chunks. The first call in a fresh environment compiles
the kernel (~10–20 s, then cached on disk next to the module); that compilation counts
against ``time_limit`` and is skipped when the limit is under 30 s (reference search then).
A kernel in numba's disk cache loads in ~0.3–1.4 s and runs under any limit.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> r = solve_optimal_compiled(G, 3, time_limit=None)
>>> r.io, r.schedule
(3, [('read', 'a'), ('read', 'b'), ('compute', 'c'), ('write', 'c')])
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable, Sequence

import networkx as nx
import numpy as np

from attnio.graphs import exact_kernel
from attnio.graphs.exact import (
    DEFAULT_MAX_STATES,
    PebbleSearch,
    solve_optimal,
    start_exact_search,
)
from attnio.graphs.exact_state import Symmetry
from attnio.graphs.game import Move, replay
from attnio.graphs.indexed_dag import iter_bits
from attnio.graphs.pebble_result import PebbleResult

__all__ = ["solve_optimal_compiled", "compiled_available", "bytes_per_state", "warm_up",
           "allocated_bytes_per_state", "LAST_RUN",
           "MAX_COMPILED_VERTICES"]

#: Relevant vertices the kernel handles (one uint64 word per mask).
MAX_COMPILED_VERTICES = 64
#: Costs must fit the heap priority's 12-bit fields. Never binding within the 64-vertex
#: scope: computing the relevant vertices in topological order, reading every predecessor
#: and writing every vertex, costs at most sum(in-degree) + n <= 64·63/2 + 64 = 2 080, so an
#: optimum is below it and pruning f > 4 000 without an incumbent loses nothing.
MAX_COMPILED_COST = 4000
#: Rows of the kernel's direct-mapped memo of h (4 words each; a fixed 32 MB, not per state).
H_CACHE_ROWS = 1 << 20


#: Figures of the last call in this process: states stored, bytes per stored state, engine.
LAST_RUN: dict[str, object] = {}


def compiled_available() -> bool:
    """True when numba is installed (the optional extra ``attnio[fast]``)."""
    return exact_kernel.HAVE_NUMBA


_ROW_ARRAYS = ("sR", "sB", "sC", "sRead", "sG", "sParent", "sPerm")


def bytes_per_state(table: dict) -> float:
    """Bytes one stored state costs when the arrays are full: its row (R, B, C, reads,
    g, parent, automorphism), its share of the hash slots (load <= 1/2) and of the heap.

    (The arrays double when full, so right after a doubling up to half of them is unused:
    :func:`allocated_bytes_per_state` gives that figure.)"""
    rows = table["sR"].shape[0]
    row = sum(table[name].itemsize for name in _ROW_ARRAYS)
    slots = table["slots"].nbytes / rows
    heap = (table["hkey"].nbytes + table["hrow"].nbytes) / rows
    return row + slots + heap


def allocated_bytes_per_state(table: dict) -> float:
    """Every array's bytes divided by the states actually stored."""
    count = max(1, int(table["ctr"][exact_kernel.N_STATES]))
    total = sum(table[name].nbytes for name in _ROW_ARRAYS + ("slots", "hkey", "hrow"))
    return total / count


def _alloc(capacity: int) -> dict:
    slots = 1 << max(4, (2 * capacity - 1).bit_length())
    return {
        "sR": np.zeros(capacity, np.uint64), "sB": np.zeros(capacity, np.uint64),
        "sC": np.zeros(capacity, np.uint64), "sRead": np.zeros(capacity, np.uint64),
        "sG": np.zeros(capacity, np.int32), "sParent": np.full(capacity, -1, np.int32),
        "sPerm": np.zeros(capacity, np.int8), "slots": np.full(slots, -1, np.int32),
        "hkey": np.zeros(capacity, np.int64), "hrow": np.zeros(capacity, np.int32),
    }


def _grow(table: dict, state_cap: int) -> bool:
    """Double whatever is full (states, hash slots, heap); False when the budget forbids."""
    ctr = table["ctr"]
    count, heap = int(ctr[exact_kernel.N_STATES]), int(ctr[exact_kernel.HEAP_SIZE])
    grew = False
    cap = table["sR"].shape[0]
    if count + 1 >= cap or 2 * (count + 2) > table["slots"].shape[0]:
        if cap >= state_cap + 1:
            return False
        new_cap = min(2 * cap, state_cap + 1)
        for name in ("sR", "sB", "sC", "sRead", "sG", "sParent", "sPerm"):
            old = table[name]
            arr = np.zeros(new_cap, old.dtype)
            arr[:count] = old[:count]
            table[name] = arr
        table["slots"] = np.full(1 << max(4, (2 * new_cap - 1).bit_length()), -1, np.int32)
        exact_kernel.rehash(table["sR"], table["sB"], table["sC"], count, table["slots"])
        grew = True
    if heap + 2 >= table["hkey"].shape[0]:
        for name in ("hkey", "hrow"):
            old = table[name]
            arr = np.zeros(2 * old.shape[0], old.dtype)
            arr[:heap] = old[:heap]
            table[name] = arr
        grew = True
    return grew


def _image(perm: list[int], x: int) -> int:
    y = 0
    for i in iter_bits(x):
        y |= 1 << perm[i]
    return y


def _python_canonical(perms: list[list[int]], R: int, B: int, C: int
                      ) -> tuple[int, int, int, int]:
    """The kernel's canonical image (least (B, C, R) over the automorphisms, first
    automorphism on ties) and that automorphism's index, in Python."""
    best = (_image(perms[0], B), _image(perms[0], C), _image(perms[0], R))
    best_p = 0
    for p in range(1, len(perms)):
        cand = (_image(perms[p], B), _image(perms[p], C), _image(perms[p], R))
        if cand < best:
            best, best_p = cand, p
    return best[2], best[0], best[1], best_p


def _rebuild(search: PebbleSearch, perms: list[list[int]], path: list[tuple[int, int, int, int]],
             start: tuple[int, int, int]) -> list[Move]:
    """The pebble moves of a stored path of canonical states (R, B, C, g), root first.

    Each step enumerates the reference module's macro moves
    (:meth:`attnio.graphs.exact.PebbleSearch.successors`) *of the stored canonical state* (the
    free computations of R5 fill slots in index order, which automorphisms do not respect,
    so the step must be redone in the frame the kernel used), normalised the same way, and
    takes the cheapest whose canonical image is the next stored state. Its moves (evictions
    with write-backs, reads, the compute, the deletions of R4, the free computations of R5)
    are emitted under the actual names through the composed automorphisms, then the final
    writes (R3)."""
    inst = search.dag
    names = inst.names
    n = inst.n
    moves: list[Move] = []
    R, B, C, p0 = _python_canonical(perms, *start)
    sigma = list(perms[p0])                 # actual index -> canonical index
    to_actual = [0] * n
    for actual, canonical in enumerate(sigma):
        to_actual[canonical] = actual

    def emit(kind: str, i: int) -> None:
        moves.append((kind, names[to_actual[i]]))

    for (_, _, _, g_prev), (kR, kB, kC, g_next) in zip(path, path[1:]):
        # a parent's g may have dropped after the child was stored (a cheaper path found
        # later), so the move costs at most the difference: take the cheapest match
        P = search.possibly_needed(B, C)
        match = None
        for succ in search.successors(R, B, C, P):
            cost, _, _, _, Rr, Br, Cr = succ
            if cost > g_next - g_prev or (match is not None and cost >= match[0][0]):
                continue
            Rn, Bn, Cn, _ = search.normalise(Rr, Br, Cr)
            cR, cB, cC, p = _python_canonical(perms, Rn, Bn, Cn)
            if (cR, cB, cC) == (kR, kB, kC):
                match = (succ, p)
        if match is None:  # internal invariant
            raise RuntimeError("solver bug: a stored step has no matching macro move")
        (cost, w, E, W, Rr, Br, Cr), p = match
        Rn, Bn, Cn, _ = search.normalise(Rr, Br, Cr)
        for u in iter_bits(E):
            if (W >> u) & 1:
                emit("write", u)
            emit("delete", u)
        for x in iter_bits(inst.pred[w] & ~R):
            emit("read", x)
        emit("compute", w)
        P2 = search.possibly_needed(Br, Cr)
        for i in iter_bits(Rr & ~P2):
            emit("delete", i)
        for i in iter_bits(Rn & ~(Rr & P2)):
            emit("compute", i)
        R, B, C = kR, kB, kC
        perm = perms[p]
        sigma = [perm[j] for j in sigma]
        for actual, canonical in enumerate(sigma):
            to_actual[canonical] = actual
    for i in iter_bits(inst.out & R & ~B):
        emit("write", i)
    return moves


def solve_optimal_compiled(
    G: nx.DiGraph,
    M: int,
    *,
    recompute: bool = True,
    outputs: Iterable[str] | None = None,
    time_limit: float | None = 60,
    max_states: int | None = 200_000_000,
    incumbent: Sequence[Move] | None = None,
    symmetry: bool = True,
    symmetry_limit: int = 128,
    partial_expansion: bool = True,
    chunk_seconds: float = 0.05,
    on_lower_bound: Callable[[int], None] | None = None,
    _finished_twin: bool = False,
) -> PebbleResult:
    r"""Optimal red–blue pebbling of ``G`` with ``M`` red pebbles, compiled A* (see module).

    Parameters
    ----------
    G, M, recompute, outputs, time_limit, incumbent, symmetry, symmetry_limit
        As :func:`attnio.graphs.exact.solve_optimal`.
    max_states : int or None
        Distinct states stored before giving up (about :func:`bytes_per_state` bytes each).
    partial_expansion : bool
        Store only successors whose f equals the expanded state's (PEA*).
    chunk_seconds : float
        Target length of one uninterruptible kernel call.
    on_lower_bound : callable, optional
        As :func:`attnio.graphs.exact.solve_optimal`, called between kernel chunks with the
        least f on the frontier each time it rises (a proven lower bound at that moment).
    _finished_twin : bool
        Tests only: run the planted false twin of (R10) in the kernel (set
        ``MacroMoves._finished_twin`` too, so the certificate is rebuilt with the same moves).

    Returns
    -------
    PebbleResult
        As the reference search; the schedule of an optimal result replays to ``io``.

    Raises
    ------
    InvalidInputError
        As :func:`attnio.graphs.exact.solve_optimal`.

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> solve_optimal_compiled(matmul_dag(1, 2, 1), 3, time_limit=None).io
    7
    """
    inst, time_limit, max_states, start_time, deadline = start_exact_search(
        G, M, outputs, time_limit, max_states)
    need_m = inst.min_cache_size
    reference: dict[str, Any] = dict(
        recompute=recompute, outputs=outputs, incumbent=incumbent, symmetry=symmetry,
        symmetry_limit=symmetry_limit, progress=False, on_lower_bound=on_lower_bound,
        max_states=min(max_states or DEFAULT_MAX_STATES, DEFAULT_MAX_STATES))
    LAST_RUN.clear()
    LAST_RUN["engine"] = "reference"
    if M < need_m or inst.n > MAX_COMPILED_VERTICES or not exact_kernel.HAVE_NUMBA:
        return solve_optimal(G, M, time_limit=time_limit, **reference)
    inc_io = None
    if incumbent is not None:
        incumbent = list(incumbent)
        inc_io = replay(G, incumbent, M, recompute=recompute, outputs=outputs).io
    if inc_io is not None and inc_io >= MAX_COMPILED_COST:
        return solve_optimal(G, M, time_limit=time_limit, **reference)
    if (not _kernel_compiled() and not _kernel_on_disk() and time_limit is not None
            and time_limit < 30):
        # compiling takes ~10-20 s once (see warm_up); a short limit would be spent on it
        # (loading numba's disk cache takes ~0.3-1.4 s: then the kernel runs)
        return solve_optimal(G, M, time_limit=time_limit, **reference)

    # at most the n relevant vertices can hold useful red pebbles, so Q(G, M) = Q(G, min(M,
    # n + 1)); the kernel's int64 arithmetic needs M bounded (M = 10**260 overflowed it), and a
    # schedule legal with fewer red pebbles is legal with M
    M = min(M, inst.n + 1)
    search = PebbleSearch(inst, M, recompute)
    n = inst.n
    sym_deadline = math.inf if time_limit is None else start_time + time_limit / 2
    sym = Symmetry(G, inst, symmetry_limit if symmetry else 1, sym_deadline)
    perms_list = [list(p) for p in sym.perms]
    perms = np.array(perms_list, dtype=np.int64).reshape(len(perms_list), n)

    u = np.uint64
    pred = np.array(inst.pred, dtype=np.uint64) if n else np.zeros(1, np.uint64)
    inp, out, tight = u(inst.inp), u(inst.out), u(search.tight)
    R0, B0, C0, P0 = search.normalise(0, inst.inp, 0)
    needed = inst.inp & P0
    first_out = inst.out & ~B0
    mandatory = needed.bit_count() + first_out.bit_count()
    state_cap = max_states if max_states is not None else (1 << 31) - 2  # int32 rows
    table = _alloc(min(1 << 12, state_cap + 1))
    ctr = np.zeros(8, np.int64)
    ctr[exact_kernel.BEST_IO] = -1 if inc_io is None else inc_io
    ctr[exact_kernel.BEST_GOAL] = -1
    ctr[exact_kernel.PRUNE_ABOVE] = MAX_COMPILED_COST if inc_io is None else inc_io - 1
    table["ctr"] = ctr
    kR, kB, kC, _ = _python_canonical(perms_list, R0, B0, C0)
    table["sR"][0], table["sB"][0], table["sC"][0] = kR, kB, kC
    table["sRead"][0] = 0
    ctr[exact_kernel.N_STATES] = 1
    exact_kernel.rehash(table["sR"], table["sB"], table["sC"], 1, table["slots"])
    scratch = np.zeros(4 * 4096, np.uint64)
    tmask = np.zeros(max(n, 1), np.uint64)
    timp = np.zeros(max(n, 1), np.bool_)
    h0 = int(exact_kernel.heuristic(pred, n, inp, out, tight, M, recompute, u(kR), u(kB), u(kC),
                         scratch, tmask, timp))
    f0 = max(h0, mandatory)
    ctr[exact_kernel.TICK] = 1
    exact_kernel.heap_push(table["hkey"], table["hrow"], ctr, exact_kernel.priority(f0, 0, 1), 0)
    bitpos = np.zeros(64, np.int64)
    # memo of h (exact_kernel.cached_heuristic): a fixed 32 MB, calloc'd lazily
    hcache = np.zeros((H_CACHE_ROWS, 4), np.uint64)
    comb = np.zeros(64, np.int64)

    def frontier_f() -> int:
        size = int(ctr[exact_kernel.HEAP_SIZE])
        low = int(table["hkey"][0] >> (exact_kernel.G_BITS + exact_kernel.TICK_BITS)) if size else f0
        return low

    def undecided(reason: str) -> PebbleResult:
        best = int(ctr[exact_kernel.BEST_IO])
        upper = best if best >= 0 else None
        lower = max(f0, frontier_f())
        if upper is not None:
            lower = min(lower, upper)
        return PebbleResult.undecided(
            lower, upper, reason + f" (compiled core, {int(ctr[exact_kernel.N_STATES])} states stored)",
            states_explored=int(ctr[exact_kernel.EXPLORED]), seconds=time.monotonic() - start_time)

    chunk = 64
    cap = state_cap
    LAST_RUN["engine"] = "compiled"

    def record() -> None:
        LAST_RUN["stored_states"] = int(ctr[exact_kernel.N_STATES])
        LAST_RUN["bytes_per_state"] = round(bytes_per_state(table), 1)
        LAST_RUN["allocated_bytes_per_state"] = round(allocated_bytes_per_state(table), 1)

    reported = -1
    while True:
        if on_lower_bound is not None:  # the least f on the frontier: a valid lower bound
            best = int(ctr[exact_kernel.BEST_IO])
            lower = max(f0, frontier_f()) if best < 0 else min(max(f0, frontier_f()), best)
            if lower > reported:
                reported = lower
                on_lower_bound(lower)
        if time.monotonic() > deadline:
            return undecided(f"time limit {time_limit} s reached")
        t0 = time.monotonic()
        code = exact_kernel.run_chunk(pred, n, inp, out, tight, M, recompute, perms, u(needed),
                           u(first_out), mandatory, table["sR"], table["sB"], table["sC"],
                           table["sRead"], table["sG"], table["sParent"], table["sPerm"],
                           table["slots"], table["hkey"], table["hrow"], ctr, scratch, tmask,
                           timp, partial_expansion, chunk, cap, bitpos, comb,
                           _finished_twin, hcache)
        spent = time.monotonic() - t0
        record()
        if code == exact_kernel.CHUNK_DONE:
            if spent < chunk_seconds / 2 and chunk < 1 << 24:
                chunk *= 2
            elif spent > chunk_seconds * 2 and chunk > 1:
                chunk //= 2
            continue
        if code == exact_kernel.TABLE_FULL:
            if not _grow(table, cap):
                return undecided(f"state budget {max_states} reached")
            continue
        if code == exact_kernel.BUDGET:
            return undecided(f"state budget {max_states} reached")
        if code == exact_kernel.INCUMBENT_OPTIMAL:
            assert inc_io is not None and incumbent is not None  # the kernel had an incumbent
            return PebbleResult.optimal(inc_io, incumbent, states_explored=int(ctr[exact_kernel.EXPLORED]),
                                        seconds=time.monotonic() - start_time)
        if code == exact_kernel.FOUND:
            return _finish(G, M, recompute, outputs, search, perms_list, table,
                           int(ctr[exact_kernel.DONE_IDX]), (R0, B0, C0), start_time)
        if code == exact_kernel.EXHAUSTED:
            best = int(ctr[exact_kernel.BEST_IO])
            if best >= 0 and int(ctr[exact_kernel.BEST_GOAL]) >= 0:
                return _finish(G, M, recompute, outputs, search, perms_list, table,
                               int(ctr[exact_kernel.BEST_GOAL]), (R0, B0, C0), start_time)
            if inc_io is not None:
                assert incumbent is not None  # inc_io was replayed from it
                return PebbleResult.optimal(inc_io, incumbent,
                                            states_explored=int(ctr[exact_kernel.EXPLORED]),
                                            seconds=time.monotonic() - start_time)
            raise RuntimeError("solver bug: search space exhausted on a feasible instance")
        raise RuntimeError(f"solver bug: unknown kernel code {code}")


def _finish(G, M, recompute, outputs, search, perms, table, row, start, start_time
            ) -> PebbleResult:
    """Walk the parent rows back, rebuild the moves, replay them (the certificate)."""
    path = []
    sR, sB, sC, sG, sParent = (table[k] for k in ("sR", "sB", "sC", "sG", "sParent"))
    while row >= 0:
        path.append((int(sR[row]), int(sB[row]), int(sC[row]), int(sG[row])))
        row = int(sParent[row]) if row else -1
    path.reverse()
    schedule = _rebuild(search, perms, path, start)
    R, B = path[-1][0], path[-1][1]
    io = path[-1][3] + (search.dag.out & R & ~B).bit_count()
    check = replay(G, schedule, M, recompute=recompute, outputs=outputs)
    if check.io != io:  # internal invariant: the certificate must replay exactly
        raise RuntimeError(f"solver bug: schedule replays to {check.io}, not {io}")
    return PebbleResult.optimal(io, schedule, states_explored=int(table["ctr"][exact_kernel.EXPLORED]),
                                seconds=time.monotonic() - start_time)


def _kernel_compiled() -> bool:
    """True when the kernel is compiled (or loaded from numba's disk cache) in this process."""
    return exact_kernel.HAVE_NUMBA and bool(exact_kernel.run_chunk.signatures)


def _kernel_on_disk() -> bool:
    """True when numba's disk cache holds the kernel compiled from this source (loading it
    is not a compilation). It reads numba's cache index through numba's private API, guarded:
    on any error (another numba version) the answer is False, and a short time limit then
    runs the reference search, as before."""
    if not exact_kernel.HAVE_NUMBA:
        return False
    try:
        index = exact_kernel.run_chunk._cache._cache_file._load_index()  # type: ignore[attr-defined]
        return bool(index)
    except Exception:  # pragma: no cover - depends on numba's internals
        return False


def warm_up() -> float:
    """Compile (or load from the disk cache) the kernel on a 3-vertex DAG; seconds taken."""
    started = time.monotonic()
    solve_optimal_compiled(nx.DiGraph([("a", "c"), ("b", "c")]), 3, time_limit=None)
    return time.monotonic() - started
