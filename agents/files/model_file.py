"""Saved models (``.zip``) that can be read without running code from them.

stable-baselines3's loader (``MaskablePPO.load``) unpickles parts of a zip's ``data`` member, and
an unpickled object can run any code: a model file from a stranger must never go through it. So
``train.py`` saves every model with :func:`save_model`, which adds a plain-JSON member
(``MEMBER``) holding the architecture, and everything that *plays* a model (``PolicyAgent``,
``make_agent("x.zip")``, ``agents.files.export``, the opponents of ``train.py`` and of the play page)
reads it with :func:`load_policy`:

- the JSON member, checked field by field (format, types, ranges, this env's observation
  version and size, its number of actions, a parameter count under ``MAX_PARAMETERS``);
- ``policy.pth`` with ``torch.load(..., weights_only=True)``, which builds tensors and plain
  containers only, never an arbitrary object;
- the network built from the JSON architecture and the weights loaded strictly (every name and
  shape as the architecture says, finite numbers only).

A model with a shared trunk (``train.py --shared-trunk``, ``agents.files.trunk``) has format version
2 and a "trunk" entry (its layer sizes; ``net_arch`` then holds the heads' own layers), so an older
reader refuses it by its version; this one builds the trunk from those sizes.

A model saved by SB3's own ``model.save("x.zip")`` (PPO or MaskablePPO, ``MlpPolicy``) has no JSON
member: its architecture is then taken from the shapes of the tensors in ``policy.pth`` and its
activation from the plain-text description SB3 writes beside the pickled ``policy_kwargs`` in the
``data`` member (read as JSON; its ``:serialized:`` pickles are never decoded). Such a file does not
say for how many players it was trained (``aos_meta["num_players"]`` is None; export asks for
``--players``).

Everything is checked before anything large is read or built: each zip member's size against the
file (a member that expands more than ``MAX_EXPANSION`` times is refused unread), ``policy.pth``'s
size against the parameters the architecture needs, and every tensor's name, shape, dtype (real
floats only: float16, bfloat16, float32, float64), layout (dense), device, finiteness and magnitude
(``MAX_ABS_WEIGHT``) before the network is built. A file that does not fit (not a zip, bad JSON,
wrong shapes, a pickle where tensors should be) is refused with an ``ArgumentError`` that names it.

SB3's full loader remains for one case only: ``train.py --resume`` of one's own run folder (it
needs the optimizer state and the training counters that only ``data`` holds): ``agents.files.sb3_file``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from aos_env import core
from aos_env.base.checks import ArgumentError, check_file, check_string, fail, is_int
from aos_env.base.files import atomic_path

# the checked reading of the zip's members and tensors (its limits, MAX_EXPANSION, MAX_ABS_WEIGHT, ..., are named there)
from .checked_zip import (
    MAX_BYTES_PER_PARAMETER,
    WEIGHTS_MEMBER,
    WEIGHTS_OVERHEAD_BYTES,
    check_member_size,
    check_tensors,
    check_torch_archive,
    load_tensors,
    read_member,
    refuse_model,
)
from .sb3_plain import MAX_LAYERS, MAX_PARAMETERS, expected_shapes, parameter_count, sb3_activation, sb3_meta

#: The JSON member that save_model adds to SB3's zip.
MEMBER = "aos_env_model.json"
FORMAT = "aos-model"
FORMAT_VERSION = 1
#: The format version of a model with a shared trunk (``agents.files.trunk``; its meta has "trunk"):
#: an older reader refuses it by its version rather than by its unexpected weights.
TRUNK_FORMAT_VERSION = 2
#: Activation names of the JSON member (the bot format's too).
ACTIVATIONS = ("tanh", "relu")
#: Player counts a model can be trained for.
PLAYER_COUNTS = (2, 3, 4)
#: The JSON member is a few hundred bytes; a larger one is refused unread.
MAX_JSON_BYTES = 64 * 1024


def check_spaces(observation_space, action_space, what: str) -> None:
    """A policy must read this env's observations and choose among its actions."""
    from gymnasium import spaces

    want_obs, want_act = (core.OBS_DIM,), core.NUM_ACTIONS
    shape = getattr(observation_space, "shape", None)
    if not isinstance(observation_space, spaces.Box) or shape != want_obs:
        raise ArgumentError(
            f"{what} observes {observation_space}, but this env's observations have shape {want_obs} "
            f"({core.OBS_DIM} numbers): it was trained for another env or another version of it"
        )
    if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != want_act:
        raise ArgumentError(f"{what} chooses among {action_space}, but this env has Discrete({want_act}) actions")


