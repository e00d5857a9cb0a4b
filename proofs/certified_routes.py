r"""Soundness of every certified lower-bound route of :mod:`attnio.graphs.lower_bounds`.

Each claim says: for every instance (G, M) of its tier,

.. math:: \text{route}(G, M) \;\le\; Q(G, M) \;\le\; Q_{\text{one-shot}}(G, M),

with :math:`Q` the exact optimum with recomputation (:func:`attnio.graphs.exact.solve_optimal`,
its schedule replayed by :func:`attnio.graphs.game.replay`; the one-shot optimum is never
smaller, its schedules being a subset), and the route's certificate is accepted by its
independent checker (:func:`attnio.graphs.lower_bounds.check_certificate`). The evidence counts
the instances where the route is positive and where it beats the compulsory I/O — a claim whose
route is never positive would check nothing, so each claim requires at least one positive
instance (``Undecided`` otherwise).

Instances: the default tier uses the built-in DAGs whose optimum the solver settles in well
under a second (matmul 1×1×1 … 3×1×3, 2×1×4, 1×4×1 tree, 1×3×1 chain at their sandwich M) and
40 random DAGs of 5–7 vertices (with outputs that are not sinks, and outputs that are inputs);
the deep tier the rest of the sandwich rows with a known optimum (matmul 2×2×2 tree / chain /
fma, 3×1×4, 1×8×1 chain, 1×4×2, attention forward and backward n = 2, d = 1). The
sub-dag-exact claim's default tier keeps only the DAGs of ≤ 10 vertices (its checker re-solves
the sub-DAG with the plain baseline; so does the sub-dag-lp claim); its deep tier has the rest.

Proofs: notes/lower_bounds.md. Sources: Hong–Kung 1981 Lemma 3.1 (= Saha–Ye arXiv 2402.07443
Lemma 2.8); per-part lemmas (:mod:`attnio.proofs.partition_lemmas`); the spill-windows route is
attnio's own (RECONSTRUCTED from Hong–Kung's red-pebble counting and the exact solver's space
pairs).

The checker is :func:`route_verdict` (its questions — the optimum, the records, the certificate
checker — are slots of :class:`RouteOracles`). Each of its failure paths has a false twin
(``lower_bounds.twin.path_*``) that feeds it a planted input: a record one above its own
certificate (Refuted: certificate rejected), a record above Q with a checker that accepts
anything (Refuted: above the optimum), a certificate checker that answers unknown, a search
whose budget runs out, and the Hong–Kung route on instances where it is 0 (the last three
Undecided, as they declare).

False twins of the routes (each Refuted on a concrete DAG, the exact optimum as counterexample):
compulsory I/O that also charges outputs which are inputs and unneeded inputs; Hong–Kung with
"outputs = sinks" dropped (unneeded sinks); the per-part route with the part bound replaced by
1; spill windows with the slack of every computation taken as 0; spill windows charging
non-input predecessors like inputs; forced spills with the condition relaxed to ≥ M; the
saturation windows with one pebble less of room, or with |pred(a) ∪ T| = M − 1 taken as a
saturated red set; the exact sub-DAG plus the compulsory I/O of the whole DAG (double counting); the sub-DAG solved
with M − 1 pebbles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

import networkx as nx

from attnio.graphs.dags import attention_backward_dag, attention_forward_dag, matmul_dag, random_dag
from attnio.graphs.exact import min_cache_size, solve_optimal
from attnio.graphs.game import replay
from attnio.graphs.lower_bounds import (
    ROUTES,
    BoundRecord,
    Deadline,
    Route,
    ancestor_subdag,
    check_certificate,
    choose_window_set,
    compulsory_bound,
    covering_lp_bound,
    forced_spill_sets,
    must_compute,
    outside_moves,
    saturating_sets,
    saturation_reads_min,
    window_reads_min,
)
from attnio.graphs.partitions import min_partition_parts
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Status, Undecided, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS", "default_instances", "deep_instances", "random_instance",
           "RouteOracles", "route_verdict", "route_claims", "route_cases"]


def random_instance(seed: int, n: int) -> nx.DiGraph:
    """A random DAG with varied output conventions (odd seed: a non-sink output; seed ≡ 0
    mod 3: an output that is an input), as in benchmarks/lower_bound_soundness.py.

    >>> G = random_instance(3, 6)
    >>> len(G.graph["outputs"]) >= 1
    True
    """

    G = random_dag(n, 0.5, seed=seed, max_in_degree=2 if seed % 4 < 2 else 3)
    outputs = sorted(v for v in G if G.out_degree(v) == 0)
    inner = sorted((v for v in G if G.out_degree(v) > 0 and G.in_degree(v) > 0),
                   key=lambda v: int(v[1:]))
    if seed % 2 == 1 and inner:
        outputs.append(inner[len(inner) // 2])
    sources = sorted(v for v in G if G.in_degree(v) == 0 and G.out_degree(v) > 0)
    if seed % 3 == 0 and sources:
        outputs.append(sources[0])
    G.graph["outputs"] = outputs
    return G


_MM_DEFAULT = [((1, 1, 1, "tree"), (3, 4)), ((1, 2, 1, "tree"), (3, 4, 5)),
               ((1, 2, 2, "tree"), (3, 4, 5)), ((2, 1, 2, "tree"), (3, 4, 5)),
               ((2, 2, 1, "tree"), (3, 4, 5)), ((1, 3, 1, "chain"), (3, 4, 5)),
               ((1, 4, 1, "tree"), (3, 4, 5)), ((3, 1, 3, "tree"), (3, 4, 5)),
               ((2, 1, 4, "tree"), (3, 4))]
_MM_DEEP = [((2, 2, 2, "tree"), (3, 4, 5, 6, 8)), ((2, 2, 2, "chain"), (3, 4, 5, 6)),
            ((2, 2, 2, "fma"), (4, 5, 6, 7)), ((3, 1, 4, "tree"), (3, 4)),
            ((1, 8, 1, "chain"), (3, 4)), ((1, 4, 2, "tree"), (3, 4))]


def default_instances() -> list[tuple[str, nx.DiGraph, int]]:
    """(label, DAG, M) of the default tier."""
    out = []
    for (m, k, p, s), Ms in _MM_DEFAULT:
        G = matmul_dag(m, k, p, s)
        out += [(f"matmul {m}x{k}x{p} {s}", G, M) for M in Ms]
    for seed in range(40):
        G = random_instance(seed, 5 + seed % 3)
        least = min_cache_size(G)
        out += [(f"random seed={seed} n={5 + seed % 3}", G, M) for M in (least, least + 1)]
    return out


def deep_instances() -> list[tuple[str, nx.DiGraph, int]]:
    """(label, DAG, M) of the deep tier."""
    out = []
    for (m, k, p, s), Ms in _MM_DEEP:
        G = matmul_dag(m, k, p, s)
        out += [(f"matmul {m}x{k}x{p} {s}", G, M) for M in Ms]
    G = attention_forward_dag(2, 1)
    out += [("attention forward n=2 d=1", G, M) for M in (3, 4, 5, 6, 7, 8, 16)]
    G = attention_backward_dag(2, 1, "qkv")
    out += [("attention backward qkv n=2 d=1", G, M) for M in (16, 58)]
    return out


_OPT_CACHE: dict[tuple[int, int], tuple[nx.DiGraph, int | None]] = {}


def _optimum(G: nx.DiGraph, M: int, seconds: float) -> int | None:
    """Exact Q(G, M) with recomputation (schedule replayed), None if infeasible/undecided."""
    key = (id(G), M)
    hit = _OPT_CACHE.get(key)
    if hit is not None and hit[0] is G:
        return hit[1]
    res = solve_optimal(G, M, time_limit=seconds, progress=False)
    q = None
    if res.verdict is Status.OPTIMAL:
        q = res.io
        if replay(G, res.schedule, M).io != q:
            raise AssertionError("optimal schedule does not replay to its cost")
    _OPT_CACHE[key] = (G, q)
    return q


@lru_cache(maxsize=None)
def _instances(tier: str) -> tuple[tuple[str, nx.DiGraph, int], ...]:
    return tuple(default_instances() if tier == "default" else deep_instances())


def _route_records(route: str, G: nx.DiGraph, M: int, ctx: CheckContext) -> list:
    """Only the records of one route (the claims check each route on its own): its registered
    ``compute``, with the solver budget of ``ctx`` and no deadline."""
    return ROUTES[route].compute(G, M, deadline=Deadline.never(), timeout_ms=ctx.z3_timeout_ms)


@dataclass(frozen=True)
class RouteOracles:
    """What :func:`route_verdict` asks about an instance — a slot per question, so that a false
    twin can plant an answer (a budget that runs out, a checker that accepts anything):

    * ``optimum(G, M, seconds)`` — the exact Q(G, M) (replayed), or None if not settled;
    * ``records(route, G, M, ctx)`` — the route's :class:`BoundRecord` s;
    * ``certify(G, M, record, timeout_ms)`` — the independent certificate checker's verdict;
    * ``least_M(G)`` — the least M with a complete schedule (below it, None is infeasibility);
    * ``compulsory(G, M)`` — the compulsory I/O (to count records above it).
    """

    optimum: Callable[[nx.DiGraph, int, float], int | None] = _optimum
    records: Callable[[str, nx.DiGraph, int, CheckContext], list] = field(
        default=lambda route, G, M, ctx: _route_records(route, G, M, ctx))
    certify: Callable[[nx.DiGraph, int, BoundRecord, int], Verdict] = field(
        default=lambda G, M, rec, timeout_ms: check_certificate(G, M, rec, timeout_ms=timeout_ms))
    least_M: Callable[[nx.DiGraph], int] = min_cache_size
    compulsory: Callable[[nx.DiGraph, int], int] = field(
        default=lambda G, M: compulsory_bound(G, M).value)


def route_verdict(route_prefix: str, cases: Iterable[tuple[str, nx.DiGraph, int]],
                  ctx: CheckContext, oracles: RouteOracles = RouteOracles()) -> Verdict:
    r"""The claim "route ≤ Q(G, M), certificate accepted" on every case ``(label, G, M)``.

    Only the applying records of the route (named ``route_prefix…``) are compared. Each failure
    path has a false twin in the claims (``lower_bounds.twin.path_*``) and one in the tests.

    Side conditions
    ---------------
    1. ``certificate-accepted``: the certificate checker accepts every record — a rejected
       certificate is Refuted (the instance and the checker's reason).
    2. ``certificate-decided``: the check itself is decided — an undecided check (a z3
       unknown, a time limit) is Undecided, never a pass.
    3. ``within-optimum``: every record is at most the exact optimum — one above is Refuted
       (record, optimum).
    4. ``optimum-settled``: the optimum is settled wherever a schedule exists (M ≥ the least
       M) — otherwise Undecided.
    5. ``non-vacuous``: some record is positive (a route that is 0 everywhere checks
       nothing) — otherwise Undecided, "vacuous".

    Proved carries ``exhaustive`` evidence: the records checked, of which the positive ones are
    non-trivial (a record could exceed Q only where it is positive).
    """
    checked = positive = above = undecided = 0
    for label, G, M in cases:
        q = oracles.optimum(G, M, ctx.search_seconds)
        if q is None:
            undecided += M >= oracles.least_M(G)   # below it no schedule exists: nothing to check
            continue
        compulsory = oracles.compulsory(G, M)
        for rec in oracles.records(route_prefix, G, M, ctx):
            if not rec.route.startswith(route_prefix) or not rec.applies:
                continue
            verdict = oracles.certify(G, M, rec, ctx.z3_timeout_ms)
            if isinstance(verdict, Refuted):
                return Refuted({"instance": label, "M": M, "route": rec.route},
                               f"{label} M={M}: certificate rejected: {verdict.detail}")
            if not verdict.proved:
                return Undecided(f"{label} M={M}: certificate check undecided: {verdict.detail}")
            if rec.value > q:
                return Refuted({"instance": label, "M": M, "route": rec.route,
                                "bound": rec.value, "optimum": q},
                               f"{label} M={M}: {rec.route} = {rec.value} > Q = {q}")
            checked += 1
            positive += rec.value > 0
            above += rec.value > compulsory
    if undecided:
        return Undecided(f"{undecided} instances without a settled optimum")
    if positive == 0:
        return Undecided(f"{route_prefix}: never positive on {checked} records — vacuous")
    return Proved(f"{checked} (instance, M) records ≤ exact Q, certificates accepted; "
                  f"positive on {positive}, above the compulsory I/O on {above}",
                  evidence=Evidence.exhaustive(checked, positive))


#: The sub-DAG route's default tier keeps the DAGs of at most this many vertices.
SUBDAG_DEFAULT_MAX_VERTICES = 10


def route_cases(route: Route, tier: str,
                instances: Callable[[str], Iterable[tuple[str, nx.DiGraph, int]]] | None = None
                ) -> list[tuple[str, nx.DiGraph, int]]:
    """The instances of a route's claim: its tier's; a route of cost class ``exact`` (its
    checker re-solves sub-DAGs with the plain baseline) keeps in its default tier the DAGs of
    ≤ :data:`SUBDAG_DEFAULT_MAX_VERTICES` vertices, its deep tier takes the rest.
    ``instances(tier)`` replaces the tiers (tests)."""
    tiers = instances or _instances
    cases = list(tiers(tier))
    if route.cost != "exact":
        return cases
    small = SUBDAG_DEFAULT_MAX_VERTICES
    if tier == "default":
        return [c for c in cases if c[1].number_of_nodes() <= small]
    return cases + [c for c in tiers("default") if c[1].number_of_nodes() > small]


def _route_cases(route_prefix: str, tier: str,
                 instances: Callable[[str], Iterable[tuple[str, nx.DiGraph, int]]] | None = None
                 ) -> list[tuple[str, nx.DiGraph, int]]:
    """:func:`route_cases` of the registered route ``route_prefix``."""
    return route_cases(ROUTES[route_prefix], tier, instances)


def _route_check(route: Route | str, tier: str) -> Callable[[CheckContext], Verdict]:
    chosen = ROUTES[route] if isinstance(route, str) else route

    def check(ctx: CheckContext) -> Verdict:
        return route_verdict(chosen.name, route_cases(chosen, tier), ctx)
    return check


def _claim(route: Route, tier: str, check: Callable[[CheckContext], Verdict], *,
           twin_of: str | None = None, id: str | None = None,
           statement: str | None = None, evidence_kind: str = "exhaustive",
           expect: str = "refuted", expect_reason: str = "") -> Claim:
    where = ("the default tier (small matmul DAGs, 40 random DAGs with non-sink and input "
             "outputs)" if tier == "default" else
             "the deep tier (matmul 2x2x2, 3x1x4, 1x8x1, 1x4x2, attention n=2, d=1)")
    return Claim(
        id=id or f"{claim_id(route)}{'' if tier == 'default' else '_deep'}",
        statement=statement or (f"route {route.name} ≤ exact optimum Q(G, M) (recomputation "
                                f"allowed, hence also one-shot) on every instance of {where}; "
                                f"every certificate accepted by its checker"),
        formal="value(G, M) ≤ Q(G, M), exact ints; check_certificate(...) is Proved",
        source=route.source, method="exact A* pebbling + independent certificate checker",
        family="lower_bounds", check_fn=check, reconstructed=route.reconstructed,
        tier=tier, twin_of=twin_of, evidence_kind=evidence_kind,  # type: ignore[arg-type]
        expect=expect, expect_reason=expect_reason)  # type: ignore[arg-type]


def claim_id(route: Route) -> str:
    """The id of a route's (default-tier) claim: ``lower_bounds.<name with _ for ->``."""
    return f"lower_bounds.{route.name.replace('-', '_')}"


def route_claims(routes: Iterable[Route]) -> list[Claim]:
    """One claim per route and tier (default, deep): every record of the route at most the
    exact optimum on the tier's instances, every certificate accepted by its checker."""
    routes = list(routes)
    return [_claim(route, tier, _route_check(route, tier))
            for tier in ("default", "deep") for route in routes]


CLAIMS: list[Claim] = route_claims(ROUTES.values())


# --------------------------------------------------------------------------------------------
# False twins
# --------------------------------------------------------------------------------------------


def _refute_if_above(label: str, G: nx.DiGraph, M: int, value: int, ctx: CheckContext,
                     what: str) -> Verdict:
    q = _optimum(G, M, ctx.search_seconds)
    if q is None:
        return Undecided(f"{label} M={M}: optimum not settled")
    if value > q:
        return Refuted({"instance": label, "M": M, "twin": value, "optimum": q,
                        "edges": sorted(map(list, G.edges))[:40],
                        "outputs": list(G.graph.get("outputs", []))},
                       f"{label} M={M}: {what} = {value} > Q = {q}")
    return Proved(f"{label} M={M}: {what} = {value} ≤ Q = {q}")


def _twin_lp_weights_one(ctx: CheckContext) -> Verdict:
    """sub-dag-lp with every member's weight 1: the vertices members share are charged once
    per member (the dual is infeasible), so the sum of the members' optima is no bound."""
    G = matmul_dag(2, 2, 2)
    record = covering_lp_bound(G, 4)
    value = sum(m["Q_H"] for m in record.certificate.get("members", []))
    return _refute_if_above("matmul 2x2x2", G, 4, value, ctx,
                            "sum of the members' Q(H) (every weight 1)")


def _twin_compulsory(ctx: CheckContext) -> Verdict:
    """Charge every input and every output (input outputs and unneeded inputs included)."""
    G = nx.DiGraph([("a", "b"), ("x", "y")])
    G.graph["outputs"] = ["b", "x"]
    value = sum(1 for v in G if G.in_degree(v) == 0) + len(G.graph["outputs"])
    return _refute_if_above("a→b, x→y, outputs b, x", G, 2, value, ctx,
                            "|inputs| + |outputs|")


def _twin_hong_kung(ctx: CheckContext) -> Verdict:
    """HK Lemma 3.1 with "outputs = sinks" dropped: nine unneeded sinks."""

    G = nx.DiGraph([("a", "b")] + [("a", f"s{i}") for i in range(9)])
    G.graph["outputs"] = ["b"]
    H = G.copy()
    del H.graph["outputs"]  # the partition argument ignores which sinks are needed
    part = min_partition_parts(H, 4, timeout_ms=ctx.z3_timeout_ms)
    if not part.exact:
        return Undecided(part.reason)
    return _refute_if_above("a→b plus 9 unneeded sinks", G, 2, 2 * (part.value - 1), ctx,
                            "M·(P(G, 2M) − 1)")


def _twin_per_part(ctx: CheckContext) -> Verdict:
    """The per-part matmul route with β(2S) replaced by 1 (constant far too large)."""
    G = matmul_dag(2, 2, 2)
    return _refute_if_above("matmul 2x2x2", G, 4, 4 * (8 - 1), ctx, "S·(⌈8/1⌉ − 1)")


def _spill_twin_value(G: nx.DiGraph, M: int, **knobs) -> int:
    inputs, outs, N, need = must_compute(G)
    margin = knobs.pop("margin", 0)
    U = choose_window_set(G, N, inputs, M, 16)
    got = window_reads_min(G, U, M, **knobs)
    assert got is not None
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    forced = sum(t["charge"] for t in forced_spill_sets(G, M, margin=margin))
    return got[0] + len(need - covered) + forced + len(outs)


def _twin_zero_slack(ctx: CheckContext) -> Verdict:
    G = matmul_dag(2, 2, 2)
    return _refute_if_above("matmul 2x2x2", G, 8, _spill_twin_value(G, 8, slack_override=0),
                            ctx, "spill windows with slack 0")


def _twin_non_inputs(ctx: CheckContext) -> Verdict:
    G = matmul_dag(1, 2, 2)
    return _refute_if_above("matmul 1x2x2", G, 3,
                            _spill_twin_value(G, 3, count_non_inputs=True), ctx,
                            "spill windows charging non-input predecessors")


def _twin_forced_margin(ctx: CheckContext) -> Verdict:
    G = matmul_dag(1, 2, 1)
    return _refute_if_above("matmul 1x2x1", G, 4, _spill_twin_value(G, 4, margin=1), ctx,
                            "forced spills with |pred(a) ∪ T| ≥ M")


def _twin_subdag_double_count(ctx: CheckContext) -> Verdict:
    """Q(H) plus the compulsory I/O of the whole DAG (moves inside H counted twice)."""
    G = matmul_dag(1, 2, 1)
    H = ancestor_subdag(G, ["C[0,0]"])
    q_h = _optimum(H, 3, ctx.search_seconds)
    _, outs, _, need = must_compute(G)
    if q_h is None:
        return Undecided("Q(H) not settled")
    return _refute_if_above("matmul 1x2x1 (H = G)", G, 3, q_h + len(need) + len(outs), ctx,
                            "Q(H) + |I_N| + |O*|")


def _twin_subdag_fewer_pebbles(ctx: CheckContext) -> Verdict:
    """The sub-DAG solved with M − 1 red pebbles (more I/O) instead of M."""
    G = matmul_dag(1, 2, 1)
    H = ancestor_subdag(G, ["C[0,0]"])
    q_h = _optimum(H, 3, ctx.search_seconds)
    if q_h is None:
        return Undecided("Q(H, M − 1) not settled")
    rest = outside_moves(G, 4, frozenset(H))
    value = (q_h + rest["window_reads"] + len(rest["inputs_outside"]) + rest["forced_moves"]
             + len(rest["output_writes_outside"]))
    return _refute_if_above("matmul 1x2x1 (H = G)", G, 4, value, ctx, "Q(H, M − 1) + outside")


def _saturation_twin_value(G: nx.DiGraph, M: int, *, family_M: int, room_delta: int) -> int:
    inputs, outs, N, need = must_compute(G)
    family = saturating_sets(G, family_M)
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    wanted = ({v for v in order if any(u in inputs for u in G.predecessors(v))}
              | {t["at"] for t in family} | {a for t in family for a in t["set"]})
    U = [v for v in order if v in wanted]
    got = saturation_reads_min(G, M, U, family, room_delta=room_delta)
    assert got is not None
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    return got + len(need - covered) + len(outs)


def _twin_saturation_room(ctx: CheckContext) -> Verdict:
    G = matmul_dag(2, 1, 2)
    return _refute_if_above("matmul 2x1x2", G, 4,
                            _saturation_twin_value(G, 4, family_M=4, room_delta=-1), ctx,
                            "saturation windows with one pebble less of room")


def _twin_saturation_exact_below_M(ctx: CheckContext) -> Verdict:
    G = matmul_dag(1, 2, 1)
    return _refute_if_above("matmul 1x2x1", G, 4,
                            _saturation_twin_value(G, 4, family_M=3, room_delta=0), ctx,
                            "saturation windows taking |pred(a) ∪ T| = M − 1 as saturated")


def _twin(id: str, route: str, statement: str, check: Callable[[CheckContext], Verdict],
          **kw: str) -> Claim:
    """A twin refuted on one concrete DAG by the exact optimum (evidence ``search``), or — with
    ``evidence_kind`` / ``expect`` — a planted input of :func:`route_verdict`."""
    return _claim(ROUTES[route], "default", check, twin_of=claim_id(ROUTES[route]),
                  id=f"lower_bounds.twin.{id}", statement=statement,
                  **{"evidence_kind": "search", **kw})


# --- planted inputs of route_verdict: one twin per failure path --------------------------------

#: Two tiny default-tier instances (their optimum settles in milliseconds).
_PATH_CASES = [("matmul 1x2x1 tree", 3), ("matmul 2x1x2 tree", 4)]


def _path_cases() -> list[tuple[str, nx.DiGraph, int]]:
    out = []
    for label, M in _PATH_CASES:
        m, k, p = (int(x) for x in label.split()[1].split("x"))
        out.append((label, matmul_dag(m, k, p, "tree"), M))
    return out


def _path_check(route: str, **planted) -> Callable[[CheckContext], Verdict]:
    def check(ctx: CheckContext) -> Verdict:
        return route_verdict(route, _path_cases(), ctx, RouteOracles(**planted))
    return check


def _value_plus_one(route, G, M, ctx) -> list[BoundRecord]:
    """The compulsory record with its value one above what its certificate supports."""
    rec = compulsory_bound(G, M)
    return [BoundRecord(rec.route, rec.value + 1, rec.applies, rec.why_not, rec.certificate)]


def _value_of_optimum_plus_one(route, G, M, ctx) -> list[BoundRecord]:
    """A compulsory record claiming Q + 1 (its certificate is not checked: see the twin)."""
    rec = compulsory_bound(G, M)
    q = _optimum(G, M, ctx.search_seconds)
    return [BoundRecord(rec.route, (q or 0) + 1, True, None, rec.certificate)]


def _path_twin(id: str, statement: str, check: Callable[[CheckContext], Verdict], *,
               expect: str = "refuted", reason: str) -> Claim:
    return _twin(f"path_{id}", "compulsory", statement + " — on matmul 1x2x1 (M = 3) and 2x1x2 "
                 "(M = 4), through route_verdict", check, evidence_kind="exhaustive",
                 expect=expect, expect_reason=reason)


FALSE_TWINS: list[Claim] = [
    _twin("compulsory_all_inputs_outputs", "compulsory",
          "Q ≥ |inputs| + |outputs| (input outputs and unneeded inputs charged): on a→b, x→y "
          "with outputs b, x", _twin_compulsory),
    _twin("hong_kung_unneeded_sinks", "hong-kung",
          "Q ≥ M(P(G, 2M) − 1) with 'outputs = sinks' dropped: a→b plus nine unneeded sinks",
          _twin_hong_kung),
    _twin("per_part_beta_one", "per-part",
          "per-part route with β(2S) = 1 on matmul 2x2x2, M = 4", _twin_per_part),
    _twin("spill_zero_slack", "spill-windows",
          "spill windows with every computation's slack taken as 0 (matmul 2x2x2, M = 8)",
          _twin_zero_slack),
    _twin("spill_non_inputs", "spill-windows",
          "spill windows charging non-input predecessors like inputs (matmul 1x2x2, M = 3)",
          _twin_non_inputs),
    _twin("spill_forced_margin", "spill-windows",
          "forced spills with the condition |pred(a) ∪ T| > M relaxed to ≥ M (matmul 1x2x1, "
          "M = 4)", _twin_forced_margin),
    _twin("saturation_less_room", "saturation-windows",
          "saturation windows with the room for inputs one less than M gives (matmul 2x1x2, "
          "M = 4)", _twin_saturation_room),
    _twin("saturation_exact_below_M", "saturation-windows",
          "saturation windows treating |pred(a) ∪ T| = M − 1 as a saturated (exact) red set "
          "(matmul 1x2x1, M = 4)", _twin_saturation_exact_below_M),
    _twin("subdag_double_count", "sub-dag-exact",
          "Q(H) + the compulsory I/O of all of G (moves on H counted twice): matmul 1x2x1, "
          "M = 3", _twin_subdag_double_count),
    _twin("subdag_fewer_pebbles", "sub-dag-exact",
          "Q(H, M − 1) + moves outside H: matmul 1x2x1, M = 4", _twin_subdag_fewer_pebbles),
    _twin("lp_weights_one", "sub-dag-lp",
          "the members' optima summed with every weight 1 (shared vertices charged once per "
          "member): matmul 2x2x2, M = 4", _twin_lp_weights_one),
    _path_twin("certificate_rejected",
               "a compulsory record whose value is one above its own certificate",
               _path_check("compulsory", records=_value_plus_one), reason="certificate rejected"),
    _path_twin("above_optimum",
               "a compulsory record claiming Q + 1, with a certificate checker that accepts "
               "anything (the comparison with the exact optimum must catch it alone)",
               _path_check("compulsory", records=_value_of_optimum_plus_one,
                           certify=lambda G, M, rec, t: Proved("planted: accepts anything")),
               reason="> Q ="),
    _path_twin("certificate_undecided",
               "a certificate checker that answers unknown (a z3 timeout in the partition check)",
               _path_check("compulsory", certify=lambda G, M, rec, t: Undecided(
                   "planted: z3 returned unknown")),
               expect="undecided", reason="certificate check undecided"),
    _path_twin("unsettled_optimum",
               "an exact search whose budget runs out (the optimum is None where a schedule "
               "exists)", _path_check("compulsory", optimum=lambda G, M, seconds: None),
               expect="undecided", reason="without a settled optimum"),
    _twin("path_zero_route", "hong-kung",
          "the Hong–Kung route on matmul 1x2x1 (M = 3) and 2x1x2 (M = 4), where it is 0: a "
          "claim resting on them could never fail — through route_verdict",
          _path_check("hong-kung"), evidence_kind="exhaustive", expect="undecided",
          expect_reason="never positive"),
]


if __name__ == "__main__":
    import sys

    _deep = "--deep" in sys.argv
    raise SystemExit(run_module([c for c in CLAIMS if _deep or c.tier == "default"],
                                FALSE_TWINS, CheckContext(deep=_deep)))
