"""SB3's own model files, for the one case that reads them with SB3's loader: ``train.py --resume``.

SB3's loader (``MaskablePPO.load``) unpickles the zip's ``data`` member, so it is for one's own run
folder only (``agents.files.model_file`` says why); what is checked here, before it runs, reads no
pickle: the zip's members (``check_sb3_model_file``) and the steps its ``data`` records as JSON
(``saved_timesteps``).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from aos_env.base.checks import ArgumentError

from .model_file import MAX_JSON_BYTES, WEIGHTS_MEMBER, model_path, read_member

#: Members of the zip that SB3's own loader (train.py --resume) needs.
SB3_MEMBERS = ("data", WEIGHTS_MEMBER)


def check_sb3_model_file(path) -> Path:
    """The path of a model that SB3's loader can continue (``train.py --resume``): an existing zip
    with the members SB3 writes. FileNotFoundError (naming the path as given) if it does not exist;
    ArgumentError if it is not such a zip. Nothing is unpickled here."""
    p = model_path(path)
    if not zipfile.is_zipfile(p):
        raise ArgumentError(f"model {str(path)!r} is not a zip file (a model saved by train.py or MaskablePPO.save)")
    try:
        with zipfile.ZipFile(p) as z:
            missing = [m for m in SB3_MEMBERS if m not in z.namelist()]
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise ArgumentError(f"model {str(path)!r} is not a readable zip file ({type(e).__name__}: {e})") from None
    if missing:
        raise ArgumentError(
            f"model {str(path)!r} is a zip file but not a saved MaskablePPO model: it has no "
            f"{' or '.join(map(repr, missing))} inside (train.py saves runs/<name>/model.zip)"
        )
    return p


def saved_timesteps(path) -> int | None:
    """The training steps an SB3 model file records (``num_timesteps`` of its ``data`` member, read
    as plain JSON: nothing is unpickled), or None if it cannot be read."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(read_member(z, "data", MAX_JSON_BYTES * 256, path).decode("utf-8"))
    except (ValueError, KeyError, OSError, UnicodeDecodeError, RecursionError, zipfile.BadZipFile):
        return None
    steps = data.get("num_timesteps") if isinstance(data, dict) else None
    return int(steps) if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0 else None
