r"""The SMT solvers the kernel asks: cvc5 in a server process, SMT-LIB text, versions.

* :func:`cvc5_check` — cvc5's answer for an SMT-LIB problem, in a child process killed at a
  hard deadline (cvc5's own limit is not checked often inside its nonlinear procedures);
  ``"unknown"`` past it, ``"n/a"`` when cvc5 is missing. The second opinion on every z3
  verdict (:mod:`attnio.smt.kernel`, :mod:`attnio.smt.z3tools`): a disagreement is
  Undecided, never a pass.
* :func:`to_smt2` — a list of z3 assertions as SMT-LIB text.
* :func:`solver_versions` — the versions recorded with every run.
"""

from __future__ import annotations

from typing import Sequence

import z3

from attnio.smt import second_solver
from attnio.smt.isolation import HardLimitReached, Worker

__all__ = ["SECOND_SOLVER_TIMEOUT_S", "cvc5_check", "to_smt2", "solver_versions"]

#: cvc5's limit per re-check (its ``unknown`` is recorded, never counted as agreement).
SECOND_SOLVER_TIMEOUT_S = 4.0


def to_smt2(assertions: Sequence[z3.BoolRef]) -> str:
    """The conjunction of ``assertions`` as an SMT-LIB problem (z3's printer)."""
    solver = z3.Solver()
    solver.add(*assertions)
    return solver.to_smt2()


def cvc5_check(smt2: str, timeout_s: float) -> str:
    """Satisfiability of an SMT-LIB problem according to cvc5: ``"sat"``, ``"unsat"``,
    ``"unknown"``, or ``"n/a"`` (cvc5 missing, or the problem uses what cvc5 cannot take).

    cvc5's own limit (``tlimit-per``) is not checked often inside its nonlinear procedures (a
    check was seen running for minutes past it), so the check runs in a child process killed
    :data:`~attnio.smt.isolation.KILL_GRACE_S` after ``timeout_s``: then ``"unknown"``.
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
