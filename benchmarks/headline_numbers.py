"""Every number README.md states (timings aside), computed with the library, beside the exact
text the README carries for it.

``headlines()`` computes each figure and formats it the way the README writes it;
``claim_headlines()`` ties each threshold of the findings (F1, F2, F4, F6, F7) to the
``attnio verify`` claim whose statement carries it. ``tests/test_headline_numbers.py`` runs
both and fails when the README text and the computed value part (a drift in either).

Run: ``python3 benchmarks/headline_numbers.py`` (a few seconds; exit 1 if the README lacks a
figure, naming it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
N, D = 4096, 64  # the README's instance


@dataclass(frozen=True)
class Headline:
    """One README figure: ``text`` as the README writes it, ``how`` it is produced."""

    name: str
    text: str
    how: str


@dataclass(frozen=True)
class ClaimHeadline:
    """A finding's threshold: the README ``text`` and the claim whose statement says
    ``fragment`` (checked by ``attnio verify``)."""

    text: str
    claim_id: str
    fragment: str


def _sweep_crossover() -> int:
    """The README command ``attnio simulate --n 4096 --d 64 --M-geom 256:262144:13
    --algorithm flash1,small-cache --pass backward``: the swap bisected on exact counts."""
    from attnio.commands.simulate import find_crossovers, parse_cache_sizes

    grid = parse_cache_sizes("256:262144:13", geometric=True)
    found = find_crossovers("flash1", "small-cache", "backward", N, D, grid)
    if len(found) != 1:
        raise AssertionError(f"expected one swap on the README grid, found {found}")
    return found[0]["M"]


def _flop_ratio_range() -> tuple[float, float]:
    """Algorithm 6 ÷ FlashAttention-1 backward FLOPs (exact counts) at n = 4096, d = 64, one M
    per doubling from d to nd (the report's FLOP figure), where both run."""
    from attnio.algorithms.simulation import count
    from attnio.exceptions import InvalidInputError

    ratios = []
    for k in range(6, 19):
        try:
            alg6 = count("small-cache", "backward", N, D, 2 ** k).flops
            fa1 = count("flash1", "backward", N, D, 2 ** k).flops
        except InvalidInputError:  # M below FA-1's smallest backward tile set
            continue
        ratios.append(alg6 / fa1)
    return min(ratios), max(ratios)


def _published_overflow_range() -> tuple[float, float]:
    """FA-1 backward with its printed block sizes: the words of one inner step's tile set ÷ M,
    at n = 4096, d = 64, M = 2⁹ ... nd (one per doubling)."""
    from attnio.algorithms.counts import flash_block_sizes, flash_tile_sequence

    factors = []
    for k in range(9, 19):
        M = 2 ** k
        br, bc = flash_block_sizes(1, "backward", N, D, M, "published")
        factors.append(sum(w for _, w in flash_tile_sequence(1, "backward", N, D, br, bc)) / M)
    return min(factors), max(factors)


def headlines() -> list[Headline]:
    """Compute every README figure (a few seconds)."""
    import sympy as sp

    from attnio.algorithms.masks import Mask
    from attnio.algorithms.simulation import count
    from attnio.bounds.masks import sparse_bound_values
    from attnio.graphs import matmul_dag, replay, solve_optimal
    from attnio.proofs import prove_statement
    from attnio.symbolic import crossover, get_bound
    from attnio.symbolic import symbols as S

    out = []
    solution = crossover(get_bound("bwd.tight")).solution
    if sp.simplify(solution - S.d ** 2) != 0:
        raise AssertionError(f"Thm 1.1's branches cross at {solution}, not d**2")
    out.append(Headline("branch crossover", "cross at M = d²",
                        'crossover(get_bound("bwd.tight")).solution'))
    # F5: Hong–Kung's explicit reduction n²d/√(2M) − n² is positive only below this M
    M_sym = sp.Symbol("M", positive=True)
    (vacuous_from,) = sp.solve(sp.Eq(S.n ** 2 * S.d / sp.sqrt(2 * M_sym), S.n ** 2), M_sym)
    if sp.simplify(vacuous_from - S.d ** 2 / 2) != 0:
        raise AssertionError(f"the explicit reduction vanishes at M = {vacuous_from}")
    out.append(Headline("F5 vacuous range", "is vacuous for M ≥ d²/2",
                        "sympy: n**2*d/sqrt(2*M) = n**2 at M = d**2/2"))
    M = _sweep_crossover()
    out.append(Headline("measured crossover", f"M = {M:,} ≈ {M / D ** 2:.1f}·d²",
                        "attnio simulate --n 4096 --d 64 --M-geom 256:262144:13 "
                        "--algorithm flash1,small-cache --pass backward"))
    out.append(Headline("measured crossover (F1-F2)", f"swap at M ≈ {M / D ** 2:.1f}·d² "
                        f"(n = {N}, d = {D})", "the same command"))
    lo, hi = _published_overflow_range()
    out.append(Headline("published blocks overflow", f"by {lo:.1f}–{hi:.1f}×",
                        "flash_block_sizes(..., 'published') and flash_tile_sequence"))
    lo, hi = _flop_ratio_range()
    out.append(Headline("FLOP ratio", f"({lo:.2f}–{hi:.2f}×)",
                        "count('small-cache'|'flash1', 'backward', 4096, 64, M).flops"))
    causal = sparse_bound_values(Mask.causal(), N, D, D * D)
    cross = sp.sympify(causal["sparse_crossover"]["value"]) / D ** 2
    out.append(Headline("causal branch crossover", f"≈ {float(cross):.0f}d² causal",
                        "sparse_bound_values(Mask.causal(), 4096, 64, M)['sparse_crossover']"))
    full = count("flash2", "backward", N, D, 2 ** 16)
    masked = count("flash2", "backward", N, D, 2 ** 16, mask=Mask.causal())
    out.append(Headline("causal FA-2 words", f"moves {masked.io / full.io:.2f}× the unmasked "
                        f"words at n = {N}, d = {D}, M = 2¹⁶",
                        "count('flash2', 'backward', 4096, 64, 2**16, mask=Mask.causal())"))
    dag = matmul_dag(2, 2, 2)
    opt = solve_optimal(dag, 3)
    out.append(Headline("optimal pebbling", f"# verdict {opt.verdict!r}, io={opt.io}",
                        "solve_optimal(matmul_dag(2, 2, 2), 3)"))
    out.append(Headline("replayed pebbling", f"# {replay(dag, opt.schedule, 3).io}, by the "
                        "independent validator", "replay(matmul_dag(2, 2, 2), opt.schedule, 3)"))
    cex = prove_statement("n**2 >= n", {"n": "positive"}).counterexample
    out.append(Headline("counterexample", f"# {cex}, checked exactly",
                        'prove_statement("n**2 >= n", {"n": "positive"})'))
    return out


def claim_headlines() -> list[ClaimHeadline]:
    """The findings' thresholds and the claims that state them."""
    return [
        ClaimHeadline("√M = nd/(n+d)", "cmp.alg6_vs_flash1.exact", "sqrt(M) <= nd/(n+d)"),
        ClaimHeadline("M ≤ d²/9", "cmp.alg6_full_vs_flash1", "M <= d**2/9"),
        ClaimHeadline("needs √M ≤ n", "low.d2_in_small", "needs sqrt(M) <= n"),
        ClaimHeadline("loose by 4 (AM–GM gives M²/(4d²))", "sy.lemma33.extra_trees_quarter",
                      "C <= M**2/(4*d**2)"),
        ClaimHeadline("S·√(2S) needs S ≥ 2", "partlemma.matmul_part", "for k = 2S, S ≥ 2"),
    ]


def missing(readme: str, items: list[Headline] | list[ClaimHeadline]) -> list[str]:
    """The texts of ``items`` that ``readme`` does not contain."""
    return [item.text for item in items if item.text not in readme]


def main() -> int:
    readme = README.read_text(encoding="utf-8")
    items = headlines()
    for item in items:
        print(f"{item.name:<28} {item.text:<50} ({item.how})")
    for claim in claim_headlines():
        print(f"{'finding threshold':<28} {claim.text:<50} (claim {claim.claim_id})")
    absent = missing(readme, items) + missing(readme, claim_headlines())
    for text in absent:
        print(f"README.md lacks: {text}", file=sys.stderr)
    return 1 if absent else 0


if __name__ == "__main__":
    sys.exit(main())
