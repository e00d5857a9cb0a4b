"""Deadlines for the lower-bound routes and their checkers (``attnio lower-bound --time-limit``).

A :class:`Deadline` is a point on the :func:`time.monotonic` clock. Every route and checker of
:mod:`attnio.graphs.lower_bounds` takes one and reads it in each phase (every DP layer, every
few hundred states, every candidate set, every z3 call), so a search stops within a fraction
of a second of the deadline by raising :class:`TimeLimitReached`. :func:`lower_bounds` turns
that into a record that says "not computed: time limit" (never a bound), and
:func:`check_certificate` into an ``Undecided`` verdict (never a pass).

>>> Deadline.never().expired(), Deadline.after(0).expired()
(False, True)
>>> Deadline.after(0).check()
Traceback (most recent call last):
...
attnio.exceptions.TimeLimitReached: time limit reached
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from attnio.exceptions import TimeLimitReached

__all__ = ["Deadline", "TimeLimitReached", "TIME_LIMIT_REASON", "CHECK_TIME_LIMIT_REASON",
           "as_deadline"]

#: The ``why_not`` of a route (and the detail of a checker) stopped by its deadline.
TIME_LIMIT_REASON = "not computed: time limit"
#: The detail of the ``Undecided`` verdict of a certificate check stopped by its deadline.
CHECK_TIME_LIMIT_REASON = "certificate not checked: time limit"


@dataclass(frozen=True, slots=True)
class Deadline:
    """``at``: the :func:`time.monotonic` value when work must stop (``inf``: never)."""

    at: float = math.inf

    @classmethod
    def never(cls) -> "Deadline":
        return cls(math.inf)

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        """``seconds`` from now."""
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        """Seconds left (``inf`` without a deadline, never negative)."""
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def check(self) -> None:
        """Raise :class:`TimeLimitReached` once the deadline has passed."""
        if time.monotonic() >= self.at:
            raise TimeLimitReached("time limit reached")

    def share(self, parts: int) -> "Deadline":
        """A deadline for the next of ``parts`` phases that split the time left evenly
        (whatever a phase leaves unused passes to the phases after it)."""
        if math.isinf(self.at):
            return self
        return Deadline(time.monotonic() + self.remaining() / max(1, parts))

    def timeout_ms(self, cap_ms: int) -> int:
        """A z3 timeout: ``cap_ms``, or the milliseconds left if fewer (at least 1)."""
        left = self.remaining()
        return cap_ms if math.isinf(left) else max(1, min(cap_ms, int(left * 1000)))

    def seconds(self, cap: float) -> float:
        """A solver time limit: ``cap`` seconds, or the seconds left if fewer."""
        return min(cap, self.remaining())


def as_deadline(deadline: "Deadline | None") -> Deadline:
    """``deadline``, or :meth:`Deadline.never` for None."""
    return Deadline.never() if deadline is None else deadline
