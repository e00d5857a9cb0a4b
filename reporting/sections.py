"""The report's tables: the verify table (claims run now), the bound table (the catalogue
evaluated exactly, the same values as ``attnio bounds``), the hardware regimes, and the
per-level table of a memory hierarchy (:func:`format_levels`, rendered here rather than in
:mod:`attnio.bounds.hierarchy`, which computes it: issue 40).

>>> rows, crossovers = bound_table(64, 8, [64])
>>> [r.values[0] for r in rows if r.id == "bwd.tight"], crossovers["bwd.tight"]
([4608], d**2)
>>> fmt_value(None), fmt_value(1024), fmt_value(2 ** 0.5)
('—', '1,024', '1.414')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from attnio.algorithms.advisor import DEVICES, advise
from attnio.proofs import registry
from attnio.proofs.runner import run_claims, select, summary
from attnio.reporting.document import Block, Bullets, Inline, Paragraph, Table, md_block, plain
from attnio.symbolic.catalogue import CATALOGUE
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.evaluate import catalogue_values
from attnio.tables import fit_text, number_column, render_table

__all__ = ["verify_section", "BoundRow", "bound_table", "bound_table_markdown", "bound_section",
           "hardware_section", "fmt_value", "QUICK_METHOD_PREFIX", "format_levels"]

#: ``--quick`` runs only the claims whose method starts with this: the z3 algebra over the
#: reals (branches, comparisons, lower-order terms, lower-bound steps), each a few ms — no
#: exhaustive search, no pebbling.
QUICK_METHOD_PREFIX = "z3 NRA"


def verify_section(quick: bool, on_claim: Callable[[str], None] = lambda _id: None,
                   deadline: float | None = None) -> tuple[list[Block], dict[str, int]]:
    """Run the claims with :mod:`attnio.proofs.runner`; return blocks and the verdict counts.
    ``deadline`` (a :func:`time.monotonic` instant) bounds each claim's solver calls by the
    time left (:func:`attnio.proofs.runner.run_claims`)."""
    claims = select(registry.load_claims())
    if quick:
        claims = [c for c in claims if c.method.startswith(QUICK_METHOD_PREFIX)]
    results = []
    for claim in claims:  # one at a time, so that the status line names the claim running
        on_claim(f"claim {claim.id}")
        results += run_claims([claim], show_progress=False, deadline=deadline)
    rows: list[list[Inline]] = []
    for r in results:
        mark = {"proved": plain("Proved"), "refuted": [("Refuted", "strong")],
                "undecided": [("Undecided", "strong")]}[r.verdict.verdict]
        source = r.claim.source + (" (RECONSTRUCTED)" if r.claim.reconstructed else "")
        rows.append([[(r.claim.id, "code")], source, r.claim.method, mark,
                     f"{r.verdict.seconds:.3f}"])
        if not r.verdict.proved:
            rows.append(["", "", "", f"↳ {' '.join(str(r.verdict.detail).split())[:300]}", ""])
    counts = summary(results)
    counts["run"] = len(results)
    head = (f"{counts['proved']} Proved, {counts['refuted']} Refuted, {counts['undecided']} "
            f"Undecided of {len(results)} claims"
            + (f" (--quick: only the claims checked by {QUICK_METHOD_PREFIX})" if quick else
               " (default tier; `attnio verify --deep` adds the exhaustive tier)") + ".")
    return [Paragraph(plain(head)),
            Table(["id", "source", "method", "verdict", "seconds"], rows)], counts


@dataclass(frozen=True)
class BoundRow:
    """One catalogue entry evaluated at each M: ``values`` exact (``None`` outside the entry's
    admissible range), ``cells`` as printed — :func:`attnio.tables.number_column` of the exact
    values at one M (one format per column), ``*`` outside the range: the cells ``attnio
    bounds`` prints."""

    id: str
    pass_: str
    kind: str
    expression: str
    values: tuple[Any, ...]
    cells: tuple[str, ...] = ()


#: How the bound table evaluates entries in other symbols (the same instance as ``attnio
#: bounds``: :func:`attnio.symbolic.evaluate.default_instance`).
_OTHER_SYMBOLS = ("sparse and matmul entries at the dense instance of "
                  "attnio.symbolic.evaluate.default_instance: Z_in = n·d, Z_QK = n², "
                  "m = p = n, k = d — the same values as `attnio bounds`")


def bound_table(n: int, d: int, Ms: Sequence[int]) -> tuple[list[BoundRow], dict[str, Any]]:
    """Every catalogue entry evaluated exactly at (n, d, M) for each M, and the crossovers.

    Values are exact sympy numbers (Integer, Rational or algebraic) from
    :func:`attnio.symbolic.evaluate.catalogue_values` — the one evaluation ``attnio bounds``
    uses too, at the dense instance Z_in = n·d, Z_QK = n², m = p = n, k = d; an M outside an
    entry's admissible range gives ``None``. The crossovers (sympy expressions) are derived
    by :func:`attnio.symbolic.crossovers.crossover` for every entry that is a min of two
    branches.

    >>> rows, crossovers = bound_table(64, 8, [64])
    >>> [r.values[0] for r in rows if r.id == "bwd.tight"], crossovers["bwd.tight"]
    ([4608], d**2)
    """
    at_M = [catalogue_values(n, d, M) for M in Ms]
    columns = [number_column([ev[b.id].value for b in CATALOGUE],
                             in_range=[ev[b.id].in_range for b in CATALOGUE]) for ev in at_M]
    rows: list[BoundRow] = []
    crossovers: dict[str, Any] = {}
    for i, bound in enumerate(CATALOGUE):
        values = tuple(ev[bound.id].value if ev[bound.id].in_range else None for ev in at_M)
        cells = tuple(column[i] for column in columns)
        symbol = ({"tight": "Θ", "upper": "O", "lower": "Ω"} if bound.asymptotic
                  else {"tight": "=", "upper": "≤", "lower": "≥"})[bound.kind]
        kind = f"{bound.kind} ({symbol})"
        if bound.asymptotic and bound.kind != "upper":  # issue 35 item 4: never a bound here
            kind = (f"{bound.kind} ({symbol}, asymptotic: not a bound at one M; certified: "
                    f"{bound.explicit_id or 'none'})")
        rows.append(BoundRow(bound.id, bound.pass_, kind, str(bound.expr), values, cells))
        if bound.combine == "min" and len(bound.branches) == 2:
            crossovers[bound.id] = _crossover_solution(crossover(bound))
    return rows, crossovers


def _crossover_solution(result: Any) -> Any:
    return getattr(result, "solution", result)


def bound_table_markdown(n: int, d: int, Ms: Sequence[int]) -> str:
    """:func:`bound_table` as the Markdown of the report's bound table (for notebooks too)."""
    blocks, _ = bound_section(n, d, Ms)
    return "\n".join(line for block in blocks for line in [*md_block(block), ""]).rstrip("\n")


