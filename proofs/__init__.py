"""attnio.proofs — every claim of the paper and its parents, machine-checked.

Machinery (re-exported here):

* :mod:`attnio.proofs.registry`    — :class:`Claim`, :class:`CheckContext`, claim discovery;
* :mod:`attnio.smt.z3tools`     — :func:`prove` with the Undecided discipline;
* :mod:`attnio.smt.kernel`      — :func:`prove_statement`: the one proof kernel of ``verify``
  and ``attnio prove`` (declared domains, exact counterexamples, z3 + cvc5);
* :mod:`attnio.smt.exact_eval`  — exact evaluation of a statement at a point;
* :mod:`attnio.smt.sympy_to_z3` — sympy → SMT translation with declared domains;
* :mod:`attnio.proofs.algebra`     — z3 claims whose expressions come from the catalogue;
* :mod:`attnio.proofs.runner`      — run, tabulate, JSON, self-test and coverage;
* :mod:`attnio.commands.verify`         — ``attnio verify``.

Claim modules (each defines ``CLAIMS`` and ``FALSE_TWINS``, is found by
:func:`load_claims`, and runs alone with ``python -m attnio.proofs.<module>``; their lists are
not re-exported, since every module names them the same): ``backward_branches``,
``forward_branches``, ``sparse_branches``, ``algorithm_comparison``, ``lower_order_terms``,
``lower_bound_steps``, ``symbolic_checks``, and the partition modules ``partition_lemmas``,
``explicit_bounds``, ``sandwich``. The claim → theorem map is notes/claims.md.
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
