"""The optional extras of attnio: which modules each brings, and one refusal when one is missing.

The core install (``pip install attnio``) is what ``attnio verify`` and every command need;
the features below come with an extra (``pip install 'attnio[parallel]'``, ...). pyproject.toml
lists each extra's distributions; this table lists the modules attnio imports from them, so
a feature can ask, before any work, whether its extra is installed — without importing it
(``importlib.util.find_spec`` reads the path only; dask or numba cost seconds to import).

=========== ============================ ==============================================
extra       modules                      features
=========== ============================ ==============================================
parallel    dask, distributed            ``--workers`` / ``--scheduler`` (a Dask cluster)
fast        numba                        the compiled exact-pebbling core (else the
                                         reference search runs: no refusal)
plots       matplotlib, markdown_it,     ``attnio report``, ``simulate/gap --plot``,
            jinja2                       the figure functions of :mod:`attnio.reporting`,
                                         the HTML report's rendering
notebooks   nbformat, nbclient,          running ``notebooks/`` (``jupyter nbconvert
            nbconvert, ipykernel,        --execute``); ipywidgets gives ``tqdm.auto`` its
            ipywidgets                   notebook bar
sat         pysat, dratify               ``--method sat``, ``attnio pebble --certify`` SAT
                                         proofs (python-sat) and their independent check
                                         (dratify)
dev         mypy, ruff                   the type checker and the linter (``.ci/run``)
=========== ============================ ==============================================

A missing extra is :class:`~attnio.exceptions.MissingExtraError` (an input error: the command
line asks for what this install cannot do), so every command exits 2 with one line, before
any work is printed.

>>> sorted(EXTRAS)
['dev', 'fast', 'notebooks', 'parallel', 'plots', 'sat']
>>> installed("parallel") in (True, False)
True
"""

from __future__ import annotations

import importlib.util

from attnio.exceptions import InvalidInputError, MissingExtraError

__all__ = ["CORE", "EXTRAS", "missing", "missing_core", "installed", "require"]

#: core dependency (pyproject.toml ``dependencies``) → the top-level module attnio imports.
CORE: dict[str, str] = {
    "sympy": "sympy", "z3-solver": "z3", "cvc5": "cvc5", "networkx": "networkx",
    "numpy": "numpy", "tqdm": "tqdm", "tabulate": "tabulate", "pydot": "pydot",
    "shtab": "shtab", "highspy": "highspy",
}

#: extra → the top-level modules attnio imports from its distributions.
EXTRAS: dict[str, tuple[str, ...]] = {
    "parallel": ("dask", "distributed"),
    "fast": ("numba",),
    "plots": ("matplotlib", "markdown_it", "jinja2"),
    "notebooks": ("nbformat", "nbclient", "nbconvert", "ipykernel", "ipywidgets"),
    "dev": ("mypy", "ruff"),
    "sat": ("pysat", "dratify"),
}


def _known(extra: str) -> tuple[str, ...]:
    if extra not in EXTRAS:
        raise InvalidInputError(f"extra={extra!r} is not one of {', '.join(sorted(EXTRAS))}")
    return EXTRAS[extra]


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (``[]``: the extra is installed).

    Nothing is imported: :func:`importlib.util.find_spec` only looks the name up.

    >>> missing("nonsense")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: extra='nonsense' is not one of dev, fast, notebooks, parallel, plots, sat
    """
    return [name for name in _known(extra) if importlib.util.find_spec(name) is None]


def missing_core() -> list[str]:
    """The core dependencies (distribution names) whose module cannot be found: ``[]`` when
    attnio is installed. Used by the test suite to refuse, in one line, a Python where attnio
    was never installed (instead of a hundred import errors)."""
    return [dist for dist, module in CORE.items() if importlib.util.find_spec(module) is None]


def installed(extra: str) -> bool:
    """True when every module of ``extra`` can be found."""
    return not missing(extra)


def require(extra: str, feature: str) -> None:
    """Return if ``extra`` is installed; else raise :class:`MissingExtraError` naming
    ``feature``, the missing modules and the install command.

    Raises
    ------
    MissingExtraError
        One line, e.g. ``--workers needs dask, distributed (not installed): install
        attnio[parallel] (pip install 'attnio[parallel]')``.

    Examples
    --------
    >>> import attnio.extras as extras
    >>> extras.EXTRAS["demo"] = ("no_such_module_attnio",)
    >>> require("demo", "--demo")
    Traceback (most recent call last):
    ...
    attnio.exceptions.MissingExtraError: --demo needs no_such_module_attnio (not installed): install attnio[demo] (pip install 'attnio[demo]')
    >>> del extras.EXTRAS["demo"]
    """
    absent = missing(extra)
    if absent:
        error = MissingExtraError(
            f"{feature} needs {', '.join(absent)} (not installed): install attnio[{extra}] "
            f"(pip install 'attnio[{extra}]')")
        error.name = absent[0]  # ImportError.name: the module that is missing
        raise error
