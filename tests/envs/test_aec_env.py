"""The PettingZoo AEC env: API conformance, seeding, masks, rewards, illegal actions, rendering."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import aos_env
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.envs.aec import INFO_KEYS
from aos_env.tools.positions import position


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api(players: int) -> None:
    # ~150 decisions per 2-player game: 1000 cycles cover several game ends
    api_test(aos_env.env(num_players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_seed(players: int) -> None:
    seed_test(lambda: aos_env.env(num_players=players), num_cycles=300)


def test_metadata_and_spaces() -> None:
    env = aos_env.env(num_players=3)
    assert env.metadata["name"] == "age_of_summoners_v1"
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
        assert agent == f"player_{int(raw.engine_state.current_player[0])}"
        acted_off_turn |= env.possible_agents[info["active_player"]] != agent
        assert tuple(info) == INFO_KEYS, "the same numeric keys at every step"
        assert info["winner"] == -1 and (info["final_scores"] == -1).all(), "not yet"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = raw.engine_state
    assert state.terminated[0] or state.truncated[0]
    assert abs(sum(totals.values())) < 1e-6
    final = info["final_scores"]
    assert final.tolist() == core.final_scores(state)[0].tolist()
    if state.terminated[0]:
        winner = env.possible_agents[info["winner"]]
        assert totals[winner] == 1.0
        assert all(np.isclose(v, -1 / (players - 1)) for a, v in totals.items() if a != winner)
    else:
        assert info["winner"] == -1


@pytest.mark.parametrize("players", [2, 3])
def test_env_plays_exactly_like_the_batched_engine(players: int) -> None:
    """The env's one-game path (one kernel call a step) gives the same game as core.step on a batch."""
    env = aos_env.raw_env(num_players=players)
    env.reset(seed=5)
    batch = core.init(3, players, seed=np.array([9, 5, 11]))  # the env's game is game 1 here
    rng = np.random.default_rng(players)
    fields = [
        "hand",
        "spirits",
        "mana",
        "stones",
        "deck",
        "discard",
        "offer",
        "vp",
        "faith",
        "head",
        "phase",
        "current_player",
        "legal_action_mask",
        "rewards",
        "terminated",
        "rng_counter",
        "stats",
    ]
    for _ in range(600):
        mine = env.engine_state
        for name in fields:
            assert np.array_equal(getattr(mine, name)[0], getattr(batch, name)[1]), name
        if mine.terminated[0] or mine.truncated[0]:
            break
        legal = env.legal_actions()
        action = legal[rng.integers(len(legal))]
        env.step(action)
        actions = np.array([batch.legal_action_mask[0].argmax(), action, batch.legal_action_mask[2].argmax()])
        core.step(batch, actions)
    assert env.engine_state.turn[0] > 10


def test_off_turn_decisions_go_to_the_right_agent() -> None:
    """Inquisition gifts are chosen by the giver, not the active player (R6.6)."""
    state = position(
        3,
        [
            {"hand": ["Golem", "Imp"], "head": "Golem", "faith": 5},
            {"hand": ["Angel", "Fairy"], "faith": 1},
            {"hand": ["Unicorn", "Imp"], "faith": 1},
        ],
        deck=["Imp", "Imp", "Fairy", "Fairy", "Fairy"],
    )
    env = aos_env.raw_env(num_players=3)
    env.load_state(state)
    assert env.agent_selection == "player_0"
    env.step(aos_env.core.ACTION_NAMES.index("CARD_16"))  # Golem: 4 + 4 = 8, Inquisition (forced ACT)
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["phase"] == core.Phase.INQUISITION_GIFT
    assert env.infos["player_1"]["active_player"] == 0
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
    state = position(
        2,
        [
            {
                "hand": ["Sphinx", "Imp"],
                "mana": ["Golem", "Golem"],
                "head": "Angel",
                "stones": ["Imp"],
                "spirits": ["Giant", "Pegasus"],
                "vp": 12,
                "faith": 4,
            },
            {"hand": ["Fairy"], "head": "Imp", "vp": 3},
        ],
        deck=["Unicorn", "Unicorn"],
    )
    env = aos_env.raw_env(num_players=2, render_mode="ansi")
    env.load_state(state)
    text = env.render()
    assert "player_0 (active, to choose, you): VP 12, faith 4 (compared as 6), hand 2 cards" in text
    assert "  spirits: Giant, Pegasus" in text
    assert "  mana: yellow x2; head: Angel (blue 5); stones: 1" in text  # mana by colour, as costs name it
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
    assert "pay with a yellow mana" in words


