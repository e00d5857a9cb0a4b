r"""Batch, heads and grouped K/V (GQA, MQA): exact counts and executed runs for many heads.

Shapes: ``batch`` B sequences, ``heads`` H query heads, ``kv_heads`` G K/V heads, H a multiple
of G; the query heads of a *group* (g = H/G of them) share one K and one V (GQA, Ainslie et
al. 2023, arXiv 2305.13245; MQA: G = 1; multi-head: G = H).

Accounting (exact ints, closed form = executed; ``tests/algorithms/test_heads.py``)
-----------------------------------------------------------------------------------------
* **Every algorithm of** :data:`~attnio.algorithms.simulation.ALGORITHMS` runs head by head:
  B·H single-head runs of :func:`~attnio.algorithms.simulation.count`, each reading its
  group's K and V as if it were its own (the ``repeat_kv`` of common implementations: the
  loop order keeps nothing across heads, so no K/V reuse is possible). With g > 1 the
  backward pass produces one dK, dV partial per query head; summing them into the group's
  gradients is a streaming reduction, charged: reads 2·g·n·d, writes 2·n·d per group
  (:func:`reduction_counts`; executed with 1-row tiles). With G = H there is no reduction:
  **H heads cost exactly H × one head** (test).
* ``flash2-gqa`` (ours): FlashAttention-2's loop orders on each group with the g heads'
  query rows stacked (a g·n × d query matrix against the group's n × d K, V — softmax is per
  row, so this is the same attention). Forward (Q outer): a K/V tile pass serves B_r query
  rows of any head of the group; backward (K/V outer): each K_j, V_j tile stays resident
  while the query rows of all g heads stream past it, and dK_j, dV_j accumulate the whole
  group's gradient on chip (no partials, no reduction). Per group, with
  :math:`n_q = gn`, :math:`T_r = \lceil n_q/B_r\rceil`, :math:`T_c = \lceil n/B_c\rceil`:

  - forward: reads :math:`n_qd + 2T_rnd`, writes :math:`n_qd + n_q`;
  - backward: reads :math:`2n_qd + 2nd + T_c(3n_qd + 2n_q)`, writes
    :math:`n_q + n_qd + T_cn_qd + 2nd`.

  Block sizes: FA-2's fitted rule (:func:`~attnio.algorithms.counts.flash_block_sizes`,
  outer dimension n_q forward, n backward). With g = 1 this *is* ``flash2`` (same function).

Lower bounds (:func:`multihead_lower_bound`): the stacked-head bound of
:mod:`attnio.proofs.stacked_heads` — compulsory I/O per query head (Q, O; backward also dO,
dQ) and per K/V head (K, V; backward also dK, dV), times B, and the segment routes with the
products of all B·H query heads counted one by one (a segment of L I/Os holds at most F(L) of
them whichever heads they belong to; claims ``heads.stacked_compulsory`` and
``heads.stacked_segment``, ``notes/gap.md`` "Many heads"). Backward at n = 4096, d = 64,
H = 32, G = 8: at least :math:`4Hnd + 4Gnd` = 41,943,040 words.

Examples
--------
>>> one = count("flash2", "backward", 64, 8, 512)
>>> count_heads("flash2", "backward", 64, 8, 512, batch=2, heads=4, kv_heads=4).io == 8 * one.io
True
>>> g = count_heads("flash2-gqa", "backward", 64, 8, 512, heads=4, kv_heads=1)
>>> r = count_heads("flash2", "backward", 64, 8, 512, heads=4, kv_heads=1)
>>> g.io < r.io
True
>>> validate_heads(1, 32, 5)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: heads=32 is not a multiple of kv_heads=5
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from attnio.algorithms import counts
from attnio.algorithms.flash import flash2_backward, flash2_forward
from attnio.algorithms.masked_counts import flash_tile_counts
from attnio.algorithms.masks import Mask, stacked_tile_classes
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_backward, attention_forward
from attnio.algorithms.registry import REGISTRY
from attnio.algorithms.simulation import (
    SimulationResult,
    count,
    simulate,
    validate_execute_budget,
)
from attnio.exceptions import CacheTooSmallError, InvalidInputError
from attnio.validation import parse_positive_int, positive_int, validate_name, validate_seed

__all__ = ["GQA_ALGORITHMS", "MAX_HEADS", "validate_heads", "count_heads", "simulate_heads",
           "reduction_counts", "count_flash2_gqa", "flash2_gqa_forward", "flash2_gqa_backward", "add_heads_arguments", "heads_from_args"]

#: Algorithms with a GQA-aware loop order (CLI names), with their descriptions: the
#: registry's ``kv_grouped`` records.
GQA_ALGORITHMS: dict[str, str] = {spec.name: spec.description for spec in REGISTRY.values()
                                  if spec.kv_grouped}

#: Most batch × heads accepted (counts are products, so this only bounds loops and messages).
MAX_HEADS = 2**20


def validate_heads(batch: Any, heads: Any, kv_heads: Any = None) -> tuple[int, int, int]:
    """Validate (batch, heads, kv_heads); ``kv_heads=None`` means ``heads`` (no grouping)."""
    batch, heads = positive_int("batch", batch), positive_int("heads", heads)
    kv = heads if kv_heads is None else positive_int("kv_heads", kv_heads)
    if heads % kv:
        raise InvalidInputError(f"heads={heads} is not a multiple of kv_heads={kv}")
    if batch * heads > MAX_HEADS:
        raise InvalidInputError(f"batch*heads={batch * heads} exceeds MAX_HEADS={MAX_HEADS}")
    return batch, heads, kv


def reduction_counts(n: int, d: int, group: int) -> counts.Counts:
    """Summing g per-head dK, dV partials into one group's gradients (g > 1; else nothing)."""
    if group == 1:
        return counts.Counts(0, 0, 0, 0)
    return counts.Counts(2 * group * n * d, 2 * n * d, 2 * (group - 1) * n * d, 2 * d)


