"""The figures of ``attnio report``, in reading order: file name, section title, caption, and
how to draw each one with the numbers behind the picture.

Each entry of :data:`FIGURES` draws through its figure family's module — phase diagram
(:mod:`~attnio.reporting.phase_diagram`), I/O (:mod:`~attnio.reporting.io_curves`), FLOPs
(:mod:`~attnio.reporting.flop_curves`), sandwich (:mod:`~attnio.reporting.sandwich`), one
schedule (:mod:`~attnio.reporting.schedule`), lower-bound tightness
(:mod:`~attnio.reporting.tightness`) — or through the algorithms room's own drawings of the
gap (:mod:`attnio.bounds.gap`), masked attention (:mod:`attnio.reporting.sparse_measure`)
and the device hierarchy (:mod:`attnio.reporting.hardware_plots`).

>>> [spec.filename for spec in FIGURES][:3]
['phase_diagram.png', 'io_vs_M.png', 'flops_vs_M.png']
>>> FIGURES[1].caption(ReportContext(n=4096, d=64, Ms=[4096]))[:40]
'Backward-pass I/O counted by the two-lev'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from attnio.bounds.gap import gap_payload
from attnio.exceptions import InvalidInputError
from attnio.reporting import (
    flop_curves,
    io_curves,
    phase_diagram,
    sandwich,
    schedule,
    sparse_measure,
    tightness,
)
from attnio.reporting.document import Block, Inline, Paragraph, Table, plain
from attnio.reporting.gap_figure import plot_gap
from attnio.reporting.hardware_plots import (
    levels_vs_n,
    plot_levels_vs_n,
    plot_regime_map,
    regime_map,
)
from attnio.reporting.sections import fmt_value
from attnio.reporting.style import sweep_cache_sizes

__all__ = ["ReportContext", "FigureSpec", "FIGURES"]


@dataclass
class ReportContext:
    """What every figure of one report shares: the instance, the tier, and ``facts`` the
    figures hand to the summary (e.g. ``"measured_crossover"``)."""

    n: int
    d: int
    Ms: Sequence[int]
    quick: bool = False
    facts: dict[str, Any] = field(default_factory=dict)


Drawing = tuple[Any, list[Block]]


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: ``draw(ctx)`` returns the Figure and the blocks printed under
    it (the numbers behind the picture); ``caption(ctx)`` its caption."""

    filename: str
    title: str
    caption: Callable[[ReportContext], str]
    draw: Callable[[ReportContext], Drawing]


def _phase(ctx: ReportContext) -> Drawing:
    data = phase_diagram.phase_diagram_data()
    return phase_diagram.plot_phase_diagram(data), [Paragraph(plain(
        f"Crossover line α = {data.crossover_alpha:g} (log_d of the derived M* = d²); "
        f"at (α, β) = (1.5, 2): {' / '.join(data.label_at(1.5, 2.0))}; at (3, 2.5): "
        f"{' / '.join(data.label_at(3.0, 2.5))}."))]


def _io(ctx: ReportContext) -> Drawing:
    n, d = ctx.n, ctx.d
    data = io_curves.io_curves_data(n, d, sweep_cache_sizes(n, d))
    ctx.facts["measured_crossover"] = data.crossover_M
    where = ("none within the sweep" if data.crossover_M is None else
             f"M = {data.crossover_M:,} = {data.crossover_M / (d * d):.2f}·d²")
    return io_curves.plot_io_curves(data), [Paragraph(plain(
        f"Measured crossover (the M at which FlashAttention-1 backward stops moving more words "
        f"than Algorithm 6, bisected on exact counts between the points of an 8-per-doubling "
        f"sweep; the value `attnio simulate --crossover flash1,small-cache` prints): {where}; "
        f"d² = {d * d:,}."))]


def _flops(ctx: ReportContext) -> Drawing:
    n, d = ctx.n, ctx.d
    data = flop_curves.flop_curves_data(n, d, sweep_cache_sizes(n, d))
    ratios = [s / f for s, f in zip(data.flops["small-cache"], data.flops["flash1"])
              if s is not None and f]
    return flop_curves.plot_flop_curves(data), (
        [Paragraph(plain(f"Algorithm 6 ÷ FlashAttention backward FLOPs: {min(ratios):.3f} "
                         f"to {max(ratios):.3f} over the M where both run."))]
        if ratios else [])


