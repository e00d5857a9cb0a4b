r"""Claims proved as chains: every step on its own, and the conclusion *from the steps*.

A lower-bound argument is a chain of inequalities. Proving each link on its own is not a proof
of the theorem: nothing checks that the links fit together, so a link can be deleted or
weakened and every check still passes. :func:`check_chain` closes that gap. A
:class:`Chain` has

* ``premises`` :math:`P` — what the claim assumes (domains, the definitions of auxiliary
  variables such as :math:`r^2 = c,\ r \ge 0` for :math:`r = \sqrt c`, the combinatorial
  facts of the argument);
* ``steps`` — each a :class:`Step` ``(name, hypotheses H_i, conclusion C_i)``; a hypothesis is a
  premise or anything else (typically an earlier step's conclusion);
* ``conclusion`` :math:`G`.

The claim is :math:`\forall x:\ P(x) \Rightarrow G(x)`. :func:`check_chain` decides it in
four stages, each of which can fail:

1. **Premises** — :math:`P` must be satisfiable (else Undecided, "vacuous").
2. **Steps** — each :math:`H_i \Rightarrow C_i` is proved on its own
   (:func:`attnio.smt.z3tools.prove`: z3, re-checked by cvc5); a step with unsatisfiable
   hypotheses is Undecided ("vacuous step"); a false step is Refuted with its counterexample;
   an unknown step is Undecided.
3. **Composition** — the conclusion must follow from the steps *alone*: with
   :math:`F_i = (H_i \setminus P) \Rightarrow C_i` (hypotheses that are premises are
   discharged; every other hypothesis stays an antecedent), the solver must show
   :math:`F_1 \wedge \dots \wedge F_k \wedge \neg G` unsatisfiable. The premises themselves are
   *not* given to it, so it cannot re-derive a link from them: the links are all it has. A
   composition that fails with a model is Refuted with that model (the steps hold there, the
   conclusion does not); an unknown one is Undecided.
4. **Necessity** — for every step :math:`j`, :math:`\bigwedge_{i \ne j} F_i \wedge \neg G` must
   be satisfiable: no step is decorative, so deleting any one of them makes stage 3 fail. A
   redundant step is Undecided (the chain proves less than it says it does).

Soundness: if every :math:`H_i \Rightarrow C_i` is valid and :math:`P` holds, each :math:`F_i`
holds (its discharged hypotheses are premises); stage 3 then gives :math:`G`. So
:math:`P \Rightarrow G`, with every step used.

Chains written in sympy (the catalogue's expressions, the registered claims' problems) go
through :func:`sympy_chain`: one translator (:class:`attnio.smt.sympy_to_z3.Translator`,
each symbol in its declared domain) for the whole chain, so a hypothesis and the conclusion it
cites become the same z3 term; the domain facts (and :math:`M = s^2`) are premises.

Planted variants for false twins: :meth:`Chain.without` deletes a step,
:meth:`Chain.replacing` swaps one in (e.g. a weakened conclusion), :meth:`Chain.with_step`
and :meth:`Chain.with_premise` add one. The solver calls are a slot
(:class:`Solvers`), so a twin can also plant a solver that answers ``unknown``.

Examples
--------
>>> import z3
>>> x, y, z = z3.Reals("x y z")
>>> chain = Chain(premises=(x >= 0, y >= x, z >= y),
...               steps=(Step("y ≥ 0", y >= 0, (x >= 0, y >= x)),
...                      Step("z ≥ 0", z >= 0, (z >= y, y >= 0))),
...               conclusion=z >= 0)
>>> check_chain(chain).verdict
'proved'
>>> v = check_chain(chain.without("y ≥ 0"))
>>> v.verdict, "does not follow" in v.detail
('refuted', True)
>>> check_chain(chain.replacing("y ≥ 0", Step("y ≥ -1", y >= -1, (x >= 0, y >= x)))).verdict
'refuted'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import z3

from attnio.results import Evidence, Proved, Refuted, Undecided, Verdict
from attnio.smt.statements import declared_domains
from attnio.smt.z3tools import check_sat, prove

__all__ = ["Step", "Chain", "Solvers", "check_chain", "composition_facts", "unknown_for",
           "sympy_chain"]


@dataclass(frozen=True)
class Step:
    """One link: ``hypotheses ⇒ conclusion`` (z3 formulas), named as in the proof."""

    name: str
    conclusion: z3.BoolRef
    hypotheses: Sequence[z3.BoolRef] = ()   # stored as a tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))


@dataclass(frozen=True)
class Chain:
    """Premises, steps and the conclusion of one stepped claim (see the module docstring)."""

    premises: Sequence[z3.BoolRef]   # stored as a tuple
    steps: Sequence[Step]            # stored as a tuple
    conclusion: z3.BoolRef

    def __post_init__(self) -> None:
        object.__setattr__(self, "premises", tuple(self.premises))
        object.__setattr__(self, "steps", tuple(self.steps))
        names = [s.name for s in self.steps]
        if len(names) != len(set(names)):
            raise ValueError(f"step names must be unique: {names}")

    def step(self, name: str) -> Step:
        """The step called ``name`` (``KeyError`` naming it otherwise)."""
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(f"no step {name!r} in this chain (steps: {[s.name for s in self.steps]})")

    def without(self, name: str) -> "Chain":
        """The same chain with the step ``name`` deleted (a planted false twin)."""
        self.step(name)
        return replace(self, steps=tuple(s for s in self.steps if s.name != name))

    def replacing(self, name: str, step: Step) -> "Chain":
        """The same chain with the step ``name`` replaced by ``step`` (e.g. weakened)."""
        self.step(name)
        return replace(self, steps=tuple(step if s.name == name else s for s in self.steps))

    def with_step(self, step: Step) -> "Chain":
        """The same chain with ``step`` appended (e.g. a redundant or vacuous one)."""
        return replace(self, steps=(*self.steps, step))

    def with_premise(self, premise: z3.BoolRef) -> "Chain":
        """The same chain with ``premise`` added (e.g. one that contradicts the others)."""
        return replace(self, premises=(*self.premises, premise))


@dataclass(frozen=True)
class Solvers:
    """The two solver calls a chain needs (a slot, so that a twin can plant an answer).

    ``prove(goal, hypotheses, timeout_ms)`` returns a Verdict; ``sat(formulas, timeout_s)``
    returns ``("sat" | "unsat" | "unknown", model, reason)``. :meth:`default` is
    :func:`attnio.smt.z3tools.prove` (z3, re-checked by cvc5 unless ``second_solver`` is
    False) and :func:`attnio.smt.z3tools.check_sat`.
    """

    prove: Callable[[z3.BoolRef, list[z3.BoolRef], int], Verdict]
    sat: Callable[[list[z3.BoolRef], float], tuple[str, z3.ModelRef | None, str]]

    @classmethod
    def default(cls, second_solver: bool = True) -> "Solvers":
        def z3_prove(goal: z3.BoolRef, hyps: list[z3.BoolRef], timeout_ms: int) -> Verdict:
            verdict = prove(goal, hyps, timeout_ms=timeout_ms, second_solver=second_solver)
            if verdict.evidence is None:   # z3 alone: say so
                verdict = replace(verdict, evidence=Evidence(
                    "smt-forall", solvers={"z3": str(verdict.verdict.value)}))
            return verdict

        return cls(prove=z3_prove, sat=check_sat)


def _member(h: z3.BoolRef, pool: Sequence[z3.BoolRef]) -> bool:
    return any(h.eq(p) for p in pool)


def composition_facts(chain: Chain) -> list[z3.BoolRef]:
    r"""The step statements the composition may use: :math:`(H_i \setminus P) \Rightarrow C_i`.

    >>> x = z3.Real("x")
    >>> chain = Chain((x >= 1,), (Step("pos", x > 0, (x >= 1,)), Step("sq", x * x > 0, (x > 0,))),
    ...               x * x > 0)
    >>> composition_facts(chain)
    [x > 0, Implies(x > 0, x*x > 0)]
    """
    facts = []
    for s in chain.steps:
        rest = [h for h in s.hypotheses if not _member(h, chain.premises)]
        facts.append(s.conclusion if not rest else
                     z3.Implies(rest[0] if len(rest) == 1 else z3.And(rest), s.conclusion))
    return facts


def _merge(solvers: dict[str, str], verdict: Verdict) -> None:
    """Record each solver's answer; a solver that answered differently elsewhere is 'mixed'."""
    for name, answer in (verdict.evidence.solvers if verdict.evidence else {}).items():
        solvers[name] = answer if solvers.get(name, answer) == answer else "mixed"


