r"""The paper's small-cache backward pass, Algorithm 6 — RECONSTRUCTED.

Li, Liang, Shi, Song, Yue, Zhang, arXiv 2410.09397, Thm 4.3: for :math:`M = o(d^2)` the
gradient can be computed with :math:`O((n^2d + nd^2)/\sqrt M)` I/Os. The paper's listing is
UNRECOVERED; what is implemented here is the reconstruction of
our digest ``notes/reference/paper.md`` §4.3: every product of the gradient chain by square tiling
(TileMul, :math:`B = \lfloor\sqrt{M/4}\rfloor`) and every :math:`n\times n` intermediate
materialised in slow memory, affordable because :math:`n^2 \le n^2d/\sqrt M` when
:math:`M \le d^2`. Admissible: :math:`M \ge 4`; the bound is meant for :math:`M < d^2`.

Two entry points:

:func:`small_cache_backward` — Q/K/V gradients (our adaptation, RECONSTRUCTED), the
counterpart of FlashAttention's Algorithm 4. Inputs: Q, K, V, O, dO and, from Saha–Ye's
forward pass (:mod:`attnio.algorithms.square_tiling`), ``A = exp(QKᵀ)`` and ``ℓ = A·1``.

1. ``D = rowsum(dO ∘ O)`` streamed — reads :math:`2nd`, writes :math:`n`.
2. for each tile (i, j): accumulate ``dP_ij = dO[i,:] V[j,:]ᵀ`` over tiles of the head
   dimension; read ``A_ij``, ``ℓ_i``, ``D_i``; ``P_ij = A_ij/ℓ_i``;
   ``dS_ij = P_ij ∘ (dP_ij − D_i)``; write ``P_ij`` and ``dS_ij`` (the fusion of paper.md
   §4.3 steps 7–8) — reads :math:`2T_n nd + n^2 + 2nT_n`, writes :math:`2n^2`.
3. ``dV = Pᵀ dO``, ``dQ = dS K``, ``dK = dSᵀ Q`` by TileMul — each reads
   :math:`T_d n^2 + T_n nd`, writes :math:`nd`.

:func:`small_cache_dx` — the paper's gradient :math:`\partial L/\partial X = A_1^\top p A_2`
(Alman–Song form, paper.md §2.2), the ten steps of paper.md §4.3 literally: Q̃ = A1·X,
h = A3·Y, Saha–Ye Phase 1 (U = exp(Q̃A2ᵀ), ℓ), f = diag(ℓ)⁻¹U, O = f·h, c = O − E,
r = rowsum(c ∘ O), q = c·hᵀ, p = f ∘ (q − r), G = p·A2, g = A1ᵀ·G.

Numerics: P = A/ℓ is invariant under any row shift of A, so the backward is exact on the A
of either forward. Saha–Ye's A = exp(τQKᵀ) overflows once τ·q·k > 709, and P is then NaN.
:mod:`attnio.algorithms.small_cache_stable` (``small-cache-stable``) stores
A = exp(τQKᵀ − m) instead, with the row maxima m, and runs this backward unchanged.

Both: I/O :math:`\Theta(n^2d/\sqrt M + n^2)` (+ :math:`nd^2/\sqrt M` for the products with
X, Y, A1ᵀ), closed forms in :mod:`attnio.algorithms.counts`.

Examples
--------
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import alman_song_gradients
>>> rng = np.random.default_rng(4)
>>> mem = TwoLevelMemory(M=16)
>>> arrays = {name: 0.5 * rng.standard_normal((5, 3)) for name in ("A1", "A2", "A3", "E")}
>>> arrays |= {name: 0.5 * rng.standard_normal((3, 3)) for name in ("X", "Y")}
>>> for name, value in arrays.items(): mem.add_slow(name, value)
>>> small_cache_dx(mem, block=2)
>>> dX, _ = alman_song_gradients(*(arrays[k] for k in ("A1", "A2", "A3", "E", "X", "Y")))
>>> bool(np.allclose(mem.slow["g"], dX, rtol=0, atol=1e-12)), mem.peak_words <= 16
(True, True)
"""

from __future__ import annotations

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    accumulate_row_products,
    blocks,
    stream_elementwise,
    stream_rowsum_product,
    tile_matmul,
)
from attnio.algorithms.square_tiling import divide_rows, exp_scores_phase

