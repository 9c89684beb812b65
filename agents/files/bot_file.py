"""The bot file: a trained policy as plain arrays in an ``.npz``, read and written here only.

A bot file holds a feed-forward policy network (and optionally its value network) that plays with
numpy alone (``agents.players.bot.BotAgent``, ``make_agent("bot.npz")``). Its members:

- ``meta.npy``: one JSON text (``bot_meta``): ``format`` (``FORMAT``), ``format_version``,
  ``obs_version`` and ``obs_dim`` (the observation it reads), ``num_players`` (the table size it was
  trained for), ``activation`` (``tanh`` or ``relu``, between every two layers) and ``info``
  (anything its writer keeps: the training run, a note).
- ``pi_w0.npy, pi_b0.npy, ...``: the policy's layers, input first, weights as (in, out), float16
  or float32; ``vf_w0.npy, ...``: the value network's, if it has one.

Every writer builds the meta with ``bot_meta`` and writes with ``write_bot_file`` (or
``bot_file_bytes``): ``python -m agents.files.export``, ``agents.files.torch_bot`` and the RLlib
trainer (through ``aos_env.base.registry``). Every reader goes through ``read_bot_file``,
``check_meta`` and ``check_layers`` (``read_networks`` does all three).
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_int, fail, format_bytes
from aos_env.base.files import write_bytes
from aos_env.core.constants import MAX_PLAYERS, MIN_PLAYERS
from aos_env.core.obs_layout import OLDER_VERSIONS, obs_dim_of_version

from .checked_zip import MAX_ABS_WEIGHT, expansion_problem

FORMAT = "aos-bot"
FORMAT_VERSION = 1
#: The activations a bot file may name, as numpy functions (applied between every two layers).
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
BOT_SUFFIX = ".npz"


# ---- writing a bot file ----------------------------------------------------------------------------


def bot_meta(num_players: int, activation: str, info: dict | None = None) -> dict:
    """The meta of a bot file of this env's observation (``core.OBS_VERSION``) for ``num_players``
    players, whose networks use ``activation``; ``info``: JSON values kept with it."""
    num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    if activation not in ACTIVATIONS:
        raise fail("activation", " or ".join(map(repr, ACTIVATIONS)), activation)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_players": num_players,
        "activation": activation,
        "info": check_info(info),
    }


def check_info(info: Any) -> dict:
    """A bot file's ``info``: None (nothing) or a dict of JSON values."""
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise fail("info", "None or a dict of JSON values (kept in the file's meta)", info)
    try:
        json.dumps(info)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"info must hold JSON values only (strings, numbers, lists, dicts): {e}") from None
    return info


def bot_file_bytes(meta: dict, arrays: dict[str, np.ndarray]) -> bytes:
    """A bot file's bytes: ``meta`` (``bot_meta``) and the layers ``arrays`` (``pi_w0``, ...)."""
    buf = io.BytesIO()
    members: dict[str, Any] = {_META: np.array(json.dumps(meta)), **arrays}
    np.savez_compressed(buf, **members)
    return buf.getvalue()


def write_bot_file(path, meta: dict, arrays: dict[str, np.ndarray]) -> Path:
    """Write a bot file to ``path`` atomically (a crash or a full disk leaves a previous file whole)."""
    return write_bytes(path, bot_file_bytes(meta, arrays))


# ---- reading and checking a bot file ------------------------------------------------------------
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
    "activation": (str, " or ".join(map(repr, ACTIVATIONS))),
}


class _Header(NamedTuple):
    """What a member's .npy header says: the array's shape, order and dtype, and its size in bytes."""

    shape: tuple[int, ...]
    fortran_order: bool
    dtype: np.dtype
    nbytes: int


def read_bot_file(path: Path, where: str, check=None) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, {name: array}) of the bot file ``path``: every member's header is checked (its name, its
    dtype, its size: ``MAX_BOT_BYTES`` in all, its expansion) before any array is read, the meta is
    read first, and ``check(meta, shapes)`` (if given) is called before any weight is read.
    ArgumentError naming the file (``where``) for a file that is not a zip, is truncated or holds
    anything else."""
    try:
        file_size = Path(path).stat().st_size
        with zipfile.ZipFile(path) as zf:
            members = _members(zf, where)
            for info in members.values():
                _check_expansion(info, file_size, where)
            headers = {name: _member_header(zf, info, where) for name, info in members.items()}
            total = sum(h.nbytes for h in headers.values())
            if total > MAX_BOT_BYTES:
                raise ArgumentError(
                    f"{where}: its arrays would take {format_bytes(total)}; a bot file may hold at "
                    f"most {format_bytes(MAX_BOT_BYTES)} (MAX_BOT_BYTES)"
                )
            if _META not in headers:
                raise ArgumentError(
                    f"{where} is not a bot file (python -m agents.files.export writes one): it has no {_META!r}"
                )
            meta = _read_meta(_member_data(zf, members[_META], headers[_META], _META, where), where)
            if check is not None:
                check(meta, {name: h.shape for name, h in headers.items() if name != _META})
            arrays = {
                name: _member_data(zf, members[name], h, name, where) for name, h in headers.items() if name != _META
            }
    except ArgumentError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as e:
        # not a zip, truncated, a compression zipfile cannot read, an encrypted member, a header numpy cannot parse
        raise ArgumentError(
            f"{where} is not a bot file (python -m agents.files.export writes one): {type(e).__name__}: {str(e)[:200]}"
        ) from None
    return meta, arrays


def _read_meta(array: np.ndarray, where: str) -> Any:
    try:
        return json.loads(array.item())
    except (ValueError, RecursionError) as e:
        raise ArgumentError(f"{where}: its meta is not JSON ({type(e).__name__}: {str(e)[:80]})") from None


def _check_expansion(info: zipfile.ZipInfo, file_size: int, where: str) -> None:
    """A member's entry, checked before a byte of it is decompressed (the limits model zips have too)."""
    problem = expansion_problem(info, file_size)
    if problem is not None:
        raise ArgumentError(f"{where}: {problem.removeprefix('its ')}")


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
    return np.frombuffer(data, dtype=header.dtype).reshape(header.shape, order="F" if header.fortran_order else "C")


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
    if meta["num_players"] not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ArgumentError(f"{where}: meta field 'num_players' must be 2, 3 or 4, got {meta['num_players']}")
    if meta["activation"] not in ACTIVATIONS:
        raise ArgumentError(
            f"{where}: meta field 'activation' must be {_META_TYPES['activation'][1]}, got {meta['activation']!r:.60}"
        )
    return version, dim


