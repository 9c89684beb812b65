"""BotAgent: a policy trained by ``train.py`` that plays with numpy alone (no torch).

    from agents import make_agent
    bot = make_agent("bot")                    # the shipped bot, for 2, 3 or 4 players
    bot = make_agent("runs/x/bot.npz")         # a policy exported with `python -m agents.files.export`
    actions = bot.act(obs, mask)

A bot file is an ``.npz`` holding the policy network of a MaskablePPO model (and its value
network, which search agents can use to value positions) as plain arrays, with the observation
version and the player count it was trained for. ``python -m agents.files.export MODEL.zip OUT.npz``
writes one from a saved model (that needs the ``train`` extra); playing needs only numpy.

The shipped bot lives in ``agents/data/bot_{2,3,4}p.npz``: ``make_agent("bot")`` loads all of them
and plays each observation with the network of its game's player count. The previous shipped
bot, trained on observation version 2, is ``make_agent("bot-v2")`` (``agents/data/bot_v2_{2,3,4}p.npz``).

**Bots of an older observation version keep playing.** A bot file records the observation
version it was trained on. One of an older version (``core.obs_layout.OLDER_VERSIONS``) reads
each observation rewritten in its own layout (``obs_layout.to_version``), and a question it
never saw gets the answer the game gave before the question existed (``OLD_VERSION_ANSWERS``):
it takes the effect. At a Homunculus flip it chooses among the mana as at a Research flip and
never declines (NO is not offered to it); at Nightmare's question it says YES.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_bool, check_file, format_bytes
from aos_env.core.obs_layout import OLDER_VERSIONS, G, obs_dim_of_version, to_version

from .base import BaseAgent

DATA = Path(__file__).resolve().parent.parent / "data"
SHIPPED = {p: DATA / f"bot_{p}p.npz" for p in (2, 3, 4)}
#: The previous shipped bot (observation version 2), kept as a rated opponent: ``make_agent("bot-v2")``.
SHIPPED_V2 = {p: DATA / f"bot_v2_{p}p.npz" for p in (2, 3, 4)}
FORMAT = "aos-bot"
FORMAT_VERSION = 1
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
_NUM_PLAYERS = G["num_players"]  # one-hot: 2, 3, 4 players
_PHASE = G["phase"]
_PLAYER_COUNTS = (2, 3, 4)
#: A bot of an older observation version at a decision it never saw: (the phase, its answer, or
#: None where it chooses as before among the legal actions less the ones listed). The answer is
#: what the game did before the decision existed: take the effect.
OLD_VERSION_ANSWERS: dict[core.Phase, tuple[int | None, tuple[int, ...]]] = {
    core.Phase.NIGHTMARE: (core.YES, ()),
    core.Phase.HOMUNCULUS_FLIP: (None, (core.NO,)),
}
_OBS_PHASE_POS = {p: core.OBS_PHASES.index(p) for p in OLD_VERSION_ANSWERS}


class MLP:
    """A feed-forward network: hidden layers with one activation, then a linear output layer."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str) -> None:
        if activation not in _ACTIVATIONS:
            raise ArgumentError(f"activation must be one of {', '.join(_ACTIVATIONS)}, got {activation!r}")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < last:
                h = self._act(h)
        return h


