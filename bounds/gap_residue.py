r"""Where a gap ratio comes from: the bound's constant × the algorithm's structure.

For one row of ``attnio gap`` — pass, n, d, M; the lower bound :math:`LB`; the cheapest
algorithm X with exact I/O :math:`Q_X` — :func:`gap_residue` splits the ratio exactly into two
factors around one reference point, the *classical I/O* :math:`R` of X's computation:

.. math::

   \frac{Q_X}{LB} \;=\; \underbrace{\frac{R}{LB}}_{\text{bound factor}}
   \times \underbrace{\frac{Q_X}{R}}_{\text{algorithm factor}},
   \qquad R = P\cdot m(M) + C.

* :math:`P` — the products of X's computation, each an n×n×d product (:math:`n^2d`
  multiply-adds) with one n×n side: ``forward`` 2 (Q·Kᵀ, P·V); ``recompute`` 5 (Q·Kᵀ, dO·Vᵀ,
  Pᵀ·dO, dS·K, dSᵀ·Q); ``given-scores`` 4 (the same without Q·Kᵀ: A is read).
* :math:`m(M) = \min(2n^2d/\sqrt M,\ n^2d^2/M)` — the leading term of the cheaper of the two
  classical schedules of one such product: square :math:`\sqrt M \times \sqrt M` tiles of the
  n×n side with both n×d operands streamed a column at a time (:math:`2n^2d/\sqrt M`, the
  matmul constant 2), or :math:`M/d` rows of one n×d operand resident while the other streams
  once per block (:math:`n^2d^2/M`). They cross at :math:`M = d^2/4`.
* :math:`C` — the compulsory I/O of X's computation
  (:func:`~attnio.bounds.attention.compulsory_io`; ``given-scores`` adds its n×n input, n²).

:math:`R` is a reference point, **neither a lower nor an upper bound**: a schedule may beat
the classical constant by sharing operands between products, and the leading terms drop the
ceilings, the row vectors and the space the tiles share. Read the two factors as:

* **bound factor** :math:`R/LB` — how far the bound lies below every product of the
  computation at the classical constant. Two causes, both the bound's: it charges only
  :math:`p` of the :math:`P` products (``charged_products``: those with two input operands —
  forward Q·Kᵀ; ``recompute`` Q·Kᵀ and dO·Vᵀ; ``given-scores`` dO·Vᵀ, and dS·K on its witnessed
  route; 0 on the compulsory
  route), and it charges them at its own constant (about :math:`0.7\,n^2d/\sqrt M` per product
  for :math:`M \ll d^2` against the classical :math:`2n^2d/\sqrt M`). A bound that charged more
  products, or a larger constant per product, lowers it (issue 26, item 1).
* **algorithm factor** :math:`Q_X/R` — what the cheapest algorithm moves beyond its products
  at the classical constant: re-reads forced by resident tiles sharing M (FlashAttention-2
  keeps four :math:`B_c \times d` tiles, so :math:`B_c \approx M/4d`, and reads and writes dQ
  on every pass), n×n matrices written and read back, row vectors. A better schedule lowers
  it (issue 26, item 2).

A factor near 1 says that side has nothing left to give against the classical reference.

>>> r = gap_residue("backward", 4096, 64, 8192, "flash2", 142389248, 13254656,
...                 "recompute: segment products (Q·Kᵀ + dO·Vᵀ), L = 2M + compulsory rest",
...                 "gap.segment_route")
>>> r["products"], r["charged_products"], r["classical_product_io"]
(5, 2, 8388608)
>>> round(r["bound_factor"] * r["algorithm_factor"], 6) == round(142389248 / 13254656, 6)
True
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Any

from attnio.algorithms.registry import get_algorithm
from attnio.bounds.attention import compulsory_io
from attnio.bounds.joint import JOINT_CLASSES
from attnio.exceptions import InvalidInputError

__all__ = ["SQRT_BITS", "PRODUCTS", "CHARGED_PRODUCTS", "classical_product_io", "charged_products",
           "gap_residue"]

#: Bits after the point of the square root in :func:`classical_product_io`.
SQRT_BITS = 30

#: Products (n×n×d each) of each computation class.
PRODUCTS = {"forward": 2, "recompute": 5, "given-scores": 4}

#: Products the segment route charges in each class (two input operands; the witnessed route of
#: the given-scores class charges 2: :func:`charged_products`).
CHARGED_PRODUCTS = {"forward": 1, "recompute": 2, "given-scores": 1}


def classical_product_io(n: int, d: int, M: int) -> Fraction:
    r""":math:`m(M) = \min(2n^2d/\sqrt M,\ n^2d^2/M)` (module docstring), exact when
    :math:`4M \ge d^2` and with :math:`\sqrt M` to 30 bits after the point otherwise
    (:data:`SQRT_BITS`; any n, d, M: no float is formed).

    >>> float(classical_product_io(4096, 64, 256)), classical_product_io(4096, 64, 4096)
    (134217728.0, Fraction(16777216, 1))
    """
    if 4 * M >= d * d:
        return Fraction(n * n * d * d, M)
    return Fraction(2 * n * n * d << SQRT_BITS, isqrt(M << (2 * SQRT_BITS)))


def charged_products(pass_: str, route: str, claim_id: str) -> int:
    """How many products a route of :func:`~attnio.bounds.attention.best_lower_bound` charges:
    0 on the compulsory route, 1 on Saha–Ye's (Q·Kᵀ), the class's count on the segment route,
    every product of the class on the joint route (issue 35; the backward route names its
    binding class before ``:``).

    >>> charged_products("backward", "recompute: segment products (Q·Kᵀ + dO·Vᵀ), L = 2M", "gap.segment_route")
    2
    >>> charged_products("forward", "compulsory", "gap.compulsory")
    0
    >>> charged_products("backward", "given-scores: segment products (dO·Vᵀ + dS·K, ...)",
    ...                  "gap.witnessed_route")
    2
    >>> charged_products("backward", "recompute: segment products (Q·Kᵀ + dO·Vᵀ + …)",
    ...                  "gap.joint_route")
    5
    """
    if claim_id == "gap.compulsory":
        return 0
    if claim_id == "gap.witnessed_route":  # dO·Vᵀ and dS·K (bounds/attention.py)
        return 2
    if claim_id not in ("gap.segment_route", "gap.joint_route"):
        return 1
    computation = "forward" if pass_ == "forward" else route.split(":", 1)[0]
    if computation not in CHARGED_PRODUCTS:
        raise InvalidInputError(f"route {route!r} names no computation class")
    if claim_id == "gap.joint_route":  # every product of the class (issue 35)
        return JOINT_CLASSES[computation][0]
    return CHARGED_PRODUCTS[computation]


def gap_residue(pass_: str, n: int, d: int, M: int, best_algorithm: str, best_io: int,
                lower_bound: int, route: str, claim_id: str) -> dict[str, Any]:
    """The split of ``best_io / lower_bound`` (module docstring): ``products`` P of the best
    algorithm's computation, ``charged_products`` p of the bound's route,
    ``classical_product_io`` m and ``classical_io`` R (rounded to the nearest word),
    ``bound_factor`` R/LB, ``algorithm_factor`` Q_X/R (floats of the exact quotients with the
    unrounded R: their product is the ratio up to float rounding)."""
    computation = get_algorithm(best_algorithm).computation(pass_)
    if computation not in PRODUCTS:
        raise InvalidInputError(f"algorithm={best_algorithm!r} computes {computation!r}, "
                                "which has no product count")
    m = classical_product_io(n, d, M)
    compulsory = compulsory_io(pass_, n, d) + (n * n if computation == "given-scores" else 0)
    classical = PRODUCTS[computation] * m + compulsory
    return {"products": PRODUCTS[computation],
            "charged_products": charged_products(pass_, route, claim_id),
            "classical_product_io": round(m), "classical_io": round(classical),
            "bound_factor": float(classical / lower_bound),
            "algorithm_factor": float(best_io / classical)}
