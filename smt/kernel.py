r"""The proof kernel: one code path from a sympy statement to Proved / Refuted / Undecided.

``attnio verify`` (every algebra claim, through :func:`attnio.proofs.algebra.z3_claim`) and
``attnio prove`` (a user's own statement) both call :func:`prove_statement`.

Side conditions
---------------
The kernel's rules, each one a defect it closes; each has a planted violation in
``tests/smt/test_side_conditions.py`` (the trust tier):

* ``kernel.declared-domains`` — every free symbol has a domain (:data:`DOMAINS`) from the
  caller (``domains=``, ``--var``) or its sympy assumptions; none is an input error, a *name*
  is never consulted.
* ``kernel.declaration-beats-flags`` — a declaration overrides the symbol's own sympy flags,
  wherever sympy reasons too (the identity route, :func:`check_identity`'s ``simplify``).
* ``kernel.integers-are-integers`` — an integer domain is relaxed to the reals with its bound
  (a proof there holds for the integers); a relaxed model that is not integral is no
  counterexample: the integer gaps, the integer points next to it, then z3 ``Int`` decide.
* ``kernel.refuted-is-refereed`` — a Refuted is a point re-evaluated *exactly* in the original
  statement (:mod:`attnio.smt.exact_eval`): in every domain, the statement defined and false.
* ``kernel.rejected-models-are-excluded`` — a model the referee shows is no counterexample is
  excluded and z3 asked again (:data:`_ROUNDS` times); one it cannot judge is Undecided.
* ``kernel.undefined-never-refutes`` — every query asks for a counterexample *where the
  statement is defined* (:mod:`attnio.smt.definedness`).
* ``kernel.no-vacuous-proofs`` — defined nowhere, or an antecedent (the hypotheses, ``A`` of an
  ``Implies(A, B)`` in a positive position) true nowhere it is defined: Undecided "vacuous".
* ``kernel.a-witness-is-defined-and-true`` — the point that shows an antecedent satisfiable
  makes every formula exactly *true* (undefined is not true).
* ``kernel.where-defined-has-a-point`` — "proved where defined (C)" only when a point of the
  domains is undefined (shown, or not ruled out); C in the syntax ``attnio prove`` reads.
* ``kernel.solvers-agree`` — cvc5 re-checks every z3 answer; a disagreement is Undecided,
  cvc5's ``unknown`` / ``n/a`` recorded, never counted as agreement.
* ``kernel.out-of-time-is-undecided`` — ``timeout`` bounds the whole call (``isolate=True``:
  a child process killed at it, sympy included); past it, Undecided.
* ``kernel.identity-positivity-is-strict`` — outside SMT, an identity is rewritten by sympy
  with ``x > 0`` assumed only once ``x > 0`` — not ``x >= 0`` — is proved.
* ``kernel.obvious-points-are-refereed`` — the obvious points
  (:mod:`attnio.smt.obvious_points`; first for the exp/log fragment, then before any
  Undecided) and a z3 model moved to the real exp/log refute only through the referee.
* ``kernel.constants-by-exact-arithmetic`` — a statement without symbols is decided by exact
  evaluation alone (:math:`\cos\frac{\pi}{7} - \cos\frac{2\pi}{7} + \cos\frac{3\pi}{7}
  = \frac12`, :math:`\log_2 8 = 3`).

Every verdict carries :class:`~attnio.results.Evidence` (kind and the solvers' answers).

Examples
--------
>>> import sympy as sp
>>> M = sp.Symbol("M", real=True)
>>> prove_statement(sp.Ge(M, 0, evaluate=False)).verdict      # a real M may be negative
'refuted'
>>> prove_statement("M >= 0", {"M": "positive"}).verdict
'proved'
>>> v = prove_statement("n >= 1", {"n": "positive-integer"}); v.verdict, v.evidence.kind
('proved', 'smt-forall')
>>> prove_statement("n >= 1", {"n": "positive"}).counterexample
{'n': '1/2'}
>>> prove_statement("Eq(sqrt(5 + 2*sqrt(6)), sqrt(2) + sqrt(3))", {}).verdict
'proved'

What can make a verdict Proved reads in this one file; parsing and declared domains are
:mod:`attnio.smt.statements`, identities :mod:`attnio.smt.identities`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import sympy as sp
import z3

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.definedness import antecedent_contexts, definedness
from attnio.smt.exact_eval import evaluate, in_domain, truth_at
from attnio.smt.identities import check_identity
from attnio.smt.isolation import MEMORY_LIMIT_BYTES, HardLimitReached, run_isolated
from attnio.smt.obvious_points import (
    DEFAULT_LIMIT,
    near_integer_points,
    obvious_points,
    obvious_witness,
)
from attnio.smt.solvers import SECOND_SOLVER_TIMEOUT_S, cvc5_check, solver_versions, to_smt2
from attnio.smt.statements import (
    DOMAIN_ASSUMPTIONS,
    DOMAINS,
    declared_domain,
    detail_suffix,
    domains_of,
    drop_domain_facts,
    parse_statement,
    point_text,
    statement_text,
    symbol_for,
    value_text,
)
from attnio.smt.sympy_to_z3 import Translator
from attnio.smt.term_limits import exact_constant
from attnio.smt.z3tools import WATCHDOG_GRACE_S, check_sat, check_sat_isolated

__all__ = ["DOMAINS", "declared_domain", "symbol_for", "parse_statement", "prove_statement",
           "check_identity", "cvc5_check", "solver_versions", "DEFAULT_TIMEOUT_S", "WATCHDOG_GRACE_S"]

DEFAULT_TIMEOUT_S = 20.0
#: z3's limit for the exact integer encoding (nonlinear integer arithmetic is undecidable; a
#: timeout there is Undecided, never a pass).
EXACT_INTEGER_TIMEOUT_S = 5.0

# ------------------------------------------------------------------------------ solvers
@dataclass(frozen=True)
class _Answer:
    status: str               # "unsat" | "sat" | "unknown"
    point: dict[sp.Symbol, sp.Expr] | None
    assertions: tuple[z3.BoolRef, ...]
    pins: tuple[z3.BoolRef, ...] = ()
    reason: str = ""
    excluded: tuple[str, ...] = ()      # models rejected by the referee, then excluded

    def smt2(self) -> str:
        """The problem as SMT-LIB; for a model, with its rational values pinned, so that a
        second solver confirms *this* counterexample rather than searching again."""
        return to_smt2([*self.assertions, *self.pins])


def _z3_check(assertions: Sequence[z3.BoolRef], timeout_s: float, *,
              isolated: bool = False) -> tuple[str, z3.ModelRef | None, str]:
    """z3's answer for ``assertions`` (:func:`attnio.smt.z3tools.check_sat`: a timeout and a
    watchdog, never a hang; ``isolated``: :func:`~attnio.smt.z3tools.check_sat_isolated`,
    a child process killed at a hard deadline)."""
    if isolated:
        return check_sat_isolated(assertions, timeout_s)
    return check_sat(assertions, timeout_s)


# ------------------------------------------------------------------------------- kernel
class _OutOfTime(Exception):
    """The call's time budget is spent (the verdict is Undecided)."""