def bound_section(n: int, d: int, Ms: Sequence[int]) -> tuple[list[Block], dict[str, Any]]:
    """The bound table's blocks (a paragraph, the table, the derived crossovers) and the
    crossovers."""
    rows, crossovers = bound_table(n, d, Ms)
    table = Table(["id", "pass", "kind", "bound", *(f"M = {M:,}" for M in Ms)],
                  [[[(row.id, "code")], row.pass_, row.kind, [(row.expression, "code")],
                    *row.cells] for row in rows])
    blocks: list[Block] = [
        Paragraph(plain(f"Values of every catalogue entry, evaluated exactly ({_OTHER_SYMBOLS}) "
                         "and printed as `attnio bounds` prints them (integers in full, other "
                         "values to 6 significant digits); * = M outside the entry's admissible "
                         "range: the formula's value there, not a bound. Θ/O/Ω entries are exact "
                         "only up to a constant factor.")),
        table,
        Paragraph(plain("Crossovers derived by attnio.symbolic.crossovers (branch equality "
                         "solved by sympy):")),
        Bullets([[(bound_id, "code"), (": M = ", ""), (str(solution), "code")]
                 for bound_id, solution in crossovers.items()]),
    ]
    return blocks, crossovers


def hardware_section(n: int, d: int, dtype: str = "bf16") -> list[Block]:
    """The advisor's device table at head dimension d (M = on-chip bytes ÷ dtype width)."""
    rows: list[list[Inline]] = []
    for name in DEVICES:
        a = advise(name, d, dtype, n=n)
        rows.append([a.device.name, a.device.fast_memory, f"{a.M:,}", f"{a.crossover_M:,}",
                     a.regime, a.recommended_algorithm, f"{float(a.io_ratio):.3g}"])
    return [
        Paragraph(plain("Which side of the derived crossover M* = d² real fast memories fall "
                         "on (attnio.algorithms.advisor; sources in its DEVICES table). The I/O "
                         "ratio is the catalogue's FlashAttention bound ÷ Algorithm 6 bound at "
                         f"n = {n:,} (constants 1).")),
        Table(["device", "fast memory", "M (words)", "d²", "regime", "theory picks",
               "FlashAttention ÷ Alg. 6"], rows),
    ]


