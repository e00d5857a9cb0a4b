"""README.md's numbers are pinned: each is computed by benchmarks/headline_numbers.py with the
library, formatted as the README writes it, and must appear there verbatim — a drift of the
library or of the README fails. Findings' thresholds must stand in the statement of the claim
that proves them (the fast z3 ones are run here). Planted twins: a README with one figure
changed, and a computed figure that drifted, must both be caught.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from attnio.proofs.registry import load_claims
from attnio.results import Proved

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _script():
    spec = importlib.util.spec_from_file_location("headline_numbers",
                                                  ROOT / "benchmarks" / "headline_numbers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


H = _script()


@pytest.fixture(scope="module")
def headlines():
    return H.headlines()


def test_every_computed_figure_is_in_the_readme(headlines) -> None:
    assert len(headlines) >= 10
    assert H.missing(README, headlines) == []


def test_every_finding_threshold_is_the_statement_of_its_claim() -> None:
    claims = {c.id: c for c in load_claims()}
    assert H.missing(README, H.claim_headlines()) == []
    for item in H.claim_headlines():
        assert item.fragment in claims[item.claim_id].statement, item.claim_id


@pytest.mark.parametrize("claim_id", ["cmp.alg6_vs_flash1.exact", "cmp.alg6_full_vs_flash1",
                                      "low.d2_in_small", "sy.lemma33.extra_trees_quarter"])
def test_the_fast_threshold_claims_are_proved(claim_id: str) -> None:
    claim = next(c for c in load_claims() if c.id == claim_id)
    assert isinstance(claim.check(), Proved)


def test_the_readme_figures_agree_with_each_other() -> None:
    """The crossover is stated twice (tour, F1–F2): one value."""
    stated = set(re.findall(r"M (?:=|≈) (?:[\d,]+ ≈ )?(\d\.\d)·d²", README))
    assert len(stated) == 1, stated


def test_false_twin_a_changed_readme_figure_is_caught(headlines) -> None:
    drifted = README.replace("M = 4,903 ≈", "M = 4,904 ≈")
    assert drifted != README
    assert H.missing(drifted, headlines) == ["M = 4,903 ≈ 1.2·d²"]


def test_false_twin_a_drifted_computation_is_caught(headlines) -> None:
    twin = [H.Headline(h.name, h.text.replace("0.55×", "0.56×"), h.how) for h in headlines]
    assert H.missing(README, twin) == [next(t.text for t in twin if "0.56×" in t.text)]


def test_the_readme_names_every_notebook_shipped() -> None:
    names = H.notebook_names()
    assert len(names) >= 6
    assert [n for n in names if n.removesuffix(".ipynb") not in README] == []


def test_the_readme_table_of_times_has_every_step_and_parses() -> None:
    # the figures are measured by `headline_numbers.py --times` on an idle machine, never here
    stated = H.readme_times(README)
    assert set(stated) == {step.key for step in H.TIMED_STEPS}
    for key, (cpu, wall) in stated.items():
        assert wall is not None and wall > 0, key
        assert cpu is None or cpu > 0, key


def test_false_twin_a_time_off_by_more_than_the_tolerance_is_flagged() -> None:
    stated = {"verify": (60.0, 70.0), "report": (100.0, 120.0)}
    lines = H.compare_times({"verify": (62.0, 75.0), "report": (100.0, 181.0)}, stated)
    assert [line[:3] for line in lines] == ["ok ", "OUT"]
    # a row the README lacks cannot pass
    assert H.compare_times({"verify": (1.0, 1.0)}, {})[0].startswith("OUT")


def test_false_twin_a_malformed_duration_is_refused() -> None:
    with pytest.raises(ValueError, match="not a duration"):
        H.parse_duration("about a minute")
