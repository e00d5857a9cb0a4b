r"""Explicit-constant I/O lower bounds (no Θ) from the per-part counting lemmas.

The route (Hong–Kung Lemma 3.1 = Saha–Ye Lemma 2.8, arXiv 2402.07443, with the inputs =
sources convention): if every part of a 2S-partition holds at most :math:`\beta(2S)` of the
:math:`N` *counted* vertices, the parts cover all of them, so

.. math:: P(G, 2S) \ge \Bigl\lceil \frac{N}{\beta(2S)} \Bigr\rceil
          \quad\Longrightarrow\quad
          Q(G, S) \;\ge\; S\,\bigl(P(G, 2S) - 1\bigr) \;\ge\;
          L(G, S) := S\Bigl(\Bigl\lceil \frac{N}{\beta(2S)} \Bigr\rceil - 1\Bigr).

:func:`explicit_lower_bound` returns :math:`L` (an exact ``int``), the largest over the routes
whose hypotheses the DAG meets; by construction :math:`L \le S(P(G,2S)-1)`, the order the
sandwich (:mod:`attnio.proofs.sandwich`) checks.

Routes (the lemmas are in :mod:`attnio.proofs.partition_lemmas`)
----------------------------------------------------------------
* **matmul** :math:`m\times k` by :math:`k\times p`: counted = the :math:`N = mkp` products,
  :math:`\beta_{MM}(2S) = \lfloor 2S\max(1, \sqrt{2S}/2)\rfloor` (:math:`= \lfloor S\sqrt{2S}\rfloor`
  for :math:`S \ge 2`). Closed form (claim ``explicit.matmul_closed_form``):

  .. math:: Q \ge \frac{mkp}{\sqrt{2S}} - S \qquad (S \ge 2),

  the Lean formalisation's bound (notes/reference/background.md §3.3). Also the Saha–Ye route with
  :math:`d = k` (valid: the operands are inputs); the larger is returned.
* **attention forward / backward (gradient "qkv")** :math:`n, d`: counted = the
  :math:`n^2 t` level-1 vertices of :math:`QK^\top` (:math:`t = 2d - 1` per binary or chain
  tree), :math:`\beta_{SY}(2S) = (4S + \lfloor 4S^2/d^2 \rfloor)\,t`. Closed form (RECONSTRUCTED,
  notes/reference/background.md §1.4; claim ``explicit.attention_closed_form``):

  .. math:: Q \ge \frac{n^2 d^2}{4(S + d^2)} - S, \qquad\text{hence}\qquad
            Q \ge \frac{n^2 d^2}{8S} - S \quad (S \ge d^2).

  For ``gradient="dX"`` the :math:`QK^\top` operands are computed (:math:`\tilde Q = A_1X`),
  Lemma 3.3's hypothesis fails, and :func:`explicit_lower_bound` raises.

Examples
--------
>>> explicit_lower_bound("matmul", {"m": 4, "k": 4, "p": 4}, 2)   # 2·(⌈64/4⌉ − 1)
30
>>> explicit_lower_bound("attention-forward", {"n": 8, "d": 2}, 4)  # 4·(⌈64·3/((16+16)·3)⌉ − 1)
4
"""

from __future__ import annotations

from typing import Any, Mapping

from attnio.exceptions import InvalidInputError
from attnio.graphs.lower_bounds.parts import matmul_part_bound, sy_part_bound
from attnio.validation import positive_int

__all__ = ["KINDS", "explicit_lower_bound", "explicit_routes", "partition_route_bound"]


KINDS = ("matmul", "attention-forward", "attention-backward")


def partition_route_bound(counted: int, part_bound: int, S: int) -> int:
    r""":math:`S(\lceil N/\beta\rceil - 1)`, floored at 0 (exact integers).

    >>> partition_route_bound(8, 7, 3), partition_route_bound(8, 8, 3), partition_route_bound(0, 5, 3)
    (3, 0, 0)
    """
    positive_int("part_bound", part_bound)
    return S * max(0, -(-counted // part_bound) - 1)


def _size(sizes: Mapping[str, Any], key: str) -> int:
    return positive_int(key, sizes.get(key))


def explicit_routes(kind: str, sizes: Mapping[str, Any], M: int) -> dict[str, int]:
    """Every applicable partition route's bound, by name (see the module docstring).

    >>> explicit_routes("matmul", {"m": 2, "k": 2, "p": 2}, 3)
    {'matmul products': 3, 'Saha-Ye level-1': 0}
    """
    positive_int("M", M)
    k2 = 2 * M
    if kind == "matmul":
        m, k, p = _size(sizes, "m"), _size(sizes, "k"), _size(sizes, "p")
        summation = sizes.get("summation", "tree")
        tree = k if summation == "fma" else 2 * k - 1
        return {
            "matmul products": partition_route_bound(m * k * p, matmul_part_bound(k2), M),
            "Saha-Ye level-1": partition_route_bound(m * p * tree, sy_part_bound(k2, k, tree), M),
        }
    if kind in ("attention-forward", "attention-backward"):
        n, d = _size(sizes, "n"), _size(sizes, "d")
        if sizes.get("mask") is not None:
            raise InvalidInputError("mask is not supported: the count assumes n² score entries")
        if kind == "attention-backward" and sizes.get("gradient", "qkv") != "qkv":
            raise InvalidInputError(
                f"gradient={sizes.get('gradient')!r}: the QKᵀ operands are computed, so Saha–Ye "
                "Lemma 3.3's hypothesis (leaf operands are inputs) fails; use gradient='qkv'")
        tree = 2 * d - 1
        return {"Saha-Ye level-1": partition_route_bound(n * n * tree,
                                                         sy_part_bound(k2, d, tree), M)}
    raise InvalidInputError(f"kind={kind!r} must be one of {KINDS}")


def explicit_lower_bound(kind: str, sizes: Mapping[str, Any], M: int) -> int:
    r"""Explicit lower bound :math:`L \le S(P(G,2S)-1) \le Q(G, S)`, with :math:`S = M`.

    Parameters
    ----------
    kind : {"matmul", "attention-forward", "attention-backward"}
    sizes : mapping
        ``m, k, p`` (and ``summation``) for matmul; ``n, d`` (and ``gradient``) for attention.
    M : int
        Red pebbles (fast-memory words), ``M ≥ 1``.

    Returns
    -------
    int
        The largest applicable route bound (≥ 0).

    Raises
    ------
    InvalidInputError
        Bad sizes, an unknown kind, ``gradient="dX"`` or a mask.

    Examples
    --------
    >>> explicit_lower_bound("attention-backward", {"n": 16, "d": 1}, 1)   # 1·(⌈256/8⌉ − 1)
    31
    """
    return max(explicit_routes(kind, sizes, M).values())
