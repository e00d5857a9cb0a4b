r"""Crossovers of min/max bounds, derived with sympy, and which branch wins on each side.

Proof map
---------
For a bound :math:`\min\{b_1, b_2\}` (e.g. Thm 1.1 of arXiv 2410.09397,
:math:`b_1 = (n^2d^2 + nd^3)/M`, :math:`b_2 = (n^2d + nd^2)/\sqrt{M}`):

1. :func:`crossover` solves :math:`b_1 = b_2` for :math:`M` over the positive reals with
   ``sympy.solveset`` and substitutes the solution into the bound's admissible range, giving
   the conditions under which the crossover is admissible (for Thm 1.1: :math:`M^* = d^2`,
   admissible iff :math:`d \le n`).
2. :func:`branch_ratio` computes :math:`r = b_1/b_2` (Thm 1.1: :math:`r = d/\sqrt{M}`, i.e.
   the first branch is exactly :math:`d/\sqrt{M}` times the second), checks the identity
   :math:`b_1 - r\,b_2 = 0`, and the *elasticity* :math:`e = M\,\partial_M r / r`. When
   :math:`e` is a nonzero constant, :math:`r = C\,M^{e}` is strictly monotone in :math:`M`;
   with :math:`r(M^*) = 1` this decides, on each side of :math:`M^*`, which branch is the
   minimum (Thm 1.1: :math:`e = -1/2`, so :math:`b_1` is the minimum for :math:`M > d^2`,
   :math:`b_2` for :math:`M < d^2`).
3. :func:`check_crossover` and :func:`check_branch_minimum` turn claims ("the crossover is
   :math:`d^2`", "the first branch is the minimum above it") into verdicts. A wrong claim is
   ``Refuted`` with an exact counterexample instance (the branches evaluated there).

Nothing is typed in: the solutions come out of ``solveset``.

Examples
--------
>>> from attnio.symbolic.symbols import d, Z_in, Z_QK
>>> crossover("bwd.tight").solution
d**2
>>> crossover("bwd.tight").conditions
(d <= n,)
>>> crossover("sparse.lower").solution
Z_in**2/Z_QK
>>> br = branch_ratio("bwd.tight")
>>> br.ratio, br.elasticity, br.min_branch_above, br.verdict.verdict
(d/sqrt(M), -1/2, 0, 'proved')
>>> check_crossover("fwd.tight", d**2).verdict
'proved'
>>> check_crossover("fwd.tight", d**2 / 2).verdict
'refuted'
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Literal

import sympy as sp

from attnio.exceptions import InfeasibleError, InvalidInputError
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.exact_eval import in_domain, sign_of, value_at
from attnio.smt.statements import declared_domain
from attnio.symbolic.catalogue import Bound, get_bound
from attnio.symbolic.symbols import M

__all__ = [
    "Crossover", "BranchRatio", "crossover", "branch_ratio", "check_crossover",
    "check_branch_minimum", "simplify_condition", "tidy",
]

Side = Literal["above", "below"]


@dataclass(frozen=True)
class Crossover:
    """The value of ``variable`` where the two branches of a min/max bound are equal.

    Attributes
    ----------
    bound_id : str
    variable : sympy.Symbol
        The variable solved for (``M`` by default).
    solution : sympy.Expr
        The unique positive solution of ``branch_1 == branch_2`` (e.g. ``d**2``).
    conditions : tuple of sympy relationals
        The bound's admissible range at ``variable = solution``, simplified; empty when always
        admissible. A ``False`` entry means the crossover is never admissible.
    steps : tuple of str
        The derivation, one step per line.
    """

    bound_id: str
    variable: sp.Symbol
    solution: sp.Expr
    conditions: tuple[sp.Basic, ...]
    steps: tuple[str, ...]

    @property
    def derivation(self) -> str:
        """The derivation steps as one text."""
        return "\n".join(self.steps)


@dataclass(frozen=True)
class BranchRatio:
    """``branch_1 / branch_2`` of a two-branch bound and which branch wins on each side.

    Attributes
    ----------
    ratio : sympy.Expr
        ``simplify(branch_1 / branch_2)``.
    elasticity : sympy.Expr
        ``simplify(M * diff(ratio, M) / ratio)``; a nonzero number means ``ratio = C * M**e``.
    crossover : Crossover
    min_branch_above, min_branch_below : int or None
        0-based index of the smaller branch for ``M`` above / below the crossover (None when
        undecided).
    verdict : Verdict
        Proved when the identity, the constant elasticity and ``ratio(M*) = 1`` all hold.
    """

    bound_id: str
    ratio: sp.Expr
    elasticity: sp.Expr
    crossover: Crossover
    min_branch_above: int | None
    min_branch_below: int | None
    verdict: Verdict


def _two_branches(bound: Bound) -> tuple[sp.Expr, sp.Expr]:
    if len(bound.branches) != 2 or bound.combine is None:
        raise InvalidInputError(
            f"{bound.id} has {len(bound.branches)} branches; a crossover needs a min or max "
            "of exactly 2"
        )
    return bound.branches[0], bound.branches[1]


def tidy(expr: sp.Basic) -> sp.Basic:
    """``expr`` in lowest terms: ``powsimp(cancel(expr))`` when it is built from numbers and
    symbols by ``+``, ``*`` and ``**`` only (a rational function of the symbols and their
    powers, e.g. ``d/sqrt(M)``); ``sympy.simplify`` otherwise.

    The derivations call this instead of ``simplify`` on the command line's path: ``cancel``
    puts a rational function in lowest terms, which is all a branch ratio needs, and is an
    equality transform; ``simplify`` tries some twenty rewrites and, on its first call in a
    process, imports ``sympy.physics.units`` (0.13 s of a 0.8 s start-up budget, issue 40).
    tests/symbolic/test_crossovers.py checks that every catalogue crossover derives the same
    ratio, solution and conditions either way.

    Examples
    --------
    >>> from attnio.symbolic.symbols import M, d, n
    >>> tidy(((d**3*n + d**2*n**2) / M) / ((d**2*n + d*n**2) / sp.sqrt(M)))
    d/sqrt(M)
    >>> tidy(sp.Min(n, d) / d)          # not a rational function: simplify's answer
    Min(d, n)/d
    """
    expr = sp.sympify(expr)
    if all(isinstance(node, (sp.Add, sp.Mul, sp.Pow, sp.Symbol, sp.Number))
           for node in sp.preorder_traversal(expr)):
        return sp.powsimp(sp.cancel(expr))
    return sp.simplify(expr)


def simplify_condition(rel: sp.Basic) -> sp.Basic:
    """Simplify an inequality between positive expressions by dividing out common factors.

    ``a <= b`` with ``a, b > 0`` is rewritten as ``num <= den`` where ``num/den`` is the
    simplified ``a/b`` (valid because ``den > 0``).

    Examples
    --------
    >>> from attnio.symbolic.symbols import d, n
    >>> simplify_condition(d**2 <= n * d)
    d <= n
    >>> simplify_condition(d <= d**2)
    True
    """
    if isinstance(rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
        lhs, rhs = rel.lhs, rel.rhs
        if lhs.is_positive and rhs.is_positive:
            num, den = sp.fraction(tidy(lhs / rhs))
            if den.is_positive:
                return rel.func(num, den)
    return sp.simplify(rel)


def crossover(bound_or_id: Bound | str, variable: sp.Symbol = M) -> Crossover:
    r"""Solve ``branch_1 == branch_2`` for ``variable`` (default ``M``) with sympy.

    Parameters
    ----------
    bound_or_id : Bound or str
        A two-branch min/max bound, e.g. ``"bwd.tight"``, ``"fwd.tight"``, ``"sparse.lower"``.
    variable : sympy.Symbol
        The symbol to solve for.

    Returns
    -------
    Crossover

    Raises
    ------
    InvalidInputError
        The bound is unknown or does not have exactly two branches.
    InfeasibleError
        The branch equality has no unique positive solution.

    Notes
    -----
    The equation is solved for a positive *real* stand-in of ``variable``: where two real
    functions meet does not depend on ``M`` being an integer.

    Examples
    --------
    >>> c = crossover("fwd.tight")
    >>> c.solution, c.conditions
    (d**2, (d <= n,))
    >>> print(c.derivation.splitlines()[1])
    branch ratio: b1/b2 = d/sqrt(M)
    """
    return _derive(get_bound(bound_or_id), variable)


# Memoised because the derivation is pure (frozen Bound in, frozen Crossover out) and
# solveset costs ~0.05-0.3 s; the CLI and advisor ask for the same three crossovers repeatedly.
@functools.lru_cache(maxsize=64)
def _derive(bound: Bound, variable: sp.Symbol) -> Crossover:
    b1, b2 = _two_branches(bound)
    x = sp.Dummy(variable.name, positive=True)
    e1, e2 = b1.subs(variable, x), b2.subs(variable, x)
    ratio = tidy(b1 / b2)
    steps = [f"solve b1 = b2 for {variable} > 0, b1 = {b1}, b2 = {b2}",
             f"branch ratio: b1/b2 = {ratio}"]
    if e2.is_positive:
        # b1 = b2 <=> b1/b2 = 1 where b2 > 0 (its symbols' declared assumptions): the same
        # solution set, and solveset finds it on the simplified ratio in a third of the time
        solutions = sp.solveset(sp.Eq(ratio.subs(variable, x), 1), x, sp.Interval.open(0, sp.oo))
        equation = "b1/b2 = 1 (b2 > 0)"
    else:
        solutions = sp.solveset(sp.Eq(e1, e2), x, sp.Interval.open(0, sp.oo))
        equation = "b1 - b2 = 0"
    steps.append(f"solveset({equation}, {variable}, (0, oo)) = {solutions.subs(x, variable)}")
    if not isinstance(solutions, sp.FiniteSet) or len(solutions) != 1:
        raise InfeasibleError(
            f"{bound.id}: branch equality has solution set {solutions} (need exactly one)"
        )
    (solution,) = tuple(solutions)
    solution = tidy(solution)
    conditions = []
    for rel in bound.admissible:
        if variable not in rel.free_symbols:
            continue
        cond = simplify_condition(rel.subs(variable, solution))
        steps.append(f"admissible {rel} at {variable} = {solution}: {cond}")
        if cond is not sp.true:
            conditions.append(cond)
    return Crossover(bound.id, variable, solution, tuple(conditions), tuple(steps))


def branch_ratio(bound_or_id: Bound | str, variable: sp.Symbol = M) -> BranchRatio:
    r"""The symbolic argument that each branch is the minimum (or maximum) on its side.

    Returns :math:`r = b_1/b_2`, its elasticity :math:`e = M\,r'(M)/r` and the crossover
    :math:`M^*`. When :math:`e` is a nonzero constant and :math:`r(M^*) = 1`, the sign of
    :math:`e` decides the winner: for a min, :math:`b_1` is smaller above :math:`M^*` iff
    :math:`e < 0`. The verdict is Proved only if ``simplify(b1 - r*b2) == 0``, ``e`` is a
    nonzero number and ``simplify(r(M*) - 1) == 0``; otherwise Undecided.

    Examples
    --------
    >>> br = branch_ratio("sparse.lower")
    >>> br.ratio
    Z_in/(sqrt(M)*sqrt(Z_QK))
    >>> br.min_branch_above, br.min_branch_below
    (0, 1)
    """
    bound = get_bound(bound_or_id)
    b1, b2 = _two_branches(bound)
    cross = crossover(bound, variable)
    ratio = sp.simplify(b1 / b2)
    elasticity = sp.simplify(variable * sp.diff(ratio, variable) / ratio)
    identity = sp.simplify(b1 - ratio * b2) == 0
    at_crossover = sp.simplify(ratio.subs(variable, cross.solution) - 1) == 0
    if not (identity and elasticity.is_number and elasticity != 0 and at_crossover):
        return BranchRatio(bound.id, ratio, elasticity, cross, None, None, Undecided(
            f"{bound.id}: identity={identity}, elasticity={elasticity}, "
            f"ratio(M*)=1: {at_crossover}; cannot decide the winner on each side"))
    b1_smaller_above = bool(elasticity < 0)  # r decreasing: r < 1 above M*
    first_wins_above = b1_smaller_above if bound.combine == "min" else not b1_smaller_above
    above = 0 if first_wins_above else 1
    detail = (f"b1 = ({ratio})*b2 (simplify(b1 - r*b2) == 0); M*dr/dM / r = {elasticity}, so "
              f"r = C*{variable}**({elasticity}); r({cross.solution}) = 1; hence the "
              f"{bound.combine}"
              f" is branch {above + 1} for {variable} > {cross.solution} and branch {2 - above}"
              f" for {variable} < {cross.solution}")
    return BranchRatio(bound.id, ratio, elasticity, cross, above, 1 - above,
                       Proved(detail, evidence=Evidence("sympy-canonical")))


def _grid(symbols: list[sp.Symbol], limit: int = 60) -> list[dict[sp.Symbol, int]]:
    """Small positive integer points (2..9) for the given symbols, deterministic order."""
    points = itertools.product((4, 2, 3, 8, 9, 16), repeat=len(symbols))
    return [dict(zip(symbols, pt)) for pt in itertools.islice(points, limit)]


def check_crossover(bound_or_id: Bound | str, claimed: sp.Expr,
                    variable: sp.Symbol = M) -> Verdict:
    """Check the claim "the branches of the bound cross at ``variable = claimed``".

    Proved when the derived crossover equals ``claimed`` (``simplify(a - b) == 0``);
    Refuted with an instance where, at ``variable = claimed``, the two branches differ
    (exact values); Undecided if neither can be shown.

    Examples
    --------
    >>> from attnio.symbolic.symbols import Z_in, Z_QK
    >>> check_crossover("sparse.lower", Z_in**2 / Z_QK).verdict
    'proved'
    >>> r = check_crossover("bwd.tight", 2 * crossover("bwd.tight").solution)
    >>> r.verdict, sorted(r.counterexample)
    ('refuted', ['M', 'branch_1', 'branch_2', 'd', 'n'])
    """
    bound = get_bound(bound_or_id)
    b1, b2 = _two_branches(bound)
    derived = crossover(bound, variable).solution
    if sp.simplify(derived - claimed) == 0:
        return Proved(f"solveset gives {variable} = {derived}; simplify(derived - claimed) == 0",
                      evidence=Evidence("sympy-canonical"))
    others = sorted((b1.free_symbols | b2.free_symbols | claimed.free_symbols) - {variable},
                    key=lambda s: s.name)
    for point in _grid(others):
        witness = _exact_point(point, variable, claimed)
        if witness is None:
            continue
        v1, v2 = value_at(b1, witness), value_at(b2, witness)
        if v1 is None or v2 is None:
            continue
        if sign_of(v1 - v2) not in (0, None):
            ce: dict[str, object] = {s.name: v for s, v in witness.items()}
            ce.update({"branch_1": v1, "branch_2": v2})
            return Refuted(ce, f"at {variable} = {claimed} the branches differ, evaluated "
                               f"exactly (derived crossover {variable} = {derived})",
                           evidence=Evidence("exact-arithmetic"))
    return Undecided(f"derived {derived} differs symbolically from {claimed} but no "
                     "witness instance was found on the grid")


def _exact_point(point: dict[sp.Symbol, int], variable: sp.Symbol, value: sp.Expr
                 ) -> dict[sp.Symbol, sp.Expr] | None:
    """``point`` plus ``variable = value`` evaluated exactly there, if that lies in the
    variable's declared domain (an integer M needs an integer value); else ``None``."""
    at = value_at(value, point)
    domain = declared_domain(variable)
    if at is None or domain is None or in_domain(at, domain) is not True:
        return None
    return {**{s: sp.Integer(v) for s, v in point.items()}, variable: at}


