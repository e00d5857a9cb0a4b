"""Hard limits (attnio.smt.isolation) and the second solver (attnio.smt.second_solver)."""

from __future__ import annotations

import operator
import os
import time
from pathlib import Path
from typing import Iterator

import pytest

from attnio.smt import isolation, second_solver
from attnio.smt.isolation import HardLimitReached, Worker, run_isolated
from attnio.smt.solvers import cvc5_check

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
    with pytest.raises(HardLimitReached, match=r"^the time limit of 0.2 s was reached \(the "
                                               r"child process was killed\)$"):
        run_isolated(time.sleep, (30,), seconds=0.2)


def test_run_isolated_caps_the_memory_of_the_child() -> None:
    with pytest.raises(MemoryError):
        run_isolated(_allocate, (4,), seconds=30.0, memory_bytes=1024 ** 3)


def test_a_child_that_dies_without_answering_is_reported() -> None:
    with pytest.raises(HardLimitReached, match=r"^the child process ended without an answer "
                                               r"\(out of memory\?\)$"):
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
    from attnio.smt import solvers

    class Stuck:
        def call(self, args: tuple, *, seconds: float) -> str:
            raise HardLimitReached("stuck")
    monkeypatch.setattr(solvers, "_CVC5", Stuck())
    assert cvc5_check("(check-sat)", 1.0) == "unknown"


# ---------------------------------------------------- the child side, run in this process
# (mutmut records which test reaches a function only in the test's own process)
def test_limit_memory_sets_the_address_space_cap() -> None:
    import resource
    before = resource.getrlimit(resource.RLIMIT_AS)
    try:
        isolation._limit_memory(None)
        assert resource.getrlimit(resource.RLIMIT_AS) == before
        isolation._limit_memory(1 << 45)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        assert soft == (1 << 45 if hard == resource.RLIM_INFINITY else min(1 << 45, hard))
        assert hard == before[1]
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def test_die_with_parent_asks_for_sigkill() -> None:
    import ctypes
    import signal
    libc = ctypes.CDLL(None, use_errno=True)
    value = ctypes.c_int(-1)
    try:
        isolation._die_with_parent()
        assert libc.prctl(2, ctypes.byref(value)) == 0          # PR_GET_PDEATHSIG
        assert value.value == int(signal.SIGKILL)
    finally:
        libc.prctl(1, 0)                                         # this test process: off


def test_the_server_loop_answers_until_end_of_file(tmp_path) -> None:  # noqa: ANN001
    import io
    import threading
    target = _module_file(tmp_path, "target.py",
                          "def twice(x):\n    if x < 0:\n        raise ValueError('negative')\n"
                          "    return 2 * x\n")
    requests_r, requests_w = os.pipe()
    replies_r, replies_w = os.pipe()
    sink = io.BufferedWriter(io.FileIO(replies_w, "w"))
    server = threading.Thread(target=isolation._serve,
                              args=(str(target), "twice", 0, requests_r, sink))
    try:
        server.start()
        with io.BufferedWriter(io.FileIO(requests_w, "w")) as requests:
            isolation._send(requests, (21,))
            assert isolation._receive(replies_r, time.monotonic() + 30) == ("ok", 42)
            isolation._send(requests, (-1,))
            status, exc = isolation._receive(replies_r, time.monotonic() + 30)
            assert status == "error" and isinstance(exc, ValueError) and str(exc) == "negative"
        server.join(30)
        assert not server.is_alive()                           # EOF ends the loop
    finally:
        import ctypes
        ctypes.CDLL(None).prctl(1, 0)
        sink.close()
        os.close(requests_r)
        os.close(replies_r)


def test_the_wire_format() -> None:
    import io
    r, w = os.pipe()
    with io.BufferedWriter(io.FileIO(w, "w")) as out:
        isolation._send(out, {"a": [1, 2]})
        isolation._send(out, lambda: 0)                         # does not pickle: an error
    try:
        assert isolation._receive(r, None) == {"a": [1, 2]}
        status, exc = isolation._receive(r, None)
        assert status == "error" and "could not be sent back" in str(exc)
        with pytest.raises(EOFError):
            isolation._receive(r, None)
    finally:
        os.close(r)


def test_a_read_past_its_deadline_raises_and_a_later_one_reads(pipe) -> None:  # noqa: ANN001
    r, w = pipe
    with pytest.raises(HardLimitReached):
        isolation._read_exactly(r, 8, time.monotonic() + 0.05)   # nothing arrives
    os.write(w, b"abc")
    assert isolation._read_exactly(r, 3, time.monotonic() + 30) == b"abc"


def test_kill_reaches_only_that_child() -> None:
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    isolation._kill(pid)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)                              # killed and reaped
    isolation._kill(pid)                                         # already gone: no error


