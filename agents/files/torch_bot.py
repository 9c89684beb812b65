"""Your own torch policy as a bot file: ``torch_to_bot(module, path, num_players=2)``.

A bot file (docs/api.md, "The bot file format") holds a feed-forward policy as plain arrays and
plays with numpy alone (``agents.players.bot.BotAgent``): ``make_agent("my_bot.npz")``, and so in
``python -m agents.evaluation.evaluate``, the leaderboard, ``aos_env.apps.play`` and as an env's opponent. This
module writes one from a plain torch MLP: an ``nn.Sequential`` of ``nn.Linear`` layers with one
kind of activation (``nn.Tanh`` or ``nn.ReLU``) between them, mapping the observation
(``core.OBS_DIM`` floats) to the 44 action logits, and optionally a value network of the same
form mapping it to one number. Needs torch (the ``train`` extra); playing the file does not.

    policy = nn.Sequential(nn.Linear(core.OBS_DIM, 64), nn.Tanh(), nn.Linear(64, core.NUM_ACTIONS))
    torch_to_bot(policy, "my_bot.npz", num_players=2)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_int, check_output_file, fail
from aos_env.core.constants import MAX_PLAYERS, MIN_PLAYERS

from .bot_file import BOT_SUFFIX, bot_meta, check_info, write_bot_file

#: torch activation classes by the name the bot format records (agents.players.bot plays these two).
ACTIVATION_NAMES = {"Tanh": "tanh", "ReLU": "relu"}


def _layers(name: str, module: Any, outputs: int) -> tuple[list[np.ndarray], list[np.ndarray], str | None]:
    """The (in, out) float32 weights and (out,) biases of ``module``, an ``nn.Sequential`` of
    Linear layers with one activation between each two, from ``core.OBS_DIM`` inputs to
    ``outputs``; and the activation's bot name (None: a single Linear layer)."""
    import torch.nn as nn

    if not isinstance(module, nn.Sequential) or not len(module):
        raise fail(name, "a torch nn.Sequential of Linear layers with Tanh or ReLU between them", module)
    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    acts: set[str] = set()
    expect_linear = True  # the bot format applies the activation between every two Linear layers
    for i, layer in enumerate(module):
        kind = type(layer).__name__
        if isinstance(layer, nn.Linear) and expect_linear:
            w = layer.weight.detach().cpu().numpy().T.astype(np.float32)
            b = layer.bias.detach().cpu().numpy() if layer.bias is not None else np.zeros(w.shape[1])
            if weights and w.shape[0] != weights[-1].shape[1]:
                raise ArgumentError(
                    f"{name}[{i}]: Linear takes {w.shape[0]} inputs, the layer before gives {weights[-1].shape[1]}"
                )
            weights.append(np.ascontiguousarray(w))
            biases.append(b.astype(np.float32))
        elif kind in ACTIVATION_NAMES and not expect_linear:
            acts.add(ACTIVATION_NAMES[kind])
        else:
            wanted = "a Linear layer" if expect_linear else "an activation (Tanh or ReLU)"
            raise ArgumentError(
                f"{name}[{i}] must be {wanted}, got {kind}: the bot format plays Linear layers "
                "with one activation (Tanh or ReLU) between each two, and nothing else"
            )
        expect_linear = not expect_linear
    if expect_linear:
        raise ArgumentError(
            f"{name} must end with a Linear layer (its outputs are used as they are), got {type(module[-1]).__name__}"
        )
    if len(acts) > 1:
        raise ArgumentError(f"{name} must use one kind of activation, got {', '.join(sorted(acts))}")
    if weights[0].shape[0] != core.OBS_DIM:
        raise ArgumentError(
            f"{name} must take the observation ({core.OBS_DIM} inputs, observation version "
            f"{core.OBS_VERSION}), got {weights[0].shape[0]} inputs"
        )
    if weights[-1].shape[1] != outputs:
        raise ArgumentError(
            f"{name} must give {outputs} output{'s' if outputs > 1 else ''}, got {weights[-1].shape[1]}"
        )
    return weights, biases, next(iter(acts), None)


def torch_to_bot(module: Any, path, *, num_players: int, value: Any = None, info: dict | None = None) -> Path:
    """Write the torch policy ``module`` (and the value network ``value``, if given) to the bot
    file ``path`` (.npz), atomically; returns the path.

    ``module``: an ``nn.Sequential`` of ``nn.Linear`` layers with one activation, ``nn.Tanh`` or
    ``nn.ReLU``, between each two, from the observation (``core.OBS_DIM``) to the 44 action
    logits; the bot plays the most likely legal action (``:deterministic=false`` samples).
    ``value``: the same form, to one output (search agents use it to value positions).
    ``num_players``: the game size it was trained for (2..4). ``info``: JSON values kept in the
    file (how it was trained). Anything else (other layer types, two activations, wrong sizes)
    is an ArgumentError naming the layer; nothing is written then.
    """
    num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    out = check_output_file("path", path)
    if out.suffix.lower() != BOT_SUFFIX:
        raise ArgumentError(f"path must end in {BOT_SUFFIX} (a bot file), got {str(path)!r}")
    info = check_info(info)
    pi_w, pi_b, act = _layers("module", module, core.NUM_ACTIONS)
    arrays = {**{f"pi_w{i}": w for i, w in enumerate(pi_w)}, **{f"pi_b{i}": b for i, b in enumerate(pi_b)}}
    if value is not None:
        vf_w, vf_b, vf_act = _layers("value", value, 1)
        if act is not None and vf_act is not None and vf_act != act:
            raise ArgumentError(f"value must use the policy's activation ({act}), got {vf_act}: a bot file has one")
        act = act or vf_act
        arrays.update({f"vf_w{i}": w for i, w in enumerate(vf_w)})
        arrays.update({f"vf_b{i}": b for i, b in enumerate(vf_b)})
    meta = bot_meta(num_players, act or "tanh", info)  # no hidden layer: the activation is never applied
    return write_bot_file(out, meta, arrays)
