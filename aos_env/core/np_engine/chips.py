"""VP and faith chips (R1.4): unlimited and public; faith is capped at 10."""

from __future__ import annotations

import numpy as np

from ..constants import FAITH_CAP
from ..state import State


def gain_faith(state: State, g: np.ndarray, p: np.ndarray, n: int | np.ndarray) -> None:
    """Faith is capped at 10: any gain beyond is lost (R1.4)."""
    state.faith[g, p] = np.minimum(state.faith[g, p] + n, FAITH_CAP)
