"""RandomAgent: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from aos_env import core

from .base import BaseAgent, masked_argmax


class RandomAgent(BaseAgent):
    """Picks a legal action uniformly at random (seeded)."""

    name = "random"
    needs_obs = False  # only the mask matters

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        return masked_argmax(self.rng.random(mask.shape), mask)
