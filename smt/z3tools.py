"""z3 helpers with the Undecided discipline: ``unknown`` or a timeout is never a proof.

:func:`prove` checks that ``claim`` holds for every assignment satisfying ``hypotheses`` by
asking z3 for a model of ``hypotheses ∧ ¬claim``:

* ``unsat``   → :class:`~attnio.results.Proved`
* ``sat``     → :class:`~attnio.results.Refuted` with the model as a dict of exact values
* ``unknown`` → :class:`~attnio.results.Undecided` with z3's reason (e.g. ``timeout``)

A proof whose hypotheses — or, with them, the antecedent of an ``Implies`` in a positive
position of the claim — are unsatisfiable is Undecided "vacuous" (the kernel's rule 6).

It is for lemmas stated directly over z3 terms (no sympy statement behind them). Statements
written in sympy go through :func:`attnio.smt.kernel.prove_statement` instead, which also
re-evaluates counterexamples exactly in the sympy statement. Here the same discipline is kept
as far as z3 terms allow: a model is re-evaluated by z3 on the original formulas (every
hypothesis true, the claim false) and the answer is re-checked by cvc5 on the same SMT-LIB
problem (the model's rational values pinned); a disagreement is Undecided. The verdict carries
:class:`~attnio.results.Evidence` ``smt-forall`` with both solvers' answers.

>>> import z3
>>> x, y = z3.Reals("x y")
>>> prove(x * x >= 0).verdict
'proved'
>>> r = prove(x <= y, [x > 0])
>>> r.verdict, sorted(r.counterexample)
('refuted', ['x', 'y'])
"""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Iterable

import z3

from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt import second_solver
from attnio.smt.isolation import HardLimitReached, Worker
from attnio.smt.solvers import SECOND_SOLVER_TIMEOUT_S, cvc5_check

__all__ = ["prove", "antecedent_contexts", "check_sat", "check_sat_isolated", "constants",
           "model_to_dict", "WATCHDOG_GRACE_S",
           "HARD_DEADLINE_GRACE_S"]


#: A wall-clock guard interrupts z3 this long after ``timeout_ms`` if z3's own timeout has not
#: fired (some nonlinear tactics check it rarely); the answer is then ``unknown``.
WATCHDOG_GRACE_S = 2.0


def prove(claim: z3.BoolRef, hypotheses: Iterable[z3.BoolRef] = (), *,
          timeout_ms: int = 20_000, solver: z3.Solver | None = None,
          second_solver: bool = True) -> Verdict:
    """Prove ``hypotheses ⇒ claim`` for all values, or return a counterexample / Undecided.

    ``timeout_ms`` is z3's timeout; a watchdog thread also interrupts the solver
    :data:`WATCHDOG_GRACE_S` seconds later, so a check never hangs the run. With
    ``second_solver`` the answer is re-checked by cvc5 (see the module docstring).
    """
    hypotheses = list(hypotheses)
    verdict = _z3_prove(claim, hypotheses, timeout_ms=timeout_ms, solver=solver)
    if second_solver and not isinstance(verdict, Undecided):
        verdict = _second_opinion(verdict, claim, hypotheses, timeout_ms)
    if isinstance(verdict, Proved):
        vacuity = _vacuity(claim, hypotheses, timeout_ms)
        if vacuity is not None:
            return Undecided(vacuity, evidence=verdict.evidence)
    return verdict


def antecedent_contexts(claim: z3.BoolRef, context: tuple[z3.BoolRef, ...] = ()
                        ) -> list[tuple[z3.BoolRef, ...]]:
    """The antecedents of the ``Implies`` in positive positions of ``claim`` (the claim
    itself, arguments of ``And``/``Or``, consequents), each with the antecedents enclosing it
    — the z3 counterpart of :func:`attnio.smt.definedness.antecedent_contexts`.

    >>> x = z3.Real("x")
    >>> antecedent_contexts(z3.Implies(x > 1, z3.And(x > 0, z3.Implies(x < 0, x == 5))))
    [(x > 1,), (x > 1, x < 0)]
    """
    if z3.is_implies(claim):
        a, b = claim.children()
        inner = (*context, a)
        return [inner, *antecedent_contexts(b, inner)]
    if z3.is_and(claim) or z3.is_or(claim):
        return [c for arg in claim.children() for c in antecedent_contexts(arg, context)]
    return []


