"""OpenSpiel's algorithms and tools on the game, tried the way their own tutorials start: actions as
numpy/torch integer scalars, NFSP (PyTorch), CFR, external- and outcome-sampling MCCFR and
exploitability on small configurations with explicit deals, the public and private observers and
generate_playthrough."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
import torch
from open_spiel.python import policy, rl_environment
from open_spiel.python.algorithms import cfr, exploitability, generate_playthrough
from open_spiel.python.algorithms import external_sampling_mccfr as es
from open_spiel.python.algorithms import outcome_sampling_mccfr as os_mccfr
from open_spiel.python.observation import make_observation

from aos_env import core
from aos_env import openspiel as aos_os
from aos_env.base.checks import ArgumentError

NAME = aos_os.GAME_NAME
#: A one-turn game with two explicit deals (seeds 1 and 2): 250 histories, so tabular algorithms take
#: seconds (in a one-turn game of two players only the start player decides, but every tool runs as on
#: TABULAR_GAME, whose 5,615 histories take minutes: benchmarks/openspiel_cfr.py runs it).
TINY = f"{NAME}(players=2,max_turns=1,deals=2,rng_seed=1,score_truncated=True,perfect_recall=True)"


def _dealt(game: pyspiel.Game, outcome: int = 0) -> pyspiel.State:
    state = game.new_initial_state()
    state.apply_action(outcome)
    return state


# ---- apply_action: every integer scalar OpenSpiel's own games take -------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        int,
        np.int64,
        np.int32,
        np.uint8,
        lambda a: np.array(a),
        lambda a: torch.tensor(a),
        lambda a: torch.tensor(a, dtype=torch.int32),
    ],
    ids=["int", "np.int64", "np.int32", "np.uint8", "0-d numpy", "0-d torch", "0-d torch int32"],
)
def test_apply_action_takes_integer_scalars_like_openspiels_games(make) -> None:
    state = _dealt(pyspiel.load_game(NAME))
    kuhn = pyspiel.load_game("kuhn_poker").new_initial_state()
    kuhn.apply_action(make(0))  # what OpenSpiel's own games take
    action = state.legal_actions()[0]
    state.apply_action(make(action))
    assert state.history() == [0, action] and all(type(a) is int for a in state.history())


@pytest.mark.parametrize(
    "bad",
    [
        True,
        np.bool_(True),
        np.array(True),
        torch.tensor(True),
        1.0,
        np.float32(1.0),
        torch.tensor(1.0),
        "1",
        np.array([1]),
        torch.tensor([1]),
        None,
    ],
    ids=[
        "bool",
        "np.bool_",
        "0-d bool array",
        "bool tensor",
        "float",
        "np.float32",
        "float tensor",
        "str",
        "1-d array",
        "1-d tensor",
        "None",
    ],
)
def test_apply_action_refuses_bools_floats_strings_and_arrays(bad) -> None:
    state = _dealt(pyspiel.load_game(NAME))
    before = str(state)
    with pytest.raises(ArgumentError, match="action must be an integer action id 0..43"):
        state.apply_action(bad)
    assert str(state) == before and state.history() == [0]


# ---- explicit deals, truncated games scored, perfect recall ---------------------------------------------


def test_explicit_deals_are_chance_outcomes_with_their_seeds() -> None:
    game = pyspiel.load_game(f"{NAME}(deals=3,rng_seed=5,max_turns=4)")
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == 3
    root = game.new_initial_state()
    assert root.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)] and root.legal_actions() == [0, 1, 2]
    for outcome in (2, 0, 2):  # the outcome, not the game object's deal count, picks the seed
        state = _dealt(game, outcome)
        assert state.seed == 5 + outcome
        ref = core.init(1, 2, seed=5 + outcome, max_turns=4)
        assert np.array_equal(state.observation(0), core.observe(ref, 0)[0])
    with pytest.raises(ValueError, match=r"chance outcomes are 0\.\.2 \(deals=3\); got 3"):
        game.new_initial_state().apply_action(3)
    # serialized and replayed like any state; a seed that is not the deal's is refused
    state = _dealt(game, 1)
    state.apply_action(state.legal_actions()[-1])
    text = state.serialize()
    assert str(game.deserialize_state(text)) == str(state)
    with pytest.raises(ValueError, match="has seed 6, the text says 9"):
        game.deserialize_state(text.replace("seed 6", "seed 9"))
    with pytest.raises(ValueError, match=r"parameter 'deals' must be 0\.\.10000"):
        pyspiel.load_game(NAME, {"deals": -1})
    with pytest.raises(ValueError, match="rng_seed \\+ deals - 1 must be"):
        pyspiel.load_game(NAME, {"deals": 2, "rng_seed": aos_os.MAX_RNG_SEED})


def test_score_truncated_gives_the_leader_the_win() -> None:
    rng = np.random.default_rng(0)
    for flag in (False, True):
        game = pyspiel.load_game(NAME, {"max_turns": 3, "score_truncated": flag})
        state = _dealt(game)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        assert state.engine_state.truncated[0]
        if flag:
            winner = int(core.winners(state.engine_state)[0])
            assert state.returns() == [1.0 if p == winner else -1.0 for p in range(2)]
        else:
            assert state.returns() == [0.0, 0.0]


def test_perfect_recall_strings_tell_histories_apart() -> None:
    game = pyspiel.load_game(TINY)
    plain = pyspiel.load_game(f"{NAME}(players=2,max_turns=1,deals=2,rng_seed=1)")
    state, other = _dealt(game), _dealt(plain)
    assert "| recall " in state.information_state_string(0)
    assert "recall" not in other.information_state_string(0)
    # the tensors are the same (fixed size, not perfect recall); the string adds the digest of the past
    assert state.information_state_tensor(0) == other.information_state_tensor(0)
    # a player's key is a function of what they observed: equal for a clone, different after any move
    assert state.clone().information_state_string(1) == state.information_state_string(1)
    child = state.child(state.legal_actions()[0])
    assert child.information_state_string(0) != state.information_state_string(0)
    assert child.information_state_string(1) != state.information_state_string(1)


# ---- tabular algorithms --------------------------------------------------------------------------------


def test_tabular_game_is_documented_and_loads() -> None:
    game = pyspiel.load_game(aos_os.TABULAR_GAME)
    assert game.get_parameters() == {
        "players": 2,
        "max_turns": 2,
        "deals": 2,
        "rng_seed": 117,
        "score_truncated": True,
        "perfect_recall": True,
    }
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


@pytest.mark.one_backend  # OpenSpiel's Python algorithms over the engine: tens of thousands of steps
def test_cfr_mccfr_and_exploitability_run_to_the_end() -> None:
    game = pyspiel.load_game(TINY)
    uniform = policy.UniformRandomPolicy(game)
    start = exploitability.nash_conv(game, uniform)
    solver = cfr.CFRSolver(game)
    for _ in range(4):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    cfr_exploitability = exploitability.exploitability(game, average)  # NashConv / 2 in two-player games
    assert 0.0 <= 2 * cfr_exploitability < start
    tabular = policy.TabularPolicy(game)  # the whole table, every information state of the three deals
    assert len(tabular.state_lookup) == len(solver._info_state_nodes)

    np.random.seed(0)
    external = es.ExternalSamplingSolver(game, es.AverageType.SIMPLE)
    for _ in range(10):
        external.iteration()
    assert 0.0 <= exploitability.nash_conv(game, external.average_policy()) < start
    outcome = os_mccfr.OutcomeSamplingSolver(game)
    for _ in range(20):
        outcome.iteration()
    assert exploitability.nash_conv(game, outcome.average_policy()) >= 0.0


# ---- observers and generate_playthrough -----------------------------------------------------------------


def test_public_and_private_observers() -> None:
    game = pyspiel.load_game(NAME, {"max_turns": 4})
    public = make_observation(
        game,
        pyspiel.IIGObservationType(public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE),
    )
    private = make_observation(
        game,
        pyspiel.IIGObservationType(
            public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
        ),
    )
    state, rng = _dealt(game), np.random.default_rng(1)
    hand, offer = core.obs_slices()["hand"], core.obs_slices()["offer"]
    seen_offer = False
    while not state.is_terminal():
        s = state.engine_state
        texts, tensors = set(), []
        for p in range(2):
            public.set_from(state, p)
            tensors.append(public.tensor.copy())
            texts.add(public.string_from(state, p))
            private.set_from(state, p)
            assert np.array_equal(private.dict["hand"], state.observation(p)[hand])
            assert f"private {p}: hand " in private.string_from(state, p)
        assert len(texts) == 1 and np.array_equal(tensors[0], tensors[1])  # the same for everyone
        assert not tensors[0][hand].any()
        if s.offer[0].any() and not s.offer_public[0]:  # Phase III: only the active player sees the offer
            seen_offer = True
            assert not tensors[0][offer].any()
            private.set_from(state, int(s.active_player[0]))
            assert private.dict["offer"].any() and "offered" in private.string_from(state, int(s.active_player[0]))
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    assert seen_offer
    with pytest.raises(ValueError, match="provides a player's view"):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                public_info=False, perfect_recall=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
            ),
        )


@pytest.mark.one_backend
@pytest.mark.parametrize("game_string", [f"{NAME}(max_turns=3)", TINY])
def test_generate_playthrough(game_string: str) -> None:
    text = generate_playthrough.playthrough(game_string, action_sequence=None, alsologtostdout=False, seed=0)
    assert 'PublicObservationString() = "public' in text and 'PrivateObservationString(1) = "private 1' in text
    assert "IsTerminal() = True" in text


# ---- NFSP (PyTorch) -------------------------------------------------------------------------------------


@pytest.mark.one_backend
def test_nfsp_pytorch_runs_and_learns() -> None:
    from open_spiel.python.pytorch import nfsp

    env = rl_environment.Environment(pyspiel.load_game(f"{NAME}(max_turns=6,rng_seed=3)"), seed=0)
    size = env.observation_spec()["info_state"][0]
    agents = [
        nfsp.NFSP(
            p,
            state_representation_size=size,
            num_actions=env.action_spec()["num_actions"],
            hidden_layers_sizes=[32],
            reservoir_buffer_capacity=1000,
            anticipatory_param=0.5,  # half the episodes feed the average network's reservoir
            batch_size=16,
            min_buffer_size_to_learn=32,
            learn_every=16,
            seed=p,
        )
        for p in range(2)
    ]
    steps = 0
    while steps < 300:
        time_step = env.reset()
        while not time_step.last():
            agent = agents[time_step.observations["current_player"]]
            output = agent.step(time_step)  # its action is a numpy integer
            time_step = env.step([output.action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
    # both networks of both agents made gradient steps: (average-policy loss, best-response DQN loss)
    assert all(loss is not None for agent in agents for loss in agent.loss), [agent.loss for agent in agents]


# ---- the NashConv curve of docs/ecosystem.md (benchmarks.openspiel_cfr) ---------------------------------


@pytest.mark.one_backend
def test_cfr_benchmark_curves_and_plot(tmp_path) -> None:
    from benchmarks import openspiel_cfr

    res = openspiel_cfr.run(cfr_iterations=2, mccfr_iterations=4, game_string=TINY)
    assert [it for it, _ in res["cfr"]["curve"]] == [1, 2] and [it for it, _ in res["mccfr_external"]["curve"]] == [
        1,
        2,
        4,
    ]
    assert res["cfr"]["curve"][1][1] < res["cfr"]["curve"][0][1]  # CFR's NashConv falls
    openspiel_cfr.plot(res, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv", [["--cfr-iterations", "0"], ["--mccfr-iterations", "x"]])
def test_cfr_benchmark_bad_arguments_are_usage_errors(argv, capsys) -> None:
    from benchmarks import openspiel_cfr

    with pytest.raises(SystemExit) as e:
        openspiel_cfr.main(argv)
    assert e.value.code == 2 and "must be an int" in capsys.readouterr().err
