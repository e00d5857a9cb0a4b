"""flash2-lean: closed form = executed counts (==) in every mode, masked and unmasked,
outputs = reference (also at logits in the thousands), cache limit enforced by the memory
model, exact block search, never more words than FlashAttention-2 or flash2-split."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.counts import count_flash2_backward, count_flash2_forward
from attnio.algorithms.lean_flash import (
    count_lean,
    count_masked_lean,
    lean_backward,
    lean_block_sizes,
    lean_forward,
    lean_peaks,
)
from attnio.algorithms.masks import Mask
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.reference import attention_backward, attention_forward
from attnio.algorithms.simulation import simulate
from attnio.algorithms.split_backward import count_flash2_split_backward
from attnio.algorithms.tuning import tuned_count
from attnio.exceptions import CacheOverflowError, CacheTooSmallError, InvalidInputError

#: (n, d, M): n not a multiple of the blocks, d = 1, M at the least admissible (forward
#: 3d + 3, backward 6d + 2), both dS modes, M beyond nd.
SIZES = [(1, 1, 8), (5, 1, 8), (9, 4, 26), (9, 4, 80), (13, 3, 60), (16, 8, 50), (16, 8, 300),
         (23, 5, 200), (24, 2, 500), (31, 7, 170), (17, 6, 1000), (40, 4, 90)]


def _run(pass_: str, n: int, d: int, M: int, blocks: dict[str, int], seed: int = 0,
         tau: float = 1.0, mask: np.ndarray | None = None
         ) -> tuple[TwoLevelMemory, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    Q, K, V, dO = (rng.standard_normal((n, d)) for _ in range(4))
    ref = attention_forward(Q, K, V, tau=tau, mask=mask)
    x = dict(Q=Q, K=K, V=V)
    if pass_ == "backward":
        x.update(O=ref.O, dO=dO, L=ref.logsumexp)
    mem = TwoLevelMemory(M)
    for name, value in x.items():
        mem.add_slow(name, value)
    (lean_forward if pass_ == "forward" else lean_backward)(mem, **blocks, mask=mask, tau=tau)
    return mem, {**x, "dO": dO}


def _modes(pass_: str, n: int, d: int, M: int) -> list[dict[str, int]]:
    """The searched blocks and every other mode with its largest fitting blocks."""
    out = [lean_block_sizes(n, d, M, pass_)]
    flags = [{"mode": m} for m in (0, 1)] if pass_ == "forward" else \
        [{"dS": s, "mode": m} for s in (0, 1) for m in (0, 1)]
    for f in flags:
        b = dict(out[0], **f)
        keys = ["B_r"] if pass_ == "forward" else ["B_c", "B_r"]
        for k in keys:
            b[k] = max([x for x in range(1, n + 1)
                        if lean_peaks(pass_, n, d, {**b, k: x}).get(
                            {"B_r": "forward" if pass_ == "forward" else "B",
                             "B_c": "A"}[k], 0) <= M] or [0])
        if all(b[k] for k in keys) and max(lean_peaks(pass_, n, d, b).values()) <= M:
            out.append(b)
    return out


def _admissible(pass_: str, d: int, M: int) -> bool:
    return M >= (3 * d + 3 if pass_ == "forward" else 6 * d + 2)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", SIZES)
def test_executed_counts_equal_the_closed_form_in_every_mode(pass_: str, n: int, d: int,
                                                             M: int) -> None:
    if not _admissible(pass_, d, M):
        with pytest.raises(CacheTooSmallError):
            lean_block_sizes(n, d, M, pass_)
        return
    for b in _modes(pass_, n, d, M):
        mem, x = _run(pass_, n, d, M, b, seed=n + d + M, tau=2.0)
        c = count_lean(pass_, n, d, M, b)
        assert (mem.reads, mem.writes, mem.flops, mem.peak_words) == \
            (c.reads, c.writes, c.flops, c.peak_fast_words), b
        assert mem.peak_words <= M


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", [(9, 4, 80), (16, 8, 300), (23, 5, 200), (40, 4, 90)])
def test_outputs_equal_the_reference_at_large_logits(pass_: str, n: int, d: int,
                                                     M: int) -> None:
    for b in _modes(pass_, n, d, M):
        for tau in (1.0, 700.0):
            mem, x = _run(pass_, n, d, M, b, seed=5, tau=tau)
            if pass_ == "forward":
                ref = attention_forward(x["Q"], x["K"], x["V"], tau=tau)
                np.testing.assert_allclose(mem.slow["O"], ref.O, rtol=0, atol=1e-12)
                np.testing.assert_allclose(mem.slow["L"], ref.logsumexp, rtol=1e-13)
            else:
                expected = attention_backward(x["Q"], x["K"], x["V"], x["dO"], tau=tau)
                scale = max(float(np.abs(e).max()) for e in expected)
                for name, value in zip(("dQ", "dK", "dV"), expected):
                    np.testing.assert_allclose(mem.slow[name], value, rtol=0,
                                               atol=1e-11 * scale)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("M", [60, 200])
@pytest.mark.parametrize("mask", [Mask.causal(), Mask.window(3),
                                  Mask.block_sparse(4, np.eye(5, dtype=bool)),
                                  Mask.from_array(np.random.default_rng(6).random((17, 17)) < .2),
                                  Mask.from_array(np.zeros((17, 17), dtype=bool))])
def test_masked_runs_equal_the_masked_closed_form(pass_: str, M: int, mask: Mask) -> None:
    for b in _modes(pass_, 17, 4, M):
        arr = mask.array(17)
        mem, x = _run(pass_, 17, 4, M, b, seed=2, tau=500.0, mask=arr)
        from attnio.algorithms.lean_flash import _masked  # the count at given blocks

        c = _masked(pass_, 17, 4, b, mask)
        assert (mem.reads, mem.writes, mem.flops, mem.peak_words) == \
            (c.reads, c.writes, c.flops, c.peak_fast_words), b
    r = simulate("flash2-lean", pass_, 17, 4, M, execute=True, seed=2, mask=mask, tau=500.0)
    assert r.closed_form_match and r.within_tolerance
    assert count_masked_lean(pass_, 17, 4, M, Mask.full()) == count_lean(pass_, 17, 4, M)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@pytest.mark.parametrize("n,d,M", [(12, 3, 40), (20, 4, 120), (9, 9, 70), (30, 2, 300),
                                   (13, 3, 25)])
def test_the_block_search_is_optimal_by_brute_force(pass_: str, n: int, d: int, M: int) -> None:
    if not _admissible(pass_, d, M):
        return
    if pass_ == "forward":
        cands = [{"B_r": a, "mode": m} for a in range(1, n + 1) for m in (0, 1)]
    else:
        cands = [{"B_c": c, "B_r": a, "dS": s, "mode": m} for c in range(1, n + 1)
                 for a in range(1, n + 1) for s in (0, 1) for m in (0, 1)]
    best = min(count_lean(pass_, n, d, M, b).io for b in cands
               if max(lean_peaks(pass_, n, d, b).values()) <= M)
    assert count_lean(pass_, n, d, M).io == best
    assert tuned_count("flash2-lean", pass_, n, d, M).io == best


def test_never_more_words_than_flashattention_2_or_the_split_backward() -> None:
    """Wherever those fit (FlashAttention-2's backward needs 7d + 4 words, flash2-split's
    6d + 4; the lean passes 6d + 2)."""
    compared = 0
    for n, d in [(37, 4), (64, 8)]:
        for M in range(7 * d + 4, n * d + 1, 7):
            assert count_lean("forward", n, d, M).io <= count_flash2_forward(n, d, M).io
            assert count_lean("backward", n, d, M).io <= min(
                count_flash2_backward(n, d, M).io, count_flash2_split_backward(n, d, M).io)
            compared += 1
    assert compared > 80


def test_at_real_sizes_it_lowers_the_worst_points() -> None:
    """n = 4096, d = 64 (notes/algorithms_io.md): at the worst points of issue 35 the lean
    loop orders move fewer words than every schedule before them."""
    n, d = 4096, 64
    assert count_lean("forward", n, d, 4612).io == 63_967_232           # flash2: 66,064,384
    assert count_lean("backward", n, d, 11216).io == 90_972_160         # split: 93,351,936
    assert count_flash2_split_backward(n, d, 11216).io == 93_351_936


def test_the_memory_model_refuses_blocks_over_M_and_bad_input() -> None:
    b = {"B_c": 2, "B_r": 1, "dS": 0, "mode": 0}   # pass A: 4·2·4 + 8 + 2 = 42 > 40
    with pytest.raises(CacheOverflowError):
        _run("backward", 12, 4, 40, b)
    with pytest.raises(CacheOverflowError):
        count_lean("backward", 12, 4, 40, b)
    with pytest.raises(CacheOverflowError, match="mode=2"):
        count_lean("forward", 12, 4, 40, {"B_r": 1, "mode": 2})
    with pytest.raises(CacheTooSmallError, match=r"needs 15 words at d=4"):
        lean_block_sizes(9, 4, 14, "forward")
    with pytest.raises(CacheTooSmallError, match=r"backward: it needs 26 words at d=4"):
        lean_block_sizes(9, 4, 25, "backward")
    with pytest.raises(InvalidInputError, match="pass='both'"):
        count_lean("both", 9, 4, 40)


@pytest.mark.parametrize("n,d,M", [(1000, 64, 11216), (97, 5, 37), (4096, 64, 8192),
                                   (50, 7, 90), (4096, 64, 4612)])
def test_totals_quoted_in_notes_equal_the_closed_forms(n: int, d: int, M: int) -> None:
    """The (reads, writes) of notes/algorithms_io.md ("flash2-lean")."""
    T = lambda x, b: -(-x // b)  # noqa: E731
    Tr = T(n, lean_block_sizes(n, d, M, "forward")["B_r"])
    got = count_lean("forward", n, d, M)
    assert (got.reads, got.writes) == (n * d + 2 * Tr * n * d, n * d + n)
    b = lean_block_sizes(n, d, M)
    Tc, Tr = T(n, b["B_c"]), T(n, b["B_r"])
    got = count_lean("backward", n, d, M)
    expected = ((5 * n * d + n + 2 * Tr * n * d + Tc * (2 * n * d + 2 * n), n + 3 * n * d)
                if b["dS"] == 0 else
                (4 * n * d + Tc * (2 * n * d + 2 * n) + n * n + Tr * n * d, n + 3 * n * d + n * n))
    assert (got.reads, got.writes) == expected
