"""The training env inside MaskablePPO: env steps per second and the env's share of wall time."""

from __future__ import annotations

import time
from pathlib import Path

#: train.py, at the checkout's root (benchmarks/ is a folder of the checkout, not an installed package).
TRAIN_SCRIPT = Path(__file__).resolve().parent.parent / "train.py"


def train_module():
    """train.py's code as a module (its parser, defaults and helpers): ``agents.training``."""
    from agents import training

    return training


def sb3_env_share(timesteps: int, num_envs: int = 1024, seed: int = 0, shared_trunk: bool | None = None) -> dict:
    """Train MaskablePPO with train.py's defaults (its checked config and ``new_ppo``; greedy and
    random opponents) for ``timesteps`` and time the env's part. ``shared_trunk``: train.py's
    --shared-trunk (None: its default, on), False for the two networks of before."""
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import GreedyAgent, RandomAgent
    from agents.training.ppo import learner_env, new_ppo
    from aos_env.envs.opponents import OpponentPool

    train = train_module()
    c = train.check_config(train.TrainConfig(num_envs=num_envs, seed=seed, shared_trunk=shared_trunk))
    train.set_threads(c.threads)  # as train.py does: torch's and the engine's threads, by default the usable cores
    pool = OpponentPool({"greedy": (GreedyAgent(), 0.5), "random": (RandomAgent(seed=seed), 0.5)})
    venv = learner_env(c, pool, seed)
    spent = [0.0]

    def timed(method):
        def call(*args, **kwargs):
            t = time.perf_counter()
            out = method(*args, **kwargs)
            spent[0] += time.perf_counter() - t
            return out

        return call

    # the env's calls, timed on this instance (MaskablePPO reads the masks through env_method)
    for name in ("reset", "step_async", "step_wait", "action_masks", "env_method"):
        setattr(venv, name, timed(getattr(venv, name)))
    model = new_ppo(c, VecMonitor(venv), seed)
    spent[0] = 0.0
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    wall = time.perf_counter() - start
    return {
        "timesteps": model.num_timesteps,
        "wall_seconds": wall,
        "env_seconds": spent[0],
        "steps_per_second": model.num_timesteps / wall,
        "env_share": spent[0] / wall,
    }