def test_z3_answers() -> None:
    assert second_solver.z3_answer("(declare-fun k () Int)(assert (= (* k k) 9))"
                                   "(assert (> k 0))", 5000) == ("sat", ["(assert (= k 3))"])
    assert second_solver.z3_answer("(declare-fun k () Int)(assert (= (* k k) 2))", 5000) == \
        ("unsat", [])
    status, reason = second_solver.z3_answer(
        "(declare-fun x () Int)(declare-fun y () Int)(declare-fun z () Int)"
        "(assert (> x 0))(assert (> y 0))(assert (> z 0))"
        "(assert (= (+ (* x x x) (* y y y)) (* z z z)))", 1)
    assert status == "unknown" and reason


def _unpicklable_error() -> None:
    class Local(Exception):         # a local class does not pickle
        pass
    raise Local("kept as text")


def _unpicklable_value() -> object:
    return lambda: 0


def test_replies_that_do_not_pickle_become_runtime_errors() -> None:
    with pytest.raises(RuntimeError, match="Local: kept as text"):
        run_isolated(_unpicklable_error, seconds=30.0)
    with pytest.raises(RuntimeError, match="^the result could not be sent back"):
        run_isolated(_unpicklable_value, seconds=30.0)


def test_replies_are_unpacked_strictly() -> None:
    assert isolation._unpack(("ok", 3)) == 3
    with pytest.raises(KeyError):
        isolation._unpack(("error", KeyError("k")))
    with pytest.raises(HardLimitReached, match="a malformed reply 'OK'"):
        isolation._unpack(("OK", 3))


def _no_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child side that wrongly runs on must not end the test process (with exit code 0 a
    mutation tool would even read it as a pass)."""
    def refuse(code: object) -> None:
        raise AssertionError(f"os._exit({code!r}) called in the test process")
    monkeypatch.setattr(isolation.os, "_exit", refuse)


def test_the_child_side_refuses_to_run_in_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_exit(monkeypatch)
    with pytest.raises(RuntimeError, match="ran in the parent process"):
        isolation._child(os.getpid(), -1, -1, operator.add, (1, 2), {}, None)


def test_the_grace_is_added_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The call may take up to seconds + KILL_GRACE_S (not minus): with a grace of 30 s a
    0.3 s call under a 0.01 s limit still answers, whatever the machine's load."""
    monkeypatch.setattr(isolation, "KILL_GRACE_S", 30.0)
    assert run_isolated(time.sleep, (0.3,), seconds=0.01) is None
    w = Worker(operator.__file__, "add")
    try:
        assert w.call((1, 2), seconds=0.0) == 3
    finally:
        w.close()


def _hard_cap_and_limit(hard: int, wanted: int) -> tuple[int, int]:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    isolation._limit_memory(wanted)
    return resource.getrlimit(resource.RLIMIT_AS)


def test_the_memory_cap_never_exceeds_a_finite_hard_limit() -> None:
    isolation._limit_memory(None)            # in this process too (mutmut's test selection)
    gib = 1024 ** 3
    assert run_isolated(_hard_cap_and_limit, (8 * gib, 2 * gib), seconds=30.0,
                        memory_bytes=None) == (2 * gib, 8 * gib)
    assert run_isolated(_hard_cap_and_limit, (2 * gib, 8 * gib), seconds=30.0,
                        memory_bytes=None) == (2 * gib, 2 * gib)


def test_cvc5_missing_is_n_a(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "cvc5", None)
    assert second_solver.cvc5_answer("(check-sat)", 1.0) == "n/a"
    assert second_solver.milliseconds(2.5) == 2500 and second_solver.milliseconds(0.0) == 1
    assert second_solver.milliseconds(0.0011) == 2


def test_the_server_caps_its_memory(tmp_path) -> None:  # noqa: ANN001
    target = _module_file(tmp_path, "hog.py",
                          "def hog(gib):\n    return len(bytearray(gib * 1024 ** 3))\n")
    w = Worker(str(target), "hog", memory_bytes=1024 ** 3)
    try:
        with pytest.raises(MemoryError):
            w.call((2,), seconds=60.0)
        assert w.call((0,), seconds=60.0) == 0            # the server survived its MemoryError
    finally:
        w.close()
    roomy = Worker(str(target), "hog", memory_bytes=None)
    try:
        assert roomy.call((1,), seconds=60.0) == 1024 ** 3
    finally:
        roomy.close()


class _Exited(Exception):
    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


def _module_file(folder: Path, name: str, source: str) -> str:
    """Write ``source`` as the module file ``folder/name`` an isolated worker loads; its path."""
    path = folder / name
    path.write_text(source)
    return str(path)


