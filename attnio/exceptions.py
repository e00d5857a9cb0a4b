"""The one exceptions module of attnio.

* :class:`AttnioError` — base of everything attnio raises on purpose.
* :class:`InvalidInputError` — bad input at a boundary (a ``ValueError``): the message is
  one line naming the value and the rule, e.g. ``"M=0 must be a positive integer"``.
  The CLI turns it into exit code 2 without a traceback.
* :class:`InfeasibleError` — a well-formed instance that cannot be done, e.g. a cache too
  small for the in-degree of a vertex (``"M=3 is below the 4 red pebbles vertex 'c_00' needs"``).
* :class:`CacheTooSmallError` — both: M is below what every tile set of an algorithm needs
  (``"M=3 is too small for any square tile: needs M >= 4"``). Infeasible for the instance,
  so a sweep may leave that algorithm out at that M by catching :class:`InfeasibleError`;
  a bad value where the user gave it, so the CLI exits 2 as for any
  :class:`InvalidInputError`.
* :class:`CacheOverflowError` — the two-level memory model refused a load or allocation that
  would exceed M words (a finding about an algorithm, not a crash).
* :class:`IllegalMoveError` — a pebbling schedule breaks a rule of the red-blue game.
* :class:`TranslationError` — a sympy construct the SMT bridge cannot express (e.g.
  ``exp(n)``); a checker turns it into ``Undecided``, never a verdict.
* :class:`BudgetExceededError` — a search ran out of its time/state budget where the caller
  asked for an exception rather than an ``Undecided`` verdict; :class:`TimeLimitReached`, a
  ``--time-limit`` deadline passed (turned into "not computed" / *undecided*, never a pass).
* :class:`OutputError` — a file could not be written (disk full): exit 1, the target intact;
  :class:`StdoutError` (an ``OSError``), standard output could not be written.
* :class:`MissingExtraError` — a feature asked for needs an optional extra that is not
  installed (``"--workers needs dask: install attnio[parallel] ..."``). An input error (the
  command line asks for what this install cannot do; exit code 2 before any work) and an
  ``ImportError``.
* :class:`BoundSatisfiable` — a SAT refutation of "a schedule of cost ≤ B exists" found one
  instead (:func:`attnio.graphs.exact_sat.refute`; a ``ValueError``): it carries the model's
  schedule, so there is nothing to refute.

>>> isinstance(InvalidInputError("n=-1 must be a positive integer"), ValueError)
True
>>> issubclass(CacheTooSmallError, InfeasibleError), issubclass(CacheTooSmallError, ValueError)
(True, True)
"""

from __future__ import annotations

__all__ = [
    "AttnioError",
    "InvalidInputError",
    "InfeasibleError",
    "CacheTooSmallError",
    "CacheOverflowError",
    "IllegalMoveError",
    "BudgetExceededError",
    "TimeLimitReached",
    "OutputError",
    "StdoutError",
    "MissingExtraError",
    "TranslationError",
    "HardLimitReached",
    "BoundSatisfiable",
]


class AttnioError(Exception):
    """Base class of the errors attnio raises deliberately."""


class InvalidInputError(AttnioError, ValueError):
    """Bad input at a boundary; the message names the value and the rule it breaks."""


class InfeasibleError(AttnioError):
    """A well-formed instance that admits no solution (e.g. M below max in-degree + 1)."""


class CacheTooSmallError(InfeasibleError, InvalidInputError):
    """M is below every tile set of an algorithm: infeasible, and a bad input at a boundary."""


class CacheOverflowError(AttnioError):
    """Fast memory would hold more than M words; the message names the tile and the sizes."""


class IllegalMoveError(AttnioError):
    """A pebbling move breaks a rule; ``index`` is the 0-based move number, ``rule`` the rule."""

    def __init__(self, message: str, *, index: int | None = None, rule: str | None = None):
        super().__init__(message)
        self.index = index
        self.rule = rule


class BudgetExceededError(AttnioError):
    """A search exhausted its time or memory budget."""


class TimeLimitReached(BudgetExceededError):
    """A search or sweep passed its deadline (``--time-limit``). The lower-bound routes turn it
    into "not computed: time limit" and their checkers into *undecided*; a sweep that catches
    it sets ``rows`` (the rows finished before it), ``done`` (sizes finished) and ``total``. A
    search stopped half-way has no answer and is never reported as one."""

    def __init__(self, message: str = "time limit reached") -> None:
        super().__init__(message)
        self.rows: list = []
        self.done = 0
        self.total = 0


class OutputError(AttnioError):
    """A file could not be written although the input was fine (disk full, I/O error, …):
    exit code 1 at the CLI ("output could not be written"), the target left as it was."""


class StdoutError(OSError):
    """Writing standard output failed (the command's answer is incomplete; exit code 1)."""


class MissingExtraError(InvalidInputError, ImportError):
    """A feature needs an optional extra (``attnio[parallel]``, ``attnio[plots]``, …) that is
    not installed; the message names the feature and the extra (:mod:`attnio.extras`)."""


class TranslationError(AttnioError, TypeError):
    """A sympy construct the sympy → SMT bridge does not handle (named in the message)."""


class HardLimitReached(Exception):
    """An isolated call (:mod:`attnio.smt.isolation`) did not answer within its hard time
    limit, or its process ended without an answer; the process was killed. Callers turn it
    into an *undecided* verdict. Deliberately no :class:`AttnioError`: it is never an input
    error, and a handler of those must not swallow it."""


class BoundSatisfiable(AttnioError, ValueError):
    """:func:`attnio.graphs.exact_sat.refute` found "cost <= bound" satisfiable: ``schedule``
    is the model's schedule (decoded, not yet replayed by anyone), so nothing can be
    refuted."""

    def __init__(self, bound: int, M: int, schedule: list) -> None:
        super().__init__(f"cost <= {bound} is satisfiable at M={M}: nothing to refute")
        self.bound, self.schedule = bound, schedule
