"""A small smoke run of ``python -m benchmarks`` (figures are printed, never asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.one_backend
def test_benchmarks_quick_run(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--out", str(tmp_path)], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["engine"]) == {"numba", "numpy"}
    assert all(set(by_batch) == {"1", "64", "1024"} for by_batch in res["engine"].values())
    assert all(r["step"]["median_us"] > 0 and r["observe"]["median_us"] > 0 for r in res["one_game"].values())
    assert {"ours env", "ours raw_env", "leduc env", "leduc raw_env"} == set(res["aec"])
    assert all(r["median"] > 0 for r in res["aec"].values()) and res["memory_bytes_per_game"] > 0
    assert 0 < res["training"]["env_share"] < 1
    assert {"pettingzoo leduc_holdem_v4", "pettingzoo connect_four_v3", "openspiel hanabi"} <= set(res["peers"])
    assert (tmp_path / "throughput.png").stat().st_size > 0
    table = (tmp_path / "table.md").read_text()
    assert "÷ openspiel hanabi" in out and "engine (numba), batch 1024" in table and "engine (numpy), batch 64" in table
    assert "| raw_env() |" in table and "core.step median" in table


@pytest.mark.one_backend
def test_engine_throughput_script_help() -> None:
    text = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "engine_throughput.py"), "--help"], check=True,
                          capture_output=True, text=True).stdout
    assert "--batches" in text and "--repeats" in text


@pytest.mark.one_backend
def test_engine_profile_accounts_for_the_handlers(monkeypatch, tmp_path: Path) -> None:
    """The profiler wraps every phase handler and restores the engine afterwards."""
    from aos_env import core
    from aos_env.core.np_engine import engine

    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not an installed package
    from benchmarks import profile_engine

    before = (engine._MASK[:], engine._APPLY[:], engine._RUN[:], engine._FORCED[:], engine.apply)
    res = profile_engine.profile(batch=64, players=3, steps=30, warmup=5)
    assert (engine._MASK, engine._APPLY, engine._RUN, engine._FORCED, engine.apply) == before
    handlers = res["handlers"]
    assert {"mask:COMMAND", "apply:COMMAND", "run:DRAW", "forced:PAY"} <= set(handlers)
    assert all(h["calls_per_step"] > 0 and h["games_per_call"] >= 1 for h in handlers.values())
    assert 0 < res["handler_share"] <= 1
    assert abs(sum(h["share"] for h in handlers.values()) - res["handler_share"]) < 1e-9
    assert res["decisions_per_second"] > 0 and sum(res["forced_per_step"].values()) > 0
    assert set(res["forced_per_step"]) <= {name.split(":")[1] for name in handlers if name.startswith("apply:")}
    text = profile_engine.report(res)
    assert "run:DRAW" in text and "single-choice decisions" in text
    # the engine still plays normally after profiling
    state = core.init(4, 2, seed=1)
    core.step(state, state.legal_action_mask.argmax(1))
    # and the command line
    out = subprocess.run([sys.executable, "-m", "benchmarks.profile_engine", "--batch", "16", "--steps", "5",
                          "--json", str(tmp_path / "profile.json")], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    assert "handler" in out and json.loads((tmp_path / "profile.json").read_text())["batch"] == 16
