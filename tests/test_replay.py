"""Replays: written by the AEC env, the tournament and terminal play; replaying reproduces every
position exactly; bad files and other card sets fail clearly; the aos_env.view.replay command line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import aos_env
from agents.evaluation.evaluate import main as evaluate_main
from aos_env import core
from aos_env.apps.play import main as play_main
from aos_env.core.cards import DEFAULT_CARD_FILE
from aos_env.tools.positions import position
from aos_env.view.replay import FORMAT, VERSION, Replay, ReplayError, card_hash, load_replay

ROOT = Path(__file__).resolve().parent.parent


def assert_same_state(a: core.State, b: core.State, where: str = "") -> None:
    """Every field of two states equal (arrays elementwise, the rest by value)."""
    for name in core.FIELD_NAMES:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f"{where}: field {name} differs"
    for name in ("num_players", "max_turns", "backend"):
        assert getattr(a, name) == getattr(b, name), f"{where}: {name} differs"
    assert card_hash(a.cards) == card_hash(b.cards)


def recorded_game(tmp_path: Path, players: int = 3, seed: int = 21, max_turns: int = 200) -> tuple[Path, list]:
    """A random game in the AEC env with record_replay, its replay file and the env state after each step."""
    env = aos_env.env(num_players=players, record_replay=True, max_turns=max_turns)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    positions = [env.unwrapped.engine_state.copy()]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        positions.append(env.unwrapped.engine_state.copy())
    path = env.unwrapped.save_replay(tmp_path / "game.json", players=[f"bot{p}" for p in range(players)])
    return path, positions


def test_env_replay_reproduces_every_position(tmp_path: Path) -> None:
    path, positions = recorded_game(tmp_path)
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert data["env"] == {"num_players": 3, "max_turns": 200} and data["seed"] == 21
    assert data["cards"] == {"hash": card_hash(aos_env.core.cards.DEFAULT), "file": None}
    assert data["players"] == ["bot0", "bot1", "bot2"] and len(data["actions"]) == len(positions) - 1
    replay = load_replay(path)
    replayed = list(replay.states())
    assert len(replayed) == len(positions)
    for i, (a, b) in enumerate(zip(replayed, positions)):
        assert_same_state(a, b, f"position {i}")
    last = positions[-1]
    assert last.terminated[0] or last.truncated[0]
    assert replay.result["final_scores"] == core.final_scores(last)[0].tolist()
    assert replay.result["finished"] and replay.result["turns"] == int(last.turn[0])


def test_replay_refuses_another_card_set(tmp_path: Path) -> None:
    path, _ = recorded_game(tmp_path, players=2, max_turns=6)
    text = DEFAULT_CARD_FILE.read_text()
    changed = tmp_path / "cards.toml"
    changed.write_text(text.replace("points = 3", "points = 4", 1))  # one spirit worth one more point
    with pytest.raises(ReplayError, match="card set mismatch: the replay was recorded with cards sha256:"):
        load_replay(path).final_state(card_file=changed)
    same = tmp_path / "same.toml"
    same.write_text(text)  # another file with the same tables replays fine
    load_replay(path).final_state(card_file=same)


def test_replay_detects_edited_actions_and_results(tmp_path: Path) -> None:
    path, _ = recorded_game(tmp_path, players=2, max_turns=8)
    data = json.loads(path.read_text())
    replay = Replay.from_dict(data)
    state = list(replay.states())[3]
    illegal = int(np.flatnonzero(~state.legal_action_mask[0])[0])
    bad = dict(data, actions=[list(a) for a in data["actions"]])
    bad["actions"][3][1] = illegal
    with pytest.raises(ReplayError, match="action 3: recorded .* the replay does not reproduce"):
        Replay.from_dict(bad).final_state()
    bad = dict(data, result=dict(data["result"], final_scores=[999, 0]))
    with pytest.raises(ReplayError, match="differs in final_scores"):
        Replay.from_dict(bad).final_state()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(format="chess"), "field 'format' must be 'aos-replay'"),
        (lambda d: d.update(version=99), "replay version 99 is not supported"),
        (lambda d: d["env"].update(num_players=7), "env.num_players must be 2, 3 or 4"),
        (lambda d: d.update(players=["a"]), "field 'players' must list 2 names"),
        (lambda d: d["actions"].append([0, 44]), r"actions\[\d+\] must be \[player 0..1, action id 0..43\]"),
        (lambda d: d.update(seed="x"), "field 'seed' must be a JSON int"),
    ],
)
def test_bad_replay_files(tmp_path: Path, edit, message: str) -> None:
    path, _ = recorded_game(tmp_path, players=2, max_turns=4)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=message):
        load_replay(path)


def test_env_replay_needs_recording_and_a_seed() -> None:
    env = aos_env.raw_env(num_players=2)
    env.reset(seed=1)
    with pytest.raises(RuntimeError, match="record_replay=True"):
        env.replay()
    env = aos_env.raw_env(num_players=2, record_replay=True)
    env.load_state(position(2, players=[{"hand": ["Imp"]}, {"hand": ["Angel"]}]))
    with pytest.raises(RuntimeError, match="load_state.* cannot be replayed"):
        env.replay()
    with pytest.raises(ValueError, match="record_replay must be True or False"):
        aos_env.raw_env(record_replay="yes")


def test_evaluate_writes_one_replay_per_game(tmp_path: Path, capsys) -> None:
    summary = evaluate_main(
        [
            "--players",
            "2",
            "--games",
            "4",
            "--batch",
            "3",
            "--no-progress",
            "--max-turns",
            "30",
            "--json",
            str(tmp_path / "t.json"),
            "--replays",
            str(tmp_path / "replays"),
            "random",
            "greedy",
        ]
    )
    files = sorted((tmp_path / "replays").glob("game_*.json"))
    assert [f.name for f in files] == [f"game_{g:05d}.json" for g in range(4)]
    wins = {"random": 0, "greedy": 0}
    for f in files:
        replay = load_replay(f)
        state = replay.final_state()  # checks the stored result against the replayed game
        assert sorted(replay.players) == ["greedy", "random"]
        if state.terminated[0]:
            wins[replay.players[int(np.argmax(state.rewards[0]))]] += 1
    assert wins == {name: a["wins"] for name, a in summary["agents"].items()}
    assert "4 replays written" in capsys.readouterr().out


def test_evaluate_replays_argument_error(tmp_path: Path) -> None:
    taken = tmp_path / "file"
    taken.write_text("")
    with pytest.raises(SystemExit) as e:
        evaluate_main(["--replays", str(taken), "random", "greedy"])
    assert e.value.code == 2


def test_terminal_play_saves_a_replay(tmp_path: Path) -> None:
    out = io.StringIO()
    code = play_main(
        ["--opponents", "random", "--seed", "5", "--max-turns", "6", "--replays", str(tmp_path)],
        inp=io.StringIO("1\n" * 500),
        out=out,
    )
    assert code == 0
    files = list(tmp_path.glob("game-*-seed5.json"))
    assert len(files) == 1 and f"Replay saved to {files[0]}" in out.getvalue()
    replay = load_replay(files[0])
    assert replay.players == ["human", "random"] and replay.seed == 5 and replay.max_turns == 6
    scores = core.final_scores(replay.final_state())[0]
    assert f"Final scores: player_0 {scores[0]}, player_1 {scores[1]}" in out.getvalue()
    assert replay.result["final_scores"] == scores.tolist()


# ---- the command line ----------------------------------------------------------------------------


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "aos_env.view.replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_prints_the_game_in_words(tmp_path: Path) -> None:
    path, positions = recorded_game(tmp_path, players=2, max_turns=10)
    res = run_cli(str(path))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("Age of Summoners replay: seed 21, 2 players (player_0 (bot0), player_1 (bot1))")
    moves = [line for line in lines if line[:1].isdigit()]
    assert len(moves) == len(positions) - 1
    assert moves[0].startswith("1. turn 1, player_") and "command card" in moves[0]
    assert lines[-1].startswith(("Game over", "The replay ends"))


def test_cli_steps_and_writes_html(tmp_path: Path) -> None:
    path, positions = recorded_game(tmp_path, players=2, max_turns=6)
    res = run_cli(str(path), "--step", stdin="\n\nq\n")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("Next: ") == 3 and "Stopped." in res.stdout and "Your hand" in res.stdout
    page = tmp_path / "out" / "game.html"
    res = run_cli(str(path), "--html", str(page))
    assert res.returncode == 0, res.stderr
    html = page.read_text()
    assert html.count("<svg ") == len(positions) and "http://" not in html.replace("http://www.w3.org", "")


def test_cli_errors_are_usage_messages(tmp_path: Path) -> None:
    res = run_cli(str(tmp_path / "missing.json"))
    assert res.returncode == 2 and "error: replay file not found" in res.stderr and "Traceback" not in res.stderr
    path, _ = recorded_game(tmp_path, players=2, max_turns=4)
    res = run_cli(str(path), "--seat", "5")
    assert res.returncode == 2 and "--seat must be between 0 and 1" in res.stderr
    res = run_cli("--help")
    assert res.returncode == 0 and "--html OUT" in res.stdout and "--card-file" in res.stdout