class BotNet:
    """One exported model: the policy (logits over the 44 actions) and, if present, the value.

    The file is checked whole when it is loaded (``read_bot_file``, ``check_meta``,
    ``check_layers``): a file that is not a bot file of this env is an ArgumentError naming it,
    never an error at the first move, and nothing in it is unpickled."""

    def __init__(self, path) -> None:
        p = check_file("bot", path)
        where = f"bot {str(path)!r}"
        meta, arrays = read_bot_file(p, where)
        version, obs_dim = check_meta(meta, where)
        self.path, self.meta = p, meta
        self.obs_version = version
        self.num_players = meta["num_players"]
        self.policy = MLP(*check_layers(arrays, "pi", obs_dim, core.NUM_ACTIONS, where), meta["activation"])
        has_value = any(name.startswith("vf_") for name in arrays)
        self.value = MLP(*check_layers(arrays, "vf", obs_dim, 1, where), meta["activation"]) if has_value else None

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """Observations (n, OBS_DIM) in the layout this network reads."""
        return to_version(obs, self.obs_version)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) masked logits: -inf where an action is illegal. A network of an older
        observation version gets ``OLD_VERSION_ANSWERS`` at the decisions it never saw."""
        if self.obs_version == core.OBS_VERSION:
            return np.where(mask, self.policy(obs), -np.inf).astype(np.float32)
        mask = np.array(mask, dtype=bool)
        answered = np.zeros(mask.shape[0], dtype=bool)
        for phase, (answer, hidden) in OLD_VERSION_ANSWERS.items():
            rows = obs[:, _PHASE.start + _OBS_PHASE_POS[phase]] > 0.5
            if not rows.any():
                continue
            if answer is not None:
                mask[rows] = False
                mask[rows, answer] = True
                answered |= rows
            else:
                keep = mask[rows]
                keep[:, list(hidden)] = False
                mask[rows] = np.where(keep.any(1, keepdims=True), keep, mask[rows])
        out = np.full(mask.shape, -np.inf, dtype=np.float32)
        asked = np.flatnonzero(~answered)
        if asked.size:
            out[asked] = np.where(mask[asked], self.policy(self.inputs(obs[asked])), -np.inf)
        out[answered] = np.where(mask[answered], 0.0, -np.inf)
        return out

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(n,) the value network's estimate of each position (the observer's return)."""
        if self.value is None:
            raise ArgumentError(f"bot {str(self.path)!r} has no value network")
        return self.value(self.inputs(obs))[:, 0]


# ---- reading and checking a bot file ------------------------------------------------------
# A bot file may come from anyone: it is read member by member with numpy's .npy header readers,
# each header checked (name, dtype, shape, size) before any data is read, and never unpickled.

#: The most bytes of arrays a bot file may hold, all members together, from their headers (a forged
#: header can claim any size; numpy would allocate it before reading). The shipped bots hold 1.7 MB.
MAX_BOT_BYTES = 1 << 30
#: The most bytes of the meta text (numpy keeps text as 4 bytes a character).
MAX_META_BYTES = 1 << 22
#: The most layers one network of a bot file may have.
MAX_LAYERS = 64
#: Weight dtypes a bot file may use (``python -m agents.files.export --float16`` writes float16).
WEIGHT_DTYPES = (np.dtype(np.float16), np.dtype(np.float32))
_META = "meta"
_MAX_MEMBERS = 1 + 2 * 2 * MAX_LAYERS  # the meta, a weight and a bias per layer of each network
_LAYER_NAME = re.compile(r"(pi|vf)_([wb])(0|[1-9][0-9]{0,5})")
_NPY = ".npy"
#: What a bot file's meta holds: field -> (its type, what the message says is allowed).
_META_TYPES: dict[str, tuple[type, str]] = {
    "format": (str, f"{FORMAT!r}"),
    "format_version": (int, f"{FORMAT_VERSION}"),
    "obs_version": (int, "an int"),
    "obs_dim": (int, "an int"),
    "num_players": (int, "2, 3 or 4"),
    "activation": (str, " or ".join(map(repr, _ACTIVATIONS))),
}


class _Header(NamedTuple):
    """What a member's .npy header says: the array's shape, order and dtype, and its size in bytes."""

    shape: tuple[int, ...]
    fortran_order: bool
    dtype: np.dtype
    nbytes: int


