"""Bad input (issue 14) for the learner envs: LearnerEnv, the Gymnasium envs, the opponent pool and
the SB3 adapter.

Every case raises an error whose message names the argument (and what is allowed), and leaves the
env exactly as it was: every State field, the games' random streams, the env's own random stream
and bookkeeping, the pool. Numpy scalars are valid controls. A step is atomic: an opponent that
returns an illegal action (or raises) leaves the env as it was before the step.
"""

from __future__ import annotations

import copy
import functools
import re

import numpy as np
import pytest
from bad_values import ints, non_finite, not_ints, not_numbers
from gymnasium.error import ResetNeeded
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import RandomAgent
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.core.state import FIELD_NAMES
from aos_env.envs.gym import AgeOfSummonersEnv, AgeOfSummonersVectorEnv
from aos_env.envs.learner import LearnerEnv
from aos_env.envs.opponents import OpponentError, OpponentPool

FAST = settings(max_examples=40, deadline=None)
N = 4  # games of the vector envs here


def fingerprint(learner: LearnerEnv) -> dict:
    """Everything a call may change: the State's fields, the env's stream and bookkeeping, the pool."""
    out = {f"state.{f}": getattr(learner.state, f).copy() for f in FIELD_NAMES} if learner.state else {}
    out.update({k: getattr(learner, k).copy() for k in learner._BOOKKEEPING})
    out["rng"] = None if learner.rng is None else learner.rng.bit_generator.state
    out["next_seed"], out["reserve"], out["used"] = learner._next_seed, id(learner._reserve), learner._reserve_used
    pool = learner.opponents
    out["pool"] = (list(pool._names), [id(a) for a in pool._agents], pool._weights.copy(), pool.rng_states())
    return out


def assert_same(before: dict, learner: LearnerEnv) -> None:
    after = fingerprint(learner)
    assert before.keys() == after.keys()
    for k in before:
        a, b = before[k], after[k]
        if k == "pool":
            assert a[:2] == b[:2] and np.array_equal(a[2], b[2]) and a[3] == b[3], k
        elif isinstance(a, np.ndarray):
            assert np.array_equal(a, b), k
        else:
            assert a == b, k


def raises_unchanged(learner: LearnerEnv, call, pattern: str, error=ArgumentError) -> str:
    """``call()`` raises ``error`` matching ``pattern`` and changes nothing; returns the message."""
    before = fingerprint(learner)
    with pytest.raises(error, match=pattern) as e:
        call()
    assert_same(before, learner)
    return str(e.value)


@functools.cache
def _dealt(kind: str, backend: str):
    if kind == "single":
        env = AgeOfSummonersEnv(opponents="greedy@1 random@1", illegal_action="raise")
    elif kind == "vector":
        env = AgeOfSummonersVectorEnv(num_envs=N, opponents="greedy@1 random@1", illegal_action="raise")
    else:
        from aos_env.integrations.sb3 import LearnerVecEnv

        env = LearnerVecEnv(num_envs=N, opponents="greedy@1 random@1", seed=0)
        env.reset()
        return env
    env.reset(seed=0)
    return env


def dealt(kind: str):
    """An env of each kind, dealt once per engine (failed calls leave it as it was, so it is shared)."""
    return _dealt(kind, core.default_backend())


def learner_of(env) -> LearnerEnv:
    return env.venv.learner if hasattr(env, "venv") else env.learner


# ---- constructors ---------------------------------------------------------------------------------

CONSTRUCTORS = {
    "learner": lambda **kw: LearnerEnv(**kw),
    "single": lambda **kw: AgeOfSummonersEnv(**kw),
    "vector": lambda **kw: AgeOfSummonersVectorEnv(**kw),
}


def rejects(kinds, pattern: str, **kwargs) -> None:
    for kind in kinds:
        with pytest.raises(ArgumentError, match=pattern):
            CONSTRUCTORS[kind](**kwargs)


@FAST
@given(not_ints | st.integers(max_value=0))
def test_num_envs(value) -> None:
    rejects(["learner", "vector"], r"^num_envs must be an int >= 1, got ", num_envs=value)


