r"""The stacked-head lower bound: B sequences, H query heads, G K/V heads (issue 21).

Shapes: ``batch`` B, ``heads`` H query heads, ``kv_heads`` G K/V heads, H a multiple of G; the
g = H/G query heads of a group share one K and one V (GQA; MQA: G = 1; multi-head: G = H).
Every quantity is an exact ``int``; every bound holds for every schedule of the red-blue
pebble game with :math:`M` red pebbles (Hong & Kung 1981; inputs are sources, never
computed; recomputation allowed) on the B·H-head computation of the class named
(:data:`attnio.bounds.attention.COMPUTATIONS`). RECONSTRUCTED: our argument, built on the
single-head routes of :mod:`attnio.bounds.attention` (``notes/gap.md`` §"Many heads").

Statement
---------
:math:`Q_{B,H,G}(n, d, M) \ge \max(\text{compulsory}, \text{segment}, \text{segment} +
\text{rest})` for one computation class, and with ``computation="any"`` the smallest class
maximum (it holds for every algorithm of :mod:`attnio.algorithms`, each in one class).

* **compulsory** — every input vertex with a successor is read at least once, every output
  is written at least once (it starts unpebbled and must end blue). Per query head
  (× B·H): forward Q read, O written (:math:`2nd`); backward Q, O, dO read, dQ written
  (:math:`4nd`); ``given-scores`` also its :math:`n\times n` given matrix (:math:`n^2`). Per
  K/V head (× B·G): forward K, V read (:math:`2nd`); backward K, V read, dK, dV written
  (:math:`4nd`). No row statistic is counted: the single-head compulsory count of
  :func:`~attnio.bounds.attention.compulsory_io` is exactly the five (backward) or three
  (forward) n×d inputs and the n×d outputs (8nd, 4nd), no L or m, and it is the B = H = G = 1
  case of this one. So, e.g., backward ``recompute``: :math:`B(4H + 4G)nd`, at n = 4096,
  d = 64, H = 32, G = 8: 41,943,040 words.
* **segment products** — the products counted per query head (``forward``: :math:`QK^\top`;
  ``recompute``: :math:`QK^\top` and :math:`dO\,V^\top`; ``given-scores``: :math:`dO\,V^\top`)
  number :math:`N = \text{families}\cdot B\cdot H\cdot n^2d` designated leaves, and
  :math:`Q \ge L(\lceil N/F(L)\rceil - 1)` with the single-head cap :math:`F(L)`
  (:func:`~attnio.bounds.attention.segment_product_cap`). The argument, step by step:

  1. *Stacking.* The g products :math:`Q_hK^\top` of a group (h in the group) are one product
     :math:`XY^\top` with :math:`X = [Q_1; \dots; Q_g]` (:math:`gn\times d`, inputs) and
     :math:`Y = K` (:math:`n\times d`, an input), with :math:`gn\cdot n` pairwise disjoint
     inner-product trees (the heads' products are distinct computations; a vertex belongs to
     one head's tree). Likewise :math:`dO_hV^\top`.
  2. *The cap ignores the number of rows.* The per-segment bound of ``notes/gap.md`` uses
     only: a full pair needs its X row and Y row red (:math:`\le\lfloor a/d\rfloor\lfloor
     b/d\rfloor \le s^2/(4d)` leaves), partial pairs :math:`\le\sqrt{abc}`,
     :math:`\le(d-1)c`, and :math:`s = a + b \le M + L`, :math:`s + c \le 2M + L`. None
     depends on how many rows X or Y has, so one segment holds at most :math:`F(L)`
     designated leaves of the stacked product of a group, whichever heads they belong to
     (checked by brute force over every segment shape of small stacked products, claim
     ``heads.stacked_segment``).
  3. *Across groups and families.* Products with disjoint operands and trees share one
     segment budget and :math:`F` is superadditive (claim ``gap.superadditive``): the
     designated leaves of all B·G groups' products and both families in one segment are at
     most :math:`F(L)` in total (also brute-forced on two groups).
  4. *Counting.* So :math:`N \le (\#\text{segments})\cdot F(L)`, i.e. at least
     :math:`\lceil N/F\rceil` segments, all but the last with :math:`L` I/Os:
     :math:`Q \ge L(\lceil N/F\rceil - 1)`. The count is per product, never "per head ×
     H": segments may mix heads freely, and step 2 bounds any mix.

* **segment + compulsory rest** — the segment argument only counts the I/Os on the
  products' operands and trees; the compulsory I/O of every other input and output comes on
  top (single-head: ``notes/gap.md``). Stacked: the compulsory count above minus the operand
  matrices' reads.

* **joint routes** (issue 35, item 5; :func:`~attnio.bounds.attention.joint_routes`): every
  product of the class, :math:`P` and :math:`dS` witnessed per head. A group is one attention
  with :math:`g\cdot n` stacked query rows — :math:`dV` and :math:`dK` sum over them (a partial
  pair holds up to :math:`gn - 1` leaves; a full pair still needs a column of at least
  :math:`n` entries) — and :math:`\Psi_\kappa` is superadditive (claim
  ``gap.joint_superadditive``), so all groups share one budget: :math:`N = p\cdot B\cdot H
  \cdot n^2d` with the cap :func:`~attnio.bounds.attention.joint_cap` of ``group = H/G``;
  rest per query head (O read, dQ written; forward O written) and per K/V head (dK, dV
  written). Claim ``gap.joint_route`` recomputes it.

The Saha–Ye partition route of the single-head bound is *not* stacked (its argument is not
per-product counting); with B·H = 1 it is included, so B = H = G = 1 gives exactly
:func:`~attnio.bounds.attention.best_lower_bound`.

Examples
--------
>>> stacked_compulsory("backward", 4096, 64, heads=32, kv_heads=8)
41943040
>>> b = stacked_lower_bound("backward", 4096, 64, 16384, heads=32, kv_heads=8)
>>> b.value >= 41943040, b.claim_id
(True, 'gap.joint_route')
>>> from attnio.bounds.attention import best_lower_bound
>>> stacked_lower_bound("forward", 64, 8, 64).value == best_lower_bound("forward", 64, 8, 64).value
True
"""