def _vacuity(claim: z3.BoolRef, hypotheses: list[z3.BoolRef], timeout_ms: int) -> str | None:
    """Why a proof of ``hypotheses ⇒ claim`` shows nothing (the hypotheses, or an antecedent
    with them, are unsatisfiable), or None."""
    checks = [tuple(hypotheses)] if hypotheses else []
    checks += [(*hypotheses, *ctx) for ctx in antecedent_contexts(claim)]
    for formulas in checks:
        status, _, _ = check_sat(list(formulas), timeout_ms / 1000)
        shown = " ∧ ".join(str(f) for f in formulas)
        if status == "unsat":
            return f"vacuous: {shown} is unsatisfiable, so the proof shows nothing"
        if status != "sat":
            return f"proved, but z3 could not show {shown} satisfiable: possibly vacuous"
    return None


def _second_opinion(verdict: Verdict, claim: z3.BoolRef, hypotheses: list[z3.BoolRef],
                    timeout_ms: int) -> Verdict:
    s = z3.Solver()
    s.add(*hypotheses, z3.Not(claim))
    if isinstance(verdict, Refuted):
        for name, value in verdict.counterexample.items():
            if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
                s.add(_pin(name, value, claim, hypotheses))
    answer = cvc5_check(s.to_smt2(), min(timeout_ms / 1000, SECOND_SOLVER_TIMEOUT_S))
    z3_says = verdict.verdict
    cvc5_says = {"unsat": "proved", "sat": "refuted", "unknown": "undecided",
                 "n/a": "n/a"}[answer]
    solvers = {"z3": z3_says, "cvc5": cvc5_says}
    if cvc5_says in ("proved", "refuted") and cvc5_says != z3_says:
        return Undecided(f"the solvers disagree: z3 {z3_says}, cvc5 {cvc5_says}",
                         evidence=Evidence("smt-forall", solvers=solvers))
    from dataclasses import replace
    return replace(verdict, evidence=Evidence("smt-forall", solvers=solvers))


def _pin(name: str, value: int | Fraction, claim: z3.BoolRef,
         hypotheses: list[z3.BoolRef]) -> z3.BoolRef:
    """``x == value`` for the constant named ``name`` in the formulas (True if absent)."""
    for const in constants([claim, *hypotheses]):
        if const.decl().name() == name:
            return const == (z3.RealVal(str(value)) if z3.is_real(const) else
                             z3.IntVal(int(value)))
    return z3.BoolVal(True)


