r"""Hong–Kung S-partitions: dominator and minimum sets, exact P(G, S), the partition bound.

Definitions (Hong & Kung, STOC'81, §3; as restated by Saha & Ye, arXiv 2402.07443, Defs. 2.3–2.6,
and by the Lean formalisation ``geoconuk/lean-misc-math`` — see
notes/reference/background.md §3.2). ``G`` is a finite DAG whose **inputs are exactly its
sources** (parentless vertices) and may not be computed; this is the Lean/Elango correction
without which HK Theorem 3.1 is false.

* **Dominator set** of :math:`W \subseteq V`: a set :math:`D \subseteq V` such that every path
  from an input to a vertex of :math:`W` contains a vertex of :math:`D`. Paths of length 0
  count, so an input lying in :math:`W` must itself be in :math:`D`. :math:`D` need not be a
  subset of :math:`W`.
* **Minimum set** of :math:`W`: :math:`\{v \in W : \text{no child of } v \text{ is in } W\}`.
* **Dependence**: part :math:`V_j` depends on part :math:`V_i` (:math:`i \ne j`) when some edge
  goes from a vertex of :math:`V_i` to a vertex of :math:`V_j`.
* **S-partition**: :math:`V_1, \dots, V_h` with
  (P1) pairwise disjoint, union :math:`V` (empty parts are allowed, as in the Lean statement);
  (P2) each :math:`V_i` has a dominator set of size :math:`\le S`;
  (P3) each :math:`V_i` has a minimum set of size :math:`\le S`;
  (P4) the dependence relation among the parts is acyclic.
  :math:`P(G, S)` is the least number of non-empty parts of an S-partition.
* **Hong–Kung Lemma 3.1** (= Saha–Ye Lemma 2.8): for every complete calculation of ``G`` with at
  most :math:`S` red pebbles,

  .. math:: Q(G, S) \ge S \cdot \bigl(P(G, 2S) - 1\bigr).

  (Lean form of HK Thm 3.1: a calculation with :math:`q` I/Os yields a 2S-partition into
  :math:`h` parts with :math:`q \le S h \le q + S`.)

Proof map
---------
* :func:`is_dominator`, :func:`minimum_set`, :func:`min_dominator_size` /
  :func:`minimum_dominator` (exact minimum vertex cut by max-flow with vertex splitting, no z3),
  :func:`is_s_partition` — plain-Python checkers; every z3 certificate is re-validated by them.
* :func:`bounded_set_encoding` — z3 encoding of "W has a dominator of size ≤ k and a minimum
  set of size ≤ k" with reachability-avoidance booleans (stated in :mod:`.search`).
* :func:`min_partition_parts` — the exact :math:`P(G, S)` by z3: a greedy S-partition gives an
  upper bound, then SAT queries with fewer parts until one is UNSAT (the UNSAT answer for
  :math:`h - 1` parts is the optimality certificate; empty parts make "≤ h parts" monotone).
* :func:`hong_kung_bound` — :math:`S (P(G, 2S) - 1)`.

The plain-Python definitions and checkers live in :mod:`.definitions`; the z3 encodings, the
bounded-set searches, the exact :math:`P(G, S)` and :func:`hong_kung_bound` in :mod:`.search`
(whose docstring states the encodings). Every name keeps its import path
``attnio.graphs.partitions``.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
>>> is_dominator(G, {"d"}, {"c"}), is_dominator(G, {"c"}, {"a"})
(True, False)
>>> min_dominator_size(G, {"c", "d"}), sorted(minimum_set(G, {"a", "c"}))
(1, ['c'])
>>> bool(is_s_partition(G, [{"a", "b", "c", "d"}], 2))
True
>>> r = min_partition_parts(G, 1, timeout_ms=5_000)
>>> r.exact, r.value
(True, 3)
>>> hong_kung_bound(G, 1, timeout_ms=5_000)   # S·(P(G, 2S) − 1) with P(G, 2) = 1
0

References
----------
.. [1] J.-W. Hong, H. T. Kung, "I/O complexity: the red-blue pebble game", STOC 1981, §3.
.. [2] B. Saha, C. Ye, "The I/O Complexity of Attention", arXiv 2402.07443, Defs. 2.3–2.6,
   Lemmas 2.7–2.8.
.. [3] Lean formalisation ``geoconuk/lean-misc-math`` (RedBluePebbleGame.lean): inputs =
   sources, empty parts allowed, :math:`q \le S h \le q + S`.
"""

from __future__ import annotations

from attnio.graphs.partitions.definitions import *  # noqa: F401,F403
from attnio.graphs.partitions.definitions import Vertex  # noqa: F401
from attnio.graphs.partitions.definitions import __all__ as _definitions_all
from attnio.graphs.partitions.search import *  # noqa: F401,F403
from attnio.graphs.partitions.search import __all__ as _search_all

__all__ = [*_definitions_all, *_search_all]
