"""Tests of attnio.smt.chains: every outcome of check_chain, on small planted chains."""

from __future__ import annotations

import pytest
import z3

from attnio.results import Evidence, Proved, Refuted, Undecided
from attnio.smt.chains import Chain, Solvers, Step, check_chain, composition_facts, unknown_for

pytestmark = pytest.mark.trust

x, y, z = z3.Reals("x y z")
#: x ≥ 0, y ≥ x, z ≥ y ⇒ z ≥ −1 through y ≥ 0 and z ≥ 0.
CHAIN = Chain(premises=(x >= 0, y >= x, z >= y),
              steps=(Step("y ≥ 0", y >= 0, (x >= 0, y >= x)),
                     Step("z ≥ 0", z >= 0, (z >= y, y >= 0))),
              conclusion=z >= -1)


def _sat_answering(answer: str, on: tuple | None = None) -> Solvers:
    """Default solvers, except that the satisfiability question ``on`` (a tuple of formulas;
    every question, without ``on``) gets ``answer``."""
    default = Solvers.default(second_solver=False)

    def sat(formulas, seconds):
        if on is None or (len(formulas) == len(on) and all(f.eq(g) for f, g in zip(formulas, on))):
            return answer, None, "planted"
        return default.sat(formulas, seconds)

    return Solvers(prove=default.prove, sat=sat)


def test_a_sound_chain_is_proved_with_both_solvers() -> None:
    v = check_chain(CHAIN)
    assert isinstance(v, Proved) and "chain of 2 steps" in v.detail
    assert v.evidence.kind == "smt-forall" and v.evidence.note == "chain of 2 steps"
    assert v.evidence.solvers == {"z3": "proved", "cvc5": "proved"}


def test_premises_are_discharged_and_nothing_else() -> None:
    assert [str(f) for f in composition_facts(CHAIN)] == ["y >= 0", "Implies(y >= 0, z >= 0)"]
    two = Chain((x >= 0,), (Step("s", z >= 0, (x >= 0, y >= 0, z >= y)),), z >= 0)
    assert str(composition_facts(two)[0]) == "Implies(And(y >= 0, z >= y), z >= 0)"


@pytest.mark.parametrize("planted", [
    CHAIN.without("y ≥ 0"),                                                  # deleted step
    CHAIN.replacing("y ≥ 0", Step("y ≥ -1", y >= -1, (x >= 0, y >= x))),     # weakened step
])
def test_a_deleted_or_weakened_step_refutes_the_composition(planted: Chain) -> None:
    v = check_chain(planted, second_solver=False)
    assert isinstance(v, Refuted) and "does not follow from the steps" in v.detail
    point = {k: val for k, val in v.counterexample.items()}
    assert point["z"] < -1  # the conclusion fails at the model, every remaining step holds
    for fact in composition_facts(planted):
        assert z3.is_true(z3.simplify(z3.substitute(fact, *[
            (z3.Real(k), z3.RealVal(str(val))) for k, val in point.items()])))


def test_a_false_step_is_refuted_with_its_counterexample() -> None:
    bad = CHAIN.replacing("y ≥ 0", Step("y ≥ 1", y >= 1, (x >= 0, y >= x)))
    v = check_chain(bad, second_solver=False)
    assert isinstance(v, Refuted) and v.detail.startswith("step 'y ≥ 1' is false")
    assert v.counterexample["y"] < 1


def test_vacuous_premises_and_vacuous_steps_are_undecided() -> None:
    v = check_chain(Chain((x > 1, x < 0), CHAIN.steps, CHAIN.conclusion))
    assert v.reason == check_chain(CHAIN.with_premise(x < -1)).reason
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous: the chain's premises")
    vac = CHAIN.replacing("y ≥ 0", Step("y ≥ 0", y >= 0, (x > 1, x < 0)))
    v = check_chain(vac)
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous step 'y ≥ 0'")


def test_a_redundant_step_is_undecided() -> None:
    extra = CHAIN.with_step(Step("x ≥ 0", x >= 0, (x >= 0,)))
    v = check_chain(extra, second_solver=False)
    assert isinstance(v, Undecided) and v.reason.startswith("redundant step 'x ≥ 0'")


@pytest.mark.parametrize("where,fragment", [
    ("z ≥ 0", "step 'z ≥ 0': z3 returned unknown (planted unknown)"),
    ("composition", "composition: z3 returned unknown (planted unknown)"),
])
def test_an_unknown_proof_is_undecided(where: str, fragment: str) -> None:
    v = check_chain(CHAIN, solvers=unknown_for(where, CHAIN))
    assert isinstance(v, Undecided) and v.reason == fragment


