"""The PettingZoo AEC env: API conformance, seeding, masks, rewards, illegal actions, rendering."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import aos_env
from aos_env import core
from aos_env.positions import position


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api(players: int) -> None:
    # ~150 decisions per 2-player game: 1000 cycles cover several game ends
    api_test(aos_env.env(num_players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed(players: int) -> None:
    seed_test(lambda: aos_env.env(num_players=players), num_cycles=300)


def test_metadata_and_spaces() -> None:
    env = aos_env.env(num_players=3)
    assert env.metadata["name"] == "age_of_summoners_v0"
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.action_space("player_0").n == 44
    obs = env.observe("player_1")
    assert obs["observation"].shape == (core.OBS_DIM,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (44,)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_full_random_game(players: int) -> None:
    env = aos_env.env(num_players=players)
    env.reset(seed=11 * players)
    rng = np.random.default_rng(players)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    raw = env.unwrapped
    acted_off_turn = False
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        masks = {a: env.observe(a)["action_mask"] for a in env.agents}
        assert masks[agent].sum() >= 2, "the acting agent has a real choice"
        assert all(m.sum() == 0 for a, m in masks.items() if a != agent), "only the acting agent may act"
        assert agent == f"player_{int(raw.state.current_player[0])}"
        acted_off_turn |= info["active_player"] != agent
        assert {"phase", "command_number"} <= set(info)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = raw.state
    assert state.terminated[0] or state.truncated[0]
    assert abs(sum(totals.values())) < 1e-6
    final = info["final_scores"]
    assert [final[a] for a in env.possible_agents] == core.final_scores(state)[0].tolist()
    if state.terminated[0]:
        assert totals[info["winner"]] == 1.0
        assert all(np.isclose(v, -1 / (players - 1)) for a, v in totals.items() if a != info["winner"])


@pytest.mark.parametrize("players", [2, 3])
def test_env_plays_exactly_like_the_batched_engine(players: int) -> None:
    """The env's one-game path (engine.step_one_legal) gives the same game as core.step on a batch."""
    env = aos_env.raw_env(num_players=players)
    env.reset(seed=5)
    batch = core.init(3, players, seed=np.array([9, 5, 11]))  # the env's game is game 1 here
    rng = np.random.default_rng(players)
    fields = ["hand", "spirits", "mana", "stones", "deck", "discard", "offer", "vp", "faith", "head", "phase",
              "current_player", "legal_action_mask", "rewards", "terminated", "rng_counter", "stats"]
    for _ in range(600):
        mine = env.state
        for name in fields:
            assert np.array_equal(getattr(mine, name)[0], getattr(batch, name)[1]), name
        if mine.terminated[0] or mine.truncated[0]:
            break
        legal = env.legal_actions()
        action = legal[rng.integers(len(legal))]
        env.step(action)
        actions = np.array([batch.legal_action_mask[0].argmax(), action, batch.legal_action_mask[2].argmax()])
        core.step(batch, actions)
    assert env.state.turn[0] > 10


def test_off_turn_decisions_go_to_the_right_agent() -> None:
    """Inquisition gifts are chosen by the giver, not the active player (R6.6)."""
    state = position(3, [{"hand": ["Golem", "Imp"], "head": "Golem", "faith": 5},
                         {"hand": ["Angel", "Fairy"], "faith": 1}, {"hand": ["Unicorn", "Imp"], "faith": 1}],
                     deck=["Imp", "Imp", "Fairy", "Fairy", "Fairy"])
    env = aos_env.raw_env(num_players=3)
    env.load_state(state)
    assert env.agent_selection == "player_0"
    env.step(aos_env.core.ACTION_NAMES.index("CARD_16"))  # Golem: 4 + 4 = 8, Inquisition (forced ACT)
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["phase"] == "INQUISITION_GIFT"
    assert env.infos["player_1"]["active_player"] == "player_0"
    assert env.observe("player_0")["action_mask"].sum() == 0
    assert set(np.flatnonzero(env.observe("player_1")["action_mask"])) == {21, 9}


def test_illegal_action_wrapped_env_ends_game_with_penalty() -> None:
    env = aos_env.env(num_players=3)
    env.reset(seed=5)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)  # PettingZoo logs "Illegal move made"
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != agent)


def test_illegal_action_raw_env_raises_and_names_everything() -> None:
    env = aos_env.raw_env(num_players=2)
    env.reset(seed=5)
    agent = env.agent_selection
    with pytest.raises(ValueError) as err:
        env.step(core.ACT)  # never legal in the command phase
    text = str(err.value)
    assert agent in text and "ACT" in text and "COMMAND" in text and "legal actions: CARD_" in text
    assert env.agent_selection == agent and not any(env.terminations.values())


def test_reset_with_seed_is_reproducible() -> None:
    a, b = aos_env.raw_env(num_players=4), aos_env.raw_env(num_players=4)
    a.reset(seed=77)
    b.reset(seed=77)
    for _ in range(200):
        if a.terminations[a.agent_selection] or a.truncations[a.agent_selection]:
            break
        oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
        assert np.array_equal(oa["observation"], ob["observation"])
        act = int(np.flatnonzero(oa["action_mask"])[-1])
        a.step(act)
        b.step(act)


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError, match="num_players"):
        aos_env.raw_env(num_players=5)
    with pytest.raises(ValueError, match="render_mode"):
        aos_env.raw_env(render_mode="video")


def test_render_ansi_of_a_set_up_position() -> None:
    state = position(2, [{"hand": ["Sphinx", "Imp"], "mana": ["Golem", "Golem"], "head": "Angel", "stones": ["Imp"],
                          "spirits": ["Giant", "Pegasus"], "vp": 12, "faith": 4},
                         {"hand": ["Fairy"], "head": "Imp", "vp": 3}], deck=["Unicorn", "Unicorn"])
    env = aos_env.raw_env(num_players=2, render_mode="ansi")
    env.load_state(state)
    text = env.render()
    assert "player_0 (active, to choose, you): VP 12, faith 4 (compared as 6), hand 2 cards" in text
    assert "  spirits: Giant, Pegasus" in text
    assert "  mana: Golem x2; head: Angel (5); stones: 1" in text
    assert "player_1: VP 3, faith 1, hand 1 cards" in text
    assert "Your hand (player_0): Imp, Sphinx" in text
    assert "Phase I: play a command card" in text
    assert "deck 2 cards" in text
    assert env.describe(env.cards.kind("Imp")) == "play Imp (AS001) as command card (number 6: Prayer)"
    env.step(env.cards.kind("Imp"))
    assert env.describe(env.cards.kind("Sphinx")) == "summon Sphinx (AS018)"
    assert env.describe(core.ACT) == "perform Prayer"
    env.step(env.cards.kind("Sphinx"))
    words = {env.describe(a) for a in env.legal_actions()}
    assert "pay with a Silica mana" in words


def test_render_human_prints(capsys) -> None:
    env = aos_env.raw_env(num_players=2, render_mode="human")
    env.reset(seed=2)
    out = capsys.readouterr().out
    assert "Age of Summoners, 2 players" in out and "Your hand (player_" in out
