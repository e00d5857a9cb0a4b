r"""Caps on the exponents, root indices and numbers of a statement, checked before any term is built.

A statement is short text, but ``n**100000000`` asks z3 for a polynomial of degree 10⁸,
``root(n, 10**9)`` for an auxiliary ``r`` with ``r**(10**9) = n`` (and the referee for
minimal polynomials of that degree), ``10**10**10`` for a number of 33 billion bits and
``1e100000000`` for one of 330 million. None of that can be decided in a time limit, and all
of it grows memory while it is tried. So every term is checked as it is built:

========================  =====================  ==============================================
what                      cap                    why
========================  =====================  ==============================================
integer exponent ``p``    :data:`MAX_EXPONENT`   z3's nonlinear arithmetic works on polynomials
of a power ``b**p`` (and                         of that degree; far below 1000 it stops
the numerator of                                 answering within any time limit (attnio's own
``b**(p/q)``)                                    claims use exponents up to 4)
root index ``q`` of       :data:`MAX_ROOT_INDEX` a root is a z3 variable ``r`` with
``root(b, q)`` and of                            ``r**q = b``; z3's models are then algebraic
``b**(p/q)``                                     numbers of degree up to ``q``, which the
                                                 referee checks with minimal polynomials of
                                                 that degree (degree 100: about a second;
                                                 degree 256: over a minute)
a constant written in     :data:`MAX_CONSTANT_BITS`  the referee evaluates constants exactly
the statement                                    (``exact_eval.MAX_EXACT_BITS``, the same
(``(10**500)**1000``)                            100,000 bits)
a number literal          :data:`MAX_LITERAL_DIGITS` the cap of every integer option of attnio
(``1e308``, ``123...``)   digits (numerator and  (:data:`attnio.validation.MAX_INT_DIGITS`)
                          denominator)
========================  =====================  ==============================================

Exponents are checked by value, whatever their form (``n**(2*500)``, ``n**(10**3)``), and a
constant exponent is stored as the exact rational it is (``n**(1/3)`` has the exponent
``Rational(1, 3)``, so that the SMT bridge and the definedness rules see a rational
exponent). The checks run inside the parser (:func:`checked_namespace`: sympy's parser builds
every node through ``Pow``, ``Add``, ``Mul`` and the functions of the namespace, innermost
first, so an oversized node is refused before anything is built from it), and again, as a
defence, where terms are built from an exponent: the SMT bridge refuses an exponent or a root
index beyond the caps (:class:`~attnio.exceptions.TranslationError`) and the referee does not
evaluate one (its truth is "unknown"), so a statement built in Python is bounded too.

Examples
--------
>>> validate_number_literals("n <= 1e308*10")          # 10**309 exactly: 310 digits, accepted
>>> validate_number_literals("n <= 1e1000")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: number 1e1000 has 1001 digits; numbers in a STATEMENT have at most 500 digits
>>> validate_number_literals("Eq(x, 1e3e3)")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: number '1e3e3' is not a decimal number: write digits with an optional fraction and exponent (12, 0.5, 1.5e-3); hexadecimal, underscores and complex numbers (1j) are not accepted
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.validation import MAX_INT_DIGITS

__all__ = ["MAX_EXPONENT", "MAX_ROOT_INDEX", "MAX_CONSTANT_BITS", "MAX_LITERAL_DIGITS",
           "validate_number_literals", "validate_power", "checked_namespace", "exponent_within_caps",
           "exact_constant"]

#: Largest |p| of an integer exponent ``b**p``, and of the numerator of ``b**(p/q)``.
MAX_EXPONENT = 1000
#: Largest root index ``q`` (``root(b, q)``, ``b**(p/q)`` in lowest terms).
MAX_ROOT_INDEX = 100
#: Largest size, in bits, of a constant written in a statement (numerator plus denominator).
MAX_CONSTANT_BITS = 100_000
#: Largest number of digits of a number literal's numerator or denominator.
MAX_LITERAL_DIGITS = MAX_INT_DIGITS

_NUMBER_START = re.compile(r"(?<![A-Za-z0-9_.])(?:\d|\.\d)")
_DECIMAL = re.compile(r"(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")
# a number and whatever sticks to it: letters, digits, _, dots, a sign right after an e/E
_NUMBER_WORD = re.compile(r"(?:[A-Za-z0-9_.]|(?<=[eE])[+-])+")
_MAX_EXPONENT_DIGITS = 6


def validate_number_literals(text: str) -> None:
    """Refuse a number literal that is not a plain decimal, or whose exact value has more than
    :data:`MAX_LITERAL_DIGITS` digits in its numerator or denominator (``1e308`` is
    ``10**308`` exactly, 309 digits; ``1e-3`` is ``1/1000``)."""
    for start in _NUMBER_START.finditer(text):
        pos = start.start()
        word = _NUMBER_WORD.match(text, pos)
        literal = word.group() if word else text[pos]
        match = _DECIMAL.fullmatch(literal)
        if match is None or not (match.group(1) or match.group(2)):
            raise InvalidInputError(
                f"number {literal[:40]!r} is not a decimal number: write digits with an "
                "optional fraction and exponent (12, 0.5, 1.5e-3); hexadecimal, underscores "
                "and complex numbers (1j) are not accepted")
        whole, fraction, exponent_text = match.group(1), match.group(2) or "", match.group(3)
        if exponent_text and len(exponent_text.lstrip("+-").lstrip("0")) > _MAX_EXPONENT_DIGITS:
            raise InvalidInputError(f"number {literal[:40]} has an exponent of more than "
                                    f"{_MAX_EXPONENT_DIGITS} digits; numbers in a STATEMENT have "
                                    f"at most {MAX_LITERAL_DIGITS} digits")
        shift = int(exponent_text or 0) - len(fraction)      # value = digits * 10**shift
        digits = (whole + fraction).lstrip("0")
        numerator = len(digits) + max(shift, 0)
        denominator = 1 + max(-shift, 0)
        if max(numerator, denominator) > MAX_LITERAL_DIGITS:
            raise InvalidInputError(f"number {literal[:40]} has {max(numerator, denominator)} "
                                    f"digits; numbers in a STATEMENT have at most "
                                    f"{MAX_LITERAL_DIGITS} digits")


# ----------------------------------------------------------------------------- constants
def _bits(e: sp.Basic) -> int:
    """An upper estimate of the bits of the exact value of the constant ``e`` (numerator and
    denominator), without computing it. Sums and products: the sum of their parts (+1 per
    part); a power with a rational exponent ``p/q``: the base's bits times ``|p|//q + 1``; a
    function or constant symbol: its arguments' bits + 2 (sympy keeps ``exp(1000)`` and ``pi``
    symbolic, it does not compute their digits)."""
    if e.is_Integer:
        return int(e).bit_length()
    if e.is_Rational:
        return int(e.p).bit_length() + int(e.q).bit_length()
    if isinstance(e, sp.Pow):
        base, exponent = e.args
        value = _rational(exponent)
        if value is None:
            return _bits(base) + _bits(exponent) + 2
        return _bits(base) * (abs(value.numerator) // value.denominator + 1)
    return sum(_bits(a) + 1 for a in e.args) + 2


def _rational(e: sp.Basic) -> Fraction | None:
    """The exact value of a constant built from rationals with ``+``, ``×`` and integer powers
    (``Mul(1, Pow(3, -1))`` is 1/3), or None for anything else (``pi``, ``sqrt(2)``, a symbol).
    Only called on terms whose size :func:`_bits` bounds."""
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_rational(a) for a in e.args]
        if any(p is None for p in parts):
            return None
        out = Fraction(0) if isinstance(e, sp.Add) else Fraction(1)
        for p in parts:
            assert p is not None
            out = out + p if isinstance(e, sp.Add) else out * p
        return out
    if isinstance(e, sp.Pow):
        base, exponent = (_rational(a) for a in e.args)
        if base is None or exponent is None or exponent.denominator != 1:
            return None
        if base == 0 and exponent < 0:
            return None                   # 0**-1: undefined, not a number
        return base ** int(exponent)
    return None


def exact_constant(e: sp.Basic) -> Fraction | None:
    """The exact value of a rational constant written with ``+``, ``×`` and integer powers
    (``10**200``, ``Mul(1, Pow(3, -1))``) when it has at most :data:`MAX_CONSTANT_BITS` bits,
    else None (a symbol, ``pi``, ``sqrt(2)``, or a constant too large to compute).

    >>> exact_constant(sp.Pow(10, 200, evaluate=False)) == 10**200
    True
    >>> exact_constant(sp.Pow(2, 10**9, evaluate=False)) is None, exact_constant(sp.sqrt(2))
    (True, None)
    """
    if e.free_symbols or _bits(e) > MAX_CONSTANT_BITS:
        return None
    return _rational(e)


def exponent_within_caps(p: int, q: int) -> bool:
    """Is ``p/q`` (lowest terms, ``q ≥ 1``) an exponent the caps allow?"""
    return abs(p) <= MAX_EXPONENT and q <= MAX_ROOT_INDEX


def validate_power(base: sp.Basic, exponent: sp.Basic) -> sp.Basic:
    """The exponent of ``base**exponent`` as it should be stored: an exact Rational when it
    is a rational constant, else unchanged. Raises InvalidInputError for an exponent beyond
    :data:`MAX_EXPONENT` / :data:`MAX_ROOT_INDEX`, or a constant power of more than
    :data:`MAX_CONSTANT_BITS` bits.

    >>> n = sp.Symbol("n")
    >>> validate_power(n, sp.Mul(1, sp.Pow(3, -1, evaluate=False), evaluate=False))
    1/3
    >>> validate_power(n, sp.Pow(10, 9, evaluate=False))
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: exponent 1000000000 of n**(10**9) is above the cap 1000 (MAX_EXPONENT)
    """
    if exponent.free_symbols:
        return exponent
    shown = (f"{_short(base)}" if base.is_Atom else f"({_short(base)})") + \
        f"**({_short(exponent)})"
    if _bits(exponent) > MAX_CONSTANT_BITS:
        raise InvalidInputError(f"the exponent of {shown} has more than {MAX_CONSTANT_BITS} "
                                "bits (MAX_CONSTANT_BITS)")
    value = _rational(exponent)
    if value is None:       # pi, sqrt(2), log(3), ...: no term is built from its digits
        return exponent
    if abs(value.numerator) > MAX_EXPONENT:
        raise InvalidInputError(f"exponent {_short_number(value)} of {shown} is above the cap "
                                f"{MAX_EXPONENT} (MAX_EXPONENT)")
    if value.denominator > MAX_ROOT_INDEX:
        raise InvalidInputError(f"root index {value.denominator} of {shown} (exponent "
                                f"{_short_number(value)}) is above the cap {MAX_ROOT_INDEX} "
                                "(MAX_ROOT_INDEX)")
    stored = sp.Rational(value.numerator, value.denominator)
    if not base.free_symbols:
        size = _bits(base) * (abs(value.numerator) // value.denominator + 1)
        if size > MAX_CONSTANT_BITS:
            raise InvalidInputError(f"the constant {shown} has about {size} bits; constants in "
                                    f"a STATEMENT have at most {MAX_CONSTANT_BITS} "
                                    "(MAX_CONSTANT_BITS)")
    return stored


def _check_tree(e: Any) -> None:
    """Every power inside ``e`` (a function's evaluated result) within the caps."""
    if not isinstance(e, sp.Basic):
        return
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Pow):
            validate_power(*node.args)
        elif node.is_Rational and max(_bits(node), 0) > MAX_CONSTANT_BITS:
            raise InvalidInputError(f"a constant of {_bits(node)} bits is above the cap "
                                    f"{MAX_CONSTANT_BITS} (MAX_CONSTANT_BITS)")


