"""Bad input for what is built on the engine: the PettingZoo env (aos_env.env, raw_env), the
OpenSpiel adapter and aos_env.tools.determinise. The engine's own cases are in
``test_bad_input_core.py``; the shared state and the check every case makes (the error, a message
that names the argument, and nothing changed: the state's every byte and the env's bookkeeping) are
in ``bad_input.py``. Every case runs on both engines (conftest.py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from bad_input import (  # noqa: E402  (the shared state and check)
    CASES,
    FAST,
    HUGE_U64,
    NOT_STATES,
    B,
    bad_players,
    played,
    refused,
    same_games,
)
from bad_values import not_ints
from hypothesis import given
from hypothesis import strategies as st

import aos_env
import aos_env.integrations.openspiel as aos_spiel
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.core import api
from aos_env.core.cards import DEFAULT_CARD_FILE, CardDataError
from aos_env.envs.aec import ClassicWrapper
from aos_env.tools.determinise import determinise, fresh_streams

# ---- the PettingZoo env: aos_env.env() and aos_env.raw_env() ----------------------------------------

ENV_MAKERS = {"env": aos_env.env, "raw_env": aos_env.raw_env}


def env_fingerprint(env) -> tuple:
    """Everything a refused call must leave as it was: the game's records and the env's bookkeeping."""
    raw = env.unwrapped
    game = raw._game
    keep = {}
    for name in ("agent_selection", "rewards", "terminations", "truncations", "_cumulative_rewards", "agents"):
        keep[name] = repr(getattr(raw, name, None))
    infos = getattr(raw, "infos", {})
    keep["infos"] = repr({a: {k: np.asarray(v).tolist() for k, v in i.items()} for a, i in infos.items()})
    keep["replay"] = None if raw._replay is None else repr(raw._replay.actions)
    keep["rng"] = repr(raw._rng.bit_generator.state)
    keep["wrapper"] = (
        repr({k: v for k, v in env.__dict__.items() if k.startswith("_") and k != "_illegal_reward"})
        if isinstance(env, ClassicWrapper)
        else None
    )
    return (None if game is None else game.records.tobytes()), keep


def env_refused(env, call, pattern: str, error: type = ArgumentError) -> str:
    before = env_fingerprint(env)
    with pytest.raises(error, match=pattern) as e:
        call()
    after = env_fingerprint(env)
    assert after[0] == before[0], "a refused call changed the game"
    assert after[1] == before[1], f"a refused call changed the env's bookkeeping: {e.value}"
    CASES["count"] += 1
    return str(e.value)


@functools.cache
def _dealt_env(kind: str, backend: str, record: bool = True):
    env = ENV_MAKERS[kind](num_players=3, record_replay=record, max_turns=40)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        mask = env.unwrapped.engine_state.legal_action_mask[0]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env


def dealt_env(kind: str, record: bool = True):
    """A 3-player env of each kind, a few steps into a game, made once per engine (refused calls leave it
    as it was, so it is shared)."""
    return _dealt_env(kind, core.default_backend(), record)


def make_env_rejects(pattern: str, error: type = ArgumentError, **kwargs) -> None:
    for make in ENV_MAKERS.values():
        refused(None, lambda make=make: make(**kwargs), pattern, error)


@FAST
@given(not_ints | st.integers(max_value=1) | st.integers(min_value=5) | st.just(HUGE_U64))
def test_env_num_players(value) -> None:
    make_env_rejects(r"^num_players must be an int 2\.\.4, got ", num_players=value)


@FAST
@given(not_ints | st.integers(max_value=0) | st.integers(min_value=api.MAX_MAX_TURNS + 1) | st.just(HUGE_U64))
def test_env_max_turns(value) -> None:
    make_env_rejects(rf"^max_turns must be an int 1\.\.{api.MAX_MAX_TURNS}, got ", max_turns=value)


@pytest.mark.parametrize(
    "name,value,pattern",
    [
        ("render_mode", "rgb", r"^render_mode must be one of 'human', 'ansi', 'rgb_array', got 'rgb'"),
        ("render_mode", 1, r"^render_mode must be one of"),
        ("render_mode", True, r"^render_mode must be one of"),
        ("render_mode", np.array(["ansi"]), r"^render_mode must be one of"),
        ("record_replay", 1, r"^record_replay must be True or False, got 1"),
        ("record_replay", "yes", r"^record_replay must be True or False"),
        ("record_replay", None, r"^record_replay must be True or False"),
        ("record_replay", np.array([True]), r"^record_replay must be True or False"),
        ("backend", "jax", r"^backend must be one of None, 'numba', 'numpy', got 'jax'"),
        ("backend", ["numba"], r"^backend must be one of None, 'numba', 'numpy'"),
        ("backend", np.array(["numba"]), r"^backend must be one of None, 'numba', 'numpy'"),
        ("backend", 0, r"^backend must be one of None, 'numba', 'numpy'"),
    ],
    ids=repr,
)
def test_env_constructor_choices(name, value, pattern) -> None:
    make_env_rejects(pattern, **{name: value})


def test_env_card_file(tmp_path: Path) -> None:
    for value in (3, 2.5, True, ["cards.toml"], b"x"):
        make_env_rejects(r"^card_file must be a path", CardDataError, card_file=value)
    make_env_rejects(re.escape(str(tmp_path / "none.toml")), FileNotFoundError, card_file=tmp_path / "none.toml")
    make_env_rejects(r"must be a file, not a folder", CardDataError, card_file=tmp_path)
    (tmp_path / "junk.toml").write_text("[[card]]\n")
    make_env_rejects(r"junk\.toml", CardDataError, card_file=tmp_path / "junk.toml")
    make_env_rejects(r"unexpected keyword argument 'num_player'", TypeError, num_player=3)  # Python's own


def test_env_constructor_valid_controls() -> None:
    for make in ENV_MAKERS.values():
        env = make(
            num_players=np.uint8(4),
            max_turns=np.int64(30),
            record_replay=np.True_,
            render_mode=np.str_("ansi"),
            backend=np.str_("numpy"),
            card_file=str(DEFAULT_CARD_FILE),
        )
        env.reset(seed=np.uint64(9))
        assert env.unwrapped.num_players == 4 and env.unwrapped.engine_state.backend == "numpy"
        assert isinstance(env.render(), str)


@FAST
@given(
    st.sampled_from(list(ENV_MAKERS)),
    not_ints.filter(lambda v: v is not None)
    | st.integers(max_value=-1)
    | st.integers(min_value=2**63)
    | st.just(HUGE_U64),
)
def test_env_reset_seed(kind, seed) -> None:
    env = dealt_env(kind)
    env_refused(env, lambda: env.reset(seed=seed), r"^seed must be an int 0\.\.2\*\*63-1 or None, got ")


@pytest.mark.parametrize("kind", list(ENV_MAKERS))
@pytest.mark.parametrize("options", [[1], "reset", 3, ("a", 1), np.zeros(1)], ids=repr)
def test_env_reset_options(kind, options) -> None:
    env = dealt_env(kind)
    env_refused(env, lambda: env.reset(options=options), r"^options must be a dict or None, got ")


bad_aec_actions = (not_ints | st.just(np.array([1])) | st.just(np.zeros((), np.float32))).filter(
    lambda v: v is not None and not (isinstance(v, np.ndarray) and v.shape == () and v.dtype.kind in "iu")
)


@FAST
@given(bad_aec_actions)
def test_raw_env_step_action_types(action) -> None:
    env = dealt_env("raw_env")
    env_refused(env, lambda: env.step(action), r"^player_\d: action must be an int action id 0\.\.43, got ")


@FAST
@given(
    st.sampled_from(
        [-1, 44, 99, 2**40, 2**63, 2**70, -(2**70), HUGE_U64, np.int8(-3), np.uint8(200), np.array(50, np.uint16)]
    )
)
def test_raw_env_step_out_of_range_names_the_value(action) -> None:
    env = dealt_env("raw_env")
    env_refused(
        env,
        lambda: env.step(action),
        rf"^player_\d: action {int(action)} \(not an action id\) is not legal for player \d in phase ",
        ValueError,
    )


def test_raw_env_step_illegal_and_none() -> None:
    env = dealt_env("raw_env")
    mask = env.unwrapped.engine_state.legal_action_mask[0]
    for a in np.flatnonzero(~mask)[:8]:
        env_refused(
            env,
            lambda a=a: env.step(int(a)),
            rf"^player_\d: action {a} \(.*\) is not legal .*legal actions: ",
            ValueError,
        )
    env_refused(env, lambda: env.step(None), r"^player_\d: action must be an int action id 0\.\.43, got None")


@FAST
@given(bad_aec_actions | st.sampled_from([-1, 44, 2**63, HUGE_U64, None]))
def test_env_step_outside_the_action_space_is_an_assertion(action) -> None:
    """env() keeps PettingZoo's AssertOutOfBoundsWrapper convention (an AssertionError, documented in
    aos_env.envs.aec), with a message that names the agent, the value and the range (issue 33)."""
    env = dealt_env("env")
    env_refused(
        env,
        lambda: env.step(action),
        r"^player_\d: action is not in the action space Discrete\(44\): .*0\.\.43",
        AssertionError,
    )


def test_before_reset() -> None:
    raw = aos_env.raw_env()
    for call in (
        lambda: raw.step(0),
        lambda: raw.observe("player_0"),
        lambda: raw.state(),
        lambda: raw.describe(0),
        lambda: raw.legal_actions(),
        lambda: raw.last(),
    ):
        env_refused(raw, call, r"^call reset\(\) before using the environment$", RuntimeError)
    wrapped = aos_env.env()
    env_refused(wrapped, lambda: wrapped.last(), r"^call reset\(\) before using the environment$", RuntimeError)
    for call, what in (
        (lambda: wrapped.step(0), "step"),
        (lambda: wrapped.observe("player_0"), "observe"),
        (lambda: wrapped.state(), "state"),
        (lambda: wrapped.render(), "render"),
    ):
        env_refused(wrapped, call, rf"reset\(\) needs to be called before {what}", AssertionError)


bad_agents = st.one_of(
    st.text(max_size=9).filter(lambda t: t not in ("player_0", "player_1", "player_2")),
    st.integers(-1, 3),
    st.none(),
    st.booleans(),
    st.floats(),
    st.sampled_from(
        [
            "player_3",
            "Player_0",
            " player_0",
            b"player_0",
            ["player_0"],
            ("player_0",),
            {"player_0": 1},
            np.array(["player_0"]),
            np.array("player_0"),
            {"player_0"},
            np.int64(0),
        ]
    ),
)


@FAST
@given(st.sampled_from(list(ENV_MAKERS)), st.sampled_from(["observe", "observation_space", "action_space"]), bad_agents)
def test_env_agent_arguments(kind, method, agent) -> None:
    env = dealt_env(kind)
    env_refused(env, lambda: getattr(env, method)(agent), r"^agent must be one of player_0, player_1, player_2, got ")


def test_env_agent_valid_controls() -> None:
    env = dealt_env("raw_env")
    a = np.str_(env.agent_selection)
    np.testing.assert_array_equal(env.observe(a)["action_mask"], env.observe(str(a))["action_mask"])
    assert env.observation_space(a) is env.observation_space(str(a)) and env.action_space(a).n == 44


@FAST
@given(st.sampled_from(list(ENV_MAKERS)), bad_aec_actions | st.sampled_from([-1, 44, 2**63, HUGE_U64, None]))
def test_env_describe(kind, action) -> None:
    env = dealt_env(kind)
    env_refused(env, lambda: env.unwrapped.describe(action), r"^describe: action must be an (int )?action id 0\.\.43, ")


@pytest.mark.parametrize("kind", list(ENV_MAKERS))
@pytest.mark.parametrize(
    "make,pattern",
    [
        (lambda: None, r"got NoneType$"),
        (lambda: 3, r"got int$"),
        (lambda: "state", r"got str$"),
        (lambda: core.init(2, 3), r"got 2 games of 3$"),
        (lambda: core.init(1, 2), r"got 1 games of 2$"),
        (lambda: core.init(1, 3).records, r"got ndarray$"),
    ],
)
def test_env_load_state(kind, make, pattern) -> None:
    env = dealt_env(kind)
    env_refused(
        env,
        lambda: env.unwrapped.load_state(make()),
        r"^state must be a core\.State of 1 game of 3 "
        r"players, " + pattern,
    )


@pytest.mark.parametrize(
    "players",
    [
        "abc",
        b"abc",
        3,
        [None, "a", "b"],
        ["a", "b"],
        ["a", "b", "c", "d"],
        ["a", "", "b"],
        ["a", 3, "b"],
        {"a", "b", "c"},
        {"a": 1, "b": 2, "c": 3},
        np.array([1, 2, 3]),
        ["a", "  ", "c"],
    ],
    ids=repr,
)
def test_env_replay_players(players) -> None:
    env = dealt_env("raw_env")
    pattern = r"^players must be a list of 3 names \(non-empty strings, one per seat\) or None, got "
    env_refused(env, lambda: env.replay(players), pattern)
    env_refused(env, lambda: env.save_replay("/tmp/aos_unused_replay.json", players), pattern)


def test_env_save_replay_path(tmp_path: Path) -> None:
    env = dealt_env("raw_env")
    (tmp_path / "file").write_text("")
    for path in (3, None, "", "  ", ["x.json"], tmp_path, tmp_path / "file" / "x.json"):
        env_refused(env, lambda path=path: env.save_replay(path), r"^path must be a ")
    assert not (tmp_path / "file").read_text() and not (tmp_path / "x.json").exists()


def test_env_replay_valid_controls(tmp_path: Path) -> None:
    env = dealt_env("raw_env")
    assert env.replay(("human", "greedy", "random")).players == ["human", "greedy", "random"]
    assert env.replay(np.array(["a", "b", "c"])).players == ["a", "b", "c"]
    path = env.save_replay(tmp_path / "new" / "r.json", [np.str_("x"), "y", "z"])
    assert path.is_file()
    assert env.replay().players == ["player_0", "player_1", "player_2"]
    env_refused(
        dealt_env("raw_env", record=False),
        lambda: dealt_env("raw_env", record=False).replay(),
        r"^this env keeps no replay: create it with record_replay=True$",
        RuntimeError,
    )


@pytest.mark.parametrize(
    "value", ["x", "nan", float("nan"), float("inf"), True, None, [1.0], np.float32("nan")], ids=repr
)
def test_classic_wrapper_illegal_reward(value) -> None:
    refused(
        None,
        lambda: ClassicWrapper(aos_env.raw_env(), illegal_reward=value),
        r"^illegal_reward must be a finite number, got ",
    )


@pytest.mark.parametrize("value", [None, "env", aos_env.env], ids=repr)
def test_classic_wrapper_env(value) -> None:
    refused(None, lambda: ClassicWrapper(value), r"^env must be an aos_env\.envs\.aec\.raw_env, got ")


# ---- the OpenSpiel adapter ---------------------------------------------------------------------------


def spiel_fingerprint(state) -> tuple:
    engine = state.engine_state
    return (
        str(state),
        list(state.history()),
        None if engine is None else engine.records.tobytes(),
        state._own_actions.tobytes(),
        list(state._returns),
        state.get_game()._deals,
        state.is_terminal(),
    )


def spiel_refused(state, call, pattern: str, error: type = ArgumentError) -> str:
    before = spiel_fingerprint(state)
    with pytest.raises(error, match=pattern) as e:
        call()
    assert spiel_fingerprint(state) == before, f"a refused call changed the OpenSpiel state: {e.value}"
    CASES["count"] += 1
    return str(e.value)


@functools.cache
def _spiel_states(backend: str) -> dict:
    game = pyspiel.load_game(aos_spiel.GAME_NAME, {"players": 3, "max_turns": 6, "rng_seed": 4})
    chance = game.new_initial_state()
    mid = game.new_initial_state()
    mid.apply_action(aos_spiel.DEAL)
    rng = np.random.default_rng(2)
    for _ in range(6):
        mid.apply_action(int(rng.choice(mid.legal_actions())))
    over = mid.clone()
    while not over.is_terminal():
        over.apply_action(int(rng.choice(over.legal_actions())))
    return {"chance": chance, "mid": mid, "over": over}


def spiel_state(kind: str):
    """A chance node, a position a few decisions into a game, and a finished game (clones of states made
    once per engine; core.init picks the engine from $AOS_BACKEND)."""
    return _spiel_states(core.default_backend())[kind].clone()


@pytest.mark.parametrize(
    "params,pattern",
    [
        ({"players": 5}, r"parameter 'players' must be 2\.\.4, got 5"),
        ({"players": 1}, r"parameter 'players' must be 2\.\.4"),
        ({"max_turns": 0}, r"parameter 'max_turns' must be 1\.\.\d+, got 0"),
        ({"max_turns": aos_spiel.MAX_MAX_TURNS + 1}, r"parameter 'max_turns' must be 1\.\.\d+, got "),
        ({"rng_seed": -1}, r"parameter 'rng_seed' must be 0\.\.2147483647, got -1"),
        ({"rng_seed": -(2**31)}, r"parameter 'rng_seed' must be 0\.\.2147483647"),
    ],
    ids=repr,
)
def test_load_game_parameter_ranges(params, pattern) -> None:
    """A negative rng_seed was accepted and failed only at the first deal, as a 'seed' nobody gave."""
    refused(None, lambda: pyspiel.load_game(aos_spiel.GAME_NAME, params), r"^python_age_of_summoners: " + pattern)


@pytest.mark.parametrize(
    "params,pattern",
    [
        ({"players": "3"}, r"parameter 'players' must be an int, got '3'"),
        ({"players": 3.0}, r"parameter 'players' must be an int, got 3\.0"),
        ({"players": True}, r"parameter 'players' must be an int, got True"),
        ({"max_turns": None}, r"parameter 'max_turns' must be an int, got None"),
        ({"rng_seed": np.float64(1)}, r"parameter 'rng_seed' must be an int"),
        ({"rng_seed": 2**40}, r"parameter 'rng_seed' must be 0\.\.2147483647, got 1099511627776"),
        ({"rng_seed": HUGE_U64}, r"parameter 'rng_seed' must be 0\.\.2147483647, got 18446744073709551615"),
        ({"seed": 1}, r"unknown parameter\(s\) \['seed'\]"),
        ([("players", 3)], r"params must be a dict of parameters or None, got \[\('players', 3\)\]"),
        (3, r"params must be a dict of parameters or None, got 3"),
        ("players=3", r"params must be a dict"),
    ],
    ids=repr,
)
def test_the_game_class_checks_its_parameters(params, pattern) -> None:
    """Without load_game (which checks names and types itself, as SpielErrors: OpenSpiel's convention)."""
    refused(None, lambda: aos_spiel.AgeOfSummonersGame(params), r"^python_age_of_summoners: " + pattern)


def test_load_game_types_are_openspiel_errors() -> None:
    for params, pattern in (
        ({"players": 2.5}, "Wrong type for parameter players"),
        ({"players": True}, "Wrong type for parameter players"),
        ({"player": 3}, "Unknown parameter 'player'"),
    ):
        refused(None, lambda params=params: pyspiel.load_game(aos_spiel.GAME_NAME, params), pattern, pyspiel.SpielError)


def test_load_game_valid_controls() -> None:
    game = aos_spiel.AgeOfSummonersGame({"players": np.int64(4), "max_turns": np.uint16(9), "rng_seed": np.int8(3)})
    assert (game.num_players(), game.max_turns, game.rng_seed) == (4, 9, 3)
    assert pyspiel.load_game(aos_spiel.GAME_NAME, {"rng_seed": 2**31 - 1}).rng_seed == 2**31 - 1


#: Not action ids: apply_action takes ints, numpy integers and 0-d integer arrays (as OpenSpiel's own games do).
bad_spiel_actions = not_ints.filter(
    lambda v: not (isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0 and np.issubdtype(v.dtype, np.integer))
)


@FAST
@given(st.sampled_from(["chance", "mid", "over"]), bad_spiel_actions)
def test_apply_action_types(kind, action) -> None:
    state = spiel_state(kind)
    spiel_refused(
        state,
        lambda: state.apply_action(action),
        r"^action must be an integer action id 0\.\.43 \(int or 0-d integer array\), got ",
    )


@FAST
@given(st.sampled_from([-1, -2, 44, 99, 2**40, 2**63, 2**64 - 1, -(2**70), HUGE_U64, np.int64(-1), np.uint8(44)]))
def test_apply_action_ids_out_of_range(action) -> None:
    a = int(action)
    mid = spiel_state("mid")
    spiel_refused(
        mid, lambda: mid.apply_action(action), rf"^illegal action: game 0: action {a} \(not an action id\) ", ValueError
    )
    chance = spiel_state("chance")
    spiel_refused(
        chance, lambda: chance.apply_action(action), rf"^the deal has one chance outcome, 0; got {a}$", ValueError
    )
    over = spiel_state("over")
    spiel_refused(over, lambda: over.apply_action(action), rf"^the game is over .*got {a}$", ValueError)


def test_apply_action_illegal_and_after_the_end() -> None:
    mid = spiel_state("mid")
    for a in sorted(set(range(core.NUM_ACTIONS)) - set(mid.legal_actions()))[:10]:
        spiel_refused(mid, lambda a=a: mid.apply_action(a), rf"^illegal action: game 0: action {a} ", ValueError)
        spiel_refused(
            mid, lambda a=a: mid.apply_action(np.int16(a)), rf"^illegal action: game 0: action {a} ", ValueError
        )
    chance = spiel_state("chance")
    for a in (1, 5, 43):
        spiel_refused(
            chance, lambda a=a: chance.apply_action(a), r"^the deal has one chance outcome, 0; got ", ValueError
        )
    over = spiel_state("over")
    for a in range(0, core.NUM_ACTIONS, 4):  # core.step ignores actions for finished games: the state refuses them
        spiel_refused(over, lambda a=a: over.apply_action(a), r"^the game is over \(a terminal state\)", ValueError)
    mid.apply_action(np.uint8(mid.legal_actions()[0]))  # a valid control


@FAST
@given(
    st.sampled_from(["chance", "mid", "over"]),
    not_ints | st.integers(max_value=-1) | st.integers(min_value=3) | st.just(HUGE_U64),
)
def test_resample_from_infostate_player(kind, player) -> None:
    state = spiel_state(kind)
    sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
    spiel_refused(
        state, lambda: state.resample_from_infostate(player, sampler), r"^player must be an int in 0\.\.2, got "
    )


@pytest.mark.parametrize(
    "sampler,pattern",
    [
        (0.5, r"^probability_sampler must be a callable"),
        (None, r"^probability_sampler must be a callable"),
        (lambda: 1.5, r"^probability_sampler must return floats in \[0, 1\), got 1\.5"),
        (lambda: "x", r"^probability_sampler must return floats"),
        (lambda: float("nan"), r"must return floats"),
    ],
)
def test_resample_from_infostate_sampler(sampler, pattern) -> None:
    state = spiel_state("mid")
    spiel_refused(state, lambda: state.resample_from_infostate(0, sampler), pattern, ValueError)


@pytest.mark.parametrize("player", [-1, 3, 1.0, True, None, "0", HUGE_U64], ids=repr)
def test_spiel_observations_player(player) -> None:
    state = spiel_state("mid")
    spiel_refused(state, lambda: state.observation(player), r"^player must be an int in 0\.\.2, got ", ValueError)
    spiel_refused(state, lambda: state.own_action_counts(player), r"^player must be an int in 0\.\.2, got ", ValueError)


def test_make_py_observer_arguments() -> None:
    game = pyspiel.load_game(aos_spiel.GAME_NAME)
    refused(None, lambda: game.make_py_observer("x"), r"^iig_obs_type must be a pyspiel\.IIGObservationType or None")
    refused(None, lambda: game.make_py_observer(None, {"a": 1}), r"observers take no parameters", ValueError)


# ---- aos_env.tools.determinise -------------------------------------------------------------------------


def _rng_state(rng: np.random.Generator) -> str:
    return repr(rng.bit_generator.state)


@FAST
@given(bad_players)
def test_determinise_viewer(viewer) -> None:
    state, rng = played(), np.random.default_rng(0)
    before = _rng_state(rng)
    refused(state, lambda: determinise(state, viewer, rng), r"^viewer must ")
    assert _rng_state(rng) == before


@pytest.mark.parametrize(
    "rng", [None, 3, np.random.RandomState(0), "rng", np.random.default_rng, np.random.PCG64(0)], ids=repr
)
def test_determinise_and_fresh_streams_rng(rng) -> None:
    state = played()
    pattern = r"^rng must be a numpy\.random\.Generator \(e\.g\. np\.random\.default_rng\(seed\)\), got "
    refused(state, lambda: determinise(state, state.current_player, rng), pattern)
    refused(state, lambda: fresh_streams(state, rng), pattern)


@pytest.mark.parametrize("value", NOT_STATES, ids=lambda v: type(v).__name__)
def test_determinise_and_fresh_streams_state(value) -> None:
    rng = np.random.default_rng(0)
    before = _rng_state(rng)
    refused(None, lambda: determinise(value, np.zeros(B, np.int64), rng), r"^state must be a core\.State", TypeError)
    refused(None, lambda: fresh_streams(value, rng), r"^state must be a core\.State", TypeError)
    assert _rng_state(rng) == before


def test_determinise_valid_controls() -> None:
    a, b = played(), played()
    determinise(a, np.full(B, 1, np.uint8), np.random.default_rng(5))
    determinise(b, np.int64(1), np.random.default_rng(5))  # one seat for every game
    assert same_games(a, b)
    c = played()
    determinise(c, np.full(2 * B, 1)[::2], np.random.default_rng(5))  # not contiguous
    assert same_games(a, c)
