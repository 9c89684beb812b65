"""The OpenSpiel game (aos_env.integrations.openspiel): registration, parameters, OpenSpiel's own random
simulation test, observations, returns, reproducible deals, resampling for IS-MCTS, and
OpenSpiel's bots playing it."""

from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts
from open_spiel.python.bots import uniform_random
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

from agents import GreedyAgent
from aos_env import core
from aos_env import openspiel as aos_os
from aos_env.core.cards import DEFAULT as CARDS
from aos_env.core.obs_layout import SEAT_DIM
from aos_env.view.render import describe_action

ROOT = Path(__file__).resolve().parents[2]
NAME = aos_os.GAME_NAME
OWN_DIM = core.NUM_DECISION_PHASES * core.NUM_ACTIONS


def dealt(game: pyspiel.Game) -> pyspiel.State:
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 1.0)]
    state.apply_action(0)
    return state


def play_random(state: pyspiel.State, rng: np.random.Generator, decisions: int | None = None) -> pyspiel.State:
    """Random legal decisions until the end (or for ``decisions`` decisions)."""
    n = 0
    while not state.is_terminal() and (decisions is None or n < decisions):
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        n += 1
    return state


def all_cards(s: core.State) -> np.ndarray:
    """Copies of each kind over every zone of game 0 (110 in all, R1.1)."""
    return (
        s.hand[0].sum(0)
        + s.spirits[0].sum(0)
        + s.mana[0].sum(0)
        + s.stones[0].sum(0)
        + s.deck[0]
        + s.discard[0]
        + s.offer[0]
    )


# ---- registration and parameters -----------------------------------------------------------


def test_load_game_with_parameters() -> None:
    game = pyspiel.load_game(NAME, {"players": 3, "max_turns": 50, "rng_seed": 7})
    t = game.get_type()
    assert t.short_name == NAME and NAME in pyspiel.registered_names()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (t.min_num_players, t.max_num_players) == (2, 4)
    assert game.num_players() == 3 and game.num_distinct_actions() == core.NUM_ACTIONS == 44
    assert game.max_chance_outcomes() == 1
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-0.5, 1.0, 0.0)
    assert game.max_game_length() == (50 + 3) * aos_os.DECISIONS_PER_TURN
    new_defaults = {"deals": 0, "score_truncated": False, "perfect_recall": False}  # sampled deals, as before
    assert game.get_parameters() == {"players": 3, "max_turns": 50, "rng_seed": 7, **new_defaults}
    state = dealt(game)
    assert state.engine_state.num_players == 3 and state.engine_state.max_turns == 50 and state.seed == 7

    default = pyspiel.load_game(NAME)
    assert default.get_parameters() == {
        "players": 2,
        "max_turns": core.DEFAULT_MAX_TURNS,
        "rng_seed": 0,
        **new_defaults,
    }
    assert default.num_players() == 2 and default.min_utility() == -1.0
    # the string form loads too (OpenSpiel's usual way to name a game with parameters)
    assert pyspiel.load_game(f"{NAME}(players=4)").num_players() == 4


@pytest.mark.parametrize(
    "params, name, allowed",
    [
        ({"players": 5}, "players", "2..4"),
        ({"players": 1}, "players", "2..4"),
        ({"max_turns": 0}, "max_turns", r"1\.\."),
    ],
)
def test_bad_parameters_name_the_parameter_and_the_range(params: dict, name: str, allowed: str) -> None:
    with pytest.raises(ValueError, match=f"parameter '{name}' must be {allowed}"):
        pyspiel.load_game(NAME, params)


def test_bad_parameter_types_and_names() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'player'"):
        pyspiel.load_game(NAME, {"player": 3})  # OpenSpiel checks names and types of registered parameters
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game(NAME, {"players": 2.5})
    # the class itself (used without load_game) checks them too
    allowed = r"allowed: \['deals', 'max_turns', 'perfect_recall', 'players', 'rng_seed', 'score_truncated'\]"
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['seed'\]; " + allowed):
        aos_os.AgeOfSummonersGame({"seed": 1})
    with pytest.raises(ValueError, match="parameter 'players' must be an int, got '3'"):
        aos_os.AgeOfSummonersGame({"players": "3"})
    with pytest.raises(ValueError, match="parameter 'max_turns' must be 1..4"):
        aos_os.AgeOfSummonersGame({"max_turns": aos_os.MAX_MAX_TURNS + 1})
    assert aos_os.AgeOfSummonersGame({"players": 4}).num_players() == 4