def test_num_envs_within_memory() -> None:
    rejects(["learner", "vector"], r"^num_envs=1000000000 would need about .* use num_envs <= ", num_envs=10**9)


@FAST
@given(not_ints | st.integers(max_value=1) | st.integers(min_value=5))
def test_num_players(value) -> None:
    rejects(CONSTRUCTORS, r"^num_players must be an int 2\.\.4, got ", num_players=value)


@FAST
@given(not_ints | st.integers(max_value=0))
def test_max_turns(value) -> None:
    rejects(CONSTRUCTORS, r"^max_turns must be an int >= 1, got ", max_turns=value)


@pytest.mark.parametrize("players,turns", [(2, 1), (3, 2), (4, 3)])
def test_max_turns_gives_every_seat_a_turn(players: int, turns: int) -> None:
    rejects(
        CONSTRUCTORS,
        rf"^max_turns must be an int >= {players} \(num_players: every seat",
        num_players=players,
        max_turns=turns,
    )


@FAST
@given(not_numbers | non_finite | st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False))
def test_shaping(value) -> None:
    rejects(CONSTRUCTORS, r"^shaping must be a finite number >= 0, got ", shaping=value)


@FAST
@given(not_numbers | non_finite)
def test_illegal_reward(value) -> None:
    rejects(CONSTRUCTORS, r"^illegal_reward must be a finite number, got ", illegal_reward=value)


@pytest.mark.parametrize("value", [0, 1, "True", None, "yes", np.array(True)])
def test_mask_in_obs(value) -> None:
    rejects(["single", "vector"], r"^mask_in_obs must be True or False, got ", mask_in_obs=value)


@pytest.mark.parametrize(
    "name,value,pattern",
    [
        (
            "autoreset_mode",
            "next_step",
            r"^autoreset_mode must be a gymnasium.vector.AutoresetMode or one of 'NextStep'",
        ),
        ("autoreset_mode", 0, r"^autoreset_mode must be"),
        ("illegal_action", "ignore", r"^illegal_action must be one of 'terminate', 'raise', got 'ignore'"),
        ("illegal_action", True, r"^illegal_action must be one of"),
        ("backend", "jax", r"^backend must be one of None, 'numba', 'numpy', got 'jax'"),
        ("render_mode", "video", r"^render_mode must be one of None, "),
        ("seed", -1, r"^seed must be an int 0\.\.2\*\*63-1 or None, got -1"),
        ("seed", 1.5, r"^seed must be an int"),
        ("seed", True, r"^seed must be an int"),
    ],
)
def test_choices_and_seeds(name, value, pattern) -> None:
    kinds = {"autoreset_mode": ["learner", "vector"], "seed": ["learner"], "render_mode": ["single", "vector"]}
    rejects(kinds.get(name, CONSTRUCTORS), pattern, **{name: value})


@pytest.mark.parametrize(
    "opponents,pattern",
    [
        ("nobody", r"unknown agent 'nobody'"),
        ("gredy", r"did you mean 'greedy'"),
        ("greedy@-1", r"^opponents 'greedy@-1': weight must be a finite number >= 0, got -1.0 \(use spec@weight"),
        (["random", "@2"], r"^opponents must be spec@weight \(e.g. greedy@0.5\), got '@2'"),
        (["random", 3], r"^opponents must be spec@weight strings such as 'greedy@0.5', got 3"),
        ("greedy@nan", r"weight must be a finite number >= 0"),
        ("greedy@x", r"weight must be a finite number >= 0, got 'x'"),
        ("greedy@0 random@0", r"^opponents must have at least one opponent of weight > 0, got greedy@0 random@0"),
        ("greedy greedy", r"^opponents: 'greedy' is given twice"),
        ("self", r"^opponents: 'self' .* is train.py's"),
        ("", r"^opponents must be agent specs"),
        ([], r"^opponents must be agent specs"),
        ({}, r"^opponents must be agent specs"),
        (3, r"^opponents must be agent specs"),
        ({"greedy": -1}, r"^opponents\['greedy'\] must be a finite number >= 0, got -1"),
        ({"greedy": "1"}, r"^opponents\['greedy'\] must be a finite number"),
        ({"x": (3, 1.0)}, r"^agent must be an agent with act"),
        ({"x": (RandomAgent(), -1.0)}, r"^weight must be a finite number >= 0, got -1.0"),
        ({"x": (RandomAgent(),)}, r"^opponents\['x'\] must be an \(agent, weight\) pair"),
    ],
)
def test_opponents(opponents, pattern) -> None:
    rejects(CONSTRUCTORS, pattern, opponents=opponents)


