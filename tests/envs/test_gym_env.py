"""The Gymnasium envs (issue 13): make / make_vec, the checkers, spaces, the mask convention, the
autoreset modes, seeding, illegal actions, copies, Gymnasium's vector wrappers and MaskablePPO."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode
from helpers import doc_code

import aos_env
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.envs.gym import MASK_KEY, OBS_KEY, AgeOfSummonersEnv, AgeOfSummonersVectorEnv, IllegalActionWarning

ID = "aos_env/AgeOfSummoners-v1"
RESULT_KEYS = {"outcome", "length", "win", "score", "margin", "seat", "illegal_action"}


def legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row of (N, 44) masks."""
    return (rng.random(masks.shape) * masks).argmax(1)


def play_until_an_end(envs, rng, steps: int = 400):
    """Step with random legal actions until some game ends; returns (masks before, the step's results)."""
    for _ in range(steps):
        masks = envs.unwrapped.action_masks()
        result = envs.step(legal_actions(masks, rng))
        if (result[2] | result[3]).any():
            return masks, result
    raise AssertionError("no game ended")


# ---- registration and the checkers -----------------------------------------------------------------


def test_make_and_make_vec() -> None:
    assert aos_env.GYM_ENV_ID == ID and ID in gymnasium.registry
    spec = gymnasium.spec(ID)
    assert spec.entry_point == "aos_env.envs.gym:AgeOfSummonersEnv"
    assert spec.vector_entry_point == "aos_env.envs.gym:AgeOfSummonersVectorEnv"
    env = gymnasium.make(ID, num_players=3, opponents="greedy")
    assert isinstance(env.unwrapped, AgeOfSummonersEnv) and env.unwrapped.num_players == 3
    assert env.unwrapped.opponents.weights() == {"greedy": 1.0}
    envs = gymnasium.make_vec(ID, num_envs=1024, vectorization_mode="vector_entry_point")
    assert isinstance(envs, AgeOfSummonersVectorEnv) and envs.num_envs == 1024
    assert envs.learner.state is None  # nothing dealt before reset
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (1024, core.OBS_DIM) and obs.dtype == np.float32
    assert envs.learner.state.batch_size == 1024  # one engine state, not 1024 envs
    default = gymnasium.make_vec(ID, num_envs=2)  # the vector entry point is the default mode
    assert isinstance(default, AgeOfSummonersVectorEnv)


@pytest.mark.one_backend
def test_sync_vectorization_of_the_single_env_works_too() -> None:
    envs = gymnasium.make_vec(ID, num_envs=2, vectorization_mode="sync", opponents="random")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (2, core.OBS_DIM) and info["action_mask"].shape == (2, 44)
    obs, *_ = envs.step(np.array([np.flatnonzero(m)[0] for m in info["action_mask"]]))
    assert obs.shape == (2, core.OBS_DIM)


@pytest.mark.one_backend
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_gymnasium_check_env(mask_in_obs: bool) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(
        ID, num_players=2, opponents="greedy@0.5 random@0.5", mask_in_obs=mask_in_obs, render_mode="ansi"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # steps with random actions of the space: an illegal one ends the game
    # the one warning: the checker's random action was illegal (the bounds are finite: no warning of infinity)
    assert all(issubclass(w.category, IllegalActionWarning) for w in caught), [str(w.message) for w in caught]


@pytest.mark.one_backend
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_sb3_check_env(mask_in_obs: bool) -> None:
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(AgeOfSummonersEnv(num_players=3, opponents="greedy", mask_in_obs=mask_in_obs), warn=True)
    # at most the one warning of the checker's random, illegal action
    assert all(issubclass(w.category, IllegalActionWarning) for w in caught), [str(w.message) for w in caught]


def test_spaces() -> None:
    env = AgeOfSummonersEnv(num_players=4)
    assert env.action_space == gymnasium.spaces.Discrete(44)
    assert env.observation_space.shape == (core.OBS_DIM,) and env.observation_space.dtype == np.float32
    obs, info = env.reset(seed=2)
    assert env.observation_space.contains(obs)
    d = AgeOfSummonersEnv(mask_in_obs=True)
    assert set(d.observation_space.spaces) == {OBS_KEY, MASK_KEY}
    envs = AgeOfSummonersVectorEnv(num_envs=5, mask_in_obs=True)
    assert envs.single_observation_space == d.observation_space
    assert envs.single_action_space == gymnasium.spaces.Discrete(44)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([44] * 5)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)


