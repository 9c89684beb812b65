"""Age of Summoners for reinforcement learning.

- ``aos_env.core``: the batched numpy rules engine (pgx-style ``init``/``step``/``observe``).
- ``aos_env.env(...)`` / ``aos_env.raw_env(...)``: the PettingZoo AEC environment.
- ``aos_env.cards``: the card data; ``aos_env.positions``: set up positions by hand.
- ``aos_env.openspiel``: the game for OpenSpiel (importing it registers it; needs open_spiel).
- ``aos_env.render_svg(state, game, seat)``: a picture of the table; ``aos_env.replay``: replays.
"""

from .env import ENV_NAME, env, raw_env
from .svg import render_svg

__version__ = "0.2.0"
__all__ = ["env", "raw_env", "ENV_NAME", "render_svg", "__version__"]
