"""One verdict type for every checker in attnio.

Every checker — a z3 lemma, a crossover derivation, a partition bound, a schedule
validator, a dominance decision — returns exactly one of:

* :class:`Proved`    — the claim holds; ``detail`` says how (e.g. "z3: negation unsat").
* :class:`Refuted`   — the claim is false; ``counterexample`` is data (a dict of values,
  an instance, an illegal move), never only printed text.
* :class:`Undecided` — nobody knows: z3 answered ``unknown``, a timeout or a search budget
  ran out, sympy returned a ``None`` truth value. **Undecided is never a pass.**

Only ``Proved`` counts as success (``verdict.proved is True``); a runner that treats anything
else as a pass is a bug.

Examples
--------
>>> v = Proved("negation is unsat")
>>> v.proved, v.verdict
(True, 'proved')
>>> r = Refuted({"M": 3, "d": 2}, "branch 1 > branch 2 at this point")
>>> r.proved, r.counterexample["M"]
(False, 3)
>>> Undecided("z3 returned unknown (timeout 10 ms)").verdict
'undecided'
>>> all_proved([Proved(), Undecided("budget")])
False

One status vocabulary
---------------------
:class:`Status` is the one spelling of an answer across attnio: ``proved`` / ``refuted`` /
``undecided`` for claims (the verdicts above, sandwich rows, dominance decisions) and
``optimal`` / ``infeasible`` / ``undecided`` for searches (exact pebbling, the time-indexed
model, exact partitions). It is a ``str`` enum, so ``json.dumps`` writes its value and
``Status.UNDECIDED == "undecided"``. A search that ends undecided carries its proven bracket
(``lower_bound`` / ``upper_bound``, or ``lower`` / ``upper``) as fields, never as a status word.

>>> Status.UNDECIDED.value, Proved().status is Status.PROVED
('undecided', True)
>>> import json; json.dumps({"status": Status.OPTIMAL})
'{"status": "optimal"}'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Iterable, Union

__all__ = ["Status", "CLAIM_STATUSES", "SEARCH_STATUSES",
           "Proved", "Refuted", "Undecided", "Verdict", "Evidence", "EVIDENCE_KINDS",
           "all_proved", "with_seconds", "with_evidence"]

class Status(StrEnum):
    """The one status vocabulary of attnio (its JSON spelling is the member's value).

    A member is a ``str`` equal to its value, and it prints and reprs as that value, so a
    table, a doctest or a JSON file shows ``'refuted'``, never ``Status.REFUTED``.

    >>> Status.REFUTED, str(Status.REFUTED), Status("optimal") is Status.OPTIMAL
    ('refuted', 'refuted', True)
    """

    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"
    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"

    def __repr__(self) -> str:
        return repr(self.value)


#: The answers a claim can get.
CLAIM_STATUSES = (Status.PROVED, Status.REFUTED, Status.UNDECIDED)
#: The answers an exact search can get (undecided ones carry the proven bracket).
SEARCH_STATUSES = (Status.OPTIMAL, Status.INFEASIBLE, Status.UNDECIDED)


#: What a verdict rests on (``Evidence.kind``):
#:
#: * ``smt-forall``      — an SMT solver showed hypotheses ∧ ¬goal unsatisfiable (for all values);
#: * ``sympy-canonical`` — sympy rewrote a difference to the literal 0 (an identity);
#: * ``exact-arithmetic``— exact evaluation at concrete values (rationals, algebraic numbers);
#: * ``exhaustive``      — every instance of a finite family was checked (``instances``, of
#:   which ``nontrivial_instances`` could have failed);
#: * ``search``          — an exact search (pebbling, partitions) with its own certificate;
#: * ``definition``      — true by construction: reported, never counted as a proof.
EVIDENCE_KINDS = ("smt-forall", "sympy-canonical", "exact-arithmetic", "exhaustive", "search",
                  "definition")


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a verdict rests on: its ``kind`` (one of :data:`EVIDENCE_KINDS`), the solvers that
    were asked and what each answered, and for enumerated checks how many instances ran and how
    many of them could have failed (``nontrivial_instances``).

    >>> Evidence("smt-forall", solvers={"z3": "proved", "cvc5": "proved"}).short()
    'z3+cvc5 ∀'
    >>> Evidence("exhaustive", instances=20, nontrivial_instances=14).short()
    'exh 14/20'
    """

    kind: str
    solvers: dict[str, str] = field(default_factory=dict, compare=False)
    instances: int | None = None
    nontrivial_instances: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind {self.kind!r} is not one of {EVIDENCE_KINDS}")

    def short(self) -> str:
        """A few characters for the human table: ``z3+cvc5 ∀``, ``exh 14/20``, ``def``."""
        if self.kind == "smt-forall":
            agreeing = [s for s, v in self.solvers.items() if v in ("proved", "refuted")]
            return ("+".join(agreeing) or "smt") + " ∀"
        if self.kind == "exhaustive":
            if self.instances is None:
                return "exh"
            return f"exh {self.nontrivial_instances}/{self.instances}"
        return {"sympy-canonical": "sympy =0", "exact-arithmetic": "exact",
                "search": "search", "definition": "def"}[self.kind]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.instances is not None:
            out["instances"] = self.instances
            out["nontrivial_instances"] = self.nontrivial_instances
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Proved:
    """The claim holds. ``detail`` names the method (e.g. ``"z3: negation unsat"``).

    ``where_defined`` is set when the statement is undefined at some point of its declared
    domains (a square root of a negative number, a division by zero, ...): it then holds
    wherever it is defined, and this is the condition (``"n - d >= 0"``); see
    :mod:`attnio.smt.definedness`.
    """

    detail: str = ""
    seconds: float = 0.0
    evidence: Evidence | None = field(default=None, kw_only=True)
    where_defined: str | None = field(default=None, kw_only=True)
    verdict: Status = field(default=Status.PROVED, init=False)

    @property
    def status(self) -> Status:
        """The verdict as a :class:`Status` (the same member as ``verdict``)."""
        return self.verdict

    @property
    def proved(self) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "detail": self.detail,
                               "seconds": self.seconds}
        if self.where_defined is not None:
            out["where_defined"] = self.where_defined
        return out