@pytest.mark.parametrize("on,fragment", [
    (None, "premises: satisfiability unknown (planted)"),
    ((x >= 0, y >= x), "step 'y ≥ 0': satisfiability of its hypotheses unknown (planted)"),
    ((z3.Implies(y >= 0, z >= 0), z3.Not(z >= -1)),
     "step 'y ≥ 0': could not show it is needed (planted)"),
])
def test_an_unknown_satisfiability_is_undecided(on, fragment: str) -> None:
    v = check_chain(CHAIN, solvers=_sat_answering("unknown", on))
    assert isinstance(v, Undecided) and v.reason == fragment


def test_a_step_unknown_in_the_composition_model_is_not_a_proof() -> None:
    """A prover that answers Proved without evidence still composes; one that disagrees
    between calls is recorded as mixed."""
    calls = []

    def prove(goal, hyps, timeout_ms):
        calls.append(goal)
        return Proved("ok", evidence=Evidence("smt-forall",
                                              solvers={"z3": "proved" if len(calls) < 2
                                                       else "undecided"}))

    v = check_chain(CHAIN, solvers=Solvers(prove=prove, sat=Solvers.default().sat))
    assert v.proved and v.evidence.solvers == {"z3": "mixed"} and len(calls) == 3


def test_chain_construction_errors_name_the_step() -> None:
    with pytest.raises(ValueError, match="unique"):
        Chain((), (Step("a", x >= 0), Step("a", y >= 0)), x >= 0)
    with pytest.raises(KeyError, match="no step 'b'"):
        CHAIN.without("b")
    with pytest.raises(KeyError, match="no step 'b'"):
        CHAIN.replacing("b", Step("b", x >= 0))
    with pytest.raises(KeyError, match="no step 'b'"):
        unknown_for("b", CHAIN)


def test_every_message_is_exact() -> None:
    proved = check_chain(CHAIN, second_solver=False)
    assert proved.detail == ("chain of 2 steps, each proved; the conclusion follows from them "
                             "alone and needs every one: y ≥ 0; z ≥ 0")
    assert proved.evidence.solvers == {"z3": "proved"}
    v = check_chain(CHAIN.without("y ≥ 0"), second_solver=False)
    assert v.detail == ("the conclusion does not follow from the steps alone: every step holds "
                        "at this point and the conclusion fails")
    assert v.evidence is not None and v.evidence.kind == "smt-forall"
    bad = check_chain(CHAIN.replacing("y ≥ 0", Step("y ≥ 1", y >= 1, (x >= 0, y >= x))),
                      second_solver=False)
    assert bad.detail == ("step 'y ≥ 1' is false: z3 found a counterexample; re-evaluated on "
                          "the formulas") and bad.evidence is not None
    vac = check_chain(CHAIN.replacing("y ≥ 0", Step("y ≥ 0", y >= 0, (x > 1, x < 0))))
    assert vac.reason == "vacuous step 'y ≥ 0': its hypotheses are unsatisfiable"
    red = check_chain(CHAIN.with_step(Step("w", x >= 0, (x >= 0,))), second_solver=False)
    assert red.reason == ("redundant step 'w': the conclusion follows from the other steps, so "
                          "the chain does not use it")
    unk = check_chain(CHAIN, solvers=unknown_for("z ≥ 0", CHAIN))
    assert unk.reason == "step 'z ≥ 0': z3 returned unknown (planted unknown)"
    assert unk.evidence is None
    assert check_chain(CHAIN, solvers=unknown_for("z ≥ 0", CHAIN, "why")).reason == \
        "step 'z ≥ 0': z3 returned unknown (why)"


def test_the_default_solvers_and_the_second_opinion() -> None:
    both = Solvers.default().prove(x * x >= 0, [], 5_000)
    assert both.proved and both.evidence.solvers == {"z3": "proved", "cvc5": "proved"}
    alone = Solvers.default(second_solver=False).prove(x * x >= 0, [], 5_000)
    assert alone.proved and alone.evidence.solvers == {"z3": "proved"}
    refuted = Solvers.default(second_solver=False).prove(x >= 1, [x >= 0], 5_000)
    assert isinstance(refuted, Refuted) and refuted.evidence.solvers == {"z3": "refuted"}
    assert Solvers.default().sat([x > 1, x < 0], 5.0)[0] == "unsat"
    assert check_chain(CHAIN).evidence.solvers == {"z3": "proved", "cvc5": "proved"}


def test_an_unknown_step_names_its_evidence() -> None:
    def prove(goal, hyps, timeout_ms):
        return Undecided("z3 returned unknown (t)", evidence=Evidence("smt-forall",
                                                                      solvers={"z3": "undecided"}))

    v = check_chain(CHAIN, solvers=Solvers(prove=prove, sat=Solvers.default().sat))
    assert v.reason == "step 'y ≥ 0': z3 returned unknown (t)"
    assert v.evidence.solvers == {"z3": "undecided"}


