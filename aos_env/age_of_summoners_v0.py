"""Deprecated: the env's version 0 (aos-env 0.2) is gone; this module gives version 1.

Version 1 (aos-env 0.3) changed the rules: Nightmare and Homunculus became optional, which adds
two decisions and changes the observation (``core.OBS_VERSION`` 3). Import
``aos_env.age_of_summoners_v1`` instead.
"""

import warnings

from .envs.aec import ClassicWrapper, env, raw_env

warnings.warn(
    "aos_env.age_of_summoners_v0 is deprecated: the rules changed in version 1 (Nightmare and "
    "Homunculus are optional); use aos_env.age_of_summoners_v1",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["env", "raw_env", "ClassicWrapper"]
