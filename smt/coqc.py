r"""``coqc`` as the judge: self-contained files, a time limit, and what counts as re-checked.

The last stage of the Coq kernel (:mod:`attnio.smt.coq`): :func:`coq_document` writes a
``.v`` file that needs nothing but Coq's standard library (:data:`PREAMBLE` holds the lemmas
the proofs cite, each proved there); :func:`run_coqc` compiles it in a private folder, killed
at its time limit and on Ctrl-C; :func:`accepted` is the rule: a theorem is re-checked only
when ``coqc`` exited 0, the file holds none of the words of :data:`FORBIDDEN` (``Admitted``,
``admit``, ``Axiom``, …) outside its comments, and ``Print Assumptions`` of the theorem lists
only :data:`ALLOWED_AXIOMS` — the three axioms on which the standard library builds the real
numbers. A timeout, a crash, an unexpected axiom: not re-checked, never a pass.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Sequence

from attnio.exceptions import InvalidInputError
from attnio.smt.coq import render_statement

__all__ = ["PREAMBLE", "ALLOWED_AXIOMS", "FORBIDDEN", "CoqRun", "coq_document", "run_coqc",
           "accepted", "axioms_of", "forbidden_words", "coqc_binary", "coqc_version",
           "COQC_MEMORY_BYTES"]


# ------------------------------------------------------------------------------ files
#: What every generated file starts with: the standard library (real numbers, linear and
#: nonlinear arithmetic deciders) and the lemmas the proofs cite, each proved here — in
#: particular the √M = s substitution (``attnio_sqrt``) and the rules that cancel a positive
#: factor (``attnio_le_by`` … ``attnio_ne_from``). Nothing is assumed.
PREAMBLE = r"""Require Import Reals Lra Psatz ZArith.
Open Scope R_scope.

(* The square root as a variable: s = sqrt x with s >= 0 and s ^ 2 = x, for x >= 0. *)
Lemma attnio_sqrt : forall x, 0 <= x -> 0 <= sqrt x /\ sqrt x ^ 2 = x.
Proof. intros x Hx. split. apply sqrt_pos. simpl. rewrite Rmult_1_r. apply sqrt_sqrt. exact Hx. Qed.

(* A hypothesis b - a = p * r with p > 0 says what r's sign is; a goal follows from r's. *)
Lemma attnio_le_by : forall a b p r, 0 < p -> b - a = p * r -> a <= b -> 0 <= r.
Proof. intros a b p r Hp He H. destruct (Rle_lt_dec 0 r) as [Hr|Hr]; [exact Hr|]. nra. Qed.
Lemma attnio_lt_by : forall a b p r, 0 < p -> b - a = p * r -> a < b -> 0 < r.
Proof. intros a b p r Hp He H. destruct (Rlt_le_dec 0 r) as [Hr|Hr]; [exact Hr|]. nra. Qed.
Lemma attnio_ge_by : forall a b p r, 0 < p -> a - b = p * r -> a >= b -> 0 <= r.
Proof. intros a b p r Hp He H. apply (attnio_le_by b a p r); lra. Qed.
Lemma attnio_gt_by : forall a b p r, 0 < p -> a - b = p * r -> a > b -> 0 < r.
Proof. intros a b p r Hp He H. apply (attnio_lt_by b a p r); lra. Qed.
Lemma attnio_eq_by : forall a b p r, 0 < p -> b - a = p * r -> a = b -> r = 0.
Proof. intros a b p r Hp He H. assert (p * r = 0) by lra.
  destruct (Rmult_integral p r H0) as [Hz|Hz]; lra. Qed.
