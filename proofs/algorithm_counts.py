r"""Claims about algorithms, checked against the algorithms: closed forms vs exact counts.

Every catalogue form that describes an algorithm (``fwd.flash1.upper``, ``bwd.flash1.upper``,
``fwd.standard``, ``bwd.standard``, ``fwd.square_tiling.upper``, ``bwd.alg6.upper``) and every
comparison of algorithms (``cmp.*`` of :mod:`attnio.proofs.algorithm_comparison`) is a claim
about an *idealised* count: block sides :math:`M/4d` or :math:`\sqrt M/2` without floors,
without the rows that share fast memory with the tiles, without the ceilings of the trip
counts. This module compares each with the **exact** count of the algorithm attnio executes:
the registry's closed-form counter (:mod:`attnio.algorithms.registry`, the functions of
:mod:`attnio.algorithms.counts`, equal to the executed counts in
``tests/algorithms/test_counts.py``), called at check time — nothing is hard-coded, so a
changed schedule (e.g. a numerically stable Algorithm 6 that reads row maxima) is checked as
it is.

Each claim states its constant and the range where it holds; the check runs every point of a
stated grid (:data:`GRID_N`, :data:`GRID_D`, :func:`grid_M`: n up to 4096, d up to 256, M from
the smallest tile set to nd, with the critical points :math:`kd + j`, :math:`d^2/k`,
:math:`kd^2`, :math:`nd/k`), in exact integers (a form with :math:`\sqrt M` is compared
squared). Points where the algorithm's tiles do not fit in M words are not instances (the
algorithm does not run there); they are counted in the detail.

Proof map (``count(alg)`` = ``get_algorithm(alg).counter(pass).io``; evidence *exhaustive*
over the grid, every comparison non-trivial):

=====================================  ============================================================
``cnt.flash1.forward``                 :math:`d \ge 8,\ M \le nd`: count :math:`\le 30\,n^2d^2/M`
``cnt.flash1.backward``                :math:`d \ge 8,\ 32d \le M \le nd`: count :math:`\le 40\,n^2d^2/M`
``cnt.flash1.backward.constant_32``    :math:`d \ge 8,\ 48d \le M \le nd/2`: count :math:`\le 32\,n^2d^2/M`
``cnt.flash2.forward``                 :math:`d \ge 2,\ M \le nd`: count :math:`\le 30\,n^2d^2/M`
``cnt.flash2.backward``                :math:`d \ge 8,\ 24d \le M \le nd`: count :math:`\le 32\,n^2d^2/M`
``cnt.flash2_split.backward``          :math:`d \ge 8,\ 24d \le M \le nd`: count :math:`\le 29\,n^2d^2/M`
``cnt.flash2_lean.forward``            :math:`d \ge 2,\ M \le nd`: count :math:`\le 30\,n^2d^2/M` (ours, issue 35)
``cnt.flash2_lean.backward``           :math:`d \ge 8,\ 24d \le M \le nd`: count :math:`\le 29\,n^2d^2/M`
``cnt.standard.forward``               :math:`M \ge d^2`: count :math:`\le 16\,(nd + n^2)`
``cnt.standard.backward``              :math:`M \ge d^2`: count :math:`\le 28\,(nd + n^2)`
``cnt.square_tiling.forward``          :math:`4 \le M \le d^2,\ d \le n`: count :math:`\le 18\,n^2d/\sqrt M`
``cnt.small_cache_fused.forward``      :math:`4 \le M \le d^2,\ d \le n`: count :math:`\le 16\,n^2d/\sqrt M`
                                       (12 before the stable storage of issue 35: 15.1 at M = 4)
``cnt.small_cache_stable.forward``     :math:`4 \le M \le d^2,\ d \le n`: count :math:`\le 21\,n^2d/\sqrt M`
                                       (square tiling's 18 + the stable storage's 2n² + 2n⌈n/B⌉)
``cnt.fused_resident.forward``         :math:`d^2/4 \le M \le d^2,\ d \le n`: count :math:`\le 13\,n^2d/\sqrt M`
                                       (11 before the stable storage: 12.4 near M = 3d)
``cnt.fused_resident.backward``        :math:`d^2/4 \le M \le d^2,\ d \le n`: count :math:`\le 11\cdot`
                                       ``bwd.alg6.upper``
``cnt.alg6.backward``                  :math:`64 \le M \le d^2,\ d \le n`: count :math:`\le 24\cdot`
                                       ``bwd.alg6.upper``
``cnt.alg6_fused.backward``            :math:`4 \le M \le d^2,\ d \le n`: count :math:`\le 24\cdot`
                                       ``bwd.alg6.upper``
``cnt.alg6_dx.backward``               :math:`64 \le M \le d^2,\ d \le n`: count (dL/dX) :math:`\le 24\cdot`
                                       ``bwd.alg6.upper``
``cmp.executed.alg6_vs_flash1``        :math:`d \le n,\ M \le d^2/2`: count(small-cache) :math:`\le`
                                       count(flash1), backward
``cmp.executed.fused_vs_flash1``       :math:`d \le n,\ M \le 2d^2`: count(small-cache-fused)
                                       :math:`\le` count(flash1), backward
``cmp.executed.tiling_vs_flash1``      :math:`d \le n,\ M \le d^2/4`: count(square-tiling)
                                       :math:`\le` count(flash1), forward
``cmp.executed.flash1_vs_standard``    :math:`8d^2 \le M \le nd`: count(flash1) :math:`\le`
                                       count(standard), backward
``cmp.executed.split_vs_flash2``       :math:`d \ge 8,\ M \le nd/4`: count(flash2-split)
                                       :math:`\le` count(flash2), backward
``cmp.executed.resident_vs_fused.*``   :math:`8 \le d \le n,\ d^2 \le M \le 2d^2`: count(fused-resident)
                                       :math:`\le` count(small-cache-fused), each pass
=====================================  ============================================================

Where the idealised claim and the count differ, the original over-claim is a planted twin,
refuted with a counterexample naming n, d, M, the count and the bound:

* ``cnt.flash1.backward.twin_idealised`` — ``low.fa_backward_count``'s
  :math:`32\,n^2d^2/M` on its own range :math:`d \ge 1, M \le nd`: at n = 4096, d = 64,
  M = 768 the count is 1.89× the bound (the row vectors :math:`Q_i, O_i, dO_i, dQ_i` take
  :math:`4d` of the 768 words, so :math:`B_c = 1`, not :math:`M/4d = 3`);
* ``cnt.flash2_lean.backward.twin_leading_term`` — flash2-lean's leading term
  :math:`14\,n^2d^2/M` read as a bound (the ceilings and lower-order terms break it);
* ``cnt.flash1.forward.twin_all_d`` / ``cnt.flash2.forward.twin_all_d`` —
  ``low.fa_forward_count``'s 30 for every :math:`d \ge 1` (the :math:`2n` vectors dominate at
  d = 1); ``cnt.flash2.backward.twin_idealised`` — 32 on :math:`d \ge 1, M \le nd`;
* ``cnt.standard.forward.twin_dfe_range`` — :math:`\Theta(nd + n^2)` on DFE+22's
  :math:`d \le M \le nd` (false below :math:`M = d^2`: F3);
* ``cnt.square_tiling.forward.twin_idealised`` — ``low.tiling_count``'s :math:`12\,n^2d/\sqrt M`
  (the floor of :math:`B = \lfloor\sqrt{M/4}\rfloor`);
* ``cnt.alg6.backward.twin_all_M`` — the constant 24 down to M = 4 (B = 1 at M = 15);
* ``cmp.executed.alg6_vs_flash1.twin_whole_small_cache`` — executed Algorithm 6 beats executed
  FlashAttention-1 on all of :math:`M \le d^2` (Figure 1's crossover read as a statement
  about the algorithms);
* ``cmp.executed.tiling_vs_flash1.twin_crossover_d2`` — ``cmp.fwd_tiling_vs_flash.exact``'s
  crossover :math:`M \le d^2` read as a statement about the executed algorithms (they swap
  near :math:`M \approx d^2/2`);
* ``cmp.executed.split_vs_flash2.twin_whole_range`` — flash2-split never moves more than
  FlashAttention-2: false at :math:`M \ge nd/2` (two outer passes: the dQ pass re-reads Q and
  dO, which FA-2's single pass with :math:`T_c = 2` does not need) and for d < 8 (the 2n words
  of L, D per pass);
* ``cmp.executed.resident_vs_fused.backward.twin_half_d2`` — the resident block already
  pays from :math:`M = d^2/2` (it does at n = 4096, d = 64, not at small n);
* ``cmp.executed.flash1_vs_standard.twin_crossover_d2`` — ``cmp.flash_vs_standard``'s
  :math:`M \ge d^2` read as the executed algorithms' (FlashAttention-1 backward moves more
  than standard attention up to :math:`M = 6.75d^2` at d = 2, :math:`1.12d^2` at d = 64).

Every (algorithm, pass) of the registry is covered by an envelope with the registry's own
bound id, except those that run another's counter (``small-cache`` forward = square tiling,
``flash2-gqa`` = flash2 on one head) and ``flash1-published``, whose printed blocks overflow M
(``tests/proofs/test_algorithm_counts.py`` checks both the coverage and the exceptions).

Run ``python -m attnio.proofs.algorithm_counts`` to check this family alone.

Examples
--------
>>> [c.id for c in CLAIMS][:2]
['cnt.flash1.forward', 'cnt.flash1.backward']
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterator

import sympy

from attnio.algorithms.registry import get_algorithm
from attnio.exceptions import InfeasibleError
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS", "GRID_N", "GRID_D", "grid_M", "grid", "form_parts",
           "Envelope", "Comparison"]

FAMILY = "algorithm_counts"
_SRC_COUNTS = ("attnio: exact counts of the executed algorithms (attnio.algorithms.counts via "
               "the registry) against the catalogue's forms; issue 21")
DFE = "Dao et al. Thms 2, 5 and Algs. 1, 4, arXiv 2205.14135"
LI = "Li et al. Thm 4.3 / Algorithm 6 (RECONSTRUCTED), arXiv 2410.09397"
SY = "Saha & Ye Thm 3.5 / Algorithm 1, arXiv 2402.07443"

#: The grid every claim runs (intersected with its range). Pinned points come first, so a
#: refuted twin names them when they fail: the figure of issue 21 (flash1 backward at
#: n = 4096, d = 64, M = 768).
PINNED: tuple[tuple[int, int, int], ...] = ((4096, 64, 768), (4096, 64, 16384), (4096, 64, 1024))
GRID_N: tuple[int, ...] = (16, 64, 100, 256, 1000, 4096)
GRID_D: tuple[int, ...] = (1, 2, 3, 4, 5, 8, 12, 16, 32, 64, 128, 256)


def grid_M(n: int, d: int) -> list[int]:
    """The memory sizes of the grid at (n, d): 4..nd, with the critical points of every form
    (kd + j for the FlashAttention tile sets, d²/k and kd² for the square tiles and the
    crossovers, nd/k for the trip-count ceilings, squares ± 1 for the floors of √(M/4)).

    >>> grid_M(16, 2)[:6]
    [4, 5, 6, 7, 8, 9]
    """
    top = n * d
    cands = set(range(4, 17))
    cands |= {2 ** k for k in range(2, 40)} | {3 * 2 ** k for k in range(1, 40)}
    cands |= {k * d + j for k in (4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 100)
              for j in (0, 3, 7)}
    cands |= {d * d // k + j for k in (1, 2, 4, 9, 16) for j in (-1, 0, 1)}
    cands |= {k * d * d + j for k in (2, 3, 4, 8) for j in (-1, 0)}
    cands |= {top // k for k in (1, 2, 3, 4, 5, 8)}
    cands |= {4 * (b + 1) ** 2 - 1 for b in range(1, 8)}  # the worst floors of B = isqrt(M/4)
    return sorted(M for M in cands if 4 <= M <= top)


def grid() -> Iterator[tuple[int, int, int]]:
    """(n, d, M): the pinned points, then every grid point (d ≤ n), each once."""
    seen = set(PINNED)
    yield from PINNED
    for n in GRID_N:
        for d in GRID_D:
            if d > n:
                continue
            for M in grid_M(n, d):
                if (n, d, M) not in seen:
                    yield n, d, M


# ---- the catalogue forms, split exactly into r + s/sqrt(M) -----------------------------------
@lru_cache(maxsize=None)
def form_parts(bound_id: str) -> tuple[Callable[..., Fraction], Callable[..., Fraction]]:
    r"""The catalogue expression of ``bound_id`` as :math:`r(n,d,M) + s(n,d,M)/\sqrt M` with
    r, s rational functions, each a callable on Fractions (exact).

    >>> r, s = form_parts("bwd.alg6.upper")
    >>> r(Fraction(4), Fraction(2), Fraction(4)), s(Fraction(4), Fraction(2), Fraction(4))
    (Fraction(28, 1), Fraction(48, 1))
    """
    from attnio.proofs.algebra import bound, symbol

    n, d, M = symbol("n"), symbol("d"), symbol("M")
    t = sympy.Symbol("t", positive=True)
    expr = sympy.expand(bound(bound_id).expr.subs(M, t ** 2))
    r_part, s_part = sympy.Integer(0), sympy.Integer(0)
    for term in sympy.Add.make_args(expr):
        power = sympy.degree(term.as_numer_denom()[0], t) - sympy.degree(term.as_numer_denom()[1], t)
        if power % 2 == 0:
            r_part += term
        else:
            s_part += term * t
    r_part = sympy.cancel(r_part.subs(t, sympy.sqrt(M)))
    s_part = sympy.cancel(s_part.subs(t, sympy.sqrt(M)))
    if r_part.has(sympy.sqrt(M)) or s_part.has(sympy.sqrt(M)) or r_part.has(t) or s_part.has(t):
        raise ValueError(f"{bound_id}: {bound(bound_id).expr} is not r + s/sqrt(M)")
    funcs = tuple(sympy.lambdify((n, d, M), part, modules=[{}]) for part in (r_part, s_part))

    def exact(f: Callable[..., object]) -> Callable[..., Fraction]:
        def call(*args: Fraction) -> Fraction:
            value = f(*args)
            if not isinstance(value, (int, Fraction)):
                raise TypeError(f"{bound_id}: inexact value {value!r}")
            return Fraction(value)
        return call

    return exact(funcs[0]), exact(funcs[1])


def _le(count: int, constant: int, r: Fraction, s: Fraction, M: int) -> bool:
    r"""count ≤ constant·(r + s/√M), exactly (r, s ≥ 0), in integers and fractions only.

    Side conditions
    ---------------
    1. ``rational-part``: with s = 0 the answer is count ≤ constant·r — one word more is
       false.
    2. ``root-part``: otherwise count − constant·r ≤ constant·s/√M, compared squared as
       :math:`(\text{count} - c\,r)^2 M \le c^2 s^2` (√M divides s: a square root of M on
       the other side would compare with s·√M).

    >>> _le(12, 1, Fraction(0), Fraction(24), 4), _le(13, 1, Fraction(0), Fraction(24), 4)
    (True, False)
    """
    excess = count - constant * r
    if excess <= 0:
        return True
    return excess * excess * M <= constant * constant * s * s


def _value(r: Fraction, s: Fraction, M: int) -> float:
    return float(r) + float(s) / M ** 0.5


def _count(algorithm: str, pass_: str, n: int, d: int, M: int) -> int | None:
    """The exact count, or None where the algorithm's tiles do not fit in M words."""

    try:
        return get_algorithm(algorithm).counter(pass_)(n, d, M).io
    except InfeasibleError:
        return None


