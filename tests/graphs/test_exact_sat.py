"""Tests of attnio.graphs.exact_sat (the SAT engine) and graphs/proof_files.py."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from attnio.check import check_file
from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import gnp_dag, matmul_dag
from attnio.graphs.engines import solve
from attnio.graphs.exact_sat import dag_certificate_data, solve_sat
from attnio.graphs.game import replay
from attnio.graphs.indexed_dag import IndexedDAG
from attnio.graphs.pebble_result import PebbleResult
from attnio.graphs.proof_files import certificate_stem, certify_optimum

pytestmark = pytest.mark.extra("sat")


def test_sat_agrees_with_the_search_on_random_tiny_dags() -> None:
    """SAT at cost Q decodes to a schedule that the game's validator replays, and the SAT
    optimum equals the reference search's (ints, ==): 60 DAGs of 5-7 vertices x 2 cache
    sizes x both variants = 240 instances (benchmarks/bench_sat.py --agree holds thousands)."""
    compared = 0
    for seed in range(60):
        G = gnp_dag(5 + seed % 3, 0.45, seed)
        least = IndexedDAG(G).min_cache_size
        for M in (least, least + 1):
            for recompute in (True, False):
                a = solve_sat(G, M, recompute=recompute, time_limit=60)
                b = solve(G, M, method="reference", recompute=recompute, time_limit=60)
                assert (a.verdict, a.upper) == (b.verdict, b.upper), (seed, M, recompute)
                if a.verdict == "optimal":
                    assert replay(G, a.schedule, M, recompute=recompute).io == a.io
                compared += 1
    assert compared == 240


def test_named_outputs_and_irrelevant_vertices() -> None:
    G = nx.DiGraph([("a", "x"), ("b", "x"), ("x", "y"), ("c", "z")])
    G.graph["outputs"] = ["x"]
    r = solve_sat(G, 3)
    assert r.io == 3 and all(v not in ("y", "z", "c") for _, v in r.schedule)


def test_a_time_limit_gives_an_undecided_bracket_with_a_replayed_schedule() -> None:
    G = matmul_dag(2, 2, 2)
    r = solve_sat(G, 4, time_limit=0.5)
    assert r.verdict == "undecided" and r.lower <= 17 <= r.upper
    assert replay(G, r.schedule, 4).io == r.upper


def test_infeasible_and_the_compulsory_shortcut() -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c")])
    assert solve_sat(G, 2).verdict == "infeasible"
    assert solve_sat(matmul_dag(2, 2, 2), 7).io == 12  # = compulsory: no SAT call


def test_certify_writes_files_the_checker_accepts(tmp_path) -> None:
    G = matmul_dag(1, 2, 1)
    record = certify_optimum(G, 3, solve_sat(G, 3), tmp_path, certificate_stem("mm:1x2x1", 3))
    assert record.lower_proof == "sat-refutation"
    assert [p.suffix for p in record.files] == [".json", ".cnf", ".drat"]
    assert check_file(record.files[0]).accepted
    with pytest.raises(InvalidInputError, match="refusing to overwrite"):  # never without --force
        certify_optimum(G, 3, solve_sat(G, 3), tmp_path, "mm_1x2x1_M3")


def test_an_undecided_or_uncertified_instance_writes_the_schedule_only(tmp_path) -> None:
    G = matmul_dag(2, 2, 2)
    r = solve(G, 4, method="reference")
    record = certify_optimum(G, 4, r, tmp_path, "x", time_limit=0.2)
    assert record.lower_proof == "search" and "time limit" in record.detail
    cert = json.loads(record.files[0].read_text())
    assert cert["kind"] == "schedule" and check_file(record.files[0]).accepted
    undecided = PebbleResult.undecided(12, r.io, "budget", schedule=r.schedule)
    assert certify_optimum(G, 4, undecided, tmp_path, "y").lower_proof == "none"


def test_certificate_dag_data_is_sorted_and_names_outputs() -> None:
    assert dag_certificate_data(nx.DiGraph([("b", "c"), ("a", "c")])) == {
        "nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"]}


def test_a_refutation_past_its_time_limit_is_none() -> None:
    """The proof solver (CaDiCaL, which python-sat cannot interrupt) runs in a child process
    killed at the time limit: "cost <= 16" on matmul 2x2x2 at M = 4 takes CaDiCaL ~25 CPU s,
    so 0.2 s gives None (no wall-clock assertion: the None is the evidence). The twin: the same refutation one
    M up (a smaller CNF) with no limit is a proof the checker accepts."""
    from attnio.check import check_drat
    from attnio.graphs.exact_sat import PROOF_SOLVER, refute

    assert PROOF_SOLVER.startswith("cadical")
    assert refute(matmul_dag(2, 2, 2), 4, 16, time_limit=0.2) is None
    done = refute(matmul_dag(2, 2, 1), 3, 9, time_limit=None)
    assert done is not None and check_drat(done.cnf, done.proof)


@pytest.mark.slow  # ~30 CPU s to refute, ~90 CPU s to check (issue 37's acceptance row)
def test_matmul_2x2x2_at_M4_has_a_proof_file_an_outsider_checks(tmp_path) -> None:
    """Issue 37's acceptance: ``attnio pebble --builtin matmul:2x2x2 --M 4 --certify DIR``
    writes a certificate that the standalone checker accepts whole — the schedule of cost 17
    replayed, "cost <= 16" regenerated as a CNF equal to the file, and its DRAT refutation
    accepted by dratify — so Q = 17 rests on no attnio search. The twin: the same files
    claiming M = 5 are rejected (the CNF is not the encoding of M = 5)."""
    import subprocess
    import sys

    folder = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "attnio", "pebble", "--builtin", "matmul:2x2x2",
                          "--M", "4", "--certify", str(folder), "--solver-time-limit", "900",
                          "--json"], capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr[-2000:]
    proof = json.loads(run.stdout)
    found = [p for p in _values(proof, "proof") if isinstance(p, dict)]
    assert [p["lower_proof"] for p in found] == ["sat-refutation"], found
    (cert,) = folder.glob("*.json")
    result = check_file(cert)
    assert result.accepted and result.complete, result.reason
    assert result.reason.startswith("Q(G, M=4) = 17")
    moved = json.loads(cert.read_text())
    moved["M"] = 5
    cert.write_text(json.dumps(moved))
    assert not check_file(cert).accepted


def _values(obj, key):
    """Every value stored under ``key`` anywhere in a JSON document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                yield v
            yield from _values(v, key)
    elif isinstance(obj, list):
        for v in obj:
            yield from _values(v, key)