# ---- OpenSpiel's own checks ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_sim_test(players: int) -> None:
    # default max_turns: random games end by a declaration (about 55-95 turns), so the checks
    # see real wins as well as clones, legal-action masks, tensors and strings at every step
    # (about 12 ms per decision here: one game for 3 and 4 players)
    game = pyspiel.load_game(NAME, {"players": players, "rng_seed": 100 * players})
    pyspiel.random_sim_test(game, num_sims=2 if players == 2 else 1, serialize=False, verbose=False)


def test_random_sim_test_with_truncated_games() -> None:
    pyspiel.random_sim_test(
        pyspiel.load_game(NAME, {"players": 3, "max_turns": 5}), num_sims=2, serialize=False, verbose=False
    )


def test_state_serialize_round_trip() -> None:
    # (random_sim_test's serialize=True also serialises the game, which OpenSpiel refuses for a
    # Python game with sampled chance: "GetRNGState unimplemented"; see docs/ecosystem.md)
    game = pyspiel.load_game(NAME, {"players": 3})
    state = play_random(dealt(game), np.random.default_rng(0), decisions=40)
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()
    for _ in range(20):
        a = state.legal_actions()[0]
        state.apply_action(a)
        copy.apply_action(a)
    assert str(copy) == str(state)
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        game.serialize()
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pickle.dumps(state)  # pyspiel pickles a state together with its game


# ---- observations ---------------------------------------------------------------------------------


def test_tensor_shapes_and_contents() -> None:
    game = pyspiel.load_game(NAME, {"players": 3})
    assert game.observation_tensor_shape() == [core.OBS_DIM]
    assert game.information_state_tensor_shape() == [core.OBS_DIM + OWN_DIM]
    assert (
        game.observation_tensor_size() == core.OBS_DIM
        and game.information_state_tensor_size() == core.OBS_DIM + OWN_DIM
    )
    chance = game.new_initial_state()
    assert not any(chance.observation_tensor(0)) and not any(chance.information_state_tensor(1))
    state = play_random(dealt(game), np.random.default_rng(1), decisions=30)
    s = state.engine_state
    for p in range(3):
        obs = np.array(state.observation_tensor(p), np.float32)
        info = np.array(state.information_state_tensor(p), np.float32)
        assert obs.shape == (core.OBS_DIM,) and info.shape == (core.OBS_DIM + OWN_DIM,)
        np.testing.assert_array_equal(obs, core.observe(s, p)[0])
        np.testing.assert_array_equal(info[: core.OBS_DIM], obs)
        np.testing.assert_allclose(info[core.OBS_DIM :], state.own_action_counts(p).ravel() / aos_os.OWN_ACTIONS_SCALE)
    # the information state counts the player's own decisions, not the others'
    p = state.current_player()
    phase, before = int(s.phase[0]), [state.own_action_counts(q) for q in range(3)]
    a = state.legal_actions()[0]
    state.apply_action(a)
    for q in range(3):
        diff = state.own_action_counts(q) - before[q]
        assert diff.sum() == (q == p) and (q != p or diff[phase, a] == 1)


def test_observer_views_are_named_pieces_of_the_tensor() -> None:
    game = pyspiel.load_game(NAME, {"players": 2})
    state = play_random(dealt(game), np.random.default_rng(2), decisions=12)
    obs = make_observation(game)
    info = make_observation(game, INFO_STATE_OBS_TYPE)
    p = state.current_player()
    obs.set_from(state, p)
    info.set_from(state, p)
    sl = core.obs_slices()
    np.testing.assert_array_equal(obs.dict["hand"], obs.tensor[sl["hand"]])
    np.testing.assert_array_equal(obs.dict["hand"], state.engine_state.hand[0, p])
    assert obs.dict["phase"].argmax() == state.engine_state.phase[0]
    assert obs.dict["seats"].shape == (4, SEAT_DIM)
    np.testing.assert_array_equal(obs.dict["seats"][1], obs.tensor[sl["seat1.present"].start :][:SEAT_DIM])
    assert obs.dict["seats"][2:].sum() == 0  # a 2-player game has seats 0 and 1
    assert info.dict["own_actions"].shape == (core.NUM_DECISION_PHASES, core.NUM_ACTIONS)
    assert (
        "own_actions" not in obs.dict and obs.tensor.size == core.OBS_DIM and info.tensor.size == core.OBS_DIM + OWN_DIM
    )
    np.testing.assert_array_equal(info.tensor[: core.OBS_DIM], obs.tensor)
    with pytest.raises(ValueError, match="provides a player.s view .* and the public .* and private"):
        game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
        )
    with pytest.raises(ValueError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})


