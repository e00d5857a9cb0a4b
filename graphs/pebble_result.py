r"""The one result type of every pebbling engine: :class:`PebbleResult`.

Every method that answers :math:`Q(G, M)` — the least reads + writes of a complete schedule
of ``G`` with at most ``M`` red pebbles (:mod:`attnio.graphs.game`) — returns a
:class:`PebbleResult` whose ``verdict`` is one of :data:`attnio.results.SEARCH_STATUSES`:

* ``optimal`` — ``lower == upper == io`` = :math:`Q(G, M)`, and ``schedule`` replays
  (:func:`attnio.graphs.game.replay`) to exactly that cost;
* ``infeasible`` — no complete schedule exists (``reason`` says which vertex needs more
  pebbles); ``lower`` is 0 and ``upper`` None;
* ``undecided`` — a budget ran out (or, for the time-indexed model, the horizon is not
  proven sufficient): the proven bracket ``lower <= Q(G, M) <= upper`` (``upper`` None when
  no schedule is known; else ``schedule``, when given, replays to ``upper``). Never a guess.

The search engines (:mod:`attnio.graphs.engines`), :func:`attnio.graphs.anytime.anytime_pebble`
and ``attnio pebble`` all speak it; :meth:`PebbleResult.to_json` is its one JSON form.

Examples
--------
>>> r = PebbleResult.optimal(3, [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c")])
>>> r.verdict, r.io, r.lower, r.upper
('optimal', 3, 3, 3)
>>> u = PebbleResult.undecided(20, 24, "time limit 1 s reached")
>>> getattr(u, "io", None), u.to_json()["verdict"], u.to_json()["lower"]
(None, 'undecided', 20)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from attnio.graphs.game import Move
from attnio.results import SEARCH_STATUSES, OlderNames, Status

__all__ = ["PebbleResult"]


@dataclass(frozen=True, slots=True)
class PebbleResult(OlderNames):
    """An answer about :math:`Q(G, M)`: ``verdict`` and the proven bracket (module docstring).

    Build one with :meth:`optimal`, :meth:`infeasible` or :meth:`undecided`.

    Attributes
    ----------
    verdict : Status
        ``optimal``, ``infeasible`` or ``undecided``.
    lower, upper : int, int or None
        ``lower <= Q(G, M) <= upper`` (equal when optimal; ``upper`` None: no schedule known).
    schedule : list of Move
        Optimal: an optimal schedule; undecided: the best schedule known (may be empty).
    detail : str
        Why infeasible or undecided ("" when optimal); ``reason`` is a read-only alias (the
        name before 0.2).
    states_explored : int
        Search states expanded (0 for methods that do not count them).
    seconds : float
        Wall-clock seconds of the call.
    horizon : int or None
        Steps of the time-indexed model (:mod:`attnio.graphs.exact_z3`); None elsewhere.
    lower_source : str or None
        The argument behind ``lower`` when a caller names it (:func:`attnio.graphs.anytime.
        anytime_pebble`: ``"compulsory"``, ``"certified spill-windows"``, ``"exact search"``,
        ...); None when not named.
    """

    verdict: Status
    lower: int = 0
    upper: int | None = None
    schedule: list[Move] = field(default_factory=list)
    detail: str = ""
    states_explored: int = 0
    seconds: float = 0.0
    horizon: int | None = None
    lower_source: str | None = None

    def __post_init__(self) -> None:
        # internal invariants of the constructors below (a bug if they fail, not user input)
        object.__setattr__(self, "verdict", Status(self.verdict))  # "optimal" -> the member
        if self.verdict not in SEARCH_STATUSES:
            raise ValueError(f"verdict {self.verdict!r} is not one of {SEARCH_STATUSES}")
        if self.verdict is Status.OPTIMAL and self.lower != self.upper:
            raise ValueError(f"an optimal result needs lower == upper, not {self.lower} "
                             f"and {self.upper}")
        if self.upper is not None and self.lower > self.upper:
            raise ValueError(f"lower={self.lower} is above upper={self.upper}")

    @classmethod
    def optimal(cls, io: int, schedule: Sequence[Move], *, states_explored: int = 0,
                seconds: float = 0.0, horizon: int | None = None,
                lower_source: str | None = None) -> PebbleResult:
        """Proven :math:`Q(G, M) = io`, achieved by ``schedule``."""
        return cls(Status.OPTIMAL, int(io), int(io), list(schedule), "",
                   int(states_explored), seconds, horizon, lower_source)

    @classmethod
    def infeasible(cls, reason: str) -> PebbleResult:
        """No complete schedule exists, because ``reason``."""
        return cls(Status.INFEASIBLE, 0, None, [], reason)

    @classmethod
    def undecided(cls, lower: int, upper: int | None, reason: str, *,
                  schedule: Sequence[Move] = (), states_explored: int = 0,
                  seconds: float = 0.0, horizon: int | None = None,
                  lower_source: str | None = None) -> PebbleResult:
        """Only ``lower <= Q(G, M) <= upper`` is proven (``reason``: why no more)."""
        return cls(Status.UNDECIDED, int(lower), None if upper is None else int(upper),
                   list(schedule), reason, int(states_explored), seconds, horizon,
                   lower_source)

    @property
    def io(self) -> int:
        """:math:`Q(G, M)`, defined only when the verdict is optimal (else AttributeError,
        so ``getattr(result, "io", None)`` is None for the other verdicts).

        >>> PebbleResult.undecided(20, 24, "budget").io
        Traceback (most recent call last):
        ...
        AttributeError: io is defined for an optimal verdict only; this one is undecided (20 <= Q <= 24)
        """
        if self.verdict is not Status.OPTIMAL or self.upper is None:
            raise AttributeError(f"io is defined for an optimal verdict only; this one is "
                                 f"{self.verdict} ({self.lower} <= Q <= {self.upper})")
        return self.upper

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this result (plain ints, strs, lists; ``detail`` null when
        optimal; ``horizon`` only for the time-indexed model, ``lower_source`` only when
        named).

        >>> PebbleResult.infeasible("M=2 is too small").to_json()
        {'verdict': 'infeasible', 'io': None, 'lower': 0, 'upper': None, 'moves': [], 'states_explored': 0, 'seconds': 0.0, 'detail': 'M=2 is too small'}
        """
        out: dict[str, Any] = {
            "verdict": self.verdict.value,
            "io": self.upper if self.verdict is Status.OPTIMAL else None, "lower": self.lower,
            "upper": self.upper, "moves": [list(m) for m in self.schedule],
            "states_explored": self.states_explored, "seconds": round(self.seconds, 3),
            "detail": self.detail or None}
        if self.horizon is not None:
            out["horizon"] = self.horizon
        if self.lower_source is not None:
            out["lower_source"] = self.lower_source
        return out