from __future__ import annotations

from typing import Callable

from attnio.algorithms.heads import validate_heads
from attnio.bounds.attention import (
    JOINT_REST,
    PASSES,
    SEGMENT_MULTIPLES,
    WITNESSED_NAME,
    GapBound,
    cached_segment_product_cap,
    lower_bound_routes,
    segment_route,
    witnessed_cap,
)
from attnio.bounds.joint import JOINT_CLASSES, cube_segment_cap, joint_cap, joint_interval_cap
from attnio.exceptions import InvalidInputError
from attnio.validation import positive_int

__all__ = ["FAMILIES", "MATRICES", "joint_interval_lower_bound", "stacked_compulsory", "stacked_lower_bound", "stacked_lower_bound_routes", "stacked_rest", "multihead_lower_bound"]


#: Per computation class: matrix → (kind, operand of a counted product?). Kind ``"q"``: one
#: n×d matrix per query head; ``"kv"``: one n×d matrix per K/V head; ``"s"``: one n×n given
#: matrix per query head. Every matrix is read once (input) or written once (output).
MATRICES: dict[str, dict[str, tuple[str, bool]]] = {
    "forward": {"Q": ("q", True), "K": ("kv", True), "V": ("kv", False), "O": ("q", False)},
    "recompute": {"Q": ("q", True), "K": ("kv", True), "V": ("kv", True), "O": ("q", False),
                  "dO": ("q", True), "dQ": ("q", False), "dK": ("kv", False),
                  "dV": ("kv", False)},
    "given-scores": {"Q": ("q", False), "K": ("kv", False), "V": ("kv", True),
                     "O": ("q", False), "dO": ("q", True), "dQ": ("q", False),
                     "dK": ("kv", False), "dV": ("kv", False), "P": ("s", False)},
}


#: Products counted per query head: (number of n×n×d families, their names).
FAMILIES: dict[str, tuple[int, str]] = {"forward": (1, "Q·Kᵀ"), "recompute": (2, "Q·Kᵀ + dO·Vᵀ"),
                                        "given-scores": (1, "dO·Vᵀ")}




def head_shape(batch: int, heads: int, kv_heads: int | None) -> tuple[int, int, int]:
    batch, heads = positive_int("batch", batch), positive_int("heads", heads)
    kv = heads if kv_heads is None else positive_int("kv_heads", kv_heads)
    if heads % kv:
        raise InvalidInputError(f"heads={heads} is not a multiple of kv_heads={kv}")
    return batch, heads, kv


def _classes(pass_: str, computation: str) -> tuple[str, ...]:
    if pass_ not in PASSES:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    allowed = ("forward",) if pass_ == "forward" else ("recompute", "given-scores")
    if computation == "any":
        return allowed
    if computation not in allowed:
        raise InvalidInputError(f"computation={computation!r} must be one of {allowed} for "
                                f"the {pass_} pass")
    return (computation,)


def matrix_words(kind: str, n: int, d: int, batch: int, heads: int, kv: int) -> int:
    return batch * {"q": heads * n * d, "kv": kv * n * d, "s": heads * n * n}[kind]


