"""Age of Summoners for reinforcement learning.

- ``aos_env.core``: the batched rules engine (pgx-style ``init``/``step``/``observe``), compiled
  with numba, with a numpy reference that plays the same games.
- ``aos_env.env(...)`` / ``aos_env.raw_env(...)``: the PettingZoo AEC environment
  (``aos_env.aec_env``; ``aos_env.age_of_summoners_v1`` is its versioned module).
- ``gymnasium.make("aos_env/AgeOfSummoners-v1", opponents="greedy")`` / ``gymnasium.make_vec(...)``:
  one learner seat against opponents (``aos_env.gym_env``; registered by ``import aos_env``).
- ``aos_env.openspiel``: the game for OpenSpiel (importing it registers it; needs open_spiel).
- ``aos_env.cards``: the card data; ``aos_env.positions``: set up positions by hand.
- ``aos_env.render_svg(state, game, seat)``: a picture of the table; ``aos_env.replay``: replays.
"""

import gymnasium as _gymnasium

from .names import ENV_NAME, GYM_ENV_ID
from .svg import render_svg  # also makes core.State show itself as this picture in Jupyter

__version__ = "0.3.0"
if GYM_ENV_ID not in _gymnasium.registry:  # a second import (importlib.reload) must not register it twice
    _gymnasium.register(
        id=GYM_ENV_ID,
        entry_point="aos_env.gym_env:AgeOfSummonersEnv",
        vector_entry_point="aos_env.gym_env:AgeOfSummonersVectorEnv",
    )


def __getattr__(name: str):
    """``env`` and ``raw_env`` are loaded on first use, so that ``import aos_env.core`` does not load
    PettingZoo."""
    if name in ("env", "raw_env"):
        from . import aec_env

        globals().update(env=aec_env.env, raw_env=aec_env.raw_env)
        return globals()[name]
    raise AttributeError(f"module 'aos_env' has no attribute {name!r}")


__all__ = ["env", "raw_env", "ENV_NAME", "GYM_ENV_ID", "render_svg", "__version__"]
