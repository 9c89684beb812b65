"""``aos_env.core``: the batched rules engine (pgx-style ``init`` / ``step`` / ``observe``).

>>> from aos_env import core
>>> state = core.init(num_envs=8, num_players=3, seed=0)           # numba by default
>>> state = core.step(state, first_legal_actions)                    # doctest: +SKIP
>>> ref = core.init(num_envs=8, num_players=3, seed=0, backend="numpy")   # the same games

``game_handle(state, game)`` is the one-game path (the AEC env's): its ``step`` / ``observe`` play
one game of a batch with the state and the game checked once; ``step_game`` / ``observe_game`` are
the same for one call.

Two engines play exactly the same games: ``nb_engine`` (compiled with numba, the default) and
``np_engine`` (numpy-vectorised, the readable reference). ``docs/api.md`` describes the API.
"""

from .api import (
    BACKEND_ENV,
    PEAK_BYTES_PER_GAME,
    GameHandle,
    StepReport,
    default_backend,
    describe_illegal,
    final_scores,
    game_handle,
    global_state,
    init,
    observe,
    observe_game,
    refresh,
    reset,
    resolve_backend,
    score_lead,
    step,
    step_game,
    truncate,
    winners,
)
from .constants import (
    ACT,
    ACTION_NAMES,
    DEFAULT_MAX_TURNS,
    MANA_BLACK,
    MANA_BLUE,
    MANA_GREEN,
    MANA_RED,
    MANA_YELLOW,
    NO,
    NUM_ACTIONS,
    OPTION_A,
    OPTION_B,
    STONE,
    TARGET_1,
    TARGET_2,
    TARGET_3,
    YES,
)
from .obs_layout import OBS_DIM, OBS_VERSION, STATE_DIM, obs_slices, obs_value, observation_bounds
from .phases import NUM_DECISION_PHASES, OBS_PHASES, PHASES, Phase
from .state import BACKENDS, FIELD_NAMES, PUBLIC_FIELDS, State, bytes_per_game

__all__ = [
    "init",
    "step",
    "observe",
    "step_game",
    "observe_game",
    "StepReport",
    "game_handle",
    "GameHandle",
    "resolve_backend",
    "refresh",
    "reset",
    "final_scores",
    "winners",
    "score_lead",
    "truncate",
    "State",
    "Phase",
    "PHASES",
    "OBS_PHASES",
    "NUM_ACTIONS",
    "ACTION_NAMES",
    "DEFAULT_MAX_TURNS",
    "describe_illegal",
    "ACT",
    "MANA_BLACK",
    "MANA_GREEN",
    "MANA_RED",
    "MANA_YELLOW",
    "MANA_BLUE",
    "STONE",
    "OPTION_A",
    "OPTION_B",
    "YES",
    "NO",
    "TARGET_1",
    "TARGET_2",
    "TARGET_3",
    "NUM_DECISION_PHASES",
    "OBS_DIM",
    "OBS_VERSION",
    "obs_slices",
    "obs_value",
    "observation_bounds",
    "BACKENDS",
    "BACKEND_ENV",
    "default_backend",
    "FIELD_NAMES",
    "PUBLIC_FIELDS",
    "bytes_per_game",
    "PEAK_BYTES_PER_GAME",
    "global_state",
    "STATE_DIM",
]
