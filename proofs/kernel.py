r"""The proof kernel: one code path from a sympy statement to Proved / Refuted / Undecided.

``attnio verify`` (every algebra claim, through :func:`attnio.proofs.algebra.z3_claim`) and
``attnio prove`` (a user's own statement) both call :func:`prove_statement`. The kernel's
rules, each one a defect it closes:

1. **Domains come from declarations.** Every free symbol has a domain (:data:`DOMAINS`) given
   by the caller (``domains=``, ``--var n:positive-integer``) or by its sympy assumptions
   (``Symbol("n", positive=True, integer=True)``). A symbol with neither is
   :class:`~attnio.exceptions.InvalidInputError`, never a silent assumption; a symbol's *name*
   is never consulted.
2. **Integers are integers.** An integer domain is first relaxed to the reals with its bound
   (``n ≥ 1``): a proof there is a proof for the integers. A counterexample of the relaxation
   that is not integral sends the statement to the exact encoding (z3 ``Int``), and, if that
   is inconclusive, to a bounded search of integer points near the relaxed model.
3. **Changes of variables only where declared.** ``M = s²`` is applied only to a symbol whose
   declared domain is nonnegative and which occurs under a square root
   (:mod:`attnio.proofs.sympy_to_z3`); the verdict's detail names every substitution.
4. **Partial functions have one semantics** (:mod:`attnio.proofs.definedness`): a square
   root, a division, a logarithm or a non-integer power brings its definedness condition;
   every query asks z3 for a counterexample *where the statement is defined*, and a proof of a
   statement undefined at some domain point says so (``Proved.where_defined``).
5. **Refuted means a checked counterexample.** The solver's model is mapped back to the
   original symbols and evaluated in the original sympy statement *exactly*
   (:mod:`attnio.proofs.exact_eval`): it must lie in every declared domain and make
   hypotheses ⇒ goal defined and false. A model the referee shows is no counterexample (the
   statement is true or undefined there, or it is not integral) is excluded and z3 asked
   again, a few rounds; a model it cannot judge makes the answer Undecided.
6. **No vacuous proofs.** A proof is Undecided "vacuous" when the statement is defined nowhere
   in its domains, or when an antecedent — the hypotheses, or ``A`` of any ``Implies(A, B)``
   in a positive position — holds at no point where the statement is defined.
7. **A second solver.** Every z3 Proved / Refuted is re-checked by cvc5 on the same SMT-LIB
   problem (:func:`cvc5_check`). A disagreement is Undecided and names both answers; cvc5's
   ``unknown`` is recorded, not counted as agreement; a problem cvc5 cannot take is ``n/a``.
8. **Statements without symbols are arithmetic.** They are decided by exact evaluation
   (evidence ``exact-arithmetic``), e.g. :math:`\cos\frac{\pi}{7} - \cos\frac{2\pi}{7} +
   \cos\frac{3\pi}{7} = \frac12` or :math:`\log 8 = 3\log 2`.
9. **What SMT cannot express** (``exp``, ``log`` of symbols) is decided by sympy — an
   identity rewritten to 0 with the positivity it needs proved first — or refuted on a grid
   of domain points by exact evaluation; otherwise Undecided.
10. **One time limit per call.** ``timeout`` bounds the whole decision; ``isolate=True`` makes
    it hard (a child process, sympy included), as ``attnio prove`` does.

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

Size: a little over 600 lines on purpose. The kernel is the trusted base of every verdict;
its stages (parse, declared domains, exact grid, z3, cvc5, the referee that re-evaluates every
counterexample) are kept in one file so that what can make a verdict Proved reads in one place.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass
from tokenize import TokenError
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp
import z3

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.proofs.definedness import antecedent_contexts, as_written, definedness
from attnio.proofs.exact_eval import evaluate, in_domain, sign_of, truth_at, value_at
from attnio.proofs import second_solver
from attnio.proofs.isolation import MEMORY_LIMIT_BYTES, HardLimitReached, Worker, run_isolated
from attnio.proofs.sympy_to_z3 import Translator
from attnio.proofs.term_limits import check_number_literals, checked_namespace
from attnio.proofs.z3tools import WATCHDOG_GRACE_S, check_sat, check_sat_isolated
from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict

__all__ = ["DOMAINS", "declared_domain", "symbol_for", "parse_statement", "prove_statement",
           "check_identity", "cvc5_check", "solver_versions", "DEFAULT_TIMEOUT_S", "WATCHDOG_GRACE_S"]

#: The domains a symbol may be declared in.
DOMAINS = ("real", "positive", "nonnegative", "integer", "positive-integer",
           "nonnegative-integer")

DEFAULT_TIMEOUT_S = 20.0
#: cvc5's limit per re-check (its ``unknown`` is recorded, never counted as agreement).
SECOND_SOLVER_TIMEOUT_S = 4.0
#: z3's limit for the exact integer encoding (nonlinear integer arithmetic is undecidable; a
#: timeout there is Undecided, never a pass).
EXACT_INTEGER_TIMEOUT_S = 5.0
#: Integer points tried near a relaxed counterexample when the exact encoding is inconclusive.
_NEAR_POINTS = 729
_MAX_STATEMENT_CHARS = 20_000

_ASSUMPTIONS = {
    "real": {"real": True},
    "positive": {"positive": True},
    "nonnegative": {"nonnegative": True},
    "integer": {"integer": True},
    "positive-integer": {"positive": True, "integer": True},
    "nonnegative-integer": {"nonnegative": True, "integer": True},
}


def declared_domain(sym: sp.Symbol) -> str | None:
    """The domain a sympy symbol's own assumptions declare, or ``None`` if they declare none.

    >>> declared_domain(sp.Symbol("M", positive=True, integer=True))
    'positive-integer'
    >>> declared_domain(sp.Symbol("M")) is None      # the name "M" means nothing
    True
    """
    if sym.is_integer:
        if sym.is_positive:
            return "positive-integer"
        return "nonnegative-integer" if sym.is_nonnegative else "integer"
    if sym.is_positive:
        return "positive"
    if sym.is_nonnegative:
        return "nonnegative"
    return "real" if sym.is_real else None


def symbol_for(name: str, domain: str) -> sp.Symbol:
    """A sympy symbol named ``name`` whose assumptions declare ``domain``."""
    if domain not in DOMAINS:
        raise InvalidInputError(f"domain {domain!r} of {name!r} must be one of {', '.join(DOMAINS)}")
    return sp.Symbol(name, **_ASSUMPTIONS[domain])


# ------------------------------------------------------------------------------- parsing
_ALLOWED_TEXT = re.compile(r"^[A-Za-z0-9_ \t\n+\-*/().,<>=!&|~^]*$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_FUNCTIONS: dict[str, Any] = {
    name: getattr(sp, name) for name in (
        "And", "Or", "Not", "Implies", "Equivalent", "Xor", "Min", "Max", "sqrt", "root",
        "Rational", "Integer", "Abs", "Piecewise", "floor", "ceiling", "pi", "E", "cos", "sin",
        "tan", "exp", "log", "true", "false",
    )
}
_FUNCTIONS.update({"True": sp.true, "False": sp.false})
# Connectives stay as written: sympy would fold Or(1/x > 0, 1/x <= 0) to True — hiding
# that the statement is undefined at x = 0 — and decide Xor(x > 0, x <= 0) itself.
_FUNCTIONS.update({
    cls.__name__: (lambda c: lambda *args, **_: as_written(c, *args))(cls)
    for cls in (sp.And, sp.Or, sp.Not, sp.Implies, sp.Equivalent, sp.Xor)})
# The functions that evaluate their arguments: built through term_limits' checks.
_EVALUATING = ("Min", "Max", "sqrt", "root", "Rational", "Integer", "Abs", "Piecewise", "floor",
               "ceiling", "cos", "sin", "tan", "exp", "log")
# A decimal literal, scientific notation included (read as an exact rational, not a word).
_DECIMAL = re.compile(r"(?<![A-Za-z_0-9])\d+\.?\d*(?:[eE][+-]?\d+)?|(?<![A-Za-z_0-9])\.\d+(?:[eE][+-]?\d+)?")
# Relations stay unevaluated, so that sympy never decides a statement before the kernel does.
_FUNCTIONS.update({
    name: (lambda rel: lambda a, b, **_: rel(a, b, evaluate=False))(getattr(sp, name))
    for name in ("Eq", "Ne", "Le", "Lt", "Ge", "Gt")
})


def parse_statement(text: str, domains: Mapping[str, str]) -> tuple[sp.Basic, dict[sp.Symbol, str]]:
    """Parse a statement in sympy syntax with every symbol declared in ``domains``.

    Returns the unevaluated statement and ``{symbol: domain}``. Relations stay unevaluated,
    so the solvers — not sympy's sign rules — decide them. Decimals are exact: ``0.1`` is
    read as ``1/10`` (sympy's ``rationalize``), never as the binary float nearest to it.
    Scientific notation is exact too: ``1e308*10`` is ``10**309``. ``True`` and ``False`` are
    the boolean constants inside a statement (``Piecewise((x, x > 0), (-x, True))``); a
    statement that *is* a constant (``true``) is refused: it has no relation to prove.
    ``^`` is refused: in sympy syntax it is exclusive-or, not a power. Exponents, root
    indices, constants and number literals are capped while the terms are built
    (:mod:`attnio.proofs.term_limits`: ``n**(10**8)`` and ``root(n, 10**9)`` are input
    errors naming the exponent and the cap, never a polynomial of that degree), and a
    constant exponent is stored as the exact rational it is (``n**(1/3)``).

    Raises
    ------
    InvalidInputError
        Characters outside arithmetic and logic, a name that is not a symbol, an undeclared
        symbol, an unsupported function, a bad domain, a malformed or oversized number, an
        exponent or root index beyond the caps, ``Min()`` / ``Max()`` without arguments, or
        a statement that is not a relation or a boolean combination (a constant included).

    Examples
    --------
    >>> s, doms = parse_statement("Implies(M >= d**2, d/sqrt(M) <= 1)",
    ...                           {"M": "positive", "d": "positive-integer"})
    >>> s
    Implies(M >= d**2, d/(sqrt(M)) <= 1)
    >>> parse_statement("x > 0", {})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: symbol 'x' is not declared: add --var x:DOMAIN (one of real, positive, nonnegative, integer, positive-integer, nonnegative-integer)
    >>> parse_statement("Eq(0.1 + 0.2, 0.3)", {})[0]
    Eq(1/10 + 1/5, 3/10)
    >>> parse_statement("2^3 >= 8", {})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: STATEMENT uses '^', which is exclusive-or in sympy syntax: write powers as ** (2**3), exclusive-or as Xor(a, b)
    """
    from sympy.parsing.sympy_parser import parse_expr, rationalize, standard_transformations

    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("STATEMENT must be a non-empty string")
    if len(text) > _MAX_STATEMENT_CHARS:
        raise InvalidInputError(f"STATEMENT has {len(text)} characters; the limit is "
                                f"{_MAX_STATEMENT_CHARS}")
    bad = sorted(set(ch for ch in text if not _ALLOWED_TEXT.match(ch)))
    if bad or "__" in text:
        shown = "".join(bad[:10]) or "__"
        raise InvalidInputError(f"STATEMENT contains characters outside sympy arithmetic and "
                                f"logic: {shown!r}")
    if text.count("(") > 2_000:
        raise InvalidInputError("STATEMENT nests more than 2000 parentheses")
    if "^" in text:
        raise InvalidInputError("STATEMENT uses '^', which is exclusive-or in sympy syntax: "
                                "write powers as ** (2**3), exclusive-or as Xor(a, b)")
    check_number_literals(text)
    declared: dict[sp.Symbol, str] = {}
    local: dict[str, Any] = {}
    for name, dom in domains.items():
        if not _NAME.match(name):
            raise InvalidInputError(f"variable name {name!r} must be letters, digits and _")
        sym = symbol_for(name, dom)
        declared[sym] = dom
        local[name] = sym
    known_names = set(_FUNCTIONS) | set(local)
    unnumbered = _DECIMAL.sub(" ", text)
    for found in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", unnumbered):
        word = found.group()
        if word not in known_names and unnumbered[found.end():].lstrip().startswith("("):
            raise InvalidInputError(
                f"function {word!r} is not supported: the functions are "
                f"{', '.join(sorted(n for n, f in _FUNCTIONS.items() if not isinstance(f, sp.Basic)))}")
        if word not in known_names:
            raise InvalidInputError(
                f"symbol {word!r} is not declared: add --var {word}:DOMAIN (one of "
                f"{', '.join(DOMAINS)})")
    # The user's words are restricted above to declared symbols and _FUNCTIONS; the wider
    # sympy namespace is only for the code parse_expr generates (Add, Mul, Pow, Integer, ...).
    global_dict: dict[str, Any] = {name: getattr(sp, name) for name in sp.__all__}
    global_dict.update(_FUNCTIONS, __builtins__={})
    global_dict.update(checked_namespace({name: _FUNCTIONS[name] for name in _EVALUATING}))
    try:
        statement = parse_expr(text, local_dict=local, global_dict=global_dict,
                               transformations=(*standard_transformations, rationalize),
                               evaluate=False)
    except InvalidInputError:
        raise
    except (SyntaxError, TypeError, ValueError, AttributeError, RecursionError, NameError,
            sp.SympifyError, TokenError) as exc:
        raise InvalidInputError(f"STATEMENT is not valid sympy syntax: "
                                f"{type(exc).__name__}: {_short(str(exc))}") from None
    if statement in (sp.true, sp.false) or isinstance(statement, bool):
        raise InvalidInputError(f"STATEMENT {_short(text, 40)!r} is the constant "
                                f"{str(bool(statement)).lower()}: it has no relation to prove; "
                                "write a relation (n >= 1) or a combination of relations")
    if not isinstance(statement, sp.logic.boolalg.Boolean) or isinstance(statement, sp.Symbol):
        raise InvalidInputError(f"STATEMENT must be a relation or a boolean combination of "
                                f"relations, not {type(statement).__name__}")
    return statement, declared


def _short(text: str, width: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


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
        return _smt2([*self.assertions, *self.pins])


def _z3_check(assertions: Sequence[z3.BoolRef], timeout_s: float, *,
              isolated: bool = False) -> tuple[str, z3.ModelRef | None, str]:
    """z3's answer for ``assertions`` (:func:`attnio.proofs.z3tools.check_sat`: a timeout and a
    watchdog, never a hang; ``isolated``: :func:`~attnio.proofs.z3tools.check_sat_isolated`,
    a child process killed at a hard deadline)."""
    if isolated:
        return check_sat_isolated(assertions, timeout_s)
    return check_sat(assertions, timeout_s)


def _smt2(assertions: Sequence[z3.BoolRef]) -> str:
    solver = z3.Solver()
    solver.add(*assertions)
    return solver.to_smt2()


def cvc5_check(smt2: str, timeout_s: float) -> str:
    """Satisfiability of an SMT-LIB problem according to cvc5: ``"sat"``, ``"unsat"``,
    ``"unknown"``, or ``"n/a"`` (cvc5 missing, or the problem uses what cvc5 cannot take).

    cvc5's own limit (``tlimit-per``) is not checked often inside its nonlinear procedures (a
    check was seen running for minutes past it), so the check runs in a child process killed
    :data:`~attnio.proofs.isolation.KILL_GRACE_S` after ``timeout_s``: then ``"unknown"``.
    Integer problems use the logic ``QF_NIRA``, real ones ``QF_NRA``.

    >>> cvc5_check("(declare-fun x () Real)(assert (< (* x x) 0))(check-sat)", 5.0)
    'unsat'
    >>> cvc5_check("(declare-fun k () Int)(assert (> (* 2 k) 4))(assert (< (* 2 k) 6))(check-sat)", 5.0)
    'unsat'
    """
    try:
        import cvc5  # noqa: F401 - only whether it is installed
    except ImportError:
        return "n/a"
    try:
        return _CVC5.call((smt2, timeout_s), seconds=timeout_s)
    except HardLimitReached:
        return "unknown"


#: The server process that runs cvc5 (started at the first check, killed past a limit).
_CVC5 = Worker(second_solver.__file__, "cvc5_answer")


def solver_versions() -> dict[str, str | None]:
    """Versions of the SMT solvers the kernel uses (``None`` when not installed)."""
    out: dict[str, str | None] = {"z3": z3.get_version_string()}
    try:
        import cvc5
        out["cvc5"] = getattr(cvc5, "__version__", "installed")
    except ImportError:
        out["cvc5"] = None
    return out


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
                   _drop_domain_facts(definedness(statement), doms),
                   tuple(antecedent_contexts(statement)))

    @property
    def has_integers(self) -> bool:
        return any("integer" in dom for dom in self.doms.values())


def _drop_domain_facts(defined: sp.Basic, doms: Mapping[sp.Symbol, str]) -> sp.Basic:
    """``defined`` without the conjuncts sympy's assumptions prove from the *declared*
    domains alone (``exp(x) > 0``, ``M >= 0`` for a positive M): each symbol is replaced by a
    dummy carrying exactly its declared domain's assumptions, never its own flags."""
    dummies = {sym: sp.Dummy(str(sym), **_ASSUMPTIONS[dom]) for sym, dom in doms.items()}
    parts = defined.args if isinstance(defined, sp.And) else (defined,)
    kept = []
    for part in parts:
        if isinstance(part, sp.core.relational.Relational):
            try:
                folded = part.func(part.lhs.xreplace(dummies), part.rhs.xreplace(dummies))
            except TypeError:   # sympy cannot order the sides: keep the condition
                folded = None
            if folded is sp.true:
                continue
        kept.append(part)
    if len(kept) == len(parts):
        return defined
    return sp.true if not kept else kept[0] if len(kept) == 1 else sp.And(*kept, evaluate=False)


