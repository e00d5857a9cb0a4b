r"""Explicit-constant I/O lower bounds for attention at real sizes (issue 11, items 4–5).

Every bound here is an exact ``int`` at given :math:`(n, d, M)`, rounded *down*, valid for
every schedule of the red-blue pebble game (Hong & Kung 1981; inputs = sources, never
computed; recomputation allowed; schedules of any length) on the computation named, with
:math:`M` red pebbles. The proof of the segment route is ours (RECONSTRUCTED in the sense of
the house rules: not verbatim from a source); it is written out in ``notes/gap.md`` and its
algebraic steps are the claims below.

Routes
------
* **compulsory** — every input vertex with a successor is read at least once (it starts blue
  and can never be computed), every output is written at least once (it is computed, so it
  starts with no pebble, and must end blue):

  - forward (Q, K, V → O): :math:`Q \ge 3nd + nd = 4nd`;
  - backward (Q, K, V, O, dO → dQ, dK, dV; every backward computation of
    :mod:`attnio.algorithms` reads these five, some read more): :math:`Q \ge 5nd + 3nd = 8nd`.

* **segment products** — for an :math:`n\times n\times d` product :math:`XY^\top` whose operands
  :math:`X, Y` are *inputs* and whose :math:`n^2` inner products are summed in pairwise
  disjoint trees :math:`T_{ij}` (leaves: the :math:`d` vertices that multiply
  :math:`x_{ik}` by :math:`y_{jk}`; root: :math:`S_{ij}`, an ancestor of an output). Cut a
  schedule into segments of :math:`L` I/Os (the last one shorter). Designate one
  computation of each leaf by tracing the *witness* of a computation of each root backwards
  (``notes/gap.md``). In a segment with :math:`r` reads and :math:`w` writes
  (:math:`r + w \le L`) let :math:`A` (:math:`B`) be the entries of :math:`X` (:math:`Y`)
  red at some time in it, and call a pair :math:`(i, j)` *full* if all :math:`d` of its
  designated leaves fall in the segment and *partial* if some but not all do. Then

  - :math:`a + b + c_{in} \le M + r` (red at the start or read) and
    :math:`c_{out} \le M + w` (red at the end or written), where the partial pairs
    :math:`c = c_{in} + c_{out}` are charged to distinct tree vertices carried across a
    segment boundary; so :math:`s = a + b \le M + L` and :math:`s + c \le 2M + L`;
  - full pairs need full rows: at most :math:`\lfloor a/d\rfloor\lfloor b/d\rfloor` of them,
    :math:`\le ab/d \le s^2/(4d)` designated leaves;
  - partial pairs: Loomis–Whitney, :math:`\le \sqrt{abc} \le (s/2)\sqrt c`, and
    :math:`\le (d-1)c`.

  So every segment holds at most

  .. math:: F(L) = \max_{0\le s\le M+L}\ \frac{s^2}{4d}
            + \min\Bigl(\frac s2\sqrt{2M+L-s},\ (d-1)(2M+L-s)\Bigr)

  designated leaves; :func:`segment_product_cap` returns an exact integer upper bound of
  :math:`F(L)` (the maximum over cells of a grid, each cell bounded by its corners, claim
  ``gap.cell_bound``). With :math:`N` products, :math:`\lceil Q/L\rceil \ge \lceil N/F\rceil`,

  .. math:: Q \;\ge\; L\bigl(\lceil N / F(L)\rceil - 1\bigr),

  maximised over :math:`L \in \{M, 2M, \dots, 16M\}` (each :math:`L` gives a valid bound).
  Shapes: :math:`\approx \sqrt2\, n^2d/\sqrt M` for :math:`M \ll d^2` (at :math:`L = 4M`) and
  :math:`\approx n^2d^2/M` for :math:`M \gg d^2` (at :math:`L = M`). Several such products
  with disjoint operands and trees share one budget; :math:`F` is superadditive (claim
  ``gap.superadditive``), so :math:`N` is their total with the same :math:`F`.

  - ``"forward"`` (every forward algorithm): :math:`QK^\top` (:math:`N = n^2d`);
  - ``"recompute"`` (backward recomputing the scores from Q, K: FlashAttention-1/2):
    :math:`QK^\top` and :math:`dO\,V^\top` (:math:`N = 2n^2d`);
  - ``"given-scores"`` (backward given an :math:`n\times n` input: standard attention reads
    :math:`P`, Algorithm 6 and ``small-cache-fused`` read :math:`A = \exp(QK^\top)`):
    :math:`QK^\top` is not in their DAG, only :math:`dO\,V^\top` (:math:`N = n^2d`) counts;
    but every entry of the given :math:`n\times n` input has a successor, so the compulsory
    route gains :math:`n^2` reads: :math:`Q \ge 8nd + n^2`.

  (:math:`dV = P^\top dO`, :math:`dQ = dS\,K`, :math:`dK = dS^\top Q` have a computed
  operand, which the segment argument cannot charge, so they are not counted.)

* **segment + compulsory rest** — the segment argument needs only the I/Os on the
  products' operands and tree vertices; cut the segments by counting only those I/Os, and
  the I/Os on every other vertex come on top, at least their compulsory part: the inputs
  and outputs outside the operands — forward: V read, O written (:math:`2nd`);
  ``recompute``: O read, dQ, dK, dV written (:math:`4nd`); ``given-scores``: the
  :math:`n\times n` input, Q, K, O read, dQ, dK, dV written (:math:`n^2 + 6nd`).

* **Saha–Ye level-1** — :func:`attnio.proofs.explicit_bounds.explicit_routes` (the
  Hong–Kung partition route with Saha–Ye Lemma 3.3's constants,
  :math:`\ge n^2d^2/(4(M+d^2)) - M`) on :math:`QK^\top`, for the ``forward`` and
  ``recompute`` classes (the DAGs that module states it for).

:func:`best_lower_bound` returns the largest route of a class with its name and the id of
the claim it instantiates; with ``computation="any"`` the *smallest* of the class maxima,
which holds for every algorithm of :mod:`attnio.algorithms` (each belongs to one class,
:func:`computation_of`).

Claims (``attnio verify``): the face algebra (z3), the cell bound (z3), superadditivity
(z3), Loomis–Whitney on every subset of a 2×2×2 grid and on seeded random subsets of
3×3×3 (exact), the integer route ≥ its closed form (exact), and — a check that can fail —
every route ≤ the exact I/O of every algorithm of :mod:`attnio.algorithms` on a grid of
sizes including n = 4096, d = 64. False twins: the full-pair hypothesis dropped (treating
:math:`S_{ij}` as outputs, :math:`c \le 2M + L`: exceeds FlashAttention-2's exact count),
the cell bound taken at the cell's lower corner, :math:`ab \le s^2/8`, Loomis–Whitney with
a factor 2, compulsory I/O with every input read twice, and the :math:`n^2` reads of given
scores claimed for FlashAttention's computation too (exceeds FlashAttention-2's exact I/O).

Examples
--------
>>> compulsory_io("forward", 4096, 64), compulsory_io("backward", 4096, 64)
(1048576, 2097152)
>>> b = best_lower_bound("backward", 4096, 64, 1024)
>>> b.value, b.route, b.claim_id
(43829248, 'given-scores: segment products (dO·Vᵀ), L = 2M + compulsory rest', 'gap.segment_route')
>>> best_lower_bound("forward", 4096, 64, 262144).route
'compulsory'
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from itertools import product as cartesian
from math import isqrt
from typing import Callable

import z3

from attnio.exceptions import CacheOverflowError, InfeasibleError, InvalidInputError
from attnio.proofs.explicit_bounds import explicit_routes
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.proofs.z3tools import prove
from attnio.results import Evidence, Proved, Refuted, Verdict
from attnio.validation import positive_int

__all__ = [
    "PASSES",
    "COMPUTATIONS",
    "SEGMENT_MULTIPLES",
    "GapBound",
    "compulsory_io",
    "ceil_sqrt",
    "segment_product_cap",
    "segment_route",
    "computation_of",
    "lower_bound_routes",
    "best_lower_bound",
    "CLAIMS",
    "FALSE_TWINS",
]

PASSES = ("forward", "backward")
#: Computation classes (module docstring); "any" in best_lower_bound is the min over them.
COMPUTATIONS = ("forward", "recompute", "given-scores")
#: Segment lengths L = t·M tried by :func:`segment_route` (each gives a valid bound).
SEGMENT_MULTIPLES = (1, 2, 3, 4, 5, 6, 8, 12, 16)
#: Grid cells of :func:`segment_product_cap` (more cells: tighter, slower).
CELLS = 256


@dataclass(frozen=True, slots=True)
class GapBound:
    """One lower bound: its exact value, the route's name, the claim it instantiates."""

    value: int
    route: str
    claim_id: str


