r"""The per-segment cap of the joint routes (issue 35, item 5; ours, notes/gap.md "The joint
routes"): every n×n×d product of a computation class charged in one segment budget, the
operands with a computed value (:math:`P`, :math:`dS`) witnessed. The routes themselves are
:func:`attnio.bounds.attention.joint_routes` (one head) and
:func:`attnio.bounds.heads.stacked_lower_bound_routes` (many heads).

In a segment of :math:`L` I/Os (:math:`S = M + L`, :math:`T = 2M + L`), with :math:`\sigma`
input entries red in it, :math:`u` vertices of the private score sets red at its start or read,
:math:`z \ge u` score-pair carries and :math:`w` gradient carries
(:math:`0 \le u \le z`, :math:`\sigma + u \le S`, :math:`\sigma + z + w \le T`), the
designated leaves are at most

.. math:: \Psi_\kappa(\sigma, z, w, u) = \frac{\kappa\sigma^2}{4d} + \frac{u\sigma}{n}
          + \min\Bigl(\frac\sigma2\sqrt z,\ (d-1)z\Bigr)
          + \min\bigl(\sqrt{u\sigma w},\ k\,w\bigr)

(:math:`\kappa` = 1 forward and given-scores, 5/4 recompute; :math:`k` the most leaves of a
partial gradient pair; claims ``gap.joint_face_algebra*``, ``gap.joint_rows`` in
:mod:`attnio.proofs.joint_lemmas`). The proof map:

* :func:`joint_cell_bound` — Ψ on a cell, each variable at its extreme value (``gap.joint_cell``);
* :func:`joint_point_value` — Ψ at a feasible point, every term rounded down;
* :func:`joint_search` — best-first search for the maximum, with its certificate
  (:class:`JointSearch`, re-checked by ``gap.joint_cap``); :func:`joint_segment_cap` its cap;
  :func:`joint_estimate` a cheap lower estimate;
* :func:`cube_segment_cap` — the forward's second cap (``gap.joint_cube``);
* :class:`JointCap` / :func:`joint_cap` — the cap of one class, for
  :func:`attnio.bounds.attention.leaves_segment_route`.

Admissible range: every :math:`n, d, M \ge 1` (each term with its own inner dimension).

>>> joint_cap("recompute", 4096, 64)(64, 11216, 22432) > 5_129_217   # one product's cap
True
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import lru_cache
from math import isqrt
from typing import Callable

from attnio.bounds.cells import ceil_sqrt, segment_cells
from attnio.exceptions import InvalidInputError
from attnio.validation import positive_int

__all__ = ["JOINT_CLASSES", "JOINT_EVALS", "JOINT_GAP", "JOINT_GRID", "JointCap", "JointSearch",
           "cube_segment_cap", "extreme_bound", "joint_cap", "joint_cell_bound", "joint_estimate",
           "joint_interval_cap", "joint_point_value", "joint_search", "joint_segment_cap"]


#: Per class: (number of n×n×d products charged, κ = (numerator, denominator) of the rows
#: term κσ²/(4d), the products' names). notes/gap.md, "The joint routes".
JOINT_CLASSES: dict[str, tuple[int, tuple[int, int], str]] = {
    "forward": (2, (1, 1), "Q·Kᵀ + P·V, P witnessed"),
    "recompute": (5, (5, 4), "Q·Kᵀ + dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed"),
    "given-scores": (4, (1, 1), "dO·Vᵀ + Pᵀ·dO + dS·K + dSᵀ·Q, P and dS witnessed by the "
                                "given scores"),
}

#: Best-first search of :func:`joint_segment_cap`: initial grid side, most cell bounds
#: evaluated, and the stopping gap (the top cell's bound ≤ best value + best/600 + 2).
JOINT_GRID, JOINT_EVALS, JOINT_GAP = 16, 1500, 600


def joint_cell_bound(d: int, n_full: int, k_grad: int, kappa: tuple[int, int], S: int, T: int,
                     s0: int, s1: int, z0: int, z1: int) -> int:
    r"""An integer :math:`\ge \Psi_\kappa(\sigma, z, w, u)` for every feasible point with
    :math:`\sigma \in [s_0, s_1]`, :math:`z \in [z_0, z_1]` (0 when the cell holds none):

    .. math:: \Psi_\kappa = \frac{\kappa\sigma^2}{4d} + \frac{u\sigma}{n_f}
              + \min\Bigl(\frac\sigma2\sqrt z,\ (d-1)z\Bigr)
              + \min\bigl(\sqrt{u\sigma w},\ k\,w\bigr),

    feasible: :math:`0 \le u \le z`, :math:`\sigma + u \le S`, :math:`\sigma + z + w \le T`.
    Every term grows with each of :math:`\sigma, z, w, u`, so each is taken at its largest
    value on the cell — :math:`s_1`, :math:`z_1`, :math:`w \le T - s_0 - z_0`,
    :math:`u \le \min(z_1, S - s_0)` — and rounded up (claim ``gap.joint_cell``).

    >>> joint_cell_bound(64, 4096, 4095, (1, 1), 2048, 3072, 0, 2048, 0, 1024)
    129929
    """
    if s0 > S or s0 + z0 > T:
        return 0
    return extreme_bound(d, n_full, k_grad, kappa, s1, z1, T - s0 - z0, min(z1, S - s0))


def extreme_bound(d: int, n_full: int, k_grad: int, kappa: tuple[int, int], s1: int, z1: int,
                  w: int, u: int) -> int:
    """Ψ_κ's terms at σ = s1, z = z1 and the given w, u, each rounded up: an integer ≥ Ψ_κ at
    every point with σ ≤ s1, z ≤ z1, w' ≤ w, u' ≤ u (every term grows with each variable)."""
    kn, kd = kappa
    rows = (d - 1) * z1
    x = s1 * s1 * z1                       # ⌈(s1/2)√z1⌉ = ⌈⌈√x⌉/2⌉
    r = isqrt(x)
    if 4 * rows * rows > x:                # the root branch is the smaller one
        rows = (r + (r * r != x) + 1) // 2
    grads = k_grad * w
    y = u * s1 * w
    if grads * grads > y:
        r = isqrt(y)
        grads = r + (r * r != y)
    return -(-kn * s1 * s1 // (4 * d * kd)) - (-u * s1 // n_full) + rows + grads


def joint_point_value(d: int, n_full: int, k_grad: int, kappa: tuple[int, int], S: int, T: int,
                      sigma: int, z: int) -> int:
    """An integer ≤ Ψ_κ at the feasible point (σ, z, w = T − σ − z, u = min(z, S − σ)):
    every term rounded down (a lower estimate of the maximum, used to prune cells)."""
    w, u = T - sigma - z, min(z, S - sigma)
    kn, kd = kappa
    full = kn * sigma * sigma // (4 * d * kd)
    pairs = u * sigma // n_full
    rows = min(isqrt(sigma * sigma * z) // 2, (d - 1) * z)
    grads = min(isqrt(u * sigma * w), k_grad * w)
    return full + pairs + rows + grads


def _halves(lo: int, hi: int) -> list[tuple[int, int]]:
    mid = (lo + hi) // 2
    return [(lo, hi)] if hi - lo <= 1 else [(lo, mid), (mid, hi)]


@dataclass(frozen=True, slots=True)
class JointSearch:
    """The certificate of :func:`joint_segment_cap`: the cap, the best value of Ψ found at a
    feasible point, the initial cells, every split (parent cell, its children) in order, and
    the cells never split (the leaves). The leaves tile the initial cells, which tile
    :math:`[0, S] \times [0, T]`; the cap is at least every leaf's bound."""

    cap: int
    best: int
    initial: tuple[tuple[int, int, int, int], ...]
    splits: tuple[tuple[tuple[int, int, int, int], tuple[tuple[int, int, int, int], ...]], ...]
    leaves: tuple[tuple[int, int, int, int], ...]


