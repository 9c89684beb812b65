"""The batched training env (the Gymnasium vector env and its SB3 adapter LearnerVecEnv), MaskablePPO on
it, and train.py end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from aos_env import core
from aos_env.envs.gym import AgeOfSummonersVectorEnv
from aos_env.envs.opponents import OpponentPool

ROOT = Path(__file__).resolve().parents[2]


def greedy_random_pool() -> OpponentPool:
    from agents import GreedyAgent, RandomAgent

    return OpponentPool({"random": (RandomAgent(seed=1), 1.0), "greedy": (GreedyAgent(), 1.0)})


def test_import_aos_env_does_not_load_torch_or_sb3() -> None:
    code = (
        "import sys, aos_env, aos_env.core, aos_env.envs.learner, aos_env.envs.gym; "
        "bad = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_vector_env_plays_whole_games_without_sb3(players: int) -> None:
    envs = AgeOfSummonersVectorEnv(
        num_envs=16,
        num_players=players,
        opponents=greedy_random_pool(),
        shaping=0.05,
        autoreset_mode=AutoresetMode.SAME_STEP,
        illegal_action="raise",
    )
    learner = envs.learner
    obs, _ = envs.reset(seed=players)
    assert obs.shape == (16, core.OBS_DIM) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished, wins = 0, 0
    for _ in range(400):
        masks = envs.action_masks()
        assert masks.shape == (16, 44) and (masks.sum(1) >= 1).all(), "the learner always has a choice"
        assert (learner.state.current_player == learner.seat).all(), "every game waits for the learner"
        actions = (rng.random(masks.shape) * masks).argmax(1)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert obs.shape == (16, core.OBS_DIM) and rewards.shape == (16,) and terminated.shape == (16,)
        # restarted games are already at the learner's first decision of the new game
        np.testing.assert_array_equal(obs, core.observe(learner.state, learner.seat))
        assert not (learner.state.terminated | learner.state.truncated).any()
        for i in np.flatnonzero(terminated | truncated):
            assert infos["final_obs"][i].shape == (core.OBS_DIM,)
            finished += 1
            wins += infos["final_info"]["win"][i]
    assert finished > 5
    assert wins < finished  # random play loses to greedy now and then


def test_shaping_rewards_sum_to_the_final_lead() -> None:
    envs = AgeOfSummonersVectorEnv(
        num_envs=8, num_players=2, opponents=greedy_random_pool(), shaping=0.1, autoreset_mode=AutoresetMode.SAME_STEP
    )
    envs.reset(seed=3)
    learner = envs.learner
    start = core.score_lead(learner.state, np.arange(8), learner.seat)  # the lead at the learner's first decision
    rng = np.random.default_rng(1)
    total = np.zeros(8)
    checked = 0
    for _ in range(600):
        masks = envs.action_masks()
        obs, rewards, terminated, truncated, infos = envs.step((rng.random(masks.shape) * masks).argmax(1))
        total += rewards
        for i in np.flatnonzero(terminated | truncated):
            final = infos["final_info"]
            # shaping adds 0.1 x (final lead - lead at the learner's first decision) to the outcome
            np.testing.assert_allclose(total[i], final["outcome"][i] + 0.1 * (final["margin"][i] - start[i]), atol=1e-4)
            checked += 1
            total[i] = 0
        new = terminated | truncated
        start[new] = core.score_lead(learner.state, np.flatnonzero(new), learner.seat[new])
    assert checked > 5


def test_vec_env_for_maskable_ppo() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor

    from aos_env.integrations.sb3 import LearnerVecEnv

    venv = VecMonitor(LearnerVecEnv(num_envs=8, num_players=2, opponents=greedy_random_pool(), seed=0))
    assert isinstance(venv, VecEnv) and venv.num_envs == 8
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (8, core.OBS_DIM) and venv.observation_space.contains(obs[0])
    masks = get_action_masks(venv)
    assert masks.shape == (8, 44) and masks.dtype == bool
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    obs, rewards, dones, infos = venv.step(actions)
    assert obs.shape == (8, core.OBS_DIM) and rewards.shape == (8,) and len(infos) == 8
    finished = 0
    for _ in range(300):  # SB3's conventions for a finished game
        masks = get_action_masks(venv)
        obs, rewards, dones, infos = venv.step(np.array([np.flatnonzero(m)[-1] for m in masks]))
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (core.OBS_DIM,)
            assert {"episode", "win", "is_success", "score", "margin", "TimeLimit.truncated"} <= set(info)
            assert info["episode"]["l"] >= 1  # VecMonitor's own episode statistics
            finished += 1
        assert all(not infos[i] for i in np.flatnonzero(~dones))  # infos only for finished games
    assert finished > 0
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512


def test_sb3_adapter_copies_keep_the_games() -> None:
    import copy
    import pickle

    from aos_env.integrations.sb3 import LearnerVecEnv

    venv = LearnerVecEnv(num_envs=4, opponents="greedy@1 random@1", max_turns=8, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)

    def actions(masks: np.ndarray) -> np.ndarray:
        return (rng.random(masks.shape) * masks).argmax(1)

    for _ in range(3):
        venv.step(actions(venv.action_masks()))
    for make_twin in (lambda v: pickle.loads(pickle.dumps(v)), copy.deepcopy):
        twin = make_twin(venv)
        np.testing.assert_array_equal(twin.venv.learner.state.records, venv.venv.learner.state.records)
        for _ in range(20):
            a = actions(venv.action_masks())
            got, want = venv.step(a), twin.step(a)
            for x, y in zip(got[:3], want[:3], strict=True):
                np.testing.assert_array_equal(x, y)


@pytest.mark.one_backend
def test_the_sb3_example_in_the_docs_runs(capsys) -> None:
    import numba
    import torch
    from helpers import doc_code

    (code,) = doc_code("stable-baselines3 and MaskablePPO")
    threads = torch.get_num_threads(), numba.get_num_threads()
    try:
        exec(compile(code, "docs/ecosystem.md#stable-baselines3", "exec"), {})
    finally:  # the example sets the process's threads; the other tests keep theirs
        torch.set_num_threads(threads[0])
        numba.set_num_threads(threads[1])
    assert "frozen@0.5" in capsys.readouterr().out


def test_maskable_ppo_learns_to_beat_random() -> None:
    """A short run against random opponents clearly beats random play afterwards."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents import PolicyAgent, RandomAgent
    from agents.evaluation.matches import play_games, summarise
    from aos_env.integrations.sb3 import LearnerVecEnv

    torch.set_num_threads(1)
    env = LearnerVecEnv(
        num_envs=64, num_players=2, opponents={"random": (RandomAgent(seed=0), 1.0)}, seed=0, shaping=0.02
    )
    model = MaskablePPO(
        "MlpPolicy", VecMonitor(env), n_steps=32, batch_size=512, n_epochs=4, gamma=0.995, seed=0, device="cpu"
    )

    def win_rate() -> float:
        res = play_games(
            [PolicyAgent.snapshot(model, deterministic=True), RandomAgent(seed=5)],
            2,
            100,
            seed=77,
            batch_size=100,
            names=["learner", "random"],
        )
        return summarise(res)["agents"]["learner"]["win_rate"]

    before = win_rate()
    model.learn(total_timesteps=200_000)
    after = win_rate()
    assert after > 0.7 and after > before + 0.15, (before, after)


