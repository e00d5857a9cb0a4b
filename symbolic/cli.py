r"""``attnio bounds``: every catalogue bound at one instance, the regime and the crossover.

Usage::

    attnio bounds --n N --d D --M M [--json] [--latex]
    attnio bounds --n N --d D --device NAME [--dtype bf16] [--scope sm|block] [--json] [--latex]

* ``--M`` is the cache size in words; ``--device``/``--dtype`` derive it with
  :func:`attnio.symbolic.advisor.advise` instead (give exactly one of the two).
* The sparse and matmul bounds are evaluated at the dense instance Z_in = n d, Z_QK = n^2,
  m = p = n, k = d (:func:`attnio.symbolic.evaluate.default_instance`); the output says so.
* ``--mask full|causal|window:W|block:B:PATTERN.json`` (and ``--sparse-operands Q,K``) adds
  ``sparse_mask``: Z_in, Z_QK, ``sparse.lower`` and Z_in**2/Z_QK for that mask next to the
  dense ones (:func:`attnio.algorithms.masks.sparse_bound_values`); the catalogue list stays
  at the dense instance.
* The crossovers are derived by :func:`attnio.symbolic.crossovers.crossover` at run time.
* Values are exact (``value``, a sympy string) with a float next to them (``value_float``).
* A bound whose admissible range excludes the instance is still evaluated and marked
  ``"in_range": false`` (``*`` in the table): e.g. the small-cache bounds in the large-cache
  regime. That is information, not an error.
* Bad input — a non-integer or non-positive n, d or M, an unknown device or dtype, both or
  neither of ``--M`` / ``--device`` — raises :class:`~attnio.exceptions.InvalidInputError`:
  exit code 2 and one line naming the value and the rule.

JSON keys: ``instance``, ``instance_note``, ``device`` (or null), ``regime``, ``crossover``
(``{"backward": "d**2", "forward": "d**2", "sparse": "Z_in**2/Z_QK"}``),
``crossover_conditions``, ``crossover_at_instance``, ``recommended_algorithm``,
``io_ratio_flash_over_alg6`` and ``bounds`` (a list of ``{id, pass, kind, expression, latex,
value, value_float, in_range, asymptotic, reconstructed, source}``).

Examples
--------
>>> import json
>>> from attnio.cli import main
>>> main(["bounds", "--n", "1024", "--d", "64", "--M", "1024", "--json"])  # doctest: +ELLIPSIS
{...}
0
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.symbolic.advisor import (
    DEVICES, DTYPE_BYTES, advise, classify_regime, predicted_io_ratio,
)
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.evaluate import catalogue_values, default_instance

__all__ = ["register", "run", "bounds_report"]

_INT = re.compile(r"[+]?\d+")
DENSE_NOTE = ("sparse and matmul bounds are evaluated at the dense instance "
              "Z_in = n*d, Z_QK = n**2, m = p = n, k = d")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``bounds`` subcommand."""
    parser = subparsers.add_parser(
        "bounds", help="every I/O bound at (n, d, M), the regime, crossover and advice",
        description="Evaluate the bound catalogue at one instance. Give --M (words) or "
                    "--device/--dtype. Sparse/matmul bounds use Z_in = n*d, Z_QK = n**2, "
                    "m = p = n, k = d.")
    parser.add_argument("--n", required=True, help="sequence length (positive integer)")
    parser.add_argument("--d", required=True, help="head dimension (positive integer)")
    parser.add_argument("--M", dest="M", help="cache size in words (positive integer)")
    parser.add_argument("--device", help=f"instead of --M: one of {', '.join(DEVICES)}")
    parser.add_argument("--dtype", help=f"with --device: one of {', '.join(DTYPE_BYTES)} "
                                        "(default bf16)")
    parser.add_argument("--scope", choices=("sm", "block"), default="sm",
                        help="with --device: fast memory per SM/core or per thread block")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--latex", action="store_true", help="show LaTeX of each bound")
    from attnio.algorithms.masks import add_mask_argument  # lazy: symbolic does not need numpy

    add_mask_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def _positive_int(name: str, text: str | None) -> int:
    if text is None or not _INT.fullmatch(text.strip()) or int(text) <= 0:
        raise InvalidInputError(f"{name}={text} must be a positive integer")
    return int(text)


