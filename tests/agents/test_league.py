"""The league (agents/league): PFSP weights, Elo, pool bounds, the schedule of snapshots and
exploiters, its state in league.json, and train.py's league end to end (tiny runs, --resume)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aos_env.base.checks import ArgumentError

TINY = [
    "--num-envs",
    "32",
    "--n-steps",
    "32",
    "--batch-size",
    "256",
    "--net-arch",
    "32,32",
    "--eval-every",
    "2000",
    "--eval-games",
    "10",
    "--final-eval-games",
    "10",
    "--snapshot-every",
    "1000",
    "--no-progress",
]


# ---- PFSP ----------------------------------------------------------------------------------------------


def test_pfsp_weights_values_floor_and_prior() -> None:
    from agents.league.pfsp import PRIOR, pfsp_weights, priority

    assert priority(0.25, "hard", 2) == pytest.approx(0.5625)
    assert priority(0.25, "hard", 1) == pytest.approx(0.75)
    assert priority(0.25, "variance") == pytest.approx(0.1875)
    assert priority(0.9, "even") == 1.0
    w = pfsp_weights({"easy": 1.0, "hard": 0.0, "new": None}, "hard", 2, floor=0.1)
    assert w["hard"] == 1.0 and w["easy"] == pytest.approx(0.1)  # the floor: none starves
    assert w["new"] == pytest.approx(0.1 + 0.9 * (1 - PRIOR) ** 2)  # unplayed: the prior 0.5
    v = pfsp_weights({"a": 0.5, "b": 0.9, "c": 0.0}, "variance", floor=0.0)
    assert v == pytest.approx({"a": 1.0, "b": 0.36, "c": 0.0})
    assert pfsp_weights({"a": 1.0, "b": 1.0}, "hard", floor=0.0) == {"a": 1.0, "b": 1.0}  # all beaten: alike
    assert pfsp_weights({"a": 0.2, "b": 0.7}, "even") == {"a": 1.0, "b": 1.0}


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"mode": "hardest"}, "mode must be one of"),
        ({"power": 0}, "power must be"),
        ({"floor": 1.5}, "floor must be"),
        ({"win_rates": {"a": 1.2}}, "win_rates['a'] must be"),
        ({"win_rates": {}}, "at least one member"),
        ({"win_rates": [0.5]}, "win_rates must be a dict"),
    ],
)
def test_pfsp_refuses_bad_arguments(kwargs: dict, words: str) -> None:
    from agents.league.pfsp import pfsp_weights

    args = {"win_rates": {"a": 0.5}, **kwargs}
    with pytest.raises(ArgumentError, match=words.replace("[", r"\[").replace("]", r"\]")):
        pfsp_weights(**args)


def test_the_config_offers_the_pfsp_modes_of_the_league() -> None:
    from agents.league.pfsp import MODES
    from agents.training.config import PFSP_MODES

    assert PFSP_MODES == MODES


# ---- Elo ------------------------------------------------------------------------------------------------


def test_elo_is_zero_at_chance_and_its_interval_holds_it() -> None:
    from agents.league.elo import MAX_ELO, elo_interval, elo_of

    assert elo_of(0.5, 2) == pytest.approx(0) and elo_of(1 / 3, 3) == pytest.approx(0)
    assert elo_of(1 / 4, 4) == pytest.approx(0)
    assert elo_of(10 / 11, 2) == pytest.approx(400)  # odds 10:1 are 400 Elo
    assert elo_of(1.0) == MAX_ELO and elo_of(0.0) == -MAX_ELO
    e = elo_interval(75, 100, 2)
    assert e["ci95"][0] < e["elo"] < e["ci95"][1] and e["games"] == 100
    assert elo_interval(0, 0)["elo"] is None


# ---- the league's bookkeeping ------------------------------------------------------------------------------


def _league(**kwargs):
    from agents.league import League

    league = League(2, self_share=0.4, **kwargs)
    league.add("greedy", "baseline", 0, 0.5)
    league.add("bots/x.npz", "file", 0, 0.1)
    return league


def test_the_pool_keeps_the_newest_snapshots_and_exploiters_and_never_drops_given_agents() -> None:
    league = _league(max_snapshots=2, max_exploiters=1)
    for t in (10, 20, 30):
        gone = league.add_learned(f"self@{t}", "snapshot", t, f"league/self-{t}.zip")
    assert [m.name for m in gone] == ["self@10"] and gone[0].file == "league/self-10.zip"
    assert league.add_learned("exploiter@25", "exploiter", 25) == []
    assert [m.name for m in league.add_learned("exploiter@35", "exploiter", 35)] == ["exploiter@25"]
    assert list(league.members) == ["greedy", "bots/x.npz", "self@20", "self@30", "exploiter@35"]
    # snapshots and exploiters share the weight of 'self'; given agents keep theirs
    assert {n: m.mix for n, m in league.members.items()} == pytest.approx(
        {"greedy": 0.5, "bots/x.npz": 0.1, "self@20": 0.4 / 3, "self@30": 0.4 / 3, "exploiter@35": 0.4 / 3}
    )
    with pytest.raises(ArgumentError, match="is a member already"):
        league.add("greedy", "baseline", 0)
    with pytest.raises(ArgumentError, match="kind must be one of"):
        league.add_learned("x", "baseline", 0)


def test_results_count_recent_games_per_member_and_steer_the_weights() -> None:
    league = _league(window=3, floor=0.0)
    league.add_learned("self@5", "snapshot", 5)
    for won in (0, 0, 1, 1, 1):  # the window keeps the last three
        league.record_game(["greedy", "greedy", "gone@1"], won)  # a member counts once per game; others skipped
    league.record_game(["self@5"], 0)
    g = league.members["greedy"]
    assert (g.games, g.wins, g.win_rate()) == (5, 3.0, 1.0)
    w = league.weights()
    assert w["greedy"] == 0.0 and w["self@5"] == pytest.approx(0.4)  # beaten: 0 (no floor); lost to: its mix
    assert w["bots/x.npz"] == pytest.approx(0.1 * 0.25)  # unplayed: the prior
    assert league.anchor == "greedy" and league.learner_elo()["elo"] > 0


def test_snapshots_and_exploiters_are_due_on_their_schedule() -> None:
    league = _league(snapshot_every=100, exploiter_every=250, start=50)
    assert not league.snapshot_due(149) and league.snapshot_due(150) and not league.snapshot_due(200)
    assert league.snapshot_due(460) and league.next_snapshot == 550  # a late check plans the next on the grid
    assert not league.exploiter_due(299) and league.exploiter_due(300) and not league.exploiter_due(400)
    assert not _league(exploiter_every=0).exploiter_due(10**9)  # 0: never
    from agents.league import League

    no_self = League(2, self_share=0.0, exploiter_every=10)
    assert not no_self.snapshot_due(10**9) and not no_self.exploiter_due(10**9)


def test_the_state_goes_to_json_and_back_up_to_the_resumed_steps() -> None:
    league = _league(window=4)
    league.add_learned("self@10", "snapshot", 10, "league/self-10.zip")
    league.add_learned("self@20", "snapshot", 20, "league/self-20.zip")
    league.record_game(["greedy"], 1)
    league.mark(15)
    league.mark(25)
    data = json.loads(json.dumps(league.to_dict()))
    back = _league(window=4)
    back.restore(data)
    assert back.to_dict() == league.to_dict()
    early = _league(window=4)
    early.restore(data, up_to=15)
    assert "self@20" not in early.members and [h["t"] for h in early.history] == [15]
    with pytest.raises(ArgumentError, match="for 2 players"):
        from agents.league import League

        League(3).restore(data)
    with pytest.raises(ArgumentError, match="version"):
        back.restore({"version": 99})


# ---- exploiters ------------------------------------------------------------------------------------------


def test_an_exploiter_joins_only_beyond_chance() -> None:
    from agents.league.exploiters import exploiter_seed, joins

    assert joins(140, 200, 2) and not joins(110, 200, 2)  # 55%: its interval reaches below 50%
    assert joins(90, 200, 3) and not joins(75, 200, 3)  # chance is 1/3
    assert exploiter_seed(5, 100) == exploiter_seed(5, 100) != exploiter_seed(6, 100)
    with pytest.raises(ArgumentError):
        joins(3, 2, 2)


def _league_run(tmp_path: Path, make_exploiter=None, **options):
    from sb3_contrib import MaskablePPO

    from agents import RandomAgent
    from agents.league.trainer import LeagueRun, SB3Learner
    from agents.training import TrainConfig, check_config
    from aos_env.envs.opponents import OpponentPool
    from aos_env.integrations.sb3 import LearnerVecEnv

    c = check_config(
        TrainConfig(
            league=True,
            num_envs=8,
            n_steps=8,
            net_arch=(16,),
            eval_games=20,
            exploiter_every=100,
            exploiter_steps=64,
            **options,
        )
    )
    pool = OpponentPool({"random": (RandomAgent(seed=1), 1.0)})
    model = MaskablePPO("MlpPolicy", LearnerVecEnv(num_envs=8, opponents=pool, seed=0), n_steps=8, seed=0)
    logged: dict[str, float] = {}
    kwargs = {} if make_exploiter is None else {"make_exploiter": make_exploiter}
    return LeagueRun(c, SB3Learner(model, pool, c.players), tmp_path, logged.__setitem__, **kwargs), pool, logged


@pytest.mark.one_backend
def test_the_league_trains_an_exploiter_when_due_and_it_joins_only_when_it_wins(tmp_path: Path, monkeypatch) -> None:
    from agents import GreedyAgent
    from agents.league import trainer
    from agents.league.exploiters import Trained

    calls = []

    def fake(target, steps, seed, config, init):
        calls.append((steps, seed))
        assert init is not None and init.suffix == ".npz"  # --exploiter-start learner: a bot file of it
        return Trained(GreedyAgent(), lambda path: Path(path).write_bytes(b"weights"))

    run, pool, logged = _league_run(tmp_path, fake)
    run.step(99)
    assert not calls
    lost = {"wins": 9, "games": 20, "win_rate": 0.45, "ci95": [0.26, 0.66]}
    monkeypatch.setattr(trainer, "play_exploiter", lambda *a: lost)
    run.step(100)  # due: trained, played, beaten
    assert calls == [(64, trainer.exploiter_seed(0, 100))] and "exploiter@100" not in pool
    assert run.league.exploiters[-1]["joined"] is False
    monkeypatch.undo()
    run.step(200)  # greedy against an untrained policy, for real: it wins and joins
    entry = run.league.exploiters[-1]
    assert entry["joined"] and entry["win_rate"] > 0.5 and "exploiter@200" in pool
    assert (tmp_path / "league" / "exploiter-200.zip").read_bytes() == b"weights"
    assert (tmp_path / "league.json").is_file() and (tmp_path / "league.png").is_file()
    run.league.record_game(["random"], 1)
    run.rollout_end(200)
    assert pool.weights() == pytest.approx(run.league.weights())
    assert set(logged) >= {"league/winrate/random", "league/elo", "league/pool_size"}


@pytest.mark.one_backend
@pytest.mark.parametrize("start", ["learner", "scratch"])
def test_an_exploiter_starts_from_the_learners_weights_or_from_scratch(tmp_path: Path, start: str) -> None:
    """--exploiter-start learner (the default) hands the exploiter a bot file of the frozen learner;
    scratch hands it nothing (random weights); league.json records which."""
    from agents import GreedyAgent
    from agents.league.exploiters import Trained
    from agents.players.bot import BotNet

    seen = []

    def fake(target, steps, seed, config, init):
        seen.append(None if init is None else BotNet(init).policy.weights[0].copy())
        return Trained(GreedyAgent(), lambda path: Path(path).write_bytes(b"weights"))

    run, _, _ = _league_run(tmp_path, fake, exploiter_start=start)
    run.step(100)
    if start == "scratch":
        assert seen == [None]
    else:
        first = run.learner.model.policy.mlp_extractor.policy_net[0].weight.detach().numpy().T
        np.testing.assert_allclose(seen[0], first, rtol=1e-6)
    assert run.league.exploiters[-1]["start"] == start


def test_train_exploiter_starts_from_a_bot_file(tmp_path: Path) -> None:
    """agents.training.exploiter.train_exploiter(init=BOT): the exploiter's networks start as the bot's
    (at a learning rate of 1e-12 they are still the bot's after a rollout)."""
    from sb3_contrib import MaskablePPO

    from agents import RandomAgent
    from agents.files.export import export
    from agents.players.bot import BotNet
    from agents.training import TrainConfig, check_config
    from agents.training.exploiter import train_exploiter
    from aos_env.integrations.sb3 import LearnerVecEnv

    net = {"net_arch": [16]}
    other = MaskablePPO("MlpPolicy", LearnerVecEnv(num_envs=4, seed=1), n_steps=4, seed=3, policy_kwargs=net)
    bot = export(other, tmp_path / "start.npz", 2)
    c = check_config(TrainConfig(num_envs=8, n_steps=8, net_arch=(16,), learning_rate=1e-12))

    def first_layer(model) -> np.ndarray:  # the policy's first layer: the shared trunk's (the default) or its own
        return next(p for n, p in model.policy.named_parameters() if n.endswith("weight")).detach().numpy().T

    model = train_exploiter(RandomAgent(seed=0), 64, 0, c, init=bot)
    got = first_layer(model)
    np.testing.assert_allclose(got, BotNet(bot).policy.weights[0], atol=1e-6)
    fresh = train_exploiter(RandomAgent(seed=0), 64, 0, c)
    assert not np.allclose(first_layer(fresh), got, atol=1e-3)


class _FakeRLlibTrainer:
    """What ``RLlibLearner`` uses of an ``RLlibTrainer``, recorded: the runners' pools are ``pools``."""

    def __init__(self, policy_model) -> None:
        self.timesteps, self.model, self.calls = 0, policy_model, []

    def agent(self, deterministic: bool = True, seed=0):
        from agents import PolicyAgent

        return PolicyAgent.snapshot(self.model, deterministic=deterministic, seed=seed)

    def save_bot(self, path, info=None):
        from agents.files.export import export

        return export(self.model, path, 2, info)

    def update_opponents(self, add=None, remove=(), weights=None):
        if add is not None:
            name, data, weight, seed = add
            self.calls.append(("add", name, data[:2], weight, seed))
        if remove or weights:
            self.calls.append(("update", tuple(remove), dict(weights or {})))


@pytest.mark.one_backend
def test_the_rllib_league_sends_members_as_bot_files_and_counts_the_runners_games(tmp_path: Path, monkeypatch) -> None:
    """--backend rllib's league (agents.training.rllib_league): snapshots are bot files (.npz), an
    exploiter's model file is sent as a bot file, departures and weights reach the runners, and the
    games the runners ended count for their opponents."""
    from sb3_contrib import MaskablePPO

    from agents import RandomAgent
    from agents.files.model_file import save_model
    from agents.league import trainer
    from agents.league.exploiters import Trained
    from agents.league.trainer import LeagueRun
    from agents.training import TrainConfig, check_config
    from agents.training.rllib_league import RLlibLearner
    from aos_env.envs.opponents import OpponentPool
    from aos_env.integrations.sb3 import LearnerVecEnv

    pool = OpponentPool({"random": (RandomAgent(seed=1), 1.0)})  # the pool the runners start from
    model = MaskablePPO("MlpPolicy", LearnerVecEnv(num_envs=8, opponents=pool, seed=0), n_steps=8, seed=0)
    fake = _FakeRLlibTrainer(model)  # its policy stands for the RLlib module's
    c = check_config(
        TrainConfig(league=True, num_envs=8, n_steps=8, net_arch=(16,), exploiter_every=100, max_snapshots=1)
    )
    run = LeagueRun(
        c,
        RLlibLearner(fake, pool, 2),
        tmp_path,
        lambda tag, value: None,
        make_exploiter=lambda target, steps, seed, config, init: Trained(
            target, lambda path: save_model(model, path, 2)
        ),
    )
    assert set(run.league.members) == {"random"}
    run.snapshot(10)
    assert (tmp_path / "league" / "self-10.npz").is_file()
    assert fake.calls[0][:3] == ("add", "self@10", b"PK")  # a bot file (an .npz is a zip)
    monkeypatch.setattr(
        trainer, "play_exploiter", lambda *a: {"wins": 20, "games": 20, "win_rate": 1.0, "ci95": [0.84, 1.0]}
    )
    run.step(100)  # an exploiter is due: it wins, joins, and its model file goes to the runners as a bot file
    added = [call[1] for call in fake.calls if call[0] == "add"]
    assert added == ["self@10", "exploiter@100"] and (tmp_path / "league" / "exploiter-100.zip").is_file()
    fake.timesteps = 300
    run.snapshot(300)  # max_snapshots=1: self@10 leaves every runner's pool and its file goes
    assert ("update", ("self@10",), {}) in fake.calls and not (tmp_path / "league" / "self-10.npz").exists()
    run.record_games([("random", True), ("random", False), ("exploiter@100, random", False), (None, True)])
    assert run.league.members["random"].games == 3 and run.league.members["exploiter@100"].games == 1
    run.rollout_end(300)
    sent = [call[2] for call in fake.calls if call[0] == "update" and call[2]][-1]
    assert sent == pytest.approx(run.league.weights()) and set(sent) == {"random", "exploiter@100", "self@300"}
    assert run.learner.weights() == pytest.approx(sent)


def test_rllib_runners_keep_their_ended_games_for_the_league() -> None:
    """The episode-end callback keeps each ended game's opponents and result; ``take_games`` hands
    them over once."""
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    from types import SimpleNamespace

    from agents.training import rllib_ppo

    rllib_ppo.take_games()
    env = SimpleNamespace(ended_opponents=[None, "greedy", "self@10, random"])
    for index, win in ((1, True), (2, False)):
        episode = SimpleNamespace(get_infos=lambda i, win=win: {"win": win, "outcome": 1.0, "length": 9})
        rllib_ppo._on_episode_end(episode=episode, env=env, env_index=index)
    single = SimpleNamespace(ended_opponents="bot")  # the single env's: one game
    rllib_ppo._on_episode_end(episode=SimpleNamespace(get_infos=lambda i: {"win": True}), env=single, env_index=0)
    assert rllib_ppo.take_games() == [("greedy", True), ("self@10, random", False), ("bot", True)]
    assert rllib_ppo.take_games() == []


def test_league_json_is_written_atomically(tmp_path: Path, monkeypatch) -> None:
    from agents.league import League
    from agents.league.records import LEAGUE_FILE, save_league

    league = League(2)
    league.add("greedy", "baseline", 0)
    save_league(league, tmp_path)
    before = (tmp_path / LEAGUE_FILE).read_text()
    league.record_game(["greedy"], 1)
    real = Path.write_text

    def half(self, data, *args, **kwargs):  # a disk that fills in the middle of the file
        real(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half)
    with pytest.raises(OSError, match="No space"):
        save_league(league, tmp_path)
    monkeypatch.undo()
    assert (tmp_path / LEAGUE_FILE).read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league.json", "league.png"]


# ---- train.py ------------------------------------------------------------------------------------------------


def test_train_py_league_options_are_checked() -> None:
    from agents.training import OptionError, TrainConfig, build_parser, check_config, config_from_args

    parser = build_parser()
    assert config_from_args(parser.parse_args([])).league is False  # opt-in (docs/league.md says why)
    assert config_from_args(parser.parse_args(["--league"])).league is True
    assert config_from_args(parser.parse_args(["--no-league"])).league is False
    for bad, option, words in [
        ({"league": False, "exploiter_every": 10}, "--exploiter-every", "needs --league"),
        ({"opponents": ["greedy"], "exploiter_every": 10}, "--exploiter-every", "'self' in --opponents"),
        ({"pfsp": "hardest"}, "--pfsp", "must be one of"),
        ({"pfsp_power": 0}, "--pfsp-power", "must be a finite number > 0"),
        ({"pfsp_floor": 2}, "--pfsp-floor", "must be a finite number"),
        ({"league": 1}, "--league", "must be True or False"),
    ]:
        with pytest.raises(OptionError) as e:
            check_config(TrainConfig(**bad))
        assert e.value.option == option and words in str(e.value), (bad, str(e.value))
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--pfsp", "nope"])
    assert exit_.value.code == 2


@pytest.mark.one_backend
def test_train_py_league_resumes_with_its_state(tmp_path: Path) -> None:
    from agents.training import main

    args = ["--league", "--out", str(tmp_path), "--name", "lg", *TINY]
    first = main(["--timesteps", "3000", "--max-snapshots", "2", *args])
    out = tmp_path / "lg"
    section = first["league"]
    names = [m["name"] for m in section["members"]]
    assert names[:2] == ["greedy", "random"] and names[2:] == ["self@2016", "self@3008"]  # two snapshots kept
    assert sorted(p.name for p in (out / "league").iterdir()) == ["self-2016.zip", "self-3008.zip"]
    assert section["anchor"] == "greedy" and all("elo_ci95" in m and "weight" in m for m in section["members"])
    assert sum(m["games"] for m in section["members"]) > 0
    saved = json.loads((out / "league.json").read_text())
    assert (out / "league.png").read_bytes().startswith(b"\x89PNG")
    second = main(["--timesteps", "1000", "--resume", "--max-snapshots", "2", *args])
    again = {m["name"]: m for m in second["league"]["members"]}
    assert list(again) == ["greedy", "random", "self@3008", "self@4000"]  # self@3008 came back from its file
    before = {m["name"]: m for m in saved["members"]}
    assert again["greedy"]["games"] >= before["greedy"]["games"]  # the results go on from the saved ones
    history = json.loads((out / "league.json").read_text())["history"]
    assert len(history) > len(saved["history"]) and history[: len(saved["history"])] == saved["history"]
    assert np.all(np.diff([h["t"] for h in history]) > 0)


@pytest.mark.one_backend
def test_train_py_without_league_writes_no_league_files(tmp_path: Path) -> None:
    from agents.training import main

    summary = main(["--timesteps", "1000", "--no-league", "--out", str(tmp_path), "--name", "plain", *TINY])
    assert "league" not in summary and not (tmp_path / "plain" / "league.json").exists()
