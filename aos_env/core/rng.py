"""Per-game counter-based random numbers.

Each game owns a 64-bit key (from its seed) and a counter. The n-th random
number of a game is ``mix(key + n * GOLDEN)`` (the SplitMix64 output
function), so a game's random stream depends only on its own seed and on how
many numbers it has used: never on the batch size or on the other games.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on a uint64 array (wrapping arithmetic is intended)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def seed_keys(seeds: np.ndarray) -> np.ndarray:
    """(B,) int seeds -> (B,) uint64 keys; nearby seeds give unrelated keys."""
    return mix64(seeds.astype(np.int64).view(np.uint64) * _GOLDEN + _M2)


def randint(key: np.ndarray, counter: np.ndarray, idx: np.ndarray, high: np.ndarray) -> np.ndarray:
    """One uniform integer in ``[0, high[i])`` for each game ``idx[i]``.

    ``counter[idx]`` is advanced by one. ``high`` must be >= 1 and < 2**31.
    """
    ctr = counter[idx]
    counter[idx] = ctr + np.uint64(1)
    return scale(mix64(key[idx] + ctr * _GOLDEN), high)


def block(key: np.ndarray, counter: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
    """The next ``n`` raw numbers of each game ``idx[i]``, (len(idx), n) uint64, without using them up.

    Number j of a game's block is the one ``randint`` would produce after j
    calls; the caller advances ``counter`` by how many it used.
    """
    ctr = counter[idx][:, None] + np.arange(n, dtype=np.uint64)[None, :]
    return mix64(key[idx][:, None] + ctr * _GOLDEN)


def scale(z: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Raw numbers -> uniform integers in [0, high) (Lemire's multiply-high: the top 32 bits
    times high, shifted back down)."""
    return (((z >> _S32) * high.astype(np.uint64)) >> _S32).astype(np.int64)
