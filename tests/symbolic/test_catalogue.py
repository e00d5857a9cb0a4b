"""Tests for attnio.symbolic.catalogue: every entry evaluates exactly; pinned hand values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic.catalogue import CATALOGUE, Bound, catalogue_ids, get_bound
from attnio.symbolic.evaluate import default_instance
from attnio.symbolic.symbols import M, d, n

REQUIRED_IDS = {
    "bwd.tight", "bwd.large.upper", "bwd.large.lower", "bwd.small.upper", "bwd.small.lower",
    "bwd.flash1.upper", "bwd.alg6.upper", "bwd.standard", "bwd.trivial.lower",
    "fwd.tight", "fwd.large.lower", "fwd.small.lower", "fwd.any.lower", "fwd.flash1.upper",
    "fwd.square_tiling.upper", "fwd.standard", "fwd.trivial.lower", "sparse.lower",
    "matmul.hk.lower", "matmul.hk_explicit.lower", "matmul.smith.lower", "matmul.trivial.lower",
}

GRID = [default_instance(nv, dv, Mv) for nv, dv, Mv in itertools.product(
    (16, 64, 256), (2, 4, 8, 16), (4, 8, 16, 64, 256, 1024))]


def test_required_ids_present() -> None:
    assert REQUIRED_IDS <= set(catalogue_ids())


@pytest.mark.parametrize("bound", CATALOGUE, ids=lambda b: b.id)
def test_every_entry_evaluates_exactly_at_several_points(bound: Bound) -> None:
    points = [pt for pt in GRID if bound.in_range(**pt)]
    assert len(points) >= 3, f"{bound.id}: fewer than 3 admissible grid points"
    free = sorted(bound.expr.free_symbols, key=lambda s: s.name)
    numeric = sp.lambdify(free, bound.expr, "math")
    for pt in points[:: max(1, len(points) // 6)]:
        value = bound.evaluate(**pt)
        assert isinstance(value, sp.Expr) and not value.has(sp.Float)
        assert value.is_real
        # second, independent path: float arithmetic through math (tolerance 1e-9 relative)
        expected = numeric(*(pt[s.name] for s in free))
        assert math.isclose(float(value), expected, rel_tol=1e-9)


@pytest.mark.parametrize("bound", CATALOGUE, ids=lambda b: b.id)
def test_entry_metadata(bound: Bound) -> None:
    assert bound.pass_ in ("forward", "backward", "both", "matmul")
    assert bound.kind in ("lower", "upper", "tight")
    assert bound.source and bound.model
    assert all(isinstance(r, sp.core.relational.Relational) for r in bound.admissible)
    if bound.combine is None:
        assert bound.branches == ()
    else:
        op = sp.Min if bound.combine == "min" else sp.Max
        assert isinstance(bound.expr, op) and set(bound.expr.args) == set(bound.branches)
    latex = bound.latex()
    if bound.asymptotic:
        assert latex.startswith({"tight": r"\Theta", "upper": "O", "lower": r"\Omega"}[bound.kind])
    else:
        assert latex.startswith("Q ")


def test_paper_statements_are_flagged_reconstructed() -> None:
    for b in CATALOGUE:
        if "2410.09397" in b.source:
            assert b.reconstructed, b.id


# Values worked by hand (provenance: the formulas of the reference, evaluated on paper).
PINNED = [
    ("bwd.tight", dict(n=8, d=4, M=4), sp.Integer(192)),          # min(384, 192)
    ("bwd.tight", dict(n=8, d=4, M=16), sp.Integer(96)),          # branches equal at d**2
    ("bwd.tight", dict(n=8, d=4, M=32), sp.Integer(48)),          # min(48, 48*sqrt(2))
    ("fwd.tight", dict(n=8, d=4, M=4), sp.Integer(128)),          # min(256, 128)
    ("bwd.alg6.upper", dict(n=8, d=4, M=16), sp.Integer(208)),    # 96 + 64 + 32 + 16
    ("bwd.trivial.lower", dict(n=8, d=4), sp.Integer(176)),       # 4*32 + 3*16
    ("fwd.any.lower", dict(n=4, d=2, M=3), sp.Integer(16)),       # min(64/3, 16)
    ("fwd.large_explicit.lower", dict(n=64, d=4, M=16), sp.Integer(496)),  # 65536/128 - 16
    ("sparse.lower", dict(Z_in=32, Z_QK=64, M=16), sp.Integer(64)),
    ("sparse.lower", dict(Z_in=Fraction(9, 2), Z_QK=1, M=1), sp.Rational(9, 2)),
    ("matmul.smith.lower", dict(m=8, k=8, p=8, M=16), sp.Integer(224)),    # 1024/4 - 32
    ("matmul.hk_explicit.lower", dict(m=8, k=8, p=8, M=32), sp.Integer(32)),  # 512/8 - 32
    ("matmul.trivial.lower", dict(m=2, k=3, p=5), sp.Integer(31)),  # 6 + 15 + 10
    ("fwd.small.lower", dict(n=4, d=4, M=8), 16 * sp.sqrt(2)),
]


@pytest.mark.parametrize("bid, values, expected", PINNED)
def test_pinned_values(bid: str, values: dict, expected: sp.Expr) -> None:
    assert sp.simplify(get_bound(bid).evaluate(**values) - expected) == 0


def test_get_bound_unknown_lists_ids() -> None:
    with pytest.raises(InvalidInputError, match="unknown bound id 'nope'; valid ids: bwd.tight"):
        get_bound("nope")
    b = get_bound("bwd.tight")
    assert get_bound(b) is b


@pytest.mark.parametrize("values, match", [
    (dict(n=8, d=4), "missing value\\(s\\) for M"),
    (dict(n=8, d=4, M=0), "M=0 must be a positive integer"),
    (dict(n=8, d=4, M=8.0), "M=8.0 must be a positive integer"),
    (dict(n=8, d=4, M=16, q=3), "unknown size symbol 'q'"),
    (dict(n=8, d=4, M=2), "outside the admissible range: d <= M fails"),
    (dict(n=2, d=4, M=16), "outside the admissible range: M <= d\\*n fails"),
])
def test_evaluate_rejects(values: dict, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        get_bound("bwd.tight").evaluate(**values)


def test_check_range_false_evaluates_outside() -> None:
    assert get_bound("bwd.tight").evaluate(check_range=False, n=8, d=4, M=2) == 192 * sp.sqrt(2)


def test_extra_known_symbols_are_ignored() -> None:
    assert get_bound("fwd.tight").evaluate(n=8, d=4, M=16, Z_in=1, m=3) == 64


def test_branches_in_source_order() -> None:
    b = get_bound("bwd.tight")
    assert sp.simplify(b.branches[0] - (n**2 * d**2 + n * d**3) / M) == 0
    assert sp.simplify(b.branches[1] - (n**2 * d + n * d**2) / sp.sqrt(M)) == 0


#: The rows that state a bound with its constants (Q ≥ expr, Q ≤ expr); every other row is a
#: Θ / O / Ω statement whose value with constant 1 is no bound (issue 35, item 4).
EXPLICIT_IDS = {"bwd.trivial.lower", "fwd.trivial.lower", "fwd.large_explicit.lower",
                "matmul.hk_explicit.lower", "matmul.lean_combined.lower", "matmul.smith.lower",
                "matmul.cosma.lower", "matmul.trivial.lower"}


def test_theta_rows_are_asymptotic_and_the_explicit_rows_are_known() -> None:
    assert {b.id for b in CATALOGUE if not b.asymptotic} == EXPLICIT_IDS
    for bid in ("bwd.small.lower", "bwd.tight", "bwd.large.lower", "fwd.tight",
                "fwd.small.lower", "fwd.large.lower", "sparse.lower", "matmul.hk.lower"):
        assert get_bound(bid).asymptotic, bid
    assert all(b.asymptotic for b in CATALOGUE if b.kind == "tight")


def test_explicit_id_links_each_asymptotic_lower_row_to_an_explicit_row_beside_it() -> None:
    links = {b.id: b.explicit_id for b in CATALOGUE if b.explicit_id}
    assert links == {
        "bwd.tight": "bwd.trivial.lower", "bwd.large.lower": "bwd.trivial.lower",
        "bwd.small.lower": "bwd.trivial.lower", "fwd.tight": "fwd.large_explicit.lower",
        "fwd.large.lower": "fwd.large_explicit.lower",
        "fwd.small.lower": "fwd.large_explicit.lower",
        "matmul.hk.lower": "matmul.hk_explicit.lower"}
    for bid, eid in links.items():
        row, explicit = get_bound(bid), get_bound(eid)
        assert row.asymptotic and not explicit.asymptotic and explicit.kind == "lower"
        assert row.pass_ == explicit.pass_ and not explicit.admissible
    # rows with no explicit version say why by having none: the class bound and the
    # finite-field forward (any algorithm) have no explicit-constant row in the catalogue
    assert get_bound("sparse.lower").explicit_id is None
    assert get_bound("fwd.any.lower").explicit_id is None
    assert all(b.explicit_id is None for b in CATALOGUE if b.kind == "upper")


def test_issue_35_example_the_theta_row_is_not_the_explicit_value() -> None:
    """n = 10, d = 161, M = 162: bwd.small.lower's constant-1 value 21,630 lies above
    small-cache-fused's 20,360 words — it is asymptotic, and the row beside it is explicit."""
    row = get_bound("bwd.small.lower")
    value = row.evaluate(check_range=False, n=10, d=161, M=162)   # 15295·√2
    assert row.asymptotic and sp.floor(value) == 21630
    assert get_bound(row.explicit_id).latex().startswith("Q \\geq")


