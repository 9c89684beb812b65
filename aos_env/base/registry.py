"""Named agents, reached without importing the ``agents`` package.

The envs take opponents as agents (anything with ``act(obs, mask, state)``, the ``Opponent``
protocol) or as names (``"greedy"``, ``"bot"``, ``"runs/x/model.zip"``). The names are made by the
``agents`` package, which itself imports ``aos_env``: to keep the two packages out of a loop of
imports, ``aos_env`` names what it needs of ``agents`` as entry-point strings (``ENTRY_POINTS``),
loaded on first use. Another agent package can be plugged in with ``register``.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .checks import ArgumentError, check_string


@runtime_checkable
class Opponent(Protocol):
    """What the envs ask of an agent: one action per game, given observations, legal-action masks and
    (for agents with ``needs_state``) the engine state. ``agents.BaseAgent`` implements it."""

    def act(self, obs: np.ndarray, mask: np.ndarray, state: Any = None) -> np.ndarray: ...


#: what aos_env uses of the agents package: name -> "module:attribute"
ENTRY_POINTS: dict[str, str] = {
    "make_agent": "agents.registry:make_agent",  # spec -> agent
    "spec_help": "agents.registry:SPEC_HELP",  # the specs in a sentence, for --help
    "act_on_env": "agents.players.base:act_on_env",  # agent, AEC env -> the action of the player to move
    "bot_agent": "agents.players.bot:BotAgent",  # the numpy bot class (reads a bot file)
    "bot_meta": "agents.files.bot_file:bot_meta",  # num_players, activation, info -> a bot file's meta
    "bot_file_bytes": "agents.files.bot_file:bot_file_bytes",  # meta, arrays -> a bot file's bytes
}
_loaded: dict[str, Any] = {}


def register(name: str, target: str) -> None:
    """Point ``name`` at ``"module:attribute"`` (for example another package's ``make_agent``)."""
    check_string("name", name)
    check_string("target", target)
    if target.count(":") != 1 or not all(target.split(":")):
        raise ArgumentError(f"target must be 'module:attribute', got {target!r}")
    ENTRY_POINTS[name] = target
    _loaded.pop(name, None)


def load(name: str) -> Any:
    """The object ``ENTRY_POINTS[name]`` names, imported on first use."""
    if name not in _loaded:
        if name not in ENTRY_POINTS:
            raise ArgumentError(f"no entry point named {name!r}; known: {', '.join(sorted(ENTRY_POINTS))}")
        module, attr = ENTRY_POINTS[name].split(":")
        _loaded[name] = getattr(importlib.import_module(module), attr)
    return _loaded[name]


def make_agent(spec: str, **options: Any) -> Opponent:
    """The agent a spec names (``agents.make_agent``)."""
    return load("make_agent")(spec, **options)


def spec_help() -> str:
    """The agent specs in a sentence, for command-line help."""
    return load("spec_help")


def act_on_env(agent: Opponent, env: Any) -> int:
    """The action ``agent`` takes for the player to move in an AEC env."""
    return load("act_on_env")(agent, env)


__all__ = ["Opponent", "ENTRY_POINTS", "register", "load", "make_agent", "spec_help", "act_on_env"]
