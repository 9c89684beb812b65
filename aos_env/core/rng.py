"""Per-game counter-based random numbers, and SplitMix64 (the project's one copy of it).

Each game owns a 64-bit key (from its seed) and a counter. The n-th random
number of a game is ``mix64(key + n * GOLDEN)`` (the SplitMix64 output
function), so a game's random stream depends only on its own seed and on how
many numbers it has used: never on the batch size or on the other games.

``mix64`` is written once, here: the compiled engine compiles this very function
(``nb_engine/rng.py``), and other modules that need seed-only random numbers use
``splitmix64``.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

#: SplitMix64's increment (2**64 / the golden ratio) and its two multipliers.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))

U64 = npt.NDArray[np.uint64]
#: A uint64 array, or one uint64 (the compiled engine's scalar code).
_U = TypeVar("_U", U64, np.uint64)


def mix64(z: _U) -> _U:
    """SplitMix64 finaliser on a uint64 array, or on one uint64 (wrapping arithmetic is intended).
    Plain scalar code: the compiled engine compiles this function itself (``nb_engine.rng.mix64``)."""
    z = (z ^ (z >> _S30)) * M1
    z = (z ^ (z >> _S27)) * M2
    result: _U = z ^ (z >> _S31)
    return result


def splitmix64(x: U64) -> U64:
    """SplitMix64's output for states ``x`` (a uint64 array): ``mix64(x + GOLDEN)``, the number a
    SplitMix64 generator in state ``x`` returns next (wrapping arithmetic, no overflow warnings)."""
    with np.errstate(over="ignore"):
        return mix64(np.asarray(x, dtype=np.uint64) + GOLDEN)


def seed_keys(seeds: npt.NDArray[np.integer]) -> U64:
    """(B,) int seeds -> (B,) uint64 keys; nearby seeds give unrelated keys."""
    return mix64(seeds.astype(np.int64).view(np.uint64) * GOLDEN + M2)


def randint(key: U64, counter: U64, idx: npt.NDArray[np.int64], high: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """One uniform integer in ``[0, high[i])`` for each game ``idx[i]``.

    ``counter[idx]`` is advanced by one. ``high`` must be >= 1 and < 2**31.
    """
    ctr = counter[idx]
    counter[idx] = ctr + np.uint64(1)
    return scale(mix64(key[idx] + ctr * GOLDEN), high)


def block(key: U64, counter: U64, idx: npt.NDArray[np.int64], n: int) -> U64:
    """The next ``n`` raw numbers of each game ``idx[i]``, (len(idx), n) uint64, without using them up.

    Number j of a game's block is the one ``randint`` would produce after j
    calls; the caller advances ``counter`` by how many it used.
    """
    ctr = counter[idx][:, None] + np.arange(n, dtype=np.uint64)[None, :]
    return mix64(key[idx][:, None] + ctr * GOLDEN)


def scale(z: U64, high: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """Raw numbers -> uniform integers in [0, high) (Lemire's multiply-high: the top 32 bits
    times high, shifted back down)."""
    result: np.ndarray = (((z >> _S32) * high.astype(np.uint64)) >> _S32).astype(np.int64)
    return result
