r"""Certified I/O lower bounds for ONE attention mask (issue 21): compulsory and segment routes.

The sparse bound ``sparse.lower`` (Li et al., arXiv 2410.09397, Thm 4.5, RECONSTRUCTED),
:math:`\Omega(\min\{Z_{in}^2/M,\ Z_{in}\sqrt{Z_{QK}}/\sqrt M\})`, is a worst case over the
CLASS of masks with given :math:`(Z_{in}, Z_{QK})` — witnessed by random / expander-like
patterns, as in Pagh & Stöckel's sparse matrix multiplication bound (ESA 2014) — and not a
bound for a particular mask: masked FlashAttention-2 backward with ``window:1`` at
:math:`d = 8`, :math:`M = 64` moves :math:`\approx 91n` words, below the class formula
:math:`nd\sqrt{n/M}` from :math:`n = 16384` on (ratio 1.42 at :math:`n = 4096`, 1.005 at
8192, 0.71 at 16384, 0.089 at :math:`n = 2^{20}`). The bound
of THIS module holds for the given mask's computation, every schedule.

Setting (as :mod:`attnio.bounds.attention`): the red-blue pebble game (Hong & Kung 1981;
inputs are sources, never computed; recomputation allowed; :math:`M` red pebbles) on the
masked attention DAG: score :math:`S_{ij} = \sum_k q_{ik}k_{jk}` (a tree over :math:`d`
multiply leaves) exists only for kept entries :math:`(i, j) \in \mathcal M`; the backward
pass also has :math:`dP_{ij} = \sum_k dO_{ik} v_{jk}` for kept entries only. Symbols:
:math:`n \ge 1` sequence length, :math:`d \ge 1` head dimension, :math:`M \ge 1` fast words,
:math:`Z_{QK} = |\mathcal M|`, :math:`\rho_Q` = rows with a kept entry,
:math:`\rho_K` = columns with a kept entry (:meth:`attnio.algorithms.masks.Mask.needed_rows`;
these are the rows the DAG needs, whatever ``--sparse-operands`` says).

Routes (each an exact ``int`` valid for every schedule; the bound is their maximum):

* **compulsory** — an input vertex with a successor starts blue only and is never computed,
  so it is read at least once; a computed output starts unpebbled and must end blue, so it
  is written at least once. Only needed rows count:

  - forward: read Q (:math:`\rho_Q d`), K, V (:math:`\rho_K d` each), write O
    (:math:`\rho_Q d`): :math:`Q \ge 2d(\rho_Q + \rho_K)`;
  - backward (``recompute``): read Q, O, dO (:math:`\rho_Q d` each), K, V (:math:`\rho_K d`
    each), write dQ (:math:`\rho_Q d`), dK, dV (:math:`\rho_K d` each):
    :math:`Q \ge 4d(\rho_Q + \rho_K)`;
  - backward (``given-scores``): the same plus the kept entries of the given
    :math:`n\times n` input (:math:`Z_{QK}`; a masked entry has no successor).

  A row of O (dQ) with no kept entry is a constant of the mask (no input is its ancestor);
  attnio's algorithms write it anyway, but the bound does not count it, so it holds whatever
  the convention for such rows. At the mask ``full``: :math:`4nd`, :math:`8nd`,
  :math:`8nd + n^2`, the routes of ``gap.compulsory``.

* **segment products** — the argument of :mod:`attnio.bounds.attention` (notes/gap.md) on
  the :math:`N = f\cdot Z_{QK}\cdot d` multiply leaves of the kept pairs (:math:`f = 1`
  forward and ``given-scores`` (:math:`dO\,V^\top`), :math:`f = 2` ``recompute``
  (:math:`QK^\top` and :math:`dO\,V^\top`)). Its per-segment cap :math:`F(L)` bounds the
  designated leaves of ANY set of pairs: full pairs :math:`\le \lfloor a/d\rfloor\lfloor
  b/d\rfloor` (a subset of the pairs of full rows), partial pairs :math:`\le\sqrt{abc}`
  (Loomis–Whitney on a subset of triples) and :math:`\le (d-1)c`, the :math:`c` partial
  pairs charged to distinct tree vertices carried over a boundary — each step bounds a
  subset of the pairs by the bound of all of them. So, as there,

  .. math:: Q \;\ge\; L\bigl(\lceil N/\mathrm{cap}(L)\rceil - 1\bigr),
     \qquad L \in \{M, 2M, \dots, 16M\},

  with :func:`attnio.bounds.attention.segment_product_cap` (claim ``gap.segment_cap``).
* **segment + compulsory rest** — the I/Os on vertices outside the products' operands and
  trees come on top, at least their compulsory part: forward V read, O written
  (:math:`d(\rho_Q + \rho_K)`); ``recompute`` O read, dQ, dK, dV written
  (:math:`d(2\rho_Q + 2\rho_K)`); ``given-scores`` the :math:`Z_{QK}` given entries, Q, K,
  O read, dQ, dK, dV written (:math:`Z_{QK} + 3d(\rho_Q + \rho_K)`).

Source: attnio (ours, RECONSTRUCTED in the house sense: the segment argument of Hong–Kung
1981 §3 with Loomis–Whitney faces, notes/gap.md, restricted to the kept pairs;
notes/sparse.md states it step by step). Admissible range: every :math:`n, d, M \ge 1` and
every boolean mask; an empty mask gives 0.

Examples
--------
>>> from attnio.algorithms.masks import Mask, mask_sizes
>>> b = best_mask_lower_bound("backward", Mask.window(1), 1_048_576, 8, 64)
>>> b.value, b.route
(67108864, 'recompute: compulsory (needed rows)')
>>> mask_lower_bound_routes("forward", Mask.full(), 64, 8, 64, "forward")[0].value == 4 * 64 * 8
True
"""

