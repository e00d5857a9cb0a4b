"""Mutation survivors of seed 83 (issue 36), helper mmc: the anytime bracket's time shares
(graphs/anytime.py), the lower-bound routes' runner and checkers (graphs/lower_bounds), the
algorithm-count envelopes, and the attention / mask / stacked-head bounds with their claims
(bounds/attention.py, bounds/masks.py, bounds/heads.py, proofs/mask_bounds.py,
proofs/stacked_heads.py).

Each test states the rule the mutated line implements and checks it against a hand-computed
value or an independent evaluation; the survivors that no input can tell apart are listed in
benchmarks/mutation_equivalents/.
"""

from __future__ import annotations

import networkx as nx
import pytest
from anytime_script import CROSS_OPTIMAL as _CROSS_OPTIMAL  # tests/ on sys.path: conftest.py
from anytime_script import costing as _costing
from anytime_script import cross as _cross
from anytime_script import scripted as _scripted

from attnio.algorithms.heads import GQA_ALGORITHMS, count_heads
from attnio.algorithms.masks import Mask
from attnio.algorithms.registry import get_algorithm
from attnio.bounds.attention import joint_routes
from attnio.bounds.heads import joint_interval_lower_bound, stacked_lower_bound_routes
from attnio.bounds.masks import best_mask_lower_bound, mask_bound_fields, masked_segment_route
from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.lower_bounds import Deadline, check_certificate, combined
from attnio.graphs.lower_bounds.counting import builtin_structure
from attnio.graphs.lower_bounds.saturation import check_saturation, saturation_windows_bound
from attnio.graphs.pebble_result import PebbleResult
from attnio.proofs import algorithm_counts as A
from attnio.proofs import mask_bounds as mb
from attnio.proofs import stacked_heads as sh
from attnio.proofs.registry import CheckContext
from attnio.validation import positive_int

pytestmark = pytest.mark.trust

CTX = CheckContext(z3_timeout_ms=20_000)


# ---- graphs/anytime.py: the time shares ---------------------------------------------------------
# the scripted anytime and its cross DAG: tests/anytime_script.py


def test_routes_run_on_a_budget_under_one_second(monkeypatch) -> None:
    """Rule: ``lower_bound_routes`` is skipped only when no time is left; a positive share
    under a second (time_limit 2 s: ROUTES_SHARE·2 = 0.5 s) still calls it, and its bound
    closes the bracket (schedule of cost 7, routes prove 7: optimal 7, named by the routes)."""
    from attnio.graphs.anytime import ROUTES_SHARE, AnytimeProgress, anytime_pebble

    _scripted(monkeypatch, [_costing(7), _costing(7)],
              [(PebbleResult.undecided(4, 7, "probe"), 0.0),
               (PebbleResult.undecided(4, 7, "search"), 0.0)], [0.0])
    given: list[float] = []
    progress = AnytimeProgress()
    r = anytime_pebble(_cross(), 3, time_limit=2, progress=progress,
                       lower_bound_routes=lambda s: given.append(s) or (7, "my routes"))
    assert given == [2 * ROUTES_SHARE] and 0 < given[0] < 1
    assert r.verdict == "optimal" and r.io == 7
    assert progress.lower_bound_source == "my routes"


def _probe_then_optimal(monkeypatch) -> list:
    """Scripted: the exact probe ends undecided [5, 8] at t = 1 s, the final exact search
    finds the optimum 6 at t = 2 s; the heuristics cost 8 then 7."""
    return _scripted(monkeypatch, [_costing(8), _costing(7)],
                     [(PebbleResult.undecided(5, 8, "probe"), 1.0),
                      (PebbleResult.optimal(6, _CROSS_OPTIMAL, states_explored=1), 2.0)],
                     [0.0])