Range = Callable[[int, int, int], bool]


@dataclass(frozen=True)
class Envelope:
    """``count(algorithm, pass) ≤ constant · bound_id`` on the grid points in ``range``."""

    algorithm: str
    pass_: str
    bound_id: str
    constant: int
    range_text: str
    in_range: Range

    def check(self, ctx: CheckContext | None = None) -> Verdict:
        """Proved when every grid point in range where the algorithm runs meets the bound.

        Side conditions
        ---------------
        1. ``count-within-bound``: count ≤ constant·form exactly (:func:`_le`) at every such
           point — one word above refutes, naming the point.
        2. ``every-point``: every grid point in range where the algorithm runs is compared (a
           point where its tiles do not fit M is skipped and counted as such).
        3. ``nonnegative-parts``: the form splits as r + s/√M with r, s ≥ 0 at each point
           (the comparison squares) — otherwise Undecided, never compared.
        4. ``non-vacuous``: at least one point is compared — otherwise Undecided.
        """
        r_of, s_of = form_parts(self.bound_id)
        checked = unfit = failures = 0
        first: dict | None = None
        worst: tuple[float, tuple[int, int, int] | None] = (0.0, None)
        for n, d, M in grid():
            if not self.in_range(n, d, M):
                continue
            io = _count(self.algorithm, self.pass_, n, d, M)
            if io is None:
                unfit += 1
                continue
            r, s = r_of(Fraction(n), Fraction(d), Fraction(M)), s_of(Fraction(n), Fraction(d),
                                                                    Fraction(M))
            if r < 0 or s < 0:  # _le squares the excess: only for nonnegative parts
                return Undecided(f"{self.bound_id} splits into r = {r}, s = {s} at "
                                 f"(n, d, M) = ({n}, {d}, {M}): a negative part; the exact "
                                 "comparison assumes r, s >= 0")
            checked += 1
            form = _value(r, s, M)
            ratio = io / form
            if ratio > worst[0]:
                worst = (ratio, (n, d, M))
            if not _le(io, self.constant, r, s, M):
                failures += 1
                if first is None:
                    first = {"n": n, "d": d, "M": M, "algorithm": self.algorithm,
                             "pass": self.pass_, "count": io,
                             "bound": f"{self.constant}*{self.bound_id} = "
                                      f"{self.constant * form:,.1f}",
                             "ratio_to_bound": round(io / (self.constant * form), 4)}
                    if s == 0:  # a rational bound: its exact value too
                        first["bound_exact"] = str(self.constant * r)
        if first is not None:
            first["failing_points"] = failures
            first["worst_ratio_count_over_form"] = round(worst[0], 3)
            first["worst_at"] = worst[1]
            return Refuted(first, f"the exact count of {self.algorithm} {self.pass_} exceeds "
                                  f"{self.constant}*{self.bound_id} at {failures} of {checked} "
                                  f"grid points ({self.range_text})")
        if checked == 0:
            return Undecided(f"no grid point in range ({self.range_text}) where "
                             f"{self.algorithm} runs")
        return Proved(f"{checked} grid points ({unfit} where the tiles do not fit skipped); "
                      f"max count/{self.bound_id} = {worst[0]:.3f} at (n, d, M) = {worst[1]} "
                      f"<= {self.constant}",
                      evidence=Evidence.exhaustive(checked, checked))


