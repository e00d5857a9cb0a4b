"""Reference passes: central finite differences (rel. err ≤ 1e-6), masks, Alman–Song, torch."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from attnio.algorithms.reference import (
    alman_song_gradients,
    alman_song_loss,
    attention_backward,
    attention_forward,
    block_sparse_mask,
    causal_mask,
    relative_error,
    sliding_window_mask,
)
from attnio.exceptions import InvalidInputError

FD_STEP = 1e-6
FD_TOLERANCE = 1e-6  # relative error of the analytic gradient against central differences


def _central_difference(f: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += FD_STEP
        down[idx] -= FD_STEP
        grad[idx] = (f(up) - f(down)) / (2 * FD_STEP)
    return grad


def _masks(n: int, rng: np.random.Generator) -> dict[str, np.ndarray | None]:
    arbitrary = rng.random((n, n)) < 0.6
    arbitrary[2] = False  # a fully masked row
    return {
        "none": None,
        "causal": causal_mask(n),
        "sliding": sliding_window_mask(n, 2),
        "block-sparse": block_sparse_mask(n, 2, np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], bool)),
        "arbitrary+empty-row": arbitrary,
    }


@pytest.mark.parametrize("mask_name", ["none", "causal", "sliding", "block-sparse",
                                       "arbitrary+empty-row"])
@pytest.mark.parametrize("tau", [1.0, 0.37])
def test_backward_matches_central_differences(mask_name: str, tau: float) -> None:
    rng = np.random.default_rng(11)
    n, d = 6, 3
    Q, K, V, G = (rng.standard_normal((n, d)) for _ in range(4))
    mask = _masks(n, rng)[mask_name]

    def phi(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> float:
        return float((attention_forward(q, k, v, tau=tau, mask=mask).O * G).sum())

    dQ, dK, dV = attention_backward(Q, K, V, G, tau=tau, mask=mask)
    assert relative_error(dQ, _central_difference(lambda q: phi(q, K, V), Q)) <= FD_TOLERANCE
    assert relative_error(dK, _central_difference(lambda k: phi(Q, k, V), K)) <= FD_TOLERANCE
    assert relative_error(dV, _central_difference(lambda v: phi(Q, K, v), V)) <= FD_TOLERANCE


def test_fully_masked_row_has_zero_output_and_zero_gradient() -> None:
    rng = np.random.default_rng(1)
    Q, K, V, G = (rng.standard_normal((4, 2)) for _ in range(4))
    mask = np.ones((4, 4), dtype=bool)
    mask[1] = False
    fwd = attention_forward(Q, K, V, mask=mask)
    dQ, _, _ = attention_backward(Q, K, V, G, mask=mask)
    assert np.all(fwd.O[1] == 0) and np.all(fwd.P[1] == 0) and fwd.logsumexp[1] == -np.inf
    assert np.all(dQ[1] == 0) and np.all(np.isfinite(fwd.O))


def test_softmax_is_stable_for_huge_scores() -> None:
    Q = np.array([[1000.0], [-1000.0]])
    fwd = attention_forward(Q, Q, np.eye(2))
    assert np.all(np.isfinite(fwd.P)) and np.allclose(fwd.P.sum(axis=1), 1.0)


def test_false_twin_a_wrong_gradient_fails_the_difference_check() -> None:
    rng = np.random.default_rng(5)
    Q, K, V, G = (rng.standard_normal((5, 3)) for _ in range(4))
    dQ, _, _ = attention_backward(Q, K, V, G)
    numeric = _central_difference(
        lambda q: float((attention_forward(q, K, V).O * G).sum()), Q)
    planted = dQ * (1 + 1e-5)  # a gradient off by a relative 1e-5
    assert relative_error(planted, numeric) > FD_TOLERANCE


def _alman_song_inputs(seed: int, n: int = 5, d: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, d)) * 0.5 for _ in range(4)] + [
        rng.standard_normal((d, d)) * 0.5 for _ in range(2)]


def test_alman_song_gradients_match_central_differences() -> None:
    A1, A2, A3, E, X, Y = _alman_song_inputs(7)
    dX, dY = alman_song_gradients(A1, A2, A3, E, X, Y)
    numeric_dX = _central_difference(lambda x: alman_song_loss(A1, A2, A3, E, x, Y), X)
    numeric_dY = _central_difference(lambda y: alman_song_loss(A1, A2, A3, E, X, y), Y)
    assert relative_error(dX, numeric_dX) <= FD_TOLERANCE
    assert relative_error(dY, numeric_dY) <= FD_TOLERANCE


def test_alman_song_dictionary_to_flash_notation() -> None:
    """dL/dX = A1ᵀ·dQ with Q = A1X, K = A2, V = A3Y, dO = c (notes/reference/paper.md §2.2, RECONSTRUCTED)."""
    A1, A2, A3, E, X, Y = _alman_song_inputs(8)
    fwd = attention_forward(A1 @ X, A2, A3 @ Y)
    dQ, _, _ = attention_backward(A1 @ X, A2, A3 @ Y, fwd.O - E)
    dX, _ = alman_song_gradients(A1, A2, A3, E, X, Y)
    assert relative_error(A1.T @ dQ, dX) <= 1e-12


def test_shapes_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="mask shape"):
        attention_forward(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)),
                          mask=np.ones((3, 3), bool))


@pytest.mark.parametrize("mask_name", ["none", "causal", "arbitrary+empty-row"])
def test_against_torch_autograd(mask_name: str) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    n, d = 6, 3
    Q, K, V, G = (rng.standard_normal((n, d)) for _ in range(4))
    mask = _masks(n, rng)[mask_name]
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (Q, K, V))
    scores = tq @ tk.T
    if mask is not None:
        scores = scores.masked_fill(~torch.tensor(mask), float("-inf"))
    probs = torch.nan_to_num(torch.softmax(scores, dim=1), nan=0.0)  # empty rows → 0
    (probs @ tv * torch.tensor(G)).sum().backward()
    for ours, theirs in zip(attention_backward(Q, K, V, G, mask=mask), (tq, tk, tv)):
        assert relative_error(ours, theirs.grad.numpy()) <= 1e-10
