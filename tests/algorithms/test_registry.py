"""The algorithm registry: every record is consistent, and no second list exists in the tree.

1. Each record declares a counter, an executor and a stability declaration (finite for every
   finite logit, and why: executed both ways in tests/algorithms/test_stability.py) for
   exactly the passes it implements, its
   bound ids exist in the symbolic catalogue, its selections and masked counters are of
   declared passes, and — at one small size that the blocks do not divide — the executed
   counts of every (record, pass) equal the record's closed form (``==``), masked runs
   included. Planted twins: a record whose counter belongs to another algorithm, and one
   missing an executor, must be caught by the same checks.
2. An ``ast`` scan of every ``.py`` file outside tests/ and algorithms/registry.py fails on
   any tuple / list / set / dict literal holding two or more registered algorithm names (a
   second list), naming file:line. Planted twin: a synthetic source holding such a list.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from attnio.algorithms.masks import Mask
from attnio.algorithms.memory import TwoLevelMemory
from attnio.algorithms.registry import (
    PASSES,
    REGISTRY,
    SELECTIONS,
    AlgorithmSpec,
    algorithm_names,
    colour,
    get_algorithm,
    label,
    selection,
)
from attnio.exceptions import CacheOverflowError, InvalidInputError
from attnio.symbolic.catalogue import get_bound

ROOT = Path(__file__).resolve().parents[2]
#: A size no block rule divides evenly, large enough for every tile set but the published one.
N, D, M = 13, 3, 90
COMPUTATIONS = {"given-scores", "recompute", "dX"}


# ---- 1. consistency ---------------------------------------------------------------------
def declared_gaps(spec: AlgorithmSpec) -> list[str]:
    """What a record declares inconsistently (empty: consistent)."""
    gaps = []
    passes = set(spec.passes)
    if not passes:
        gaps.append("no pass")
    for field in ("counters", "executors", "finite_logits", "stability"):
        declared = set(getattr(spec, field))
        if declared != passes:
            gaps.append(f"{field} cover {sorted(declared)}, passes are {sorted(passes)}")
    for field in ("counters", "executors"):
        gaps += [f"{field}[{p}] is not callable" for p, fn in getattr(spec, field).items()
                 if not callable(fn)]
    gaps += [f"finite_logits[{p}] is not a bool" for p, v in spec.finite_logits.items()
             if not isinstance(v, bool)]
    gaps += [f"stability[{p}] is not one line of text" for p, v in spec.stability.items()
             if not isinstance(v, str) or not v or "\n" in v]
    for field in ("masked_counters", "selections", "labels"):
        extra = set(getattr(spec, field)) - passes
        if extra:
            gaps.append(f"{field} name passes it lacks: {sorted(extra)}")
    for names in spec.selections.values():
        gaps += [f"unknown selection {s!r}" for s in names if s not in SELECTIONS]
    if spec.block_rule.kind not in ("square", "flash", "fused", "resident", "split", "lean"):
        gaps.append(f"block rule {spec.block_rule.kind!r}")
    if spec.backward_computation not in COMPUTATIONS:
        gaps.append(f"computation {spec.backward_computation!r}")
    if spec.colour is not None and not re.fullmatch(r"#[0-9a-f]{6}", spec.colour):
        gaps.append(f"colour {spec.colour!r}")
    return gaps


def execution_mismatch(spec: AlgorithmSpec, pass_: str, n: int, d: int, M: int,
                       mask: Mask | None = None) -> str | None:
    """Run the record's executor at its block rule; None if the executed counts equal its
    closed form (and the numerics the reference), else what differs."""
    blocks = spec.block_sizes(pass_, n, d, M)
    counted = (spec.counter(pass_)(n, d, M) if mask is None
               else spec.masked_counter(pass_)(n, d, M, mask))
    mem = TwoLevelMemory(M)
    error = spec.executor(pass_)(mem, n, d, blocks, np.random.default_rng(7),
                                 None if mask is None else mask.array(n), 1.0)
    executed = (mem.reads, mem.writes, mem.flops, mem.peak_words)
    closed = (counted.reads, counted.writes, counted.flops, counted.peak_fast_words)
    if executed != closed:
        return f"executed {executed} != closed form {closed}"
    if not error <= 1e-10:
        return f"relative error {error}"
    return None


CASES = [(name, pass_) for name in REGISTRY for pass_ in get_algorithm(name).passes]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_record_declares_each_of_its_passes_once(name: str) -> None:
    spec = get_algorithm(name)
    assert declared_gaps(spec) == []
    assert spec.name == name and spec.description and label(name, spec.passes[0])


@pytest.mark.parametrize("name,pass_", CASES)
def test_bound_ids_exist_in_the_catalogue(name: str, pass_: str) -> None:
    bound = get_bound(get_algorithm(name).bound_id(pass_))
    assert bound.id == get_algorithm(name).bound_id(pass_)


@pytest.mark.parametrize("name,pass_", CASES)
def test_executed_counts_equal_the_closed_form(name: str, pass_: str) -> None:
    spec = get_algorithm(name)
    if spec.block_rule.variant == "published":  # its printed blocks overflow M: both refuse
        with pytest.raises(CacheOverflowError):
            spec.counter(pass_)(N, D, M)
        with pytest.raises(CacheOverflowError):
            execution_mismatch(dataclasses.replace(spec, counters={
                p: get_algorithm("flash1").counter(p) for p in spec.passes}), pass_, N, D, M)
        return
    assert execution_mismatch(spec, pass_, N, D, M) is None
    if pass_ in spec.masked_counters:
        assert execution_mismatch(spec, pass_, N, D, M, Mask.causal()) is None
        assert (spec.masked_counter(pass_)(N, D, M, Mask.full())
                == spec.counter(pass_)(N, D, M))


def test_false_twin_a_counter_of_another_algorithm_is_caught() -> None:
    flash1, flash2 = get_algorithm("flash1"), get_algorithm("flash2")
    twin = dataclasses.replace(flash1, counters=flash2.counters)
    assert declared_gaps(twin) == []  # well-formed, and yet wrong:
    assert execution_mismatch(twin, "backward", N, D, M) is not None


def test_false_twin_a_missing_executor_is_caught() -> None:
    spec = get_algorithm("standard")
    twin = dataclasses.replace(spec, executors={"forward": spec.executor("forward")})
    assert declared_gaps(twin) == ["executors cover ['forward'], passes are "
                                   "['backward', 'forward']"]


def test_false_twin_a_missing_stability_declaration_is_caught() -> None:
    spec = get_algorithm("flash2")
    twin = dataclasses.replace(spec, finite_logits={"forward": True},
                               stability={**spec.stability, "backward": ""})
    assert declared_gaps(twin) == ["finite_logits cover ['forward'], passes are "
                                   "['backward', 'forward']",
                                   "stability[backward] is not one line of text"]


def test_lookups_and_their_errors() -> None:
    assert algorithm_names() == tuple(REGISTRY)
    assert set(algorithm_names("forward")) | set(algorithm_names("backward")) == set(REGISTRY)
    for pass_ in PASSES:
        for name in SELECTIONS:
            assert set(selection(name, pass_)) <= set(algorithm_names(pass_))
    assert label("nope") == "nope" and colour("nope") is None
    with pytest.raises(InvalidInputError, match="unknown algorithm 'nope'"):
        get_algorithm("nope")
    with pytest.raises(InvalidInputError, match="has no forward pass"):
        get_algorithm("small-cache-dx").counter("forward")
    with pytest.raises(InvalidInputError, match="has no masked variant"):
        get_algorithm("small-cache-dx").masked_counter("backward")
    with pytest.raises(InvalidInputError, match="selection='nope'"):
        selection("nope", "forward")


# ---- 2. no second list ------------------------------------------------------------------
#: Files another room is rewriting to read the registry (issue 12, the reporting room);
#: each entry must still hold a list, else the test asks to drop it.
PENDING: set[str] = set()


def algorithm_lists(source: str, names: frozenset[str] | None = None) -> list[tuple[int, list[str]]]:
    """(line, names) of every tuple / list / set / dict literal holding ≥ 2 of ``names``
    (default: the registered names) as string constants, directly or in a tuple key
    (``{("flash1", "forward"): ...}``)."""
    names = frozenset(REGISTRY) if names is None else names
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            elements = [k for k in node.keys if k is not None] + list(node.values)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements = list(node.elts)
        else:
            continue
        hits = set()
        for element in elements:
            parts = element.elts if isinstance(element, ast.Tuple) else [element]
            hits |= {p.value for p in parts
                     if isinstance(p, ast.Constant) and isinstance(p.value, str)
                     and p.value in names}
        if len(hits) >= 2:
            found.append((node.lineno, sorted(hits)))
    return found


def _sources() -> list[Path]:
    skip = {"tests", "build", "dist", "node_modules", "__pycache__"}
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if any(part in skip or part.startswith(".") or part.endswith(".egg-info")
               for part in rel.parts[:-1]):
            continue
        if rel.as_posix() == "algorithms/registry.py":
            continue
        out.append(path)
    return out


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_no_second_list_of_algorithms_in_the_source_tree() -> None:
    sources = _sources()
    assert any(p.name == "simulation.py" for p in sources) and len(sources) > 50
    offenders, still_pending = [], set()
    for path in sources:
        rel = path.relative_to(ROOT).as_posix()
        hits = algorithm_lists(path.read_text(encoding="utf-8"))
        if rel in PENDING:
            if hits:
                still_pending.add(rel)
            continue
        offenders += [f"{rel}:{line}: {names}" for line, names in hits]
    assert offenders == [], ("lists of algorithms outside algorithms/registry.py (read "
                             "attnio.algorithms.registry instead):\n" + "\n".join(offenders))
    stale = PENDING - still_pending
    assert not stale, f"PENDING entries with no list left (remove them): {sorted(stale)}"


def test_false_twin_the_scanner_flags_a_planted_list() -> None:
    planted = ('"""Docstring naming flash1 and small-cache is prose, not a list."""\n'
               'ONE = "flash1"\n'
               'PAIR = count("flash1", "backward")\n'
               'MINE = ("flash1", "small-cache")\n'
               'KEYED = {("flash2", "forward"): 1, ("standard", "forward"): 2}\n')
    assert algorithm_lists(planted) == [(4, ["flash1", "small-cache"]),
                                        (5, ["flash2", "standard"])]