def _positive(name: str, value: object) -> int:
    return positive_int(name, value)


def _pass(pass_: str) -> str:
    if pass_ not in PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    return pass_


def compulsory_io(pass_: str, n: int, d: int) -> int:
    """Inputs read once plus outputs written once: 4nd (forward), 8nd (backward).

    >>> compulsory_io("backward", 2, 3)
    48
    """
    _pass(pass_)
    n, d = _positive("n", n), _positive("d", d)
    return (3 + 1) * n * d if pass_ == "forward" else (5 + 3) * n * d


def ceil_sqrt(x: int) -> int:
    """:math:`\\lceil\\sqrt x\\rceil` for an int ``x ≥ 0``, exactly.

    >>> ceil_sqrt(0), ceil_sqrt(16), ceil_sqrt(17)
    (0, 4, 5)
    """
    r = isqrt(x)
    return r if r * r == x else r + 1


def _cell_cap(d: int, T: int, s0: int, s1: int, *, lower_corner: bool = False) -> int:
    """Integer upper bound of g(s) = s²/(4d) + min((s/2)√(T−s), (d−1)(T−s)) on [s0, s1]."""
    s_full = s0 if lower_corner else s1  # the twin takes the wrong corner
    full = -(-s_full * s_full // (4 * d))
    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2), (d - 1) * (T - s0))
    return full + partial


