r"""The catalogue of I/O bounds for attention and matrix multiplication.

Each entry is a :class:`Bound`: a sympy expression in the size symbols of
:mod:`attnio.symbolic.symbols`, its branches when it is a min or max, the admissible range of
the sizes, the computational model, the source down to the theorem number, and a
RECONSTRUCTED flag when our statement is not verbatim from the source (see
``notes/reference/paper.md`` and ``notes/reference/background.md``: the full text of arXiv 2410.09397 was
not available; its theorem texts are inferred from its v2 summary, its reviews and its parents).

Symbols: :math:`n` sequence length, :math:`d` head dimension, :math:`M` cache size in words,
:math:`Z_{in}` / :math:`Z_{QK}` nonzeros of the inputs / of :math:`QK^\top`, and
:math:`m\times k` times :math:`k\times p` for a matrix product. :math:`Q` denotes the I/O
complexity (number of words moved between slow and fast memory, reads plus writes).

Asymptotic entries (``asymptotic=True``) are :math:`\Theta`, :math:`O` or :math:`\Omega`
statements: their ``expr`` is exact only up to a constant factor. Explicit entries
(``asymptotic=False``) state :math:`Q \ge \mathrm{expr}` (or :math:`\le`) with the constants.
Entries for an *algorithm* (FlashAttention, Algorithm 6, standard attention) have
``kind="upper"``: they bound the problem's I/O from above by that algorithm's I/O.

The headline entries
--------------------
.. math::

   Q_{\mathrm{bwd}} = \Theta\Big(\min\Big\{\frac{n^2d^2 + nd^3}{M},
                                       \frac{n^2d + nd^2}{\sqrt{M}}\Big\}\Big)
   \quad \text{(Thm 1.1 of arXiv 2410.09397, ``bwd.tight``)}

   Q_{\mathrm{fwd}} = \Theta\Big(\min\Big\{\frac{n^2d^2}{M},\frac{n^2d}{\sqrt{M}}\Big\}\Big)
   \quad \text{(Saha \& Ye Thm 3.1, arXiv 2402.07443, ``fwd.tight``)}

   Q_{\mathrm{sparse}} = \Omega\Big(\min\Big\{\frac{Z_{in}^2}{M},
                                  \frac{Z_{in}\sqrt{Z_{QK}}}{\sqrt{M}}\Big\}\Big)
   \quad \text{(Thm 4.5 of arXiv 2410.09397, RECONSTRUCTED, ``sparse.lower``; a worst case
   over the masks with these counts, not a bound for one mask)}

Run ``python3 -c "from attnio.symbolic.catalogue import CATALOGUE; print(len(CATALOGUE))"``
or ``attnio bounds --n 1024 --d 128 --M 16384`` to list them all.

Examples
--------
>>> b = get_bound("bwd.tight")
>>> b.combine, len(b.branches), b.kind
('min', 2, 'tight')
>>> b.evaluate(n=8, d=4, M=16)
96
>>> get_bound("matmul.smith.lower").evaluate(m=8, k=8, p=8, M=16)
224
>>> print(get_bound("fwd.tight").latex())
\Theta\left(\min\left(\frac{d^{2} n^{2}}{M}, \frac{d n^{2}}{\sqrt{M}}\right)\right)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic.symbols import (
    SIZE_SYMBOLS,
    Z_QK,
    M,
    Z_in,
    d,
    k,
    m,
    n,
    p,
    symbol_by_name,
    validate_value,
)

__all__ = ["Bound", "CATALOGUE", "get_bound", "catalogue_ids"]

Pass = Literal["forward", "backward", "both", "matmul"]
Kind = Literal["lower", "upper", "tight"]
Combine = Literal["min", "max"]

_PEBBLE = "red-blue pebble game (Hong-Kung), standard matrix multiplication with summation trees"
_ALGORITHM = "two-level memory, word-level I/O (B = 1): this algorithm's slow-memory accesses"


@dataclass(frozen=True)
class Bound:
    r"""One I/O bound: a sympy expression, where it holds, and where it comes from.

    Parameters
    ----------
    id : str
        Stable identifier, ``"<pass>.<what>.<kind>"`` (e.g. ``"bwd.small.lower"``).
    pass_ : {"forward", "backward", "both", "matmul"}
        Which computation it bounds.
    kind : {"lower", "upper", "tight"}
        Lower bound (:math:`\Omega` / :math:`\ge`), upper bound (:math:`O` / :math:`\le`,
        usually an algorithm's cost) or both (:math:`\Theta`).
    expr : sympy.Expr
        The bound; ``sympy.Min`` / ``sympy.Max`` of :attr:`branches` when it is a min / max.
    branches : tuple of sympy.Expr
        The branches of a min or max, in the order of the source; empty otherwise.
    combine : {"min", "max"} or None
        How :attr:`branches` combine.
    admissible : tuple of sympy relationals
        The range of the sizes under which the statement is made, e.g. ``(d <= M, M <= n*d)``.
    model : str
        The computational model (pebble game / algorithm's I/O / finite field ...).
    source : str
        Paper, theorem or lemma number, arXiv id.
    reconstructed : bool
        True when our statement is not verbatim from the source.
    asymptotic : bool
        True for :math:`\Theta/O/\Omega` statements (``expr`` is up to constants: its value
        with constant 1 is no bound — never the certified column of a table).
    notes : str
        Hypotheses that are not relationals (e.g. "no recomputation"), provenance caveats.
    explicit_id : str or None
        For an asymptotic lower or tight row: the id of the catalogue row to print beside it,
        an explicit-constant lower bound (``asymptotic=False``, ``kind="lower"``) for the same
        computation and model, valid wherever this row is stated (its admissible range is
        empty or implied). ``None`` when the catalogue has none for that computation (the
        backward rows bound Alman–Song's dL/dX, for which only ``bwd.trivial.lower`` exists;
        ``sparse.lower`` is a worst case over a class of masks). attnio's certified bound for
        the dQ, dK, dV backward and the forward is :func:`attnio.bounds.attention.best_lower_bound`,
        not a catalogue row.
    """

    id: str
    pass_: Pass
    kind: Kind
    expr: sp.Expr
    branches: tuple[sp.Expr, ...] = ()
    combine: Combine | None = None
    admissible: tuple[sp.Basic, ...] = ()
    model: str = _PEBBLE
    source: str = ""
    reconstructed: bool = False
    asymptotic: bool = True
    notes: str = field(default="", compare=False)
    explicit_id: str | None = field(default=None, compare=False)

    @property
    def free_symbols(self) -> set[sp.Symbol]:
        """The size symbols the expression and its admissible range mention."""
        syms: set[sp.Symbol] = set(self.expr.free_symbols)
        for rel in self.admissible:
            syms |= rel.free_symbols
        return syms

    def latex(self) -> str:
        r"""The bound as LaTeX: :math:`\Theta(\cdot)` / :math:`O(\cdot)` / :math:`\Omega(\cdot)`
        when asymptotic, :math:`Q \ge \cdot` / :math:`Q \le \cdot` when explicit.

        Examples
        --------
        >>> get_bound("matmul.trivial.lower").latex()
        'Q \\geq k m + k p + m p'
        """
        body = sp.latex(self.expr)
        if self.asymptotic:
            op = {"tight": r"\Theta", "upper": "O", "lower": r"\Omega"}[self.kind]
            return rf"{op}\left({body}\right)"
        rel = {"lower": r"\geq", "upper": r"\leq", "tight": "="}[self.kind]
        return rf"Q {rel} {body}"

    def in_range(self, **values: object) -> bool:
        """True when every admissible relation holds at ``values`` (validated like evaluate).

        Examples
        --------
        >>> get_bound("bwd.large.lower").in_range(n=8, d=4, M=8)
        False
        """
        subs = self._substitution(values, set().union(*(r.free_symbols for r in self.admissible)))
        return all(bool(rel.xreplace(subs)) for rel in self.admissible)

    def evaluate(self, check_range: bool = True, **values: object) -> sp.Expr:
        """The exact value of :attr:`expr` at concrete sizes.

        Parameters
        ----------
        check_range : bool, default True
            Refuse values outside :attr:`admissible`.
        **values
            One value per size symbol the bound uses (``n=..., d=..., M=...``); integers for
            ``n, d, M, m, k, p``, integers or ``Fraction`` for ``Z_in, Z_QK``. Names of other
            size symbols are accepted and ignored, so one dict serves the whole catalogue.

        Returns
        -------
        sympy.Expr
            An exact number: Integer, Rational or algebraic (square roots), never a Float.

        Raises
        ------
        InvalidInputError
            A value is missing, not exact, not positive, not an integer where required, an
            unknown name is given, or (with ``check_range``) an admissible relation fails.

        Examples
        --------
        >>> get_bound("bwd.flash1.upper").evaluate(n=16, d=4, M=8)
        512
        >>> get_bound("fwd.small.lower").evaluate(n=4, d=4, M=8)
        16*sqrt(2)
        >>> get_bound("bwd.large.lower").evaluate(n=8, d=4, M=8)
        Traceback (most recent call last):
        ...
        attnio.exceptions.InvalidInputError: bwd.large.lower: ... d**2 <= M fails
        """
        needed = set(self.expr.free_symbols)
        if check_range:
            needed |= set().union(*(r.free_symbols for r in self.admissible))
        subs = self._substitution(values, needed)
        if check_range:
            for rel in self.admissible:
                if not bool(rel.xreplace(subs)):
                    shown = ", ".join(f"{s}={v}" for s, v in subs.items())
                    raise InvalidInputError(
                        f"{self.id}: ({shown}) is outside the admissible range: {rel} fails"
                    )
        # Every symbol becomes a number, so xreplace (a rebuild, sympy evaluating each node of
        # numbers) gives what subs gives, 9x faster (subs matches subexpressions first):
        # tests/symbolic/test_catalogue.py compares the two over a grid.
        value = self.expr.xreplace(subs)  # exact numbers: sympy evaluates Min/Max of them
        if value.has(sp.Min, sp.Max):  # pragma: no cover - branches sympy could not order
            value = sp.simplify(value)
        # Invariant: exact arithmetic throughout (no Float can enter through validate_value).
        assert not value.has(sp.Float), value
        return value

    def _substitution(self, values: dict[str, object], needed: set[sp.Symbol]) -> dict:
        subs: dict[sp.Symbol, sp.Rational] = {}
        for name, value in values.items():
            subs[symbol_by_name(name)] = validate_value(symbol_by_name(name), value)
        missing = sorted(s.name for s in needed if s not in subs)
        if missing:
            raise InvalidInputError(f"{self.id}: missing value(s) for {', '.join(missing)}")
        order = {s: i for i, s in enumerate(SIZE_SYMBOLS)}
        return {s: subs[s] for s in sorted(needed, key=order.__getitem__)}


def _bound(id: str, pass_: Pass, kind: Kind, *branches: sp.Expr, combine: Combine | None = None,
           **kw: object) -> Bound:
    """Build a Bound; with ``combine`` the expression is Min/Max of the branches."""
    if combine is None:
        (expr,) = branches
        return Bound(id=id, pass_=pass_, kind=kind, expr=expr, **kw)  # type: ignore[arg-type]
    expr = (sp.Min if combine == "min" else sp.Max)(*branches, evaluate=False)
    return Bound(id=id, pass_=pass_, kind=kind, expr=expr, branches=tuple(branches),
                 combine=combine, **kw)  # type: ignore[arg-type]


_FA_RANGE = (d <= M, M <= n * d)           # DFE+22 Thms 2 and 5
_LARGE = (d**2 <= M,)                      # M = Omega(d^2)
_SMALL = (M <= d**2,)
# Standard attention's Theta(nd + n^2) (DFE+22) needs M >= d^2: finding F3 in notes/findings.md.
_STANDARD_RANGE = (d**2 <= M, M <= n * d)                      # M = o(d^2) (boundary included: both branches agree)
_LI = "Li, Liang, Shi, Song, Yue, Zhang 2026 (arXiv 2410.09397 v2)"
_SY = "Saha & Ye 2024 (arXiv 2402.07443 v1)"
_DFE = "Dao, Fu, Ermon, Rudra, Re 2022 (arXiv 2205.14135)"

# Backward (gradient dL/dX = A1^T p(X) A2 of Alman & Song, arXiv 2402.04497).
_BWD_LARGE = (n**2 * d**2 + n * d**3) / M
_BWD_SMALL = (n**2 * d + n * d**2) / sp.sqrt(M)
_FWD_LARGE = n**2 * d**2 / M
_FWD_SMALL = n**2 * d / sp.sqrt(M)

CATALOGUE: tuple[Bound, ...] = (
    # ----------------------------------------------------------------- backward pass
    _bound("bwd.tight", "backward", "tight", _BWD_LARGE, _BWD_SMALL, combine="min",
           admissible=_FA_RANGE, source=f"{_LI}, Thm 1.1", reconstructed=True,
           explicit_id="bwd.trivial.lower",
           notes="Formula from the v2 summary and reviews; theorem text and its M-range are "
                 "UNRECOVERED, the range d <= M <= n*d is DFE+22's. For n >= d it reduces to "
                 "min(n^2 d^2/M, n^2 d/sqrt(M)), the forward bound."),
    _bound("bwd.large.upper", "backward", "upper", _BWD_LARGE,
           admissible=(d**2 <= M, M <= n * d), source=f"{_LI}, Thm 4.1", reconstructed=True,
           model=_ALGORITHM,
           notes="FlashAttention backward (DFE+22 Alg. 4) plus the products with X, Y, A1^T; "
                 "v2 form with the n d^3/M term."),
    _bound("bwd.large.lower", "backward", "lower", _BWD_LARGE, admissible=_LARGE,
           source=f"{_LI}, Thm 4.2", reconstructed=True, explicit_id="bwd.trivial.lower",
           notes="v2 form; proof via SY24 Lemma 3.3 on an n x d by d x n product "
                 "(reference notes/reference/paper.md section 3)."),
    _bound("bwd.small.upper", "backward", "upper", _BWD_SMALL, admissible=(4 <= M,) + _SMALL,
           source=f"{_LI}, Thm 4.3 (Algorithm 6)", reconstructed=True, model=_ALGORITHM,
           notes="Square tiling with B = floor(sqrt(M/4)) >= 1 (hence M >= 4); see bwd.alg6.upper "
                 "for the count with its additive terms."),
    _bound("bwd.small.lower", "backward", "lower", _BWD_SMALL, admissible=_SMALL,
           source=f"{_LI}, Thm 4.4", reconstructed=True, explicit_id="bwd.trivial.lower",
           notes="Reduction to Hong-Kung matmul as in SY24 Thm 3.7: writing the n^2 entries "
                 "costs n^2 <= n^2 d/sqrt(M) when M <= d^2."),
    _bound("bwd.flash1.upper", "backward", "upper", _FWD_LARGE, admissible=_FA_RANGE,
           source=f"{_DFE}, Thm 5 (Algorithm 4)", model=_ALGORITHM,
           notes="Theta(N^2 d^2/M) HBM accesses for FlashAttention backward; reconstructed "
                 "(idealised) count ~ 20 n^2 d^2/M + 8 n^2 d/M + 4 n d. attnio's executed "
                 "FA-1 backward is within 40x for d >= 8, 32d <= M <= nd and 32x for d >= 8, "
                 "48d <= M <= nd/2 (claims cnt.flash1.backward*, on a grid), but 1.89 x 32x "
                 "at n = 4096, d = 64, M = 768 (notes/claims.md section 4a)."),
    _bound("bwd.alg6.upper", "backward", "upper",
           _BWD_SMALL + n**2 + n * d + d**2, admissible=(4 <= M, M <= n * d),
           source=f"{_LI}, Algorithm 6 (our reconstruction, reference notes/reference/paper.md section 4.3)",
           reconstructed=True, model=_ALGORITHM,
           notes="Ten TileMul / streaming steps with B = floor(sqrt(M/4)); the additive n^2 + "
                 "n d + d^2 (materialised n x n intermediates, streamed vectors) is kept so the "
                 "count stays an upper bound for M > d^2 too. Idealised (constant 1): the "
                 "executed Algorithm 6 is within 24x for d <= n, 64 <= M <= d^2 (claim "
                 "cnt.alg6.backward, on a grid), not down to M = 4."),
    _bound("bwd.standard", "backward", "upper", n * d + n**2, admissible=_STANDARD_RANGE,
           source=f"{_DFE}, Thm 5 (standard attention backward, Algorithm 3)", model=_ALGORITHM,
           reconstructed=True,
           notes="Theta(N d + N^2): writes and reads the n x n matrices. DFE+22 state it for "
                 "d <= M <= N d; attnio restricts it to M >= d^2, because below d^2 the "
                 "n x d by d x n product alone needs Omega(n^2 d/sqrt(M)) (Hong-Kung), which "
                 "exceeds n d + n^2 (finding F3, notes/findings.md)."),
    _bound("bwd.trivial.lower", "backward", "lower", 4 * n * d + 3 * d**2,
           source="inputs read once + outputs written once (Alman & Song gradient, "
                  "arXiv 2402.04497: A1, A2, A3, E in R^{n x d}, X, Y in R^{d x d}; "
                  "output dL/dX in R^{d x d})",
           reconstructed=True, asymptotic=False,
           model="red-blue pebble game on the dL/dX DAG (Alman & Song's gradient; the "
                 "algorithm small-cache-dx), not the attention gradients dQ, dK, dV",
           notes="For the dL/dX computation only: its inputs A1, A2, A3, E, X, Y are read "
                 "once (R1) and dL/dX is written once (R2). It is no bound for the attention "
                 "backward that returns dQ, dK, dV (those read Q, K, V, O, dO and write dQ, "
                 "dK, dV: gap.compulsory, 8nd); at n = 1, d = 16, M = 15 it is 832 while "
                 "standard attention's backward moves 214 words."),
    # ------------------------------------------------------------------ forward pass
    _bound("fwd.tight", "forward", "tight", _FWD_LARGE, _FWD_SMALL, combine="min",
           admissible=_FA_RANGE, source=f"{_SY}, Thm 3.1", explicit_id="fwd.large_explicit.lower",
           notes="SY state no M-range; DFE+22's d <= M <= n d is used throughout attnio."),
    _bound("fwd.large.lower", "forward", "lower", _FWD_LARGE, admissible=_LARGE,
           source=f"{_SY}, Lemma 3.4 (via Lemma 3.3)", explicit_id="fwd.large_explicit.lower"),
    _bound("fwd.small.lower", "forward", "lower", _FWD_SMALL, admissible=_SMALL,
           source=f"{_SY}, Thm 3.7", explicit_id="fwd.large_explicit.lower"),
    _bound("fwd.any.lower", "forward", "lower", _FWD_LARGE, n**2, combine="min",
           source=f"{_SY}, Thm 4.8",
           model="entries in a finite field F_q with q > n, cache of M field elements, any "
                 "matrix-multiplication algorithm (fast ones included) that computes every "
                 "entry of Q K^T"),
    _bound("fwd.flash1.upper", "forward", "upper", _FWD_LARGE, admissible=_FA_RANGE,
           source=f"{_DFE}, Thm 2 (Algorithm 1)", model=_ALGORITHM,
           notes="Theta(N^2 d^2/M); reconstructed (idealised) count ~ 12 n^2 d^2/M + "
                 "16 n^2 d/M + 2 n d. The executed FA-1 / FA-2 forward are within 30x for "
                 "d >= 8 / d >= 2 (claims cnt.flash1.forward, cnt.flash2.forward, on a grid), "
                 "not at d = 1."),
    _bound("fwd.square_tiling.upper", "forward", "upper", _FWD_SMALL,
           admissible=(4 <= M,) + _SMALL, source=f"{_SY}, Thm 3.5 (Algorithm 1)",
           model=_ALGORITHM,
           notes="B = floor(sqrt(M/4)); writes the n x n matrix A, affordable when M <= d^2; "
                 "reconstructed (idealised) count ~ 8 n^2 d/sqrt(M) + n^2 + n d + 2 n; the "
                 "executed square tiling needs 18x, not 12x (claim cnt.square_tiling.forward)."),
    _bound("fwd.standard", "forward", "upper", n * d + n**2, admissible=_STANDARD_RANGE,
           source=f"{_DFE}, Thm 2 (standard attention, Algorithm 0)", model=_ALGORITHM,
           reconstructed=True,
           notes="DFE+22 state d <= M <= N d; restricted to M >= d^2 as for bwd.standard "
                 "(finding F3)."),
    _bound("fwd.trivial.lower", "forward", "lower", 4 * n * d,
           source="inputs Q, K, V read once + output O written once", reconstructed=True,
           asymptotic=False),
    _bound("fwd.large_explicit.lower", "forward", "lower",
           n**2 * d**2 / (4 * (M + d**2)) - M,
           source=f"{_SY}, Lemmas 2.8 and 3.3 with the constants kept (notes/reference/background.md 1.4)",
           reconstructed=True, asymptotic=False,
           notes="Assumes binary summation trees (2d - 1 level-1 vertices each); a part of a "
                 "2M-partition meets <= 4M + 4M^2/d^2 trees."),
    # --------------------------------------------------------------------- sparse
    _bound("sparse.lower", "both", "lower", Z_in**2 / M, Z_in * sp.sqrt(Z_QK) / sp.sqrt(M),
           combine="min", source=f"{_LI}, Thm 4.5 (via Pagh & Stockel, ESA 2014)",
           reconstructed=True,
           model="red-blue pebble game, semiring (no cancellation) sparse matrix "
                 "multiplication of Q K^T",
           notes="A bound over the CLASS of masks with these (Z_in, Z_QK): the worst such "
                 "pattern (random / expander-like, as in Pagh-Stockel) needs it; NOT a lower "
                 "bound for a particular mask (window:1 flash2 backward moves 0.089x it at "
                 "n = 2^20, d = 8, M = 64; issue 21). A mask's own certified bound: "
                 "attnio.proofs.mask_bounds. Exact definitions of Z_input, Z_QK and the "
                 "M-range UNRECOVERED. The dense instance is Z_in = n d, Z_QK = n^2. No "
                 "matching upper bound is known."),
    # ----------------------------------------------------- matrix multiplication
    _bound("matmul.hk.lower", "matmul", "lower", m * k * p / sp.sqrt(M),
           source="Hong & Kung 1981, Cor. 6.2 (= Saha & Ye, Lemma 3.6, arXiv 2402.07443)",
           model=_PEBBLE + " (m x k by k x p)", explicit_id="matmul.hk_explicit.lower"),
    _bound("matmul.hk_explicit.lower", "matmul", "lower", m * k * p / sp.sqrt(2 * M) - M,
           source="Lean 4 formalisation of Hong-Kung (geoconuk/lean-misc-math, "
                  "MiscMath/Computability/RedBluePebbleGame.lean)",
           asymptotic=False,
           model="red-blue pebble game; every product A[i,l] B[l,j] is its own vertex and no "
                 "vertex depends on products of two different output entries (arbitrary "
                 "summation trees and FMA chains, not Strassen); inputs are exactly the "
                 "sources and cannot be computed",
           notes="Hypotheses: k >= 1 (implied: k is a positive integer) plus the structural "
                 "ones in `model`. Kernel-checked "
                 "per the repository's docs, not peer reviewed."),
    _bound("matmul.lean_combined.lower", "matmul", "lower", m * k * p / (2 * sp.sqrt(M)),
           source="Lean 4 formalisation of Hong-Kung (mkp <= 2 q sqrt(M))",
           asymptotic=False,
           model="as matmul.hk_explicit.lower"),
    _bound("matmul.smith.lower", "matmul", "lower", 2 * m * k * p / sp.sqrt(M) - 2 * M,
           source="Smith, Lowery, Langou, van de Geijn, arXiv 1702.02017 (as quoted by "
                  "Kwasniewski et al., COSMA, arXiv 1908.09606 section 5)",
           asymptotic=False,
           model="classical (non-Strassen) matrix multiplication transformed to FMAs; "
                 "segment argument counting reads",
           notes="Known through a secondary source; leading term 2mkp/sqrt(M) from the "
                 "abstract."),
    _bound("matmul.cosma.lower", "matmul", "lower", 2 * m * k * p / sp.sqrt(M) + m * p,
           source="Kwasniewski et al., COSMA, SC'19, Thm 1 (arXiv 1908.09606)",
           asymptotic=False,
           model="red-blue pebbling of the fixed-order FMA CDAG (partial sums C(i,j,t)); "
                 "not the summation-tree graph of Saha & Ye"),
    _bound("matmul.trivial.lower", "matmul", "lower", m * k + k * p + m * p,
           source="Lean 4 formalisation of Hong-Kung (q >= mk + kn + mn); inputs read once "
                  "+ outputs written once",
           asymptotic=False, model="as matmul.hk_explicit.lower"),
)

_BY_ID: dict[str, Bound] = {b.id: b for b in CATALOGUE}
# Invariant: ids are unique.
assert len(_BY_ID) == len(CATALOGUE)
# Invariant: explicit_id links an asymptotic lower / tight row to an explicit lower row of the
# same pass that holds at every size (no admissible range), so it holds wherever the row does.
assert all(b.asymptotic and b.kind != "upper" and _BY_ID[b.explicit_id].kind == "lower"
           and not _BY_ID[b.explicit_id].asymptotic and _BY_ID[b.explicit_id].pass_ == b.pass_
           and not _BY_ID[b.explicit_id].admissible
           for b in CATALOGUE if b.explicit_id is not None)


def catalogue_ids() -> tuple[str, ...]:
    """All catalogue ids, in catalogue order.

    >>> "bwd.tight" in catalogue_ids()
    True
    """
    return tuple(_BY_ID)


def get_bound(id: str | Bound) -> Bound:
    """The catalogue entry ``id`` (a :class:`Bound` is returned unchanged).

    Raises
    ------
    InvalidInputError
        If ``id`` is unknown; the message lists the valid ids.

    Examples
    --------
    >>> get_bound("sparse.lower").combine
    'min'
    >>> get_bound("bwd.nope")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: unknown bound id 'bwd.nope'; valid ids: bwd.tight, ...
    """
    if isinstance(id, Bound):
        return id
    try:
        return _BY_ID[id]
    except (KeyError, TypeError):
        raise InvalidInputError(
            f"unknown bound id {id!r}; valid ids: {', '.join(_BY_ID)}"
        ) from None