from __future__ import annotations

from typing import Any, Callable

import sympy as sp

from attnio.algorithms.masks import Mask, mask_sizes
from attnio.bounds.attention import (
    GapBound,
    computation_of,
    leaves_segment_route,
)
from attnio.bounds.heads import head_shape
from attnio.exceptions import InvalidInputError
from attnio.symbolic.catalogue import get_bound
from attnio.validation import json_float, positive_int

__all__ = ["best_mask_lower_bound", "mask_bound_fields", "mask_lower_bound_routes", "masked_compulsory_io", "masked_segment_route", "mask_run_fields", "sparse_bound_values"]


CLASSES_BY_PASS = {"forward": ("forward",), "backward": ("recompute", "given-scores")}


#: Product families per computation class: QKᵀ; QKᵀ and dO·Vᵀ; dO·Vᵀ.
PRODUCT_FAMILIES = {"forward": (1, "Q·Kᵀ"), "recompute": (2, "Q·Kᵀ + dO·Vᵀ"),
             "given-scores": (1, "dO·Vᵀ")}


def _check(pass_: str, computation: str) -> None:
    if pass_ not in CLASSES_BY_PASS:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    if computation not in CLASSES_BY_PASS[pass_]:
        raise InvalidInputError(f"computation={computation!r} must be one of "
                                f"{CLASSES_BY_PASS[pass_]} for the {pass_} pass")


def _sizes(mask: Mask, n: int, d: int) -> tuple[int, int, int]:
    """(ρ_Q, ρ_K, Z_QK) of the mask at n (validated)."""
    rho_q, rho_k = mask.needed_rows(n)
    return rho_q, rho_k, mask.z_qk(n)


def _heads(batch: int, heads: int, kv_heads: int | None) -> tuple[int, int]:
    """(B·H query heads, B·G K/V heads), validated (:mod:`attnio.proofs.stacked_heads`)."""

    batch, heads, kv = head_shape(batch, heads, kv_heads)
    return batch * heads, batch * kv


def masked_compulsory_io(pass_: str, mask: Mask, n: int, d: int,
                         computation: str | None = None, *, batch: int = 1, heads: int = 1,
                         kv_heads: int | None = None) -> int:
    """Needed inputs read once plus needed outputs written once (module docstring); with
    heads, per query head (Q, O, dO, dQ rows, and the kept scores of the given-scores
    class) and per K/V head (K, V, dK, dV rows), the same mask for every head.

    >>> from attnio.algorithms.masks import Mask
    >>> masked_compulsory_io("forward", Mask.full(), 4, 2), masked_compulsory_io(
    ...     "backward", Mask.causal(), 4, 2, "given-scores")
    (32, 74)
    """
    computation = computation or ("forward" if pass_ == "forward" else "recompute")
    _check(pass_, computation)
    n, d = positive_int("n", n), positive_int("d", d)
    q, kv = _heads(batch, heads, kv_heads)
    rho_q, rho_k, z_qk = _sizes(mask, n, d)
    if computation == "forward":
        return 2 * d * (q * rho_q + kv * rho_k)
    return 4 * d * (q * rho_q + kv * rho_k) + (q * z_qk if computation == "given-scores" else 0)