def _gqa_blocks(pass_: str, nq: int, n: int, d: int, M: int) -> tuple[int, int]:
    return counts.flash_block_sizes(2, pass_, nq if pass_ == "forward" else n, d, M)


def count_flash2_gqa(pass_: str, n: int, d: int, M: int, group: int,
                     mask: Mask | None = None) -> counts.Counts:
    """One group of ``flash2-gqa`` (closed form of the module docstring); with ``mask`` (one
    head's, shared by the group) the non-empty tiles of the stacked grid
    (:func:`~attnio.algorithms.masks.stacked_tile_classes`) each cost FA-2's per-tile I/O."""
    nq = group * n
    br, bc = _gqa_blocks(pass_, nq, n, d, M)
    if mask is not None:
        return flash_tile_counts(2, pass_, nq, n, d, br, bc,
                                   stacked_tile_classes(mask, n, group, br, bc))
    r, c = min(br, nq), min(bc, n)
    Tr, Tc = counts.ceil_div(nq, br), counts.ceil_div(n, bc)
    if pass_ == "forward":
        peak = 2 * r * d + 2 * c * d + r * c + 4 * r
        flops = 4 * nq * n * d + 4 * nq * n + Tc * (5 * nq + nq * d) + nq * d + 2 * nq
        out = counts.Counts(nq * d + 2 * Tr * n * d, nq * d + nq, flops, peak,
                       (("B_r", br), ("B_c", bc)))
    else:
        peak = max(4 * c * d + 3 * r * d + 2 * r + 2 * r * c, 2 * r * d + r)
        flops = 10 * nq * n * d + 4 * nq * n + 2 * nq * d
        out = counts.Counts(2 * nq * d + 2 * n * d + Tc * (3 * nq * d + 2 * nq),
                       nq + nq * d + Tc * nq * d + 2 * n * d, flops, peak,
                       (("B_r", br), ("B_c", bc)))
    if out.peak_fast_words > M:  # pragma: no cover - the block rule keeps the peak within M
        raise AssertionError("flash2-gqa tiles exceed M")
    return out


def stacked_mask(mask: np.ndarray | None, group: int) -> np.ndarray | None:
    """The n_q × n mask of a group's stacked query rows: row h·n + t is head h at position t,
    which attends with the mask's row t (``None`` stays ``None``)."""
    return None if mask is None else np.tile(np.asarray(mask, dtype=bool), (group, 1))