# ---- the mask ------------------------------------------------------------------------------------------


def test_mask_in_info_and_from_action_masks() -> None:
    env = AgeOfSummonersEnv(num_players=2, opponents="greedy")
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (44,) and mask.sum() >= 2
        np.testing.assert_array_equal(mask.astype(bool), env.action_masks())
        np.testing.assert_array_equal(env.action_masks(), env.learner.state.legal_action_mask[0])
        action = env.action_space.sample(mask)  # Gymnasium's Discrete samples from an int8 mask
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info.get("illegal_action", False)
        if terminated or truncated:
            obs, info = env.reset()
    del rng


def test_mask_in_the_dict_observation() -> None:
    env = AgeOfSummonersEnv(mask_in_obs=True)
    obs, info = env.reset(seed=1)
    np.testing.assert_array_equal(obs[MASK_KEY], info["action_mask"])
    np.testing.assert_array_equal(obs[OBS_KEY], core.observe(env.learner.state, env.learner.seat)[0])
    envs = AgeOfSummonersVectorEnv(num_envs=8, mask_in_obs=True, max_turns=4, autoreset_mode="SameStep")
    obs, info = envs.reset(seed=1)
    np.testing.assert_array_equal(obs[MASK_KEY], envs.action_masks().astype(np.int8))
    _, (obs, _, term, trunc, info) = play_until_an_end(envs, np.random.default_rng(0))
    for g in np.flatnonzero(term | trunc):
        final = info["final_obs"][g]
        assert set(final) == {OBS_KEY, MASK_KEY} and not final[MASK_KEY].any()


# ---- autoreset ---------------------------------------------------------------------------------------


def test_next_step_autoreset() -> None:
    envs = gymnasium.make_vec(ID, num_envs=16, opponents="greedy", max_turns=6)
    envs.reset(seed=3)
    rng = np.random.default_rng(3)
    masks, (obs, rewards, term, trunc, info) = play_until_an_end(envs, rng)
    done = term | trunc
    learner = envs.unwrapped.learner
    # the step returns the final observation of each finished game, and its results in info
    np.testing.assert_array_equal(obs[done], core.observe(learner.state, learner.seat)[done])
    assert (learner.state.terminated | learner.state.truncated)[done].all()
    for key in RESULT_KEYS:
        np.testing.assert_array_equal(info[f"_{key}"], done)
    np.testing.assert_array_equal(rewards[done], info["outcome"][done])  # no shaping
    assert (info["length"][done] >= 1).all()
    assert trunc[done].all() or term[done].any()  # max_turns=6: truncated games (R7.5) have outcome 0
    assert (info["outcome"][trunc] == 0).all()
    # a finished game allows every action: the next step ignores it and deals a new game
    after = envs.unwrapped.action_masks()
    assert after[done].all()
    actions = legal_actions(after, rng)
    actions[done] = 43
    obs2, rewards2, term2, trunc2, info2 = envs.step(actions)
    assert (rewards2[done] == 0).all() and not term2[done].any() and not trunc2[done].any()
    assert not (learner.state.terminated | learner.state.truncated)[done].any()
    assert (learner.lengths[done] == 0).all()  # the new game's first observation: no decision yet
    np.testing.assert_array_equal(obs2[done], core.observe(learner.state, learner.seat)[done])
    assert (info2["action_mask"][done].sum(1) >= 2).all()


