"""The env's version 0 (aos-env 0.2) is gone: importing this module raises.

Version 1 (aos-env 0.3) changed the rules (Nightmare and Homunculus became optional, which adds
two decisions and changes the observation), so an old version must not quietly play the new
rules. The error is PettingZoo's own ``DeprecatedEnv`` (an ``ImportError``), as its classic games
raise for a removed version. Use ``aos_env.age_of_summoners_v1``.
"""

from pettingzoo.utils.deprecated_module import DeprecatedEnv

raise DeprecatedEnv(
    "aos_env.age_of_summoners_v0 is removed: version 1 changed the rules (Nightmare and Homunculus "
    "are optional); use aos_env.age_of_summoners_v1 instead"
)
