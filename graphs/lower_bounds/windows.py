r"""Route 4 of :mod:`attnio.graphs.lower_bounds`: spill windows, with its checker.

Notation as in :mod:`attnio.graphs.lower_bounds` (I, O*, N, I_N).

Route
-----
``spill-windows`` (new; attnio, RECONSTRUCTED from the ideas of Hong–Kung's red-pebble
counting and of the exact solver's "space pair" heuristic, graphs/exact.py) — three kinds of
moves counted separately, so the three counts add:

1. *input reads* :math:`W`: fix a set :math:`U \subseteq N` and look at the **first**
   computation of each :math:`u \in U`; they happen in some order
   :math:`u_1, \dots, u_k` that extends the ancestor order (a non-input ancestor of v is
   computed before v is first computed). At the first computation of :math:`u_j` the red set
   is :math:`\mathrm{pred}(u_j) \cup \{u_j\} \cup Z_j` with
   :math:`|Z_j| \le s(u_j) = M - |\mathrm{pred}(u_j)| - 1`. In the window before
   :math:`u_{j}`'s first computation every input of :math:`\mathrm{pred}(u_j)` that was not red
   at the end of the previous window is read; inputs of :math:`\mathrm{pred}(u_j)` not used
   by any earlier :math:`u_i` ("new") that were red already were read earlier by a read that
   no window counts. Hence the input reads are at least

   .. math:: W = \min_{\text{orders}} \sum_j \Bigl(|\mathrm{new}_j|
             + \max\bigl(0, |\mathrm{old}_j \setminus \mathrm{pred}(u_{j-1})| - s(u_{j-1})\bigr)\Bigr)
             + |I_N \setminus \mathrm{pred}(U)|,

   computed exactly by dynamic programming over the ancestor-closed subsets of U;
2. *forced spills* :math:`F`: for :math:`w \in N` and a set T of non-input predecessors of w
   with :math:`|\mathrm{pred}(a) \cup T| > M` for every :math:`a \in T`, the member of T that
   became red last before a computation of w cannot have been computed then (all of T and
   pred(a) would be red), so it was **read**, and, being no input, **written** before. Over a
   family of pairwise disjoint such T: one non-input read each, plus one non-output write
   each when T holds no output;
3. *output writes*: :math:`|O^\ast|`.

:math:`Q \ge W + F + |O^\ast|`; it is at least the compulsory I/O
(every needed input is "new" once).
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

__all__ = ["window_reads_min", "forced_spill_sets", "spill_windows_bound",
           "independent_window_min", "verify_forced", "check_spill_windows",
           "MAX_WINDOW_VERTICES", "MAX_WINDOW_STATES", "SPILL_WINDOWS", "ROUTES"]

#: Most vertices the window DP orders (its state count grows with the antichains of U).
MAX_WINDOW_VERTICES = 16
#: Most (subset, last) states per DP layer before U is shrunk.
MAX_WINDOW_STATES = 200_000


# --------------------------------------------------------------------------------------------
# Route 4: spill windows (new)
# --------------------------------------------------------------------------------------------


def window_slack(G: nx.DiGraph, v: str, M: int) -> int:
    return max(0, M - G.in_degree(v) - 1)


def choose_window_set(G: nx.DiGraph, N: frozenset[str], inputs: frozenset[str],
                       M: int, limit: int) -> list[str]:
    """U: must-compute vertices with an input predecessor, then those with no slack (which
    never weaken the bound); at most ``limit``, in topological order."""
    order = [v for v in nx.lexicographical_topological_sort(G) if v in N]
    rank = {v: i for i, v in enumerate(order)}
    with_inputs = [v for v in order if any(u in inputs for u in G.predecessors(v))]
    first = set(with_inputs)
    tight = [v for v in order if v not in first and window_slack(G, v, M) == 0]
    ranked = (sorted(with_inputs, key=lambda v: (window_slack(G, v, M), rank[v]))
              + tight)[:limit]
    chosen = set(ranked)
    return [v for v in order if v in chosen]


def window_reads_min(G: nx.DiGraph, U: list[str], M: int,
                     max_states: int = MAX_WINDOW_STATES, *,
                     slack_override: int | None = None,
                     count_non_inputs: bool = False,
                     uncounted: frozenset[str] = frozenset(),
                     deadline: Deadline | None = None) -> tuple[int, list[str]] | None:
    r"""The least windowed input-read count over orders of U's first computations, and an order
    attaining it; None when a DP layer exceeds ``max_states``. ``deadline`` is read every 256
    states (:class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached` past it).

    Inputs in ``uncounted`` are ignored (their reads are counted elsewhere: route 6).
    ``slack_override`` and ``count_non_inputs`` exist only for the planted false twins
    (:mod:`attnio.proofs.certified_routes`): a fixed slack for every vertex, and charging
    non-input predecessors like inputs. Both make the "bound" unsound.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> window_reads_min(G, ["P[0,0,0]", "P[0,0,1]"], 3)
    (4, ['P[0,0,0]', 'P[0,0,1]'])
    """
    dl = as_deadline(deadline)
    inputs = set(game_inputs(G))
    n = len(U)
    if n == 0:
        return 0, []
    idx = {v: i for i, v in enumerate(U)}
    pin = [frozenset(u for u in G.predecessors(v)
                     if (u in inputs or count_non_inputs) and u not in uncounted) for v in U]
    anc = [sum(1 << idx[a] for a in nx.ancestors(G, v) if a in idx) for v in U]
    slack = [window_slack(G, v, M) if slack_override is None else slack_override for v in U]
    pin_of: dict[int, frozenset[str]] = {0: frozenset()}

    def pins(S: int) -> frozenset[str]:
        got = pin_of.get(S)
        if got is None:
            low = S & -S
            got = pins(S ^ low) | pin[low.bit_length() - 1]
            pin_of[S] = got
        return got

    layer: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {
        (1 << i, i): (len(pin[i]), (i,)) for i in range(n) if anc[i] == 0}
    for _ in range(n - 1):
        nxt: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}
        for count, ((S, u), (cost, path)) in enumerate(layer.items()):
            if not count & 255:
                dl.check()
            seen = pins(S)
            for v in range(n):
                if (S >> v) & 1 or anc[v] & ~S:
                    continue
                new = pin[v] - seen
                old = (pin[v] & seen) - pin[u]
                c = cost + len(new) + max(0, len(old) - slack[u])
                key = (S | (1 << v), v)
                if key not in nxt or c < nxt[key][0]:
                    nxt[key] = (c, path + (v,))
        if len(nxt) > max_states:
            return None
        layer = nxt
    cost, path = min(layer.values())
    return cost, [U[i] for i in path]


def forced_spill_sets(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None,
                      max_subset_degree: int = 12, *, margin: int = 0,
                      exclude: frozenset[str] = frozenset(),
                      deadline: Deadline | None = None) -> list[dict[str, Any]]:
    r"""A greedy family of pairwise disjoint forced-spill sets ``{"at": w, "set": T, "charge"}``.

    T ⊆ non-input predecessors of a must-compute w, |T| ≥ 2, and
    :math:`|\mathrm{pred}(a) \cup T| > M` for every a ∈ T; charge 2 (a read and a write of
    non-outputs) when T holds no output, else 1 (the read).

    >>> from attnio.graphs.dags import matmul_dag
    >>> forced_spill_sets(matmul_dag(1, 2, 1), 3)
    [{'at': 'C[0,0]', 'set': ['P[0,0,0]', 'P[0,0,1]'], 'charge': 2}]
    >>> forced_spill_sets(matmul_dag(1, 2, 1), 4)
    []
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
        cand = sorted(p for p in G.predecessors(w)
                      if p not in inputs and p not in used and p not in exclude)
        sizes = range(2, len(cand) + 1) if len(cand) <= max_subset_degree else (2,)
        best: tuple[int, int, tuple[str, ...]] | None = None
        for r in sizes:
            for count, T in enumerate(itertools.combinations(cand, r)):
                if not count & 255:
                    dl.check()
                Ts = set(T)
                if all(len(set(G.predecessors(a)) | Ts) > M - margin for a in T):
                    charge = 1 if Ts & out_set else 2
                    if best is None or (charge, -r) > (best[0], -best[1]):
                        best = (charge, r, T)
        if best is not None:
            used.update(best[2])
            family.append({"at": w, "set": list(best[2]), "charge": best[0]})
    return family


def spill_windows_bound(G: nx.DiGraph, M: int, outputs: Iterable[str] | None = None, *,
                        max_window_vertices: int = MAX_WINDOW_VERTICES,
                        deadline: Deadline | None = None) -> BoundRecord:
    """``W + F + |O*|`` (module docstring, route 4), with its certificate.

    ``max_window_vertices`` caps |U| (any U is valid; a smaller U is cheaper — the DP is
    exponential in |U| — and the bound no larger). Past ``deadline``:
    :class:`~attnio.graphs.lower_bounds.deadline.TimeLimitReached`.

    >>> from attnio.graphs.dags import matmul_dag
    >>> r = spill_windows_bound(matmul_dag(1, 2, 1), 3)   # exact optimum 7
    >>> r.value, r.certificate["input_reads"], r.certificate["output_writes"]
    (7, 4, 1)
    """
    validate_cache_size(M)
    dl = as_deadline(deadline)
    inputs, outs, N, need = must_compute(G, outputs)
    limit = max(1, int(max_window_vertices))
    while True:
        U = choose_window_set(G, N, inputs, M, limit)
        got = window_reads_min(G, U, M, deadline=dl)
        if got is not None:
            break
        limit -= 2
    reads_in_windows, order = got
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = sorted(need - covered)
    family = forced_spill_sets(G, M, outputs, deadline=dl)
    forced = sum(t["charge"] for t in family)
    W = reads_in_windows + len(outside)
    cert = {"U": U, "order": order, "slack": {v: window_slack(G, v, M) for v in U},
            "window_reads": reads_in_windows, "inputs_outside_U": outside,
            "input_reads": W, "forced_sets": family, "forced_moves": forced,
            "output_writes": len(outs)}
    return BoundRecord("spill-windows", W + forced + len(outs), True, None, cert)


def independent_window_min(G: nx.DiGraph, U: list[str], M: int,
                            uncounted: frozenset[str] = frozenset(),
                            deadline: Deadline | None = None) -> int:
    """The same minimum as :func:`window_reads_min`, by a backward memoised recursion over
    frozensets (a second implementation for the checker); ``deadline`` read at every state."""
    dl = as_deadline(deadline)
    inputs = set(game_inputs(G))
    Uset = frozenset(U)
    preds = {v: frozenset(x for x in G.predecessors(v) if x in inputs and x not in uncounted)
             for v in U}
    ancestors = {v: frozenset(nx.ancestors(G, v)) & Uset for v in U}
    room = {v: max(0, M - len(list(G.predecessors(v))) - 1) for v in U}

    @lru_cache(maxsize=None)
    def rest(done: frozenset[str], last: str) -> int:
        if done == Uset:
            return 0
        dl.check()
        used = frozenset().union(*(preds[x] for x in done))
        options = []
        for v in Uset - done:
            if not ancestors[v] <= done:
                continue
            fresh = len(preds[v] - used)
            again = len((preds[v] & used) - preds[last])
            options.append(fresh + max(0, again - room[last]) + rest(done | {v}, v))
        return min(options)

    starts = [len(preds[v]) + rest(frozenset([v]), v) for v in U if not ancestors[v]]
    return min(starts) if starts else 0


def verify_forced(G: nx.DiGraph, M: int, family: list, outs: set[str], inputs: set[str],
                   exclude: frozenset[str] = frozenset(),
                   deadline: Deadline | None = None) -> int | Refuted:
    r"""Re-verify a forced-spill family ``[{"at": w, "set": T, "charge"}, ...]`` (module
    docstring, 2.); its total charge, or Refuted. ``exclude`` (route 6: the sub-DAG H) holds
    vertices no set may contain.

    Side conditions
    ---------------
    1. ``at-must-compute``: every w is in N (every schedule computes it).
    2. ``set-distinct``: every T has at least 2 vertices, none listed twice.
    3. ``set-non-input-predecessors``: every member of T is a non-input predecessor of w.
    4. ``set-outside-exclude``: no member of T is in ``exclude``.
    5. ``set-exceeds-m``: :math:`|\mathrm{pred}(a) \cup T| > M` for every a ∈ T.
    6. ``sets-disjoint``: the sets are pairwise disjoint.
    7. ``charge``: every charge is 1 or 2, and 1 when T holds an output.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> family = forced_spill_sets(G, 3)
    >>> verify_forced(G, 3, family, {"C[0,0]"}, {"A[0,0]", "A[0,1]", "B[0,0]", "B[1,0]"})
    2
    """
    dl = as_deadline(deadline)
    computed = vertices_to_compute(G, outs, inputs)
    seen: set[str] = set()
    forced = 0
    for entry in family:
        dl.check()
        w, T, charge = entry.get("at"), list(entry.get("set", [])), entry.get("charge")
        if w not in computed:
            return Refuted({"at": w}, f"{w!r} is not a vertex that must be computed")
        if len(T) < 2 or len(set(T)) != len(T):
            return Refuted({"set": T}, "a forced set has ≥ 2 distinct vertices")
        for a in T:
            if a in inputs or a in exclude or not G.has_edge(a, w):
                return Refuted({"vertex": a}, f"{a!r} is not a non-input predecessor of {w!r}"
                                              f"{' outside H' if exclude else ''}")
            if len(set(G.predecessors(a)) | set(T)) <= M:
                return Refuted({"vertex": a, "set": T},
                               f"|pred({a}) ∪ T| ≤ M: {a!r} could be computed last")
        if seen & set(T):
            return Refuted({"set": T}, "forced sets overlap")
        seen |= set(T)
        allowed = (1,) if set(T) & outs else (1, 2)   # a set holding an output: no write
        if charge not in allowed:
            return Refuted({"set": T, "charge": charge},
                           f"charge {charge} is not 1 or 2, at most {allowed[-1]}")
        forced += charge
    return forced


def check_spill_windows(G: nx.DiGraph, M: int, rec: BoundRecord, *,
                        deadline: Deadline | None = None,
                        timeout_ms: int | None = None) -> Verdict:
    """Re-verify a ``spill-windows`` certificate from G (module docstring, route 4); the
    window minimum is recomputed by a second implementation (:func:`independent_window_min`).

    Side conditions
    ---------------
    1. ``u-distinct``: U lists no vertex twice.
    2. ``u-must-compute``: every vertex of U is in N.
    3. ``window-minimum``: ``window_reads`` is the window minimum over U, recomputed.
    4. ``outside-is-input``: every vertex of ``inputs_outside_U`` is an input.
    5. ``outside-not-covered``: none of them is a predecessor of a vertex of U (those reads
       are counted by the windows).
    6. ``outside-is-needed``: each of them has a successor in N.
    7. ``outside-distinct``: none of them is listed twice.
    8. ``forced-family``: ``forced_sets`` passes :func:`verify_forced`.
    9. ``output-writes``: ``output_writes`` = |O*|.
    10. ``value-is-sum``: value = window reads + |inputs outside U| + forced charges + |O*|.

    >>> from attnio.graphs.dags import matmul_dag
    >>> G = matmul_dag(1, 2, 1)
    >>> check_spill_windows(G, 3, spill_windows_bound(G, 3)).proved
    True
    """
    inputs = set(game_inputs(G))
    outs = [o for o in dict.fromkeys(game_outputs(G)) if o not in inputs]
    computed = vertices_to_compute(G, outs, inputs)
    cert = rec.certificate
    U = list(cert["U"])
    if len(set(U)) != len(U):
        return Refuted({"U": U}, "U repeats a vertex")
    for v in U:
        if v not in computed:
            return Refuted({"vertex": v}, f"{v!r} is not a vertex that must be computed")
    window = independent_window_min(G, U, M, deadline=deadline)
    if cert["window_reads"] != window:
        return Refuted({"claimed": cert["window_reads"], "recomputed": window},
                       f"window minimum recomputed as {window}")
    covered = {u for v in U for u in G.predecessors(v) if u in inputs}
    outside = list(cert["inputs_outside_U"])
    for x in outside:
        if x not in inputs or x in covered or not any(s in computed for s in G.successors(x)):
            return Refuted({"vertex": x}, f"{x!r} is not a needed input outside pred(U)")
    if len(set(outside)) != len(outside):
        return Refuted({}, "inputs_outside_U repeats a vertex")
    forced = verify_forced(G, M, cert["forced_sets"], set(outs), inputs,
                           deadline=deadline)
    if isinstance(forced, Refuted):
        return forced
    total = window + len(outside) + forced + len(outs)
    if rec.value != total or cert["output_writes"] != len(outs):
        return Refuted({"value": rec.value, "recomputed": total}, f"value ≠ {total}")
    return Proved(f"window reads {window} (recomputed), {len(outside)}"
                  f" inputs outside U, forced spills {forced}, output writes {len(outs)}")


def describe_spill_windows(cert: dict[str, Any]) -> str:
    """One line of a ``spill-windows`` certificate.

    >>> from attnio.graphs.dags import matmul_dag
    >>> describe_spill_windows(spill_windows_bound(matmul_dag(1, 2, 1), 3).certificate)
    'input reads 4 (window DP over |U| = 3 first computations + 0 inputs outside U), 1 forced-spill sets = 2 moves, 1 output writes'
    """
    return (f"input reads {cert['input_reads']} (window DP over |U| = {len(cert['U'])} first "
            f"computations + {len(cert['inputs_outside_U'])} inputs outside U), "
            f"{len(cert['forced_sets'])} forced-spill sets = {cert['forced_moves']} moves, "
            f"{cert['output_writes']} output writes")


def _spill_windows_records(G: nx.DiGraph, M: int, *, deadline: Deadline,
                           timeout_ms: int) -> list[BoundRecord]:
    return [spill_windows_bound(G, M, deadline=deadline)]


SPILL_WINDOWS = Route(
    "spill-windows", compute=_spill_windows_records, check=check_spill_windows, cost="search",
    source="attnio (notes/lower_bounds.md); RECONSTRUCTED from Hong–Kung's red-pebble "
           "counting and the exact solver's space pairs (graphs/exact.py)",
    reconstructed=True, describe=describe_spill_windows, switch="windows")

#: The routes of this module (:mod:`attnio.graphs.lower_bounds.registry`).
ROUTES = (SPILL_WINDOWS,)
