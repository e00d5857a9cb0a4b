r"""Exact pebbling, room 3 of 4: the admissible heuristic h.

Used by the A* driver of :mod:`attnio.graphs.exact` (which adds a second bound, "extra
moves", documented there). States as in :mod:`attnio.graphs.exact_state`.

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

>>> import networkx as nx
>>> from attnio.graphs.exact import PebbleSearch
>>> from attnio.graphs.indexed_dag import IndexedDAG
>>> search = PebbleSearch(IndexedDAG(nx.DiGraph([("a", "c"), ("b", "c")]), None), 3, True)
>>> search.heuristic(0, 0b011, 0)   # read a, read b, write c
3
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from attnio.graphs.indexed_dag import IndexedDAG

__all__ = ["AdmissibleHeuristic"]


class AdmissibleHeuristic:
    """h of the module docstring (a mixin of :class:`attnio.graphs.exact.PebbleSearch`: it reads
    the instance ``dag``, the cache size ``M``, ``recompute`` and the ``tight`` mask)."""

    dag: "IndexedDAG"
    M: int
    recompute: bool
    tight: int

    def heuristic(self, R: int, B: int, C: int) -> int:
        """h of the module docstring; -1 for a dead state (one-shot: a vertex that must be
        computed was computed already and holds neither pebble)."""
        dag = self.dag
        writes = (dag.out & ~B).bit_count()
        need = dag.out & ~B & ~R
        if need & C:
            return -1
        if not need:
            return writes
        pred = dag.pred
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
        inp = dag.inp
        tight_mask = self.tight
        if tight_mask & need:
            # red spills: for w in N, anc = saturating members of N from which a chain of N
            # vertices leads to w; a red predecessor r of w outside pred(a) for some a in anc
            # gives a requirement (module docstring, "red spills")
            anc: dict[int, int] = {}
            out_mask = dag.out
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
            if not t & used and not t & dag.out:
                used |= t
                extra_writes += 1
        return writes + reads + extra_writes + spill_extra
