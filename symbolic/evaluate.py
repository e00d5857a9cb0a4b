r"""Catalogue values at concrete sizes, in one call.

The sparse and matrix-multiplication bounds have their own size symbols. At a dense attention
instance :math:`(n, d, M)` attnio evaluates them at

.. math::

   Z_{in} = n d,\qquad Z_{QK} = n^2,\qquad m = p = n,\quad k = d,

i.e. the product :math:`QK^\top` (an :math:`n\times d` by :math:`d\times n` product whose
:math:`n^2` entries are all nonzero). :math:`Z_{in}` and :math:`Z_{QK}` come from the mask
``full`` through :func:`attnio.algorithms.masks.mask_sizes`, the one definition every command
uses (pass ``mask=`` for another mask). :func:`default_instance` returns exactly that substitution;
:func:`catalogue_values` evaluates every catalogue entry there, exactly.

Examples
--------
>>> default_instance(8, 4, 16)["Z_QK"]
64
>>> values = catalogue_values(8, 4, 16)
>>> values["bwd.tight"].value, values["bwd.tight"].in_range
(96, True)
>>> values["bwd.large.lower"].in_range      # M = 16 = d**2 is on the boundary
True
>>> values["matmul.hk.lower"].value
64
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from attnio.symbolic.catalogue import CATALOGUE, Bound
from attnio.symbolic.symbols import M, d, n, validate_value

__all__ = ["Evaluation", "default_instance", "catalogue_values"]


@dataclass(frozen=True)
class Evaluation:
    """One catalogue entry evaluated at one instance.

    ``value`` is exact (sympy Integer, Rational or algebraic); ``in_range`` says whether the
    instance satisfies the entry's admissible range (the value is computed either way);
    ``approx`` is a float for display only.
    """

    bound: Bound
    value: sp.Expr
    in_range: bool

    @property
    def approx(self) -> float:
        """``float(value)``, for display and plots only."""
        return float(self.value)


def default_instance(n_value: int, d_value: int, M_value: int, mask: Any = None) -> dict[str, int]:
    """The substitution for every size symbol at ``(n, d, M)`` (dense unless ``mask`` is given).

    Parameters
    ----------
    n_value, d_value, M_value : int
        Sequence length, head dimension and cache size in words (positive integers).
    mask : attnio.algorithms.masks.Mask, optional
        The attention mask giving Z_in and Z_QK (default: ``Mask.full()``, the dense instance).

    Returns
    -------
    dict
        ``{"n", "d", "M", "Z_in" (= n d), "Z_QK" (= n**2), "m" (= n), "k" (= d), "p" (= n)}``.

    Raises
    ------
    InvalidInputError
        If a value is not a positive integer.

    Examples
    --------
    >>> default_instance(2, 3, 5)
    {'n': 2, 'd': 3, 'M': 5, 'Z_in': 6, 'Z_QK': 4, 'm': 2, 'k': 3, 'p': 2}
    """
    nv, dv, Mv = (int(validate_value(s, v)) for s, v in ((n, n_value), (d, d_value), (M, M_value)))
    # A mask is anything with z_in(n, d) and z_qk(n) (attnio.algorithms.masks.Mask); the
    # catalogue does not depend on how masks are represented. None is the full mask.
    z_in = nv * dv if mask is None else int(mask.z_in(nv, dv))
    z_qk = nv * nv if mask is None else int(mask.z_qk(nv))
    return {"n": nv, "d": dv, "M": Mv, "Z_in": z_in, "Z_QK": z_qk,
            "m": nv, "k": dv, "p": nv}


def catalogue_values(n_value: int, d_value: int, M_value: int,
                     bounds: tuple[Bound, ...] = CATALOGUE, mask: Any = None
                     ) -> dict[str, Evaluation]:
    """Evaluate ``bounds`` (default: the whole catalogue) at the dense instance ``(n, d, M)``.

    Values outside an entry's admissible range are still computed (``in_range=False``), so
    a caller can plot a bound across regimes; use :meth:`Bound.evaluate` to refuse them.

    Raises
    ------
    InvalidInputError
        If a size is not a positive integer.

    Examples
    --------
    >>> catalogue_values(64, 8, 16)["bwd.small.upper"].value
    9216
    """
    instance = default_instance(n_value, d_value, M_value, mask)
    return {
        b.id: Evaluation(bound=b, value=b.evaluate(check_range=False, **instance),
                         in_range=b.in_range(**instance))
        for b in bounds
    }