def test_valid_controls_numpy_scalars() -> None:
    env = LearnerEnv(
        num_envs=np.int16(3),
        num_players=np.uint8(3),
        max_turns=np.int64(9),
        shaping=np.float32(0.5),
        illegal_reward=np.int8(-2),
        seed=np.uint32(4),
        opponents={"greedy": np.float64(0.5)},
    )
    assert (env.num_envs, env.num_players, env.max_turns, env.shaping, env.illegal_reward) == (3, 3, 9, 0.5, -2.0)
    assert type(env.num_envs) is int and type(env.shaping) is float
    obs = env.reset()
    assert obs.shape == (3, core.OBS_DIM)


@FAST
@given(ints(2, 4), ints(1, 1000))
def test_valid_ints_are_python_or_numpy_ints(players, games) -> None:
    env = AgeOfSummonersVectorEnv(num_envs=games, num_players=players, max_turns=ints_max_turns(players))
    assert (env.num_envs, env.num_players) == (int(games), int(players)) and type(env.num_envs) is int


def ints_max_turns(players) -> np.uint8:
    return np.uint8(int(players) + 1)


# ---- reset --------------------------------------------------------------------------------------------


@FAST
@given(
    st.sampled_from(["single", "vector"]),
    not_ints.filter(lambda v: v is not None) | st.sampled_from([-1, 2**63, -(2**70)]),
)
def test_reset_seed(kind, seed) -> None:
    env = dealt(kind)
    raises_unchanged(env.learner, lambda: env.reset(seed=seed), r"^seed must be an int 0\.\.2\*\*63-1 or None, got ")


@pytest.mark.parametrize(
    "kind,options,pattern",
    [
        ("single", {"reset_mask": np.ones(1, bool)}, r"^options: unknown key 'reset_mask'; it takes no keys"),
        ("single", [1], r"^options must be None or a dict"),
        ("vector", {"mask": 1}, r"^options: unknown key 'mask'; its keys are 'reset_mask'"),
        (
            "vector",
            {"reset_mask": np.ones(N - 1, bool)},
            r"^options\['reset_mask'\] must be a bool array of shape \(4,\)",
        ),
        ("vector", {"reset_mask": [True] * N}, r"^options\['reset_mask'\] must be a bool array"),
        ("vector", {"reset_mask": np.ones(N, int)}, r"^options\['reset_mask'\] must be a bool array"),
        ("vector", "reset", r"^options must be None or a dict"),
    ],
)
def test_reset_options(kind, options, pattern) -> None:
    env = dealt(kind)
    raises_unchanged(env.learner, lambda: env.reset(options=options), pattern)


@pytest.mark.parametrize("games", [[], [0, 0], [-1], [N], np.ones(N - 1, bool), [0.5], "0", 3])
def test_learner_reset_games(games) -> None:
    env = dealt("vector")
    raises_unchanged(env.learner, lambda: env.learner.reset(games=games), r"^games must be a bool mask of shape \(4,\)")


def test_before_reset() -> None:
    for env in (AgeOfSummonersEnv(), AgeOfSummonersVectorEnv(num_envs=2), LearnerEnv(num_envs=2)):
        with pytest.raises(ResetNeeded, match=r"before reset\(\)"):
            env.step(np.zeros(2, np.int64) if not isinstance(env, AgeOfSummonersEnv) else 0)
        with pytest.raises(ResetNeeded, match=r"before reset\(\)"):
            env.action_masks()
    with pytest.raises(ResetNeeded, match=r"call reset\(\) without games"):
        LearnerEnv(num_envs=2).reset(games=[0])


# ---- step ---------------------------------------------------------------------------------------------

