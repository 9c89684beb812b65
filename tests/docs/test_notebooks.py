"""The notebooks are committed executed, and what they show is still what their code produces.

- Every code cell of every committed notebook has run, in order, without error; no path of the machine
  that ran it leaks into an output; a cell that draws shows its picture.
- Each notebook is executed again (small sizes, as ``python -m notebooks.execute`` runs it) and its
  outputs must match the committed ones in structure: cells, their types, the kinds of outputs.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

# The notebooks run on the default engine (their output names it); the differential tests compare the two
pytestmark = pytest.mark.one_backend

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("notebook_executor", ROOT / "notebooks" / "execute.py")
executor = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = executor  # dataclasses look their module up while the class is made
_spec.loader.exec_module(executor)

NOTEBOOKS = executor.notebooks()
#: What the committed outputs must not contain: paths of the machine that executed them.
MACHINE_PATHS = ("/work/", "/root/", "/home/", str(ROOT), tempfile.gettempdir().rstrip("/") + "/")
#: A call in a cell's source, and the picture its outputs must then hold.
DRAWS = {"plt.show()": "image/png", "SVG(": "image/svg+xml"}
FIX = "run python -m notebooks.execute"


def _code_cells(nb: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode]]:
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def _output_texts(output: dict) -> list[str]:
    """Every text an output holds: a stream's text, an error's traceback, a display's text mime types."""
    if output["output_type"] == "stream":
        return [output["text"]]
    if output["output_type"] == "error":
        return output.get("traceback", [])
    return [v for k, v in output.get("data", {}).items() if isinstance(v, str) and not k.startswith("image/png")]


def _mime_types(cell: nbformat.NotebookNode) -> set[str]:
    return {m for o in cell.outputs for m in o.get("data", {})}


def test_the_notebooks_are_numbered_in_order() -> None:
    """01..04, 05 (OpenSpiel), 06 (the Gymnasium/SB3 path, issue 32); later ones keep the numbering."""
    numbers = [p.name[:2] for p in NOTEBOOKS]
    assert numbers[:6] == ["01", "02", "03", "04", "05", "06"]
    assert numbers == [f"{i:02d}" for i in range(1, len(numbers) + 1)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_executed(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    cells = _code_cells(nb)
    counts = [c.execution_count for _, c in cells]
    assert counts == list(range(1, len(cells) + 1)), f"{path.name}: cells not executed in order ({counts}); {FIX}"
    for i, cell in cells:
        where = f"{path.name} cell {i}"
        assert all(o.output_type != "error" for o in cell.outputs), f"{where}: an error output"
        for text in (t for o in cell.outputs for t in _output_texts(o)):
            leaked = [p for p in MACHINE_PATHS if p in text]
            assert not leaked, f"{where}: the output shows a path of this machine {leaked}"
        for call, mime in DRAWS.items():
            if call in cell.source:
                assert mime in _mime_types(cell), f"{where}: calls {call} but shows no {mime}"


def test_the_quickstart_shows_the_table() -> None:
    nb = nbformat.read(ROOT / "notebooks" / "01_quickstart.ipynb", as_version=4)
    pictures = [i for i, c in _code_cells(nb) if "image/svg+xml" in _mime_types(c)]
    assert len(pictures) >= 2, "the state's own picture and render_svg's"


def test_volatile_metadata_is_left_out() -> None:
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        assert set(nb.metadata) == {"kernelspec", "language_info"}, path.name
        assert dict(nb.metadata.language_info) == {"name": "python"}, f"{path.name}: the kernel's Python version"
        for _, cell in _code_cells(nb):
            assert "execution" not in cell.metadata, f"{path.name}: execution timings"
            assert all("transient" not in o for o in cell.outputs), f"{path.name}: display ids"


def test_compare_names_the_notebook_and_cell() -> None:
    committed = nbformat.read(NOTEBOOKS[1], as_version=4)
    assert executor.compare(committed, copy.deepcopy(committed), "x.ipynb") == []
    i, cell = next((i, c) for i, c in _code_cells(committed) if "image/png" in _mime_types(c))

    fresh = copy.deepcopy(committed)
    fresh.cells[i].outputs = [o for o in fresh.cells[i].outputs if "image/png" not in o.get("data", {})]
    (m,) = executor.compare(committed, fresh, "x.ipynb")
    assert (m.notebook, m.cell) == ("x.ipynb", i) and "display_data[image/png,text/plain]" in m.message
    assert str(m).startswith(f"x.ipynb cell {i}: ")

    fresh = copy.deepcopy(committed)
    for o in fresh.cells[i].outputs:  # other text: still the same structure
        if o.output_type == "stream":
            o.text = "something else\n"
    assert executor.compare(committed, fresh, "x.ipynb") == []

    fresh = copy.deepcopy(committed)
    fresh.cells.append(nbformat.v4.new_markdown_cell("more"))
    (m,) = executor.compare(committed, fresh, "x.ipynb")
    assert m.cell is None and "cells committed" in m.message

    fresh = copy.deepcopy(committed)
    fresh.cells[0] = nbformat.v4.new_code_cell("pass")
    (m,) = executor.compare(committed, fresh, "x.ipynb")
    assert m.cell == 0 and "markdown" in m.message


def test_write_is_atomic_and_keeps_the_file(tmp_path: Path) -> None:
    target = tmp_path / "n.ipynb"
    target.write_text("previous", encoding="utf-8")
    target.chmod(0o644)
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    executor.write(nb, target)
    assert nbformat.read(target, as_version=4) == nb
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["n.ipynb"]  # no temporary file left


def test_bad_notebook_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        executor.main(["--check", "05_missing"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "'05_missing'" in err and "01_quickstart" in err
    with pytest.raises(SystemExit):
        executor.main(["--timeout", "0"])
    assert "--timeout" in capsys.readouterr().err


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_matches_the_committed_outputs(path: Path) -> None:
    fresh = executor.execute(path)  # raises CellExecutionError on any error
    mismatches = executor.compare(nbformat.read(path, as_version=4), fresh, path.name)
    assert not mismatches, "\n".join(map(str, mismatches)) + f"\nthe committed outputs are stale: {FIX}"


def test_a_failing_cell_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "01_fails.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("raise KeyError('boom')")]), path)
    before = path.read_bytes()
    monkeypatch.setattr(executor, "NOTEBOOK_DIR", tmp_path)
    assert executor.main(["01_fails"]) == 1
    assert "01_fails.ipynb: a cell failed, nothing written" in capsys.readouterr().err
    assert path.read_bytes() == before
