r"""The size symbols of attnio, declared once, with their assumptions.

Every bound of the catalogue (:mod:`attnio.symbolic.catalogue`) is a sympy expression in these
symbols; nothing else in attnio creates a symbol named ``n``, ``d`` or ``M``.

==========  =========================  ==============================================
symbol      assumptions                meaning
==========  =========================  ==============================================
``n``       positive integer           sequence length (Saha & Ye write :math:`N`)
``d``       positive integer           head dimension
``M``       positive integer           fast-memory (cache / SRAM) size in words
``Z_in``    positive                   nonzeros of the input matrices (sparse bound)
``Z_QK``    positive                   nonzeros of the score matrix :math:`QK^\top`
``m,k,p``   positive integers          matrix product :math:`(m\times k)\cdot(k\times p)`
==========  =========================  ==============================================

Hong & Kung and Saha & Ye write the third matmul dimension as ``n``; attnio uses ``p`` so that
it never collides with the sequence length.

The exponent symbols of :mod:`attnio.symbolic.dominance` (``alpha`` for ``M = d**alpha``,
``beta`` for ``n = d**beta``, ...) are real and are declared here too.

Examples
--------
>>> n.is_integer, n.is_positive, Z_in.is_integer
(True, True, None)
>>> validate_value(M, 64)
64
>>> validate_value(Z_in, Fraction(7, 2))
7/2
>>> validate_value(M, 0)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: M=0 must be a positive integer
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Integral

import sympy as sp

from attnio.exceptions import InvalidInputError

__all__ = [
    "n", "d", "M", "Z_in", "Z_QK", "m", "k", "p",
    "alpha", "beta", "zeta_in", "zeta_qk", "mu", "kappa", "rho",
    "SIZE_SYMBOLS", "EXPONENT_OF", "symbol_by_name", "validate_value",
]

n, d, M = sp.symbols("n d M", positive=True, integer=True)
Z_in, Z_QK = sp.symbols("Z_in Z_QK", positive=True)
m, k, p = sp.symbols("m k p", positive=True, integer=True)

#: Exponents in base d: M = d**alpha, n = d**beta, Z_in = d**zeta_in, Z_QK = d**zeta_qk,
#: m = d**mu, k = d**kappa, p = d**rho.
alpha, beta, zeta_in, zeta_qk, mu, kappa, rho = sp.symbols(
    "alpha beta zeta_in zeta_qk mu kappa rho", real=True
)

SIZE_SYMBOLS: tuple[sp.Symbol, ...] = (n, d, M, Z_in, Z_QK, m, k, p)

#: The exponent of each size symbol in base d (d itself has exponent 1).
EXPONENT_OF: dict[sp.Symbol, sp.Expr] = {
    d: sp.Integer(1), n: beta, M: alpha, Z_in: zeta_in, Z_QK: zeta_qk, m: mu, k: kappa, p: rho,
}


def symbol_by_name(name: str) -> sp.Symbol:
    """Return the size symbol called ``name``.

    Raises
    ------
    InvalidInputError
        If ``name`` is not one of ``n, d, M, Z_in, Z_QK, m, k, p``.

    Examples
    --------
    >>> symbol_by_name("Z_QK")
    Z_QK
    """
    for s in SIZE_SYMBOLS:
        if s.name == name:
            return s
    valid = ", ".join(s.name for s in SIZE_SYMBOLS)
    raise InvalidInputError(f"unknown size symbol {name!r}; valid symbols: {valid}")


def validate_value(symbol: sp.Symbol, value: object) -> sp.Rational:
    """Convert ``value`` to an exact sympy number that satisfies ``symbol``'s assumptions.

    Parameters
    ----------
    symbol : sympy.Symbol
        One of :data:`SIZE_SYMBOLS`.
    value : int, fractions.Fraction or sympy Rational
        Floats are refused: every evaluation in attnio is exact.

    Returns
    -------
    sympy.Integer or sympy.Rational

    Raises
    ------
    InvalidInputError
        If ``value`` is not exact, not positive, or not an integer where the symbol is one.

    Examples
    --------
    >>> validate_value(n, sp.Integer(8))
    8
    >>> validate_value(d, 2.0)
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: d=2.0 must be a positive integer (floats are not exact)
    """
    rule = "a positive integer" if symbol.is_integer else "a positive rational"
    if isinstance(value, bool):
        raise InvalidInputError(f"{symbol}={value!r} must be {rule}")
    if isinstance(value, Integral):
        exact: sp.Rational = sp.Integer(int(value))
    elif isinstance(value, Fraction):
        exact = sp.Rational(value.numerator, value.denominator)
    elif isinstance(value, sp.Rational):
        exact = value
    elif isinstance(value, float):
        raise InvalidInputError(f"{symbol}={value!r} must be {rule} (floats are not exact)")
    else:
        raise InvalidInputError(f"{symbol}={value!r} must be {rule}")
    if not exact > 0:
        raise InvalidInputError(f"{symbol}={exact} must be {rule}")
    if symbol.is_integer and not exact.is_integer:
        raise InvalidInputError(f"{symbol}={exact} must be {rule}")
    return exact
