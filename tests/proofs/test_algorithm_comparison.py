"""attnio.proofs.algorithm_comparison: findings F1-F3 pinned exactly, twins confirmed exactly.

(Verdicts of every claim and twin: tests/commands/test_verify.py and test_claim_modules.py.)"""

from __future__ import annotations

import sympy

from attnio.proofs.algorithm_comparison import FALSE_TWINS


# Findings F1-F3 (notes/findings.md): the integer instances quoted there, pinned exactly.
def _value(bound_id: str, **sizes: int):
    from attnio.symbolic.catalogue import get_bound

    # Findings are about instances outside a bound's (corrected) range, so no range check.
    return get_bound(bound_id).evaluate(check_range=False, **sizes)


def test_f1_flash_dfe_form_beats_alg6_below_d2() -> None:
    # n = d = 8, M = 25 < d**2 = 64, inside d <= M <= n*d.
    small, flash = _value("bwd.small.upper", n=8, d=8, M=25), _value("bwd.flash1.upper", n=8,
                                                                        d=8, M=25)
    assert (small, flash) == (sympy.Rational(1024, 5), sympy.Rational(4096, 25))
    assert small > flash
    # ... and the corrected crossover M*(n+d)**2 = n**2*d**2 is M = 16: equal there.
    assert _value("bwd.small.upper", n=8, d=8, M=16) == _value("bwd.flash1.upper", n=8, d=8,
                                                               M=16) == 256


def test_f2_full_alg6_count_loses_at_d2() -> None:
    assert _value("bwd.alg6.upper", n=8, d=8, M=64) == 320 > _value("bwd.flash1.upper", n=8,
                                                                    d=8, M=64) == 64


def test_f3_standard_attention_below_the_small_cache_lower_bound() -> None:
    from attnio.symbolic.catalogue import get_bound

    # The catalogue now restricts standard attention to M >= d**2 because of this finding;
    # the instance lies in DFE+22's published range d <= M <= n*d.
    assert not get_bound("bwd.standard").in_range(n=1024, d=128, M=128)
    assert 128 <= 128 <= 1024 * 128
    lower = _value("bwd.small.lower", n=1024, d=128, M=128)
    assert lower == 9437184 * sympy.sqrt(2)
    assert lower > 11 * _value("bwd.standard", n=1024, d=128, M=128)


def test_twin_counterexamples_are_confirmed_exactly() -> None:
    for twin in FALSE_TWINS:
        assert "checked by exact evaluation" in twin.check().detail, twin.id
