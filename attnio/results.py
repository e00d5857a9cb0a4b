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
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Union

__all__ = ["Proved", "Refuted", "Undecided", "Verdict", "all_proved", "with_seconds"]


@dataclass(frozen=True, slots=True)
class Proved:
    """The claim holds. ``detail`` names the method (e.g. ``"z3: negation unsat"``)."""

    detail: str = ""
    seconds: float = 0.0
    verdict: str = field(default="proved", init=False)

    @property
    def proved(self) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "detail": self.detail, "seconds": self.seconds}


@dataclass(frozen=True, slots=True)
class Refuted:
    """The claim is false; ``counterexample`` is the witness, as data."""

    counterexample: Any
    detail: str = ""
    seconds: float = 0.0
    verdict: str = field(default="refuted", init=False)

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
    verdict: str = field(default="undecided", init=False)

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


def _jsonable(value: Any) -> Any:
    """Best-effort conversion of a counterexample to JSON-ready data (sympy/z3 → str)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)
