r"""The claims re-proved by a second kernel: each algebra claim's statement, printed to Coq.

``attnio verify --kernel coq`` (:mod:`attnio.commands.verify`) and
``benchmarks/coq_kernel.py`` run this module: for every claim whose evidence is
``smt-forall`` or ``sympy-canonical`` (:data:`KINDS`), it finds the sympy statement the
claim's check hands to its checker, prints it as a Coq theorem (:mod:`attnio.smt.coq`),
proves it with the strategies of :mod:`attnio.smt.coq_proofs`, and asks ``coqc`` — with a
time limit per file — whether the proof is accepted (:func:`attnio.smt.coq.accepted`: exit 0,
nothing assumed, only the standard library's axioms of the reals).

Where the statements come from: :mod:`attnio.proofs.coq_capture`.

A claim counts as **re-proved** only when every statement captured from it is accepted by
``coqc``; a claim with no statement captured, one outside the Coq fragment, one Coq does not
accept within its time limit, is *not re-proved* and says why. A false twin whose statement
Coq accepts is a defect of the printer (tests/proofs/test_coq_kernel.py).

Examples
--------
>>> from attnio.proofs.registry import load_claims
>>> claims = load_claims()
>>> sorted({c.evidence_kind for c in targets(claims)})
['smt-forall', 'sympy-canonical']
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import sympy as sp

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.graphs.lower_bounds.covering import quiet_highs
from attnio.progress import StageStatus, progress, progress_enabled
from attnio.proofs.coq_capture import Captured, CoqChainGoal, capture
from attnio.proofs.registry import Claim
from attnio.safe_io import validate_folder_target, validate_name_lengths, write_text
from attnio.smt.coq_proofs import chain_glue, proof_scripts
from attnio.smt.coq_statements import CoqStatement, coq_chain, coq_statement
from attnio.smt.coqc import accepted, coq_document, coqc_binary, coqc_version, run_coqc
from attnio.smt.statements import parse_statement

__all__ = ["KINDS", "CoqVerdict", "CoqFile", "recheck", "recheck_claims", "targets",
           "write_folder", "is_false_statement", "summary_lines", "coq_json", "prove_file",
           "lp_certificate", "DEFAULT_TIMEOUT_S", "MARKER_NAME", "MAX_FACTORS", "MAX_PRODUCTS"]

#: The evidence kinds whose claims Coq re-proves.
KINDS = ("smt-forall", "sympy-canonical")
#: Seconds of coqc per file (a timeout is "not re-proved", never a pass).
DEFAULT_TIMEOUT_S = 60.0
#: The marker of a folder of Coq files written by attnio (the files it wrote, their SHA-256).
MARKER_NAME = ".attnio-coq.json"


# ------------------------------------------------------------------------------ certificates
#: Products of at most this many facts are offered to the certificate search.
MAX_FACTORS = 3
#: At most this many products (the LP stays small; lra checks what it picks).
MAX_PRODUCTS = 1500


def lp_certificate(facts: Sequence[tuple[sp.Expr, str]], *, max_factors: int = MAX_FACTORS,
                   max_products: int = MAX_PRODUCTS, squares: bool = True
                   ) -> list[tuple[tuple[int, ...], sp.Expr]] | None:
    r"""A Positivstellensatz certificate that ``facts`` (each ``(p, kind)``: ``p >= 0``,
    ``p > 0`` or ``p = 0``) contradict one another, found by linear programming (HiGHS).

    The products offered: every product of at most ``max_factors`` inequality facts, and
    every square of a monomial of degree 1 or 2, of a difference of two variables
    (:math:`(x - y)^2`, the step of AM-GM) or of :math:`x - 1`, times a product of at most two
    of them
    (weights :math:`\lambda \ge 0`); every equality fact times a monomial of degree at most
    2 (weights :math:`\mu` of any sign). Wanted: :math:`\sum \lambda_j P_j + \sum \mu_k E_k
    \equiv -c` with :math:`c \ge 0`, and :math:`c` or the weight of a strict product
    positive — impossible where every fact holds. Returns the products to assert
    (``(fact indices, m)`` for :math:`m^2 \prod P_i`, ``((equality index,), m)`` for
    :math:`m E`), or None.

    The LP runs in floating point and is *not* trusted: the Coq proof asserts the products
    (each proved from its factors) and ``lra`` must find the contradiction itself, exactly.

    >>> x = sp.Symbol("x")
    >>> sorted(lp_certificate([(x, ">="), (-x - 1, ">=")]))   # x >= 0 and x <= -1
    [((0,), 1), ((1,), 1)]
    >>> lp_certificate([(x, ">=")]) is None
    True
    """
    if max_factors > 1:   # a linear combination of the facts themselves first: lra's own
        linear = lp_certificate(facts, max_factors=1, max_products=max_products, squares=False)
        if linear is not None:
            return linear
    import itertools

    import highspy
    import numpy as np

    symbols = sorted(set().union(*(f.free_symbols for f, _ in facts)), key=str)
    if not symbols:
        return None
    try:
        polys = [sp.Poly(f, *symbols) for f, _ in facts]
    except sp.PolynomialError:
        return None
    one = sp.Poly(1, *symbols)
    # the last facts first (the negated goal, then the hypotheses; the domain facts came
    # first), so that the products the cap keeps are the ones that involve them
    inequalities = [i for i, (_, kind) in reversed(list(enumerate(facts))) if kind != "="]
    equalities = [i for i, (_, kind) in enumerate(facts) if kind == "="]
    monomials = [*symbols, *(a * b for a, b in itertools.combinations_with_replacement(symbols, 2))]
    square_terms = [*monomials, *(a - b for a, b in itertools.combinations(symbols, 2)),
                    *(a - 1 for a in symbols)]
    columns: list[tuple[tuple[int, ...], sp.Expr, dict, bool, bool]] = []

    def offer(combo: tuple[int, ...], square: sp.Expr) -> None:
        product = one if square == 1 else sp.Poly(square ** 2, *symbols)
        for i in combo:
            product = product * polys[i]
        strict = square == 1 and all(facts[i][1] == ">" for i in combo)
        columns.append((combo, square, product.as_dict(), strict, False))

    for size in range(1, max_factors + 1):
        for combo in itertools.combinations_with_replacement(inequalities, size):
            if len(columns) < max_products:
                offer(combo, sp.Integer(1))
    for size in range(0, 3 if squares else 0):
        for combo in itertools.combinations_with_replacement(inequalities, size):
            for m in square_terms:
                if len(columns) < 2 * max_products:
                    offer(combo, m)
    goal = len(facts) - 1                        # the negated goal comes last
    if facts[goal][1] != "=" and max_factors > 1:
        for combo in itertools.combinations_with_replacement(inequalities, max_factors):
            if len(columns) < 3 * max_products:
                offer((goal, *combo), sp.Integer(1))
    quartic = list(dict.fromkeys(a * b for a, b in
                                 itertools.combinations_with_replacement(monomials, 2)))
    for i in equalities:
        for m in [sp.Integer(1), *((*monomials, *quartic) if squares else ())]:
            columns.append(((i,), m, (polys[i] * sp.Poly(m, *symbols)).as_dict(), False, True))
    rows: dict[tuple[int, ...], int] = {}
    for _, _, coeffs, _, _ in columns:
        for mono in coeffs:
            rows.setdefault(mono, len(rows))
    constant = tuple(0 for _ in symbols)
    rows.setdefault(constant, len(rows))
    n = len(columns) + 1                         # the last column: the constant slack c
    h = quiet_highs()
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = len(rows) + 1                  # the last row: sum of weights <= 1
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = np.array([1.0 if strict else 0.0 for _, _, _, strict, _ in columns] + [1.0])
    lp.col_lower_ = np.array([-1e4 if free else 0.0 for *_, free in columns] + [0.0])
    lp.col_upper_ = np.array([1e4 if free else highspy.kHighsInf for *_, free in columns]
                             + [highspy.kHighsInf])
    lp.row_lower_ = np.array([0.0] * len(rows) + [-highspy.kHighsInf])
    lp.row_upper_ = np.array([0.0] * len(rows) + [1.0])
    start, index, value = [0], [], []
    for j in range(n):
        if j < len(columns):
            _, _, coeffs, _, free = columns[j]
            for mono, c in coeffs.items():
                index.append(rows[mono])
                value.append(float(c))
            if not free:
                index.append(len(rows))
                value.append(1.0)
        else:
            index += [rows[constant], len(rows)]
            value += [1.0, 1.0]
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=float)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    if h.getInfo().objective_function_value <= 1e-7:
        return None
    weights = list(h.getSolution().col_value)
    top = max(abs(w) for w in weights)
    chosen = [(tuple(sorted(combo)), m) for (combo, m, _, _, _), w in zip(columns, weights)
              if abs(w) > 1e-7 * top]
    return list(dict.fromkeys(chosen)) or None


# ------------------------------------------------------------------------------ re-checking
@dataclass(frozen=True)
class CoqVerdict:
    """Coq's answer for one claim: ``rechecked`` only when every statement captured from it
    was accepted (:func:`attnio.smt.coq.accepted`); ``reason`` says why (not); ``files``
    are ``(file name, text)`` of the accepted file (or of the last attempt); ``strategy``
    names the strategy that closed each theorem."""

    claim_id: str
    rechecked: bool
    reason: str
    strategy: str = ""
    files: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    coqc_runs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"rechecked": self.rechecked, "reason": self.reason,
                "strategy": self.strategy or None, "files": [n for n, _ in self.files],
                "seconds": round(self.seconds, 3)}


def targets(claims: Sequence[Claim], twins_of: Sequence[Claim] | None = None) -> list[Claim]:
    """What Coq re-checks among ``claims``: the claims whose declared evidence kind is one of
    :data:`KINDS`; with ``twins_of`` (the true claims), ``claims`` are false twins and the
    ones kept are the twins of such a claim.

    >>> from attnio.proofs.registry import load_claims, load_false_twins
    >>> claims = load_claims()
    >>> len(targets(claims)) >= 80, len(targets(load_false_twins(), claims)) >= 60
    (True, True)
    """
    if twins_of is None:
        return [c for c in claims if c.evidence_kind in KINDS]
    kept = {c.id for c in targets(twins_of)}
    return [c for c in claims if c.twin_of in kept]


def is_false_statement(twin: Claim) -> bool:
    """True for a twin whose statement is false (it expects ``Refuted``): Coq must not
    prove it. A twin expecting ``Undecided`` plants a path of the checker — a solver that
    answers unknown, premises that never hold, a step the conclusion does not need — with a
    statement that may be true (a vacuous implication is); what Coq says of it is reported,
    not counted."""
    return twin.expect == "refuted"


def _module_name(claim_id: str) -> str:
    out = "".join(ch if ch.isalnum() else "_" for ch in claim_id)
    return ("c_" + out)[:120]


def _theorems(claim_id: str, captured: Captured) -> list[tuple[str, list[CoqStatement]]]:
    """One group of Coq statements per captured part (a chain: its lemmas, composition and
    claim; a statement: one theorem)."""
    base = _module_name(claim_id)
    out: list[tuple[str, list[CoqStatement]]] = []
    for i, part in enumerate(captured.parts):
        name = base if len(captured.parts) == 1 else f"{base}_{i + 1}"
        if isinstance(part, CoqChainGoal):
            out.append(("chain", coq_chain(name, part.premises, part.steps, part.conclusion)))
        else:
            out.append(("statement", [coq_statement(name, part.goal, part.hypotheses,
                                                    part.domains)]))
    return out


@dataclass(frozen=True)
class _Found:
    ok: bool
    strategy: str
    proof: str
    reason: str


def _search(st: CoqStatement, timeout: float, runs: list[int], title: str = "",
            name: str = "attnio_check.v") -> _Found:
    """The first strategy whose proof of ``st`` alone coqc accepts (the file
    ``coq_document([st], [proof], title=title)`` is then accepted as it stands), or (``ok``
    False) the first strategy's attempt with every strategy's reason."""
    reasons: list[str] = []
    first: tuple[str, str] | None = None
    for strategy, proof in proof_scripts(st, lp_certificate):
        text = coq_document([st], [proof], title=title)
        run = run_coqc(text, timeout=timeout, name=name)
        runs[0] += 1
        ok, why = accepted(text, run, [st.name])
        if ok:
            return _Found(True, strategy, proof, why)
        first = first or (strategy, proof)
        reasons.append(f"{strategy}: {re.sub(r' [(]File .*?[)]$', '', why)}")
    strategy, proof = first or ("", "")
    return _Found(False, strategy, proof, f"tactic limits: no strategy closes {st.name} ("
                  + ("; ".join(reasons) or "no strategy applies") + ")")


def recheck(claim: Claim, *, timeout: float = DEFAULT_TIMEOUT_S,
            captured: Captured | None = None) -> CoqVerdict:
    """Re-prove ``claim`` in Coq (see the module docstring); never raises for a claim that
    is outside the fragment — that is a verdict with its reason. Ctrl-C goes on (coqc is
    killed first)."""
    start = time.monotonic()
    runs = [0]
    captured = captured if captured is not None else capture(claim)

    def verdict(ok: bool, reason: str, strategy: str = "",
                files: tuple[tuple[str, str], ...] = ()) -> CoqVerdict:
        return CoqVerdict(claim.id, ok, reason, strategy, files, time.monotonic() - start,
                          runs[0])

    if captured.error:
        return verdict(False, captured.error)
    if captured.unprintable:
        return verdict(False, captured.unprintable[0])
    if not captured.parts:
        return verdict(False, "no statement captured: the check calls no checker of "
                              "attnio.proofs.coq_kernel.CHECKERS")
    try:
        groups = _theorems(claim.id, captured)
    except (TranslationError, InvalidInputError) as exc:
        return verdict(False, str(exc))
    title = f"attnio claim {claim.id}: {claim.statement}"
    name = f"{_module_name(claim.id)}.v"
    if len(groups) == 1 and groups[0][0] == "statement":   # one theorem: its file is final
        (st,) = groups[0][1]
        found = _search(st, timeout, runs, title=title, name=name)
        text = coq_document([st], [found.proof], title=title)
        return verdict(found.ok, found.reason, found.strategy if found.ok else "",
                       ((name, text),))
    statements: list[CoqStatement] = []
    proofs: list[str] = []
    strategies: list[str] = []
    for kind, sts in groups:
        if kind == "statement":
            (st,) = sts
            found = _search(st, timeout, runs)
            if not found.ok:
                return verdict(False, found.reason, files=(
                    (f"{_module_name(claim.id)}.v", coq_document(sts, [found.proof])),))
            statements.append(st)
            proofs.append(found.proof)
            strategies.append(found.strategy)
            continue
        *steps, composition, whole = sts
        for st in [*steps, composition]:
            found = _search(st, timeout, runs)
            if not found.ok:
                what = "composition" if st is composition else \
                    f"step {steps.index(st) + 1} of {len(steps)}"
                return verdict(False, f"chain, {what}: {found.reason}")
            statements.append(st)
            proofs.append(found.proof)
            strategies.append(found.strategy)
        statements.append(whole)
        proofs.append(chain_glue(whole, steps, composition))
        strategies.append("chain")
    text = coq_document(statements, proofs, title=title)
    run = run_coqc(text, timeout=timeout * max(1, len(statements)), name=name)
    runs[0] += 1
    ok, why = accepted(text, run, [st.name for st in statements])
    return verdict(ok, why, "+".join(sorted(set(strategies))), ((name, text),))


def recheck_claims(claims: Sequence[Claim], *, timeout: float = DEFAULT_TIMEOUT_S,
                   show_progress: bool | None = None, prog: str = "attnio coq"
                   ) -> list[CoqVerdict]:
    """:func:`recheck` each claim in turn, behind a progress bar on stderr (off a terminal,
    a status line naming the claim every few seconds: :class:`attnio.progress.StageStatus`)."""
    out: list[CoqVerdict] = []
    bar = progress_enabled(show_progress)
    status = StageStatus(prog, enabled=show_progress is None and not bar
                         and os.environ.get("ATTNIO_PROGRESS") != "0")
    with status, status.stage(f"re-proving {len(claims)} claims in Coq"):
        for c in progress(claims, total=len(claims), desc="coq", enabled=show_progress):
            status.detail(f"claim {c.id}")
            out.append(recheck(c, timeout=timeout))
    return out


def summary_lines(verdicts: Sequence[CoqVerdict], claims: Sequence[Claim], *,
                  twins: bool = False) -> list[str]:
    """The figure and the list: ``coq: 81/84 claims re-proved by coqc`` then one line per
    claim not re-proved with its reason; for twins, how many false twins coqc rejected and
    which it accepted (a printer defect)."""
    by_id = {c.id: c for c in claims}
    if twins:
        false = [v for v in verdicts if is_false_statement(by_id[v.claim_id])]
        accepted_ids = [v.claim_id for v in false if v.rechecked]
        lines = [f"coq: {len(false) - len(accepted_ids)}/{len(false)} false twins rejected by "
                 "coqc" + ("" if not accepted_ids else
                           " — FAILED: coqc accepted " + ", ".join(accepted_ids))]
        other = [v for v in verdicts if not is_false_statement(by_id[v.claim_id])]
        if other:
            lines.append(f"coq: {len(other)} twins plant a checker path, not a false statement "
                         f"(expect undecided), not counted: " + ", ".join(
                             f"{v.claim_id} ({'accepted' if v.rechecked else 'rejected'})"
                             for v in other))
        return lines
    done = sum(1 for v in verdicts if v.rechecked)
    lines = [f"coq: {done}/{len(verdicts)} claims re-proved by coqc"]
    lines += [f"  not re-proved: {v.claim_id}: {v.reason}" for v in verdicts if not v.rechecked]
    return lines


def coq_json(verdicts: Sequence[CoqVerdict], claims: Sequence[Claim], *, twins: bool = False
             ) -> dict[str, Any]:
    """The ``"coq"`` summary of ``attnio verify --kernel coq --json``."""
    by_id = {c.id: c for c in claims}
    out: dict[str, Any] = {"coqc": coqc_version(), "checked": len(verdicts),
                           "rechecked": sum(1 for v in verdicts if v.rechecked)}
    if twins:
        false = [v for v in verdicts if is_false_statement(by_id[v.claim_id])]
        out["false_twins"] = len(false)
        out["false_twins_rejected"] = sum(1 for v in false if not v.rechecked)
        out["accepted_false_twins"] = [v.claim_id for v in false if v.rechecked]
    else:
        out["not_rechecked"] = [{"id": v.claim_id, "reason": v.reason}
                                for v in verdicts if not v.rechecked]
    return out


# ------------------------------------------------------------------------------ files
def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_folder(folder: str | os.PathLike[str], files: Sequence[tuple[str, str]]) -> list[Path]:
    """Write ``files`` (``(name, text)``) and a ``_CoqProject`` listing them into ``folder``,
    so that ``coqc`` (or ``coq_makefile -f _CoqProject``) re-checks them without attnio.

    The folder is created if missing. A file already there is replaced only if attnio
    wrote it (listed in :data:`MARKER_NAME` with the SHA-256 it still has); any other file of
    the same name is refused (one line, exit 2); other files are never touched. Writes are
    atomic (:mod:`attnio.safe_io`); each path written is returned.

    Raises
    ------
    InvalidInputError
        The folder is a symlink or not a directory, or a file attnio did not write is in
        the way.
    """
    path = validate_name_lengths(folder, "--coq-dir name")
    validate_folder_target(path, f"--coq-dir {str(folder)!r}")
    project = "-Q . AttnioClaims\n\n" + "".join(f"{name}\n" for name, _ in files)
    everything = [*files, ("_CoqProject", project)]
    marker = path / MARKER_NAME
    known: dict[str, str] = {}
    if marker.is_symlink():
        raise InvalidInputError(f"refusing to write through symlink {marker}")
    if marker.exists():
        try:
            known = dict(json.loads(marker.read_text(encoding="utf-8")).get("files", {}))
        except (OSError, ValueError, AttributeError):
            raise InvalidInputError(f"{marker} is not attnio's marker (unreadable JSON): "
                                    "choose another folder") from None
    replace: set[str] = set()
    for name, _ in everything:
        target = path / name
        if target.is_symlink():
            raise InvalidInputError(f"refusing to write through symlink {target}")
        if target.exists():
            current = _sha256(target.read_text(encoding="utf-8", errors="replace"))
            if known.get(name) != current:
                raise InvalidInputError(f"refusing to overwrite {target}: attnio did not "
                                        "write it (or it changed since); choose another "
                                        "--coq-dir or move the file")
            replace.add(name)
    path.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in everything:
        known[name] = _sha256(text)
        _write_marker(marker, known)
        written.append(write_text(path / name, text, overwrite=name in replace))
    return written


def _write_marker(marker: Path, files: Mapping[str, str]) -> None:
    data = {"format": "attnio-coq-marker/1",
            "note": "written by attnio: the Coq files it wrote and may replace; any other "
                    "file in this folder is never touched",
            "files": dict(sorted(files.items()))}
    write_text(marker, json.dumps(data, indent=2) + "\n", overwrite=marker.exists())


# ------------------------------------------------------------------------------ prove --coq
@dataclass(frozen=True)
class CoqFile:
    """``attnio prove --coq FILE``'s outcome: whether coqc re-checked the statement, why,
    and the path written (None when the statement is outside the fragment)."""

    rechecked: bool
    reason: str
    path: Path | None = None
    strategy: str = ""

    def line(self) -> str:
        """The line ``attnio prove`` prints under its verdict."""
        if self.path is None:
            return f"coq: not re-checked: {self.reason} (nothing written)"
        if self.rechecked:
            return f"coq: re-checked by coqc ({self.reason}); wrote {self.path}"
        return f"coq: NOT re-checked: {self.reason}; wrote {self.path} (coqc rejects it)"

    def to_json(self) -> dict[str, Any]:
        """``"coq"`` of ``attnio prove --json``."""
        return {"rechecked": self.rechecked, "reason": self.reason,
                "file": str(self.path) if self.path else None, "strategy": self.strategy or None}


def prove_file(statement: str, domains: Mapping[str, str], path: str | os.PathLike[str], *,
               timeout: float = DEFAULT_TIMEOUT_S) -> CoqFile:
    """Print ``statement`` (``attnio prove``'s text, with its ``--var`` domains) as a Coq
    theorem with a proof, check it with ``coqc``, and write the file to ``path`` (a new
    file: an existing one is refused) — the proof coqc accepted, or the last attempt when
    none was (the file then says so in a comment). Outside the fragment nothing is written.

    Raises
    ------
    InvalidInputError
        A malformed statement, an existing ``path``, no ``coqc``.
    """
    parsed, doms = parse_statement(statement, domains)
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise InvalidInputError(f"refusing to overwrite existing file {target} (--coq writes "
                                "a new file)")
    if coqc_binary() is None:
        raise InvalidInputError("--coq needs coqc: install Coq (Debian package `coq`, "
                                "apt-get install coq)")
    name = target.stem if target.suffix == ".v" else target.name
    try:
        st = coq_statement(_module_name(name), parsed, (), doms)
    except TranslationError as exc:
        return CoqFile(False, str(exc))
    title = f"attnio prove {statement}\n" + "".join(
        f"  --var {k}:{v}\n" for k, v in sorted(domains.items()))
    found = _search(st, timeout, [0], title=title)
    if not found.ok:
        note = ("NOT RE-CHECKED: coqc rejects the proof below (" +
                found.reason.replace("*)", "* )") + ")")
        written = write_text(target, coq_document([st], [found.proof], title=title + note))
        return CoqFile(False, found.reason, written)
    written = write_text(target, coq_document([st], [found.proof], title=title))
    return CoqFile(True, f"coqc accepted {st.name} (strategy {found.strategy})", written,
                   found.strategy)