@dataclass(frozen=True)
class Comparison:
    """``count(fast) ≤ count(slow)`` in ``pass_`` on the grid points in ``range`` where both
    algorithms run."""

    fast: str
    slow: str
    pass_: str
    range_text: str
    in_range: Range

    def check(self, ctx: CheckContext | None = None) -> Verdict:
        """Proved when ``fast`` moves at most as many words as ``slow`` at every grid point in
        range where both run.

        Side conditions
        ---------------
        1. ``fast-not-above-slow``: count(fast) ≤ count(slow) at every such point — one word
           more refutes, naming the point.
        2. ``every-point``: every grid point in range where both run is compared.
        3. ``non-vacuous``: at least one point is compared — otherwise Undecided.
        """
        checked = unfit = failures = 0
        first: dict | None = None
        for n, d, M in grid():
            if not self.in_range(n, d, M):
                continue
            a, b = (_count(self.fast, self.pass_, n, d, M),
                    _count(self.slow, self.pass_, n, d, M))
            if a is None or b is None:
                unfit += 1
                continue
            checked += 1
            if a > b:
                failures += 1
                if first is None:
                    first = {"n": n, "d": d, "M": M, "pass": self.pass_,
                             "M_over_d2": round(M / (d * d), 4),
                             self.fast: a, self.slow: b}
        if first is not None:
            first["failing_points"] = failures
            return Refuted(first, f"{self.fast} moves more words than {self.slow} "
                                  f"({self.pass_}) at {failures} of {checked} grid points "
                                  f"({self.range_text})")
        if checked == 0:
            return Undecided(f"no grid point in range ({self.range_text}) where both run")
        return Proved(f"{checked} grid points, count({self.fast}) <= count({self.slow}) "
                      f"({unfit} where a tile set does not fit skipped)",
                      evidence=Evidence.exhaustive(checked, checked))


