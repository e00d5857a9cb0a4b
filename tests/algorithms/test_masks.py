"""Tests of attnio.algorithms.masks: Z_in/Z_QK closed forms, tile classes, --mask parsing.

The tests marked ``trust`` pin mask validation (``parse_mask``, the pattern-file reader, every
``Mask`` method): exact messages naming the value and the rule, exact sizes.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import attnio.algorithms.masks as masks_module
from attnio.algorithms.masks import (
    MAX_PATTERN_BYTES,
    Mask,
    floor_sum,
    mask_sizes,
    parse_mask,
    stacked_tile_classes,
    tile_classes,
    tile_occupancy,
)
from attnio.bounds.masks import sparse_bound_values
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


@pytest.mark.trust
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


@pytest.mark.trust
def test_false_twin_a_shifted_window_is_caught() -> None:
    """The walk distinguishes window W from W + 1 (so the equality check above can fail)."""
    assert tile_classes(Mask.window(5), 40, 1, 2).counts != _walk(Mask.window(6), 40, 1, 2)


@pytest.mark.trust
def test_closed_forms_at_a_large_size() -> None:
    n = 1000
    assert Mask.causal().z_qk(n) == n * (n + 1) // 2 == int(Mask.causal().array(n).sum())
    for w in (1, 7, 999, 1000, 5000):
        assert Mask.window(w).z_qk(n) == int(Mask.window(w).array(n).sum())


@pytest.mark.trust
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


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_sparse_class_bound_pinned_and_equal_to_attnio_bounds() -> None:
    """Regression (issue 15): bounds and the library agree on sparse.lower at (4096, 64, 4096)."""
    library = sparse_bound_values(Mask.full(), 4096, 64, 4096)
    assert library["sparse_class_bound"]["value"] == "16777216"
    out = subprocess.run([sys.executable, "-m", "attnio", "bounds", "--n", "4096", "--d", "64",
                          "--M", "4096", "--json"], capture_output=True, text=True, check=True)
    bounds = {b["id"]: b for b in json.loads(out.stdout)["bounds"]}
    assert bounds["sparse.lower"]["value"] == library["sparse_class_bound"]["value"]


def test_sparse_values_for_causal_are_exact() -> None:
    v = sparse_bound_values(Mask.causal(), 16, 2, 16)
    # Z_in = 32, Z_QK = 136: min(32**2/16, 32*sqrt(136)/4) = min(64, 16 sqrt(34)) = 64
    assert (v["Z_in"], v["Z_QK"], v["sparse_class_bound"]["value"]) == (32, 136, "64")
    assert v["sparse_crossover"]["value"] == "128/17"


@pytest.mark.trust
def test_mask_sizes_label() -> None:
    assert mask_sizes(Mask.window(4), 10, 2).mask == "window:4"


@pytest.mark.trust
@pytest.mark.parametrize("text, message", [
    ("window:0", "window W=0"), ("window:-3", "window W=-3"), ("window:x", "window W='x'"),
    ("block:0:p.json", "block size B=0"), ("block:2", "pattern file"), ("nope", "unknown"),
    ("causal:3", "unknown"),
])
def test_parse_mask_rejects_bad_text(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_mask(text)


@pytest.mark.trust
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


@pytest.mark.trust
def test_array_mask_shape_and_dtype() -> None:
    with pytest.raises(InvalidInputError, match="shape"):
        Mask.from_array(np.ones((2, 3), dtype=bool))
    with pytest.raises(InvalidInputError, match="boolean"):
        Mask.from_array(np.ones((2, 2)))
    with pytest.raises(InvalidInputError, match="must be"):
        Mask.from_array(np.ones((2, 2), dtype=bool)).array(3)
    with pytest.raises(InvalidInputError, match="sparse operand"):
        Mask.full(sparse_operands=("V",))


@pytest.mark.trust
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
    assert (v["Z_in"], v["Z_QK"], v["sparse_class_bound"]["value"], v["sparse_crossover"]) == \
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


# ---- the trust tier: mask validation, exact messages and exact sizes -----------------------

# n = 5, b = 2: blocks of sizes 2, 2, 1 (the last one partial); kept blocks (0,0), (0,2), (2,1)
PATTERN = [[True, False, True], [False, False, False], [False, True, False]]


def _message(call) -> str:
    with pytest.raises(InvalidInputError) as info:
        call()
    return str(info.value)


@pytest.mark.trust
def test_each_kind_has_its_array_its_sizes_and_its_label() -> None:
    n = 5
    causal = np.tril(np.ones((n, n), dtype=bool))
    i, j = np.indices((n, n))
    window2 = (j <= i) & (j > i - 2)
    block = np.zeros((n, n), dtype=bool)
    block[0:2, 0:2] = block[0:2, 4:5] = block[4:5, 2:4] = True
    arr = np.zeros((n, n), dtype=bool)
    arr[1, 3] = arr[3, 3] = arr[3, 0] = True
    cases = [  # mask, array, Z_QK, (rho_Q, rho_K), label
        (Mask.full(), np.ones((n, n), dtype=bool), 25, (5, 5), "full"),
        (Mask.causal(), causal, 15, (5, 5), "causal"),
        (Mask.window(2), window2, 9, (5, 5), "window:2"),
        (Mask.window(5), causal, 15, (5, 5), "window:5"),
        (Mask.window(7), causal, 15, (5, 5), "window:7"),
        (Mask.block_sparse(2, PATTERN), block, 4 + 2 + 2, (3, 5), "block:2:3x3"),
        (Mask.from_array(arr), arr, 3, (2, 2), "array:5x5"),
    ]
    for mask, expected, z_qk, rows, label in cases:
        got = mask.array(n)
        assert got.dtype == bool and got.shape == (n, n)
        assert (got == expected).all(), label
        assert mask.z_qk(n) == z_qk and type(mask.z_qk(n)) is int, label
        assert mask.needed_rows(n) == rows, label
        assert all(type(x) is int for x in mask.needed_rows(n))
        assert mask.label == label


@pytest.mark.trust
def test_window_sizes_at_and_around_n() -> None:
    # W(W+1)/2 + (n − W)·W below n; n(n+1)/2 from W = n on
    assert [Mask.window(w).z_qk(6) for w in (1, 2, 5, 6, 7)] == [6, 11, 20, 21, 21]
    assert Mask.window(1).array(3).tolist() == np.eye(3, dtype=bool).tolist()


@pytest.mark.trust
def test_block_sizes_with_a_partial_last_block() -> None:
    mask = Mask.block_sparse(2, PATTERN)
    assert mask._block_sizes(5).tolist() == [2, 2, 1]
    assert all(type(x) is int for x in mask._block_sizes(5))
    assert Mask.block_sparse(2, PATTERN).z_qk(6) == 4 + 4 + 4 == int(mask.array(6).sum())
    assert Mask.block_sparse(3, [[True, True], [True, False]]).z_qk(4) == 9 + 3 + 3
    assert Mask.block_sparse(3, [[True, True], [True, False]]).needed_rows(4) == (4, 4)
    assert Mask.block_sparse(3, [[False, True], [False, False]]).needed_rows(4) == (3, 1)


@pytest.mark.trust
def test_z_in_counts_the_declared_sparse_operands_only() -> None:
    # PATTERN at n = 5: rho_Q = 3 (rows 0, 1, 4), rho_K = 5
    assert Mask.block_sparse(2, PATTERN).z_in(5, 3) == 15
    assert Mask.block_sparse(2, PATTERN, ("Q",)).z_in(5, 3) == 15           # max(3, n)
    assert Mask.block_sparse(2, PATTERN, ("Q", "K")).z_in(5, 3) == 15        # max(3, 5)
    only_rows = [[True, True, True], [False, False, False], [False, False, False]]
    assert Mask.block_sparse(2, only_rows, ("Q",)).z_in(5, 3) == 15          # K dense
    assert Mask.block_sparse(2, only_rows, ("Q", "K")).z_in(5, 3) == 15      # rho_K = 5
    only_cols = [[True, False, False], [True, False, False], [True, False, False]]
    assert Mask.block_sparse(2, only_cols, ("K",)).z_in(5, 3) == 15          # Q dense
    assert Mask.block_sparse(2, only_cols, ("Q", "K")).z_in(5, 3) == 15      # rho_Q = 5
    corner = [[True, False, False], [False, False, False], [False, False, False]]
    assert Mask.block_sparse(2, corner, ("Q", "K")).z_in(5, 3) == 6
    assert Mask.block_sparse(2, corner, ("K",)).z_in(5, 3) == 15
    arr = np.zeros((4, 4), dtype=bool)
    arr[0, 1] = arr[0, 2] = True                                  # rho_Q = 1, rho_K = 2
    assert Mask.from_array(arr, ("Q", "K")).z_in(4, 5) == 10
    assert Mask.from_array(arr, ("Q",)).z_in(4, 5) == 20
    assert type(Mask.causal().z_in(4, 5)) is int
    assert _message(lambda: Mask.causal().z_in(4, 0)) == "d=0 must be a positive integer"


@pytest.mark.trust
def test_check_names_the_rule_that_n_breaks() -> None:
    assert Mask.block_sparse(2, PATTERN).check(5) == 5
    assert Mask.block_sparse(2, PATTERN).check(6) == 6
    assert _message(lambda: Mask.block_sparse(2, PATTERN).check(7)) == (
        "block pattern is 3x3 but n=7, b=2 needs ceil(n/b) = 4 (the last block is partial)")
    assert _message(lambda: Mask.block_sparse(2, PATTERN).check(4)) == (
        "block pattern is 3x3 but n=4, b=2 needs ceil(n/b) = 2 (the last block is partial)")
    eye = Mask.from_array(np.eye(3, dtype=bool))
    assert eye.check(3) == 3
    assert _message(lambda: eye.check(4)) == "mask shape (3, 3) must be (4, 4)"
    for call in (lambda: Mask.full().check(0), lambda: Mask.causal().array(-1),
                 lambda: Mask.window(2).z_qk(0), lambda: Mask.full().needed_rows(0)):
        assert _message(call).endswith("must be a positive integer")
    assert _message(lambda: Mask.causal().check(0)) == "n=0 must be a positive integer"
    assert _message(lambda: eye.z_qk(4)) == "mask shape (3, 3) must be (4, 4)"
    assert _message(lambda: eye.needed_rows(2)) == "mask shape (3, 3) must be (2, 2)"
    assert _message(lambda: eye.array(2)) == "mask shape (3, 3) must be (2, 2)"
    assert _message(lambda: Mask.block_sparse(2, PATTERN).z_qk(7)).startswith(
        "block pattern is 3x3")
    assert _message(lambda: Mask.block_sparse(2, PATTERN).array(7)).startswith(
        "block pattern is 3x3")
    assert _message(lambda: Mask.block_sparse(2, PATTERN).needed_rows(7)).startswith(
        "block pattern is 3x3")


@pytest.mark.trust
def test_constructors_name_the_bad_value() -> None:
    cases = [
        (lambda: Mask.window(0), "window W=0 must be a positive integer"),
        (lambda: Mask.window(2.0), "window W=2.0 must be a positive integer"),
        (lambda: Mask.block_sparse(0, [[True]]), "block size b=0 must be a positive integer"),
        (lambda: Mask.block_sparse(2, [[True, False]]),
         "block pattern shape (1, 2) must be a non-empty square"),
        (lambda: Mask.block_sparse(2, [True]), "block pattern shape (1,) must be a non-empty square"),
        (lambda: Mask.block_sparse(2, np.zeros((0, 0), dtype=bool)),
         "block pattern shape (0, 0) must be a non-empty square"),
        (lambda: Mask.block_sparse(2, np.zeros((2, 2, 2), dtype=bool)),
         "block pattern shape (2, 2, 2) must be a non-empty square"),
        (lambda: Mask.block_sparse(2, [[1]]), "block pattern dtype int64 must be boolean"),
        (lambda: Mask.from_array(np.ones((2, 3), dtype=bool)),
         "mask shape (2, 3) must be a non-empty square n x n"),
        (lambda: Mask.from_array(np.ones(2, dtype=bool)),
         "mask shape (2,) must be a non-empty square n x n"),
        (lambda: Mask.from_array(np.zeros((0, 0), dtype=bool)),
         "mask shape (0, 0) must be a non-empty square n x n"),
        (lambda: Mask.from_array(np.ones((1, 1, 1), dtype=bool)),
         "mask shape (1, 1, 1) must be a non-empty square n x n"),
        (lambda: Mask.from_array(np.ones((2, 2))), "mask dtype float64 must be boolean"),
        (lambda: Mask.causal(["V"]), "sparse operand 'V' must be one of Q, K"),
    ]
    for call, message in cases:
        assert _message(call) == message
    assert Mask.block_sparse(1, [[True]]).block == 1 and Mask.window(1).window_size == 1
    assert Mask.full(["K", "Q", "K"]).sparse_operands == ("K", "Q")
    assert Mask.window(3, ["Q"]).sparse_operands == ("Q",)
    assert Mask.block_sparse(2, PATTERN, ["K"]).sparse_operands == ("K",)
    assert Mask.from_array(np.eye(2, dtype=bool), ["K"]).sparse_operands == ("K",)
    assert Mask.block_sparse(2, np.array(PATTERN)).pattern == tuple(map(tuple, PATTERN))


@pytest.mark.trust
def test_an_array_mask_is_a_frozen_copy() -> None:
    values = np.eye(3, dtype=bool)
    mask = Mask.from_array(values)
    values[0, 1] = True                     # the caller's array changes; the mask does not
    assert mask.z_qk(3) == 3 and mask.array(3).tolist() == np.eye(3, dtype=bool).tolist()
    assert not mask.values.flags.writeable
    out = mask.array(3)
    out[0, 2] = True                        # the returned array is the caller's to change
    assert mask.z_qk(3) == 3


@pytest.mark.trust
def test_masks_are_equal_exactly_when_every_field_is() -> None:
    eye = np.eye(2, dtype=bool)
    same = [(Mask.full(), Mask.full()), (Mask.window(2), Mask.window(2)),
            (Mask.block_sparse(2, PATTERN), Mask.block_sparse(2, np.array(PATTERN))),
            (Mask.from_array(eye), Mask.from_array(eye.copy())),
            (Mask.causal(["K", "Q"]), Mask.causal(["Q", "K"]))]
    for a, b in same:
        assert a == b and hash(a) == hash(b) and not a != b
    different = [(Mask.full(), Mask.causal()), (Mask.window(2), Mask.window(3)),
                 (Mask.block_sparse(2, PATTERN), Mask.block_sparse(3, PATTERN)),
                 (Mask.block_sparse(2, PATTERN), Mask.block_sparse(2, np.eye(3, dtype=bool))),
                 (Mask.from_array(eye), Mask.from_array(~eye)),
                 (Mask.causal(), Mask.causal(["Q"])), (Mask.causal(["Q"]), Mask.causal(["K"]))]
    for a, b in different:
        assert a != b and not a == b
    assert Mask.full() != "full" and Mask.full() != None  # noqa: E711
    assert len({Mask.full(), Mask.full(), Mask.from_array(eye), Mask.from_array(eye)}) == 2


@pytest.mark.trust
def test_parse_mask_reads_each_kind() -> None:
    assert parse_mask("full") == Mask.full()
    assert parse_mask("  causal\n") == Mask.causal()
    assert parse_mask("window:3") == Mask.window(3)
    assert parse_mask("window:3", ["Q"]) == Mask.window(3, ["Q"])
    assert parse_mask("full", ("K",)).sparse_operands == ("K",)
    assert parse_mask("causal", ("Q",)).sparse_operands == ("Q",)


@pytest.mark.trust
@pytest.mark.parametrize("text, message", [
    ("full:1", "--mask 'full:1' is unknown; use full, causal, window:W or block:B:PATTERN.json"),
    ("causal:3", "--mask 'causal:3' is unknown; use full, causal, window:W or "
                 "block:B:PATTERN.json"),
    ("Full", "--mask 'Full' is unknown; use full, causal, window:W or block:B:PATTERN.json"),
    ("", "--mask '' is unknown; use full, causal, window:W or block:B:PATTERN.json"),
    ("window:", "--mask window:: window W='' must be a positive integer"),
    ("window:1.5", "--mask window:1.5: window W='1.5' must be a positive integer"),
    ("window:0", "--mask window:0: window W=0 must be a positive integer"),
    ("window:-3", "--mask window:-3: window W=-3 must be a positive integer"),
    ("block:x:p.json", "--mask block:x:p.json: block size B='x' must be a positive integer"),
    ("block:0:p.json", "--mask block:0:p.json: block size B=0 must be a positive integer"),
    ("block:-1:p.json", "--mask block:-1:p.json: block size B=-1 must be a positive integer"),
    ("block:2", "--mask block:2: block mask needs a pattern file: block:B:PATTERN.json"),
    ("block:2:", "--mask block:2:: block mask needs a pattern file: block:B:PATTERN.json"),
])
def test_parse_mask_messages_name_the_text_and_the_rule(text: str, message: str) -> None:
    assert _message(lambda: parse_mask(text)) == message


@pytest.mark.trust
def test_pattern_files_are_read_exactly(tmp_path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(PATTERN))
    mask = parse_mask(f"block:2:{good}", ["Q"])
    assert mask == Mask.block_sparse(2, PATTERN, ["Q"])
    one = tmp_path / "one.json"
    one.write_text("[[false]]")
    assert parse_mask(f"block:1:{one}").pattern == ((False,),)
    at_limit = tmp_path / "limit.json"                       # exactly the limit: read, parsed
    body = json.dumps([[True]])
    at_limit.write_bytes(b" " * (MAX_PATTERN_BYTES - len(body)) + body.encode())
    assert at_limit.stat().st_size == MAX_PATTERN_BYTES
    assert parse_mask(f"block:1:{at_limit}").pattern == ((True,),)
    over = tmp_path / "over.json"
    over.write_bytes(b" " * (MAX_PATTERN_BYTES + 1))
    assert _message(lambda: parse_mask(f"block:1:{over}")) == (
        f"--mask block:1:{over}: pattern file {str(over)!r} has {MAX_PATTERN_BYTES + 1} "
        f"bytes, more than {MAX_PATTERN_BYTES}")
    missing = tmp_path / "missing.json"
    assert _message(lambda: parse_mask(f"block:1:{missing}")) == (
        f"--mask block:1:{missing}: pattern file {str(missing)!r} is unreadable: "
        "No such file or directory")


@pytest.mark.trust
@pytest.mark.parametrize("data, rule", [
    (b"\xff\xfe[[true]]", "is not UTF-8 text"),
    (b"not json", "is not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "is not valid JSON"),
    (b'"x"', "must hold a non-empty square list of lists"),
    (b"{}", "must hold a non-empty square list of lists"),
    (b"[]", "must hold a non-empty square list of lists"),
    (b"[true]", "must hold a non-empty square list of lists"),
    (b"[[true], [true]]", "must hold a non-empty square list of lists"),
    (b"[[true, false], [true]]", "must hold a non-empty square list of lists"),
    (b"[[true, false], true]", "must hold a non-empty square list of lists"),
    (b"[[1, 0], [0, 1]]", "must hold only true/false entries"),
    (b"[[true, null], [false, true]]", "must hold only true/false entries"),
    (b"[[true, 1], [false, true]]", "must hold only true/false entries"),
])
def test_pattern_files_name_the_rule_they_break(tmp_path, data: bytes, rule: str) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(data)
    assert _message(lambda: parse_mask(f"block:2:{path}")) == \
        f"--mask block:2:{path}: pattern file {str(path)!r} {rule}"


@pytest.mark.trust
def test_block_sizes_are_exact_past_int64() -> None:
    # n = 10^10 in two blocks: Z_QK = n^2 = 10^20 > 2^63 (int64 arithmetic gave a negative count)
    n, half = 10**10, 5 * 10**9
    mask = Mask.block_sparse(half, [[True, True], [True, True]])
    assert mask.z_qk(n) == 10**20 and type(mask.z_qk(n)) is int
    assert mask.needed_rows(n) == (n, n) and mask.z_in(n, 64) == 64 * n
    corner = Mask.block_sparse(half, [[False, False], [False, True]], ("Q", "K"))
    assert corner.z_qk(n) == half**2 and corner.z_in(n, 3) == 3 * half
    # a block larger than n (even than int64) is one partial block of side n
    huge = Mask.block_sparse(2**70, [[True]])
    assert huge.z_qk(5) == 25 and huge.needed_rows(5) == (5, 5)
    assert huge.array(5).tolist() == np.ones((5, 5), dtype=bool).tolist()
    assert Mask.block_sparse(7, [[True]]).array(5).sum() == 25


class _Stream:
    """An open file that delivers ``data`` whatever stat() said (a pipe, a /proc file)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.asked: list = []

    def __enter__(self) -> "_Stream":
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def read(self, size=-1) -> bytes:
        self.asked.append(size)
        return self.data if size is None or size < 0 else self.data[:size]


