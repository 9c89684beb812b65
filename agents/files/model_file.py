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

import io
import json
import os
import warnings
import zipfile
from pathlib import Path
from typing import Any

from aos_env import core
from aos_env.base.checks import ArgumentError, check_file, check_string, fail, is_int
from aos_env.base.files import atomic_path

#: The JSON member that save_model adds to SB3's zip.
MEMBER = "aos_env_model.json"
FORMAT = "aos-model"
FORMAT_VERSION = 1
#: The policy's weights in SB3's zip (a torch state dict).
WEIGHTS_MEMBER = "policy.pth"
#: Activation names of the JSON member (the bot format's too).
ACTIVATIONS = ("tanh", "relu")
#: Player counts a model can be trained for.
PLAYER_COUNTS = (2, 3, 4)
#: The largest network a model file may describe (weights and biases of both networks): about
#: 400 MB of float32, far above any network train.py trains (256,256 has 0.5 million).
MAX_PARAMETERS = 100_000_000
#: Hidden layers per network at most (a file describing more is not one train.py wrote).
MAX_LAYERS = 64
#: The JSON member is a few hundred bytes; a larger one is refused unread.
MAX_JSON_BYTES = 64 * 1024
#: policy.pth may hold at most this many bytes per parameter (float64 weights) plus this overhead
#: (torch's archive records), so a forged size never makes the reader allocate more.
MAX_BYTES_PER_PARAMETER = 8
WEIGHTS_OVERHEAD_BYTES = 1 << 20
#: The largest magnitude a weight may have: trained networks stay far below it (the shipped bots'
#: weights are below 2); a larger one makes the logits overflow to inf and NaN.
MAX_ABS_WEIGHT = 1e4
#: A member may expand at most this many times its compressed size (plus EXPANSION_SLACK bytes):
#: trained weights hardly compress (SB3 stores them uncompressed), so a member that expands more
#: holds mostly zeros and is refused before it is decompressed.
MAX_EXPANSION = 20
EXPANSION_SLACK = 1 << 16
#: SB3's ``data`` member (JSON with pickles inside, which are never decoded) is read up to this size.
MAX_DATA_BYTES = 16 << 20
#: The dtypes a weight may have: real floating point numbers (no float8, complex or integers).
REAL_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
#: What to do with a model that cannot be read safely.
HOW_TO_FIX = (
    "if it is a model you trained yourself, load it in the script that trained it (MaskablePPO.load or "
    "PPO.load, which trusts the file: for your own files only) and save it with "
    "agents.files.model_file.save_model(model, 'model.zip', num_players=2), or continue a train.py run "
    "once with --resume; never load a stranger's file that way"
)
#: SB3's description of its default and of the supported activations (``str`` of the class).
SB3_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
}
#: policy_kwargs that do not change the network a plain SB3 model plays with.
SB3_HARMLESS_KWARGS = ("net_arch", "activation_fn", "ortho_init", "optimizer_class", "optimizer_kwargs")


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


def _refuse(path: Any, what: str, fix: bool = False) -> ArgumentError:
    """The error for a model file that does not fit; ``fix``: add what to do about an old model."""
    sep = " " if what.split(" ", 1)[0] in ("is", "has", "was") else ": "  # "model 'x' is ...", "model 'x': its ..."
    return ArgumentError(f"model {str(path)!r}{sep}{what}" + (f" ({HOW_TO_FIX})" if fix else ""))


def parameter_count(net_arch: dict[str, list[int]]) -> int:
    """Weights and biases of the policy network (to ``core.NUM_ACTIONS`` logits) and of the value
    network (to one value) for hidden sizes ``{"pi": [...], "vf": [...]}``."""
    total = 0
    for key, out in (("pi", core.NUM_ACTIONS), ("vf", 1)):
        sizes = [core.OBS_DIM, *net_arch[key], out]
        total += sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))
    return total


def _hidden_sizes(policy) -> dict[str, list[int]]:
    """The hidden layer sizes of a live policy's two networks."""
    import torch.nn as nn

    return {
        key: [m.out_features for m in body.modules() if isinstance(m, nn.Linear)]
        for key, body in (("pi", policy.mlp_extractor.policy_net), ("vf", policy.mlp_extractor.value_net))
    }


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

    if not is_int(num_players) or num_players not in PLAYER_COUNTS:
        raise fail("num_players", "2, 3 or 4", num_players)
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "mlp_extractor"):
        raise fail("model", "a MaskablePPO model", model)
    check_spaces(policy.observation_space, policy.action_space, "save_model: the model")
    if not isinstance(policy.features_extractor, FlattenExtractor) or not policy.share_features_extractor:
        raise ArgumentError(
            "save_model: the policy must read the observation as it is (SB3's MlpPolicy: "
            "FlattenExtractor, shared by both networks)"
        )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_actions": core.NUM_ACTIONS,
        "num_players": int(num_players),
        "net_arch": _hidden_sizes(policy),
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
        raise _refuse(path, f"{MEMBER} has {key} {value!r}, expected {shown}")
    return int(value)  # type: ignore[arg-type]  # is_int said so


