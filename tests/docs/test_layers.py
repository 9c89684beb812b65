"""The package's layers (docs/architecture.md): each subpackage of aos_env imports only from the
layers below it, aos_env imports nothing of the agents package, and importing the engine loads no
env, picture, PettingZoo or torch."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "aos_env"

#: subpackage -> its floor; a module may import from its own subpackage and from lower floors only
LAYERS = {"base": 0, "core": 1, "view": 2, "tools": 3, "envs": 3, "integrations": 4, "apps": 4}
#: the package's own top-level modules, which stand above every layer (they only re-export)
TOP = {"__init__", "age_of_summoners_v0", "age_of_summoners_v1", "cards", "openspiel"}

pytestmark = pytest.mark.one_backend


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, at any depth (function-level too)."""
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if node.module is None:  # from . import x: each x may be a module
                out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, name))
    return out


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "aos_env" and parts[1] in LAYERS else None


def _package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_sits_in_a_layer() -> None:
    loose = [
        str(p.relative_to(ROOT))
        for p in _package_files()
        if _layer(_module(p)) is None and p.parent == PACKAGE and p.stem not in TOP
    ]
    assert not loose, f"modules outside every layer: {loose}"


def test_imports_point_down() -> None:
    bad = []
    for path in _package_files():
        here = _layer(_module(path))
        if here is None:
            continue
        for line, target in _imports(path):
            there = _layer(target)
            if target == "aos_env" or (
                target.startswith("aos_env.") and there is None and target.split(".")[1] not in TOP
            ):
                continue  # the package itself (``from .. import core`` resolves to a layer above)
            if there is not None and there != here and LAYERS[there] >= LAYERS[here]:
                bad.append(f"{path.relative_to(ROOT)}:{line} ({here}) imports {target} ({there})")
            if target.split(".")[0] == "aos_env" and len(target.split(".")) > 1 and target.split(".")[1] in TOP:
                bad.append(f"{path.relative_to(ROOT)}:{line} ({here}) imports the top-level {target}")
    assert not bad, "imports that do not point down:\n" + "\n".join(bad)


def test_aos_env_imports_nothing_of_agents() -> None:
    bad = [
        f"{p.relative_to(ROOT)}:{line} imports {t}"
        for p in _package_files()
        for line, t in _imports(p)
        if t == "agents" or t.startswith("agents.")
    ]
    assert not bad, "aos_env reaches agents only through aos_env.base.registry:\n" + "\n".join(bad)


def test_the_engine_imports_no_wrapper_library() -> None:
    bad = [
        f"{p.relative_to(ROOT)}:{line} imports {t}"
        for p in sorted((PACKAGE / "core").rglob("*.py"))
        for line, t in _imports(p)
        if t.split(".")[0] in {"pettingzoo", "torch", "stable_baselines3", "ray", "pyspiel"}
    ]
    assert not bad, "\n".join(bad)


def _loaded_after(statement: str) -> list[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("statement", ["import aos_env.core", "import aos_env", "from aos_env import core"])
def test_importing_the_engine_loads_no_env_picture_or_trainer(statement: str) -> None:
    loaded = _loaded_after(statement)
    heavy = [
        m
        for m in loaded
        if m.split(".")[0] in {"pettingzoo", "torch", "agents", "stable_baselines3", "ray"}
        or (_layer(m) is not None and _layer(m) not in {"base", "core"})
    ]
    assert ("aos_env.core" in loaded) == ("core" in statement)
    assert not heavy, f"{statement} loads {heavy}"


def test_a_picture_of_a_state_loads_its_module_on_demand() -> None:
    loaded = _loaded_after(
        "from aos_env import core\ns = core.init(1, 2, seed=0, backend='numpy')\n"
        "assert s._repr_svg_().startswith('<svg')"
    )
    assert "aos_env.view.svg" in loaded and "pettingzoo" not in loaded


#: the longest an agents/ module may be: small rooms, each with one job
MAX_AGENT_MODULE_LINES = 400


def test_agents_modules_are_small_and_grouped_by_job() -> None:
    """agents/ is laid out by job (players, files, evaluation, training, league): no module at its top
    but the public door (``__init__``, ``registry``), and none longer than MAX_AGENT_MODULE_LINES."""
    agents = ROOT / "agents"
    top = sorted(p.stem for p in agents.glob("*.py"))
    assert top == ["__init__", "registry"], top
    long = {
        str(p.relative_to(ROOT)): n
        for p in agents.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_AGENT_MODULE_LINES
    }
    assert not long, f"modules over {MAX_AGENT_MODULE_LINES} lines: {long}"
