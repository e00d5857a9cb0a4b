"""The registry of lower-bound routes (attnio.graphs.lower_bounds.registry, issue 40): every
registered route is complete, everything reads the registry, and the recipe of
notes/extending.md ("Add a lower-bound route") works — followed here with a toy route.
"""

from __future__ import annotations

import dataclasses
import re
import types
from pathlib import Path

import networkx as nx
import pytest

import attnio.proofs.certified_routes as certified_routes_module
from attnio.commands.lower_bound import summarise_certificate
from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import matmul_dag
from attnio.graphs.game import game_inputs, game_outputs
from attnio.graphs.lower_bounds import (
    ROUTES,
    BoundRecord,
    Deadline,
    Route,
    certified_routes,
    check_certificate,
    get_route,
    lower_bounds,
    route_of,
)
from attnio.graphs.lower_bounds.registry import ROUTE_MODULES, collect_routes
from attnio.proofs.certified_routes import CLAIMS, FALSE_TWINS, claim_id, route_claims
from attnio.results import Proved, Refuted, Verdict

pytestmark = pytest.mark.trust

ROOT = Path(__file__).resolve().parents[2]
SMALL = matmul_dag(1, 2, 1)


@pytest.fixture(scope="module")
def small_records() -> dict[str, list[BoundRecord]]:
    """Every route's records on matmul 1x2x1 at M = 3, where each of them applies."""
    return {name: route.compute(SMALL, 3, deadline=Deadline.never(), timeout_ms=10_000)
            for name, route in ROUTES.items()}


def test_the_registry_holds_the_seven_routes_in_their_order() -> None:
    assert list(ROUTES) == ["compulsory", "hong-kung", "per-part", "spill-windows",
                            "saturation-windows", "sub-dag-exact", "sub-dag-lp"]
    assert [r.name for m in ROUTE_MODULES for r in m.ROUTES] == list(ROUTES)
    assert {r.cost for r in ROUTES.values()} == {"linear", "search", "exact"}
    assert [r.name for r in ROUTES.values() if not r.searching] == ["compulsory", "per-part"]


def test_every_route_has_a_checker_a_description_a_claim_and_a_twin(small_records) -> None:
    claims = {c.id: c for c in CLAIMS}
    twins = {t.twin_of for t in FALSE_TWINS}
    for name, route in ROUTES.items():
        records = small_records[name]
        assert records and all(r.applies and route.owns(r.route) for r in records), name
        for record in records:
            assert route.check(SMALL, 3, record).proved, name        # its checker
            assert check_certificate(SMALL, 3, record).proved, name   # dispatched to it
            line = route.describe(record.certificate)                 # its description
            assert isinstance(line, str) and line and summarise_certificate(record) == line
        assert "Side conditions" in (route.check.__doc__ or ""), name
        default, deep = claims[claim_id(route)], claims[claim_id(route) + "_deep"]  # claims
        assert (default.tier, deep.tier) == ("default", "deep")
        assert default.source == route.source and default.reconstructed == route.reconstructed
        assert claim_id(route) in twins, f"{name}: no false twin in FALSE_TWINS"   # its twin


def test_route_of_finds_the_owner_of_a_record_name() -> None:
    assert route_of("compulsory") is ROUTES["compulsory"]
    assert route_of("per-part: Saha-Ye level-1") is ROUTES["per-part"]
    for name in ("per-part", "per-part: other", "Compulsory", "", "sub-dag"):
        assert route_of(name) is None, name
    assert get_route("sub-dag-lp") is ROUTES["sub-dag-lp"]
    for name in ("x", ["x"], None):
        with pytest.raises(InvalidInputError, match=re.escape(f"route {name!r} is unknown; "
                                                              "known routes: compulsory, ")):
            get_route(name)


def test_a_route_record_refuses_an_unknown_cost_or_switch() -> None:
    route = ROUTES["compulsory"]
    with pytest.raises(ValueError, match="^route 'compulsory': cost='cheap' is not one of "
                                         "linear, search, exact$"):
        dataclasses.replace(route, cost="cheap")
    with pytest.raises(ValueError, match="^route 'compulsory': switch='fast' is not one of "
                                         "hong_kung, windows, subdag$"):
        dataclasses.replace(route, switch="fast")
    assert route.not_computed("why") == [BoundRecord("compulsory", 0, False, "why", {})]
    assert ROUTES["per-part"].not_computed("why")[1].route == "per-part: Saha-Ye level-1"