def test_same_step_autoreset() -> None:
    envs = gymnasium.make_vec(ID, num_envs=16, opponents="greedy", max_turns=6, autoreset_mode=AutoresetMode.SAME_STEP)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.reset(seed=4)
    learner = envs.unwrapped.learner
    masks, (obs, rewards, term, trunc, info) = play_until_an_end(envs, np.random.default_rng(4))
    done = term | trunc
    np.testing.assert_array_equal(info["_final_obs"], done)
    np.testing.assert_array_equal(info["_final_info"], done)
    final = info["final_info"]
    assert RESULT_KEYS <= set(final)
    assert all(info["final_obs"][g] is None for g in np.flatnonzero(~done))
    for g in np.flatnonzero(done):
        assert info["final_obs"][g].shape == (core.OBS_DIM,)
        assert not np.array_equal(info["final_obs"][g], obs[g])  # obs is the new game's
        assert final["length"][g] >= 1 and envs.unwrapped.ended_opponents[g] == "greedy"
    # already dealt again: every game waits for the learner
    assert not (learner.state.terminated | learner.state.truncated).any()
    assert (learner.state.current_player == learner.seat).all()
    assert (info["action_mask"].sum(1) >= 2).all()


def test_disabled_autoreset_and_reset_mask() -> None:
    envs = AgeOfSummonersVectorEnv(num_envs=8, max_turns=4, autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=0)
    _, (obs, _, term, trunc, _) = play_until_an_end(envs, np.random.default_rng(0))
    done = term | trunc
    with pytest.raises(ResetNeeded, match="reset"):
        envs.step(np.zeros(8, dtype=np.int64))
    obs2, info = envs.reset(options={"reset_mask": done})
    np.testing.assert_array_equal(obs2[~done], obs[~done])  # the others are untouched
    assert (info["action_mask"].sum(1) >= 2).all()
    envs.step(legal_actions(envs.action_masks(), np.random.default_rng(1)))


def test_gymnasium_vector_wrappers() -> None:
    from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        envs = RecordEpisodeStatistics(AgeOfSummonersVectorEnv(num_envs=8, max_turns=4, autoreset_mode=mode))
        envs.reset(seed=0)
        _, (_, rewards, term, trunc, info) = play_until_an_end(envs, np.random.default_rng(0))
        done = term | trunc
        np.testing.assert_array_equal(info["_episode"], done)
        results = info if mode == AutoresetMode.NEXT_STEP else info["final_info"]
        np.testing.assert_array_equal(info["episode"]["l"][done], results["length"][done])
    listed = DictInfoToList(AgeOfSummonersVectorEnv(num_envs=4, max_turns=4))
    _, infos = listed.reset(seed=0)
    assert len(infos) == 4 and infos[0]["action_mask"].shape == (44,)


# ---- seeds ------------------------------------------------------------------------------------------


def trajectory(env, seed: int, steps: int = 80) -> list:
    obs, info = env.reset(seed=seed)
    out = [obs.copy()]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        out += [obs.copy(), reward, terminated]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs.copy())
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_seeding_is_reproducible() -> None:
    make = lambda: AgeOfSummonersEnv(num_players=3, opponents="greedy@1 random@1", max_turns=12)  # noqa: E731
    a, b = make(), make()
    assert same(trajectory(a, 7), trajectory(b, 7))
    assert same(trajectory(a, 7), trajectory(a, 7))  # a seeded reset restarts everything, the opponents too
    assert not same(trajectory(a, 7), trajectory(a, 8))
    seats = set()
    for s in range(12):
        a.reset(seed=s)
        seats.add(int(a.learner.seat[0]))
    assert seats == {0, 1, 2}  # the learner's seat is drawn per game