@pytest.mark.trust
def test_a_pattern_file_is_read_to_one_byte_past_the_limit(tmp_path, monkeypatch) -> None:
    path = tmp_path / "p.json"
    path.write_text("[[true]]")                       # stat() says 8 bytes
    body = b"[[true]]"
    for data, expected in [(b" " * (MAX_PATTERN_BYTES - len(body)) + body, ((True,),)),
                           (b" " * (MAX_PATTERN_BYTES + 1 - len(body)) + body, None),
                           (b" " * (2 * MAX_PATTERN_BYTES) + body, None)]:
        stream = _Stream(data)
        monkeypatch.setattr(masks_module, "open", lambda *a, stream=stream, **k: stream, raising=False)
        if expected is None:
            assert _message(lambda: parse_mask(f"block:1:{path}")) == (
                f"--mask block:1:{path}: pattern file {str(path)!r} has more than "
                f"{MAX_PATTERN_BYTES} bytes")
        else:
            assert parse_mask(f"block:1:{path}").pattern == expected
        assert stream.asked == [MAX_PATTERN_BYTES + 1]


@pytest.mark.parametrize("n,b,bc", [(10, 3, 4), (16, 4, 4), (17, 5, 3), (7, 10, 2), (12, 1, 5)])
def test_block_row_occupancy_without_the_full_array(n: int, b: int, bc: int) -> None:
    from attnio.algorithms.masks import _row_occupancy, tile_occupancy
    rng = np.random.default_rng(n * 100 + b)
    side = -(-n // b)
    pattern = rng.random((side, side)) < 0.4
    mask = Mask.block_sparse(b, pattern)
    assert np.array_equal(_row_occupancy(mask, n, bc), tile_occupancy(mask.array(n), 1, bc))
