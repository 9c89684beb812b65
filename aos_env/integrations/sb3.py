"""stable-baselines3 adapter: ``LearnerVecEnv``, the Gymnasium vector env as an SB3 ``VecEnv``.

Importing this module needs stable-baselines3 (the ``train`` extra); ``import aos_env`` alone does not.

    venv = LearnerVecEnv(num_envs=1024, num_players=2, opponents="greedy@0.5 random@0.5", shaping=0.02)
    model = MaskablePPO("MlpPolicy", VecMonitor(venv, info_keywords=("win", "score")))

It sits on ``aos_env.envs.gym.AgeOfSummonersVectorEnv`` in ``AutoresetMode.SAME_STEP``,
which is SB3's convention: a finished game is dealt again within the step, and its last
observation is in ``infos[i]["terminal_observation"]``.

``evaluate_policy(model, env, n_eval_episodes)`` is SB3's ``evaluate_policy`` with the action
masks: SB3's own ignores them, and on this game a policy that ignores them loses every game on
an illegal action (or, with ``illegal_action="raise"``, stops at the first one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from ..base.extras import missing_extra

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:  # the train extra is not installed
    raise missing_extra(e, "train", "aos_env.integrations.sb3") from e

from ..base.checks import ArgumentError, check_bool, check_int, check_optional_seed, check_sequence, check_string, fail
from ..envs.gym import AgeOfSummonersVectorEnv
from ..envs.opponents import OpponentPool


class LearnerVecEnv(VecEnv):
    """A ``VecEnv`` over the batched engine (no per-game Python env objects).

    Give either an ``AgeOfSummonersVectorEnv`` made with ``autoreset_mode=SAME_STEP``, or the
    keyword arguments to make one (``num_envs``, ``num_players``, ``opponents``, ``max_turns``,
    ``shaping``, ``illegal_action`` (default "raise": a masked policy never picks an illegal
    action, so one is a bug), ...; ``seed``: the first reset's seed, as SB3's ``seed()``).

    ``action_masks()`` gives the legal actions for sb3-contrib's MaskablePPO. Finished games
    restart by themselves; ``infos[i]`` of a game that ended has ``terminal_observation``,
    ``TimeLimit.truncated``, ``episode`` (``r``: the outcome without shaping, ``l``: its
    length), ``win``, ``is_success``, ``score``, ``margin``, ``seat`` and ``opponents``.
    The other infos are empty.
    """

    def __init__(self, env: AgeOfSummonersVectorEnv | None = None, *, seed: int | None = None, **kwargs: Any) -> None:
        seed = check_optional_seed("seed", seed)
        if env is None:
            kwargs.setdefault("illegal_action", "raise")
            env = AgeOfSummonersVectorEnv(autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        elif kwargs:
            raise ArgumentError(
                f"give either env or the arguments to make one, not both (got env and {', '.join(sorted(kwargs))})"
            )
        if not isinstance(env, AgeOfSummonersVectorEnv):
            raise fail("env", "an aos_env.envs.gym.AgeOfSummonersVectorEnv (or None, with its arguments)", env)
        if env.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ArgumentError(
                f"env must reset finished games in the same step, as SB3 does "
                f"(autoreset_mode=AutoresetMode.SAME_STEP), got {env.autoreset_mode}"
            )
        self.venv = env
        self.render_mode = env.render_mode
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._seed = seed
        self._actions: np.ndarray | None = None

    @property
    def opponents(self) -> OpponentPool:
        """The opponent pool (add self-play snapshots here)."""
        return self.venv.opponents

    def reset(self) -> np.ndarray:
        obs, _ = self.venv.reset(seed=self._seed)
        self._seed = None  # a seed applies to the next reset only (SB3's convention)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = self.venv.learner.check_actions(actions)

    def step_wait(self):
        if self._actions is None:
            raise ArgumentError("step_wait() needs actions: call step_async(actions) first")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        dones = terminated | truncated
        out: list[dict] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs, final = infos["final_obs"], infos["final_info"]
            for i in np.flatnonzero(dones):
                out[i] = {
                    "terminal_observation": final_obs[i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "episode": {"r": float(final["outcome"][i]), "l": int(final["length"][i])},
                    "win": bool(final["win"][i]),
                    "is_success": bool(final["win"][i]),
                    "score": int(final["score"][i]),
                    "margin": int(final["margin"][i]),
                    "truncated": bool(truncated[i]),
                    "seat": int(final["seat"][i]),
                    "opponents": self.venv.ended_opponents[i],  # names: not in the (numeric) vector infos
                    "illegal_action": bool(final["illegal_action"][i]),
                }
        return obs, rewards, dones, out

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices) -> Sequence[int]:
        """``indices`` as a list of game indices (None: every game)."""
        N = self.num_envs
        if indices is None:
            return range(N)
        allowed = f"None, a game index 0..{N - 1} or a list of them"
        if isinstance(indices, (int, np.integer)) and not isinstance(indices, (bool, np.bool_)):
            return [check_int("indices", indices, 0, N - 1)]
        try:
            items = check_sequence("indices", indices)
        except ArgumentError:
            raise fail("indices", allowed, indices) from None
        return [check_int("indices", i, 0, N - 1) for i in items]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of the vector env (all games share it), once per index."""
        check_string("attr_name", attr_name)
        idx = self._indices(indices)
        target = self if attr_name in ("render_mode", "num_envs", "observation_space", "action_space") else self.venv
        if not hasattr(target, attr_name):
            raise AttributeError(f"attr_name: the env has no attribute {attr_name!r}")
        value = getattr(target, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set an attribute of the vector env: all games share it, so ``indices`` must be every game."""
        check_string("attr_name", attr_name)
        idx = list(self._indices(indices))
        if sorted(idx) != list(range(self.num_envs)):
            raise ArgumentError("indices: the games share one env object; set_attr takes indices=None (every game)")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        check_string("method_name", method_name)
        idx = list(self._indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        method = getattr(self.venv, method_name, None)
        if not callable(method):
            raise AttributeError(f"method_name: the env has no method {method_name!r}")
        result = method(*args, **kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next reset (None: keep the env's current stream)."""
        self._seed = check_optional_seed("seed", seed)
        return [self._seed for _ in range(self.num_envs)]


# ---- evaluation with the action masks ----------------------------------------------------------


class _MaskedModel:
    """An SB3 model without masks (PPO, A2C: logits; DQN: Q-values) whose ``predict`` takes
    ``action_masks`` as MaskablePPO's does: illegal actions get -inf before the choice."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def predict(
        self,
        observation,
        state=None,
        episode_start=None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ):
        import torch

        policy = self.model.policy
        policy.set_training_mode(False)
        obs, vectorized = policy.obs_to_tensor(observation)
        with torch.no_grad():
            if hasattr(policy, "q_net"):  # DQN: the greedy action among the legal ones
                scores, deterministic = policy.q_net(obs), True
            else:
                scores = policy.get_distribution(obs).distribution.logits
        mask = torch.as_tensor(np.asarray(action_masks, dtype=bool).reshape(scores.shape), device=scores.device)
        scores = scores.masked_fill(~mask, -torch.inf)
        if deterministic:
            actions = scores.argmax(1)
        else:
            actions = torch.distributions.Categorical(logits=scores).sample()
        actions = actions.cpu().numpy()
        return (actions if vectorized else actions[0]), state


def _masked_model(model: Any) -> Any:
    """``model`` if its ``predict`` takes action masks (sb3-contrib's MaskablePPO), else a view
    that masks its logits or Q-values; ArgumentError for anything else."""
    import inspect

    predict = getattr(model, "predict", None)
    if callable(predict) and "action_masks" in inspect.signature(predict).parameters:
        return model
    policy = getattr(model, "policy", None)
    if (
        policy is not None
        and (hasattr(policy, "q_net") or hasattr(policy, "get_distribution"))
        and isinstance(getattr(model, "action_space", None), gymnasium.spaces.Discrete)
    ):
        return _MaskedModel(model)
    raise fail(
        "model",
        "an SB3 model for this env: sb3_contrib.MaskablePPO, or PPO, A2C or DQN (their logits or Q-values are masked)",
        model,
    )


def _masked_env(env: Any) -> VecEnv:
    """``env`` as an SB3 VecEnv whose episode returns are counted (VecMonitor)."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor, is_vecenv_wrapped

    if isinstance(env, AgeOfSummonersVectorEnv):
        env = LearnerVecEnv(env)  # refuses an env that does not reset in the same step, saying so
    if isinstance(env, gymnasium.Env):
        try:
            env.get_wrapper_attr("action_masks")
        except AttributeError:
            raise fail(
                "env",
                "an env with action_masks(): gymnasium.make('aos_env/AgeOfSummoners-v1', ...), "
                "a LearnerVecEnv or an SB3 VecEnv of them",
                env,
            ) from None
        return DummyVecEnv([lambda: Monitor(env)])
    if not isinstance(env, VecEnv):
        raise fail(
            "env",
            "gymnasium.make('aos_env/AgeOfSummoners-v1', ...), a LearnerVecEnv, an "
            "AgeOfSummonersVectorEnv (SAME_STEP) or an SB3 VecEnv with action_masks()",
            env,
        )
    if not env.has_attr("action_masks"):
        raise fail("env", "a VecEnv whose envs have action_masks() (LearnerVecEnv has)", env)
    if is_vecenv_wrapped(env, VecMonitor) or env.env_is_wrapped(Monitor)[0]:
        return env
    return VecMonitor(env)


def evaluate_policy(
    model: Any,
    env: Any,
    n_eval_episodes: int = 10,
    deterministic: bool = True,
    *,
    return_episode_rewards: bool = False,
    reward_threshold: float | None = None,
    callback: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    render: bool = False,
) -> tuple[float, float] | tuple[list[float], list[int]]:
    """SB3's ``evaluate_policy``, with the action masks (sb3-contrib's maskable one does the work).

    ``model``: sb3-contrib's MaskablePPO, or an SB3 PPO, A2C or DQN (its logits or Q-values get
    -inf on the illegal actions before it chooses). ``env``: ``gymnasium.make(
    "aos_env/AgeOfSummoners-v1", ...)`` (through any wrappers), a ``LearnerVecEnv``, an
    ``AgeOfSummonersVectorEnv`` made with ``autoreset_mode="SameStep"`` or an SB3 VecEnv with
    ``action_masks()``; it is wrapped in SB3's ``Monitor``/``VecMonitor`` when it is not, so
    that the returns are the games' own. Returns (mean, std) of the episode returns, or with
    ``return_episode_rewards`` the lists of returns and lengths, as SB3's does.
    """
    try:
        from sb3_contrib.common.maskable.evaluation import evaluate_policy as maskable_evaluate_policy
    except ImportError as e:  # sb3-contrib comes with the train extra
        raise missing_extra(e, "train", "aos_env.integrations.sb3.evaluate_policy") from e

    n_eval_episodes = check_int("n_eval_episodes", n_eval_episodes, 1)
    deterministic = check_bool("deterministic", deterministic)
    return_episode_rewards = check_bool("return_episode_rewards", return_episode_rewards)
    predictor = _masked_model(model)
    venv = _masked_env(env)
    return maskable_evaluate_policy(
        predictor,
        venv,
        n_eval_episodes=n_eval_episodes,
        deterministic=deterministic,
        render=render,
        callback=callback,
        reward_threshold=reward_threshold,
        return_episode_rewards=return_episode_rewards,
        warn=False,
        use_masking=True,
    )