def _recorded_caps(monkeypatch: pytest.MonkeyPatch) -> list:
    """The memory caps the isolated side asks for, recorded (in the returned list) instead of
    taken, and no parent-death signal asked for: the child or server side in this process."""
    caps: list = []
    monkeypatch.setattr(isolation, "_die_with_parent", lambda: None)
    monkeypatch.setattr(isolation, "_limit_memory", caps.append)
    return caps


def _run_child_here(monkeypatch: pytest.MonkeyPatch, fn, args: tuple, kwargs: dict,  # noqa: ANN001
                    memory_bytes: int | None) -> tuple[object, object, list, bool]:
    """The child side of run_isolated, in this process (mutmut's test selection sees only
    this process): the exit and the memory cap recorded instead of taken. Returns the exit
    code, the reply, the caps asked for and whether the read end was closed."""
    caps = _recorded_caps(monkeypatch)

    def fake_exit(code: object) -> None:
        raise _Exited(code)

    monkeypatch.setattr(isolation.os, "_exit", fake_exit)
    read_fd, write_fd = os.pipe()
    spare_r, spare_w = os.pipe()           # stands for the parent's end the child must close
    os.close(spare_w)
    try:
        with pytest.raises(_Exited) as exited:
            isolation._child(os.getpid() + 1, spare_r, write_fd, fn, args, kwargs, memory_bytes)
        try:
            os.fstat(spare_r)
            closed = False
            os.close(spare_r)
        except OSError:
            closed = True
        reply = isolation._receive(read_fd, time.monotonic() + 5)
    finally:
        os.close(read_fd)
        try:
            os.close(write_fd)          # left open only when the child side failed early
        except OSError:
            pass
    return exited.value.code, reply, caps, closed


def _keywords(a: int, b: int = 0, *, c: int = 0) -> tuple[int, int, int]:
    return a, b, c


def test_the_child_side_sends_the_value_and_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    code, reply, caps, closed = _run_child_here(monkeypatch, _keywords, (1, 2), {"c": 3}, 1 << 30)
    assert code == 0
    assert reply == ("ok", (1, 2, 3))
    assert caps == [1 << 30]
    assert closed


def test_the_child_side_sends_the_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    code, reply, caps, _ = _run_child_here(monkeypatch, _boom, ("no",), {}, None)
    assert code == 0 and caps == [None]
    status, exc = reply
    assert status == "error" and isinstance(exc, ValueError) and str(exc) == "no"


def test_the_child_side_refusal_names_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_exit(monkeypatch)
    with pytest.raises(RuntimeError, match=r"^the child side of run_isolated ran in the parent "
                                           r"process$"):
        isolation._child(os.getpid(), -1, -1, operator.add, (1, 2), {}, None)


