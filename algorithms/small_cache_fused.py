r"""Small-cache passes with a smaller constant than Algorithm 6 / Saha–Ye: ``small-cache-fused``.

**Forward** (:func:`small_cache_fused_forward`; ours): Saha–Ye's two phases
(arXiv 2402.07443, SquareTilingAttention: A = exp(QKᵀ) and ℓ = A·1 written, then
O = diag(ℓ)⁻¹AV) with the tiles of change 1 and 2 below: pass 1 reads
:math:`nd\,(T_n(c_1) + T_n(r_1))`, writes :math:`n^2 + n` (peak :math:`r_1c_1 + 2r_1 + c_1`);
pass 2 reads :math:`n\,(n\,T_d(c_2) + d\,T_n(r_2)) + n\,T_d(c_2)`, writes :math:`nd`
(peak :math:`r_2c_2 + r_2 + c_2`). About :math:`4n^2d/\sqrt M + n^2` against square tiling's
:math:`8n^2d/\sqrt M + n^2`.

**Backward** (:func:`small_cache_fused_backward`):

Same computation as the reconstructed Algorithm 6 (:mod:`attnio.algorithms.small_cache`):
slow Q, K, V, O, dO and, from Saha–Ye's forward pass, ``A = exp(QKᵀ)`` and ``ℓ = A·1``
→ dQ, dK, dV. Ours (not from a paper). Two changes, both about how tiles meet the cache:

1. **One pass writes both n×n intermediates from one accumulator.** For each r₁×c₁ tile
   (i, j), ``dP_ij = dO_i V_jᵀ`` is accumulated by rank-1 updates (a column of ``dO_i``
   and of ``V_j`` at a time: the accumulator takes almost all of M, not a quarter), then
   ``A_ij`` is streamed one row at a time: ``P = A/ℓ`` is formed on chip and
   ``dS = P∘(dP − D)`` overwrites the accumulator's row; the tile of dS is written once.
   ``P`` is never written: ``dV = PᵀdO = Aᵀ(diag(ℓ)⁻¹dO)`` reads ``A`` and scales each
   streamed row of dO by its ``1/ℓ_j`` (one more word per step).
2. **The three gradient products are output-stationary with rank-1 streaming.** ``dV = PᵀdO``,
   ``dQ = dS K``, ``dK = dSᵀQ``: an r₂×c₂ tile of the n×d output stays in fast memory while a
   column of the n×n operand (r₂ words) and a row of the n×d operand (c₂ words) stream past.

I/O with :math:`T_x(b) = \lceil x/b\rceil` (closed form
:func:`attnio.algorithms.counts.count_small_cache_fused_backward`, equal to the executed counts):

* D = rowsum(dO∘O): reads :math:`2nd`, writes :math:`n` (square blocks :math:`b = \lfloor\sqrt{M/4}\rfloor`);
* pass 1: reads :math:`nd\,(T_n(c_1) + T_n(r_1)) + n^2 + 2n\,T_n(c_1)`, writes :math:`n^2`;
  peak :math:`r_1c_1 + 2r_1 + c_1 \le M`;
* each product: reads :math:`n\,(n\,T_d(c_2) + d\,T_n(r_2))` (dV: plus
  :math:`n\,T_n(r_2)T_d(c_2)` for ℓ), writes :math:`nd`; peak
  :math:`r_2c_2 + r_2 + c_2 + 1 \le M`.

So about :math:`8n^2d/\sqrt M + 2n^2` against Algorithm 6's :math:`16n^2d/\sqrt M + 3n^2`.
The tile sides are chosen by exact integer search over the closed form
(:func:`fused_block_sizes`): every :math:`r_1 \le \min(n, M)` with the largest fitting
:math:`c_1`; every :math:`c_2 \le d` with the largest fitting :math:`r_2`. Admissible: M ≥ 4.

Examples
--------
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import attention_backward, relative_error
>>> rng = np.random.default_rng(5)
>>> Q, K, V, dO = (0.5 * rng.standard_normal((7, 5)) for _ in range(4))
>>> A = np.exp(Q @ K.T); P = A / A.sum(axis=1)[:, None]; O = P @ V
>>> mem = TwoLevelMemory(M=20)
>>> for name, value in dict(Q=Q, K=K, V=V, O=O, dO=dO, A=A, l=A.sum(axis=1)).items():
...     mem.add_slow(name, value)
>>> small_cache_fused_backward(mem, **fused_block_sizes(7, 5, 20))
>>> expected = attention_backward(Q, K, V, dO)
>>> max(relative_error(mem.slow[k], e) for k, e in zip(("dQ", "dK", "dV"), expected)) < 1e-12
True
>>> mem.peak_words <= 20
True
"""

