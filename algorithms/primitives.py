r"""Tiled building blocks shared by the algorithms: block ranges, TileMul, streaming passes.

Every primitive runs under :class:`~attnio.algorithms.memory.TwoLevelMemory` and its I/O is
stated exactly (Python ints; the closed forms are in :mod:`attnio.algorithms.counts`).
With :math:`T_x = \lceil x/B \rceil`:

* :func:`tile_matmul` — :math:`C = \mathrm{op}(A)\,\mathrm{op}(B)` for an
  :math:`a\times k` by :math:`k\times c` product, square tiles of side :math:`B`,
  output-stationary (paper.md §4.3 "TileMul", RECONSTRUCTED):
  reads :math:`T_c\,a\,k + T_a\,k\,c`, writes :math:`a\,c`, FLOPs :math:`2akc`,
  peak :math:`b_a b_k + b_k b_c + b_a b_c` with :math:`b_x = \min(B, x)`.
* :func:`stream_rowsum_product` — :math:`D = \mathrm{rowsum}(X\circ Y)` for
  :math:`a\times c` arrays: reads :math:`2ac`, writes :math:`a`, FLOPs :math:`2ac`.
* :func:`stream_elementwise` — an entry-wise map of :math:`k` same-shape arrays and
  :math:`v` row vectors into one output: reads :math:`k\,a\,c + v\,a`, writes :math:`ac`.

Examples
--------
>>> blocks(10, 4)
[(0, 4), (4, 4), (8, 2)]
>>> block_classes(10, 4)
[(4, 2), (2, 1)]
>>> import numpy as np
>>> from attnio.algorithms.memory import TwoLevelMemory
>>> mem = TwoLevelMemory(M=12)
>>> rng = np.random.default_rng(0)
>>> mem.add_slow("A", rng.standard_normal((5, 3))); mem.add_slow("B", rng.standard_normal((3, 4)))
>>> tile_matmul(mem, "A", "B", "C", block=2)
>>> bool(np.allclose(mem.slow["C"], mem.slow["A"] @ mem.slow["B"]))
True
>>> mem.reads == 2 * 5 * 3 + 3 * 3 * 4 and mem.writes == 5 * 4 and mem.flops == 2 * 5 * 3 * 4
True
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np

from attnio.algorithms.memory import TwoLevelMemory

__all__ = [
    "ceil_div",
    "blocks",
    "block_classes",
    "tile_matmul",
    "accumulate_row_products",
    "stream_rowsum_product",
    "stream_elementwise",
    "open_key_block",
    "close_key_block",
    "kept_key_rows",
    "kept_column_blocks",
    "dq_product_pass",
]


def ceil_div(a: int, b: int) -> int:
    """:math:`\\lceil a/b \\rceil` for positive ints, exactly.

    >>> ceil_div(7, 2), ceil_div(8, 2)
    (4, 4)
    """
    return -(-a // b)


def blocks(length: int, size: int) -> list[tuple[int, int]]:
    """``(start, size)`` of the consecutive blocks of ``size`` covering ``range(length)``."""
    return [(start, min(size, length - start)) for start in range(0, length, size)]


def block_classes(length: int, size: int) -> list[tuple[int, int]]:
    """The distinct block sizes of :func:`blocks` with their multiplicities (≤ 2 classes)."""
    full, rest = divmod(length, size)
    classes = [(size, full)] if full else []
    return classes + ([(rest, 1)] if rest else [])


def _index(rows: tuple[int, int], cols: tuple[int, int], transposed: bool) -> tuple[slice, slice]:
    r = slice(rows[0], rows[0] + rows[1])
    c = slice(cols[0], cols[0] + cols[1])
    return (c, r) if transposed else (r, c)


def tile_matmul(
    mem: TwoLevelMemory,
    a: str,
    b: str,
    out: str,
    *,
    block: int,
    trans_a: bool = False,
    trans_b: bool = False,
    skip_out: np.ndarray | None = None,
    skip_a: np.ndarray | None = None,
) -> None:
    r"""TileMul: ``slow[out] = op(slow[a]) @ op(slow[b])`` with square tiles of side ``block``.

    ``op`` transposes when ``trans_a`` / ``trans_b`` is set (a transposed tile costs the same
    words as the untransposed one). For every output tile: zero an accumulator, stream the
    matching tiles of both factors through fast memory, write the accumulator once.

    Sparsity (block-sparse, for masked attention): ``skip_out`` — a boolean array of the
    output's shape; an output tile with no True entry is not computed (not written, no I/O:
    its slow entries stay undefined). ``skip_a`` — a boolean array of ``slow[a]``'s stored
    shape marking its possibly nonzero entries; a tile of ``a`` with none is known to be zero
    and is neither loaded nor multiplied.
    """
    left, right = mem.slow[a], mem.slow[b]
    m, k = (left.shape[1], left.shape[0]) if trans_a else left.shape
    c = right.shape[0] if trans_b else right.shape[1]
    mem.new_slow(out, (m, c))
    for i in blocks(m, block):
        for j in blocks(c, block):
            if skip_out is not None and not skip_out[_index(i, j, False)].any():
                continue
            mem.allocate("C_ij", (i[1], j[1]))
            for ell in blocks(k, block):
                if skip_a is not None and not skip_a[_index(i, ell, trans_a)].any():
                    continue
                mem.load("A_il", a, _index(i, ell, trans_a))
                mem.load("B_lj", b, _index(ell, j, trans_b))
                mem.compute(
                    "C_ij",
                    ("C_ij", "A_il", "B_lj"),
                    lambda acc, x, y: acc + (x.T if trans_a else x) @ (y.T if trans_b else y),
                    flops=2 * i[1] * ell[1] * j[1],
                )
                mem.free("A_il", "B_lj")
            mem.store("C_ij", out, _index(i, j, False))
            mem.free("C_ij")


def accumulate_row_products(mem: TwoLevelMemory, acc: str, x: str, y: str, rows: slice,
                            cols: slice, *, block: int, tiles: tuple[str, str]) -> None:
    r"""``fast[acc] += slow[x][rows] @ slow[y][cols]ᵀ``, streaming the shared dimension in
    blocks of ``block`` columns: load one tile of each factor (fast names ``tiles``),
    multiply-accumulate (2·r·w·c flops), free both. ``acc`` must be allocated, r × c."""
    r, c = mem.tile(acc).shape
    for l0, w in blocks(mem.slow[x].shape[1], block):
        inner = slice(l0, l0 + w)
        mem.load(tiles[0], x, (rows, inner))
        mem.load(tiles[1], y, (cols, inner))
        mem.compute(acc, (acc, *tiles), lambda t, a, b: t + a @ b.T, flops=2 * r * w * c)
        mem.free(*tiles)


def stream_rowsum_product(mem: TwoLevelMemory, x: str, y: str, out: str, *, block: int) -> None:
    """``slow[out] = rowsum(slow[x] * slow[y])`` streaming ``block``-square tiles."""
    rows, cols = mem.slow[x].shape
    mem.new_slow(out, (rows,))
    for i in blocks(rows, block):
        mem.allocate("D_i", (i[1],))
        for j in blocks(cols, block):
            mem.load("X_ij", x, _index(i, j, False))
            mem.load("Y_ij", y, _index(i, j, False))
            mem.compute(
                "D_i", ("D_i", "X_ij", "Y_ij"), lambda acc, u, v: acc + (u * v).sum(axis=1),
                flops=2 * i[1] * j[1],
            )
            mem.free("X_ij", "Y_ij")
        mem.store("D_i", out, slice(i[0], i[0] + i[1]))
        mem.free("D_i")


def stream_elementwise(
    mem: TwoLevelMemory,
    inputs: Sequence[str],
    row_vectors: Sequence[str],
    out: str,
    fn: Callable[..., np.ndarray],
    *,
    flops_per_entry: int,
    block: int,
    skip: np.ndarray | None = None,
) -> None:
    """``slow[out] = fn(*tiles of inputs, *segments of row_vectors as columns)`` tile by tile.

    The row-vector segments are loaded once per row block; the result overwrites the first
    input's tile on chip and is written to ``out``. With ``skip`` (a boolean array of the
    inputs' shape), a tile with no True entry is not processed (its output stays undefined).
    """
    rows, cols = mem.slow[inputs[0]].shape
    mem.new_slow(out, (rows, cols))
    for i in blocks(rows, block):
        seg = slice(i[0], i[0] + i[1])
        for v, name in enumerate(row_vectors):
            mem.load(f"v{v}_i", name, seg)
        for j in blocks(cols, block):
            if skip is not None and not skip[_index(i, j, False)].any():
                continue
            for t, name in enumerate(inputs):
                mem.load(f"x{t}_ij", name, _index(i, j, False))
            operands = [f"x{t}_ij" for t in range(len(inputs))] + [
                f"v{v}_i" for v in range(len(row_vectors))
            ]
            n_in = len(inputs)
            mem.compute(
                "x0_ij",
                operands,
                lambda *arrs, n_in=n_in: fn(*arrs[:n_in], *(vec[:, None] for vec in arrs[n_in:])),
                flops=flops_per_entry * i[1] * j[1],
            )
            mem.store("x0_ij", out, _index(i, j, False))
            mem.free(*(f"x{t}_ij" for t in range(len(inputs))))
        mem.free(*(f"v{v}_i" for v in range(len(row_vectors))))


def open_key_block(mem: TwoLevelMemory, keys: slice, c: int, d: int, *,
                   suffix: str = "j") -> None:
    """Start a backward pass's key block: load ``K_<suffix>`` and ``V_<suffix>`` (the rows
    ``keys`` of K and V, c×d each) and allocate their gradient accumulators ``dK_<suffix>``,
    ``dV_<suffix>`` (c×d) — the same four calls, in the same order, for the key-block loops
    of flash 1 and 2, the split backward and the lean backward (2cd reads, 4cd fast words).

    >>> import numpy as np
    >>> mem = TwoLevelMemory(M=64)
    >>> for name in "KV": mem.add_slow(name, np.ones((4, 2)))
    >>> open_key_block(mem, slice(0, 3), 3, 2)
    >>> mem.reads, mem.peak_words   # two 3×2 tiles read, four 3×2 tiles resident
    (12, 24)
    """
    mem.load(f"K_{suffix}", "K", (keys, slice(None)))
    mem.load(f"V_{suffix}", "V", (keys, slice(None)))
    mem.allocate(f"dK_{suffix}", (c, d))
    mem.allocate(f"dV_{suffix}", (c, d))


def close_key_block(mem: TwoLevelMemory, keys: slice, *, suffix: str = "j") -> None:
    """End a key block opened by :func:`open_key_block`: store ``dK_<suffix>`` and
    ``dV_<suffix>`` into the rows ``keys`` of slow dK and dV (2cd writes) and free the four
    tiles (the key-outer loop of both flash backward passes).

    >>> import numpy as np
    >>> mem = TwoLevelMemory(M=64)
    >>> for name in "KV": mem.add_slow(name, np.ones((4, 2)))
    >>> for name in ("dK", "dV"): mem.new_slow(name, (4, 2))
    >>> open_key_block(mem, slice(0, 3), 3, 2); close_key_block(mem, slice(0, 3))
    >>> mem.writes, mem.resident_words, mem.slow["dK"][:3].tolist()
    (12, 0, [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    """
    mem.store(f"dK_{suffix}", "dK", (keys, slice(None)))
    mem.store(f"dV_{suffix}", "dV", (keys, slice(None)))
    mem.free(f"K_{suffix}", f"V_{suffix}", f"dK_{suffix}", f"dV_{suffix}")


def kept_key_rows(mask: np.ndarray | None, rows: slice, n: int) -> range | list[int]:
    """The key rows j with a kept entry in ``mask[rows, j]`` (all n without a mask).

    >>> kept_key_rows(np.array([[True, False, False], [False, False, True]]), slice(0, 2), 3)
    [0, 2]
    """
    if mask is None:
        return range(n)
    return np.flatnonzero(mask[rows].any(axis=0)).tolist()


def kept_column_blocks(mask: np.ndarray | None, rows: slice, n: int, size: int
                       ) -> Iterator[tuple[int, slice, int, np.ndarray | None]]:
    """``(J, cols, c, keep)`` for the J-th block of ``size`` columns of an n-column matrix
    (``cols``, c wide) whose tile ``mask[rows, cols]`` (``keep``; None without a mask) has a
    kept entry: the tiles the square-tiled passes compute, skipping the empty ones.

    >>> mask = np.array([[True, False, False, False], [True, False, False, True]])
    >>> [(J, cols, c) for J, cols, c, _ in kept_column_blocks(mask, slice(0, 1), 4, 2)]
    [(0, slice(0, 2, None), 2)]
    >>> [J for J, *_ in kept_column_blocks(None, slice(0, 1), 5, 2)]
    [0, 1, 2]
    """
    for J, (j0, c) in enumerate(blocks(n, size)):
        cols = slice(j0, j0 + c)
        keep = None if mask is None else mask[rows, cols]
        if keep is None or keep.any():
            yield J, cols, c, keep


def dq_product_pass(mem: TwoLevelMemory, n: int, d: int, B_r: int, mask: np.ndarray | None,
                    *, tau: float = 1.0) -> None:
    r"""dQ = τ·dS·K from a slow dS (n×n, written by an earlier pass): per block of ``B_r``
    query rows, dQ_I resident, a column of dS and a row of K streamed — columns with no kept
    entry in the query block skipped, masked entries (which the earlier pass left unwritten)
    zeroed on chip; ``tau = 1`` when dS is already τ-scaled. Reads
    :math:`\sum_I (a_I + d)\,|kept(I)|`, writes nd, FLOPs 2d per streamed column and query
    row. The last pass of :mod:`attnio.algorithms.lean_flash` and of
    :mod:`attnio.algorithms.split_backward` (``dS = 1``).

    >>> mem = TwoLevelMemory(M=64)
    >>> mem.add_slow("dS", np.ones((3, 3))); mem.add_slow("K", np.ones((3, 2)))
    >>> mem.new_slow("dQ", (3, 2))
    >>> dq_product_pass(mem, 3, 2, 2, None, tau=0.5)
    >>> mem.slow["dQ"].tolist(), mem.reads, mem.writes
    ([[1.5, 1.5], [1.5, 1.5], [1.5, 1.5]], 21, 6)
    """
    for i0, a in blocks(n, B_r):
        rows = slice(i0, i0 + a)
        mem.allocate("dQ_I", (a, d))
        for j in kept_key_rows(mask, rows, n):
            key = slice(j, j + 1)
            keep = None if mask is None else mask[rows, key]
            mem.load("ds_j", "dS", (rows, key))
            mem.load("k_j", "K", (key, slice(None)))
            mem.compute("dQ_I", ("dQ_I", "ds_j", "k_j"),
                        lambda dq, ds, k, kp=keep: dq + tau * (
                            (ds if kp is None else np.where(kp, ds, 0.0)) @ k),
                        flops=2 * a * d)
            mem.free("ds_j", "k_j")
        mem.store("dQ_I", "dQ", (rows, slice(None)))
        mem.free("dQ_I")
