r"""Per-part counting bounds of the S-partition lower bounds, and what they count (exact ints).

A *bounded set* of size parameter :math:`k` is a vertex set :math:`W` with a dominator set and
a minimum set of at most :math:`k` vertices each (Hong–Kung 1981; Saha–Ye arXiv 2402.07443
§2). The functions here give the most vertices of one kind a bounded set can hold:

* :func:`matmul_part_bound` — :math:`\beta_{MM}(k) = \lfloor k\max(1, \sqrt k/2)\rfloor`
  products of a standard matmul DAG (Hong–Kung 1981 Cor. 6.2; explicit constant from the Lean
  formalisation); :func:`matmul_part_bound_sqrt_form` — :math:`\lfloor S\sqrt{2S}\rfloor`,
  the same at :math:`k = 2S` for :math:`S \ge 2`;
* :func:`sy_part_bound` — :math:`(2k + \lfloor k^2/d^2\rfloor)\,t` level-1 vertices of a
  product with :math:`d`-leaf summation trees of :math:`t` vertices (Saha–Ye Lemma 3.3,
  explicit constants RECONSTRUCTED); :func:`sy_extra_tree_bound` — its step 4;
* :func:`product_vertices`, :func:`qk_trees` — the counted vertices of a DAG (and the check of
  Lemma 3.3's hypotheses: disjoint trees whose leaf operands are inputs).

Each bound is checked exhaustively by z3 on small DAGs, with planted false twins, in
:mod:`attnio.proofs.partition_lemmas`; the routes built on them are
:mod:`attnio.graphs.lower_bounds.explicit`.

>>> matmul_part_bound(8), sy_part_bound(4, 2, 3)
(11, 36)
"""

from __future__ import annotations

from math import isqrt
from typing import TYPE_CHECKING

from attnio.exceptions import InvalidInputError
from attnio.validation import positive_int

if TYPE_CHECKING:  # networkx only where a DAG is read (qk_trees): `attnio bounds` needs none
    import networkx as nx

__all__ = ["matmul_part_bound", "matmul_part_bound_sqrt_form", "product_vertices", "qk_trees", "sy_extra_tree_bound", "sy_part_bound"]


def matmul_part_bound(k: int) -> int:
    r"""β_MM(k) = ⌊k·max(1, √k/2)⌋: products in a bounded set of a matmul DAG (k ≥ 1).

    >>> [matmul_part_bound(k) for k in range(1, 9)]
    [1, 2, 3, 4, 5, 7, 9, 11]
    """
    _positive_k(k)
    return k if k <= 4 else isqrt(k ** 3 // 4)  # ⌊√(k³/4)⌋ = ⌊√⌊k³/4⌋⌋


def matmul_part_bound_sqrt_form(S: int) -> int:
    r"""⌊S·√(2S)⌋, the per-part product count of a 2S-partition (valid for S ≥ 2 only).

    >>> [matmul_part_bound_sqrt_form(S) for S in (1, 2, 3, 4)]
    [1, 4, 7, 11]
    """
    _positive_k(S)
    return isqrt(2 * S ** 3)


def sy_extra_tree_bound(k: int, d: int) -> int:
    """⌊k²/d²⌋: extra trees (root in W, no dominator vertex) — Saha–Ye Lemma 3.3 step 4.

    >>> sy_extra_tree_bound(4, 2), sy_extra_tree_bound(6, 1)
    (4, 36)
    """
    _positive_k(k)
    return (k * k) // (d * d)


def sy_part_bound(k: int, d: int, tree_size: int) -> int:
    """(2k + ⌊k²/d²⌋)·t: level-1 vertices in a bounded set (Saha–Ye Lemma 3.3, RECONSTRUCTED).

    >>> sy_part_bound(4, 2, 3)   # (8 + 4)·3
    36
    """
    return (2 * k + sy_extra_tree_bound(k, d)) * tree_size


def _positive_k(k: int) -> None:
    positive_int("k", k)


def product_vertices(G: nx.DiGraph, product: str) -> list[str]:
    """The vertices forming the scalar products of one standard product (``mul`` or ``fma``).

    >>> from attnio.graphs.dags import matmul_dag
    >>> len(product_vertices(matmul_dag(2, 2, 2), "AB")), len(product_vertices(matmul_dag(2, 2, 2, "fma"), "AB"))
    (8, 8)
    """
    return sorted(v for v, a in G.nodes(data=True)
                  if a.get("product_of") == product and a.get("op") in ("mul", "fma"))


def qk_trees(G: nx.DiGraph, product: str = "QK") -> list[tuple[str, frozenset[str]]]:
    """The summation trees of one standard product: ``(root, level-1 vertices)`` per entry.

    Checks the hypotheses of Saha–Ye Lemma 3.3: trees are vertex-disjoint, each is a tree
    whose only edge leaving it starts at the root, and its leaves' operands are inputs.

    Raises
    ------
    InvalidInputError
        If a hypothesis fails (e.g. ``gradient="dX"``, where the operands are computed).

    >>> from attnio.graphs.dags import attention_forward_dag
    >>> [len(t) for _, t in qk_trees(attention_forward_dag(2, 2))]
    [3, 3, 3, 3]
    """
    import networkx  # here, not at the top: the closed forms above need no graph library

    level1 = {v for v, tag in G.nodes(data="product_of") if tag == product}
    if not level1:
        raise InvalidInputError(f"G has no level-1 vertices of product {product!r}")
    roots = [v for v in level1 if not any(c in level1 for c in G.successors(v))]
    trees = []
    for r in sorted(roots):
        tree = frozenset(networkx.ancestors(G, r) & level1) | {r}
        for v in tree:
            outside = [c for c in G.successors(v) if c not in tree]
            if v != r and (outside or G.out_degree(v) != 1):
                raise InvalidInputError(f"{v!r} of tree {r!r} has an edge leaving the tree")
            for u in G.predecessors(v):
                if u not in tree and G.in_degree(u) != 0:
                    raise InvalidInputError(f"operand {u!r} of tree {r!r} is not an input")
        trees.append((r, tree))
    if sum(len(t) for _, t in trees) != len(level1):
        raise InvalidInputError(f"the trees of {product!r} are not vertex-disjoint")
    return trees
