"""Tests of attnio.graphs.dags: sizes in closed form, numerical meaning, attributes."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import (
    attention_backward_dag,
    attention_forward_dag,
    evaluate,
    expected_size,
    level1_vertices,
    matmul_dag,
    random_dag,
)

MASKS = {
    2: [None, [[1, 0], [1, 1]], [[0, 1], [1, 0]]],
    3: [None, [[1, 0, 0], [1, 1, 0], [1, 1, 1]], [[1, 0, 1], [0, 1, 0], [0, 0, 1]]],
}


@pytest.mark.parametrize("m,k,p", list(itertools.product([1, 2, 3], [1, 2, 3, 4], [1, 2])))
@pytest.mark.parametrize("summation", ["tree", "chain", "fma"])
def test_matmul_size_closed_form(m: int, k: int, p: int, summation: str) -> None:
    G = matmul_dag(m, k, p, summation)
    assert (G.number_of_nodes(), G.number_of_edges()) == expected_size(
        "matmul", m=m, k=k, p=p, summation=summation)
    assert nx.is_directed_acyclic_graph(G)
    assert G.graph["inputs"] == sorted(v for v in G if G.in_degree(v) == 0)
    assert sorted(G.graph["outputs"]) == sorted(v for v in G if G.out_degree(v) == 0)
    # Saha–Ye level-1 vertices: m·p trees, each k products + (k − 1) sums (fma: k partials)
    per_tree = k if summation == "fma" else 2 * k - 1
    assert len(level1_vertices(G, "AB")) == m * p * per_tree


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_attention_sizes_closed_form(n: int, d: int) -> None:
    for mask in MASKS.get(n, [None]):
        G = attention_forward_dag(n, d, mask)
        assert (G.number_of_nodes(), G.number_of_edges()) == expected_size(
            "attention-forward", n=n, d=d, mask=mask)
        for gradient in ("qkv", "dX"):
            H = attention_backward_dag(n, d, gradient, mask)
            assert (H.number_of_nodes(), H.number_of_edges()) == expected_size(
                "attention-backward", n=n, d=d, gradient=gradient, mask=mask)
            assert nx.is_directed_acyclic_graph(H)


def test_qk_level1_vertices_are_tagged() -> None:
    G = attention_forward_dag(3, 2)
    qk = level1_vertices(G, "QK")
    assert len(qk) == 9 * (2 + 1)  # n² trees of d products and d − 1 sums
    assert sum(G.nodes[v]["role"] == "product" for v in qk) == 9 * 2
    assert {G.nodes[v]["op"] for v in qk} == {"mul", "add"}
    assert len(level1_vertices(attention_backward_dag(2, 2), "QK")) == 4 * 3


def _values(G: nx.DiGraph, rng: np.random.Generator) -> tuple[dict[str, float], dict]:
    mats: dict[str, np.ndarray] = {}
    values = {}
    for v in G.graph["inputs"]:
        name, index = G.nodes[v]["matrix"], G.nodes[v]["index"]
        mats.setdefault(name, {})[index] = x = float(rng.normal(scale=0.5))
        values[v] = x
    return values, mats


def _dense(entries: dict, shape: tuple[int, int]) -> np.ndarray:
    out = np.zeros(shape)
    for (i, j), x in entries.items():
        out[i, j] = x
    return out


def test_matmul_evaluates_to_the_product() -> None:
    rng = np.random.default_rng(0)
    for summation in ("tree", "chain", "fma"):
        G = matmul_dag(2, 3, 2, summation)
        values, mats = _values(G, rng)
        A, B = _dense(mats["A"], (2, 3)), _dense(mats["B"], (3, 2))
        got = evaluate(G, values)
        for i, j in itertools.product(range(2), range(2)):
            assert got[f"C[{i},{j}]"] == pytest.approx((A @ B)[i, j], rel=1e-12)


def _attention(Q, K, V, keep):
    S = np.where(keep, Q @ K.T, -np.inf)
    E = np.exp(S)
    return (E / E.sum(axis=1, keepdims=True)) @ V


@pytest.mark.parametrize("mask", [None, [[1, 0, 0], [1, 1, 0], [0, 1, 1]]])
def test_attention_forward_evaluates_to_softmax_attention(mask) -> None:
    rng = np.random.default_rng(1)
    n, d = 3, 2
    G = attention_forward_dag(n, d, mask)
    keep = np.ones((n, n), bool) if mask is None else np.array(mask, bool)
    Q, K, V = (rng.normal(size=(n, d)) for _ in range(3))
    values = {f"{name}[{i},{a}]": M[i, a] for name, M in (("Q", Q), ("K", K), ("V", V))
              for i in range(n) for a in range(d) if f"{name}[{i},{a}]" in G}
    got = evaluate(G, values)
    expected = _attention(Q, K, V, keep)
    for i, a in itertools.product(range(n), range(d)):
        assert got[f"O[{i},{a}]"] == pytest.approx(expected[i, a], rel=1e-10)


def test_attention_backward_qkv_matches_finite_differences() -> None:
    # L = <dO, attention(Q, K, V)>; dQ, dK, dV are its gradients (tolerance 1e-6, h = 1e-6)
    rng = np.random.default_rng(2)
    n, d = 2, 2
    mask = [[1, 0], [1, 1]]
    keep = np.array(mask, bool)
    Q, K, V, dO = (rng.normal(size=(n, d)) for _ in range(4))
    G = attention_backward_dag(n, d, "qkv", mask)
    values = {f"{name}[{i},{a}]": M[i, a]
              for name, M in (("Q", Q), ("K", K), ("V", V), ("dO", dO))
              for i in range(n) for a in range(d)}
    got = evaluate(G, {k: v for k, v in values.items() if k in G})

    def loss(Q, K, V):
        return float(np.sum(dO * _attention(Q, K, V, keep)))

    h = 1e-6
    for name, idx in (("Q", 0), ("K", 1), ("V", 2)):
        for i, a in itertools.product(range(n), range(d)):
            args = [Q.copy(), K.copy(), V.copy()]
            args[idx][i, a] += h
            plus = loss(*args)
            args[idx][i, a] -= 2 * h
            numeric = (plus - loss(*args)) / (2 * h)
            assert got[f"d{name}[{i},{a}]"] == pytest.approx(numeric, abs=1e-6)


def test_attention_backward_dX_matches_finite_differences() -> None:
    # Alman–Song: L(X) = ½‖f(X)·A3·Y − E‖², f = softmax(A1·X·A2ᵀ); output g = dL/dX
    rng = np.random.default_rng(3)
    n, d = 2, 2
    A1, A2, A3, E = (rng.normal(scale=0.5, size=(n, d)) for _ in range(4))
    X, Y = (rng.normal(scale=0.5, size=(d, d)) for _ in range(2))
    G = attention_backward_dag(n, d, "dX")
    values = {f"{name}[{i},{a}]": M[i, a]
              for name, M in (("A1", A1), ("A2", A2), ("A3", A3), ("E", E), ("X", X), ("Y", Y))
              for i in range(M.shape[0]) for a in range(d)}
    got = evaluate(G, values)

    def loss(X):
        S = A1 @ X @ A2.T
        f = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
        return 0.5 * float(np.sum((f @ A3 @ Y - E) ** 2))

    h = 1e-6
    for a, c in itertools.product(range(d), range(d)):
        Xp, Xm = X.copy(), X.copy()
        Xp[a, c] += h
        Xm[a, c] -= h
        assert got[f"g[{a},{c}]"] == pytest.approx((loss(Xp) - loss(Xm)) / (2 * h), abs=1e-6)


def test_single_entry_row_divides_by_itself() -> None:
    G = attention_backward_dag(2, 1, mask=[[1, 0], [1, 1]])
    assert G.nodes["P[0,0]"]["args"] == ("Ex[0,0]", "Ex[0,0]")
    assert G.in_degree("P[0,0]") == 1


@pytest.mark.parametrize("call", [
    lambda: matmul_dag(0, 1, 1),
    lambda: matmul_dag(1, 1, 1, "strassen"),
    lambda: attention_forward_dag(2, 1, mask=[[1, 1]]),
    lambda: attention_forward_dag(2, 1, mask=[[0, 0], [1, 1]]),
    lambda: attention_backward_dag(2, 1, gradient="dY"),
    lambda: expected_size("fft", n=2, d=1),
])
def test_bad_parameters_raise(call) -> None:
    with pytest.raises(InvalidInputError):
        call()


def test_random_dag_is_reproducible_and_acyclic() -> None:
    G, H = random_dag(7, seed=5), random_dag(7, seed=5)
    assert sorted(G.edges) == sorted(H.edges)
    assert nx.is_directed_acyclic_graph(G)
    assert max(d for _, d in random_dag(9, 0.9, seed=1, max_in_degree=2).in_degree()) <= 2
