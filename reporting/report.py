r"""``attnio report OUTDIR`` — a report of the verify table, the bound table and the figures.

The report gathers, at one choice of (n, d) and a few cache sizes M:

1. a **summary** — claims Proved / run, the regime at each chosen M (M against the derived
   crossover d²) and the key crossovers (derived by sympy, and measured by the simulator);
2. the **figures** of :mod:`attnio.figures` — phase diagram, I/O against M, FLOPs against M,
   the pebbling sandwich (with its table) and an optimal schedule of the smallest DAG;
3. the **bound table** — every entry of the symbolic catalogue evaluated exactly at
   (n, d, M) at the dense instance of :func:`attnio.symbolic.evaluate.default_instance` (the
   same values as ``attnio bounds``), with the derived crossovers, and the hardware advisor's
   device table at d;
4. at the end, the **verify table** — every registered claim of :mod:`attnio.proofs` checked
   now (``--quick``: only the z3 algebra, :data:`QUICK_METHOD_PREFIX`), with id, source,
   method, verdict and seconds.

Two formats: ``OUTDIR/index.md`` with one PNG per figure next to it (default), or with
``--html`` one self-contained ``OUTDIR/index.html`` (figures embedded as base64 data URIs,
no external resource, every text escaped; see :mod:`attnio.report_html`) that also lists the
versions of attnio, sympy, z3, cvc5, networkx and numpy.

Every number in the report is computed by the library at report time; nothing is copied in.
A section that fails is reported in the report (with the exception) instead of aborting the
others, and makes the exit code 1.

The user's files are safe (:class:`OutputFolder`)
-------------------------------------------------
``attnio report`` never overwrites a file it did not write. It records what it wrote in the
**marker** ``OUTDIR/.attnio-report.json`` (:data:`MARKER_NAME`): valid JSON with the attnio
version, the library versions and, for each file written, its SHA-256. Before any work:

* OUTDIR missing or empty: it is created / used;
* OUTDIR non-empty **without** a marker: refused (exit 2, one line) — attnio does not write
  into a fresh sub-folder behind the user's back; choose another folder, or pass ``--force``;
* with a marker: a file attnio is about to write may be replaced only if the marker lists it
  **and** its content still has the recorded SHA-256 (a file the user edited since is
  refused); other files in OUTDIR are never touched;
* ``--force``: same-named regular files are replaced; nothing else is touched;
* a **symlink** — OUTDIR itself, the marker or any file to be written — is refused, even with
  ``--force``: attnio never writes through a link;
* every file (PNGs included: figures are rendered to bytes in memory) is written by
  :mod:`attnio.safe_io` — temporary file, fsync, atomic rename.

Exit codes: 0 the report is complete and every claim run is Proved; 1 the report was written
but a claim is not Proved or a section failed; 2 bad input (OUTDIR is a file, a symlink, not
writable, or non-empty and not attnio's; n, d or M not positive integers, M outside
d ≤ M ≤ n·d).

Progress: each stage is named on stderr as it starts and ends; off a terminal a status line
naming the stage follows every few seconds (:class:`attnio.progress.StageStatus`). No ETA.

Examples
--------
>>> default_cache_sizes(n=1024, d=32)
[256, 1024, 4096]
>>> prepare_outdir("/dev/null")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: OUTDIR='/dev/null' exists and is not a directory
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import importlib.util
import json
import os
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, Union

from attnio.exceptions import AttnioError, InvalidInputError

if TYPE_CHECKING:  # pragma: no cover
    from attnio.progress import StageStatus

__all__ = [
    "register",
    "run",
    "write_report",
    "ReportResult",
    "BoundRow",
    "bound_table",
    "bound_table_markdown",
    "default_cache_sizes",
    "prepare_outdir",
    "OutputFolder",
    "MARKER_NAME",
    "QUICK_METHOD_PREFIX",
    "DEFAULT_N",
    "DEFAULT_D",
    "Span",
    "Paragraph",
    "Table",
    "FigureBlock",
    "Preformatted",
    "Section",
    "ReportDocument",
    "render_markdown",
]

DEFAULT_N = 4096
DEFAULT_D = 64
#: ``--quick`` runs only the claims whose method starts with this: the z3 algebra over the
#: reals (branches, comparisons, lower-order terms, lower-bound steps), each a few ms — no
#: exhaustive search, no pebbling.
QUICK_METHOD_PREFIX = "z3 NRA"
#: The marker attnio leaves in OUTDIR, listing the files it wrote (see the module docstring).
MARKER_NAME = ".attnio-report.json"
_MARKER_FORMAT = "attnio-report-marker/1"


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
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

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


# --------------------------------------------------------------------------------------------
# the output folder: never a stranger's file, never through a symlink
# --------------------------------------------------------------------------------------------


def prepare_outdir(outdir: str | os.PathLike[str]) -> Path:
    """Create OUTDIR if needed and make sure a file can be written in it; return it as a Path.

    This checks only that OUTDIR can hold files; which files may be replaced is decided by
    :class:`OutputFolder`.

    Raises
    ------
    attnio.exceptions.InvalidInputError
        OUTDIR is a symlink, exists and is not a directory, cannot be created, or is not
        writable.
    """
    path = Path(outdir)
    if path.is_symlink():
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} is a symlink; attnio does not write "
                                "through symlinks (name the real folder)")
    if path.exists() and not path.is_dir():
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        # os.access is not enough (root passes it on read-only mounts): really write a file.
        with tempfile.NamedTemporaryFile(dir=path, prefix=".attnio-write-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} is not a writable directory ({reason})") from None
    return path


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


class OutputFolder:
    """OUTDIR, checked before any work, and the only way the report writes into it.

    ``OutputFolder(outdir, names, force=...)`` checks the rules of the module docstring for
    every file name in ``names`` (plus the marker) without creating anything, and raises
    :class:`~attnio.exceptions.InvalidInputError` (one line) on the first violation.
    :meth:`create` then creates OUTDIR; :meth:`write` writes one file atomically through
    :mod:`attnio.safe_io` and records it in the marker.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "notes.txt").write_text("mine")
    4
    >>> OutputFolder(folder, ["index.md"])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: OUTDIR=... is not empty and holds no attnio marker (.attnio-report.json): attnio report writes only into a new or empty folder, or one it wrote before; choose another folder or pass --force to replace same-named files
    >>> out = OutputFolder(folder / "report", ["index.md"]).create()
    >>> _ = out.write("index.md", b"# hello\\n")
    >>> sorted(p.name for p in (folder / "report").iterdir())
    ['.attnio-report.json', 'index.md']
    """

    def __init__(self, outdir: str | os.PathLike[str], names: Sequence[str], *,
                 force: bool = False) -> None:
        self.path = Path(outdir)
        self.force = force
        self.names = list(names)
        for name in self.names:
            if name != Path(name).name or name in {"", ".", ".."} or name == MARKER_NAME:
                raise InvalidInputError(f"file name {name!r} is not a plain file name")
        self.recorded: dict[str, str] = {}  # name -> sha256 of what attnio wrote
        self.replaceable: set[str] = set()
        self.written: list[Path] = []
        self._marker_ours = False  # may the marker file be replaced (it is ours, or --force)?
        self._check()

    # -- the rules -----------------------------------------------------------------------

    def _check(self) -> None:
        path, shown = self.path, repr(str(self.path))
        if path.is_symlink():
            raise InvalidInputError(f"OUTDIR={shown} is a symlink; attnio does not write "
                                    "through symlinks (name the real folder)")
        if not path.exists():
            return
        if not path.is_dir():
            raise InvalidInputError(f"OUTDIR={shown} exists and is not a directory")
        marker = path / MARKER_NAME
        for target in [marker, *(path / name for name in self.names)]:
            if target.is_symlink():  # first: the most specific reason, whatever else holds
                raise InvalidInputError(f"refusing to write through symlink {target}")
        has_marker = marker.exists()
        if has_marker and not marker.is_file():
            raise InvalidInputError(f"{marker} exists and is not a regular file")
        if has_marker:
            try:
                self.recorded = self._read_marker(marker)
            except InvalidInputError:
                if not self.force:
                    raise
                self.recorded = {}
            self._marker_ours = True
        else:
            try:
                entries = [e for e in os.listdir(path) if not e.startswith(".attnio-write-probe-")]
            except OSError as exc:
                raise InvalidInputError(f"OUTDIR={shown} cannot be listed ({exc.strerror})") from None
            if entries and not self.force:
                raise InvalidInputError(
                    f"OUTDIR={shown} is not empty and holds no attnio marker ({MARKER_NAME}): "
                    "attnio report writes only into a new or empty folder, or one it wrote "
                    "before; choose another folder or pass --force to replace same-named files")
        # Forget recorded files that were removed or changed since (they are not ours any more).
        self.recorded = {name: digest for name, digest in self.recorded.items()
                         if _file_sha256(path / name) == digest and not (path / name).is_symlink()}
        for name in self.names:
            target = path / name
            if not target.exists():
                continue
            if not target.is_file():
                raise InvalidInputError(f"{target} exists and is not a regular file")
            if self.force or name in self.recorded:
                self.replaceable.add(name)
            elif has_marker:
                raise InvalidInputError(
                    f"refusing to overwrite {target}: the attnio marker does not list it with "
                    "its current content (it is not attnio's, or was edited since); pass "
                    "--force to replace it")
            else:  # only reachable with --force off and an empty listing race; be safe
                raise InvalidInputError(f"refusing to overwrite existing file {target} "
                                        "(pass --force to replace it)")

    @staticmethod
    def _read_marker(marker: Path) -> dict[str, str]:
        """``{name: sha256}`` from a marker; InvalidInputError if it is not one of ours."""
        bad = InvalidInputError(f"{marker} is not a valid attnio marker; remove it, choose "
                                "another folder, or pass --force")
        try:
            if marker.stat().st_size > 1_000_000:
                raise bad
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            raise bad from None
        if not isinstance(data, dict) or data.get("format") != _MARKER_FORMAT:
            raise bad
        files = data.get("files")
        if not isinstance(files, dict):
            raise bad
        out: dict[str, str] = {}
        for name, entry in files.items():
            digest = entry.get("sha256") if isinstance(entry, dict) else None
            if (not isinstance(name, str) or name != Path(name).name or name in {".", "..", ""}
                    or not isinstance(digest, str) or len(digest) != 64):
                raise bad
            out[name] = digest
        return out

    # -- writing -------------------------------------------------------------------------

    def create(self) -> "OutputFolder":
        """Create OUTDIR (parents too) and check that it is writable."""
        prepare_outdir(self.path)
        return self

    def write(self, name: str, data: bytes) -> Path:
        """Write ``data`` to OUTDIR/name atomically and record it in the marker.

        Only names given to the constructor; a file that appeared since the check is refused
        (``overwrite`` is granted only to files found replaceable then, or written by this
        run).
        """
        from attnio.safe_io import write_bytes

        if name not in self.names:
            raise InvalidInputError(f"file name {name!r} was not checked before writing")
        overwrite = name in self.replaceable
        target = write_bytes(self.path / name, data, overwrite=overwrite)
        self.replaceable.add(name)
        self.recorded[name] = _sha256(data)
        self.written.append(target)
        self._write_marker()
        return target

    def _write_marker(self) -> None:
        from attnio.provenance import provenance
        from attnio.safe_io import write_text

        marker = {
            "format": _MARKER_FORMAT,
            "note": "written by attnio report: the files it wrote and may replace; any other "
                    "file in this folder is never touched",
            **provenance(),
            "written_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "files": {name: {"sha256": digest} for name, digest in sorted(self.recorded.items())},
        }
        # A marker that appeared during the run (not ours) is refused like any stranger's file.
        write_text(self.path / MARKER_NAME, json.dumps(marker, indent=2, allow_nan=False) + "\n",
                   overwrite=self._marker_ours)
        self._marker_ours = True

    @property
    def marker(self) -> Path:
        """OUTDIR/.attnio-report.json."""
        return self.path / MARKER_NAME


def _validate_sizes(n: int, d: int, Ms: Sequence[int]) -> None:
    for name, value in (("n", n), ("d", d)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInputError(f"{name}={value!r} must be a positive integer")
    for M in Ms:
        if not isinstance(M, int) or isinstance(M, bool) or M < 1:
            raise InvalidInputError(f"M={M!r} must be a positive integer")
        if not d <= M <= n * d:
            raise InvalidInputError(f"M={M} must satisfy d <= M <= n*d (here {d} <= M <= {n * d})")


# --------------------------------------------------------------------------------------------
# the document: one model, rendered to Markdown here and to HTML in attnio.report_html
# --------------------------------------------------------------------------------------------

#: A piece of inline text with a style: ``""`` plain, ``"code"``, ``"strong"`` or ``"em"``.
Span = tuple[str, str]
Inline = Union[str, list[Span]]


@dataclass
class Paragraph:
    """A paragraph of spans."""

    spans: list[Span]


@dataclass
class Bullets:
    """A bulleted list; each item a list of spans."""

    items: list[list[Span]]


@dataclass
class Table:
    """A table; a cell is plain text or a list of spans."""

    header: list[str]
    rows: list[list[Inline]]


@dataclass
class FigureBlock:
    """A figure: PNG bytes rendered in memory, its file name (Markdown) and caption."""

    filename: str
    alt: str
    caption: str
    png: bytes


@dataclass
class Preformatted:
    """Preformatted text (a traceback)."""

    text: str


Block = Union[Paragraph, Bullets, Table, FigureBlock, Preformatted]


@dataclass
class Section:
    """A titled section; ``failed`` when its computation raised."""

    title: str
    blocks: list[Block]
    failed: bool = False


@dataclass
class ReportDocument:
    """The whole report: a title, the opening blocks, and the sections in reading order."""

    title: str
    head: list[Block]
    sections: list[Section]
    versions: dict[str, Any]


def _plain(text: str) -> list[Span]:
    return [(str(text), "")]


def _spans(cell: Inline) -> list[Span]:
    return _plain(cell) if isinstance(cell, str) else cell


def _md_inline(spans: Sequence[Span]) -> str:
    out = []
    for text, style in spans:
        if style == "code":
            out.append("`" + text.replace("`", "'") + "`")
        elif style == "strong":
            out.append(f"**{text}**")
        elif style == "em":
            out.append(f"*{text}*")
        else:
            out.append(text)
    return "".join(out)


def render_markdown(doc: ReportDocument) -> str:
    """The report as Markdown; figures are linked as ``![alt](filename)`` next to it.

    >>> doc = ReportDocument("T", [Paragraph([("a", ""), ("b|c", "code")])],
    ...                      [Section("S", [Table(["x"], [[[("1", "strong")]]])])], {})
    >>> print(render_markdown(doc))
    # T
    <BLANKLINE>
    a`b|c`
    <BLANKLINE>
    ## S
    <BLANKLINE>
    | x |
    |---|
    | **1** |
    <BLANKLINE>
    """
    lines = [f"# {doc.title}", ""]
    for block in doc.head:
        lines += _md_block(block) + [""]
    for section in doc.sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            lines += _md_block(block) + [""]
    return "\n".join(lines)


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [_md_inline(block.spans)]
    if isinstance(block, Bullets):
        return [f"- {_md_inline(item)}" for item in block.items]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_cell(h) for h in block.header) + " |",
                 "|" + "---|" * len(block.header)]
        lines += ["| " + " | ".join(_cell(_md_inline(_spans(c))) for c in row) + " |"
                  for row in block.rows]
        return lines
    if isinstance(block, FigureBlock):
        return [f"![{block.alt}]({block.filename})", "", f"*{block.caption}*"]
    if isinstance(block, Preformatted):
        return ["```", block.text.replace("```", "'''"), "```"]
    raise TypeError(f"unknown block {block!r}")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------


def _verify_section(quick: bool, on_claim: Callable[[str], None] = lambda _id: None
                    ) -> tuple[list[Block], dict[str, int]]:
    """Run the claims with :mod:`attnio.proofs.runner`; return blocks and the verdict counts."""
    from attnio.proofs.registry import load_claims
    from attnio.proofs.runner import run_claims, select, summary

    claims = select(load_claims())
    if quick:
        claims = [c for c in claims if c.method.startswith(QUICK_METHOD_PREFIX)]
    results = []
    for claim in claims:  # one at a time, so that the status line names the claim running
        on_claim(f"claim {claim.id}")
        results += run_claims([claim], show_progress=False)
    rows: list[list[Inline]] = []
    for r in results:
        mark = {"proved": _plain("Proved"), "refuted": [("Refuted", "strong")],
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
    return [Paragraph(_plain(head)),
            Table(["id", "source", "method", "verdict", "seconds"], rows)], counts


@dataclass(frozen=True)
class BoundRow:
    """One catalogue entry evaluated at each M (``None`` outside its admissible range)."""

    id: str
    pass_: str
    kind: str
    expression: str
    values: tuple[Any, ...]


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
    from attnio.symbolic.catalogue import CATALOGUE
    from attnio.symbolic.crossovers import crossover
    from attnio.symbolic.evaluate import catalogue_values

    at_M = [catalogue_values(n, d, M) for M in Ms]
    rows: list[BoundRow] = []
    crossovers: dict[str, Any] = {}
    for bound in CATALOGUE:
        values = tuple(ev[bound.id].value if ev[bound.id].in_range else None for ev in at_M)
        symbol = ({"tight": "Θ", "upper": "O", "lower": "Ω"} if bound.asymptotic
                  else {"tight": "=", "upper": "≤", "lower": "≥"})[bound.kind]
        rows.append(BoundRow(bound.id, bound.pass_, f"{bound.kind} ({symbol})", str(bound.expr),
                             values))
        if bound.combine == "min" and len(bound.branches) == 2:
            crossovers[bound.id] = _crossover_solution(crossover(bound))
    return rows, crossovers


def _crossover_solution(result: Any) -> Any:
    return getattr(result, "solution", result)


def bound_table_markdown(n: int, d: int, Ms: Sequence[int]) -> str:
    """:func:`bound_table` as the Markdown of the report's bound table (for notebooks too)."""
    blocks, _ = _bound_section(n, d, Ms)
    return "\n".join(line for block in blocks for line in [*_md_block(block), ""]).rstrip("\n")