def test_strings() -> None:
    game = pyspiel.load_game(NAME, {"players": 3})
    chance = game.new_initial_state()
    assert chance.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal the cards"
    assert "not dealt yet" in str(chance) and "not dealt yet" in chance.observation_string(0)
    state = play_random(dealt(game), np.random.default_rng(3), decisions=25)
    s = state.engine_state
    for a in state.legal_actions():
        assert state.action_to_string(state.current_player(), a) == describe_action(s, 0, a)
    text = str(state)  # the whole state, hidden cards included
    for p in range(3):
        hand = ", ".join(CARDS.names[k] + (f" x{n}" if n > 1 else "") for k, n in enumerate(s.hand[0, p]) if n)
        assert f"player_{p}: vp {s.vp[0, p]}" in text and f"hand: {hand or '-'}" in text
    assert len({state.observation_string(q) for q in range(3)}) == 3  # each player's own view
    p = state.current_player()
    assert state.observation_string(p).startswith(f"player {p} ")
    info = state.information_state_string(p)
    assert info.startswith(state.observation_string(p) + " | own actions: ") and "/" in info
    # the string and the tensor carry the same information: equal strings for equal tensors
    other = game.deserialize_state(state.serialize())
    assert other.observation_string(p) == state.observation_string(p)


# ---- returns and deals ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_returns_sum_to_zero_and_match_the_winner(players: int) -> None:
    game = pyspiel.load_game(NAME, {"players": players, "rng_seed": players})
    ended = 0
    for g in range(3):
        state = dealt(game)
        assert state.returns() == [0.0] * players
        play_random(state, np.random.default_rng(g))
        s = state.engine_state
        assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.legal_actions() == [] and state.returns() == state.rewards()
        returns = np.array(state.returns())
        assert abs(returns.sum()) < 1e-12  # float64 (float32 thirds miss OpenSpiel's 1e-9 check)
        if s.truncated[0]:
            assert (returns == 0).all()
            continue
        ended += 1
        scores = core.final_scores(s)[0]
        winner = int(np.argmax(returns))
        assert returns[winner] == 1.0 and np.allclose(np.delete(returns, winner), -1.0 / (players - 1))
        assert scores[winner] == scores.max()  # R7.4: the best score wins (ties by seat)
        np.testing.assert_allclose(returns, s.rewards[0], rtol=1e-6)
    assert ended > 0


def test_truncated_game_gives_zero_to_everyone() -> None:
    state = play_random(dealt(pyspiel.load_game(NAME, {"players": 2, "max_turns": 3})), np.random.default_rng(0))
    assert state.is_terminal() and state.engine_state.truncated[0] and state.returns() == [0.0, 0.0]
    assert state.engine_state.turn[0] == 3


def test_deals_follow_the_seed_and_differ() -> None:
    game = pyspiel.load_game(NAME, {"players": 3, "rng_seed": 11})
    first, second = dealt(game), dealt(game)
    assert (first.seed, second.seed) == (11, 12)
    for state, seed in ((first, 11), (second, 12)):
        ref = core.init(1, 3, seed=seed)
        np.testing.assert_array_equal(state.engine_state.hand, ref.hand)
        np.testing.assert_array_equal(state.engine_state.legal_action_mask, ref.legal_action_mask)
    assert str(first) != str(second)
    again = pyspiel.load_game(NAME, {"players": 3, "rng_seed": 11})  # a new game object starts over
    assert str(dealt(again)) == str(first)
    # a state and its clone play on identically (the state holds its game's random stream)
    play_random(first, np.random.default_rng(5), decisions=30)
    clone = first.clone()
    rng_a, rng_b = np.random.default_rng(6), np.random.default_rng(6)
    play_random(first, rng_a, decisions=60)
    play_random(clone, rng_b, decisions=60)
    assert str(first) == str(clone) and first.history() == clone.history()


