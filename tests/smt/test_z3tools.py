"""Tests of attnio.smt.z3tools (prove, model_to_dict)."""

from __future__ import annotations

import pytest
import z3

from attnio.results import Proved, Refuted, Undecided
from attnio.smt.z3tools import model_to_dict, prove


def test_prove_unsat_is_proved() -> None:
    x = z3.Real("x")
    assert isinstance(prove(x * x >= 0), Proved)


def test_counterexample_is_data_without_function_interpretations() -> None:
    x, y = z3.Reals("x y")
    r = prove(x / y <= 1, [y > 0])
    assert isinstance(r, Refuted)
    assert set(r.counterexample) == {"x", "y"}  # no z3-internal "/0" entry


def test_unknown_is_undecided() -> None:
    x, y, z = z3.Reals("x y z")
    hard = z3.Implies(z3.And(x > 0, y > 0, z > 0, x * y * z >= 1), x ** 3 + y ** 3 + z ** 3 >= 3)
    v = prove(hard, timeout_ms=1)
    assert isinstance(v, (Proved, Undecided))


def test_model_to_dict_booleans() -> None:
    b = z3.Bool("b")
    s = z3.Solver()
    s.add(b)
    assert s.check() == z3.sat
    assert model_to_dict(s.model()) == {"b": True}


def test_watchdog_interrupts_a_solver_that_ignores_its_timeout(monkeypatch) -> None:
    import time

    from attnio.smt import z3tools

    # z3's own timeout is never set; the watchdog must stop the solver. The problem is one z3
    # cannot settle (x^3 + y^3 + z^3 = 42 over the integers: the smallest solution has
    # 17-digit numbers), so only the interruption can end it.
    class NoTimeoutSolver(z3.Solver):
        def set(self, *args, **kwargs):  # ignore the timeout prove() sets
            return None

    monkeypatch.setattr(z3tools, "WATCHDOG_GRACE_S", 0.5)
    x, y, z = z3.Ints("x y z")
    start = time.perf_counter()
    v = prove(x ** 3 + y ** 3 + z ** 3 != 42, timeout_ms=1, solver=NoTimeoutSolver())
    assert isinstance(v, Undecided), v
    assert "interrupted" in v.reason or "canceled" in v.reason, v.reason
    assert time.perf_counter() - start < 30


@pytest.mark.trust
def test_the_watchdog_never_holds_the_solver(monkeypatch) -> None:
    # z3 is not thread-safe: a solver whose last reference drops in the timer thread is freed
    # there, beside the main thread's next z3 call (`attnio verify` crashed in
    # Z3_solver_assert). The watchdog's function may hold the context, never the solver.
    import threading

    import z3

    from attnio.smt import z3tools

    started = []

    class Recording(threading.Timer):
        def __init__(self, interval, function, *args, **kwargs):
            started.append(function)
            super().__init__(interval, function, *args, **kwargs)

    monkeypatch.setattr(z3tools.threading, "Timer", Recording)
    solver = z3.Solver()
    assert z3tools.check_sat([z3.Real("x") > 1], 5.0, solver=solver)[0] == "sat"
    (function,) = started
    held = [cell.cell_contents for cell in (function.__closure__ or ())]
    assert not any(isinstance(obj, z3.Solver) for obj in held), held
    assert getattr(function, "__self__", None) is not solver