def test_vector_seeding_is_reproducible() -> None:
    def run(seed: int) -> list:
        envs = AgeOfSummonersVectorEnv(num_envs=6, opponents="greedy@1 random@1", max_turns=6)
        obs, _ = envs.reset(seed=seed)
        out, rng = [obs], np.random.default_rng(0)
        for _ in range(40):
            obs, rewards, term, trunc, _ = envs.step(legal_actions(envs.action_masks(), rng))
            out += [obs, rewards, term, trunc]
        return out

    assert same(run(1), run(1)) and not same(run(1), run(2))
    envs = AgeOfSummonersVectorEnv(num_envs=3)
    envs.reset(seed=5)
    assert envs.np_random is envs.learner.rng and envs.np_random_seed == 5


# ---- illegal actions ------------------------------------------------------------------------------------


def test_an_illegal_action_ends_the_game_by_default() -> None:
    env = AgeOfSummonersEnv(opponents="greedy")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.warns(IllegalActionWarning, match="illegal_action='terminate'"):
        obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info["illegal_action"] and info["outcome"] == -1.0 and not info["win"]
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step(0)
    env.reset()
    strict = AgeOfSummonersEnv(illegal_action="raise", illegal_reward=-3.0)
    _, info = strict.reset(seed=0)
    before = pickle.dumps(strict.learner)
    with pytest.raises(ArgumentError, match=r"^action must be legal \(see info\['action_mask'\]\): game 0: action"):
        strict.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert pickle.dumps(strict.learner) == before


def test_illegal_reward_in_the_vector_env() -> None:
    envs = AgeOfSummonersVectorEnv(num_envs=4, illegal_reward=-2.5)
    envs.reset(seed=0)
    actions = legal_actions(envs.action_masks(), np.random.default_rng(0))
    actions[2] = np.flatnonzero(~envs.action_masks()[2])[0]
    obs, rewards, term, trunc, info = envs.step(actions)
    assert term[2] and rewards[2] == -2.5 and info["illegal_action"][2] and info["_illegal_action"][2]
    assert not term[[0, 1, 3]].any()


# ---- copies keep the game -------------------------------------------------------------------------------


def continue_both(a, b, steps: int = 30) -> None:
    rng = np.random.default_rng(9)
    for _ in range(steps):
        actions = legal_actions(np.atleast_2d(a.action_masks()), rng)
        if isinstance(a, AgeOfSummonersEnv):
            actions = int(actions[0])
        ra, rb = a.step(actions), b.step(actions)
        for x, y in zip(ra[:4], rb[:4], strict=True):
            np.testing.assert_array_equal(x, y)
        if isinstance(a, AgeOfSummonersEnv) and (ra[2] or ra[3]):
            a.reset()
            b.reset()


@pytest.mark.parametrize("opponents", ["greedy@1 random@1", "mc:rollouts=2,max_rollout_turns=2"])
def test_pickle_and_deepcopy_keep_the_games(opponents: str) -> None:
    single = AgeOfSummonersEnv(opponents=opponents, max_turns=8)
    single.reset(seed=0)
    vector = AgeOfSummonersVectorEnv(num_envs=4, opponents=opponents, max_turns=8)
    vector.reset(seed=0)
    for env in (single, vector):
        rng = np.random.default_rng(0)
        for _ in range(3):  # some way into the games
            a = legal_actions(np.atleast_2d(env.action_masks()), rng)
            env.step(int(a[0]) if env is single else a)
        for make_twin in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
            twin = make_twin(env)
            np.testing.assert_array_equal(twin.learner.state.records, env.learner.state.records)
            np.testing.assert_array_equal(twin.learner.seat, env.learner.seat)
            continue_both(env, twin, steps=5)


# ---- render ---------------------------------------------------------------------------------------------


def test_render_ansi() -> None:
    env = gymnasium.make(ID, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Age of Summoners" in text and ", you)" in text  # drawn from the learner's seat
    envs = AgeOfSummonersVectorEnv(num_envs=2, render_mode="ansi")
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 2 and all("Age of Summoners" in f for f in frames)


# ---- the documented examples run ------------------------------------------------------------------------