def _hidden_sizes(policy) -> dict[str, list[int]]:
    """The hidden layer sizes of a live policy's two networks."""
    import torch.nn as nn

    return {
        key: [m.out_features for m in body.modules() if isinstance(m, nn.Linear)]
        for key, body in (("pi", policy.mlp_extractor.policy_net), ("vf", policy.mlp_extractor.value_net))
    }


def _trunk_sizes(policy) -> list[int]:
    """The layer sizes of a live policy's shared trunk ([] without one)."""
    from .trunk import trunk_of

    return [lin.out_features for lin in trunk_of(policy)]


def _activation_name(policy) -> str:
    import torch.nn as nn

    names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    name = names.get(getattr(policy, "activation_fn", None))  # type: ignore[arg-type]  # any object: None if unknown
    if name is None:
        raise ArgumentError(
            f"save_model: the policy's activation must be one of {', '.join(ACTIVATIONS)} "
            f"(nn.Tanh or nn.ReLU), got {getattr(policy, 'activation_fn', None)!r}"
        )
    return name


def model_meta(model, num_players: int) -> dict:
    """The JSON member for a live MaskablePPO ``model`` trained for ``num_players`` players."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .trunk import Trunk

    if not is_int(num_players) or num_players not in PLAYER_COUNTS:
        raise fail("num_players", "2, 3 or 4", num_players)
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "mlp_extractor"):
        raise fail("model", "a MaskablePPO model", model)
    check_spaces(policy.observation_space, policy.action_space, "save_model: the model")
    if not isinstance(policy.features_extractor, (FlattenExtractor, Trunk)) or not policy.share_features_extractor:
        raise ArgumentError(
            "save_model: the policy must read the observation as it is (SB3's MlpPolicy: "
            "FlattenExtractor) or through one shared trunk (agents.files.trunk.Trunk), shared by both networks"
        )
    trunk = _trunk_sizes(policy)
    return {
        "format": FORMAT,
        "format_version": TRUNK_FORMAT_VERSION if trunk else FORMAT_VERSION,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_actions": core.NUM_ACTIONS,
        "num_players": int(num_players),
        "net_arch": _hidden_sizes(policy),
        **({"trunk": trunk} if trunk else {}),
        "activation": _activation_name(policy),
    }


def save_model(model, path, num_players: int) -> Path:
    """Save a MaskablePPO ``model`` to ``path`` (a ``.zip``) as SB3 does, plus the JSON member that
    lets :func:`load_policy` read it without unpickling. Written to a temporary file beside ``path``
    and renamed into place: a crash or a full disk leaves the previous file whole."""
    path = Path(path)
    if path.suffix.lower() != ".zip":
        raise ArgumentError(f"save_model: the path must end in .zip (SB3 adds it otherwise), got {str(path)!r}")
    meta = model_meta(model, num_players)
    with atomic_path(path) as tmp:
        model.save(tmp)
        with zipfile.ZipFile(tmp, "a") as z:
            z.writestr(MEMBER, json.dumps(meta))
    return path


# ---- reading ----------------------------------------------------------------------------------


def _int_in(meta: dict, key: str, allowed: tuple | range, path) -> int:
    value = meta.get(key)
    if not is_int(value) or value not in allowed:
        shown = f"{allowed[0]}..{allowed[-1]}" if isinstance(allowed, range) else " or ".join(map(str, allowed))
        raise refuse_model(path, f"{MEMBER} has {key} {value!r}, expected {shown}")
    return int(value)  # type: ignore[arg-type]  # is_int said so


def check_meta(meta: Any, path) -> dict:
    """The JSON member's fields, checked: a dict of the form :func:`model_meta` writes, for this
    env's observations and actions. Raises ArgumentError naming ``path``."""
    if not isinstance(meta, dict):
        raise refuse_model(path, f"{MEMBER} is not a JSON object")
    if meta.get("format") != FORMAT:
        raise refuse_model(path, f"{MEMBER} has format {meta.get('format')!r}, expected {FORMAT!r}")
    version = _int_in(meta, "format_version", (FORMAT_VERSION, TRUNK_FORMAT_VERSION), path)
    for key, want, what in (
        ("obs_version", core.OBS_VERSION, "observation version"),
        ("obs_dim", core.OBS_DIM, "observation size"),
        ("num_actions", core.NUM_ACTIONS, "number of actions"),
    ):
        value = meta.get(key)
        if not is_int(value) or value != want:
            raise refuse_model(
                path,
                f"was trained for {what} {value!r}, this env has {want}: it is a model of "
                "another env or another version of it (a bot file of an older observation version "
                "keeps playing: export the model from the aos-env that trained it)",
            )
    num_players = _int_in(meta, "num_players", PLAYER_COUNTS, path)
    arch = meta.get("net_arch")
    if not isinstance(arch, dict) or set(arch) != {"pi", "vf"}:
        raise refuse_model(path, f'{MEMBER} has net_arch {arch!r}, expected {{"pi": [sizes], "vf": [sizes]}}')
    trunk = meta.get("trunk", [])
    if ("trunk" in meta) != (version == TRUNK_FORMAT_VERSION) or (version == TRUNK_FORMAT_VERSION and not trunk):
        must = "must" if version == TRUNK_FORMAT_VERSION else "must not"
        raise refuse_model(path, f"{MEMBER} of format_version {version} {must} have a trunk")
    for key, sizes in (*arch.items(), ("trunk", trunk)):
        if (
            not isinstance(sizes, list)
            or len(sizes) > MAX_LAYERS
            or not all(is_int(s) and 1 <= s <= MAX_PARAMETERS for s in sizes)
        ):
            raise refuse_model(
                path,
                f"{MEMBER} has {key if key == 'trunk' else f'net_arch[{key!r}]'} {sizes!r}, expected a list of at "
                f"most {MAX_LAYERS} layer sizes >= 1",
            )
    if parameter_count(arch, trunk) > MAX_PARAMETERS:
        raise refuse_model(
            path,
            f"its networks {arch} would have {parameter_count(arch, trunk):,} parameters, more than the "
            f"{MAX_PARAMETERS:,} a model file may have",
        )
    activation = meta.get("activation")
    if activation not in ACTIVATIONS:
        raise refuse_model(path, f"{MEMBER} has activation {activation!r}, expected one of {', '.join(ACTIVATIONS)}")
    arch = {k: [int(s) for s in v] for k, v in arch.items()}
    shared = {"trunk": [int(s) for s in trunk]} if trunk else {}
    return {**meta, "num_players": num_players, "net_arch": arch, **shared}