def bounds_report(n: int, d: int, M: int | None = None, device: str | None = None,
                  dtype: str | None = None, scope: str = "sm", mask: Any = None) -> dict[str, Any]:
    """Everything ``attnio bounds`` prints, as a JSON-ready dict.

    Raises
    ------
    InvalidInputError
        Bad sizes, unknown device/dtype, both or neither of ``M`` and ``device``.

    Examples
    --------
    >>> r = bounds_report(1024, 128, 8192)
    >>> r["regime"], r["recommended_algorithm"], r["crossover"]["sparse"]
    ('small-cache', 'small-cache', 'Z_in**2/Z_QK')
    """
    if (M is None) == (device is None):
        raise InvalidInputError("give exactly one of --M (cache words) and --device")
    if dtype is not None and device is None:
        raise InvalidInputError(f"dtype={dtype} needs --device (with --M the size is in words)")
    device_info = None
    if device is not None:
        advice = advise(device, d, dtype or "bf16", n=n, scope=scope)  # type: ignore[arg-type]
        M = advice.M
        device_info = {"name": advice.device.name, "description": advice.device.description,
                       "dtype": advice.dtype, "scope": scope, "fast_memory":
                       advice.device.fast_memory, "source": advice.device.source}
    assert M is not None  # invariant: set by --M or by the advisor
    instance = default_instance(n, d, M)
    regime, cross_value = classify_regime(M, d)
    derived = {"backward": crossover("bwd.tight"), "forward": crossover("fwd.tight"),
               "sparse": crossover("sparse.lower")}
    at_instance = {
        key: str(sp.simplify(c.solution.subs({s: instance[s.name]
                                              for s in c.solution.free_symbols})))
        for key, c in derived.items()
    }
    ratio = predicted_io_ratio(M, d, n)
    bounds = []
    for bid, ev in catalogue_values(n, d, M).items():
        b = ev.bound
        bounds.append({
            "id": bid, "pass": b.pass_, "kind": b.kind, "expression": str(b.expr),
            "latex": b.latex(), "value": str(ev.value), "value_float": ev.approx,
            "in_range": ev.in_range, "asymptotic": b.asymptotic,
            "reconstructed": b.reconstructed, "source": b.source,
        })
    return {
        "instance": instance,
        "instance_note": DENSE_NOTE,
        "device": device_info,
        "regime": regime,
        "crossover": {key: str(c.solution) for key, c in derived.items()},
        "crossover_conditions": {key: [str(x) for x in c.conditions]
                                 for key, c in derived.items()},
        "crossover_at_instance": at_instance,
        "d_squared": cross_value,
        "recommended_algorithm": "small-cache" if regime == "small-cache" else "flash-attention",
        "io_ratio_flash_over_alg6": {"value": str(ratio), "value_float": float(ratio)},
        "simulated_io_ratio_flash_over_alg6": _simulated_ratio(n, d, M),
        "bounds": bounds,
        **({} if mask is None else {"sparse_mask": _sparse_mask(mask, n, d, M)}),
    }


def _sparse_mask(mask: Any, n: int, d: int, M: int) -> dict[str, Any]:
    """Z_in, Z_QK, sparse.lower and Z_in**2/Z_QK for ``mask`` and for the dense mask ``full``
    (:func:`attnio.algorithms.masks.sparse_bound_values`, the one definition)."""
    from attnio.algorithms.masks import Mask, sparse_bound_values

    return {"masked": sparse_bound_values(mask, n, d, M),
            "dense": sparse_bound_values(Mask.full(), n, d, M)}


