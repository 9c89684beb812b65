"""Baseline agents, the tournament and the terminal play CLI."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import aos_env
from agents import GreedyAgent, MonteCarloAgent, RandomAgent, act_on_env, act_on_state, make_agent
from agents.evaluation.evaluate import main as evaluate_main
from agents.evaluation.matches import elo_ratings, lineups_for, play_games, summarise, wilson
from aos_env import core
from aos_env.apps.play import main as play_main
from aos_env.tools.determinise import determinise


def small_mc(seed: int = 0) -> MonteCarloAgent:
    return MonteCarloAgent(rollouts=2, max_rollout_turns=2, seed=seed)


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "mc": small_mc}


@pytest.mark.parametrize("name", list(AGENTS))
def test_agents_pick_legal_actions_on_a_batch(name: str) -> None:
    agent = AGENTS[name](seed=3)
    state = core.init(12, 3, seed=1)
    for _ in range(120 if name != "mc" else 25):
        live = ~(state.terminated | state.truncated)
        acts = act_on_state(agent, state)
        assert state.legal_action_mask[np.arange(12), acts][live].all()
        core.step(state, acts)  # raises on an illegal action


@pytest.mark.parametrize("name", list(AGENTS))
def test_agents_pick_legal_actions_on_the_aec_env(name: str) -> None:
    agent = AGENTS[name](seed=4)
    env = aos_env.env(num_players=2)
    env.reset(seed=9)
    steps = 0
    for a in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = act_on_env(agent, env)
        assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
        if name == "mc" and steps > 30:
            break


@pytest.mark.parametrize("name", list(AGENTS))
def test_agents_are_deterministic_given_a_seed(name: str) -> None:
    def run(seed: int) -> list[int]:
        agent = AGENTS[name](seed=seed)
        state = core.init(4, 2, seed=2)
        out = []
        for _ in range(40 if name != "mc" else 12):
            acts = act_on_state(agent, state)
            out += acts.tolist()
            core.step(state, acts)
        return out

    assert run(5) == run(5)
    if name == "random":
        assert run(5) != run(6)


def test_single_observation_gives_an_int() -> None:
    state = core.init(1, 2, seed=0)
    obs = core.observe(state, state.current_player)[0]
    action = GreedyAgent().act(obs, state.legal_action_mask[0])
    assert isinstance(action, int) and state.legal_action_mask[0, action]


def test_determinise_keeps_what_the_viewer_knows() -> None:
    state = core.init(6, 3, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        core.step(state, act_on_state(RandomAgent(seed=1), state))
    viewer = state.current_player.copy()
    world = state.take(np.arange(6))
    determinise(world, viewer, np.random.default_rng(1))
    rows = np.arange(6)
    assert np.array_equal(world.hand[rows, viewer], state.hand[rows, viewer]), "own hand kept"
    for name in ("spirits", "mana", "head", "vp", "faith"):
        assert np.array_equal(getattr(world, name), getattr(state, name)), name
    assert np.array_equal(world.hand.sum(2), state.hand.sum(2)), "hand sizes kept"
    assert np.array_equal(world.stones.sum(2), state.stones.sum(2)), "stone counts kept"
    assert np.array_equal(world.deck.sum(1), state.deck.sum(1))
    assert np.array_equal(world.discard.sum(1), state.discard.sum(1))
    per_kind = (
        world.hand.sum(1)
        + world.spirits.sum(1)
        + world.mana.sum(1)
        + world.stones.sum(1)
        + world.deck
        + world.discard
        + world.offer
    )
    assert (per_kind == state.cards.copies).all(), "every card still accounted for"
    assert not np.array_equal(world.deck, state.deck) or not np.array_equal(world.hand, state.hand)
    del rng


def test_mc_needs_the_state() -> None:
    state = core.init(1, 2, seed=0)
    with pytest.raises(ValueError, match="state"):
        small_mc().act(core.observe(state, 0), state.legal_action_mask)


def test_make_agent_specs() -> None:
    assert isinstance(make_agent("greedy"), GreedyAgent)
    mc = make_agent("mc:rollouts=3,rollout_policy=random,max_rollout_turns=4")
    assert mc.rollouts == 3 and mc.max_rollout_turns == 4 and isinstance(mc.rollout_policy, RandomAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphago")


def test_lineups_rotate_seats_fairly() -> None:
    lineups = lineups_for(3, 2, 12)
    assert lineups.shape == (12, 2)
    for a in range(3):  # every agent plays every seat equally often
        assert (lineups[:, 0] == a).sum() == (lineups[:, 1] == a).sum() == 4
    four = lineups_for(2, 4, 8)
    assert (four == 0).sum() == (four == 1).sum() == 16
    table = lineups_for(4, 4, 24)  # who sits to whose right matters too (assists go right)
    right = {(a, b): 0 for a in range(4) for b in range(4) if a != b}
    for row in table:
        for p in range(4):
            right[(row[p], row[p - 1])] += 1
    assert set(right.values()) == {8}


def test_wilson_and_elo() -> None:
    lo, hi = wilson(80, 100)
    assert lo < 0.8 < hi and 0.70 < lo and hi < 0.88
    elo = elo_ratings(np.array([[0, 90], [10, 0]]))
    assert elo[0] > elo[1] and abs(elo.mean() - 1500) < 1e-6
    even = elo_ratings(np.array([[0, 50], [50, 0]]))
    assert np.allclose(even, 1500)


def test_tournament_numbers_are_consistent() -> None:
    res = play_games([GreedyAgent(seed=1), RandomAgent(seed=2)], 2, 24, seed=3, batch_size=10)
    s = summarise(res)
    a = s["agents"]
    assert sum(x["wins"] for x in a.values()) == s["games"] - s["truncated"]
    for x in a.values():
        assert x["seats_played"] == 24
        assert x["win_rate"] == pytest.approx(x["wins"] / x["seats_played"])
        lo, hi = x["win_rate_ci95"]
        assert lo <= x["win_rate"] <= hi
    assert a["greedy"]["elo"] > a["random"]["elo"]
    assert s["head_to_head"]["greedy"]["random"] == pytest.approx(a["greedy"]["wins"] / 24)


def test_evaluate_cli_writes_table_and_json(tmp_path, capsys) -> None:
    out = tmp_path / "t.json"
    summary = evaluate_main(
        [
            "--players",
            "3",
            "--games",
            "6",
            "--no-progress",
            "--json",
            str(out),
            "random",
            "greedy",
            "mc:rollouts=1,max_rollout_turns=1",
        ]
    )
    text = capsys.readouterr().out
    assert "win rate" in text and "95% CI" in text and "Elo" in text
    saved = json.loads(out.read_text())
    assert saved["games"] == 6 and set(saved["agents"]) == {"random", "greedy", "mc:rollouts=1,max_rollout_turns=1"}
    assert sum(a["seats_played"] for a in saved["agents"].values()) == 18
    assert saved["agents"]["greedy"]["wins"] == summary["agents"]["greedy"]["wins"]


def test_play_cli_with_scripted_input() -> None:
    answers = io.StringIO("x\n99\n" + "1\n" * 2000)
    out = io.StringIO()
    code = play_main(["--players", "2", "--opponents", "random", "--seed", "3", "--no-replays"], inp=answers, out=out)
    text = out.getvalue()
    assert code == 0
    assert "'x' is not one of the choices" in text and "'99' is not one of the choices" in text
    assert "Your choice" in text and "player_1 (random):" in text
    assert "wins" in text or "You win!" in text or "nobody wins" in text


def test_play_cli_quit() -> None:
    out = io.StringIO()
    assert play_main(["--seed", "1", "--no-replays"], inp=io.StringIO("q\n"), out=out) == 1
    assert "Goodbye" in out.getvalue()