def _envelope_claim(cid: str, env: Envelope, source: str, *, twin_of: str | None = None,
                    statement: str | None = None) -> Claim:
    text = statement or (f"for {env.range_text}: the exact I/O of {env.algorithm} "
                         f"{env.pass_} <= {env.constant}*{env.bound_id}")
    return Claim(id=cid, statement=text + " (on the grid of attnio.proofs.algorithm_counts)",
                 formal=f"count({env.algorithm}, {env.pass_}).io <= {env.constant} * "
                        f"{env.bound_id}, exact ints, every grid point in range",
                 source=source, method="exact enumeration", family=FAMILY,
                 check_fn=env.check, reconstructed=True, twin_of=twin_of,
                 evidence_kind="exhaustive")


def _comparison_claim(cid: str, cmp: Comparison, source: str, *, twin_of: str | None = None,
                      statement: str | None = None) -> Claim:
    text = statement or (f"for {cmp.range_text}: the exact {cmp.pass_} I/O of {cmp.fast} "
                         f"<= that of {cmp.slow}")
    return Claim(id=cid, statement=text + " (on the grid of attnio.proofs.algorithm_counts)",
                 formal=f"count({cmp.fast}) <= count({cmp.slow}), {cmp.pass_}, exact ints, "
                        "every grid point in range where both run",
                 source=source, method="exact enumeration", family=FAMILY,
                 check_fn=cmp.check, reconstructed=True, twin_of=twin_of,
                 evidence_kind="exhaustive")


