"""The flat module paths from before 0.4.0 are gone in 0.5.0: each fails with ModuleNotFoundError
(the finder that kept them importing, ``aos_env._moved``, is removed). Two old names are public
API and stay as modules of their own: ``aos_env.cards`` (the card data) and ``aos_env.openspiel``
(importing it registers the OpenSpiel game). Version 0 of the env raises instead of playing the
version 1 rules, in PettingZoo and in Gymnasium."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
from pettingzoo.utils.deprecated_module import DeprecatedEnv

import aos_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.one_backend

#: the old paths removed in 0.5.0 -> where each module is now (CHANGELOG.md, 0.4.0)
REMOVED: dict[str, str] = {
    "aos_env.checks": "aos_env.base.checks",
    "aos_env.files": "aos_env.base.files",
    "aos_env.names": "aos_env.base.names",
    "aos_env.render": "aos_env.view.render",
    "aos_env.svg": "aos_env.view.svg",
    "aos_env.replay": "aos_env.view.replay",
    "aos_env.positions": "aos_env.tools.positions",
    "aos_env.determinise": "aos_env.tools.determinise",
    "aos_env.docs": "aos_env.tools.docs",
    "aos_env.aec_env": "aos_env.envs.aec",
    "aos_env.gym_env": "aos_env.envs.gym",
    "aos_env.learner_env": "aos_env.envs.learner",
    "aos_env.spaces": "aos_env.envs.spaces",
    "aos_env.sb3": "aos_env.integrations.sb3",
    "aos_env.rllib": "aos_env.integrations.rllib",
    "aos_env.play": "aos_env.apps.play",
    "aos_env.web": "aos_env.apps.web",
}
#: the old names that are public API, each a small module re-exporting its new path
PUBLIC = {"aos_env.cards": "aos_env.core.cards", "aos_env.openspiel": "aos_env.integrations.openspiel"}


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_an_old_path_no_longer_imports(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError, match=old):
        importlib.import_module(old)


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_an_old_path_is_no_attribute_of_the_package(old: str) -> None:
    name = old.rpartition(".")[2]
    with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
        getattr(aos_env, name)


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_the_new_path_imports(old: str) -> None:
    if old == "aos_env.rllib":
        pytest.importorskip("ray")
    assert importlib.import_module(REMOVED[old]).__name__ == REMOVED[old]


def test_from_an_old_path_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        exec("from aos_env.aec_env import raw_env", {})  # the statement a pre-0.4 script has
    with pytest.raises(ImportError):
        exec("from aos_env import checks", {})


def test_no_finder_of_old_paths_is_installed() -> None:
    assert not any(type(f).__module__.startswith("aos_env") for f in sys.meta_path)
    assert not (Path(aos_env.__file__).parent / "_moved.py").exists()


@pytest.mark.parametrize("old", sorted(PUBLIC))
def test_a_public_old_name_is_a_module_of_its_own(old: str) -> None:
    if old == "aos_env.openspiel":
        pytest.importorskip("pyspiel")
    new = importlib.import_module(PUBLIC[old])
    module = importlib.import_module(old)
    assert module is not new and module.__name__ == old
    assert module.__all__, f"{old} names what it re-exports"
    for name in module.__all__:
        assert getattr(module, name) is getattr(new, name), f"{old}.{name} is {PUBLIC[old]}.{name}"


def test_the_card_data_under_its_public_name() -> None:
    from aos_env.cards import DEFAULT, MAX_PER_COPY, load_cards
    from aos_env.core import cards

    assert DEFAULT is cards.DEFAULT and load_cards() is DEFAULT and MAX_PER_COPY == cards.MAX_PER_COPY


def test_importing_the_public_openspiel_module_registers_the_game() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import aos_env.openspiel

    assert aos_env.openspiel.GAME_NAME in pyspiel.registered_names()
    game = pyspiel.load_game(aos_env.openspiel.GAME_NAME, {"players": 3})
    assert isinstance(game, aos_env.openspiel.AgeOfSummonersGame) and game.num_players() == 3


@pytest.mark.parametrize(
    "statement",
    [
        "import aos_env.age_of_summoners_v0",
        "from aos_env import age_of_summoners_v0",
        "from aos_env.age_of_summoners_v0 import env",
    ],
)
def test_version_0_of_the_env_raises_and_names_version_1(statement: str) -> None:
    sys.modules.pop("aos_env.age_of_summoners_v0", None)
    with pytest.raises(DeprecatedEnv, match=r"use aos_env\.age_of_summoners_v1"):
        exec(statement, {})
    assert "aos_env.age_of_summoners_v0" not in sys.modules  # a failed import leaves nothing to play


def test_version_1_of_the_env_plays() -> None:
    from aos_env import age_of_summoners_v1

    env = age_of_summoners_v1.env(num_players=2)
    env.reset(seed=0)
    assert env.metadata["name"] == "age_of_summoners_v1" == aos_env.ENV_NAME
    env.close()


def test_the_gymnasium_v0_id_raises_and_names_v1() -> None:
    assert aos_env.GYM_ENV_ID == "aos_env/AgeOfSummoners-v1"
    assert "aos_env/AgeOfSummoners-v0" not in gymnasium.registry
    with pytest.warns(DeprecationWarning), pytest.raises(gymnasium.error.DeprecatedEnv, match="AgeOfSummoners-v1"):
        gymnasium.make("aos_env/AgeOfSummoners-v0")


def test_python_m_with_an_old_path_fails_and_the_new_one_runs() -> None:
    old = subprocess.run(
        [sys.executable, "-m", "aos_env.play", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert old.returncode != 0 and "No module named aos_env.play" in old.stderr
    new = subprocess.run(
        [sys.executable, "-m", "aos_env.apps.play", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert new.returncode == 0, new.stderr
    assert "python -m aos_env.apps.play" in new.stdout


def test_the_version_is_written_once() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "aos_env.__version__"}
    assert aos_env.__version__ == "0.5.0"
