"""A shared trunk: one MLP that the policy and value heads of a MaskablePPO both read
(``train.py --shared-trunk``).

SB3's ``MlpPolicy`` gives the policy and the value function separate networks, so every forward
and backward pass runs two MLPs. With a shared trunk it runs one: SB3's features extractor becomes
this MLP (shared by both heads, SB3's ``share_features_extractor``) and the heads are SB3's
``action_net`` and ``value_net`` on top of it (with ``net_arch`` hidden layers of their own, none by
default). A bot file has no trunk: ``agents.files.export`` writes the trunk into both of its networks,
which then compute what the model computes.

Imports SB3 and torch: load it only where a policy is built.
"""

from __future__ import annotations

from typing import Any

import torch.nn as nn
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class Trunk(BaseFeaturesExtractor):
    """Linear layers of ``sizes`` with ``activation_fn`` after each: the observation's features
    for both heads (``net.0``, ``net.2``, ... are the Linear layers)."""

    def __init__(self, observation_space: Any, sizes: list[int], activation_fn: type[nn.Module] = nn.Tanh) -> None:
        super().__init__(observation_space, int(sizes[-1]))
        layers: list[nn.Module] = []
        width = int(observation_space.shape[0])
        for size in sizes:
            layers += [nn.Linear(width, int(size)), activation_fn()]
            width = int(size)
        self.net = nn.Sequential(*layers)

    def forward(self, observations):  # type: ignore[no-untyped-def]  # torch's Tensor in, Tensor out
        return self.net(observations)


def trunk_policy_kwargs(trunk: list[int], heads: dict[str, list[int]], activation_fn: type[nn.Module]) -> dict:
    """SB3 ``policy_kwargs`` of a policy whose heads (hidden sizes ``heads``: {"pi": [...], "vf": [...]})
    read one shared ``trunk``."""
    return {
        "net_arch": {k: list(v) for k, v in heads.items()},
        "activation_fn": activation_fn,
        "features_extractor_class": Trunk,
        "features_extractor_kwargs": {"sizes": list(trunk), "activation_fn": activation_fn},
        "share_features_extractor": True,
    }


def trunk_of(policy: Any) -> list[nn.Linear]:
    """The Linear layers of a policy's shared trunk, input first ([] for SB3's plain MlpPolicy)."""
    extractor = getattr(policy, "features_extractor", None)
    if not isinstance(extractor, Trunk):
        return []
    return [m for m in extractor.net if isinstance(m, nn.Linear)]
