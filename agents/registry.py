"""Agents by name: ``make_agent("greedy")``, ``make_agent("mc:rollouts=32")``, ``make_agent("runs/x/model.zip")``.

A spec is a name with optional ``key=value`` arguments after a colon, comma
separated: ``random``, ``greedy``, ``mc``, ``mc:rollouts=8,rollout_policy=random``.
A path to a ``.zip`` file loads a policy saved by ``train.py`` (PolicyAgent).
"""

from __future__ import annotations

from .base import BaseAgent
from .greedy import GreedyAgent
from .mc import MonteCarloAgent
from .policy import PolicyAgent
from .random_agent import RandomAgent

NAMES = ("random", "greedy", "mc")


def _value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"none": None, "true": True, "false": False}.get(text.lower(), text)


def make_agent(spec: str, seed: int | None = 0) -> BaseAgent:
    """Build an agent from a spec string (see the module docstring)."""
    if spec.endswith(".zip"):
        return PolicyAgent(spec, seed=seed)
    name, _, args = spec.partition(":")
    kwargs = {}
    for item in filter(None, args.split(",")):
        key, sep, val = item.partition("=")
        if not sep:
            raise ValueError(f"agent {spec!r}: arguments are key=value, got {item!r}")
        kwargs[key.strip()] = _value(val.strip())
    name = name.strip().lower()
    if name == "random":
        return RandomAgent(seed=seed, **kwargs)
    if name == "greedy":
        return GreedyAgent(seed=seed, **kwargs)
    if name == "mc":
        return MonteCarloAgent(seed=seed, **kwargs)
    raise ValueError(f"unknown agent {spec!r}: use one of {', '.join(NAMES)} or a path to a model .zip")
