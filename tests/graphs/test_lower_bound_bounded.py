"""``attnio lower-bound`` does bounded work on every input, and trusts no declared metadata
(issue 22): ``--time-limit`` reaches every route and check, size caps, infeasible at once,
validated DAG metadata confirmed by the structure, refuted routes never counted, integer
node-link ids.

Time bounds here are generous (the machine is shared): a 5 s promise is asserted < 30 s.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest

import attnio.commands.lower_bound  # noqa: F401
import attnio.commands.pebble  # noqa: F401

# imported before any test patches a route: their `from ... import` bindings must stay honest
import attnio.graphs.anytime  # noqa: F401
import attnio.graphs.lower_bounds.combined as lower_bounds_module  # where the functions live
from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.graphs.dagio import dag_from_json, dag_to_node_link
from attnio.graphs.dags import matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size
from attnio.graphs.lower_bounds import (
    TIME_LIMIT_REASON,
    BoundRecord,
    Deadline,
    builtin_structure,
    certified_lower_bound,
    certified_routes,
    check_certificate,
    least_cache_size,
    lower_bounds,
    must_compute,
    spill_windows_bound,
)
from attnio.graphs.lower_bounds.deadline import TimeLimitReached

TREE = str(Path(__file__).resolve().parents[2])


def _attnio(*argv: str, env: dict[str, str] | None = None,
            timeout: float = 600) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``attnio ARGV``; its result and the CPU seconds (user + sys) it used — work, which a
    busy machine does not stretch as it stretches wall time. ``timeout`` only guards hangs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([sys.executable, "-m", "attnio", *argv], capture_output=True, text=True,
                       timeout=timeout,
                       env={**os.environ, "PYTHONPATH": TREE, "ATTNIO_PROGRESS": "0",
                            **(env or {})})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def assert_one_error_line(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-500:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("attnio ") and len(lines[0]) <= 300
    for needle in needles:
        assert needle in lines[0], lines[0]


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


# --------------------------------------------------------------------------------------------
# 1. bounded: time limit, caps, infeasible at once
# --------------------------------------------------------------------------------------------


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_attention_backward_is_cut_by_the_time_limit_and_says_so() -> None:
    r, seconds = _attnio("lower-bound", "--builtin", "attention-backward:n=8,d=8", "--M", "16",
                         "--time-limit", "5", "--json")
    assert seconds < 30, seconds                      # promise: <= 6 s on an idle machine
    obj = json.loads(r.stdout)
    assert obj["time_limit"] == 5 and obj["best"]["value"] >= 448   # compulsory at least
    assert obj["complete"] is (r.returncode == 0)
    if not obj["complete"]:
        assert any(b["why_not"] == TIME_LIMIT_REASON
                   or b["checker"]["detail"] == "certificate not checked: time limit"
                   for b in obj["bounds"])


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_text_marks_the_best_so_far_when_the_limit_cuts_work() -> None:
    r, seconds = _attnio("lower-bound", "--builtin", "matmul:3x3x3", "--M", "4",
                         "--time-limit", "2")
    assert seconds < 30, seconds
    last = r.stdout.strip().splitlines()[-1]
    if r.returncode == 1:
        assert last.startswith("best so far (time limit 2 s reached): "), last
        assert "not computed: time limit" in r.stdout
    else:
        assert r.returncode == 0 and last.startswith("best: ")


def test_a_route_out_of_time_is_reported_and_never_a_bound(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def slow(G, M, **kwargs):
        raise TimeLimitReached("time limit reached")

    _replace_compute(monkeypatch, "spill-windows", slow)
    assert main(["lower-bound", "--builtin", "matmul:1x2x1", "--M", "3"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^spill-windows +0  not computed: time limit", out, re.M), out
    assert out.strip().splitlines()[-1].startswith("best so far (time limit 60 s reached): ")
    assert main(["lower-bound", "--builtin", "matmul:1x2x1", "--M", "3", "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["complete"] is False
    spill = next(b for b in obj["bounds"] if b["route"] == "spill-windows")
    assert spill["value"] == 0 and not spill["counted"] and spill["why_not"] == TIME_LIMIT_REASON


def test_an_expired_deadline_stops_every_searching_route_and_check() -> None:
    G = matmul_dag(2, 2, 2)
    records = lower_bounds(G, 3, deadline=Deadline.after(0))
    by_route = {r.route: r for r in records}
    assert by_route["compulsory"].applies and by_route["compulsory"].value == 12
    for route in ("hong-kung", "spill-windows", "saturation-windows", "sub-dag-exact",
                  "per-part: matmul products"):
        assert by_route[route].why_not == TIME_LIMIT_REASON and by_route[route].value == 0
    rec = spill_windows_bound(G, 3)
    verdict = check_certificate(G, 3, rec, deadline=Deadline.after(0))
    assert verdict.verdict == "undecided"            # never a pass, never a refutation
    with pytest.raises(TimeLimitReached):
        spill_windows_bound(G, 3, deadline=Deadline.after(0))


def test_a_short_deadline_bounds_the_window_search() -> None:
    started = time.process_time()  # CPU seconds: load elsewhere does not inflate them
    records = lower_bounds(matmul_dag(3, 3, 3), 4, deadline=Deadline.after(1.0))
    assert time.process_time() - started < 30
    assert records[0].route == "compulsory" and records[0].applies


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_star_of_1501_vertices_is_infeasible_at_once(tmp_path: Path) -> None:
    star = {"nodes": [f"x{i}" for i in range(1500)] + ["s"],
            "edges": [[f"x{i}", "s"] for i in range(1500)]}
    path = _write(tmp_path, "star.json", star)
    r, seconds = _attnio("lower-bound", "--dag", path, "--M", "3")
    # infeasible is exit 1 (no schedule to bound: never a pass; issue 24)
    assert r.returncode == 1 and seconds < 25, (r.returncode, seconds, r.stderr)
    assert "infeasible: M=3 is below the 1501 red pebbles vertex 's' needs" in r.stdout
    r, _ = _attnio("lower-bound", "--dag", path, "--M", "3", "--json")
    obj = json.loads(r.stdout)
    assert obj["verdict"] == "infeasible" and obj["best"] is None and obj["bounds"] == []


def test_least_cache_size_is_the_exact_solvers_rule() -> None:
    for seed in range(30):
        G = random_dag(9, 0.4, seed=seed, max_in_degree=3)
        assert least_cache_size(G)[0] == min_cache_size(G)


def test_must_compute_is_the_ancestor_closure_of_the_outputs() -> None:
    for seed in range(30):
        G = random_dag(10, 0.35, seed=seed, max_in_degree=3)
        inputs, outs, N, need = must_compute(G)
        want = set(outs).union(*(nx.ancestors(G, o) for o in outs)) - set(inputs)
        assert N == want
        assert need == {u for v in want for u in G.predecessors(v) if u in inputs}


def test_a_1999_vertex_chain_is_bounded(tmp_path: Path) -> None:
    chain = {"nodes": [f"c{i}" for i in range(1999)],
             "edges": [[f"c{i}", f"c{i + 1}"] for i in range(1998)]}
    path = _write(tmp_path, "chain.json", chain)
    r, seconds = _attnio("lower-bound", "--dag", path, "--M", "2", "--time-limit", "10")
    assert r.returncode in (0, 1) and seconds < 45, (r.returncode, seconds, r.stderr)
    assert r.stdout.strip().splitlines()[-1].split(": ")[-1].split(" = ")[-1] == "2"


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_300k_vertex_file_is_refused_by_the_cap(tmp_path: Path) -> None:
    n = 300_000
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"nodes": [f"v{i}" for i in range(n)],
                                "edges": [[f"v{i}", f"v{i + 1}"] for i in range(n - 1)]}))
    r, seconds = _attnio("lower-bound", "--dag", str(path), "--M", "3")
    assert_one_error_line(r, "300000 vertices", "MAX_LOWER_BOUND_VERTICES=20000")
    assert seconds < 30


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_too_many_edges_and_a_large_builtin_are_refused(tmp_path: Path) -> None:
    names = [f"v{i}" for i in range(460)]
    dense = {"nodes": names, "edges": [[names[i], names[j]] for i in range(460)
                                       for j in range(i + 1, 460)]}
    r, _ = _attnio("lower-bound", "--dag", _write(tmp_path, "dense.json", dense), "--M", "3")
    assert_one_error_line(r, "105570 edges", "MAX_LOWER_BOUND_EDGES=100000")
    r, seconds = _attnio("lower-bound", "--builtin", "matmul:40x40x60", "--M", "3")
    assert_one_error_line(r, "MAX_LOWER_BOUND_VERTICES=20000")
    assert seconds < 20                  # refused before the 193,600-vertex DAG is built


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "abc", ""])
def test_bad_time_limits_are_one_line(value: str) -> None:
    r, _ = _attnio("lower-bound", "--builtin", "matmul:1x1x1", "--M", "3",
                   "--time-limit", value)
    assert_one_error_line(r, "--time-limit", "must be a finite number of seconds >= 0")


def test_a_zero_time_limit_answers_at_once_with_the_best_so_far() -> None:
    """0 s is a budget like any other (attnio.flags: every --time-limit is >= 0): nothing
    beyond the compulsory bound is computed, and a run cut short is exit 1, never a pass."""
    r, _ = _attnio("lower-bound", "--builtin", "matmul:1x1x1", "--M", "3", "--time-limit", "0")
    assert r.returncode == 1 and "best so far (time limit 0 s reached)" in r.stdout


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_progress_names_the_route_when_asked() -> None:
    r, _ = _attnio("lower-bound", "--builtin", "matmul:1x2x1", "--M", "3",
                   env={"ATTNIO_PROGRESS": "1"})
    assert r.returncode == 0
    for route in ("compulsory", "hong-kung", "spill-windows", "sub-dag-exact"):
        assert "attnio lower-bound: " in r.stderr and route in r.stderr
    r, _ = _attnio("lower-bound", "--builtin", "matmul:1x2x1", "--M", "3")
    assert r.returncode == 0 and r.stderr == ""      # no terminal, no ATTNIO_PROGRESS=1


# --------------------------------------------------------------------------------------------
# 2. files are data: metadata validated, and confirmed by the structure
# --------------------------------------------------------------------------------------------

BASE = dag_to_node_link(matmul_dag(1, 2, 1))          # 7 vertices


def _graph(**changes: object) -> dict:
    data = copy.deepcopy(BASE)
    data["graph"].update(changes)
    return data


def _params(**changes: object) -> dict:
    data = copy.deepcopy(BASE)
    data["graph"]["params"].update(changes)
    return data


def _node(key: str, value: object) -> dict:
    data = copy.deepcopy(BASE)
    next(n for n in data["nodes"] if n["id"] == "P[0,0,0]")[key] = value
    return data


METADATA_CASES = [
    ("params-string", _graph(params="x"), "graph.params='x' must be a JSON object"),
    ("params-list", _graph(params=[1, 2]), "graph.params=[1, 2] must be a JSON object"),
    ("k-text", _params(k="abc"), "graph.params.k='abc' must be a positive integer"),
    ("k-bool", _params(k=True), "graph.params.k=True must be a positive integer"),
    ("k-negative", _params(k=-1), "graph.params.k=-1 must be a positive integer"),
    ("k-float", _params(k=1.5), "graph.params.k=1.5 must be a positive integer"),
    ("summation-list", _params(summation=[1]), "graph.params.summation=[1] must be a string"),
    ("builder-list", _graph(builder=["matmul"]), "graph.builder=['matmul'] must be a string"),
    ("builder-int", _graph(builder=5), "graph.builder=5 must be a string"),
    ("index-text", _node("index", "ab"), "index='ab' must be a list of integers"),
    ("index-names", _node("index", ["a", "b"]), "must be a list of integers"),
    ("index-int", _node("index", 5), "index=5 must be a list of integers"),
    ("index-nested", _node("index", [[1], 2]), "must be a list of integers"),
    ("args-int", _node("args", 5), "args=5 must be a list of vertex names"),
    ("op-list", _node("op", ["mul"]), "op=['mul'] must be a string"),
    ("product-of-list", _node("product_of", ["AB"]), "product_of=['AB'] must be a string"),
]


@pytest.mark.default_slice(4)  # each case is a CLI run (~2 s): the whole table is --runslow's
@pytest.mark.parametrize("label,data,message", METADATA_CASES,
                         ids=[c[0] for c in METADATA_CASES])
def test_metadata_of_the_wrong_type_is_one_line(tmp_path: Path, label: str, data: dict,
                                                message: str) -> None:
    path = _write(tmp_path, f"{label}.json", data)
    with pytest.raises(InvalidInputError, match="must be"):
        dag_from_json(data)
    for command in (["lower-bound", "--dag", path, "--M", "3"],
                    ["pebble", "--dag", path, "--M", "3", "--json"]):
        r, _ = _attnio(*command)
        assert_one_error_line(r, message)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_declared_sizes_the_structure_refutes_are_exit_2(tmp_path: Path) -> None:
    """The issue's 7-vertex DAG claiming m = k = p = 50 printed `best: per-part: matmul
    products = 53571` (its own checker said refuted); the optimum is 7."""
    path = _write(tmp_path, "claims50.json", _params(m=50, k=50, p=50))
    for extra in ([], ["--json"]):
        r, _ = _attnio("lower-bound", "--dag", path, "--M", "3", *extra)
        assert_one_error_line(r, "graph.params", "do not describe this DAG")
        assert "53571" not in r.stdout + r.stderr
    r, _ = _attnio("pebble", "--dag", path, "--M", "3", "--json")
    assert_one_error_line(r, "do not describe this DAG")


def test_a_400_digit_size_never_becomes_a_bound(tmp_path: Path) -> None:
    path = _write(tmp_path, "huge.json", _params(k=10**400))
    r, _ = _attnio("lower-bound", "--dag", path, "--M", "3", "--json")
    assert_one_error_line(r, "do not describe this DAG", "more than 10**30")
    assert len(r.stderr) < 400 and "0" * 50 not in r.stdout + r.stderr


def test_structure_must_match_even_when_the_counts_do() -> None:
    G = matmul_dag(2, 2, 2)
    assert builtin_structure(G)[0] == "matmul"
    H = G.copy()
    H.nodes["P[0,0,0]"]["product_of"] = "XX"        # one product no longer counted
    with pytest.raises(InvalidInputError, match="product_of"):
        builtin_structure(H)
    K = nx.relabel_nodes(G, {"P[0,0,0]": "renamed"})
    with pytest.raises(InvalidInputError, match="do not describe this DAG"):
        lower_bounds(K, 3)
    L = G.copy()
    L.graph["params"] = {"m": 2, "k": 2, "p": 2, "summation": "fma"}
    with pytest.raises(InvalidInputError, match="do not describe this DAG"):
        builtin_structure(L)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_an_exported_builtin_keeps_its_per_part_bound(tmp_path: Path) -> None:
    path = _write(tmp_path, "m222.json", dag_to_node_link(matmul_dag(2, 2, 2)))
    r, _ = _attnio("lower-bound", "--dag", path, "--M", "3", "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    per_part = next(b for b in obj["bounds"] if b["route"] == "per-part: matmul products")
    assert per_part["counted"] and per_part["value"] == 3


def test_per_part_needs_outputs_equal_to_the_sinks() -> None:
    G = matmul_dag(2, 2, 2)
    records = lower_bounds(G, 3, outputs=["C[0,0]"])
    per_part = [r for r in records if r.route.startswith("per-part")]
    assert per_part and not any(r.applies for r in per_part)


# --------------------------------------------------------------------------------------------
# a route its own checker refutes is never a bound, let alone the best
# --------------------------------------------------------------------------------------------


def _replace_compute(monkeypatch: pytest.MonkeyPatch, name: str, compute) -> None:
    """Plant ``compute`` as the registered route ``name``'s (the registry is the one place
    every command and library call finds a route)."""
    routes = lower_bounds_module.ROUTES
    monkeypatch.setitem(routes, name, dataclasses.replace(routes[name], compute=compute))


def _plant_wrong_spill_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = lower_bounds_module.ROUTES["spill-windows"].compute

    def planted(G, M, **kwargs):
        return [dataclasses.replace(rec, value=rec.value + 1000)   # far above Q(G, M)
                for rec in honest(G, M, **kwargs)]

    _replace_compute(monkeypatch, "spill-windows", planted)


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_refuted_route_is_flagged_and_excluded_from_best(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _plant_wrong_spill_windows(monkeypatch)
    assert main(["lower-bound", "--builtin", "matmul:2x2x2", "--M", "3", "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    spill = next(b for b in obj["bounds"] if b["route"] == "spill-windows")
    assert spill["checker"]["verdict"] == "refuted" and not spill["counted"]
    assert spill["value"] is None and spill["claimed_value"] == 1022
    assert obj["best"]["route"] != "spill-windows" and obj["best"]["value"] < 1000
    assert main(["lower-bound", "--builtin", "matmul:2x2x2", "--M", "3"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("spill-windows"))
    assert "REFUTED by its own checker: not a bound (claimed 1022)" in line
    assert " 1022 " not in line.split("REFUTED")[0]      # no value in the bound column
    best = out.strip().splitlines()[-1]
    assert best.startswith("best: ") and "spill-windows" not in best and "1022" not in best
    got = certified_lower_bound(matmul_dag(2, 2, 2), 3)
    assert got["route"] != "spill-windows" and got["value"] < 1000


def test_certified_routes_checks_every_record_it_is_given() -> None:
    def forge(phase: str, records: list[BoundRecord]) -> list[BoundRecord]:
        return [dataclasses.replace(r, value=r.value + 5) if r.route == "compulsory" else r
                for r in records]

    got = certified_routes(matmul_dag(1, 2, 1), 3, records_hook=forge)
    compulsory = got[0]
    assert compulsory.refuted and not compulsory.certified


# --------------------------------------------------------------------------------------------
# node-link files with integer ids (networkx's default)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("edges_key", ["edges", "links"])
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_networkx_default_node_link_with_integer_ids(tmp_path: Path, edges_key: str) -> None:
    data = nx.node_link_data(nx.DiGraph([(0, 2), (1, 2), (2, 3)]), edges=edges_key)
    G = dag_from_json(data)
    assert sorted(G.edges()) == [("0", "2"), ("1", "2"), ("2", "3")]
    path = _write(tmp_path, "ints.json", data)
    r, _ = _attnio("lower-bound", "--dag", path, "--M", "3")
    assert r.returncode == 0, r.stderr
    r, _ = _attnio("pebble", "--dag", path, "--M", "3")
    assert r.returncode == 0 and "optimal" in r.stdout, r.stderr


def test_an_id_given_as_integer_and_as_text_is_refused() -> None:
    data = {"directed": True, "nodes": [{"id": 1}, {"id": "1"}], "edges": []}
    with pytest.raises(InvalidInputError, match="name the same vertex"):
        dag_from_json(data)
    with pytest.raises(InvalidInputError, match="must be a string"):
        dag_from_json({"directed": True, "nodes": [{"id": 1.5}], "edges": []})


@pytest.mark.trust
def test_certified_lower_bound_respects_its_deadline():
    """`pebble --json` gives certified_lower_bound a quarter of --time-limit: routes and checks
    cut short by the deadline are not counted, and what is left is still a certified bound."""
    from attnio.graphs.lower_bounds import certified_lower_bound
    from attnio.graphs.lower_bounds.deadline import Deadline
    G = matmul_dag(2, 2, 2)
    full = certified_lower_bound(G, 4)
    cut = certified_lower_bound(G, 4, deadline=Deadline.after(0))
    assert full["value"] > cut["value"]  # the deadline really stopped the stronger routes
    assert cut["route"] in ("compulsory", "trivial (nothing re-verified)")
    assert certified_lower_bound(G, 4, deadline=Deadline.never()) == full


@pytest.mark.trust
def test_certified_lower_bound_with_nothing_checked_is_the_trivial_bound(monkeypatch):
    from attnio.graphs.lower_bounds import certified_lower_bound
    from attnio.results import Undecided
    monkeypatch.setattr(lower_bounds_module, "check_certificate",
                        lambda *a, **k: Undecided("certificate not checked: time limit"))
    cut = certified_lower_bound(matmul_dag(1, 2, 1), 3)
    assert cut == {"route": "trivial (nothing re-verified)", "value": 0, "routes_run": "all"}
