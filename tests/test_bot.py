"""BotAgent: trained policies on numpy alone (agents/bot.py), and the policy-guided search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import BotAgent, MonteCarloAgent, PolicyAgent, make_agent
from agents.bot import SHIPPED
from agents.export import export
from aos_env import core


@pytest.fixture(scope="module")
def tiny_model():
    """A small MaskablePPO model (a few hundred steps: the test is about the weights, not the play)."""
    from sb3_contrib import MaskablePPO

    from aos_env.sb3 import LearnerVecEnv

    env = LearnerVecEnv(num_envs=8, num_players=3, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, policy_kwargs={"net_arch": [32, 32]}, seed=0,
                        device="cpu")
    model.learn(128)
    return model


def _positions(players: int = 3, games: int = 64, steps: int = 30):
    state = core.init(games, players, seed=9)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        yield core.observe(state, state.current_player), state.legal_action_mask.copy()
        m = state.legal_action_mask
        core.step(state, (rng.random(m.shape) * m).argmax(1))


@pytest.mark.one_backend
def test_exported_bot_plays_and_values_exactly_like_the_torch_policy(tiny_model, tmp_path: Path) -> None:
    import torch

    path = export(tiny_model, tmp_path / "bot.npz", num_players=3, info={"cmd": "test"})
    bot = make_agent(str(path))
    assert isinstance(bot, BotAgent) and bot.nets[3].meta["info"] == {"cmd": "test"}
    policy = PolicyAgent.snapshot(tiny_model, deterministic=True)
    for obs, mask in _positions():
        live = mask.any(1)
        np.testing.assert_array_equal(bot.act(obs, mask)[live], policy.act(obs, mask)[live])
        with torch.no_grad():
            v = tiny_model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
        np.testing.assert_allclose(bot.values(obs), v, atol=1e-5)
        assert (mask[np.arange(mask.shape[0]), bot.act(obs, mask)] | ~live).all(), "only legal actions"


@pytest.mark.one_backend
def test_sampling_bot_plays_legal_moves(tiny_model, tmp_path: Path) -> None:
    bot = BotAgent(export(tiny_model, tmp_path / "bot.npz", num_players=3), deterministic=False, seed=1)
    for obs, mask in _positions(steps=10):
        a = bot.act(obs, mask)
        live = mask.any(1)
        assert mask[np.flatnonzero(live), a[live]].all()


def test_bot_files_that_do_not_fit_are_refused(tiny_model, tmp_path: Path) -> None:
    path = export(tiny_model, tmp_path / "bot.npz", num_players=3)
    data = dict(np.load(path))
    meta = json.loads(str(data["meta"]))
    meta["obs_version"] = 1
    old = tmp_path / "old.npz"
    np.savez(old, **{**data, "meta": np.array(json.dumps(meta))})
    with pytest.raises(ValueError, match="version 1"):
        BotAgent(old)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a bot file"):
        BotAgent(junk)
    with pytest.raises(FileNotFoundError):
        make_agent(str(tmp_path / "missing.npz"))
    bot = BotAgent(path)
    obs = next(_positions(players=2))[0]
    with pytest.raises(ValueError, match="3-player"):
        bot.act(obs, np.ones((obs.shape[0], core.NUM_ACTIONS), bool))


@pytest.mark.one_backend
def test_the_shipped_bot_files_are_in_the_package() -> None:
    """agents/data/bot_{2,3,4}p.npz ship with the package, one per table size, for this observation."""
    for p, f in SHIPPED.items():
        meta = json.loads(str(np.load(f)["meta"]))
        assert (meta["num_players"], meta["obs_version"], meta["obs_dim"]) == (p, core.OBS_VERSION, core.OBS_DIM)
        assert meta["info"]["args"]["players"] == p, "each file was trained at its own table size"
        assert f.stat().st_size < 4_000_000, "small enough to ship"


@pytest.mark.one_backend
def test_the_shipped_bot_beats_greedy_in_the_tournament() -> None:
    """A sanity check of the shipped weights (the measured rate is over 90%; below 75% in 100 games
    would be a broken file, not bad luck: that has a chance under 1e-6 at 90%)."""
    from agents.tournament import play_games, summarise

    table = summarise(play_games([make_agent("bot"), make_agent("greedy", seed=1)], 2, 100, seed=123,
                                 names=["bot", "greedy"]))
    assert table["agents"]["bot"]["win_rate"] >= 0.75, table["agents"]["bot"]


def test_search_is_mc_guided_by_the_shipped_bot() -> None:
    """make_agent('search'): MonteCarloAgent with the bot's rollouts and values; options override."""
    from agents.registry import SEARCH_DEFAULTS

    search = make_agent("search:rollouts=2,max_rollout_turns=1", seed=3)
    assert isinstance(search, MonteCarloAgent) and isinstance(search.rollout_policy, BotAgent)
    assert search.leaf_value is search.rollout_policy and (search.rollouts, search.max_rollout_turns) == (2, 1)
    assert make_agent("search").rollouts == SEARCH_DEFAULTS["rollouts"]
    state = core.init(3, 2, seed=4)
    for _ in range(5):
        a = search.act(core.observe(state, state.current_player), state.legal_action_mask, state=state)
        assert state.legal_action_mask[np.arange(3), a].all()
        core.step(state, a)


