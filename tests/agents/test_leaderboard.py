"""The leaderboard (agents/evaluation/leaderboard.py): pooled pairwise wins, Elo with bootstrap intervals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation import leaderboard

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.one_backend  # no engine in most of these; the CLI runs on the default engine


def _summary(wins: dict, players: int = 2, games: int = 100) -> dict:
    return {"players": players, "games": games, "agents": {a: {} for a in wins}, "pair_wins": wins, "seed": 0}


def test_runs_pool_and_ratings_order_the_agents() -> None:
    board = leaderboard.empty()
    board = leaderboard.add_run(board, _summary({"a": {"b": 70}, "b": {"a": 30}}), {"a": "a", "b": "b"})
    board = leaderboard.add_run(board, _summary({"a": {"b": 60}, "b": {"a": 40}}), {"a": "a", "b": "b"})
    assert board["tables"]["2"]["pairs"] == {"a vs b": [130, 70]}
    rows = leaderboard.ratings(board["tables"]["2"])
    assert [r["agent"] for r in rows] == ["a", "b"]
    a, b = rows
    assert a["elo"] > 1500 > b["elo"] and a["games"] == b["games"] == 200 and a["wins"] == 130
    assert a["ci95"][0] < a["elo"] < a["ci95"][1] and a["ci95"][0] > b["ci95"][1], "the gap is clear at 200 games"


def test_copies_of_one_agent_are_not_rated_against_each_other() -> None:
    board = leaderboard.add_run(
        leaderboard.empty(),
        _summary({"greedy": {"greedy#2": 5}, "greedy#2": {"greedy": 3}}),
        {"greedy": "greedy", "greedy#2": "greedy#2"},
    )
    assert board["tables"]["2"]["pairs"] == {}


def test_tables_are_per_player_count_and_markdown_lists_them() -> None:
    board = leaderboard.empty()
    leaderboard.add_run(board, _summary({"x": {"y": 9}, "y": {"x": 1}}, players=2), {})
    leaderboard.add_run(board, _summary({"x": {"y": 2}, "y": {"x": 8}}, players=4), {})
    text = leaderboard.markdown(board)
    assert "## 2 players" in text and "## 4 players" in text
    assert text.index("| 1 | `x` |") < text.index("## 4 players") < text.index("| 1 | `y` |")


def test_evaluate_writes_the_leaderboard_across_runs(tmp_path: Path) -> None:
    board = tmp_path / "lb.json"
    for seed in (0, 1):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "agents.evaluation.evaluate",
                "random",
                "greedy",
                "--games",
                "24",
                "--seed",
                str(seed),
                "--json",
                str(tmp_path / f"t{seed}.json"),
                "--leaderboard",
                str(board),
                "--no-progress",
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    data = json.loads(board.read_text())
    assert len(data["runs"]) == 2 and sum(data["tables"]["2"]["pairs"]["greedy vs random"]) > 24
    assert "`greedy`" in (tmp_path / "lb.md").read_text()


def test_a_file_that_is_not_a_leaderboard_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "agents.evaluation.evaluate",
            "random",
            "greedy",
            "--games",
            "2",
            "--leaderboard",
            str(bad),
            "--json",
            str(tmp_path / "t.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "usage:" in out.stderr and "not a aos-leaderboard file" in out.stderr
    assert "Traceback" not in out.stderr
    with pytest.raises(ValueError, match="leaderboard"):
        leaderboard.load(bad)
