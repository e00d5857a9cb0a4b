"""One planted violation per side condition of the trusted SMT core (issue 36, item 2).

Every checker of :mod:`attnio.smt` lists its side conditions in its module docstring, each
under an id (``kernel.…``, ``bridge.…``, ``definedness.…``, ``referee.…``, ``explog.…``). Each
id has a test here named ``test_twin__<id>`` (dots and dashes as underscores) that breaks that
one condition on purpose — a statement that is false only because of it, a point that violates
only it — and asserts the checker rejects it; :func:`test_every_side_condition_has_its_twin`
reads the lists and fails when a condition has no twin, or a twin no condition.

The five survivors of issue 36's red team in the SMT core are among them, each confirmed by
hand to fail when its mutant is put back (the mutants are quoted in the docstrings).
"""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.results import Proved, Refuted, Undecided
from attnio.smt.kernel import check_identity, prove_statement

pytestmark = pytest.mark.trust


# --------------------------------------------------------------------------- the bridge
def test_twin__bridge_square_root_needs_a_declared_lower_bound() -> None:
    """Issue 36 survivor: ``M = s**2`` given to an ``integer`` symbol (no lower bound), so
    ``n >= 0`` held everywhere and this turned from Refuted (n = -1) into Proved. Mutant:
    ``if _LOWER[dom] is None and not self._is_integer(sym): return False`` in ``_squarable``."""
    v = prove_statement("And(Implies(n >= 0, sqrt(n) <= n + 1), n >= 0)", {"n": "integer"})
    assert isinstance(v, Refuted), v
    assert sp.sympify(v.counterexample["n"]) < 0


def test_twin__bridge_only_square_roots_become_squares() -> None:
    """Issue 36 survivor: a fourth root encoded as a square root (``x = s**2``, ``x**(1/4)``
    read as ``s**(1/2)``...) turned this from Refuted (x = 1/16) into Proved. Mutant:
    ``q % 2 == 0`` for ``q == 2`` in ``Translator._pow``."""
    v = prove_statement("root(x, 4) <= sqrt(x)", {"x": "positive"})
    assert isinstance(v, Refuted), v
    x = sp.sympify(v.counterexample["x"])
    assert 0 < x < 1


# --------------------------------------------------------------------------- the kernel
def test_twin__kernel_a_vacuity_witness_is_defined_and_true() -> None:
    """Issue 36 survivor: a witness of an antecedent accepted where the antecedent is
    *undefined* (truth ``None``) made a vacuous implication over the integers Proved. The
    inner antecedent ``3n < 2 + 0/n`` is undefined at n = 0, an integer next to z3's relaxed
    witness n = 1/2, where the outer one is false (so the statement is defined there). Mutant:
    ``truth_at(f, candidate) is not False`` for ``is True`` in ``_satisfiable``."""
    v = prove_statement("Implies(3*n > 1, Implies(3*n < 2 + 0/n, Eq(n, 7)))", {"n": "integer"})
    assert isinstance(v, Undecided) and v.reason.startswith("vacuous"), v


def test_twin__kernel_identity_positivity_is_strict() -> None:
    """Issue 36 survivor: the sympy-identity route gives a symbol ``positive=True`` once the
    kernel proves it positive; proving ``x >= 0`` instead let this identity, false at x = 0
    (0 + 1 != 2), be Proved. Mutant: ``sp.Ge(sym, 0)`` for ``sp.Gt`` in ``_identity_by_sympy``."""
    v = prove_statement("Eq(Piecewise((1, x > 0), (0, True)) + sin(x)**2 + cos(x)**2, 2)",
                        {"x": "nonnegative"})
    assert isinstance(v, Refuted), v
    assert v.counterexample == {"x": "0"}


_FLAGGED = sp.Symbol("x", positive=True)      # its own flags say positive; declared real below


def test_twin__kernel_the_declaration_beats_the_flags() -> None:
    """Issue 36 survivor: a symbol's own sympy flags overriding the declared domain (library
    path). Mutant: ``declared_domain(sym) or given.get(str(sym))`` in ``_domains_of``."""
    v = prove_statement(sp.Ge(_FLAGGED, 0, evaluate=False), {_FLAGGED: "real"})
    assert isinstance(v, Refuted) and sp.sympify(v.counterexample["x"]) < 0, v


def test_twin__kernel_sympy_reasons_with_the_declared_assumptions() -> None:
    """The same rule where sympy itself reasons: the identity route and ``check_identity``'s
    ``simplify`` see each symbol with its *declared* assumptions, never its flags. Mutant:
    ``sp.Dummy(str(sym), **{**assumptions, **sym.assumptions0})`` in ``_identity_by_sympy``;
    before issue 38 ``check_identity`` simplified with the flags and proved this."""
    root = sp.Pow(sp.Pow(_FLAGGED, 2, evaluate=False), sp.Rational(1, 2), evaluate=False)
    trig = sp.Mul(root, sp.sin(_FLAGGED) ** 2 + sp.cos(_FLAGGED) ** 2, evaluate=False)
    v = prove_statement(sp.Eq(trig, _FLAGGED, evaluate=False), {_FLAGGED: "real"})
    assert isinstance(v, Refuted) and sp.sympify(v.counterexample["x"]) < 0, v
    w = check_identity(root, _FLAGGED, {_FLAGGED: "real"})
    assert isinstance(w, Refuted) and sp.sympify(w.counterexample["x"]) < 0, w
    assert isinstance(check_identity(root, _FLAGGED, {_FLAGGED: "positive"}), Proved)
