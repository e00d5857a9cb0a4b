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

* **joint routes** (issue 35, item 5; ours, notes/gap.md "The joint routes") —
  :func:`joint_routes`: *every* n×n×d product of the class in one segment budget — forward
  :math:`QK^\top` and :math:`PV`; ``recompute`` all five; ``given-scores`` the four without
  :math:`QK^\top` — the operands with a computed value (:math:`P`, :math:`dS`) *witnessed*:
  each is charged to a vertex of its pair's private set :math:`W_{ij}` red at the segment's
  start or read in it, or is *free*, which needs full rows of :math:`Q` and :math:`K` (claim
  ``gap.joint_witness_lemma``). Per segment, with :math:`\sigma` input entries,
  :math:`u` charged vertices, :math:`z` score-pair carries (:math:`u` included) and :math:`w`
  gradient carries (:math:`\sigma + u \le M + L`, :math:`\sigma + z + w \le 2M + L`),
  the designated leaves are at most

  .. math:: \Psi_\kappa = \frac{\kappa\sigma^2}{4d} + \frac{u\sigma}{n}
            + \min\Bigl(\frac\sigma2\sqrt z,\ (d-1)z\Bigr)
            + \min\bigl(\sqrt{u\sigma w},\ k\,w\bigr)

  (:math:`\kappa = 1`, :math:`5/4` for ``recompute``; :math:`k` the most leaves of a partial
  gradient pair; claims ``gap.joint_face_algebra*``, ``gap.joint_rows``); its maximum is
  bounded by an exact search with a certificate (:func:`attnio.bounds.joint.joint_search`,
  claims ``gap.joint_cell``, ``gap.joint_cap``); for the forward also by
  :func:`attnio.bounds.joint.cube_segment_cap`
  (``gap.joint_cube``). Then :math:`Q \ge L(\lceil p\,n^2d/F(L)\rceil - 1)` + the rest
  (output writes, O's reads).

:func:`best_lower_bound` returns the largest route of a class with its name and the id of
the claim it instantiates; with ``computation="any"`` the *smallest* of the class maxima,
which holds for every algorithm of :mod:`attnio.algorithms` (each belongs to one class,
:func:`computation_of`).

Examples
--------
>>> compulsory_io("forward", 4096, 64), compulsory_io("backward", 4096, 64)
(1048576, 2097152)
>>> b = best_lower_bound("backward", 4096, 64, 1024)
>>> b.value, b.claim_id
(92167168, 'gap.joint_route')
>>> b.route
'given-scores: segment products (dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed by the given scores), L = 3M + compulsory rest'
>>> best_lower_bound("forward", 4096, 64, 262144).route
'compulsory'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from attnio.algorithms.registry import get_algorithm
from attnio.bounds.cells import CELLS, ceil_sqrt, segment_cells
from attnio.bounds.joint import JOINT_CLASSES, joint_cap
from attnio.exceptions import InvalidInputError
from attnio.graphs.lower_bounds.explicit import explicit_routes
from attnio.validation import positive_int

__all__ = ["CELLS", "COMPUTATIONS", "GapBound", "PASSES", "SEGMENT_MULTIPLES", "WITNESSED_NAME", "best_lower_bound", "wide_segment_cap", "witnessed_cap", "witnessed_routes", "JOINT_REST", "joint_routes", "ceil_sqrt", "compulsory_io", "computation_of", "leaves_segment_route", "lower_bound_routes", "segment_cells", "segment_product_cap", "segment_route"]


PASSES = ("forward", "backward")


#: Computation classes (module docstring); "any" in best_lower_bound is the min over them.
COMPUTATIONS = ("forward", "recompute", "given-scores")


#: Segment lengths L = t·M tried by :func:`segment_route` (each gives a valid bound).
SEGMENT_MULTIPLES = (1, 2, 3, 4, 5, 6, 8, 12, 16)


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


def _cell_cap(d: int, T: int, s0: int, s1: int, k: int | None = None) -> int:
    r"""An integer :math:`\ge` the cell bound (claim ``gap.cell_bound``)
    :math:`s_1^2/(4d) + \min((s_1/2)\sqrt{T-s_0},\ k(T-s_0))`, each term rounded up;
    :math:`k` = the most leaves a partial pair can hold (``None``: :math:`d - 1`)."""
    k = d - 1 if k is None else k
    full = -(-s1 * s1 // (4 * d))
    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2), k * (T - s0))
    return full + partial