def test_no_long_heuristic_once_the_deadline_has_passed(monkeypatch) -> None:
    """Rule: a phase whose budget is 0 (the deadline passed during the exact probe) is not
    started: no long heuristic runs after the deadline, and the answer is the bracket with
    "time limit ... reached". Planted: with time left the long heuristic runs (on its share)."""
    from attnio.graphs.anytime import anytime_pebble

    clock = [0.0]
    calls = _scripted(monkeypatch, [_costing(8), _costing(7)],
                      [(PebbleResult.undecided(5, 8, "probe"), 11.0)], clock)
    r = anytime_pebble(_cross(), 3, time_limit=10, heuristic_share=0.5)
    assert [c[0] for c in calls] == ["heuristic", "exact"]
    assert r.verdict == "undecided" and r.reason == "time limit 10 s reached"
    assert (r.lower, r.upper) == (5, 8)
    monkeypatch.undo()
    calls = _probe_then_optimal(monkeypatch)
    r = anytime_pebble(_cross(), 3, time_limit=10, heuristic_share=0.5)
    assert calls[2] == ("heuristic", 5.0) and r.verdict == "optimal" and r.io == 6


# ---- graphs/lower_bounds -------------------------------------------------------------------------

def test_certified_lower_bound_does_not_count_a_check_its_deadline_cut(monkeypatch) -> None:
    """Rule: ``deadline`` bounds the certificate checks too: a route whose check the deadline
    cuts (Undecided) is not counted. matmul 1×2×1 at M = 3: the routes found before the
    deadline give 7 (spill-windows), but with the deadline already passed only the checks
    that finish without reading it (compulsory, 5) re-verify."""
    G = matmul_dag(1, 2, 1)
    records = combined.lower_bounds(G, 3)
    lapsed = Deadline(0.0)
    counted = [r for r in records
               if r.applies and check_certificate(G, 3, r, deadline=lapsed).proved]
    assert max(r.value for r in counted) == 5 and max(r.value for r in records) == 7
    monkeypatch.setattr(combined, "lower_bounds", lambda *a, **k: records)
    assert combined.certified_lower_bound(G, 3, deadline=lapsed) == {
        "route": "compulsory", "value": 5, "routes_run": "all"}
    assert combined.certified_lower_bound(G, 3)["value"] == 7


def test_a_declared_builder_must_match_the_product_of_tags() -> None:
    """Rule: a DAG that declares a built-in builder is confirmed vertex by vertex on ``op``
    AND ``product_of`` (the tag the per-part lemmas count): a matmul DAG with one product's
    tag removed is refused, naming the vertex and the key; the untouched DAG is confirmed."""
    G = matmul_dag(1, 2, 1)
    assert builtin_structure(G)[0] == "matmul"
    tagged = [v for v, tag in G.nodes(data="product_of") if tag is not None]
    assert tagged
    del G.nodes[tagged[0]]["product_of"]
    with pytest.raises(InvalidInputError, match=r"do not describe this DAG: vertex .* has "
                                                r"product_of=None"):
        builtin_structure(G)


def test_saturation_check_accepts_an_instance_with_no_schedule_as_zero_reads() -> None:
    """Rule: the checker's second DP counts 0 reads when no event order fits M (as the
    route's forward DP does: its layer empties), never its internal "impossible" sentinel;
    matmul 1×2×1 at M = 2 (a product needs 3 red pebbles): the route's certificate says 0
    reads + spills and re-verifies."""
    G = matmul_dag(1, 2, 1)
    rec = saturation_windows_bound(G, 2)
    assert rec.applies and rec.certificate["reads_and_spills"] == 0
    assert check_saturation(G, 2, rec).proved
    assert check_certificate(G, 2, rec).proved


# ---- proofs/algorithm_counts.py ------------------------------------------------------------------

def test_envelope_reports_how_many_points_did_not_fit() -> None:
    """Rule: an envelope compares every grid point in range where the tiles fit and counts the
    others as skipped: on n = 16, d = 2 the skipped count is the number of in-range points
    where FlashAttention-2's counter raises InfeasibleError, and compared + skipped = all."""
    env = A.Envelope("flash2", "forward", A._FWD, 30, "n = 16, d = 2",
                     lambda n, d, M: n == 16 and d == 2)
    points = [p for p in A.grid() if p[0] == 16 and p[1] == 2]
    unfit = 0
    for n, d, M in points:
        try:
            get_algorithm("flash2").counter("forward")(n, d, M)
        except InfeasibleError:
            unfit += 1
    assert 0 < unfit < len(points)
    v = env.check(CTX)
    assert v.proved, v
    assert v.detail.startswith(f"{len(points) - unfit} grid points ({unfit} where the tiles do "
                               "not fit skipped)")


# ---- bounds/attention.py, bounds/masks.py, bounds/heads.py ---------------------------------------