class _Clock:
    """The whole call's time budget: every solver call gets at most what is left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def left(self, cap: float | None = None) -> float:
        """Seconds left (at most ``cap``); raises :class:`_OutOfTime` when none are."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _OutOfTime()
        return left if cap is None else min(cap, left)


@dataclass(frozen=True)
class _Problem:
    """``hypotheses ⇒ goal`` over declared domains, with its definedness (definedness.py)."""

    goal: sp.Basic
    hypotheses: tuple[sp.Basic, ...]
    doms: Mapping[sp.Symbol, str]
    statement: sp.Basic          # the whole statement: Implies(And(*hypotheses), goal)
    defined: sp.Basic            # where it is defined
    contexts: tuple[sp.Basic, ...]   # antecedents that must be satisfiable (vacuity)

    @classmethod
    def of(cls, goal: sp.Basic, hypotheses: Sequence[sp.Basic],
           doms: Mapping[sp.Symbol, str]) -> "_Problem":
        statement = (sp.Implies(sp.And(*hypotheses), goal, evaluate=False) if hypotheses
                     else goal)
        return cls(goal, tuple(hypotheses), doms, statement,
                   drop_domain_facts(definedness(statement), doms),
                   tuple(antecedent_contexts(statement)))

    @property
    def has_integers(self) -> bool:
        return any("integer" in dom for dom in self.doms.values())

    @property
    def transcendental(self) -> bool:
        """Does the statement use the exp/log fragment (exp, log, e, a symbolic exponent)?"""
        return bool(self.statement.has(sp.exp, sp.log, sp.E)) or any(
            not p.exp.is_Rational and exact_constant(p.exp) is None
            for p in self.statement.atoms(sp.Pow))