def _fa(d_min: int, alpha: int = 0) -> Range:
    return lambda n, d, M: d >= d_min and alpha * d <= M <= n * d


def _middle(n: int, d: int, M: int) -> bool:
    """d ≤ n and d²/4 ≤ M ≤ d² (where a resident block of M/d rows starts to pay)."""
    return d <= n and d * d <= 4 * M <= 4 * d * d


def _resident_range(n: int, d: int, M: int) -> bool:
    """8 ≤ d ≤ n and d² ≤ M ≤ 2d² (fused-resident against small-cache-fused)."""
    return 8 <= d <= n and d * d <= M <= 2 * d * d


def _small(M_min: int = 4) -> Range:
    return lambda n, d, M: d <= n and M_min <= M <= d * d


def _large(n: int, d: int, M: int) -> bool:
    return M >= d * d and M >= 4


def _dfe(n: int, d: int, M: int) -> bool:
    return d <= M <= n * d and M >= 4


_FWD, _BWD = "fwd.flash1.upper", "bwd.flash1.upper"

CLAIMS: list[Claim] = [
    _envelope_claim("cnt.flash1.forward",
                    Envelope("flash1", "forward", _FWD, 30, "d >= 8 and M <= n*d", _fa(8)),
                    f"{DFE} Thm 2 / low.fa_forward_count's constant 30"),
    _envelope_claim("cnt.flash1.backward",
                    Envelope("flash1", "backward", _BWD, 40, "d >= 8 and 32*d <= M <= n*d",
                             _fa(8, 32)),
                    f"{DFE} Thm 5; corrected constant (low.fa_backward_count's 32 holds for "
                    "the idealised count only)"),
    _envelope_claim("cnt.flash1.backward.constant_32",
                    Envelope("flash1", "backward", _BWD, 32, "d >= 8 and 48*d <= M <= n*d/2",
                             lambda n, d, M: d >= 8 and 48 * d <= M and 2 * M <= n * d),
                    f"{DFE} Thm 5; low.fa_backward_count's constant 32, on the range of M where "
                    "the executed count meets it"),
    _envelope_claim("cnt.flash2.forward",
                    Envelope("flash2", "forward", _FWD, 30, "d >= 2 and M <= n*d", _fa(2)),
                    f"{DFE} Thm 2 (FlashAttention-2 loop order)"),
    _envelope_claim("cnt.flash2.backward",
                    Envelope("flash2", "backward", _BWD, 32, "d >= 8 and 24*d <= M <= n*d",
                             _fa(8, 24)),
                    f"{DFE} Thm 5 (FlashAttention-2 loop order)"),
    _envelope_claim("cnt.flash2_split.backward",
                    Envelope("flash2-split", "backward", _BWD, 29, "d >= 8 and 24*d <= M <= n*d",
                             _fa(8, 24)),
                    f"{DFE} Thm 5 form; flash2-split is ours (attnio.algorithms.split_backward)"),
    _envelope_claim("cnt.flash2_lean.forward",
                    Envelope("flash2-lean", "forward", _FWD, 30, "d >= 2 and M <= n*d", _fa(2)),
                    f"{DFE} Thm 2 form; flash2-lean is ours (attnio.algorithms.lean_flash)"),
    _envelope_claim("cnt.flash2_lean.backward",
                    Envelope("flash2-lean", "backward", _BWD, 29, "d >= 8 and 24*d <= M <= n*d",
                             _fa(8, 24)),
                    f"{DFE} Thm 5 form; flash2-lean is ours (attnio.algorithms.lean_flash)"),
    _envelope_claim("cnt.standard.forward",
                    Envelope("standard", "forward", "fwd.standard", 16, "M >= d**2, M >= 4",
                             _large), f"{DFE} Thm 2 (standard attention, restricted to M >= d^2)"),
    _envelope_claim("cnt.standard.backward",
                    Envelope("standard", "backward", "bwd.standard", 28, "M >= d**2, M >= 4",
                             _large), f"{DFE} Thm 5 (standard attention, restricted to M >= d^2)"),
    _envelope_claim("cnt.square_tiling.forward",
                    Envelope("square-tiling", "forward", "fwd.square_tiling.upper", 18,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{SY}; corrected constant (low.tiling_count's 12 holds for the idealised "
                    "count only)"),
    _envelope_claim("cnt.small_cache_fused.forward",
                    Envelope("small-cache-fused", "forward", "fwd.square_tiling.upper", 16,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{SY} form; small-cache-fused is ours"),
    _envelope_claim("cnt.small_cache_stable.forward",
                    Envelope("small-cache-stable", "forward", "fwd.square_tiling.upper", 21,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{SY} form; the stable storage (+2n² + 2n⌈n/B⌉ words) is ours"),
    _envelope_claim("cnt.fused_resident.forward",
                    Envelope("fused-resident", "forward", "fwd.square_tiling.upper", 13,
                             "d <= n and d**2/4 <= M <= d**2", _middle),
                    f"{SY} form; fused-resident is ours (attnio.algorithms.resident_fused)"),
    _envelope_claim("cnt.fused_resident.backward",
                    Envelope("fused-resident", "backward", "bwd.alg6.upper", 11,
                             "d <= n and d**2/4 <= M <= d**2", _middle),
                    f"{LI} form; fused-resident is ours (attnio.algorithms.resident_fused)"),
    _envelope_claim("cnt.alg6.backward",
                    Envelope("small-cache", "backward", "bwd.alg6.upper", 24,
                             "d <= n and 64 <= M <= d**2", _small(64)), LI),
    _envelope_claim("cnt.alg6_fused.backward",
                    Envelope("small-cache-fused", "backward", "bwd.alg6.upper", 24,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{LI} form; small-cache-fused is ours"),
    _envelope_claim("cnt.alg6_dx.backward",
                    Envelope("small-cache-dx", "backward", "bwd.alg6.upper", 24,
                             "d <= n and 64 <= M <= d**2", _small(64)),
                    f"{LI} (Algorithm 6 for dL/dX)"),
    _comparison_claim("cmp.executed.alg6_vs_flash1",
                      Comparison("small-cache", "flash1", "backward", "d <= n and M <= d**2/2",
                                 lambda n, d, M: d <= n and 2 * M <= d * d),
                      f"{LI} Figure 1 vs {DFE}, executed (cmp.alg6_full_vs_flash1 compares "
                      "the forms)"),
    _comparison_claim("cmp.executed.fused_vs_flash1",
                      Comparison("small-cache-fused", "flash1", "backward",
                                 "d <= n and M <= 2*d**2",
                                 lambda n, d, M: d <= n and M <= 2 * d * d),
                      f"{LI} Figure 1 vs {DFE}, executed; small-cache-fused is ours"),
    _comparison_claim("cmp.executed.tiling_vs_flash1",
                      Comparison("square-tiling", "flash1", "forward", "d <= n and M <= d**2/4",
                                 lambda n, d, M: d <= n and 4 * M <= d * d),
                      f"{SY} vs {DFE}, executed (cmp.fwd_tiling_vs_flash.exact compares the "
                      "forms: crossover M = d^2)"),
    _comparison_claim("cmp.executed.flash1_vs_standard",
                      Comparison("flash1", "standard", "backward", "8*d**2 <= M <= n*d",
                                 lambda n, d, M: 8 * d * d <= M <= n * d),
                      f"{DFE} Thm 5, executed (cmp.flash_vs_standard compares the forms)"),
    _comparison_claim("cmp.executed.split_vs_flash2",
                      Comparison("flash2-split", "flash2", "backward", "d >= 8 and M <= n*d/4",
                                 lambda n, d, M: d >= 8 and 4 * M <= n * d),
                      "attnio.algorithms.split_backward (ours) vs FlashAttention-2's backward "
                      "(Dao 2023, arXiv 2307.08691, Alg. 2), executed"),
    *[_comparison_claim(f"cmp.executed.resident_vs_fused.{pass_}",
                        Comparison("fused-resident", "small-cache-fused", pass_,
                                   "8 <= d <= n and d**2 <= M <= 2*d**2", _resident_range),
                        "attnio.algorithms.resident_fused vs attnio.algorithms.small_cache_fused "
                        "(both ours), executed") for pass_ in ("forward", "backward")],
]

_TWIN = "planted false twin"
FALSE_TWINS: list[Claim] = [
    _envelope_claim("cnt.flash1.backward.twin_idealised",
                    Envelope("flash1", "backward", _BWD, 32, "d >= 1 and M <= n*d", _fa(1)),
                    f"{_TWIN} (low.fa_backward_count's idealised bound read as the algorithm's)",
                    twin_of="cnt.flash1.backward",
                    statement="FALSE: for d >= 1 and M <= n*d: the exact I/O of flash1 backward "
                              "<= 32*n**2*d**2/M"),
    _envelope_claim("cnt.flash1.forward.twin_all_d",
                    Envelope("flash1", "forward", _FWD, 30, "d >= 1 and M <= n*d", _fa(1)),
                    f"{_TWIN} (low.fa_forward_count's range d >= 1)",
                    twin_of="cnt.flash1.forward",
                    statement="FALSE: for d >= 1 and M <= n*d: the exact I/O of flash1 forward "
                              "<= 30*n**2*d**2/M"),
    _envelope_claim("cnt.flash2.forward.twin_all_d",
                    Envelope("flash2", "forward", _FWD, 30, "d >= 1 and M <= n*d", _fa(1)),
                    f"{_TWIN} (range too wide)", twin_of="cnt.flash2.forward",
                    statement="FALSE: for d >= 1 and M <= n*d: the exact I/O of flash2 forward "
                              "<= 30*n**2*d**2/M"),
    _envelope_claim("cnt.flash2_lean.backward.twin_leading_term",
                    Envelope("flash2-lean", "backward", _BWD, 14, "d >= 8 and 24*d <= M <= n*d",
                             _fa(8, 24)),
                    f"{_TWIN} (the leading term 14 n^2 d^2/M of notes/algorithms_io.md read as "
                    "a bound: the ceilings, the row vectors and the compulsory I/O are not in it)",
                    twin_of="cnt.flash2_lean.backward",
                    statement="FALSE: for d >= 8 and 24*d <= M <= n*d: the exact I/O of "
                              "flash2-lean backward <= 14*n**2*d**2/M"),
    _envelope_claim("cnt.flash2.backward.twin_idealised",
                    Envelope("flash2", "backward", _BWD, 32, "d >= 1 and M <= n*d", _fa(1)),
                    f"{_TWIN} (range too wide)", twin_of="cnt.flash2.backward",
                    statement="FALSE: for d >= 1 and M <= n*d: the exact I/O of flash2 backward "
                              "<= 32*n**2*d**2/M"),
    _envelope_claim("cnt.standard.forward.twin_dfe_range",
                    Envelope("standard", "forward", "fwd.standard", 16, "d <= M <= n*d", _dfe),
                    f"{_TWIN} (DFE+22's range d <= M <= Nd; finding F3)",
                    twin_of="cnt.standard.forward",
                    statement="FALSE: for d <= M <= n*d: the exact I/O of standard forward "
                              "<= 16*(n*d + n**2)"),
    _envelope_claim("cnt.square_tiling.forward.twin_idealised",
                    Envelope("square-tiling", "forward", "fwd.square_tiling.upper", 12,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{_TWIN} (low.tiling_count's constant 12 read as the algorithm's)",
                    twin_of="cnt.square_tiling.forward",
                    statement="FALSE: for d <= n and 4 <= M <= d**2: the exact I/O of "
                              "square-tiling <= 12*n**2*d/sqrt(M)"),
    _envelope_claim("cnt.alg6.backward.twin_all_M",
                    Envelope("small-cache", "backward", "bwd.alg6.upper", 24,
                             "d <= n and 4 <= M <= d**2", _small()),
                    f"{_TWIN} (range too wide: B = floor(sqrt(M/4)) = 1 at M = 15)",
                    twin_of="cnt.alg6.backward",
                    statement="FALSE: for d <= n and 4 <= M <= d**2: the exact I/O of "
                              "Algorithm 6 <= 24*bwd.alg6.upper"),
    _comparison_claim("cmp.executed.alg6_vs_flash1.twin_whole_small_cache",
                      Comparison("small-cache", "flash1", "backward", "d <= n and M <= d**2",
                                 lambda n, d, M: d <= n and M <= d * d),
                      f"{_TWIN} (Figure 1's crossover M = d^2 read as the executed algorithms')",
                      twin_of="cmp.executed.alg6_vs_flash1"),
    _comparison_claim("cmp.executed.tiling_vs_flash1.twin_crossover_d2",
                      Comparison("square-tiling", "flash1", "forward", "d <= n and M <= d**2",
                                 lambda n, d, M: d <= n and M <= d * d),
                      f"{_TWIN} (cmp.fwd_tiling_vs_flash.exact's crossover read as the "
                      "executed algorithms')", twin_of="cmp.executed.tiling_vs_flash1"),
    _comparison_claim("cmp.executed.flash1_vs_standard.twin_crossover_d2",
                      Comparison("flash1", "standard", "backward", "d**2 <= M <= n*d",
                                 lambda n, d, M: d * d <= M <= n * d),
                      f"{_TWIN} (cmp.flash_vs_standard's range M >= d^2 read as the executed "
                      "algorithms')", twin_of="cmp.executed.flash1_vs_standard"),
    _comparison_claim("cmp.executed.split_vs_flash2.twin_whole_range",
                      Comparison("flash2-split", "flash2", "backward", "M <= n*d",
                                 lambda n, d, M: M <= n * d),
                      f"{_TWIN} (the split read as never worse than FlashAttention-2)",
                      twin_of="cmp.executed.split_vs_flash2"),
    _comparison_claim("cmp.executed.resident_vs_fused.backward.twin_half_d2",
                      Comparison("fused-resident", "small-cache-fused", "backward",
                                 "8 <= d <= n and d**2/2 <= M <= d**2",
                                 lambda n, d, M: 8 <= d <= n and d * d <= 2 * M <= 2 * d * d),
                      f"{_TWIN} (the crossover of n = 4096, d = 64 read as every n's)",
                      twin_of="cmp.executed.resident_vs_fused.backward"),
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