bad_action_scalars = (not_ints | st.sampled_from([-1, 44, 2**63, np.int64(-5), np.uint8(200)])).filter(
    lambda v: not (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iu" and 0 <= v < 44)
)


@FAST
@given(bad_action_scalars)
def test_single_step_action(action) -> None:
    env = dealt("single")
    raises_unchanged(env.learner, lambda: env.step(action), r"^action must be an int 0\.\.43 \(an action id\), got ")


@FAST
@given(
    st.one_of(
        not_numbers.filter(lambda v: not isinstance(v, (list, tuple)) or len(v) != N),
        st.lists(st.integers(0, 43), min_size=0, max_size=N - 1),
        st.lists(st.integers(0, 43), min_size=N + 1, max_size=N + 3),
        st.lists(st.floats(allow_nan=True), min_size=N, max_size=N),
        st.lists(st.booleans(), min_size=N, max_size=N),
        st.lists(st.text(max_size=2), min_size=N, max_size=N),
        st.just(np.zeros((N, 1), np.int64)),
        st.just(np.zeros(N, np.float64)),
        st.just(np.full(N, np.nan)),
        st.just(np.zeros(N, bool)),
        st.just(np.array(["1"] * N)),
        st.just(np.zeros(N, object)),
    )
)
def test_vector_step_actions_of_the_wrong_type_or_shape(actions) -> None:
    for kind in ("vector", "sb3"):
        env = dealt(kind)
        call = (lambda env=env: env.step_async(actions)) if kind == "sb3" else (lambda env=env: env.step(actions))
        raises_unchanged(learner_of(env), call, r"^actions must be an integer array of shape \(4,\) with action ids")


@FAST
@given(st.integers(0, N - 1), st.sampled_from([-1, 44, 100, -(2**40)]))
def test_vector_step_action_ids_out_of_range(game, value) -> None:
    env = dealt("vector")
    actions = legal_now(env)
    actions[game] = value
    msg = raises_unchanged(env.learner, lambda: env.step(actions), r"^actions must be action ids 0\.\.43, got ")
    assert f"for game {game}" in msg


def legal_now(env) -> np.ndarray:
    masks = np.atleast_2d(env.action_masks())
    return np.array([np.flatnonzero(m)[0] for m in masks], dtype=np.int64)


def test_illegal_actions_with_illegal_action_raise() -> None:
    for kind in ("single", "vector", "sb3"):
        env = dealt(kind)
        learner = learner_of(env)
        masks = np.atleast_2d(env.action_masks())
        actions = legal_now(env)
        actions[-1] = np.flatnonzero(~masks[-1])[0]
        call = {
            "single": lambda env=env, actions=actions: env.step(int(actions[0])),
            "vector": lambda env=env, actions=actions: env.step(actions),
            "sb3": lambda env=env, actions=actions: env.step_async(actions),
        }[kind]
        where = r"(action_masks\(\)|info\['action_mask'\])"
        msg = raises_unchanged(learner, call, rf"^actions? must be legal \(see {where}\): game ")
        assert "is not legal for player" in msg and "legal actions:" in msg


def test_valid_controls_numpy_actions() -> None:
    env = AgeOfSummonersEnv(opponents="random", illegal_action="raise")
    _, info = env.reset(seed=1)
    for dtype in (np.int8, np.uint16, np.int64):
        # a numpy scalar; the 0-d array SB3's predict gives
        for wrap in (dtype, lambda a, dtype=dtype: np.array(dtype(a))):
            obs, r, term, trunc, info = env.step(wrap(np.flatnonzero(info["action_mask"])[0]))
            if term or trunc:
                _, info = env.reset()
    envs = AgeOfSummonersVectorEnv(num_envs=3, illegal_action="raise")
    envs.reset(seed=0)
    for dtype in (np.int8, np.uint8, np.int32, np.uint64):
        envs.step(legal_now(envs).astype(dtype))
    envs.step(legal_now(envs).tolist())  # a list of Python ints


# ---- the opponent pool ---------------------------------------------------------------------------------


def pool() -> OpponentPool:
    return OpponentPool({"random": (RandomAgent(seed=1), 1.0), "other": (RandomAgent(seed=2), 0.0)})


def pool_state(p: OpponentPool) -> tuple:
    return list(p._names), list(p._agents), p._weights.copy().tolist()


@FAST
@given(st.one_of(not_numbers.filter(lambda v: not isinstance(v, str)), st.sampled_from(["", "   "])))
def test_pool_add_name(name) -> None:
    p = pool()
    before = pool_state(p)
    with pytest.raises(ArgumentError, match=r"^name must be a non-empty string, got "):
        p.add(name, RandomAgent(), 1.0)
    assert pool_state(p) == before


@FAST
@given(not_numbers | non_finite | st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False))
def test_pool_weights(weight) -> None:
    p = pool()
    before = pool_state(p)
    with pytest.raises(ArgumentError, match=r"^weight must be a finite number >= 0, got "):
        p.add("new", RandomAgent(), weight)
    with pytest.raises(ArgumentError, match=r"^weight must be a finite number >= 0, got "):
        p.set_weight("random", weight)
    assert pool_state(p) == before


