"""The reporting room: the figures of attnio and ``attnio report``.

One module per figure family, each a *data* function (the library computes every number) and
a *plot* function (draws a frozen dataclass, returns a matplotlib Figure):

======================================  ===================================================
module                                  figure
======================================  ===================================================
:mod:`~attnio.reporting.phase_diagram`  exponent-space phase diagram of Thm 1.1
:mod:`~attnio.reporting.io_curves`      I/O against M (also ``attnio simulate --plot``)
:mod:`~attnio.reporting.flop_curves`    FLOPs against M
:mod:`~attnio.reporting.sandwich`       the pebbling sandwich on tiny DAGs
:mod:`~attnio.reporting.schedule`       one optimal schedule, move by move
:mod:`~attnio.reporting.tightness`      certified lower bounds against the exact optimum
:mod:`~attnio.reporting.style`          shared: labels, colours (algorithm registry), PNG
======================================  ===================================================

The report: :mod:`~attnio.reporting.report` (``write_report``) assembles
:mod:`~attnio.reporting.sections` (verify, bound and hardware tables) and
:mod:`~attnio.reporting.report_figures` (the figures, with the gap, sparse and hardware
drawings of the algorithms room) into a :mod:`~attnio.reporting.document`, rendered to
Markdown there or to one HTML file by :mod:`~attnio.reporting.report_html`, written into an
OUTDIR checked by :mod:`~attnio.reporting.outdir`; :mod:`~attnio.commands.report` is the
command. :mod:`~attnio.reporting.figures` gathers every figure function under one name for
notebooks.

This package imports nothing heavy itself, so that ``attnio report --help`` stays fast.
"""

#: The default instance of ``attnio report`` (n, d).
DEFAULT_N = 4096
DEFAULT_D = 64