def check_layers(
    arrays: dict[str, Any], prefix: str, inputs: int, outputs: int, where: str
) -> tuple[list[Any], list[Any]]:
    """The weights and biases of one network (``prefix`` "pi" or "vf"), checked: layers 0..n-1 each
    with a weight and a bias, shapes that chain from ``inputs`` numbers to ``outputs``, and (for
    arrays, not for the shapes alone that ``read_networks`` checks first) finite values of at most
    ``MAX_ABS_WEIGHT`` in magnitude."""
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
        w, b = _Shaped.of(arrays[f"{prefix}_w{i}"]), _Shaped.of(arrays.get(f"{prefix}_b{i}"))
        if b is None:
            raise ArgumentError(f"{where}: its {net} network lacks the bias of layer {i} ({prefix}_b{i})")
        want_out = outputs if i == n - 1 else None
        if w.ndim != 2 or w.shape[0] != width or w.shape[1] < 1 or (want_out is not None and w.shape[1] != want_out):
            wanted = f"({width}, {want_out if want_out is not None else 'n >= 1'})"
            why = ("the observation's size" if i == 0 else "the previous layer's outputs") + (
                f"; the last layer has {outputs} output{'s' if outputs > 1 else ''}" if want_out is not None else ""
            )
            raise ArgumentError(f"{where}: {prefix}_w{i} has shape {w.shape}, this layer needs {wanted} ({why})")
        if _Shaped.of(b).shape != (w.shape[1],):
            raise ArgumentError(f"{where}: {prefix}_b{i} has shape {b.shape}, the layer's bias needs ({w.shape[1]},)")
        for name, arr in ((f"{prefix}_w{i}", w), (f"{prefix}_b{i}", b)):
            if not isinstance(arr, np.ndarray):
                continue  # a shape only: the values are checked once read
            if not np.isfinite(arr).all():
                raise ArgumentError(f"{where}: {name} holds NaN or infinite weights")
            if arr.size and float(np.abs(arr).max()) > MAX_ABS_WEIGHT:
                raise ArgumentError(
                    f"{where}: {name} holds {float(np.abs(arr).max()):.3g}, more than {MAX_ABS_WEIGHT:g} "
                    "(MAX_ABS_WEIGHT) in magnitude: its logits would overflow; no trained network has such weights"
                )
        weights.append(arrays[f"{prefix}_w{i}"])
        biases.append(arrays[f"{prefix}_b{i}"])
        width = w.shape[1]
    return weights, biases


class _Shaped(NamedTuple):
    """An array's shape alone (from its .npy header), checked as the array would be."""

    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @staticmethod
    def of(x: Any) -> Any:
        return _Shaped(tuple(x)) if isinstance(x, tuple) and not isinstance(x, _Shaped) else x


class Networks(NamedTuple):
    """A bot file read and checked whole: its meta, the observation version its networks read, and
    the (weights, biases) of the policy and of the value network (None: it has none)."""

    meta: dict
    obs_version: int
    policy: tuple[list[np.ndarray], list[np.ndarray]]
    value: tuple[list[np.ndarray], list[np.ndarray]] | None


def read_networks(path: Path, where: str) -> Networks:
    """The bot file ``path`` read (``read_bot_file``) and checked (``check_meta``, ``check_layers``):
    an ArgumentError naming it (``where``) for anything that is not a bot file this env plays."""

    def check_shapes(meta: Any, shapes: dict[str, tuple[int, ...]]) -> None:  # before any weight is read
        _, dim = check_meta(meta, where)
        check_layers(shapes, "pi", dim, core.NUM_ACTIONS, where)
        if any(name.startswith("vf_") for name in shapes):
            check_layers(shapes, "vf", dim, 1, where)

    meta, arrays = read_bot_file(path, where, check_shapes)
    version, obs_dim = check_meta(meta, where)
    policy = check_layers(arrays, "pi", obs_dim, core.NUM_ACTIONS, where)
    has_value = any(name.startswith("vf_") for name in arrays)
    value = check_layers(arrays, "vf", obs_dim, 1, where) if has_value else None
    return Networks(meta, version, policy, value)
