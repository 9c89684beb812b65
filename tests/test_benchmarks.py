"""A small smoke run of ``python -m benchmarks`` (figures are printed, never asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_benchmarks_quick_run(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--out", str(tmp_path)], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["engine"]) == {"1", "64", "1024"}
    assert res["aec"]["median"] > 0 and res["memory_bytes_per_game"] > 0
    assert 0 < res["training"]["env_share"] < 1
    assert {"pettingzoo leduc_holdem_v4", "pettingzoo connect_four_v3", "openspiel hanabi"} <= set(res["peers"])
    assert (tmp_path / "throughput.png").stat().st_size > 0
    assert "÷ openspiel hanabi" in out and "engine, batch 1024" in (tmp_path / "table.md").read_text()


def test_engine_throughput_script_help() -> None:
    text = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "engine_throughput.py"), "--help"], check=True,
                          capture_output=True, text=True).stdout
    assert "--batches" in text and "--repeats" in text