def _sandwich(ctx: ReportContext) -> Drawing:
    data = sandwich.sandwich_data(quick=ctx.quick)
    header, rows = sandwich.sandwich_table(data)
    cells: list[list[Inline]] = [[str(c) if isinstance(c, str) else fmt_value(c) for c in row]
                                 for row in rows]
    return sandwich.plot_sandwich(data), [Table(list(header), cells)]


def _schedule(ctx: ReportContext) -> Drawing:
    timeline = schedule.smallest_optimal_schedule()
    moves = ", ".join(f"{kind} {vertex}" for kind, vertex in timeline.moves)
    return schedule.plot_schedule(timeline), [Paragraph(plain(
        f"Moves ({timeline.io} I/O, replayed by attnio.graphs.game.replay): {moves}."))]


def _tightness(ctx: ReportContext) -> Drawing:
    rows = tightness.tightness_data(quick=ctx.quick)
    worst, median = tightness.summary(rows)
    table: list[list[Inline]] = [
        [r.dag, str(r.M), str(r.compulsory), str(r.certified), str(r.optimum), r.route]
        for r in rows]
    return tightness.plot_tightness(rows), [Paragraph(plain(
        f"{len(rows)} sandwich rows with a settled optimum; worst OPT ÷ certified LB = "
        f"{worst:.3f} (target ≤ {tightness.TARGET_RATIO}); median explained share "
        "(LB − C) ÷ (OPT − C) = " + (f"{median:.2f}" if median is not None else "n/a")
        + " (target ≥ 0.5). Routes 1–5 of attnio.graphs.lower_bounds "
        "(notes/lower_bounds.md).")),
        Table(["DAG", "M", "compulsory C", "certified LB", "OPT", "route"], table)]


def _no_figure(text: str) -> Any:
    """A small figure that only says why there is nothing to draw (a report stays whole)."""
    import textwrap

    from attnio.reporting.style import new_figure

    fig = new_figure(6, 1.5)
    fig.text(0.5, 0.5, textwrap.fill(text, 90), ha="center", va="center", fontsize=9)
    return fig


def _gap(ctx: ReportContext) -> Drawing:
    n, d = ctx.n, ctx.d
    grid = [M for M in (2 ** k for k in range(6, 40)) if d <= M <= n * d]
    if ctx.quick:
        grid = grid[::2]
    try:
        payloads = [gap_payload(pass_, n, d, grid) for pass_ in ("backward", "forward")]
    except InvalidInputError as exc:  # tiny n·d: no cache size 2^k ≥ 64 holds an algorithm
        return _no_figure(f"No gap to draw at n = {n:,}, d = {d}: {exc}."), [Paragraph(plain(
            f"The gap figure sweeps M = 2^k ≥ 64 within d ≤ M ≤ n·d = {n * d:,}; at these "
            f"sizes no such M holds an algorithm ({exc}). Use attnio gap at larger n, d."))]
    worst = {p["pass"]: max(r["ratio"] for r in p["rows"]) for p in payloads}
    return plot_gap(payloads, targets={"backward target 16": 16, "forward target 8": 8}), [
        Paragraph(plain(
            f"Cheapest algorithm's exact I/O ÷ the best explicit lower bound (attnio gap) "
            f"at n = {n:,}, d = {d}: worst backward {worst['backward']:.2f}, worst forward "
            f"{worst['forward']:.2f} over M = {grid[0]:,} … {grid[-1]:,}."))]


def _sparse(ctx: ReportContext) -> Drawing:
    _, panels = sparse_measure.notes_and_panels()
    return sparse_measure.plot_panels(panels), [Paragraph(plain(
        f"Backward I/O ÷ the certified lower bound of each mask (attnio.proofs.mask_bounds; "
        f"not the class formula sparse.lower, a worst case over masks) for causal, "
        f"sliding-window and block-sparse masks at n = {sparse_measure.N:,}, "
        f"d = {sparse_measure.D}, count mode (notes/sparse.md)."))]


