r"""The cap and the routes of the joint routes of :mod:`attnio.bounds.attention` (issue 35,
item 5; notes/gap.md, "The joint routes"; ours, RECONSTRUCTED in the house sense): every n×n×d
product of a computation class charged in one segment budget, the operands with a computed
value (:math:`P`, :math:`dS`) witnessed. The lemmas (witness lemma, the algebra of
:math:`\Psi_\kappa`, the cell bound, superadditivity) are :mod:`attnio.proofs.joint_lemmas`.

* ``gap.joint_cap`` (exact) — the certificate of every search
  (:func:`~attnio.bounds.attention.joint_search`): the splits refine the initial grid, which
  tiles the region, and every leaf's bound, recomputed independently, is at most the cap; on
  small sizes the cap is at least :math:`\Psi` at every integer point (exact comparison with
  square roots, :func:`psi_at_most`), and at least the brute-force maximum of designated
  leaves over every segment shape of small products of each class (:func:`brute_joint_table`:
  the per-segment accounting of the proof, enumerated). ``gap.joint_cap_deep`` (``--deep``)
  on larger grids.
* ``gap.joint_route`` (exact) — every joint route (single head and stacked) is
  :math:`\max_L L(\lceil N/cap\rceil - 1)` (+ its rest) with :math:`N` = products · B·H·n²d.
* ``gap.below_algorithms`` (:mod:`attnio.proofs.attention_routes`) compares every route,
  these included, with every registered algorithm's exact count.

False twins: the cap taken as one product's (refuted by a recompute segment shape at n = 2,
d = 1 holding 20 leaves against 16), the cap 1 % below its certificate, the recompute route
with N = 6n²d.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Callable

from attnio.bounds.attention import (
    JOINT_REST,
    SEGMENT_MULTIPLES,
    ceil_sqrt,
    joint_routes,
    segment_product_cap,
)
from attnio.bounds.cells import descending_prefix_sums
from attnio.bounds.heads import stacked_lower_bound_routes
from attnio.bounds.joint import JOINT_CLASSES, joint_cap, joint_search, joint_segment_cap
from attnio.proofs.attention_routes import EXACT, claim, segment_cap_excess
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS", "brute_joint_max", "brute_joint_table", "psi_at_most"]


# --------------------------------------------------------------------------------------------
# The cap, exactly
# --------------------------------------------------------------------------------------------

def psi_at_most(cap: int, d: int, n_full: int, k_grad: int, kappa: tuple[int, int], S: int,
                T: int, sigma: int, z: int) -> bool:
    """``cap ≥ Ψ_κ(σ, z, w = T − σ − z, u = min(z, S − σ))`` exactly (square roots compared
    by squaring, with Fractions)."""
    w, u = T - sigma - z, min(z, S - sigma)
    kn, kd = kappa
    C = Fraction(cap) - Fraction(kn * sigma * sigma, 4 * d * kd) - Fraction(u * sigma, n_full)
    # X1 = min((σ/2)√z, (d−1)z) as α√A (α = σ/2, A = z) or rational; X2 = min(√(uσw), k·w)
    lin1, A = (d - 1) * z, z
    x1_root = 4 * lin1 * lin1 > sigma * sigma * z       # the root branch is the smaller
    lin2, B = k_grad * w, u * sigma * w
    x2_root = lin2 * lin2 > B
    if not x1_root:
        C -= lin1
    if not x2_root:
        C -= lin2
    alpha2A = Fraction(sigma * sigma * A, 4) if x1_root else Fraction(0)   # (α√A)²
    Bv = Fraction(B) if x2_root else Fraction(0)
    # C ≥ √alpha2A + √Bv ?
    if C < 0:
        return alpha2A == 0 and Bv == 0 and C >= 0
    if alpha2A == 0 or Bv == 0:
        return C * C >= alpha2A + Bv
    lhs = C * C + alpha2A - Bv        # C ≥ x + y ⟺ C² ≥ x² and (C² + x² − y²)² ≥ 4C²x², ≥ 0
    return C * C >= alpha2A and lhs >= 0 and lhs * lhs >= 4 * C * C * alpha2A


def _reference_cell_bound(d: int, n_full: int, k_grad: int, kappa: tuple[int, int], S: int,
                          T: int, s0: int, s1: int, z0: int, z1: int) -> int:
    """joint_cell_bound written plainly (an independent recomputation for the certificate)."""
    if s0 > S or s0 + z0 > T:
        return 0
    w, u = T - s0 - z0, min(z1, S - s0)
    kn, kd = kappa
    return (-(-kn * s1 * s1 // (4 * d * kd)) - (-u * s1 // n_full)
            + min(-(-ceil_sqrt(s1 * s1 * z1) // 2), (d - 1) * z1)
            + min(ceil_sqrt(u * s1 * w), k_grad * w))


def _certificate_problem(d: int, M: int, L: int, n_full: int, k_grad: int,
                         kappa: tuple[int, int], cap: int) -> str | None:
    """None when the search's certificate proves cap ≥ max Ψ; else what fails.

    Side conditions
    ---------------
    1. ``initial-tiles``: the initial cells form a grid tiling [0, S] × [0, T].
    2. ``splits-tile``: each split is of a current leaf into the halves that tile it.
    3. ``leaves-match``: the leaves are exactly the cells the splits leave.
    4. ``leaf-bound-recomputed``: each leaf's bound, recomputed apart, is at most the cap.
    5. ``psi-exact``: :func:`psi_at_most` decides cap ≥ Ψ exactly (square roots by
       squaring).
    """
    S, T = M + L, 2 * M + L
    search = joint_search(d, M, L, n_full, k_grad, kappa)
    for size, cuts in ((S, sorted({(a, b) for a, b, _, _ in search.initial})),
                       (T, sorted({(c, e) for _, _, c, e in search.initial}))):
        if cuts[0][0] != 0 or cuts[-1][1] != size or any(
                x[1] != y[0] or x[0] > x[1] for x, y in zip(cuts, cuts[1:])):
            return "the initial cells do not tile the region"
    if len(search.initial) != len({(a, b) for a, b, _, _ in search.initial}) * len(
            {(c, e) for _, _, c, e in search.initial}):
        return "the initial cells are not a grid"
    cells = set(search.initial)
    for parent, children in search.splits:
        if parent not in cells:
            return f"split of a cell that is not a leaf: {parent}"
        s0, s1, z0, z1 = parent
        sm, zm = (s0 + s1) // 2, (z0 + z1) // 2
        halves_s = [(s0, s1)] if s1 - s0 <= 1 else [(s0, sm), (sm, s1)]
        halves_z = [(z0, z1)] if z1 - z0 <= 1 else [(z0, zm), (zm, z1)]
        if sorted(children) != sorted((a, b, c, e) for a, b in halves_s for c, e in halves_z):
            return f"the children of {parent} do not tile it"
        cells.remove(parent)
        cells.update(children)
    if cells != set(search.leaves):
        return "the leaves are not the cells the splits leave"
    for cell in search.leaves:
        if _reference_cell_bound(d, n_full, k_grad, kappa, S, T, *cell) > cap:
            return f"a leaf's bound exceeds the cap: {cell}"
    return None


@lru_cache(maxsize=32)
def brute_joint_table(computation: str, n: int, d: int) -> list[tuple[int, int, list[int]]]:
    """Every segment shape of the joint route's products at (n, d), by the accounting of the
    proof: entries of the inputs red in the segment, the charged pairs (one W vertex each;
    recompute: one in the score tree, one in the dP tree, separately), free operands from full
    rows; per output pair of each product, the leaves its red operands allow — a pair with all
    of them is full (no carry), else partial: one carry, none when it is a score pair with a
    charged vertex in its own tree. Returns ``(s, leaves of full and charged-carry pairs,
    prefix sums of the other partial pairs' leaves, largest first)``."""
    nd, nn = n * d, n * n
    names = {"forward": ("Q", "K", "V"), "given-scores": ("Q", "K", "dO", "V"),
             "recompute": ("Q", "K", "dO", "V")}[computation]
    n_charge = 2 if computation == "recompute" else 1
    table = []
    for code in range(1 << (len(names) * nd + n_charge * nn)):
        red, off = {}, 0
        for name in names:
            red[name] = {(r, k) for r in range(n) for k in range(d)
                         if code >> (off + r * d + k) & 1}
            off += nd
        charge = []
        for _ in range(n_charge):
            charge.append({(i, j) for i in range(n) for j in range(n)
                           if code >> (off + i * n + j) & 1})
            off += nn
        s = sum(len(v) for v in red.values()) + sum(len(c) for c in charge)
        charged = set().union(*charge)
        full = {name: {r for r in range(n) if all((r, k) in red[name] for k in range(d))}
                for name in names}
        if computation == "given-scores":
            P = dS = charged
        else:
            P = charged | {(i, j) for i in full["Q"] for j in full["K"]}
            dS = charged | ({(i, j) for i in full["Q"] & full.get("dO", set())
                             for j in full["K"] & full.get("V", set())}
                            if computation == "recompute" else set())
        fixed: list[int] = [0]
        partial: list[int] = []

        def pair(avail: int, inner: int, carried: bool, fixed: list[int] = fixed,
                 partial: list[int] = partial) -> None:
            if avail == inner:
                fixed[0] += inner
            elif avail and carried:
                fixed[0] += avail
            elif avail:
                partial.append(avail)

        Q, K = red["Q"], red["K"]
        rng = [(a, b) for a in range(n) for b in range(n)]
        if computation != "given-scores":            # S = Q·Kᵀ
            for i, j in rng:
                pair(sum((i, k) in Q and (j, k) in K for k in range(d)), d, (i, j) in charge[0])
        if computation == "forward":                 # O = P·V
            V = red["V"]
            for i in range(n):
                for k in range(d):
                    pair(sum((i, j) in P and (j, k) in V for j in range(n)), n, False)
        else:
            dO, V = red["dO"], red["V"]
            own = charge[-1]                         # the dP tree's charged vertices
            for i, j in rng:                         # dP = dO·Vᵀ
                pair(sum((i, k) in dO and (j, k) in V for k in range(d)), d, (i, j) in own)
            for j in range(n):
                for k in range(d):                   # dV = Pᵀ·dO, dK = dSᵀ·Q
                    pair(sum((i, j) in P and (i, k) in dO for i in range(n)), n, False)
                    pair(sum((i, j) in dS and (i, k) in Q for i in range(n)), n, False)
            for i in range(n):
                for k in range(d):                   # dQ = dS·K
                    pair(sum((i, j) in dS and (j, k) in K for j in range(n)), n, False)
        table.append((s, fixed[0], descending_prefix_sums(partial)))
    return table


def brute_joint_max(table: list[tuple[int, int, list[int]]], M: int, L: int) -> int:
    """The most designated leaves one segment of L I/Os allows over every shape."""
    S, T = M + L, 2 * M + L
    return max(f + p[min(T - s, len(p) - 1)] for s, f, p in table if s <= S)


#: (class, n_full, k_grad, κ) × (d, M) of the certificate check, at every L = tM.
_CAP_CLASSES = [("forward", 4096, 4095, (1, 1)), ("recompute", 4096, 4 * 4096 - 1, (5, 4)),
                ("given-scores", 63, 255, (1, 1))]
_CAP_SIZES = [(64, 1024), (64, 11216), (16, 100), (1, 3)]
#: Small (d, M) whose every integer point is compared with the cap, exactly (L = M, 2M, 4M).
_POINT_SIZES = [(1, 1), (2, 3), (3, 7), (8, 5)]
#: (class, n, d) whose every segment shape is enumerated.
_BRUTE = [("forward", 2, 1), ("forward", 1, 2), ("given-scores", 2, 1), ("given-scores", 1, 2),
          ("recompute", 2, 1), ("recompute", 1, 2)]
#: The deep tier's grids (``attnio verify --deep``).
_DEEP_CLASSES = _CAP_CLASSES + [("recompute", 4096, 4095, (5, 4)), ("forward", 3, 2, (1, 1))]
_DEEP_SIZES = _CAP_SIZES + [(64, 64), (64, 262144), (256, 4), (128, 20000)]
_DEEP_POINTS = _POINT_SIZES + [(64, 9), (16, 12)]
_DEEP_BRUTE = _BRUTE + [("forward", 2, 2), ("forward", 1, 3), ("given-scores", 1, 3),
                        ("recompute", 1, 3)]


def _joint_cap_check(ctx: CheckContext, *,
                     cap_of: Callable[[str, int, int], Callable[[int, int, int], int]] | None = None,
                     classes: list[tuple[str, int, int, tuple[int, int]]] | None = None,
                     brute: list[tuple[str, int, int]] | None = None,
                     sizes: list[tuple[int, int]] | None = None,
                     points: list[tuple[int, int]] | None = None,
                     shift: Callable[[int], int] = lambda cap: cap) -> Verdict:
    """The cap of every joint route: its search certificate (every size of :data:`_CAP_SIZES`
    and every L), every integer point of small sizes, the brute force of :data:`_BRUTE`.
    ``cap_of(cls, n, d)`` plants another cap for the brute force and ``shift`` another value
    for the certificate and the points (false twins).

    Side conditions
    ---------------
    1. ``certificate-every-length``: every class, size and length L = t·M has its search
       certificate checked (:func:`_certificate_problem`); one failing refutes.
    2. ``points-every-point``: every integer point (σ, z) of the small sizes, at L = M, 2M,
       4M, is under the cap (:func:`psi_at_most`); one above refutes.
    3. ``brute-every-shape``: every brute-force table is compared with the class's cap at
       M = 1, 2, 3; a shape above the cap refutes.
    """
    checked = nontrivial = 0
    for cls, n_full, k_grad, kappa in _CAP_CLASSES if classes is None else classes:
        for d, M in _CAP_SIZES if sizes is None else sizes:
            for t in SEGMENT_MULTIPLES:
                L = t * M
                cap = shift(joint_segment_cap(d, M, L, n_full, k_grad, kappa))
                problem = _certificate_problem(d, M, L, n_full, k_grad, kappa, cap)
                checked += 1
                nontrivial += cap > 2
                if problem:
                    return Refuted({"class": cls, "d": d, "M": M, "L": L, "cap": cap},
                                   f"the cap's certificate fails: {problem}")
        for d, M in _POINT_SIZES if points is None else points:
            for t in (1, 2, 4):
                L = t * M
                S, T = M + L, 2 * M + L
                cap = shift(joint_segment_cap(d, M, L, n_full, k_grad, kappa))
                for sigma in range(S + 1):
                    for z in range(T - sigma + 1):
                        checked += 1
                        if not psi_at_most(cap, d, n_full, k_grad, kappa, S, T, sigma, z):
                            return Refuted({"class": cls, "d": d, "M": M, "L": L, "cap": cap,
                                            "sigma": sigma, "z": z},
                                           "Ψ at an integer point exceeds the cap")
                nontrivial += 1
    for cls, n, d in _BRUTE if brute is None else brute:
        table = brute_joint_table(cls, n, d)
        cap_fn = cap_of(cls, n, d) if cap_of else joint_cap(cls, n, d)
        for M in (1, 2, 3):
            done, hard, excess = segment_cap_excess(table, d, M, cap_fn,
                                                    segment_max=brute_joint_max)
            checked, nontrivial = checked + done, nontrivial + hard
            if excess is not None:
                L, value, most = excess
                return Refuted({"class": cls, "n": n, "d": d, "M": M, "L": L, "cap": value,
                                "brute_force": most},
                               "a segment shape holds more designated leaves than the cap")
    return Proved(f"{checked} certificates, integer points and brute-force segment shapes: the "
                  "cap is at least Ψ everywhere and at least every shape's designated leaves",
                  evidence=Evidence.exhaustive(checked, nontrivial))


#: (pass, n, d, M, B, H, G) of gap.joint_route (n < d included).
_ROUTE_GRID = [(p, n, d, M, B, H, G) for p in ("forward", "backward")
               for n, d, M, B, H, G in ((4096, 64, 1024, 1, 1, 1), (4096, 64, 11216, 1, 1, 1),
                                        (63, 256, 4, 1, 1, 1), (64, 8, 64, 1, 4, 1),
                                        (4096, 64, 16384, 1, 32, 8), (16, 64, 100, 2, 4, 2))]


def _joint_route_check(ctx: CheckContext, *, products: Callable[[str], int] | None = None
                       ) -> Verdict:
    """Every joint route (single head and stacked) is max_L L(⌈N/cap⌉ − 1) (+ its rest) with
    N = products · B·H·n²d. ``products(cls)`` plants another count (twins).

    Side conditions
    ---------------
    1. ``route-recomputed``: each stacked joint route and its route + rest equal
       max_L L(⌈N/cap⌉ − 1) and that plus the rest, recomputed here.
    2. ``single-equals-stacked``: with one head the single-head routes equal the stacked.
    """
    checked = nontrivial = 0
    for pass_, n, d, M, B, H, G in _ROUTE_GRID:
        classes = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
        for cls in classes:
            count = products(cls) if products else JOINT_CLASSES[cls][0]
            N = count * B * H * n * n * d
            cap = joint_cap(cls, n, d, group=H // G)
            best = max(t * M * max(0, -(-N // cap(d, M, t * M)) - 1) for t in SEGMENT_MULTIPLES)
            per_q, per_kv = JOINT_REST[cls]
            rest = (per_q * B * H + per_kv * B * G) * n * d
            got = [r.value for r in stacked_lower_bound_routes(pass_, n, d, M, cls, batch=B,
                                                               heads=H, kv_heads=G)
                   if r.claim_id == "gap.joint_route"]
            if B * H == 1:
                got_single = [r.value for r in joint_routes(n, d, M, cls)]
                if got_single != got:
                    return Refuted({"pass": pass_, "n": n, "d": d, "M": M, "class": cls,
                                    "single": got_single, "stacked": got},
                                   "one stacked head differs from the single-head route")
            checked += 1
            nontrivial += best > 0
            if got != [best, best + rest]:
                return Refuted({"pass": pass_, "n": n, "d": d, "M": M, "batch": B, "heads": H,
                                "kv_heads": G, "class": cls, "routes": got,
                                "recomputed": [best, best + rest]},
                               "a joint route is not max_L L(⌈N/cap⌉ − 1) (+ rest)")
    return Proved(f"{checked} joint routes (single head and stacked) equal max_L "
                  "L(⌈N/cap⌉ − 1) (+ rest), exact integers",
                  evidence=Evidence.exhaustive(checked, nontrivial))



# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

def _single_cap(cls: str, n: int, d: int) -> Callable[[int, int, int], int]:
    """False: the joint route's cap taken as one product's (segment_product_cap)."""
    return lambda d_, M, L: segment_product_cap(d_, M, L)


_SRC = ("attnio (ours; notes/gap.md 'The joint routes'): the segment argument of Hong–Kung "
        "1981 §3 with Loomis–Whitney 1949 faces, every product of the computation charged, "
        "computed operands witnessed; issue 35")


def joint_claim(id: str, statement: str, formal: str, method: str, check, *,
                tier: str = "default", **kw) -> Claim:
    made = claim(id, statement, formal, method, check, **kw)
    return Claim(id=made.id, statement=made.statement, formal=made.formal, source=_SRC,
                 method=made.method, family="joint_routes", check_fn=made.check_fn,
                 reconstructed=True, twin_of=made.twin_of, expect=made.expect,
                 expect_reason=made.expect_reason, evidence_kind=made.evidence_kind,
                 tier=tier)  # type: ignore[arg-type]


CLAIMS: list[Claim] = [
    joint_claim("gap.joint_cap",
                "joint_segment_cap ≥ max Ψ_κ: the search's certificate (splits refine a grid that "
                "tiles the region, every leaf's bound recomputed ≤ cap) on a grid of (class, d, M, "
                "L); Ψ at every integer point of small sizes ≤ cap (exact); every segment shape of "
                "small products of each class holds ≤ cap designated leaves (brute force)",
                "exact ints: certificate, integer points, subset enumeration", EXACT,
                _joint_cap_check),
    joint_claim("gap.joint_cap_deep",
                "gap.joint_cap on larger grids: five (class, depth, κ), eight (d, M), more integer "
                "points, every segment shape of forward 2×2, 1×3 and given-scores / recompute 1×3",
                "exact ints", EXACT,
                lambda ctx: _joint_cap_check(ctx, classes=_DEEP_CLASSES, sizes=_DEEP_SIZES,
                                             points=_DEEP_POINTS, brute=_DEEP_BRUTE),
                tier="deep"),
    joint_claim("gap.joint_route",
                "every joint route (single head and stacked, n < d included) = max over L = t·M of "
                "L(⌈N/cap(L)⌉ − 1) (+ rest), N = products·B·H·n²d",
                "exact ints on a grid", EXACT, _joint_route_check),
]

FALSE_TWINS: list[Claim] = [
    joint_claim("gap.twin.joint_cap_single_product",
                "the joint route's cap taken as one product's segment cap (the five products of "
                "the recompute class fit in it)", "brute force over segment shapes", EXACT,
                lambda ctx: _joint_cap_check(ctx, cap_of=_single_cap, sizes=[], points=[],
                                             brute=[("recompute", 2, 1)]),
                twin_of="gap.joint_cap", expect_reason="more designated leaves than the cap"),
    joint_claim("gap.twin.joint_cap_below_certificate",
                "the joint cap lowered by 1 % (below the bound of a cell its search kept)",
                "certificate", EXACT,
                lambda ctx: _joint_cap_check(ctx, shift=lambda cap: cap - cap // 100 - 1,
                                             points=[], brute=[]),
                twin_of="gap.joint_cap", expect_reason="a leaf's bound exceeds the cap"),
    joint_claim("gap.twin.joint_route_six_products",
                "the recompute joint route with N = 6n²d (a product counted twice)",
                "route vs its cap", EXACT,
                lambda ctx: _joint_route_check(ctx, products=lambda cls: JOINT_CLASSES[cls][0]
                                               + (cls == "recompute")),
                twin_of="gap.joint_route", expect_reason="is not max_L"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