__all__ = ["small_cache_backward", "small_cache_dx"]


def _fused_probabilities_and_scores(mem: TwoLevelMemory, *, block: int,
                                    mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """Step 2: write P = diag(ℓ)⁻¹A and dS = τ·P ∘ (dO Vᵀ − D), tile by tile (skipping tiles
    with no kept entry of ``mask``)."""
    n = mem.slow["dO"].shape[0]
    mem.new_slow("P", (n, n))
    mem.new_slow("dS", (n, n))
    for i0, r in blocks(n, block):
        rows = slice(i0, i0 + r)
        for j0, c in blocks(n, block):
            cols = slice(j0, j0 + c)
            if mask is not None and not mask[rows, cols].any():
                continue
            mem.allocate("dP_ij", (r, c))
            accumulate_row_products(mem, "dP_ij", "dO", "V", rows, cols, block=block,
                                    tiles=("dO_il", "V_jl"))
            mem.load("A_ij", "A", (rows, cols))
            mem.load("l_i", "l", rows)
            mem.load("D_i", "D", rows)
            mem.compute("A_ij", ("A_ij", "l_i"), divide_rows, flops=r * c)
            mem.compute("dP_ij", ("dP_ij", "A_ij", "D_i"),
                        lambda dp, p, D: tau * (p * (dp - D[:, None])), flops=2 * r * c)
            mem.store("A_ij", "P", (rows, cols))
            mem.store("dP_ij", "dS", (rows, cols))
            mem.free("dP_ij", "A_ij", "l_i", "D_i")


def small_cache_backward(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                         tau: float = 1.0) -> None:
    """Algorithm 6 for Q/K/V (RECONSTRUCTED): slow Q, K, V, O, dO, A, ℓ → dQ, dK, dV.

    With ``mask`` (True = keep), ``A`` must be the masked ``exp(τQKᵀ)`` (0 where masked, as
    :func:`~attnio.algorithms.square_tiling.square_tiling_forward` leaves it); the n×n tiles
    with no kept entry are skipped in every step. ``tau`` is folded into dS (not charged).
    """
    stream_rowsum_product(mem, "dO", "O", "D", block=block)
    _fused_probabilities_and_scores(mem, block=block, mask=mask, tau=tau)
    tile_matmul(mem, "P", "dO", "dV", block=block, trans_a=True, skip_a=mask)
    tile_matmul(mem, "dS", "K", "dQ", block=block, skip_a=mask)
    tile_matmul(mem, "dS", "Q", "dK", block=block, trans_a=True, skip_a=mask)


def small_cache_dx(mem: TwoLevelMemory, *, block: int) -> None:
    """Algorithm 6 for dL/dX (RECONSTRUCTED): slow A1, A2, A3, E, X, Y → slow g = A1ᵀ·p·A2."""
    tile_matmul(mem, "A1", "X", "Qt", block=block)                       # 1. Q̃ = A1 X
    tile_matmul(mem, "A3", "Y", "h", block=block)                        # 2. h = A3 Y
    exp_scores_phase(mem, "Qt", "A2", "U", "l", block=block)             # 3. U, ℓ
    stream_elementwise(mem, ("U",), ("l",), "f", lambda u, ell: u / ell,     # 4. f = ℓ⁻¹ U
                       flops_per_entry=1, block=block)
    tile_matmul(mem, "f", "h", "O", block=block)                         # 5. O = f h
    stream_elementwise(mem, ("O", "E"), (), "c", lambda o, e: o - e,     #    c = O − E
                       flops_per_entry=1, block=block)
    stream_rowsum_product(mem, "c", "O", "r", block=block)               # 6. r = rowsum(c∘O)
    tile_matmul(mem, "c", "h", "q", block=block, trans_b=True)           # 7. q = c hᵀ
    stream_elementwise(mem, ("f", "q"), ("r",), "p",                     # 8. p = f∘(q − r)
                       lambda f, q, r: f * (q - r), flops_per_entry=2, block=block)
    tile_matmul(mem, "p", "A2", "G", block=block)                        # 9. G = p A2
    tile_matmul(mem, "A1", "G", "g", block=block, trans_a=True)          # 10. g = A1ᵀ G
