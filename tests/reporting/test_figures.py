"""attnio.reporting.figures: the one-name gathering of every figure function."""

from __future__ import annotations

from attnio.reporting import figures, io_curves, phase_diagram, sandwich, schedule


def test_the_gathering_re_exports_the_family_modules_own_functions() -> None:
    assert figures.plot_io_curves is io_curves.plot_io_curves
    assert figures.phase_diagram_data is phase_diagram.phase_diagram_data
    assert figures.sandwich_data is sandwich.sandwich_data
    assert figures.plot_schedule is schedule.plot_schedule
    assert all(hasattr(figures, name) for name in figures.__all__)


def test_no_figure_keeps_its_own_list_of_algorithm_names_or_colours() -> None:
    """Names and colours come from attnio.algorithms.registry (the old figures kept a copy)."""
    import attnio.reporting.style as style

    assert not hasattr(style, "_ALGORITHM_COLOURS") and not hasattr(style, "_pretty_algorithm")
    assert not hasattr(figures, "_ALGORITHM_COLOURS")
