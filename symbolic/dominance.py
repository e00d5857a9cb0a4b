r"""Asymptotic dominance between bounds, decided exactly in exponent space.

Put every size in base :math:`d`: :math:`n = d^\beta`, :math:`M = d^\alpha`,
:math:`Z_{in} = d^{\zeta_{in}}`, :math:`Z_{QK} = d^{\zeta_{qk}}`, :math:`m = d^\mu`,
:math:`k = d^\kappa`, :math:`p = d^\rho`, and let :math:`d \to \infty` with the exponents fixed.
A bound built from positive monomials by sums, products, powers, min and max then grows like
:math:`d^{e}` with a *growth exponent* :math:`e` that is piecewise linear in the exponents:

* a monomial :math:`c\,n^a d^b M^c` has exponent :math:`a\beta + b + c\alpha`;
* a sum of positive terms has the **max** of their exponents;
* a product adds exponents, a power multiplies them;
* :math:`\min` / :math:`\max` of branches takes the min / max of their exponents;
* a negative term :math:`-t` leaves the exponent of the positive part :math:`P`, but only where
  :math:`e(P) > e(t)` strictly; that condition is returned with the exponent and must follow
  from the region, otherwise the comparison is Undecided.

For two bounds :math:`A, B` with exponents :math:`e_A, e_B`, :math:`A/B \to \infty`, :math:`0` or
stays :math:`\Theta(1)` at a point of exponent space according to the sign of
:math:`\Delta = e_A - e_B`. :func:`compare` decides the sign of :math:`\Delta` over a region
(linear side constraints such as :math:`1 \le \alpha \le 1 + \beta`, :math:`\beta \ge 1`) with
z3 linear real arithmetic (max/min become if-then-else): the outcome is

* ``"same order"`` — :math:`\Delta = 0` on the whole region;
* ``"dominates"`` — :math:`\Delta \ge 0` everywhere and :math:`> 0` somewhere
  (:math:`A = \Omega(B)`);
* ``"dominated"`` — :math:`\Delta \le 0` everywhere and :math:`< 0` somewhere (:math:`A = O(B)`);
* ``"incomparable"`` — :math:`\Delta` takes both signs;
* ``"undecided"`` (:attr:`attnio.results.Status.UNDECIDED`) — z3 answered unknown, or a
  negative term's condition does not follow.

The result's ``status`` is in attnio's one vocabulary (:class:`attnio.results.Status`):
``proved`` when the outcome was decided, ``undecided`` otherwise.

plus the split of the region into the pieces where :math:`\Delta > 0`, :math:`= 0`, :math:`< 0`.
A piece is described by a single linear relation when one is exactly equivalent (z3-checked),
e.g. ``alpha < 2``; otherwise by the sign condition on :math:`\Delta` itself.

Proof map: :func:`growth_exponent` (the rules above), :func:`compare` (the decision),
:func:`check_sign` (one claim "Δ has sign s on region R" as a verdict; a refutation carries the
exponent point where it fails).

Examples
--------
>>> from attnio.symbolic.symbols import alpha, beta
>>> growth_exponent("bwd.flash1.upper").expr
-alpha + 2*beta + 2
>>> r = compare("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION)
>>> r.outcome
'incomparable'
>>> [(p.outcome, p.conditions) for p in r.pieces]
[('dominates', (alpha < 2,)), ('same order', (Eq(alpha, 2),)), ('dominated', (alpha > 2,))]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.results import OlderNames, Proved, Refuted, Status, Undecided, Verdict
from attnio.smt.exact_eval import truth_at
from attnio.smt.statements import declared_domains
from attnio.symbolic.catalogue import Bound, get_bound
from attnio.symbolic.symbols import (
    EXPONENT_OF,
    Z_QK,
    Z_in,
    alpha,
    beta,
    d,
    k,
    kappa,
    m,
    mu,
    n,
    p,
    rho,
    zeta_in,
    zeta_qk,
)

__all__ = [
    "Exponent", "Piece", "DominanceResult", "DEFAULT_REGION", "DENSE_INSTANCE",
    "growth_exponent", "compare", "check_sign", "admissible_region",
]

Outcome = Literal["dominates", "dominated", "same order", "incomparable", Status.UNDECIDED]
Sign = Literal["positive", "zero", "negative", "nonnegative", "nonpositive"]

#: Side constraints used throughout: d <= M <= n d (DFE+22's range) and n >= d.
DEFAULT_REGION: tuple[sp.Basic, ...] = (alpha >= 1, alpha <= 1 + beta, beta >= 1)

#: Dense attention instance for the sparse and matmul symbols (Z_in = n d, Z_QK = n^2,
#: m = p = n, k = d): the product Q K^T.
DENSE_INSTANCE: dict[sp.Symbol, sp.Expr] = {Z_in: n * d, Z_QK: n**2, m: n, k: d, p: n}

_EXPONENT_SYMBOLS = (alpha, beta, zeta_in, zeta_qk, mu, kappa, rho)
_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Exponent:
    """Growth exponent in base d: ``expr`` (piecewise linear, sympy Max/Min of linear forms),
    valid where every relation of ``validity`` holds (empty for sums of positive terms)."""

    expr: sp.Expr
    validity: tuple[sp.Basic, ...] = ()


@dataclass(frozen=True)
class Piece:
    """A sub-region where ``A/B`` behaves one way: ``outcome`` is ``"dominates"`` (Δ > 0),
    ``"same order"`` (Δ = 0) or ``"dominated"`` (Δ < 0); ``conditions`` (with the region)
    describe it exactly; ``witness`` is one exponent point in it (exact Fractions)."""

    outcome: str
    conditions: tuple[sp.Basic, ...]
    witness: dict[str, Fraction]


@dataclass(frozen=True)
class DominanceResult(OlderNames):
    """The outcome of :func:`compare`; see the module docstring for the meaning of each field.

    ``verdict`` is :attr:`~attnio.results.Status.PROVED` when ``outcome`` was decided and
    :attr:`~attnio.results.Status.UNDECIDED` (then ``outcome`` is that same member) otherwise;
    ``detail`` says why it was not decided (``status`` and ``reason`` are the older names).
    """

    a: str
    b: str
    exponent_a: Exponent
    exponent_b: Exponent
    difference: sp.Expr
    region: tuple[sp.Basic, ...]
    outcome: Outcome
    pieces: tuple[Piece, ...]
    detail: str = ""

    @property
    def verdict(self) -> Status:
        """``undecided`` when the comparison was not decided, else ``proved``."""
        return Status.UNDECIDED if self.outcome == Status.UNDECIDED else Status.PROVED


# ----------------------------------------------------------------------------- exponents
def _exponent(e: sp.Expr) -> tuple[sp.Expr, list[sp.Basic]]:
    if e.is_Number:
        if e.is_positive:
            return sp.Integer(0), []
        raise InvalidInputError(f"growth exponent of the non-positive constant {e} is undefined")
    if e.is_Symbol:
        if e in EXPONENT_OF:
            return EXPONENT_OF[e], []
        raise InvalidInputError(f"{e} is not a size symbol")
    if e.is_Pow and e.exp.is_Number:
        inner, cond = _exponent(e.base)
        return e.exp * inner, cond
    if e.is_Mul:
        coeff, rest = e.as_coeff_Mul()
        if coeff.is_negative:
            raise InvalidInputError(f"negative product {e} outside a sum")
        total: sp.Expr = sp.Integer(0)
        conds: list[sp.Basic] = []
        for factor in sp.Mul.make_args(rest):
            ex, c = _exponent(factor)
            total, conds = total + ex, conds + c
        return sp.expand(total), conds
    if e.is_Add:
        positive: list[sp.Expr] = []
        negative: list[sp.Expr] = []
        conds = []
        for term in e.args:
            coeff, _ = term.as_coeff_Mul()
            ex, c = _exponent(-term if coeff.is_negative else term)
            (negative if coeff.is_negative else positive).append(ex)
            conds += c
        if not positive:
            raise InvalidInputError(f"{e} has no positive term")
        top = sp.Max(*positive)
        return top, conds + [sp.StrictGreaterThan(top, q) for q in negative]
    if isinstance(e, (sp.Min, sp.Max)):
        parts = [_exponent(a) for a in e.args]
        combined = type(e)(*(ex for ex, _ in parts))
        return combined, [c for _, cs in parts for c in cs]
    raise InvalidInputError(f"cannot take the growth exponent of {e} ({type(e).__name__})")


def growth_exponent(bound: Bound | str | sp.Expr,
                    substitute: dict[sp.Symbol, sp.Expr] | None = None) -> Exponent:
    r"""The growth exponent in base :math:`d` of a bound or expression.

    Parameters
    ----------
    bound : Bound, catalogue id or sympy expression
    substitute : dict, optional
        Applied to the expression first, e.g. :data:`DENSE_INSTANCE`.

    Raises
    ------
    InvalidInputError
        For constructs outside the rules (logs, ceilings, non-numeric powers).

    Examples
    --------
    >>> from attnio.symbolic.symbols import n, d, M
    >>> growth_exponent((n**2 * d**2 + n * d**3) / M).expr
    -alpha + Max(beta + 3, 2*beta + 2)
    >>> growth_exponent("matmul.smith.lower").validity
    (-alpha/2 + kappa + mu + rho > alpha,)
    """
    expr = _expression(bound)
    if substitute:
        expr = expr.subs(substitute)
    ex, conds = _exponent(expr)
    return Exponent(ex, tuple(conds))


def _expression(x: Bound | str | sp.Expr) -> sp.Expr:
    if isinstance(x, sp.Basic):
        return x
    return get_bound(x).expr


def _label(x: Bound | str | sp.Expr) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, Bound):
        return x.id
    return str(x)


def admissible_region(bound: Bound | str) -> tuple[sp.Basic, ...]:
    """A bound's admissible range translated to exponent space (``lhs <= rhs`` becomes
    ``e(lhs) <= e(rhs)``, the condition as d grows).

    Examples
    --------
    >>> admissible_region("bwd.flash1.upper")
    (1 <= alpha, alpha <= beta + 1)
    """
    out = []
    for rel in get_bound(bound).admissible:
        lhs, _ = _exponent(rel.lhs)
        rhs, _ = _exponent(rel.rhs)
        out.append(rel.func(lhs, rhs))
    return tuple(r for r in out if r is not sp.true)


# ------------------------------------------------------------------------------ z3 layer
def _satisfiable(constraints: list[sp.Basic]) -> tuple[bool | None, dict[str, Fraction]]:
    """(True, model) / (False, {}) / (None, {}) for sat / unsat / unknown.

    The constraints are translated by the one sympy → SMT bridge,
    :class:`attnio.smt.sympy_to_z3.Translator`, with each exponent's declared domain."""
    import z3  # here, not at the top: `attnio bounds` never imports z3

    from attnio.smt.sympy_to_z3 import Translator

    domains = declared_domains(constraints, "exponent symbol")
    translator = Translator(domains)
    solver = z3.Solver()
    solver.set("timeout", _TIMEOUT_MS)
    solver.add(*translator.side_conditions)
    for c in constraints:
        if c is sp.true:
            continue
        solver.add(translator.rel(c))
    answer = solver.check()
    if answer == z3.unsat:
        return False, {}
    if answer != z3.sat:
        return None, {}
    point = translator.point(solver.model())
    out: dict[str, Fraction] = {}
    for sym, value in point.items():
        if not value.is_Rational:  # linear constraints have rational models
            return None, {}
        out[sym.name] = Fraction(int(value.p), int(value.q))
    return True, out


