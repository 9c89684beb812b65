"""Execute the notebooks and commit them with their outputs, or check that they still match.

Run from the repository root::

    python -m notebooks.execute                 # execute all notebooks, write them back with outputs
    python -m notebooks.execute 01_quickstart   # only the ones named
    python -m notebooks.execute --check         # re-execute in memory, compare with the files

Every notebook runs in a fresh kernel at its small size (``AOS_NOTEBOOK_SMALL=1``, the sizes its
parameters cell picks for a quick run), with the notebook's own fixed seeds, the repository's code
first on the kernel's path and matplotlib's inline backend at a fixed resolution, so a re-run
gives the same cells and the same kinds of outputs. What changes from run to run (timings,
kernel ids, Python's version) is left out of the written file, so its diff shows what the code
produces. ``--check`` compares structure, not text: the same cells of the same types and, per
code cell, the same kinds of outputs in the same order (a timing may differ, an image or table
must not appear or disappear).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbformat import NotebookNode

from aos_env.base.files import write_text

#: The folder of the notebooks (this file's own).
NOTEBOOK_DIR = Path(__file__).resolve().parent
#: The repository root: its code goes first on the kernel's path.
REPO_ROOT = NOTEBOOK_DIR.parent
#: The kernel the notebooks are written for.
KERNEL_NAME = "python3"
#: Seconds a single cell may run before the execution fails.
DEFAULT_TIMEOUT = 600
#: matplotlib's Jupyter backend: it renders with Agg (no display needed) and sends PNGs.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
#: Resolution of the PNG figures: readable, and small enough to commit.
FIGURE_DPI = 80
#: The environment the kernel runs in, on top of the caller's.
KERNEL_ENV = {
    "AOS_NOTEBOOK_SMALL": "1",  # the notebooks' quick sizes
    "MPLBACKEND": INLINE_BACKEND,
    "PYTHONHASHSEED": "0",  # set and dict orders, hence printed text, the same every run
    "TQDM_DISABLE": "1",  # progress bars are noise in a committed output
}
#: Left out of the kernel's environment: the notebooks run on the default engine whatever the caller
#: chose (the variable is aos_env.core.BACKEND_ENV; read here without importing the engine).
DROPPED_ENV = ("AOS_BACKEND",)
#: The notebook metadata kept (the rest, such as widget state, changes from run to run).
KEPT_NOTEBOOK_METADATA = ("kernelspec",)
#: The cell metadata left out (nbclient's execution timestamps).
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled")


@dataclass(frozen=True)
class Mismatch:
    """One difference in structure between a committed notebook and a fresh run."""

    notebook: str
    cell: int | None  # None: the notebook as a whole
    message: str

    def __str__(self) -> str:
        where = self.notebook if self.cell is None else f"{self.notebook} cell {self.cell}"
        return f"{where}: {self.message}"


def notebooks() -> list[Path]:
    """Every notebook of the folder, in order."""
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def resolve(names: list[str]) -> list[Path]:
    """The notebooks named (a stem such as ``01_quickstart``, a file name or a path); all if none."""
    available = notebooks()
    if not names:
        return available
    by_name = {p.stem: p for p in available} | {p.name: p for p in available}
    chosen = []
    for name in names:
        path = by_name.get(name) or by_name.get(Path(name).name)
        if path is None:
            allowed = ", ".join(p.stem for p in available)
            raise ValueError(f"notebook {name!r} not found in notebooks/; allowed: {allowed}")
        chosen.append(path)
    return chosen


def kernel_env(rc_dir: Path) -> dict[str, str]:
    """The kernel's environment: the caller's, the fixed settings, and this repository first on the path."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV} | KERNEL_ENV
    env["MATPLOTLIBRC"] = str(rc_dir)  # our rc file only: a user's matplotlibrc would change the figures
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    return env


def execute(path: Path, *, timeout: int = DEFAULT_TIMEOUT) -> NotebookNode:
    """Run ``path`` in a fresh kernel and return it with its outputs, normalised (the file is not touched).

    Raises nbclient's ``CellExecutionError`` on the first cell that fails.
    """
    if timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout}")
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="aos-notebook-") as rc_dir:
        (Path(rc_dir) / "matplotlibrc").write_text(f"figure.dpi: {FIGURE_DPI}\n", encoding="utf-8")
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name=KERNEL_NAME,
            resources={"metadata": {"path": str(path.parent)}},  # the kernel starts in notebooks/
            record_timing=False,
            store_widget_state=False,
            coalesce_streams=True,  # one stdout and one stderr per cell, however the kernel flushed them
        )
        client.execute(env=kernel_env(Path(rc_dir)))
    return normalise(nb)


