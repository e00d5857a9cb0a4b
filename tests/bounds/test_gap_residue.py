"""attnio.bounds.gap_residue: each gap ratio = bound factor × algorithm factor, around the
classical I/O of the cheapest algorithm's computation (issue 26, item 3)."""

from __future__ import annotations

import json
from math import isclose, sqrt
from typing import Any

import pytest

from attnio.bounds.attention import compulsory_io
from attnio.bounds.gap import gap_rows
from attnio.bounds.gap_residue import (
    CHARGED_PRODUCTS,
    PRODUCTS,
    charged_products,
    classical_product_io,
    gap_residue,
)
from attnio.cli import main
from attnio.exceptions import InvalidInputError

N, D = 4096, 64
MS = [64, 256, 1024, 2048, 4096, 8192, 12288, 65536, 262144]


def residue_problems(row: dict[str, Any], pass_: str, n: int, d: int) -> list[str]:
    """What is wrong with a row's residue, recomputed from its definition independently."""
    r, M = row["residue"], row["M"]
    problems = []
    m = min(2 * n * n * d / sqrt(M), n * n * d * d / M)
    given = r["products"] == 4
    R = r["products"] * m + (8 if pass_ == "backward" else 4) * n * d + (n * n if given else 0)
    if abs(r["classical_io"] - R) > 1:  # reported rounded to the nearest word
        problems.append(f"classical_io {r['classical_io']} != {R}")
    if not isclose(r["bound_factor"], R / row["lower_bound"], rel_tol=1e-12):
        problems.append("bound_factor is not R / LB")
    if not isclose(r["algorithm_factor"], row["best_io"] / R, rel_tol=1e-12):
        problems.append("algorithm_factor is not Q / R")
    if not isclose(r["bound_factor"] * r["algorithm_factor"], row["ratio"], rel_tol=1e-12):
        problems.append("the factors do not multiply to the ratio")
    return problems


@pytest.mark.parametrize("pass_", ["backward", "forward"])
def test_the_factors_multiply_to_the_ratio(pass_: str) -> None:
    for row in gap_rows(pass_, N, D, MS):
        assert residue_problems(row, pass_, N, D) == []
        assert row["residue"]["bound_factor"] > 1 and row["residue"]["algorithm_factor"] > 1


def test_false_twin_a_residue_measured_against_the_bound_is_caught() -> None:
    row = gap_rows("backward", N, D, [8192])[0]
    twin = {**row, "residue": {**row["residue"],
                               "algorithm_factor": row["best_io"] / row["lower_bound"]}}
    assert "algorithm_factor is not Q / R" in residue_problems(twin, "backward", N, D)
    wrong_products = {**row, "residue": gap_residue("forward", N, D, 8192, "flash2",
                                                    row["best_io"], row["lower_bound"],
                                                    "compulsory", "gap.compulsory")}
    assert residue_problems(wrong_products, "backward", N, D) != []


def test_classical_product_io_is_the_cheaper_schedule() -> None:
    assert classical_product_io(N, D, 256) == 2 * N * N * D / 16       # M < d²/4: square tiles
    assert classical_product_io(N, D, 4096) == N * N * D * D / 4096    # M > d²/4: resident block
    assert classical_product_io(N, D, D * D // 4) == 2 * N * N * D / (D / 2)  # they cross
    assert isclose(classical_product_io(N, D, 1000), 2 * N * N * D / sqrt(1000), rel_tol=1e-9)
    huge = 10 ** 300  # no float is formed
    assert classical_product_io(huge, D, 1000) > classical_product_io(huge, D, 2000)


def test_products_and_charged_products_per_class() -> None:
    assert PRODUCTS == {"forward": 2, "recompute": 5, "given-scores": 4}
    assert CHARGED_PRODUCTS == {"forward": 1, "recompute": 2, "given-scores": 1}
    assert charged_products("forward", "segment products (Q·Kᵀ), L = 2M", "gap.segment_route") == 1
    assert charged_products("backward", "given-scores: segment products (dO·Vᵀ), L = 3M",
                            "gap.segment_route") == 1
    assert charged_products("backward", "recompute: compulsory", "gap.compulsory") == 0
    assert charged_products("forward", "Saha-Ye level-1 (Q·Kᵀ)",
                            "explicit.attention_closed_form") == 1
    with pytest.raises(InvalidInputError, match="names no computation class"):
        charged_products("backward", "segment products", "gap.segment_route")
    with pytest.raises(InvalidInputError, match="computes 'dX'"):
        gap_residue("backward", 64, 8, 256, "small-cache-dx", 10, 5, "compulsory",
                    "gap.compulsory")


def test_the_worst_backward_row_is_mostly_the_bound_at_small_M() -> None:
    """At M = 64 the bound charges all 4 products of the given-scores class at its
    small-cache constant (the joint route, issue 35; 2 with the witnessed route, bound factor
    3.45; 6.21 before it, issue 26 item 1): bound factor between 2 and 3, algorithm factor
    < 1.5; in the middle both sides give between 1.5 and 4."""
    small, middle = gap_rows("backward", N, D, [64, 8192])
    assert small["residue"]["charged_products"] == small["residue"]["products"] == 4
    assert 3 > small["residue"]["bound_factor"] > 2 > 1.5 > small["residue"]["algorithm_factor"]
    assert 1.5 < middle["residue"]["bound_factor"] < 4
    assert 1.5 < middle["residue"]["algorithm_factor"] < 4
    assert compulsory_io("backward", N, D) < middle["residue"]["classical_io"]


def test_cli_table_column_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gap", "--n", "4096", "--d", "64", "--M", "64,8192", "--no-worst"]) == 0
    out = capsys.readouterr().out
    assert "bound×alg" in out and max(len(line) for line in out.splitlines()) <= 100
    row = gap_rows("backward", N, D, [8192])[0]
    cell = f"{row['residue']['bound_factor']:.2f}×{row['residue']['algorithm_factor']:.2f}"
    assert cell in out
    assert main(["gap", "--n", "4096", "--d", "64", "--M", "8192", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["rows"][0]["residue"]) == {"products", "charged_products",
                                              "classical_product_io", "classical_io",
                                              "bound_factor", "algorithm_factor"}