def segment_product_cap(d: int, M: int, L: int, *, cells: int = CELLS,
                        partial_depth: int | None = None) -> int:
    r"""An exact integer :math:`\ge F(L)`: designated leaves per segment of :math:`L` I/Os.

    The maximum over the cells of :func:`segment_cells` (:math:`S = M + L`,
    :math:`T = 2M + L`) of the rounded-up cell bound; claim ``gap.segment_cap`` checks exactly
    that it lies between the proved cell bounds and 2 more, and that it is at least the
    brute-force maximum on small shapes. ``partial_depth`` is the most leaves a partial pair
    holds (default :math:`d - 1`, an inner dimension :math:`d`; a product with inner dimension
    :math:`n \ge d` has full pairs of :math:`n \ge d` leaves and partial pairs of up to
    :math:`n - 1`, so its cap is the one with ``partial_depth = n - 1``).

    >>> segment_product_cap(64, 1024, 2048)
    86304
    >>> segment_product_cap(64, 1024, 2048, partial_depth=4095)
    86304
    """
    d, M, L = _positive("d", d), _positive("M", M), _positive("L", L)
    if partial_depth is not None and (isinstance(partial_depth, bool)
                                      or not isinstance(partial_depth, int)
                                      or partial_depth < d - 1):
        raise InvalidInputError(f"partial_depth={partial_depth!r} must be an int >= d - 1 = "
                                f"{d - 1}")
    T, S = 2 * M + L, M + L
    return max([1] + [_cell_cap(d, T, s0, s1, partial_depth)
                      for s0, s1 in segment_cells(S, cells)])


@lru_cache(maxsize=4096)
def _wide_cap(d: int, M: int, L: int, partial_depth: int) -> int:
    return segment_product_cap(d, M, L, partial_depth=partial_depth)


def wide_segment_cap(partial_depth: int) -> Callable[[int, int, int], int]:
    """``cap(d, M, L)`` of :func:`segment_product_cap` with a fixed ``partial_depth``
    (memoised), for :func:`leaves_segment_route`."""
    return lambda d, M, L: _wide_cap(d, M, L, partial_depth)


def witnessed_cap(n: int, d: int) -> Callable[[int, int, int], int]:
    r"""The segment cap of :func:`witnessed_routes` at sequence length ``n``: ``cap(_, M, L)``
    (the first argument, the head dimension the route passes, is ignored) is
    :func:`segment_product_cap` with full-pair denominator :math:`m = \min(n, d)` and partial
    depth :math:`k = \max(n, d) - 1`.

    :math:`dO\,V^\top` (inner dimension :math:`d`) has at most :math:`ab/d` leaves in full
    pairs and :math:`d - 1` in a partial pair; :math:`dS\,K` (inner dimension :math:`n`) at
    most :math:`\lfloor a/n\rfloor\lfloor b/n\rfloor n \le ab/n` and :math:`n - 1`. Both
    are at most :math:`ab/m` and :math:`k`, so both obey
    :math:`g(s, c) = s^2/(4m) + \min((s/2)\sqrt c,\ kc)`, the form every claim of the
    segment cap is proved for (any denominator :math:`\ge 1`, any :math:`k \ge 0`). For
    :math:`n \ge d` this is the cap with :math:`m = d`, :math:`k = n - 1`; for :math:`n < d`
    the full-pair term is :math:`s^2/(4n)`, larger than :math:`s^2/(4d)` (a row of
    :math:`dS` and a column of :math:`K` of :math:`n` entries each complete :math:`n` leaves;
    claim ``gap.witnessed_route`` enumerates it).

    >>> witnessed_cap(4096, 64)(64, 1024, 2048) == segment_product_cap(64, 1024, 2048,
    ...                                                              partial_depth=4095)
    True
    >>> witnessed_cap(63, 256)(256, 4, 24) == segment_product_cap(63, 4, 24, partial_depth=255)
    True
    """
    n, d = _positive("n", n), _positive("d", d)
    m, k = min(n, d), max(n, d) - 1
    return lambda _d, M, L: _wide_cap(m, M, L, k)