def test_chains_store_tuples_and_keep_order() -> None:
    chain = Chain([x >= 0], [Step("a", y >= 0, [x >= 0])], y >= 0)
    assert isinstance(chain.premises, tuple) and isinstance(chain.steps, tuple)
    assert isinstance(chain.steps[0].hypotheses, tuple)
    assert [s.name for s in CHAIN.replacing("y ≥ 0", Step("n", y >= 0)).steps] == ["n", "z ≥ 0"]
    assert CHAIN.step("z ≥ 0") is CHAIN.steps[1]
    assert CHAIN.without("z ≥ 0").steps == CHAIN.steps[:1]
    assert CHAIN.without("z ≥ 0").premises == CHAIN.premises
    extra = CHAIN.with_premise(z >= 5)
    assert extra.premises[:3] == CHAIN.premises and extra.premises[3].eq(z >= 5)
    assert extra.steps == CHAIN.steps and extra.conclusion.eq(CHAIN.conclusion)
    more = CHAIN.with_step(Step("w", x >= 0))
    assert [s.name for s in more.steps] == ["y ≥ 0", "z ≥ 0", "w"]
    assert more.premises == CHAIN.premises and more.conclusion.eq(CHAIN.conclusion)


def test_sympy_chain_translates_with_one_translator() -> None:
    import sympy

    from attnio.exceptions import InvalidInputError
    from attnio.smt.chains import sympy_chain

    n = sympy.Symbol("n", positive=True, integer=True)
    M = sympy.Symbol("M", positive=True)
    root = sympy.Ge(sympy.sqrt(M), 2)
    chain = sympy_chain([sympy.Ge(M, 4)], [("√M ≥ 2", root, [sympy.Ge(M, 4)]),
                                           ("n√M ≥ 2", sympy.Ge(n * sympy.sqrt(M), 2), [root])],
                        sympy.Ge(n * sympy.sqrt(M), 1))
    side = [str(p) for p in chain.premises[:-1]]
    assert side == ["M > 0", "n >= 1", "s_M! > 0", "M == s_M!*s_M!"]
    assert str(chain.premises[-1]) == "4 <= M"    # sympy canonicalises Ge(M, 4)
    assert all(s.hypotheses[:4] == chain.premises[:4] for s in chain.steps)
    assert chain.steps[1].hypotheses[-1].eq(chain.steps[0].conclusion)
    assert check_chain(chain, second_solver=False).proved
    with pytest.raises(InvalidInputError, match="symbol q declares no domain"):
        sympy_chain([], [], sympy.Ge(sympy.Symbol("q"), 0))


def test_budgets_reach_every_solver_call(monkeypatch) -> None:
    import inspect

    import attnio.smt.chains as chains

    assert inspect.signature(check_chain).parameters["timeout_ms"].default == 20_000
    seen = []
    real = chains.prove
    monkeypatch.setattr(chains, "prove", lambda goal, hyps, **kw: seen.append(kw)
                        or real(goal, hyps, **kw))
    Solvers.default(second_solver=False).prove(x >= 0, [x >= 1], 1234)
    assert seen == [{"timeout_ms": 1234, "second_solver": False}]
    asked = []
    default = Solvers.default(second_solver=False)

    def sat(formulas, seconds):
        asked.append(seconds)
        return default.sat(formulas, seconds)

    check_chain(CHAIN, timeout_ms=2500, solvers=Solvers(prove=default.prove, sat=sat))
    assert asked and set(asked) == {2.5}


def test_a_prover_without_evidence_and_an_unknown_composition() -> None:
    default = Solvers.default(second_solver=False)
    bare = Solvers(prove=lambda goal, hyps, t: Proved("ok"), sat=default.sat)
    v = check_chain(CHAIN, solvers=bare)
    assert v.proved and v.evidence.solvers == {}

    def prove(goal, hyps, timeout_ms):
        if goal.eq(CHAIN.conclusion):
            return Undecided("unknown", evidence=Evidence("smt-forall", solvers={"z3": "undecided"}))
        return default.prove(goal, hyps, timeout_ms)

    v = check_chain(CHAIN, solvers=Solvers(prove=prove, sat=default.sat))
    assert v.reason == "composition: unknown" and v.evidence.solvers == {"z3": "undecided"}


def test_the_default_budget_is_twenty_seconds() -> None:
    seen = []
    default = Solvers.default(second_solver=False)

    def prove(goal, hyps, timeout_ms):
        seen.append(timeout_ms)
        return default.prove(goal, hyps, timeout_ms)

    def sat(formulas, seconds):
        seen.append(seconds)
        return default.sat(formulas, seconds)

    assert check_chain(CHAIN, solvers=Solvers(prove=prove, sat=sat)).proved
    assert set(seen) == {20_000, 20.0}
