"""attnio.graphs — computation DAGs, the red–blue pebble game, exact optimal pebbling,
algorithm schedules as pebblings.

Modules: :mod:`~attnio.graphs.dags` (builders), :mod:`~attnio.graphs.game` (rules and
validator), :mod:`~attnio.graphs.engines` (``solve(G, M, method=...)``: the one slot for the
exact engines below), :mod:`~attnio.graphs.pebble_result` (their one result type),
:mod:`~attnio.graphs.indexed_dag` (the relevant sub-DAG, integer-indexed),
:mod:`~attnio.graphs.exact` (A* solver), :mod:`~attnio.graphs.exact_compiled` (the same
search compiled, numba), :mod:`~attnio.graphs.exact_z3`
(time-indexed z3 model), :mod:`~attnio.graphs.baseline` (plain search, the benchmark's
yardstick), :mod:`~attnio.graphs.schedules` (tiled algorithms as pebblings),
:mod:`~attnio.graphs.dagio` (DAG files: JSON, node-link, DOT),
:mod:`~attnio.graphs.dotio` (DOT through pydot), :mod:`~attnio.graphs.partitions` (dominator and
minimum sets, exact S-partitions with z3, the Hong–Kung bound S·(P(G, 2S) − 1)),
:mod:`~attnio.commands.pebble` (``attnio pebble``).
"""

from typing import TYPE_CHECKING

from attnio.lazy import lazy_exports

# Lazy (attnio/lazy.py): importing one module of the room does not import them all (a command
# starts at once, issue 40). The names, ``__all__`` and ``dir()`` are those of the modules below.
__getattr__, __dir__ = lazy_exports(__name__, (
    "dags", "game", "engines", "pebble_result", "indexed_dag", "exact", "exact_z3", "baseline",
    "schedules", "dagio", "dotio", "partitions",
))

if TYPE_CHECKING:
    from attnio.graphs.baseline import *  # noqa: F403
    from attnio.graphs.dagio import *  # noqa: F403
    from attnio.graphs.dags import *  # noqa: F403
    from attnio.graphs.dotio import *  # noqa: F403
    from attnio.graphs.engines import *  # noqa: F403
    from attnio.graphs.exact import *  # noqa: F403
    from attnio.graphs.exact_z3 import *  # noqa: F403
    from attnio.graphs.game import *  # noqa: F403
    from attnio.graphs.indexed_dag import *  # noqa: F403
    from attnio.graphs.partitions import *  # noqa: F403
    from attnio.graphs.pebble_result import *  # noqa: F403
    from attnio.graphs.schedules import *  # noqa: F403
