"""Tests for attnio.graphs.partitions: definitions, exact P(G, S) vs brute force, twins."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest
import z3

from attnio.exceptions import BudgetExceededError, InvalidInputError
from attnio.graphs.partitions import (
    bounded_set_encoding,
    greedy_s_partition,
    hong_kung_bound,
    input_vertices,
    is_bounded_set,
    is_dominator,
    is_s_partition,
    min_dominator_size,
    min_partition_parts,
    minimum_dominator,
    minimum_set,
)
from attnio.results import Status

# ---------------------------------------------------------------------------------------------
# Independent brute-force reference (no flow, no z3)
# ---------------------------------------------------------------------------------------------


def random_dag(seed: int, n: int, p: float) -> nx.DiGraph:
    rng = random.Random(seed)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p)
    return G


def brute_min_dominator(G: nx.DiGraph, W: set) -> int:
    for size in range(len(G) + 1):
        for D in itertools.combinations(G, size):
            if is_dominator(G, W, D):
                return size
    raise AssertionError("V itself dominates everything")


def set_partitions(items: list):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in set_partitions(rest):
        for i in range(len(smaller)):
            yield smaller[:i] + [[first] + smaller[i]] + smaller[i + 1:]
        yield [[first]] + smaller


def brute_P(G: nx.DiGraph, S: int) -> int:
    best = len(G)
    for parts in set_partitions(list(G)):
        if len(parts) >= best:
            continue
        owner = {v: i for i, part in enumerate(parts) for v in part}
        Q = nx.DiGraph()
        Q.add_nodes_from(range(len(parts)))
        Q.add_edges_from((owner[u], owner[v]) for u, v in G.edges if owner[u] != owner[v])
        if not nx.is_directed_acyclic_graph(Q):
            continue
        if all(len(minimum_set(G, part)) <= S and brute_min_dominator(G, set(part)) <= S
               for part in parts):
            best = len(parts)
    return best


# ---------------------------------------------------------------------------------------------
# Definitions
# ---------------------------------------------------------------------------------------------

DIAMOND = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("c", "e"), ("d", "f"), ("e", "f")])


def test_input_in_W_must_be_in_D() -> None:
    assert not is_dominator(DIAMOND, {"a"}, {"c"})
    assert is_dominator(DIAMOND, {"a"}, {"a"})


def test_dominator_need_not_lie_in_W() -> None:
    assert is_dominator(DIAMOND, {"f"}, {"c"})
    assert minimum_dominator(DIAMOND, {"d", "e", "f"}) == frozenset({"c"})


def test_minimum_set() -> None:
    assert minimum_set(DIAMOND, {"c", "d", "e"}) == frozenset({"d", "e"})
    assert minimum_set(DIAMOND, set()) == frozenset()


@pytest.mark.parametrize("seed", range(30))
def test_flow_dominator_equals_brute_force(seed: int) -> None:
    G = random_dag(seed, 7, 0.35)
    rng = random.Random(1000 + seed)
    W = {v for v in G if rng.random() < 0.4}
    D = minimum_dominator(G, W)
    assert is_dominator(G, W, D)
    assert min_dominator_size(G, W) == brute_min_dominator(G, W)
    assert type(min_dominator_size(G, W)) is int


def test_inputs_must_be_the_sources() -> None:
    G = nx.DiGraph([(1, 2)])
    G.graph["inputs"] = [1, 2]
    with pytest.raises(InvalidInputError, match="must equal the sources"):
        input_vertices(G)
    with pytest.raises(InvalidInputError, match="acyclic"):
        input_vertices(nx.DiGraph([(1, 2), (2, 1)]))


def test_is_s_partition_reports_each_rule() -> None:
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    assert is_s_partition(G, [{"a"}, {"b", "c"}], 1).ok
    assert is_s_partition(G, [{"a"}, {"b"}], 1).reason.startswith("P1")
    assert is_s_partition(G, [{"a", "b"}, {"b", "c"}], 1).reason.startswith("P1")
    assert is_s_partition(G, [{"a", "c"}, {"b"}], 2).reason.startswith("P4")
    fan_in = nx.DiGraph([(1, 3), (2, 3)])
    assert is_s_partition(fan_in, [{1, 2, 3}], 1).reason.startswith("P2")
    fan_out = nx.DiGraph([(1, 2), (1, 3)])
    assert is_s_partition(fan_out, [{1, 2, 3}], 1).reason.startswith("P3")
    with pytest.raises(InvalidInputError, match="S=-1"):
        is_s_partition(G, [{"a", "b", "c"}], -1)


def test_empty_parts_allowed() -> None:
    G = nx.DiGraph([("a", "b")])
    assert is_s_partition(G, [set(), {"a", "b"}, set()], 1).ok


@pytest.mark.parametrize("seed", range(10))
def test_greedy_partition_is_valid(seed: int) -> None:
    G = random_dag(seed, 9, 0.3)
    for S in (1, 2, 3):
        assert is_s_partition(G, greedy_s_partition(G, S), S).ok


# ---------------------------------------------------------------------------------------------
# z3 encodings
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_bounded_set_encoding_agrees_with_checker(seed: int) -> None:
    G = random_dag(seed, 6, 0.4)
    rng = random.Random(seed)
    W = {v for v in G if rng.random() < 0.5}
    for k in (1, 2, 3):
        enc = bounded_set_encoding(G, k)
        s = z3.Solver()
        s.add(enc.constraints)
        s.add([enc.member[v] if v in W else z3.Not(enc.member[v]) for v in G])
        assert (s.check() == z3.sat) == is_bounded_set(G, W, k)


def test_encoding_witness_dominator_is_a_dominator() -> None:
    enc = bounded_set_encoding(DIAMOND, 1)
    s = z3.Solver()
    s.add(enc.constraints)
    s.add(enc.member["f"], enc.member["d"])
    assert s.check() == z3.sat
    m = s.model()
    assert is_dominator(DIAMOND, enc.selected(m), enc.dominator_of(m))


# ---------------------------------------------------------------------------------------------
# Exact P(G, S)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(24))
def test_z3_P_equals_brute_force_on_random_dags(seed: int) -> None:
    rng = random.Random(seed)
    G = random_dag(seed, rng.choice([4, 5, 6]), rng.choice([0.3, 0.5]))
    for S in (1, 2, 3):
        r = min_partition_parts(G, S, timeout_ms=10_000)
        assert r.exact, r.reason
        assert is_s_partition(G, r.parts, S).ok
        assert r.value == len(r.parts) == brute_P(G, S)
        assert type(r.value) is int


def test_known_values_small_matmul_like() -> None:
    # Five inputs summed by one vertex: each part holds ≤ 2S inputs... P(G, 2) = 3 (hand count).
    G = nx.DiGraph([(i, "s") for i in range(5)])
    assert min_partition_parts(G, 2, timeout_ms=5_000).value == 3
    assert hong_kung_bound(G, 1, timeout_ms=5_000) == 2


def test_tiny_timeout_is_undecided_never_exact() -> None:
    from attnio.graphs.dags import matmul_dag

    G = matmul_dag(2, 2, 2)  # z3 needs seconds for the UNSAT proof of P(G, 1) = 20
    r = min_partition_parts(G, 1, timeout_ms=1)
    assert r.status is Status.UNDECIDED and "unknown" in r.reason
    assert not r.exact and r.lower < r.upper
    with pytest.raises(BudgetExceededError, match="undecided"):
        _ = r.value
    assert is_s_partition(G, r.parts, 1).ok  # the best-so-far certificate is still valid
    with pytest.raises(BudgetExceededError):
        hong_kung_bound(G, 1, timeout_ms=1)


def test_hong_kung_hypotheses_enforced() -> None:
    G = nx.DiGraph()
    G.add_nodes_from(["x0", "x1", "x2"])
    with pytest.raises(InvalidInputError, match="both an input and an output"):
        hong_kung_bound(G, 1)
    H = nx.DiGraph([("a", "b"), ("a", "c")])
    H.graph["outputs"] = ["b"]
    with pytest.raises(InvalidInputError, match="outputs must be exactly the sinks"):
        hong_kung_bound(H, 1)


def test_bad_S_rejected() -> None:
    with pytest.raises(InvalidInputError, match="S=0"):
        min_partition_parts(DIAMOND, 0)


# False twin: P + 1 is not the minimum — the checker must find a partition with P parts.
def test_false_twin_P_plus_one_is_not_minimum() -> None:
    G = random_dag(3, 6, 0.4)
    r = min_partition_parts(G, 2, timeout_ms=10_000)
    claimed = r.value + 1
    assert brute_P(G, 2) < claimed
