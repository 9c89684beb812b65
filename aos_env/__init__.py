"""Age of Summoners for reinforcement learning.

- ``aos_env.core``: the batched numpy rules engine (pgx-style ``init``/``step``/``observe``).
- ``aos_env.env(...)`` / ``aos_env.raw_env(...)``: the PettingZoo AEC environment.
- ``aos_env.cards``: the card data; ``aos_env.positions``: set up positions by hand.
- ``aos_env.openspiel``: the game for OpenSpiel (importing it registers it; needs open_spiel).
- ``gymnasium.make("aos_env/AgeOfSummoners-v0", opponents="greedy")`` / ``gymnasium.make_vec(...)``:
  one learner seat against opponents (``aos_env.gym_env``; registered by ``import aos_env``).
- ``aos_env.render_svg(state, game, seat)``: a picture of the table; ``aos_env.replay``: replays.
"""

import gymnasium as _gymnasium

from .env import ENV_NAME, env, raw_env
from .svg import render_svg

GYM_ENV_ID = "aos_env/AgeOfSummoners-v0"
if GYM_ENV_ID not in _gymnasium.registry:  # a second import (importlib.reload) must not register it twice
    _gymnasium.register(
        id=GYM_ENV_ID,
        entry_point="aos_env.gym_env:AgeOfSummonersEnv",
        vector_entry_point="aos_env.gym_env:AgeOfSummonersVectorEnv",
    )

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "ENV_NAME", "GYM_ENV_ID", "render_svg", "__version__"]
