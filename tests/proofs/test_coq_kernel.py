"""Tests of attnio.proofs.coq_kernel: the claims' statements captured, re-proved by coqc.

Trust tier (no coqc): every claim Coq re-checks yields a statement (or a listed reason), the
capture puts every checker back, what it captures is what the check asks, every false twin
prints a theorem different from its claim's (a twin printed like its claim would be a
printer defect Coq could not catch), the certificate search finds a known certificate and
none for a satisfiable set. Default tier (a few coqc runs): a claim re-proved and its twin
rejected, ``attnio prove --coq`` writing a file ``coqc`` accepts alone in a folder,
``attnio verify --kernel coq`` with ``--coq-dir``. Slow tier: the figure of the issue — at
least 90 % of the ``smt-forall`` and ``sympy-canonical`` claims re-proved, every false twin of
them rejected.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp

import attnio.proofs.algebra as algebra
import attnio.smt.kernel as kernel
from attnio.cli import main
from attnio.exceptions import InvalidInputError
from attnio.proofs.coq_capture import CHECKERS, CoqChainGoal, CoqGoal, capture
from attnio.proofs.coq_kernel import (
    MARKER_NAME,
    is_false_statement,
    lp_certificate,
    recheck,
    recheck_claims,
    summary_lines,
    targets,
    write_folder,
)
from attnio.proofs.registry import load_claims, load_false_twins
from attnio.smt.coq import render_statement
from attnio.smt.coq_statements import coq_chain, coq_statement

CLAIMS = load_claims()
TWINS = load_false_twins()
TARGETS = targets(CLAIMS)
TWIN_TARGETS = targets(TWINS, CLAIMS)


def _printed(part: CoqGoal | CoqChainGoal) -> str:
    if isinstance(part, CoqChainGoal):
        sts = coq_chain("x", part.premises, part.steps, part.conclusion)
    else:
        sts = [coq_statement("x", part.goal, part.hypotheses, part.domains)]
    return "\n".join(render_statement(st) for st in sts)


@pytest.fixture(scope="module")
def captured() -> dict:
    return {c.id: capture(c) for c in TARGETS + TWIN_TARGETS}


# ------------------------------------------------------------------------------ capture
@pytest.mark.trust
def test_the_targets_are_the_smt_and_sympy_claims_and_their_twins() -> None:
    assert len(TARGETS) >= 80
    assert {c.evidence_kind for c in TARGETS} == {"smt-forall", "sympy-canonical"}
    assert all(t.twin_of in {c.id for c in TARGETS} for t in TWIN_TARGETS)
    assert sum(is_false_statement(t) for t in TWIN_TARGETS) >= 55


@pytest.mark.trust
def test_every_target_yields_a_statement(captured: dict) -> None:
    for c in TARGETS:
        got = captured[c.id]
        assert not got.error and not got.unprintable, (c.id, got)
        assert got.parts, c.id


@pytest.mark.trust
def test_capture_puts_every_checker_back() -> None:
    before = {(m, n): getattr(sys.modules[m], n) for m, n, _ in CHECKERS if m in sys.modules}
    before_algebra = algebra.prove_statement

    def broken(ctx):
        raise RuntimeError("a check that breaks")

    failing = next(c for c in TARGETS if c.id == "sy.lemma33.rows_cols")
    failing = type(failing)(**{**{f: getattr(failing, f) for f in failing.__dataclass_fields__},
                               "check_fn": broken})
    assert "RuntimeError" in capture(failing).error
    capture(TARGETS[0])
    assert algebra.prove_statement is before_algebra is kernel.prove_statement
    assert {(m, n): getattr(sys.modules[m], n) for m, n, _ in CHECKERS if m in sys.modules} \
        == before


@pytest.mark.trust
def test_a_check_that_also_calls_z3_itself_is_not_captured() -> None:
    import z3

    from attnio.results import Proved

    x = sp.Symbol("x", positive=True)

    def partly_elsewhere(ctx):
        kernel.prove_statement(sp.Ge(x, 0, evaluate=False))   # through the kernel …
        solver = z3.Solver()                                   # … and a z3 call of its own
        solver.add(z3.Real("y") > 0)
        solver.check()
        return Proved("both")

    base = next(c for c in TARGETS if c.id == "sy.lemma33.rows_cols")
    planted = type(base)(**{**{f: getattr(base, f) for f in base.__dataclass_fields__},
                            "check_fn": partly_elsewhere})
    got = capture(planted)
    assert "calls z3 itself" in got.error
    assert z3.Solver().check() == z3.sat                       # z3 works again afterwards


@pytest.mark.trust
def test_capture_is_what_the_check_asks(captured: dict) -> None:
    (part,) = captured["sy.lemma33.rows_cols"].parts
    c, i, j = (next(s for s in part.goal.free_symbols | part.hypotheses[0].free_symbols
                    if s.name == n) for n in "CIJ")
    assert part.goal == sp.Ge(i + j, sp.sqrt(c), evaluate=False)
    assert part.hypotheses == (sp.Ge(i * j, c, evaluate=False),)
    sides = captured["sym.branch.bwd.sides"].parts
    assert len(sides) == 2 and all(isinstance(p.goal, sp.Eq) for p in sides)
    (chain,) = captured["li.thm42.chain"].parts
    assert isinstance(chain, CoqChainGoal) and len(chain.steps) == 5


@pytest.mark.trust
def test_every_false_twin_prints_another_theorem_than_its_claim(captured: dict) -> None:
    for twin in TWIN_TARGETS:
        if not is_false_statement(twin):
            continue
        mine = [_printed(p) for p in captured[twin.id].parts]
        theirs = [_printed(p) for p in captured[twin.twin_of].parts]
        assert mine and mine != theirs, twin.id


@pytest.mark.trust
def test_the_certificate_search_finds_amgm_and_nothing_for_a_satisfiable_set() -> None:
    a, b, c = sp.symbols("a b c")
    # a, b >= 0, a*b >= c**2... contradiction with the negated goal a + b < 2c, c >= 0
    facts = [(a, ">="), (b, ">="), (c, ">="), (a * b - c**2, ">="), (2 * c - a - b, ">")]
    found = lp_certificate(facts)
    assert found
    assert lp_certificate([(a, ">="), (b - a, ">="), (c - b, ">")]) is None


# ------------------------------------------------------------------------------ folders
@pytest.mark.trust
def test_write_folder_never_replaces_a_stranger(tmp_path: Path) -> None:
    out = tmp_path / "coq"
    write_folder(out, [("a.v", "(* a *)\n")])
    assert sorted(p.name for p in out.iterdir()) == [MARKER_NAME, "_CoqProject", "a.v"]
    assert "a.v" in (out / "_CoqProject").read_text()
    write_folder(out, [("a.v", "(* a, again *)\n")])          # attnio's own: replaced
    assert (out / "a.v").read_text() == "(* a, again *)\n"
    (out / "a.v").write_text("(* edited by hand *)\n")
    with pytest.raises(InvalidInputError, match="refusing to overwrite"):
        write_folder(out, [("a.v", "(* a *)\n")])
    (out / "b.v").write_text("mine\n")
    with pytest.raises(InvalidInputError, match="attnio did not write it"):
        write_folder(out, [("b.v", "(* b *)\n")])
    (tmp_path / "link").symlink_to(out)
    with pytest.raises(InvalidInputError, match="symlink"):
        write_folder(tmp_path / "link", [("c.v", "")])


# ------------------------------------------------------------------------------ with coqc
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_claim_is_re_proved_and_its_twin_rejected(coqc: str) -> None:
    claim = next(c for c in TARGETS if c.id == "sy.lemma33.rows_cols")
    v = recheck(claim, timeout=120)
    assert v.rechecked, v.reason
    assert v.files and "Print Assumptions" in v.files[0][1]
    twin = next(t for t in TWIN_TARGETS if t.twin_of == claim.id)
    assert not recheck(twin, timeout=120).rechecked


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_prove_coq_writes_a_file_coqc_accepts_alone(coqc: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out.v"
    code = main(["prove", "Implies(M <= d**2, n**2*d**2/M >= n**2*d/sqrt(M))",
                 "--var", "n:positive-integer", "--var", "d:positive-integer",
                 "--var", "M:positive-integer", "--coq", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "coq: re-checked by coqc" in text and f"wrote {out}" in text
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "out.v").write_text(out.read_text())
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    done = subprocess.run([coqc, "out.v"], cwd=alone, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "Axioms:" in done.stdout and "Admitted" not in out.read_text()


def test_prove_coq_refuses_an_existing_file_and_says_why_outside(coqc: str, tmp_path: Path,
                                                                  capsys) -> None:
    existing = tmp_path / "mine.v"
    existing.write_text("mine")
    assert main(["prove", "x >= 0", "--var", "x:positive", "--coq", str(existing)]) == 2
    assert existing.read_text() == "mine"
    capsys.readouterr()
    root = tmp_path / "root.v"
    main(["prove", "root(x, 3) >= 0", "--var", "x:real", "--coq", str(root)])
    assert "outside the Coq fragment" in capsys.readouterr().out and not root.exists()


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_verify_kernel_coq_reports_and_writes_the_folder(coqc: str, tmp_path: Path,
                                                         capsys) -> None:
    folder = tmp_path / "proofs"
    code = main(["verify", "--only", "sy.lemma33.rows_cols", "--kernel", "coq", "--json",
                 "--coq-dir", str(folder)])
    captured_out = capsys.readouterr()
    doc = json.loads(captured_out.out)
    assert code == 0
    (row,) = doc["claims"]
    assert row["coq"]["rechecked"] is True
    assert doc["coq"]["rechecked"] == 1 and doc["coq"]["not_rechecked"] == []
    assert "wrote" in captured_out.err
    assert (folder / "_CoqProject").exists() and list(folder.glob("*.v"))


def test_coq_options_without_the_kernel_are_bad_input(tmp_path: Path) -> None:
    assert main(["verify", "--only", "sy.lemma33.rows_cols", "--coq-dir", str(tmp_path)]) == 2


# ------------------------------------------------------------------------------ the figure
@pytest.mark.slow
def test_ninety_percent_re_proved_and_every_false_twin_rejected(coqc: str) -> None:
    verdicts = recheck_claims(TARGETS, timeout=120)
    done = sum(v.rechecked for v in verdicts)
    assert done >= 0.9 * len(TARGETS), "\n".join(summary_lines(verdicts, TARGETS))
    twins = [t for t in TWIN_TARGETS if is_false_statement(t)]
    accepted = [v.claim_id for v in recheck_claims(twins, timeout=120) if v.rechecked]
    assert accepted == []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s children (Linux /proc)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(c) for c in handle.read().split()]
    except OSError:
        pass
    return found


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or not Path("/proc").is_dir(),
                    reason="needs POSIX signals and /proc")
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_ctrl_c_while_coqc_runs_exits_130_and_kills_coqc(coqc: str) -> None:
    env = {**os.environ, "ATTNIO_PROGRESS": "0", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "attnio", "verify", "--only",
                             "sy.lemma33.extra_trees", "--kernel", "coq"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 240
    coqc_pids: list[int] = []
    while time.monotonic() < deadline and not coqc_pids and proc.poll() is None:
        coqc_pids = [c for c in _children(proc.pid) if "coqc" in _cmdline(c)]
        time.sleep(0.05)
    assert coqc_pids, "coqc never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-1000:]
    assert "Traceback" not in err
    time.sleep(0.5)
    assert not any("coqc" in _cmdline(c) for c in coqc_pids)
