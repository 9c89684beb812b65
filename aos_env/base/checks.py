"""Argument checks shared by every entry point: the engine, the envs, the agents and the CLIs.

Each ``check_*`` function returns the value in a canonical form (a Python
``int``, ``float``, ``Path`` or an int64 array) or raises an error whose
message names the argument, shows the value given and says what is allowed::

    >>> check_int("num_envs", 0, 1)
    Traceback (most recent call last):
    ...
    aos_env.base.checks.ArgumentError: num_envs must be an int >= 1, got 0

**One exception type.** Every bad argument raises :class:`ArgumentError`, a
subclass of ``ValueError``, whether its type or its value is wrong (``2.5`` or
``"3"`` for an int, as well as ``-1``). Callers then catch one exception, the
engine's other errors (illegal actions, broken positions) are ValueErrors
too, and a value that "looks" right but has the wrong type (``2.0``, ``True``,
``np.float64(3)``) is a bad value as far as the game is concerned. The one
exception is a missing file, which raises ``FileNotFoundError`` as Python
does everywhere.

**What counts as an int.** Python ints and numpy integer scalars. Not bools
(``True`` is an int to Python, never a count or an index here), not floats
(even ``2.0``: a float where an int is expected is usually a bug, and
truncating it silently hides the bug), not strings, not arrays.
**What counts as a float.** Ints, numpy integers and floats, Python floats;
not bools or strings; NaN and infinities only where ``finite=False``.

**Seeds** are ints in ``0..MAX_SEED`` (``2**63 - 1``: a game's seed is stored
as a signed 64-bit integer, and negative seeds would alias large unsigned
ones). A batch given one int ``s`` plays seeds ``s, s+1, ..., s+B-1``, so
``s + B - 1`` must be in range too; a per-game seed array may have any integer
dtype, with every value in range.

**Memory.** :func:`check_batch_memory` refuses a batch that would need more
than a fraction of the machine's memory, before anything is allocated.

The ``*_arg`` functions turn these checks into argparse ``type=`` functions,
so the command lines give the same messages (as usage errors, exit status 2).

This module is a leaf: it imports only numpy and the standard library, so
every layer (``aos_env.core`` included) may use it.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import math
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Largest seed: seeds are stored as int64.
MAX_SEED = 2**63 - 1
#: Default share of the machine's memory one batch may use.
MEMORY_FRACTION = 0.5

_INT_TEXT = re.compile(r"[+-]?[0-9]+(_[0-9]+)*")  # ASCII digits only ("²" and "٣" are not ints)


class ArgumentError(ValueError):
    """A bad argument; the message names it, shows the value given and says what is allowed."""


def _shown(value: Any) -> str:
    """The value as the message shows it (short, and typed where the type is the problem)."""
    if isinstance(value, np.generic) and not isinstance(value, np.bool_):
        text = f"{type(value).__name__}({value.item()!r})"
    elif isinstance(value, np.ndarray):
        text = f"an array of shape {value.shape} and dtype {value.dtype}"
    else:
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def fail(name: str, allowed: str, value: Any) -> ArgumentError:
    """The standard error: ``"<name> must be <allowed>, got <value>"`` (to raise)."""
    return ArgumentError(f"{name} must be {allowed}, got {_shown(value)}")


def _range_text(low, high) -> str:
    if high == MAX_SEED:
        high = "2**63-1"
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return ""


def is_int(value: Any) -> bool:
    """True for Python ints and numpy integer scalars, False for bools and everything else."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as a Python int in ``low..high`` (either bound may be None)."""
    allowed = " ".join(filter(None, ("an int", _range_text(low, high))))
    if not is_int(value):
        raise fail(name, allowed, value)
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise fail(name, allowed, value)
    return v


def check_optional_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int | None:
    """``check_int``, or None."""
    if value is None:
        return None
    try:
        return check_int(name, value, low, high)
    except ArgumentError:
        raise fail(name, " ".join(filter(None, ("an int", _range_text(low, high)))) + " or None", value) from None


def _float_allowed(low, high, finite, low_open, high_open) -> str:
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        bounds.append(f"{'<' if high_open else '<='} {high}")
    return ("a finite number" if finite else "a number") + (" " + " and ".join(bounds) if bounds else "")


