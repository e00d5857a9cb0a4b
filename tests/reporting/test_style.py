"""attnio.reporting.style: the sweep of cache sizes, names and colours from the registry."""

from __future__ import annotations

from attnio.algorithms.registry import REGISTRY, colour, label
from attnio.reporting.style import algorithm_colour, algorithm_label, sweep_cache_sizes


def test_sweep_cache_sizes_spans_d_to_nd() -> None:
    sizes = sweep_cache_sizes(4096, 64)
    assert sizes[0] == 64 and sizes[-1] == 4096 * 64
    assert all(b == 2 * a for a, b in zip(sizes, sizes[1:]))
    assert all(isinstance(m, int) for m in sizes)


def test_names_and_colours_are_the_registry_s() -> None:
    for name, spec in REGISTRY.items():
        for pass_ in spec.passes:
            assert algorithm_label(name, pass_) == label(name, pass_)
        if spec.colour is not None:
            assert algorithm_colour(name, 3) == colour(name)
    assert algorithm_colour("a schedule name", 0) != algorithm_colour("a schedule name", 1)
