"""One instance grammar: the flags every attention command takes, parsed once into an Instance.

``attnio bounds``, ``simulate``, ``gap`` and ``advise`` register the same flags with the same
meaning and defaults (issue 34, item 1)::

    --n N (--seq)   --d D (--head-dim)   --pass forward|backward (default backward)
    --M M | --M-geom LO:HI:COUNT | --device NAME [--scope sm|block] | --hierarchy FILE.json
    --dtype fp64|fp32|tf32|fp16|bf16|fp8       (bytes per word: every figure also in bytes)
    --batch B --heads H --kv-heads G           (H a multiple of G)
    --mask full|causal|window:W|block:B:PATTERN.json [--sparse-operands Q,K]

:func:`instance_from_args` builds one frozen :class:`attnio.algorithms.instance.Instance`
from them (:meth:`~attnio.algorithms.instance.Instance.build` validates every value: one line,
exit 2). A flag that cannot apply to a command is refused with the reason
(:func:`refuse`), never silently ignored: e.g. ``gap --tune --mask causal`` ("--tune searches
block sizes of unmasked single-head runs only").

With ``--device`` the cache sizes are the boundaries of the device's one-SM memory hierarchy
(:func:`attnio.algorithms.hierarchy.device_hierarchy`): registers + shared memory of one SM
(``--scope sm``, the default) or the shared memory of one thread block (``--scope block``),
then L2 (where published), then DRAM. ``--dtype`` defaults to bf16 there.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_instance_arguments(parser, command="demo", sweep=True)
>>> inst = instance_from_args(parser.parse_args(
...     ["--n", "64", "--d", "8", "--M", "64,128", "--mask", "causal", "--heads", "4",
...      "--kv-heads", "2", "--dtype", "fp16"]))
>>> inst.Ms, inst.word_bytes, inst.mask.label, (inst.heads, inst.kv_heads)
((64, 128), 2, 'causal', (4, 2))
"""

from __future__ import annotations

import argparse
from typing import Any

from attnio.algorithms.advisor import DEVICES, DTYPE_BYTES
from attnio.algorithms.heads import add_heads_arguments, heads_from_args
from attnio.algorithms.hierarchy import Hierarchy
from attnio.algorithms.instance import SCOPES, Instance
from attnio.algorithms.masks import add_mask_argument, mask_from_args
from attnio.exceptions import InvalidInputError
from attnio.flags import add_cache_size_arguments
from attnio.input_files import read_json_file
from attnio.validation import describe, hold_warning, size_action

__all__ = ["add_instance_arguments", "instance_from_args", "refuse", "given", "DEVICE_NAMES",
           "default_sweep", "BUILTIN_EXAMPLES"]

#: Example ``--builtin`` specs of ``pebble`` and ``lower-bound``, offered by shell completion.
BUILTIN_EXAMPLES = ("matmul:2x2x2", "matmul:3x2x2", "matmul:2x2x2:chain", "matmul:2x2x2:fma",
                    "attention-forward:n=2,d=1", "attention-forward:n=2,d=2",
                    "attention-backward:n=2,d=1", "attention-backward:n=2,d=1,gradient=dX")

#: Every device name ``--device`` accepts (ids and aliases; shell completion lists them).
DEVICE_NAMES: tuple[str, ...] = tuple(sorted(DEVICES))


