r"""``fused-resident``: small-cache-fused's computation with a resident-block first pass (ours).

Same computation as ``small-cache-fused`` (:mod:`attnio.algorithms.small_cache_fused`): the
forward writes A = exp(QKᵀ), ℓ = A·1 and O = diag(ℓ)⁻¹AV; the backward reads A and ℓ (class
``given-scores`` of :mod:`attnio.bounds.attention`) and writes dQ, dK, dV. One change: the
pass that forms an n×n matrix keeps a block of :math:`b` rows of one n×d operand resident
and streams the other one row at a time (FlashAttention's loop shape), instead of
accumulating a square tile by rank-1 updates. That pass then costs about
:math:`n^2d^2/M` words (forward; backward :math:`2n^2d^2/M`, since it also accumulates dV)
instead of :math:`2n^2d/\sqrt M` — fewer once M is about :math:`d^2/4` or more.

Schedule (no mask, τ = 1; every tile is a :class:`~attnio.algorithms.memory.TwoLevelMemory`
tile, so no step may hold more than M words):

**Forward** (:func:`fused_resident_forward`):

1. For each key block J (:math:`c = \min(b_1, n)` rows): load :math:`K_J`; for each query
   row i load :math:`q_i`, form :math:`a = \exp(q_iK_J^\mathsf{T})` and store it into
   :math:`A_{iJ}`. Peak :math:`cd + d + c`.
2. O = diag(ℓ)⁻¹AV with ℓ formed here: for each r₂×c₂ output tile, stream a column of A
   (r₂ words) and a row of V (c₂ words); the first column tile of a row block also sums the
   streamed columns into :math:`\ell_I`, which stays resident for the row block and is stored
   once. Peak :math:`r_2c_2 + 2r_2 + c_2`.

**Backward** (:func:`fused_resident_backward`):

0. D = rowsum(dO∘O), square blocks :math:`B = \lfloor\sqrt{M/4}\rfloor`
   (:func:`~attnio.algorithms.primitives.stream_rowsum_product`).
1. For each key block J (c rows): load :math:`V_J`, allocate :math:`dV_J` (both resident);
   for each row i load :math:`dO_i, \ell_i, D_i` and :math:`A_{iJ}`, form
   :math:`P_{iJ} = A_{iJ}/\ell_i`, :math:`dV_J \mathrel{+}= P_{iJ}^\mathsf{T}dO_i`,
   :math:`dS_{iJ} = P_{iJ}\circ(dO_iV_J^\mathsf{T} - D_i)` and store :math:`dS_{iJ}`; store
   :math:`dV_J`. Peak :math:`2cd + d + 2 + 2c`.
2. Two of small-cache-fused's gradient products
   (:func:`~attnio.algorithms.small_cache_fused.stationary_product`): dQ = dS·K,
   dK = dSᵀQ, r₂×c₂ output tiles. Peak :math:`r_2c_2 + r_2 + c_2`.

Exact counts (:func:`count_fused_resident`, equal to the executed ones, ``==``, in
``tests/algorithms/test_resident_fused.py``; :math:`T_x(b) = \lceil x/b\rceil`):

* forward: reads :math:`nd + T_n(b_1)nd + n^2T_d(c_2) + nd\,T_n(r_2)`, writes
  :math:`n^2 + nd + n`, FLOPs :math:`2n^2d + n^2 + 2n^2d + n^2 + nd`;
* backward: reads :math:`2nd + nd + T_n(b_1)(nd + 2n) + n^2 + 2n(nT_d(c_2) + dT_n(r_2))`,
  writes :math:`n + n^2 + 3nd`, FLOPs :math:`2nd + 4n^2d + 3n^2 + 4n^2d`.

So for :math:`M \ge d^2` (:math:`c_2 = d`) about :math:`(n^2d^2/M + n^2) + (n^2 + n^2d^2/M)`
forward (pass 1 + products) and :math:`(2n^2d^2/M + 2n^2) + 2(n^2 + n^2d^2/M)` backward,
against small-cache-fused's :math:`4n^2d/\sqrt M + n^2` and :math:`8n^2d/\sqrt M + 3n^2`.

Block sizes (:func:`resident_block_sizes`, exact): the I/O depends on :math:`b_1` only through
:math:`T_n(b_1)` and the passes run one after the other, so the largest fitting :math:`b_1` is
optimal; the products' :math:`(r_2, c_2)` by small-cache-fused's search (every :math:`c_2` of a
distinct trip count :math:`T_d(c_2)` with its largest fitting :math:`r_2`). Admissible:
:math:`M \ge \max(2d + 1, 4)` (forward: pass 1 and a 1×1 product tile), :math:`M \ge 3d + 4`
(backward).

Examples
--------
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import attention_forward
>>> rng = np.random.default_rng(2)
>>> mem = TwoLevelMemory(M=40)
>>> for name in "QKV": mem.add_slow(name, 0.5 * rng.standard_normal((9, 4)))
>>> fused_resident_forward(mem, **resident_block_sizes(9, 4, 40, "forward"))
>>> ref = attention_forward(mem.slow["Q"], mem.slow["K"], mem.slow["V"])
>>> bool(np.allclose(mem.slow["O"], ref.O, rtol=0, atol=1e-12)), mem.peak_words <= 40
(True, True)
>>> c = count_fused_resident("forward", 9, 4, 40)
>>> (c.reads, c.writes, c.flops, c.peak_fast_words) == (mem.reads, mem.writes, mem.flops, mem.peak_words)
True
"""