def read_bot_file(path: Path, where: str) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, {name: array}) of the bot file ``path``: every member's header is checked (its name, its
    dtype, its size: ``MAX_BOT_BYTES`` in all) before any array is read. ArgumentError naming the
    file (``where``) for a file that is not a zip, is truncated or holds anything else."""
    try:
        with zipfile.ZipFile(path) as zf:
            headers = {name: _member_header(zf, info, where) for name, info in _members(zf, where).items()}
            total = sum(h.nbytes for h in headers.values())
            if total > MAX_BOT_BYTES:
                raise ArgumentError(
                    f"{where}: its arrays would take {format_bytes(total)}; a bot file may hold at "
                    f"most {format_bytes(MAX_BOT_BYTES)} (MAX_BOT_BYTES)"
                )
            arrays = {name: _member_data(zf, zf.getinfo(name + _NPY), h, name, where) for name, h in headers.items()}
    except ArgumentError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as e:
        # not a zip, truncated, a compression zipfile cannot read, an encrypted member, a header numpy cannot parse
        raise ArgumentError(
            f"{where} is not a bot file (python -m agents.files.export writes one): {type(e).__name__}: {e}"
        ) from None
    if _META not in arrays:
        raise ArgumentError(
            f"{where} is not a bot file (python -m agents.files.export writes one): it has no {_META!r}"
        )
    text = arrays.pop(_META).item()
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ArgumentError(f"{where}: its meta is not JSON ({type(e).__name__}: {str(e)[:80]})") from None
    return meta, arrays


def _members(zf: zipfile.ZipFile, where: str) -> dict[str, zipfile.ZipInfo]:
    """The members of a bot file by array name: each one a .npy file named as export names them, once."""
    infos = zf.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise ArgumentError(
            f"{where} holds {len(infos):,} members; a bot file holds at most {_MAX_MEMBERS} (the meta "
            f"and a weight and a bias for each of at most {MAX_LAYERS} layers of two networks)"
        )
    out: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename.removesuffix(_NPY)
        if not info.filename.endswith(_NPY) or not (name == _META or _LAYER_NAME.fullmatch(name)):
            raise ArgumentError(
                f"{where}: unexpected member {info.filename[:80]!r}; a bot file holds "
                f"{_META}.npy and the layers pi_w0.npy, pi_b0.npy, ... (vf_w0.npy, ...)"
            )
        if name in out:
            raise ArgumentError(f"{where}: member {info.filename!r} appears twice")
        out[name] = info
    return out


def _member_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> _Header:
    """A member's .npy header, checked: a weight's dtype is one of WEIGHT_DTYPES, the meta a text;
    the size it claims fits the member and the limits."""
    name = info.filename.removesuffix(_NPY)
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ArgumentError(f"{where}: array {name!r} has .npy format version {version}; bot files use 1.0 or 2.0")
        header_bytes = f.tell()
    if any(n < 0 for n in shape):
        raise ArgumentError(f"{where}: array {name!r} has a negative size in its shape {shape}")
    nbytes = math.prod(shape) * dtype.itemsize  # Python ints: a forged shape cannot overflow
    if name == _META:
        if dtype.kind != "U" or shape != ():
            raise ArgumentError(
                f"{where}: {_META!r} must be one text (a 0-d str array), got dtype {dtype} and shape {shape}"
            )
        if nbytes > MAX_META_BYTES:
            raise ArgumentError(
                f"{where}: its meta would take {format_bytes(nbytes)}; at most "
                f"{format_bytes(MAX_META_BYTES)} (MAX_META_BYTES)"
            )
    elif dtype not in WEIGHT_DTYPES:
        raise ArgumentError(f"{where}: array {name!r} has dtype {dtype}; bot weights are float16 or float32")
    if nbytes > MAX_BOT_BYTES:
        raise ArgumentError(
            f"{where}: array {name!r} of shape {shape} would take {format_bytes(nbytes)}; a bot "
            f"file may hold at most {format_bytes(MAX_BOT_BYTES)} (MAX_BOT_BYTES)"
        )
    if header_bytes + nbytes > info.file_size:
        raise ArgumentError(
            f"{where} is truncated: array {name!r} of shape {shape} needs {nbytes:,} bytes, the "
            f"member holds {max(info.file_size - header_bytes, 0):,}"
        )
    return _Header(tuple(shape), bool(fortran_order), dtype, nbytes)


def _member_data(zf: zipfile.ZipFile, info: zipfile.ZipInfo, header: _Header, name: str, where: str) -> np.ndarray:
    """The array of a member whose header was checked: exactly ``header.nbytes`` bytes after the header."""
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        read_header(f)
        data = f.read(header.nbytes)
    if len(data) != header.nbytes:
        raise ArgumentError(f"{where} is truncated: array {name!r} has {len(data):,} of its {header.nbytes:,} bytes")
    order = "F" if header.fortran_order else "C"
    return np.frombuffer(data, dtype=header.dtype).reshape(header.shape, order=order)


def check_meta(meta: Any, where: str) -> tuple[int, int]:
    """A bot file's meta checked (its fields, their types, a format and observation version this env
    reads); returns (the observation version, its observation size)."""
    if not isinstance(meta, dict):
        raise ArgumentError(f"{where}: its meta must be a JSON object, got {type(meta).__name__}")
    for key, (typ, allowed) in _META_TYPES.items():
        value = meta.get(key)
        if not isinstance(value, typ) or isinstance(value, bool):
            got = "nothing" if key not in meta else f"{value!r:.60}"
            raise ArgumentError(f"{where}: meta field {key!r} must be {allowed}, got {got}")
    if meta["format"] != FORMAT or meta["format_version"] != FORMAT_VERSION:
        raise ArgumentError(f"{where}: not a {FORMAT} file of version {FORMAT_VERSION}")
    if not isinstance(meta.get("info", {}), dict):
        raise ArgumentError(f"{where}: meta field 'info' must be a JSON object, got {meta['info']!r:.60}")
    version, dim = meta["obs_version"], meta["obs_dim"]
    readable = (core.OBS_VERSION, *OLDER_VERSIONS)
    if version not in readable or dim != obs_dim_of_version(version):
        raise ArgumentError(
            f"{where} reads observations of version {version} ({dim} numbers); "
            f"this aos_env plays bots of versions {', '.join(map(str, readable))} "
            f"({', '.join(str(obs_dim_of_version(v)) for v in readable)} numbers): train or export it again"
        )
    if meta["num_players"] not in _PLAYER_COUNTS:
        raise ArgumentError(f"{where}: meta field 'num_players' must be 2, 3 or 4, got {meta['num_players']}")
    if meta["activation"] not in _ACTIVATIONS:
        raise ArgumentError(
            f"{where}: meta field 'activation' must be {_META_TYPES['activation'][1]}, got {meta['activation']!r:.60}"
        )
    return version, dim


def check_layers(
    arrays: dict[str, np.ndarray], prefix: str, inputs: int, outputs: int, where: str
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The weights and biases of one network (``prefix`` "pi" or "vf"), checked: layers 0..n-1 each
    with a weight and a bias, shapes that chain from ``inputs`` numbers to ``outputs``, finite values."""
    net = {"pi": "policy", "vf": "value"}[prefix]
    found = sorted(int(name[4:]) for name in arrays if name.startswith(f"{prefix}_w"))
    n = len(found)
    if not n:
        raise ArgumentError(f"{where} has no {net} network (array {prefix}_w0)")
    if n > MAX_LAYERS:
        raise ArgumentError(f"{where}: its {net} network has {n} layers; at most {MAX_LAYERS} (MAX_LAYERS)")
    if found != list(range(n)):
        missing = min(set(range(n)) - set(found))
        raise ArgumentError(f"{where}: its {net} network lacks layer {missing} ({prefix}_w{missing})")
    extra = sorted(name for name in arrays if name.startswith(f"{prefix}_b") and int(name[4:]) >= n)
    if extra:
        raise ArgumentError(f"{where}: array {extra[0]!r} is the bias of a layer it does not have")
    weights, biases, width = [], [], inputs
    for i in range(n):
        w, b = arrays[f"{prefix}_w{i}"], arrays.get(f"{prefix}_b{i}")
        if b is None:
            raise ArgumentError(f"{where}: its {net} network lacks the bias of layer {i} ({prefix}_b{i})")
        want_out = outputs if i == n - 1 else None
        if w.ndim != 2 or w.shape[0] != width or w.shape[1] < 1 or (want_out is not None and w.shape[1] != want_out):
            wanted = f"({width}, {want_out if want_out is not None else 'n >= 1'})"
            why = ("the observation's size" if i == 0 else "the previous layer's outputs") + (
                f"; the last layer has {outputs} output{'s' if outputs > 1 else ''}" if want_out is not None else ""
            )
            raise ArgumentError(f"{where}: {prefix}_w{i} has shape {w.shape}, this layer needs {wanted} ({why})")
        if b.shape != (w.shape[1],):
            raise ArgumentError(f"{where}: {prefix}_b{i} has shape {b.shape}, the layer's bias needs ({w.shape[1]},)")
        for name, arr in ((f"{prefix}_w{i}", w), (f"{prefix}_b{i}", b)):
            if not np.isfinite(arr).all():
                raise ArgumentError(f"{where}: {name} holds NaN or infinite weights")
        weights.append(w)
        biases.append(b)
        width = w.shape[1]
    return weights, biases


