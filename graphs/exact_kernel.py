r"""The compiled search kernel of :mod:`attnio.graphs.exact_compiled` (numba, optional).

Everything here works on one DAG of at most 64 relevant vertices, so each of the masks R
(red), B (blue), C (computed, one-shot) and "inputs read so far" is one ``uint64``. The
functions are the reference search of :mod:`attnio.graphs.exact` rewritten over fixed-width
words: the same macro moves (R8, with R2, R3, R9, R10), the same normalisation (R4, R5), the same
admissible heuristic (outputs not blue, frontier reads, space pairs with their extra writes,
red spills, requirement sets T), the same extra-moves bound, and symmetry (R7) by explicit
permutation tables. The module docstring of :mod:`attnio.graphs.exact` carries the proofs;
each function below names the reduction it implements.

Storage (the point of the kernel): a stored state is a row of dense arrays — R, B, C, reads
(4 × 8 bytes), g (int32), parent (int32), automorphism (int8) — found through an
open-addressing table of int32 slots (load ≤ 1/2), and queued in a binary heap of
(int64 priority, int32 row) pairs. :func:`bytes_per_state` gives the exact figure.

Without numba the functions are plain Python over NumPy scalars (correct, and far too slow
for real use): :mod:`attnio.graphs.exact_compiled` then falls back to the reference search.

Size: one compiled unit on purpose. The expansion step, the open-addressing table, the heap
and the bounds all index the same row arrays, whose layout is stated once above; split
across files, that layout would be too. Only the word-level bit primitives, which know no
layout, live apart (:mod:`attnio.graphs.exact_kernel_words`).
"""

from __future__ import annotations

import numpy as np

from attnio.graphs.exact_kernel_words import (  # noqa: F401 - HAVE_NUMBA re-exported
    HAVE_NUMBA,
    ONE,
    U64,
    ZERO,
    high_index,
    low_index,
    njit,
    popcount,
)

# ctr slots (int64 counters shared between calls)
N_STATES, HEAP_SIZE, TICK, EXPLORED, BEST_IO, BEST_GOAL, PRUNE_ABOVE, DONE_IDX = range(8)
# return codes of run_chunk
CHUNK_DONE, FOUND, EXHAUSTED, TABLE_FULL, BUDGET, INCUMBENT_OPTIMAL = range(6)

G_BITS = 12          # g < 4096 (checked by the driver)
TICK_BITS = 39


@njit(cache=True)
def possibly_needed(pred, n, inp, out, recompute, B, C):
    """(R4): the outputs without blue, closed under predecessors of non-input members
    (one-shot: of members not yet computed)."""
    P = out & ~B
    expand = ~inp if recompute else (~inp & ~C)
    for i in range(n - 1, -1, -1):
        b = ONE << U64(i)
        if (P & b) and (expand & b):
            P |= pred[i]
    return P


@njit(cache=True)
def finished_outputs(pred, n, inp, out, recompute, R, B, C, P, twin):
    """(R10) of :mod:`attnio.graphs.exact_moves`: red outputs without blue that no vertex of P
    that may still be computed (no input; one-shot: not computed) uses. ``twin``: the planted
    false twin of the tests (every red output without blue), never set by the driver."""
    dead = R & out & ~B
    if dead == ZERO or twin:
        return dead
    users = P & ~inp
    if not recompute:
        users &= ~C
    consumed = ZERO
    while users:
        i = low_index(users)
        users &= ~(ONE << U64(i))
        consumed |= pred[i]
    return dead & ~consumed


@njit(cache=True)
def normalise(pred, n, inp, out, M, recompute, R, B, C):
    """(R4) drop useless pebbles, (R5) eager free computation (lowest index first)."""
    P = possibly_needed(pred, n, inp, out, recompute, B, C)
    R &= P
    B &= P | out
    C &= P
    if recompute:
        free = M - popcount(R)
        if free > 0:
            cand = P & ~R & ~inp
            while cand:
                i = low_index(cand)
                b = ONE << U64(i)
                cand &= ~b
                if not (pred[i] & ~R):
                    R |= b
                    free -= 1
                    if free == 0:
                        break
    return R, B, C