def test_render_human_prints(capsys) -> None:
    env = aos_env.raw_env(num_players=2, render_mode="human")
    env.reset(seed=2)
    out = capsys.readouterr().out
    assert "Age of Summoners, 2 players" in out and "Your hand (player_" in out


# ---- PettingZoo's test suite -------------------------------------------------------------------


def test_pettingzoo_render_test() -> None:
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: aos_env.env(num_players=3, render_mode=render_mode))


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_state_test(players: int) -> None:
    from pettingzoo.test.state_test import test_state, test_state_space

    env = aos_env.env(num_players=players)
    test_state_space(env)
    test_state(env, num_cycles=300, seed=3)


@pytest.mark.one_backend
def test_pettingzoo_performance_benchmark(capsys) -> None:
    """PettingZoo's own benchmark loop (5 s) runs through games and resets without an error."""
    from pettingzoo.test import performance_benchmark

    performance_benchmark(aos_env.env(num_players=2))
    out = capsys.readouterr().out
    turns = float(out.split(" turns per second")[0].split("\n")[-1])
    assert turns > 0


def test_state_is_the_global_state_with_hidden_information() -> None:
    env = aos_env.env(num_players=3)
    env.reset(seed=4)
    for _ in range(30):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    s = env.state()
    assert s.shape == (core.STATE_DIM,) and s.dtype == np.float32 and env.state_space.contains(s)
    raw = env.unwrapped
    np.testing.assert_array_equal(s, core.global_state(raw.engine_state)[0])
    for p in range(3):  # every seat's observation, by absolute seat, includes that player's own hand
        np.testing.assert_array_equal(
            s[p * core.OBS_DIM : (p + 1) * core.OBS_DIM], env.observe(f"player_{p}")["observation"]
        )
    at = 4 * core.OBS_DIM
    np.testing.assert_array_equal(s[at : at + 3 * 30], raw.engine_state.stones[0].ravel())  # hidden stone faces
    assert not s[3 * core.OBS_DIM : 4 * core.OBS_DIM].any(), "the absent fourth seat is zero"


# ---- ClassicWrapper: PettingZoo's three classic wrappers in one ---------------------------------


def _pettingzoo_stack(**kwargs):
    from pettingzoo.utils import wrappers

    e = aos_env.raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _snapshot(e) -> tuple:
    return (
        list(e.agents),
        e.agent_selection,
        dict(e.rewards),
        dict(e._cumulative_rewards),
        dict(e.terminations),
        dict(e.truncations),
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_classic_wrapper_behaves_like_pettingzoos_three_wrappers(seed: int) -> None:
    """Same actions (legal, then one illegal at a random moment, then None for the dead agents) give
    the same rewards, terminations, truncations, agents and agent selection as PettingZoo's stack."""
    ours, theirs = aos_env.env(num_players=3), _pettingzoo_stack(num_players=3)
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    illegal_at = int(rng.integers(5, 60))
    for i, (a, b) in enumerate(zip(ours.agent_iter(400), theirs.agent_iter(400), strict=True)):
        assert a == b
        oa, ra, ta, ua, ia = ours.last()
        ob, rb, tb, ub, ib = theirs.last()
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        assert (ra, ta, ua) == (rb, tb, ub)
        if ta or ua:
            action = None
        elif i == illegal_at:
            action = int(np.flatnonzero(oa["action_mask"] == 0)[0])
        else:
            action = int(rng.choice(np.flatnonzero(oa["action_mask"])))
        ours.step(action)
        theirs.step(action)
        assert _snapshot(ours) == _snapshot(theirs), f"step {i}"
    assert not ours.agents and not theirs.agents, "both games are over and every agent has left"


def test_classic_wrapper_order_and_bounds_errors() -> None:
    e = aos_env.env(num_players=2)
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.state(), lambda: e.agent_iter()):
        with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before"):  # PettingZoo's order check
            call()
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.agent_selection
    e.reset(seed=1)
    for bad in (44, -1, 2.5, "3", True):
        with pytest.raises(AssertionError, match="not in the action space"):
            e.step(bad)
    with pytest.raises(AssertionError):
        e.step(None)  # the acting agent is alive


