r"""Route 5 of :mod:`attnio.graphs.lower_bounds`: saturation windows, with its checker.

Notation as in :mod:`attnio.graphs.lower_bounds`; route 4 is
:mod:`attnio.graphs.lower_bounds.windows`; the full proof is notes/lower_bounds.md, route 5.

Route
-----
``saturation-windows`` (new; attnio; notes/lower_bounds.md route 5): route 4 with the set
of red inputs at each event tracked exactly, and *saturated events* — for disjoint sets T of
non-input predecessors of w with :math:`|\mathrm{pred}(a) \cup T| \ge M`, either a member
is read (charged as in 4b) or, when the last one is computed, the red set is exactly
:math:`\mathrm{pred}(a^\ast) \cup T` and the other members stay red until w is computed.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any, Iterable

import networkx as nx

from attnio.graphs.game import game_inputs, game_outputs, validate_cache_size
from attnio.graphs.lower_bounds.deadline import Deadline, as_deadline
from attnio.graphs.lower_bounds.records import (
    BoundRecord,
    Route,
    must_compute,
    vertices_to_compute,
)
from attnio.results import Proved, Refuted, Verdict

__all__ = ["saturating_sets", "saturation_reads_min", "saturation_windows_bound",
           "check_saturation", "MAX_SATURATION_STATES", "SATURATION_WINDOWS", "ROUTES"]


# --------------------------------------------------------------------------------------------
# Route 5: saturation windows (red inputs tracked, saturated events, held vertices)
# --------------------------------------------------------------------------------------------

#: Most states of one layer of the saturation DP before the route gives up (does not apply).
MAX_SATURATION_STATES = 40_000


def saturating_sets(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None, *,
                    deadline: Deadline | None = None) -> list[dict[str, Any]]:
    r"""A greedy family of pairwise disjoint sets ``{"at": w, "set": T, "charge", "choices"}``:
    T ⊆ non-input predecessors of a must-compute w, |T| ≥ 2, :math:`|\mathrm{pred}(a) \cup T|
    \ge M` for every a ∈ T; ``choices`` = the a with equality (the only members that can be
    computed last, with the red set then exactly pred(a) ∪ T).

    >>> from attnio.graphs.dags import matmul_dag
    >>> saturating_sets(matmul_dag(1, 2, 1), 4)
    [{'at': 'C[0,0]', 'set': ['P[0,0,0]', 'P[0,0,1]'], 'charge': 2, 'choices': ['P[0,0,0]', 'P[0,0,1]']}]
    """
    dl = as_deadline(deadline)
    inputs, outs, N, _ = must_compute(G, outputs)
    out_set = set(outs)
    used: set[str] = set()
    family = []
    for w in nx.lexicographical_topological_sort(G):
        if w not in N:
            continue
        dl.check()
        cand = sorted(p for p in G.predecessors(w) if p not in inputs and p not in used)
        best: tuple[tuple[bool, int, int], tuple[str, ...]] | None = None
        for r in range(2, min(len(cand), 6) + 1):
            for count, T in enumerate(itertools.combinations(cand, r)):
                if not count & 255:
                    dl.check()
                sizes = [len(set(G.predecessors(a)) | set(T)) for a in T]
                if all(x >= M for x in sizes):
                    key = (all(x > M for x in sizes), 1 if set(T) & out_set else 2, -r)
                    if best is None or key > best[0]:
                        best = (key, T)
        if best is not None:
            T = best[1]
            used.update(T)
            family.append({"at": w, "set": list(T), "charge": 1 if set(T) & out_set else 2,
                           "choices": [a for a in T
                                       if len(set(G.predecessors(a)) | set(T)) == M]})
    return family


def _saturation_model(G: nx.DiGraph, M: int, U: list[str], family: list[dict[str, Any]],
                      room_delta: int = 0) -> dict[str, Any]:
    """The data both DP implementations share (recomputed from G by each); the saturated
    events each derives on its own."""
    inputs = set(game_inputs(G))
    idx = {v: i for i, v in enumerate(U)}
    return {
        "inputs": inputs, "idx": idx,
        "pin": [frozenset(u for u in G.predecessors(v) if u in inputs) for v in U],
        "anc": [frozenset(a for a in nx.ancestors(G, v) if a in idx) for v in U],
        "vbase": [frozenset(G.predecessors(v)) | {v} for v in U],
        "room": [M + room_delta - len((set(G.predecessors(v)) | {v}) - inputs) for v in U],
    }


def saturation_reads_min(G: nx.DiGraph, M: int, U: list[str], family: list[dict[str, Any]],
                         max_states: int = MAX_SATURATION_STATES, *,
                         room_delta: int = 0, deadline: Deadline | None = None) -> int | None:
    r"""Least input reads + spill charges over the event sequences of route 5 (forward DP over
    (items done, last event, red inputs R, open held sets)); None over the state budget.
    ``room_delta`` ≠ 0 exists only for a planted false twin (less room than M gives).

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(3, 1, 3)
    >>> U = sorted(G.graph["outputs"])
    >>> saturation_reads_min(G, 4, U, [])     # 6 inputs, two of them read twice
    8
    """
    dl = as_deadline(deadline)
    m = _saturation_model(G, M, U, family, room_delta)
    pin, anc, vbase, room = m["pin"], m["anc"], m["vbase"], m["room"]
    inputs = m["inputs"]
    # the saturated events of each set (the checker's recursion derives them on its own)
    events = [{a: (frozenset(G.predecessors(a)) | set(t["set"]),
                   frozenset(u for u in G.predecessors(a) if u in inputs),
                   frozenset(t["set"]) - {a}) for a in t["choices"]} for t in family]
    idx = m["idx"]
    nV, items = len(U), len(U) + len(family)
    w_of = [idx.get(t["at"]) for t in family]
    members = [[idx.get(a) for a in t["set"]] for t in family]
    start: tuple = (frozenset(), None, frozenset(), frozenset())
    layer: dict[tuple, int] = {start: 0}
    for _ in range(items):
        nxt: dict[tuple, int] = {}

        def push(key: tuple, cost: int, nxt: dict[tuple, int] = nxt) -> None:
            if cost < nxt.get(key, 1 << 60):
                nxt[key] = cost

        for count, ((done, last, R, held), cost) in enumerate(layer.items()):
            if not count & 63:
                dl.check()
            held_vertices = frozenset().union(*(h for _, h in held)) if held else frozenset()
            done_vertices = {U[i] for i in done if i < nV}
            for it in range(items):
                if it in done:
                    continue
                if it < nV:
                    if not anc[it] <= done_vertices:
                        continue
                    cap = room[it] - len(held_vertices - vbase[it])
                    need = pin[it]
                    if cap < len(need):
                        continue
                    still = [h for h in held if w_of[h[0]] != it]
                    avail = sorted(R - need)
                    keep = min(cap - len(need), len(avail))
                    for kept in itertools.combinations(avail, keep):
                        Rn = need | frozenset(kept)
                        push((done | {it}, ("v", it), Rn, frozenset(still)),
                             cost + len(Rn - R))
                else:
                    j = it - nV
                    push((done | {it}, last, R, held), cost + family[j]["charge"])
                    w = w_of[j]
                    if w is None or w in done or any(a is None or a not in done
                                                     for a in members[j]):
                        continue
                    for a, (base, Rn, hold) in events[j].items():
                        if not held_vertices <= base:
                            continue
                        push((done | {it}, ("t", j, a), Rn, held | {(j, hold)}),
                             cost + len(Rn - R))
        if len(nxt) > max_states:
            return None
        layer = nxt
    return min(layer.values()) if layer else 0


def saturation_windows_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None, *,
                             deadline: Deadline | None = None) -> BoundRecord:
    """Route 5 (notes/lower_bounds.md): input reads over saturated and first-compute events,
    spill charges of saturating sets, output writes.

    >>> from attnio.graphs.dags import matmul_dag
    >>> saturation_windows_bound(matmul_dag(3, 1, 3), 4).value    # exact optimum 17
    17
    """
    validate_cache_size(M)
    dl = as_deadline(deadline)
    inputs, outs, N, need = must_compute(G, outputs)
    family = saturating_sets(G, M, outputs, deadline=dl)
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    with_inputs = [v for v in order if any(u in inputs for u in G.predecessors(v))]
    wanted = set(with_inputs) | {t["at"] for t in family} | {a for t in family for a in t["set"]}
    U = [v for v in order if v in wanted]
    if len(U) + len(family) > 20:
        return BoundRecord("saturation-windows", 0, False,
                           f"{len(U) + len(family)} events: more than the DP's 20", {})
    got = saturation_reads_min(G, M, U, family, deadline=dl)
    if got is None:
        return BoundRecord("saturation-windows", 0, False,
                           f"the DP exceeded {MAX_SATURATION_STATES} states per layer", {})
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered)
    cert = {"U": U, "saturating_sets": family, "reads_and_spills": got,
            "inputs_outside_U": outside, "output_writes": len(outs)}
    return BoundRecord("saturation-windows", got + len(outside) + len(outs), True, None, cert)


def _independent_saturation_min(G: nx.DiGraph, M: int, U: list[str],
                                family: list[dict[str, Any]],
                                deadline: Deadline | None = None) -> int:
    """The minimum of :func:`saturation_reads_min` by a backward memoised recursion (a second
    implementation for the checker); ``deadline`` read at every state."""
    dl = as_deadline(deadline)
    m = _saturation_model(G, M, U, family)
    Uset = set(U)
    anc = {v: m["anc"][i] for i, v in enumerate(U)}
    pin = {v: m["pin"][i] for i, v in enumerate(U)}
    base = {v: m["vbase"][i] for i, v in enumerate(U)}
    room = {v: m["room"][i] for i, v in enumerate(U)}
    sets = {t["at"]: t for t in family}

    @lru_cache(maxsize=None)
    def rest(done: frozenset, R: frozenset, held: frozenset) -> int:
        dl.check()
        best = None
        pending_sets = [t for t in family if ("set", t["at"]) not in done]
        pending_v = [v for v in U if v not in done]
        if not pending_sets and not pending_v:
            return 0
        hv = frozenset().union(*(h for _, h in held)) if held else frozenset()
        for v in pending_v:
            if not anc[v] <= done:
                continue
            cap = room[v] - len(hv - base[v])
            if cap < len(pin[v]):
                continue
            extra = sorted(R - pin[v])
            for kept in itertools.combinations(extra, min(cap - len(pin[v]), len(extra))):
                Rn = pin[v] | frozenset(kept)
                nh = frozenset(x for x in held if x[0] != v)
                c = len(Rn - R) + rest(done | {v}, Rn, nh)
                best = c if best is None or c < best else best
        for t in pending_sets:
            key = ("set", t["at"])
            c = t["charge"] + rest(done | {key}, R, held)
            best = c if best is None or c < best else best
            if t["at"] not in Uset or t["at"] in done or not set(t["set"]) <= done:
                continue
            for a in t["choices"]:
                b = frozenset(G.predecessors(a)) | set(t["set"])
                if not hv <= b:
                    continue
                Rn = frozenset(u for u in G.predecessors(a) if u in m["inputs"])
                c = len(Rn - R) + rest(done | {key}, Rn,
                                       held | {(t["at"], frozenset(t["set"]) - {a})})
                best = c if best is None or c < best else best
        return best if best is not None else 1 << 40

    del sets
    value = rest(frozenset(), frozenset(), frozenset())
    return 0 if value >= 1 << 40 else value


def check_saturation(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                     deadline: Deadline | None = None,
                     timeout_ms: int | None = None) -> Verdict:
    r"""Re-verify a ``saturation-windows`` certificate from G (module docstring, route 5);
    the DP minimum is recomputed by a second implementation.

    Side conditions
    ---------------
    1. ``u-must-compute``: every vertex of U is in N.
    2. ``set-distinct-disjoint``: every saturating set T has at least 2 vertices, none listed
       twice, and the sets are pairwise disjoint.
    3. ``at-must-compute``: every set's w is in N.
    4. ``set-non-input-predecessors``: every member of T is a non-input predecessor of w.
    5. ``set-saturating``: :math:`|\mathrm{pred}(a) \cup T| \ge M` for every a ∈ T.
    6. ``choices-exact``: ``choices`` are exactly the a ∈ T with equality.
    7. ``charge``: every charge is 1 or 2, and 1 when T holds an output.
    8. ``sets-in-u``: every set's w and members are in U (its case (b), the saturated event,
       is an event of the DP only then; without it a set would always be charged — issue 36's
       soundness sweep found 7 > Q = 5 on matmul 1×2×1, M = 4).
    9. ``dp-minimum``: ``reads_and_spills`` is the DP minimum over U and the sets, recomputed.
    10. ``outside-needed-inputs``: ``inputs_outside_U`` are distinct inputs, none a
        predecessor of a vertex of U, each with a successor in N.
    11. ``output-writes``: ``output_writes`` = |O*|.
    12. ``value-is-sum``: value = reads and spills + |inputs outside U| + |O*|.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(3, 1, 3)
    >>> check_saturation(G, 4, saturation_windows_bound(G, 4)).proved
    True
    """
    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    computed = vertices_to_compute(G, outs, inputs)
    cert = rec.certificate
    U, family = list(cert["U"]), list(cert["saturating_sets"])
    for v in U:
        if v not in computed:
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    seen: set[str] = set()
    for t in family:
        T, w = list(t["set"]), t["at"]
        if len(T) < 2 or len(set(T)) != len(T) or seen & set(T):
            return Refuted({"set": T}, "sets must have ≥ 2 distinct vertices and be disjoint")
        seen |= set(T)
        if w not in computed:
            return Refuted({"at": w}, f"{w!r} is not a vertex that must be computed")
        for a in T:
            if a in inputs or not G.has_edge(a, w):
                return Refuted({"vertex": a}, f"{a!r} is not a non-input predecessor of {w!r}")
            size = len(set(G.predecessors(a)) | set(T))
            if size < M:
                return Refuted({"vertex": a}, f"|pred({a}) ∪ T| = {size} < M")
            if (size == M) != (a in t["choices"]):
                return Refuted({"vertex": a}, "choices must be exactly the a with equality")
        if t["charge"] not in ((1,) if set(T) & set(outs) else (1, 2)):
            return Refuted({"set": T}, "charge too large")
        if not {w, *T} <= set(U):
            return Refuted({"at": w, "set": T}, "a set's vertex and members must be in U (its "
                                                "saturated event is one of the DP's)")
    value = _independent_saturation_min(G, M, U, family, deadline=deadline)
    if value != cert["reads_and_spills"]:
        return Refuted({"claimed": cert["reads_and_spills"], "recomputed": value},
                       "DP minimum differs")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = cert["inputs_outside_U"]
    if len(set(outside)) != len(outside) or any(
            x not in inputs or x in covered or not any(s in computed for s in G.successors(x))
            for x in outside):
        return Refuted({"inputs_outside_U": outside}, "not distinct needed inputs outside U")
    total = value + len(outside) + len(outs)
    if total != rec.value or cert["output_writes"] != len(outs):
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"reads + spills {value} (recomputed by a second DP), {len(outside)} inputs "
                  f"outside U, {len(outs)} output writes")


def describe_saturation(cert: dict[str, Any]) -> str:
    """One line of a ``saturation-windows`` certificate.

    >>> from attnio.graphs.dags import matmul_dag
    >>> describe_saturation(saturation_windows_bound(matmul_dag(1, 2, 1), 3).certificate)
    'input reads + spills 6 (DP over |U| = 3 first computations and 1 saturating sets) + 0 inputs outside U + 1 output writes'
    """
    return (f"input reads + spills {cert['reads_and_spills']} (DP over |U| = {len(cert['U'])} "
            f"first computations and {len(cert['saturating_sets'])} saturating sets) + "
            f"{len(cert['inputs_outside_U'])} inputs outside U + {cert['output_writes']} output "
            f"writes")


def _saturation_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                        timeout_ms: int) -> list[BoundRecord]:
    return [saturation_windows_bound(G, M, deadline=deadline)]


SATURATION_WINDOWS = Route(
    "saturation-windows", compute=_saturation_records, check=check_saturation, cost="search",
    source="attnio (notes/lower_bounds.md): route 4 with the red inputs tracked and saturated "
           "events; RECONSTRUCTED from the exact solver's space pairs (graphs/exact.py)",
    reconstructed=True, describe=describe_saturation, switch="windows")

#: The routes of this module (:mod:`attnio.graphs.lower_bounds.registry`).
ROUTES = (SATURATION_WINDOWS,)
