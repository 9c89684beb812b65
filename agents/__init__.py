"""Baseline agents for Age of Summoners and their evaluation.

Every agent has ``act(obs, mask, state=None)`` (see ``agents.players.base``):

- ``RandomAgent``: uniform over legal actions.
- ``GreedyAgent``: hand-written heuristics (see its docstring).
- ``MonteCarloAgent``: determinised Monte-Carlo search on the batched engine.
- ``PolicyAgent``: a policy trained with ``train.py`` (needs the ``train`` extra).
- ``BotAgent``: a trained policy on numpy alone; ``make_agent("bot")`` is the shipped bot.
"""

from .players.base import Agent, BaseAgent, act_on_env, act_on_state
from .players.bot import BotAgent
from .players.greedy import GreedyAgent
from .players.mc import MonteCarloAgent
from .players.policy import PolicyAgent  # torch and sb3-contrib are imported only when a policy is built
from .players.random_agent import RandomAgent
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