@pytest.mark.parametrize("agent", [None, "greedy", 3, RandomAgent])
def test_pool_add_agent(agent) -> None:
    p = pool()
    before = pool_state(p)
    with pytest.raises(ArgumentError, match=r"^agent must be an agent with act\(obs, mask, state\)"):
        p.add("new", agent)
    assert pool_state(p) == before


def test_pool_remove_and_the_last_weight() -> None:
    p = pool()
    before = pool_state(p)
    with pytest.raises(ArgumentError, match=r"^name must be one of 'random', 'other', got 'nobody'"):
        p.remove("nobody")
    with pytest.raises(ArgumentError, match=r"^name must be one of"):
        p.set_weight(3, 1.0)
    with pytest.raises(ArgumentError, match=r"^name: removing 'random' would leave no opponent of weight > 0"):
        p.remove("random")
    with pytest.raises(ArgumentError, match=r"^weight: 'random' is the only opponent of weight > 0"):
        p.set_weight("random", 0)
    with pytest.raises(ArgumentError, match=r"^weight: replacing 'random' with weight 0 would leave no opponent"):
        p.add("random", RandomAgent(), 0)
    assert pool_state(p) == before
    p.set_weight(np.str_("other"), np.float32(2.0))  # valid controls
    p.remove("random")
    assert p.weights() == {"other": 2.0}


def test_removed_opponents_keep_their_games() -> None:
    env = LearnerEnv(num_envs=8, opponents={"a": (RandomAgent(seed=1), 1.0)}, max_turns=6, seed=0)
    env.reset()
    env.opponents.add("b", RandomAgent(seed=2), 1.0)
    env.opponents.remove("a")
    assert (env.lineup >= 0).sum() and env.opponents.slot_agent(0) is not None  # still playing
    rng = np.random.default_rng(0)
    for _ in range(200):
        env.step((rng.random((8, 44)) * env.action_masks()).argmax(1))
    assert not (env.lineup == 0).any() and env.opponents.slot_agent(0) is None  # forgotten once its games ended
    assert env.opponents.names == ["b"]


# ---- atomic steps ----------------------------------------------------------------------------------------


class Flaky(RandomAgent):
    """Random legal play until told to misbehave: an illegal action, a wrong shape, or an exception."""

    name = "flaky"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.mode = "ok"

    def act_batch(self, obs, mask, state=None):
        actions = super().act_batch(obs, mask, state)
        if self.mode == "illegal":
            actions[0] = np.flatnonzero(~mask[0])[0]
        elif self.mode == "shape":
            return actions[:-1]
        elif self.mode == "floats":
            return actions.astype(float)
        elif self.mode == "raise":
            raise KeyError("boom")
        return actions