def fmt_value(value: Any) -> str:
    """A table cell for an exact value: ints with thousands separators, other numbers to 4
    significant digits, symbols as text, ``—`` for None."""
    if value is None:
        return "—"
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return " ".join(str(value).split())
    if number != number or number in (float("inf"), float("-inf")):
        return " ".join(str(value).split())
    if number == int(number) and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:.4g}"


def format_levels(report: dict[str, Any], *, width: int | None = None) -> str:
    """The per-level table for humans (:func:`attnio.tables.render_table`). ``width`` (a
    terminal's :data:`attnio.tables.TERMINAL_COLUMNS`; None: full width) drops the regime
    column (a legend line says where it is) and wraps the boundary names and the prose."""
    r = report
    lines = [f"memory hierarchy: {r['hierarchy']['label']}, {r['pass']} pass, n={r['n']} "
             f"d={r['d']} batch={r['batch']} heads={r['heads']} kv_heads={r['kv_heads']} "
             f"({r['hierarchy']['word_bytes']}-byte words; M = total capacity above the "
             "boundary)"]

    def t(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2e} s"

    levels = r["levels"]
    header = ["boundary", "M words", "regime", "lower bound", "LB time", "best algorithm",
              "words", "time"]
    columns = [[f"{lvl['above']} | {lvl['below']}" for lvl in levels],
               number_column([lvl["capacity_words"] for lvl in levels]),
               [lvl["regime"] for lvl in levels],
               number_column([lvl["lower_bound_words"] for lvl in levels]),
               [t(lvl["lower_bound_seconds"]) for lvl in levels],
               [lvl["best_algorithm"] or "none fits" for lvl in levels],
               number_column([lvl["best_words"] for lvl in levels]),
               [t(lvl["best_seconds"]) for lvl in levels]]
    align = ["left", "right", "left", "right", "right", "left", "right", "right"]
    if width is not None:  # the regime is M against d**2: in --wide and --json
        del header[2], columns[2], align[2]
    lines.append(render_table(header, list(zip(*columns)), align=align, max_width=width,
                              wrap=[0, 4 if width is not None else 5]))
    bn = r["bottleneck_boundary"]
    lines.append("bottleneck: " + ("unknown (no bandwidth published below any boundary)"
                                   if bn is None else
                                   f"boundary {bn} ({levels[bn]['above']} | "
                                   f"{levels[bn]['below']}), best algorithm's time; "
                                   "time = words x bytes / bandwidth, no overlap")
                 + ("" if width is None else "; regime per boundary: --wide or --json"))
    return "\n".join([fit_text(lines[0], width, indent="  "), lines[1],
                      fit_text(lines[2], width, indent="  ")])
