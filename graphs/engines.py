r"""One slot for exact red–blue pebbling: ``solve(G, M, method=...)`` and its engines.

Every engine answers the same question — :math:`Q(G, M)`, the least reads + writes of a
complete schedule of ``G`` with at most ``M`` red pebbles (:mod:`attnio.graphs.game`;
recomputation allowed, or one-shot with ``recompute=False``) — and returns the same
:class:`~attnio.graphs.pebble_result.PebbleResult` (verdict ``optimal`` / ``infeasible`` /
``undecided`` with the proven bracket ``lower``/``upper``; every optimal schedule replays to
``io``). The slot is networkx's ``flow_func`` pattern: the caller names the method, the
registry :data:`ENGINES` holds one :class:`Engine` record per method.

=================  =========================================================================
method             engine
=================  =========================================================================
``"compiled"``     :func:`attnio.graphs.exact_compiled.solve_optimal_compiled`: the A* of
                   ``reference`` in a numba kernel, with partial expansion (needs the extra
                   ``attnio[fast]``; beyond 64 relevant vertices it hands the call to
                   ``reference`` itself)
``"reference"``    :func:`attnio.graphs.exact.solve_optimal`: A* with reductions R0–R10 and
                   an admissible heuristic, pure Python (the readable one, with the proofs)
``"plain"``        :func:`attnio.graphs.baseline.plain_optimal`: best-first search over every
                   legal move, no reductions (the yardstick; small DAGs only)
``"time-indexed"`` :func:`attnio.graphs.exact_z3.solve_time_indexed`: a z3 model over a
                   bounded horizon, sharing nothing with the searches. Optimal one-shot;
                   with recomputation its horizon is not proven sufficient, so it answers
                   ``undecided`` with ``upper`` = the least cost within the horizon
                   (:attr:`Engine.optimal_with_recomputation` is False)
``"sat"``          :func:`attnio.graphs.exact_sat.solve_sat`: incremental SAT on the time-indexed
                   CNF of :mod:`attnio.check` (exact with recomputation by its horizon lemma;
                   the extra ``attnio[sat]``). Not this slot's ``auto``: the compiled search
                   is faster on every instance measured (notes/pebbling.md, "SAT engine");
                   ``attnio pebble``'s ``auto`` adds SAT *refutations* after the search on
                   a small horizon (:mod:`attnio.graphs.portfolio`)
``"auto"``         ``compiled`` when numba imports, else ``reference``
=================  =========================================================================

Not an engine: :func:`attnio.graphs.zero_waste.zero_waste_exists` is a *decision procedure*
(does any schedule cost exactly the compulsory I/O?) — it answers yes/no about one value, not
:math:`Q(G, M)`, so it cannot fill the slot; :func:`attnio.graphs.anytime.anytime_pebble`
uses it as one step of its bracket, beside the engine it is given.

Options (``**options``) go to the engine: the common ones are ``recompute``, ``outputs`` and
``time_limit`` (seconds; passed as ``timeout`` to the time-indexed model, whose budget has
that name); ``max_states``, ``incumbent``, ``symmetry``, … exist on the searches only. An
option an engine does not take raises :class:`~attnio.exceptions.InvalidInputError` naming
it and the engine.

Agreement is tested, not assumed: ``tests/graphs/test_engines.py`` runs every registered
engine on small matmul and attention DAGs and requires equal optima (ints, ``==``), with a
planted wrong engine that :func:`disagreements` must catch; ``benchmarks/agree_pebble.py``
does the same on random DAGs.

Examples
--------
>>> import networkx as nx
>>> G = nx.DiGraph([("a", "c"), ("b", "c")])
>>> [solve(G, 3, method=m).io for m in ("reference", "plain")]
[3, 3]
>>> solve(G, 2).verdict
'infeasible'
>>> solve(G, 3, method="fastest")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: method='fastest' is unknown; known methods: auto, compiled, reference, plain, time-indexed, sat
"""

