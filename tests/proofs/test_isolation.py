"""Hard limits (attnio.proofs.isolation) and the second solver (attnio.proofs.second_solver)."""

from __future__ import annotations

import operator
import os
import time

import pytest

from attnio.proofs import isolation, second_solver
from attnio.proofs.isolation import HardLimitReached, Worker, run_isolated
from attnio.proofs.kernel import cvc5_check

pytestmark = pytest.mark.trust


def _boom(message: str) -> None:
    raise ValueError(message)


def _allocate(gib: int) -> int:
    return len(bytearray(gib * 1024 ** 3))


def test_run_isolated_returns_the_value_and_reraises_the_exception() -> None:
    assert run_isolated(operator.add, (2, 3), seconds=30.0) == 5
    assert run_isolated(sorted, ([3, 1, 2],), {"reverse": True}, seconds=30.0) == [3, 2, 1]
    with pytest.raises(ValueError, match="^from the child$"):
        run_isolated(_boom, ("from the child",), seconds=30.0)


def test_run_isolated_kills_a_call_past_its_limit() -> None:
    with pytest.raises(HardLimitReached, match="time limit of 0.2 s was reached"):
        run_isolated(time.sleep, (30,), seconds=0.2)


def test_run_isolated_caps_the_memory_of_the_child() -> None:
    with pytest.raises(MemoryError):
        run_isolated(_allocate, (4,), seconds=30.0, memory_bytes=1024 ** 3)


def test_a_child_that_dies_without_answering_is_reported() -> None:
    with pytest.raises(HardLimitReached, match="ended without an answer"):
        run_isolated(os._exit, (3,), seconds=30.0)


def test_the_worker_serves_calls_and_restarts_after_a_kill() -> None:
    w = Worker(operator.__file__, "add")
    try:
        assert w.call((2, 3), seconds=30.0) == 5
        first = w._proc.pid
        assert w.call((4, 5), seconds=30.0) == 9 and w._proc.pid == first     # reused
        with pytest.raises(TypeError):
            w.call(("a", 1), seconds=30.0)
        assert w.call((1, 1), seconds=30.0) == 2 and w._proc.pid == first     # still alive
    finally:
        w.close()


def test_a_worker_call_past_its_limit_kills_the_server() -> None:
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write("import time\ndef nap(s):\n    time.sleep(s)\n    return s\n")
    w = Worker(fh.name, "nap")
    try:
        assert w.call((0,), seconds=30.0) == 0
        pid = w._proc.pid
        with pytest.raises(HardLimitReached, match="time limit of 0.2 s"):
            w.call((30,), seconds=0.2)
        assert w._proc is None
        assert w.call((0,), seconds=30.0) == 0 and w._proc.pid != pid          # a new server
    finally:
        w.close()
        os.unlink(fh.name)


def test_cvc5_answers() -> None:
    real = "(declare-fun x () Real)(assert (< (* x x) 0))(check-sat)"
    assert second_solver.cvc5_answer(real, 5.0) == "unsat"
    assert second_solver.cvc5_answer("(declare-fun x () Real)(assert (> x 1))(check-sat)", 5.0) == "sat"
    assert second_solver.cvc5_answer("(declare-fun x () Real)(assert (> x 1))", 5.0) == "n/a"
    assert second_solver.cvc5_answer("(assert (> x", 5.0) == "n/a"
    integer = "(declare-fun k () Int)(assert (> (* 2 k) 4))(assert (< (* 2 k) 6))(check-sat)"
    assert second_solver.cvc5_answer(integer, 5.0) == "unsat"      # not n/a: QF_NIRA
    assert cvc5_check(integer, 5.0) == "unsat" and cvc5_check(real, 5.0) == "unsat"
    assert second_solver.logic_of(integer) == "QF_NIRA"
    assert second_solver.logic_of(real) == "QF_NRA"
    assert second_solver.logic_of("(declare-fun Interval () Real)") == "QF_NRA"


def test_cvc5_unknown_past_its_hard_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from attnio.proofs import kernel

    class Stuck:
        def call(self, args: tuple, *, seconds: float) -> str:
            raise HardLimitReached("stuck")
    monkeypatch.setattr(kernel, "_CVC5", Stuck())
    assert cvc5_check("(check-sat)", 1.0) == "unknown"