def test_the_shipped_bot_plays_every_table_size_without_torch(tmp_path: Path) -> None:
    """make_agent('bot') needs only numpy: run it in a process where importing torch fails."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['torch'] = None\n"
            "import numpy as np\nfrom agents import make_agent\nfrom aos_env import core\n"
            "bot = make_agent('bot')\n"
            "for P in (2, 3, 4):\n"
            "    s = core.init(16, P, seed=P)\n"
            "    for _ in range(200):\n"
            "        a = bot.act(core.observe(s, s.current_player), s.legal_action_mask)\n"
            "        core.step(s, a)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_mc_with_policy_rollouts_and_values_plays_legal_moves(tiny_model, tmp_path: Path) -> None:
    bot = BotAgent(export(tiny_model, tmp_path / "bot.npz", num_players=3))
    mc = MonteCarloAgent(rollouts=4, rollout_policy=bot, leaf_value=bot, max_rollout_turns=2, seed=0)
    state = core.init(4, 3, seed=2)
    for _ in range(6):
        games = np.flatnonzero(state.legal_action_mask.any(1))
        from agents import act_on_state

        a = np.zeros(4, dtype=np.int64)
        a[games] = act_on_state(mc, state, games)
        assert state.legal_action_mask[games, a[games]].all()
        core.step(state, a)
    with pytest.raises(ValueError, match="leaf_value"):
        MonteCarloAgent(leaf_value="oracle")


def test_search_with_a_prior_prunes_to_the_policy_and_a_large_weight_follows_it() -> None:
    """prior_weight: only actions with at least PRIOR_PRUNE of the favourite's probability are
    searched, and a very large weight makes the search play the policy's own choice."""
    from agents.mc import PRIOR_PRUNE

    bot = make_agent("bot")
    follow = make_agent("search:rollouts=2,max_rollout_turns=1,prior_weight=1e6", seed=1)
    state = core.init(8, 2, seed=5)
    for _ in range(12):
        obs, mask = core.observe(state, state.current_player), state.legal_action_mask
        a = follow.act(obs, mask, state=state)
        live = mask.any(1)
        assert (a[live] == bot.act(obs, mask)[live]).all()
        logp = bot.log_probs(obs[live], mask[live])
        kept = logp >= logp.max(1, keepdims=True) + np.log(PRIOR_PRUNE)
        assert kept[np.arange(live.sum()), a[live]].all()
        core.step(state, a)
    for bad in (-1, float("nan"), "x", True):
        with pytest.raises(ValueError, match="prior_weight"):
            MonteCarloAgent(prior_weight=bad)
