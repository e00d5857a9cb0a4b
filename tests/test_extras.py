"""The optional extras (attnio/extras.py, issue 23 item 6): the table matches pyproject.toml,
attnio imports and runs its core without any extra, and a missing extra is one line, exit 2,
before any work, in every command that needs one."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import attnio.extras
from attnio.cli import main
from attnio.exceptions import InvalidInputError, MissingExtraError
from attnio.extras import CORE, EXTRAS, installed, missing, missing_core, require

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]


def _names(requirements: list[str]) -> set[str]:
    """Distribution names of requirement strings (``"dask[distributed]>=2024.1"`` → dask)."""
    out = set()
    for text in requirements:
        name = text.split(";")[0]
        for stop in "[<>=!~ ":
            name = name.split(stop)[0]
        out.add(name.lower())
    return out


def test_every_extra_of_the_table_is_an_extra_of_pyproject() -> None:
    assert set(EXTRAS) <= set(OPTIONAL)
    assert {"parallel", "fast", "plots", "notebooks", "dev", "test"} <= set(OPTIONAL)


def test_the_extras_bring_what_the_issue_asks() -> None:
    assert _names(OPTIONAL["parallel"]) == {"dask"} and "distributed" in OPTIONAL["parallel"][0]
    assert _names(OPTIONAL["fast"]) == {"numba"}
    assert _names(OPTIONAL["plots"]) == {"matplotlib", "markdown-it-py", "jinja2"}
    assert {"nbconvert", "nbclient", "nbformat", "ipykernel", "ipywidgets"} <= \
        _names(OPTIONAL["notebooks"])
    assert {"mypy", "ruff"} <= _names(OPTIONAL["dev"])


def test_the_core_and_the_quickstart_carry_no_extra() -> None:
    """The quickstart installs ``.[test]``: neither it nor the core may bring an extra back."""
    heavy = {"dask", "numba", "llvmlite", "matplotlib", "mypy", "ipykernel", "nbconvert"}
    assert not heavy & _names(PYPROJECT["project"]["dependencies"])
    assert not heavy & _names(OPTIONAL["test"])


def test_the_core_table_is_pyprojects_dependencies() -> None:
    assert set(CORE) == _names(PYPROJECT["project"]["dependencies"])
    assert missing_core() == []


def test_a_missing_core_dependency_is_named(monkeypatch) -> None:
    monkeypatch.setitem(attnio.extras.CORE, "no-such-dist", "no_such_module_attnio")
    assert missing_core() == ["no-such-dist"]


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_pytest_without_the_core_stops_in_one_line(tmp_path) -> None:
    """The planted case: a Python where tqdm cannot be found (a path entry shadows it)."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text(
        "import importlib.util as u\n_real = u.find_spec\n"
        "u.find_spec = lambda name, *a, **k: None if name == 'tqdm' else _real(name, *a, **k)\n")
    env = {**__import__("os").environ, "PYTHONPATH": f"{shadow}:{ROOT}"}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--co", str(ROOT / "tests" / "test_extras.py")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert out.returncode == 4, out.stdout[-800:] + out.stderr[-800:]
    assert "core dependencies are not installed" in out.stdout + out.stderr
    assert "(tqdm)" in out.stdout + out.stderr


def test_lower_bounds_only_no_caps() -> None:
    """Upper caps only where a known break exists (none today: pyproject.toml says so)."""
    every = PYPROJECT["project"]["dependencies"] + [r for reqs in OPTIONAL.values() for r in reqs]
    assert [r for r in every if "<" in r] == []
    assert all(">=" in r for r in PYPROJECT["project"]["dependencies"])


def test_one_source_for_the_version() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "attnio.__version__"}
    assert attnio.__version__ == "0.2.0"


def test_missing_and_require() -> None:
    assert missing("fast") in ([], ["numba"])
    assert installed("fast") == (missing("fast") == [])
    with pytest.raises(InvalidInputError, match="extra='gpu' is not one of"):
        missing("gpu")


def test_require_names_the_feature_the_modules_and_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(EXTRAS, "plots", ("attnio_no_such_matplotlib",))
    with pytest.raises(MissingExtraError) as info:
        require("plots", "--plot")
    message = str(info.value)
    assert "\n" not in message and message.startswith("--plot needs attnio_no_such_matplotlib")
    assert "install attnio[plots]" in message
    assert isinstance(info.value, ImportError) and info.value.name == "attnio_no_such_matplotlib"
    assert isinstance(info.value, InvalidInputError)  # the CLI's exit 2


@pytest.mark.parametrize("argv", [
    ["report", "{tmp}/report"],
    ["simulate", "--n", "64", "--d", "8", "--M", "64", "--plot", "{tmp}/io.png"],
    ["gap", "--n", "64", "--d", "8", "--M", "64", "--plot", "{tmp}/gap.png"],
])
def test_a_figure_without_matplotlib_is_exit_2_one_line_before_any_work(
        argv: list[str], tmp_path: Path, monkeypatch, capsys) -> None:
    """The same exit code everywhere (issue 24 found 1 in report, 2 in simulate): a missing
    extra is an input error — the command line asks for what this install cannot do."""
    monkeypatch.setitem(EXTRAS, "plots", ("attnio_no_such_matplotlib",))
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert "needs attnio_no_such_matplotlib" in captured.err
    assert "install attnio[plots]" in captured.err
    assert list(tmp_path.iterdir()) == []  # nothing written


#: Run in a fresh interpreter in which every module of every extra is missing.
_WITHOUT_EXTRAS = r"""
import sys
from attnio.extras import EXTRAS
blocked = {m for modules in EXTRAS.values() for m in modules} | {"llvmlite", "psutil"}
for name in blocked:
    sys.modules[name] = None  # `import name` now fails as for a package not installed
import importlib, pkgutil
import attnio
for info in pkgutil.walk_packages(attnio.__path__, prefix="attnio."):
    if info.name != "attnio.__main__":
        importlib.import_module(info.name)
from attnio.cli import main
print("verify", main(["verify", "--only", "sym.crossover.*"]), flush=True)
print("serial", main(["pebble", "--builtin", "matmul:1x1x1", "--M", "3"]), flush=True)
print("workers", main(["pebble", "--builtin", "matmul:2x2x2", "--M", "3", "--workers", "2"]),
      flush=True)
"""


@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_attnio_imports_and_runs_without_any_extra() -> None:
    """Every module of attnio imports, ``verify`` and a serial ``pebble`` run, and
    ``--workers`` is the one-line refusal, with none of the extras' modules importable."""
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_EXTRAS], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    codes = dict(line.split()[-2:] for line in proc.stdout.splitlines()
                 if line.split()[:1] and line.split()[0] in {"verify", "serial", "workers"})
    assert codes == {"verify": "0", "serial": "0", "workers": "2"}, proc.stdout[-2000:]
    refusal = [line for line in proc.stderr.splitlines() if "--workers" in line]
    assert refusal == ["attnio pebble: error: --workers needs dask, distributed (not "
                       "installed): install attnio[parallel] (pip install 'attnio[parallel]')"]