@pytest.mark.parametrize(
    "mode,pattern",
    [
        (
            "illegal",
            r"^opponent 'flaky' \(Flaky\(seed=0\)\) chose an illegal action: game \d+: action \d+ .* is not legal",
        ),
        ("shape", r"^opponent 'flaky' \(Flaky\(seed=0\)\) must return \d+ action ids"),
        ("floats", r"^opponent 'flaky' .* must return \d+ action ids"),
        ("raise", r"^opponent 'flaky' \(Flaky\(seed=0\)\) raised KeyError: 'boom'"),
    ],
)
@pytest.mark.parametrize("autoreset", ["SameStep", "NextStep"])
def test_an_opponent_error_leaves_the_env_as_before_the_step(mode, pattern, autoreset) -> None:
    flaky = Flaky()
    env = LearnerEnv(
        num_envs=6,
        num_players=3,
        opponents={"flaky": (flaky, 1.0)},
        seed=0,
        max_turns=9,
        autoreset_mode=autoreset,
        shaping=0.1,
    )
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):  # until a step in which the opponent acts
        actions = (rng.random((6, 44)) * env.action_masks()).argmax(1)
        twin = copy.deepcopy(env)  # what the step should do, from here
        before = fingerprint(env)
        flaky.mode = mode
        try:
            env.step(actions)
        except OpponentError as e:
            assert re.search(pattern, str(e)) and "the env is as it was before the step" in str(e), str(e)
            break
        finally:
            flaky.mode = "ok"
    else:
        raise AssertionError("the opponent never acted")
    assert_same(before, env)
    twin.opponents.slot_agent(0).mode = "ok"
    for _ in range(20):  # the same step, again, plays exactly as an env that never failed
        got, want = env.step(actions), twin.step(actions)
        for x, y in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(x, y)
        actions = (rng.random((6, 44)) * env.action_masks()).argmax(1)


# ---- the SB3 adapter -------------------------------------------------------------------------------------


def test_sb3_adapter_construction() -> None:
    from aos_env.integrations.sb3 import LearnerVecEnv

    with pytest.raises(ArgumentError, match=r"^env must be an aos_env.envs.gym.AgeOfSummonersVectorEnv"):
        LearnerVecEnv("x")
    with pytest.raises(ArgumentError, match=r"^env must reset finished games in the same step"):
        LearnerVecEnv(AgeOfSummonersVectorEnv(num_envs=2))
    with pytest.raises(ArgumentError, match=r"^give either env or the arguments to make one, not both"):
        LearnerVecEnv(AgeOfSummonersVectorEnv(num_envs=2, autoreset_mode="SameStep"), num_envs=3)
    with pytest.raises(ArgumentError, match=r"^num_envs must be an int >= 1, got 0"):
        LearnerVecEnv(num_envs=0)
    with pytest.raises(ArgumentError, match=r"^seed must be an int 0\.\.2\*\*63-1 or None, got -1"):
        LearnerVecEnv(num_envs=2, seed=-1)


@FAST
@given(
    st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=N),
        st.lists(st.integers(N, 99), min_size=1),
        st.sampled_from([True, 1.0, "0", [0.5], np.zeros((1, 1), int), {0: 1}, [True]]),
    )
)
def test_sb3_indices(indices) -> None:
    env = dealt("sb3")
    learner = learner_of(env)
    for call in (
        lambda: env.env_method("action_masks", indices=indices),
        lambda: env.get_attr("num_players", indices=indices),
        lambda: env.env_is_wrapped(object, indices=indices),
    ):
        raises_unchanged(learner, call, r"^indices must be ")


def test_sb3_attributes_methods_and_seed() -> None:
    env = dealt("sb3")
    learner = learner_of(env)
    assert env.get_attr("num_players", indices=np.int64(1)) == [2]
    assert len(env.env_method("action_masks", indices=[0, np.int8(3)])) == 2
    raises_unchanged(
        learner, lambda: env.get_attr("nothing_here"), r"^attr_name: the env has no attribute", error=AttributeError
    )
    raises_unchanged(
        learner, lambda: env.env_method("nothing_here"), r"^method_name: the env has no method", error=AttributeError
    )
    raises_unchanged(learner, lambda: env.set_attr("x", 1, indices=[0]), r"^indices: the games share one env")
    raises_unchanged(learner, lambda: env.get_attr(3), r"^attr_name must be a non-empty string")
    for seed in (-1, 1.5, True, "3", 2**63):
        raises_unchanged(
            learner, lambda seed=seed: env.seed(seed), r"^seed must be an int 0\.\.2\*\*63-1 or None, got "
        )
    with pytest.raises(ArgumentError, match=re.escape("step_wait() needs actions")):
        env.step_wait()