def test_evaluate_is_what_subs_gives_over_a_grid() -> None:
    """:meth:`Bound.evaluate` rebuilds the expression with the sizes put in (``xreplace``);
    the reference is sympy's ``subs``: equal values of the same type for every bound at 16
    instances (square and non-square M, Min branches on both sides), and a planted
    off-by-one instance differs."""
    from attnio.symbolic.symbols import symbol_by_name, validate_value

    compared = 0
    for bound in CATALOGUE:
        for n_, d_, M_ in itertools.product((4, 100), (3, 8), (2, 7, 64, 1000)):
            values = dict(n=n_, d=d_, M=M_, m=n_, k=d_, p=n_, Z_in=n_ * d_, Z_QK=n_ * n_)
            subs = {symbol_by_name(k): validate_value(symbol_by_name(k), v)
                    for k, v in values.items()}
            got = bound.evaluate(check_range=False, **values)
            reference = bound.expr.subs(subs)
            assert got == reference and type(got) is type(reference), (bound.id, values)
            assert bound.in_range(**values) == all(bool(r.subs(subs)) for r in bound.admissible)
            compared += 1
    assert compared == 16 * len(CATALOGUE)
    twin = get_bound("bwd.flash1.upper")
    assert twin.evaluate(check_range=False, n=16, d=4, M=9) != twin.expr.subs({n: 16, d: 4, M: 8})
