r"""Untiled NumPy (float64) reference passes: attention forward/backward and Alman–Song's gradient.

These are the numerical ground truth every tiled algorithm is compared with (relative error
≤ 1e-10), themselves checked by central finite differences and, when installed, torch autograd.

Standard form (FlashAttention, arXiv 2205.14135, App. B.2):

.. math::

    S = \tau QK^\top \ (\text{masked entries} = -\infty),\quad
    P = \mathrm{softmax}_{\text{row}}(S),\quad O = PV,

    dV = P^\top dO,\quad dP = dO\,V^\top,\quad D_i = \textstyle\sum_j dO_{ij}O_{ij},\quad
    dS = P\circ(dP - D),\quad dQ = \tau\,dS\,K,\quad dK = \tau\,dS^\top Q.

The softmax subtracts the row maximum (numerically stable). A **fully masked row** attends to
nothing: its row of ``P`` and of ``O`` is zero and its gradients are zero (the convention of
FlashAttention-2's kernels; its logsumexp is ``-inf``).

Alman–Song form (AS24b, arXiv 2402.04497, Defs. 3.2–3.7, Lemma C.7; the paper's §2.2 per
paper.md — that the paper uses exactly this form is an inference):

.. math::

    f = D^{-1}\exp(A_1 X A_2^\top),\ h = A_3 Y,\ c = f h - E,\ q = c\,h^\top,\
    p = f\circ q - \mathrm{diag}(r) f,\ r_j = \langle f_j, q_j\rangle,

    L(X, Y) = \tfrac12\|f h - E\|_F^2,\quad
    \frac{\partial L}{\partial X} = A_1^\top p\, A_2,\quad
    \frac{\partial L}{\partial Y} = A_3^\top f^\top c.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> Q, K, V = (rng.standard_normal((4, 3)) for _ in range(3))
>>> fwd = attention_forward(Q, K, V)
>>> bool(np.allclose(fwd.P.sum(axis=1), 1.0))
True
>>> dQ, dK, dV = attention_backward(Q, K, V, np.ones((4, 3)))
>>> bool(np.allclose(dV.sum(axis=0), 4.0))   # columns of P^T sum to the row count
True
>>> fwd = attention_forward(Q, K, V, mask=np.zeros((4, 4), dtype=bool))
>>> float(np.abs(fwd.O).max()), float(fwd.logsumexp[0])
(0.0, -inf)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from attnio.exceptions import InvalidInputError

__all__ = [
    "ForwardResult",
    "attention_forward",
    "attention_backward",
    "causal_mask",
    "sliding_window_mask",
    "block_sparse_mask",
    "alman_song_forward",
    "alman_song_loss",
    "alman_song_gradients",
    "relative_error",
    "forward_matches",
]


@dataclass(frozen=True)
class ForwardResult:
    """Output ``O`` (n×d), probabilities ``P`` (n×n), row statistics of the softmax.

    ``row_max`` = m, ``row_sum`` = ℓ (of exp(S − m)), ``logsumexp`` = m + log ℓ; all −inf / 0
    on fully masked rows.
    """

    O: np.ndarray  # noqa: E741 - the output O of the papers (a public field)
    P: np.ndarray
    row_max: np.ndarray
    row_sum: np.ndarray
    logsumexp: np.ndarray


def _check_qkv(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None) -> None:
    if Q.ndim != 2 or K.shape != Q.shape or V.shape[0] != K.shape[0]:
        raise InvalidInputError(
            f"Q {Q.shape}, K {K.shape}, V {V.shape} must be n×d, n×d, n×d_v matrices"
        )
    if mask is not None and mask.shape != (Q.shape[0], K.shape[0]):
        raise InvalidInputError(f"mask shape {mask.shape} must be {(Q.shape[0], K.shape[0])}")


def attention_forward(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, *, tau: float = 1.0, mask: np.ndarray | None = None
) -> ForwardResult:
    """O = softmax(τ·QKᵀ)·V with a row-max-stable softmax; ``mask[i, j]`` True = keep.

    Raises
    ------
    InvalidInputError
        If the shapes disagree.
    """
    _check_qkv(Q, K, V, mask)
    S = tau * (Q @ K.T)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    row_max = S.max(axis=1)
    live = np.isfinite(row_max)
    shifted = np.exp(S - np.where(live, row_max, 0.0)[:, None])  # exp(-inf) = 0 when masked
    row_sum = shifted.sum(axis=1)
    P = np.zeros_like(S)
    P[live] = shifted[live] / row_sum[live, None]
    logsumexp = np.full(row_max.shape, -np.inf)
    logsumexp[live] = row_max[live] + np.log(row_sum[live])
    return ForwardResult(O=P @ V, P=P, row_max=row_max, row_sum=row_sum, logsumexp=logsumexp)


def attention_backward(
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    dO: np.ndarray,
    *,
    tau: float = 1.0,
    mask: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dQ, dK, dV) of the forward pass above, given the output gradient dO."""
    fwd = attention_forward(Q, K, V, tau=tau, mask=mask)
    P = fwd.P
    dV = P.T @ dO
    dP = dO @ V.T
    D = (dO * fwd.O).sum(axis=1)  # = rowsum(P ∘ dP)
    dS = P * (dP - D[:, None])
    return tau * dS @ K, tau * dS.T @ Q, dV


