"""Ray RLlib on the batched engine, the env side: the env of each env runner, PPO's module with
action masking on RLlib's current API stack (RLModule / Learner / EnvRunner), the runners'
opponent pools for self-play, and the policy as a numpy bot.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``). The trainer that uses these pieces,
``ppo_config`` and ``RLlibTrainer``, is ``agents.training.rllib_ppo``; ``train.py --backend
rllib`` drives it.

- :func:`env_creator` builds the env of one env runner: an ``AgeOfSummonersVectorEnv`` of
  ``num_envs`` games on one batched engine state (not ``num_envs`` env objects), with the
  Dict observation (``mask_in_obs=True``) and Gymnasium's NEXT_STEP autoreset, which is what
  RLlib's ``SingleAgentEnvRunner`` steps. :data:`ENV_NAME` is its name in Ray's registry
  (:func:`register`); a ``PPOConfig`` sets ``gym_env_vectorize_mode="vector_entry_point"``
  so that each runner gets the vector env.
- :class:`MaskedPPOTorchRLModule`: RLlib's default PPO module (separate policy and value MLPs)
  reading ``obs["observations"]`` and setting the logits of illegal actions (``obs["action_mask"]
  == 0``) to the lowest float, in sampling and in training, so a masked policy never picks one.
- :func:`bot_arrays` / :func:`save_bot`: the module's weights in the bot format of
  ``agents.players.bot`` (``make_agent("runs/<name>/bot.npz")`` plays it with numpy, no Ray or torch);
  :func:`bot_agent` builds that agent in memory.
- :func:`update_opponents` runs on every env runner (``env_runner_group.foreach_env_runner``)
  and changes the opponent pool of its env: self-play snapshots are broadcast as bot weights
  and play inside the env as ``BotAgent`` s, without Ray.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from ..base.extras import missing_extra

try:
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from ray.tune.registry import register_env
except ImportError as e:  # the rllib extra is optional: say how to install it
    raise missing_extra(e, "rllib", "aos_env.integrations.rllib") from e

from .. import core
from ..base import registry
from ..base.threads import set_threads
from ..envs.gym import MASK_KEY, OBS_KEY, AgeOfSummonersEnv, AgeOfSummonersVectorEnv

#: The env's name in Ray's env registry (``config.environment(ENV_NAME, env_config=...)``).
ENV_NAME = "aos_env_rllib"
#: The hidden layers' activation (as SB3's MlpPolicy, so both backends train the same network).
ACTIVATION = "tanh"
#: env_config keys that ``env_creator`` reads itself (the others go to the env).
_RUNNER_KEYS = ("num_envs", "opponents", "seed", "threads")
_RUNNER_SEED_STEP = 1_000_003  # env runner i draws its opponents' seeds from seed + i * this


# ---- the env ------------------------------------------------------------------------------------


def env_creator(config: Mapping[str, Any]) -> AgeOfSummonersVectorEnv | AgeOfSummonersEnv:
    """The env of one env runner, from RLlib's ``env_config`` (an ``EnvContext``).

    Keys: ``num_envs`` (RLlib's vector entry point adds it: games on the runner's batched
    engine), ``opponents`` (a dict {agent spec: weight}; the pool starts with these and
    :func:`update_opponents` changes it), ``seed`` (the opponents' seeds; each runner adds
    its ``worker_index``), ``threads`` (torch's and numba's threads in the runner), and any
    argument of ``AgeOfSummonersVectorEnv`` (``num_players``, ``max_turns``, ``shaping``,
    ``truncation_reward``, ``illegal_action``, ...). The observation is always the Dict one.
    """
    from ..envs.opponents import OpponentPool

    worker = int(getattr(config, "worker_index", 0))
    set_threads(int(config.get("threads", 1)))
    seed = config.get("seed")
    opponents = OpponentPool.from_specs(
        dict(config.get("opponents", {"random": 1.0})),
        seed=None if seed is None else int(seed) + worker * _RUNNER_SEED_STEP,
    )
    kwargs = {k: v for k, v in dict(config).items() if k not in _RUNNER_KEYS}
    kwargs.update(opponents=opponents, mask_in_obs=True)
    env: AgeOfSummonersVectorEnv | AgeOfSummonersEnv
    if "num_envs" in config:
        env = AgeOfSummonersVectorEnv(num_envs=int(config["num_envs"]), **kwargs)
    else:
        env = AgeOfSummonersEnv(**kwargs)
    # load (or, with a cold cache, compile) the engine's kernels now, while the runner is built:
    # at the first sample it could outlast RLlib's sample timeout and return no steps at all
    env.reset(seed=None if seed is None else int(seed) + worker * _RUNNER_SEED_STEP)  # RLlib reseeds at its first reset
    return env


def register() -> None:
    """Register :func:`env_creator` with Ray as :data:`ENV_NAME` (the registry reaches every
    env runner of the cluster)."""
    register_env(ENV_NAME, env_creator)


def update_opponents(
    env_runner: Any,
    add: tuple[str, bytes, float, int] | None = None,
    remove: tuple[str, ...] = (),
    weights: Mapping[str, float] | None = None,
) -> list[str] | None:
    """Change the opponent pool of an env runner's env (run it with ``foreach_env_runner``).

    ``add``: ``(name, bot file bytes, weight, seed)``, a bot (``save_bot``'s format, in memory)
    that joins the pool as a sampling ``BotAgent``; ``weights``: new weights by name; ``remove``:
    names to stop drawing (games they play keep them until they end). Returns the pool's names
    (None for a runner without an env, such as the driver's when remote runners sample).
    """
    env = getattr(env_runner, "env", None)
    if env is None:
        return None
    pool = env.unwrapped.opponents
    if add is not None:
        name, data, weight, seed = add
        pool.add(name, bot_from_bytes(data, deterministic=False, seed=seed), weight)
    if weights:
        pool.set_weights(weights)
    for name in remove:
        pool.remove(name)
    return pool.names


# ---- the RLModule ---------------------------------------------------------------------------------


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module with action masking, for the Dict observation
    ``{"observations": Box, "action_mask": Box(0, 1, (44,), int8)}``.

    The networks see ``obs["observations"]``; the logits of actions whose mask is 0 become the
    lowest float32 (exploration, inference and training alike), so sampling never picks them
    and their log-probabilities take no gradient. The input batch is not changed.
    """

    def __init__(self, *, observation_space=None, action_space=None, **kwargs) -> None:
        if not (
            isinstance(observation_space, gymnasium.spaces.Dict)
            and set(observation_space.spaces) == {OBS_KEY, MASK_KEY}
        ):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with the keys {OBS_KEY!r} "
                f"and {MASK_KEY!r} (make the env with mask_in_obs=True), got {observation_space}"
            )
        # the networks are built for the observation alone; the module's space keeps the mask
        super().__init__(observation_space=observation_space[OBS_KEY], action_space=action_space, **kwargs)
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: dict) -> tuple[Any, dict]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, Mapping) or MASK_KEY not in obs:
            raise ValueError(
                f"MaskedPPOTorchRLModule: the batch's observations must be dicts with {OBS_KEY!r} "
                f"and {MASK_KEY!r}, got {type(obs).__name__}"
            )
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], inner

    @staticmethod
    def _mask(out: dict, mask) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
        return out

    def _forward(self, batch: dict, **kwargs) -> dict:
        mask, inner = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        mask, inner = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings=None):
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def module_spec(net_arch: list[int]):
    """The ``RLModuleSpec``: :class:`MaskedPPOTorchRLModule` with separate policy and value MLPs of
    ``net_arch`` hidden sizes (tanh), each with one linear head: the network of train.py's SB3
    backend, and exactly what the bot format holds."""
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(net_arch),
            "fcnet_activation": ACTIVATION,
            "vf_share_layers": False,
            "head_fcnet_hiddens": [],
        },
    )


