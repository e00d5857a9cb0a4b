"""Versions of attnio and the libraries whose answers a result depends on.

Every ``--json`` output carries :func:`provenance` under ``"attnio_version"`` and
``"versions"``, so a result can be reproduced with the same solver builds.

Examples
--------
>>> info = provenance()
>>> sorted(info) == ["attnio_version", "versions"]
True
>>> "sympy" in info["versions"] and "z3" in info["versions"]
True
"""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from typing import Any

__all__ = ["provenance", "library_versions"]

#: Library name shown -> distribution name on PyPI.
_LIBRARIES = {
    "sympy": "sympy",
    "z3": "z3-solver",
    "cvc5": "cvc5",
    "networkx": "networkx",
    "numpy": "numpy",
}


@lru_cache(maxsize=1)
def library_versions() -> dict[str, str | None]:
    """``{library: version or None when not installed}`` read from the installed metadata."""
    out: dict[str, str | None] = {}
    for shown, dist in _LIBRARIES.items():
        try:
            out[shown] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[shown] = None
    return out


def provenance() -> dict[str, Any]:
    """``{"attnio_version": ..., "versions": {library: version}}`` for JSON outputs."""
    from attnio import __version__

    return {"attnio_version": __version__, "versions": dict(library_versions())}
