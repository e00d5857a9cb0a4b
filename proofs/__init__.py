"""attnio.proofs — every claim of the paper and its parents, machine-checked (the top floor).

Machinery (re-exported here):

* :mod:`attnio.proofs.registry`    — :class:`Claim`, :class:`CheckContext`, claim discovery;
* :mod:`attnio.proofs.algebra`     — z3 claims whose expressions come from the catalogue;
* :mod:`attnio.proofs.runner`      — run, self-test and coverage.

The roof does not re-export the floor (issue 40): the proof kernel is imported from its
own home, :mod:`attnio.smt` — :func:`attnio.smt.kernel.prove_statement`,
:func:`attnio.smt.kernel.check_identity`, :func:`attnio.smt.z3tools.prove`, the
sympy → SMT :class:`attnio.smt.sympy_to_z3.Translator`. The verdict table and the
``verify --json`` document are rendered by :mod:`attnio.reporting.verdicts`.

Claim modules (each defines ``CLAIMS`` and ``FALSE_TWINS``, is found by
:func:`load_claims`, and runs alone with ``python -m attnio.proofs.<module>``; their lists are
not re-exported, since every module names them the same): ``backward_branches``,
``forward_branches``, ``sparse_branches``, ``algorithm_comparison``, ``algorithm_counts``,
``lower_order_terms``, ``lower_bound_steps``, ``symbolic_checks``, the partition modules
``partition_lemmas``, ``explicit_bounds``, ``sandwich``, ``certified_routes``, and the
claims of the bounds room ``attention_routes``, ``mask_bounds``, ``stacked_heads``,
``hierarchy_claims``. The claim → theorem map is notes/claims.md; ``attnio verify`` is
:mod:`attnio.commands.verify`.
"""

from attnio.proofs.algebra import *  # noqa: F401,F403
from attnio.proofs.algebra import __all__ as _algebra_all
from attnio.proofs.registry import *  # noqa: F401,F403
from attnio.proofs.registry import __all__ as _registry_all
from attnio.proofs.runner import *  # noqa: F401,F403
from attnio.proofs.runner import __all__ as _runner_all

__all__ = [*_registry_all, *_algebra_all, *_runner_all]
