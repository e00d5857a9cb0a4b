r"""The two branches of the sparse lower bound (Thm 4.5 of arXiv 2410.09397), proved by z3.

Theorem 4.5 (statement RECONSTRUCTED, background notes/reference/paper.md §5; presumed proof via Pagh &
Stöckel's semiring bound for sparse matrix multiplication): sparse attention, forward and
backward, needs

.. math::

    \Omega\Bigl(\min\Bigl\{\underbrace{\tfrac{Z_{in}^2}{M}}_{b_1},\;
    \underbrace{\tfrac{Z_{in}\sqrt{Z_{QK}}}{\sqrt M}}_{b_2}\Bigr\}\Bigr)

I/Os, :math:`Z_{in}` the nonzeros of the inputs, :math:`Z_{QK}` those of :math:`QK^\top`.
The expressions are read from the catalogue entry ``sparse.lower``; z3 works with
:math:`M = s^2`, :math:`Z_{QK} = t^2`. Proof map — each claim holds for **every real**
:math:`Z_{in}, Z_{QK}, M > 0`:

* ``sparse.lower.first_branch``       — :math:`M \ge Z_{in}^2/Z_{QK} \Rightarrow \min = b_1`;
* ``sparse.lower.second_branch``      — :math:`M \le Z_{in}^2/Z_{QK} \Rightarrow \min = b_2`;
* ``sparse.lower.crossover_exact``    — :math:`b_1 \le b_2 \iff M \ge Z_{in}^2/Z_{QK}`;
* ``sparse.lower.branch_ratio``       — :math:`b_1 = \bigl(Z_{in}/\sqrt{M Z_{QK}}\bigr)\, b_2`;
* ``sparse.lower.equal_at_crossover`` — at :math:`M = Z_{in}^2/Z_{QK}` both equal
  :math:`Z_{QK}`;
(With :math:`Z_{in} = nd`, :math:`Z_{QK} = n^2` sympy's substitution turns the bound into
``fwd.tight`` syntactically, so "the dense case is recovered" is a definition, not a claim.
``sym.dominance.sparse_dense.equals_reduced``, which restated it, is not registered either
(issue 20, :data:`attnio.proofs.symbolic_checks.REMOVED`); the order of the dense instance is
the claim ``sym.dominance.sparse_dense.same_order_bwd``.)

False twins: the crossover at :math:`Z_{in}^2/(2Z_{QK})`, direction swapped, ratio inverted,
value :math:`Z_{in}` at the crossover.

Run ``python -m attnio.proofs.sparse_branches`` to check this family alone.

Examples
--------
>>> CLAIMS[-1].id
'sparse.lower.equal_at_crossover'
"""

from __future__ import annotations

import sympy

from attnio.proofs.algebra import eq, ge, le, min_of_two_claims, symbols
from attnio.proofs.registry import run_module

__all__ = ["CLAIMS", "FALSE_TWINS"]

SOURCE = "Li et al. Thm 4.5, arXiv 2410.09397 (statement RECONSTRUCTED)"
FAMILY = "sparse.branches"


def _sym():
    return symbols("Z_in Z_QK M")


def _crossover() -> sympy.Expr:
    z_in, z_qk, _ = _sym()
    return z_in ** 2 / z_qk


_CLAIMS, _TWINS = min_of_two_claims(
    "sparse.lower", FAMILY, "sparse.lower", SOURCE,
    first_regime=lambda: ge(_sym()[2], _crossover()),
    second_regime=lambda: le(_sym()[2], _crossover()),
    wrong_regime=lambda: ge(_sym()[2], _crossover() / 2),
    ratio=lambda: _sym()[0] / sympy.sqrt(_sym()[2] * _sym()[1]),
    crossover=lambda: eq(_sym()[2], _crossover()),
    value_at_crossover=lambda: _sym()[1],
    wrong_value_at_crossover=lambda: _sym()[0],
    regime_text=("M >= Z_in**2/Z_QK", "M <= Z_in**2/Z_QK"),
    ratio_text="Z_in/sqrt(M*Z_QK)", value_text="Z_QK", reconstructed=True,
)


CLAIMS = _CLAIMS

FALSE_TWINS = _TWINS

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
