"""The claim registry: every machine-checked statement of attnio, with its provenance.

A *claim* is one statement (text plus its sympy / z3 form), its source (paper, theorem or
lemma number, arXiv id, RECONSTRUCTED flag), the method that checks it, and ``check()``
returning :class:`~attnio.results.Proved`, :class:`~attnio.results.Refuted` (with a
counterexample) or :class:`~attnio.results.Undecided` (with the reason), timed in seconds.

A *false twin* is a planted false variant of a claim (a wrong crossover, a constant too large,
a partition bound + 1, a dropped hypothesis, an illegal schedule). Twins must come out
``Refuted``; ``attnio verify --self-test`` fails if any does not. They prove the checkers can
fail.

A twin that drives a checker down a path whose honest answer is *not knowing* (an unsettled
optimum, a route that is zero everywhere, a solver that answers ``unknown``) declares
``expect="undecided"`` with the ``expect_reason`` its ``Undecided`` must give: it is rejected
only by that ``Undecided`` (:meth:`Claim.rejects`). A twin that comes out ``Proved`` is never
rejected, and an ``Undecided`` for another reason (a crash, a timeout elsewhere) is not either.

Evidence rules (:meth:`Claim.check`): a verdict without :class:`~attnio.results.Evidence`
gets the claim's declared ``evidence_kind``; a ``Proved`` whose evidence is ``"definition"``
is reported ``Undecided``; so is an ``"exhaustive"`` ``Proved`` that does not say how many
instances it ran and how many of them could have failed, or where none could have.

Claim modules
-------------
Any module of :mod:`attnio.proofs` that defines a module-level ``CLAIMS`` list (and usually a
``FALSE_TWINS`` list) is discovered by :func:`load_claims`; nothing needs registering by hand.
Each such module ends with::

    if __name__ == "__main__":
        raise SystemExit(run_module(CLAIMS, FALSE_TWINS))

so ``python -m attnio.proofs.<module>`` checks just that family. A claim module that fails
to import does not stop the run: it becomes one ``Undecided`` claim ``import.<module>``.
The machinery modules of :mod:`attnio.proofs` (``registry``, ``runner``, ``algebra``) are
never scanned; the SMT machinery lives in :mod:`attnio.smt`, the commands in
:mod:`attnio.commands`.

>>> from attnio.results import Proved
>>> c = Claim(id="demo.true", statement="1 + 1 = 2", formal="1 + 1 == 2",
...           source="arithmetic", method="python", family="demo",
...           check_fn=lambda ctx: Proved("evaluated"))
>>> v = c.check()
>>> v.verdict, v.seconds >= 0
('proved', True)
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal

from attnio.results import (
    EVIDENCE_KINDS,
    Evidence,
    Proved,
    Refuted,
    Undecided,
    Verdict,
    with_evidence,
    with_seconds,
)

__all__ = [
    "Claim",
    "CheckContext",
    "load_claims",
    "load_false_twins",
    "claim_modules",
    "run_module",
]

Tier = Literal["default", "deep"]
Expect = Literal["refuted", "undecided"]


@dataclass(frozen=True, slots=True)
class CheckContext:
    """Knobs every check receives. ``z3_timeout_ms`` bounds each solver call; a timeout is
    ``Undecided``. ``deep`` enables the exhaustive tier; ``second_solver`` re-checks every
    SMT verdict with cvc5."""

    z3_timeout_ms: int = 20_000
    deep: bool = False
    search_seconds: float = 60.0
    second_solver: bool = True


@dataclass(frozen=True, slots=True)
class Claim:
    """One checkable statement.

    Parameters
    ----------
    id : str
        Stable identifier, dotted: ``"<family>.<what>"`` (e.g. ``"bwd.branch_min_large"``).
    statement : str
        The claim in words, with its admissible range.
    formal : str
        Its sympy / z3 form as text (what is actually checked).
    source : str
        Paper, theorem or lemma number and arXiv id; ``"attnio"`` for our own lemmas.
    method : str
        How it is checked (``"z3 NRA"``, ``"sympy simplify"``, ``"exact pebbling"``, ...).
    family : str
        Group name used by ``--only`` and the self-test coverage report.
    check_fn : callable
        ``check_fn(ctx) -> Verdict``; must return ``Undecided`` on unknown/timeout/budget.
    reconstructed : bool
        True when our statement is not verbatim from the source (see notes/reference/).
    tier : {"default", "deep"}
        ``deep`` claims run only with ``attnio verify --deep``.
    twin_of : str or None
        For a false twin: the id of the true claim it perturbs.
    evidence_kind : str or None
        What the check rests on (:data:`attnio.results.EVIDENCE_KINDS`) when its verdict does
        not carry :class:`~attnio.results.Evidence` itself. A claim whose evidence is
        ``"definition"`` is never reported Proved.
    expect : {"refuted", "undecided"}
        For a false twin only: the verdict that rejects it (see :meth:`rejects`). ``"undecided"``
        is for a planted input whose honest answer is "don't know" and needs ``expect_reason``.
    expect_reason : str
        A substring the rejecting verdict's detail (``Refuted``) or reason (``Undecided``) must
        contain, so that the twin proves the checker took *this* failure path.
    """

    id: str
    statement: str
    formal: str
    source: str
    method: str
    family: str
    check_fn: Callable[[CheckContext], Verdict] = field(repr=False, compare=False)
    reconstructed: bool = False
    tier: Tier = "default"
    twin_of: str | None = None
    evidence_kind: str | None = None
    expect: Expect = "refuted"
    expect_reason: str = ""

    def __post_init__(self) -> None:
        if self.evidence_kind is not None and self.evidence_kind not in EVIDENCE_KINDS:
            raise ValueError(f"claim {self.id}: evidence_kind {self.evidence_kind!r} is not one "
                             f"of {EVIDENCE_KINDS}")
        if self.expect not in ("refuted", "undecided"):
            raise ValueError(f"claim {self.id}: expect={self.expect!r} must be 'refuted' or "
                             "'undecided'")
        if self.twin_of is None and (self.expect != "refuted" or self.expect_reason):
            raise ValueError(f"claim {self.id}: expect / expect_reason are for false twins only")
        if self.expect == "undecided" and not self.expect_reason:
            raise ValueError(f"claim {self.id}: a twin expected Undecided must name the reason "
                             "(expect_reason), else a crash would count as a rejection")

    def rejects(self, verdict: Verdict) -> bool:
        """True when ``verdict`` rejects this false twin: ``Refuted`` (or, for a twin with
        ``expect="undecided"``, ``Undecided``) whose text contains ``expect_reason``.

        A ``Proved`` twin is never rejected; neither is a verdict of the other kind.

        >>> from attnio.results import Proved, Refuted, Undecided
        >>> t = Claim("d.t", "s", "f", "src", "python", "demo", lambda ctx: Proved(),
        ...           twin_of="d.c", expect="undecided", expect_reason="vacuous")
        >>> t.rejects(Undecided("vacuous: never positive")), t.rejects(Undecided("timeout"))
        (True, False)
        >>> t.rejects(Refuted({}, "vacuous")), t.rejects(Proved("vacuous"))
        (False, False)
        """
        if self.expect == "refuted" and isinstance(verdict, Refuted):
            return self.expect_reason in verdict.detail
        if self.expect == "undecided" and isinstance(verdict, Undecided):
            return self.expect_reason in verdict.reason
        return False

    def as_declared(self, verdict: Verdict) -> bool:
        """True when ``verdict`` is what this entry declares: ``Proved`` for a true claim, a
        rejection (:meth:`rejects`) for a false twin — the test of every registry entry.

        >>> from attnio.results import Proved, Refuted
        >>> c = Claim("d.c", "s", "f", "src", "python", "demo", lambda ctx: Proved())
        >>> t = Claim("d.t", "s", "f", "src", "python", "demo", lambda ctx: Proved(),
        ...           twin_of="d.c")
        >>> c.as_declared(Proved()), c.as_declared(Refuted({}, "x"))
        (True, False)
        >>> t.as_declared(Refuted({}, "x")), t.as_declared(Proved())
        (True, False)
        """
        return self.rejects(verdict) if self.twin_of is not None else verdict.proved

    def check(self, ctx: CheckContext | None = None) -> Verdict:
        """Run the check and return its verdict with the seconds it took.

        An exception inside the check is *not* a pass: it becomes ``Undecided`` naming it.
        """
        ctx = ctx or CheckContext()
        start = time.perf_counter()
        try:
            verdict = self.check_fn(ctx)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a crashing checker decides nothing
            verdict = Undecided(f"check raised {type(exc).__name__}: {exc}")
        if not isinstance(verdict, (Proved, Refuted, Undecided)):
            verdict = Undecided(f"check returned {type(verdict).__name__}, not a verdict")
        if verdict.evidence is None and self.evidence_kind is not None:
            solvers = {"z3": str(verdict.verdict.value)} if self.evidence_kind == "smt-forall" else {}
            verdict = with_evidence(verdict, Evidence(self.evidence_kind, solvers=solvers))
        if isinstance(verdict, Proved):
            verdict = _evidence_rules(verdict)
        return with_seconds(verdict, time.perf_counter() - start)


def _evidence_rules(verdict: Proved) -> Verdict:
    """A ``Proved`` that rests on nothing a false claim could fail is ``Undecided``: a
    definition, or an enumeration that does not count its (non-trivial) instances."""
    ev = verdict.evidence
    if ev is None:
        return verdict
    if ev.kind == "definition":
        return Undecided("true by construction: a definition is reported, never counted "
                         "as a proof", evidence=ev)
    if ev.kind == "exhaustive":
        if ev.instances is None or ev.nontrivial_instances is None:
            return Undecided("exhaustive evidence without instance counts: how many instances "
                             "ran, and how many could have failed, is part of the proof",
                             evidence=ev)
        if ev.nontrivial_instances <= 0:
            return Undecided(f"vacuous: none of the {ev.instances} instances could have failed",
                             evidence=ev)
    return verdict


#: Modules of :mod:`attnio.proofs` that are machinery, not claims (never scanned).
_NOT_CLAIM_MODULES = frozenset({"registry", "runner", "algebra"})


def claim_modules() -> list[str]:
    """Names of the :mod:`attnio.proofs` modules that define ``CLAIMS``.

    A module that fails to import is listed too: :func:`load_claims` turns it into one
    ``Undecided`` claim ``import.<module>`` instead of crashing the whole run.
    """
    import attnio.proofs as pkg

    names = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _NOT_CLAIM_MODULES:
            continue
        try:
            module = importlib.import_module(f"attnio.proofs.{info.name}")
        except Exception:  # reported by _collect as an Undecided claim
            names.append(f"attnio.proofs.{info.name}")
            continue
        if hasattr(module, "CLAIMS"):
            names.append(module.__name__)
    return names


def _import_failure(name: str, exc: Exception, *, twin: bool = False) -> Claim:
    """An ``Undecided`` stand-in for a claim module that cannot be imported.

    It is a claim (so ``verify`` fails) and, with ``twin=True``, a twin (so ``--self-test``
    fails too: an Undecided twin is never "rejected"), and it names the module."""
    reason = f"module {name} failed to import: {type(exc).__name__}: {exc}"
    short = name.rsplit('.', 1)[-1]
    return Claim(id=f"import.{short}" + (".twins" if twin else ""),
                 statement=f"{name} imports", formal="import", source="attnio",
                 method="import", family="import", check_fn=lambda ctx: Undecided(reason),
                 twin_of=f"import.{short}" if twin else None)


def _collect(attr: str, modules: Iterable[str] | None) -> list[Claim]:
    out: list[Claim] = []
    seen: set[str] = set()
    for name in modules if modules is not None else claim_modules():
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # a broken module decides nothing, and says so — in both lists
            out.append(_import_failure(name, exc, twin=attr != "CLAIMS"))
            continue
        for claim in getattr(module, attr, []):
            if claim.id in seen:
                raise ValueError(f"duplicate claim id {claim.id!r} (in {name})")
            seen.add(claim.id)
            out.append(claim)
    return out


def load_claims(modules: Iterable[str] | None = None) -> list[Claim]:
    """All true claims, in module order."""
    return _collect("CLAIMS", modules)


def load_false_twins(modules: Iterable[str] | None = None) -> list[Claim]:
    """All planted false claims (each must come out ``Refuted``)."""
    return _collect("FALSE_TWINS", modules)


def run_module(claims: list[Claim], false_twins: list[Claim] | None = None,
               ctx: CheckContext | None = None) -> int:
    """Check one module's claims from ``python -m``; prints one line each. Exit 0 iff every
    claim is Proved and every false twin rejected (:meth:`Claim.rejects`)."""
    ok = True
    for claim in claims:
        v = claim.check(ctx)
        ok &= claim.as_declared(v)
        print(f"{v.verdict:9s} {v.seconds:7.3f}s  {claim.id}: {v.detail}")
    for twin in false_twins or []:
        v = twin.check(ctx)
        ok &= twin.as_declared(v)
        mark = "rejected" if twin.as_declared(v) else "NOT REJECTED"
        print(f"{mark:12s} {v.seconds:7.3f}s  {twin.id} (false twin): {v.detail}")
    return 0 if ok else 1
