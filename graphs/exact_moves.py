r"""Exact pebbling, room 2 of 4: the moves and the reductions that prune them (R1–R6, R8–R10).

A state is ``(R, B[, C])`` over the relevant vertices (:mod:`attnio.graphs.exact_state`). The
successors of a state are the *macro moves* of (R8) below; every other kind of move sequence
is shown, reduction by reduction, to be no better than one of them, so the search of
:mod:`attnio.graphs.exact` over macro moves still finds an optimum. Each reduction is proved
where it is stated:

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
(R10) **Finished outputs are evicted first.** Call a red output d without blue *finished*
     when no vertex that may still be computed uses it: d ∉ pred(v) for every v ∈ P that is
     no input (one-shot: and not computed yet) — see :meth:`MacroMoves.finished_outputs`. On a
     macro move that must evict k vertices, let D be the finished outputs and D_k the
     min(k, |D|) lowest-index members of D: the eviction set E is required to contain D_k
     (written back, R9).
     *Proof (no loss of optimality).* Every finished d lies outside pred(w) (w ∈ P is no
     input; one-shot, not computed), so it is evictable. Take an optimal continuation from
     the state; its first macro move m evicts E (writing back W ⊆ E). If D_k ⊄ E, pick
     d ∈ D_k \ E and u ∈ E \ D_k (it exists: |E| = k ≥ |D_k|). Let m' be m with
     E' = E − u + d and W' = W − u + d: it costs cost(m) + 1 − [u ∈ W]. Let S be an optimal
     schedule from the state s1 after m; by (R4) we may take S to move only on P(s1) ⊆ P(s)
     (P only shrinks as B and C grow), so every vertex S computes lies in P(s) and is no
     input (one-shot: was not computed at s), and none of them uses d. Build S' from the
     state s1' after m' (d blue, not red; u red): drop every move of S on d (reads,
     writes, computes, deletions — d is already blue and no compute needs it); while u is
     red in S' but not in S ("swapped"), drop S's placements of u (no-ops; this ends the
     swap), and at S's first deletion of d (or at the end) delete u instead, writing it
     first if m wrote it back (W ∋ u) — this ends the swap too. Throughout, the red set of
     S' is (R_S − {d}) ∪ {u} while swapped and R_S − {d} after, never larger than R_S (d ∈
     R_S until S first deletes it), every compute of S' has its predecessors red (they are
     red in S and none is d), every read of S' reads a blue vertex (u's write-back is made
     before u is ever deleted in S'), and S' ends with every output blue. S writes d at
     least once (d is an output without blue), S' never does, and S' pays u's write-back
     at most once, only when u ∈ W: cost(S') ≤ cost(S) − 1 + [u ∈ W]. So cost(m') +
     cost*(s1') ≤ cost(m) + cost*(s1): m' is optimal too. Each exchange puts one more member
     of D_k in E (u may be a member of D outside D_k: it is an output, so u ∈ W by R9 and
     the exchange costs the same), so finitely many exchanges reach a move that meets the
     rule, and it is optimal. The argument holds with or without recomputation (one-shot, S
     never computes u again: u is red, hence computed or an input) and for schedules of any
     length; so every state keeps an optimal successor among the moves generated, and by
     induction along an optimal path the search still finds an optimum.

>>> import networkx as nx
>>> from attnio.graphs.indexed_dag import IndexedDAG
>>> moves = MacroMoves(IndexedDAG(nx.DiGraph([("a", "c"), ("b", "c")]), None), 3, True)
>>> R, B, C, P = moves.normalise(0, 0b011, 0)
>>> [(cost, w) for cost, w, *_ in moves.successors(R, B, C, P)]   # read a, b; compute c
[(2, 2)]
"""

from __future__ import annotations

from typing import Iterator

from attnio.graphs.exact_state import all_submasks, submasks_of_size
from attnio.graphs.indexed_dag import IndexedDAG, iter_bits

__all__ = ["MacroMoves"]


