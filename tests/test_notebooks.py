"""Execute every notebook of notebooks/ (nbclient, kernel python3) and check how it is stored.

Each notebook is committed without outputs, states its parameters in its first code cell and
ends in asserts; executing it here is what makes those asserts part of the test suite.
Needs the ``notebooks`` extra (nbformat, nbclient, ipykernel; it brings ``plots``): skipped
without it, naming the extra, and failed in CI (conftest.py, marker ``extra``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import nbformat

pytestmark = pytest.mark.extra("notebooks", "plots")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = {"bounds_explorer.ipynb", "io_simulation.ipynb", "pebbling_sandwich.ipynb",
            "sparse_attention.ipynb", "hardware.ipynb"}
CELL_TIMEOUT_SECONDS = 60
#: Besides attnio, a notebook may import only these (for display and exact arithmetic).
STDLIB_ALLOWED = {"math", "fractions", "IPython"}


def _read(path: Path) -> nbformat.NotebookNode:
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    return notebook


def test_every_expected_notebook_exists() -> None:
    assert EXPECTED <= {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    notebook = _read(path)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: a code cell carries outputs; strip them before committing")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_states_parameters_first_and_ends_in_asserts(path: Path) -> None:
    code = [cell.source for cell in _read(path).cells if cell.cell_type == "code"]
    assert code, f"{path.name} has no code"
    assert "Parameters" in code[0] or "parameters" in code[0], (
        f"{path.name}: the first code cell must state the parameters")
    assert code[-1].count("assert ") >= 2, f"{path.name}: the last code cell must assert"
    imports = [line.split()[1].split(".")[0] for cell in code for line in cell.splitlines()
               if line.startswith(("import ", "from "))]
    assert set(imports) <= {"attnio"} | STDLIB_ALLOWED, (
        f"{path.name}: load-bearing imports must come from attnio, found {sorted(set(imports))}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_notebook_executes(path: Path, tmp_path: Path) -> None:
    from nbclient import NotebookClient

    notebook = _read(path)
    # Run in a scratch directory (a notebook that writes a file must not touch the checkout).
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_SECONDS, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the failing cell and its traceback
    # The executed copy is thrown away (the stored notebook stays output-free); the figures
    # were displayed as PNGs, so the drawing code ran in the kernel.
    images = [o for cell in notebook.cells if cell.cell_type == "code"
              for o in cell.outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name} displayed no figure"
    # no warning reaches the reader (tqdm's "IProgress not found" was one: attnio.progress)
    warnings = ["".join(o.get("text", "")) for cell in notebook.cells if cell.cell_type == "code"
                for o in cell.outputs if o.get("name") == "stderr"]
    assert warnings == [], f"{path.name} printed to stderr: {warnings}"
