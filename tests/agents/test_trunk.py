"""train.py --shared-trunk: one network that the policy and value heads both read (agents/files/trunk.py),
saved, read without unpickling, exported as a bot file and warm-started from one, exactly."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import PolicyAgent, make_agent

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = (32, 16)


def _positions():
    from helpers import random_positions

    return random_positions(players=2, games=48, steps=25, seed=4)


def _model(shared: bool, seed: int = 0):
    from sb3_contrib import MaskablePPO

    from agents.training import TrainConfig, check_config
    from agents.training.ppo import policy_kwargs
    from aos_env.integrations.sb3 import LearnerVecEnv

    config = check_config(TrainConfig(net_arch=HIDDEN, shared_trunk=shared))
    env = LearnerVecEnv(num_envs=8, num_players=2, opponents="random", seed=seed)
    return MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, policy_kwargs=policy_kwargs(config), seed=seed, device="cpu"
    )


@pytest.fixture(scope="module")
def shared_model():
    model = _model(shared=True)
    model.learn(256)
    return model


def _values(policy, obs: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        return policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]


def test_a_shared_trunk_has_one_network_of_net_arch_under_both_heads(shared_model) -> None:
    from agents.files.model_file import parameter_count
    from agents.files.trunk import Trunk, trunk_of

    policy = shared_model.policy
    assert isinstance(policy.features_extractor, Trunk) and policy.share_features_extractor
    assert policy.pi_features_extractor is policy.vf_features_extractor is policy.features_extractor
    assert [lin.out_features for lin in trunk_of(policy)] == list(HIDDEN)
    own = sum(p.numel() for p in policy.parameters())  # named once each, though registered three times
    assert own == parameter_count({"pi": [], "vf": []}, list(HIDDEN))
    two = parameter_count({"pi": list(HIDDEN), "vf": list(HIDDEN)})
    assert own < two  # one trunk instead of two networks
    assert trunk_of(_model(shared=False).policy) == []


@pytest.mark.one_backend
def test_a_shared_trunk_model_is_saved_read_without_unpickling_and_exported_exactly(shared_model, tmp_path) -> None:
    from agents.files.model_file import TRUNK_FORMAT_VERSION, load_policy, read_meta, save_model

    path = save_model(shared_model, tmp_path / "model.zip", num_players=2)
    meta = read_meta(path)
    assert meta["format_version"] == TRUNK_FORMAT_VERSION and meta["trunk"] == list(HIDDEN)
    assert meta["net_arch"] == {"pi": [], "vf": []}
    loaded = PolicyAgent(path, deterministic=True)  # load_policy: weights only
    live = PolicyAgent.snapshot(shared_model, deterministic=True)
    bot = make_agent(str(_export(shared_model, tmp_path)))
    policy = load_policy(path)
    for obs, mask in _positions():
        np.testing.assert_allclose(loaded.logits(obs), live.logits(obs), atol=1e-6)
        rows = mask.any(1)
        np.testing.assert_array_equal(bot.act(obs, mask)[rows], live.act(obs, mask)[rows])
        np.testing.assert_allclose(bot.values(obs), _values(policy, obs), atol=1e-5)


def _export(model, tmp_path: Path) -> Path:
    from agents.files.export import export

    return export(model, tmp_path / "bot.npz", num_players=2)


@pytest.mark.one_backend
@pytest.mark.parametrize("shared", [True, False], ids=["into-a-trunk", "into-two-networks"])
def test_warm_start_from_a_shared_trunk_bot_plays_and_values_exactly_as_it(shared_model, tmp_path, shared) -> None:
    """The bot file holds the trunk in both of its networks: a model with a trunk or with two networks
    started from it computes what the bot computes (the league's exploiters start so)."""
    from agents.files.export import warm_start

    bot_path = _export(shared_model, tmp_path)
    fresh = _model(shared=shared, seed=5)
    warm_start(fresh.policy, bot_path)
    bot = make_agent(str(bot_path))
    started = PolicyAgent.snapshot(fresh, deterministic=True)
    for obs, mask in _positions():
        rows = mask.any(1)
        np.testing.assert_array_equal(started.act(obs, mask)[rows], bot.act(obs, mask)[rows])
        np.testing.assert_allclose(_values(fresh.policy, obs), bot.values(obs), atol=1e-5)


def test_a_model_files_trunk_must_match_its_format_version(shared_model, tmp_path) -> None:
    from agents.files.model_file import MEMBER, read_meta, save_model

    path = save_model(shared_model, tmp_path / "model.zip", num_players=2)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    meta = json.loads(members[MEMBER])
    for change, words in [
        ({"format_version": 1}, "format_version 1 must not have a trunk"),
        ({"trunk": []}, "format_version 2 must have a trunk"),
        ({"trunk": [0]}, r"has trunk \[0\], expected a list"),
        ({"trunk": [64, 16]}, "do not fit|has shape"),
    ]:
        bad = tmp_path / f"bad{len(list(tmp_path.iterdir()))}.zip"
        with zipfile.ZipFile(bad, "w") as z:
            for name, data in members.items():
                z.writestr(name, json.dumps({**meta, **change}) if name == MEMBER else data)
        with pytest.raises(ValueError, match=words):
            read_meta(bad)
    without = {k: v for k, v in meta.items() if k != "trunk"}
    bad = tmp_path / "no_trunk.zip"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in members.items():
            z.writestr(name, json.dumps(without) if name == MEMBER else data)
    with pytest.raises(ValueError, match="format_version 2 must have a trunk"):
        read_meta(bad)


def test_shared_trunk_is_an_sb3_option() -> None:
    from agents.training import OptionError, TrainConfig, check_config
    from agents.training.cli import build_parser, config_from_args

    parser = build_parser()
    assert config_from_args(parser.parse_args(["--shared-trunk"])).shared_trunk is True
    assert config_from_args(parser.parse_args(["--shared-trunk", "--no-shared-trunk"])).shared_trunk is False
    # the default: on with sb3, off with rllib (whose bot files hold two networks)
    assert TrainConfig().shared_trunk is None and check_config(TrainConfig()).shared_trunk is True
    assert check_config(TrainConfig(backend="rllib")).shared_trunk is False
    assert check_config(TrainConfig(shared_trunk=False)).shared_trunk is False
    with pytest.raises(OptionError, match="--shared-trunk is for --backend sb3, got --backend rllib"):
        check_config(TrainConfig(backend="rllib", shared_trunk=True))
    with pytest.raises(OptionError, match="--shared-trunk must be True, False or None"):
        check_config(TrainConfig(shared_trunk="yes"))
    # the exploiters of python -m agents.training.exploit keep two networks, as their earlier figures had
    from agents.training.exploiter import exploit_config

    run = exploit_config("greedy", players=2, timesteps=1000, seed=0, games=10, out=Path("x"), name="e")
    assert check_config(run).shared_trunk is False


def test_train_py_with_a_shared_trunk_end_to_end(tmp_path: Path) -> None:
    """A tiny run with --shared-trunk saves a trunk model and resumes it, with its own network whatever
    --net-arch and --shared-trunk say then (as SB3's loader does; the summary records the network)."""
    common = "--name t --shared-trunk --net-arch 32,16 --num-envs 32 --n-steps 16 --batch-size 256".split()
    common += "--eval-every 600 --eval-games 6 --final-eval-games 6 --snapshot-every 400 --no-progress".split()
    run = [sys.executable, str(ROOT / "train.py"), "--out", str(tmp_path), *common]
    subprocess.run([*run, "--timesteps", "1000"], check=True, cwd=tmp_path)
    subprocess.run([*run, "--timesteps", "500", "--resume"], check=True, cwd=tmp_path)
    # resumed with other network options, the run goes on with its own network, and says so
    again = [*run, "--no-shared-trunk", "--net-arch", "64", "--timesteps", "500", "--resume"]
    other = subprocess.run(again, capture_output=True, text=True, cwd=tmp_path)
    assert other.returncode == 0, other.stderr
    assert "note: the run continues with its own network, a shared trunk of 32,16" in other.stdout
    from agents.files.model_file import read_meta

    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["args"]["shared_trunk"] is True and summary["args"]["net_arch"] == [32, 16]
    assert summary["timesteps"] >= 2000
    for name in ("model.zip", "best_model.zip"):
        assert read_meta(tmp_path / "t" / name)["trunk"] == [32, 16]