def check_chain(chain: Chain, *, timeout_ms: int = 20_000, second_solver: bool = True,
                solvers: Solvers | None = None) -> Verdict:
    """Prove ``premises ⇒ conclusion`` as a chain: premises satisfiable, every step proved,
    the conclusion derived from the steps alone, and every step needed.

    Parameters
    ----------
    chain : Chain
    timeout_ms : int
        Per solver call; an ``unknown`` or a timeout anywhere is ``Undecided``.
    second_solver : bool
        Re-check every proof with cvc5 (default solvers only).
    solvers : Solvers, optional
        The solver calls (default: :meth:`Solvers.default`).

    Returns
    -------
    Verdict
        ``Proved`` (evidence ``smt-forall``, the solvers' answers over all calls); ``Refuted``
        with a false step's counterexample, or with a model where every step holds and the
        conclusion fails; ``Undecided`` (vacuous premises or step, an unknown answer, a
        redundant step).

    Examples
    --------
    >>> import z3
    >>> x = z3.Real("x")
    >>> v = check_chain(Chain((x >= 1,), (Step("x ≥ 2", x >= 2, (x >= 1,)),), x >= 0))
    >>> v.verdict, v.detail.startswith("step 'x ≥ 2' is false")
    ('refuted', True)
    """
    s = solvers or Solvers.default(second_solver)
    seconds = timeout_ms / 1000
    status, _, reason = s.sat(list(chain.premises), seconds)
    if status == "unsat":
        return Undecided("vacuous: the chain's premises are unsatisfiable")
    if status != "sat":
        return Undecided(f"premises: satisfiability unknown ({reason})")
    answers: dict[str, str] = {}
    for step in chain.steps:
        status, _, reason = s.sat(list(step.hypotheses), seconds)
        if status == "unsat":
            return Undecided(f"vacuous step {step.name!r}: its hypotheses are unsatisfiable")
        if status != "sat":
            return Undecided(f"step {step.name!r}: satisfiability of its hypotheses unknown "
                             f"({reason})")
        verdict = s.prove(step.conclusion, list(step.hypotheses), timeout_ms)
        if isinstance(verdict, Refuted):
            return Refuted(verdict.counterexample, f"step {step.name!r} is false: "
                           f"{verdict.detail}", evidence=verdict.evidence)
        if not verdict.proved:
            return Undecided(f"step {step.name!r}: {verdict.detail}", evidence=verdict.evidence)
        _merge(answers, verdict)
    facts = composition_facts(chain)
    verdict = s.prove(chain.conclusion, facts, timeout_ms)
    if isinstance(verdict, Refuted):
        return Refuted(verdict.counterexample, "the conclusion does not follow from the steps "
                       "alone: every step holds at this point and the conclusion fails",
                       evidence=verdict.evidence)
    if not verdict.proved:
        return Undecided(f"composition: {verdict.detail}", evidence=verdict.evidence)
    _merge(answers, verdict)
    for j, step in enumerate(chain.steps):
        rest = facts[:j] + facts[j + 1:]
        status, _, reason = s.sat(rest + [z3.Not(chain.conclusion)], seconds)
        if status == "unsat":
            return Undecided(f"redundant step {step.name!r}: the conclusion follows from the "
                             "other steps, so the chain does not use it")
        if status != "sat":
            return Undecided(f"step {step.name!r}: could not show it is needed ({reason})")
    names = "; ".join(st.name for st in chain.steps)
    return Proved(f"chain of {len(chain.steps)} steps, each proved; the conclusion follows "
                  f"from them alone and needs every one: {names}",
                  evidence=Evidence("smt-forall", solvers=answers,
                                    note=f"chain of {len(chain.steps)} steps"))


