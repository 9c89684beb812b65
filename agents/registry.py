"""Agents by name: ``make_agent("greedy")``, ``make_agent("mc:rollouts=32")``, ``make_agent("runs/x/model.zip")``.

A spec is a name with optional ``key=value`` options after a colon, comma
separated: ``random``, ``greedy``, ``mc``, ``mc:rollouts=8,rollout_policy=random``.
``bot`` is the shipped trained bot (BotAgent, numpy only), ``bot-v2`` the one shipped before it
(observation version 2, played through the version adapter of ``agents.players.bot``); ``search`` is Monte-Carlo
search on top of it (``SEARCH_DEFAULTS``: only the actions the bot gives a real chance are
searched, the bot plays the rollouts, its value network values where they stop, and its
log-probabilities break near-ties; 30 ms per decision on average on this project's 2-core
machine). A path to a ``.zip`` file loads a policy saved by ``train.py`` (PolicyAgent, needs torch; read by
``agents.files.model_file.load_policy``, which runs no code from the file), a path to an ``.npz`` bot file an
exported policy (BotAgent); both take options too: ``runs/x/model.zip:deterministic=false``.

Options are typed (see ``OPTIONS``): an int option takes only a whole number
(``rollouts=2.5`` is an error, not 2), ``none`` stands for None where an
option allows it, and a bool is ``true`` or ``false``. A bad spec raises
ValueError (FileNotFoundError for a missing model file) and builds nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aos_env.base.checks import ArgumentError, did_you_mean, parse_int_text

from .players.base import BaseAgent
from .players.bot import SHIPPED_V2, BotAgent
from .players.greedy import GreedyAgent
from .players.mc import MonteCarloAgent
from .players.policy import PolicyAgent
from .players.random_agent import RandomAgent

NAMES = ("random", "greedy", "mc", "bot", "bot-v2", "search")
#: Agent specs in a sentence, for command-line help (train.py, agents.evaluation.evaluate, aos_env.apps.play).
SPEC_HELP = (
    "random | greedy | mc | mc:rollouts=32,rollout_policy=random,max_rollout_turns=8,leaf_value=score "
    "| bot (the shipped trained bot) | bot-v2 (the previous shipped bot, observation version 2) "
    "| search (MC search guided by the bot; search:rollouts=32) "
    "| path/to/model.zip (a policy saved by train.py; path/to/model.zip:deterministic=false samples "
    "from it) | path/to/bot.npz (a bot file written by python -m agents.files.export)"
)
MODEL_SUFFIX = ".zip"
BOT_SUFFIX = ".npz"


def _int(key: str, text: str) -> int:
    return parse_int_text(key, text)


def _optional_int(key: str, text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        return parse_int_text(key, text)
    except ArgumentError:
        raise ArgumentError(f"{key} must be an int or none, got {text!r}") from None


def _optional_float(key: str, text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise ArgumentError(f"{key} must be a number or none, got {text!r}") from None


def _bool(key: str, text: str) -> bool:
    value = {"true": True, "false": False}.get(text.lower())
    if value is None:
        raise ArgumentError(f"{key} must be true or false, got {text!r}")
    return value


def _text(key: str, text: str) -> str:
    if not text:
        raise ArgumentError(f"{key} must not be empty")
    return text


#: The options of each agent in a spec: name -> {option: parser of its text}. The constructor
#: then checks the parsed value's range (MonteCarloAgent: rollouts >= 1, ...).
OPTIONS: dict[str, dict[str, Callable[[str, str], Any]]] = {
    "random": {},
    "greedy": {},
    "mc": {
        "rollouts": _int,
        "rollout_policy": _text,
        "max_rollout_turns": _optional_int,
        "leaf_value": _text,
        "prior_weight": _optional_float,
    },
    "bot": {"deterministic": _bool},
    "bot-v2": {"deterministic": _bool},
    "search": {
        "rollouts": _int,
        "rollout_policy": _text,
        "max_rollout_turns": _optional_int,
        "leaf_value": _text,
        "prior_weight": _optional_float,
    },
    "model": {"deterministic": _bool, "device": _text},
    "bot file": {"deterministic": _bool},
}
#: The ``search`` preset: MonteCarloAgent's options, tuned for strength at well under a second
#: per decision (any of them can be overridden: ``search:rollouts=32``).
SEARCH_DEFAULTS: dict[str, Any] = {
    "rollouts": 64,
    "rollout_policy": "bot",
    "leaf_value": "bot",
    "max_rollout_turns": 8,
    "prior_weight": 0.1,
}


def _search(seed: int | None = 0, **options: Any) -> MonteCarloAgent:
    """MonteCarloAgent guided by the shipped bot (``SEARCH_DEFAULTS``, then ``options``)."""
    return MonteCarloAgent(seed=seed, **{**SEARCH_DEFAULTS, **options})


def _bot_v2(seed: int | None = 0, **options: Any) -> BotAgent:
    """The previous shipped bot (observation version 2), played through the version adapter."""
    bot = BotAgent(seed=seed, shipped=SHIPPED_V2, **options)
    bot.name = "bot-v2"
    return bot


_BUILD: dict[str, Callable[..., BaseAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mc": MonteCarloAgent,
    "bot": BotAgent,
    "bot-v2": _bot_v2,
    "search": _search,
}


def _split(spec: str) -> tuple[str, str, str | None]:
    """(name or file path, options text, the kind of file: "model", "bot file" or None)."""
    for suffix, kind in ((MODEL_SUFFIX, "model"), (BOT_SUFFIX, "bot file")):
        if spec.lower().endswith(suffix):
            return spec, "", kind
        i = spec.lower().rfind(suffix + ":")  # rfind: a Windows path has a colon of its own
        if i >= 0:
            return spec[: i + len(suffix)], spec[i + len(suffix) + 1 :], kind
    name, _, args = spec.partition(":")
    looks_like_path = "/" in name or os.sep in name
    return (name if looks_like_path else name.strip().lower()), args, ("model" if looks_like_path else None)


def spec_file(spec: str) -> str | None:
    """The file an agent spec names (a model ``.zip``, a bot file ``.npz`` or another path; its
    options left off), or None for a named agent such as ``greedy`` (the spec is not checked)."""
    name, _, kind = _split(spec.strip())
    return name if kind is not None else None


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mc:rollouts=8"`` -> ``("mc", {"rollouts": 8})``; a model path gives ``(path, options)``.

    Checks the name and every option's name and type (not the ranges: the
    agent's constructor does). Raises ValueError.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ArgumentError(
            f"an agent spec must be a non-empty string such as 'greedy' or 'mc:rollouts=8', got {spec!r}"
        )
    name, args, kind = _split(spec.strip())
    if kind is None and name not in _BUILD:
        raise ArgumentError(
            f"unknown agent {spec!r}: use one of {', '.join(NAMES)}, a path to a model "
            f"{MODEL_SUFFIX} or to a bot file {BOT_SUFFIX}{did_you_mean(name, NAMES)}"
        )
    allowed = OPTIONS[kind or name]
    kwargs: dict[str, Any] = {}
    for item in args.split(","):
        if not item.strip():
            continue  # "mc:" has no options; a trailing comma is harmless
        key, sep, text = (part.strip() for part in item.partition("="))
        if not sep or not key:
            raise ArgumentError(f"agent {spec!r}: options are key=value, comma separated, got {item!r}")
        if key not in allowed:
            what = f"a {kind}" if kind else f"agent {name!r}"
            options = f"its options are {', '.join(allowed)}" if allowed else "it takes no options"
            raise ArgumentError(f"agent {spec!r}: unknown option {key!r} for {what}; {options}")
        if key in kwargs:
            raise ArgumentError(f"agent {spec!r}: option {key!r} is given twice")
        try:
            kwargs[key] = allowed[key](key, text)
        except ArgumentError as e:
            raise ArgumentError(f"agent {spec!r}: {e}") from None
    return name, kwargs


def make_agent(spec: str, seed: int | None = 0) -> BaseAgent:
    """Build an agent from a spec string (see the module docstring).

    Raises ValueError naming the spec and the bad part (an unknown agent or
    option, a value of the wrong type or range, a file that is not a model
    of this env), FileNotFoundError for a missing model file.
    """
    name, kwargs = parse_spec(spec)
    build = _BUILD.get(name)
    try:
        if build is None and name.lower().endswith(BOT_SUFFIX):
            return BotAgent(name, seed=seed, **kwargs)
        if build is None:
            return PolicyAgent(name, seed=seed, **kwargs)
        return build(seed=seed, **kwargs)
    except FileNotFoundError as e:
        raise FileNotFoundError(f"agent {spec!r}: {e}") from None
    except ValueError as e:
        raise ArgumentError(f"agent {spec!r}: {e}") from None
