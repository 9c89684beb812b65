"""Ray RLlib (issue 15): the masked PPO module, the export to the bot format, the env runners' env
and opponent pool (``aos_env.integrations.rllib``), the PPO config and trainer
(``agents.training.rllib_ppo``), and ``train.py --backend rllib`` end to end on a local Ray.

Needs the ``rllib`` extra (the ``dev`` extra includes it, so CI runs these)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")

import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.training import rllib_ppo  # noqa: E402
from aos_env import core  # noqa: E402
from aos_env.envs.gym import MASK_KEY, OBS_KEY, AgeOfSummonersVectorEnv, observation_space  # noqa: E402
from aos_env.integrations import rllib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)


def build_module(net_arch=(32, 16), inference_only: bool = False):
    from gymnasium import spaces

    torch.manual_seed(0)
    spec = rllib.module_spec(list(net_arch))
    spec.observation_space = observation_space(True)
    spec.action_space = spaces.Discrete(core.NUM_ACTIONS)
    spec.inference_only = inference_only
    return spec.build()


def positions(n: int = 24, players: int = 2, seed: int = 0):
    """Observations and masks of real positions: random play for a few steps."""
    state = core.init(n, players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(15):
        core.step(state, (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1))
    live = ~(state.terminated | state.truncated)
    return core.observe(state, state.current_player)[live], state.legal_action_mask[live]


def batch_of(obs: np.ndarray, mask: np.ndarray) -> dict:
    return {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(mask.astype(np.int8))}}


@pytest.mark.one_backend
def test_masked_module_gives_illegal_actions_no_probability() -> None:
    module = build_module()
    obs, mask = positions()
    assert (~mask).any(), "the positions have illegal actions"
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        batch = batch_of(obs, mask)
        out = forward(batch)
        assert isinstance(batch[Columns.OBS], dict) and MASK_KEY in batch[Columns.OBS], "the input stays as it was"
        logits = out[Columns.ACTION_DIST_INPUTS].detach().numpy()
        assert (logits[~mask] == FLOAT_MIN).all()
        assert (logits[mask] > FLOAT_MIN / 2).all()
    dist = module.get_exploration_action_dist_cls().from_logits(
        module.forward_exploration(batch_of(obs, mask))[Columns.ACTION_DIST_INPUTS]
    )
    samples = torch.stack([dist.sample() for _ in range(200)]).numpy()  # (200, n)
    assert mask[np.arange(mask.shape[0])[None, :], samples].all(), "a sampled action is illegal"
    values = module.compute_values(batch_of(obs, mask))
    assert values.shape == (obs.shape[0],)


def test_masked_module_needs_the_dict_observation() -> None:
    from gymnasium import spaces

    spec = rllib.module_spec([16])
    spec.observation_space = observation_space(False)
    spec.action_space = spaces.Discrete(core.NUM_ACTIONS)
    with pytest.raises(ValueError, match="mask_in_obs=True"):
        spec.build()


@pytest.mark.one_backend
def test_exported_bot_plays_as_the_module(tmp_path: Path) -> None:
    """The bot file holds exactly the module's policy (logits) and value networks."""
    module = build_module()
    obs, mask = positions(players=3)
    arrays = rllib.bot_arrays(module.state_dict())
    assert sorted(k for k in arrays if k.startswith("pi_w")) == ["pi_w0", "pi_w1", "pi_w2"]
    path = rllib.save_bot(arrays, tmp_path / "bot.npz", num_players=3, info={"test": True})
    bot = make_agent(str(path))
    with torch.no_grad():
        want = module.forward_inference(batch_of(obs, mask))[Columns.ACTION_DIST_INPUTS].numpy()
        want_v = module.compute_values(batch_of(obs, mask)).numpy()
    got = bot.logits(obs, mask)
    np.testing.assert_allclose(got[mask], want[mask], rtol=1e-4, atol=1e-5)
    assert np.isneginf(got[~mask]).all()
    np.testing.assert_allclose(bot.values(obs), want_v, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bot.act(obs, mask), np.where(mask, want, -np.inf).argmax(1))
    # an inference-only module (an env runner's) has no value network: the bot plays without one
    small = rllib.bot_arrays(build_module(inference_only=True).state_dict(), need_value=False)
    assert not any(k.startswith("vf_") for k in small)