def test_illegal_actions_raise_and_change_nothing() -> None:
    state = dealt(pyspiel.load_game(NAME))
    before = str(state)
    illegal = next(a for a in range(44) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(illegal)
    assert str(state) == before and state.history() == [0]
    with pytest.raises(ValueError, match="one chance outcome"):
        pyspiel.load_game(NAME).new_initial_state().apply_action(1)


# ---- resample_from_infostate -------------------------------------------------------------------------


def _positions(players: int, seed: int, count: int) -> list[pyspiel.State]:
    """Positions along a random game, Phase III (KEEP: the offer is hidden from the others) among them."""
    game = pyspiel.load_game(NAME, {"players": players, "rng_seed": seed})
    state, rng, out = dealt(game), np.random.default_rng(seed), []
    while not state.is_terminal() and len(out) < count:
        play_random(state, rng, decisions=int(rng.integers(1, 9)))
        if not state.is_terminal():
            out.append(state.clone())
    keep = dealt(game)
    while not keep.is_terminal() and keep.engine_state.phase[0] != core.Phase.KEEP:
        play_random(keep, rng, decisions=1)
    assert keep.engine_state.phase[0] == core.Phase.KEEP
    return out + [keep]


@pytest.mark.parametrize("players", [2, 4])
def test_resample_keeps_the_players_view_and_every_card(players: int) -> None:
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    changed = {"hands": 0, "deck": 0, "stones": 0, "offer": 0}
    for state in _positions(players, seed=players, count=12):
        s = state.engine_state
        before = str(state)
        for p in range(players):
            world = state.resample_from_infostate(p, sampler)
            w = world.engine_state
            assert str(state) == before, "the real state is left alone"
            assert world.observation_tensor(p) == state.observation_tensor(p)
            assert world.information_state_tensor(p) == state.information_state_tensor(p)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.current_player() == state.current_player() and world.history() == state.history()
            if p == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            assert (all_cards(w) == CARDS.copies).all() and all_cards(w).sum() == 110
            np.testing.assert_array_equal(w.hand[0, p], s.hand[0, p])
            for name in ("spirits", "mana", "head", "vp", "faith", "command_number"):
                np.testing.assert_array_equal(getattr(w, name), getattr(s, name), err_msg=name)
            np.testing.assert_array_equal(w.hand.sum(2), s.hand.sum(2))  # sizes kept
            np.testing.assert_array_equal(w.stones.sum(2), s.stones.sum(2))
            for zone in ("deck", "discard", "offer"):
                assert getattr(w, zone).sum() == getattr(s, zone).sum(), zone
            assert w.rng_key[0] != s.rng_key[0], "a fresh random stream"
            changed["hands"] += not np.array_equal(np.delete(w.hand[0], p, 0), np.delete(s.hand[0], p, 0))
            changed["deck"] += not np.array_equal(w.deck, s.deck)
            changed["stones"] += s.stones.sum() > 0 and not np.array_equal(w.stones, s.stones)
            if s.phase[0] == core.Phase.KEEP and p != s.active_player[0]:
                changed["offer"] += not np.array_equal(w.offer, s.offer)
            elif s.phase[0] == core.Phase.KEEP:
                np.testing.assert_array_equal(w.offer, s.offer)  # the drawing player sees their two cards
    assert min(changed.values()) > 0, changed


def test_resample_is_reproducible_with_a_seeded_sampler_and_plays_on() -> None:
    state = _positions(3, seed=9, count=3)[1]
    a = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(42, 0.0, 1.0))
    b = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(42, 0.0, 1.0))
    c = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(43, 0.0, 1.0))
    assert str(a) == str(b) != str(c)
    play_random(a, np.random.default_rng(0))  # a resampled world is a game like any other
    assert a.is_terminal()
    chance = pyspiel.load_game(NAME).new_initial_state()
    assert chance.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0)).is_chance_node()
    with pytest.raises(ValueError, match="player must be an int in 0..2, got 3"):
        state.resample_from_infostate(3, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    with pytest.raises(ValueError, match="probability_sampler must be a callable"):
        state.resample_from_infostate(0, 0.5)


# ---- OpenSpiel's algorithms ------------------------------------------------------------------------------


def test_ismcts_bot_plays_a_game_against_greedy() -> None:
    """OpenSpiel's Python IS-MCTS (which resamples through resample_from_infostate) in seat 0,
    our greedy agent (on the observation tensor and the legal mask) in the others."""
    game = pyspiel.load_game(NAME, {"players": 3, "max_turns": 6, "rng_seed": 3})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=6, random_state=np.random.RandomState(1))
    greedy = GreedyAgent(seed=0)
    state, moves = dealt(game), [0, 0]
    while not state.is_terminal():
        p = state.current_player()
        if p == 0:
            action = int(bot.step(state))
        else:
            obs = np.array(state.observation_tensor(p), np.float32)
            action = int(greedy.act(obs, np.array(state.legal_actions_mask(p), bool)))
        assert action in state.legal_actions(), state.action_to_string(p, action)
        state.apply_action(action)
        moves[p > 0] += 1
    assert moves[0] > 5 and moves[1] > 5
    assert state.engine_state.turn[0] == 6 and state.returns() == [0.0, 0.0, 0.0]  # truncated