def model_path(path) -> Path:
    """An existing file; like SB3, ``"runs/x/model"`` also finds ``"runs/x/model.zip"``."""
    if isinstance(path, (str, Path)) and not Path(path).exists() and Path(f"{path}.zip").is_file():
        path = f"{path}.zip"
    return check_file("model", path)


def _open_zip(path) -> tuple[Path, zipfile.ZipFile]:
    file = model_path(path)
    if not zipfile.is_zipfile(file):
        raise refuse_model(path, "is not a model saved by train.py or SB3's model.save (it is not a zip file)")
    try:
        return file, zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise refuse_model(path, f"is not a readable zip file ({type(e).__name__}: {e})") from None


def read_meta(path) -> dict:
    """The checked meta of a model file: its JSON member (see :func:`check_meta`), or for a model
    saved by SB3's own ``model.save`` the architecture its weights have (``num_players`` None)."""
    return read_model(path)[0]


def _read_meta(z: zipfile.ZipFile, path) -> dict | None:
    """The checked JSON member; None for a model saved by SB3's own ``save`` (no JSON member)."""
    names = set(z.namelist())
    if MEMBER not in names:
        if {"data", WEIGHTS_MEMBER} <= names:
            return None
        raise refuse_model(
            path,
            f"is a zip file but not a model saved by train.py or SB3: it has neither {MEMBER} nor "
            f"SB3's data and {WEIGHTS_MEMBER} inside",
        )
    try:
        meta = json.loads(read_member(z, MEMBER, MAX_JSON_BYTES, path).decode("utf-8"))
    except ArgumentError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError, zipfile.BadZipFile, OSError) as e:
        raise refuse_model(path, f"its {MEMBER} is not readable JSON ({type(e).__name__}: {e})") from None
    return check_meta(meta, path)


def read_model(path) -> tuple[dict, dict]:
    """(meta, state dict) of a model file, read without unpickling and checked whole (every tensor's
    name, shape, dtype, layout, finiteness and magnitude) before anything is built."""
    _, z = _open_zip(path)
    with z:
        meta = _read_meta(z, path)
        if meta is None:  # saved by SB3's own model.save
            activation = sb3_activation(z, path)
            state = _read_weights(z, None, path)
            check_tensors(state, path)
            meta = sb3_meta(state, activation, path)
        else:
            state = _read_weights(z, meta, path)
            check_tensors(state, path)
    _check_shapes(state, expected_shapes(meta["net_arch"], meta.get("trunk", [])), path)
    return meta, state


