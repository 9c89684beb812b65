"""The learner's env and a fresh MaskablePPO, built from a checked :class:`TrainConfig`: what the SB3
trainer (``agents.training.sb3``) and the exploiters (``agents.training.exploiter``) both start from."""

from __future__ import annotations

from typing import Any

from aos_env.envs.opponents import OpponentPool

from .budget import Clock
from .config import TrainConfig
from .rules import network_shape
from .schedule import sb3_learning_rate


def learner_env(c: TrainConfig, opponents: OpponentPool, seed: int) -> Any:
    """The SB3 view of the batched learner env: ``c.num_envs`` games, the learner in one seat and
    ``opponents`` drawn for the others, with the config's turn limit, shaping and truncation reward."""
    from aos_env.integrations.sb3 import LearnerVecEnv

    return LearnerVecEnv(
        num_envs=c.num_envs,
        num_players=c.players,
        opponents=opponents,
        seed=seed,
        max_turns=c.max_turns,
        shaping=c.shaping,
        truncation_reward=c.truncation_reward,
    )


def policy_kwargs(c: TrainConfig) -> dict[str, Any]:
    """SB3's policy_kwargs for --net-arch: two networks (SB3's MlpPolicy), or with --shared-trunk
    one trunk that both heads read (``agents.files.trunk``)."""
    heads, trunk = network_shape(c)
    if not trunk:
        return {"net_arch": heads}
    import torch.nn as nn

    from agents.files.trunk import trunk_policy_kwargs

    return trunk_policy_kwargs(trunk, heads, nn.Tanh)  # MlpPolicy's default activation, as without a trunk


def new_ppo(c: TrainConfig, env: Any, seed: int, tensorboard_log: str | None = None, clock: Clock | None = None) -> Any:
    """A MaskablePPO with the config's network and PPO settings (random weights from ``seed``);
    ``clock``: the run's budget, which ``--lr-schedule linear`` also counts down to."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=sb3_learning_rate(c.lr_schedule, c.learning_rate, clock),
        n_steps=c.n_steps,
        batch_size=c.batch_size,
        n_epochs=c.n_epochs,
        gamma=c.gamma,
        gae_lambda=c.gae_lambda,
        clip_range=c.clip_range,
        ent_coef=c.ent_coef,
        vf_coef=c.vf_coef,
        max_grad_norm=c.max_grad_norm,
        policy_kwargs=policy_kwargs(c),
        tensorboard_log=tensorboard_log,
        seed=seed,
        device=c.device,
        verbose=0,
    )
