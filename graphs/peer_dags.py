r"""The peer DAGs: sixteen real computational DAGs (40–78 vertices) shipped with attnio.

They come from the OneStopParallel project's "tiny" instance set (Apache-2.0, Huawei
Technologies; source, licence and conversion in ``graphs/data/peer_dags/README.md``): sparse
matrix–vector products, CG and BiCGSTAB iterations, iterated sparse products, k-NN, k-means
and a Pregel step. Each is a DAG file in attnio's own JSON format, loaded through
:func:`attnio.graphs.dagio.load_dag`; inputs are the sources and outputs the sinks.

Examples
--------
>>> len(peer_dag_names())
16
>>> G = load_peer_dag("k-means")
>>> G.number_of_nodes(), G.number_of_edges()
(40, 45)
>>> load_peer_dag("nope")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: peer DAG 'nope' is unknown; one of CG_N2_K2_nzP0d75, CG_N3_K1_nzP0d5, ... (16 names, see peer_dag_names())
"""

from __future__ import annotations

from importlib import resources

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import load_dag
from attnio.validation import describe

__all__ = ["peer_dag_names", "load_peer_dag", "peer_dags"]

_PACKAGE_DIR = ("data", "peer_dags")


def _folder():
    return resources.files("attnio.graphs").joinpath(*_PACKAGE_DIR)


def peer_dag_names() -> list[str]:
    """The names of the peer DAGs (file names without ``.json``), sorted.

    >>> peer_dag_names()[:2]
    ['CG_N2_K2_nzP0d75', 'CG_N3_K1_nzP0d5']
    """
    return sorted(entry.name[:-5] for entry in _folder().iterdir()
                  if entry.name.endswith(".json"))


def load_peer_dag(name: str) -> nx.DiGraph:
    """Load one peer DAG by name (InvalidInputError for an unknown name).

    >>> load_peer_dag("spmv_N6_nzP0d4").number_of_nodes()
    48
    """
    names = peer_dag_names()
    if not isinstance(name, str) or name not in names:
        raise InvalidInputError(f"peer DAG {describe(name)} is unknown; one of "
                                f"{', '.join(names[:2])}, ... ({len(names)} names, see "
                                f"peer_dag_names())")
    with resources.as_file(_folder().joinpath(name + ".json")) as path:
        return load_dag(path)


def peer_dags() -> dict[str, nx.DiGraph]:
    """Every peer DAG, by name.

    >>> sum(G.number_of_nodes() for G in peer_dags().values())
    948
    """
    return {name: load_peer_dag(name) for name in peer_dag_names()}