def check_device(name: str, device: Any) -> str:
    """A torch device this machine has: ``cpu``, or ``cuda``/``cuda:N`` where CUDA is available
    (and has that many GPUs), ... Checked by placing a tiny tensor on it."""
    import torch

    device = check_string(name, device)
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError):
        raise fail(name, "a torch device such as 'cpu' or 'cuda'", device) from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise fail(name, "a device this machine has (torch.cuda.is_available() is False here: use cpu)", device)
    if dev.type == "meta":  # shapes without numbers: nothing can be computed on it
        raise fail(name, "a device that holds numbers (cpu, cuda, ...; 'meta' holds shapes only)", device)
    try:
        float(torch.ones(1, device=dev).cpu()[0])  # placed there and read back
    except Exception as e:  # torch raises RuntimeError, AssertionError, ... for a device it lacks
        raise fail(name, f"a device this machine has ({type(e).__name__}: {str(e)[:200]})", device) from None
    return device


def build_policy(meta: dict):
    """An untrained MaskableActorCriticPolicy of the architecture a checked meta describes."""
    import torch.nn as nn
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from aos_env.envs.spaces import observation_box

    from .trunk import trunk_policy_kwargs

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[meta["activation"]]
    heads = {k: list(v) for k, v in meta["net_arch"].items()}
    trunk = meta.get("trunk", [])
    plain = {"net_arch": heads, "activation_fn": activation}
    kwargs = trunk_policy_kwargs(trunk, heads, activation) if trunk else plain
    return MaskableActorCriticPolicy(observation_box(), spaces.Discrete(core.NUM_ACTIONS), lambda _: 0.0, **kwargs)


def _read_weights(z: zipfile.ZipFile, meta: dict | None, path) -> dict:
    if WEIGHTS_MEMBER not in z.namelist():
        raise refuse_model(path, f"has no {WEIGHTS_MEMBER} (the policy's weights) inside")
    info = z.getinfo(WEIGHTS_MEMBER)
    params = parameter_count(meta["net_arch"], meta.get("trunk", [])) if meta is not None else MAX_PARAMETERS
    check_member_size(z, info, params * MAX_BYTES_PER_PARAMETER + WEIGHTS_OVERHEAD_BYTES, path)
    if meta is not None and info.file_size < 2 * params:  # float16, the smallest real float, has 2 bytes
        raise refuse_model(
            path,
            f"its {WEIGHTS_MEMBER} holds {info.file_size:,} bytes, too few for the {params:,} parameters "
            f"of the networks its {MEMBER} describes",
        )
    data = read_member(z, WEIGHTS_MEMBER, info.file_size, path)
    check_torch_archive(data, params, path)
    return load_tensors(data, path)


def _check_shapes(state: dict, want: dict[str, tuple[int, ...]], path) -> None:
    """Every tensor the architecture has, of its shape, and nothing else."""
    missing, extra = sorted(set(want) - set(state)), sorted(set(state) - set(want))
    if missing or extra:
        raise refuse_model(
            path,
            f"its weights do not fit the architecture of its {MEMBER} (missing: "
            f"{', '.join(missing[:5]) or 'none'}; unexpected: {', '.join(k[:60] for k in extra[:5]) or 'none'})",
        )
    for key, tensor in state.items():
        if tuple(tensor.shape) != want[key]:
            raise refuse_model(
                path,
                f"its weight {key} has shape {tuple(tensor.shape)}, the architecture of its {MEMBER} needs {want[key]}",
            )


def load_policy(path, device: str = "cpu"):
    """The policy of a model file saved by :func:`save_model`, read without unpickling anything:
    a ``MaskableActorCriticPolicy`` in evaluation mode, on ``device``, with the file's meta as its
    attribute ``aos_meta``. Raises ArgumentError naming the file if it does not fit (see the module
    docstring), FileNotFoundError if it does not exist."""
    device = check_device("device", device)
    meta, state = read_model(path)  # checked whole before the network is built
    policy = build_policy(meta)
    want = policy.state_dict()
    # a file's float16 or float64 weights are cast to the policy's float32
    policy.load_state_dict({k: v.to(want[k].dtype) for k, v in state.items()}, strict=True)
    policy.set_training_mode(False)
    policy.aos_meta = meta
    return policy.to(device)


__all__ = [
    "MEMBER",
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_PARAMETERS",
    "save_model",
    "load_policy",
    "read_meta",
    "read_model",
    "expected_shapes",
    "check_meta",
    "check_device",
    "model_path",
    "read_member",
    "parameter_count",
]
