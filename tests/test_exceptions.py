"""Every public error class of attnio lives in attnio/exceptions.py (issue 12, item 4)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import attnio
from attnio import exceptions
from attnio.exceptions import (
    CacheTooSmallError,
    InfeasibleError,
    InvalidInputError,
    TranslationError,
)


def _modules() -> list[str]:
    names = [i.name for i in pkgutil.walk_packages(attnio.__path__, prefix="attnio.")]
    for sub in ("symbolic", "graphs", "algorithms", "proofs"):
        pkg = importlib.import_module(f"attnio.{sub}")
        names += [i.name for i in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}.")]
    return sorted(set(names) - {"attnio.__main__"})


#: Modules that define their own error on purpose, with the reason.
STANDALONE = {"attnio.check": "the standalone certificate checker imports nothing from attnio "
                              "(`python -m attnio.check` checks files without the package)"}


def test_every_public_error_class_is_defined_in_exceptions() -> None:
    """Private control-flow signals (a leading underscore, caught inside their module, never
    raised to a caller) are allowed elsewhere; everything else is defined in exceptions.py
    (:data:`STANDALONE` excepted, each with its reason)."""
    strays = []
    for name in _modules():
        if name in STANDALONE:
            continue
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == name and name != "attnio.exceptions"
                    and not attr.startswith("_")):
                strays.append(f"{name}.{attr}")
    assert strays == []


def test_translation_error_is_re_exported_by_the_bridge() -> None:
    from attnio.smt import sympy_to_z3

    assert sympy_to_z3.TranslationError is TranslationError
    assert TranslationError.__module__ == "attnio.exceptions"
    assert issubclass(TranslationError, exceptions.AttnioError)


def test_cache_too_small_is_both_infeasible_and_bad_input() -> None:
    assert issubclass(CacheTooSmallError, InfeasibleError)
    assert issubclass(CacheTooSmallError, InvalidInputError)
    with pytest.raises(InfeasibleError):
        raise CacheTooSmallError("M=2 is too small for any square tile: needs M >= 4")
