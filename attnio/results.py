"""One verdict type for every checker in attnio.

Every checker — a z3 lemma, a crossover derivation, a partition bound, a schedule
validator, a dominance decision — returns exactly one of:

* :class:`Proved`    — the claim holds; ``detail`` says how (e.g. "z3: negation unsat").
* :class:`Refuted`   — the claim is false; ``counterexample`` is data (a dict of values,
  an instance, an illegal move), never only printed text.
* :class:`Undecided` — nobody knows: z3 answered ``unknown``, a timeout or a search budget
  ran out, sympy returned a ``None`` truth value. **Undecided is never a pass.**

Every verdict's text is ``detail`` (how it was proved, why it is false, why nobody knows;
``Undecided.reason`` is the same text under its older name).

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
:class:`Status` is the one spelling of an answer across attnio, and ``verdict`` the one name
of the field that holds it (in result objects and in every ``--json`` document, see
notes/json.md): ``proved`` / ``refuted`` / ``undecided`` for claims (the verdicts above,
sandwich rows, dominance decisions), ``optimal`` / ``infeasible`` / ``undecided`` for searches
(exact pebbling, the time-indexed model, exact partitions), and ``computed`` for a document
that reports figures and asserts nothing (``attnio bounds``). It is a ``str`` enum, so
``json.dumps`` writes its value and ``Status.UNDECIDED == "undecided"``. A search that ends
undecided carries its proven bracket (``lower`` / ``upper``) as fields, never as a status word.
:func:`overall_verdict` folds many answers into the one verdict of a command's document.

>>> Status.UNDECIDED.value, Proved().status is Status.PROVED
('undecided', True)
>>> import json; json.dumps({"verdict": Status.OPTIMAL})
'{"verdict": "optimal"}'
>>> overall_verdict(["optimal", "infeasible"]), overall_verdict(["proved", "undecided"])
('proved', 'undecided')

One JSON convention
-------------------
A result is a frozen dataclass; :class:`JsonFields` gives it ``to_json()``: every field by
name (``pass_`` is written ``pass``), each value through :func:`to_jsonable` (a nested
result by its own ``to_json``, a :class:`Status` by its value, a non-finite float as
``null``, a sympy or z3 value as its text). A field whose metadata says ``{"json": False}``
is left out; ``{"json": "name"}`` renames it.

>>> Undecided("budget").to_json()
{'verdict': 'undecided', 'detail': 'budget', 'seconds': 0.0, 'evidence': None}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import Enum, StrEnum
from typing import Any, Iterable, Union

__all__ = ["Status", "CLAIM_STATUSES", "SEARCH_STATUSES", "overall_verdict",
           "JsonFields", "OlderNames", "to_jsonable",
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
    COMPUTED = "computed"

    def __repr__(self) -> str:
        return repr(self.value)


#: The answers a claim can get.
CLAIM_STATUSES = (Status.PROVED, Status.REFUTED, Status.UNDECIDED)
#: The answers an exact search can get (undecided ones carry the proven bracket).
SEARCH_STATUSES = (Status.OPTIMAL, Status.INFEASIBLE, Status.UNDECIDED)


def overall_verdict(verdicts: Iterable[str]) -> Status:
    """The one verdict of a document holding many answers (the top-level ``"verdict"`` of
    every ``--json`` document; the exit code is 0 exactly when it is not ``refuted`` or
    ``undecided``).

    * ``refuted`` if any answer is refuted (something asserted is false);
    * else ``undecided`` if any is undecided (or there is no answer at all);
    * else the answer itself when every answer is the same (``optimal``, ``infeasible``,
      ``computed``, ``proved``);
    * else ``proved``: every answer is established — a claim proved, an optimum or an
      infeasibility proven, a figure computed.

    >>> overall_verdict([]), overall_verdict(["computed"]), overall_verdict(["optimal"] * 2)
    ('undecided', 'computed', 'optimal')
    >>> overall_verdict(["optimal", "infeasible"]), overall_verdict(["proved", "refuted"])
    ('proved', 'refuted')
    """
    seen = {Status(str(v)) for v in verdicts}
    if Status.REFUTED in seen:
        return Status.REFUTED
    if not seen or Status.UNDECIDED in seen:
        return Status.UNDECIDED
    if len(seen) == 1:
        return seen.pop()
    return Status.PROVED


def to_jsonable(value: Any) -> Any:
    """JSON-ready data of ``value``: a result by its ``to_json()``, another dataclass by its
    fields, an enum by its value, a non-finite float as None (:func:`attnio.validation.
    json_float`), dicts (keys as text), lists and tuples recursively; a str, int, bool or None
    as is; anything else (sympy, z3) as its text.

    >>> to_jsonable({"M": 3, 1: (float("inf"), Status.OPTIMAL)})
    {'M': 3, '1': [None, 'optimal']}
    """
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):
        return to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name.removesuffix("_"): to_jsonable(getattr(value, f.name))
                for f in fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return str(value)


class OlderNames:
    """``status`` and ``reason``, the names before 0.2 of ``verdict`` and ``detail``: read-only
    aliases, one definition for every result that kept them (a mixin)."""

    __slots__ = ()
    verdict: Any
    detail: str

    @property
    def status(self) -> Status:
        """``verdict`` under its older name."""
        return Status(self.verdict)

    @property
    def reason(self) -> str:
        """``detail`` under its older name."""
        return self.detail


class VerdictStatus:
    """``status`` (a verdict's ``verdict`` field, the same :class:`Status` member) and
    ``proved`` — one definition for :class:`Proved`, :class:`Refuted` and :class:`Undecided`
    (a mixin)."""

    __slots__ = ()
    verdict: Status

    @property
    def status(self) -> Status:
        """The verdict as a :class:`Status` (the same member as ``verdict``)."""
        return self.verdict

    @property
    def proved(self) -> bool:
        """True for :class:`Proved` only (its ``verdict`` is fixed: not an init field)."""
        return self.verdict == Status.PROVED


class JsonFields:
    """The one ``to_json`` of attnio's results (a mixin for frozen dataclasses).

    ``to_json()`` is ``{name: to_jsonable(value)}`` over the dataclass fields, in their order;
    a trailing underscore is dropped from a name (``pass_`` → ``pass``); a field with
    ``metadata={"json": False}`` is left out and ``metadata={"json": "other"}`` renamed.
    A class that must add derived keys overrides ``to_json`` and starts from ``super()``'s.
    """

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            name = f.metadata.get("json", f.name.removesuffix("_"))
            if name is not False:
                out[name] = to_jsonable(getattr(self, f.name))
        if "verdict" in out:  # the answer first, as a reader looks for it
            out = {"verdict": out.pop("verdict"), **out}
        return out


#: What a verdict rests on (``Evidence.kind``):
#:
#: * ``smt-forall``      — an SMT solver showed hypotheses ∧ ¬goal unsatisfiable (for all values);
#: * ``sympy-canonical`` — sympy rewrote a difference to the literal 0 (an identity);
#: * ``sympy-calculus``  — sympy's calculus on the statement's own terms: the sign of a
#:   derivative on an interval (``solveset``), or an identity of exp and log by their
#:   expansion rules (the exp/log axioms of :mod:`attnio.smt.explog`);
#: * ``exact-arithmetic``— exact evaluation at concrete values (rationals, algebraic numbers);
#: * ``exhaustive``      — every instance of a finite family was checked (``instances``, of
#:   which ``nontrivial_instances`` could have failed);
#: * ``search``          — an exact search (pebbling, partitions) with its own certificate;
#: * ``definition``      — true by construction: reported, never counted as a proof.
EVIDENCE_KINDS = ("smt-forall", "sympy-canonical", "sympy-calculus", "exact-arithmetic",
                  "exhaustive", "search", "definition")


@dataclass(frozen=True, slots=True)
class Evidence(JsonFields):
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

    @classmethod
    def exhaustive(cls, instances: int, nontrivial: int) -> "Evidence":
        """An enumerated check's evidence: ``instances`` ran, ``nontrivial`` of them could
        have failed.

        >>> Evidence.exhaustive(20, 14) == Evidence("exhaustive", instances=20,
        ...                                          nontrivial_instances=14)
        True
        """
        return cls("exhaustive", instances=instances, nontrivial_instances=nontrivial)

    def short(self) -> str:
        """A few characters for the human table: ``z3+cvc5 ∀``, ``exh 14/20``, ``def``."""
        if self.kind == "smt-forall":
            agreeing = [s for s, v in self.solvers.items() if v in ("proved", "refuted")]
            return ("+".join(agreeing) or "smt") + " ∀"
        if self.kind == "exhaustive":
            if self.instances is None:
                return "exh"
            return f"exh {self.nontrivial_instances}/{self.instances}"
        return {"sympy-canonical": "sympy =0", "sympy-calculus": "sympy d/dx",
                "exact-arithmetic": "exact",
                "search": "search", "definition": "def"}[self.kind]



@dataclass(frozen=True, slots=True)
class Proved(VerdictStatus, JsonFields):
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


@dataclass(frozen=True, slots=True)
class Refuted(VerdictStatus, JsonFields):
    """The claim is false; ``counterexample`` is the witness, as data."""

    counterexample: Any
    detail: str = ""
    seconds: float = 0.0
    evidence: Evidence | None = field(default=None, kw_only=True)
    verdict: Status = field(default=Status.REFUTED, init=False)


@dataclass(frozen=True, slots=True)
class Undecided(VerdictStatus, JsonFields, OlderNames):
    """Neither proved nor refuted (z3 ``unknown``, timeout, exhausted budget, ``None`` truth);
    ``detail`` says which (``reason`` is its older name)."""

    detail: str
    seconds: float = 0.0
    evidence: Evidence | None = field(default=None, kw_only=True)
    verdict: Status = field(default=Status.UNDECIDED, init=False)


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