def flash2_gqa_forward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                       mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-2 forward: ``Q`` (n_q × d, the group's heads stacked) against ``K``, ``V`` (n × d);
    ``mask`` is the n × n mask of one head (every head of the group uses it)."""
    group = mem.slow["Q"].shape[0] // mem.slow["K"].shape[0]
    flash2_forward(mem, block_rows=block_rows, block_cols=block_cols,
                   mask=stacked_mask(mask, group), tau=tau)


def flash2_gqa_backward(mem: TwoLevelMemory, *, block_rows: int, block_cols: int,
                        mask: np.ndarray | None = None, tau: float = 1.0) -> None:
    """FA-2 backward, K/V outer: each K_j, V_j stays resident while the stacked query rows of
    the whole group stream; dK_j, dV_j accumulate the group's gradient (``mask`` as in
    :func:`flash2_gqa_forward`)."""
    group = mem.slow["Q"].shape[0] // mem.slow["K"].shape[0]
    flash2_backward(mem, block_rows=block_rows, block_cols=block_cols,
                    mask=stacked_mask(mask, group), tau=tau)


def _scaled(c: counts.Counts, times: int) -> counts.Counts:
    return counts.Counts(c.reads * times, c.writes * times, c.flops * times, c.peak_fast_words,
                    c.block_sizes)


def _result(algorithm: str, pass_: str, n: int, d: int, M: int, c: counts.Counts, batch: int,
            heads: int, kv: int, **extra: Any) -> SimulationResult:
    return SimulationResult(algorithm, pass_, n, d, M, c.reads, c.writes, c.io, c.flops,
                            c.peak_fast_words, c.block_sizes, batch=batch, heads=heads,
                            kv_heads=kv, **extra)


def count_heads(algorithm: str, pass_: str, n: int, d: int, M: int, *, batch: int = 1,
                heads: int = 1, kv_heads: int | None = None,
                mask: Mask | None = None) -> SimulationResult:
    """Closed-form counts of B·H heads in G K/V groups (module docstring); exact ints.
    ``mask``: every head attends with it (its fully masked tiles skipped, per head or, for
    ``flash2-gqa``, per tile of the group's stacked grid).

    Raises
    ------
    InvalidInputError
        Bad sizes, heads not a multiple of kv_heads, unknown algorithm, M below every tile.
    """
    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    group = heads // kv
    if algorithm in GQA_ALGORITHMS:
        validate_name("pass", pass_, ("forward", "backward"))
        n, d, M = positive_int("n", n), positive_int("d", d), positive_int("M", M)
        if mask is not None:
            mask.check(n)
        total = _scaled(count_flash2_gqa(pass_, n, d, M, group, mask), batch * kv)
        return _result(algorithm, pass_, n, d, M, total, batch, heads, kv,
                       **_mask_field(mask))
    one = count(algorithm, pass_, n, d, M, mask=mask)
    c = counts.Counts(one.reads, one.writes, one.flops, one.peak_fast_words, one.block_sizes)
    per_group = _scaled(c, group)
    if pass_ == "backward":
        red = reduction_counts(n, d, group)
        per_group = counts.Counts(per_group.reads + red.reads, per_group.writes + red.writes,
                             per_group.flops + red.flops,
                             max(per_group.peak_fast_words, red.peak_fast_words) if group > 1
                             else per_group.peak_fast_words, c.block_sizes)
        if red.peak_fast_words > M:
            raise CacheTooSmallError(f"M={M} is too small for the dK/dV reduction (needs {2 * d})")
    return _result(algorithm, pass_, one.n, one.d, one.M, _scaled(per_group, batch * kv),
                   batch, heads, kv, **_mask_field(mask))


def _mask_field(mask: Mask | None) -> dict[str, str]:
    return {} if mask is None else {"mask": mask.label}


def _execute_reduction(mem: TwoLevelMemory, partials: list[np.ndarray], n: int, d: int
                       ) -> np.ndarray:
    for h, part in enumerate(partials):
        mem.add_slow(f"P{h}", part)
    mem.new_slow("sum", (n, d))
    for i in range(n):
        mem.load("acc", "P0", (slice(i, i + 1), slice(None)))
        for h in range(1, len(partials)):
            mem.load("row", f"P{h}", (slice(i, i + 1), slice(None)))
            mem.compute("acc", ("acc", "row"), lambda a, b: a + b, flops=d)
            mem.free("row")
        mem.store("acc", "sum", (slice(i, i + 1), slice(None)))
        mem.free("acc")
    return mem.slow["sum"]


def simulate_heads(algorithm: str, pass_: str, n: int, d: int, M: int, *, batch: int = 1,
                   heads: int = 1, kv_heads: int | None = None, execute: bool = False,
                   seed: int = 0, mask: Mask | None = None) -> SimulationResult:
    """:func:`count_heads`, or with ``execute`` every head (group) run under the memory model
    on seeded inputs, checked against the reference (GQA gradients summed over each group)
    and against the closed form (``closed_form_match``: executed == closed form)."""
    if not execute:
        return count_heads(algorithm, pass_, n, d, M, batch=batch, heads=heads,
                           kv_heads=kv_heads, mask=mask)
    batch, heads, kv = validate_heads(batch, heads, kv_heads)
    seed = validate_seed(seed)
    group = heads // kv
    counted = count_heads(algorithm, pass_, n, d, M, batch=batch, heads=heads, kv_heads=kv,
                          mask=mask)
    validate_execute_budget(group * n, d)
    keep = None if mask is None else mask.array(n)
    from attnio.algorithms.executors import EXECUTE_RTOL, compare_outputs

    reads = writes = flops = peak = 0
    error = 0.0
    # every sub-check's (absolute error, output scale, within tolerance): the run is within
    # tolerance when every one is (algorithms/executors.py, ExecutedError)
    checks: list[tuple[float, float, bool]] = []

    def record(e: Any) -> float:
        checks.append((e.absolute, e.scale, e.within))
        return float(e)

    rng = np.random.default_rng(seed)
    for _ in range(batch * kv):
        if algorithm in GQA_ALGORITHMS:
            br, bc = _gqa_blocks(pass_, group * n, n, d, M)
            s = d ** -0.25
            Q = s * rng.standard_normal((group * n, d))
            K, V = s * rng.standard_normal((n, d)), rng.standard_normal((n, d))
            mem = TwoLevelMemory(M)
            for name, value in (("Q", Q), ("K", K), ("V", V)):
                mem.add_slow(name, value)
            # stacked rows: row h*n + t is head h at position t (same K, V for every head)
            refs = [attention_forward(Q[h * n:(h + 1) * n], K, V, mask=keep)
                    for h in range(group)]
            if pass_ == "forward":
                flash2_gqa_forward(mem, block_rows=br, block_cols=bc, mask=keep)
                error = max(error, record(compare_outputs(
                    [(mem.slow["O"], np.vstack([r.O for r in refs]))])))
            else:
                dO = rng.standard_normal((group * n, d))
                mem.add_slow("O", np.vstack([r.O for r in refs]))
                mem.add_slow("dO", dO)
                mem.add_slow("L", np.concatenate([r.logsumexp for r in refs]))
                flash2_gqa_backward(mem, block_rows=br, block_cols=bc, mask=keep)
                grads = [attention_backward(Q[h * n:(h + 1) * n], K, V, dO[h * n:(h + 1) * n],
                                            mask=keep)
                         for h in range(group)]
                expected = (np.vstack([g[0] for g in grads]), sum(g[1] for g in grads),
                            sum(g[2] for g in grads))
                # sum() of non-empty arrays is an array (typeshed types the empty case as 0)
                error = max(error, record(compare_outputs(
                    [(mem.slow[k], e)  # type: ignore[misc]
                     for k, e in zip(("dQ", "dK", "dV"), expected)])))
            reads, writes, flops = reads + mem.reads, writes + mem.writes, flops + mem.flops
            peak = max(peak, mem.peak_words)
            continue
        partial_seed = int(rng.integers(0, 2**63))
        for _h in range(group):
            run = simulate(algorithm, pass_, n, d, M, execute=True, seed=partial_seed,
                           mask=mask)
            reads, writes, flops = reads + run.reads, writes + run.writes, flops + run.flops
            peak = max(peak, run.peak_fast_words)
            error = max(error, run.max_relative_error or 0.0)
            checks.append((run.max_absolute_error if run.max_absolute_error is not None
                           else float("nan"), run.error_scale or 0.0,
                           bool(run.within_tolerance)))
        if pass_ == "backward" and group > 1:
            # executed reduction of the g per-head dK (and dV) partials, checked numerically
            parts = [rng.standard_normal((n, d)) for _h in range(group)]
            for _ in ("dK", "dV"):
                mem = TwoLevelMemory(M)
                total = _execute_reduction(mem, parts, n, d)
                error = max(error, record(compare_outputs(
                    [(total, sum(parts))])))  # type: ignore[list-item]
                reads, writes, flops = reads + mem.reads, writes + mem.writes, flops + mem.flops
                peak = max(peak, mem.peak_words)
    executed = (reads, writes, flops, peak)
    match = executed == (counted.reads, counted.writes, counted.flops, counted.peak_fast_words)
    absolute = max(c[0] for c in checks)
    scale = max(c[1] for c in checks)
    return replace(counted, reads=reads, writes=writes, io=reads + writes, flops=flops,
                   peak_fast_words=peak, executed=True, max_relative_error=float(error),
                   closed_form_match=match, max_absolute_error=absolute, error_scale=scale,
                   atol=EXECUTE_RTOL * scale, rtol=EXECUTE_RTOL,
                   within_tolerance=all(c[2] for c in checks))


def add_heads_arguments(parser: Any) -> None:
    """``--batch B --heads H --kv-heads G`` on a command line (``attnio simulate``, ``bounds``,
    ``gap``); parse them with :func:`heads_from_args`."""
    parser.add_argument("--batch", default="1", help="batch size B (default 1)")
    parser.add_argument("--heads", default="1", help="query heads H (default 1)")
    parser.add_argument("--kv-heads", dest="kv_heads", default=None,
                        help="K/V heads G; H must be a multiple of G (default H: no grouping)")


def heads_from_args(args: Any) -> tuple[int, int, int]:
    """(batch, heads, kv_heads) from :func:`add_heads_arguments`' flags, validated."""

    kv = getattr(args, "kv_heads", None)
    return validate_heads(parse_positive_int("batch", getattr(args, "batch", "1")),
                       parse_positive_int("heads", getattr(args, "heads", "1")),
                       None if kv is None else parse_positive_int("kv_heads", kv))
