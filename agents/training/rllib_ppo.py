"""RLlib's PPO on the batched env, for ``train.py --backend rllib`` (``agents.training.rllib``) and
for scripts of your own: :func:`ppo_config` (train.py's options as a ``PPOConfig``) and
:class:`RLlibTrainer` (the ``Algorithm`` and what a run does with it: train, evaluate the policy as
a numpy bot, send self-play snapshots to every env runner, save and restore).

The env side (the env of each runner, the masked module, the bot format, the runners' opponent
pools) is ``aos_env.integrations.rllib``. Needs the ``rllib`` extra.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.utils.metrics import ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER, TIMERS

from aos_env import core
from aos_env.integrations.rllib import (
    ENV_NAME,
    bot_agent,
    bot_arrays,
    bot_bytes,
    module_spec,
    register,
    save_bot,
    update_opponents,
)

#: How long the driver waits for a runner's samples (RLlib's default of 60 s is shorter than a
#: loaded machine's cold compile of the engine in a new runner).
SAMPLE_TIMEOUT_S = 600.0
#: Ended games an env runner keeps for the league until the driver takes them (``take_games``);
#: beyond it the oldest are dropped (a run without --league never takes them).
MAX_KEPT_GAMES = 100_000
#: This process's env runner's ended games: (the opponents' names, comma separated; a win).
_GAMES: deque[tuple[str, bool]] = deque(maxlen=MAX_KEPT_GAMES)
#: The step count that an RLlib checkpoint folder of train.py holds beside RLlib's own files.
_STEPS_FILE = "aos_timesteps.json"


def ppo_config(
    *,
    num_players: int,
    opponents: Mapping[str, float],
    num_env_runners: int,
    envs_per_runner: int,
    n_steps: int,
    batch_size: int,
    n_epochs: int,
    learning_rate: float | list[list[float]],
    gamma: float,
    gae_lambda: float,
    clip_range: float,
    ent_coef: float,
    vf_coef: float,
    max_grad_norm: float,
    net_arch: list[int],
    seed: int,
    threads: int = 1,
    max_turns: int = core.DEFAULT_MAX_TURNS,
    shaping: float = 0.0,
    truncation_reward: float | str | None = None,
    illegal_action: str = "raise",
    device: str = "cpu",
):
    """The ``PPOConfig`` of train.py's options (the names are SB3's; see train.py --help).

    Each iteration samples ``n_steps`` steps in each of the ``envs_per_runner`` games of each
    env runner (the driver's own runner samples when ``num_env_runners`` is 0), then runs
    ``n_epochs`` passes over it in minibatches of ``batch_size``, like SB3's rollout. PPO's KL
    penalty is off (SB3's PPO has none); advantages are normalised over the batch in both.
    """
    runners = max(1, num_env_runners)
    env_config = {
        "num_players": num_players,
        "opponents": dict(opponents),
        "seed": seed,
        "threads": threads,
        "max_turns": max_turns,
        "shaping": shaping,
        "truncation_reward": truncation_reward,
        "illegal_action": illegal_action,
    }
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=envs_per_runner,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=n_steps,
            num_cpus_per_env_runner=1,
            sample_timeout_s=SAMPLE_TIMEOUT_S,
        )
        .learners(num_learners=0, num_gpus_per_learner=1 if device.startswith("cuda") else 0)
        .training(
            train_batch_size_per_learner=n_steps * envs_per_runner * runners,
            minibatch_size=batch_size,
            num_epochs=n_epochs,
            lr=learning_rate,
            gamma=gamma,
            lambda_=gae_lambda,
            clip_param=clip_range,
            entropy_coeff=ent_coef,
            vf_loss_coeff=vf_coef,
            grad_clip=max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .rl_module(rl_module_spec=module_spec(net_arch))
        .callbacks(on_episode_end=_on_episode_end)
        .debugging(seed=seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=1000)
    )
    return config


def _on_episode_end(*, episode, metrics_logger=None, env=None, env_index: int = 0, **kwargs) -> None:
    """Each finished game's result, from its last info: averaged by RLlib over the iteration, and
    kept with its opponents' names for the league (``take_games``)."""
    info = episode.get_infos(-1)
    names = getattr(env, "ended_opponents", None)  # the vector env's list by game (the single env's: a str)
    if isinstance(names, list) and env_index < len(names):
        names = names[env_index]
    if "win" in info and isinstance(names, str):
        _GAMES.append((names, bool(info["win"])))
    if metrics_logger is None:
        return
    if "win" in info:
        metrics_logger.log_value("win_rate", float(info["win"]), reduce="mean", window=1000)
        metrics_logger.log_value("outcome", float(info["outcome"]), reduce="mean", window=1000)
        metrics_logger.log_value("game_length", float(info["length"]), reduce="mean", window=1000)


def take_games(env_runner: Any = None) -> list[tuple[str, bool]]:
    """The games this process's env runner ended since the last call (run it with
    ``foreach_env_runner``): ``(opponents' names, comma separated; whether the learner won)``."""
    games = list(_GAMES)
    _GAMES.clear()
    return games


#: RLlib's timers of the two phases of an iteration, in ``result["timers"]``.
_PHASE_TIMERS = (ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER)


def _per_iteration_timers(metrics) -> None:
    """Make the algorithm's sampling and update timers report each iteration's own seconds.

    RLlib keeps them as exponential averages with a coefficient of 0.01, so over tens of
    iterations they show mostly the first iteration's time (its warm-up included), and a mean of
    them is no mean of the iterations. As "item" stats (created here, before the first
    ``log_time``, which then pushes into them) each result holds the time of its own iteration.
    """
    for name in _PHASE_TIMERS:
        metrics.delete(TIMERS, name, key_error=False)
        metrics.log_value((TIMERS, name), float("nan"), reduce="item")  # replaced by the first iteration's time


class RLlibTrainer:
    """A PPO ``Algorithm`` on the batched env, and the operations train.py needs around it.

    Call ``ray.init`` first (a local Ray, or ``address=`` of a running cluster); ``stop()`` stops
    the algorithm, not Ray.
    """

    def __init__(self, config, num_players: int, checkpoint: Path | None = None) -> None:
        register()
        self.num_players = num_players
        self.algo = config.build_algo()
        self.timesteps = 0
        if checkpoint is not None:
            self.algo.restore_from_path(str(Path(checkpoint).resolve()))
            self.timesteps = int(json.loads((Path(checkpoint) / _STEPS_FILE).read_text())["timesteps"])
        _per_iteration_timers(self.algo.metrics)

    def train(self) -> dict[str, float]:
        """One iteration (sample, then learn); returns its main numbers, flat."""
        result = self.algo.train()
        runners = result.get("env_runners", {})
        timers = result.get("timers", {})
        learner = result.get("learners", {}).get("default_policy", {})
        sampled = runners.get("num_env_steps_sampled", 0)
        if not isinstance(sampled, (int, float, np.integer, np.floating)) or not np.isfinite(sampled):
            sampled = 0  # no runner returned steps this iteration (RLlib reports NaN): nothing counted
        self.timesteps += int(sampled)
        out = {"env_steps": float(sampled)}
        for key, source, name in (
            ("episode_return_mean", runners, "rollout/ep_rew_mean"),
            ("episode_len_mean", runners, "rollout/ep_len_mean"),
            ("win_rate", runners, "rollout/win_rate"),
            ("outcome", runners, "rollout/outcome"),
            ("policy_loss", learner, "train/policy_loss"),
            ("vf_loss", learner, "train/value_loss"),
            ("entropy", learner, "train/entropy"),
            ("env_runner_sampling_timer", timers, "time/sample_seconds"),
            ("learner_update_timer", timers, "time/learn_seconds"),
        ):
            value = source.get(key)
            if isinstance(value, (int, float, np.floating)) and np.isfinite(value):
                out[name] = float(value)
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        """The learner's current policy and value networks, as bot arrays."""
        return bot_arrays(self.algo.learner_group.get_weights()[DEFAULT_MODULE_ID])

    def agent(self, deterministic: bool = True, seed: int | None = 0):
        """The current policy as a numpy ``BotAgent``."""
        return bot_agent(self.arrays(), self.num_players, deterministic=deterministic, seed=seed)

    def policy_bytes(self) -> bytes:
        """The current policy as a bot file's bytes: a frozen snapshot the env runners can play."""
        return bot_bytes(self.arrays(), self.num_players)

    def update_opponents(
        self,
        add: tuple[str, bytes, float, int] | tuple[str, float, int] | None = None,
        remove: tuple[str, ...] = (),
        weights: Mapping[str, float] | None = None,
    ) -> None:
        """Change the opponent pool of every env runner's env: ``add=(name, bot file bytes, weight,
        seed)`` adds a bot (played with numpy), ``add=(name, weight, seed)`` a frozen copy of the
        current policy; ``remove`` drops members, ``weights`` sets weights."""
        if add is not None and len(add) == 3:
            name, weight, seed = add
            add = (name, self.policy_bytes(), weight, seed)
        fn: Callable = lambda runner: update_opponents(runner, add, tuple(remove), dict(weights or {}))  # noqa: E731
        self.algo.env_runner_group.foreach_env_runner(fn, local_env_runner=True)

    def take_games(self) -> list[tuple[str, bool]]:
        """The games every env runner ended since the last call, with their opponents (the league's results)."""
        per_runner = self.algo.env_runner_group.foreach_env_runner(take_games, local_env_runner=True)
        return [game for games in per_runner for game in (games or [])]

    def save_bot(self, path, info: dict | None = None) -> Path:
        return save_bot(self.arrays(), path, self.num_players, info)

    def save(self, path) -> Path:
        """An RLlib checkpoint (``restore`` with ``RLlibTrainer(..., checkpoint=path)``)."""
        path = Path(path).resolve()
        self.algo.save_to_path(str(path))
        (path / _STEPS_FILE).write_text(json.dumps({"timesteps": self.timesteps}))
        return path

    def stop(self) -> None:
        self.algo.stop()
