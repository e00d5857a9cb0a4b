r"""A numerically stable Algorithm 6: ``small-cache-stable`` (ours).

Saha–Ye's SquareTilingAttention (:mod:`attnio.algorithms.square_tiling`) stores
:math:`A = \exp(\tau QK^\top)` without the row maximum: at :math:`\max|\tau q_i\cdot k_j|`
above about 709 an entry overflows to ``inf`` and ``P = A/ℓ`` becomes ``inf/inf = NaN`` (at
:math:`\max|\tau qk| \approx 2{,}551` the small-cache runs return NaN while FlashAttention-2
is at 7e-10). This forward stores instead

.. math::

    A = \exp(\tau QK^\top - m\mathbf 1^\top),\qquad m_i = \max_j \tau q_i\cdot k_j,
    \qquad \ell = A\mathbf 1,

so every entry of A lies in [0, 1] and :math:`\ell_i \ge 1`. The row shift cancels in
:math:`P = \mathrm{diag}(\ell)^{-1}A`, so Saha–Ye's phase 2 (O = diag(ℓ)⁻¹AV) and the
reconstructed Algorithm 6 backward (:func:`attnio.algorithms.small_cache.small_cache_backward`,
which reads A and ℓ and forms P = A/ℓ) run unchanged on it: the backward of
``small-cache-stable`` is Algorithm 6's schedule, with Algorithm 6's exact count
(:func:`attnio.algorithms.counts.count_small_cache_backward`), fed the stable A.

**Forward** (:func:`stable_square_tiling_forward`), square tiles
:math:`B = \lfloor\sqrt{M/4}\rfloor` (admissible :math:`M \ge 4`), per row block i:

1. for each tile (i, j): accumulate :math:`T = QK^\top` over blocks of the head dimension
   (as Saha–Ye); take the tile's row maxima :math:`t_{ij} = \max_{j'\in j}\tau T`; write
   :math:`A_{ij} = \exp(\tau T - t_{ij})` and :math:`t_{ij}` (r words, to the array
   ``mt`` of n·T_n words); keep the running row maximum :math:`m_i \leftarrow \max(m_i, t_{ij})` on chip;
2. a rescaling sweep over the row block (m_i final, still on chip): read :math:`A_{ij}` and
   :math:`t_{ij}`, set :math:`A_{ij} \leftarrow A_{ij}\exp(t_{ij} - m_i)`,
   :math:`\ell_i \mathrel{+}= \mathrm{rowsum}(A_{ij})`, write :math:`A_{ij}` back; write
   :math:`\ell_i`. (m never leaves fast memory.)
3. Saha–Ye phase 2 unchanged (:func:`attnio.algorithms.square_tiling.attention_phase`).

I/O, exactly (:math:`T_x = \lceil x/B\rceil`; closed form
:func:`attnio.algorithms.counts.count_small_cache_stable_forward`, equal to the executed
counts):

.. math::

    \text{reads} = 3T_n nd + T_d n^2 + n^2 + nT_n + n,\qquad
    \text{writes} = 2n^2 + nT_n + n + nd,

i.e. Saha–Ye's count plus :math:`2n^2 + 2nT_n` (the sweep reads and rewrites A once and
round-trips the tile maxima): :math:`\approx 8n^2d/\sqrt M + 3n^2 + 4n^2/\sqrt M + nd + 2n`,
still :math:`\Theta(n^2d/\sqrt M + n^2)` and within a constant of the leading term when
:math:`M \le d^2`, the regime Algorithm 6 is for. FLOPs :math:`4n^2d + 5n^2 + 2nT_n + nd`
(Saha–Ye: :math:`4n^2d + 2n^2 + nd`). Peak :math:`b_n + b_n^2 + 2b_nb_d \le 3B^2 + B \le M`
(Saha–Ye's; the sweep holds :math:`b_n^2 + 3b_n` of them).

With ``mask`` (True = keep) the tiles with no kept entry are skipped in all three steps;
a row of a tile with no kept entry gets :math:`t = -\infty` and zeros in A; a fully masked row
gets ℓ = 0 and O = 0 (the reference's convention).

Examples
--------
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> mem = TwoLevelMemory.with_random_inputs(20, (5, 3), seed=2, scale=30.0)
>>> stable_square_tiling_forward(mem, block=2)
>>> S = mem.slow["Q"] @ mem.slow["K"].T
>>> float(np.abs(S).max()) > 2000         # exp(S) overflows: Saha–Ye's A would hold inf
True
>>> P = np.exp(S - S.max(axis=1, keepdims=True)); P /= P.sum(axis=1, keepdims=True)
>>> bool(np.allclose(mem.slow["O"], P @ mem.slow["V"], rtol=0, atol=1e-12))
True
>>> bool(np.isfinite(mem.slow["A"]).all() and mem.slow["A"].max() <= 1.0)
True
"""

from __future__ import annotations

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    accumulate_row_products,
    blocks,
    ceil_div,
    kept_column_blocks,
)
from attnio.algorithms.square_tiling import attention_phase

__all__ = ["stable_exp_scores_phase", "stable_square_tiling_forward", "stable_scores",
           "masked_row_max", "shifted_exp"]