def check_meta(meta: Any, path) -> dict:
    """The JSON member's fields, checked: a dict of the form :func:`model_meta` writes, for this
    env's observations and actions. Raises ArgumentError naming ``path``."""
    if not isinstance(meta, dict):
        raise _refuse(path, f"{MEMBER} is not a JSON object")
    if meta.get("format") != FORMAT:
        raise _refuse(path, f"{MEMBER} has format {meta.get('format')!r}, expected {FORMAT!r}")
    _int_in(meta, "format_version", (FORMAT_VERSION,), path)
    for key, want, what in (
        ("obs_version", core.OBS_VERSION, "observation version"),
        ("obs_dim", core.OBS_DIM, "observation size"),
        ("num_actions", core.NUM_ACTIONS, "number of actions"),
    ):
        value = meta.get(key)
        if not is_int(value) or value != want:
            raise _refuse(
                path,
                f"was trained for {what} {value!r}, this env has {want}: it is a model of "
                "another env or another version of it (a bot file of an older observation version "
                "keeps playing: export the model from the aos-env that trained it)",
            )
    num_players = _int_in(meta, "num_players", PLAYER_COUNTS, path)
    arch = meta.get("net_arch")
    if not isinstance(arch, dict) or set(arch) != {"pi", "vf"}:
        raise _refuse(path, f'{MEMBER} has net_arch {arch!r}, expected {{"pi": [sizes], "vf": [sizes]}}')
    for key, sizes in arch.items():
        if (
            not isinstance(sizes, list)
            or len(sizes) > MAX_LAYERS
            or not all(is_int(s) and 1 <= s <= MAX_PARAMETERS for s in sizes)
        ):
            raise _refuse(
                path,
                f"{MEMBER} has net_arch[{key!r}] {sizes!r}, expected a list of at most {MAX_LAYERS} layer sizes >= 1",
            )
    if parameter_count(arch) > MAX_PARAMETERS:
        raise _refuse(
            path,
            f"its networks {arch} would have {parameter_count(arch):,} parameters, more than the "
            f"{MAX_PARAMETERS:,} a model file may have",
        )
    activation = meta.get("activation")
    if activation not in ACTIVATIONS:
        raise _refuse(path, f"{MEMBER} has activation {activation!r}, expected one of {', '.join(ACTIVATIONS)}")
    return {**meta, "num_players": num_players, "net_arch": {k: [int(s) for s in v] for k, v in arch.items()}}


def model_path(path) -> Path:
    """An existing file; like SB3, ``"runs/x/model"`` also finds ``"runs/x/model.zip"``."""
    if isinstance(path, (str, Path)) and not Path(path).exists() and Path(f"{path}.zip").is_file():
        path = f"{path}.zip"
    return check_file("model", path)


def read_member(z: zipfile.ZipFile, name: str, limit: int, path) -> bytes:
    """A member's bytes, refused unread if it says it is larger than ``limit`` or expands more
    than ``MAX_EXPANSION`` times its compressed size (``check_member_size``)."""
    info = z.getinfo(name)
    check_member_size(z, info, limit, path)
    with z.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise _refuse(path, f"its member {name!r} holds more than the {limit:,} bytes it may")
    return data


def check_member_size(z: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, path) -> None:
    """What a member's entry says of its size, checked before a byte of it is decompressed: at most
    ``limit`` bytes, compressed into no more than the file holds, expanding at most ``MAX_EXPANSION``
    times (a member of mostly zeros would cost memory and time out of all proportion to the file)."""
    name = info.filename
    if info.file_size > limit:
        raise _refuse(path, f"its member {name!r} holds {info.file_size:,} bytes, more than the {limit:,} it may")
    file_size = _zip_file_size(z)
    if file_size is not None and info.compress_size > file_size:
        raise _refuse(path, f"its member {name!r} claims {info.compress_size:,} compressed bytes, more than the file")
    if info.file_size > MAX_EXPANSION * info.compress_size + EXPANSION_SLACK:
        raise _refuse(
            path,
            f"its member {name!r} expands from {info.compress_size:,} to {info.file_size:,} bytes, more than "
            f"{MAX_EXPANSION} times (MAX_EXPANSION): trained weights do not compress so, it is not read",
        )


def _zip_file_size(z: zipfile.ZipFile) -> int | None:
    try:
        return os.fstat(z.fp.fileno()).st_size if z.fp is not None else None
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None