def _short(e: object, width: int = 40) -> str:
    text = str(e)
    return text if len(text) <= width else text[: width - 1] + "…"


def _short_number(value: Fraction) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} characters)"


# ------------------------------------------------------------------------- the namespace
def _pow(base: Any, exponent: Any, evaluate: bool = False) -> sp.Basic:
    base, exponent = sp.sympify(base), sp.sympify(exponent)
    return sp.Pow(base, validate_power(base, exponent), evaluate=False)


def _arguments_then_result(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a sympy function that evaluates its arguments) with its arguments checked
    first and its result after (``root(n, 10**9)`` builds ``n**(1/10**9)``)."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        if name in ("Min", "Max") and not args:
            raise InvalidInputError(f"{name}() has no argument: {name} needs at least one")
        for a in args:
            _check_tree(a)
        if name == "root" and len(args) >= 2:
            index = _rational(sp.sympify(args[1]))
            if index is not None and not (index.denominator == 1
                                          and 0 < abs(index.numerator) <= MAX_ROOT_INDEX):
                raise InvalidInputError(f"root index {_short_number(index)} of "
                                        f"root({_short(args[0])}, …) must be a nonzero integer "
                                        f"of at most {MAX_ROOT_INDEX} (MAX_ROOT_INDEX)")
        out = fn(*args, **kwargs)
        _check_tree(out)
        return out
    checked.__name__ = name
    return checked


def checked_namespace(functions: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
    """``functions`` (the sympy functions of a statement that evaluate their arguments:
    ``sqrt``, ``root``, ``Min``, ``floor``, ``Rational``, ...) each wrapped — arguments and
    result within the caps, ``Min()`` / ``Max()`` refused — plus ``Pow``, the node sympy's
    parser builds for ``**``, replaced by a checked one. For the ``global_dict`` of
    ``parse_expr``; relations and connectives are built unevaluated and need no wrapper."""
    out = {name: _arguments_then_result(name, fn) for name, fn in functions.items()}
    out["Pow"] = _pow
    return out
