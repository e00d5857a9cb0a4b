"""Tests of the standalone certificate checker attnio/check.py (trusted core: one planted
violation per side condition, and soundness against the exact search)."""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import attnio.check as check
from attnio.check import (
    CERTIFICATE_FORMAT,
    CertificateError,
    check_certificate,
    check_file,
    encode,
    parse_dag,
    required_horizon,
)
from attnio.graphs.dags import gnp_dag, matmul_dag

DAG = {"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]], "outputs": ["c"]}
GOOD = [["read", "a"], ["read", "b"], ["compute", "c"], ["write", "c"]]


def schedule(moves, *, M=3, recompute=True, io=3, dag=DAG):
    return {"kind": "schedule", "dag": dag, "M": M, "recompute": recompute, "io": io,
            "moves": moves}


def test_the_checker_imports_nothing_from_attnio() -> None:
    tree = ast.parse(Path(check.__file__).read_text())
    names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if n.startswith("attnio")], names


# ---- schedules: every rule of the game, one planted violation each ------------------------

@pytest.mark.trust
def test_a_legal_schedule_is_accepted_at_its_cost() -> None:
    assert check_certificate(schedule(GOOD)).accepted


@pytest.mark.trust
@pytest.mark.parametrize("moves, M, recompute, why", [
    (GOOD[:-1], 3, True, "output 'c' is not blue"),                     # one move short
    ([["read", "c"], *GOOD], 3, True, "reads 'c', which is not blue"),
    ([["write", "a"], *GOOD], 3, True, "writes 'a', which is not red"),
    ([["compute", "a"], *GOOD], 3, True, "computes the input 'a'"),
    ([["read", "a"], ["compute", "c"]], 3, True, "without every predecessor red"),
    ([*GOOD[:3], ["compute", "c"], ["write", "c"]], 3, False, "a second time (one-shot)"),
    ([["delete", "a"], *GOOD], 3, True, "deletes 'a', which is not red"),
    (GOOD, 2, True, "3 red pebbles > M=2"),
    ([["read", "z"]], 3, True, "is not [kind, vertex]"),
    ([["jump", "a"]], 3, True, "is not [kind, vertex]"),
])
def test_each_illegal_move_is_rejected(moves, M, recompute, why) -> None:
    result = check_certificate(schedule(moves, M=M, recompute=recompute))
    assert not result.accepted and why in result.reason


@pytest.mark.trust
def test_a_schedule_whose_claimed_cost_is_wrong_is_rejected() -> None:
    result = check_certificate(schedule(GOOD, io=2))
    assert not result.accepted and result.reason == "the schedule costs 3, not io=2"


# ---- the compulsory bound -------------------------------------------------------------------

@pytest.mark.trust
def test_the_compulsory_bound_is_accepted_up_to_and_rejected_above() -> None:
    base = {"kind": "compulsory", "dag": DAG, "M": 3, "recompute": True}
    assert check_certificate({**base, "lower": 3}).accepted
    assert not check_certificate({**base, "lower": 4}).accepted
    # an input that feeds no output is not compulsory; an input-output costs nothing
    dag = {"nodes": ["a", "b", "c", "x"], "edges": [["a", "c"], ["x", "b"]],
           "outputs": ["c", "x"]}
    assert check.compulsory_io(parse_dag(dag)) == (1, 1)


# ---- SAT refutations: the side conditions -----------------------------------------------------

@pytest.fixture(scope="module")
def sat_proof(tmp_path_factory):
    """matmul 1x2x1 at M = 3 (Q = 7): a certificate written by attnio pebble --certify."""
    pytest.importorskip("pysat")
    from attnio.graphs.exact_sat import solve_sat
    from attnio.graphs.proof_files import certify_optimum

    folder = tmp_path_factory.mktemp("proof")
    G = matmul_dag(1, 2, 1)
    record = certify_optimum(G, 3, solve_sat(G, 3), folder, "mm")
    assert record.lower_proof == "sat-refutation"
    return folder


