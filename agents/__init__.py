"""Baseline agents for Age of Summoners and their evaluation.

Every agent has ``act(obs, mask, state=None)`` (see ``agents.base``):

- ``RandomAgent``: uniform over legal actions.
- ``GreedyAgent``: hand-written heuristics (see its docstring).
- ``MonteCarloAgent``: determinised Monte-Carlo search on the batched engine.
- ``PolicyAgent``: a policy trained with ``train.py`` (needs the ``train`` extra).
"""

from .base import Agent, BaseAgent, act_on_env, act_on_state
from .greedy import GreedyAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "BaseAgent", "RandomAgent", "GreedyAgent", "MonteCarloAgent", "PolicyAgent", "make_agent",
           "act_on_env", "act_on_state"]


def __getattr__(name):  # heavy or optional agents are imported on first use
    if name == "MonteCarloAgent":
        from .mc import MonteCarloAgent

        return MonteCarloAgent
    if name == "PolicyAgent":
        from .policy import PolicyAgent

        return PolicyAgent
    if name == "make_agent":
        from .registry import make_agent

        return make_agent
    raise AttributeError(name)
