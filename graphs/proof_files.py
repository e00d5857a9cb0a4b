r"""Proof files of an optimum: the schedule (upper end) and a lower-end proof an outsider checks.

``attnio pebble --certify DIR`` calls :func:`certify_optimum` per instance. It writes
``DIR/STEM.json``, a certificate of :mod:`attnio.check` (format
:data:`attnio.check.CERTIFICATE_FORMAT`) that ``python -m attnio.check DIR/STEM.json`` checks
without attnio's search:

* kind ``optimum`` when the lower end has a proof: the schedule (replayed by the checker's
  own game) and either
  - ``compulsory`` — the optimum equals the compulsory I/O (inputs read once, outputs
    written once), checked by counting; or
  - ``sat-refutation`` — ``STEM.cnf`` (the canonical CNF "a schedule of cost <= Q - 1
    exists", :func:`attnio.check.encode`) and ``STEM.drat`` (a DRAT proof of its
    unsatisfiability from :func:`attnio.graphs.exact_sat.refute`): the checker regenerates
    the CNF from the DAG, M and Q and has ``dratify`` check the proof;
* kind ``schedule`` when no such proof was found within the time given (the lower end then
  rests on attnio's exhaustive search, and :attr:`ProofRecord.lower_proof` says
  ``"search"``), or the instance is not decided.

Files are written through :mod:`attnio.safe_io` (atomic; an existing file only with
``overwrite``). The record says which kind of proof each optimum has (the ``proof`` object
of ``attnio pebble --json``).

Examples
--------
>>> import tempfile, networkx as nx
>>> from attnio.graphs.pebble_result import PebbleResult
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> moves = [("read", "a"), ("read", "b"), ("compute", "c"), ("write", "c")]
>>> folder = tempfile.mkdtemp()
>>> rec = certify_optimum(G, 3, PebbleResult.optimal(3, moves), folder, "binary_M3")
>>> rec.lower_proof, [p.name for p in rec.files]
('compulsory', ['binary_M3.json'])
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import networkx as nx

from attnio.check import CERTIFICATE_FORMAT, compulsory_io, dimacs_text, encode, parse_dag
from attnio.graphs.exact_sat import Refutation, dag_certificate_data, refute, sat_available
from attnio.graphs.game import replay
from attnio.graphs.pebble_result import PebbleResult
from attnio.results import Status
from attnio.safe_io import write_text

__all__ = ["ProofRecord", "certify_optimum", "LOWER_PROOF_KINDS", "LOWER_PROOF_WORDS",
           "certificate_stem"]

#: What the lower end of an instance rests on: a checkable proof (the first two) or not.
LOWER_PROOF_KINDS = ("compulsory", "sat-refutation", "search", "none")
#: How a text line names each kind (``attnio pebble --certify``).
LOWER_PROOF_WORDS = {"compulsory": "proved by counting (compulsory I/O; python -m attnio.check)",
                     "sat-refutation": "proved by a SAT refutation with a DRAT proof (python "
                                       "-m attnio.check)",
                     "search": "shown by attnio's exhaustive search only (no proof file)",
                     "none": "not proved (the instance is not decided)"}


@dataclass(frozen=True)
class ProofRecord:
    """What :func:`certify_optimum` wrote: the lower-end kind (:data:`LOWER_PROOF_KINDS`:
    ``search`` = an optimum whose lower end only attnio's search shows, ``none`` = not
    optimal), the files, and why a SAT proof is missing (``detail``)."""

    lower_proof: str
    files: list[Path] = field(default_factory=list)
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"lower_proof": self.lower_proof, "files": [str(p) for p in self.files],
                "detail": self.detail or None}


def certificate_stem(label: str, M: int) -> str:
    """A file stem for an instance: the label's file name without a DAG file's suffix
    (``.json``, ``.dot``, ``.gv``, ``.hdag``), its letters, digits and ``._-`` (others become
    ``_``), then ``_M{M}``.

    >>> certificate_stem("matmul:2x2x2", 4), certificate_stem("peers/spmv_N7.json", 8)
    ('matmul_2x2x2_M4', 'spmv_N7_M8')
    """
    path = Path(label)
    base = path.stem if path.suffix.lower() in (".json", ".dot", ".gv", ".hdag") else path.name
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in base)
    return f"{name.strip('._') or 'dag'}_M{M}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _refutes(refutation: Refutation, dag_data: dict[str, Any], M: int, bound: int,
             recompute: bool) -> bool:
    """Is ``refutation``'s CNF the canonical encoding of "cost <= bound" for this DAG, M and
    variant (what the checker will regenerate)?"""
    if refutation.bound != bound:
        return False
    enc, clauses = encode(parse_dag(dag_data), M, bound, refutation.horizon, recompute,
                          refutation.symmetries)
    return dimacs_text(enc.num_vars, clauses) == refutation.cnf


def certify_optimum(G: nx.DiGraph, M: int, result: PebbleResult, folder: str | Path,
                    stem: str, *, recompute: bool = True,
                    outputs: Iterable[str] | None = None, time_limit: float | None = 60,
                    overwrite: bool = False, refutation: Refutation | None = None
                    ) -> ProofRecord:
    """Write the proof files of one instance (module docstring) and return what was written.

    ``time_limit`` bounds the SAT refutation. ``refutation``: one already made (by
    :func:`~attnio.graphs.exact_sat.refute`, of "cost <= io - 1" for this DAG and M), written
    instead of solving again; any other is ignored. Either way the checker re-derives its CNF.
    An infeasible instance writes nothing.
    """
    folder = Path(folder)
    if result.verdict is Status.INFEASIBLE or not result.schedule or result.upper is None:
        return ProofRecord("none", [], "no schedule to certify")
    dag_data = dag_certificate_data(G, outputs)
    moves = [list(m) for m in result.schedule]
    io = replay(G, result.schedule, M, recompute=recompute, outputs=outputs).io
    upper = {"kind": "schedule", "io": io, "moves": moves}
    base = {"format": CERTIFICATE_FORMAT, "dag": dag_data, "M": M, "recompute": recompute}
    files: list[Path] = []
    lower: dict[str, Any] | None = None
    kind, detail = "none", "the instance is not decided"
    if result.verdict is Status.OPTIMAL:
        reads, writes = compulsory_io(parse_dag(dag_data))
        if io == reads + writes:
            lower, kind, detail = {"kind": "compulsory", "lower": io}, "compulsory", ""
        elif not sat_available():
            kind, detail = "search", "python-sat is not installed (attnio[sat])"
        else:
            if refutation is not None and not _refutes(refutation, dag_data, M, io - 1,
                                                       recompute):
                refutation = None       # made for another DAG, M, bound or variant
            if refutation is None:
                refutation = refute(G, M, io - 1, recompute=recompute, outputs=outputs,
                                    time_limit=time_limit)
            if refutation is None:
                kind, detail = "search", "the SAT refutation did not finish in its time limit"
            else:
                cnf_path = write_text(folder / f"{stem}.cnf", refutation.cnf,
                                      overwrite=overwrite)
                drat_path = write_text(folder / f"{stem}.drat", refutation.proof,
                                       overwrite=overwrite)
                files += [cnf_path, drat_path]
                lower = {"kind": "sat-refutation", "lower": io, "horizon": refutation.horizon,
                         "symmetries": refutation.symmetries,
                         "cnf": cnf_path.name, "cnf_sha256": _sha(refutation.cnf),
                         "proof": drat_path.name, "proof_sha256": _sha(refutation.proof)}
                kind, detail = "sat-refutation", ""
    if lower is not None:
        cert = {**base, "kind": "optimum", "io": io, "upper": upper, "lower_proof": lower}
    else:
        cert = {**base, **upper}
    files.insert(0, write_text(folder / f"{stem}.json", json.dumps(cert, indent=1) + "\n",
                               overwrite=overwrite))
    return ProofRecord(kind, files, detail)
