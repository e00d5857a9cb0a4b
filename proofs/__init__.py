"""attnio.proofs — every claim of the paper and its parents, machine-checked (the top floor).

Machinery (re-exported here):

* :mod:`attnio.proofs.registry`    — :class:`Claim`, :class:`CheckContext`, claim discovery;
* :mod:`attnio.proofs.algebra`     — z3 claims whose expressions come from the catalogue;
* :mod:`attnio.proofs.runner`      — run, tabulate, JSON, self-test and coverage;
* from :mod:`attnio.smt` (the ground floor): :func:`prove` (:mod:`attnio.smt.z3tools`),
  :func:`prove_statement` and :func:`check_identity` (:mod:`attnio.smt.kernel`), the
  sympy → SMT :class:`Translator` (:mod:`attnio.smt.sympy_to_z3`).

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
from attnio.smt.kernel import check_identity, prove_statement  # noqa: F401
from attnio.smt.sympy_to_z3 import *  # noqa: F401,F403
from attnio.smt.sympy_to_z3 import __all__ as _sympy_to_z3_all
from attnio.smt.z3tools import *  # noqa: F401,F403
from attnio.smt.z3tools import __all__ as _z3tools_all

__all__ = [*_registry_all, *_z3tools_all, *_sympy_to_z3_all, *_algebra_all, *_runner_all,
           "prove_statement", "check_identity"]