def stable_scores(S: np.ndarray, mask: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Untiled ``(A, ℓ)`` of the stable forward: ``A = exp(S − rowmax S)`` (0 where masked,
    rows with no kept entry all 0) and ``ℓ = A·1``, for S = τQKᵀ.

    >>> A, l = stable_scores(np.array([[3000.0, 2999.0], [-5.0, 0.0]]))
    >>> A.round(4).tolist(), l.round(4).tolist()
    ([[1.0, 0.3679], [0.0067, 1.0]], [1.3679, 1.0067])
    """
    keep = np.ones(S.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    shifted = np.where(keep, S, -np.inf)
    m = shifted.max(axis=1, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0.0)
    A = np.exp(shifted - m[:, None])
    return A, A.sum(axis=1)


def masked_row_max(T: np.ndarray, keep: np.ndarray | None, tau: float) -> np.ndarray:
    """Row maxima of τT over the kept entries (−inf for a row with none): the tile maxima of
    the stable storage of this module and of :mod:`attnio.algorithms.small_cache_fused`.

    >>> keep = np.array([[True, False], [False, False]])
    >>> masked_row_max(np.array([[1.0, 3.0], [2.0, 0.0]]), keep, 2.0).tolist()
    [2.0, -inf]
    """
    kept = tau * T if keep is None else np.where(keep, tau * T, -np.inf)
    return kept.max(axis=1, initial=-np.inf)


def shifted_exp(T: np.ndarray, t: np.ndarray, keep: np.ndarray | None,
                tau: float) -> np.ndarray:
    """exp(τT − t) row-wise, 0 at masked entries and on rows with t = −inf.

    >>> T, t = np.array([[0.0, 1.0], [5.0, 5.0]]), np.array([1.0, -np.inf])
    >>> shifted_exp(T, t, None, 1.0).round(4).tolist()
    [[0.3679, 1.0], [0.0, 0.0]]
    """
    finite = np.isfinite(t)
    arg = tau * T - np.where(finite, t, 0.0)[:, None]
    if keep is not None:
        arg = np.where(keep, arg, -np.inf)
    return np.where(finite[:, None], np.exp(arg), 0.0)


def _rescale_factor(t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """exp(t − m) with 0 where t = −inf (no kept entry in the tile's row)."""
    finite = np.isfinite(t)
    return np.where(finite, np.exp(np.where(finite, t - np.where(finite, m, 0.0), -np.inf)), 0.0)


def stable_exp_scores_phase(mem: TwoLevelMemory, *, block: int, mask: np.ndarray | None = None,
                            tau: float = 1.0) -> None:
    """Steps 1–2: slow Q, K → slow ``A = exp(τQKᵀ − m)``, ``ℓ = A·1`` (and the tile maxima
    ``mt``, n·T_n words); see the module docstring for the I/O."""
    n = mem.slow["Q"].shape[0]
    mem.new_slow("A", (n, n))
    mem.new_slow("l", (n,))
    mem.new_slow("mt", (n * ceil_div(n, block),))  # t_ij at [J·n + i0, J·n + i0 + r)
    for i0, r in blocks(n, block):
        rows = slice(i0, i0 + r)
        kept = []
        mem.allocate("m_i", (r,), fill=-np.inf)
        for J, cols, c, keep in kept_column_blocks(mask, rows, n, block):
            kept.append((J, cols))
            mem.allocate("T_ij", (r, c))
            accumulate_row_products(mem, "T_ij", "Q", "K", rows, cols, block=block,
                                    tiles=("Q_il", "K_jl"))
            mem.allocate("t_ij", (r,))
            mem.compute("t_ij", ("T_ij",), lambda T, k=keep: masked_row_max(T, k, tau), flops=r * c)
            mem.compute("T_ij", ("T_ij", "t_ij"),
                        lambda T, t, k=keep: shifted_exp(T, t, k, tau), flops=2 * r * c)
            mem.store("T_ij", "A", (rows, cols))
            mem.store("t_ij", "mt", slice(J * n + i0, J * n + i0 + r))
            mem.compute("m_i", ("m_i", "t_ij"), np.maximum, flops=r)
            mem.free("T_ij", "t_ij")
        mem.allocate("l_i", (r,))
        for J, cols in kept:  # the rescaling sweep: m_i is final
            mem.load("A_ij", "A", (rows, cols))
            mem.load("t_ij", "mt", slice(J * n + i0, J * n + i0 + r))
            mem.compute("t_ij", ("t_ij", "m_i"), _rescale_factor, flops=r)
            mem.compute("A_ij", ("A_ij", "t_ij"), lambda a, f: a * f[:, None],
                        flops=r * (cols.stop - cols.start))
            mem.compute("l_i", ("l_i", "A_ij"), lambda lv, a: lv + a.sum(axis=1),
                        flops=r * (cols.stop - cols.start))
            mem.store("A_ij", "A", (rows, cols))
            mem.free("A_ij", "t_ij")
        mem.store("l_i", "l", rows)
        mem.free("l_i", "m_i")


def stable_square_tiling_forward(mem: TwoLevelMemory, *, block: int,
                                 mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """The stable forward: slow Q, K, V → slow A = exp(τQKᵀ − m), ℓ = A·1, O = diag(ℓ)⁻¹AV."""
    stable_exp_scores_phase(mem, block=block, mask=mask, tau=tau)
    attention_phase(mem, block=block, mask=mask)
