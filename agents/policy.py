"""PolicyAgent: a policy trained by ``train.py`` (sb3-contrib MaskablePPO) as an agent.

    agent = PolicyAgent("runs/default/model.zip")
    actions = agent.act(obs, mask)

Needs the ``train`` extra (torch, sb3-contrib). By default it plays the most
likely legal action; ``deterministic=False`` samples from the policy instead.
Loading checks that the file is a saved MaskablePPO model whose observation
and action spaces are this env's (``core.OBS_DIM`` numbers in, one of
``core.NUM_ACTIONS`` actions out), so a model of another env fails at once
instead of at its first move.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.checks import ArgumentError, check_bool, check_file, check_string, fail

from .base import BaseAgent

#: Members of the zip file that stable-baselines3's ``save`` writes (``load`` needs them).
MODEL_MEMBERS = ("data", "policy.pth")


def check_model_file(path) -> Path:
    """The path of a saved MaskablePPO model: an existing zip file with the members SB3 writes.

    FileNotFoundError (naming the path as given) if it does not exist; ValueError if it is not
    such a zip. Like SB3, ``"runs/x/model"`` also finds ``"runs/x/model.zip"``.
    """
    if isinstance(path, (str, Path)) and not Path(path).exists() and Path(f"{path}.zip").is_file():
        path = f"{path}.zip"
    p = check_file("model", path)
    if not zipfile.is_zipfile(p):
        raise ArgumentError(f"model {str(path)!r} is not a zip file (a model saved by train.py or MaskablePPO.save)")
    with zipfile.ZipFile(p) as z:
        missing = [m for m in MODEL_MEMBERS if m not in z.namelist()]
    if missing:
        raise ArgumentError(f"model {str(path)!r} is a zip file but not a saved MaskablePPO model: it has no "
                            f"{' or '.join(map(repr, missing))} inside (train.py saves runs/<name>/model.zip)")
    return p


def check_spaces(observation_space, action_space, what: str) -> None:
    """A policy must read this env's observations and choose among its actions."""
    from gymnasium import spaces

    want_obs, want_act = (core.OBS_DIM,), core.NUM_ACTIONS
    shape = getattr(observation_space, "shape", None)
    if not isinstance(observation_space, spaces.Box) or shape != want_obs:
        raise ArgumentError(f"{what} observes {observation_space}, but this env's observations have shape {want_obs} "
                            f"({core.OBS_DIM} numbers): it was trained for another env or another version of it")
    if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != want_act:
        raise ArgumentError(f"{what} chooses among {action_space}, but this env has Discrete({want_act}) actions")


class PolicyAgent(BaseAgent):
    """Wraps a MaskablePPO policy (loaded from a .zip, or a copy of a live model's policy)."""

    name = "policy"

    def __init__(self, path=None, seed: int | None = 0, deterministic: bool = True, policy=None,
                 device: str = "cpu") -> None:
        if (path is None) == (policy is None):
            raise ArgumentError("give either a model path or a policy (not both)")
        deterministic = check_bool("deterministic", deterministic)
        device = check_string("device", device)
        super().__init__(seed)
        if path is not None:
            import torch
            from sb3_contrib import MaskablePPO

            file = check_model_file(path)
            try:
                torch.device(device)
            except RuntimeError:
                raise fail("device", "a torch device such as 'cpu' or 'cuda'", device) from None
            try:
                model = MaskablePPO.load(str(file), device=device)
            except Exception as e:  # SB3 raises what its readers raise: KeyError, pickle errors, ...
                raise ArgumentError(f"model {str(path)!r}: cannot be loaded as a MaskablePPO model "
                                    f"({type(e).__name__}: {e})") from None
            check_spaces(model.observation_space, model.action_space, f"model {str(path)!r}")
            policy = model.policy
            self.name = str(path)
        else:
            if not all(callable(getattr(policy, m, None)) for m in ("predict", "set_training_mode")):
                raise fail("policy", "a MaskablePPO policy (model.policy)", policy)
            check_spaces(getattr(policy, "observation_space", None), getattr(policy, "action_space", None), "policy")
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        if not deterministic and self.seed is not None:
            import torch

            torch.manual_seed(self.seed)  # sampling uses torch's global generator

    @classmethod
    def snapshot(cls, model, deterministic: bool = False, seed: int | None = 0) -> "PolicyAgent":
        """A frozen copy of a live model's policy (for self-play opponents and evaluation)."""
        policy = model.policy_class(model.observation_space, model.action_space, model.lr_schedule,
                                    **model.policy_kwargs)
        policy.load_state_dict(model.policy.state_dict())  # copies the weights into the new policy
        return cls(policy=policy.to(model.device), deterministic=deterministic, seed=seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        out = np.zeros(mask.shape[0], dtype=np.int64)
        live = mask.any(1)
        if live.any():
            actions, _ = self.policy.predict(obs[live].astype(np.float32), deterministic=self.deterministic,
                                             action_masks=mask[live])
            out[live] = actions
        return out
