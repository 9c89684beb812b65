"""The one way this engine compiles a function: numba nopython mode, cached on disk.

``error_model="numpy"`` leaves out the exception checks of Python's error model (division by
zero never happens here); bounds are not checked (the differential tests compare every field
with the numpy engine after every step instead).

The disk cache lives in a folder named after a hash of this engine's sources and of the shared
modules whose constants it compiles in (numba checks only the timestamp of a function's own
file, so an edit of, say, ``constants.py`` would otherwise leave stale machine code behind).
It is ``$NUMBA_CACHE_DIR/aos_env-<hash>`` if that variable is set, else
``$XDG_CACHE_HOME/aos_env/numba-<hash>`` (``~/.cache`` by default).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba import config, njit

_HERE = Path(__file__).resolve().parent
_SHARED = ["constants.py", "phases.py", "state.py", "obs_layout.py"]


def _sources_hash() -> str:
    h = hashlib.sha1()
    files = sorted(_HERE.glob("*.py")) + [_HERE.parent / name for name in _SHARED] + [_HERE.parent.parent / "cards.py"]
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    tag = _sources_hash()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.path.join(os.environ["NUMBA_CACHE_DIR"], f"aos_env-{tag}")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aos_env", f"numba-{tag}")


CACHE_DIR = _cache_dir()
config.CACHE_DIR = CACHE_DIR  # read by numba when a function with cache=True is decorated
if not os.environ.get("NUMBA_THREADING_LAYER"):
    # numba's own thread pool: OpenMP's threads spin after each parallel loop, which on a busy or
    # small machine (torch in the same process, 2 cores) made the parallel kernels up to 10x slower
    config.THREADING_LAYER = "workqueue"


def jit(fn):
    """Compile ``fn`` (per-game scalar code) with the engine's options."""
    return njit(cache=True, nogil=True, error_model="numpy")(fn)


def jit_parallel(fn):
    """Compile a batch loop over games with ``prange`` (threads; games are independent)."""
    return njit(cache=True, nogil=True, error_model="numpy", parallel=True)(fn)
