r"""``flash2-split``: FlashAttention-2's backward split into a KV-outer pass for dK, dV and a
separate dQ pass, so that dQ is never re-read (ours).

FlashAttention-2's backward (:func:`attnio.algorithms.flash.flash2_backward`) keeps four
:math:`B_c \times d` tiles resident (:math:`K_j, V_j, dK_j, dV_j`) and, on every one of its
:math:`T_c = \lceil n/B_c\rceil` outer passes, streams Q and dO *and reads and writes dQ*:
:math:`4nd` words per pass, about :math:`16\,n^2d^2/M` in all. Here dQ leaves the KV-outer
pass; the slow-memory inputs and outputs are FA-2's (Q, K, V, O, dO and the forward's
logsumexp L → dQ, dK, dV; D = rowsum(dO∘O) written), the computation is the ``recompute``
class of :mod:`attnio.bounds.attention` (the scores are recomputed from Q and K).

Schedule (no mask, τ = 1; every tile below is a :class:`~attnio.algorithms.memory.TwoLevelMemory`
tile, so the memory model refuses any step that would hold more than M words):

0. **D** = rowsum(dO∘O): :func:`~attnio.algorithms.primitives.stream_rowsum_product` with
   square blocks of side :math:`B_c`; reads :math:`2nd`, writes :math:`n`.
1. **Pass A (KV outer, dK and dV).** For each key block j (:math:`c = B_c` rows): load
   :math:`K_j, V_j`, allocate :math:`dK_j, dV_j` (resident: four :math:`c \times d` tiles);
   for each query row i: load :math:`q_i, dO_i, L_i, D_i`, form the score row
   :math:`p = \exp(q_iK_j^\mathsf{T} - L_i)`, :math:`dV_j \mathrel{+}= p^\mathsf{T}dO_i`,
   :math:`ds = p \circ (dO_iV_j^\mathsf{T} - D_i)`, :math:`dK_j \mathrel{+}= ds^\mathsf{T}q_i`;
   with ``dS = 1`` store the row :math:`ds` into slow dS (c words). Store :math:`dK_j, dV_j`.
   Peak :math:`4cd + 2d + 2 + 2c`.
2. **Pass B, dQ** — one of two, chosen by the block rule (``dS``):

   * ``dS = 0``, *Q outer, recompute*: for each query block I (:math:`a = B_r` rows) load
     :math:`Q_I, dO_I, L_I, D_I`, allocate :math:`dQ_I` (resident: three :math:`a \times d`
     tiles); for each key row j load :math:`k_j, v_j`, recompute the score column
     :math:`p = \exp(Q_Ik_j^\mathsf{T} - L_I)` and :math:`ds = p \circ (dO_Iv_j^\mathsf{T} - D_I)`,
     :math:`dQ_I \mathrel{+}= ds\,k_j`; store :math:`dQ_I`. Peak :math:`3ad + 4a + 2d`.
   * ``dS = 1``, *dQ = dS·K from the written dS*: for each query block I (a rows) allocate
     :math:`dQ_I`; for each j load the column :math:`dS_{Ij}` (a words) and the row
     :math:`k_j` (d words), :math:`dQ_I \mathrel{+}= dS_{Ij}k_j`; store :math:`dQ_I`.
     Peak :math:`ad + a + d`.

Exact count (:func:`count_flash2_split_backward`; :math:`T_c = \lceil n/c\rceil`,
:math:`T_r = \lceil n/a\rceil`, :math:`c = \min(B_c, n)`, :math:`a = \min(B_r, n)`;
equal to the executed count, ``==``, in ``tests/algorithms/test_split_backward.py``):

.. math::

   \text{reads}  &= 2nd + 2nd + T_c(2nd + 2n) +
      \begin{cases} 2nd + 2n + 2T_r\,nd & dS = 0\\ n^2 + T_r\,nd & dS = 1\end{cases}\\
   \text{writes} &= n + 2nd + nd + dS\cdot n^2\\
   \text{FLOPs}  &= 2nd + 8n^2d + 4n^2 +
      \begin{cases} 6n^2d + 4n^2 & dS = 0\\ 2n^2d & dS = 1\end{cases}

so about :math:`8n^2d^2/M + 6n^2d^2/M = 14\,n^2d^2/M` (``dS = 0``) or
:math:`9\,n^2d^2/M + 2n^2` (``dS = 1``, cheaper for :math:`M \lesssim 2.5d^2`) against
FlashAttention-2's :math:`16\,n^2d^2/M`.

Block sizes (:func:`split_block_sizes`, an exact search): the I/O depends on :math:`B_c` only
through :math:`T_c` and on :math:`B_r` only through :math:`T_r`, and both passes run one after
the other with all M words each, so the largest fitting :math:`B_c` and, for each choice of
pass B, the largest fitting :math:`B_r` are optimal; the pass B of smaller I/O is taken (ties:
fewer FLOPs). Admissible: :math:`M \ge 6d + 4` (pass A with one key row; then every other
peak fits too).

Examples
--------
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import attention_backward, attention_forward
>>> rng = np.random.default_rng(4)
>>> Q, K, V, dO = (0.5 * rng.standard_normal((9, 4)) for _ in range(4))
>>> ref = attention_forward(Q, K, V)
>>> mem = TwoLevelMemory(M=80)
>>> for name, value in dict(Q=Q, K=K, V=V, O=ref.O, dO=dO, L=ref.logsumexp).items():
...     mem.add_slow(name, value)
>>> blocks = split_block_sizes(9, 4, 80)
>>> blocks
{'B_c': 3, 'B_r': 9, 'dS': 1}
>>> flash2_split_backward(mem, **blocks)
>>> all(np.allclose(mem.slow[k], e, rtol=0, atol=1e-12)
...     for k, e in zip(("dQ", "dK", "dV"), attention_backward(Q, K, V, dO)))
True
>>> c = count_flash2_split_backward(9, 4, 80)
>>> (mem.reads, mem.writes, mem.flops, mem.peak_words) == (c.reads, c.writes, c.flops, c.peak_fast_words)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from attnio.algorithms.counts import Counts, count_rowsum_product, sequence_counts
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    blocks,
    ceil_div,
    dq_product_pass,
    kept_key_rows,
    open_key_block,
    stream_rowsum_product,
)
from attnio.exceptions import CacheOverflowError, CacheTooSmallError
from attnio.validation import positive_int

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask, TileClasses

__all__ = ["flash2_split_backward", "count_flash2_split_backward",
           "count_masked_flash2_split_backward", "split_block_sizes", "split_peaks", "split_io"]


def split_peaks(n: int, d: int, B_c: int, B_r: int, dS: int) -> dict[str, int]:
    """The peak resident words of each phase (``"D"``, ``"A"``, ``"B"``) at these blocks.

    >>> split_peaks(4096, 64, 31, 41, 0)
    {'D': 1953, 'A': 8128, 'B': 8164}
    """
    c, a = min(B_c, n), min(B_r, n)
    return {"D": count_rowsum_product(n, d, B_c).peak_fast_words,
            "A": 4 * c * d + 2 * d + 2 + 2 * c,
            "B": a * d + a + d if dS else 3 * a * d + 4 * a + 2 * d}


def split_io(n: int, d: int, B_c: int, B_r: int, dS: int) -> int:
    """Words moved (reads + writes) at these blocks: the closed form of the module docstring.

    >>> split_io(4096, 64, 31, 41, 0) < 142_389_248        # flash2 at M = 8,192
    True
    """
    Tc, Tr = ceil_div(n, B_c), ceil_div(n, B_r)
    reads = 4 * n * d + Tc * (2 * n * d + 2 * n) + (
        n * n + Tr * n * d if dS else 2 * n * d + 2 * n + 2 * Tr * n * d)
    return reads + n + 3 * n * d + dS * n * n


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest b in [lo, hi] with fits(b), given fits(lo) and fits decreasing in b."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def split_block_sizes(n: int, d: int, M: int) -> dict[str, int]:
    """Blocks ``{"B_c", "B_r", "dS"}`` of least I/O under M (exact; module docstring).

    Raises
    ------
    CacheTooSmallError
        If ``M < 6d + 4`` (pass A does not fit with one key row).

    >>> split_block_sizes(4096, 64, 8192), split_block_sizes(4096, 64, 65536)
    ({'B_c': 31, 'B_r': 125, 'dS': 1}, {'B_c': 253, 'B_r': 333, 'dS': 0})
    """
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    if M < 6 * d + 4:
        raise CacheTooSmallError(f"M={M} is too small for flash2-split: pass A needs "
                                 f"6d + 4 = {6 * d + 4} words at d={d}")
    B_c = _largest(1, n, lambda c: max(split_peaks(n, d, c, 1, 1)["A"],
                                       split_peaks(n, d, c, 1, 1)["D"]) <= M)
    best: tuple[int, int, dict[str, int]] | None = None
    for dS in (0, 1):
        def pass_b_fits(a: int, dS: int = dS) -> bool:
            return split_peaks(n, d, 1, a, dS)["B"] <= M

        B_r = _largest(1, n, pass_b_fits)
        c = _count(n, d, B_c, B_r, dS)
        key = (c.io, c.flops, {"B_c": B_c, "B_r": B_r, "dS": dS})
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None  # two candidates were compared
    return best[2]


def _count(n: int, d: int, B_c: int, B_r: int, dS: int) -> Counts:
    Tc, Tr = ceil_div(n, B_c), ceil_div(n, B_r)
    pass_b = (Counts(n * n + Tr * n * d, n * d, 2 * n * n * d, 0) if dS else
              Counts(2 * n * d + 2 * n + 2 * Tr * n * d, n * d, 6 * n * n * d + 4 * n * n, 0))
    reads = 2 * n * d + 2 * n * d + Tc * (2 * n * d + 2 * n) + pass_b.reads
    writes = n + 2 * n * d + dS * n * n + pass_b.writes
    flops = 2 * n * d + 8 * n * n * d + 4 * n * n + pass_b.flops
    peak = max(split_peaks(n, d, B_c, B_r, dS).values())
    return Counts(reads, writes, flops, peak, (("B_c", B_c), ("B_r", B_r), ("dS", dS)))


def count_flash2_split_backward(n: int, d: int, M: int,
                                blocks: Mapping[str, int] | None = None) -> Counts:
    """Exact counts of :func:`flash2_split_backward` (the formulas of the module docstring).

    ``blocks`` defaults to :func:`split_block_sizes`; blocks whose peak exceeds M raise
    :class:`~attnio.exceptions.CacheOverflowError`.

    >>> count_flash2_split_backward(4096, 64, 8192).io
    114864128
    """
    b = split_block_sizes(n, d, M) if blocks is None else dict(blocks)
    B_c, B_r = positive_int("B_c", b["B_c"]), positive_int("B_r", b["B_r"])
    dS = b["dS"]
    if dS not in (0, 1):
        raise CacheOverflowError(f"flash2-split: dS={dS!r} must be 0 or 1")
    counted = _count(n, d, B_c, B_r, dS)
    if counted.peak_fast_words > M:
        raise CacheOverflowError(f"flash2-split blocks B_c={B_c}, B_r={B_r}, dS={dS} need "
                                 f"{counted.peak_fast_words} words > M={M}")
    return counted


def _shift(L: np.ndarray) -> np.ndarray:
    """The logsumexp to subtract: L where finite, 0 on fully masked rows (L = −∞)."""
    return np.where(np.isfinite(L), L, 0.0)


def _probabilities(s: np.ndarray, L: np.ndarray, keep: np.ndarray | None, tau: float,
                   axis: int) -> np.ndarray:
    """exp(τs − L) with L broadcast along ``axis``; 0 at masked entries."""
    arg = tau * s - (_shift(L)[:, None] if axis == 1 else _shift(L)[None, :])
    if keep is not None:
        arg = np.where(keep, arg, -np.inf)
    return np.exp(arg)


def _kv_outer_pass(mem: TwoLevelMemory, n: int, d: int, B_c: int, write_ds: bool,
                   mask: np.ndarray | None, tau: float) -> None:
    """Pass A: dK, dV with K_j, V_j, dK_j, dV_j resident; each query row (with a kept entry
    in the key block) streamed once per key block; with ``write_ds`` the score-gradient row
    ds is stored into slow dS."""
    for j0, c in blocks(n, B_c):
        keys = slice(j0, j0 + c)
        open_key_block(mem, keys, c, d)
        for i in range(n):
            keep = None if mask is None else mask[i:i + 1, keys]
            if keep is not None and not keep.any():
                continue
            row = slice(i, i + 1)
            mem.load("q_i", "Q", (row, slice(None)))
            mem.load("dO_i", "dO", (row, slice(None)))
            mem.load("L_i", "L", row)
            mem.load("D_i", "D", row)
            mem.allocate("p", (1, c))
            mem.compute("p", ("q_i", "K_j"), lambda q, k: q @ k.T, flops=2 * c * d)
            mem.compute("p", ("p", "L_i"),
                        lambda s, L, kp=keep: _probabilities(s, L, kp, tau, 1), flops=2 * c)
            mem.compute("dV_j", ("dV_j", "p", "dO_i"), lambda dv, p, do: dv + p.T @ do,
                        flops=2 * c * d)
            mem.allocate("ds", (1, c))
            mem.compute("ds", ("dO_i", "V_j"), lambda do, v: do @ v.T, flops=2 * c * d)
            mem.compute("ds", ("ds", "p", "D_i"), lambda dp, p, D: p * (dp - D[:, None]),
                        flops=2 * c)
            mem.compute("dK_j", ("dK_j", "ds", "q_i"), lambda dk, ds, q: dk + tau * (ds.T @ q),
                        flops=2 * c * d)
            if write_ds:
                mem.store("ds", "dS", (row, keys))
            mem.free("q_i", "dO_i", "L_i", "D_i", "p", "ds")
        mem.store("dK_j", "dK", (keys, slice(None)))
        mem.store("dV_j", "dV", (keys, slice(None)))
        mem.free("K_j", "V_j", "dK_j", "dV_j")


def _dq_recompute_pass(mem: TwoLevelMemory, n: int, d: int, B_r: int,
                       mask: np.ndarray | None, tau: float) -> None:
    """Pass B (dS = 0): Q outer; Q_I, dO_I, dQ_I resident, each key row (with a kept entry
    in the query block) streamed once per query block, the score column recomputed."""
    for i0, a in blocks(n, B_r):
        rows = slice(i0, i0 + a)
        mem.load("Q_I", "Q", (rows, slice(None)))
        mem.load("dO_I", "dO", (rows, slice(None)))
        mem.load("L_I", "L", rows)
        mem.load("D_I", "D", rows)
        mem.allocate("dQ_I", (a, d))
        for j in kept_key_rows(mask, rows, n):
            key = slice(j, j + 1)
            keep = None if mask is None else mask[rows, key]
            mem.load("k_j", "K", (key, slice(None)))
            mem.load("v_j", "V", (key, slice(None)))
            mem.allocate("p", (a, 1))
            mem.compute("p", ("Q_I", "k_j"), lambda q, k: q @ k.T, flops=2 * a * d)
            mem.compute("p", ("p", "L_I"),
                        lambda s, L, kp=keep: _probabilities(s, L, kp, tau, 1), flops=2 * a)
            mem.allocate("ds", (a, 1))
            mem.compute("ds", ("dO_I", "v_j"), lambda do, v: do @ v.T, flops=2 * a * d)
            mem.compute("ds", ("ds", "p", "D_I"), lambda dp, p, D: p * (dp - D[:, None]),
                        flops=2 * a)
            mem.compute("dQ_I", ("dQ_I", "ds", "k_j"), lambda dq, ds, k: dq + tau * (ds @ k),
                        flops=2 * a * d)
            mem.free("k_j", "v_j", "p", "ds")
        mem.store("dQ_I", "dQ", (rows, slice(None)))
        mem.free("Q_I", "dO_I", "L_I", "D_I", "dQ_I")


def flash2_split_backward(mem: TwoLevelMemory, *, B_c: int, B_r: int, dS: int,
                          mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """slow Q, K, V, O, dO, L → dQ, dK, dV (and D; with ``dS = 1`` also dS): the schedule of
    the module docstring, key blocks of ``B_c`` rows in pass A, query blocks of ``B_r`` rows
    in pass B (``dS`` picks pass B). ``mask`` (True = keep) and ``tau`` as in
    :func:`attnio.algorithms.reference.attention_backward`: a streamed row or column with no
    kept entry in the resident block is skipped (no I/O, no FLOPs); the resident blocks' own
    loads and stores are paid for every block; fully masked rows get zero gradients."""
    n, d = mem.slow["Q"].shape
    mem.new_slow("dQ", (n, d))
    mem.new_slow("dK", (n, d))
    mem.new_slow("dV", (n, d))
    if dS:
        mem.new_slow("dS", (n, n))
    stream_rowsum_product(mem, "dO", "O", "D", block=B_c)
    _kv_outer_pass(mem, n, d, B_c, bool(dS), mask, tau)
    if dS:
        dq_product_pass(mem, n, d, B_r, mask, tau=tau)
    else:
        _dq_recompute_pass(mem, n, d, B_r, mask, tau)


def count_masked_flash2_split_backward(n: int, d: int, M: int, mask: "Mask") -> Counts:
    r"""``flash2-split`` with a mask, exactly: the unmasked block rule
    (:func:`split_block_sizes`), then sums over the non-empty tiles of
    :func:`~attnio.algorithms.masks.tile_classes` grids — (1, B_c): a query row streamed in
    pass A (2d + 2 words read; with dS = 1, c written), (B_r, 1): a key row streamed in the
    recompute pass B (2d words) or a column of dS in the product pass B (a + d words). The
    key blocks' K_j, V_j loads and dK_j, dV_j stores, the query blocks' Q_I, dO_I, L_I, D_I
    loads and dQ_I stores and the D prologue are paid for every block.

    >>> from attnio.algorithms.masks import Mask
    >>> count_masked_flash2_split_backward(64, 8, 256, Mask.full()) == count_flash2_split_backward(64, 8, 256)
    True
    >>> count_masked_flash2_split_backward(64, 8, 256, Mask.causal()).io
    15258
    """
    from attnio.algorithms.masks import tile_classes

    count_flash2_split_backward(n, d, M)  # raises like the unmasked count
    b = split_block_sizes(n, d, M)
    B_c, B_r, dS = b["B_c"], b["B_r"], b["dS"]
    c0, a0 = min(B_c, n), min(B_r, n)
    rows = tile_classes(mask, n, 1, c0)
    keys = tile_classes(mask, n, a0, 1)

    def peak(g: "TileClasses", fn: Callable[[int, int], int], floor: int) -> int:
        return max([floor] + [fn(r, c) for r, c in g.shapes])

    pass_a = Counts(2 * n * d + rows.total(lambda r, c: 2 * d + 2),
                    2 * n * d + dS * rows.total(lambda r, c: c),
                    rows.total(lambda r, c: 8 * c * d + 4 * c),
                    peak(rows, lambda r, c: 4 * c * d + 2 * d + 2 + 2 * c, 4 * c0 * d))
    if dS:
        pass_b = Counts(keys.total(lambda a, c: a + d), n * d, keys.total(lambda a, c: 2 * a * d),
                        peak(keys, lambda a, c: a * d + a + d, a0 * d))
    else:
        pass_b = Counts(2 * n * d + 2 * n + keys.total(lambda a, c: 2 * d), n * d,
                        keys.total(lambda a, c: 6 * a * d + 4 * a),
                        peak(keys, lambda a, c: 3 * a * d + 4 * a + 2 * d, 3 * a0 * d + 2 * a0))
    return sequence_counts(count_rowsum_product(n, d, B_c), pass_a, pass_b,
                           block_sizes=(("B_c", B_c), ("B_r", B_r), ("dS", dS)))