def test_env_creator_gives_each_runner_a_vector_env_with_the_dict_observation() -> None:
    config = {
        "num_envs": 8,
        "num_players": 2,
        "opponents": {"greedy": 0.5, "random": 0.5},
        "seed": 3,
        "threads": 1,
        "shaping": 0.02,
        "illegal_action": "raise",
        "truncation_reward": "loss",
    }
    env = rllib.env_creator(config)
    assert (
        isinstance(env, AgeOfSummonersVectorEnv)
        and env.num_envs == 8
        and env.metadata["autoreset_mode"].name == "NEXT_STEP"
    )
    assert env.learner.illegal_action == "raise" and env.learner.truncation_reward == -1.0  # "loss" in a 2-player game
    obs, info = env.reset(seed=0)
    assert set(obs) == {OBS_KEY, MASK_KEY} and obs[OBS_KEY].shape == (8, core.OBS_DIM)
    single = rllib.env_creator({k: v for k, v in config.items() if k != "num_envs"})
    assert single.observation_space == observation_space(True)

    # a snapshot broadcast to a runner joins its pool as a sampling numpy bot, and plays
    runner = SimpleNamespace(env=env)
    data = rllib.bot_bytes(rllib.bot_arrays(build_module().state_dict()), num_players=2)
    names = rllib.update_opponents(runner, add=("self@0", data, 5.0, 1), weights={"greedy": 0.1})
    assert names == ["greedy", "random", "self@0"] and env.opponents.weights()["greedy"] == 0.1
    obs, _ = env.reset(seed=1)  # new deals draw from the pool as it is now
    drawn = {env.opponents.slot_name(int(s)) for s in env.learner.lineup.ravel() if s >= 0}
    assert "self@0" in drawn
    rng = np.random.default_rng(0)
    for _ in range(40):  # the bot opponent plays legal moves (the env checks every opponent action)
        m = obs[MASK_KEY]
        obs, *_ = env.step((rng.random(m.shape) * m).argmax(1))
    assert rllib.update_opponents(runner, remove=("self@0",)) == ["greedy", "random"]
    assert rllib.update_opponents(SimpleNamespace(env=None)) is None