def stacked_compulsory(pass_: str, n: int, d: int, *, batch: int = 1, heads: int = 1,
                       kv_heads: int | None = None, computation: str | None = None) -> int:
    """Every input read once, every output written once, over B·H query heads and B·G K/V
    heads (``computation``: default ``"recompute"`` backward, ``"forward"`` forward).

    >>> stacked_compulsory("forward", 4096, 64, heads=32, kv_heads=8)
    20971520
    """
    batch, heads, kv = head_shape(batch, heads, kv_heads)
    n, d = positive_int("n", n), positive_int("d", d)
    cls = computation or ("forward" if pass_ == "forward" else "recompute")
    (cls,) = _classes(pass_, cls)
    return sum(matrix_words(kind, n, d, batch, heads, kv) for kind, _ in MATRICES[cls].values())


def stacked_rest(pass_: str, n: int, d: int, computation: str, *, batch: int = 1,
                 heads: int = 1, kv_heads: int | None = None) -> int:
    """The compulsory I/O of the matrices that are no operand of a counted product."""
    batch, heads, kv = head_shape(batch, heads, kv_heads)
    (cls,) = _classes(pass_, computation)
    return sum(matrix_words(kind, n, d, batch, heads, kv)
               for kind, operand in MATRICES[cls].values() if not operand)