def _open_zip(path) -> tuple[Path, zipfile.ZipFile]:
    file = model_path(path)
    if not zipfile.is_zipfile(file):
        raise _refuse(path, "is not a model saved by train.py or SB3's model.save (it is not a zip file)")
    try:
        return file, zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise _refuse(path, f"is not a readable zip file ({type(e).__name__}: {e})") from None


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
        raise _refuse(
            path,
            f"is a zip file but not a model saved by train.py or SB3: it has neither {MEMBER} nor "
            f"SB3's data and {WEIGHTS_MEMBER} inside",
        )
    try:
        meta = json.loads(read_member(z, MEMBER, MAX_JSON_BYTES, path).decode("utf-8"))
    except ArgumentError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError, zipfile.BadZipFile, OSError) as e:
        raise _refuse(path, f"its {MEMBER} is not readable JSON ({type(e).__name__}: {e})") from None
    return check_meta(meta, path)


def _sb3_activation(z: zipfile.ZipFile, path) -> str:
    """The activation of a model saved by SB3's own ``save``: from the plain-text fields SB3 writes
    beside the pickled ``policy_kwargs`` in its ``data`` member (the pickle is never decoded)."""
    try:
        data = json.loads(read_member(z, "data", MAX_DATA_BYTES, path).decode("utf-8"))
    except ArgumentError:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError, zipfile.BadZipFile, OSError) as e:
        raise _refuse(path, f"its SB3 data member is not readable JSON ({type(e).__name__})", fix=True) from None
    kwargs = data.get("policy_kwargs", {}) if isinstance(data, dict) else None
    if not isinstance(kwargs, dict):
        raise _refuse(path, "its SB3 data member has no readable policy_kwargs", fix=True)
    unknown = sorted(str(k)[:40] for k in set(kwargs) - {":type:", ":serialized:", *SB3_HARMLESS_KWARGS})
    if unknown:
        raise _refuse(
            path,
            f"was saved by SB3 with policy_kwargs {', '.join(unknown)}, which cannot be rebuilt without "
            "unpickling; only MlpPolicy networks with net_arch and activation_fn (Tanh or ReLU) are read",
            fix=True,
        )
    activation = kwargs.get("activation_fn")
    if activation is None:
        return "tanh"  # SB3's default for MlpPolicy
    if activation not in SB3_ACTIVATIONS:
        raise _refuse(path, f"uses the activation {str(activation)[:80]!r}; only Tanh or ReLU are read", fix=True)
    return SB3_ACTIVATIONS[activation]


