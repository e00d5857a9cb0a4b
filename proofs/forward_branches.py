r"""The two branches of the forward bound (Saha & Ye Thm 3.1, arXiv 2402.07443), proved by z3.

Saha & Ye (ICML 2024) Theorem 3.1: attention computed with standard matrix multiplication has
I/O complexity

.. math::

    \Theta\Bigl(\min\Bigl\{\underbrace{\tfrac{n^2d^2}{M}}_{b_1},\;
    \underbrace{\tfrac{n^2d}{\sqrt M}}_{b_2}\Bigr\}\Bigr)

(:math:`n` sequence length, :math:`d` head dimension, :math:`M` cache size); "at
:math:`M = d^2` both terms equal :math:`n^2`". The expressions are read from the catalogue entry
``fwd.tight``. Proof map — each claim holds for **every real** :math:`n, d, M > 0`:

* ``fwd.tight.first_branch``       — :math:`M \ge d^2 \Rightarrow \min = b_1`;
* ``fwd.tight.second_branch``      — :math:`M \le d^2 \Rightarrow \min = b_2`;
* ``fwd.tight.crossover_exact``    — :math:`b_1 \le b_2 \iff M \ge d^2`;
* ``fwd.tight.branch_ratio``       — :math:`b_1 = (d/\sqrt M)\,b_2`;
* ``fwd.tight.equal_at_crossover`` — at :math:`M = d^2` both equal :math:`n^2` [SRC];
* ``fwd.regimes.*`` — each regime entry of the catalogue equals ``fwd.tight`` on its own
  admissible range: ``fwd.flash1.upper`` (with :math:`M \ge d^2`; FlashAttention is optimal
  there, Saha & Ye Thm 3.2) and ``fwd.square_tiling.upper`` (:math:`M \le d^2`, Thm 3.5).
  ``fwd.large.lower`` / ``fwd.small.lower`` are the branches themselves on the branch regimes,
  so their agreement claims were ``first_branch`` / ``second_branch`` again (removed, issues
  10 and 20).

False twins: crossover at :math:`d^2/2`, direction swapped, ratio inverted, value
:math:`n^2 d` at the crossover, and FlashAttention's :math:`n^2d^2/M` equal to the tight bound
on its whole range :math:`d \le M \le nd` (it is not, below :math:`d^2`).

Run ``python -m attnio.proofs.forward_branches`` to check this family alone.

Examples
--------
>>> len(CLAIMS), len(FALSE_TWINS)
(7, 5)
"""

from __future__ import annotations

import sympy

from attnio.proofs.algebra import agreement_claim, eq, ge, le, min_of_two_claims, symbols
from attnio.proofs.registry import run_module

__all__ = ["CLAIMS", "FALSE_TWINS"]

SOURCE = "Saha & Ye Thm 3.1, arXiv 2402.07443"


def _sym():
    return symbols("n d M")


_CLAIMS, _TWINS = min_of_two_claims(
    "fwd.tight", "fwd.branches", "fwd.tight", SOURCE,
    first_regime=lambda: ge(_sym()[2], _sym()[1] ** 2),
    second_regime=lambda: le(_sym()[2], _sym()[1] ** 2),
    wrong_regime=lambda: ge(_sym()[2], _sym()[1] ** 2 / 2),
    ratio=lambda: _sym()[1] / sympy.sqrt(_sym()[2]),
    crossover=lambda: eq(_sym()[2], _sym()[1] ** 2),
    value_at_crossover=lambda: _sym()[0] ** 2,
    wrong_value_at_crossover=lambda: _sym()[0] ** 2 * _sym()[1],
    regime_text=("M >= d**2", "M <= d**2"), ratio_text="d/sqrt(M)", value_text="n**2",
)

FAMILY = "fwd.branches"
CLAIMS = _CLAIMS + [
    agreement_claim("fwd.regimes.flash1_upper", "fwd.flash1.upper", "fwd.tight", FAMILY,
                    extra_hypotheses=lambda: [ge(_sym()[2], _sym()[1] ** 2)]),
    agreement_claim("fwd.regimes.square_tiling_upper", "fwd.square_tiling.upper", "fwd.tight",
                    FAMILY),
]
FALSE_TWINS = _TWINS + [
    agreement_claim("fwd.regimes.flash1_upper.twin_whole_range", "fwd.flash1.upper",
                    "fwd.tight", FAMILY, twin_of="fwd.regimes.flash1_upper"),
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