def masked_segment_route(N: int, d: int, M: int, *,
                         cap: Callable[[int, int, int], int] | None = None) -> tuple[int, int]:
    r""":math:`\max_L L(\lceil N/\mathrm{cap}(L)\rceil - 1)` over :math:`L = tM`, for ``N``
    multiply leaves of kept pairs (``N = 0``: ``(0, 0)``). Returns ``(value, L)``.

    >>> from attnio.bounds.attention import segment_route
    >>> masked_segment_route(4096 * 4096 * 64, 64, 1024) == segment_route(4096, 64, 1024)
    True
    """
    d, M = positive_int("d", d), positive_int("M", M)
    if N < 0:
        raise InvalidInputError(f"N={N} must be a non-negative integer")
    return leaves_segment_route(N, d, M, cap=cap)


def mask_lower_bound_routes(pass_: str, mask: Mask, n: int, d: int, M: int,
                            computation: str, *, batch: int = 1, heads: int = 1,
                            kv_heads: int | None = None) -> list[GapBound]:
    """Every route's bound for ``mask`` at (n, d, M), one computation class (module doc).

    With B·H query heads in B·G K/V groups (the same mask for every head) the compulsory
    I/O and the rest are counted per query head and per K/V head, and the segment route
    counts the kept products of every head against the one-head cap: a segment of M I/Os
    computes at most cap(L) of them whichever heads they belong to (the argument of
    :mod:`attnio.proofs.stacked_heads`, claim ``heads.stacked_segment``; a subset of the
    products, claim ``mask.segment_subset``).

    >>> from attnio.algorithms.masks import Mask
    >>> [r.value for r in mask_lower_bound_routes("forward", Mask.window(1), 16, 2, 4, "forward")]
    [128, 8, 72]
    """
    _check(pass_, computation)
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    q, kv = _heads(batch, heads, kv_heads)
    rho_q, rho_k, z_qk = _sizes(mask, n, d)
    compulsory = GapBound(masked_compulsory_io(pass_, mask, n, d, computation, batch=batch,
                                               heads=heads, kv_heads=kv_heads),
                          "compulsory (needed rows)", "mask.below_algorithms")
    families, name = PRODUCT_FAMILIES[computation]
    value, L = masked_segment_route(families * q * z_qk * d, d, M)
    heads_note = f", {q} heads" if q > 1 else ""
    seg = f"segment products (kept {name}{heads_note})" + (f", L = {L // M}M" if L else "")
    rows = q * rho_q + kv * rho_k
    rest = {"forward": d * rows, "recompute": 2 * d * rows,
            "given-scores": q * z_qk + 3 * d * rows}[computation]
    return [compulsory, GapBound(value, seg, "mask.routes_consistent"),
            GapBound(rest + value, f"{seg} + compulsory rest", "mask.routes_consistent")]


def best_mask_lower_bound(pass_: str, mask: Mask, n: int, d: int, M: int,
                          computation: str = "any", *, batch: int = 1, heads: int = 1,
                          kv_heads: int | None = None) -> GapBound:
    """The largest route of one class; ``"any"``: the smallest class maximum, which holds for
    every masked algorithm of :mod:`attnio.algorithms` (its route names the binding class).

    >>> from attnio.algorithms.masks import Mask
    >>> best_mask_lower_bound("forward", Mask.causal(), 64, 8, 64).value
    2304
    """
    if pass_ not in CLASSES_BY_PASS:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    shape: dict[str, Any] = {"batch": batch, "heads": heads, "kv_heads": kv_heads}
    if computation != "any":
        return max(mask_lower_bound_routes(pass_, mask, n, d, M, computation, **shape),
                   key=lambda r: r.value)
    per = [(best_mask_lower_bound(pass_, mask, n, d, M, c, **shape), c)
           for c in CLASSES_BY_PASS[pass_]]
    bound, cls = min(per, key=lambda bc: bc[0].value)
    if pass_ == "forward":
        return bound
    return GapBound(bound.value, f"{cls}: {bound.route}", bound.claim_id)


def mask_bound_fields(mask: Mask, n: int, d: int, M: int, pass_: str,
                      algorithm: str | None = None, *, batch: int = 1, heads: int = 1,
                      kv_heads: int | None = None) -> dict[str, Any]:
    """The ``mask_lower_bound`` JSON field: ``{"value": int, "route", "claim_id",
    "computation", "scope"}`` — for ``algorithm``'s computation class when given (None when
    it has no class here, e.g. a dL/dX computation), else for every algorithm (``"any"``).

    >>> from attnio.algorithms.masks import Mask
    >>> mask_bound_fields(Mask.window(1), 64, 8, 64, "forward", "flash2")["value"]
    2048
    """
    computation = "any"
    if algorithm is not None:
        computation = computation_of(algorithm, pass_)
        if computation not in CLASSES_BY_PASS.get(pass_, ()):
            return {"value": None, "route": None, "claim_id": None, "computation": computation,
                    "scope": f"no certified masked route for the {computation} computation"}
    b = best_mask_lower_bound(pass_, mask, n, d, M, computation, batch=batch, heads=heads,
                              kv_heads=kv_heads)
    q, kv = _heads(batch, heads, kv_heads)
    who = "one head" if q == 1 else f"{q} query heads, {kv} K/V heads"
    return {"value": b.value, "route": b.route, "claim_id": b.claim_id,
            "computation": computation,
            "scope": f"this mask, {who}, every schedule (certified; notes/sparse.md)"}


