"""attnio — the I/O complexity of attention, made checkable by a machine.

Packages (each a folder of the repository, installed under this namespace):

* :mod:`attnio.symbolic`   — sympy bound catalogue, crossovers, dominance, hardware advisor
* :mod:`attnio.proofs`     — claim registry, z3 proofs, partition lemmas, ``attnio verify``
* :mod:`attnio.graphs`     — computation DAGs, red-blue pebble game, exact optimal pebbling
* :mod:`attnio.algorithms` — NumPy reference passes, two-level memory, tiled algorithms

The root holds only :mod:`attnio.cli`, :mod:`attnio.results` (Proved / Refuted / Undecided)
and :mod:`attnio.exceptions`.
"""

from attnio.exceptions import *  # noqa: F401,F403
from attnio.exceptions import __all__ as _exceptions_all
from attnio.results import *  # noqa: F401,F403
from attnio.results import __all__ as _results_all

#: The one source of the version (pyproject.toml reads it: ``[tool.setuptools.dynamic]``).
__version__ = "0.2.0"
__all__ = ["__version__", *_results_all, *_exceptions_all]