@dataclass(frozen=True, slots=True)
class Refuted:
    """The claim is false; ``counterexample`` is the witness, as data."""

    counterexample: Any
    detail: str = ""
    seconds: float = 0.0
    evidence: Evidence | None = field(default=None, kw_only=True)
    verdict: Status = field(default=Status.REFUTED, init=False)

    @property
    def status(self) -> Status:
        """The verdict as a :class:`Status` (the same member as ``verdict``)."""
        return self.verdict

    @property
    def proved(self) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "detail": self.detail,
            "counterexample": _jsonable(self.counterexample),
            "seconds": self.seconds,
        }


@dataclass(frozen=True, slots=True)
class Undecided:
    """Neither proved nor refuted (z3 ``unknown``, timeout, exhausted budget, ``None`` truth)."""

    reason: str
    seconds: float = 0.0
    evidence: Evidence | None = field(default=None, kw_only=True)
    verdict: Status = field(default=Status.UNDECIDED, init=False)

    @property
    def status(self) -> Status:
        """The verdict as a :class:`Status` (the same member as ``verdict``)."""
        return self.verdict

    @property
    def proved(self) -> bool:
        return False

    @property
    def detail(self) -> str:
        return self.reason

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "detail": self.reason, "seconds": self.seconds}


Verdict = Union[Proved, Refuted, Undecided]


def all_proved(verdicts: Iterable[Verdict]) -> bool:
    """True only when every verdict is :class:`Proved` (an empty iterable is *not* a pass)."""
    seen = False
    for v in verdicts:
        seen = True
        if not v.proved:
            return False
    return seen


def with_seconds(verdict: Verdict, seconds: float) -> Verdict:
    """Return a copy of ``verdict`` carrying the wall time it took."""
    return replace(verdict, seconds=float(seconds))


def with_evidence(verdict: Verdict, evidence: Evidence | None) -> Verdict:
    """Return a copy of ``verdict`` carrying ``evidence``."""
    return replace(verdict, evidence=evidence)


def _jsonable(value: Any) -> Any:
    """Best-effort conversion of a counterexample to JSON-ready data (sympy/z3 → str;
    a non-finite float → None, see :mod:`attnio.output`)."""
    if isinstance(value, float):
        from attnio.output import json_ready

        return json_ready(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)
