"""BotAgent: trained policies on numpy alone (agents/players/bot.py), and the policy-guided search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import BotAgent, MonteCarloAgent, PolicyAgent, make_agent
from agents.files.export import export
from agents.players.bot import SHIPPED
from aos_env import core


@pytest.fixture(scope="module")
def tiny_model():
    """A small MaskablePPO model (a few hundred steps: the test is about the weights, not the play)."""
    from sb3_contrib import MaskablePPO

    from aos_env.integrations.sb3 import LearnerVecEnv

    env = LearnerVecEnv(num_envs=8, num_players=3, opponents="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, policy_kwargs={"net_arch": [32, 32]}, seed=0, device="cpu"
    )
    model.learn(128)
    return model


def _positions(players: int = 3, games: int = 64, steps: int = 30):
    from helpers import random_positions

    return random_positions(players, games, steps, seed=9)


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
    """agents/data/bot_{2,3,4}p.npz ship with the package, one per table size, for this observation;
    each file's info says how it was made (its run's options, or the file it was written from)."""
    for p, f in SHIPPED.items():
        meta = json.loads(str(np.load(f)["meta"]))
        assert (meta["num_players"], meta["obs_version"], meta["obs_dim"]) == (p, core.OBS_VERSION, core.OBS_DIM)
        info = meta["info"]
        if "retargeted_from" in info:  # a network trained at another size, written again for this one
            source = info["retargeted_from"]
            assert source["num_players"] != p and source["info"]["args"]["players"] == source["num_players"]
        else:
            assert info["args"]["players"] == p, "trained at its own table size (the last stage of it)"
        assert f.stat().st_size < 4_000_000, "small enough to ship"


@pytest.mark.one_backend
def test_the_shipped_bot_beats_greedy_in_the_tournament() -> None:
    """A sanity check of the shipped weights (the measured rate is over 90%; below 75% in 100 games
    would be a broken file, not bad luck: that has a chance under 1e-6 at 90%)."""
    from agents.evaluation.matches import play_games, summarise

    table = summarise(
        play_games([make_agent("bot"), make_agent("greedy", seed=1)], 2, 100, seed=123, names=["bot", "greedy"])
    )
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

    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np\nfrom agents import make_agent\nfrom aos_env import core\n"
        "bot = make_agent('bot')\n"
        "for P in (2, 3, 4):\n"
        "    s = core.init(16, P, seed=P)\n"
        "    for _ in range(200):\n"
        "        a = bot.act(core.observe(s, s.current_player), s.legal_action_mask)\n"
        "        core.step(s, a)\n"
        "print('ok')\n"
    )
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
    from agents.players.mc import PRIOR_PRUNE

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


# ---- bots of an older observation version (the adapter) -----------------------------------------

from agents.players.bot import OLD_VERSION_ANSWERS, SHIPPED_V2  # noqa: E402
from aos_env.core.obs_layout import G, obs_dim_of_version, to_version  # noqa: E402
from aos_env.core.phases import OBS_PHASES, Phase  # noqa: E402


def _phase_rows(obs: np.ndarray, phase: Phase) -> np.ndarray:
    return obs[:, G["phase"].start + OBS_PHASES.index(phase)] > 0.5


def test_to_version_2_drops_the_new_decisions_and_shows_a_homunculus_flip_as_research() -> None:
    obs = np.concatenate([o for o, _ in _positions(players=2, games=64, steps=40)])
    old = to_version(obs, 2)
    assert old.shape == (obs.shape[0], obs_dim_of_version(2)) == (obs.shape[0], 601)
    start, n2 = G["phase"].start, 23  # version 2's phase one-hot: COMMAND .. GAME_OVER
    np.testing.assert_array_equal(old[:, :start], obs[:, :start])
    np.testing.assert_array_equal(old[:, start + n2 :], obs[:, G["phase"].stop :])
    research = OBS_PHASES.index(Phase.RESEARCH_FLIP)
    want = obs[:, start : start + n2].copy()
    want[:, research] += obs[:, start + OBS_PHASES.index(Phase.HOMUNCULUS_FLIP)]
    np.testing.assert_array_equal(old[:, start : start + n2], want)
    assert (old[:, start : start + n2].sum(1) <= 1).all(), "still a one-hot (zero at Nightmare's question)"
    np.testing.assert_array_equal(to_version(obs, core.OBS_VERSION), obs)
    with pytest.raises(ValueError, match="version must be one of"):
        to_version(obs, 1)


def _play_v2_bot(players: int, games: int, steps: int, seed: int):
    """bot-v2 in every seat of ``games`` games: yields (obs, mask, actions) of each step."""
    bot = make_agent("bot-v2", seed=seed)
    state = core.init(games, players, seed=seed, max_turns=200)
    for _ in range(steps):
        obs, mask = core.observe(state, state.current_player), state.legal_action_mask.copy()
        actions = bot.act(obs, mask)
        yield obs, mask, actions
        core.step(state, actions)
        over = state.terminated | state.truncated
        if over.all():
            break


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_version_2_bot_plays_whole_games_legally_and_takes_the_new_effects(players: int) -> None:
    """The previous shipped bot (observation version 2) through the adapter: every action legal
    over whole games; at Nightmare's question it says YES, at a Homunculus flip never NO."""
    seen = {Phase.NIGHTMARE: 0, Phase.HOMUNCULUS_FLIP: 0}
    finished = 0
    for obs, mask, actions in _play_v2_bot(players, games=96, steps=3000, seed=players):
        live = mask.any(1)
        assert mask[np.flatnonzero(live), actions[live]].all(), "only legal actions"
        finished += int((~live).sum())
        for phase in seen:
            rows = _phase_rows(obs, phase) & live
            seen[phase] += int(rows.sum())
            answer, hidden = OLD_VERSION_ANSWERS[phase]
            if answer is not None:
                assert (actions[rows] == answer).all()
            for a in hidden:
                others = mask[rows].sum(1) > 1
                assert (actions[rows][others] != a).all()
    assert finished, "games ran to their end"
    assert seen[Phase.NIGHTMARE] + seen[Phase.HOMUNCULUS_FLIP], seen


