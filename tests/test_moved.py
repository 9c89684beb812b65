"""The module paths before 0.4.0 still import (aos_env._moved): the same module object as the new
path, with a DeprecationWarning that names the new path; the stable public names without one; and
``python -m`` with an old path runs the moved command."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from aos_env._moved import MOVED, PUBLIC

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.one_backend

#: old paths whose new module needs an optional extra
_EXTRA = {"aos_env.openspiel": "pyspiel", "aos_env.rllib": "ray"}


def _importable(old: str) -> None:
    if old in _EXTRA:
        pytest.importorskip(_EXTRA[old])


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module(old: str) -> None:
    _importable(old)
    new = importlib.import_module(MOVED[old])
    _forget(old)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is new
    moved = [w for w in caught if issubclass(w.category, DeprecationWarning) and old in str(w.message)]
    if old in PUBLIC:
        assert not moved, f"{old} is a stable public name: no warning"
    else:
        assert len(moved) == 1 and MOVED[old] in str(moved[0].message)


def _forget(old: str) -> None:
    import aos_env

    sys.modules.pop(old, None)
    aos_env.__dict__.pop(old.rpartition(".")[2], None)


@pytest.mark.parametrize(
    "statement", ["import aos_env.checks", "from aos_env import checks", "from aos_env.checks import fail"]
)
def test_the_warning_points_at_the_importer(statement: str) -> None:
    _forget("aos_env.checks")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(statement, __file__, "exec"), {})
    (w,) = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert Path(w.filename).resolve() == Path(__file__).resolve()


def test_names_imported_from_an_old_path() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from aos_env.aec_env import raw_env
        from aos_env.positions import position
    from aos_env.envs.aec import raw_env as new_raw_env
    from aos_env.tools.positions import position as new_position

    assert raw_env is new_raw_env and position is new_position


def test_an_old_path_as_an_attribute_of_the_package() -> None:
    import aos_env

    assert aos_env.cards is importlib.import_module("aos_env.core.cards")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        aos_env.nothing  # noqa: B018


def test_other_names_are_left_to_the_other_finders() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("aos_env.no_such_module")


def test_python_m_with_an_old_path_runs_the_moved_command(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "aos_env.play", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert "python -m aos_env.apps.play" in run.stdout
    assert "DeprecationWarning" in run.stderr and "aos_env.apps.play" in run.stderr
