"""Argument checks shared by every public entry point (placeholder; replaced by the full module)."""

from __future__ import annotations

import numpy as np

SEED_MAX = 2**63 - 1


def check_int(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an int in low..high (or >= low); ValueError naming ``name`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an int {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def check_seed(name: str, seed, count: int) -> np.ndarray:
    """(count,) int64 seeds from an int s (s, s+1, ...) or an integer array of shape (count,)."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        s = int(seed)
        if s < 0 or s + max(count, 1) - 1 > SEED_MAX:
            raise ValueError(f"{name} must be an int 0..{SEED_MAX - max(count, 1) + 1} for {count} games, got {s}")
        return np.int64(s) + np.arange(count, dtype=np.int64)
    arr = np.asarray(seed)
    if arr.shape != (count,) or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an int or an integer array of shape ({count},), got {seed!r}")
    if arr.size and (arr.min() < 0 or (arr.dtype == np.uint64 and arr.max() > SEED_MAX)):
        raise ValueError(f"{name} values must be 0..{SEED_MAX}")
    return arr.astype(np.int64)


def check_batch_memory(name: str, num_games: int, bytes_per_game: int, fraction: float = 0.5) -> None:
    """Refuse a batch that would need more than ``fraction`` of the machine's memory."""
    try:
        import os

        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    need = num_games * bytes_per_game
    if need > fraction * total:
        raise ValueError(f"{name}={num_games} would need {need / 2**30:.1f} GiB of state, more than "
                         f"{fraction:.0%} of this machine's {total / 2**30:.1f} GiB")
