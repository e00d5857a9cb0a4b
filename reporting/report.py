r"""``attnio report OUTDIR`` — a report of the verify table, the bound table and the figures.

The report gathers, at one choice of (n, d) and a few cache sizes M:

1. a **summary** — claims Proved / run, the regime at each chosen M (M against the derived
   crossover d²) and the key crossovers (derived by sympy, and measured by the simulator);
2. the **figures** of :mod:`attnio.reporting.report_figures` — phase diagram, I/O and FLOPs
   against M, the pebbling sandwich (with its table), an optimal schedule of the smallest
   DAG, certified lower bounds against the optimum, the constant gap, masked attention and
   the device hierarchy;
3. the **bound table** — every entry of the symbolic catalogue evaluated exactly at
   (n, d, M) at the dense instance of :func:`attnio.symbolic.evaluate.default_instance` (the
   same values as ``attnio bounds``), with the derived crossovers, and the hardware advisor's
   device table at d;
4. at the end, the **verify table** — every registered claim of :mod:`attnio.proofs` checked
   now (``--quick``: only the z3 algebra,
   :data:`~attnio.reporting.sections.QUICK_METHOD_PREFIX`), with id, source, method, verdict
   and seconds.

Two formats: ``OUTDIR/index.md`` with one PNG per figure next to it (default), or with
``--html`` one self-contained ``OUTDIR/index.html`` (figures embedded as base64 data URIs,
no external resource, every text escaped; see :mod:`attnio.reporting.report_html`) that also
lists the versions of attnio, sympy, z3, cvc5, networkx and numpy.

Every number in the report is computed by the library at report time; nothing is copied in.
A section that fails is reported in the report (with the exception) instead of aborting the
others, and makes the exit code 1.

OUTDIR is never a stranger's folder and no file is written through a symlink: see
:mod:`attnio.reporting.outdir`. The pieces: :mod:`~attnio.reporting.document` (the document
model and its Markdown), :mod:`~attnio.reporting.report_html` (its HTML),
:mod:`~attnio.reporting.sections` (verify, bound and hardware tables),
:mod:`~attnio.reporting.report_figures` (the figures), :mod:`~attnio.commands.report` (the
command).

Exit codes: 0 the report is complete and every claim run is Proved; 1 the report was written
but a claim is not Proved or a section failed; 2 bad input (OUTDIR is a file, a symlink, not
writable, or non-empty and not attnio's; n, d or M not positive integers). An M outside
d ≤ M ≤ n·d is a one-line warning, not an error (README, "Sizes and flags").

Progress: each stage is named on stderr as it starts and ends; off a terminal a status line
naming the stage follows every few seconds (:class:`attnio.progress.StageStatus`). No ETA.

Examples
--------
>>> default_cache_sizes(n=1024, d=32)
[256, 1024, 4096]
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from attnio import __version__, interrupts
from attnio.algorithms.advisor import classify_regime
from attnio.extras import require
from attnio.progress import StageStatus
from attnio.provenance import provenance
from attnio.reporting import DEFAULT_D, DEFAULT_N
from attnio.reporting.document import (
    Block,
    Bullets,
    FigureBlock,
    Paragraph,
    Preformatted,
    ReportDocument,
    Section,
    Span,
    plain,
    render_markdown,
)
from attnio.reporting.outdir import OutputFolder
from attnio.reporting.report_figures import FIGURES, FigureSpec, ReportContext
from attnio.reporting.report_html import render_html
from attnio.reporting.sections import bound_section, hardware_section, verify_section
from attnio.reporting.style import png_bytes
from attnio.validation import positive_int

__all__ = ["write_report", "ReportResult", "default_cache_sizes", "output_names", "FIGURE_FILES"]

#: (file name, section title) of the figures, in reading order.
FIGURE_FILES = tuple((spec.filename, spec.title) for spec in FIGURES)


@dataclass
class ReportResult:
    """What :func:`write_report` wrote and how it went.

    ``index`` is ``index.md`` or ``index.html``; ``figures`` the PNG files written next to
    ``index.md`` (empty for HTML, whose figures are embedded); ``figure_names`` the figures in
    the report either way; ``files`` every file written, the marker last.
    """

    index: Path
    figures: list[Path] = field(default_factory=list)
    figure_names: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    claims_run: int = 0
    claims_proved: int = 0
    claims_refuted: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: sections not run (or cut short) because ``deadline`` had passed (``--time-limit``)
    timed_out: list[str] = field(default_factory=list)
    sections_total: int = 0

    @property
    def ok(self) -> bool:
        """True when every section was written and every claim run was Proved."""
        return not self.failures and self.claims_run > 0 and self.claims_proved == self.claims_run


def default_cache_sizes(n: int, d: int) -> list[int]:
    """The bound table's cache sizes: d²/4, d², 4d², kept inside d ≤ M ≤ n·d.

    >>> default_cache_sizes(n=64, d=16)
    [64, 256, 1024]
    >>> default_cache_sizes(n=8, d=16)
    [64, 128]
    """
    sizes = [max(d, d * d // 4), d * d, 4 * d * d]
    return sorted({min(max(m, d), n * d) for m in sizes})


def output_names(html: bool) -> list[str]:
    """The files one report writes into OUTDIR (besides the marker)."""
    return ["index.html"] if html else ["index.md", *(name for name, _ in FIGURE_FILES)]


def _validate_sizes(n: int, d: int, Ms: Sequence[int]) -> None:
    """Positive integers (:func:`attnio.validation.positive_int`). An M outside
    d <= M <= n*d is not an error: its bound-table entries outside their admissible range
    read "–", and ``attnio report`` warns (README, "Sizes and flags")."""

    positive_int("n", n)
    positive_int("d", d)
    for M in Ms:
        positive_int("M", M)


class _SectionTimedOut(BaseException):
    """Raised inside a section when ``write_report``'s deadline passes (a BaseException, so
    that no ``except Exception`` inside a figure's code swallows it)."""