def test_train_script_end_to_end_and_resume(tmp_path: Path) -> None:
    from agents import PolicyAgent

    common = [
        "--out",
        str(tmp_path),
        "--name",
        "tiny",
        "--num-envs",
        "32",
        "--n-steps",
        "32",
        "--batch-size",
        "256",
        "--eval-every",
        "1500",
        "--eval-games",
        "10",
        "--final-eval-games",
        "10",
        "--snapshot-every",
        "1000",
        "--no-progress",
    ]
    run = [sys.executable, str(ROOT / "train.py")]
    subprocess.run(run + ["--timesteps", "2000"] + common, check=True, cwd=tmp_path)
    out = tmp_path / "tiny"
    for name in ("model.zip", "summary.json", "learning_curve.png", "history.json"):
        assert (out / name).exists(), name
    assert list((out / "checkpoints").glob("model_*.zip"))
    first = json.loads((out / "summary.json").read_text())
    assert first["timesteps"] >= 2000 and set(first["final_evaluation"]) == {"random", "greedy"}
    assert first["stopped_by"] == "timesteps" and first["budget_seconds"] is None
    assert (out / "best_model.zip").is_file() and first["best_model"]["timesteps"] <= first["timesteps"]
    # two rollouts of 32 x 32 steps, each timed apart from the evaluation inside it (--eval-every 1500)
    it = first["iterations"]
    assert it["count"] == 2 and it["mean_steps"] == 32 * 32, it
    assert 0 < it["sample_seconds"] and 0 < it["learn_seconds"]
    assert it["sample_seconds"] + it["learn_seconds"] <= first["train_seconds"]
    subprocess.run(run + ["--timesteps", "1000", "--resume"] + common, check=True, cwd=tmp_path)
    second = json.loads((out / "summary.json").read_text())
    assert second["timesteps"] >= first["timesteps"] + 1000
    assert second["iterations"]["count"] == 1  # this run's own iterations
    # the resumed run keeps choosing among all of the run's models, its first part's too
    assert second["best_model"]["score"] >= first["best_model"]["score"]
    assert len(json.loads((out / "history.json").read_text())) > 3
    agent = PolicyAgent(out / "model.zip")
    state = core.init(6, 2, seed=1)
    for _ in range(30):
        acts = agent.act(core.observe(state, state.current_player), state.legal_action_mask)
        live = ~(state.terminated | state.truncated)
        assert state.legal_action_mask[np.arange(6), acts][live].all()
        core.step(state, acts)