@njit(cache=True)
def heuristic(pred, n, inp, out, tight, M, recompute, R, B, C, scratch, tmask, timp):
    """h of :mod:`attnio.graphs.exact` ("Heuristic (admissible)"); -1 for a dead state.

    ``scratch`` is a uint64 work array (pairs, spill sets, requirement sets);
    ``tmask``/``timp`` hold T(q) and "T(q) impossible" per vertex. A capped scratch array
    only drops requirement sets, which keeps the bound admissible."""
    writes = popcount(out & ~B)
    need = out & ~B & ~R
    if need & C:
        return -1
    if not need:
        return writes
    cap = scratch.shape[0] // 4
    # scratch layout: [0, cap) pairs, [cap, 2cap) spill1, [2cap, 3cap) spill2, [3cap, 4cap) sets
    npairs = 0
    nsp1 = 0
    nsp2 = 0
    frontier = ZERO
    pending = need
    notR = ~R
    while pending:
        i = high_index(pending)
        pending &= ~(ONE << U64(i))
        pm = pred[i] & notR
        fresh = pm & ~B
        frontier |= pm & B
        tt = fresh & tight
        if tt & (tt - ONE):
            fa = tt
            while fa:
                a = low_index(fa)
                fa &= ~(ONE << U64(a))
                fb = fa
                while fb:
                    b = low_index(fb)
                    fb &= ~(ONE << U64(b))
                    ab = (ONE << U64(a)) | (ONE << U64(b))
                    if popcount(pred[a] | ab) > M and popcount(pred[b] | ab) > M:
                        if npairs < cap:
                            scratch[npairs] = ab
                            npairs += 1
        pending |= fresh & ~need
        need |= fresh
    if need & C:
        return -1
    if tight & need:
        # red spills (module docstring of attnio.graphs.exact)
        todo = need
        while todo:
            w = low_index(todo)
            todo &= ~(ONE << U64(w))
            m = ZERO
            fp = pred[w] & need
            while fp:
                u = low_index(fp)
                ub = ONE << U64(u)
                fp &= ~ub
                m |= tmask[u] | (ub & tight)   # tmask used as anc[] here
            tmask[w] = m
            redp = pred[w] & R if m else ZERO
            while redp:
                r = low_index(redp)
                rb = ONE << U64(r)
                redp &= ~rb
                only_read = (inp & rb) != ZERO or ((not recompute) and (C & rb) != ZERO)
                f = m
                while f:
                    ai = low_index(f)
                    f &= ~(ONE << U64(ai))
                    pa = pred[ai]
                    if pa & rb:
                        continue
                    if only_read:
                        S = rb
                        double = not ((B | inp | out) & rb)
                    else:
                        X = pred[r] & inp & ~pa
                        if not X:
                            continue
                        S = rb | X
                        double = (not ((B | out) & rb)) and popcount(X) >= 2
                    if double:
                        if nsp2 < cap:
                            scratch[2 * cap + nsp2] = S
                            nsp2 += 1
                    else:
                        if nsp1 < cap:
                            scratch[cap + nsp1] = S
                            nsp1 += 1
    if npairs == 0 and nsp1 == 0 and nsp2 == 0 and not (frontier & ~inp):
        return writes + popcount(frontier)
    # requirement sets T(q), in increasing index (predecessors first)
    nsets = 0
    rest = frontier & ~inp
    if rest:
        top = high_index(rest)
        for q in range(top + 1):
            bit = ONE << U64(q)
            if (inp & bit) or ((not recompute) and (C & bit)):
                if B & bit:
                    tmask[q] = bit
                    timp[q] = False
                else:
                    tmask[q] = ZERO
                    timp[q] = True
                continue
            best = ZERO
            best_imp = False
            bestsize = 1 << 30
            todo = pred[q] & ~R
            while todo:
                u = low_index(todo)
                todo &= ~(ONE << U64(u))
                if timp[u]:
                    best_imp = True
                    break
                t = tmask[u]
                if t:
                    s = popcount(t)
                    if s < bestsize:
                        best = t
                        bestsize = s
            if B & bit:
                timp[q] = False
                if best_imp:
                    tmask[q] = bit
                elif best:
                    tmask[q] = bit | best
                else:
                    tmask[q] = ZERO
            else:
                timp[q] = best_imp
                tmask[q] = ZERO if best_imp else best
        while rest:
            q = low_index(rest)
            rest &= ~(ONE << U64(q))
            if not timp[q] and tmask[q]:
                if nsets < cap:
                    scratch[3 * cap + nsets] = tmask[q]
                    nsets += 1
    frontier_inputs = frontier & inp
    if npairs == 0 and nsets == 0 and nsp1 == 0 and nsp2 == 0:
        return writes + popcount(frontier_inputs)
    # the sets and the one-move spills, by size (insertion sort; any order is admissible)
    for j in range(nsp1):
        if nsets < cap:
            scratch[3 * cap + nsets] = scratch[cap + j]
            nsets += 1
    base = 3 * cap
    for j in range(1, nsets):
        v = scratch[base + j]
        pv = popcount(v)
        k = j - 1
        while k >= 0 and popcount(scratch[base + k]) > pv:
            scratch[base + k + 1] = scratch[base + k]
            k -= 1
        scratch[base + k + 1] = v
    used = frontier_inputs
    reads = popcount(frontier_inputs)
    for j in range(npairs):
        t = scratch[j]
        if not (t & used):
            used |= t
            reads += 1
    spill_extra = 0
    for j in range(nsp2):
        t = scratch[2 * cap + j]
        if not (t & used):
            used |= t
            reads += 1
            spill_extra += 1
    for j in range(nsets):
        t = scratch[base + j]
        if not (t & used):
            used |= t
            reads += 1
    extra_writes = 0
    used = ZERO
    for j in range(npairs):
        t = scratch[j]
        # a pair holding an output: its write is already counted in `writes`
        if not (t & used) and not (t & out):
            used |= t
            extra_writes += 1
    return writes + reads + extra_writes + spill_extra


