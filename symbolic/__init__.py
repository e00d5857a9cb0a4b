"""attnio.symbolic — the I/O bounds of attention as sympy expressions, and what follows from them.

=============  ===================================================================
module         holds
=============  ===================================================================
symbols        n, d, M, Z_in, Z_QK, m, k, p (with assumptions); exponent symbols
catalogue      :class:`Bound` and :data:`CATALOGUE` (paper Thms 1.1, 4.1-4.5, Saha-Ye,
               FlashAttention, Hong-Kung and explicit matmul bounds)
evaluate       catalogue values at a concrete (n, d, M): :func:`catalogue_values`
crossovers     branch equalities solved with sympy; which branch wins on each side
dominance      growth exponents in base d and exact dominance decisions (z3 LRA)
checks         the symbolic claims and their false twins, as verdict-returning checks
devices        the device table (:func:`find_device`); the advisor that uses it is
               :mod:`attnio.algorithms.advisor`
=============  ===================================================================

>>> from attnio.symbolic import crossover, get_bound
>>> crossover(get_bound("bwd.tight")).solution
d**2
"""

from typing import TYPE_CHECKING

from attnio.lazy import lazy_exports

# Lazy (attnio/lazy.py): importing one module of the room does not import them all (a command
# starts at once, issue 40). The names, ``__all__`` and ``dir()`` are those of the modules below.
__getattr__, __dir__ = lazy_exports(__name__, (
    "symbols", "catalogue", "evaluate", "crossovers", "dominance", "checks",
))

if TYPE_CHECKING:
    from attnio.symbolic.catalogue import *  # noqa: F403
    from attnio.symbolic.checks import *  # noqa: F403
    from attnio.symbolic.crossovers import *  # noqa: F403
    from attnio.symbolic.dominance import *  # noqa: F403
    from attnio.symbolic.evaluate import *  # noqa: F403
    from attnio.symbolic.symbols import *  # noqa: F403