def mask_run_fields(mask: Mask | None, n: int, d: int, M: int, pass_: str | None = None,
                    algorithm: str | None = None, *, batch: int = 1, heads: int = 1,
                    kv_heads: int | None = None) -> dict[str, Any]:
    """The fields a run's JSON gains: ``mask``, ``Z_in``, ``Z_QK``, ``sparse_class_bound``
    and ``sparse_crossover`` (:func:`sparse_bound_values`: the worst case over masks with
    these counts, not this mask's bound) and ``mask_lower_bound``, the certified lower bound
    for THIS mask (:func:`attnio.proofs.mask_bounds.mask_bound_fields`: ``{"value": int,
    "route", "claim_id", "computation", "scope"}``) — for ``algorithm``'s computation in
    ``pass_`` when both are given; else ``{"forward": ..., "backward": ...}``, each for every
    masked algorithm of that pass.

    >>> f = mask_run_fields(Mask.causal(), 4, 2, 4, "forward", "flash2")
    >>> f["sparse_class_bound"]["value"], f["mask_lower_bound"]["value"]   # min(8²/4, 8·√10/2)
    ('4*sqrt(10)', 32)
    """
    mask = mask or Mask.full()
    values = sparse_bound_values(mask, n, d, M)
    if pass_ is not None:
        values["mask_lower_bound"] = mask_bound_fields(mask, n, d, M, pass_, algorithm,
                                                       batch=batch, heads=heads,
                                                       kv_heads=kv_heads)
    else:
        values["mask_lower_bound"] = {p: mask_bound_fields(mask, n, d, M, p, batch=batch,
                                                           heads=heads, kv_heads=kv_heads)
                                      for p in ("forward", "backward")}
    return values


#: What ``sparse_class_bound`` is a bound for (printed with it in every JSON document).
CLASS_BOUND_SCOPE = ("worst case over every mask with these Z_in, Z_QK (Li et al. Thm 4.5, "
                     "RECONSTRUCTED; witnessed by random/expander-like patterns, Pagh-Stöckel); "
                     "NOT a lower bound for this mask: see mask_lower_bound")


def sparse_bound_values(mask: Mask, n: int, d: int, M: int) -> dict[str, Any]:
    """The class bound ``sparse.lower`` and its crossover Z_in²/Z_QK at the mask's sizes.

    Returns ``{"mask", "Z_in", "Z_QK", "sparse_class_bound": {"value", "value_float",
    "scope"}, "sparse_crossover": {"value", "value_float"}}`` (values are exact sympy strings;
    ``value_float`` is None when the value is beyond the float range, never Infinity).
    The value bounds the worst mask with these (Z_in, Z_QK), not ``mask`` itself
    (:data:`CLASS_BOUND_SCOPE`; the per-mask bound is :func:`mask_run_fields`'
    ``mask_lower_bound``). A mask that keeps nothing has value 0 and ``sparse_crossover`` None.

    >>> v = sparse_bound_values(Mask.full(), 4096, 64, 4096)
    >>> v["sparse_class_bound"]["value"], v["Z_in"]
    ('16777216', 262144)
    """
    M = positive_int("M", M)
    sizes = mask_sizes(mask, n, d)
    out: dict[str, Any] = {"mask": sizes.mask, "Z_in": sizes.Z_in, "Z_QK": sizes.Z_QK}
    if sizes.Z_QK == 0 or sizes.Z_in == 0:
        # Nothing is kept: the product has no output and the bound is 0 (its formula needs
        # positive sizes); the branches do not cross. JSON null, never NaN or Infinity.
        out["sparse_class_bound"] = {"value": "0", "value_float": 0.0,
                                     "scope": CLASS_BOUND_SCOPE}
        out["sparse_crossover"] = None
        return out
    value = get_bound("sparse.lower").evaluate(check_range=False, Z_in=sizes.Z_in,
                                               Z_QK=sizes.Z_QK, M=M)
    cross = sp.Rational(sizes.Z_in ** 2, sizes.Z_QK)
    # value_float is None past the float range (a 300-digit n): JSON has no Infinity
    out["sparse_class_bound"] = {"value": str(value), "value_float": json_float(value),
                                 "scope": CLASS_BOUND_SCOPE}
    out["sparse_crossover"] = {"value": str(cross), "value_float": json_float(cross)}
    return out
