"""``attnio lower-bound`` — every certified lower-bound route on one DAG, with certificates.

Usage::

    attnio lower-bound --dag FILE.json --M M [--json]        # --cache M is an alias
    attnio lower-bound --builtin matmul:2x2x2 --M 3 [--json]

Prints every route of :func:`attnio.graphs.lower_bounds.lower_bounds`: its value (an exact
int), whether its hypotheses hold (and why not), a summary of its certificate and the
independent checker's verdict; then the best route. ``--json`` prints::

    {"M": int, "bounds": [{"route", "value", "applies", "why_not", "certificate"}],
     "best": {"route": str, "value": int}, "attnio_version": ..., "versions": {...}}

Exit codes: 0 every certificate re-verified; 1 a certificate was rejected; 2 bad input.

Examples
--------
>>> import argparse, contextlib, io
>>> args = argparse.Namespace(dag=None, builtin="matmul:1x2x1", cache="3", json=False,
...                           z3_timeout_ms=20_000)
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     code = run(args)
>>> code, out.getvalue().splitlines()[-1]
(0, 'best: spill-windows = 7')
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from attnio.graphs.cli import parse_builtin
from attnio.graphs.dagio import load_dag
from attnio.graphs.game import check_cache_size
from attnio.graphs.lower_bounds import BoundRecord, best_bound, check_certificate, lower_bounds
from attnio.provenance import provenance
from attnio.validation import parse_sizes, positive_int, size_action

__all__ = ["register", "run", "summarise_certificate"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "lower-bound", help="certified lower bounds on the pebbling I/O of a DAG",
        description="Certified lower bounds on Q(G, M) (Hong-Kung red-blue pebble game, "
                    "recomputation allowed): every route with its certificate, then the best.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", metavar="FILE.json",
                        help='{"nodes": [...], "edges": [[u, v], ...], "outputs": [...]}')
    source.add_argument("--builtin", metavar="SPEC",
                        help="matmul:MxKxP[:tree|chain|fma] | attention-forward:n=N,d=D | "
                             "attention-backward:n=N,d=D[,gradient=qkv|dX]")
    parser.add_argument("--M", "--cache", dest="cache", required=True, metavar="M",
                        action=size_action("M"),
                        help="red pebbles, one positive integer (--cache is an alias)")
    parser.add_argument("--z3-timeout-ms", type=int, default=20_000, metavar="MS",
                        help="z3 timeout per call of the Hong-Kung partition (default 20000)")
    parser.add_argument("--json", action="store_true", help="JSON on stdout")
    parser.set_defaults(handler=run)
    return parser


def summarise_certificate(record: BoundRecord) -> str:
    """One line describing a record's certificate.

    >>> summarise_certificate(BoundRecord("compulsory", 3, True, None,
    ...     {"reads": 2, "writes": 1}))
    '2 needed inputs read + 1 non-input outputs written'
    """
    c = record.certificate
    if not record.applies:
        return "—"
    if record.route == "compulsory":
        return f"{c['reads']} needed inputs read + {c['writes']} non-input outputs written"
    if record.route == "hong-kung":
        return (f"P(G, {c['S']}) = {c['P']} ({c['reason']}); certificate partition with "
                f"{len(c['partition'])} parts")
    if record.route.startswith("per-part"):
        return (f"{c['counted']} counted vertices, ≤ {c['part_bound']} per part of a "
                f"{2 * c['S']}-partition")
    if record.route == "spill-windows":
        return (f"input reads {c['input_reads']} (window DP over |U| = {len(c['U'])} first "
                f"computations + {len(c['inputs_outside_U'])} inputs outside U), "
                f"{len(c['forced_sets'])} forced-spill sets = {c['forced_moves']} moves, "
                f"{c['output_writes']} output writes")
    if record.route == "saturation-windows":
        return (f"input reads + spills {c['reads_and_spills']} (DP over |U| = {len(c['U'])} "
                f"first computations and {len(c['saturating_sets'])} saturating sets) + "
                f"{len(c['inputs_outside_U'])} inputs outside U + {c['output_writes']} output "
                f"writes")
    if record.route == "sub-dag-exact":
        return (f"Q(H) = {c['Q_H']} on the ancestral closure H of {len(c['H_outputs'])} "
                f"outputs ({c['H_vertices']} vertices, re-solved by the plain baseline); "
                f"outside H: {c['window_reads'] + len(c['inputs_outside'])} input reads, "
                f"{c['forced_moves']} forced-spill moves, "
                f"{len(c['output_writes_outside'])} output writes")
    return json.dumps(c)[:120]


def run(args: argparse.Namespace) -> int:
    M = check_cache_size(parse_sizes("M", args.cache, single=True)[0])
    timeout = args.z3_timeout_ms
    positive_int("--z3-timeout-ms", timeout)
    G = load_dag(args.dag) if args.dag is not None else parse_builtin(args.builtin)
    records = lower_bounds(G, M, timeout_ms=timeout)
    verdicts = [check_certificate(G, M, r, timeout_ms=timeout) for r in records]
    best = best_bound(records)
    failed = any(not v.proved for v in verdicts)
    if args.json:
        obj: dict[str, Any] = {"M": M, "bounds": [r.as_dict() for r in records],
                               "best": {"route": best.route, "value": int(best.value)}}
        obj.update(provenance())
        print(json.dumps(obj))
        return 1 if failed else 0
    print(f"{G.number_of_nodes()} vertices, {G.number_of_edges()} edges, M = {M}")
    for rec, verdict in zip(records, verdicts):
        status = "applies" if rec.applies else f"does not apply: {rec.why_not}"
        print(f"  {rec.route:<30} {rec.value:>6}  {status}")
        if rec.applies:
            print(f"      certificate: {summarise_certificate(rec)}")
            print(f"      checker: {verdict.verdict} — {verdict.detail}")
        elif not verdict.proved:
            print(f"      checker: {verdict.verdict} — {verdict.detail}")
    print(f"best: {best.route} = {best.value}")
    return 1 if failed else 0