def test_collect_routes_refuses_a_module_without_routes_or_a_name_twice() -> None:
    empty = types.ModuleType("empty")
    with pytest.raises(ValueError, match="empty has no ROUTES tuple"):
        collect_routes([empty])
    listed = types.ModuleType("listed")
    listed.ROUTES = [ROUTES["compulsory"]]                 # a list, not a tuple
    with pytest.raises(ValueError, match="listed has no ROUTES tuple"):
        collect_routes([listed])
    again = types.ModuleType("again")
    again.ROUTES = (dataclasses.replace(ROUTES["spill-windows"], name="compulsory"),)
    with pytest.raises(ValueError, match="route 'compulsory' of again is registered twice"):
        collect_routes([*ROUTE_MODULES, again])
    owner = types.ModuleType("owner")
    owner.ROUTES = (dataclasses.replace(ROUTES["per-part"], name="other"),)   # same records
    with pytest.raises(ValueError, match="registered twice"):
        collect_routes([*ROUTE_MODULES, owner])


def test_skipped_routes_say_so_through_their_switch() -> None:
    records = lower_bounds(SMALL, 3, hong_kung=False, subdag=False, windows=False)
    skipped = {r.route: r.why_not for r in records if not r.applies}
    assert skipped == {"hong-kung": "skipped (hong_kung=False)",
                       "spill-windows": "skipped (windows=False)",
                       "saturation-windows": "skipped (windows=False)",
                       "sub-dag-exact": "skipped (subdag=False)",
                       "sub-dag-lp": "skipped (subdag=False)"}


# ---- the recipe of notes/extending.md, followed with a toy route --------------------------------

def _toy_bound(G: nx.DiGraph, M: int, *, deadline: Deadline | None = None) -> BoundRecord:
    """Step 1: the route — one write per non-input output."""
    inputs = set(game_inputs(G))
    writes = sorted(o for o in game_outputs(G) if o not in inputs)
    return BoundRecord("toy-writes", len(writes), True, None, {"writes": writes})


def check_toy(G: nx.DiGraph, M: int, record: BoundRecord, *, deadline: Deadline | None = None,
              timeout_ms: int = 20_000) -> Verdict:
    """Step 1: the checker.

    Side conditions
    ---------------
    1. ``writes-are-outputs``: every listed write is a non-input output, none twice.
    2. ``value-is-count``: value = the number of listed writes.
    """
    inputs = set(game_inputs(G))
    writes = list(record.certificate["writes"])
    outs = set(game_outputs(G)) - inputs
    if len(set(writes)) != len(writes) or not set(writes) <= outs:
        return Refuted({"writes": writes}, "not distinct non-input outputs")
    if record.value != len(writes):
        return Refuted({"value": record.value}, "value ≠ the number of writes")
    return Proved(f"{len(writes)} output writes")


def _toy_module() -> types.ModuleType:
    """The module of step 1: its Route record and ROUTES tuple."""
    module = types.ModuleType("toy_route")
    module.ROUTES = (Route(
        "toy-writes",
        compute=lambda G, M, *, deadline, timeout_ms: [_toy_bound(G, M, deadline=deadline)],
        check=check_toy, cost="linear", source="folklore (one write per output)",
        reconstructed=False, describe=lambda c: f"{len(c['writes'])} output writes"),)
    return module


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Route:
    """Step 2: registered (collect_routes over ROUTE_MODULES and the toy module)."""
    routes = collect_routes([*ROUTE_MODULES, _toy_module()])
    assert list(routes)[-1] == "toy-writes"
    monkeypatch.setitem(ROUTES, "toy-writes", routes["toy-writes"])
    return routes["toy-writes"]


def test_the_recipe_section_names_what_the_toy_route_uses() -> None:
    text = (ROOT / "notes" / "extending.md").read_text(encoding="utf-8")
    match = re.search(r"^## Add a lower-bound route\n(.*?)(?=^## )", text, re.M | re.S)
    assert match, "notes/extending.md has no section 'Add a lower-bound route'"
    section = match.group(1)
    for needed in ("graphs/lower_bounds/<name>.py", "Route(", "ROUTES = (ROUTE,)",
                   "ROUTE_MODULES", "graphs/lower_bounds/registry.py", "Side conditions",
                   "check_<name>", "describe_<name>", "FALSE_TWINS", "test_twin__check_<name>",
                   "FORGERS", "TRUSTED", "notes/claims.md", "notes/lower_bounds.md"):
        assert needed in section, needed


