"""Tests of attnio.proofs.algebra (catalogue-backed z3 claims)."""

from __future__ import annotations

import sympy

from attnio.proofs.algebra import agreement_claim, bound, eq, le, symbols, z3_claim
from attnio.proofs.registry import CheckContext
from attnio.results import Proved, Refuted, Undecided


def test_expressions_come_from_the_catalogue() -> None:
    from attnio.symbolic.catalogue import get_bound

    assert bound("bwd.tight") is get_bound("bwd.tight")
    n, d, M = symbols("n d M")
    assert n.is_positive and d.is_integer and M.name == "M"


def test_an_unknown_bound_is_undecided() -> None:
    c = z3_claim("demo.missing", "needs a bound the catalogue lacks", "test", "demo",
                 lambda: (le(bound("bwd.no_such_bound").expr, 0), []))
    v = c.check()
    assert isinstance(v, Undecided) and "bwd.no_such_bound" in v.reason


def test_goal_folded_by_sympy_is_undecided_not_proved() -> None:
    x = sympy.Symbol("x", positive=True)
    c = z3_claim("demo.folded", "x == x", "test", "demo", lambda: (sympy.Eq(x, x), []))
    v = c.check()
    assert isinstance(v, Undecided) and "folded" in v.reason


def test_detail_quotes_the_instantiated_goal() -> None:
    x = sympy.Symbol("x", positive=True)
    v = z3_claim("demo.t", "x + 1 > x", "test", "demo", lambda: (le(x, x + 1), [])).check()
    assert isinstance(v, Proved) and "goal x <= x + 1" in v.detail


def test_tiny_timeout_reaches_the_solver() -> None:
    s = sympy.Symbol("S", positive=True)
    a1, b1, a2, b2 = sympy.symbols("a1 b1 a2 b2", nonnegative=True)
    total = sympy.Min(2 * s, a1 * b1) + sympy.Min(2 * s, a2 * b2)
    c = z3_claim("demo.hard", "two-slice per-part count", "test", "demo",
                 lambda: (le(total, s * sympy.sqrt(2 * s)), [le(a1 + b1 + a2 + b2, 2 * s)]))
    v = c.check(CheckContext(z3_timeout_ms=1))
    assert isinstance(v, Undecided) and "time limit of 0.001 s" in v.reason


def test_agreement_claim_and_its_twin() -> None:
    assert agreement_claim("t.a", "fwd.small.lower", "fwd.tight", "demo").check().proved
    n, d, M = symbols("n d M")
    twin = agreement_claim("t.b", "fwd.small.lower", "fwd.tight", "demo", use_admissible=False,
                           extra_hypotheses=lambda: [sympy.Ge(M, 4 * d ** 2)], twin_of="t.a")
    assert isinstance(twin.check(), Refuted)


def test_unevaluated_helpers() -> None:
    x = sympy.Symbol("x", positive=True)
    assert eq(x, x) is not sympy.true and le(x, x) is not sympy.true
