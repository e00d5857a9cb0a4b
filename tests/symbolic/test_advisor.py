"""Tests for attnio.algorithms.advisor: the device table and the regime advice."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.algorithms.advisor import (
    DEVICES,
    DTYPE_BYTES,
    advise,
    classify_regime,
    get_device,
    predicted_io_ratio,
)
from attnio.exceptions import InvalidInputError


def test_table_has_sources_and_required_devices() -> None:
    expected = {"a100", "h100", "h200", "rtx3090", "rtx4090", "gtx1060", "spr-l1d", "spr-l2"}
    assert expected <= set(DEVICES)
    for dev in DEVICES.values():
        assert dev.source and dev.bytes_per_unit >= dev.bytes_per_block > 0


def test_device_bytes() -> None:
    assert get_device("a100").bytes_per_unit == 164 * 1024
    assert get_device("H100").bytes_per_unit == 228 * 1024
    assert get_device("gtx1060").bytes_per_block == 48 * 1024
    assert get_device("spr-l2").bytes_per_unit == 2 * 1024 * 1024
    assert DTYPE_BYTES == {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}


@pytest.mark.parametrize("device, d, dtype, scope, M, regime, algorithm", [
    ("a100", 128, "bf16", "sm", 83968, "large-cache", "flash-attention"),
    ("h100", 256, "fp32", "sm", 58368, "small-cache", "small-cache"),
    ("gtx1060", 128, "fp32", "block", 12288, "small-cache", "small-cache"),
    ("gtx1060", 128, "fp32", "sm", 24576, "large-cache", "flash-attention"),
    ("spr-l1d", 64, "fp16", "sm", 24576, "large-cache", "flash-attention"),
    ("rtx4090", 128, "fp8", "sm", 102400, "large-cache", "flash-attention"),
])
def test_advise(device: str, d: int, dtype: str, scope: str, M: int, regime: str,
                algorithm: str) -> None:
    a = advise(device, d, dtype, scope=scope)  # type: ignore[arg-type]
    assert (a.M, a.regime, a.recommended_algorithm) == (M, regime, algorithm)
    assert type(a.M) is int and a.crossover_M == d * d
    assert sp.simplify(a.branch_ratio - sp.Integer(d) / sp.sqrt(M)) == 0


def test_crossover_regime() -> None:
    assert classify_regime(64 * 64, 64) == ("crossover", 4096)
    # fp32 on 16 KiB with d = 64: M = 4096 = d**2
    assert classify_regime(16 * 1024 // 4, 64)[0] == "crossover"


def test_io_ratio_limit_and_finite_n() -> None:
    # n -> oo: (d**2/M) / (d/sqrt(M) + 1); d = 16, M = 64: 4 / 3
    assert predicted_io_ratio(64, 16) == sp.Rational(4, 3)
    finite = predicted_io_ratio(64, 16, 1024)
    assert finite < sp.Rational(4, 3) and not finite.has(sp.Float)


@pytest.mark.parametrize("kwargs, match", [
    (dict(device="tpu", d=128, dtype="bf16"), "device='tpu' is unknown; valid devices: a100"),
    (dict(device="a100", d=128, dtype="int4"), "dtype='int4' is unknown; valid dtypes"),
    (dict(device="a100", d=0, dtype="bf16"), "d=0 must be a positive integer"),
    (dict(device="a100", d=128, dtype="bf16", scope="chip"), "scope='chip'"),
    (dict(device="a100", d=128, dtype="bf16", n=-1), "n=-1 must be a positive integer"),
])
def test_advise_rejects(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        advise(**kwargs)