def _twin(folder: Path, tmp: Path, change) -> Path:
    """A copy of the certificate folder with ``change(cert, files)`` applied."""
    for name in ("mm.json", "mm.cnf", "mm.drat"):
        (tmp / name).write_text((folder / name).read_text())
    cert = json.loads((tmp / "mm.json").read_text())
    change(cert, tmp)
    (tmp / "mm.json").write_text(json.dumps(cert))
    return tmp / "mm.json"


@pytest.mark.trust
@pytest.mark.extra("sat")
def test_the_sat_certificate_is_accepted(sat_proof) -> None:
    result = check_file(sat_proof / "mm.json")
    assert result.accepted and result.complete and result.reason.startswith("Q(G, M=3) = 7")
    # matmul 1x2x1's automorphisms: swap the products, swap the operands of each (order 8)
    cert = json.loads((sat_proof / "mm.json").read_text())
    symmetries = cert["lower_proof"]["symmetries"]
    dag = parse_dag(cert["dag"])
    assert len(symmetries) == 7 and all(check.check_symmetry(dag, s) == "" for s in symmetries)


def _flip_clause(cert, tmp):
    lines = (tmp / "mm.cnf").read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if len(line.split()) == 3 and k > 40)
    a, b, z = lines[i].split()
    lines[i] = f"{-int(a)} {b} {z}"
    (tmp / "mm.cnf").write_text("\n".join(lines) + "\n")
    cert["lower_proof"]["cnf_sha256"] = None


def _drop_clause(cert, tmp):
    lines = (tmp / "mm.cnf").read_text().splitlines()
    n, c = lines[0].split()[2:]
    lines = [f"p cnf {n} {int(c) - 1}", *lines[1:-1]]
    (tmp / "mm.cnf").write_text("\n".join(lines) + "\n")
    cert["lower_proof"]["cnf_sha256"] = None


def _skip_the_work(cert, tmp):
    """The empty clause claimed at once: not a consequence by unit propagation."""
    (tmp / "mm.drat").write_text("0\n")
    cert["lower_proof"]["proof_sha256"] = None


def _truncate_proof(cert, tmp):
    lines = (tmp / "mm.drat").read_text().splitlines()
    (tmp / "mm.drat").write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    cert["lower_proof"]["proof_sha256"] = None


@pytest.mark.trust
@pytest.mark.extra("sat")
@pytest.mark.parametrize("change, why", [
    (lambda c, t: c.update(M=4), "is not the encoding of M=4"),                  # wrong M
    (lambda c, t: c.update(recompute=False), "one-shot"),                        # wrong variant
    (lambda c, t: c.update(io=8) or c["upper"].update(io=8)
     or c["lower_proof"].update(lower=8), "costs 7, not io=8"),                  # Q moved up
    (lambda c, t: c["lower_proof"].update(horizon=c["lower_proof"]["horizon"] - 1),
     "is below the"),                                                            # horizon short
    (_flip_clause, "is not the encoding"),                                       # flipped clause
    (_drop_clause, "is not the encoding"),                                       # missing clause
    (lambda c, t: c["lower_proof"].update(cnf_sha256="0" * 64), "cnf_sha256 does not match"),
    (lambda c, t: c["lower_proof"].update(symmetries=[{"A[0,0]": "C[0,0]",
                                                       "C[0,0]": "A[0,0]"}]),
     "is not an automorphism"),                                                  # false symmetry
    (lambda c, t: c["lower_proof"].update(symmetries=[]), "is not the encoding"),  # dropped
    (_skip_the_work, "rejected by dratify"),                                    # bad DRAT step
    (_truncate_proof, "rejected by dratify"),                                    # no empty clause
    (lambda c, t: c["upper"]["moves"].pop(), "not blue"),                        # one move short
    (lambda c, t: c["upper"].update(M=4), "upper is for M=4"),                   # part for other M
    (lambda c, t: c.update(io=6) or c["lower_proof"].update(lower=6),
     "the ends do not meet"),
])
def test_each_planted_twin_of_a_sat_certificate_is_rejected(sat_proof, tmp_path, change,
                                                            why) -> None:
    result = check_file(_twin(sat_proof, tmp_path, change))
    assert not result.accepted and why in result.reason, result.reason


