r"""The statement of each algebra claim, captured from the checker its check calls.

The Coq kernel (:mod:`attnio.proofs.coq_kernel`) re-proves what a claim's check asks its
checker; this module finds it.

A claim is a closure; its statement is what its check gives to a checker. :func:`capture`
runs the check once with every checker of :data:`CHECKERS` replaced by a recorder that
keeps its arguments and returns ``Undecided`` (no solver runs): what Coq proves is exactly
what z3 is asked. A checker is replaced in every attnio module that imports it (found by
identity, so a new claim module is covered), and put back afterwards.

================================  ============================================================
checker                           the statement Coq proves
================================  ============================================================
``prove_statement(g, hyps)``      ``hyps ⇒ g`` (the kernel's call of ``z3_claim``)
``check_identity(a, b)``          ``a = b``
``sympy_chain(P, steps, G)``      the chain: each step, the composition, ``P ⇒ G``
``check_crossover(B, c)``         ``b1 = b2 ⇔ M = c`` (B's two branches)
``check_branch_minimum(B, i, s)`` ``M > M*`` (``<`` below) ``⇒ min(b1, b2) = b_i``, with
                                  ``M*`` the crossover sympy derived
``branch_ratio(B)`` then          ``b1 = r · b2`` (the ratio claim of ``B``)
``check_catalogue_identity(·, r)``
``check_sign(A, B, R, sign)``     ``R ⇒ Δ ⋈ 0`` for ``Δ = e_A − e_B`` (growth exponents), and
                                  the exponents' validity conditions
``check_chain`` (z3 terms)        the chain read back into sympy (:func:`sympy_of_z3`; its
                                  formulas are written by hand in z3, not by the bridge)
================================  ============================================================

A check that would decide part of its claim by another path — calling z3 itself — is
not captured: ``z3.Solver.check`` raises during the capture, and the claim is *not
re-proved* with that reason (Coq would otherwise re-prove a part of the claim only).

Examples
--------
>>> from attnio.proofs.registry import load_claims
>>> claim = next(c for c in load_claims() if c.id == "sy.lemma33.rows_cols")
>>> [str(p.goal) for p in capture(claim).parts]
['I + J >= sqrt(C)']
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import sympy as sp

from attnio.exceptions import TranslationError
from attnio.proofs.registry import CheckContext, Claim
from attnio.results import Undecided
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.dominance import growth_exponent
from attnio.symbolic.symbols import M

__all__ = ["CHECKERS", "STAND_IN", "CoqGoal", "CoqChainGoal", "Captured", "capture",
           "sympy_of_z3"]

#: The reason a recorder's stand-in verdict gives (never a pass: it is Undecided).
STAND_IN = "captured for the Coq kernel (no solver ran)"


@dataclass(frozen=True)
class CoqGoal:
    """One statement: ``hypotheses ⇒ goal`` over the declared domains (``domains`` as the
    checker received them; None: the symbols' own declarations)."""

    goal: sp.Basic
    hypotheses: tuple[sp.Basic, ...] = ()
    domains: Mapping[Any, str] | None = None
    origin: str = ""


@dataclass(frozen=True)
class CoqChainGoal:
    """A chain of :mod:`attnio.smt.chains`, in sympy: premises, ``(name, conclusion,
    hypotheses)`` steps, conclusion."""

    premises: tuple[sp.Basic, ...]
    steps: tuple[tuple[str, sp.Basic, tuple[sp.Basic, ...]], ...]
    conclusion: sp.Basic
    origin: str = "sympy_chain"


@dataclass(frozen=True)
class Captured:
    """What one claim's check asked its checkers: the printable ``parts`` and, for calls
    that have no sympy statement (a chain in z3 terms), the reason each is not printed."""

    parts: tuple[CoqGoal | CoqChainGoal, ...] = ()
    unprintable: tuple[str, ...] = ()
    error: str = ""


class _Stop(Exception):
    """Raised by a recorder whose checker must return an object it cannot fake (a chain)."""


# ------------------------------------------------------------------------------ recorders
def _eq(a: sp.Expr, b: sp.Expr) -> sp.Basic:
    return sp.Eq(a, b, evaluate=False)


def _record_statement(log: list, statement: Any, domains: Any = None, **kw: Any) -> Undecided:
    log.append(CoqGoal(statement, tuple(kw.get("hypotheses") or ()), domains,
                       "prove_statement"))
    return Undecided(STAND_IN)


def _record_identity(log: list, lhs: Any, rhs: Any, domains: Any = None, **kw: Any
                     ) -> Undecided:
    log.append(CoqGoal(_eq(lhs, rhs), (), domains, "check_identity"))
    return Undecided(STAND_IN)


def _record_sympy_chain(log: list, premises: Any, steps: Any, conclusion: Any) -> Any:
    log.append(CoqChainGoal(tuple(premises),
                            tuple((name, c, tuple(hs)) for name, c, hs in steps), conclusion))
    raise _Stop()


def _record_z3_chain(log: list, chain: Any, **kw: Any) -> Undecided:
    """A chain written in z3 terms (``attention_routes``): read back into sympy by
    :func:`sympy_of_z3` — its formulas were written by hand, not by the sympy → z3 bridge, so
    reading them is no second use of the bridge."""
    try:
        names: dict[str, sp.Symbol] = {}
        log.append(CoqChainGoal(
            tuple(sympy_of_z3(p, names) for p in chain.premises),
            tuple((st.name, sympy_of_z3(st.conclusion, names),
                   tuple(sympy_of_z3(h, names) for h in st.hypotheses)) for st in chain.steps),
            sympy_of_z3(chain.conclusion, names), "check_chain (z3 terms, read back)"))
    except TranslationError as exc:
        log.append(f"a chain in z3 terms that cannot be read back: {exc}")
    return Undecided(STAND_IN)


def sympy_of_z3(e: Any, names: dict[str, sp.Symbol]) -> sp.Basic:
    """A z3 formula or term of linear / nonlinear real arithmetic as sympy (each z3 ``Real``
    constant a real symbol, an ``Int`` an integer symbol; ``If(x <= y, x, y)`` is
    ``Min(x, y)``, ``If(x <= y, y, x)`` ``Max(x, y)``, any other ``If`` a ``Piecewise``).
    Relations and connectives stay unevaluated.

    >>> import z3
    >>> x, y = z3.Reals("x y")
    >>> sympy_of_z3(z3.If(x <= y, x, y) * 2 <= x / 3 + 1, {})
    2*Min(x, y) <= x/3 + 1

    Raises
    ------
    TranslationError
        An operator outside that arithmetic (named).
    """
    import z3

    if z3.is_rational_value(e):
        return sp.Rational(e.numerator_as_long(), e.denominator_as_long())
    if z3.is_int_value(e):
        return sp.Integer(e.as_long())
    if z3.is_true(e):
        return sp.true
    if z3.is_false(e):
        return sp.false
    if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        name = e.decl().name()
        if name not in names:
            names[name] = sp.Symbol(name, integer=True) if z3.is_int(e) else \
                sp.Symbol(name, real=True)
        return names[name]
    args = [sympy_of_z3(a, names) for a in e.children()]
    kind = e.decl().kind()
    if kind == z3.Z3_OP_ITE:
        c, a, b = args
        if isinstance(c, sp.Le) and (c.lhs, c.rhs) == (a, b):
            return sp.Min(a, b, evaluate=False)
        if isinstance(c, sp.Le) and (c.lhs, c.rhs) == (b, a):
            return sp.Max(a, b, evaluate=False)
        return sp.Piecewise((a, c), (b, True), evaluate=False)
    arithmetic: dict[int, Callable[..., sp.Expr]] = {z3.Z3_OP_ADD: lambda *a: sp.Add(*a), z3.Z3_OP_MUL: lambda *a: sp.Mul(*a),
                  z3.Z3_OP_SUB: lambda a, *b: a - sp.Add(*b), z3.Z3_OP_UMINUS: lambda a: -a,
                  z3.Z3_OP_DIV: lambda a, b: a / b, z3.Z3_OP_TO_REAL: lambda a: a,
                  z3.Z3_OP_POWER: lambda a, b: a ** b}
    if kind in arithmetic:
        return arithmetic[kind](*args)
    relations = {z3.Z3_OP_LE: sp.Le, z3.Z3_OP_LT: sp.Lt, z3.Z3_OP_GE: sp.Ge, z3.Z3_OP_GT: sp.Gt,
                 z3.Z3_OP_EQ: sp.Eq}
    if kind in relations:
        return relations[kind](*args, evaluate=False)
    if kind == z3.Z3_OP_DISTINCT and len(args) == 2:
        return sp.Ne(*args, evaluate=False)
    connectives = {z3.Z3_OP_AND: sp.And, z3.Z3_OP_OR: sp.Or, z3.Z3_OP_NOT: sp.Not,
                   z3.Z3_OP_IMPLIES: sp.Implies}
    if kind in connectives:
        return connectives[kind](*args, evaluate=False)
    raise TranslationError(f"no sympy form of the z3 operator {e.decl().name()} in {e}")


def _branches(bound_id: Any) -> tuple[Any, sp.Expr, sp.Expr]:
    bound = get_bound(bound_id)
    b1, b2 = bound.branches
    return bound, b1, b2


def _record_crossover(log: list, bound_id: Any, claimed: sp.Expr, variable: Any = None
                      ) -> Undecided:
    var = variable if variable is not None else M
    _, b1, b2 = _branches(bound_id)
    log.append(CoqGoal(sp.Equivalent(_eq(b1, b2), _eq(var, claimed)), (), None,
                       f"check_crossover({bound_id}, {claimed})"))
    return Undecided(STAND_IN)


def _record_branch_minimum(log: list, bound_id: Any, branch: int, side: str,
                           variable: Any = None) -> Undecided:
    var = variable if variable is not None else M
    bound, b1, b2 = _branches(bound_id)
    star = crossover(bound, var).solution
    where = sp.Gt(var, star, evaluate=False) if side == "above" else sp.Lt(var, star,
                                                                           evaluate=False)
    combined = (sp.Min if bound.combine == "min" else sp.Max)(b1, b2, evaluate=False)
    log.append(CoqGoal(_eq(combined, (b1, b2)[branch]), (where,), None,
                       f"check_branch_minimum({bound_id}, {branch}, {side})"))
    return Undecided(STAND_IN)


def _record_branch_ratio(log: list, original: Callable[..., Any], bound_id: Any,
                         *args: Any, **kw: Any) -> Any:
    """The real ratio (the check needs it), and what it is for: the ratio claim of the next
    identity, or — called by ``check_branch_minimum`` itself, as a claim that holds that
    function in a ``functools.partial`` does (no recorder can stand in for it there) — that
    call's branch-minimum statement, read from the caller's arguments."""
    result = original(bound_id, *args, **kw)
    caller = sys._getframe(2)   # 0: this recorder, 1: the lambda of _bind, 2: the caller
    if caller.f_code is _ORIGINAL_CODE.get("check_branch_minimum"):
        local = caller.f_locals
        _record_branch_minimum(log, local["bound_or_id"], local["branch"], local["side"],
                               local.get("variable"))
        return result
    log.append(("ratio", bound_id, result.ratio))
    return result


#: The code of the checkers as defined (set by :func:`_recording`), to recognise a caller.
_ORIGINAL_CODE: dict[str, Any] = {}


def _record_catalogue_identity(log: list, a: sp.Expr, b: sp.Expr) -> Undecided:
    last = log[-1] if log else None
    if isinstance(last, tuple) and last[0] == "ratio" and last[2] == a:
        log.pop()
        _, b1, b2 = _branches(last[1])
        log.append(CoqGoal(_eq(b1, sp.Mul(b, b2, evaluate=False)), (), None,
                           f"branch ratio of {last[1]}: b1 = ({b})·b2"))
    else:
        log.append(CoqGoal(_eq(a, b), (), None, "check_catalogue_identity"))
    return Undecided(STAND_IN)


_SIGNS = {"positive": sp.Gt, "negative": sp.Lt, "zero": sp.Eq, "nonnegative": sp.Ge,
          "nonpositive": sp.Le}


def _record_sign(log: list, a: Any, b: Any, region: Sequence[sp.Basic], sign: str,
                 substitute: Any = None) -> Undecided:
    ea, eb = growth_exponent(a, substitute), growth_exponent(b, substitute)
    claim = _SIGNS[sign](ea.expr - eb.expr, 0, evaluate=False)
    validity = [*ea.validity, *eb.validity]
    goal = sp.And(*validity, claim, evaluate=False) if validity else claim
    log.append(CoqGoal(goal, tuple(region), None, f"check_sign({a}, {b}, {sign})"))
    return Undecided(STAND_IN)


#: ``(module, function, recorder)``: each checker a claim may call with a statement, and
#: how its call becomes a statement (the table of the module docstring). A recorder taking
#: ``original`` calls the checker too (its result is needed, e.g. a derived ratio).
CHECKERS: tuple[tuple[str, str, Callable[..., Any]], ...] = (
    ("attnio.smt.kernel", "prove_statement", _record_statement),
    ("attnio.smt.kernel", "check_identity", _record_identity),
    ("attnio.smt.chains", "sympy_chain", _record_sympy_chain),
    ("attnio.smt.chains", "check_chain", _record_z3_chain),
    ("attnio.symbolic.crossovers", "check_crossover", _record_crossover),
    ("attnio.symbolic.crossovers", "check_branch_minimum", _record_branch_minimum),
    ("attnio.symbolic.crossovers", "branch_ratio", _record_branch_ratio),
    ("attnio.symbolic.checks", "check_catalogue_identity", _record_catalogue_identity),
    ("attnio.symbolic.dominance", "check_sign", _record_sign),
)


@contextmanager
def _recording(log: list) -> Iterator[None]:
    """Every attnio module's reference to a checker of :data:`CHECKERS` replaced by its
    recorder for the duration; put back on exit (also on error or Ctrl-C). Not
    thread-safe: :func:`capture` runs in the calling thread, nothing else may check claims
    meanwhile."""
    originals: dict[tuple[str, str], tuple[Callable[..., Any], Callable[..., Any]]] = {}
    for module_name, name, recorder in CHECKERS:
        module = importlib.import_module(module_name)
        originals[(module_name, name)] = (getattr(module, name), recorder)
        _ORIGINAL_CODE[name] = getattr(getattr(module, name), "__code__", None)
    patched: list[tuple[Any, str, Any]] = []
    try:
        for module in list(sys.modules.values()):
            if not getattr(module, "__name__", "").startswith("attnio."):
                continue
            for (_, name), (original, recorder) in originals.items():
                if getattr(module, name, None) is original:
                    patched.append((module, name, original))
                    setattr(module, name, _bind(recorder, log, original))
        yield
    finally:
        for module, name, original in reversed(patched):
            setattr(module, name, original)


def _bind(recorder: Callable[..., Any], log: list, original: Callable[..., Any]
          ) -> Callable[..., Any]:
    if recorder is _record_branch_ratio:
        return lambda *a, **kw: recorder(log, original, *a, **kw)
    return lambda *a, **kw: recorder(log, *a, **kw)


class _DirectSolver(Exception):
    """A solver was called while the checkers were recorders: the check decides something
    by a path the capture does not see."""


@contextmanager
def _no_direct_solver() -> Iterator[None]:
    """``z3.Solver.check`` raises for the duration: a claim whose check also decides by a
    path other than the recorded checkers is not captured (its statement would be only a
    part of what it checks), it fails with that reason."""
    import z3

    original = z3.Solver.check

    def refuse(self: Any, *args: Any, **kw: Any) -> Any:
        raise _DirectSolver()

    z3.Solver.check = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        z3.Solver.check = original  # type: ignore[method-assign]


def capture(claim: Claim) -> Captured:
    """The statements ``claim``'s check hands to its checkers (no solver runs).

    >>> from attnio.proofs.registry import load_claims
    >>> c = next(c for c in load_claims() if c.id == "sym.crossover.bwd")
    >>> print(capture(c).parts[0].goal)
    Equivalent(Eq(M, d**2), Eq((d**3*n + d**2*n**2)/M, (d**2*n + d*n**2)/sqrt(M)))
    """
    log: list = []
    error = ""
    with _recording(log), _no_direct_solver():
        try:
            claim.check_fn(CheckContext(second_solver=False))
        except _Stop:
            pass
        except _DirectSolver:
            error = ("the check calls z3 itself, not only through a recorded checker: Coq "
                     "would re-prove a part of it only")
        except KeyboardInterrupt:
            raise
        except Exception as exc:   # a check that breaks before its checker decides nothing
            error = f"the check raised {type(exc).__name__}: {exc}"
    parts = tuple(x for x in log if isinstance(x, (CoqGoal, CoqChainGoal)))
    unprintable = tuple(x for x in log if isinstance(x, str))
    return Captured(parts, unprintable, error)
