"""Reading a model zip from a stranger without trusting it: each member's size checked before it is
decompressed, torch's archive checked before torch reads it, and the tensors checked before any
network is built. ``agents.files.model_file`` reads model zips through these; the bot file reader
(``agents.files.bot_file``) shares the limits on weights and on expansion.
"""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from typing import Any

from aos_env.base.checks import ArgumentError

#: The policy's weights in SB3's zip (a torch state dict).
WEIGHTS_MEMBER = "policy.pth"
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
#: The dtypes a weight may have: real floating point numbers (no float8, complex or integers).
REAL_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
#: What to do with a model that cannot be read safely.
HOW_TO_FIX = (
    "if it is a model you trained yourself, load it in the script that trained it (MaskablePPO.load or "
    "PPO.load, which trusts the file: for your own files only) and save it with "
    "agents.files.model_file.save_model(model, 'model.zip', num_players=2), or continue a train.py run "
    "once with --resume; never load a stranger's file that way"
)


def refuse_model(path: Any, what: str, fix: bool = False) -> ArgumentError:
    """The error for a model file that does not fit; ``fix``: add what to do about an old model."""
    sep = " " if what.split(" ", 1)[0] in ("is", "has", "was") else ": "  # "model 'x' is ...", "model 'x': its ..."
    return ArgumentError(f"model {str(path)!r}{sep}{what}" + (f" ({HOW_TO_FIX})" if fix else ""))


def read_member(z: zipfile.ZipFile, name: str, limit: int, path) -> bytes:
    """A member's bytes, refused unread if it says it is larger than ``limit`` or expands more
    than ``MAX_EXPANSION`` times its compressed size (``check_member_size``)."""
    info = z.getinfo(name)
    check_member_size(z, info, limit, path)
    with z.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise refuse_model(path, f"its member {name!r} holds more than the {limit:,} bytes it may")
    return data


def check_member_size(z: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, path) -> None:
    """What a member's entry says of its size, checked before a byte of it is decompressed: at most
    ``limit`` bytes, compressed into no more than the file holds, expanding at most ``MAX_EXPANSION``
    times (a member of mostly zeros would cost memory and time out of all proportion to the file)."""
    if info.file_size > limit:
        raise refuse_model(
            path, f"its member {info.filename!r} holds {info.file_size:,} bytes, more than the {limit:,} it may"
        )
    problem = expansion_problem(info, zip_file_size(z))
    if problem is not None:
        raise refuse_model(path, problem)


def zip_file_size(z: zipfile.ZipFile) -> int | None:
    """The size of the file under ``z`` (None: not a file, e.g. an in-memory zip)."""
    try:
        return os.fstat(z.fp.fileno()).st_size if z.fp is not None else None
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None


def expansion_problem(info: zipfile.ZipInfo, file_size: int | None) -> str | None:
    """What is wrong with a member's entry before a byte of it is decompressed (None: nothing):
    compressed into more than the file holds, or expanding more than ``MAX_EXPANSION`` times (a
    member of mostly zeros would cost memory and time out of all proportion to the file)."""
    name = info.filename[:80]
    if file_size is not None and info.compress_size > file_size:
        return f"its member {name!r} claims {info.compress_size:,} compressed bytes, more than the file"
    if info.file_size > MAX_EXPANSION * info.compress_size + EXPANSION_SLACK:
        return (
            f"its member {name!r} expands from {info.compress_size:,} to {info.file_size:,} bytes, more than "
            f"{MAX_EXPANSION} times (MAX_EXPANSION): trained weights do not compress so, it is not read"
        )
    return None


def check_torch_archive(data: bytes, params: int, path) -> None:
    """``policy.pth`` is torch's zip archive (what ``torch.save`` writes, and SB3 with it), whose
    records (the tensors' bytes) together fit the parameters: checked from its directory before
    torch reads it, so no declared size makes torch allocate more. Torch's older raw-pickle format
    declares its storages' sizes inside the pickle and is not read."""
    head = f"its {WEIGHTS_MEMBER} is not a file of tensors"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            records = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise refuse_model(path, f"{head} (not torch's zip format, which torch.save writes)") from None
    total = sum(r.file_size for r in records)
    limit = params * MAX_BYTES_PER_PARAMETER + WEIGHTS_OVERHEAD_BYTES
    if total > limit or any(r.file_size > MAX_EXPANSION * r.compress_size + EXPANSION_SLACK for r in records):
        raise refuse_model(path, f"{head} of the size its networks need ({total:,} bytes inside, at most {limit:,})")


def check_tensors(state: dict, path) -> None:
    """Every tensor a plain dense tensor on the CPU of real floats, finite and at most
    ``MAX_ABS_WEIGHT`` in magnitude, of at most 2 dimensions (checked in this order: a meta or
    sparse tensor has no values to look at)."""
    import torch

    for key, t in state.items():
        name = f"its weight {key[:80]}"
        if type(t) not in (torch.Tensor, torch.nn.Parameter) or t.layout != torch.strided:
            raise refuse_model(path, f"{name} is a {t.layout} {type(t).__name__}, not a dense tensor")
        if t.device.type != "cpu":
            raise refuse_model(path, f"{name} is on device {t.device.type!r}, it holds no numbers")
        if str(t.dtype).removeprefix("torch.") not in REAL_FLOAT_DTYPES or t.is_quantized:
            raise refuse_model(
                path, f"{name} holds {t.dtype} numbers; weights are real floats ({', '.join(REAL_FLOAT_DTYPES)})"
            )
        if t.ndim > 2:
            raise refuse_model(path, f"{name} has shape {tuple(t.shape)}; a layer's weights have 2 dimensions")
        if t.numel() and not bool(torch.isfinite(t).all()):
            raise refuse_model(path, f"{name} holds NaN or infinite numbers")
        if t.numel() and float(t.abs().max()) > MAX_ABS_WEIGHT:
            raise refuse_model(
                path,
                f"{name} holds {float(t.abs().max()):.3g}, more than {MAX_ABS_WEIGHT:g} (MAX_ABS_WEIGHT) in "
                "magnitude: its logits would overflow; no trained network has such weights",
            )


def load_tensors(data: bytes, path: Any) -> dict:
    """``policy.pth``'s state dict, read by torch with ``weights_only`` (tensors and plain
    containers, never an arbitrary object); anything else is refused."""
    import torch

    try:
        with warnings.catch_warnings():  # torch warns of a raw pickle's protocol before it refuses the pickle
            warnings.simplefilter("ignore", UserWarning)
            state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # an UnpicklingError for anything but tensors, RuntimeError for a broken archive
        raise refuse_model(
            path,
            f"its {WEIGHTS_MEMBER} is not a file of tensors ({type(e).__name__}: "
            f"{str(e).splitlines()[0][:200] if str(e) else ''})",
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise refuse_model(path, f"its {WEIGHTS_MEMBER} is not a state dict (names to tensors)")
    return state