def check_float(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    finite: bool = True,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a Python float in [low, high] (``low_open``/``high_open``: that bound excluded).

    Ints and numpy numbers are accepted; bools and strings are not; NaN and
    infinities only with ``finite=False`` (NaN never passes a bound).
    """
    allowed = _float_allowed(low, high, finite, low_open, high_open)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise fail(name, allowed, value)
    v = float(value)
    if finite and not math.isfinite(v):
        raise fail(name, allowed, value)
    if low is not None and not (v > low if low_open else v >= low):
        raise fail(name, allowed, value)
    if high is not None and not (v < high if high_open else v <= high):
        raise fail(name, allowed, value)
    return v


def check_optional_float(name: str, value: Any, low: float | None = None, high: float | None = None) -> float | None:
    """``check_float`` (finite), or None."""
    if value is None:
        return None
    try:
        return check_float(name, value, low, high)
    except ArgumentError:
        raise fail(name, _float_allowed(low, high, True, False, False) + " or None", value) from None


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool: True/False or numpy bools only (not 0/1, not strings)."""
    if not isinstance(value, (bool, np.bool_)):
        raise fail(name, "True or False", value)
    return bool(value)


def _number_kind(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if is_int(x):
        return "int"
    return "float" if isinstance(x, (float, np.floating)) else "other"


def _same(a: Any, b: Any) -> bool:
    """a == b, without True == 1 or 2.0 == 2 counting as equal."""
    if _number_kind(a) != _number_kind(b):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. an array compared with a choice
        return False


def check_choice(name: str, value: Any, choices: Collection) -> Any:
    """``value`` if it is one of ``choices``; the message lists them (and a close match for a typo)."""
    if isinstance(value, np.ndarray) or not any(_same(value, c) for c in choices):
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        raise ArgumentError(f"{name} must be one of {', '.join(map(repr, choices))}, got {_shown(value)}{hint}")
    return value


def check_string(name: str, value: Any, nonempty: bool = True) -> str:
    """``value`` as a str (non-empty after stripping, unless ``nonempty=False``)."""
    if not isinstance(value, str) or (nonempty and not value.strip()):
        raise fail(name, "a non-empty string" if nonempty else "a string", value)
    return value


def check_seed(name: str, value: Any) -> int:
    """One seed: an int in ``0..MAX_SEED``."""
    return check_int(name, value, 0, MAX_SEED)


def check_optional_seed(name: str, value: Any) -> int | None:
    """A seed or None (None: fresh entropy, the caller decides)."""
    return check_optional_int(name, value, 0, MAX_SEED)


def check_seeds(name: str, value: Any, count: int) -> np.ndarray:
    """Seeds for ``count`` games, as an int64 array of shape (count,).

    ``value``: an int ``s`` (the games get ``s, s+1, ..., s+count-1``, all of
    them in ``0..MAX_SEED``) or an array-like of ``count`` ints in range, of
    any integer dtype (a uint64 ``2**64 - 1`` is out of range, not ``-1``).
    The result takes ``8 * count`` bytes: check a batch's memory first.
    """
    array_text = f"an integer array of shape ({count},) with values 0..2**63-1"
    if is_int(value):
        s = int(value)
        if not 0 <= s <= MAX_SEED - max(count - 1, 0):  # no games: the seed must still be one
            if count <= 1:
                raise fail(name, f"an int 0..2**63-1 or {array_text}", value)
            raise fail(
                name,
                f"an int 0..2**63-{count} (the {count} games play seeds {name}..{name}+{count - 1}, "
                f"each at most 2**63-1) or {array_text}",
                value,
            )
        return s + np.arange(count, dtype=np.int64)
    allowed = f"an int 0..2**63-1 or {array_text}"
    if value is None or isinstance(value, (bool, np.bool_, str, bytes, float, np.floating, dict)):
        raise fail(name, allowed, value)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):  # ragged lists and the like
        raise fail(name, allowed, value) from None
    if arr.shape != (count,) or arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise fail(name, allowed, value)
    bad = arr > MAX_SEED if arr.dtype == np.uint64 else arr < 0  # other int dtypes fit in int64
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ArgumentError(f"{name} must hold seeds 0..2**63-1, got {arr[i]} at index {i}")
    return arr.astype(np.int64)


# ---- arrays of indices -------------------------------------------------------------------


def as_array(name: str, value: Any, allowed: str) -> np.ndarray:
    """``np.asarray(value)`` (an array is returned as it is); a ragged list, or anything else numpy
    cannot read, is the standard error."""
    if type(value) is np.ndarray:
        return value
    try:
        return np.asarray(value)
    except (ValueError, TypeError):
        raise fail(name, allowed, value) from None


#: Below this many indices per slot, a repeat is looked for by sorting them; above, by marking them in a
#: mask of all slots (a few microseconds for 1024 games; np.unique takes ten times as long).
_SORT_BELOW = 1 / 32


def check_indices(name: str, value: Any, size: int, *, distinct: bool = True, what: str = "game") -> np.ndarray:
    """``value`` (one index or a 1-d integer array of them) as a contiguous int64 array of indices
    ``0..size-1``; with ``distinct``, none repeated. The range is checked on the dtype given, so a
    uint64 ``2**64 - 1`` is named as given (not wrapped to -1). An empty array of any dtype is no indices.
    The result may be ``value`` itself (an int64 array): callers must not write to it."""
    allowed = f"a 1-d array of {what} indices 0..{size - 1}"
    arr = as_array(name, value, allowed)
    if arr.ndim == 0 and arr.dtype != object:
        arr = arr.reshape(1)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise fail(name, allowed, value)
    n = arr.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.min() < 0 or arr.max() >= size:
        bad = arr[(arr < 0) | (arr >= size)][0]
        raise ArgumentError(f"{name} must be {what} indices 0..{size - 1}, got {bad}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if distinct and n > 1:
        if n < size * _SORT_BELOW:
            ordered = np.sort(arr)
            repeats = bool((ordered[1:] == ordered[:-1]).any())
        else:
            seen = np.zeros(size, dtype=np.bool_)
            seen[arr] = True
            repeats = int(np.count_nonzero(seen)) != n
        if repeats:
            raise ArgumentError(f"{name} must not repeat a {what}, got {value!r}")
    return arr


def check_seats(name: str, value: Any, count: int, num_players: int) -> np.ndarray:
    """``value``, one seat ``0..num_players-1`` for every game (an int) or an integer array of shape
    ``(count,)``, as a contiguous int64 array of shape ``(count,)``. The range is checked on the dtype
    given (a uint64 ``2**64 - 1`` is named as given, not wrapped to -1)."""
    allowed = f"an int 0..{num_players - 1} or an integer array of shape ({count},)"
    if isinstance(value, (bool, np.bool_)):
        raise fail(name, allowed, value)
    arr = as_array(name, value, allowed)
    if arr.dtype.kind not in "iu":
        raise fail(name, allowed, value)
    if arr.ndim and arr.shape != (count,):
        raise ArgumentError(f"{name} must be an int or an array of shape ({count},), got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= num_players):
        flat = arr.reshape(-1)
        bad = flat[(flat < 0) | (flat >= num_players)][0]
        raise ArgumentError(f"{name} must be in 0..{num_players - 1}, got {bad}")
    if arr.ndim == 0:
        return np.full(count, int(arr), dtype=np.int64)
    return np.ascontiguousarray(arr, dtype=np.int64)


# ---- memory ---------------------------------------------------------------------------


def total_memory() -> int | None:
    """Bytes of memory this process may use: physical memory, or a lower container
    (cgroup) limit; None where neither can be read. Read once per process and kept:
    ``core.init`` checks every batch against it, and reading the system's files on
    every call would cost more than a small init."""
    return _machine_memory()


@functools.lru_cache(maxsize=1)
def _machine_memory() -> int | None:
    found = []
    try:
        found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not on this platform
        pass
    if not found:
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemTotal:"):
                        found.append(int(line.split()[1]) * 1024)
        except (OSError, ValueError, IndexError):
            pass
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            found.append(int(text))
    found = [m for m in found if m > 0]
    return min(found) if found else None


def format_bytes(n: float) -> str:
    """``1234567`` -> ``"1.2 MB"``."""
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # unreachable


def check_batch_memory(
    name: str,
    num_games: int,
    bytes_per_game: int,
    fraction: float = MEMORY_FRACTION,
    memory: int | None = None,
    unit: str = "game",
) -> None:
    """Refuse a batch whose ``num_games * bytes_per_game`` exceeds ``fraction`` of the memory.

    ``memory``: the bytes available (default :func:`total_memory`). Where the
    machine's memory is unknown, nothing is refused here (the allocation is
    then the only check). ``unit``: what one of ``num_games`` is, for the message.
    """
    memory = total_memory() if memory is None else memory
    if memory is None:
        return
    need = num_games * bytes_per_game
    allowed = int(memory * fraction)
    if need > allowed:
        most = allowed // bytes_per_game
        raise ArgumentError(
            f"{name}={num_games} would need about {format_bytes(need)} of memory "
            f"({format_bytes(bytes_per_game)} per {unit}); this machine has {format_bytes(memory)} and one batch "
            f"may use {fraction:.0%} of it: use {name} <= {most:,}"
        )


# ---- paths ----------------------------------------------------------------------------


def _as_path(name: str, value: Any) -> Path:
    if not isinstance(value, (str, os.PathLike)) or (isinstance(value, str) and not value.strip()):
        raise fail(name, "a path (str or os.PathLike)", value)
    return Path(value)


def check_file(name: str, value: Any) -> Path:
    """An existing file (FileNotFoundError naming the path as given if it does not exist)."""
    path = _as_path(name, value)
    if not path.exists():
        raise FileNotFoundError(f"{name}: no such file: {str(value)!r}")
    if not path.is_file():
        raise fail(name, "a file (not a folder)", str(value))
    return path


def check_output_file(name: str, value: Any) -> Path:
    """A path a file can be written to: not a folder nor a device or pipe (files are written to a
    temporary name and renamed into place, which would replace one), and no existing file where a
    folder would have to be; the folders that do not exist yet are created by the writer."""
    path = _as_path(name, value)
    if path.is_dir():
        raise fail(name, "a file path, not a folder", str(value))
    if path.exists() and not path.is_file():
        raise fail(name, "a path to a regular file (not a device, a pipe or a socket)", str(value))
    _check_folder_possible(name, path.parent, value)
    return path


def check_output_folder(name: str, value: Any) -> Path:
    """A path a folder can be created at (or an existing folder)."""
    path = _as_path(name, value)
    _check_folder_possible(name, path, value)
    return path


def _check_folder_possible(name: str, folder: Path, value: Any) -> None:
    for p in (folder, *folder.parents):
        if p.exists():
            if not p.is_dir():
                raise fail(name, f"a path whose folders can be created ({str(p)!r} is a file)", str(value))
            if not os.access(p, os.W_OK | os.X_OK) or not _can_create_in(p):
                raise fail(name, f"a path whose folders can be written ({str(p)!r} is not writable)", str(value))
            return


def _can_create_in(folder: Path) -> bool:
    """True if a file can be created in ``folder``: tried (an unnamed temporary file, gone at once),
    since os.access says yes to root everywhere, /proc and read-only mounts included."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


# ---- command lines ------------------------------------------------------------------


def parse_int_text(name: str, text: str, low: int | None = None, high: int | None = None) -> int:
    """An int written in ASCII digits (optional sign, ``_`` between digit groups), in range."""
    if not isinstance(text, str) or not _INT_TEXT.fullmatch(text.strip()):
        raise fail(name, " ".join(filter(None, ("an int", _range_text(low, high)))), text)
    return check_int(name, int(text.strip()), low, high)


def parse_float_text(
    name: str,
    text: str,
    low: float | None = None,
    high: float | None = None,
    *,
    finite: bool = True,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """A number written in ASCII (``0.5``, ``1e-3``), checked like :func:`check_float`."""
    try:
        value = float(text) if isinstance(text, str) and text.isascii() else None
    except ValueError:
        value = None
    if value is None:
        raise fail(name, _float_allowed(low, high, finite, low_open, high_open), text)
    return check_float(name, value, low, high, finite=finite, low_open=low_open, high_open=high_open)


def arg_type(parse: Callable[[str], Any], label: str) -> Callable[[str], Any]:
    """An argparse ``type=`` function: our message as argparse's "argument --x: ..." text."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ArgumentError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix("value ")) from None

    convert.__name__ = label  # argparse shows it for errors we did not word ourselves
    return convert


def int_arg(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """argparse type: an int in low..high (message: ``must be an int >= 1, got '0'``)."""
    return arg_type(lambda text: parse_int_text("value", text, low, high), "int")


def float_arg(low: float | None = None, high: float | None = None, **kw) -> Callable[[str], float]:
    """argparse type: a finite float in range (``low_open``/``high_open`` as in check_float)."""
    return arg_type(lambda text: parse_float_text("value", text, low, high, **kw), "float")


#: argparse type: a seed, 0..2**63-1.
seed_arg = arg_type(lambda text: parse_int_text("value", text, 0, MAX_SEED), "seed")
#: argparse type: a path a file can be written to (``check_output_file``), checked before the command works.
output_file_arg = arg_type(lambda text: check_output_file("value", text), "path")


def int_list_arg(low: int | None = None, high: int | None = None) -> Callable[[str], list[int]]:
    """argparse type: comma-separated ints in range, at least one (``"256,256"``)."""

    def parse(text: str) -> list[int]:
        items = [t.strip() for t in text.split(",")]
        allowed = "comma-separated ints " + _range_text(low, high) + " (at least one)"
        if not text.strip() or any(not _INT_TEXT.fullmatch(t) for t in items):
            raise fail("value", allowed, text)
        values = [int(t) for t in items]
        if any((low is not None and v < low) or (high is not None and v > high) for v in values):
            raise fail("value", allowed, text)
        return values

    return arg_type(parse, "int list")


def _names(text: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or not all(items):
        raise fail("value", "comma-separated names, at least one, none empty", text)
    if len(set(items)) != len(items):
        raise fail("value", "comma-separated names without repeats", text)
    return items


#: argparse type: comma-separated non-empty names, at least one, no repeats.
name_list_arg = arg_type(_names, "list")


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'greedy'?)"`` for a close typo of one of ``known``, else ``""``."""
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def check_sequence(name: str, value: Any) -> Sequence:
    """A list-like of items (list, tuple, range or 1-d array), not a string, a dict or a set."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise fail(name, "a list (or 1-d array)", value)
        return list(value)
    if isinstance(value, (list, tuple, range)):
        return list(value)
    raise fail(name, "a list or tuple", value)
