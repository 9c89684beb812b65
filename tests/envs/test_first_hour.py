"""A new user's first hour (issue 22): pictures and videos from the Gymnasium envs, finite
observation bounds, one seed meaning one game in every env and mode, your own torch policy as a
bot file (and the CleanRL-style example), evaluation that cannot forget the masks, and the
documented limits of the other libraries."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from helpers import doc_code

import aos_env
from agents import GreedyAgent, act_on_state, make_agent
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.envs.gym import AgeOfSummonersEnv, AgeOfSummonersVectorEnv, IllegalActionWarning

ID = aos_env.GYM_ENV_ID
ROOT = Path(__file__).resolve().parents[2]


def legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row of (N, 44) masks."""
    return (rng.random(masks.shape) * masks).argmax(1)


def play_single(env, rng: np.random.Generator) -> dict:
    """Play one game of a single env with random legal actions; returns the last info."""
    obs, info = env.reset(seed=int(rng.integers(1000)))
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(legal_actions(info["action_mask"][None], rng)[0]))
        done = terminated or truncated
    return info


# ---- 2. pictures and videos --------------------------------------------------------------------


def test_the_single_env_draws_frames_and_text() -> None:
    assert {"rgb_array", "ansi", "human"} <= set(AgeOfSummonersEnv.metadata["render_modes"])
    assert AgeOfSummonersEnv.metadata["render_fps"] > 0
    env = gymnasium.make(ID, num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.std() > 0  # a picture, not a blank
    text = gymnasium.make(ID, render_mode="ansi")
    text.reset(seed=0)
    assert "Age of Summoners" in text.render()


def test_the_vector_env_renders_one_frame_per_game() -> None:
    assert {"rgb_array", "ansi"} <= set(AgeOfSummonersVectorEnv.metadata["render_modes"])
    envs = gymnasium.make_vec(ID, num_envs=3, render_mode="rgb_array")
    envs.reset(seed=0)
    frames = envs.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert all(f.dtype == np.uint8 and f.shape == frames[0].shape and f.shape[2] == 3 for f in frames)
    text = gymnasium.make_vec(ID, num_envs=2, render_mode="ansi")
    text.reset(seed=0)
    assert [isinstance(t, str) for t in text.render()] == [True, True]


def mp4s(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.mp4"))


@pytest.mark.one_backend
def test_record_video_writes_an_mp4_from_the_single_env(tmp_path) -> None:
    folder = tmp_path / "videos"
    env = gymnasium.wrappers.RecordVideo(
        gymnasium.make(ID, render_mode="rgb_array", max_turns=4),
        str(folder),
        episode_trigger=lambda episode: True,
        disable_logger=True,
    )
    play_single(env, np.random.default_rng(0))
    env.close()
    (video,) = mp4s(folder)
    assert video.stat().st_size > 1000


@pytest.mark.one_backend
def test_the_vector_record_video_writes_an_mp4_from_the_vector_env(tmp_path) -> None:
    envs = gymnasium.make_vec(ID, num_envs=2, render_mode="rgb_array", max_turns=4)
    folder = tmp_path / "videos"
    envs = gymnasium.wrappers.vector.RecordVideo(envs, str(folder), episode_trigger=lambda episode: True)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        envs.step(legal_actions(envs.unwrapped.action_masks(), rng))
    envs.close()
    videos = mp4s(folder)
    assert videos and all(v.stat().st_size > 1000 for v in videos)


# ---- 3. finite bounds --------------------------------------------------------------------------


def never_declare(state: core.State, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions, but NO at every end declaration: games then run to the turn limit,
    where VP, hands and turn counters grow the most."""
    mask = state.legal_action_mask.copy()
    declaring = state.phase == core.Phase.DECLARE
    mask[declaring, core.YES] = False
    return (rng.random(mask.shape) * mask).argmax(1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_stays_within_the_bounds(players: int) -> None:
    """Every seat's observation of every game, at every decision and at the end, within the bounds
    (both engines: the conftest runs this on each)."""
    rng = np.random.default_rng(players)
    for max_turns, policy in (
        (40, never_declare),
        (core.DEFAULT_MAX_TURNS, lambda s, r: legal_actions(s.legal_action_mask, r)),
    ):
        low, high = core.observation_bounds(None, max_turns)
        assert np.isfinite(high).all() and (high > 0).all()
        state = core.init(48, players, seed=100 * players + max_turns, max_turns=max_turns)
        peak = np.zeros(core.OBS_DIM, np.float32)
        for _ in range(5000):
            for p in range(players):
                obs = core.observe(state, np.full(state.batch_size, p))
                assert (obs >= low).all()
                peak = np.maximum(peak, obs.max(0))
            live = np.flatnonzero(~(state.terminated | state.truncated))
            if not live.size:
                break
            core.step(state, policy(state, rng)[live], games=live)
        assert not live.size, "the games should have ended"
        over = np.flatnonzero(peak > high)
        assert not over.size, [(int(i), float(peak[i]), float(high[i])) for i in over]
        if policy is never_declare:  # the games ran to the limit
            assert peak[core.obs_slices()["turn"]].max() >= 1.0


def test_the_spaces_use_the_bounds_of_their_turn_limit() -> None:
    for max_turns in (20, core.DEFAULT_MAX_TURNS):
        _, high = core.observation_bounds(None, max_turns)
        single = AgeOfSummonersEnv(max_turns=max_turns)
        vector = AgeOfSummonersVectorEnv(num_envs=2, max_turns=max_turns)
        aec = aos_env.raw_env(max_turns=max_turns)
        for box in (
            single.observation_space,
            vector.single_observation_space,
            aec.observation_space("player_0")["observation"],
        ):
            np.testing.assert_array_equal(box.high, high)
            assert np.isfinite(box.low).all() and box.dtype == np.float32
        assert np.isfinite(aec.state_space.high).all()
    vp = core.obs_slices()["seat0.vp"]
    assert core.observation_bounds(None, 400)[1][vp] > core.observation_bounds(None, 200)[1][vp]
    aec = aos_env.raw_env(max_turns=12)
    aec.reset(seed=0)
    assert aec.state_space.contains(aec.state())


@pytest.mark.one_backend
def test_gymnasium_check_env_has_no_warning_of_infinite_bounds() -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(AgeOfSummonersEnv(opponents="greedy"))
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "infinity" in m or "unbounded" in m.lower()], messages


@pytest.mark.one_backend
def test_rescale_and_dtype_wrappers_work() -> None:
    env = gymnasium.make(ID, opponents="greedy")
    rescaled = gymnasium.wrappers.RescaleObservation(
        gymnasium.make(ID, opponents="greedy"), np.float32(-1.0), np.float32(1.0)
    )
    obs, _ = env.reset(seed=3)
    scaled, _ = rescaled.reset(seed=3)
    assert scaled.shape == obs.shape and (-1 <= scaled).all() and (scaled <= 1).all()
    box = env.observation_space
    np.testing.assert_allclose((scaled + 1) / 2 * (box.high - box.low) + box.low, obs, rtol=1e-4, atol=1e-4)
    envs = gymnasium.wrappers.vector.RescaleObservation(
        gymnasium.make_vec(ID, num_envs=3), np.float32(-1.0), np.float32(1.0)
    )
    batch, _ = envs.reset(seed=0)
    assert batch.shape == (3, core.OBS_DIM) and (np.abs(batch) <= 1).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow in a cast would be a RuntimeWarning
        half = gymnasium.wrappers.DtypeObservation(gymnasium.make(ID), np.float16)
        assert np.isfinite(half.observation_space.high).all()
        obs16, _ = half.reset(seed=0)
        assert obs16.dtype == np.float16 and half.observation_space.contains(obs16)
        halves = gymnasium.wrappers.vector.DtypeObservation(gymnasium.make_vec(ID, num_envs=2), np.float16)
        batch16, _ = halves.reset(seed=0)
        assert batch16.dtype == np.float16 and halves.observation_space.contains(batch16)


def test_the_observation_docs_give_every_bound() -> None:
    text = (ROOT / "docs" / "observation.md").read_text(encoding="utf-8")
    assert "| at most |" in text and "inf" not in text.split("## Global part", 1)[1]
    _, high = core.observation_bounds()
    assert f"{float(high[core.obs_slices()['seat0.vp']][0]):g}" in text


# ---- 4. one seed, one game ---------------------------------------------------------------------

SEED, GAMES, PLAYERS = 11, 3, 3


def learner_start(seed: int, seat: int) -> core.State:
    """``core.init``'s game of ``seed`` with greedy playing every seat but ``seat`` until ``seat``
    must choose: what the single env shows its learner first."""
    state = core.init(1, PLAYERS, seed=seed)
    greedy = GreedyAgent()
    while int(state.current_player[0]) != seat:
        core.step(state, act_on_state(greedy, state))
    return state


@pytest.mark.one_backend
def test_one_seed_deals_the_same_games_in_every_env_and_mode() -> None:
    kwargs = dict(num_players=PLAYERS, opponents="greedy")
    singles = []
    for i in range(GAMES):
        env = gymnasium.make(ID, **kwargs)
        obs, _ = env.reset(seed=SEED + i)
        learner = env.unwrapped.learner
        assert learner.game_seed[0] == SEED + i
        np.testing.assert_array_equal(learner.state.records, learner_start(SEED + i, int(learner.seat[0])).records)
        aec = aos_env.env(num_players=PLAYERS)
        aec.reset(seed=SEED + i)
        np.testing.assert_array_equal(aec.unwrapped.engine_state.records, core.init(1, PLAYERS, seed=SEED + i).records)
        singles.append((obs, learner.state, int(learner.seat[0])))
    assert len({seat for _, _, seat in singles}) > 1 or GAMES == 1  # the seats come from the seeds, not one stream

    for mode in (None, "vector_entry_point", "sync", "async"):
        extra = {} if mode is None else {"vectorization_mode": mode}
        envs = gymnasium.make_vec(ID, num_envs=GAMES, **extra, **kwargs)
        try:
            obs, _ = envs.reset(seed=SEED)
            learners = envs.get_attr("learner") if mode in ("sync", "async") else [envs.unwrapped.learner] * GAMES
            for i, (first_obs, state, seat) in enumerate(singles):
                np.testing.assert_array_equal(obs[i], first_obs, err_msg=f"mode {mode}, game {i}")
                learner = learners[i]
                g = 0 if mode in ("sync", "async") else i
                assert int(learner.seat[g]) == seat and int(learner.game_seed[g]) == SEED + i
                np.testing.assert_array_equal(learner.state.hand[g], state.hand[0], err_msg=f"mode {mode}")
                np.testing.assert_array_equal(learner.state.take([g]).records, state.records)
        finally:
            envs.close()


def test_a_seeded_partial_reset_deals_the_seeds_in_order() -> None:
    envs = AgeOfSummonersVectorEnv(num_envs=4, opponents="greedy")
    envs.reset(seed=0)
    mask = np.array([False, True, False, True])
    envs.reset(seed=50, options={"reset_mask": mask})
    assert envs.learner.game_seed.tolist() == [0, 50, 2, 51]
    single = AgeOfSummonersEnv(opponents="greedy")
    single.reset(seed=51)
    np.testing.assert_array_equal(envs.learner.state.hand[3], single.learner.state.hand[0])


def test_a_seed_too_large_for_the_batch_is_refused_before_anything_changes() -> None:
    envs = AgeOfSummonersVectorEnv(num_envs=3)
    envs.reset(seed=0)
    before = envs.learner.state.records.copy()
    with pytest.raises(ArgumentError, match=r"^seed must be an int 0\.\.2\*\*63-3 "):
        envs.reset(seed=2**63 - 2)
    np.testing.assert_array_equal(envs.learner.state.records, before)
    AgeOfSummonersEnv().reset(seed=2**63 - 1)  # one game: the largest seed is one


# ---- 5. your own policy as a bot file ----------------------------------------------------------


def torch_mlp(*sizes: int, act=None):
    from torch import nn

    act = act or nn.Tanh
    layers = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        if i:
            layers.append(act())
        layers.append(nn.Linear(a, b))
    return nn.Sequential(*layers)


@pytest.mark.one_backend
@pytest.mark.parametrize("activation", ["Tanh", "ReLU"])
def test_torch_to_bot_writes_a_bot_that_plays_as_the_module(tmp_path, activation: str) -> None:
    import torch
    from torch import nn

    from agents.files.torch_bot import torch_to_bot
    from agents.players.bot import BotNet

    torch.manual_seed(0)
    act = getattr(nn, activation)
    policy = torch_mlp(core.OBS_DIM, 32, 16, core.NUM_ACTIONS, act=act)
    value = torch_mlp(core.OBS_DIM, 8, 1, act=act)
    path = torch_to_bot(policy, tmp_path / "mine.npz", num_players=3, value=value, info={"run": "test"})
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        assert sorted(data.files) == ["meta"] + sorted(
            f"{n}_{wb}{i}" for n, k in (("pi", 3), ("vf", 2)) for wb in "wb" for i in range(k)
        )
        assert data["pi_w0"].shape == (core.OBS_DIM, 32) and data["pi_w0"].dtype == np.float32
        assert data["pi_b2"].shape == (core.NUM_ACTIONS,)
    assert meta == {
        "format": "aos-bot",
        "format_version": 1,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_players": 3,
        "activation": activation.lower(),
        "info": {"run": "test"},
    }
    assert [p.name for p in tmp_path.iterdir()] == ["mine.npz"]  # no temporary file left
    net = BotNet(path)
    x = np.random.default_rng(0).random((6, core.OBS_DIM), dtype=np.float32)
    with torch.no_grad():
        np.testing.assert_allclose(net.policy(x), policy(torch.as_tensor(x)).numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(net.values(x), value(torch.as_tensor(x)).numpy()[:, 0], rtol=1e-5, atol=1e-5)
    bot = make_agent(str(path))
    state = core.init(16, 3, seed=0, max_turns=30)
    for _ in range(3000):  # whole games, every move legal
        live = np.flatnonzero(~(state.terminated | state.truncated))
        if not live.size:
            break
        actions = act_on_state(bot, state, games=live)
        assert state.legal_action_mask[live, actions].all()
        core.step(state, actions, games=live)
    assert not live.size


@pytest.mark.one_backend
def test_torch_to_bot_refuses_what_the_format_cannot_hold(tmp_path) -> None:
    from torch import nn

    from agents.files.torch_bot import torch_to_bot

    target = tmp_path / "bot.npz"
    target.write_bytes(b"the old file")
    good = torch_mlp(core.OBS_DIM, 8, core.NUM_ACTIONS)
    cases = [
        (nn.Linear(core.OBS_DIM, core.NUM_ACTIONS), {}, r"^module must be a torch nn.Sequential"),
        (
            nn.Sequential(nn.Linear(core.OBS_DIM, 8), nn.Dropout(), nn.Linear(8, 44)),
            {},
            r"^module\[1\] must be an activation \(Tanh or ReLU\), got Dropout",
        ),
        (nn.Sequential(nn.Linear(core.OBS_DIM, 44), nn.Softmax(-1)), {}, r"^module\[1\] must be .*Softmax"),
        (
            nn.Sequential(nn.Linear(core.OBS_DIM, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 44)),
            {},
            r"^module must use one kind of activation, got relu, tanh",
        ),
        (
            nn.Sequential(nn.Linear(core.OBS_DIM, 8), nn.Tanh(), nn.Tanh(), nn.Linear(8, 44)),
            {},
            r"^module\[2\] must be a Linear layer, got Tanh",
        ),
        (torch_mlp(core.OBS_DIM - 2, 8, 44), {}, r"^module must take the observation \(603 inputs"),
        (torch_mlp(core.OBS_DIM, 8, 43), {}, r"^module must give 44 outputs, got 43"),
        (good, {"value": torch_mlp(core.OBS_DIM, 4, 2)}, r"^value must give 1 output, got 2"),
        (good, {"value": torch_mlp(core.OBS_DIM, 4, 1, act=nn.ReLU)}, r"^value must use the policy's activation"),
        (good, {"num_players": 5}, r"^num_players must be an int 2\.\.4, got 5"),
        (good, {"info": {"f": object()}}, r"^info must hold JSON values only"),
        (good, {"info": ["x"]}, r"^info must be None or a dict"),
    ]
    for module, kwargs, pattern in cases:
        kwargs = {"num_players": 2, **kwargs}
        with pytest.raises(ArgumentError, match=pattern):
            torch_to_bot(module, target, **kwargs)
        assert target.read_bytes() == b"the old file"
    with pytest.raises(ArgumentError, match=r"^path must end in \.npz"):
        torch_to_bot(good, tmp_path / "bot.zip", num_players=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.npz"]


@pytest.mark.one_backend
def test_the_torch_to_bot_example_in_the_docs_runs(capsys) -> None:
    (code,) = doc_code("Your own policy: a CleanRL-style script and `torch_to_bot`")
    exec(compile(code, "docs/ecosystem.md#your-own-policy", "exec"), {})
    assert "my_bot.npz plays" in capsys.readouterr().out


def _example_module():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", ROOT / "examples" / "cleanrl_ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.one_backend
def test_the_cleanrl_example_trains_exports_and_enters_the_leaderboard(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "cleanrl_ppo.py"), "--quick", "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert "iteration 2/2" in done.stdout and "leaderboard updated" in done.stdout
    bot_file = tmp_path / "bot.npz"
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert board["tables"] and (tmp_path / "leaderboard.md").is_file()
    assert str(bot_file) in (tmp_path / "leaderboard.md").read_text()
    bot = make_agent(str(bot_file))
    state = core.init(8, 2, seed=5, max_turns=20)
    while not (state.terminated | state.truncated).all():
        live = np.flatnonzero(~(state.terminated | state.truncated))
        actions = act_on_state(bot, state, games=live)
        assert state.legal_action_mask[live, actions].all()
        core.step(state, actions, games=live)


@pytest.mark.one_backend
def test_the_cleanrl_example_reports_bad_arguments_as_usage_errors(capsys) -> None:
    example = _example_module()
    with pytest.raises(SystemExit) as stop:
        example.parse_args(["--num-envs", "1", "--num-steps", "2", "--num-minibatches", "3"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --num-minibatches: at most num-envs x num-steps = 2, got 3" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as stop:
        example.parse_args(["--players", "5"])
    assert stop.value.code == 2


# ---- 6. masks cannot be forgotten quietly ------------------------------------------------------


def test_the_first_illegal_action_warns_once() -> None:
    env = gymnasium.make(ID, opponents="greedy")
    for game in range(2):
        _, info = env.reset(seed=game)
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, reward, terminated, _, info = env.step(illegal)
        assert terminated and info["illegal_action"] and reward == -1.0
        ours = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
        if game == 0:
            (warning,) = ours
            text = str(warning.message)
            assert "illegal_action" in text and "action_masks()" in text and f"action {illegal}" in text
        else:
            assert not ours  # once per env
    legal = gymnasium.make(ID, opponents="greedy", max_turns=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        play_single(legal, np.random.default_rng(1))  # legal play: no warning


@pytest.mark.one_backend
def test_evaluate_policy_plays_only_legal_actions() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy as sb3_evaluate_policy

    from aos_env.integrations.sb3 import LearnerVecEnv, evaluate_policy

    strict = gymnasium.make(ID, opponents="random", max_turns=8, illegal_action="raise")  # an illegal action raises
    ppo = PPO("MlpPolicy", strict, n_steps=32, batch_size=32, seed=0, device="cpu")
    with pytest.raises(ArgumentError, match="action must be legal"):
        sb3_evaluate_policy(ppo, strict, n_eval_episodes=2, warn=False)  # SB3's own ignores the masks
    rewards, lengths = evaluate_policy(ppo, strict, n_eval_episodes=3, return_episode_rewards=True)
    assert len(rewards) == len(lengths) == 3 and all(n > 0 for n in lengths)
    venv = LearnerVecEnv(num_envs=4, opponents="random", max_turns=8, seed=0)  # illegal_action="raise" too
    maskable = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, seed=0, device="cpu")
    mean, std = evaluate_policy(maskable, venv, n_eval_episodes=4)
    assert np.isfinite(mean) and np.isfinite(std)
    evaluate_policy(maskable, strict, n_eval_episodes=2, deterministic=False)
    evaluate_policy(ppo, venv, n_eval_episodes=4)


@pytest.mark.one_backend
def test_evaluate_policy_refuses_bad_arguments() -> None:
    from aos_env.integrations.sb3 import evaluate_policy

    env = gymnasium.make(ID)
    for kwargs, pattern in (
        ({"model": object(), "env": env}, r"^model must be an SB3 model for this env"),
        ({"model": None, "env": env, "n_eval_episodes": 0}, r"^n_eval_episodes must be an int >= 1, got 0"),
        ({"model": None, "env": env, "deterministic": "yes"}, r"^deterministic must be"),
        ({"model": None, "env": object()}, r"^env must be"),
    ):
        if kwargs["model"] is None:
            from stable_baselines3 import PPO

            kwargs["model"] = PPO("MlpPolicy", env, n_steps=16, batch_size=16, device="cpu")
        with pytest.raises(ArgumentError, match=pattern):
            evaluate_policy(**kwargs)
    with pytest.raises(ArgumentError, match=r"SAME_STEP|SameStep|same step"):
        evaluate_policy(kwargs["model"], AgeOfSummonersVectorEnv(num_envs=2))  # NEXT_STEP: not SB3's convention


# ---- 7. what the docs say works elsewhere, and what does not ------------------------------------


@pytest.mark.one_backend
def test_pettingzoo_turn_based_aec_to_parallel_works() -> None:
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel_api_test(turn_based_aec_to_parallel(aos_env.env(num_players=3, max_turns=20)), num_cycles=100)
    par = turn_based_aec_to_parallel(aos_env.env(num_players=2))
    obs, _ = par.reset(seed=0)
    rng, returns = np.random.default_rng(0), {a: 0.0 for a in par.possible_agents}
    while par.agents:
        actions = {a: int(legal_actions(o["action_mask"][None], rng)[0]) for a, o in obs.items()}
        obs, rewards, *_ = par.step(actions)
        for a, r in rewards.items():
            returns[a] += r
    assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])  # a whole game: a winner, or truncated


@pytest.mark.one_backend
def test_openspiel_limits_are_as_the_docs_say() -> None:
    """OpenSpiel's evaluate_bots cannot take the Python IS-MCTS bot, on its own games too, and
    tree walks see one sampled deal. If this fails, OpenSpiel changed: update docs/ecosystem.md."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy
    from open_spiel.python.algorithms import evaluate_bots, exploitability, ismcts, mcts

    import aos_env.integrations.openspiel  # noqa: F401

    for game in (pyspiel.load_game("python_age_of_summoners", {"max_turns": 2}), pyspiel.load_game("kuhn_poker")):
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
        bots = [
            ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(0)),
            pyspiel.make_uniform_random_bot(1, 0),
        ]
        with pytest.raises(pyspiel.SpielError, match=r"RestartAt\(state\) not implemented"):
            evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    game = pyspiel.load_game("python_age_of_summoners", {"max_turns": 1})
    table = policy.TabularPolicy(game)
    assert 0 < len(table.state_lookup) < 1000  # one deal's states
    with pytest.raises(KeyError):
        exploitability.exploitability(game, table)  # it walks another deal


# ---- a missing extra names its pip install line (issue 32) ------------------------------------------


@pytest.mark.parametrize(
    "blocked, statement, extra",
    [
        ("stable_baselines3", "import aos_env.integrations.sb3", "train"),
        ("sb3_contrib", "from aos_env.integrations.sb3 import evaluate_policy; evaluate_policy(None, None)", "train"),
    ],
)
def test_a_missing_extra_names_its_pip_install_line(blocked: str, statement: str, extra: str) -> None:
    """With the extra's module unimportable (None in sys.modules, as when it is not installed), the
    error is a ModuleNotFoundError that names the module, the extra and its pip install line."""
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "try:\n"
        f"    {statement}\n"
        "except ModuleNotFoundError as e:\n"
        "    print(type(e).__name__, '|', e)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.startswith("MissingExtraError | "), out.stdout + out.stderr
    assert f"({blocked!r} is not installed)" in out.stdout and f'pip install "aos-env[{extra}]"' in out.stdout


def test_the_id_with_the_module_prefix_works_without_importing_aos_env() -> None:
    """CleanRL-style --env-id: "aos_env:aos_env/AgeOfSummoners-v1" imports the package itself."""
    code = (
        "import sys, gymnasium\n"
        "assert 'aos_env' not in sys.modules\n"
        "env = gymnasium.make('aos_env:aos_env/AgeOfSummoners-v1', max_turns=4)\n"
        "print(env.reset(seed=0)[0].shape)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == f"({core.OBS_DIM},)"
