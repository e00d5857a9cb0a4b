"""Tests for attnio.symbolic.evaluate: the dense instance and one-call catalogue values."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic.catalogue import CATALOGUE
from attnio.symbolic.evaluate import catalogue_values, default_instance


def test_default_instance_is_dense_QK() -> None:
    inst = default_instance(10, 3, 7)
    assert inst == {"n": 10, "d": 3, "M": 7, "Z_in": 30, "Z_QK": 100, "m": 10, "k": 3, "p": 10}
    assert all(type(v) is int for v in inst.values())


def test_catalogue_values_covers_catalogue() -> None:
    values = catalogue_values(256, 16, 1024)
    assert list(values) == [b.id for b in CATALOGUE]
    for ev in values.values():
        assert not ev.value.has(sp.Float)
        assert isinstance(ev.approx, float)


def test_in_range_flags_follow_the_regime() -> None:
    small = catalogue_values(256, 16, 64)      # M < d**2
    assert small["bwd.small.lower"].in_range and not small["bwd.large.lower"].in_range
    large = catalogue_values(256, 16, 1024)    # M > d**2
    assert large["bwd.large.lower"].in_range and not large["bwd.small.lower"].in_range


def test_dense_sparse_equals_forward_tight_value() -> None:
    values = catalogue_values(64, 8, 32)
    assert sp.simplify(values["sparse.lower"].value - values["fwd.tight"].value) == 0


def test_matmul_hk_at_dense_instance_is_small_cache_forward_branch() -> None:
    values = catalogue_values(64, 8, 32)
    assert sp.simplify(values["matmul.hk.lower"].value - values["fwd.small.lower"].value) == 0


@pytest.mark.parametrize("args, match", [((0, 4, 4), "n=0"), ((4, -1, 4), "d=-1"),
                                         ((4, 4, 1.5), "M=1.5")])
def test_bad_sizes(args: tuple, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        catalogue_values(*args)