def test_train_help_explains_options() -> None:
    text = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--help"], check=True, capture_output=True, text=True
    ).stdout
    for option in (
        "--players",
        "--timesteps",
        "--num-envs",
        "--seed",
        "--opponents",
        "--snapshot-every",
        "--net-arch",
        "--learning-rate",
        "--out",
        "--resume",
        "--eval-every",
    ):
        assert option in text


# ---- the training package's pieces (issue 30): the config, its command line, self-play, the pool ----------


def test_train_config_is_checked_once_naming_the_option() -> None:
    from agents.training import OptionError, TrainConfig, check_config
    from aos_env.base.checks import ArgumentError

    checked = check_config(TrainConfig())
    assert (checked.num_envs, checked.batch_size, checked.checked) == (1024, 2048, True)
    assert check_config(checked) is checked  # a checked config is returned as it is
    assert check_config(TrainConfig(net_arch=[64], opponents="greedy@1 self@0.5")).net_arch == (64,)
    for bad, option, words in [
        ({"seed": -1}, "--seed", "must be an int 0..4294967295, got -1"),
        ({"players": 3, "max_turns": 2}, "--max-turns", "must be at least --players (3)"),
        ({"opponents": ["greedy@0", "random@0"]}, "--opponents", "at least one weight must be > 0"),
        ({"opponents": ["greedy", "greedy@2"]}, "--opponents", "'greedy' is given twice"),
        ({"num_env_runners": 2}, "--num-env-runners", "only with --backend rllib"),
        ({"learning_rate": 0}, "--learning-rate", "must be a finite number > 0"),
        ({"anchors": "random,greedy"}, "--anchors", "must be a list of agent specs"),
        ({"budget": "15"}, "--budget", "must be a positive duration such as 90s, 15m, 2h or 1h30m"),
        ({"budget": 0}, "--budget", "more than 0"),
        ({"budget": True}, "--budget", "a number of seconds"),
        ({"eval_games": 2_000_000}, "--eval-games", "1..1000000"),
    ]:
        with pytest.raises(OptionError) as e:
            check_config(TrainConfig(**bad))
        assert isinstance(e.value, ArgumentError) and e.value.option == option, (bad, e.value)
        assert str(e.value).startswith(option) and words in str(e.value), (bad, str(e.value))
        assert e.value.usage == f"argument {option}: " + str(e.value).removeprefix(option + " ")


