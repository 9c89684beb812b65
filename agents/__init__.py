"""Baseline agents for Age of Summoners and their evaluation.

Every agent has ``act(obs, mask, state=None)`` (see ``agents.base``):

- ``RandomAgent``: uniform over legal actions.
- ``GreedyAgent``: hand-written heuristics (see its docstring).
- ``MonteCarloAgent``: determinised Monte-Carlo search on the batched engine.
- ``PolicyAgent``: a policy trained with ``train.py`` (needs the ``train`` extra).
- ``BotAgent``: a trained policy on numpy alone; ``make_agent("bot")`` is the shipped bot.
"""

from .base import Agent, BaseAgent, act_on_env, act_on_state
from .bot import BotAgent
from .greedy import GreedyAgent
from .mc import MonteCarloAgent
from .policy import PolicyAgent  # torch and sb3-contrib are imported only when a policy is built
from .random_agent import RandomAgent
from .registry import make_agent

__all__ = [
    "Agent",
    "BaseAgent",
    "RandomAgent",
    "GreedyAgent",
    "MonteCarloAgent",
    "PolicyAgent",
    "BotAgent",
    "make_agent",
    "act_on_env",
    "act_on_state",
]
