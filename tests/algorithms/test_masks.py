"""Tests of attnio.algorithms.masks: Z_in/Z_QK closed forms, tile classes, --mask parsing."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from attnio.algorithms.masks import (
    MAX_PATTERN_BYTES, Mask, floor_sum, mask_sizes, parse_mask, sparse_bound_values,
    stacked_tile_classes, tile_classes, tile_occupancy,
)
from attnio.exceptions import InvalidInputError
from attnio.symbolic.evaluate import default_instance


def _random_masks(rng: np.random.Generator, n: int) -> list[Mask]:
    b = int(rng.integers(1, 8))
    t = -(-n // b)
    return [Mask.full(), Mask.causal(), Mask.window(int(rng.integers(1, n + 3))),
            Mask.block_sparse(b, rng.random((t, t)) < 0.4),
            Mask.from_array(rng.random((n, n)) < 0.2)]


def _walk(mask: Mask, n: int, br: int, bc: int) -> tuple:
    """Independent count: walk the occupancy grid tile by tile."""
    br, bc = min(br, n), min(bc, n)
    occ = tile_occupancy(mask.array(n), br, bc)
    out: dict = {}
    for i, j in zip(*np.nonzero(occ)):
        key = (min(br, n - i * br), min(bc, n - j * bc))
        out[key] = out.get(key, 0) + 1
    return tuple(sorted(out.items()))


def test_closed_forms_equal_counting_the_array() -> None:
    rng = np.random.default_rng(15)
    for _ in range(150):
        n = int(rng.integers(1, 40))
        for mask in _random_masks(rng, n):
            arr = mask.array(n)
            assert mask.z_qk(n) == int(arr.sum())
            assert mask.needed_rows(n) == (int(arr.any(1).sum()), int(arr.any(0).sum()))
            br, bc = int(rng.integers(1, 13)), int(rng.integers(1, 13))
            assert tile_classes(mask, n, br, bc).counts == _walk(mask, n, br, bc)


def test_band_closed_forms_at_larger_sizes_equal_the_walk() -> None:
    rng = np.random.default_rng(4)
    for _ in range(40):
        n = int(rng.integers(50, 400))
        br, bc = int(rng.integers(1, 70)), int(rng.integers(1, 70))
        for mask in (Mask.causal(), Mask.window(int(rng.integers(1, n + 50))), Mask.full()):
            assert tile_classes(mask, n, br, bc).counts == _walk(mask, n, br, bc)


def test_floor_sum_against_brute_force() -> None:
    rng = np.random.default_rng(5)
    for _ in range(500):
        count, m, a, b = (int(x) for x in rng.integers(0, 60, 4))
        m += 1
        assert floor_sum(count, m, a, b) == sum((a * i + b) // m for i in range(count))


def test_false_twin_a_shifted_window_is_caught() -> None:
    """The walk distinguishes window W from W + 1 (so the equality check above can fail)."""
    assert tile_classes(Mask.window(5), 40, 1, 2).counts != _walk(Mask.window(6), 40, 1, 2)


def test_closed_forms_at_a_large_size() -> None:
    n = 1000
    assert Mask.causal().z_qk(n) == n * (n + 1) // 2 == int(Mask.causal().array(n).sum())
    for w in (1, 7, 999, 1000, 5000):
        assert Mask.window(w).z_qk(n) == int(Mask.window(w).array(n).sum())


def test_z_in_is_per_operand_and_counts_only_sparse_operands() -> None:
    pattern = np.array([[True, False], [False, False]])
    dense = Mask.block_sparse(2, pattern)
    assert dense.z_in(4, 3) == 12           # operands dense: n d
    both = Mask.block_sparse(2, pattern, sparse_operands=("Q", "K"))
    assert both.z_in(4, 3) == 6             # only rows 0, 1 of Q and K are needed
    assert Mask.block_sparse(2, pattern, sparse_operands=("Q",)).z_in(4, 3) == 12


def test_full_mask_is_the_dense_instance() -> None:
    inst = default_instance(4096, 64, 4096)
    assert (inst["Z_in"], inst["Z_QK"]) == (4096 * 64, 4096 ** 2)
    causal = default_instance(8, 2, 4, Mask.causal())
    assert (causal["Z_in"], causal["Z_QK"]) == (16, 36)


def test_sparse_lower_bound_pinned_and_equal_to_attnio_bounds() -> None:
    """Regression (issue 15): bounds and the library agree on sparse.lower at (4096, 64, 4096)."""
    library = sparse_bound_values(Mask.full(), 4096, 64, 4096)
    assert library["sparse_lower_bound"]["value"] == "16777216"
    out = subprocess.run([sys.executable, "-m", "attnio", "bounds", "--n", "4096", "--d", "64",
                          "--M", "4096", "--json"], capture_output=True, text=True, check=True)
    bounds = {b["id"]: b for b in json.loads(out.stdout)["bounds"]}
    assert bounds["sparse.lower"]["value"] == library["sparse_lower_bound"]["value"]


def test_sparse_values_for_causal_are_exact() -> None:
    v = sparse_bound_values(Mask.causal(), 16, 2, 16)
    # Z_in = 32, Z_QK = 136: min(32**2/16, 32*sqrt(136)/4) = min(64, 16 sqrt(34)) = 64
    assert (v["Z_in"], v["Z_QK"], v["sparse_lower_bound"]["value"]) == (32, 136, "64")
    assert v["sparse_crossover"]["value"] == "128/17"


def test_mask_sizes_label() -> None:
    assert mask_sizes(Mask.window(4), 10, 2).mask == "window:4"


@pytest.mark.parametrize("text, message", [
    ("window:0", "window W=0"), ("window:-3", "window W=-3"), ("window:x", "window W='x'"),
    ("block:0:p.json", "block size B=0"), ("block:2", "pattern file"), ("nope", "unknown"),
    ("causal:3", "unknown"),
])
def test_parse_mask_rejects_bad_text(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_mask(text)


def test_parse_mask_pattern_files(tmp_path) -> None:
    good = tmp_path / "p.json"
    good.write_text("[[true, false], [false, true]]")
    mask = parse_mask(f"block:3:{good}")
    assert mask.z_qk(5) == 9 + 4 and mask.check(4) == 4
    with pytest.raises(InvalidInputError, match="needs ceil"):
        mask.check(7)
    cases = {"bin.json": b"\xff\xfe[[true]]", "num.json": b"[[1, 0], [0, 1]]",
             "ragged.json": b"[[true], [true, false]]", "text.json": b"not json",
             "empty.json": b"[]", "obj.json": b'{"a": 1}'}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(InvalidInputError) as info:
            parse_mask(f"block:2:{tmp_path / name}")
        assert "\n" not in str(info.value)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_PATTERN_BYTES + 1))
    with pytest.raises(InvalidInputError, match="more than"):
        parse_mask(f"block:2:{big}")
    with pytest.raises(InvalidInputError, match="unreadable"):
        parse_mask(f"block:2:{tmp_path / 'missing.json'}")
    with pytest.raises(InvalidInputError, match="unreadable"):
        parse_mask(f"block:2:{tmp_path}")


def test_array_mask_shape_and_dtype() -> None:
    with pytest.raises(InvalidInputError, match="shape"):
        Mask.from_array(np.ones((2, 3), dtype=bool))
    with pytest.raises(InvalidInputError, match="boolean"):
        Mask.from_array(np.ones((2, 2)))
    with pytest.raises(InvalidInputError, match="must be"):
        Mask.from_array(np.ones((2, 2), dtype=bool)).array(3)
    with pytest.raises(InvalidInputError, match="sparse operand"):
        Mask.full(sparse_operands=("V",))


def test_mask_equality_compares_contents() -> None:
    a = np.eye(3, dtype=bool)
    b = a.copy()
    b[0, 1] = True
    assert Mask.from_array(a) == Mask.from_array(a.copy())
    assert Mask.from_array(a) != Mask.from_array(b)
    assert len({Mask.causal(), Mask.causal(), Mask.window(2), Mask.window(3)}) == 3


def test_a_mask_that_keeps_nothing_has_bound_zero_and_no_crossover() -> None:
    empty = Mask.block_sparse(2, np.zeros((2, 2), dtype=bool), sparse_operands=("Q", "K"))
    v = sparse_bound_values(empty, 4, 2, 8)
    assert (v["Z_in"], v["Z_QK"], v["sparse_lower_bound"]["value"], v["sparse_crossover"]) == \
        (0, 0, "0", None)
    json.dumps(v, allow_nan=False)


def _walk_stacked(mask, n: int, group: int, br: int, bc: int):
    """The stacked g·n × n array walked tile by tile (the definition)."""
    arr = np.tile(mask.array(n), (group, 1))
    nq, br, bc = group * n, min(br, group * n), min(bc, n)
    occ = tile_occupancy(arr, br, bc)
    out: dict = {}
    for i in range(occ.shape[0]):
        for j in range(occ.shape[1]):
            if occ[i, j]:
                key = (min(br, nq - i * br), min(bc, n - j * bc))
                out[key] = out.get(key, 0) + 1
    return tuple(sorted(out.items()))


def test_stacked_tile_classes_equal_walking_the_stacked_array() -> None:
    rng = np.random.default_rng(7)
    checked = 0
    for n in (1, 4, 7, 10):
        masks = [Mask.full(), Mask.causal(), Mask.window(1), Mask.window(3), Mask.window(20),
                 Mask.block_sparse(3, rng.random((-(-n // 3),) * 2) < 0.5),
                 Mask.from_array(rng.random((n, n)) < 0.3)]
        for mask in masks:
            for group in (1, 2, 3):
                for br in (1, 3, 5, 40):
                    for bc in (1, 2, 13):
                        got = stacked_tile_classes(mask, n, group, br, bc).counts
                        assert got == _walk_stacked(mask, n, group, br, bc), \
                            (mask.label, n, group, br, bc)
                        checked += 1
    assert checked == 4 * 7 * 3 * 4 * 3


def test_false_twin_the_unstacked_grid_is_not_the_stacked_one() -> None:
    # counting a group's tiles on one head's grid (ignoring the wrap between heads) is wrong
    mask = Mask.causal()
    assert stacked_tile_classes(mask, 5, 2, 3, 2).counts != _walk_stacked(mask, 5, 1, 3, 2)
    assert stacked_tile_classes(mask, 5, 2, 3, 2).counts == _walk_stacked(mask, 5, 2, 3, 2)