def _domains_of(statement: sp.Basic, hypotheses: Sequence[sp.Basic],
                domains: Mapping[Any, str] | None) -> dict[sp.Symbol, str]:
    given: dict[str, str] = {}
    for key, dom in (domains or {}).items():
        if dom not in DOMAINS:
            raise InvalidInputError(f"domain {dom!r} of {key} must be one of {', '.join(DOMAINS)}")
        given[str(key)] = dom
    out: dict[sp.Symbol, str] = {}
    free = set(statement.free_symbols).union(*(h.free_symbols for h in hypotheses))
    for sym in sorted(free, key=str):
        found = given.get(str(sym)) or declared_domain(sym)
        if found is None:
            raise InvalidInputError(
                f"symbol {sym} has no declared domain: declare it (e.g. positive=True, or "
                f"--var {sym}:DOMAIN with DOMAIN one of {', '.join(DOMAINS)})")
        out[sym] = found
    return out


def _show(point: Mapping[sp.Symbol, sp.Expr]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(point.items(), key=lambda kv: str(kv[0]))}


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
            return "outside", f"{sym} = {point[sym]} is not in its declared domain {dom}"
        if inside is None:
            return "unknown", f"{sym} = {point[sym]} is not shown in its declared domain {dom}"
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
                           f"z3's counterexample {_show(point)} was rejected: {why}",
                           tuple(excluded)), t
        excluded.append(f"{_show(point)}: {why}")
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
        candidates = [point, *(_near_integer_points(point, doms) if has_integers else ())]
        for candidate in candidates:
            if all(in_domain(candidate[s], dom) is True for s, dom in doms.items()) and \
                    all(truth_at(f, candidate) is True for f in formulas):
                return "sat"
    return "unknown"


