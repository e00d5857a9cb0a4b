r"""The verdicts of ``attnio verify`` rendered: the verdict table and the ``--json`` document.

Rendering lives above the library (issue 40): :mod:`attnio.proofs.runner` runs the claims and
counts the verdicts; this module turns its :class:`~attnio.proofs.runner.ClaimResult` list
into text for :mod:`attnio.commands.verify`:

* :func:`format_table` renders id, source, evidence (e.g. ``z3+cvc5 ∀``, ``exh 14/20``),
  verdict and seconds for stdout (:func:`attnio.tables.render_table`);
* :func:`to_json` gives ``{"command", "verdict", "claims": [...], "summary": {"proved",
  "refuted", "undecided"}, "evidence": {kind: {verdict: count}}}`` with the attnio and solver
  versions (notes/json.md); each claim row carries ``"evidence"`` and ``"solvers"``.

Examples
--------
>>> from attnio.results import Proved, Undecided
>>> from attnio.proofs.registry import Claim
>>> from attnio.proofs.runner import run_claims
>>> ok = Claim("demo.ok", "true", "true", "test", "python", "demo", lambda ctx: Proved("yes"))
>>> bad = Claim("demo.bad", "unknown", "?", "test", "python", "demo",
...             lambda ctx: Undecided("budget"))
>>> results = run_claims([ok, bad], show_progress=False)
>>> to_json(results)["summary"]
{'proved': 1, 'refuted': 0, 'undecided': 1}
>>> "demo.ok" in format_table(results)
True
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from attnio.output import json_document
from attnio.proofs.runner import ClaimResult, evidence_summary, summary
from attnio.results import Refuted, overall_verdict
from attnio.tables import latex_prose, render_table

__all__ = ["format_table", "to_json"]


def to_json(results: Sequence[ClaimResult], *, command: str = "verify",
            coq: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``attnio verify --json`` document (:func:`attnio.output.json_document`):
    ``{"command", "verdict", "claims": [...], "summary": {...}, "evidence": {...}}`` with the
    attnio and solver versions; ``verdict`` is :func:`attnio.results.overall_verdict` of the
    claims (``proved`` only when every one is). With ``coq`` (``--kernel coq``) each claim row
    carries ``"coq"``: its entry of ``coq`` (whether coqc re-proved it, and why), or null for a
    claim Coq does not re-check."""
    rows = [r.to_json() for r in results]
    if coq is not None:
        for row in rows:
            row["coq"] = coq.get(row["id"])
    return json_document(command, overall_verdict(r.verdict.verdict for r in results),
                         {"claims": rows, "summary": summary(results),
                          "evidence": evidence_summary(results)})


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(results: Sequence[ClaimResult], *, twins: bool = False, fmt: str = "plain",
                 width: int | None = None, coq: Mapping[str, str] | None = None) -> str:
    """The verdict table (:func:`attnio.tables.render_table`): id, source, evidence, verdict,
    seconds (one row per claim).

    A source is marked ``[R]`` when RECONSTRUCTED. ``width`` (the terminal's
    :data:`attnio.tables.TERMINAL_COLUMNS`; None: full width) drops the seconds column (the
    total is on the summary line) and clips each source with ``…`` to the room left, a legend
    line under the table saying so (the full text is in ``--wide``, ``--json``).
    ``fmt="latex"``: a booktabs tabular of the five columns, sources in full.

    For twins (``twins=True``) the verdict column reads ``rejected`` for a rejected twin
    (``rejected (undecided)`` when its declared path is Undecided) and ``NOT REJECTED``
    otherwise.

    ``coq`` (``attnio verify --kernel coq``): a column ``coq`` after the verdict, the text
    given for each claim id (``re-proved``, ``not re-proved``; empty for a claim Coq does not
    re-check).
    """
    headers = ["id", "source", "evidence", "verdict", *(["coq"] if coq is not None else []),
               "seconds"]
    k = len(headers) - 1   # the columns before the seconds
    rows: list[tuple[list[str], bool]] = []
    for r in results:
        verdict: str = r.verdict.verdict.value
        if twins:
            if r.claim.rejects(r.verdict):
                verdict = "rejected" if isinstance(r.verdict, Refuted) else f"rejected ({verdict})"
            else:
                verdict = f"NOT REJECTED ({verdict})"
        evidence = r.verdict.evidence.short() if r.verdict.evidence else "—"
        extra = [coq.get(r.claim.id, "")] if coq is not None else []
        rows.append(([r.claim.id, r.claim.source, evidence, verdict, *extra,
                      f"{r.verdict.seconds:.3f}"], bool(r.claim.reconstructed)))
    if fmt != "plain" or width is None:
        source = latex_prose if fmt == "latex" else str
        return render_table(headers, [[v[0], source(v[1] + (" [R]" if rec else "")), *v[2:]]
                                      for v, rec in rows], fmt=fmt,
                            align=["left"] * k + ["right"],
                            latex_columns=("lp{5cm}" + "l" * (k - 2) + "r")
                            if fmt == "latex" else None)
    others = [max([len(h), *(len(str(v[i])) for v, _ in rows)]) for i, h in enumerate(headers[:k])]
    room = max(12, width - sum(others) + others[1] - 2 * (k - 1) - len(" [R]"))
    while True:  # tabulate pads a header by 2: clip further by what the first try overshot;
        # at the narrowest source, long ids (the twins') are wrapped
        table = render_table(headers[:k], [[v[0], _clip(v[1], room) + (" [R]" if rec else ""),
                                            *v[2:k]] for v, rec in rows],
                             max_width=width if room <= 12 else None, wrap=[0])
        excess = max(len(line) for line in table.splitlines()) - width
        if excess <= 0 or room <= 12:
            break
        room = max(12, room - excess)
    return table + "\n" + ("[R] = RECONSTRUCTED source; " if any(rec for _, rec in rows)
                           else "") + "full sources and seconds per claim: --wide or --json"
