"""The glossary: every term a table or verdict of attnio prints, defined once (issue 34, item 4).

``attnio explain TERM`` prints an entry; ``attnio explain`` lists the terms; notes/glossary.md
is :func:`glossary_markdown` (a test keeps the two equal, and another checks that every column
header the commands print is a term here). One word, one meaning: ``io/LB`` (distance from the
certified lower bound) and ``io/own O(·)`` (a constant factor over the algorithm's own formula)
are different terms with different names.

>>> explain("io/LB", width=None)[:60]
'io/LB — counted io ÷ the certified lower bound of the whole '
>>> lookup("IO/lb")
'io/LB'
"""

from __future__ import annotations

import textwrap

__all__ = ["GLOSSARY", "ALIASES", "lookup", "explain", "glossary_markdown", "terms"]

#: term → definition (plain text; one paragraph).
GLOSSARY: dict[str, str] = {
    "n": "sequence length: the number of query (and key) positions.",
    "d": "head dimension: the width of each query, key and value row.",
    "M": "fast-memory size in words (the red pebbles of the red-blue pebble game). With "
         "--device or --hierarchy, M of a level is the total capacity above that boundary.",
    "word": "one number in memory; its bytes come from --dtype (bf16: 2, fp32: 4, ...).",
    "io words": "words moved between fast and slow memory (reads + writes), counted exactly "
                "for the algorithm's schedule (closed form = executed count).",
    "io bytes": "io words × bytes per word (--dtype, or the device's dtype).",
    "io": "the same as io words.",
    "lower bound": "a certified lower bound: an exact integer that every schedule of the "
                   "red-blue pebble game with M red pebbles must move (recomputation allowed), "
                   "proved by a route whose algebra `attnio verify` checks. For the whole "
                   "instance: all heads, groups and the mask. It holds for every algorithm of "
                   "the pass unless a class is named.",
    "LB words": "the certified lower bound of the instance, in words (see 'lower bound').",
    "LB bytes": "the certified lower bound × bytes per word.",
    "certified": "proved for every schedule: the route's algebra is a machine-checked claim "
                 "(`attnio verify`), its instance-specific part an exact integer computation. "
                 "`attnio bounds`: yes for an explicit-constant lower row in its range; for "
                 "an asymptotic row, → the explicit-constant row beside it (its value is "
                 "not a bound).",
    "io/LB": "counted io ÷ the certified lower bound of the whole instance, for every "
             "algorithm of the pass: at least 1, and an upper bound on how far the count is "
             "from the I/O optimum.",
    "io/LB(class)": "counted io ÷ the certified lower bound of the algorithm's own computation "
                    "class (tighter than io/LB when the class needs more I/O).",
    "io/own O(·)": "`attnio simulate`: counted io ÷ the algorithm's own upper-bound formula "
                   "from the catalogue evaluated with constant 1. A constant factor of that "
                   "algorithm, NOT a distance from the optimum (an algorithm can have the "
                   "smallest io/own O(·) and move the most words).",
    "class": "the computation class of an algorithm's pass, which decides which lower bound "
             "holds for it: forward; backward 'recompute' or 'given-scores'; 'dX'.",
    "recompute": "backward class: the scores QKᵀ are recomputed from Q and K (FlashAttention "
                 "1/2 and their variants); the bound charges the products QKᵀ and dO·Vᵀ.",
    "given-scores": "backward class: an n×n matrix saved by the forward pass (P, or A = "
                    "exp(QKᵀ)) is read back (standard attention, Algorithm 6 and the fused "
                    "small-cache schedules); the bound charges dO·Vᵀ, dS·K (witnessed) and the "
                    "n² given entries.",
    "dX": "the paper's gradient dL/dX of Alman & Song's formulation (small-cache-dx): a "
          "different output from dQ, dK, dV, never compared with the others and never 'best'.",
    "forward": "the forward pass O = softmax(QKᵀ)V (one class).",
    "backward": "the backward pass: dQ, dK, dV from Q, K, V, O, dO (classes recompute and "
                "given-scores).",
    "best algorithm": "the algorithm with the fewest counted words at this M among those that "
                      "compute the pass's outputs (ties: registry order).",
    "counted best": "the same as best algorithm: from exact counts, never from catalogue "
                    "constants.",
    "theory's pick": "the catalogue's asymptotic choice for the regime (Thm 1.1: "
                     "FlashAttention for M ≥ d², Algorithm 6 below), formulas with constant 1; "
                     "it can differ from the counted best, because the formulas leave the "
                     "constants out.",
    "recommended": "`attnio advise`: the algorithm to run, from counted I/O only — with "
                   "bandwidths, the fewest seconds at its slowest boundary.",
    "n/a": "an algorithm with no run on this instance, with the reason: no masked schedule "
           "(a mask that drops entries), no tile set fits M, or its printed tiles overflow M. "
           "Never dropped from a table.",
    "bound×alg": "`attnio gap`: io/LB split into two factors around the classical I/O of the "
                 "best algorithm's computation: (classical ÷ bound) × (io ÷ classical) — "
                 "which side would have to improve. '—' where not defined (masks, many heads).",
    "route": "the argument a lower bound comes from (compulsory, segment products, Saha-Ye "
             "level-1, ...) and, in brackets, the claim that proves its algebra.",
    "compulsory": "route: every input with a successor is read at least once and every output "
                  "written at least once (with a mask: only the rows the mask needs).",
    "segment products": "route (Hong–Kung's segment argument with Loomis–Whitney faces, "
                        "notes/gap.md): cut a schedule into segments of L I/Os; each segment "
                        "computes at most F(L) of the counted products' leaves, so Q ≥ "
                        "L(⌈N/F(L)⌉ − 1).",
    "L = tM": "the segment length of the segment-products route that gave the bound (every "
              "L = M, 2M, ..., 16M gives a valid bound; the largest is printed).",
    "compulsory rest": "added to a segment bound: the compulsory I/O of the inputs and "
                       "outputs the segment argument does not count.",
    "witnessed": "route of the given-scores class: each dS entry is charged to the given score "
                 "it depends on, so dS·K joins dO·Vᵀ in the segment count (proof needs n ≥ d).",
    "regime": "small-cache (M < d²), large-cache (M > d²) or crossover (M = d²), the sides of "
              "the crossover of Thm 1.1.",
    "crossover": "the M where the two branches of a Θ-bound meet: d² for attention, "
                 "Z_in²/Z_QK for sparse attention (derived by sympy, `attnio bounds`).",
    "level": "a boundary of a memory hierarchy: the levels above it (fast) | below it (slow).",
    "boundary": "see level.",
    "time": "io bytes ÷ the bandwidth of the level below the boundary, each boundary on its "
            "own, no overlap ('n/a': bandwidth not published).",
    "bottleneck": "the boundary where the best algorithm's time is largest.",
    "peak": "the most words the algorithm holds in fast memory at once (≤ M, enforced).",
    "flops": "arithmetic operations of the schedule (counted, not I/O).",
    "formula": "`attnio simulate`: the algorithm's catalogue upper bound evaluated with "
               "constant 1 (the denominator of io/own O(·)).",
    "rel.err": "largest relative error of an executed run against the untiled reference.",
    "abs.err": "largest absolute error of an executed run against the untiled reference.",
    "tol": "ok when every output is within atol + rtol·max|expected| (rtol = 1e-10).",
    "c.f.": "closed form: = when the executed counts equal the closed-form counts.",
    "closed-form": "see c.f.",
    "kind": "`attnio bounds`: lower or upper (explicit constants), or Θ/Ω/O asymptotic — "
            "up to constants, evaluated with constant 1: not a bound at one instance (the "
            "certified column names the explicit row beside it).",
    "value": "`attnio bounds`: the bound's formula evaluated exactly at the instance (* = "
             "outside its admissible range).",
    "expression": "the bound's formula (sympy).",
    "id": "a catalogue bound or a claim identifier (paste it into `attnio verify --only`).",
    "mask": "which score entries attention keeps: full, causal, window:W, block:B:FILE.",
    "Z_in": "sparse attention: d × the rows of Q or K the mask needs (the input size of the "
            "sparse bound).",
    "Z_QK": "sparse attention: the number of kept score entries.",
    "heads": "query heads H; kv_heads G (H a multiple of G: GQA, MQA for G = 1); batch B.",
    "Q(G,M)": "`attnio pebble`: the exact optimal I/O of the DAG G at M red pebbles.",
    "verdict": "optimal (proved), bracket (lower ≤ Q ≤ upper, search stopped), infeasible (M "
               "below some vertex's in-degree + 1); for claims: proved, refuted (with a "
               "counterexample), undecided (never a pass).",
    "states": "`attnio pebble`: search states expanded by the exact search.",
    "naive": "`attnio pebble`: the I/O of the naive schedule (an upper bound).",
    "row-block": "`attnio pebble`: the I/O of the row-block schedule (an upper bound).",
    "square-tiling": "`attnio pebble`: the I/O of the square-tiling schedule (an upper bound).",
    "lower": "`attnio pebble`: the best certified lower bound found.",
    "upper": "`attnio pebble`: the cheapest schedule found (replayed by the validator).",
    "evidence": "`attnio verify`: how a claim was decided — z3+cvc5 ∀ (SMT for all values), "
                "exact (sympy canonical form), exh N/T (exhaustive: N instances that could "
                "fail, of T checked), search.",
    "exh": "see evidence: exhaustive check over enumerated instances.",
    "source": "where a claim or bound comes from; [R] = RECONSTRUCTED (our text, not the "
              "paper's).",
    "proved where defined": "`attnio prove`: true at every admissible point where the "
                            "statement is defined; the condition printed is where it is "
                            "defined.",
    "vacuous": "`attnio prove`: defined nowhere, or an antecedent that holds nowhere it is "
               "defined — Undecided, never a proof.",
    "bound": "`attnio lower-bound`: the value a route certifies on this DAG at this M.",
    "status, certificate, checker": "`attnio lower-bound`: whether the route applies, the "
                                    "certificate it produced, and the independent checker's "
                                    "verdict on it.",
}