from __future__ import annotations

from math import isqrt
from typing import Callable, Mapping

import numpy as np

from attnio.algorithms.counts import Counts, count_rowsum_product
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import blocks, ceil_div, stream_rowsum_product
from attnio.algorithms.small_cache_fused import stationary_product, trip_count_sides
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError
from attnio.validation import positive_int

__all__ = ["fused_resident_forward", "fused_resident_backward", "count_fused_resident",
           "resident_block_sizes", "resident_peaks"]

_PASSES = ("forward", "backward")


def _check_pass(pass_: str) -> str:
    if pass_ not in _PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    return pass_


def resident_peaks(pass_: str, n: int, d: int, blocks_: Mapping[str, int]) -> dict[str, int]:
    """The peak resident words of each phase at these blocks (``"D"`` backward only).

    >>> resident_peaks("backward", 4096, 64, {"B": 32, "b1": 31, "r2": 62, "c2": 64})
    {'D': 2080, 'pass 1': 4096, 'products': 4094}
    """
    c, r2, c2 = min(blocks_["b1"], n), min(blocks_["r2"], n), min(blocks_["c2"], d)
    if _check_pass(pass_) == "forward":
        return {"pass 1": c * d + d + c, "products": r2 * c2 + 2 * r2 + c2}
    return {"D": count_rowsum_product(n, d, blocks_["B"]).peak_fast_words,
            "pass 1": 2 * c * d + d + 2 + 2 * c, "products": r2 * c2 + r2 + c2}


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest b in [lo, hi] with fits(b), given fits(lo) and fits decreasing in b."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo



