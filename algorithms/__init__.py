"""attnio.algorithms — reference attention passes, the two-level memory, tiled algorithms, counts.

Proof map (module → what it implements):

* :mod:`~attnio.algorithms.reference` — untiled float64 forward/backward (masks included) and
  Alman–Song's dL/dX = A1ᵀ·p·A2, the numerical ground truth.
* :mod:`~attnio.algorithms.masks` — mask specifications (full, causal, window, block-sparse,
  arbitrary), Z_in / Z_QK of the sparse class bound, tile occupancy, ``--mask`` parsing.
* :mod:`~attnio.algorithms.memory` — :class:`TwoLevelMemory`: slow arrays, ≤ M fast words,
  exact read/write/FLOP/peak counters, :class:`~attnio.exceptions.CacheOverflowError`.
* :mod:`~attnio.algorithms.primitives` — block ranges, TileMul, streaming passes.
* :mod:`~attnio.algorithms.standard`, :mod:`~attnio.algorithms.flash`,
  :mod:`~attnio.algorithms.square_tiling`, :mod:`~attnio.algorithms.small_cache` — the
  algorithms (FlashAttention Alg. 0/1/3/4, FA-2, Saha–Ye Alg. 1, Algorithm 6 RECONSTRUCTED).
* :mod:`~attnio.algorithms.resident_fused` — ``fused-resident`` (ours): small-cache-fused's
  computation with a resident-block first pass.
* :mod:`~attnio.algorithms.split_backward` — ``flash2-split`` (ours): FA-2's backward with
  dQ out of the KV-outer pass (its own closed form and exact block search).
* :mod:`~attnio.algorithms.counts` — closed-form counts equal to the executed ones;
  :mod:`~attnio.algorithms.masked_counts` — the same for masked runs.
* :mod:`~attnio.algorithms.executors` — one executor per (algorithm, pass), one signature.
* :mod:`~attnio.algorithms.registry` — one record per algorithm (passes, bounds, labels,
  colours, counters, executors, block-size rules, selections): the one list of algorithms.
* :mod:`~attnio.algorithms.simulation` — :func:`simulate`, :func:`count`,
  :func:`measured_crossover`; :mod:`~attnio.commands.simulate` — ``attnio simulate``.

>>> from attnio.algorithms import simulate, ALGORITHMS
>>> simulate("flash1", "backward", 64, 8, 256).io > 0 and "small-cache" in ALGORITHMS
True
"""

from typing import TYPE_CHECKING

from attnio.lazy import lazy_exports

# Lazy (attnio/lazy.py): importing one module of the room does not import them all (a command
# starts at once, issue 40). The names, ``__all__`` and ``dir()`` are those of the modules below.
__getattr__, __dir__ = lazy_exports(__name__, (
    "reference", "memory", "primitives", "standard", "flash", "square_tiling", "small_cache",
    "counts", "simulation", "masks",
))

if TYPE_CHECKING:
    from attnio.algorithms.counts import *  # noqa: F403
    from attnio.algorithms.flash import *  # noqa: F403
    from attnio.algorithms.masks import *  # noqa: F403
    from attnio.algorithms.memory import *  # noqa: F403
    from attnio.algorithms.primitives import *  # noqa: F403
    from attnio.algorithms.reference import *  # noqa: F403
    from attnio.algorithms.simulation import *  # noqa: F403
    from attnio.algorithms.small_cache import *  # noqa: F403
    from attnio.algorithms.square_tiling import *  # noqa: F403
    from attnio.algorithms.standard import *  # noqa: F403
