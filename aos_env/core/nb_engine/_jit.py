"""The one way this engine compiles a function: numba nopython mode, cached on disk.

``error_model="numpy"`` leaves out the exception checks of Python's error model (division by
zero never happens here); bounds are not checked (the differential tests compare every field
with the numpy engine after every step instead).

The disk cache is a folder of our own (``CACHE_DIR``), named after a hash of this engine's
sources and of the shared modules whose constants or functions it compiles in; ``core/_numba.py``
points numba at it for these files only and leaves ``numba.config`` alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from .. import _numba

_HERE = Path(__file__).resolve().parent
#: Modules outside this folder that the compiled code depends on (constants, tables, functions).
_SHARED = [
    _HERE.parent / name
    for name in (
        "constants.py",
        "phases.py",
        "state.py",
        "obs_layout.py",
        "scores.py",
        "rng.py",
        "_numba.py",
        "cards.py",
    )
]
#: The file name of the dispatch functions generated from the phase table (``engine.DISPATCH_SOURCE``).
DISPATCH_FILE = "<aos_env.core.nb_engine dispatch>"

TAG = _numba.sources_tag(sorted(_HERE.glob("*.py")) + _SHARED)
CACHE_DIR = _numba.cache_folder("numba", TAG)
_CACHE = _numba.cacheable(CACHE_DIR)
# scores.py and rng.py: functions of theirs are compiled here too (``scoring._tie_rank``, ``rng.mix64``)
_numba.register(
    [*_HERE.glob("*.py"), _HERE.parent / "scores.py", _HERE.parent / "rng.py", DISPATCH_FILE], CACHE_DIR, TAG
)


#: The types of the compiled functions' arguments, for readers and type checkers (numba types the
#: functions from the values they are called with, not from annotations): one game's record (an
#: element of ``State.records``: its fields are attributes, ``r.hand[p, k]``), the card tables'
#: record (``tables.card_tables``), and arrays (the records, masks, rows of a record).
Record: TypeAlias = Any
Tables: TypeAlias = Any
Array: TypeAlias = npt.NDArray[Any]
Int: TypeAlias = int | np.integer[Any]

F = TypeVar("F", bound=Callable[..., Any])


def jit(fn: F) -> F:
    """Compile ``fn`` (per-game scalar code, called from other compiled code) with the engine's
    options, as a helper (``_numba.helper``: one specialisation, no Python wrapper). The type
    checker sees ``fn`` itself: a compiled function is called as the function is."""
    return cast(F, _numba.helper(fn, _CACHE, nogil=True, error_model="numpy"))


def kernel(fn: F) -> F:
    """Compile ``fn``, a kernel the Python side calls, with the engine's options."""
    return cast(F, njit(cache=_CACHE, nogil=True, error_model="numpy")(fn))


def jit_parallel(fn: F) -> F:
    """Compile a batch loop over games with ``prange`` (threads; games are independent). Call
    ``_numba.launch_threads()`` before its first call (``nb_engine`` does)."""
    return cast(F, njit(cache=_CACHE, nogil=True, error_model="numpy", parallel=True)(fn))
