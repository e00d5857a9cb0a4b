r"""Claims of the multi-level memory (:mod:`attnio.algorithms.hierarchy`; the heads claims
moved to :mod:`attnio.proofs.stacked_heads` in issue 21).

* ``hierarchy.boundary_lower_bound`` (RECONSTRUCTED, our reduction). Hypotheses: a hierarchy
  of levels :math:`0..k`, fastest first, bounded capacities :math:`c_0, \dots, c_{k-1}` words,
  level :math:`k` unbounded; arithmetic only in level 0; inputs start and outputs end in
  level :math:`k`; a word occupies capacity in every level holding a copy. Claim: every
  schedule moves at least :math:`LB(M_i)` words across boundary :math:`i`, where
  :math:`M_i = c_0 + \dots + c_i` and :math:`LB` is the two-level explicit bound
  (:func:`attnio.proofs.gap_routes.best_lower_bound`). Proof: merge levels :math:`0..i` into
  one fast memory of :math:`M_i` words and the rest into one slow memory; every move across
  the boundary is a read or write of a red-blue schedule with :math:`M_i` red pebbles, every
  other move is free, so the two-level bound applies. What the machine checks (a check that
  can fail): at every boundary of a grid of hierarchies, the bound is at most the words every
  algorithm moves there (closed form on a grid incl. n = 4096, d = 64; executed on small
  sizes).
* (``hierarchy.one_bounded_level`` was removed, issue 20: it compared ``hierarchy_counts``
  with the very functions it calls, so it could not fail — it is a consistency test,
  ``tests/algorithms/test_hierarchy.py::test_one_bounded_level_is_the_two_level_model``.)
* (``heads.group_lower_bound`` was replaced in issue 21: it was B·G × one head's bound, missing
  the Q, O, dO, dQ traffic of the other query heads of a group, and its check only compared it
  with attnio's own algorithms. The stacked-head bound and its claims
  ``heads.stacked_compulsory`` and ``heads.stacked_segment`` are in
  :mod:`attnio.proofs.stacked_heads`; the boundary bound with heads is that bound at
  :math:`M_i`.)

Evidence: exhaustive, with the (boundary or size, algorithm) comparisons as instances; an
instance is non-trivial when its bound is positive (a bound of 0 cannot exceed a count).

Checkers and their failure paths, each with a false twin: ``_boundary_check`` — a bound above
the words moved (``hierarchy.twin.fastest_level_everywhere``: the bound at every boundary
taken with the fastest level's capacity alone; inner levels do not bound outer traffic).
Where no comparison is
non-trivial the registry reports the claim Undecided (``attnio.proofs.registry``).
"""

from __future__ import annotations

from typing import Callable

from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict

__all__ = ["CLAIMS", "FALSE_TWINS"]

_SRC = ("attnio (reduction to Hong & Kung 1981's two-level red-blue game; bounds of "
        "attnio.proofs.gap_routes); issue 16")

#: (pass, n, d, levels in words) checked by the boundary claim (closed form).
_GRID_COUNT = [(p, 4096, 64, levels) for p in ("forward", "backward")
               for levels in ((512, 65536), (2048, 16384, 2**20), (8192, 262144))]
#: (pass, n, d, levels) executed on small sizes.
_GRID_EXEC = [(p, 32, 4, (48, 512)) for p in ("forward", "backward")]


def _algorithms(pass_: str, selection_name: str = "gap") -> tuple[str, ...]:
    """The registry's selection (``gap``: one schedule per computation; ``levels``: plus the
    grouped-query order)."""
    from attnio.algorithms.registry import selection

    return selection(selection_name, pass_)


def _hierarchy(levels: tuple[int, ...]):
    from attnio.algorithms.hierarchy import Hierarchy

    rows = [(f"L{i}", c, None) for i, c in enumerate(levels)] + [("slow", None, 10**12)]
    return Hierarchy.from_words(rows)


def _boundary_check(ctx: CheckContext, *, bound_M: Callable[[list[int]], list[int]] | None = None
                    ) -> Verdict:
    from attnio.algorithms.hierarchy import boundary_lower_bound, hierarchy_counts

    checked = nontrivial = 0
    for grid, execute in ((_GRID_COUNT, False), (_GRID_EXEC, True)):
        for pass_, n, d, levels in grid:
            h = _hierarchy(levels)
            Ms = [b.M for b in h.boundaries()]
            bound_Ms = bound_M(list(levels)) if bound_M else Ms
            for alg in _algorithms(pass_):
                rows = hierarchy_counts(alg, pass_, n, d, h, execute=execute)
                for row, Mb in zip(rows, bound_Ms):
                    if row["words"] is None:
                        continue
                    lower, route = boundary_lower_bound(pass_, n, d, Mb)
                    checked += 1
                    nontrivial += lower > 0
                    if lower > row["words"]:
                        return Refuted({"pass": pass_, "n": n, "d": d, "levels": list(levels),
                                        "boundary": row["boundary"], "M_i": row["M"],
                                        "bound_M": Mb, "bound": lower, "route": route,
                                        "algorithm": alg, "words": row["words"],
                                        "executed": execute},
                                       "a boundary's lower bound exceeds the words an algorithm "
                                       "moves across it")
    return Proved(f"{checked} (boundary, algorithm) comparisons, exact integers",
                  evidence=Evidence("exhaustive", instances=checked,
                                    nontrivial_instances=nontrivial))


def _claim(id: str, statement: str, formal: str, check, *, reconstructed: bool = True,
           twin_of: str | None = None) -> Claim:
    return Claim(id=id, statement=statement, formal=formal, source=_SRC,
                 method="exact enumeration", family="hierarchy", check_fn=check,
                 reconstructed=reconstructed, twin_of=twin_of, evidence_kind="exhaustive")


CLAIMS: list[Claim] = [
    _claim("hierarchy.boundary_lower_bound",
           "traffic across boundary i ≥ LB(M_i), M_i = c_0 + … + c_i (compute in level 0; "
           "inputs/outputs in the unbounded level; copies occupy capacity)",
           "LB(M_i) ≤ words of every algorithm at boundary i, exact ints", _boundary_check),
]

FALSE_TWINS: list[Claim] = [
    _claim("hierarchy.twin.fastest_level_everywhere",
           "traffic across every boundary ≥ LB(c_0) (the fastest level bounds all traffic)",
           "LB(c_0) ≤ words at every boundary",
           lambda ctx: _boundary_check(ctx, bound_M=lambda levels: [levels[0]] * len(levels)),
           twin_of="hierarchy.boundary_lower_bound"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