#: What the referee may say of a solver's point. Only "counterexample" refutes; a point that
#: is "outside" a domain, where the statement is "true" or "undefined", is certainly not a
#: counterexample (it may be excluded and the solver asked again); "unknown" stops the search.
_NOT_A_COUNTEREXAMPLE = ("outside", "true", "undefined")


def _referee(statement: sp.Basic, doms: Mapping[sp.Symbol, str],
             point: Mapping[sp.Symbol, sp.Expr]) -> tuple[str, str]:
    """Exact re-check of a solver's counterexample: ``("counterexample", "")`` when the point
    lies in every declared domain and the statement (hypotheses ⇒ goal) is defined and false
    there; otherwise ``(kind, why not)`` with kind ``"outside"``, ``"true"``, ``"undefined"``
    or ``"unknown"``."""
    for sym, dom in doms.items():
        inside = in_domain(point[sym], dom)
        if inside is False:
            return "outside", f"{sym} = {value_text(point[sym])} is not in its declared domain {dom}"
        if inside is None:
            return "unknown", f"{sym} = {value_text(point[sym])} is not shown in its declared domain {dom}"
    value = evaluate(statement, point)
    if value == "false":
        return "counterexample", ""
    if value == "true":
        return "true", ("the statement is TRUE there when evaluated exactly (solver and exact "
                        "arithmetic disagree)")
    if value == "undefined":
        return "undefined", "the statement is undefined there"
    return "unknown", "exact arithmetic cannot decide the statement there"


#: How many models the referee may reject (each excluded, the solver asked again).
_ROUNDS = 4


def _query(problem: _Problem, integers: str, gaps: bool = False
           ) -> tuple[Translator, list[z3.BoolRef]]:
    """domains ∧ defined ∧ hypotheses ∧ ¬goal, translated."""
    t = Translator(problem.doms, integers=integers, integer_gaps=gaps)  # type: ignore[arg-type]
    parts = [t.rel(problem.defined), *(t.rel(h) for h in problem.hypotheses),
             z3.Not(t.rel(problem.goal))]
    t.anchor(problem.statement)       # exp/log axioms at the statement's constants
    return t, [*t.side_conditions, *parts]


def _block(t: Translator, model: z3.ModelRef, doms: Mapping[sp.Symbol, str]) -> z3.BoolRef:
    """The clause that excludes the model's values of the declared symbols."""
    terms = [t.var(sym) for sym in doms]
    return z3.Or([v != model.eval(v, model_completion=True) for v in terms])


def _search(problem: _Problem, integers: str, clock: _Clock, cap: float | None, *,
            gaps: bool = False) -> tuple[_Answer, Translator]:
    """Ask z3 for a counterexample; a model the referee shows is none is excluded and z3
    asked again (:data:`_ROUNDS` times). Status ``"outside"``: a relaxed model that is not
    integral (the caller goes on with integers)."""
    t, assertions = _query(problem, integers, gaps)
    excluded: list[str] = []
    for _ in range(_ROUNDS):
        status, model, reason = _z3_check(assertions, clock.left(cap),
                                          isolated=integers == "exact")
        if model is None:
            return _Answer(status, None, tuple(assertions), (), reason, tuple(excluded)), t
        point = t.point(model)
        kind, why = _referee(problem.statement, problem.doms, point)
        if kind == "counterexample":
            return _Answer("sat", point, tuple(assertions), _pins(model), "",
                           tuple(excluded)), t
        if kind == "outside" and integers == "relaxed" and problem.has_integers:
            return _Answer("outside", point, tuple(assertions), (), why, tuple(excluded)), t
        if kind not in _NOT_A_COUNTEREXAMPLE:
            return _Answer("unknown", point, tuple(assertions), (),
                           f"z3's counterexample {point_text(point)} was rejected: {why}",
                           tuple(excluded)), t
        repaired = t.repaired_point(model, point) if t.uses_fragment else None
        if repaired is not None and \
                _referee(problem.statement, problem.doms, repaired)[0] == "counterexample":
            return _Answer("repaired", repaired, tuple(assertions), (), "",
                           tuple(excluded)), t
        excluded.append(f"{point_text(point)}: {why}")
        assertions.append(_block(t, model, problem.doms))
    return _Answer("unknown", None, tuple(assertions), (),
                   f"{_ROUNDS} models of z3 were rejected by exact evaluation (last: "
                   f"{excluded[-1]})", tuple(excluded)), t