@njit(cache=True)
def cached_heuristic(pred, n, inp, out, tight, M, recompute, R, B, C, scratch, tmask, timp,
                     hcache):
    """:func:`heuristic`, memoised in ``hcache`` (rows R, B, C, h + 2; h + 2 = 0 marks an
    empty row), a direct-mapped table: a row is used only when R, B and C all match, so
    the value is exactly h(R, B, C) (h is a function of the state alone) — a lossy cache
    changes the time, never the bound. Partial expansion regenerates a state's successors
    at every f level it is re-queued at; their h comes from here the second time."""
    s = slot_of(R, B, C, U64(hcache.shape[0] - 1))
    if hcache[s, 3] != ZERO and hcache[s, 0] == R and hcache[s, 1] == B and hcache[s, 2] == C:
        return np.int64(hcache[s, 3]) - 2
    h = heuristic(pred, n, inp, out, tight, M, recompute, R, B, C, scratch, tmask, timp)
    hcache[s, 0] = R
    hcache[s, 1] = B
    hcache[s, 2] = C
    hcache[s, 3] = U64(h + 2)
    return h


@njit(cache=True, inline="always")
def map_mask(perm, n, x):
    y = ZERO
    while x:
        i = low_index(x)
        x &= ~(ONE << U64(i))
        y |= ONE << U64(perm[i])
    return y


@njit(cache=True)
def canonical(perms, n, R, B, C):
    """(R7): the least image (compared as (B, C, R)) and the automorphism giving it."""
    bR, bB, bC = R, B, C
    bp = 0
    for p in range(1, perms.shape[0]):
        perm = perms[p]
        iB = map_mask(perm, n, B)
        if iB > bB:
            continue
        iC = map_mask(perm, n, C)
        if iB == bB and iC > bC:
            continue
        iR = map_mask(perm, n, R)
        if iB == bB and iC == bC and iR >= bR:
            continue
        bR, bB, bC, bp = iR, iB, iC, p
    return bR, bB, bC, bp


@njit(cache=True, inline="always")
def slot_of(R, B, C, hmask):
    h = (R * U64(0x9E3779B97F4A7C15)) ^ (B * U64(0xC2B2AE3D27D4EB4F)) ^ (C * U64(0x165667B19E3779F9))
    h ^= h >> U64(29)
    return np.int64(h & hmask)


@njit(cache=True)
def lookup(sR, sB, sC, slots, R, B, C):
    """Row of state (R, B, C), or -1 - (free slot) when absent."""
    hmask = U64(slots.shape[0] - 1)
    s = slot_of(R, B, C, hmask)
    while True:
        row = slots[s]
        if row < 0:
            return -1 - s
        if sR[row] == R and sB[row] == B and sC[row] == C:
            return row
        s = (s + 1) & (slots.shape[0] - 1)