class MacroMoves:
    """The move generator (R8) and the normal form of states (R4, R5) of one instance."""

    def __init__(self, inst: IndexedDAG, M: int, recompute: bool) -> None:
        self.dag, self.M, self.recompute = inst, M, recompute
        self.rev = list(range(inst.n - 1, -1, -1))
        self.p_memo: dict[int, int] = {}
        # vertices that cannot be computed beside one more red pebble: in-degree + 2 > M
        self.tight = sum(1 << i for i in range(inst.n)
                         if not (inst.inp >> i) & 1 and inst.pred[i].bit_count() + 2 > M)

    def possibly_needed(self, B: int, C: int) -> int:
        """The set P of (R4) (memoised: it depends on B and C only)."""
        memo_key = B | (C << self.dag.n)
        P = self.p_memo.get(memo_key)
        if P is not None:
            return P
        dag = self.dag
        P = dag.out & ~B
        expand = ~dag.inp if self.recompute else ~dag.inp & ~C
        pred = dag.pred
        for i in self.rev:
            if (P >> i) & 1 and (expand >> i) & 1:
                P |= pred[i]
        if len(self.p_memo) < 1 << 20:
            self.p_memo[memo_key] = P
        return P

    #: Planted false twin of (R10) for the tests: True marks *every* red output without blue
    #: as finished (even one a later computation still uses), which loses optimality.
    _finished_twin = False

    def finished_outputs(self, R: int, B: int, C: int, P: int) -> int:
        """The finished outputs of (R10): red outputs without blue that no vertex of P that
        may still be computed (no input; one-shot: not computed) has as a predecessor."""
        dag = self.dag
        dead = R & dag.out & ~B
        if not dead or self._finished_twin:
            return dead
        users = P & ~dag.inp
        if not self.recompute:
            users &= ~C
        pred = dag.pred
        consumed = 0
        while users:
            low = users & -users
            users ^= low
            consumed |= pred[low.bit_length() - 1]
        return dead & ~consumed

    def normalise(self, R: int, B: int, C: int) -> tuple[int, int, int, int]:
        """Apply (R4) and (R5); return (R, B, C, P)."""
        dag = self.dag
        P = self.possibly_needed(B, C)
        R &= P
        B &= P | dag.out
        C &= P
        if self.recompute:
            free = self.M - R.bit_count()
            if free > 0:
                cand = P & ~R & ~dag.inp
                pred = dag.pred
                for i in iter_bits(cand):  # increasing index = topological order
                    if not pred[i] & ~R:
                        R |= 1 << i
                        free -= 1
                        if not free:
                            break
        return R, B, C, P

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
        dag, M = self.dag, self.M
        pred = dag.pred
        recompute = self.recompute
        size = R.bit_count()
        skip_seen = seen is not None and recompute
        if skip_seen and seen is not None:
            seen_get = seen.get
            Bkey = B << dag.n
        out_mask = dag.out
        todo = P & ~R & ~dag.inp
        if not recompute:
            todo &= ~C
        finished = -1  # (R10), computed at the first move that evicts
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
            # (R10) the lowest min(k, |D|) finished outputs are in E; the rest is chosen
            # among the other evictable vertices
            if finished < 0:
                finished = self.finished_outputs(R, B, C, P)
            forced_e = 0
            if finished:
                f = finished & evictable  # all of it, except in the planted twin
                while f and forced_e.bit_count() < evictions:
                    low = f & -f
                    forced_e |= low
                    f ^= low
            free_e = evictions - forced_e.bit_count()
            choices = (submasks_of_size(evictable & ~finished, free_e) if free_e
                       else iter((0,)))
            for E in choices:
                E |= forced_e
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
                for W in all_submasks(dirty & ~out_mask):
                    if not W and not forced:
                        if skip_seen and seen_get(Rn | Bkey, 1 << 62) <= g + reads:
                            continue  # the no-write-back successor was pushed already
                    W |= forced
                    yield (reads + W.bit_count(), w, E, W, Rn, B | W, newC)
