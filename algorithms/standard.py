r"""Standard (unfused) attention under the two-level memory: S, P, dP, dS materialised.

FlashAttention's Algorithm 0 (forward) and Algorithm 3 (backward) (Dao et al. 2022,
arXiv 2205.14135, §2.2 and App. B.2), with every product done by
:func:`~attnio.algorithms.primitives.tile_matmul` and every softmax / entry-wise step streamed
in square tiles of side :math:`B = \lfloor\sqrt{M/4}\rfloor` (our choice; the listings say
only "load by blocks").  Admissible: :math:`M \ge 4` (so :math:`B \ge 1`).

Forward (writes S, P, O; :math:`T_x=\lceil x/B\rceil`):

1. ``S = Q Kᵀ`` — reads :math:`2T_n nd`, writes :math:`n^2`.
2. softmax, row block by row block: pass 1 reads each ``S_ij`` and keeps the online row max
   m and row sum ℓ on chip; pass 2 reads ``S_ij`` again and writes
   ``P_ij = exp(S_ij − m)/ℓ`` — reads :math:`2n^2`, writes :math:`n^2`.
3. ``O = P V`` — reads :math:`T_d n^2 + T_n n d`, writes :math:`nd`.

Backward (inputs Q, K, V, O, dO, P; writes dV, dP, D, dS, dQ, dK):

1. ``dV = Pᵀ dO``; 2. ``dP = dO Vᵀ``; 3. ``D = rowsum(dO ∘ O)``;
4. ``dS = P ∘ (dP − D)`` streamed; 5. ``dQ = dS K``; 6. ``dK = dSᵀ Q``.

The closed forms are :func:`attnio.algorithms.counts.count_standard_forward` and
``count_standard_backward``; FlashAttention's Theorems 2 and 5 state Θ(Nd + N²) for a cache
large enough for full rows; with square tiles the products cost Θ(n²d/√M) when M < d².

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import forward_matches
>>> mem = TwoLevelMemory.with_random_inputs(64, (6, 4), seed=1)
>>> standard_forward(mem, block=4)
>>> forward_matches(mem.slow), mem.peak_words <= 64
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    blocks,
    stream_elementwise,
    stream_rowsum_product,
    tile_matmul,
)

__all__ = ["standard_forward", "standard_backward"]


def _shift(m: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(m), m, 0.0)


def _softmax_rows(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                  tau: float = 1.0) -> None:
    """P = softmax(τS) row-wise: online (m, ℓ) in one pass, normalise in a second pass.

    With ``mask``, tiles with no kept entry are skipped (their P stays undefined: zero by
    convention), masked entries of a partial tile get P = 0, fully masked rows P = 0.
    """
    n = mem.slow["S"].shape[0]
    mem.new_slow("P", (n, n))

    def live(rows: slice, cols: slice) -> tuple[bool, Any]:
        if mask is None:
            return True, None
        keep = mask[rows, cols]
        return bool(keep.any()), keep

    def scaled(s: np.ndarray, keep: Any) -> np.ndarray:
        s = tau * s if tau != 1.0 else s
        return s if keep is None else np.where(keep, s, -np.inf)

    for i0, r in blocks(n, block):
        rows = slice(i0, i0 + r)
        mem.allocate("m_i", (r,), -np.inf)
        mem.allocate("l_i", (r,))
        for j0, c in blocks(n, block):
            ok, keep = live(rows, slice(j0, j0 + c))
            if not ok:
                continue
            mem.load("S_ij", "S", (rows, slice(j0, j0 + c)))
            mem.allocate("m_new", (r,))
            mem.compute("m_new", ("m_i", "S_ij"),
                        lambda m, s, keep=keep: np.maximum(m, scaled(s, keep).max(axis=1)), flops=r * c + r)
            mem.compute("S_ij", ("S_ij", "m_new"),
                        lambda s, mn, keep=keep: np.exp(scaled(s, keep) - _shift(mn)[:, None]),
                        flops=2 * r * c)
            mem.compute("l_i", ("l_i", "m_i", "m_new", "S_ij"),
                        lambda ell, m, mn, p: ell * np.exp(m - _shift(mn)) + p.sum(axis=1),
                        flops=3 * r + r * c)
            mem.compute("m_i", ("m_new",), lambda mn: mn, flops=0)
            mem.free("S_ij", "m_new")
        for j0, c in blocks(n, block):
            cols = slice(j0, j0 + c)
            ok, keep = live(rows, cols)
            if not ok:
                continue
            mem.load("S_ij", "S", (rows, cols))
            mem.compute("S_ij", ("S_ij", "m_i", "l_i"),
                        lambda s, m, ell, keep=keep: _normalise(np.exp(scaled(s, keep) - _shift(m)[:, None]), ell),
                        flops=3 * r * c)
            mem.store("S_ij", "P", (rows, cols))
            mem.free("S_ij")
        mem.free("m_i", "l_i")


def _normalise(x: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    np.divide(x, den[:, None], out=out, where=den[:, None] > 0)
    return out


def standard_forward(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                     tau: float = 1.0) -> None:
    """Unfused forward: slow Q, K, V → slow S, P, O (square tiles of side ``block``).

    ``mask`` (n×n bool, True = keep; not charged) and ``tau`` as in
    :func:`attnio.algorithms.reference.attention_forward`: tiles of S and P with no kept entry
    are neither computed nor read (block-sparse), the products skip them.
    """
    tile_matmul(mem, "Q", "K", "S", block=block, trans_b=True, skip_out=mask)
    _softmax_rows(mem, block=block, mask=mask, tau=tau)
    tile_matmul(mem, "P", "V", "O", block=block, skip_a=mask)


def standard_backward(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                      tau: float = 1.0) -> None:
    """Unfused backward: slow Q, K, V, O, dO, P → slow dQ, dK, dV (via dP, D, dS).

    With ``mask``, the n×n tiles with no kept entry are skipped in every step; ``tau`` is
    folded into dS = τ·P∘(dP − D) (the scaling is not charged as FLOPs).
    """
    tile_matmul(mem, "P", "dO", "dV", block=block, trans_a=True, skip_a=mask)
    tile_matmul(mem, "dO", "V", "dP", block=block, trans_b=True, skip_out=mask)
    stream_rowsum_product(mem, "dO", "O", "D", block=block)
    stream_elementwise(mem, ("dP", "P"), ("D",), "dS", lambda dp, p, D: tau * (p * (dp - D)),
                       flops_per_entry=2, block=block, skip=mask)
    tile_matmul(mem, "dS", "K", "dQ", block=block, skip_a=mask)
    tile_matmul(mem, "dS", "Q", "dK", block=block, trans_a=True, skip_a=mask)
