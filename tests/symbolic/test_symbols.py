"""Tests for attnio.symbolic.symbols: assumptions declared once, exact validation."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic import symbols as S


def test_assumptions() -> None:
    for s in (S.n, S.d, S.M, S.m, S.k, S.p):
        assert s.is_positive and s.is_integer
    for s in (S.Z_in, S.Z_QK):
        assert s.is_positive and s.is_integer is None


def test_symbols_are_the_same_objects_everywhere() -> None:
    from attnio.symbolic import catalogue

    syms = set().union(*(b.free_symbols for b in catalogue.CATALOGUE))
    assert syms <= set(S.SIZE_SYMBOLS)


def test_exponent_of_covers_every_size_symbol() -> None:
    assert set(S.EXPONENT_OF) == set(S.SIZE_SYMBOLS)
    assert S.EXPONENT_OF[S.d] == 1


@pytest.mark.parametrize("value, expected", [(3, sp.Integer(3)), (sp.Integer(5), sp.Integer(5))])
def test_validate_integer(value: object, expected: sp.Integer) -> None:
    got = S.validate_value(S.n, value)
    assert got == expected and isinstance(got, sp.Integer)


def test_validate_rational_for_Z() -> None:
    assert S.validate_value(S.Z_in, Fraction(3, 2)) == sp.Rational(3, 2)


@pytest.mark.parametrize("symbol, value, match", [
    (S.M, 0, "M=0 must be a positive integer"),
    (S.n, -4, "n=-4 must be a positive integer"),
    (S.d, 2.5, r"d=2.5 must be a positive integer \(floats are not exact\)"),
    (S.d, Fraction(1, 2), "d=1/2 must be a positive integer"),
    (S.d, True, "d=True must be a positive integer"),
    (S.Z_QK, "7", "Z_QK='7' must be a positive rational"),
])
def test_validate_rejects(symbol: sp.Symbol, value: object, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        S.validate_value(symbol, value)


def test_symbol_by_name() -> None:
    assert S.symbol_by_name("M") is S.M
    with pytest.raises(InvalidInputError, match="unknown size symbol 'N'"):
        S.symbol_by_name("N")