#: Printed header spellings that are the same term.
ALIASES: dict[str, str] = {
    "lower bound (words)": "lower bound", "M words": "M", "best io": "io words",
    "LB": "lower bound", "ratio": "io/LB", "io/lb": "io/LB", "pass": "class",
    "best": "best algorithm", "algorithm": "best algorithm", "compulsory rest": "compulsory rest",
    "route [claim]": "route", "claim": "route", "lb time": "time",
}


def terms() -> list[str]:
    """Every term, sorted case-insensitively."""
    return sorted(GLOSSARY, key=str.lower)


def lookup(term: str) -> str | None:
    """The glossary term ``term`` names (case-insensitive, aliases followed), or None."""
    key = " ".join(str(term).split())
    folded = {t.lower(): t for t in GLOSSARY}
    alias = {a.lower(): t for a, t in ALIASES.items()}
    lowered = key.lower()
    return folded.get(lowered) or alias.get(lowered)


def explain(term: str, width: int | None = 100) -> str:
    """``TERM — definition``, wrapped to ``width``; a KeyError naming close terms if unknown."""
    found = lookup(term)
    if found is None:
        raise KeyError(term)
    text = f"{found} — {GLOSSARY[found]}"
    return text if width is None else textwrap.fill(text, width, break_long_words=False,
                                                    break_on_hyphens=False)


def glossary_markdown() -> str:
    """notes/glossary.md, generated (a test keeps the file equal to this text)."""
    lines = ["# Glossary", "",
             "Every term a table, a verdict or a column of attnio prints, defined once "
             "(`attnio explain TERM` prints one entry; this file is "
             "`attnio.glossary.glossary_markdown()`, kept equal to the code by a test).", ""]
    for term in terms():
        lines.append(f"- **`{term}`** — {GLOSSARY[term]}")
    lines += ["", "Aliases (printed spellings of the same term): "
              + ", ".join(f"`{a}` → `{t}`" for a, t in sorted(ALIASES.items())), ""]
    return "\n".join(lines)