@pytest.mark.trust
@pytest.mark.extra("sat")
def test_a_refutation_within_too_short_a_horizon_proves_nothing(tmp_path) -> None:
    """The horizon lemma's side condition: with 2 steps even cost <= 7 is unsatisfiable
    (there is no time), and the DRAT proof of that is valid — the checker must refuse it."""
    from pysat.solvers import Solver

    from attnio.graphs.exact_sat import dag_certificate_data

    G = matmul_dag(1, 2, 1)
    dag_data = dag_certificate_data(G)
    enc, clauses = encode(parse_dag(dag_data), 3, 7, 2)
    with Solver(name="glucose42", bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        proof = "\n".join(solver.get_proof()) + "\n"
    (tmp_path / "x.cnf").write_text(check.dimacs_text(enc.num_vars, clauses))
    (tmp_path / "x.drat").write_text(proof)
    assert check.check_drat((tmp_path / "x.cnf").read_text(), proof)  # a valid refutation
    cert = {"format": CERTIFICATE_FORMAT, "kind": "sat-refutation", "dag": dag_data, "M": 3,
            "recompute": True, "lower": 8, "horizon": 2, "cnf": "x.cnf", "proof": "x.drat"}
    (tmp_path / "x.json").write_text(json.dumps(cert))
    result = check_file(tmp_path / "x.json")
    assert not result.accepted and "below the" in result.reason
    assert required_horizon(parse_dag(dag_data)) > 2


# ---- soundness against the exact search -------------------------------------------------------

@pytest.mark.trust
@pytest.mark.extra("sat")
def test_refutations_are_accepted_exactly_below_the_optimum() -> None:
    """On random DAGs: the checker accepts the refutation of cost <= Q - 1 (Q from the
    reference search) and cost <= Q is satisfiable, so no refutation of it exists."""
    from attnio.graphs.engines import solve
    from attnio.graphs.exact_sat import refute
    from attnio.graphs.indexed_dag import IndexedDAG

    checked = 0
    for seed in range(12):
        G = gnp_dag(6, 0.45, seed)
        M = IndexedDAG(G).min_cache_size
        q = solve(G, M, method="reference").io
        ref = refute(G, M, q - 1)
        assert ref is not None and check.check_drat(ref.cnf, ref.proof)
        with pytest.raises(ValueError, match="satisfiable"):
            refute(G, M, q)
        checked += 1
    assert checked == 12


# ---- bad files: one line, exit 2 ------------------------------------------------------------

@pytest.mark.parametrize("content", [b"\xff\xfe\x00garbage", b"[1, 2]", b"{}", b"not json",
                                     b'{"format": "attnio-pebbling-certificate/1"}',
                                     b'{"format": "attnio-pebbling-certificate/1", "kind": '
                                     b'"schedule", "M": 3, "recompute": true, "dag": 5}',
                                     b"[" * 100_000])
def test_a_bad_file_is_one_line_and_exit_2(tmp_path, content) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(content)
    with pytest.raises(CertificateError):
        check_file(path)
    proc = subprocess.run([sys.executable, "-m", "attnio.check", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_the_command_line_accepts_rejects_and_names_the_worst(tmp_path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"format": CERTIFICATE_FORMAT, **schedule(GOOD)}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": CERTIFICATE_FORMAT, **schedule(GOOD, io=4)}))
    assert check.main([str(good)]) == 0
    assert check.main([str(good), str(bad)]) == 1
    assert check.main([]) == 2


def test_the_canonical_encoding_is_deterministic() -> None:
    dag = parse_dag(DAG)
    one = encode(dag, 3, 4, 5)
    two = encode(copy.deepcopy(dag), 3, 4, 5)
    assert one[0].num_vars == two[0].num_vars and one[1] == two[1]
