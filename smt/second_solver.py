"""Solver answers to SMT-LIB problems, for the server processes that run them.

* :func:`cvc5_answer` — cvc5's answer: the second opinion on every z3 verdict;
* :func:`z3_answer` — z3's answer with the model as pinning assertions: the exact integer
  encoding, where z3's nonlinear integer search may ignore its own timeout.

This module imports nothing but the solvers, so that the server processes that run it
(:class:`attnio.smt.isolation.Worker`, started by :func:`attnio.smt.kernel.cvc5_check`
and :func:`attnio.smt.z3tools.check_sat_isolated`) start in a fraction of a second and can
be killed at a hard deadline. Call those two functions; these alone have only the solvers'
own (soft) limits.

>>> cvc5_answer("(declare-fun x () Real)(assert (< (* x x) 0))(check-sat)", 5.0)
'unsat'
>>> cvc5_answer("(declare-fun x () Real)(assert (> x 0))", 5.0)     # no (check-sat)
'n/a'
"""

from __future__ import annotations

import math
import re

__all__ = ["cvc5_answer", "z3_answer", "logic_of", "milliseconds"]

_INT_SORT = re.compile(r"\bInt\b")
_FUNCTION = re.compile(r"\(declare-fun \S+ \(\s*[^)\s]")


def logic_of(smt2: str) -> str:
    """``QF_NIRA`` when the problem declares an integer, else ``QF_NRA``; with ``UF`` when it
    declares a function (the exp/log fragment's uninterpreted ``exp_uf!`` and ``log_uf!``: names no declared symbol can take).

    The logic matters both ways: with ``ALL`` cvc5 does not use its complete NRA procedure
    (cylindrical algebraic coverings) and times out on x² ≥ 2x − 1; with ``QF_NRA`` it
    rejects every integer problem, and every problem with a function (the check would
    silently be "n/a").

    >>> logic_of("(declare-fun k () Int)"), logic_of("(declare-fun Interval () Real)")
    ('QF_NIRA', 'QF_NRA')
    >>> logic_of("(declare-fun x () Real)(declare-fun exp_uf! (Real) Real)")
    'QF_UFNRA'
    """
    uf = "UF" if _FUNCTION.search(smt2) else ""
    return f"QF_{uf}NIRA" if _INT_SORT.search(smt2) else f"QF_{uf}NRA"


def milliseconds(timeout_s: float) -> int:
    """A time limit in whole milliseconds, at least 1 (cvc5 reads 0 as "no limit").

    >>> milliseconds(2.5), milliseconds(0.0001), milliseconds(0.0)
    (2500, 1, 1)
    """
    return max(1, math.ceil(timeout_s * 1000))


def cvc5_answer(smt2: str, timeout_s: float) -> str:
    """``"sat"``, ``"unsat"``, ``"unknown"`` or ``"n/a"`` (cvc5 missing, a parse error, an
    operator cvc5 cannot take, or no ``(check-sat)``)."""
    try:
        import cvc5
    except ImportError:
        return "n/a"
    try:
        tm = cvc5.TermManager()
        solver = cvc5.Solver(tm)
        solver.setOption("tlimit-per", str(milliseconds(timeout_s)))
        solver.setOption("produce-models", "false")
        solver.setLogic(logic_of(smt2))
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


def z3_answer(smt2: str, timeout_ms: int) -> tuple[str, list[str]]:
    """``("sat", pins)``, ``("unsat", [])`` or ``("unknown", [reason])``; for a model the
    pins are ``(assert (= NAME VALUE))`` lines of its constants.

    >>> z3_answer("(declare-fun k () Int)(assert (= (* k k) 9))(assert (> k 0))", 5000)
    ('sat', ['(assert (= k 3))'])
    >>> z3_answer("(declare-fun k () Int)(assert (= (* k k) 2))", 5000)
    ('unsat', [])
    """
    import z3

    s = z3.Solver()
    s.set("timeout", max(1, int(timeout_ms)))    # z3 reads 0 as "no limit" too
    s.from_string(smt2)
    r = s.check()
    if r == z3.sat:
        m = s.model()
        return "sat", [f"(assert (= {d().sexpr()} {m[d].sexpr()}))" for d in m.decls()
                       if d.arity() == 0]
    if r == z3.unsat:
        return "unsat", []
    return "unknown", [s.reason_unknown()]
