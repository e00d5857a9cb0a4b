r"""FlashAttention-1 (Dao et al. 2022, arXiv 2205.14135) and FlashAttention-2 (Dao 2023,
arXiv 2307.08691) forward and backward passes under the two-level memory.

Block sizes are parameters (``block_rows`` = :math:`B_r` for Q/O/dO/dQ, ``block_cols`` =
:math:`B_c` for K/V/dK/dV). :mod:`attnio.algorithms.counts` supplies three choices:

* **published** (FA-1 Alg. 1 line 1, Alg. 4): :math:`B_c=\lceil M/4d\rceil`,
  :math:`B_r=\min(\lceil M/4d\rceil, d)`. Under an exact budget of M words these overflow:
  the backward pass always (K_j, V_j, dK̃_j, dṼ_j alone take :math:`4B_cd \ge M` words), the
  forward pass whenever the tiles listed below exceed M (e.g. M = 4096, d = 64). The memory
  model raises :class:`~attnio.exceptions.CacheOverflowError` naming the tile.
* **fitted** (ours): the I/O-optimal block sizes that fit in M words. The I/O depends on the
  block sizes only through the outer trip count (:math:`T_c`; :math:`T_r` for the FA-2
  forward), so the outer block is the largest that fits beside a one-row inner block, and
  the inner block the largest that still fits (in practice 1).
* **shaped** (ours, for comparison): the published proportion :math:`B_r=\min(B_c,d)` kept,
  the largest :math:`B_c` that fits.

I/O as implemented (:math:`T_r=\lceil n/B_r\rceil`, :math:`T_c=\lceil n/B_c\rceil`;
closed forms in :mod:`attnio.algorithms.counts`):

* FA-1 forward (Alg. 1, KV outer / Q inner; O, ℓ, m initialised in slow memory, charged):
  reads :math:`2nd + T_c(2nd + 2n)`, writes :math:`nd + 2n + T_c(nd + 2n)`.
  On chip per step: :math:`K_j, V_j, Q_i, O_i, \ell_i, m_i, S_{ij}` and the row vectors
  :math:`\tilde m, \tilde\ell, m^{new}, \ell^{new}`: :math:`2B_cd + 2B_rd + B_rB_c + 6B_r` words.
* FA-1 backward (Alg. 4; dQ, dK, dV initialised in slow memory, charged):
  reads :math:`2nd + T_c(4nd + 2n)`, writes :math:`3nd + T_c nd + 2nd`; on chip
  :math:`4B_cd + 4B_rd + 2B_rB_c + 3B_r` words (K, V, dK̃, dṼ, Q, O, dO, dQ, S/P, dP/dS, ℓ, m, D).
* FA-2 forward (Alg. 1 of FA-2, Q outer / KV inner; writes O and L = m + log ℓ):
  reads :math:`nd + 2T_r nd`, writes :math:`nd + n`; on chip :math:`2B_rd + 2B_cd + B_rB_c + 4B_r`.
* FA-2 backward (Alg. 2 of FA-2: D = rowsum(dO∘O) precomputed and written; dQ initialised in
  slow memory; KV outer / Q inner loading Q_i, dO_i, dQ_i, L_i, D_i — O_i is not reloaded):
  reads :math:`2nd + 2nd + T_c(3nd + 2n)`, writes :math:`n + nd + T_c nd + 2nd`; on chip
  :math:`4B_cd + 3B_rd + 2B_rB_c + 2B_r`.

All four are :math:`\Theta(n^2d^2/M)` for :math:`d \le M \le nd` (FA-1 Thms 2 and 5); the
backward's constant is about 5/4 of the forward's.

Masks and scale (every pass): ``mask`` (n×n bool, True = keep; generated on chip from
indices or a block map, not charged) and ``tau`` (S = τQKᵀ, as
:mod:`attnio.algorithms.reference`). A tile (i, j) with no kept entry is skipped — no loads,
no FLOPs — as block-sparse FlashAttention does (FA-1 §3.3); a partial tile is computed with
its masked entries at −∞; a fully masked row ends with O = 0, ℓ = 0, m = L = −∞, zero
gradients. The outer loop's loads and stores are paid for every block. Masked counts:
:func:`attnio.algorithms.counts.count_masked`.

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import forward_matches
>>> mem = TwoLevelMemory.with_random_inputs(200, (7, 4), seed=3)
>>> flash1_forward(mem, block_rows=3, block_cols=5)
>>> forward_matches(mem.slow)
True
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import blocks, close_key_block, open_key_block

__all__ = ["flash1_forward", "flash1_backward", "flash2_forward", "flash2_forward_step",
           "flash2_backward"]


def _shift(m: np.ndarray) -> np.ndarray:
    """The row maximum to subtract: m where finite, 0 on rows with nothing kept yet (m = −∞)."""
    return np.where(np.isfinite(m), m, 0.0)


def _scores(q: np.ndarray, k: np.ndarray, tau: float, keep: np.ndarray | None) -> np.ndarray:
    """τ·q kᵀ with masked entries set to −∞."""
    s = tau * (q @ k.T) if tau != 1.0 else q @ k.T
    return s if keep is None else np.where(keep, s, -np.inf)


def _safe_divide(x: np.ndarray, den: np.ndarray) -> np.ndarray:
    """x / den row-wise; rows with den = 0 (nothing kept) give 0 (the reference's convention)."""
    out = np.zeros_like(x)
    np.divide(x, den[:, None], out=out, where=den[:, None] > 0)
    return out


def _tile_mask(mask: np.ndarray | None, rows: slice, keys: slice) -> tuple[bool, np.ndarray | None]:
    """(skip, keep): skip a tile with no kept entry; keep = its mask (None if unmasked)."""
    if mask is None:
        return False, None
    keep = mask[rows, keys]
    return not keep.any(), keep


def _key_outer_tiles(mem: TwoLevelMemory, n: int, nq: int, d: int, block_rows: int,
                     block_cols: int, mask: np.ndarray | None
                     ) -> Iterator[tuple[slice, int, int, np.ndarray | None]]:
    """The key-outer loop of both backward passes (FA-1 Algorithm 4, FA-2 Algorithm 2): per
    block of ``block_cols`` key rows, open the key block, yield ``(rows, r, c, keep)``
    for each block of ``block_rows`` query rows (of ``nq``) with a kept entry, then close the
    key block (:func:`~attnio.algorithms.primitives.open_key_block`, ``close_key_block``)."""
    for j0, c in blocks(n, block_cols):
        keys = slice(j0, j0 + c)
        open_key_block(mem, keys, c, d)
        for i0, r in blocks(nq, block_rows):
            rows = slice(i0, i0 + r)
            skip, keep = _tile_mask(mask, rows, keys)
            if not skip:
                yield rows, r, c, keep
        close_key_block(mem, keys)


def _score_tile(mem: TwoLevelMemory, tile: str, r: int, c: int, d: int, tau: float,
                keep: np.ndarray | None) -> None:
    """Allocate the r×c ``tile`` and set it to the (masked) scores τ·Q_i K_jᵀ (every pass of
    both versions, forward and backward)."""
    mem.allocate(tile, (r, c))
    mem.compute(tile, ("Q_i", "K_j"), lambda q, k, keep=keep: _scores(q, k, tau, keep),
                flops=2 * r * c * d)


def _dv_and_dp(mem: TwoLevelMemory, r: int, c: int, d: int) -> None:
    """dV_j += P_ijᵀ dO_i; a new tile dS_ij = dP_ij = dO_i V_jᵀ (both backward passes)."""
    mem.compute("dV_j", ("dV_j", "P_ij", "dO_i"), lambda dv, p, do: dv + p.T @ do,
                flops=2 * r * c * d)
    mem.allocate("dS_ij", (r, c))
    mem.compute("dS_ij", ("dO_i", "V_j"), lambda do, v: do @ v.T, flops=2 * r * c * d)


def _ds_dq_dk(mem: TwoLevelMemory, rows: slice, r: int, c: int, d: int, tau: float) -> None:
    """dS_ij = P_ij ∘ (dP_ij − D_i); dQ_i += τ dS_ij K_j, stored; dK_j += τ dS_ijᵀ Q_i."""
    mem.compute("dS_ij", ("dS_ij", "P_ij", "D_i"),
                lambda dp, p, D: p * (dp - D[:, None]), flops=2 * r * c)
    mem.compute("dQ_i", ("dQ_i", "dS_ij", "K_j"), lambda dq, ds, k: dq + tau * (ds @ k),
                flops=2 * r * c * d)
    mem.store("dQ_i", "dQ", (rows, slice(None)))
    mem.compute("dK_j", ("dK_j", "dS_ij", "Q_i"), lambda dk, ds, q: dk + tau * (ds.T @ q),
                flops=2 * r * c * d)


def flash1_forward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                   mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-1 Algorithm 1: slow Q, K, V → slow O, ℓ (row sums), m (row maxima).

    ``mask`` (n×n bool, True = keep; built on chip from indices, not charged) and the scale
    ``tau`` as in :func:`attnio.algorithms.reference.attention_forward`; a tile with no kept
    entry is skipped (no I/O, no FLOPs); fully masked rows end with O = 0, ℓ = 0, m = −∞.
    """
    n, d = mem.slow["Q"].shape
    mem.fill_slow("O", (n, d), 0.0)
    mem.fill_slow("l", (n,), 0.0)
    mem.fill_slow("m", (n,), -np.inf)
    for j0, c in blocks(n, block_cols):
        keys = slice(j0, j0 + c)
        mem.load("K_j", "K", (keys, slice(None)))
        mem.load("V_j", "V", (keys, slice(None)))
        for i0, r in blocks(n, block_rows):
            rows = slice(i0, i0 + r)
            skip, keep = _tile_mask(mask, rows, keys)
            if skip:
                continue
            mem.load("Q_i", "Q", (rows, slice(None)))
            mem.load("O_i", "O", (rows, slice(None)))
            mem.load("l_i", "l", rows)
            mem.load("m_i", "m", rows)
            _score_tile(mem, "S_ij", r, c, d, tau, keep)
            mem.allocate("m_tilde", (r,))
            mem.compute("m_tilde", ("S_ij",), lambda s: s.max(axis=1), flops=r * c)
            mem.compute("S_ij", ("S_ij", "m_tilde"),
                        lambda s, mt: np.exp(s - _shift(mt)[:, None]), flops=2 * r * c)
            mem.allocate("l_tilde", (r,))
            mem.compute("l_tilde", ("S_ij",), lambda p: p.sum(axis=1), flops=r * c)
            mem.allocate("m_new", (r,))
            mem.compute("m_new", ("m_i", "m_tilde"), np.maximum, flops=r)
            mem.allocate("l_new", (r,))
            mem.compute("l_new", ("m_i", "l_i", "m_tilde", "l_tilde", "m_new"),
                        lambda m, ell, mt, lt, mn: (np.exp(m - _shift(mn)) * ell
                                                  + np.exp(mt - _shift(mn)) * lt),
                        flops=7 * r)
            # O_i ← diag(ℓ_new)⁻¹ (diag(ℓ_i) e^{m_i − m_new} O_i + e^{m̃ − m_new} P̃_ij V_j)
            mem.compute("O_i", ("O_i", "l_i", "m_i", "m_new"),
                        lambda o, ell, m, mn: o * (ell * np.exp(m - _shift(mn)))[:, None],
                        flops=3 * r + r * d)
            mem.compute("S_ij", ("S_ij", "m_tilde", "m_new"),
                        lambda p, mt, mn: p * np.exp(mt - _shift(mn))[:, None], flops=2 * r + r * c)
            mem.compute("O_i", ("O_i", "S_ij", "V_j"), lambda o, p, v: o + p @ v,
                        flops=2 * r * c * d)
            mem.compute("O_i", ("O_i", "l_new"), _safe_divide, flops=r * d)
            mem.store("O_i", "O", (rows, slice(None)))
            mem.store("l_new", "l", rows)
            mem.store("m_new", "m", rows)
            mem.free("Q_i", "O_i", "l_i", "m_i", "S_ij", "m_tilde", "l_tilde", "m_new", "l_new")
        mem.free("K_j", "V_j")


def flash1_backward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                    mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-1 Algorithm 4 (no dropout): slow Q, K, V, O, dO, ℓ, m → dQ, dK, dV.

    ``mask``/``tau`` as in :func:`flash1_forward` (tiles with no kept entry skipped).
    """
    n, d = mem.slow["Q"].shape
    for name in ("dQ", "dK", "dV"):
        mem.fill_slow(name, (n, d), 0.0)
    for rows, r, c, keep in _key_outer_tiles(mem, n, n, d, block_rows, block_cols, mask):
        for tile, array in (("Q_i", "Q"), ("O_i", "O"), ("dO_i", "dO"), ("dQ_i", "dQ")):
            mem.load(tile, array, (rows, slice(None)))
        mem.load("l_i", "l", rows)
        mem.load("m_i", "m", rows)
        _score_tile(mem, "P_ij", r, c, d, tau, keep)
        mem.compute("P_ij", ("P_ij", "m_i", "l_i"),
                    lambda s, m, ell: _safe_divide(np.exp(s - _shift(m)[:, None]), ell),
                    flops=3 * r * c)
        _dv_and_dp(mem, r, c, d)
        mem.allocate("D_i", (r,))
        mem.compute("D_i", ("dO_i", "O_i"), lambda do, o: (do * o).sum(axis=1), flops=2 * r * d)
        _ds_dq_dk(mem, rows, r, c, d, tau)
        mem.free("Q_i", "O_i", "dO_i", "dQ_i", "l_i", "m_i", "P_ij", "dS_ij", "D_i")


def flash2_forward_step(mem: TwoLevelMemory, keys: slice, r: int, c: int, d: int, *,
                        tau: float = 1.0, keep: np.ndarray | None = None) -> None:
    """One inner step of FA-2's forward (Algorithm 1 lines 8–10): load K_j, V_j for ``keys``,
    update the running max ``m_i``, sum ``l_i`` and unnormalised ``O_i`` of the resident
    ``r``-row query tile ``Q_i``, free the tile. Shared by :func:`flash2_forward` and the
    grouped-query loop of :mod:`attnio.algorithms.heads` (one definition of the I/O)."""
    mem.load("K_j", "K", (keys, slice(None)))
    mem.load("V_j", "V", (keys, slice(None)))
    _score_tile(mem, "S_ij", r, c, d, tau, keep)
    mem.allocate("m_new", (r,))
    mem.compute("m_new", ("m_i", "S_ij"), lambda m, s: np.maximum(m, s.max(axis=1)),
                flops=r * c + r)
    mem.compute("S_ij", ("S_ij", "m_new"), lambda s, mn: np.exp(s - _shift(mn)[:, None]),
                flops=2 * r * c)
    mem.allocate("alpha", (r,))
    mem.compute("alpha", ("m_i", "m_new"), lambda m, mn: np.exp(m - _shift(mn)), flops=2 * r)
    mem.compute("l_i", ("l_i", "alpha", "S_ij"), lambda ell, a, p: a * ell + p.sum(axis=1),
                flops=2 * r + r * c)
    mem.compute("O_i", ("O_i", "alpha", "S_ij", "V_j"),
                lambda o, a, p, v: a[:, None] * o + p @ v, flops=r * d + 2 * r * c * d)
    mem.compute("m_i", ("m_new",), lambda mn: mn, flops=0)
    mem.free("K_j", "V_j", "S_ij", "m_new", "alpha")


def flash2_forward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                   mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-2 Algorithm 1: slow Q, K, V → slow O and L = m + log ℓ (the logsumexp).

    ``mask``/``tau`` as in :func:`flash1_forward`; fully masked rows get O = 0, L = −∞.
    Q may have more rows than K and V (n_q × d against n × d: the stacked query heads of a
    K/V group, :mod:`attnio.algorithms.heads`); ``mask`` is then n_q × n.
    """
    nq, d = mem.slow["Q"].shape
    n = mem.slow["K"].shape[0]
    mem.new_slow("O", (nq, d))
    mem.new_slow("L", (nq,))
    for i0, r in blocks(nq, block_rows):
        rows = slice(i0, i0 + r)
        mem.load("Q_i", "Q", (rows, slice(None)))
        mem.allocate("O_i", (r, d))
        mem.allocate("l_i", (r,))
        mem.allocate("m_i", (r,), -np.inf)
        for j0, c in blocks(n, block_cols):
            keys = slice(j0, j0 + c)
            skip, keep = _tile_mask(mask, rows, keys)
            if skip:
                continue
            flash2_forward_step(mem, keys, r, c, d, tau=tau, keep=keep)
        mem.compute("O_i", ("O_i", "l_i"), _safe_divide, flops=r * d)
        mem.allocate("L_i", (r,))
        mem.compute("L_i", ("m_i", "l_i"),
                    lambda m, ell: np.where(ell > 0, m + np.log(np.where(ell > 0, ell, 1.0)), -np.inf),
                    flops=2 * r)
        mem.store("O_i", "O", (rows, slice(None)))
        mem.store("L_i", "L", rows)
        mem.free("Q_i", "O_i", "l_i", "m_i", "L_i")


def flash2_backward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                    mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-2 Algorithm 2: slow Q, K, V, O, dO, L → dQ, dK, dV (and D).

    ``mask``/``tau`` as in :func:`flash1_forward` (tiles with no kept entry skipped). Q, O,
    dO may have n_q ≥ n rows (a K/V group's stacked query heads): each K_j, V_j tile then
    stays resident while all n_q query rows stream, and dK_j, dV_j sum the group's gradient.
    """
    nq, d = mem.slow["Q"].shape
    n = mem.slow["K"].shape[0]
    mem.fill_slow("dQ", (nq, d), 0.0)
    mem.new_slow("dK", (n, d))
    mem.new_slow("dV", (n, d))
    mem.new_slow("D", (nq,))
    for i0, r in blocks(nq, block_rows):  # D = rowsum(dO ∘ O), written once
        rows = slice(i0, i0 + r)
        mem.load("dO_i", "dO", (rows, slice(None)))
        mem.load("O_i", "O", (rows, slice(None)))
        mem.allocate("D_i", (r,))
        mem.compute("D_i", ("dO_i", "O_i"), lambda do, o: (do * o).sum(axis=1), flops=2 * r * d)
        mem.store("D_i", "D", rows)
        mem.free("dO_i", "O_i", "D_i")
    for rows, r, c, keep in _key_outer_tiles(mem, n, nq, d, block_rows, block_cols, mask):
        for tile, array in (("Q_i", "Q"), ("dO_i", "dO"), ("dQ_i", "dQ")):
            mem.load(tile, array, (rows, slice(None)))
        mem.load("L_i", "L", rows)
        mem.load("D_i", "D", rows)
        _score_tile(mem, "P_ij", r, c, d, tau, keep)
        mem.compute("P_ij", ("P_ij", "L_i"), lambda s, L: np.exp(s - _shift(L)[:, None]),
                    flops=2 * r * c)
        _dv_and_dp(mem, r, c, d)
        _ds_dq_dk(mem, rows, r, c, d, tau)
        mem.free("Q_i", "dO_i", "dQ_i", "L_i", "D_i", "P_ij", "dS_ij")