# ---- the bot format -------------------------------------------------------------------------------

#: Where the layers of each network are in the module's state dict: (prefix, body, head).
_NETWORKS = (
    ("pi", "encoder.actor_encoder.net.mlp.", "pi.net.mlp."),
    ("vf", "encoder.critic_encoder.net.mlp.", "vf.net.mlp."),
)


def bot_arrays(state: Mapping[str, Any], need_value: bool = True) -> dict[str, np.ndarray]:
    """The policy (and value) network of a :class:`MaskedPPOTorchRLModule` state dict (numpy arrays
    or tensors, as ``learner_group.get_weights()`` gives them) as ``agents.players.bot`` arrays:
    ``pi_w0, pi_b0, ...`` (weights as (in, out)), ``vf_w0, ...``. ``need_value=False`` allows
    an inference-only state (no value network)."""
    out: dict[str, np.ndarray] = {}
    for prefix, body, head in _NETWORKS:
        layers = []
        for part in (body, head):
            idx = sorted({int(k[len(part) :].split(".")[0]) for k in state if k.startswith(part)})
            layers += [(state[f"{part}{i}.weight"], state[f"{part}{i}.bias"]) for i in idx]
        if not layers:
            if prefix == "vf" and not need_value:
                continue
            raise ValueError(f"bot_arrays: no {prefix} network in the state (keys: {', '.join(list(state)[:6])}, ...)")
        for i, (w, b) in enumerate(layers):
            out[f"{prefix}_w{i}"] = np.asarray(_numpy(w), dtype=np.float32).T.copy()
            out[f"{prefix}_b{i}"] = np.asarray(_numpy(b), dtype=np.float32).copy()
    last = sum(k.startswith("pi_w") for k in out) - 1
    if out["pi_w0"].shape[0] != core.OBS_DIM or out[f"pi_w{last}"].shape[1] != core.NUM_ACTIONS:
        raise ValueError(
            f"bot_arrays: the policy maps {out['pi_w0'].shape[0]} numbers to "
            f"{out[f'pi_w{last}'].shape[1]} actions; this env has {core.OBS_DIM} and {core.NUM_ACTIONS}"
        )
    return out


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def bot_bytes(arrays: Mapping[str, np.ndarray], num_players: int, info: dict | None = None) -> bytes:
    """A bot file as bytes, written by the one module that writes bot files (``agents.files.bot_file``)."""
    meta = registry.load("bot_meta")(int(num_players), ACTIVATION, info)
    return registry.load("bot_file_bytes")(meta, dict(arrays))


def save_bot(arrays: Mapping[str, np.ndarray], path, num_players: int, info: dict | None = None) -> Path:
    """Write a bot file: ``make_agent(str(path))`` (``agents.BotAgent``) then plays it with numpy."""
    from ..base.files import write_bytes

    return write_bytes(path, bot_bytes(arrays, num_players, info))  # atomic: readers never see half a file


def bot_from_bytes(data: bytes, deterministic: bool = True, seed: int | None = 0):
    """An ``agents.BotAgent`` from a bot file's bytes (it reads its arrays at once)."""
    BotAgent = registry.load("bot_agent")

    fd, name = tempfile.mkstemp(suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return BotAgent(name, seed=seed, deterministic=deterministic)
    finally:
        os.unlink(name)


def bot_agent(arrays: Mapping[str, np.ndarray], num_players: int, deterministic: bool = True, seed: int | None = 0):
    """The policy as an ``agents.BotAgent`` (numpy), e.g. for evaluation or as an opponent."""
    return bot_from_bytes(bot_bytes(arrays, num_players), deterministic=deterministic, seed=seed)