def stacked_lower_bound_routes(pass_: str, n: int, d: int, M: int, computation: str, *,
                               batch: int = 1, heads: int = 1, kv_heads: int | None = None,
                               route: Callable[..., tuple[int, int]] = segment_route
                               ) -> list[GapBound]:
    """Every route's bound for B·H heads in B·G groups, one computation class (module doc).
    ``route`` replaces :func:`~attnio.bounds.attention.segment_route` (false twins only).

    >>> [r.value for r in stacked_lower_bound_routes("backward", 64, 8, 64, "recompute",
    ...                                               heads=4, kv_heads=2)][0]
    12288
    """
    batch, heads, kv = head_shape(batch, heads, kv_heads)
    n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
    (cls,) = _classes(pass_, computation)
    compulsory = GapBound(stacked_compulsory(pass_, n, d, batch=batch, heads=heads,
                                             kv_heads=kv, computation=cls),
                          "compulsory", "heads.stacked_compulsory")
    families, name = FAMILIES[cls]
    value, L = route(n, d, M, products=families * batch * heads, cap=cached_segment_product_cap)
    heads_note = f", {batch * heads} heads" if batch * heads > 1 else ""
    seg = f"segment products ({name}{heads_note})" + (f", L = {L // M}M" if L else "")
    rest = stacked_rest(pass_, n, d, cls, batch=batch, heads=heads, kv_heads=kv)
    routes = [compulsory, GapBound(value, seg, "heads.stacked_segment"),
              GapBound(rest + value, f"{seg} + compulsory rest", "heads.stacked_segment")]
    if cls == "given-scores":
        # the witnessed route (bounds/attention.py, witnessed_routes): dS·K joins dO·Vᵀ per
        # head, each dS witnessed by its head's own given scores; stacked per group like the
        # other products (K, V shared within a group), the cap of witnessed_cap (full pairs
        # ≤ ab/min(n, d), partial depth max(n, d) − 1: dS·K has inner dimension n); rest:
        # Q and O read, dK and dV written
        w_value, w_L = route(n, d, M, products=2 * batch * heads, cap=witnessed_cap(n, d))
        w_seg = WITNESSED_NAME[:-1] + f"{heads_note})" + (f", L = {w_L // M}M" if w_L else "")
        w_rest = 2 * matrix_words("q", n, d, batch, heads, kv) + 2 * matrix_words(
            "kv", n, d, batch, heads, kv)
        routes += [GapBound(w_value, w_seg, "gap.witnessed_route"),
                   GapBound(w_rest + w_value, f"{w_seg} + compulsory rest",
                            "gap.witnessed_route")]
    # the joint route (bounds/attention.py, joint_routes; notes/gap.md "The joint routes"):
    # every product of the class, P and dS witnessed per head; a group is one attention with
    # g·n stacked query rows (dV, dK sum over them: partial depth g·n − 1; full pairs still
    # need n-entry columns at least), and Ψ is superadditive over groups (gap.joint_superadditive)
    products, _, names = JOINT_CLASSES[cls]
    j_value, j_L = route(n, d, M, products=products * batch * heads,
                         cap=joint_cap(cls, n, d, group=heads // kv))
    j_seg = f"segment products ({names}{heads_note})" + (f", L = {j_L // M}M" if j_L else "")
    per_q, per_kv = JOINT_REST[cls]
    j_rest = per_q * matrix_words("q", n, d, batch, heads, kv) + per_kv * matrix_words(
        "kv", n, d, batch, heads, kv)
    joint = [GapBound(j_value, j_seg, "gap.joint_route"),
             GapBound(j_rest + j_value, f"{j_seg} + compulsory rest", "gap.joint_route")]
    if batch * heads == 1:  # one head: the single-head Saha–Ye route holds too
        routes += [r for r in lower_bound_routes(pass_, n, d, M, cls)
                   if r.route.startswith("Saha-Ye")]
    return routes + joint


def stacked_lower_bound(pass_: str, n: int, d: int, M: int, *, batch: int = 1, heads: int = 1,
                        kv_heads: int | None = None, computation: str = "any") -> GapBound:
    """The largest route of a class; ``"any"``: the smallest class maximum (binding class
    named in the route, backward). B = H = G = 1 is
    :func:`~attnio.bounds.attention.best_lower_bound`.

    >>> stacked_lower_bound("backward", 4096, 64, 1327104, heads=32, kv_heads=8).value
    41943040
    """
    best: tuple[GapBound, str] | None = None
    for cls in _classes(pass_, computation):
        top = max(stacked_lower_bound_routes(pass_, n, d, M, cls, batch=batch, heads=heads,
                                             kv_heads=kv_heads), key=lambda r: r.value)
        if best is None or top.value < best[0].value:
            best = (top, cls)
    assert best is not None
    top, cls = best
    if pass_ == "forward" or computation != "any":
        return top
    return GapBound(top.value, f"{cls}: {top.route}", top.claim_id)


def multihead_lower_bound(pass_: str, n: int, d: int, M: int, *, batch: int = 1,
                          heads: int = 1, kv_heads: int | None = None) -> tuple[int, str]:
    """Lower bound for B·H query heads in B·G K/V groups, every schedule, and its route:
    :func:`attnio.proofs.stacked_heads.stacked_lower_bound` (claims
    ``heads.stacked_compulsory``, ``heads.stacked_segment``); B = H = G = 1 is the
    single-head :func:`~attnio.bounds.attention.best_lower_bound`.

    >>> multihead_lower_bound("backward", 4096, 64, 2**20, heads=32, kv_heads=8)
    (41943040, 'recompute: compulsory')
    """
    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    b = stacked_lower_bound(pass_, n, d, M, batch=batch, heads=heads, kv_heads=kv)
    return b.value, b.route


def joint_interval_lower_bound(pass_: str, n: int, d: int, a: int, b: int, computation: str, *,
                               batch: int = 1, heads: int = 1,
                               kv_heads: int | None = None) -> int:
    r"""An integer at most the joint route + its rest of :func:`stacked_lower_bound_routes`
    (B = H = G = 1: :func:`~attnio.bounds.attention.joint_routes`) at *every* M in [a, b] —
    the interval lower bound a search over M (the exact worst ratio) prunes with.

    At M the route is :math:`\max_t tM(\lceil N/cap(M, tM)\rceil - 1)` + rest; with
    :math:`U_t \ge cap(M, tM)` on the interval (:func:`~attnio.bounds.joint.joint_interval_cap`;
    the forward's cube cap grows with M) each term is at least
    :math:`ta(\lceil N/U_t\rceil - 1)`.

    >>> lo = joint_interval_lower_bound("backward", 4096, 64, 11000, 11300, "recompute")
    >>> joint = [[r.value for r in stacked_lower_bound_routes("backward", 4096, 64, M,
    ...                                                      "recompute")][-1]
    ...          for M in (11000, 11150, 11300)]
    >>> lo <= min(joint), lo > 0.8 * min(joint)
    (True, True)
    """
    batch, heads, kv = head_shape(batch, heads, kv_heads)
    n, d = positive_int("n", n), positive_int("d", d)
    a, b = positive_int("a", a), positive_int("b", b)
    if a > b:
        raise InvalidInputError(f"a={a} must be at most b={b}")
    (cls,) = _classes(pass_, computation)
    products, kappa, _ = JOINT_CLASSES[cls]
    k_grad = ((heads // kv) * n if cls != "forward" else n) - 1
    N = products * batch * heads * n * n * d
    value = 0
    for t in SEGMENT_MULTIPLES:
        cap = joint_interval_cap(d, a, b, t, n, k_grad, kappa)
        if cls == "forward":
            cap = min(cap, cube_segment_cap(d, b, t * b, min(n, d)))
        value = max(value, t * a * max(0, -(-N // max(1, cap)) - 1))
    per_q, per_kv = JOINT_REST[cls]
    return value + per_q * matrix_words("q", n, d, batch, heads, kv) + per_kv * matrix_words(
        "kv", n, d, batch, heads, kv)

