"""Per-game counter-based random numbers, the same stream as ``core/rng.py``.

The n-th random number of a game is ``mix64(key + n * GOLDEN)`` (the SplitMix64 output
function): it depends only on the game's seed and on how many numbers it has used. All
arithmetic is uint64 and wraps, as intended. ``mix64`` is ``core.rng.mix64`` itself, compiled;
the functions here are the scalar twins of that module's array functions (a test compares them
bit for bit).
"""

from __future__ import annotations

import numpy as np

from .. import rng as _rng
from ._jit import Record, jit

_GOLDEN, _M2 = _rng.GOLDEN, _rng.M2
_S32 = np.uint64(32)

#: The SplitMix64 finaliser of a uint64: the numpy reference's own function, compiled.
mix64 = jit(_rng.mix64)


@jit
def seed_key(seed: int) -> np.uint64:
    """A game's key from its int64 seed (the same bits read as uint64): ``core.rng.seed_keys``."""
    return mix64(np.uint64(seed) * _GOLDEN + _M2)


@jit
def raw(r: Record, n: int) -> np.uint64:
    """Random number ``counter + n`` of the game in record ``r``, without using it up: ``core.rng.block``."""
    return mix64(r.rng_key + (r.rng_counter + np.uint64(n)) * _GOLDEN)


@jit
def scale(z: np.uint64, high: int) -> np.int64:
    """A raw number -> a uniform integer in [0, high) (Lemire's multiply-high on the top 32 bits):
    ``core.rng.scale``."""
    return np.int64(((z >> _S32) * np.uint64(high)) >> _S32)


@jit
def randint(r: Record, high: int) -> np.int64:
    """One uniform integer in [0, high) for the game in record ``r``; uses up one number. high >= 1, < 2**31."""
    z = raw(r, 0)
    r.rng_counter += np.uint64(1)
    return scale(z, high)