def _hardware_levels(ctx: ReportContext) -> Drawing:
    ns = [2 ** k for k in range(9, 15 if ctx.quick else 17)]
    rows = levels_vs_n("h100-sxm", "bf16", ctx.d, ns)
    return plot_levels_vs_n(rows, f"H100-SXM, bf16, d = {ctx.d}: words per boundary"), [
        Paragraph(plain("Words across each boundary of the device hierarchy (one-SM "
                        "view, notes/hardware.md): best algorithm solid, the two-level "
                        "lower bound at the capacity above the boundary dashed."))]


def _hardware_regimes(ctx: ReportContext) -> Drawing:
    return plot_regime_map(regime_map()), [Paragraph(plain(
        "Regime (small-cache M < d², large-cache M > d²) of each device of the table "
        "(symbolic/devices.json, sourced per number) per dtype and head dimension."))]


#: The report's figures, in reading order.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("phase_diagram.png", "Phase diagram", lambda ctx: (
        "Exponent space (α = log_d M, β = log_d n): left, the dominant term of Thm 1.1; "
        "right, the backward algorithm whose upper bound grows slower (growth exponents "
        "from attnio.symbolic.dominance). Hatched: outside d ≤ M ≤ n·d. Dashed: the "
        "derived crossover M = d²."), _phase),
    FigureSpec("io_vs_M.png", "I/O against M", lambda ctx: (
        f"Backward-pass I/O counted by the two-level memory simulator at n = {ctx.n:,}, "
        f"d = {ctx.d} (solid), catalogue bounds with constant 1 (dashed), M = d² (grey) and the "
        "measured crossover of FlashAttention and Algorithm 6 (dotted)."), _io),
    FigureSpec("flops_vs_M.png", "FLOPs against M", lambda ctx: (
        f"FLOPs of Algorithm 6 and FlashAttention backward at n = {ctx.n:,}, d = {ctx.d}, "
        "counted by the simulator; right, the ratio to FlashAttention."), _flops),
    FigureSpec("sandwich.png", "Pebbling sandwich", lambda ctx: (
        "On tiny DAGs, per M: certified lower bound (attnio lower-bound, certificates "
        "re-checked) ≤ exact optimum ≤ replayed algorithm schedules, with the explicit and "
        "Hong–Kung partition bounds where positive and the catalogue's trivial bound (inputs "
        "read once, outputs written once). The search budget is a count of states "
        f"({sandwich.FIGURE_MAX_STATES:,} per M), not seconds, so the figure does not depend "
        "on the machine's load; an optimum it does not settle is drawn as its proven bracket "
        "[lower, best schedule], never as a point."), _sandwich),
    FigureSpec("optimal_schedule.png", "An optimal schedule", lambda ctx: (
        "An optimal red-blue pebbling of the smallest DAG, move by move (red = fast memory, "
        "blue = slow memory); below, red pebbles in use against M and the I/O so far."),
        _schedule),
    FigureSpec("lower_bound_tightness.png", "Certified lower bounds against the exact optimum",
               lambda ctx: (
                   "Certified lower bound (routes 1–5, certificates re-checked) and compulsory "
                   "I/O against the exact optimum on the sandwich's tiny DAGs."), _tightness),
    FigureSpec("gap_ratio.png", "The constant gap at real sizes", lambda ctx: (
        f"The constant gap at n = {ctx.n:,}, d = {ctx.d}: cheapest algorithm ÷ best explicit "
        "lower bound against M, both passes."), _gap),
    FigureSpec("sparse_io_ratio.png", "Masked attention against its per-mask lower bound",
               lambda ctx: (
                   "Masked algorithms against the certified lower bound of each mask "
                   "(compulsory I/O of the needed rows, segment products on the kept pairs), "
                   "with the branch crossover Z_in²/Z_QK of arXiv 2410.09397 Thm 4.5's class "
                   "formula (RECONSTRUCTED; a worst case over masks, not a per-mask bound)."),
               _sparse),
    FigureSpec("hardware_levels.png", "I/O per memory level", lambda ctx: (
        f"Per-level I/O against sequence length on H100-SXM (bf16, d = {ctx.d})."),
        _hardware_levels),
    FigureSpec("hardware_regimes.png", "Regime map of the device table", lambda ctx: (
        "Which devices, dtypes and head dimensions are in the small-cache regime, at "
        "shared memory and at each boundary."), _hardware_regimes),
)
