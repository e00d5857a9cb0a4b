"""Shared by the tests of attnio.smt."""

from __future__ import annotations

from typing import Callable

import pytest
import sympy as sp

from attnio.smt.exact_eval import evaluate, in_domain
from attnio.smt.kernel import parse_statement

Recheck = Callable[[str, dict[str, str], dict[str, str]], None]


def _recheck_counterexample(text: str, domains: dict[str, str], ce: dict[str, str]) -> None:
    statement, declared = parse_statement(text, domains)
    point = {sym: sp.sympify(ce[str(sym)]) for sym in declared}
    for sym, dom in declared.items():
        assert in_domain(point[sym], dom) is True, (text, sym, point[sym], dom)
    assert evaluate(statement, point) == "false", (text, point)


@pytest.fixture(scope="session")
def recheck_counterexample() -> Recheck:
    """``recheck(text, domains, counterexample)`` asserts a Refuted's counterexample,
    independently of the kernel's own referee call: the statement parsed again, every value
    in its declared domain, the statement exactly ``"false"`` there (the held-out sets'
    re-check)."""
    return _recheck_counterexample
