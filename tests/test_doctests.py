"""Run every docstring example of every attnio module, imported under its real name.

(`pytest --doctest-modules` would import `symbolic/x.py` as top-level `symbolic.x`, the very
name clash the namespace mapping avoids; so the doctests are collected here instead.)
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import attnio

SKIP = {"attnio.__main__"}


def _modules() -> list[str]:
    names = ["attnio"]
    for info in pkgutil.walk_packages(attnio.__path__, prefix="attnio."):
        if info.name not in SKIP:
            names.append(info.name)
    # Subpackages mapped from sibling folders are not under attnio.__path__: add them.
    for sub in ("symbolic", "graphs", "algorithms", "proofs", "reporting"):
        pkg = importlib.import_module(f"attnio.{sub}")
        names.append(pkg.__name__)
        names += [i.name for i in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}.")]
    return sorted(set(names))


MODULES = _modules()


def test_every_package_is_walked() -> None:
    assert {"attnio.results", "attnio.cli", "attnio.symbolic"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {name}"