#: :func:`segment_product_cap`, memoised: a pure function of (d, M, L) that every route of
#: every instance with the same (d, M) asks for again (sweeps over n, masks, heads).
cached_segment_product_cap: Callable[[int, int, int], int] = lru_cache(maxsize=4096)(segment_product_cap)


def segment_route(n: int, d: int, M: int, *, products: int = 1,
                  cap: Callable[[int, int, int], int] | None = None) -> tuple[int, int]:
    r""":math:`\max_L L(\lceil N/F(L)\rceil - 1)` with :math:`N = \text{products}\cdot n^2d`.

    Returns ``(value, L)`` (``L = 0`` when every L gives 0). ``cap(d, M, L)`` replaces
    :func:`segment_product_cap` (false twins only).

    >>> segment_route(4096, 64, 1024)
    (25479168, 2048)
    """
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    return leaves_segment_route(products * n * n * d, d, M, cap=cap)


def leaves_segment_route(N: int, d: int, M: int, *,
                         cap: Callable[[int, int, int], int] | None = None) -> tuple[int, int]:
    r""":math:`\max_L L(\lceil N/\mathrm{cap}(L)\rceil - 1)` over :math:`L = tM`,
    :math:`t \in` :data:`SEGMENT_MULTIPLES`, for ``N`` designated multiply leaves (any set of
    products: the cap bounds a subset by the bound for all). Returns ``(value, L)``;
    ``(0, 0)`` when no L gives a positive value."""
    cap = cap or cached_segment_product_cap
    estimate = getattr(cap, "estimate", None)
    lengths = [t * M for t in SEGMENT_MULTIPLES]
    if estimate is not None:
        # a cap with a cheap lower estimate (JointCap): since cap ≥ estimate, L(⌈N/estimate⌉
        # − 1) ≥ the length's value; lengths are tried in the order of that optimistic value
        # and the rest skipped once it cannot beat the best — the same maximum, fewer caps
        hope = {L: L * max(0, -(-N // max(1, estimate(d, M, L))) - 1) for L in lengths}
        lengths.sort(key=lambda L: (-hope[L], L))
    best, best_L = 0, 0
    for L in lengths:
        if estimate is not None and (hope[L] < best or (hope[L] == best and L > best_L)):
            continue   # cannot beat the best, nor tie it at a shorter length
        value = L * max(0, -(-N // cap(d, M, L)) - 1)
        if value > best or (value == best and value and L < best_L):
            best, best_L = value, L
    return best, best_L


def computation_of(algorithm: str, pass_: str) -> str:
    """The computation class of an algorithm of :mod:`attnio.algorithms` (module docstring).

    The class is the record's in :mod:`attnio.algorithms.registry` (``backward_computation``).

    >>> computation_of("flash2", "backward"), computation_of("small-cache", "backward")
    ('recompute', 'given-scores')
    """

    return get_algorithm(algorithm).computation(pass_)


def lower_bound_routes(pass_: str, n: int, d: int, M: int,
                       computation: str) -> list[GapBound]:
    """Every route's bound at (n, d, M) for one computation class (see the module doc).

    >>> [r.route for r in lower_bound_routes("forward", 64, 8, 64, "forward")][:4]
    ['compulsory', 'segment products (Q·Kᵀ), L = 2M', 'segment products (Q·Kᵀ), L = 2M + compulsory rest', 'Saha-Ye level-1 (Q·Kᵀ)']
    >>> lower_bound_routes("forward", 64, 8, 64, "forward")[-1].route
    'segment products (Q·Kᵀ + P·V, P witnessed), L = 2M + compulsory rest'
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
    if computation == "given-scores":
        routes += witnessed_routes(n, d, M)
    if computation != "given-scores":
        # explicit_bounds' route on the QKᵀ level-1 vertices of the forward / backward (qkv)
        # DAG, where that module states it; not claimed for the given-scores DAGs
        kind = "attention-forward" if computation == "forward" else "attention-backward"
        sy = explicit_routes(kind, {"n": n, "d": d}, M)["Saha-Ye level-1"]
        routes.append(GapBound(sy, "Saha-Ye level-1 (Q·Kᵀ)", "explicit.attention_closed_form"))
    return routes + joint_routes(n, d, M, computation)


#: The route name of :func:`witnessed_routes` (before ", L = tM").
WITNESSED_NAME = "segment products (dO·Vᵀ + dS·K, dS witnessed by the given scores)"


def witnessed_routes(n: int, d: int, M: int) -> list[GapBound]:
    r"""The given-scores class with a second product charged (issue 26, item 1; new, ours).

    **Class hypothesis.** The backward computation is given an :math:`n\times n` input
    :math:`G` (standard attention: :math:`P`; Algorithm 6, ``small-cache-fused``: :math:`A =
    \exp(QK^\top)`), and each :math:`dS_{ij}` has a *private chain* :math:`W_{ij}` down to
    :math:`G_{ij}`: vertices, pairwise disjoint over :math:`(i, j)`, containing
    :math:`G_{ij}` and :math:`dS_{ij}`, each one other than :math:`G_{ij}` having a predecessor
    in :math:`W_{ij}` (here :math:`W_{ij} = \{A_{ij}, P_{ij}, dS_{ij}\}`, or
    :math:`\{P_{ij}, dS_{ij}\}`), disjoint from :math:`K`, :math:`dO`, :math:`V` and the
    summation trees of :math:`dP = dO\,V^\top` and :math:`dQ = dS\,K`.

    **Witness lemma.** If :math:`dS_{ij}` is red at some time in a segment, some vertex of
    :math:`W_{ij}` is red at the segment's start or read in it. *Proof.* Take the first time
    in the segment the vertex is red: it was red at the start, read, or computed; computed
    needs a predecessor in :math:`W_{ij}` red at that moment — repeat, within the segment,
    down the chain; it ends at :math:`G_{ij}`, an input, never computed. ∎

    So in the segment argument of :func:`segment_route` (notes/gap.md) the entries of
    :math:`dS` count like input operand entries, each charged to a distinct vertex red at the
    start or read: :math:`dQ = dS\,K` (inner dimension :math:`n`: a full pair has
    :math:`n` leaves, so at most :math:`ab/n` leaves of full pairs; a partial pair at most
    :math:`n - 1`) joins :math:`dO\,V^\top` with one budget — their operands, witnesses and
    trees are disjoint — and the cap is :func:`witnessed_cap`: full pairs
    :math:`\le ab/m`, :math:`m = \min(n, d)`, partial depth :math:`k = \max(n, d) - 1`
    (claims ``gap.face_algebra``, ``gap.cell_bound`` and ``gap.superadditive`` are proved for
    any denominator :math:`\ge 1` and any partial depth :math:`k \ge 0`):

    .. math:: Q \;\ge\; L\bigl(\lceil 2n^2d / F_{m,k}(L)\rceil - 1\bigr) \;(+\ 4nd).

    **Admissible range: every** :math:`n, d, M \ge 1`. For :math:`n \ge d`, :math:`m = d`
    (the route of issue 26); for :math:`n < d` the full-pair term is :math:`s^2/(4n)`: the
    :math:`s^2/(4d)` term does not hold there (issue 35: at :math:`n = 63`, :math:`d = 256`,
    :math:`M = 4` it printed 1,347,960; the supported value is 1,296,092).

    :math:`dK = dS^\top Q` and :math:`dV = P^\top dO` are not added: their operands share the
    witnesses (:math:`W_{ij}`) or :math:`dO` with the two charged products. The compulsory
    rest (segments cut counting only the I/O on the two products' operands, witnesses and
    trees): :math:`Q` and :math:`O` read, :math:`dK` and :math:`dV` written, :math:`4nd`. The
    witness lemma is argued here and in notes/gap.md, and checked exhaustively on the smallest
    DAG of its shape (claim ``gap.witness_lemma``); the algebra is machine-checked (the claims
    above), and claim ``gap.below_algorithms`` checks the route against the exact count of
    every given-scores algorithm. **Valid for the given-scores class only**; the
    gap table's ``any`` takes the smaller class maximum, so it never compares this bound with
    a FlashAttention count.

    >>> [(r.value, r.route) for r in witnessed_routes(4096, 64, 1024)][1]
    (52006912, 'segment products (dO·Vᵀ + dS·K, dS witnessed by the given scores), L = 2M + compulsory rest')
    """
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    value, L = leaves_segment_route(2 * n * n * d, d, M, cap=witnessed_cap(n, d))
    name = WITNESSED_NAME + (f", L = {L // M}M" if L else "")
    return [GapBound(value, name, "gap.witnessed_route"),
            GapBound(value + 4 * n * d, f"{name} + compulsory rest", "gap.witnessed_route")]


def best_lower_bound(pass_: str, n: int, d: int, M: int, computation: str = "any") -> GapBound:
    """The largest route for one computation class; ``"any"``: the smallest class maximum.

    With ``"any"`` the bound holds for every algorithm of :mod:`attnio.algorithms` (each
    belongs to one class); its route names the binding class.

    >>> best_lower_bound("backward", 4096, 64, 1024, "recompute").value
    108695552
    >>> best_lower_bound("backward", 4096, 64, 8192).claim_id
    'gap.joint_route'
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


#: The compulsory rest of a joint route per query head and per K/V head (in nd): forward O
#: written; backward O read and dQ written per query head, dK and dV written per K/V head.
JOINT_REST = {"forward": (1, 0), "recompute": (2, 2), "given-scores": (2, 2)}


def joint_routes(n: int, d: int, M: int, computation: str) -> list[GapBound]:
    r"""The joint route of one class (issue 35, item 5; new, ours; notes/gap.md "The joint
    routes"): every n×n×d product of the computation charged in one segment budget, the
    operands with a computed value (:math:`P`, :math:`dS`) *witnessed*:

    .. math:: Q \;\ge\; L\bigl(\lceil N / F(L)\rceil - 1\bigr) \;(+\ \text{rest}),
       \qquad N = p\,n^2d,

    :math:`p` = 2 (forward: :math:`QK^\top`, :math:`PV`), 5 (``recompute``: also
    :math:`dO\,V^\top`, :math:`P^\top dO`, :math:`dS\,K`, :math:`dS^\top Q`), 4
    (``given-scores``: no :math:`QK^\top`), :math:`F(L)` =
    :func:`attnio.bounds.joint.joint_cap` (for the forward the smaller of
    :func:`~attnio.bounds.joint.cube_segment_cap` and
    :func:`~attnio.bounds.joint.joint_segment_cap`), rest: the
    outputs' writes (the roots are never carried) and O's reads: forward :math:`nd`,
    backward :math:`4nd`.

    **Class hypotheses.** Each score pair (i, j) has a private set :math:`W_{ij}` (pairwise
    disjoint, disjoint from the product trees of the gradients and from the inputs but its
    own given entry): the tree of :math:`S_{ij}` (recompute, forward) and of
    :math:`dP_{ij}` (backward), the chain to the operand :math:`P_{ij}` (or the forward's
    :math:`\tilde P_{ij}`) and to :math:`dS_{ij}`, each vertex with a predecessor in
    :math:`W_{ij}` down to the trees' leaves or the given input :math:`G_{ij}`.
    **Witness lemma** (claim ``gap.joint_witness_lemma``): if :math:`P_{ij}` is red in a
    segment, a vertex of :math:`W_{ij}` is red at its start or read in it, or all :math:`d`
    entries of :math:`q_i` and :math:`k_j` are red in it (for :math:`dS_{ij}` also of
    :math:`dO_i` and :math:`v_j`); in the given-scores class always the former.

    Valid at every :math:`n, d, M \ge 1`. ``best_lower_bound`` takes it with the class's other
    routes; ``gap.below_algorithms`` compares it with every algorithm of its class.

    >>> [r.value for r in joint_routes(4096, 64, 11216, "given-scores")][1] > 15_560_000
    True
    """
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    products, _, names = JOINT_CLASSES[computation]
    value, L = leaves_segment_route(products * n * n * d, d, M, cap=joint_cap(computation, n, d))
    per_q, per_kv = JOINT_REST[computation]
    rest = (per_q + per_kv) * n * d
    name = f"segment products ({names})" + (f", L = {L // M}M" if L else "")
    return [GapBound(value, name, "gap.joint_route"),
            GapBound(value + rest, f"{name} + compulsory rest", "gap.joint_route")]
