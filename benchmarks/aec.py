"""Steps per second of a PettingZoo AEC env under random legal play (ours and PettingZoo's classics).

Each step is ``env.last()`` (the observation with its action mask) plus
``env.step(action)`` for the acting agent, as in PettingZoo's own
performance benchmark; games are reset when they end.
"""

from __future__ import annotations

import time

import numpy as np


def aec_steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
        env.reset(seed=int(rng.integers(2**31)))
    return steps / (time.perf_counter() - start)


def ours(num_players: int = 2, raw: bool = False, backend: str | None = None):
    """Our AEC env factory: ``aos_env.env()`` (with the classic wrappers' behaviour) or ``raw_env()``."""
    import aos_env

    make = aos_env.raw_env if raw else aos_env.env
    return lambda: make(num_players=num_players, backend=backend)


def pettingzoo_classic(name: str, raw: bool = False):
    """A PettingZoo classic env factory, e.g. ``pettingzoo_classic("leduc_holdem_v4")``; ``raw``:
    the env without PettingZoo's wrappers."""
    import importlib
    import warnings

    warnings.filterwarnings("ignore")
    module = importlib.import_module(f"pettingzoo.classic.{name}")
    return (lambda: module.raw_env()) if raw else (lambda: module.env())
