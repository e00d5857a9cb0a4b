r"""Certified lower bounds on the red–blue pebbling I/O of any DAG, each with a checker.

Every route returns a :class:`BoundRecord` — ``(route, value, applies, why_not,
certificate)`` with ``value`` an exact ``int`` — such that, for the game of
:mod:`attnio.graphs.game` (inputs = sources, start blue; outputs end blue; recomputation
allowed *or* one-shot; schedules of any length),

.. math:: \text{value} \;\le\; Q(G, M)

whenever ``applies`` is true (a route that does not apply has value 0 and says why). Each
route has an independent checker (:func:`check_certificate`) that re-verifies its
certificate from the DAG alone and returns :class:`~attnio.results.Proved` or
:class:`~attnio.results.Refuted`. The proofs are written out in notes/lower_bounds.md.

Notation: :math:`I` = inputs (sources); :math:`O` = outputs (``G.graph["outputs"]``, else the
sinks); :math:`O^\ast = O \setminus I` (an output that is an input is blue from the start and
costs nothing); the *must-compute* set :math:`N` = :math:`O^\ast` and its non-input ancestors
(every schedule computes each of them at least once: an output needs a blue pebble, which on a
non-input only a write of a red pebble — and so a computation — gives, and computing a vertex
needs its predecessors red); *needed inputs* :math:`I_N` = inputs with a successor in N.

Routes
------
One module per route family; each module's docstring holds its routes' written proofs next to
the code (the long form is notes/lower_bounds.md):

* ``compulsory``, ``hong-kung``, ``per-part: <name>`` — :mod:`.counting`
  (folklore / Hong–Kung 1981 Lemma 3.1 = Saha–Ye arXiv 2402.07443 Lemma 2.8 / the per-part
  lemmas of :mod:`attnio.proofs.explicit_bounds`);
* ``spill-windows`` (new; RECONSTRUCTED) — :mod:`.windows`;
* ``saturation-windows`` (new) — :mod:`.saturation`;
* ``sub-dag-exact`` (new) — :mod:`.subdag`;
* ``sub-dag-lp`` (new) — :mod:`.covering`: sub-DAG optima combined by LP duality (HiGHS),
  exact rational weights in the certificate.

:class:`BoundRecord`, :class:`Route` and :func:`must_compute` are in :mod:`.records`; each
route module defines its :class:`Route` record (its compute, its checker, its cost class, its
source, its one-line description), and :mod:`.registry` collects them in :data:`ROUTES`. This
package's :mod:`.combined` runs every registered route (:func:`lower_bounds`), picks the best
and dispatches each record to its route's checker (:func:`check_certificate`) — by registry
lookup, never by matching route names. Every name keeps its import path
``attnio.graphs.lower_bounds``: this ``__init__`` re-exports them lazily (:mod:`attnio.lazy`),
so that :mod:`.explicit` — closed forms that ``attnio bounds`` needs — imports neither networkx
nor the searching routes.

Examples
--------
>>> from attnio.graphs.dags import matmul_dag
>>> from attnio.graphs.lower_bounds import best_bound, check_certificate, lower_bounds
>>> G = matmul_dag(2, 2, 2)
>>> records = lower_bounds(G, 3)
>>> [(r.route, r.value) for r in records if r.applies]     # exact optimum Q(G, 3) = 25
[('compulsory', 12), ('hong-kung', 3), ('per-part: matmul products', 3), ('per-part: Saha-Ye level-1', 0), ('spill-windows', 22), ('saturation-windows', 22), ('sub-dag-exact', 21), ('sub-dag-lp', 19)]
>>> best_bound(records).route
'spill-windows'
>>> all(check_certificate(G, 3, r).proved for r in records)
True
"""

from typing import TYPE_CHECKING

from attnio.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, ("combined",))

if TYPE_CHECKING:
    from attnio.graphs.lower_bounds.combined import *  # noqa: F403
