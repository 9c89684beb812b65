"""Replays: written by the AEC env, the tournament and terminal play; replaying reproduces every
position exactly; bad files and other card sets fail clearly; the aos_env.view.replay command line."""

from __future__ import annotations

import io
import json
import os
import re
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

ROOT = Path(__file__).resolve().parents[2]


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
    for _agent in env.agent_iter():
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
    for i, (a, b) in enumerate(zip(replayed, positions, strict=True)):
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


def test_terminal_play_takes_any_line_and_speaks_one_vocabulary(tmp_path: Path) -> None:
    """Issue 33: a line of 100,000 digits is a wrong answer, not a crash; issue 34: the table names
    mana by colour, the bots' moves come with what they changed, the seats' neighbours are named."""
    out = io.StringIO()
    code = play_main(
        ["--opponents", "random", "--seed", "5", "--max-turns", "6", "--replays", str(tmp_path)],
        inp=io.StringIO("9" * 100_000 + "\n" + "1\n" * 500),
        out=out,
    )
    text = out.getvalue()
    assert code == 0 and "is not one of the choices" in text and len(list(tmp_path.glob("game-*.json"))) == 1
    assert "left neighbour, player_1" in text and "10 or more spirits" in text
    assert "    then player_1: " in text or "    then you: " in text
    mana_rows = [line for line in text.splitlines() if line.startswith("  mana: ")]
    assert mana_rows and all(
        " x" not in row.split(";")[0] or any(c in row for c in aos_env.core.cards.COLOURS) for row in mana_rows
    )


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
    assert html.count('<div class="pos"') == len(positions) and html.count("<svg ") == len(positions) + 1  # + timeline
    assert "http://" not in html.replace("http://www.w3.org", "")


def test_cli_errors_are_usage_messages(tmp_path: Path) -> None:
    res = run_cli(str(tmp_path / "missing.json"))
    assert res.returncode == 2 and "error: replay file not found" in res.stderr and "Traceback" not in res.stderr
    path, _ = recorded_game(tmp_path, players=2, max_turns=4)
    res = run_cli(str(path), "--seat", "5")
    assert res.returncode == 2 and "--seat must be between 0 and 1" in res.stderr
    res = run_cli("--help")
    assert res.returncode == 0 and "--html OUT" in res.stdout and "--card-file" in res.stdout


# ---- replays that explain ------------------------------------------------------------------


