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

from attnio.graphs.baseline import *  # noqa: F401,F403
from attnio.graphs.baseline import __all__ as _baseline_all
from attnio.graphs.dagio import *  # noqa: F401,F403
from attnio.graphs.dagio import __all__ as _dagio_all
from attnio.graphs.dags import *  # noqa: F401,F403
from attnio.graphs.dags import __all__ as _dags_all
from attnio.graphs.dotio import *  # noqa: F401,F403
from attnio.graphs.dotio import __all__ as _dotio_all
from attnio.graphs.engines import *  # noqa: F401,F403
from attnio.graphs.engines import __all__ as _engines_all
from attnio.graphs.exact import *  # noqa: F401,F403
from attnio.graphs.exact import __all__ as _exact_all
from attnio.graphs.exact_z3 import *  # noqa: F401,F403
from attnio.graphs.exact_z3 import __all__ as _exact_z3_all
from attnio.graphs.game import *  # noqa: F401,F403
from attnio.graphs.game import __all__ as _game_all
from attnio.graphs.indexed_dag import *  # noqa: F401,F403
from attnio.graphs.indexed_dag import __all__ as _indexed_dag_all
from attnio.graphs.partitions import *  # noqa: F401,F403
from attnio.graphs.partitions import __all__ as _partitions_all
from attnio.graphs.pebble_result import *  # noqa: F401,F403
from attnio.graphs.pebble_result import __all__ as _pebble_result_all
from attnio.graphs.schedules import *  # noqa: F401,F403
from attnio.graphs.schedules import __all__ as _schedules_all

__all__ = [
    *_dags_all, *_game_all, *_engines_all, *_pebble_result_all, *_indexed_dag_all,
    *_exact_all, *_exact_z3_all, *_baseline_all, *_schedules_all, *_dagio_all, *_dotio_all,
    *_partitions_all,
]