def _simulated_ratio(n: int, d: int, M: int) -> dict[str, Any] | None:
    """FlashAttention-1 ÷ Algorithm 6 backward I/O as *counted* by the two-level memory
    simulator (exact closed forms of the real algorithms, constants included), or None when
    one of them has no tile that fits M. The catalogue ratio above uses constant 1 for both
    bounds; this one is what the algorithms actually move."""
    from attnio.algorithms.simulation import count  # lazy: symbolic does not need numpy

    try:
        flash = count("flash1", "backward", n, d, M).io
        small = count("small-cache", "backward", n, d, M).io
    except InvalidInputError:
        return None
    return {"flash1_io": flash, "small_cache_io": small, "value_float": flash / small}


def _table(report: dict[str, Any], latex: bool) -> str:
    inst = report["instance"]
    rel = {"large-cache": ">", "small-cache": "<", "crossover": "="}[report["regime"]]
    lines = [f"attnio bounds: n={inst['n']} d={inst['d']} M={inst['M']} words"]
    if report["device"]:
        dev = report["device"]
        lines[0] += f" ({dev['name']}, {dev['dtype']}, {dev['fast_memory']}, scope {dev['scope']})"
    c = report["crossover"]
    lines += [
        f"regime: {report['regime']} (M {rel} d**2 = {report['d_squared']}); "
        f"recommended algorithm: {report['recommended_algorithm']}",
        f"crossover (derived): backward M = {c['backward']}, forward M = {c['forward']}, "
        f"sparse M = {c['sparse']}",
        f"FlashAttention / Algorithm 6 predicted I/O: "
        f"{report['io_ratio_flash_over_alg6']['value_float']:.4g} (catalogue constants); "
        + (f"{report['simulated_io_ratio_flash_over_alg6']['value_float']:.4g} counted by "
           "`attnio simulate` (flash1 / small-cache)"
           if report["simulated_io_ratio_flash_over_alg6"] else
           "FlashAttention-1 has no tile that fits this M"),
        f"note: {report['instance_note']}; * = instance outside the bound's admissible range",
        "",
    ]
    for key in ("masked", "dense") if report.get("sparse_mask") else ():
        v = report["sparse_mask"][key]
        lines.insert(-1, f"sparse ({v['mask']}): Z_in = {v['Z_in']}, Z_QK = {v['Z_QK']}, "
                         f"sparse.lower = {v['sparse_lower_bound']['value_float']:.6g}, "
                         "crossover Z_in**2/Z_QK = " + (
                             "none (nothing kept)" if v["sparse_crossover"] is None
                             else f"{v['sparse_crossover']['value_float']:.6g}"))
    width = max(len(b["id"]) for b in report["bounds"])
    lines.append(f"{'id':<{width}}  {'kind':<5}  {'value':>14}  expression")
    for b in report["bounds"]:
        mark = " " if b["in_range"] else "*"
        shown = b["latex"] if latex else b["expression"]
        value = f"{b['value_float']:>13.6g}{mark}"
        lines.append(f"{b['id']:<{width}}  {b['kind']:<5}  {value}  {shown}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handle ``attnio bounds``; exit 0 (bad input raises InvalidInputError → exit 2)."""
    n = _positive_int("n", args.n)
    d = _positive_int("d", args.d)
    M = None if args.M is None else _positive_int("M", args.M)
    from attnio.algorithms.masks import mask_from_args

    mask = mask_from_args(args)
    if mask is not None:
        mask.check(n)
    report = bounds_report(n, d, M, device=args.device, dtype=args.dtype, scope=args.scope,
                           mask=mask)
    if not (d <= report["instance"]["M"] <= n * d):
        print(f"attnio bounds: warning: M={report['instance']['M']} is outside d <= M <= n*d "
              "(FlashAttention's range); bounds are flagged per entry", file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_table(report, args.latex))
    return 0