@contextlib.contextmanager
def _stop_at(deadline: float | None) -> Iterator[None]:
    """Bound the body by ``deadline`` (a :func:`time.monotonic` instant): at the deadline a
    timer thread interrupts native work (a z3 call, a compiled search) and sends ``SIGALRM``
    to the main thread, whose handler raises :class:`_SectionTimedOut` in the body.

    An alarm that lands in a finaliser or a weakref callback (where Python drops exceptions)
    rings again 50 ms later, so a body that spends nearly all its time in finalisers may stop
    late. Only in the main thread (elsewhere the body runs unbounded, as before). The process's
    interval timer is never touched: an alarm a caller armed keeps its time, and one that
    rings before the deadline goes to the caller's handler.
    """
    if deadline is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    due = threading.Event()  # set by our timer only: a SIGALRM without it is the caller's
    # the timers act only while the body runs: one that fires as the body ends must not
    # interrupt the next section's z3 call (a timer thread may run late on a busy machine)
    guard = threading.Lock()
    active = [True]

    def ring() -> None:
        with guard:
            if not active[0]:
                return
            due.set()
            interrupts.stop_native_work()
            signal.pthread_kill(main_thread, signal.SIGALRM)

    def on_alarm(signum: int, frame: Any) -> None:
        if due.is_set():
            raise _SectionTimedOut()
        if callable(outer_handler):  # the caller's own alarm, before our deadline
            outer_handler(signum, frame)

    outer_hook = sys.unraisablehook
    timers: list[threading.Timer] = []

    def start_timer(seconds: float) -> None:
        timer = threading.Timer(seconds, ring)
        timer.daemon = True
        timers.append(timer)
        timer.start()

    def on_unraisable(unraisable: Any) -> None:
        # The alarm landed in a finaliser or a weakref callback, where Python prints and
        # drops exceptions: stay silent and ring again in 50 ms, in the body proper.
        if isinstance(unraisable.exc_value, _SectionTimedOut):
            start_timer(0.05)
        else:
            outer_hook(unraisable)

    sys.unraisablehook = on_unraisable
    outer_handler = signal.signal(signal.SIGALRM, on_alarm)
    # a library may have blocked SIGALRM in this thread: the alarm must get through
    outer_mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    start_timer(max(deadline - time.monotonic(), 0.0))
    try:
        yield
    finally:
        with guard:
            active[0] = False
        for timer in timers:
            timer.cancel()
        if due.is_set():  # our interrupt may have found no z3 call running: clear it
            interrupts.clear_native_interrupt()
        signal.pthread_sigmask(signal.SIG_SETMASK, outer_mask)
        signal.signal(signal.SIGALRM, outer_handler)
        sys.unraisablehook = outer_hook


