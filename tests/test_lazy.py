"""attnio/lazy.py: the lazy package inits keep the eager surface (issue 40, item 6)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from attnio.lazy import lazy_exports

#: The lazy packages and the modules whose ``__all__`` each re-exports.
LAZY = ["attnio.graphs", "attnio.symbolic", "attnio.algorithms", "attnio.graphs.lower_bounds"]


@pytest.mark.parametrize("package", LAZY)
def test_every_exported_name_resolves_once_to_its_module_object(package: str) -> None:
    pkg = importlib.import_module(package)
    names = pkg.__all__
    assert len(names) == len(set(names)), "a name exported by two modules"
    for name in names:
        assert getattr(pkg, name) is not None
    assert set(names) <= set(dir(pkg))


def test_star_import_and_submodule_access() -> None:
    namespace: dict[str, object] = {}
    exec("from attnio.symbolic import *", namespace)
    assert "crossover" in namespace and "get_bound" in namespace
    import attnio.symbolic
    assert attnio.symbolic.crossovers.__name__ == "attnio.symbolic.crossovers"


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    getattr_, _ = lazy_exports("attnio", ("results",))
    with pytest.raises(AttributeError, match="'attnio' has no attribute 'nothing_here'"):
        getattr_("nothing_here")
    with pytest.raises(AttributeError):
        getattr_("__wrapped__")  # tools probe dunders: never a lazy import


def test_importing_one_module_of_a_room_imports_not_the_room() -> None:
    program = ("import sys\nimport attnio.graphs.lower_bounds.explicit\n"
               "import attnio.symbolic.catalogue\n"
               "print(sorted(m for m in ('networkx', 'z3', 'attnio.graphs.exact', "
               "'attnio.graphs.lower_bounds.combined', 'attnio.symbolic.checks') "
               "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
