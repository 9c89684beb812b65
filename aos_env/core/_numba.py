"""How this package compiles with numba, without changing numba's settings for anyone else.

numba keeps its options in ``numba.config``, one set for the whole process: setting
``config.CACHE_DIR`` or ``config.THREADING_LAYER`` at import would send every function a user
compiles in that process into our cache folder and onto our threading layer. Instead:

- **cache**: a cache locator of our own (``CacheLocator``), tried first by numba for every cached
  function but answering only for the source files registered with ``register``: their machine
  code goes into our folder (``cache_folder``), named after a hash of those sources and of the
  shared modules whose constants they compile in (numba itself checks only the timestamp of a
  function's own file, so an edit of, say, ``constants.py`` would otherwise leave stale machine
  code behind). Every other function is left to numba's own locators. A locator list chosen with
  ``$NUMBA_CACHE_LOCATOR_CLASSES`` replaces numba's list, ours included: our functions then cache
  wherever that list says.
- **threads**: numba loads one threading layer per process, the first time a parallel function
  needs it. ``launch_threads`` loads numba's own work queue before our first parallel kernel runs
  (OpenMP's threads spin after each parallel loop, which on a busy or small machine, torch in
  the same process, made our kernels up to 10x slower), unless the user chose a layer
  (``$NUMBA_THREADING_LAYER`` or ``numba.config.THREADING_LAYER``) or a layer is loaded already:
  then that one is used. ``numba.config`` is the same afterwards.
- **one compile per function**: ``helper`` compiles a function called only from compiled code
  once per tuple of literals (int widths normalised, no Python wrapper: ``HelperDispatcher``).
- **a notice**: compiling our functions for over a second (the first use after install or an
  upgrade: the cache is empty) writes one line to stderr, once per process, saying so, how long
  it took and where the cache lives (``CompileNotice``; ``$AOS_QUIET=1`` hides it).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from numba import config
from numba.core import caching

from ..base import files

#: The threading layer our parallel kernels start when nothing is chosen or loaded yet.
THREADING_LAYER = "workqueue"
_TAG_LENGTH = 16  # hex digits of the sources hash in a folder name


def sources_tag(files: Iterable[Path]) -> str:
    """A short hash of the names and contents of ``files`` (their order does not matter)."""
    h = hashlib.sha1()
    for f in sorted(Path(f).resolve() for f in files):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:_TAG_LENGTH]


def cache_folder(name: str, tag: str) -> str:
    """Where functions of ``name`` with sources ``tag`` cache: ``<numba.config.CACHE_DIR>/aos_env-<name>-<tag>``
    if the user gave numba a cache folder (``$NUMBA_CACHE_DIR``), else
    ``$XDG_CACHE_HOME/aos_env/<name>-<tag>`` (``~/.cache`` by default)."""
    cache_dir: str = getattr(config, "CACHE_DIR", "")  # numba sets its options at run time: no stub sees them
    if cache_dir:
        return os.path.join(cache_dir, f"aos_env-{name}-{tag}")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aos_env", f"{name}-{tag}")


class CacheLocator(caching._CacheLocator):  # numba's base class of cache locators (numba.core.caching)
    """numba's cache locator for our registered files: the folder and source stamp registered for
    the function's file (the sources hash, which covers every file the folder depends on)."""

    #: realpath of a source file (or a name given to generated code) -> (folder, sources tag)
    _registered: dict[str, tuple[str, str]] = {}

    def __init__(self, py_func: Any, py_file: str, folder: str, tag: str) -> None:
        self._folder, self._tag = folder, tag
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self) -> str:
        return self._folder

    def get_source_stamp(self) -> str:
        return self._tag

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> CacheLocator | None:
        hit = cls._registered.get(_key(py_file))
        if hit is None:
            return None  # not ours: numba's next locator
        self = cls(py_func, py_file, *hit)
        try:
            self.ensure_cache_path()  # type: ignore[no-untyped-call]
        except OSError:
            return None  # an unwritable folder: numba's own locators, or no cache (``cacheable``)
        return self


def _key(py_file: str) -> str:
    return py_file if py_file.startswith("<") else os.path.realpath(py_file)


def register(files: Iterable[str | Path], folder: str, tag: str) -> None:
    """Cache the functions defined in ``files`` (paths, or the names given to generated code,
    which start with ``<``) in ``folder``, with ``tag`` as their source stamp."""
    for f in files:
        CacheLocator._registered[_key(str(f))] = (folder, tag)
    locators: list[Any] = caching.CacheImpl._locator_classes
    if CacheLocator not in locators:
        locators.insert(0, CacheLocator)
    _listen()


