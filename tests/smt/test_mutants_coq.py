"""The Coq kernel's printer, statements and judge, tested by rule (issue 36's mutation survivors).

Each test states the rule it checks in its docstring. The judge's process plumbing
(:func:`attnio.smt.coqc.run_coqc`, :func:`~attnio.smt.coqc.coqc_version`, the time limit, the
memory limit, Ctrl-C) is run against tiny fake ``coqc`` executables (shell scripts that print
their arguments, the file they were given, or sleep), so every branch is reached in
milliseconds, without Coq; the messages a user reads are checked for their key content.
Every test has its planted false twin next to its assertion (the wrong input the rule must
reject). All randomness is seeded.
"""

from __future__ import annotations

import random
import re
import resource
import stat
import subprocess
import time
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

import attnio.smt.coq as coq
import attnio.smt.coq_statements as coq_statements
import attnio.smt.coqc as coqc
from attnio.exceptions import InvalidInputError, TranslationError
from attnio.smt.coq import CoqContext, coq_names, render_prop, render_statement, render_term, term
from attnio.smt.coq_statements import coq_chain, coq_statement, definedness, positive_in_domains
from attnio.smt.coqc import (
    ALLOWED_AXIOMS,
    COQC_MEMORY_BYTES,
    PREAMBLE,
    CoqRun,
    accepted,
    axioms_of,
    coq_document,
    coqc_binary,
    coqc_version,
    forbidden_words,
    run_coqc,
)

pytestmark = pytest.mark.trust

_X, _Y = sp.symbols("x y", real=True)
_OK = "Theorem t : 1 = 1.\nProof. reflexivity. Qed.\nPrint Assumptions t.\n"
_CLOSED = "Closed under the global context\n"


# ==============================================================================================
# fake coqc executables
# ==============================================================================================
def _script(folder: Path, name: str, body: str) -> str:
    """An executable ``#!/bin/sh`` script ``folder/name`` running ``body``; its path."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


#: A coqc that reports its arguments, folder and address-space limit, echoes the file it was
#: given, leaves a ``.vo`` beside it (as coqc does), writes to stderr and exits 3.
_ECHO = """echo "args:$*"
echo "cwd:$(pwd)"
echo "limit:$(ulimit -v)"
cat "$2"
: > "${2%.v}.vo"
echo "to stderr" >&2
exit 3
"""

#: A coqc that prints, starts a grandchild (a sleep in its own process group's background,
#: its pid written to the file named by $SLEEPER) and then sleeps: only a kill of the whole
#: process group stops both.
_SLOW = """echo started
echo warming up >&2
sleep 30 >/dev/null 2>&1 &
echo $! > "$SLEEPER"
sleep 30 >/dev/null 2>&1
"""


def _gone(pid: int) -> bool:
    """The process ``pid`` has ended (gone, or a zombie waiting for its parent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.01)
    return _gone(pid)