from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.graphs.pebble_result import PebbleResult
from attnio.results import Status

__all__ = ["Engine", "ENGINES", "METHODS", "solve", "resolve_method", "engine_available",
           "disagreements"]


def _numba_available() -> bool:
    from attnio.graphs.exact_compiled import compiled_available

    return compiled_available()


def _sat_available() -> bool:
    from attnio.graphs.exact_sat import sat_available

    return sat_available()


def _z3_available() -> bool:
    try:
        import z3  # noqa: F401
    except ImportError:  # pragma: no cover - z3 is a core dependency today
        return False
    return True


@dataclass(frozen=True, slots=True)
class Engine:
    """One registered method: its name, the function behind it (``target``, a dotted path,
    imported on first use: ``solver(G, M, **options)`` → :class:`PebbleResult`), a one-line
    summary, whether it proves optima with recomputation too, the name of its time budget,
    and what it needs installed (``needs`` names the pip extra; ``available()`` says whether
    it is here)."""

    name: str
    target: str
    summary: str
    optimal_with_recomputation: bool = True
    budget_option: str = "time_limit"
    needs: str | None = None
    available: Callable[[], bool] = lambda: True

    @property
    def solver(self) -> Callable[..., PebbleResult]:
        """The engine's function (its module is imported now)."""
        module, _, name = self.target.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def options(self) -> tuple[str, ...]:
        """The keyword options the engine's function takes (besides G and M)."""
        return tuple(p for p in inspect.signature(self.solver).parameters
                     if p not in ("G", "M") and not p.startswith("_"))


#: The registered engines, by method name (``"auto"`` is resolved by :func:`resolve_method`).
ENGINES: dict[str, Engine] = {engine.name: engine for engine in (
    Engine("compiled", "attnio.graphs.exact_compiled.solve_optimal_compiled",
           "A* with reductions R0-R10 in a numba kernel (partial expansion)",
           needs="attnio[fast]", available=_numba_available),
    Engine("reference", "attnio.graphs.exact.solve_optimal",
           "A* with reductions R0-R10, pure Python (the readable search)"),
    Engine("plain", "attnio.graphs.baseline.plain_optimal",
           "best-first search over every legal move, no reductions (the yardstick)"),
    Engine("time-indexed", "attnio.graphs.exact_z3.solve_time_indexed",
           "z3 over a bounded horizon; optimal one-shot, an upper bound with recomputation",
           optimal_with_recomputation=False, budget_option="timeout", needs="z3-solver",
           available=_z3_available),
    Engine("sat", "attnio.graphs.exact_sat.solve_sat",
           "incremental SAT on the time-indexed CNF of attnio.check (horizon lemma: exact)",
           needs="attnio[sat]", available=_sat_available),
)}

#: Every value ``method=`` accepts, ``"auto"`` first.
METHODS: tuple[str, ...] = ("auto", *ENGINES)


def engine_available(method: str) -> bool:
    """True when ``method`` can run here (``"auto"`` always can).

    >>> engine_available("reference"), engine_available("auto")
    (True, True)
    """
    return method == "auto" or resolve_method(method, check_installed=False).available()


def resolve_method(method: str = "auto", *, check_installed: bool = True) -> Engine:
    """The engine ``method`` names: ``"auto"`` is ``compiled`` when numba imports, else
    ``reference``.

    Raises
    ------
    InvalidInputError
        ``method`` is not one of :data:`METHODS` (the message lists them), or (with
        ``check_installed``) its engine needs an extra that is not installed (the message
        says which to install).

    >>> resolve_method("plain").name
    'plain'
    """
    if method == "auto":
        compiled = ENGINES["compiled"]
        return compiled if compiled.available() else ENGINES["reference"]
    engine = ENGINES.get(method) if isinstance(method, str) else None
    if engine is None:
        raise InvalidInputError(f"method={method!r} is unknown; known methods: "
                                f"{', '.join(METHODS)}")
    if check_installed and not engine.available():
        raise InvalidInputError(f"method={method!r} needs an optional dependency; install "
                                f"it with: pip install {engine.needs}")
    return engine