@pytest.mark.one_backend
def test_train_rllib_end_to_end_and_the_bot_plays_without_ray(tmp_path: Path) -> None:
    """Two iterations on a local Ray with one env runner (the env raises on an illegal action),
    a self-play snapshot broadcast; two more in a league (--resume --league); then the saved bot
    plays legal moves in a process without Ray."""
    common = [
        "--backend",
        "rllib",
        "--out",
        str(tmp_path),
        "--name",
        "r",
        "--num-env-runners",
        "1",
        "--num-envs",
        "32",
        "--n-steps",
        "32",
        "--batch-size",
        "256",
        "--n-epochs",
        "1",
        "--net-arch",
        "32,32",
        "--eval-every",
        "1024",
        "--eval-games",
        "10",
        "--final-eval-games",
        "20",
        "--snapshot-every",
        "1000",
        "--no-progress",
    ]
    subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--timesteps", "2048"] + common, check=True, cwd=tmp_path, timeout=600
    )
    out = tmp_path / "r"
    for name in ("bot.npz", "summary.json", "learning_curve.png", "history.json", "rllib/rllib_checkpoint.json"):
        assert (out / name).exists(), name
    assert list((out / "checkpoints").glob("bot_*.npz")) and list((out / "tb").glob("rllib_1/events.*"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"] == "rllib" and summary["timesteps"] >= 2048
    assert set(summary["final_evaluation"]) == {"random", "greedy"}
    assert summary["final_evaluation"]["random"]["games"] == 20
    assert summary["stopped_by"] == "timesteps" and (out / "best_bot.npz").is_file()
    assert summary["best_model"]["path"] == str(out / "best_bot.npz")
    assert summary["best_model"]["final_evaluation"]["random"]["games"] == 20
    assert summary["rllib"]["num_env_runners"] == 1 and summary["rllib"]["envs_per_runner"] == 32
    it = summary["iterations"]  # RLlib counts no step for a game's restart, so an iteration has a few more
    assert it["count"] == 2 and 32 * 32 <= it["mean_steps"] < 1.2 * 32 * 32, it
    assert 0 < it["sample_seconds"] and 0 < it["learn_seconds"]
    assert it["sample_seconds"] + it["learn_seconds"] <= summary["train_seconds"]
    # resumed in a league: the runners' games count for their opponents, a snapshot is a bot file
    # sent to the runners, and an exploiter is trained against the learner
    league_args = [
        "--timesteps",
        "2048",
        "--resume",
        "--league",
        "--exploiter-every",
        "1024",
        "--exploiter-steps",
        "64",
    ]
    subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *league_args, *common], check=True, cwd=tmp_path, timeout=600
    )
    section = json.loads((out / "summary.json").read_text())["league"]
    members = {m["name"]: m for m in section["members"]}
    assert {"greedy", "random"} <= set(members) and sum(members[n]["games"] for n in ("greedy", "random")) > 0
    files = [m["file"] for m in json.loads((out / "league.json").read_text())["members"] if m["kind"] == "snapshot"]
    assert files and all(f.endswith(".npz") and (out / f).is_file() for f in files)
    assert section["exploiters"] and (out / "league.json").is_file() and (out / "league.png").is_file()
    code = f"""
import sys
import numpy as np
from agents import make_agent
from aos_env import core
bot = make_agent({str(out / "bot.npz")!r})
state = core.init(6, 2, seed=1)
for _ in range(60):
    acts = bot.act(core.observe(state, state.current_player), state.legal_action_mask)
    live = ~(state.terminated | state.truncated)
    assert state.legal_action_mask[np.arange(6), acts][live].all()
    core.step(state, acts)
assert not [m for m in ("ray", "torch") if m in sys.modules], "the bot needs neither Ray nor torch"
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)  # the checkout, importable as when installed
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agents.evaluation.evaluate",
            "--games",
            "20",
            "--json",
            str(tmp_path / "t.json"),
            "--no-progress",
            str(out / "bot.npz"),
            "random",
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "bot.npz" in result.stdout


@pytest.mark.one_backend
def test_the_phase_timers_report_each_iteration() -> None:
    """RLlib's sampling and update timers are exponential averages (coefficient 0.01: mostly the first
    iteration); RLlibTrainer makes them report each iteration's own seconds."""
    from ray.rllib.utils.metrics import ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER, TIMERS
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    metrics = MetricsLogger(root=True)
    rllib_ppo._per_iteration_timers(metrics)
    for name in (ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER):
        metrics.log_value((TIMERS, name), 3.0)
        assert metrics.reduce(compile=True)[TIMERS][name] == 3.0
        metrics.log_value((TIMERS, name), 5.0)
        assert metrics.reduce(compile=True)[TIMERS][name] == 5.0  # the EMA: 3.02
        with metrics.log_time((TIMERS, name)):  # what RLlib's training_step does: into the same stat
            pass
        assert 0 <= metrics.reduce(compile=True)[TIMERS][name] < 4.9  # the EMA: about 4.95


def test_ppo_config_follows_the_options() -> None:
    config = rllib_ppo.ppo_config(
        num_players=2,
        opponents={"greedy": 1.0},
        num_env_runners=2,
        envs_per_runner=64,
        n_steps=16,
        batch_size=512,
        n_epochs=3,
        learning_rate=1e-4,
        gamma=0.99,
        gae_lambda=0.9,
        clip_range=0.1,
        ent_coef=0.02,
        vf_coef=0.25,
        max_grad_norm=1.0,
        net_arch=[64, 32],
        seed=7,
    )
    assert config.env == rllib.ENV_NAME and config.env_config["illegal_action"] == "raise"
    assert config.num_env_runners == 2 and config.num_envs_per_env_runner == 64
    assert config.gym_env_vectorize_mode == "vector_entry_point"
    assert config.train_batch_size_per_learner == 16 * 64 * 2 and config.minibatch_size == 512
    assert (config.num_epochs, config.lr, config.gamma, config.lambda_, config.clip_param) == (3, 1e-4, 0.99, 0.9, 0.1)
    assert (config.entropy_coeff, config.vf_loss_coeff, config.grad_clip, config.use_kl_loss) == (
        0.02,
        0.25,
        1.0,
        False,
    )
    assert config.rl_module_spec.model_config["fcnet_hiddens"] == [64, 32]


