r"""The axioms of the exp/log fragment of the proof kernel, each a claim with its false twin.

``attnio prove`` and every claim decided by :func:`attnio.smt.kernel.prove_statement` read
``exp`` and ``log`` as uninterpreted functions constrained by instances of these axioms
(:mod:`attnio.smt.explog`, issue 38). A proof that uses them is only as sound as they are
true, so each is checked here on its own, by :func:`attnio.smt.explog.check_axiom` — sympy's
calculus on the axiom's own statement (a derivative's sign by ``solveset``, an exact value at
the turning point, an identity reduced to 0), never the bridge that uses the axiom — and each
has a false twin that exact evaluation must refute at a point.

Proof map: one claim ``explog.<name>`` per entry of :data:`attnio.smt.explog.AXIOMS`, its
twin ``explog.<name>.twin``; the statements and recipes are listed in that module's
docstring. Source: the textbook properties of the real exponential and logarithm (W. Rudin,
*Principles of Mathematical Analysis*, 3rd ed., Ch. 8, Thm 8.6).

Run ``python -m attnio.proofs.explog_axioms`` to check this family alone.

Examples
--------
>>> CLAIMS[0].id, FALSE_TWINS[0].id
('explog.exp_positive', 'explog.exp_positive.twin')
"""

from __future__ import annotations

from typing import Callable

from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Verdict
from attnio.smt.explog import AXIOMS, Axiom, check_axiom

__all__ = ["CLAIMS", "FALSE_TWINS"]

FAMILY = "explog"
SOURCE = ("real analysis: the exponential and the logarithm (W. Rudin, Principles of "
          "Mathematical Analysis, 3rd ed., Ch. 8, Thm 8.6); attnio's kernel axioms, issue 38")


def _check(axiom: Axiom, *, twin: bool) -> Callable[[CheckContext], Verdict]:
    def check(ctx: CheckContext) -> Verdict:
        return check_axiom(axiom, twin=twin)
    return check


def _domains(axiom: Axiom, twin: bool) -> str:
    domains = axiom.twin_domains if twin else axiom.domains
    return ", ".join(f"{name} {domain}" for name, domain in domains.items())


CLAIMS = [
    Claim(id=axiom.id, statement=f"{axiom.statement} for {_domains(axiom, False)}",
          formal=axiom.statement, source=SOURCE, method=f"sympy calculus ({axiom.proof[0]})",
          family=FAMILY, check_fn=_check(axiom, twin=False), evidence_kind="sympy-calculus")
    for axiom in AXIOMS
]

FALSE_TWINS = [
    Claim(id=f"{axiom.id}.twin", statement=f"{axiom.twin} for {_domains(axiom, True)} (false)",
          formal=axiom.twin, source=SOURCE, method="exact evaluation on a grid",
          family=FAMILY, check_fn=_check(axiom, twin=True), twin_of=axiom.id,
          evidence_kind="exact-arithmetic")
    for axiom in AXIOMS
]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