def check_branch_minimum(bound_or_id: Bound | str, branch: int, side: Side,
                         variable: sp.Symbol = M) -> Verdict:
    """Check the claim "branch ``branch`` (0-based) is the min/max for ``variable`` on ``side``
    of the crossover".

    Proved from :func:`branch_ratio`; Refuted with an instance on that side (``variable``
    four times above or below the crossover) where the claimed branch loses.

    Examples
    --------
    >>> check_branch_minimum("bwd.tight", 0, "above").verdict
    'proved'
    >>> r = check_branch_minimum("bwd.tight", 0, "below")
    >>> r.verdict, r.counterexample["M"] < r.counterexample["d"] ** 2
    ('refuted', True)
    """
    if side not in ("above", "below"):
        raise InvalidInputError(f"side={side!r} must be 'above' or 'below'")
    br = branch_ratio(bound_or_id, variable)
    if not br.verdict.proved:
        return br.verdict
    bound = get_bound(bound_or_id)
    if branch not in (0, 1):
        raise InvalidInputError(f"branch={branch} must be 0 or 1")
    winner = br.min_branch_above if side == "above" else br.min_branch_below
    if winner == branch:
        return Proved(br.verdict.detail, evidence=Evidence("sympy-canonical"))
    factor = sp.Integer(4) if side == "above" else sp.Rational(1, 4)
    b = bound.branches
    others = sorted((b[0].free_symbols | b[1].free_symbols | br.crossover.solution.free_symbols)
                    - {variable}, key=lambda s: s.name)
    for point in _grid(others):
        witness = _exact_point(point, variable, factor * br.crossover.solution)
        if witness is None:
            continue
        values = [value_at(x, witness) for x in b]
        if values[0] is None or values[1] is None:
            continue
        v: list[sp.Expr] = [values[0], values[1]]
        sign = sign_of(v[branch] - v[1 - branch])
        claimed_loses = sign == 1 if bound.combine == "min" else sign == -1
        if claimed_loses:
            ce: dict[str, object] = {s.name: val for s, val in witness.items()}
            ce.update({"branch_1": v[0], "branch_2": v[1]})
            return Refuted(ce, f"branch {branch + 1} is not the {bound.combine} {side} "
                               f"{variable} = {br.crossover.solution} (exact evaluation)",
                           evidence=Evidence("exact-arithmetic"))
    return Undecided("claim contradicts the derivation but no witness was found on the grid")
