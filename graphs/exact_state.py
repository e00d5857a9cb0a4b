r"""Exact pebbling, room 1 of 4: the state encoding and its symmetry (R0, R7).

The search of :mod:`attnio.graphs.exact` works on the *relevant* sub-DAG
(:class:`attnio.graphs.indexed_dag.IndexedDAG`), indexed in topological order, and a state
is ``(R, B[, C])``: bitmasks (Python ints) of the red, blue (and, one-shot, computed)
vertices. Rooms: this one (encoding, R0, R7);
:mod:`attnio.graphs.exact_moves` (macro moves and reductions R1–R6, R8–R10);
:mod:`attnio.graphs.exact_heuristic` (the admissible heuristic); :mod:`attnio.graphs.exact`
(the A* driver, its bookkeeping and the certificate).

(R0) **Irrelevant vertices are dropped.** A vertex that is no ancestor of an output is never
     needed: deleting every move on it from a schedule keeps it legal (predecessors of relevant
     vertices are relevant) at no greater cost.

(R7) **Symmetry.** For an automorphism π of the relevant DAG that maps outputs to outputs
     (inputs = sources are fixed automatically), ``cost(π(R), π(B), π(C)) = cost(R, B, C)``:
     map every move of a schedule through π. States are stored under the least key among
     their images (VF2 enumeration, capped; any subset of the group containing the identity
     is correct); the certificate is mapped back frame by frame (``_reconstruct``).
     matmul 2×2×2 has 16 such automorphisms, 3×2×2 has 24, attention n = 2 has 4.

>>> list(submasks_of_size(0b1011, 2))
[3, 9, 10]
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Iterable

import networkx as nx

from attnio.graphs.indexed_dag import IndexedDAG, iter_bits

__all__ = ["Symmetry", "submasks_of_size", "all_submasks"]


class _OutOfTime(Exception):
    """The deadline passed inside a preparation step (raised and caught in this module)."""


def submasks_of_size(mask: int, k: int) -> Iterable[int]:
    """Every submask of ``mask`` with exactly ``k`` bits."""
    bits = [1 << i for i in iter_bits(mask)]
    if k == 1:
        yield from bits
        return
    for combo in itertools.combinations(bits, k):
        yield sum(combo)


def all_submasks(mask: int) -> Iterable[int]:
    """Every submask of ``mask``, the empty one first."""
    sub = 0
    while True:
        yield sub
        sub = (sub - mask) & mask
        if not sub:
            return


class Symmetry:
    """Automorphisms of the relevant DAG that fix the output set (R7).

    (R7) **Symmetry.** The game sees only the graph, the inputs (= sources, fixed by every
    automorphism) and the outputs; so for an automorphism π that maps outputs to outputs,
    ``cost(π(R), π(B), π(C)) = cost(R, B, C)`` (map every move of a schedule through π).
    States are stored under the least key among their images by the automorphisms found (any
    subset of the group containing the identity is correct; VF2 enumeration is capped).
    """

    def __init__(self, G: nx.DiGraph, inst: IndexedDAG, limit: int,
                 deadline: float = math.inf) -> None:
        import itertools

        from networkx.algorithms.isomorphism import DiGraphMatcher

        n = inst.n
        H: nx.DiGraph = nx.DiGraph()
        H.add_nodes_from(range(n))
        for i in range(n):
            H.nodes[i]["out"] = bool((inst.out >> i) & 1)
            for u in iter_bits(inst.pred[i]):
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
