"""Soundness of the certified lower-bound routes against the exact solver, and the checkers'
ability to reject forged certificates (graphs/lower_bounds/)."""

from __future__ import annotations

import dataclasses

import networkx as nx
import pytest

from attnio.exceptions import InvalidInputError
from attnio.graphs.baseline import plain_optimal
from attnio.graphs.dags import matmul_dag, random_dag
from attnio.graphs.exact import Optimal, min_cache_size, solve_optimal
from attnio.graphs.lower_bounds import (BoundRecord, best_bound, check_certificate,
                                        compulsory_bound, lower_bounds, spill_windows_bound,
                                        saturation_windows_bound, subdag_exact_bound)


def _random(seed: int, n: int) -> nx.DiGraph:
    G = random_dag(n, 0.5, seed=seed, max_in_degree=2 if seed % 4 < 2 else 3)
    outputs = sorted(v for v in G if G.out_degree(v) == 0)
    inner = sorted(v for v in G if G.out_degree(v) > 0 and G.in_degree(v) > 0)
    if seed % 2 and inner:
        outputs.append(inner[0])          # a named output that is not a sink
    G.graph["outputs"] = outputs
    return G


@pytest.mark.parametrize("seed", range(60))
def test_routes_never_exceed_the_exact_optimum(seed: int) -> None:
    G = _random(seed, 5 + seed % 4)
    least = min_cache_size(G)
    for M in (least, least + 1):
        records = lower_bounds(G, M, hong_kung=seed % 3 == 0)
        for recompute in (True, False):
            opt = solve_optimal(G, M, recompute=recompute, time_limit=20, progress=False)
            assert isinstance(opt, Optimal)
            for rec in records:
                if rec.applies:
                    assert rec.value <= opt.io, (rec.route, rec.value, opt.io, recompute)
        for rec in records:
            assert check_certificate(G, M, rec).proved, rec.route


@pytest.mark.parametrize("M,opt", [(3, 13), (4, 9), (5, 8)])
def test_matmul_1x2x2_against_the_plain_baseline(M: int, opt: int) -> None:
    G = matmul_dag(1, 2, 2)
    q = plain_optimal(G, M)
    assert isinstance(q, Optimal) and q.io == opt
    assert best_bound(lower_bounds(G, M)).value <= q.io


def test_spill_windows_tight_on_matmul_chain() -> None:
    # 1x8x1 chain at M = 3: exact optimum 31 (notes/findings_sandwich.md) is met exactly
    assert spill_windows_bound(matmul_dag(1, 8, 1, "chain"), 3).value == 31


def test_compulsory_conventions() -> None:
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("x", "y"), ("u", "c")])
    G.graph["outputs"] = ["b", "x"]        # b is not a sink; x is an input; c, y unneeded
    rec = compulsory_bound(G, 2)
    assert rec.value == 2                  # read a, write b
    assert rec.certificate["needed_inputs"] == ["a"]
    opt = solve_optimal(G, 2, progress=False)
    assert isinstance(opt, Optimal) and opt.io == 2


@pytest.mark.parametrize("route", ["compulsory", "spill-windows", "per-part: matmul products",
                                   "hong-kung", "sub-dag-exact", "saturation-windows"])
def test_forged_values_are_rejected(route: str) -> None:
    G = matmul_dag(2, 2, 2)
    rec = next(r for r in lower_bounds(G, 3) if r.route == route)
    assert check_certificate(G, 3, rec).proved
    forged = dataclasses.replace(rec, value=rec.value + 1)
    assert check_certificate(G, 3, forged).verdict == "refuted"


def test_forged_spill_certificates_are_rejected() -> None:
    G = matmul_dag(1, 2, 1)
    rec = spill_windows_bound(G, 3)
    cert = dict(rec.certificate)
    # a forced set whose condition fails at M = 4 is rejected there
    rec4 = dataclasses.replace(rec, certificate=cert)
    assert check_certificate(G, 4, rec4).verdict == "refuted"
    # a window count above the recomputed minimum is rejected
    bad = dict(cert, window_reads=cert["window_reads"] + 1)
    assert check_certificate(G, 3, dataclasses.replace(rec, certificate=bad,
                                                       value=rec.value + 1)).verdict == "refuted"
    # a non-applying record may not claim a positive value
    assert check_certificate(G, 3, BoundRecord("hong-kung", 1, False, "x")).verdict == "refuted"


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        lower_bounds(matmul_dag(1, 1, 1), 0)
    with pytest.raises(InvalidInputError):
        lower_bounds(nx.DiGraph([("a", "b"), ("b", "a")]), 3)


def test_forged_subdag_optimum_is_rejected() -> None:
    G = matmul_dag(2, 2, 2)
    rec = subdag_exact_bound(G, 4)
    assert rec.applies and rec.value == 13 and check_certificate(G, 4, rec).proved
    cert = dict(rec.certificate, Q_H=rec.certificate["Q_H"] + 1)
    forged = dataclasses.replace(rec, certificate=cert, value=rec.value + 1)
    assert check_certificate(G, 4, forged).verdict == "refuted"


def test_subdag_does_not_apply_when_every_closure_is_too_big() -> None:
    rec = subdag_exact_bound(matmul_dag(1, 4, 2), 4, max_vertices=10)
    assert not rec.applies and rec.value == 0 and rec.why_not


def test_saturation_windows_exact_on_matmul_3x1x3() -> None:
    G = matmul_dag(3, 1, 3)
    rec = saturation_windows_bound(G, 4)
    assert rec.value == 17 and check_certificate(G, 4, rec).proved   # exact optimum 17


def test_forged_saturating_sets_are_rejected() -> None:
    G = matmul_dag(1, 2, 2)
    rec = saturation_windows_bound(G, 4)
    family = [dict(t) for t in rec.certificate["saturating_sets"]]
    assert family and check_certificate(G, 4, rec).proved
    family[0]["choices"] = family[0]["choices"][:1]      # a member with equality left out
    forged = dataclasses.replace(rec, certificate=dict(rec.certificate,
                                                       saturating_sets=family))
    assert check_certificate(G, 4, forged).verdict == "refuted"
    # at M = 5 the sets are no longer saturating
    assert check_certificate(G, 5, rec).verdict == "refuted"