def resident_block_sizes(n: int, d: int, M: int, pass_: str = "backward") -> dict[str, int]:
    """Blocks ``{"B", "b1", "r2", "c2"}`` of least I/O under M (module docstring; ``B`` is the
    backward's D prologue block).

    Raises
    ------
    CacheTooSmallError
        If M < max(2d + 1, 4) (forward) or M < 3d + 4 (backward): pass 1 does not fit one
        key row, or the product pass a 1×1 tile.

    >>> resident_block_sizes(4096, 64, 4096)
    {'B': 32, 'b1': 31, 'r2': 62, 'c2': 64}
    """
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    need = max(2 * d + 1, 4) if _check_pass(pass_) == "forward" else 3 * d + 4
    if M < need:
        raise CacheTooSmallError(f"M={M} is too small for fused-resident {pass_}: it needs "
                                 f"{need} words at d={d}")
    B = isqrt(M // 4)
    extra = 2 if pass_ == "forward" else 1  # words per row of the product tile beyond r2·c2
    b1 = _largest(1, n, lambda b: resident_peaks(pass_, n, d, {"B": B, "b1": b, "r2": 1,
                                                               "c2": 1})["pass 1"] <= M)
    best: tuple[int, int, int, int] | None = None
    for c in trip_count_sides(d, M):
        r = min(n, (M - c) // (c + extra))
        if r < 1:
            break
        io = _count(pass_, n, d, B, b1, r, c).io
        key = (io, abs(r - c), r, c)
        best = key if best is None or key < best else best
    assert best is not None  # M >= 4 (forward) / 3d + 4 (backward) fits a 1x1 product tile
    return {"B": B, "b1": b1, "r2": best[2], "c2": best[3]}


def _count(pass_: str, n: int, d: int, B: int, b1: int, r2: int, c2: int) -> Counts:
    T = ceil_div
    T1, Tr, Td = T(n, b1), T(n, r2), T(d, c2)
    peak = max(resident_peaks(pass_, n, d, {"B": B, "b1": b1, "r2": r2, "c2": c2}).values())
    sizes = (("B", B), ("b1", b1), ("r2", r2), ("c2", c2))
    if pass_ == "forward":
        return Counts(n * d + T1 * n * d + n * n * Td + n * d * Tr, n * n + n * d + n,
                      4 * n * n * d + 2 * n * n + n * d, peak, sizes)
    reads = 2 * n * d + n * d + T1 * (n * d + 2 * n) + n * n + 2 * n * (n * Td + d * Tr)
    return Counts(reads, n + n * n + 3 * n * d, 2 * n * d + 8 * n * n * d + 3 * n * n,
                  peak, sizes)


def count_fused_resident(pass_: str, n: int, d: int, M: int,
                         blocks_: Mapping[str, int] | None = None) -> Counts:
    """Exact counts of ``fused-resident`` (module docstring); ``blocks_`` defaults to
    :func:`resident_block_sizes`; blocks whose peak exceeds M raise
    :class:`~attnio.exceptions.CacheOverflowError`.

    >>> count_fused_resident("backward", 4096, 64, 4096).io
    139767808
    """
    b = resident_block_sizes(n, d, M, pass_) if blocks_ is None else dict(blocks_)
    sides = {k: positive_int(k, b[k]) for k in ("B", "b1", "r2", "c2")}
    counted = _count(_check_pass(pass_), n, d, **sides)
    if counted.peak_fast_words > M:
        raise CacheOverflowError(f"fused-resident {pass_} blocks {sides} need "
                                 f"{counted.peak_fast_words} words > M={M}")
    return counted


def fused_resident_forward(mem: TwoLevelMemory, *, B: int, b1: int, r2: int, c2: int) -> None:
    """Forward: slow Q, K, V → A = exp(QKᵀ), ℓ = A·1, O = diag(ℓ)⁻¹AV (module docstring;
    ``B`` is unused: the forward has no prologue)."""
    n, d = mem.slow["Q"].shape
    mem.new_slow("A", (n, n))
    mem.new_slow("l", (n,))
    mem.new_slow("O", (n, d))
    for j0, c in blocks(n, b1):
        keys = slice(j0, j0 + c)
        mem.load("K_J", "K", (keys, slice(None)))
        for i in range(n):
            row = slice(i, i + 1)
            mem.load("q_i", "Q", (row, slice(None)))
            mem.allocate("a", (1, c))
            mem.compute("a", ("q_i", "K_J"), lambda q, k: np.exp(q @ k.T), flops=2 * c * d + c)
            mem.store("a", "A", (row, keys))
            mem.free("q_i", "a")
        mem.free("K_J")
    for i0, r in blocks(n, r2):
        rows = slice(i0, i0 + r)
        mem.allocate("l_I", (r,))
        for l0, w in blocks(d, c2):
            cols = slice(l0, l0 + w)
            mem.allocate("O_IL", (r, w))
            for j in range(n):
                one = slice(j, j + 1)
                mem.load("a_j", "A", (rows, one))
                mem.load("v_j", "V", (one, cols))
                mem.compute("O_IL", ("O_IL", "a_j", "v_j"), lambda o, a, v: o + a @ v,
                            flops=2 * r * w)
                if l0 == 0:  # ℓ_I once per row block, from the columns streamed anyway
                    mem.compute("l_I", ("l_I", "a_j"), lambda lv, a: lv + a[:, 0], flops=r)
                mem.free("a_j", "v_j")
            mem.compute("O_IL", ("O_IL", "l_I"), lambda o, lv: o / lv[:, None], flops=r * w)
            mem.store("O_IL", "O", (rows, cols))
            mem.free("O_IL")
        mem.store("l_I", "l", rows)
        mem.free("l_I")


def fused_resident_backward(mem: TwoLevelMemory, *, B: int, b1: int, r2: int, c2: int) -> None:
    """Backward: slow Q, K, V, O, dO, A, ℓ → dQ, dK, dV (and D, dS; module docstring)."""
    n, d = mem.slow["dO"].shape
    stream_rowsum_product(mem, "dO", "O", "D", block=B)
    mem.new_slow("dS", (n, n))
    mem.new_slow("dV", (n, d))
    for j0, c in blocks(n, b1):
        keys = slice(j0, j0 + c)
        mem.load("V_J", "V", (keys, slice(None)))
        mem.allocate("dV_J", (c, d))
        for i in range(n):
            row = slice(i, i + 1)
            mem.load("dO_i", "dO", (row, slice(None)))
            mem.load("l_i", "l", row)
            mem.load("D_i", "D", row)
            mem.load("P_iJ", "A", (row, keys))
            mem.compute("P_iJ", ("P_iJ", "l_i"), lambda a, lv: a / lv[0], flops=c)
            mem.compute("dV_J", ("dV_J", "P_iJ", "dO_i"), lambda dv, p, do: dv + p.T @ do,
                        flops=2 * c * d)
            mem.allocate("ds", (1, c))
            mem.compute("ds", ("dO_i", "V_J"), lambda do, v: do @ v.T, flops=2 * c * d)
            mem.compute("ds", ("ds", "P_iJ", "D_i"), lambda dp, p, D: p * (dp - D[0]),
                        flops=2 * c)
            mem.store("ds", "dS", (row, keys))
            mem.free("dO_i", "l_i", "D_i", "P_iJ", "ds")
        mem.store("dV_J", "dV", (keys, slice(None)))
        mem.free("V_J", "dV_J")
    stationary_product(mem, "dS", "K", "dQ", r2, c2, trans_left=False)
    stationary_product(mem, "dS", "Q", "dK", r2, c2, trans_left=True)