Lemma attnio_le_from : forall a b p r, 0 < p -> b - a = p * r -> 0 <= r -> a <= b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_lt_from : forall a b p r, 0 < p -> b - a = p * r -> 0 < r -> a < b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_ge_from : forall a b p r, 0 < p -> a - b = p * r -> 0 <= r -> a >= b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_gt_from : forall a b p r, 0 < p -> a - b = p * r -> 0 < r -> a > b.
Proof. intros a b p r Hp He Hr. nra. Qed.
Lemma attnio_eq_from : forall a b p r, b - a = p * r -> r = 0 -> a = b.
Proof. intros a b p r He Hr. rewrite Hr in He. lra. Qed.
Lemma attnio_eq0_mul : forall e m, e = 0 -> e * m = 0.
Proof. intros e m H. rewrite H. ring. Qed.
Lemma attnio_ne_from : forall a b p r, 0 < p -> b - a = p * r -> r <> 0 -> a <> b.
Proof. intros a b p r Hp He Hr Hab. apply Hr. rewrite Hab in He.
  replace (b - b) with 0 in He by ring.
  destruct (Rmult_integral p r (eq_sym He)) as [Hz|Hz]; lra. Qed.

(* A positive product: split it into its factors, each decided by lra or nra. *)
Ltac attnio_pos :=
  repeat (first [ apply Rmult_lt_0_compat | apply Rdiv_lt_0_compat | apply Rinv_0_lt_compat
                | apply pow_lt ]);
  first [ lra | nra ].
(* The side conditions of field: each factor of a denominator is not 0. *)
Ltac attnio_nz :=
  match goal with
  | |- _ /\ _ => split; attnio_nz
  | |- _ * _ <> 0 => apply Rmult_integral_contrapositive_currified; attnio_nz
  | |- _ ^ _ <> 0 => apply pow_nonzero; attnio_nz
  | |- _ => first [ lra | nra ]
  end.
Ltac attnio_field := field; try attnio_nz.
(* What is left after the plan: linear or nonlinear real arithmetic. *)
Ltac attnio_close :=
  first [ lra | nra | apply pow2_ge_0 | apply Rmult_le_pos; [ lra | apply pow2_ge_0 ] ].
(* IZR of a sum, product, difference, opposite: the same of the IZRs. *)
Ltac attnio_izr_in H :=
  repeat first [ rewrite plus_IZR in H | rewrite mult_IZR in H | rewrite minus_IZR in H
               | rewrite opp_IZR in H ].
Ltac attnio_izr_goal :=
  repeat first [ rewrite plus_IZR | rewrite mult_IZR | rewrite minus_IZR | rewrite opp_IZR ].
(* An integer relation as a real one, written with IZR of each variable. *)
Ltac attnio_izr H :=
  let T := fresh "T" in
  first [ pose proof (IZR_le _ _ H) as T | pose proof (IZR_lt _ _ H) as T
        | pose proof (f_equal IZR H) as T | pose proof (IZR_neq _ _ H) as T ];
  attnio_izr_in T;
  first [ lra | nra ].
(* The generic route: integers to reals, square roots to variables, Rmin / Rmax / Rabs split
   into cases, then lra or nra. *)
Ltac attnio_lift_Z :=
  repeat match goal with
  | H : (?a < ?b)%Z |- _ => assert ((a + 1 <= b)%Z) by lia; clear H
  | H : (?a <= ?b)%Z |- _ => generalize (IZR_le _ _ H); clear H
  | H : (?a = ?b)%Z |- _ => generalize (f_equal IZR H); clear H
  | H : (?a <> ?b)%Z |- _ => generalize (IZR_neq _ _ H); clear H
  end; intros;
  repeat first [ rewrite plus_IZR in * | rewrite mult_IZR in * | rewrite minus_IZR in *
               | rewrite opp_IZR in * ].
Ltac attnio_realify :=
  repeat match goal with
  | |- context [IZR ?x] => is_var x; let r := fresh "r" in set (r := IZR x) in *; clearbody r
  | H : context [IZR ?x] |- _ => is_var x; let r := fresh "r" in
                                  set (r := IZR x) in *; clearbody r
  end.