def _near_integer_points(point: Mapping[sp.Symbol, sp.Expr], doms: Mapping[sp.Symbol, str]
                         ) -> Iterable[dict[sp.Symbol, sp.Expr]]:
    """Integer points around a relaxed model (floor − 1 … floor + 2 of each integer coordinate)."""
    choices = []
    for sym, dom in doms.items():
        value = point[sym]
        if "integer" not in dom:
            choices.append([value])
            continue
        base = int(sp.floor(value))
        choices.append([sp.Integer(v) for v in sorted({base - 1, base, base + 1, base + 2})])
    syms = list(doms)
    for combo in itertools.islice(itertools.product(*choices), _NEAR_POINTS):
        yield dict(zip(syms, combo))


def prove_statement(statement: sp.Basic | str, domains: Mapping[Any, str] | None = None, *,
                    hypotheses: Sequence[sp.Basic] = (), timeout: float = DEFAULT_TIMEOUT_S,
                    second_solver: bool = True, isolate: bool = False) -> Verdict:
    r"""Decide ``hypotheses ⇒ statement`` for every value of the symbols in their domains,
    on the points where it is defined (:mod:`attnio.proofs.definedness`).

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
        Run the call in a child process killed at the limit (:mod:`attnio.proofs.isolation`),
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
        :mod:`attnio.proofs.term_limits`, refused before any term is built).

    Examples
    --------
    >>> prove_statement("sqrt(n - d)*sqrt(n - d) >= 0",
    ...                 {"n": "positive-integer", "d": "positive-integer"}).where_defined
    '-d + n >= 0'
    >>> prove_statement("Implies(And(x > 1, x < 0), Eq(x, 5))", {"x": "real"}).reason
    'vacuous: the antecedent (x > 1) & (x < 0) holds at no point of the declared domains: a proof would show nothing'
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
    doms = _domains_of(statement, hypotheses, domains)
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
    notes: list[str] = []
    if problem.has_integers:
        notes.append("integers relaxed to reals with their bounds")
    # with integers, half the budget at most for the relaxation: the integer search needs some
    relaxed, t = _search(problem, "relaxed", clock,
                         clock.left() / 2 if problem.has_integers else None)
    subs = list(t.substitutions)
    deciding: _Answer | None = None
    if relaxed.status in ("unsat", "sat"):
        deciding = relaxed
    elif relaxed.status == "outside":
        assert relaxed.point is not None
        notes.append(f"relaxed counterexample {_show(relaxed.point)} rejected ({relaxed.reason})")
        # the relaxation again, with the integer gaps of integer-valued relations
        gapped, t = _search(problem, "relaxed", clock, clock.left() / 2, gaps=True)
        if gapped.status in ("unsat", "sat"):
            deciding = gapped
            notes.append("integer gaps of integer-valued relations added")
    else:
        notes.append(f"relaxed encoding: {relaxed.reason or 'z3 unknown'}")

    if deciding is None and problem.has_integers:
        if relaxed.point is not None:
            # Integer points next to the relaxed model, checked exactly, before any integer
            # search (z3's nonlinear integer arithmetic may ignore its time limit).
            for point in _near_integer_points(relaxed.point, problem.doms):
                if _referee(problem.statement, problem.doms, point)[0] == "counterexample":
                    return Refuted(_show(point), "counterexample found among the integer "
                                   "points next to z3's relaxed model; checked by exact "
                                   "evaluation" + _detail(notes, subs),
                                   evidence=Evidence("exact-arithmetic"))
        exact, t = _search(problem, "exact", clock, EXACT_INTEGER_TIMEOUT_S)
        notes.append("integers as z3 Int")
        subs = list(t.substitutions)
        if exact.status in ("unsat", "sat"):
            deciding = exact
        else:
            notes.append(f"exact encoding: {exact.reason or 'z3 unknown'}")
    if deciding is None:
        return Undecided("z3 could not decide the statement" + _detail(notes, subs),
                         evidence=Evidence("smt-forall", solvers={"z3": "undecided"}))
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
                             + _detail(notes, subs),
                             evidence=Evidence("smt-forall", solvers=solvers))
    evidence = Evidence("smt-forall", solvers=solvers, note="; ".join(subs + notes))
    if deciding.status == "sat":
        assert deciding.point is not None
        return Refuted(_show(deciding.point), "counterexample checked by exact evaluation"
                       + _detail(notes, subs), evidence=evidence)
    return _conclude(problem, clock, "hypotheses ∧ defined ∧ ¬statement is unsat",
                     _detail(notes, subs), evidence)


def _conclude(problem: _Problem, clock: _Clock, how: str, detail: str,
              evidence: Evidence) -> Verdict:
    """A proof, once it is shown not to be vacuous; with its definedness condition."""
    vacuity = _vacuity(problem, clock)
    if vacuity is not None:
        return Undecided(vacuity, evidence=evidence)
    checked = ("; antecedents satisfiable where defined (checked)" if problem.contexts
               else "; no antecedent")
    where = _where_defined(problem, clock)
    if where is not None:
        how += f"; where defined: {where}"
    return Proved(how + checked + detail, evidence=evidence,
                  where_defined=None if where is None else where.split(" (")[0])


def _vacuity(problem: _Problem, clock: _Clock) -> str | None:
    """Why a proof of ``problem`` would show nothing, or None: the statement is defined
    nowhere in the domains, or an antecedent holds nowhere it is defined."""
    checks: list[sp.Basic] = list(problem.contexts)
    if not checks and problem.defined is not sp.true:
        checks = [sp.true]
    for context in checks:
        status = _satisfiable([problem.defined, context], problem.doms, clock)
        what = (f"the antecedent {_pretty(context)} holds" if context is not sp.true
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


def _where_defined(problem: _Problem, clock: _Clock) -> str | None:
    """None when the statement is defined at every point of its domains; else its
    definedness condition (the parts the domains do not already imply), with an undefined
    point when exact evaluation confirms one."""
    if problem.defined is sp.true:
        return None
    t = Translator(problem.doms, integers="relaxed")
    undefined = z3.Not(t.rel(problem.defined))
    status, model, _ = _z3_check([*t.side_conditions, undefined], clock.left())
    if status == "unsat":
        return None
    parts = problem.defined.args if isinstance(problem.defined, sp.And) else (problem.defined,)
    kept = [c for c in parts if _satisfiable([sp.Not(c)], problem.doms, clock) != "unsat"]
    condition = " & ".join(_pretty(c) for c in (kept or [problem.defined]))
    if model is not None:
        point = t.point(model)
        if all(in_domain(point[s], dom) is True for s, dom in problem.doms.items()) and \
                evaluate(problem.statement, point) == "undefined":
            return f"{condition} (undefined e.g. at {_show(point)})"
    return condition


def _decide_without_smt(problem: _Problem, clock: _Clock, why: str) -> Verdict:
    """Statements SMT arithmetic cannot express (``exp``, ``log``, trigonometric functions of
    symbols): an identity by sympy under proved positivity, or a counterexample on a grid of
    domain points by exact evaluation; otherwise Undecided."""
    goal, hypotheses = problem.goal, list(problem.hypotheses)
    while isinstance(goal, sp.Implies):     # Implies(A, Eq(...)): A joins the hypotheses
        hypotheses.append(goal.args[0])
        goal = goal.args[1]
    if isinstance(goal, sp.Eq):
        verdict = _identity_by_sympy(problem, goal, hypotheses, clock)
        if verdict is not None:
            return verdict
    counterexample = _grid_counterexample(problem)
    if counterexample is not None:
        return Refuted(_show(counterexample), "counterexample on the grid of domain points, "
                       "checked by exact evaluation", evidence=Evidence("exact-arithmetic"))
    return Undecided(f"not expressible in SMT arithmetic ({why}); no counterexample among the "
                     f"grid points of the declared domains")


def _identity_by_sympy(problem: _Problem, goal: sp.Eq, hypotheses: Sequence[sp.Basic],
                       clock: _Clock) -> Verdict | None:
    """``lhs = rhs`` rewritten to 0 by sympy (``expand_log``, ``simplify``) with each symbol
    replaced by one carrying its domain — and positivity where the hypotheses prove it
    (``log(x*y) = log(x) + log(y)`` needs ``x, y > 0``). Then the usual vacuity and
    definedness checks apply. None when sympy does not reach 0."""
    replacement: dict[sp.Symbol, sp.Symbol] = {}
    positive: list[str] = []
    for sym, dom in problem.doms.items():
        assumptions = dict(_ASSUMPTIONS[dom])
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


def _grid_counterexample(problem: _Problem) -> dict[sp.Symbol, sp.Expr] | None:
    syms = list(problem.doms)
    grids = [_GRID_VALUES[problem.doms[s]] for s in syms]
    for values in itertools.islice(itertools.product(*grids), _GRID_POINTS):
        point = {s: sp.sympify(v) for s, v in zip(syms, values)}
        if _referee(problem.statement, problem.doms, point)[0] == "counterexample":
            return point
    return None


def _pretty(e: sp.Basic) -> str:
    """A condition for people: its arithmetic evaluated (``x - 1*1`` → ``x - 1``), its
    relations and connectives left as they are (sympy must not decide them)."""
    def rebuild(node: sp.Basic) -> sp.Basic:
        if isinstance(node, sp.core.relational.Relational):
            return node.func(rebuild(node.lhs), rebuild(node.rhs), evaluate=False)
        if isinstance(node, sp.logic.boolalg.BooleanFunction):
            return node.func(*(rebuild(a) for a in node.args), evaluate=False)
        if isinstance(node, sp.Expr) and node.args:
            return node.func(*(rebuild(a) for a in node.args))
        return node
    try:
        return str(rebuild(e))
    except Exception:   # a display helper never decides anything: fall back to the raw form
        return str(e)


def _detail(notes: Sequence[str], subs: Sequence[str]) -> str:
    parts = list(subs) + list(notes)
    return f" ({'; '.join(parts)})" if parts else ""


# ---------------------------------------------------------------------------- identities
_GRID_VALUES = {
    "real": (1, 2, 3, -1, sp.Rational(1, 2), 5, 7, -2),
    "positive": (1, 2, 3, sp.Rational(1, 2), 5, 7, sp.Rational(3, 2)),
    "nonnegative": (1, 2, 3, 0, 5, 7, sp.Rational(1, 2)),
    "integer": (1, 2, 3, -1, 5, 7, 0, -2),
    "positive-integer": (1, 2, 3, 5, 7, 4, 11),
    "nonnegative-integer": (1, 2, 3, 0, 5, 7, 4),
}
_GRID_POINTS = 512


def check_identity(lhs: sp.Expr, rhs: sp.Expr, domains: Mapping[Any, str] | None = None, *,
                   hypotheses: Sequence[sp.Basic] = (), timeout: float = DEFAULT_TIMEOUT_S,
                   second_solver: bool = True) -> Verdict:
    """Decide ``lhs == rhs`` for every point of the declared domains satisfying ``hypotheses``.

    1. ``simplify(lhs - rhs) == 0`` is a proof (evidence ``sympy-canonical``); ``!= 0`` only
       means sympy gave up.
    2. Otherwise points of the domains are tried and the difference is evaluated *exactly*
       there (:func:`~attnio.proofs.exact_eval.sign_of`): a nonzero value is a counterexample
       (evidence ``exact-arithmetic``). This comes before the solvers: it is cheap, and it
       keeps false identities away from nonlinear integer search.
    3. Then the kernel decides ``Eq(lhs, rhs)`` (:func:`prove_statement`: SMT, an exactly
       checked counterexample); if it cannot, the answer is Undecided.

    Examples
    --------
    >>> n, d = sp.symbols("n d", positive=True, integer=True)
    >>> check_identity(d**2 * n / d, n * d).evidence.kind
    'sympy-canonical'
    >>> r = check_identity(d**2, d**2 / 2); r.verdict, r.counterexample["d"]
    ('refuted', '1')
    >>> check_identity(sp.cos(sp.pi/7) - sp.cos(2*sp.pi/7) + sp.cos(3*sp.pi/7), sp.Rational(1, 2)).verdict
    'proved'
    """
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    doms = _domains_of(sp.Eq(lhs, rhs, evaluate=False), list(hypotheses), domains)
    difference = sp.simplify(lhs - rhs)
    if difference == 0 and _defined_throughout(sp.Eq(lhs, rhs, evaluate=False), doms,
                                               hypotheses, timeout):
        return Proved(f"simplify(({lhs}) - ({rhs})) == 0",
                      evidence=Evidence("sympy-canonical"))
    # (a difference that simplifies to 0 where the sides are undefined somewhere, such as
    # x/x = 1 at x = 0, goes on to the kernel, which says where it holds)
    syms = list(doms)
    grids = [_GRID_VALUES[doms[s]] for s in syms]
    for values in itertools.islice(itertools.product(*grids), _GRID_POINTS):
        point = {s: sp.sympify(v) for s, v in zip(syms, values)}
        if not all(truth_at(h, point) is True for h in hypotheses):
            continue
        a, b = value_at(lhs, point), value_at(rhs, point)
        if a is None or b is None:
            continue
        if sign_of(a - b) not in (0, None):
            return Refuted({**_show(point), "lhs": str(a), "rhs": str(b)},
                           f"{lhs} != {rhs} at this point (exact evaluation)",
                           evidence=Evidence("exact-arithmetic"))
    verdict = prove_statement(sp.Eq(lhs, rhs, evaluate=False), doms, hypotheses=hypotheses,
                              timeout=timeout, second_solver=second_solver)
    if not isinstance(verdict, Undecided):
        return verdict
    return Undecided(f"simplify left {difference}; the solvers: {verdict.reason}; no point of "
                     f"the grid separates the two sides")


def _defined_throughout(statement: sp.Basic, doms: Mapping[sp.Symbol, str],
                        hypotheses: Sequence[sp.Basic], timeout: float) -> bool:
    """Is ``statement`` defined at every point of the domains satisfying ``hypotheses``
    (proved by the kernel when its definedness condition is not literally true)?"""
    try:
        condition = definedness(statement)
    except TranslationError:          # a function with no definedness rule (gamma, ...)
        return False
    if condition == sp.true:
        return True
    verdict = prove_statement(condition, doms, hypotheses=hypotheses, timeout=timeout,
                              second_solver=False)
    return isinstance(verdict, Proved) and verdict.where_defined is None