@njit(cache=True)
def rehash(sR, sB, sC, count, slots):
    slots[:] = -1
    hmask = U64(slots.shape[0] - 1)
    for row in range(count):
        s = slot_of(sR[row], sB[row], sC[row], hmask)
        while slots[s] >= 0:
            s = (s + 1) & (slots.shape[0] - 1)
        slots[s] = row


@njit(cache=True, inline="always")
def heap_push(hkey, hrow, ctr, key, row):
    i = ctr[HEAP_SIZE]
    ctr[HEAP_SIZE] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if hkey[parent] <= key:
            break
        hkey[i] = hkey[parent]
        hrow[i] = hrow[parent]
        i = parent
    hkey[i] = key
    hrow[i] = row


@njit(cache=True, inline="always")
def heap_pop(hkey, hrow, ctr):
    size = ctr[HEAP_SIZE] - 1
    ctr[HEAP_SIZE] = size
    key = hkey[size]
    row = hrow[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hkey[c + 1] < hkey[c]:
            c += 1
        if hkey[c] >= key:
            break
        hkey[i] = hkey[c]
        hrow[i] = hrow[c]
        i = c
    if size > 0:
        hkey[i] = key
        hrow[i] = row


@njit(cache=True, inline="always")
def priority(f, g, tick):
    """Least first: f, then larger g, then the newest (depth-first along plateaus)."""
    return ((np.int64(f) << np.int64(G_BITS + TICK_BITS))
            | (np.int64((1 << G_BITS) - 1 - g) << np.int64(TICK_BITS))
            | np.int64(((1 << TICK_BITS) - 1) - (tick & ((1 << TICK_BITS) - 1))))


@njit(cache=True)
def consider(pred, n, inp, out, tight, M, recompute, perms, needed_inputs, first_out,
             mandatory, sR, sB, sC, sRead, sG, sParent, sPerm, slots, hkey, hrow, ctr,
             scratch, tmask, timp, row, g, Rd, unread, fbase, F, cost, w, Rr, Br, Cr,
             partial, hcache):
    """One macro-move successor: normalise, canonicalise, bound, store and queue.

    Returns the successor's f if it was left out because f > F (partial expansion), else
    -1; -2 when the table or heap is full (the driver grows them and redoes the expansion).
    """
    Rn, Bn, Cn = normalise(pred, n, inp, out, M, recompute, Rr, Br, Cr)
    g2 = g + cost
    kR, kB, kC, p = canonical(perms, n, Rn, Bn, Cn)
    found = lookup(sR, sB, sC, slots, kR, kB, kC)
    if found >= 0 and sG[found] <= g2:
        return -1
    writes = popcount(out & ~Bn)
    goal_ready = not (out & ~(Rn | Bn))
    first = pred[w] & unread
    reads = Rd | first
    extra = g2 - popcount(reads) - popcount(Bn & first_out)
    if goal_ready:
        f2 = g2 + writes
    else:
        # the bounds that need no h first: a successor they already put above the current
        # level (partial expansion) or above the best known cost needs no h (any value at
        # most its true f is a valid "least f left out")
        f2 = g2 + writes
        if f2 < fbase:
            f2 = fbase
        if mandatory + extra > f2:
            f2 = mandatory + extra
        if f2 > ctr[PRUNE_ABOVE]:
            return -1
        if partial and f2 > F:
            return f2
        h = cached_heuristic(pred, n, inp, out, tight, M, recompute, Rn, Bn, Cn, scratch,
                             tmask, timp, hcache)
        if h < 0:
            return -1
        if g2 + h > f2:
            f2 = g2 + h
    if mandatory + extra > f2:
        f2 = mandatory + extra
    if f2 > ctr[PRUNE_ABOVE]:
        return -1
    if partial and f2 > F and not goal_ready:
        return f2
    if found < 0:
        count = ctr[N_STATES]
        if count >= sR.shape[0] or 2 * (count + 1) > slots.shape[0]:
            return -2
        if ctr[HEAP_SIZE] >= hkey.shape[0] - 1:
            return -2
        slots[-1 - found] = count
        sR[count] = kR
        sB[count] = kB
        sC[count] = kC
        ctr[N_STATES] = count + 1
        found = count
    elif ctr[HEAP_SIZE] >= hkey.shape[0] - 1:
        return -2
    sG[found] = g2
    sParent[found] = row
    sPerm[found] = p
    sRead[found] = map_mask(perms[p], n, reads) if p else reads
    if goal_ready:
        if f2 < ctr[BEST_IO] or ctr[BEST_IO] < 0:
            ctr[BEST_IO] = f2
            ctr[BEST_GOAL] = found
            ctr[PRUNE_ABOVE] = f2 - 1
    ctr[TICK] += 1
    heap_push(hkey, hrow, ctr, priority(f2, g2, ctr[TICK]), found)
    return -1


@njit(cache=True)
def expand(pred, n, inp, out, tight, M, recompute, perms, needed_inputs, first_out,
           mandatory, sR, sB, sC, sRead, sG, sParent, sPerm, slots, hkey, hrow, ctr,
           scratch, tmask, timp, row, F, partial, bitpos, comb, finished_twin, hcache):
    """Every macro move (R8, with R10: the lowest finished outputs evicted first) of state
    ``row``; returns the least f left out (partial expansion; 1 << 40 if none) or -2 when
    storage is full."""
    R, B, C = sR[row], sB[row], sC[row]
    g = np.int64(sG[row])
    Rd = sRead[row]
    unread = needed_inputs & ~Rd & ~R
    h = cached_heuristic(pred, n, inp, out, tight, M, recompute, R, B, C, scratch, tmask,
                         timp, hcache)
    fbase = g + h
    ex = g - popcount(Rd) - popcount(B & first_out)
    if mandatory + ex > fbase:
        fbase = mandatory + ex
    P = possibly_needed(pred, n, inp, out, recompute, B, C)
    size = popcount(R)
    next_f = np.int64(1) << np.int64(40)
    todo = P & ~R & ~inp
    if not recompute:
        todo &= ~C
    finished = ZERO
    finished_known = False
    while todo:
        w = low_index(todo)
        wbit = ONE << U64(w)
        todo &= ~wbit
        pw = pred[w]
        X = pw & ~R
        if X & ~B:
            continue
        reads = popcount(X)
        newC = C if recompute else (C | wbit)
        base = R | X | wbit
        evictions = size + reads + 1 - M
        if evictions <= 0:
            r = consider(pred, n, inp, out, tight, M, recompute, perms, needed_inputs,
                         first_out, mandatory, sR, sB, sC, sRead, sG, sParent, sPerm, slots,
                         hkey, hrow, ctr, scratch, tmask, timp, row, g, Rd, unread, fbase, F,
                         reads, w, base, B, newC, partial, hcache)
            if r == -2:
                return -2
            if r >= 0 and r < next_f:
                next_f = r
            continue
        evictable = R & ~pw
        c = popcount(evictable)
        if c < evictions:
            continue
        if not finished_known:
            finished = finished_outputs(pred, n, inp, out, recompute, R, B, C, P,
                                        finished_twin)
            finished_known = True
        # (R10) the lowest min(evictions, |D|) finished outputs are always evicted; the
        # others are chosen among the remaining evictable vertices
        forced_e = ZERO
        fl = finished & evictable
        nf = 0
        while fl and nf < evictions:
            j = low_index(fl)
            fl &= ~(ONE << U64(j))
            forced_e |= ONE << U64(j)
            nf += 1
        k = evictions - nf
        x = evictable & ~finished
        c = popcount(x)
        for j in range(c):
            bitpos[j] = low_index(x)
            x &= ~(ONE << U64(bitpos[j]))
        for j in range(k):
            comb[j] = j
        while True:
            E = forced_e
            for j in range(k):
                E |= ONE << U64(bitpos[comb[j]])
            Rn = base & ~E
            dirty = E & ~B
            if not dirty:
                r = consider(pred, n, inp, out, tight, M, recompute, perms, needed_inputs,
                             first_out, mandatory, sR, sB, sC, sRead, sG, sParent, sPerm,
                             slots, hkey, hrow, ctr, scratch, tmask, timp, row, g, Rd, unread,
                             fbase, F, reads, w, Rn, B, newC, partial, hcache)
                if r == -2:
                    return -2
                if r >= 0 and r < next_f:
                    next_f = r
            elif not recompute:
                r = consider(pred, n, inp, out, tight, M, recompute, perms, needed_inputs,
                             first_out, mandatory, sR, sB, sC, sRead, sG, sParent, sPerm,
                             slots, hkey, hrow, ctr, scratch, tmask, timp, row, g, Rd, unread,
                             fbase, F, reads + popcount(dirty), w, Rn, B | dirty, newC, partial,
                             hcache)
                if r == -2:
                    return -2
                if r >= 0 and r < next_f:
                    next_f = r
            else:
                forced = dirty & out            # (R9)
                free_dirty = dirty & ~out
                sub = ZERO
                while True:
                    W = sub | forced
                    r = consider(pred, n, inp, out, tight, M, recompute, perms,
                                 needed_inputs, first_out, mandatory, sR, sB, sC, sRead, sG,
                                 sParent, sPerm, slots, hkey, hrow, ctr, scratch, tmask, timp,
                                 row, g, Rd, unread, fbase, F, reads + popcount(W), w, Rn,
                                 B | W, newC, partial, hcache)
                    if r == -2:
                        return -2
                    if r >= 0 and r < next_f:
                        next_f = r
                    sub = (sub - free_dirty) & free_dirty
                    if not sub:
                        break
            # next k-combination of range(c)
            j = k - 1
            while j >= 0 and comb[j] == c - k + j:
                j -= 1
            if j < 0:
                break
            comb[j] += 1
            for i in range(j + 1, k):
                comb[i] = comb[i - 1] + 1
    return next_f


@njit(cache=True)
def run_chunk(pred, n, inp, out, tight, M, recompute, perms, needed_inputs, first_out,
              mandatory, sR, sB, sC, sRead, sG, sParent, sPerm, slots, hkey, hrow, ctr,
              scratch, tmask, timp, partial, max_expansions, state_cap, bitpos, comb,
              finished_twin, hcache):
    """Up to ``max_expansions`` A* expansions (a bounded chunk: the driver reads the clock
    and lets Ctrl-C through between chunks). Returns a code (CHUNK_DONE, FOUND: ctr[DONE_IDX]
    is goal-ready, INCUMBENT_OPTIMAL, EXHAUSTED, TABLE_FULL / HEAP_FULL: grow and call again).
    """
    mask_g = (1 << G_BITS) - 1
    for _ in range(max_expansions):
        if ctr[HEAP_SIZE] == 0:
            return EXHAUSTED
        key = hkey[0]
        f = key >> np.int64(G_BITS + TICK_BITS)
        if ctr[BEST_IO] >= 0 and f >= ctr[BEST_IO]:
            if ctr[BEST_GOAL] < 0:
                return INCUMBENT_OPTIMAL
            ctr[DONE_IDX] = ctr[BEST_GOAL]
            return FOUND
        if ctr[N_STATES] > state_cap:
            return BUDGET
        g = mask_g - ((key >> np.int64(TICK_BITS)) & mask_g)
        row = hrow[0]
        if sG[row] < g:
            heap_pop(hkey, hrow, ctr)
            continue  # stale
        if not (out & ~(sR[row] | sB[row])):
            ctr[DONE_IDX] = row
            return FOUND
        heap_pop(hkey, hrow, ctr)
        r = expand(pred, n, inp, out, tight, M, recompute, perms, needed_inputs, first_out,
                   mandatory, sR, sB, sC, sRead, sG, sParent, sPerm, slots, hkey, hrow, ctr,
                   scratch, tmask, timp, row, f, partial, bitpos, comb, finished_twin,
                   hcache)
        if r == -2:
            # storage full: put the state back (its expansion is redone in full after the
            # driver grows the arrays; children stored already are skipped by their g)
            heap_push(hkey, hrow, ctr, key, row)
            return TABLE_FULL
        ctr[EXPLORED] += 1
        if r < (np.int64(1) << np.int64(40)):
            # partial expansion: the state goes back with the least f left out
            ctr[TICK] += 1
            heap_push(hkey, hrow, ctr, priority(r, g, ctr[TICK]), row)
    return CHUNK_DONE
