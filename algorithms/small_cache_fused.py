r"""``small-cache-fused``: Saha–Ye's forward and Algorithm 6's backward with rank-1 streamed
tiles of searched sides and **stable score storage** (ours).

**Stable storage** (issue 35, item 3). Saha–Ye's forward (arXiv 2402.07443, Algorithm 1)
stores :math:`A = \exp(\tau QK^\top)`, which overflows once :math:`\tau q\cdot k > 709`
(float64): O and every gradient are then NaN. The forward here stores instead, for the
column blocks :math:`J` of width :math:`w` of its first pass,

.. math::

    A_{ij} = \exp(\tau s_{ij} - t_{iJ}),\qquad t_{iJ} = \max_{j'\in J}\tau s_{ij'},\qquad
    g_{iJ} = \exp(t_{iJ} - L_i),\qquad L_i = \log\textstyle\sum_j \exp(\tau s_{ij}),

(``A`` n×n and the block scales ``g`` n×⌈n/w⌉), so that every stored entry lies in [0, 1]
and :math:`P_{ij} = A_{ij}\,g_{iJ}`: no exponent is positive, nothing overflows for any
finite logit (a scale below the float64 range rounds to 0, as the reference's P does).
(:func:`block_maxima_scores` is the untiled (A, t, L); ``g = score_scale(t, L)``.)
``small-cache-stable`` (:mod:`attnio.algorithms.small_cache_stable`) stores
:math:`A = \exp(\tau S - m)` with the final row maxima instead, at the price of a rescaling
sweep over A (:math:`+2n^2` words); here only one word per row and stored block travels (the
tile logsumexp u, written, read back twice and rewritten as g: :math:`4n\lceil n/w\rceil`
words) and one word of g per stored block is read where the unstable schedule read one word
of ℓ.

**Forward** (:func:`small_cache_fused_forward`):

1. *Pass 1*, r₁×c₁ tiles (:math:`w = c_1`): per tile, S by rank-1 updates (a column of
   :math:`Q_I` and of :math:`K_J` at a time), its row maxima t, then in place
   :math:`u = t + \log\sum_{j\in J} e^{\tau s_{ij} - t}` (the tile's logsumexp) and
   :math:`A_{IJ} = \exp(\tau S - u)` (each row of the tile sums to 1: the stored
   :math:`A_{ij} = \exp(\tau s_{ij} - u_{iJ})`, equivalent to the display above with
   :math:`t \to u`); A and u (r₁ words) written. Once the row block is done, two sweeps over
   its u: :math:`L_I` by FlashAttention's online maximum and sum, then each
   :math:`u_{IJ}` read back and rewritten as :math:`g_{IJ} = \exp(u_{IJ} - L_I)`. No row
   vector stays resident during the tiles: peak :math:`\max(r_1c_1 + r_1 + c_1, 3r_1)`,
   below the unstable schedule's :math:`r_1c_1 + 2r_1 + c_1`.
2. *Pass 2*, O = PV with r₂×c₂ output tiles: per column block J load :math:`g_{IJ}` (r₂
   words); per key stream a row of V (c₂ words) and the column of A (r₂ words) one word at
   a time, :math:`O_{i\cdot} \mathrel{+}= a_{ij}g_{iJ}v_j` (already normalised: no
   division). Peak :math:`r_2c_2 + r_2 + c_2 + 1`.

**Backward** (:func:`small_cache_fused_backward`; slow Q, K, V, O, dO and the forward's A, g
→ dQ, dK, dV): the computation of the reconstructed Algorithm 6
(:mod:`attnio.algorithms.small_cache`, class ``given-scores``) with two changes, both about
how tiles meet the cache:

1. *One pass writes dS from one accumulator*, on the forward's column grid (:math:`c_1 = w`,
   so a tile's scales are one stored vector): ``dP_IJ = dO_I V_Jᵀ`` by rank-1 updates (the
   accumulator takes almost all of M), then, row by row, :math:`P = A\circ g_{IJ}` and
   :math:`dS = \tau P\circ(dP - D)` overwrite the accumulator (one word of g and one of D
   per row); the tile of dS is written once. Peak :math:`r_1c_1 + r_1 + c_1`.
2. *Output-stationary products with rank-1 streaming*: ``dV = PᵀdO``, ``dQ = dS K``,
   ``dK = dSᵀQ`` (:func:`stationary_product`), an r₂×c₂ tile of the n×d output resident while
   a column of the n×n operand (r₂ words) and a row of the n×d operand (c₂ words) stream past.
   For dV the streamed piece :math:`A_{iK}` is scaled on chip by one word of g per stored
   block J overlapping the key range K (:func:`refinement_pieces` such pieces per streamed
   row). Peaks :math:`r_2c_2 + r_2 + c_2 + 1` (dV), :math:`r_2c_2 + r_2 + c_2`.

Exact counts (:func:`attnio.algorithms.counts.count_small_cache_fused_forward`,
``count_small_cache_fused_backward``, equal to the executed ones, ``==``;
:math:`T_x(b) = \lceil x/b\rceil`, :math:`R = ` :func:`refinement_pieces` ``(n, r₂, c₁)``):

* forward: reads :math:`nd(T_n(c_1) + T_n(r_1)) + 2nT_n(c_1) + T_d(c_2)\,(n^2 + nT_n(c_1))
  + nd\,T_n(r_2)`, writes :math:`n^2 + 2nT_n(c_1) + nd`;
* backward: D reads :math:`2nd`, writes n; pass 1 reads :math:`nd(T_n(c_1) + T_n(r_1)) + n^2
  + 2nT_n(c_1)`, writes :math:`n^2`; the products read :math:`3(n^2T_d(c_2) + nd\,T_n(r_2))
  + nT_d(c_2)R`, write :math:`3nd`.

Against the unstable storage (issue 26) at the same sides: forward
:math:`+nT_n(c_1)(4 + T_d(c_2)) - n` words, backward :math:`+nT_d(c_2)(R - T_n(r_2))` — about
:math:`(4 + T_d)n^2/\sqrt M` and :math:`T_dn^2/\sqrt M` words on :math:`\approx
4n^2d/\sqrt M + n^2` and :math:`8n^2d/\sqrt M + 3n^2`; the first passes hold one row
vector fewer and the forward's streamed column goes one word at a time, which pays back part
of it (notes/algorithms_io.md has the figures).

Block sizes (:func:`fused_block_sizes`, exact): every side of a distinct trip count with the
largest fitting partner, both passes of the forward searched jointly (they share the term
:math:`nT_n(c_1)T_d(c_2)`); the backward takes the forward's :math:`c_1` and the largest
fitting :math:`r_1`, and for the products every :math:`c_2` of a distinct trip count with
the :math:`r_2` of least I/O (:func:`aligned_side`: the trip count and the alignment of the
key blocks with the stored ones). Admissible: M ≥ 4 (both passes).

Words in a tile's column are streamed one at a time (pass 2) and the first passes hold no row
vector beside their tile: the two-level memory charges words moved, and a word streamed on
its own moves once, like the column it belongs to, while a resident vector takes room from
the tiles.

Masks (``mask``, True = keep; ``tau`` the softmax scale): tiles and streamed vectors with no
kept entry are skipped (no I/O, no FLOPs); masked entries get P = 0; a fully masked row has
L = −∞, g = 0 and gets O = 0 and zero gradients, the reference's convention. Closed form:
:func:`attnio.algorithms.masked_counts.count_masked_small_cache_fused`.

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import attention_backward, attention_forward
>>> rng = np.random.default_rng(5)
>>> Q, K, V, dO = (rng.standard_normal((7, 5)) for _ in range(4))
>>> tau = 600.0                                  # logits up to ~ 4·10³: exp overflows
>>> mem = TwoLevelMemory(M=24)
>>> for name, value in dict(Q=Q, K=K, V=V).items(): mem.add_slow(name, value)
>>> blocks = fused_block_sizes(7, 5, 24, "forward")
>>> small_cache_fused_forward(mem, **blocks, tau=tau)
>>> ref = attention_forward(Q, K, V, tau=tau)
>>> bool(np.allclose(mem.slow["O"], ref.O, rtol=0, atol=1e-10)), float(mem.slow["A"].max())
(True, 1.0)
>>> back = TwoLevelMemory(M=24)
>>> for name, value in dict(Q=Q, K=K, V=V, O=ref.O, dO=dO).items(): back.add_slow(name, value)
>>> b = fused_block_sizes(7, 5, 24)
>>> A, t, L = block_maxima_scores(tau * (Q @ K.T), b["c1"])
>>> back.add_slow("A", A); back.add_slow("g", score_scale(t, L[:, None]))
>>> small_cache_fused_backward(back, **b, tau=tau)
>>> expected = attention_backward(Q, K, V, dO, tau=tau)
>>> scale = max(float(np.abs(e).max()) for e in expected)   # dQ, dK ~ 1e-13: P is one-hot
>>> max(float(np.abs(back.slow[k] - e).max()) for k, e in zip(("dQ", "dK", "dV"), expected)) < 1e-10 * scale
True
"""

