r"""``flash2-lean``: FlashAttention-2's loop orders holding the fewest resident words (ours).

Same computations as FlashAttention-2 (:mod:`attnio.algorithms.flash`): the forward reads
Q, K, V and writes O and the logsumexp L; the backward reads Q, K, V, O, dO, L (class
``recompute`` of :mod:`attnio.bounds.attention`: the scores are recomputed from Q and K) and
writes dQ, dK, dV. Finite for every finite logit (every exponent is a score minus a running
or final row maximum). What changes is what shares M with the resident blocks: a
resident-block schedule moves about (resident words per row) × (streamed words per row) ×
:math:`n^2/M` words, so every word held beside the blocks shrinks them. Here

* no score tile: each update that needs a score (the running sum ℓ, the output O, the
  running maximum m; dV, dK; dQ) recomputes it inside the one step that uses it, from the
  resident row and the streamed one (the two-level memory charges what is resident between
  steps, not a step's own arithmetic: a register, in hardware terms; the FLOPs are charged);
* the streamed rows one at a time where that is smaller (mode 0: :math:`k_j`, then
  :math:`v_j`, with one vector of scores in between; mode 1: both rows and no vector);
* the backward is ``flash2-split``'s (:mod:`attnio.algorithms.split_backward`): a KV-outer
  pass for dK, dV and a separate dQ pass — here the Q-outer recompute pass runs **first**
  and forms :math:`D = \mathrm{rowsum}(dO\circ O)` from its resident :math:`dO_I` (no
  separate D pass: nd words fewer), or dQ = dS·K from a dS the KV-outer pass wrote.

Schedule (``mask``, True = keep; softmax scale ``tau``):

**Forward** (:func:`lean_forward`), query blocks of :math:`a = B_r` rows: load :math:`Q_I`;
allocate :math:`O_I` (a×d), :math:`\ell_I`, :math:`m_I`; for each key row j with a kept
entry in the block: mode 1 — load :math:`k_j, v_j`; update ℓ, then O, then m (each from
:math:`s = \tau Q_Ik_j^\mathsf{T}`, recomputed); mode 0 — load :math:`k_j`, form s (a
words), free :math:`k_j`, load :math:`v_j`, update ℓ, O, m from s. Then
:math:`O_I \leftarrow O_I/\ell_I`, :math:`L_I = m_I + \log\ell_I`; store both.
Peak :math:`2ad + 2a + 2d` (mode 1) or :math:`2ad + 3a + d` (mode 0); FlashAttention-2's is
:math:`2ad + 5a + 2d` (a score column, :math:`\tilde m`, α beside ℓ, m).

**Backward** (:func:`lean_backward`):

* ``dS = 0``: *pass B first* (Q outer): load :math:`dO_I, O_I`, form and store :math:`D_I`,
  free :math:`O_I`; load :math:`Q_I, L_I`, allocate :math:`dQ_I`; for each kept key row j:
  mode 1 — load :math:`k_j, v_j`, :math:`dQ_I \mathrel{+}= \tau\,ds\,k_j` with
  :math:`ds = p\circ(dO_Iv_j^\mathsf{T} - D_I)`, :math:`p = \exp(\tau Q_Ik_j^\mathsf{T} -
  L_I)` recomputed inside; mode 0 — load :math:`v_j`, :math:`x = dO_Iv_j^\mathsf{T} - D_I`
  (a words), free :math:`v_j`, load :math:`k_j`, :math:`x \leftarrow p\circ x`,
  :math:`dQ_I \mathrel{+}= \tau x k_j`. Peak :math:`3ad + 2a + 2d` / :math:`3ad + 3a + d`.
  Then *pass A* (KV outer): load :math:`K_J, V_J`, allocate :math:`dK_J, dV_J` (c = B_c
  rows); for each query row i with a kept entry: load :math:`q_i, dO_i, L_i, D_i`;
  :math:`dV_J \mathrel{+}= p^\mathsf{T}dO_i`, :math:`dK_J \mathrel{+}= \tau\,ds^\mathsf{T}q_i`
  (p, ds recomputed inside each). Peak :math:`4cd + 2d + 2`.
* ``dS = 1``: D by :func:`~attnio.algorithms.primitives.stream_rowsum_product` (square
  blocks of side :math:`B_c`), pass A storing :math:`\tau\,ds` one word at a time (each
  formed, added into its row of :math:`dK_J` and stored: peak :math:`4cd + 2d + 3`), then
  dQ = dS·K: :math:`dQ_I` resident, a column of dS and a row of K streamed (peak
  :math:`ad + a + d`).

Exact counts (:func:`count_lean`; :math:`T_r = \lceil n/a\rceil`, :math:`T_c =
\lceil n/c\rceil`; equal to the executed ones, ``==``, in ``tests/algorithms/
test_lean_flash.py``):

* forward: reads :math:`nd + 2T_r nd`, writes :math:`nd + n` (FlashAttention-2's form);
* backward, ``dS = 0``: reads :math:`3nd + n + 2T_rnd + 2nd + T_c(2nd + 2n)`, writes
  :math:`n + nd + 2nd`; ``dS = 1``: reads :math:`2nd + 2nd + T_c(2nd + 2n) + n^2 + T_rnd`,
  writes :math:`n + 2nd + n^2 + nd` (``flash2-split``'s forms, less the D pass's nd).

Masked (:func:`count_masked_lean`): a streamed row with no kept entry in the resident block
is skipped (the (a, 1) and (1, c) grids of :func:`~attnio.algorithms.masks.tile_classes`);
the resident blocks' loads and stores are paid for every block.

Block sizes (:func:`lean_block_sizes`, exact): the I/O depends on the blocks only through
the trip counts, and each pass runs alone with all M words, so the largest fitting block of
each pass (over both modes) is optimal; the backward takes the cheaper of ``dS = 0, 1`` (ties:
fewer FLOPs). Admissible: :math:`M \ge 3d + 3` (forward), :math:`M \ge 6d + 2` (backward).

Examples
--------
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> from attnio.algorithms.reference import forward_matches
>>> mem = TwoLevelMemory.with_random_inputs(60, (9, 4), seed=3)
>>> lean_forward(mem, **lean_block_sizes(9, 4, 60, "forward"), tau=900.0)
>>> forward_matches(mem.slow, tau=900.0), mem.peak_words <= 60
(True, True)
>>> count_lean("forward", 9, 4, 60).matches(mem)
True
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from attnio.algorithms.counts import Counts, count_rowsum_product, sequence_counts
from attnio.algorithms.masks import tile_classes
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.primitives import (
    blocks,
    dq_product_pass,
    kept_key_rows,
    open_key_block,
    stream_rowsum_product,
)
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError
from attnio.validation import positive_int

if TYPE_CHECKING:  # pragma: no cover
    from attnio.algorithms.masks import Mask, TileClasses

__all__ = ["lean_forward", "lean_backward", "lean_block_sizes", "lean_peaks", "count_lean",
           "count_masked_lean"]

_PASSES = ("forward", "backward")


def _check_pass(pass_: str) -> str:
    if pass_ not in _PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    return pass_


def lean_peaks(pass_: str, n: int, d: int, b: Mapping[str, int]) -> dict[str, int]:
    """Peak resident words of each phase at the blocks ``b`` (sides clipped to n).

    >>> lean_peaks("forward", 4096, 64, {"B_r": 34, "mode": 0})
    {'forward': 4518}
    >>> lean_peaks("backward", 4096, 64, {"B_c": 43, "B_r": 57, "dS": 0, "mode": 0})
    {'A': 11138, 'B': 11179}
    """
    if _check_pass(pass_) == "forward":
        a = min(b["B_r"], n)
        return {"forward": 2 * a * d + (2 * a + 2 * d if b["mode"] else 3 * a + d)}
    c, a = min(b["B_c"], n), min(b["B_r"], n)
    if b["dS"]:
        return {"D": count_rowsum_product(n, d, b["B_c"]).peak_fast_words,
                "A": 4 * c * d + 2 * d + 3, "B": a * d + a + d}
    return {"A": 4 * c * d + 2 * d + 2,
            "B": 3 * a * d + (2 * a + 2 * d if b["mode"] else 3 * a + d)}


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest b in [lo, hi] with fits(b), given fits(lo) and fits decreasing in b."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def _fits(peak: Callable[[int, int], int], mode: int, M: int, block: int) -> bool:
    return peak(block, mode) <= M


def _best_mode(n: int, d: int, M: int, peak: Callable[[int, int], int]) -> tuple[int, int]:
    """(block, mode) with the largest fitting block over the two modes (ties: mode 1, which
    holds no score vector), or (0, 0) when neither fits a one-row block."""
    best = (0, 0)
    for mode in (1, 0):
        if peak(1, mode) <= M:
            a = _largest(1, n, functools.partial(_fits, peak, mode, M))
            if a > best[0]:
                best = (a, mode)
    return best


def lean_block_sizes(n: int, d: int, M: int, pass_: str = "backward") -> dict[str, int]:
    """Blocks of least I/O under M (module docstring): forward ``{"B_r", "mode"}``, backward
    ``{"B_c", "B_r", "dS", "mode"}``.

    Raises
    ------
    CacheTooSmallError
        If M < 3d + 3 (forward) or M < 6d + 2 (backward).

    >>> lean_block_sizes(4096, 64, 4612, "forward"), lean_block_sizes(4096, 64, 11216)
    ({'B_r': 34, 'mode': 1}, {'B_c': 43, 'B_r': 57, 'dS': 0, 'mode': 1})
    """
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    need = 3 * d + 3 if _check_pass(pass_) == "forward" else 6 * d + 2
    if M < need:
        raise CacheTooSmallError(f"M={M} is too small for flash2-lean {pass_}: it needs "
                                 f"{need} words at d={d}")
    if pass_ == "forward":
        a, mode = _best_mode(n, d, M, lambda x, m: lean_peaks("forward", n, d,
                                                              {"B_r": x, "mode": m})["forward"])
        return {"B_r": a, "mode": mode}
    best: tuple[int, int, dict[str, int]] | None = None
    c0 = _largest(1, n, lambda c: 4 * c * d + 2 * d + 2 <= M)
    a0, mode = _best_mode(n, d, M, lambda x, m: 3 * x * d + (2 * x + 2 * d if m else 3 * x + d))
    candidates = [{"B_c": c0, "B_r": a0, "dS": 0, "mode": mode}]
    c1 = _largest(1, n, lambda c: max(4 * c * d + 2 * d + 3,
                                      count_rowsum_product(n, d, c).peak_fast_words) <= M) \
        if 6 * d + 3 <= M else 0
    if c1:
        a1 = _largest(1, n, lambda a: a * d + a + d <= M)
        candidates.append({"B_c": c1, "B_r": a1, "dS": 1, "mode": 0})
    for b in candidates:
        if b["B_r"] < 1:
            continue
        c = _count("backward", n, d, b)
        key = (c.io, c.flops, b)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None  # M >= 6d + 2 fits the dS = 0 passes with one-row blocks
    return best[2]


def _sides(pass_: str, n: int, d: int, M: int, b: Mapping[str, int] | None) -> dict[str, int]:
    b = lean_block_sizes(n, d, M, pass_) if b is None else dict(b)
    keys = ("B_r", "mode") if _check_pass(pass_) == "forward" else ("B_c", "B_r", "dS", "mode")
    out = {k: positive_int(k, b[k]) if k.startswith("B") else int(b[k]) for k in keys}
    for flag in ("dS", "mode"):
        if flag in out and out[flag] not in (0, 1):
            raise CacheOverflowError(f"flash2-lean: {flag}={out[flag]!r} must be 0 or 1")
    return out


# ---- FLOPs per step (one definition, used by the executors and the closed forms) ----------
def _fwd_step_flops(a: int, d: int, mode: int) -> int:
    """One key row against an a-row query block: the scores (2ad each time they are formed:
    three times in mode 1, once in mode 0), the rescaled O (ad) and pv (2ad), ℓ and m."""
    return (3 * 2 * a * d if mode else 2 * a * d + a) + 3 * a * d + 9 * a


def _dq_step_flops(a: int, d: int) -> int:
    """One key row of the dQ pass: s (2ad), dP (2ad), p and ds (4a), dQ (2ad)."""
    return 6 * a * d + 4 * a


def _kv_step_flops(c: int, d: int) -> int:
    """One query row of the KV-outer pass: p inside dV (2cd + 2c) and dV (2cd); p and dS
    inside dK (4cd + 4c) and dK (2cd)."""
    return 10 * c * d + 6 * c


def _count(pass_: str, n: int, d: int, b: Mapping[str, int]) -> Counts:
    """Unmasked counts: the masked ones at the full mask (one definition)."""
    from attnio.algorithms.masks import Mask

    return _masked(pass_, n, d, b, Mask.full())


def _peak(g: "TileClasses", fn: Callable[[int, int], int], floor: int) -> int:
    return max([floor] + [fn(r, c) for r, c in g.shapes])


def _masked(pass_: str, n: int, d: int, b: Mapping[str, int], mask: "Mask") -> Counts:
    sizes = tuple(b.items())
    if pass_ == "forward":
        a, mode = min(b["B_r"], n), b["mode"]
        keys = tile_classes(mask, n, a, 1)          # (query block, key row) with a kept entry
        extra = (lambda r: 2 * r + 2 * d) if mode else (lambda r: 3 * r + d)
        return Counts(n * d + keys.total(lambda r, c: 2 * d), n * d + n,
                      keys.total(lambda r, c: _fwd_step_flops(r, d, mode)) + n * d + 2 * n,
                      _peak(keys, lambda r, c: 2 * r * d + extra(r), 2 * a * d + 2 * a), sizes)
    c0, a0, dS, mode = min(b["B_c"], n), min(b["B_r"], n), b["dS"], b["mode"]
    rows = tile_classes(mask, n, 1, c0)              # (query row, key block): pass A
    keys = tile_classes(mask, n, a0, 1)              # (query block, key row): pass B
    pass_a = Counts(2 * n * d + rows.total(lambda r, c: 2 * d + 2),
                    2 * n * d + dS * rows.total(lambda r, c: c),
                    rows.total(lambda r, c: _kv_step_flops(c, d) + dS * 3 * c),
                    _peak(rows, lambda r, c: 4 * c * d + 2 * d + 2 + dS, 4 * c0 * d))
    if dS:
        pass_b = Counts(keys.total(lambda r, c: r + d), n * d,
                        keys.total(lambda r, c: 2 * r * d),
                        _peak(keys, lambda r, c: r * d + r + d, a0 * d))
        total = sequence_counts(count_rowsum_product(n, d, b["B_c"]), pass_a, pass_b,
                                block_sizes=sizes)
    else:
        extra = (lambda r: 2 * r + 2 * d) if mode else (lambda r: 3 * r + d)
        pass_b = Counts(3 * n * d + n + keys.total(lambda r, c: 2 * d), n + n * d,
                        2 * n * d + keys.total(lambda r, c: _dq_step_flops(r, d)),
                        _peak(keys, lambda r, c: 3 * r * d + extra(r),
                              3 * a0 * d + 2 * a0), sizes)
        total = sequence_counts(pass_b, pass_a, block_sizes=sizes)
    return total


def count_lean(pass_: str, n: int, d: int, M: int, blocks_: Mapping[str, int] | None = None
               ) -> Counts:
    """Exact counts of ``flash2-lean`` (module docstring); ``blocks_`` defaults to
    :func:`lean_block_sizes`; blocks whose peak exceeds M raise
    :class:`~attnio.exceptions.CacheOverflowError`.

    >>> count_lean("backward", 4096, 64, 11216).io < 93_351_936   # flash2-split's count
    True
    """
    b = _sides(pass_, n, d, M, blocks_)
    counted = _count(pass_, n, d, b)
    if counted.peak_fast_words > M:
        raise CacheOverflowError(f"flash2-lean {pass_} blocks {b} need "
                                 f"{counted.peak_fast_words} words > M={M}")
    return counted


def count_masked_lean(pass_: str, n: int, d: int, M: int, mask: "Mask") -> Counts:
    """Exact counts of a masked ``flash2-lean`` run (module docstring): the unmasked block
    rule, then sums over the non-empty tiles of the (a, 1) and (1, c) grids.

    >>> from attnio.algorithms.masks import Mask
    >>> count_masked_lean("backward", 64, 8, 256, Mask.full()) == count_lean("backward", 64, 8, 256)
    True
    """
    count_lean(pass_, n, d, M)  # raises like the unmasked count
    return _masked(pass_, n, d, _sides(pass_, n, d, M, None), mask)


# ---- the executors --------------------------------------------------------------------------
def _scores(q: np.ndarray, k: np.ndarray, keep: np.ndarray | None, tau: float) -> np.ndarray:
    """τ·q kᵀ (a×1 for a block against one key row), −∞ where masked."""
    s = tau * (q @ k.T)
    return s if keep is None else np.where(keep, s, -np.inf)


def _base(m: np.ndarray, s: np.ndarray) -> np.ndarray:
    new = np.maximum(m, s)
    return np.where(np.isfinite(new), new, 0.0)


def _new_sum(ell: np.ndarray, m: np.ndarray, s: np.ndarray) -> np.ndarray:
    base = _base(m, s)
    return ell * np.exp(m - base) + np.exp(s - base)


def _new_out(o: np.ndarray, m: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    base = _base(m, s)
    return o * np.exp(m - base)[:, None] + np.exp(s - base)[:, None] * v


def _prob(s: np.ndarray, L: np.ndarray) -> np.ndarray:
    """exp(s − L), 0 on fully masked rows (L = −∞) and masked entries (s = −∞)."""
    shift = np.where(np.isfinite(L), L, 0.0)
    return np.exp(s - (shift[:, None] if s.ndim == 2 and s.shape[0] == L.shape[0] else shift))


def _divide(o: np.ndarray, ell: np.ndarray) -> np.ndarray:
    return np.divide(o, ell[:, None], out=np.zeros_like(o), where=ell[:, None] > 0)


def _logsumexp(ell: np.ndarray, m: np.ndarray) -> np.ndarray:
    live = ell > 0
    return np.where(live, np.where(live, m, 0.0) + np.log(np.where(live, ell, 1.0)), -np.inf)


def lean_forward(mem: TwoLevelMemory, *, B_r: int, mode: int, mask: np.ndarray | None = None,
                 tau: float = 1.0) -> None:
    """slow Q, K, V → O and L = m + log ℓ (module docstring)."""
    n, d = mem.slow["Q"].shape
    mem.new_slow("O", (n, d))
    mem.new_slow("L", (n,))
    for i0, a in blocks(n, B_r):
        rows = slice(i0, i0 + a)
        mem.load("Q_I", "Q", (rows, slice(None)))
        mem.allocate("O_I", (a, d))
        mem.allocate("l_I", (a,))
        mem.allocate("m_I", (a,), fill=-np.inf)
        for j in kept_key_rows(mask, rows, n):
            key = slice(j, j + 1)
            keep = None if mask is None else mask[rows, j]

            def s_of(q: np.ndarray, k: np.ndarray, kp: np.ndarray | None = keep) -> np.ndarray:
                return _scores(q, k, None if kp is None else kp[:, None], tau)[:, 0]

            if mode:
                mem.load("k_j", "K", (key, slice(None)))
                mem.load("v_j", "V", (key, slice(None)))
                mem.compute("l_I", ("l_I", "m_I", "Q_I", "k_j"),
                            lambda ell, m, q, k: _new_sum(ell, m, s_of(q, k)),
                            flops=2 * a * d + 4 * a)
                mem.compute("O_I", ("O_I", "m_I", "Q_I", "k_j", "v_j"),
                            lambda o, m, q, k, v: _new_out(o, m, s_of(q, k), v),
                            flops=2 * a * d + 3 * a * d + 4 * a)
                mem.compute("m_I", ("m_I", "Q_I", "k_j"),
                            lambda m, q, k: np.maximum(m, s_of(q, k)), flops=2 * a * d + a)
                mem.free("k_j", "v_j")
            else:
                mem.load("k_j", "K", (key, slice(None)))
                mem.allocate("s", (a,))
                mem.compute("s", ("Q_I", "k_j"), lambda q, k: s_of(q, k), flops=2 * a * d + a)
                mem.free("k_j")
                mem.load("v_j", "V", (key, slice(None)))
                mem.compute("l_I", ("l_I", "m_I", "s"), _new_sum, flops=4 * a)
                mem.compute("O_I", ("O_I", "m_I", "s", "v_j"), _new_out,
                            flops=3 * a * d + 4 * a)
                mem.compute("m_I", ("m_I", "s"), np.maximum, flops=a)
                mem.free("v_j", "s")
        mem.compute("O_I", ("O_I", "l_I"), _divide, flops=a * d)
        mem.compute("l_I", ("l_I", "m_I"), _logsumexp, flops=2 * a)
        mem.store("O_I", "O", (rows, slice(None)))
        mem.store("l_I", "L", rows)
        mem.free("Q_I", "O_I", "l_I", "m_I")


def _dq_pass(mem: TwoLevelMemory, n: int, d: int, B_r: int, mode: int,
             mask: np.ndarray | None, tau: float) -> None:
    """Pass B (dS = 0), run first: D_I from the resident dO_I and a loaded O_I, then dQ_I
    with each kept key row streamed once per query block."""
    mem.new_slow("D", (n,))
    for i0, a in blocks(n, B_r):
        rows = slice(i0, i0 + a)
        mem.load("dO_I", "dO", (rows, slice(None)))
        mem.load("O_I", "O", (rows, slice(None)))
        mem.allocate("D_I", (a,))
        mem.compute("D_I", ("dO_I", "O_I"), lambda do, o: (do * o).sum(axis=1), flops=2 * a * d)
        mem.store("D_I", "D", rows)
        mem.free("O_I")
        mem.load("Q_I", "Q", (rows, slice(None)))
        mem.load("L_I", "L", rows)
        mem.allocate("dQ_I", (a, d))
        for j in kept_key_rows(mask, rows, n):
            key = slice(j, j + 1)
            keep = None if mask is None else mask[rows, key]

            def p_of(q: np.ndarray, k: np.ndarray, L: np.ndarray,
                     kp: np.ndarray | None = keep) -> np.ndarray:
                return _prob(_scores(q, k, kp, tau), L)           # a×1

            if mode:
                mem.load("k_j", "K", (key, slice(None)))
                mem.load("v_j", "V", (key, slice(None)))
                mem.compute("dQ_I", ("dQ_I", "Q_I", "dO_I", "L_I", "D_I", "k_j", "v_j"),
                            lambda dq, q, do, L, D, k, v: dq + tau * (
                                (p_of(q, k, L) * (do @ v.T - D[:, None])) @ k),
                            flops=_dq_step_flops(a, d))
                mem.free("k_j", "v_j")
            else:
                mem.load("v_j", "V", (key, slice(None)))
                mem.allocate("x", (a, 1))
                mem.compute("x", ("dO_I", "v_j", "D_I"), lambda do, v, D: do @ v.T - D[:, None],
                            flops=2 * a * d + a)
                mem.free("v_j")
                mem.load("k_j", "K", (key, slice(None)))
                mem.compute("x", ("x", "Q_I", "k_j", "L_I"),
                            lambda x, q, k, L: x * p_of(q, k, L), flops=2 * a * d + 3 * a)
                mem.compute("dQ_I", ("dQ_I", "x", "k_j"), lambda dq, x, k: dq + tau * (x @ k),
                            flops=2 * a * d)
                mem.free("k_j", "x")
        mem.store("dQ_I", "dQ", (rows, slice(None)))
        mem.free("dO_I", "D_I", "Q_I", "L_I", "dQ_I")


def _kv_pass(mem: TwoLevelMemory, n: int, d: int, B_c: int, write_ds: bool,
             mask: np.ndarray | None, tau: float) -> None:
    """Pass A: K_J, V_J, dK_J, dV_J resident; each query row with a kept entry streamed once
    per key block; p and ds recomputed inside each update (with ``write_ds``, τ·ds formed in
    a c-word tile and stored into slow dS)."""
    for j0, c in blocks(n, B_c):
        keys = slice(j0, j0 + c)
        open_key_block(mem, keys, c, d, suffix="J")
        for i in range(n):
            keep = None if mask is None else mask[i:i + 1, keys]
            if keep is not None and not keep.any():
                continue
            row = slice(i, i + 1)
            for tile, array in (("q_i", "Q"), ("dO_i", "dO")):
                mem.load(tile, array, (row, slice(None)))
            mem.load("L_i", "L", row)
            mem.load("D_i", "D", row)

            def p_of(q: np.ndarray, k: np.ndarray, L: np.ndarray,
                     kp: np.ndarray | None = keep) -> np.ndarray:
                return _prob(_scores(q, k, kp, tau), L)           # 1×c

            def ds_of(q: np.ndarray, k: np.ndarray, L: np.ndarray, do: np.ndarray,
                      v: np.ndarray, D: np.ndarray, kp: np.ndarray | None = keep) -> np.ndarray:
                return p_of(q, k, L, kp) * (do @ v.T - D[0])

            mem.compute("dV_J", ("dV_J", "q_i", "K_J", "L_i", "dO_i"),
                        lambda dv, q, k, L, do: dv + p_of(q, k, L).T @ do,
                        flops=4 * c * d + 2 * c)
            if write_ds:  # τ·ds one word at a time: formed, added into dK_J's row, stored
                for jj in range(c):  # masked entries: p = 0, so ds = 0 is stored
                    mem.allocate("ds", (1, 1))
                    mem.compute("ds", ("q_i", "K_J", "L_i", "dO_i", "V_J", "D_i"),
                                lambda q, k, L, do, v, D, jj=jj, kp=keep: tau * ds_of(
                                    q, k[jj:jj + 1], L, do, v[jj:jj + 1], D,
                                    None if kp is None else kp[:, jj:jj + 1]),
                                flops=4 * d + 7)
                    mem.compute("dK_J", ("dK_J", "ds", "q_i"),
                                lambda dk, ds, q, jj=jj: _add_row(dk, jj, ds[0, 0] * q[0]),
                                flops=2 * d)
                    mem.store("ds", "dS", (row, slice(j0 + jj, j0 + jj + 1)))
                    mem.free("ds")
            else:
                mem.compute("dK_J", ("dK_J", "q_i", "K_J", "L_i", "dO_i", "V_J", "D_i"),
                            lambda dk, q, k, L, do, v, D: dk + tau * (
                                ds_of(q, k, L, do, v, D).T @ q),
                            flops=6 * c * d + 4 * c)
            mem.free("q_i", "dO_i", "L_i", "D_i")
        mem.store("dK_J", "dK", (keys, slice(None)))
        mem.store("dV_J", "dV", (keys, slice(None)))
        mem.free("K_J", "V_J", "dK_J", "dV_J")


def _add_row(m: np.ndarray, row: int, value: np.ndarray) -> np.ndarray:
    out = m.copy()
    out[row] += value
    return out


def lean_backward(mem: TwoLevelMemory, *, B_c: int, B_r: int, dS: int, mode: int,
                  mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """slow Q, K, V, O, dO, L → dQ, dK, dV (and D; with ``dS = 1`` also dS): module
    docstring."""
    n, d = mem.slow["Q"].shape
    for name in ("dQ", "dK", "dV"):
        mem.new_slow(name, (n, d))
    if dS:
        mem.new_slow("dS", (n, n))
        stream_rowsum_product(mem, "dO", "O", "D", block=B_c)
        _kv_pass(mem, n, d, B_c, True, mask, tau)
        dq_product_pass(mem, n, d, B_r, mask)
    else:
        _dq_pass(mem, n, d, B_r, mode, mask, tau)
        _kv_pass(mem, n, d, B_c, False, mask, tau)