def test_train_py_options_are_the_config_fields() -> None:
    import dataclasses

    from agents.training import TrainConfig, build_parser, config_from_args
    from agents.training.config import config_fields, option_name

    parser = build_parser()
    assert config_from_args(parser.parse_args([])) == TrainConfig()  # the same defaults
    from agents.training.kinds import Switch

    options = {o for a in parser._actions for o in a.option_strings} - {"-h", "--help"}
    older = {a for f in config_fields() for a in f.metadata.get("aliases", ())}
    assert older == {"--eval-baselines"}  # the older name of --anchors
    switches = {"--no-" + option_name(f.name)[2:] for f in config_fields() if isinstance(f.metadata["kind"], Switch)}
    assert switches == {"--no-league", "--no-shared-trunk"}
    assert options == {option_name(f.name) for f in config_fields()} | older | switches
    text = parser.format_help()
    assert "(default: None)" not in text and "(default: False)" not in text
    # --seed's, --exploit-steps', --exploiter-every's and --num-env-runners' own words
    assert text.count("(default: 0)") == 4
    for f in config_fields():  # each field's doc is its help (the agent specs filled in)
        first = f.metadata["doc"].split("{")[0].split()[:4]
        assert " ".join(first) in " ".join(text.split()), f.name
    assert not [
        f.name for f in dataclasses.fields(TrainConfig) if f.name not in TrainConfig.FIELDS and f.name != "checked"
    ]


def test_self_play_keeps_the_newest_snapshots_with_the_share_split() -> None:
    from agents.training.selfplay import SelfPlay

    play = SelfPlay(share=0.4, every=10, keep=2, start=5)
    assert not play.due(14) and play.due(15) and not play.due(16) and play.due(25)
    first = play.snapshot(15)
    assert (first.name, first.removed, first.weights) == ("self@15", (), {"self@15": 0.4})
    play.snapshot(25)
    third = play.snapshot(35)
    assert third.removed == ("self@15",) and third.weights == {"self@25": 0.2, "self@35": 0.2}
    assert not SelfPlay(share=0.0, every=10, keep=2, start=0).due(100)


def test_opponent_pool_specs_and_weights() -> None:
    from agents import RandomAgent
    from aos_env.base.checks import ArgumentError
    from aos_env.envs.opponents import OPPONENT_SEED_STEP, opponent_seed, parse_specs

    forms = (
        "greedy@0.5 random",
        ["greedy@0.5", "random"],
        [("greedy", 0.5), ("random", 1)],
        {"greedy": 0.5, "random": 1},
    )
    for form in forms:
        assert parse_specs(form) == [("greedy", 0.5), ("random", 1.0)], form
    pool = OpponentPool.from_specs(["self@0.4", "random@1"], seed=7, reserved=("self",))
    assert pool.names == ["random"]  # 'self' is the trainer's: it keeps its place in the seeds
    fresh = RandomAgent(seed=opponent_seed(7, 1))
    assert opponent_seed(7, 1) == 7 + OPPONENT_SEED_STEP
    mask = np.ones((50, core.NUM_ACTIONS), dtype=bool)
    obs = np.zeros((50, core.OBS_DIM), dtype=np.float32)
    np.testing.assert_array_equal(pool.agents()["random"].act(obs, mask), fresh.act(obs, mask))
    pool.add("greedy", RandomAgent(seed=1), 1.0)
    pool.set_weights({"random": 0.0, "greedy": 3.0})
    assert pool.weights() == {"random": 0.0, "greedy": 3.0}
    for bad in ({"greedy": 0.0}, {"nobody": 1.0, "random": 2.0}, {"random": -1.0}):
        with pytest.raises(ArgumentError):
            pool.set_weights(bad)
        assert pool.weights() == {"random": 0.0, "greedy": 3.0}, "nothing changes on a refused change"


def test_threads_default_to_the_usable_cores_and_an_explicit_count_is_kept(monkeypatch) -> None:
    from agents.training import TrainConfig, check_config
    from aos_env.base import threads
    from aos_env.base.checks import ArgumentError

    assert threads.usable_cores() >= 1
    monkeypatch.setattr("agents.training.config.usable_cores", lambda: 7)
    assert TrainConfig().threads is None and check_config(TrainConfig()).threads == 7
    assert check_config(TrainConfig(threads=1)).threads == 1
    with pytest.raises(ArgumentError, match="--threads"):
        check_config(TrainConfig(threads=0))