def add_instance_arguments(parser: argparse.ArgumentParser, *, command: str, sweep: bool,
                           required_size: bool = True) -> None:
    """Register the instance flags (module docstring) on ``parser``. ``sweep``: ``--M`` takes a
    list or range and ``--M-geom`` exists (``simulate``, ``gap``, ``advise``); otherwise one
    size (``bounds``)."""
    parser.add_argument("--n", "--seq", dest="n", required=True, action=size_action("n"),
                        help="sequence length n (positive integer)")
    parser.add_argument("--d", "--head-dim", dest="d", required=True, action=size_action("d"),
                        help="head dimension d (positive integer)")
    parser.add_argument("--pass", dest="pass_", choices=("forward", "backward"),
                        default="backward", help="forward or backward pass (default backward)")
    add_cache_size_arguments(parser, command=command, sweep=sweep,
                             help="fast-memory size(s) M in words")
    device = parser.add_argument("--device", metavar="NAME",
                        help="instead of --M: the cache sizes of NAME's memory hierarchy, one "
                             f"per boundary (one of {', '.join(DEVICE_NAMES)})")
    device.complete_values = DEVICE_NAMES  # type: ignore[attr-defined]  # attnio.completion
    parser.add_argument("--scope", choices=SCOPES, default=None,
                        help="with --device: the fastest level is one SM's registers + shared "
                             "memory (sm, the default) or one thread block's shared memory "
                             "(block)")
    parser.add_argument("--hierarchy", metavar="FILE.json",
                        help="instead of --M/--device: a memory hierarchy file (levels fastest "
                             "first, notes/hardware.md); one cache size per boundary")
    dtype = parser.add_argument("--dtype", metavar="DTYPE", default=None,
                        help=f"one of {', '.join(DTYPE_BYTES)}: "
                             "bytes per word; every I/O figure is also shown in bytes "
                             "(with --device: default bf16)")
    dtype.complete_values = tuple(DTYPE_BYTES)  # type: ignore[attr-defined]
    add_heads_arguments(parser)
    add_mask_argument(parser)
    parser.set_defaults(instance_command=command, instance_required_size=required_size)


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the user gave the instance flag ``dest`` (a non-default value)."""
    defaults = {"batch": "1", "heads": "1", "kv_heads": None, "mask": None,
                "sparse_operands": "", "dtype": None, "device": None, "scope": None,
                "hierarchy": None, "M": None}
    return getattr(args, dest, defaults.get(dest)) != defaults.get(dest)


def refuse(args: argparse.Namespace, dests: tuple[str, ...], why: str) -> None:
    """Exit 2 (InvalidInputError) when any of the flags ``dests`` was given: they cannot
    apply, and ``why`` says so. Nothing is ever silently ignored."""
    for dest in dests:
        if given(args, dest):
            flag = "--" + dest.replace("_", "-")
            raise InvalidInputError(f"{flag} cannot apply here: {why}")


def default_sweep(n: int, d: int) -> list[int]:
    """The sizes a sweep takes when no --M/--device/--hierarchy is given (``attnio gap``):
    the powers of two and their midpoints 3·2^k in d ≤ M ≤ n·d (FlashAttention's range), and
    both ends.

    >>> default_sweep(64, 8)
    [8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512]
    """
    top = n * d
    values = {d, top}
    k = 0
    while 2 ** k <= top:
        values |= {2 ** k, 3 * 2 ** k}
        k += 1
    return sorted(M for M in values if d <= M <= top)


def instance_from_args(args: argparse.Namespace, *, default_sizes: bool = False) -> Instance:
    """The one :class:`~attnio.algorithms.instance.Instance` of the parsed flags, validated.

    Raises
    ------
    InvalidInputError
        Any bad value, a missing or doubled source of cache sizes, a flag combination that
        cannot apply (``--scope`` without ``--device``, ``--dtype`` with ``--hierarchy``, …).
    """
    n, d = args.n, args.d
    if n is None or d is None:  # the parser requires them; a library caller may not
        raise InvalidInputError("give --n and --d")
    hierarchy = None
    if args.hierarchy is not None:
        hierarchy = Hierarchy.from_json(read_json_file(args.hierarchy, what="hierarchy file"),
                                        label=f"hierarchy file {describe(args.hierarchy, 60)}")
    M: Any = args.M
    if M is not None and not isinstance(M, list):
        M = [M]
    if (default_sizes and M is None and args.device is None and args.hierarchy is None):
        M = default_sweep(int(n), int(d))
    batch, heads, kv_heads = heads_from_args(args)
    instance = Instance.build(n, d, pass_=args.pass_, M=M, device=args.device,
                              dtype=args.dtype, scope=args.scope, hierarchy=hierarchy,
                              batch=batch, heads=heads, kv_heads=kv_heads,
                              mask=mask_from_args(args))
    if instance.mask is not None and instance.mask.z_qk(instance.n) == 0:
        # legal (every bound of it is 0), but rarely what was meant: say so once
        hold_warning(f"attnio {getattr(args, 'instance_command', 'attnio')}: warning: the mask "
                     f"{instance.mask.label} keeps no entry of the {instance.n}x{instance.n} "
                     "scores (Z_QK = 0): every row of softmax is empty and every bound of "
                     "this mask is 0")
    return instance
