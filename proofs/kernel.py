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
4. **Refuted means a checked counterexample.** The solver's model is mapped back to the
   original symbols and evaluated in the original sympy statement *exactly*
   (:mod:`attnio.proofs.exact_eval`): it must lie in every declared domain, satisfy every
   hypothesis and make the goal false. Otherwise the answer is Undecided, with the reason.
5. **No vacuous proofs.** A proof whose hypotheses (with the domains) are unsatisfiable is
   Undecided.
6. **A second solver.** Every z3 Proved / Refuted is re-checked by cvc5 on the same SMT-LIB
   problem (:func:`cvc5_check`). A disagreement is Undecided and names both answers; cvc5's
   ``unknown`` is recorded, not counted as agreement; a problem cvc5 cannot take is ``n/a``.
7. **Statements without symbols are arithmetic.** They are decided by exact evaluation
   (evidence ``exact-arithmetic``), e.g. :math:`\cos\frac{\pi}{7} - \cos\frac{2\pi}{7} +
   \cos\frac{3\pi}{7} = \frac12`.

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
from attnio.proofs.exact_eval import in_domain, sign_of, truth_at, value_at
from attnio.proofs.sympy_to_z3 import Translator
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
_FUNCTIONS = {
    name: getattr(sp, name) for name in (
        "And", "Or", "Not", "Implies", "Equivalent", "Xor", "Min", "Max", "sqrt", "root",
        "Rational", "Integer", "Abs", "Piecewise", "floor", "ceiling", "pi", "E", "cos", "sin",
        "tan", "exp", "log", "true", "false",
    )
}
# Relations stay unevaluated, so that sympy never decides a statement before the kernel does.
_FUNCTIONS.update({
    name: (lambda rel: lambda a, b, **_: rel(a, b, evaluate=False))(getattr(sp, name))
    for name in ("Eq", "Ne", "Le", "Lt", "Ge", "Gt")
})