@pytest.mark.one_backend
def test_the_gymnasium_example_in_the_docs_runs(capsys) -> None:
    (code,) = doc_code("Gymnasium")
    exec(compile(code, "docs/ecosystem.md#gymnasium", "exec"), {})
    assert "games, random play won" in capsys.readouterr().out


def test_render_mode_changed_to_a_bad_value_is_refused(capsys) -> None:
    """A render_mode set after construction is checked when rendering (issue 33), never taken as "human"."""
    env = AgeOfSummonersEnv(render_mode="ansi")
    env.reset(seed=0)
    env.render_mode = "video"
    with pytest.raises(ArgumentError, match=r"render_mode must be one of .*got 'video'"):
        env.render()
    envs = AgeOfSummonersVectorEnv(num_envs=2, render_mode="ansi")
    envs.reset(seed=0)
    envs.render_mode = "human"  # not a vector render mode
    with pytest.raises(ArgumentError, match=r"render_mode must be one of .*got 'human'"):
        envs.render()
    assert capsys.readouterr().out == ""


def _numeric(value) -> bool:
    if isinstance(value, dict):
        return all(_numeric(v) for v in value.values())
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (bool, int, float, np.number, np.bool_))


def test_infos_are_numbers_only_and_the_opponents_are_on_the_env() -> None:
    """Issue 32: TorchRL turns every info into a tensor; the opponents' names are ``ended_opponents``."""
    env = gymnasium.make(ID, opponents="greedy", max_turns=4)
    _, info = env.reset(seed=1)
    assert _numeric(info) and env.unwrapped.ended_opponents is None
    rng = np.random.default_rng(1)
    for _ in range(400):
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert _numeric(info), info
        if term or trunc:
            break
    assert RESULT_KEYS <= set(info) and env.unwrapped.ended_opponents == "greedy"
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        envs = gymnasium.make_vec(ID, num_envs=4, opponents="greedy random", max_turns=4, autoreset_mode=mode)
        _, info = envs.reset(seed=2)
        assert _numeric(info) and envs.unwrapped.ended_opponents == [None] * 4
        _, (_, _, term, trunc, info) = play_until_an_end(envs, rng)
        names = envs.unwrapped.ended_opponents
        for g in range(4):
            assert (names[g] in ("greedy", "random")) == bool(term[g] or trunc[g]), (g, names)
        if mode == AutoresetMode.SAME_STEP:
            info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}  # Gymnasium's object array
        assert _numeric(info), info


@pytest.mark.one_backend
def test_torchrl_gym_wrappers_take_the_env() -> None:
    """Issue 32: TorchRL's GymWrapper on make_vec (SameStep) and GymEnv with num_envs (an AsyncVectorEnv
    of single envs) pass check_env_specs and roll out (checked with torchrl 0.14.1)."""
    pytest.importorskip("torchrl")
    import torch
    from torchrl.envs import GymEnv, GymWrapper
    from torchrl.envs.utils import check_env_specs

    def random_legal(td):
        mask = td["action_mask"].bool()
        scores = torch.where(mask, torch.rand(mask.shape), torch.tensor(-1.0))
        td["action"] = torch.nn.functional.one_hot(scores.argmax(-1), mask.shape[-1])
        return td

    torch.manual_seed(0)
    envs = GymWrapper(gymnasium.make_vec(ID, num_envs=8, max_turns=4, autoreset_mode="SameStep"))
    check_env_specs(envs)
    td = envs.rollout(60, policy=random_legal, break_when_any_done=False)
    done = td["next", "done"]
    assert done.any() and set(td["next", "reward"][done].tolist()) <= {-1.0, 0.0, 1.0}
    single = GymEnv(f"aos_env:{ID}", num_envs=2, max_turns=4)  # its processes import aos_env through the id
    try:
        assert single.reset()["action_mask"].shape[-1] == core.NUM_ACTIONS
        td = single.rollout(40, policy=random_legal, break_when_any_done=False)
        assert td["next", "done"].any()
    finally:
        single.close()