def write_report(
    outdir: str | os.PathLike[str],
    *,
    n: int = DEFAULT_N,
    d: int = DEFAULT_D,
    Ms: Sequence[int] | None = None,
    quick: bool = False,
    html: bool = False,
    force: bool = False,
    status: "StageStatus | None" = None,
    deadline: float | None = None,
) -> ReportResult:
    """Write ``OUTDIR/index.md`` and its PNGs (or ``OUTDIR/index.html``); return what was written.

    Parameters
    ----------
    outdir : path
        Created if missing. If it exists it must be empty or hold attnio's marker (see the
        module docstring), unless ``force``.
    n, d : int
        Sequence length and head dimension of the bound table and of the I/O figure.
    Ms : sequence of int, optional
        Cache sizes of the bound table (default :func:`default_cache_sizes`).
    quick : bool
        Run only the quick claim families, and the smallest sandwich instances.
    html : bool
        Write one self-contained ``index.html`` instead of ``index.md`` and PNGs.
    force : bool
        Replace same-named regular files that attnio did not write (never symlinks).
    status : attnio.progress.StageStatus, optional
        Names each stage on stderr (the CLI passes one); default silent.
    deadline : float, optional
        A :func:`time.monotonic` instant (``attnio report --time-limit``): read before every
        section and between the claims of the verify table. A section not started, or cut
        short, by then is written as "not run: time limit reached", listed in ``timed_out``
        and ``failures`` (the report is then incomplete, never a pass); the document is
        written all the same.

    Returns
    -------
    ReportResult

    Raises
    ------
    attnio.exceptions.InvalidInputError
        Bad OUTDIR (a file, a symlink, not writable, non-empty and not attnio's, a file to be
        written that attnio may not replace), n, d or M. Raised before any work.
    attnio.exceptions.MissingExtraError
        matplotlib (the ``plots`` extra) is not installed (an input error: exit 2); checked
        after the inputs, before any work.
    """
    start = time.perf_counter()
    Ms = list(Ms) if Ms is not None else default_cache_sizes(n, d)
    _validate_sizes(n, d, Ms)
    folder = OutputFolder(outdir, output_names(html), force=force)  # checks; creates nothing
    require("plots", "drawing the report's figures")  # the inputs first; exit 2 before any work
    folder.create()  # and takes the lock: a concurrent run into OUTDIR is refused now
    path = folder.path
    result = ReportResult(index=path / ("index.html" if html else "index.md"))
    own_status = status is None
    status = status if status is not None else StageStatus("attnio report", enabled=False)
    facts: dict[str, Any] = {}

    sections: dict[str, Section] = {}

    def section(title: str, body: Callable[[], list[Block]]) -> None:
        if deadline is not None and time.monotonic() >= deadline:
            result.timed_out.append(title)
            result.failures.append(f"{title}: not run, the time limit was reached first")
            sections[title] = Section(title, [Paragraph(plain(
                "Not run: the time limit (--time-limit) was reached before this section."))],
                True)
            return
        with status.stage(title):
            try:
                with _stop_at(deadline):
                    blocks, failed = body(), False
            except KeyboardInterrupt:
                raise
            except _SectionTimedOut:  # cut short by --time-limit: said so, no traceback
                result.timed_out.append(title)
                result.failures.append(f"{title}: cut short, the time limit was reached")
                failed = True
                blocks = [Paragraph(plain("Cut short: the time limit (--time-limit) was "
                                          "reached during this section."))]
            except Exception as exc:  # a failed section is reported, not hidden, and fails the run
                result.failures.append(f"{title}: {type(exc).__name__}: {exc}")
                failed = True
                blocks = [Paragraph([("This section failed", "strong"), (": ", ""),
                                     (f"{type(exc).__name__}: {' '.join(str(exc).split())}",
                                      "code")]),
                          Preformatted(traceback.format_exc(limit=4).rstrip())]
        sections[title] = Section(title, blocks, failed)

    def on_claim(text: str) -> None:
        if deadline is not None and time.monotonic() >= deadline:
            result.timed_out.append(verify_title)
            raise _SectionTimedOut()
        status.detail(text)

    def verify() -> list[Block]:
        blocks, counts = verify_section(quick, on_claim=on_claim, deadline=deadline)
        result.claims_run, result.claims_proved = counts["run"], counts["proved"]
        result.claims_refuted = counts["refuted"]
        facts["verify"] = counts
        return blocks

    def bounds() -> list[Block]:
        blocks, facts["crossovers"] = bound_section(n, d, Ms)
        return blocks

    context = ReportContext(n=n, d=d, Ms=Ms, quick=quick, facts=facts)

    def figure(spec: FigureSpec) -> Callable[[], list[Block]]:
        def body() -> list[Block]:
            fig, facts_blocks = spec.draw(context)  # the figure, and the numbers behind it
            png = png_bytes(fig)
            result.figure_names.append(spec.filename)
            return [FigureBlock(spec.filename, spec.filename.removesuffix(".png").replace("_", " "),
                                spec.caption(context), png), *facts_blocks]
        return body

    bound_title = f"Bound table at n = {n:,}, d = {d}"
    hardware_title = f"Hardware regimes at d = {d} (bf16)"
    verify_title = "Verify table"
    status.total = len(FIGURES) + 4  # + bounds, hardware, verify, writing
    result.sections_total = len(FIGURES) + 3
    try:
        section(verify_title, verify)
        section(bound_title, bounds)
        section(hardware_title, lambda: hardware_section(n, d))
        for spec in FIGURES:
            section(spec.title, figure(spec))

        result.seconds = time.perf_counter() - start
        versions = provenance()
        doc = ReportDocument(
            title="attnio report",
            head=_head_blocks(result, facts, n=n, d=d, Ms=Ms, quick=quick, html=html,
                              path=path, versions=versions, version=__version__),
            sections=[sections[title] for title in
                      [spec.title for spec in FIGURES] + [bound_title, hardware_title, verify_title]],
            versions=versions,
        )
        with status.stage(f"writing {result.index.name}"):
            if html:
                folder.write("index.html", render_html(doc).encode("utf-8"))
            else:
                for section_ in doc.sections:
                    for block in section_.blocks:
                        if isinstance(block, FigureBlock):
                            result.figures.append(folder.write(block.filename, block.png))
                folder.write("index.md", render_markdown(doc).encode("utf-8"))
    finally:
        folder.release()
        if own_status:
            status.close()
    result.files = [*folder.written, folder.marker]
    return result