from __future__ import annotations

from math import isqrt
from typing import Callable

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import blocks, ceil_div, stream_rowsum_product
from attnio.algorithms.square_tiling import divide_rows, masked_exp
from attnio.exceptions import CacheTooSmallError

__all__ = ["small_cache_fused_backward", "small_cache_fused_forward", "fused_block_sizes",
           "trip_count_sides", "stationary_product",
           "pass1_io", "product_io", "backward_products_io", "forward_pass1_io",
           "forward_pass2_io"]


def pass1_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by pass 1 with r×c tiles (reads + writes)."""
    return n * d * (ceil_div(n, c) + ceil_div(n, r)) + n * n + 2 * n * ceil_div(n, c) + n * n


def product_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by one gradient product (n×d output, inner n) with r×c output tiles."""
    return n * (n * ceil_div(d, c) + d * ceil_div(n, r)) + n * d


def backward_products_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by the three backward products (dV also streams ℓ: one word per step)."""
    return 3 * product_io(n, d, r, c) + n * ceil_div(n, r) * ceil_div(d, c)


def forward_pass1_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by the forward pass 1 (A = exp(QKᵀ), ℓ) with r×c tiles."""
    return n * d * (ceil_div(n, c) + ceil_div(n, r)) + n * n + n


def forward_pass2_io(n: int, d: int, r: int, c: int) -> int:
    """Words moved by the forward pass 2 (O = diag(ℓ)⁻¹AV) with r×c output tiles."""
    return product_io(n, d, r, c) + n * ceil_div(d, c)


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