def joint_search(d: int, M: int, L: int, n_full: int, k_grad: int,
                 kappa: tuple[int, int] = (1, 1)) -> JointSearch:
    r"""Best-first search for an exact integer :math:`\ge \max \Psi_\kappa` over the feasible
    region (:func:`joint_cell_bound`, :math:`S = M + L`, :math:`T = 2M + L`), with its
    certificate (:class:`JointSearch`; claim ``gap.joint_cap`` re-checks it).

    Cells of :math:`[0, S] \times [0, T]` (:math:`\sigma`, :math:`z`), a 16×16 grid at first:
    the cell with the largest bound is split in four until that bound is within
    :math:`1/` :data:`JOINT_GAP` of the best value of :math:`\Psi` found at a feasible point
    (or :data:`JOINT_EVALS` bounds were evaluated, or the cell is one point). A cell whose
    bound is at most the best value cannot hold a larger one and is not split; a child's
    bound is at most its parent's (its extreme values are inside). The cap — the largest
    bound among the leaves, or the best value — is at least the maximum.

    Side conditions
    ---------------
    1. ``cell-bound-above``: :func:`joint_cell_bound` is ≥ Ψ_κ at every feasible integer
       point (σ, z, w, u) of its cell.
    2. ``point-value-below``: :func:`joint_point_value` is ≤ Ψ_κ at its feasible point.
    3. ``cap-above-maximum``: the cap is ≥ the maximum of Ψ_κ over the feasible region.
    4. ``interval-cap-covers``: :func:`joint_interval_cap` is ≥ the cap at every M of its
       interval.
    5. ``estimate-below``: :func:`joint_estimate` is ≤ the maximum (hence ≤ the cap), and
       the forward cap is at most the cube cap.
    """
    S, T = M + L, 2 * M + L
    args = (d, n_full, k_grad, kappa, S, T)
    Cell = tuple[int, int, int, int]
    best, evals = 0, 0
    heap: list[tuple[int, Cell]] = []
    leaves: list[Cell] = []
    splits: list[tuple[Cell, tuple[Cell, ...]]] = []

    def visit(cell: tuple[int, int, int, int]) -> None:
        nonlocal best, evals
        evals += 1
        s0, s1, z0, z1 = cell
        ub = joint_cell_bound(*args, s0, s1, z0, z1)
        if ub:
            best = max(best, joint_point_value(*args, s0, min(z1, T - s0)))
        if ub > best:
            heapq.heappush(heap, (-ub, cell))
        else:
            leaves.append(cell)

    # the grid's intervals, each once (a short side repeats its empty ones)
    initial = tuple((s0, s1, z0, z1) for s0, s1 in dict.fromkeys(segment_cells(S, JOINT_GRID))
                    for z0, z1 in dict.fromkeys(segment_cells(T, JOINT_GRID)))
    for cell in initial:
        visit(cell)
    while heap:
        top, (s0, s1, z0, z1) = heap[0]
        if (-top <= best + best // JOINT_GAP + 2 or evals >= JOINT_EVALS
                or (s1 - s0 <= 1 and z1 - z0 <= 1)):
            break
        heapq.heappop(heap)
        children = tuple((a, b, c, e) for a, b in _halves(s0, s1) for c, e in _halves(z0, z1))
        splits.append(((s0, s1, z0, z1), children))
        for child in children:
            visit(child)
    leaves += [cell for _, cell in heap]
    cap = max(1, best, -heap[0][0] if heap else 0)
    return JointSearch(cap, best, initial, tuple(splits), tuple(leaves))


