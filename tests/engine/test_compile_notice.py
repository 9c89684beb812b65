"""The compile notice: one line on stderr, once per process, when compiling our numba functions
took over a second (``core._numba.CompileNotice``); ``$AOS_QUIET=1`` hides it. The logic is
checked with a fake clock; one fresh process with an empty cache folder checks the real thing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from aos_env.core import _numba

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.one_backend  # nothing here depends on the engine a test runs on


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _ours(name: str = "f"):
    """A stand-in dispatcher of a function in a registered file."""
    code = compile(f"def {name}(): pass", "<aos_env test notice>", "exec")
    ns: dict = {}
    exec(code, ns)
    return types.SimpleNamespace(py_func=ns[name], _cache=object())


def _theirs():
    def g():
        pass

    return types.SimpleNamespace(py_func=g, _cache=object())


def _event(dispatcher):
    return types.SimpleNamespace(data={"dispatcher": dispatcher})


@pytest.fixture
def notice(monkeypatch):
    monkeypatch.setitem(_numba.CacheLocator._registered, "<aos_env test notice>", ("/tmp/the-cache", "tag"))
    monkeypatch.delenv(_numba.QUIET_ENV, raising=False)
    clock = _Clock()
    n = _numba.CompileNotice(clock=clock, stream=io.StringIO())
    n.fake = clock
    return n


def _compile(n, dispatcher, seconds: float, inner=()) -> None:
    n.on_start(_event(dispatcher))
    for d in inner:  # compiled inside it (numba compiles the callees on the way)
        _compile(n, d, 0.0)
    n.fake.now += seconds
    n.on_end(_event(dispatcher))


def test_one_line_once_the_compiles_of_ours_pass_a_second(notice) -> None:
    _compile(notice, _ours(), 0.6, inner=[_ours("h"), _theirs()])
    assert notice.stream.getvalue() == ""
    _compile(notice, _theirs(), 5.0)  # another's function: not counted
    assert notice.stream.getvalue() == "" and notice.total == pytest.approx(0.6)
    _compile(notice, _ours(), 0.5)
    lines = notice.stream.getvalue().splitlines()
    assert len(lines) == 1
    assert "compiled" in lines[0] and "1.1 s" in lines[0] and "/tmp/the-cache" in lines[0]
    assert "AOS_QUIET=1" in lines[0]
    _compile(notice, _ours(), 30.0)
    assert notice.stream.getvalue().splitlines() == lines  # once per process


def test_nested_compiles_count_once(notice) -> None:
    _compile(notice, _ours(), 0.9, inner=[_ours("a"), _ours("b")])
    assert notice.total == pytest.approx(0.9) and notice.stream.getvalue() == ""


def test_quiet_hides_it(notice, monkeypatch) -> None:
    monkeypatch.setenv(_numba.QUIET_ENV, "1")
    _compile(notice, _ours(), 3.0)
    assert notice.stream.getvalue() == ""


def test_uncached_says_so(notice) -> None:
    d = _ours()
    d._cache = type("NullCache", (), {})()
    _compile(notice, d, 2.0)
    assert "not cached" in notice.stream.getvalue()


def _first_use(cache: str, **env: str) -> subprocess.CompletedProcess:
    # AOS_PREBUILT=0: no prebuilt cache (pip install's), so an empty folder really compiles
    full = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=cache, **{_numba.PREBUILT_ENV: "0"}, **env)
    for name in ("AOS_BACKEND", _numba.QUIET_ENV):
        full.pop(name, None)
    code = "from aos_env import core; core.init(1, 2, seed=0, backend='numba')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_fresh_process_with_an_empty_cache_says_it_compiles_once(tmp_path) -> None:
    """The real thing: an empty cache folder, the first game of a fresh process (it compiles the
    one-game kernel, some seconds), then a second process that finds it cached and says nothing."""
    cold = _first_use(str(tmp_path))
    lines = [line for line in cold.stderr.splitlines() if line.startswith("aos_env:")]
    assert len(lines) == 1, cold.stderr
    assert "compiled" in lines[0] and str(tmp_path) in lines[0], lines
    warm = _first_use(str(tmp_path))
    assert "aos_env:" not in warm.stderr, warm.stderr
