"""Lazy re-exports for the package inits: a command imports only what it uses.

A package ``__init__`` that star-imports every module of its room makes ``import
attnio.graphs.game`` pay for networkx, z3 and the exact engines, because Python runs the
package's ``__init__`` before any of its modules. :func:`lazy_exports` keeps the package's
public surface — ``from attnio.graphs import solve``, ``attnio.graphs.exact``, ``__all__``,
``dir()`` — and defers each import to the first use, with a module-level ``__getattr__``
(PEP 562; the standard library's own recipe: ``importlib.util.LazyLoader``'s documentation).

Usage, in a package ``__init__``::

    __getattr__, __dir__ = lazy_exports(__name__, ("dags", "game", "exact"))

    if TYPE_CHECKING:  # the type checker sees the names; the interpreter defers them
        from attnio.graphs.dags import *
        ...

A name is looked up in the modules' ``__all__`` in the order given (no name is exported by two
of them: ``tests/test_lazy.py`` checks), then among their
other public names; ``__all__`` is their concatenation.

>>> getattr_, dir_ = lazy_exports("attnio", ("results",))
>>> getattr_("Proved").__name__, "Proved" in dir_(), getattr_("results").__name__
('Proved', True, 'attnio.results')
>>> getattr_("no_such_name")
Traceback (most recent call last):
...
AttributeError: module 'attnio' has no attribute 'no_such_name'
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Callable

__all__ = ["lazy_exports"]


def lazy_exports(package: str, submodules: tuple[str, ...]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of package ``package`` re-exporting, on first use,
    the ``__all__`` of each of its ``submodules`` (names relative to the package).

    Parameters
    ----------
    package : str
        The package's dotted name (``__name__`` in its ``__init__``).
    submodules : tuple of str
        Its modules whose ``__all__`` it re-exports, in lookup order.

    Returns
    -------
    (getattr, dir)
        Assign them to the package's ``__getattr__`` and ``__dir__``. A name found is cached
        on the package, so each is resolved once.

    Raises
    ------
    AttributeError
        (from ``getattr``) a name no submodule exports, with Python's usual message.
    """

    def exported() -> list[str]:
        names: list[str] = []
        for sub in submodules:
            names.extend(n for n in _module(sub).__all__ if n not in names)
        return names

    def _module(sub: str) -> Any:
        return importlib.import_module(f"{package}.{sub}")

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            value: Any = exported()
        elif name.startswith("__"):  # __wrapped__, __test__, ...: asked by tools, never lazy
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        elif name in submodules or importlib.util.find_spec(f"{package}.{name}") is not None:
            value = _module(name)  # ``from package import module`` asks here first
        else:
            for sub in submodules:
                module = _module(sub)
                if name in module.__all__:
                    value = getattr(module, name)
                    break
            else:  # a public name a module imports without exporting it (a constant, say)
                found = [vars(m)[name] for m in map(_module, submodules)
                         if not name.startswith("_") and name in vars(m)]
                if not found:
                    raise AttributeError(f"module {package!r} has no attribute {name!r}")
                value = found[0]
        owner = sys.modules.get(package)
        if owner is not None:
            setattr(owner, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*exported(), *submodules, *vars(sys.modules[package])})

    return __getattr__, __dir__
