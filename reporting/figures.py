"""Every figure function of attnio under one name, for notebooks and scripts.

The code lives in one module per figure family (:mod:`attnio.reporting`); this module only
re-exports it::

    from attnio.reporting.figures import io_curves_data, plot_io_curves, sweep_cache_sizes

=========================  =======================================  ===============================
figure                     data                                     plot
=========================  =======================================  ===============================
phase diagram (Thm 1.1)    :func:`phase_diagram_data`               :func:`plot_phase_diagram`
I/O against M              :func:`io_curves_data`                   :func:`plot_io_curves`
FLOPs against M            :func:`flop_curves_data`                 :func:`plot_flop_curves`
pebbling sandwich          :func:`sandwich_data`                    :func:`plot_sandwich`
an optimal schedule        :func:`schedule_data`                    :func:`plot_schedule`
lower-bound tightness      :func:`tightness_data`                   :func:`plot_tightness`
=========================  =======================================  ===============================

>>> sorted(set(__all__) - set(globals()))
[]
"""

from __future__ import annotations

from attnio.reporting.flop_curves import FlopCurves, flop_curves_data, plot_flop_curves
from attnio.reporting.io_curves import IOCurves, io_curves_data, io_curves_from_runs, plot_io_curves
from attnio.reporting.phase_diagram import PhaseDiagram, phase_diagram_data, plot_phase_diagram
from attnio.reporting.sandwich import (
    SANDWICH_FIGURE_INSTANCES,
    SandwichFigure,
    plot_sandwich,
    sandwich_data,
    sandwich_table,
)
from attnio.reporting.schedule import (
    SMALLEST_DAG,
    ScheduleTimeline,
    plot_schedule,
    schedule_data,
    smallest_optimal_schedule,
    timeline_from_moves,
)
from attnio.reporting.style import (
    FLOP_LABEL,
    IO_LABEL,
    M_LABEL,
    png_bytes,
    sweep_cache_sizes,
)
from attnio.reporting.tightness import TightnessRow, plot_tightness, tightness_data

__all__ = [
    "PhaseDiagram", "phase_diagram_data", "plot_phase_diagram",
    "IOCurves", "io_curves_data", "io_curves_from_runs", "plot_io_curves",
    "FlopCurves", "flop_curves_data", "plot_flop_curves",
    "SandwichFigure", "sandwich_data", "plot_sandwich", "sandwich_table",
    "SANDWICH_FIGURE_INSTANCES",
    "ScheduleTimeline", "schedule_data", "plot_schedule", "smallest_optimal_schedule",
    "timeline_from_moves", "SMALLEST_DAG",
    "TightnessRow", "tightness_data", "plot_tightness",
    "png_bytes", "sweep_cache_sizes", "IO_LABEL", "M_LABEL", "FLOP_LABEL",
]