_SIGN_REL = {"positive": sp.StrictGreaterThan, "zero": sp.Eq, "negative": sp.StrictLessThan,
             "nonnegative": sp.GreaterThan, "nonpositive": sp.LessThan}
_NEGATION = {"positive": "nonpositive", "zero": None, "negative": "nonnegative",
             "nonnegative": "negative", "nonpositive": "positive"}


def _sign_constraint(delta: sp.Expr, sign: str) -> sp.Basic:
    return _SIGN_REL[sign](delta, 0)


def _implies(premises: list[sp.Basic], conclusion: sp.Basic) -> bool | None:
    """premises ⇒ conclusion (True / False / None when z3 is unknown)."""
    sat, _ = _satisfiable(premises + [sp.Not(conclusion) if not isinstance(conclusion, sp.Eq)
                                      else sp.Ne(conclusion.lhs, conclusion.rhs)])
    return None if sat is None else not sat


# -------------------------------------------------------------------------- decisions
def check_sign(a: Bound | str | sp.Expr, b: Bound | str | sp.Expr,
               region: tuple[sp.Basic, ...], sign: Sign,
               substitute: dict[sp.Symbol, sp.Expr] | None = None) -> Verdict:
    r"""Decide the claim ":math:`\Delta = e_A - e_B` has ``sign`` everywhere on ``region``".

    ``"positive"`` means :math:`A/B \to \infty`, ``"negative"`` :math:`A/B \to 0`, ``"zero"``
    :math:`A/B = \Theta(1)`, ``"nonpositive"`` :math:`A = O(B)`, ``"nonnegative"``
    :math:`A = \Omega(B)`, at every point of the region as :math:`d \to \infty`.

    Returns
    -------
    Verdict
        Proved (z3: region ∧ ¬claim unsat), Refuted (the exponent point where it fails, with
        Δ there, exact), Undecided (z3 unknown, or a negative-term condition not implied).

    Examples
    --------
    >>> from attnio.symbolic.symbols import alpha
    >>> check_sign("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION + (alpha < 2,),
    ...            "positive").verdict
    'proved'
    >>> r = check_sign("bwd.flash1.upper", "bwd.alg6.upper", DEFAULT_REGION + (alpha < 2,),
    ...                "negative")
    >>> r.verdict, r.counterexample["alpha"] < 2
    ('refuted', True)
    """
    if sign not in _SIGN_REL:
        raise InvalidInputError(f"sign={sign!r} must be one of {', '.join(_SIGN_REL)}")
    ea, eb = growth_exponent(a, substitute), growth_exponent(b, substitute)
    delta = ea.expr - eb.expr
    region_list = list(region)
    if not _satisfiable(region_list)[0]:
        return Undecided(f"region {region} is empty (or z3 unknown)")
    for cond in ea.validity + eb.validity:
        implied = _implies(region_list, cond)
        if implied is not True:
            return Undecided(f"growth exponent needs {cond}, which the region does not imply")
    negation = _NEGATION[sign]
    violations = [_sign_constraint(delta, negation)] if negation else [sp.Ne(delta, 0)]
    sat, model = _satisfiable(region_list + violations)
    if sat is None:
        return Undecided(f"z3 unknown deciding Δ {sign} on {region}, Δ = {delta}")
    if sat is False:
        return Proved(f"z3 LRA: region ∧ ¬(Δ {sign}) unsat, Δ = {delta}")
    # Refuted only with a point re-evaluated exactly: inside the region, the sign violated.

    free = set(delta.free_symbols).union(*(c.free_symbols for c in region_list))
    at = {sym: sp.Rational(model[sym.name].numerator, model[sym.name].denominator)
          for sym in free if sym.name in model}
    if not (all(truth_at(c, at) is True for c in region_list)
            and all(truth_at(v, at) is True for v in violations)):
        return Undecided(f"z3's exponent point {model} does not re-evaluate exactly to a "
                         f"violation of Δ {sign} inside the region")
    model["delta"] = Fraction(str(sp.nsimplify(delta.xreplace(at))))
    return Refuted(model, f"Δ = {delta} is not {sign} at this exponent point (re-evaluated "
                          "exactly)")


