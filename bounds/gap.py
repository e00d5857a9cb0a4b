r"""The constant gap at real sizes: best explicit lower bound against every algorithm's exact I/O.

For each fast-memory size :math:`M`, :func:`gap_rows` puts side by side

* the best explicit-constant lower bound of :mod:`attnio.bounds.attention`
  (:func:`~attnio.bounds.attention.best_lower_bound` with ``computation="any"``: valid for
  every schedule of the red-blue pebble game on every computation of the algorithms listed,
  recomputation allowed), with its route and the id of the claim it instantiates;
* the exact closed-form I/O (reads + writes) of every algorithm of the pass
  (:func:`attnio.algorithms.simulation.count`; with ``tune=True`` the block sizes of
  :func:`attnio.algorithms.tuning.tuned_count`);
* the cheapest algorithm **that stays finite for every finite logit** (the registry's
  ``finite_logits``, :func:`attnio.bounds.instance_bounds.headline`; issue 35 item 3) and the
  ratio ``best_io / lower_bound`` (≥ 1 by the claim ``gap.below_algorithms``; a count below
  the bound, of any algorithm, would refute it, and is raised as an error here). An
  algorithm that overflows but would be cheaper is shown apart, under
  ``unstable_cheaper`` (``{name: {"io", "ratio", "reason"}}``), never as the best;
* ``residue``: the ratio split into the bound's factor and the algorithm's factor around the
  classical I/O of the cheapest algorithm's computation
  (:func:`attnio.bounds.gap_residue.gap_residue`: ``bound_factor × algorithm_factor =
  ratio``; which side would have to improve).

An (algorithm, M) pair for which no tile set fits in M words is left out of ``algorithms``
and listed under ``omitted`` with the reason; a row in which no algorithm fits is dropped
from the sweep (also with its reason, under ``infeasible``).

Bounded: ``deadline`` (a :func:`time.monotonic` instant) is read before every (M, algorithm)
pair and inside the ``--tune`` searches; when it passes, :class:`~attnio.algorithms.tuning.
TimeLimitReached` is raised carrying the rows of the sizes finished before it (a size cut
half-way is dropped, never reported with a partial search). ``on_step(text)`` is told which
pair runs (the progress line of ``attnio gap``).

Examples
--------
>>> row = gap_rows("backward", 4096, 64, [1024])[0]
>>> row["lower_bound"], row["claim_id"], row["best_algorithm"]
(92167168, 'gap.joint_route', 'small-cache-fused')
>>> row["best_io"] == min(row["algorithms"].values()), row["ratio"] >= 1
(True, True)
>>> gap_rows("forward", 64, 8, [16])[0]["omitted"]["flash1"][:25]
'M=16 is too small for any'
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from attnio.algorithms.registry import PASSES, selection
from attnio.algorithms.simulation import count, validate_size
from attnio.algorithms.tuning import TimeLimitReached, raise_if_past_deadline, tuned_count
from attnio.bounds.attention import best_lower_bound
from attnio.bounds.gap_residue import gap_residue
from attnio.bounds.instance_bounds import headline, not_finite_reason
from attnio.exceptions import AttnioError, InfeasibleError, InvalidInputError
from attnio.provenance import provenance

__all__ = ["GAP_ALGORITHMS", "gap_rows", "gap_payload",]

#: The algorithms compared in each pass (one computation each; see the module docstring): the
#: registry's selection ``"gap"``.
GAP_ALGORITHMS: dict[str, tuple[str, ...]] = {p: selection("gap", p) for p in PASSES}


def _io(name: str, pass_: str, n: int, d: int, M: int, tune: bool,
        deadline: float | None = None) -> int:
    if tune:

        return tuned_count(name, pass_, n, d, M, deadline=deadline).io
    return count(name, pass_, n, d, M).io


def gap_rows(pass_: str, n: int, d: int, Ms: Sequence[int], *, tune: bool = False,
             deadline: float | None = None, on_step: Callable[[str], None] | None = None
             ) -> list[dict[str, Any]]:
    """One row per M (see the module docstring); exact ints except ``ratio`` (a float).

    Raises
    ------
    InvalidInputError
        Bad pass or size, or no algorithm fits any M of the sweep.
    TimeLimitReached
        ``deadline`` passed; ``.rows`` are the rows finished, ``.done`` of ``.total`` sizes.
    """

    if pass_ not in GAP_ALGORITHMS:
        raise InvalidInputError(f"pass={pass_!r} must be 'forward' or 'backward'")
    n, d = validate_size("n", n), validate_size("d", d)
    Ms = [validate_size("M", M) for M in Ms]
    rows: list[dict[str, Any]] = []
    reasons: list[str] = []
    for done, M in enumerate(Ms):
        algorithms: dict[str, int] = {}
        omitted: dict[str, str] = {}
        for name in GAP_ALGORITHMS[pass_]:
            try:
                raise_if_past_deadline(deadline)
                if on_step is not None:
                    on_step(f"M={M}: {name}{' (tuning)' if tune else ''}")
                algorithms[name] = _io(name, pass_, n, d, M, tune, deadline)
            except InfeasibleError as exc:  # no tile set of this algorithm fits M: reported
                omitted[name] = " ".join(str(exc).split())
            except TimeLimitReached as exc:
                exc.rows, exc.done, exc.total = rows, done, len(Ms)
                raise
        if not algorithms:
            reasons.append(f"M={M}: no algorithm fits")
            continue
        bound = best_lower_bound(pass_, n, d, M)
        cheapest = min(algorithms, key=lambda k: (algorithms[k], k))
        if algorithms[cheapest] < bound.value:  # a refuted lower bound: never report it
            raise AttnioError(f"lower bound {bound.value} ({bound.route}) exceeds "
                              f"{cheapest}'s exact I/O {algorithms[cheapest]} at n={n}, d={d}, "
                              f"M={M}")
        finite = {k: v for k, v in algorithms.items() if headline(k, pass_)}
        if not finite:
            reasons.append(f"M={M}: no algorithm that stays finite for every logit fits")
            continue
        best = min(finite, key=lambda k: (finite[k], k))
        unstable = {k: {"io": v, "ratio": v / bound.value,
                        "reason": not_finite_reason(k, pass_)}
                    for k, v in algorithms.items() if k not in finite and v < finite[best]}
        rows.append({"M": M, "lower_bound": bound.value, "route": bound.route,
                     "claim_id": bound.claim_id, "algorithms": algorithms,
                     "best_algorithm": best, "best_io": algorithms[best],
                     "ratio": algorithms[best] / bound.value, "omitted": omitted,
                     "unstable_cheaper": unstable,
                     "residue": gap_residue(pass_, n, d, M, best, algorithms[best], bound.value,
                                            bound.route, bound.claim_id)})
    if not rows:
        raise InvalidInputError(f"no algorithm of the {pass_} pass fits any M of the sweep "
                                f"({'; '.join(reasons[:3])})")
    return rows


def gap_payload(pass_: str, n: int, d: int, Ms: Sequence[int], *, tune: bool = False,
                deadline: float | None = None, on_step: Callable[[str], None] | None = None
                ) -> dict[str, Any]:
    """The ``--json`` document: ``{"rows": [...], "pass", "n", "d", "tune"}`` + provenance().

    >>> sorted(gap_payload("forward", 64, 8, [64]))
    ['attnio_version', 'd', 'n', 'pass', 'rows', 'tune', 'versions']
    """

    rows = gap_rows(pass_, n, d, Ms, tune=tune, deadline=deadline, on_step=on_step)
    return {"rows": rows, "pass": pass_, "n": n, "d": d, "tune": tune, **provenance()}


