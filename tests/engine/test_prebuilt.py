"""The prebuilt cache (``pip install`` compiles the kernels ahead of time): an empty cache folder
is filled from it (``_numba.seed``), a fresh process then compiles nothing for its first AEC step
or batched step, and everything still works without it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aos_env.core import _numba
from aos_env.core.nb_engine import _jit

ROOT = Path(__file__).resolve().parents[2]


def _fake_prebuilt(root: Path, name: str) -> Path:
    src = root / name
    src.mkdir(parents=True)
    (src / "f-1.py311.1.nbc").write_bytes(b"data")
    (src / "f-1.py311.nbi").write_bytes(b"index")
    return src


def test_an_empty_folder_is_filled_from_the_prebuilt_cache(tmp_path, monkeypatch) -> None:
    _fake_prebuilt(tmp_path / "pre", "numba-abc")
    monkeypatch.setenv(_numba.PREBUILT_ENV, str(tmp_path / "pre"))
    folder = tmp_path / "cache" / "numba-abc"
    folder.mkdir(parents=True)
    assert _numba.seed(str(folder)) == 2
    assert sorted(os.listdir(folder)) == ["f-1.py311.1.nbc", "f-1.py311.nbi"]
    assert (folder / "f-1.py311.nbi").read_bytes() == b"index"
    mask = os.umask(0)
    os.umask(mask)
    assert (folder / "f-1.py311.nbi").stat().st_mode & 0o777 == 0o666 & ~mask  # as a file numba writes
    # under $NUMBA_CACHE_DIR the folder is called aos_env-<name>-<tag>: the same prebuilt folder
    other = tmp_path / "numba_cache" / "aos_env-numba-abc"
    other.mkdir(parents=True)
    assert _numba.seed(str(other)) == 2


def test_a_folder_with_a_cache_is_left_alone(tmp_path, monkeypatch) -> None:
    _fake_prebuilt(tmp_path / "pre", "numba-abc")
    monkeypatch.setenv(_numba.PREBUILT_ENV, str(tmp_path / "pre"))
    folder = tmp_path / "numba-abc"
    folder.mkdir()
    (folder / "g-3.py311.nbi").write_bytes(b"mine")
    assert _numba.seed(str(folder)) == 0
    assert os.listdir(folder) == ["g-3.py311.nbi"]


def test_no_prebuilt_cache_of_that_tag_or_prebuilt_off_copies_nothing(tmp_path, monkeypatch) -> None:
    _fake_prebuilt(tmp_path / "pre", "numba-abc")
    folder = tmp_path / "numba-other"
    folder.mkdir()
    monkeypatch.setenv(_numba.PREBUILT_ENV, str(tmp_path / "pre"))
    assert _numba.seed(str(folder)) == 0
    monkeypatch.setenv(_numba.PREBUILT_ENV, "0")
    assert _numba.prebuilt_root() is None
    same = tmp_path / "numba-abc"
    same.mkdir()
    assert _numba.seed(str(same)) == 0 and os.listdir(same) == []
    monkeypatch.delenv(_numba.PREBUILT_ENV)
    assert _numba.prebuilt_root() == ROOT / "aos_env" / "_prebuilt"


def test_cacheable_seeds_the_folder_it_makes(tmp_path, monkeypatch) -> None:
    _fake_prebuilt(tmp_path / "pre", "greedy-123")
    monkeypatch.setenv(_numba.PREBUILT_ENV, str(tmp_path / "pre"))
    folder = tmp_path / "new" / "greedy-123"
    assert _numba.cacheable(str(folder))
    assert len(os.listdir(folder)) == 2


def test_the_cli_refuses_an_existing_folder_and_an_unknown_module(tmp_path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for args, message in (
        ([str(tmp_path)], "pass --overwrite to replace it"),
        ([str(tmp_path / "new"), "--also", "no_such_module_xyz"], "no module named"),
    ):
        res = subprocess.run(
            [sys.executable, "-m", "aos_env.core.prebuild", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        assert res.returncode == 2 and res.stderr.startswith("usage:"), res.stderr
        assert message in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "new").exists()


@pytest.fixture(scope="module")
def prebuilt(tmp_path_factory) -> Path:
    """The package's own prebuilt cache (``pip install -e .`` made it), else one built here, the
    way ``pip install`` builds it (about a minute of compiling)."""
    own = _numba.prebuilt_root()
    if own is not None and (own / f"numba-{_jit.TAG}").is_dir():
        return own
    out = tmp_path_factory.mktemp("prebuilt") / "pre"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-m", "aos_env.core.prebuild", str(out), "--also", "agents.players.greedy"],
        check=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
        capture_output=True,
    )
    return out


_FIRST_USES = """
import numpy as np, aos_env
from aos_env import core
from aos_env.core.nb_engine import engine as k
from agents.players import _greedy_kernel as g
from agents.players.greedy import GreedyAgent
env = aos_env.env()
env.reset(seed=0)
for agent in env.agent_iter(max_iter=200):
    obs, reward, term, trunc, info = env.last()
    env.step(None if term or trunc else int(np.argmax(obs["action_mask"])))