def _pins(model: z3.ModelRef | None) -> tuple[z3.BoolRef, ...]:
    """``x == value`` for every constant of a z3 model whose value is an integer or rational."""
    if model is None:
        return ()
    out = []
    for decl in model.decls():
        if decl.arity() != 0:
            continue
        value = model[decl]
        if z3.is_int_value(value) or z3.is_rational_value(value):
            out.append(decl() == value)
    return tuple(out)


#: Obvious points tried before z3 for a statement of the exp/log fragment (z3's models of
#: the uninterpreted exp and log are rarely real points); all of DEFAULT_LIMIT before giving up.
_FIRST_POINTS = 96
#: The detail of a counterexample found by moving z3's model to the real exp and log.
_REPAIRED = ("counterexample found by moving z3's model to where the real exp and log take "
             "the values it gave them, checked by exact evaluation")
#: The detail of a counterexample found among the obvious points.
_OBVIOUS = ("counterexample among the obvious points (small values, the edges of the domains "
            "and of the definedness conditions), checked by exact evaluation")


def _obvious_counterexample(problem: _Problem, limit: int, clock: _Clock | None = None
                            ) -> dict[sp.Symbol, sp.Expr] | None:
    """The first obvious point (:mod:`attnio.smt.obvious_points`) where the referee finds the
    statement defined and false, or None."""
    for point in obvious_points([problem.statement, problem.defined], problem.doms,
                                limit=limit):
        if clock is not None:
            clock.left()
        if _referee(problem.statement, problem.doms, point)[0] == "counterexample":
            return point
    return None


def _satisfiable(formulas: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
                 clock: _Clock) -> str:
    """Is some point of the declared domains a model of every formula? ``"sat"`` only for a
    point checked by exact evaluation (every formula true, every value in its domain),
    ``"unsat"`` when z3 shows there is none, else ``"unknown"``. Integer domains are searched
    as integers (z3 ``Int``), then among the integer points next to a relaxed model."""
    has_integers = any("integer" in dom for dom in doms.values())
    # the relaxation first (cheap; its "unsat" holds for the integers too), then z3 Int
    for integers in (("relaxed", "exact") if has_integers else ("relaxed",)):
        t = Translator(doms, integers=integers)  # type: ignore[arg-type]
        parts = [t.rel(f) for f in formulas]
        status, model, _ = _z3_check([*t.side_conditions, *parts],
                                     clock.left(EXACT_INTEGER_TIMEOUT_S
                                                if integers == "exact" else None),
                                     isolated=integers == "exact")
        if status == "unsat":
            return "unsat"
        if model is None:
            continue
        point = t.point(model)
        candidates = [point, *(near_integer_points(point, doms) if has_integers else ())]
        for candidate in candidates:
            if all(in_domain(candidate[s], dom) is True for s, dom in doms.items()) and \
                    all(truth_at(f, candidate) is True for f in formulas):
                return "sat"
        if t.uses_fragment:
            break           # a model of the uninterpreted exp/log proves nothing: look around
    # the model was no witness (not integral, or not a real point of exp/log): obvious points
    return "sat" if obvious_witness(formulas, doms, clock.left, limit=_FIRST_POINTS) else "unknown"


