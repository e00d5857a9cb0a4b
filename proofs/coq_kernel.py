r"""The claims re-proved by a second kernel: each algebra claim's statement, printed to Coq.

``attnio verify --kernel coq`` (:mod:`attnio.commands.verify`) and
``benchmarks/coq_kernel.py`` run this module: for every claim whose evidence is
``smt-forall`` or ``sympy-canonical`` (:data:`KINDS`), it finds the sympy statement the
claim's check hands to its checker, prints it as a Coq theorem (:mod:`attnio.smt.coq`),
proves it with the strategies of :mod:`attnio.smt.coq_proofs`, and asks ``coqc`` — with a
time limit per file — whether the proof is accepted (:func:`attnio.smt.coq.accepted`: exit 0,
nothing assumed, only the standard library's axioms of the reals).

Where the statements come from (:func:`capture`)
------------------------------------------------
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

A claim counts as **re-proved** only when every statement captured from it is accepted by
``coqc``; a claim with no statement captured, one outside the Coq fragment, one Coq does not
accept within its time limit, is *not re-proved* and says why. A false twin whose statement
Coq accepts is a defect of the printer (tests/proofs/test_coq_kernel.py).

Examples
--------
>>> from attnio.proofs.registry import load_claims
>>> claim = next(c for c in load_claims() if c.id == "sy.lemma33.rows_cols")
>>> [str(p.goal) for p in capture(claim).parts]
['I + J >= sqrt(C)']
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import sympy as sp

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.proofs.registry import CheckContext, Claim
from attnio.results import Undecided
from attnio.safe_io import validate_name_lengths, write_text
from attnio.smt.coq_proofs import chain_glue, proof_scripts
from attnio.smt.coq_statements import CoqStatement, coq_chain, coq_statement
from attnio.smt.coqc import accepted, coq_document, coqc_binary, run_coqc
from attnio.smt.statements import parse_statement

__all__ = ["KINDS", "CHECKERS", "STAND_IN", "CoqGoal", "CoqChainGoal", "Captured",
           "CoqVerdict", "capture", "recheck", "recheck_claims", "targets", "write_folder",
           "is_false_statement", "summary_lines", "coq_json", "CoqFile",
           "prove_file", "lp_certificate", "sympy_of_z3", "DEFAULT_TIMEOUT_S", "MARKER_NAME",
           "MAX_FACTORS", "MAX_PRODUCTS"]

#: The evidence kinds whose claims Coq re-proves.
KINDS = ("smt-forall", "sympy-canonical")
#: The reason a recorder's stand-in verdict gives (never a pass: it is Undecided).
STAND_IN = "captured for the Coq kernel (no solver ran)"
#: Seconds of coqc per file (a timeout is "not re-proved", never a pass).
DEFAULT_TIMEOUT_S = 60.0
#: The marker of a folder of Coq files written by attnio (the files it wrote, their SHA-256).
MARKER_NAME = ".attnio-coq.json"


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
    arithmetic = {z3.Z3_OP_ADD: lambda *a: sp.Add(*a), z3.Z3_OP_MUL: lambda *a: sp.Mul(*a),
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
    from attnio.symbolic.catalogue import get_bound

    bound = get_bound(bound_id)
    b1, b2 = bound.branches
    return bound, b1, b2


def _record_crossover(log: list, bound_id: Any, claimed: sp.Expr, variable: Any = None
                      ) -> Undecided:
    from attnio.symbolic.symbols import M

    var = variable if variable is not None else M
    _, b1, b2 = _branches(bound_id)
    log.append(CoqGoal(sp.Equivalent(_eq(b1, b2), _eq(var, claimed)), (), None,
                       f"check_crossover({bound_id}, {claimed})"))
    return Undecided(STAND_IN)


def _record_branch_minimum(log: list, bound_id: Any, branch: int, side: str,
                           variable: Any = None) -> Undecided:
    from attnio.symbolic.crossovers import crossover
    from attnio.symbolic.symbols import M

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
    from attnio.symbolic.dominance import growth_exponent

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
    originals = {}
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


def capture(claim: Claim) -> Captured:
    """The statements ``claim``'s check hands to its checkers (no solver runs).

    >>> from attnio.proofs.registry import load_claims
    >>> c = next(c for c in load_claims() if c.id == "sym.crossover.bwd")
    >>> print(capture(c).parts[0].goal)
    Equivalent(Eq(M, d**2), Eq((d**3*n + d**2*n**2)/M, (d**2*n + d*n**2)/sqrt(M)))
    """
    log: list = []
    error = ""
    with _recording(log):
        try:
            claim.check_fn(CheckContext(second_solver=False))
        except _Stop:
            pass
        except KeyboardInterrupt:
            raise
        except Exception as exc:   # a check that breaks before its checker decides nothing
            error = f"the check raised {type(exc).__name__}: {exc}"
    parts = tuple(x for x in log if isinstance(x, (CoqGoal, CoqChainGoal)))
    unprintable = tuple(x for x in log if isinstance(x, str))
    return Captured(parts, unprintable, error)


# ------------------------------------------------------------------------------ certificates
#: Products of at most this many facts are offered to the certificate search.
MAX_FACTORS = 3
#: At most this many products (the LP stays small; lra checks what it picks).
MAX_PRODUCTS = 800


def lp_certificate(facts: Sequence[tuple[sp.Expr, str]], *, max_factors: int = MAX_FACTORS,
                   max_products: int = MAX_PRODUCTS, squares: bool = True
                   ) -> list[tuple[tuple[int, ...], sp.Expr]] | None:
    r"""A Positivstellensatz certificate that ``facts`` (each ``(p, kind)``: ``p >= 0``,
    ``p > 0`` or ``p = 0``) contradict one another, found by linear programming (HiGHS).

    The products offered: every product of at most ``max_factors`` inequality facts, and
    every square of a monomial of degree 1 or 2, of a difference of two variables
    (:math:`(x - y)^2`, the step of AM-GM) or of :math:`x - 1`, times a product of at most two
    of them
    (weights :math:`\lambda \ge 0`); every equality fact times a monomial of degree at most
    2 (weights :math:`\mu` of any sign). Wanted: :math:`\sum \lambda_j P_j + \sum \mu_k E_k
    \equiv -c` with :math:`c \ge 0`, and :math:`c` or the weight of a strict product
    positive — impossible where every fact holds. Returns the products to assert
    (``(fact indices, m)`` for :math:`m^2 \prod P_i`, ``((equality index,), m)`` for
    :math:`m E`), or None.

    The LP runs in floating point and is *not* trusted: the Coq proof asserts the products
    (each proved from its factors) and ``lra`` must find the contradiction itself, exactly.

    >>> x = sp.Symbol("x")
    >>> lp_certificate([(x, ">="), (-x - 1, ">=")])       # x >= 0 and x <= -1
    [((0,), 1), ((1,), 1)]
    >>> lp_certificate([(x, ">=")]) is None
    True
    """
    if max_factors > 1:   # a linear combination of the facts themselves first: lra's own
        linear = lp_certificate(facts, max_factors=1, max_products=max_products, squares=False)
        if linear is not None:
            return linear
    import itertools

    import highspy
    import numpy as np

    from attnio.graphs.lower_bounds.covering import quiet_highs

    symbols = sorted(set().union(*(f.free_symbols for f, _ in facts)), key=str)
    if not symbols:
        return None
    try:
        polys = [sp.Poly(f, *symbols) for f, _ in facts]
    except sp.PolynomialError:
        return None
    one = sp.Poly(1, *symbols)
    inequalities = [i for i, (_, kind) in enumerate(facts) if kind != "="]
    equalities = [i for i, (_, kind) in enumerate(facts) if kind == "="]
    monomials = [*symbols, *(a * b for a, b in itertools.combinations_with_replacement(symbols, 2))]
    square_terms = [*monomials, *(a - b for a, b in itertools.combinations(symbols, 2)),
                    *(a - 1 for a in symbols)]
    columns: list[tuple[tuple[int, ...], sp.Expr, dict, bool, bool]] = []

    def offer(combo: tuple[int, ...], square: sp.Expr) -> None:
        product = one if square == 1 else sp.Poly(square ** 2, *symbols)
        for i in combo:
            product = product * polys[i]
        strict = square == 1 and all(facts[i][1] == ">" for i in combo)
        columns.append((combo, square, product.as_dict(), strict, False))

    for size in range(1, max_factors + 1):
        for combo in itertools.combinations_with_replacement(inequalities, size):
            if len(columns) < max_products:
                offer(combo, sp.Integer(1))
    for size in range(0, 3 if squares else 0):
        for combo in itertools.combinations_with_replacement(inequalities, size):
            for m in square_terms:
                if len(columns) < 2 * max_products:
                    offer(combo, m)
    goal = len(facts) - 1                        # the negated goal comes last
    if facts[goal][1] != "=" and max_factors > 1:
        for combo in itertools.combinations_with_replacement(inequalities, max_factors):
            if len(columns) < 3 * max_products:
                offer((goal, *combo), sp.Integer(1))
    quartic = list(dict.fromkeys(a * b for a, b in
                                 itertools.combinations_with_replacement(monomials, 2)))
    for i in equalities:
        for m in [sp.Integer(1), *((*monomials, *quartic) if squares else ())]:
            columns.append(((i,), m, (polys[i] * sp.Poly(m, *symbols)).as_dict(), False, True))
    rows: dict[tuple[int, ...], int] = {}
    for _, _, coeffs, _, _ in columns:
        for mono in coeffs:
            rows.setdefault(mono, len(rows))
    constant = tuple(0 for _ in symbols)
    rows.setdefault(constant, len(rows))
    n = len(columns) + 1                         # the last column: the constant slack c
    h = quiet_highs()
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = len(rows) + 1                  # the last row: sum of weights <= 1
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = np.array([1.0 if strict else 0.0 for _, _, _, strict, _ in columns] + [1.0])
    lp.col_lower_ = np.array([-1e4 if free else 0.0 for *_, free in columns] + [0.0])
    lp.col_upper_ = np.array([1e4 if free else highspy.kHighsInf for *_, free in columns]
                             + [highspy.kHighsInf])
    lp.row_lower_ = np.array([0.0] * len(rows) + [-highspy.kHighsInf])
    lp.row_upper_ = np.array([0.0] * len(rows) + [1.0])
    start, index, value = [0], [], []
    for j in range(n):
        if j < len(columns):
            _, _, coeffs, _, free = columns[j]
            for mono, c in coeffs.items():
                index.append(rows[mono])
                value.append(float(c))
            if not free:
                index.append(len(rows))
                value.append(1.0)
        else:
            index += [rows[constant], len(rows)]
            value += [1.0, 1.0]
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=float)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    if h.getInfo().objective_function_value <= 1e-7:
        return None
    weights = list(h.getSolution().col_value)
    chosen = [(combo, m) for (combo, m, _, _, _), w in zip(columns, weights) if abs(w) > 1e-9]
    return chosen or None


# ------------------------------------------------------------------------------ re-checking
@dataclass(frozen=True)
class CoqVerdict:
    """Coq's answer for one claim: ``rechecked`` only when every statement captured from it
    was accepted (:func:`attnio.smt.coq.accepted`); ``reason`` says why (not); ``files``
    are ``(file name, text)`` of the accepted file (or of the last attempt); ``strategy``
    names the strategy that closed each theorem."""

    claim_id: str
    rechecked: bool
    reason: str
    strategy: str = ""
    files: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    coqc_runs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"rechecked": self.rechecked, "reason": self.reason,
                "strategy": self.strategy or None, "files": [n for n, _ in self.files],
                "seconds": round(self.seconds, 3)}


def targets(claims: Sequence[Claim], twins_of: Sequence[Claim] | None = None) -> list[Claim]:
    """What Coq re-checks among ``claims``: the claims whose declared evidence kind is one of
    :data:`KINDS`; with ``twins_of`` (the true claims), ``claims`` are false twins and the
    ones kept are the twins of such a claim.

    >>> from attnio.proofs.registry import load_claims, load_false_twins
    >>> claims = load_claims()
    >>> len(targets(claims)) >= 80, len(targets(load_false_twins(), claims)) >= 60
    (True, True)
    """
    if twins_of is None:
        return [c for c in claims if c.evidence_kind in KINDS]
    kept = {c.id for c in targets(twins_of)}
    return [c for c in claims if c.twin_of in kept]


def is_false_statement(twin: Claim) -> bool:
    """True for a twin whose statement is false (it expects ``Refuted``): Coq must not
    prove it. A twin expecting ``Undecided`` plants a path of the checker — a solver that
    answers unknown, premises that never hold, a step the conclusion does not need — with a
    statement that may be true (a vacuous implication is); what Coq says of it is reported,
    not counted."""
    return twin.expect == "refuted"


def _module_name(claim_id: str) -> str:
    out = "".join(ch if ch.isalnum() else "_" for ch in claim_id)
    return ("c_" + out)[:120]


def _theorems(claim_id: str, captured: Captured) -> list[tuple[str, list[CoqStatement]]]:
    """One group of Coq statements per captured part (a chain: its lemmas, composition and
    claim; a statement: one theorem)."""
    base = _module_name(claim_id)
    out: list[tuple[str, list[CoqStatement]]] = []
    for i, part in enumerate(captured.parts):
        name = base if len(captured.parts) == 1 else f"{base}_{i + 1}"
        if isinstance(part, CoqChainGoal):
            out.append(("chain", coq_chain(name, part.premises, part.steps, part.conclusion)))
        else:
            out.append(("statement", [coq_statement(name, part.goal, part.hypotheses,
                                                    part.domains)]))
    return out


@dataclass(frozen=True)
class _Found:
    ok: bool
    strategy: str
    proof: str
    reason: str


def _search(st: CoqStatement, timeout: float, runs: list[int], title: str = "") -> _Found:
    """The first strategy whose proof of ``st`` alone coqc accepts, or (``ok`` False) the
    first strategy's attempt with every strategy's reason."""
    reasons: list[str] = []
    first: tuple[str, str] | None = None
    for strategy, proof in proof_scripts(st, lp_certificate):
        text = coq_document([st], [proof], title=title)
        run = run_coqc(text, timeout=timeout)
        runs[0] += 1
        ok, why = accepted(text, run, [st.name])
        if ok:
            return _Found(True, strategy, proof, why)
        first = first or (strategy, proof)
        reasons.append(f"{strategy}: {why}")
    strategy, proof = first or ("", "")
    return _Found(False, strategy, proof, "; ".join(reasons) or "no strategy applies")


def recheck(claim: Claim, *, timeout: float = DEFAULT_TIMEOUT_S,
            captured: Captured | None = None) -> CoqVerdict:
    """Re-prove ``claim`` in Coq (see the module docstring); never raises for a claim that
    is outside the fragment — that is a verdict with its reason. Ctrl-C goes on (coqc is
    killed first)."""
    start = time.monotonic()
    runs = [0]
    captured = captured if captured is not None else capture(claim)

    def verdict(ok: bool, reason: str, strategy: str = "",
                files: tuple[tuple[str, str], ...] = ()) -> CoqVerdict:
        return CoqVerdict(claim.id, ok, reason, strategy, files, time.monotonic() - start,
                          runs[0])

    if captured.error:
        return verdict(False, captured.error)
    if captured.unprintable:
        return verdict(False, captured.unprintable[0])
    if not captured.parts:
        return verdict(False, "no statement captured: the check calls no checker of "
                              "attnio.proofs.coq_kernel.CHECKERS")
    try:
        groups = _theorems(claim.id, captured)
    except (TranslationError, InvalidInputError) as exc:
        return verdict(False, str(exc))
    statements: list[CoqStatement] = []
    proofs: list[str] = []
    strategies: list[str] = []
    for kind, sts in groups:
        if kind == "statement":
            (st,) = sts
            found = _search(st, timeout, runs)
            if not found.ok:
                return verdict(False, f"{st.name}: {found.reason}", files=(
                    (f"{_module_name(claim.id)}.v", coq_document(sts, [found.proof])),))
            statements.append(st)
            proofs.append(found.proof)
            strategies.append(found.strategy)
            continue
        *steps, composition, whole = sts
        for st in [*steps, composition]:
            found = _search(st, timeout, runs)
            if not found.ok:
                what = "composition" if st is composition else st.name
                return verdict(False, f"chain {what}: {found.reason}")
            statements.append(st)
            proofs.append(found.proof)
            strategies.append(found.strategy)
        statements.append(whole)
        proofs.append(chain_glue(whole, steps, composition))
        strategies.append("chain")
    text = coq_document(statements, proofs, title=f"attnio claim {claim.id}: {claim.statement}")
    name = f"{_module_name(claim.id)}.v"
    run = run_coqc(text, timeout=timeout * max(1, len(statements)), name=name)
    runs[0] += 1
    ok, why = accepted(text, run, [st.name for st in statements])
    return verdict(ok, why, "+".join(sorted(set(strategies))), ((name, text),))


def recheck_claims(claims: Sequence[Claim], *, timeout: float = DEFAULT_TIMEOUT_S,
                   show_progress: bool | None = None) -> list[CoqVerdict]:
    """:func:`recheck` each claim in turn, behind a progress bar on stderr."""
    from attnio.progress import progress

    return [recheck(c, timeout=timeout)
            for c in progress(claims, total=len(claims), desc="coq", enabled=show_progress)]


def summary_lines(verdicts: Sequence[CoqVerdict], claims: Sequence[Claim], *,
                  twins: bool = False) -> list[str]:
    """The figure and the list: ``coq: 81/84 claims re-proved by coqc`` then one line per
    claim not re-proved with its reason; for twins, how many false twins coqc rejected and
    which it accepted (a printer defect)."""
    by_id = {c.id: c for c in claims}
    if twins:
        false = [v for v in verdicts if is_false_statement(by_id[v.claim_id])]
        accepted_ids = [v.claim_id for v in false if v.rechecked]
        lines = [f"coq: {len(false) - len(accepted_ids)}/{len(false)} false twins rejected by "
                 "coqc" + ("" if not accepted_ids else
                           " — FAILED: coqc accepted " + ", ".join(accepted_ids))]
        other = [v for v in verdicts if not is_false_statement(by_id[v.claim_id])]
        if other:
            lines.append(f"coq: {len(other)} twins plant a checker path, not a false statement "
                         f"(expect undecided), not counted: " + ", ".join(
                             f"{v.claim_id} ({'accepted' if v.rechecked else 'rejected'})"
                             for v in other))
        return lines
    done = sum(1 for v in verdicts if v.rechecked)
    lines = [f"coq: {done}/{len(verdicts)} claims re-proved by coqc"]
    lines += [f"  not re-proved: {v.claim_id}: {v.reason}" for v in verdicts if not v.rechecked]
    return lines


def coq_json(verdicts: Sequence[CoqVerdict], claims: Sequence[Claim], *, twins: bool = False
             ) -> dict[str, Any]:
    """The ``"coq"`` summary of ``attnio verify --kernel coq --json``."""
    from attnio.smt.coqc import coqc_version

    by_id = {c.id: c for c in claims}
    out: dict[str, Any] = {"coqc": coqc_version(), "checked": len(verdicts),
                           "rechecked": sum(1 for v in verdicts if v.rechecked)}
    if twins:
        false = [v for v in verdicts if is_false_statement(by_id[v.claim_id])]
        out["false_twins"] = len(false)
        out["false_twins_rejected"] = sum(1 for v in false if not v.rechecked)
        out["accepted_false_twins"] = [v.claim_id for v in false if v.rechecked]
    else:
        out["not_rechecked"] = [{"id": v.claim_id, "reason": v.reason}
                                for v in verdicts if not v.rechecked]
    return out


# ------------------------------------------------------------------------------ files
def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_folder(folder: str | os.PathLike[str], files: Sequence[tuple[str, str]]) -> list[Path]:
    """Write ``files`` (``(name, text)``) and a ``_CoqProject`` listing them into ``folder``,
    so that ``coqc`` (or ``coq_makefile -f _CoqProject``) re-checks them without attnio.

    The folder is created if missing. A file already there is replaced only if attnio
    wrote it (listed in :data:`MARKER_NAME` with the SHA-256 it still has); any other file of
    the same name is refused (one line, exit 2); other files are never touched. Writes are
    atomic (:mod:`attnio.safe_io`); each path written is returned.

    Raises
    ------
    InvalidInputError
        The folder is a symlink or not a directory, or a file attnio did not write is in
        the way.
    """
    path = validate_name_lengths(folder, "--coq-dir name")
    if path.is_symlink():
        raise InvalidInputError(f"--coq-dir {str(folder)!r} is a symlink; attnio does not "
                                "write through symlinks")
    if path.exists() and not path.is_dir():
        raise InvalidInputError(f"--coq-dir {str(folder)!r} exists and is not a directory")
    project = "-Q . AttnioClaims\n\n" + "".join(f"{name}\n" for name, _ in files)
    everything = [*files, ("_CoqProject", project)]
    marker = path / MARKER_NAME
    known: dict[str, str] = {}
    if marker.is_symlink():
        raise InvalidInputError(f"refusing to write through symlink {marker}")
    if marker.exists():
        try:
            known = dict(json.loads(marker.read_text(encoding="utf-8")).get("files", {}))
        except (OSError, ValueError, AttributeError):
            raise InvalidInputError(f"{marker} is not attnio's marker (unreadable JSON): "
                                    "choose another folder") from None
    replace: set[str] = set()
    for name, _ in everything:
        target = path / name
        if target.is_symlink():
            raise InvalidInputError(f"refusing to write through symlink {target}")
        if target.exists():
            current = _sha256(target.read_text(encoding="utf-8", errors="replace"))
            if known.get(name) != current:
                raise InvalidInputError(f"refusing to overwrite {target}: attnio did not "
                                        "write it (or it changed since); choose another "
                                        "--coq-dir or move the file")
            replace.add(name)
    path.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in everything:
        known[name] = _sha256(text)
        _write_marker(marker, known)
        written.append(write_text(path / name, text, overwrite=name in replace))
    return written


def _write_marker(marker: Path, files: Mapping[str, str]) -> None:
    data = {"format": "attnio-coq-marker/1",
            "note": "written by attnio: the Coq files it wrote and may replace; any other "
                    "file in this folder is never touched",
            "files": dict(sorted(files.items()))}
    write_text(marker, json.dumps(data, indent=2) + "\n", overwrite=marker.exists())


# ------------------------------------------------------------------------------ prove --coq
@dataclass(frozen=True)
class CoqFile:
    """``attnio prove --coq FILE``'s outcome: whether coqc re-checked the statement, why,
    and the path written (None when the statement is outside the fragment)."""

    rechecked: bool
    reason: str
    path: Path | None = None
    strategy: str = ""

    def line(self) -> str:
        """The line ``attnio prove`` prints under its verdict."""
        if self.path is None:
            return f"coq: not re-checked: {self.reason} (nothing written)"
        if self.rechecked:
            return f"coq: re-checked by coqc ({self.reason}); wrote {self.path}"
        return f"coq: NOT re-checked: {self.reason}; wrote {self.path} (coqc rejects it)"

    def to_json(self) -> dict[str, Any]:
        """``"coq"`` of ``attnio prove --json``."""
        return {"rechecked": self.rechecked, "reason": self.reason,
                "file": str(self.path) if self.path else None, "strategy": self.strategy or None}


def prove_file(statement: str, domains: Mapping[str, str], path: str | os.PathLike[str], *,
               timeout: float = DEFAULT_TIMEOUT_S) -> CoqFile:
    """Print ``statement`` (``attnio prove``'s text, with its ``--var`` domains) as a Coq
    theorem with a proof, check it with ``coqc``, and write the file to ``path`` (a new
    file: an existing one is refused) — the proof coqc accepted, or the last attempt when
    none was (the file then says so in a comment). Outside the fragment nothing is written.

    Raises
    ------
    InvalidInputError
        A malformed statement, an existing ``path``, no ``coqc``.
    """
    parsed, doms = parse_statement(statement, domains)
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise InvalidInputError(f"refusing to overwrite existing file {target} (--coq writes "
                                "a new file)")
    if coqc_binary() is None:
        raise InvalidInputError("--coq needs coqc: install Coq (Debian package `coq`, "
                                "apt-get install coq)")
    name = target.stem if target.suffix == ".v" else target.name
    try:
        st = coq_statement(_module_name(name), parsed, (), doms)
    except TranslationError as exc:
        return CoqFile(False, str(exc))
    title = f"attnio prove {statement}\n" + "".join(
        f"  --var {k}:{v}\n" for k, v in sorted(domains.items()))
    found = _search(st, timeout, [0], title=title)
    if not found.ok:
        note = ("NOT RE-CHECKED: coqc rejects the proof below (" +
                found.reason.replace("*)", "* )") + ")")
        written = write_text(target, coq_document([st], [found.proof], title=title + note))
        return CoqFile(False, found.reason, written)
    written = write_text(target, coq_document([st], [found.proof], title=title))
    return CoqFile(True, f"coqc accepted {st.name} (strategy {found.strategy})", written,
                   found.strategy)
