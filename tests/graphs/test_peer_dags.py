"""Tests of attnio.graphs.peer_dags: the sixteen shipped peer DAGs load through dagio."""

from __future__ import annotations

from importlib import resources

import networkx as nx
import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import load_dag
from attnio.graphs.game import game_inputs, game_outputs
from attnio.graphs.peer_dags import load_peer_dag, peer_dag_names, peer_dags


def test_sixteen_dags_load_with_their_sizes() -> None:
    dags = peer_dags()
    assert len(dags) == 16 and list(dags) == peer_dag_names()
    for name, G in dags.items():
        assert 40 <= G.number_of_nodes() <= 78, name
        assert nx.is_directed_acyclic_graph(G)
        assert game_inputs(G) and game_outputs(G)  # inputs = sources, outputs = sinks


def test_known_sizes() -> None:
    # vertex / edge counts of the converted files (graphs/data/peer_dags/README.md)
    assert load_peer_dag("spmv_N6_nzP0d4").number_of_edges() == 54
    assert load_peer_dag("CG_N4_K1_nzP0d35").number_of_nodes() == 78
    G = load_peer_dag("k-means")
    assert (len(game_inputs(G)), len(game_outputs(G))) == (14, 9)


def test_same_as_plain_load_dag() -> None:
    folder = resources.files("attnio.graphs").joinpath("data", "peer_dags")
    with resources.as_file(folder.joinpath("pregel.json")) as path:
        G = load_dag(path)
    H = load_peer_dag("pregel")
    assert set(G.edges) == set(H.edges) and set(G) == set(H)
    assert folder.joinpath("README.md").is_file()


@pytest.mark.parametrize("bad", ["nope", "", None, "../README"])
def test_unknown_name_is_refused(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="peer DAG"):
        load_peer_dag(bad)  # type: ignore[arg-type]
