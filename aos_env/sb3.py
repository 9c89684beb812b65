"""stable-baselines3 adapter: ``LearnerVecEnv`` wraps ``LearnerEnv`` as a ``VecEnv``.

Importing this module needs stable-baselines3 (the ``train`` extra);
``import aos_env`` alone does not.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from . import core
from .env import observation_box
from .learner_env import LearnerEnv


class LearnerVecEnv(VecEnv):
    """A ``VecEnv`` over the batched engine (no per-game Python env objects).

    ``action_masks()`` gives the legal actions for sb3-contrib's MaskablePPO.
    Finished games restart by themselves; their last observation is in
    ``infos[i]["terminal_observation"]``, with ``win``, ``score`` and
    ``episode`` for ``VecMonitor``.
    """

    def __init__(self, env: LearnerEnv) -> None:
        self.env = env
        super().__init__(env.num_envs, observation_box(), spaces.Discrete(core.NUM_ACTIONS))
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        return self.env.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        return self.env.step(self._actions)

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        idx = list(self._indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*args, **kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def seed(self, seed: int | None = None) -> list[int | None]:
        if seed is not None:
            self.env.seed(seed)
        return [seed for _ in range(self.num_envs)]
