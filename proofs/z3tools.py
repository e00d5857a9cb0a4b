"""z3 helpers with the Undecided discipline: ``unknown`` or a timeout is never a proof.

:func:`prove` checks that ``claim`` holds for every assignment satisfying ``hypotheses`` by
asking z3 for a model of ``hypotheses ∧ ¬claim``:

* ``unsat``   → :class:`~attnio.results.Proved`
* ``sat``     → :class:`~attnio.results.Refuted` with the model as a dict of exact values
* ``unknown`` → :class:`~attnio.results.Undecided` with z3's reason (e.g. ``timeout``)

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

from attnio.results import Proved, Refuted, Undecided, Verdict

__all__ = ["prove", "model_to_dict", "WATCHDOG_GRACE_S"]


#: A wall-clock guard interrupts z3 this long after ``timeout_ms`` if z3's own timeout has not
#: fired (some nonlinear tactics check it rarely); the answer is then ``unknown``.
WATCHDOG_GRACE_S = 2.0


def prove(claim: z3.BoolRef, hypotheses: Iterable[z3.BoolRef] = (), *,
          timeout_ms: int = 20_000, solver: z3.Solver | None = None) -> Verdict:
    """Prove ``hypotheses ⇒ claim`` for all values, or return a counterexample / Undecided.

    ``timeout_ms`` is z3's timeout; a watchdog thread also interrupts the solver
    :data:`WATCHDOG_GRACE_S` seconds later, so a check never hangs the run.
    """
    s = solver if solver is not None else z3.Solver()
    s.set("timeout", int(timeout_ms))
    for h in hypotheses:
        s.add(h)
    s.add(z3.Not(claim))
    watchdog = threading.Timer(timeout_ms / 1000 + WATCHDOG_GRACE_S, s.ctx.interrupt)
    watchdog.daemon = True
    watchdog.start()
    try:
        answer = s.check()
    finally:
        watchdog.cancel()
    if answer == z3.unsat:
        return Proved("z3: hypotheses ∧ ¬claim is unsat")
    if answer == z3.sat:
        return Refuted(model_to_dict(s.model()), "z3 found a counterexample")
    return Undecided(f"z3 returned unknown ({s.reason_unknown()}, timeout {timeout_ms} ms)")


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