def _atoms(e: sp.Expr) -> list[sp.Expr]:
    """The linear forms a piecewise-linear exponent is built from."""
    if isinstance(e, (sp.Max, sp.Min)):
        return [x for a in e.args for x in _atoms(a)]
    if e.is_Mul:
        coeff, rest = e.as_coeff_Mul()
        return [coeff * x for x in _atoms(rest)]
    if e.is_Add and any(isinstance(a, (sp.Max, sp.Min)) for a in e.args):
        parts = [_atoms(a) for a in e.args]
        return [sp.Add(*combo) for combo in itertools.product(*parts)]
    return [e]


def _normalise(h: sp.Expr) -> sp.Expr | None:
    """``h`` scaled so its first exponent symbol has coefficient 1 (None if not a non-constant
    linear form), so that parallel duplicates coincide."""
    if h.has(sp.Max, sp.Min) or not h.free_symbols:
        return None
    for var in _EXPONENT_SYMBOLS:
        c = h.coeff(var)
        if c != 0 and c.is_number:
            return sp.expand(h / c)
    return None


def _pretty(h: sp.Expr, rel: type) -> sp.Basic:
    """``rel(h, 0)`` solved for its first exponent symbol (alpha, beta, ... order)."""
    for var in _EXPONENT_SYMBOLS:
        c = h.coeff(var)
        if c != 0 and c.is_number:
            rhs = sp.simplify(-(h - c * var) / c)
            flipped = {sp.StrictLessThan: sp.StrictGreaterThan, sp.StrictGreaterThan:
                       sp.StrictLessThan, sp.LessThan: sp.GreaterThan, sp.GreaterThan:
                       sp.LessThan, sp.Eq: sp.Eq}
            return (rel if c > 0 else flipped[rel])(var, rhs)
    return rel(h, 0)


