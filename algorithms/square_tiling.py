r"""Saha & Ye's small-cache forward pass, SquareTilingAttention (arXiv 2402.07443, Algorithm 1).

Attention without max-subtraction, as in the paper (A overflows once τ·q·k > 709; the
stable variant is :mod:`attnio.algorithms.small_cache_stable`): :math:`O = D^{-1}AV`,
:math:`A = \exp(QK^\top)`, :math:`D = \mathrm{diag}(A\mathbf 1)`.
Block size :math:`B = \lfloor\sqrt{M/4}\rfloor`; cache use :math:`3B^2 + B \le 4B^2 \le M`
(Saha–Ye, proof of Thm 3.5). Admissible: :math:`M \ge 4`.

Phase 1 (row block i, column block j, inner block ℓ of the head dimension):
read ``Q[i,ℓ]``, ``K[j,ℓ]`` (the tile of Kᵀ), accumulate ``T += Q Kᵀ``; ``T = exp(T)``;
write ``T`` as ``A[i,j]``; ``ℓ_i += rowsum(T)``; after the row, write ``ℓ_i``.

Phase 2: read ``ℓ_i``; for each output tile ``O[i,j]`` accumulate ``A[i,k] V[k,j]`` over k
and write ``diag(ℓ_i)⁻¹·O[i,j]`` (we scale once at the end instead of at every k: same I/O,
fewer FLOPs).

I/O, exactly (:math:`T_x = \lceil x/B\rceil`; :func:`attnio.algorithms.counts.count_square_tiling_forward`):

.. math::

    \text{reads} = 2T_n n d + T_d n^2 + T_n n d + n,\qquad
    \text{writes} = n^2 + n + nd,

i.e. :math:`\approx 8n^2d/\sqrt M + n^2 + nd + 2n`: Saha–Ye Thm 3.5's :math:`O(n^2d/\sqrt M)`.

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import forward_matches
>>> mem = TwoLevelMemory.with_random_inputs(20, (5, 3), seed=2, scale=0.5)
>>> square_tiling_forward(mem, block=2)
>>> forward_matches(mem.slow)
True
>>> mem.peak_words <= 3 * 2 * 2 + 2
True
"""

from __future__ import annotations

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import accumulate_row_products, blocks, kept_column_blocks

__all__ = ["square_tiling_forward", "exp_scores_phase", "attention_phase"]


def exp_scores_phase(
    mem: TwoLevelMemory, q: str, k: str, a_out: str, l_out: str, *, block: int,
    mask: np.ndarray | None = None, tau: float = 1.0,
) -> None:
    """Saha–Ye Phase 1: ``slow[a_out] = exp(τ q kᵀ)`` tile by tile, ``slow[l_out]`` = its row sums.

    With ``mask`` (True = keep), masked entries of A are 0 and tiles with no kept entry are
    skipped (not computed, not written: zero by convention).
    """
    n = mem.slow[q].shape[0]
    mem.new_slow(a_out, (n, n))
    mem.new_slow(l_out, (n,))
    for i0, r in blocks(n, block):
        rows = slice(i0, i0 + r)
        mem.allocate("l_i", (r,))
        for _, cols, c, keep in kept_column_blocks(mask, rows, n, block):
            mem.allocate("T_ij", (r, c))
            accumulate_row_products(mem, "T_ij", q, k, rows, cols, block=block,
                                    tiles=("Q_il", "K_jl"))
            mem.compute("T_ij", ("T_ij",), lambda t, keep=keep: masked_exp(tau * t, keep), flops=r * c)
            mem.store("T_ij", a_out, (rows, cols))
            mem.compute("l_i", ("l_i", "T_ij"), lambda ell, t: ell + t.sum(axis=1), flops=r * c)
            mem.free("T_ij")
        mem.store("l_i", l_out, rows)
        mem.free("l_i")


def divide_rows(o: np.ndarray, ell: np.ndarray) -> np.ndarray:
    """o / l row-wise; rows with l = 0 (fully masked) give 0."""
    out = np.zeros_like(o)
    np.divide(o, ell[:, None], out=out, where=ell[:, None] > 0)
    return out


def masked_exp(t: np.ndarray, keep: np.ndarray | None) -> np.ndarray:
    return np.exp(t) if keep is None else np.where(keep, np.exp(t), 0.0)


def square_tiling_forward(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                          tau: float = 1.0) -> None:
    """SquareTilingAttention: slow Q, K, V → slow A = exp(τQKᵀ), ℓ = A·1, O = diag(ℓ)⁻¹AV.

    ``mask``: tiles of A with no kept entry are skipped in both phases; fully masked rows
    (ℓ = 0) get O = 0, the reference's convention.
    """
    exp_scores_phase(mem, "Q", "K", "A", "l", block=block, mask=mask, tau=tau)
    attention_phase(mem, block=block, mask=mask)


def attention_phase(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None) -> None:
    """Saha–Ye Phase 2: slow A, ℓ, V → ``O = diag(ℓ)⁻¹AV`` (B×B tiles; any row shift of A
    with ℓ its row sums gives the same O). Reads :math:`T_d n^2 + T_n nd + n`, writes
    :math:`nd`."""
    n, d = mem.slow["V"].shape
    mem.new_slow("O", (n, d))
    for i0, r in blocks(n, block):
        rows = slice(i0, i0 + r)
        mem.load("l_i", "l", rows)
        for j0, c in blocks(d, block):
            cols = slice(j0, j0 + c)
            mem.allocate("O_ij", (r, c))
            for k0, w in blocks(n, block):
                keys = slice(k0, k0 + w)
                if mask is not None and not mask[rows, keys].any():
                    continue
                mem.load("A_ik", "A", (rows, keys))
                mem.load("V_kj", "V", (keys, cols))
                mem.compute("O_ij", ("O_ij", "A_ik", "V_kj"), lambda o, a, v: o + a @ v,
                            flops=2 * r * w * c)
                mem.free("A_ik", "V_kj")
            mem.compute("O_ij", ("O_ij", "l_i"), divide_rows, flops=r * c)
            mem.store("O_ij", "O", (rows, cols))
            mem.free("O_ij")
        mem.free("l_i")