def prove_statement(statement: sp.Basic | str, domains: Mapping[Any, str] | None = None, *,
                    hypotheses: Sequence[sp.Basic] = (), timeout: float = DEFAULT_TIMEOUT_S,
                    second_solver: bool = True, isolate: bool = False) -> Verdict:
    r"""Decide ``hypotheses ⇒ statement`` for every value of the symbols in their domains,
    on the points where it is defined (:mod:`attnio.smt.definedness`).

    Parameters
    ----------
    statement : sympy Boolean or str
        A relation or boolean combination (``And``, ``Or``, ``Implies``, ``Min``, ``Max``,
        ``sqrt``, ``floor``, ``log``, ``Eq``, ``Rational``, ...). A string is parsed by
        :func:`parse_statement` (decimals exact); a sympy statement must not contain binary
        floats.
    domains : mapping of symbol (or name) to domain, optional
        Declarations; symbols not listed use their sympy assumptions. Required for every
        symbol of a string statement.
    hypotheses : sequence of sympy relations
        The admissible range (the antecedent of the whole statement).
    timeout : float
        Seconds for the whole decision: every solver call gets what is left; past it the
        answer is Undecided. With ``isolate`` the limit is hard and covers sympy too.
    second_solver : bool
        Re-check z3's answer with cvc5 (default).
    isolate : bool
        Run the call in a child process killed at the limit (:mod:`attnio.smt.isolation`),
        with its memory capped: the one way to bound sympy's own work (``attnio prove`` does).

    Returns
    -------
    Proved | Refuted | Undecided
        ``Refuted.counterexample`` maps each symbol name to its exact value as a string; it
        has been re-evaluated exactly in the statement (defined and false there).
        ``Proved.where_defined`` names the definedness condition when the statement is
        undefined somewhere in its domains. Undecided "vacuous": defined nowhere, or an
        antecedent that holds nowhere it is defined. ``evidence`` says what the verdict
        rests on and what each solver answered.

    Raises
    ------
    InvalidInputError
        An undeclared symbol, an unknown domain, a binary float, or a malformed statement
        (for a string: also an exponent, root index, constant or number beyond the caps of
        :mod:`attnio.smt.term_limits`, refused before any term is built).

    Examples
    --------
    >>> prove_statement("sqrt(n - d)*sqrt(n - d) >= 0",
    ...                 {"n": "positive-integer", "d": "positive-integer"}).where_defined
    '-d + n >= 0'
    >>> prove_statement("Implies(And(x > 1, x < 0), Eq(x, 5))", {"x": "real"}).reason
    'vacuous: the antecedent And(x > 1, x < 0) holds at no point of the declared domains: a proof would show nothing'
    """
    if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
            and 0 < timeout < float("inf")):
        raise InvalidInputError(f"timeout={timeout!r} must be a positive finite number of seconds")
    if isolate:
        try:
            return run_isolated(prove_statement, (statement, domains),
                                {"hypotheses": tuple(hypotheses), "timeout": timeout,
                                 "second_solver": second_solver}, seconds=float(timeout))
        except HardLimitReached as exc:
            return Undecided(f"{exc}; the limit covers the whole call, sympy included")
        except MemoryError:
            return Undecided("the statement needs more memory than the isolated call may use "
                             f"({MEMORY_LIMIT_BYTES // 1024 ** 3} GiB)")
    clock = _Clock(float(timeout))
    if isinstance(statement, str):
        statement, parsed = parse_statement(statement, {str(k): v for k, v in (domains or {}).items()})
        domains = {**{str(k): v for k, v in parsed.items()}}
    hypotheses = list(hypotheses)
    if statement in (sp.true, sp.false) or statement is True or statement is False:
        return Undecided(f"sympy folded the statement to {statement} before any solver saw it; "
                         "build relations unevaluated (evaluate=False)")
    floats = set().union(*(e.atoms(sp.Float) for e in (statement, *hypotheses)))
    if floats:
        raise InvalidInputError(f"the statement contains the binary float {sorted(floats)[0]}: "
                                "write it as a Rational (Rational(1, 10)) or pass the statement "
                                "as text, where decimals are read exactly")
    doms = domains_of(statement, hypotheses, domains)
    try:
        problem = _Problem.of(statement, hypotheses, doms)
        if not doms:
            return _constant(problem)
        try:
            return _decide(problem, clock, second_solver)
        except TranslationError as exc:
            return _decide_without_smt(problem, clock, str(exc))
    except TranslationError as exc:
        return Undecided(f"not expressible in SMT arithmetic: {exc}")
    except _OutOfTime:
        return Undecided(f"the time limit of {timeout:g} s was reached")