class BotAgent(BaseAgent):
    """A trained policy on numpy: the most likely legal action (``deterministic=False``: sampled).

    ``path``: a bot file (``.npz``); by default the shipped bots, one per player count, each row
    played by the network of its game's player count.
    """

    name = "bot"

    def __init__(
        self, path=None, seed: int | None = 0, deterministic: bool = True, shipped: dict | None = None
    ) -> None:
        super().__init__(seed)
        self.deterministic = check_bool("deterministic", deterministic)
        if path is None:
            files = SHIPPED if shipped is None else shipped
            missing = [str(f) for f in files.values() if not f.is_file()]
            if missing:
                raise FileNotFoundError(f"the shipped bot files are missing: {', '.join(missing)}")
            self.nets = {p: BotNet(f) for p, f in files.items()}
        else:
            net = BotNet(path)
            self.nets = {net.num_players: net}
            self.name = str(path)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) masked logits: -inf where an action is illegal."""
        players = _players(obs)
        out = np.full(mask.shape, -np.inf, dtype=np.float32)
        for p in np.unique(players):
            net = self.nets.get(int(p))
            if net is None:
                raise ArgumentError(
                    f"bot {self.name!r} plays {', '.join(map(str, sorted(self.nets)))}-player games, "
                    f"got a {p}-player observation"
                )
            rows = np.flatnonzero(players == p)
            out[rows] = net.logits(obs[rows], mask[rows])
        return out

    def log_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) the policy's log-probabilities of the legal actions (-inf where illegal)."""
        z = self.logits(obs, mask)
        z = z - z.max(1, keepdims=True)
        with np.errstate(divide="ignore"):
            return z - np.log(np.exp(z).sum(1, keepdims=True))

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(n,) the value network's estimate of each observed position (the observer's return)."""
        players = _players(obs)
        out = np.zeros(obs.shape[0], dtype=np.float32)
        for p in np.unique(players):
            net = self.nets.get(int(p))
            if net is None or net.value is None:
                raise ArgumentError(f"bot {self.name!r} has no value network for {p}-player games")
            rows = np.flatnonzero(players == p)
            out[rows] = net.values(obs[rows])
        return out

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        out = np.zeros(mask.shape[0], dtype=np.int64)
        live = np.flatnonzero(mask.any(1))
        if not live.size:
            return out
        logits = self.logits(obs[live], mask[live])
        if self.deterministic:
            out[live] = logits.argmax(1)
        else:
            z = logits - logits.max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            u = self.rng.random(live.size)[:, None]
            out[live] = np.minimum((p.cumsum(1) < u).sum(1), mask.shape[1] - 1)
        return out


def _players(obs: np.ndarray) -> np.ndarray:
    """(n,) the player count of each observation's game, from its ``num_players`` one-hot."""
    return obs[:, _NUM_PLAYERS].argmax(1) + 2
