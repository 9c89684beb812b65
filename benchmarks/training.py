"""The training env inside MaskablePPO: env steps per second and the env's share of wall time."""

from __future__ import annotations

import time


def sb3_env_share(timesteps: int, num_envs: int = 1024, n_steps: int = 16, seed: int = 0) -> dict:
    """Train MaskablePPO (train.py's defaults) for ``timesteps`` and time the env's part."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import GreedyAgent, RandomAgent
    from aos_env.learner_env import LearnerEnv
    from aos_env.sb3 import LearnerVecEnv

    class TimedVecEnv(LearnerVecEnv):
        spent = 0.0

        def reset(self):
            t = time.perf_counter()
            out = super().reset()
            TimedVecEnv.spent += time.perf_counter() - t
            return out

        def step_wait(self):
            t = time.perf_counter()
            out = super().step_wait()
            TimedVecEnv.spent += time.perf_counter() - t
            return out

        def action_masks(self):
            t = time.perf_counter()
            out = super().action_masks()
            TimedVecEnv.spent += time.perf_counter() - t
            return out

    torch.set_num_threads(1)
    pool = {"greedy": (GreedyAgent(), 0.5), "random": (RandomAgent(seed=seed), 0.5)}
    env = VecMonitor(TimedVecEnv(LearnerEnv(num_envs, 2, pool, seed=seed, shaping=0.02)))
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=2048, n_epochs=4, gamma=0.995,
                        policy_kwargs={"net_arch": [256, 256]}, seed=seed, device="cpu")
    TimedVecEnv.spent = 0.0
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    wall = time.perf_counter() - start
    return {"timesteps": model.num_timesteps, "wall_seconds": wall, "env_seconds": TimedVecEnv.spent,
            "steps_per_second": model.num_timesteps / wall, "env_share": TimedVecEnv.spent / wall}
