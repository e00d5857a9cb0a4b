"""Scalar DAGs from einsum chains (attnio.graphs.einsum) against the builtin DAGs."""

from __future__ import annotations

import networkx as nx
import pytest

from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, evaluate, matmul_dag
from attnio.graphs.einsum import (
    ATTENTION_BACKWARD,
    ATTENTION_BACKWARD_DX,
    ATTENTION_FORWARD,
    einsum_dag,
    parse_sizes_spec,
)
from attnio.graphs.engines import solve


@pytest.mark.parametrize("shape", [(2, 2, 2), (1, 3, 2), (2, 1, 2), (3, 4, 1)])
def test_a_numpy_einsum_is_the_matmul_dag(shape) -> None:
    m, k, p = shape
    G = einsum_dag("ij,jk->ik", {"i": m, "j": k, "k": p})
    assert nx.is_isomorphic(G, matmul_dag(m, k, p))
    assert len(G.graph["outputs"]) == m * p


@pytest.mark.parametrize("n, d", [(2, 1), (2, 2), (3, 1)])
def test_attention_forward_written_as_einsum_is_the_builtin(n, d) -> None:
    G = einsum_dag(ATTENTION_FORWARD, {"i": n, "j": n, "a": d})
    assert nx.is_isomorphic(G, attention_forward_dag(n, d))


@pytest.mark.parametrize("n, d", [(2, 1), (2, 2)])
def test_attention_backward_written_as_einsum_is_the_builtin(n, d) -> None:
    assert nx.is_isomorphic(einsum_dag(ATTENTION_BACKWARD, {"i": n, "j": n, "a": d}),
                            attention_backward_dag(n, d))
    assert nx.is_isomorphic(einsum_dag(ATTENTION_BACKWARD_DX,
                                       {"i": n, "j": n, "a": d, "c": d}),
                            attention_backward_dag(n, d, "dX"))


def test_the_isomorphism_test_can_fail() -> None:
    """A chain summation is not the builtin tree at k = 4 (the test is not vacuous)."""
    assert not nx.is_isomorphic(einsum_dag("ij,jk->ik", {"i": 1, "j": 4, "k": 1}),
                                matmul_dag(1, 4, 1, "chain"))


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_einsum_forward_n2_d1_has_the_builtins_optimum_at_every_M() -> None:
    E = einsum_dag(ATTENTION_FORWARD, {"i": 2, "j": 2, "a": 1})
    B = attention_forward_dag(2, 1)
    for M in range(3, 9):
        a, b = solve(E, M, time_limit=120), solve(B, M, time_limit=120)
        assert a.verdict == b.verdict == "optimal" and a.io == b.io, M


def test_the_dag_computes_what_it_says() -> None:
    """Evaluated with the dags module's evaluator: matmul entries are the products' sums."""
    G = einsum_dag("ij,jk->ik", {"i": 1, "j": 2, "k": 1})
    for v in G:
        G.nodes[v].setdefault("op", "input")
    values = evaluate(G, {"A[0,0]": 2.0, "A[0,1]": 3.0, "B[0,0]": 5.0, "B[1,0]": 7.0})
    assert values["OUT[0,0]"] == 2 * 5 + 3 * 7


@pytest.mark.parametrize("program, sizes, why", [
    ("C[ik] = A[ij] B[jq]", {"i": 2, "j": 2, "k": 2}, "letter 'k' of the left side"),
    ("C[ik] = A[ij] B[jk]", {"i": 2, "j": 2}, "no size for index letter 'k'"),
    ("C[ik] = A[ij] B[jk]", {"i": 2, "j": 2, "k": 2, "z": 1}, "'z', which no statement uses"),
    ("C[i] = A[ii]", {"i": 2}, "repeats an index letter"),
    ("C[ij] = exp(A[i])", {"i": 2, "j": 2}, "keeps the letters"),
    ("C[i] = A[ij] / B[j]", {"i": 2, "j": 2}, "sums nothing"),
    ("C[i] = A[i]; C[i] = A[i]", {"i": 2}, "defined twice"),
    ("C[ij] = A[ij]; D[i] = A[ijk]", {"i": 2, "j": 2, "k": 2}, "two shapes"),
    ("C[ij] = softmax_k(A[ij])", {"i": 2, "j": 2}, "softmax_X"),
    ("C[i] = A[i] +", {"i": 2}, "is not"),
    ("ij,jk->i!k", {}, "must look like ij,jk->ik"),
    ("C[ijk] = A[ij] B[jk]", {"i": 100, "j": 100, "k": 100}, "MAX_EINSUM_VERTICES"),
])
def test_bad_programs_are_one_line_errors(program, sizes, why) -> None:
    with pytest.raises(InvalidInputError, match=why):
        einsum_dag(program, sizes)


def test_sizes_spec() -> None:
    assert parse_sizes_spec("i=2,j=3") == {"i": 2, "j": 3}
    for bad in ("i=0", "i=2,i=3", "ij=2", "i"):
        with pytest.raises(InvalidInputError):
            parse_sizes_spec(bad)


def test_the_command_line(capsys) -> None:
    assert main(["pebble", "--einsum", "ij,jk->ik", "--sizes", "i=2,j=2,k=2", "--M", "4"]) == 0
    assert "optimal I/O = 17" in capsys.readouterr().out
    assert main(["pebble", "--einsum", "ij,jk->ik", "--M", "4"]) == 2
    assert "--einsum and --sizes go together" in capsys.readouterr().err
