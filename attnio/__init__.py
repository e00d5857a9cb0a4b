"""attnio — the I/O complexity of attention, made checkable by a machine.

Rooms, bottom to top (each imports only the rooms below it; notes/extending.md, "The floors"):

* the root modules — exceptions, :mod:`attnio.results` (Proved / Refuted / Undecided),
  validation, output channels, safe file writes, progress, interrupts, parallel runs;
* :mod:`attnio.smt`        — the proof kernel, the sympy→z3 bridge, the exact referee, solvers;
* :mod:`attnio.symbolic`   — sympy bound catalogue, crossovers, dominance, devices;
* :mod:`attnio.graphs`     — computation DAGs, red-blue pebble game, exact optimal pebbling,
  certified lower bounds on a DAG;
* :mod:`attnio.algorithms` — NumPy reference passes, two-level memory, tiled algorithms;
* :mod:`attnio.bounds`     — explicit-constant lower bounds at real sizes, the gap table;
* :mod:`attnio.proofs`     — the claims, their registry and runner (``attnio verify``);
* :mod:`attnio.reporting`  — figures and the report;
* :mod:`attnio.cli` and :mod:`attnio.commands` — the ``attnio`` console script.
"""

from attnio.exceptions import *  # noqa: F401,F403
from attnio.exceptions import __all__ as _exceptions_all
from attnio.results import *  # noqa: F401,F403
from attnio.results import __all__ as _results_all

#: The one source of the version (pyproject.toml reads it: ``[tool.setuptools.dynamic]``).
__version__ = "0.2.0"
__all__ = ["__version__", *_results_all, *_exceptions_all]
