"""The package layout tools can read (issue 12): the design card's top-level folders are
linked into ``attnio/`` (so a bare checkout, type checkers and ``pytest --doctest-modules`` see
the installed names), every package is installed, and the PEP 561 marker ships."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
MAPPED = {name: folder for name, folder in SETUPTOOLS["package-dir"].items() if name != "attnio"}


def _packages_under(folder: Path, name: str) -> set[str]:
    """Dotted names of the packages (folders with ``__init__.py``) under ``folder``; symlinked
    folders are not followed (they are the mapped folders, walked on their own)."""
    found = set()
    for here, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        if "__init__.py" in files:
            found.add(".".join([name, *Path(here).relative_to(folder).parts]))
    return found


def _packages_on_disk() -> set[str]:
    found = _packages_under(ROOT / "attnio", "attnio")
    for name, folder in MAPPED.items():
        found |= _packages_under(ROOT / folder, name)
    return found


@pytest.mark.parametrize("name", sorted(MAPPED))
def test_each_mapped_folder_is_linked_into_attnio(name: str) -> None:
    link = ROOT / "attnio" / name.removeprefix("attnio.")
    assert link.is_symlink(), f"{link} must be a symlink to ../{MAPPED[name]}"
    assert Path(link.readlink()) == Path("..") / MAPPED[name]   # relative: works in any clone


def _folder(name: str) -> Path:
    """The folder of a listed package: its longest package-dir prefix's folder, then the rest."""
    dirs = SETUPTOOLS["package-dir"]
    top = max((n for n in dirs if name == n or name.startswith(n + ".")), key=len)
    return ROOT / dirs[top] / Path(*name[len(top):].lstrip(".").split("."))


def _data_packages() -> set[str]:
    """The listed packages that are data folders (no ``__init__.py``): each holds no Python
    module and has its files declared in package-data."""
    found = set()
    for name in SETUPTOOLS["packages"]:
        folder = _folder(name)
        if folder.is_dir() and not (folder / "__init__.py").exists():
            assert not list(folder.glob("*.py")), f"{name} holds modules but no __init__.py"
            assert name in SETUPTOOLS["package-data"], f"{name}: its files are not declared"
            found.add(name)
    return found


def test_every_package_on_disk_is_installed() -> None:
    # `packages` is explicit: a subpackage missing from it would be left out of the wheel.
    on_disk = _packages_on_disk()
    assert {"attnio.graphs", "attnio.graphs.lower_bounds", "attnio.proofs"} <= on_disk
    data = _data_packages()  # data folders listed so setuptools installs them without a warning
    assert data == {"attnio.graphs.data.peer_dags"}
    assert on_disk | data == set(SETUPTOOLS["packages"])


def test_the_typing_marker_ships() -> None:
    assert (ROOT / "attnio" / "py.typed").is_file()
    assert "py.typed" in SETUPTOOLS["package-data"]["attnio"]


def test_a_bare_checkout_resolves_the_installed_names() -> None:
    # -S: no site-packages, so no editable-install finder; only the checkout on sys.path.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import importlib.util as u; "
            "print('\\n'.join(u.find_spec(f'attnio.{s}').origin for s in sys.argv[2:]))")
    subs = [name.removeprefix("attnio.") for name in sorted(MAPPED)]
    out = subprocess.run([sys.executable, "-S", "-c", code, str(ROOT), *subs],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    origins = [Path(line) for line in out.splitlines()]
    assert origins == [ROOT / "attnio" / s / "__init__.py" for s in subs]
    assert [p.resolve() for p in origins] == [ROOT / MAPPED[f"attnio.{s}"] / "__init__.py"
                                              for s in subs]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_the_doctests_are_collected_under_the_installed_names() -> None:
    ini = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in ini["addopts"] and "attnio" in ini["testpaths"]
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "attnio/graphs/lower_bounds"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    items = [line for line in out.splitlines() if "::" in line]
    assert items and all("::attnio.graphs.lower_bounds" in line for line in items), out[-2000:]
