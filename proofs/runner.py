r"""Run claims and false twins (their table and JSON: :mod:`attnio.reporting.verdicts`).

This is the engine behind ``attnio verify`` (:mod:`attnio.commands.verify`):

* :func:`select` filters claims by an fnmatch glob or a substring of the id or the family;
* :func:`run_claims` checks them in order behind a progress bar (stderr) and returns one
  :class:`ClaimResult` each — a crashing check is already ``Undecided`` (see
  :meth:`~attnio.proofs.registry.Claim.check`);
* :func:`summary` and :func:`evidence_summary` count the verdicts (the JSON document and
  the verdict table that print them are :mod:`attnio.reporting.verdicts`: a library room
  below the commands renders no table and no JSON, issue 40);
* :func:`self_test` checks the planted false twins, each of which must be *rejected*, and
  :func:`coverage` counts the twins per family (a family with claims but no twin is a
  gap in the soundness net).

Success is decided in one place: :func:`all_claims_proved` is True only when at least one claim
ran and every verdict is ``Proved``; :func:`all_twins_refuted` only when every twin is
rejected (:meth:`~attnio.proofs.registry.Claim.rejects`): ``Refuted``, or — for a twin that
plants an input whose honest answer is "don't know" and says so (``expect="undecided"``) —
``Undecided`` for the reason it names. A ``Proved`` twin is never rejected, and an
``Undecided`` one only on that declared path: an unrejected twin means the checker cannot be
trusted to fail.

Examples
--------
>>> from attnio.results import Proved, Undecided
>>> from attnio.proofs.registry import Claim
>>> ok = Claim("demo.ok", "true", "true", "test", "python", "demo", lambda ctx: Proved("yes"))
>>> bad = Claim("demo.bad", "unknown", "?", "test", "python", "demo",
...             lambda ctx: Undecided("budget"))
>>> results = run_claims([ok, bad], show_progress=False)
>>> [r.verdict.verdict for r in results], all_claims_proved(results)
(['proved', 'undecided'], False)
>>> summary(results)
{'proved': 1, 'refuted': 0, 'undecided': 1}
>>> [c.id for c in select([ok, bad], "*.ok")]
['demo.ok']
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import time
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from attnio.parallel import map_instances
from attnio.progress import StageStatus, progress, progress_enabled
from attnio.proofs.registry import CheckContext, Claim
from attnio.results import Undecided, Verdict

__all__ = [
    "ClaimResult",
    "select",
    "run_claims",
    "run_claims_parallel",
    "was_interrupted",
    "INTERRUPTED",
    "TIME_LIMIT_REACHED",
    "stopped_by_time_limit",
    "bounded_context",
    "summary",
    "evidence_summary",
    "all_claims_proved",
    "all_twins_refuted",
    "twins_rejected",
    "self_test",
    "coverage",
    "format_coverage",
]


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """A claim together with the verdict of one check."""

    claim: Claim
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        """The JSON row of ``attnio verify --json``."""
        v = self.verdict.to_json()
        row: dict[str, Any] = {
            "id": self.claim.id,
            "statement": self.claim.statement,
            "source": self.claim.source + (" [RECONSTRUCTED]" if self.claim.reconstructed else ""),
            "method": self.claim.method,
            "verdict": self.verdict.verdict,
            "seconds": round(self.verdict.seconds, 4),
            "detail": self.verdict.detail,
            "family": self.claim.family,
            "tier": self.claim.tier,
        }
        evidence = self.verdict.evidence
        row["evidence"] = evidence.to_json() if evidence else None
        row["solvers"] = dict(evidence.solvers) if evidence else {}
        if "counterexample" in v:
            row["counterexample"] = v["counterexample"]
        if self.claim.twin_of is not None:
            row["twin_of"] = self.claim.twin_of
            row["expect"] = self.claim.expect
            row["rejected"] = self.claim.rejects(self.verdict)
        return row


def select(claims: Sequence[Claim], pattern: str | None = None, *, deep: bool = False
           ) -> list[Claim]:
    """Claims of the requested tier whose id or family matches ``pattern``.

    ``pattern`` is an fnmatch glob (``"bwd.*"``) or, failing that, a substring (``"lemma33"``);
    several patterns separated by commas select the union. ``None`` selects everything.
    The stand-in claims of modules that failed to import are always selected.
    Without ``deep`` only ``tier == "default"`` claims are kept.
    """
    chosen = [c for c in claims if deep or c.tier == "default"]
    if pattern is None:
        return chosen
    patterns = [p.strip() for p in pattern.split(",") if p.strip()]
    # A module that failed to import is always reported: --only never hides it.
    return [c for c in chosen
            if c.family == "import" or any(fnmatch.fnmatchcase(key, pat) or pat in key
                                           for key in (c.id, c.family) for pat in patterns)]


#: The reason given to claims that a Ctrl-C stopped (see :func:`run_claims`).
INTERRUPTED = "interrupted before this claim finished"
#: The reason given to claims not run because the deadline had passed (``--time-limit``).
TIME_LIMIT_REACHED = "not run: the time limit was reached first"


def bounded_context(ctx: CheckContext, deadline: float | None) -> CheckContext:
    """``ctx`` with every solver call and search bounded by the time left before
    ``deadline`` (a :func:`time.monotonic` instant; at least 1 ms): a claim started just
    before the deadline cannot run on for the full ``--solver-time-limit``."""
    if deadline is None:
        return ctx
    left = max(0.001, deadline - time.monotonic())
    return dataclasses.replace(ctx, z3_timeout_ms=max(1, min(ctx.z3_timeout_ms, int(left * 1000))),
                               search_seconds=min(ctx.search_seconds, left))


def run_claims(claims: Iterable[Claim], ctx: CheckContext | None = None, *,
               show_progress: bool | None = None, desc: str = "verify",
               stop_on_interrupt: bool = False, deadline: float | None = None
               ) -> list[ClaimResult]:
    """Check each claim in turn (progress bar on stderr) and return the results in order.

    With ``stop_on_interrupt`` a Ctrl-C does not lose the work done: the claim being checked
    and every later one come back ``Undecided(INTERRUPTED)`` (never a pass), and the caller
    decides the exit code (``attnio verify`` prints the partial table and exits 130).

    With ``deadline`` (a :func:`time.monotonic` instant) no claim starts after it — the rest
    come back ``Undecided(TIME_LIMIT_REACHED)`` — and each claim's solver calls and searches
    are bounded by the time left (:func:`bounded_context`).
    """
    claims = list(claims)
    ctx = ctx or CheckContext()
    results: list[ClaimResult] = []
    bar = progress_enabled(show_progress)
    # Off a terminal there is no bar: a status line names the running claim every few seconds.
    status = StageStatus(f"attnio {desc}", enabled=show_progress is None and not bar
                         and os.environ.get("ATTNIO_PROGRESS") != "0")
    try:
        with status, status.stage(f"checking {len(claims)} claims"):
            for c in progress(claims, total=len(claims), desc=desc, enabled=show_progress):
                if deadline is not None and time.monotonic() >= deadline:
                    break
                status.detail(f"claim {c.id}")
                results.append(ClaimResult(c, c.check(bounded_context(ctx, deadline))))
    except KeyboardInterrupt:
        if not stop_on_interrupt:
            raise
        results += [ClaimResult(c, Undecided(INTERRUPTED)) for c in claims[len(results):]]
    results += [ClaimResult(c, Undecided(TIME_LIMIT_REACHED)) for c in claims[len(results):]]
    return results


def stopped_by_time_limit(results: Sequence[ClaimResult]) -> bool:
    """True if the deadline stopped the run that produced ``results`` before every claim ran."""
    return any(isinstance(r.verdict, Undecided) and r.verdict.reason == TIME_LIMIT_REACHED
               for r in results)


def _check_by_id(job: tuple[str, bool, CheckContext]) -> Verdict:
    """What a Dask worker runs: look the claim (or twin) up by id in its own registry and
    check it (claims hold closures; ids and verdicts travel, claims do not)."""
    from attnio.proofs.registry import load_claims, load_false_twins

    claim_id, twin, ctx = job
    pool = load_false_twins() if twin else load_claims()
    claim = next(c for c in pool if c.id == claim_id)
    return claim.check(ctx)


def run_claims_parallel(claims: Sequence[Claim], ctx: CheckContext | None = None, *,
                        workers: int | None = None, scheduler: str | None = None,
                        twins: bool = False, desc: str = "verify",
                        deadline: float | None = None) -> list[ClaimResult]:
    """:func:`run_claims` on Dask (:func:`attnio.parallel.map_instances`): one task per claim,
    results in the claims' order, identical verdicts to the serial run. A claim whose worker
    died twice is ``Undecided`` with the reason — never dropped; one not finished by
    ``deadline`` is ``Undecided(TIME_LIMIT_REACHED)``."""

    ctx = ctx or CheckContext()
    claims = list(claims)
    jobs = [(c.id, twins, ctx) for c in claims]
    if deadline is not None:  # submitted together: each bounded by the whole time left
        jobs = [(c.id, twins, bounded_context(ctx, deadline)) for c in claims]
    verdicts = map_instances(_check_by_id, jobs, workers=workers, scheduler=scheduler,
                             desc=desc, on_failure=lambda job, reason: Undecided(
                                 f"the Dask worker checking {job[0]} died twice: {reason}"),
                             deadline=deadline,
                             on_timeout=lambda job: Undecided(TIME_LIMIT_REACHED))
    return [ClaimResult(c, v) for c, v in zip(claims, verdicts)]


def was_interrupted(results: Sequence[ClaimResult]) -> bool:
    """True if a Ctrl-C stopped the run that produced ``results``."""
    return any(isinstance(r.verdict, Undecided) and r.verdict.reason == INTERRUPTED
               for r in results)


def summary(results: Iterable[ClaimResult]) -> dict[str, int]:
    """Counts of each verdict: ``{"proved": .., "refuted": .., "undecided": ..}``."""
    counts = {"proved": 0, "refuted": 0, "undecided": 0}
    for r in results:
        counts[r.verdict.verdict] += 1
    return counts


def evidence_summary(results: Iterable[ClaimResult]) -> dict[str, dict[str, int]]:
    """Per evidence kind, the count of each verdict, e.g. ``{"smt-forall": {"proved": 60}}``;
    plus ``"solver_agreement"``: how many SMT verdicts cvc5 confirmed, could not decide, or
    could not take (``n/a``)."""
    out: dict[str, dict[str, int]] = {}
    agreement = {"confirmed": 0, "cvc5_undecided": 0, "cvc5_n/a": 0, "z3_only": 0}
    for r in results:
        ev = r.verdict.evidence
        kind = ev.kind if ev else "none"
        out.setdefault(kind, {}).setdefault(r.verdict.verdict, 0)
        out[kind][r.verdict.verdict] += 1
        if ev and ev.kind == "smt-forall" and r.verdict.verdict != "undecided":
            second = ev.solvers.get("cvc5")
            key = {"proved": "confirmed", "refuted": "confirmed", "undecided": "cvc5_undecided",
                   "n/a": "cvc5_n/a"}.get(second or "", "z3_only")
            agreement[key] += 1
    out["solver_agreement"] = agreement
    return out


def all_claims_proved(results: Sequence[ClaimResult]) -> bool:
    """True only if at least one claim ran and every one is ``Proved``."""
    return bool(results) and all(r.verdict.proved for r in results)


def all_twins_refuted(results: Sequence[ClaimResult]) -> bool:
    """True only if at least one twin ran and every one is rejected
    (:meth:`~attnio.proofs.registry.Claim.rejects`: ``Refuted``, or the declared ``Undecided``)."""
    return bool(results) and all(r.claim.rejects(r.verdict) for r in results)


def twins_rejected(results: Iterable[ClaimResult]) -> int:
    """How many twins of ``results`` were rejected (the self-test's count)."""
    return sum(1 for r in results if r.claim.rejects(r.verdict))


def self_test(twins: Sequence[Claim], ctx: CheckContext | None = None, *,
              show_progress: bool | None = None, stop_on_interrupt: bool = False,
              deadline: float | None = None) -> list[ClaimResult]:
    """Check every planted false twin; each must be rejected (see :func:`all_twins_refuted`)."""
    return run_claims(twins, ctx, show_progress=show_progress, desc="self-test",
                      stop_on_interrupt=stop_on_interrupt, deadline=deadline)


def coverage(claims: Sequence[Claim], twin_results: Sequence[ClaimResult]
             ) -> dict[str, tuple[int, int, int]]:
    """Per family: ``(claims, twins, twins rejected)``; families of claims and of twins both."""
    families = sorted({c.family for c in claims} | {r.claim.family for r in twin_results})
    out: dict[str, tuple[int, int, int]] = {}
    for fam in families:
        n_claims = sum(1 for c in claims if c.family == fam)
        fam_twins = [r for r in twin_results if r.claim.family == fam]
        out[fam] = (n_claims, len(fam_twins), twins_rejected(fam_twins))
    return out


def format_coverage(cov: dict[str, tuple[int, int, int]]) -> str:
    """One line per family: ``coverage <family>: <refuted>/<twins> twins refuted, <k> claims``;
    a family with claims but no twin is flagged ``NO TWIN``."""
    lines = []
    for fam, (n_claims, n_twins, refuted) in cov.items():
        flag = "" if n_twins else "  NO TWIN"
        flag = flag or ("" if refuted == n_twins else "  NOT ALL REFUTED")
        lines.append(f"coverage {fam}: {refuted}/{n_twins} twins refuted, {n_claims} claims{flag}")
    return "\n".join(lines)
