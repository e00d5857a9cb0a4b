r"""The claims behind :mod:`attnio.bounds.masks` (certified I/O lower bounds for ONE attention mask).

Claims (``attnio verify``): ``mask.segment_subset`` — the segment cap is at least the
brute-force maximum of designated leaves of the KEPT pairs over every segment shape of small
masked products; ``mask.routes_consistent`` — at the mask ``full`` each route equals the
dense route of :mod:`attnio.bounds.attention`, and the masked segment route is exactly
:math:`\max_L L(\lceil N/\mathrm{cap}\rceil - 1)` with :math:`N = f Z_{QK} d`;
``mask.below_algorithms`` — every route ≤ the exact I/O of every masked algorithm of its
class on a grid of masks incl. the issue's case (window:1, :math:`n = 2^{20}`, :math:`d = 8`,
:math:`M = 64`). False twins: the class formula ``sparse.lower`` at the mask's sizes claimed
for the mask (refuted by FlashAttention-2's count), the dense segment route claimed for a
masked computation, a route without the last segment's − 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from attnio.algorithms.heads import GQA_ALGORITHMS, count_heads
from attnio.algorithms.masks import Mask, parse_mask
from attnio.algorithms.registry import algorithm_names, get_algorithm
from attnio.algorithms.simulation import count
from attnio.bounds.attention import (
    SEGMENT_MULTIPLES,
    GapBound,
    computation_of,
    lower_bound_routes,
    segment_product_cap,
)
from attnio.bounds.masks import (
    CLASSES_BY_PASS,
    PRODUCT_FAMILIES,
    mask_lower_bound_routes,
    masked_segment_route,
)
from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError
from attnio.proofs.attention_routes import pair_leaf_table, segment_cap_excess
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

if TYPE_CHECKING:  # numpy-free at import: proofs load without attnio.algorithms
    from attnio.algorithms.masks import Mask

__all__ = [
    "CLAIMS",
    "FALSE_TWINS",
]


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------
def _masked_leaf_table(n: int, d: int, kept: set[tuple[int, int]]
                       ) -> list[tuple[int, int, list[int]]]:
    """The segment shapes of an n×d by d×n product counting the kept pairs only
    (:func:`attnio.proofs.attention_routes.pair_leaf_table`)."""
    return pair_leaf_table(n, n, d, sorted(kept))


def _kept(n: int, rule: str) -> set[tuple[int, int]]:
    keep = {"full": lambda i, j: True, "causal": lambda i, j: j <= i,
            "window:1": lambda i, j: i == j, "anti": lambda i, j: i + j == n - 1,
            "off": lambda i, j: i != j}[rule]
    return {(i, j) for i in range(n) for j in range(n) if keep(i, j)}


#: (n, d) products, masks and M of mask.segment_subset (L = t·M, t ≤ 4).
_SUBSET_GRID = ([((n, d), rule, M) for n, d in ((2, 2), (3, 1))
                 for rule in ("causal", "window:1", "anti", "off") for M in (1, 2)]
                + [((n, d), rule, M) for n, d in ((2, 3), (3, 2)) for rule in ("causal", "off")
                   for M in (1, 2)])


def _segment_subset_check(ctx: CheckContext, *,
                          cap: Callable[[int, int, int], int] = segment_product_cap,
                          grid: list | None = None) -> Verdict:
    """The segment cap ≥ the brute-force maximum of designated leaves of the kept pairs."""
    checked = nontrivial = 0
    tables: dict[tuple[int, int, str], list] = {}
    for (n, d), rule, M in _SUBSET_GRID if grid is None else grid:
        table = tables.setdefault((n, d, rule), _masked_leaf_table(n, d, _kept(n, rule)))
        done, hard, excess = segment_cap_excess(table, d, M, cap)
        checked, nontrivial = checked + done, nontrivial + hard
        if excess is not None:
            L, value, most = excess
            return Refuted({"n": n, "d": d, "mask": rule, "M": M, "L": L, "cap": value,
                            "brute_force": most},
                           "a segment holds more designated leaves of kept pairs than the cap")
    return Proved(f"{checked} (mask, n, d, M, L): cap ≥ the brute-force maximum over every "
                  "segment shape of the kept pairs' leaves",
                  evidence=Evidence.exhaustive(checked, nontrivial))


def _mask(spec: str) -> "Mask":

    if spec.startswith("blockdiag:"):  # block b, pattern: the diagonal plus block column 0
        import numpy as np

        b, t = (int(x) for x in spec.split(":")[1:])
        i, j = np.indices((t, t))
        return Mask.block_sparse(b, (i == j) | ((j == 0) & (i % 2 == 0)))
    if spec.startswith("band:"):  # an arbitrary array: rows i ≡ 0 mod 3 keep j ∈ [i-2, i+2]
        import numpy as np

        n = int(spec.split(":")[1])
        i, j = np.indices((n, n))
        return Mask.from_array((i % 3 == 0) & (abs(i - j) <= 2))
    return parse_mask(spec)


#: (mask, n, d, M) of mask.below_algorithms: band masks at large n (closed-form counts),
#: block-sparse with empty rows and columns, an arbitrary array, and the issue's case.
_BELOW_GRID = ([(m, n, d, M) for m in ("full", "causal", "window:1", "window:7", "window:100")
                for n, d, M in ((256, 8, 4), (256, 8, 64), (256, 8, 4096), (4096, 64, 64),
                                (4096, 64, 65536))]
               + [("blockdiag:16:8", 128, 8, M) for M in (4, 1024)]
               + [("band:60", 60, 4, M) for M in (8, 512)]
               + [("window:1", 1_048_576, 8, 64), ("window:1", 3000, 1, 11),
                  ("window:16", 1_048_576, 64, 4096)])


#: (B, H, G) of the stacked-head comparisons of mask.below_algorithms, on _BELOW_HEADS_GRID.
_HEAD_SHAPES = ((1, 4, 2), (2, 2, 1), (1, 3, 3), (2, 8, 2))
_BELOW_HEADS_GRID = [(m, n, d, M) for m in ("causal", "window:1", "window:7", "band:60")
                     for n, d, M in ((60, 4, 8), (256, 8, 64), (256, 8, 4096))]


def _masked_counts(pass_: str, mask: "Mask", n: int, d: int, M: int,
                   shape: tuple[int, int, int] | None = None) -> dict[str, int]:
    """Every masked algorithm's exact I/O (``shape`` = (B, H, G): over stacked heads, with
    the grouped-query FlashAttention-2 too)."""

    names = list(algorithm_names(pass_))
    if shape is not None:
        names += [g for g in GQA_ALGORITHMS if g not in names]
    out = {}
    for name in names:
        if name not in GQA_ALGORITHMS and not get_algorithm(name).masked:
            continue
        if computation_of(name, pass_) not in CLASSES_BY_PASS[pass_]:
            continue
        try:
            if shape is None:
                out[name] = count(name, pass_, n, d, M, mask=mask).io
            else:
                b, h, g = shape
                out[name] = count_heads(name, pass_, n, d, M, batch=b, heads=h, kv_heads=g,
                                        mask=mask).io
        except (InfeasibleError, CacheOverflowError, InvalidInputError):  # no tile fits M
            continue
    return out


def _below_algorithms(ctx: CheckContext, *,
                      route_fn: Callable[..., list[GapBound]] = mask_lower_bound_routes,
                      grid: list | None = None) -> Verdict:
    """Every route of a masked algorithm's class ≤ its exact masked count, on the grid.

    Side conditions
    ---------------
    1. ``both-passes``: the forward and the backward pass are each compared.
    2. ``every-algorithm``: every masked algorithm of the pass is compared with the routes of
       its computation class (a route above one algorithm's count refutes).
    3. ``every-route``: every route of the class is compared.
    4. ``route-within-count``: route ≤ the exact count — one word above refutes.
    5. ``stacked-heads``: on the stacked-head cases the routes for (batch, heads, kv_heads)
       are compared with the counts over the stacked heads.
    """
    checked = nontrivial = 0
    cases: list[tuple[str, int, int, int, tuple[int, int, int] | None]] = (
        [(*c, None) for c in _BELOW_GRID] + [(*c, s) for c in _BELOW_HEADS_GRID
                                             for s in _HEAD_SHAPES]
        if grid is None else [(*c, None) if len(c) == 4 else c for c in grid])
    for spec, n, d, M, shape in cases:
        mask = _mask(spec)
        heads = {} if shape is None else dict(zip(("batch", "heads", "kv_heads"), shape))
        for pass_ in ("forward", "backward"):
            routes: dict[str, list[GapBound]] = {}  # one evaluation per computation class
            for name, io in _masked_counts(pass_, mask, n, d, M, shape).items():
                computation = computation_of(name, pass_)
                if computation not in routes:
                    routes[computation] = route_fn(pass_, mask, n, d, M, computation, **heads)
                for bound in routes[computation]:
                    checked += 1
                    nontrivial += bound.value > 0
                    if bound.value > io:
                        return Refuted({"mask": spec, "pass": pass_, "n": n, "d": d, "M": M,
                                        **heads, "route": bound.route, "bound": bound.value,
                                        "algorithm": name, "io": io},
                                       "a per-mask lower bound exceeds a masked algorithm's "
                                       "exact I/O")
    return Proved(f"{checked} (route, masked algorithm, mask, size) comparisons, exact integers",
                  evidence=Evidence.exhaustive(checked, nontrivial))


#: (pass, n, d, M) of mask.routes_consistent (the dense routes at the mask full).
_CONSISTENT_GRID = [(p, n, d, M) for p in ("forward", "backward")
                    for n, d, M in ((16, 1, 3), (256, 4, 64), (4096, 64, 3), (4096, 64, 1024))]


def _routes_consistent(ctx: CheckContext, *,
                       route_fn: Callable[..., list[GapBound]] = mask_lower_bound_routes,
                       segment: Callable[..., tuple[int, int]] = masked_segment_route,
                       grid: list | None = None) -> Verdict:
    """At the mask full: masked routes == the dense routes' compulsory and segment routes, exactly;
    on every grid mask: the segment route is max_L L(⌈N/cap⌉ − 1) with N = f·Z_QK·d."""

    checked = nontrivial = 0
    for pass_, n, d, M in _CONSISTENT_GRID if grid is None else grid:
        for computation in CLASSES_BY_PASS[pass_]:
            dense = lower_bound_routes(pass_, n, d, M, computation)[:3]
            masked = route_fn(pass_, Mask.full(), n, d, M, computation)
            checked += 1
            nontrivial += dense[1].value > 0
            if [b.value for b in masked] != [b.value for b in dense]:
                return Refuted({"pass": pass_, "n": n, "d": d, "M": M,
                                "computation": computation,
                                "masked": [b.value for b in masked],
                                "dense": [b.value for b in dense]},
                               "at the mask full the routes differ from the dense routes")
            for spec in ("causal", "window:1", "window:5"):
                mask = _mask(spec)
                N = PRODUCT_FAMILIES[computation][0] * mask.z_qk(n) * d
                value, _ = segment(N, d, M)
                best = max(t * M * max(0, -(-N // segment_product_cap(d, M, t * M)) - 1)
                           for t in SEGMENT_MULTIPLES)
                checked += 1
                nontrivial += best > 0
                if value != best:
                    return Refuted({"mask": spec, "pass": pass_, "n": n, "d": d, "M": M,
                                    "value": value, "max_L": best},
                                   "the masked segment route is not max_L L(⌈N/cap⌉ − 1)")
    return Proved(f"{checked} comparisons: dense routes reproduced at full; masked segment "
                  "route = max_L L(⌈N/cap⌉ − 1) exactly",
                  evidence=Evidence.exhaustive(checked, nontrivial))


# ---- false twins ---------------------------------------------------------------------------
def _twin_class_bound(pass_: str, mask: "Mask", n: int, d: int, M: int,
                      computation: str, **heads: Any) -> list[GapBound]:
    """The class formula sparse.lower at the mask's (Z_in, Z_QK), rounded down, claimed as a
    bound for this mask (the issue-21 defect)."""
    from math import isqrt

    z_in, z_qk = mask.z_in(n, d), mask.z_qk(n)
    if z_in == 0 or z_qk == 0:
        return []
    # min(Z_in²/M, Z_in·√(Z_QK/M)), floored exactly: ⌊√(Z_in²·Z_QK/M)⌋ ≤ the real value
    return [GapBound(min(z_in * z_in // M, isqrt(z_in * z_in * z_qk // M)),
                     "sparse.lower (class bound) as a per-mask bound", "twin")]


def _twin_dense_segment(pass_: str, mask: "Mask", n: int, d: int, M: int,
                        computation: str, **heads: Any) -> list[GapBound]:
    """The dense segment route (n² pairs) claimed for a masked computation."""
    return lower_bound_routes(pass_, n, d, M, computation)[1:2]


def _route_without_last(N: int, d: int, M: int, *,
                        cap: Callable[[int, int, int], int] | None = None) -> tuple[int, int]:
    """The masked segment route with L·⌈N/cap⌉ (the last, shorter segment's − 1 dropped)."""
    return max((t * M * -(-N // segment_product_cap(d, M, t * M)), t * M)
               for t in SEGMENT_MULTIPLES)


def _cap_dense_pairs_over_mask(d: int, M: int, L: int) -> int:
    """A cap that charges kept pairs only a third of the dense cap (the subset step inverted)."""
    return max(1, segment_product_cap(d, M, L) // 3)


_SRC = ("attnio (ours; notes/sparse.md): segment argument of Hong–Kung 1981 §3 with "
        "Loomis–Whitney faces (notes/gap.md) restricted to the kept pairs; compulsory I/O of "
        "the needed rows")
_EXACT = "exact integer comparison"


def _claim(id: str, statement: str, formal: str, check, *, twin_of: str | None = None,
           expect_reason: str = "") -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC, method=_EXACT,
                 family="mask_bounds", check_fn=check, reconstructed=True, twin_of=twin_of,
                 expect="refuted", expect_reason=expect_reason, evidence_kind="exhaustive")


CLAIMS: list[Claim] = [
    _claim("mask.segment_subset",
           "for any set of kept pairs, a segment of L I/Os holds at most "
           "segment_product_cap(d, M, L) designated leaves of the kept pairs (brute force over "
           "every segment shape, masks causal / window:1 / anti-diagonal / off-diagonal, "
           "n ≤ 3, d ≤ 3, M ≤ 3, L ≤ 4M)",
           "max over shapes of full + best partial leaves ≤ cap, exact ints",
           _segment_subset_check),
    _claim("mask.routes_consistent",
           "at the mask full the per-mask routes equal the dense routes' compulsory, segment and "
           "segment + rest routes; the masked segment route is max_L L(⌈N/cap⌉ − 1), "
           "N = f·Z_QK·d, exactly",
           "route values compared as ints", _routes_consistent),
    _claim("mask.below_algorithms",
           "every per-mask route (compulsory of the needed rows, segment on the kept pairs, "
           "segment + rest) ≤ the exact I/O of every masked algorithm of its class, masks "
           "full/causal/window/block/array incl. window:1 at n = 2^20, d = 8, M = 64",
           "route ≤ count(alg, mask).io, exact ints", _below_algorithms),
]

FALSE_TWINS: list[Claim] = [
    _claim("mask.twin.class_bound_per_mask",
           "sparse.lower = min(Z_in²/M, Z_in√Z_QK/√M) at this mask's sizes is a lower bound "
           "for this mask (the issue-21 defect: a worst case over masks applied to one)",
           "route ≤ count(alg, mask).io",
           lambda ctx: _below_algorithms(ctx, route_fn=_twin_class_bound),
           twin_of="mask.below_algorithms", expect_reason="exceeds a masked algorithm"),
    _claim("mask.twin.dense_segment_for_mask",
           "the dense segment route (N = n²d) holds for a masked computation",
           "route ≤ count(alg, mask).io",
           lambda ctx: _below_algorithms(ctx, route_fn=_twin_dense_segment),
           twin_of="mask.below_algorithms", expect_reason="exceeds a masked algorithm"),
    _claim("mask.twin.route_without_last_segment",
           "masked segment route L·⌈N/cap⌉ (the − 1 of the last segment dropped)",
           "route vs max_L", lambda ctx: _routes_consistent(ctx, segment=_route_without_last),
           twin_of="mask.routes_consistent", expect_reason="not max_L"),
    _claim("mask.twin.cap_over_3_on_kept_pairs",
           "kept pairs need only a third of the dense segment cap",
           "cap vs brute force",
           lambda ctx: _segment_subset_check(ctx, cap=_cap_dense_pairs_over_mask),
           twin_of="mask.segment_subset", expect_reason="more designated leaves"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