def parse_statement(text: str, domains: Mapping[str, str]) -> tuple[sp.Basic, dict[sp.Symbol, str]]:
    """Parse a statement in sympy syntax with every symbol declared in ``domains``.

    Returns the unevaluated statement and ``{symbol: domain}``. Relations stay unevaluated,
    so the solvers — not sympy's sign rules — decide them.

    Raises
    ------
    InvalidInputError
        Characters outside arithmetic and logic, a name that is not a symbol, an undeclared
        symbol, a bad domain, or a statement that is not a relation or a boolean combination.

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
    """
    from sympy.parsing.sympy_parser import parse_expr, standard_transformations

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
    declared: dict[sp.Symbol, str] = {}
    local: dict[str, Any] = {}
    for name, dom in domains.items():
        if not _NAME.match(name):
            raise InvalidInputError(f"variable name {name!r} must be letters, digits and _")
        sym = symbol_for(name, dom)
        declared[sym] = dom
        local[name] = sym
    known_names = set(_FUNCTIONS) | set(local)
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        if word not in known_names:
            raise InvalidInputError(
                f"symbol {word!r} is not declared: add --var {word}:DOMAIN (one of "
                f"{', '.join(DOMAINS)})")
    # The user's words are restricted above to declared symbols and _FUNCTIONS; the wider
    # sympy namespace is only for the code parse_expr generates (Add, Mul, Pow, Integer, ...).
    global_dict: dict[str, Any] = {name: getattr(sp, name) for name in sp.__all__}
    global_dict.update(_FUNCTIONS, __builtins__={})
    try:
        statement = parse_expr(text, local_dict=local, global_dict=global_dict,
                               transformations=standard_transformations, evaluate=False)
    except (SyntaxError, TypeError, ValueError, AttributeError, RecursionError, NameError,
            sp.SympifyError, TokenError) as exc:
        raise InvalidInputError(f"STATEMENT is not valid sympy syntax: "
                                f"{type(exc).__name__}: {_short(str(exc))}") from None
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

    >>> cvc5_check("(declare-fun x () Real)(assert (< (* x x) 0))(check-sat)", 5.0)
    'unsat'
    """
    try:
        import cvc5
    except ImportError:
        return "n/a"
    try:
        tm = cvc5.TermManager()
        solver = cvc5.Solver(tm)
        solver.setOption("tlimit-per", str(max(1, int(timeout_s * 1000))))
        solver.setOption("produce-models", "false")
        # The logic matters: with "ALL" cvc5 does not use its complete NRA procedure
        # (cylindrical algebraic coverings) and times out on x² ≥ 2x − 1.
        has_int = "Int" in smt2
        solver.setLogic("QF_NIRA" if has_int else "QF_NRA")
        symbols = cvc5.SymbolManager(tm)
        parser = cvc5.InputParser(solver, symbols)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, smt2, "attnio")
        result = None
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            if str(command).startswith("(check-sat"):
                result = solver.checkSat()
            else:
                command.invoke(solver, symbols)
    except Exception:  # a parse error or an unsupported operator: cvc5 cannot express it
        return "n/a"
    if result is None:
        return "n/a"
    if result.isSat():
        return "sat"
    if result.isUnsat():
        return "unsat"
    return "unknown"


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


def _referee(goal: sp.Basic, hypotheses: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
             point: Mapping[sp.Symbol, sp.Expr]) -> tuple[bool, str]:
    """Exact re-check of a counterexample: ``(True, "")`` when it lies in every domain, meets
    every hypothesis and falsifies the goal; else ``(False, why not)``."""
    for sym, dom in doms.items():
        inside = in_domain(point[sym], dom)
        if inside is not True:
            return False, f"{sym} = {point[sym]} is {'not ' if inside is False else 'not shown '}" \
                          f"in its declared domain {dom}"
    for h in hypotheses:
        holds = truth_at(h, point)
        if holds is not True:
            return False, f"hypothesis {h} is {'false' if holds is False else 'undetermined'} there"
    value = truth_at(goal, point)
    if value is False:
        return True, ""
    if value is True:
        return False, "the statement is TRUE there when evaluated exactly (solver and exact " \
                      "arithmetic disagree)"
    return False, "the statement is undefined or undetermined there in exact arithmetic"


def _solve(goal: sp.Basic, hypotheses: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
           integers: str, timeout_s: float) -> tuple[_Answer, Translator]:
    t = Translator(doms, integers=integers)  # type: ignore[arg-type]
    z3_hyps = [t.rel(h) for h in hypotheses]
    z3_goal = t.rel(goal)
    assertions = [*t.side_conditions, *z3_hyps, z3.Not(z3_goal)]
    # the exact integer encoding runs in a child process with a hard deadline: z3's
    # nonlinear integer search is the one place it may ignore its timeout and interrupts
    status, model, reason = _z3_check(assertions, timeout_s, isolated=integers == "exact")
    point = t.point(model) if model is not None else None
    return _Answer(status, point, tuple(assertions), _pins(model), reason), t


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


def _satisfiable_domain(hypotheses: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
                        timeout_s: float) -> str:
    """Is some point of the declared domains a model of the hypotheses? ``"sat"``, ``"unsat"``
    or ``"unknown"``. Integer domains are searched as integers (z3 ``Int``, then the integer
    points next to a relaxed model, each checked exactly)."""
    if not hypotheses:
        return "sat"
    has_integers = any("integer" in dom for dom in doms.values())
    t = Translator(doms, integers="exact" if has_integers else "relaxed")
    status, _, _ = _z3_check([*t.side_conditions, *(t.rel(h) for h in hypotheses)], timeout_s)
    if status != "unknown" or not has_integers:
        return status
    t = Translator(doms, integers="relaxed")
    status, model, _ = _z3_check([*t.side_conditions, *(t.rel(h) for h in hypotheses)], timeout_s)
    if status == "unsat":
        return "unsat"
    if model is not None:
        point = t.point(model)
        for candidate in _near_integer_points(point, doms):
            if all(in_domain(candidate[s], dom) for s, dom in doms.items()) and \
                    all(truth_at(h, candidate) is True for h in hypotheses):
                return "sat"
    return "unknown"


def _near_integer_points(point: Mapping[sp.Symbol, sp.Expr], doms: Mapping[sp.Symbol, str]
                         ) -> Iterable[dict[sp.Symbol, sp.Expr]]:
    """Integer points around a relaxed model (floor/ceil ± 1 of each integer coordinate)."""
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
                    second_solver: bool = True) -> Verdict:
    r"""Decide ``hypotheses ⇒ statement`` for every value of the symbols in their domains.

    Parameters
    ----------
    statement : sympy Boolean or str
        A relation or boolean combination (``And``, ``Or``, ``Implies``, ``Min``, ``Max``,
        ``sqrt``, ``Eq``, ``Rational``, ...). A string is parsed by :func:`parse_statement`.
    domains : mapping of symbol (or name) to domain, optional
        Declarations; symbols not listed use their sympy assumptions. Required for every
        symbol of a string statement.
    hypotheses : sequence of sympy relations
        The admissible range.
    timeout : float
        Seconds per solver call; a timeout is Undecided.
    second_solver : bool
        Re-check z3's answer with cvc5 (default).

    Returns
    -------
    Proved | Refuted | Undecided
        ``Refuted.counterexample`` maps each symbol name to its exact value as a string; it
        has been re-evaluated exactly in the statement. ``evidence`` says what the verdict
        rests on and what each solver answered.

    Raises
    ------
    InvalidInputError
        An undeclared symbol, an unknown domain, or a malformed statement.
    """
    started = time.perf_counter()
    if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
        raise InvalidInputError(f"timeout={timeout!r} must be a positive finite number of seconds")
    if isinstance(statement, str):
        statement, parsed = parse_statement(statement, {str(k): v for k, v in (domains or {}).items()})
        domains = {**{str(k): v for k, v in parsed.items()}}
    hypotheses = list(hypotheses)
    if statement in (sp.true, sp.false) or statement is True or statement is False:
        return Undecided(f"sympy folded the statement to {statement} before any solver saw it; "
                         "build relations unevaluated (evaluate=False)")
    doms = _domains_of(statement, hypotheses, domains)
    if not doms:
        return _constant(statement, hypotheses)
    try:
        verdict = _decide(statement, hypotheses, doms, float(timeout), second_solver)
    except TranslationError as exc:
        verdict = Undecided(f"not expressible in SMT arithmetic: {exc}")
    return verdict


def _constant(statement: sp.Basic, hypotheses: Sequence[sp.Basic]) -> Verdict:
    """A statement without symbols: decided by exact evaluation alone."""
    evidence = Evidence("exact-arithmetic")
    for h in hypotheses:
        if truth_at(h, {}) is not True:
            return Undecided(f"hypothesis {h} is not true in exact arithmetic", evidence=evidence)
    value = truth_at(statement, {})
    if value is True:
        return Proved("exact arithmetic: true (zero tests by minimal polynomials)",
                      evidence=evidence)
    if value is False:
        return Refuted({}, "exact arithmetic: false", evidence=evidence)
    return Undecided("exact arithmetic could not decide the statement (a sign it cannot "
                     "certify, or an undefined value)", evidence=evidence)


def _decide(goal: sp.Basic, hypotheses: Sequence[sp.Basic], doms: Mapping[sp.Symbol, str],
            timeout_s: float, second_solver: bool) -> Verdict:
    has_integers = any("integer" in dom for dom in doms.values())
    notes: list[str] = []
    relaxed, t = _solve(goal, hypotheses, doms, "relaxed", timeout_s)
    subs = list(t.substitutions)
    if has_integers:
        notes.append("integers relaxed to reals with their bounds")
    deciding: _Answer | None = None
    if relaxed.status == "unsat":
        deciding = relaxed
    elif relaxed.status == "sat":
        assert relaxed.point is not None
        ok, why = _referee(goal, hypotheses, doms, relaxed.point)
        if ok:
            deciding = relaxed
        elif not has_integers or "TRUE there" in why:
            return Undecided(f"z3's counterexample {_show(relaxed.point)} was rejected: {why}",
                             evidence=Evidence("smt-forall", solvers={"z3": "refuted"}))
        else:
            notes.append(f"relaxed counterexample {_show(relaxed.point)} rejected ({why})")
    else:
        notes.append(f"relaxed encoding: z3 unknown ({relaxed.reason}, timeout {_ms(timeout_s)} ms)")

    if deciding is None and has_integers and relaxed.point is not None:
        # Integer points next to the relaxed model, checked exactly, before any integer search
        # (z3's nonlinear integer arithmetic is the one place it may ignore its time limit).
        for point in _near_integer_points(relaxed.point, doms):
            ok, _ = _referee(goal, hypotheses, doms, point)
            if ok:
                return Refuted(_show(point), "counterexample found among the integer points "
                               "next to z3's relaxed model; checked by exact evaluation"
                               + _detail(notes, subs), evidence=Evidence("exact-arithmetic"))
    if deciding is None and has_integers:
        exact, t = _solve(goal, hypotheses, doms, "exact",
                          min(timeout_s, EXACT_INTEGER_TIMEOUT_S))
        notes.append("integers as z3 Int")
        subs = list(t.substitutions)
        if exact.status == "unsat":
            deciding = exact
        elif exact.status == "sat":
            assert exact.point is not None
            ok, why = _referee(goal, hypotheses, doms, exact.point)
            if not ok:
                return Undecided(f"z3's integer counterexample {_show(exact.point)} was "
                                 f"rejected: {why}",
                                 evidence=Evidence("smt-forall", solvers={"z3": "refuted"}))
            deciding = exact
        else:
            notes.append(f"exact encoding: z3 unknown ({exact.reason}, timeout {_ms(timeout_s)} ms)")
            if relaxed.point is not None:
                for point in _near_integer_points(relaxed.point, doms):
                    ok, _ = _referee(goal, hypotheses, doms, point)
                    if ok:
                        return Refuted(_show(point), "counterexample found among the integer "
                                       "points next to z3's relaxed model; checked by exact evaluation"
                                       + _detail(notes, subs),
                                       evidence=Evidence("exact-arithmetic"))
    if deciding is None:
        return Undecided("z3 could not decide the statement" + _detail(notes, subs),
                         evidence=Evidence("smt-forall", solvers={"z3": "undecided"}))

    z3_says = "proved" if deciding.status == "unsat" else "refuted"
    solvers = {"z3": z3_says}
    if second_solver:
        cvc5_says = {"unsat": "proved", "sat": "refuted", "unknown": "undecided",
                     "n/a": "n/a"}[cvc5_check(
            deciding.smt2(), min(timeout_s, SECOND_SOLVER_TIMEOUT_S))]
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
    sat = _satisfiable_domain(hypotheses, doms, timeout_s)
    if sat == "unsat":
        return Undecided("vacuous: the hypotheses are contradictory in the declared domains, "
                         "so the proof shows nothing", evidence=evidence)
    if sat != "sat":
        return Undecided("proved, but z3 could not show the hypotheses satisfiable: "
                         "possibly vacuous", evidence=evidence)
    return Proved("hypotheses ∧ ¬statement is unsat; hypotheses satisfiable"
                  + _detail(notes, subs), evidence=evidence)


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
    if difference == 0:
        return Proved(f"simplify(({lhs}) - ({rhs})) == 0",
                      evidence=Evidence("sympy-canonical"))
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


def _ms(seconds: float) -> int:
    return max(1, int(round(seconds * 1000)))