def causal_mask(n: int) -> np.ndarray:
    """Keep j ≤ i.

    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    return np.tril(np.ones((n, n), dtype=bool))


def sliding_window_mask(n: int, window: int) -> np.ndarray:
    """Keep i − window < j ≤ i (causal sliding window of ``window`` keys).

    >>> sliding_window_mask(3, 2).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [0, 1, 1]]
    """
    i, j = np.indices((n, n))
    return (j <= i) & (j > i - window)


def block_sparse_mask(n: int, block: int, pattern: np.ndarray) -> np.ndarray:
    """Expand a ⌈n/block⌉-square boolean ``pattern`` of kept blocks to an n×n mask.

    >>> block_sparse_mask(3, 2, np.array([[True, False], [False, True]])).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    """
    return np.kron(pattern, np.ones((block, block), dtype=bool))[:n, :n].astype(bool)


def alman_song_forward(
    A1: np.ndarray, A2: np.ndarray, A3: np.ndarray, X: np.ndarray, Y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(f, h): f = D⁻¹exp(A1·X·A2ᵀ) (row-stable), h = A3·Y."""
    S = A1 @ X @ A2.T
    U = np.exp(S - S.max(axis=1, keepdims=True))
    return U / U.sum(axis=1, keepdims=True), A3 @ Y


def alman_song_loss(
    A1: np.ndarray, A2: np.ndarray, A3: np.ndarray, E: np.ndarray, X: np.ndarray, Y: np.ndarray
) -> float:
    """L(X, Y) = ½‖D⁻¹exp(A1·X·A2ᵀ)·A3·Y − E‖²_F."""
    f, h = alman_song_forward(A1, A2, A3, X, Y)
    return 0.5 * float(((f @ h - E) ** 2).sum())


def alman_song_gradients(
    A1: np.ndarray, A2: np.ndarray, A3: np.ndarray, E: np.ndarray, X: np.ndarray, Y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(dL/dX, dL/dY) = (A1ᵀ·p·A2, A3ᵀ·fᵀ·c) (AS24b Lemma C.7)."""
    f, h = alman_song_forward(A1, A2, A3, X, Y)
    c = f @ h - E
    q = c @ h.T
    r = (f * q).sum(axis=1)
    p = f * q - r[:, None] * f
    return A1.T @ p @ A2, A3.T @ (f.T @ c)


def relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """max|actual − expected| / max(max|expected|, tiny): the figure reported for every run.

    >>> relative_error(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 2e-12])) < 1e-11
    True
    """
    scale = max(float(np.abs(expected).max(initial=0.0)), np.finfo(float).tiny)
    return float(np.abs(actual - expected).max(initial=0.0)) / scale


def forward_matches(slow: Mapping[str, np.ndarray], *, tau: float = 1.0,
                    atol: float = 1e-12) -> bool:
    """Whether ``slow["O"]`` equals :func:`attention_forward` of ``slow["Q"], slow["K"],
    slow["V"]`` entrywise within ``atol`` (``rtol = 0``): the check an executed forward pass
    (the slow memory of a :class:`~attnio.algorithms.memory.TwoLevelMemory`) must pass.

    >>> rng = np.random.default_rng(0)
    >>> slow = {name: rng.standard_normal((3, 2)) for name in "QKV"}
    >>> slow["O"] = attention_forward(slow["Q"], slow["K"], slow["V"]).O
    >>> forward_matches(slow), forward_matches(slow, tau=2.0)
    (True, False)
    """
    ref = attention_forward(slow["Q"], slow["K"], slow["V"], tau=tau)
    return bool(np.allclose(slow["O"], ref.O, rtol=0, atol=atol))