def solve(G: nx.DiGraph, M: int, *, method: str = "auto", **options: Any) -> PebbleResult:
    r"""Answer :math:`Q(G, M)` with the engine ``method`` names (module docstring).

    Parameters
    ----------
    G : networkx.DiGraph
        The computation DAG; inputs are exactly its sources.
    M : int
        Red pebbles.
    method : str
        One of :data:`METHODS` (default ``"auto"``: ``compiled`` when numba is installed,
        else ``reference``).
    **options
        Passed to the engine (e.g. ``recompute``, ``outputs``, ``time_limit``).

    Returns
    -------
    PebbleResult
        Verdict ``optimal`` (schedule replayed to ``io``), ``infeasible`` or ``undecided``
        (proven bracket ``lower <= Q(G, M) <= upper``).

    Raises
    ------
    InvalidInputError
        An unknown ``method``, an engine whose extra is not installed, an option the
        engine does not take, or bad ``G`` / ``M`` / options (as the engine words them).

    Examples
    --------
    >>> from attnio.graphs.dags import matmul_dag
    >>> solve(matmul_dag(1, 2, 1), 3, method="plain").io
    7
    """
    engine = resolve_method(method)
    if "time_limit" in options and engine.budget_option != "time_limit":
        options[engine.budget_option] = options.pop("time_limit")
    unknown = sorted(set(options) - set(engine.options()))
    if unknown:
        raise InvalidInputError(f"method={engine.name!r} takes no option "
                                f"{', '.join(unknown)}; it takes {', '.join(engine.options())}")
    return engine.solver(G, M, **options)


def disagreements(G: nx.DiGraph, Ms: Iterable[int], *,
                  methods: Sequence[str] | None = None,
                  engines: Mapping[str, Callable[..., PebbleResult]] | None = None,
                  recompute: bool = True, time_limit: float | None = 60
                  ) -> list[dict[str, Any]]:
    """Run several engines on ``G`` at every ``M`` (through :func:`solve`, each with
    ``time_limit``) and list where they disagree.

    Compared: the verdicts that are decided (``optimal`` / ``infeasible``) must be equal, and
    the optima equal as ints; an engine's undecided bracket must contain every decided
    optimum. ``engines`` (name → callable with the engine signature) replaces the registry,
    e.g. to plant a wrong engine in a test. Returns one dict per disagreement (``M``, the
    answers by engine); ``[]`` means they agree.

    >>> import networkx as nx
    >>> disagreements(nx.DiGraph([("a", "c"), ("b", "c")]), [2, 3], methods=["reference", "plain"])
    []
    """
    if engines is None:
        names = list(methods) if methods is not None else [
            name for name, e in ENGINES.items() if e.available()]
        chosen: dict[str, Callable[..., PebbleResult]] = {
            name: functools.partial(solve, method=name) for name in names}
    else:
        chosen = dict(engines)
    found: list[dict[str, Any]] = []
    for M in Ms:
        answers: dict[str, PebbleResult] = {}
        for name, solver in chosen.items():
            answers[name] = solver(G, M, recompute=recompute, time_limit=time_limit)
        decided = {(r.verdict, r.upper) for r in answers.values()
                   if r.verdict is not Status.UNDECIDED}
        optima = {r.io for r in answers.values() if r.verdict is Status.OPTIMAL}
        outside = any(r.verdict is Status.UNDECIDED and any(
            q < r.lower or (r.upper is not None and q > r.upper) for q in optima)
            for r in answers.values())
        if len(decided) > 1 or outside:
            found.append({"M": M, "answers": {name: (str(r.verdict), r.lower, r.upper)
                                              for name, r in answers.items()}})
    return found
