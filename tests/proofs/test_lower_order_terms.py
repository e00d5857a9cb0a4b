"""attnio.proofs.lower_order_terms: the figures of finding F4, pinned exactly.

(Verdicts of every claim and twin: tests/commands/test_verify.py and test_claim_modules.py.)"""

from __future__ import annotations


def test_f4_d2_term_not_absorbed_without_sqrt_m_le_n() -> None:
    # notes/findings.md F4: n = 2, d = 8, M = 16 is inside bwd.alg6.upper's range.
    from attnio.symbolic.catalogue import get_bound

    alg6 = get_bound("bwd.alg6.upper")
    assert alg6.in_range(n=2, d=8, M=16)
    assert alg6.evaluate(n=2, d=8, M=16) == 124
    assert 3 * get_bound("bwd.small.upper").evaluate(n=2, d=8, M=16) == 120
