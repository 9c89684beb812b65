"""Writing files so that nothing is ever half-written: each file goes to a temporary name in its
own folder and is renamed into place (``os.replace`` is atomic on one file system), so a crash,
a Ctrl-C or a full disk leaves the previous file whole."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The modes open() and mkdir() give a new file and folder, before the umask.
_DEFAULT_MODE = 0o666
_DEFAULT_FOLDER_MODE = 0o777


def _umask() -> int:
    """The process's umask (os.umask can only be read by setting it, so it is set back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on success it is renamed to ``path``, on an
    error it is removed and ``path`` is left as it was. The folders are created if need be.

        with atomic_path("out/model.zip") as tmp:
            model.save(tmp)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp" + "".join(path.suffixes[-1:]), dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:  # mkstemp makes the file private (0600): give it the mode a plain open() would, or the replaced file's
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else _DEFAULT_MODE & ~_umask())
    except OSError:
        pass
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_folder(path: str | os.PathLike) -> Iterator[Path]:
    """A new temporary folder beside ``path`` to write a whole folder into (a checkpoint); on
    success it takes ``path``'s place, on an error it is removed and ``path`` is left as it was.
    The previous folder is moved aside before the new one is renamed in and removed after, so a
    crash leaves a whole folder: at ``path``, or (between the two renames) at ``.<name>.old``
    beside it, which the next call puts back first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.with_name(f".{path.name}.old")
    if old.exists() and not path.exists():  # a crash between the two renames of a previous call
        os.replace(old, path)
    new = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        os.chmod(new, _DEFAULT_FOLDER_MODE & ~_umask())  # mkdtemp makes it private (0700)
        yield new
        if old.exists():
            shutil.rmtree(old)
        if path.exists():
            os.replace(path, old)
        os.replace(new, path)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        if old.exists() and not path.exists():
            os.replace(old, path)  # the previous folder back in its place
        raise
    shutil.rmtree(old, ignore_errors=True)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True if ``a`` and ``b`` name one file: the same path once resolved (symbolic links followed), or,
    where both exist, the same file on disk (a hard link). An output that is an input is refused
    with it, before anything is written."""
    a, b = Path(a), Path(b)
    try:
        if a.resolve() == b.resolve():
            return True
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except (OSError, RuntimeError, ValueError):  # a loop of links, a path the system cannot take
        return False