from __future__ import annotations

from math import gcd, isqrt
from typing import Callable

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    accumulate_row_products,
    blocks,
    ceil_div,
    kept_column_blocks,
    stream_rowsum_product,
)
from attnio.algorithms.small_cache_stable import masked_row_max, shifted_exp
from attnio.exceptions import CacheTooSmallError

__all__ = ["small_cache_fused_backward", "small_cache_fused_forward", "fused_block_sizes",
           "trip_count_sides", "stationary_product", "block_maxima_scores", "score_scale",
           "online_sum", "refinement_pieces", "block_pieces", "aligned_side", "divisors",
           "pass1_io", "product_io", "backward_products_io", "forward_pass1_io",
           "forward_pass2_io", "fused_peaks"]


# ---- the stable storage ---------------------------------------------------------------------
def block_maxima_scores(S: np.ndarray, w: int, mask: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Untiled ``(A, t, L)`` of the stable storage for scores ``S`` (= τQKᵀ) and column
    blocks of width ``w``: :math:`t_{iJ} = \max_{j\in J} S_{ij}` (−∞ where row i keeps no
    entry of J), :math:`A_{ij} = \exp(S_{ij} - t_{iJ})` (0 where masked),
    :math:`L_i = \log\sum_j e^{S_{ij}}` (−∞ for a fully masked row).

    >>> A, t, L = block_maxima_scores(np.array([[3000.0, 2999.0, -5.0]]), 2)
    >>> A.round(4).tolist(), t.tolist(), round(float(L[0]), 4)
    ([[1.0, 0.3679, 1.0]], [[3000.0, -5.0]], 3000.3133)
    """
    n, m = S.shape
    keep = np.ones(S.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    kept = np.where(keep, S, -np.inf)
    t = np.stack([kept[:, j0:j0 + c].max(axis=1) for j0, c in blocks(m, w)], axis=1)
    shift = np.repeat(t, [c for _, c in blocks(m, w)], axis=1)
    finite = np.isfinite(shift)
    A = np.where(finite & keep, np.exp(np.where(finite, kept - np.where(finite, shift, 0.0),
                                                -np.inf)), 0.0)
    row_max = t.max(axis=1, initial=-np.inf)
    live = np.isfinite(row_max)
    L = np.full(n, -np.inf)
    base = np.where(live, row_max, 0.0)
    L[live] = row_max[live] + np.log(np.exp(kept[live] - base[live, None]).sum(axis=1))
    return A, t, L


def score_scale(t: np.ndarray, L: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    r""":math:`\exp(t - L)` entry-wise, 0 where either is −∞ or not finite (no kept entry, or a
    stored maximum left unwritten because its tile was masked) or where ``rows`` is False.

    >>> score_scale(np.array([2.0, -np.inf, np.nan]), np.array([2.0, 1.0, 1.0])).tolist()
    [1.0, 0.0, 0.0]
    """
    ok = np.isfinite(t) & np.isfinite(L)
    if rows is not None:
        ok &= rows
    return np.where(ok, np.exp(np.where(ok, t - np.where(ok, L, 0.0), 0.0)), 0.0)


def online_sum(ell: np.ndarray, m: np.ndarray, t: np.ndarray, rowsum: np.ndarray
               ) -> np.ndarray:
    r"""FlashAttention's running sum: :math:`\ell e^{m - m'} + \sigma e^{t - m'}` with
    :math:`m' = \max(m, t)` (rows with :math:`m' = -\infty` keep ℓ = 0).

    >>> online_sum(np.array([1.0]), np.array([0.0]), np.array([1.0]), np.array([1.0])).round(4)
    array([1.3679])
    """
    new = np.maximum(m, t)
    base = np.where(np.isfinite(new), new, 0.0)
    a = np.where(np.isfinite(m), np.exp(np.where(np.isfinite(m), m - base, 0.0)), 0.0)
    b = np.where(np.isfinite(t), np.exp(np.where(np.isfinite(t), t - base, 0.0)), 0.0)
    return ell * a + rowsum * b


def _logsumexp(ell: np.ndarray, m: np.ndarray) -> np.ndarray:
    """m + log ℓ, −∞ where ℓ = 0 (a row with no kept entry)."""
    live = (ell > 0) & np.isfinite(m)
    return np.where(live, np.where(live, m, 0.0) + np.log(np.where(live, ell, 1.0)), -np.inf)


def _normalise_rows(a: np.ndarray) -> np.ndarray:
    """a / rowsum(a), rows summing to 0 (nothing kept) left 0."""
    total = a.sum(axis=1, keepdims=True)
    return np.divide(a, total, out=np.zeros_like(a), where=total > 0)


def refinement_pieces(n: int, a: int, w: int) -> int:
    r"""Pairs (block of width a, block of width w) of two grids of [0, n) that overlap: the
    pieces of their common refinement, :math:`T_n(a) + T_n(w) - \lceil n/\mathrm{lcm}(a, w)
    \rceil`.

    >>> refinement_pieces(10, 4, 3), int(block_pieces(10, 4, 3).sum())
    (6, 6)
    """
    a, w = min(a, n), min(w, n)
    return ceil_div(n, a) + ceil_div(n, w) - ceil_div(n, a * w // gcd(a, w))


def block_pieces(n: int, a: int, w: int) -> np.ndarray:
    """Per block of width ``a`` of [0, n), the number of blocks of width ``w`` it overlaps.

    >>> block_pieces(10, 4, 3).tolist()
    [2, 2, 2]
    """
    starts = np.arange(0, n, a, dtype=np.int64)
    ends = np.minimum(starts + a, n) - 1
    return ends // w - starts // w + 1


def divisors(w: int) -> list[int]:
    """The divisors of ``w`` in increasing order.

    >>> divisors(12)
    [1, 2, 3, 4, 6, 12]
    """
    small = [g for g in range(1, isqrt(w) + 1) if w % g == 0]
    return sorted(set(small) | {w // g for g in small})


def aligned_side(n: int, w: int, hi: int, per_trip: int, per_piece: int, *,
                 limit: int = 1 << 12) -> int:
    r"""The side :math:`a \in [1, hi]` of least :math:`\text{per\_trip}\cdot T_n(a) +
    \text{per\_piece}\cdot R(a)` with :math:`R` = :func:`refinement_pieces` ``(n, a, w)``,
    exactly (ties: the larger a) when at most ``limit`` trip counts can win (below); beyond,
    the best of the first ``limit`` trip counts (huge n: the algorithm's own block choice, the
    same in its count and its execution, found in bounded time).

    :math:`R(a) = T_n(a) + T_n(w) - \lceil n/\mathrm{lcm}(a, w)\rceil`, so the cost is
    :math:`(\text{per\_trip} + \text{per\_piece})T_n(a) - \text{per\_piece}\lceil
    n/\mathrm{lcm}(a, w)\rceil` + const. The last term lies in :math:`[1, \lceil n/w\rceil]`,
    so trip counts more than :math:`\text{per\_piece}(\lceil n/w\rceil - 1)/(\text{per\_trip}
    + \text{per\_piece})` above the least one cannot win; within one trip count the lcm is
    least at the smallest multiple (in range) of some divisor g of w (its gcd with w is at
    least g), so those sides, and the largest side of the trip count, are all that is tried:
    :math:`O((k+1)\,\#\mathrm{div}(w))` evaluations.

    >>> aligned_side(100, 10, 12, per_trip=1, per_piece=100)   # 10 divides w: one piece each
    10
    >>> aligned_side(100, 10, 12, per_trip=1000, per_piece=1)  # trips dominate: the largest
    12
    """
    hi = min(hi, n)
    t_min = ceil_div(n, hi)
    slack = per_piece * (ceil_div(n, w) - 1) // (per_trip + per_piece)
    best: tuple[int, int] | None = None
    for trips in range(t_min, min(n, t_min + min(slack, limit)) + 1):
        lo_t = ceil_div(n, trips)
        hi_t = hi if trips == t_min else ceil_div(n, trips - 1) - 1
        if lo_t > hi_t:
            continue
        cands = {hi_t} | {g * ceil_div(lo_t, g) for g in divisors(w)
                          if g * ceil_div(lo_t, g) <= hi_t}
        for a in cands:
            cost = per_trip * ceil_div(n, a) + per_piece * refinement_pieces(n, a, w)
            if best is None or (cost, -a) < (best[0], -best[1]):
                best = (cost, a)
    assert best is not None  # the largest side hi is always a candidate
    return best[1]


# ---- closed forms of the passes (reads + writes) --------------------------------------------
def forward_pass1_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by the forward pass 1 with r×c tiles: A written, the tile logsumexps u
    written, read back twice (for L, then rewritten as the scales g)."""
    return n * d * (ceil_div(n, c) + ceil_div(n, r)) + n * n + 4 * n * ceil_div(n, c)


def forward_pass2_io(n: int, d: int, r: int, c: int, w: int) -> int:
    """Words moved by the forward pass 2 (O = PV from A, g) with r×c output tiles against
    stored blocks of width w."""
    return product_io(n, d, r, c) + n * ceil_div(d, c) * ceil_div(n, w)


def pass1_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by the backward pass 1 (dS written) with r×c tiles (c = the stored w)."""
    return n * d * (ceil_div(n, c) + ceil_div(n, r)) + 2 * n * n + 2 * n * ceil_div(n, c)


def product_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by one gradient product (n×d output, inner n) with r×c output tiles."""
    return n * (n * ceil_div(d, c) + d * ceil_div(n, r)) + n * d


def backward_products_io(n: int, d: int, r: int, c: int, w: int) -> int:
    """Words moved by the three backward products: dV also streams one word of g per stored
    block (width w) overlapping each streamed key range."""
    return 3 * product_io(n, d, r, c) + n * ceil_div(d, c) * refinement_pieces(n, r, w)


def fused_peaks(pass_: str, n: int, d: int, r1: int, c1: int, r2: int, c2: int
                ) -> tuple[int, int]:
    """(pass 1, pass 2 / products) peak resident words at these sides (clipped to n, d).

    >>> fused_peaks("forward", 4096, 64, 29, 32, 30, 32)
    (989, 1023)
    """
    r1, c1, r2, c2 = min(r1, n), min(c1, n), min(r2, n), min(c2, d)
    if pass_ == "forward":
        return max(r1 * c1 + r1 + c1, 3 * r1), r2 * c2 + r2 + c2 + 1
    return r1 * c1 + r1 + c1, r2 * c2 + r2 + c2 + 1


def trip_count_sides(length: int, cap: int, *, limit: int = 1 << 16) -> list[int]:
    r"""The smallest block side of each trip count :math:`\lceil \text{length}/b\rceil`, ≤ cap.

    :math:`O(\sqrt{\text{length}})` sides: every b ≤ √length and every ⌈length/T⌉ for
    T ≤ √length. A search whose I/O depends on a side only through its trip count, and whose
    other sides shrink as this one grows, loses nothing by trying only these. Bounded: when
    √length exceeds ``limit`` (length > 2³²), only the powers of two and the sides
    ⌈length/2^k⌉ are returned (the search is then exact over that set only).

    >>> trip_count_sides(10, 10)
    [1, 2, 3, 4, 5, 10]
    >>> len(trip_count_sides(10 ** 30, 10 ** 20)) < 300
    True
    """
    root = isqrt(length) + 1
    if root <= limit:
        sides = set(range(1, min(root, length) + 1)) | {-(-length // T)
                                                        for T in range(1, root + 1)}
    else:
        powers = [1 << k for k in range(length.bit_length() + 1)]
        sides = {p for p in powers if p <= length} | {-(-length // p) for p in powers}
    return sorted(b for b in sides if b <= cap)


def _pass1_candidates(n: int, M: int) -> list[tuple[int, int]]:
    """(r1, c1): each r1 ≤ M/3 of a distinct trip count with the largest c1 of
    r1·c1 + r1 + c1 ≤ M (the peak of :func:`fused_peaks`)."""
    out = []
    for r in trip_count_sides(n, M // 3):
        c = min(n, (M - r) // (r + 1))
        if c < 1:
            break
        out.append((r, c))
    return out


def _product_candidates(n: int, d: int, M: int, extra: int) -> list[tuple[int, int]]:
    """(r2, c2): each c2 of a distinct trip count with the largest r2 of r2·c2 + (1 + extra)r2
    + c2 ≤ M (``extra``: the words per row beyond the accumulator and the streamed column)."""
    out = []
    for c in trip_count_sides(d, M):
        r = min(n, (M - c) // (c + 1 + extra))
        if r < 1:
            break
        out.append((r, c))
    return out


def fused_block_sizes(n: int, d: int, M: int, pass_: str = "backward") -> dict[str, int]:
    """Tile sides ``{"B", "r1", "c1", "r2", "c2"}`` of least I/O under M (exact search; the
    module docstring). ``B`` is the square block of the backward's D = rowsum(dO∘O).

    The I/O of a pass falls as either side grows and depends on r1 (c2) only through its trip
    count, so only the smallest side of each trip count is tried, with the largest fitting
    partner (:func:`trip_count_sides`, O(√n + √d) sides). The forward's two passes share the
    term n·T_n(c1)·T_d(c2) and are searched jointly (O(√n·√d) pairs). The backward runs its
    pass 1 on the forward's c1 (the stored blocks); its products pick r2 by
    :func:`aligned_side`. Ties go to the squarer tile, then the smaller r.

    >>> fused_block_sizes(4096, 64, 1024)
    {'B': 16, 'r1': 30, 'c1': 32, 'r2': 30, 'c2': 32}

    Raises
    ------
    CacheTooSmallError
        If M < 4 (no 1×1 tile set fits).
    """
    if M < 4:
        raise CacheTooSmallError(f"M={M} is too small for small-cache-fused: needs M >= 4")
    B = isqrt(M // 4)
    pass1 = _pass1_candidates(n, M)
    fwd2 = [(r, c) for c in trip_count_sides(d, M)
            if (r := min(n, (M - c - 1) // (c + 1))) >= 1]
    best: tuple[int, int, int, int, int, int, int] | None = None
    for r1, c1 in pass1:
        io1 = forward_pass1_io(n, d, r1, c1)
        for r2, c2 in fwd2:
            io = io1 + forward_pass2_io(n, d, r2, c2, c1)
            key = (io, abs(r1 - c1), r1, abs(r2 - c2), r2, c1, c2)
            best = key if best is None or key < best else best
    assert best is not None  # M >= 4 fits 1x1 tiles of both passes
    r1, c1, r2, c2 = best[2], best[5], best[4], best[6]
    if pass_ == "forward":
        return {"B": B, "r1": r1, "c1": c1, "r2": r2, "c2": c2}
    w = min(c1, n)
    r1b = min(n, (M - w) // (w + 1))  # fits: the forward's r1 does
    best2: tuple[int, int, int, int] | None = None
    for c in trip_count_sides(d, M):
        r_max = min(n, (M - c - 1) // (c + 1))  # dV holds one word beyond r2·c2 + r2 + c2
        if r_max < 1:
            break
        Td = ceil_div(d, c)
        r = aligned_side(n, w, r_max, per_trip=3 * n * d, per_piece=n * Td)
        key2 = (backward_products_io(n, d, r, c, w), abs(r - c), r, c)
        best2 = key2 if best2 is None or key2 < best2 else best2
    assert best2 is not None  # M >= 4 fits a 1x1 product tile with its word of g
    return {"B": B, "r1": r1b, "c1": w, "r2": best2[2], "c2": best2[3]}


# ---- the forward ----------------------------------------------------------------------------
def small_cache_fused_forward(mem: TwoLevelMemory, *, B: int, r1: int, c1: int, r2: int,
                              c2: int, mask: np.ndarray | None = None,
                              tau: float = 1.0) -> None:
    """Forward: slow Q, K, V → O and, for the backward, the stable storage A, g (module
    docstring; ``B`` is unused: the forward has no prologue).

    ``mask`` (n×n, True = keep): pass-1 tiles with no kept entry are skipped (A and g stay
    unwritten there: pass 2 and the backward zero what they read of them by the mask); pass 2
    skips the
    stored blocks and streamed columns with no kept entry in the tile's rows.
    """
    n, d = mem.slow["Q"].shape
    mem.new_slow("A", (n, n))
    mem.new_slow("g", (n, ceil_div(n, c1)))
    for i0, r in blocks(n, r1):
        rows = slice(i0, i0 + r)
        computed: list[tuple[int, np.ndarray | None]] = []
        for J, cols, c, keep in kept_column_blocks(mask, rows, n, c1):
            mem.allocate("S_IJ", (r, c))
            accumulate_row_products(mem, "S_IJ", "Q", "K", rows, cols, block=1,
                                    tiles=("Q_il", "K_jl"))
            mem.allocate("u_IJ", (r, 1))
            mem.compute("u_IJ", ("S_IJ",), lambda s, k=keep: masked_row_max(s, k, tau)[:, None],
                        flops=r * c)
            mem.compute("S_IJ", ("S_IJ", "u_IJ"),
                        lambda s, t, k=keep: shifted_exp(s, t[:, 0], k, tau), flops=2 * r * c)
            mem.compute("u_IJ", ("u_IJ", "S_IJ"),   # u = t + log σ, the tile's logsumexp
                        lambda t, a: _logsumexp(a.sum(axis=1), t[:, 0])[:, None],
                        flops=r * c + 2 * r)
            mem.compute("S_IJ", ("S_IJ",), _normalise_rows, flops=2 * r * c)
            mem.store("S_IJ", "A", (rows, cols))
            mem.store("u_IJ", "g", (rows, slice(J, J + 1)))
            mem.free("S_IJ", "u_IJ")
            computed.append((J, keep))
        # the row block's sweeps: L from the tile logsumexps u, then g = exp(u − L)
        mem.allocate("l_I", (r,))
        mem.allocate("m_I", (r,), fill=-np.inf)
        for J, _ in computed:
            mem.load("u_IJ", "g", (rows, slice(J, J + 1)))
            mem.compute("l_I", ("l_I", "m_I", "u_IJ"),
                        lambda lv, m, u: online_sum(lv, m, u[:, 0], np.ones_like(lv)),
                        flops=4 * r)
            mem.compute("m_I", ("m_I", "u_IJ"), lambda m, u: np.maximum(m, u[:, 0]), flops=r)
            mem.free("u_IJ")
        mem.compute("l_I", ("l_I", "m_I"), _logsumexp, flops=2 * r)
        mem.free("m_I")
        for J, keep in computed:
            mem.load("g_IJ", "g", (rows, slice(J, J + 1)))
            live = None if keep is None else keep.any(axis=1)
            mem.compute("g_IJ", ("g_IJ", "l_I"),
                        lambda u, L, lv=live: score_scale(u[:, 0], L, lv)[:, None], flops=2 * r)
            mem.store("g_IJ", "g", (rows, slice(J, J + 1)))
            mem.free("g_IJ")
        mem.free("l_I")
    mem.new_slow("O", (n, d))
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        for l0, c in blocks(d, c2):
            cols = slice(l0, l0 + c)
            mem.allocate("O_IL", (r, c))
            for J, (j0, w) in enumerate(blocks(n, c1)):
                keys = slice(j0, j0 + w)
                keep = None if mask is None else mask[rows, keys]
                if keep is not None and not keep.any():
                    continue
                mem.load("f_IJ", "g", (rows, slice(J, J + 1)))
                for j in _kept_columns(keep, j0, w):
                    one = slice(j, j + 1)
                    mem.load("v_j", "V", (one, cols))
                    for s in range(r):  # the column of A one word at a time
                        entry_kept = keep is None or bool(keep[s, j - j0])  # masked: may be unset
                        mem.load("a_sj", "A", (slice(i0 + s, i0 + s + 1), one))
                        mem.compute("O_IL", ("O_IL", "a_sj", "f_IJ", "v_j"),
                                    lambda o, a, f, v, s=s, lv=entry_kept: _add_row(
                                        o, s, (a[0, 0] * f[s, 0] if lv else 0.0) * v[0]),
                                    flops=2 * c + 1)
                        mem.free("a_sj")
                    mem.free("v_j")
                mem.free("f_IJ")
            mem.store("O_IL", "O", (rows, cols))
            mem.free("O_IL")


# ---- the backward ---------------------------------------------------------------------------
def _pass1(mem: TwoLevelMemory, r1: int, c1: int, mask: np.ndarray | None,
           tau: float) -> None:
    """Write dS = τ·P∘(dO Vᵀ − D) with P = A∘g formed on chip, one r1×c1 accumulator on the
    stored grid (c1 = w; tiles with no kept entry of ``mask`` skipped)."""
    n, d = mem.slow["dO"].shape
    mem.new_slow("dS", (n, n))
    for i0, r in blocks(n, r1):
        rows = slice(i0, i0 + r)
        for J, cols, c, keep in kept_column_blocks(mask, rows, n, c1):
            mem.allocate("dP_IJ", (r, c))
            accumulate_row_products(mem, "dP_IJ", "dO", "V", rows, cols, block=1,
                                    tiles=("dO_il", "V_jl"))
            for s in range(r):  # P = A∘g and dS row by row, one word of g and of D each
                row = slice(i0 + s, i0 + s + 1)
                mem.load("A_row", "A", (row, cols))
                mem.load("g_s", "g", (row, slice(J, J + 1)))
                row_keep = None if keep is None else keep[s:s + 1]
                mem.compute("A_row", ("A_row", "g_s"),
                            lambda a, g, k=row_keep: _zero_masked(a * g[0, 0], k), flops=c)
                mem.free("g_s")
                mem.load("D_s", "D", row)

                def ds_row(dp: np.ndarray, p: np.ndarray, Dv: np.ndarray,
                           s: int = s) -> np.ndarray:
                    out = dp.copy()
                    out[s] = tau * (p[0] * (dp[s] - Dv[0]))
                    return out

                mem.compute("dP_IJ", ("dP_IJ", "A_row", "D_s"), ds_row, flops=2 * c)
                mem.free("A_row", "D_s")
            mem.store("dP_IJ", "dS", (rows, cols))
            mem.free("dP_IJ")


def stationary_product(mem: TwoLevelMemory, left: str, right: str, out: str, r2: int, c2: int,
                       *, trans_left: bool, mask: np.ndarray | None = None,
                       scales: tuple[str, int] | None = None) -> None:
    """slow[out] = op(left) @ slow[right] (n×n by n×d), r2×c2 output tiles, rank-1 streaming.

    ``mask`` marks the possibly nonzero entries of ``left``: a streamed column of op(left)
    with none in the tile's rows is skipped, masked entries are zeroed on chip (they may be
    unwritten). ``scales = (g, w)`` (with ``trans_left``: ``left`` is the stored A): the
    streamed piece A[i, K] is turned into P[i, K] on chip — for each stored block of width w
    overlapping K, one word of the stored scale g multiplies its part.
    """
    n, d = mem.slow[right].shape
    support = None if mask is None else (mask.T if trans_left else mask)
    mem.new_slow(out, (n, d))
    assert scales is None or trans_left  # the stored A is streamed by rows (keys = columns)
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        pieces = [] if scales is None else [
            (J, slice(max(i0, J * scales[1]) - i0, min(i0 + r, (J + 1) * scales[1]) - i0))
            for J in range(i0 // scales[1], (i0 + r - 1) // scales[1] + 1)]
        for l0, c in blocks(d, c2):
            cols = slice(l0, l0 + c)
            mem.allocate("C_il", (r, c))
            for j in _kept_columns(support[rows] if support is not None else None, 0, n):
                one = slice(j, j + 1)
                keep = None if support is None else support[rows, one]
                # a column of op(left) restricted to the tile's rows: r words
                mem.load("a_j", left, (one, rows) if trans_left else (rows, one))
                mem.load("b_j", right, (one, cols))
                if scales is not None:
                    for J, part in pieces:
                        mem.load("g_jJ", scales[0], (one, slice(J, J + 1)))
                        mem.compute("a_j", ("a_j", "g_jJ"),
                                    lambda a, g, part=part: _scale_part(a, part, g),
                                    flops=part.stop - part.start)
                        mem.free("g_jJ")
                mem.compute("C_il", ("C_il", "a_j", "b_j"),
                            lambda acc, a, b, keep=keep: acc + _zero_masked(
                                a.T if trans_left else a, keep) @ b,
                            flops=2 * r * c)
                mem.free("a_j", "b_j")
            mem.store("C_il", out, (rows, cols))
            mem.free("C_il")


def _scale_part(a: np.ndarray, part: slice, g: np.ndarray) -> np.ndarray:
    """a (1×r) with its entries ``part`` multiplied by the stored scale g (1×1)."""
    out = a.copy()
    out[0, part] = a[0, part] * g[0, 0]
    return out


def small_cache_fused_backward(mem: TwoLevelMemory, *, B: int, r1: int, c1: int, r2: int,
                               c2: int, mask: np.ndarray | None = None,
                               tau: float = 1.0) -> None:
    """small-cache-fused: slow Q, K, V, O, dO and the stable storage A, g (stored blocks of
    width ``c1``) → dQ, dK, dV (module docstring).

    With ``mask`` (True = keep) every tile or streamed column with no kept entry is skipped
    (no I/O, no FLOPs); ``tau`` is folded into dS. A fully masked row has L = −∞, is never
    streamed, and gets zero gradients, the reference's convention.
    """
    stream_rowsum_product(mem, "dO", "O", "D", block=B)
    _pass1(mem, r1, c1, mask, tau)
    stationary_product(mem, "A", "dO", "dV", r2, c2, trans_left=True, mask=mask,
                       scales=("g", min(c1, mem.slow["A"].shape[0])))
    stationary_product(mem, "dS", "K", "dQ", r2, c2, trans_left=False, mask=mask)
    stationary_product(mem, "dS", "Q", "dK", r2, c2, trans_left=True, mask=mask)


def _add_row(m: np.ndarray, row: int, value: np.ndarray | float) -> np.ndarray:
    out = m.copy()
    out[row] += value
    return out


def _kept_columns(keep: np.ndarray | None, j0: int, width: int) -> range | list[int]:
    """The columns j0 + k (k < width) with a kept entry in ``keep[:, k]`` (all without one)."""
    if keep is None:
        return range(j0, j0 + width)
    return (j0 + np.flatnonzero(keep.any(axis=0))).tolist()


def _zero_masked(values: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    return values if keep is None else np.where(keep, values, 0.0)


#: The pass-1 and product searches, exposed for the tests (largest fitting partner per side).
CANDIDATES: dict[str, Callable[..., list[tuple[int, int]]]] = {
    "pass 1": _pass1_candidates, "products": _product_candidates}
