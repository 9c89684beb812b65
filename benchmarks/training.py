"""The training env inside MaskablePPO: env steps per second and the env's share of wall time."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

#: train.py, at the checkout's root (benchmarks/ is a folder of the checkout, not an installed package).
TRAIN_SCRIPT = Path(__file__).resolve().parent.parent / "train.py"


def train_module():
    """train.py's code as a module (its parser, defaults and helpers): ``agents.training``."""
    from agents import training

    return training


def _train_defaults() -> argparse.Namespace:
    """``python train.py``'s default settings."""
    return train_module().build_parser().parse_args([])


def sb3_env_share(timesteps: int, num_envs: int = 1024, seed: int = 0) -> dict:
    """Train MaskablePPO with train.py's defaults (greedy and random opponents) for ``timesteps``
    and time the env's part."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import GreedyAgent, RandomAgent
    from aos_env.base.threads import usable_cores
    from aos_env.envs.opponents import OpponentPool
    from aos_env.integrations.sb3 import LearnerVecEnv

    spent = [0.0]

    def timed(method):
        def call(self, *args, **kwargs):
            t = time.perf_counter()
            out = method(self, *args, **kwargs)
            spent[0] += time.perf_counter() - t
            return out

        return call

    class TimedVecEnv(LearnerVecEnv):
        reset = timed(LearnerVecEnv.reset)
        step_async = timed(LearnerVecEnv.step_async)
        step_wait = timed(LearnerVecEnv.step_wait)
        action_masks = timed(LearnerVecEnv.action_masks)
        env_method = timed(LearnerVecEnv.env_method)  # MaskablePPO reads the masks through env_method

    args = _train_defaults()
    # as train.py does: torch's and the engine's threads, by default the usable cores
    train_module().set_threads(args.threads or usable_cores())
    pool = OpponentPool({"greedy": (GreedyAgent(), 0.5), "random": (RandomAgent(seed=seed), 0.5)})
    env = VecMonitor(TimedVecEnv(num_envs=num_envs, num_players=2, opponents=pool, seed=seed, shaping=args.shaping))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        policy_kwargs={"net_arch": list(args.net_arch)},
        seed=seed,
        device="cpu",
    )
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