@lru_cache(maxsize=8192)
def joint_segment_cap(d: int, M: int, L: int, n_full: int, k_grad: int,
                      kappa: tuple[int, int] = (1, 1)) -> int:
    r"""The cap of :func:`joint_search` (memoised): an exact integer :math:`\ge` the most
    designated leaves of all the products of a joint route in one segment of :math:`L` I/Os.

    >>> joint_segment_cap(64, 1024, 2048, 4096, 4095)
    96982
    """
    return joint_search(d, M, L, n_full, k_grad, kappa).cap


def cube_segment_cap(d: int, M: int, L: int, m: int) -> int:
    r""":math:`\lceil S^2/(4m)\rceil + \lceil (T/3)^{3/2}\rceil` (:math:`S = M + L`,
    :math:`T = 2M + L`): the forward joint route's second cap — rows
    :math:`(a + u)(b + v)/m \le s^2/(4m)`, and Loomis–Whitney on the union of both products'
    partial leaves in one cube whose score face :math:`(i, j)` they share (faces summing to
    :math:`s + c \le T`): :math:`\sqrt{XYZ} \le ((X + Y + Z)/3)^{3/2}` (claim
    ``gap.joint_cube``).

    >>> cube_segment_cap(64, 1024, 2048, 64)
    87314
    """
    S, T = M + L, 2 * M + L
    return -(-S * S // (4 * m)) + ceil_sqrt(-(-T ** 3 // 27))


@lru_cache(maxsize=8192)
def joint_estimate(d: int, M: int, L: int, n_full: int, k_grad: int,
                   kappa: tuple[int, int] = (1, 1)) -> int:
    """A value of Ψ_κ at a feasible point — the largest over the corners of the search's
    initial grid (:func:`joint_point_value`): at most the maximum, hence at most the cap."""
    S, T = M + L, 2 * M + L
    args = (d, n_full, k_grad, kappa, S, T)
    return max([0] + [joint_point_value(*args, s0, min(z1, T - s0))
                      for s0, _ in segment_cells(S, JOINT_GRID)
                      for _, z1 in segment_cells(T, JOINT_GRID) if s0 <= S])


@dataclass(frozen=True, slots=True)
class JointCap:
    """``cap(_, M, L)`` of the joint route of a class (the first argument, the head dimension
    :func:`leaves_segment_route` passes, is ignored) with ``estimate(_, M, L)`` ≤ the cap —
    :func:`leaves_segment_route` uses it to skip lengths that cannot win."""

    computation: str
    n: int
    d: int
    group: int = 1

    def _args(self) -> tuple[int, int, tuple[int, int]]:
        _, kappa, _ = JOINT_CLASSES[self.computation]
        inner = self.group * self.n if self.computation != "forward" else self.n
        return self.n, inner - 1, kappa

    def __call__(self, _d: int, M: int, L: int) -> int:
        return self._forward_capped(joint_segment_cap, M, L)

    def estimate(self, _d: int, M: int, L: int) -> int:
        return self._forward_capped(joint_estimate, M, L)

    def _forward_capped(self, form: Callable[..., int], M: int, L: int) -> int:
        """``form`` (the cap or its estimate) at this class's arguments; for the forward, no
        more than the cube cap."""
        value = form(self.d, M, L, *self._args())
        if self.computation == "forward":
            value = min(value, cube_segment_cap(self.d, M, L, min(self.n, self.d)))
        return value


def joint_cap(computation: str, n: int, d: int, *, group: int = 1) -> JointCap:
    """``cap(_, M, L)`` of the joint route of a class (``group`` query heads per K/V head: the
    gradients dV, dK of a group sum over g·n query rows): :class:`JointCap` —
    :func:`joint_segment_cap`, for the forward the smaller of it and
    :func:`cube_segment_cap`.

    >>> joint_cap("forward", 4096, 64)(64, 1024, 2048) == min(
    ...     cube_segment_cap(64, 1024, 2048, 64), joint_segment_cap(64, 1024, 2048, 4096, 4095))
    True
    """
    if computation not in JOINT_CLASSES:
        raise InvalidInputError(f"computation={computation!r} must be one of "
                                f"{tuple(JOINT_CLASSES)}")
    return JointCap(computation, positive_int("n", n), positive_int("d", d),
                    positive_int("group", group))


def joint_interval_cap(d: int, a: int, b: int, t: int, n_full: int, k_grad: int,
                       kappa: tuple[int, int] = (1, 1)) -> int:
    r"""An integer :math:`\ge` ``joint_segment_cap(d, M, t·M, …)`` for *every* M in [a, b]
    (for the interval bounds of a search over M, e.g. the exact worst ratio).

    The search's cap is at most the largest bound of its initial cells (a split cell's
    children have bounds at most its own, and the best value of Ψ lies in some initial cell),
    and cell (i, j) of the initial grid (:data:`JOINT_GRID`) of :math:`[0, S_M] \times [0, T_M]` has its upper corner at
    most that of the same cell at M = b, its lower corner at least that at M = a: so its bound
    is at most :func:`extreme_bound` at :math:`s_1(b), z_1(b)`, :math:`w = T_b - s_0(a) -
    z_0(a)`, :math:`u = \min(z_1(b), S_b - s_0(a))`.

    >>> all(joint_segment_cap(64, M, 2 * M, 4096, 4095) <= joint_interval_cap(
    ...     64, 1000, 1010, 2, 4096, 4095) for M in range(1000, 1011))
    True
    """
    Sa, Ta, Sb, Tb = (1 + t) * a, (2 + t) * a, (1 + t) * b, (2 + t) * b
    low_s, low_z = segment_cells(Sa, JOINT_GRID), segment_cells(Ta, JOINT_GRID)
    high_s, high_z = segment_cells(Sb, JOINT_GRID), segment_cells(Tb, JOINT_GRID)
    return max(extreme_bound(d, n_full, k_grad, kappa, s1, z1, Tb - s0 - z0,
                             min(z1, Sb - s0))
               for (s0, _), (_, s1) in zip(low_s, high_s) for (z0, _), (_, z1) in zip(low_z, high_z)
               if s0 + z0 <= Tb)