# ---- copies keep the game in progress (issue: pickling rebuilt a fresh env) ---------------------


@pytest.mark.parametrize("make", [aos_env.env, aos_env.raw_env])
def test_pickle_and_deepcopy_keep_the_game(make) -> None:
    import copy
    import pickle

    e = make(num_players=3)
    e.reset(seed=12)
    for _ in range(25):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1]))
    for clone in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert clone.agent_selection == e.agent_selection
        np.testing.assert_array_equal(clone.unwrapped.engine_state.records, e.unwrapped.engine_state.records)
        for _ in range(40):  # and they go on alike, independently
            if not clone.agents:
                break
            a = int(np.flatnonzero(clone.observe(clone.agent_selection)["action_mask"])[0])
            clone.step(a)
        assert clone.unwrapped.engine_state.turn[0] >= e.unwrapped.engine_state.turn[0]
    assert e.unwrapped.engine_state.turn[0] == copy.deepcopy(e).unwrapped.engine_state.turn[0]


# ---- bad input: a clear ValueError naming the argument, and the game unchanged --------------------


def _frozen(raw) -> tuple:
    return (
        raw.engine_state.records.tobytes(),
        raw.agent_selection,
        dict(raw.rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        dict(raw._cumulative_rewards),
    )


@pytest.mark.parametrize(
    "bad", [2.7, 0.0, "0", "5", True, False, None, np.array([1, 2]), np.float32(3), [4], 99, -1, np.int64(99), 2**64]
)
def test_raw_env_step_rejects_non_actions_and_changes_nothing(bad) -> None:
    raw = aos_env.raw_env(num_players=2)
    raw.reset(seed=3)
    before = _frozen(raw)
    with pytest.raises(ValueError, match="action"):
        raw.step(bad)
    assert _frozen(raw) == before


def test_raw_env_accepts_numpy_integers() -> None:
    raw = aos_env.raw_env(num_players=2)
    raw.reset(seed=3)
    legal = raw.legal_actions()
    raw.step(np.int64(legal[0]))  # a numpy integer is an action id like any other


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, 2**63, np.float64(2.0), [1]])
def test_raw_env_reset_rejects_bad_seeds(seed) -> None:
    raw = aos_env.raw_env(num_players=2)
    with pytest.raises(ValueError, match="seed"):
        raw.reset(seed=seed)
    raw.reset(seed=np.uint64(5))  # a numpy integer in range is a seed


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": 2.5}, "max_turns"),
        ({"render_mode": "video"}, "render_mode"),
        ({"record_replay": "yes"}, "record_replay"),
        ({"backend": "jax"}, "backend"),
    ],
)
def test_raw_env_constructor_checks_its_arguments(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        aos_env.raw_env(**kwargs)


def test_raw_env_agent_names_and_calls_before_reset() -> None:
    raw = aos_env.raw_env(num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        raw.state()
    raw.reset(seed=1)
    before = _frozen(raw)
    for call in (
        lambda: raw.observe("player_9"),
        lambda: raw.observation_space("x"),
        lambda: raw.action_space(3),
        lambda: raw.describe(99),
        lambda: raw.describe("x"),
        lambda: raw.load_state("x"),
    ):
        with pytest.raises(ValueError):
            call()
    assert _frozen(raw) == before


# ---- issue 33 item 13: clear errors for bad actions, bad states and bad render modes -------------


@pytest.mark.parametrize("bad", [44, -1, "3", 3.7, True, np.int64(44), None, [3]])
def test_env_step_outside_the_action_space_names_the_action_and_the_range(bad) -> None:
    """env().step(bad) raises the project's error (also an AssertionError, PettingZoo's convention),
    naming the acting agent, the value and the range; nothing changes."""
    e = aos_env.env(num_players=2)
    e.reset(seed=3)
    before = (e.agent_selection, e.unwrapped.engine_state.records.copy())
    with pytest.raises(ArgumentError, match=r"^player_\d: action is not in the action space") as err:
        e.step(bad)
    assert isinstance(err.value, AssertionError)
    assert "0..43" in str(err.value) and repr(bad)[:20] in str(err.value)
    assert (e.agent_selection, e.unwrapped.engine_state.records.copy())[0] == before[0]
    assert np.array_equal(e.unwrapped.engine_state.records, before[1])


def test_load_state_refuses_an_inconsistent_state() -> None:
    raw = aos_env.raw_env(num_players=2)
    raw.reset(seed=1)
    turn = int(raw.engine_state.turn[0])
    state = core.init(1, 2, seed=5)
    state.hand[0, 0, 0] += 1  # one card too many: 111 in all
    with pytest.raises(ArgumentError, match=r"^state: .*cards of .* over all zones; it must be \d+"):
        raw.load_state(state)
    assert int(raw.engine_state.turn[0]) == turn and raw.engine_state is not state, "nothing changed"
    state = core.init(1, 2, seed=5)
    state.faith[0, 1] = 99
    with pytest.raises(ArgumentError, match=r"^state: players\[1\]\.faith is 99; it must be 0\.\.10"):
        raw.load_state(state)
    state = core.init(1, 2, seed=5, max_turns=30)
    with pytest.raises(ArgumentError, match=r"^state: max_turns is 30; this env's is 200"):
        raw.load_state(state)
    raw.load_state(core.init(1, 2, seed=5))  # a consistent state is taken


@pytest.mark.parametrize("make", [aos_env.raw_env, aos_env.env])
def test_render_mode_changed_to_a_bad_value_is_refused(make, capsys) -> None:
    e = make(num_players=2, render_mode="ansi")
    e.reset(seed=1)
    e.render_mode = "video"
    with pytest.raises(ArgumentError, match=r"render_mode must be one of .*got 'video'"):
        e.render()
    assert capsys.readouterr().out == "", "nothing printed as if it were 'human'"
    e.render_mode = "ansi"
    assert isinstance(e.render(), str)


# ---- observation="flat": the Box alone, the mask in the infos (issue 32: SuperSuit) ----------------


def test_flat_observation_passes_the_api_test_and_matches_the_dict_layout() -> None:
    api_test(aos_env.env(num_players=3, observation="flat"), num_cycles=300)
    flat, full = aos_env.env(num_players=2, observation="flat"), aos_env.env(num_players=2)
    assert flat.observation_space("player_0") == full.observation_space("player_0")["observation"]
    for e in (flat, full):
        e.reset(seed=4)
    rng = np.random.default_rng(0)
    for a, b in zip(flat.agent_iter(300), full.agent_iter(300), strict=True):
        assert a == b
        of, rf, tf, uf, info_f = flat.last()
        od, rd, td, ud, info_d = full.last()
        np.testing.assert_array_equal(of, od["observation"])
        np.testing.assert_array_equal(info_f["action_mask"], od["action_mask"])
        assert {k: v for k, v in info_f.items() if k != "action_mask"}.keys() == info_d.keys()
        for other in flat.agents:
            if other != a:
                assert not flat.infos[other]["action_mask"].any(), "only the acting agent has legal actions"
        action = None if tf or uf else int(rng.choice(np.flatnonzero(info_f["action_mask"])))
        flat.step(action)
        full.step(action)
    with pytest.raises(ArgumentError, match=r"observation must be one of 'dict', 'flat', got 'box'"):
        aos_env.raw_env(observation="box")


def test_supersuit_observation_wrappers_take_the_flat_env() -> None:
    """SuperSuit's common observation wrappers fail on the Dict; they take observation="flat"
    (checked with supersuit 3.11.0, where installed)."""
    ss = pytest.importorskip("supersuit")
    env = aos_env.env(num_players=2, observation="flat")
    env = ss.dtype_v0(env, np.float32)
    env = ss.normalize_obs_v0(env, env_min=0.0, env_max=1.0)
    env = ss.frame_stack_v1(env, 3)
    env = ss.flatten_v0(env)
    env.reset(seed=1)
    assert env.observation_space("player_0").shape == (3 * core.OBS_DIM,)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter(400):
        obs, _, term, trunc, info = env.last()
        assert obs.shape == (3 * core.OBS_DIM,) and 0.0 <= obs.min() and obs.max() <= 1.0
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(info["action_mask"]))))
