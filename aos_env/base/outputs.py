"""Where a command writes: nothing a user made is replaced without ``--overwrite``.

Every CLI that writes a file checks its outputs with :func:`check_outputs` before it starts any work
(a path that exists is refused: a file, a folder, a symbolic link, a dangling link too, and the
siblings a command writes beside the path it was given, such as a leaderboard's ``.md`` table) and
writes them with :func:`write_output`, which goes through a temporary file and, without
``overwrite``, puts it in place with a hard link, which fails rather than replace a file that
appeared meanwhile. The error names what would have been replaced.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .checks import ArgumentError, check_output_file, format_bytes
from .files import _DEFAULT_MODE, _umask, write_bytes

#: The flag that allows replacing files, as every command spells it.
OVERWRITE_FLAG = "--overwrite"


def describe(path: Path) -> str:
    """What is at ``path`` (which exists, or is a link): for an error that says what would be lost."""
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link to {target!r}" + ("" if path.exists() else " (dangling)")
    if path.is_dir():
        return "a folder"
    try:
        return f"a file of {format_bytes(path.stat().st_size)}"
    except OSError:
        return "a file"


def existing(path: str | os.PathLike) -> bool:
    """True if anything is at ``path``: a file, a folder, or a symbolic link (a dangling one too)."""
    return os.path.lexists(path)


def refusal(name: str, path: Path, flag: str = OVERWRITE_FLAG) -> ArgumentError:
    what = f"{name} " if name else ""
    return ArgumentError(f"{what}{str(path)!r} exists ({describe(path)}); give {flag} to replace it, or another path")


def check_outputs(
    name: str, paths: Iterable[str | os.PathLike], overwrite: bool, flag: str = OVERWRITE_FLAG
) -> list[Path]:
    """The files a command will write (``name``: its option, for the message), each a path a file can
    be written to (``check_output_file``); without ``overwrite``, none may exist yet. Raises
    ArgumentError naming the first one that exists and what it is."""
    out = []
    for value in paths:
        path = check_output_file(name, value)
        if existing(path) and not overwrite:
            raise refusal(name, path, flag)
        out.append(path)
    return out


def check_output(
    name: str, path: str | os.PathLike, overwrite: bool, siblings: Iterable[str | os.PathLike] = ()
) -> Path:
    """``check_outputs`` for one path and the files written beside it (``siblings``)."""
    return check_outputs(name, [path, *siblings], overwrite)[0]


def write_output(path: str | os.PathLike, data: bytes | str, overwrite: bool, name: str = "") -> Path:
    """Write ``data`` (str as UTF-8) to ``path`` atomically (a temporary file beside it, then moved
    into place). Without ``overwrite`` it is put in place only if nothing is there (a hard link,
    which refuses to replace), so a file made after the command's checks is not lost either."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if overwrite:
        return write_bytes(path, raw)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name_ = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name_)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.chmod(tmp, _DEFAULT_MODE & ~_umask())  # mkstemp makes it private: give it a plain open()'s mode
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise refusal(name, path) from None
        except OSError:  # a file system without hard links: checked, then renamed
            if existing(path):
                raise refusal(name, path) from None
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
