"""attnio.validation: the shared rules and limits of every entry point."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from attnio.exceptions import InvalidInputError
from attnio.input_files import parse_json_text, read_json_file
from attnio.validation import (
    MAX_CACHE_SIZES,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_MESSAGE_CHARS,
    MAX_SEED,
    MAX_STEPS,
    PLOT_SUFFIXES,
    describe,
    geometric_sizes,
    json_float,
    one_line,
    parse_int_range,
    parse_positive_int,
    parse_seed,
    positive_float,
    positive_int,
    validate_digraph,
    validate_name,
    validate_output_path,
    validate_seed,
)


@pytest.mark.parametrize("value", [0, -1, True, 2.0, "3", None, [1]])
def test_positive_int_refuses(value) -> None:
    with pytest.raises(InvalidInputError, match="must be a positive integer"):
        positive_int("n", value)


def test_positive_int_accepts_numpy_and_returns_python_int() -> None:
    value = positive_int("n", np.int64(7))
    assert value == 7 and type(value) is int


@pytest.mark.parametrize("text", ["0", "-3", "2.5", "1e5", "", " ", "0x10", "٣"])
def test_parse_positive_int_refuses(text: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_positive_int("n", text)


def test_digit_cap_is_checked_before_int() -> None:
    assert parse_positive_int("n", "9" * MAX_INT_DIGITS) == 10**MAX_INT_DIGITS - 1
    with pytest.raises(InvalidInputError, match="MAX_INT_DIGITS"):
        parse_positive_int("n", "9" * 100_000)  # int() of this would raise ValueError


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", float("nan"), math.inf, "x", True])
def test_positive_float_refuses(value) -> None:
    with pytest.raises(InvalidInputError, match="finite number"):
        positive_float("t", value)


def test_positive_float_allow_zero() -> None:
    assert positive_float("t", 0.0, allow_zero=True) == 0.0
    assert positive_float("t", " 1.5 ") == 1.5


def test_seeds() -> None:
    assert validate_seed(0) == 0 and validate_seed(MAX_SEED) == MAX_SEED
    for bad in (-1, MAX_SEED + 1, "7", 1.0, True, None):
        with pytest.raises(InvalidInputError, match="seed"):
            validate_seed(bad)
    assert parse_seed("42") == 42
    with pytest.raises(InvalidInputError):
        parse_seed("-1")


def test_int_range_cap() -> None:
    assert parse_int_range("--cache", f"1:{MAX_CACHE_SIZES}") == (1, MAX_CACHE_SIZES)
    with pytest.raises(InvalidInputError, match="MAX_CACHE_SIZES"):
        parse_int_range("--cache", f"1:{MAX_CACHE_SIZES + 1}")
    for bad in ("5:3", "1:2:3", "a", "0:4", ""):
        with pytest.raises(InvalidInputError):
            parse_int_range("--cache", bad)


def test_geometric_sizes() -> None:
    assert geometric_sizes("r", "1:16:5") == [1, 2, 4, 8, 16]
    assert geometric_sizes("r", "5:5:1") == [5]
    assert len(geometric_sizes("r", f"1:{10**6}:{MAX_STEPS}")) <= MAX_STEPS
    for bad, rule in [(f"1:10:{MAX_STEPS + 1}", f"names {MAX_STEPS + 1} sizes; at most MAX_STEPS"),
                      ("10:1:3", "LO=10 exceeds HI=1"),  # the wording of parse_sizes
                      ("1:10", "LO:HI:COUNT"), (f"1:{10**300}:3", "10\\*\\*300")]:
        with pytest.raises(InvalidInputError, match=rule):
            geometric_sizes("r", bad)


def test_json_float() -> None:
    assert json_float(1) == 1.0
    assert json_float(float("inf")) is None and json_float(float("nan")) is None
    assert json_float(10**400) is None and json_float("x") is None


def test_messages_stay_short() -> None:
    assert len(describe("x" * 10_000)) <= 60
    assert "digits" in describe(10**5000)
    long = one_line("a\nb " + "c" * 1000)
    assert "\n" not in long and len(long) == MAX_MESSAGE_CHARS


def test_output_paths(tmp_path: Path) -> None:
    ok = validate_output_path(tmp_path / "a.png", suffixes=PLOT_SUFFIXES)
    assert ok == tmp_path / "a.png"
    (tmp_path / "b.png").write_bytes(b"x")
    (tmp_path / "c.png").symlink_to(tmp_path / "b.png")
    cases = [(tmp_path, "is a folder"), (tmp_path / "a.gif", "must end in"),
             (tmp_path / "no" / "a.png", "does not exist"), (tmp_path / "b.png", "overwrite"),
             (tmp_path / "c.png", "symlink")]
    for path, rule in cases:
        with pytest.raises(InvalidInputError, match=rule):
            validate_output_path(path, suffixes=PLOT_SUFFIXES, what="--plot")
    assert validate_output_path(tmp_path / "b.png", suffixes=PLOT_SUFFIXES, overwrite=True)


def test_json_reading(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert read_json_file(path) is not None
    path.write_text("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    with pytest.raises(InvalidInputError, match="MAX_JSON_DEPTH"):
        read_json_file(path)
    # brackets inside strings do not count as nesting
    assert parse_json_text('["' + "[" * 500 + '"]') == ["[" * 500]
    path.write_bytes(b"x" * 11)
    with pytest.raises(InvalidInputError, match="MAX_INPUT_FILE_BYTES=10"):
        read_json_file(path, max_bytes=10)
    with pytest.raises(InvalidInputError, match="folder"):
        read_json_file(tmp_path)


def test_digraph_and_names() -> None:
    import networkx as nx

    assert validate_digraph(nx.DiGraph()) is not None
    for bad in (nx.Graph(), nx.MultiDiGraph(), [("a", "b")], None):
        with pytest.raises(InvalidInputError, match="networkx.DiGraph"):
            validate_digraph(bad)
    assert validate_name("pass", "forward", ("forward", "backward")) == "forward"
    with pytest.raises(InvalidInputError, match="is unknown"):
        validate_name("pass", "sideways", ("forward", "backward"))


def test_parse_sizes_grammar() -> None:
    from attnio.validation import parse_sizes

    assert parse_sizes("M", "7") == [7] and parse_sizes("M", 7) == [7]
    assert parse_sizes("M", "3:5, 9 ,4") == [3, 4, 5, 9]
    assert parse_sizes("M", "10:20:5") == [10, 15, 20]
    assert parse_sizes("M", "4,4,4") == [4]  # duplicates dropped, order kept
    assert parse_sizes("M", "1,") == [1]  # an empty item is ignored ...
    with pytest.raises(InvalidInputError, match="names no size"):
        parse_sizes("M", " , ")  # ... but some size must be named
    for bad, rule in [("0", "M=0 must be a positive integer"), ("1:2:3:4", "LO:HI\\[:STEP\\]"),
                      ("5:1", "LO=5 exceeds HI=1"), ("1:9:0", "STEP=0"),
                      ("1:2,x", "a list V1,V2"), (True, "must be an integer"),
                      (f"1:{10**400}", "names .* sizes; at most MAX_STEPS"),
                      ("1:" + "9" * 501, "MAX_INT_DIGITS")]:
        with pytest.raises(InvalidInputError, match=rule):
            parse_sizes("M", bad)
    with pytest.raises(InvalidInputError, match="MAX_CACHE_SIZES=64"):
        parse_sizes("M", "1:65", max_count=64, limit_name="MAX_CACHE_SIZES")
    with pytest.raises(InvalidInputError, match="names 3 sizes; this command takes one M"):
        parse_sizes("M", "1:3", single=True)


def test_out_of_range_warning_is_one_line_and_deferred(capsys) -> None:
    from attnio.validation import (
        admissible_cache_warning,
        deferred_warnings,
        warn_outside_admissible,
    )

    assert admissible_cache_warning("gap", 64, 8, [8, 512]) is None  # the edges are inside
    line = admissible_cache_warning("gap", 64, 8, [7, 513, 1, 2, 3, 4])
    assert "\n" not in line and "M=7, 513, 1, 2, …" in line
    with deferred_warnings() as held:
        warn_outside_admissible("gap", 64, 8, [7])
    assert capsys.readouterr().err == "" and len(held) == 1
    warn_outside_admissible("gap", 64, 8, [7])
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("text", ["٣", "1_0", "３", "", " ", "0x10", "1e", "--1"])
def test_number_flags_take_ascii_digits_only(text):
    """float() and int() accept '٣', '1_0' and full-width digits; no attnio flag does."""
    from attnio.validation import parse_float_text, parse_int_text, positive_float
    with pytest.raises(InvalidInputError, match="ASCII digits"):
        parse_int_text("--workers", text)
    with pytest.raises(InvalidInputError, match="ASCII digits"):
        parse_float_text("--time-limit", text)
    with pytest.raises(InvalidInputError, match="finite number"):
        positive_float("--time-limit", text)


@pytest.mark.parametrize("text, value", [("7", 7), ("+7", 7), ("-3", -3), (" 12 ", 12)])
def test_int_text_keeps_ascii_integers(text, value):
    from attnio.validation import parse_int_text
    assert parse_int_text("--z3-timeout", text) == value


@pytest.mark.parametrize("text, value", [("2", 2.0), ("0.5", 0.5), (".5", 0.5), ("1e-3", 0.001)])
def test_float_text_keeps_ascii_numbers(text, value):
    from attnio.validation import parse_float_text
    assert parse_float_text("--time-limit", text) == value


def test_int_text_caps_digits():
    from attnio.validation import parse_int_text
    with pytest.raises(InvalidInputError, match="MAX_INT_DIGITS"):
        parse_int_text("--workers", "9" * 600)