def expected_shapes(net_arch: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """The state dict's names and shapes of SB3's MlpPolicy with hidden sizes ``net_arch`` (without
    building it): mlp_extractor.{policy,value}_net.{0,2,...}, action_net and value_net."""
    shapes: dict[str, tuple[int, ...]] = {}
    for key, body, head, out in (
        ("pi", "policy_net", "action_net", core.NUM_ACTIONS),
        ("vf", "value_net", "value_net", 1),
    ):
        width = core.OBS_DIM
        for i, size in enumerate(net_arch[key]):
            shapes[f"mlp_extractor.{body}.{2 * i}.weight"] = (size, width)
            shapes[f"mlp_extractor.{body}.{2 * i}.bias"] = (size,)
            width = size
        shapes[f"{head}.weight"] = (out, width)
        shapes[f"{head}.bias"] = (out,)
    return shapes


def _sb3_meta(state: dict, activation: str, path) -> dict:
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
        raise _refuse(
            path,
            f"reads {first.shape[1]} numbers, this env's observations have {core.OBS_DIM} (observation "
            f"version {core.OBS_VERSION}): it was trained on another env or another version of it",
        )
    if set(state) != set(expected_shapes(arch)) or parameter_count(arch) > MAX_PARAMETERS:
        extra = sorted(set(state) - set(expected_shapes(arch)))
        raise _refuse(
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


def read_model(path) -> tuple[dict, dict]:
    """(meta, state dict) of a model file, read without unpickling and checked whole (every tensor's
    name, shape, dtype, layout, finiteness and magnitude) before anything is built."""
    _, z = _open_zip(path)
    with z:
        meta = _read_meta(z, path)
        if meta is None:  # saved by SB3's own model.save
            activation = _sb3_activation(z, path)
            state = _read_weights(z, None, path)
            _check_tensors(state, path)
            meta = _sb3_meta(state, activation, path)
        else:
            state = _read_weights(z, meta, path)
            _check_tensors(state, path)
    _check_shapes(state, expected_shapes(meta["net_arch"]), path)
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

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[meta["activation"]]
    return MaskableActorCriticPolicy(
        observation_box(),
        spaces.Discrete(core.NUM_ACTIONS),
        lambda _: 0.0,
        net_arch={k: list(v) for k, v in meta["net_arch"].items()},
        activation_fn=activation,
    )


def _read_weights(z: zipfile.ZipFile, meta: dict | None, path) -> dict:
    import torch

    if WEIGHTS_MEMBER not in z.namelist():
        raise _refuse(path, f"has no {WEIGHTS_MEMBER} (the policy's weights) inside")
    info = z.getinfo(WEIGHTS_MEMBER)
    params = parameter_count(meta["net_arch"]) if meta is not None else MAX_PARAMETERS
    check_member_size(z, info, params * MAX_BYTES_PER_PARAMETER + WEIGHTS_OVERHEAD_BYTES, path)
    if meta is not None and info.file_size < 2 * params:  # float16, the smallest real float, has 2 bytes
        raise _refuse(
            path,
            f"its {WEIGHTS_MEMBER} holds {info.file_size:,} bytes, too few for the {params:,} parameters "
            f"of the networks its {MEMBER} describes",
        )
    data = read_member(z, WEIGHTS_MEMBER, info.file_size, path)
    _check_torch_archive(data, params, path)
    try:  # weights_only: tensors and plain containers, never an arbitrary object
        with warnings.catch_warnings():  # torch warns of a raw pickle's protocol before it refuses the pickle
            warnings.simplefilter("ignore", UserWarning)
            state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # an UnpicklingError for anything but tensors, RuntimeError for a broken archive
        raise _refuse(
            path,
            f"its {WEIGHTS_MEMBER} is not a file of tensors ({type(e).__name__}: "
            f"{str(e).splitlines()[0][:200] if str(e) else ''})",
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise _refuse(path, f"its {WEIGHTS_MEMBER} is not a state dict (names to tensors)")
    return state


def _check_torch_archive(data: bytes, params: int, path) -> None:
    """``policy.pth`` is torch's zip archive (what ``torch.save`` writes, and SB3 with it), whose
    records (the tensors' bytes) together fit the parameters: checked from its directory before
    torch reads it, so no declared size makes torch allocate more. Torch's older raw-pickle format
    declares its storages' sizes inside the pickle and is not read."""
    head = f"its {WEIGHTS_MEMBER} is not a file of tensors"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            records = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise _refuse(path, f"{head} (not torch's zip format, which torch.save writes)") from None
    total = sum(r.file_size for r in records)
    limit = params * MAX_BYTES_PER_PARAMETER + WEIGHTS_OVERHEAD_BYTES
    if total > limit or any(r.file_size > MAX_EXPANSION * r.compress_size + EXPANSION_SLACK for r in records):
        raise _refuse(path, f"{head} of the size its networks need ({total:,} bytes inside, at most {limit:,})")


def _check_tensors(state: dict, path) -> None:
    """Every tensor a plain dense tensor on the CPU of real floats, finite and at most
    ``MAX_ABS_WEIGHT`` in magnitude, of at most 2 dimensions (checked in this order: a meta or
    sparse tensor has no values to look at)."""
    import torch

    for key, t in state.items():
        name = f"its weight {key[:80]}"
        if type(t) not in (torch.Tensor, torch.nn.Parameter) or t.layout != torch.strided:
            raise _refuse(path, f"{name} is a {t.layout} {type(t).__name__}, not a dense tensor")
        if t.device.type != "cpu":
            raise _refuse(path, f"{name} is on device {t.device.type!r}, it holds no numbers")
        if str(t.dtype).removeprefix("torch.") not in REAL_FLOAT_DTYPES or t.is_quantized:
            raise _refuse(
                path, f"{name} holds {t.dtype} numbers; weights are real floats ({', '.join(REAL_FLOAT_DTYPES)})"
            )
        if t.ndim > 2:
            raise _refuse(path, f"{name} has shape {tuple(t.shape)}; a layer's weights have 2 dimensions")
        if t.numel() and not bool(torch.isfinite(t).all()):
            raise _refuse(path, f"{name} holds NaN or infinite numbers")
        if t.numel() and float(t.abs().max()) > MAX_ABS_WEIGHT:
            raise _refuse(
                path,
                f"{name} holds {float(t.abs().max()):.3g}, more than {MAX_ABS_WEIGHT:g} (MAX_ABS_WEIGHT) in "
                "magnitude: its logits would overflow; no trained network has such weights",
            )


def _check_shapes(state: dict, want: dict[str, tuple[int, ...]], path) -> None:
    """Every tensor the architecture has, of its shape, and nothing else."""
    missing, extra = sorted(set(want) - set(state)), sorted(set(state) - set(want))
    if missing or extra:
        raise _refuse(
            path,
            f"its weights do not fit the architecture of its {MEMBER} (missing: "
            f"{', '.join(missing[:5]) or 'none'}; unexpected: {', '.join(k[:60] for k in extra[:5]) or 'none'})",
        )
    for key, tensor in state.items():
        if tuple(tensor.shape) != want[key]:
            raise _refuse(
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
