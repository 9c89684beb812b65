"""PolicyAgent: a policy trained by ``train.py`` (sb3-contrib MaskablePPO) as an agent.

    agent = PolicyAgent("runs/default/model.zip")
    actions = agent.act(obs, mask)

Needs the ``train`` extra (torch, sb3-contrib). By default it plays the most
likely legal action; ``deterministic=False`` samples from the policy instead.

A model file is read by ``agents.files.model_file.load_policy``, which runs no code from the file: it
takes the architecture from the plain-JSON member that ``train.py`` writes and the weights with
``torch.load(weights_only=True)``, and never opens the pickled ``data`` member that SB3's own
loader unpickles. A model saved by SB3's own ``model.save`` (PPO or MaskablePPO, MlpPolicy) is
read the same way, its architecture taken from its weights' shapes. The file must be a model of
this env (``core.OBS_DIM`` numbers in, one of ``core.NUM_ACTIONS`` actions out), so a model of
another env fails at once instead of at its first move.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_bool, fail

from ..files.model_file import check_device, check_spaces, load_policy
from ..files.sb3_file import check_sb3_model_file
from .base import BaseAgent, choose_from_logits


def check_model_file(path) -> Path:
    """The path of a model SB3's own loader can continue (``train.py --resume``): see
    ``agents.files.sb3_file.check_sb3_model_file``. Playing a model needs more: ``load_policy``."""
    return check_sb3_model_file(path)


class PolicyAgent(BaseAgent):
    """Wraps a MaskablePPO policy (loaded from a .zip, or a copy of a live model's policy)."""

    name = "policy"

    def __init__(
        self, path=None, seed: int | None = 0, deterministic: bool = True, policy=None, device: str = "cpu"
    ) -> None:
        if (path is None) == (policy is None):
            raise ArgumentError("give either a model path or a policy (not both)")
        deterministic = check_bool("deterministic", deterministic)
        super().__init__(seed)
        if path is not None:
            device = check_device("device", device)
            policy = load_policy(path, device=device)  # no code from the file: see agents.files.model_file
            self.name = str(path)
            # the game size it was trained for; None for a model saved by SB3's own save (not recorded)
            self.num_players = policy.aos_meta["num_players"]
        else:
            if not all(callable(getattr(policy, m, None)) for m in ("predict", "set_training_mode")):
                raise fail("policy", "a MaskablePPO policy (model.policy)", policy)
            check_spaces(getattr(policy, "observation_space", None), getattr(policy, "action_space", None), "policy")
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    @classmethod
    def snapshot(cls, model, deterministic: bool = False, seed: int | None = 0) -> PolicyAgent:
        """A frozen copy of a live model's policy (for self-play opponents and evaluation)."""
        policy = model.policy_class(
            model.observation_space, model.action_space, model.lr_schedule, **model.policy_kwargs
        )
        policy.load_state_dict(model.policy.state_dict())  # copies the weights into the new policy
        return cls(policy=policy.to(model.device), deterministic=deterministic, seed=seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        out = np.zeros(mask.shape[0], dtype=np.int64)
        live = mask.any(1)
        if live.any():
            out[live] = choose_from_logits(self.logits(obs[live]), mask[live], self.deterministic, self.rng)
        return out

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """(n, 44) the policy's unmasked logits (computed here rather than by SB3's ``predict``, whose
        distribution refuses NaN logits with a ValueError: an overflow must still give a legal move)."""
        import torch
        from stable_baselines3.common.policies import BaseModel

        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(obs, dtype=np.float32), device=policy.device)
            features = BaseModel.extract_features(policy, x, policy.pi_features_extractor)
            return policy.action_net(policy.mlp_extractor.forward_actor(features)).float().cpu().numpy()
