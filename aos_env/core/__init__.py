"""``aos_env.core``: the batched, numpy-vectorised rules engine (pgx-style).

>>> from aos_env import core
>>> state = core.init(num_envs=8, num_players=3, seed=0)
>>> state = core.step(state, first_legal_actions)      # doctest: +SKIP
"""

from .constants import (
    ACT, ACTION_NAMES, MANA_BLACK, MANA_BLUE, MANA_GREEN, MANA_RED, MANA_YELLOW, NO, NUM_ACTIONS,
    NUM_DECISION_PHASES, OPTION_A, OPTION_B, STONE, TARGET_1, TARGET_2, TARGET_3, YES, Phase,
)
from .engine import DEFAULT_MAX_TURNS, describe_illegal, init, refresh, reset, step
from .observe import OBS_DIM, obs_slices, observe
from .scoring import final_scores
from .state import State

__all__ = [
    "init", "step", "observe", "refresh", "reset", "final_scores", "State", "Phase", "NUM_ACTIONS", "ACTION_NAMES",
    "DEFAULT_MAX_TURNS", "describe_illegal", "ACT", "MANA_BLACK", "MANA_GREEN", "MANA_RED", "MANA_YELLOW",
    "MANA_BLUE", "STONE", "OPTION_A", "OPTION_B", "YES", "NO", "TARGET_1", "TARGET_2", "TARGET_3",
    "NUM_DECISION_PHASES", "OBS_DIM", "obs_slices",
]