def unknown_for(step_name: str, chain: Chain, reason: str = "planted unknown") -> Solvers:
    """Default solvers, except that proving the conclusion of step ``step_name`` (or, with
    ``step_name="composition"``, the chain's conclusion) answers ``unknown`` — for the false
    twins of the "undecided step" and "undecided composition" paths."""
    target = chain.conclusion if step_name == "composition" else chain.step(step_name).conclusion
    default = Solvers.default()

    def planted(goal: z3.BoolRef, hyps: list[z3.BoolRef], timeout_ms: int) -> Verdict:
        if goal.eq(target):
            return Undecided(f"z3 returned unknown ({reason})")
        return default.prove(goal, hyps, timeout_ms)

    return Solvers(prove=planted, sat=default.sat)


def sympy_chain(premises: Sequence[Any], steps: Sequence[tuple[str, Any, Sequence[Any]]],
                conclusion: Any) -> Chain:
    """A :class:`Chain` from sympy relations: ``steps`` are ``(name, conclusion, hypotheses)``.

    Every symbol must declare its domain in its assumptions
    (:func:`attnio.smt.statements.declared_domains`); integers are relaxed to reals with their
    bound (a proof for the reals is one for the integers). The translator's side conditions
    (domains, ``M = s_M**2``) are premises and hypotheses of every step.

    Raises
    ------
    InvalidInputError
        A symbol without a declared domain (named).

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x", positive=True)
    >>> chain = sympy_chain([sympy.Ge(x, 4)], [("√x ≥ 2", sympy.Ge(sympy.sqrt(x), 2),
    ...                                         [sympy.Ge(x, 4)])], sympy.Ge(sympy.sqrt(x), 1))
    >>> check_chain(chain).verdict
    'proved'
    """
    from attnio.smt.sympy_to_z3 import Translator

    everything = [*premises, conclusion, *(c for _, c, _ in steps),
                  *(h for _, _, hs in steps for h in hs)]
    domains = declared_domains(everything)
    t = Translator(domains)
    zpremises = [t.rel(p) for p in premises]
    zsteps = [(name, t.rel(c), [t.rel(h) for h in hs]) for name, c, hs in steps]
    zconclusion = t.rel(conclusion)
    side = tuple(t.side_conditions)
    return Chain(premises=side + tuple(zpremises),
                 steps=tuple(Step(name, c, side + tuple(hs)) for name, c, hs in zsteps),
                 conclusion=zconclusion)
