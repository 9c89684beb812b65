"""``aos_env.base.registry``: the envs reach named agents through entry-point strings, loaded on
first use, so that aos_env imports nothing of the agents package; another package can plug in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aos_env import core
from aos_env.base import registry
from aos_env.base.checks import ArgumentError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def restore_registry():
    saved, loaded = dict(registry.ENTRY_POINTS), dict(registry._loaded)
    yield
    registry.ENTRY_POINTS.clear()
    registry.ENTRY_POINTS.update(saved)
    registry._loaded.clear()
    registry._loaded.update(loaded)


def test_the_entry_points_name_what_agents_has() -> None:
    import agents
    import agents.files.bot_file
    import agents.registry

    assert registry.load("make_agent") is agents.make_agent
    assert registry.load("act_on_env") is agents.act_on_env
    assert registry.load("bot_agent") is agents.BotAgent
    assert registry.load("bot_meta") is agents.files.bot_file.bot_meta
    assert registry.load("bot_file_bytes") is agents.files.bot_file.bot_file_bytes
    assert registry.spec_help() == agents.registry.SPEC_HELP
    agent = registry.make_agent("greedy", seed=1)
    assert isinstance(agent, registry.Opponent) and isinstance(agent, agents.BaseAgent)


def test_an_opponent_is_anything_with_act() -> None:
    class First:
        def act(self, obs, mask, state=None):
            return np.argmax(mask, axis=1)

    assert isinstance(First(), registry.Opponent) and not isinstance(object(), registry.Opponent)
    from aos_env.envs.learner import LearnerEnv

    env = LearnerEnv(4, 2, opponents={"random": 1.0}, seed=0)
    env.opponents.add("first", First(), 1.0)
    assert "first" in env.opponents


def test_the_agents_package_loads_only_when_a_name_is_used() -> None:
    code = (
        "import sys\nimport aos_env, aos_env.envs.learner, aos_env.apps.play\n"
        "assert 'agents' not in sys.modules, 'agents loaded at import'\n"
        "from aos_env.envs.learner import LearnerEnv\n"
        "LearnerEnv(2, 2, opponents='greedy', seed=0)\n"
        "assert 'agents' in sys.modules\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr


def test_another_package_can_plug_in(restore_registry) -> None:
    made = []

    def make(spec, **options):
        made.append(spec)
        from agents import RandomAgent

        return RandomAgent(seed=options.get("seed"))

    sys.modules["fake_agents_pkg"] = type(sys)("fake_agents_pkg")
    sys.modules["fake_agents_pkg"].make = make
    try:
        registry.register("make_agent", "fake_agents_pkg:make")
        from aos_env.envs.learner import LearnerEnv

        LearnerEnv(2, 2, opponents="anything", seed=0)
        assert made == ["anything"]
    finally:
        del sys.modules["fake_agents_pkg"]


@pytest.mark.parametrize(
    "name, target, words",
    [
        ("", "a:b", "name"),
        ("x", "no_colon", "module:attribute"),
        ("x", "a:b:c", "module:attribute"),
        ("x", ":b", "module:attribute"),
        (3, "a:b", "name"),
        ("x", None, "target"),
    ],
)
def test_register_refuses_bad_entries(restore_registry, name, target, words: str) -> None:
    before = dict(registry.ENTRY_POINTS)
    with pytest.raises(ArgumentError, match=words):
        registry.register(name, target)
    assert registry.ENTRY_POINTS == before


def test_an_unknown_entry_point() -> None:
    with pytest.raises(ArgumentError, match="no entry point named 'nothing'.*make_agent"):
        registry.load("nothing")


def test_core_knows_nothing_of_the_registry() -> None:
    assert "registry" not in vars(core)


def test_spec_file_names_the_file_of_a_spec_and_nothing_for_a_named_agent() -> None:
    from agents.registry import spec_file

    assert spec_file("runs/x/model.zip:deterministic=false") == "runs/x/model.zip"
    assert spec_file("bot.npz") == "bot.npz" and spec_file("dir/any") == "dir/any"
    assert spec_file("greedy") is None and spec_file("mc:rollouts=8") is None and spec_file("bot-v2") is None
