"""What a model zip says of its network, read without unpickling: the parameter count and tensor
shapes of SB3's ``MlpPolicy`` for given hidden sizes, and, for a model saved by SB3's own
``model.save`` (no JSON member), its architecture from its tensors' shapes and its activation from
the plain text SB3 writes beside its pickles. ``agents.files.model_file`` reads model zips with these.
"""

from __future__ import annotations

import json
import zipfile

from aos_env import core
from aos_env.base.checks import ArgumentError

from .checked_zip import read_member, refuse_model

#: The largest network a model file may describe (weights and biases of both networks): about
#: 400 MB of float32, far above any network train.py trains (256,256 has 0.5 million).
MAX_PARAMETERS = 100_000_000
#: Hidden layers per network at most (a file describing more is not one train.py wrote).
MAX_LAYERS = 64
#: SB3's ``data`` member (JSON with pickles inside, which are never decoded) is read up to this size.
MAX_DATA_BYTES = 16 << 20
#: SB3's description of its default and of the supported activations (``str`` of the class).
SB3_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
}
#: The state dict names of a shared trunk (``agents.files.trunk``): SB3 registers the one extractor
#: under all three (the file stores its tensors once).
TRUNK_NAMES = ("features_extractor", "pi_features_extractor", "vf_features_extractor")
#: policy_kwargs that do not change the network a plain SB3 model plays with.
SB3_HARMLESS_KWARGS = ("net_arch", "activation_fn", "ortho_init", "optimizer_class", "optimizer_kwargs")


def parameter_count(net_arch: dict[str, list[int]], trunk: list[int] | tuple[int, ...] = ()) -> int:
    """Weights and biases of the policy network (to ``core.NUM_ACTIONS`` logits) and of the value
    network (to one value) for hidden sizes ``{"pi": [...], "vf": [...]}``, after the layers of a
    shared ``trunk`` (counted once) if there is one."""
    sizes = [core.OBS_DIM, *trunk]
    total = sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
    first = sizes[-1]  # what both heads read: the trunk's last layer, or the observation
    for key, out in (("pi", core.NUM_ACTIONS), ("vf", 1)):
        sizes = [first, *net_arch[key], out]
        total += sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
    return total


def sb3_activation(z: zipfile.ZipFile, path) -> str:
    """The activation of a model saved by SB3's own ``save``: from the plain-text fields SB3 writes
    beside the pickled ``policy_kwargs`` in its ``data`` member (the pickle is never decoded)."""
    try:
        data = json.loads(read_member(z, "data", MAX_DATA_BYTES, path).decode("utf-8"))
    except ArgumentError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError, zipfile.BadZipFile, OSError) as e:
        raise refuse_model(path, f"its SB3 data member is not readable JSON ({type(e).__name__})", fix=True) from None
    kwargs = data.get("policy_kwargs", {}) if isinstance(data, dict) else None
    if not isinstance(kwargs, dict):
        raise refuse_model(path, "its SB3 data member has no readable policy_kwargs", fix=True)
    unknown = sorted(str(k)[:40] for k in set(kwargs) - {":type:", ":serialized:", *SB3_HARMLESS_KWARGS})
    if unknown:
        raise refuse_model(
            path,
            f"was saved by SB3 with policy_kwargs {', '.join(unknown)}, which cannot be rebuilt without "
            "unpickling; only MlpPolicy networks with net_arch and activation_fn (Tanh or ReLU) are read",
            fix=True,
        )
    activation = kwargs.get("activation_fn")
    if activation is None:
        return "tanh"  # SB3's default for MlpPolicy
    if activation not in SB3_ACTIVATIONS:
        raise refuse_model(path, f"uses the activation {str(activation)[:80]!r}; only Tanh or ReLU are read", fix=True)
    return SB3_ACTIVATIONS[activation]


def expected_shapes(
    net_arch: dict[str, list[int]], trunk: list[int] | tuple[int, ...] = ()
) -> dict[str, tuple[int, ...]]:
    """The state dict's names and shapes of SB3's MlpPolicy with hidden sizes ``net_arch`` (without
    building it): mlp_extractor.{policy,value}_net.{0,2,...}, action_net and value_net; with a shared
    ``trunk`` (``agents.files.trunk``), its layers first, under each name SB3 registers it by."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = core.OBS_DIM
    for i, size in enumerate(trunk):
        for name in TRUNK_NAMES:
            shapes[f"{name}.net.{2 * i}.weight"] = (size, width)
            shapes[f"{name}.net.{2 * i}.bias"] = (size,)
        width = size
    first = width
    for key, body, head, out in (
        ("pi", "policy_net", "action_net", core.NUM_ACTIONS),
        ("vf", "value_net", "value_net", 1),
    ):
        width = first
        for i, size in enumerate(net_arch[key]):
            shapes[f"mlp_extractor.{body}.{2 * i}.weight"] = (size, width)
            shapes[f"mlp_extractor.{body}.{2 * i}.bias"] = (size,)
            width = size
        shapes[f"{head}.weight"] = (out, width)
        shapes[f"{head}.bias"] = (out,)
    return shapes


def sb3_meta(state: dict, activation: str, path) -> dict:
    """The meta of a model saved by SB3's own ``save``: its hidden sizes from its tensors' shapes."""
    arch: dict[str, list[int]] = {}
    for key, body in (("pi", "policy_net"), ("vf", "value_net")):
        sizes: list[int] = []
        i = 0
        while f"mlp_extractor.{body}.{i}.weight" in state and len(sizes) <= MAX_LAYERS:
            sizes.append(int(state[f"mlp_extractor.{body}.{i}.weight"].shape[0]))
            i += 2  # an activation between every two Linear layers
        arch[key] = sizes
    first = state.get("mlp_extractor.policy_net.0.weight", state.get("action_net.weight"))
    if first is not None and first.ndim == 2 and first.shape[1] != core.OBS_DIM:
        raise refuse_model(
            path,
            f"reads {first.shape[1]} numbers, this env's observations have {core.OBS_DIM} (observation "
            f"version {core.OBS_VERSION}): it was trained on another env or another version of it",
        )
    if set(state) != set(expected_shapes(arch)) or parameter_count(arch) > MAX_PARAMETERS:
        extra = sorted(set(state) - set(expected_shapes(arch)))
        raise refuse_model(
            path,
            "was saved by SB3 but its weights are not those of an MlpPolicy on this env's Box observation"
            + (f" (unexpected: {', '.join(k[:60] for k in extra[:3])})" if extra else ""),
            fix=True,
        )
    return {
        "format": "sb3",
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_actions": core.NUM_ACTIONS,
        "num_players": None,  # SB3's file does not say
        "net_arch": arch,
        "activation": activation,
    }