def _bound_section(n: int, d: int, Ms: Sequence[int]) -> tuple[list[Block], dict[str, Any]]:
    rows, crossovers = bound_table(n, d, Ms)
    table = Table(["id", "pass", "kind", "bound", *(f"M = {M:,}" for M in Ms)],
                  [[[(row.id, "code")], row.pass_, row.kind, [(row.expression, "code")],
                    *(_fmt_value(v) for v in row.values)] for row in rows])
    blocks: list[Block] = [
        Paragraph(_plain(f"Exact values of every catalogue entry ({_OTHER_SYMBOLS}); — = M "
                         "outside the entry's admissible range. Θ/O/Ω entries are exact only "
                         "up to a constant factor.")),
        table,
        Paragraph(_plain("Crossovers derived by attnio.symbolic.crossovers (branch equality "
                         "solved by sympy):")),
        Bullets([[(bound_id, "code"), (": M = ", ""), (str(solution), "code")]
                 for bound_id, solution in crossovers.items()]),
    ]
    return blocks, crossovers


def _hardware_section(n: int, d: int, dtype: str = "bf16") -> list[Block]:
    """The advisor's device table at head dimension d (M = on-chip bytes ÷ dtype width)."""
    from attnio.symbolic.advisor import DEVICES, advise

    rows: list[list[Inline]] = []
    for name in DEVICES:
        a = advise(name, d, dtype, n=n)
        rows.append([a.device.name, a.device.fast_memory, f"{a.M:,}", f"{a.crossover_M:,}",
                     a.regime, a.recommended_algorithm, f"{float(a.io_ratio):.3g}"])
    return [
        Paragraph(_plain("Which side of the derived crossover M* = d² real fast memories fall "
                         "on (attnio.symbolic.advisor; sources in its DEVICES table). The I/O "
                         "ratio is the catalogue's FlashAttention bound ÷ Algorithm 6 bound at "
                         f"n = {n:,} (constants 1).")),
        Table(["device", "fast memory", "M (words)", "d²", "regime", "theory picks",
               "FlashAttention ÷ Alg. 6"], rows),
    ]


