"""Age of Summoners for reinforcement learning.

The package has one subpackage per layer; each imports only from the layers below it
(``docs/architecture.md``):

- ``aos_env.base``: argument checks, atomic files, names, the registry of named agents;
- ``aos_env.core``: the batched rules engine (pgx-style ``init``/``step``/``observe``), compiled
  with numba, with a numpy reference that plays the same games; ``aos_env.cards`` is its card data;
- ``aos_env.view``: text, SVG pictures and replays; ``aos_env.render_svg(state, game, seat)``;
- ``aos_env.tools``: ``positions`` (set up positions by hand), ``determinise``, ``docs``;
- ``aos_env.envs``: ``aos_env.env(...)`` / ``aos_env.raw_env(...)``, the PettingZoo AEC environment
  (``aos_env.age_of_summoners_v1`` is its versioned module), and
  ``gymnasium.make("aos_env/AgeOfSummoners-v1", opponents="greedy")`` / ``gymnasium.make_vec(...)``,
  one learner seat against opponents (registered by ``import aos_env``);
- ``aos_env.integrations``: Stable-Baselines3, RLlib and ``aos_env.openspiel`` (the game for
  OpenSpiel; importing it registers it; needs open_spiel);
- ``aos_env.apps``: ``python -m aos_env.apps.play``, the browser and terminal play.

Importing ``aos_env`` or ``aos_env.core`` loads no env, picture, PettingZoo or torch: they load on
first use. The module paths before 0.4.0 still import, with a ``DeprecationWarning`` (``_moved``).
"""

import importlib as _importlib
import sys as _sys

import gymnasium as _gymnasium

from . import _moved
from .base.names import ENV_NAME, GYM_ENV_ID

_moved.install()

__version__ = "0.4.1"
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
    loads neither PettingZoo nor the pictures; an old module path (``aos_env.cards``) too."""
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(_importlib.import_module(module), attr)
        globals()[name] = value
        return value
    old = f"{__name__}.{name}"
    if old in _moved.MOVED:  # the same module as the new path; warned here, so the warning names the caller
        if old not in _moved.PUBLIC:
            _moved.warn_moved(old, _moved.MOVED[old])
        module = _importlib.import_module(_moved.MOVED[old])
        _sys.modules.setdefault(old, module)
        globals()[name] = module  # asked once: ``from aos_env import checks`` looks twice
        return module
    raise AttributeError(f"module 'aos_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["env", "raw_env", "ENV_NAME", "GYM_ENV_ID", "render_svg", "__version__"]
