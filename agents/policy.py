"""PolicyAgent: a policy trained by ``train.py`` (sb3-contrib MaskablePPO) as an agent.

    agent = PolicyAgent("runs/default/model.zip")
    actions = agent.act(obs, mask)

Needs the ``train`` extra (torch, sb3-contrib). By default it plays the most
likely legal action; ``deterministic=False`` samples from the policy instead.
"""

from __future__ import annotations

import numpy as np

from aos_env import core

from .base import BaseAgent


class PolicyAgent(BaseAgent):
    """Wraps a MaskablePPO policy (loaded from a .zip, or a copy of a live model's policy)."""

    name = "policy"

    def __init__(self, path=None, seed: int | None = 0, deterministic: bool = True, policy=None,
                 device: str = "cpu") -> None:
        super().__init__(seed)
        if (path is None) == (policy is None):
            raise ValueError("give either a model path or a policy")
        if path is not None:
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(str(path), device=device)
            policy = model.policy
            self.name = str(path)
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        if not deterministic and seed is not None:
            import torch

            torch.manual_seed(seed)  # sampling uses torch's global generator

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
