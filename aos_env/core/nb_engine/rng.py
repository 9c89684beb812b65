"""Per-game counter-based random numbers, the same stream as ``core/rng.py``.

The n-th random number of a game is ``mix(key + n * GOLDEN)`` (the SplitMix64 output
function): it depends only on the game's seed and on how many numbers it has used. All
arithmetic is uint64 and wraps, as intended.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@jit
def mix64(z):
    """SplitMix64 finaliser of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def seed_key(seed):
    """A game's key from its int64 seed (the same bits read as uint64)."""
    return mix64(np.uint64(seed) * _GOLDEN + _M2)


@jit
def raw(r, n):
    """Random number ``counter + n`` of the game in record ``r``, without using it up."""
    return mix64(r.rng_key + (r.rng_counter + np.uint64(n)) * _GOLDEN)


@jit
def scale(z, high):
    """A raw number -> a uniform integer in [0, high) (Lemire's multiply-high on the top 32 bits)."""
    return np.int64(((z >> _S32) * np.uint64(high)) >> _S32)


@jit
def randint(r, high):
    """One uniform integer in [0, high) for the game in record ``r``; uses up one number. high >= 1, < 2**31."""
    z = raw(r, 0)
    r.rng_counter += np.uint64(1)
    return scale(z, high)