def constants(formulas: list[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants (z3's free variables) of ``formulas``, each once, by name."""
    seen: dict[str, z3.ExprRef] = {}
    stack = list(formulas)
    while stack:
        e = stack.pop()
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen.setdefault(e.decl().name(), e)
        stack.extend(e.children())
    return list(seen.values())


def check_sat(assertions: Iterable[z3.BoolRef], timeout_s: float, *,
              solver: z3.Solver | None = None) -> tuple[str, z3.ModelRef | None, str]:
    """``("sat", model, "")``, ``("unsat", None, "")`` or ``("unknown", None, reason)`` for the
    conjunction of ``assertions``, under z3's timeout and a watchdog that interrupts the
    solver :data:`WATCHDOG_GRACE_S` seconds later: it never hangs. The one place attnio asks
    z3 (the proof kernel uses it too).

    >>> x = z3.Real("x")
    >>> check_sat([x * x < 0], 5.0)[0], check_sat([x > 1], 5.0)[0]
    ('unsat', 'sat')
    """
    s = solver if solver is not None else z3.Solver()
    s.set("timeout", max(1, int(timeout_s * 1000)))
    s.add(*assertions)
    # The watchdog interrupts only while this check runs: a timer that fires as the check
    # returns must not interrupt the context's next call (on a busy machine the timer thread
    # can run its interrupt long after it fired: a later `push` then failed "canceled").
    # The timer holds the context only, never the solver: a z3 object whose last reference
    # drops in the timer thread is freed there, beside the main thread's z3 calls (z3 is not
    # thread-safe: `attnio verify` crashed in Z3_solver_assert when the closure held `s`).
    guard = threading.Lock()
    checking = [True]
    context = s.ctx

    def interrupt_if_still_checking() -> None:
        with guard:
            if checking[0]:
                context.interrupt()

    watchdog = threading.Timer(timeout_s + WATCHDOG_GRACE_S, interrupt_if_still_checking)
    watchdog.daemon = True
    watchdog.start()
    try:
        answer = s.check()
    finally:
        with guard:
            checking[0] = False
        watchdog.cancel()
    if answer == z3.sat:
        return "sat", s.model(), ""
    if answer == z3.unsat:
        return "unsat", None, ""
    return "unknown", None, s.reason_unknown()


#: An isolated check (:func:`check_sat_isolated`) is killed this long after its time limit.
HARD_DEADLINE_GRACE_S = 3.0

#: The server process of :func:`check_sat_isolated` (started at the first call, killed past
#: a hard deadline).
_Z3_SERVER = Worker(second_solver.__file__, "z3_answer")

def check_sat_isolated(assertions: Iterable[z3.BoolRef], timeout_s: float
                       ) -> tuple[str, z3.ModelRef | None, str]:
    """:func:`check_sat` in a child process with a hard deadline.

    z3's nonlinear *integer* search may ignore both its timeout and an interrupt (a CI run
    once hung there); a child process can always be killed. The problem goes to the child as
    SMT-LIB; ``timeout_s`` + :data:`HARD_DEADLINE_GRACE_S` after the start the child is killed
    and the answer is ``unknown``. A ``sat`` answer's model comes back as pinned values and is
    rebuilt here by z3 on the original assertions with every constant fixed (an evaluation,
    not a search), so callers get a real :class:`z3.ModelRef`.

    >>> x, y = z3.Ints("x y")
    >>> check_sat_isolated([x * y == 6, x > 2, y > 1], 5.0)[0]
    'sat'
    >>> check_sat_isolated([x * x == 2], 5.0)[0]
    'unsat'
    """
    assertions = list(assertions)
    solver = z3.Solver()
    solver.add(*assertions)
    try:
        head, lines = _Z3_SERVER.call((solver.to_smt2(), max(1, int(timeout_s * 1000))),
                                      seconds=timeout_s + HARD_DEADLINE_GRACE_S)
    except HardLimitReached as exc:
        return "unknown", None, f"hard deadline: {exc}"
    except Exception as exc:  # a problem the server's z3 could not read
        return "unknown", None, f"isolated z3 failed ({type(exc).__name__}: {exc})"
    if head == "unsat":
        return "unsat", None, ""
    if head == "unknown":
        return "unknown", None, lines[0] if lines else "unknown"
    pinned = z3.Solver()
    pinned.add(*assertions)
    pinned.from_string(solver.to_smt2().split("(check-sat)")[0] + "\n".join(lines))
    status, model, reason = check_sat(pinned.assertions(), timeout_s)
    if status != "sat":
        return "unknown", None, (f"the isolated model did not re-check here ({status}"
                                 f"{': ' + reason if reason else ''})")
    return status, model, ""


def _z3_prove(claim: z3.BoolRef, hypotheses: list[z3.BoolRef], *, timeout_ms: int,
              solver: z3.Solver | None) -> Verdict:
    status, model, reason = check_sat([*hypotheses, z3.Not(claim)], timeout_ms / 1000,
                                      solver=solver)
    if status == "unsat":
        return Proved("z3: hypotheses ∧ ¬claim is unsat")
    if status == "sat":
        assert model is not None
        holds = [model.eval(h, model_completion=True) for h in hypotheses]
        goal = model.eval(claim, model_completion=True)
        if not all(z3.is_true(h) for h in holds) or not z3.is_false(goal):
            return Undecided("z3's model does not re-evaluate to a counterexample "
                             "(a hypothesis false or the claim not false there)")
        return Refuted(model_to_dict(model), "z3 found a counterexample; re-evaluated on the "
                       "formulas")
    return Undecided(f"z3 returned unknown ({reason}, timeout {timeout_ms} ms)")


def model_to_dict(model: z3.ModelRef) -> dict[str, object]:
    """A z3 model as ``{name: int | Fraction | str}`` (algebraic numbers as decimal strings)."""
    out: dict[str, object] = {}
    for decl in sorted(model.decls(), key=lambda d: d.name()):
        if decl.arity() > 0:  # function interpretations (e.g. z3's division by zero "/0")
            continue
        val = model[decl]
        if z3.is_int_value(val):
            out[decl.name()] = val.as_long()
        elif z3.is_rational_value(val):
            out[decl.name()] = Fraction(val.numerator_as_long(), val.denominator_as_long())
        elif z3.is_true(val) or z3.is_false(val):
            out[decl.name()] = z3.is_true(val)
        elif z3.is_algebraic_value(val):
            out[decl.name()] = val.as_decimal(12)
        else:
            out[decl.name()] = str(val)
    return out