def test_a_version_2_bot_at_the_new_decisions() -> None:
    """The two positions, built: the version-2 bot flips at a Homunculus flip (never NO) and says
    YES to Nightmare's question."""
    from helpers import play, position

    s = position(
        2,
        players=[
            {
                "hand": ["Fairy", "Angel"],
                "head": "Fairy",
                "mana": ["Unicorn"],
                "stones": ["Imp", "Imp"],
                "spirits": ["Homunculus"] * 2,
            },
            {"hand": ["Golem", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT", "MANA_GREEN")
    assert core.Phase(int(s.phase[0])) == Phase.HOMUNCULUS_FLIP and s.legal_action_mask[0, core.NO]
    bot = make_agent("bot-v2")
    a = bot.act(core.observe(s, s.current_player), s.legal_action_mask)
    assert core.MANA_BLACK <= int(a[0]) <= core.MANA_BLUE and s.legal_action_mask[0, a[0]]
    s = position(
        2,
        players=[
            {"hand": ["Nightmare", "Belial", "Imp"], "head": "Succubus", "mana": ["Imp"]},
            {"hand": ["Salamander"] * 4 + ["Ifrit"] * 4, "head": "Angel"},
        ],
        deck=["Titania"] * 2,
    )
    s = play(s, "Belial", "Nightmare")
    assert core.Phase(int(s.phase[0])) == Phase.NIGHTMARE
    assert int(bot.act(core.observe(s, s.current_player), s.legal_action_mask)[0]) == core.YES
    assert np.isfinite(bot.log_probs(core.observe(s, s.current_player), s.legal_action_mask)[0, core.YES])


def test_the_previous_bot_files_are_version_2_and_still_load() -> None:
    for p, f in SHIPPED_V2.items():
        meta = json.loads(str(np.load(f)["meta"]))
        assert (meta["num_players"], meta["obs_version"], meta["obs_dim"]) == (p, 2, 601)
    bot = make_agent("bot-v2")
    assert {p: n.obs_version for p, n in bot.nets.items()} == {2: 2, 3: 2, 4: 2}


@pytest.mark.one_backend
def test_warm_start_plays_as_the_bot(tmp_path: Path) -> None:
    """train.py --init: a policy started from a version-2 bot file picks the bot's actions wherever
    the bot chooses for itself (everywhere but Nightmare's question, which it answers by its own
    untrained logits, and the Homunculus flip's NO)."""
    from sb3_contrib import MaskablePPO

    from agents.files.export import warm_start
    from aos_env.integrations.sb3 import LearnerVecEnv

    env = LearnerVecEnv(num_envs=4, num_players=2, opponents="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [256, 256]}, seed=0, device="cpu"
    )
    meta = warm_start(model.policy, SHIPPED_V2[2])
    assert meta["obs_version"] == 2
    bot = make_agent("bot-v2")
    policy = PolicyAgent.snapshot(model, deterministic=True)
    compared = 0
    for obs, mask in _positions(players=2, games=64, steps=40):
        rows = mask.any(1) & ~_phase_rows(obs, Phase.NIGHTMARE) & ~_phase_rows(obs, Phase.HOMUNCULUS_FLIP)
        np.testing.assert_array_equal(policy.act(obs, mask)[rows], bot.act(obs, mask)[rows])
        compared += int(rows.sum())
    assert compared > 1000
    small = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [32]}, device="cpu")
    with pytest.raises(ValueError, match="--net-arch"):
        warm_start(small.policy, SHIPPED_V2[2])


# ---- a bot file for another table size (python -m agents.files.export BOT.npz OUT.npz --players P) ------

from agents.files.bot_file import read_bot_file  # noqa: E402
from agents.files.export import main as export_main  # noqa: E402
from agents.files.export import retarget  # noqa: E402
from aos_env.base.checks import ArgumentError  # noqa: E402


@pytest.mark.one_backend
def test_retarget_writes_the_same_networks_for_another_table_size(tmp_path: Path) -> None:
    out = retarget(SHIPPED[2], tmp_path / "bot_3p.npz", 3, info={"note": "the 2-player net at 3"})
    meta, arrays = read_bot_file(out, "out")
    src_meta, src_arrays = read_bot_file(SHIPPED[2], "src")
    assert meta["num_players"] == 3 and meta["obs_version"] == src_meta["obs_version"]
    assert meta["info"]["note"] == "the 2-player net at 3"
    assert meta["info"]["retargeted_from"] == {"file": "bot_2p.npz", "num_players": 2, "info": src_meta["info"]}
    assert arrays.keys() == src_arrays.keys() and all(np.array_equal(arrays[k], src_arrays[k]) for k in arrays)
    bot = make_agent(str(out))
    state = core.init(6, 3, seed=9)
    for _ in range(200):
        if (state.terminated | state.truncated).all():
            break
        a = bot.act(core.observe(state, state.current_player), state.legal_action_mask, state=state)
        live = ~(state.terminated | state.truncated)
        assert state.legal_action_mask[np.arange(6), a][live].all()
        core.step(state, a)


def test_retarget_refuses_bad_arguments_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="num_players"):
        retarget(SHIPPED[2], tmp_path / "x.npz", 5)
    with pytest.raises(ArgumentError, match="out"):
        retarget(SHIPPED[2], tmp_path / "x.zip", 3)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ArgumentError, match="not a bot file"):
        retarget(junk, tmp_path / "x.npz", 3)
    with pytest.raises(ArgumentError, match="itself"):
        retarget(junk, junk, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.npz"]


def test_the_export_command_on_a_bot_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "b.npz"
    assert export_main([str(SHIPPED[2]), str(out), "--players", "4", "--note", "why"]) == 0
    assert read_bot_file(out, "out")[0]["info"]["note"] == "why"
    for argv, words in (
        ([str(SHIPPED[2]), str(out), "--players", "3"], "--overwrite"),
        ([str(SHIPPED[2]), str(tmp_path / "c.npz")], "--players: required"),
    ):
        with pytest.raises(SystemExit) as stop:
            export_main(argv)
        assert stop.value.code == 2 and words in capsys.readouterr().err
    assert read_bot_file(out, "out")[0]["num_players"] == 4  # not replaced
    assert export_main([str(SHIPPED[2]), str(out), "--players", "3", "--overwrite"]) == 0
    assert read_bot_file(out, "out")[0]["num_players"] == 3
