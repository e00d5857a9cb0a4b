"""attnio.reporting.phase_diagram: the drawing on a hand-made grid, then the grid the library
labels (against the dominance decision, with a planted false reading)."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnio.reporting.phase_diagram import PhaseDiagram, phase_diagram_data, plot_phase_diagram


def _toy_phase() -> PhaseDiagram:
    alphas = tuple(0.5 + 0.05 * i for i in range(71))
    betas = tuple(0.5 + 0.05 * i for i in range(51))

    def term(a: float, b: float) -> str:
        if a < 2:
            return "n²d/√M" if b > 1 else "nd²/√M"
        return "n²d²/M" if b > 1 else "nd³/M"

    return PhaseDiagram(
        alphas, betas,
        tuple(tuple(term(a, b) for a in alphas) for b in betas),
        tuple(tuple("small-cache" if a < 2 else "flash1" for a in alphas) for b in betas),
        crossover_alpha=2.0,
    )


@pytest.mark.extra("plots")
def test_phase_diagram_has_labels_legend_and_crossover(figure_checks, tmp_path: Path) -> None:
    fig = plot_phase_diagram(_toy_phase(), tmp_path / "phase.png")
    assert figure_checks.is_png(tmp_path / "phase.png")
    term_ax, algo_ax = fig.axes[:2]
    for ax in (term_ax, algo_ax):
        assert "log_d M" in ax.get_xlabel() and "words" in ax.get_xlabel()
        assert "log_d n" in ax.get_ylabel()
        assert 2.0 in figure_checks.vertical_lines_at(ax)  # the crossover alpha = 2
    # nd³/M occurs only where alpha > 1 + beta (inadmissible): it must not be in the legend.
    terms = figure_checks.legend_texts(term_ax)
    assert "nd³/M" not in terms and {"n²d/√M", "n²d²/M", "nd²/√M"} <= set(terms)
    assert any("inadmissible" in t for t in terms)
    assert {"small-cache", "flash1"} <= set(figure_checks.legend_texts(algo_ax))


def test_phase_diagram_data_matches_the_dominance_decision() -> None:
    phase = phase_diagram_data((0.5, 4.0), (0.5, 3.0), steps=36)
    assert phase.crossover_alpha == 2.0  # log_d of the derived crossover d**2
    assert phase.label_at(1.5, 2.0) == ("n²d/√M", "Algorithm 6 (small cache)")
    assert phase.label_at(3.0, 2.5) == ("n²d²/M", "FlashAttention backward")
    assert phase.label_at(1.2, 0.8)[0] == "nd²/√M"  # n < d: the nd² term takes over
    # Planted false reading: "FlashAttention wins below the crossover" must not be what we drew.
    assert all(phase.label_at(a, 2.5)[1] != "FlashAttention backward" for a in (1.1, 1.5, 1.9))


def test_phase_diagram_data_rejects_a_one_point_grid() -> None:
    from attnio.exceptions import InvalidInputError
    with pytest.raises(InvalidInputError, match="steps=1 must be at least 2"):
        phase_diagram_data(steps=1)