def _search(pass1: Callable[[int, int], int], product: Callable[[int, int], int], n: int,
            d: int, M: int, *, extra: int = 0) -> dict[str, int]:
    best1: tuple[int, int, int, int] | None = None
    for r in trip_count_sides(n, M):
        c = min(n, (M - 2 * r) // (r + 1))
        if c < 1:
            break
        key = (pass1(r, c), abs(r - c), r, c)
        best1 = key if best1 is None or key < best1 else best1
    best2: tuple[int, int, int, int] | None = None
    for c in trip_count_sides(d, M):
        r = min(n, (M - c - extra) // (c + 1))
        if r < 1:
            break
        key = (product(r, c), abs(r - c), r, c)
        best2 = key if best2 is None or key < best2 else best2
    assert best1 is not None and best2 is not None  # M ≥ 4 fits 1×1 tiles
    return {"B": isqrt(M // 4), "r1": best1[2], "c1": best1[3], "r2": best2[2], "c2": best2[3]}


def fused_block_sizes(n: int, d: int, M: int, pass_: str = "backward") -> dict[str, int]:
    """Tile sides ``{"B", "r1", "c1", "r2", "c2"}`` of least I/O under M (exact search).

    Pass 1 tries ``r1`` with the largest ``c1`` that fits (``r1·c1 + 2r1 + c1 ≤ M``); the
    products ``c2`` with the largest ``r2`` (``r2·c2 + r2 + c2 ≤ M``): the I/O falls as
    either side grows, so the largest fitting partner is optimal, and the I/O depends on
    ``r1`` (``c2``) only through its trip count, so only the smallest side of each trip
    count is tried (:func:`trip_count_sides`, O(√n + √d) evaluations; powers of two beyond
    n or d > 2³²). Ties go to the squarer tile, then the smaller r. ``B`` is the
    square block of the D = rowsum(dO∘O) prologue (backward).

    >>> fused_block_sizes(4096, 64, 1024)
    {'B': 16, 'r1': 29, 'c1': 32, 'r2': 30, 'c2': 32}

    Raises
    ------
    InvalidInputError
        If M < 4 (no tile set fits).
    """
    if M < 4:
        raise CacheTooSmallError(f"M={M} is too small for small-cache-fused: needs M >= 4")
    if pass_ == "forward":
        return _search(lambda r, c: forward_pass1_io(n, d, r, c),
                       lambda r, c: forward_pass2_io(n, d, r, c), n, d, M)
    return _search(lambda r, c: pass1_io(n, d, r, c),
                   lambda r, c: backward_products_io(n, d, r, c), n, d, M, extra=1)


def small_cache_fused_forward(mem: TwoLevelMemory, *, B: int, r1: int, c1: int, r2: int,
                              c2: int, mask: np.ndarray | None = None,
                              tau: float = 1.0) -> None:
    """Forward: slow Q, K, V → O and, for the backward, A = exp(τQKᵀ) and ℓ = A·1.

    Pass 1: per r1×c1 tile, S by rank-1 updates, A = exp(τS) written, ℓ_i accumulated over the
    row block and written once. Pass 2: O = diag(ℓ)⁻¹AV, r2×c2 output tiles, rank-1 streaming.
    (No row maximum is subtracted, as in Saha–Ye's SquareTilingAttention. A overflows once
    τ·q·k > 709, and O and the gradients are then NaN. The stable storage, with the row
    maxima subtracted, is ``small-cache-stable``'s:
    :mod:`attnio.algorithms.small_cache_stable`.)

    ``mask`` (n×n, True = keep): pass-1 tiles with no kept entry are skipped (A stays
    unwritten there) and kept tiles store A = 0 at masked entries; pass 2 skips every
    streamed column j with no kept entry in the tile's rows and zeroes masked entries on chip
    (the two passes' grids differ, so A may be unwritten at masked entries). Fully masked rows
    (ℓ = 0) get O = 0, the reference's convention.
    """
    n, d = mem.slow["Q"].shape
    mem.new_slow("A", (n, n))
    mem.new_slow("l", (n,))
    for i0, r in blocks(n, r1):
        rows = slice(i0, i0 + r)
        mem.allocate("l_i", (r,))
        for j0, c in blocks(n, c1):
            cols = slice(j0, j0 + c)
            keep = None if mask is None else mask[rows, cols]
            if keep is not None and not keep.any():
                continue
            mem.allocate("S_ij", (r, c))
            for ell in range(d):
                mem.load("Q_il", "Q", (rows, slice(ell, ell + 1)))
                mem.load("K_jl", "K", (cols, slice(ell, ell + 1)))
                mem.compute("S_ij", ("S_ij", "Q_il", "K_jl"), lambda t, x, y: t + x @ y.T,
                            flops=2 * r * c)
                mem.free("Q_il", "K_jl")
            mem.compute("S_ij", ("S_ij",), lambda t, keep=keep: masked_exp(tau * t, keep),
                        flops=r * c)
            mem.compute("l_i", ("l_i", "S_ij"), lambda lv, a: lv + a.sum(axis=1), flops=r * c)
            mem.store("S_ij", "A", (rows, cols))
            mem.free("S_ij")
        mem.store("l_i", "l", rows)
        mem.free("l_i")
    n_rows = n
    mem.new_slow("O", (n_rows, d))
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        for l0, c in blocks(d, c2):
            cols = slice(l0, l0 + c)
            mem.allocate("O_il", (r, c))
            for j in _kept_columns(mask, rows, n):
                keep = None if mask is None else mask[rows, j:j + 1]
                mem.load("a_j", "A", (rows, slice(j, j + 1)))
                mem.load("v_j", "V", (slice(j, j + 1), cols))
                mem.compute("O_il", ("O_il", "a_j", "v_j"),
                            lambda acc, a, v, keep=keep: acc + _zero_masked(a, keep) @ v,
                            flops=2 * r * c)
                mem.free("a_j", "v_j")
            mem.load("l_i", "l", rows)
            mem.compute("O_il", ("O_il", "l_i"), divide_rows, flops=r * c)
            mem.store("O_il", "O", (rows, cols))
            mem.free("O_il", "l_i")


def _pass1(mem: TwoLevelMemory, r1: int, c1: int, mask: np.ndarray | None,
           tau: float) -> None:
    """Write dS = τ·P∘(dO Vᵀ − D) with P = diag(ℓ)⁻¹A formed on chip, one r1×c1 accumulator
    (tiles with no kept entry of ``mask`` skipped; rows with ℓ = 0 give P = 0)."""
    n, d = mem.slow["dO"].shape
    mem.new_slow("dS", (n, n))
    for i0, r in blocks(n, r1):
        rows = slice(i0, i0 + r)
        for j0, c in blocks(n, c1):
            cols = slice(j0, j0 + c)
            keep = None if mask is None else mask[rows, cols]
            if keep is not None and not keep.any():
                continue
            mem.allocate("dP_ij", (r, c))
            for ell in range(d):
                mem.load("dO_il", "dO", (rows, slice(ell, ell + 1)))
                mem.load("V_jl", "V", (cols, slice(ell, ell + 1)))
                mem.compute("dP_ij", ("dP_ij", "dO_il", "V_jl"), lambda t, x, y: t + x @ y.T,
                            flops=2 * r * c)
                mem.free("dO_il", "V_jl")
            mem.load("l_i", "l", rows)
            mem.load("D_i", "D", rows)
            for t in range(r):
                row = slice(i0 + t, i0 + t + 1)
                mem.load("A_row", "A", (row, cols))
                row_keep = None if keep is None else keep[t:t + 1]
                mem.compute("A_row", ("A_row", "l_i"),
                            lambda a, lv, t=t, k=row_keep: _zero_masked(
                                a / lv[t] if lv[t] > 0 else np.zeros_like(a), k),
                            flops=c)

                def ds_row(dp, p, Dv, t=t):
                    out = dp.copy()
                    out[t] = tau * (p[0] * (dp[t] - Dv[t]))
                    return out

                mem.compute("dP_ij", ("dP_ij", "A_row", "D_i"), ds_row, flops=2 * c)
                mem.free("A_row")
            mem.store("dP_ij", "dS", (rows, cols))
            mem.free("dP_ij", "l_i", "D_i")


def stationary_product(mem: TwoLevelMemory, left: str, right: str, out: str, r2: int, c2: int,
             *, trans_left: bool, row_scale: str | None = None,
             mask: np.ndarray | None = None) -> None:
    """slow[out] = op(left) @ diag(1/slow[row_scale]) slow[right] (n×n by n×d), r2×c2 output
    tiles, rank-1 streaming; without ``row_scale`` no scaling. ``mask`` marks the possibly
    nonzero entries of ``left``: a streamed column of op(left) with none in the tile's rows is
    skipped, masked entries are zeroed on chip (they may be unwritten)."""
    n, d = mem.slow[right].shape
    support = None if mask is None else (mask.T if trans_left else mask)
    mem.new_slow(out, (n, d))
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        for l0, c in blocks(d, c2):
            cols = slice(l0, l0 + c)
            mem.allocate("C_il", (r, c))
            for j in _kept_columns(support, rows, n):
                one = slice(j, j + 1)
                keep = None if support is None else support[rows, one]
                # a column of op(left) restricted to the tile's rows: r words
                mem.load("a_j", left, (one, rows) if trans_left else (rows, one))
                mem.load("b_j", right, (one, cols))
                if row_scale is not None:
                    mem.load("s_j", row_scale, one)
                    mem.compute("b_j", ("b_j", "s_j"), lambda b, sv: b / sv[0], flops=c)
                    mem.free("s_j")
                mem.compute("C_il", ("C_il", "a_j", "b_j"),
                            lambda acc, a, b, keep=keep: acc + _zero_masked(
                                a.T if trans_left else a, keep) @ b,
                            flops=2 * r * c)
                mem.free("a_j", "b_j")
            mem.store("C_il", out, (rows, cols))
            mem.free("C_il")


def small_cache_fused_backward(mem: TwoLevelMemory, *, B: int, r1: int, c1: int, r2: int,
                               c2: int, mask: np.ndarray | None = None,
                               tau: float = 1.0) -> None:
    """small-cache-fused: slow Q, K, V, O, dO, A, ℓ → dQ, dK, dV (see the module docstring).

    With ``mask`` (True = keep), ``A`` is the masked ``exp(τQKᵀ)``; every tile or streamed
    column with no kept entry is skipped (no I/O, no FLOPs); ``tau`` is folded into dS.
    A fully masked row j has ℓ_j = 0 and no kept entry: it is never streamed, and its
    gradients are 0, the reference's convention.
    """
    stream_rowsum_product(mem, "dO", "O", "D", block=B)
    _pass1(mem, r1, c1, mask, tau)
    stationary_product(mem, "A", "dO", "dV", r2, c2, trans_left=True, row_scale="l", mask=mask)
    stationary_product(mem, "dS", "K", "dQ", r2, c2, trans_left=False, mask=mask)
    stationary_product(mem, "dS", "Q", "dK", r2, c2, trans_left=True, mask=mask)


def _kept_columns(support: np.ndarray | None, rows: slice, n: int) -> range | list[int]:
    """The columns j with a kept entry of ``support[rows, j]`` (all n without a mask)."""
    if support is None:
        return range(n)
    return np.flatnonzero(support[rows].any(axis=0)).tolist()


def _zero_masked(values: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    return values if keep is None else np.where(keep, values, 0.0)
