"""The versioned PettingZoo module, as PettingZoo's own games have them:
``from aos_env import age_of_summoners_v1; env = age_of_summoners_v1.env(num_players=3)``.
See ``aos_env.envs.aec`` for the environment's documentation."""

from .envs.aec import ClassicWrapper, env, raw_env

__all__ = ["env", "raw_env", "ClassicWrapper"]