def test_the_server_loads_the_file_as_its_own_module(tmp_path,  # noqa: ANN001
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import threading
    caps = _recorded_caps(monkeypatch)
    target = _module_file(tmp_path, "named.target.py", "def name():\n    return __name__\n")
    requests_r, requests_w = os.pipe()
    replies_r, replies_w = os.pipe()
    sink = io.BufferedWriter(io.FileIO(replies_w, "w"))
    server = threading.Thread(target=isolation._serve,
                              args=(str(target), "name", 5 << 30, requests_r, sink))
    try:
        server.start()
        with io.BufferedWriter(io.FileIO(requests_w, "w")) as requests:
            isolation._send(requests, ())
            assert isolation._receive(replies_r, time.monotonic() + 30) == ("ok", "named")
        server.join(30)
        assert not server.is_alive()
        assert caps == [5 << 30]
    finally:
        sink.close()
        os.close(requests_r)
        os.close(replies_r)


def test_the_server_takes_0_as_no_memory_cap(tmp_path,  # noqa: ANN001
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    caps = _recorded_caps(monkeypatch)
    target = _module_file(tmp_path, "t.py", "def f():\n    return 1\n")
    requests_r, requests_w = os.pipe()
    os.close(requests_w)                                   # EOF at once
    import io
    replies_r, replies_w = os.pipe()
    sink = io.BufferedWriter(io.FileIO(replies_w, "w"))
    try:
        isolation._serve(str(target), "f", 0, requests_r, sink)
        assert caps == [None]
    finally:
        sink.close()
        os.close(requests_r)
        os.close(replies_r)


def test_the_memory_cap_is_the_finite_hard_limit_in_this_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import resource
    calls: list = []
    monkeypatch.setattr(resource, "getrlimit", lambda which: (100, 1000))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: calls.append(limits))
    isolation._limit_memory(5000)
    isolation._limit_memory(10)
    assert calls == [(1000, 1000), (10, 1000)]


def test_cvc5_unknown_in_this_process() -> None:
    # x³ + y³ + z³ = 33 has solutions only in 16-digit integers: not within 50 ms
    smt2 = ("(declare-const x Int)(declare-const y Int)(declare-const z Int)"
            "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))(assert (> (* x x) 1000000))"
            "(check-sat)")
    assert second_solver.cvc5_answer(smt2, 0.05) == "unknown"


def test_close_ends_the_server_this_process_started() -> None:
    w = Worker(operator.__file__, "add")
    try:
        assert w.call((1, 2), seconds=30.0) == 3
        proc = w._proc
        assert proc is not None and w._owner == os.getpid()
    finally:
        w.close()
    assert proc.poll() is not None                  # killed and reaped, not left running
    assert proc.stdin is not None and proc.stdin.closed
    assert proc.stdout is not None and proc.stdout.closed
    assert w._proc is None


def test_a_forked_copy_never_touches_the_parents_server() -> None:
    w = Worker(operator.__file__, "add")
    try:
        assert w.call((1, 2), seconds=30.0) == 3
        parent_server = w._proc
        # in a child of this process the object is a copy: close() there must leave the
        # parent's server running (simulated here by pretending to be another process)
        w._owner = os.getpid() + 1
        w.close()
        assert parent_server is not None and parent_server.poll() is None
        w._proc, w._owner = parent_server, os.getpid()
    finally:
        w.close()


def _sent(obj: object) -> object:
    """What the other end reads after ``_send(obj)`` (in this process)."""
    import io
    import pickle
    buffer = io.BytesIO()
    isolation._send(buffer, obj)
    raw = buffer.getvalue()
    (size,) = isolation._HEADER.unpack(raw[:isolation._HEADER.size])
    assert len(raw) == isolation._HEADER.size + size
    return pickle.loads(raw[isolation._HEADER.size:])


def test_an_unpicklable_exception_is_sent_as_its_text_in_this_process() -> None:
    class Local(Exception):
        pass

    status, exc = _sent(("error", Local("kept as text")))
    assert status == "error" and type(exc) is RuntimeError
    assert str(exc).endswith("Local: kept as text") and "\n" not in str(exc).strip()[-20:]
    noted = Local("first line")
    noted.add_note("second line")
    status, exc = _sent(("error", noted))
    assert str(exc).endswith("Local: first line\nsecond line")


def test_an_unpicklable_value_is_named_in_this_process() -> None:
    status, exc = _sent(("ok", lambda: 0))
    assert status == "error" and type(exc) is RuntimeError
    assert str(exc).startswith("the result could not be sent back: ")
    # a three-part reply is no error reply, whatever its first word
    status, exc = _sent(("error", lambda: 0, 3))
    assert str(exc).startswith("the result could not be sent back: ")


def test_a_read_past_its_deadline_says_so() -> None:
    r, w = os.pipe()
    try:
        with pytest.raises(HardLimitReached, match="^deadline$"):
            isolation._read_exactly(r, 1, time.monotonic() + 0.05)
        os.write(w, b"x" * 3)
        os.close(w)
        w = -1
        assert isolation._read_exactly(r, 3, None) == b"xxx"
        with pytest.raises(EOFError, match="^the other end closed the pipe$"):
            isolation._read_exactly(r, 1, None)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_a_server_that_dies_mid_call_is_reported(tmp_path) -> None:  # noqa: ANN001
    target = _module_file(tmp_path, "die.py", "import os\n\ndef die():\n    os._exit(3)\n")
    w = Worker(str(target), "die", memory_bytes=None)
    try:
        with pytest.raises(HardLimitReached, match=r"^the worker process ended without an "
                                                   r"answer \(out of memory\?\)$"):
            w.call((), seconds=30.0)
    finally:
        w.close()


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A fresh pipe ``(read end, write end)``; both ends are closed after the test."""
    ends = os.pipe()
    yield ends
    for fd in ends:
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_read_with_time_left_returns_the_bytes_at_once(pipe) -> None:  # noqa: ANN001
    r, w = pipe
    os.write(w, b"abc")
    # half a second left and the bytes are there: no deadline error
    assert isolation._read_exactly(r, 3, time.monotonic() + 0.5) == b"abc"


def test_a_reply_cut_short_meets_the_deadline(pipe) -> None:  # noqa: ANN001
    r, w = pipe
    os.write(w, isolation._HEADER.pack(10) + b"ab")      # 10 bytes announced, 2 sent
    with pytest.raises(HardLimitReached, match="^deadline$"):
        isolation._receive(r, time.monotonic() + 0.3)


def test_a_forked_copy_starts_its_own_server() -> None:
    w = Worker(operator.__file__, "add")
    try:
        assert w.call((1, 2), seconds=30.0) == 3
        parents = w._proc
        w._owner = os.getpid() + 1          # as seen from a forked child of the owner
        assert w.call((2, 2), seconds=30.0) == 4
        assert w._proc is not parents and w._owner == os.getpid()
        assert parents is not None and parents.poll() is None   # the owner's server lives on
    finally:
        w.close()
        if parents is not None:
            parents.kill()
            parents.wait()