def test_joint_routes_names_the_bad_sequence_length() -> None:
    """Rule: a bad ``n`` is refused with the message positive_int gives for the parameter
    ``n`` (the name a user passed), as for ``d`` and ``M``."""
    for kw, name in (({"n": 0}, "n"), ({"d": 0}, "d"), ({"M": 0}, "M")):
        args = {"n": 8, "d": 4, "M": 16, **kw}
        with pytest.raises(InvalidInputError) as got:
            joint_routes(args["n"], args["d"], args["M"], "forward")
        with pytest.raises(InvalidInputError) as want:
            positive_int(name, 0)
        assert str(got.value) == str(want.value)


def test_mask_bound_field_is_the_bound_of_the_whole_batch() -> None:
    """Rule: the ``mask_lower_bound`` field of a batched run is the certified bound for the
    batch (best_mask_lower_bound at that batch), which exceeds one sequence's; its scope names
    the query heads it covers."""
    mask = Mask.window(1)
    one = mask_bound_fields(mask, 64, 8, 64, "forward", "flash2")
    two = mask_bound_fields(mask, 64, 8, 64, "forward", "flash2", batch=2)
    want = best_mask_lower_bound("forward", mask, 64, 8, 64, two["computation"], batch=2)
    assert two["value"] == want.value > one["value"] and two["route"] == want.route
    assert "2 query heads" in two["scope"]


def test_joint_interval_bound_is_exact_under_grouped_heads_at_huge_sizes() -> None:
    """Rule: the interval bound is an exact integer at most the joint route + rest at every M
    in [a, b] (its docstring), also with H/G query heads per K/V group: 2 heads in 1 group,
    backward, n = 1 and d = 2⁵² + 7 (N beyond a float's 53 bits), at the single point
    M = a = b it never exceeds the route there (a float would round it up past it)."""
    d = 2 ** 52 + 7
    for cls in ("recompute", "given-scores"):
        for a in (1, 3):
            lo = joint_interval_lower_bound("backward", 1, d, a, a, cls, heads=2, kv_heads=1)
            at = stacked_lower_bound_routes("backward", 1, d, a, cls, heads=2, kv_heads=1)
            assert 0 < lo <= at[-1].value
            assert type(lo) is int


# ---- proofs/mask_bounds.py ---------------------------------------------------------------------

def test_band_mask_keeps_rows_divisible_by_three() -> None:
    """Rule: the claims' arbitrary array "band:n" keeps, in rows i ≡ 0 (mod 3) only, the
    columns j with |i − j| ≤ 2 (its comment); built by hand for n = 7."""
    import numpy as np

    n = 7
    want = np.array([[i % 3 == 0 and abs(i - j) <= 2 for j in range(n)] for i in range(n)])
    got = np.asarray(mb._mask(f"band:{n}").array(n), dtype=bool)
    assert (got == want).all()
    assert got[0].sum() == 3 and not got[1].any()


def test_masked_counts_over_heads_use_the_kv_groups() -> None:
    """Rule: with a head shape (B, H, G) every masked count is of H query heads in G K/V
    groups: the grouped-query FlashAttention-2's backward at (1, 4, 2) reads K, V (and
    writes dK, dV) once per group, fewer words than with a K/V head per query head."""
    mask = Mask.window(1)
    out = mb._masked_counts("backward", mask, 64, 8, 256, (1, 4, 2))
    gqa = [g for g in GQA_ALGORITHMS if g in out]
    assert gqa
    for g in gqa:
        grouped = count_heads(g, "backward", 64, 8, 256, batch=1, heads=4, kv_heads=2,
                              mask=mask).io
        assert out[g] == grouped < count_heads(g, "backward", 64, 8, 256, batch=1, heads=4,
                                               kv_heads=4, mask=mask).io