def cacheable(folder: str) -> bool:
    """Whether ``folder`` can be created and written (else our functions compile uncached). A
    folder with no cache in it yet is first filled from the prebuilt cache (``seed``)."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    seed(folder)
    return True


# ---- the prebuilt cache --------------------------------------------------------------------------
# Compiling the engine from nothing takes half a minute or more. ``pip install`` (the build step in
# setup.py, ``python -m aos_env.core.prebuild``) compiles the kernels once and ships their cache
# files in the package, under ``aos_env/_prebuilt/<name>-<tag>/``. A cache folder that is still
# empty is filled from there, so the first process after install loads machine code instead of
# compiling it. numba checks every file it loads (its version, the CPU, the function's bytecode,
# our sources tag): a prebuilt file that does not fit this machine is ignored and the function
# compiles as it would have without it.

#: ``$AOS_PREBUILT``: unset, the package's own prebuilt cache; ``0``, none; else a folder to use.
PREBUILT_ENV = "AOS_PREBUILT"
#: Suffix of numba's index files; a cache folder holding one is not empty.
INDEX_SUFFIX = ".nbi"


def prebuilt_root() -> Path | None:
    """The folder of prebuilt caches in use (see above), or None."""
    chosen = os.environ.get(PREBUILT_ENV, "")
    if chosen == "0":
        return None
    return Path(chosen) if chosen else Path(__file__).resolve().parents[1] / "_prebuilt"


def seed(folder: str) -> int:
    """Fill the cache folder ``folder`` (``cache_folder``'s ``[aos_env-]<name>-<tag>``) from the
    prebuilt cache of the same name and tag if it holds no index yet; returns the files copied.
    Each file is written under a temporary name and renamed into place (``base.files``), with the
    mode numba's own files have, so processes that start together (Ray runners, test workers)
    never read half a file."""
    root = prebuilt_root()
    if root is None:
        return 0
    name = os.path.basename(os.path.normpath(folder)).removeprefix("aos_env-")
    source = root / name
    try:
        if not source.is_dir() or any(f.endswith(INDEX_SUFFIX) for f in os.listdir(folder)):
            return 0
        copied = 0
        # the data files first, then the indexes that name them
        for f in sorted(source.iterdir(), key=lambda f: (f.name.endswith(INDEX_SUFFIX), f.name)):
            target = os.path.join(folder, f.name)
            if not f.is_file() or os.path.exists(target):
                continue
            files.write_bytes(target, f.read_bytes())
            copied += 1
        return copied
    except OSError:
        return 0  # an unreadable prebuilt cache is no cache: the functions compile


def launch_threads() -> None:
    """Load the threading layer for our parallel kernels (see the module's docstring); once a
    layer is loaded this returns at once."""
    from numba.np.ufunc import parallel

    if parallel._is_initialized:
        return
    settings: Any = config  # numba sets its options at run time: no stub sees them
    launch: Callable[[], None] = parallel._launch_threads
    if str(settings.THREADING_LAYER).lower() != "default":
        launch()  # the user's choice
        return
    chosen = settings.THREADING_LAYER
    settings.THREADING_LAYER = THREADING_LAYER
    try:
        launch()
    finally:
        settings.THREADING_LAYER = chosen


# ---- one specialisation per function ------------------------------------------------------------
# numba compiles a function once per tuple of argument types it meets. Called from compiled code,
# the same helper meets int8, int16, int32 and int64 values and literal constants (``f(r, 0)`` is
# typed ``Literal[int](0)``, a type of its own): our helpers were compiled up to seven times each,
# and each compile costs about as much as the first. ``HelperDispatcher`` compiles a helper for
# the argument types with narrow integers replaced by int64 (numba widens the caller's values to
# them; integer arithmetic is int64 in numba anyway, so no result changes), once per distinct
# normalised signature. Literals stay: the code compiled for them is faster.


def _normal_type(ty: Any) -> Any:
    """``ty`` as a helper is compiled for it: ints (but uint64) as int64. Literal constants are
    kept: compiled for its constants, a helper ran up to 30% faster in batches of 64-1,024 games."""
    from numba.core import types

    if isinstance(ty, types.Literal):
        return ty
    if isinstance(ty, types.Integer) and ty is not types.uint64:
        return types.int64
    return ty


def _helper_dispatcher_class() -> type[Any]:
    from numba.core.registry import CPUDispatcher

    class HelperDispatcher(CPUDispatcher):
        """A function called from compiled code only: one compile per normalised signature (see
        above), without the wrapper that makes a compiled function callable from Python (numba's
        ``no_cpython_wrapper``: less code to optimise). A call from Python (tests, the REPL)
        goes to a second, uncached dispatcher of the same function, compiled on first use."""

        _python_twin = None

        def get_call_template(self, args: Any, kws: Any) -> Any:
            pysig, args = self._compiler.fold_argument_types(args, kws)  # type: ignore[attr-defined]
            return super().get_call_template(tuple(_normal_type(a) for a in args), {})

        def __call__(self, *args: Any, **kws: Any) -> Any:
            twin = self._python_twin
            if twin is None:
                from numba import njit

                options = {
                    k: v
                    for k, v in self.targetoptions.items()
                    if k not in ("nopython", "no_cpython_wrapper", "no_cfunc_wrapper")
                }
                twin = self._python_twin = njit(**options)(self.py_func)
            return twin(*args, **kws)

    return HelperDispatcher


_HELPER_CLASS: type[Any] | None = None


def helper(fn: Callable[..., Any], cache: bool, **options: Any) -> Any:
    """``fn`` compiled with numba (nopython) as a helper of other compiled functions:
    ``HelperDispatcher`` (one compile per normalised signature, no Python wrapper)."""
    global _HELPER_CLASS
    if _HELPER_CLASS is None:
        _HELPER_CLASS = _helper_dispatcher_class()
    targetoptions = dict(options, nopython=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    disp = _HELPER_CLASS(py_func=fn, targetoptions=targetoptions)
    if cache:
        disp.enable_caching()
    return disp


# ---- the compile notice --------------------------------------------------------------------------

#: Set to 1 to hide the compile notice.
QUIET_ENV = "AOS_QUIET"
#: Compiling longer than this (seconds, in all, in a process) is worth one line on stderr.
NOTICE_AFTER_S = 1.0


class CompileNotice:
    """Adds up the time numba spends compiling our functions (those of files given to
    ``register``; numba's ``numba:compile`` events, the outermost of ours only: a compile
    includes what it calls) and, once that passes ``threshold`` seconds, writes one line to
    ``stream`` (stderr) saying so, how long it took and where the cache lives; once per process,
    and not at all with ``$AOS_QUIET`` = 1. A process that loads everything from the cache
    compiles nothing, so says nothing."""

    def __init__(
        self, clock: Callable[[], float] | None = None, stream: TextIO | None = None, threshold: float = NOTICE_AFTER_S
    ) -> None:
        import time

        self.clock = clock or time.perf_counter
        self.stream = stream
        self.threshold = threshold
        self.total = 0.0  # seconds of compiling so far
        self.said = False
        self._depth = 0
        self._t0 = 0.0
        self._folder: tuple[str, bool] | None = None

    @staticmethod
    def folder_of(dispatcher: Any) -> tuple[str, bool] | None:
        """(cache folder, whether it caches) of one of our functions; None for another's."""
        py_func = getattr(dispatcher, "py_func", None)
        code = getattr(py_func, "__code__", None)
        hit = code and CacheLocator._registered.get(_key(code.co_filename))
        if not hit:
            return None
        return hit[0], type(getattr(dispatcher, "_cache", None)).__name__ not in ("NullCache", "NoneType")

    def on_start(self, event: Any) -> None:
        if self._depth == 0:
            ours = self.folder_of(event.data.get("dispatcher"))
            if not ours:
                return
            self._t0 = self.clock()
            self._folder = ours
        self._depth += 1

    def on_end(self, event: Any) -> None:
        if self._depth == 0:
            return  # another's function, not inside one of ours
        self._depth -= 1
        if self._depth:
            return
        self.total += self.clock() - self._t0
        if self.total >= self.threshold and not self.said:
            self.said = True
            if os.environ.get(QUIET_ENV, "") not in ("", "0"):
                return
            folder, caches = self._folder or ("", False)
            where = (
                f"cached in {folder}, so once per version"
                if caches
                else f"not cached: {folder} cannot be written, so again in every process"
            )
            stream = self.stream or sys.stderr
            print(
                f"aos_env: compiled its numba kernels in {self.total:.1f} s ({where}; {QUIET_ENV}=1 hides this line)",
                file=stream,
                flush=True,
            )


_NOTICE: CompileNotice | None = None


def _listen() -> None:
    """Start the compile notice (``CompileNotice``), once per process."""
    global _NOTICE
    if _NOTICE is not None:
        return
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            notice.on_start(ev)

        def on_end(self, ev: Any) -> None:
            notice.on_end(ev)

    _NOTICE = notice = CompileNotice()
    register: Callable[[str, Any], None] = event.register
    register("numba:compile", _Listener())
