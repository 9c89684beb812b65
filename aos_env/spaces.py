"""The Gymnasium spaces of the game's observations, global state and action masks, shared by the
PettingZoo, Gymnasium and SB3 envs."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from . import core


def observation_box() -> spaces.Box:
    """The observation vector's space: 0 up to a bound per slice, 1 or unbounded (core.observation_bounds)."""
    low, high = core.observation_bounds()
    return spaces.Box(low, high, (core.OBS_DIM,), dtype=np.float32)


def state_box() -> spaces.Box:
    """The global state's space (``core.global_state``): counts and observations, 0 up."""
    return spaces.Box(0.0, np.inf, (core.STATE_DIM,), dtype=np.float32)


def mask_box() -> spaces.Box:
    """An action mask: 0 or 1 for each of the 44 actions, int8 (as PettingZoo's classic games)."""
    return spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8)
