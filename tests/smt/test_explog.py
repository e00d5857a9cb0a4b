"""The exp/log fragment (attnio.smt.explog, issue 38): its axioms proved, their instances in
the bridge, and what the fragment decides. The planted violations of its side conditions are
in ``test_side_conditions.py`` (the trust tier); the proofs here take sympy's calculus a few
seconds, so they run in the default tier (and in ``attnio verify --only 'explog.*'``)."""

from __future__ import annotations

import pytest
import sympy as sp
import z3

from attnio.results import Proved, Refuted
from attnio.smt.explog import AXIOMS, Axiom, check_axiom
from attnio.smt.kernel import prove_statement
from attnio.smt.sympy_to_z3 import Translator


@pytest.mark.parametrize("axiom", AXIOMS, ids=lambda a: a.id)
def test_every_axiom_is_proved_from_its_own_statement(axiom: Axiom) -> None:
    v = check_axiom(axiom)
    assert isinstance(v, Proved) and v.evidence.kind == "sympy-calculus", v


def test_a_recipe_must_fit_its_statement() -> None:
    """A valley recipe on a narrower interval than the statement's domain proves nothing."""
    narrow = Axiom("explog.narrow", "And(exp(x) >= 1 + x, Implies(Ne(x, 0), exp(x) > 1 + x))",
                   {"x": "real"}, ("valley", "exp(x) - (1 + x)", "x", "Interval(0, oo)", "0", None),
                   "", {}, ("a", "e"), lambda a, e: e >= 1 + a)
    assert not isinstance(check_axiom(narrow), Proved)


def test_the_bridge_names_the_fragment_and_counts_its_instances() -> None:
    x = sp.Symbol("x", real=True)
    t = Translator({x: "real"})
    e = t.expr(sp.exp(x))
    assert str(e) == "exp_uf!(x)" and t.uses_fragment
    assert "instances of their axioms (attnio.smt.explog)" in t.substitutions[-1]
    s = z3.Solver()
    s.add(*t.side_conditions, e <= 0)                  # exp_positive is among them
    assert s.check() == z3.unsat


@pytest.mark.parametrize("text,domains,kind", [
    ("exp(x) >= 1 + x", {"x": "real"}, Proved),
    ("exp(x) > 1 + x", {"x": "real"}, Refuted),
    ("log(x) <= x - 1", {"x": "positive"}, Proved),
    ("log2(n) <= n", {"n": "positive-integer"}, Proved),
    ("n*log2(n) <= n**2", {"n": "positive-integer"}, Proved),
    ("Implies(x >= 0, exp(x) >= 1 + x + x**2/2)", {"x": "real"}, Proved),
    ("log(1 + x) >= x - x**2/2", {"x": "nonnegative"}, Proved),
    ("2**x >= 1 + x*log(2)", {"x": "real"}, Proved),
    ("Eq(exp(x + y), exp(x)*exp(y))", {"x": "real", "y": "real"}, Proved),
    ("Implies(log(x) < -1000, x > 1)", {"x": "positive"}, Refuted),
    ("Implies(n >= 10**200, log(n) > 460)", {"n": "integer"}, Proved),
    # a tower of three: an obvious point at x = 16 made the referee evaluate exp(exp(exp(16)))
    # (an exponent of 3.9 million digits) and the call ran out of time — Undecided
    # (MAX_EXP_ARGUMENT_BITS, attnio.smt.exact_eval); x = 2 stays in reach
    ("exp(exp(exp(x))) > 0", {"x": "real"}, Proved),
    ("Implies(x >= 2, exp(exp(exp(x))) <= 2)", {"x": "real"}, Refuted),
])
def test_what_the_fragment_decides(text: str, domains: dict[str, str], kind: type) -> None:
    v = prove_statement(text, domains)
    assert isinstance(v, kind), v
