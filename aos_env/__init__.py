"""Age of Summoners for reinforcement learning.

The package has one subpackage per layer; each imports only from the layers below it
(``docs/architecture.md``):

- ``aos_env.base``: argument checks, atomic files, names, the registry of named agents;
- ``aos_env.core``: the batched rules engine (pgx-style ``init``/``step``/``observe``), compiled
  with numba, with a numpy reference that plays the same games; ``aos_env.cards`` is its card data
  (a public name of its own);
- ``aos_env.view``: text, SVG pictures and replays; ``aos_env.render_svg(state, game, seat)``;
- ``aos_env.tools``: ``positions`` (set up positions by hand), ``determinise``, ``docs``;
- ``aos_env.envs``: ``aos_env.env(...)`` / ``aos_env.raw_env(...)``, the PettingZoo AEC environment
  (``aos_env.age_of_summoners_v1`` is its versioned module; version 0 is gone and raises), and
  ``gymnasium.make("aos_env/AgeOfSummoners-v1", opponents="greedy")`` / ``gymnasium.make_vec(...)``,
  one learner seat against opponents (registered by ``import aos_env``);
- ``aos_env.integrations``: Stable-Baselines3, RLlib and ``aos_env.openspiel`` (the game for
  OpenSpiel; importing it registers it; needs open_spiel);
- ``aos_env.apps``: ``python -m aos_env.apps.play``, the browser and terminal play.

Importing ``aos_env`` or ``aos_env.core`` loads no env, picture, PettingZoo or torch: they load on
first use. The flat module paths before 0.4.0 (``aos_env.aec_env`` and the rest) are gone
(``CHANGELOG.md`` says where each moved); ``aos_env.cards`` and ``aos_env.openspiel`` stay.
"""

import importlib as _importlib

import gymnasium as _gymnasium

from .base.names import ENV_NAME, GYM_ENV_ID

#: The package's version, written here only (pyproject.toml reads it: ``[tool.setuptools.dynamic]``).
__version__ = "0.5.0"
if GYM_ENV_ID not in _gymnasium.registry:  # a second import (importlib.reload) must not register it twice
    _gymnasium.register(
        id=GYM_ENV_ID,
        entry_point="aos_env.envs.gym:AgeOfSummonersEnv",
        vector_entry_point="aos_env.envs.gym:AgeOfSummonersVectorEnv",
    )

#: names loaded on first use: name -> (module, attribute)
_LAZY = {
    "env": ("aos_env.envs.aec", "env"),
    "raw_env": ("aos_env.envs.aec", "raw_env"),
    "render_svg": ("aos_env.view.svg", "render_svg"),
}


def __getattr__(name: str):
    """``env``, ``raw_env`` and ``render_svg`` load on first use, so that ``import aos_env.core``
    loads neither PettingZoo nor the pictures."""
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(_importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'aos_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["env", "raw_env", "ENV_NAME", "GYM_ENV_ID", "render_svg", "__version__"]