def _constant(problem: _Problem) -> Verdict:
    """A statement without symbols: decided by exact evaluation alone."""
    evidence = Evidence("exact-arithmetic")
    for context in problem.contexts:
        if evaluate(context, {}) != "true":
            return Undecided(f"vacuous: the antecedent {context} is not true (it is "
                             f"{evaluate(context, {})} in exact arithmetic)", evidence=evidence)
    value = evaluate(problem.statement, {})
    if value == "true":
        return Proved("exact arithmetic: true (zero tests by minimal polynomials and linear "
                      "forms in logarithms / exponentials)", evidence=evidence)
    if value == "false":
        return Refuted({}, "exact arithmetic: false", evidence=evidence)
    if value == "undefined":
        return Undecided("vacuous: the statement is undefined (e.g. a square root of a negative "
                         "number or a division by zero)", evidence=evidence)
    return Undecided("exact arithmetic could not decide the statement (a sign it cannot "
                     "certify, or a number too large to evaluate)", evidence=evidence)


def _decide(problem: _Problem, clock: _Clock, second_solver: bool) -> Verdict:
    if problem.transcendental:
        point = _obvious_counterexample(problem, _FIRST_POINTS, clock)
        if point is not None:
            return Refuted(point_text(point), _OBVIOUS, evidence=Evidence("exact-arithmetic"))
    notes: list[str] = []
    if problem.has_integers:
        notes.append("integers relaxed to reals with their bounds: a proof there holds for every "
                     "integer")
    # with integers, half the budget at most for the relaxation: the integer search needs some
    relaxed, t = _search(problem, "relaxed", clock,
                         clock.left() / 2 if problem.has_integers else None)
    subs = list(t.substitutions)
    deciding: _Answer | None = None
    if relaxed.status == "repaired":
        assert relaxed.point is not None
        return Refuted(point_text(relaxed.point), _REPAIRED + detail_suffix(notes, subs),
                                  evidence=Evidence("exact-arithmetic"))
    if relaxed.status in ("unsat", "sat"):
        deciding = relaxed
    elif relaxed.status == "outside":
        assert relaxed.point is not None
        notes.append(f"relaxed counterexample {point_text(relaxed.point)} "
                     f"rejected ({relaxed.reason})")
        # the relaxation again, with the integer gaps of integer-valued relations
        gapped, t = _search(problem, "relaxed", clock, clock.left() / 2, gaps=True)
        if gapped.status == "repaired":
            assert gapped.point is not None
            return Refuted(point_text(gapped.point), _REPAIRED + detail_suffix(notes, subs),
                                      evidence=Evidence("exact-arithmetic"))
        if gapped.status in ("unsat", "sat"):
            deciding = gapped
            notes.append("integer gaps of integer-valued relations added")
    else:
        notes.append(f"relaxed encoding: {relaxed.reason or 'z3 unknown'}")

    if deciding is None and problem.has_integers:
        if relaxed.point is not None:
            # Integer points next to the relaxed model, checked exactly, before any integer
            # search (z3's nonlinear integer arithmetic may ignore its time limit).
            for point in near_integer_points(relaxed.point, problem.doms):
                if _referee(problem.statement, problem.doms, point)[0] == "counterexample":
                    return Refuted(point_text(point), "counterexample found among the integer "
                                        "points next to z3's relaxed model; checked by exact "
                                        "evaluation" + detail_suffix(notes, subs),
                                        evidence=Evidence("exact-arithmetic"))
        exact, t = _search(problem, "exact", clock, EXACT_INTEGER_TIMEOUT_S)
        notes.append("integers as z3 Int")
        subs = list(t.substitutions)
        if exact.status == "repaired":
            assert exact.point is not None
            return Refuted(point_text(exact.point), _REPAIRED + detail_suffix(notes, subs),
                                      evidence=Evidence("exact-arithmetic"))
        if exact.status in ("unsat", "sat"):
            deciding = exact
        else:
            notes.append(f"exact encoding: {exact.reason or 'z3 unknown'}")
    if deciding is None:
        return _before_giving_up(problem, clock,
                                 "z3 could not decide the statement" + detail_suffix(notes, subs))
    if deciding.excluded:
        notes.append(f"{len(deciding.excluded)} point(s) excluded after exact evaluation "
                     f"showed they are no counterexample: " + "; ".join(deciding.excluded))

    z3_says = "proved" if deciding.status == "unsat" else "refuted"
    solvers = {"z3": z3_says}
    if second_solver:
        cvc5_says = {"unsat": "proved", "sat": "refuted", "unknown": "undecided",
                     "n/a": "n/a"}[cvc5_check(deciding.smt2(),
                                              clock.left(SECOND_SOLVER_TIMEOUT_S))]
        solvers["cvc5"] = cvc5_says
        if cvc5_says in ("proved", "refuted") and cvc5_says != z3_says:
            return Undecided(f"the solvers disagree: z3 {z3_says}, cvc5 {cvc5_says}"
                             + detail_suffix(notes, subs),
                             evidence=Evidence("smt-forall", solvers=solvers))
    evidence = Evidence("smt-forall", solvers=solvers, note="; ".join(subs + notes))
    if deciding.status == "sat":
        assert deciding.point is not None
        return Refuted(point_text(deciding.point), "counterexample checked by exact evaluation"
                            + detail_suffix(notes, subs), evidence=evidence)
    return _conclude(problem, clock, "hypotheses ∧ defined ∧ ¬statement is unsat",
                     detail_suffix(notes, subs), evidence)