def _describe(piece: list[sp.Basic], region: list[sp.Basic],
              candidates: list[sp.Expr]) -> tuple[sp.Basic, ...] | None:
    """One linear relation equivalent (within the region) to the piece's constraints; ``()``
    when the piece is the whole region; None when no candidate matches."""
    if all(_implies(region, c) is True for c in piece[len(region):]):
        return ()
    for h in candidates:
        for rel in (sp.StrictLessThan, sp.Eq, sp.StrictGreaterThan, sp.LessThan, sp.GreaterThan):
            cond = rel(h, 0)
            if _implies(piece, cond) is True and all(
                    _implies(region + [cond], c) is True for c in piece[len(region):]):
                return (_pretty(h, rel),)
    return None


def compare(a: Bound | str | sp.Expr, b: Bound | str | sp.Expr,
            region: tuple[sp.Basic, ...] = DEFAULT_REGION,
            substitute: dict[sp.Symbol, sp.Expr] | None = None,
            within_admissible: bool = False) -> DominanceResult:
    r"""Compare the growth of ``a`` and ``b`` over ``region`` of exponent space.

    Parameters
    ----------
    a, b : Bound, catalogue id or sympy expression
    region : tuple of sympy relationals in ``alpha, beta, ...``
        Linear side constraints (default :data:`DEFAULT_REGION`: 1 <= alpha <= 1 + beta,
        beta >= 1).
    substitute : dict, optional
        Applied to both expressions first (e.g. :data:`DENSE_INSTANCE`).
    within_admissible : bool
        Also intersect the region with both bounds' admissible ranges (exponent form).

    Returns
    -------
    DominanceResult
        ``outcome`` and the ``pieces`` where Δ > 0, = 0, < 0 (only the nonempty ones).

    Raises
    ------
    InvalidInputError
        The region is empty, or an expression is outside the exponent rules.

    Examples
    --------
    >>> from attnio.symbolic.symbols import n, d, M, beta
    >>> r = compare(n * d**3 / M, n**2 * d**2 / M, (beta > 0,))
    >>> [(p.outcome, p.conditions) for p in r.pieces]
    [('dominates', (beta < 1,)), ('same order', (Eq(beta, 1),)), ('dominated', (beta > 1,))]
    >>> compare("sparse.lower", "fwd.tight", substitute=DENSE_INSTANCE).outcome
    'same order'
    """
    ea, eb = growth_exponent(a, substitute), growth_exponent(b, substitute)
    delta = ea.expr - eb.expr
    full = tuple(region)
    if within_admissible:
        for x in (a, b):
            if not isinstance(x, sp.Basic):
                full += admissible_region(x)
    region_list = list(full)
    labels = (_label(a), _label(b))
    nonempty, _ = _satisfiable(region_list)
    if nonempty is None:
        return DominanceResult(*labels, ea, eb, delta, full, Status.UNDECIDED, (),
                               "z3 unknown on the region")
    if not nonempty:
        raise InvalidInputError(f"region {full} is empty")
    for cond in ea.validity + eb.validity:
        if _implies(region_list, cond) is not True:
            return DominanceResult(*labels, ea, eb, delta, full, Status.UNDECIDED, (),
                                   f"growth exponent needs {cond}, not implied by the region")
    candidates: dict[sp.Expr, None] = {}  # normalised hyperplanes, insertion-ordered
    atoms = _atoms(ea.expr) + _atoms(eb.expr)
    for x, y in itertools.combinations(atoms, 2):
        h = _normalise(sp.expand(x - y))
        if h is not None:
            candidates.setdefault(h)
    pieces: list[Piece] = []
    for sign, outcome in (("positive", "dominates"), ("zero", "same order"),
                          ("negative", "dominated")):
        piece = region_list + [_sign_constraint(delta, sign)]
        sat, witness = _satisfiable(piece)
        if sat is None:
            return DominanceResult(*labels, ea, eb, delta, full, Status.UNDECIDED, (),
                                   f"z3 unknown on the {sign} piece")
        if sat:
            described = _describe(piece, region_list, list(candidates))
            conditions = described if described is not None else (_sign_constraint(delta, sign),)
            pieces.append(Piece(outcome, conditions, witness))
    kinds = {p.outcome for p in pieces}
    if "dominates" in kinds and "dominated" in kinds:
        overall: Outcome = "incomparable"
    elif "dominates" in kinds:
        overall = "dominates"
    elif "dominated" in kinds:
        overall = "dominated"
    else:
        overall = "same order"
    return DominanceResult(*labels, ea, eb, delta, full, overall, tuple(pieces))