def test_python_tools_mcts_rl_environment_and_evaluate_bots() -> None:
    game = pyspiel.load_game(NAME, {"players": 2, "max_turns": 4})
    # Python MCTS: a perfect-information search (it sees the hidden cards), but it runs
    bot = mcts.MCTSBot(
        game, 2.0, 8, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), random_state=np.random.RandomState(0)
    )
    state = dealt(game)
    assert bot.step(state) in state.legal_actions()
    # rl_environment: samples the deal, gives information-state tensors and legal actions
    env = rl_environment.Environment(game)
    assert env.observation_spec()["info_state"] == (core.OBS_DIM + OWN_DIM,) and env.action_spec()["num_actions"] == 44
    ts, steps = env.reset(), 0
    while not ts.last():
        p = ts.observations["current_player"]
        ts = env.step([ts.observations["legal_actions"][p][-1]])
        steps += 1
    assert steps > 10 and ts.rewards == [0.0, 0.0]  # truncated after 4 turns
    bots = [uniform_random.UniformRandomBot(p, np.random.RandomState(p)) for p in range(2)]
    assert evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0)) == [0.0, 0.0]


_CPP_MCTS = """
import pyspiel, aos_env.integrations.openspiel
game = pyspiel.load_game("python_age_of_summoners", {{"players": 2, "max_turns": 3}})
state = game.new_initial_state()
state.apply_action(0)
bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 10, 100, False, 0, False)
while not state.is_terminal():
    action = {choose}
    assert action in state.legal_actions()
    state.apply_action(action)
print("finished", state.returns())
"""


def _run(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_cpp_mcts_bot_step_crashes_on_python_games_but_mcts_search_works() -> None:
    """pyspiel.MCTSBot.step releases the GIL, then calls back into the Python game (State.clone):
    a segmentation fault, for every Python game (OpenSpiel's python_tic_tac_toe too). Its
    mcts_search keeps the GIL and works. If this test fails because step stopped crashing,
    OpenSpiel fixed it: update docs/ecosystem.md."""
    crashed = _run(_CPP_MCTS.format(choose="bot.step(state)"))
    assert crashed.returncode == -signal.SIGSEGV, (crashed.returncode, crashed.stdout, crashed.stderr)
    works = _run(_CPP_MCTS.format(choose="bot.mcts_search(state).best_child().action"))
    assert works.returncode == 0 and "finished [0.0, 0.0]" in works.stdout, works.stderr


def test_docs_openspiel_examples_run(capsys) -> None:
    """The code in docs/ecosystem.md's OpenSpiel section runs as written."""
    text = (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    section = text.split("\n## OpenSpiel\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 3  # the tabular example, then IS-MCTS against greedy
    for code in blocks:
        exec(compile(code, "docs/ecosystem.md", "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "[0.0, 0.0]" and len(lines) > 20