s = core.init(64, 3, seed=0)
greedy = GreedyAgent()
for _ in range(30):
    live = np.flatnonzero(~(s.terminated | s.truncated))
    obs = core.observe(s, s.current_player[live], live)
    core.step(s, greedy.act_batch(obs, s.legal_action_mask[live]), live)
core.final_scores(s)
core.truncate(s, np.arange(64))
kernels = [k.one_game, k.aec_observe, k.observe_one_game, k.setup_batch, k.step_batch, k.observe_batch,
           k.scores_batch, k.truncate_batch, g.greedy_actions]
misses = {d.py_func.__name__: sum(d.stats.cache_misses.values()) for d in kernels}
hits = {d.py_func.__name__: sum(d.stats.cache_hits.values()) for d in kernels}
print(misses, hits)
assert not any(misses.values()), misses
assert hits["one_game"] and hits["step_batch"] and hits["greedy_actions"], hits
"""


def test_a_fresh_process_with_the_prebuilt_cache_compiles_nothing(tmp_path, prebuilt) -> None:
    """An empty cache folder and the prebuilt cache: the AEC env's whole game, a batch stepped by
    greedy, and the scores all load machine code (cache hits, no misses), and no compile notice."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path), **{_numba.PREBUILT_ENV: str(prebuilt)})
    env.pop(_numba.QUIET_ENV, None)
    env.pop("AOS_BACKEND", None)
    res = subprocess.run(
        [sys.executable, "-c", _FIRST_USES], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "aos_env: compiled" not in res.stderr, res.stderr
    assert any(f.endswith(_numba.INDEX_SUFFIX) for f in os.listdir(tmp_path / f"aos_env-numba-{_jit.TAG}"))


def test_the_compile_benchmark_reports_cold_with_and_without_the_prebuilt_cache() -> None:
    from benchmarks import compile_time

    run = {"process_cpu_s": 1.25, "process_s": 1.2, "total_s": 1.0, "import_s": 0.5, "notice": None}
    bare = dict(run, process_cpu_s=21.7, process_s=23.7)
    res = {"prebuilt": False, "paths": {"aec": {"cold": run, "cold_without_prebuilt": bare, "warm": run}}}
    text = compile_time.table(res)
    assert "| aec | 1.2 | 1.2 | 21.7 | 23.7 | 1.25 | 1.20 |" in text
    assert "no prebuilt cache" in text  # this install has none: said under the table
    assert "has no prebuilt" not in compile_time.table(dict(res, prebuilt=True))


def test_package_discovery_leaves_the_prebuilt_cache_out(tmp_path) -> None:
    """The prebuilt folders are data that build_kernels replaces after setuptools has found the
    packages: found as namespace packages, an install over an older prebuilt cache failed
    ("package directory 'aos_env/_prebuilt/numba-…' does not exist")."""
    import tomllib
    from setuptools import find_namespace_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    (tmp_path / "aos_env" / "_prebuilt" / "numba-abc").mkdir(parents=True)
    (tmp_path / "aos_env" / "core").mkdir()
    found = find_namespace_packages(str(tmp_path), include=find["include"], exclude=find.get("exclude", ()))
    assert "aos_env.core" in found
    assert not [p for p in found if p.startswith("aos_env._prebuilt")], found