Ltac attnio_sqrt_subst :=
  repeat match goal with
  | |- context [sqrt ?t] =>
      let s := fresh "s" in let H0 := fresh "Hs" in let H1 := fresh "Hs" in
      let Ht := fresh "Ht" in
      assert (Ht : 0 <= t) by (first [assumption | lra | nra]);
      destruct (attnio_sqrt t Ht) as [H0 H1]; clear Ht;
      set (s := sqrt t) in *; clearbody s
  | H : context [sqrt ?t] |- _ =>
      let s := fresh "s" in let H0 := fresh "Hs" in let H1 := fresh "Hs" in
      let Ht := fresh "Ht" in
      assert (Ht : 0 <= t) by (first [assumption | lra | nra]);
      destruct (attnio_sqrt t Ht) as [H0 H1]; clear Ht;
      set (s := sqrt t) in *; clearbody s
  end;
  repeat match goal with H : ?s ^ 2 = ?m |- _ => is_var m; subst m end.
Ltac attnio_cases :=
  unfold Rmin, Rmax, Rabs in *;
  repeat match goal with
  | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
  | H : context [Rle_dec ?a ?b] |- _ => destruct (Rle_dec a b)
  | |- context [Rcase_abs ?a] => destruct (Rcase_abs a)
  | H : context [Rcase_abs ?a] |- _ => destruct (Rcase_abs a)
  end.
"""

#: The axioms a re-checked theorem may rest on: the three on which Coq's standard library
#: builds its real numbers (``Reals``: classical Dedekind cuts and function extensionality).
#: ``Print Assumptions`` of any theorem about ``R`` lists them; anything else (an ``Axiom``,
#: an ``Admitted`` lemma) and the theorem does not count.
ALLOWED_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_not_dec",
    "ClassicalDedekindReals.sig_forall_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
})

#: Words that would let a file assume what it should prove (or switch a check off): a file
#: containing one, outside comments, is never accepted.
FORBIDDEN = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis",
             "Hypotheses", "Variable", "Variables", "Conjecture", "Context", "Declare",
             "Unset", "Set", "Load", "Extract", "Abort", "Fail", "give_up", "Local", "Cd",
             "Add", "Require", "Import", "Export")


def _without_comments(text: str) -> str:
    """``text`` with its (nested) ``(* ... *)`` comments removed."""
    out: list[str] = []
    depth = i = 0
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i) and depth:
            depth -= 1
            i += 2
        else:
            if not depth:
                out.append(text[i])
            i += 1
    return "".join(out)


def forbidden_words(text: str) -> list[str]:
    """The words of :data:`FORBIDDEN` in ``text`` outside comments and outside the preamble
    (which needs ``Require Import`` and ``Open Scope``, and holds no other).

    >>> forbidden_words(PREAMBLE + "Lemma x : 1 = 1. Proof. admit. Admitted.")
    ['Admitted', 'admit']
    >>> forbidden_words(PREAMBLE + "(* Admitted *) Lemma x : 1 = 1. Proof. reflexivity. Qed.")
    []
    """
    at = text.find(PREAMBLE)
    body = text
    if at >= 0 and not _without_comments(text[:at]).strip():
        body = text[at + len(PREAMBLE):]   # the preamble, after comments only
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", _without_comments(body)))
    return sorted(w for w in FORBIDDEN if w in words)


def coq_document(statements: Sequence[Any], proofs: Sequence[str], *,
                 title: str = "", keyword: str = "Theorem") -> str:
    """A self-contained ``.v`` file: :data:`PREAMBLE`, each statement with its proof, and
    ``Print Assumptions`` of each (read back by :func:`accepted`).

    ``proofs[i]`` is the text between ``Proof.`` and ``Qed.`` of ``statements[i]``.

    Side conditions
    ---------------
    1. ``preamble-first``: only the title's comments come before :data:`PREAMBLE` (so the
       judge reads no forbidden word before it).
    2. ``each-statement-proved``: every statement, in order, with its own proof between
       ``Proof.`` and ``Qed.``; the last under ``keyword``, the others as ``Lemma``.
    3. ``assumptions-printed``: a ``Print Assumptions`` line for every statement.
    """
    if len(statements) != len(proofs):
        raise ValueError("one proof per statement")
    head = "".join(f"(* {line} *)\n" for line in title.splitlines() if line.strip())
    parts = [PREAMBLE if not head else PREAMBLE]
    if head:
        parts.insert(0, head)
    for st, pr in zip(statements, proofs):
        kw = "Lemma" if st is not statements[-1] else keyword
        parts.append(f"{render_statement(st, kw)}\nProof.\n{pr.rstrip()}\nQed.\n")
    parts.append("".join(f"Print Assumptions {st.name}.\n" for st in statements))
    return "\n".join(parts)


# ------------------------------------------------------------------------------ coqc
def coqc_binary() -> str | None:
    """``$ATTNIO_COQC`` if set (None if it is not an executable), else ``coqc`` on PATH."""
    explicit = os.environ.get("ATTNIO_COQC")
    if explicit:
        return shutil.which(explicit)
    return shutil.which("coqc")


def coqc_version(binary: str | None = None) -> str | None:
    """``coqc --version``'s first line, or None without coqc."""
    binary = binary or coqc_binary()
    if binary is None:
        return None
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else None