def test_a_toy_route_registered_by_the_recipe_runs_everywhere(toy: Route) -> None:
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
    G.graph["outputs"] = ["c", "d"]
    # lower_bounds() and certified_routes() run it, after the others
    records = lower_bounds(G, 3)
    assert records[-1] == BoundRecord("toy-writes", 2, True, None, {"writes": ["c", "d"]})
    checked = certified_routes(G, 3)
    assert checked[-1].record.route == "toy-writes" and checked[-1].certified
    # check_certificate dispatches to its checker, which rejects a forged certificate
    assert check_certificate(G, 3, records[-1]) == Proved("2 output writes")
    forged = dataclasses.replace(records[-1], value=3,
                                 certificate={"writes": ["c", "d", "a"]})
    assert check_certificate(G, 3, forged) == Refuted({"writes": ["c", "d", "a"]},
                                                      "not distinct non-input outputs")
    # attnio lower-bound describes it
    assert summarise_certificate(records[-1]) == "2 output writes"
    # step 3: its claims come from the record, and hold on a tier of two instances
    claims = route_claims([toy])
    assert [c.id for c in claims] == ["lower_bounds.toy_writes", "lower_bounds.toy_writes_deep"]
    assert [c.tier for c in claims] == ["default", "deep"]
    assert claims[0].source == "folklore (one write per output)"
    assert not claims[0].reconstructed


def test_the_toy_routes_claim_is_checked_against_the_exact_optimum(
        toy: Route, monkeypatch: pytest.MonkeyPatch) -> None:
    small = [("matmul 1x2x1", SMALL, 3), ("matmul 1x1x1", matmul_dag(1, 1, 1), 3)]
    tiers = {"default": tuple(small), "deep": tuple(small[:1])}
    monkeypatch.setattr(certified_routes_module, "_instances", tiers.__getitem__)
    default, deep = route_claims([toy])
    verdict = default.check()
    assert verdict.proved and verdict.evidence.instances == 2        # the default tier's
    assert deep.check().evidence.instances == 1                      # the deep tier's
    # a toy that claims one write too many is refuted by its checker through the claim
    loud = dataclasses.replace(toy, compute=lambda G, M, **kw: [dataclasses.replace(
        _toy_bound(G, M), value=_toy_bound(G, M).value + 1)])
    monkeypatch.setitem(ROUTES, "toy-writes", loud)
    verdict = route_claims([loud])[0].check()
    assert verdict.verdict == "refuted" and "certificate rejected" in verdict.detail


# ---- what the checkers decide with: the game's sets, and what counts as a bound ----------------

def test_must_compute_names_each_set_of_the_game() -> None:
    from attnio.graphs.lower_bounds import must_compute
    from attnio.graphs.lower_bounds.records import vertices_to_compute

    # a, b -> c -> d; x -> y (y unneeded); e -> c; outputs: c (inner), x (an input), d
    G = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d"), ("x", "y"), ("e", "c")])
    G.graph["outputs"] = ["c", "x", "d"]
    inputs, outs, N, need = must_compute(G)
    assert inputs == frozenset({"a", "b", "e", "x"})
    assert outs == ["c", "d"]                       # x is blue from the start
    assert N == frozenset({"c", "d"}) and need == frozenset({"a", "b", "e"})
    assert must_compute(G, ["y"])[2:] == (frozenset({"y"}), frozenset({"x"}))
    assert vertices_to_compute(G, ["d", "x"], {"a", "b", "e", "x"}) == frozenset({"c", "d"})
    assert vertices_to_compute(G, [], {"a"}) == frozenset()
    chain = nx.DiGraph([("p", "q"), ("q", "r"), ("r", "s")])
    assert vertices_to_compute(chain, ["s"], {"p"}) == frozenset({"q", "r", "s"})
    # x is reached twice (an output and y's predecessor): the search passes over the second
    # visit and goes on to w
    two = nx.DiGraph([("a", "w"), ("b", "x"), ("x", "y")])
    assert vertices_to_compute(two, ["w", "x", "y"], {"a", "b"}) == frozenset({"w", "x", "y"})


def test_certified_route_says_what_the_time_limit_cut() -> None:
    from attnio.graphs.lower_bounds import CertifiedRoute
    from attnio.graphs.lower_bounds.deadline import CHECK_TIME_LIMIT_REASON, TIME_LIMIT_REASON
    from attnio.results import Undecided

    record = BoundRecord("spill-windows", 7, True)
    assert CertifiedRoute(record, Undecided(CHECK_TIME_LIMIT_REASON)).cut_by_time
    assert not CertifiedRoute(record, Undecided("z3 answered unknown")).cut_by_time
    assert not CertifiedRoute(record, Refuted({}, CHECK_TIME_LIMIT_REASON)).cut_by_time
    assert not CertifiedRoute(record, Proved()).cut_by_time
    cut = BoundRecord("spill-windows", 0, False, TIME_LIMIT_REASON)
    assert CertifiedRoute(cut, Proved("does not apply")).cut_by_time
    assert not CertifiedRoute(BoundRecord("x", 0, False, "skipped"), Proved()).cut_by_time
    assert CertifiedRoute(record, Refuted({}, "no")).refuted
    assert not CertifiedRoute(record, Undecided("u")).refuted
    assert not CertifiedRoute(record, Proved()).refuted