def test_certify_writes_a_given_refutation_only_when_it_is_this_instances(tmp_path,
                                                                          monkeypatch) -> None:
    """``certify_optimum(refutation=...)``: a refutation of "cost <= Q - 1" for this DAG, M
    and variant is written as it is (no solver runs) and the checker accepts it; one made for
    the one-shot variant — its CNF not this instance's encoding — is ignored and the
    refutation made again (the planted twin)."""
    from attnio.graphs import proof_files
    from attnio.graphs.exact_sat import refute

    G = matmul_dag(1, 2, 1)
    result = solve_sat(G, 3)
    assert result.verdict == "optimal" and result.io == 7
    mine, other = refute(G, 3, 6), refute(G, 3, 6, recompute=False)
    assert mine is not None and other is not None and mine.cnf != other.cnf
    calls = []
    real = proof_files.refute
    monkeypatch.setattr(proof_files, "refute", lambda *a, **k: calls.append(a) or real(*a, **k))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    record = certify_optimum(G, 3, result, tmp_path / "a", "mm", refutation=mine)
    assert record.lower_proof == "sat-refutation" and calls == []
    assert check_file(record.files[0]).accepted
    record = certify_optimum(G, 3, result, tmp_path / "b", "mm", refutation=other)
    assert record.lower_proof == "sat-refutation" and len(calls) == 1
    assert check_file(record.files[0]).accepted