# ==============================================================================================
# smt/coqc.py — coqc_binary, coqc_version
# ==============================================================================================
def test_coqc_binary_is_attnio_coqc_if_set_else_coqc_on_path(tmp_path, monkeypatch) -> None:
    """``$ATTNIO_COQC`` wins when set (and is None when it names no executable: never a
    silent fall-back to PATH); without it, the ``coqc`` on PATH."""
    on_path = _script(tmp_path, "coqc", "exit 0\n")
    other = tmp_path / "other"
    other.mkdir()
    chosen = _script(other, "mycoqc", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ATTNIO_COQC", raising=False)
    assert coqc_binary() == on_path
    monkeypatch.setenv("ATTNIO_COQC", chosen)
    assert coqc_binary() == chosen
    monkeypatch.setenv("ATTNIO_COQC", str(tmp_path / "missing"))
    assert coqc_binary() is None                     # the twin: no fall-back to PATH's coqc
    monkeypatch.setenv("PATH", str(other))
    monkeypatch.delenv("ATTNIO_COQC")
    assert coqc_binary() is None                     # no coqc on PATH (mycoqc is not coqc)


def test_coqc_version_is_the_first_line_of_coqc_dash_dash_version(tmp_path, monkeypatch) -> None:
    """``coqc --version``'s first line, stripped, of the binary given (else of
    :func:`coqc_binary`'s); None for an empty answer, a missing binary, no coqc at all."""
    fake = _script(tmp_path, "fake", 'if [ "$1" = "--version" ]; then\n'
                   '  printf "  Fake Coq, version 0.1\\ncompiled with nothing\\n"\n'
                   'else echo "wrong arguments: $*"; fi\n')
    default = _script(tmp_path, "default", 'echo "Default Coq $1"\n')
    silent = _script(tmp_path, "silent", "exit 0\n")
    monkeypatch.setenv("ATTNIO_COQC", default)
    assert coqc_version(fake) == "Fake Coq, version 0.1"
    assert coqc_version() == "Default Coq --version"
    assert coqc_version(silent) is None
    assert coqc_version(str(tmp_path / "missing")) is None
    monkeypatch.setenv("ATTNIO_COQC", str(tmp_path / "missing"))
    assert coqc_version() is None


def test_coqc_version_waits_a_bounded_time(tmp_path, monkeypatch) -> None:
    """A ``coqc --version`` that hangs is not waited for: the call has a finite time limit
    (30 s) and a time-out reads as "no version" — a run that would outlast 30 s times out, one
    that ends within it answers."""
    fake = _script(tmp_path, "fake", "echo v\n")
    real = subprocess.run
    seen: list[object] = []

    def run(args, **kwargs):   # the time the fake 'takes': 30.5 s, then 29.5 s
        seen.append(kwargs.get("timeout"))
        timeout = kwargs.get("timeout")
        if timeout is None or timeout < takes:
            if timeout is None:
                raise AssertionError("coqc --version would be waited for forever")
            raise subprocess.TimeoutExpired(args, timeout)
        return real(args, **kwargs)

    monkeypatch.setattr(coqc.subprocess, "run", run)
    takes = 30.5
    assert coqc_version(fake) is None
    takes = 29.5
    assert coqc_version(fake) == "v"
    assert seen and all(t is not None for t in seen)


# ==============================================================================================
# smt/coqc.py — run_coqc
# ==============================================================================================
def test_run_coqc_compiles_a_copy_in_a_private_folder(tmp_path, monkeypatch) -> None:
    """``coqc -q NAME`` runs in a fresh ``attnio-coq-*`` folder holding the text as written
    (UTF-8 whatever the user's locale: here a Latin-1 one), its exit code, stdout and stderr come back as text, the seconds it took are a
    small positive number, and the folder (with coqc's ``.vo``) is gone afterwards; the
    caller's folder receives nothing."""
    fake = _script(tmp_path, "fake", _ECHO)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def latin1_locale_open(file, mode="r", *args, encoding=None, **kwargs):
        """open() as under a Latin-1 locale: the encoding when none is named."""
        return open(file, mode, *args, encoding=encoding or "latin-1", **kwargs)

    monkeypatch.setattr(coqc, "open", latin1_locale_open, raising=False)
    text = "(* √ ≤ – a UTF-8 comment *)\nTheorem t : True.\n"
    before = time.monotonic()
    run = run_coqc(text, timeout=10, name="Mine_2.v", binary=fake)
    took = time.monotonic() - before
    assert run.returncode == 3 and not run.timed_out
    assert isinstance(run.stdout, str) and isinstance(run.stderr, str)
    lines = run.stdout.splitlines()
    assert lines[0] == "args:-q Mine_2.v"
    folder = Path(lines[1].removeprefix("cwd:"))
    assert folder.name.startswith("attnio-coq-") and folder != work
    assert text in run.stdout
    assert run.stderr == "to stderr\n"
    assert 0 <= run.seconds <= took
    assert not folder.exists()                       # the private folder is removed
    assert list(work.iterdir()) == []                # nothing written where the caller is


def test_run_coqc_default_name_and_the_memory_limit(tmp_path, monkeypatch) -> None:
    """Without a name the file is ``attnio_check.v``; coqc runs under an address-space limit of
    :data:`COQC_MEMORY_BYTES` (4 GiB: a runaway tactic ends there, not in swap)."""
    monkeypatch.setenv("ATTNIO_COQC", _script(tmp_path, "fake", _ECHO))
    run = run_coqc("Check 1.", timeout=10)
    assert run.stdout.splitlines()[0] == "args:-q attnio_check.v"
    assert run.stdout.splitlines()[2] == f"limit:{COQC_MEMORY_BYTES // 1024}"
    assert COQC_MEMORY_BYTES == 4 * 1024 ** 3


def test_limit_memory_sets_rlimit_as_and_survives_a_refusal(monkeypatch) -> None:
    """``_limit_memory`` (run in coqc's child before exec) sets RLIMIT_AS, soft and hard, to
    :data:`COQC_MEMORY_BYTES`; a system that refuses (ValueError, OSError) is not an error.
    Called here with ``setrlimit`` recorded, so the test process keeps its own limits."""
    calls: list[tuple] = []
    monkeypatch.setattr(resource, "setrlimit", lambda *a: calls.append(a))
    coqc._limit_memory()
    assert calls == [(resource.RLIMIT_AS, (COQC_MEMORY_BYTES, COQC_MEMORY_BYTES))]
    for error in (ValueError("no"), OSError("no")):
        def refuse(*a, error=error):
            raise error
        monkeypatch.setattr(resource, "setrlimit", refuse)
        coqc._limit_memory()                         # no exception
    monkeypatch.setattr(resource, "setrlimit", lambda *a: (_ for _ in ()).throw(TypeError()))
    with pytest.raises(TypeError):                   # the twin: other errors are not hidden
        coqc._limit_memory()


def test_run_coqc_without_coqc_says_how_to_install_it(tmp_path, monkeypatch) -> None:
    """No binary given and none found: InvalidInputError naming the Debian package, the
    apt-get line and ``ATTNIO_COQC`` — not a crash; a binary given is used even then."""
    monkeypatch.setenv("ATTNIO_COQC", str(tmp_path / "missing"))
    with pytest.raises(InvalidInputError) as info:
        run_coqc("Check 1.", timeout=5)
    assert str(info.value) == ("coqc not found: install Coq (Debian package `coq`, "
                               "apt-get install coq) or set ATTNIO_COQC")
    fake = _script(tmp_path, "fake", "exit 0\n")
    assert run_coqc("Check 1.", timeout=5, binary=fake).returncode == 0


def test_run_coqc_file_name_must_be_a_coq_module_name(tmp_path) -> None:
    """``[A-Za-z][A-Za-z0-9_]*.v``: upper and lower case letters, digits and ``_`` after the
    first letter are accepted; anything else is a ValueError naming the file."""
    fake = _script(tmp_path, "fake", "exit 0\n")
    for good in ("A.v", "z.v", "Ab_9z.v", "aBC.v", "Z0_.v"):
        assert run_coqc("", timeout=5, name=good, binary=fake).returncode == 0, good
    for bad in ("_a.v", "9a.v", "a.V", "a", "a.v.v", "a b.v", ".v", "a-b.v", "ä.v"):
        with pytest.raises(ValueError) as info:
            run_coqc("", timeout=5, name=bad, binary=fake)
        assert str(info.value) == f"file name {bad!r} is not a Coq module name"


def test_run_coqc_time_limit_kills_the_whole_process_group(tmp_path, monkeypatch) -> None:
    """Past its time limit coqc is killed with everything it started (its process group),
    comes back timed out (``returncode`` None) with the output it had written, in about the
    time limit, and is not accepted."""
    fake = _script(tmp_path, "fake", _SLOW)
    sleeper = tmp_path / "sleeper"
    monkeypatch.setenv("SLEEPER", str(sleeper))
    before = time.monotonic()
    run = run_coqc("Check 1.", timeout=0.4, binary=fake)
    took = time.monotonic() - before
    assert run.timed_out and run.returncode is None
    assert run.stdout == "started\n" and run.stderr == "warming up\n"
    assert 0.3 <= run.seconds <= took < 10
    assert _wait_gone(int(sleeper.read_text()))      # the grandchild too
    assert not accepted("Check 1.", run, ["t"])[0]


def test_ctrl_c_kills_the_process_group_and_goes_on(tmp_path, monkeypatch) -> None:
    """A KeyboardInterrupt while coqc runs kills coqc and what it started, reaps it, and
    propagates (never swallowed, never turned into a result)."""
    fake = _script(tmp_path, "fake", _SLOW)
    sleeper = tmp_path / "sleeper"
    monkeypatch.setenv("SLEEPER", str(sleeper))
    started: list[subprocess.Popen] = []
    original = subprocess.Popen.communicate

    def interrupted(self, *a, **kw):
        started.append(self)
        if len(started) == 1:
            end = time.monotonic() + 3
            while not (sleeper.exists() and sleeper.read_text().strip()) and \
                    time.monotonic() < end:
                time.sleep(0.01)
            raise KeyboardInterrupt
        return original(self, *a, **kw)

    monkeypatch.setattr(subprocess.Popen, "communicate", interrupted)
    before = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_coqc("Check 1.", timeout=60, binary=fake)
    assert time.monotonic() - before < 10
    assert started[0].poll() is not None             # killed and reaped
    assert _wait_gone(int(sleeper.read_text()))


# ==============================================================================================
# smt/coqc.py — accepted and its messages
# ==============================================================================================
def _why(text: str, run: CoqRun, names=("t",)) -> tuple[bool, str]:
    return accepted(text, run, list(names))


def test_accepted_messages_name_what_was_wrong() -> None:
    """Each refusal says why, with the detail a user needs: the time limit in whole seconds,
    the forbidden words found, the theorem without a report, the axioms outside the reals'."""
    ok_text = PREAMBLE + _OK
    ok, why = _why(ok_text, CoqRun(None, "", "", 12.4))
    assert not ok and why == "coqc did not finish within its time limit (12 s)"
    ok, why = _why(PREAMBLE + "Axiom a : False.\n(* Parameter *) Admitted.\n" + _OK,
                   CoqRun(0, _CLOSED, "", 1.0))
    assert not ok and why == "the file contains Admitted, Axiom: a proof must assume nothing"
    ok, why = _why(ok_text, CoqRun(0, _CLOSED, "", 1.0), ["t", "u"])
    assert not ok and why == "no Print Assumptions report for u"
    out = "Axioms:\nZ.bad : False\nClassicalDedekindReals.sig_not_dec : P\nA.worse : False\n"
    ok, why = _why(ok_text, CoqRun(0, out, "", 1.0))
    assert not ok and why == "t rests on A.worse, Z.bad, not a standard library axiom"


def test_accepted_message_lists_the_theorems_and_every_axiom_used() -> None:
    """An accepted run names every theorem and the union of the axioms they rest on, sorted
    (``none`` when each is closed under the global context)."""
    a, b, c = sorted(ALLOWED_AXIOMS)
    text = PREAMBLE + _OK
    out = f"Axioms:\n{b} : P\n{a} : Q\nAxioms:\n{c} : R\n{b} : P\n{_CLOSED}"
    ok, why = _why(text, CoqRun(0, out, "", 1.0), ["t", "u", "w"])
    assert ok and why == f"coqc accepted t, u, w (axioms: {a}, {b}, {c})"
    ok, why = _why(text, CoqRun(0, f"Axioms:\n{b} : P\nAxioms:\n{c} : R\n", "", 1.0),
                   ["t", "u"])
    assert ok and why == f"coqc accepted t, u (axioms: {b}, {c})"
    ok, why = _why(text, CoqRun(0, _CLOSED * 2, "", 1.0), ["t", "u"])
    assert ok and why == "coqc accepted t, u (axioms: none)"


def test_rejected_proof_message_is_coqs_first_error_and_where() -> None:
    """A nonzero exit: ``coqc rejected the proof: `` and coqc's first ``Error`` line (else its
    last line, else the exit code), with the ``File`` line in parentheses when there is one,
    read from stderr (stdout only when stderr is empty), every line stripped, at most 200
    characters (a longer one cut to 199 and ``…``)."""
    def why(code, stdout, stderr):
        ok, text = _why(PREAMBLE + _OK, CoqRun(code, stdout, stderr, 1.0))
        assert not ok
        assert text.startswith("coqc rejected the proof: ")
        return text.removeprefix("coqc rejected the proof: ")

    err = ('  File "./a.v", line 3, characters 0-5:  \nnoise\n  Error: The term x has type.\n'
           "Error: second\nlast\n")
    assert why(1, "Axioms:\nfrom stdout\n", err) == \
        'Error: The term x has type. (File "./a.v", line 3, characters 0-5:)'
    assert why(1, "first\n\n  second  \nthird\n", "") == "third"   # stdout when stderr is empty
    assert why(2, "ERROR x\nerror y\nlast one\n", "") == "last one"  # only 'Error' counts
    assert why(2, "", "  \nfile x\nFILE y\nError: z\n") == "Error: z"  # only 'File ' counts
    assert why(137, "", "") == "exit code 137"
    assert why(1, "", "only line\n") == "only line"
    for n, expected in ((200, None), (201, 200), (260, 200)):
        line = "Error: " + "x" * (n - 7)
        got = why(1, "", line + "\n")
        if expected is None:
            assert got == line
        else:
            assert len(got) == expected and got == line[:199] + "…"


def test_axioms_of_reads_reports_among_other_output() -> None:
    """Blank lines, lines before the first report, and a line that is not an axiom (which ends
    a report) do not shift the reports: each theorem gets its own, in order."""
    out = ("Warning: something\n\nAxioms:\nA : T\n\nB\n  : long type\nnot an axiom here\n"
           "C : T\nAxioms:\nD : T\n" + _CLOSED + "\n")
    assert axioms_of(out, ["t", "u", "w", "v"]) == {
        "t": frozenset({"A", "B"}), "u": frozenset({"D"}), "w": frozenset(), "v": None}
    assert axioms_of("x\n", ["t"]) == {"t": None}    # the twin: no report at all


# ==============================================================================================
# smt/coqc.py — forbidden words and comments
# ==============================================================================================
def _visible_words(text: str) -> set[str]:
    """Independent reference: the words outside (nested) comments, by a recursive scan."""
    out, depth, i = [], 0, 0
    while i < len(text):
        two = text[i:i + 2]
        if two == "(*":
            depth, i = depth + 1, i + 2
        elif two == "*)" and depth > 0:
            depth, i = depth - 1, i + 2
        else:
            if depth == 0:
                out.append(text[i])
            i += 1
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", "".join(out)))


def test_forbidden_words_agree_with_a_reference_scan_on_random_texts() -> None:
    """Random texts of words, comment brackets (nested, unbalanced, adjacent to words) and
    punctuation: the forbidden words found are exactly those a reference scan sees outside
    comments."""
    rng = random.Random(3650)
    pieces = ["Axiom", "Admitted", "admit", "Set", "Lemma", "x", "(*", "*)", "(**)", "*", "(",
              ")", " ", ".", "\n", "Fail", "Qed", "(*)", "a1"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        expected = sorted(w for w in coqc.FORBIDDEN if w in _visible_words(text))
        assert forbidden_words(text) == expected, text


def test_comment_brackets_are_read_exactly() -> None:
    """A word right after a comment closes, right before one opens, after an empty comment
    ``(**)``, and the remainder of an outer comment after a nested one: in, out, in, out."""
    assert forbidden_words("(* c *)Axiom a.") == ["Axiom"]
    assert forbidden_words("Axiom(* c *)") == ["Axiom"]
    assert forbidden_words("(**)Axiom a.") == ["Axiom"]
    assert forbidden_words("(* (* inner *) Admitted *) Lemma l.") == []
    assert forbidden_words("(* a *) (* b *) Fail") == ["Fail"]
    assert forbidden_words("Admitted") == ["Admitted"]
    assert forbidden_words("*) Axiom") == ["Axiom"]   # a stray closer opens nothing


def test_only_a_preamble_at_the_start_is_exempt() -> None:
    """The preamble's own ``Require Import`` is exempt only when nothing but comments comes
    before it — however little follows it."""
    assert forbidden_words(PREAMBLE) == []
    assert forbidden_words(PREAMBLE + "(* *)") == []
    assert forbidden_words(PREAMBLE + "x") == []
    assert forbidden_words("(* title *)\n" + PREAMBLE + "Qed.") == []
    assert forbidden_words("Qed.\n" + PREAMBLE) == ["Import", "Require"]
    assert forbidden_words(" x " + PREAMBLE) == ["Import", "Require"]


# ==============================================================================================
# smt/coqc.py — coq_document
# ==============================================================================================
def _statements(k: int):
    return [coq_statement(f"s{i}", sp.Ge(_X + i, _X), (), {_X: "real"}) for i in range(k)]


def test_coq_document_keywords_proofs_and_reports() -> None:
    """Every statement but the last is a ``Lemma``, the last a ``Theorem`` (by default) or the
    keyword given; each proof is kept as written but for trailing blank space; the parts are
    separated by one blank line; one report per statement, in order."""
    for k in (1, 2, 3, 4):
        doc = coq_document(_statements(k), [f"  lra.{i}\n\n" for i in range(k)])
        assert doc.startswith(PREAMBLE + "\n")
        for i in range(k):
            kw = "Theorem" if i == k - 1 else "Lemma"
            block = f"{render_statement(_statements(k)[i], kw)}\nProof.\n  lra.{i}\nQed.\n"
            assert f"\n{block}\n" in doc, (k, i)
        assert doc.endswith("".join(f"Print Assumptions s{i}.\n" for i in range(k)))
        assert doc.count("Theorem ") == 1 and doc.count("\nLemma s") == k - 1
    doc = coq_document(_statements(2), ["lra.", "lra."], keyword="Example")
    assert "\nExample s1 :" in doc and "\nLemma s0 :" in doc and "Theorem" not in doc[len(PREAMBLE):]


def test_coq_document_title_and_mismatch() -> None:
    """A title's non-blank lines become comments before the preamble, each on its line; no
    title, nothing before it; one proof per statement or a ValueError saying so."""
    doc = coq_document(_statements(1), ["lra."], title="first\n\n second ")
    assert doc.startswith("(* first *)\n(*  second  *)\n\n" + PREAMBLE)
    assert coq_document(_statements(1), ["lra."]).startswith(PREAMBLE)
    for proofs in ([], ["lra.", "lra."]):
        with pytest.raises(ValueError, match="^one proof per statement$"):
            coq_document(_statements(1), proofs)


# ==============================================================================================
# smt/coq.py — names, messages, powers, the default keyword
# ==============================================================================================
def _sanitised(name: str) -> str:
    """Independent reference: ``v_`` and the name with every character that is not an ASCII
    letter, digit or ``_`` replaced by ``_``."""
    return "v_" + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)


def test_coq_names_sanitise_rename_reserved_and_keep_names_apart() -> None:
    """A name that is an identifier is kept (a reserved one gets ``_v``); any other is
    ``v_`` and its letters, digits and ``_`` with every other character ``_``; names that
    meet get ``_1``, ``_2``, … in the order of the symbols' names."""
    odd = ["Ab.c", "x'", "1Zq", "Ω", "A-B'9", "q r"]
    names = coq_names(sp.Symbol(s) for s in odd)
    assert {s.name: v for s, v in names.items()} == {s: _sanitised(s) for s in odd}
    clash = coq_names(sp.Symbol(s) for s in ["a.b", "a,b", "a:b", "R", "R_v", "sqrt", "Rx"])
    assert {s.name: v for s, v in clash.items()} == {
        "a,b": "v_a_b", "a.b": "v_a_b_1", "a:b": "v_a_b_2", "R": "R_v", "R_v": "R_v_1",
        "sqrt": "sqrt_v", "Rx": "Rx"}
    assert len(set(clash.values())) == len(clash)


def test_outside_fragment_names_the_construct_and_a_short_term() -> None:
    """The message of a construct outside the fragment: ``outside the Coq fragment: WHY in
    TERM`` with the term on one line, cut to 80 characters (79 and ``…``) when longer."""
    long_term = sp.asin(sum(sp.Symbol(f"v{i}") for i in range(40)))
    shown = " ".join(str(long_term).split())
    error = coq.outside_fragment(long_term, "why")
    assert isinstance(error, TranslationError)
    assert str(error) == f"outside the Coq fragment: why in {shown[:79]}…"
    assert len(str(error).split(" in ", 1)[1]) == 80
    assert str(coq.outside_fragment(sp.asin(_X), "why")) == \
        "outside the Coq fragment: why in asin(x)"
    exactly = sp.Symbol("a" * 80)
    assert str(coq.outside_fragment(exactly, "w")).endswith(" in " + "a" * 80)
    assert str(coq.outside_fragment(sp.Symbol("a" * 81), "w")).endswith(" in " + "a" * 79 + "…")


def test_a_zeroth_power_prints_as_a_power_equal_to_one() -> None:
    """An unevaluated ``b**0`` (as ``attnio prove`` parses ``x**0``) prints as ``b ^ 0`` —
    1 in Coq as in sympy, ``0**0`` included — needing no definedness condition; it used to
    recurse without end. Its twin ``b**-1`` still goes below the line."""
    ctx = CoqContext({_X: "x"}, {_X: "real"})
    assert render_term(term(sp.Pow(_X, 0, evaluate=False), ctx)) == "x ^ 0"
    assert render_term(term(sp.Pow(_X - 1, 0, evaluate=False), ctx)) == "(x - 1) ^ 0"
    assert render_term(term(sp.Pow(_X, -1, evaluate=False), ctx)) == "1 / x"
    assert render_term(term(sp.Pow(_X, 2, evaluate=False), ctx)) == "x ^ 2"
    assert definedness(sp.Ge(sp.Pow(_X, 0, evaluate=False), 1, evaluate=False),
                       {_X: "real"}) == ("true",)


def test_render_statement_default_keyword_is_theorem() -> None:
    """Without a keyword a statement is printed as a ``Theorem``; with one, under it."""
    st = coq_statement("t", sp.Ge(_X ** 2, 0, evaluate=False), (), {_X: "real"})
    assert render_statement(st).startswith("Theorem t :\n")
    assert render_statement(st, "Lemma").startswith("Lemma t :\n")


# ==============================================================================================
# smt/coq_statements.py — definedness conditions, messages, chains
# ==============================================================================================
def test_a_condition_the_domains_imply_is_dropped_and_no_other() -> None:
    """``1/e``, ``e**(-k)``, ``sqrt e``, ``e**(-1/2)``, ``log e``, ``e**y``: the condition
    (``e <> 0``, ``0 <= e``, ``0 < e``) is left out exactly when the declared domains imply it
    (a positive x: all; a nonnegative x: only ``0 <= x``), kept otherwise."""
    y = sp.Symbol("y", positive=True)
    cases = {                    # term: (condition printed, the strength it needs)
        1 / _X: ("x <> 0", "ne"), _X ** -2: ("x <> 0", "ne"), sp.sqrt(_X): ("0 <= x", "ge"),
        _X ** sp.Rational(3, 2): ("0 <= x", "ge"), _X ** sp.Rational(-1, 2): ("0 < x", "gt"),
        sp.log(_X): ("0 < x", "gt"), _X ** y: ("0 < x", "gt")}
    implied = {"positive": {"ne", "ge", "gt"}, "nonnegative": {"ge"}, "real": set()}
    for domain, strengths in implied.items():
        for e, (condition, needs) in cases.items():
            got = render_prop(definedness(sp.Ge(e, 0, evaluate=False), {_X: domain,
                                                                         y: "positive"}))
            assert got == ("True" if needs in strengths else condition), (domain, e, got)
    n = sp.Symbol("n", integer=True)
    assert definedness(sp.Ge(1 / n, 0, evaluate=False), {n: "positive-integer"}) == ("true",)
    assert render_prop(definedness(sp.Ge(1 / n, 0, evaluate=False),
                                   {n: "nonnegative-integer"})) == "IZR n <> 0"
    assert render_prop(definedness(sp.Ge(1 / (_X - 1), 0, evaluate=False),
                                   {_X: "positive"})) == "x - 1 <> 0"
    assert positive_in_domains(_X, {_X: "nonnegative"}) is False      # strict by default
    assert positive_in_domains(_X, {_X: "nonnegative"}, strict=False) is True


def test_no_definedness_rule_is_named_in_the_error() -> None:
    """A function or a proposition without a definedness rule is outside the fragment, and
    the message names its kind and the term."""
    with pytest.raises(TranslationError, match=r"^outside the Coq fragment: no definedness "
                                               r"rule for asin in asin\(x\)$"):
        definedness(sp.Ge(sp.asin(_X), 0), {_X: "real"})
    with pytest.raises(TranslationError, match="no definedness rule for Symbol in b$"):
        definedness(sp.Symbol("b"), {})


def _roles(st) -> list[str]:
    return [role for role, _ in st.hypotheses]


def test_chain_definedness_is_the_whole_chains_and_comes_after_the_domains() -> None:
    """Every lemma of a chain but the composition has the definedness of the WHOLE chain
    (premises, steps, conclusion — two terms or more) as one hypothesis right after its
    domain facts; the composition has none."""
    x, y = sp.symbols("x y", positive=True)
    # two terms only: the conclusion (defined everywhere) and one step (log(x - 1))
    steps = [("a", sp.Gt(sp.log(x - 1) + 1, sp.log(x - 1)), [])]
    out = coq_chain("two", [], steps, sp.Gt(x + 1, x))
    expected = render_prop(definedness(sp.And(sp.Gt(x + 1, x), steps[0][1]), {x: "positive"}))
    assert expected == "0 < x - 1"
    for st in (out[0], out[-1]):
        assert _roles(st)[:2] == ["domain", "defined"], st
        assert render_prop(st.hypotheses[1][1]) == expected
    # more terms, two domain facts
    prem = [sp.Gt(x, 2)]
    steps = [("a", sp.Gt(sp.log(x - 1), 0), [sp.Gt(x, 2)]),
             ("b", sp.Gt(sp.log(x - 1) + y, 0), [sp.Gt(sp.log(x - 1), 0), sp.Gt(y, 0)])]
    out = coq_chain("many", prem, steps, sp.Gt(sp.log(x - 1) + y, 0))
    for st in out[:-2] + out[-1:]:
        roles = _roles(st)
        assert roles[:3] == ["domain", "domain", "defined"], (st.name, roles)
        assert roles.count("defined") == 1 and "domain" not in roles[3:]
    assert "defined" not in _roles(out[-2]) and "domain" not in _roles(out[-2])


def test_chain_composition_states_each_link_as_written() -> None:
    """The composition's hypotheses are ``F_i = (H_i minus the premises) -> C_i``, one per
    step, in order, printed as written (a step whose hypothesis is its conclusion stays
    ``A -> A``, never simplified away)."""
    x = sp.Symbol("x", real=True)
    steps = [("a", sp.Gt(x, 1), [sp.Gt(x, 1)]),
             ("b", sp.Gt(x, 0), [sp.Gt(x, 3), sp.Gt(x, 1), sp.Lt(x, 5)]),
             ("c", sp.Ge(x, 0), [sp.Lt(x, 1)])]
    out = coq_chain("links", [sp.Gt(x, 3)], steps, sp.Ge(x, 0))
    comp = out[-2]
    assert comp.name == "links_composition"
    assert [render_prop(p) for _, p in comp.hypotheses] == [
        "x > 1 -> x > 1", "x > 1 -> x < 5 -> x > 0", "x < 1 -> x >= 0"]


def test_chain_holding_a_relation_and_its_negation_keeps_its_definedness() -> None:
    """A chain whose terms include ``r`` and ``~r`` (a premise and a conclusion that
    contradict) is still claimed only where every term is defined: ``log x`` needs ``0 < x``
    (sympy folds ``And(r, ~r)`` into False, which once dropped every condition)."""
    x = sp.Symbol("x", real=True)
    for prem, concl in ((sp.Gt(sp.log(x), 1), sp.Le(sp.log(x), 1)),
                        (sp.Lt(sp.sqrt(x), 2), sp.Ge(sp.sqrt(x), 2))):
        claim = coq_chain("c", [prem], [], concl)[-1]
        assert [r for r, _ in claim.hypotheses][:1] == ["defined"], claim
        assert render_prop(claim.hypotheses[0][1]) in ("0 < x", "0 <= x")
    # the twin: a chain defined everywhere has no definedness hypothesis
    claim = coq_chain("d", [sp.Gt(x, 1)], [], sp.Le(x, 1))[-1]
    assert "defined" not in [r for r, _ in claim.hypotheses]


def test_unevaluated_terms_print_as_written() -> None:
    """The printer evaluates nothing: ``2**(-3)`` unevaluated is ``1 / 2 ^ 3`` (alone and as a
    factor), ``(x + y)**(-2)`` a power below the line, and a relation holding nested
    ``Piecewise`` — decidable once lifted — is lifted branch by branch, not decided."""
    ctx = CoqContext({_X: "x", _Y: "y"}, {_X: "real", _Y: "real"})
    assert render_term(term(sp.Pow(2, -3, evaluate=False), ctx)) == "1 / 2 ^ 3"
    assert render_term(term(sp.Mul(_X, sp.Pow(2, -3, evaluate=False), evaluate=False), ctx)) \
        == "x / 2 ^ 3"
    assert render_term(term(sp.Mul(_X, sp.Pow(_X + _Y, -2, evaluate=False), evaluate=False),
                            ctx)) == "x / (x + y) ^ 2"
    inner = sp.Piecewise((1, _Y > 0), (2, True))
    lifted = sp.Ge(sp.Piecewise((inner, _X > 0), (3, True)), 0, evaluate=False)
    assert render_prop(coq.prop(lifted, ctx)) == \
        "(x > 0 -> (y > 0 -> 1 >= 0) /\\ (~ y > 0 -> 2 >= 0)) /\\ (~ x > 0 -> 3 >= 0)"


def test_terms_print_with_exactly_the_parentheses_coqs_levels_need() -> None:
    """Coq's levels: ``^`` 30 (right-associative), unary ``-`` 35, ``*`` ``/`` 40 and ``+``
    ``-`` 50 (left-associative), application tightest. A left operand of the same level needs
    no parentheses, a right one does; a lower-level operand always does; a negative number
    prints in its own parentheses; a function argument is parenthesised unless atomic."""
    a, b, c = ("var", "a"), ("var", "b"), ("var", "c")
    F = Fraction
    table = [
        (("sub", ("sub", a, b), c), "a - b - c"), (("sub", a, ("sub", b, c)), "a - (b - c)"),
        (("add", (("add", (a, b)), c)), "a + b + c"), (("add", (a, ("add", (b, c)))), "a + (b + c)"),
        (("mul", (("mul", (a, b)), c)), "a * b * c"), (("mul", (a, ("mul", (b, c)))), "a * (b * c)"),
        (("div", ("mul", (a, b)), c), "a * b / c"), (("div", a, ("mul", (b, c))), "a / (b * c)"),
        (("div", ("div", a, b), c), "a / b / c"), (("div", a, ("div", b, c)), "a / (b / c)"),
        (("mul", (("add", (a, b)), c)), "(a + b) * c"), (("neg", ("add", (a, b))), "- (a + b)"),
        (("pow", ("neg", a), 2), "(- a) ^ 2"), (("neg", ("pow", a, 2)), "- a ^ 2"),
        (("pow", ("pow", a, 2), 3), "(a ^ 2) ^ 3"), (("pow", ("mul", (a, b)), 2), "(a * b) ^ 2"),
        (("neg", ("neg", a)), "- (- a)"), (("add", (a, ("neg", b))), "a + - b"),
        (("sub", ("neg", a), ("neg", b)), "- a - - b"), (("mul", (("neg", a), ("neg", b))), "- a * - b"),
        (("pow", ("num", F(-2)), 2), "(-2) ^ 2"), (("add", (("num", F(-2)), ("num", F(1, 2)))),
                                                  "(-2) + (1 / 2)"),
        (("neg", ("num", F(-3))), "- (-3)"), (("mul", (("num", F(0)), a)), "0 * a"),
        (("pow", ("sqrt", a), 2), "sqrt a ^ 2"), (("fn", "exp", ("add", (a, b))), "exp (a + b)"),
        (("fn", "ln", ("num", F(-1, 2))), "ln (-1 / 2)"), (("sqrt", ("fn", "exp", a)), "sqrt (exp a)"),
        (("min", a, ("neg", b)), "Rmin a (- b)"), (("max", ("pi",), ("atom", "s")), "Rmax PI s"),
        (("max", ("atom", "f x"), a), "Rmax (f x) a"),
        (("rpower", a, ("num", F(1, 3))), "Rpower a (1 / 3)"),
        (("floor", ("div", a, b)), "IZR (Int_part (a / b))"), (("izr", ("zvar", "n")), "IZR n"),
        (("izr", ("add", (("zvar", "n"), ("znum", 1)))), "IZR (n + 1)"),
        (("izr", ("znum", -2)), "IZR (-2)"),
        (("add", (("var", "num"), ("var", "znum"), ("num", F(-1)))), "num + znum + (-1)")]
    for t, text in table:
        assert render_term(t) == text, (t, render_term(t))
    with pytest.raises(ValueError):
        render_term(("nonsense", a))                 # the twin: an unknown term is refused


def test_declared_domains_win_over_the_symbols_own_flags() -> None:
    """A domain given for a symbol is its domain, whatever sympy assumptions it carries (a
    ``positive`` symbol declared ``real`` gets no ``0 < x`` fact, and ``1/x`` keeps its
    ``x <> 0``); a symbol not given takes its domain from its assumptions; a symbol with
    neither is bad input."""
    xp, yp = sp.Symbol("x", positive=True), sp.Symbol("y", positive=True)
    st = coq_statement("t", sp.Ge(1 / xp + yp, 0, evaluate=False), (), {xp: "real"})
    assert dict(st.domains) == {xp: "real", yp: "positive"}
    assert [render_prop(p) for _, p in st.hypotheses] == ["0 < y", "x <> 0"]
    st = coq_statement("t", sp.Ge(1 / xp + yp, 0, evaluate=False), (), {"x": "real",
                                                                          "y": "real"})
    assert dict(st.domains) == {xp: "real", yp: "real"}            # given by name
    st = coq_statement("t", sp.Ge(1 / xp + yp, 0, evaluate=False))
    assert dict(st.domains) == {xp: "positive", yp: "positive"}    # from the flags alone
    assert [r for r, _ in st.hypotheses] == ["domain", "domain"]
    assert render_prop(definedness(sp.Ge(1 / xp, 0, evaluate=False), {xp: "real"})) == "x <> 0"
    with pytest.raises(InvalidInputError):
        coq_statement("t", sp.Ge(sp.Symbol("z"), 0, evaluate=False))


def test_positive_in_domains_keeps_a_condition_it_cannot_decide() -> None:
    """A term sympy cannot substitute into is not known positive: the condition is kept."""
    class Opaque:
        free_symbols = frozenset()

        def xreplace(self, mapping):
            raise TypeError("no")

    assert positive_in_domains(Opaque(), {_X: "positive"}) is False
    assert positive_in_domains(Opaque(), {_X: "positive"}, strict=False) is False
    assert positive_in_domains(_X + 1, {_X: "positive"}) is True      # the twin


def test_theorem_names_are_coq_identifiers() -> None:
    """A theorem's name: every character outside ``[A-Za-z0-9_]`` becomes ``_``, and a name
    not starting with a letter gets ``t_`` in front."""
    y = sp.Symbol("y", positive=True)
    for given, expected in [("amgm", "amgm"), ("A1b", "A1b"), ("a1", "a1"), ("x", "x"),
                            ("1abc", "t_1abc"), ("_x", "t__x"), ("my thm-2", "my_thm_2"),
                            ("Ω", "t__"), ("a.B", "a_B")]:
        assert coq_statement(given, sp.Ge(y, 0, evaluate=False)).name == expected, given


def test_constants_functions_and_nested_sums_print_as_coq_reads_them() -> None:
    """``E`` is ``exp 1``, ``pi`` is ``PI``, ``ceiling a`` is ``- IZR (Int_part (- a))``, a
    ``Min`` of three is nested ``Rmin``; a sum nested in a sum (unevaluated, either side, in R
    and in Z) prints flat — a difference inside stays parenthesised."""
    x, y, z = sp.symbols("x y z", real=True)
    n, m, k = sp.symbols("n m k", integer=True)
    ctx = CoqContext({x: "x", y: "y", z: "z", n: "n", m: "m", k: "k"},
                     {x: "real", y: "real", z: "real", n: "integer", m: "integer",
                      k: "integer"})
    show = lambda e: render_term(term(e, ctx))   # noqa: E731
    assert show(sp.E) == "exp 1" and show(sp.E * x) == "exp 1 * x"
    assert show(sp.pi * x) == "PI * x"
    assert show(sp.ceiling(x / 2)) == "- IZR (Int_part (- (x / 2)))"
    assert show(sp.floor(x)) == "IZR (Int_part x)"
    assert show(sp.Min(x, y, z)) == "Rmin (Rmin x y) z"
    assert show(sp.Max(x, y, z)) == "Rmax (Rmax x y) z"
    assert show(sp.Add(x, sp.Add(y, z, evaluate=False), evaluate=False)) == "x + y + z"
    assert show(sp.Add(sp.Add(y, z, evaluate=False), x, evaluate=False)) == "x + y + z"
    assert show(sp.Add(x, sp.Add(y, -z, evaluate=False), evaluate=False)) == "x + (y - z)"
    assert render_prop(coq.prop(sp.Le(sp.Add(n, sp.Add(m, k, evaluate=False), evaluate=False),
                                      0, evaluate=False), ctx)) == "(n + k + m <= 0)%Z"


def test_terms_outside_the_fragment_are_named() -> None:
    """A term outside the fragment is a TranslationError naming its kind and the term; a
    ``Piecewise`` outside a relation says so; a symbol without a domain is bad input naming
    the symbol."""
    ctx = CoqContext({_X: "x", _Y: "y"}, {_X: "real", _Y: "real"})
    with pytest.raises(TranslationError, match=r"^outside the Coq fragment: asin in asin\(x\)$"):
        term(sp.asin(_X), ctx)
    with pytest.raises(TranslationError, match=r"^outside the Coq fragment: a Piecewise "
                                               r"outside a relation in Piecewise\(\(x, x > 0\)"):
        term(sp.Piecewise((_X, _X > 0), (_Y, True)), ctx)
    with pytest.raises(InvalidInputError, match="^symbol w has no declared domain$"):
        term(sp.Symbol("w"), ctx)


def test_products_and_powers_print_numerator_over_denominator() -> None:
    """A product prints as its numerator (the coefficient's numerator first) over its
    denominator (the coefficient's denominator, then the factors with a negative exponent),
    a negative coefficient as a negation of the whole, with no factor ``1``, no ``^ 1`` and no
    one-factor product in parentheses; roots of index 2 as powers of ``sqrt``, other roots of a
    positive symbol as ``Rpower``; every other root or exponent is refused by name."""
    x, y = sp.symbols("x y", real=True)
    p = sp.Symbol("p", positive=True)
    ctx = CoqContext({x: "x", y: "y", p: "p"}, {x: "real", y: "real", p: "positive"})
    table = [(-x, "- x"), (-x * y, "- (x * y)"), (x * sp.sqrt(y), "x * sqrt y"),
             (sp.Mul(x, sp.Pow(y, 0, evaluate=False), evaluate=False), "x * y ^ 0"),
             (x / y, "x / y"), (x / y ** 2, "x / y ^ 2"), (1 / (2 * y), "1 / (2 * y)"),
             (x / (2 * y), "x / (2 * y)"), (3 * x / 2, "3 * x / 2"), (2 * x, "2 * x"),
             (-3 * x / (2 * y), "- (3 * x / (2 * y))"), (-x / 2, "- (x / 2)"),
             (x * y / (p * y ** 3), "x / (y ^ 2 * p)"), (p ** sp.Rational(2, 3), "Rpower p (2 / 3)"),
             (p ** sp.Rational(-1, 3), "Rpower p (-1 / 3)"), (x ** sp.Rational(3, 2), "sqrt x ^ 3"),
             (x ** sp.Rational(-5, 2), "1 / sqrt x ^ 5"), (x ** sp.Rational(-1, 2), "1 / sqrt x"),
             (sp.sqrt(x), "sqrt x"), (p ** y, "Rpower p y"), (x ** -3, "1 / x ^ 3")]
    for e, text in table:
        assert render_term(term(e, ctx)) == text, (e, render_term(term(e, ctx)))
    root = ("a root of index 3 of a base not declared positive (Coq's Rpower is exp(y ln x), "
            "attnio's root only for x > 0)")
    for bad, why in [(x ** sp.Rational(1, 3), root), ((p + 1) ** sp.Rational(1, 3), root),
                     (p ** sp.pi, "the exponent pi"), (x ** sp.sqrt(2), "the exponent sqrt(2)")]:
        with pytest.raises(TranslationError) as info:
            term(bad, ctx)
        assert str(info.value) == f"outside the Coq fragment: {why} in {bad}", str(info.value)


def test_connectives_and_relations_print_as_coq_reads_them() -> None:
    """``Xor`` is the or of the two exclusive ands (folded left), ``Equivalent`` the chain of
    ``<->``, ``Implies`` right-associative, ``~`` binding tighter than ``/\\`` than ``\\/``;
    ``True``/``False`` as Coq's. A relation between integer polynomials (one side at least
    with a symbol, powers up to 12 written as products) is printed in ``Z`` with ``>=``/``>``
    turned around; anything else — a power 13 or 0, a half, no symbol — in ``R``."""
    x, y, z = sp.symbols("x y z", real=True)
    n, m = sp.symbols("n m", integer=True)
    ctx = CoqContext({x: "x", y: "y", z: "z", n: "n", m: "m"},
                     {x: "real", y: "real", z: "real", n: "integer", m: "integer"})
    a, b, c = x > 0, y > 0, z > 0
    table = [
        (sp.Xor(a, b), "x > 0 /\\ ~ y > 0 \\/ ~ x > 0 /\\ y > 0"),
        (sp.Xor(a, b, c), "(x > 0 /\\ ~ y > 0 \\/ ~ x > 0 /\\ y > 0) /\\ ~ z > 0 \\/ "
                          "~ (x > 0 /\\ ~ y > 0 \\/ ~ x > 0 /\\ y > 0) /\\ z > 0"),
        (sp.Equivalent(a, b), "x > 0 <-> y > 0"),
        (sp.Equivalent(a, b, c), "(x > 0 <-> y > 0) /\\ (y > 0 <-> z > 0)"),
        (sp.Not(sp.Not(a, evaluate=False), evaluate=False), "~ ~ x > 0"),
        (sp.Implies(a, sp.Implies(b, c)), "x > 0 -> y > 0 -> z > 0"),
        (sp.Implies(sp.Implies(a, b), c), "(x > 0 -> y > 0) -> z > 0"),
        (sp.Or(sp.And(a, b), c), "x > 0 /\\ y > 0 \\/ z > 0"),
        (sp.And(sp.Or(a, b), c), "(x > 0 \\/ y > 0) /\\ z > 0"),
        (sp.Not(sp.And(a, b)), "~ (x > 0 /\\ y > 0)"),
        (sp.true, "True"), (True, "True"), (sp.false, "False"), (False, "False"),
        (sp.Le(sp.Pow(n, 0, evaluate=False), 1, evaluate=False), "IZR n ^ 0 <= 1"),
        (sp.Le(n ** 12, m), "(" + " * ".join(["n"] * 12) + " <= m)%Z"),
        (sp.Le(n ** 13, m), "IZR n ^ 13 <= IZR m"), (sp.Le(n / 2, m), "IZR n / 2 <= IZR m"),
        (sp.Le(n, 3), "(n <= 3)%Z"), (sp.Le(sp.Integer(3), sp.Integer(4), evaluate=False),
                                      "3 <= 4"),
        (sp.Ge(n, m), "(m <= n)%Z"), (sp.Gt(n, 2 * m), "(2 * m < n)%Z"),
        (sp.Eq(n, -m), "(n = - m)%Z"), (sp.Ne(n, m + 1), "(n <> m + 1)%Z"),
        (sp.Lt(x, n), "x < IZR n"),
        (sp.Le(sp.Pow(n, 1, evaluate=False), m, evaluate=False), "(n <= m)%Z"),
        (sp.Le(sp.Mul(0, n, evaluate=False), m, evaluate=False), "(0 * n <= m)%Z"),
        (sp.Le(sp.Mul(0, x, evaluate=False), y, evaluate=False), "0 * x <= y"),
        (sp.Le(sp.Mul(1, n, evaluate=False), m, evaluate=False), "(n <= m)%Z"),
        (sp.Le(sp.Mul(-1, n, evaluate=False), m, evaluate=False), "(- n <= m)%Z")]
    for p, text in table:
        assert render_prop(coq.prop(p, ctx)) == text, (p, render_prop(coq.prop(p, ctx)))


def test_conjunction_flattens_drops_true_and_repeats() -> None:
    """``conjunction``: nested ands flattened, ``True`` and repeats dropped, in order; one
    part is itself, none is ``True``; a one-part junction is its part."""
    a = ("rel", "<", ("var", "x"), ("num", Fraction(0)), "R")
    b = ("rel", "<", ("var", "y"), ("num", Fraction(0)), "R")
    c = ("rel", "=", ("var", "z"), ("num", Fraction(1)), "R")
    assert coq.conjunction([("and", (a, b)), ("true",), a, c, ("and", (c, a))]) == \
        ("and", (a, b, c))
    assert coq.conjunction([("true",), b, ("true",)]) == b
    assert coq.conjunction([("true",), ("and", (("true",),))]) == ("true",)
    assert coq.conjunction([]) == ("true",)
    assert coq._junction("and", [a]) == a and coq._junction("or", [a, b]) == ("or", (a, b))
    assert render_prop(("not", ("imp", a, b))) == "~ (x < 0 -> y < 0)"


def test_definedness_of_piecewise_tan_and_constants() -> None:
    """``Piecewise``: each branch's condition defined up to the first that holds, that branch's
    value defined where its condition holds, and (no ``True`` branch) one condition must hold;
    ``tan a`` needs ``cos a <> 0``; ``True`` and ``False`` need nothing; ``Implies(A, B)`` needs
    ``B`` defined only where ``A`` holds."""
    d = {_X: "real", _Y: "real"}
    table = [
        (sp.Ge(sp.Piecewise((sp.log(_X), _X > 1), (sp.sqrt(_Y), True)), 0, evaluate=False),
         "(x > 1 -> 0 < x) /\\ (~ x > 1 -> 0 <= y)"),
        (sp.Ge(sp.Piecewise((sp.log(_X), _X > 1), (1 / _Y, _X < 0)), 0, evaluate=False),
         "(x > 1 -> 0 < x) /\\ (~ x > 1 -> (x < 0 -> y <> 0) /\\ x < 0)"),
        (sp.Ge(sp.tan(_X / 4), 0, evaluate=False), "cos (x / 4) <> 0"),
        (sp.true, "True"), (sp.false, "True"), (True, "True"),
        (sp.Implies(sp.log(_X) > 0, sp.sqrt(_Y) > 1), "0 < x /\\ (ln x > 0 -> 0 <= y)"),
        (sp.And(sp.log(_X) > 0, 1 / _Y > 0), "y <> 0 /\\ 0 < x")]
    for p, text in table:
        assert render_prop(definedness(p, d)) == text, (p, render_prop(definedness(p, d)))


@pytest.mark.parametrize("domain,fact", [("real", None), ("positive", "0 < x"),
                                         ("nonnegative", "0 <= x"),
                                         ("integer", None), ("positive-integer", "(1 <= x)%Z"),
                                         ("nonnegative-integer", "(0 <= x)%Z")])
def test_domain_facts_print_in_their_scope(domain: str, fact) -> None:
    """Each declared domain's binder (``R`` or ``Z``) and fact, printed: ``0 < x``, ``0 <= x``,
    ``(1 <= n)%Z``, ``(0 <= n)%Z``, none for ``real`` and ``integer``."""
    x = sp.Symbol("x")
    st = coq_statement("t", sp.Ge(x ** 2, 0, evaluate=False), (), {x: domain})
    kind = "Z" if "integer" in domain else "R"
    assert st.binders == (("x", kind),)
    assert [render_prop(p) for _, p in st.hypotheses] == ([fact] if fact else [])
    assert render_statement(st).splitlines()[1] == f"  forall (x : {kind}),"


def test_every_lemma_of_a_chain_binds_the_same_variables() -> None:
    """The lemmas of a chain — steps, composition, claim — share one list of variables, the
    chain's: a symbol only in a premise (or only in one step) is bound in every lemma, with
    the chain's domain (the claim's proof applies each lemma to the same variables)."""
    x = sp.Symbol("x", real=True)
    y = sp.Symbol("y", positive=True)
    n = sp.Symbol("n", integer=True)
    steps = [("a", sp.Gt(x, 1), [sp.Gt(x, 2)]), ("b", sp.Gt(x, 0), [sp.Gt(x, 1), sp.Ge(n, 0)])]
    out = coq_chain("shared", [sp.Gt(x, 2), sp.Gt(y, 1)], steps, sp.Gt(x, 0))
    assert [st.name for st in out] == ["shared_step1", "shared_step2", "shared_composition",
                                       "shared"]
    for st in out:
        assert st.binders == (("n", "Z"), ("x", "R"), ("y", "R")), (st.name, st.binders)
        assert dict(st.domains) == {x: "real", y: "positive", n: "integer"}


def test_the_chain_claim_assumes_the_premises_only() -> None:
    """The claim (last lemma) is ``P ⇒ G``: besides its domain facts and the chain's
    definedness, its hypotheses are exactly the premises, in order — never a step's
    conclusion (round 4's survivor printed the claim with every step's conclusion as a
    hypothesis, so coqc re-checked a theorem assuming what the chain derives). The twin: a
    step lemma does assume its own hypotheses."""
    x = sp.Symbol("x", real=True)
    y = sp.Symbol("y", positive=True)
    premises = [sp.Gt(x, 2), sp.Gt(y, 1)]
    steps = [("a", sp.Gt(x, 1), [sp.Gt(x, 2)]), ("b", sp.Gt(x * y, 1), [sp.Gt(x, 1), sp.Gt(y, 1)])]
    out = coq_chain("claim", premises, steps, sp.Gt(x * y, 1))
    claim = out[-1]
    assert claim.name == "claim"
    kept = [src for (role, _), src in zip(claim.hypotheses, claim.sources)
            if role not in ("domain", "defined")]
    assert kept == premises, kept
    assert claim.goal == sp.Gt(x * y, 1) and render_prop(claim.conclusion) == "x * y > 1"
    step2 = out[1]
    assert [src for (role, _), src in zip(step2.hypotheses, step2.sources)
            if role not in ("domain", "defined")] == [sp.Gt(x, 1), sp.Gt(y, 1)]


def test_sources_follow_the_hypotheses_and_only_the_statements_symbols_are_bound() -> None:
    """``sources[i]`` is what hypothesis ``i`` was printed from — the symbol of a domain fact,
    the sympy hypothesis or antecedent, None for a definedness condition — in every lemma of a
    chain too; a statement binds only its own symbols unless ``bind_all``."""
    x, y = sp.symbols("x y", positive=True)
    z = sp.Symbol("z", real=True)
    st = coq_statement("t", sp.Implies(sp.Gt(z, 1), sp.Gt(sp.log(z), 0)), [sp.Gt(1 / (z - 2), 0)],
                       {x: "positive", z: "real"})
    assert st.binders == (("z", "R"),)
    assert [r for r, _ in st.hypotheses] == ["defined", "hypothesis", "antecedent", "defined"]
    assert st.sources == (None, sp.Gt(1 / (z - 2), 0), sp.Gt(z, 1), None)
    wide = coq_statement("t", sp.Gt(z, 1), (), {x: "positive", z: "real"}, bind_all=True)
    assert wide.binders == (("x", "R"), ("z", "R")) and wide.sources == (x,)
    steps = [("a", sp.Gt(sp.log(x - 1), 0), [sp.Gt(x, 2)]), ("b", sp.Gt(x * y, 0), [])]
    for lemma in coq_chain("c", [sp.Gt(x, 2)], steps, sp.Gt(sp.log(x - 1) + x * y, 0)):
        assert len(lemma.sources) == len(lemma.hypotheses), lemma.name
        for (role, _), source in zip(lemma.hypotheses, lemma.sources):
            assert (source is None) == (role == "defined"), (lemma.name, role, source)
            assert role != "domain" or source in (x, y)


def test_render_statement_groups_binders_and_wraps_hypotheses() -> None:
    """Consecutive binders of one type share a group, in order; no binder, no ``forall``;
    one hypothesis per line, an implication in parentheses (``->`` is right-associative), an
    equivalence (level 95), a conjunction or a disjunction not."""
    a = ("rel", "<", ("var", "a"), ("num", Fraction(0)), "R")
    b = ("rel", "<=", ("zvar", "n"), ("znum", 2), "Z")
    st = coq_statements.CoqStatement(
        "t", (("a", "R"), ("b", "R"), ("n", "Z"), ("c", "R")),
        (("hypothesis", ("imp", a, b)), ("hypothesis", ("and", (a, b))),
         ("hypothesis", ("or", (a, b))), ("hypothesis", ("iff", a, b)), ("domain", a)),
        ("imp", a, b))
    assert render_statement(st, "Lemma").splitlines() == [
        "Lemma t :", "  forall (a b : R) (n : Z) (c : R),", "  (a < 0 -> (n <= 2)%Z) ->",
        "  a < 0 /\\ (n <= 2)%Z ->", "  a < 0 \\/ (n <= 2)%Z ->", "  a < 0 <-> (n <= 2)%Z ->",
        "  a < 0 ->", "  a < 0 -> (n <= 2)%Z."]
    bare = coq_statements.CoqStatement("u", (), (), ("true",))
    assert render_statement(bare) == "Theorem u :\n  True."