def _before_giving_up(problem: _Problem, clock: _Clock, why: str) -> Verdict:
    """The last tries when z3 could not decide: every obvious point, and for an identity of
    the exp/log fragment sympy's rewriting (:func:`_identity_by_sympy`); else Undecided."""
    point = _obvious_counterexample(problem, DEFAULT_LIMIT, clock)
    if point is not None:
        return Refuted(point_text(point), f"{_OBVIOUS} ({why})",
                       evidence=Evidence("exact-arithmetic"))
    if problem.transcendental:
        verdict = _identity_route(problem, clock)
        if verdict is not None:
            return verdict
    return Undecided(why + "; no counterexample among the obvious points",
                     evidence=Evidence("smt-forall", solvers={"z3": "undecided"}))


def _conclude(problem: _Problem, clock: _Clock, how: str, detail: str,
              evidence: Evidence) -> Verdict:
    """A proof, once it is shown not to be vacuous; with its definedness condition."""
    vacuity = _vacuity(problem, clock)
    if vacuity is not None:
        return Undecided(vacuity, evidence=evidence)
    checked = ("; antecedents satisfiable where defined (checked)" if problem.contexts
               else "; no antecedent")
    where = _where_defined(problem, clock)
    if where is None:
        return Proved(how + checked + detail, evidence=evidence)
    condition, point = where
    how += f"; where defined: {condition}" + (
        f" (undefined e.g. at {point_text(point)})" if point is not None else
        " (no point of the domains was shown undefined, and none was ruled out)")
    return Proved(how + checked + detail, evidence=evidence, where_defined=condition)


def _vacuity(problem: _Problem, clock: _Clock) -> str | None:
    """Why a proof of ``problem`` would show nothing, or None: the statement is defined
    nowhere in the domains, or an antecedent holds nowhere it is defined."""
    checks: list[sp.Basic] = list(problem.contexts)
    if not checks and problem.defined is not sp.true:
        checks = [sp.true]
    for context in checks:
        status = _satisfiable([problem.defined, context], problem.doms, clock)
        what = (f"the antecedent {statement_text(context)} holds" if context is not sp.true
                       else "the statement is defined")
        where = (" where the statement is defined"
                 if problem.defined is not sp.true and context is not sp.true else "")
        if status == "unsat":
            return (f"vacuous: {what} at no point of the declared domains{where}: a proof "
                    "would show nothing")
        if status != "sat":
            return (f"proved, but z3 could not show that {what} somewhere in the declared "
                    f"domains{where}: possibly vacuous")
    return None


def _where_defined(problem: _Problem, clock: _Clock
                   ) -> tuple[str, dict[sp.Symbol, sp.Expr] | None] | None:
    """None when the statement is defined at every point of its domains; else its
    definedness condition (the parts the domains do not already imply, in the syntax
    ``attnio prove`` reads) with a point of the domains where exact evaluation shows it
    undefined — or with None when no such point was found and none was ruled out."""
    if problem.defined is sp.true:
        return None
    found, point = _undefined_point(problem, clock)
    if found == "none":
        return None
    parts = problem.defined.args if isinstance(problem.defined, sp.And) else (problem.defined,)
    kept = [c for c in parts if _satisfiable([sp.Not(c)], problem.doms, clock) != "unsat"]
    kept = kept or [problem.defined]
    condition = kept[0] if len(kept) == 1 else sp.And(*kept, evaluate=False)
    return statement_text(condition), point