def old_format(tmp_path: Path) -> Path:
    """A version-1 replay file, as aos_env 0.4 wrote them: no 'weighed' field."""
    path, _ = recorded_game(tmp_path, players=2, max_turns=8)
    data = json.loads(path.read_text())
    data["version"] = 1
    data.pop("weighed", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    return old


def test_old_format_replays_still_load_and_show(tmp_path: Path) -> None:
    from aos_env.view.replay import to_html

    old = old_format(tmp_path)
    replay = load_replay(old)
    assert replay.weighed is None and replay.weighing(0) is None
    states = list(replay.states())
    assert len(states) == len(replay.actions) + 1
    page = to_html(replay, states)
    assert "Nothing recorded about what this player weighed" in page
    assert json.loads(json.dumps(replay.to_dict()))["version"] == VERSION  # saved again: the current version


def test_the_bot_explains_its_decisions(tmp_path: Path) -> None:
    """evaluate --replays records, at each decision of the bot, its legal actions with their
    probabilities and its value estimate; the random agent's decisions record nothing."""
    evaluate_main(
        ["--players", "2", "--games", "1", "--no-progress", "--max-turns", "12", "--json", str(tmp_path / "t.json")]
        + ["--replays", str(tmp_path / "r"), "bot", "random"]
    )
    replay = load_replay(tmp_path / "r" / "game_00000.json")
    states = list(replay.states())
    bot_seat = replay.players.index("bot")
    explained = 0
    for i, (p, a) in enumerate(replay.actions):
        item = replay.weighing(i)
        legal = np.flatnonzero(states[i].legal_action_mask[0])
        if p != bot_seat or legal.size < 2:
            assert item is None, f"decision {i}: only the bot's real choices are explained"
            continue
        explained += 1
        assert item["by"] == "policy" and isinstance(item["value"], float)  # the value net's estimate
        probs = [x for _, x in item["actions"]]
        assert probs == sorted(probs, reverse=True) and 0.99 <= sum(probs) <= 1.001 or len(legal) > 8
        assert {b for b, _ in item["actions"]} <= set(legal.tolist())
        assert a == item["actions"][0][0], "the deterministic bot plays its most likely action"
    assert explained > 3


def test_search_explains_with_its_values() -> None:
    from agents import make_agent
    from aos_env.view.explain import weigh_on_env

    env = aos_env.env(num_players=2)
    env.reset(seed=3)
    mc = make_agent("mc:rollouts=2,max_rollout_turns=1", seed=0)
    for _ in range(30):
        mask = env.observe(env.agent_selection)["action_mask"]
        action, item = weigh_on_env(mc, env)
        if mask.sum() > 1:
            assert item is not None and item["by"] == "search"
            assert item["actions"][0][0] == action and item["value"] == item["actions"][0][1]
            return
        assert item is None
        env.step(action)
    raise AssertionError("no decision with two legal actions in 30 moves")


@pytest.mark.parametrize(
    "weighed, message",
    [
        ("x", "field 'weighed' must be null or a list of"),
        ([{"by": "magic", "actions": [[0, 1.0]]}], "weighed[0] must be null or an object with 'by'"),
        ([{"by": "policy", "actions": [[99, 1.0]]}], "weighed[0] actions must be [action id 0..43"),
        ([{"by": "policy", "actions": [[1, 0.5]], "value": "high"}], "weighed[0] value must be null or a finite"),
    ],
)
def test_bad_weighed_fields(tmp_path: Path, weighed, message: str) -> None:
    path, _ = recorded_game(tmp_path, players=2, max_turns=4)
    data = json.loads(path.read_text())
    if isinstance(weighed, list):
        weighed = weighed + [None] * (len(data["actions"]) - 1)
    data["weighed"] = weighed
    with pytest.raises(ReplayError, match=re.escape(message)):
        Replay.from_dict(data)


def test_cli_prints_no_escape_sequences(tmp_path: Path) -> None:
    """Issue 33: names in a replay are data; the terminal gets no control characters from them."""
    path, _ = recorded_game(tmp_path, players=2, max_turns=4)
    data = json.loads(path.read_text())
    data["players"] = ["\x1b]0;owned\x07\x1b[2J", "\x1b]52;c;ZXZpbA==\x07\u202eevil"]
    path.write_text(json.dumps(data))
    res = run_cli(str(path), "--step", stdin="\n" * 40)
    assert res.returncode == 0, res.stderr
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in res.stdout
    assert "?]0;owned??[2J" in res.stdout  # shown as text, harmless


def test_a_trained_model_explains_its_decisions() -> None:
    """A train.py model (a MaskablePPO policy) gives its probabilities and value like the numpy bot."""
    sb3 = pytest.importorskip("sb3_contrib")
    from agents.players.policy import PolicyAgent
    from aos_env.envs.gym import AgeOfSummonersEnv
    from aos_env.view.explain import can_weigh, weigh

    model = sb3.MaskablePPO("MlpPolicy", AgeOfSummonersEnv(num_players=2), policy_kwargs=dict(net_arch=[16]))
    agent = PolicyAgent.snapshot(model)
    env = aos_env.env(num_players=2)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    item = weigh(agent, obs["observation"], obs["action_mask"].astype(bool))
    assert can_weigh(agent) and item["by"] == "policy" and isinstance(item["value"], float)
    assert {a for a, _ in item["actions"]} == set(np.flatnonzero(obs["action_mask"]).tolist())
    assert abs(sum(p for _, p in item["actions"]) - 1) < 0.01