def normalise(nb: NotebookNode) -> NotebookNode:
    """Drop what changes from run to run: timings, widget state, the kernel's Python version."""
    language = nb.metadata.get("language_info", {}).get("name", "python")
    kept = {k: nb.metadata[k] for k in KEPT_NOTEBOOK_METADATA if k in nb.metadata}
    nb.metadata = nbformat.from_dict(kept | {"language_info": {"name": language}})
    for cell in nb.cells:
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        for output in cell.get("outputs", []):
            output.pop("transient", None)  # display ids of this kernel session
    return nb


def write(nb: NotebookNode, path: Path) -> None:
    """Write ``nb`` to ``path`` atomically (the project's ``write_text``: a temporary file, then a rename)."""
    nbformat.validate(nb)
    text = nbformat.writes(nb)
    write_text(path, text if text.endswith("\n") else text + "\n")  # nbformat.write ends the file so


def output_kind(output: dict[str, Any]) -> str:
    """What an output is, without its text: ``stream:stdout``, ``display_data[image/png,text/plain]``..."""
    kind = output["output_type"]
    if kind == "stream":
        return f"stream:{output['name']}"
    if kind == "error":
        return f"error:{output.get('ename', '?')}"
    return f"{kind}[{','.join(sorted(output.get('data', {})))}]"


def structure(nb: NotebookNode) -> list[tuple[str, tuple[str, ...]]]:
    """Per cell: its type and (code cells) the kinds of its outputs in order."""
    return [(c.cell_type, tuple(output_kind(o) for o in c.get("outputs", []))) for c in nb.cells]


def compare(committed: NotebookNode, fresh: NotebookNode, name: str) -> list[Mismatch]:
    """The differences in structure between a committed notebook and a fresh run of it (none: they match)."""
    old, new = structure(committed), structure(fresh)
    if len(old) != len(new):
        return [Mismatch(name, None, f"{len(old)} cells committed, {len(new)} in the fresh run")]
    found = []
    for i, ((old_type, old_out), (new_type, new_out)) in enumerate(zip(old, new, strict=True)):
        if old_type != new_type:
            found.append(Mismatch(name, i, f"a {old_type} cell committed, a {new_type} cell in the fresh run"))
        elif old_out != new_out:
            found.append(Mismatch(name, i, f"outputs committed {list(old_out)}, fresh run {list(new_out)}"))
    return found


def main(argv: list[str] | None = None) -> int:
    """The command line: execute and write, or ``--check``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m notebooks.execute",
        description="Execute the notebooks in fresh kernels at their small sizes (AOS_NOTEBOOK_SMALL=1) "
        "with fixed seeds, and write them back with their outputs (timings and kernel ids left out).",
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NOTEBOOK",
        help="notebooks to run, by stem (01_quickstart), file name or path; default: every notebook in notebooks/",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing: re-execute in memory and compare with the committed files in structure "
        "(cell count, cell types, the kinds of outputs of each code cell); exit 1 on a difference",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"seconds a single cell may run before the run fails (default {DEFAULT_TIMEOUT})",
    )
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error(f"--timeout must be a positive number of seconds, got {args.timeout}")
    try:
        paths = resolve(args.names)
    except ValueError as e:
        parser.error(str(e))
    failed = False
    for path in paths:
        start = time.perf_counter()
        try:
            fresh = execute(path, timeout=args.timeout)
        except CellExecutionError as e:  # the file stays as it was; the other notebooks still run
            print(f"{path.name}: a cell failed, nothing written:\n{e}", file=sys.stderr)
            failed = True
            continue
        except CellTimeoutError:
            print(
                f"{path.name}: a cell ran longer than --timeout {args.timeout} s, nothing written "
                "(give a larger --timeout)",
                file=sys.stderr,
            )
            failed = True
            continue
        except DeadKernelError as e:
            print(f"{path.name}: the kernel died ({str(e).splitlines()[0][:200]}), nothing written", file=sys.stderr)
            failed = True
            continue
        seconds = time.perf_counter() - start
        if args.check:
            mismatches = compare(nbformat.read(path, as_version=4), fresh, path.name)
            for m in mismatches:
                print(f"mismatch: {m}", file=sys.stderr)
            failed |= bool(mismatches)
            verdict = "differs" if mismatches else "matches"
            print(f"{path.name}: {verdict} ({seconds:.0f} s)")
        else:
            write(fresh, path)
            print(f"{path.name}: executed and written ({seconds:.0f} s)")
    if failed and args.check:
        print("the committed notebooks no longer match the code: run python -m notebooks.execute", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python -m notebooks.execute")