def _fmt_value(value: Any) -> str:
    if value is None:
        return "—"
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return _cell(str(value))
    if number != number or number in (float("inf"), float("-inf")):
        return _cell(str(value))
    if number == int(number) and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:.4g}"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------

#: (file name, section title) of the figures, in reading order.
FIGURE_FILES = (
    ("phase_diagram.png", "Phase diagram"),
    ("io_vs_M.png", "I/O against M"),
    ("flops_vs_M.png", "FLOPs against M"),
    ("sandwich.png", "Pebbling sandwich"),
    ("optimal_schedule.png", "An optimal schedule"),
    ("lower_bound_tightness.png", "Certified lower bounds against the exact optimum"),
    ("gap_ratio.png", "The constant gap at real sizes"),
    ("sparse_io_ratio.png", "Masked attention against the sparse lower bound"),
    ("hardware_levels.png", "I/O per memory level"),
    ("hardware_regimes.png", "Regime map of the device table"),
)


def _output_names(html: bool) -> list[str]:
    return ["index.html"] if html else ["index.md", *(name for name, _ in FIGURE_FILES)]


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

    Returns
    -------
    ReportResult

    Raises
    ------
    attnio.exceptions.InvalidInputError
        Bad OUTDIR (a file, a symlink, not writable, non-empty and not attnio's, a file to be
        written that attnio may not replace), n, d or M. Raised before any work.
    attnio.exceptions.AttnioError
        matplotlib (the ``plots`` extra) is not installed.
    """
    from attnio import __version__
    from attnio import figures
    from attnio.progress import StageStatus
    from attnio.provenance import provenance

    start = time.perf_counter()
    Ms = list(Ms) if Ms is not None else default_cache_sizes(n, d)
    _validate_sizes(n, d, Ms)
    if importlib.util.find_spec("matplotlib") is None:
        raise AttnioError("attnio report draws with matplotlib, which is not installed: "
                          "python3 -m pip install 'attnio[plots]'")
    folder = OutputFolder(outdir, _output_names(html), force=force)  # checks; creates nothing
    folder.create()
    path = folder.path
    result = ReportResult(index=path / ("index.html" if html else "index.md"))
    own_status = status is None
    status = status if status is not None else StageStatus("attnio report", enabled=False)
    facts: dict[str, Any] = {}

    sections: dict[str, Section] = {}

    def section(title: str, body: Callable[[], list[Block]]) -> None:
        with status.stage(title):
            try:
                blocks, failed = body(), False
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # a failed section is reported, not hidden, and fails the run
                result.failures.append(f"{title}: {type(exc).__name__}: {exc}")
                failed = True
                blocks = [Paragraph([("This section failed", "strong"), (": ", ""),
                                     (f"{type(exc).__name__}: {' '.join(str(exc).split())}",
                                      "code")]),
                          Preformatted(traceback.format_exc(limit=4).rstrip())]
        sections[title] = Section(title, blocks, failed)

    def verify() -> list[Block]:
        blocks, counts = _verify_section(quick, on_claim=status.detail)
        result.claims_run, result.claims_proved = counts["run"], counts["proved"]
        facts["verify"] = counts
        return blocks

    def bounds() -> list[Block]:
        blocks, facts["crossovers"] = _bound_section(n, d, Ms)
        return blocks

    def figure(filename: str, caption: str, draw: Callable[[], tuple[Any, list[Block]]]
               ) -> Callable[[], list[Block]]:
        def body() -> list[Block]:
            fig, facts_blocks = draw()  # the figure, and the numbers behind the picture
            png = figures.png_bytes(fig)
            result.figure_names.append(filename)
            return [FigureBlock(filename, filename.removesuffix(".png").replace("_", " "),
                                caption, png), *facts_blocks]
        return body

    def phase_figure() -> tuple[Any, list[Block]]:
        data = figures.phase_diagram_data()
        return figures.plot_phase_diagram(data), [Paragraph(_plain(
            f"Crossover line α = {data.crossover_alpha:g} (log_d of the derived M* = d²); "
            f"at (α, β) = (1.5, 2): {' / '.join(data.label_at(1.5, 2.0))}; at (3, 2.5): "
            f"{' / '.join(data.label_at(3.0, 2.5))}."))]

    def io_figure() -> tuple[Any, list[Block]]:
        data = figures.io_curves_data(n, d, figures.sweep_cache_sizes(n, d))
        facts["measured_crossover"] = data.crossover_M
        where = ("none within the sweep" if data.crossover_M is None else
                 f"M = {data.crossover_M:,} = {data.crossover_M / (d * d):.2f}·d²")
        return figures.plot_io_curves(data), [Paragraph(_plain(
            f"Measured crossover (first M of an 8-per-doubling sweep at which FlashAttention "
            f"backward moves no more words than Algorithm 6): {where}; d² = {d * d:,}."))]

    def flop_figure() -> tuple[Any, list[Block]]:
        data = figures.flop_curves_data(n, d, figures.sweep_cache_sizes(n, d))
        ratios = [s / f for s, f in zip(data.flops["small-cache"], data.flops["flash1"])
                  if s is not None and f]
        return figures.plot_flop_curves(data), (
            [Paragraph(_plain(f"Algorithm 6 ÷ FlashAttention backward FLOPs: {min(ratios):.3f} "
                              f"to {max(ratios):.3f} over the M where both run."))]
            if ratios else [])

    def sandwich_figure() -> tuple[Any, list[Block]]:
        rows = figures.sandwich_data(quick=quick)
        table_rows: list[list[Inline]] = []
        for r in rows:
            sched = ", ".join(f"{k} {v}" for k, v in sorted(r.schedules.items())) or "—"
            table_rows.append([r.dag, str(r.M), _fmt_value(r.lower_bound),
                               _fmt_value(r.partition_bound), _fmt_value(r.trivial_bound),
                               _fmt_value(r.optimum), sched, r.note or "ok"])
        return figures.plot_sandwich(rows), [Table(
            ["DAG", "M", "explicit", "Hong–Kung", "trivial", "optimum", "schedules", "note"],
            table_rows)]

    def schedule_figure() -> tuple[Any, list[Block]]:
        timeline = figures.smallest_optimal_schedule()
        moves = ", ".join(f"{kind} {vertex}" for kind, vertex in timeline.moves)
        return figures.plot_schedule(timeline), [Paragraph(_plain(
            f"Moves ({timeline.io} I/O, replayed by attnio.graphs.game.replay): {moves}."))]

    def tightness_figure() -> tuple[Any, list[Block]]:
        from attnio.graphs.lower_bounds import compulsory_bound
        from attnio.proofs.sandwich import DEFAULT_INSTANCES, sandwich_row

        rows = []
        for inst in DEFAULT_INSTANCES:
            G = inst.build()
            if quick and G.number_of_nodes() > 20:
                continue
            for M in inst.Ms:
                row = sandwich_row(inst, G, M, timeout_ms=20_000, time_limit=30)
                if row.status == "ok" and row.optimum is not None and row.certified is not None:
                    rows.append((inst.label, M, compulsory_bound(G, M).value, row.certified,
                                 row.optimum, row.certified_route))
        fig = figures._new_figure(7.0, 5.5)
        ax = fig.add_subplot()
        top = max(r[4] for r in rows) * 1.08
        ax.plot([0, top], [0, top], color="black", lw=1, label="LB = OPT")
        ax.plot([0, top], [0, top / 1.75], color="#e6550d", ls="--", lw=1,
                label="OPT/LB = 1.75 (target)")
        ax.scatter([r[4] for r in rows], [r[3] for r in rows], s=24, label="certified LB")
        ax.scatter([r[4] for r in rows], [r[2] for r in rows], s=24, facecolors="none",
                   edgecolors="grey", label="compulsory I/O")
        ax.set_xlabel("exact optimum Q(G, M)")
        ax.set_ylabel("lower bound")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        worst = max(r[4] / r[3] for r in rows if r[3])
        shares = sorted((r[3] - r[2]) / (r[4] - r[2]) for r in rows if r[4] > r[2])
        median = shares[len(shares) // 2] if shares else None
        table = [[label, str(M), str(C), str(LB), str(OPT), route]
                 for label, M, C, LB, OPT, route in rows]
        return fig, [Paragraph(_plain(
            f"{len(rows)} sandwich rows with a settled optimum; worst OPT ÷ certified LB = "
            f"{worst:.3f} (target ≤ 1.75); median explained share (LB − C) ÷ (OPT − C) = "
            + (f"{median:.2f}" if median is not None else "n/a") + " (target ≥ 0.5). Routes "
            "1–5 of attnio.graphs.lower_bounds (notes/lower_bounds.md).")),
            Table(["DAG", "M", "compulsory C", "certified LB", "OPT", "route"], table)]

    def gap_figure() -> tuple[Any, list[Block]]:
        from attnio.algorithms.gap import gap_payload, plot_gap

        grid = [M for M in (2 ** k for k in range(6, 40)) if d <= M <= n * d]
        if quick:
            grid = grid[::2]
        payloads = [gap_payload(pass_, n, d, grid) for pass_ in ("backward", "forward")]
        worst = {p["pass"]: max(r["ratio"] for r in p["rows"]) for p in payloads}
        return plot_gap(payloads, targets={"backward target 16": 16, "forward target 8": 8}), [
            Paragraph(_plain(
                f"Cheapest algorithm's exact I/O ÷ the best explicit lower bound (attnio gap) "
                f"at n = {n:,}, d = {d}: worst backward {worst['backward']:.2f}, worst forward "
                f"{worst['forward']:.2f} over M = {grid[0]:,} … {grid[-1]:,}."))]

    def sparse_figure() -> tuple[Any, list[Block]]:
        from attnio.algorithms import sparse_measure

        _, panels = sparse_measure.notes_and_panels()
        return sparse_measure.plot_panels(panels), [Paragraph(_plain(
            f"Backward I/O ÷ sparse.lower (constant 1) for causal, sliding-window and "
            f"block-sparse masks at n = {sparse_measure.N:,}, d = {sparse_measure.D}, count "
            "mode (notes/sparse.md)."))]

    def hardware_levels_figure() -> tuple[Any, list[Block]]:
        from attnio.algorithms.hardware_plots import levels_vs_n, plot_levels_vs_n

        ns = [2 ** k for k in range(9, 15 if quick else 17)]
        rows = levels_vs_n("h100-sxm", "bf16", d, ns)
        return plot_levels_vs_n(rows, f"H100-SXM, bf16, d = {d}: words per boundary"), [
            Paragraph(_plain("Words across each boundary of the device hierarchy (one-SM "
                             "view, notes/hardware.md): best algorithm solid, the two-level "
                             "lower bound at the capacity above the boundary dashed."))]

    def hardware_regimes_figure() -> tuple[Any, list[Block]]:
        from attnio.algorithms.hardware_plots import plot_regime_map, regime_map

        return plot_regime_map(regime_map()), [Paragraph(_plain(
            "Regime (small-cache M < d², large-cache M > d²) of each device of the table "
            "(symbolic/devices.json, sourced per number) per dtype and head dimension."))]

    captions = {
        "lower_bound_tightness.png": (
            "Certified lower bound (routes 1–5, certificates re-checked) and compulsory I/O "
            "against the exact optimum on the sandwich's tiny DAGs.", tightness_figure),
        "gap_ratio.png": (
            f"The constant gap at n = {n:,}, d = {d}: cheapest algorithm ÷ best explicit "
            "lower bound against M, both passes.", gap_figure),
        "sparse_io_ratio.png": (
            "Masked algorithms against the sparse lower bound of arXiv 2410.09397 Thm 4.5 "
            "(RECONSTRUCTED), with its branch crossover Z_in²/Z_QK.", sparse_figure),
        "hardware_levels.png": (
            f"Per-level I/O against sequence length on H100-SXM (bf16, d = {d}).",
            hardware_levels_figure),
        "hardware_regimes.png": (
            "Which devices, dtypes and head dimensions are in the small-cache regime, at "
            "shared memory and at each boundary.", hardware_regimes_figure),
        "phase_diagram.png": (
            "Exponent space (α = log_d M, β = log_d n): left, the dominant term of Thm 1.1; "
            "right, the backward algorithm whose upper bound grows slower (growth exponents "
            "from attnio.symbolic.dominance). Hatched: outside d ≤ M ≤ n·d. Dashed: the "
            "derived crossover M = d².", phase_figure),
        "io_vs_M.png": (
            f"Backward-pass I/O counted by the two-level memory simulator at n = {n:,}, d = {d} "
            "(solid), catalogue bounds with constant 1 (dashed), M = d² (grey) and the "
            "measured crossover of FlashAttention and Algorithm 6 (dotted).", io_figure),
        "flops_vs_M.png": (
            f"FLOPs of Algorithm 6 and FlashAttention backward at n = {n:,}, d = {d}, counted "
            "by the simulator; right, the ratio to FlashAttention.", flop_figure),
        "sandwich.png": (
            "On tiny DAGs, per M: explicit lower bound ≤ Hong–Kung partition bound ≤ exact "
            "optimum ≤ replayed algorithm schedules, with the catalogue's trivial bound (inputs "
            "read once, outputs written once). An optimum the search could not settle within "
            "its budget is left out and named.", sandwich_figure),
        "optimal_schedule.png": (
            "An optimal red-blue pebbling of the smallest DAG, move by move (red = fast memory, "
            "blue = slow memory); below, red pebbles in use against M and the I/O so far.",
            schedule_figure),
    }
    bound_title = f"Bound table at n = {n:,}, d = {d}"
    hardware_title = f"Hardware regimes at d = {d} (bf16)"
    verify_title = "Verify table"
    status.total = len(FIGURE_FILES) + 4  # + bounds, hardware, verify, writing
    try:
        section(verify_title, verify)
        section(bound_title, bounds)
        section(hardware_title, lambda: _hardware_section(n, d))
        for filename, title in FIGURE_FILES:
            caption, draw = captions[filename]
            section(title, figure(filename, caption, draw))

        result.seconds = time.perf_counter() - start
        versions = provenance()
        doc = ReportDocument(
            title="attnio report",
            head=_head_blocks(result, facts, n=n, d=d, Ms=Ms, quick=quick, html=html,
                              path=path, versions=versions, version=__version__),
            sections=[sections[title] for title in
                      [t for _, t in FIGURE_FILES] + [bound_title, hardware_title, verify_title]],
            versions=versions,
        )
        with status.stage(f"writing {result.index.name}"):
            if html:
                from attnio.report_html import render_html

                folder.write("index.html", render_html(doc).encode("utf-8"))
            else:
                for section_ in doc.sections:
                    for block in section_.blocks:
                        if isinstance(block, FigureBlock):
                            result.figures.append(folder.write(block.filename, block.png))
                folder.write("index.md", render_markdown(doc).encode("utf-8"))
    finally:
        if own_status:
            status.close()
    result.files = [*folder.written, folder.marker]
    return result


def _head_blocks(result: ReportResult, facts: dict[str, Any], *, n: int, d: int,
                 Ms: Sequence[int], quick: bool, html: bool, path: Path,
                 versions: dict[str, Any], version: str) -> list[Block]:
    """The opening: provenance, status and the summary (claims, regime, crossovers)."""
    from attnio.symbolic.advisor import classify_regime

    status = ("complete" if result.ok else
              f"INCOMPLETE — {len(result.failures)} section(s) failed, "
              f"{result.claims_run - result.claims_proved} claim(s) not Proved")
    library = ", ".join(f"{name} {v or 'not installed'}"
                        for name, v in versions["versions"].items())
    command = (f"attnio report {path} --n {n} --d {d} --M {','.join(map(str, Ms))}"
               + (" --quick" if quick else "") + (" --html" if html else ""))
    blocks: list[Block] = [
        Paragraph([(f"attnio {version} ({library}); generated "
                    f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC in "
                    f"{result.seconds:.1f} s by ", ""), (command, "code"), (".", "")]),
        Paragraph([("Status: ", ""), (status, "strong"),
                   (f". Claims: {result.claims_proved} of {result.claims_run} Proved.", "")]),
    ]
    if result.failures:
        blocks += [Paragraph(_plain("Failed sections:")),
                   Bullets([_plain(" ".join(f.split())) for f in result.failures])]
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
    for M in Ms:
        regime, d2 = classify_regime(M, d)
        relation = {"large-cache": ">", "small-cache": "<", "crossover": "="}[regime]
        picks = "Algorithm 6 (small-cache)" if regime == "small-cache" else "FlashAttention"
        regimes.append(f"M = {M:,}: {regime} (M {relation} d² = {d2:,}), theory picks {picks}")
    summary.append([(f"Regime at n = {n:,}, d = {d}", "strong"), (": " + "; ".join(regimes), "")])
    crossover_spans: list[Span] = [("Key crossovers", "strong"), (": ", "")]
    derived = facts.get("crossovers") or {}
    parts = [f"{bid} at M = {sol}" for bid, sol in derived.items()
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
    blocks.append(Paragraph(_plain(
        "Model: two-level memory (fast memory of M words, unbounded slow memory), one I/O = "
        "one word moved; red-blue pebble game (Hong & Kung 1981); standard matrix "
        "multiplication. Paper: Li et al., arXiv 2410.09397; parents: Saha & Ye arXiv "
        "2402.07443, Dao et al. arXiv 2205.14135. Figures first; the bound table, the "
        "hardware regimes and the verify table follow.")))
    return blocks


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _positive_int_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"M={text[:60]!r} must be comma-separated positive integers")
    if not values:
        raise argparse.ArgumentTypeError(f"M={text[:60]!r} names no cache size")
    return values


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``attnio report OUTDIR [--n N] [--d D] [--M M1,M2,...] [--quick] [--html] [--force]``."""
    parser = subparsers.add_parser(
        "report",
        help="write a report (Markdown + PNGs, or one HTML file) with the figures, the bound "
             "table and the verify table",
        description="Write OUTDIR/index.md and its PNGs (or with --html one self-contained "
                    "OUTDIR/index.html): a summary, the figures (phase diagram, I/O and FLOPs "
                    "against M, the pebbling sandwich, an optimal schedule), the bound table at "
                    "(n, d, M) and the verify table. OUTDIR must be new, empty, or written by "
                    "attnio report before (marker .attnio-report.json); attnio replaces only "
                    "files it wrote, never writes through a symlink.",
    )
    parser.add_argument("outdir", metavar="OUTDIR",
                        help="folder to write (created if missing; must be empty or attnio's)")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help=f"sequence length (default {DEFAULT_N})")
    parser.add_argument("--d", type=int, default=DEFAULT_D, help=f"head dimension (default {DEFAULT_D})")
    parser.add_argument("--M", type=_positive_int_list, default=None,
                        help="cache sizes of the bound table, e.g. 1024,4096 (default d²/4, d², 4d²)")
    parser.add_argument("--quick", action="store_true",
                        help="run only the quick claim families and the smallest pebbling instances")
    parser.add_argument("--html", action="store_true",
                        help="write one self-contained OUTDIR/index.html (figures embedded) "
                             "instead of index.md and PNGs")
    parser.add_argument("--force", action="store_true",
                        help="replace same-named files in OUTDIR even if attnio did not write "
                             "them (symlinks are still refused)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the report; exit 0 if complete and all claims Proved, 1 otherwise."""
    from attnio.progress import StageStatus

    with StageStatus("attnio report") as status:
        result = write_report(args.outdir, n=args.n, d=args.d, Ms=args.M, quick=args.quick,
                              html=args.html, force=args.force, status=status)
    what = ("self-contained, " if args.html else "") + (
        f"{len(result.figure_names)} figures" + (" embedded" if args.html else ""))
    print(f"wrote {result.index} ({what}) in {result.seconds:.1f} s; "
          f"{result.claims_proved}/{result.claims_run} claims Proved"
          + ("" if not result.failures else f"; {len(result.failures)} section(s) failed"))
    return 0 if result.ok else 1
