r"""Exact optimal red–blue pebbling: A* over packed-integer states, with a certificate.

:func:`solve_optimal` computes

.. math::  Q(G, M) = \min\{\text{reads} + \text{writes} :
           \text{complete schedules of } G \text{ with at most } M \text{ red pebbles}\}

for the game of :mod:`attnio.graphs.game` (recomputation allowed, or one-shot), and returns the
optimal schedule, which :func:`attnio.graphs.game.replay` replays to exactly the reported cost.
It returns :class:`Infeasible` when no schedule exists and :class:`PebbleUndecided` (with the
best proven lower bound and the best known upper bound) when its time or state budget runs out
— never a guess.

Proof map (each state-space reduction, and why it keeps optimality)
-------------------------------------------------------------------
A state is ``(R, B[, C])``: bitmasks of red, blue (and, one-shot, computed) vertices over the
*relevant* vertices (outputs and their ancestors), indexed in topological order.

(R0) **Irrelevant vertices are dropped.** A vertex that is no ancestor of an output is never
     needed: deleting every move on it from a schedule keeps it legal (predecessors of relevant
     vertices are relevant) at no greater cost.
(R1) **Blue pebbles are never removed** (the move set has no blue deletion; see game.py).
(R2) **Lazy deletion.** A delete can be postponed until just before the next placement (read
     or compute) that would exceed M, or dropped: keeping a red pebble longer keeps every later
     move legal (a later read/compute of that vertex becomes a no-op and is dropped). So every
     deletion is an *eviction* bundled with a placement on a full cache (exactly one per
     placement), and a placement on a non-full cache evicts nothing.
(R3) **Lazy writes.** A write of v can be postponed until just before v's red pebble is
     deleted, or to the end: while v stays red no read of v can occur, so the earlier blue
     pebble enabled nothing. So writes happen only as write-backs on eviction, or as the final
     writes of red outputs; a goal-ready state (every output red or blue) finishes at cost
     = #(red outputs not blue), which is exactly the heuristic there.
(R4) **Useless vertices are dropped from the state.** Let P (the *possibly-needed* set) be the
     outputs without blue, closed under predecessors of non-input members (one-shot: only of
     members not yet computed, which alone can still be computed). A schedule restricted to the
     moves on P stays legal (every compute of a P-vertex only needs P-vertices red; reads need
     blues that came from P-writes or the start) and still completes, and P only shrinks as
     blue grows. So red pebbles outside P are deleted, and blue/computed marks outside
     P ∪ outputs forgotten, without changing the optimal cost-to-go (the normalised state is a
     sub-state, which costs no less, and the restricted continuation shows it costs no more).
(R5) **Eager free computation (recomputation variant only).** If v is computable (all
     predecessors red) and fewer than M pebbles are red, then ``cost(R ∪ {v}, B) =
     cost(R, B)``: ≤ because the extra pebble can be deleted for free, ≥ because v can be
     computed for free. So such a v (v ∈ P) is computed at once; which one first does not
     matter (each step preserves the optimal cost-to-go exactly). Not used one-shot, where
     computing consumes v's single computation.
(R6) **No dominated placements.** Never read or compute a red vertex (no-op), never write a
     blue one; one-shot, an eviction of an unwritten computed vertex in P is a dead end unless
     written back (it can be neither read nor recomputed, and some vertex that must be
     computed needs it), so it is not generated; a state in which some vertex that must still
     be computed was already computed (one-shot) is dead and dropped.

(R7) **Symmetry.** For an automorphism π of the relevant DAG that maps outputs to outputs
     (inputs = sources are fixed automatically), ``cost(π(R), π(B), π(C)) = cost(R, B, C)``:
     map every move of a schedule through π. States are stored under the least key among
     their images (VF2 enumeration, capped; any subset of the group containing the identity
     is correct); the certificate is mapped back frame by frame (``_reconstruct``).
     matmul 2×2×2 has 16 such automorphisms, 3×2×2 has 24, attention n = 2 has 4.

(R8) **Reads just in time (macro moves).** A read of v can be postponed until just before the
     first computation that uses v, or dropped if none does: v is blue, so between the two
     moves it enables nothing (a read or compute of v is a no-op, a write of v is not
     needed), and holding one pebble fewer in between keeps every move legal. Evictions that
     happened at the postponed read can stay where they were (deletion is free and always
     legal). Hence every read is part of a group "read the missing predecessors X of w, then
     compute w", and with (R2) a schedule is a sequence of *macro moves*: evict a set E
     (|E| = |R| + |X| + 1 − M when positive, E ∩ pred(w) = ∅, each evicted vertex without
     blue optionally written back first), read X = pred(w) \ R (which must all be blue),
     compute w — at cost |X| + #write-backs. The successors of a state are exactly these, so
     the intermediate states between single reads are never stored. (An earlier version
     with single-vertex moves had to allow reading a computable vertex when the read evicted
     one of its own predecessors — a 5-vertex DAG showed it matters; here that read is part
     of the macro move of the successor that needs it, with the predecessor in E.)
(R9) **Outputs are written back on eviction.** If a red output u without blue is evicted,
     some later move writes u (outputs end blue); moving that write to just before the
     eviction is legal (u is red), costs the same, and only adds a blue pebble earlier.

Heuristic (admissible)
----------------------
Let N (*must compute*) be the outputs with neither pebble, closed under predecessors that
carry neither pebble (such a predecessor is no input, cannot be read, so must be computed).
Every vertex in N will be computed, with all its predecessors red at that moment. Then

.. math::  h = |\text{outputs} \setminus B| + \pi(\mathcal F) + w,

where :math:`\mathcal F` is a family of *read requirements* — sets of vertices at least one of
which must be read later — and :math:`\pi` the size of a greedily chosen pairwise disjoint
subfamily (disjoint sets need distinct read moves, so any disjoint subfamily is a lower
bound; greedy is not the maximum, just valid):

* for each blue, non-red predecessor p of a vertex of N: p must become red again, by a read
  of p or by recomputation, which needs p's unpebbled predecessors red; so
  :math:`T(p) = \{p\} \cup T(q)` for one such predecessor q with a nonempty requirement
  (:math:`T(p) = \{p\}` for inputs and, one-shot, for computed vertices; empty if p can be
  recomputed for free); for an unpebbled, non-blue q, :math:`T(q)` is the requirement of one
  of its predecessors;
* **space pairs**: for two unpebbled predecessors a, b of a vertex of N such that
  :math:`|\mathrm{pred}(a) \cup \{a, b\}| > M` and :math:`|\mathrm{pred}(b) \cup \{a, b\}| > M`,
  whichever of a, b becomes red last cannot be computed while the other stays red, so it is
  read: requirement {a, b}. Neither is blue now, so that read needs an earlier write of the
  same vertex: w counts the chosen pairs that contain no output (an output's write is already
  in the first term), all disjoint, so distinct writes.

* **red spills**: let w ∈ N, a ∈ N *saturating* (:math:`|\mathrm{pred}(a)| + 1 = M`) with a
  path a = z_k → … → z_1 → w through vertices of N, and r a red predecessor of w with
  :math:`r \notin \mathrm{pred}(a)`. Some computation of a happens before the first computation
  t_w of w (z_1 is red at t_w and, holding no pebble now, first became red by a computation,
  at which z_2 was red, and so on down to a), and at that moment exactly pred(a) ∪ {a} is
  red (saturating), so r is not; r is red at t_w, so r becomes
  red again in between — by a read of r, or by recomputing r, which needs every input
  predecessor of r outside pred(a) (not red when a was computed) to be read. Requirement:
  :math:`\{r\} \cup X` with X the input predecessors of r outside pred(a) (just {r} when r is
  an input or, one-shot, already computed; no requirement if X is empty and r could be
  recomputed). It is worth **two** moves when r is neither blue nor an output and either
  r cannot be recomputed (one-shot) or :math:`|X| \ge 2`: reading r back needs a write of r
  first, recomputing it needs two reads in X. The second move is a write of r (red now, so in
  no space pair; no output, so not in the first term) or a second read inside the set, so it
  is distinct from every other counted move as long as the chosen sets are disjoint.

Reads and writes are distinct moves, so h never exceeds the remaining cost (admissible).
It is not guaranteed consistent (the greedy packing is not monotone), so the search reopens a
state reached again at a lower cost; with an admissible h, A* with reopening returns an
optimum, and the least f on the frontier is a valid lower bound when the budget runs out.
At a goal-ready state N is empty and h equals the final writes, so popping a goal-ready
state ends the search.

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
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.game import Move, check_cache_size, game_inputs, game_outputs, replay
from attnio.exceptions import InvalidInputError
from attnio.progress import progress_enabled
from attnio.validation import check_digraph, positive_float, positive_int

__all__ = [
    "Optimal",
    "Infeasible",
    "PebbleUndecided",
    "PebbleResult",
    "solve_optimal",
    "min_cache_size",
    "check_time_limit",
    "DEFAULT_MAX_STATES",
    "MAX_EXACT_VERTICES",
    "check_exact_size",
]

DEFAULT_MAX_STATES = 3_000_000

#: Largest DAG (vertices) :func:`solve_optimal` accepts (a stated limit, not a property of
#: the game). States are bitmasks over the vertices and the search is exponential: far below
#: this size it can only answer undecided. Note: the automorphism enumeration (R7, VF2) runs
#: before the clock is read, so ``time_limit`` is not honoured there: matmul 4×4×4 (144
#: vertices) takes ~45 s with ``time_limit=1`` (``symmetry=False`` avoids it).
MAX_EXACT_VERTICES = 2_000


def check_exact_size(G: nx.DiGraph) -> None:
    """Refuse a DAG with more than :data:`MAX_EXACT_VERTICES` vertices (InvalidInputError).

    >>> check_exact_size(nx.path_graph(2_001, create_using=nx.DiGraph))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: the DAG has 2001 vertices; exact search accepts at most MAX_EXACT_VERTICES=2000
    """
    if G.number_of_nodes() > MAX_EXACT_VERTICES:
        raise InvalidInputError(f"the DAG has {G.number_of_nodes()} vertices; exact search "
                                f"accepts at most MAX_EXACT_VERTICES={MAX_EXACT_VERTICES}")


@dataclass(frozen=True, slots=True)
class Optimal:
    """A proven optimum ``io`` and a schedule that replays to exactly that cost."""

    io: int
    schedule: list[Move]
    states_explored: int = 0
    seconds: float = 0.0
    status: str = field(default="optimal", init=False)


@dataclass(frozen=True, slots=True)
class Infeasible:
    """No complete schedule exists (e.g. M below max in-degree + 1)."""

    reason: str
    status: str = field(default="infeasible", init=False)


@dataclass(frozen=True, slots=True)
class PebbleUndecided:
    """The budget ran out: ``lower_bound <= Q(G, M) <= upper_bound`` (None if unknown)."""

    lower_bound: int
    upper_bound: int | None
    states_explored: int
    reason: str
    seconds: float = 0.0
    status: str = field(default="undecided", init=False)


PebbleResult = Optimal | Infeasible | PebbleUndecided


def check_time_limit(time_limit: object, name: str = "time_limit") -> float | None:
    """Return ``time_limit`` if it is None or a finite number >= 0, else raise
    :class:`InvalidInputError` (NaN would never fire, infinity means None).

    >>> check_time_limit(1.5), check_time_limit(None)
    (1.5, None)
    >>> check_time_limit(float("nan"))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: time_limit=nan must be a finite number >= 0 (or None)
    """
    if time_limit is None:
        return None
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not math.isfinite(time_limit) or time_limit < 0):
        raise InvalidInputError(
            f"{name}={time_limit!r} must be a finite number >= 0 (or None)")
    return time_limit


def min_cache_size(G: nx.DiGraph, outputs: Iterable[str] | None = None) -> int:
    """Least M for which a complete schedule exists: max in-degree over the non-input
    ancestors of the outputs (and the outputs) + 1, or 1 if nothing must be computed.

    (Necessary: computing v needs its in-degree + 1 red pebbles. Sufficient: compute the
    relevant vertices in topological order, writing each and reading its predecessors back.)

    >>> min_cache_size(nx.DiGraph([("a", "c"), ("b", "c")]))
    3
    """
    inputs = set(game_inputs(G))
    outs = game_outputs(G, outputs)
    relevant = set(outs).union(*(nx.ancestors(G, o) for o in outs)) if outs else set()
    degrees = [G.in_degree(v) for v in relevant if v not in inputs]
    return max(degrees) + 1 if degrees else 1


class _Instance:
    """The relevant sub-DAG, indexed in topological order, as bitmasks."""

    def __init__(self, G: nx.DiGraph, outputs: Iterable[str] | None) -> None:
        inputs = set(game_inputs(G))
        outs = game_outputs(G, outputs)
        relevant = set(outs).union(*(nx.ancestors(G, o) for o in outs)) if outs else set()
        order = [v for v in nx.lexicographical_topological_sort(G) if v in relevant]
        self.names: list[str] = order
        self.index = {v: i for i, v in enumerate(order)}
        self.n = len(order)
        self.pred = [sum(1 << self.index[u] for u in G.predecessors(v)) for v in order]
        self.inp = sum(1 << i for i, v in enumerate(order) if v in inputs)
        self.out = sum(1 << self.index[o] for o in outs)
        self.all = (1 << self.n) - 1


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Search:
    def __init__(self, inst: _Instance, M: int, recompute: bool) -> None:
        self.I, self.M, self.recompute = inst, M, recompute
        self.rev = list(range(inst.n - 1, -1, -1))
        self.p_memo: dict[int, int] = {}
        # vertices that cannot be computed beside one more red pebble: in-degree + 2 > M
        self.tight = sum(1 << i for i in range(inst.n)
                         if not (inst.inp >> i) & 1 and inst.pred[i].bit_count() + 2 > M)

    def possibly_needed(self, B: int, C: int) -> int:
        """The set P of (R4) (memoised: it depends on B and C only)."""
        memo_key = B | (C << self.I.n)
        P = self.p_memo.get(memo_key)
        if P is not None:
            return P
        I = self.I
        P = I.out & ~B
        expand = ~I.inp if self.recompute else ~I.inp & ~C
        pred = I.pred
        for i in self.rev:
            if (P >> i) & 1 and (expand >> i) & 1:
                P |= pred[i]
        if len(self.p_memo) < 1 << 20:
            self.p_memo[memo_key] = P
        return P

    def normalise(self, R: int, B: int, C: int) -> tuple[int, int, int, int]:
        """Apply (R4) and (R5); return (R, B, C, P)."""
        I = self.I
        P = self.possibly_needed(B, C)
        R &= P
        B &= P | I.out
        C &= P
        if self.recompute:
            free = self.M - R.bit_count()
            if free > 0:
                cand = P & ~R & ~I.inp
                pred = I.pred
                for i in _bits(cand):  # increasing index = topological order
                    if not pred[i] & ~R:
                        R |= 1 << i
                        free -= 1
                        if not free:
                            break
        return R, B, C, P

    def heuristic(self, R: int, B: int, C: int) -> int:
        """h of the module docstring; -1 for a dead state (one-shot: a vertex that must be
        computed was computed already and holds neither pebble)."""
        I = self.I
        writes = (I.out & ~B).bit_count()
        need = I.out & ~B & ~R
        if need & C:
            return -1
        if not need:
            return writes
        pred = I.pred
        frontier = 0
        pending = need
        M = self.M
        pairs = []
        spill1: list[int] = []   # red-spill sets worth one I/O
        spill2: list[int] = []   # red-spill sets worth two I/Os (write + read, or two reads)
        notR = ~R
        while pending:  # highest index first: predecessors (lower indices) come later
            i = pending.bit_length() - 1
            pending ^= 1 << i
            pm = pred[i] & notR
            fresh = pm & ~B
            frontier |= pm & B
            tight = fresh & self.tight
            if tight & (tight - 1):
                # space pairs: two unpebbled predecessors a, b of a must-compute vertex,
                # neither computable while the other is red → one of them is read later
                # (after a write, since neither is blue now)
                members = []
                f = tight
                while f:
                    low = f & -f
                    members.append(low.bit_length() - 1)
                    f ^= low
                for ia, a in enumerate(members):
                    for b in members[ia + 1:]:
                        ab = (1 << a) | (1 << b)
                        if (pred[a] | ab).bit_count() > M and (pred[b] | ab).bit_count() > M:
                            pairs.append(ab)
            pending |= fresh & ~need
            need |= fresh
        if need & C:
            return -1
        inp = I.inp
        tight_mask = self.tight
        if tight_mask & need:
            # red spills: for w in N, anc = saturating members of N from which a chain of N
            # vertices leads to w; a red predecessor r of w outside pred(a) for some a in anc
            # gives a requirement (module docstring, "red spills")
            anc: dict[int, int] = {}
            out_mask = I.out
            todo = need
            while todo:  # increasing index: N-predecessors first
                wb = todo & -todo
                todo ^= wb
                w = wb.bit_length() - 1
                m = 0
                fp = pred[w] & need
                while fp:
                    ub = fp & -fp
                    fp ^= ub
                    m |= anc[ub.bit_length() - 1] | (ub & tight_mask)
                anc[w] = m
                redp = pred[w] & R if m else 0
                while redp:
                    rb = redp & -redp
                    redp ^= rb
                    r = rb.bit_length() - 1
                    only_read = inp & rb or (not self.recompute and C & rb)
                    f = m
                    while f:
                        ab = f & -f
                        f ^= ab
                        pa = pred[ab.bit_length() - 1]
                        if pa & rb:
                            continue
                        if only_read:
                            S = rb  # r can only become red again by a read
                            double = not (B | inp | out_mask) & rb
                        else:
                            X = pred[r] & inp & ~pa
                            if not X:
                                continue
                            S = rb | X
                            double = not (B | out_mask) & rb and X.bit_count() >= 2
                        (spill2 if double else spill1).append(S)
        if not pairs and not spill1 and not spill2 and not frontier & ~inp:
            return writes + frontier.bit_count()  # only input singletons (see below)
        # requirement sets T(p): at least one future read lands in T(p)
        recompute = self.recompute
        memo: dict[int, int] = {}
        IMPOSSIBLE = -1

        def T(q: int) -> int:
            got = memo.get(q)
            if got is not None:
                return got
            bit = 1 << q
            if (inp >> q) & 1 or (not recompute and (C >> q) & 1):
                res = bit if (B >> q) & 1 else IMPOSSIBLE
            else:
                best = 0
                bestsize = 1 << 30
                todo = pred[q] & ~R
                while todo:
                    ubit = todo & -todo
                    todo ^= ubit
                    if inp & ubit:  # T(input u) = {u} if blue, else impossible (inlined)
                        t = ubit if B & ubit else IMPOSSIBLE
                    else:
                        t = T(ubit.bit_length() - 1)
                    if t == IMPOSSIBLE:
                        best, bestsize = IMPOSSIBLE, -1
                        break
                    if t and t.bit_count() < bestsize:
                        best, bestsize = t, t.bit_count()
                if (B >> q) & 1:
                    res = bit if best == IMPOSSIBLE else (bit | best if best else 0)
                else:
                    res = best
            memo[q] = res
            return res

        # An input p of the frontier has T(p) = {p}: these singletons are disjoint from each
        # other and from the pairs (which hold no blue vertex), so they are all taken up front
        # without building T; the greedy below then adds pairs, two-move spills and the other
        # sets (by size) that miss everything taken — any disjoint subfamily is a valid bound.
        frontier_inputs = frontier & inp
        sets = []
        rest = frontier & ~inp
        while rest:
            low = rest & -rest
            rest ^= low
            t = T(low.bit_length() - 1)
            if t > 0:
                sets.append(t)
        if not pairs and not sets and not spill1 and not spill2:
            return writes + frontier_inputs.bit_count()
        sets += spill1
        sets.sort(key=int.bit_count)
        used = frontier_inputs
        reads = frontier_inputs.bit_count()
        for t in pairs:  # pairs hold no blue vertex
            if not t & used:
                used |= t
                reads += 1
        spill_extra = 0
        for t in spill2:
            if not t & used:
                used |= t
                reads += 1
                spill_extra += 1
        for t in sets:
            if not t & used:
                used |= t
                reads += 1
        extra_writes = 0
        used = 0
        for t in pairs:
            if not t & used and not t & I.out:
                used |= t
                extra_writes += 1
        return writes + reads + extra_writes + spill_extra

    def successors(self, R: int, B: int, C: int, P: int, g: int = 0,
                   seen: dict[int, int] | None = None) -> Iterator[tuple]:
        """Macro moves (R8), generated one by one: (cost, w, evicted mask E, written-back
        mask W, raw R, raw B, raw C) — evict E (writing back W ⊆ E first), read the missing
        predecessors X = pred(w) \\ R (all blue), compute w.

        With ``seen`` (raw key -> least g pushed) and the recomputation variant, a move on a
        full cache that writes nothing back is left out when ``seen`` already holds its key
        (R | B << n, already normal: see solve_optimal) with a g no larger than ``g + cost``:
        the caller would discard it anyway. (Generated lazily, so the caller can read the clock
        between successors: matmul 8×8×8 at M = 16 has states with 600 000 of them.)
        """
        I, M = self.I, self.M
        pred = I.pred
        recompute = self.recompute
        size = R.bit_count()
        skip_seen = seen is not None and recompute
        if skip_seen:
            seen_get = seen.get
            Bkey = B << I.n
        out_mask = I.out
        todo = P & ~R & ~I.inp
        if not recompute:
            todo &= ~C
        while todo:
            wbit = todo & -todo
            todo ^= wbit
            w = wbit.bit_length() - 1
            pw = pred[w]
            X = pw & ~R
            if X & ~B:
                continue  # a predecessor with neither pebble: it is computed first
            reads = X.bit_count()
            newC = C if recompute else C | wbit
            base = R | X | wbit
            evictions = size + reads + 1 - M
            if evictions <= 0:
                yield (reads, w, 0, 0, base, B, newC)
                continue
            evictable = R & ~pw
            if evictable.bit_count() < evictions:
                continue
            for E in _subsets_of_size(evictable, evictions):
                Rn = base & ~E
                dirty = E & ~B  # evicted red pebbles without a blue copy
                if not dirty:
                    yield (reads, w, E, 0, Rn, B, newC)
                    continue
                if not recompute:
                    # one-shot: every red vertex is in P (R4) and was computed or read; an
                    # unwritten computed one could never be red again, so write it back
                    yield (reads + dirty.bit_count(), w, E, dirty, Rn, B | dirty, newC)
                    continue
                # (R9) an evicted red output without blue is written back
                forced = dirty & out_mask
                for W in _all_subsets(dirty & ~out_mask):
                    if not W and not forced:
                        if skip_seen and seen_get(Rn | Bkey, 1 << 62) <= g + reads:
                            continue  # the no-write-back successor was pushed already
                    W |= forced
                    yield (reads + W.bit_count(), w, E, W, Rn, B | W, newC)


class _OutOfTime(Exception):
    """The deadline passed inside a preparation step (raised and caught in this module)."""


def _mandatory_moves(needed_inputs: int, outputs_to_write: int) -> int:
    """Moves every complete schedule makes (see "Extra moves"): one first read per needed
    input and one write per output not blue at the start."""
    return needed_inputs.bit_count() + outputs_to_write.bit_count()


def _subsets_of_size(mask: int, k: int) -> Iterable[int]:
    """Every submask of ``mask`` with exactly ``k`` bits."""
    bits = [1 << i for i in _bits(mask)]
    if k == 1:
        yield from bits
        return
    for combo in itertools.combinations(bits, k):
        yield sum(combo)


def _all_subsets(mask: int) -> Iterable[int]:
    """Every submask of ``mask``, the empty one first."""
    sub = 0
    while True:
        yield sub
        sub = (sub - mask) & mask
        if not sub:
            return


class _Symmetry:
    """Automorphisms of the relevant DAG that fix the output set (R7).

    (R7) **Symmetry.** The game sees only the graph, the inputs (= sources, fixed by every
    automorphism) and the outputs; so for an automorphism π that maps outputs to outputs,
    ``cost(π(R), π(B), π(C)) = cost(R, B, C)`` (map every move of a schedule through π).
    States are stored under the least key among their images by the automorphisms found (any
    subset of the group containing the identity is correct; VF2 enumeration is capped).
    """

    def __init__(self, G: nx.DiGraph, inst: _Instance, limit: int,
                 deadline: float = math.inf) -> None:
        from networkx.algorithms.isomorphism import DiGraphMatcher
        import itertools

        n = inst.n
        H = nx.DiGraph()
        H.add_nodes_from(range(n))
        for i in range(n):
            H.nodes[i]["out"] = bool((inst.out >> i) & 1)
            for u in _bits(inst.pred[i]):
                H.add_edge(u, i)
        identity = list(range(n))
        perms = [identity]
        if limit > 1 and n:
            # VF2 can spend a long time between two automorphisms (matmul 4×4×4: ~0.4 s
            # each), so the clock is read inside the matcher's vertex test; when the deadline
            # passes, the automorphisms found so far are kept (any subset containing the
            # identity is correct, R7)
            calls = [0]

            def same_kind(a: dict, b: dict) -> bool:
                calls[0] += 1
                if not calls[0] & 255 and time.monotonic() > deadline:
                    raise _OutOfTime
                return a["out"] == b["out"]

            matcher = DiGraphMatcher(H, H, node_match=same_kind)
            try:
                for mapping in itertools.islice(matcher.isomorphisms_iter(), limit):
                    perm = [mapping[i] for i in range(n)]
                    if perm != identity:
                        perms.append(perm)
                    if time.monotonic() > deadline:
                        break
            except _OutOfTime:
                pass
        self.perms = perms
        self.n = n
        self.mask = (1 << n) - 1
        # bit_images[p][i] = 1 << perms[p][i]: the image of a single R bit
        self.bit_images = [[1 << perm[i] for i in range(n)] for perm in perms]
        self.hi_memo: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.width = 0
        self.tables: list[list[list[int]]] = []
        self.deadline = deadline

    def build(self, width: int) -> None:
        """Byte tables permuting keys made of ``width`` stacked n-bit masks (R | B<<n | ...).

        If the deadline passes, only the automorphisms with finished tables are kept (the
        identity always is)."""
        n = self.n
        self.width = width
        self.tables = []
        for count, perm in enumerate(self.perms):
            if count and time.monotonic() > self.deadline:
                del self.perms[count:]
                del self.bit_images[count:]
                break
            full = [perm[i % n] + (i // n) * n for i in range(width * n)]
            chunks = []
            for c in range(0, width * n, 8):
                table = [0] * 256
                for byte in range(1, 256):
                    # image of byte = image of byte without its lowest bit | that bit's image
                    k = (byte & -byte).bit_length() - 1
                    table[byte] = table[byte & (byte - 1)] | (
                        1 << full[c + k] if c + k < width * n else 0)
                chunks.append(table)
            self.tables.append(chunks)

    def apply(self, p: int, key: int) -> int:
        """Image of a stacked key under automorphism ``p``."""
        out = 0
        for table in self.tables[p]:
            out |= table[key & 255]
            key >>= 8
        return out

    def map_bits(self, p: int, mask: int) -> int:
        """Image of one n-bit mask (a few bits: R, or the inputs read) under automorphism p."""
        bits = self.bit_images[p]
        image = 0
        while mask:
            low = mask & -mask
            image |= bits[low.bit_length() - 1]
            mask ^= low
        return image

    def canon(self, key: int) -> tuple[int, int]:
        """Least image of ``key`` and the index of the automorphism that gives it.

        Every automorphism permutes each n-bit block (R, B, C) separately, so images compare
        first by their high part ``key >> n`` (B, C) and then by their R part. The least high
        image and the automorphisms that reach it depend on the high part alone and are
        memoised (there are far fewer (B, C) than states); only those automorphisms are then
        applied to R, which has at most M bits. The result equals the plain minimum over all
        automorphisms, so (R7) is unchanged.
        """
        n = self.n
        hi = key >> n
        entry = self.hi_memo.get(hi)
        if entry is None:
            entry = self._hi_entry(hi)
        hi_image, candidates = entry
        R = key & self.mask
        if len(candidates) == 1:
            p = candidates[0]
            return (hi_image << n) | self.map_bits(p, R), p
        Rbits = []
        while R:
            low = R & -R
            Rbits.append(low.bit_length() - 1)
            R ^= low
        best = -1
        best_p = 0
        for p in candidates:
            bits = self.bit_images[p]
            image = 0
            for i in Rbits:
                image |= bits[i]
            if best < 0 or image < best:
                best, best_p = image, p
        return (hi_image << n) | best, best_p

    def _hi_entry(self, hi: int) -> tuple[int, tuple[int, ...]]:
        """Least image of the high part ``hi`` (B | C << n) and every automorphism reaching it."""
        n = self.n
        images = [self.apply(p, hi << n) >> n for p in range(len(self.tables))]
        least = min(images)
        entry = (least, tuple(p for p, image in enumerate(images) if image == least))
        if len(self.hi_memo) < 1 << 21:
            self.hi_memo[hi] = entry
        return entry


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
    r"""Optimal red–blue pebbling of ``G`` with ``M`` red pebbles (A*, reductions R0–R9).

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
        Seconds before giving up with :class:`PebbleUndecided` (None: no limit; else finite
        and >= 0). It bounds the whole call: the automorphism search (R7) and its tables
        stop at half the limit keeping what they found, and the search reads the clock
        before every state it pops and every 256 successors it generates.
    max_states : int or None
        Distinct states stored before giving up (memory budget; None: no limit).
    upper_bound : int, optional
        A known achievable cost (e.g. a replayed algorithm schedule): prunes states whose
        f-value exceeds it and is reported if the budget runs out. Must be achievable — an
        unachievable bound can make the result :class:`PebbleUndecided`, never wrong.
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
    Optimal | Infeasible | PebbleUndecided

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
    check_digraph(G)
    check_exact_size(G)
    check_cache_size(M)
    time_limit = check_time_limit(time_limit)
    if max_states is not None:
        max_states = positive_int("max_states", max_states)
    start_time = time.monotonic()
    deadline = math.inf if time_limit is None else start_time + time_limit
    inst = _Instance(G, outputs)
    need_m = min_cache_size(G, outputs)
    if M < need_m:
        worst = min((v for v in inst.names if not (inst.inp >> inst.index[v]) & 1
                     and G.in_degree(v) + 1 == need_m))
        return Infeasible(f"M={M} is below the {need_m} red pebbles vertex {worst!r} needs "
                          f"(in-degree {need_m - 1} + 1)")
    if incumbent is not None:
        incumbent = list(incumbent)
        inc_io = replay(G, incumbent, M, recompute=recompute, outputs=outputs).io
        upper_bound = inc_io if upper_bound is None else min(upper_bound, inc_io)
    search = _Search(inst, M, recompute)
    n = inst.n
    one_shot = not recompute
    # the automorphism search gets at most half the time budget (it only speeds up the rest)
    sym_deadline = math.inf if time_limit is None else start_time + time_limit / 2
    sym = _Symmetry(G, inst, symmetry_limit if symmetry else 1, sym_deadline)
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
        from tqdm.auto import tqdm
        import sys
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

    def undecided(reason: str, expanding: int | None = None) -> PebbleUndecided:
        # h is admissible, so the least f on the frontier bounds every unexplored solution;
        # stopped in the middle of an expansion, the state being expanded (f = expanding) is
        # part of the frontier again (some of its successors were never pushed)
        lower = heap[0][0] if heap else h0
        if expanding is not None:
            lower = min(lower, expanding)
        upper = upper_bound if best_io is None else (
            best_io if upper_bound is None else min(best_io, upper_bound))
        return PebbleUndecided(lower_bound=int(max(lower, h0)), upper_bound=upper,
                               states_explored=explored, reason=reason,
                               seconds=time.monotonic() - start_time)

    def finish(k: int) -> Optimal:
        """The certificate of goal-ready state ``k``, replayed (R3: final writes)."""
        Rk, Bk = k & mask_n, (k >> n) & mask_n
        io = g_of[k] + (inst.out & Rk & ~Bk).bit_count()
        schedule = _reconstruct(search, sym, parent, k, k0, (R0, B0, C0))
        check = replay(G, schedule, M, recompute=recompute, outputs=outputs)
        if check.io != io:  # internal invariant: the certificate must replay exactly
            raise RuntimeError(f"solver bug: schedule replays to {check.io}, not {io}")
        return Optimal(io=io, schedule=schedule, states_explored=explored,
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
                    return Optimal(io=inc_io, schedule=incumbent, states_explored=explored,
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
            return Optimal(io=inc_io, schedule=incumbent, states_explored=explored,
                           seconds=time.monotonic() - start_time)
        return finish(best_goal)
    if upper_bound is not None:
        return undecided(f"no schedule within upper_bound={upper_bound} (bound not achievable?)")
    raise RuntimeError("solver bug: search space exhausted on a feasible instance")


def _reconstruct(search: _Search, sym: _Symmetry, parent: dict[int, tuple[int, int, int]],
                 k: int, k0: int, start: tuple[int, int, int]) -> list[Move]:
    """Walk the parent links back, then replay the moves forward to emit every pebble move,
    including the deletions of (R4) and the free computations of (R5). Moves are stored in
    the frame of the parent's canonical image; ``to_actual`` maps them back (R7)."""
    steps: list[tuple[int, int]] = []
    while k != k0:
        k, code, p = parent[k]
        steps.append((code, p))
    steps.reverse()
    names = search.I.names
    n = search.I.n
    moves: list[Move] = []
    R, B, C = start
    sigma = list(range(n))          # actual index -> canonical index
    to_actual = list(range(n))      # canonical index -> actual index

    def emit(kind: str, i: int) -> None:
        moves.append((kind, names[to_actual[i]]))

    full_n = (1 << n) - 1
    pred = search.I.pred
    for code, p in steps:
        w, E, W = code & 4095, (code >> 12) & full_n, code >> (12 + n)
        for u in _bits(E):
            if (W >> u) & 1:
                emit("write", u)
                B |= 1 << u
            emit("delete", u)
        R &= ~E
        for x in _bits(pred[w] & ~R):
            emit("read", x)
        emit("compute", w)
        R |= pred[w] | (1 << w)
        C |= 1 << w
        Rn, Bn, Cn, P = search.normalise(R, B, C)
        for i in _bits(R & ~P):
            emit("delete", i)
        for i in _bits(Rn & ~(R & P)):
            emit("compute", i)
        # move to the child's canonical frame
        n_ = search.I.n
        image = sym.apply(p, Rn | (Bn << n_) | (Cn << (2 * n_)))
        mask = search.I.all
        R, B, C = image & mask, (image >> n_) & mask, image >> (2 * n_)
        perm = sym.perms[p]
        sigma = [perm[j] for j in sigma]
        for actual, canonical in enumerate(sigma):
            to_actual[canonical] = actual
    for i in _bits(search.I.out & R & ~B):
        emit("write", i)
    return moves