# ---- train.py's options --------------------------------------------------------------------------------

RLLIB_CASES = [
    (["--num-env-runners", "1"], "--num-env-runners: only with --backend rllib"),
    (["--envs-per-runner", "8"], "--envs-per-runner: only with --backend rllib"),
    (["--address", "auto"], "--address: only with --backend rllib"),
    (["--backend", "rllib", "--num-env-runners", "-1"], "--num-env-runners"),
    (["--backend", "rllib", "--envs-per-runner", "0"], "--envs-per-runner"),
    (["--backend", "rllib", "--envs-per-runner", "8", "--num-envs", "8"], "not both"),
    (["--backend", "rllib", "--address", " "], "--address"),
    (["--backend", "rllib", "--address", "no-port"], "must be host:port"),
    (["--backend", "rllib", "--resume"], "no RLlib checkpoint"),
    (["--backend", "rllib", "--device", "cuda:1"], "--device"),
    (["--backend", "rllib", "--num-envs", "4", "--n-steps", "4", "--batch-size", "32"], "--batch-size"),
    (["--backend", "tf"], "--backend"),
]


@pytest.mark.parametrize("argv,message", RLLIB_CASES)
def test_train_rllib_arguments(capsys, tmp_path: Path, argv, message) -> None:
    parser = train.build_parser()
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as e:
        train.check_args(parser, parser.parse_args(["--out", str(out)] + argv))
    err = capsys.readouterr().err
    assert e.value.code == 2 and "usage:" in err and message in err, err
    assert not out.exists()


def test_train_rllib_games_per_runner(tmp_path: Path) -> None:
    parser = train.build_parser()
    args = parser.parse_args(["--out", str(tmp_path), "--backend", "rllib", "--num-env-runners", "3"])
    c = train.check_args(parser, args).config
    assert (c.envs_per_runner, c.num_envs) == (342, 1026)  # 1024 games split, rounded up
    args = parser.parse_args(
        ["--out", str(tmp_path), "--backend", "rllib", "--envs-per-runner", "100", "--batch-size", "256"]
    )
    c = train.check_args(parser, args).config
    assert (c.envs_per_runner, c.num_envs, c.num_env_runners) == (100, 100, 0)


def test_train_rllib_needs_ray(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    parser = train.build_parser()
    with pytest.raises(SystemExit):
        train.check_args(parser, parser.parse_args(["--out", str(tmp_path / "runs"), "--backend", "rllib"]))
    assert 'pip install -e ".[rllib]"' in capsys.readouterr().err


@pytest.mark.one_backend
def test_train_rllib_bad_address_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "train.py"),
            "--backend",
            "rllib",
            "--address",
            "127.0.0.1:9",
            "--out",
            str(tmp_path / "runs"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2 and "argument --address: cannot join a Ray cluster" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "runs").exists()


@pytest.mark.one_backend
def test_the_rllib_example_in_the_docs_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    import ray
    from helpers import doc_code

    code = [c for c in doc_code("Ray RLlib") if "RLlibTrainer" in c]
    assert len(code) == 1
    monkeypatch.chdir(tmp_path)
    threads = torch.get_num_threads()
    try:
        exec(compile(code[0], "docs/ecosystem.md#ray-rllib", "exec"), {})
    finally:
        torch.set_num_threads(threads)
        if ray.is_initialized():
            ray.shutdown()
    assert "env_steps" in capsys.readouterr().out
    assert make_agent(str(tmp_path / "bot.npz")).act(*positions(4)).shape == (positions(4)[0].shape[0],)
