r"""Attention masks as specifications: Z_in and Z_QK, tile occupancy, and ``--mask`` parsing.

One definition of the sparse bound's sizes, used by every command (``attnio bounds``,
``attnio simulate``, ``attnio report`` through :func:`attnio.symbolic.evaluate.default_instance`).

The sparse class bound (catalogue id ``sparse.lower``; Li, Liang, Shi, Song, Yue, Zhang,
arXiv 2410.09397, Thm 4.5 via Pagh & Stöckel, ESA 2014 — RECONSTRUCTED, the theorem text is
not available) reads

.. math::

    Q \;=\; \Omega\Big(\min\Big\{\frac{Z_{in}^2}{M},\ \frac{Z_{in}\sqrt{Z_{QK}}}{\sqrt M}\Big\}\Big),
    \qquad \text{branches cross at } M = Z_{in}^2/Z_{QK}.

It is a worst case over the CLASS of masks with these counts (witnessed by random /
expander-like patterns, as Pagh & Stöckel's sparse-product bound), NOT a lower bound for a
particular mask: masked FlashAttention-2 backward with ``window:1`` (d = 8, M = 64) moves
≈ 91n words, 0.089 × the formula at n = 2^20 (issue 21). Runs print it as
``sparse_class_bound`` and never compare an algorithm with it; the bound for THIS mask is
``mask_lower_bound`` (:mod:`attnio.proofs.mask_bounds`: compulsory I/O of the needed rows and
the segment argument on the kept pairs, certified by the claims ``mask.*``).

For a boolean mask :math:`\mathcal M\in\{0,1\}^{n\times n}` on :math:`S = QK^\top`
(``mask[i, j]`` True = keep, as in :mod:`attnio.algorithms.reference`) and the set of operands
declared sparse (a subset of ``{"Q", "K"}``), attnio defines (RECONSTRUCTED):

* :math:`Z_{QK} = |\mathcal M|`, the number of kept entries of :math:`QK^\top` (the output
  nonzeros of the semiring product);
* :math:`Z_{in} = d\cdot\max(\rho_Q, \rho_K)`: the nonzeros *per input operand*, where
  :math:`\rho_Q` is the number of rows of Q the product needs — the rows with at least one kept
  entry when Q is declared sparse (rows of a fully masked query are structurally zero), all
  :math:`n` rows otherwise — and :math:`\rho_K` likewise for the columns of the mask and K.

Per operand, not summed: the catalogue's dense instance is :math:`Z_{in} = nd`,
:math:`Z_{QK} = n^2` (Pagh & Stöckel count the nonzeros of both inputs together, which would
give :math:`2nd`; that reading is not the catalogue's). With the default (no operand sparse)
:math:`Z_{in} = nd` for every mask and only :math:`Z_{QK}` changes; the dense instance is the
mask ``full``, not a special case.

Masks (``n`` is the sequence length; constructors from :mod:`attnio.algorithms.reference`):

* ``full`` — every entry kept: :math:`Z_{QK} = n^2`.
* ``causal`` — :math:`j\le i`: :math:`Z_{QK} = n(n+1)/2`.
* ``window:W`` — causal sliding window :math:`i-W < j \le i`, :math:`W\ge 1`:
  :math:`Z_{QK} = W(W+1)/2 + (n-W)W` for :math:`W\le n`, else :math:`n(n+1)/2`.
* ``block:b:PATTERN`` — a :math:`\lceil n/b\rceil`-square boolean block pattern; the **last
  block is partial** when b does not divide n (size :math:`n-(\lceil n/b\rceil-1)b`):
  :math:`Z_{QK}=\sum_{(I,J)\ \mathrm{kept}} s_I s_J`.
* an arbitrary n×n boolean array: :math:`Z_{QK}` = its number of True entries.

Examples
--------
>>> sizes = mask_sizes(Mask.causal(), n=4, d=2)
>>> sizes.Z_in, sizes.Z_QK
(8, 10)
>>> mask_sizes(Mask.full(), 4096, 64).Z_QK == 4096 ** 2
True
>>> parse_mask("window:3").label
'window:3'
>>> Mask.block_sparse(2, [[True, False], [False, True]], sparse_operands=("Q",)).z_qk(3)
5

Size: a little over 600 lines: one mask type with its four closed-form tile grids (full,
causal, window, block-sparse), the grid walk for arbitrary masks that checks them, and the
parser of ``--mask``, which belong together (a new mask kind touches all three).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from attnio.algorithms.reference import block_sparse_mask, causal_mask, sliding_window_mask
from attnio.exceptions import InvalidInputError
from attnio.input_files import json_number_hooks, refuse_non_regular, regular_file_opener
from attnio.validation import describe, one_line, parse_positive_int, positive_int

__all__ = [
    "Mask",
    "MaskSizes",
    "TileClasses",
    "mask_sizes",

    "parse_mask",
    "add_mask_argument",
    "mask_from_args",
    "tile_classes",
    "tile_occupancy",
    "column_block_rows",
    "floor_sum",
    "MAX_PATTERN_BYTES",
]

#: Largest block-pattern file ``parse_mask`` reads (bytes).
MAX_PATTERN_BYTES = 4 * 1024 * 1024
_OPERANDS = ("Q", "K")


def _positive(name: str, value: object) -> int:
    return positive_int(name, value)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, eq=False)
class Mask:
    """A mask specification: its kind, parameters and which operands are sparse.

    Build with :meth:`full`, :meth:`causal`, :meth:`window`, :meth:`block_sparse` or
    :meth:`from_array`; :meth:`array` gives the n×n boolean array (True = keep).
    """

    kind: str
    window_size: int | None = None
    block: int | None = None
    pattern: tuple[tuple[bool, ...], ...] | None = None
    values: np.ndarray | None = field(default=None, compare=False, repr=False)
    sparse_operands: tuple[str, ...] = ()

    def _key(self) -> tuple:
        arr = None if self.values is None else (self.values.shape, self.values.tobytes())
        return (self.kind, self.window_size, self.block, self.pattern, arr, self.sparse_operands)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # ---- constructors ---------------------------------------------------------------------
    @classmethod
    def full(cls, sparse_operands: Iterable[str] = ()) -> "Mask":
        """Every entry kept (the dense instance)."""
        return cls("full", sparse_operands=_operands(sparse_operands))

    @classmethod
    def causal(cls, sparse_operands: Iterable[str] = ()) -> "Mask":
        """Keep j ≤ i."""
        return cls("causal", sparse_operands=_operands(sparse_operands))

    @classmethod
    def window(cls, window_size: int, sparse_operands: Iterable[str] = ()) -> "Mask":
        """Causal sliding window: keep i − W < j ≤ i (W ≥ 1)."""
        window_size = positive_int("window W", window_size)
        return cls("window", window_size=window_size, sparse_operands=_operands(sparse_operands))

    @classmethod
    def block_sparse(cls, block: int, pattern: Any, sparse_operands: Iterable[str] = ()) -> "Mask":
        """Block size ``block`` and a square boolean block pattern (last block partial)."""
        block = _positive("block size b", block)
        arr = np.asarray(pattern)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
            raise InvalidInputError(f"block pattern shape {arr.shape} must be a non-empty square")
        if arr.dtype != bool:
            raise InvalidInputError(f"block pattern dtype {arr.dtype} must be boolean")
        rows = tuple(tuple(bool(x) for x in row) for row in arr)
        return cls("block", block=block, pattern=rows, sparse_operands=_operands(sparse_operands))

    @classmethod
    def from_array(cls, values: Any, sparse_operands: Iterable[str] = ()) -> "Mask":
        """An arbitrary square boolean array."""
        arr = np.asarray(values)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
            raise InvalidInputError(f"mask shape {arr.shape} must be a non-empty square n x n")
        if arr.dtype != bool:
            raise InvalidInputError(f"mask dtype {arr.dtype} must be boolean")
        arr = arr.copy()
        arr.setflags(write=False)
        return cls("array", values=arr, sparse_operands=_operands(sparse_operands))

    # ---- views ----------------------------------------------------------------------------
    @property
    def label(self) -> str:
        """Short name: ``full``, ``causal``, ``window:W``, ``block:b:TxT``, ``array:nxn``."""
        if self.kind == "window":
            return f"window:{self.window_size}"
        if self.kind == "block":
            t = len(self.pattern or ())
            return f"block:{self.block}:{t}x{t}"
        if self.kind == "array":
            return f"array:{self.values.shape[0]}x{self.values.shape[1]}"  # type: ignore[union-attr]
        return self.kind

    def check(self, n: int) -> int:
        """Validate the mask against sequence length ``n`` (shape rules); return n."""
        n = _positive("n", n)
        if self.kind == "block":
            t = _ceil_div(n, self.block)  # type: ignore[arg-type]
            if len(self.pattern) != t:  # type: ignore[arg-type]
                raise InvalidInputError(
                    f"block pattern is {len(self.pattern)}x{len(self.pattern)} but n={n}, "  # type: ignore[arg-type]
                    f"b={self.block} needs ceil(n/b) = {t} (the last block is partial)")
        if self.kind == "array" and self.values.shape != (n, n):  # type: ignore[union-attr]
            raise InvalidInputError(f"mask shape {self.values.shape} must be {(n, n)}")  # type: ignore[union-attr]
        return n

    def array(self, n: int) -> np.ndarray:
        """The n×n boolean array (True = keep)."""
        n = self.check(n)
        if self.kind == "full":
            return np.ones((n, n), dtype=bool)
        if self.kind == "causal":
            return causal_mask(n)
        if self.kind == "window":
            return sliding_window_mask(n, self.window_within(n))
        if self.kind == "block":
            assert self.block is not None  # the block kind carries its block size
            # a block larger than n is one (partial) block of side n: expand that, not b x b
            side = min(self.block, n)
            return block_sparse_mask(n, side, np.array(self.pattern, dtype=bool))
        return np.array(self.values, dtype=bool)

    # ---- sizes ----------------------------------------------------------------------------
    def _block_sizes(self, n: int) -> np.ndarray:
        """The ⌈n/b⌉ block sizes along a side (the last one partial), as Python ints: the
        sums below reach n², past int64 once n > 3·10⁹, and b itself may exceed int64."""
        t = _ceil_div(n, self.block)  # type: ignore[arg-type]
        sizes = np.full(t, self.block, dtype=object)
        sizes[-1] = n - (t - 1) * self.block  # type: ignore[operator]
        return sizes

    def window_within(self, n: int) -> int:
        """A window mask's W clipped to n (a window of n or more keeps what causal keeps): the
        value every per-block formula uses, so a 250-digit W never reaches a numpy int.

        >>> Mask.window(10**250).window_within(64), Mask.window(3).window_within(64)
        (64, 3)
        """
        if self.window_size is None:
            raise ValueError(f"mask {self.kind!r} has no window")
        return min(int(self.window_size), n)

    def z_qk(self, n: int) -> int:
        """Kept entries of the n×n mask, in closed form (Python int)."""
        n = self.check(n)
        if self.kind == "full":
            return n * n
        if self.kind == "causal":
            return n * (n + 1) // 2
        if self.kind == "window":
            w = self.window_size
            return n * (n + 1) // 2 if w >= n else w * (w + 1) // 2 + (n - w) * w  # type: ignore[operator]
        if self.kind == "block":
            s = self._block_sizes(n)
            p = np.array(self.pattern, dtype=bool)
            # Σ over kept blocks of s_I·s_J = (kept rows' sizes) summed per column, exactly
            return int(((p * s[:, None]).sum(axis=0) * s).sum())
        assert self.values is not None  # the remaining kind carries its mask array
        return int(np.count_nonzero(self.values))

    def needed_rows(self, n: int) -> tuple[int, int]:
        """(ρ_Q, ρ_K): rows of Q with a kept entry, columns (rows of K) with a kept entry."""
        n = self.check(n)
        if self.kind in {"full", "causal", "window"}:
            return n, n  # the diagonal is kept
        if self.kind == "block":
            s = self._block_sizes(n)
            p = np.array(self.pattern, dtype=bool)
            return int(s[p.any(axis=1)].sum()), int(s[p.any(axis=0)].sum())
        return (int(np.count_nonzero(self.values.any(axis=1))),  # type: ignore[union-attr]
                int(np.count_nonzero(self.values.any(axis=0))))  # type: ignore[union-attr]

    def z_in(self, n: int, d: int) -> int:
        """d·max(ρ_Q, ρ_K), counting only the operands declared sparse as sparse."""
        d = _positive("d", d)
        rho_q, rho_k = self.needed_rows(n)
        rho_q = rho_q if "Q" in self.sparse_operands else n
        rho_k = rho_k if "K" in self.sparse_operands else n
        return d * max(rho_q, rho_k)


def _operands(names: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(sorted(set(names)))
    for name in chosen:
        if name not in _OPERANDS:
            raise InvalidInputError(f"sparse operand {name!r} must be one of Q, K")
    return chosen


@dataclass(frozen=True)
class MaskSizes:
    """Z_in and Z_QK of a mask at (n, d) (Python ints)."""

    mask: str
    Z_in: int
    Z_QK: int


def mask_sizes(mask: Mask, n: int, d: int) -> MaskSizes:
    """Z_in and Z_QK of ``mask`` at sequence length ``n``, head dimension ``d``.

    >>> mask_sizes(Mask.window(2), 5, 3)
    MaskSizes(mask='window:2', Z_in=15, Z_QK=9)
    """
    return MaskSizes(mask.label, mask.z_in(n, d), mask.z_qk(n))


# ---- tiles ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TileClasses:
    """Non-empty tiles of a (B_r, B_c) grid over the n×n mask, by tile shape.

    ``counts`` maps (rows r, columns c) to the number of tiles of that shape holding at least
    one kept entry (at most four shapes: the last row/column block may be partial).
    """

    counts: tuple[tuple[tuple[int, int], int], ...]

    def total(self, weight: Any) -> int:
        """Σ over non-empty tiles of ``weight(r, c)`` (a Python int)."""
        return sum(k * int(weight(r, c)) for (r, c), k in self.counts)

    @property
    def shapes(self) -> list[tuple[int, int]]:
        """The tile shapes that occur among the non-empty tiles."""
        return [rc for rc, k in self.counts if k]


def _classes(cols_full: np.ndarray, cols_last: np.ndarray, br: int, bc: int,
             n: int) -> TileClasses:
    """Aggregate per-row-block counts (tiles with c = b_c, tiles with the last column size)."""
    tr, tc = _ceil_div(n, br), _ceil_div(n, bc)
    r_last, c_last = n - (tr - 1) * br, n - (tc - 1) * bc
    out: dict[tuple[int, int], int] = {}
    for r_idx, r in ((slice(0, tr - 1), br), (slice(tr - 1, tr), r_last)):
        for vec, c in ((cols_full, bc), (cols_last, c_last)):
            k = int(vec[r_idx].sum())
            if k:
                out[(r, c)] = out.get((r, c), 0) + k
    return TileClasses(tuple(sorted(out.items())))


def floor_sum(count: int, m: int, a: int, b: int) -> int:
    r""":math:`\sum_{i=0}^{count-1} \lfloor (a i + b)/m \rfloor` exactly, in O(log) steps
    (the Euclid-like reduction; ``a, b >= 0``, ``m >= 1``).

    >>> floor_sum(5, 3, 2, 1) == sum((2 * i + 1) // 3 for i in range(5))
    True
    """
    total = 0
    while count > 0:
        if a >= m:
            total += (count - 1) * count // 2 * (a // m)
            a %= m
        if b >= m:
            total += count * (b // m)
            b %= m
        y_max = a * count + b
        if y_max < m:
            break
        count, b = divmod(y_max, m)
        m, a = a, m
    return total


def _band_classes(mask: Mask, n: int, br: int, bc: int) -> TileClasses:
    r"""Closed form for full / causal / window masks (O(log n) integer arithmetic).

    Row block I (rows :math:`[IB_r, e_I]`, :math:`e_I = \min(n, (I+1)B_r) - 1`) keeps the
    columns :math:`[\max(0, IB_r - W + 1), e_I]` (causal: W = n), one interval, so its
    non-empty column blocks are :math:`\lfloor\max(0, IB_r-W+1)/B_c\rfloor \dots
    \lfloor e_I/B_c\rfloor`. Summed over the :math:`K = T_r - 1` full row blocks with
    :func:`floor_sum`; the last row block is done directly.
    """
    tr, tc = _ceil_div(n, br), _ceil_div(n, bc)
    r_last, c_last = n - (tr - 1) * br, n - (tc - 1) * bc
    k = tr - 1
    if mask.kind == "full":
        per_row, last_hits = k * tc, k
        last_count, last_has_last = tc, True
    else:
        w = n if mask.kind == "causal" else mask.window_within(n)
        hi_sum = floor_sum(k, bc, br, br - 1)                  # Σ ⌊((I+1)B_r − 1)/B_c⌋
        i0 = min(k, _ceil_div(w - 1, br)) if w > 1 else 0      # first I with I·B_r ≥ W − 1
        lo_sum = floor_sum(k - i0, bc, br, i0 * br - w + 1)    # Σ ⌊(I·B_r − W + 1)/B_c⌋
        per_row = hi_sum - lo_sum + k
        i1 = _ceil_div((tc - 1) * bc + 1, br) - 1              # first I reaching the last block
        last_hits = max(0, k - max(0, i1))
        lo_last = max(0, k * br - w + 1) // bc
        last_count, last_has_last = (n - 1) // bc - lo_last + 1, True
    out: dict[tuple[int, int], int] = {}
    for key, value in (((br, bc), per_row - last_hits), ((br, c_last), last_hits),
                       ((r_last, bc), last_count - int(last_has_last)),
                       ((r_last, c_last), int(last_has_last))):
        if value:
            out[key] = out.get(key, 0) + value
    return TileClasses(tuple(sorted(out.items())))


def _row_occupancy(mask: Mask, n: int, bc: int) -> np.ndarray:
    """Per mask row, the column blocks of width ``bc`` holding a kept entry (n × ⌈n/bc⌉),
    equal to ``tile_occupancy(mask.array(n), 1, bc)`` — for a block mask without the n×n
    array (4 GiB at n = 65,536): row t keeps what pattern row ⌊t/b⌋ keeps, and column block
    J touches pattern columns ⌊J·bc/b⌋ … ⌊(J·bc + bc − 1)/b⌋."""
    if mask.kind != "block":
        return tile_occupancy(mask.array(n), 1, bc)
    b = min(int(mask.block), n)  # type: ignore[arg-type]
    pattern = np.array(mask.pattern, dtype=bool)
    tc = _ceil_div(n, bc)
    first = (np.arange(tc, dtype=np.int64) * bc) // b
    last = (np.minimum(np.arange(1, tc + 1, dtype=np.int64) * bc, n) - 1) // b
    prefix = np.zeros((pattern.shape[0], pattern.shape[1] + 1), dtype=np.int64)
    prefix[:, 1:] = pattern.cumsum(axis=1)
    blocks = (prefix[:, last + 1] - prefix[:, first]) > 0          # pattern row × column block
    return blocks[np.arange(n) // b]


def tile_occupancy(mask_array: np.ndarray, br: int, bc: int) -> np.ndarray:
    """Walk the tile grid: entry (I, J) is True when tile (I, J) holds a kept entry."""
    n = mask_array.shape[0]
    rows = np.logical_or.reduceat(mask_array, np.arange(0, n, br), axis=0)
    return np.logical_or.reduceat(rows, np.arange(0, mask_array.shape[1], bc), axis=1)


def tile_classes(mask: Mask | None, n: int, br: int, bc: int) -> TileClasses:
    """Non-empty tiles of the (B_r, B_c) grid by shape, without building the n×n array.

    ``full``/``causal``/``window``: closed form (:func:`_band_classes`, sums of floors by
    :func:`floor_sum`, O(log n));
    ``block``: the tile grid compressed to its distinct pattern ranges; arbitrary arrays: a
    walk of the tile grid (:func:`tile_occupancy`).

    >>> tile_classes(Mask.causal(), 5, 2, 2).counts
    (((1, 1), 1), ((1, 2), 2), ((2, 2), 3))
    """
    mask = mask or Mask.full()
    n = mask.check(n)
    br, bc = _positive("B_r", min(br, n)), _positive("B_c", min(bc, n))
    tr, tc = _ceil_div(n, br), _ceil_div(n, bc)
    if mask.kind in {"full", "causal", "window"}:
        return _band_classes(mask, n, br, bc)
    if mask.kind == "block":
        b = mask.block
        assert b is not None  # a block mask carries its block size
        pattern = np.array(mask.pattern, dtype=bool)
        # 2-D prefix sums of the pattern: any kept block in a rectangle of pattern indices.
        pre = np.zeros((pattern.shape[0] + 1, pattern.shape[1] + 1), dtype=np.int64)
        pre[1:, 1:] = pattern.cumsum(0).cumsum(1)

        def ranges(t: int, bs: int) -> np.ndarray:
            s = np.arange(t, dtype=np.int64) * bs
            return np.stack([s // b, (np.minimum(s + bs, n) - 1) // b], axis=1)

        row_r, col_r = ranges(tr, br), ranges(tc, bc)
        ur, r_inv = np.unique(np.c_[row_r, np.arange(tr) == tr - 1], axis=0, return_inverse=True)
        uc, c_inv = np.unique(np.c_[col_r, np.arange(tc) == tc - 1], axis=0, return_inverse=True)
        a0, a1 = ur[:, 0][:, None], ur[:, 1][:, None] + 1
        b0, b1 = uc[:, 0][None, :], uc[:, 1][None, :] + 1
        occ = (pre[a1, b1] - pre[a0, b1] - pre[a1, b0] + pre[a0, b0]) > 0
        r_mult = np.bincount(r_inv.ravel(), minlength=len(ur))
        c_mult = np.bincount(c_inv.ravel(), minlength=len(uc))
        is_last_c = uc[:, 2].astype(bool)
        per_row_full = occ[:, ~is_last_c] @ c_mult[~is_last_c]
        per_row_last = occ[:, is_last_c] @ c_mult[is_last_c]
        out: dict[tuple[int, int], int] = {}
        r_last, c_last = n - (tr - 1) * br, n - (tc - 1) * bc
        for u in range(len(ur)):
            r = r_last if ur[u, 2] else br
            for c, k in ((bc, per_row_full[u]), (c_last, per_row_last[u])):
                k = int(k) * int(r_mult[u])
                if k:
                    out[(r, c)] = out.get((r, c), 0) + k
        return TileClasses(tuple(sorted(out.items())))
    occ = tile_occupancy(mask.array(n), br, bc)
    last = occ[:, -1].astype(np.int64)
    return _classes(occ.sum(axis=1) - last, last, br, bc, n)


def column_block_rows(mask: Mask | None, n: int, bc: int) -> np.ndarray:
    r"""Per column block of width ``bc`` (the last one partial), the number of mask rows with
    a kept entry in it: the non-empty tiles of each column of the (1, b_c) grid, as an int64
    array of length :math:`\lceil n/b_c\rceil`.

    Closed form for full (n), causal (block :math:`[a, b)`: rows :math:`i \ge a`, so
    :math:`n - a`) and window masks (rows :math:`a \le i < b - 1 + W`); block and array masks
    count the per-row occupancy (:func:`tile_occupancy` of 1-row tiles).

    >>> column_block_rows(Mask.causal(), 5, 2).tolist(), column_block_rows(Mask.window(2), 5, 2).tolist()
    ([5, 3, 1], [3, 3, 1])
    """
    mask = mask or Mask.full()
    n = mask.check(n)
    bc = _positive("B_c", min(bc, n))
    starts = np.arange(0, n, bc, dtype=np.int64)
    ends = np.minimum(starts + bc, n)
    if mask.kind == "full":
        return np.full(starts.shape, n, dtype=np.int64)
    if mask.kind == "causal":
        return n - starts
    if mask.kind == "window":
        w = mask.window_within(n)
        return np.minimum(n, ends - 1 + w) - starts
    return _row_occupancy(mask, n, bc).sum(axis=0).astype(np.int64)


# ---- CLI parsing ---------------------------------------------------------------------------
def stacked_tile_classes(mask: Mask | None, n: int, group: int, br: int, bc: int) -> TileClasses:
    r"""Non-empty tiles of the (B_r, B_c) grid over a K/V group's stacked mask: g·n rows, row
    h·n + t being head h at position t, which keeps the columns of mask row t.

    A row block covers one interval of mask rows, two (it wraps from one head into the next:
    :math:`[t_0, n-1] \cup [0, t_1]`) or every row (it spans a whole head). Band masks
    (full / causal / window) keep one interval of columns per interval of rows, so a row
    block's non-empty column blocks are the union of at most two intervals of block indices,
    counted in closed form with NumPy over the :math:`\lceil gn/B_r
ceil` row blocks; block
    and array masks OR the per-row column-block occupancy over each interval (prefix sums
    over the n mask rows). ``group = 1`` is :func:`tile_classes`.

    >>> stacked_tile_classes(Mask.causal(), 3, 2, 2, 2).counts
    (((2, 1), 2), ((2, 2), 3))
    """
    group = _positive("group", group)
    if group == 1:
        return tile_classes(mask, n, br, bc)
    mask = mask or Mask.full()
    n = mask.check(n)
    nq = group * n
    br, bc = _positive("B_r", min(br, nq)), _positive("B_c", min(bc, n))
    tr, tc = _ceil_div(nq, br), _ceil_div(n, bc)
    starts = np.arange(tr, dtype=np.int64) * br
    ends = np.minimum(starts + br, nq) - 1
    h0, h1 = starts // n, ends // n
    single, two = h0 == h1, h1 == h0 + 1
    # rows of interval A; interval B = [0, ends % n] only where the block wraps once (two)
    a_lo = np.where(single | two, starts % n, 0)
    a_hi = np.where(single, ends % n, n - 1)
    b_hi = ends % n
    if mask.kind in {"full", "causal", "window"}:
        def columns(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if mask.kind == "full":
                return np.zeros_like(lo), np.full_like(hi, n - 1)
            w = n if mask.kind == "causal" else mask.window_within(n)
            return np.maximum(0, lo - w + 1), hi

        a0, a1 = (x // bc for x in columns(a_lo, a_hi))
        b0, b1 = (x // bc for x in columns(np.zeros_like(b_hi), b_hi))
        overlap = np.maximum(0, np.minimum(a1, b1) - np.maximum(a0, b0) + 1)
        count = (a1 - a0 + 1) + np.where(two, (b1 - b0 + 1) - overlap, 0)
        has_last = (a1 == tc - 1) | (two & (b1 == tc - 1))
    else:
        occ = _row_occupancy(mask, n, bc).astype(np.int64)
        prefix = np.zeros((n + 1, tc), dtype=np.int64)
        prefix[1:] = occ.cumsum(axis=0)
        rows_a = (prefix[a_hi + 1] - prefix[a_lo]) > 0
        rows_b = (prefix[b_hi + 1] - prefix[0]) > 0
        occupied = rows_a | (two[:, None] & rows_b)
        count, has_last = occupied.sum(axis=1), occupied[:, -1]
    r_last, c_last = nq - (tr - 1) * br, n - (tc - 1) * bc
    out: dict[tuple[int, int], int] = {}
    for rows, r in ((slice(0, tr - 1), br), (slice(tr - 1, tr), r_last)):
        last = int(has_last[rows].sum())
        for key, value in (((r, bc), int(count[rows].sum()) - last), ((r, c_last), last)):
            if value:
                out[key] = out.get(key, 0) + value
    return TileClasses(tuple(sorted(out.items())))


def parse_mask(text: str, sparse_operands: Iterable[str] = ()) -> Mask:
    """``full`` | ``causal`` | ``window:W`` | ``block:B:PATTERN.json`` → :class:`Mask`.

    The pattern file holds a JSON list of lists of ``true``/``false`` (UTF-8, at most
    :data:`MAX_PATTERN_BYTES` bytes), square, of side ⌈n/B⌉ (checked by :meth:`Mask.check`).

    Raises
    ------
    InvalidInputError
        Unknown kind, W ≤ 0 or not an integer of ASCII digits (``window:٣`` and ``window:1_0``
        are refused like ``--n ٤٠٩٦``), B ≤ 0, a pattern file that is not a regular file (a
        FIFO, a device, a folder: refused before any read), unreadable / too large / non-UTF-8
        / non-JSON / non-boolean / non-square — one line naming the value.

    >>> parse_mask("window:0")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --mask window:0: window W=0 must be a positive integer
    """
    text = str(text).strip()
    kind, _, rest = text.partition(":")
    try:
        if kind == "full" and not rest:
            return Mask.full(sparse_operands)
        if kind == "causal" and not rest:
            return Mask.causal(sparse_operands)
        if kind == "window":
            return Mask.window(_spec_int("window W", rest), sparse_operands)
        if kind == "block":
            size, _, path = rest.partition(":")
            b = _spec_int("block size B", size)
            if not path:
                raise InvalidInputError("block mask needs a pattern file: block:B:PATTERN.json")
            return Mask.block_sparse(b, _read_pattern(path), sparse_operands)
    except InvalidInputError as exc:  # a long spec is shortened so that the rule stays seen
        shown = text if len(text) <= 200 else describe(text, 80)
        raise InvalidInputError(f"--mask {shown}: {exc}") from None
    raise InvalidInputError(
        f"--mask {text!r} is unknown; use full, causal, window:W or block:B:PATTERN.json")


_SPEC_INT = re.compile(r"[+-]?[0-9]+")


def _spec_int(label: str, text: str) -> int:
    """A positive integer of a ``--mask`` spec, by the rule of every integer on the command
    line (:func:`attnio.validation.parse_positive_int`): ASCII digits 0-9 only (``int()``
    would accept ``٣`` and ``1_0``), at most :data:`attnio.validation.MAX_INT_DIGITS` digits.

    >>> _spec_int("window W", "1_0")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: window W='1_0' must be a positive integer
    """
    if not _SPEC_INT.fullmatch(text.strip()):
        raise InvalidInputError(f"{label}={text!r} must be a positive integer")
    return parse_positive_int(label, text.strip())


def _read_pattern(path: str) -> np.ndarray:
    """The pattern file's boolean matrix. The file must be a regular file (a FIFO, a device,
    ``/dev/stdin`` on a pipe or a folder is refused before any read: it could block for
    ever — :func:`attnio.input_files.regular_file_opener`), of at most
    :data:`MAX_PATTERN_BYTES` bytes (so at most that many entries), and a number in it has
    at most :data:`attnio.validation.MAX_INT_DIGITS` digits (it is refused anyway: entries
    are true/false)."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise InvalidInputError(f"pattern file {path!r} is unreadable: it is a folder")
        refuse_non_regular(info.st_mode, what="pattern file", shown=repr(path))
        if info.st_size > MAX_PATTERN_BYTES:
            raise InvalidInputError(f"pattern file {path!r} has {info.st_size} bytes, more "
                                    f"than {MAX_PATTERN_BYTES}")
        with open(path, "rb", opener=regular_file_opener("pattern file", path)) as handle:
            raw = handle.read(MAX_PATTERN_BYTES + 1)
    except OSError as exc:
        raise InvalidInputError(f"pattern file {path!r} is unreadable: {exc.strerror}") from None
    except ValueError as exc:  # a NUL byte in the path
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(f"pattern file {path!r} is unreadable: "
                                f"{one_line(str(exc), 80)}") from None
    if len(raw) > MAX_PATTERN_BYTES:  # a file whose size stat() understates (/proc)
        raise InvalidInputError(
            f"pattern file {path!r} has more than {MAX_PATTERN_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"),
                          **json_number_hooks(f"pattern file {path!r}"))
    except UnicodeDecodeError:
        raise InvalidInputError(f"pattern file {path!r} is not UTF-8 text") from None
    except (json.JSONDecodeError, RecursionError):
        raise InvalidInputError(f"pattern file {path!r} is not valid JSON") from None
    if (not isinstance(data, list) or not data
            or not all(isinstance(row, list) and len(row) == len(data) for row in data)):
        raise InvalidInputError(f"pattern file {path!r} must hold a non-empty square list of lists")
    if not all(isinstance(x, bool) for row in data for x in row):
        raise InvalidInputError(f"pattern file {path!r} must hold only true/false entries")
    return np.array(data, dtype=bool)


def add_mask_argument(parser: Any) -> None:
    """Add ``--mask`` (and ``--sparse-operands``) to an argparse parser (one place for the help)."""
    parser.add_argument(
        "--mask", default=None, metavar="MASK",
        help="attention mask: full | causal | window:W | block:B:PATTERN.json (a JSON square "
             "list of lists of true/false of side ceil(n/B); the last block is partial when B "
             "does not divide n). Sets Z_in, Z_QK of the sparse bound; masked algorithms skip "
             "tiles with no kept entry")
    parser.add_argument(
        "--sparse-operands", default="", metavar="Q,K",
        help="operands whose unneeded rows count as zeros in Z_in (default none: Z_in = n d)")


def mask_from_args(args: Any) -> Mask | None:
    """The :class:`Mask` of ``--mask``/``--sparse-operands`` (None when ``--mask`` is absent)."""
    text = getattr(args, "mask", None)
    operands = [x.strip() for x in (getattr(args, "sparse_operands", "") or "").split(",")
                if x.strip()]
    if text is None:
        if operands:
            raise InvalidInputError("--sparse-operands needs --mask")
        return None
    return parse_mask(text, operands)