@dataclass(frozen=True)
class CoqRun:
    """One ``coqc`` run: exit code (None when it was killed at its time limit), its output,
    and the CPU-independent wall seconds it took."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


#: Address space of one coqc process (bytes): a runaway tactic ends there, not in swap.
COQC_MEMORY_BYTES = 4 * 1024 ** 3


def _limit_memory() -> None:   # pragma: no cover - runs in the child
    try:
        resource.setrlimit(resource.RLIMIT_AS, (COQC_MEMORY_BYTES, COQC_MEMORY_BYTES))
    except (ValueError, OSError):
        pass


def run_coqc(text: str, *, timeout: float, name: str = "attnio_check.v",
             binary: str | None = None) -> CoqRun:
    """Compile ``text`` with ``coqc`` in a private temporary folder (the user's folders never
    receive coqc's ``.vo`` / ``.glob`` files), killed with its process group after
    ``timeout`` seconds (``returncode`` None) or on Ctrl-C (the KeyboardInterrupt goes on).

    Raises
    ------
    InvalidInputError
        ``coqc`` is not installed (Debian package ``coq``).

    Side conditions
    ---------------
    1. ``output-captured``: coqc's exit code, standard output (the ``Print Assumptions``
       reports) and standard error come back from the file as written.
    2. ``time-limit-kills``: a run past ``timeout`` is killed and comes back timed out
       (``returncode`` None), never as a pass.
    3. ``module-name``: the file name must be a Coq module name (``[A-Za-z][A-Za-z0-9_]*.v``).
    """
    binary = binary or coqc_binary()
    if binary is None:
        raise InvalidInputError("coqc not found: install Coq (Debian package `coq`, "
                                "apt-get install coq) or set ATTNIO_COQC")
    if not re.match(r"^[A-Za-z][A-Za-z0-9_]*\.v$", name):
        raise ValueError(f"file name {name!r} is not a Coq module name")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="attnio-coq-") as folder:
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        proc = subprocess.Popen([binary, "-q", name], cwd=folder, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=_limit_memory)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            out, err = proc.communicate()
            return CoqRun(None, out, err, time.monotonic() - start)
        except BaseException:   # Ctrl-C (KeyboardInterrupt) included: never leave coqc running
            _kill(proc)
            proc.communicate()
            raise
        return CoqRun(proc.returncode, out, err, time.monotonic() - start)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def axioms_of(stdout: str, names: Sequence[str]) -> dict[str, frozenset[str] | None]:
    r"""The axioms ``Print Assumptions`` listed for each theorem of ``names`` (in order in
    ``stdout``); None for a theorem whose report is missing.

    Each axiom starts a line: ``name : type``, or ``name`` alone with its long type on the
    indented lines below (``  : forall ...``, how coqc prints
    ``ClassicalDedekindReals.sig_forall_dec``); a name alone is read as an axiom too, so
    the axioms listed after it are still read.

    >>> axioms_of("Closed under the global context\n", ["t"])
    {'t': frozenset()}
    >>> out = "Axioms:\nA.b : forall P : Prop,\n  P\nC : True\n"
    >>> sorted(axioms_of(out, ["t"])["t"])
    ['A.b', 'C']
    >>> out = "Axioms:\nA.long_name\n  : forall P : Prop,\n    P\nC : True\n"
    >>> sorted(axioms_of(out, ["t"])["t"])
    ['A.long_name', 'C']
    """
    blocks: list[frozenset[str]] = []
    current: set[str] | None = None
    for line in stdout.splitlines():
        if line.startswith("Closed under the global context"):
            if current is not None:
                blocks.append(frozenset(current))
            blocks.append(frozenset())
            current = None
        elif line.startswith("Axioms:"):
            if current is not None:
                blocks.append(frozenset(current))
            current = set()
        elif current is not None and line and not line[0].isspace():
            found = re.match(r"^([A-Za-z_][A-Za-z0-9_.']*)(?: :|\s*$)", line)
            if found:
                current.add(found.group(1))
            else:
                blocks.append(frozenset(current))
                current = None
    if current is not None:
        blocks.append(frozenset(current))
    return {name: (blocks[i] if i < len(blocks) else None) for i, name in enumerate(names)}


def accepted(text: str, run: CoqRun, names: Sequence[str]) -> tuple[bool, str]:
    r"""Whether a run re-checks the theorems ``names`` of ``text``, and why (not).

    Accepted only when ``coqc`` exited 0 within its time limit, the file holds no word of
    :data:`FORBIDDEN` outside its comments, and ``Print Assumptions`` of every theorem lists
    only :data:`ALLOWED_AXIOMS`.

    >>> ok = CoqRun(0, "Axioms:\nClassicalDedekindReals.sig_not_dec : P\n", "", 0.1)
    >>> accepted(PREAMBLE + "Theorem t : 1 = 1. Proof. reflexivity. Qed.", ok, ["t"])
    (True, 'coqc accepted t (axioms: ClassicalDedekindReals.sig_not_dec)')
    >>> accepted(PREAMBLE + "Theorem t : 1 = 1. Admitted.", ok, ["t"])[0]
    False

    Side conditions
    ---------------
    1. ``in-time``: a run that timed out is rejected.
    2. ``exit-zero``: a nonzero exit code is rejected.
    3. ``no-forbidden-word``: a word of :data:`FORBIDDEN` outside comments rejects the file,
       also before the preamble and inside a nested comment's remainder.
    4. ``report-per-theorem``: every theorem named has its ``Print Assumptions`` report.
    5. ``only-allowed-axioms``: every axiom reported is one of :data:`ALLOWED_AXIOMS`.
    """
    if run.timed_out:
        return False, f"coqc did not finish within its time limit ({run.seconds:.0f} s)"
    if run.returncode != 0:
        return False, "coqc rejected the proof: " + _first_error(run)
    bad = forbidden_words(text)
    if bad:
        return False, f"the file contains {', '.join(bad)}: a proof must assume nothing"
    reports = axioms_of(run.stdout, names)
    used: set[str] = set()
    for name, axioms in reports.items():
        if axioms is None:
            return False, f"no Print Assumptions report for {name}"
        extra = sorted(axioms - ALLOWED_AXIOMS)
        if extra:
            return False, f"{name} rests on {', '.join(extra)}, not a standard library axiom"
        used |= axioms
    shown = ", ".join(sorted(used)) or "none"
    return True, f"coqc accepted {', '.join(names)} (axioms: {shown})"


def _first_error(run: CoqRun) -> str:
    text = (run.stderr or run.stdout).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    where = next((line for line in lines if line.startswith("File ")), "")
    error = next((line for line in lines if line.startswith("Error")), lines[-1] if lines else
                 f"exit code {run.returncode}")
    text = f"{error} ({where})" if where else error
    return text if len(text) <= 200 else text[:199] + "…"