def _undefined_point(problem: _Problem, clock: _Clock
                     ) -> tuple[str, dict[sp.Symbol, sp.Expr] | None]:
    """``("none", None)`` when z3 shows the statement defined at every point of the domains
    (over the reals, then over the integers); ``("point", p)`` for a point ``p`` of the
    domains where exact evaluation finds it undefined; else ``("unknown", None)``."""
    doms = problem.doms
    for integers in (("relaxed", "exact") if problem.has_integers else ("relaxed",)):
        t = Translator(doms, integers=integers)  # type: ignore[arg-type]
        undefined = z3.Not(t.rel(problem.defined))
        status, model, _ = _z3_check(
            [*t.side_conditions, undefined],
            clock.left(EXACT_INTEGER_TIMEOUT_S if integers == "exact" else None),
            isolated=integers == "exact")
        if status == "unsat":
            return "none", None
        if model is None:
            continue
        point = t.point(model)
        for candidate in [point, *(near_integer_points(point, doms) if problem.has_integers
                                   else ())]:
            if all(in_domain(candidate[s], dom) is True for s, dom in doms.items()) and \
                    evaluate(problem.statement, candidate) == "undefined":
                return "point", candidate
        if t.uses_fragment:
            break
    for candidate in obvious_points([problem.statement, problem.defined], doms,
                                    limit=_FIRST_POINTS):
        clock.left()
        if evaluate(problem.statement, candidate) == "undefined":
            return "point", candidate
    return "unknown", None


def _decide_without_smt(problem: _Problem, clock: _Clock, why: str) -> Verdict:
    """Statements outside SMT and the exp/log fragment (trigonometric functions of symbols):
    an identity by sympy under proved positivity, or a counterexample among the obvious
    points by exact evaluation; otherwise Undecided."""
    verdict = _identity_route(problem, clock)
    if verdict is not None:
        return verdict
    counterexample = _obvious_counterexample(problem, DEFAULT_LIMIT, clock)
    if counterexample is not None:
        return Refuted(point_text(counterexample), _OBVIOUS, evidence=Evidence("exact-arithmetic"))
    return Undecided(f"not expressible in SMT arithmetic ({why}); no counterexample among the "
                     f"obvious points of the declared domains")


def _identity_route(problem: _Problem, clock: _Clock) -> Verdict | None:
    """An equation (the goal, or the consequent of nested ``Implies``, whose antecedents join
    the hypotheses) decided by :func:`_identity_by_sympy`; None when it is no equation or
    sympy does not reach 0."""
    goal, hypotheses = problem.goal, list(problem.hypotheses)
    while isinstance(goal, sp.Implies):     # Implies(A, Eq(...)): A joins the hypotheses
        hypotheses.append(goal.args[0])
        goal = goal.args[1]
    if not isinstance(goal, sp.Eq):
        return None
    return _identity_by_sympy(problem, goal, hypotheses, clock)


def _identity_by_sympy(problem: _Problem, goal: sp.Eq, hypotheses: Sequence[sp.Basic],
                       clock: _Clock) -> Verdict | None:
    """``lhs = rhs`` rewritten to 0 by sympy (``expand_log``, ``simplify``) with each symbol
    replaced by one carrying its domain — and positivity where the hypotheses prove it
    (``log(x*y) = log(x) + log(y)`` needs ``x, y > 0``). Then the usual vacuity and
    definedness checks apply. None when sympy does not reach 0."""
    replacement: dict[sp.Symbol, sp.Symbol] = {}
    positive: list[str] = []
    for sym, dom in problem.doms.items():
        assumptions = dict(DOMAIN_ASSUMPTIONS[dom])
        if not (dom.startswith("positive")):
            try:
                # where the statement is defined is where it claims anything: D joins
                shown = _decide(_Problem.of(sp.Gt(sym, 0, evaluate=False),
                                            [*hypotheses, problem.defined], problem.doms),
                                clock, second_solver=False)
            except TranslationError:
                shown = None
            if isinstance(shown, Proved):
                assumptions["positive"] = True
                positive.append(str(sym))
        replacement[sym] = sp.Dummy(str(sym), **assumptions)
    difference = (goal.lhs - goal.rhs).xreplace(replacement)
    if sp.simplify(sp.expand_log(difference)) != 0:
        return None
    how = "sympy: expand_log and simplify reduce lhs − rhs to 0"
    if positive:
        how += f" (with {', '.join(positive)} > 0 proved from the hypotheses)"
    return _conclude(problem, clock, how, "", Evidence("sympy-canonical"))