def test_route_without_last_twin_is_l_times_the_segment_count() -> None:
    """Rule: the twin route is max_L L·⌈N/cap(L)⌉ (the − 1 dropped), an integer at least
    the true route: N = 1000 leaves, d = M = 1, hand-computed with the segment cap."""
    from attnio.proofs.mask_bounds import SEGMENT_MULTIPLES, segment_product_cap

    N, d, M = 1000, 1, 1
    want = max(t * M * -(-N // segment_product_cap(d, M, t * M)) for t in SEGMENT_MULTIPLES)
    value, L = mb._route_without_last(N, d, M)
    assert value == want and type(value) is int
    assert value > masked_segment_route(N, d, M)[0]


def test_routes_consistent_counts_a_bound_of_one_as_nontrivial() -> None:
    """Rule: an instance is nontrivial when its route is positive — a masked segment route of
    value 1 (forward, n = 1, d = 4, M = 1: one segment of one I/O) counts."""
    from attnio.proofs.mask_bounds import PRODUCT_FAMILIES

    v = mb._routes_consistent(CTX, grid=[("forward", 1, 4, 1)])
    assert v.proved
    values = [masked_segment_route(PRODUCT_FAMILIES["forward"][0] * mb._mask(s).z_qk(1) * 4,
                                   4, 1)[0] for s in ("causal", "window:1", "window:5")]
    assert values == [1, 1, 1]
    from attnio.bounds.attention import lower_bound_routes
    dense = lower_bound_routes("forward", 1, 4, 1, "forward")[1].value
    assert (v.evidence.instances, v.evidence.nontrivial_instances) == (4, 3 + (dense > 0))


# ---- proofs/stacked_heads.py -------------------------------------------------------------------

def test_counted_twice_twin_doubles_the_products_and_keeps_every_cap() -> None:
    """Rule: the twin counts every product twice and changes nothing else: its segment-only
    routes (the segment, witnessed and joint caps depend on n, d, M and the group, not on the
    batch) equal the true routes at twice the batch."""
    for args in (("backward", 64, 8, 256, "recompute"), ("forward", 64, 8, 256, "forward")):
        twin = sh._routes_counted_twice(*args, batch=1, heads=2, kv_heads=1)
        real = stacked_lower_bound_routes(*args, batch=2, heads=2, kv_heads=1)
        pairs = [(t.value, r.value) for t, r in zip(twin, real, strict=True)
                 if r.claim_id != "heads.stacked_compulsory"
                 and not r.route.endswith("compulsory rest")]
        assert len(pairs) == 2 and all(t == r for t, r in pairs)


def test_segment_check_brute_forces_m_three() -> None:
    """Rule: the brute force covers M = 1, 2, 3 (the odd M between the powers of two): a cap
    that is too small only at M = 3 is refuted there."""
    from attnio.proofs.stacked_heads import cached_segment_product_cap

    def low_at_three(d: int, M: int, L: int) -> int:
        return 0 if M == 3 else cached_segment_product_cap(d, M, L)

    v = sh._segment_check(CTX, cap=low_at_three)
    assert v.verdict == "refuted" and v.counterexample["M"] == 3


def test_stacked_dag_names_the_group_gradient_after_the_group() -> None:
    """Rule: a group's dK, dV partials are summed by a chain whose last add is the group's
    output, named for the group like its shared K, V (b·g·:v); the intermediate sums are
    v#k. Backward, 3 heads in 1 group: each output dK/dV vertex is b0g0:…, reached from the
    three heads' partials."""
    G, outputs = sh._stacked_dag("backward", 2, 1, 1, 3, 1)
    group_outs = [o for o in outputs if o.startswith("b0g0:")]
    assert group_outs and all("#" not in o for o in group_outs)
    for o in group_outs:
        v = o.split(":", 1)[1]
        assert G.in_degree(o) == 2 and f"b0g0:{v}#1" in G
        assert {f"b0h{h}:{v}" for h in range(3)} <= nx.ancestors(G, o)


def test_a_zero_heuristic_share_goes_to_the_exact_search(monkeypatch) -> None:
    """Rule (found by the seed-83 survivor work): ``heuristic_share=0`` gives the long
    heuristic no phase, so the exact search gets the rest of the time — before, the 0 s
    budget read as "the deadline passed" and the run ended undecided with "time limit 100 s
    reached" after one second. Planted: the default share still runs the long heuristic."""
    from attnio.graphs.anytime import anytime_pebble

    calls = _probe_then_optimal(monkeypatch)
    r = anytime_pebble(_cross(), 3, time_limit=100, heuristic_share=0)
    assert [c[0] for c in calls][-2:] == ["exact", "exact"]
    assert r.verdict == "optimal" and r.io == 6
    monkeypatch.undo()
    calls = _probe_then_optimal(monkeypatch)
    anytime_pebble(_cross(), 3, time_limit=100, heuristic_share=0.5)
    assert ("heuristic", 50.0) in calls
