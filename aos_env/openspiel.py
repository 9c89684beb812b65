"""The game for OpenSpiel, under its public name: ``import aos_env.openspiel`` registers
``python_age_of_summoners`` with pyspiel (needs the ``openspiel`` extra). The game lives in
``aos_env.integrations.openspiel`` (its documentation is there); this module re-exports its public
names, the same objects."""

from .integrations.openspiel import (
    DEAL,
    DECISIONS_PER_TURN,
    DEFAULT_MAX_TURNS,
    DEFAULT_PLAYERS,
    DEFAULT_RNG_SEED,
    GAME_NAME,
    INFO_STATE_DIM,
    MAX_MAX_TURNS,
    MAX_PLAYERS,
    MAX_RNG_SEED,
    MIN_PLAYERS,
    ONE_OFF_DECISIONS,
    OWN_ACTIONS_SCALE,
    OWN_ACTIONS_SHAPE,
    TABULAR_GAME,
    AgeOfSummonersGame,
    AgeOfSummonersObserver,
    AgeOfSummonersState,
    full_text,
    game_info,
)

__all__ = [
    "DEAL",
    "DECISIONS_PER_TURN",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_PLAYERS",
    "DEFAULT_RNG_SEED",
    "GAME_NAME",
    "INFO_STATE_DIM",
    "MAX_MAX_TURNS",
    "MAX_PLAYERS",
    "MAX_RNG_SEED",
    "MIN_PLAYERS",
    "ONE_OFF_DECISIONS",
    "OWN_ACTIONS_SCALE",
    "OWN_ACTIONS_SHAPE",
    "TABULAR_GAME",
    "AgeOfSummonersGame",
    "AgeOfSummonersObserver",
    "AgeOfSummonersState",
    "full_text",
    "game_info",
]
