"""One game at a time: the median time of ``core.step`` and of ``core.observe`` for a batch of one.

Every PettingZoo-style workflow (an AEC env, search, a person playing) runs at this speed. Random
legal play; each call is timed alone (``perf_counter_ns``) and the median and 90th percentile of
many calls are reported, since single calls on a busy machine are noisy.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from aos_env import core


def one_game_times(players: int = 2, calls: int = 20_000, seed: int = 0, backend: str | None = None) -> dict:
    """Median / p90 microseconds of ``core.step`` and ``core.observe`` on a batch of one game."""
    rng = np.random.default_rng(seed)
    state = core.init(1, players, seed=seed, backend=backend)
    step_ns, obs_ns = [], []
    action = np.zeros(1, dtype=np.int64)
    for i in range(calls):
        legal = np.flatnonzero(state.legal_action_mask[0])
        action[0] = legal[rng.integers(legal.size)]
        t = time.perf_counter_ns()
        core.step(state, action)
        step_ns.append(time.perf_counter_ns() - t)
        p = int(state.current_player[0])
        t = time.perf_counter_ns()
        core.observe(state, p)
        obs_ns.append(time.perf_counter_ns() - t)
        if state.terminated[0] or state.truncated[0]:
            core.reset(state, [0], seed=seed + i + 1)

    def us(ns: list[int]) -> dict:
        return {"median_us": statistics.median(ns) / 1e3, "p90_us": float(np.percentile(ns, 90)) / 1e3}

    return {"step": us(step_ns), "observe": us(obs_ns), "calls": calls}