def segment_product_cap(d: int, M: int, L: int, *, cells: int = CELLS,
                        outputs_hypothesis: bool = False, lower_corner: bool = False) -> int:
    r"""An exact integer :math:`\ge F(L)`: designated leaves per segment of :math:`L` I/Os.

    ``outputs_hypothesis=True`` is the *false* variant that treats every pair as partial
    (as if :math:`S_{ij}` were an output, the matmul C-face :math:`c \le 2M+L`):
    :math:`\max_s (s/2)\sqrt{2M+L-s}` — used only by a false twin. ``lower_corner`` is the
    false cell bound of another twin.

    >>> segment_product_cap(64, 1024, 2048) > 0
    True
    """
    d, M, L = _positive("d", d), _positive("M", M), _positive("L", L)
    T, S = 2 * M + L, M + L
    best = 0
    for i in range(cells):
        s0, s1 = S * i // cells, S * (i + 1) // cells
        if outputs_hypothesis:
            cap = -(-ceil_sqrt(s1 * s1 * (T - s0)) // 2)
        else:
            cap = _cell_cap(d, T, s0, s1, lower_corner=lower_corner)
        best = max(best, cap)
    return max(best, 1)


def segment_route(n: int, d: int, M: int, *, products: int = 1,
                  cap: Callable[[int, int, int], int] | None = None) -> tuple[int, int]:
    r""":math:`\max_L L(\lceil N/F(L)\rceil - 1)` with :math:`N = \text{products}\cdot n^2d`.

    Returns ``(value, L)`` (``L = 0`` when every L gives 0). ``cap(d, M, L)`` replaces
    :func:`segment_product_cap` (false twins only).

    >>> segment_route(4096, 64, 1024)
    (25479168, 2048)
    """
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    N = products * n * n * d
    cap = cap or segment_product_cap
    best, best_L = 0, 0
    for t in SEGMENT_MULTIPLES:
        L = t * M
        value = L * max(0, -(-N // cap(d, M, L)) - 1)
        if value > best:
            best, best_L = value, L
    return best, best_L


def computation_of(algorithm: str, pass_: str) -> str:
    """The computation class of an algorithm of :mod:`attnio.algorithms` (module docstring).

    The class is the record's in :mod:`attnio.algorithms.registry` (``backward_computation``).

    >>> computation_of("flash2", "backward"), computation_of("small-cache", "backward")
    ('recompute', 'given-scores')
    """
    from attnio.algorithms.registry import get_algorithm  # lazy: proofs load without numpy

    return get_algorithm(algorithm).computation(pass_)


def lower_bound_routes(pass_: str, n: int, d: int, M: int,
                       computation: str) -> list[GapBound]:
    """Every route's bound at (n, d, M) for one computation class (see the module doc).

    >>> [r.route for r in lower_bound_routes("forward", 64, 8, 64, "forward")]
    ['compulsory', 'segment products (Q·Kᵀ), L = 2M', 'segment products (Q·Kᵀ), L = 2M + compulsory rest', 'Saha-Ye level-1 (Q·Kᵀ)']
    >>> [r.value for r in lower_bound_routes("backward", 64, 8, 64, "given-scores")][0]
    8192
    """
    _pass(pass_)
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    if computation not in allowed:
        raise InvalidInputError(f"computation={computation!r} must be one of {allowed} for "
                                f"the {pass_} pass")
    compulsory = GapBound(compulsory_io(pass_, n, d), "compulsory", "gap.compulsory")
    if computation == "forward":
        families, name = 1, "Q·Kᵀ"
    elif computation == "given-scores":
        families, name = 1, "dO·Vᵀ"
        compulsory = GapBound(compulsory.value + n * n, "compulsory (+ n² of the given scores)",
                              "gap.compulsory")
    else:
        families, name = 2, "Q·Kᵀ + dO·Vᵀ"
    value, L = segment_route(n, d, M, products=families)
    seg_name = f"segment products ({name})" + (f", L = {L // M}M" if L else "")
    # I/O on vertices outside the products' operands and trees is not needed by the segment
    # argument: segments count only the other I/Os, and these add their compulsory part
    rest = {"forward": 2 * n * d, "recompute": 4 * n * d,
            "given-scores": n * n + 6 * n * d}[computation]
    routes = [compulsory, GapBound(value, seg_name, "gap.segment_route"),
              GapBound(rest + value, f"{seg_name} + compulsory rest", "gap.segment_route")]
    if computation != "given-scores":
        # explicit_bounds' route on the QKᵀ level-1 vertices of the forward / backward (qkv)
        # DAG, where that module states it; not claimed for the given-scores DAGs
        kind = "attention-forward" if computation == "forward" else "attention-backward"
        sy = explicit_routes(kind, {"n": n, "d": d}, M)["Saha-Ye level-1"]
        routes.append(GapBound(sy, "Saha-Ye level-1 (Q·Kᵀ)", "explicit.attention_closed_form"))
    return routes


def best_lower_bound(pass_: str, n: int, d: int, M: int, computation: str = "any") -> GapBound:
    """The largest route for one computation class; ``"any"``: the smallest class maximum.

    With ``"any"`` the bound holds for every algorithm of :mod:`attnio.algorithms` (each
    belongs to one class); its route names the binding class.

    >>> best_lower_bound("backward", 4096, 64, 1024, "recompute").value
    52006912
    >>> best_lower_bound("backward", 4096, 64, 8192).route
    'recompute: segment products (Q·Kᵀ + dO·Vᵀ), L = 2M + compulsory rest'
    """
    _pass(pass_)
    classes = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    if computation != "any":
        routes = lower_bound_routes(pass_, n, d, M, computation)
        return max(routes, key=lambda r: r.value)
    per_class = [(best_lower_bound(pass_, n, d, M, c), c) for c in classes]
    bound, cls = min(per_class, key=lambda bc: bc[0].value)
    if pass_ == "forward":
        return bound
    return GapBound(bound.value, f"{cls}: {bound.route}", bound.claim_id)


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------


def _face_algebra(ctx: CheckContext, *, factor: int = 4) -> Verdict:
    """a, b, c ≥ 0, s = a + b, y² = abc, r² = c ⇒ ab/d ≤ s²/(4d) and y ≤ (s/2)·r."""
    a, b, c, d, y, r = z3.Reals("a b c d y r")
    s = a + b
    hyp = [a >= 0, b >= 0, c >= 0, d >= 1, y >= 0, y * y == a * b * c, r >= 0, r * r == c]
    goal = z3.And(a * b / d <= s * s / (factor * d), y <= s * r / 2)
    return prove(goal, hyp, timeout_ms=ctx.z3_timeout_ms)


def _all_proved(steps: list[tuple[str, Verdict]]) -> Verdict:
    """Proved iff every step is; else the first step that is not (Refuted / Undecided)."""
    for name, verdict in steps:
        if not verdict.proved:
            return verdict
    # both solvers' answers, step by step: "proved" only if every step's solver said so
    solvers: dict[str, str] = {}
    for _, verdict in steps:
        for solver, answer in (verdict.evidence.solvers if verdict.evidence else {}).items():
            solvers[solver] = answer if solvers.get(solver, answer) == answer else "undecided"
    return Proved("z3: every step unsat: " + "; ".join(name for name, _ in steps),
                  evidence=Evidence("smt-forall", solvers=solvers))


def _root_monotone(ctx: CheckContext, small: z3.ArithRef, big: z3.ArithRef) -> Verdict:
    """r, R ≥ 0 and r² ≤ R² ⇒ r ≤ R."""
    return prove(small <= big, [small >= 0, big >= 0, small * small <= big * big],
                 timeout_ms=ctx.z3_timeout_ms)


def _min_monotone(ctx: CheckContext) -> Verdict:
    """x ≤ X, y ≤ Y ⇒ min(x, y) ≤ min(X, Y)."""
    x, X, y, Y = z3.Reals("x X y Y")
    return prove(z3.If(x <= y, x, y) <= z3.If(X <= Y, X, Y), [x <= X, y <= Y],
                 timeout_ms=ctx.z3_timeout_ms)


def _cell_bound(ctx: CheckContext, *, lower_corner: bool = False) -> Verdict:
    r"""On :math:`s_0\le s\le s_1`, :math:`0\le c\le T-s`:
    :math:`g(s, c) \le s_1^2/(4d) + \min((s_1/2)\sqrt{T-s_0}, (d-1)(T-s_0))`, in z3 steps:
    :math:`\sqrt c \le \sqrt{T-s_0}`; :math:`s\sqrt c \le s_1\sqrt{T-s_0}`;
    :math:`(d-1)c \le (d-1)(T-s_0)`; min is monotone; :math:`s^2 \le s_1^2`.
    """
    s, s0, s1, T, c, d, r, R = z3.Reals("s s0 s1 T c d r R")
    box = [s0 >= 0, s0 <= s, s <= s1, s1 <= T, c >= 0, c <= T - s, d >= 1,
           r >= 0, r * r == c, R >= 0, R * R == T - s0]
    t = ctx.z3_timeout_ms
    corner = s0 if lower_corner else s1
    return _all_proved([
        ("√c ≤ √(T−s0)", prove(r <= R, box + [r * r <= R * R], timeout_ms=t)),
        ("s√c ≤ s1√(T−s0)", prove(s * r <= s1 * R, [s >= 0, s <= s1, r >= 0, r <= R],
                                  timeout_ms=t)),
        ("(d−1)c ≤ (d−1)(T−s0)", prove((d - 1) * c <= (d - 1) * (T - s0), box, timeout_ms=t)),
        ("min monotone", _min_monotone(ctx)),
        ("s² ≤ corner²", prove(s * s <= corner * corner, box, timeout_ms=t)),
    ])


def _superadditive(ctx: CheckContext, *, reverse: bool = False) -> Verdict:
    r""":math:`g(s_1,c_1)+g(s_2,c_2) \le g(s_1+s_2, c_1+c_2)` for
    :math:`g(s, c) = s^2/(4d) + \min((s/2)\sqrt c, (d-1)c)`, in z3 steps:
    :math:`s_1^2+s_2^2 \le (s_1+s_2)^2`; :math:`\sqrt{c_i} \le \sqrt{c_1+c_2}`;
    :math:`s_1\sqrt{c_1}+s_2\sqrt{c_2} \le (s_1+s_2)\sqrt{c_1+c_2}`;
    :math:`\min(x_1,y_1)+\min(x_2,y_2) \le \min(x_1+x_2, y_1+y_2)`.
    """
    s1, s2, c1, c2, r1, r2, r = z3.Reals("s1 s2 c1 c2 r1 r2 r")
    x1, y1, x2, y2 = z3.Reals("x1 y1 x2 y2")
    pos = [s1 >= 0, s2 >= 0, c1 >= 0, c2 >= 0, r1 >= 0, r2 >= 0, r >= 0,
           r1 * r1 == c1, r2 * r2 == c2, r * r == c1 + c2]
    t = ctx.z3_timeout_ms
    square = ((s1 + s2) ** 2 <= s1 * s1 + s2 * s2) if reverse else (
        s1 * s1 + s2 * s2 <= (s1 + s2) ** 2)
    mins = z3.If(x1 <= y1, x1, y1) + z3.If(x2 <= y2, x2, y2)
    return _all_proved([
        ("s1² + s2² ≤ (s1+s2)²", prove(square, pos, timeout_ms=t)),
        ("√c1 ≤ √(c1+c2)", prove(r1 <= r, pos + [r1 * r1 <= r * r], timeout_ms=t)),
        ("√c2 ≤ √(c1+c2)", prove(r2 <= r, pos + [r2 * r2 <= r * r], timeout_ms=t)),
        ("s1√c1 + s2√c2 ≤ (s1+s2)√(c1+c2)",
         prove(s1 * r1 + s2 * r2 <= (s1 + s2) * r, pos + [r1 <= r, r2 <= r], timeout_ms=t)),
        ("min superadditive", prove(mins <= z3.If(x1 + x2 <= y1 + y2, x1 + x2, y1 + y2),
                                    timeout_ms=t)),
    ])


def _lw_ok(points: set[tuple[int, ...]], factor: Fraction) -> bool:
    ab = {(i, k) for i, j, k in points}
    bc = {(j, k) for i, j, k in points}
    ij = {(i, j) for i, j, k in points}
    return len(points) ** 2 <= factor * len(ab) * len(bc) * len(ij)


def _loomis_whitney(ctx: CheckContext, *, factor: Fraction = Fraction(1)) -> Verdict:
    """|P|² ≤ |π_ik P|·|π_jk P|·|π_ij P|: every subset of [2]³, 3000 seeded subsets of [3]³."""
    cube2 = list(cartesian(range(2), repeat=3))
    checked = 0
    for mask in range(1 << len(cube2)):
        checked += 1
        pts = {p for t, p in enumerate(cube2) if mask >> t & 1}
        if not _lw_ok(pts, factor):
            return Refuted({"points": sorted(pts)}, "Loomis–Whitney fails on this set")
    rng = random.Random(11)
    cube3 = list(cartesian(range(3), repeat=3))
    for _ in range(3000):
        checked += 1
        pts = {p for p in cube3 if rng.random() < rng.random()}
        if not _lw_ok(pts, factor):
            return Refuted({"points": sorted(pts)}, "Loomis–Whitney fails on this set")
    return Proved("exact: all 256 subsets of [2]³ and 3000 seeded subsets of [3]³",
                  evidence=Evidence("exhaustive", instances=checked, nontrivial_instances=checked))


def _route_ge_closed_form(ctx: CheckContext) -> Verdict:
    r"""At L = 4M: cap ≤ 1.01·(25M²/(4d) + 2√2·M^{3/2}) + 3 and route ≥ 4M·N/cap − 4M, exactly.

    (s ≤ 5M and (s/2)√(6M − s) ≤ 2√2·M^{3/2}; the 1 % is the grid's cell width.) Hence the
    route is ≥ √2·n²d/√M·(1 + O(√M/d))⁻¹ − 4M: the small-cache shape.
    """
    checked = 0
    for n in (16, 64, 256, 4096):
        for d in (1, 4, 16, 64):
            for M in (1, 3, 8, 64, 100, 1024, 5000):
                checked += 1
                cap = segment_product_cap(d, M, 4 * M)
                excess = (Fraction(cap) - 3) / Fraction(101, 100) - Fraction(25 * M * M, 4 * d)
                if excess > 0 and excess * excess > 8 * M ** 3:
                    return Refuted({"d": d, "M": M, "cap": cap}, "cap above its closed form")
                N = n * n * d
                value = 4 * M * max(0, -(-N // cap) - 1)
                if Fraction(value) < Fraction(4 * M * N, cap) - 4 * M:
                    return Refuted({"n": n, "d": d, "M": M, "value": value},
                                   "route below 4M·N/cap − 4M")
    return Proved("exact: n ∈ {16, 64, 256, 4096}, d ∈ {1, 4, 16, 64}, 7 values of M",
                  evidence=Evidence("exhaustive", instances=checked, nontrivial_instances=checked))


#: (pass, n, d, M) grid on which every route is compared with every algorithm's exact count.
_GRID = [(p, n, d, M) for p in PASSES for (n, d) in ((4096, 64), (1024, 16), (4096, 4), (256, 64))
         for M in sorted({4, 16, 64, 256, 1024, 4096, 16384, 65536, n * d, 4 * n * d})]


def _algorithm_counts(pass_: str, n: int, d: int, M: int) -> dict[str, int]:
    from attnio.algorithms.registry import algorithm_names
    from attnio.algorithms.simulation import count

    out = {}
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    for name in algorithm_names(pass_):
        if computation_of(name, pass_) not in allowed:  # another computation (dL/dX)
            continue
        try:
            out[name] = count(name, pass_, n, d, M).io
        except (InfeasibleError, CacheOverflowError):  # no tile set (or the published one)
            continue                                  # fits M: nothing to compare
    return out


def _below_algorithms(ctx: CheckContext, *, route_fn=None) -> Verdict:
    """Every route of an algorithm's computation class ≤ its exact count, on :data:`_GRID`."""
    checked = nontrivial = 0
    for pass_, n, d, M in _GRID:
        for name, io in _algorithm_counts(pass_, n, d, M).items():
            computation = computation_of(name, pass_)
            routes = (route_fn(pass_, n, d, M, computation) if route_fn
                      else lower_bound_routes(pass_, n, d, M, computation))
            for bound in routes:
                checked += 1
                nontrivial += bound.value > 0
                if bound.value > io:
                    return Refuted({"pass": pass_, "n": n, "d": d, "M": M,
                                    "route": bound.route, "bound": bound.value,
                                    "algorithm": name, "io": io},
                                   "a lower bound exceeds an algorithm's exact I/O")
    return Proved(f"{checked} (route, algorithm, size) comparisons, exact integers",
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=nontrivial))


def _twin_routes_outputs(pass_: str, n: int, d: int, M: int, computation: str) -> list[GapBound]:
    value, _ = segment_route(n, d, M, products=2 if computation == "recompute" else 1,
                             cap=lambda d_, M_, L_: segment_product_cap(
                                 d_, M_, L_, outputs_hypothesis=True))
    return [GapBound(value, "segment products, full-pair hypothesis dropped", "twin")]


def _twin_scores_for_all(pass_: str, n: int, d: int, M: int,
                         computation: str) -> list[GapBound]:
    routes = lower_bound_routes(pass_, n, d, M, computation)
    if computation == "recompute":  # the n² of the given scores, claimed where none is given
        routes = [GapBound(r.value + n * n, r.route + " + n²", "twin") for r in routes]
    return routes


def _compulsory_only(pass_: str, n: int, d: int, M: int, computation: str) -> list[GapBound]:
    return lower_bound_routes(pass_, n, d, M, computation)[:1]


def _twin_compulsory_twice(pass_: str, n: int, d: int, M: int,
                           computation: str) -> list[GapBound]:
    inputs = 3 * n * d if pass_ == "forward" else 5 * n * d
    if computation == "given-scores":
        inputs += n * n
    compulsory = lower_bound_routes(pass_, n, d, M, computation)[0].value
    return [GapBound(compulsory + inputs, "every input read twice", "twin")]


_SRC = ("attnio (ours; notes/gap.md): segment argument of Hong–Kung 1981 §3 with "
        "Loomis–Whitney 1949 faces, as in Irony–Toledo–Tiskin 2004 for matmul")


def _claim(id: str, statement: str, formal: str, method: str, check, *,
           reconstructed: bool = True, twin_of: str | None = None) -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC, method=method,
                 family="gap_routes", check_fn=check, reconstructed=reconstructed,
                 twin_of=twin_of,
                 evidence_kind="smt-forall" if method.startswith("z3") else "exhaustive")


CLAIMS: list[Claim] = [
    _claim("gap.face_algebra",
           "a + b = s ⇒ ab/d ≤ s²/(4d) and √(abc) ≤ (s/2)√c (a, b, c ≥ 0, d ≥ 1)",
           "z3 NRA with y² = abc, r² = c", "z3 NRA", _face_algebra),
    _claim("gap.cell_bound",
           "on s ∈ [s0, s1], c ≤ T − s: s²/(4d) + min((s/2)√c, (d−1)c) ≤ "
           "s1²/(4d) + min((s1/2)√(T−s0), (d−1)(T−s0))",
           "z3 NRA with r² = c, R² = T − s0", "z3 NRA", _cell_bound),
    _claim("gap.superadditive",
           "g(s1, c1) + g(s2, c2) ≤ g(s1+s2, c1+c2) for g(s, c) = s²/(4d) + min((s/2)√c, (d−1)c) "
           "(several products share one segment budget)",
           "z3 NRA", "z3 NRA", _superadditive),
    _claim("gap.loomis_whitney",
           "|P|² ≤ |π_ik P|·|π_jk P|·|π_ij P| for finite P ⊂ ℤ³ (Loomis–Whitney 1949)",
           "every subset of [2]³, 3000 seeded subsets of [3]³", "exact enumeration",
           _loomis_whitney, reconstructed=False),
    _claim("gap.segment_route",
           "the integer route L(⌈N/cap⌉ − 1) at L = 4M is ≥ 4M·N/cap − 4M and cap ≤ "
           "1.01·(25M²/(4d) + 2√2·M^{3/2}) + 3 (the small-cache shape √2·n²d/√M)",
           "exact rational comparison on a grid", "exact enumeration", _route_ge_closed_form),
    _claim("gap.below_algorithms",
           "every route (compulsory, segment, Saha–Ye) ≤ the exact I/O of every algorithm of "
           "attnio.algorithms on a grid incl. n = 4096, d = 64, M = 4 … 4nd",
           "route ≤ count(alg).io, exact ints", "exact enumeration", _below_algorithms),
    _claim("gap.compulsory",
           "Q ≥ 4nd (forward), Q ≥ 8nd (backward): inputs are never computed, outputs end blue",
           "compulsory ≤ count(alg).io on the grid", "exact enumeration",
           lambda ctx: _below_algorithms(ctx, route_fn=_compulsory_only), reconstructed=False),
]

FALSE_TWINS: list[Claim] = [
    _claim("gap.twin.full_pairs_as_outputs",
           "segment route with the C-face ≤ 2M + L for every pair (S_ij treated as an output)",
           "route ≤ count(alg).io", "exact enumeration",
           lambda ctx: _below_algorithms(ctx, route_fn=_twin_routes_outputs),
           twin_of="gap.below_algorithms"),
    _claim("gap.twin.compulsory_twice",
           "every input must be read twice: Q ≥ 7nd (forward), 13nd (backward)",
           "route ≤ count(alg).io", "exact enumeration",
           lambda ctx: _below_algorithms(ctx, route_fn=_twin_compulsory_twice),
           twin_of="gap.compulsory"),
    _claim("gap.twin.scores_read_by_flash",
           "every backward reads n² score entries (the given-scores term claimed for the "
           "recompute class too)", "route ≤ count(alg).io", "exact enumeration",
           lambda ctx: _below_algorithms(ctx, route_fn=_twin_scores_for_all),
           twin_of="gap.below_algorithms"),
    _claim("gap.twin.cell_lower_corner",
           "the cell bound with the full term taken at the cell's lower corner s0",
           "z3 NRA", "z3 NRA", lambda ctx: _cell_bound(ctx, lower_corner=True),
           twin_of="gap.cell_bound"),
    _claim("gap.twin.face_factor_8", "a + b = s ⇒ ab ≤ s²/8", "z3 NRA", "z3 NRA",
           lambda ctx: _face_algebra(ctx, factor=8), twin_of="gap.face_algebra"),
    _claim("gap.twin.superadditive_reversed",
           "g(s1+s2, c1+c2) ≤ g(s1, c1) + g(s2, c2)", "z3 NRA", "z3 NRA",
           lambda ctx: _superadditive(ctx, reverse=True), twin_of="gap.superadditive"),
    _claim("gap.twin.loomis_whitney_half",
           "|P|² ≤ ½·|π_ik P|·|π_jk P|·|π_ij P|", "exact enumeration", "exact enumeration",
           lambda ctx: _loomis_whitney(ctx, factor=Fraction(1, 2)),
           twin_of="gap.loomis_whitney"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