#: The summary names the regime of at most this many cache sizes (the first and last three
#: of a longer sweep; the bound table has them all).
_MAX_LISTED = 8


def _sizes_arg(Ms: Sequence[int]) -> str:
    """``--M`` as the user could type it: ``LO:HI:STEP`` for an arithmetic sweep of more than
    two sizes (one short word, however long the sweep), else ``V1,V2,...``.

    >>> _sizes_arg(list(range(64, 64001, 64))), _sizes_arg([256, 1024, 4096])
    ('64:64000:64', '256,1024,4096')
    """
    steps = {b - a for a, b in zip(Ms, Ms[1:])}
    if len(Ms) > 2 and len(steps) == 1 and min(steps) > 0:
        return f"{Ms[0]}:{Ms[-1]}:{steps.pop()}"
    return ",".join(map(str, Ms))


def _head_blocks(result: ReportResult, facts: dict[str, Any], *, n: int, d: int,
                 Ms: Sequence[int], quick: bool, html: bool, path: Path,
                 versions: dict[str, Any], version: str) -> list[Block]:
    """The opening: provenance, status and the summary (claims, regime, crossovers)."""
    status = ("complete" if result.ok else
              f"INCOMPLETE — {len(result.failures)} section(s) failed, "
              f"{result.claims_run - result.claims_proved} claim(s) not Proved")
    library = ", ".join(f"{name} {v or 'not installed'}"
                        for name, v in versions["versions"].items())
    command = (f"attnio report {path} --n {n} --d {d} --M {_sizes_arg(Ms)}"
               + (" --quick" if quick else "") + (" --html" if html else ""))
    blocks: list[Block] = [
        Paragraph([(f"attnio {version} ({library}); generated "
                    f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC in "
                    f"{result.seconds:.1f} s by ", ""), (command, "code"), (".", "")]),
        Paragraph([("Status: ", ""), (status, "strong"),
                   (f". Claims: {result.claims_proved} of {result.claims_run} Proved.", "")]),
    ]
    if result.failures:
        blocks += [Paragraph(plain("Failed sections:")),
                   Bullets([plain(" ".join(f.split())) for f in result.failures])]
    # The summary: claims, regime at each M, key crossovers.
    summary: list[list[Span]] = []
    counts = facts.get("verify")
    if counts:
        summary.append([("Claims", "strong"),
                        (f": {counts['proved']} of {counts['run']} Proved ({counts['refuted']} "
                         f"Refuted, {counts['undecided']} Undecided)"
                         + (" — quick tier (z3 algebra only)" if quick else " — default tier"),
                         "")])
    regimes = []
    shown = list(Ms) if len(Ms) <= _MAX_LISTED else [*Ms[:3], *Ms[-3:]]
    for M in shown:
        regime, d2 = classify_regime(M, d)
        relation = {"large-cache": ">", "small-cache": "<", "crossover": "="}[regime]
        picks = "Algorithm 6 (small-cache)" if regime == "small-cache" else "FlashAttention"
        regimes.append(f"M = {M:,}: {regime} (M {relation} d² = {d2:,}), theory picks {picks}")
    if len(shown) < len(Ms):
        regimes[3:3] = [f"… {len(Ms) - 6:,} more sizes (the bound table lists each) …"]
    summary.append([(f"Regime at n = {n:,}, d = {d}", "strong"), (": " + "; ".join(regimes), "")])
    crossover_spans: list[Span] = [("Key crossovers", "strong"), (": ", "")]
    derived = facts.get("crossovers") or {}
    parts = [f"{bid} at M = `{sol}`" for bid, sol in derived.items()
             if bid in ("bwd.tight", "fwd.tight", "sparse.lower")]
    if parts:
        crossover_spans.append(("derived " + ", ".join(parts)
                                + f" (d² = {d * d:,}; the sparse one is d² at the dense "
                                  "instance)", ""))
    if "measured_crossover" in facts:
        measured = facts["measured_crossover"]
        crossover_spans.append(((
            "; " if parts else "") + "measured by the simulator (FlashAttention-1 against "
            "Algorithm 6, backward): " + ("none within the sweep" if measured is None else
                                        f"M = {measured:,} ≈ {measured / (d * d):.2f}·d²"), ""))
    if len(crossover_spans) > 2:
        summary.append(crossover_spans)
    blocks += [Paragraph([("Summary", "strong")]), Bullets(summary)]
    blocks.append(Paragraph(plain(
        "Model: two-level memory (fast memory of M words, unbounded slow memory), one I/O = "
        "one word moved; red-blue pebble game (Hong & Kung 1981); standard matrix "
        "multiplication. Paper: Li et al., arXiv 2410.09397; parents: Saha & Ye arXiv "
        "2402.07443, Dao et al. arXiv 2205.14135. Figures first; the bound table, the "
        "hardware regimes and the verify table follow.")))
    return blocks
